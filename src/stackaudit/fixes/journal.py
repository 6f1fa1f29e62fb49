"""The journal of `fix --apply` (docs/fix.md, "Applying"): one JSON object a line, each written and
fsynced before the change it announces, so that an apply killed at any point leaves a file that
`fix --revert` completes.

Records: first a header, `{"op": "header", "seq": 0, "host", "plan", "argv", "started", "tool_version"}`
(which machine, which plan, which command line, when, which version: --revert prints it and refuses a journal
of another host); `{"op": "change", "seq", "check", "kind", "target", "old", "new"}` before a change;
`{"op": "written", "seq"}` after it; `{"op": "rolled-back", "seq"}` / `{"op": "reverted", "seq"}` once
the old value is back. A change without a later rolled-back or reverted record is still to undo.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from stackaudit.errors import InputError

DEFAULT_DIR = "/var/lib/stackaudit/journal"
# One lock for every apply and revert, in a directory only root can write (created 0700 when missing).
LOCK_PATH = "/run/stackaudit/fix.lock"
_PID_WIDTH = 16  # the pid, written padded at offset 0: the file is never truncated
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


@dataclass(frozen=True)
class Header:
    host: str
    plan: dict[str, Any]
    argv: tuple[str, ...]
    started: str
    tool_version: str

    def to_json(self) -> dict[str, Any]:
        return {"op": "header", "seq": 0, "host": self.host, "plan": self.plan, "argv": list(self.argv),
                "started": self.started, "tool_version": self.tool_version}

    def describe(self) -> str:
        """`fix --apply on gpu01 at 2026-…, stackaudit 0.9 (`stackaudit fix --apply --yes`), plan of …`."""
        report = self.plan.get("report_generated_at") or "?"
        command = " ".join(self.argv) or "?"
        return (f"journal of fix --apply on {self.host or '?'}, started {self.started or '?'}, "
                f"stackaudit {self.tool_version or '?'} (`{command}`), for the audit of {report}")


def header_of(rec: dict[str, Any], where: str) -> Header:
    plan = rec.get("plan")
    argv = rec.get("argv")
    fields = [rec.get(k) for k in ("host", "started", "tool_version")]
    if not all(isinstance(f, str) for f in fields) or not isinstance(plan, dict) or not isinstance(argv, list) \
            or not all(isinstance(a, str) for a in argv):
        raise InputError(f"{where}: a header record without its fields (nothing was changed)")
    return Header(rec["host"], plan, tuple(argv), rec["started"], rec["tool_version"])


def _owner_ok(st: os.stat_result) -> bool:
    """Owned by root (or by the user running this, where that is not root: tests)."""
    return st.st_uid in (0, os.geteuid())


def open_trusted_dir(path: str, create: bool = False) -> int:
    """A descriptor of directory `path`, opened from / one component at a time with O_NOFOLLOW (a link
    anywhere on the way is refused, never followed). Every component must be owned by root; the ones
    above may be writable by others only when sticky (/tmp); the directory itself by its owner only.
    `create`: missing components are made, mode 0700. OSError or InputError (one line) otherwise."""
    full = os.path.abspath(path)
    parts = [p for p in full.split("/") if p]
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for n, name in enumerate([*parts, ""]):
            st = os.fstat(fd)
            last = n == len(parts)
            shown = "/" + "/".join(parts[:n])
            writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            if not _owner_ok(st) or (writable and (last or not st.st_mode & stat.S_ISVTX)):
                raise InputError(f"directory {shown} is not root's own (owner uid {st.st_uid}, mode "
                                 f"{stat.S_IMODE(st.st_mode):o}): refused (nothing was changed)")
            if last:
                break
            try:
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(name, 0o700, dir_fd=fd)
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise InputError(f"{shown.rstrip('/')}/{name}: a link or not a directory: refused "
                                     "(nothing was changed)") from None
                raise
            os.close(fd)
            fd = sub
        return fd
    except BaseException:
        os.close(fd)
        raise


def check_trusted_file(fd: int, path: str) -> None:
    """A journal or lock file root can trust: a regular file, owned by root, one link, writable by its owner only."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or not _owner_ok(st) or st.st_nlink != 1 \
            or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise InputError(f"{path}: not a regular file of root's own (owner uid {st.st_uid}, mode "
                         f"{stat.S_IMODE(st.st_mode):o}, {st.st_nlink} link(s)): refused (nothing was changed)")


def open_in_trusted_dir(path: str, flags: int, mode: int = 0o600, create_dir: bool = False) -> int:
    """`path`'s final component opened with O_NOFOLLOW inside its directory opened by `open_trusted_dir`."""
    directory, name = os.path.split(os.path.abspath(path))
    dir_fd = open_trusted_dir(directory, create=create_dir)
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


