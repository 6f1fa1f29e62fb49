"""PCI devices from sysfs: the GPUs, NVSwitches and NICs, the bridges on their paths, their links.

Every device's vendor and class are read (cheap); the details (IOMMU group, NUMA node, driver,
link speed/width, AER counters, BAR resources) only for NVIDIA functions, NICs and the bridges
between them and their root ports. Each device is read through its resolved real path
(`/sys/devices/pci0000:00/.../0000:41:00.0`), never beneath the `/sys/bus/pci/devices` symlink,
so a snapshot holds one consistent copy. Attribute names: Documentation/ABI/testing/
sysfs-bus-pci (current_link_speed, max_link_speed, current_link_width, max_link_width,
numa_node, resource) and sysfs-bus-pci-devices-aer_stats (aer_dev_correctable, aer_dev_fatal,
aer_dev_nonfatal).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from stackaudit.facts._parse import whole_int
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.host.base import Host, NotCaptured, list_or_none, read_optional
from stackaudit.pci_address import is_bdf

NVIDIA_VENDOR = "0x10de"
PCI_DEVICES = "/sys/bus/pci/devices"
# PCI class codes: 0x0300 VGA, 0x0302 3D controller (data-center GPUs), 0x0680 NVSwitch bridge.
GPU_CLASSES = ("0x0300", "0x0302")
NVSWITCH_CLASS = "0x0680"
BRIDGE_CLASS = "0x0604"
# Ethernet 0x0200, InfiniBand 0x0207; the RDMA/high-speed NIC vendors: Mellanox/NVIDIA networking,
# Broadcom, Intel.
NIC_CLASSES = ("0x0200", "0x0207")
NIC_VENDORS = ("0x15b3", "0x14e4", "0x8086")
# include/linux/ioport.h resource flags, as the sysfs `resource` file prints them.
IORESOURCE_IO = 0x100
IORESOURCE_MEM = 0x200
IORESOURCE_PREFETCH = 0x2000
IORESOURCE_MEM_64 = 0x00100000
IORESOURCE_DISABLED = 0x10000000
IORESOURCE_UNSET = 0x20000000
_GENS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
# PCIe unidirectional GB/s per lane by generation, after line encoding (x16: 15.75 / 31.5 / 63 / 121): the most a
# link of that generation and width carries (https://en.wikipedia.org/wiki/PCI_Express#Comparison_table).
PCIE_GBS_PER_LANE = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def gen_of(speed: float | None) -> int | None:
    """PCIe generation of a link speed in GT/s (16.0 -> 4); None when unknown."""
    return _GENS.get(float(speed)) if speed is not None else None


def device_role(vendor: str, pci_class: str) -> str:
    """gpu | nvswitch | nic | bridge | other, from vendor ID and class code."""
    cls = pci_class[:6]
    if vendor == NVIDIA_VENDOR and cls in GPU_CLASSES:
        return "gpu"
    if vendor == NVIDIA_VENDOR and cls == NVSWITCH_CLASS:
        return "nvswitch"
    if cls in NIC_CLASSES and vendor in NIC_VENDORS:
        return "nic"
    if cls == BRIDGE_CLASS:
        return "bridge"
    return "other"


@dataclass(frozen=True)
class Bar:
    """One BAR (index 0-5; 6 is the expansion ROM). `size` in bytes; `start` None when unassigned."""

    index: int
    start: int | None
    size: int | None
    is_io: bool = False
    is_64bit: bool = False
    prefetchable: bool = False
    unassigned: bool = False


def parse_resource(text: str) -> tuple[Bar, ...]:
    """The sysfs `resource` file: one `start end flags` line per resource (BARs 0-5, ROM, bridge windows)."""
    bars: list[Bar] = []
    for index, line in enumerate(text.splitlines()[:7]):
        parts = line.split()
        if len(parts) != 3:
            continue
        try:
            start, end, flags = (int(p, 16) for p in parts)
        except ValueError:
            continue
        if not flags and not end:
            continue  # the device has no such BAR
        unset = bool(flags & (IORESOURCE_UNSET | IORESOURCE_DISABLED))
        bars.append(Bar(index, None if unset or (start == 0 and end) else start,
                        end - start + 1 if end >= start and end else None, bool(flags & IORESOURCE_IO),
                        bool(flags & IORESOURCE_MEM_64), bool(flags & IORESOURCE_PREFETCH),
                        unset or (start == 0 and end > 0)))
    return tuple(bars)


def parse_aer_counters(text: str) -> dict[str, int]:
    """`aer_dev_correctable` & co: `<name> <count>` lines; names are long (`Bad TLP`) on older
    kernels and short (`BadTLP`) from 6.12 (docs/checks.md, FW-AER-ERRORS correction)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        name, _, count = line.strip().rpartition(" ")
        if name and count.isdecimal():
            out[name.strip()] = int(count)
    return out


