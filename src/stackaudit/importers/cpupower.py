"""`cpupower frequency-info` and `cpupower idle-info` pasted into a report -> cpufreq/cpuidle sysfs.

Only the CPUs the output shows are written (usually CPU 0 alone); /sys/devices/system/cpu/present
is not, so the facts say "CPU 0" rather than generalising to the whole machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial

from stackaudit.host.memory import HostRecord
from stackaudit.importers.registry import Found, importer, record_file

CPU = "/sys/devices/system/cpu"
_PROMPT = re.compile(r"^\s*(?:\S*[$#>]\s*)?(?:sudo\s+)?cpupower\b")
_ANALYZING = re.compile(r"^\s*analyzing CPU (\d+):\s*$", re.IGNORECASE)
_FREQ = re.compile(r"(\d+(?:[.,]\d+)?)\s*([kMG]Hz)")


def to_khz(text: str) -> int | None:
    """`1.20 GHz` / `800 MHz` / `408 MHz` -> kHz."""
    m = _FREQ.search(text)
    if not m:
        return None
    value = float(m.group(1).replace(",", "."))
    return round(value * {"kHz": 1, "MHz": 1000, "GHz": 1_000_000}[m.group(2)])


# --- frequency-info --------------------------------------------------------------------------


@dataclass
class FreqCpu:
    cpu: int
    driver: str | None = None
    no_driver: bool = False
    affected: str | None = None
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


_FREQ_KEYS = re.compile(
    r"^\s*(driver|CPUs which run at the same hardware frequency|CPUs which need to have their frequency "
    r"coordinated by software|maximum transition latency|hardware limits|available frequency steps|available "
    r"cpufreq governors|current policy|current CPU frequency|boost state support|energy performance preference|"
    r"Supported|Active|The governor|within this range|amd-pstate limits|AMD PSTATE|Highest Performance|Nominal "
    r"Performance|Lowest|Preferred Core|\d+ MHz max turbo|no or unknown cpufreq driver|frequency should be|"
    r"\*is offline|Not Available|Boost States|Pstate-)",
    re.IGNORECASE,
)


def parse_frequency_info(lines: list[str]) -> list[FreqCpu]:
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
        elif key_l.startswith("cpus which run at the same hardware frequency"):
            cur.affected = value
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
        elif key_l == "current cpu frequency":
            khz = to_khz(value)
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


def _write_frequency(record: HostRecord, cpus: list[FreqCpu]) -> None:
    policies = sorted({f"policy{c.cpu}" for c in cpus if not c.no_driver})
    record.dirs[f"{CPU}/cpufreq"] = sorted(set(record.dirs.get(f"{CPU}/cpufreq", [])) | set(policies))
    for c in cpus:
        if c.no_driver:
            continue
        base = f"{CPU}/cpufreq/policy{c.cpu}"
        values = {
            "scaling_driver": c.driver,
            "affected_cpus": str(c.cpu),
            "scaling_governor": c.governor,
            "scaling_available_governors": c.governors,
            "cpuinfo_min_freq": c.hw_min,
            "cpuinfo_max_freq": c.hw_max,
            "scaling_min_freq": c.pol_min,
            "scaling_max_freq": c.pol_max,
            "scaling_cur_freq": c.cur,
            "energy_performance_preference": c.epp,
        }
        for name, value in values.items():
            if value is not None:
                record_file(record, f"{base}/{name}", f"{value}\n")
        if c.boost_active is not None and c.boost_supported is not False:
            if c.driver == "intel_pstate":
                record_file(record, f"{CPU}/intel_pstate/no_turbo", "0\n" if c.boost_active else "1\n")
            else:
                record_file(record, f"{CPU}/cpufreq/boost", "1\n" if c.boost_active else "0\n")


def _block_end(lines: list[str], start: int, keys: re.Pattern[str]) -> int:
    """The end of an output that starts at `start`: it stops at the first line it does not own
    (an unindented line that is none of its keys, a shell prompt, a markdown fence)."""
    i = start + 1
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith("```") or _PROMPT.match(line):
            break
        if not s or _ANALYZING.match(line) or keys.match(s) or line[:1] in (" ", "\t"):
            i += 1
            continue
        break
    while i > start + 1 and not lines[i - 1].strip():
        i -= 1
    return i


@importer("cpupower-frequency-info", "`cpupower frequency-info` (cpufreq driver, governor, limits, boost)")
def frequency_info(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        if _ANALYZING.match(lines[i]) and _looks_like_freq(lines, i):
            start = i
            if start > 0 and _PROMPT.match(lines[start - 1]) and "frequency-info" in lines[start - 1]:
                start -= 1
            end = _block_end(lines, i, _FREQ_KEYS)
            cpus = parse_frequency_info(lines[i:end])
            if cpus:
                yield Found("cpupower-frequency-info", start, end, partial(_write_frequency, cpus=cpus))
            i = max(end, i + 1)
            continue
        i += 1


def _looks_like_freq(lines: list[str], i: int) -> bool:
    window = "\n".join(lines[i + 1:i + 6]).lower()
    return "driver:" in window or "no or unknown cpufreq driver" in window or "hardware limits" in window


# --- idle-info -------------------------------------------------------------------------------


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


_STATE_HEAD = re.compile(r"^([A-Za-z0-9_\-]+)(\s*\(DISABLED\)\s*)?\s*:\s*$")


def parse_idle_info(lines: list[str]) -> IdleInfo:
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


def _write_idle(record: HostRecord, info: IdleInfo) -> None:
    if info.driver:
        record_file(record, f"{CPU}/cpuidle/current_driver", info.driver + "\n")
    if info.governor:
        record_file(record, f"{CPU}/cpuidle/current_governor_ro", info.governor + "\n")
    base = f"{CPU}/cpu{info.cpu}/cpuidle"
    names = [f"state{i}" for i in range(len(info.states))]
    record.dirs[base] = names
    for i, st in enumerate(info.states):
        sb = f"{base}/state{i}"
        record_file(record, f"{sb}/name", st.name + "\n")
        record_file(record, f"{sb}/desc", st.desc + "\n")
        record_file(record, f"{sb}/disable", "1\n" if st.disabled else "0\n")
        if st.latency is not None:
            record_file(record, f"{sb}/latency", f"{st.latency}\n")
        if st.residency is not None:
            record_file(record, f"{sb}/residency", f"{st.residency}\n")


_IDLE_KEYS = re.compile(
    r"^(CPUidle driver|CPUidle governor|Could not determine|Number of idle states|Available idle states|"
    r"Flags/Description|Latency|Residency|Usage|Duration|CPU \d+: No idle states|\*is offline|"
    r"[A-Za-z0-9_\-]+(\s*\(DISABLED\)\s*)?\s*:$)"
)


@importer("cpupower-idle-info", "`cpupower idle-info` (cpuidle driver and the idle states with their latencies)")
def idle_info(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith(("CPUidle driver:", "Number of idle states:")) and _looks_like_idle(lines, i):
            start = i
            if start > 0 and _PROMPT.match(lines[start - 1]) and "idle-info" in lines[start - 1]:
                start -= 1
            end = _block_end(lines, i, _IDLE_KEYS)
            info = parse_idle_info(lines[i:end])
            if info.states or info.no_states or info.driver:
                yield Found("cpupower-idle-info", start, end, partial(_write_idle, info=info))
            i = max(end, i + 1)
            continue
        i += 1


def _looks_like_idle(lines: list[str], i: int) -> bool:
    window = "\n".join(lines[i:i + 8])
    return "Available idle states" in window or "CPUidle governor" in window or "No idle states" in window
