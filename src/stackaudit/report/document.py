"""The audit report as one render.document.Document, built once from the engine's Report and drawn in text,
Markdown and HTML by render.document.draw; the JSON is its payload (report.json_report).

The head: who made it, from what, the verdict and the headline. Then the fixes first (P0, P1, P2, each ranked),
the key negative results, the confirmed good, what to run next, what could not be checked, the waivers, the
errors, then the topology; a product's appended sections (investigate's findings) come last.
Folded sections hold the detail Markdown and HTML let a reader open (text leaves them out); --verbose shows
that detail open.
"""

from __future__ import annotations

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.render.document import (
    Block,
    Code,
    Command,
    Document,
    Finding,
    Notes,
    Paragraph,
    Section,
    Table,
)
from stackaudit.render.text import show_value
from stackaudit.report.fix_steps import fix_blocks
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
    Sections,
    fix_cost_text,
    grouped_unknowns,
    headline_lines,
    provenance_entries,
    provenance_line,
    sections,
    top_finding,
)
from stackaudit.report.waivers import unknown_waivers

TITLE = "stackaudit report"


def audit_document(report: Report, options: RenderOptions | None = None) -> Document:
    """The report's document: every section in its order, the appended ones last."""
    from stackaudit.report.json_report import report_to_json

    options = options or RenderOptions()
    sec = sections(report)
    head: list[Block] = [Paragraph(identity_line(report))]
    invoked = command_line(options.argv)
    if invoked:
        head.append(Command(invoked))
    head += [Paragraph(line) for line in headline_lines(report)]
    body = [Section("", tuple(head)), _fixes(report, sec, options.verbose), *_negatives(sec, options.verbose),
            *_good(sec, options.verbose), *_run_next(report, sec, options.verbose), *_waivers(report, sec),
            *_errors(report, sec), *_not_applicable(sec, options.verbose), *_topology(report),
            Section("", (Paragraph(f"{len(report.results)} checks in {report.duration_s:.2f} s"),))]
    for part in report.appended():
        body += part.sections()
    return Document("audit", TITLE, f"{verdict(report, top_finding(sec))}.", tuple(body),
                    report_to_json(report, options))


def _sources(r: Result, verbose: bool) -> list[str]:
    """Where the finding comes from: one line (every source, one a line, with --verbose)."""
    if not r.provenance:
        return []
    if not verbose:
        return [provenance_line(r, limit=1)]
    return [("from " if i == 0 else "") + entry for i, entry in enumerate(provenance_entries(r, limit=8))]


def _issue(r: Result, report: Report, verbose: bool) -> Finding:
    where = where_to_apply(r, report)
    title = f"{finding_title(r)} [{r.id}]{coverage_note(r)}" + (f" — {where}" if where else "")
    detail = [line for line in (evidence_line(r),) if line] + _sources(r, verbose)
    if verbose:
        detail += [r.message, f"expected: {show_value(r.expected)}"]
        detail += [f"why: {r.why} (severity {r.severity}, evidence: {r.confidence})"] if r.why else []
        detail += [f"see: {ref}" for ref in r.references[:4]]
    blocks: tuple[Paragraph | Code | Command, ...] = ()
    if r.fix is not None:
        pod = report.host.get("container") == "kubernetes"
        blocks = (Paragraph(f"fix: {fix_cost_text(r, where, pod)}"), *fix_blocks(r.fix, depth=1))
    return Finding(r.priority or "", title, tuple(detail), blocks)


def _fixes(report: Report, sec: Sections, verbose: bool) -> Section:
    issues = [_issue(r, report, verbose) for results in sec.fixes.values() for r in results]
    return Section("Actionable fixes", tuple(issues) or (Paragraph("No actionable fixes."),))


def _negatives(sec: Sections, verbose: bool) -> list[Section]:
    if not sec.negatives:
        return []
    found = tuple(Finding(r.id, finding_title(r) + coverage_note(r),
                          tuple(([r.message] if verbose else []) + _sources(r, verbose))) for r in sec.negatives)
    why = Notes(tuple(f"`{r.id}`: {r.message}" for r in sec.negatives))
    return [Section("Key negative results (looks wrong, is fine here)", found),
            *([] if verbose else [Section("Why each is fine here", (why,), folded=True)])]


