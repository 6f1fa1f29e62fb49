"""Rule: NVLink health from the link counts a pasted listing shows, without the model named (issue 28).

An all-pairs mesh (an NVSwitch board) reading one NV# on every whole row is every link up when that count is the
most any GPU has or a count no NVSwitch board shows with a switch down (drv._ALL_UP_MESH: NV12, not NV8).
Two or more disjoint NVLink pairs with PCIe between them are a bridge build (TopoMatrix.paired_build): one bridged
card's full count on every pair is ok (bridges fail pair by pair, not alike); differing counts stay unknown.
A GPU whose `nvidia-smi nvlink -s` listing is cut is not shown, never down: the whole GPUs decide (coverage rule).

Real pastes: 388 (nccl#1435, NV12 mesh, 7 rows), 11 (vllm#4375, NV12 mesh cut in GPU5's row), 312 (nccl#933) and
360 (nccl#901), NV8 meshes that stay unknown; 363 (TensorRT-LLM#1868, four NV12 pairs), 225 (vllm#20469, two NV12
pairs), 180 (open-gpu-kernel-modules PR 18, two NV4 pairs), 362 (lmdeploy#4325, NV2 and NV6 pairs, one card alone);
389 (nccl-tests#228, A100 nvlink -s cut in GPU 2) and 62 (k8s-test-infra#371, GB200 cut in GPU 1), 124 (vllm#19607,
one NV12 pair, no model). The counter-examples are modelled and marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

_CHECK = "DRV-NVLINK-HEALTH"


def _health(prefix: str):  # type: ignore[no-untyped-def]
    return capture_checks(prefix, _CHECK)[_CHECK]


def test_nv12_mesh_without_the_model_is_every_link_up() -> None:
    result = _health("388")
    assert result.status == "ok" and "NV12" in result.message
    assert len(result.coverage.shown) == 7 and result.coverage.total == 8
    cut = _health("11")
    assert cut.status == "ok" and cut.coverage.shown == tuple(f"GPU{i}" for i in range(6))


@pytest.mark.parametrize("prefix", ["312", "360"])
def test_nv8_mesh_without_the_model_stays_unknown(prefix: str) -> None:
    # NV8 is an H800/A800 SXM's full count, and HGX A100 with two of its six switches down.
    assert _health(prefix).status == "unknown"


@pytest.mark.parametrize(("prefix", "pairs"), [("363", 4), ("225", 2), ("180", 2)])
def test_bridged_pairs_with_one_count_are_the_build(prefix: str, pairs: int) -> None:
    result = _health(prefix)
    assert result.status == "ok" and f"on all {pairs} pairs" in result.message


def test_pairs_with_different_counts_and_a_card_alone_are_not_links_down() -> None:
    # 362: NV2 and NV6 pairs and GPU10 with none; before the rule GPU10 read as "links down" (a wrong issue).
    result = _health("362")
    assert result.status == "unknown" and "GPU10 without a bridge" in result.message


def test_one_pair_without_the_model_stays_unknown() -> None:
    # 124: a lone NV12 pair is a bridged pair or two GPUs of a board; nothing to compare it with.
    assert _health("124").status == "unknown"


@pytest.mark.parametrize(("prefix", "shown", "cut"), [("389", ("GPU 0", "GPU 1"), ("GPU 2",)),
                                                      ("62", ("GPU 0",), ("GPU 1",))])
def test_a_cut_nvlink_listing_is_judged_on_its_whole_gpus(prefix: str, shown: tuple[str, ...],
                                                          cut: tuple[str, ...]) -> None:
    result = _health(prefix)
    assert result.status == "ok" and result.coverage.shown == shown and result.coverage.blind == cut
    assert "the rest of its links are not in this source" in result.message


# Modelled: eight GPUs in four bridged pairs, one pair short of a link (NV11 beside NV12).
_PAIRS = """\
\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tNV12\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU1\tNV12\t X \tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU2\tNODE\tNODE\t X \tNV12\tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU3\tNODE\tNODE\tNV12\t X \tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU4\tSYS\tSYS\tSYS\tSYS\t X \tNV11\tNODE\tNODE\t32-63\t1\t\tN/A
GPU5\tSYS\tSYS\tSYS\tSYS\tNV11\t X \tNODE\tNODE\t32-63\t1\t\tN/A
GPU6\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\t X \tNV12\t32-63\t1\t\tN/A
GPU7\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\tNV12\t X \t32-63\t1\t\tN/A
"""


def test_modelled_short_pair_is_not_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, _PAIRS, _CHECK, "IC-TOPO-READ")
    assert result[_CHECK].status == "unknown" and "NV11, NV12" in result[_CHECK].message
    assert result["IC-TOPO-READ"].status == "not-an-issue"  # still pairs: the bridges' layout


def test_modelled_four_gpu_nv12_mesh_stays_unknown(tmp_path: Path) -> None:
    # Modelled: a 4-GPU NV12 mesh may be a GB200 tray (one link per switch chip) with six chips down.
    mesh = "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" + "".join(
        f"GPU{i}\t" + "\t".join(" X " if j == i else "NV12" for j in range(4)) + "\t0-71\t0\t\tN/A\n" for i in range(4))
    assert paste_checks(tmp_path, mesh, _CHECK)[_CHECK].status == "unknown"


def test_modelled_named_hgx_parts_in_pairs_are_not_a_bridge_build(tmp_path: Path) -> None:
    # Modelled: the same pairs on GPUs named H100 SXM (an NVSwitch part) are links down, never "the build".
    named = ("root@host:/sgl-workspace# python3 -m sglang.check_env\nPython: 3.10.12 (main, Mar 22 2024, 16:50:05) "
             "[GCC 11.4.0]\nCUDA available: True\nGPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3\nCUDA Driver Version: "
             "550.90.07\nPyTorch: 2.3.1+cu121\nNVIDIA Topology:\n" + _PAIRS.replace("NV11", "NV12"))
    result = paste_checks(tmp_path, named, _CHECK, "IC-TOPO-READ")
    assert "bridged" not in result[_CHECK].message and "bridged" not in result["IC-TOPO-READ"].message
