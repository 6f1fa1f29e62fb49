"""The comparison as a document (render.document), drawn as JSON (the common envelope, docs/compare.md), text
and Markdown.

The text and Markdown show the same lists in the same order: regressed first (what a CI gate
stops on), then fixed, newly unknown, newly known, other status changes, the configuration values
that changed, what is still wrong in both, and last, apart, the sampled values. Every value is shown
as the report holds it: a string as written (JSON-quoted when it has a newline, a leading or trailing
space, or is empty), anything else as JSON; Markdown puts it in a code span, so nothing in it is
read as markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal, cast

from stackaudit import __version__
from stackaudit.compare.diff import Group, compare_sides, regressions
from stackaudit.compare.document import (
    CompareDocument,
    Comparison,
    SideInfo,
    State,
    StatusEntry,
    ValueEntry,
)
from stackaudit.compare.inputs import Side
from stackaudit.render.document import Block, Cell, Code, Document, Paragraph, Section, Table, draw

FAIL_ON = ("regressed",)
ABSENT = "(absent)"
_TITLES: dict[Group, str] = {
    "regressed": "Regressed",
    "fixed": "Fixed",
    "newly_unknown": "Newly unknown",
    "newly_known": "Newly known",
    "other": "Other status changes",
}
# The status lists in the order they are shown (still wrong comes later, apart).
_LISTED: tuple[Group, ...] = ("regressed", "fixed", "newly_unknown", "newly_known", "other")
_ONLY: tuple[tuple[Literal["only_in_a", "only_in_b"], str], ...] = (("only_in_a", "A"), ("only_in_b", "B"))
# Lists whose lines carry B's message (what the check says now).
_WITH_MESSAGE = frozenset({"regressed", "fixed", "newly_unknown", "newly_known"})


def document(a: Side, b: Side, argv: Sequence[str] | None = None, fail_on: str | None = None,
             generated_at: str | None = None) -> CompareDocument:
    """The JSON payload: the envelope (tool, source, generated_at; the schema is stamped when drawn), then the
    comparison."""
    from stackaudit.engine.runner import utc_now

    head: dict[str, object] = {
        "tool": {"name": "stackaudit", "version": __version__},
        "source": {"files": [a.name, b.name], "a": a.describe(), "b": b.describe()},
        "generated_at": generated_at or utc_now(),
    }
    if argv is not None:
        from stackaudit.report.header import command_line

        head["command"] = command_line(argv)
    out = cast(CompareDocument, {**head, **compare_sides(a, b)})
    if fail_on is not None:
        found = regressions(out)
        out["fail_on"] = {"on": fail_on, "failed": bool(found), "regressed": [e["id"] for e in found]}
    return out


def exit_code(doc: CompareDocument) -> int:
    return 1 if "fail_on" in doc and doc["fail_on"]["failed"] else 0


def render(doc: CompareDocument, fmt: str) -> str:
    return draw(page(doc), fmt)


def show(value: object) -> str:
    """A value as the report holds it, on one line."""
    if isinstance(value, str) and value and value == value.strip() and value.isprintable():
        return value
    return json.dumps(value, ensure_ascii=False)


def _state(state: State) -> str:
    text = str(state["status"])
    if state.get("priority"):
        text += f" {state['priority']}"
    return text + (" (waived)" if state.get("waived") else "")


def _side_text(side: SideInfo) -> str:
    parts = []
    if side["kind"] == "snapshot":
        parts.append("snapshot, audited now")
    else:
        origin = f"{side['origin']} audit" if side.get("origin") else "audit"
        parts.append(f"JSON report ({origin}" + (f", {side['generated_at']})" if side.get("generated_at") else ")"))
    if side.get("hostname"):
        parts.append(f"host {side['hostname']}")
    if side.get("captured_at"):
        parts.append(f"captured {side['captured_at']}")
    if side.get("tool_version"):
        parts.append(f"stackaudit {side['tool_version']}")
    return f"{side['file']}: " + ", ".join(parts)


def _tail(doc: Comparison) -> str:
    counts = doc["summary"]
    tail = [f"{counts['still_wrong']} still wrong in both"]
    moved = counts["sampled_status"] + counts["sampled_values"]
    if moved:
        tail.append(f"{moved} sampled values moved (listed apart, not a difference)")
    return "; ".join(tail)


def page(doc: CompareDocument) -> Document:
    """The comparison as a document: what each side is, the lists in the order above, then the gate."""
    source = doc["source"]
    head: list[Block] = [Paragraph(f"stackaudit {doc['tool']['version']} · {doc['generated_at']}"),
                         Table(("", "file", "read as"), tuple(
                             (key, Code(side["file"]), _side_text(side)[len(side["file"]) + 2:])
                             for key, side in (("A", source["a"]), ("B", source["b"]))))]
    if doc.get("note"):
        head.append(Paragraph(f"Note: {doc['note']}"))
    sections = [Section("", tuple(head))]
    sections += [_statuses(f"{_TITLES[g]} ({len(doc[g])})", doc[g], g in _WITH_MESSAGE) for g in _LISTED if doc[g]]
    if doc["configuration"]:
        sections.append(Section(f"Configuration changed ({len(doc['configuration'])})", (_values(doc["configuration"]),)))
    for key, side_name in _ONLY:
        if doc[key]:
            sections.append(Section(f"Checks only in {side_name} ({len(doc[key])}; another stackaudit version?)", (
                Table(("check", "status"), tuple((Code(e["id"]), e["status"]) for e in doc[key])),)))
    if doc["still_wrong"]:
        sections.append(_statuses(f"Still wrong in both ({len(doc['still_wrong'])})", doc["still_wrong"], False))
    samples = doc["samples"]
    if samples["status"] or samples["values"]:
        blocks: list[Block] = [Paragraph("What the host was doing at that instant: listed apart, never a difference.")]
        if samples["status"]:
            blocks.append(_statuses("", samples["status"], False).blocks[0])
        if samples["values"]:
            blocks.append(_values(samples["values"]))
        sections.append(Section("Sampled values", tuple(blocks)))
    if "fail_on" in doc:
        gate = doc["fail_on"]
        verdict = f"failed ({', '.join(gate['regressed'])})" if gate["failed"] else "passed"
        sections.append(Section("", (Paragraph(f"--fail-on {gate['on']}: {verdict}"),)))
    return Document("compare", "stackaudit compare", f"{doc['verdict']} ({_tail(doc)})", tuple(sections),
                    cast(dict[str, object], doc))


def _statuses(title: str, entries: list[StatusEntry], message: bool) -> Section:
    header = ("check", "A", "B", "title", *(("B says",) if message else ()))
    rows = tuple((Code(e["id"]), _state(e["a"]), _state(e["b"]), e["title"], *((e["message"],) if message else ()))
                 for e in entries)
    return Section(title, (Table(header, rows),))


def _values(entries: list[ValueEntry]) -> Table:
    def value(entry: ValueEntry, key: Literal["a", "b"]) -> Cell:
        return Code(show(entry[key])) if key in entry else ABSENT

    return Table(("check", "subject", "A", "B"), tuple(
        (Code(e["id"]), Code(e["subject"]) if e["subject"] else "", value(e, "a"), value(e, "b")) for e in entries))
