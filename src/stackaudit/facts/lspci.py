"""`lspci` text into the typed registers of facts/pcie_config.py: `lspci -vvv`/`-vv`/`-nn` listings
(`parse_lspci`) and the `lspci -t` bus tree, whole or an excerpt (`tree_entries`, `parse_lspci_tree`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from stackaudit.facts._parse import ParseError, parse_size_bytes
from stackaudit.facts.pci import NVIDIA_VENDOR, Bar
from stackaudit.facts.pcie_config import (
    ACS_BITS,
    CAP_ID_EXP,
    CONFIG_SIZE,
    EXT_CAP_ACS,
    EXT_CAP_AER,
    EXT_CAP_REBAR,
    AcsCap,
    AerStatus,
    ExpressCap,
    PcieConfig,
    RebarEntry,
)
from stackaudit.pci_address import BDF_OPTIONAL_DOMAIN, normalize_bdf

# lspci's names for the PCIe port types (ls-caps.c cap_express).
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


LSPCI_HEADER = re.compile(rf"^\s*({BDF_OPTIONAL_DOMAIN})\s+([^:\[\]]+?)(?:\s+\[([0-9a-fA-F]{{4}})\])?:\s+(.*)$")
# A display device's header pasted without its bus address (`VGA compatible controller: NVIDIA Corporation Device 2684
# (rev a1) (prog-if 00 [VGA controller])`, the user's cut: corpus 1552), read only where lspci's indented detail lines
# follow it (UNADDRESSED_DETAIL). Its groups are LSPCI_HEADER's, the address empty.
UNADDRESSED_HEADER = re.compile(r"^()(VGA compatible controller|3D controller|Display controller)"
                                r"(?:\s+\[([0-9a-fA-F]{4})\])?:\s+(.*)$")
# The first line of a device's details as `lspci -v`/`-vv` print them (ls-kernel.c, lspci.c show_verbose).
UNADDRESSED_DETAIL = re.compile(r"^(?:\t|\s{2,})(?:Subsystem|Flags|Control|Physical Slot|DeviceName|Device tree node):\s")
# What an unaddressed device is keyed by, in the order the paste shows them (there is no address to key it by).
UNADDRESSED_KEY = "device {n} (its address not shown)"
_IDS = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\](?!.*\[[0-9a-fA-F]{4}:[0-9a-fA-F]{4}\])")
_KEY = re.compile(r"^([A-Za-z][\w/-]*):\s*(.*)$")
_FLAG = re.compile(r"([A-Za-z0-9][\w/]*?)([+-])(?=[\s,]|$)")
_CAP_LINE = re.compile(r"^Capabilities:\s*\[([0-9a-fA-F]+)(?:\s+v(\d+))?\]\s*(.*)$")
_REGION = re.compile(r"^(Region\s+(\d+)|Expansion ROM):\s+(Memory|I/O ports) at\s+(<unassigned>|<ignored>|[0-9a-fA-F]+)"
                     r"(?:\s+\(([^)]*)\))?(.*)$")
# `lspci -v` (one -v) prints the regions without their index: `Memory at 1ac0000000 (64-bit, prefetchable) [size=256M]`.
_REGION_V = re.compile(r"^()()(Memory|I/O ports) at\s+(<unassigned>|<ignored>|[0-9a-fA-F]+)(?:\s+\(([^)]*)\))?(.*)$")
_REBAR_LINE = re.compile(r"^BAR\s+(\d+):\s+current size:\s*(\S+?)(?:,\s*supported:\s*(.*))?$")
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


@dataclass(frozen=True)
class ListingHeading:
    """A report script's heading over the grepped `lspci -vvv -s BDF` lines of one device: it names the device.

    Grepped register lines carry no device header (they would be `loose`); the heading that the script prints
    above them says which function they are, so they are read as that device's.
    """

    pattern: re.Pattern[str]  # group 1: the device's address
    header: str  # the device header the heading stands for, after the address (`lspci` class and vendor words)
    source: str


_CLUB3090_REPORT = "https://github.com/noonghunna/club-3090/blob/master/scripts/report.sh"
# club-3090's rig report (`dump_func`) prints `# lspci -vvv -s SLOT  (LABEL: LnkCap/LnkSta/ACSCap/ACSCtl)` over the
# grepped LnkCap/LnkSta/ACSCap/ACSCtl lines of each NVIDIA VGA or 3D controller function (its SLOTs are the lines of
# `lspci -D | grep -iE 'VGA compatible controller.*NVIDIA|3D controller.*NVIDIA'`), then over its sysfs parent's.
LISTING_HEADINGS = (
    ListingHeading(re.compile(rf"^(?:#\s*)?lspci -vvv -s ({BDF_OPTIONAL_DOMAIN})\s+\(GPU function:"),
                   "VGA compatible controller: NVIDIA Corporation (a GPU function, per the report's heading)",
                   _CLUB3090_REPORT),
    ListingHeading(re.compile(rf"^(?:#\s*)?lspci -vvv -s ({BDF_OPTIONAL_DOMAIN})\s+\(upstream bridge of {BDF_OPTIONAL_DOMAIN}:"),
                   "PCI bridge: the bridge above a GPU (per the report's heading)", _CLUB3090_REPORT),
)


def listing_heading(line: str) -> re.Match[str] | None:
    """The LISTING_HEADINGS match of a line (its group 1: the device's address), or None."""
    if "lspci -vvv -s" not in line[:16]:
        return None  # one cheap test: the heading starts with the command (a pasted view drops its `# `)
    return next((m for row in LISTING_HEADINGS if (m := row.pattern.match(line))), None)


def _headed_device(lines: list[str], i: int) -> tuple[LspciDevice, int] | None:
    """The device a LISTING_HEADINGS heading at line i names, with its register lines below; (device, next line)."""
    m = listing_heading(lines[i])
    if m is None:
        return None
    row = next(r for r in LISTING_HEADINGS if r.pattern is m.re)
    j = i + 1
    while j < len(lines) and lines[j].strip() and lines[j][:1] in ("\t", " ") and not LSPCI_HEADER.match(lines[j]):
        j += 1
    header = LSPCI_HEADER.match(f"{m.group(1)} {row.header}")
    return (_device_from(header, lines[i + 1:j], False), j) if header else None


_REV_FF = re.compile(r"\(rev ff\)", re.IGNORECASE)


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
    def reads_all_ones(self) -> bool:
        """lspci printed the function's Revision ID as `ff`: the all-ones value a config read returns from a device
        that no longer answers on the bus (a GPU that fell off it); a live NVIDIA GPU reports its stepping (`a1`)."""
        return bool(_REV_FF.search(self.description))

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
        self.acs: dict[str, int | None] = {}
        self.rebar: list[RebarEntry] = []
        self.has_rebar = False
        self.aer: dict[str, tuple[str, ...]] = {}
        self.section = ""

    def capability(self, offset: int, version: str | None, text: str) -> None:
        self.cap_lines += 1
        self.section = ""
        extended = version is not None or offset >= CONFIG_SIZE
        if text.startswith("Express"):
            self.ids.append(CAP_ID_EXP)
            m = re.match(r"Express \(v(\d+)\)\s+(.*?)(?:,|$)", text)
            if m:
                self.exp["version"] = int(m.group(1))
                self.exp["port_type"] = next((t for name, t in _LSPCI_PORT_TYPES if m.group(2).startswith(name)), "other")
            self.exp["offset"] = offset
        elif extended:
            if "Access Control Services" in text:
                self.ext_ids.append(EXT_CAP_ACS)
                self.acs["offset"] = offset
            elif text.startswith(("Physical Resizable BAR", "Resizable BAR")):
                self.ext_ids.append(EXT_CAP_REBAR)
                self.has_rebar = True
            elif "Advanced Error Reporting" in text:
                self.ext_ids.append(EXT_CAP_AER)

    def detail(self, line: str) -> None:
        m = _REBAR_LINE.match(line)
        if m and (self.has_rebar or not self.cap_lines):
            self.has_rebar = True
            current = parse_size_bytes(m.group(2))
            sizes = tuple(s >> 20 for s in (parse_size_bytes(w) for w in (m.group(3) or "").split()) if s)
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
            return PcieConfig(readable=False, complete=False)
        if not self.cap_lines and not self.detail_lines and not self.has_rebar:
            return None
        express = ExpressCap(**self.exp) if self.exp else None  # type: ignore[arg-type]
        acs = None
        if self.acs:
            acs = AcsCap(self.acs.get("offset"), self.acs.get("cap"), self.acs.get("ctl"))
        aer = AerStatus(self.aer.get("UESta", ()), self.aer.get("CESta", ())) if self.aer else None
        rebar = tuple(self.rebar) if self.has_rebar else None
        # Without capability headers (grepped lines) nothing says which capabilities are absent.
        return PcieConfig(readable=True, complete=complete and self.cap_lines > 0,
                          capability_ids=tuple(self.ids), ext_capability_ids=tuple(self.ext_ids), express=express,
                          acs=acs, rebar=rebar, aer=aer)


def stops_before_link_status(filled: Sequence[str]) -> bool:
    """Whether a verbose (`-vv`) block's lines stop before its Express capability's LnkSta.

    lspci prints LnkCap, LnkCtl and LnkSta for every function with a link (ls-caps.c; a Root Complex Integrated
    Endpoint has none), after the capabilities before it, so a `-vv` block that has not reached them was cut, whatever
    its last line looks like. A `-v` block prints no registers under its capability headers and is not judged here.
    """
    caps = [i for i, line in enumerate(filled) if line.startswith("Capabilities:")]
    verbose = any(i + 1 < len(filled) and not filled[i + 1].startswith("Capabilities:") and _KEY.match(filled[i + 1])
                  for i in caps)
    if not verbose:
        return False
    express = next((i for i in caps if "Express" in filled[i]), None)
    if express is None:
        return True  # cut before the Express capability
    if "Integrated Endpoint" in filled[express]:
        return False
    return not any(line.startswith("LnkSta:") for line in filled[express + 1:])


def _parse_bar(m: re.Match[str]) -> Bar:
    index = int(m.group(2)) if m.group(2) else 6
    addr_text, attrs, rest = m.group(4), m.group(5) or "", m.group(6) or ""
    size_m = re.search(r"\[size=([^\]]+)\]", rest)
    unassigned = addr_text.startswith("<") or "[disabled]" in rest
    return Bar(index=index, start=None if addr_text.startswith("<") else int(addr_text, 16),
               size=parse_size_bytes(size_m.group(1)) if size_m else None, is_io=m.group(3) == "I/O ports",
               is_64bit="64-bit" in attrs, prefetchable="non-prefetchable" not in attrs and "prefetchable" in attrs,
               unassigned=unassigned)


_UNNAMED_DEVICE = re.compile(r"\bDevice ([0-9a-fA-F]{4})\b")
# A row of `lspci -n` (no names): its class code, then the vendor and device ids and the rest (`0302: 10de:20b0 (rev a1)`).
_NUMERIC_ROW = re.compile(r"^([0-9a-fA-F]{4}): ([0-9a-fA-F]{4}):([0-9a-fA-F]{4})(\s.*)?$")


def unaddressed_header(lines: Sequence[str], i: int, alone: bool = False) -> re.Match[str] | None:
    """The UNADDRESSED_HEADER match of line i where lspci's detail lines follow it, else None. `alone`: in lspci's
    own output (a grep of it under its command, importers/lspci.py), a header on a line of its own is one too."""
    if "ontroller: " not in lines[i]:
        return None
    stands = alone and (i + 1 >= len(lines) or not lines[i + 1].strip()) and (i == 0 or not lines[i - 1].strip())
    if not stands and (i + 1 >= len(lines) or not UNADDRESSED_DETAIL.match(lines[i + 1])):
        return None
    return UNADDRESSED_HEADER.match(lines[i])


def _device_from(header: re.Match[str], body: list[str], complete: bool, key: str = "") -> LspciDevice:
    bdf = normalize_bdf(header.group(1)) or key
    class_name = header.group(2).strip()
    code = header.group(3)
    description = header.group(4).strip()
    if numeric := _NUMERIC_ROW.match(f"{class_name}: {description}"):
        # `lspci -n` prints the class code and the vendor:device ids alone: `00:04.0 0302: 10de:20b0 (rev a1)`.
        code, description = numeric.group(1), f"[{numeric.group(2)}:{numeric.group(3)}]{numeric.group(4) or ''}"
    pci_class = f"0x{code.lower()}" if code else _CLASS_NAMES.get(class_name.lower(), "")
    ids = _IDS.search(description)
    vendor = f"0x{ids.group(1).lower()}" if ids else next((v for n, v in _VENDOR_NAMES if description.startswith(n)), "")
    # Without -nn, a device pci.ids does not name yet is printed by its id: `NVIDIA Corporation Device 1b06`.
    unnamed = None if ids else _UNNAMED_DEVICE.search(description)
    device = f"0x{ids.group(2).lower()}" if ids else f"0x{unnamed.group(1).lower()}" if unnamed and vendor else ""
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
        elif line.startswith("Flags:"):
            # `lspci -v` (one -v) puts both on its Flags line: `Flags: bus master, ..., NUMA node 1, IOMMU group 7`.
            if m := _FLAGS_NUMA.search(line):
                numa = int(m.group(1))
            if m := _FLAGS_IOMMU_GROUP.search(line):
                group = int(m.group(1))
        elif line.startswith("Kernel driver in use:") and (m := _DRIVER_LINE.match(line)):
            driver = m.group(1)
        elif line.startswith("Bus:") and (m := _BUS_LINE.match(line)):
            primary, secondary = int(m.group(1), 16), int(m.group(2), 16)
        elif m := _REGION.match(line):
            bars.append(_parse_bar(m))
        elif m := _REGION_V.match(line):
            # lspci prints the regions a device has in order, a 64-bit one taking two indices: the next index follows.
            last = next((b for b in reversed(bars) if b.index < 6), None)
            bars.append(replace(_parse_bar(m), index=0 if last is None else last.index + (2 if last.is_64bit else 1)))
        else:
            state.detail(line)
    return LspciDevice(bdf, class_name, pci_class, vendor, device, description, numa, group, driver, tuple(bars),
                       primary, secondary, state.build(complete))


_NUMA_LINE = re.compile(r"^NUMA node:\s*(-?\d+)")
_IOMMU_GROUP_LINE = re.compile(r"^IOMMU group:\s*(\d+)")
_FLAGS_NUMA = re.compile(r"\bNUMA node (-?\d+)")
_FLAGS_IOMMU_GROUP = re.compile(r"\bIOMMU group (\d+)")
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
    configs, one per ACSCtl/LnkSta line; under a report's heading that names their device
    (LISTING_HEADINGS) they are that device's. Raises ParseError when nothing lspci-like is found.
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
        if headed := _headed_device(lines, i):
            dev, i = headed
            devices[dev.bdf] = _merge(devices[dev.bdf], dev) if dev.bdf in devices else dev
            continue
        header = LSPCI_HEADER.match(lines[i])
        bare = unaddressed_header(lines, i, alone=True) if header is None else None
        header = header or bare
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
                     or (bool(_KEY.match(last) or _FLAG.search(last) or _REBAR_LINE.match(last))
                         and not stops_before_link_status(filled)))
            unaddressed = UNADDRESSED_KEY.format(n=1 + sum(1 for d in devices if not normalize_bdf(d))) if bare else ""
            dev = _device_from(header, body, whole, unaddressed)
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


