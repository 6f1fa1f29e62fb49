"""`lspci -vvv` parsing and importing: the real captures and own realistic fixtures (pciutils' ls-caps.c /
ls-ecaps.c formats: LnkSta with and without `(ok)`/`(downgraded)`, old comma-separated DevCap2 flags)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus import fact, paste_checks, pasted
from stackaudit.engine.collect import Missing
from stackaudit.facts._parse import ParseError
from stackaudit.facts.lspci import parse_lspci, parse_lspci_tree, tree_entries, tree_paths
from stackaudit.facts.pcie import LSPCI_ARGV, read_lspci
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise, strip_header
from stackaudit.pci_address import normalize_bdf

# The corpus of real pastes (each file names its public thread in its header).
CAPTURES = Path(__file__).resolve().parent / "data" / "captures"

# A PCIe switch (Broadcom PEX890xx) under an EPYC root port with two RTX PRO 6000 Blackwell behind it, the
# switch downstream ports with ACS redirect on (the bad variant). Modelled on lspci 3.10.
SWITCH_HOST = """\
0000:40:01.1 PCI bridge [0604]: Advanced Micro Devices, Inc. [AMD] Genoa/Bergamo GPP Bridge [1022:14ab] (prog-if 00 [Normal decode])
	Control: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx+
	Bus: primary=40, secondary=41, subordinate=44, sec-latency=0
	Capabilities: [58] Express (v2) Root Port (Slot+), MSI 00
		DevCap:	MaxPayload 512 bytes, PhantFunc 0
			ExtTag+ RBE+
		DevCtl:	CorrErr+ NonFatalErr+ FatalErr+ UnsupReq+
			RlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+
			MaxPayload 256 bytes, MaxReadReq 512 bytes
		LnkCap:	Port #1, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <64us
			ClockPM- Surprise- LLActRep+ BwNot+ ASPMOptComp+
		LnkCtl:	ASPM Disabled; RCB 64 bytes, Disabled- CommClk+
		LnkSta:	Speed 32GT/s, Width x16
			TrErr- Train- SlotClk+ DLActive+ BWMgmt- ABWMgmt-
		DevCap2: Completion Timeout: Range ABCD, TimeoutDis+ NROPrPrP- LTR+
\t\t\t 10BitTagComp+ 10BitTagReq+ OBFF Not Supported, ExtFmt+ EETLPPrefix+, MaxEETLPPrefixes 1
		DevCtl2: Completion Timeout: 50us to 50ms, TimeoutDis- LTR- 10BitTagReq- OBFF Disabled, ARIFwd+
	Capabilities: [2a0 v1] Access Control Services
		ACSCap:	SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+
		ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
	Kernel driver in use: pcieport

0000:41:00.0 PCI bridge [0604]: Broadcom / LSI PCIe Switch management endpoint [1000:c030] (rev b0)
	Bus: primary=41, secondary=42, subordinate=44, sec-latency=0
	Capabilities: [68] Express (v2) Upstream Port, MSI 00
		DevCap:	MaxPayload 2048 bytes, PhantFunc 0
		DevCtl:	CorrErr+ NonFatalErr+ FatalErr+ UnsupReq+
			RlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+
			MaxPayload 256 bytes, MaxReadReq 512 bytes
		LnkCap:	Port #0, Speed 32GT/s, Width x16, ASPM not supported
		LnkSta:	Speed 32GT/s (ok), Width x16 (ok)
	Kernel driver in use: pcieport

0000:42:00.0 PCI bridge [0604]: Broadcom / LSI PCIe Switch management endpoint [1000:c030] (rev b0)
	Bus: primary=42, secondary=43, subordinate=43, sec-latency=0
	Capabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00
		DevCap:	MaxPayload 2048 bytes, PhantFunc 0
		DevCtl:	CorrErr+ NonFatalErr+ FatalErr+ UnsupReq+
			RlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+
			MaxPayload 256 bytes, MaxReadReq 512 bytes
		LnkCap:	Port #0, Speed 32GT/s, Width x16, ASPM not supported
		LnkCtl:	ASPM Disabled; Disabled- CommClk+
		LnkSta:	Speed 32GT/s, Width x16
	Capabilities: [a00 v1] Access Control Services
		ACSCap:	SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
		ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
	Kernel driver in use: pcieport

