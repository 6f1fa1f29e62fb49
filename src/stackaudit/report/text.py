"""Terminal report: read in ten seconds, at the terminal's width (COLUMNS, else 80).

Prose is wrapped to the width; a command is never wrapped (one line each, `$ ` in front) so it can
be copied whole. rich writes the lines (colour on a terminal), but the layout is done here so that
the same report comes out whatever rich's wrapping rules are.
"""

from __future__ import annotations

import io
import textwrap

from rich.console import Console
from rich.text import Text

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.render.text import show_value
from stackaudit.report.fix_steps import fix_lines
from stackaudit.report.header import (
    command_line,
    coverage_note,
    evidence_line,
    finding_title,
    identity_line,
    verdict,
    where_to_apply,
)
from stackaudit.report.next_steps import NextStep, run_next
from stackaudit.report.sections import (
    RenderOptions,
    fix_cost_text,
    grouped_unknowns,
    headline_lines,
    provenance_entries,
    provenance_line,
    sections,
    top_finding,
)
from stackaudit.report.waivers import unknown_waivers
from stackaudit.terminal import escape_terminal

_PRIORITY_STYLE = {"P0": "bold red", "P1": "bold yellow", "P2": "cyan"}
Line = tuple[str, str]  # (text, rich style)


class _Lines:
    def __init__(self, width: int) -> None:
        self.width = max(40, width)
        self.out: list[Line] = []

    def prose(self, text: str, indent: int = 0, style: str = "", hanging: int = 0) -> None:
        """Wrapped to the width; continuation lines indented by `indent + hanging`."""
        pad = " " * indent
        lines = textwrap.wrap(text, width=self.width, initial_indent=pad, subsequent_indent=pad + " " * hanging,
                              break_long_words=False, break_on_hyphens=False) or [pad]
        self.out += [(line, style) for line in lines]

    def command(self, command: str, indent: int) -> None:
        """One line, never wrapped, whatever its length."""
        self.out.append((" " * indent + "$ " + command, "green"))

    def verbatim(self, text: str, indent: int) -> None:
        """A config line: one line, never wrapped, shown as written."""
        self.out.append((" " * indent + text, "green"))

    def blank(self) -> None:
        if self.out and self.out[-1][0]:
            self.out.append(("", ""))

    def heading(self, text: str) -> None:
        self.blank()
        self.out.append((text, "bold underline"))


def _fix(lines: _Lines, r: Result, where: str, pod: bool) -> None:
    fix = r.fix
    if fix is None:
        return
    lines.prose(f"fix: {fix_cost_text(r, where, pod)}", indent=3, style="green", hanging=5)
    for line in fix_lines(fix):
        indent = 5 + 2 * line.depth
        if line.kind == "command":
            lines.command(line.text, indent=indent)
        elif line.kind == "verbatim":
            lines.verbatim(line.text, indent=indent)
        else:
            head = f"{line.number}. " if line.number is not None else ""
            lines.prose(head + line.text, indent=indent, hanging=len(head) or 2)


def _issue(lines: _Lines, r: Result, report: Report, verbose: bool) -> None:
    where = where_to_apply(r, report)
    title = f"{r.priority} {finding_title(r)} [{r.id}]{coverage_note(r)}" + (f" ({where})" if where else "")
    lines.prose(title, style=_PRIORITY_STYLE.get(r.priority or "", ""), hanging=3)
    evidence = evidence_line(r)
    if evidence:
        lines.prose(evidence, indent=3, hanging=2)
    if not verbose and r.provenance:
        # Where the finding comes from, in one line (every source with --verbose).
        lines.prose(provenance_line(r, limit=1), indent=3, style="dim", hanging=5)
    if verbose:
        lines.prose(r.message, indent=3, hanging=2)
        lines.prose(f"expected: {show_value(r.expected)}", indent=3, hanging=2)
        if r.why:
            lines.prose(f"why: {r.why} (severity {r.severity}, evidence: {r.confidence})", indent=3, hanging=2)
        _provenance(lines, r, indent=3)
        for i, ref in enumerate(r.references[:4]):
            lines.prose(("see: " if i == 0 else "     ") + ref, indent=3, style="dim", hanging=5)
    _fix(lines, r, where, report.host.get("container") == "kubernetes")
    lines.blank()


def _provenance(lines: _Lines, r: Result, indent: int) -> None:
    """One source a line, so that none is cut in two."""
    for i, entry in enumerate(provenance_entries(r, limit=8)):
        lines.prose(("from " if i == 0 else "     ") + entry, indent=indent, style="dim", hanging=7)


