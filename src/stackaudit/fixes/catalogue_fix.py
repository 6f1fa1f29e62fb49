"""A saved report's fix text is data: its steps are kept only where they are the catalogue's own.

`fix --report` reads the check ID of each issue and looks its fix up in the catalogue. A report step
is kept when it is one of that fix's steps as a check writes it: the same cost and scope, and commands
of the catalogue step's text where only `<placeholder>`s and numbers differ.
A placeholder takes one plain word (a PCI address, a frequency); a number takes hex digits. Any
other step makes the plan use the catalogue's fix for that check instead, its placeholders filled
with the report's subjects (each quoted as one bash word), and the plan says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackaudit.fixes.model import Command, Fix, Step

# A placeholder's value: one plain word, nothing a shell reads as an operator or a quote.
_WORD = r"[A-Za-z0-9_.:+\-/%@,=]+"
_SLOTS = re.compile(r"<[^<>\n]+>|[0-9][0-9a-fA-F]*")


def template(text: str) -> re.Pattern[str]:
    """The catalogue text as a pattern: a placeholder matches one plain word, a number any hex digits."""
    out: list[str] = []
    pos = 0
    for m in _SLOTS.finditer(text):
        out.append(re.escape(text[pos:m.start()]))
        word = m.group(0)
        # A placeholder left as it is (a person fills it in) or filled with one plain word.
        out.append(f"(?:{_WORD}|{re.escape(word)})" if word.startswith("<") else "[0-9a-fA-F]+")
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return re.compile("".join(out))


# Each check's fix as the catalogue declares it, by check ID: checks/registry.py fills it as each check
# registers, so the fixes layer reads the catalogue without importing the checks above it.
_DECLARED: dict[str, Fix] = {}


def declare_fix(check: str, fix: Fix) -> None:
    """Record the fix a check declares (called by checks/registry.check)."""
    _DECLARED[check] = fix


def catalogue_fixes() -> dict[str, Fix]:
    """Each check's declared fix, by check ID. The checks are loaded by whoever runs the plan or the revert
    (the CLI); an empty catalogue is an error, never a catalogue that allows nothing by accident."""
    if not _DECLARED:
        raise RuntimeError("no check has declared its fix: load the checks first (checks.registry.load_all)")
    return dict(_DECLARED)


def catalogue_fix(check: str) -> Fix | None:
    """The fix the catalogue declares for a check ID, or None for an ID it does not know."""
    return catalogue_fixes().get(check)


def _commands_match(commands: Iterable[Command], catalogue: Step) -> bool:
    forms = [(template(c.line), c.shell) for c in (*catalogue.commands, *catalogue.revert)]
    return all(any(shell == c.shell and pattern.fullmatch(c.line) for pattern, shell in forms) for c in commands)


def step_is_catalogues(step: Step, fix: Fix) -> bool:
    """Whether a report's step is one of the catalogue fix's steps: the same cost and scope, and each command
    and revert one of that step's, up to placeholders and numbers. Its description is a comment in the plan
    (one line, never run), so a check's own wording of it may differ."""
    return any(step.cost == c.cost and step.scope == c.scope and _commands_match((*step.commands, *step.revert), c)
               for c in fix.steps)
