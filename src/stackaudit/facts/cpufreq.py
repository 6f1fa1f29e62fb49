"""CPU frequency scaling (cpufreq) and CPU idle states (cpuidle), from sysfs or `cpupower`.

Reads a bounded, representative set: the governor and EPP of every cpufreq policy (one small
file each), the driver once (the kernel has one cpufreq driver at a time), the frequency
limits of up to FREQ_SAMPLE policies spread over the CPUs, the global boost/pstate knobs, and
the idle states of CPU 0 only. Where sysfs is not in the source, a pasted `cpupower frequency-info`
/ `cpupower idle-info` answers: it usually shows CPU 0 alone, so `CpuFreq.scope` then says "CPU 0"
and nothing is generalised to the other CPUs; what it cannot show (the intel_pstate knobs, the
available EPP values, the PM QoS limit) stays None and is listed in `unread`.
"""

from __future__ import annotations

import contextlib
import re
import struct
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from stackaudit.facts._parse import ParseError, format_cpulist, parse_cpulist, whole_int
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, parser, provider
from stackaudit.facts.sources import (
    CPU_DMA_LATENCY,
    CPUFREQ_SYSFS,
    CPUIDLE_SYSFS,
    CPUPOWER_FREQUENCY_INFO,
    CPUPOWER_IDLE_INFO,
    TUNED_ACTIVE_PROFILE,
)
from stackaudit.facts.sources import INTEL_IDLE_MAX_CSTATE as INTEL_IDLE_MAX_CSTATE_SOURCE
from stackaudit.host.base import Host, NotCaptured, read_text

CPUFREQ_DIR = CPUFREQ_SYSFS.path
CPU_SYS = CPUFREQ_DIR.rsplit("/", 1)[0]
CPUIDLE_DIR = CPUIDLE_SYSFS.path
BOOST = f"{CPUFREQ_DIR}/boost"
NO_TURBO = f"{CPU_SYS}/intel_pstate/no_turbo"
MAX_PERF_PCT = f"{CPU_SYS}/intel_pstate/max_perf_pct"
INTEL_PSTATE_STATUS = f"{CPU_SYS}/intel_pstate/status"
AMD_PSTATE_STATUS = f"{CPU_SYS}/amd_pstate/status"
# The global turbo switch each cpufreq driver has (the kernel's intel_pstate and cpufreq guides): intel_pstate, active
# or passive (intel_cpufreq), turns turbo off by no_turbo; acpi-cpufreq by cpufreq/boost. A policy's cpuinfo_max_freq
# does not show the switch's state.
TURBO_SWITCH = {"intel_pstate": NO_TURBO, "intel_cpufreq": NO_TURBO, "acpi-cpufreq": BOOST}
# How many policies have their frequency limits read (first, last and evenly spread between).
FREQ_SAMPLE = 8
# Upper bound on policies read at all (governor + EPP each): a 1024-CPU host reads 2048 tiny files.
MAX_POLICIES = 1024
TUNED_PROFILE = TUNED_ACTIVE_PROFILE.path
INTEL_IDLE_MAX_CSTATE = INTEL_IDLE_MAX_CSTATE_SOURCE.path
# PM QoS: no CPU latency constraint (PM_QOS_CPU_LATENCY_DEFAULT_VALUE, include/linux/pm_qos.h).
PM_QOS_NO_CONSTRAINT_US = 2_000_000_000

# Drivers whose "powersave" governor is their own dynamic algorithm steered by EPP (active mode).
ACTIVE_MODE_DRIVERS = ("intel_pstate", "amd-pstate-epp")


