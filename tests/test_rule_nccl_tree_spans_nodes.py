"""A job's shape across hosts from NCCL's tree lines, and no "no RDMA traffic" from an excerpt of a job that spans
nodes (facts/serving_logs.py ServingLog.tree_branches, NcclNodes.no_rdma; issue 28, blind LL run, capture 787).

NCCL chains the ranks of one node with a single child each (graph/connect.cc ncclTopoPreset sets `tree.down[0]`
only). A second or third child comes only from the tree between nodes (connectTrees). So a `Trees` entry with
a second child shows the communicator spans nodes, even where every channel line of the excerpt is P2P/SHM.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import NcclNodes, parse_serving_log

# https://github.com/ray-project/ray/issues/59778 (issue body, capture 787): rank 16 of 32, children 17 and 24.
RAY_59778 = ("(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO Trees [0] 17/24/-1->16->0 "
             "[1] 17/-1/-1->16->9 comm 0x5609976f9470 nRanks 32 busId 17000")
# https://github.com/NVIDIA/nccl/issues/302 (comment, capture 205): NCCL 2.5's two-tree format, rank 155's channel 3.
NCCL_302 = ("[155] host-19:5330:5499 [3] NCCL INFO Trees [0] 154/-1/-1->155->153|153->155->154/-1/-1 "
            "[3] 153/146/162->155->154|154->155->153/146/162")
# https://github.com/modelscope/ms-swift/issues/3934 (issue body, capture 788): rank 3 of a 2x8 job, channel 3.
SWIFT_3934 = ("g183:161260:166021 [3] NCCL INFO Trees [0] 4/-1/-1->3->2 [1] 4/-1/-1->3->2 [2] 4/-1/-1->3->2 "
              "[3] 4/11/-1->3->-1 [4] -1/-1/-1->3->2")

# Modelled: one 8-GPU host's rank 0, whose trees are the node's chain (one child each, no parent).
ONE_NODE_CHAIN = ("gpu-a01:9001:9001 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1 [2] 1/-1/-1->0->-1 "
                  "[3] 1/-1/-1->0->-1")
# Modelled: the same host's P2P-only channel lines, with its `nNodes 1` init line: one node, no NIC traffic.
ONE_NODE_P2P = """\
gpu-a01:9001:9001 [0] NCCL INFO comm 0x55d0c0a0 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0
gpu-a01:9001:9001 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1
gpu-a01:9001:9001 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC
gpu-a01:9002:9002 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC
"""


def _nodes(text: str) -> NcclNodes:
    value = fact(pasted(text), "nccl_nodes")
    assert isinstance(value, NcclNodes)
    return value


def test_a_tree_with_a_second_child_spans_nodes() -> None:
    """Real (ray#59778, nccl#302, ms-swift#3934): each line has an entry with a second child, which only the tree
    between nodes gives."""
    for line in (RAY_59778, NCCL_302, SWIFT_3934):
        log = parse_serving_log(line)
        assert log.tree_branches == (line,), line
        assert not log.one_node()
        several = _nodes(line).several
        assert len(several) == 1 and several[0] in line and "Trees" in several[0]


def test_a_node_chain_is_not_a_branch() -> None:
    """Modelled: one child per entry is the node's own chain, on one node or several: the tree says nothing."""
    assert not parse_serving_log(ONE_NODE_CHAIN).tree_branches
    assert not _nodes(ONE_NODE_CHAIN).several


def test_real_chains_of_one_node_are_not_branches() -> None:
    """Real (captures 463, vllm TP4 on one AWS host; 745, two ranks with `nNodes 1`): chains only."""
    for prefix in ("463", "745"):
        log = parse_serving_log(body(prefix))
        assert not log.tree_branches, prefix


def test_p2p_channels_of_a_job_that_spans_nodes_show_no_absence() -> None:
    """Real (capture 787, ray#59778): 32 ranks, rank 16's tree reaches child 24 across nodes, and the excerpt shows
    only P2P/IPC channels. The traffic between nodes is not shown: neither check concludes that no NIC carries it."""
    nodes = _nodes(body("787"))
    assert nodes.several and not nodes.no_rdma and not nodes.one
    r = capture_checks("787", "IC-NIC-GPU-AFFINITY", "IC-NVIDIA-PEERMEM")
    assert r["IC-NIC-GPU-AFFINITY"].status == "unknown"
    assert r["IC-NVIDIA-PEERMEM"].status == "unknown"
    assert "P2P/SHM" not in r["IC-NIC-GPU-AFFINITY"].message


def test_p2p_channels_of_one_node_still_show_no_rdma_traffic(tmp_path: Path) -> None:
    """Modelled counter-example: one node's P2P-only channels keep the one-host reading in both checks."""
    nodes = _nodes(ONE_NODE_P2P)
    assert not nodes.several and nodes.no_rdma == "NCCL carries every channel over P2P/SHM inside the host"
    r = paste_checks(tmp_path, ONE_NODE_P2P, "IC-NIC-GPU-AFFINITY", "IC-NVIDIA-PEERMEM")
    assert r["IC-NIC-GPU-AFFINITY"].status == "not-applicable"
    assert r["IC-NVIDIA-PEERMEM"].status == "not-applicable"


def test_p2p_channels_of_real_one_host_excerpts_still_show_no_rdma_traffic() -> None:
    """Real (captures 724, one Kubernetes pod's four ranks over SHM; 400, one H100 pod's P2P/IPC rings): nothing
    shows another node, so the channels keep NIC placement out of the question."""
    for prefix in ("724", "400"):
        assert capture_checks(prefix, "IC-NIC-GPU-AFFINITY")["IC-NIC-GPU-AFFINITY"].status == "not-applicable", prefix
