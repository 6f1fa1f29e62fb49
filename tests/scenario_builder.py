"""Building blocks for whole-host scenarios: realistic file, link, directory and command maps.

Each function returns a `Parts` (the maps a `fake_host` takes) modelled on what a real machine
shows: sysfs values as the kernel prints them (one value and a newline, bracketed THP modes, PCI
symlinks as relative links), `lscpu` text of real EPYC and Xeon models, the `/proc/<pid>/limits`
table with the kernel's column widths, NUL-separated cmdline and environ blocks, mountinfo lines,
cgroup v2 files, a Proxmox container config. Scenarios merge parts and build a non-strict fake host:
anything not listed is absent, as on a real host.

The expectations live in the tests, written by hand; nothing here computes an expected result.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from stackaudit.host.base import CommandResult
from stackaudit.host.memory import MemoryHost, fake_host

Content = str | bytes


@dataclass
class Parts:
    """The maps of a fake host; `+` merges them (later parts win on the same path)."""

    files: dict[str, Content] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    dirs: dict[str, list[str]] = field(default_factory=dict)
    commands: dict[tuple[str, ...], str | CommandResult] = field(default_factory=dict)
    which: dict[str, str | None] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)  # pasted documents (engine / NCCL logs) by source name

    def __add__(self, other: Parts) -> Parts:
        return Parts({**self.files, **other.files}, {**self.links, **other.links}, {**self.dirs, **other.dirs},
                     {**self.commands, **other.commands}, {**self.which, **other.which}, {**self.docs, **other.docs})


def merge(*parts: Parts) -> Parts:
    out = Parts()
    for p in parts:
        out = out + p
    return out


def build_host(parts: Parts, hostname: str) -> MemoryHost:
    return fake_host(files=parts.files, links=parts.links, dirs=parts.dirs, commands=parts.commands,
                     which=parts.which, docs=parts.docs, hostname=hostname, uid=0)


def cpulist(cpus: Iterable[int]) -> str:
    """(0,1,2,3,8) -> "0-3,8", as the kernel prints CPU lists."""
    ordered = sorted(set(cpus))
    out: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


def _mask(cpus: Iterable[int], ncpus: int) -> str:
    """The hex Cpus_allowed mask of /proc/<pid>/status, in 32-bit groups."""
    value = 0
    for c in cpus:
        value |= 1 << c
    groups = max(1, (ncpus + 31) // 32)
    words = [f"{(value >> (32 * i)) & 0xFFFFFFFF:08x}" for i in reversed(range(groups))]
    return ",".join(words)


# --- kernel, command line, uname -------------------------------------------------------------


def kernel(release: str, build: str, hostname: str, cmdline: str, machine: str = "x86_64") -> Parts:
    """`uname -a`, /proc/cmdline and the kernel's own sysctls."""
    uname = f"Linux {hostname} {release} {build} {machine} {machine} {machine} GNU/Linux\n"
    return Parts(
        files={"/proc/cmdline": cmdline + "\n", "/proc/sys/kernel/osrelease": release + "\n",
               "/proc/sys/kernel/hostname": hostname + "\n",
               "/proc/sys/kernel/random/boot_id": "5b0e6f6a-9d0c-4a53-8a49-3f8a9c0f1d27\n"},
        commands={("uname", "-a"): uname},
    )


def dmesg(lines: Sequence[str], from_boot: bool = True) -> Parts:
    """A live kernel log: from boot (whole) unless `from_boot` is False (a ring buffer that wrapped)."""
    boot = [] if not from_boot or (lines and "Linux version" in lines[0]) else [
        "[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP PREEMPT_DYNAMIC",
        "[    5.712034] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build  "
        "(dvs-builder@U16-I2-C03-12-4)  Thu Feb 27 22:52:35 UTC 2025"]
    return Parts(commands={("dmesg",): "".join(f"{line}\n" for line in [*boot, *lines])})


def detect_virt(answer: str | None) -> Parts:
    """`systemd-detect-virt --vm`: prints `none` with rc 1 on bare metal; absent (rc 127) when None."""
    if answer is None:
        return Parts()
    rc = 1 if answer == "none" else 0
    argv = ("systemd-detect-virt", "--vm")
    return Parts(commands={argv: CommandResult(argv, rc, answer + "\n")})


def irqbalance(state: str) -> Parts:
    argv = ("systemctl", "is-active", "irqbalance")
    return Parts(commands={argv: CommandResult(argv, 0 if state == "active" else 3, state + "\n")})


# --- lscpu -----------------------------------------------------------------------------------

AMD_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht "
             "syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good amd_lbr_v2 nopl nonstop_tsc cpuid "
             "extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe "
             "popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a misalignsse "
             "3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb bpext perfctr_llc mwaitx cpb "
             "cat_l3 cdp_l3 hw_pstate ssbd mba perfmon_v2 ibrs ibpb stibp ibrs_enhanced vmmcall fsgsbase bmi1 "
             "avx2 smep bmi2 erms invpcid cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb "
             "avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc "
             "cqm_mbm_total cqm_mbm_local avx512_bf16 clzero irperf xsaveerptr rdpru wbnoinvd amd_ppin cppc arat "
             "npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists pausefilter pfthreshold "
             "avic v_vmsave_vmload vgif x2avic v_spec_ctrl vnmi avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes "
             "vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq la57 rdpid overflow_recov succor smca fsrm "
             "flush_l1d")
INTEL_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr "
               "sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good "
               "nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq dtes64 monitor ds_cpl vmx "
               "smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt "
               "tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 "
               "cat_l2 cdp_l3 intel_ppin cdp_l2 ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow flexpriority ept "
               "vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a avx512f avx512dq rdseed "
               "adx smap avx512ifma clflushopt clwb intel_pt avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec "
               "xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local split_lock_detect avx_vnni "
               "avx512_bf16 wbnoinvd dtherm ida arat pln pts hfi vnmi avx512vbmi umip pku ospke waitpkg "
               "avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme avx512_vpopcntdq la57 rdpid "
               "bus_lock_detect cldemote movdiri movdir64b enqcmd fsrm md_clear serialize tsxldtrk pconfig "
               "arch_lbr ibt amx_bf16 avx512_fp16 amx_tile amx_int8 flush_l1d arch_capabilities hwp hwp_act_window "
               "hwp_epp hwp_pkg_req")
KVM_GUEST_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse "
                   "sse2 ss syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon rep_good nopl xtopology "
                   "cpuid tsc_known_freq pni pclmulqdq vmx ssse3 fma cx16 pdcm pcid sse4_1 sse4_2 x2apic movbe "
                   "popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch "
                   "cpuid_fault ssbd ibrs ibpb stibp ibrs_enhanced tpr_shadow flexpriority ept vpid ept_ad "
                   "fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid avx512f avx512dq rdseed adx smap "
                   "avx512ifma clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves "
                   "avx_vnni avx512_bf16 wbnoinvd arat vnmi avx512vbmi umip pku ospke waitpkg avx512_vbmi2 gfni "
                   "vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq la57 rdpid bus_lock_detect "
                   "cldemote movdiri movdir64b fsrm md_clear serialize tsxldtrk amx_bf16 avx512_fp16 amx_tile "
                   "amx_int8 flush_l1d arch_capabilities")


@dataclass(frozen=True)
class CpuModel:
    """What `lscpu` says about one real CPU model."""

    vendor: str
    name: str
    family: int
    model: int
    stepping: int
    cores: int  # per socket
    max_mhz: float
    min_mhz: float
    bogomips: float
    flags: str
    l1d_kib: int = 32
    l2_kib: int = 1024
    l3_mib_per_socket: int = 256


EPYC_9354 = CpuModel("AuthenticAMD", "AMD EPYC 9354 32-Core Processor", 25, 17, 1, 32, 3799.0720, 1500.0, 6490.16,
                     AMD_FLAGS)
EPYC_9355 = CpuModel("AuthenticAMD", "AMD EPYC 9355 32-Core Processor", 26, 2, 1, 32, 4400.0, 1500.0, 7100.34,
                     AMD_FLAGS, 48, 1024, 256)
EPYC_7543 = CpuModel("AuthenticAMD", "AMD EPYC 7543 32-Core Processor", 25, 1, 1, 32, 3737.8899, 1500.0, 5589.62,
                     AMD_FLAGS.replace(" avx512f avx512dq", "").replace(" amd_lbr_v2", ""), 32, 512, 256)
XEON_8480 = CpuModel("GenuineIntel", "Intel(R) Xeon(R) Platinum 8480+", 6, 143, 8, 56, 3800.0, 800.0, 4000.0,
                     INTEL_FLAGS, 48, 2048, 105)
