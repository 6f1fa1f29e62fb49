"""Rule: on bridged cards (data/gpus.toml "bridge" rows, else the GeForce/workstation/PCIe/NVL family), NVLink only
within full-mesh groups of the bridge's size, one NV# count, and PCIe elsewhere is the bridges' layout (issue 28).

Real pastes: 265 (sglang#748, ten RTX 2080 Ti, three NV2 pairs, matrix cut after three rows), 267 (nccl#1608, three
H100 NVL, the model named by `nvidia-smi nvlink -s`), 180 and 225 (bridged pairs whose model the paste does not name:
the pairs' shape decides). The counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import from_nvlink_status
from stackaudit.facts.topology import parse_nvlink_status, parse_topo_matrix
from test_corpus_statuses import _coverage


def test_geforce_pairs_in_a_cut_matrix_are_the_bridges_layout() -> None:
    result = capture_checks("265", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert result.status == "not-an-issue"
    assert "GPU0-GPU9; GPU1-GPU3; GPU2-GPU4" in result.message
    assert result.coverage.shown == ("GPU0", "GPU1", "GPU2") and result.coverage.total == 10


def test_nvlink_status_names_the_model_of_an_nvl_pair() -> None:
    result = capture_checks("267", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert result.status == "not-an-issue"
    assert "H100 NVL" in result.message and "GPU2 without a bridge" in result.message


def test_pairs_without_a_model_are_a_bridge_build_by_their_shape() -> None:
    # 180 (four RTX 3090, NV4 pairs) and 225 (four GPUs, NV12 pairs): the model is only in the threads' words, but two
    # disjoint NVLink pairs with PCIe between them are what bridges build (TopoMatrix.paired_build; test_rule_nvlink_counts).
    for prefix in ("180", "225"):
        result = capture_checks(prefix, "IC-TOPO-READ")["IC-TOPO-READ"]
        assert result.status == "not-an-issue" and "at most one NVLink peer each" in result.message


def test_nvlink_groups_read_the_matrix() -> None:
    path = next(Path(__file__).parent.glob("data/captures/180-*.txt"))
    topo = parse_topo_matrix(path.read_text())
    assert topo.nvlink_groups() == (("GPU0", "GPU2"), ("GPU1", "GPU3"))


def test_nvlink_status_lines_give_index_and_model() -> None:
    inventory = from_nvlink_status(parse_nvlink_status(
        "GPU 0: NVIDIA H100 NVL (UUID: GPU-0)\n  Link 0: 26.562 GB/s\nGPU 1: NVIDIA H100 NVL (UUID: GPU-1)\n"))
    assert inventory.models == {0: "NVIDIA H100 NVL", 1: "NVIDIA H100 NVL"}
    assert inventory.whole_count is None  # an excerpt may stop after any GPU


# Modelled: a three-card NVLink group where the bridges join two (links missing, not a layout).
_THREE = """\
root@host:/sgl-workspace# python3 -m sglang.check_env
Python: 3.10.12 (main, Mar 22 2024, 16:50:05) [GCC 11.4.0]
CUDA available: True
GPU 0,1,2,3: NVIDIA RTX A6000
CUDA Driver Version: 550.90.07
PyTorch: 2.3.1+cu121
NVIDIA Topology:
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV4     NV4     SYS     0-23    0               N/A
GPU1    NV4      X      NV4     SYS     0-23    0               N/A
GPU2    NV4     NV4      X      SYS     0-23    0               N/A
GPU3    SYS     SYS     SYS      X      24-47   1               N/A
"""


def test_modelled_group_larger_than_a_bridge_is_not_the_layout(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, _THREE, "IC-TOPO-READ")["IC-TOPO-READ"]
    assert result.status == "issue" and "GPU3 has no NVLink" in result.message


def test_modelled_one_pair_of_four_named_cards_is_the_layout(tmp_path: Path) -> None:
    pair = (_THREE.replace("GPU0     X      NV4     NV4", "GPU0     X      NV4     SYS")
            .replace("GPU1    NV4      X      NV4", "GPU1    NV4      X      SYS")
            .replace("GPU2    NV4     NV4      X", "GPU2    SYS     SYS      X"))
    result = paste_checks(tmp_path, pair, "IC-TOPO-READ")["IC-TOPO-READ"]
    assert result.status == "not-an-issue" and "GPU2, GPU3 without a bridge" in result.message


def test_nvlink_health_never_calls_unbridged_or_unshown_cards_links_down() -> None:
    # 265: before, GPU5-GPU8 (rows cut, cells to GPU0-GPU2 NODE) were "links down" on a healthy host. The table knows
    # the RTX 2080 Ti's bridge (two links): the bridged pairs of the three rows shown are whole, and the rest unseen.
    result = capture_checks("265", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "not-an-issue" and "without a bridge" not in result.message and "down" not in result.message
    assert _coverage(result) == "3 of 10 GPUs shown"
    # 09 (HGX B200, GPU2's row whole, NODE/SYS to every peer): still the links are down.
    assert capture_checks("09", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"].status == "issue"


def test_modelled_named_bridge_pair_beside_an_unbridged_card_is_the_build(tmp_path: Path) -> None:
    pair = (_THREE.replace("GPU0     X      NV4     NV4", "GPU0     X      NV4     SYS")
            .replace("GPU1    NV4      X      NV4", "GPU1    NV4      X      SYS")
            .replace("GPU2    NV4     NV4      X", "GPU2    SYS     SYS      X"))
    result = paste_checks(tmp_path, pair, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "not-an-issue" and "GPU2, GPU3 without a bridge" in result.message
    assert "NV4 is every link of the NVIDIA RTX A6000" in result.message
