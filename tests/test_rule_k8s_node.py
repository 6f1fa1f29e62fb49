"""A Kubernetes node's description (`kubectl describe node`, `kubectl get node -o yaml`): facts/k8s_node.py.

The device plugin's capacity is every GPU it registered, its allocatable those it reports healthy
(NVIDIA/k8s-device-plugin#58, #452): allocatable 0 of a capacity above 0 withholds every GPU (CTR-GPU-ACCESS issue,
corpus 1725); a node GPU feature discovery labels with a GPU whose whole Capacity lists none is served by no device
plugin (issue); allocatable equal to capacity above 0 is the node's side reached (ok); a description cut before its
Capacity proves nothing (unknown, corpus 1716). GFD's labels give the GPU model and count, the driver version and the
MIG strategy. The lines are real, from the thread named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.k8s_node import (
    gpus_from_node_labels,
    hami_entries,
    hami_registered,
    mig_setup_from_node,
    parse_k8s_nodes,
)
from stackaudit.importers.recognition import recognise

ACCESS = "CTR-GPU-ACCESS"

# podman-desktop/podman-desktop#7778: `kubectl get node -o yaml`'s status, one GPU registered and offered.
OFFERED_YAML = """\
status:
  addresses:
    - address: 192.168.1.94
      type: InternalIP
    - address: nvidia1
      type: Hostname
  allocatable:
    cpu: "16"
    ephemeral-storage: "8443296967"
    hugepages-1Gi: "0"
    hugepages-2Mi: "0"
    memory: 32777408Ki
    nvidia.com/gpu: "1"
    pods: "110"
  capacity:
    cpu: "16"
    ephemeral-storage: 8679376Ki
    hugepages-1Gi: "0"
    hugepages-2Mi: "0"
    memory: 32777408Ki
    nvidia.com/gpu: "1"
    pods: "110"
"""
# NVIDIA/k8s-device-plugin#1501: GFD's labels of an H100 node (`kubectl describe node`), under a modelled head.
H100_LABELS = """\
Name:               gpu-node-1
Roles:              <none>
Labels:             kubernetes.io/os=linux
                    nvidia.com/gpu.count=8
                    nvidia.com/gpu.deploy.container-toolkit=true
                    nvidia.com/gpu.deploy.device-plugin=true
                    nvidia.com/gpu.family=hopper
                    nvidia.com/gpu.machine=PowerEdge-XE9680
                    nvidia.com/gpu.memory=81559
                    nvidia.com/gpu.mode=compute
                    nvidia.com/gpu.present=true
                    nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
                    nvidia.com/gpu.replicas=1
                    nvidia.com/mig.capable=true
"""
# NVIDIA/gpu-operator#442: the end of an A30 node's labels and its annotations, cut before its Capacity.
A30_CUT = """\
Name:               a30-node
Roles:              <none>
Labels:             nvidia.com/gpu.deploy.operator-validator=true
                    nvidia.com/gpu.family=ampere
                    nvidia.com/gpu.machine=OpenStack-Nova
                    nvidia.com/gpu.memory=24576
                    nvidia.com/gpu.present=true
                    nvidia.com/gpu.product=NVIDIA-A30
                    nvidia.com/gpu.replicas=0
                    nvidia.com/mig.capable=true
Annotations:        flannel.alpha.coreos.com/backend-type: vxlan
                    kubeadm.alpha.kubernetes.io/cri-socket: /var/run/dockershim.sock
                    node.alpha.kubernetes.io/ttl: 0
"""
# kf5i/k3ai-core#86: a kind control-plane node with no GPU label, cut in its Conditions (the real counter-example).
NO_GPU_NODE = """\
Name:               demo-win-kind-control-plane
Roles:              master
Labels:             beta.kubernetes.io/arch=amd64
                    beta.kubernetes.io/os=linux
                    kubernetes.io/arch=amd64
                    kubernetes.io/hostname=demo-win-kind-control-plane
                    kubernetes.io/os=linux
                    node-role.kubernetes.io/master=
Annotations:        kubeadm.alpha.kubernetes.io/cri-socket: unix:///run/containerd/containerd.sock
                    node.alpha.kubernetes.io/ttl: 0
                    volumes.kubernetes.io/controller-managed-attach-detach: true