def _good(sec: Sections, verbose: bool) -> list[Section]:
    if not sec.good:
        return []
    heading = f"Confirmed good ({len(sec.good)})"
    listed: Block = (Notes(tuple(f"{r.id}{coverage_note(r)}: {r.message}" for r in sec.good)) if verbose
                     else Paragraph(", ".join(r.id + coverage_note(r) for r in sec.good)))
    table = Table(("check", "observed", "note"), tuple(
        (Code(r.id), show_value(r.actual, 60), r.message + coverage_note(r)) for r in sec.good))
    return [Section(heading, (listed,)), Section(f"{heading}: what each showed", (table,), folded=True)]


def _run_next(report: Report, sec: Sections, verbose: bool) -> list[Section]:
    out = []
    steps = run_next(sec.to_settle, engines=report.host.get("engines") or [])
    blocks: list[Block] = []
    for i, step in enumerate(steps, 1):
        count = len(step.settles)
        what = f"settles {count} check{'s' if count != 1 else ''}: {', '.join(step.settles)}"
        if step.command:
            blocks += [Paragraph(f"{i}. {what}" + (f" — {step.adds}" if step.adds else "")), Command(step.text, 1)]
        else:
            blocks.append(Paragraph(f"{i}. {step.text} ({what})"))
    if sec.unknown and not verbose:
        blocks.append(Paragraph("(--verbose: what each of them lacks)"))
    if steps:
        out.append(Section(sec.run_next_heading(), tuple(blocks)))
    if sec.unknown:
        lacks = Notes(tuple(f"{', '.join(ids)}: {message}" + (f" → {hint}" if hint else "")
                            for ids, message, hint in grouped_unknowns(sec.unknown)))
        out.append(Section(f"Could not check ({len(sec.unknown)})", (lacks,), folded=not verbose))
    return out


def _waivers(report: Report, sec: Sections) -> list[Section]:
    out = []
    if sec.waived:
        out.append(Section("Waived", (Notes(tuple(
            f"{r.id} ({r.status}) — waived: {r.waiver.reason if r.waiver else ''}"
            + (f" (until {r.waiver.expires})" if r.waiver and r.waiver.expires else "") for r in sec.waived)),)))
    if report.expired_waivers:
        out.append(Section("Expired waivers", (Notes(tuple(
            f"expired waiver {w.id} ({w.expires}): {w.reason} — no longer applied" for w in report.expired_waivers)),)))
    unknown_ids = unknown_waivers(report.unused_waivers)
    if unknown_ids:
        out.append(Section("Waivers naming no check", (Notes(tuple(
            f"unknown check ID in a waiver: {w.id}" + (f" (nearest: {nearest})" if nearest else "")
            + f": {w.reason} — not applied"
            for w, nearest in unknown_ids)),)))
    return out


def _errors(report: Report, sec: Sections) -> list[Section]:
    lines = ([f"{r.id}: {r.message}" for r in sec.errors] + [f"timed out: {t}" for t in report.timed_out]
             + [f"fact failed: {t}" for t in report.fact_errors])
    return [Section("Errors", (Notes(tuple(lines)),))] if lines else []


def _not_applicable(sec: Sections, verbose: bool) -> list[Section]:
    """Checks that cannot apply here, with --verbose only."""
    if not sec.not_applicable or not verbose:
        return []
    lines = Notes(tuple(f"{r.id}: {r.message}" for r in sec.not_applicable))
    return [Section(f"Not applicable here ({len(sec.not_applicable)})", (lines,))]


def _topology(report: Report) -> list[Section]:
    """The topology as a Mermaid `graph` (GitHub draws it inline), on a host with two GPUs or a PCI tree.
    Labels keep letters, digits and a few marks only (report.topology_svg), so no host text breaks it."""
    from stackaudit.report.topology import faults, topology_from_json
    from stackaudit.report.topology_svg import mermaid_lines

    topology = topology_from_json(report.topology)
    if not topology.drawable:
        return []
    legend = ("Edges between GPUs: their `nvidia-smi topo -m` kind (NV# NVLink, PIX/PXB PCIe switches, PHB host "
              "bridge, NODE same socket, SYS across sockets); findings outlined in red.")
    picture = Code("\n".join(mermaid_lines(topology, faults(topology, report.results))), "mermaid")
    return [Section("Topology", (Paragraph(legend), picture), folded=True)]
