"""KVER: kernel version compatibility (docs/checks.md, KVER)."""

from __future__ import annotations

import re

from stackaudit.checks.kern import counts, is_vm
from stackaudit.checks.registry import (
    Fix,
    Outcome,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    over_subjects,
    unknown,
)
from stackaudit.checks.registry import check as register_check
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.cpufreq import CpuFreq, intel_driver_from_lscpu
from stackaudit.facts.cuda_ran import CudaRan, Ran
from stackaudit.facts.gpus import GpuInventory
from stackaudit.facts.kernel_knobs import NvidiaKernel
from stackaudit.facts.nvidia import NvidiaDriver
from stackaudit.facts.parallelism import multi_node_flags
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.platform import Virtualization, tegra_kernel, wsl_kernel
from stackaudit.facts.processes import ServingProcesses
from stackaudit.facts.rdma import RdmaDevices
from stackaudit.facts.serving_logs import NcclNodes, ServingLog
from stackaudit.facts.system import (
    NON_X86_MACHINES,
    PEER_MEMORY_MODULES,
    CpuInfo,
    KernelCmdline,
    KernelInfo,
    KernelLog,
    LoadedModules,
    refused_peer_memory,
)
from stackaudit.fixes.model import (
    advice,
    keep_line,
    keep_text,
    sh,
    step,
)
from stackaudit.gputable import architecture_of

# --- KVER-AMD-ZEN5 ---------------------------------------------------------------------------


@register_check(
    "KVER-AMD-ZEN5",
    title="EPYC 9005 (Turin, Zen 5) on an older kernel",
    severity="low",
    confidence="source-verified",
    fix=advice("Install the distribution's HWE kernel >= 6.13 (or amd_pstate=active on a 6.5+ kernel that knows the "
                   "CPU), then reboot", cost="reboot"),
    references=("https://docs.kernel.org/admin-guide/pm/amd-pstate.html",
                "https://meterpreter.org/amd-zen-5-linux-patches-roll-out"),
)
def amd_zen5(cpu: CpuInfo, kernel: KernelInfo | None = None, cpufreq: CpuFreq | None = None,
             kernel_log: KernelLog | None = None) -> Outcome:
    """Reads: `lscpu` CPU family (26 = 0x1A, Zen 5), `uname -r`, scaling_driver and governor,
    dmesg amd_pstate lines.

    Bad value: kernel < 6.13 runs Zen 5 on acpi-cpufreq (no CPPC/EPP control): a capability gap,
    not a fault (the governor is KERN-CPUFREQ-GOVERNOR's). Kernels before the Zen 5 model IDs
    (the 6.9-6.10 window per reported patches; partly unverified) may lack topology/RAS tuning:
    use the distribution's supported HWE kernel.

    Why: amd-pstate is default-on for family >= 0x1A servers from Linux 6.13 (amd-pstate.c).

    Traps: Turin runs fine with acpi-cpufreq + `performance`: not an issue, and never a high
    finding for the kernel version alone. The exact minimum kernel for full Turin support is
    distribution-specific (distribution kernels backport; not verified).
    """
    if cpu.architecture in NON_X86_MACHINES:
        return not_applicable(f"an {cpu.architecture} CPU, not an AMD x86 CPU")
    if not cpu.is_amd or cpu.family is None or cpu.family < 26:
        return not_applicable(f"not a Zen 5 CPU (family {cpu.family}, {cpu.model_name or cpu.vendor})")
    if kernel is None:
        return unknown(f"a Zen 5 CPU (family {cpu.family}); the kernel release is not in this source",
                       hint="paste `uname -a`")
    release = kernel.release_tuple
    if not release:
        return unknown(f"kernel release {kernel.release!r} not understood")
    driver = cpufreq.driver if cpufreq is not None else None
    govs = cpufreq.governors() if cpufreq is not None else None
    observed = (f"family {cpu.family} ({cpu.model_name or 'Zen 5'}), kernel {kernel.release}"
                + (f", driver {driver}" if driver else "")
                + (f", governor {counts(govs)}" if govs else ""))
    if release >= (6, 13):
        return ok(f"{observed}: amd-pstate is the default for Zen 5 servers from 6.13", actual=observed)
    if driver == "acpi-cpufreq" and govs and set(govs) == {"performance"}:
        # The kernel version alone is never the finding: with acpi-cpufreq + performance Turin runs at full speed.
        early = (" (a kernel before the Zen 5 model IDs, 6.9-6.10, may lack topology/RAS tuning unless the "
                 "distribution backported it: worth knowing, not a throughput fault)" if release < (6, 10) else "")
        return not_an_issue(
            f"{observed}: before 6.13 Zen 5 uses acpi-cpufreq by default; with the performance governor Turin "
            "runs fine (only CPPC/EPP control is missing)" + early,
            actual=observed, expected="acpi-cpufreq + performance, or amd-pstate (kernel >= 6.13)",
        )
    if release < (6, 10):
        return issue(
            f"{observed}: a kernel before the Zen 5 model IDs (6.9-6.10 window, partly unverified) may lack "
            "topology/RAS tuning for Turin, and amd-pstate is not the default before 6.13; distribution kernels "
            "backport support, so check that yours lists this CPU as supported",
            actual=observed, expected="the distribution's supported (HWE) kernel, >= 6.13 for amd-pstate by default",
            confidence="unproven",
        )
    if driver and driver.startswith("amd-pstate"):
        return ok(f"{observed}: amd-pstate enabled explicitly on a pre-6.13 kernel", actual=observed)
    return issue(
        f"{observed}: before 6.13 Zen 5 gets acpi-cpufreq (no CPPC/EPP control), a capability gap rather than a "
        "fault; the governor itself is checked by KERN-CPUFREQ-GOVERNOR",
        actual=observed, expected="kernel >= 6.13 (amd-pstate by default) or acpi-cpufreq + performance",
    )


