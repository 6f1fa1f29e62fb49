"""Host basics: kernel, command line, CPU, NUMA, modules, kernel log, sysctls."""

from __future__ import annotations

import contextlib
import functools
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from stackaudit.facts._parse import (
    LINE_LOOK_CHARS,
    ParseError,
    has_gap_line,
    key_value_lines,
    lines_holding,
    only_one,
    parse_cpulist,
    stated_lines,
)
from stackaudit.facts.registry import (
    FactContext,
    FactUnavailable,
    Sourced,
    fact,
    first_of,
    parser,
    provider,
    read_source,
)
from stackaudit.facts.shown_commands import EmptyGreps, ListingGreps, PathTests
from stackaudit.facts.sources import (
    DMESG,
    EVIDENCE_LINES,
    LSCPU,
    LSMOD,
    NODE_SYSFS,
    NUMACTL_H,
    NUMASTAT,
    PROC_BBSWITCH,
    PROC_CMDLINE,
    PROC_CPUINFO,
    PROC_MODULES,
    PROC_SYS,
    SYSCTL_A,
    UNAME,
    USER_MACHINE,
)
from stackaudit.host.base import NotCaptured, read_optional, read_text

# --- kernel (uname -a) -----------------------------------------------------------------------


@dataclass(frozen=True)
class KernelInfo:
    release: str
    version: str = ""
    machine: str = ""
    hostname: str = ""

    @property
    def release_tuple(self) -> tuple[int, ...]:
        """`6.8.0-45-generic` -> (6, 8, 0)."""
        m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", self.release)
        if not m:
            return ()
        return tuple(int(g) for g in m.groups() if g is not None)


# One line of `uname -a`: `Linux HOST RELEASE #BUILD ... MACHINE` (the importers find it with this too). A user who
# takes the host name out, or runs `uname -srvmo`, leaves `Linux RELEASE #BUILD ... MACHINE` (corpus 1787, the open
# kernel modules' "Kernel Release" field): host "".
# The line in inline code, as issue templates' checklists take it: `` `Linux amax 4.4.0-31-generic #50-Ubuntu ...` ``
# (NVIDIA/nvidia-docker#756), ```` ```Linux localhost.localdomain 3.10.0-957.21.3.el7.x86_64 #1 SMP ...``` ````
# (NVIDIA/nvidia-docker#1025). An issue that GitHub moved to another repository has its build number rewritten into a
# link to the old one: `5.3.0-40-generic NVIDIA/nvidia-docker#32~18.04.1-Ubuntu` (NVIDIA/nvidia-container-toolkit#300,
# corpus 2051): the build is the part from `#`.
UNAME_LINE = re.compile(
    r"^\s*`{0,3}Linux\s+(?:(?P<host>\S+)\s+)??(?P<release>\d+\.\d+\S*)\s+(?:[\w.-]+/[\w.-]+(?=#))?"
    r"(?P<version>#\S+.*?)\s+"
    r"(?P<machine>x86_64|aarch64|ppc64le|s390x|arm64|i686)\b"
)


def is_uname_line(line: str) -> bool:
    """Whether a line is `uname -a`'s output (a WSL 2 kernel's names WSL, which the user's words read too)."""
    return UNAME_LINE.search(line) is not None


fact("kernel", KernelInfo, first_of, hint="paste `uname -a`")


@parser(UNAME, feeds="kernel", kind=KernelInfo, rank=10)
def parse_uname(text: str) -> KernelInfo:
    """Kernel release and architecture (`uname -a`).

    Input (tests/data/captures/80)::

        Linux <redacted> 5.10.0-18-amd64 #1 SMP Debian 5.10.140-1 (2022-09-02) x86_64 GNU/Linux
    """
    for line in text.splitlines():
        m = UNAME_LINE.search(line.strip())
        if m:
            return KernelInfo(m.group("release"), m.group("version"), m.group("machine"), m.group("host") or "")
    raise ParseError("not the output of `uname -a`")


# `Linux version 6.8.12-9-pve (build@proxmox) (gcc ...) #1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z) x86_64`
_LINUX_VERSION = re.compile(r"Linux version (\d+\.\d+[^\s()]*)")
_MACHINE = re.compile(r"\b(x86_64|aarch64|ppc64le|s390x)\b")


@provider("kernel", KernelInfo, rank=20, title="the kernel log's `Linux version` line")
def kernel_from_log(ctx: FactContext) -> KernelInfo:
    """Kernel release from the kernel log's boot banner (`dmesg`: `Linux version 6.8.12-9-pve ...`)."""
    log = ctx.fact("kernel_log", KernelLog)
    if m := next(log.matches(_LINUX_VERSION, "Linux version"), None):
        machine = _MACHINE.search(m.string[m.end():])
        return KernelInfo(m.group(1), machine=machine.group(1) if machine else "")
    raise FactUnavailable("the kernel log has no `Linux version` line")


# The release a kernel report's header names (a hung task's, an oops's, a warning's): `Tainted: P           OE
# 5.15.0-97-generic #107-Ubuntu` under `INFO: task … blocked for more than 120 seconds.`, or `CPU: 12 PID: 620917 Comm:
# python Not tainted 5.15.0-97-generic #107-Ubuntu` (the taint flags are capital letters and spaces).
_TAINT_RELEASE = re.compile(r"(?:\bNot tainted|\bTainted:[A-Z ]*?)\s+(\d+\.\d+(?:\.\d+)?[^\s()]*)\s+#\d")


@provider("kernel", KernelInfo, rank=90, title="the kernel log's `Tainted:` line")
def kernel_from_taint_line(ctx: FactContext) -> KernelInfo:
    """Kernel release from the header of a report the kernel logged (`Tainted: P OE 5.15.0-97-generic #107-Ubuntu`,
    `… Comm: python Not tainted 5.15.0-97-generic #1`): the running kernel's, read where no better source (uname, the
    boot banner) is shown (corpus 1411)."""
    log = ctx.fact("kernel_log", KernelLog)
    if m := next(log.matches(_TAINT_RELEASE, "ainted"), None):
        return KernelInfo(m.group(1))
    raise FactUnavailable("the kernel log has no `Tainted:` line naming the release")


@provider("kernel", KernelInfo, rank=30, title="the image in /proc/cmdline (`BOOT_IMAGE=`)")
def kernel_from_cmdline(ctx: FactContext) -> KernelInfo:
    """Kernel release from the booted image's name (/proc/cmdline `BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic`)."""
    cmd = ctx.fact("cmdline", KernelCmdline)
    image = cmd.last("BOOT_IMAGE") or ""
    m = re.search(r"vmlinuz-(\d+\.\d+[\w.+~-]*)", image)
    if not m:
        raise FactUnavailable("/proc/cmdline names no versioned kernel image")
    return KernelInfo(m.group(1))


@provider("kernel", KernelInfo, rank=40, title="collect_env's `Python platform`")
def kernel_from_collect_env(ctx: FactContext) -> KernelInfo:
    """Kernel release from vLLM collect_env (`Python platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35`)."""
    from stackaudit.facts.collect_env import CollectEnv

    report = ctx.fact("collect_env", CollectEnv)
    if not report.kernel:
        raise FactUnavailable("the collect_env report names no kernel")
    machine = _MACHINE.search(report.values.get("Python platform", ""))
    return KernelInfo(report.kernel, machine=machine.group(1) if machine else "")


