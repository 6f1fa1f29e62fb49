"""`--format prometheus`: the report as node_exporter's textfile collector reads it (docs/report.md).

The text exposition format (https://prometheus.io/docs/instrumenting/exposition_formats/): a `# HELP` and
a `# TYPE` line per metric family, then its samples. A label value is quoted, with backslash, double quote
and line feed escaped as `\\\\`, `\\"` and `\\n`; nothing else is escaped, so the other control characters a
host value may carry (a hostname, a pasted log line) are dropped rather than sent. No sample carries a
timestamp: the textfile collector rejects a file that has one (node_exporter PR #769), so the audit's time
is a metric of its own, `stackaudit_audit_timestamp_seconds`.

A check's status is a StateSet (https://github.com/prometheus/OpenMetrics/blob/main/specification/OpenMetrics.md,
"StateSet"; in the text format a gauge whose state label bears the metric's name): one series per status, so a
status change flips values instead of ending one series and starting another. No label carries a PID, a
subject or a message: those change from run to run and would start a new series each time.
"""

from __future__ import annotations

import datetime as _dt
import re

from stackaudit.checks.registry import STATUSES
from stackaudit.engine.runner import Report
from stackaudit.fixes.model import PRIORITIES
from stackaudit.report.sections import RenderOptions, sampled_ids

# Control characters other than the line feed (escaped) and lone surrogates (not UTF-8) never reach the file.
_DROPPED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")

STATUS_METRIC = "stackaudit_check_status"
# An issue's priority as a number: P0 is 0, P1 is 1, P2 is 2 (lower is more urgent).
PRIORITY_VALUES = {p: i for i, p in enumerate(PRIORITIES)}

FAMILIES = {
    STATUS_METRIC: "Each check of the last audit as a StateSet: one series per status, 1 for the check's status "
                   "and 0 for the others. Not-applicable checks are left out (--verbose keeps them), and so are "
                   "checks of sampled values (--gate-samples keeps them).",
    "stackaudit_check_priority": "The priority of each check whose status is issue: 0 for P0, 1 for P1, 2 for P2.",
    "stackaudit_issues": "Issues of the last audit per priority, waived ones and sampled values not counted.",
    "stackaudit_checks": "Checks of the last audit per status, waived ones included, sampled values not counted.",
    "stackaudit_checks_waived": "Checks of the last audit whose result a waiver accepted.",
    "stackaudit_checks_sampled": "Checks of sampled values left out of the other families (0 with --gate-samples).",
    "stackaudit_audit_partial": "1 when the last audit is not a whole read of its source (timed-out reads, "
                                "--allow-partial, outputs set aside), else 0.",
    "stackaudit_audit_timed_out": "Facts and commands of the last audit that timed out.",
    "stackaudit_audit_info": "The stackaudit version and the host the last audit read, always 1.",
    "stackaudit_audit_duration_seconds": "How long the last audit took, fact collection and checks.",
    "stackaudit_audit_timestamp_seconds": "When the last report was generated, in seconds since the Unix epoch.",
}


def label_value(value: object) -> str:
    """`value` as a quoted label value's content: escaped per the exposition format, control characters dropped."""
    text = _DROPPED.sub("", "" if value is None else str(value))
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _sample(name: str, labels: dict[str, object], value: float | int) -> str:
    inner = ",".join(f'{key}="{label_value(v)}"' for key, v in labels.items())
    return f"{name}{{{inner}}} {_number(value)}" if labels else f"{name} {_number(value)}"


def _number(value: float | int) -> str:
    if isinstance(value, int):
        return str(value)
    return repr(round(value, 3))


def _family(name: str, samples: list[str]) -> list[str]:
    return [f"# HELP {name} {FAMILIES[name]}", f"# TYPE {name} gauge", *samples]


def epoch_seconds(stamp: str) -> int | None:
    """`2026-12-01T17:48:31Z` (the report's time) in seconds since the epoch; None when it is not one."""
    try:
        moment = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return int(moment.timestamp())


def render_prometheus(report: Report, options: RenderOptions | None = None) -> str:
    """The report in the text exposition format. Labels are check IDs, domains, statuses and priorities
    only: never a PID or a message, so a check is one stable set of series from run to run."""
    options = options or RenderOptions()
    sampled = sampled_ids(report, options)
    results = [r for r in report.results if r.id not in sampled]
    shown = [r for r in results if options.verbose or r.status != "not-applicable"]
    states = [_sample(STATUS_METRIC, {"id": r.id, "domain": r.domain, STATUS_METRIC: s}, int(r.status == s))
              for r in shown for s in STATUSES]
    lines = _family(STATUS_METRIC, states)
    lines += _family("stackaudit_check_priority", [
        _sample("stackaudit_check_priority", {"id": r.id, "domain": r.domain}, PRIORITY_VALUES[r.priority])
        for r in shown if r.status == "issue" and r.priority in PRIORITY_VALUES])
    issues = [r for r in results if r.status == "issue" and not r.waived]
    lines += _family("stackaudit_issues", [
        _sample("stackaudit_issues", {"priority": p}, sum(1 for r in issues if r.priority == p)) for p in PRIORITIES])
    lines += _family("stackaudit_checks", [
        _sample("stackaudit_checks", {"status": s}, sum(1 for r in results if r.status == s)) for s in STATUSES])
    lines += _family("stackaudit_checks_waived", [
        _sample("stackaudit_checks_waived", {}, sum(1 for r in results if r.waived))])
    lines += _family("stackaudit_checks_sampled", [_sample("stackaudit_checks_sampled", {}, len(sampled))])
    lines += _family("stackaudit_audit_partial", [_sample("stackaudit_audit_partial", {}, int(bool(report.partial())))])
    lines += _family("stackaudit_audit_timed_out", [_sample("stackaudit_audit_timed_out", {}, len(report.timed_out))])
    info = {"version": report.tool.get("version", ""), "hostname": report.host.get("hostname") or "",
            "source": report.source.get("kind", "")}
    lines += _family("stackaudit_audit_info", [_sample("stackaudit_audit_info", info, 1)])
    lines += _family("stackaudit_audit_duration_seconds", [
        _sample("stackaudit_audit_duration_seconds", {}, float(report.duration_s))])
    stamp = epoch_seconds(report.generated_at)
    if stamp is not None:
        lines += _family("stackaudit_audit_timestamp_seconds", [
            _sample("stackaudit_audit_timestamp_seconds", {}, stamp)])
    # The collector reads a file only when it ends in a line feed.
    return "\n".join(lines) + "\n"
