"""The JSON report: a stable contract (docs/design.md, docs/report.md); a change bumps SCHEMA_VERSION.

Schema 2 adds the common envelope every JSON output shares (`schema`, `tool: {name, version}`,
`source`, `generated_at`) and `provenance` on every result. Later additions are optional keys only:
`command` (the command line as run, redacted), `verdict` (the report's one sentence), `run_next`
(the steps that would settle the most unknown checks) and `topology` (the machine's topology the
HTML and Markdown pictures draw: report.topology), which `report_from_json` reads back so that a saved
report re-renders (`stackaudit report RUN.json`).
"""

from __future__ import annotations

import json
import os
from typing import Any

from stackaudit.checks.registry import Coverage
from stackaudit.engine.results import Result, Waiver
from stackaudit.engine.runner import Report
from stackaudit.errors import InputError
from stackaudit.fixes.model import Fix
from stackaudit.host.limits import MAX_MEMBER_BYTES, load_json
from stackaudit.host.source import Provenance
from stackaudit.render.formats import SCHEMAS
from stackaudit.report.bounds import bounded
from stackaudit.report.sections import RenderOptions
from stackaudit.report.waivers import unknown_waivers

SCHEMA_VERSION = SCHEMAS["audit"]


def report_to_json(report: Report, options: RenderOptions | None = None) -> dict[str, Any]:
    from stackaudit.report.header import command_line, verdict
    from stackaudit.report.next_steps import run_next
    from stackaudit.report.sections import sections, top_finding

    options = options or RenderOptions()
    sec = sections(report)
    out: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "tool": dict(report.tool),
        "source": dict(report.source),
        "generated_at": report.generated_at,
    }
    if options.argv is not None:
        out["command"] = command_line(options.argv)
    out.update({
        "verdict": verdict(report, top_finding(sec)),
        "host": bounded(dict(report.host)),
        "results": [bounded(r.to_json()) for r in report.results],
        "summary": report.summary(),
        "run_next": [s.to_json() for s in run_next(sec.to_settle, limit=None, host=report.host)],
    })
    if report.topology:
        out["topology"] = report.topology
    unknown_ids = unknown_waivers(report.unused_waivers)
    if unknown_ids:  # only when there is one: reports without stay as they were
        out["summary"]["unknown_waivers"] = [{**w.to_json(), "nearest": nearest} for w, nearest in unknown_ids]
    for section in report.appended():
        out.update(section.json())
    return out


def render_json(report: Report, options: RenderOptions | None = None) -> str:
    return json.dumps(report_to_json(report, options), indent=2, sort_keys=False) + "\n"


# A report of every check with long evidence is well under 1 MiB; a pasted-output report a few MiB.
MAX_REPORT_BYTES = MAX_MEMBER_BYTES