# A hardware summary's kernel line (`Kernel: 6.17.0-1014-nvidia`, `Kernel version: Linux 6.8.0-124-generic`), or the
# same as a two-column Markdown table row (`| **Kernel** | Linux 6.8.0-124-generic |`, corpus 860): `uname -r`'s release.
# The open kernel modules' bug form asks `Kernel Release` (importers/evidence.form_answer joins its answer to its
# label), answered with the release alone or with what `uname -a` prints after it: its build (`#88~22.04.1-Ubuntu SMP
# ...`) or its machine (`x86_64 GNU/Linux`, `(x86_64)`). A list's line may name the distribution first, a comma after it,
# and quote the release in backticks (`* CentOS 7.9, Kernel Version:  \`5.4.124-1.el7.elrepo.x86_64\``, corpus 1922;
# `Manjaro KDE, Kernel Version: 5.4.24-1-MANJARO`); a package's line (`For HWE Package: linux-image-generic-hwe-20.04,
# Kernel Version: 5.15.0.60.66`) names no running kernel and is not read.
# A summary's key for both (`| **OS / Kernel** | Ubuntu 24.04.4 LTS, kernel 6.17.0-35-generic |`, corpus 2422) names the
# distribution, then the kernel's release after `kernel`.
STATED_KERNEL = re.compile(r"^\W*(?:[A-Z][\w.]*(?: [\w.]+){0,2}, )?(?:Linux )?Kernel(?: version| release)?\W*:\s*"
                           r"(?:Linux\s+)?`?(\d+\.\d+(?:\.\d+)?[\w.+~-]*)`?"
                           r"(?:\s+(?:#\S+|\(?(?:x86_64|aarch64|ppc64le|arm64|s390x)\)?)(?:\s.*)?)?\s*$",
                           re.IGNORECASE)


# A Hugging Face environment report's platform (`diffusers-cli env`, `transformers-cli env`: `- Platform:
# Linux-4.4.0-19041-Microsoft-x86_64-with-glibc2.31`, Python's platform.platform()): the kernel release before the
# machine, as collect_env's `Python platform` gives it (corpus 2662).
PLATFORM_KERNEL = re.compile(r"^\W*Platform:\s*Linux-(\d+\.\d+[\w.+-]{0,80}?)-(?:x86_64|aarch64|ppc64le|s390x)-with-")
OS_KERNEL = re.compile(r"^\W*OS\s*/\s*Kernel\W*:\s*[\w .()-]{1,60}?,\s*(?:Linux\s+)?kernel\s+`?(\d+\.\d+\.\d+[\w.+~-]*)`?\s*$",
                       re.IGNORECASE)


# The flavours that end a kernel release (`uname -r`): Ubuntu's, Debian's, RHEL's machine, SUSE's.
KERNEL_FLAVOURS = ("generic", "lowlatency", "amd64", "arm64", "x86_64", "aarch64", "aws", "azure", "gcp", "oracle", "kvm",
                   "cloud-amd64", "rt-amd64", "default")
# `uname -r`'s output on a line of its own, the release with its distribution's build and flavour
# (`6.18.15+deb13-amd64`, corpus 1856; Ubuntu's `5.15.0-91-generic`, RHEL's `4.18.0-372.9.1.el8.x86_64`): the flavour
# tells a kernel release from any other dotted version.
BARE_KERNEL_RELEASE = re.compile(r"^\s*`?(\d\.\d{1,2}\.\d{1,3}(?:-\d+(?:\.\d+)*)?(?:[-+.~][\w.+~]*?)?[-.]"
                                 rf"(?:{'|'.join(KERNEL_FLAVOURS)}))`?\s*$")
# What every such line holds: a flavour after its `-` or `.`.
BARE_KERNEL_NEEDLES = tuple(sep + flavour for flavour in KERNEL_FLAVOURS for sep in "-.")


@parser(EVIDENCE_LINES, feeds="kernel", kind=KernelInfo, rank=70)
def kernel_from_stated_line(text: str) -> KernelInfo:
    """The kernel release a hardware summary states on its own line (STATED_KERNEL), or `uname -r` prints alone
    (BARE_KERNEL_RELEASE); two different releases name no one kernel.

    Input (tests/data/captures/860, the user's environment table)::

        | **Kernel** | Linux 6.8.0-124-generic |
    """
    found = {m.group(1) for line in stated_lines(text).splitlines()
             if (m := STATED_KERNEL.match(line) or BARE_KERNEL_RELEASE.match(line) or OS_KERNEL.match(line)
                      or PLATFORM_KERNEL.match(line))}
    return KernelInfo(only_one(found, "no one `Kernel: X.Y` line in the lines shown"))


@provider("kernel", KernelInfo, rank=50, title="sysctl `kernel.osrelease`")
def kernel_from_sysctl(ctx: FactContext) -> KernelInfo:
    """Kernel release from `kernel.osrelease` (/proc/sys, or a pasted `sysctl -a`)."""
    release = (ctx.fact("sysctls", Sysctls).get("kernel.osrelease") or "").strip()
    if not re.match(r"\d+\.\d+", release):
        raise FactUnavailable("no kernel.osrelease in the sysctls")
    return KernelInfo(release)


# --- kernel command line ---------------------------------------------------------------------


@dataclass(frozen=True)
class KernelCmdline:
    raw: str
    params: tuple[tuple[str, str | None], ...]

    def values(self, key: str) -> list[str | None]:
        """Every value given for `key` (the kernel uses the last; some options accumulate)."""
        return [v for k, v in self.params if k == key]

    def last(self, key: str) -> str | None:
        vals = self.values(key)
        return vals[-1] if vals else None

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.params)

    def pci_options(self) -> list[str]:
        """The comma-separated sub-options of every `pci=` parameter."""
        opts: list[str] = []
        for value in self.values("pci"):
            if value:
                opts.extend(o for o in value.split(",") if o)
        return opts


fact("cmdline", KernelCmdline, first_of, hint="paste `cat /proc/cmdline`")


# The user's words that the IOMMU is off, in the firmware or on the command line (`IOMMU is disabled`, `I disabled both
# ACS and IOMMU`, `VT-d off`); a question states nothing, and neither does a negation (`IOMMU is not disabled`).
# A firmware menu's setting written as its value (`AMD CBS->NBIO Common option ->IOMMU=Disable`, corpus 1729;
# `IOMMU: Disabled`) states it too.
_STATED_IOMMU_OFF = re.compile(r"\b(?:IOMMU|VT-d|AMD-Vi)\b(?:\s+(?:is|was|are|has been|set to))?\s+(?:disabled|off|turned off)\b|"
                               r"\b(?:IOMMU|VT-d|AMD-Vi)\s*[=:]\s*(?:Disabled?|Off)\b|"
                               r"\b(?:disabled?|turned off)\s+(?:\w+\s+){0,3}?(?:the\s+)?(?:IOMMU|VT-d|AMD-Vi)\b", re.I)


def stated_iommu_off(line: str) -> bool:
    """Whether a line of the user's words says the IOMMU is off (_STATED_IOMMU_OFF)."""
    return "?" not in line and _STATED_IOMMU_OFF.search(line) is not None


# The user's words that a peer-memory module is loaded: its name before `module loaded` (`with `nv_peer_mem` kernel
# module loaded`, corpus 2434), or `I have loaded nvidia_peermem` (corpus 566). A question states nothing, and neither
# does a negation (`module is not loaded`, which the pattern leaves out).
_STATED_PEER_MEMORY_LOADED = re.compile(
    r"\b(nvidia[_-]peermem|nv_peer_mem)\b[`'\"]? (?:kernel )?module[`'\"]? (?:is )?loaded\b"
    r"|\b(?:have|has|had) loaded (?:the )?[`'\"]?(nvidia[_-]peermem|nv_peer_mem)\b", re.I)


def stated_peer_memory_loaded(line: str) -> str:
    """The peer-memory module a line of the user's words says is loaded (_STATED_PEER_MEMORY_LOADED), by its lsmod
    name; "" where it says none."""
    m = _STATED_PEER_MEMORY_LOADED.search(line[:LINE_LOOK_CHARS]) if "?" not in line else None
    return (m.group(1) or m.group(2)).lower().replace("-", "_") if m else ""


