"""Issue 28: IC-NCCL-ENV judges NCCL_SHM_DISABLE by the topology shown and NCCL_GRAPH_FILE by itself.

NCCL_SHM_DISABLE=1 alone costs nothing where every GPU pair has P2P and sends pairs without it to sockets: with no
topology in the source it is unknown, never an issue. NCCL_GRAPH_FILE forces another machine's rings and trees (the
NCCL maintainers: never in production). Real lines are verbatim from the thread named beside each; others are
modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"

# https://github.com/NVIDIA/nccl/issues/1240 (amitagh's log, quoted by sjeaugey): the graph file Azure's image sets.
NCCL_1240 = "Spotllm:73025:73112 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/microsoft/ncv4/graph.xml\n"
# Modelled: the same log line for the topology file alone, which describes this VM's PCI tree (allowed).
TOPO_ONLY = "Spotllm:73025:73112 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ncv4/topo.xml\n"
# Modelled: an 8-GPU run with NCCL_SHM_DISABLE=1, then a 4-GPU `nvidia-smi topo -m` (NVLink, or two sockets).
RUN = ("docker run --gpus all --shm-size 2g -e NCCL_SHM_DISABLE=1 ghcr.io/huggingface/text-generation-inference:0.8.2 "
       "--model-id tiiuae/falcon-40b --sharded=true --num-shard=4\n")
TOPO = """\
\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity
GPU0\t X \t{c}\t{c}\t{c}\t0-31\t0
GPU1\t{c}\t X \t{c}\t{c}\t0-31\t0
GPU2\t{c}\t{c}\t X \t{c}\t32-63\t1
GPU3\t{c}\t{c}\t{c}\t X \t32-63\t1
"""


def _nccl_env(tmp_path: Path, text: str) -> tuple[str, str]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    r = run_checks(load_pasted([str(path)]), ["IC-NCCL-ENV"])["IC-NCCL-ENV"]
    return r.status, r.message


def test_a_graph_file_is_an_issue(tmp_path: Path) -> None:
    status, message = _nccl_env(tmp_path, NCCL_1240)
    assert status == "issue" and "never in production" in message
    # Corpus 256 (Azure/azhpc-images#327): the one-GPU VM whose init fails on the forced graph.
    r = run_checks(load_pasted([str(next(CAPTURES.glob("256-*.txt")))]), ["IC-NCCL-ENV"])["IC-NCCL-ENV"]
    assert r.status == "issue" and "NCCL_GRAPH_FILE" in r.message


def test_a_topology_file_alone_is_no_issue(tmp_path: Path) -> None:
    status, message = _nccl_env(tmp_path, TOPO_ONLY)
    assert status == "not-an-issue", message


def test_shm_disable_without_the_topology_is_unknown(tmp_path: Path) -> None:
    # Corpus 248 (h2oai/h2ogpt#295): 8 A100s whose form factor and topology the paste does not show.
    r = run_checks(load_pasted([str(next(CAPTURES.glob("248-*.txt")))]), ["IC-NCCL-ENV"])["IC-NCCL-ENV"]
    assert r.status == "unknown" and "topology is not in this source" in r.message
    assert _nccl_env(tmp_path, RUN)[0] == "unknown"


def test_shm_disable_is_judged_by_the_topology_shown(tmp_path: Path) -> None:
    assert _nccl_env(tmp_path, RUN + TOPO.format(c="NV12"))[0] == "not-an-issue"
    status, message = _nccl_env(tmp_path, RUN + TOPO.format(c="SYS"))
    assert status == "issue" and "sockets" in message


# --- A device name NCCL_SOCKET_IFNAME or NCCL_IB_HCA cannot match (issue 28, h94d) ---------------------------------

# https://github.com/vllm-project/vllm/issues/12983 (corpus 2118): run_cluster.sh's option lines, verbatim, tab and all;
# the shell joins the `/` after the closing quote to the value.
IFNAME_12983 = ("bash run_cluster.sh \\\n    vllm/vllm-openai:v0.7.2 \\\n    10.12.167.20 \\\n    --head \\\n"
                "    /root/deepseek/DeepSeek-R1/ \\\n\t-e \"GLOO_SOCKET_IFNAME=ens121f0\"/ \\\n"
                "    -e \"NCCL_SOCKET_IFNAME=ens121f0\"/ \\\n\t-v /root/deepseek_r1/:/root/deepseek_r1/\n")


def test_unnamable_interface_items() -> None:
    from stackaudit.facts.serving_logs import NcclSetting

    def bad(name: str, value: str) -> tuple[str, ...]:
        return NcclSetting(name, value, "the user's own words").unnamable
    assert bad("NCCL_SOCKET_IFNAME", "ens121f0/") == ("ens121f0/",)
    # Real values that can name interfaces: NCCL's exact-match `=` (marin-community/marin#6940), a list of two
    # (NVIDIA/nccl#286), an exclusion list (corpus), an HCA with its port (NCCL env doc).
    assert bad("NCCL_SOCKET_IFNAME", "=enp90s0np0") == ()
    assert bad("NCCL_SOCKET_IFNAME", "eno1,eth0") == ()
    assert bad("NCCL_SOCKET_IFNAME", "^lo,docker0") == ()
    assert bad("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1") == ()
    # Modelled: a name past IFNAMSIZ - 1 (15 characters), a space inside a quoted value, an HCA path.
    assert bad("NCCL_SOCKET_IFNAME", "eth0,enp90s0f0np0abcd") == ("enp90s0f0np0abcd",)
    assert bad("NCCL_SOCKET_IFNAME", "eth0 ") == ()  # a value's own trailing space is stripped
    assert bad("NCCL_IB_HCA", "mlx5_0 mlx5_1") == ("mlx5_0 mlx5_1",)
    assert bad("NCCL_IB_HCA", "/sys/class/infiniband/mlx5_0") == ("/sys/class/infiniband/mlx5_0",)
    assert bad("NCCL_DEBUG", "a/b") == ()


def test_interface_name_with_a_slash_is_an_issue(tmp_path: Path) -> None:
    status, message = _nccl_env(tmp_path, IFNAME_12983)
    assert status == "issue"
    assert "ens121f0/ can name no network interface" in message


def test_interface_that_can_exist_is_no_finding(tmp_path: Path) -> None:
    # Modelled counter-example: the same lines with the slash inside the quotes' reach removed.
    status, message = _nccl_env(tmp_path, IFNAME_12983.replace('"/', '"'))
    assert status != "issue", message


def test_one_gpu_pod_without_nccl_setting_is_not_applicable(tmp_path: Path) -> None:
    # https://github.com/NVIDIA/k8s-device-plugin (corpus 2124): a pod of one GTX 1050, no NCCL variable.
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu-gtx-1050\nspec:\n  containers:\n"
           "    - name: cuda-container\n      image: nvidia/cuda:9.0-devel\n      resources:\n        limits:\n"
           "          nvidia.com/gpu: 1 # requesting 2 GPUs\n        requests:\n          nvidia.com/gpu: 1\n")
    status, message = _nccl_env(tmp_path, pod)
    assert status == "not-applicable", message
    # Modelled counter-example: the same pod given two GPUs is not one rank.
    assert _nccl_env(tmp_path, pod.replace("gpu: 1", "gpu: 2"))[0] != "not-applicable"


def test_one_gpu_node_labels_without_nccl_source_is_not_applicable(tmp_path: Path) -> None:
    # Corpus 2125 (GPU feature discovery's labels of a node of one GPU): no NCCL source at all.
    capture = next(CAPTURES.glob("2125-*.txt")).read_text()
    labels = capture.split("verbatim -----\n", 1)[1]
    status, message = _nccl_env(tmp_path, labels)
    assert status == "not-applicable", message
    # Modelled counter-example: a node of two GPUs leaves the missing NCCL settings unknown.
    assert _nccl_env(tmp_path, labels.replace("gpu.count=1", "gpu.count=2"))[0] == "unknown"