def read_audit_report(path: str, label: str, reader: str, not_json: str = "not a JSON report") -> dict[str, Any]:
    """A saved `audit --format json` report of this schema, read within MAX_REPORT_BYTES; anything else is
    one InputError line starting with `label` and naming the command that reads it (`reader`)."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise InputError(f"{label}: not a regular file")
        with open(path, "rb") as fh:
            data = fh.read(MAX_REPORT_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{label}: no such file") from None
    except OSError as exc:
        raise InputError(f"{label}: {exc.strerror}") from None
    if len(data) > MAX_REPORT_BYTES:
        raise InputError(f"{label}: over {MAX_REPORT_BYTES // 2**20} MiB: not a stackaudit JSON report")
    try:
        doc = load_json(data, "the file", max_bytes=MAX_REPORT_BYTES)
    except ValueError as exc:
        raise InputError(f"{label}: {not_json}: {exc}") from None
    if not isinstance(doc, dict) or "schema" not in doc:
        raise InputError(f"{label}: JSON, but not a stackaudit report (no schema key)")
    if not isinstance(doc.get("results"), list):  # a bench or compare output has a schema but no results
        raise InputError(f"{label}: JSON, but not a stackaudit audit report (no results list)")
    schema = doc.get("schema")
    if schema != SCHEMA_VERSION or isinstance(schema, bool):
        raise InputError(f"{label}: audit report schema {json.dumps(schema)[:20]}; {reader} reads schema "
                         f"{SCHEMA_VERSION} (re-run `stackaudit audit --format json`)")
    return doc


def _waiver(data: Any) -> Waiver | None:
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        return None
    return Waiver(data["id"], str(data.get("reason") or ""), str(data.get("subject") or ""),
                  str(data.get("expires") or ""), str(data.get("source") or ""))


def _fix(data: Any, where: str) -> Fix | None:
    from stackaudit.fixes.plan import step_from_json

    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or not data["steps"]:
        return None
    return Fix(steps=tuple(step_from_json(s, where) for s in data["steps"]), note=str(data.get("note") or ""))


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _result(data: Any, where: str) -> Result:
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not isinstance(data.get("status"), str):
        raise InputError(f"{where}: a result without an id and a status: not a stackaudit report")
    def opt(key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) else None
    try:
        provenance = tuple(Provenance.from_json(p) for p in data.get("provenance") or [])
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
    return Result(
        id=data["id"], domain=str(data.get("domain") or ""), title=str(data.get("title") or ""),
        status=data["status"], message=str(data.get("message") or ""), severity=opt("severity"),
        confidence=opt("confidence"), fix_cost=opt("fix_cost"), priority=opt("priority"),
        subjects=_strings(data.get("subjects")), actual=data.get("actual"), expected=data.get("expected"),
        fix=_fix(data.get("fix"), f"{where} fix"), references=_strings(data.get("references")),
        scope=str(data.get("scope") or "host"), evidence=_strings(data.get("evidence")), hint=str(data.get("hint") or ""),
        waiver=_waiver(data.get("waived")), why=str(data.get("why") or ""), provenance=provenance,
        gpu_lost=data.get("gpu_lost") is True, coverage=_coverage(data.get("coverage")))


def _coverage(data: Any) -> Coverage | None:
    """A result's coverage as Result.to_json wrote it; None where there is none or it is malformed."""
    if not isinstance(data, dict):
        return None
    total = data.get("total")
    shown = _strings(data.get("subjects"))
    if not (total is None or (isinstance(total, int) and not isinstance(total, bool))) or len(shown) != data.get("shown"):
        return None
    return Coverage(shown, total, str(data.get("of") or "GPU"), at_least=data.get("at_least") is True)


def report_from_json(doc: dict[str, Any], label: str = "the report") -> Report:
    """The Report a saved JSON report (read_audit_report) was rendered from, to render it again in another
    format; what JSON does not keep (each check's duration) stays at its default."""
    summary = doc.get("summary") if isinstance(doc.get("summary"), dict) else {}
    assert isinstance(summary, dict)
    duration = summary.get("duration_s")
    results = [_result(r, f"{label}: result {i + 1}") for i, r in enumerate(doc["results"])]
    topology = doc.get("topology")
    return Report(
        source=dict(doc["source"]) if isinstance(doc.get("source"), dict) else {},
        host=dict(doc["host"]) if isinstance(doc.get("host"), dict) else {},
        results=results,
        timed_out=list(_strings(summary.get("timed_out"))),
        fact_errors=list(_strings(summary.get("fact_errors"))),
        expired_waivers=[w for w in map(_waiver, summary.get("expired_waivers") or []) if w is not None],
        unused_waivers=[w for w in map(_waiver, summary.get("unknown_waivers") or []) if w is not None],
        duration_s=float(duration) if isinstance(duration, (int, float)) and not isinstance(duration, bool) else 0.0,
        tool={k: str(v) for k, v in doc["tool"].items()} if isinstance(doc.get("tool"), dict) else {},
        generated_at=str(doc.get("generated_at") or ""),
        topology=dict(topology) if isinstance(topology, dict) else {},
    )