@dataclass(frozen=True, kw_only=True)
class StatedIommu(Sourced):
    """The IOMMU as the user's words state it: off, in `line`."""

    line: str


fact("stated_iommu", StatedIommu, first_of, hint="paste `cat /proc/cmdline`")


@parser(USER_MACHINE, feeds="stated_iommu", kind=StatedIommu, rank=90)
def iommu_from_user_words(text: str) -> StatedIommu:
    """The IOMMU off, as a line of the user's words says it (_STATED_IOMMU_OFF).

    Input (tests/data/captures/974)::

        @schung-amd I am experiencing exactly the same issue. It works with disabled P2P, but crashes when enabled. IOMMU is disabled, ReBAR is enabled, ROCm 6.4 with dual gfx1100 with EPYC Siena. (can deliver further information about the setup if desired).
    """
    line = next((ln.strip() for ln in text.splitlines() if stated_iommu_off(ln)), "")
    if not line:
        raise ParseError("the user's words do not say the IOMMU is off")
    return StatedIommu(line=line[:300], complete=False)


@parser(PROC_CMDLINE, feeds="cmdline", kind=KernelCmdline, rank=10)
def parse_cmdline(text: str) -> KernelCmdline:
    """The kernel command line (/proc/cmdline; quotes group values, as the kernel does).

    Input (tests/data/captures/28, one line cut in two here)::

        BOOT_IMAGE=(hd3,gpt2)/vmlinuz-6.2.10-201.fsync.fc37.x86_64 root=UUID=da142f7d-42a1-46ee-b6d2-b63a4859ad07
        ro rootflags=subvol=root rhgb quite intel_iommu=on iommu=pt rd.driver.blacklist=nouveau
    """
    raw = text.strip().replace("\x00", " ")
    if not raw:
        raise ParseError("empty kernel command line")
    params: list[tuple[str, str | None]] = []
    for token in re.findall(r'(?:[^\s"]+|"[^"]*")+', raw):
        key, eq, value = token.partition("=")
        params.append((key, value.replace('"', "") if eq else None))
    return KernelCmdline(raw, tuple(params))


# The kernel logs its command line at boot: `Command line: BOOT_IMAGE=...` (x86) and
# `Kernel command line: BOOT_IMAGE=...` (every architecture; init/main.c).
_LOGGED_CMDLINE = re.compile(r"\b(?:Kernel )?[Cc]ommand line: (.*\S)")


@provider("cmdline", KernelCmdline, rank=20, title="the kernel log's `Kernel command line`")
def cmdline_from_log(ctx: FactContext) -> KernelCmdline:
    """The kernel command line as the kernel logged it at boot (`dmesg`: `Kernel command line: ...`)."""
    log = ctx.fact("kernel_log", KernelLog)
    for m in log.matches(_LOGGED_CMDLINE, "ommand line: "):
        try:
            return parse_cmdline(m.group(1))
        except ParseError:
            continue
    raise FactUnavailable("the kernel log has no `Kernel command line` line")


# --- CPU (lscpu) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuInfo(Sourced):
    vendor: str = ""
    model_name: str = ""
    # lscpu's `Architecture` (x86_64, aarch64), or the machine the kernel reports (cpu_from_kernel_machine); "" not shown.
    architecture: str = ""
    family: int | None = None
    model: int | None = None
    cpus: int | None = None
    sockets: int | None = None
    cores_per_socket: int | None = None
    threads_per_core: int | None = None
    numa_nodes: int | None = None
    hypervisor_vendor: str = ""
    virtualization_type: str = ""
    flags: frozenset[str] = field(default_factory=frozenset)
    vulnerabilities: tuple[tuple[str, str], ...] = ()
    # The lines where lscpu prints `Hypervisor vendor:` are shown (hypervisor_span_shown), so its absence is read.
    hypervisor_span: bool = False
    # The flags line reaches past where the kernel prints the `hypervisor` flag (flags_past_hypervisor), so the
    # flag's absence is read.
    hypervisor_flag_shown: bool = False
    # lscpu's `Frequency boost:` value (enabled, disabled): lscpu prints it from /sys/devices/system/cpu/cpufreq/boost,
    # so the line shows that file exists; "" where the line is not shown.
    frequency_boost: str = ""
    # lscpu's `CPU(s) scaling MHz:` line right after its `Stepping:` line (_STEPPING_THEN_SCALING): util-linux 2.38 and
    # later print it from a loaded cpufreq driver, with `Frequency boost:` between the two wherever cpufreq/boost
    # exists, so the two adjacent show there is no boost file.
    cpufreq_scaling: bool = False

    @property
    def hwp_capable(self) -> bool:
        """The CPU has HWP (Intel Speed Shift): its `hwp` flag is shown, or it is a Xeon model that has it
        (INTEL_HWP_XEON_MODELS), for a flags line cut before `hwp` or hidden by firmware."""
        return "hwp" in self.flags or (self.is_intel and self.family == 6 and self.model in INTEL_HWP_XEON_MODELS)

    @property
    def page_table_isolation(self) -> bool:
        """The kernel runs page-table isolation, its Meltdown mitigation: the CPU flags (/proc/cpuinfo, lscpu's Flags)
        show `pti`, a flag the kernel sets only when it enables PTI (X86_FEATURE_PTI, "Kernel Page Table Isolation
        enabled", arch/x86/include/asm/cpufeatures.h; Documentation/arch/x86/pti.rst).
        The microcode flags beside it (ibrs, ibpb, stibp, ssbd, md_clear, flush_l1d) show what the CPU can do, not
        what the kernel uses; a line without `pti` may be cut, or the CPU not affected: neither says PTI is off."""
        return "pti" in self.flags

    @property
    def is_amd(self) -> bool:
        return self.vendor == "AuthenticAMD" or "AMD" in self.model_name

    @property
    def is_intel(self) -> bool:
        return self.vendor == "GenuineIntel" or "Intel" in self.model_name


# Intel Xeon models (family 6, lscpu's `Model`, decimal) that have HWP, Intel Speed Shift (Intel SDM vol. 3B, 15.4:
# HWP came with Skylake): Skylake-SP, Cascade Lake and Cooper Lake 85, Ice Lake-SP 106, Ice Lake-D 108, Sapphire
# Rapids 143, Emerald Rapids 207, Granite Rapids 173 and 174, Sierra Forest 175 (the kernel's
# arch/x86/include/asm/intel-family.h). Broadwell and older Xeons (79, 86, 63) have none.
INTEL_HWP_XEON_MODELS = frozenset((85, 106, 108, 143, 173, 174, 175, 207))


# The CPU family (lscpu's `CPU family`, decimal) an AMD model name implies, where lscpu's own line is not shown (a
# hardware summary's CPU line, an lscpu excerpt): 23 (0x17) Zen, Zen+ and Zen 2, 25 (0x19) Zen 3 and Zen 4, 26 (0x1A)
# Zen 5 (https://en.wikipedia.org/wiki/List_of_AMD_CPU_microarchitectures). By the digit of the model number that names
# the generation: an EPYC's last (7xx1 Naples ... 9xx5 Turin, and the cloud parts 7V13, 9V84, 9J14:
# https://en.wikipedia.org/wiki/Epyc), a Threadripper's and a desktop Ryzen's first (Threadripper 1000-3000 Zen to
# Zen 2, 5000 and 7000 Zen 3 and Zen 4, 9000 Zen 5; desktop Ryzen 1000-4000, 5000, 7000-8000, 9000:
# https://en.wikipedia.org/wiki/List_of_AMD_Ryzen_processors). Mobile Ryzen (U, H, HS, HX) mix generations under
# one series and are left out.
_AMD_FAMILY_BY_NAME = (
    (re.compile(r"\bEPYC\s+\d\w\w(\d)[A-Z]{0,2}\b"), {"1": 23, "2": 23, "3": 25, "4": 25, "5": 26}),
    (re.compile(r"\bThreadripper\s+(?:PRO\s+)?(\d)\d{3}W?X\b"), {"1": 23, "2": 23, "3": 23, "5": 25, "7": 25, "9": 26}),
    (re.compile(r"\bRyzen\s+[3579]\s+(\d)\d{3}(?:X3D|XT|X|GT|GE|G|F)?(?=\s|$)"),
     {"1": 23, "2": 23, "3": 23, "4": 23, "5": 25, "7": 25, "8": 25, "9": 26}),
)


