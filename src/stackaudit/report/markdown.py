"""Markdown report, fit to paste into a GitHub issue."""

from __future__ import annotations

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


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _issue_block(r: Result, audit_in_container: bool) -> list[str]:
    lines = [f"#### {r.priority} · `{r.id}` — {r.title}", ""]
    if r.subjects:
        lines.append(f"- **Subjects:** {', '.join(f'`{s}`' for s in r.subjects[:8])}")
    lines.append(f"- **Observed:** `{show_value(r.actual)}`")
    lines.append(f"- **Expected:** {show_value(r.expected)}")
    lines.append(f"- **What:** {r.message}")
    if r.provenance:
        lines.append(f"- **Source:** {provenance_line(r)}")
    if r.why:
        lines.append(f"- **Why:** {r.why} *(severity {r.severity}, evidence: {r.confidence})*")
    for fl in fix_lines(r, audit_in_container):
        label, _, rest = fl.partition(": ")
        lines.append(f"- **Fix {label}:** {rest}" if rest else f"- {fl}")
    if r.references:
        lines.append(f"- **References:** {' · '.join(r.references[:4])}")
    lines.append("")
    return lines


def render_markdown(report: Report) -> str:
    sec = sections(report)
    ctr = in_container(report)
    out = ["## stackaudit report", ""]
    out += [f"{line}  " for line in headline_lines(report)]
    out.append("")
    out.append("### Actionable fixes")
    out.append("")
    if not any(sec.fixes.values()):
        out += ["No actionable fixes.", ""]
    for results in sec.fixes.values():
        for r in results:
            out += _issue_block(r, ctr)
    if sec.negatives:
        out += ["### Key negative results (looks wrong, is fine here)", ""]
        out += [f"- `{r.id}` — {r.message} (observed: `{show_value(r.actual, 80)}`)"
                + (f" — *{provenance_line(r)}*" if r.provenance else "") for r in sec.negatives]
        out.append("")
    if sec.good:
        out += ["### Confirmed good", "", "| check | observed | note |", "|---|---|---|"]
        out += [f"| `{r.id}` | `{_cell(show_value(r.actual, 60))}` | {_cell(r.message)} |" for r in sec.good]
        out.append("")
    if sec.unknown:
        out += ["### Could not check", ""]
        out += [f"- {', '.join(f'`{i}`' for i in ids)} — {message}" + (f" → *{hint}*" if hint else "")
                for ids, message, hint in grouped_unknowns(sec.unknown)]
        out.append("")
    if sec.waived:
        out += ["### Waived", ""]
        out += [f"- `{r.id}` ({r.status}) — waived: {r.waiver.reason if r.waiver else ''}"
                + (f" (until {r.waiver.expires})" if r.waiver and r.waiver.expires else "") for r in sec.waived]
        out.append("")
    if report.expired_waivers:
        out += ["### Expired waivers", ""]
        out += [f"- `{w.id}` expired {w.expires}: {w.reason}" for w in report.expired_waivers]
        out.append("")
    if sec.errors or report.timed_out or report.fact_errors:
        out += ["### Errors", ""]
        out += [f"- `{r.id}` — {r.message}" for r in sec.errors]
        out += [f"- timed out: {t}" for t in report.timed_out]
        out += [f"- fact failed: {t}" for t in report.fact_errors]
        out.append("")
    if sec.not_applicable:
        out += ["<details><summary>Not applicable here</summary>", ""]
        out += [f"- `{r.id}` — {r.message}" for r in sec.not_applicable]
        out += ["", "</details>", ""]
    return "\n".join(out).rstrip() + "\n"
