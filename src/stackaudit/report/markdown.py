"""Markdown report, fit to paste into a GitHub issue.

Every piece of text goes through render.escape (the one escaper); every command is a fenced code
block, so GitHub shows it verbatim (`<api-server pid>` included).
"""

from __future__ import annotations

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.render.escape import md_block, md_cell, md_code, md_inline, md_table, md_text
from stackaudit.render.text import show_value
from stackaudit.report.fix_steps import md_fix_steps
from stackaudit.report.header import (
    command_line,
    coverage_note,
    evidence_line,
    finding_title,
    identity_line,
    verdict,
    where_to_apply,
)
from stackaudit.report.next_steps import run_next
from stackaudit.report.sections import (
    RenderOptions,
    fix_cost_text,
    grouped_unknowns,
    headline_lines,
    provenance_line,
    sections,
    top_finding,
)
from stackaudit.report.waivers import unknown_waivers


def _fix_block(r: Result, where: str, pod: bool) -> list[str]:
    fix = r.fix
    if fix is None:
        return []
    return [f"**Fix** — {md_text(fix_cost_text(r, where, pod))}:", "", *md_fix_steps(fix)]


def _issue_block(r: Result, report: Report, verbose: bool) -> list[str]:
    where = where_to_apply(r, report)
    title = (f"{md_inline(finding_title(r))} {md_code(r.id)}{md_text(coverage_note(r))}"
             + (f" — {md_text(where)}" if where else ""))
    lines = [f"#### {r.priority} · {title}", ""]
    evidence = evidence_line(r)
    if evidence:
        lines += [md_inline(evidence), ""]
    if r.provenance:
        lines += [f"<sub>{md_inline(provenance_line(r))}</sub>", ""]
    if verbose:
        lines += [md_inline(r.message), ""]
        lines += [f"Expected: {md_inline(show_value(r.expected))}", ""]
        if r.why:
            lines += [f"Why: {md_inline(r.why)} *(severity {r.severity}, evidence: {r.confidence})*", ""]
    lines += _fix_block(r, where, report.host.get("container") == "kubernetes")
    if verbose and r.references:
        lines += ["References: " + " · ".join(f"<{ref}>" for ref in r.references[:4]), ""]
    return lines


def render_markdown(report: Report, options: RenderOptions | None = None) -> str:
    options = options or RenderOptions()
    verbose = options.verbose
    sec = sections(report)
    out = ["## stackaudit report", ""]
    out += [f"{md_text(identity_line(report))}  "]
    invoked = command_line(options.argv)
    if invoked:
        out += [f"{md_code(invoked)}  "]
    out += [f"**Verdict:** {md_inline(verdict(report, top_finding(sec)))}.", ""]
    out += [f"{md_inline(line)}  " for line in headline_lines(report)]
    out.append("")
    out += ["### Actionable fixes", ""]
    if not any(sec.fixes.values()):
        out += ["No actionable fixes.", ""]
    for results in sec.fixes.values():
        for r in results:
            out += _issue_block(r, report, verbose)
    if sec.negatives:
        out += ["### Key negative results (looks wrong, is fine here)", ""]
        for r in sec.negatives:
            out.append(f"- {md_inline(finding_title(r))} {md_code(r.id)}{md_text(coverage_note(r))}")
        out.append("")
        out += ["<details><summary>Why each is fine here</summary>", ""]
        out += [f"- {md_code(r.id)}: {md_inline(r.message)}"
                + (f" — <sub>{md_inline(provenance_line(r))}</sub>" if r.provenance else "") for r in sec.negatives]
        out += ["", "</details>", ""]
    if sec.good:
        out += [f"<details><summary>Confirmed good ({len(sec.good)})</summary>", "",
                *md_table(["check", "observed", "note"],
                          [[md_code(r.id) + md_cell(coverage_note(r)), md_cell(show_value(r.actual, 60)),
                            md_cell(r.message)] for r in sec.good])]
        out += ["", "</details>", ""]
    steps = run_next(sec.to_settle, engines=report.host.get("engines") or [])
    if steps:
        out += [f"### {md_text(sec.run_next_heading())}", ""]
        for i, step in enumerate(steps, 1):
            count = len(step.settles)
            what = f"settles {count} check{'s' if count != 1 else ''}: {', '.join(step.settles)}"
            if step.command:
                out += [f"{i}. {md_text(what)}" + (f" — {md_inline(step.adds)}" if step.adds else ""), "",
                        *md_block([step.text]), ""]
            else:
                out += [f"{i}. {md_inline(step.text)} ({md_text(what)})", ""]
    if sec.unknown:
        out += [f"<details><summary>Could not check ({len(sec.unknown)})</summary>", ""]
        out += [f"- {', '.join(md_code(i) for i in ids)} — {md_inline(message)}"
                + (f" → *{md_inline(hint)}*" if hint else "")
                for ids, message, hint in grouped_unknowns(sec.unknown)]
        out += ["", "</details>", ""]
    if sec.waived:
        out += ["### Waived", ""]
        out += [f"- {md_code(r.id)} ({r.status}) — waived: {md_inline(r.waiver.reason if r.waiver else '')}"
                + (f" (until {r.waiver.expires})" if r.waiver and r.waiver.expires else "") for r in sec.waived]
        out.append("")
    if report.expired_waivers:
        out += ["### Expired waivers", ""]
        out += [f"- {md_code(w.id)} expired {w.expires}: {md_inline(w.reason)}" for w in report.expired_waivers]
        out.append("")
    unknown_ids = unknown_waivers(report.unused_waivers)
    if unknown_ids:
        out += ["### Waivers naming no check", ""]
        out += [f"- {md_code(w.id)}" + (f" (nearest: {md_code(nearest)})" if nearest else "")
                + f": {md_inline(w.reason)} — not applied" for w, nearest in unknown_ids]
        out.append("")
    if sec.errors or report.timed_out or report.fact_errors:
        out += ["### Errors", ""]
        out += [f"- {md_code(r.id)} — {md_inline(r.message)}" for r in sec.errors]
        out += [f"- timed out: {md_inline(t)}" for t in report.timed_out]
        out += [f"- fact failed: {md_inline(t)}" for t in report.fact_errors]
        out.append("")
    if sec.not_applicable and verbose:
        out += ["<details><summary>Not applicable here</summary>", ""]
        out += [f"- {md_code(r.id)} — {md_inline(r.message)}" for r in sec.not_applicable]
        out += ["", "</details>", ""]
    out += topology_block(report)
    for section in report.appended():  # the investigators' findings, last (stackaudit investigate)
        out += section.markdown()
    return "\n".join(out).rstrip() + "\n"


def topology_block(report: Report) -> list[str]:
    """The topology as a Mermaid `graph` (GitHub draws it inline), on a host with two GPUs or a PCI tree.
    Labels keep letters, digits and a few marks only (report.topology_svg), so no host text breaks it."""
    from stackaudit.report.topology import faults, topology_from_json
    from stackaudit.report.topology_svg import mermaid_lines

    topology = topology_from_json(report.topology)
    if not topology.drawable:
        return []
    found = faults(topology, report.results)
    legend = "Edges between GPUs: their `nvidia-smi topo -m` kind (NV# NVLink, PIX/PXB PCIe switches, PHB host bridge, " \
             "NODE same socket, SYS across sockets); findings outlined in red."
    return ["### Topology", "", legend, "", "```mermaid", *mermaid_lines(topology, found), "```", ""]