CreationTimestamp:  Wed, 07 Jul 2021 18:23:33 +0900
Taints:             <none>
Unschedulable:      false
"""
# Modelled on a GPU Operator node: GFD labels a GPU and driver 535.104.05, the whole Capacity lists no nvidia.com/gpu.
UNOFFERED = """\
Name:               worker-1
Roles:              <none>
Labels:             nvidia.com/cuda.driver.major=535
                    nvidia.com/cuda.driver.minor=104
                    nvidia.com/cuda.driver.rev=05
                    nvidia.com/cuda.runtime.major=12
                    nvidia.com/cuda.runtime.minor=2
                    nvidia.com/gpu.count=1
                    nvidia.com/gpu.present=true
                    nvidia.com/gpu.product=Tesla-T4
Taints:             <none>
Capacity:
  cpu:                8
  memory:             32498916Ki
  pods:               110
Allocatable:
  cpu:                8
  memory:             32396516Ki
  pods:               110
System Info:
  Kernel Version:             5.15.0-1034-aws
  OS Image:                   Ubuntu 22.04.2 LTS
  Container Runtime Version:  containerd://1.7.2
  Kubelet Version:            v1.28.3
"""
# Modelled: a CPU node, whole, with no GPU label and no GPU resource: the rule must not fire.
CPU_NODE = UNOFFERED.replace("nvidia.com/gpu.present=true", "kubernetes.io/os=linux").replace(
    "                    nvidia.com/gpu.count=1\n", "").replace("                    nvidia.com/gpu.product=Tesla-T4\n", "")
# Modelled on GFD's `mixed` MIG strategy: seven 1g.5gb slices registered and offered.
MIG_MIXED = """\
Name:               a100-node
Roles:              <none>
Labels:             nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB
                    nvidia.com/mig.strategy=mixed
Capacity:
  cpu:                    64
  nvidia.com/mig-1g.5gb:  7
  pods:                   110
Allocatable:
  cpu:                    64
  nvidia.com/mig-1g.5gb:  7
  pods:                   110
