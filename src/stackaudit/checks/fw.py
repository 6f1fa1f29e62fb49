"""FW: firmware and platform settings readable from the OS (IOMMU mode, VM, NUMA layout)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from stackaudit.checks.drv import over_gpus
from stackaudit.checks.pcie import LSPCI_ASK, ROOT_HINT, no_gpu, over_gpu_functions
from stackaudit.checks.registry import (
    Confidence,
    Fix,
    Outcome,
    Severity,
    Sharpen,
    check,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    over_subjects,
    unknown,
)
from stackaudit.facts._parse import ParseError, argv_value, format_cpulist, parse_cpumask
from stackaudit.facts.boot_loader import CmdlineTool, tool_of
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.cuda_ran import CudaRan, Ran
from stackaudit.facts.docker import DockerContainers
from stackaudit.facts.engine_command import EngineCommands
from stackaudit.facts.engines_shown import GGML, EnginesShown
from stackaudit.facts.gpu_events import GpuEvents
from stackaudit.facts.gpus import GpuInventory
from stackaudit.facts.nvidia import GpuInfo, NvidiaDriver, NvidiaGpus, gpu_spec
from stackaudit.facts.parallelism import Parallelism, ServingEngine, one_gpu_engine, one_gpu_workload
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.pcie import PcieFacts, PcieFunction
from stackaudit.facts.pcie_config import AcsCap
from stackaudit.facts.pcie_errors import GPU_VENDORS, UNSTATED, AerLine, PcieErrors
from stackaudit.facts.peer_access import P2pBandwidth, P2pDataTests, PeerRefusals
from stackaudit.facts.platform import (
    Virtualization,
    cloud_only_gpu,
    instance_gpus,
    vgpu_guest,
    vgpu_host,
    wsl_foreign_library,
)
from stackaudit.facts.rdma import RdmaDevices
from stackaudit.facts.serving_logs import AR_NO_P2P, NcclConfig, ServingLog
from stackaudit.facts.shown_commands import ListingGreps
from stackaudit.facts.symptoms import IN_WSL, IOMMU_SAID_OFF, NCCL_PCI_PATH_UNREAD
from stackaudit.facts.system import CpuInfo, KernelCmdline, KernelLog, NumaTopology, StatedIommu
from stackaudit.facts.topology import P2pMatrix, TopoMatrix
from stackaudit.fixes.kernel_cmdline import cmdline_forms
from stackaudit.fixes.model import (
    advice,
    keep_line,
    step,
)
from stackaudit.fixes.pcie import acs_fix, acs_scan_fix
from stackaudit.gputable import PRE_TURING, RESIZABLE_BAR, architecture_of, board_words, integrated_gpu
from stackaudit.pci_address import on_root_bus

NCCL_TROUBLESHOOTING = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"
KERNEL_PARAMS_DOC = "https://docs.kernel.org/admin-guide/kernel-parameters.html"
_TRANSLATING = ("DMA", "DMA-FQ")
_IOMMU_NOTE = ("at runtime `echo identity > /sys/kernel/iommu_groups/N/type` needs every device of the group unbound "
               "(stop all GPU work, unload nvidia); disabling VT-d/AMD-Vi in BIOS works if nothing needs the IOMMU")


_IOMMU_SHARPEN = "put the IOMMU in passthrough (`iommu=pt`) or turn it off for the GPUs"


def _iommu_fix(tool: str) -> Fix:
    return Fix.of(step("Put the IOMMU in passthrough mode on the kernel command line, then reboot", cost="reboot",
                       changes="the kernel command line", keep=cmdline_forms("iommu=pt", tool)), note=_IOMMU_NOTE)


@check(
    "FW-IOMMU-MODE",
    title="IOMMU translating DMA for the GPUs (not passthrough)",
    severity="high",
    confidence="documented",
    fix=_iommu_fix(""),
    references=(NCCL_TROUBLESHOOTING, "https://github.com/NVIDIA/nccl/issues/257",
                "https://github.com/NVIDIA/nccl-tests/issues/115"),
    sharpen=Sharpen(_IOMMU_SHARPEN),
)
def iommu_mode(pci: PciDevices | None = None, cmdline: KernelCmdline | None = None,
               kernel_log: KernelLog | None = None, virtualization: Virtualization | None = None,
               cmdline_tool: CmdlineTool | None = None, stated_iommu: StatedIommu | None = None,
               pcie: PcieFacts | None = None) -> Outcome:
    """Reads: `/proc/cmdline` (intel_iommu, amd_iommu, iommu=pt, iommu.passthrough), each GPU's
    `/sys/bus/pci/devices/<bdf>/iommu_group` and `/sys/kernel/iommu_groups/N/type`, and IOMMU
    fault lines in `dmesg` that name a GPU. A pasted `lspci -v` that puts a GPU in an IOMMU group (`IOMMU group 7`)
    shows an IOMMU on, not whether it translates: unknown, with the group named.

    Bad value: GPU groups of type `DMA` or `DMA-FQ` (translation) on a host with two or more GPUs
    that talk over PCIe; any DMAR / AMD-Vi fault naming a GPU.

    Why: with the IOMMU translating, PCIe peer-to-peer traffic is redirected to the root complex
    and translated ("can interfere with GPU Direct ... causing a significant performance reduction
    or even a hang", NCCL troubleshooting guide); peer writes can also fault and be dropped.

    An AMD-Vi IO_PAGE_FAULT line that names the nvidia driver's device (a symptom of facts/symptoms.py)
    proves the issue on its own, quoted, without the PCI device list. So does RCCL's start-up warning `Missing
    "iommu=pt" from kernel command line` (ROCm's install FAQ, Issue #5), unless the user's words say the IOMMU is
    off: RCCL reads only the command line, so that warning then looks wrong and is not.
    The user's words or a firmware menu's setting that the IOMMU is off (`IOMMU=Disable` under AMD CBS, facts/system
    .stated_iommu_off), where no device list is shown, is `ok` (corpus 1729).

    Traps: `identity` groups (what `iommu=pt` gives) are fine for translation, but the IOMMU driver
    still requests ACS on switch ports: check FW-ACS-P2P too. `amd_iommu=on` is not a valid value
    (the AMD IOMMU is on by default; the kernel logs "Unknown option"): a harmless no-op.
    NVLink/NVSwitch traffic does not go through the IOMMU (an NVSwitch system with translating
    groups: not an issue for GPU-to-GPU traffic). In a VM the guest sees a virtual
    topology: not applicable there. Prefer `iommu=pt` to turning the IOMMU off (x2APIC needs
    interrupt remapping on large EPYC hosts). The driver's lines about its own IO address spaces
    (`iovaspaceDestruct_IMPL: 1 left-over mappings in IOVAS 0x100`) are no IOMMU fault: where they are the
    only IOMMU-looking lines of a log without the PCI devices, not an issue.
    """
    outcome = _iommu_mode(pci, cmdline, kernel_log, virtualization, cmdline_tool, pcie)
    if outcome.status == "unknown" and stated_iommu is not None and pci is None:
        # The firmware setting or the user's words that the IOMMU is off, with no device list to say otherwise: no
        # DMA translation between the GPUs (corpus 1729).
        outcome = ok(f"the user says the IOMMU is off ({stated_iommu.line[:160]!r}): the GPUs' DMA is not "
                     "translated, so PCIe P2P is not redirected through the root complex", actual="off (stated)",
                     evidence=[stated_iommu.line[:300]])
    if outcome.status in ("unknown", "ok") and stated_iommu is not None:
        # RCCL's `Missing "iommu=pt"` warning reads only the command line: with the IOMMU off there is nothing to bypass.
        return replace(outcome, sharpen=Sharpen(f"the user says the IOMMU is off ({stated_iommu.line[:160]!r}), and "
                                                "the warning reads only the kernel command line: no DMA translation "
                                                "for `iommu=pt` to bypass", _iommu_fix(tool_of(cmdline_tool)),
                                                shows=(IOMMU_SAID_OFF,)))
    if outcome.status == "not-applicable" and virtualization is not None and virtualization.is_vm:
        return replace(outcome, sharpen=Sharpen(stands=True))  # the guest's faults are its virtual IOMMU's
    return replace(outcome, sharpen=Sharpen(_IOMMU_SHARPEN, _iommu_fix(tool_of(cmdline_tool))))


def _iommu_mode(pci: PciDevices | None, cmdline: KernelCmdline | None, kernel_log: KernelLog | None,
                virtualization: Virtualization | None, cmdline_tool: CmdlineTool | None,
                pcie: PcieFacts | None = None) -> Outcome:
    """FW-IOMMU-MODE from the devices, the command line and the kernel log (the engine adds the log's symptoms)."""
    if virtualization is not None and virtualization.is_vm:
        return not_applicable(f"virtual machine ({virtualization.vm}): the guest's IOMMU view is not the host's")
    if pci is None:
        # A pasted /proc/cmdline alone: passthrough requested there is the whole answer for every device.
        if cmdline is not None and (cmdline.last("iommu") == "pt" or cmdline.last("iommu.passthrough") in ("1", "on", "y")):
            return ok("`iommu=pt` is on the kernel command line: device DMA is passed through (the GPUs' IOMMU "
                      "groups are not in the source)", actual=cmdline.raw)
        iovas = kernel_log.driver_iovas() if kernel_log is not None else []
        if kernel_log is not None and iovas and not kernel_log.any_iommu_fault():
            # The one IOMMU-looking line is the driver's own address-space bookkeeping: it looks wrong and is not.
            return not_an_issue(f"\"{iovas[0].strip()}\" is the NVIDIA driver tearing down its own IO address "
                                "space (IOVAS) of the GPU, not a DMAR or AMD-Vi fault; no IOMMU fault is in the "
                                "log shown (the GPUs' IOMMU groups are not in the source)",
                                actual=iovas[:3], evidence=iovas[:3])
        grouped = {g.bdf: g.lspci.iommu_group for g in (pcie.gpus if pcie is not None else ())
                   if g.lspci is not None and g.lspci.iommu_group is not None}
        if grouped:
            # lspci prints a device's IOMMU group only where an IOMMU is on; the group's type (DMA or identity) is
            # sysfs's, not lspci's.
            shown = ", ".join(f"{b} in group {n}" for b, n in grouped.items())
            return unknown(f"an IOMMU is on (lspci puts {shown}), but whether it translates the GPUs' DMA or passes "
                           "it through (`iommu=pt`) is not in the source",
                           hint="paste `cat /proc/cmdline` and `cat /sys/kernel/iommu_groups/<N>/type`",
                           actual=grouped, subjects=list(grouped))
        return unknown("the PCI devices (GPUs and their IOMMU groups) are not in the source",
                       hint="run on the host, or paste `cat /proc/cmdline`")
    gpus = list(pci.nvidia_gpus)
    if len(gpus) < 2:
        return not_applicable(f"{len(gpus)} NVIDIA GPU(s): no GPU-to-GPU traffic over PCIe to break")
    bdfs = [g.bdf for g in gpus]
    notes = []
    if cmdline is not None and cmdline.last("amd_iommu") == "on":
        notes.append("`amd_iommu=on` on the command line is not a valid value and does nothing (harmless)")
    if kernel_log is not None:
        faults = kernel_log.iommu_faults(bdfs)
        if faults:
            return issue(f"IOMMU faults name the GPUs: peer-to-peer writes are being blocked ({len(faults)} lines)",
                         actual=faults[:5], expected="no IOMMU faults", subjects=bdfs, evidence=faults[:5],
                         fix=_iommu_fix(tool_of(cmdline_tool)))
    types = {g.bdf: g.iommu_group_type for g in gpus}
    translating = [b for b, t in types.items() if t in _TRANSLATING]
    passthrough_flag = cmdline is not None and (
        cmdline.last("iommu") == "pt" or cmdline.last("iommu.passthrough") in ("1", "on", "y"))
    nvswitches = [d.bdf for d in pci.devices if d.role == "nvswitch"]
    if translating and nvswitches:
        return not_an_issue(
            f"the IOMMU translates DMA for {len(translating)} of {len(gpus)} GPUs, but this is an NVSwitch system "
            f"({len(nvswitches)} NVSwitch(es) on the bus): GPU-to-GPU traffic is NVLink, which does not go through "
            "the IOMMU. Only GPU-NIC GPUDirect RDMA is translated (multi-node); `iommu=pt` is the usual setting "
            "there" + ("; " + "; ".join(notes) if notes else ""),
            actual={b: types[b] for b in translating}, expected="identity (iommu=pt) where GPUs use PCIe P2P",
            subjects=translating)
    if translating:
        return issue(
            f"the IOMMU translates DMA for {len(translating)} of {len(gpus)} GPUs (group type "
            f"{', '.join(sorted({types[b] or '' for b in translating}))}); PCIe P2P between them is redirected "
            "and translated" + ("; " + "; ".join(notes) if notes else ""),
            actual={b: types[b] for b in translating}, expected="identity (iommu=pt) or IOMMU off",
            subjects=translating, fix=_iommu_fix(tool_of(cmdline_tool)))
    if all(t == "identity" for t in types.values()):
        return ok("GPU IOMMU groups are in passthrough (identity); check ACS on switch ports (FW-ACS-P2P)"
                  + ("; " + "; ".join(notes) if notes else ""), actual=types, subjects=bdfs)
    if pci.iommu_groups_present is False and all(g.iommu_group is None for g in gpus):
        return ok("the IOMMU is off (no IOMMU groups)" + ("; " + "; ".join(notes) if notes else ""),
                  actual="off", subjects=bdfs)
    if passthrough_flag:
        return ok("`iommu=pt` is on the kernel command line (group types not readable)", actual=cmdline.raw if cmdline else None)
    return unknown("the GPUs' IOMMU group types could not be read", hint="run on the host, as root, with /sys visible")


_UPTIME = re.compile(r"\[\s*(\d+\.\d+)\]")
_BOOT_TRAINING_S = 300.0  # errors in the first minutes can be link training: not counted as a rate


def _corrected_after_boot(lines: list[AerLine]) -> list[float]:
    """Uptimes of the correctable-error reports ("error message received", "Corrected error received")
    logged after the first minutes of boot, in order."""
    out = []
    for ln in lines:
        if ln.severity == "corrected" and re.search(r"error (?:message )?received", ln.line, re.I):
            m = _UPTIME.search(ln.line)
            if m and float(m.group(1)) > _BOOT_TRAINING_S:
                out.append(float(m.group(1)))
    return sorted(out)


@check(
    "FW-VM",
    title="Running in a VM / vGPU (P2P and topology differ)",
    severity="medium",
    confidence="documented",
    fix=advice("On the hypervisor: pass the whole PCIe switch with the GPUs and enable ATS/P2P, or use "
                   "NVLink-connected full GPUs; otherwise accept NCCL's SHM path", cost="hardware",
                   scope="container-host"),
    references=("https://docs.nvidia.com/ai-enterprise/release-9/latest/infra-software/vgpu/features/p2p.html",
                "https://docs.nvidia.com/vgpu/latest/grid-vgpu-user-guide/index.html", NCCL_TROUBLESHOOTING),
)
def vm(virtualization: Virtualization | None = None, gpus: GpuInventory | None = None,
       serving_log: ServingLog | None = None, gpu_topology: TopoMatrix | None = None,
       nvidia: NvidiaGpus | None = None, parallelism: Parallelism | None = None,
       docker_containers: DockerContainers | None = None, gpu_events: GpuEvents | None = None,
       nvidia_driver: NvidiaDriver | None = None, collect_env: CollectEnv | None = None,
       p2p_bandwidth: P2pBandwidth | None = None, p2p_data_tests: P2pDataTests | None = None,
       pcie: PcieFacts | None = None, engines_shown: EnginesShown | None = None,
       engine_commands: EngineCommands | None = None, gpu_p2p: P2pMatrix | None = None,
       peer_refusals: PeerRefusals | None = None, serving_engine: ServingEngine | None = None) -> Outcome:
    """Reads: `systemd-detect-virt --vm`, else `lscpu` (Hypervisor vendor, the `hypervisor` CPU flag)
    and DMI strings; how many NVIDIA GPUs the guest has (NVML / nvidia-smi, the PCI bus, ...).
    WSL 2 shows in the nvidia-smi header: its Linux library's version over the Windows driver's; in `nvidia-smi -q`,
    a Windows driver model (`Driver Model: WDDM`) beside a persistence mode, which Windows' own nvidia-smi reports N/A.
    A Windows machine's default name (`DESKTOP-KQ38CGS`: facts/platform.WINDOWS_MACHINE_NAME) as the host of a Linux
    NCCL that finds no sysfs PCI path for its GPU (`Could not find real path of /sys/class/pci_bus/...`) is WSL 2's.
    A pasted kernel log's DMI ids (`DMI:` at boot, `Hardware name:` in an Oops) stand in for the DMI strings.
    club-3090's rig report names the machine in its `Environment:` line (its script's systemd-detect-virt answer).
    A collect_env / check_env of a Linux Python (built by GCC) reporting a driver number only Windows drivers carry
    (`577.00`: since R450 Linux drivers are numbered by their branch, a multiple of 5) is WSL 2's (corpus 1018).
    A cloud instance type or a statement in the user's words (`on Kaggle`, `WSL2`) names the VM where nothing else does,
    and so does a shell prompt's host named after an instance type (`p2_xlarge_instance`: facts/platform.host_instance),
    with the GPUs its provider documents for that type.
    So does a hypervisor's, a cloud's or a managed Kubernetes service's name beside a guest's word (`VM in proxmox`,
    `in GKE cluster`, a hypervisor's host with a GPU `passed into a Ubuntu VM`: facts/platform.py PLATFORM_NAMES), in a
    statement that asks, plans or compares nothing.
    An NCCL log's aws-ofi-nccl platform line (`NET/OFI Running on p4d.24xlarge platform`) names the EC2 instance type
    the plugin read from DMI's product name.
    A pasted Kubernetes node whose resources list a volume limit that only a cloud's VM reports
    (`attachable-volumes-azure-disk`, `attachable-volumes-gce-pd`: facts/k8s_node.VM_VOLUME_LIMITS) names that VM.
    A pasted `lspci` that shows a device only a hypervisor presents (VMware's PVSCSI or VMXNET3, QEMU's virtio:
    facts/platform.HYPERVISOR_DEVICES) names the hypervisor.
    Docker Desktop named beside a GPU in the user's words (`dockerdesktop 2080ti环境，执行 docker run ... --gpus all`,
    also on the line of the `docker run` it leads into) is WSL 2: Docker Desktop gives its containers an NVIDIA GPU
    only on Windows, through its WSL 2 back end (corpus 2869).

    Bad value: a VM with several GPUs for tensor parallelism whose P2P is not `OK` in
    `nvidia-smi topo -p2p r`; a VM whose whole `nvidia-smi topo -m` hides the sockets (every GPU's
    NUMA affinity spans several nodes, no path SYS): NCCL then places its rings blind, which the
    cloud's NCCL topology file (`NCCL_TOPO_FILE`) corrects (NVIDIA/nccl#1298, AWS g5.48xlarge).

    Why: in a VM, PCIe P2P needs the hypervisor to expose the real topology and ATS/ACS; NVIDIA's
    vGPU documentation says P2P over PCIe is not supported between vGPUs.

    Also bad: a vGPU guest (`GPU Virtualization Mode: VGPU`, the vGPU software's licence section of `nvidia-smi -q`,
    `vGPU Software Licensed Product`, a GPU named by its vGPU profile, or a cloud instance
    type its provider serves with vGPU: facts/platform.py GpuInstance.vgpu, Azure NVadsA10 v5) with several GPUs,
    or with one whose limits the source shows at work (the driver's `License Status : Unlicensed`:
    facts/platform.vgpu_unlicensed; the user's words on its licence, a slowdown after 20 minutes:
    facts/platform.stated_vgpu_limit): NVIDIA vGPU turns unified memory and the CUDA profilers off unless the
    host enables them for the VM (vGPU plugin parameters `enable_uvm`, `enable_profiling`), offers P2P only over
    NVLink between full-profile vGPUs (never over PCIe), and throttles an unlicensed vGPU after 20 minutes.

    Also bad: a VM with two or more GPUs of a model only one cloud's VMs carry, and whose VMs give it no
    P2P (facts/platform.py CLOUD_ONLY_GPUS: the A10G of EC2 G5, where CUDA answers "peer access is not
    supported between these two devices"). The count may come from the user's words ("I have 4 A10Gs")
    where a cut table shows one GPU.

    Also bad: WSL 1 (its kernel release `4.4.0-<Windows build>-Microsoft`, from `uname -r`, a collect_env's or a
    Hugging Face environment report's platform: facts/platform.WSL1_KERNEL): WSL 1 translates Linux calls onto the
    Windows kernel and has no GPU paravirtualisation, so no CUDA work runs there (CUDA on WSL needs WSL 2).

    Also bad, where the source shows the VM costing the workload: P2P between its GPUs wrong or slow (a data test
    between them that failed, p2pBandwidthLatencyTest slower with P2P than half its host copies), or refused by the
    driver inside the guest (`nvidia-smi topo -p2p r` answering NS or another refusal for every pair, corpus 1503 on an
    EC2 g6.48xlarge; a program's record of cudaDeviceCanAccessPeer saying no, facts/peer_access.py, corpus 1629's
    TensorRT-LLM under WSL 2): the guest's GPUs then have no peer path, and tensor parallelism's all-reduce goes
    through host memory; WSL 2 whose NCCL log warns that it finds no sysfs PCI path for the GPU (`Could not find
    real path of /sys/class/pci_bus/...`): WSL hands Linux the GPU without the PCI tree, where that NCCL cannot build
    its topology and fails its init (corpus 2269); WSL 2 (its kernel, the nvidia-smi header's Linux
    library over the Windows driver, the user's words) with two or more GPUs: WSL's GPU paravirtualisation hands
    Linux each GPU through the Windows driver, without the PCIe topology or NVLink (microsoft/WSL#6587) of a Linux
    host, so NCCL between them goes through host memory, where multi-GPU NCCL under WSL 2 fails or crawls; WSL 2
    whose header shows a library of another branch than the Windows driver (`NVIDIA-SMI 580.105.08` over `572.16`), or
    whose program loads a Linux driver's own library beside WSL's (`/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01`:
    facts/platform.LINUX_DRIVER_LIBRARY), or where no nvidia-smi is shown, whose package list shows a Linux driver's
    package installed (`ii  libnvidia-compute-470:amd64 470.57.02-0ubuntu` in `dpkg -l`): a Linux driver package
    installed inside WSL, which shadows the libraries the Windows driver ships (WSL named without its version beside
    CUDA set up in it is WSL 2: WSL 1 has no GPU); a VM whose
    kernel log shows the driver refusing the passed-through GPU at probe ("is not supported by the NVIDIA ...
    driver release"): the device the hypervisor presents is not one the guest's driver binds; a Windows host's GPU table
    (its TCC/WDDM column) beside the user's words that the GPU fails in WSL (`can never get nvidia-smi to work under
    WSL`, `I get this error in WSL:`), or beside words naming WSL where a GPU shown is in TCC mode: WSL 2 is handed
    WDDM GPUs only, through the Windows driver's paravirtual device, so the GPUs do not reach the VM; WSL 2's GPU
    paravirtualisation driver (dxgkrnl) logging that the Windows host refused to make memory resident or to create an
    allocation (`dxgkio_make_resident: Ioctl failed: -12`: facts/symptoms.py wsl-dxg-allocation, corpus 2714), or NVML
    inside WSL 2 answering `GPU access blocked by the operating system` (wsl-gpu-blocked, corpus 2713: the Windows
    driver hands the VM no GPU). A list's `- NVIDIA-SMI: 535.309.01` item reads as the header's library version.

    Also bad: a GPU behind a CUDA API-remoting frontend (harp's libvirtdev-frontend or libharpcuda, GVirtuS's
    frontend: facts/platform.py REMOTING_FRONTENDS, named in a pasted line) whose lines show it failing the program
    (a CUDA_ERROR code, a failed assertion, a library that would not load): the frontend stands in for NVIDIA's
    libcuda and forwards each call to a GPU elsewhere, so a call it does not carry stops the workload (corpus 2021).
    A frontend named with no failure shown is judged as any other VM.

    Also bad: a VM whose NCCL topology tree (NCCL_DEBUG_SUBSYS=GRAPH) shows two or more GPUs under PCI switch ports
    only a hypervisor presents (QEMU's TI XIO3130, 104c:8232, which NCCL reads at 2.5 GT/s x1: `PCI[0.2]`): NCCL
    then plans over the guest's invented layout, which a topology file (NCCL_TOPO_FILE) replaces.

    Also bad: a VM whose pasted `lspci` puts two or more GPUs and an RDMA NIC (a passed-through ConnectX or its SR-IOV
    VF) side by side on the guest's bus 00, with no root port or switch above any of them (corpus 1294): the flat
    bus shows NCCL no PCIe switch or socket, so every GPU looks as near the NIC as every other and inter-node rings
    pick their GPU-NIC pairs blind unless a topology file (NCCL_TOPO_FILE) describes the host. Several GPUs on a
    flat bus without a NIC shown stay open (what the guest loses between its GPUs is not shown).

    Traps: in the guest, IOMMU and ACS readings describe the virtual topology (FW-IOMMU-MODE and
    FW-ACS-P2P are not applicable there). A VM with one passed-through GPU loses nothing to this (not an issue).
    Neither does a VM whose workload the source shows on one GPU (facts/parallelism.one_gpu_workload): a container
    given one GPU (a pod that only runs nvidia-smi too: what it printed is that GPU's view), an engine whose TP x PP
    is 1, an NCCL communicator of one rank (`nranks 1`). Nor does a guest of one vGPU (the workload's, or
    the one GPU shown) whose source shows none of the vGPU's limits at work, as the blind readings of the class
    split on it (h62a: not-an-issue in 295, 732, 763, 1327; issue in 311 and 932, whose users state the licence
    or the 20-minute slowdown). An excerpt that shows one GPU (a cut table,
    one device's lspci, a kernel log's or a hardware list's one GPU) is judged over that GPU (`1 GPU shown`), as the
    blind readings of the class do (h61f: 32 of 37), unless a GPU's `Minor Number`, another listing (JAX's device
    list), the user's words or the engine's TP x PP show more (then open); a laptop GPU's name (`... Laptop GPU`,
    `... with Max-Q Design`: facts/gpus.py GpuInventory.laptop_gpu) settles the only GPU outright. Neither does a VM whose GPUs
    meet over NVLink in every pair `nvidia-smi topo -m` shows (not an issue, over the rows shown). The hypervisor host that hands
    out vGPUs (its driver's `vGPU Driver Capability` section, `GPU Virtualization Mode: Host VGPU`, the kernel log's
    vGPU scheduler line `NVRM: GPU at ... has software scheduler ENABLED with policy BEST_EFFORT`) is no guest: bare
    metal (ok, as the blind readings of 1488 and 1504 say; 399 reads not-an-issue). Neither is a VM whose GPUs the source shows reaching each other peer-to-peer: an nvbandwidth
    peer test that measured every pair (Azure's health check `check_gpu_bw` runs one, and names an Azure VM),
    p2pBandwidthLatencyTest with P2P at least half as fast as host copies, a data test between local GPUs that passed
    (not an issue, over the GPUs the run names); an NCCL log whose channels join ranks over its P2P transport (`9[1] ->
    8[0] via P2P/IPC`), with no P2P failure or NCCL warning beside them: NCCL opens P2P only between GPUs of one host
    whose peer access the driver enabled, so the guest has its peer path (corpus 1580, an EKS p5.48xlarge node). Nor is a VM whose only workload shown (or, where nothing shows
    one, named in the user's words) is ollama or a llama.cpp server splitting by layers, its default (not
    `--split-mode row`): each GPU holds whole layers and passes one activation on per token, which needs no P2P
    (corpus 1425). Nor is a VM whose NCCL plans over its provider's topology file: aws-ofi-nccl's platform line handing
    NCCL the file for an instance type whose GPUs are SXM boards on NVLink (p4d, p4de: facts/platform.py GPU_INSTANCES;
    corpus 1696). A file the job set itself (`NCCL_TOPO_FILE environment variable is already set`) says no more than
    the VM. A laptop (its only GPU named `... Laptop GPU` or `... with Max-Q Design`) where nothing else
    tells the machine is not an issue either: Linux bare or WSL 2 on its Windows, with one GPU either way. Nor is a
    Windows host (its nvidia-smi table's TCC/WDDM column, a Windows path in the engine's log) whose sources show one GPU
    and state no more, where no source tells whether it is a VM: bare Windows, a Windows VM and WSL 2 on it each hold
    that one GPU (corpus 2143); with two or more it stays open. WSL 2 whose report says torch could not initialise CUDA
    (`Is CUDA available: False`) is left open: the workload never reached the GPUs, so what the VM costs them is
    not shown.
    Where no source tells whether the machine is a VM, a workload that needs no P2P or topology a VM could hide is
    not an issue either, VM or not, as both blind readers of the class read it (h122c: 2813, 2814, 2822, 2825, 2835,
    2840, 2864): one on one GPU (facts/parallelism.one_gpu_workload, else one_gpu_engine: an engine whose whole
    command runs TP 1, llama.cpp's device list of one, a host of one GPU), or ollama, or llama.cpp whose commands are
    read whole, splitting by layers (not `--split-mode row`). A known VM whose engine one_gpu_engine shows on one GPU,
    or whose ollama splits by layers with no GPU count shown, reads the same. A GPU named by a provider's partition or
    a vGPU profile (`L20-2-PCIE-48GB-48GB-L-H-V`, `GRID T4-4Q`: gputable.board_words), or not named at all, leaves the
    unknown machine open: such a GPU may be a vGPU, whose own limits meet a one-GPU workload too (corpus 885, 334).
    The workload must be in view (facts/engines_shown): a GPU listing alone leaves the machine open.
    """
    if virtualization is None:
        return _machine_unread(gpus, parallelism, docker_containers, serving_log, engines_shown, engine_commands,
                               serving_engine)
    # A symptom line that is FW-VM's failure only under WSL 2 (facts/symptoms.py IN_WSL) counts where the facts show it.
    outcome = _vm_verdict(virtualization, gpus=gpus, serving_log=serving_log, gpu_topology=gpu_topology, nvidia=nvidia,
                          parallelism=parallelism, docker_containers=docker_containers, gpu_events=gpu_events,
                          nvidia_driver=nvidia_driver, collect_env=collect_env, p2p_bandwidth=p2p_bandwidth,
                          p2p_data_tests=p2p_data_tests, pcie=pcie, engines_shown=engines_shown,
                          engine_commands=engine_commands, gpu_p2p=gpu_p2p, peer_refusals=peer_refusals,
                          serving_engine=serving_engine)
    return replace(outcome, sharpen=Sharpen(shows=(IN_WSL,))) if virtualization.wsl and outcome.sharpen is None \
        else outcome


def _vm_verdict(virtualization: Virtualization, gpus: GpuInventory | None = None,
                serving_log: ServingLog | None = None, gpu_topology: TopoMatrix | None = None,
                nvidia: NvidiaGpus | None = None, parallelism: Parallelism | None = None,
                docker_containers: DockerContainers | None = None, gpu_events: GpuEvents | None = None,
                nvidia_driver: NvidiaDriver | None = None, collect_env: CollectEnv | None = None,
                p2p_bandwidth: P2pBandwidth | None = None, p2p_data_tests: P2pDataTests | None = None,
                pcie: PcieFacts | None = None, engines_shown: EnginesShown | None = None,
                engine_commands: EngineCommands | None = None, gpu_p2p: P2pMatrix | None = None,
                peer_refusals: PeerRefusals | None = None, serving_engine: ServingEngine | None = None) -> Outcome:
    """FW-VM's verdict from its facts (the check `vm` documents it)."""
    if virtualization.wsl1:
        # The blind readings of 2662 (both readers): torch's GPU False under WSL 1, which has no GPU at all.
        return issue(f"{virtualization.wsl1}: no NVIDIA device or libcuda exists there, so no CUDA work runs, whatever "
                     "the Windows driver", actual={"wsl": 1},
                     expected="WSL 2 (a Hyper-V utility VM handed the Windows driver's GPU) or Linux on the machine",
                     fix=advice("On Windows run `wsl -l -v`, then `wsl --set-version <distro> 2` (and `wsl "
                                "--update`); use the Windows NVIDIA driver's libraries in /usr/lib/wsl/lib, with no "
                                "Linux NVIDIA driver inside the distribution", cost="runtime"))
    if not virtualization.vm and (unreached := _wsl_unreached(virtualization, nvidia)):
        return unreached
    if not virtualization.vm and virtualization.laptop:
        # A laptop holds one discrete GPU: bare or under WSL 2, no pair for a hypervisor to keep apart (corpus 1464).
        where = (f"a Windows host ({virtualization.source}) on a laptop ({virtualization.laptop}): the engine runs "
                 "on Windows itself or in WSL 2 on it" if virtualization.windows else
                 f"a laptop ({virtualization.laptop}): bare metal or WSL 2 on its Windows")
        return not_an_issue(f"{where}, either way with one GPU, so no GPU-to-GPU P2P or topology a VM could hide",
                            actual="laptop")
    if not virtualization.vm and (alone := _one_gpu_shown(gpus, parallelism)):
        # Bare Windows, a Windows VM or WSL 2 on it: one GPU in each, no pair for a hypervisor to keep apart.
        judged = not_an_issue(f"{virtualization.source}: a Windows host, bare or a VM (or WSL 2 on it), with one GPU "
                              f"({alone}): no GPU pair whose P2P or topology a VM could hide", actual="windows")
        return over_subjects(judged, [g.label for g in gpus.gpus] or ["GPU 0"], 1, ask="nvidia-smi -L",
                             at_least=True) if gpus is not None and gpus.count_unshown else judged
    if not virtualization.vm:  # the sources name the operating system only (a Windows host), not the machine
        return unknown(f"{virtualization.source}: a Windows host, but no source tells whether it is a virtual machine",
                       hint="paste `systeminfo` (its System Model line) or `nvidia-smi -q`")
    host = vgpu_host(nvidia)
    if not virtualization.is_vm and host:
        # The blind readings of the class (h72d): ok in 1488 and 1504, not-an-issue in 399: the host is no VM.
        return ok(f"the hypervisor host that hands out vGPUs ({host}), not a guest: the engines run in the VMs, and "
                  "P2P and topology read here are the physical ones", actual="none")
    if not virtualization.is_vm:
        return ok(f"bare metal ({virtualization.source})", actual="none")
    vgpu = vgpu_guest(nvidia, gpus) or virtualization.vgpu
    refused = gpu_events.refused if gpu_events is not None else ()
    if refused:
        return issue(f"virtual machine ({virtualization.vm}) whose driver refuses the GPU it is handed at probe "
                     f"({refused[0].bdf}, PCI ID 10de:{refused[0].device_id}, driver {refused[0].release}): the "
                     "device the hypervisor presents is not one this guest's driver release binds",
                     actual={"vm": virtualization.vm, "refused": [g.bdf for g in refused]},
                     expected="the GPU passed through whole, in a mode (confidential computing off or on, as the "
                              "guest expects) and with a driver release that supports it",
                     subjects=[g.bdf for g in refused], evidence=[g.line for g in refused][:2])
    if virtualization.remote_failure:
        # The blind readings of 2021 (both readers): lmdeploy's CUDA calls fail inside harp's frontend libcuda.
        return issue(f"a remoted GPU ({virtualization.source}): the program's CUDA calls go through an API-remoting "
                     "frontend in place of NVIDIA's libcuda, and the frontend failed it "
                     f"({virtualization.remote_failure[:160]!r}): a call the remoting layer does not carry, or carries "
                     "wrong, stops the workload whatever the GPU behind it",
                     actual={"vm": virtualization.vm, "frontend": virtualization.source.split(": ", 1)[-1]},
                     expected="the engine's CUDA calls served by NVIDIA's own driver library (a GPU passed through or "
                              "bare metal), or a frontend release that carries them",
                     evidence=[virtualization.remote_failure, virtualization.remoted][:2],
                     fix=advice("Run the engine where NVIDIA's libcuda serves the GPU (bare metal or a passed-through "
                                "GPU), or ask the platform for a frontend release that supports the failing call",
                                cost="hardware"))
    if virtualization.wsl:
        smi = nvidia.smi_version if nvidia is not None else nvidia_driver.smi_version if nvidia_driver else None
        drv = nvidia.driver_version if nvidia is not None else nvidia_driver.version if nvidia_driver else None
        package = nvidia_driver.installed_package if nvidia_driver is not None and nvidia is None else ""
        # A Linux driver's package installed in the distro (`ii  libnvidia-compute-470:amd64 470.57.02-0ubuntu`, corpus
        # 2337) puts its libcuda and libnvidia-ml in /usr/lib/x86_64-linux-gnu, beside WSL's.
        library = wsl_foreign_library(smi, drv, virtualization.linux_library)
        if foreign := library or (
                f"a Linux driver's package is installed in the distro ({package[:100]!r})" if package else ""):
            # The package's row is the value: it leads, where the user's words name WSL (a long source) alone.
            lead = (f"WSL 2 ({virtualization.source}): {foreign}" if library
                    else f"{foreign} under WSL 2 ({virtualization.source})")
            return issue(f"{lead}, whose libraries shadow the ones the Windows driver ships in /usr/lib/wsl/lib; CUDA "
                         "programs then load a library that does not match the driver that serves the GPU",
                         actual={"library": smi or virtualization.linux_library or package, "driver": drv},
                         expected="no Linux NVIDIA driver inside WSL 2: the libraries of the Windows driver's branch",
                         fix=advice("Inside WSL 2, remove the Linux NVIDIA driver packages (`sudo apt purge "
                                    "'nvidia-*'`, keeping the CUDA toolkit), so that /usr/lib/wsl/lib's libraries "
                                    "serve; update the driver on Windows", cost="runtime"))
        unread = [line for line in (serving_log.nccl_warnings if serving_log is not None else ())
                  if NCCL_PCI_PATH_UNREAD.search(line)]
        if unread:
            # Both readers of corpus 2269: the VM costs the workload its NCCL, whose init fails on the missing PCI tree.
            return issue(f"NCCL found no PCI path in sysfs for the GPU under WSL 2 ({virtualization.source}): \"{unread[0]}\": "
                         "WSL's GPU paravirtualisation hands Linux the GPU through the Windows driver without the PCI "
                         "tree, where this NCCL cannot build its topology and its init fails",
                         actual={"vm": virtualization.vm, "nccl": "no PCI path in sysfs"}, evidence=unread[:2],
                         expected="an NCCL release that runs under WSL 2, or native Linux for NCCL",
                         fix=advice("Under WSL 2 run an NCCL release that supports it (the one a current PyTorch "
                                    "wheel ships), or run the job on native Linux", cost="runtime"))
    one_gpu = one_gpu_workload(parallelism, docker_containers, serving_log, diagnostic=True)
    if vgpu and not virtualization.vgpu_limit and (single := _one_vgpu(gpus, parallelism, one_gpu)) is not None:
        # The blind readings of the class (h62a): a guest of one vGPU whose source shows none of the vGPU's limits at
        # work reads not-an-issue (295, 732, 763, 1327), the one where the user's words show one issue (311, 932).
        judged = not_an_issue(f"a vGPU guest ({vgpu}) with one GPU ({single}): no GPU pair whose P2P or topology the VM "
                              "could hide, and none of the vGPU's own limits (unified memory and the CUDA profilers "
                              "off unless the host enables them, an unlicensed vGPU throttled after 20 minutes) shows "
                              "at work in the source", actual={"vm": virtualization.vm, "vgpu": vgpu})
        if one_gpu or gpus is None or not gpus.count_unshown:
            return judged
        return over_subjects(judged, [g.label for g in gpus.gpus] or ["GPU 0"], 1, ask="nvidia-smi -L", at_least=True)
    if vgpu:
        # One GPU for the workload leaves no P2P to lose; unified memory, the profilers and the license still apply.
        return issue(f"a vGPU guest ({vgpu}): NVIDIA vGPU turns unified memory and the CUDA profilers off unless "
                     "the host enables them for this VM, "
                     + ("" if one_gpu else "gives no P2P over PCIe (NVLink only, between full-profile vGPUs) ")
                     + "and throttles an unlicensed vGPU after 20 minutes; CUDA calls "
                     "that need them fail with 'operation not supported'"
                     + (f" (the workload uses one GPU: {'; '.join(one_gpu)}, so P2P plays no part)" if one_gpu else "")
                     + (f"; one is at work in {virtualization.vgpu_limit}" if virtualization.vgpu_limit else ""),
                     actual={"vm": virtualization.vm, "vgpu": vgpu},
                     expected="the features the engine uses enabled on the host (enable_uvm, enable_profiling), a "
                              "valid vGPU license, or a passed-through GPU", subjects=[vgpu.split(" is ")[0]]
                     if " is named" in vgpu else [])
    count = gpus.count if gpus is not None else None
    unshown = gpus.count_unshown if gpus is not None else ""
    if count is not None and count < 2 and unshown and gpus is not None and (gpus.at_least or 0) >= 2:
        # An excerpt shows one GPU, another source (the user's words: "I have 4 A10Gs") states more.
        count, unshown = gpus.at_least, ""
    shown = [g.label for g in gpus.gpus] if gpus is not None else []
    if (one_gpu and not (count is not None and count < 2 and not unshown)) or ((count is None or count >= 2) \
            and (one_gpu := tuple(filter(None, [one_gpu_engine(serving_engine, gpus, engine_commands, serving_log)])))):
        return not_an_issue(f"virtual machine ({virtualization.vm}); the workload uses one GPU ({'; '.join(one_gpu)}): "
                            "no GPU pair whose P2P or topology the VM could hide", actual=virtualization.vm)
    if count is None and gpus is not None and len(gpus.gpus) == 1:
        # A source that names one GPU without counting (a kernel log's NVRM lines, a hardware list's one model).
        count, unshown = 1, "no source lists the GPUs whole"
    world = parallelism.shown_world_size if parallelism is not None else None
    if count is not None and count < 2 and unshown and gpus is not None:
        if world is not None and world > 1:
            return unknown(f"virtual machine ({virtualization.vm}) with {count} GPU shown, but {unshown}, and the "
                           f"engine's TP x PP is {world}: the GPUs it spans are not shown",
                           hint="paste the whole `nvidia-smi -L` (or `nvidia-smi topo -p2p r`) from the VM",
                           actual=virtualization.vm)
        beyond = max((g.index for g in gpus.gpus if g.index is not None), default=0)
        if beyond > 0:
            # The one GPU shown is numbered above 0: GPUs 0 to its number precede it, shown or not.
            return unknown(f"virtual machine ({virtualization.vm}) with {count} GPU shown, but {unshown}, and it is "
                           f"GPU {beyond}: the host has at least {beyond + 1}",
                           hint="paste the whole `nvidia-smi -L` (or `nvidia-smi topo -p2p r`) from the VM",
                           actual=virtualization.vm)
        if laptop := gpus.laptop_gpu:
            return not_an_issue(f"virtual machine ({virtualization.vm}) with one GPU: {laptop}: no GPU-to-GPU P2P "
                                "involved", actual=virtualization.vm)
        # The majority of blind readings (corpus 255, 504, 507, 567, 656, 950, 1168, 1270): a VM whose sources show
        # one GPU and state no more is judged over that GPU, with the cut named in the coverage (`1 GPU shown`).
        judged = not_an_issue(f"virtual machine ({virtualization.vm}) with {count} GPU shown and no source showing or "
                              f"stating more ({unshown}): no GPU pair whose P2P or topology the VM could hide",
                              actual=virtualization.vm)
        return over_subjects(judged, shown or ["GPU 0"], count, ask="nvidia-smi -L", at_least=True)
    if count is not None and count < 2:
        judged = not_an_issue(f"virtual machine ({virtualization.vm}) with {count} GPU: no GPU-to-GPU P2P involved",
                              actual=virtualization.vm)
        return over_subjects(judged, shown, count, ask="nvidia-smi -L") if shown else judged
    broken = _p2p_broken(p2p_bandwidth, p2p_data_tests)
    if broken:
        return issue(f"virtual machine ({virtualization.vm}) whose GPUs the source shows failing to reach each other "
                     f"peer-to-peer ({broken[0]}): under a hypervisor, P2P needs the host to pass the real PCIe "
                     "topology with ATS/ACS set for it, and here what the guest is offered is wrong or slow",
                     actual={"vm": virtualization.vm, "p2p": broken[:4]}, evidence=broken[:4],
                     expected="P2P that carries data intact at P2P speed, or NCCL_P2P_DISABLE=1 (host memory)")
    denied = _peer_refused(gpu_p2p, peer_refusals)
    if denied is not None:
        said, devices, lines = denied
        # The blind readings (1503, 1629, and 1078's refused copy): a guest whose driver says no peer access between
        # its GPUs is the VM costing the workload its P2P path, where a multi-GPU guest with no P2P reading stays open.
        return issue(f"virtual machine ({virtualization.vm}) whose driver refuses peer access between its GPUs "
                     f"({said}): the guest's GPUs have no peer path, so a tensor-parallel group's all-reduce and "
                     "NCCL between them go through host memory, and a program that needs peer access fails",
                     actual={"vm": virtualization.vm, "refused": devices},
                     expected="P2P between TP peers (the whole PCIe switch or NVLink passed through, ATS/ACS set for "
                              "it), or one GPU per model replica, or the engine's P2P paths off (custom all-reduce "
                              "disabled, NCCL_P2P_DISABLE=1)",
                     subjects=devices, evidence=lines)
    works = _p2p_works(p2p_bandwidth, p2p_data_tests)
    if works is not None:
        said, devices = works
        judged = not_an_issue(f"virtual machine ({virtualization.vm}) whose GPUs the source shows reaching each other "
                              f"peer-to-peer ({said}): the VM costs them no P2P path", actual=virtualization.vm,
                              evidence=[said])
        return over_subjects(judged, devices, count) if devices else judged
    if not virtualization.wsl and (nccl := _nccl_p2p_set_up(serving_log)) is not None:
        said, ranks = nccl
        # NCCL opens its P2P transport only between GPUs of one host whose peer access the driver enabled: inside
        # the guest, the hypervisor gives those GPUs a peer path (corpus 1580: `9[1] -> 8[0] via P2P/IPC` on each
        # p5.48xlarge node of an EKS job whose loss is on the network).
        judged = not_an_issue(f"virtual machine ({virtualization.vm}) whose NCCL log shows {said}, with no P2P "
                              "failure or NCCL warning in the lines shown: the driver enabled peer access between "
                              "those GPUs inside the guest, so the VM does not cost them their P2P path",
                              actual=virtualization.vm,
                              evidence=[c.line for c in serving_log.channels if c.transport == "P2P"][:2]
                              if serving_log is not None else [])
        return over_subjects(judged, ranks, count) if count is not None and count > len(ranks) else judged
    if ((count is not None and count >= 2) or (count is None and _split_read(engines_shown, engine_commands))) \
            and (split := _layer_split_only(engines_shown, engine_commands)):
        # ggml's layer split hands each GPU whole layers and copies one activation between them per token, through
        # host memory where no P2P is given: the VM's missing peer path costs it nothing (corpus 1425).
        return not_an_issue(f"virtual machine ({virtualization.vm}) with {count} GPUs, whose workload is {split}: "
                            "each GPU holds whole layers and passes one activation on per token, which needs no "
                            "P2P between them, so the VM's P2P and topology cost it nothing",
                            actual={"vm": virtualization.vm, "gpus": count})
    if virtualization.wsl and count is not None and count >= 2:
        if collect_env is not None and collect_env.cuda_unavailable:
            return unknown(f"WSL 2 ({virtualization.source}) with {count} GPUs, but the report says torch could not "
                           "initialise CUDA (`Is CUDA available: False`): the workload never reached the GPUs, so "
                           "what the VM costs them is not shown", actual=virtualization.vm,
                           hint="fix CUDA's start first; then `nvidia-smi topo -p2p r` inside WSL 2")
        return issue(f"WSL 2 ({virtualization.source}) with {count} GPUs: WSL's GPU paravirtualisation hands Linux "
                     "each GPU through the Windows driver, without the PCIe topology or NVLink (microsoft/WSL#6587) a "
                     "Linux host gives, so NCCL or tensor parallelism across them goes through host memory, where "
                     "multi-GPU NCCL under WSL 2 fails or crawls" + (f" ({unshown})" if unshown else ""),
                     actual={"vm": virtualization.vm, "gpus": count},
                     expected="one GPU per model replica under WSL 2, or native Linux for multi-GPU tensor parallelism",
                     fix=advice("Run multi-GPU NCCL / tensor parallelism on native Linux (dual boot or a Linux host); "
                                "under WSL 2 give each model one GPU (`CUDA_VISIBLE_DEVICES`), or set "
                                "`NCCL_P2P_DISABLE=1` where NCCL hangs", cost="hardware"))
    tree = serving_log.topo_tree if serving_log is not None else None
    if tree is not None and tree.emulated and len(tree.gpus) > 1:
        # NCCL reads the guest's emulated switch ports as the PCIe tree: their links as the bridge reports them
        # (QEMU's XIO3130 says 2.5 GT/s x1, NCCL's `PCI[0.2]`), not the host's Gen4/Gen5 x16 path (corpus 1269).
        lines = [line for _, line in tree.emulated][:3]
        return issue(f"virtual machine ({virtualization.vm}) whose NCCL topology tree is the hypervisor's "
                     f"({len(tree.emulated)} emulated switch port{'s' if len(tree.emulated) > 1 else ''}): "
                     f"{tree.emulated[0][0]} above the GPUs ({', '.join(f'GPU/{g}' for g in tree.gpus)}), whose links "
                     "NCCL reads from the emulated bridge rather than the host's PCIe path, so it weighs its rings, "
                     "trees and GPU-NIC paths against a layout the host does not have",
                     actual={"vm": virtualization.vm, "switches": len(tree.emulated)}, evidence=lines,
                     expected="the provider's NCCL topology file (NCCL_TOPO_FILE) describing the real layout",
                     subjects=[f"GPU/{g}" for g in tree.gpus])
    topo = gpu_topology
    if topo is not None and len(topo.gpus) > 1 and not topo.unshown_pairs() and topo.numa_hidden():
        spans = ", ".join(sorted(set(topo.numa_affinity.values())))
        return issue(f"virtual machine ({virtualization.vm}) whose {len(topo.gpus)} GPUs all show NUMA affinity "
                     f"{spans} and no SYS path in `nvidia-smi topo -m`: the guest's view hides which socket each GPU "
                     "hangs off, so NCCL picks its paths blind", actual={"vm": virtualization.vm, "numa": spans},
                     expected="the provider's NCCL topology file (NCCL_TOPO_FILE) for this instance type",
                     subjects=list(topo.gpus), evidence=[topo.lines[g] for g in topo.gpus if g in topo.lines][:2])
    cloud_gpu = cloud_only_gpu(gpus.models.values() if gpus is not None else ())
    if cloud_gpu is not None and count is not None and count >= 2:
        return issue(f"virtual machine ({virtualization.vm}) with {count} {cloud_gpu.model} GPUs: the {cloud_gpu.model} is "
                     f"{cloud_gpu.what}, so a tensor-parallel group's all-reduce goes through host memory",
                     actual={"vm": virtualization.vm, "gpus": count, "model": cloud_gpu.model},
                     expected="P2P between TP peers (an instance whose GPUs meet over NVLink), or one GPU per model "
                              "replica", evidence=[f"the GPU table names {cloud_gpu.model}: {', '.join(cloud_gpu.sources)}"])
    if topo is not None and topo.nvlink_between_shown():
        rows = [g for g in topo.gpus if g in topo.lines]
        judged = not_an_issue(f"virtual machine ({virtualization.vm}) whose GPUs meet over NVLink in every pair "
                              "`nvidia-smi topo -m` shows: P2P between them does not cross the guest's virtual PCIe "
                              "topology", actual=virtualization.vm, evidence=[topo.lines[g] for g in rows][:2])
        return over_subjects(judged, rows, len(topo.gpus))
    if (flat := _flat_guest_bus(pcie)) is not None:
        gpus_flat, nics = flat
        return issue(f"virtual machine ({virtualization.vm}) whose {len(gpus_flat)} GPUs and RDMA NIC "
                     f"{', '.join(n.bdf for n in nics)} sit flat on the guest's bus 00 ("
                     f"{', '.join(g.bdf for g in gpus_flat[:4])}{', ...' if len(gpus_flat) > 4 else ''}), with no "
                     "root port or switch above them: NCCL sees no PCIe switch or socket, so every GPU looks as near "
                     "the NIC as every other and its inter-node rings pair GPUs with the NIC blind",
                     actual={"vm": virtualization.vm, "gpus": len(gpus_flat), "nics": [n.bdf for n in nics]},
                     expected="the host's topology given to NCCL (NCCL_TOPO_FILE), or GPUs and NICs passed through "
                              "behind root ports that mirror the host's PCIe layout",
                     subjects=[g.bdf for g in gpus_flat],
                     fix=advice("Give NCCL the host's real layout: export NCCL_TOPO_FILE with a topology XML of the "
                                "host's GPUs and NICs, or pass them through behind root ports (pxb-pcie) that mirror "
                                "the host's PCIe switches and NUMA nodes", cost="runtime"),
                     evidence=[line for f in (*gpus_flat[:1], *nics[:1]) if (line := _lspci_line(f))])
    if (provided := _provider_topology(serving_log)) is not None:
        # The blind readings of 1696 (both readers): EC2 p4d.24xlarge guests whose NCCL plans over the plugin's
        # topology file, the A100s on the instance's NVSwitch, lose nothing to the VM.
        name, model, line = provided
        return not_an_issue(f"virtual machine ({virtualization.vm}), an EC2 {name} whose {model} GPUs meet over "
                            "NVLink, and aws-ofi-nccl hands NCCL the provider's topology file for that type: NCCL "
                            "plans its rings and GPU-NIC paths over the host's real layout, not the guest's "
                            "virtual PCIe tree", actual={"vm": virtualization.vm, "instance": name}, evidence=[line])
    return unknown(
        f"virtual machine ({virtualization.vm}) with {count if count is not None else 'an unknown number of'} GPUs: "
        "P2P between them depends on the hypervisor; IOMMU/ACS checks describe the virtual topology",
        hint="run `nvidia-smi topo -p2p r` in the VM: anything but OK between TP peers means NCCL falls back",
        actual=virtualization.vm)


