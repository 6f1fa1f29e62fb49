"""Issue 28: `nvidia-smi topo -mp` prints the PCIe paths only, never an NV# cell, so it cannot show "no NVLink".

Rule (importers/topology.py `_MP_CMD`, facts/topology.py `TopoMatrix.pcie_paths_only`, checks/ic.py `topo_read`): a
matrix under a `topo -mp` command keeps its PCIe paths, NUMA and NIC cells; IC-TOPO-READ stays unknown about NVLink
unless the GPU models have none, no GPU counts as "without NVLink", and the custom all-reduce rule does not read
it as PCIe-only.

Real pastes: corpus 497 (DeepEP#60), and the comments of ICON's run wrappers for JUWELS Booster and Levante
(4x A100 with NVLink per node; icon-model.org, `run_wrapper` scripts by Luis Kornblueh), verbatim but for the `# `
comment marks. The `topo -m` counter-example is modelled from the JUWELS matrix.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted

JUWELS = """kornblueh1@jwlogin22% srun -N1 -n1 nvidia-smi topo -mp
\t GPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tmlx5_1\tmlx5_2\tmlx5_3\tCPU Affinity\tNUMA Affinity
GPU0\t X \tSYS\tSYS\tSYS\tPIX\tSYS\tSYS\tSYS\t18-23,66-71\t3
GPU1\t SYS\t X \tSYS\tSYS\tSYS\tPIX\tSYS\tSYS\t6-11,54-59\t1
GPU2\t SYS\tSYS\t X \tSYS\tSYS\tSYS\tPIX\tSYS\t42-47,90-95\t7
GPU3\t SYS\tSYS\tSYS\t X \tSYS\tSYS\tSYS\tPIX\t30-35,78-83\t5
mlx5_0 PIX\tSYS\tSYS\tSYS\t X \tSYS\tSYS\tSYS\t\t
mlx5_1 SYS\tPIX\tSYS\tSYS\tSYS\t X \tSYS\tSYS\t\t
mlx5_2 SYS\tSYS\tPIX\tSYS\tSYS\tSYS\t X \tSYS\t\t
mlx5_3 SYS\tSYS\tSYS\tPIX\tSYS\tSYS\tSYS\t X \t\t
"""
LEVANTE = """nvidia-smi topo -mp
\tGPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tmlx5_1\tCPU Affinity\tNUMA Affinity
GPU0\t X \tSYS\tSYS\tSYS\tSYS\tSYS\t48-63,176-191\t3
GPU1\tSYS\t X \tSYS\tSYS\tPIX\tSYS\t16-31,144-159\t1
"""
TOPO = "IC-TOPO-READ"


def test_a_topo_mp_matrix_keeps_its_paths_and_says_nothing_of_nvlink() -> None:
    for text in (JUWELS, LEVANTE):
        topo = fact(pasted(text), "gpu_topology")
        assert topo.pcie_paths_only and topo.numa_affinity["GPU1"] == "1"
        assert topo.nvlink_mesh().isolated == ()  # no GPU is shown without NVLink


def test_topo_read_is_unknown_on_pcie_paths_alone(tmp_path: Path) -> None:
    for result in (capture_checks("497", TOPO)[TOPO], paste_checks(tmp_path, JUWELS, TOPO)[TOPO]):
        assert result.status == "unknown" and "topo -mp" in result.message
        assert "no NVLink" not in result.message and "`nvidia-smi topo -m`" in str(result.hint)


def test_the_same_matrix_from_topo_m_says_pcie_only(tmp_path: Path) -> None:
    # Modelled: the JUWELS rows under `topo -m`, which would print NV# cells: all SYS there is PCIe only.
    text = JUWELS.replace("nvidia-smi topo -mp", "nvidia-smi topo -m")
    assert not fact(pasted(text), "gpu_topology").pcie_paths_only
    result = paste_checks(tmp_path, text, TOPO)[TOPO]
    assert result.status == "ok" and "PCIe only (no NVLink)" in result.message