Events:                   <none>
"""


def test_the_node_object_is_read_with_its_hostname_and_resources() -> None:
    (node,) = parse_k8s_nodes(OFFERED_YAML).nodes
    assert node.name == "nvidia1"
    assert [e.line for e in node.offered()] == ['nvidia.com/gpu: "1"']
    (node,) = parse_k8s_nodes(body("1725")).nodes
    assert node.name == "ocio-gpu01" and node.withheld() is not None and not node.offered()


def test_gfd_labels_give_the_gpus_the_driver_and_the_kernel() -> None:
    inventory = gpus_from_node_labels(H100_LABELS)
    assert inventory.count == 8 and inventory.models[0] == "NVIDIA-H100-80GB-HBM3"
    (node,) = parse_k8s_nodes(UNOFFERED).nodes
    assert node.driver_version == "535.104.05" and node.kernel == "5.15.0-1034-aws"
    assert node.system_value("runtime") == "containerd://1.7.2" and node.capacity_whole
    (a30,) = parse_k8s_nodes(A30_CUT).nodes
    assert a30.gpu_product == "NVIDIA-A30" and a30.gpu_count is None and not a30.capacity_whole


def test_a_time_sliced_or_mig_single_product_is_no_whole_gpu_model() -> None:
    shared = H100_LABELS.replace("HBM3\n", "HBM3-SHARED\n")
    assert gpus_from_node_labels(shared).models[0] == "NVIDIA-H100-80GB-HBM3"
    (node,) = parse_k8s_nodes(H100_LABELS.replace("HBM3\n", "HBM3-MIG-1g.10gb\n")).nodes
    assert node.gpu_product == "" and node.gpu_count is None


def test_allocatable_zero_of_registered_gpus_is_an_issue() -> None:
    result = capture_checks("1725", ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "16 nvidia.com/gpu" in result.message and "ocio-gpu01" in result.message and "unhealthy" in result.message


def test_a_node_offering_all_it_registered_is_ok_on_its_side(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, OFFERED_YAML, ACCESS)[ACCESS]
    assert result.status == "ok" and "nvidia.com/gpu 1" in result.message
    assert paste_checks(tmp_path, MIG_MIXED, ACCESS)[ACCESS].status == "ok"


def test_a_gpu_labelled_node_whose_whole_capacity_has_no_gpu_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, UNOFFERED, ACCESS, "DRV-CUDA-COMPAT")
    assert result[ACCESS].status == "issue" and "`nvidia.com/gpu.count=1`" in result[ACCESS].message
    # The same node cut before its Capacity ends (no line after it) proves nothing absent.
    cut = UNOFFERED.split("Allocatable:")[0]
    assert paste_checks(tmp_path, cut, ACCESS)[ACCESS].status == "unknown"


def test_a_node_without_gpu_or_cut_before_capacity_says_no_verdict(tmp_path: Path) -> None:
    # corpus 1716 (k0s): GFD's gpu.present label, cut in its Conditions.
    assert capture_checks("1716", ACCESS)[ACCESS].status == "unknown"
    assert paste_checks(tmp_path, A30_CUT, ACCESS)[ACCESS].status == "unknown"
    for text in (NO_GPU_NODE, CPU_NODE):
        assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status not in ("ok", "issue")


def test_the_description_is_recognised_whole_and_a_volume_capacity_is_not() -> None:
    kinds = recognise(UNOFFERED).recognised
    assert [(k, a, b) for k, a, b, *_ in kinds] == [("k8s node", 1, 24)]
    volume = "spec:\n  capacity:\n    storage: 10Gi\n  accessModes:\n  - ReadWriteOnce\n"
    assert not [k for k, *_ in recognise(volume + "nvidia-smi\n").recognised if k == "k8s node"]


def test_mig_strategy_labels_and_resources_feed_the_mig_setup() -> None:
    # Slicing set up on purpose (MEM-MIG's not-an-issue where the GPUs show MIG on); `mig.capable` alone is not.
    assert mig_setup_from_node(MIG_MIXED).lines == ("nvidia.com/mig.strategy=mixed", "nvidia.com/mig-1g.5gb:  7",
                                                    "nvidia.com/mig-1g.5gb:  7")
    with pytest.raises(ParseError):
        mig_setup_from_node(H100_LABELS)


# `kubectl get nodes -o wide`, three real pastes: kubernetes/kubernetes#46646 (the column set of 1.6, rows abridged),
# akash-network/community#608 (with `--show-labels`, labels cut here), kubernetes/kubernetes#94926 (columns cut by
# the user, the second row cut short: corpus 2078).
WIDE_46646 = """\
NAME                             STATUS                     AGE       VERSION   EXTERNAL-IP      OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME
ip-10-22-168-211.ec2.internal    Ready                      73d       v1.6.4    24.111.11.60     Ubuntu 14.04.5 LTS   4.4.0-38-generic     docker://1.11.2
"""
WIDE_608 = """\
NAME     STATUS   ROLES           AGE    VERSION   INTERNAL-IP    EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME    LABELS
node1    Ready    control-plane   130d   v1.27.7   10.8.102.131   <none>        Ubuntu 22.04.4 LTS   5.15.0-94-generic    containerd://1.7.5   AMD=true,NVIDIA-GTX-1660-TI=true,akash.network=true
node10   Ready    <none>          13d    v1.27.7   10.8.102.148   <none>        Ubuntu 22.04.3 LTS   5.15.0-100-generic   containerd://1.7.5   AMD=true,NVIDIA-GTX-1660-TI=true,allow-nvdp=true
"""
WIDE_94926 = """\
NAME                                    VERSION   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME
kubernetes-master-geforce-2080-1         v1.19.0   Ubuntu 18.04.4 LTS   4.15.0-117-generic   docker://19.3.12
kubernetes-master-geforce-2080-2          v
"""


@pytest.mark.parametrize(("text", "names", "kernel"), [
    (WIDE_46646, ["ip-10-22-168-211.ec2.internal"], "4.4.0-38-generic"),
    (WIDE_608, ["node1", "node10"], "5.15.0-94-generic"),
    (WIDE_94926, ["kubernetes-master-geforce-2080-1"], "4.15.0-117-generic"),
])
def test_get_nodes_wide_rows_are_nodes_with_their_system_info(text: str, names: list[str], kernel: str) -> None:
    nodes = parse_k8s_nodes(text).nodes
    assert [n.name for n in nodes] == names  # a row cut short (#94926's second) is not read
    assert nodes[0].kernel == kernel and nodes[0].system_value("runtime").startswith(("docker://", "containerd://"))
    assert not any(n.gpu_node for n in nodes)  # a row shows no GPU: no node's kernel is read as the GPU host's
    kinds = recognise(text).recognised
    assert [(k, a) for k, a, *_ in kinds] == [("k8s node", 1)]


def test_a_table_without_the_kernel_column_is_no_node_listing() -> None:
    # Modelled: `kubectl get pods -o wide`'s header holds NAME and NODE but no KERNEL-VERSION.
    pods = "NAME      READY   STATUS    RESTARTS   AGE   IP           NODE    NOMINATED NODE\nvllm-0    1/1     Running   0          1d    10.0.0.5     gpu-1   <none>\n"
    with pytest.raises(ParseError):
        parse_k8s_nodes(pods)

# NVIDIA/k8s-device-plugin#1501: the same H100 node's labels as pasted there, after a `...`, without the node's name or
# the `Labels:` header (describe's label lines alone).
H100_BARE = "...\n" + "".join(line + "\n" for line in H100_LABELS.splitlines()[3:])
# NVIDIA/gpu-operator#442: the A30 node's label lines alone (the cut out of describe is modelled).
A30_BARE = "".join(line + "\n" for line in A30_CUT.splitlines()[3:10])
# Modelled on `kubectl describe pod` of the device plugin: its node selectors name the operator's switches, not GFD's
# labels of the GPU, so the lines are no node's.
POD_SELECTORS = """\
QoS Class:                   BestEffort
Node-Selectors:              nvidia.com/gpu.deploy.device-plugin=true
                             nvidia.com/gpu.present=true
Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists
"""


def test_label_lines_alone_are_read_as_a_node_where_they_hold_gfd_labels() -> None:
    kinds = [(k, a, b) for k, a, b, *_ in recognise(H100_BARE).recognised]
    assert kinds == [("k8s node", 2, 12)]
    node = parse_k8s_nodes(H100_BARE).nodes[0]
    assert (node.gpu_product, node.gpu_count) == ("NVIDIA-H100-80GB-HBM3", 8)
    assert parse_k8s_nodes(A30_BARE).nodes[0].gpu_product == "NVIDIA-A30"
    assert [k for k, *_ in recognise(A30_BARE).recognised] == ["k8s node"]
    assert not [k for k, *_ in recognise(POD_SELECTORS).recognised if k == "k8s node"]


def test_a_labelled_compute_capability_without_mig_names_the_gpu_and_counts_it() -> None:
    # vllm-project/vllm#3564 (corpus 2125): no product label, compute capability 8.9 (Ada: no MIG), gpu.count=1.
    labels = ("                    nvidia.com/gpu.compute.major=8\n"
              "                    nvidia.com/gpu.compute.minor=9\n"
              "                    nvidia.com/gpu.count=1\n")
    node = parse_k8s_nodes(labels).nodes[0]
    assert (node.gpu_product, node.gpu_count, node.most_gpus) == ("GPU of compute capability 8.9", 1, 1)
    assert gpus_from_node_labels(labels).whole_count == 1
    # Modelled: capability 8.0 may be an A100 under the `single` MIG strategy, whose count is of slices.
    a100 = labels.replace("minor=9", "minor=0").replace("count=1", "count=7")
    assert (parse_k8s_nodes(a100).nodes[0].gpu_count, parse_k8s_nodes(a100).nodes[0].most_gpus) == (None, None)


# NVIDIA/k8s-device-plugin#1246 (corpus 2111): the one node's whole Capacity without nvidia.com/gpu, four T4 in lspci.
BARE_CAPACITY = """\
$ kubectl describe node REDACTED  |grep Capacity -A 14
Capacity:
  cpu:                48
  ephemeral-storage:  227966388Ki
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             394810384Ki
  pods:               110
