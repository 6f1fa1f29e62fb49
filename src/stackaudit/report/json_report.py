"""The JSON report: a stable contract (DESIGN.md, docs/report.md); a change bumps SCHEMA_VERSION.

Schema 2 adds the common envelope every JSON output shares (`schema`, `tool: {name, version}`,
`source`, `generated_at`) and `provenance` on every result. Later additions are optional keys only:
`command` (the command line as run, redacted), `verdict` (the report's one sentence) and `run_next`
(the steps that would settle the most unknown checks).
"""

from __future__ import annotations

import json
from typing import Any

from stackaudit.engine.runner import Report
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
    return out


def render_json(report: Report, options: RenderOptions | None = None) -> str:
    return json.dumps(report_to_json(report, options), indent=2, sort_keys=False) + "\n"