def _machine_unread(gpus: GpuInventory | None, parallelism: Parallelism | None,
                    containers: DockerContainers | None, log: ServingLog | None, shown: EnginesShown | None,
                    commands: EngineCommands | None, engine: ServingEngine | None) -> Outcome:
    """FW-VM where no source tells whether the machine is a VM: not an issue where the workload shown needs no P2P or
    topology a VM could hide (its one GPU, or ollama's layer split), whatever the machine; else open on the machine.

    The workload must be in view (facts/engines_shown), and every GPU shown named as the driver names a whole GPU: a
    vGPU profile's name (`GRID T4-4Q`), a provider's own (`L20-2-PCIE-48GB-48GB-L-H-V`, corpus 885) or none (corpus
    334) may be a vGPU, whose own limits a one-GPU workload meets too. ollama splits by layers only (ggml's lines beside
    it are its runner's); llama.cpp's layer split counts where each of its commands is read whole: an unread or cut one
    may set `--split-mode row` (corpus 1472)."""
    if shown is None or not all(_product_name(g.model) for g in (gpus.gpus if gpus is not None else ())):
        return unknown("", needs="virtualization")
    alone = one_gpu_workload(parallelism, containers, log, diagnostic=True)
    one = "; ".join(alone) if alone else one_gpu_engine(engine, gpus, commands, log)
    if one:
        # The blind readings of the class (h122c: both readers of 2825, 2835, 2840, 2864): a workload on one GPU loses
        # nothing to a VM, so whether the machine is one does not decide the check.
        return not_an_issue(f"no source tells whether the machine is a virtual machine, but the workload runs on one "
                            f"GPU ({one}): no GPU pair whose P2P or topology a VM could hide, VM or not",
                            actual={"vm": "not shown", "gpus": 1})
    if _split_read(shown, commands) and (split := _layer_split_only(shown, commands)):
        # Both readers of 2813, 2814 and 2822: ollama's layer split needs no P2P, VM or not.
        return not_an_issue(f"no source tells whether the machine is a virtual machine, but the workload is {split}: "
                            "each GPU holds whole layers and passes one activation on per token, which needs no P2P "
                            "between GPUs, so a VM's P2P and topology would cost it nothing", actual={"vm": "not shown"})
    return unknown("", needs="virtualization")


