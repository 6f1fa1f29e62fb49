"""Parsers of `nvidia-smi topo -m`, `topo -p2p`, `nvlink -s` (facts/topology.py) and their importers.

Fixtures are modelled on real outputs (the matrix layout and legend as nvidia-smi prints them,
tab-separated, header underlined with ANSI codes on a terminal); the shared captures 09, 11 and 33
are parsed from the corpus (tests/data/captures).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus import fact, pasted
from scenario_builder import TOPO_LEGEND
from stackaudit.engine.collect import Collector
from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.facts.topology import (
    NVLINK_ARGV,
    P2P_ARGV,
    TOPO_ARGV,
    parse_nvlink_status,
    parse_p2p_matrix,
    parse_topo_matrix,
)
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise, strip_header

# The corpus of real pastes (each file names its public thread in its header).
CAPTURES = Path(__file__).resolve().parent / "data" / "captures"

LEGEND = TOPO_LEGEND


def make_topo(cells: list[list[str]], cpu: list[str], numa: list[str], nics: list[str] | None = None,
              nic_cells: list[list[str]] | None = None, gpu_numa: list[str] | None = None, ansi: bool = False) -> str:
    """An `nvidia-smi topo -m` output: GPU rows (GPU cells then NIC cells), NIC rows, legends."""
    n = len(cells)
    nic_names = nics or []
    cols = [f"GPU{i}" for i in range(n)] + [f"NIC{i}" for i in range(len(nic_names))]
    header = "\t" + "\t".join(cols) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    if ansi:
        header = "\x1b[4m" + header + "\x1b[0m"
    out = [header]
    for i, row in enumerate(cells):
        gpu_nic = [nic_cells[j][i] for j in range(len(nic_names))] if nic_cells else []
        out.append("\t".join([f"GPU{i}", *[f" {c} " if c == "X" else c for c in row], *gpu_nic, cpu[i],
                              numa[i], "\t" + (gpu_numa[i] if gpu_numa else "N/A")]))
    for j, _ in enumerate(nic_names):
        assert nic_cells is not None
        nic_row = nic_cells[j] + ["X" if k == j else ("PIX" if k // 2 == j // 2 else "SYS")
                                  for k in range(len(nic_names))]
        out.append("\t".join([f"NIC{j}", *[f" {c} " if c == "X" else c for c in nic_row]]))
    text = "\n".join(out) + "\n" + LEGEND
    if nic_names:
        text += "\nNIC Legend:\n\n" + "\n".join(f"  NIC{j}: {name}" for j, name in enumerate(nic_names)) + "\n"
    return text


def _mesh(n: int, link: str) -> list[list[str]]:
    return [["X" if i == j else link for j in range(n)] for i in range(n)]


def _pcie(n: int, path: callable) -> list[list[str]]:  # type: ignore[valid-type]
    return [["X" if i == j else path(i, j) for j in range(n)] for i in range(n)]


# HGX H100: 8x NV18 through NVSwitch, 4 ConnectX-7 (one PXB per GPU pair), 2 sockets.
H100_NICS = ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
H100_NIC_CELLS = [["PXB" if g // 2 == j else ("NODE" if g // 4 == j // 2 else "SYS") for g in range(8)]
                  for j in range(4)]
HGX_H100 = make_topo(_mesh(8, "NV18"), ["0-47,96-143"] * 4 + ["48-95,144-191"] * 4, ["0"] * 4 + ["1"] * 4,
                     H100_NICS, H100_NIC_CELLS, ansi=True)


def _rtxpro_path(i: int, j: int) -> str:
    if i // 4 != j // 4:
        return "SYS"
    return "PIX" if i // 2 == j // 2 else "NODE"


# 8x RTX PRO 6000 Blackwell Server on dual EPYC: pairs under one PCIe switch (PIX), switches on one
# socket (NODE), sockets (SYS).
RTXPRO_8 = make_topo(_pcie(8, _rtxpro_path), ["0-63,128-191"] * 4 + ["64-127,192-255"] * 4, ["0"] * 4 + ["1"] * 4)
# 4x L40S on two sockets.
L40S_4 = make_topo(_pcie(4, lambda i, j: "NODE" if i // 2 == j // 2 else "SYS"), ["0-31"] * 2 + ["32-63"] * 2,
                   ["0", "0", "1", "1"])
# 2x RTX 4090 on a desktop board: both on the CPU's root complex.
RTX4090_2 = make_topo(_pcie(2, lambda i, j: "PHB"), ["0-31", "0-31"], ["N/A", "N/A"])
# GB200 compute tray: 4 GPUs NV18, each its own HBM NUMA node behind the Grace CPU.
GB200_4 = make_topo(_mesh(4, "NV18"), ["0-71"] * 2 + ["72-143"] * 2, ["0", "0", "1", "1"],
                    gpu_numa=["2", "10", "18", "26"])
# HGX B200 with GPU2's NVLinks down (the pattern of shared capture 09).
B200_GPU2_DOWN = make_topo([["X" if i == j else ("NODE" if 2 in (i, j) and i // 4 == j // 4 else
                                                 "SYS" if 2 in (i, j) else "NV18") for j in range(8)]
                            for i in range(8)], ["0-55"] * 4 + ["56-111"] * 4, ["0"] * 4 + ["1"] * 4)

P2P_RTX4090 = """\
 \tGPU0\tGPU1\t
 GPU0\tX\tNS\t
 GPU1\tNS\tX\t

