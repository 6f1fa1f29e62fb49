"""Verdicts from what is measured or shown on one GPU's links and NUMA (blind batch YH): nvbandwidth's one-GPU matrix,
a `-q` excerpt cut inside PCIe Generation, a one-GPU `topo -m` with a GPU NUMA ID, and an NCCL_ALGO list that names
every algorithm."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.nvidia_smi import parse_query_text
from stackaudit.facts.peer_access import parse_nvbandwidth
from stackaudit.facts.serving_logs import NcclSetting


def test_a_one_gpu_nvbandwidth_matrix_is_read() -> None:
    # Real: corpus 1339, whose column header is the index `0` alone.
    assert parse_nvbandwidth(body("1339")).host_figures() == {0: (25.13, "host_to_device_memcpy_sm")}


def test_a_host_copy_above_gen3_x16_proves_the_a100s_link() -> None:
    result = capture_checks("1339", "PCIE-LINK-DOWNTRAIN")["PCIE-LINK-DOWNTRAIN"]
    assert result.status == "ok", result.message
    assert "25.13 GB/s" in result.message and "Gen3 x16 or Gen4 x8" in result.message


def test_a_slow_one_gpu_copy_proves_nothing(tmp_path: Path) -> None:
    # Modelled: corpus 1339 at 12 GB/s, which a Gen3 x16 link carries.
    text = body("1339").replace("25.13", "12.00")
    result = paste_checks(tmp_path, text, "PCIE-LINK-DOWNTRAIN")["PCIE-LINK-DOWNTRAIN"]
    assert result.status == "unknown", result.message


def test_a_q_excerpt_cut_inside_pcie_generation_reads_the_generation() -> None:
    # Real: corpus 1343 starts at PCIe Generation's `Current : 1` above a shallower `Link Width`.
    gpu = parse_query_text(body("1343")).gpus[0]
    assert (gpu.pcie_gen, gpu.pcie_width, gpu.pcie_width_max) == (1, 16, 16)


def test_gen1_at_p8_with_full_width_is_idle_power_saving() -> None:
    result = capture_checks("1343", "PCIE-LINK-DOWNTRAIN")["PCIE-LINK-DOWNTRAIN"]
    assert result.status == "not-an-issue", result.message
    assert "Gen1 x16" in result.message and "idle (P8)" in result.message


def test_gen1_at_p0_is_not_called_idle(tmp_path: Path) -> None:
    # Modelled: corpus 1343 with the GPU at P0: nothing shows it idle or busy, so the load test is named.
    text = body("1343").replace("Performance State               : P8", "Performance State               : P0")
    result = paste_checks(tmp_path, text, "PCIE-LINK-DOWNTRAIN")["PCIE-LINK-DOWNTRAIN"]
    assert "idle (P" not in result.message, result.message


def test_a_one_gpu_matrix_with_its_affinity_reads_ok() -> None:
    result = capture_checks("1340", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert result.status == "ok", result.message
    assert "1 GPU in the matrix" in result.message and "NUMA node 1 of its own" in result.message


def test_a_gpu_numa_id_is_a_superchips_memory_not_sub_numa() -> None:
    result = capture_checks("1340", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "not-an-issue", result.message
    assert "GPU NUMA ID" in result.message


def test_a_matrix_without_gpu_numa_id_keeps_one_node(tmp_path: Path) -> None:
    # Modelled: corpus 1340 with the GPU NUMA ID N/A, as a PCIe host prints it: one node, not applicable.
    text = body("1340").replace("0-71\t0\t\t1", "0-71\t0\t\tN/A")
    result = paste_checks(tmp_path, text, "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "not-applicable", result.message


@pytest.mark.parametrize(("name", "value", "left"), [
    ("NCCL_ALGO", "Tree,Ring,,CollnetDirect,CollnetChain,NVLS", ("NVLSTree", "PAT")),  # corpus 1341's value
    ("NCCL_ALGO", "ring,tree,collnetdirect,collnetchain,nvls,nvlstree,pat", ()),
    ("NCCL_ALGO", "Ring", ("Tree", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")),
    ("NCCL_ALGO", "^NVLS", ("NVLS",)),
    ("NCCL_PROTO", "LL,LL128,Simple", ()),
    ("NCCL_PROTO", "^LL128", ("LL128",)),
    ("NCCL_ALGO", "Ring,Bogus", None),
    ("NCCL_P2P_LEVEL", "NVL", None),
])
def test_what_an_algorithm_list_leaves_out(name: str, value: str, left: tuple[str, ...] | None) -> None:
    assert NcclSetting(name, value, "NCCL log").left_out == left


def test_a_list_of_every_single_host_algorithm_forces_nothing_on_one_process() -> None:
    result = capture_checks("1341", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert result.status == "not-an-issue", result.message
    assert "forbids nothing" in result.message and "one process (33347)" in result.message


def test_a_list_leaving_out_ring_still_forces(tmp_path: Path) -> None:
    # Modelled: corpus 1341 with Ring left out of the list.
    text = body("1341").replace("Tree,Ring,,CollnetDirect", "Tree,CollnetDirect")
    result = paste_checks(tmp_path, text, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert result.status == "issue" and "forces NCCL's choice" in result.message, result.message


def test_a_lone_gpu_row_stays_not_applicable(tmp_path: Path) -> None:
    # Modelled: corpus 1340 without its NIC rows and columns and with no GPU NUMA ID: only the GPU itself is shown.
    text = "\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \t0-71\t0\t\tN/A\n"
    result = paste_checks(tmp_path, text, "IC-TOPO-READ")["IC-TOPO-READ"]
    assert result.status == "not-applicable", result.message
