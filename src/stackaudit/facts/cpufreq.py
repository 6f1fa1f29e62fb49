"""CPU frequency scaling (cpufreq) and CPU idle states (cpuidle), from sysfs.

Reads a bounded, representative set: the governor and EPP of every cpufreq policy (one small
file each), the driver once (the kernel has one cpufreq driver at a time), the frequency
limits of up to FREQ_SAMPLE policies spread over the CPUs, the global boost/pstate knobs, and
the idle states of CPU 0 only. A pasted `cpupower frequency-info` usually shows CPU 0 alone:
`CpuFreq.scope` then says "CPU 0" and nothing is generalised to the other CPUs.
"""

from __future__ import annotations

import contextlib
import re
import struct
from collections import Counter
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError, format_cpulist, parse_cpulist
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.host.base import Host, NotCaptured, read_text

CPU_SYS = "/sys/devices/system/cpu"
CPUFREQ_DIR = f"{CPU_SYS}/cpufreq"
BOOST = f"{CPUFREQ_DIR}/boost"
NO_TURBO = f"{CPU_SYS}/intel_pstate/no_turbo"
MAX_PERF_PCT = f"{CPU_SYS}/intel_pstate/max_perf_pct"
INTEL_PSTATE_STATUS = f"{CPU_SYS}/intel_pstate/status"
AMD_PSTATE_STATUS = f"{CPU_SYS}/amd_pstate/status"
# How many policies have their frequency limits read (first, last and evenly spread between).
FREQ_SAMPLE = 8
# Upper bound on policies read at all (governor + EPP each): a 1024-CPU host reads 2048 tiny files.
MAX_POLICIES = 1024
# PM QoS: no CPU latency constraint (PM_QOS_CPU_LATENCY_DEFAULT_VALUE, include/linux/pm_qos.h).
PM_QOS_NO_CONSTRAINT_US = 2_000_000_000

# Drivers whose "powersave" governor is their own dynamic algorithm steered by EPP (active mode).
ACTIVE_MODE_DRIVERS = ("intel_pstate", "amd-pstate-epp")


def _read(host: Host, path: str, unread: set[str]) -> str | None:
    """A sysfs value stripped, None when absent; unreadable or not captured goes to `unread`."""
    try:
        return read_text(host, path, 4096).strip()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except (PermissionError, NotCaptured):
        unread.add(path)
        return None
    except OSError:
        # Some sysfs files answer EIO/EINVAL on read (e.g. scaling_cur_freq on offline CPUs).
        unread.add(path)
        return None


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    return int(value) if re.fullmatch(r"-?\d+", value) else None


# --- cpufreq ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuFreqPolicy:
    """One cpufreq policy (`policyN`: N is its first CPU). Frequencies in kHz; None = not read."""

    name: str
    cpus: tuple[int, ...]
    governor: str | None = None
    epp: str | None = None
    scaling_min_khz: int | None = None
    scaling_max_khz: int | None = None
    cur_khz: int | None = None
    cpuinfo_min_khz: int | None = None
    cpuinfo_max_khz: int | None = None

    @property
    def capped(self) -> bool:
        """scaling_max_freq clearly below cpuinfo_max_freq (2 % tolerance for rounded sources)."""
        if self.scaling_max_khz is None or self.cpuinfo_max_khz is None:
            return False
        return self.scaling_max_khz < self.cpuinfo_max_khz * 0.98