0000:42:01.0 PCI bridge [0604]: Broadcom / LSI PCIe Switch management endpoint [1000:c030] (rev b0)
	Bus: primary=42, secondary=44, subordinate=44, sec-latency=0
	Capabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00
		DevCap:	MaxPayload 2048 bytes, PhantFunc 0
		DevCtl:	CorrErr+ NonFatalErr+ FatalErr+ UnsupReq+
			RlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+
			MaxPayload 256 bytes, MaxReadReq 512 bytes
		LnkCap:	Port #1, Speed 32GT/s, Width x16, ASPM not supported
		LnkSta:	Speed 32GT/s, Width x16
	Capabilities: [a00 v1] Access Control Services
		ACSCap:	SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
		ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
	Kernel driver in use: pcieport

0000:43:00.0 VGA compatible controller [0300]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5] (rev a1) (prog-if 00 [VGA controller])
	Subsystem: NVIDIA Corporation Device [10de:204e]
	NUMA node: 2
	IOMMU group: 44
	Region 0: Memory at e0000000 (32-bit, non-prefetchable) [size=64M]
	Region 1: Memory at 28000000000 (64-bit, prefetchable) [size=128G]
	Region 3: Memory at 2a000000000 (64-bit, prefetchable) [size=32M]
	Capabilities: [40] Power Management version 3
	Capabilities: [60] Express (v2) Legacy Endpoint, MSI 00
		DevCap:	MaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us
			ExtTag+ AttnBtn- AttnInd- PwrInd- RBE+ FLReset+
		DevCtl:	CorrErr- NonFatalErr- FatalErr- UnsupReq-
			RlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-
			MaxPayload 256 bytes, MaxReadReq 512 bytes
		LnkCap:	Port #0, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <4us
			ClockPM+ Surprise- LLActRep- BwNot- ASPMOptComp+
		LnkCtl:	ASPM Disabled; RCB 64 bytes, Disabled- CommClk+
		LnkSta:	Speed 2.5GT/s (downgraded), Width x16
			TrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-
		DevCap2: Completion Timeout: Range AB, TimeoutDis+ NROPrPrP- LTR+
\t\t\t 10BitTagComp+ 10BitTagReq+ OBFF Via message, ExtFmt+ EETLPPrefix-
		DevCtl2: Completion Timeout: 50us to 50ms, TimeoutDis- LTR- 10BitTagReq- OBFF Disabled,
	Capabilities: [100 v1] Advanced Error Reporting
		UESta:	DLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-
		CESta:	RxErr- BadTLP- BadDLLP- Rollover- Timeout- AdvNonFatalErr-
	Capabilities: [bb0 v1] Physical Resizable BAR
		BAR 0: current size: 64MB, supported: 64MB
		BAR 1: current size: 128GB, supported: 64MB 128MB 256MB 512MB 1GB 2GB 4GB 8GB 16GB 32GB 64GB 128GB
		BAR 3: current size: 32MB, supported: 32MB
	Kernel driver in use: nvidia
	Kernel modules: nvidiafb, nouveau, nvidia_drm, nvidia

0000:44:00.0 VGA compatible controller [0300]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5] (rev a1) (prog-if 00 [VGA controller])
	NUMA node: 2
	Region 1: Memory at 2c000000000 (64-bit, prefetchable) [size=128G]
	Capabilities: [60] Express (v2) Legacy Endpoint, MSI 00
		DevCap:	MaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us
		DevCtl:	CorrErr- NonFatalErr- FatalErr- UnsupReq-
			RlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-
			MaxPayload 256 bytes, MaxReadReq 512 bytes
		LnkCap:	Port #0, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <4us
		LnkSta:	Speed 32GT/s (ok), Width x16 (ok)
	Kernel driver in use: nvidia
"""

NON_ROOT = """\
01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1) (prog-if 00 [VGA controller])
	Subsystem: ASUSTeK Computer Inc. Device 889c
	Flags: bus master, fast devsel, latency 0, IRQ 186
	Memory at fb000000 (32-bit, non-prefetchable) [size=16M]
	Capabilities: <access denied>
	Kernel driver in use: nvidia
	Kernel modules: nvidiafb, nouveau, nvidia_drm, nvidia
