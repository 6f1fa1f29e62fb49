"""The fleet report: a document (render.document) drawn as JSON (the common envelope, docs/fleet.md and
docs/fleet.schema.json), text, Markdown and HTML (where a text box finds a node's rows, and a box keeps the
nodes with drift or a P0).

All four show the same parts in the same order: the verdict; per node its group and the counts per
priority (issues not waived), unknown checks and differences; the drift within each group, by node (a
difference held by several nodes names them together; a tie names every side); the issues every audited node
shares (fix once, in the image); the failed nodes with their reasons; the --fail-on gate. Every renderer
reads only the document (`document()`): the JSON carries everything the others show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from stackaudit import __version__
from stackaudit.fixes.model import PRIORITIES
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
from stackaudit.fleet.summary import HOST, NAMED, NodeSummary, others, source_line, where
from stackaudit.render.document import Cell, Code, Document, Notes, Paragraph, Section, Table, draw
from stackaudit.render.text import plural

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
    head: dict[str, object] = {"tool": {"name": "stackaudit", "version": __version__},
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
    parts = [f"{summary['audited']} of {plural(summary['nodes'], 'node')} audited"]
    if summary["failed"]:
        parts.append(f"{summary['failed']} failed")
    drift, shared = summary["drift"], summary["shared"]
    parts.append(f"{plural(drift, 'difference')} between nodes that should be alike" if drift else "no drift")
    if shared:
        parts.append(f"{plural(shared, 'issue')} on every node")
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
    """The fleet report in `fmt`, drawn from `page(doc)`."""
    return draw(page(doc), fmt)


def _names(nodes: Sequence[str]) -> str:
    shown = ", ".join(nodes[:NAMED])
    return shown + (f" and {len(nodes) - NAMED} more" if len(nodes) > NAMED else "")


def _drift_keys(entry: DriftEntry) -> list[tuple[str, ...]]:
    """The nodes each of `_drift_rows` names, every one of them (what the page's text box finds it by)."""
    if entry["majority"] is None:
        return [tuple(n for o in entry["odd"] for n in o["nodes"])]
    return [tuple(o["nodes"]) for o in entry["odd"]]


def _drift_rows(entry: DriftEntry) -> list[tuple[Cell, ...]]:
    """One row per odd value: the nodes, what differs, their value, the majority's; a tie names every side."""
    majority = entry["majority"]
    if majority is None:
        sides = "; ".join(f"{o['value']} on {len(o['nodes'])} ({_names(o['nodes'])})" for o in entry["odd"])
        return [(", ".join(n for o in entry["odd"] for n in o["nodes"][:NAMED]), Code(where(entry)), sides,
                 "no majority")]
    return [(_names(o["nodes"]), Code(where(entry)), Code(o["value"]),
             f"{majority['value']} {others(majority['nodes'])}") for o in entry["odd"]]


def page(doc: FleetDocument) -> Document:
    """The fleet report's document: the parts of the module docstring, in its order."""
    sections = [Section("", (Paragraph(source_line(doc)),))]
    if doc["groups"]:
        sections.append(Section("Groups (nodes that should be alike: same GPU model and count)", (
            Notes(tuple(f"{g['group']}: {plural(len(g['nodes']), 'node')}" for g in doc["groups"])),)))
    audited = [n for n in doc["nodes"] if n["status"] == "audited"]
    if audited:
        sections.append(Section("Nodes (issues not waived, per priority)", (Table(
            ("node", "group", *PRIORITIES, "unknown", "drift", "driver", "kernel"),
            tuple((Code(n["node"]), n["group"] + (" (partial snapshot)" if n.get("partial") else ""),
                   *(str(n["issues"][p]) for p in PRIORITIES), str(n["by_status"].get("unknown", 0)),
                   str(n["drift"]), Code(n["inventory"].get("driver") or "?"),
                   Code(n["inventory"].get("kernel") or "?")) for n in audited), "llrrrrrll", id="nodes-table",
            tones=tuple("alarm" if n["drift"] or n["issues"]["P0"] else "" for n in audited),
            keys=tuple((n["node"],) for n in audited), toggle="only nodes with drift or P0"),)))
    for i, group in enumerate(doc["groups"]):
        entries = [d for d in doc["drift"] if d["group"] == group["group"]]
        if len(group["nodes"]) < 2:
            sections.append(Section(f"Drift within {group['group']}: one node only, nothing to compare", ()))
            continue
        heading = f"Drift within {group['group']} ({len(group['nodes'])} nodes): {len(entries) or 'none'}"
        rows = tuple(row for d in entries for row in _drift_rows(d))
        keys = tuple(k for d in entries for k in _drift_keys(d))
        sections.append(Section(heading, (Table(("nodes", "what", "value", "majority"), rows, id=f"drift-table-{i}",
                                                keys=keys),) if rows else ()))
    if doc["shared"]:
        sections.append(Section(f"On every node ({len(doc['shared'])}): fix once, in the image", (Table(
            ("priority", "check", "title", "message"),
            tuple((s["priority"] or "--", Code(s["check"]),
                   s["title"] + (f" (waived on {s['waived_on']})" if s["waived_on"] else ""), s["message"])
                  for s in doc["shared"]), id="shared-table"),)))
    if doc["failed"]:
        sections.append(Section(f"Failed nodes ({len(doc['failed'])}): not audited", (
            Table(("node", "reason"), tuple((Code(f["node"]), f["error"]) for f in doc["failed"]), id="failed-table",
                  keys=tuple((f["node"],) for f in doc["failed"])),)))
    if doc.get("fail_on"):
        gate = doc["fail_on"]
        sections.append(Section("", (Paragraph(f"--fail-on {gate['on']}: " + (
            f"failed ({_names(gate['nodes'])})" if gate["failed"] else "passed")),)))
    return Document("fleet", "stackaudit fleet", doc["verdict"], tuple(sections), cast(dict[str, object], doc))