def _split_read(shown: EnginesShown | None, commands: EngineCommands | None) -> bool:
    """Whether the sources show how the ggml engine splits its model without a GPU count beside it: ollama, which
    splits by layers only (ggml's lines beside it are its runner's), or llama.cpp commands each read whole (an unread or
    cut one may set `--split-mode row`, corpus 1472)."""
    named = {e for e in (shown.engines if shown is not None else ()) if e} - {GGML}
    ggml = [c for c in (commands.commands if commands is not None else ()) if c.engine in _LAYER_SPLIT_ENGINES]
    return (bool(named) and named <= {"ollama"}) or (bool(ggml) and not any(c.cut for c in ggml))


def _product_name(model: str) -> bool:
    """Whether a GPU is named, and by a product's name rather than a provider's partition or a vGPU profile
    (gputable.board_words): a name either kind of slice bears says the GPU may be shared."""
    return bool(model.strip()) and not board_words(model)


# The engines built on ggml (llama.cpp's servers, ollama's runner) that split a model over several GPUs by layers
# by default (llama.cpp's `--split-mode` help: "layer (default): split layers and KV across GPUs").
_LAYER_SPLIT_ENGINES = frozenset({"ollama", "llamacpp", GGML})


def _layer_split_only(shown: EnginesShown | None, commands: EngineCommands | None) -> str:
    """The ggml engine the sources show as the only workload, splitting by layers, in words; "" where another engine
    is shown or named, or a command splits otherwise (`--split-mode row`: partial results cross GPUs per matmul)."""
    named = {e for e in (shown.engines if shown is not None else ()) if e}
    if not named or not named <= _LAYER_SPLIT_ENGINES:
        return ""
    modes = {argv_value(c.argv, ("--split-mode", "-sm")) or "layer" for c in (commands.commands if commands else ())
             if c.engine in _LAYER_SPLIT_ENGINES}
    if modes - {"layer"}:
        return ""
    said = "" if shown is None or any(shown.shown) else " (the user's words)"
    return f"{' and '.join(sorted(named - {GGML}) or ['a ggml program'])}{said}, which splits a model by layers"


