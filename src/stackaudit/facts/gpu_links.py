"""Each GPU's PCIe link — trained and capable speed and width — from every source that shows it.

Sources, merged per GPU (`merge_by("bdf")`), best first: the PCI side (sysfs `current_link_*` /
`max_link_*`, else LnkSta/LnkCap in config space or `lspci -vvv`; with the upstream port's
capability, i.e. the slot's), then the NVIDIA side (NVML, `nvidia-smi -q -x`, `nvidia-smi -q`:
current and maximum generation and width, the host's maximum generation, utilisation and P-state).
A field the better source lacks is taken from the next: a paste of `nvidia-smi -q -x` alone still
shows `<current_link_width>8x</current_link_width>` of `<max_link_width>16x</max_link_width>`.

A GPU the NVIDIA side shows without its PCI address (an `nvidia-smi -q` section cut below its `GPU 00000000:..`
header, a rig report's GPU whose bus bullet is cut) is keyed by its index, where the PCI side lists no GPU: the same
GPU is not counted twice.

nvidia-smi's maximum width is the GPU's, not the slot's: `width_basis` says which a record has,
so that a check can say what would settle a narrow link (the port's LnkCap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts.nvidia import NvidiaGpus
from stackaudit.facts.pcie import PcieFacts
from stackaudit.facts.pcie_config import LINK_SPEEDS
from stackaudit.facts.registry import (
    FactContext,
    FactUnavailable,
    Sourced,
    fact,
    merge_by,
    provider,
    sample_field,
)


@dataclass(frozen=True)
class GpuLink:
    bdf: str
    name: str = ""  # product name where a source gives it
    model: str = ""  # lspci's bracketed model
    cur_speed: float | None = sample_field()  # GT/s; drops at idle (power saving)
    cur_width: int | None = None
    max_speed: float | None = None  # the GPU's capability
    max_width: int | None = None
    port_max_speed: float | None = None  # the upstream port's (slot's) capability
    port_max_width: int | None = None
    host_max_speed: float | None = None  # nvidia-smi `max_host_link_gen`
    index: int | None = None  # the NVIDIA index (for samples)
    utilization: int | None = sample_field()
    pstate: str | None = sample_field()

    @property
    def width_basis(self) -> str:
        """"slot" where the upstream port's capability is known, else "gpu" (only the GPU's own maximum)."""
        return "slot" if self.port_max_width else "gpu"

    @property
    def busy(self) -> bool:
        return (self.utilization or 0) >= 20 or (self.pstate in ("P0", "P1") and (self.utilization or 0) > 0)

    @property
    def expected(self) -> tuple[float | None, float | None, str]:
        """(speed GT/s, width, source) the link should train at: the least of the model's, the GPU's, the slot's and
        (speed) the host's capability. The model's comes from data/gpus.toml by the NVIDIA side's product name, else
        lspci's bracketed name."""
        speed, width, basis = self.max_speed, self.max_width, "the GPU's own capability"
        if self.name or self.model:
            try:
                from stackaudit.gputable import GpuTableError, UnknownGpuError, lookup

                spec = lookup(self.name or self.model).spec
            except (UnknownGpuError, GpuTableError, OSError, ImportError):
                spec = None
            if spec is not None and spec.pcie_gen and spec.pcie_width:
                speed, width, basis = LINK_SPEEDS.get(spec.pcie_gen), spec.pcie_width, f"{spec.name} (gpus.toml)"
        return (_least(speed, self.max_speed, self.port_max_speed, self.host_max_speed),
                _least(width, self.max_width, self.port_max_width), basis)


def _least(*values: float | int | None) -> float | None:
    return min((float(v) for v in values if v), default=None)


@dataclass(frozen=True)
class GpuLinks(Sourced):
    links: tuple[GpuLink, ...]
    inventory_complete: bool = False  # the PCI side listed every device (sysfs): no link means no GPU
    attached: int | None = None  # how many GPUs the NVIDIA source says the host has (an excerpt may show fewer)
    conflicts: tuple[tuple[str, str, str, str], ...] = ()  # (bdf, field, kept, other) where sources disagree


fact("gpu_links", GpuLinks, merge_by("bdf", "links"), hint="paste `sudo lspci -vvv` or `nvidia-smi -q`")


