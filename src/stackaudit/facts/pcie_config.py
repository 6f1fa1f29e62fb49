"""PCI Express capability registers: a binary config-space parser, an `lspci -vvv` parser, and the
`pcie` fact that joins them with the sysfs view of `pci`.

Register layout (Linux include/uapi/linux/pci_regs.h; PCI Express Base Specification, chapter 7):
the standard header is 64 bytes; the capability list starts at the byte pointer at 0x34 (0x14 for
CardBus) when Status bit 4 is set; each capability is `ID, next`. The PCI Express capability
(ID 0x10) holds DevCap (+0x04), DevCtl (+0x08: RlxdOrd bit 4, MaxPayload bits 7:5, ExtTag bit 8,
NoSnoop bit 11, MaxReadReq bits 14:12), LnkCap (+0x0c: speed 3:0, width 9:4, ASPM support
11:10), LnkCtl (+0x10: ASPM control 1:0), LnkSta (+0x12: speed 3:0, width 9:4), DevCap2
(+0x24: 10-bit tag completer bit 16, requester bit 17) and DevCtl2 (+0x28: 10-bit tag requester
enable bit 12, `PCI_EXP_DEVCTL2_10BIT_TAG_REQ_EN 0x1000`). Extended capabilities start at 0x100
with a 32-bit header (ID 15:0, version 19:16, next 31:20): AER (0x0001: uncorrectable status
+0x04, correctable status +0x10), ACS (0x000d: capability +0x04, control +0x06, the register
`setpci ECAP_ACS+0x6.w` writes), Resizable BAR (0x0015: per BAR a capability dword whose bits
31:4 list the supported sizes, 1 MB << n, and a control dword: BAR index 2:0, number of BARs 7:5
in the first entry, current size 13:8, more sizes 31:16), as pciutils' ls-ecaps.c decodes them.

Without root, sysfs serves only the first 64 bytes of `config` (and lspci prints
`Capabilities: <access denied>`): every register beyond the header is then unknown, never "ok".
"""

from __future__ import annotations

import contextlib
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, replace

from stackaudit.facts._parse import ParseError
from stackaudit.facts.pci import (
    NVIDIA_VENDOR,
    Bar,
    PciDevice,
    PciDevices,
    device_role,
    gen_of,
)
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import IOMMU_GROUP_LISTING, LSPCI_PASTED, LSPCI_TREE, LSPCI_VVV
from stackaudit.host.base import CommandResult, Host, NotCaptured, read_optional
from stackaudit.pci_address import BDF_OPTIONAL_DOMAIN, normalize_bdf

# -- register constants (pci_regs.h) -----------------------------------------------------------
CAP_ID_EXP = 0x10
EXT_CAP_AER = 0x0001
EXT_CAP_ACS = 0x000D
EXT_CAP_REBAR = 0x0015
STD_HEADER = 0x40
CONFIG_SIZE = 0x100
EXT_CONFIG_SIZE = 0x1000

_PORT_TYPES = {
    0x0: "endpoint",
    0x1: "legacy-endpoint",
    0x4: "root-port",
    0x5: "upstream-port",
    0x6: "downstream-port",
    0x7: "pcie-to-pci-bridge",
    0x8: "pci-to-pcie-bridge",
    0x9: "rc-integrated-endpoint",
    0xA: "rc-event-collector",
}
# lspci's names for the same port types (ls-caps.c cap_express).
_LSPCI_PORT_TYPES = (
    ("Legacy Endpoint", "legacy-endpoint"),
    ("Root Complex Integrated Endpoint", "rc-integrated-endpoint"),
    ("Root Complex Event Collector", "rc-event-collector"),
    ("Endpoint", "endpoint"),
    ("Root Port", "root-port"),
    ("Upstream Port", "upstream-port"),
    ("Downstream Port", "downstream-port"),
    ("PCI-Express to PCI/PCI-X Bridge", "pcie-to-pci-bridge"),
    ("PCI/PCI-X to PCI-Express Bridge", "pci-to-pcie-bridge"),
)
# Link speed encodings of LnkCap/LnkSta (pciutils link_speed()): GT/s.
LINK_SPEEDS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
# ACS capability/control bits (pci_regs.h PCI_ACS_SV ... PCI_ACS_DT) and lspci's names for them.
ACS_BITS = {"SrcValid": 0, "TransBlk": 1, "ReqRedir": 2, "CmpltRedir": 3, "UpstreamFwd": 4,
            "EgressCtrl": 5, "DirectTrans": 6}
ACS_RR = 1 << 2
ACS_CR = 1 << 3
# AER status bits (pci_regs.h PCI_ERR_UNC_* / PCI_ERR_COR_*) and lspci's names for them.
AER_UNCORRECTABLE = {4: "DLP", 5: "SDES", 12: "TLP", 13: "FCP", 14: "CmpltTO", 15: "CmpltAbrt", 16: "UnxCmplt",
                     17: "RxOF", 18: "MalfTLP", 19: "ECRC", 20: "UnsupReq", 21: "ACSViol"}
AER_CORRECTABLE = {0: "RxErr", 6: "BadTLP", 7: "BadDLLP", 8: "Rollover", 12: "Timeout", 13: "AdvNonFatalErr"}
_ASPM_CTL = {0: "Disabled", 1: "L0s", 2: "L1", 3: "L0s L1"}
_ASPM_CAP = {0: "not supported", 1: "L0s", 2: "L1", 3: "L0s L1"}


@dataclass(frozen=True)
class ExpressCap:
    """The PCI Express capability, decoded. None: not known from this source."""

    offset: int | None = None
    version: int | None = None
    port_type: str = ""
    devcap_mps: int | None = None  # bytes the device supports (DevCap)
    devcap_ext_tag: bool | None = None
    devctl: int | None = None  # raw Device Control (config space only), for setpci values
    devctl_mps: int | None = None  # bytes programmed (DevCtl)
    devctl_mrrs: int | None = None
    devctl_relaxed_ordering: bool | None = None
    devctl_ext_tag: bool | None = None
    devctl_no_snoop: bool | None = None
    lnkcap_speed: float | None = None  # GT/s
    lnkcap_width: int | None = None
    lnkcap_aspm: str | None = None  # "not supported" | "L0s" | "L1" | "L0s L1"
    lnkctl_aspm: str | None = None  # "Disabled" | "L0s" | "L1" | "L0s L1"
    lnksta_speed: float | None = None
    lnksta_width: int | None = None
    devcap2_10bit_comp: bool | None = None
    devcap2_10bit_req: bool | None = None
    devctl2_10bit_req: bool | None = None

    @property
    def is_bridge_port(self) -> bool:
        return self.port_type in ("root-port", "downstream-port", "upstream-port")


