"""The `pcie` fact: GPUs, NVSwitches, NICs and the bridges on their paths, with their registers.

Declared `merge_by("bdf")` over two alternatives, best first: sysfs with each function's config space
as root (facts/pcie_config.py), then `lspci -vvv` (facts/lspci.py). A register view config space
cannot read (no root) is taken from lspci; where both read a register and disagree, config space wins
and the difference is kept in `conflicts`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from stackaudit.facts._parse import ParseError
from stackaudit.facts.lspci import (
    LspciDevice,
    LspciOutput,
    parse_lspci,
    parse_lspci_tree,
    tree_devices,
    tree_entries,
    tree_paths,
)
from stackaudit.facts.pci import Bar, PciDevice, PciDevices, device_role, gen_of
from stackaudit.facts.pcie_config import EXT_CONFIG_SIZE, AcsCap, ExpressCap, PcieConfig, parse_config
from stackaudit.facts.registry import (
    FactContext,
    FactUnavailable,
    Sourced,
    differs,
    fact,
    merge_by,
    merged_field,
    provider,
)
from stackaudit.facts.sources import IOMMU_GROUP_LISTING, LSPCI_PASTED, LSPCI_TREE, LSPCI_VVV
from stackaudit.host.base import CommandResult, Host, NotCaptured, read_optional

LSPCI_ARGV = LSPCI_VVV.argv
ASPM_POLICY = "/sys/module/pcie_aspm/parameters/policy"


def register_differences(a: PcieConfig, b: PcieConfig) -> list[tuple[str, str, str]]:
    """Registers on which two readings of one function disagree (config space and lspci, read at almost
    the same time): `(register, kept, other)`."""
    out: list[tuple[str, str, str]] = []
    if a.express and b.express:
        for name in ("devctl_mps", "devctl_mrrs", "devcap_mps", "lnkcap_width", "devctl_relaxed_ordering"):
            x, y = getattr(a.express, name), getattr(b.express, name)
            if x is not None and y is not None and x != y:
                out.append((name, str(x), str(y)))
    if a.acs and b.acs and a.acs.ctl is not None and b.acs.ctl is not None and (a.acs.ctl & 0x7F) != (b.acs.ctl & 0x7F):
        out.append(("ACSCtl", f"{a.acs.ctl:#06x}", f"{b.acs.ctl:#06x}"))
    return out


@dataclass(frozen=True)
class PcieFunction:
    """One PCI function the PCIe checks look at: sysfs (when the source has it), lspci, and registers."""

    bdf: str
    role: str  # gpu | nvswitch | nic | bridge | other
    sysfs: PciDevice | None = None
    lspci: LspciDevice | None = None
    # The readable registers: config space as root, else lspci's; None when no source could read them.
    config: PcieConfig | None = differs(register_differences)
    note: str = ""  # why the registers are unreadable ("run as root", "not in the source")
    upstream: tuple[str, ...] = ()  # bridges from the root port down to this function's parent

    @property
    def config_note(self) -> str:
        """Why the registers are unreadable; "" when a source read them."""
        return "" if self.registers_readable else self.note

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
    def acs(self) -> AcsCap | None:
        return self.config.acs if self.config is not None else None

    @property
    def acs_unread(self) -> bool:
        """Whether the ACS control word is not known: no readable registers, a cut read, or the capability alone."""
        return (not self.registers_readable or (self.acs is not None and self.acs.ctl is None)
                or (self.config is not None and self.acs is None and not self.config.complete))

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
class PcieFacts(Sourced):
    """The functions the PCIe checks need: GPUs, NVSwitches, NICs and the bridges on their paths."""

    functions: tuple[PcieFunction, ...]
    topology_known: bool = True
    loose: tuple[PcieConfig, ...] = merged_field()  # capability lines without a device (grepped pastes)
    aspm_policy: str | None = None  # /sys/module/pcie_aspm/parameters/policy, the [selected] word
    conflicts: tuple[tuple[str, str, str, str], ...] = ()  # (bdf, register, config space, lspci)
    root: bool | None = None  # whether config space could be read past the 64-byte header
    inventory_complete: bool = True  # False: a pasted lspci listing, which may show only some devices

    def by_bdf(self) -> dict[str, PcieFunction]:
        return {f.bdf: f for f in self.functions}

    def path_mps(self, fn: PcieFunction) -> int | None:
        """The largest MaxPayload its whole path supports: the least DevCap MPS of the function and of every port
        above it; None where one of them is not in the source."""
        by_bdf = self.by_bdf()
        ends = [fn, *(by_bdf.get(b) for b in fn.upstream)]
        caps = [f.express.devcap_mps if f is not None and f.express is not None else None for f in ends]
        return None if None in caps else min(c for c in caps if c is not None)

    def role(self, role: str) -> tuple[PcieFunction, ...]:
        return tuple(f for f in self.functions if f.role == role)

    @property
    def gpus(self) -> tuple[PcieFunction, ...]:
        return self.role("gpu")

    def p2p_bridges(self) -> list[PcieFunction] | None:
        """The bridges shown that PCIe P2P between two GPUs crosses below their common ancestor; every bridge where
        the bus topology is not known; None where it is known and no GPU's upstream bridge is in the source."""
        if not (self.topology_known and self.gpus):
            return [f for f in self.functions if f.role == "bridge"]
        gpus = [g for g in self.gpus if g.upstream]
        between: dict[str, None] = {}
        for i, a in enumerate(gpus):
            for b in gpus[i + 1:]:
                common = 0
                for x, y in zip(a.upstream, b.upstream, strict=False):
                    if x != y:
                        break
                    common += 1
                for g in (a, b):
                    between.update(dict.fromkeys(g.upstream[common:]))
        by_bdf = self.by_bdf()
        return [by_bdf[b] for b in between if b in by_bdf] if between else None


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


