"""A fix's steps as the blocks of a document (the audit report, `explain`, docs/checks.md).

Every command is its own line, shown as written (never wrapped, never escaped): `$ ` in text, a
fenced block in Markdown. A config line is verbatim too (no `$ `). Prose is only each step's one
line of description, a persistent form's remark and the fix's note.
"""

from __future__ import annotations

from stackaudit.fixes.model import Command, Fix, Persist, Step
from stackaudit.render.document import Code, Paragraph
from stackaudit.render.document import Command as Run

Block = Paragraph | Code | Run
_SCOPE_WORDS = {"host": "host", "container": "container", "container-host": "container's host"}


def _persist_blocks(p: Persist, depth: int) -> list[Block]:
    label = f" ({p.label})" if p.label else ""
    if p.command is not None:
        out: list[Block] = [Paragraph(f"keep{label}:", depth + 1), Run(p.command.line, depth + 2)]
    elif p.line:
        where = f", in {p.file}" if p.file else ""
        out = [Paragraph(f"keep{label}{where}:", depth + 1), Code(p.line, "", depth + 2)]
    else:
        return [Paragraph(f"keep{label}: {p.text}", depth + 1)]
    return [*out, *([Paragraph(p.text, depth + 2)] if p.text else [])]


def _commands(commands: tuple[Command, ...], depth: int) -> list[Block]:
    return [Run(c.line, depth) for c in commands]


def _step_blocks(step: Step, number: int | None, scope: bool, depth: int) -> list[Block]:
    head = (f"{number}. " if number is not None else "") + step.does + (f" [{_SCOPE_WORDS[step.scope]}]" if scope else "")
    out: list[Block] = [Paragraph(head, depth), *_commands(step.commands, depth + 1)]
    for p in step.persistent:
        out += _persist_blocks(p, depth)
    if step.revert:
        out += [Paragraph("undo:", depth + 1), *_commands(step.revert, depth + 2)]
    return out


def fix_blocks(fix: Fix, depth: int = 0) -> list[Block]:
    """The fix as document blocks: its steps (numbered when there are several), each step's prose, its commands
    and config lines set in by their depth, then its note."""
    numbered, mixed = len(fix.steps) > 1, len({s.scope for s in fix.steps}) > 1
    out = [b for i, s in enumerate(fix.steps, 1) for b in _step_blocks(s, i if numbered else None, mixed, depth)]
    return out + ([Paragraph(f"note: {fix.note}", depth)] if fix.note else [])
