"""A fix's steps as lines, and as the blocks of a document (the audit report, docs/checks.md).

Every command is its own line, shown as written (never wrapped, never escaped): `$ ` in text, a
fenced block in Markdown. A config line is verbatim too (no `$ `). Prose is only each step's one
line of description, a persistent form's remark and the fix's note.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from stackaudit.fixes.model import Command, Fix, Persist, Step
from stackaudit.render import document

Kind = Literal["prose", "command", "verbatim"]


@dataclass(frozen=True)
class FixLine:
    """One line of a rendered fix: its kind, its depth (0 = the step's line) and its text."""

    kind: Kind
    depth: int
    text: str
    number: int | None = None  # a step's number, on its first line, when the fix has several


_SCOPE_WORDS = {"host": "host", "container": "container", "container-host": "container's host"}


def _mixed_scopes(fix: Fix) -> bool:
    return len({s.scope for s in fix.steps}) > 1


def _persist_lines(p: Persist) -> list[FixLine]:
    label = f" ({p.label})" if p.label else ""
    if p.command is not None:
        out = [FixLine("prose", 1, f"keep{label}:"), FixLine("command", 2, p.command.line)]
        if p.text:
            out.append(FixLine("prose", 2, p.text))
    elif p.line:
        where = f", in {p.file}" if p.file else ""
        out = [FixLine("prose", 1, f"keep{label}{where}:"), FixLine("verbatim", 2, p.line)]
        if p.text:
            out.append(FixLine("prose", 2, p.text))
    else:
        out = [FixLine("prose", 1, f"keep{label}: {p.text}")]
    return out


def _commands(commands: tuple[Command, ...], depth: int) -> list[FixLine]:
    return [FixLine("command", depth, c.line) for c in commands]


def step_lines(step: Step, number: int | None = None, scope: bool = False) -> list[FixLine]:
    head = step.does + (f" [{_SCOPE_WORDS[step.scope]}]" if scope else "")
    out = [FixLine("prose", 0, head, number), *_commands(step.commands, 1)]
    for p in step.persistent:
        out += _persist_lines(p)
    if step.revert:
        out += [FixLine("prose", 1, "undo:"), *_commands(step.revert, 2)]
    return out


def fix_lines(fix: Fix) -> list[FixLine]:
    """The fix's steps (numbered when there are several), then its note."""
    numbered = len(fix.steps) > 1
    mixed = _mixed_scopes(fix)
    out: list[FixLine] = []
    for i, s in enumerate(fix.steps, 1):
        out += step_lines(s, i if numbered else None, scope=mixed)
    if fix.note:
        out.append(FixLine("prose", 0, f"note: {fix.note}"))
    return out


def fix_blocks(fix: Fix, depth: int = 0) -> list[document.Paragraph | document.Code | document.Command]:
    """The fix as document blocks: each step's prose, its commands and config lines, set in by their depth."""
    out: list[document.Paragraph | document.Code | document.Command] = []
    for line in fix_lines(fix):
        if line.kind == "command":
            out.append(document.Command(line.text, depth + line.depth))
        elif line.kind == "verbatim":
            out.append(document.Code(line.text, "", depth + line.depth))
        else:
            head = f"{line.number}. " if line.number is not None else ""
            out.append(document.Paragraph(head + line.text, depth + line.depth))
    return out
