"""FW: firmware and platform settings readable from the OS (IOMMU mode, VM, NUMA layout)."""

from __future__ import annotations

from stackaudit.checks.registry import Fix, Outcome, check, issue, not_applicable, ok, unknown
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.platform import Virtualization
from stackaudit.facts.system import CpuInfo, KernelCmdline, KernelLog, NumaTopology

NCCL_TROUBLESHOOTING = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"
_TRANSLATING = ("DMA", "DMA-FQ")


def _iommu_faults(log: KernelLog, bdfs: list[str]) -> list[str]:
    """DMAR / AMD-Vi fault lines that name one of the GPUs."""
    short = {b.split(":", 1)[1] if b.count(":") == 2 else b for b in bdfs}
    faults = log.grep(r"DMAR:.*fault|AMD-Vi:.*IO_PAGE_FAULT|IOMMU.*fault")
    return [line for line in faults if any(s in line for s in short)]


@check(
    "FW-IOMMU-MODE",
    title="IOMMU translating DMA for the GPUs (not passthrough)",
    severity="high",
    confidence="documented",
    fix=Fix(
        cost="reboot",
        runtime="none in practice: `echo identity > /sys/kernel/iommu_groups/N/type` needs every device "
        "of the group unbound (stop all GPU work, unload nvidia)",
        persistent='add `iommu=pt` to the kernel command line (GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, '
        "then update-grub; or `grubby --update-kernel=ALL --args=iommu=pt`); or disable VT-d/AMD-Vi in BIOS "
        "if nothing needs the IOMMU",
    ),
    references=(NCCL_TROUBLESHOOTING, "https://github.com/NVIDIA/nccl/issues/257",
                "https://github.com/NVIDIA/nccl-tests/issues/115"),
)
def iommu_mode(pci: PciDevices, cmdline: KernelCmdline | None = None, kernel_log: KernelLog | None = None,
               virtualization: Virtualization | None = None) -> Outcome:
    """Reads: `/proc/cmdline` (intel_iommu, amd_iommu, iommu=pt, iommu.passthrough), each GPU's
    `/sys/bus/pci/devices/<bdf>/iommu_group` and `/sys/kernel/iommu_groups/N/type`, and IOMMU
    fault lines in `dmesg` that name a GPU.

    Bad value: GPU groups of type `DMA` or `DMA-FQ` (translation) on a host with two or more GPUs
    that talk over PCIe; any DMAR / AMD-Vi fault naming a GPU.

    Why: with the IOMMU translating, PCIe peer-to-peer traffic is redirected to the root complex
    and translated ("can interfere with GPU Direct ... causing a significant performance reduction
    or even a hang", NCCL troubleshooting guide); peer writes can also fault and be dropped.

    Traps: `identity` groups (what `iommu=pt` gives) are fine for translation, but the IOMMU driver
    still requests ACS on switch ports: check FW-ACS-P2P too. `amd_iommu=on` is not a valid value
    (the AMD IOMMU is on by default; the kernel logs "Unknown option"): a harmless no-op.
    NVLink/NVSwitch traffic does not go through the IOMMU. In a VM the guest sees a virtual
    topology: not applicable there. Prefer `iommu=pt` to turning the IOMMU off (x2APIC needs
    interrupt remapping on large EPYC hosts).
    """
    if virtualization is not None and virtualization.is_vm:
        return not_applicable(f"virtual machine ({virtualization.vm}): the guest's IOMMU view is not the host's")
    gpus = list(pci.nvidia_gpus)
    if len(gpus) < 2:
        return not_applicable(f"{len(gpus)} NVIDIA GPU(s): no GPU-to-GPU traffic over PCIe to break")
    bdfs = [g.bdf for g in gpus]
    notes = []
    if cmdline is not None and cmdline.last("amd_iommu") == "on":
        notes.append("`amd_iommu=on` on the command line is not a valid value and does nothing (harmless)")
    if kernel_log is not None:
        faults = _iommu_faults(kernel_log, bdfs)
        if faults:
            return issue(f"IOMMU faults name the GPUs: peer-to-peer writes are being blocked ({len(faults)} lines)",
                         actual=faults[:5], expected="no IOMMU faults", subjects=bdfs, evidence=faults[:5])
    types = {g.bdf: g.iommu_group_type for g in gpus}
    translating = [b for b, t in types.items() if t in _TRANSLATING]
    passthrough_flag = cmdline is not None and (
        cmdline.last("iommu") == "pt" or cmdline.last("iommu.passthrough") in ("1", "on", "y"))
    if translating:
        return issue(
            f"the IOMMU translates DMA for {len(translating)} of {len(gpus)} GPUs (group type "
            f"{', '.join(sorted({types[b] or '' for b in translating}))}); PCIe P2P between them is redirected "
            "and translated" + ("; " + "; ".join(notes) if notes else ""),
            actual={b: types[b] for b in translating}, expected="identity (iommu=pt) or IOMMU off",
            subjects=translating)
    if all(t == "identity" for t in types.values()):
        return ok("GPU IOMMU groups are in passthrough (identity); check ACS on switch ports (FW-ACS-P2P)"
                  + ("; " + "; ".join(notes) if notes else ""), actual=types, subjects=bdfs)
    if not pci.iommu_groups_present and all(g.iommu_group is None for g in gpus):
        return ok("the IOMMU is off (no IOMMU groups)" + ("; " + "; ".join(notes) if notes else ""),
                  actual="off", subjects=bdfs)
    if passthrough_flag:
        return ok("`iommu=pt` is on the kernel command line (group types not readable)", actual=cmdline.raw if cmdline else None)
    return unknown("the GPUs' IOMMU group types could not be read", hint="run on the host, as root, with /sys visible")


