"""Several lines of one source about one thing: the worse line decides, and both are quoted.

A source may say two things about one subject: `nvidia-smi -q`'s Fabric block says `State : Completed`
above `Status : Insufficient Resources`, or `Health Summary : Unhealthy` under a `Success`. Reading the
first reassuring line and stopping is the mistake: the worse decides (`worse_of`), and the verdict
quotes the line that decided and the better line it overrode, so that a reader sees the disagreement.

A line that cannot say (`N/A`, `Not Supported`, absent) never decides while another line can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["bad", "good", "unknown"]
_ORDER: dict[Verdict, int] = {"bad": 0, "good": 1, "unknown": 2}


@dataclass(frozen=True)
class Reading:
    """One line of a source about one subject and what it says."""

    line: str  # as the source prints it, for quoting (`Fabric Status : Insufficient Resources`)
    verdict: Verdict


def worse_of(readings: Sequence[Reading]) -> tuple[Verdict, tuple[str, ...]]:
    """The verdict of several lines about one thing, and the lines to quote: the worse line decides
    (bad over good over unknown); where a good line says otherwise, it is quoted after the deciding one."""
    if not readings:
        return "unknown", ()
    worst = min(readings, key=lambda r: _ORDER[r.verdict])
    quoted = [worst.line] if worst.verdict != "unknown" else []
    if worst.verdict == "bad":
        quoted += [r.line for r in readings if r.verdict == "good"][:1]
    return worst.verdict, tuple(quoted)


def reading(label: str, value: str | None, good: frozenset[str], unknown: frozenset[str]) -> Reading:
    """A `label : value` line judged by a field's table: a good value, a value that cannot say (N/A,
    Not Supported, absent), or else a bad one."""
    if value is None or value in unknown:
        return Reading(f"{label} : {value or 'not shown'}", "unknown")
    return Reading(f"{label} : {value}", "good" if value in good else "bad")
