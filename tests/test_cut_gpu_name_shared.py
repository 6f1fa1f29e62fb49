"""Issue 28, GPU names nvidia-smi cuts: a name its table cut with `...` (or `…`) may be every GPU-table row whose
product name starts with what it shows (gputable.candidates), and a value is known only where all of those rows
agree (gputable.agreed): architecture, compute capability, default power. The rows' values that differ stay
unknown, and the messages name the name as cut."""

from __future__ import annotations

from corpus import body, capture_checks
from stackaudit.engine.testing import run_checks
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.gputable import (
    UnknownGpuError,
    agreed,
    architecture_of,
    candidates,
    cut_prefix,
    has_mig,
    lookup,
    nvlink_links_of,
    on_nvswitch,
    resolve_cut_name,
)
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise


def _names(name: str) -> list[str]:
    return [row.name for row in candidates(name)]


def _checks(text: str, *ids: str) -> dict[str, tuple[str, str]]:
    results = run_checks(MemoryHost(recognise(text).record), list(ids))
    return {cid: (r.status, r.message) for cid, r in results.items()}


# --- real names from three threads -------------------------------------------------------------------------


def test_gptqmodel_1491_v100_sxm2_cut_has_the_300_w_default_of_both_sxm2_rows() -> None:
    """Real: https://github.com/ModelCloud/GPTQModel/issues/1491 (corpus 653), `Tesla V100-SXM2...` capped at
    163 W: the 16 GB and 32 GB SXM2 modules both default to 300 W, so the cap is an issue whichever it is."""
    assert _names("Tesla V100-SXM2...") == ["Tesla V100 SXM2 32GB", "Tesla V100 SXM2 16GB"]
    rows = candidates("Tesla V100-SXM2...")
    assert agreed(rows, lambda row: row.power_w) == 300
    assert agreed(rows, lambda row: row.compute_capability) == "7.0"
    assert architecture_of("Tesla V100-SXM2...") == "Volta"
    # Direct NVLinks between the modules, no NVSwitch: six links on both rows.
    assert nvlink_links_of("Tesla V100-SXM2...") == 6 and on_nvswitch("Tesla V100-SXM2...") is False
    result = capture_checks("653", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert result.status == "issue"
    assert "GPU 0 capped at 163 W" in result.message and "'Tesla V100-SXM2...'" in result.message
    assert "is 300 W" in result.message


def test_vllm_27542_rtx_pro_6000_cut_is_blackwell_but_its_default_is_not_known() -> None:
    """Real: https://github.com/vllm-project/vllm/issues/27542 (corpus 655), `NVIDIA RTX PRO 6000 Blac...` at
    325 W with 97887 MiB: every RTX PRO 6000 Blackwell is Blackwell (12.0), but the Workstation's 600 W and the
    Max-Q's 300 W differ, so the default stays unknown."""
    rows = candidates("NVIDIA RTX PRO 6000 Blac...")
    assert len(rows) == 3
    assert agreed(rows, lambda row: row.architecture) == "Blackwell"
    assert agreed(rows, lambda row: row.compute_capability) == "12.0"
    assert agreed(rows, lambda row: row.power_w) is None
    assert architecture_of("NVIDIA RTX PRO 6000 Blac...") == "Blackwell"
    results = capture_checks("655", "DRV-OPEN-MODULE", "PWR-GPU-POWER-LIMIT")
    # Listed by nvidia-smi under driver 580: the proprietary module refuses Blackwell, so the open one is loaded.
    assert results["DRV-OPEN-MODULE"].status == "ok"
    assert "NVIDIA RTX PRO 6000 Blac..." in results["DRV-OPEN-MODULE"].message
    power = results["PWR-GPU-POWER-LIMIT"]
    assert power.status == "unknown"
    assert "cut by the nvidia-smi table" in power.message
    assert "(600 W)" in power.message and "(300 W)" in power.message


def test_nccl_199_v100_pcie_cut_is_no_longer_read_as_its_alias() -> None:
    """Real: https://github.com/NVIDIA/nccl/issues/199 (corpus 347), `Tesla V100-PCIE...`: the words left
    (`V100 PCIe`) are the 32 GB row's alias, but the name alone may be either PCIe board; both default to 250 W."""
    try:
        lookup("Tesla V100-PCIE...")
    except UnknownGpuError as exc:
        assert exc.suggestions == ("Tesla V100 PCIe 32GB", "Tesla V100 PCIe 16GB")
    else:
        raise AssertionError("a cut name alone names no row")
    assert agreed(candidates("Tesla V100-PCIE..."), lambda row: row.power_w) == 250
    assert has_mig("Tesla V100-PCIE...") is False and nvlink_links_of("Tesla V100-PCIE...") == 0
    # The 32502 MiB of its rows fits the 32 GB board only.
    cut = resolve_cut_name("Tesla V100-PCIE...", 32502, 250)
    assert cut is not None and cut.spec is not None and cut.spec.name == "Tesla V100 PCIe 32GB"


def test_peerread_40_a100_sxm_cut_shares_ampere_and_400_w() -> None:
    """Real: https://github.com/allenai/PeerRead/issues/40, `NVIDIA A100-SXM...`: the SXM4 80 GB and 40 GB
    modules, both Ampere 8.0 at 400 W; their memory differs, so the memory size alone names one."""
    rows = candidates("NVIDIA A100-SXM...")
    assert {row.name for row in rows} == {"A100 SXM4 80GB", "A100 SXM4 40GB"}
    assert agreed(rows, lambda row: row.power_w) == 400
    assert agreed(rows, lambda row: (row.architecture, row.compute_capability)) == ("Ampere", "8.0")
    assert agreed(rows, lambda row: row.memory_gib) is None


def test_a_typeset_ellipsis_cuts_the_name_too() -> None:
    """The one-character `…` a copy may type for the three dots is the same cut (corpus 655's name)."""
    assert cut_prefix("NVIDIA RTX PRO 6000 Blac…") == cut_prefix("NVIDIA RTX PRO 6000 Blac...") == \
        "NVIDIA RTX PRO 6000 Blac"
    assert architecture_of("NVIDIA RTX PRO 6000 Blac…") == "Blackwell"
    assert cut_prefix("NVIDIA H100 80GB HBM3") is None


# --- modelled counter-examples: the rows disagree, or the cap is the default ------------------------------------


def test_modelled_cut_whose_rows_differ_in_architecture_says_none() -> None:
    """Modelled: `NVIDIA RTX ...` may be the RTX A6000 (Ampere), the RTX 6000 Ada or an RTX PRO 6000 Blackwell:
    no architecture, so no open-module inference and no MIG claim."""
    assert {row.architecture for row in candidates("NVIDIA RTX ...")} >= {"Ampere", "Ada Lovelace", "Blackwell"}
    assert architecture_of("NVIDIA RTX ...") == ""
    modelled = body("655").replace("NVIDIA RTX PRO 6000 Blac...", "NVIDIA RTX ...               ")
    results = _checks(modelled, "DRV-OPEN-MODULE", "PWR-GPU-POWER-LIMIT")
    assert results["DRV-OPEN-MODULE"][0] == "unknown"
    assert results["PWR-GPU-POWER-LIMIT"][0] == "unknown"


def test_modelled_v100_sxm2_cut_at_300_w_is_at_the_shared_default() -> None:
    """Modelled from corpus 653: the same two GPUs at 300 W, the default both SXM2 rows share, are ok."""
    modelled = body("653").replace("148W / 163W", "148W / 300W").replace("139W / 163W", "139W / 300W")
    status, message = _checks(modelled, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert status == "ok" and "GPU 0 300 W" in message


def test_modelled_wsl2_table_says_nothing_of_the_kernel_module() -> None:
    """Modelled from corpus 655 as WSL 2 prints it (the Linux library's version over the Windows driver's): no Linux
    kernel module runs there, so the Blackwell card listed shows no flavour, and the check does not apply (as 986)."""
    modelled = body("655").replace("Driver Version: 580.105.08", "Driver Version: 581.57    ")
    assert _checks(modelled, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"][0] == "not-applicable"


def test_modelled_cut_before_its_memory_row_has_the_shared_architecture() -> None:
    """Modelled from corpus 653's GPU 2, whose rows are cut after its name: the name alone leaves both SXM2 rows,
    which share Volta, and names no row of its own."""
    gpus = parse_table(body("653"))
    last = gpus.gpus[-1]
    assert last.name == "Tesla V100-SXM2..." and last.spec is None
    assert last.implied_architecture == "Volta"