def parse_link_speed(text: str | None) -> float | None:
    """`16.0 GT/s PCIe`, `8 GT/s`, `2.5 GT/s` -> GT/s; `Unknown` -> None."""
    if not text:
        return None
    m = re.match(r"\s*([0-9]+(?:\.[0-9]+)?)\s*GT/s", text)
    return float(m.group(1)) if m else None


@dataclass(frozen=True)
class PciDevice:
    bdf: str
    vendor: str
    device: str
    pci_class: str
    sysfs_path: str = ""
    iommu_group: int | None = None
    iommu_group_type: str | None = None  # identity | DMA | DMA-FQ | None (no IOMMU or unknown)
    numa_node: int | None = None  # -1: firmware gives no locality; None: not read
    driver: str = ""
    role: str = "other"  # gpu | nvswitch | nic | bridge | other
    upstream: tuple[str, ...] = ()  # bridges from the root port down to the parent (from the real path)
    current_link_speed: float | None = None  # GT/s
    max_link_speed: float | None = None
    current_link_width: int | None = None  # 255/63: the device no longer answers
    max_link_width: int | None = None
    aer_dev_correctable: tuple[tuple[str, int], ...] | None = None
    aer_dev_fatal: tuple[tuple[str, int], ...] | None = None
    aer_dev_nonfatal: tuple[tuple[str, int], ...] | None = None
    bars: tuple[Bar, ...] = ()

    @property
    def is_nvidia_gpu(self) -> bool:
        return self.vendor == NVIDIA_VENDOR and self.pci_class[:6] in GPU_CLASSES

    def aer_total(self, kind: str) -> int | None:
        """TOTAL_ERR_COR / _FATAL / _NONFATAL of `kind` (correctable|fatal|nonfatal), else the sum."""
        counters = getattr(self, f"aer_dev_{kind}")
        if counters is None:
            return None
        values = dict(counters)
        total = next((v for k, v in values.items() if k.startswith("TOTAL_ERR")), None)
        return total if total is not None else sum(values.values())


@dataclass(frozen=True)
class PciDevices:
    devices: tuple[PciDevice, ...]
    # /sys/kernel/iommu_groups has entries; None when the source does not show it (not captured, unreadable).
    iommu_groups_present: bool | None = False

    @property
    def nvidia_gpus(self) -> tuple[PciDevice, ...]:
        return tuple(d for d in self.devices if d.is_nvidia_gpu)

    def by_bdf(self) -> dict[str, PciDevice]:
        return {d.bdf: d for d in self.devices}


def _upstream(real: str) -> tuple[str, ...]:
    """`/sys/devices/pci0000:00/0000:00:01.1/0000:41:00.0` -> ("0000:00:01.1",) for 0000:41:00.0."""
    parts = [p for p in real.split("/") if is_bdf(p)]
    return tuple(parts[:-1])


def _infiniband_bdfs(host: Host) -> set[str]:
    """BDFs behind /sys/class/infiniband/<dev>/device (RDMA NICs of any vendor)."""
    out: set[str] = set()
    for name in list_or_none(host, "/sys/class/infiniband") or ():
        try:
            target = host.readlink(f"/sys/class/infiniband/{name}/device")
        except (OSError, NotCaptured):
            continue
        base = posixpath.basename(target.rstrip("/"))
        if is_bdf(base):
            out.add(base)
    return out


