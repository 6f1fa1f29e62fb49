"""PCIE checks and FW-ACS-P2P / FW-REBAR-BAR1 / FW-ABOVE4G-MMIO / FW-AER-ERRORS: issue, pass and trap
cases on fake sysfs trees (config space built byte by byte), pasted lspci text and the real captures."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from corpus import capture_checks, paste_checks
from pcie_support import Dev, bridge_config, gpu_config, sysfs
from stackaudit.checks.pcie import link_downtrain
from stackaudit.engine.testing import run_checks
from stackaudit.facts.gpu_links import GpuLink, GpuLinks
from stackaudit.facts.pci import PciDevice
from stackaudit.facts.pcie import LSPCI_ARGV, PcieFacts, PcieFunction
from stackaudit.facts.pcie_errors import parse_ghes_records
from stackaudit.facts.registry import merge_by
from stackaudit.host.base import CommandResult
from stackaudit.host.memory import HostRecord, MemoryHost, fake_host
from stackaudit.importers.recognition import recognise, strip_header
from test_pcie_lspci import NON_ROOT, OLD_FORMAT, SWITCH_HOST

# The corpus of real pastes (each file names its public thread in its header).
CAPTURES = Path(__file__).resolve().parent / "data" / "captures"
ROOT, USP, DSP0, DSP1, GPU0, GPU1 = ("0000:40:01.1", "0000:41:00.0", "0000:42:00.0", "0000:42:01.0", "0000:43:00.0",
                                     "0000:44:00.0")
PCIE = ["PCIE-LINK-DOWNTRAIN", "PCIE-MRRS", "PCIE-MPS", "PCIE-RELAXED-ORDERING", "PCIE-10BIT-TAGS", "PCIE-ASPM"]
FW = ["FW-ACS-P2P", "FW-REBAR-BAR1", "FW-ABOVE4G-MMIO", "FW-AER-ERRORS"]
BAR1_128G = ("0x0000028000000000 0x0000029fffffffff 0x000000000014220c\n")
RESOURCE = ("0x00000000e0000000 0x00000000e3ffffff 0x0000000000040200\n" + BAR1_128G
            + "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
            "0x000002a000000000 0x000002a001ffffff 0x000000000014220c\n")
AER_ZERO = "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n"
AER_FATAL_ZERO = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nTOTAL_ERR_FATAL 0\n"


def _devs(acs_ctl: int = 0, gpu_kw: Mapping[str, object] | None = None, speed: str = "32.0 GT/s PCIe", width: str = "16",
          truncate: int | None = None, gpu_extra: dict[str, str] | None = None, n_gpus: int = 2) -> list[Dev]:
    gkw = {"devcap_mps": 256, "mps": 256, "cap_speed": 32.0, "speed": 32.0, **(gpu_kw or {})}

    def cut(data: bytes) -> bytes:
        return data[:truncate] if truncate else data

    extra = {"resource": RESOURCE, "aer_dev_correctable": AER_ZERO, "aer_dev_fatal": AER_FATAL_ZERO,
             "aer_dev_nonfatal": "TOTAL_ERR_NONFATAL 0\n", **(gpu_extra or {})}
    devs = [
        Dev(ROOT, [], "0x1022", "0x14ab", "0x060400", cut(bridge_config("root-port", acs_ctl=0x1D, devcap_mps=512,
                                                                         cap_speed=32.0, speed=32.0))),
        Dev(USP, [ROOT], "0x1000", "0xc030", "0x060400", cut(bridge_config("upstream-port", acs_ctl=None,
                                                                          devcap_mps=2048, cap_speed=32.0, speed=32.0))),
    ]
    for n in range(n_gpus):
        dsp, gpu = (DSP0, GPU0) if n == 0 else (DSP1, GPU1)
        devs.append(Dev(dsp, [ROOT, USP], "0x1000", "0xc030", "0x060400",
                        cut(bridge_config("downstream-port", acs_ctl=acs_ctl, devcap_mps=2048, cap_speed=32.0,
                                          speed=32.0))))
        devs.append(Dev(gpu, [ROOT, USP, dsp], config=cut(gpu_config(**gkw)), speed=speed, width=width,
                        extra=dict(extra)))
    return devs


def _host(devs: list[Dev], cmdline: str = "BOOT_IMAGE=/vmlinuz ro iommu=pt", dmesg: str = "", uid: int = 0,
          lspci: str | None = None) -> MemoryHost:
    files, links = sysfs(devs)
    files["/proc/cmdline"] = cmdline + "\n"
    commands: dict[str | tuple[str, ...], str | CommandResult] = {"dmesg": dmesg,
                                                                  ("systemd-detect-virt", "--vm"): "none\n"}
    if lspci is not None:
        commands[LSPCI_ARGV] = lspci
    return fake_host(files=files, links=links, commands=commands, uid=uid)


def _pasted(text: str) -> MemoryHost:
    result = recognise(text)
    return MemoryHost(result.record)


# -- FW-ACS-P2P --------------------------------------------------------------------------------

def test_acs_redirect_on_switch_ports_between_gpus_is_an_issue_with_exact_fix() -> None:
    r = run_checks(_host(_devs(acs_ctl=0x1D)), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert r.status == "issue" and r.severity == "high", r.message
    # Only the downstream ports below the common switch sit between the GPUs; the root port above it does not.
    assert set(r.subjects) == {DSP0, DSP1}
    assert r.fix is not None and f"setpci -s {DSP0} ECAP_ACS+0x6.w=0000" in r.fix.runtime
    assert f'\\"pci=disable_acs_redir={DSP0};{DSP1}\\"' in r.fix.persistent
    assert any("ReqRedir+ CmpltRedir+" in e for e in r.evidence)


def test_acs_cleared_is_ok_and_noacs_is_named_ineffective() -> None:
    ok = run_checks(_host(_devs(acs_ctl=0)), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert ok.status == "ok", ok.message
    trap = run_checks(_host(_devs(acs_ctl=0x1D), cmdline="ro pci=noacs pcie_acs_override=downstream,multifunction",
                            dmesg="[    0.000000] PCI: Unknown option `noacs'\n"), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert trap.status == "issue" and "not a mainline kernel parameter" in trap.message
    assert "Unknown option" in trap.message and "does not clear ACS" in trap.message.replace("not clear ACS", "does not clear ACS")


def test_acs_without_root_is_unknown_never_ok() -> None:
    r = run_checks(_host(_devs(acs_ctl=0x1D, truncate=64), uid=1000), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert r.status == "unknown" and "root" in (r.hint + r.message)


def test_acs_on_nvswitch_host_is_medium_and_one_gpu_not_applicable() -> None:
    devs = [*_devs(acs_ctl=29), Dev("0000:05:00.0", [], pci_class="0x068000", device="0x22a3")]
    r = run_checks(_host(devs), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert r.status == "issue" and r.severity == "medium" and "NVLink" in r.message
    one = run_checks(_host(_devs(acs_ctl=0x1D, n_gpus=1)), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert one.status == "not-applicable"


def test_acs_from_pasted_lspci_with_bus_topology() -> None:
    r = run_checks(_pasted(SWITCH_HOST), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert r.status == "issue" and set(r.subjects) == {DSP0, DSP1}


def test_acs_capture_07_grepped_lines_counts_ports() -> None:
    path = CAPTURES / "07-nccl-illegal-memory-access-acsctl-redirect-enabled.txt"
    res = run_checks(_pasted(strip_header(path.read_text())), PCIE + FW)
    r = res["FW-ACS-P2P"]
    assert r.status == "issue" and "4 of 16" in r.message and "ECAP_ACS" in (r.fix.runtime if r.fix else "")
    # A grepped paste says nothing about the GPUs: unknown, not "no GPU here".
    assert all(res[c].status == "unknown" for c in PCIE), {c: res[c].status for c in PCIE}


# -- PCIE-LINK-DOWNTRAIN -----------------------------------------------------------------------

def test_link_width_low_is_an_issue_and_full_link_ok() -> None:
    bad = run_checks(_host(_devs(width="8")), ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"]
    assert bad.status == "issue" and "x8" in bad.message and set(bad.subjects) == {GPU0, GPU1}
    good = run_checks(_host(_devs()), ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"]
    assert good.status == "ok" and "Gen5 x16" in good.message


def test_link_speed_low_with_full_width_and_no_load_shown_is_not_an_issue() -> None:
    # Modelled: sysfs shows Gen1 of Gen5 at x16 and nothing in the source shows load: the idle link's power saving;
    # the message names the load test that would show a fault.
    r = run_checks(_host(_devs(speed="2.5 GT/s PCIe")), ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"]
    assert r.status == "not-an-issue" and "idle link" in r.message
    assert "pcie.link.gen.current" in r.message and "nvidia-smi -q" in r.message


def test_link_gone_is_an_issue() -> None:
    r = run_checks(_host(_devs(width="255")), ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"]
    assert r.status == "issue" and "fallen off the bus" in r.message


def _facts(speed: float, width: int = 16) -> PcieFacts:
    gpu = PciDevice(GPU0, "0x10de", "0x2330", "0x030200", role="gpu", current_link_speed=speed, max_link_speed=32.0,
                    current_link_width=width, max_link_width=16)
    return PcieFacts((PcieFunction(GPU0, "gpu", gpu),))


def _links(speed: float, utilization: int, pstate: str) -> GpuLinks:
    """The PCI side's link (config space) merged with the NVIDIA side's load, as the gpu_links fact does."""
    pci = GpuLinks((GpuLink(GPU0, cur_speed=speed, cur_width=16, max_speed=32.0, max_width=16),))
    nv = GpuLinks((GpuLink(GPU0, name="NVIDIA H100 80GB HBM3", utilization=utilization, pstate=pstate),))
    merged: GpuLinks = merge_by("bdf", "links")(GpuLinks, [pci, nv])
    return merged


def test_link_speed_low_busy_is_an_issue_idle_known_is_not() -> None:
    assert link_downtrain(_links(8.0, 97, "P0"), _facts(8.0)).status == "issue"
    assert link_downtrain(_links(2.5, 0, "P8"), _facts(2.5)).status == "not-an-issue"


def test_link_expectation_comes_from_the_gpu_table() -> None:
    # The pasted RTX PRO 6000 sits at Gen1 (downgraded) at full width, no load shown: the idle link's power saving.
    r = run_checks(_pasted(SWITCH_HOST), ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"]
    assert r.status == "not-an-issue" and GPU0 in r.subjects and "gpus.toml" in r.message


# -- MRRS / MPS / RO / 10-bit / ASPM -------------------------------------------------------------

def test_mrrs_low_is_low_unproven_issue_with_setpci() -> None:
    r = run_checks(_host(_devs(gpu_kw={"mrrs": 128})), ["PCIE-MRRS"])["PCIE-MRRS"]
    assert r.status == "issue" and r.severity == "low" and r.confidence == "unproven" and r.priority == "P2"
    assert r.fix is not None and f"setpci -s {GPU0} CAP_EXP+0x08.w=5000:7000" in r.fix.runtime
    # 256-2048 B: "raise it to 4096" is a myth correction (key negative), with the masked setpci form.
    fine = run_checks(_host(_devs()), ["PCIE-MRRS"])["PCIE-MRRS"]
    assert fine.status == "not-an-issue" and "unproven" in fine.message
    assert "5000:7000" in fine.message and "5937" in fine.message and "whole Device Control" in fine.message
    top = run_checks(_host(_devs(gpu_kw={"mrrs": 4096})), ["PCIE-MRRS"])["PCIE-MRRS"]
    assert top.status == "ok"


def test_mps_below_path_is_issue_and_256_device_limit_is_not_an_issue() -> None:
    bad = run_checks(_host(_devs(gpu_kw={"devcap_mps": 512, "mps": 128})), ["PCIE-MPS"])["PCIE-MPS"]
    assert bad.status == "issue" and "path supports 512" in bad.message
    trap = run_checks(_host(_devs()), ["PCIE-MPS"])["PCIE-MPS"]
    assert trap.status == "not-an-issue" and "own limit" in trap.message


def test_capture_05_mps_is_device_limit_and_mrrs_info() -> None:
    path = CAPTURES / "05-a100-sxm4-lspci-maxreadreq-512.txt"
    res = run_checks(_pasted(strip_header(path.read_text())), PCIE + FW)
    # The GPU at its own MaxPayload limit: a path's MPS is at most the GPU's DevCap, so whatever its upstream ports
    # (not in the paste) support, the GPU is not below them; the myth "256 is too small" is a key negative (issue 28).
    assert res["PCIE-MPS"].status == "not-an-issue" and "own limit" in res["PCIE-MPS"].message
    assert res["PCIE-MRRS"].status == "not-an-issue" and "512" in res["PCIE-MRRS"].message
    assert res["PCIE-RELAXED-ORDERING"].status == "ok"
    # An A100 has a large fixed BAR1: outside the check's "Applies when".
    assert res["FW-REBAR-BAR1"].status == "not-applicable" and "64 GiB" in res["FW-REBAR-BAR1"].message
    assert res["PCIE-LINK-DOWNTRAIN"].status == "unknown"  # the paste stops before LnkSta
    # One GPU in a pasted listing is one GPU shown, not a one-GPU host: no bridge in the paste, so unknown.
    assert res["FW-ACS-P2P"].status == "unknown"
    assert all(r.status != "error" for r in res.values())


def test_info_checks_report_observations() -> None:
    res = run_checks(_host(_devs(gpu_kw={"aspm_ctl": 2})), ["PCIE-RELAXED-ORDERING", "PCIE-10BIT-TAGS", "PCIE-ASPM"])
    assert res["PCIE-RELAXED-ORDERING"].status == "ok" and "RlxdOrd+" in res["PCIE-RELAXED-ORDERING"].message
    tags = res["PCIE-10BIT-TAGS"]
    assert tags.status == "ok" and "possible read-throughput limit" in tags.message
    assert res["PCIE-ASPM"].status == "ok" and "ASPM is enabled" in res["PCIE-ASPM"].message
    gen3 = run_checks(_pasted(OLD_FORMAT), ["PCIE-10BIT-TAGS"])["PCIE-10BIT-TAGS"]
    assert gen3.status in ("not-applicable", "unknown")


def test_non_root_registers_are_unknown_never_ok() -> None:
    res = run_checks(_host(_devs(truncate=64), uid=1000), PCIE)
    for cid in ("PCIE-MRRS", "PCIE-MPS", "PCIE-RELAXED-ORDERING", "PCIE-10BIT-TAGS", "PCIE-ASPM"):
        assert res[cid].status == "unknown", (cid, res[cid].message)
        assert "root" in res[cid].hint
    # sysfs link attributes are world-readable: the link check still answers.
    assert res["PCIE-LINK-DOWNTRAIN"].status == "ok"
    pasted = run_checks(_pasted(NON_ROOT), PCIE)
    assert pasted["PCIE-MRRS"].status == "unknown" and pasted["PCIE-MPS"].status == "unknown"


def test_config_space_and_lspci_agree_on_the_same_host() -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all

    load_all()
    host = _host(_devs(acs_ctl=0x1D), lspci=SWITCH_HOST)
    facts = Collector(host).results(["pcie"])["pcie"]
    assert isinstance(facts, PcieFacts) and facts.root
    assert facts.sources[0].startswith("/sys") and any("lspci" in s for s in facts.sources)
    assert not [c for c in facts.conflicts if c[1] == "ACSCtl"]


# -- FW-REBAR-BAR1 / FW-ABOVE4G-MMIO / FW-AER-ERRORS ---------------------------------------------

_SMALL_BAR = ("0x00000000e0000000 0x00000000e3ffffff 0x0000000000040200\n"
              "0x00000000c0000000 0x00000000cfffffff 0x000000000014220c\n")


def test_rebar_small_bar1_on_capable_gpus_is_an_issue_single_gpu_trap() -> None:
    kw: dict[str, object] = {"rebar": [(1, 8, list(range(6, 16)))]}
    r = run_checks(_host(_devs(gpu_kw=kw, gpu_extra={"resource": _SMALL_BAR})), ["FW-REBAR-BAR1"])["FW-REBAR-BAR1"]
    assert r.status == "issue" and "256 MiB" in r.message and "32 GiB" in r.message
    one = run_checks(_host(_devs(gpu_kw=kw, gpu_extra={"resource": _SMALL_BAR}, n_gpus=1)), ["FW-REBAR-BAR1"])
    assert one["FW-REBAR-BAR1"].status == "not-an-issue"
    big = run_checks(_host(_devs()), ["FW-REBAR-BAR1"])["FW-REBAR-BAR1"]
    assert big.status == "ok" and "128 GiB" in big.message


def test_above4g_unassigned_bar_or_kernel_message_is_an_issue() -> None:
    r = run_checks(_pasted(OLD_FORMAT), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"]
    assert r.status == "issue" and "BAR 1)" in r.message
    dmesg = "[    1.234] pci 0000:43:00.0: BAR 1: no space for [mem size 0x2000000000 64bit pref]\n"
    r2 = run_checks(_host(_devs(), dmesg=dmesg), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"]
    assert r2.status == "issue" and GPU0 in r2.subjects and r2.evidence
    assert run_checks(_host(_devs()), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"].status == "ok"


def test_above4g_from_the_kernel_log_alone_reads_the_gpus_it_enumerates_2277() -> None:
    """Without the PCI tree, the kernel log's BAR lines count for a GPU the log's own enumeration line places (corpus
    2277: an RTX 3090 on an RK3588 whose 64-bit BARs 1 and 3 got no space); a line of another function does not."""
    from corpus import capture_result

    r = capture_result("2277", "FW-ABOVE4G-MMIO")
    assert r.status == "issue" and r.subjects == ("0000:01:00.0",) and "can't assign; no space" in r.evidence[0]
    gpu = "[    2.8] pci 0000:01:00.0: [10de:2204] type 00 class 0x030000 PCIe Legacy Endpoint\n"
    nic = "[    2.9] pci 0000:02:00.0: BAR 0 [mem size 0x00800000 64bit pref]: can't assign; no space\n"
    r = run_checks(_pasted(gpu + nic), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"]
    assert r.status == "unknown", r.message
    bar = nic.replace("0000:02:00.0", "0000:01:00.0")
    assert run_checks(_pasted(gpu + bar), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"].status == "issue"
    assert run_checks(_pasted(bar), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"].status == "unknown"


def test_aer_fatal_is_high_correctable_only_ok_and_xid79() -> None:
    fatal = AER_FATAL_ZERO.replace("CmpltTO 0", "CmpltTO 2").replace("TOTAL_ERR_FATAL 0", "TOTAL_ERR_FATAL 2")
    r = run_checks(_host(_devs(gpu_extra={"aer_dev_fatal": fatal})), ["FW-AER-ERRORS"])["FW-AER-ERRORS"]
    assert r.status == "issue" and r.severity == "high" and GPU0 in r.subjects
    # Long names (older kernels) parse as well as the short ones of 6.12.
    corr = "Receiver Error 3\nBad TLP 1\nBad DLLP 0\nRELAY_NUM Rollover 0\nTOTAL_ERR_COR 4\n"
    c = run_checks(_host(_devs(gpu_extra={"aer_dev_correctable": corr})), ["FW-AER-ERRORS"])["FW-AER-ERRORS"]
    assert c.status == "ok" and "correctable errors since boot" in c.message and "4" in c.message
    # One log line, one finding: the Xid 79 line is DRV-XID's; with no AER line beside it, AER has nothing.
    xid = "[ 9001.1] NVRM: Xid (PCI:0000:43:00): 79, pid=1234, GPU has fallen off the bus.\n"
    both = run_checks(_host(_devs(), dmesg=xid), ["FW-AER-ERRORS", "DRV-XID"])
    x = both["FW-AER-ERRORS"]
    assert x.status != "issue" and not x.evidence and "DRV-XID" in x.message
    assert both["DRV-XID"].status == "issue" and both["DRV-XID"].gpu_lost


def test_pasted_sources_never_error_and_empty_source_is_unknown() -> None:
    res = run_checks(_pasted(SWITCH_HOST), PCIE + FW)
    assert all(r.status != "error" for r in res.values()), {k: r.message for k, r in res.items()}
    empty = run_checks(MemoryHost(HostRecord(meta={"source": "pasted"})), PCIE + FW)
    assert all(r.status == "unknown" for r in empty.values()), {k: r.status for k, r in empty.items()}


# -- review additions --------------------------------------------------------------------------


def _one_gpu_blind() -> list[Dev]:
    """Both GPUs present; the second one's config space stops at the 64-byte header."""
    devs = _devs(gpu_kw={"aspm_ctl": 2})
    last = devs[-1]
    assert last.bdf == GPU1 and last.config is not None
    last.config = last.config[:64]
    return devs


