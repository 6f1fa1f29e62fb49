"""PCI devices from sysfs: enough to know the GPUs, their IOMMU groups and NUMA nodes.

The GPU issue extends this with links, capabilities and bridges; keep the reads here cheap.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.host.base import NotCaptured, read_optional

NVIDIA_VENDOR = "0x10de"
PCI_DEVICES = "/sys/bus/pci/devices"
# PCI class codes: 0x0300 VGA, 0x0302 3D controller (data-center GPUs), 0x0680 NVSwitch bridge.
GPU_CLASSES = ("0x0300", "0x0302")


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

    @property
    def is_nvidia_gpu(self) -> bool:
        return self.vendor == NVIDIA_VENDOR and self.pci_class[:6] in GPU_CLASSES


@dataclass(frozen=True)
class PciDevices:
    devices: tuple[PciDevice, ...]
    iommu_groups_present: bool = False

    @property
    def nvidia_gpus(self) -> tuple[PciDevice, ...]:
        return tuple(d for d in self.devices if d.is_nvidia_gpu)


@provider("pci", PciDevices)
def pci(ctx: FactContext) -> PciDevices:
    """PCI devices (/sys/bus/pci/devices): vendor, class, IOMMU group and type, NUMA node, driver."""
    host = ctx.host
    try:
        bdfs = host.list_dir(PCI_DEVICES)
    except FileNotFoundError as exc:
        raise FactUnavailable("this source shows no PCI bus (/sys/bus/pci missing)") from exc
    try:
        groups_present = bool(host.list_dir("/sys/kernel/iommu_groups"))
    except (OSError, NotCaptured):
        groups_present = False
    devices = []
    for bdf in bdfs:
        link = f"{PCI_DEVICES}/{bdf}"
        try:
            real = posixpath.normpath(posixpath.join(PCI_DEVICES, host.readlink(link)))
        except (OSError, NotCaptured):
            real = link
        vendor = (read_optional(host, f"{real}/vendor") or "").strip()
        pci_class = (read_optional(host, f"{real}/class") or "").strip()
        device = (read_optional(host, f"{real}/device") or "").strip()
        group: int | None = None
        group_type: str | None = None
        numa_node: int | None = None
        driver = ""
        if vendor == NVIDIA_VENDOR:
            # Only NVIDIA devices need the IOMMU and driver details; reading them for every
            # device of a big server would cost time and snapshot size for nothing.
            try:
                group_link = host.readlink(f"{real}/iommu_group")
                group = int(posixpath.basename(group_link))
                group_type = (read_optional(host, f"/sys/kernel/iommu_groups/{group}/type") or "").strip() or None
            except (OSError, NotCaptured, ValueError):
                group = None
            node_text = (read_optional(host, f"{real}/numa_node") or "").strip()
            # -1 is kept: it means the firmware reports no locality (FW-NUMA-NPS).
            numa_node = int(node_text) if node_text.lstrip("-").isdigit() else None
            try:
                driver = posixpath.basename(host.readlink(f"{real}/driver"))
            except (OSError, NotCaptured):
                driver = ""
        devices.append(PciDevice(bdf, vendor, device, pci_class, real, group, group_type, numa_node, driver))
    return PciDevices(tuple(devices), groups_present)
