"""`stackaudit compare A B`: argument wiring only; the comparison lives in stackaudit.compare."""

from __future__ import annotations

from typing import Optional

import click

from stackaudit.cli.options import FILE, Command, HelpArgument, format_option, output_option


@click.command("compare", cls=Command)
@click.argument("a", cls=HelpArgument, metavar="A",
                help="A: a JSON report (audit --format json) or a snapshot (.tar.gz or directory).")
@click.argument("b", cls=HelpArgument, metavar="B", help="B: the same kinds as A; any mix.")
@format_option("compare")
@output_option("Write the comparison to FILE.")
@click.option("--fail-on", metavar="WHEN",
              help="regressed: exit 1 when any result regressed from A to B (a CI gate).")
@click.option("--waivers", type=FILE, metavar="FILE",
              help="Waiver file for a snapshot audited now (default: ./stackaudit.toml).")
def command(a: str, b: str, fmt: str, output: Optional[str], fail_on: Optional[str], waivers: Optional[str]) -> int:
    """What changed between two audits or two nodes: fixed, regressed, still wrong, configuration drift."""
    from stackaudit.cli.audit import headline_ceiling
    from stackaudit.cli.output import emit, invocation
    from stackaudit.compare.inputs import load_side
    from stackaudit.compare.render import FAIL_ON, document, exit_code, render
    from stackaudit.engine.runner import AuditOptions
    from stackaudit.errors import UsageError
    from stackaudit.render.formats import check_format
    from stackaudit.report.waivers import find_waivers

    fmt = check_format("compare", fmt)
    if fail_on is not None and fail_on.lower() not in FAIL_ON:
        raise UsageError(f"--fail-on takes {', '.join(FAIL_ON)}, not {fail_on!r}")
    options = AuditOptions(waivers=find_waivers(waivers), ceiling=headline_ceiling())
    side_a, side_b = load_side(a, options), load_side(b, options)
    doc = document(side_a, side_b, argv=invocation(), fail_on=fail_on.lower() if fail_on else None)
    emit(render(doc, fmt), output, fmt)
    return int(exit_code(doc))