def _provider_topology(log: ServingLog | None) -> tuple[str, str, str] | None:
    """(instance type, GPU model, line) where aws-ofi-nccl's platform line (ServingLog.ofi_platform) shows it handing
    NCCL its own topology file for an instance type whose GPUs are SXM boards on NVLink (GPU_INSTANCES: p4d, p4de);
    None where no line does, the job set NCCL_TOPO_FILE itself, or the type's GPUs have no NVLink (g5.48xlarge)."""
    platform = log.ofi_platform() if log is not None else None
    if platform is None or not platform[1]:
        return None
    sized = instance_gpus(platform[0])
    if sized is None or sized[0] < 2 or "SXM" not in sized[1].model:
        return None
    return platform[0], sized[1].model, platform[2]


def _single_gpu(gpus: GpuInventory | None, parallelism: Parallelism | None) -> GpuInventory | None:
    """The GPUs shown where they are one, counted or the only one listed, no source states more and the engine's
    TP x PP is 1 or unshown; None otherwise."""
    if gpus is None or (gpus.at_least or 0) >= 2:
        return None
    count = gpus.count if gpus.count is not None else 1 if len(gpus.gpus) == 1 else None
    world = parallelism.shown_world_size if parallelism is not None else None
    return gpus if count == 1 and (world is None or world <= 1) else None


def _one_gpu_shown(gpus: GpuInventory | None, parallelism: Parallelism | None) -> str:
    """How the sources show one GPU (_single_gpu), naming it; "" otherwise."""
    if (one := _single_gpu(gpus, parallelism)) is None:
        return ""
    named = one.gpus[0].label if one.gpus else "GPU 0"
    return f"{named}, 1 GPU shown: {one.count_unshown}" if one.count_unshown else named


def _one_vgpu(gpus: GpuInventory | None, parallelism: Parallelism | None, one_gpu: Sequence[str]) -> str | None:
    """How the source shows a vGPU guest with one GPU (the workload's, or the GPUs shown: _single_gpu), or None."""
    if one_gpu:
        return "; ".join(one_gpu)
    if (one := _single_gpu(gpus, parallelism)) is None:
        return None
    return f"1 GPU shown, {one.count_unshown}" if one.count_unshown else "1 GPU"


def _flat_guest_bus(pcie: PcieFacts | None) -> tuple[list[PcieFunction], list[PcieFunction]] | None:
    """The GPUs and RDMA NICs of a guest's flat PCI bus: two or more GPUs and at least one NIC, every one of them on
    bus 00 of its domain with no bridge above it (pci_address.on_root_bus); None otherwise."""
    if pcie is None:
        return None
    gpus, nics = list(pcie.gpus), list(pcie.role("nic"))
    flat = [f for f in (*gpus, *nics) if on_root_bus(f.bdf) and not f.upstream]
    if len(gpus) < 2 or not nics or len(flat) != len(gpus) + len(nics):
        return None
    # An RDMA NIC, the one inter-node NCCL pairs with GPUs: Mellanox/NVIDIA ConnectX (vendor 15b3), or InfiniBand.
    rdma = [n for n in nics if n.lspci is not None and (n.lspci.vendor == "0x15b3" or "infiniband" in
                                                          f"{n.lspci.class_name} {n.lspci.description}".lower())]
    return (gpus, rdma) if rdma else None


def _lspci_line(fn: PcieFunction) -> str:
    return f"{fn.bdf} {fn.lspci.class_name}: {fn.lspci.description}" if fn.lspci is not None else ""


def _wsl_unreached(virtualization: Virtualization, nvidia: NvidiaGpus | None) -> Outcome | None:
    """FW-VM where the GPU table is a Windows host's and the user's words name a WSL VM on it (Virtualization
    wsl_guest): an issue where those words say the GPU fails in the VM, or where a GPU shown is in TCC mode (WSL 2 is
    handed WDDM GPUs only); None otherwise."""
    if not virtualization.wsl_guest:
        return None
    tcc = [g for g in (nvidia.gpus if nvidia is not None else ()) if g.driver_model == "TCC"]
    if not virtualization.wsl_fails and not tcc:
        return None
    said = (f"GPU {', '.join(g.label for g in tcc)} in TCC mode, which Windows never hands to WSL (its GPU "
            "paravirtualisation shares WDDM GPUs only), so the VM cannot use it at all") if tcc else ""
    fails = ("the GPUs do not reach this VM while the host's own nvidia-smi sees them: WSL 2 gets a GPU only through "
             "the Windows driver's paravirtual device (/dev/dxg, /usr/lib/wsl/lib), which WSL 1, an old WSL kernel or "
             "a Linux NVIDIA driver installed inside the distribution breaks, so no CUDA work runs in it"
             if virtualization.wsl_fails else "")
    return issue(f"a WSL VM on this Windows host ({virtualization.wsl_guest}; the GPU table is the host's: "
                 f"{virtualization.source}): " + "; ".join(x for x in (fails, said) if x),
                 actual={"vm": "microsoft", "wsl_fails": virtualization.wsl_fails,
                         "tcc": [g.subject for g in tcc]},
                 expected="WSL 2 with the Windows driver's GPU (nvidia-smi works inside it) on a GPU in WDDM mode",
                 subjects=[g.subject for g in tcc],
                 fix=advice("Run `wsl -l -v` (VERSION 2) and `wsl --update`; inside the distribution use the "
                            "Windows driver's libraries in /usr/lib/wsl/lib and remove any Linux NVIDIA driver "
                            "package; give WSL a GPU in WDDM mode (`nvidia-smi -g N -dm 0` on Windows)",
                            cost="runtime"))


def _p2p_broken(bandwidth: P2pBandwidth | None, data_tests: P2pDataTests | None) -> list[str]:
    """What shows P2P between the GPUs wrong or slow, in words: a data test between GPUs of one host that failed
    (simpleP2P's verification, nccl-tests' wrong values), p2pBandwidthLatencyTest slower with P2P than half its
    host-memory copies; [] where nothing does."""
    failed = [f"{t.program}: {t.line.strip()}" for t in (data_tests.bearing() if data_tests is not None else ())
              if not t.passed]
    slow = [f"{a}->{b} {en:.2f} GB/s with P2P against {dis:.2f} GB/s without"
            for a, b, en, dis in (bandwidth.slow() if bandwidth is not None else ())]
    return failed + slow


