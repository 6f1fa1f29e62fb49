"""Two audits side by side: which results moved, which configuration values changed.

Statuses, A → B, for checks that are not samples:

- fixed: an issue → ok or not-an-issue;
- regressed: anything else → an issue, or an issue whose priority rose (P2 → P0);
- still wrong: an issue in both (its priority the same or lower); this list and regressed go P0 first;
- newly unknown: a verdict → unknown or error (could not tell any more);
- newly known: unknown or error → ok or not-an-issue;
- other: the rest (ok ↔ not-an-issue, a check that became, or stopped being, applicable).

Values: each result's observed value (`actual`) and the host inventory (kernel, CPU, GPU count,
models and BDFs, NUMA nodes, container, uid), flattened to one entry per check ID and subject: a
value that is an object keyed by GPU, sysctl or process gives one entry per key, so a link that
dropped to x8 names its GPU. When the status moved, only the subjects both sides name are compared
(an issue lists its bad subjects only; the status change says the rest). Process IDs are masked before comparing (`pid 4101` and `pid 5120` are
the same engine restarted). A check declared `sample=True` lists its status change and its values
apart, under samples: what the host was doing at that instant never makes two hosts differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Literal

from stackaudit.checks.registry import sample_checks
from stackaudit.compare.document import Comparison, OnlyEntry, ReportResult, State, StatusEntry, ValueEntry
from stackaudit.compare.inputs import Side
from stackaudit.engine.fingerprint import mask_pids
from stackaudit.fixes.model import PRIORITIES

GOOD = frozenset({"ok", "not-an-issue"})
UNSURE = frozenset({"unknown", "error"})
Group = Literal["regressed", "fixed", "still_wrong", "newly_unknown", "newly_known", "other"]
STATUS_GROUPS: tuple[Group, ...] = ("regressed", "fixed", "still_wrong", "newly_unknown", "newly_known", "other")
# The host inventory's keys that name the machine rather than describe it (shown with each side).
_IDENTITY = frozenset({"hostname"})
_RANK = {p: i for i, p in enumerate(PRIORITIES)}


def _rank(result: ReportResult) -> int:
    return _RANK.get(str(result.get("priority")), len(_RANK))


def status_group(a: ReportResult, b: ReportResult) -> Group | None:
    """Which list a check's move from A to B belongs in; None when it did not move."""
    sa, sb = a["status"], b["status"]
    if sa == sb == "issue":
        return "regressed" if _rank(b) < _rank(a) else "still_wrong"
    if sa == sb:
        return None
    if sb == "issue":
        return "regressed"
    if sa == "issue" and sb in GOOD:
        return "fixed"
    if sb in UNSURE and sa not in UNSURE:
        return "newly_unknown"
    if sa in UNSURE and sb in GOOD:
        return "newly_known"
    return "other"


def _state(result: ReportResult) -> State:
    return {"status": result["status"], "priority": result.get("priority"), "waived": bool(result.get("waived"))}


def _status_entry(a: ReportResult, b: ReportResult) -> StatusEntry:
    return {"id": b["id"], "title": str(b.get("title") or a.get("title") or ""), "a": _state(a), "b": _state(b),
            "message": str(b.get("message") or "")}


def _flatten(value: object, path: str, out: dict[str, object]) -> None:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _flatten(inner, f"{path}/{mask_pids(str(key))}" if path else mask_pids(str(key)), out)
    else:
        out[path] = value


