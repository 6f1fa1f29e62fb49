"""`fleet --format html`: the fleet report as one self-contained page (report.html.page: the audit's
policy forbidding any fetch, its inline style), built from the fleet document alone.

The parts are the text report's, in its order: the verdict; the groups; one table row per node; the drift
within each group; the issues every node shares; the failed nodes; the --fail-on gate. A node filter (the
rows whose node name contains the text) and an "only nodes with drift or P0" toggle run as inline script.
For a fleet of 1000 nodes a difference held by many names the first few and "and N more", the whole list
in a <details>, so the page stays readable. Every value comes from hosts and goes through `esc`.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackaudit.fleet.document import DriftEntry, FleetDocument
from stackaudit.fleet.summary import NAMED, others, source_line, where
from stackaudit.render.escape import esc
from stackaudit.render.text import plural
from stackaudit.report.html import page

_CSS = """
.badge.partial{background:#a16207}.badge.failed{background:#7c3aed}.badge.tie{background:#0369a1}
td.hit{color:var(--p0);font-weight:600}tr.odd-row td:first-child{white-space:normal}
.nodes-more summary{cursor:pointer;color:var(--muted);font-size:12px}.nodes-more ul{columns:4 12em;font-size:12px}
#filters input[type=search]{font:inherit;padding:1px 6px;width:18em}.gate.failed{color:var(--p0)}
.gate.passed{color:var(--ok)}.table-wrap{overflow-x:auto}#nodes-table td{white-space:nowrap}
#nodes-table th{position:sticky;top:0}section.drift td:nth-child(2){white-space:nowrap}
"""

# The node filter and the toggle: a row stays when its node name (or, for a drift row, one of its nodes)
# contains the text, case-insensitively; the toggle keeps the node rows flagged as drift or P0.
_JS = """
(function(){
  var box=document.getElementById('node-filter'),only=document.getElementById('only-flagged');
  if(!box||!only)return;
  function has(name,q){return name.toLowerCase().indexOf(q)>=0;}
  function apply(){
    var q=box.value.toLowerCase(),flagged=only.checked,shown=0,total=0;
    document.querySelectorAll('tr.node-row').forEach(function(r){
      var ok=has(r.dataset.node,q)&&(!flagged||r.dataset.flagged==='1');
      r.hidden=!ok;total++;if(ok)shown++;});
    document.querySelectorAll('tr.failed-row').forEach(function(r){r.hidden=!has(r.dataset.node,q);});
    document.querySelectorAll('tr.odd-row').forEach(function(r){
      r.hidden=!Array.prototype.some.call(r.querySelectorAll('.n'),function(n){return has(n.textContent,q);});});
    var c=document.getElementById('nodes-shown');if(c)c.textContent=shown+' of '+total+' nodes shown';
  }
  box.addEventListener('input',apply);only.addEventListener('change',apply);apply();
})();
"""


def _names(nodes: Sequence[str]) -> str:
    """The first few nodes, then "and N more" with every node in a <details>; each name a `.n` span
    (what the node filter reads)."""
    shown = ", ".join(f'<span class="n">{esc(n)}</span>' for n in nodes[:NAMED])
    if len(nodes) <= NAMED:
        return shown
    rest = "".join(f'<li class="n">{esc(n)}</li>' for n in nodes[NAMED:])
    return (f'{shown} <details class="nodes-more"><summary>and {len(nodes) - NAMED} more</summary>'
            f"<ul>{rest}</ul></details>")


def _table(table_id: str, columns: Sequence[str], rows: Sequence[str]) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _count(n: int, hit: bool = False) -> str:
    return f'<td class="num{" hit" if hit and n else ""}">{n}</td>'


def _header(doc: FleetDocument) -> list[str]:
    out = ["<header><h1>stackaudit fleet</h1>", f'<p class="headline muted">{esc(source_line(doc))}</p>']
    if doc.get("command"):
        out.append(f'<p class="headline"><code>{esc(doc["command"])}</code></p>')
    out += [f'<p class="verdict" id="verdict"><b>Verdict: {esc(doc["verdict"])}</b></p>', "</header>"]
    return out


def _groups(doc: FleetDocument) -> list[str]:
    if not doc["groups"]:
        return []
    return ['<section id="groups"><h2>Groups</h2><p class="muted">Nodes that should be alike: same GPU model and '
            "count.</p><ul>" + "".join(f"<li>{esc(g['group'])}: {plural(len(g['nodes']), 'node')}</li>"
                                      for g in doc["groups"]) + "</ul></section>"]


def _filters() -> str:
    return ('<div id="filters" role="group" aria-label="node filters">'
            '<label>node <input type="search" id="node-filter" placeholder="part of a node name" '
            'aria-label="show only nodes whose name contains"></label>'
            '<label><input type="checkbox" id="only-flagged"> only nodes with drift or P0</label>'
            '<span id="shown"><span id="nodes-shown"></span></span></div>')


def _nodes(doc: FleetDocument) -> list[str]:
    audited = [n for n in doc["nodes"] if n["status"] == "audited"]
    if not audited:
        return []
    rows = []
    for n in audited:
        issues, inventory = n["issues"], n["inventory"]
        flagged = "1" if n["drift"] or issues["P0"] else "0"
        partial = ' <span class="badge partial" title="partial snapshot">partial</span>' if n.get("partial") else ""
        rows.append(f'<tr class="node-row" data-node="{esc(n["node"])}" data-flagged="{flagged}">'
                    f"<td><code>{esc(n['node'])}</code>{partial}</td><td>{esc(n['group'])}</td>"
                    + _count(issues["P0"], hit=True) + _count(issues["P1"]) + _count(issues["P2"])
                    + _count(n["by_status"].get("unknown", 0)) + _count(n["drift"], hit=True)
                    + f"<td><code>{esc(inventory.get('driver') or '?')}</code></td>"
                    f"<td><code>{esc(inventory.get('kernel') or '?')}</code></td></tr>")
    return ['<section id="nodes"><h2>Nodes</h2><p class="muted">Issues not waived, per priority; drift: the '
            "differences naming the node.</p>", _filters(), '<div class="table-wrap">',
            _table("nodes-table", ("node", "group", "P0", "P1", "P2", "unknown", "drift", "driver", "kernel"), rows),
            "</div></section>"]


def _drift_rows(entry: DriftEntry) -> list[str]:
    what = f"<td><code>{esc(where(entry))}</code></td>"
    majority = entry["majority"]
    if majority is None:  # a tie
        return [f'<tr class="odd-row tie"><td>{_names(o["nodes"])}</td>{what}<td><code>{esc(o["value"])}</code> '
                f'on {len(o["nodes"])}</td><td><span class="badge tie">tie</span>no majority</td></tr>'
                for o in entry["odd"]]
    return [f'<tr class="odd-row"><td>{_names(o["nodes"])}</td>{what}<td><code>{esc(o["value"])}</code></td>'
            f"<td><code>{esc(majority['value'])}</code> {esc(others(majority['nodes']))}</td></tr>"
            for o in entry["odd"]]


def _drift(doc: FleetDocument) -> list[str]:
    out = []
    for i, group in enumerate(doc["groups"]):
        entries = [d for d in doc["drift"] if d["group"] == group["group"]]
        out.append(f'<section class="drift" id="drift-{i}"><h2>Drift within {esc(group["group"])} '
                   f"({plural(len(group['nodes']), 'node')}): "
                   + ("—" if len(group["nodes"]) < 2 else str(len(entries)) if entries else "none") + "</h2>")
        if len(group["nodes"]) < 2:
            out.append('<p class="muted">One node only: nothing to compare.</p>')
        elif entries:
            out.append(_table(f"drift-table-{i}", ("nodes", "what", "value", "majority"),
                              [row for d in entries for row in _drift_rows(d)]))
        out.append("</section>")
    return out


def _shared(doc: FleetDocument) -> list[str]:
    if not doc["shared"]:
        return []
    rows = []
    for s in doc["shared"]:
        badge = f'<span class="badge {esc(s["priority"])}">{esc(s["priority"])}</span>' if s["priority"] else "—"
        waived = f' <span class="muted">(waived on {s["waived_on"]})</span>' if s["waived_on"] else ""
        rows.append(f'<tr class="shared-row" data-check="{esc(s["check"])}"><td>{badge}</td>'
                    f"<td><code>{esc(s['check'])}</code></td><td>{esc(s['title'])}{waived}</td>"
                    f"<td>{esc(s['message'])}</td></tr>")
    return [f'<section id="shared"><h2>On every node ({len(doc["shared"])}): fix once, in the image</h2>',
            _table("shared-table", ("priority", "check", "title", "message"), rows), "</section>"]


def _failed(doc: FleetDocument) -> list[str]:
    if not doc["failed"]:
        return []
    rows = [f'<tr class="failed-row" data-node="{esc(f["node"])}"><td><code>{esc(f["node"])}</code></td>'
            f"<td>{esc(f['error'])}</td></tr>" for f in doc["failed"]]
    return [f'<section id="failed"><h2>Failed nodes ({len(doc["failed"])}): not audited</h2>',
            _table("failed-table", ("node", "reason"), rows), "</section>"]


def _gate(doc: FleetDocument) -> list[str]:
    gate = doc.get("fail_on")
    if not gate:
        return []
    verdict = f"failed: {_names(gate['nodes'])}" if gate["failed"] else "passed"
    # A <div>, not a <p>: the <details> of a long list may not sit inside a paragraph.
    return [f'<section id="fail-on"><h2>Gate</h2><div class="gate {"failed" if gate["failed"] else "passed"}">'
            f"<code>--fail-on {esc(gate['on'])}</code>: {verdict}</div></section>"]


def render_html(doc: FleetDocument) -> str:
    body = [*_header(doc), *_groups(doc), *_nodes(doc), *_drift(doc), *_shared(doc), *_failed(doc), *_gate(doc),
            f'<footer class="muted"><p>stackaudit {esc(doc["tool"]["version"])} · fleet · '
            f"{plural(doc['summary']['nodes'], 'node')}</p></footer>"]
    return page(f"stackaudit fleet — {doc['verdict']}", body, script=False, extra_css=_CSS, extra_script=_JS)
