"""The comparison as JSON (the common envelope, docs/compare.md), text and Markdown.

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
from stackaudit.compare import COMPARE_SCHEMA
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
from stackaudit.render.escape import md_cell, md_cell_code, md_code, md_table, md_text

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
    """The JSON output: the envelope (schema, tool, source, generated_at), then the comparison."""
    from stackaudit.engine.runner import utc_now

    head: dict[str, object] = {
        "schema": COMPARE_SCHEMA,
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
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return render_markdown(doc)
    return render_text(doc)


def show(value: object) -> str:
    """A value as the report holds it, on one line."""
    if isinstance(value, str) and value and value == value.strip() and value.isprintable():
        return value
    return json.dumps(value, ensure_ascii=False)


def _move(entry: StatusEntry) -> str:
    """`ok → issue P1`, or the state once when it did not change (an issue still wrong)."""
    a, b = _state(entry["a"]), _state(entry["b"])
    return b if a == b else f"{a} → {b}"


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


def _where(entry: ValueEntry) -> str:
    return str(entry["id"]) + (f" {entry['subject']}" if entry["subject"] else "")


def _value(entry: ValueEntry, key: Literal["a", "b"]) -> str:
    return show(entry[key]) if key in entry else ABSENT


def _tail(doc: Comparison) -> str:
    counts = doc["summary"]
    tail = [f"{counts['still_wrong']} still wrong in both"]
    moved = counts["sampled_status"] + counts["sampled_values"]
    if moved:
        tail.append(f"{moved} sampled values moved (listed apart, not a difference)")
    return "; ".join(tail)


# --- text ---------------------------------------------------------------------------------------------


def render_text(doc: CompareDocument) -> str:
    lines = [f"stackaudit {doc['tool']['version']} · compare · {doc['generated_at']}",
             f"A  {_side_text(doc['source']['a'])}", f"B  {_side_text(doc['source']['b'])}",
             "", f"Verdict: {doc['verdict']} ({_tail(doc)})"]
    if doc.get("note"):
        lines.append(f"Note: {doc['note']}")
    for group in _LISTED:
        lines += _text_statuses(_TITLES[group], doc[group], group in _WITH_MESSAGE)
    if doc["configuration"]:
        lines += ["", f"Configuration changed ({len(doc['configuration'])})"]
        lines += [f"  {_where(e)}: {_value(e, 'a')} → {_value(e, 'b')}" for e in doc["configuration"]]
    for key, side in _ONLY:
        if doc[key]:
            lines += ["", f"Checks only in {side} ({len(doc[key])}; another stackaudit version?)"]
            lines += [f"  {e['id']}  {e['status']}" for e in doc[key]]
    if doc["still_wrong"]:
        lines += _text_statuses("Still wrong in both", doc["still_wrong"], False)
    samples = doc["samples"]
    if samples["status"] or samples["values"]:
        lines += ["", "Sampled values: what the host was doing at that instant; listed apart, never a difference"]
        lines += [f"  {e['id']}  {_move(e)}  {e['title']}" for e in samples["status"]]
        lines += [f"  {_where(e)}: {_value(e, 'a')} → {_value(e, 'b')}" for e in samples["values"]]
    if "fail_on" in doc:
        gate = doc["fail_on"]
        lines += ["", f"--fail-on {gate['on']}: " + (f"failed ({', '.join(gate['regressed'])})" if gate["failed"]
                                                        else "passed")]
    return "\n".join(lines) + "\n"


def _text_statuses(title: str, entries: list[StatusEntry], message: bool) -> list[str]:
    if not entries:
        return []
    lines = ["", f"{title} ({len(entries)})"]
    for e in entries:
        lines.append(f"  {e['id']}  {_move(e)}  {e['title']}")
        if message and e["message"]:
            lines.append(f"      B: {e['message']}")
    return lines


# --- Markdown -----------------------------------------------------------------------------------------


def _md_value(entry: ValueEntry, key: Literal["a", "b"]) -> str:
    return md_cell_code(show(entry[key])) if key in entry else md_text(ABSENT)


def render_markdown(doc: CompareDocument) -> str:
    source = doc["source"]
    lines = ["## stackaudit compare", "",
             f"stackaudit {md_text(doc['tool']['version'])} · {md_text(doc['generated_at'])}", "",
             "| | file | read as |", "|---|---|---|"]
    for key, side in (("a", source["a"]), ("b", source["b"])):
        described = _side_text(side)[len(side["file"]) + 2:]
        lines.append(f"| {key.upper()} | {md_cell_code(side['file'])} | {md_text(described)} |")
    lines += ["", f"**Verdict: {md_text(doc['verdict'])}** ({md_text(_tail(doc))})"]
    if doc.get("note"):
        lines += ["", f"Note: {md_text(doc['note'])}"]
    for group in _LISTED:
        lines += _md_statuses(_TITLES[group], doc[group], group in _WITH_MESSAGE)
    lines += _md_values(f"Configuration changed ({len(doc['configuration'])})", doc["configuration"])
    for key, side_name in _ONLY:
        if doc[key]:
            lines += ["", f"### Checks only in {side_name} ({len(doc[key])})", "",
                      ", ".join(f"{md_code(e['id'])} {md_text(e['status'], line_start=False)}" for e in doc[key])]
    lines += _md_statuses("Still wrong in both", doc["still_wrong"], False)
    samples = doc["samples"]
    if samples["status"] or samples["values"]:
        lines += ["", "### Sampled values", "",
                  "What the host was doing at that instant: listed apart, never a difference."]
        lines += _md_statuses("", samples["status"], False, heading=False)
        lines += _md_values("", samples["values"], heading=False)
    if "fail_on" in doc:
        gate = doc["fail_on"]
        verdict = ("failed: " + ", ".join(md_code(i) for i in gate["regressed"])) if gate["failed"] else "passed"
        lines += ["", f"{md_code('--fail-on ' + gate['on'])}: {verdict}"]
    return "\n".join(lines) + "\n"


def _md_statuses(title: str, entries: list[StatusEntry], message: bool, heading: bool = True) -> list[str]:
    if not entries:
        return []
    lines = ["", f"### {title} ({len(entries)})"] if heading else []
    header = ["check", "A", "B", "title", *(["B says"] if message else [])]
    rows = [[md_cell_code(e["id"]), md_text(_state(e["a"])), md_text(_state(e["b"])), md_cell(e["title"]),
             *([md_cell(e["message"])] if message else [])] for e in entries]
    return [*lines, "", *md_table(header, rows)]


def _md_values(title: str, entries: list[ValueEntry], heading: bool = True) -> list[str]:
    if not entries:
        return []
    lines = ["", f"### {title}"] if heading else []
    rows = [[md_cell_code(e["id"]), md_cell_code(e["subject"]) if e["subject"] else "", _md_value(e, "a"),
             _md_value(e, "b")] for e in entries]
    return [*lines, "", *md_table(["check", "subject", "A", "B"], rows)]