def _counters(host: Host, path: str) -> tuple[tuple[str, int], ...] | None:
    try:
        text = read_optional(host, path)
    except (PermissionError, NotCaptured):
        return None
    return tuple(parse_aer_counters(text).items()) if text is not None else None


def _details(host: Host, dev: PciDevice) -> PciDevice:
    """The expensive reads, for the devices the GPU checks look at."""
    real = dev.sysfs_path
    group: int | None = None
    group_type: str | None = None
    try:
        group_link = host.readlink(f"{real}/iommu_group")
        group = int(posixpath.basename(group_link))
        group_type = (read_optional(host, f"/sys/kernel/iommu_groups/{group}/type") or "").strip() or None
    except (OSError, NotCaptured, ValueError):
        group = None

    def attr(name: str) -> str | None:
        try:
            return read_optional(host, f"{real}/{name}")
        except (PermissionError, NotCaptured):
            return None

    try:
        driver = posixpath.basename(host.readlink(f"{real}/driver"))
    except (OSError, NotCaptured):
        driver = ""
    resource = attr("resource")
    return PciDevice(
        dev.bdf, dev.vendor, dev.device, dev.pci_class, real, group, group_type,
        # -1 is kept: it means the firmware reports no locality (FW-NUMA-NPS).
        whole_int(attr("numa_node")), driver, dev.role, dev.upstream,
        parse_link_speed(attr("current_link_speed")), parse_link_speed(attr("max_link_speed")),
        whole_int(attr("current_link_width")), whole_int(attr("max_link_width")),
        _counters(host, f"{real}/aer_dev_correctable"), _counters(host, f"{real}/aer_dev_fatal"),
        _counters(host, f"{real}/aer_dev_nonfatal"), parse_resource(resource) if resource else (),
    )


@provider("pci", PciDevices)
def pci(ctx: FactContext) -> PciDevices:
    """PCI devices (/sys/bus/pci/devices): class, IOMMU group, NUMA node, driver, links, AER, BARs."""
    host = ctx.host
    try:
        bdfs = host.list_dir(PCI_DEVICES)
    except FileNotFoundError as exc:
        raise FactUnavailable("this source shows no PCI bus (/sys/bus/pci missing)") from exc
    groups_present: bool | None
    try:
        groups_present = bool(host.list_dir("/sys/kernel/iommu_groups"))
    except (FileNotFoundError, NotADirectoryError):
        groups_present = False
    except (OSError, NotCaptured):
        groups_present = None  # not in the source: the IOMMU state is unknown, not "off"
    rdma = _infiniband_bdfs(host)
    devices: list[PciDevice] = []
    for bdf in bdfs:
        link = f"{PCI_DEVICES}/{bdf}"
        try:
            real = posixpath.normpath(posixpath.join(PCI_DEVICES, host.readlink(link)))
        except (OSError, NotCaptured):
            real = link
        vendor = (read_optional(host, f"{real}/vendor") or "").strip()
        pci_class = (read_optional(host, f"{real}/class") or "").strip()
        device = (read_optional(host, f"{real}/device") or "").strip()
        role = device_role(vendor, pci_class)
        if role == "other" and bdf in rdma:
            role = "nic"
        devices.append(PciDevice(bdf, vendor, device, pci_class, real, role=role, upstream=_upstream(real)))
    # Details for NVIDIA functions, NICs, and every bridge on their paths to the root ports; reading
    # them for every device of a big server would cost time and snapshot size for nothing.
    wanted: set[str] = set()
    for dev in devices:
        if dev.vendor == NVIDIA_VENDOR or dev.role in ("gpu", "nvswitch", "nic"):
            wanted.add(dev.bdf)
            if dev.role in ("gpu", "nvswitch", "nic"):
                wanted.update(dev.upstream)
    devices = [_details(host, d) if d.bdf in wanted else d for d in devices]
    return PciDevices(tuple(devices), groups_present)
