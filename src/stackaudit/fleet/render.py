"""The fleet report: JSON (the common envelope, docs/fleet.md and docs/fleet.schema.json), text, Markdown,
HTML (fleet/html_page.py: one self-contained page with a node filter).

All four show the same parts in the same order: the verdict; per node its group and the counts per
priority (issues not waived), unknown checks and differences; the drift within each group, by node (a
difference held by several nodes names them together; a tie names every side); the issues every audited node
shares (fix once, in the image); the failed nodes with their reasons; the --fail-on gate. Every renderer
reads only the document (`document()`): the JSON carries everything the others show.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import cast

from stackaudit import __version__
from stackaudit.fleet.document import (
    DriftEntry,
    FailedEntry,
    FleetDocument,
    Gate,
    GroupEntry,
    SharedEntry,
    Source,
    Summary,
)
from stackaudit.fleet.drift import Drift, FleetDrift, find_drift
from stackaudit.fleet.summary import GATHERERS, HOST, NAMED, PRIORITIES, NodeSummary, others, where
from stackaudit.render.escape import md_cell, md_cell_code, md_code, md_table, md_text
from stackaudit.render.formats import SCHEMAS

FLEET_SCHEMA = SCHEMAS["fleet"]
FAIL_ON = ("P0", "P1", "P2", "drift")


def document(summaries: Sequence[NodeSummary], gatherer: str, argv: Sequence[str] | None = None,
             fail_on: str | None = None, hidden_entries: int = 0, generated_at: str | None = None) -> FleetDocument:
    from stackaudit.engine.runner import utc_now

    drift = find_drift(summaries)
    failed = [s for s in summaries if not s.ok]
    audited = [s for s in summaries if s.ok]
    source: Source = {"gatherer": gatherer, "nodes": len(summaries)}
    if hidden_entries:
        source["hidden_entries"] = hidden_entries
    head: dict[str, object] = {"schema": FLEET_SCHEMA, "tool": {"name": "stackaudit", "version": __version__},
                               "source": source, "generated_at": generated_at or utc_now()}
    if argv is not None:
        from stackaudit.report.header import command_line

        head["command"] = command_line(argv)
    nodes = []
    for s in summaries:
        entry = s.to_json()
        if s.ok:
            entry["drift"] = drift.drift_on(s.node)
        nodes.append(entry)
    summary: Summary = {"nodes": len(summaries), "audited": len(audited), "failed": len(failed),
                        "groups": len(drift.groups), "drift": len(drift.drift), "shared": len(drift.shared),
                        "nodes_with": {p: sum(1 for s in audited if s.counts.get(p, 0)) for p in PRIORITIES}}
    groups: list[GroupEntry] = [{"group": g, "nodes": list(names)} for g, names in drift.groups.items()]
    shared: list[SharedEntry] = [{**s.to_json(), "title": _title(s.check)} for s in drift.shared]
    failures: list[FailedEntry] = [{"node": s.node, "error": s.error} for s in failed]
    out = cast(FleetDocument, {
        **head,
        "verdict": _verdict(summary),
        "summary": summary,
        "groups": groups,
        "nodes": nodes,
        "drift": [d.to_json() for d in _ordered(drift)],
        "shared": shared,
        "failed": failures,
    })
    if fail_on is not None:
        out["fail_on"] = _gate(fail_on, audited, drift)
    return out


def _gate(fail_on: str, audited: Sequence[NodeSummary], drift: FleetDrift) -> Gate:
    if fail_on == "drift":
        return {"on": "drift", "failed": bool(drift.drift), "nodes": sorted({n for d in drift.drift for o in d.odd
                                                                             for n in o.nodes})}
    gate = PRIORITIES[: PRIORITIES.index(fail_on) + 1]
    hit = [s.node for s in audited if any(s.counts.get(p, 0) for p in gate)]
    return {"on": fail_on, "failed": bool(hit), "nodes": hit}


def exit_code(doc: FleetDocument) -> int:
    """1 when a node failed, or the --fail-on gate found what it gates on; else 0."""
    return 1 if doc["summary"]["failed"] or ("fail_on" in doc and doc["fail_on"]["failed"]) else 0


def _verdict(summary: Summary) -> str:
    parts = [f"{summary['audited']} of {summary['nodes']} node{'s' if summary['nodes'] != 1 else ''} audited"]
    if summary["failed"]:
        parts.append(f"{summary['failed']} failed")
    n = summary["drift"]
    parts.append("no drift" if not n else f"{n} difference{'s' if n != 1 else ''} between nodes that should be alike")
    n = summary["shared"]
    if n:
        parts.append(f"{n} issue{'s' if n != 1 else ''} on every node")
    return ", ".join(parts)


def _ordered(drift: FleetDrift) -> list[Drift]:
    """By the first node each difference names (ties last), then check: what is wrong with node-07, together."""
    return sorted(drift.drift, key=lambda d: (d.tie, d.odd[0].nodes[0] if not d.tie else "", d.group,
                                              d.check == HOST, d.check, d.kind != "status", d.subject))


def _title(check: str) -> str:
    from stackaudit.checks.registry import load_all

    spec = load_all().get(check)
    return spec.title if spec is not None else ""


def render(doc: FleetDocument, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return render_markdown(doc)
    if fmt == "html":
        from stackaudit.fleet.html_page import render_html

        return render_html(doc)
    return render_text(doc)




def _names(nodes: Sequence[str]) -> str:
    shown = ", ".join(nodes[:NAMED])
    return shown + (f" and {len(nodes) - NAMED} more" if len(nodes) > NAMED else "")


def drift_line(entry: DriftEntry) -> list[str]:
    """One line per odd value: `node-07: driver 570.86.15 vs 580.65.06 on 31 others`; a tie on one line."""
    majority = entry["majority"]
    if majority is None:  # a tie
        sides = "; ".join(f"{o['value']} on {len(o['nodes'])} ({_names(o['nodes'])})" for o in entry["odd"])
        return [f"{where(entry)}: no majority: {sides}"]
    return [f"{_names(o['nodes'])}: {where(entry)} {o['value']} vs {majority['value']} {others(majority['nodes'])}"
            for o in entry["odd"]]


def _groups_line(doc: FleetDocument) -> list[str]:
    return [f"  {g['group']}: {len(g['nodes'])} node{'s' if len(g['nodes']) != 1 else ''}" for g in doc["groups"]]


def render_text(doc: FleetDocument) -> str:
    source = doc["source"]
    lines = [f"stackaudit {doc['tool']['version']} · fleet · {doc['generated_at']}",
             f"{source['nodes']} nodes from {GATHERERS.get(source['gatherer'], source['gatherer'])}"
             + (f" ({source['hidden_entries']} hidden entries left out)" if source.get("hidden_entries") else ""),
             "", f"Verdict: {doc['verdict']}"]
    if doc["groups"]:
        lines += ["", "Groups (nodes that should be alike: same GPU model and count)", *_groups_line(doc)]
    audited = [n for n in doc["nodes"] if n["status"] == "audited"]
    if audited:
        width = max(len(n["node"]) for n in audited)
        lines += ["", "Nodes (issues not waived, per priority)",
                  f"  {'node':<{width}}  P0  P1  P2  unknown  drift  driver / kernel"]
        for n in audited:
            issues, inv = n["issues"], n["inventory"]
            lines.append(f"  {n['node']:<{width}}  {issues['P0']:>2}  {issues['P1']:>2}  {issues['P2']:>2}  "
                         f"{n['by_status'].get('unknown', 0):>7}  {n['drift']:>5}  "
                         f"{inv.get('driver') or '?'} / {inv.get('kernel') or '?'}"
                         + ("  (partial snapshot)" if n.get("partial") else ""))
    for group in doc["groups"]:
        entries = [d for d in doc["drift"] if d["group"] == group["group"]]
        if len(group["nodes"]) < 2:
            lines += ["", f"Drift within {group['group']}: one node only, nothing to compare"]
            continue
        lines += ["", f"Drift within {group['group']} ({len(group['nodes'])} nodes): "
                  + (f"{len(entries)}" if entries else "none")]
        for d in entries:
            lines += [f"  {line}" for line in drift_line(d)]
    if doc["shared"]:
        lines += ["", f"On every node ({len(doc['shared'])}): fix once, in the image"]
        for s in doc["shared"]:
            waived = f" (waived on {s['waived_on']})" if s["waived_on"] else ""
            lines.append(f"  {s['priority'] or '--'}  {s['check']}  {s['title']}{waived}")
            if s["message"]:
                lines.append(f"      {s['message']}")
    if doc["failed"]:
        lines += ["", f"Failed nodes ({len(doc['failed'])}): not audited"]
        lines += [f"  {f['node']}: {f['error']}" for f in doc["failed"]]
    if doc.get("fail_on"):
        gate = doc["fail_on"]
        lines += ["", f"--fail-on {gate['on']}: " + (f"failed ({_names(gate['nodes'])})" if gate["failed"]
                                                        else "passed")]
    return "\n".join(lines) + "\n"


def render_markdown(doc: FleetDocument) -> str:
    source = doc["source"]
    lines = ["## stackaudit fleet", "",
             f"stackaudit {md_text(doc['tool']['version'])} · {md_text(doc['generated_at'])} · "
             f"{source['nodes']} nodes from {md_text(GATHERERS.get(source['gatherer'], source['gatherer']))}", "",
             f"**Verdict: {md_text(doc['verdict'])}**"]
    audited = [n for n in doc["nodes"] if n["status"] == "audited"]
    if audited:
        rows = [[md_cell_code(n["node"]), md_cell(n["group"]), *(str(n["issues"][p]) for p in PRIORITIES),
                 str(n["by_status"].get("unknown", 0)), str(n["drift"]),
                 md_cell_code(n["inventory"].get("driver") or "?"), md_cell_code(n["inventory"].get("kernel") or "?")]
                for n in audited]
        lines += ["", "### Nodes", "",
                  *md_table(["node", "group", *PRIORITIES, "unknown", "drift", "driver", "kernel"], rows)]
    for group in doc["groups"]:
        entries = [d for d in doc["drift"] if d["group"] == group["group"]]
        lines += ["", f"### Drift within {md_text(group['group'], line_start=False)} ({len(group['nodes'])} nodes)", ""]
        if len(group["nodes"]) < 2:
            lines.append("One node only: nothing to compare.")
            continue
        if not entries:
            lines.append("None.")
            continue
        drift_rows: list[list[str]] = []
        for d in entries:
            majority = d["majority"]
            if majority is None:  # a tie
                sides = "; ".join(f"{md_cell_code(o['value'])} on {len(o['nodes'])}" for o in d["odd"])
                drift_rows.append([md_cell(", ".join(n for o in d["odd"] for n in o["nodes"][:NAMED])),
                                   md_cell_code(where(d)), sides, "no majority"])
                continue
            drift_rows += [[md_cell(_names(o["nodes"])), md_cell_code(where(d)), md_cell_code(o["value"]),
                            f"{md_cell_code(majority['value'])} {md_text(others(majority['nodes']), False)}"]
                           for o in d["odd"]]
        lines += md_table(["nodes", "what", "value", "majority"], drift_rows)
    if doc["shared"]:
        shared = [[s["priority"] or "", md_cell_code(s["check"]), md_cell(s.get("title", "")), md_cell(s["message"])]
                  for s in doc["shared"]]
        lines += ["", f"### On every node ({len(doc['shared'])}): fix once, in the image", "",
                  *md_table(["priority", "check", "title", "message"], shared)]
    if doc["failed"]:
        lines += ["", f"### Failed nodes ({len(doc['failed'])})", "",
                  *md_table(["node", "reason"], [[md_cell_code(f["node"]), md_cell(f["error"])] for f in doc["failed"]])]
    if doc.get("fail_on"):
        gate = doc["fail_on"]
        verdict = f"failed: {md_text(_names(gate['nodes']), False)}" if gate["failed"] else "passed"
        lines += ["", f"{md_code('--fail-on ' + gate['on'])}: {verdict}"]
    return "\n".join(lines) + "\n"