@dataclass(frozen=True)
class AcsCap:
    """Access Control Services: capability and control registers (bits as in ACS_BITS)."""

    offset: int | None
    cap: int | None
    ctl: int | None

    @property
    def redirect(self) -> bool:
        return self.ctl is not None and bool(self.ctl & (ACS_RR | ACS_CR))

    def ctl_flags(self) -> str:
        if self.ctl is None:
            return "?"
        return " ".join(f"{name}{'+' if self.ctl & (1 << bit) else '-'}" for name, bit in ACS_BITS.items())


@dataclass(frozen=True)
class RebarEntry:
    """One BAR of the Resizable BAR capability; sizes in MiB."""

    bar: int
    current_mib: int | None
    supported_mib: tuple[int, ...]


@dataclass(frozen=True)
class AerStatus:
    """AER status registers: the names of the error bits set (sticky since the last clear)."""

    uncorrectable: tuple[str, ...]
    correctable: tuple[str, ...]


@dataclass(frozen=True)
class PcieConfig:
    """What one source says about a function's capabilities.

    `readable` False: only the 64-byte header was readable (no root) or lspci printed
    `<access denied>`. `complete` False: the source stops before the end of the capability lists
    (a cut paste, a grepped listing, a truncated file): a capability that is absent may just be
    missing from the source.
    """

    source: str  # "config space" | "lspci"
    readable: bool = True
    complete: bool = True
    size: int = 0
    vendor_id: int | None = None
    device_id: int | None = None
    class_code: int | None = None
    header_type: int | None = None
    capability_ids: tuple[int, ...] = ()
    ext_capability_ids: tuple[int, ...] = ()
    express: ExpressCap | None = None
    acs: AcsCap | None = None
    rebar: tuple[RebarEntry, ...] | None = None
    aer: AerStatus | None = None
    problems: tuple[str, ...] = ()

    @property
    def extended_readable(self) -> bool:
        return self.readable and (self.source != "config space" or self.size > CONFIG_SIZE)


# -- binary parser ------------------------------------------------------------------------------


def _u8(data: bytes, off: int) -> int | None:
    return data[off] if 0 <= off < len(data) else None


def _u16(data: bytes, off: int) -> int | None:
    return int(struct.unpack_from("<H", data, off)[0]) if off >= 0 and off + 2 <= len(data) else None


def _u32(data: bytes, off: int) -> int | None:
    return int(struct.unpack_from("<I", data, off)[0]) if off >= 0 and off + 4 <= len(data) else None


def _mps(code: int) -> int | None:
    return 128 << code if code <= 5 else None


def _bit(value: int | None, bit: int) -> bool | None:
    return None if value is None else bool(value >> bit & 1)


def _parse_express(data: bytes, off: int) -> ExpressCap:
    flags = _u16(data, off + 2)
    devcap = _u32(data, off + 0x04)
    devctl = _u16(data, off + 0x08)
    lnkcap = _u32(data, off + 0x0C)
    lnkctl = _u16(data, off + 0x10)
    lnksta = _u16(data, off + 0x12)
    version = flags & 0xF if flags is not None else None
    # Capability version 1 ends at +0x24 (no DevCap2/DevCtl2); version 2 defines them.
    v2 = version is not None and version >= 2
    devcap2 = _u32(data, off + 0x24) if v2 else None
    devctl2 = _u16(data, off + 0x28) if v2 else None
    port = _PORT_TYPES.get((flags >> 4) & 0xF, "other") if flags is not None else ""
    return ExpressCap(
        offset=off,
        version=version,
        port_type=port,
        devcap_mps=_mps(devcap & 0x7) if devcap is not None else None,
        devcap_ext_tag=_bit(devcap, 5),
        devctl=devctl,
        devctl_mps=_mps((devctl >> 5) & 0x7) if devctl is not None else None,
        devctl_mrrs=_mps((devctl >> 12) & 0x7) if devctl is not None else None,
        devctl_relaxed_ordering=_bit(devctl, 4),
        devctl_ext_tag=_bit(devctl, 8),
        devctl_no_snoop=_bit(devctl, 11),
        lnkcap_speed=LINK_SPEEDS.get(lnkcap & 0xF) if lnkcap is not None else None,
        lnkcap_width=(lnkcap >> 4) & 0x3F if lnkcap is not None else None,
        lnkcap_aspm=_ASPM_CAP[(lnkcap >> 10) & 0x3] if lnkcap is not None else None,
        lnkctl_aspm=_ASPM_CTL[lnkctl & 0x3] if lnkctl is not None else None,
        lnksta_speed=LINK_SPEEDS.get(lnksta & 0xF) if lnksta is not None else None,
        lnksta_width=(lnksta >> 4) & 0x3F if lnksta is not None else None,
        devcap2_10bit_comp=_bit(devcap2, 16),
        devcap2_10bit_req=_bit(devcap2, 17),
        devctl2_10bit_req=_bit(devctl2, 12),
    )


def _parse_rebar(data: bytes, off: int) -> tuple[tuple[RebarEntry, ...], list[str]]:
    entries: list[RebarEntry] = []
    problems: list[str] = []
    count = 1
    i = 0
    while i < count:
        cap = _u32(data, off + 4 + 8 * i)
        ctl = _u32(data, off + 8 + 8 * i)
        if cap is None or ctl is None:
            problems.append(f"Resizable BAR at {off:#x} truncated")
            break
        if i == 0:
            count = (ctl >> 5) & 0x7
            if not 1 <= count <= 6:
                problems.append(f"Resizable BAR at {off:#x}: {count} BARs is out of specification")
                break
        sizes = [1 << n for n in range(28) if (cap >> 4) >> n & 1]
        sizes += [1 << (n + 28) for n in range(16) if (ctl >> 16) >> n & 1]
        current = (ctl >> 8) & 0x3F
        entries.append(RebarEntry(ctl & 0x7, 1 << current if current < 44 else None, tuple(sizes)))
        i += 1
    return tuple(entries), problems