# -- lspci -t: the bus tree ------------------------------------------------------------------------

_TREE_DOMAIN = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{2})\]")
_TREE_BUS = re.compile(r"-\[([0-9a-fA-F]{2})(?:-[0-9a-fA-F]{2})?\]")
_TREE_DEV = re.compile(r"([0-9a-fA-F]{2})\.([0-7])")
# What a tree line is read up to: a line of a real tree is a few hundred characters; a longer one is cut there.
TREE_LINE_CAP = 4096
# A function on a bus whose number an excerpt cut off (its opening line is above the paste): keyed by its slot and the
# bus it shares with the other entries of its column, numbered in the order the excerpt shows them.
UNNUMBERED_KEY = "function {slot} on bus #{n} (its number is cut off)"
# The role of a function by the name `lspci -tv` prints for it (the tree prints no class), first match wins: the
# class code that role's devices carry (facts/pci.py device_role). NVIDIA's other functions (HDMI audio, USB, UCSI)
# are none of the roles; its switches are named NVSwitch; an unnamed NVIDIA device (`Device 20b2`) is taken as a GPU.
TREE_NAME_CLASSES = (
    (re.compile(r"Audio|USB|UCSI|Serial bus|SMBus|SATA|NVMe|Management Interface", re.IGNORECASE), ""),
    (re.compile(r"^NVIDIA Corporation .*NVSwitch"), "0x0680"),
    (re.compile(r"^NVIDIA Corporation "), "0x0302"),
    (re.compile(r"Infiniband|InfiniBand|ConnectX|BlueField|MT2\d{4} Family"), "0x0207"),
    (re.compile(r"Ethernet|NetXtreme"), "0x0200"),
)