XEON_8468 = CpuModel("GenuineIntel", "Intel(R) Xeon(R) Platinum 8468", 6, 143, 8, 48, 3800.0, 800.0, 4200.0,
                     INTEL_FLAGS, 48, 2048, 105)
QEMU_SPR = CpuModel("GenuineIntel", "Intel Xeon Processor (SapphireRapids)", 6, 143, 4, 16, 0.0, 0.0, 4000.0,
                    KVM_GUEST_FLAGS, 32, 4096, 16)

_AMD_VULNS = (("Gather data sampling", "Not affected"), ("Itlb multihit", "Not affected"), ("L1tf", "Not affected"),
              ("Mds", "Not affected"), ("Meltdown", "Not affected"), ("Mmio stale data", "Not affected"),
              ("Retbleed", "Not affected"),
              ("Spec rstack overflow", "Mitigation; Safe RET"),
              ("Spec store bypass", "Mitigation; Speculative Store Bypass disabled via prctl"),
              ("Spectre v1", "Mitigation; usercopy/swapgs barriers and __user pointer sanitization"),
              ("Spectre v2", "Mitigation; Enhanced / Automatic IBRS; IBPB conditional; STIBP always-on; RSB filling; "
                             "PBRSB-eIBRS Not affected; BHI Not affected"),
              ("Srbds", "Not affected"), ("Tsx async abort", "Not affected"))
_INTEL_VULNS = (("Gather data sampling", "Not affected"), ("Itlb multihit", "Not affected"), ("L1tf", "Not affected"),
                ("Mds", "Not affected"), ("Meltdown", "Not affected"), ("Mmio stale data", "Not affected"),
                ("Retbleed", "Not affected"), ("Spec rstack overflow", "Not affected"),
                ("Spec store bypass", "Mitigation; Speculative Store Bypass disabled via prctl"),
                ("Spectre v1", "Mitigation; usercopy/swapgs barriers and __user pointer sanitization"),
                ("Spectre v2", "Mitigation; Enhanced / Automatic IBRS; IBPB conditional; RSB filling; "
                               "PBRSB-eIBRS SW sequence; BHI BHI_DIS_S"),
                ("Srbds", "Not affected"), ("Tsx async abort", "Not affected"))


def lscpu(cpu: CpuModel, sockets: int, threads: int, numa: Sequence[Sequence[int]],
          hypervisor: str | None = None) -> Parts:
    """`lscpu` as util-linux 2.39 prints it (sections and indented keys)."""
    ncpu = cpu.cores * sockets * threads
    amd = cpu.vendor == "AuthenticAMD"
    vulns = _AMD_VULNS if amd else _INTEL_VULNS
    lines = [
        "Architecture:             x86_64",
        "  CPU op-mode(s):         32-bit, 64-bit",
        f"  Address sizes:          {52 if amd else 46} bits physical, 57 bits virtual",
        "  Byte Order:             Little Endian",
        f"CPU(s):                   {ncpu}",
        f"  On-line CPU(s) list:    0-{ncpu - 1}",
        f"Vendor ID:                {cpu.vendor}",
    ]
    if hypervisor:
        lines.append("  BIOS Vendor ID:         QEMU")
    lines += [
        f"  Model name:             {cpu.name}",
    ]
    if hypervisor:
        lines.append("    BIOS Model name:      pc-q35-8.2  CPU @ 2.0GHz")
    lines += [
        f"    CPU family:           {cpu.family}",
        f"    Model:                {cpu.model}",
        f"    Thread(s) per core:   {threads}",
        f"    Core(s) per socket:   {cpu.cores}",
        f"    Socket(s):            {sockets}",
        f"    Stepping:             {cpu.stepping}",
    ]
    if cpu.max_mhz:
        lines += [
            "    Frequency boost:      enabled" if amd else "    CPU(s) scaling MHz:   42%",
            f"    CPU max MHz:          {cpu.max_mhz:.4f}",
            f"    CPU min MHz:          {cpu.min_mhz:.4f}",
        ]
    lines += [f"    BogoMIPS:             {cpu.bogomips:.2f}", f"    Flags:                {cpu.flags}"]
    if hypervisor:
        lines += ["Virtualization features:", "  Virtualization:         VT-x",
                  f"  Hypervisor vendor:      {hypervisor}", "  Virtualization type:    full"]
    else:
        lines += ["Virtualization features:", f"  Virtualization:         {'AMD-V' if amd else 'VT-x'}"]
    cores = cpu.cores * sockets
    lines += [
        "Caches (sum of all):",
        f"  L1d:                    {cpu.l1d_kib * cores // 1024} MiB ({cores} instances)",
        f"  L1i:                    {32 * cores // 1024} MiB ({cores} instances)",
        f"  L2:                     {cpu.l2_kib * cores // 1024} MiB ({cores} instances)",
        f"  L3:                     {cpu.l3_mib_per_socket * sockets} MiB ({sockets} instances)",
        "NUMA:",
        f"  NUMA node(s):           {len(numa)}",
    ]
    lines += [f"  NUMA node{i} CPU(s):      {cpulist(cpus)}" for i, cpus in enumerate(numa)]
    lines.append("Vulnerabilities:")
    lines += [f"  {name + ':':<24}{text}" for name, text in vulns]
    return Parts(commands={("lscpu",): "\n".join(lines) + "\n"})


def vulnerabilities_sysfs(vendor: str) -> Parts:
    """/sys/devices/system/cpu/vulnerabilities/* (the kernel's text: `Mitigation: ...`)."""
    vulns = _AMD_VULNS if vendor == "AuthenticAMD" else _INTEL_VULNS
    files: dict[str, Content] = {}
    for name, text in vulns:
        key = name.lower().replace(" ", "_")
        files[f"/sys/devices/system/cpu/vulnerabilities/{key}"] = text.replace("; ", ": ", 1) + "\n"
    return Parts(files=files)


# --- CPU and NUMA topology -------------------------------------------------------------------


def numa_layout(sockets: int, cores: int, threads: int, nodes_per_socket: int = 1) -> list[list[int]]:
    """Linux CPU numbering: first threads of all cores of all sockets, then the siblings."""
    ncores = sockets * cores
    per_node = ncores // (sockets * nodes_per_socket)
    nodes: list[list[int]] = []
    for n in range(sockets * nodes_per_socket):
        first = list(range(n * per_node, (n + 1) * per_node))
        nodes.append(first + [c + ncores for c in first] if threads == 2 else first)
    return nodes


def cpu_topology(numa: Sequence[Sequence[int]], mem_kib_per_node: int, isolated: str = "") -> Parts:
    """/sys/devices/system/cpu/{present,online,possible,isolated} and /sys/devices/system/node."""
    ncpu = sum(len(n) for n in numa)
    files: dict[str, Content] = {
        "/sys/devices/system/cpu/present": f"0-{ncpu - 1}\n",
        "/sys/devices/system/cpu/online": f"0-{ncpu - 1}\n",
        "/sys/devices/system/cpu/possible": f"0-{ncpu - 1}\n",
        "/sys/devices/system/cpu/isolated": isolated + "\n",
        "/sys/devices/system/node/possible": f"0-{len(numa) - 1}\n" if len(numa) > 1 else "0\n",
        "/sys/devices/system/node/online": f"0-{len(numa) - 1}\n" if len(numa) > 1 else "0\n",
    }
    for i, cpus in enumerate(numa):
        base = f"/sys/devices/system/node/node{i}"
        files[f"{base}/cpulist"] = cpulist(cpus) + "\n"
        dist = " ".join("10" if j == i else "32" for j in range(len(numa)))
        files[f"{base}/distance"] = dist + "\n"
        files[f"{base}/meminfo"] = (f"Node {i} MemTotal:       {mem_kib_per_node} kB\n"
                                    f"Node {i} MemFree:        {mem_kib_per_node // 3} kB\n"
                                    f"Node {i} MemUsed:        {mem_kib_per_node - mem_kib_per_node // 3} kB\n")
    return Parts(files=files)