# --- KVER-INTEL-PSTATE -----------------------------------------------------------------------


@register_check(
    "KVER-INTEL-PSTATE",
    title="Intel Xeon frequency driver and firmware (OOB) control",
    severity="low",
    confidence="documented",
    fix=advice("Remove obsolete intel_pstate=disable / no_hwp from the kernel command line and reboot; BIOS "
                   "'Hardware P-States: Native' for OS control, or a maximum-performance BIOS profile if firmware "
                   "keeps it", cost="reboot"),
    references=("https://docs.kernel.org/admin-guide/pm/intel_pstate.html",),
)
def intel_pstate(cpu: CpuInfo, cpufreq: CpuFreq | None = None, cmdline: KernelCmdline | None = None,
                 kernel_log: KernelLog | None = None, container: ContainerInfo | None = None,
                 virtualization: Virtualization | None = None) -> Outcome:
    """Reads: /sys/devices/system/cpu/intel_pstate/status, scaling_driver, the `hwp` CPU flag or
    the Xeon model that has HWP, cmdline intel_pstate=disable|passive|no_hwp, dmesg "intel_pstate:
    P-states controlled by the platform", and whether /sys/devices/system/cpu/cpufreq has any
    policy. Without cpufreq, lscpu's `Frequency boost:` line: only acpi-cpufreq gives an Intel
    CPU that file (intel_driver_from_lscpu). Its absence where lscpu shows `CPU(s) scaling MHz:` (a cpufreq driver
    loaded, an lscpu that prints the boost line) is intel_pstate: ok (corpus 1868).

    Bad value: no cpufreq interface on bare metal (firmware/out-of-band P-state control: the BIOS
    profile alone decides clocks: check the FW/BMC profile); intel_pstate=disable or no_hwp left
    on the cmdline from old tuning guides; acpi-cpufreq on a HWP-capable Xeon.

    Why: intel_pstate uses HWP when available; when the BIOS keeps P-state control the OS cannot
    change governor or EPP (kernel intel_pstate guide).

    Traps: firmware (OOB) control with a "Performance" BIOS profile is a valid configuration:
    the OS-level checks then do not apply, and the result says so. VMs have no cpufreq by design.
    A container that shows no cpufreq says nothing about the host: unknown.
    """
    if not cpu.is_intel:
        return not_applicable("not an Intel CPU")
    if is_vm(virtualization):
        return not_applicable("a VM: P-states belong to the hypervisor host")
    opts: list[str] = []
    if cmdline is not None:
        for value in cmdline.values("intel_pstate"):
            opts.extend(o for o in (value or "").split(",") if o)
    bad_opts = [o for o in opts if o in ("disable", "no_hwp")]
    hwp = cpu.hwp_capable
    platform = kernel_log.grep(r"intel_pstate: P-states controlled by the platform", needles=("intel_pstate",)) if kernel_log else []
    if cpufreq is None and not bad_opts:
        by_boost = intel_driver_from_lscpu(cpu.vendor, cpu.frequency_boost, cpu.cpufreq_scaling)
        if by_boost == "intel_pstate":
            observed = ("driver intel_pstate (lscpu shows `CPU(s) scaling MHz` and no `Frequency boost:` line)"
                        + (", HWP capable" if hwp else ""))
            return ok(f"{observed}: the OS controls P-states, and only acpi-cpufreq would give this Intel CPU the "
                      "cpufreq/boost switch lscpu reads", actual=observed,
                      evidence=["lscpu: CPU(s) scaling MHz shown, no Frequency boost line"])
        if by_boost is None or not hwp:
            return unknown("", needs="cpufreq")
        observed = f"driver {by_boost} (lscpu shows `Frequency boost: {cpu.frequency_boost}`), HWP capable"
        return issue(
            f"{observed}: only acpi-cpufreq gives an Intel CPU the cpufreq/boost switch lscpu reads, so this "
            f"HWP-capable Xeon ({cpu.model_name or f'model {cpu.model}'}) runs without HWP/EPP control",
            actual=observed, expected="intel_pstate (active, HWP)",
            evidence=[f"lscpu: Frequency boost: {cpu.frequency_boost}"],
        )
    driver = cpufreq.driver if cpufreq is not None else None
    status = cpufreq.intel_pstate_status if cpufreq is not None else None
    observed = (f"driver {driver or 'none'}"
                + (f", intel_pstate/status {status}" if status else "")
                + (f", cmdline intel_pstate={','.join(opts)}" if opts else "")
                + (", HWP capable" if hwp else ""))
    if bad_opts:
        return issue(
            f"{observed}: intel_pstate={','.join(bad_opts)} on the kernel command line, usually left from old tuning "
            "guides; it removes HWP/EPP control" + (" and falls back to acpi-cpufreq" if "disable" in bad_opts else ""),
            actual=observed, expected="no intel_pstate=disable/no_hwp",
            subjects=["cmdline:intel_pstate"],
            evidence=[f"/proc/cmdline: intel_pstate={','.join(opts)}"],
        )
    if cpufreq is None:
        return unknown("", needs="cpufreq")
    if not cpufreq.present and container is not None and container.in_container and not platform:
        return unknown(f"no cpufreq interface visible inside this {container.kind} container: the host's P-state "
                       "control cannot be told from here",
                       hint="run the audit on the host (or with the host's / at /host, --root /host)")
    if not cpufreq.present:
        why = ("dmesg: 'P-states controlled by the platform'" if platform
               else "no cpufreq policy in /sys/devices/system/cpu/cpufreq")
        return issue(
            f"no OS frequency control on bare metal ({why}): the firmware controls P-states out of band, so the BIOS/BMC "
            "profile alone decides clocks. That is valid with a 'Performance' BIOS profile: check it",
            actual=f"no cpufreq driver ({why})", expected="intel_pstate active, or firmware control with a Performance "
            "BIOS profile", evidence=platform[:1],
            fix=advice("BIOS system profile 'Performance' (or 'Hardware P-States: Native' for OS control)", cost="bios"),
        )
    if driver == "acpi-cpufreq" and hwp:
        return issue(
            f"{observed}: acpi-cpufreq on a HWP-capable Xeon (no HWP/EPP control)",
            actual=observed, expected="intel_pstate (active, HWP)",
        )
    return ok(observed, actual=observed)