def parse_config(data: bytes) -> PcieConfig:
    """Decode a config-space dump (`/sys/bus/pci/devices/<bdf>/config`, 64, 256 or 4096 bytes).

    A 64-byte file (what sysfs gives a user without root) decodes the header only and is
    `readable=False`. Loops and truncated capabilities end the walk and are named in `problems`.
    """
    if len(data) < STD_HEADER:
        raise ParseError(f"config space of {len(data)} bytes: shorter than the 64-byte header")
    vendor = _u16(data, 0)
    if vendor in (0xFFFF, None):
        raise ParseError("config space reads all ones: the device does not answer")
    device = _u16(data, 2)
    status = _u16(data, 6) or 0
    class_code = (_u32(data, 8) or 0) >> 8
    header_type = (_u8(data, 0x0E) or 0) & 0x7F
    base = {"vendor_id": vendor, "device_id": device, "class_code": class_code, "header_type": header_type,
            "size": len(data)}
    if len(data) <= STD_HEADER:
        return PcieConfig("config space", readable=False, complete=False, **base)  # type: ignore[arg-type]
    problems: list[str] = []
    cap_ids: list[int] = []
    express: ExpressCap | None = None
    complete = True
    if status & 0x10:
        ptr = _u8(data, 0x14 if header_type == 2 else 0x34) or 0
        seen: set[int] = set()
        while ptr:
            ptr &= 0xFC
            if ptr < STD_HEADER:
                problems.append(f"capability pointer {ptr:#x} points into the header")
                break
            if ptr in seen:
                problems.append(f"capability chain loops at {ptr:#x}")
                break
            seen.add(ptr)
            cap_id, nxt = _u8(data, ptr), _u8(data, ptr + 1)
            if cap_id is None or nxt is None:
                problems.append(f"capability at {ptr:#x} beyond the {len(data)} bytes read")
                complete = False
                break
            cap_ids.append(cap_id)
            if cap_id == CAP_ID_EXP and express is None:
                if ptr + 0x14 > len(data):
                    problems.append(f"PCI Express capability at {ptr:#x} truncated")
                    complete = False
                express = _parse_express(data, ptr)
            ptr = nxt
    ext_ids: list[int] = []
    acs: AcsCap | None = None
    rebar: tuple[RebarEntry, ...] | None = None
    aer: AerStatus | None = None
    if len(data) > CONFIG_SIZE:
        where = CONFIG_SIZE
        seen_ext: set[int] = set()
        while where:
            header = _u32(data, where)
            if header is None:
                problems.append(f"extended capability at {where:#x} beyond the {len(data)} bytes read")
                complete = False
                break
            if header in (0, 0xFFFFFFFF):
                break
            if where in seen_ext:
                problems.append(f"extended capability chain loops at {where:#x}")
                break
            seen_ext.add(where)
            ext_id = header & 0xFFFF
            ext_ids.append(ext_id)
            if ext_id == EXT_CAP_ACS and acs is None:
                acs = AcsCap(where, _u16(data, where + 4), _u16(data, where + 6))
            elif ext_id == EXT_CAP_REBAR and rebar is None:
                rebar, more = _parse_rebar(data, where)
                problems.extend(more)
            elif ext_id == EXT_CAP_AER and aer is None:
                unc, cor = _u32(data, where + 4), _u32(data, where + 0x10)
                if unc is not None and cor is not None:
                    aer = AerStatus(tuple(n for b, n in AER_UNCORRECTABLE.items() if unc >> b & 1),
                                    tuple(n for b, n in AER_CORRECTABLE.items() if cor >> b & 1))
            nxt = (header >> 20) & 0xFFC
            where = nxt if nxt >= CONFIG_SIZE else 0
    return PcieConfig("config space", readable=True, complete=complete, capability_ids=tuple(cap_ids),
                      ext_capability_ids=tuple(ext_ids), express=express, acs=acs, rebar=rebar, aer=aer,
                      problems=tuple(problems), **base)  # type: ignore[arg-type]


# -- lspci -vvv text ----------------------------------------------------------------------------

LSPCI_HEADER = re.compile(rf"^\s*({BDF_OPTIONAL_DOMAIN})\s+([^:\[\]]+?)(?:\s+\[([0-9a-fA-F]{{4}})\])?:\s+(.*)$")
_IDS = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\](?!.*\[[0-9a-fA-F]{4}:[0-9a-fA-F]{4}\])")
_KEY = re.compile(r"^([A-Za-z][\w/-]*):\s*(.*)$")
_FLAG = re.compile(r"([A-Za-z0-9][\w/]*?)([+-])(?=[\s,]|$)")
_CAP_LINE = re.compile(r"^Capabilities:\s*\[([0-9a-fA-F]+)(?:\s+v(\d+))?\]\s*(.*)$")
_REGION = re.compile(r"^(Region\s+(\d+)|Expansion ROM):\s+(Memory|I/O ports) at\s+(<unassigned>|<ignored>|[0-9a-fA-F]+)"
                     r"(?:\s+\(([^)]*)\))?(.*)$")
_REBAR_LINE = re.compile(r"^BAR\s+(\d+):\s+current size:\s*(\S+?)(?:,\s*supported:\s*(.*))?$")
_SIZE = re.compile(r"^(\d+)([KMGTPE]?)B?$")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}
# Capability detail keys lspci prints (ls-caps.c, ls-ecaps.c); a line with another key starts a section we skip.
# `IOMMU Group 12:` over the `lspci -nns` lines of its devices (the listing of VFIO guides' scripts).
IOMMU_GROUP_HEADING = re.compile(r"^\s*IOMMU [Gg]roup\s+(\d+)\s*:?\s*$")
CAP_KEYS = ("DevCap", "DevCtl", "DevSta", "LnkCap", "LnkCtl", "LnkSta", "DevCap2", "DevCtl2", "LnkCap2", "LnkCtl2",
            "LnkSta2", "ACSCap", "ACSCtl", "UESta", "CESta")
# Class and vendor names lspci prints without -nn, for the roles the checks need.
_CLASS_NAMES = {"vga compatible controller": "0x0300", "3d controller": "0x0302", "display controller": "0x0380",
                "pci bridge": "0x0604", "bridge": "0x0680", "ethernet controller": "0x0200",
                "infiniband controller": "0x0207", "network controller": "0x0280", "host bridge": "0x0600",
                "audio device": "0x0403"}
