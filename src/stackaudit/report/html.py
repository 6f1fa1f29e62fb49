"""The HTML report: one self-contained file (inline CSS, JS and SVG; no font, image or script is fetched,
and the page's Content-Security-Policy forbids any fetch), fit to attach to a ticket and open offline.

Every host value goes through `esc` (html.escape with quotes), so a hostile host name, model string or
message cannot add markup. The page has the text report's sections, each result a <details> that opens
to its evidence, fix steps (each command with a copy button) and references; filters by priority,
domain and status (plain JS); the topology as inline SVG (report.topology_svg); and, when a
measurement or a ceiling is known, the charts (report.charts). `page` is the shell the bench and
ceiling pages share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.render.escape import esc
from stackaudit.render.text import show_value
from stackaudit.report.charts import Bar, ladder_chart
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
from stackaudit.report.next_steps import run_next
from stackaudit.report.sections import (
    RenderOptions,
    fix_cost_text,
    headline_lines,
    provenance_line,
    sections,
    top_finding,
)
from stackaudit.report.topology import faults, topology_from_json
from stackaudit.report.topology_svg import FAULT_WORDS, render_svg
from stackaudit.report.waivers import unknown_waivers

STATUSES = ("issue", "not-an-issue", "ok", "unknown", "not-applicable", "error")
PRIORITY_FILTERS = ("P0", "P1", "P2", "none")


# No external anything: the policy forbids every fetch, the styles and script are inline.
_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'none'; "
        "connect-src 'none'; font-src 'none'; form-action 'none'; base-uri 'none'")

_CSS = """
:root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#fff;--p0:#b91c1c;--p1:#c2410c;--p2:#a16207;--ok:#15803d}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);
background:var(--bg);margin:0 auto;max-width:1200px;padding:16px 24px}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
h3{font-size:15px;margin:16px 0 6px}code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;margin:4px 0;
white-space:pre-wrap;word-break:break-word}.muted{color:var(--muted)}.verdict{font-size:16px;margin:8px 0}
.headline{margin:2px 0}.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600;
color:#fff;background:var(--muted);margin-right:6px}.badge.P0{background:var(--p0)}.badge.P1{background:var(--p1)}
.badge.P2{background:var(--p2)}.badge.ok{background:var(--ok)}.badge.not-an-issue{background:#0369a1}
.badge.unknown{background:#6b7280}.badge.error{background:#7c3aed}.badge.not-applicable{background:#9ca3af}
details.result{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:6px 10px}
details.result>summary{cursor:pointer}details.result[open]{background:#fcfcfd}.rid{color:var(--muted);font-size:12px}
.where{color:var(--p1)}#filters{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:12px 0;
display:flex;flex-wrap:wrap;gap:6px 18px}#filters fieldset{border:0;margin:0;padding:0}
#filters legend{font-weight:600;font-size:12px;color:var(--muted)}#filters label{margin-right:8px;white-space:nowrap}
#shown{font-size:12px;color:var(--muted);align-self:center}button.copy{font-size:11px;margin-left:6px;cursor:pointer}
.cmd{display:flex;align-items:flex-start;gap:4px}.cmd pre{flex:1}ul{margin:4px 0;padding-left:22px}
.kv{color:var(--muted)}svg text{font-family:system-ui,sans-serif}.topology-wrap,.charts{overflow-x:auto}
svg.topology .socket rect{fill:#f8fafc;stroke:#cbd5e1}svg.topology .socket-label{font-size:11px;fill:#475569}
svg.topology .node rect{fill:#fff;stroke:#334155}svg.topology .gpu rect{fill:#ecfdf5;stroke:#047857;stroke-width:1.5}
svg.topology .gpu.lost rect{fill:#fee2e2;stroke:#b91c1c;stroke-dasharray:4 2}svg.topology .nic rect{fill:#eff6ff}
svg.topology .nvswitch rect{fill:#f0fdf4}svg.topology .switch rect{fill:#f5f3ff}
svg.topology .node-name{font-size:11px;font-weight:600}svg.topology .node-kind,svg.topology .node-detail{font-size:9.5px;fill:#475569}
svg.topology .tree-edge{stroke:#94a3b8;stroke-width:1.2}svg.topology .pair-edge{fill:none;stroke-width:1.6;opacity:.8}
svg.topology .pair-edge.kind-NV{stroke-width:2.4}svg.topology .tp-group rect{fill:none;stroke:#7c3aed;stroke-width:1.5;
stroke-dasharray:6 3}svg.topology .tp-label{font-size:11px;fill:#6d28d9}svg.topology .fault circle,.fault-dot{fill:#dc2626;
stroke:#fff;stroke-width:1.5}svg.topology .fault text{fill:#fff;font-size:11px;font-weight:700}
svg.topology .legend text{font-size:11px}svg.topology .legend-note{fill:#64748b}
svg.chart .grid{stroke:#eef2f7}svg.chart .tick,svg.chart .value{font-size:10.5px;fill:#475569}
svg.chart .axis{font-size:11.5px;fill:#334155}svg.chart .chart-title{font-size:13px;font-weight:600}
svg.chart .legend{font-size:11px}svg.chart .bar{fill:#93c5fd}svg.chart .bar.binding{fill:#2563eb}
svg.chart .measured{stroke:#dc2626;stroke-width:2;stroke-dasharray:4 2}svg.chart .measured-label{font-size:11px;fill:#dc2626}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid var(--line);padding:3px 8px;text-align:left;font-size:13px}
th{background:#f8fafc}td.num{text-align:right}
"""

_JS = """
(function(){
  function apply(){
    var on={};
    document.querySelectorAll('#filters input[type=checkbox]').forEach(function(b){
      (on[b.dataset.filter]=on[b.dataset.filter]||{})[b.value]=b.checked;});
    var shown=0,total=0;
    document.querySelectorAll('.result').forEach(function(r){
      var ok=['priority','domain','status'].every(function(k){var m=on[k];return !m||m[r.dataset[k]]!==false;});
      r.hidden=!ok;total++;if(ok)shown++;});
    document.querySelectorAll('section.results').forEach(function(s){
      var any=s.querySelector('.result:not([hidden])');s.classList.toggle('empty',!any);
      var n=s.querySelector('.count');if(n)n.textContent=s.querySelectorAll('.result:not([hidden])').length;});
    var c=document.getElementById('shown');if(c)c.textContent=shown+' of '+total+' results shown';
  }
  document.querySelectorAll('#filters input').forEach(function(b){b.addEventListener('change',apply);});
  document.querySelectorAll('button.copy').forEach(function(b){
    b.addEventListener('click',function(){
      var text=b.dataset.copy||'';
      function done(){b.textContent='copied';setTimeout(function(){b.textContent='copy';},1500);}
      try{if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(text).then(done,function(){});return;}}
      catch(e){}
      var t=document.createElement('textarea');t.value=text;document.body.appendChild(t);t.select();
      try{document.execCommand('copy');done();}catch(e){}document.body.removeChild(t);
    });});
  apply();
})();
"""


def page(title: str, body: Sequence[str], script: bool = True, extra_css: str = "", extra_script: str = "") -> str:
    """The self-contained page: the policy, the inline style, the body, the inline script (the audit's
    filters when `script`; a page's own in `extra_script`, inline too: the policy allows no other)."""
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_CSS}{extra_css}</style></head>\n<body>\n",
        "\n".join(body),
        f"\n<script>{_JS}</script>" if script else "",
        f"\n<script>{extra_script}</script>" if extra_script else "",
        "\n</body></html>\n",
    ])


def _commands_html(result: Result) -> list[str]:
    fix = result.fix
    if fix is None:
        return []
    out = ["<ol class=\"fix-steps\">" if len(fix.steps) > 1 else "<div class=\"fix-steps\">"]
    open_item = False
    for line in fix_lines(fix):
        if line.kind == "prose":
            if line.number is not None:
                if open_item:
                    out.append("</li>")
                out.append("<li>")
                open_item = True
            out.append(f'<p class="fix-prose depth-{line.depth}">{esc(line.text)}</p>')
        else:
            out.append(f'<div class="cmd"><pre class="{line.kind}"><code>{esc(line.text)}</code></pre>'
                       f'<button type="button" class="copy" data-copy="{esc(line.text)}" '
                       f'title="copy to the clipboard">copy</button></div>')
    if open_item:
        out.append("</li>")
    out.append("</ol>" if len(fix.steps) > 1 else "</div>")
    return out


def _result_html(r: Result, report: Report, pod: bool) -> str:
    where = where_to_apply(r, report)
    priority = r.priority or "none"
    badge = r.priority if r.priority and r.status == "issue" else r.status
    summary = (f'<summary><span class="badge {esc(badge)}">{esc(badge)}</span>{esc(finding_title(r))} '
               f'<span class="rid">{esc(r.id)}</span>' + (f' <span class="muted">{esc(coverage_note(r))}</span>'
                                                          if coverage_note(r) else "")+ (f' <span class="where">— {esc(where)}</span>' if where else "")
               + (" <span class=\"muted\">(waived)</span>" if r.waived else "") + "</summary>")
    body = [f"<p>{esc(r.message)}</p>"]
    evidence = evidence_line(r)
    if evidence:
        body.append(f'<p class="kv">{esc(evidence)}</p>')
    if r.subjects:
        body.append(f'<p class="kv">subjects: {esc(", ".join(r.subjects[:12]))}'
                    f"{' …' if len(r.subjects) > 12 else ''}</p>")
    body.append(f'<p class="kv">observed: <code>{esc(show_value(r.actual, 400))}</code>'
                + (f" · expected: <code>{esc(show_value(r.expected, 200))}</code>" if r.expected is not None else "")
                + "</p>")
    if r.why:
        body.append(f"<p><b>Why:</b> {esc(r.why)}"
                    + (f' <span class="muted">(severity {esc(r.severity)}, evidence: {esc(r.confidence)})</span>'
                       if r.severity else "") + "</p>")
    if r.hint:
        body.append(f'<p class="kv">to tell: {esc(r.hint)}</p>')
    if r.evidence:
        body.append("<h4>Evidence</h4><pre class=\"evidence\">" + esc("\n".join(r.evidence[:20])) + "</pre>")
    if r.provenance:
        body.append(f'<p class="kv">{esc(provenance_line(r, limit=6))}</p>')
    if r.fix is not None and r.status == "issue":
        body.append(f"<h4>Fix — {esc(fix_cost_text(r, where, pod))}</h4>")
        body += _commands_html(r)
    if r.waiver is not None:
        body.append(f'<p class="kv">waived: {esc(r.waiver.reason)}'
                    + (f" (until {esc(r.waiver.expires)})" if r.waiver.expires else "") + "</p>")
    if r.references:
        body.append("<h4>References</h4><ul class=\"refs\">" + "".join(
            f'<li><a href="{esc(ref)}" rel="noreferrer noopener">{esc(ref)}</a></li>' if ref.startswith("https://")
            else f"<li>{esc(ref)}</li>" for ref in r.references) + "</ul>")
    return (f'<details class="result" id="result-{esc(r.id)}" data-id="{esc(r.id)}" data-priority="{esc(priority)}" '
            f'data-domain="{esc(r.domain)}" data-status="{esc(r.status)}">{summary}{"".join(body)}</details>')


def _section(section_id: str, title: str, results: Sequence[Result], report: Report, pod: bool,
             note: str = "") -> list[str]:
    if not results:
        return []
    out = [f'<section class="results" id="{section_id}"><h2>{esc(title)} (<span class="count">{len(results)}</span>)</h2>']
    if note:
        out.append(f'<p class="muted">{esc(note)}</p>')
    out += [_result_html(r, report, pod) for r in results]
    out.append("</section>")
    return out


def _filters(report: Report) -> list[str]:
    domains = sorted({r.domain for r in report.results})
    present_status = {r.status for r in report.results}
    boxes = [("priority", PRIORITY_FILTERS), ("domain", tuple(domains)),
             ("status", tuple(s for s in STATUSES if s in present_status))]
    out = ['<div id="filters" role="group" aria-label="filters">']
    for name, values in boxes:
        out.append(f'<fieldset data-filter="{name}"><legend>{name}</legend>' + "".join(
            f'<label><input type="checkbox" data-filter="{name}" value="{esc(v)}" id="filter-{name}-{esc(v)}" checked> '
            f"{esc(v)}</label>" for v in values) + "</fieldset>")
    out.append('<span id="shown"></span></div>')
    return out


def _topology_section(report: Report) -> list[str]:
    topology = topology_from_json(report.topology)
    if not topology.gpus and not topology.bridges:
        return ['<section id="topology-section"><h2>Topology</h2>'
                '<p class="muted" id="no-topology">No GPU and no PCI tree in this source: nothing to draw.</p></section>']
    found = faults(topology, report.results)
    out = ['<section id="topology-section"><h2>Topology</h2>', f'<div class="topology-wrap">{render_svg(topology, found)}</div>']
    if found:
        out.append('<ul id="topology-faults">' + "".join(
            f'<li data-fault="{esc(f.kind)}">{esc(FAULT_WORDS[f.kind])}: {esc(f.text)}'
            + (f' (<a href="#result-{esc(f.check)}">{esc(f.check)}</a>)' if f.check else "") + "</li>" for f in found)
            + "</ul>")
    if topology.tp:
        out.append(f'<p class="muted">Recommended TP{topology.tp.size} groups ({esc(topology.tp.basis)}): '
                   + esc(" | ".join(",".join(g) for g in topology.tp.groups)) + "</p>")
    out.append("</section>")
    return out


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _charts_section(report: Report) -> list[str]:
    """The measured decode rate against the ceiling, when `audit --measured` or a ceiling gave them."""
    h = report.host
    measured: dict[str, Any] = h["measured"] if isinstance(h.get("measured"), dict) else {}
    ceiling = _number(h.get("ceiling_tok_s")) or _number(measured.get("ceiling_tok_s"))
    rate = _number(measured.get("decode_tok_s"))
    if ceiling is None and rate is None:
        return []
    # The ladder's rungs (`stackaudit ceiling`'s names), the last one the headline's figure.
    ladder = [(str(r.get("name")), _number(r.get("tok_s"))) for r in h.get("ceiling_ladder") or []
              if isinstance(r, dict)]  # fmt: skip
    rungs = [(name, value) for name, value in ladder if value is not None]
    if rungs:
        bars = [Bar(name, value, binding=i == len(rungs) - 1) for i, (name, value) in enumerate(rungs)]
    else:
        bars = [Bar("ceiling (concurrency 1)", ceiling, binding=True)] if ceiling is not None else []
    if rate is not None:
        bars.append(Bar("measured decode", rate))
    chart = ladder_chart("chart-ceiling", "Decode tokens/s per stream: the ceiling's ladder and measured",
                         "tokens/s per stream",
                         bars, measured=rate)
    out = ['<section id="charts" class="charts"><h2>Measured against the ceiling</h2>', chart]
    if measured.get("line"):
        out.append(f'<p class="muted">{esc(measured["line"])}</p>')
    out.append("</section>")
    return out


def render_html(report: Report, options: RenderOptions | None = None) -> str:
    options = options or RenderOptions()
    sec = sections(report)
    pod = report.host.get("container") == "kubernetes"
    body = ["<header>", "<h1>stackaudit report</h1>", f'<p class="muted" id="identity">{esc(identity_line(report))}</p>']
    invoked = command_line(options.argv)
    if invoked:
        body.append(f"<p><code>{esc(invoked)}</code></p>")
    body.append(f'<p class="verdict" id="verdict"><b>Verdict:</b> {esc(verdict(report, top_finding(sec)))}.</p>')
    body += [f'<p class="headline">{esc(line)}</p>' for line in headline_lines(report)]
    body.append("</header>")
    body += _filters(report)
    fixes = [r for p in ("P0", "P1", "P2") for r in sec.fixes[p]]
    if not fixes:
        body.append('<section class="results" id="sec-fixes"><h2>Actionable fixes</h2><p>No actionable fixes.</p></section>')
    body += _section("sec-fixes", "Actionable fixes", fixes, report, pod)
    body += _topology_section(report)
    body += _charts_section(report)
    body += _section("sec-negatives", "Key negative results (looks wrong, is fine here)", sec.negatives, report, pod)
    body += _section("sec-good", "Confirmed good", sec.good, report, pod)
    steps = run_next(sec.to_settle, engines=report.host.get("engines") or [])
    if steps:
        body.append(f'<section id="sec-run-next"><h2>{esc(sec.run_next_heading())}</h2><ol>')
        for step in steps:
            what = f"settles {len(step.settles)}: {', '.join(step.settles)}"
            if step.command:
                body.append(f'<li><div class="cmd"><pre><code>{esc(step.text)}</code></pre><button type="button" '
                            f'class="copy" data-copy="{esc(step.text)}">copy</button></div>'
                            f'<span class="muted">{esc(what)}'
                            + (f" — {esc(step.adds)}" if step.adds else "") + "</span></li>")
            else:
                body.append(f'<li>{esc(step.text)} <span class="muted">({esc(what)})</span></li>')
        body.append("</ol></section>")
    body += _section("sec-unknown", "Could not check", sec.unknown, report, pod)
    body += _section("sec-waived", "Waived", sec.waived, report, pod)
    if report.expired_waivers:
        body.append('<section id="sec-expired"><h2>Expired waivers</h2><ul>' + "".join(
            f"<li><code>{esc(w.id)}</code> expired {esc(w.expires)}: {esc(w.reason)}</li>" for w in report.expired_waivers)
            + "</ul></section>")
    unknown_ids = unknown_waivers(report.unused_waivers)
    if unknown_ids:
        body.append('<section id="sec-unknown-waivers"><h2>Waivers naming no check</h2><ul>' + "".join(
            f"<li><code>{esc(w.id)}</code>" + (f" (nearest: <code>{esc(nearest)}</code>)" if nearest else "")
            + f": {esc(w.reason)} — not applied</li>" for w, nearest in unknown_ids) + "</ul></section>")
    body += _section("sec-errors", "Errors", sec.errors, report, pod)
    if report.timed_out or report.fact_errors:
        body.append('<section id="sec-fact-errors"><h2>Timed out and failed facts</h2><ul>'
                    + "".join(f"<li>timed out: {esc(t)}</li>" for t in report.timed_out)
                    + "".join(f"<li>fact failed: {esc(t)}</li>" for t in report.fact_errors) + "</ul></section>")
    body += _section("sec-not-applicable", "Not applicable here", sec.not_applicable, report, pod)
    body.append(f'<footer class="muted"><p>{esc(report.tool.get("name", "stackaudit"))} '
                f'{esc(report.tool.get("version", ""))} · {len(report.results)} checks</p></footer>')
    return page(f"stackaudit report — {report.host.get('hostname') or '?'}", body)
