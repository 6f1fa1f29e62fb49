"""Rule: IC-TOPOLOGY-PLACEMENT from NCCL's own path dump where no matrix is pasted (issue 28).

NCCL INFO prints each GPU's paths (`GPU/4B000 :GPU/4B000 (0/5000.0/LOC) GPU/51000 (2/160.0/NVL) NVS/0 (1/160.0/NVL)
…`, src/graph/paths.cc). NVL between every GPU pair it lists is an NVLink fabric: placement does not matter (ok over
the GPUs listed). Any other path (PHB, SYS) leaves the matrix rule's unknown: which GPUs the engine takes is not shown.

Real pastes: 384 (NVIDIA/nccl#1511, two GPUs behind NVS/0 in a k8s nccl-test pod), NVIDIA/nccl#1519 (eight H100, the
newer `GPU/0-4000` form), NVIDIA/nccl-tests#307 (eight RTX 4090, PHB and SYS: unknown). The counter-example mixing
NVL and PXB is modelled.

NCCL's topology tree (`+ NVL[80.0] - GPU/41000` under each GPU) is read the same way where no path dump is shown: each
GPU it shows whole linked to every other GPU it names, the tree naming the communicator's every rank (corpus 2262);
a cut tree that names fewer GPUs than a board of its bonds holds, with no rank count, settles nothing (corpus 2263).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

_CHECK = "IC-TOPOLOGY-PLACEMENT"

# https://github.com/NVIDIA/nccl/issues/1519 (comment by thecodingwizard), two lines of the NCCL INFO log.
NCCL_1519 = """\
nathan-h100-1:13878:13953 [0] NCCL INFO GPU/5000 :GPU/0-4000 (2/370.8/NVL) GPU/0-5000 (0/5000.0/LOC) GPU/0-b000 (2/370.8/NVL) GPU/0-c000 (2/370.8/NVL) GPU/0-84000 (2/370.8/NVL) GPU/0-85000 (2/370.8/NVL) GPU/0-8b000 (2/370.8/NVL) GPU/0-8c000 (2/370.8/NVL) NVS/0-0 (1/370.8/NVL) CPU/0-0 (2/24.0/PHB) CPU/0-1 (3/10.0/SYS) NET/0-0 (4/12.0/PHB) NET/0-1 (5/24.0/PHB) NET/0-2 (5/24.0/PHB) NET/0-3 (5/24.0/PHB) NET/0-4 (5/24.0/PHB) NET/0-5 (6/10.0/SYS) NET/0-6 (6/10.0/SYS) NET/0-7 (6/10.0/SYS)
nathan-h100-1:13878:13953 [0] NCCL INFO GPU/B000 :GPU/0-4000 (2/370.8/NVL) GPU/0-5000 (2/370.8/NVL) GPU/0-b000 (0/5000.0/LOC) GPU/0-c000 (2/370.8/NVL) GPU/0-84000 (2/370.8/NVL) GPU/0-85000 (2/370.8/NVL) GPU/0-8b000 (2/370.8/NVL) GPU/0-8c000 (2/370.8/NVL) NVS/0-0 (1/370.8/NVL) CPU/0-0 (2/24.0/PHB) CPU/0-1 (3/10.0/SYS) NET/0-0 (4/12.0/PHB) NET/0-1 (5/24.0/PHB) NET/0-2 (5/24.0/PHB) NET/0-3 (5/24.0/PHB) NET/0-4 (5/24.0/PHB) NET/0-5 (6/10.0/SYS) NET/0-6 (6/10.0/SYS) NET/0-7 (6/10.0/SYS)
"""

# https://github.com/NVIDIA/nccl-tests/issues/307 (issue body by revoer), one line of the NCCL INFO log.
NCCL_TESTS_307 = """\
node031:1936469:1936520 [7] NCCL INFO GPU/50000 :GPU/0-4e000 (4/24.0/PHB) GPU/0-4f000 (4/24.0/PHB) GPU/0-50000 (0/5000.0/LOC) GPU/0-51000 (4/24.0/PHB) GPU/0-ce000 (5/10.0/SYS) GPU/0-cf000 (5/10.0/SYS) GPU/0-d0000 (5/10.0/SYS) GPU/0-d1000 (5/10.0/SYS) CPU/0-0 (2/24.0/PHB) CPU/0-1 (3/10.0/SYS)
"""


def test_nvswitch_pod_paths_make_placement_moot() -> None:
    result = capture_checks("384", _CHECK)[_CHECK]
    assert result.status == "ok" and "NVL" in result.message
    assert result.coverage.shown == ("GPU/4b000", "GPU/51000")


def test_eight_h100_path_dump_in_the_newer_form(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, NCCL_1519, _CHECK)[_CHECK]
    assert result.status == "ok" and len(result.coverage.shown) == 8


def test_pcie_paths_without_the_engine_stay_unknown(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, NCCL_TESTS_307, _CHECK)[_CHECK].status == "unknown"


def test_modelled_one_pcie_pair_in_an_nvlink_dump_is_not_ok(tmp_path: Path) -> None:
    # Modelled: GPU/C000 reaches the others over NVL but GPU/5000 over PXB (links down, or not on the fabric).
    mixed = NCCL_1519.replace("GPU/0-c000 (2/370.8/NVL)", "GPU/0-c000 (3/24.0/PXB)", 1)
    assert paste_checks(tmp_path, mixed, _CHECK)[_CHECK].status == "unknown"


def test_tree_of_four_gpus_each_linked_to_every_other() -> None:
    result = capture_checks("2262", _CHECK)[_CHECK]
    assert result.status == "ok", result.message
    assert result.coverage is not None and result.coverage.text() == "2 of 4 GPUs shown"
    assert "a board that links every pair" in result.message


def test_cut_tree_of_a_cube_mesh_without_a_rank_count_stays_unknown() -> None:
    """deepspeedai/DeepSpeed#5022 (2263): GPU/100000 links to the four GPUs the cut tree names, but a DGX-1's hybrid
    cube mesh leaves three of its eight unlinked to it, and nothing counts the communicator's ranks."""
    assert capture_checks("2263", _CHECK)[_CHECK].status == "unknown"


def test_modelled_tree_with_a_pcie_pair_or_no_rank_count(tmp_path: Path) -> None:
    """Modelled on 2262: GPU/41000 without its NVLink to GPU/81000 meets it over PCIe and SYS; without the Init START
    line the cut tree may name only some of the communicator's GPUs."""
    from test_nccl_topo_tree import AMD_FOUR_NVLINK

    assert paste_checks(tmp_path, AMD_FOUR_NVLINK, _CHECK)[_CHECK].status == "ok"
    lines = AMD_FOUR_NVLINK.splitlines()
    pcie = "\n".join(lines[:15] + lines[16:]) + "\n"
    assert paste_checks(tmp_path, pcie, _CHECK)[_CHECK].status == "unknown"
    assert paste_checks(tmp_path, "\n".join(lines[1:]) + "\n", _CHECK)[_CHECK].status == "unknown"