def amd_family(model_name: str) -> int | None:
    """The CPU family an AMD model name implies (_AMD_FAMILY_BY_NAME); None for any other name.

    >>> amd_family("AMD Ryzen Threadripper PRO 9985WX 64-Core"), amd_family("AMD EPYC 7763 64-Core Processor")
    (26, 25)
    """
    for pattern, families in _AMD_FAMILY_BY_NAME:
        if "AMD" in model_name and (m := pattern.search(model_name)):
            return families.get(m.group(1))
    return None


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    m = re.match(r"\s*(\d+)", value)
    return int(m.group(1)) if m else None


# lscpu prints `Hypervisor vendor:` (and `Virtualization type:`) after `BogoMIPS:` (and `Virtualization:`) and
# before its first cache line, in the flat layout (`L1d cache:`) and the nested one (`Caches (sum of all):`);
# util-linux sys-utils/lscpu.c (print_summary, lscpu-cputype.c since 2.38).
_BEFORE_HYPERVISOR = re.compile(r"^\s*BogoMIPS\s*:", re.M)
_AFTER_HYPERVISOR = re.compile(r"^\s*(?:L1d(?: cache)?|Caches \(sum of all\))\s*:", re.M)


def hypervisor_span_shown(text: str) -> bool:
    """Whether an lscpu text shows the lines around where lscpu prints `Hypervisor vendor:` (a `BogoMIPS` line, and a
    first cache line after it): an excerpt that holds them shows the hypervisor line, or shows that there is none."""
    before = _BEFORE_HYPERVISOR.search(text)
    return before is not None and _AFTER_HYPERVISOR.search(text, before.end()) is not None


# The kernel prints the CPU flags in the order of its feature words (arch/x86/include/asm/cpufeatures.h, each word's
# bits in turn): `hypervisor` is the last bit of word 4 (CPUID 1 ECX bit 31); these flags of later words print after it
# (lahf_lm, abm, 3dnowprefetch: word 6, CPUID 0x80000001 ECX; fsgsbase, bmi1, avx2, smep, bmi2, erms: word 9, CPUID 7
# EBX; dtherm, ida, arat, pln, pts: word 14, CPUID 6 EAX). A flags line that holds one of them shows the hypervisor
# flag where the CPU has it (corpus 2486: lscpu's Flags line alone, up to dtherm, without it: bare metal).
_AFTER_HYPERVISOR_FLAG = frozenset({"lahf_lm", "abm", "3dnowprefetch", "fsgsbase", "bmi1", "avx2", "smep", "bmi2",
                                    "erms", "dtherm", "ida", "arat", "pln", "pts"})


def flags_past_hypervisor(flags: frozenset[str]) -> bool:
    """Whether a flags line reaches past the kernel's `hypervisor` flag (_AFTER_HYPERVISOR_FLAG), so its absence
    there is read."""
    return not flags.isdisjoint(_AFTER_HYPERVISOR_FLAG)


# lscpu 2.38 and later print `Frequency boost:` (where cpufreq/boost exists) between `Stepping:` and `CPU(s) scaling
# MHz:` (lscpu-cputype.c print_summary; the boost line since 2.34, util-linux/util-linux#755): the two adjacent show
# there is no boost line.
_STEPPING_THEN_SCALING = re.compile(r"^[ \t]*Stepping:[^\n]*\n[ \t]*CPU\(s\) scaling MHz:", re.M)


def parse_lscpu(text: str) -> CpuInfo:
    """Parse `lscpu` (util-linux 2.3x format; older and newer key names)."""
    kv = key_value_lines(text)
    if "Architecture" not in kv and "Model name" not in kv and "CPU(s)" not in kv and "Hypervisor vendor" not in kv:
        raise ParseError("not the output of `lscpu`")
    vulns = tuple(
        (k[len("Vulnerability "):], v) for k, v in kv.items() if k.startswith("Vulnerability ")
    )
    return CpuInfo(
        vendor=kv.get("Vendor ID", ""),
        model_name=kv.get("Model name", ""),
        architecture=kv.get("Architecture", ""),
        family=_int(kv.get("CPU family")) if "CPU family" in kv else amd_family(kv.get("Model name", "")),
        model=_int(kv.get("Model")),
        cpus=_int(kv.get("CPU(s)")),
        sockets=_int(kv.get("Socket(s)")),
        cores_per_socket=_int(kv.get("Core(s) per socket")),
        threads_per_core=_int(kv.get("Thread(s) per core")),
        numa_nodes=_int(kv.get("NUMA node(s)")),
        hypervisor_vendor=kv.get("Hypervisor vendor", ""),
        virtualization_type=kv.get("Virtualization type", ""),
        flags=frozenset(kv.get("Flags", "").split()),
        vulnerabilities=vulns,
        hypervisor_span=hypervisor_span_shown(text),
        hypervisor_flag_shown=flags_past_hypervisor(frozenset(kv.get("Flags", "").split())),
        frequency_boost=kv.get("Frequency boost", "").strip(),
        cpufreq_scaling=_STEPPING_THEN_SCALING.search(text) is not None,
    )


fact("cpu", CpuInfo, first_of, hint="paste `lscpu`")


@parser(LSCPU, feeds="cpu", kind=CpuInfo, rank=10)
def cpu(text: str) -> CpuInfo:
    """CPU vendor, model, family, sockets and hypervisor (`lscpu`).

    Input (tests/data/captures/48, four of its lines)::

        NUMA node(s):        8
        Vendor ID:           AuthenticAMD
        CPU family:          23
        Model name:          AMD EPYC 7281 16-Core Processor
    """
    return parse_lscpu(text)


# A line of /proc/cpuinfo: a key the kernel prints (arch/x86/kernel/cpu/proc.c, show_cpuinfo), tabs, a colon.
_CPUINFO_LINE = re.compile(r"^\s*(processor|vendor_id|cpu family|model|model name|stepping|microcode|cpu MHz|"
                           r"cache size|physical id|siblings|core id|cpu cores|apicid|initial apicid|fpu|"
                           r"fpu_exception|cpuid level|wp|flags|vmx flags|bugs|bogomips|TLB size|clflush size|"
                           r"cache_alignment|address sizes|power management)\s*:[ \t]*(.*?)\s*$")


def cpuinfo_line(line: str) -> tuple[str, str] | None:
    """The key and value of a /proc/cpuinfo line (`model name\t: Intel(R) ...`); None for any other line."""
    m = _CPUINFO_LINE.match(line)
    return (m.group(1), m.group(2)) if m else None


@parser(PROC_CPUINFO, feeds="cpu", kind=CpuInfo, rank=15)
def cpu_from_proc_cpuinfo(text: str) -> CpuInfo:
    """CPU vendor, model and the kernel's feature flags (/proc/cpuinfo, its first processor).

    Input (tests/data/captures/1797, its flags line cut here; further on it holds `pti`)::

        model name      : Intel(R) Xeon(R) CPU E5-2683 v3 @ 2.00GHz
        flags           : fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush
    """
    kv: dict[str, str] = {}
    for line in text.splitlines():
        if (pair := cpuinfo_line(line)) is None:
            continue
        if pair[0] == "processor" and kv:
            break  # the next processor's block: the first one is the CPU's
        kv.setdefault(*pair)
    if "flags" not in kv and "model name" not in kv:
        raise ParseError("not /proc/cpuinfo")
    model_name = kv.get("model name", "")
    return CpuInfo(
        vendor=kv.get("vendor_id", ""),
        model_name=model_name,
        family=_int(kv.get("cpu family")) if "cpu family" in kv else amd_family(model_name),
        model=_int(kv.get("model")),
        flags=frozenset(kv.get("flags", "").split()),
        hypervisor_flag_shown=flags_past_hypervisor(frozenset(kv.get("flags", "").split())),
    )