def intel_driver_from_lscpu(vendor: str, frequency_boost: str, cpufreq_scaling: bool = False) -> str | None:
    """The cpufreq driver of an Intel CPU whose lscpu shows `Frequency boost:` (CpuInfo.frequency_boost): acpi-cpufreq.

    lscpu prints the line from cpufreq/boost, which the kernel creates only for a driver with a global boost switch
    (cpufreq_boost_supported, drivers/cpufreq/cpufreq.c). On Intel x86 that is acpi-cpufreq: intel_pstate, active or
    passive, turns turbo off by intel_pstate/no_turbo instead (TURBO_SWITCH).
    Without the line where lscpu shows `CPU(s) scaling MHz:` right after `Stepping:` (CpuInfo.cpufreq_scaling: a
    cpufreq driver is loaded, and this lscpu prints `Frequency boost:` between the two wherever the file exists), the
    driver is intel_pstate (corpus 1868).
    None for another vendor, or where neither line is shown.

    >>> intel_driver_from_lscpu("GenuineIntel", "enabled"), intel_driver_from_lscpu("AuthenticAMD", "enabled")
    ('acpi-cpufreq', None)
    >>> intel_driver_from_lscpu("GenuineIntel", "", True), intel_driver_from_lscpu("GenuineIntel", "")
    ('intel_pstate', None)
    """
    if vendor != "GenuineIntel":
        return None
    if frequency_boost in ("enabled", "disabled"):
        return "acpi-cpufreq"
    return "intel_pstate" if cpufreq_scaling and not frequency_boost else None


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
    def turbo_switch_unshown(self) -> str | None:
        """The path of the driver's turbo switch (TURBO_SWITCH) where the source does not show it, else None."""
        switch = TURBO_SWITCH.get(self.driver or "")
        return switch if switch is not None and not self.knows(switch) else None

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
    def below_floor(self) -> tuple[CpuFreqPolicy, ...]:
        """The policies whose current frequency reads below their own lowest allowed one (scaling_min_freq, else
        cpuinfo_min_freq; 2 % tolerance): no governor picks such a speed, so a power or thermal limit under cpufreq
        (firmware, the platform profile, PROCHOT) holds the clock there."""
        return tuple(p for p in self.policies if p.cur_khz is not None
                     and (floor := p.scaling_min_khz or p.cpuinfo_min_khz) and p.cur_khz < floor * 0.98)

    @property
    def sampled(self) -> tuple[CpuFreqPolicy, ...]:
        """The policies whose frequency limits were read."""
        return tuple(p for p in self.policies if p.cpuinfo_max_khz is not None or p.scaling_max_khz is not None)

    @property
    def turbo_knobs(self) -> list[str]:
        """The turbo knobs the source shows, as `name=value`: intel_pstate's no_turbo and max_perf_pct, cpufreq's boost."""
        return [f"{name}={v}" for name, v in (("no_turbo", self.intel_no_turbo),
                                              ("max_perf_pct", self.intel_max_perf_pct), ("boost", self.boost))
                if v is not None]

    def turbo_caps(self) -> tuple[tuple[str, tuple[str, ...], str], ...]:
        """Each knob that turns turbo off or caps the frequency: (what, its evidence lines, the command that lifts it).
        A capped scaling_max_freq is named only where turbo is not switched off already."""
        caps: list[tuple[str, tuple[str, ...], str]] = []
        if self.intel_no_turbo == "1":
            caps.append(("turbo disabled (intel_pstate/no_turbo = 1)", (f"{NO_TURBO}: 1",), f"echo 0 > {NO_TURBO}"))
        if self.intel_max_perf_pct is not None and self.intel_max_perf_pct < 100:
            caps.append((f"intel_pstate/max_perf_pct = {self.intel_max_perf_pct} (capped)",
                         (f"{MAX_PERF_PCT}: {self.intel_max_perf_pct}",), f"echo 100 > {MAX_PERF_PCT}"))
        if self.boost == "0":
            caps.append(("boost disabled (cpufreq/boost = 0)", (f"{BOOST}: 0",), f"echo 1 > {BOOST}"))
        capped = [p for p in self.sampled if p.capped]
        if capped and not (self.intel_no_turbo == "1" or self.boost == "0"):
            caps.append((f"scaling_max_freq capped at {capped[0].scaling_max_khz} kHz (cpuinfo_max_freq "
                         f"{capped[0].cpuinfo_max_khz} kHz) on {len(capped)} of {len(self.sampled)} sampled policies",
                         tuple(f"{CPU_SYS}/cpufreq/{q.name}/scaling_max_freq: {q.scaling_max_khz}" for q in capped[:3]),
                         f"cpupower frequency-set -u {max(q.cpuinfo_max_khz or 0 for q in capped)}"))  # kHz
        return tuple(caps)


def _policy_index(name: str) -> int:
    return int(name[len("policy"):])


def _sample(names: list[str], n: int) -> set[str]:
    if len(names) <= n:
        return set(names)
    step = (len(names) - 1) / (n - 1)
    return {names[round(i * step)] for i in range(n)}


fact("cpufreq", CpuFreq, first_of, hint=CPUPOWER_FREQUENCY_INFO.hint)


