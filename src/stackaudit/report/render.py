"""Pick a renderer; compute the exit code from --fail-on (docs/design.md)."""

from __future__ import annotations

from stackaudit.engine.runner import Report
from stackaudit.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from stackaudit.fixes.model import PRIORITIES
from stackaudit.report.sections import RenderOptions

FAIL_ON = PRIORITIES


def render(report: Report, fmt: str, color: bool = False, options: RenderOptions | None = None) -> str:
    from stackaudit.report.bounds import bounded_report

    report = bounded_report(report)
    if fmt == "json":
        from stackaudit.report.json_report import render_json

        return render_json(report, options)
    if fmt == "text" or fmt == "markdown" or fmt == "html":
        from stackaudit.render.document import draw
        from stackaudit.report.document import audit_document

        width = (options.width if options and options.width else _columns()) if fmt == "text" else None
        return draw(audit_document(report, options), fmt, width=width, color=color)
    if fmt == "prometheus":
        from stackaudit.report.prometheus import render_prometheus

        return render_prometheus(report, options)
    if fmt == "junit":
        from stackaudit.report.junit import render_junit

        return render_junit(report, options)
    raise UsageError(f"unknown format {fmt!r}: the audit report has no renderer for it")


def _columns() -> int:
    """The terminal report's width where the caller gave none: COLUMNS, else 80."""
    import os

    value = os.environ.get("COLUMNS", "")
    return int(value) if value.isdigit() and int(value) > 0 else 80


def exit_code(report: Report, fail_on: str | None, gate_samples: bool = False) -> int:
    """With --fail-on, 1 when a non-waived issue is at or above `fail_on`, a check errored, or a fact or
    command timed out (a check that could not finish is treated like one that errored); else 0. An issue of a
    sampled value (CPU pressure, clocks) gates only with `gate_samples` (`audit --gate-samples`)."""
    if not fail_on:
        return EXIT_OK
    level = fail_on.upper()
    if level not in FAIL_ON:
        raise UsageError(f"--fail-on takes P0, P1 or P2, not {fail_on!r}")
    gate = FAIL_ON[: FAIL_ON.index(level) + 1]
    from stackaudit.report.sections import sampled_ids

    sampled = sampled_ids(report, RenderOptions(gate_samples=gate_samples))
    if any(r.priority in gate and r.id not in sampled for r in report.issues()):
        return EXIT_FINDINGS
    if any(r.status == "error" and not r.waived for r in report.results) or report.timed_out:
        return EXIT_FINDINGS
    return EXIT_OK
