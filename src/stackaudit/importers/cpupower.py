"""`cpupower frequency-info` and `cpupower idle-info` pasted into a report, recorded verbatim as the
commands' output.

The `cpufreq` and `cpuidle` facts parse them (facts/cpufreq.py `cpufreq_from_cpupower`,
`cpuidle_from_cpupower`): only the CPUs the output shows (usually CPU 0 alone), so the facts say
"CPU 0" rather than generalising to the whole machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.cpufreq import is_analyzing_line, parse_frequency_info, parse_idle_info
from stackaudit.facts.sources import CPUPOWER_FREQUENCY_INFO, CPUPOWER_IDLE_INFO
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, command_output_appended, importer

_PROMPT = re.compile(r"^\s*(?:\S*[$#>]\s*)?(?:sudo\s+)?cpupower\b")


_FREQ_KEYS = re.compile(
    r"^\s*(driver|CPUs which run at the same hardware frequency|CPUs which need to have their frequency "
    r"coordinated by software|maximum transition latency|hardware limits|available frequency steps|available "
    r"cpufreq governors|current policy|current CPU frequency|boost state support|energy performance preference|"
    r"Supported|Active|The governor|within this range|amd-pstate limits|AMD PSTATE|Highest Performance|Nominal "
    r"Performance|Lowest|Preferred Core|\d+ MHz max turbo|no or unknown cpufreq driver|frequency should be|"
    r"\*is offline|Not Available|Boost States|Pstate-)",
    re.IGNORECASE,
)


def _block_end(lines: list[str], start: int, keys: re.Pattern[str]) -> int:
    """The end of an output that starts at `start`: it stops at the first line it does not own
    (an unindented line that is none of its keys, a shell prompt, a markdown fence)."""
    i = start + 1
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith("```") or _PROMPT.match(line):
            break
        if not s or is_analyzing_line(line) or keys.match(s) or line[:1] in (" ", "\t"):
            i += 1
            continue
        break
    while i > start + 1 and not lines[i - 1].strip():
        i -= 1
    return i


@importer("cpupower-frequency-info", "`cpupower frequency-info` (cpufreq driver, governor, limits, boost)",
          needles=("analyzing CPU ",), per_line=True)
def frequency_info(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if is_analyzing_line(lines[i]) and _looks_like_freq(lines, i):
            start = i
            if start > 0 and _PROMPT.match(lines[start - 1]) and "frequency-info" in lines[start - 1]:
                start -= 1
            end = _block_end(lines, i, _FREQ_KEYS)
            cpus = parse_frequency_info(lines[i:end])
            if cpus:
                # Whole: from `analyzing CPU N:` to the last section cpupower prints (boost state support).
                whole = any(line.strip().lower().startswith("boost state support") for line in cpus[-1].lines)
                text = "\n".join(lines[i:end]) + "\n"
                yield Found("cpupower-frequency-info", start, end,
                            command_output_appended(CPUPOWER_FREQUENCY_INFO.argv, text), whole=whole)
            scan.skip(end)


def _looks_like_freq(lines: list[str], i: int) -> bool:
    window = "\n".join(lines[i + 1:i + 6]).lower()
    return "driver:" in window or "no or unknown cpufreq driver" in window or "hardware limits" in window


# --- idle-info -------------------------------------------------------------------------------

_IDLE_KEYS = re.compile(
    r"^(CPUidle driver|CPUidle governor|Could not determine|Number of idle states|Available idle states|"
    r"Flags/Description|Latency|Residency|Usage|Duration|CPU \d+: No idle states|\*is offline|"
    r"[A-Za-z0-9_\-]+(\s*\(DISABLED\)\s*)?\s*:$)"
)


@importer("cpupower-idle-info", "`cpupower idle-info` (cpuidle driver and the idle states with their latencies)",
          needles=("CPUidle driver:", "Number of idle states:"), per_line=True)
def idle_info(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        s = lines[i].strip()
        if s.startswith(("CPUidle driver:", "Number of idle states:")) and _looks_like_idle(lines, i):
            start = i
            if start > 0 and _PROMPT.match(lines[start - 1]) and "idle-info" in lines[start - 1]:
                start -= 1
            end = _block_end(lines, i, _IDLE_KEYS)
            info = parse_idle_info(lines[i:end])
            if info.states or info.no_states or info.driver:
                # Whole: from the driver line to as many states as "Number of idle states" announces.
                whole = s.startswith("CPUidle driver:") and (
                    info.no_states or (info.declared_states is not None and info.declared_states == len(info.states)))
                text = "\n".join(lines[i:end]) + "\n"
                yield Found("cpupower-idle-info", start, end,
                            command_output_appended(CPUPOWER_IDLE_INFO.argv, text), whole=whole)
            scan.skip(end)


def _looks_like_idle(lines: list[str], i: int) -> bool:
    window = "\n".join(lines[i:i + 8])
    return "Available idle states" in window or "CPUidle governor" in window or "No idle states" in window