def cpufreq(ncpu: int, driver: str, governor: str, *, min_khz: int, max_khz: int, cur_khz: int,
            cpuinfo_max_khz: int | None = None, epp: str | None = None, boost: str | None = None,
            intel_pstate: Mapping[str, str] | None = None, amd_pstate_status: str | None = None,
            governors: str = "performance powersave") -> Parts:
    """One cpufreq policy per CPU (what acpi-cpufreq, intel_pstate and amd-pstate create)."""
    base = "/sys/devices/system/cpu/cpufreq"
    files: dict[str, Content] = {}
    for c in range(ncpu):
        p = f"{base}/policy{c}"
        files.update({
            f"{p}/affected_cpus": f"{c}\n", f"{p}/related_cpus": f"{c}\n",
            f"{p}/scaling_driver": driver + "\n", f"{p}/scaling_governor": governor + "\n",
            f"{p}/scaling_available_governors": governors + "\n",
            f"{p}/scaling_min_freq": f"{min_khz}\n", f"{p}/scaling_max_freq": f"{max_khz}\n",
            f"{p}/scaling_cur_freq": f"{cur_khz}\n", f"{p}/cpuinfo_min_freq": f"{min_khz}\n",
            f"{p}/cpuinfo_max_freq": f"{cpuinfo_max_khz or max_khz}\n",
            f"{p}/cpuinfo_transition_latency": "0\n" if driver != "acpi-cpufreq" else "10000\n",
        })
        if epp is not None:
            files[f"{p}/energy_performance_preference"] = epp + "\n"
            files[f"{p}/energy_performance_available_preferences"] = (
                "default performance balance_performance balance_power power \n")
    if boost is not None:
        files[f"{base}/boost"] = boost + "\n"
    for name, value in (intel_pstate or {}).items():
        files[f"/sys/devices/system/cpu/intel_pstate/{name}"] = value + "\n"
    if amd_pstate_status is not None:
        files["/sys/devices/system/cpu/amd_pstate/status"] = amd_pstate_status + "\n"
    return Parts(files=files)


@dataclass(frozen=True)
class IdleState:
    name: str
    desc: str
    latency: int
    residency: int
    disable: int = 0


ACPI_IDLE_EPYC = (IdleState("POLL", "CPUIDLE CORE POLL IDLE", 0, 0), IdleState("C1", "ACPI FFH MWAIT 0x0", 1, 2),
                  IdleState("C2", "ACPI IOPORT 0x814", 400, 800))
INTEL_IDLE_SPR = (IdleState("POLL", "CPUIDLE CORE POLL IDLE", 0, 0), IdleState("C1", "MWAIT 0x00", 2, 2),
                  IdleState("C1E", "MWAIT 0x01", 10, 20), IdleState("C6", "MWAIT 0x20", 290, 800))


def cpuidle(driver: str, states: Sequence[IdleState], *, governor: str = "menu", pm_qos_us: int | None = None,
            tuned_profile: str | None = None, intel_max_cstate: int | None = None) -> Parts:
    """cpuidle states of CPU 0, the PM QoS device (a native 32-bit integer) and the tuned profile."""
    files: dict[str, Content] = {"/sys/devices/system/cpu/cpuidle/current_driver": driver + "\n",
                                 "/sys/devices/system/cpu/cpuidle/current_governor_ro": governor + "\n"}
    for i, s in enumerate(states):
        base = f"/sys/devices/system/cpu/cpu0/cpuidle/state{i}"
        files.update({f"{base}/name": s.name + "\n", f"{base}/desc": s.desc + "\n",
                      f"{base}/latency": f"{s.latency}\n", f"{base}/residency": f"{s.residency}\n",
                      f"{base}/disable": f"{s.disable}\n", f"{base}/usage": f"{1000 * (i + 1)}\n"})
    if pm_qos_us is not None:
        files["/dev/cpu_dma_latency"] = struct.pack("<i", pm_qos_us)
    if tuned_profile is not None:
        files["/etc/tuned/active_profile"] = tuned_profile + "\n"
    if intel_max_cstate is not None:
        files["/sys/module/intel_idle/parameters/max_cstate"] = f"{intel_max_cstate}\n"
    return Parts(files=files)


# --- memory knobs ----------------------------------------------------------------------------


def sysctls(**values: str | int) -> Parts:
    """/proc/sys/<key with dots as slashes>; pass keys with `__` for dots: kernel__numa_balancing=1."""
    files: dict[str, Content] = {}
    for key, value in values.items():
        files["/proc/sys/" + key.replace("__", "/")] = f"{value}\n"
    return Parts(files=files)


def thp(enabled: str, defrag: str) -> Parts:
    def modes(choices: Sequence[str], active: str) -> str:
        return " ".join(f"[{c}]" if c == active else c for c in choices) + "\n"
    base = "/sys/kernel/mm/transparent_hugepage"
    return Parts(files={f"{base}/enabled": modes(("always", "madvise", "never"), enabled),
                        f"{base}/defrag": modes(("always", "defer", "defer+madvise", "madvise", "never"), defrag)})


def vmstat(uptime_s: float, **counters: int) -> Parts:
    base = {"nr_free_pages": 91822113, "pgmajfault": 20714, "pswpin": 0, "pswpout": 0, "numa_hit": 892771263,
            "numa_miss": 0, "numa_hint_faults": 0, "numa_hint_faults_local": 0, "numa_pages_migrated": 0,
            "compact_stall": 0, "compact_fail": 0, "compact_success": 0, "thp_fault_alloc": 1532,
            "thp_fault_fallback": 0}
    base.update(counters)
    text = "".join(f"{k} {v}\n" for k, v in base.items())
    return Parts(files={"/proc/vmstat": text, "/proc/uptime": f"{uptime_s:.2f} {uptime_s * 90:.2f}\n"})


def memory(total_kib: int, swap: Sequence[tuple[str, str, int, int]] = ()) -> Parts:
    """/proc/meminfo and /proc/swaps; swap rows (name, type, size KiB, used KiB)."""
    swap_total = sum(s[2] for s in swap)
    swap_used = sum(s[3] for s in swap)
    meminfo = (f"MemTotal:       {total_kib} kB\nMemFree:        {total_kib // 3} kB\n"
               f"MemAvailable:   {total_kib // 2} kB\nBuffers:         1204440 kB\nCached:         {total_kib // 5} kB\n"
               f"SwapCached:       {swap_used // 50} kB\nSwapTotal:      {swap_total} kB\n"
               f"SwapFree:       {swap_total - swap_used} kB\nHugePages_Total:       0\nHugepagesize:       2048 kB\n")
    swaps = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n" + "".join(
        f"{name:<40}{kind}\t\t{size}\t\t{used}\t\t-2\n" for name, kind, size, used in swap)
    return Parts(files={"/proc/meminfo": meminfo, "/proc/swaps": swaps})


def pressure(some_avg10: float) -> Parts:
    return Parts(files={"/proc/pressure/cpu": f"some avg10={some_avg10:.2f} avg60={some_avg10 * 0.8:.2f} "
                                              f"avg300={some_avg10 * 0.6:.2f} total=8713245521\n"
                                              "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"})


def sysctl_conf(files: Mapping[str, str]) -> Parts:
    """/etc/sysctl.conf and /etc/sysctl.d/*.conf as an admin left them."""
    return Parts(files={"/etc/sysctl.conf": "#\n# /etc/sysctl.conf - Configuration file for setting system "
                                            "variables\n#\n#kernel.domainname = example.com\n", **files})


def interrupts(ncpu_shown: int, extra: Sequence[str] = ()) -> Parts:
    """/proc/interrupts (only the first columns matter to the reader: the header sets the CPU count)."""
    header = " " * 11 + "".join(f"CPU{i:<8}" for i in range(ncpu_shown)) + "\n"
    zeros = " ".join(f"{0:>10}" for _ in range(ncpu_shown))
    rows = [f"   0: {zeros}  IR-IO-APIC    2-edge      timer\n",
            f"   8: {zeros}  IR-IO-APIC    8-edge      rtc0\n",
            f"  41: {zeros}  IR-PCI-MSI-0000:00:14.3    0-edge      ahci[0000:00:14.3]\n"]
    return Parts(files={"/proc/interrupts": header + "".join(rows) + "".join(extra)})


# --- PCI: NVIDIA GPUs behind root ports, IOMMU groups ---------------------------------------


@dataclass(frozen=True)
class Gpu:
    bdf: str  # 0000:41:00.0
    root_port: str  # 0000:40:01.1
    numa_node: int
    iommu_group: int | None = None
    device: str = "0x26b9"  # L40S
    name: str = "L40S"


