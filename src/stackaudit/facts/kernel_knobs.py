"""Kernel runtime knobs the KERN/KVER checks read: THP, vmstat, swap, IRQs, CPU isolation,
CPU vulnerabilities, scheduler pressure and stale tunables, the NVIDIA kernel module, RDMA.

Every read is small and bounded (a few dozen files, at most MAX_IRQS interrupt affinities).
"""

from __future__ import annotations

import contextlib
import posixpath
import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError, parse_cpulist
from stackaudit.facts.nvidia import parse_proc_version
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.registry import (
    FactContext,
    FactUnavailable,
    fact,
    parser,
    provider,
    read_source,
    sample_field,
)
from stackaudit.facts.sources import (
    EVIDENCE_LINES,
    IRQBALANCE_ACTIVE,
    MODINFO_NVIDIA_VERSION,
    PROC_INTERRUPTS,
    PROC_VMSTAT,
)
from stackaudit.host.base import Host, NotCaptured, list_or_none, read_or_none, read_text
from stackaudit.pci_address import BDF

MAX_IRQS = 512
MAX_CONFIG_FILES = 64




# --- transparent huge pages ------------------------------------------------------------------

THP_DIR = "/sys/kernel/mm/transparent_hugepage"


@dataclass(frozen=True)
class ThpSettings:
    enabled: str  # the bracketed (active) value: always | madvise | never; "unsupported" (no THP)
    defrag: str | None  # always | defer | defer+madvise | madvise | never; None if not readable
    enabled_raw: str = ""
    defrag_raw: str = ""


def parse_thp_mode(text: str) -> str:
    """`always [madvise] never` -> `madvise` (the active value is bracketed)."""
    m = re.search(r"\[([a-z+]+)\]", text)
    if m:
        return m.group(1)
    words = text.split()
    if len(words) == 1 and re.fullmatch(r"[a-z+]+", words[0]):
        return words[0]
    raise ParseError(f"not a THP mode line: {text[:80]!r}")


@provider("thp", ThpSettings)
def thp(ctx: FactContext) -> ThpSettings:
    """Transparent huge page modes (/sys/kernel/mm/transparent_hugepage/{enabled,defrag})."""
    try:
        enabled_raw = read_text(ctx.host, f"{THP_DIR}/enabled", 4096).strip()
    except FileNotFoundError:
        return ThpSettings("unsupported", None)
    try:
        enabled = parse_thp_mode(enabled_raw)
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc
    defrag_raw = (read_or_none(ctx.host, f"{THP_DIR}/defrag") or "").strip()
    try:
        defrag: str | None = parse_thp_mode(defrag_raw) if defrag_raw else None
    except ParseError:
        defrag = None
    return ThpSettings(enabled, defrag, enabled_raw, defrag_raw)


# --- /proc/vmstat and uptime ----------------------------------------------------------------

VMSTAT_KEYS = (
    "compact_stall",
    "compact_fail",
    "compact_success",
    "thp_fault_alloc",
    "thp_fault_fallback",
    "numa_hint_faults",
    "numa_hint_faults_local",
    "numa_pages_migrated",
    "pswpin",
    "pswpout",
    "pgmajfault",
)


@dataclass(frozen=True)
class VmStat:
    counters: dict[str, int] = sample_field(default_factory=dict)
    uptime_s: float | None = sample_field()

    def get(self, key: str) -> int | None:
        return self.counters.get(key)

    def per_hour(self, key: str) -> float | None:
        value = self.counters.get(key)
        if value is None or not self.uptime_s or self.uptime_s <= 0:
            return None
        return value / (self.uptime_s / 3600)