# --- KVER-NVIDIA-KERNEL-COMBOS ---------------------------------------------------------------

_RHEL9_570 = re.compile(r"^5\.14\.0-570\.")
# Blackwell PCI device IDs start at 0x2900 (B200 0x2901, RTX PRO 6000 0x2bb1, RTX 5090 0x2b85).
_BLACKWELL_MIN_DEVICE = 0x2900


def _hmm_disabled(value: str | None) -> bool:
    return (value or "").strip().upper() in ("Y", "1")


# The workaround for the driver / kernel combinations that break CUDA with HMM on.
_HMM_OFF = step("Turn HMM off in nvidia_uvm, then reload it with no GPU process running",
                sh("echo 'options nvidia_uvm uvm_disable_hmm=1' > /etc/modprobe.d/nvidia-uvm.conf"),
                "modprobe -r nvidia_uvm", "modprobe nvidia_uvm", cost="driver-reload",
                changes="/etc/modprobe.d/nvidia-uvm.conf (nvidia_uvm uvm_disable_hmm)",
                keep=keep_line("options nvidia_uvm uvm_disable_hmm=1", "/etc/modprobe.d/nvidia-uvm.conf"))


@register_check(
    "KVER-NVIDIA-KERNEL-COMBOS",
    title="Known NVIDIA driver / kernel combinations that break CUDA",
    severity="high",
    confidence="field-reports",
    fix=Fix.of(_HMM_OFF, note="update driver/kernel to fixed versions; hold kernel packages until DKMS builds"),
    references=("https://github.com/NVIDIA/open-gpu-kernel-modules/issues/901",
                "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/797",
                "https://github.com/NVIDIA/NV-Kernels/pull/110",
                "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1223"),
)
def nvidia_kernel_combos(nvidia_kernel: NvidiaKernel, kernel: KernelInfo | None = None, pci: PciDevices | None = None,
                         kernel_log: KernelLog | None = None, nvidia_driver: NvidiaDriver | None = None,
                         cuda_ran: CudaRan | None = None, gpus: GpuInventory | None = None,
                         virtualization: Virtualization | None = None) -> Outcome:
    """Reads: `uname -r`; /sys/module/nvidia/version and /proc/driver/nvidia/version;
    /sys/module/nvidia_uvm/parameters/uvm_disable_hmm; `modinfo -F version nvidia` when the
    module is not loaded; NVIDIA GPUs on the PCI bus; dmesg nvidia_uvm/HMM lines. Where /sys and
    /proc are not in the source, the loaded driver's version that NVML, the nvidia-smi table header or
    `nvidia-smi --version` reports.

    Bad value: RHEL/Rocky 9 kernel 5.14.0-570.x with driver 570/575 and HMM on (all CUDA calls
    fail; NVIDIA issue #901); Linux 6.11 (cudaMallocHost pin_user_pages leak/allocation failures,
    fixed by mm patches NVIDIA backported); driver 595 on Blackwell with HMM on (open HMM eviction
    deadlock under oversubscription, #1223); an NVIDIA GPU with no module built for the running
    kernel (DKMS failed after a kernel update).

    Why: as linked (NVIDIA issue trackers and kernel tree).

    Traps: serving engines use cudaMalloc/caching allocators, not HMM, so uvm_disable_hmm=1 costs
    them nothing, but it is recommended only where a known case matches.
    Under a WSL 2 kernel (`-microsoft-standard-WSL2`) the Windows driver drives the GPU and no NVIDIA module loads
    into the Linux kernel (CUDA on WSL user guide: no Linux display driver is installed in WSL): not applicable; so
    where another source shows WSL 2 (facts/platform.Virtualization.wsl: a library loaded from its driver mount
    /usr/lib/wsl, the nvidia-smi header's Linux library over a Windows driver), with or without the kernel shown.
    Under NVIDIA's Linux for Tegra kernel (`-tegra`, a Jetson's L4T) the board's BSP ships the GPU driver built for
    that kernel: not applicable, where no NVIDIA GPU on a PCI bus is shown (an IGX board's discrete GPU would be).
    Where neither the module nor the driver's version is shown, a CUDA program that ran on this kernel (facts/cuda_ran.py:
    torch initialising CUDA in collect_env, an engine decoding) shows a module built and working for it. That rules
    out the missing module and the RHEL 9 570 case, where every CUDA call fails. On Linux 6.11 it is an issue whatever
    ran. A Blackwell GPU among those shown leaves the driver-595 case open (unknown). Otherwise it is ok.
    Driver 595 with no PCI bus shown is judged on the GPUs another source names (an nvidia-smi table, the user's
    hardware summary): all of a known architecture other than Blackwell, ok over those GPUs (corpus 2422); else unknown.
    """
    wsl = (f"kernel {kernel.release} is WSL 2's" if kernel is not None and wsl_kernel(kernel.release) else
           f"WSL 2 ({virtualization.source})" if virtualization is not None and virtualization.wsl else "")
    if wsl:
        return not_applicable(f"{wsl}: the Windows driver drives the GPU through WSL's GPU paravirtualisation "
                              "(dxgkrnl), and no NVIDIA kernel module runs in this kernel, so there is no NVIDIA "
                              "driver / Linux kernel pair to break")
    if kernel is None:
        return unknown("", needs="kernel")
    bus_gpus = pci.nvidia_gpus if pci is not None else ()
    if tegra_kernel(kernel.release) and not bus_gpus:
        return not_applicable(f"kernel {kernel.release} is NVIDIA's Linux for Tegra kernel (a Jetson board's L4T): "
                              "the board's BSP ships the integrated GPU's driver built for it, so no separately "
                              "installed NVIDIA module meets this kernel, and no discrete GPU is shown on a PCI bus")
    loaded_version = nvidia_kernel.loaded_version or (
        nvidia_driver.version if nvidia_driver is not None and nvidia_driver.loaded else None)
    version = loaded_version or nvidia_kernel.installed_version
    proof = cuda_ran.proof(with_report=True) if cuda_ran is not None else None
    if not bus_gpus and version is None and proof is not None and kernel.release_tuple[:2] != (6, 11):
        return _ran_on_kernel(kernel.release, proof, gpus_shown=gpus)
    if not bus_gpus and version is None and proof is None:
        if pci is None:
            return unknown("neither an NVIDIA GPU nor the nvidia module is visible in this source")
        return not_applicable("no NVIDIA GPU on the PCI bus and no nvidia module")
    major = int(m.group(1)) if (m := re.match(r"(\d+)\.", version or "")) else None
    release = kernel.release
    hmm_off = _hmm_disabled(nvidia_kernel.uvm_disable_hmm)
    observed = (f"kernel {release}, nvidia {version or 'not loaded'}"
                + (f" ({'open' if nvidia_kernel.open_module else 'proprietary'})" if nvidia_kernel.open_module is not None
                   else "")
                + (f", uvm_disable_hmm={nvidia_kernel.uvm_disable_hmm}" if nvidia_kernel.uvm_disable_hmm else ""))
    found: list[str] = []
    severity = "high"
    fix: Fix | None = None
    if loaded_version is None and bus_gpus and nvidia_kernel.modinfo_rc not in (None, 0):
        return issue(
            f"{len(bus_gpus)} NVIDIA GPU(s) on the PCI bus but no nvidia module for kernel {release} (modinfo fails): "
            "DKMS probably failed to build after a kernel update",
            actual=observed, expected="an nvidia module built for the running kernel",
            subjects=[g.bdf for g in bus_gpus],
            fix=Fix.of(step("Build the nvidia module for the running kernel (or reinstall the driver package), then reboot",
                       "dkms status", "dkms autoinstall", cost="reboot", changes="the nvidia DKMS modules",
                       keep=keep_text("hold kernel packages until DKMS builds for them"))),
        )
    uvm_log = kernel_log.grep(r"nvidia_uvm.*(hmm|fail)|hmm.*nvidia", needles=("nvidia_uvm", "hmm")) if kernel_log is not None else []
    if _RHEL9_570.match(release) and "el9" in release and major in (570, 575):
        if hmm_off:
            return not_an_issue(
                f"{observed}: the RHEL 9 5.14.0-570 + driver {major} CUDA failure is worked around "
                "(uvm_disable_hmm=1)", actual=observed, expected="uvm_disable_hmm=1 or a fixed driver/kernel",
            )
        found.append(f"RHEL 9 kernel 5.14.0-570.x with driver {major} and HMM on: every CUDA call can fail "
                     "(NVIDIA open-gpu-kernel-modules #901)")
        fix = Fix.of(_HMM_OFF, note="or update to a fixed driver/kernel")
    if kernel.release_tuple[:2] == (6, 11):
        found.append("Linux 6.11: cudaMallocHost (pin_user_pages FOLL_LONGTERM) leaks / fails to allocate unless the "
                     "kernel carries the two mm fixes NVIDIA backported (NV-Kernels #110)")
        fix = fix or advice("Boot a kernel with the fixes (6.12+, or NVIDIA's/your distro's patched 6.11)", cost="reboot")
    blackwell = [g for g in bus_gpus if _device_id(g.device) >= _BLACKWELL_MIN_DEVICE]
    if major == 595 and blackwell and not hmm_off:
        found.append("driver 595 on Blackwell with HMM on: open HMM eviction deadlock under GPU memory "
                     "oversubscription (#1223; serving engines do not oversubscribe by default)")
        severity = "medium" if len(found) == 1 else severity
    if found:
        return issue(f"{observed}: " + "; ".join(found), actual=observed,
                     expected="a driver/kernel pair without known breakage", severity="high" if severity == "high"
                     else "medium", fix=fix, evidence=uvm_log[:3],
                     subjects=[g.bdf for g in bus_gpus] or ["nvidia"])
    if loaded_version is None:
        return unknown(f"{observed}: the nvidia module is not loaded, so the driver/kernel pair cannot be fully checked",
                       hint="see the DRV checks; modprobe nvidia")
    # Without the PCI bus, the GPUs another source names (an nvidia-smi table, the user's hardware summary) show
    # which GPUs meet driver 595: none Blackwell rules its case out (corpus 2422, the user's RTX 3090 Ti).
    shown = [g.model for g in (gpus.gpus if gpus is not None else ())] if major == 595 and pci is None else []
    if major == 595 and pci is None and not hmm_off and not _none_blackwell(shown):
        return unknown(f"{observed}: driver 595 with HMM on deadlocks on Blackwell GPUs only (#1223), and which GPUs "
                       "the host has is not in this source", hint="lspci -nn -d 10de:", actual=observed)
    named = (f"; driver 595's HMM deadlock is Blackwell's (#1223), and the {len(shown)} GPU(s) shown "
             f"({', '.join(sorted(set(shown)))}) are none Blackwell" if shown and not hmm_off else "")
    judged = ok(f"{observed}: no known broken driver/kernel combination{named}", actual=observed)
    return over_subjects(judged, [f"GPU {g.index}" for g in gpus.gpus]) if named and gpus is not None else judged