def test_info_checks_with_one_gpu_unreadable_are_judged_on_the_readable_one_with_coverage() -> None:
    """The coverage rule (issue 28): the readable GPU decides, the blind one is counted (1 of 2 shown) and named
    in what to run next; never ok without a coverage that says so."""
    res = run_checks(_host(_one_gpu_blind()), ["PCIE-10BIT-TAGS", "PCIE-ASPM", "PCIE-MRRS", "PCIE-RELAXED-ORDERING"])
    for cid, r in res.items():
        assert r.status in ("ok", "not-an-issue"), (cid, r.status, r.message)
        assert r.coverage is not None and r.coverage.text() == "1 of 2 GPUs shown", (cid, r.coverage)
        assert r.coverage.shown == (GPU0,) and GPU1 in r.hint and "sudo lspci -vvv" in r.hint, (cid, r.hint)


def test_mps_128_set_by_pcie_bus_peer2peer_is_not_an_issue_and_fix_never_suggests_it() -> None:
    """pcie_bus_peer2peer sets MPS 128 B on every device on purpose (kernel-parameters; KB PCIE-MPS correction:
    the safe choice for P2P): not an issue; as a fix for a low MPS it would be wrong (it does not raise MPS)."""
    devs = _devs(gpu_kw={"devcap_mps": 512, "mps": 128})
    trap = run_checks(_host(devs, cmdline="ro iommu=pt pci=pcie_bus_peer2peer"), ["PCIE-MPS"])["PCIE-MPS"]
    assert trap.status == "not-an-issue" and "pcie_bus_peer2peer" in trap.message
    bad = run_checks(_host(devs), ["PCIE-MPS"])["PCIE-MPS"]
    assert bad.status == "issue" and bad.fix is not None
    assert "pcie_bus_safe" in bad.fix.persistent and "does not raise MPS" in bad.fix.persistent