def _peer_refused(matrix: P2pMatrix | None, refusals: PeerRefusals | None
                  ) -> tuple[str, list[str], list[str]] | None:
    """What shows the driver refusing peer access between the guest's GPUs, in words, with the GPUs and the lines:
    a `nvidia-smi topo -p2p` matrix refusing every pair (P2pMatrix.refuses_all), else a program's record of
    cudaDeviceCanAccessPeer saying no (PeerRefusals) for a pair no matrix shows `OK`; None where nothing does."""
    if matrix is not None and matrix.refuses_all():
        mode = f" {matrix.mode}" if matrix.mode else ""
        return (f"`nvidia-smi topo -p2p{mode}` answers {matrix.states_not_ok()} for every pair of its "
                f"{len(matrix.gpus)} GPUs", list(matrix.gpus), [matrix.lines[g] for g in matrix.gpus if g in matrix.lines][:2])
    found = [r for r in (refusals.refusals if refusals is not None else ())
             if matrix is None or matrix.status(f"GPU{r.a}", f"GPU{r.b}") != "OK"]
    if not found:
        return None
    first = found[0]
    devices = sorted({d for r in found for d in (r.a, r.b)})
    return (f"{first.said_by} refused peer access between devices {first.a} and {first.b}: "
            f"'{first.line.strip()[:120]}'", [f"GPU {d}" for d in devices], [r.line.strip() for r in found][:2])


def _p2p_works(bandwidth: P2pBandwidth | None, data_tests: P2pDataTests | None) -> tuple[str, list[str]] | None:
    """What shows P2P at work between the GPUs, in words, with the GPUs it covers (CUDA ordinals as `GPU n`, none
    where the run does not name them); None where nothing does or something shows it failing: an nvbandwidth peer
    test that measured every pair (it runs only with peer access granted), p2pBandwidthLatencyTest with every pair
    at least half as fast with P2P as without, a data test between GPUs of one host that passed."""
    tested = data_tests.bearing() if data_tests is not None else ()
    if any(not t.passed for t in tested) or (bandwidth is not None and bandwidth.slow()):
        return None
    peer = bandwidth.peer_pairs() if bandwidth is not None else ()
    if peer:
        key, cells = peer[0]
        devices = sorted({d for a, b, _ in cells for d in (a, b)})
        return (f"{bandwidth.program if bandwidth is not None else 'nvbandwidth'}'s {key} measured every pair, "
                f"{min(v for _, _, v in cells):.2f} GB/s at least", [f"GPU {d}" for d in devices])
    compared = bandwidth.compared() if bandwidth is not None else ()
    if compared:
        devices = sorted({d for a, b, _, _ in compared for d in (a, b)})
        return (f"p2pBandwidthLatencyTest: every pair that can access its peer ({len(compared)}) is at least half as "
                "fast with P2P as through host memory", [f"GPU {d}" for d in devices])
    passed = [t for t in tested if t.passed]
    if passed:
        return f"{passed[0].program} moved data between the GPUs and checked it: {passed[0].line.strip()}", []
    return None


def _nccl_p2p_set_up(log: ServingLog | None) -> tuple[str, list[str]] | None:
    """The rank pairs an NCCL log connected over its P2P transport (ServingLog.p2p_pairs), in words, with the ranks
    they join; None where it shows none, or shows a P2P failure (`Could not enable P2P`, vLLM disabling custom
    all-reduce for want of P2P) or an NCCL warning beside them."""
    pairs = log.p2p_pairs() if log is not None else ()
    if log is None or not pairs or log.nccl_warnings or log.p2p_failures \
            or any(reason == AR_NO_P2P for reason, _ in log.custom_ar_disabled):
        return None
    shown = ", ".join(f"{a}-{b}" for a, b in pairs[:6]) + (f" and {len(pairs) - 6} more" if len(pairs) > 6 else "")
    details = sorted({c.detail for c in log.channels if c.transport == "P2P"} - {""})
    ranks = sorted({r for pair in pairs for r in pair})
    return (f"rank pair(s) {shown} connected over P2P" + (f" ({', '.join(details)})" if details else ""),
            [f"rank {r}" for r in ranks])


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
    fix=advice("BIOS: set NPS (AMD) / SNC (Intel) deliberately; update the firmware if GPUs report no NUMA node "
                   "(SRAT/_PXM missing)", cost="bios"),
    references=("https://github.com/NVIDIA/nccl-tests/issues/115",),
)
def numa_nps(numa: NumaTopology | None = None, cpu: CpuInfo | None = None, pci: PciDevices | None = None,
             gpu_topology: TopoMatrix | None = None, gpu_p2p: P2pMatrix | None = None,
             serving_log: ServingLog | None = None) -> Outcome:
    """Reads: `lscpu` (sockets, vendor), `/sys/devices/system/node` (nodes, distances) and each
    GPU's `/sys/bus/pci/devices/<bdf>/numa_node`; without those, the `NUMA Affinity` column of
    `nvidia-smi topo -m` (the GPUs' nodes, a lower bound of the host's).

    Bad value: not a fault by itself: the layout is reported so NUMA placement can be judged.
    Flagged: a GPU with `numa_node = -1` on a multi-socket host (the firmware does not report
    locality).

    Why: without P2P, GPU traffic goes through CPU memory, and on AMD the NPS setting changes its
    speed (NCCL maintainer, nccl-tests#115); placement needs to know which node a GPU is on.

    Traps: NPS1 on a single socket is normal; there is no universally best NPS value. A matrix whose
    GPUs sit on several nodes, each reporting its own, shows the locality the check flags when missing
    (not-an-issue); it does not show the sockets, so NPS/SNC is named only with `lscpu`.
    Not applicable where `nvidia-smi topo -p2p` shows P2P OK between every GPU of the matrix and each GPU
    reports its node: GPU traffic then does not go through CPU memory, which is what NPS shapes. Not
    applicable either where the matrix shows one node (`TopoMatrix.one_node`: every GPU on the same node
    with the same CPUs, one range from CPU 0). Every GPU on one node whose CPU list leaves lower CPUs out
    ("0-23,48-71") shows another node holding those: GPUs on one node of a multi-node host, each reporting it, a
    layout (not-an-issue). Every GPU with a `GPU NUMA ID` apart from its CPUs' node is a Grace superchip (GH200,
    GB200) whose GPU memory Linux onlines as a NUMA node of its own: a layout, no sub-NUMA setting (not-an-issue).
    Nodes that `numactl -H` shows unreachable (distance 255) from other nodes are memory-only nodes, no CPU's split
    (a Grace superchip's GPU memory and spare MIG nodes, corpus 1239): not-an-issue.
    Without the nodes or the matrix, NCCL's `Setting affinity for GPU N to <mask>` lines of one host that give two GPUs
    disjoint CPU sets (`3f00003f` and `0f,c0000fc0`) show GPUs on different nodes, each with its own locality (NCCL
    reads the set from the GPU's place in the PCI tree): a layout (not-an-issue, corpus 1895). So do NCCL's topology
    tree and path dump of one host that put GPUs under two CPU nodes, each a NUMA id (`CPU/0`, `CPU/1`: NCCL's CPU
    nodes are the devices' sysfs `numa_node`s; ServingLog.gpu_cpu_nodes): each GPU reports its node (corpus 2262, a
    GPU under each of four nodes of an AMD host; 2268, a NET's path line reaching two GPUs at PHB and two at SYS).
    Node ids alone (numastat's `Node 0  Node 1` columns), with no node's CPUs or distances, no socket count and no
    GPU's node, show no layout: unknown (corpus 2475).
    """
    if numa is None and gpu_topology is None and serving_log is not None \
            and (local := _nccl_local_sets(serving_log) or _nccl_cpu_nodes(serving_log)) is not None:
        return local
    if numa is None:
        return (_nps_from_matrix(gpu_topology, gpu_p2p) if gpu_topology is not None
                else unknown("", needs="numa"))
    sockets = cpu.sockets if cpu is not None and cpu.sockets else None
    layout = _nps_label(cpu, numa.count, sockets)
    gpu_nodes = {g.bdf: g.numa_node for g in pci.nvidia_gpus} if pci is not None else {}
    no_locality = [b for b, n in gpu_nodes.items() if n == -1]
    if no_locality and ((sockets or 1) > 1 or numa.count > 1):
        return issue(f"{layout}, but {len(no_locality)} GPU(s) report NUMA node -1: the firmware gives no locality",
                     actual={"layout": layout, "gpu_numa_nodes": gpu_nodes}, expected="every GPU on a NUMA node",
                     subjects=no_locality)
    if not gpu_nodes and not sockets and not any(n.cpus or n.distances for n in numa.nodes):
        # Node ids alone (numastat's columns): no CPUs, distances, sockets or GPU locality, so no layout shown.
        return unknown(f"{numa.count} NUMA node(s), but neither their CPUs, the sockets nor the GPUs' nodes are in "
                       "the source", hint="paste `lscpu` and `nvidia-smi topo -m`")
    where = ", ".join(f"{b}→node {n}" for b, n in sorted(gpu_nodes.items()))
    actual: dict[str, object] = {"layout": layout, **({"gpu_numa_nodes": gpu_nodes} if gpu_nodes else {})}
    if sockets and numa.count > sockets:
        # Several nodes per socket (NPS2/4, SNC, Naples' four dies) look like a mis-set BIOS: it is a layout.
        return not_an_issue(f"{layout}: several NUMA nodes per socket are a BIOS layout, not a fault; NUMA placement "
                            "(IC-NUMA-AFFINITY) is judged against it" + (f"; GPUs: {where}" if where else ""),
                            actual=actual)
    if apart := [n.id for n in numa.nodes if UNREACHABLE in n.distances]:
        # numactl's 255: no path between two nodes. CPU nodes reach each other; nodes that do not are memory-only
        # nodes, a Grace superchip's GPU memory and its spare MIG nodes (corpus 1239, 4x GH200: 36 nodes).
        return not_an_issue(f"{layout}: node{'s' if len(apart) > 1 else ''} {_id_ranges(apart)} cannot reach other "
                            "nodes (distance 255 in `numactl -H`): memory-only nodes, as a Grace superchip onlines its "
                            "GPU memory, not an NPS/SNC split of a CPU" + (f"; GPUs: {where}" if where else ""),
                            actual={**actual, "unreachable_nodes": apart})
    return ok(f"{layout}; GPUs: {where}" if where else layout, actual=actual)


# numactl's distance between two nodes that have no path to each other (the ACPI SLIT's 0xFF).
UNREACHABLE = 255


def _id_ranges(ids: list[int]) -> str:
    """Node ids as ranges: [4, 5, 6, 9] → "4-6, 9"."""
    runs: list[list[int]] = []
    for n in sorted(ids):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)



def _nccl_local_sets(log: ServingLog) -> Outcome | None:
    """FW-NUMA-NPS not an issue where NCCL's affinity lines (ServingLog.gpu_affinity) give two GPUs of one host
    disjoint CPU masks: each GPU reports its locality, on nodes of its own; None where no host's lines show that (a
    set in another form than a hex mask is not read)."""
    by_host: dict[str, dict[int, tuple[frozenset[int], str]]] = {}
    for host, gpu, cpus, line in log.gpu_affinity:
        try:
            mask = frozenset(parse_cpumask(cpus))
        except ParseError:
            continue
        if mask:
            by_host.setdefault(host, {})[gpu] = (mask, line)
    for sets in by_host.values():
        pairs = [(a, b) for a in sets for b in sets if a < b and not sets[a][0] & sets[b][0]]
        if pairs:
            a, b = pairs[0]
            return not_an_issue(f"NCCL bound GPU {a} and GPU {b} to disjoint CPU sets ({format_cpulist(sets[a][0])}; "
                                f"{format_cpulist(sets[b][0])}), the CPUs local to each: the GPUs sit on different "
                                "NUMA nodes and each reports its locality, a layout of the host, not a fault",
                                actual={f"GPU {g}": format_cpulist(m) for g, (m, _) in sorted(sets.items())},
                                evidence=[sets[a][1], sets[b][1]])
    return None


def _nccl_cpu_nodes(log: ServingLog) -> Outcome | None:
    """FW-NUMA-NPS not an issue where NCCL's topology tree or path dump (ServingLog.gpu_cpu_nodes) puts GPUs of one
    host under two CPU nodes or more: NCCL's CPU nodes are the NUMA nodes each device reports, so every GPU shown has
    its locality, on nodes of its own; None where no host's lines show that."""
    by_host: dict[str, dict[str, tuple[str, str]]] = {}
    for host, gpu, cpu, line in log.gpu_cpu_nodes():
        by_host.setdefault(host, {})[gpu] = (cpu, line)
    for host, placed in by_host.items():
        nodes = sorted({cpu for cpu, _ in placed.values()})
        if len(nodes) < 2:
            continue
        where = "; ".join(f"{n}: {', '.join(f'GPU/{g}' for g, (c, _) in placed.items() if c == n)}" for n in nodes)
        lines = list(dict.fromkeys(line for _, line in placed.values() if line))
        judged = not_an_issue(f"NCCL's topology puts the GPUs{f' of {host}' if host else ''} under {len(nodes)} CPU "
                              f"nodes ({where}): NCCL's CPU nodes are the NUMA nodes the devices report, so each GPU "
                              "has its locality, a multi-node layout of the host, not a fault; how many nodes each "
                              "socket has (NPS/SNC) is in `lscpu` / `numactl -H`",
                              actual={f"GPU/{g}": c for g, (c, _) in placed.items()}, evidence=lines[:3])
        return over_subjects(judged, [f"GPU/{g}" for g in placed], None, ask="nvidia-smi topo -m")
    return None