@dataclass(frozen=True)
class TreeEntry:
    """One function of an `lspci -t` / `lspci -tv` tree, as the tree shows it."""

    key: str  # its address (`0000:5c:00.0`) where the tree settles its bus, else UNNUMBERED_KEY
    slot: str  # device and function (`08.0`)
    bus: str  # `0000:5c`, or `#1` for a bus whose number is cut off (the entries of one column share it)
    name: str  # what `-tv` prints after it ("" under `-t`, or for a bridge whose children follow on its line)
    parent: str | None  # the key of the bridge above it; None at a root bus or where the excerpt starts
    bridge: bool  # the tree prints a secondary bus after it (`08.0-[5c-5f]`)

    @property
    def numbered(self) -> bool:
        return not self.bus.startswith("#")


def tree_entries(text: str) -> tuple[TreeEntry, ...]:
    r"""Every function of an `lspci -t` / `lspci -tv` tree, whole or an excerpt cut above its root.

    The tree prints a bridge's secondary bus in brackets after it (`01.1-[02-05]--`); its children
    follow on the same line (`----00.0`, one child) or start branches at one column (`+-`, `\-`)
    that later lines continue. A column that opens branches keeps its bus until the tree ends.
    A column whose opening line is not in the paste (an excerpt) is one bus whose number is not shown:
    its entries are keyed UNNUMBERED_KEY, and only a bracket after one of them numbers the buses below.
    A blank line ends a tree: the columns after it start over. The domain is the last root line's (`[0000:40]`),
    0000 before any.
    """
    entries: dict[str, TreeEntry] = {}
    bridge_of: dict[str, str] = {}  # bus -> the key of the bridge whose secondary bus it is
    branch_bus: dict[int, str] = {}
    unnumbered = 0
    domain = "0000"
    for line in text.splitlines():
        line = line[:TREE_LINE_CAP]
        if not line.strip():
            branch_bus = {}  # a tree has no blank line: what follows is another tree or excerpt
            continue
        pending: str | None = None  # a bus just opened on this line, for the next child or branch
        current: str | None = None
        i = 0
        while i < len(line):
            if (m := _TREE_DOMAIN.match(line, i)) is not None:
                domain = m.group(1).lower()
                pending = f"{domain}:{m.group(2).lower()}"
                i = m.end()
                continue
            ch = line[i]
            if ch in "+\\" and line[i + 1:i + 2] == "-":
                if pending is not None:
                    branch_bus[i] = pending
                    pending = None
                elif i not in branch_bus and _TREE_DEV.match(line, i + 2):
                    unnumbered += 1  # an excerpt's column whose opening line is cut off
                    branch_bus[i] = f"#{unnumbered}"
                current = branch_bus.get(i)
                i += 2
                continue
            if (m := _TREE_DEV.match(line, i)) is not None and (pending is not None or current is not None):
                bus = pending if pending is not None else current
                assert bus is not None
                slot = f"{m.group(1).lower()}.{m.group(2)}"
                key = f"{bus}:{slot}" if not bus.startswith("#") else UNNUMBERED_KEY.format(slot=slot, n=bus[1:])
                pending = current = None
                i = m.end()
                b = _TREE_BUS.match(line, i)
                name = ""
                rest = line[i:]
                if b is None and rest[:1].isspace() and rest.strip() and not rest.lstrip().startswith(("+", "\\", "|")):
                    name = rest.strip()  # the device's name (`-tv`) runs to the end of the line
                entries[key] = TreeEntry(key, slot, bus, name, bridge_of.get(bus), b is not None)
                if b is not None:
                    secondary = f"{bus.split(':')[0] if ':' in bus else domain}:{b.group(1).lower()}"
                    bridge_of[secondary] = key
                    pending = secondary
                    i = b.end()
                    continue
                if name:
                    break
                continue
            i += 1
    return tuple(entries.values())