TREE_NOTE = "a `lspci -tv` tree shows no registers"


def _tree_only(host: Host) -> PcieFacts | None:
    """The GPUs, NVSwitches and NICs of a pasted `lspci -tv` / `lspci -t` tree alone (no listing), none with
    registers (TREE_NOTE), each with its path where the tree shows it from a root bus, and the bridges on those paths.

    A tree excerpt cut above its root (facts/lspci.py tree_entries) keys a function on a bus whose number is cut off
    by its slot and that bus. Below such a bus a function's path from the root is not shown: it keeps no upstream
    path, the bridges the excerpt shows above it are kept, and the topology is known only where no bus is cut off. A pasted
    tree may be an excerpt: the inventory is not taken as complete. None where no tree is in the source or it shows no
    GPU.
    """
    try:
        result = host.run(list(LSPCI_TREE.argv))
    except NotCaptured:
        return None
    entries = tree_entries(result.stdout) if result.ok else ()
    if not entries:
        return None
    paths = tree_paths(entries)
    devices = tree_devices(entries)
    roles = {d.bdf: _lspci_role(d) for d in devices}
    if "gpu" not in roles.values():
        return None  # `-t` names no device, and a tree may be an excerpt: no GPU shown is no GPU absent
    keep = _selected((d.bdf, roles[d.bdf], paths[d.bdf][0]) for d in devices)
    functions = tuple(PcieFunction(d.bdf, roles[d.bdf], None, d, None, TREE_NOTE,
                                   paths[d.bdf][0] if paths[d.bdf][1] else ())
                      for d in devices if d.bdf in keep)
    whole = all(e.numbered for e in entries)
    return PcieFacts(functions, whole, aspm_policy=_aspm_policy(host), inventory_complete=False)


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


fact("pcie", PcieFacts, merge_by("bdf", "functions"), hint="paste `sudo lspci -vvv`")


@provider("pcie", PcieFacts, rank=10, title="config space as root")
def pcie_from_config_space(ctx: FactContext) -> PcieFacts:
    """PCIe registers of GPUs, NVSwitches, NICs and their bridges from sysfs and config space (as root)."""
    host = ctx.host
    pci = ctx.optional("pci", PciDevices)
    if pci is None:
        if host.meta.source == "live":
            raise FactUnavailable("no PCI bus in /sys", "run on the host, not in a sandbox without /sys")
        raise NotCaptured("/sys/bus/pci/devices")
    functions: list[PcieFunction] = []
    root: bool | None = None
    keep = _selected((d.bdf, d.role, d.upstream) for d in pci.devices)
    for dev in pci.devices:
        if dev.bdf not in keep:
            continue
        cfg, note = _read_config(host, dev)
        if cfg is not None:
            root = cfg.readable if root is None else root or cfg.readable
        readable = cfg if cfg is not None and cfg.readable else None
        functions.append(PcieFunction(dev.bdf, dev.role, dev, None, readable, note, dev.upstream))
    return PcieFacts(tuple(functions), True, aspm_policy=_aspm_policy(host), root=root)


@provider("pcie", PcieFacts, rank=20, title=LSPCI_VVV.title, hint=LSPCI_VVV.hint)
def pcie_from_lspci(ctx: FactContext) -> PcieFacts:
    """PCIe registers of GPUs, NVSwitches, NICs and their bridges from `lspci -vvv` (with `lspci -tv`)."""
    host = ctx.host
    lspci, lspci_note = read_lspci(host)
    if lspci is None and "not in the source" in lspci_note and (tree_only := _tree_only(host)) is not None:
        return tree_only
    if lspci is None:
        if "not in the source" in lspci_note:
            raise NotCaptured(LSPCI_VVV.title)
        raise FactUnavailable(lspci_note, LSPCI_VVV.hint)
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
    functions: list[PcieFunction] = []
    root: bool | None = None
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
        readable = ldev.config if ldev.config is not None and ldev.config.readable else None
        functions.append(PcieFunction(ldev.bdf, roles[ldev.bdf], None, ldev, readable, note, paths[ldev.bdf]))
    return PcieFacts(tuple(functions), lspci.topology_known, lspci.loose, _aspm_policy(host), root=root,
                     inventory_complete=False)


def describe_speed(speed: float | None, width: int | None) -> str:
    gen = gen_of(speed)
    s = f"Gen{gen}" if gen else ("?" if speed is None else f"{speed:g} GT/s")
    return f"{s} x{width}" if width is not None else s