@check(
    "FW-VM",
    title="Running in a VM / vGPU (P2P and topology differ)",
    severity="medium",
    confidence="documented",
    fix=Fix(cost="hardware", persistent="on the hypervisor: pass the whole PCIe switch with the GPUs and enable "
            "ATS/P2P, or use NVLink-connected full GPUs; otherwise accept NCCL's SHM path"),
    references=("https://docs.nvidia.com/ai-enterprise/release-9/latest/infra-software/vgpu/features/p2p.html",
                NCCL_TROUBLESHOOTING),
)
def vm(virtualization: Virtualization, pci: PciDevices | None = None) -> Outcome:
    """Reads: `systemd-detect-virt --vm`, else `lscpu` (Hypervisor vendor, the `hypervisor` CPU flag)
    and DMI strings; the NVIDIA GPUs on the PCI bus.

    Bad value: a VM with several GPUs for tensor parallelism whose P2P is not `OK` in
    `nvidia-smi topo -p2p r`.

    Why: in a VM, PCIe P2P needs the hypervisor to expose the real topology and ATS/ACS; NVIDIA's
    vGPU documentation says P2P over PCIe is not supported between vGPUs.

    Traps: in the guest, IOMMU and ACS readings describe the virtual topology (FW-IOMMU-MODE and
    FW-ACS-P2P are not applicable there). A VM with one GPU loses nothing to this.
    """
    if not virtualization.is_vm:
        return ok(f"bare metal ({virtualization.source})", actual="none")
    gpus = len(pci.nvidia_gpus) if pci is not None else None
    if gpus is not None and gpus < 2:
        return ok(f"virtual machine ({virtualization.vm}) with {gpus} GPU: no GPU-to-GPU P2P involved",
                  actual=virtualization.vm)
    return unknown(
        f"virtual machine ({virtualization.vm}) with {gpus if gpus is not None else 'an unknown number of'} GPUs: "
        "P2P between them depends on the hypervisor; IOMMU/ACS checks describe the virtual topology",
        hint="run `nvidia-smi topo -p2p r` in the VM: anything but OK between TP peers means NCCL falls back",
        actual=virtualization.vm)


def _nps_label(cpu: CpuInfo | None, nodes: int, sockets: int | None) -> str:
    if sockets is None:
        return f"{nodes} NUMA node(s), socket count not in the source"
    per_socket = nodes // sockets if sockets and nodes % sockets == 0 else None
    if per_socket is None:
        return f"{nodes} NUMA nodes on {sockets} socket(s)"
    if cpu is not None and cpu.is_amd:
        return f"NPS{per_socket} ({nodes} NUMA nodes on {sockets} socket(s))"
    if cpu is not None and cpu.is_intel and per_socket > 1:
        return f"SNC{per_socket} ({nodes} NUMA nodes on {sockets} socket(s))"
    return f"{nodes} NUMA node(s) on {sockets} socket(s)"


@check(
    "FW-NUMA-NPS",
    title="NUMA-per-socket / sub-NUMA clustering and GPU locality",
    severity="low",
    confidence="documented",
    fix=Fix(cost="bios", persistent="BIOS: set NPS (AMD) / SNC (Intel) deliberately; update the firmware if "
            "GPUs report no NUMA node (SRAT/_PXM missing)"),
    references=("https://github.com/NVIDIA/nccl-tests/issues/115",),
)
def numa_nps(numa: NumaTopology, cpu: CpuInfo | None = None, pci: PciDevices | None = None) -> Outcome:
    """Reads: `lscpu` (sockets, vendor), `/sys/devices/system/node` (nodes, distances) and each
    GPU's `/sys/bus/pci/devices/<bdf>/numa_node`.

    Bad value: not a fault by itself: the layout is reported so NUMA placement can be judged.
    Flagged: a GPU with `numa_node = -1` on a multi-socket host (the firmware does not report
    locality).

    Why: without P2P, GPU traffic goes through CPU memory, and on AMD the NPS setting changes its
    speed (NCCL maintainer, nccl-tests#115); placement needs to know which node a GPU is on.

    Traps: NPS1 on a single socket is normal; there is no universally best NPS value.
    """
    sockets = cpu.sockets if cpu is not None and cpu.sockets else None
    layout = _nps_label(cpu, numa.count, sockets)
    gpu_nodes = {g.bdf: g.numa_node for g in pci.nvidia_gpus} if pci is not None else {}
    no_locality = [b for b, n in gpu_nodes.items() if n == -1]
    if no_locality and ((sockets or 1) > 1 or numa.count > 1):
        return issue(f"{layout}, but {len(no_locality)} GPU(s) report NUMA node -1: the firmware gives no locality",
                     actual={"layout": layout, "gpu_numa_nodes": gpu_nodes}, expected="every GPU on a NUMA node",
                     subjects=no_locality)
    if gpu_nodes:
        where = ", ".join(f"{b}→node {n}" for b, n in sorted(gpu_nodes.items()))
        return ok(f"{layout}; GPUs: {where}", actual={"layout": layout, "gpu_numa_nodes": gpu_nodes})
    return ok(layout, actual={"layout": layout})