"""

OLD_FORMAT = """\
05:00.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB] (rev a1)
	Region 1: Memory at <unassigned> (64-bit, prefetchable) [disabled] [size=32G]
	Capabilities: [68] Express (v2) Endpoint, MSI 00
		DevCap:	MaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us
		DevCtl:	Report errors: Correctable- Non-Fatal- Fatal- Unsupported-
			RlxdOrd- ExtTag+ PhantFunc- AuxPwr- NoSnoop+
			MaxPayload 128 bytes, MaxReadReq 128 bytes
		LnkSta:	Speed 8GT/s, Width x8, TrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-
		DevCap2: Completion Timeout: Range AB, TimeoutDis+, LTR-, OBFF Not Supported
\t\t\t 10BitTagComp-, 10BitTagReq-, OBFF Not Supported, ExtFmt-, EETLPPrefix-
	Kernel driver in use: nvidia
"""


def _capture(name: str) -> str:
    path = CAPTURES / name
    return str(strip_header(path.read_text()))


def test_switch_host_devices_topology_and_registers() -> None:
    out = parse_lspci(SWITCH_HOST)
    assert out.topology_known and len(out.devices) == 6
    dev = out.by_bdf()
    gpu = dev["0000:43:00.0"]
    assert gpu.pci_class == "0x030000" and gpu.vendor == "0x10de" and gpu.device == "0x2bb5"
    assert gpu.model == "RTX PRO 6000 Blackwell Server Edition" and gpu.numa_node == 2 and gpu.iommu_group == 44
    assert gpu.driver == "nvidia" and [b.index for b in gpu.bars] == [0, 1, 3] and gpu.bars[1].size == 128 << 30
    cfg = gpu.config
    assert cfg is not None and cfg.readable and cfg.complete
    exp = cfg.express
    assert exp is not None and exp.port_type == "legacy-endpoint"
    assert (exp.devcap_mps, exp.devctl_mps, exp.devctl_mrrs, exp.devctl_relaxed_ordering) == (256, 256, 512, True)
    assert (exp.lnkcap_speed, exp.lnksta_speed, exp.lnksta_width, exp.lnkctl_aspm) == (32.0, 2.5, 16, "Disabled")
    assert exp.devcap2_10bit_req is True and exp.devctl2_10bit_req is False
    assert cfg.rebar is not None and cfg.rebar[1].current_mib == 128 << 10 and cfg.aer is not None
    dsp = dev["0000:42:00.0"].config
    assert dsp is not None and dsp.acs is not None and dsp.acs.ctl == 0x1D and dsp.acs.redirect
    assert dsp.express is not None and dsp.express.port_type == "downstream-port"
    root = dev["0000:40:01.1"]
    assert root.secondary_bus == 0x41 and root.config is not None and root.config.express is not None
    assert root.config.express.port_type == "root-port" and root.config.express.devcap2_10bit_comp


def test_access_denied_is_unreadable() -> None:
    [dev] = parse_lspci(NON_ROOT).devices
    assert dev.bdf == "0000:01:00.0" and dev.pci_class == "0x030000" and dev.vendor == "0x10de"
    assert dev.config is not None and not dev.config.readable and dev.model == "GeForce RTX 4090"


def test_old_format_and_unassigned_bar() -> None:
    [dev] = parse_lspci(OLD_FORMAT).devices
    assert dev.pci_class == "0x030200" and dev.bars[0].unassigned and dev.bars[0].start is None
    exp = dev.config.express if dev.config else None
    assert exp is not None and (exp.devctl_mps, exp.devctl_mrrs, exp.lnksta_speed, exp.lnksta_width) == (128, 128, 8.0, 8)
    assert exp.devcap2_10bit_comp is False and exp.devctl_relaxed_ordering is False


def test_capture_05_cut_mid_capability() -> None:
    [dev] = parse_lspci(_capture("05-a100-sxm4-lspci-maxreadreq-512.txt")).devices
    assert dev.bdf == "0000:da:00.0" and dev.model == "A100 SXM4 40GB" and dev.numa_node == 5
    assert dev.config is not None and dev.config.readable and not dev.config.complete
    exp = dev.config.express
    assert exp is not None and (exp.devcap_mps, exp.devctl_mps, exp.devctl_mrrs) == (256, 256, 512)
    assert exp.devctl_relaxed_ordering and exp.devctl_ext_tag and exp.lnksta_speed is None
    assert dev.bars[1].size == 64 << 30 and dev.bars[1].prefetchable and dev.bars[1].is_64bit


def test_capture_07_grepped_acsctl_lines() -> None:
    out = parse_lspci(_capture("07-nccl-illegal-memory-access-acsctl-redirect-enabled.txt"))
    assert not out.devices and len(out.loose) == 16
    assert sum(1 for c in out.loose if c.acs and c.acs.redirect) == 4  # + the cut fifth line
    # The last line is cut ("SrcValid+ TransBlk- Req"): its ReqRedir/CmpltRedir bits are unknown, not "-".
    assert out.loose[-1].acs is not None and out.loose[-1].acs.ctl is None


def test_capture_28_iommu_group_listing_imports_as_lspci() -> None:
    result = recognise(_capture("28-rtx3070ti-vfio-proc-cmdline-intel-iommu-on.txt"))
    kinds = [k for k, _, _ in result.recognised]
    assert "lspci" in kinds and "/proc/cmdline" in kinds
    # Recorded verbatim as a pasted IOMMU group listing (no `lspci -D -nn -vvv` rebuilt from it).
    assert LSPCI_ARGV not in result.record.commands and "IOMMU Group 1:" in result.record.docs["iommu_group_listing"]
    out, _ = read_lspci(MemoryHost(result.record))
    assert out is not None
    gpu = out.by_bdf()["0000:01:00.0"]
    assert gpu.iommu_group == 1 and gpu.model == "GeForce RTX 3070 Ti" and gpu.config is None
    assert out.by_bdf()["0000:00:01.0"].iommu_group == 1


def test_importer_with_chatter_and_two_listings() -> None:
    text = ("user@gpu:~$ sudo lspci -vvv -s 43:00.0\n" + SWITCH_HOST.split("\n\n")[4] + "\n\nsome words here\n"
            "$ lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'\n"
            "42:00.0 PCI bridge: Broadcom / LSI PCIe Switch management endpoint (rev b0)\n"
            "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n")
    result = recognise(text)
    assert [k for k, _, _ in result.recognised].count("lspci") == 2
    # Neither prompt is a plain argv (`-s 43:00.0`, `| grep`): each recorded under the flags its lines show
    # (domain, [cccc] class codes and detail lines; a grepped header without class codes).
    assert [a for a in result.record.commands if a[0] == "lspci"] == [("lspci", "-D", "-nn", "-vvv"), ("lspci", "-vvv")]
    out, _ = read_lspci(MemoryHost(result.record))
    assert out is not None
    assert set(out.by_bdf()) == {"0000:43:00.0", "0000:42:00.0"}
    bridge = out.by_bdf()["0000:42:00.0"].config
    assert bridge is not None and bridge.acs is not None and bridge.acs.redirect and not bridge.complete


def test_lspci_tree_is_recognised() -> None:
    tree = ("-+-[0000:40]-+-00.0  Advanced Micro Devices, Inc. [AMD] Genoa/Bergamo Root Complex\n"
            " |           +-01.1-[41-44]----00.0-[42-44]--+-00.0-[43]----00.0  NVIDIA Corporation GB202GL\n"
            " |           |                               \\-01.0-[44]----00.0  NVIDIA Corporation GB202GL\n"
            " \\-[0000:00]-+-00.0  Advanced Micro Devices, Inc. [AMD] Genoa/Bergamo Root Complex\n")
    assert ("lspci -tv", 1, 4) in recognise(tree).recognised


def test_nothing_lspci_like_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        parse_lspci("hello\nworld\n")


_ALPHABET = st.sampled_from(["\t", "\t\t", " ", "\n", ":", "+", "-", "[", "]", "ACSCtl:", "LnkSta:", "Speed ", "GT/s",
                             "Width x", "16", "01:00.0 ", "VGA compatible controller", "Capabilities: [60] Express (v2) ",
                             "BAR 1: current size: ", "256MB", "Region 1: Memory at ", "<unassigned>", "(64-bit, ",
                             "[size=", "Bus: primary=00, secondary=01", "DevCtl:", "MaxPayload 256 bytes", "x", "0"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=80).map("".join))
def test_fuzz_lspci_only_parse_error(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_lspci(text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=400))
def test_fuzz_importer_never_raises(text: str) -> None:
    recognise(SWITCH_HOST[:200] + text)


# -- `lspci -tv` excerpts cut above their root (no `-[0000:00]-` line) -----------------------------------------------

# https://github.com/NVIDIA/nccl/issues/246 (comment by Keepmoving-ZXY): the whole paste, verbatim. Two V100s below
# bridges 08.0 and 0c.0 of one bus whose number is cut off, ConnectX-5 VFs on a deeper branch of that column.
NCCL_246 = r"""```
 |           |                               |                               |               +-03.4  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           |                               |                               |               +-03.5  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           |                               |                               |               +-03.6  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           |                               |                               |               +-03.7  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           |                               |                               |               +-04.0  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           |                               |                               |               \-04.1  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           |                               |                               +-08.0-[5c-5f]----00.0  NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB]
 |           |                               |                               +-0c.0-[60-63]----00.0  NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB]
 |
```
"""

# https://github.com/NVIDIA/nccl/issues/820 (issue body by sneaxiy), the part the corpus holds (capture 1534), verbatim:
# an excerpt that starts inside the tree (an A100, device 20b2, below a chain of bridges) and reaches root bus 0000:00.
NCCL_820 = r""" |                                           +-08.0-[16-1e]----00.0-[17-1e]--+-00.0-[18-1a]----00.0-[19-1a]----00.0-[1a]----00.0  NVIDIA Corporation Device 20b2
 |                                           |                               +-10.0-[1b]--
 |                                           |                               +-14.0-[1c]--
 |                                           |                               +-18.0-[1d]--
 |                                           |                               \-1c.0-[1e]--
 |                                           +-0c.0-[1f-22]----00.0-[20-22]--+-14.0-[21]--
 |                                           |                               \-15.0-[22]--
 |                                           \-1c.0-[23]----00.0  LSI Logic / Symbios Logic Device c010
 \-[0000:00]-+-00.0  Intel Corporation Device 09a2
             +-00.1  Intel Corporation Device 09a4
             +-00.2  Intel Corporation Device 09a3