def _comparable(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return mask_pids(text)


def _single_subject(result: ReportResult) -> str:
    subjects = result.get("subjects")
    if isinstance(subjects, list) and len(subjects) == 1:
        return mask_pids(str(subjects[0]))
    return ""


def shared_subject(a: ReportResult, b: ReportResult) -> str:
    """The one subject a plain observed value is about (a sysctl key), as either side names it: an ok
    result often names none where the issue named its key."""
    sa, sb = _single_subject(a), _single_subject(b)
    return sa if sa == sb or not sb else sb if not sa else ""


def result_values(result: ReportResult, subject: str = "") -> dict[str, object]:
    """Subject -> observed value: an object's keys are subjects; a plain value is about `subject`."""
    actual = result.get("actual")
    if isinstance(actual, dict) and actual:
        out: dict[str, object] = {}
        _flatten(actual, "", out)
        return out
    return {subject: actual}


def _value_changes(check_id: str, a: dict[str, object], b: dict[str, object],
                   both_only: bool = False) -> list[ValueEntry]:
    """The subjects whose value differs; `both_only`: only those both sides name (when the status moved,
    an issue lists only its bad subjects and the status change says the rest)."""
    out = []
    for subject in _ordered(a, b):
        if both_only and not (subject in a and subject in b):
            continue
        entry: ValueEntry = {"id": check_id, "subject": subject}
        if subject in a:
            entry["a"] = a[subject]
        if subject in b:
            entry["b"] = b[subject]
        if subject in a and subject in b and _comparable(a[subject]) == _comparable(b[subject]):
            continue
        out.append(entry)
    return out


def _ordered(*maps: Mapping[str, object]) -> list[str]:
    keys: list[str] = []
    for m in maps:
        keys.extend(k for k in m if k not in keys)
    return keys


def _host_values(side: Side) -> dict[str, object]:
    out: dict[str, object] = {}
    _flatten({k: v for k, v in side.host.items() if k not in _IDENTITY}, "", out)
    return out


def compare_sides(a: Side, b: Side, samples: Iterable[str] | None = None) -> Comparison:
    """The comparison, without the envelope: status groups, value changes, samples, a verdict."""
    sampled = frozenset(sample_checks() if samples is None else samples)
    groups: dict[Group, list[StatusEntry]] = {name: [] for name in STATUS_GROUPS}
    configuration = _value_changes("host", _host_values(a), _host_values(b))
    sample_status: list[StatusEntry] = []
    sample_values: list[ValueEntry] = []
    for check_id in _ordered(a.results, b.results):
        ra, rb = a.results.get(check_id), b.results.get(check_id)
        if ra is None or rb is None:
            continue
        group = status_group(ra, rb)
        if check_id in sampled:
            if group is not None and (group != "still_wrong" or ra.get("priority") != rb.get("priority")):
                sample_status.append(_status_entry(ra, rb))
        elif group is not None:
            groups[group].append(_status_entry(ra, rb))
        if ra.get("actual") is None and rb.get("actual") is None:
            continue
        if ra["status"] != rb["status"] and (ra.get("actual") is None or rb.get("actual") is None):
            continue  # a verdict on one side only: the status change says it
        subject = shared_subject(ra, rb)
        changes = _value_changes(check_id, result_values(ra, subject), result_values(rb, subject),
                                 both_only=ra["status"] != rb["status"])
        (sample_values if check_id in sampled else configuration).extend(changes)
    for name in ("regressed", "still_wrong"):  # P0 first, as the audit lists its fixes
        groups[name].sort(key=lambda entry: _RANK.get(str(entry["b"]["priority"]), len(_RANK)))
    only_a: list[OnlyEntry] = [{"id": i, "status": r["status"]} for i, r in a.results.items() if i not in b.results]
    only_b: list[OnlyEntry] = [{"id": i, "status": r["status"]} for i, r in b.results.items() if i not in a.results]
    counts: dict[str, int] = {name: len(items) for name, items in groups.items()}
    counts.update(configuration=len(configuration), only_in_a=len(only_a), only_in_b=len(only_b),
                  sampled_status=len(sample_status), sampled_values=len(sample_values))
    difference = any(counts[k] for k in counts if k not in ("still_wrong", "sampled_status", "sampled_values"))
    out: Comparison = {
        "verdict": _verdict(counts, difference),
        "difference": difference,
        "summary": counts,
        "regressed": groups["regressed"],
        "fixed": groups["fixed"],
        "still_wrong": groups["still_wrong"],
        "newly_unknown": groups["newly_unknown"],
        "newly_known": groups["newly_known"],
        "other": groups["other"],
        "configuration": configuration,
        "only_in_a": only_a,
        "only_in_b": only_b,
        "samples": {"status": sample_status, "values": sample_values},
    }
    if a.tool_version and b.tool_version and a.tool_version != b.tool_version:
        out["note"] = (f"A and B were audited by different stackaudit versions ({a.tool_version}, "
                       f"{b.tool_version}): a check's logic may differ between them")
    return out


# (count key, words for one, words for more)
_VERDICT_PARTS = (("regressed", "regressed", "regressed"), ("fixed", "fixed", "fixed"),
                  ("newly_unknown", "newly unknown", "newly unknown"), ("newly_known", "newly known", "newly known"),
                  ("other", "other status change", "other status changes"),
                  ("configuration", "configuration value changed", "configuration values changed"),
                  ("only_in_a", "check only in A", "checks only in A"),
                  ("only_in_b", "check only in B", "checks only in B"))


def _verdict(counts: dict[str, int], difference: bool) -> str:
    if not difference:
        return "no difference"
    return ", ".join(f"{counts[key]} {one if counts[key] == 1 else more}"
                     for key, one, more in _VERDICT_PARTS if counts[key])


def regressions(doc: Comparison) -> list[StatusEntry]:
    """The regressed results a `--fail-on regressed` gate counts: those not waived in B."""
    return [entry for entry in doc["regressed"] if not entry["b"]["waived"]]