def _next_steps(lines: _Lines, steps: list[NextStep]) -> None:
    for i, step in enumerate(steps, 1):
        count = len(step.settles)
        what = f"settles {count} check{'s' if count != 1 else ''}: {', '.join(step.settles)}"
        if step.command:
            lines.prose(f"{i}. {what}" + (f" — {step.adds}" if step.adds else ""), indent=2, hanging=3)
            lines.command(step.text, indent=5)
        else:
            lines.prose(f"{i}. {step.text} ({what})", indent=2, hanging=3)


def render_text(report: Report, color: bool = False, width: int | None = None,
                options: RenderOptions | None = None) -> str:
    options = options or RenderOptions()
    buf = io.StringIO()
    # width None: rich reads COLUMNS from the environment, else 80 when not writing to a terminal.
    width = width if width is not None else options.width
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False,
                      soft_wrap=True)
    lines = _Lines(console.width)
    sec = sections(report)
    verbose = options.verbose
    lines.prose(identity_line(report), style="bold", hanging=2)
    invoked = command_line(options.argv)
    if invoked:
        lines.command(invoked, indent=0)
    lines.prose(f"Verdict: {verdict(report, top_finding(sec))}.", style="bold", hanging=2)
    for line in headline_lines(report):
        lines.prose(line, hanging=2)

    lines.heading("Actionable fixes")
    if not any(sec.fixes.values()):
        lines.prose("none", indent=2)
    for results in sec.fixes.values():
        for r in results:
            _issue(lines, r, report, verbose)
    if sec.negatives:
        lines.heading("Key negative results (looks wrong, is fine here)")
        for r in sec.negatives:
            lines.prose(f"- {finding_title(r)} [{r.id}]{coverage_note(r)}", indent=2, hanging=2)
            if not verbose and r.provenance:
                lines.prose(provenance_line(r, limit=1), indent=4, style="dim", hanging=5)
            if verbose:
                lines.prose(r.message, indent=4, hanging=2)
                _provenance(lines, r, indent=4)
    if sec.good:
        lines.heading(f"Confirmed good ({len(sec.good)})")
        if verbose:
            for r in sec.good:
                lines.prose(f"{r.id}{coverage_note(r)}: {r.message}", indent=2, hanging=4)
        else:
            lines.prose(", ".join(r.id + coverage_note(r) for r in sec.good), indent=2)
    steps = run_next(sec.to_settle, engines=report.host.get("engines") or [])
    if steps:
        lines.heading(sec.run_next_heading())
        _next_steps(lines, steps)
    if sec.unknown and verbose:
        lines.heading("Could not check")
        for ids, message, hint in grouped_unknowns(sec.unknown):
            lines.prose(f"{', '.join(ids)}: {message}" + (f" → {hint}" if hint else ""), indent=2, hanging=4)
    elif sec.unknown:
        lines.prose("(--verbose: what each of them lacks)", indent=2, style="dim")
    unknown_ids = unknown_waivers(report.unused_waivers)
    if sec.waived or report.expired_waivers or unknown_ids:
        lines.heading("Waived")
        for r in sec.waived:
            until = f" (until {r.waiver.expires})" if r.waiver and r.waiver.expires else ""
            lines.prose(f"{r.id} ({r.status}): {r.waiver.reason if r.waiver else ''}{until}", indent=2, hanging=4)
        for w in report.expired_waivers:
            lines.prose(f"expired waiver {w.id} ({w.expires}): {w.reason} — no longer applied", indent=2, hanging=4,
                        style="yellow")
        for w, nearest in unknown_ids:
            tip = f" (nearest: {nearest})" if nearest else ""
            lines.prose(f"unknown check ID in a waiver: {w.id}{tip}: {w.reason} — not applied", indent=2, hanging=4,
                        style="yellow")
    if sec.errors or report.timed_out or report.fact_errors:
        lines.heading("Errors")
        for r in sec.errors:
            lines.prose(f"{r.id}: {r.message}", indent=2, hanging=4)
        for t in report.timed_out:
            lines.prose(f"timed out: {t}", indent=2, hanging=4)
        for t in report.fact_errors:
            lines.prose(f"fact failed: {t}", indent=2, hanging=4)
    if sec.not_applicable and verbose:
        lines.heading("Not applicable here")
        lines.prose(", ".join(r.id for r in sec.not_applicable), indent=2)
    lines.blank()
    lines.prose(f"{len(report.results)} checks in {report.duration_s:.2f} s", style="dim")
    for section in report.appended():
        section.text(lines)
    for text, style in lines.out:
        # Each value escaped before rich adds the renderer's own colours: no SGR from a host passes.
        console.print(Text(escape_terminal(text), style=style), soft_wrap=True)
    return buf.getvalue()
