"""DRV-FABRIC-MANAGER without NVML or nvidia-smi: a whole topology matrix or P2P rates that show no NVSwitch fabric.

The subject rule (facts/applicability.no_switch_shown) reads the matrix's own shape (TopoMatrix.no_switch_fabric),
a p2pBandwidthLatencyTest that ran at PCIe rates (P2pBandwidth.no_switch_fabric) and an engine that found its GPUs
PCIe-only (ServingLog.no_switch_fabric), never over a GPU model named that may sit on an NVSwitch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.applicability import no_switch_shown
from stackaudit.facts.gpus import GpuInventory, GpuRecord
from stackaudit.facts.peer_access import p2p_bandwidth_test
from stackaudit.facts.serving_logs import AR_PCIE_ONLY, ServingLog
from stackaudit.facts.topology import parse_topo_matrix

CHECK = "DRV-FABRIC-MANAGER"


def _matrix(rows: list[list[str]]) -> str:
    """A `nvidia-smi topo -m` of len(rows) GPUs whose cells are `rows` (X on the diagonal), modelled."""
    n = len(rows)
    head = "\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\tCPU Affinity\tNUMA Affinity\n"
    body = "".join(f"GPU{i}\t" + "\t".join(" X " if i == j else rows[i][j] for j in range(n)) + "\t0-15\t0\n"
                   for i in range(n))
    return "$ nvidia-smi topo -m\n" + head + body


def _uniform(n: int, cell: str) -> list[list[str]]:
    return [[cell] * n for _ in range(n)]


# Real: corpus 617 (NVIDIA/nccl#644), eight GPUs on PCIe only: PIX pairs, PHB within a socket, SYS across.
@pytest.mark.parametrize(("capture", "said"), [
    ("617", "joins no GPU pair by NVLink"),
    ("625", "joins no GPU pair by NVLink"),  # eight L40S, NODE within a socket, SYS across (nccl-tests#273)
    ("577", "links only disjoint pairs by NVLink"),  # eight H100 PCIe in NV12 bridge pairs (vllm#3974)
    ("774", "bonds at most 4 NVLinks per pair"),  # a Dell C4140's four GPUs, NV2 on every pair (nccl-tests#68)
    ("600", "moved at most 11.04 GB/s"),  # six RTX 4090 in p2pBandwidthLatencyTest, no model in the paste (nccl#814)
])
def test_a_source_showing_no_switch_fabric_makes_it_not_applicable(capture: str, said: str) -> None:
    result = capture_checks(capture, CHECK)[CHECK]
    assert result.status == "not-applicable", result.message
    assert said in result.message and "need no Fabric Manager" in result.message


@pytest.mark.parametrize("cell", ["NV6", "NV8", "NV12", "NV18"])
def test_a_whole_matrix_nvlinked_on_every_pair_above_nv4_may_be_a_switch_board(cell: str) -> None:
    # Modelled: an NVSwitch board shows each GPU's links to its switches on every pair (V100 NV6 to Hopper NV18).
    assert parse_topo_matrix(_matrix(_uniform(8, cell))).no_switch_fabric() == ""


def test_a_cut_matrix_says_nothing() -> None:
    # Modelled: eight GPUs with SYS between them, the last two rows cut away: their cells may be NV#.
    text = _matrix(_uniform(8, "SYS"))
    cut = "\n".join(text.splitlines()[:-2]) + "\n"
    assert parse_topo_matrix(cut).no_switch_fabric() == ""


def test_a_lone_nvlinked_pair_beside_pcie_gpus_is_not_read_as_bridges() -> None:
    # Modelled: NV12 between GPU0 and GPU1 only, SYS elsewhere: a bridged pair, or the rest of a board whose links
    # are down (TopoMatrix.paired_build); more than NV4, so no shape settles it.
    rows = _uniform(4, "SYS")
    rows[0][1] = rows[1][0] = "NV12"
    assert parse_topo_matrix(_matrix(rows)).no_switch_fabric() == ""


def test_a_named_model_that_may_sit_on_a_switch_keeps_it_open() -> None:
    # Modelled: a whole matrix without NV# beside a listing of H100 SXM modules: a board whose fabric is down.
    topo = parse_topo_matrix(_matrix(_uniform(8, "SYS")))
    sxm = GpuInventory(gpus=tuple(GpuRecord(i, "", "NVIDIA H100 80GB HBM3", None, ("x",)) for i in range(8)),
                       counts=(("x", 8),))
    pcie = GpuInventory(gpus=tuple(GpuRecord(i, "", "NVIDIA L40S", None, ("x",)) for i in range(8)),
                        counts=(("x", 8),))
    assert no_switch_shown(topo, sxm) == ""
    assert "NVIDIA L40S" in no_switch_shown(topo, pcie)
    assert no_switch_shown(topo, None)


def test_p2p_rates_of_nvlink_say_nothing() -> None:
    # Modelled: p2pBandwidthLatencyTest's P2P-enabled matrix at NVSwitch rates (A100: ~250 GB/s per direction).
    text = ("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n"
            "   D\\D     0      1\n"
            "     0 1520.10 248.30\n"
            "     1 249.10 1519.80\n")
    assert p2p_bandwidth_test(text).no_switch_fabric() == ""
    slow = text.replace("248.30", "24.83").replace("249.10", "24.91")
    assert "24.91 GB/s" in p2p_bandwidth_test(slow).no_switch_fabric()


def test_cuda_error_802_beside_a_pcie_matrix_stays_an_issue(tmp_path: Path) -> None:
    # Modelled: the matrix reads as PCIe, but CUDA's own refusal (802) is what a board with its fabric down shows:
    # the symptom's issue stands, only an unknown outcome becomes not applicable.
    text = _matrix(_uniform(8, "SYS")) + (
        "RuntimeError: CUDA error: system not yet initialized\n"
        "CUDA kernel errors might be asynchronously reported at some other API call\n")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "issue", result.message


# --- a collective at a bus bandwidth only an NVSwitch fabric carries (drv.collective_on_fabric) ------------------

_ROWS = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
         "  4294967296    1073741824     float     sum      -1    10094  425.49  {bw}      {wrong}    10141  423.54  {bw}      {wrong}\n"
         "# Out of bounds values : {oob}\n")
_RANKS = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
          "#\n# Using devices\n"
          "#  Rank  0 Group  0 Pid  14840 on node-a device  0 [0x01] NVIDIA Graphics Device\n"
          "#  Rank  1 Group  0 Pid  14841 on node-b device  0 [0x01] NVIDIA Graphics Device\n#\n")


def test_a_collective_at_nvswitch_only_busbw_shows_the_fabric_up() -> None:
    # Real: corpus 1407 (coreweave/nccl-tests#43), a GB200 NVL72 rack's all-reduce over 72 ranks at 835-847 GB/s.
    result = capture_checks("1407", CHECK)[CHECK]
    assert result.status == "ok", result.message
    assert "846.82 GB/s" in result.message and "Fabric Manager" in result.message


@pytest.mark.parametrize(("bw", "wrong", "oob", "status"), [
    ("839.16", "0", "0 OK", "ok"),  # modelled after corpus 1407
    ("380.00", "0", "0 OK", "unknown"),  # a bridge's NVLink (H200 NVL) or a switch board: not settled by the rate
    ("839.16", "5", "5 FAILED", "unknown"),  # wrong values: the run's figures prove nothing
])
def test_only_a_checked_run_above_the_bridge_rate_counts(tmp_path: Path, bw: str, wrong: str, oob: str,
                                                         status: str) -> None:
    text = _RANKS + _ROWS.format(bw=bw, wrong=wrong, oob=oob)
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == status, result.message


# --- an engine that found its GPUs PCIe-only (ServingLog.no_switch_fabric) -----------------------------------------

@pytest.mark.parametrize("capture", [
    "126",  # deepseek-ai/DeepSeek-Coder-V2#29: vLLM's workers turn custom all-reduce off on 8 PCIe-only GPUs
    "739",  # vllm-project/vllm#15340: a V0 TP 8 server log with the same warning
    "1877",  # sgl-project/sglang#29562: SGLang's TP ranks, CustomAllreduce and CustomAllReduceV2 both off
])
def test_an_engine_that_found_its_gpus_pcie_only_makes_it_not_applicable(capture: str) -> None:
    result = capture_checks(capture, CHECK)[CHECK]
    assert result.status == "not-applicable", result.message
    assert "PCIe-only" in result.message and "need no Fabric Manager" in result.message


def test_a_pcie_only_engine_beside_sxm_modules_keeps_it_open() -> None:
    # Modelled: the engine's warning beside a listing of H100 SXM modules (a board whose NVLinks are down): the model
    # a board keeps, not the engine's reading, decides.
    log = ServingLog(engine="vllm", custom_ar_disabled=((AR_PCIE_ONLY, "Custom allreduce is disabled because it's not "
                                                        "supported on more than two PCIe-only GPUs."),))
    sxm = GpuInventory(gpus=tuple(GpuRecord(i, "", "NVIDIA H100 80GB HBM3", None, ("x",)) for i in range(8)),
                       counts=(("x", 8),))
    assert no_switch_shown(None, sxm, None, log) == ""
    assert "PCIe-only" in no_switch_shown(None, None, None, log)
    # Another reason (no P2P) says nothing of NVLink.
    other = ServingLog(engine="vllm", custom_ar_disabled=(("no-p2p", "lacks GPU P2P capability"),))
    assert no_switch_shown(None, None, None, other) == ""


def test_titan_cards_are_on_no_nvswitch() -> None:
    from stackaudit.gputable import on_nvswitch
    # Real names: corpus 2041 (`GPU 0: TITAN V` in collect_env), 1699 (`TITAN Xp`), 909 (`NVIDIA TITAN RTX`).
    assert on_nvswitch("TITAN V") is False
    assert on_nvswitch("NVIDIA TITAN V") is False
    assert on_nvswitch("NVIDIA TITAN RTX") is False
    # Volta's SXM module keeps its own answer (the table's row), and a bare Volta capability stays open.
    assert on_nvswitch("Tesla V100-SXM3-32GB") is not False


def test_2041_titan_v_in_a_cut_collect_env_is_not_applicable() -> None:
    results = capture_checks("2041", CHECK)
    assert results[CHECK].status == "not-applicable"
    assert "TITAN V" in results[CHECK].message


def test_tegra_kernel_shows_no_switch() -> None:
    # Corpus 2413 (NVIDIA/dcgm-exporter#234): a Jetson's `uname -a` (5.10.120-rt70-tegra) and no GPU listing: its GPU is
    # integrated in the SoC (issue 28, h106a).
    r = capture_checks("2413", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert r.status == "not-applicable" and "5.10.120-rt70-tegra" in r.message
    assert "Tegra" in no_switch_shown(None, None, kernel_release="5.15.136-tegra")
    # Modelled: another kernel says nothing; an SXM GPU named beside a Tegra kernel leaves the check open.
    assert no_switch_shown(None, None, kernel_release="5.15.0-91-generic") == ""
    sxm = GpuInventory(gpus=(GpuRecord(0, "", "NVIDIA H100 80GB HBM3", None, ("x",)),))
    assert no_switch_shown(None, sxm, kernel_release="5.15.136-tegra") == ""