# Machines that are no x86 CPU: an AMD or Intel x86 CPU reports x86_64 (or i686); these are Arm (aarch64, the Grace of
# a GH200 or GB200), POWER and IBM Z (https://www.kernel.org/doc/html/latest/arch/index.html).
NON_X86_MACHINES = frozenset(("aarch64", "arm64", "ppc64le", "s390x"))


@provider("cpu", CpuInfo, rank=20, title="the machine the kernel reports (`uname -m`, collect_env's `Python platform`)")
def cpu_from_kernel_machine(ctx: FactContext) -> CpuInfo:
    """The CPU's architecture where no lscpu is shown, from the machine the kernel reports (uname's, collect_env's
    `Python platform: Linux-6.11.0-152-crusoe-...-aarch64-with-glibc2.39`, corpus 863), for a machine that is no x86
    CPU (NON_X86_MACHINES): neither AMD nor Intel. An x86_64 machine says nothing of the vendor."""
    machine = ctx.fact("kernel", KernelInfo).machine
    if machine not in NON_X86_MACHINES:
        raise FactUnavailable("the kernel's machine names no CPU vendor" if machine else "the kernel's machine is not shown")
    return CpuInfo(architecture=machine)


# An Arm server CPU named in the user's words, or the machine word itself (`aarch64`, `arm64`): Ampere Computing's
# AmpereOne and Altra (https://amperecomputing.com/products/processors: Arm v8.6+ and v8.2+ cores) and AWS Graviton
# (https://aws.amazon.com/ec2/graviton/: Arm Neoverse cores). `Ampere` alone is also NVIDIA's GPU architecture: never it.
_STATED_ARM = re.compile(r"(?<![\w/.-])(aarch64|arm64|Ampere\s?One|Ampere\s+Altra(?:\s+Max)?|Graviton\s?\d?)(?![\w/-])", re.I)


def stated_arm_cpu(line: str) -> str:
    """The Arm CPU or machine a line of the user's words names (`Ampere One`, `aarch64`); "" where it names none."""
    m = _STATED_ARM.search(line)
    return m.group(1) if m else ""


@parser(USER_MACHINE, feeds="cpu", kind=CpuInfo, rank=90)
def cpu_from_user_words(text: str) -> CpuInfo:
    """An Arm CPU the user's words name (_STATED_ARM): an aarch64 machine, neither AMD nor Intel x86.

    Input (tests/data/captures/997)::

        System Im running on is Ampere One with H100 PCIe (2x H100 PCIe).
    """
    named = [n for line in text.splitlines() if (n := stated_arm_cpu(line))]
    if not named:
        raise ParseError("no Arm CPU named in the user's words")
    model = next((n for n in named if n.lower() not in ("aarch64", "arm64")), "")
    return CpuInfo(architecture="aarch64", model_name=model, complete=False)


# --- NUMA (sysfs) ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NumaNode:
    id: int
    cpus: tuple[int, ...]  # () where the source lists none (a CPU-less node, or `lscpu` without node lines)
    distances: tuple[int, ...] = ()  # () = not in the source (`lscpu` shows none)
    mem_total_kib: int | None = None  # None = not in the source


@dataclass(frozen=True)
class NumaTopology(Sourced):
    nodes: tuple[NumaNode, ...]

    @property
    def count(self) -> int:
        return len(self.nodes)

    def node_of_cpu(self, cpu_id: int) -> int | None:
        return self._node_by_cpu.get(cpu_id)

    def nodes_of(self, cpus: Iterable[int]) -> set[int]:
        """The nodes the CPUs sit on (a CPU no node lists is left out)."""
        return {n for c in cpus if (n := self._node_by_cpu.get(c)) is not None}

    @functools.cached_property
    def _node_by_cpu(self) -> dict[int, int]:
        """CPU -> its node (the first node listing it), built once: asked per CPU of every process."""
        out: dict[int, int] = {}
        for node in self.nodes:
            for cpu in node.cpus:
                out.setdefault(cpu, node.id)
        return out


fact("numa", NumaTopology, first_of, hint="paste `numactl -H` (or `lscpu`)")


@provider("numa", NumaTopology, rank=10, title=NODE_SYSFS.title)
def numa(ctx: FactContext) -> NumaTopology:
    """NUMA nodes with their CPUs, distances and memory (/sys/devices/system/node)."""
    base = NODE_SYSFS.path
    try:
        names = [n for n in ctx.host.list_dir(base) if re.fullmatch(r"node\d+", n)]
    except FileNotFoundError:
        # No NUMA support in the kernel: one node holds everything.
        return NumaTopology((NumaNode(0, ()),))
    nodes = []
    for name in sorted(names, key=lambda n: int(n[4:])):
        try:
            cpus = parse_cpulist(read_optional(ctx.host, f"{base}/{name}/cpulist") or "")
        except ParseError:
            cpus = ()
        dist_text = read_optional(ctx.host, f"{base}/{name}/distance") or ""
        distances = tuple(int(x) for x in dist_text.split() if x.isdecimal())
        meminfo = read_optional(ctx.host, f"{base}/{name}/meminfo") or ""
        m = re.search(r"MemTotal:\s+(\d+)\s*kB", meminfo)
        nodes.append(NumaNode(int(name[4:]), cpus, distances, int(m.group(1)) if m else None))
    if not nodes:
        raise FactUnavailable(f"{base} lists no nodes")
    return NumaTopology(tuple(nodes))


def _cpus(text: str) -> tuple[int, ...]:
    """A CPU list as numactl and lscpu print it; `--cpu-compress` appends a count: `0-15 (16)`."""
    return parse_cpulist(re.sub(r"\(\d+\)", "", text).replace(" ", ","))


@parser(NUMACTL_H, feeds="numa", kind=NumaTopology, rank=20)
def parse_numactl(text: str) -> NumaTopology:
    """NUMA nodes with their CPUs, memory and distances (`numactl -H`).

    Input (tests/data/captures/26, from its third line)::

        available: 2 nodes (0-1)
        node 0 cpus: 0-15 (16)
        node 0 size: 580088 MB
        node 0 free: 314825 MB
    """
    if re.search(r"^\s*No NUMA available", text, re.MULTILINE):
        return NumaTopology((NumaNode(0, ()),))
    cpus: dict[int, tuple[int, ...]] = {}
    mem: dict[int, int] = {}
    distances: dict[int, tuple[int, ...]] = {}
    columns: list[int] = []  # the distance table's column row: every node, where its rows are cut
    in_distances = False
    for line in text.splitlines():
        if m := re.match(r"^\s*node\s+(\d+)\s+cpus:\s*(.*)$", line):
            cpus[int(m.group(1))] = _cpus(m.group(2)) if m.group(2).strip() else ()
        elif m := re.match(r"^\s*node\s+(\d+)\s+size:\s*(\d+)\s*MB", line):
            mem[int(m.group(1))] = int(m.group(2)) * 1024
        elif line.strip().startswith("node distances"):
            in_distances = True
        elif in_distances and (m := re.match(r"^\s*(\d+):((?:\s+\d+)+)\s*$", line)):
            distances[int(m.group(1))] = tuple(int(x) for x in m.group(2).split())
        elif in_distances and re.match(r"^\s*node(?:\s+\d+)+\s*$", line):
            columns.extend(int(x) for x in line.split()[1:])
    if not cpus and distances:
        # The distance table alone (its node lines cut off, corpus 1239): the nodes its column row and its rows list,
        # their CPUs not shown.
        cpus = dict.fromkeys(sorted({*columns, *distances}), ())
    if not cpus:
        raise ParseError("not the output of `numactl -H`")
    return NumaTopology(tuple(NumaNode(n, cpus[n], distances.get(n, ()), mem.get(n)) for n in sorted(cpus)))


