"""PCI Express capability registers from binary config space (sysfs `config`): the register
constants, the typed capabilities and `parse_config`.


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

import struct
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError

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
    # The source shows the extended capabilities (config space past 256 bytes, or lspci -vvv).
    extended: bool = True


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
        return PcieConfig(readable=False, complete=False, extended=False, **base)  # type: ignore[arg-type]
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
    return PcieConfig(readable=True, complete=complete, capability_ids=tuple(cap_ids),
                      ext_capability_ids=tuple(ext_ids), express=express, acs=acs, rebar=rebar, aer=aer,
                      problems=tuple(problems), extended=len(data) > CONFIG_SIZE, **base)  # type: ignore[arg-type]