@dataclass(frozen=True)
class DesktopLanes:
    """A desktop CPU family whose graphics slots share one set of CPU lanes."""

    pattern: str  # searched in the CPU's model name (lscpu `Model name`, a rig report's CPU bullet)
    family: str
    lanes: int  # the CPU's lanes for the graphics slots, all slots together
    source: str
    # False: a laptop CPU, whose every external GPU link (a Thunderbolt tunnel, an M.2 slot) is at most `lanes` wide,
    # whatever the number of GPUs
    shared: bool = True
    ports: str = ""  # a laptop CPU's: where its widest links go, in words


# Consumer desktop CPUs give their graphics slots 16 lanes in all: a board with two CPU-wired x16 slots runs them
# x8/x8 when both hold a card. Intel's specifications list each desktop Core's "PCI Express Configurations":
# "Up to 1x16, 2x8, 1x8+2x4" (16 lanes, 2nd to 10th generation), "Up to 1x16+1x4, 2x8+1x4" (20 lanes, 11th to
# 14th generation: the x4 is an NVMe drive's). AMD's AM4 Ryzen has 24 lanes: 16 for graphics, 4 for NVMe, 4 for
# the chipset; AM5 has 28: 16 for graphics, 8 for NVMe, 4 for the chipset.
# Left out on purpose, so that an x8 on them stays a question: HEDT and server parts (Core X-series and the
# 38xx-69xx Extreme parts, Xeon, Threadripper, EPYC: 28 to 128 lanes), laptops (H, U, HX suffixes) and the Ryzen
# APUs (G suffix), some of which have only 8 or 4 lanes for graphics.
DESKTOP_LANES = (
    DesktopLanes(r"\bi[3579]-(?:[2789]\d{3}|[3-6][0-7]\d{2}|1[0-4]\d{3})(?:K|KF|KS|F|T)?\b",
                 "an Intel Core desktop CPU", 16,
                 "https://ark.intel.com/content/www/us/en/ark.html"),
    DesktopLanes(r"\bCore(?:\(TM\))? Ultra [579] 2\d{2}(?:K|KF|F|T)?\b", "an Intel Core Ultra desktop CPU (LGA1851)", 16,
                 "https://ark.intel.com/content/www/us/en/ark.html"),
    DesktopLanes(r"\bRyzen [3579] (?:[1-57]|9)\d{3}(?:X3D\d?|XT|X|E)?\b", "an AMD Ryzen desktop CPU (AM4/AM5)", 16,
                 "https://www.techpowerup.com/295394/amd-zen-4-socket-am5-explained-pcie-lanes-chipsets-connectivity"),
)


# Laptop CPUs whose PCIe lanes come four to a port: Ice Lake and Tiger Lake U/G parts (`i5-1135G7`) give their
# Thunderbolt ports a PCIe x4 tunnel and have no x8 or x16 link at all (Intel's specifications: "PCI Express
# Configurations: Up to 1x4"), so a GPU on one (an eGPU enclosure, an M.2 adapter) trains at x4 at most.
# AMD's Strix Halo APUs (Ryzen AI Max and Max+ 38x-39x, `AMD RYZEN AI MAX+ 395 w/ Radeon 8060S`) have 16 PCIe 4.0
# lanes, 12 usable, in x4 links only, with no x8 or x16 graphics link (their boards' widest slot is an x4, as the
# Framework Desktop's): a GPU on one (OCuLink, an M.2 adapter, that slot) trains at x4 at most (corpus 2904).
MOBILE_LANES = (
    DesktopLanes(r"\bi[357]-1[01]\d{2}G[1-7]\b", "an Intel Core laptop CPU (Ice Lake or Tiger Lake, U series)", 4,
                 "https://ark.intel.com/content/www/us/en/ark.html", shared=False,
                 ports="its Thunderbolt ports tunnel x4"),
    DesktopLanes(r"(?i)\bRyzen AI Max\+? (?:PRO )?3[89]\d\b", "an AMD Strix Halo APU (Ryzen AI Max)", 4,
                 "https://www.amd.com/en/products/processors/laptop/ryzen/ai-300-series/amd-ryzen-ai-max-plus-395.html",
                 shared=False, ports="its lanes come out as x4 links, OCuLink and M.2 included"),
)