def test_aer_other_xid_on_bus_79_is_not_xid_79() -> None:
    """`NVRM: Xid (PCI:0000:79:00): 13, pid=79`: the Xid number follows the parenthesis."""
    dmesg = "[ 100.0] NVRM: Xid (PCI:0000:79:00): 13, pid=79, name=python3, Graphics Exception\n"
    r = run_checks(_host(_devs(), dmesg=dmesg), ["FW-AER-ERRORS"])["FW-AER-ERRORS"]
    assert r.status == "ok", r.message
    old = "[ 100.0] NVRM: Xid (0000:43:00): 79, GPU has fallen off the bus.\n"
    assert run_checks(_host(_devs(), dmesg=old), ["DRV-XID"])["DRV-XID"].gpu_lost


def test_rebar_single_gpu_next_to_an_ethernet_nic_is_not_an_issue_rdma_nic_is() -> None:
    """KB FW-REBAR-BAR1 applies to P2P or GPUDirect RDMA: an ordinary Ethernet port does no GPUDirect RDMA."""
    kw: dict[str, object] = {"rebar": [(1, 8, list(range(6, 16)))]}
    nic = Dev("0000:01:00.0", [ROOT], "0x8086", "0x1533", "0x020000", speed="2.5 GT/s PCIe", width="1")
    devs = [*_devs(gpu_kw=kw, gpu_extra={"resource": _SMALL_BAR}, n_gpus=1), nic]
    r = run_checks(_host(devs), ["FW-REBAR-BAR1"])["FW-REBAR-BAR1"]
    assert r.status == "not-an-issue", r.message
    cx7 = Dev("0000:01:00.0", [ROOT], "0x15b3", "0x1021", "0x020700")
    files, links = sysfs([*_devs(gpu_kw=kw, gpu_extra={"resource": _SMALL_BAR}, n_gpus=1), cx7])
    links["/sys/class/infiniband/mlx5_0/device"] = "../../../0000:01:00.0"
    host = fake_host(files=files, links=links, commands={"dmesg": "", ("systemd-detect-virt", "--vm"): "none\n"})
    rdma = run_checks(host, ["FW-REBAR-BAR1"])["FW-REBAR-BAR1"]
    assert rdma.status == "issue" and GPU0 in rdma.subjects