Legend:

  X    = Self
  OK   = Status Ok
  CNS  = Chipset not supported
  GNS  = GPU not supported
  TNS  = Topology not supported
  NS   = Not supported
  U    = Unknown
"""
P2P_OK_8 = " \t" + "\t".join(f"GPU{i}" for i in range(8)) + "\t\n" + "".join(
    f" GPU{i}\t" + "\t".join("X" if i == j else "OK" for j in range(8)) + "\t\n" for i in range(8))

NVLINK_H100 = "".join(
    f"GPU {g}: NVIDIA H100 80GB HBM3 (UUID: GPU-{g:08x}-1111-2222-3333-444455556666)\n"
    + "".join(f"\t Link {k}: " + ("<inactive>" if g == 3 and k >= 16 else "26.562 GB/s") + "\n" for k in range(18))
    for g in range(8))


def test_hgx_h100_matrix_with_nics_legend_and_ansi_header() -> None:
    m = parse_topo_matrix(HGX_H100)
    assert m.gpus == tuple(f"GPU{i}" for i in range(8)) and m.nics == ("NIC0", "NIC1", "NIC2", "NIC3")
    assert m.link("GPU0", "GPU7") == "NV18" and m.link("GPU0", "NIC0") == "PXB" and m.link("GPU5", "NIC0") == "SYS"
    assert m.nic_names["NIC3"] == "mlx5_3" and m.numa_node("GPU6") == 1 and m.cpu_affinity["GPU0"] == "0-47,96-143"
    assert m.has_nvlink and len(m.nvlink_peers("GPU3")) == 7 and not m.header_missing and not m.truncated


def test_pcie_fixtures() -> None:
    rtx = parse_topo_matrix(RTXPRO_8)
    assert not rtx.has_nvlink and rtx.link("GPU0", "GPU1") == "PIX" and rtx.link("GPU0", "GPU2") == "NODE"
    assert rtx.link("GPU3", "GPU4") == "SYS" and rtx.numa_node("GPU7") == 1
    l40s = parse_topo_matrix(L40S_4)
    assert l40s.link("GPU1", "GPU2") == "SYS"
    desk = parse_topo_matrix(RTX4090_2)
    assert desk.link("GPU0", "GPU1") == "PHB" and desk.numa_node("GPU0") is None
    gb = parse_topo_matrix(GB200_4)
    assert gb.gpu_numa_id["GPU3"] == "26" and gb.link("GPU0", "GPU3") == "NV18"


def test_matrix_without_header_infers_gpu_then_nic_columns() -> None:
    body = "\n".join(line for line in HGX_H100.splitlines()[1:] if line.startswith("GPU"))
    m = parse_topo_matrix(body)
    assert m.header_missing and m.columns[:8] == tuple(f"GPU{i}" for i in range(8)) and len(m.nics) == 4
    assert m.link("GPU1", "NIC0") == "PXB" and m.numa_node("GPU4") == 1


def test_old_driver_soc_and_mlx_columns() -> None:
    text = ("\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\n"
            "GPU0\t X \tSOC\tPHB\t0-11\nGPU1\tSOC\t X \tSOC\t12-23\nmlx5_0\tPHB\tSOC\t X \t\n")
    m = parse_topo_matrix(text)
    assert m.link("GPU0", "GPU1") == "SOC" and m.nics == ("mlx5_0",) and m.cpu_affinity["GPU1"] == "12-23"


def test_not_a_matrix_is_a_parse_error() -> None:
    for text in ("", "hello\nworld", P2P_RTX4090, "GPU 0: NVIDIA H100 (UUID: x)"):
        with pytest.raises(ParseError):
            parse_topo_matrix(text)


def test_p2p_matrix() -> None:
    m = parse_p2p_matrix(P2P_RTX4090)
    assert m.status("GPU0", "GPU1") == "NS" and not m.all_ok and m.not_ok() == [("GPU0", "GPU1", "NS"),
                                                                                ("GPU1", "GPU0", "NS")]
    assert parse_p2p_matrix(P2P_OK_8).all_ok
    with pytest.raises(ParseError):
        parse_p2p_matrix(HGX_H100)


def test_nvlink_status() -> None:
    s = parse_nvlink_status(NVLINK_H100)
    assert len(s.gpus) == 8 and s.gpus[0].active == 18 and s.gpus[3].inactive == (16, 17)
    assert s.gpus[0].uuid.startswith("GPU-") and s.gpus[0].links[0].gbps == pytest.approx(26.562)
    with pytest.raises(ParseError):
        parse_nvlink_status("Link 0: 25 GB/s")


def test_importers_record_each_under_its_argv_with_chatter() -> None:
    text = ("Here is my setup, please help!\n$ nvidia-smi topo -m\n" + HGX_H100 + "\nand p2p:\n"
            "root@gpu-node:~# nvidia-smi topo -p2p r\n" + P2P_OK_8 + "\nthen\n$ nvidia-smi nvlink -s\n" + NVLINK_H100
            + "\nthanks\n")
    result = recognise(text)
    kinds = [k for k, _, _ in result.recognised]
    assert {"nvidia-smi topo -m", "nvidia-smi topo -p2p", "nvidia-smi nvlink -s"} <= set(kinds)
    cmds = result.record.commands
    assert parse_topo_matrix(cmds[TOPO_ARGV].stdout).nic_names["NIC0"] == "mlx5_0"
    # `-p2p r` under its own argv only (no `-p2p rw` invented); gpu_p2p reads it where no rw is in the source.
    assert P2P_ARGV not in cmds and parse_p2p_matrix(cmds[("nvidia-smi", "topo", "-p2p", "r")].stdout).all_ok
    load_facts()
    assert Collector(MemoryHost(result.record)).results(["gpu_p2p"])["gpu_p2p"].all_ok
    assert parse_nvlink_status(cmds[NVLINK_ARGV].stdout).gpus[3].inactive == (16, 17)


def test_nvlink_p2p_matrix_is_not_recorded_as_read_write() -> None:
    result = recognise("$ nvidia-smi topo -p2p n\n" + P2P_RTX4090)
    assert P2P_ARGV not in result.record.commands and ("nvidia-smi", "topo", "-p2p", "n") in result.record.commands


def test_p2p_matrix_without_its_command_line_is_an_unnamed_matrix() -> None:
    result = recognise("and the p2p status:\n" + P2P_OK_8)
    assert not [a for a in result.record.commands if a[:3] == ("nvidia-smi", "topo", "-p2p")]
    # As pasted, less the trailing tabs nvidia-smi pads each line with.
    assert result.record.docs["nvsmi_p2p_matrix"].splitlines() == [ln.rstrip() for ln in P2P_OK_8.strip("\n").splitlines()]
    load_facts()
    p2p = Collector(MemoryHost(result.record)).results(["gpu_p2p"])["gpu_p2p"]
    assert p2p.all_ok and p2p.mode == ""


def test_nvidia_smi_L_list_is_not_nvlink_status() -> None:
    text = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2)\n"
    assert NVLINK_ARGV not in recognise(text).record.commands


# --- real captures ---------------------------------------------------------------------------


def _capture(name: str) -> str:
    return strip_header((CAPTURES / name).read_text(encoding="utf-8"))


def test_capture_09_b200_without_header_and_cut_row() -> None:
    result = recognise(_capture("09-8x-b200-gpu2-nvlink-missing-topo.txt"))
    m = parse_topo_matrix(result.record.commands[TOPO_ARGV].stdout)
    assert m.header_missing and m.truncated and len(m.gpus) == 8 and len(m.nics) == 12
    assert m.nvlink_peers("GPU2") == {} and len(m.nvlink_peers("GPU0")) == 6
    assert m.link("GPU2", "GPU4") == "SYS" and m.numa_node("GPU5") == 1 and m.cpu_affinity["GPU0"] == "0-55,112-167"


def test_nvlink_mesh_names_the_gpu_without_links_and_the_pairs_that_are_not_a_mesh() -> None:
    # Real pastes: an HGX B200 whose GPU2 lost its NVLinks, two RTX 5090s with no NVLink at all.
    b200 = recognise(_capture("09-8x-b200-gpu2-nvlink-missing-topo.txt")).record.commands[TOPO_ARGV].stdout
    mesh = parse_topo_matrix(b200).nvlink_mesh()
    assert mesh.isolated == ("GPU2",) and mesh.full
    assert mesh.linked == ("GPU0", "GPU1", "GPU3", "GPU4", "GPU5", "GPU6", "GPU7")
    assert mesh.peers["GPU2"] == {} and mesh.peers["GPU0"]["GPU7"] == 18
    rtx = recognise(_capture("59-2x-rtx5090-topo-m-phb-topo-p2p-gns.txt")).record.commands[TOPO_ARGV].stdout
    mesh = parse_topo_matrix(rtx).nvlink_mesh()
    assert mesh.linked == () and mesh.isolated == ("GPU0", "GPU1") and not mesh.full
    # Modelled: two bridge pairs (GPU0-GPU1, GPU2-GPU3) are all linked but not one mesh.
    cells = [["X", "NV4", "SYS", "SYS"], ["NV4", "X", "SYS", "SYS"], ["SYS", "SYS", "X", "NV4"],
             ["SYS", "SYS", "NV4", "X"]]
    mesh = parse_topo_matrix(make_topo(cells, ["0-7"] * 4, ["0"] * 4)).nvlink_mesh()
    assert mesh.linked == ("GPU0", "GPU1", "GPU2", "GPU3") and mesh.isolated == () and not mesh.full


def test_capture_11_a100_nv12_inside_collect_env() -> None:
    result = recognise(_capture("11-8x-a100-nv12-epyc-nps4-vllm-collect-env-topology.txt"))
    assert TOPO_ARGV not in result.record.commands  # the matrix is the report's, read by gpu_topology there
    load_facts()
    m = Collector(MemoryHost(result.record)).results(["gpu_topology"])["gpu_topology"]
    assert m.link("GPU0", "GPU7") == "NV12" and m.numa_affinity["GPU2"] == "1" and m.truncated
    assert len(m.nics) == 10 and m.link("GPU0", "NIC1") == "PXB"


def test_capture_33_single_gpu_pod() -> None:
    result = recognise(_capture("33-h100-k8s-pod-shm-64m-memlock-64k-shared-gpu.txt"))
    m = parse_topo_matrix(result.record.commands[TOPO_ARGV].stdout)
    assert m.gpus == ("GPU0",) and m.numa_affinity["GPU0"] == "0-1" and m.cpu_affinity["GPU0"] == "0-127"


# --- fuzzing: ParseError or a value, never another exception -----------------------------------

_TOKENS = st.sampled_from(["GPU0", "GPU1", "GPU12", "NIC0", "X", " X ", "NV18", "NV", "PIX", "SYS", "SOC", "OK", "NS",
                           "CPU Affinity", "NUMA Affinity", "N/A", "0-63", "\t", " ", "\n", "Legend:", "NIC0: mlx5_0",
                           "GPU 0: NVIDIA H100 (UUID: x)", "Link 0: <inactive>", "Link 1: 26.5 GB/s", "\x1b[4m", "-1"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=60).map("".join) | st.text(max_size=300))
def test_parsers_never_crash(text: str) -> None:
    for parse in (parse_topo_matrix, parse_p2p_matrix, parse_nvlink_status):
        with contextlib.suppress(ParseError):
            parse(text)


def test_cells_and_names_run_together_by_a_lost_tab_are_split() -> None:
    """vllm-project/vllm#13855 (corpus 242): `NIC8NIC9` in the header and `NODEPXB` in a row lost the tab between
    two columns; split again, the row keeps its NUMA affinity in its own column."""
    text = ("\tGPU0\tGPU1\tNIC0\tNIC1\tNIC2NIC3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
            "GPU0\t X \tNV18\tPXB\tNODE\tNODE\tNODE\t0-55,112-167\t0\t\tN/A\n"
            "GPU1\tNV18\t X \tNODE\tNODE\tNODEPXB\t56-111,168-223\t1\t\tN/A\n")
    topo = parse_topo_matrix(text)
    assert topo.nics == ("NIC0", "NIC1", "NIC2", "NIC3")
    assert topo.link("GPU1", "NIC3") == "PXB" and topo.numa_affinity == {"GPU0": "0", "GPU1": "1"}


# `nvidia-smi topo -m` rewritten by hand as a Markdown table: its rows are read as nvidia-smi prints them.
MARKDOWN_TOPOS = [
    # Lightning-AI/litgpt#1581 (corpus 2098): with the affinity columns and a rule row of bare dashes.
    ("| | GPU0 | GPU1 | GPU2 | GPU3 | CPU Affinity | NUMA Affinity | GPU NUMA ID |\n|---|---|---|---|---|---|---|---|\n"
     "| GPU0 | X | NODE | SYS | SYS | 0-15,32-47 | 0 | N/A |\n| GPU1 | NODE | X | SYS | SYS | 0-15,32-47 | 0 | N/A |\n"
     "| GPU2 | SYS | SYS | X | NODE | 16-31,48-63 | 1 | N/A |\n| GPU3 | SYS | SYS | NODE | X | 16-31,48-63 | 1 | N/A |\n",
     4, ("GPU0", "GPU2", "SYS"), {"GPU2": 1}),
    # A public benchmark note (llama.cpp multi-GPU fork's hardware page): `| --- |` rules, an NVLink pair.
    ("| | GPU0 | GPU1 | GPU2 |\n| --- | --- | --- | --- |\n| GPU0 | X | NV4 | PHB |\n| GPU1 | NV4 | X | PHB |\n"
     "| GPU2 | PHB | PHB | X |\n", 3, ("GPU0", "GPU1", "NV4"), {}),
    # A public training log (a 4x A40 pod's cross-socket hang): the matrix cut after its third row.
    ("| | GPU0 | GPU1 | GPU2 | GPU3 |\n|---|---|---|---|---|\n| GPU0 | X | SYS | SYS | SYS |\n"
     "| GPU1 | SYS | X | NODE | NODE |\n| GPU2 | SYS | NODE | X | PXB |\n", 4, ("GPU1", "GPU2", "NODE"), {}),
]


@pytest.mark.parametrize(("text", "gpus", "link", "numa"), MARKDOWN_TOPOS)
def test_a_topology_rewritten_as_a_markdown_table_is_read(text: str, gpus: int, link: tuple[str, str, str],
                                                           numa: dict[str, int]) -> None:
    assert [k for k, _, _ in recognise(text).recognised] == ["nvidia-smi topo -m"]
    m = fact(pasted(text), "gpu_topology")
    assert len(m.gpus) == gpus and m.link(link[0], link[1]) == link[2]
    assert all(m.numa_node(g) == n for g, n in numa.items())


def test_a_markdown_table_of_other_columns_is_no_topology() -> None:
    # Modelled: a table that names GPUs but holds no link cells.
    text = "| GPU | Model | Memory |\n|---|---|---|\n| GPU0 | RTX 4090 | 24 GB |\n| GPU1 | RTX 4090 | 24 GB |\n"
    assert "nvidia-smi topo -m" not in [k for k, _, _ in recognise(text).recognised]