Allocatable:
  cpu:                47400m
  ephemeral-storage:  209045246833
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             393921552Ki
  pods:               110
System Info:
"""
T4_LSPCI = """\
$ lspci|grep nvidia -i
3b:00.0 3D controller: NVIDIA Corporation TU104GL [Tesla T4] (rev a1)
96:00.0 3D controller: NVIDIA Corporation TU104GL [Tesla T4] (rev a1)
"""


def test_the_one_node_without_a_gpu_resource_beside_listed_gpus_is_an_issue(tmp_path: Path) -> None:
    result = capture_checks("2111", ACCESS)[ACCESS]
    assert result.status == "issue" and "4 NVIDIA GPU(s)" in result.message and "`lspci`" in result.message
    assert parse_k8s_nodes(BARE_CAPACITY).unserved() is not None
    # Modelled: the node alone (corpus 1920's case) shows no GPU of the machine; absence proves nothing there.
    assert paste_checks(tmp_path, BARE_CAPACITY, ACCESS)[ACCESS].status != "issue"
    # Modelled: the Capacity cut before its end, or a second node shown (the GPUs may be the other node's).
    assert parse_k8s_nodes(BARE_CAPACITY.split("Allocatable:")[0]).unserved() is None
    two = "Name:               a\n" + BARE_CAPACITY + "Name:               b\n" + BARE_CAPACITY
    assert len(parse_k8s_nodes(two).nodes) == 2 and parse_k8s_nodes(two).unserved() is None
    assert paste_checks(tmp_path, two + T4_LSPCI, ACCESS)[ACCESS].status != "issue"
    assert paste_checks(tmp_path, BARE_CAPACITY + T4_LSPCI, ACCESS)[ACCESS].status == "issue"


# NVIDIA/k8s-device-plugin#125 (corpus 2161): the node's Capacity and Allocatable, one GPU held back.
PARTIAL = """Capacity:
 cpu:                72
 memory:             525490100Ki
 nvidia.com/gpu:     8
 pods:               110
