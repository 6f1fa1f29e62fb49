"""The audit report as one render.document.Document, built once from the engine's Report and drawn in text,
Markdown and HTML by render.document.draw; the JSON is its payload (report.json_report).

The head: who made it, from what, the verdict and the headline. Then the fixes first (P0, P1, P2, each ranked),
the key negative results, the confirmed good, what to run next, what could not be checked, the waivers, the
errors, then the topology; a product's appended sections (investigate's findings) come last.
Folded sections hold the detail Markdown and HTML let a reader open (text leaves them out); --verbose shows
that detail open. Each result's finding is tagged with its priority, domain and status (the HTML page's
filters) and carries, for the HTML page, what the check saw and why.
"""

from __future__ import annotations

from typing import Any

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
    Picture,
    Section,
)
from stackaudit.render.text import show_value
from stackaudit.report.fix_steps import fix_blocks
from stackaudit.report.header import (
    command_line,
    coverage_note,
    evidence_line,
    finding_reason,
    finding_title,
    identity_line,
    reason_line,
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
    provenance_line,
    sections,
    top_finding,
)
from stackaudit.report.waivers import unknown_waivers

TITLE = "stackaudit report"
# A priority's tone (render.document.TONES): the badge's colour on the page, the line's colour in text.
PRIORITY_TONE = {"P0": "alarm", "P1": "warn", "P2": "note"}


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
            *_errors(report, sec), *_not_applicable(sec, options.verbose), *_topology(report), *_charts(report),
            Section("", (Paragraph(f"{len(report.results)} checks in {report.duration_s:.2f} s"),))]
    for part in report.appended():
        body += part.sections()
    return Document("audit", TITLE, f"{verdict(report, top_finding(sec))}.", tuple(body),
                    lambda: report_to_json(report, options))


def _sources(r: Result, verbose: bool) -> list[str]:
    """Where the finding comes from, in one line: the first source (up to 8 with --verbose) and the count of
    the rest."""
    return [provenance_line(r, limit=8 if verbose else 1)] if r.provenance else []


def _tags(r: Result) -> tuple[tuple[str, str], ...]:
    return ("priority", r.priority or "none"), ("domain", r.domain), ("status", r.status)


def _observed(r: Result) -> str:
    return f"observed: {show_value(r.actual, 400)}" + (
        f" · expected: {show_value(r.expected, 200)}" if r.expected is not None else "")


def _why(r: Result) -> list[str]:
    """What the check saw and why it matters: the message, the observed and expected values, the reason, how to
    tell, the verbatim lines, the waiver and the references."""
    out = [r.message, _observed(r)]
    rated = ", ".join(f"{name} {value}" for name, value in (("severity", r.severity), ("evidence:", r.confidence))
                      if value)
    out += [f"why: {r.why}" + (f" ({rated})" if rated else "")] if r.why else []
    out += [f"to tell: {r.hint}"] if r.hint else []
    out += [f"subjects: {', '.join(r.subjects[:12])}{' …' if len(r.subjects) > 12 else ''}"] if r.subjects else []
    out += [f"“{line}”" for line in r.evidence[:20]]
    if r.waiver is not None:
        out.append(f"waived: {r.waiver.reason}" + (f" (until {r.waiver.expires})" if r.waiver.expires else ""))
    return out + [f"see: {ref}" for ref in r.references]


def _result(r: Result, label: str, title: str, detail: list[str], verbose: bool,
            blocks: tuple[Paragraph | Code | Command, ...] = (), tone: str = "") -> Finding:
    """A result's finding: `detail` shown, what the check saw under it (shown with --verbose, else on the page),
    each line once."""
    why = [line for line in _why(r) if line not in detail and line != title]
    return Finding(label, title, tuple(detail + (why if verbose else [])), blocks, () if verbose else tuple(why),
                   _tags(r), f"result-{r.id}", tone)


def _issue(r: Result, report: Report, verbose: bool) -> Finding:
    where = where_to_apply(r, report)
    title = f"{finding_title(r)} [{r.id}]{coverage_note(r)}" + (f" ({where})" if where else "")
    detail = [line for line in (reason_line(r), evidence_line(r)) if line] + _sources(r, verbose)
    blocks: tuple[Paragraph | Code | Command, ...] = ()
    if r.fix is not None:
        pod = report.host.get("container") == "kubernetes"
        blocks = (Paragraph(f"fix: {fix_cost_text(r, where, pod)}"), *fix_blocks(r.fix, depth=1))
    return _result(r, r.priority or "", title, detail, verbose, blocks, PRIORITY_TONE.get(r.priority or "", ""))


def _fixes(report: Report, sec: Sections, verbose: bool) -> Section:
    issues = [_issue(r, report, verbose) for results in sec.fixes.values() for r in results]
    return Section("Actionable fixes", tuple(issues) or (Paragraph("No actionable fixes."),))