def _nps_from_matrix(topo: TopoMatrix, p2p: P2pMatrix | None = None) -> Outcome:
    """FW-NUMA-NPS from the GPUs' `NUMA Affinity` in `nvidia-smi topo -m` alone: GPUs on two or more nodes prove a
    multi-node host; one GPU there without a node (N/A, -1) is the fault the check flags, and every GPU shown with
    its node is a layout to record. One node, or a GPU spanning several (a VM), leaves the host's layout unknown,
    unless `topo -p2p` shows P2P OK between every GPU of the matrix (the knowledge base's "Applies when": multi-GPU
    PCIe systems without P2P)."""
    shown = [g for g in topo.gpus if g in topo.numa_affinity]
    nodes = {g: topo.numa_node(g) for g in shown}
    seen = sorted({n for n in nodes.values() if n is not None})
    blank = [g for g in shown if topo.numa_affinity[g] in ("N/A", "-1")]
    if not blank and len(shown) == len(topo.gpus) and all(nodes[g] is not None for g in shown) \
            and p2p is not None and set(topo.gpus) <= set(p2p.gpus) and p2p.ok_between(list(topo.gpus)):
        return not_applicable(f"P2P OK between every pair of the {len(topo.gpus)} GPUs (`nvidia-smi topo -p2p`), each "
                              "on its NUMA node: GPU traffic does not go through CPU memory, whose speed the "
                              "NPS/SNC setting shapes", actual={"gpu_numa_nodes": dict(topo.numa_affinity)})
    own = {g: topo.gpu_numa_id.get(g, "") for g in shown}
    if shown and len(shown) == len(topo.gpus) and not blank \
            and all(v.isdigit() and v != topo.numa_affinity[g] for g, v in own.items()):
        # `GPU NUMA ID` beside the CPUs' node: a Grace superchip's GPU memory, coherent over NVLink-C2C, onlined as a
        # NUMA node of its own (corpus 1340, GH200): extra nodes that are no BIOS sub-NUMA setting.
        judged = not_an_issue(
            "every GPU shown reports its CPUs' NUMA node ("
            + ", ".join(f"{g}: node {topo.numa_affinity[g]}" for g in shown) + ") and its own memory as another ("
            + ", ".join(f"{g}: node {v}" for g, v in own.items()) + ", `GPU NUMA ID`): how a Grace Hopper or Grace "
            "Blackwell superchip exposes the GPU's memory over NVLink-C2C, not an NPS/SNC sub-NUMA setting; every "
            "GPU has its locality", actual={"gpu_numa_nodes": dict(topo.numa_affinity), "gpu_numa_id": own})
        return over_subjects(judged, shown, len(topo.gpus), ask="nvidia-smi topo -m")
    if single := topo.one_node():
        return not_applicable(f"every GPU of the matrix reports NUMA node {topo.numa_affinity[shown[0]]} with CPUs "
                              f"{single}, one range from CPU 0: one NUMA node, so every GPU has its locality and no "
                              "placement between nodes exists; one node per socket (NPS1) is the normal layout "
                              "(`lscpu` confirms the host's node count)",
                              actual={"gpu_numa_nodes": dict(topo.numa_affinity), "cpus": single})
    sets = topo.cpu_sets()
    if (elsewhere := _cpus_of_another_node(topo, shown)) and not blank:
        # Every GPU on one node whose CPU list leaves out lower CPUs: Linux numbers a multi-node host's CPUs across
        # its nodes first, so those belong to another node, and every GPU has its locality.
        judged = not_an_issue(
            f"every GPU shown reports NUMA node {seen[0]} with CPUs {topo.cpu_affinity[shown[0]]}; CPUs {elsewhere} are "
            "not in that list, so they sit on another node: a multi-node host with its GPUs on one node, each "
            "reporting it, a layout recorded, not a fault (how many nodes each socket has is in `lscpu`)",
            actual={"layout": "at least 2 NUMA nodes", "gpu_numa_nodes": {g: topo.numa_affinity[g] for g in shown}})
        return over_subjects(judged, shown, len(topo.gpus), ask="nvidia-smi topo -m")
    # A GPU without a node whose CPUs lie apart from every node-reporting GPU's sits on another node.
    apart = [g for g in blank if sets.get(g) and all(sets.get(o) and not sets[g] & sets[o]
                                                      for o in shown if o not in blank)]
    if (len(seen) < 2 and not (seen and apart)) or any(nodes[g] is None and g not in blank for g in shown):
        return unknown("", needs="numa")
    where = "; ".join(f"node {n}: {', '.join(g for g in shown if nodes[g] == n)}" for n in seen)
    least = len(seen) + (1 if apart else 0)
    actual = {"layout": f"at least {least} NUMA nodes", "gpu_numa_nodes": {g: topo.numa_affinity[g] for g in shown}}
    if blank:
        other = (f"; {', '.join(apart)} list{'s' if len(apart) == 1 else ''} CPUs "
                 f"{', '.join(topo.cpu_affinity[g] for g in apart)}, apart from those of the GPUs on a node, so the "
                 f"host has at least {least} NUMA nodes" if len(seen) < 2 else "")
        return issue(f"GPUs sit on NUMA node{'s' if len(seen) > 1 else ''} {', '.join(map(str, seen))} ({where}), but "
                     f"{', '.join(blank)} report{'s' if len(blank) == 1 else ''} no NUMA node in `nvidia-smi topo -m`"
                     f"{other}: the firmware gives no locality for them", actual=actual,
                     expected="every GPU on a NUMA node", subjects=blank,
                     evidence=[topo.lines[g] for g in blank if g in topo.lines])
    judged = not_an_issue(f"the GPUs shown sit on NUMA nodes {', '.join(map(str, seen))} ({where}), each reporting "
                          "its node: a multi-node layout, recorded, not a fault; how many nodes each socket has "
                          "(NPS/SNC) is in `lscpu` / `numactl -H`, not in the matrix", actual=actual)
    return over_subjects(judged, shown, len(topo.gpus), ask="nvidia-smi topo -m")


def _cpus_of_another_node(topo: TopoMatrix, shown: list[str]) -> str:
    """The CPUs below the highest of the one list every GPU shares that the list leaves out ("24-47"), where every
    GPU of the matrix is shown on the same node; "" otherwise."""
    if not shown or len(shown) != len(topo.gpus):
        return ""
    return format_cpulist(topo.cpus_of_another_node())


# -- PCIe side: ACS, Resizable BAR, MMIO space, AER (docs/checks.md, FW-ACS-P2P ... FW-AER-ERRORS) ------------

def _acs_fix(bridges: list[PcieFunction], engines: list[str] | None, tool: str) -> Fix:
    """Masked ACS writes on exactly the bridges found redirecting between GPUs (stackaudit.fixes.pcie)."""
    return acs_fix({f.bdf: f.acs.ctl if f.acs is not None else None for f in bridges}, engines, tool)


def _trap_words(cmdline: KernelCmdline | None) -> str:
    """The ineffective ACS parameters on the command line, as words to remove from it."""
    if cmdline is None:
        return "pci=noacs pcie_acs_override="
    words = []
    for name in ("pci", "pcie_acs_override"):
        value = cmdline.last(name)
        if name == "pci" and "noacs" not in cmdline.pci_options():
            continue
        if cmdline.has(name):
            words.append(name if value is None else f"{name}={value}")
    return " ".join(words) or "pci=noacs pcie_acs_override="


def _acs_traps(cmdline: KernelCmdline | None, kernel_log: KernelLog | None) -> list[str]:
    notes: list[str] = []
    if cmdline is not None:
        if "noacs" in cmdline.pci_options():
            seen = kernel_log.grep(r"Unknown option.*noacs", needles=("noacs",)) if kernel_log is not None else []
            notes.append("`pci=noacs` on the command line does nothing: it is not a mainline kernel parameter"
                         + (f" (the kernel logged: {seen[0].strip()})" if seen else " (the kernel logs \"Unknown option\")"))
        if cmdline.has("pcie_acs_override"):
            notes.append("`pcie_acs_override=` (out-of-tree patch) only fakes isolation for IOMMU grouping; it does "
                         "not clear ACS redirect bits")
        if any(o.startswith("disable_acs_redir=") for o in cmdline.pci_options()):
            notes.append("`pci=disable_acs_redir=` is on the command line (check that its device list matches)")
    return notes


# When redirect on root ports matters: only where GPU peer traffic crosses them. NCCL's default P2P level stops at
# PXB (paths through a CPU host bridge go through host memory), and vLLM/SGLang turn custom all-reduce off above
# TP 2 without NVLink: so an 8-GPU PCIe box at TP 8 sends nothing peer-to-peer across its root ports.
_ROOT_PORT_P2P = ("GPU peer traffic crosses these root ports (NCCL_P2P_LEVEL=PHB/NODE/SYS, NCCL channels via P2P, "
                  "or custom all-reduce at TP 2), which NCCL's default P2P level and custom all-reduce (off above "
                  "TP 2 on PCIe) keep off them")
_P2P_ACROSS_HOST_BRIDGES = frozenset({"PHB", "NODE", "SYS", "3", "4", "5"})


def _p2p_across_root_ports(nccl_config: NcclConfig | None, parallelism: Parallelism | None,
                           serving_log: ServingLog | None) -> str:
    """What the source shows of GPU peer traffic across root ports, in words ("" when nothing does)."""
    level = nccl_config.value("NCCL_P2P_LEVEL") if nccl_config is not None else None
    if level is not None and level.upper() in _P2P_ACROSS_HOST_BRIDGES:
        return f"NCCL_P2P_LEVEL={level}"
    if serving_log is not None and any(c.transport == "P2P" for c in serving_log.channels):
        return "the NCCL log shows channels via P2P"
    if parallelism is not None and any(e.tp == 2 for e in parallelism.engines):
        return "an engine at TP 2, where custom all-reduce uses P2P"
    return ""


@check(
    "FW-ACS-P2P",
    title="ACS request/completion redirect on PCIe switch or root ports between GPUs",
    severity="high",
    confidence="documented",
    fix=acs_fix(()),
    references=(NCCL_TROUBLESHOOTING, "https://github.com/NVIDIA/nccl/issues/2079", KERNEL_PARAMS_DOC),
)
def acs_p2p(pcie: PcieFacts, cmdline: KernelCmdline | None = None, kernel_log: KernelLog | None = None,
            virtualization: Virtualization | None = None, parallelism: Parallelism | None = None,
            nccl_config: NcclConfig | None = None, serving_log: ServingLog | None = None,
            cmdline_tool: CmdlineTool | None = None, listing_greps: ListingGreps | None = None) -> Outcome:
    """Reads: the ACS extended capability (control register `ECAP_ACS+0x6`, `ACSCtl:` in
    `lspci -vvv`) of every bridge on the paths between the GPUs, as root; the kernel command line
    and `dmesg` for ineffective ACS parameters.

    Bad value: `ReqRedir+` or `CmpltRedir+` (ACS Control bits 2 and 3, e.g. `0x001d`) on a switch
    downstream port or root port between two GPUs.

    Why: ACS redirect forces peer-to-peer TLPs up to the root complex instead of across the
    switch: NCCL hangs or slow P2P ("If PCI switches have ACS enabled, it needs to be disabled",
    NCCL troubleshooting); `ncclAllReduce` deadlock fixed by clearing ACSCtl 0x001d (nccl#2079).

    Traps: `pci=noacs` is not a mainline parameter (the kernel logs "Unknown option");
    `pcie_acs_override=` fakes isolation for IOMMU groups and clears nothing. GPUs on separate
    root ports route P2P through the root complex anyway. On NVSwitch systems GPU↔GPU traffic is
    NVLink: ACS then matters for GPU↔NIC GPUDirect RDMA only. In a VM the guest sees a virtual
    topology. `nvidia-smi topo -p2p` can say OK while ACS still breaks NCCL. Hosts passing GPUs
    to VMs want ACS. A pasted listing that shows one GPU is not a one-GPU host: its bridges
    are judged. ACS on without redirect (`SrcValid+` alone: source validation) routes no
    peer request up: not-an-issue, though "disable ACS" is the usual advice. ACSCtl lines without
    device addresses decide only where they are every ACSCtl line of the host: a grep of the whole
    `sudo lspci -vvv` shown above them (facts/shown_commands.ListingGreps).
    """
    if virtualization is not None and virtualization.is_vm:
        return not_applicable(f"virtual machine ({virtualization.vm}): ACS of the virtual topology says nothing")
    traps = _acs_traps(cmdline, kernel_log)
    trap_text = ("; " + "; ".join(traps)) if traps else ""
    gpus = pcie.gpus
    loose_on = [c for c in pcie.loose if c.acs is not None and c.acs.redirect]
    if not gpus and not pcie.loose:
        return no_gpu(pcie)
    if 0 < len(gpus) < 2 and pcie.inventory_complete:
        return not_applicable(f"{len(gpus)} GPU: no GPU-to-GPU P2P")
    # One GPU in a pasted listing is one GPU shown, not one GPU on the host: the bridges shown are judged.
    nvswitch = bool(pcie.role("nvswitch"))
    candidates = pcie.p2p_bridges()
    if candidates is None:
        return unknown("the GPUs' upstream bridges are not in the source", hint=ROOT_HINT)
    # The engines the source shows: the restart after the fix clears vLLM's P2P cache only where vLLM may run.
    engines = sorted({e.engine for e in parallelism.engines if e.engine}) if parallelism is not None else None
    redirected = [f for f in candidates if f.acs is not None and f.acs.redirect]
    blind = [f for f in candidates if f.acs_unread]
    if redirected or loose_on:
        bdfs = [f.bdf for f in redirected]
        lines = [f"{f.bdf} ACSCtl: {f.acs.ctl_flags()}" for f in redirected if f.acs]
        ctls = {f.bdf: f"{f.acs.ctl:#06x}" for f in redirected if f.acs and f.acs.ctl is not None}
        if redirected:
            roots = all((f.express.port_type if f.express else "") == "root-port" for f in redirected)
            where = "" if pcie.topology_known else " (the source has no bus topology: bridges not proven to sit between GPUs)"
            ctl = ", ".join(dict.fromkeys(ctls.values()))
            msg = (f"ACS redirect (ReqRedir/CmpltRedir) is on at {len(bdfs)} bridge(s) between the GPUs"
                   + (f" (ACSCtl {ctl})" if ctl else "") + f"{where}: "
                   f"{', '.join(bdfs)}; PCIe P2P is forced up to the root complex")
            severity: Severity = "high"
            confidence: Confidence | None = None
            only_if = ""
            if nvswitch:
                msg += "; GPU↔GPU traffic here is NVLink, so this affects GPU↔NIC GPUDirect RDMA"
                severity = "medium"
            elif roots:
                # Each GPU on its own root port: P2P crosses the root complex anyway, so redirect there matters
                # less; one field report (NCCL #2079, AMD GPP bridges) still had NCCL hang until it was cleared.
                msg += ("; all of them are root ports (P2P crosses the root complex anyway, so this matters less; "
                        "clear it if NCCL hangs or P2P bandwidth is low, as in NCCL #2079)")
                severity = "low"
                confidence = "field-reports"
                shown = _p2p_across_root_ports(nccl_config, parallelism, serving_log)
                if shown:
                    msg += f"; P2P does cross them here ({shown})"
                else:
                    only_if = _ROOT_PORT_P2P
            return issue(msg + trap_text, actual=ctls,
                         expected="ACSCtl ReqRedir- CmpltRedir- on ports between GPUs", subjects=bdfs,
                         severity=severity, confidence=confidence, fix=_acs_fix(redirected, engines, tool_of(cmdline_tool)), evidence=lines,
                         only_if=only_if)
        return issue(f"{len(loose_on)} of {len(pcie.loose)} ACSCtl lines show ReqRedir+/CmpltRedir+ (the paste has no "
                     "device addresses: which ports sit between GPUs is not known)" + trap_text,
                     actual=f"{len(loose_on)} ports with redirect", expected="ReqRedir- CmpltRedir- between GPUs",
                     fix=acs_scan_fix(engines, tool_of(cmdline_tool)))
    readable = [f for f in candidates if f not in blind]
    if blind and not readable:
        return unknown(f"ACS control of {len(blind)} bridge(s) between the GPUs not readable "
                       f"({blind[0].config_note or 'not in the source'})" + trap_text,
                       hint=ROOT_HINT, subjects=[f.bdf for f in blind])
    if not candidates and not pcie.loose:
        # An lspci run without root prints `Capabilities: <access denied>`: no register of any device, the bridges' ACS
        # included, could have shown (corpus 1552).
        denied = [g.bdf for g in pcie.gpus if g.lspci is not None and g.lspci.config is not None
                  and not g.lspci.config.readable]
        why = (f" (lspci ran without root: the capabilities of {', '.join(denied)} read `<access denied>`, so no "
               "port's ACS could show)" if denied and len(denied) == len(pcie.gpus) else "")
        return unknown("no bridge between the GPUs in the source" + why + trap_text, hint=ROOT_HINT)
    if traps:
        return issue("no ACS redirect between the GPUs, but the command line carries ineffective ACS parameters"
                     + trap_text, actual=traps, severity="low", confidence="documented",
                     fix=Fix.of(step("Remove `pci=noacs` / `pcie_acs_override=` from the kernel command line (use "
                               "`pci=disable_acs_redir=`, quoted in GRUB, where needed), then reboot", cost="reboot",
                               changes="the kernel command line",
                               keep=cmdline_forms(_trap_words(cmdline), tool_of(cmdline_tool),
                                                  remove=True))))
    listed = listing_greps.shown("lspci", _ACSCTL_EXAMPLE) if listing_greps is not None and pcie.loose else None
    judged = _no_redirect([f.acs for f in readable if f.acs] if candidates
                          else [c.acs for c in pcie.loose if c.acs], len(readable) or len(pcie.loose),
                          {f.bdf: f.acs.ctl_flags() if f.acs else "no ACS capability"
                           for f in readable}, [f.bdf for f in readable], listed)
    if not candidates:  # ACSCtl lines without addresses: each line is a bridge, counted without its address
        # The coverage rule over the lines shown: a cut listing is judged over its lines (`K bridges shown`), a
        # port with redirect may stand outside them; a whole one (every line the grep printed) over all.
        whole = pcie.complete or listed is not None
        return over_subjects(judged, [f"ACSCtl line {n}" for n in range(1, len(pcie.loose) + 1)],
                             len(pcie.loose) if whole else None, noun="bridge",
                             ask="sudo lspci -vvv (bridges included)")
    # The coverage rule over the bridges: those read decide, the unreadable ones are counted (`K of N shown`).
    return over_subjects(judged, [f.bdf for f in readable], len(candidates) if pcie.topology_known else None,
                         noun="bridge", ask=LSPCI_ASK, blind=[f.bdf for f in blind])


# An ACSCtl line as lspci prints it: a shown grep whose pattern matches it listed every ACSCtl line of the host.
_ACSCTL_EXAMPLE = "ACSCtl: SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"


