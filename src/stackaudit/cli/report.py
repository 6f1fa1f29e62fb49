"""`stackaudit report RUN.json`: render a saved `audit --format json` report again, in another format.

The JSON carries the results, the headline and the topology (docs/report.md), so the HTML page, the
Markdown with its Mermaid picture and the text report come out as the audit would have printed them.
"""

from __future__ import annotations

import click

FORMATS = ("html", "text", "markdown", "json")


@click.command(name="report", help="Re-render a saved JSON report (`stackaudit audit --format json`) "
               "as html, text, markdown or json.")
@click.argument("run", metavar="RUN.json")
@click.option("--format", "fmt", default="html", show_default=True, metavar="|".join(FORMATS),
              help="output format (md for markdown)")
@click.option("--output", "-o", "output", default=None, metavar="FILE", help="write to FILE instead of stdout")
@click.option("--verbose", "-v", is_flag=True, help="text/markdown: every finding's why, sources, the not-applicable checks")
def command(run: str, fmt: str, output: str | None, verbose: bool) -> None:
    from stackaudit.cli.output import emit, invocation
    from stackaudit.errors import UsageError
    from stackaudit.report.json_report import read_audit_report, report_from_json
    from stackaudit.report.render import render
    from stackaudit.report.sections import RenderOptions

    fmt = "markdown" if fmt.lower() == "md" else fmt.lower()
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    doc = read_audit_report(run, run, "report")
    report = report_from_json(doc, run)
    argv = invocation()
    emit(render(report, fmt, options=RenderOptions(argv=argv, verbose=verbose)), output)