def _negatives(sec: Sections, verbose: bool) -> list[Section]:
    """What looks wrong and is fine here, each with its reason: the reason is the answer a user came for."""
    if not sec.negatives:
        return []
    found = tuple(_result(r, "", f"{finding_title(r)} [{r.id}]{coverage_note(r)}",
                          [line for line in (finding_reason(r),) if line] + _sources(r, verbose), verbose)
                  for r in sec.negatives)
    return [Section("Key negative results (looks wrong, is fine here)", found)]


def _good(sec: Sections, verbose: bool) -> list[Section]:
    if not sec.good:
        return []
    heading = f"Confirmed good ({len(sec.good)})"
    listed: Block = (Notes(tuple(f"{r.id}{coverage_note(r)}: {r.message}" for r in sec.good)) if verbose
                     else Paragraph(", ".join(r.id + coverage_note(r) for r in sec.good)))
    each = tuple(_result(r, r.id, r.message + coverage_note(r), [_observed(r)], False, tone="good")
                 for r in sec.good)
    return [Section(heading, (listed,)), Section(f"{heading}: what each showed", each, folded=True)]


def _run_next(report: Report, sec: Sections, verbose: bool) -> list[Section]:
    out = []
    steps = run_next(sec.to_settle, host=report.host)
    blocks: list[Block] = []
    for i, step in enumerate(steps, 1):
        rest = [c for c in step.settles if c not in step.confirms]
        count = len(rest)
        what = "; ".join(([f"settles {count} check{'s' if count != 1 else ''}: {', '.join(rest)}"] if rest else [])
                         + ([f"confirms for the GPUs not shown: {', '.join(step.confirms)}"] if step.confirms else []))
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
    lines = Notes(tuple(f"{r.id}{coverage_note(r)}: {r.message}" for r in sec.not_applicable))
    return [Section(f"Not applicable here ({len(sec.not_applicable)})", (lines,))]


def _topology(report: Report) -> list[Section]:
    """The topology: inline SVG on the page; a Mermaid `graph` in Markdown (GitHub draws it inline) on a host
    with two GPUs or a PCI tree. Labels keep letters, digits and a few marks only (report.topology_svg), so no
    host text breaks either."""
    from stackaudit.report.topology import faults, topology_from_json
    from stackaudit.report.topology_svg import FAULT_WORDS, TOPOLOGY_CSS, mermaid_lines, render_svg

    topology = topology_from_json(report.topology)
    if not topology.gpus and not topology.bridges:  # said on the page only (text and Markdown leave it out)
        return [Section("Topology", (Picture('<p id="no-topology">No GPU and no PCI tree in this source: '
                                             "nothing to draw.</p>"),))]
    found = faults(topology, report.results)
    source = Code("\n".join(mermaid_lines(topology, found)), "mermaid") if topology.drawable else None
    legend = ("Edges between GPUs: their `nvidia-smi topo -m` kind (NV# NVLink, PIX/PXB PCIe switches, PHB host "
              "bridge, NODE same socket, SYS across sockets); findings outlined in red.")
    if topology.tp:
        legend += (f" Recommended TP{topology.tp.size} groups ({topology.tp.basis}): "
                   + " | ".join(",".join(g) for g in topology.tp.groups) + ".")
    # The drawing's key: each fault once more in words, linked to the finding that names it.
    listed = Notes(tuple(f"{FAULT_WORDS[f.kind]}: {f.text}" + (f" ({f.check})" if f.check else "") for f in found),
                   tuple(f"#result-{f.check}" if f.check else "" for f in found))
    return [Section("Topology", (Picture(render_svg(topology, found), TOPOLOGY_CSS, source, legend,
                                         listed if found else None),))]


def _charts(report: Report) -> list[Section]:
    """The measured decode rate against the ceiling's ladder, when `audit --measured` or a ceiling gave them
    (the page only: the headline says it in words)."""
    from stackaudit.report.charts import CHART_CSS, Bar, ladder_chart, number

    h = report.host
    measured: dict[str, Any] = h["measured"] if isinstance(h.get("measured"), dict) else {}
    ceiling = number(h.get("ceiling_tok_s")) or number(measured.get("ceiling_tok_s"))
    rate = number(measured.get("decode_tok_s"))
    if ceiling is None and rate is None:
        return []
    # The ladder's rungs (`stackaudit ceiling`'s names), the last one the headline's figure.
    rungs = [(str(r.get("name")), value) for r in h.get("ceiling_ladder") or [] if isinstance(r, dict)
             for value in [number(r.get("tok_s"))] if value is not None]
    bars = [Bar(name, value, binding=i == len(rungs) - 1) for i, (name, value) in enumerate(rungs)]
    if not bars and ceiling is not None:
        bars = [Bar("ceiling (concurrency 1)", ceiling, binding=True)]
    if rate is not None:
        bars.append(Bar("measured decode", rate))
    chart = ladder_chart("chart-ceiling", "Decode tokens/s per stream: the ceiling's ladder and measured",
                         "tokens/s per stream", bars, measured=rate)
    return [Section("Measured against the ceiling", (Picture(chart, CHART_CSS),))]