def nvidia_gpus(gpus: Sequence[Gpu], *, iommu_type: str | None, root_vendor: str = "0x1022",
                root_device: str = "0x14ab", speed: str = "16.0 GT/s PCIe", bridge_numa: bool = True) -> Parts:
    """sysfs of NVIDIA GPUs: `/sys/bus/pci/devices/<bdf>` -> `../../../devices/pci<dom:bus>/<root port>/<bdf>`,
    IOMMU group links (`../../../../kernel/iommu_groups/N`) and their `type`, driver links."""
    files: dict[str, Content] = {}
    links: dict[str, str] = {}
    for g in gpus:
        host_bridge = f"pci{g.root_port[:7]}"
        port_real = f"/sys/devices/{host_bridge}/{g.root_port}"
        real = f"{port_real}/{g.bdf}"
        links[f"/sys/bus/pci/devices/{g.root_port}"] = f"../../../devices/{host_bridge}/{g.root_port}"
        links[f"/sys/bus/pci/devices/{g.bdf}"] = f"../../../devices/{host_bridge}/{g.root_port}/{g.bdf}"
        files.update({f"{port_real}/vendor": root_vendor + "\n", f"{port_real}/device": root_device + "\n",
                      f"{port_real}/class": "0x060400\n"})
        if bridge_numa:
            files[f"{port_real}/numa_node"] = f"{g.numa_node}\n"
        files.update({
            f"{real}/vendor": "0x10de\n", f"{real}/device": g.device + "\n", f"{real}/class": "0x030200\n",
            f"{real}/subsystem_vendor": "0x10de\n", f"{real}/numa_node": f"{g.numa_node}\n",
            f"{real}/local_cpulist": "\n", f"{real}/current_link_speed": speed + "\n",
            f"{real}/max_link_speed": speed + "\n", f"{real}/current_link_width": "16\n",
            f"{real}/max_link_width": "16\n", f"{real}/enable": "1\n",
        })
        links[f"{real}/driver"] = "../../../../bus/pci/drivers/nvidia"
        if iommu_type is not None and g.iommu_group is not None:
            links[f"{real}/iommu_group"] = f"../../../../kernel/iommu_groups/{g.iommu_group}"
            files[f"/sys/kernel/iommu_groups/{g.iommu_group}/type"] = iommu_type + "\n"
            links[f"/sys/kernel/iommu_groups/{g.iommu_group}/devices/{g.bdf}"] = (
                f"../../../../devices/{host_bridge}/{g.root_port}/{g.bdf}")
    return Parts(files=files, links=links)


def nvidia_driver(version: str, open_module: bool = True) -> Parts:
    """The loaded NVIDIA kernel module as /sys/module and /proc/driver/nvidia show it."""
    flavour = "Open Kernel Module for x86_64" if open_module else "x86_64 Kernel Module"
    proc = (f"NVRM version: NVIDIA UNIX {flavour}  {version}  Release Build  (dvs-builder@U22-I3-AF03-09-1)  "
            "Fri Mar 14 06:45:39 UTC 2025\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")
    return Parts(files={"/sys/module/nvidia/version": version + "\n", "/proc/driver/nvidia/version": proc,
                        "/sys/module/nvidia_uvm/parameters/uvm_disable_hmm": "N\n"})


def nvml_userspace(version: str, libdir: str = "/usr/lib/x86_64-linux-gnu") -> Parts:
    """libnvidia-ml.so.1 -> libnvidia-ml.so.<version> (the user-space driver library)."""
    return Parts(links={f"{libdir}/libnvidia-ml.so.1": f"libnvidia-ml.so.{version}"},
                 files={f"{libdir}/libnvidia-ml.so.{version}": b"\x7fELF\x02\x01\x01"})


def dev_nodes(gpu_minors: Sequence[int], *, uvm: bool = True, extra: Sequence[str] = ()) -> Parts:
    """The /dev listing of a container (or host): nvidiaN, nvidiactl, nvidia-uvm, nvidia-uvm-tools."""
    names = ["console", "core", "fd", "full", "mqueue", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin",
             "stdout", "tty", "urandom", "zero", "nvidiactl", *(f"nvidia{m}" for m in gpu_minors), *extra]
    if uvm:
        names += ["nvidia-uvm", "nvidia-uvm-tools"]
    return Parts(dirs={"/dev": sorted(names)})


def proc_devices(uvm_major: int = 508, caps_major: int = 511) -> Parts:
    return Parts(files={"/proc/devices": (
        "Character devices:\n  1 mem\n  4 /dev/vc/0\n  4 tty\n  5 /dev/tty\n  5 /dev/console\n  5 /dev/ptmx\n"
        " 10 misc\n 13 input\n195 nvidia-frontend\n226 drm\n"
        f"{uvm_major} nvidia-uvm\n{caps_major} nvidia-caps\n\nBlock devices:\n  7 loop\n  8 sd\n259 blkext\n")})


# --- processes -------------------------------------------------------------------------------

LIMIT_ROWS = (("Max cpu time", "seconds"), ("Max file size", "bytes"), ("Max data size", "bytes"),
              ("Max stack size", "bytes"), ("Max core file size", "bytes"), ("Max resident set", "bytes"),
              ("Max processes", "processes"), ("Max open files", "files"), ("Max locked memory", "bytes"),
              ("Max address space", "bytes"), ("Max file locks", "locks"), ("Max pending signals", "signals"),
              ("Max msgqueue size", "bytes"), ("Max nice priority", ""), ("Max realtime priority", ""),
              ("Max realtime timeout", "us"))


def proc_limits(nofile: tuple[str, str] = ("1048576", "1048576"), memlock: tuple[str, str] = ("8388608", "8388608"),
                stack: tuple[str, str] = ("8388608", "unlimited"), nproc: str = "2062971") -> str:
    """/proc/<pid>/limits exactly as fs/proc/base.c prints it ("%-25s %-20s %-20s %-10s")."""
    values = {"Max stack size": stack, "Max core file size": ("0", "unlimited"), "Max processes": (nproc, nproc),
              "Max open files": nofile, "Max locked memory": memlock, "Max pending signals": (nproc, nproc),
              "Max msgqueue size": ("819200", "819200"), "Max nice priority": ("0", "0"),
              "Max realtime priority": ("0", "0")}
    out = f"{'Limit':<25} {'Soft Limit':<20} {'Hard Limit':<20} {'Units':<10}\n"
    for name, unit in LIMIT_ROWS:
        soft, hard = values.get(name, ("unlimited", "unlimited"))
        out += f"{name:<25} {soft:<20} {hard:<20} " + (f"{unit:<10}\n" if unit else "\n")
    return out


def proc_status(name: str, pid: int, ppid: int, *, ncpu: int, cpus: Iterable[int] | None = None, uid: int = 0,
                threads: int = 1, vmrss_kb: int = 512000, vmswap_kb: int = 0, cap_eff: str = "000001ffffffffff",
                seccomp: int = 0) -> str:
    allowed = list(cpus) if cpus is not None else list(range(ncpu))
    return (f"Name:\t{name[:15]}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{pid}\nNgid:\t0\nPid:\t{pid}\n"
            f"PPid:\t{ppid}\nTracerPid:\t0\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t{uid}\t{uid}\t{uid}\t{uid}\n"
            f"FDSize:\t512\nVmPeak:\t{vmrss_kb * 4} kB\nVmSize:\t{vmrss_kb * 3} kB\nVmLck:\t       0 kB\n"
            f"VmPin:\t       0 kB\nVmHWM:\t{vmrss_kb} kB\nVmRSS:\t{vmrss_kb} kB\nVmSwap:\t{vmswap_kb:8d} kB\n"
            f"Threads:\t{threads}\nSigQ:\t0/2062971\nCapInh:\t0000000000000000\nCapPrm:\t{cap_eff}\n"
            f"CapEff:\t{cap_eff}\nCapBnd:\t{cap_eff}\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n"
            f"Seccomp:\t{seccomp}\nSeccomp_filters:\t{1 if seccomp else 0}\n"
            f"Cpus_allowed:\t{_mask(allowed, ncpu)}\nCpus_allowed_list:\t{cpulist(allowed)}\n"
            f"Mems_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t84123\nnonvoluntary_ctxt_switches:\t912\n")


def environ_block(env: Mapping[str, str]) -> bytes:
    return b"".join(f"{k}={v}".encode() + b"\0" for k, v in env.items())


@dataclass(frozen=True)
class Proc:
    """One process as /proc shows it."""

    pid: int
    ppid: int
    argv: tuple[str, ...]  # a setproctitle title is a 1-tuple ("VLLM::EngineCore",)
    env: Mapping[str, str] | None  # None: overwritten by the title (reads as NULs)
    comm: str
    limits: str
    status: str
    exe: str = ""