Allocatable:
 cpu:                71500m
 memory:             508028852Ki
 nvidia.com/gpu:     7
 pods:               110
"""


def test_allocatable_below_capacity_holds_back_some_gpus(tmp_path: Path) -> None:
    result = capture_checks("2161", ACCESS)[ACCESS]
    assert result.status == "issue" and "1 of the GPUs" in result.message and "7 of its 8" in result.message
    (node,) = parse_k8s_nodes(PARTIAL).nodes
    cap, alloc = node.withheld() or (None, None)
    assert cap is not None and alloc is not None and (cap.value, alloc.value) == ("8", "7") and not node.offered()
    # Modelled on NVIDIA/k8s-device-plugin#75 (3 GPUs in total, 2 allocatable, in the user's words) as YAML.
    yaml = ('status:\n  allocatable:\n    nvidia.com/gpu: "2"\n    pods: "110"\n'
            '  capacity:\n    nvidia.com/gpu: "3"\n    pods: "110"\n')
    assert paste_checks(tmp_path, yaml, ACCESS)[ACCESS].status == "issue"
    # Modelled counter-example: allocatable equal to capacity is the node's side reached.
    whole = PARTIAL.replace("nvidia.com/gpu:     7", "nvidia.com/gpu:     8")
    assert paste_checks(tmp_path, whole, ACCESS)[ACCESS].status == "ok"


# HAMi's register annotation (facts/k8s_node.hami_registered), as HAMi's own docs and a user's node show it: real.
# Project-HAMi's docs (the node's YAML, folded): two A40s.
HAMI_FOLDED_A40 = """    hami.io/node-nvidia-register: >
      GPU-03f69c50-207a-2038-9b45-23cac89cb67d,10,46068,100,NVIDIA-NVIDIA A40,0,true:
      GPU-1afede84-4e70-2174-49af-f07ebb94d1ae,10,46068,100,NVIDIA-NVIDIA A40,0,true:
    kubeadm.alpha.kubernetes.io/cri-socket: /run/containerd/containerd.sock
