"""`stackaudit report REPORT`: render a saved `audit --format json` report again, in another format.

The JSON carries the results, the headline and the topology (docs/report.md), so the HTML page, the
Markdown with its Mermaid picture and the text report come out as the audit would have printed them.
"""

from __future__ import annotations

import click

from stackaudit.cli.options import Command, HelpArgument, format_option, output_option


@click.command(name="report", cls=Command, help="Re-render a saved JSON report (`stackaudit audit --format json`) "
               "in any of the audit's formats.")
@click.argument("run", cls=HelpArgument, metavar="REPORT", help="A report saved by `audit --format json` (- for stdin).")
@format_option("audit", default="html", show_default=True)
@output_option("Write to FILE instead of stdout.")
@click.option("--verbose", "-v", is_flag=True, help="text/markdown: every finding's why, sources, the not-applicable checks")
def command(run: str, fmt: str, output: str | None, verbose: bool) -> None:
    from stackaudit.cli.output import emit, invocation
    from stackaudit.render.formats import check_format
    from stackaudit.report.json_report import read_audit_report, report_from_json
    from stackaudit.report.render import render
    from stackaudit.report.sections import RenderOptions

    fmt = check_format("audit", fmt)
    if run == "-":  # stdin: `stackaudit audit -f json | stackaudit report - -f html`
        import tempfile

        from stackaudit.cli.output import stdin_to_file
        from stackaudit.report.json_report import MAX_REPORT_BYTES

        with tempfile.TemporaryDirectory(prefix="stackaudit-stdin-") as directory:
            doc = read_audit_report(stdin_to_file(directory, "report -", MAX_REPORT_BYTES), "stdin", "report")
    else:
        doc = read_audit_report(run, run, "report")
    report = report_from_json(doc, run)
    argv = invocation()
    emit(render(report, fmt, options=RenderOptions(argv=argv, verbose=verbose)), output, fmt)