def proc_parts(p: Proc) -> Parts:
    base = f"/proc/{p.pid}"
    if len(p.argv) == 1 and "::" in p.argv[0]:
        cmdline = p.argv[0].encode() + b"\0" * 48  # the title, padded over the old argv area
    else:
        cmdline = b"".join(a.encode() + b"\0" for a in p.argv)
    environ = environ_block(p.env) if p.env is not None else b"\0" * 512
    stat = (f"{p.pid} ({p.comm[:15]}) S {p.ppid} {p.pid} {p.pid} 0 -1 4194560 251327 0 712 0 91238 20931 0 0 20 0 "
            f"{p.status.count(chr(10))} 0 118734 14831235072 130215 18446744073709551615 1 1 0 0 0 0 0 16781312 "
            "17642 0 0 0 17 3 0 0 0 0 0\n")
    links = {f"{base}/exe": p.exe} if p.exe else {}
    return Parts(files={f"{base}/cmdline": cmdline, f"{base}/environ": environ, f"{base}/limits": p.limits,
                        f"{base}/status": p.status, f"{base}/stat": stat, f"{base}/comm": p.comm[:15] + "\n"},
                 links=links)


def processes(procs: Iterable[Proc]) -> Parts:
    return merge(*(proc_parts(p) for p in procs))


def vllm_serve(api_pid: int, ppid: int, argv: Sequence[str], env: Mapping[str, str], *, tp: int, ncpu: int,
               limits: str, exe: str, cpus: Iterable[int] | None = None, swap_kb: tuple[int, int, int] = (0, 0, 0),
               uid: int = 0, cap_eff: str = "000001ffffffffff", seccomp: int = 0) -> list[Proc]:
    """A vLLM V1 server: the API server (holds the flags), its resource tracker, `VLLM::EngineCore`
    and one `VLLM::Worker_TP<n>` per TP rank (titles set with setproctitle: their environ is gone)."""
    allowed = list(cpus) if cpus is not None else None
    api_swap, core_swap, worker_swap = swap_kb

    def status(name: str, pid: int, parent: int, threads: int, rss: int, swap: int) -> str:
        return proc_status(name, pid, parent, ncpu=ncpu, cpus=allowed, uid=uid, threads=threads, vmrss_kb=rss,
                           vmswap_kb=swap, cap_eff=cap_eff, seccomp=seccomp)

    core = api_pid + 79
    out = [
        Proc(api_pid, ppid, tuple(argv), env, "vllm", limits, status("vllm", api_pid, ppid, 47, 3_812_004, api_swap),
             exe),
        Proc(api_pid + 1, api_pid, (argv[0], "-c", "from multiprocessing.resource_tracker import main;main(27)"),
             env, "python3", limits, status("python3", api_pid + 1, api_pid, 1, 21_004, 0), exe),
        Proc(core, api_pid, ("VLLM::EngineCore",), None, "VLLM::EngineCor", limits,
             status("VLLM::EngineCor", core, api_pid, 63, 5_120_300, core_swap), exe),
    ]
    for rank in range(tp):
        pid = core + 41 + rank
        out.append(Proc(pid, core, (f"VLLM::Worker_TP{rank}",), None, "VLLM::Worker_TP", limits,
                        status("VLLM::Worker_TP", pid, core, 88, 9_830_112, worker_swap), exe))
    return out


def sglang_server(pid: int, ppid: int, argv: Sequence[str], env: Mapping[str, str], *, tp: int, ncpu: int,
                  limits: str, exe: str, cap_eff: str, seccomp: int) -> list[Proc]:
    """`python3 -m sglang.launch_server`: schedulers `sglang::scheduler_TP<n>` and `sglang::detokenizer`."""
    def status(name: str, p: int, parent: int, threads: int) -> str:
        return proc_status(name, p, parent, ncpu=ncpu, threads=threads, cap_eff=cap_eff, seccomp=seccomp)

    out = [Proc(pid, ppid, tuple(argv), env, "python3", limits, status("python3", pid, ppid, 36), exe)]
    for rank in range(tp):
        p = pid + 120 + rank
        out.append(Proc(p, pid, (f"sglang::scheduler_TP{rank}",), None, "sglang::schedul", limits,
                        status("sglang::schedul", p, pid, 71), exe))
    out.append(Proc(pid + 140, pid, ("sglang::detokenizer",), None, "sglang::detoken", limits,
                    status("sglang::detoken", pid + 140, pid, 5), exe))
    return out


def audit_process(pid: int, ppid: int, *, ncpu: int, env: Mapping[str, str], limits: str, cgroup: str,
                  mountinfo: str, mounts: str, cap_eff: str = "000001ffffffffff", seccomp: int = 0,
                  python: str = "/usr/bin/python3", cpus: Iterable[int] | None = None) -> Parts:
    """The audit's own process: /proc/self and /proc/<pid> (the same process)."""
    argv = (python, "/usr/local/bin/stackaudit", "capture", "-o", "host.tar.gz")
    status = proc_status("stackaudit", pid, ppid, ncpu=ncpu, cpus=cpus, threads=9, vmrss_kb=40268,
                         cap_eff=cap_eff, seccomp=seccomp)
    me = Proc(pid, ppid, argv, env, "stackaudit", limits, status, python)
    parts = proc_parts(me)
    for path, content in list(parts.files.items()):
        parts.files[path.replace(f"/proc/{pid}/", "/proc/self/")] = content
    parts.links["/proc/self/exe"] = python
    parts.files.update({"/proc/self/cgroup": cgroup, "/proc/self/mountinfo": mountinfo, "/proc/self/mounts": mounts,
                        f"/proc/{pid}/cgroup": cgroup})
    return parts


def python_site(site: str, packages: Mapping[str, str], torch_cuda: str | None = None) -> Parts:
    """`<name>-<version>.dist-info/METADATA` per distribution, and torch/version.py."""
    files: dict[str, Content] = {}
    for name, version in packages.items():
        dist = name.replace("-", "_")
        files[f"{site}/{dist}-{version}.dist-info/METADATA"] = (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {name}\nRequires-Python: >=3.9\n\n"
            "Long description.\n")
        files[f"{site}/{dist}-{version}.dist-info/RECORD"] = f"{dist}/__init__.py,,\n"
    if "torch" in packages:
        cuda = f"'{torch_cuda}'" if torch_cuda else "None"
        files[f"{site}/torch/version.py"] = (
            "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
            f"__version__ = '{packages['torch']}'\ndebug = False\ncuda: Optional[str] = {cuda}\n"
            "git_version = 'e2d141dbde55c2a4370fac5165b0561b6af4798b'\nhip: Optional[str] = None\n")
    return Parts(files=files)


# --- where the audit runs: host or container ------------------------------------------------

HOST_MOUNTINFO = (
    "22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "23 28 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "24 28 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=263980492k,nr_inodes=65995123,mode=755\n"
    "28 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
    "29 24 0:26 / /dev/shm rw,nosuid,nodev shared:3 - tmpfs tmpfs rw,inode64\n"
    "33 22 0:29 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n")
HOST_MOUNTS = ("sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\nproc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
               "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\ntmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0\n"
               "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0\n")
HOST_ENV = {"SHELL": "/bin/bash", "PWD": "/root", "LOGNAME": "root", "HOME": "/root", "LANG": "C.UTF-8",
            "TERM": "xterm-256color", "USER": "root", "SHLVL": "1",
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}


def df_shm(filesystem: str, size_kib: int, used_kib: int = 0) -> Parts:
    """`df -k -P /dev/shm` (POSIX format, 1024-byte blocks)."""
    pct = round(100 * used_kib / size_kib) if size_kib else 0
    text = ("Filesystem     1024-blocks      Used  Available Capacity Mounted on\n"
            f"{filesystem:<14} {size_kib:>11} {used_kib:>9} {size_kib - used_kib:>10} {pct:>7}% /dev/shm\n")
    return Parts(commands={("df", "-k", "-P", "/dev/shm"): text})


def bare_metal(self_pid: int, ncpu: int, shm_kib: int, limits: str) -> Parts:
    """A shell on the host: systemd as pid 1, a user session cgroup, no container marker."""
    return merge(
        Parts(files={"/proc/1/cgroup": "0::/init.scope\n",
                     "/proc/1/environ": environ_block({"HOME": "/", "init": "/sbin/init", "TERM": "linux",
                                                       "BOOT_IMAGE": "/vmlinuz"}),
                     "/proc/1/cmdline": b"/sbin/init\0splash\0",
                     "/etc/systemd/logind.conf": "[Login]\n#NAutoVTs=6\n#KillUserProcesses=no\n#RemoveIPC=yes\n"}),
        audit_process(self_pid, self_pid - 3, ncpu=ncpu, env=HOST_ENV, limits=limits,
                      cgroup="0::/user.slice/user-0.slice/session-4.scope\n", mountinfo=HOST_MOUNTINFO,
                      mounts=HOST_MOUNTS),
        df_shm("tmpfs", shm_kib),
    )