def _none_blackwell(models: list[str]) -> bool:
    """Whether `models` name GPUs, each of a known architecture other than Blackwell (facts/gpus architecture_of)."""
    return bool(models) and all(architecture_of(m) not in ("", "Blackwell") for m in models)


def _ran_on_kernel(release: str, proof: Ran, gpus_shown: GpuInventory | None) -> Outcome:
    """KVER-NVIDIA-KERNEL-COMBOS where no module version is shown and a CUDA program ran on the kernel (the check's
    docstring)."""
    models = [g.model for g in (gpus_shown.gpus if gpus_shown is not None else ())] or list(proof.models)
    said = f"{proof.did} (\"{proof.line[:160]}\")" if proof.line else proof.did
    if not _none_blackwell(models):
        return unknown(f"kernel {release}: {said}, so a module is built and working for it; the driver's version "
                       "is not in this source, and on a Blackwell GPU driver 595 with HMM on can deadlock (#1223)",
                       hint="paste `nvidia-smi` (its driver version)")
    return ok(f"kernel {release}: {said}, so an nvidia module is built for this kernel and CUDA works on it, which "
              "rules out the missing module and the RHEL 9 5.14.0-570 HMM failure (every CUDA call fails there); "
              f"{len(models)} GPU(s) shown, none Blackwell, and the kernel is not Linux 6.11",
              actual=f"kernel {release}, nvidia not shown, CUDA ran", evidence=[proof.line] if proof.line else [])