@parser(LSCPU, feeds="numa", kind=NumaTopology, rank=30)
def numa_from_lscpu(text: str) -> NumaTopology:
    """NUMA nodes and their CPUs (`lscpu`: node count and CPU lists; no distances, no memory).

    Input (tests/data/captures/48; the `NUMA nodeN CPU(s):` lines follow)::

        CPU(s):              32
        NUMA node(s):        8
    """
    kv = key_value_lines(text)
    per_node = {int(m.group(1)): v for k, v in kv.items() if (m := re.fullmatch(r"NUMA node(\d+) CPU\(s\)", k))}
    count = _int(kv.get("NUMA node(s)"))
    if count is None and not per_node:
        raise ParseError("`lscpu` shows no NUMA lines")
    # A cut paste keeps the count line above the node lists it lost: the count decides, the lists shown fill in.
    ids = sorted(set(per_node) | set(range(count or 0)))
    nodes = []
    for n in ids:
        try:
            node_cpus = _cpus(per_node[n]) if per_node.get(n) else ()
        except ParseError:
            node_cpus = ()
        nodes.append(NumaNode(n, node_cpus))
    if not nodes:
        raise ParseError("`lscpu` shows no NUMA nodes")
    return NumaTopology(tuple(nodes))


# numastat's column row (`numastat -m`, `numastat -p PID`): one `Node N` column per online node, then `Total`.
NUMASTAT_COLUMNS = re.compile(r"^\s*Node 0(?:\s+Node \d{1,4}){0,255}\s+Total\s*$")


@parser(NUMASTAT, feeds="numa", kind=NumaTopology, rank=40)
def numa_from_numastat(text: str) -> NumaTopology:
    """NUMA nodes by id (numastat's column row: every online node, no CPUs, distances or memory).

    Input (tests/data/captures/2475, from its line 26)::

                                   Node 0          Node 1           Total
    """
    header = next((line for line in text.splitlines() if NUMASTAT_COLUMNS.match(line)), None)
    if header is None:
        raise ParseError("no `Node 0 ... Total` column row of numastat")
    ids = [int(x) for x in re.findall(r"Node (\d+)", header)]
    return NumaTopology(tuple(NumaNode(n, ()) for n in sorted(set(ids))))


# --- kernel modules --------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadedModules(Sourced):
    names: frozenset[str]
    # Modules the source shows the kernel refusing to load (modprobe's `could not insert`, the loader's symbol lines):
    # not loaded, whatever else the source leaves open.
    refused: frozenset[str] = frozenset()

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def loaded(self, name: str) -> bool | None:
        """True if loaded; False where the source is whole (a grepped `lsmod` proves no absence) or shows the kernel
        refusing it."""
        if name in self.names:
            return True
        return False if self.complete or name in self.refused else None


def module_loaded(modules: LoadedModules | None, greps: EmptyGreps | None, name: str,
                  listed: ListingGreps | None = None) -> tuple[bool | None, str]:
    """Whether kernel module `name` is loaded, and the shown grep that says it is not: True where the list
    shows it; False where the list is whole (no grep to quote), where a grep of it was shown with no
    output ("`lsmod | grep nvidia_peermem` printed nothing"), or where a grep whose pattern matches it was shown with
    all it printed and does not list it ("`lsmod | grep nv` does not list it"); None otherwise (an excerpt of the list
    proves no absence)."""
    loaded = modules.loaded(name) if modules is not None else None
    if loaded is not None:
        return loaded, ""
    probe = f"{name} 16384 0"
    shown = greps.shown("lsmod", probe) if greps is not None else None
    if shown:
        return False, f"`{shown}` printed nothing"
    whole = listed.shown("lsmod", probe) if listed is not None and modules is not None else None
    return (False, f"`{whole}` does not list it") if whole else (None, "")


# The peer-memory clients that let RDMA HCAs read and write GPU memory: the driver's nvidia_peermem (R470 on) and
# Mellanox's nv_peer_mem (MLNX_OFED's nvidia-peer-memory package, before it), one registration each with ib_core.
PEER_MEMORY_MODULES = ("nvidia_peermem", "nv_peer_mem")


# The files a registered peer-memory client leaves under /sys (ib_core's peer_mem, `nv_mem` the client's name; NCCL's
# net_ib/gdr.cc tests these before it offers GPU Direct RDMA, and nvidia_peermem's own /sys/module version):
# https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib/gdr.cc
PEER_MEMORY_PATHS = ("/sys/kernel/mm/memory_peers/nv_mem/version", "/sys/kernel/mm/memory_peers/nv_mem_nc/version",
                     "/sys/module/nvidia_peermem/version")


def refused_peer_memory(modules: LoadedModules | None) -> str:
    """The first peer-memory module (PEER_MEMORY_MODULES) the source shows the kernel refusing to load; "" where
    none."""
    return next((m for m in PEER_MEMORY_MODULES if modules is not None and m in modules.refused), "")


def peer_memory_loaded(modules: LoadedModules | None, greps: EmptyGreps | None,
                       listed: ListingGreps | None = None, paths: PathTests | None = None) -> tuple[bool | None, str]:
    """Whether a peer-memory client is loaded, and the shown lines that settle it: the grep that says it is not
    (module_loaded), or the shell test that shows its /sys file present.

    True where the source shows either module of PEER_MEMORY_MODULES loaded, or a shell test shows one of the
    PEER_MEMORY_PATHS present. Otherwise nvidia_peermem's own state: nv_peer_mem is the legacy MLNX_OFED module that
    the driver's nvidia_peermem (R470 on) replaced: it counts only where shown.
    """
    if modules is not None and any(name in modules for name in PEER_MEMORY_MODULES):
        return True, ""
    if refused := refused_peer_memory(modules):
        return False, f"the kernel refused to load {refused}"
    present = [said for p in PEER_MEMORY_PATHS if paths is not None and (t := paths.exists(p)) is not None and t[0]
               for said in (t[1],)]
    if present:
        return True, present[0]
    return module_loaded(modules, greps, PEER_MEMORY_MODULES[0], listed)


def parse_proc_modules(text: str) -> LoadedModules:
    """Parse /proc/modules (also the body of `lsmod`, whose first line is a header).

    A module's users (the fourth column: `ib_core 357701 9 rdma_cm,nv_peer_mem,mlx5_ib`) are loaded modules too:
    the kernel lists only loaded modules that hold a reference on it, so a grepped line names them.
    """
    names = set()
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0] == "Module":
            continue
        if len(parts) >= 3 and parts[1].isdecimal():
            names.add(parts[0])
            if len(parts) >= 4 and parts[2].isdecimal():
                names.update(u for u in parts[3].split(",") if re.fullmatch(r"\w+", u))
    return LoadedModules(frozenset(names))


fact("modules", LoadedModules, first_of, hint="paste `lsmod`")


@provider("modules", LoadedModules, rank=10, title=PROC_MODULES.title)
def modules(ctx: FactContext) -> LoadedModules:
    """Loaded kernel modules (/proc/modules)."""
    text = read_optional(ctx.host, PROC_MODULES.path)
    if text is None:
        raise FactUnavailable("/proc/modules is missing (modules built in or not visible)")
    return parse_proc_modules(text)


@parser(LSMOD, feeds="modules", kind=LoadedModules, rank=20)
def modules_from_lsmod(text: str) -> LoadedModules:
    """Loaded kernel modules (`lsmod`: a header line, then one module a line).

    Input (tests/data/captures/71, an excerpt without the header)::

        nvidia_peermem         16384  0
    """
    found = parse_proc_modules(text)
    if not found.names:
        raise ParseError("no module in the `lsmod` output")
    return found