def test_link_state_missing_for_one_gpu_is_ok_on_the_other_with_its_coverage() -> None:
    files, links = sysfs(_one_gpu_blind())
    files = {k: v for k, v in files.items() if not (GPU1 in k and "current_link" in k)}
    host = fake_host(files=files, links=links, commands={"dmesg": "", ("systemd-detect-virt", "--vm"): "none\n"})
    r = run_checks(host, ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"]
    assert r.status == "ok" and r.subjects == (GPU0,) and r.coverage is not None
    assert r.coverage.text() == "1 of 2 GPUs shown" and GPU1 in r.hint


def test_config_space_wins_a_register_disagreement_and_keeps_it_as_a_conflict() -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all

    load_all()
    # Config space shows ACS redirect off everywhere; the lspci listing of the switch host shows it on.
    facts = Collector(_host(_devs(acs_ctl=0), lspci=SWITCH_HOST)).results(["pcie"])["pcie"]
    assert isinstance(facts, PcieFacts)
    acs = [c for c in facts.conflicts if c[1] == "ACSCtl"]
    assert acs and all(kept == "0x0000" and other != kept for _, _, kept, other in acs)
    by_bdf = facts.by_bdf()
    assert all(by_bdf[bdf].lspci is not None for bdf, *_ in acs)


def test_without_root_the_registers_come_from_lspci() -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all

    load_all()
    facts = Collector(_host(_devs(acs_ctl=0x1D, truncate=64), lspci=SWITCH_HOST)).results(["pcie"])["pcie"]
    assert isinstance(facts, PcieFacts) and facts.root is False and not facts.conflicts
    gpus = facts.gpus
    assert gpus and all(g.registers_readable and g.config_note == "" and g.sysfs is not None for g in gpus)
    alone = Collector(_host(_devs(acs_ctl=0x1D, truncate=64))).results(["pcie"])["pcie"]
    assert isinstance(alone, PcieFacts)
    assert all(not g.registers_readable and "root" in g.config_note for g in alone.gpus)


# -- FW-AER-ERRORS from firmware-first (GHES) error records ---------------------------------------

# ROCm/legacy-rocm-build#2927 (an MI100 on AM4): a corrected GHES PCIe record at the CPU's root port, two sections.
GHES_CORRECTED_ROOT_PORT = """\
kernel: [ 2484.374025] {359}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 512
kernel: [ 2484.374028] {359}[Hardware Error]: It has been corrected by h/w and requires no further action
kernel: [ 2484.374029] {359}[Hardware Error]: event severity: corrected
kernel: [ 2484.374030] {359}[Hardware Error]:  Error 0, type: corrected
kernel: [ 2484.374031] {359}[Hardware Error]:   section_type: PCIe error
kernel: [ 2484.374031] {359}[Hardware Error]:   port_type: 4, root port
kernel: [ 2484.374031] {359}[Hardware Error]:   version: 0.2
kernel: [ 2484.374032] {359}[Hardware Error]:   command: 0x0407, status: 0x0010
kernel: [ 2484.374033] {359}[Hardware Error]:   device_id: 0000:20:03.1
kernel: [ 2484.374033] {359}[Hardware Error]:   slot: 0
kernel: [ 2484.374034] {359}[Hardware Error]:   secondary_bus: 0x2d
kernel: [ 2484.374034] {359}[Hardware Error]:   vendor_id: 0x1022, device_id: 0x1483
kernel: [ 2484.374035] {359}[Hardware Error]:   class_code: 060400
kernel: [ 2484.374035] {359}[Hardware Error]:   bridge: secondary_status: 0x0000, control: 0x0012
kernel: [ 2484.374036] {359}[Hardware Error]:  Error 1, type: corrected
"""


def test_ghes_record_cut_above_its_severity_on_an_nvidia_gpu_is_an_issue_2487() -> None:
    # The record names 0000:01:00.0, vendor 0x10de (RTX 3090); its severity lines are above the paste's first line.
    r = capture_checks("2487", "FW-AER-ERRORS")["FW-AER-ERRORS"]
    assert r.status == "issue" and "0000:01:00.0" in r.message and "severity not shown" in r.message
    assert list(r.subjects) == ["0000:01:00.0"]


def test_ghes_recoverable_record_on_an_nvme_drive_is_not_a_gpu_link_701() -> None:
    # A recoverable record of an endpoint (port_type 0) of Samsung (0x144d): not a GPU's link.
    r = capture_checks("701", "FW-AER-ERRORS")["FW-AER-ERRORS"]
    assert r.status == "not-an-issue" and "0000:5e:00.0" in r.message


def test_ghes_records_parse_per_section_with_their_severity() -> None:
    lines = GHES_CORRECTED_ROOT_PORT.splitlines()
    (rec,) = parse_ghes_records(lines)  # Error 1's section is cut before its device: not read
    assert (rec.bdf, rec.severity, rec.endpoint_vendor) == ("0000:20:03.1", "corrected", "")  # a port, no vendor
    recoverable = [ln.replace("corrected", "recoverable") for ln in lines]
    assert parse_ghes_records(recoverable)[0].severity == "nonfatal"


def test_ghes_corrected_root_port_record_is_no_issue(tmp_path: Path) -> None:
    # One corrected record at a root port is not the uncorrected error the check flags (a rate needs more lines).
    r = paste_checks(tmp_path, GHES_CORRECTED_ROOT_PORT, "FW-AER-ERRORS")["FW-AER-ERRORS"]
    assert r.status == "unknown"


def test_modelled_ghes_record_of_another_vendors_port_still_counts(tmp_path: Path) -> None:
    # Modelled on the root-port record made recoverable: a port of AMD's CPU may lead to a GPU; without the PCI tree
    # the record counts, where the same record of an NVMe endpoint (port_type 0) would not.
    text = GHES_CORRECTED_ROOT_PORT.replace("corrected", "recoverable")
    assert paste_checks(tmp_path, text, "FW-AER-ERRORS")["FW-AER-ERRORS"].status == "issue"
    nvme = text.replace("4, root port", "0, PCIe end point").replace("0x1022, device_id: 0x1483",
                                                                       "0x144d, device_id: 0xa808")
    assert paste_checks(tmp_path, nvme, "FW-AER-ERRORS")["FW-AER-ERRORS"].status == "not-an-issue"


def test_ghes_regex_is_linear_on_a_long_line() -> None:
    import time
    start = time.perf_counter()
    parse_ghes_records(["{1}[Hardware Error]:" + " device_id: 0000:01:00." * 9000, "x" * 200_000])
    assert time.perf_counter() - start < 0.5