@dataclass(frozen=True)
class CpuFreq:
    """cpufreq state. `driver` None with no policies: no cpufreq driver is loaded."""

    driver: str | None
    policies: tuple[CpuFreqPolicy, ...]
    cpus_present: tuple[int, ...] | None = None  # /sys/devices/system/cpu/present; None if unknown
    available_governors: tuple[str, ...] = ()
    available_epp: tuple[str, ...] = ()
    boost: str | None = None  # /sys/devices/system/cpu/cpufreq/boost ("1" on, "0" off)
    intel_pstate_status: str | None = None  # active | passive | off
    intel_no_turbo: str | None = None
    intel_max_perf_pct: int | None = None
    intel_min_perf_pct: int | None = None
    amd_pstate_status: str | None = None  # active | passive | guided | disable
    unread: frozenset[str] = frozenset()

    @property
    def present(self) -> bool:
        return bool(self.policies)

    def knows(self, path: str) -> bool:
        """False when `path` could not be read or is not in the source (its None means unknown)."""
        return path not in self.unread

    @property
    def covered_cpus(self) -> tuple[int, ...]:
        return tuple(sorted({c for p in self.policies for c in p.cpus}))

    @property
    def complete(self) -> bool:
        """Every present CPU is covered (False when the source shows only some CPUs)."""
        if self.cpus_present is None:
            return False
        return set(self.cpus_present) <= set(self.covered_cpus)

    @property
    def scope(self) -> str:
        """What the values describe: "all 64 CPUs", "CPU 0", "CPUs 0-3 (of 64)"."""
        covered = self.covered_cpus
        if not covered:
            return "no CPU"
        if self.complete and self.cpus_present is not None:
            return f"all {len(self.cpus_present)} CPUs" if len(self.cpus_present) > 1 else "CPU 0"
        label = f"CPU {covered[0]}" if len(covered) == 1 else f"CPUs {format_cpulist(covered)}"
        if self.cpus_present is not None:
            return f"{label} (of {len(self.cpus_present)})"
        return label

    @property
    def active_mode(self) -> bool:
        """intel_pstate / amd-pstate-epp own the P-state selection (powersave = EPP-driven)."""
        return self.driver in ACTIVE_MODE_DRIVERS

    def governors(self) -> Counter[str]:
        return Counter(p.governor for p in self.policies if p.governor)

    def epps(self) -> Counter[str]:
        return Counter(p.epp for p in self.policies if p.epp)

    def cpus_with(self, attr: str, values: set[str] | tuple[str, ...]) -> tuple[int, ...]:
        return tuple(sorted(c for p in self.policies if getattr(p, attr) in values for c in p.cpus))

    @property
    def sampled(self) -> tuple[CpuFreqPolicy, ...]:
        """The policies whose frequency limits were read."""
        return tuple(p for p in self.policies if p.cpuinfo_max_khz is not None or p.scaling_max_khz is not None)


def _policy_index(name: str) -> int:
    return int(name[len("policy"):])


def _sample(names: list[str], n: int) -> set[str]:
    if len(names) <= n:
        return set(names)
    step = (len(names) - 1) / (n - 1)
    return {names[round(i * step)] for i in range(n)}


@provider("cpufreq", CpuFreq)
def cpufreq(ctx: FactContext) -> CpuFreq:
    """CPU frequency driver, governors, EPP, limits and boost (/sys/devices/system/cpu/cpufreq)."""
    host = ctx.host
    unread: set[str] = set()
    try:
        entries = host.list_dir(CPUFREQ_DIR)
    except FileNotFoundError:
        entries = []
    except PermissionError as exc:
        raise FactUnavailable(f"{CPUFREQ_DIR} is not readable", "run as root") from exc
    names = sorted((e for e in entries if re.fullmatch(r"policy\d+", e)), key=_policy_index)[:MAX_POLICIES]
    present_text = _read(host, f"{CPU_SYS}/present", unread)
    try:
        cpus_present = parse_cpulist(present_text) if present_text else None
    except ParseError:
        cpus_present = None
    sample = _sample(names, FREQ_SAMPLE)
    policies: list[CpuFreqPolicy] = []
    driver: str | None = None
    governors_avail: tuple[str, ...] = ()
    epp_avail: tuple[str, ...] = ()
    for i, name in enumerate(names):
        base = f"{CPUFREQ_DIR}/{name}"
        if i == 0:
            driver = _read(host, f"{base}/scaling_driver", unread)
            governors_avail = tuple((_read(host, f"{base}/scaling_available_governors", unread) or "").split())
            epp_avail = tuple(
                (_read(host, f"{base}/energy_performance_available_preferences", unread) or "").split()
            )
        cpus: tuple[int, ...] = (_policy_index(name),)
        kw: dict[str, int | None] = {}
        if name in sample:
            with contextlib.suppress(ParseError):
                cpus = parse_cpulist(_read(host, f"{base}/affected_cpus", unread) or "") or cpus
            for attr, file in (
                ("scaling_min_khz", "scaling_min_freq"),
                ("scaling_max_khz", "scaling_max_freq"),
                ("cur_khz", "scaling_cur_freq"),
                ("cpuinfo_min_khz", "cpuinfo_min_freq"),
                ("cpuinfo_max_khz", "cpuinfo_max_freq"),
            ):
                kw[attr] = _int(_read(host, f"{base}/{file}", unread))
        policies.append(
            CpuFreqPolicy(
                name=name,
                cpus=cpus,
                governor=_read(host, f"{base}/scaling_governor", unread),
                epp=_read(host, f"{base}/energy_performance_preference", unread),
                **kw,
            )
        )
    return CpuFreq(
        driver=(driver or "") if names else None,
        policies=tuple(policies),
        cpus_present=cpus_present,
        available_governors=governors_avail,
        available_epp=epp_avail,
        boost=_read(host, BOOST, unread),
        intel_pstate_status=_read(host, INTEL_PSTATE_STATUS, unread),
        intel_no_turbo=_read(host, NO_TURBO, unread),
        intel_max_perf_pct=_int(_read(host, MAX_PERF_PCT, unread)),
        intel_min_perf_pct=_int(_read(host, f"{CPU_SYS}/intel_pstate/min_perf_pct", unread)),
        amd_pstate_status=_read(host, AMD_PSTATE_STATUS, unread),
        unread=frozenset(unread),
    )