def tree_paths(entries: Sequence[TreeEntry]) -> dict[str, tuple[tuple[str, ...], bool]]:
    """Each function's bridges above it as the tree shows them, top first, and whether they reach a root bus
    (False where the top one sits on a bus whose number an excerpt cut off: the path above it is not shown)."""
    by_key = {e.key: e for e in entries}
    out: dict[str, tuple[tuple[str, ...], bool]] = {}
    for entry in entries:
        chain: list[str] = []
        cur: TreeEntry | None = entry
        for _ in range(32):
            parent = cur.parent if cur is not None else None
            if parent is None or parent in chain:
                break
            chain.append(parent)
            cur = by_key.get(parent)
        out[entry.key] = (tuple(reversed(chain)), cur is not None and cur.numbered)
    return out


def parse_lspci_tree(text: str) -> dict[str, tuple[str, ...]]:
    r"""Every function of `lspci -t` / `lspci -tv` that the tree places below a root bus, with its upstream bridges,
    root first ({"0000:04:00.0": ("0000:00:01.1", "0000:03:00.0")}); tree_entries reads the tree.

    A function below a bus whose number an excerpt cut off is left out: its path from the root is not shown.
    """
    paths = {key: chain for key, (chain, rooted) in tree_paths(tree_entries(text)).items() if rooted}
    if not paths:
        raise ParseError("no device in the `lspci -t` tree")
    return paths


def tree_devices(entries: Sequence[TreeEntry]) -> tuple[LspciDevice, ...]:
    """The functions of a tree as lspci devices without registers, keyed as the tree keys them (TreeEntry.key).

    A bridge is one because the tree prints its secondary bus; any other function's class and vendor are read from
    the name `-tv` prints (TREE_NAME_CLASSES, the vendor names lspci prints); `-t` prints no name, so its leaves
    keep no class.
    """
    out: list[LspciDevice] = []
    for e in entries:
        vendor = next((v for n, v in _VENDOR_NAMES if e.name.startswith(n)), "")
        pci_class = "0x0604" if e.bridge else next((c for p, c in TREE_NAME_CLASSES if p.search(e.name)), "")
        out.append(LspciDevice(e.key, "", f"{pci_class}00" if pci_class else "", vendor, "", e.name))
    return tuple(out)