def parse_vmstat(text: str) -> dict[str, int]:
    """/proc/vmstat `name value` lines; only the counters the checks read."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdecimal() and parts[0] in VMSTAT_KEYS:
            out[parts[0]] = int(parts[1])
    if not out and text.strip():
        raise ParseError("not /proc/vmstat")
    return out


def parse_uptime(text: str) -> float:
    m = re.match(r"\s*(\d+(?:\.\d+)?)\s", text + " ")
    if not m:
        raise ParseError("not /proc/uptime")
    return float(m.group(1))


@provider("vmstat", VmStat)
def vmstat(ctx: FactContext) -> VmStat:
    """Memory event counters since boot (/proc/vmstat: compaction, THP, NUMA faults, swap) and uptime."""
    text = read_source(ctx.host, PROC_VMSTAT)
    try:
        counters = parse_vmstat(text)
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc
    uptime: float | None = None
    up_text = read_or_none(ctx.host, "/proc/uptime")
    if up_text:
        try:
            uptime = parse_uptime(up_text)
        except ParseError:
            uptime = None
    return VmStat(counters, uptime)


# --- swap ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwapDevice:
    name: str
    kind: str
    size_kib: int
    used_kib: int = sample_field(0)


@dataclass(frozen=True)
class SwapInfo:
    devices: tuple[SwapDevice, ...]
    total_kib: int | None = None  # /proc/meminfo SwapTotal
    free_kib: int | None = sample_field()

    @property
    def enabled(self) -> bool:
        return bool(self.devices) or bool(self.total_kib)

    @property
    def used_kib(self) -> int:
        if self.total_kib is not None and self.free_kib is not None:
            return max(self.total_kib - self.free_kib, 0)
        return sum(d.used_kib for d in self.devices)


def parse_proc_swaps(text: str) -> tuple[SwapDevice, ...]:
    """/proc/swaps: a header, then `Filename Type Size Used Priority` rows (KiB)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not lines[0].startswith("Filename"):
        raise ParseError("not /proc/swaps")
    devices = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) < 4 or not (parts[2].isdecimal() and parts[3].isdecimal()):
            raise ParseError(f"bad /proc/swaps row {line[:80]!r}")
        devices.append(SwapDevice(parts[0].replace("\\040", " "), parts[1], int(parts[2]), int(parts[3])))
    return tuple(devices)