def _no_redirect(acs: list[AcsCap], count: int, actual: dict[str, str], subjects: list[str], listed: str | None
                 ) -> Outcome:
    """No ACS redirect on the `count` ports read: ok, or not-an-issue where ACS is on at some of them (source
    validation, `SrcValid+`), which "disable ACS" advice would flag but which sends no peer request up."""
    where = (f"the {count} ACSCtl line(s) `{listed}` printed (every one of the host)" if listed
             else f"the {count} bridge(s) between the GPUs")
    on = [a for a in acs if a.ctl]
    if not on:
        return ok(f"no ACS redirect on {where}", actual=actual, subjects=subjects)
    flags = ", ".join(dict.fromkeys(a.ctl_flags() for a in on))
    return not_an_issue(f"ACS is on at {len(on)} of {where} ({flags}) but none redirects peer requests "
                        "(ReqRedir- CmpltRedir-): source validation sends no P2P up to the root complex",
                        actual=actual or flags, expected="ReqRedir- CmpltRedir- between GPUs", subjects=subjects)


_SMALL_BAR1 = 256 << 20


def _bar1_index(fn: PcieFunction) -> int:
    """The register index of the GPU's BAR1. The driver numbers a GPU's memory BARs in order (nv-pci.c): BAR1, the
    frame-buffer aperture, is the second memory region lspci lists, `Region 1` after a 32-bit BAR0, `Region 2`
    after a 64-bit one (corpus 502)."""
    memory = sorted((b for b in fn.bars if not b.is_io and b.index < 6), key=lambda b: b.index)
    return memory[1].index if len(memory) >= 2 and memory[0].index == 0 else 1


def _bar1(fn: PcieFunction) -> int | None:
    index = _bar1_index(fn)
    for bar in fn.bars:
        if bar.index == index and not bar.is_io and bar.size:
            return bar.size
    cfg = fn.config
    if cfg is not None and cfg.rebar:
        for entry in cfg.rebar:
            if entry.bar == index and entry.current_mib:
                return entry.current_mib << 20
    return None


def _size(nbytes: int) -> str:
    return f"{nbytes >> 30} GiB" if nbytes >= 1 << 30 else f"{nbytes >> 20} MiB"


@check(
    "FW-REBAR-BAR1",
    title="BAR1 too small (Resizable BAR off) on workstation/consumer GPUs",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step('BIOS: enable "Above 4G Decoding" and "Re-Size BAR Support"', cost="bios",
                       keep=keep_line("options nvidia NVreg_EnableResizableBar=1", "/etc/modprobe.d/nvidia.conf",
                                      label="optional", text="then `update-initramfs -u`"))),
    references=("https://docs.nvidia.com/cuda/gpudirect-rdma/index.html", "https://docs.nvidia.com/deploy/nvml-api/",
                "https://github.com/tinygrad/open-gpu-kernel-modules"),
)
def rebar_bar1(pcie: PcieFacts | None = None, rdma: RdmaDevices | None = None,
               nvidia: NvidiaGpus | None = None, gpus: GpuInventory | None = None) -> Outcome:
    """Reads: each GPU's BAR1 size (sysfs `resource`, `Region 1` in `lspci -vv`, else NVML /
    `nvidia-smi -q` "BAR1 Memory Usage: Total") and its Resizable BAR capability (`BAR 1: current
    size: …, supported: …`).

    Bad value: BAR1 of 256 MiB while the Resizable BAR capability lists larger sizes, on a host
    with GPU P2P (two or more GPUs) or GPUDirect RDMA (an RDMA NIC: /sys/class/infiniband, else a
    Mellanox/NVIDIA networking function on the bus).

    Why: BAR1 maps GPU memory for the CPU and for peer devices; P2P forks for GeForce cards and
    GPUDirect RDMA need a large BAR.

    Traps: data-center GPUs (H100/H200/B200/A100/L40S) have a large fixed BAR1 and no need of
    ReBAR: not flagged. BAR1 is the GPU's second memory BAR (`Region 2` after a 64-bit BAR0). Integrated GPUs
    (gputable.INTEGRATED_GPUS: GB10) share the SoC's memory and have no BAR1 to resize: not an issue. GPUs that predate Turing (gputable.PRE_TURING, by the
    architecture the source or the name implies) have no Resizable BAR: their
    BAR1 is the fixed size the board was built with, a 256 MiB one or a Tesla's large one (a K80's 16 GiB, in a
    cloud VM too: corpus 1584, 2401), and not an issue, and so is a BAR1 the source does not show on GPUs nvidia-smi
    lists that all predate Turing. A single GPU does not use BAR1 for its copies, and an ordinary Ethernet
    NIC next to it does no GPUDirect RDMA (not an issue), whether or not the source shows its Resizable BAR capability.
    NVML / nvidia-smi show no capability: their 256 MiB BAR1 is an issue on a GPU of a generation with Resizable BAR
    (gputable.RESIZABLE_BAR, Ampere on, by the name any listing of the paste gives) where two or more GPUs are shown,
    and stays open otherwise. No measured NCCL gain from
    ReBAR on officially P2P-capable cards is published.
    """
    if pcie is None:
        return _bar1_from_nvidia(nvidia, gpus)
    functions = pcie.gpus
    if not functions:
        return no_gpu(pcie)
    shared = {g.bdf: integrated_gpu(g.lspci.description if g.lspci else g.model, g.device) for g in functions}
    if all(shared.values()):
        return over_gpu_functions(pcie, list(shared), not_an_issue(
            "integrated GPU(s) sharing the SoC's memory (" + ", ".join(f"{b} {m}" for b, m in shared.items())
            + "): no BAR1 aperture maps a memory of their own, so there is no Resizable BAR to enable",
            actual=shared, subjects=list(shared)))
    fixed = _data_center_bar1(functions)
    if fixed:
        # Outside the check's "Applies when": these cards have a large fixed BAR1, nothing to resize.
        return over_gpu_functions(pcie, list(fixed), not_applicable(
            "data-center GPU(s) with a large fixed BAR1 (no Resizable BAR to enable): "
            + ", ".join(f"{b} {v}" for b, v in fixed.items()), actual=fixed))
    # GPUDirect RDMA needs an RDMA NIC, not any NIC (every workstation has an Intel/Broadcom Ethernet port).
    rdma_nic = bool(rdma.names) if rdma is not None else any(n.vendor == "0x15b3" for n in pcie.role("nic"))
    p2p = len(functions) >= 2 or rdma_nic
    small: dict[str, str] = {}
    fine: dict[str, str] = {}
    blind: list[str] = []
    old: dict[str, str] = {}  # small BAR1 on a GPU that predates Turing: fixed by design, nothing to resize
    for g in functions:
        size = _bar1(g)
        cfg = g.config
        entry = next((e for e in (cfg.rebar or ()) if e.bar == _bar1_index(g)), None) if cfg is not None else None
        if size is None:  # not in lspci: NVML / nvidia-smi's BAR1 total for the same GPU, where the source has it
            shown_by_nvidia = nvidia.by_bdf(g.bdf) if nvidia is not None else None
            mib = shown_by_nvidia.bar1_total_mib if shown_by_nvidia is not None else None
            if mib is not None and mib * 2**20 > _SMALL_BAR1:
                fine[g.bdf] = _size(int(mib * 2**20)) + " (nvidia-smi)"
            else:
                blind.append(g.bdf)
            continue
        if size > _SMALL_BAR1 and (architecture := _pre_turing(g)):
            # Its BAR1 is the size the board was built with (a K80's 16 GiB), whatever maps it: none to resize.
            old[g.bdf] = f"{g.model or g.device}, {architecture}, {_size(size)}"
        elif size > _SMALL_BAR1:
            fine[g.bdf] = _size(size)
        elif entry is not None and entry.supported_mib and max(entry.supported_mib) << 20 > size:
            small[g.bdf] = f"{_size(size)}, supports up to {_size(max(entry.supported_mib) << 20)}"
        elif cfg is not None and cfg.readable and cfg.complete and cfg.rebar is None:
            fine[g.bdf] = f"{_size(size)} (no Resizable BAR capability: nothing to enable)"
        elif architecture := _pre_turing(g):  # the capability not shown: the generation has none
            old[g.bdf] = f"{g.model or g.device}, {architecture}, {_size(size)}"
        elif not p2p:
            # Whether it could be resized does not matter where nothing uses BAR1 (one GPU, no RDMA NIC).
            small[g.bdf] = f"{_size(size)} (its Resizable BAR capability is not in the source)"
        else:
            blind.append(g.bdf)
    if small and p2p:
        return issue("BAR1 is small although the GPU can resize it: " + "; ".join(f"{b}: {v}" for b, v in small.items()),
                     actual=small, expected="BAR1 ≈ GPU memory (Resizable BAR on)", subjects=list(small))
    if small:
        # From a pasted excerpt the one GPU is the one shown, not the host's only one (issue 28: no absence from an
        # excerpt); the coverage says so, and the verdict holds for a host with no other GPU or RDMA NIC.
        where = ("the only GPU" if pcie.inventory_complete else
                 "the one GPU shown")
        nic = ("no RDMA NIC" if pcie.inventory_complete or rdma is not None else
               "no other GPU or RDMA NIC in the source (where the host has one, P2P or GPUDirect RDMA needs a large BAR1)")
        return over_gpu_functions(pcie, list(small), not_an_issue(
            f"small BAR1 on {where} (" + "; ".join(f"{b}: {v}" for b, v in small.items())
            + f"), and {nic}: single-GPU inference does not use BAR1 for its copies",
            actual=small, subjects=list(small)), blind)
    if old:
        return over_gpu_functions(pcie, [*old, *fine], not_an_issue(
            "BAR1 on GPUs that predate Turing (" + "; ".join(f"{b}: {v}" for b, v in old.items())
            + "): these generations have no Resizable BAR, so their BAR1 is the fixed size the board was built "
            "with and there is no other size to enable"
            + (f"; BAR1 {', '.join(f'{b} {v}' for b, v in fine.items())} on the others" if fine else ""),
            actual=old, subjects=list(old)), blind)
    if blind and not fine:
        return unknown(f"BAR1 size or Resizable BAR capability of {len(blind)} GPU(s) not in the source",
                       hint="paste `sudo lspci -vvv` or `nvidia-smi -q -d MEMORY` (BAR1 Memory Usage)", subjects=blind)
    return over_gpu_functions(pcie, list(fine), ok("BAR1: " + ", ".join(f"{b} {v}" for b, v in fine.items()),
                                                   actual=fine, subjects=list(fine)), blind)


def _link_drops(lines: Sequence[AerLine], events: GpuEvents | None, pcie: PcieFacts | None) -> list[str]:
    """"port P: fatal AER / Surprise Down, and GPU G below it fell off the bus" for each lost GPU whose
    port logged one; with the PCI tree the port must be on the GPU's path, without it the log ties them."""
    drops: list[str] = []
    fatal_ports = {ln.bdf for ln in lines if ln.bdf and (ln.severity == "fatal" or re.search(
        r"Surprise Down|SDES", ln.line))}
    paths = {g.bdf: set(g.upstream) for g in (pcie.gpus if pcie is not None else ())}
    for event in (events.lost() if events is not None else ()):
        ports = sorted(fatal_ports & paths[event.bdf]) if event.bdf in paths else sorted(
            p for p in fatal_ports if p != event.bdf) if not paths else []
        if not ports:
            continue
        how = "Xid 79" if event.code == 79 else "fell off the bus"
        drops.append(f"{', '.join(ports)}: fatal AER / Surprise Down, and GPU {event.bdf or '(unnamed)'} below it "
                     f"fell off the bus ({how}): the link dropped under the GPU (slot, riser, cable or power)"
                     + ("" if paths else "; the PCI tree that would confirm the port is above it is not in the source"))
    return drops


def _data_center_bar1(gpus: Sequence[PcieFunction]) -> dict[str, str]:
    """Every GPU an HBM data-center part (gpus.toml, by lspci's product name) with BAR1 above 256 MiB;
    else {} (one GeForce/workstation card among them keeps the check applicable)."""
    found: dict[str, str] = {}
    for g in gpus:
        spec = gpu_spec(g.model) if g.model else None
        size = _bar1(g)
        if spec is None or not spec.memory_type.startswith("HBM") or size is None or size <= _SMALL_BAR1:
            return {}
        found[g.bdf] = f"{spec.name}, BAR1 {_size(size)}"
    return found


def _pre_turing(g: PcieFunction) -> str:
    """The architecture before Turing (gputable.PRE_TURING) that a GPU's lspci name or PCI device id implies, else ""."""
    try:
        device = int(g.device, 16) if g.device else None
    except ValueError:
        device = None
    architecture = architecture_of(g.lspci.description if g.lspci else g.model, device)
    return architecture if architecture in PRE_TURING else ""


def _bar1_from_nvidia(nvidia: NvidiaGpus | None, inventory: GpuInventory | None = None) -> Outcome:
    """BAR1 as NVML / nvidia-smi report it (no Resizable BAR capability there: a small BAR stays open, but on a
    generation with Resizable BAR and two or more GPUs, by the names any listing of the paste gives, an issue)."""
    shown = [g for g in (nvidia.gpus if nvidia else ()) if g.bar1_total_mib is not None]
    listed = [g for g in (nvidia.gpus if nvidia else ()) if not g.error]
    if not shown and listed and nvidia is not None and all(g.implied_architecture in PRE_TURING for g in listed):
        # The generation settles it whatever BAR1's size: no Resizable BAR before Turing (corpus 1896, a TITAN Xp).
        return over_gpus(nvidia, listed, not_an_issue(
            "GPUs that predate Turing (" + "; ".join(f"{g.subject}: {g.name}, {g.implied_architecture}" for g in listed)
            + "): these generations have no Resizable BAR, so there is no larger BAR1 to enable, whatever its size",
            actual={g.subject: g.implied_architecture for g in listed}, subjects=[g.subject for g in listed]))
    if not shown:
        return unknown("the GPUs' BAR1 size is not in this source",
                       hint="paste `sudo lspci -vvv` or `nvidia-smi -q -d MEMORY` (BAR1 Memory Usage)")
    assert nvidia is not None
    small = {g.subject: f"{g.bar1_total_mib:g} MiB" for g in shown if (g.bar1_total_mib or 0) * 2**20 <= _SMALL_BAR1}
    fine = {g.subject: _size(int((g.bar1_total_mib or 0) * 2**20)) for g in shown if g.subject not in small}
    fixed = {g.subject: f"{g.name}, {small[g.subject]}" for g in shown
             if g.subject in small and g.implied_architecture in PRE_TURING}
    if small and len(fixed) == len(small):
        return over_gpus(nvidia, shown, not_an_issue(
            "small BAR1 on GPUs that predate Turing (" + "; ".join(f"{b}: {v}" for b, v in fixed.items())
            + "): these generations have no Resizable BAR, so there is no larger size to enable"
            + (f"; BAR1 {', '.join(f'{b} {v}' for b, v in fine.items())} on the others" if fine else ""),
            actual=fixed, subjects=list(fixed)))
    # A small BAR1 on a GPU of a generation with Resizable BAR (gputable.RESIZABLE_BAR: Ampere on, by the name
    # nvidia-smi -L or the same paste gives it), on a host the source shows with two or more GPUs: the BIOS left
    # Resizable BAR off (or the VBIOS lacks it), and P2P has no BAR1 room (corpus 2488: four RTX 3090s at 256 MiB).
    models = inventory.models if inventory is not None else {}
    named = {g.subject: (name, architecture_of(name, g.pci_device_id)) for g in shown if g.subject in small
             and (name := g.name or (models.get(g.index, "") if g.index is not None else ""))}
    resizable = {b: f"{small[b]}, {name} ({arch})" for b, (name, arch) in named.items() if arch in RESIZABLE_BAR}
    count = max(len(listed), inventory.at_least or 0 if inventory is not None else 0)
    if resizable and count >= 2:
        return over_gpus(nvidia, shown, issue(
            "BAR1 is small on " + "; ".join(f"{b} ({v})" for b, v in resizable.items())
            + f", one of {count} GPUs: this generation has Resizable BAR, which sizes BAR1 to the VRAM, so it "
            "is off in the BIOS (or the VBIOS lacks it) and GPU P2P has no BAR1 room to map peer memory through",
            actual=resizable, expected="BAR1 ≈ GPU memory (Resizable BAR on)", subjects=list(resizable)))
    if small:
        return unknown("BAR1 is small on " + ", ".join(f"{b} ({v})" for b, v in small.items())
                       + "; whether the GPU can resize it is not in nvidia-smi's output",
                       hint="paste `sudo lspci -vvv` (the Resizable BAR capability)", actual=small, subjects=list(small))
    message = "BAR1: " + ", ".join(f"{b} {v}" for b, v in fine.items()) + " (nvidia-smi)"
    return over_gpus(nvidia, shown, ok(message, actual=fine, subjects=list(fine)))


