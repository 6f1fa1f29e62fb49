"""Terminal report via rich (plain text when piped or written to a file)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.report.sections import (
    fix_lines,
    grouped_unknowns,
    headline_lines,
    in_container,
    provenance_line,
    sections,
    show_value,
)

_PRIORITY_STYLE = {"P0": "bold red", "P1": "bold yellow", "P2": "cyan"}


def _issue(console: Console, r: Result, audit_in_container: bool) -> None:
    style = _PRIORITY_STYLE.get(r.priority or "", "")
    console.print(f"[{style}]{r.priority}[/] [bold]{r.id}[/] — {escape(r.title)}")
    if r.subjects:
        console.print(f"    subjects: {escape(', '.join(r.subjects[:8]))}" + (" …" if len(r.subjects) > 8 else ""))
    console.print(f"    observed: {escape(show_value(r.actual))}")
    console.print(f"    expected: {escape(show_value(r.expected))}")
    console.print(f"    {escape(r.message)}")
    if r.provenance:
        console.print(f"    [dim]{escape(provenance_line(r))}[/]")
    if r.why:
        console.print(f"    why: {escape(r.why)} [dim](severity {r.severity}, evidence: {r.confidence})[/]")
    for line in fix_lines(r, audit_in_container):
        console.print(f"    [green]fix[/] {escape(line)}")
    console.print()


def render_text(report: Report, color: bool = False, width: int = 110) -> str:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False,
                      soft_wrap=False)
    sec = sections(report)
    ctr = in_container(report)
    console.rule("[bold]stackaudit[/]")
    for line in headline_lines(report):
        console.print(escape(line))
    console.print()
    console.print("[bold underline]Actionable fixes[/]")
    if not any(sec.fixes.values()):
        console.print("  none")
        console.print()
    for results in sec.fixes.values():
        for r in results:
            _issue(console, r, ctr)
    if sec.negatives:
        console.print("[bold underline]Key negative results[/] (looks wrong, is fine here)")
        for r in sec.negatives:
            console.print(f"  [bold]{r.id}[/]: {escape(r.message)}")
            console.print(f"      observed: {escape(show_value(r.actual, 100))}")
            if r.provenance:
                console.print(f"      [dim]{escape(provenance_line(r))}[/]")
        console.print()
    if sec.good:
        console.print("[bold underline]Confirmed good[/]")
        table = Table(show_header=False, box=None, pad_edge=False, padding=(0, 2))
        table.add_column(no_wrap=True)
        table.add_column(overflow="fold")
        for r in sec.good:
            table.add_row(f"  {r.id}", escape(r.message))
        console.print(table)
        console.print()
    if sec.unknown:
        console.print("[bold underline]Could not check[/]")
        for ids, message, hint in grouped_unknowns(sec.unknown):
            console.print(f"  [bold]{', '.join(ids)}[/]: {escape(message)}" + (f" → {escape(hint)}" if hint else ""))
        console.print()
    if sec.waived or report.expired_waivers:
        console.print("[bold underline]Waived[/]")
        for r in sec.waived:
            until = f" (until {r.waiver.expires})" if r.waiver and r.waiver.expires else ""
            console.print(f"  {r.id} ({r.status}): {escape(r.waiver.reason if r.waiver else '')}{until}")
        for w in report.expired_waivers:
            console.print(f"  [yellow]expired[/] waiver {w.id} ({w.expires}): {escape(w.reason)} — no longer applied")
        console.print()
    if sec.errors or report.timed_out or report.fact_errors:
        console.print("[bold underline red]Errors[/]")
        for r in sec.errors:
            console.print(f"  {r.id}: {escape(r.message)}")
        for t in report.timed_out:
            console.print(f"  timed out: {escape(t)}")
        for t in report.fact_errors:
            console.print(f"  fact failed: {escape(t)}")
        console.print()
    if sec.not_applicable:
        console.print(f"[dim]Not applicable here: {', '.join(r.id for r in sec.not_applicable)}[/]")
    console.print(f"[dim]{len(report.results)} checks in {report.duration_s:.2f} s[/]")
    return buf.getvalue()