def cgroup_v2(cpu_max: str, cpu_stat: str, cpuset: str, memory_max: str) -> Parts:
    """A container's own cgroup v2 files (cgroup namespace: its cgroup is /sys/fs/cgroup)."""
    return Parts(files={"/sys/fs/cgroup/cpu.max": cpu_max + "\n",
                        "/sys/fs/cgroup/cpu.stat": f"usage_usec 912345678901\nuser_usec 812345678901\n"
                                                   f"system_usec 100000000000\n{cpu_stat}",
                        "/sys/fs/cgroup/cpuset.cpus.effective": cpuset + "\n",
                        "/sys/fs/cgroup/memory.max": memory_max + "\n",
                        "/sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory hugetlb pids rdma misc\n"})


CONTAINER_MOUNTS = ("overlay / overlay rw,relatime 0 0\nproc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
                    "sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0\n"
                    "cgroup /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n")


def docker_container(container_id: str, self_pid: int, ncpu: int, shm_kib: int, limits: str, env: Mapping[str, str],
                     cap_eff: str, seccomp: int) -> Parts:
    """Inside `docker run` (no --shm-size/--ipc): /.dockerenv, 64 MiB /dev/shm, bind mounts from
    /var/lib/docker/containers/<id>/, cgroup namespace."""
    store = f"/var/lib/docker/containers/{container_id}"
    mountinfo = (
        f"603 482 0:66 / / rw,relatime master:281 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/Q3ZT:"
        f"/var/lib/docker/overlay2/l/7ABC,upperdir=/var/lib/docker/overlay2/{container_id[:24]}/diff,"
        f"workdir=/var/lib/docker/overlay2/{container_id[:24]}/work\n"
        "604 603 0:69 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
        "605 603 0:70 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64\n"
        "608 603 0:72 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro\n"
        "609 608 0:30 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate\n"
        f"612 605 0:75 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size={shm_kib}k,inode64\n"
        f"613 603 259:2 {store}/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/nvme0n1p2 rw\n"
        f"614 603 259:2 {store}/hostname /etc/hostname rw,relatime - ext4 /dev/nvme0n1p2 rw\n"
        f"615 603 259:2 {store}/hosts /etc/hosts rw,relatime - ext4 /dev/nvme0n1p2 rw\n"
        "620 605 0:5 /nvidia0 /dev/nvidia0 rw,nosuid,relatime master:2 - devtmpfs udev rw,size=263980492k\n"
        "628 603 259:2 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.570.133.20 "
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.570.133.20 ro,nosuid,nodev,relatime master:1 - ext4 "
        "/dev/nvme0n1p2 rw\n")
    return merge(
        Parts(files={"/.dockerenv": "", "/proc/1/cgroup": "0::/\n"}),
        audit_process(self_pid, 0, ncpu=ncpu, env=env, limits=limits, cgroup="0::/\n", mountinfo=mountinfo,
                      mounts=CONTAINER_MOUNTS + f"shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size={shm_kib}k "
                                                "0 0\n", cap_eff=cap_eff, seccomp=seccomp),
        df_shm("shm", shm_kib),
    )


def kubernetes_pod(pod_uid: str, self_pid: int, ncpu: int, shm_kib: int, limits: str, env: Mapping[str, str],
                   cap_eff: str, seccomp: int) -> Parts:
    """Inside a pod (containerd, cgroup v2 namespace): service account, kubelet bind mounts, no emptyDir at
    /dev/shm (the runtime's 64 MiB default)."""
    kubelet = f"/var/lib/kubelet/pods/{pod_uid}"
    sa = "/var/run/secrets/kubernetes.io/serviceaccount"
    mountinfo = (
        "1610 1465 0:455 / / rw,relatime master:719 - overlay overlay rw,lowerdir=/var/lib/containerd/io.containerd."
        "snapshotter.v1.overlayfs/snapshots/9021/fs,upperdir=/var/lib/containerd/io.containerd.snapshotter.v1."
        "overlayfs/snapshots/9344/fs,workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/"
        "9344/work\n"
        "1611 1610 0:458 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
        "1612 1610 0:459 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64\n"
        "1616 1610 0:461 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro\n"
        "1617 1616 0:30 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate\n"
        f"1618 1610 259:2 {kubelet}/etc-hosts /etc/hosts rw,relatime - ext4 /dev/nvme0n1p2 rw\n"
        f"1619 1612 0:457 / /dev/termination-log rw,relatime - ext4 /dev/nvme0n1p2 rw\n"
        "1620 1610 259:2 /var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/4f1c/hostname /etc/hostname "
        "rw,relatime - ext4 /dev/nvme0n1p2 rw\n"
        f"1622 1612 0:454 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size={shm_kib}k,inode64\n"
        f"1623 1610 0:449 / {sa} ro,relatime - tmpfs tmpfs rw,size=1048576000k,inode64\n")
    return merge(
        Parts(files={f"{sa}/namespace": "llm-serving", f"{sa}/ca.crt": "-----BEGIN CERTIFICATE-----\nMIIC...\n",
                     f"{sa}/token": "eyJhbGciOiJSUzI1NiIsImtpZCI6IjQ2In0.placeholder.signature",
                     "/proc/1/cgroup": "0::/\n"}),
        audit_process(self_pid, 0, ncpu=ncpu, env=env, limits=limits, cgroup="0::/\n", mountinfo=mountinfo,
                      mounts=CONTAINER_MOUNTS + f"shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size={shm_kib}k "
                                                "0 0\n", cap_eff=cap_eff, seccomp=seccomp),
        df_shm("shm", shm_kib),
    )


def lxc_container(self_pid: int, ncpu: int, shm_kib: int, limits: str) -> Parts:
    """Inside a Proxmox LXC container (Debian 12, systemd): container=lxc for pid 1, lxcfs mounts, cgroup v2."""
    mountinfo = (
        "1031 971 0:85 / / rw,relatime - zfs rpool/data/subvol-101-disk-0 rw,xattr,posixacl,casesensitive\n"
        "1032 1031 0:89 / /dev rw,relatime - tmpfs none rw,size=492k,mode=755,uid=100000,gid=100000,inode64\n"
        "1033 1031 0:90 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
        "1036 1031 0:91 / /sys rw,nosuid,nodev,noexec,relatime - sysfs sysfs rw\n"
        "1040 1033 0:62 /proc/meminfo /proc/meminfo rw,nosuid,nodev,relatime - fuse.lxcfs lxcfs "
        "rw,user_id=0,group_id=0,allow_other\n"
        "1041 1033 0:62 /proc/cpuinfo /proc/cpuinfo rw,nosuid,nodev,relatime - fuse.lxcfs lxcfs "
        "rw,user_id=0,group_id=0,allow_other\n"
        "1048 1036 0:92 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate\n"
        "1051 1032 0:5 /nvidia0 /dev/nvidia0 rw,nosuid,relatime master:2 - devtmpfs udev rw,size=263980492k\n"
        "1052 1032 0:5 /nvidiactl /dev/nvidiactl rw,nosuid,relatime master:2 - devtmpfs udev rw,size=263980492k\n"
        f"1090 1032 0:96 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw,size={shm_kib}k,uid=100000,gid=100000,inode64\n")
    mounts = ("rpool/data/subvol-101-disk-0 / zfs rw,relatime,xattr,posixacl 0 0\n"
              "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\nsysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
              "none /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n"
              f"tmpfs /dev/shm tmpfs rw,nosuid,nodev,size={shm_kib}k,inode64 0 0\n")
    return merge(
        Parts(files={"/run/systemd/container": "lxc\n", "/proc/1/cgroup": "0::/init.scope\n",
                     "/proc/1/environ": environ_block({"container": "lxc", "container_ttys": "", "HOME": "/",
                                                       "TERM": "linux"}),
                     "/proc/1/cmdline": b"/sbin/init\0"}),
        audit_process(self_pid, self_pid - 3, ncpu=ncpu, env=HOST_ENV, limits=limits,
                      cgroup="0::/user.slice/user-0.slice/session-31.scope\n", mountinfo=mountinfo, mounts=mounts),
        df_shm("tmpfs", shm_kib),
    )


def proxmox_lxc_conf(vmid: int, body: str) -> Parts:
    """/etc/pve/lxc/<vmid>.conf on the Proxmox node (`key: value`)."""
    return Parts(files={f"/etc/pve/lxc/{vmid}.conf": body})