# A peer-memory client's own kernel lines from its peer-memory callbacks, prefixed with the client's name: MLNX_OFED's
# nv_peer_mem logs as `nv_mem`, the driver's nvidia_peermem as `nvidia-peermem` (`nv_mem nv_get_p2p_free_callback:155
# nv_get_p2p_free_callback -- invalid dma_mapping`, corpus 2428; `nvidia-peermem nv_get_p2p_free_callback:127 ERROR
# detected invalid context`, corpus 195). ib_core calls them only for GPU memory an RDMA NIC registered, so such a
# line shows the module loaded and serving an RDMA NIC (Mellanox/nv_peer_memory nv_peer_mem.c).
PEER_MEMORY_CALLBACK = re.compile(r"\b(nv_mem|nvidia-peermem) nv_(?:get_p2p_free_callback|mem_\w{1,40}|dma_\w{1,40})"
                                  r":\d{1,6}\b")
_CALLBACK_MODULE = {"nv_mem": "nv_peer_mem", "nvidia-peermem": "nvidia_peermem"}
# The peer-memory module refused at load: modprobe's `could not insert 'nvidia_peermem'`, the kernel loader's
# `nvidia_peermem: disagrees about version of symbol ...` / `Unknown symbol ... (err -22)` (a module built against
# another ib_core than the one loaded; corpus 2429, 2430).
PEER_MEMORY_REFUSED = re.compile(r"could not insert '(nvidia_peermem|nv_peer_mem)'|\b(nvidia_peermem|nv_peer_mem): "
                                 r"(?:disagrees about version of symbol|Unknown symbol) \w{1,80}")


def peer_memory_callbacks(log: KernelLog) -> dict[str, str]:
    """The peer-memory modules whose callback lines the kernel log shows (PEER_MEMORY_CALLBACK), each with its first
    line."""
    found: dict[str, str] = {}
    for needle in _CALLBACK_MODULE:
        for m in log.matches(PEER_MEMORY_CALLBACK, needle + " nv_"):
            found.setdefault(_CALLBACK_MODULE[m.group(1)], m.string.strip())
    return found


@provider("modules", LoadedModules, rank=90, title="a peer-memory module's own kernel lines, or its refusal")
def modules_from_kernel_log(ctx: FactContext) -> LoadedModules:
    """The peer-memory module whose callback lines the kernel log shows (nv_peer_mem's `nv_mem ...`, nvidia_peermem's
    `nvidia-peermem ...`): loaded; one the kernel log or a pasted line shows refused (PEER_MEMORY_REFUSED): not
    loaded. An excerpt of the module list (no other module's absence)."""
    log = ctx.optional("kernel_log", KernelLog)
    found = peer_memory_callbacks(log) if log is not None else {}
    texts = [log.text] if log is not None else []
    with contextlib.suppress(NotCaptured, FactUnavailable, OSError):
        texts.append(read_source(ctx.host, EVIDENCE_LINES))
    refused = {m.group(1) or m.group(2) for t in texts for line in t.splitlines()
               if "_pe" in line and (m := PEER_MEMORY_REFUSED.search(line[:LINE_LOOK_CHARS]))}
    if not found and not refused:
        raise FactUnavailable("the source shows no peer-memory module's own line or refusal")
    return LoadedModules(frozenset(found), refused=frozenset(refused - set(found)), complete=False)


@parser(USER_MACHINE, feeds="modules", kind=LoadedModules, rank=95)
def modules_from_user_words(text: str) -> LoadedModules:
    """The peer-memory module a line of the user's words says is loaded (stated_peer_memory_loaded): an excerpt of
    the module list.

    Input (tests/data/captures/2434)::

        These errors occur when running [NCCL-tests](https://github.com/NVIDIA/nccl-tests) with allreduce bandwidth test `nv_peer_mem` kernel module loaded.
    """
    said = {m for line in text.splitlines() if (m := stated_peer_memory_loaded(line))}
    if not said:
        raise ParseError("the user's words do not say a peer-memory module is loaded")
    return LoadedModules(frozenset(said), complete=False)


# --- kernel log ------------------------------------------------------------------------------


@dataclass(frozen=True)
class KernelLog(Sourced):
    """The kernel log's lines. `complete` only for a log from boot with no gap (kernel_log_is_whole)."""

    lines: tuple[str, ...]
    # The log as the source gave it, when its lines are exactly `lines` split at "\n": the very object the
    # host holds, so that whole-text scans need no copy of a 20 MB log ("" when it had other line breaks).
    raw: str = field(default="", repr=False, compare=False)

    @property
    def text(self) -> str:
        """The log as one text, its lines split at "\\n" (a trailing newline may end it)."""
        return self.raw or "\n".join(self.lines)

    def grep(self, pattern: str, flags: int = re.IGNORECASE, needles: Sequence[str] = ()) -> list[str]:
        """The lines `pattern` matches. `needles`: strings one of which every match holds (case
        ignored), so that only the lines holding one are searched — a long log is scanned once in C."""
        rx = re.compile(pattern, flags)
        if not needles:
            return [line for line in self.lines if rx.search(line)]
        lines = self.lines
        return [lines[i] for i in lines_holding(self.text, lines, needles) if rx.search(lines[i])]

    def matches(self, rx: re.Pattern[str], needle: str) -> Iterator[re.Match[str]]:
        """`rx`'s match in each line that holds `needle` (a cheap test before the pattern), in the log's order."""
        return (m for line in self.lines if needle in line and (m := rx.search(line)) is not None)

    def iommu_faults(self, bdfs: list[str]) -> list[str]:
        """DMAR / AMD-Vi fault lines naming one of these devices (logs drop the PCI domain: 41:00.0)."""
        short = {b.split(":", 1)[1] if b.count(":") == 2 else b for b in bdfs}
        return [line for line in self.any_iommu_fault() if any(s in line for s in short)]

    def any_iommu_fault(self) -> list[str]:
        """DMAR / AMD-Vi fault lines, whichever device they name."""
        # Every match holds "fault" (IO_PAGE_FAULT too, case ignored): a far rarer needle than "iommu", which
        # every device's "Adding to iommu group" line holds (1 500 lines on an 8-GPU node).
        return self.grep(r"DMAR:.*fault|AMD-Vi:.*IO_PAGE_FAULT|IOMMU.*fault", needles=("fault",))

    def driver_iovas(self) -> list[str]:
        """The NVIDIA driver's lines about its own IO virtual address spaces (`NVRM: GPU0 iovaspaceDestruct_IMPL: 1
        left-over mappings in IOVAS 0x100`): the driver's bookkeeping of a GPU's DMA mappings (its io_vaspace.c),
        logged as it tears one down with mappings still in it (after a failed init: NVIDIA/open-gpu-kernel-modules#1058;
        a P2P mapping a failed construct leaked: #1172), not an IOMMU's fault."""
        return self.grep(r"NVRM:.*\b(?:iovaspace\w*|IOVAS)\b", needles=("iovas",))


def kernel_log_is_whole(lines: Sequence[str]) -> bool:
    """Whether kernel-log lines are the whole log: they start at boot (`Linux version` within the first
    lines, as `[    0.000000] Linux version 6.8.0-45-generic ...`) and no line marks a gap (`[...]`, `--`).

    A ring buffer that wrapped on a long-running host starts later: it is an excerpt too, since the
    events of its first hours are gone.
    """
    first = list(itertools.islice((ln for ln in lines if ln.strip()), 3))
    if not any("Linux version" in ln for ln in first):
        return False
    return not has_gap_line(lines)  # blank lines are never gap lines


