"""The JSON report: a stable contract (docs/design.md, docs/report.md); a change bumps SCHEMA_VERSION.

Schema 2 adds the common envelope every JSON output shares (`schema`, `tool: {name, version}`,
`source`, `generated_at`) and `provenance` on every result. Later additions are optional keys only:
`command` (the command line as run, redacted), `verdict` (the report's one sentence) and `run_next`
(the steps that would settle the most unknown checks).
"""

from __future__ import annotations

import json
import os
from typing import Any

from stackaudit.engine.runner import Report
from stackaudit.errors import InputError
from stackaudit.host.limits import MAX_MEMBER_BYTES, load_json
from stackaudit.investigate.consolidate import render_json_section
from stackaudit.report.bounds import bounded
from stackaudit.report.sections import RenderOptions
from stackaudit.report.waivers import unknown_waivers

SCHEMA_VERSION = 2


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
        "run_next": [s.to_json() for s in run_next(sec.unknown, limit=None)],
    })
    unknown_ids = unknown_waivers(report.unused_waivers)
    if unknown_ids:  # only when there is one: reports without stay as they were
        out["summary"]["unknown_waivers"] = [{**w.to_json(), "nearest": nearest} for w, nearest in unknown_ids]
    out.update(render_json_section(report))
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
