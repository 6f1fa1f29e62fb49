"""Issue 28, conditional findings stay conditional: a GPU link whose speed is below its capability at full width is
the idle link's power saving (nvidia-smi: the generation "may be reduced when the GPU is not in use"), not a fault,
where nothing in the source shows load (PCIE-LINK-DOWNTRAIN); the message names the load test. A width below
capability, or a speed below it under load, stays an issue.

The club-3090 rig report prints grepped `lspci -vvv -s SLOT` lines under a heading that names their device (facts/
lspci.py LISTING_HEADINGS, from its scripts/report.sh): those lines are the GPU's, not loose lines of no device."""

from __future__ import annotations

from corpus import body, fact, load_corpus, pasted
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.facts.lspci import parse_lspci
from stackaudit.importers.pasted import load_pasted

CHECK = "PCIE-LINK-DOWNTRAIN"


def corpus_result(prefix: str, check_id: str) -> Result:
    entry = next(e for e in load_corpus() if e.path.name.startswith(prefix))
    return run_checks(load_pasted([str(entry.path)]), [check_id])[check_id]

# Modelled on scripts/report.sh of noonghunna/club-3090 (`dump_func`): a GPU function whose grep found no lines, then
# its upstream bridge's lines. The script prints the `(no matching ...)` line itself.
REPORT_NO_LINES = """\
# lspci -vvv -s 0000:41:00.0  (GPU function: LnkCap/LnkSta/ACSCap/ACSCtl)
  (no matching LnkCap/LnkSta/ACSCap/ACSCtl lines)

# lspci -vvv -s 0000:40:01.1  (upstream bridge of 0000:41:00.0: LnkCap/LnkSta/ACSCap/ACSCtl)
		LnkCap:	Port #1, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <64us
		LnkSta:	Speed 32GT/s, Width x16
"""


def test_club3090_1028_report_heading_names_the_gpu_and_its_bridge() -> None:
    # Real: https://github.com/noonghunna/club-3090/issues/1028 (corpus 443), the rig report's lspci section.
    out = parse_lspci(body("443"))
    by_bdf = out.by_bdf()
    assert set(by_bdf) == {"0000:01:00.0", "0000:00:01.1"} and not out.loose
    gpu, bridge = by_bdf["0000:01:00.0"], by_bdf["0000:00:01.1"]
    assert gpu.vendor == "0x10de" and gpu.pci_class.startswith("0x03")
    assert gpu.config is not None and gpu.config.express is not None
    assert (gpu.config.express.lnksta_speed, gpu.config.express.lnksta_width) == (2.5, 16)
    assert bridge.pci_class.startswith("0x0604") and bridge.config is not None and bridge.config.acs is not None


def test_club3090_1028_idle_gen1_at_full_width_is_not_an_issue_naming_the_load_test() -> None:
    r = corpus_result("443-", CHECK)
    assert r.status == "not-an-issue" and "0000:01:00.0" in r.subjects
    assert "Gen1 x16" in r.message and "pcie.link.gen.current" in r.message
    # The same report's bridge shows ACS redirect: one GPU shown in an excerpt is not a one-GPU host.
    assert corpus_result("443-", "FW-ACS-P2P").status == "issue"


def test_jan_183_riser_lines_without_a_heading_name_no_gpu() -> None:
    # Real: https://github.com/janhq/jan/issues/183 (corpus 122): the same Gen1-at-x16 lines with no device header
    # and no heading: whose link they are is not shown, so the check does not judge them.
    r = corpus_result("122-", CHECK)
    assert r.status == "unknown" and "no NVIDIA GPU" in r.message


def test_rtx_pro_6000_idle_at_p8_stays_not_an_issue() -> None:
    # Real: corpus 04 (`nvidia-smi -q -x`, Gen1 of Gen4 at x16, 0 % at P8): idle shown, the same verdict.
    r = corpus_result("04-", CHECK)
    assert r.status == "not-an-issue" and "Gen1 x16" in r.message and "pcie.link.gen.current" in r.message


def test_width_below_capability_is_still_an_issue() -> None:
    # Real: https://github.com/noonghunna/club-3090/issues/585 (corpus 444): x4 of x16 is no power saving.
    r = corpus_result("444-", CHECK)
    assert r.status == "issue" and "x4" in r.message


def test_cut_width_is_not_judged_from_the_generation_alone() -> None:
    # Real: https://github.com/NVIDIA/nvidia-docker/issues/1753 (corpus 207): Gen1 of Gen2, no width: not judged.
    assert corpus_result("207-", CHECK).status == "unknown"


def test_report_heading_over_no_lines_and_a_full_speed_bridge() -> None:
    # Modelled (see REPORT_NO_LINES): the GPU's registers are not shown, only its bridge's at full speed: the bridge's
    # link is not taken for the GPU's, so the check stays unknown, never ok.
    r = run_checks(pasted(REPORT_NO_LINES), [CHECK])[CHECK]
    assert r.status == "unknown"
    pcie = fact(pasted(REPORT_NO_LINES), "pcie")
    assert not pcie.gpus and [f.bdf for f in pcie.functions] == ["0000:40:01.1"]


def test_speed_below_capability_under_load_is_an_issue() -> None:
    # Modelled counter-example: the same Gen1 at x16 while nvidia-smi shows the GPU busy is a fault.
    from nvidia_support import hgx, host_for

    idle = hgx(count=1)
    assert run_checks(host_for(idle), [CHECK])[CHECK].status == "not-an-issue"  # Gen1 at 0 %: idle
    busy = hgx(count=1)
    busy[0]["utilization"] = {"gpu": 95, "memory": 40}
    r = run_checks(host_for(busy), [CHECK])[CHECK]
    assert r.status == "issue" and "busy" in r.message