def _meminfo_kib(text: str, key: str) -> int | None:
    m = re.search(rf"^{key}:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(m.group(1)) if m else None


@provider("swap", SwapInfo)
def swap(ctx: FactContext) -> SwapInfo:
    """Swap devices and usage (/proc/swaps, /proc/meminfo SwapTotal/SwapFree)."""
    text = read_or_none(ctx.host, "/proc/swaps")
    meminfo = read_or_none(ctx.host, "/proc/meminfo") or ""
    if text is None and not meminfo:
        raise FactUnavailable("neither /proc/swaps nor /proc/meminfo is in this source")
    devices: tuple[SwapDevice, ...] = ()
    if text is not None:
        try:
            devices = parse_proc_swaps(text)
        except ParseError as exc:
            if not meminfo:
                raise FactUnavailable(str(exc)) from exc
    return SwapInfo(devices, _meminfo_kib(meminfo, "SwapTotal"), _meminfo_kib(meminfo, "SwapFree"))


# The summary lines of `top` and `free`, pasted on their own: the same SwapTotal and SwapFree as /proc/meminfo (both
# read it), in the unit each prints. top's header (procps-ng: `MiB Swap: 0.0 total, 0.0 free, 0.0 used. 1977538.+avail
# Mem`, `KiB Swap:  8388604 total,        0 used,  8388604 free.` in 3.3.9's order; procps 3.2: `Swap:  2097144k total,
# 0k used, ...`; a `+` marks a figure cut to fit) and free's `Swap:` row (`total used free`), read where it carries
# its unit (free -h: `0B`, `976Mi`, `8.0Gi`; older free -h: `2.0G`). A bare row (`Swap: 0 0 0`) is left: free prints
# KiB, MiB or whole GiB (-g, which truncates: its 0 is under 1 GiB, not none) as its flag says, and the row does not.
_UNIT_KIB = {"": 1, "B": 1 / 1024, "K": 1, "M": 1024, "G": 1024**2, "T": 1024**3, "P": 1024**4}
TOP_SWAP = re.compile(r"^\s*(?:(?P<unit>[KMGTP])iB\s+)?Swap:(?P<rest>(?:\s*[\d.]+\+?k?\s*(?:total|free|used)[,.]?){3})")
_TOP_FIGURE = re.compile(r"([\d.]+)\+?(k?)\s*(total|free|used)")
FREE_SWAP = re.compile(r"^\s*Swap:\s+(?P<total>[\d.]+[KMGTP]?i?B?)\s+(?P<used>[\d.]+[KMGTP]?i?B?)"
                       r"\s+(?P<free>[\d.]+[KMGTP]?i?B?)\s*$")
SWAP_NEEDLE = "Swap:"


def _sized_kib(figure: str) -> int | None:
    """KiB of one of free -h's sizes (`0B`, `976Mi`, `8.0Gi`, `2.0G`); None for a bare figure, whose unit free's
    flag set."""
    m = re.fullmatch(r"([\d.]+)([KMGTP]?)(i?)(B?)", figure)
    if m is None or not (m.group(2) or m.group(4)):
        return None
    return round(float(m.group(1)) * _UNIT_KIB[m.group(2) or "B"])


def swap_summary(line: str) -> tuple[int, int] | None:
    """SwapTotal and SwapFree (KiB) a summary line of top or free shows; None for any other line, and for a figure
    too coarse to tell none from some (a zero in GiB, a row without its unit)."""
    if SWAP_NEEDLE not in line:
        return None
    top = TOP_SWAP.match(line)
    if top:
        figures = {key: (float(v), k) for v, k, key in _TOP_FIGURE.findall(top.group("rest"))}
        if set(figures) != {"total", "free", "used"}:
            return None
        unit = _UNIT_KIB[top.group("unit") or ("K" if figures["total"][1] else "")]
        total, free = (round(figures[k][0] * unit) for k in ("total", "free"))
        if total == 0 and figures["total"][0] == 0 and unit > 1024:
            return None  # `GiB Swap: 0.0 total`: under 52 MiB, not none
        return total, free
    row = FREE_SWAP.match(line)
    if row:
        sizes = [_sized_kib(row.group(k)) for k in ("total", "free")]
        if sizes[0] is None or sizes[1] is None:
            return None
        return sizes[0], sizes[1]
    return None


fact("swap", SwapInfo)


@parser(EVIDENCE_LINES, feeds="swap", kind=SwapInfo, rank=30)
def swap_from_summary_lines(text: str) -> SwapInfo:
    """Swap size and use from top's or free's summary line, pasted on its own.

    Input (tests/data/captures/1214)::

        MiB Swap: 0.0 total, 0.0 free, 0.0 used. 1977538.+avail Mem
    """
    found = [s for line in text.splitlines() if (s := swap_summary(line)) is not None]
    if not found:
        raise ParseError("no summary line of top or free with its swap")
    if len(set(found)) > 1 and len({t for t, _ in found}) > 1:
        raise ParseError("summary lines of top or free with different swap sizes: not one host's")
    total, free = found[-1]
    return SwapInfo((), total, free)


# --- interrupts ------------------------------------------------------------------------------

# NIC queue interrupts: mlx5/mlx4 name their PCI function; Intel/Broadcom name the interface.
_NIC_IRQ_RE = re.compile(
    rf"(?P<name>(?:mlx[45]_(?:comp|async)\d*|mlx4-\S+)@pci:(?P<bdf>{BDF})"
    r"|(?:ice|i40e|ixgbe|bnxt_en|efa|irdma)\S*|\S+-(?:TxRx|rx|tx)-\d+)"
)


@dataclass(frozen=True)
class Irq:
    number: int
    name: str
    total: int
    bdf: str | None = None
    affinity: tuple[int, ...] | None = None  # effective (or requested) CPUs; None if not read


@dataclass(frozen=True)
class IrqInfo:
    irqbalance: str | None  # "active" | "inactive" | None (unknown)
    nic_irqs: tuple[Irq, ...]
    nvidia_irqs: int = 0
    cpus: int | None = None  # CPU columns of /proc/interrupts
    # NUMA node of each NIC function named by its IRQs (/sys/bus/pci/devices/<bdf>/numa_node).
    nic_nodes: dict[str, int] | None = None


def parse_interrupts(text: str) -> tuple[int, list[tuple[int, int, str]]]:
    """/proc/interrupts -> (CPU columns, [(irq, total count, rest of line)]) for numbered IRQs."""
    lines = text.splitlines()
    if not lines or not lines[0].split() or not lines[0].split()[0].startswith("CPU"):
        raise ParseError("not /proc/interrupts")
    ncpu = len(lines[0].split())
    rows: list[tuple[int, int, str]] = []
    for line in lines[1:]:
        head, colon, rest = line.partition(":")
        if not colon or not head.strip().isdecimal():
            continue
        fields = rest.split()
        counts = []
        for f in fields[:ncpu]:
            if not f.isdecimal():
                break
            counts.append(int(f))
        tail = " ".join(fields[len(counts):])
        rows.append((int(head.strip()), sum(counts), tail))
    return ncpu, rows


def _irqbalance_state(host: Host) -> str | None:
    try:
        result = host.run(list(IRQBALANCE_ACTIVE.argv))
    except NotCaptured:
        return None
    state = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
    if state == "active":
        return "active"
    if state in ("inactive", "failed", "unknown", "dead"):
        return "inactive"
    return None


@provider("irqs", IrqInfo)
def irqs(ctx: FactContext) -> IrqInfo:
    """NIC queue interrupts with their CPU affinity (/proc/interrupts, /proc/irq) and irqbalance."""
    host = ctx.host
    text = read_source(host, PROC_INTERRUPTS)
    try:
        ncpu, rows = parse_interrupts(text)
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc
    nic: list[Irq] = []
    nvidia = 0
    for number, total, tail in rows:
        if re.search(r"\bnvidia\b", tail):
            nvidia += 1
        m = _NIC_IRQ_RE.search(tail)
        if not m or len(nic) >= MAX_IRQS:
            continue
        affinity: tuple[int, ...] | None = None
        for fname in ("effective_affinity_list", "smp_affinity_list"):
            value = read_or_none(host, f"/proc/irq/{number}/{fname}")
            if value and value.strip():
                try:
                    affinity = parse_cpulist(value)
                    break
                except ParseError:
                    continue
        nic.append(Irq(number, m.group(0), total, (m.group("bdf") or "").lower() or None, affinity))
    nodes: dict[str, int] = {}
    for bdf in sorted({q.bdf for q in nic if q.bdf})[:32]:
        # Read through the resolved device path, never beneath the /sys/bus/pci/devices symlink,
        # so that a snapshot can hold the link and the device's files side by side.
        try:
            real = posixpath.normpath(posixpath.join("/sys/bus/pci/devices", host.readlink(f"/sys/bus/pci/devices/{bdf}")))
        except (OSError, NotCaptured):
            continue
        text = (read_or_none(host, f"{real}/numa_node") or "").strip()
        if text.lstrip("-").isdecimal():
            nodes[bdf] = int(text)
    return IrqInfo(_irqbalance_state(host), tuple(nic), nvidia, ncpu, nodes)


# --- CPU isolation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuIsolation:
    isolated: tuple[int, ...] | None  # /sys/devices/system/cpu/isolated (isolcpus domain CPUs)
    nohz_full: tuple[int, ...] | None
    online: tuple[int, ...] | None = None


def _cpulist_file(host: Host, path: str) -> tuple[int, ...] | None:
    text = read_or_none(host, path)
    if text is None:
        return None
    text = text.strip()
    if text in ("", "(null)"):
        return ()
    try:
        return parse_cpulist(text)
    except ParseError:
        return None


@provider("cpu_isolation", CpuIsolation)
def cpu_isolation(ctx: FactContext) -> CpuIsolation:
    """CPUs removed from scheduler load balancing or tick (/sys/devices/system/cpu/{isolated,nohz_full})."""
    base = "/sys/devices/system/cpu"
    return CpuIsolation(
        _cpulist_file(ctx.host, f"{base}/isolated"),
        _cpulist_file(ctx.host, f"{base}/nohz_full"),
        _cpulist_file(ctx.host, f"{base}/online"),
    )


# --- CPU vulnerabilities ---------------------------------------------------------------------


@dataclass(frozen=True)
class Vulnerabilities:
    entries: tuple[tuple[str, str], ...]  # (name, kernel's text), e.g. ("spectre_v2", "Mitigation: ...")

    def mitigated(self) -> list[str]:
        return [n for n, t in self.entries if t.startswith("Mitigation")]

    def vulnerable(self) -> list[str]:
        return [n for n, t in self.entries if t.startswith("Vulnerable")]


@provider("vulnerabilities", Vulnerabilities)
def vulnerabilities(ctx: FactContext) -> Vulnerabilities:
    """CPU vulnerabilities and their mitigations (/sys/devices/system/cpu/vulnerabilities)."""
    base = "/sys/devices/system/cpu/vulnerabilities"
    try:
        names = ctx.host.list_dir(base)
    except FileNotFoundError as exc:
        raise FactUnavailable(f"{base} is missing (old kernel)") from exc
    entries = []
    for name in names[:64]:
        text = read_or_none(ctx.host, f"{base}/{name}")
        if text is not None:
            entries.append((name, text.strip()))
    return Vulnerabilities(tuple(entries))


# --- scheduler pressure and stale tunables ---------------------------------------------------

# Moved from /proc/sys/kernel to /sys/kernel/debug/sched in Linux 5.13 (commit 8a99b6833c88).
MOVED_SCHED_KNOBS = (
    "sched_min_granularity_ns",
    "sched_latency_ns",
    "sched_wakeup_granularity_ns",
    "sched_migration_cost_ns",
    "sched_nr_migrate",
    "sched_tunable_scaling",
)
SYSCTL_CONF_DIRS = ("/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d")


@dataclass(frozen=True)
class SchedState:
    psi_some_avg10: float | None = sample_field()  # /proc/pressure/cpu, percent
    psi_some_avg60: float | None = sample_field()
    kernel_sched_knobs: tuple[str, ...] | None = None  # /proc/sys/kernel/sched_*; None if not listed
    # (file, line number, key) of sysctl config lines setting a knob moved to debugfs.
    stale_config: tuple[tuple[str, int, str], ...] = ()
    tuned_profile: str | None = None


def parse_psi(text: str) -> tuple[float, float]:
    """`some avg10=1.23 avg60=...` -> (avg10, avg60) of the `some` line."""
    m = re.search(r"^some\s+avg10=(\d+(?:\.\d+)?)\s+avg60=(\d+(?:\.\d+)?)", text, re.MULTILINE)
    if not m:
        raise ParseError("not a /proc/pressure file")
    return float(m.group(1)), float(m.group(2))


def stale_sysctl_lines(path: str, text: str) -> list[tuple[str, int, str]]:
    """Lines of a sysctl config that set a scheduler knob moved to debugfs (5.13+)."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        line = line.strip().lstrip("-")
        if not line or line.startswith(("#", ";")):
            continue
        key = line.partition("=")[0].strip().replace("/", ".")
        if key.startswith("kernel.") and key[len("kernel."):] in MOVED_SCHED_KNOBS:
            out.append((path, i, key))
    return out


@provider("sched", SchedState, title="/proc/pressure/cpu, /proc/sys/kernel")
def sched(ctx: FactContext) -> SchedState:
    """CPU pressure (PSI), scheduler sysctls present, and config lines writing knobs moved to debugfs."""
    host = ctx.host
    psi10: float | None = None
    psi60: float | None = None
    psi_text = read_or_none(host, "/proc/pressure/cpu")
    if psi_text:
        with contextlib.suppress(ParseError):
            psi10, psi60 = parse_psi(psi_text)
    listed = list_or_none(host, "/proc/sys/kernel")
    knobs = None if listed is None else tuple(n for n in listed if n.startswith("sched_"))
    stale: list[tuple[str, int, str]] = []
    files = ["/etc/sysctl.conf"]
    for d in SYSCTL_CONF_DIRS:
        files.extend(f"{d}/{n}" for n in list_or_none(host, d) or () if n.endswith(".conf"))
    for path in files[:MAX_CONFIG_FILES]:
        text = read_or_none(host, path)
        if text:
            stale.extend(stale_sysctl_lines(path, text))
    tuned = (read_or_none(host, "/etc/tuned/active_profile") or "").strip() or None
    if psi_text is None and knobs is None and not stale and tuned is None:
        raise FactUnavailable("no scheduler information (/proc/pressure/cpu, /proc/sys/kernel) in this source")
    return SchedState(psi10, psi60, knobs, tuple(stale), tuned)


# --- NVIDIA kernel module and RDMA -----------------------------------------------------------


@dataclass(frozen=True)
class NvidiaKernel:
    loaded_version: str | None  # /sys/module/nvidia/version (module loaded)
    open_module: bool | None  # /proc/driver/nvidia/version says "Open Kernel Module"
    uvm_disable_hmm: str | None  # /sys/module/nvidia_uvm/parameters/uvm_disable_hmm (Y/N/1/0)
    # When not loaded: `modinfo -F version nvidia` (module built for the running kernel?).
    installed_version: str | None = None
    modinfo_rc: int | None = None
    proc_version: str = ""

    @property
    def version(self) -> str | None:
        return self.loaded_version or self.installed_version

    @property
    def major(self) -> int | None:
        v = self.version
        m = re.match(r"(\d+)\.", v or "")
        return int(m.group(1)) if m else None


# A line of `dkms status` for the NVIDIA module built and installed for a kernel: dkms 2's `nvidia-current, 470.199.02,
# 5.10.0-26-amd64, x86_64: installed` (Debian's package name, NVIDIA/nvidia-container-toolkit#171, corpus 1336) and
# dkms 3's `nvidia/535.104.05, 6.2.0-32-generic, x86_64: installed`. It names the kernel the module was built for, not
# the running one: after a kernel update whose build failed the same line lists only the old kernel.
DKMS_INSTALLED = re.compile(r"^\W*nvidia(?:-current|-open|-srl)?(?:, |/)(\d{3}\.\d+(?:\.\d+)?), "
                            r"(\d+\.\d+[\w.+~-]*), (?:x86_64|aarch64|arm64|ppc64le): installed\b")


def dkms_installed(line: str) -> tuple[str, str] | None:
    """(module version, kernel) of a `dkms status` line for the NVIDIA module installed for a kernel (DKMS_INSTALLED).

    >>> dkms_installed("`nvidia-current, 470.199.02, 5.10.0-26-amd64, x86_64: installed`")
    ('470.199.02', '5.10.0-26-amd64')
    >>> dkms_installed("nvidia/535.104.05, 6.2.0-32-generic, x86_64: installed")
    ('535.104.05', '6.2.0-32-generic')
    >>> dkms_installed("nvidia/550.54.14: added") is None
    True
    """
    m = DKMS_INSTALLED.match(line.strip())
    return (m.group(1), m.group(2)) if m else None


def _dkms_version(host: Host) -> str | None:
    """The one NVIDIA module version pasted `dkms status` lines show installed (dkms_installed), None where none or
    several."""
    try:
        text = host.doc(EVIDENCE_LINES.name)
    except NotCaptured:
        return None
    versions = {found[0] for line in text.splitlines() if (found := dkms_installed(line)) is not None}
    return versions.pop() if len(versions) == 1 else None


@provider("nvidia_kernel", NvidiaKernel, title="/sys/module/nvidia, `modinfo nvidia`")
def nvidia_kernel(ctx: FactContext) -> NvidiaKernel:
    """The NVIDIA kernel module: loaded version, open or proprietary flavour, UVM HMM setting."""
    host = ctx.host
    loaded = (read_or_none(host, "/sys/module/nvidia/version") or "").strip() or None
    proc = read_or_none(host, "/proc/driver/nvidia/version") or ""
    open_module: bool | None = None
    if proc:
        try:
            version, flavour = parse_proc_version(proc)
            open_module = None if flavour is None else flavour == "open"
            loaded = loaded or version
        except ParseError:
            pass
    hmm = (read_or_none(host, "/sys/module/nvidia_uvm/parameters/uvm_disable_hmm") or "").strip() or None
    installed: str | None = None
    rc: int | None = None
    pci = ctx.optional("pci", PciDevices) if loaded is None else None
    # modinfo only where it can tell something: an NVIDIA GPU without a loaded module.
    if loaded is None and pci is not None and pci.nvidia_gpus:
        try:
            result = host.run(list(MODINFO_NVIDIA_VERSION.argv))
        except NotCaptured:
            result = None
        if result is not None and not result.not_found:
            rc = result.returncode
            installed = result.stdout.strip() or None if result.ok else None
    if loaded is None and installed is None:
        # A pasted `dkms status`: the module built for some kernel, installed, not shown loaded.
        installed = _dkms_version(host)
    return NvidiaKernel(loaded, open_module, hmm, installed, rc, proc.strip().splitlines()[0] if proc.strip() else "")