"""

# https://github.com/kata-containers/kata-containers/blob/main/docs/design/kata-vra.md ("Virtualization Reference
# Architecture", the host topology), verbatim: two excerpts, each a BlueField-2 and an A100X below one switch, their
# root ports cut off (and the `\-01.0` rows one column right of the branch they continue, as the page prints them).
KATA_VRA = r"""```sh
+-00.0-[d8-df]----00.0-[d9-df]--+-00.0-[da-db]--+-00.0  Mellanox Tech MT42822 BlueField-2 integrated ConnectX-6 Dx network
                                |               +-00.1  Mellanox Tech MT42822 BlueField-2 integrated ConnectX-6 Dx network
                                |               \-00.2  Mellanox Tech MT42822 BlueField-2 SoC Management Interface
                                 \-01.0-[dc-df]----00.0-[dd-df]----08.0-[de-df]----00.0  NVIDIA Corporation GA100 [A100X]

+-00.0-[3b-42]----00.0-[3c-42]--+-00.0-[3d-3e]--+-00.0  Mellanox Tech MT42822 BlueField-2 integrated ConnectX-6 Dx network
                                |               +-00.1  Mellanox Tech MT42822 BlueField-2 integrated ConnectX-6 Dx network
                                |               \-00.2  Mellanox Tech MT42822 BlueField-2 SoC Management Interface
                                 \-01.0-[3f-42]----00.0-[40-42]----08.0-[41-42]----00.0  NVIDIA Corporation GA100 [A100X]
```
"""


def _tree_text(text: str) -> str:
    out = recognise(text).record.commands.get(("lspci", "-tv"))
    assert out is not None, "no lspci -tv recognised"
    return out.stdout


@pytest.mark.parametrize("text", [NCCL_246, NCCL_820, KATA_VRA])
def test_tree_excerpts_are_recognised(text: str) -> None:
    result = recognise(text)
    assert [k for k, _, _ in result.recognised] and all(k == "lspci -tv" for k, _, _ in result.recognised)


def test_excerpt_settles_only_the_addresses_its_brackets_give() -> None:
    entries = {e.key: e for e in tree_entries(_tree_text(NCCL_246))}
    gpus = [e for e in entries.values() if "NVIDIA" in e.name]
    assert [g.key for g in gpus] == ["0000:5c:00.0", "0000:60:00.0"]
    # Bridges 08.0 and 0c.0 hang off one bus whose number is cut off; the VFs off another, numbered by neither.
    bridges = [entries[g.parent] for g in gpus if g.parent]
    assert [b.slot for b in bridges] == ["08.0", "0c.0"] and bridges[0].bus == bridges[1].bus
    vfs = [e for e in entries.values() if "Virtual Function" in e.name]
    assert len(vfs) == 6 and {v.bus for v in vfs} == {"#1"} and bridges[0].bus != "#1"
    assert not any(normalize_bdf(e.key) for e in (*vfs, *bridges)), "an address the excerpt does not show"
    with pytest.raises(ParseError):
        parse_lspci_tree(_tree_text(NCCL_246))  # no function's path from a root bus is shown


def test_excerpt_above_a_root_keeps_the_roots_paths() -> None:
    text = _tree_text(NCCL_820)
    entries = {e.key: e for e in tree_entries(text)}
    assert entries["0000:1a:00.0"].name == "NVIDIA Corporation Device 20b2"
    assert entries["0000:23:00.0"].name.startswith("LSI Logic")
    paths = parse_lspci_tree(text)
    assert "0000:1a:00.0" not in paths and paths["0000:00:00.1"] == ()  # the root part only
    chain, rooted = tree_paths(list(entries.values()))["0000:1a:00.0"]
    assert not rooted and chain[1:] == ("0000:16:00.0", "0000:17:00.0", "0000:18:00.0", "0000:19:00.0")


def test_blank_line_between_excerpts_starts_their_columns_over() -> None:
    entries = tree_entries(_tree_text(KATA_VRA))
    assert [e.key for e in entries if "A100X" in e.name] == ["0000:de:00.0", "0000:41:00.0"]
    tops = [e for e in entries if e.slot == "00.0" and not e.numbered and e.bridge]
    assert len(tops) == 2 and tops[0].bus != tops[1].bus  # two switches' ports, not one bus


def test_excerpt_feeds_gpus_and_nics_without_absence_or_topology() -> None:
    pcie = fact(pasted(NCCL_246), "pcie")
    assert [g.bdf for g in pcie.gpus] == ["0000:5c:00.0", "0000:60:00.0"]
    assert len(pcie.role("nic")) == 6 and all(g.upstream == () and g.config is None for g in pcie.gpus)
    assert not pcie.topology_known and not pcie.inventory_complete
    assert {f.bdf for f in pcie.p2p_bridges()} == {e.parent for e in tree_entries(_tree_text(NCCL_246)) if "NVIDIA" in e.name}
    gpus = fact(pasted(NCCL_246), "gpus")
    assert gpus.whole_count is None and gpus.at_least == 2 and gpus.models


def test_tree_without_a_named_gpu_feeds_nothing() -> None:
    # `lspci -t` prints no names (corpus 177, 99): no GPU is recognised, and none is taken as absent.
    assert isinstance(fact(pasted("-[0000:00]-+-00.0\n           +-01.1-[01]--+-00.0\n           |            \\-00.1\n"),
                           "pcie"), Missing)


def test_checks_on_an_excerpt(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, NCCL_246, "FW-ACS-P2P", "IC-NVIDIA-PEERMEM", "IC-TOPO-READ", "MEM-MIG")
    assert {c: r.status for c, r in results.items()} == {
        "FW-ACS-P2P": "unknown", "IC-NVIDIA-PEERMEM": "unknown", "IC-TOPO-READ": "unknown", "MEM-MIG": "not-applicable"}
    assert "tree shows no registers" in results["FW-ACS-P2P"].message


# Modelled: `|`-ruled text that is no lspci tree.
NOT_A_TREE = [
    "| GPU | Bus | Slot |\n|-----|-----|------|\n| 0   | 5c  | 08.0 |\n| 1   | 60  | 0c.0 |\n",
    ("+-------------+        +-------------+\n| CPU socket 0|--UPI---| CPU socket 1|\n+------+------+        +------+------+\n"
     "       |                      |\n       +-- PCIe switch        +-- PCIe switch\n       |   +-- GPU0           |   +-- GPU2\n"
     "       |   \\-- GPU1           |   \\-- GPU3\n"),
    " |  +-01.0 root port\n |  \\-02.0 root port\n",  # a hand-drawn tree: one space before each name
]


@pytest.mark.parametrize("text", NOT_A_TREE)
def test_ruled_text_is_not_read_as_a_tree(text: str) -> None:
    assert "lspci -tv" not in [k for k, _, _ in recognise(text).recognised]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([" ", "|", "+-", "\\-", "-[", "]", "5c", "-5f", "08.0", "----", "--", "\n",
                                 "  NVIDIA Corporation GV100GL", "[0000:00]", "Mellanox ConnectX-5"]), max_size=80)
       .map("".join))
def test_fuzz_tree_entries_never_raises(text: str) -> None:
    tree_entries(text)
    with contextlib.suppress(ParseError):
        parse_lspci_tree(text)


# Real `lspci -n` rows (no names: the class code, then vendor:device): corpus 2090 (GoogleCloudPlatform/
# compute-gpu-installation#10, a Compute Engine VM's whole bus), a devstack GPU-passthrough guide's host (four
# 10de:102d) and a libvirt host's notes (10de:1eb8, a Tesla T4), both public repositories' files.
LSPCI_N_GCE = """\
00:00.0 0600: 8086:1237 (rev 02)
00:01.0 0601: 8086:7110 (rev 03)
00:01.3 0680: 8086:7113 (rev 03)
00:03.0 0000: 1af4:1004
00:04.0 0302: 10de:20b0 (rev a1)
00:05.0 0200: 1af4:1000
00:06.0 00ff: 1af4:1005
"""
LSPCI_N_DEVSTACK = "04:00.0 0302: 10de:102d (rev a1)\n05:00.0 0302: 10de:102d (rev a1)\n"
LSPCI_N_T4 = "18:00.0 0302: 10de:1eb8 (rev a1)\n3b:00.0 0302: 10de:1eb8 (rev a1)\n"


def test_lspci_n_rows_give_their_class_and_ids() -> None:
    from stackaudit.facts.platform import hypervisor_device

    gce = {d.bdf: d for d in parse_lspci(LSPCI_N_GCE).devices}
    gpu = gce["0000:00:04.0"]
    assert (gpu.pci_class, gpu.vendor, gpu.device, gpu.model) == ("0x030200", "0x10de", "0x20b0", "")
    for text, device in ((LSPCI_N_DEVSTACK, "0x102d"), (LSPCI_N_T4, "0x1eb8")):
        assert {(d.pci_class, d.vendor, d.device) for d in parse_lspci(text).devices} == {("0x030200", "0x10de", device)}
    # QEMU's virtio devices by their ids alone (1af4:1004): a KVM guest.
    found = hypervisor_device(parse_lspci(LSPCI_N_GCE).devices)
    assert found is not None and found[0].vm == "kvm"
    # Modelled counter-example: a bare-metal host's bridge and GPU by ids show no hypervisor.
    assert hypervisor_device(parse_lspci("00:00.0 0600: 8086:2020 (rev 04)\n" + LSPCI_N_T4).devices) is None


def test_lspci_n_gpus_are_named_by_their_device_id() -> None:
    # The GPU table's row for the PCI device id (10de:20b0: A100 SXM4 40GB; 10de:1eb8: T4); none for an id no
    # row gives (10de:102d).
    assert [g.model for g in fact(pasted(LSPCI_N_GCE), "gpus").gpus] == ["A100 SXM4 40GB"]
    assert {g.model for g in fact(pasted(LSPCI_N_T4), "gpus").gpus} == {"T4"}
    assert {g.model for g in fact(pasted(LSPCI_N_DEVSTACK), "gpus").gpus} == {""}