# What str.splitlines() breaks lines at besides "\n" (https://docs.python.org/3/library/stdtypes.html#str.splitlines).
_OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@provider("kernel_log", KernelLog, title=DMESG.title)
def kernel_log(ctx: FactContext) -> KernelLog:
    """The kernel ring buffer (`dmesg`); needs root where kernel.dmesg_restrict=1."""
    result = ctx.host.run(list(DMESG.argv))
    if result.not_found:
        raise FactUnavailable("dmesg is not installed", "install util-linux")
    if not result.ok:
        raise FactUnavailable("the kernel log is not readable by this user", "run as root")
    lines = tuple(result.stdout.splitlines())
    raw = "" if _OTHER_LINE_BREAKS.search(result.stdout) else result.stdout
    return KernelLog(lines, complete=kernel_log_is_whole(lines), raw=raw)


# --- sysctls ---------------------------------------------------------------------------------

# The sysctls the checks read; one provider reads them all so that a snapshot holds each once.
SYSCTL_KEYS = (
    "kernel.numa_balancing",
    "kernel.nmi_watchdog",
    "kernel.watchdog",
    "kernel.soft_watchdog",
    "kernel.sched_autogroup_enabled",
    "kernel.sched_rt_runtime_us",
    "kernel.dmesg_restrict",
    "kernel.osrelease",
    "kernel.hostname",
    "vm.swappiness",
    "vm.overcommit_memory",
    "vm.zone_reclaim_mode",
    "vm.max_map_count",
    "fs.file-max",
    "fs.nr_open",
)


@dataclass(frozen=True)
class Sysctls:
    """The values of SYSCTL_KEYS; a key in `absent` does not exist on this kernel, one in `unreadable`
    could not be read or is not in the source (a grepped `sysctl -a` says nothing of the keys it hid)."""

    values: dict[str, str]
    absent: frozenset[str] = frozenset()
    unreadable: frozenset[str] = frozenset()

    def get(self, key: str) -> str | None:
        return self.values.get(key)


fact("sysctls", Sysctls, first_of, hint=SYSCTL_A.hint)


def sysctl_path(key: str) -> str:
    return PROC_SYS.path + "/" + key.replace(".", "/")


@provider("sysctls", Sysctls, rank=10, title=PROC_SYS.title, hint=PROC_SYS.hint)
def sysctls(ctx: FactContext) -> Sysctls:
    """Kernel tunables the checks read (/proc/sys)."""
    values: dict[str, str] = {}
    absent: set[str] = set()
    unreadable: set[str] = set()
    not_captured: set[str] = set()
    for key in SYSCTL_KEYS:
        try:
            values[key] = read_text(ctx.host, sysctl_path(key)).strip()
        except FileNotFoundError:
            absent.add(key)
        except NotCaptured:
            not_captured.add(key)
        except OSError:  # permission denied (EACCES/EPERM) or an I/O error
            unreadable.add(key)
    if not_captured == set(SYSCTL_KEYS):
        # Nothing of /proc/sys in this source: "not in the source", and the next alternative may answer.
        raise NotCaptured(PROC_SYS.path)
    if not values and not absent:
        raise FactUnavailable(f"no key under {PROC_SYS.path} is readable", "run as root")
    return Sysctls(values, frozenset(absent), frozenset(unreadable | not_captured))


# `key = value` as `sysctl -a` prints it: dots separate the path, a slash stands for a dot in a name
# (net.ipv4.conf.eth0/100.rp_filter); top-level directories of /proc/sys only, so prose is not taken.
_SYSCTL_TOP = ("abi", "crypto", "debug", "dev", "fs", "kernel", "net", "sunrpc", "user", "vm")
SYSCTL_LINE = re.compile(rf"^\s*((?:{'|'.join(_SYSCTL_TOP)})\.[A-Za-z0-9_.\-/:@+]+) = (.*)$")
# What sysctl prints on stderr for a key it cannot read (interleaved with stdout in a terminal paste).
SYSCTL_CHATTER = re.compile(r"^\s*sysctl: (?:permission denied on key|reading key|cannot stat)\s*['\"]?([\w.\-/]+)")
# Keys a whole `sysctl -a` shows at least (kernel, vm and fs each have dozens); a grep shows far fewer.
SYSCTL_WHOLE_MIN_KEYS = 200


def parse_sysctl_lines(lines: Sequence[str]) -> tuple[dict[str, str], set[str]]:
    """(values by key, keys reported as unreadable) from `sysctl -a` lines; other lines ignored."""
    values: dict[str, str] = {}
    denied: set[str] = set()
    for line in lines:
        m = SYSCTL_LINE.match(line)
        if m:
            values.setdefault(m.group(1), m.group(2).rstrip())
            continue
        c = SYSCTL_CHATTER.match(line)
        if c:
            denied.add(c.group(1).strip("'\""))
    return values, denied


def sysctl_a_is_whole(values: dict[str, str]) -> bool:
    """Whether `sysctl -a` output is whole, not grepped: hundreds of keys from kernel, vm and fs."""
    tops = {k.split(".", 1)[0] for k in values}
    return len(values) >= SYSCTL_WHOLE_MIN_KEYS and {"kernel", "vm", "fs"} <= tops


@parser(SYSCTL_A, feeds="sysctls", kind=Sysctls, rank=20)
def sysctls_from_sysctl_a(text: str) -> Sysctls:
    """Kernel tunables the checks read (`sysctl -a`: a key a whole output lacks is absent; one a grep
    lacks is unknown).

    Input (tests/data/captures/88, from its first line)::

        kernel.numa_balancing_promote_rate_limit_MBps = 65536
        kernel.oops_all_cpu_backtrace = 0
        kernel.oops_limit = 10000
        kernel.osrelease = 6.5.0-1016-azure
    """
    values, denied = parse_sysctl_lines(text.splitlines())
    if not values and not denied:
        raise ParseError("no `key = value` line in the `sysctl -a` output")
    whole = sysctl_a_is_whole(values)
    wanted = {k: values[k] for k in SYSCTL_KEYS if k in values}
    missing = {k for k in SYSCTL_KEYS if k not in values and k not in denied}
    unreadable = {k for k in SYSCTL_KEYS if k in denied} | (set() if whole else missing)
    return Sysctls(wanted, frozenset(missing if whole else ()), frozenset(unreadable))


@dataclass(frozen=True)
class BbSwitch(Sourced):
    """The discrete GPUs that bbswitch switches on and off (/proc/acpi/bbswitch), each as (PCI address, powered on).

    bbswitch is the kernel module of Bumblebee, which powers an Optimus laptop's discrete GPU down while no program
    renders on it (https://github.com/Bumblebee-Project/bbswitch). The GPU's driver state goes with its power, and
    Bumblebee's unload of the nvidia module clears persistence mode (Bumblebee-Project/Bumblebee#207).
    """

    gpus: tuple[tuple[str, bool], ...]


fact("bbswitch", BbSwitch, first_of, hint=PROC_BBSWITCH.hint)

# bbswitch's /proc file prints each discrete GPU's address and state (`0000:01:00.0 ON`, `0000:01:00.0 OFF`).
BBSWITCH_LINE = re.compile(r"^\s*`?((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(ON|OFF)\s*`?\s*$")


@parser(PROC_BBSWITCH, feeds="bbswitch", kind=BbSwitch, rank=10)
def parse_bbswitch(text: str) -> BbSwitch:
    """The GPUs bbswitch lists and whether each is powered on.

    Input (tests/data/captures/1838; Bumblebee-Project/bbswitch#179 shows `0000:01:00.0 OFF`)::

        0000:01:00.0 ON
    """
    gpus = tuple((m.group(1).lower(), m.group(2) == "ON") for line in text.splitlines()[:64]
                 if (m := BBSWITCH_LINE.match(line)))
    if not gpus:
        raise ParseError("no `<PCI address> ON|OFF` line of /proc/acpi/bbswitch")
    return BbSwitch(gpus)