_VENDOR_NAMES = (("NVIDIA", NVIDIA_VENDOR), ("Mellanox", "0x15b3"), ("Broadcom", "0x14e4"), ("Intel", "0x8086"),
                 ("Advanced Micro Devices", "0x1022"), ("PLX", "0x10b5"))


def parse_size(text: str) -> int | None:
    """lspci sizes (`16M`, `64G`, `32GB`, `256`) in bytes."""
    m = _SIZE.match(text.strip().upper())
    return int(m.group(1)) * _UNITS[m.group(2)] if m else None


@dataclass(frozen=True)
class LspciDevice:
    bdf: str
    class_name: str
    pci_class: str  # "0x0302"; "" when neither -nn nor a known class name says it
    vendor: str  # "0x10de"; "" when unknown
    device: str
    description: str
    numa_node: int | None = None
    iommu_group: int | None = None
    driver: str = ""
    bars: tuple[Bar, ...] = ()
    primary_bus: int | None = None
    secondary_bus: int | None = None
    config: PcieConfig | None = None

    @property
    def model(self) -> str:
        """The marketing name lspci puts in brackets (`GA100 [A100 SXM4 40GB]` -> `A100 SXM4 40GB`)."""
        text = re.sub(r"\s*\((?:rev [0-9a-fA-F]+|prog-if [^)]*)\)", "", self.description)
        text = re.sub(r"\s*\[[0-9a-fA-F]{4}:[0-9a-fA-F]{4}\].*$", "", text)
        m = re.search(r"\[([^\[\]]+)\]\s*$", text)
        return m.group(1) if m else ""


@dataclass(frozen=True)
class LspciOutput:
    devices: tuple[LspciDevice, ...]
    loose: tuple[PcieConfig, ...] = ()  # capability lines without a device header (grepped listings)
    topology_known: bool = False  # bridges printed their `Bus: primary=.. secondary=..` lines

    def by_bdf(self) -> dict[str, LspciDevice]:
        return {d.bdf: d for d in self.devices}


class _CapState:
    """Accumulates capability lines of one device (or of loose lines) into a PcieConfig."""

    def __init__(self) -> None:
        self.denied = False
        self.cap_lines = 0
        self.detail_lines = 0
        self.ids: list[int] = []
        self.ext_ids: list[int] = []
        self.exp: dict[str, object] = {}
        self.in_express = False
        self.acs: dict[str, int | None] = {}
        self.rebar: list[RebarEntry] = []
        self.has_rebar = False
        self.aer: dict[str, tuple[str, ...]] = {}
        self.section = ""
        self.current_cap = ""

    def capability(self, offset: int, version: str | None, text: str) -> None:
        self.cap_lines += 1
        self.section = ""
        self.current_cap = text
        extended = version is not None or offset >= CONFIG_SIZE
        if text.startswith("Express"):
            self.in_express = True
            self.ids.append(CAP_ID_EXP)
            m = re.match(r"Express \(v(\d+)\)\s+(.*?)(?:,|$)", text)
            if m:
                self.exp["version"] = int(m.group(1))
                self.exp["port_type"] = next((t for name, t in _LSPCI_PORT_TYPES if m.group(2).startswith(name)), "other")
            self.exp["offset"] = offset
        elif extended:
            self.in_express = False
            if "Access Control Services" in text:
                self.ext_ids.append(EXT_CAP_ACS)
                self.acs["offset"] = offset
            elif text.startswith(("Physical Resizable BAR", "Resizable BAR")):
                self.ext_ids.append(EXT_CAP_REBAR)
                self.has_rebar = True
            elif "Advanced Error Reporting" in text:
                self.ext_ids.append(EXT_CAP_AER)
        else:
            self.in_express = False

    def detail(self, line: str) -> None:
        m = _REBAR_LINE.match(line)
        if m and (self.has_rebar or not self.cap_lines):
            self.has_rebar = True
            current = parse_size(m.group(2))
            sizes = tuple(s >> 20 for s in (parse_size(w) for w in (m.group(3) or "").split()) if s)
            self.rebar.append(RebarEntry(int(m.group(1)), current >> 20 if current else None, sizes))
            self.detail_lines += 1
            return
        k = _KEY.match(line)
        body = line
        if k and (k.group(1) in CAP_KEYS or k.group(1)[0].isupper()):
            self.section = k.group(1)
            body = k.group(2)
        if self.section not in CAP_KEYS:
            return
        self.detail_lines += 1
        flags = dict(_FLAG.findall(body))
        sec, exp = self.section, self.exp
        if sec == "DevCap":
            mps = re.search(r"MaxPayload (\d+) bytes", body)
            if mps:
                exp["devcap_mps"] = int(mps.group(1))
            if "ExtTag" in flags:
                exp["devcap_ext_tag"] = flags["ExtTag"] == "+"
        elif sec == "DevCtl":
            mps = re.search(r"MaxPayload (\d+) bytes", body)
            if mps:
                exp["devctl_mps"] = int(mps.group(1))
            mrrs = re.search(r"MaxReadReq (\d+) bytes", body)
            if mrrs:
                exp["devctl_mrrs"] = int(mrrs.group(1))
            for name, key in (("RlxdOrd", "devctl_relaxed_ordering"), ("ExtTag", "devctl_ext_tag"),
                              ("NoSnoop", "devctl_no_snoop")):
                if name in flags:
                    exp[key] = flags[name] == "+"
        elif sec == "LnkCap":
            self._speed_width(body, "lnkcap")
            aspm = re.search(r"ASPM (not supported|L0s L1|L0s|L1|unknown)", body)
            if aspm:
                exp["lnkcap_aspm"] = aspm.group(1)
        elif sec == "LnkCtl":
            aspm = re.search(r"ASPM (Disabled|L0s L1 Enabled|L0s Enabled|L1 Enabled)", body)
            if aspm:
                exp["lnkctl_aspm"] = aspm.group(1).replace(" Enabled", "")
        elif sec == "LnkSta":
            self._speed_width(body, "lnksta")
        elif sec == "DevCap2":
            for name, key in (("10BitTagComp", "devcap2_10bit_comp"), ("10BitTagReq", "devcap2_10bit_req")):
                if name in flags:
                    exp[key] = flags[name] == "+"
        elif sec == "DevCtl2":
            if "10BitTagReq" in flags:
                exp["devctl2_10bit_req"] = flags["10BitTagReq"] == "+"
        elif sec in ("ACSCap", "ACSCtl"):
            known = [n for n in ACS_BITS if n in flags]
            if known:
                value = sum(1 << ACS_BITS[n] for n in known if flags[n] == "+")
                # A cut line (capture 07 ends "SrcValid+ TransBlk- Req") leaves later bits unknown.
                complete = all(n in flags for n in ("SrcValid", "TransBlk", "ReqRedir", "CmpltRedir"))
                self.acs["cap" if sec == "ACSCap" else "ctl"] = value if complete else None
                if not complete and sec == "ACSCtl":
                    self.acs["partial"] = value
        elif sec in ("UESta", "CESta"):
            self.aer[sec] = tuple(n for n, v in flags.items() if v == "+")

    def _speed_width(self, body: str, prefix: str) -> None:
        speed = re.search(r"Speed\s+([0-9]+(?:\.[0-9]+)?)GT/s", body)
        if speed:
            self.exp[f"{prefix}_speed"] = float(speed.group(1))
        elif re.search(r"Speed\s+unknown", body):
            self.exp[f"{prefix}_speed"] = None
        width = re.search(r"Width\s+x(\d+)", body)
        if width:
            self.exp[f"{prefix}_width"] = int(width.group(1))

    def build(self, complete: bool) -> PcieConfig | None:
        if self.denied:
            return PcieConfig("lspci", readable=False, complete=False)
        if not self.cap_lines and not self.detail_lines and not self.has_rebar:
            return None
        express = ExpressCap(**self.exp) if self.exp else None  # type: ignore[arg-type]
        acs = None
        if self.acs:
            acs = AcsCap(self.acs.get("offset"), self.acs.get("cap"), self.acs.get("ctl"))
        aer = AerStatus(self.aer.get("UESta", ()), self.aer.get("CESta", ())) if self.aer else None
        rebar = tuple(self.rebar) if self.has_rebar else None
        # Without capability headers (grepped lines) nothing says which capabilities are absent.
        return PcieConfig("lspci", readable=True, complete=complete and self.cap_lines > 0,
                          capability_ids=tuple(self.ids), ext_capability_ids=tuple(self.ext_ids), express=express,
                          acs=acs, rebar=rebar, aer=aer)