@provider("cpufreq", CpuFreq, rank=10, title=CPUFREQ_SYSFS.title, hint=CPUFREQ_SYSFS.hint)
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
                kw[attr] = whole_int(_read(host, f"{base}/{file}", unread))
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
        intel_max_perf_pct=whole_int(_read(host, MAX_PERF_PCT, unread)),
        intel_min_perf_pct=whole_int(_read(host, f"{CPU_SYS}/intel_pstate/min_perf_pct", unread)),
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


fact("cpuidle", CpuIdle, first_of, hint=CPUPOWER_IDLE_INFO.hint)


@provider("cpuidle", CpuIdle, rank=10, title=CPUIDLE_SYSFS.title, hint=CPUIDLE_SYSFS.hint)
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
    driver = _read(host, f"{CPUIDLE_DIR}/current_driver", unread)
    governor = _read(host, f"{CPUIDLE_DIR}/current_governor_ro", unread) or _read(
        host, f"{CPUIDLE_DIR}/current_governor", unread
    )
    states: list[IdleState] = []
    for entry in sorted((e for e in entries if re.fullmatch(r"state\d+", e)), key=lambda e: int(e[5:]))[:32]:
        sbase = f"{base}/{entry}"
        states.append(
            IdleState(
                index=int(entry[5:]),
                name=_read(host, f"{sbase}/name", unread) or entry,
                desc=_read(host, f"{sbase}/desc", unread) or "",
                latency_us=whole_int(_read(host, f"{sbase}/latency", unread)),
                residency_us=whole_int(_read(host, f"{sbase}/residency", unread)),
                disabled=(_read(host, f"{sbase}/disable", unread) or "0") not in ("0", ""),
            )
        )
    pm_qos: int | None = None
    try:
        pm_qos = parse_pm_qos(host.read_bytes(CPU_DMA_LATENCY.path, 64))
    except (OSError, NotCaptured, ParseError):
        pm_qos = None
    tuned = _read(host, TUNED_PROFILE, unread)
    return CpuIdle(
        driver=driver,
        governor=governor,
        states=tuple(states),
        intel_idle_max_cstate=whole_int(_read(host, INTEL_IDLE_MAX_CSTATE, unread)),
        pm_qos_limit_us=pm_qos,
        tuned_profile=tuned or None,
        unread=frozenset(unread),
    )


# --- pasted `cpupower frequency-info` ----------------------------------------------------------------

_ANALYZING = re.compile(r"^\s*analyzing CPU (\d+):\s*$", re.IGNORECASE)
_FREQ = re.compile(r"(\d+(?:[.,]\d+)?)\s*([kMG]Hz)")


def is_analyzing_line(line: str) -> bool:
    """`analyzing CPU 0:`, the line each CPU's block of `cpupower frequency-info` / `idle-info` starts with."""
    return bool(_ANALYZING.match(line))


def to_khz(text: str) -> int | None:
    """`1.20 GHz` / `800 MHz` / `408 MHz` -> kHz."""
    m = _FREQ.search(text)
    if not m:
        return None
    value = float(m.group(1).replace(",", "."))
    return round(value * {"kHz": 1, "MHz": 1000, "GHz": 1_000_000}[m.group(2)])


@dataclass
class FreqCpu:
    """One CPU's block of `cpupower frequency-info`; frequencies in kHz, None = not shown."""

    cpu: int
    driver: str | None = None
    no_driver: bool = False
    hw_min: int | None = None
    hw_max: int | None = None
    governors: str | None = None
    pol_min: int | None = None
    pol_max: int | None = None
    governor: str | None = None
    cur: int | None = None
    epp: str | None = None
    boost_supported: bool | None = None
    boost_active: bool | None = None
    lines: list[str] = field(default_factory=list)