def _device_id(device: str) -> int:
    try:
        return int(device, 16)
    except ValueError:
        return 0


# --- KVER-DMABUF -----------------------------------------------------------------------------



@register_check(
    "KVER-DMABUF",
    title="GPUDirect RDMA via DMA-BUF or nvidia_peermem (multi-node)",
    severity="medium",
    confidence="source-verified",
    fix=Fix.of(step("Load nvidia_peermem", "modprobe nvidia_peermem", cost="driver-reload",
                       changes="the loaded kernel modules",
                       keep=(keep_line("nvidia_peermem", "/etc/modules-load.d/nvidia-peermem.conf"),
                             keep_text("or open kernel modules + kernel >= 5.12 + rdma-core with dma-buf (NCCL uses "
                                       "DMA-BUF by default)")))),
    references=("https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
                "https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib/gdr.cc"),
)
def dmabuf(rdma: RdmaDevices | None = None, kernel: KernelInfo | None = None, modules: LoadedModules | None = None,
           nvidia_kernel: NvidiaKernel | None = None, serving_processes: ServingProcesses | None = None,
           serving_log: ServingLog | None = None, nccl_nodes: NcclNodes | None = None) -> Outcome:
    """Reads: RDMA devices (/sys/class/infiniband), `uname -r` (>= 5.12 for RDMA dma-buf), the
    nvidia module flavour (/proc/driver/nvidia/version "Open Kernel Module"), nvidia_peermem (or
    MLNX_OFED's nv_peer_mem) in /proc/modules or its callback lines in the kernel log, NCCL_DMABUF_ENABLE and multi-node flags of the serving processes, and a pasted
    NCCL log's network channels (`via NET/IB/9/GDRDMA`).

    Bad value: an RDMA host with GPUDirect RDMA unavailable on both paths: no nvidia_peermem and
    no DMA-BUF (proprietary module or kernel < 5.12), or NCCL_DMABUF_ENABLE=0 without peermem.

    Why: NCCL probes ibv_reg_dmabuf_mr support (net_ib/gdr.cc); its troubleshooting guide: GDR
    "can also be enabled by using the DMA-BUF feature of recent Linux kernels combined with the
    Open Source Nvidia GPU driver". Without GDR, inter-node traffic bounces through host memory.

    A kernel before 5.12 has no RDMA DMA-BUF whatever the module's flavour; a peer-memory module the kernel refused
    to load (modprobe's `could not insert`, corpus 2430) is no nvidia_peermem.

    Traps: irrelevant for single-node serving (not an issue when the engine runs on one node).
    nvidia_peermem does not affect GPU-to-GPU traffic inside one host (IC-NVIDIA-PEERMEM).
    NCCL's own "NET/IB : No device found" means the engine sends over no RDMA NIC: not applicable.
    "Using network Socket" alone is not read so: NCCL_IB_DISABLE gives it on a host with RDMA NICs.
    `GDRDMA` on a rank's NET channel is ok for that rank's GPU: its NIC reads and writes GPU memory.
    That line does not say which path (nvidia_peermem or DMA-BUF) serves it.
    A job whose NCCL log or nccl-tests header puts every rank on one node (NcclNodes) sends nothing between nodes:
    not applicable where the RDMA NICs are not shown, not an issue where both paths are off.
    The NIC's own word that it cannot reach GPU memory (an RDMA HCA's `GPU Direct RDMA Disabled` line, libfabric's
    "Failed to register CUDA buffer with the EFA device") is both paths off, whatever lsmod or the kernel shows: an
    issue on a job shown across nodes, whose channels between nodes then go over the NIC without GDR or fall back to
    `NET/Socket` (corpus 1580: p5.48xlarge, EFA, ~1 GB/s); channels `via NET/Socket` are read as a job with no RDMA NIC
    only where no RDMA NIC is shown at work in the same log (serving_logs.no_rdma_traffic).
    """
    procs = list(serving_processes.processes) if serving_processes is not None else []
    multi = multi_node_flags(serving_processes)
    one_node = nccl_nodes.one if nccl_nodes is not None and not multi else ()
    if rdma is None or (rdma.said and one_node):
        # RDMA NICs only inferred (a loaded driver, NCCL settings that name an HCA) weigh nothing against a job
        # shown on one node.
        if one_node:
            return not_applicable("the NCCL log or nccl-tests header puts every rank of the job on one node: no "
                                  "traffic between nodes for GPUDirect RDMA to carry", actual=list(one_node))
        unused = nccl_nodes.rdma_unused(bool(multi)) if nccl_nodes is not None else ""
        if unused and nccl_nodes is not None:
            # NCCL's own word that the job opened no HCA: its traffic between nodes goes over TCP sockets.
            return not_applicable(f"{unused}: the job's traffic goes over TCP sockets, not RDMA, so GPUDirect RDMA "
                                  "(DMA-BUF or nvidia_peermem) plays no part", actual=list(nccl_nodes.no_rdma_lines))
        return unknown("", needs="rdma")
    if not rdma.names:
        why = rdma.absent_by if rdma.absent_by.startswith("NCCL") else "/sys/class/infiniband empty"
        return not_applicable(f"no RDMA device ({why}): GPUDirect RDMA is irrelevant here")
    gdr = serving_log.net_gdr() if serving_log is not None else {}
    if serving_log is not None and (off := serving_log.gdr_unsupported()) and not serving_log.gdr_works():
        return _nic_refuses_gpu_memory(rdma, serving_log, off, one_node, bool(multi) or bool(
            nccl_nodes is not None and nccl_nodes.several))
    if gdr and all(gdr.values()):
        lines = [c.line for c in serving_log.channels if c.gdr] if serving_log is not None else []
        judged = ok("NCCL registers the GPU buffers of rank " + ", ".join(map(str, sorted(gdr))) + " with the RDMA NIC "
                    "(`GDRDMA` on the rank's NET channels): GPUDirect RDMA works there, through nvidia_peermem or DMA-BUF "
                    "(the line does not say which)", actual={f"rank {r}": "GDRDMA" for r in sorted(gdr)},
                    evidence=lines[:3])
        return over_subjects(judged, [f"rank {r}" for r in sorted(gdr)],
                             serving_log.gpus_total() if serving_log is not None else None)
    peer = next((m for m in PEER_MEMORY_MODULES if modules is not None and m in modules), "")
    if kernel is None and peer:
        # The peer-memory path needs no kernel release: the loaded module is one of the two paths.
        return ok(f"RDMA devices {', '.join(rdma.names[:4])}; {peer} is loaded: GPUDirect RDMA is available via "
                  "the peer-memory path (DMA-BUF not needed)", actual={peer: "loaded"})
    if one_node and (kernel is None or modules is None or (nvidia_kernel is None or nvidia_kernel.open_module is None)):
        # Whether both paths are off is not shown, and the job runs on one node: nothing for GPUDirect RDMA to carry.
        return not_applicable(f"RDMA devices {', '.join(rdma.names[:4])}, but the NCCL log or nccl-tests header puts "
                              "every rank of the job on one node: no traffic between nodes for GPUDirect RDMA to "
                              "carry", actual=list(one_node))
    if kernel is None:
        return unknown(f"RDMA devices {', '.join(rdma.names[:4])}; the kernel release is not in the source (DMA-BUF "
                       "needs >= 5.12)", hint="paste `uname -a`, `cat /proc/driver/nvidia/version` and "
                       "`lsmod | grep nvidia_peermem`, or an NCCL_DEBUG=INFO log (`GDRDMA` on its NET channels)")
    peermem = bool(peer)
    refused = refused_peer_memory(modules)
    open_mod = nvidia_kernel.open_module if nvidia_kernel is not None else None
    new_kernel = kernel.release_tuple >= (5, 12)
    dmabuf_off = [p for p in procs if p.env("NCCL_DMABUF_ENABLE") == "0"]
    dmabuf_path = bool(open_mod) and new_kernel and not dmabuf_off
    observed = (f"RDMA devices {', '.join(rdma.names[:4])}; kernel {kernel.release}; nvidia module "
                f"{'open' if open_mod else 'proprietary' if open_mod is False else 'flavour unknown'}"
                + (f"; the kernel refused to load {refused}" if refused else
                   f"; {peer or 'nvidia_peermem'} {'loaded' if peermem else 'not loaded' if modules is not None else 'unknown'}")
                + ("; NCCL_DMABUF_ENABLE=0 in the engine's environment" if dmabuf_off else ""))
    if peermem or dmabuf_path:
        paths = [p for p, on in ((peer, peermem), ("DMA-BUF", dmabuf_path)) if on]
        return ok(f"{observed}: GPUDirect RDMA available via {' and '.join(paths)}", actual=observed)
    # A kernel before 5.12 has no RDMA DMA-BUF, whatever the module's flavour: then only the peer-memory path is left
    # to judge, and its absence must be shown (a refusal, a whole module list), not read off an excerpt.
    if (open_mod is None and (new_kernel or not (refused or (modules is not None and modules.complete)))) \
            or modules is None:
        return unknown(f"{observed}: cannot tell whether GPUDirect RDMA is available",
                       hint="cat /proc/driver/nvidia/version; lsmod | grep nvidia_peermem")
    if one_node:
        return not_an_issue(f"{observed}: GPUDirect RDMA is off on both paths, but the job runs on one node (the NCCL "
                            "log or nccl-tests header shows it), where it is irrelevant", actual=observed,
                            expected="GDR via DMA-BUF or nvidia_peermem for multi-node")
    if procs and not multi:
        return not_an_issue(
            f"{observed}: GPUDirect RDMA is off on both paths, but the serving engine runs on one node (no multi-node "
            "or KV-transfer flags), where it is irrelevant", actual=observed,
            expected="GDR via DMA-BUF or nvidia_peermem for multi-node",
        )
    # The fault and its value first (the finding's title): why DMA-BUF is off, on the kernel shown.
    # Past the unknown above, a kernel from 5.12 on leaves the proprietary module as the reason.
    why = ("NCCL_DMABUF_ENABLE=0" if dmabuf_off else f"kernel {kernel.release} is older than 5.12" if not new_kernel
           else f"the proprietary nvidia module on kernel {kernel.release}, where DMA-BUF needs the open one")
    return issue(
        f"GPUDirect RDMA is off on both paths (no {refused or 'nvidia_peermem'}, no DMA-BUF: {why}): {observed}; "
        "multi-node NCCL or RDMA KV transfer would stage through host memory"
        + ("" if multi else ". This matters only for multi-node serving or disaggregated KV transfer"),
        actual=observed, expected="GDR via DMA-BUF (open module, kernel >= 5.12) or nvidia_peermem",
        subjects=list(rdma.names[:8]),
    )


