"""The journal of `fix --apply` (docs/fix.md, "Applying"): one JSON object a line, each written and
fsynced before the change it announces, so that an apply killed at any point leaves a file that
`fix --revert` completes.

Records: `{"op": "change", "seq", "check", "kind", "target", "old", "new"}` before a change;
`{"op": "written", "seq"}` after it; `{"op": "rolled-back", "seq"}` / `{"op": "reverted", "seq"}` once
the old value is back. A change without a later rolled-back or reverted record is still to undo.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from stackaudit.errors import InputError

DEFAULT_DIR = "/var/lib/stackaudit/journal"
MAX_JOURNAL_BYTES = 4 * 1024 * 1024
KINDS = ("sysctl", "sysfs", "module", "setpci")
_UNDONE = ("rolled-back", "reverted")


@dataclass(frozen=True)
class Change:
    """One recorded change: what was there before (`old`) and what the apply set (`new`)."""

    seq: int
    check: str
    kind: str
    target: str
    old: str
    new: str

    def to_json(self) -> dict[str, Any]:
        return {"op": "change", "seq": self.seq, "check": self.check, "kind": self.kind, "target": self.target,
                "old": self.old, "new": self.new}


def default_path(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S.%fZ")
    return os.path.join(DEFAULT_DIR, f"{stamp}.jsonl")


class Journal:
    """An open journal: created exclusively (mode 0600, never through a link), or reopened to append."""

    def __init__(self, fd: int, path: str) -> None:
        self._fd = fd
        self.path = path
        self._seq = 0

    @classmethod
    def create(cls, path: str) -> Journal:
        directory = os.path.dirname(os.path.abspath(path))
        if os.path.abspath(path).startswith(DEFAULT_DIR + os.sep):
            os.makedirs(directory, mode=0o700, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_APPEND,
                         0o600)
        except FileExistsError:
            raise InputError(f"journal {path} exists; choose a new path (nothing was changed)") from None
        except OSError as exc:
            raise InputError(f"cannot create journal {path}: {exc.strerror or exc} (nothing was changed)") from None
        return cls(fd, path)

    @classmethod
    def reopen(cls, path: str) -> Journal:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise InputError(f"cannot open journal {path}: {exc.strerror or exc} (nothing was changed)") from None
        return cls(fd, path)

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def record(self, data: dict[str, Any]) -> None:
        """One line, written whole and fsynced: on disk before the caller goes on."""
        line = (json.dumps(data, ensure_ascii=True, sort_keys=True) + "\n").encode()
        written = 0
        while written < len(line):
            written += os.write(self._fd, line[written:])
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


def read_journal(path: str) -> tuple[list[Change], set[int]]:
    """(changes in the order they were made, seqs already undone), or a one-line InputError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(f"journal {path}: {exc.strerror or exc} (nothing was changed)") from None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_JOURNAL_BYTES + 1)
    if len(data) > MAX_JOURNAL_BYTES:
        raise InputError(f"journal {path}: over {MAX_JOURNAL_BYTES} bytes: not a stackaudit journal")
    changes: list[Change] = []
    undone: set[int] = set()
    for n, raw in enumerate(data.splitlines(), 1):
        where = f"journal {path} line {n}"
        try:
            rec = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise InputError(f"{where}: not JSON: corrupt journal (nothing was changed)") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("seq"), int):
            raise InputError(f"{where}: not a journal record (nothing was changed)")
        op = rec.get("op")
        if op == "change":
            fields = [rec.get(k) for k in ("check", "kind", "target", "old", "new")]
            if not all(isinstance(f, str) for f in fields) or rec["kind"] not in KINDS:
                raise InputError(f"{where}: a change record without its fields (nothing was changed)")
            changes.append(Change(rec["seq"], rec["check"], rec["kind"], rec["target"], rec["old"], rec["new"]))
        elif op in _UNDONE:
            undone.add(rec["seq"])
        elif op != "written":
            raise InputError(f"{where}: unknown record {str(op)[:20]!r} (nothing was changed)")
    if not changes and not data.strip():
        raise InputError(f"journal {path}: empty (nothing was changed)")
    return changes, undone
