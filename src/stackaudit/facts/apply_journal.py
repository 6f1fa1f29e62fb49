"""What `fix --apply` changed on this host and did not undo: the journals under /var/lib/stackaudit/journal
(fixes/journal.py). A change still in effect is a runtime one: KERN-PERSIST-BOOT asks whether the next boot
keeps it (the masked setpci writes above all, which no sysfs file shows)."""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.errors import InputError
from stackaudit.facts.config_dirs import list_names
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import APPLY_JOURNALS
from stackaudit.fixes.journal import MAX_JOURNAL_BYTES, Change, parse_journal
from stackaudit.host.base import NotCaptured

MAX_JOURNALS = 64


@dataclass(frozen=True)
class AppliedChanges:
    """(journal path, change) of every change not rolled back or reverted, oldest journal first; `unread`:
    journals that could not be read or parsed."""

    changes: tuple[tuple[str, Change], ...]
    unread: tuple[str, ...] = ()


@provider("applied_changes", AppliedChanges, title=APPLY_JOURNALS.title, hint=APPLY_JOURNALS.hint)
def applied_changes(ctx: FactContext) -> AppliedChanges:
    """Changes `fix --apply` made and did not undo (/var/lib/stackaudit/journal)."""
    names, shown = list_names(ctx.host, APPLY_JOURNALS.path)
    if not shown:
        raise FactUnavailable(f"{APPLY_JOURNALS.path} is not readable or not in this source", hint=APPLY_JOURNALS.hint)
    found: list[tuple[str, Change]] = []
    unread: list[str] = []
    for name in sorted(n for n in names if n.endswith(".jsonl"))[-MAX_JOURNALS:]:
        path = f"{APPLY_JOURNALS.path}/{name}"
        try:
            changes, undone, _ = parse_journal(ctx.host.read_bytes(path, MAX_JOURNAL_BYTES), path)
        except (OSError, NotCaptured, InputError):
            unread.append(path)
            continue
        found += [(path, c) for c in changes if c.seq not in undone]
    return AppliedChanges(tuple(found), tuple(unread))
