"""Every value a report shows is bounded (docs/design.md, "Bounds"): a 10 MB line of a source (a hostname,
a kernel command line, a log line quoted as evidence) must not make a 10 MB report. A longer string is
cut, ending in a marker that says how long it was; every format renders from the bounded copy."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stackaudit.engine.runner import Report

# Longest string value a report carries: evidence quotes one line of a source, a header one value.
MAX_VALUE_CHARS = 4096


def bounded(value: Any, limit: int = MAX_VALUE_CHARS) -> Any:
    """`value` with every string longer than `limit` cut, ending in `… [cut: N of M characters]`."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return value[:limit] + f"… [cut: {limit} of {len(value)} characters]"
    if isinstance(value, dict):
        return {k: bounded(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [bounded(v, limit) for v in value]
    if isinstance(value, tuple):
        return tuple(bounded(v, limit) for v in value)
    return value


def bounded_report(report: Report) -> Report:
    """The report with its host, source and every result's text fields bounded."""
    results = [
        replace(r, title=bounded(r.title), message=bounded(r.message), hint=bounded(r.hint), why=bounded(r.why),
                evidence=bounded(r.evidence), subjects=bounded(r.subjects), actual=bounded(r.actual),
                expected=bounded(r.expected))
        for r in report.results
    ]
    return replace(report, host=bounded(dict(report.host)), source=bounded(dict(report.source)), results=results,
                   fact_errors=bounded(list(report.fact_errors)))