# --- cpuidle ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class IdleState:
    index: int
    name: str
    desc: str = ""
    latency_us: int | None = None
    residency_us: int | None = None
    disabled: bool = False


@dataclass(frozen=True)
class CpuIdle:
    """cpuidle of CPU 0 (idle-set applies to all CPUs alike), PM QoS and the hints around it."""

    driver: str | None  # intel_idle | acpi_idle | haltpoll | none | None (unknown)
    governor: str | None
    states: tuple[IdleState, ...]
    intel_idle_max_cstate: int | None = None
    # Effective CPU latency limit in µs from /dev/cpu_dma_latency (None: not readable).
    pm_qos_limit_us: int | None = None
    tuned_profile: str | None = None  # /etc/tuned/active_profile
    unread: frozenset[str] = frozenset()

    @property
    def pm_qos_constrained(self) -> bool:
        return self.pm_qos_limit_us is not None and self.pm_qos_limit_us < PM_QOS_NO_CONSTRAINT_US

    def enabled(self) -> tuple[IdleState, ...]:
        return tuple(s for s in self.states if not s.disabled)


def parse_pm_qos(data: bytes) -> int:
    """/dev/cpu_dma_latency reads as a native 32-bit integer (µs); some tools store it as text."""
    if len(data) == 4:
        return int(struct.unpack("<i", data)[0])
    text = data.decode("ascii", errors="replace").strip()
    if re.fullmatch(r"\d+", text):
        return int(text)
    if re.fullmatch(r"0x[0-9a-fA-F]{1,8}", text):
        return int(text, 16)
    raise ParseError(f"unexpected /dev/cpu_dma_latency content {data[:16]!r}")


@provider("cpuidle", CpuIdle, title="/sys/devices/system/cpu/cpuidle")
def cpuidle(ctx: FactContext) -> CpuIdle:
    """CPU idle states of CPU 0 with their exit latencies, the PM QoS limit and the tuned profile."""
    host = ctx.host
    unread: set[str] = set()
    base = f"{CPU_SYS}/cpu0/cpuidle"
    try:
        entries = host.list_dir(base)
    except (FileNotFoundError, NotADirectoryError):
        entries = []
    except PermissionError as exc:
        raise FactUnavailable(f"{base} is not readable", "run as root") from exc
    driver = _read(host, f"{CPU_SYS}/cpuidle/current_driver", unread)
    governor = _read(host, f"{CPU_SYS}/cpuidle/current_governor_ro", unread) or _read(
        host, f"{CPU_SYS}/cpuidle/current_governor", unread
    )
    states: list[IdleState] = []
    for entry in sorted((e for e in entries if re.fullmatch(r"state\d+", e)), key=lambda e: int(e[5:]))[:32]:
        sbase = f"{base}/{entry}"
        states.append(
            IdleState(
                index=int(entry[5:]),
                name=_read(host, f"{sbase}/name", unread) or entry,
                desc=_read(host, f"{sbase}/desc", unread) or "",
                latency_us=_int(_read(host, f"{sbase}/latency", unread)),
                residency_us=_int(_read(host, f"{sbase}/residency", unread)),
                disabled=(_read(host, f"{sbase}/disable", unread) or "0") not in ("0", ""),
            )
        )
    pm_qos: int | None = None
    try:
        pm_qos = parse_pm_qos(host.read_bytes("/dev/cpu_dma_latency", 64))
    except (OSError, NotCaptured, ParseError):
        pm_qos = None
    tuned = _read(host, "/etc/tuned/active_profile", unread)
    return CpuIdle(
        driver=driver,
        governor=governor,
        states=tuple(states),
        intel_idle_max_cstate=_int(_read(host, "/sys/module/intel_idle/parameters/max_cstate", unread)),
        pm_qos_limit_us=pm_qos,
        tuned_profile=tuned or None,
        unread=frozenset(unread),
    )