# --- Blackwell on Turin: lspci -vvv, nvidia-smi outputs, a model in the Hugging Face cache ---------

# EPYC 9575F (Turin, Zen 5): family 26 model 2 stepping 1 as `amdtool` prints a Turin part in a public coreboot
# port report (https://blog.3mdeb.com, Gigabyte MZ33-AR1: "Family 0x1a, Model 0x2, Stepping 0x1"); 64 cores,
# 3.3 GHz base, 5.0 GHz boost, 256 MiB L3 per socket (AMD's product page). The lscpu text itself is modelled.
EPYC_9575F = CpuModel("AuthenticAMD", "AMD EPYC 9575F 64-Core Processor", 26, 2, 1, 64, 5008.0, 1500.0, 6590.74,
                      AMD_FLAGS, 48, 1024, 256)

# The RTX PRO 6000 Blackwell Server Edition: PCI ID 10de:2bb5, subsystem 10de:204e (the lspci block of
# tests/test_pcie_lspci.py), 96 GB GDDR7, 600 W default limit (NVIDIA's product page).
RTX_PRO_6000_SE = "RTX PRO 6000 Blackwell Server Edition"


def lspci_turin_gpus(gpus: Sequence[Gpu], *, mps: int = 256, mrrs: int = 512, root_mps_cap: int = 512) -> Parts:
    """`lspci -D -nn -vvv` (pciutils 3.9, Debian 12 / Proxmox VE 8) of GPUs each on its own Turin GPP bridge.

    Modelled, field by field, on the RTX PRO 6000 Blackwell Server Edition and EPYC GPP bridge blocks of
    tests/test_pcie_lspci.py (pciutils' ls-caps.c wording: an equal LnkSta prints no `(ok)` marker in 3.9); the
    Turin root complex naming from a public `lspci -tvnn` of a Turin board (Turin Root Complex 1022:153a,
    IOMMU 153b, dummy host bridge 153d; the GPP bridge's own ID, 153e, is modelled). ACS redirect is on at the
    root ports, as Linux sets it whenever an IOMMU is present (also with iommu=pt).
    """
    blocks: list[str] = []
    for i, g in enumerate(gpus):
        bus = g.bdf[5:7]
        group = g.iommu_group if g.iommu_group is not None else 0
        blocks.append(
            f"{g.root_port} PCI bridge [0604]: Advanced Micro Devices, Inc. [AMD] Turin GPP Bridge [1022:153e] "
            "(prog-if 00 [Normal decode])\n"
            "\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR+ FastB2B- DisINTx+\n"
            "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-\n"
            "\tLatency: 0, Cache Line Size: 64 bytes\n"
            f"\tInterrupt: pin ? routed to IRQ {40 + i}\n"
            f"\tNUMA node: {g.numa_node}\n"
            f"\tIOMMU group: {group - 1}\n"
            f"\tBus: primary={g.root_port[5:7]}, secondary={bus}, subordinate={bus}, sec-latency=0\n"
            "\tI/O behind bridge: [disabled] [16-bit]\n"
            "\tMemory behind bridge: f0000000-f40fffff [size=65M] [32-bit]\n"
            "\tPrefetchable memory behind bridge: [size=129G] [64-bit]\n"
            "\tCapabilities: [50] Power Management version 3\n"
            "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0+,D1-,D2-,D3hot+,D3cold+)\n"
            "\t\tStatus: D0 NoSoftRst- PME-Enable- DSel=0 DScale=0 PME-\n"
            "\tCapabilities: [58] Express (v2) Root Port (Slot+), MSI 00\n"
            f"\t\tDevCap:\tMaxPayload {root_mps_cap} bytes, PhantFunc 0\n"
            "\t\t\tExtTag+ RBE+\n"
            "\t\tDevCtl:\tCorrErr+ NonFatalErr+ FatalErr+ UnsupReq+\n"
            "\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+\n"
            f"\t\t\tMaxPayload {mps} bytes, MaxReadReq 512 bytes\n"
            "\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-\n"
            f"\t\tLnkCap:\tPort #{i + 1}, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <64us\n"
            "\t\t\tClockPM- Surprise- LLActRep+ BwNot+ ASPMOptComp+\n"
            "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+\n"
            "\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-\n"
            "\t\tLnkSta:\tSpeed 32GT/s, Width x16\n"
            "\t\t\tTrErr- Train- SlotClk+ DLActive+ BWMgmt- ABWMgmt-\n"
            f"\t\tSltCap:\tAttnBtn- PwrCtrl- MRL- AttnInd- PwrInd- HotPlug- Surprise-\n"
            f"\t\t\tSlot #{i + 1}, PowerLimit 75W; Interlock- NoCompl+\n"
            "\t\tDevCap2: Completion Timeout: Range ABCD, TimeoutDis+ NROPrPrP- LTR+\n"
            "\t\t\t 10BitTagComp+ 10BitTagReq+ OBFF Not Supported, ExtFmt+ EETLPPrefix+, MaxEETLPPrefixes 1\n"
            "\t\tDevCtl2: Completion Timeout: 50us to 50ms, TimeoutDis- LTR- 10BitTagReq- OBFF Disabled, ARIFwd+\n"
            "\tCapabilities: [100 v1] Vendor Specific Information: ID=0001 Rev=1 Len=010 <?>\n"
            "\tCapabilities: [150 v2] Advanced Error Reporting\n"
            "\t\tUESta:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-\n"
            "\t\tCESta:\tRxErr- BadTLP- BadDLLP- Rollover- Timeout- AdvNonFatalErr-\n"
            "\tCapabilities: [2a0 v1] Access Control Services\n"
            "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+\n"
            "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
            "\tKernel driver in use: pcieport\n")
        blocks.append(
            f"{g.bdf} 3D controller [0302]: NVIDIA Corporation GB202GL [{RTX_PRO_6000_SE}] [10de:2bb5] (rev a1)\n"
            "\tSubsystem: NVIDIA Corporation Device [10de:204e]\n"
            "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx+\n"
            "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-\n"
            "\tLatency: 0\n"
            f"\tInterrupt: pin A routed to IRQ {200 + i}\n"
            f"\tNUMA node: {g.numa_node}\n"
            f"\tIOMMU group: {group}\n"
            "\tRegion 0: Memory at f0000000 (32-bit, non-prefetchable) [size=64M]\n"
            f"\tRegion 1: Memory at {0x28000000000 + i * 0x4000000000:x} (64-bit, prefetchable) [size=128G]\n"
            f"\tRegion 3: Memory at {0x2a000000000 + i * 0x4000000000:x} (64-bit, prefetchable) [size=32M]\n"
            "\tCapabilities: [40] Power Management version 3\n"
            "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0+,D1-,D2-,D3hot+,D3cold-)\n"
            "\t\tStatus: D0 NoSoftRst+ PME-Enable- DSel=0 DScale=0 PME-\n"
            "\tCapabilities: [48] MSI: Enable- Count=1/16 Maskable+ 64bit+\n"
            "\tCapabilities: [60] Express (v2) Legacy Endpoint, MSI 00\n"
            "\t\tDevCap:\tMaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us\n"
            "\t\t\tExtTag+ AttnBtn- AttnInd- PwrInd- RBE+ FLReset+\n"
            "\t\tDevCtl:\tCorrErr- NonFatalErr- FatalErr- UnsupReq-\n"
            "\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-\n"
            f"\t\t\tMaxPayload {mps} bytes, MaxReadReq {mrrs} bytes\n"
            "\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-\n"
            "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <4us\n"
            "\t\t\tClockPM+ Surprise- LLActRep- BwNot- ASPMOptComp+\n"
            "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+\n"
            "\t\t\tExtSynch- ClockPM+ AutWidDis- BWInt- AutBWInt-\n"
            "\t\tLnkSta:\tSpeed 32GT/s, Width x16\n"
            "\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-\n"
            "\t\tDevCap2: Completion Timeout: Range AB, TimeoutDis+ NROPrPrP- LTR+\n"
            "\t\t\t 10BitTagComp+ 10BitTagReq+ OBFF Via message, ExtFmt+ EETLPPrefix-\n"
            "\t\tDevCtl2: Completion Timeout: 50us to 50ms, TimeoutDis- LTR- 10BitTagReq- OBFF Disabled,\n"
            "\t\t\t AtomicOpsCtl: ReqEn-\n"
            "\tCapabilities: [9c] Vendor Specific Information: Len=14 <?>\n"
            "\tCapabilities: [b0] MSI-X: Enable+ Count=9 Masked-\n"
            "\tCapabilities: [100 v1] Advanced Error Reporting\n"
            "\t\tUESta:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-\n"
            "\t\tCESta:\tRxErr- BadTLP- BadDLLP- Rollover- Timeout- AdvNonFatalErr-\n"
            "\tCapabilities: [bb0 v1] Physical Resizable BAR\n"
            "\t\tBAR 0: current size: 64MB, supported: 64MB\n"
            "\t\tBAR 1: current size: 128GB, supported: 64MB 128MB 256MB 512MB 1GB 2GB 4GB 8GB 16GB 32GB 64GB 128GB\n"
            "\t\tBAR 3: current size: 32MB, supported: 32MB\n"
            "\tKernel driver in use: nvidia\n"
            "\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n")
    return Parts(commands={("lspci", "-D", "-nn", "-vvv"): "\n".join(blocks)})