def _parse_bar(m: re.Match[str]) -> Bar:
    index = int(m.group(2)) if m.group(2) is not None else 6
    addr_text, attrs, rest = m.group(4), m.group(5) or "", m.group(6) or ""
    size_m = re.search(r"\[size=([^\]]+)\]", rest)
    unassigned = addr_text.startswith("<") or "[disabled]" in rest
    return Bar(index=index, start=None if addr_text.startswith("<") else int(addr_text, 16),
               size=parse_size(size_m.group(1)) if size_m else None, is_io=m.group(3) == "I/O ports",
               is_64bit="64-bit" in attrs, prefetchable="non-prefetchable" not in attrs and "prefetchable" in attrs,
               unassigned=unassigned)


def _device_from(header: re.Match[str], body: list[str], complete: bool) -> LspciDevice:
    bdf = normalize_bdf(header.group(1))
    class_name = header.group(2).strip()
    code = header.group(3)
    description = header.group(4).strip()
    pci_class = f"0x{code.lower()}" if code else _CLASS_NAMES.get(class_name.lower(), "")
    ids = _IDS.search(description)
    vendor = f"0x{ids.group(1).lower()}" if ids else next((v for n, v in _VENDOR_NAMES if description.startswith(n)), "")
    device = f"0x{ids.group(2).lower()}" if ids else ""
    progif = re.search(r"\(prog-if ([0-9a-f]{2})", description)
    if pci_class and len(pci_class) == 6:
        pci_class += progif.group(1) if progif else "00"
    state = _CapState()
    numa = group = primary = secondary = None
    driver = ""
    bars: list[Bar] = []
    for raw in body:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("Capabilities:"):
            if "<access denied>" in line:
                state.denied = True
                continue
            cap = _CAP_LINE.match(line)
            if cap:
                state.capability(int(cap.group(1), 16), cap.group(2), cap.group(3))
            continue
        # Each pattern only where the line starts with its literal (most lines are capability details).
        if line.startswith("NUMA node:") and (m := _NUMA_LINE.match(line)):
            numa = int(m.group(1))
        elif line.startswith("IOMMU group:") and (m := _IOMMU_GROUP_LINE.match(line)):
            group = int(m.group(1))
        elif line.startswith("Kernel driver in use:") and (m := _DRIVER_LINE.match(line)):
            driver = m.group(1)
        elif line.startswith("Bus:") and (m := _BUS_LINE.match(line)):
            primary, secondary = int(m.group(1), 16), int(m.group(2), 16)
        elif m := _REGION.match(line):
            bars.append(_parse_bar(m))
        else:
            state.detail(line)
    return LspciDevice(bdf, class_name, pci_class, vendor, device, description, numa, group, driver, tuple(bars),
                       primary, secondary, state.build(complete))


_NUMA_LINE = re.compile(r"^NUMA node:\s*(-?\d+)")
_IOMMU_GROUP_LINE = re.compile(r"^IOMMU group:\s*(\d+)")
_DRIVER_LINE = re.compile(r"^Kernel driver in use:\s*(\S+)")
_BUS_LINE = re.compile(r"^Bus:\s*primary=([0-9a-f]+),\s*secondary=([0-9a-f]+)")


def _merge(a: LspciDevice, b: LspciDevice) -> LspciDevice:
    """The same device printed twice (e.g. `lspci -nn` and `lspci -vvv` pasted together): keep what each adds."""
    keep, other = (b, a) if b.config is not None and a.config is None else (a, b)
    updates: dict[str, object] = {}
    for name in ("pci_class", "vendor", "device", "driver", "numa_node", "iommu_group", "primary_bus", "secondary_bus"):
        if not getattr(keep, name) and getattr(other, name):
            updates[name] = getattr(other, name)
    if not keep.bars and other.bars:
        updates["bars"] = other.bars
    return replace(keep, **updates) if updates else keep  # type: ignore[arg-type]


