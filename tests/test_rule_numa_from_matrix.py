"""Rule: without `lscpu` / `numactl -H` / sysfs, FW-NUMA-NPS reads the GPUs' `NUMA Affinity` in `nvidia-smi topo -m`
(issue 28): GPUs on two or more nodes, each reporting its node, is a multi-node layout recorded, not a fault; a GPU
there without a node is the fault the check flags; one node, or a GPU spanning several, leaves it unknown.

Real pastes: 236 (nccl#1505, DGX A100, nodes 3 and 1 in a cut matrix), 242 (DGX, two nodes, header cut), 243
(go-gpuallocator#17, 8x RTX 4090 all SYS, two nodes), 180 (one node: unknown; 60, one node with P2P OK
everywhere, is tests/test_numa_nps_p2p_applicability.py's), 26 (a whole `numactl -H`: the
existing ok). The counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks


def test_gpus_on_several_nodes_each_with_its_node_is_a_layout() -> None:
    for prefix, nodes in (("236", "1, 3"), ("242", "0, 1"), ("243", "0, 1")):
        result = capture_checks(prefix, "FW-NUMA-NPS")["FW-NUMA-NPS"]
        assert result.status == "not-an-issue", (prefix, result.message)
        assert f"NUMA nodes {nodes}" in result.message and "lscpu" in result.message


def test_cut_rows_are_the_coverage() -> None:
    result = capture_checks("236", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.coverage.shown == ("GPU0", "GPU1", "GPU2", "GPU3") and result.coverage.total == 8


def test_one_node_in_the_matrix_leaves_the_host_unknown() -> None:
    result = capture_checks("180", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "unknown" and "`numactl -H`" in result.message


def test_a_whole_numactl_still_decides() -> None:
    result = capture_checks("26", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "ok" and "2 NUMA node" in result.message


_MATRIX = """\
$ nvidia-smi topo -m
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NODE    SYS     SYS     0-31    0               N/A
GPU1    NODE     X      SYS     SYS     0-31    0               N/A
GPU2    SYS     SYS      X      NODE    32-63   1               N/A
GPU3    SYS     SYS     NODE     X      32-63   1               N/A
"""


def test_modelled_gpu_without_a_node_on_a_multi_node_host_is_the_fault(tmp_path: Path) -> None:
    text = _MATRIX.replace("32-63   1               N/A\nGPU3", "32-63   N/A             N/A\nGPU3")
    result = paste_checks(tmp_path, text, "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "issue" and result.subjects == ("GPU2",)


def test_modelled_gpus_spanning_nodes_leave_it_unknown(tmp_path: Path) -> None:
    text = _MATRIX.replace("0               N/A", "0-1             N/A")
    result = paste_checks(tmp_path, text, "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "unknown"