class ApplyLock:
    """An exclusive flock(2) held while one `fix --apply` or `--revert` runs, on a file in a root-only
    directory (LOCK_PATH): opened O_NOFOLLOW|O_CREAT, checked as root's own, never truncated; its first
    bytes hold the holder's pid."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or LOCK_PATH
        self._fd = -1

    def __enter__(self) -> ApplyLock:
        try:
            fd = open_in_trusted_dir(self.path, os.O_RDWR | os.O_CREAT, 0o600, create_dir=True)
        except OSError as exc:
            raise InputError(f"cannot open the lock {self.path}: {exc.strerror or exc} (nothing was changed)") from None
        try:
            check_trusted_file(fd, f"lock {self.path}")
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except InputError:
            os.close(fd)
            raise
        except OSError as exc:
            holder = os.pread(fd, _PID_WIDTH, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise InputError(f"another fix --apply/--revert is running (pid {holder}, lock {self.path}); "
                                 "nothing was changed") from None
            raise InputError(f"cannot lock {self.path}: {exc.strerror or exc} (nothing was changed)") from None
        os.pwrite(fd, f"{os.getpid()}".ljust(_PID_WIDTH - 1).encode() + b"\n", 0)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing releases the flock
            self._fd = -1


def default_path(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S.%fZ")
    return os.path.join(DEFAULT_DIR, f"{stamp}.jsonl")


class Journal:
    """An open journal: created exclusively (mode 0600, never through a link), or reopened to append."""

    def __init__(self, fd: int, path: str) -> None:
        self._fd = fd
        self.path = path
        self._seq = 0
        # Written before the first record: an apply that changes nothing leaves an empty journal.
        self.header: Header | None = None

    @classmethod
    def create(cls, path: str) -> Journal:
        # The default directory is made (0700) where missing; any other must exist and be root's own.
        default = os.path.abspath(path).startswith(DEFAULT_DIR + os.sep)
        try:
            fd = open_in_trusted_dir(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600,
                                     create_dir=default)
        except FileExistsError:
            raise InputError(f"journal {path} exists; choose a new path (nothing was changed)") from None
        except OSError as exc:
            raise InputError(f"cannot create journal {path}: {exc.strerror or exc} (nothing was changed)") from None
        return cls(fd, path)

    @classmethod
    def reopen(cls, path: str) -> Journal:
        return cls(_open_trusted(path, os.O_WRONLY | os.O_APPEND, "cannot open journal"), path)

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def record(self, data: dict[str, Any]) -> None:
        """One line, written whole and fsynced: on disk before the caller goes on."""
        if self.header is not None:
            head, self.header = self.header, None
            self.record(head.to_json())
        line = (json.dumps(data, ensure_ascii=True, sort_keys=True) + "\n").encode()
        written = 0
        while written < len(line):
            written += os.write(self._fd, line[written:])
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


def read_journal(path: str) -> tuple[list[Change], set[int]]:
    """(changes in the order they were made, seqs already undone), or a one-line InputError."""
    changes, undone, _ = read_journal_with_header(path)
    return changes, undone


def read_journal_with_header(path: str) -> tuple[list[Change], set[int], Header | None]:
    """read_journal and the header record (None in a journal written before headers existed)."""
    fd = _open_trusted(path, os.O_RDONLY | os.O_NONBLOCK, "journal")
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_JOURNAL_BYTES + 1)
    if len(data) > MAX_JOURNAL_BYTES:
        raise InputError(f"journal {path}: over {MAX_JOURNAL_BYTES} bytes: not a stackaudit journal")
    return parse_journal(data, path)


def _open_trusted(path: str, flags: int, what: str) -> int:
    """A descriptor on the journal at `path`, a trusted file in a trusted directory; else a one-line InputError
    that starts with `what`."""
    try:
        fd = open_in_trusted_dir(path, flags)
    except OSError as exc:
        raise InputError(f"{what} {path}: {exc.strerror or exc} (nothing was changed)") from None
    try:
        check_trusted_file(fd, f"journal {path}")
    except InputError:
        os.close(fd)
        raise
    return fd


def parse_journal(data: bytes, path: str) -> tuple[list[Change], set[int], Header | None]:
    """The records of a journal's bytes (InputError naming `path` and the line on a bad one)."""
    changes: list[Change] = []
    undone: set[int] = set()
    header: Header | None = None
    for n, raw in enumerate(data.splitlines(), 1):
        where = f"journal {path} line {n}"
        try:
            rec = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise InputError(f"{where}: not JSON: corrupt journal (nothing was changed)") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("seq"), int):
            raise InputError(f"{where}: not a journal record (nothing was changed)")
        op = rec.get("op")
        if op == "header":
            if n != 1:
                raise InputError(f"{where}: a header record after the first line (nothing was changed)")
            header = header_of(rec, where)
        elif op == "change":
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
    return changes, undone, header