"""
# HAMi's commercial edition's docs: entries with the index and mode after the health field, quoted.
HAMI_QUOTED_P4 = ("hami.io/node-nvidia-register: 'GPU-61951b89-82be-83fe-3068-2fea68026576,10,7680,100,NVIDIA-Tesla P4,"
                  "0,true,0,hami-core:GPU-c080157b-3ab1-179d-d6dd-483adab68726,10,8192,100,NVIDIA-Tesla P4,0,true,1,"
                  "hami-core:'\n")
# HAMi's docs of newer releases: the JSON array.
HAMI_JSON_V100 = ('hami.io/node-nvidia-register: [{"id":"GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec","count":10,'
                  '"devmem":32768,"devcore":100,"type":"NVIDIA-Tesla V100-PCIE-32GB","numa":1,"mode":"hami-core",'
                  '"health":true},{"id":"GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448","index":1,"count":10,"devmem":32768,'
                  '"devcore":100,"type":"NVIDIA-Tesla V100-PCIE-32GB","numa":1,"mode":"hami-core","health":true}]\n')


def test_hami_register_lists_the_gpus_and_their_model() -> None:
    for text, model in ((HAMI_FOLDED_A40, "NVIDIA A40"), (HAMI_QUOTED_P4, "Tesla P4"),
                        (HAMI_JSON_V100, "Tesla V100-PCIE-32GB")):
        found = hami_registered(text)
        assert found is not None and [g.model for g in found.gpus] == [model, model], text
        assert not found.partial


def test_corpus_2171_a_cut_hami_register_is_a_lower_bound() -> None:
    # Corpus 2171 (Project-HAMi/HAMi#314): the value cut by kubectl after the first whole entry, an A100 PCIe.
    found = hami_registered(body("2171"))
    assert found is not None and [g.model for g in found.gpus] == ["NVIDIA A100-PCIE-40GB"] and found.partial
    fm = capture_checks("2171", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert fm.status == "not-applicable", fm.message


def test_hami_register_gives_each_gpus_shares() -> None:
    for text, model in ((HAMI_FOLDED_A40, "NVIDIA A40"), (HAMI_QUOTED_P4, "Tesla P4"),
                        (HAMI_JSON_V100, "Tesla V100-PCIE-32GB")):
        assert hami_entries(text)[0] == ((model, 10), (model, 10)), text


def test_corpus_2407_a_node_cut_in_its_annotations_is_read_by_its_hami_register() -> None:
    # Corpus 2407 (volcano-sh/volcano#4511): `kubectl get node -o yaml` cut inside its NFD labels, before any
    # capacity; HAMi registers its one RTX 2060 as 10 shares.
    assert [k for k, *_ in recognise(body("2407")).recognised] == ["k8s node"]
    res = capture_checks("2407", "MEM-GPU-SHARED", "MEM-MIG", "CTR-K8S-GPU-TOPOLOGY", "CTR-GPU-ACCESS")
    assert res["MEM-GPU-SHARED"].status == "issue" and "GeForce RTX 2060 x10" in res["MEM-GPU-SHARED"].message
    assert res["MEM-MIG"].status == "not-applicable"
    assert res["CTR-K8S-GPU-TOPOLOGY"].status == "not-applicable"
    assert res["CTR-GPU-ACCESS"].status == "unknown"


def test_corpus_2171_ten_shares_of_each_a100_and_a_cut_register_no_single_gpu() -> None:
    # Corpus 2171 (Project-HAMi/HAMi#314): each A100 split 10 ways (its second reader: issue); cut after the first
    # GPU, so the node's GPU count is not known: no single-GPU verdict.
    res = capture_checks("2171", "MEM-GPU-SHARED", "CTR-K8S-GPU-TOPOLOGY")
    assert res["MEM-GPU-SHARED"].status == "issue" and "A100-PCIE-40GB x10" in res["MEM-GPU-SHARED"].message
    assert res["CTR-K8S-GPU-TOPOLOGY"].status == "unknown"


def test_modelled_a_register_of_whole_gpus_shares_nothing(tmp_path: Path) -> None:
    # Modelled: HAMi's docs' A40 node with each GPU registered as one share (device-split-count 1), two GPUs.
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  annotations:\n" + HAMI_FOLDED_A40.replace(",10,", ",1,")
    (node,) = parse_k8s_nodes(text).nodes
    assert node.registered == (("NVIDIA A40", 1), ("NVIDIA A40", 1)) and node.most_gpus == 2
    res = paste_checks(tmp_path, text, "MEM-GPU-SHARED", "CTR-K8S-GPU-TOPOLOGY")
    assert res["MEM-GPU-SHARED"].status != "issue" and res["CTR-K8S-GPU-TOPOLOGY"].status != "not-applicable"


def test_modelled_a_register_cut_inside_its_first_entry_names_no_gpu() -> None:
    text = "hami.io/node-nvidia-register:\n  GPU-b7c4eb59-dd76-ca5a-8482-56fd796b0a75,10,40960,100,NVIDIA-NVI...\n"
    assert hami_registered(text) is None


@pytest.mark.parametrize("prefix", ["1946", "2171", "2172", "2078"])
def test_a_node_seen_from_outside_its_pods_is_unknown_not_out_of_scope(prefix: str) -> None:
    """Corpus 1946, 2171, 2172 (their readers: unknown) and 2078 (`kubectl get nodes -o wide`): nodes described from
    outside their pods, no GPU resource read and no pod spec: the cluster runs its workloads in containers, so the check
    is not ruled out; which pods get GPUs is not shown."""
    result = capture_checks(prefix, ACCESS)[ACCESS]
    assert result.status == "unknown"
    # 2171's node shows its GPUs by HAMi's register (so it is a GPU node), cut before its Capacity.
    assert ("not both its capacity and allocatable" if prefix == "2171" else "from outside its pods") in result.message


def test_a_node_seen_from_outside_keeps_the_device_plugins_own_line() -> None:
    # corpus 2064: the node's description beside the device plugin's registration line stays ok.
    assert capture_checks("2064", ACCESS)[ACCESS].status == "ok"