_BAR_FAIL = r"BAR ?\d+.*(no space|failed to assign|can't assign)|NVRM:.*(BAR\d* is 0M|region assigned to your NVIDIA device is invalid)"


def _short(bdf: str) -> str:
    return bdf.split(":", 1)[1] if bdf.count(":") == 2 else bdf


@check(
    "FW-ABOVE4G-MMIO",
    title="Above-4G decoding / MMIO space too small for GPU BARs",
    severity="high",
    confidence="documented",
    fix=advice('BIOS: "Above 4G Decoding = Enabled", larger "MMIO High Base/Size", CSM off', cost="bios",
                   keep=keep_line('GRUB_CMDLINE_LINUX_DEFAULT="... pci=realloc"', "/etc/default/grub",
                                  label="fallback")),
    references=("https://docs.kernel.org/admin-guide/kernel-parameters.html",),
)
def above4g_mmio(pcie: PcieFacts | None = None, kernel_log: KernelLog | None = None,
                 cuda_ran: CudaRan | None = None, gpus: GpuInventory | None = None,
                 nvidia: NvidiaGpus | None = None) -> Outcome:
    """Reads: each GPU's BARs (sysfs `resource`, `Region N:` in `lspci -vv`: `<unassigned>`,
    `[disabled]`) and `dmesg` lines about BARs that got no space, or NVRM complaining about them.
    Without the BARs, a CUDA program's run on the GPUs (facts/cuda_ran.py: llama.cpp counting its
    CUDA devices, an engine's memory on them): the driver attached those GPUs, so their BARs are mapped.
    Without the PCI tree, the kernel log's BAR lines are read for the GPUs another source places (the `gpus` fact: the
    kernel's own PCI enumeration line of an NVIDIA display controller, `pci 0000:01:00.0: [10de:2204] type 00 class
    0x030000`, an NVRM line, nvidia-smi): a BAR of such a GPU that got no space is an issue (corpus 2277).
    Without the PCI tree, a BAR1 above 4 GiB that NVML / `nvidia-smi -q` reports (`BAR1 Memory Usage: Total`) was
    mapped above 4 GiB, which takes Above-4G decoding and a large enough MMIO window: ok for the GPUs shown (corpus 2489),
    also where a PCI listing without BARs (`lspci -nn`) places them.

    Bad value: an unassigned or disabled 64-bit BAR on a GPU; a kernel or NVRM message that a GPU
    BAR could not be assigned.

    Why: GPU BAR1 (tens to hundreds of GiB on data-center cards) must be mapped above 4 GiB;
    without Above-4G decoding or with a too-small MMIO window the kernel cannot assign it and the
    driver refuses the GPU.

    Traps: an availability failure, not a slowdown: a GPU that initialised has its BARs. The
    driver's message text varies by version: matched loosely on the BAR/region words.
    """
    ran = cuda_ran.proof() if cuda_ran is not None else None
    if pcie is None:
        placed = gpus.bdfs if gpus is not None else ()
        lines = _bar_fail_lines(kernel_log, placed) if kernel_log is not None else []
        if lines and placed:
            named = [b for b in placed if any(_short(b) in ln for ln in lines)] or list(placed)
            return issue(f"the kernel could not map GPU BARs: {len(lines)} kernel/driver line(s) about BAR space on "
                         f"{', '.join(named)}", actual=lines[:3], expected="every GPU BAR assigned", subjects=named,
                         evidence=lines[:5])
        if kernel_log is not None and kernel_log.grep(_BAR_FAIL, needles=("bar", "nvrm:")):
            return unknown("", needs="pcie")
        if ran is None and nvidia is not None and (large := _bar1_above_4g(nvidia)):
            return _bar1_mapped(nvidia, large)
        return _ran_mapped(ran) if ran is not None else unknown("", needs="pcie")
    functions = pcie.gpus
    if not functions:
        return no_gpu(pcie)
    bad = {g.bdf: [b.index for b in g.bars if b.unassigned and not b.is_io and b.index < 6] for g in functions}
    bad = {k: v for k, v in bad.items() if v}
    lines = _bar_fail_lines(kernel_log, [g.bdf for g in functions]) if kernel_log is not None else []
    if bad or lines:
        subjects = sorted(set(bad) | {g.bdf for g in functions if any(_short(g.bdf) in ln for ln in lines)})
        # The BARs in the first clause: the report's title is that clause (corpus 735).
        unmapped = "; ".join(f"{b} BAR {', '.join(map(str, v))}" for b, v in bad.items())
        return issue("GPU BARs could not be mapped" + (f" ({unmapped})" if bad else "")
                     + (f"; {len(lines)} kernel/driver line(s) about BAR space" if lines else ""),
                     actual=bad or lines[:3], expected="every GPU BAR assigned",
                     subjects=subjects or [g.bdf for g in functions], evidence=lines[:5])
    known = [g for g in functions if g.bars]
    if not known and kernel_log is None:
        if ran is None and nvidia is not None and (large := _bar1_above_4g(nvidia)):
            return _bar1_mapped(nvidia, large)
        return _ran_mapped(ran) if ran is not None else unknown("the GPUs' BARs are not in the source",
                                                                  hint="paste `lspci -vv` and `dmesg`")
    if not known:
        return ok("no BAR assignment failure in the kernel log")
    return over_gpu_functions(pcie, [g.bdf for g in known], ok(
        f"every BAR of {len(known)} GPU(s) is assigned" + ("" if kernel_log is not None else " (kernel log not read)"),
        subjects=[g.bdf for g in known]), [g.bdf for g in functions if not g.bars])


def _bar1_above_4g(nvidia: NvidiaGpus | None) -> list[GpuInfo]:
    """The GPUs whose BAR1 NVML / nvidia-smi reports above 4 GiB, where every GPU showing a BAR1 has one so large
    (a small one says nothing of the window); [] otherwise."""
    shown = [g for g in (nvidia.gpus if nvidia is not None else ()) if g.bar1_total_mib is not None]
    return shown if shown and all((g.bar1_total_mib or 0) > 4096 for g in shown) else []


def _bar1_mapped(nvidia: NvidiaGpus, large: list[GpuInfo]) -> Outcome:
    """FW-ABOVE4G-MMIO ok over the GPUs whose BAR1 NVML / nvidia-smi reports above 4 GiB (_bar1_above_4g)."""
    return over_gpus(nvidia, large, ok(
        "BAR1 " + ", ".join(f"{g.subject} {_size(int((g.bar1_total_mib or 0) * 2**20))}" for g in large)
        + " (nvidia-smi): a BAR larger than 4 GiB can only be mapped above 4 GiB, so Above-4G decoding is on "
        "and the MMIO window holds it", actual={g.subject: f"{g.bar1_total_mib:g} MiB" for g in large},
        subjects=[g.subject for g in large]))


def _bar_fail_lines(kernel_log: KernelLog, bdfs: Sequence[str]) -> list[str]:
    """The kernel log's lines about BAR space (_BAR_FAIL) of one of these GPUs (logs drop the PCI domain), or NVRM's."""
    shorts = {_short(b) for b in bdfs}
    return [line.strip() for line in kernel_log.grep(_BAR_FAIL, needles=("bar", "nvrm:"))
            if "NVRM" in line or any(s in line for s in shorts)]


def _ran_mapped(ran: Ran) -> Outcome:
    """FW-ABOVE4G-MMIO ok for the GPUs a CUDA program ran on: the driver attached them, which it refuses for a GPU
    whose BARs got no space, so their BARs are mapped; a GPU CUDA does not list is not judged."""
    which = f" ({', '.join(ran.models)})" if ran.models else ""
    return ok(f"{ran.did}: the driver attached the GPUs CUDA found{which}, so their BARs are mapped (a GPU CUDA does "
              "not list is not judged)", evidence=[ran.line])


@check(
    "FW-AER-ERRORS",
    title="PCIe AER errors / link replays on a GPU link",
    severity="medium",
    confidence="documented",
    fix=advice("Reseat the GPU, riser and cables; update BIOS and retimer firmware; in BIOS force the slot one "
                   "generation lower if signal integrity is marginal", cost="hardware"),
    references=("https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats",),
)
def aer_errors(pcie_errors: PcieErrors, pcie: PcieFacts | None = None,
               cmdline: KernelCmdline | None = None, gpu_events: GpuEvents | None = None) -> Outcome:
    """Reads: `aer_dev_correctable`, `aer_dev_nonfatal`, `aer_dev_fatal` in sysfs for each GPU,
    its upstream port (errors may be counted at the link partner) and the NICs; the kernel log's
    AER lines (`AER: Uncorrected (Fatal) error received`, `PCIe Bus Error`, `Surprise Down`) and
    firmware-first (APEI GHES) PCIe error records (`{3}[Hardware Error]:   device_id: 0000:01:00.0`, with the
    record's `event severity`, `port_type` and `vendor_id`); GPUs that fell off the bus (Xid 79, with or without the
    number) or that the driver can no longer open
    (nvidia-smi's "Unable to determine the device handle for GPU…"), to tie a port's error to them.

    Bad value: any fatal or non-fatal count; AER lines on the link of a GPU that fell off the bus or that the
    driver can no longer open;
    correctable counts that grow between two samples under load. The Xid 79 line itself is DRV-XID's
    finding (one log line, one finding).

    Why: every bad TLP/DLLP and replay costs link time; persistent errors precede link
    down-training and Xid 79.

    Traps: a few correctable errors at boot (link training) are common: one sample cannot give a
    rate. On firmware-first platforms (APEI/GHES) the sysfs counters stay 0 — check the BMC log.
    `pci=noaer` only silences reporting. Counter names differ by kernel (`Bad TLP` / `BadTLP`).
    Without the PCI tree (a pasted log alone) every AER line counts, since which port leads to a GPU
    is unknown; "none" needs the counters or a whole kernel log. A GHES record counts as its CPER severity says
    (recoverable: uncorrected); one cut above its severity counts with the uncorrected, since nothing shows it was
    corrected (corpus 2487); one of an endpoint of a vendor that makes no GPU (an NVMe drive, corpus 701) is not a
    GPU link. A fatal error or `Surprise Down`
    on a port above a GPU that fell off the bus (Xid 79) is one event: the link dropped under the
    GPU (slot, riser, cable, power), and the finding names both.
    """
    if pcie is not None and not pcie.gpus:
        return no_gpu(pcie)
    counts = pcie_errors.counts()
    watched = set(pcie_errors.watched)
    shorts = [_short(b) for b in watched]
    # With the PCI tree, only lines about the watched devices; without it, every AER line but a firmware record that
    # names an endpoint of a vendor that makes no GPU (an NVMe drive: corpus 701).
    lines = [ln for ln in pcie_errors.lines if not watched or any(s in ln.line for s in shorts)]
    elsewhere = [ln for ln in lines if ln.endpoint_vendor not in ("", *GPU_VENDORS) and not watched]
    lines = [ln for ln in lines if ln not in elsewhere]
    serious = {b: r for b, r in counts.items() if r.get("fatal", 0) or r.get("nonfatal", 0)}
    # A firmware record whose severity the paste cuts counts with the uncorrected: the platform reported an error
    # against the device, and the text cannot show that it was corrected (corpus 2487).
    uncorrected = [ln.line for ln in lines if ln.severity in ("fatal", "nonfatal", UNSTATED)]
    details = [ln.line for ln in lines if not ln.severity]
    # A GPU that fell off the bus is DRV-XID's finding, on its own line: this check counts AER lines only
    # (one log line, one finding), and names the lost GPU where its link logged some.
    lost = list(pcie_errors.lost)
    unopened = [bdf for bdf, _ in pcie_errors.unopened]
    drops = _link_drops(lines, gpu_events, pcie)
    if drops or serious or uncorrected or ((lost or unopened) and lines):
        fatal = bool(drops) or any(r.get("fatal", 0) for r in serious.values()) or any(
            ln.severity == "fatal" for ln in lines) or any(re.search("Surprise Down|SDES", d) for d in details)
        parts = list(drops)
        if serious:
            parts.append("uncorrectable AER counts: " + "; ".join(
                f"{b} fatal {r.get('fatal', 0)} nonfatal {r.get('nonfatal', 0)}" for b, r in serious.items()))
        unstated = [ln.line for ln in lines if ln.severity == UNSTATED]
        if len(unstated) < len(uncorrected) and not drops:
            parts.append(f"{len(uncorrected) - len(unstated)} uncorrected PCIe error lines")
        if unstated and not drops:
            parts.append("; ".join(unstated) + " (the record is cut above its severity: the platform firmware "
                         "reported a PCIe error against the device, not shown as corrected)")
        if not parts and lost:
            parts.append(f"{len(lines)} PCIe AER lines beside a GPU that fell off the bus (DRV-XID)")
        if not parts:
            parts.append(f"{len(lines)} PCIe AER lines beside GPU {', '.join(unopened)}, which the driver can no "
                         "longer open (nvidia-smi: \"Unable to determine the device handle\"): errors on the PCIe "
                         "link and a GPU lost to the driver point at its link (slot, riser, cable, power)")
        subjects = list(serious) or sorted({ln.bdf for ln in lines if ln.bdf}) or [
            g.bdf for g in (pcie.gpus if pcie else ())]
        aer_lines = [ln.line for ln in lines]
        return issue("; ".join(parts), actual=serious or (uncorrected or aer_lines)[:3],
                     expected="no uncorrectable errors", subjects=subjects, severity="high" if fatal else "medium",
                     evidence=list(dict.fromkeys(uncorrected + details + aer_lines))[:5], gpu_lost=bool(drops))
    repeats = _corrected_after_boot(lines)
    if len(repeats) >= 3:
        # Logged long after link training, one after another: the count grows, which is the bad value.
        return issue(f"{len(repeats)} correctable PCIe errors logged at uptime {repeats[0]:.1f}-{repeats[-1]:.1f} s, "
                     "long after link training: the link keeps retrying (replays cost link time and precede "
                     "down-training)", actual=[ln.line for ln in lines if ln.severity == "corrected"][:3],
                     expected="no correctable errors growing under load", severity="low",
                     subjects=sorted({ln.bdf for ln in lines if ln.bdf}),
                     evidence=[ln.line for ln in lines if ln.severity == "corrected"][:4])
    if elsewhere and not lines and not counts:
        return not_an_issue("the PCIe error shown is on an endpoint of a vendor that makes no GPU, not a GPU link: "
                            + "; ".join(dict.fromkeys(ln.line for ln in elsewhere)), subjects=[],
                            evidence=[ln.line for ln in elsewhere][:3])
    if cmdline is not None and "noaer" in cmdline.pci_options():
        return unknown("`pci=noaer` turns AER reporting off: the counters and log say nothing",
                       hint="remove `pci=noaer` (it only silences reporting) and look again")
    if not counts and not pcie_errors.log_whole:
        shown = f"the {pcie_errors.log_lines} kernel-log lines shown" if pcie_errors.log_lines else "this source"
        return unknown(f"no uncorrectable PCIe error in {shown}, but without the AER counters only a whole kernel "
                       "log (from boot) could show there was none"
                       + ("; the GPU that fell off the bus is DRV-XID's finding" if lost else ""),
                       hint="run as root on the host, or paste the whole `sudo dmesg`")
    corr = {b: r["correctable"] for b, r in counts.items() if r.get("correctable")}
    msg = "no uncorrectable PCIe errors"
    if corr:
        msg += ("; correctable errors since boot: " + ", ".join(f"{b} {n}" for b, n in corr.items())
                + " (a few at link training are common; compare two samples under load for a rate)")
    corrected_lines = [ln for ln in lines if ln.severity == "corrected"]
    if corrected_lines and not corr:
        msg += f"; {len(corrected_lines)} corrected PCIe error line(s) in the kernel log"
    if pcie_errors.ghes and not corr:
        msg += "; firmware-first error handling (GHES/APEI): sysfs counters may stay 0, check the BMC log"
    if not counts:
        msg += " (AER counters not in the source; whole kernel log only)"
    if lost:
        msg += "; the GPU that fell off the bus is DRV-XID's finding"
    return ok(msg, actual=counts or None, subjects=list(counts))