def parse_lspci(text: str) -> LspciOutput:
    """Parse `lspci -vvv`/`-vv`/`-nn` output, whole, cut, or grepped (`grep -E '^[0-9a-f]|ACSCtl'`).

    Capability lines that come before any device header (a bare `grep ACSCtl`) become `loose`
    configs, one per ACSCtl/LnkSta line. Raises ParseError when nothing lspci-like is found.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    devices: dict[str, LspciDevice] = {}
    loose: list[PcieConfig] = []
    i = 0
    n = len(lines)
    group: int | None = None  # the `IOMMU Group N:` heading of a group listing the devices below are in
    while i < n:
        if m := IOMMU_GROUP_HEADING.match(lines[i]):
            group = int(m.group(1))
            i += 1
            continue
        header = LSPCI_HEADER.match(lines[i])
        if header and not lines[i].startswith(("\t\t", "        ")):
            j = i + 1
            while j < n and lines[j].strip() and not LSPCI_HEADER.match(lines[j]) and (
                    lines[j][:1] in ("\t", " ")):
                j += 1
            body = lines[i + 1:j]
            # A block is whole when something follows it (a blank line, another device) or the driver lines
            # that end a verbose entry were reached; a block cut at the end of a paste is not.
            filled = [b.strip() for b in body if b.strip()]
            last = filled[-1] if filled else ""
            whole = (any(b.strip() for b in lines[j:])
                     or any(b.startswith(("Kernel driver in use", "Kernel modules")) for b in filled)
                     or bool(_KEY.match(last) or _FLAG.search(last) or _REBAR_LINE.match(last)))
            dev = _device_from(header, body, whole)
            if group is not None and dev.iommu_group is None:
                dev = replace(dev, iommu_group=group)
            devices[dev.bdf] = _merge(devices[dev.bdf], dev) if dev.bdf in devices else dev
            i = j
            continue
        stripped = lines[i].strip()
        key = _KEY.match(stripped)
        if key and key.group(1) in CAP_KEYS:
            state = _CapState()
            state.detail(stripped)
            # Continuation lines of the same register (deeper indentation, no key) belong to it.
            j = i + 1
            while j < n and lines[j].strip() and not _KEY.match(lines[j].strip().split("\t")[0]) and \
                    not LSPCI_HEADER.match(lines[j]):
                state.detail(lines[j].strip())
                j += 1
            cfg = state.build(False)
            if cfg is not None:
                loose.append(cfg)
            i = j
            continue
        i += 1
    if not devices and not loose:
        raise ParseError("no lspci device or capability lines")
    topology = any(d.secondary_bus is not None for d in devices.values())
    return LspciOutput(tuple(devices.values()), tuple(loose), topology)


# -- the `pcie` fact ------------------------------------------------------------------------------

LSPCI_ARGV = LSPCI_VVV.argv
ASPM_POLICY = "/sys/module/pcie_aspm/parameters/policy"


@dataclass(frozen=True)
class PcieFunction:
    """One PCI function the PCIe checks look at: sysfs (when the source has it), lspci, and registers."""

    bdf: str
    role: str  # gpu | nvswitch | nic | bridge | other
    sysfs: PciDevice | None = None
    lspci: LspciDevice | None = None
    config: PcieConfig | None = None  # the register view used: config space as root, else lspci's
    config_note: str = ""  # why `config` is None or unreadable ("run as root", "not in the source")
    upstream: tuple[str, ...] = ()  # bridges from the root port down to this function's parent

    @property
    def vendor(self) -> str:
        return self.sysfs.vendor if self.sysfs else (self.lspci.vendor if self.lspci else "")

    @property
    def device(self) -> str:
        return self.sysfs.device if self.sysfs else (self.lspci.device if self.lspci else "")

    @property
    def model(self) -> str:
        return self.lspci.model if self.lspci else ""

    @property
    def express(self) -> ExpressCap | None:
        return self.config.express if self.config is not None and self.config.readable else None

    @property
    def registers_readable(self) -> bool:
        return self.config is not None and self.config.readable

    @property
    def bars(self) -> tuple[Bar, ...]:
        if self.sysfs is not None and self.sysfs.bars:
            return self.sysfs.bars
        return self.lspci.bars if self.lspci else ()

    @property
    def parent(self) -> str | None:
        return self.upstream[-1] if self.upstream else None

    def _link(self, name: str) -> float | int | None:
        if self.sysfs is not None and getattr(self.sysfs, name) is not None:
            value: float | int | None = getattr(self.sysfs, name)
            return value
        exp = self.express
        if exp is None:
            return None
        attr = {"current_link_speed": "lnksta_speed", "max_link_speed": "lnkcap_speed",
                "current_link_width": "lnksta_width", "max_link_width": "lnkcap_width"}[name]
        value = getattr(exp, attr)
        return value

    @property
    def current_link_speed(self) -> float | None:
        v = self._link("current_link_speed")
        return float(v) if v is not None else None

    @property
    def max_link_speed(self) -> float | None:
        v = self._link("max_link_speed")
        return float(v) if v is not None else None

    @property
    def current_link_width(self) -> int | None:
        v = self._link("current_link_width")
        return int(v) if v is not None else None

    @property
    def max_link_width(self) -> int | None:
        v = self._link("max_link_width")
        return int(v) if v is not None else None


@dataclass(frozen=True)
class PcieFacts:
    """The functions the PCIe checks need: GPUs, NVSwitches, NICs and the bridges on their paths."""

    functions: tuple[PcieFunction, ...]
    source: str  # what the registers come from: "config space", "lspci", "config space + lspci", "none"
    topology_known: bool = True
    loose: tuple[PcieConfig, ...] = ()  # capability lines without a device (grepped pastes)
    aspm_policy: str | None = None  # /sys/module/pcie_aspm/parameters/policy, the [selected] word
    disagreements: tuple[str, ...] = ()  # config space and lspci disagreeing on the same register
    root: bool | None = None  # whether the source could read past the 64-byte header
    inventory_complete: bool = True  # False: a pasted lspci listing, which may show only some devices

    def by_bdf(self) -> dict[str, PcieFunction]:
        return {f.bdf: f for f in self.functions}

    def role(self, role: str) -> tuple[PcieFunction, ...]:
        return tuple(f for f in self.functions if f.role == role)

    @property
    def gpus(self) -> tuple[PcieFunction, ...]:
        return self.role("gpu")


def _lspci_role(dev: LspciDevice) -> str:
    return device_role(dev.vendor, dev.pci_class)


def _lspci_paths(out: LspciOutput) -> dict[str, tuple[str, ...]]:
    """Upstream bridges of every device from the bridges' `Bus: secondary=` lines (same PCI domain)."""
    by_secondary = {(d.bdf[:4], d.secondary_bus): d.bdf for d in out.devices if d.secondary_bus is not None}
    paths: dict[str, tuple[str, ...]] = {}
    for dev in out.devices:
        chain: list[str] = []
        cur = dev.bdf
        for _ in range(32):
            parent = by_secondary.get((cur[:4], int(cur[5:7], 16)))
            if parent is None or parent == cur or parent in chain:
                break
            chain.append(parent)
            cur = parent
        paths[dev.bdf] = tuple(reversed(chain))
    return paths


