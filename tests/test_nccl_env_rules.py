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