def parse_frequency_info(lines: Sequence[str]) -> list[FreqCpu]:
    """Parse the per-CPU blocks of `cpupower frequency-info` (any number of CPUs)."""
    cpus: list[FreqCpu] = []
    cur: FreqCpu | None = None
    policy_text = ""
    in_boost = False
    for line in lines:
        m = _ANALYZING.match(line)
        if m:
            cur = FreqCpu(int(m.group(1)))
            cpus.append(cur)
            policy_text = ""
            in_boost = False
            continue
        if cur is None:
            continue
        s = line.strip()
        key, _, value = s.partition(":")
        key_l = key.strip().lower()
        value = value.strip()
        if "no or unknown cpufreq driver is active" in s.lower():
            cur.no_driver = True
        elif key_l == "driver":
            cur.driver = value or None
        elif key_l == "hardware limits":
            lo, _, hi = value.partition(" - ")
            cur.hw_min, cur.hw_max = to_khz(lo), to_khz(hi)
        elif key_l == "available cpufreq governors":
            cur.governors = value
        elif key_l == "energy performance preference":
            cur.epp = value.split()[0] if value else None
        elif key_l == "current policy" or (policy_text and not cur.governor and "governor" in s.lower()):
            policy_text += " " + s
            pm = re.search(r"within\s+([\d.,]+\s*[kMG]Hz)\s+and\s+([\d.,]+\s*[kMG]Hz)", policy_text)
            if pm:
                cur.pol_min, cur.pol_max = to_khz(pm.group(1)), to_khz(pm.group(2))
            gm = re.search(r'governor\s+"([^"]+)"', policy_text)
            if gm:
                cur.governor = gm.group(1)
        elif key_l == "current cpu frequency" or key_l.startswith("current cpu frequency is "):
            # cpufrequtils' cpufreq-info prints `current CPU frequency is 400 MHz.` (no colon).
            khz = to_khz(value or s)
            # "asserted by call to kernel" is scaling_cur_freq; the hardware reading only if nothing else.
            if khz is not None and ("kernel" in value or cur.cur is None):
                cur.cur = khz
        elif key_l == "boost state support":
            in_boost = True
        elif in_boost and key_l == "supported":
            cur.boost_supported = value.lower().startswith("yes")
        elif in_boost and key_l == "active":
            cur.boost_active = value.lower().startswith("yes")
        cur.lines.append(line)
    return cpus


# The sysfs file each policy field mirrors: a field the paste does not show is listed in `unread` under it.
_POLICY_FILES = (("governor", "scaling_governor"), ("epp", "energy_performance_preference"),
                 ("scaling_min_khz", "scaling_min_freq"), ("scaling_max_khz", "scaling_max_freq"),
                 ("cur_khz", "scaling_cur_freq"), ("cpuinfo_min_khz", "cpuinfo_min_freq"),
                 ("cpuinfo_max_khz", "cpuinfo_max_freq"))


@parser(CPUPOWER_FREQUENCY_INFO, feeds="cpufreq", kind=CpuFreq, rank=20)
def cpufreq_from_cpupower(text: str) -> CpuFreq:
    """CPU frequency driver, governor, EPP, limits and boost of the CPUs shown (`cpupower frequency-info`).

    Input (tests/data/captures/27, four of its lines)::

        analyzing CPU 0:
          driver: intel_pstate
          hardware limits: 1.20 GHz - 3.00 GHz
          available cpufreq governors: performance powersave
    """
    blocks = parse_frequency_info(text.splitlines())
    if not blocks:
        raise ParseError("no `analyzing CPU N:` block in the `cpupower frequency-info` output")
    by_cpu = {b.cpu: b for b in blocks if not b.no_driver}  # a CPU shown twice: its last block
    unread = {f"{CPU_SYS}/present", f"{CPU_SYS}/intel_pstate/min_perf_pct", MAX_PERF_PCT,
              INTEL_PSTATE_STATUS, AMD_PSTATE_STATUS}
    policies: list[CpuFreqPolicy] = []
    for n in sorted(by_cpu):
        b = by_cpu[n]
        policy = CpuFreqPolicy(name=f"policy{n}", cpus=(n,), governor=b.governor, epp=b.epp,
                               scaling_min_khz=b.pol_min, scaling_max_khz=b.pol_max, cur_khz=b.cur,
                               cpuinfo_min_khz=b.hw_min, cpuinfo_max_khz=b.hw_max)
        unread.update(f"{CPUFREQ_DIR}/{policy.name}/{file}" for attr, file in _POLICY_FILES
                      if getattr(policy, attr) is None)
        policies.append(policy)
    first = by_cpu[min(by_cpu)] if by_cpu else None
    if first is not None:
        if first.driver is None:
            unread.add(f"{CPUFREQ_DIR}/{policies[0].name}/scaling_driver")
        if first.governors is None:
            unread.add(f"{CPUFREQ_DIR}/{policies[0].name}/scaling_available_governors")
        unread.add(f"{CPUFREQ_DIR}/{policies[0].name}/energy_performance_available_preferences")
    # "boost state support: Active": the global knob, intel_pstate's no_turbo (inverted) or cpufreq/boost.
    boost: str | None = None
    no_turbo: str | None = None
    for b in by_cpu.values():
        if b.boost_active is not None and b.boost_supported is not False:
            if b.driver == "intel_pstate":
                no_turbo = "0" if b.boost_active else "1"
            else:
                boost = "1" if b.boost_active else "0"
    if boost is None:
        unread.add(BOOST)
    if no_turbo is None:
        unread.add(NO_TURBO)
    return CpuFreq(
        driver=((first.driver or "") if first is not None else None),
        policies=tuple(policies),
        cpus_present=None,
        available_governors=tuple((first.governors or "").split()) if first is not None else (),
        boost=boost,
        intel_no_turbo=no_turbo,
        unread=frozenset(unread),
    )