_TREE_DOMAIN = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{2})\]")
_TREE_BUS = re.compile(r"-\[([0-9a-fA-F]{2})(?:-[0-9a-fA-F]{2})?\]")
_TREE_DEV = re.compile(r"([0-9a-fA-F]{2})\.([0-7])")


def parse_lspci_tree(text: str) -> dict[str, tuple[str, ...]]:
    r"""Every function of `lspci -t` / `lspci -tv` with its upstream bridges, root first
    ({"0000:04:00.0": ("0000:00:01.1", "0000:03:00.0")}).

    The tree prints a bridge's secondary bus in brackets after it (`01.1-[02-05]--`); its children
    follow on the same line (`----00.0`, one child) or start branches at one column (`+-`, `\-`)
    that later lines continue. A column that opens branches keeps its bus until the tree ends.
    """
    bridge_of: dict[tuple[str, int], str] = {}  # (domain, bus) -> the bridge whose secondary bus it is
    bus_of: dict[str, tuple[str, int]] = {}
    branch_bus: dict[int, tuple[str, int]] = {}
    domain = "0000"
    for line in text.splitlines():
        pending: tuple[str, int] | None = None  # a bus just opened on this line, for the next child or branch
        current: tuple[str, int] | None = None
        i = 0
        while i < len(line):
            if (m := _TREE_DOMAIN.match(line, i)) is not None:
                domain = m.group(1).lower()
                pending = (domain, int(m.group(2), 16))
                i = m.end()
                continue
            ch = line[i]
            if ch in "+\\" and line[i + 1:i + 2] == "-":
                if pending is not None:
                    branch_bus[i] = pending
                    pending = None
                current = branch_bus.get(i)
                i += 2
                continue
            if (m := _TREE_DEV.match(line, i)) is not None and (pending is not None or current is not None):
                bus = pending if pending is not None else current
                assert bus is not None
                bdf = f"{bus[0]}:{bus[1]:02x}:{m.group(1).lower()}.{m.group(2)}"
                bus_of[bdf] = bus
                pending = current = None
                i = m.end()
                if (b := _TREE_BUS.match(line, i)) is not None:
                    secondary = (bus[0], int(b.group(1), 16))
                    bridge_of[secondary] = bdf
                    pending = secondary
                    i = b.end()
                    continue
                break_at = line.find("  ", i)
                if break_at >= 0 and line[break_at:].strip() and not line[break_at:].lstrip().startswith(("+", "\\")):
                    break  # the device's name (`-tv`) runs to the end of the line
                continue
            i += 1
    paths: dict[str, tuple[str, ...]] = {}
    for bdf, bus in bus_of.items():
        chain: list[str] = []
        cur = bus
        for _ in range(32):
            parent = bridge_of.get(cur)
            if parent is None or parent in chain:
                break
            chain.append(parent)
            cur = bus_of.get(parent, ("", -1))
        paths[bdf] = tuple(reversed(chain))
    if not paths:
        raise ParseError("no device in the `lspci -t` tree")
    return paths


def read_lspci_tree(host: Host) -> dict[str, tuple[str, ...]] | None:
    """The upstream bridges of every function, from a pasted `lspci -tv` / `lspci -t` tree (None: none)."""
    try:
        result = host.run(list(LSPCI_TREE.argv))
    except NotCaptured:
        return None
    try:
        return parse_lspci_tree(result.stdout) if result.ok else None
    except ParseError:
        return None


def read_lspci(host: Host) -> tuple[LspciOutput | None, str]:
    """`lspci -D -nn -vvv` from the source; (None, why) when absent."""
    if host.meta.source == "live" and host.meta.path not in ("", "/"):
        # --root: commands run on this machine, not on the mounted host; its lspci would describe the wrong box.
        return None, "lspci is not run for a host mounted under --root"
    try:
        result: CommandResult | None = host.run(list(LSPCI_ARGV))
    except NotCaptured:
        result = None
    if result is not None and host.provenance(LSPCI_VVV.key).origin != "pasted":
        # A host that runs lspci (live, or its snapshot): its own listing, nothing else.
        if result.not_found:
            return None, "lspci is not installed (package pciutils)"
        if not result.ok or not result.stdout.strip():
            return None, f"`lspci -vvv` failed: {(result.stderr or '').strip()[:200]}"
        texts = [result.stdout]
    else:
        # A paste: every listing it shows, whatever the flags (the parser merges a device shown twice).
        texts = [result.stdout] if result is not None and result.ok else []
        for source in LSPCI_PASTED:
            try:
                pasted = host.run(list(source.argv))
            except NotCaptured:
                continue
            if pasted.ok:
                texts.append(pasted.stdout)
        with contextlib.suppress(NotCaptured):
            texts.append(host.doc(IOMMU_GROUP_LISTING.name))
        if not texts:
            return None, "`lspci -vvv` is not in the source"
    try:
        return parse_lspci("\n\n".join(t.strip("\n") for t in texts) + "\n"), ""
    except ParseError as exc:
        return None, f"`lspci -vvv` output not understood: {exc}"


def _compare(bdf: str, a: PcieConfig, b: PcieConfig) -> list[str]:
    """Registers on which config space and lspci disagree (both read at almost the same time)."""
    out: list[str] = []
    if a.express and b.express:
        for name in ("devctl_mps", "devctl_mrrs", "devcap_mps", "lnkcap_width", "devctl_relaxed_ordering"):
            x, y = getattr(a.express, name), getattr(b.express, name)
            if x is not None and y is not None and x != y:
                out.append(f"{bdf} {name}: config space {x}, lspci {y}")
    if a.acs and b.acs and a.acs.ctl is not None and b.acs.ctl is not None and (a.acs.ctl & 0x7F) != (b.acs.ctl & 0x7F):
        out.append(f"{bdf} ACSCtl: config space {a.acs.ctl:#06x}, lspci {b.acs.ctl:#06x}")
    return out


