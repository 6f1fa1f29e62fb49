"""The JSON report: a stable contract (DESIGN.md); a change bumps SCHEMA_VERSION."""

from __future__ import annotations

import json
from typing import Any

from stackaudit.engine.runner import Report

SCHEMA_VERSION = 1


def report_to_json(report: Report) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "tool": dict(report.tool),
        "source": dict(report.source),
        "host": dict(report.host),
        "results": [r.to_json() for r in report.results],
        "summary": report.summary(),
    }


def render_json(report: Report) -> str:
    return json.dumps(report_to_json(report), indent=2, sort_keys=False) + "\n"