_NVSMI_FIXTURE = "04-rtx-pro-6000-blackwell-maxq-gen4-host-nvsmi-xml.txt"


def _xml_set(block: str, path: str, value: str) -> str:
    """Set the text of the first `<a>…<b>` element along `path` ("ecc_mode/current_ecc") in an XML text."""
    start = 0
    *parents, leaf = path.split("/")
    for parent in parents:
        found = block.find(f"<{parent}>", start)
        assert found >= 0, f"no <{parent}> in the nvidia-smi template"
        start = found
    pattern = re.compile(rf"<{leaf}>[^<]*</{leaf}>")
    match = pattern.search(block, start)
    assert match, f"no <{leaf}> in the nvidia-smi template"
    return block[:match.start()] + f"<{leaf}>{value}</{leaf}>" + block[match.end():]


def nvsmi_xml(gpus: Sequence[Gpu], *, driver: str, cuda: str, ecc: str = "Enabled", power_limit_w: float = 600.0,
              default_limit_w: float = 600.0, timestamp: str = "Tue Nov 25 14:12:31 2025") -> Parts:
    """`nvidia-smi -q -x` of RTX PRO 6000 Blackwell Server Edition GPUs serving (P0, Gen5 x16).

    Each <gpu> element is the real v13-schema element of tests/data/captures/04-… (an RTX PRO 6000 Blackwell Max-Q
    from telegraf's test fixtures) with the values that differ on a serving Server Edition changed: name, PCI
    IDs and address, link (Gen5 host), ECC, power limits (600 W), BAR1, clocks under load, driver and GSP
    versions, no process list (inside a container NVML's PIDs are not in its PID namespace)."""
    text = (Path(__file__).resolve().parent / "data" / "captures" / _NVSMI_FIXTURE).read_text()
    body = text.split("-----\n", 1)[1]
    template = body[body.index("\t<gpu id="):body.index("</gpu>") + len("</gpu>")]
    out = ['<?xml version="1.0" ?>', '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">', "<nvidia_smi_log>",
           f"\t<timestamp>{timestamp}</timestamp>", f"\t<driver_version>{driver}</driver_version>",
           f"\t<cuda_version>{cuda}</cuda_version>", f"\t<attached_gpus>{len(gpus)}</attached_gpus>"]
    for i, g in enumerate(gpus):
        bus_id = f"0000{g.bdf.upper()}"
        block = template.replace('<gpu id="00000000:61:00.0">', f'<gpu id="{bus_id}">')
        block = re.sub(r"<processes>.*?</processes>", "<processes>\n\t\t</processes>", block, flags=re.S)
        for path, value in (
            ("product_name", f"NVIDIA {RTX_PRO_6000_SE}"), ("mig_mode/current_mig", "Disabled"),
            ("mig_mode/pending_mig", "Disabled"), ("serial", f"18243250{i:05d}"),
            ("uuid", f"GPU-5e1c{i:04x}-8a2b-4c3d-9e4f-7a6b5c4d3e{i:02x}"), ("minor_number", str(i)),
            ("vbios_version", "98.02.55.00.04"), ("board_part_number", "900-2G153-0070-000"),
            ("gpu_part_number", "2BB5-895-A1"), ("board_id", f"0x{int(g.bdf[5:7], 16) << 8:x}"),
            ("gsp_firmware_version", driver), ("pci/pci_bus", g.bdf[5:7].upper()),
            ("pci/pci_device_id", "2BB510DE"), ("pci/pci_bus_id", bus_id), ("pci/pci_sub_system_id", "204E10DE"),
            ("pcie_gen/max_link_gen", "5"), ("pcie_gen/current_link_gen", "5"),
            ("pcie_gen/device_current_link_gen", "5"), ("pcie_gen/max_host_link_gen", "5"),
            ("fan_speed", "N/A"), ("performance_state", "P0"),
            ("fb_memory_usage/used", "86210 MiB"), ("fb_memory_usage/free", "11040 MiB"),
            ("bar1_memory_usage/used", "86211 MiB"), ("bar1_memory_usage/free", "44861 MiB"),
            ("utilization/gpu_util", "71 %"), ("utilization/memory_util", "58 %"),
            ("ecc_mode/current_ecc", ecc), ("ecc_mode/pending_ecc", ecc),
            ("temperature/gpu_temp", f"{54 + i % 3} C"),
            ("gpu_power_readings/average_power_draw", "412.36 W"),
            ("gpu_power_readings/instant_power_draw", "418.02 W"),
            ("gpu_power_readings/current_power_limit", f"{power_limit_w:.2f} W"),
            ("gpu_power_readings/requested_power_limit", f"{power_limit_w:.2f} W"),
            ("gpu_power_readings/default_power_limit", f"{default_limit_w:.2f} W"),
            ("gpu_power_readings/min_power_limit", "400.00 W"), ("gpu_power_readings/max_power_limit", "600.00 W"),
            ("clocks/graphics_clock", "2430 MHz"), ("clocks/sm_clock", "2430 MHz"), ("clocks/mem_clock", "14001 MHz"),
        ):
            block = _xml_set(block, path, value)
        if ecc == "Enabled":
            for counter in ("sram_correctable", "sram_uncorrectable_parity", "sram_uncorrectable_secded",
                            "dram_correctable", "dram_uncorrectable"):
                block = _xml_set(block, f"volatile/{counter}", "0")
                block = _xml_set(block, f"aggregate/{counter}", "0")
        out.append(block)
    out += ["", "</nvidia_smi_log>"]
    return Parts(commands={("nvidia-smi", "-q", "-x"): "\n".join(out) + "\n"})


# The legend `nvidia-smi topo -m` prints under its matrix.
TOPO_LEGEND = """
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
"""
_P2P_LEGEND = """
Legend:

  X    = Self
  OK   = Status Ok
  CNS  = Chipset not supported
  GNS  = GPU not supported
  TNS  = Topology not supported
  NS   = Not supported
  U    = Unknown
"""


def nvsmi_topology(gpus: Sequence[Gpu], numa: Sequence[Sequence[int]], p2p: str = "OK") -> Parts:
    """`nvidia-smi topo -m` and `topo -p2p rw` of GPUs each on its own root port (no NVLink, no NIC): NODE
    within a socket, SYS across. The layout (tabs, ` X ` cells, the legends) follows the real matrices of
    tests/data/captures/59-… (driver 5xx); the eight-GPU content is modelled."""
    n = len(gpus)
    head = "\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    rows = []
    for i, g in enumerate(gpus):
        cells = [" X " if j == i else ("NODE" if h.numa_node == g.numa_node else "SYS") for j, h in enumerate(gpus)]
        rows.append(f"GPU{i}\t" + "\t".join(cells) + f"\t{cpulist(numa[g.numa_node])}\t{g.numa_node}\t\tN/A\n")
    topo = head + "".join(rows) + TOPO_LEGEND
    p2p_head = " \t" + "\t".join(f"GPU{i}" for i in range(n)) + "\t\n"
    p2p_rows = "".join(f" GPU{i}\t" + "\t".join("X" if j == i else p2p for j in range(n)) + "\t\n" for i in range(n))
    return Parts(commands={("nvidia-smi", "topo", "-m"): topo,
                           ("nvidia-smi", "topo", "-p2p", "rw"): p2p_head + p2p_rows + _P2P_LEGEND})


def hf_cached_model(cache: str, repo: str, revision: str, config: Mapping[str, object]) -> Parts:
    """A model in the Hugging Face hub cache: `<cache>/models--org--name/{refs/main,snapshots/<rev>/config.json}`."""
    base = f"{cache}/models--{repo.replace('/', '--')}"
    return Parts(files={f"{base}/refs/main": revision, f"{base}/snapshots/{revision}/config.json":
                        json.dumps(config, indent=2) + "\n"})