def _read_config(host: Host, dev: PciDevice) -> tuple[PcieConfig | None, str]:
    path = f"{dev.sysfs_path or '/sys/bus/pci/devices/' + dev.bdf}/config"
    try:
        data = host.read_bytes(path, EXT_CONFIG_SIZE)
    except PermissionError:
        return None, "run as root (config space is not readable)"
    except NotCaptured:
        return None, "config space not in the source"
    except OSError as exc:
        return None, f"config space unreadable: {exc.strerror or exc}"
    try:
        cfg = parse_config(data)
    except ParseError as exc:
        return None, f"config space: {exc}"
    if not cfg.readable:
        return cfg, "run as root (without root the config file stops at the 64-byte header)"
    return cfg, ""


def _aspm_policy(host: Host) -> str | None:
    try:
        text = read_optional(host, ASPM_POLICY)
    except (PermissionError, NotCaptured):
        return None
    if not text:
        return None
    m = re.search(r"\[(\w+)\]", text)
    return m.group(1) if m else text.strip() or None


def _selected(devices: Iterable[tuple[str, str, tuple[str, ...]]]) -> set[str]:
    """BDFs the checks need: GPUs, NVSwitches, NICs and every bridge on their upstream paths."""
    keep: set[str] = set()
    for bdf, role, upstream in devices:
        if role in ("gpu", "nvswitch", "nic"):
            keep.add(bdf)
            keep.update(upstream)
    return keep


@provider("pcie", PcieFacts)
def pcie(ctx: FactContext) -> PcieFacts:
    """PCIe registers of GPUs, NVSwitches, NICs and their bridges (config space as root, else `lspci -vvv`)."""
    host = ctx.host
    pci = ctx.optional("pci", PciDevices)
    lspci, lspci_note = read_lspci(host)
    policy = _aspm_policy(host)
    if pci is None and lspci is None:
        if host.meta.source == "live":
            raise FactUnavailable(f"no PCI bus in /sys and {lspci_note}", "run on the host, not in a sandbox without /sys")
        raise NotCaptured("/sys/bus/pci/devices or `lspci -vvv`")
    by_lspci = lspci.by_bdf() if lspci is not None else {}
    functions: list[PcieFunction] = []
    disagreements: list[str] = []
    sources: set[str] = set()
    root: bool | None = None
    if pci is not None:
        keep = _selected((d.bdf, d.role, d.upstream) for d in pci.devices)
        for dev in pci.devices:
            if dev.bdf not in keep:
                continue
            cfg, note = _read_config(host, dev)
            ls = by_lspci.get(dev.bdf)
            if cfg is not None and cfg.readable:
                root = True
                sources.add("config space")
                if ls is not None and ls.config is not None and ls.config.readable:
                    disagreements.extend(_compare(dev.bdf, cfg, ls.config))
            elif ls is not None and ls.config is not None and ls.config.readable:
                cfg, note = ls.config, ""
                sources.add("lspci")
            else:
                if cfg is not None and not cfg.readable:
                    root = False if root is None else root
                if ls is not None and ls.config is not None and not ls.config.readable:
                    note = "run as root (lspci: <access denied>)"
                    cfg = cfg or ls.config
                note = note or lspci_note or "config space not in the source"
            functions.append(PcieFunction(dev.bdf, dev.role, dev, ls, cfg, note, dev.upstream))
        return PcieFacts(tuple(functions), " + ".join(sorted(sources)) or "none", True,
                         lspci.loose if lspci is not None else (), policy, tuple(disagreements), root)
    assert lspci is not None
    paths = _lspci_paths(lspci)
    tree = read_lspci_tree(host) if not lspci.topology_known else None
    if tree is not None and all(d.bdf in tree for d in lspci.devices):
        # Without `Bus:` lines, a pasted `lspci -tv` of the same host gives every device's upstream path.
        paths = {d.bdf: tree[d.bdf] for d in lspci.devices}
        lspci = replace(lspci, topology_known=True)
    roles = {d.bdf: _lspci_role(d) for d in lspci.devices}
    keep = _selected((d.bdf, roles[d.bdf], paths[d.bdf]) for d in lspci.devices)
    if not lspci.topology_known:
        # Without `Bus:` lines the path is unknown: keep every bridge, the ACS check counts them.
        keep.update(b for b, r in roles.items() if r == "bridge")
    for ldev in lspci.devices:
        if ldev.bdf not in keep:
            continue
        note = ""
        if ldev.config is None:
            note = "the pasted lspci output has no capability lines for this device (paste `sudo lspci -vvv`)"
        elif not ldev.config.readable:
            note = "run as root (lspci: <access denied>)"
            root = False
        else:
            root = True
        functions.append(PcieFunction(ldev.bdf, roles[ldev.bdf], None, ldev, ldev.config, note, paths[ldev.bdf]))
    return PcieFacts(tuple(functions), "lspci", lspci.topology_known, lspci.loose, policy, (), root,
                     inventory_complete=False)


def gpu_generation(speed: float | None) -> int | None:
    """PCIe generation of a link speed in GT/s (16.0 -> 4)."""
    return gen_of(speed)


def bridges_between(gpus: Iterable[PcieFunction]) -> dict[str, set[str]]:
    """Bridges that PCIe P2P between each pair of GPUs crosses below their common ancestor: {bridge: GPUs}."""
    gpu_list = [g for g in gpus if g.upstream]
    out: dict[str, set[str]] = {}
    for i, a in enumerate(gpu_list):
        for b in gpu_list[i + 1:]:
            common = 0
            for x, y in zip(a.upstream, b.upstream, strict=False):
                if x != y:
                    break
                common += 1
            for g in (a, b):
                for bridge in g.upstream[common:]:
                    out.setdefault(bridge, set()).update({a.bdf, b.bdf})
    return out


def describe_speed(speed: float | None, width: int | None) -> str:
    gen = gen_of(speed)
    s = f"Gen{gen}" if gen else ("?" if speed is None else f"{speed:g} GT/s")
    return f"{s} x{width}" if width is not None else s