# --- pasted `cpupower idle-info` ---------------------------------------------------------------------


@dataclass
class IdleStateText:
    name: str
    disabled: bool
    desc: str = ""
    latency: int | None = None
    residency: int | None = None


@dataclass
class IdleInfo:
    driver: str | None = None
    governor: str | None = None
    cpu: int = 0
    states: list[IdleStateText] = field(default_factory=list)
    no_states: bool = False
    declared_states: int | None = None  # "Number of idle states: N"


_STATE_HEAD = re.compile(r"^([A-Za-z0-9_\-]+)(\s*\(DISABLED\)\s*)?\s*:\s*$")


def parse_idle_info(lines: Sequence[str]) -> IdleInfo:
    """Parse `cpupower idle-info` (the first CPU shown: cpuidle of CPU 0 normally)."""
    info = IdleInfo()
    seen_cpu = False
    cur: IdleStateText | None = None
    for line in lines:
        s = line.strip()
        if s.startswith("CPUidle driver:"):
            info.driver = s.partition(":")[2].strip() or None
            continue
        if s.startswith("CPUidle governor:"):
            info.governor = s.partition(":")[2].strip() or None
            continue
        m = _ANALYZING.match(line)
        if m:
            if seen_cpu:
                break  # only the first CPU's states are recorded
            seen_cpu = True
            info.cpu = int(m.group(1))
            continue
        if re.match(r"CPU \d+: No idle states", s):
            info.no_states = True
            continue
        if n := re.match(r"Number of idle states:\s*(\d+)$", s):
            info.declared_states = int(n.group(1))
            continue
        hm = _STATE_HEAD.match(s)
        if hm and not s.lower().startswith(("flags", "latency", "residency", "usage", "duration")):
            cur = IdleStateText(hm.group(1), bool(hm.group(2)))
            info.states.append(cur)
            continue
        if cur is None:
            continue
        key, _, value = s.partition(":")
        value = value.strip()
        if key == "Flags/Description":
            cur.desc = value
        elif key == "Latency" and value.isdecimal():
            cur.latency = int(value)
        elif key == "Residency" and value.isdecimal():
            cur.residency = int(value)
    return info


@parser(CPUPOWER_IDLE_INFO, feeds="cpuidle", kind=CpuIdle, rank=20)
def cpuidle_from_cpupower(text: str) -> CpuIdle:
    """CPU idle states of the first CPU shown with their exit latencies (`cpupower idle-info`; no PM QoS
    limit, no tuned profile).

    Input (https://github.com/elektricM/amd-bc250-docs/pull/61, the `before:` output in tempura-san's description)::

        CPUidle driver: acpi_idle
        CPUidle governor: menu
        analyzing CPU 12:

        Number of idle states: 4
        Available idle states: POLL C1 C2 C3
    """
    info = parse_idle_info(text.splitlines())
    if not (info.states or info.no_states or info.driver):
        raise ParseError("no idle states and no cpuidle driver in the `cpupower idle-info` output")
    unread = {TUNED_PROFILE, INTEL_IDLE_MAX_CSTATE}
    if info.driver is None:
        unread.add(f"{CPUIDLE_DIR}/current_driver")
    if info.governor is None:
        unread.update((f"{CPUIDLE_DIR}/current_governor_ro", f"{CPUIDLE_DIR}/current_governor"))
    base = f"{CPU_SYS}/cpu{info.cpu}/cpuidle"
    for i, st in enumerate(info.states):
        unread.update(f"{base}/state{i}/{name}" for name, value in (("latency", st.latency),
                                                                   ("residency", st.residency)) if value is None)
    states = tuple(IdleState(i, st.name, st.desc, st.latency, st.residency, st.disabled)
                   for i, st in enumerate(info.states[:32]))
    return CpuIdle(driver=info.driver, governor=info.governor, states=states, unread=frozenset(unread))
