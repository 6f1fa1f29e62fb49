"""`--format prometheus`: the report as node_exporter's textfile collector reads it (docs/report.md).

The text exposition format (https://prometheus.io/docs/instrumenting/exposition_formats/): a `# HELP` and
a `# TYPE` line per metric family, then its samples. A label value is quoted, with backslash, double quote
and line feed escaped as `\\\\`, `\\"` and `\\n`; nothing else is escaped, so the other control characters a
host value may carry (a hostname, a pasted log line) are dropped rather than sent. No sample carries a
timestamp: the textfile collector rejects a file that has one (node_exporter PR #769), so the audit's time
is a metric of its own, `stackaudit_audit_timestamp_seconds`.
"""

from __future__ import annotations

import datetime as _dt
import re

from stackaudit.engine.results import PRIORITIES, Result
from stackaudit.engine.runner import Report

STATUSES = ("issue", "ok", "not-an-issue", "unknown", "not-applicable", "error")
# Legacy metric and label names (what every Prometheus version reads), checked by the tests.
METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")

# Control characters other than the line feed (escaped) and lone surrogates (not UTF-8) never reach the file.
_DROPPED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")

FAMILIES = {
    "stackaudit_result": "One series per check of the last audit, always 1: the labels say which check, "
                         "on what subjects, and how it came out (priority only for issues).",
    "stackaudit_results": "Issues of the last audit per priority, waived ones not counted.",
    "stackaudit_checks": "Checks of the last audit per status, waived ones included.",
    "stackaudit_results_waived": "Results of the last audit accepted by a waiver.",
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


def _result_labels(r: Result) -> dict[str, object]:
    return {"id": r.id, "domain": r.domain, "status": r.status, "priority": r.priority or "",
            "subject": ", ".join(r.subjects)}


def epoch_seconds(stamp: str) -> int | None:
    """`2026-12-01T17:48:31Z` (the report's time) in seconds since the epoch; None when it is not one."""
    try:
        moment = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return int(moment.timestamp())


def render_prometheus(report: Report) -> str:
    issues = report.issues()
    lines = _family("stackaudit_result", [_sample("stackaudit_result", _result_labels(r), 1) for r in report.results])
    lines += _family("stackaudit_results", [
        _sample("stackaudit_results", {"priority": p}, sum(1 for r in issues if r.priority == p)) for p in PRIORITIES])
    lines += _family("stackaudit_checks", [
        _sample("stackaudit_checks", {"status": s}, len(report.by_status(s))) for s in STATUSES])
    lines += _family("stackaudit_results_waived", [
        _sample("stackaudit_results_waived", {}, sum(1 for r in report.results if r.waived))])
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