def _nic_refuses_gpu_memory(rdma: RdmaDevices, log: ServingLog, off: tuple[str, ...], one_node: tuple[str, ...],
                            across: bool) -> Outcome:
    """KVER-DMABUF where the log's own line says an RDMA NIC cannot reach GPU memory (ServingLog.gdr_unsupported):
    an issue on a job shown across nodes, not an issue on one shown on one node, else unknown."""
    sockets = [c.line for c in log.channels if c.transport == "NET" and not c.rdma]
    observed = (f"RDMA devices {', '.join(rdma.names[:4])}; the log says the NIC cannot register GPU memory (neither "
                "nvidia_peermem nor DMA-BUF serves it)")
    actual = {"rdma": list(rdma.names[:4]), "gdr": False}
    if one_node and not across:
        return not_an_issue(f"{observed}, but the job runs on one node (the NCCL log or nccl-tests header shows it), "
                            "where GPUDirect RDMA is irrelevant", actual=actual, evidence=list(off[:2]))
    if not across:
        return unknown(f"{observed}; that costs only traffic between nodes, and the source does not show the job "
                       "across nodes", actual=actual,
                       hint="the job's NCCL_DEBUG=INFO log across nodes (`via NET/.../GDRDMA` or `via NET/Socket`)")
    fell = ("; NCCL's channels between nodes fell back to TCP sockets (`via NET/Socket`)" if sockets
            else "; NCCL's traffic between nodes is staged through host memory")
    return issue(f"{observed}: GPUDirect RDMA is off on both paths on a job across nodes{fell}",
                 actual=actual, expected="GPUDirect RDMA via nvidia_peermem or DMA-BUF on the RDMA NIC",
                 evidence=(list(off[:2]) + sockets[:1]), subjects=list(rdma.names[:8]))