def split_lanes(link: GpuLink, cpu_model: str, gpus: int) -> str:
    """Why a narrow link on an x16 GPU is the platform's width, in words; "" where the source does not show that.

    It is where the CPU is a desktop part (DESKTOP_LANES), the host has two or more GPUs, the GPU can use all the
    CPU's graphics lanes, and the link has half of them; or where the CPU is a laptop part (MOBILE_LANES), whose
    every GPU link is x4 at most, and the link has those lanes.
    The slot's own width (its port's LnkCap) decides instead where the source shows it.
    A link below half (below x4 on a laptop) is never the split: two cards get half each.
    """
    _, width, _ = link.expected
    mobile = next((d for d in MOBILE_LANES if re.search(d.pattern, cpu_model)), None)
    if mobile is not None and link.width_basis != "slot" and width and width > mobile.lanes == link.cur_width:
        return (f"the {cpu_model.strip()} is {mobile.family}, which has no PCIe link wider than x{mobile.lanes} "
                f"({mobile.ports}): x{mobile.lanes} is the platform's width, not a link that "
                "trained down")
    cpu = next((d for d in DESKTOP_LANES if re.search(d.pattern, cpu_model)), None)
    if cpu is None or gpus < 2 or link.width_basis == "slot" or width != cpu.lanes or link.cur_width != cpu.lanes // 2:
        return ""
    half = cpu.lanes // 2
    return (f"the {cpu_model.strip()} is {cpu.family}, whose graphics slots share {cpu.lanes} lanes; with {gpus} GPUs "
            f"on the host they run x{half}/x{half}, so x{half} is the slot's width, not a link that trained down")


@provider("gpu_links", GpuLinks, rank=10, title="the PCI side (sysfs, config space, `lspci -vvv`)")
def links_from_pci(ctx: FactContext) -> GpuLinks:
    """GPU links as the PCI side shows them (sysfs link attributes, LnkSta/LnkCap, `lspci -vvv`)."""
    pcie = ctx.fact("pcie", PcieFacts)
    by_bdf = pcie.by_bdf()
    links = []
    for g in pcie.gpus:
        port = by_bdf.get(g.parent or "")
        port_speed = port.max_link_speed if port else None
        port_width = port.max_link_width if port else None
        links.append(GpuLink(g.bdf, model=g.model, cur_speed=g.current_link_speed, cur_width=g.current_link_width,
                             max_speed=g.max_link_speed, max_width=g.max_link_width, port_max_speed=port_speed,
                             port_max_width=port_width))
    return GpuLinks(tuple(links), inventory_complete=pcie.inventory_complete)


def _unaddressed_key(index: int | None) -> str:
    """The key of a GPU whose NVIDIA section shows no PCI address (an `nvidia-smi -q` excerpt cut below its
    `GPU 00000000:..` header, corpus 596): its index, as the excerpt numbers it."""
    return f"GPU {index}" if index is not None else "the GPU shown"


def _speed(gen: int | None) -> float | None:
    return LINK_SPEEDS.get(gen) if gen else None


@provider("gpu_links", GpuLinks, rank=20, title="the NVIDIA side (NVML, `nvidia-smi -q`)")
def links_from_nvidia(ctx: FactContext) -> GpuLinks:
    """GPU links as NVML or nvidia-smi show them (current/max generation and width, host maximum)."""
    nvidia = ctx.fact("nvidia", NvidiaGpus)
    pci = ctx.optional("pcie", PcieFacts)
    # A GPU without its address is keyed by its index only where the PCI side lists no GPU it could be.
    unaddressed = not (pci is not None and pci.gpus)
    links = []
    for g in nvidia.gpus:
        if not g.bdf and not unaddressed:
            continue
        dev_max = g.pcie_gen_device_max or g.pcie_gen_max
        links.append(GpuLink(g.bdf or _unaddressed_key(g.index), name=g.name, cur_speed=_speed(g.pcie_gen), cur_width=g.pcie_width,
                             max_speed=_speed(dev_max), max_width=g.pcie_width_max,
                             host_max_speed=_speed(g.pcie_gen_host_max), index=g.index,
                             utilization=g.utilization_gpu, pstate=g.pstate))
    if not links:
        raise FactUnavailable("no GPU with a PCI address in the NVIDIA source")
    return GpuLinks(tuple(links), attached=nvidia.attached)
