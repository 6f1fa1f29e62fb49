"""Rows of a pod's Events table where kubelet pulls, creates, starts or kills its containers.

kubelet gives these reasons (Pulling, Pulled, Created, Started, Killing, SandboxChanged) to a pod's containers and never
to a node, so a run of them from kubelet is a piece of `kubectl describe pod`: the paste is read as a k8s pod listing,
not refused (corpus 2030). Such rows say a container started, not that it runs now or sees a GPU: CTR-GPU-ACCESS stays
unknown from them alone. A node's own kubelet events (Starting, NodeReady) are no pod's. The lines are real, from the
threads named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.importers.k8s_pods import k8s_pod_listing

ACCESS = "CTR-GPU-ACCESS"

# NVIDIA/cloud-native-stack#6 (corpus 2030): the GPU Operator's driver-validation container, the events cut.
VALIDATION = """\
  Normal   Pulled          27m                 kubelet            Container image "nvcr.io/nvidia/cuda@sha256:ed723a1339cddd75eb9f2be2f3476edf497a1b189c10c9bf9eb8da4a16a51a59" already present on machine
  Normal   Created         27m                 kubelet            Created container driver-validation
  Normal   Started         27m                 kubelet            Started container driver-validation
"""
# NVIDIA/gpu-operator#1623: the driver pod's Events with their heads, kubelet 1.32's `Created container: <name>`.
DRIVER_EVENTS = """\
Events:
  Type     Reason     Age                     From               Message
  ----     ------     ----                    ----               -------
  Normal   Scheduled  10m                     default-scheduler  Successfully assigned nvidia/nvidia-driver-daemonset-wg9ws to gke-kasiak-08-22-gpu-pool-3-3a23117c-6vr8
  Normal   Pulled     10m                     kubelet            Container image "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.8.0" already present on machine
  Normal   Created    10m                     kubelet            Created container: k8s-driver-manager
  Normal   Started    10m                     kubelet            Started container k8s-driver-manager
"""
# eclipse-che/che#21765: one Pulled row, from kubelet, pasted after a runtime's log line.
PULLED = """\
time="2022-10-13T15:59:13Z" level=error msg="runc create failed: unable to start container process"
  Normal   Pulled  5m1s  kubelet  Successfully pulled image "icr.io/hfwen/codeflare-bert:v4" in 315.52429ms
"""
# Modelled: a node's own events from `kubectl describe node`: kubelet's Starting and NodeReady are no pod's.
NODE_EVENTS = """\
  Normal  Starting                 5m    kubelet  Starting kubelet.
  Normal  NodeReady                5m    kubelet  Node gpu-node-1 status is now: NodeReady
"""


def _spans(text: str) -> list[tuple[int, int]]:
    return [(f.start, f.end) for f in k8s_pod_listing(text.splitlines())]


def test_kubelet_container_events_are_a_pods() -> None:
    assert _spans(VALIDATION) == [(0, 3)]
    assert _spans(DRIVER_EVENTS) == [(0, 7)]
    assert _spans(PULLED) == [(1, 2)]


def test_a_nodes_own_events_are_not() -> None:
    assert _spans(NODE_EVENTS) == []


def test_started_containers_say_nothing_of_access(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, VALIDATION, ACCESS)[ACCESS].status == "unknown"
    assert paste_checks(tmp_path, DRIVER_EVENTS, ACCESS)[ACCESS].status == "unknown"


def test_corpus_2030_is_read() -> None:
    results = capture_checks("2030", "DRV-CUDA-COMPAT", "MEM-MIG")
    assert results["DRV-CUDA-COMPAT"].status == "unknown"
    assert results["MEM-MIG"].status == "unknown"


# triton-inference-server/server#4761 (corpus 2581): a row of `kubectl get events`, its REASON, OBJECT and MESSAGE
# columns pasted alone.
GET_EVENTS_ROW = ("FailedScheduling    pod/model-2-79d7d6786c-bprm8    0/1 nodes are available: 1 Insufficient "
                  "nvidia.com/gpu, 1 node(s) had taint {protect: no_schedule}, that the pod didn't tolerate.\n")
# Modelled: `kubectl get events` rows about a pod with all five columns, and one about a node (not a pod's).
GET_EVENTS = """\
LAST SEEN   TYPE      REASON             OBJECT                 MESSAGE
12s         Normal    Scheduled          pod/vllm-0             Successfully assigned default/vllm-0 to gpu-1
12s         Warning   FailedScheduling   pod/vllm-1             0/2 nodes are available: 2 Insufficient nvidia.com/gpu.
"""
NODE_EVENT_ROW = "5m          Normal    NodeReady          node/gpu-1             Node gpu-1 status is now: NodeReady\n"


def test_get_events_rows_about_a_pod_are_a_pods() -> None:
    assert _spans(GET_EVENTS_ROW) == [(0, 1)]
    assert _spans(GET_EVENTS) == [(1, 3)]
    assert _spans(NODE_EVENT_ROW) == []
    assert _spans("Scheduled    pod/vllm-0    Successfully assigned default/vllm-0 to gpu-1\n") == []


def test_corpus_2581_event_row_and_indented_manifest() -> None:
    from corpus import capture_report, report_spans
    spans = report_spans(capture_report("2581"))
    assert ("k8s pod listing", 5, 5) in spans and ("k8s pod", 16, 43) in spans


# Modelled on corpus 2581: a manifest whose first line carries a stray space, the rest at column 0; and a manifest
# nested under a key (every line indented), which is not one to read from its indented apiVersion.
STRAY_INDENT = """\
 apiVersion: v1
kind: Pod
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:latest
"""
NESTED = """\
template:
  apiVersion: v1
  kind: Pod
  spec:
    containers:
    - name: vllm
      image: vllm/vllm-openai:latest
"""


def test_a_stray_indent_on_the_first_line_keeps_the_manifest() -> None:
    from stackaudit.importers.container_specs import k8s_pod
    assert [(f.start, f.end) for f in k8s_pod(STRAY_INDENT.splitlines())] == [(0, 6)]
    assert all(f.start != 1 or f.end != 7 for f in k8s_pod(NESTED.splitlines()))


# A volume of `kubectl describe pod` pasted alone (tensorrtllm_backend#569, corpus 2576), and modelled counter-examples:
# a ConfigMap volume (no memory or host directory to read) and a `Type:` line under no volume's name.
DSHM_VOLUME = """\
-  dshm:
    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)
    Medium:     Memory
    SizeLimit:  2000Mi
"""
CONFIG_VOLUME = """\
  config:
    Type:      ConfigMap (a volume populated by a ConfigMap)
    Name:      triton-config
"""
LONE_TYPE = "Type:       EmptyDir (a temporary directory that shares a pod's lifetime)\n"


def test_a_described_volume_alone_is_a_pods_piece() -> None:
    from stackaudit.importers.container_specs import k8s_pod
    found = list(k8s_pod(DSHM_VOLUME.splitlines()))
    assert [(f.start, f.end) for f in found] == [(0, 4)]
    assert list(k8s_pod(CONFIG_VOLUME.splitlines())) == []
    assert list(k8s_pod(LONE_TYPE.splitlines())) == []


def test_corpus_2576_dshm_volume_is_read() -> None:
    from corpus import capture_report, report_spans
    assert ("k8s pod", 8, 11) in report_spans(capture_report("2576"))
