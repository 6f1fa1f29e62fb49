"""The JSON report: a stable contract (DESIGN.md, docs/report.md); a change bumps SCHEMA_VERSION.

Schema 2 adds the common envelope every JSON output shares (`schema`, `tool: {name, version}`,
`source`, `generated_at`) and `provenance` on every result. Later additions are optional keys only.
"""

from __future__ import annotations

import json
from typing import Any

from stackaudit.engine.runner import Report

SCHEMA_VERSION = 2


def report_to_json(report: Report) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "tool": dict(report.tool),
        "source": dict(report.source),
        "generated_at": report.generated_at,
        "host": dict(report.host),
        "results": [r.to_json() for r in report.results],
        "summary": report.summary(),
    }


def render_json(report: Report) -> str:
    return json.dumps(report_to_json(report), indent=2, sort_keys=False) + "\n"
