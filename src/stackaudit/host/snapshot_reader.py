"""Reading a snapshot (a directory or a .tar.gz that `stackaudit capture` wrote) into a MemoryHost:
every member bounded, the manifest verified, every JSON member parsed with limits.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import posixpath
import stat
import tarfile
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from stackaudit.errors import InputError
from stackaudit.host.base import MAX_FILE_BYTES, CommandResult
from stackaudit.host.confined import read_fd_bounded
from stackaudit.host.limits import (
    BOMB_CHECK_BYTES,
    MAX_COMPRESSION_RATIO,
    MAX_MEMBER_BYTES,
    MAX_SNAPSHOT_BYTES,
    MAX_SNAPSHOT_DEPTH,
    MAX_SNAPSHOT_MEMBERS,
    MAX_TAR_HEADER_BYTES,
    load_json,
)
from stackaudit.host.memory import HostRecord, MemoryHost, path_key
from stackaudit.host.source import Provenance
from stackaudit.host.ustar import Member, read_members


def _load_entries(entries: Mapping[str, tuple[str, bytes | str]]) -> HostRecord:
    """Build a record from {relative path: ("file"|"link", content|target)} of a snapshot; every JSON
    member parsed with limits (host/limits.py) and its shape checked, so a bad one is a ValueError."""
    record = HostRecord()
    for rel, (kind, payload) in entries.items():
        value: Any = None
        if kind == "file" and rel.endswith(".json") and not rel.startswith(("fs/", "doc/")):
            value = load_json(payload, rel)
        if rel.startswith("fs/"):
            path = path_key("/" + rel[3:])
            if kind == "link":
                record.links[path] = str(payload)
            else:
                record.files[path] = payload if isinstance(payload, bytes) else payload.encode()
        elif kind != "file":
            continue
        elif rel.startswith("cmd/") and rel.endswith(".json"):
            data = _object(rel, value)
            result = CommandResult.from_json(data)
            record.commands[result.argv] = result
        elif rel.startswith("nvml/") and rel.endswith(".json"):
            record.nvml[_nvml_query_from_file(rel[5:-5])] = value
        elif rel == "meta.json":
            record.meta = _object(rel, value)
        elif rel == "dirs.json":
            record.dirs = {path_key(k): [str(n) for n in _list(rel, v)] for k, v in _object(rel, value).items()}
        elif rel == "errors.json":
            loaded = _object(rel, value)
            for kind_name in ("read", "list", "link"):
                record.errors[kind_name] = {path_key(k): str(v)
                                            for k, v in _object(rel, loaded.get(kind_name, {})).items()}
        elif rel == "links.json":
            record.links.update({path_key(k): str(v) for k, v in _object(rel, value).items()})
        elif rel == "which.json":
            record.which = {str(k): (None if v is None else str(v)) for k, v in _object(rel, value).items()}
        elif rel.startswith("doc/") and rel.endswith(".txt"):
            body = payload if isinstance(payload, bytes) else payload.encode()
            record.docs[rel[4:-4]] = body.decode("utf-8", errors="replace")
        elif rel == "provenance.json":
            loaded = _object(rel, value)
            record.provenance = {str(k): Provenance.from_json(v) for k, v in loaded.items()}
    return record


def _nvml_query_from_file(name: str) -> str:
    return name.replace("__", "/")


def _object(what: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    return value


def _list(what: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{what} holds a listing that is not a list")
    return value


class SnapshotError(ValueError):
    """A snapshot that is damaged, cut short or past a bound; `member` names the first bad member."""

    def __init__(self, message: str, member: str = "", partial_ok: bool = False) -> None:
        super().__init__(message)
        self.member = member
        # True where --allow-partial may replay what was read (a cut or mismatched snapshot);
        # False for a bound (a bomb stays refused).
        self.partial_ok = partial_ok


class _Budget:
    """Members and bytes of one snapshot, against MAX_SNAPSHOT_MEMBERS and MAX_SNAPSHOT_BYTES."""

    def __init__(self) -> None:
        self.members = 0
        self.bytes = 0

    def take(self, name: str, size: int) -> None:
        self.members += 1
        if self.members > MAX_SNAPSHOT_MEMBERS:
            raise SnapshotError(f"more than {MAX_SNAPSHOT_MEMBERS} members", name)
        limit = MAX_FILE_BYTES if name.startswith(("fs/", "doc/")) else MAX_MEMBER_BYTES
        if size > limit:
            raise SnapshotError(f"member {name} is {size} bytes, over the limit of {limit}", name)
        self.bytes += size
        if self.bytes > MAX_SNAPSHOT_BYTES:
            raise SnapshotError(f"more than {MAX_SNAPSHOT_BYTES // (1 << 20)} MiB of members (at {name})", name)


def _member_name(name: str) -> str | None:
    """A member's name inside the snapshot, normalised; None for one that climbs out or is absolute."""
    if "\x00" in name:
        return None
    rel = posixpath.normpath("/" + name.replace("\\", "/")).lstrip("/")
    if not rel or rel == ".":
        return None
    return rel


def _read_directory(top: str, budget: _Budget) -> dict[str, tuple[str, bytes | str]]:
    """Members of a directory snapshot: walked with descriptors (no link followed, no recursion, depth
    bounded), regular files only, each read at most to its bound."""
    entries: dict[str, tuple[str, bytes | str]] = {}
    root_fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    stack: list[tuple[int, str, int]] = [(root_fd, "", 0)]
    try:
        while stack:
            dir_fd, prefix, depth = stack.pop()
            try:
                for name in sorted(os.listdir(dir_fd)):
                    rel = prefix + name
                    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                    if stat.S_ISLNK(st.st_mode):
                        budget.take(rel, 0)
                        entries[rel] = ("link", os.readlink(name, dir_fd=dir_fd))
                    elif stat.S_ISDIR(st.st_mode):
                        if depth + 1 > MAX_SNAPSHOT_DEPTH:
                            raise SnapshotError(f"directories nested deeper than {MAX_SNAPSHOT_DEPTH} (at {rel})", rel)
                        sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
                        stack.append((sub, rel + "/", depth + 1))
                    elif stat.S_ISREG(st.st_mode):
                        budget.take(rel, st.st_size)
                        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
                        try:
                            if not stat.S_ISREG(os.fstat(fd).st_mode):
                                continue
                            entries[rel] = ("file", read_fd_bounded(fd, st.st_size))
                        finally:
                            os.close(fd)
            finally:
                os.close(dir_fd)
    except BaseException:
        for fd, _, _ in stack:
            os.close(fd)
        raise
    return entries


class _BoundedTarInfo(tarfile.TarInfo):
    """tar headers whose metadata (pax records, GNU long names) is bounded before tarfile reads it whole."""

    def _proc_pax(self, tar: tarfile.TarFile) -> tarfile.TarInfo:
        if self.size > MAX_TAR_HEADER_BYTES:
            raise tarfile.HeaderError(f"a pax header of {self.size} bytes")
        return super()._proc_pax(tar)  # type: ignore[misc, no-any-return]

    def _proc_gnulong(self, tar: tarfile.TarFile) -> tarfile.TarInfo:
        if self.size > MAX_TAR_HEADER_BYTES:
            raise tarfile.HeaderError(f"a long-name header of {self.size} bytes")
        return super()._proc_gnulong(tar)  # type: ignore[misc, no-any-return]


class BoundedDecompression(io.RawIOBase):
    """A decompressed stream, stopped past its byte bound (a snapshot's headers and skipped data too), and
    past MAX_COMPRESSION_RATIO once more than BOMB_CHECK_BYTES came out: a bomb is refused while small.
    Snapshots and pasted archives (importers/_archives.py) are read through it; `raw` is the compressed file."""

    def __init__(self, inner: Any, limit: int, raw: Any = None) -> None:
        self.inner = inner
        self.limit = limit
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        self.count += len(data)
        if self.count > self.limit:
            raise SnapshotError(f"more than {self.limit // (1 << 20)} MiB once decompressed")
        if self.raw is not None and self.count > BOMB_CHECK_BYTES:
            consumed = max(1, self.raw.tell())
            if self.count > MAX_COMPRESSION_RATIO * consumed:
                raise SnapshotError(f"decompresses more than {MAX_COMPRESSION_RATIO}:1 "
                                    f"({self.count >> 20} MiB from {consumed >> 10} KiB): a decompression bomb")
        buffer[: len(data)] = data
        return len(data)


def _read_tarball(path: str, budget: _Budget, strict: bool = True) -> dict[str, tuple[str, bytes | str]]:
    """Members of a .tar(.gz) snapshot, read as one stream, member by member, each to its declared size
    (checked against its bound before a byte of it is read); the gzip trailer's CRC is checked at the end.

    `strict=False` salvages a damaged tarball (for --allow-partial): the members read before the damage,
    still bounded; a member outside the snapshot or cut short is skipped, not an error.
    """
    entries: dict[str, tuple[str, bytes | str]] = {}
    whole = _whole_tar(path) if strict else None
    if whole is not None:
        members = read_members(whole, MAX_TAR_HEADER_BYTES)
        if members is not None:
            _take_plain(members, budget, entries)
            return entries
    try:
        with contextlib.ExitStack() as stack:
            # What host/ustar.py gave way on is read by tarfile from the bytes already decompressed.
            counted: Any = io.BytesIO(whole) if whole is not None else _decompressed(
                stack.enter_context(open(path, "rb")))
            with tarfile.open(fileobj=counted, mode="r|", tarinfo=_BoundedTarInfo) as tar:
                for member in tar:
                    rel = _member_name(member.name)
                    if rel is None:
                        if strict:
                            raise SnapshotError(f"member {member.name[:200]!r} lies outside the snapshot",
                                                member.name[:200])
                        continue
                    budget.take(rel, member.size if member.isfile() else 0)
                    if member.issym():
                        entries[rel] = ("link", member.linkname)
                    elif member.isfile():
                        handle = tar.extractfile(member)
                        if handle is None:
                            continue
                        data = handle.read(member.size)
                        if len(data) == member.size:
                            entries[rel] = ("file", data)
                        elif strict:
                            raise SnapshotError(f"member {rel} is cut short", rel, partial_ok=True)
            if strict:
                # Through the end of the compressed stream, so that the gzip CRC and length are checked.
                while counted.read(1 << 16):
                    pass
    except (EOFError, zlib.error, gzip.BadGzipFile, tarfile.TarError, OSError):
        if strict:
            raise
    return entries


def _decompressed(raw: Any) -> io.BufferedReader:
    """The tar stream of an open snapshot file, gunzipped where it is gzipped, counted against the bounds."""
    gzipped = raw.read(2) == b"\x1f\x8b"
    raw.seek(0)
    stream: Any = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
    return io.BufferedReader(BoundedDecompression(stream, MAX_SNAPSHOT_BYTES + 64 * (1 << 20), raw if gzipped else None),
                             1 << 16)


# Snapshots up to this size once decompressed are read whole and their headers parsed by host/ustar.py.
_PLAIN_TAR_BYTES = 32 << 20


def _whole_tar(path: str) -> bytes | None:
    """The decompressed tar, read to its end (the gzip CRC checked), where it is at most _PLAIN_TAR_BYTES:
    host/ustar.py parses it; a larger one is None, streamed through tarfile."""
    with open(path, "rb") as raw:
        data = _decompressed(raw).read(_PLAIN_TAR_BYTES + 1)
    return data if len(data) <= _PLAIN_TAR_BYTES else None


def _take_plain(members: Sequence[Member], budget: _Budget, entries: dict[str, tuple[str, bytes | str]]) -> None:
    """host/ustar.py's members into `entries`, with the checks _read_tarball makes of tarfile's."""
    for member in members:
        rel = _member_name(member.name)
        if rel is None:
            raise SnapshotError(f"member {member.name[:200]!r} lies outside the snapshot", member.name[:200])
        budget.take(rel, member.size if member.kind == "file" else 0)
        if member.kind == "link":
            entries[rel] = ("link", member.target)
        elif member.kind == "file":
            entries[rel] = ("file", member.data)


def _verify_manifest(entries: Mapping[str, tuple[str, bytes | str]]) -> None:
    """Every member as manifest.json lists it (size, SHA-256), none missing, none added."""
    raw = entries.get("manifest.json")
    if raw is None or raw[0] != "file":
        raise SnapshotError("no manifest.json (the capture was cut short)", "manifest.json", partial_ok=True)
    listed = _object("manifest.json", load_json(raw[1], "manifest.json")).get("members")
    if not isinstance(listed, dict):
        raise SnapshotError("manifest.json lists no members", "manifest.json", partial_ok=True)
    for name in sorted(set(listed) | {n for n in entries if n != "manifest.json"}):
        want = listed.get(name)
        have = entries.get(name)
        if have is None:
            raise SnapshotError(f"member {name} is listed in the manifest but missing", name, partial_ok=True)
        if not isinstance(want, dict):
            raise SnapshotError(f"member {name} is not in the manifest", name, partial_ok=True)
        kind, payload = have
        body = payload if isinstance(payload, bytes) else payload.encode("utf-8", "surrogateescape")
        if kind == "link":
            if want.get("link") != payload:
                raise SnapshotError(f"member {name} does not match the manifest", name, partial_ok=True)
        elif want.get("size") != len(body) or want.get("sha256") != hashlib.sha256(body).hexdigest():
            raise SnapshotError(f"member {name} does not match the manifest (size or SHA-256)", name, partial_ok=True)


def load_snapshot(path: str, allow_partial: bool = False) -> MemoryHost:
    """Open a snapshot directory or .tar.gz; a bad one is an InputError (exit 2) naming the first bad member.

    Format 2 carries manifest.json (every member's size and SHA-256, written last): a missing manifest, a
    mismatch or a damaged gzip is refused unless `allow_partial`, which replays what could be read and marks
    the source partial. Format 1 snapshots (no manifest) replay as they are. Bounds are never waived."""
    budget = _Budget()
    partial = ""
    entries: dict[str, tuple[str, bytes | str]] = {}
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            entries = _read_directory(path, budget)
        elif stat.S_ISREG(st.st_mode):
            try:
                entries = _read_tarball(path, budget)
            except (EOFError, zlib.error, gzip.BadGzipFile, tarfile.ReadError) as exc:
                if not allow_partial:
                    raise InputError(f"cannot read snapshot {path}: {exc}") from exc
                partial = f"damaged: {exc}"
                entries = _salvage_tarball(path)
        else:
            raise InputError(f"{path}: not a regular file or directory")
    except SnapshotError as exc:
        raise InputError(f"snapshot {path} refused: {exc}") from exc
    except (OSError, tarfile.TarError) as exc:
        raise InputError(f"cannot read snapshot {path}: {exc}") from exc
    # A snapshot tarball may hold one top directory: strip it when meta.json sits below it.
    if "meta.json" not in entries:
        tops = {rel.split("/", 1)[0] for rel in entries}
        if len(tops) == 1:
            top = tops.pop() + "/"
            entries = {rel[len(top):]: v for rel, v in entries.items() if rel.startswith(top)}
    if "meta.json" not in entries:
        raise InputError(f"{path} is not a stackaudit snapshot (no meta.json)")
    try:
        meta = _object("meta.json", load_json(entries["meta.json"][1], "meta.json"))
        fmt = meta.get("format", 1)
        verified = False
        if not partial and ((isinstance(fmt, int) and fmt >= 2) or "manifest.json" in entries):
            try:
                _verify_manifest(entries)
                verified = True
            except SnapshotError as exc:
                if not allow_partial:
                    raise InputError(f"snapshot {path} refused: {exc} (--allow-partial replays what is there)") from exc
                partial = str(exc)
        record = _load_entries(entries)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"snapshot {path} is damaged: {exc}") from exc
    record.meta.setdefault("source", "snapshot")
    record.meta["path"] = path
    if partial:
        record.meta["partial"] = partial
    host = MemoryHost(record)
    host.redacted_with = _redacted_with(meta) if verified else ""
    return host


def _redacted_with(meta: Mapping[str, Any]) -> str:
    """These redaction rules, when the snapshot's meta.json says it was captured under them."""
    from stackaudit.host.redact import rules_fingerprint

    fingerprint = rules_fingerprint()
    return fingerprint if fingerprint and meta.get("redaction") == fingerprint else ""


def _salvage_tarball(path: str) -> dict[str, tuple[str, bytes | str]]:
    """The members of a damaged tarball read before the damage (for --allow-partial), still bounded."""
    return _read_tarball(path, _Budget(), strict=False)


def is_snapshot(path: str) -> bool:
    """A directory with meta.json, or a regular file that starts as a gzip or tar does (never opens
    anything but a regular file: a FIFO or a device is not a snapshot)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if stat.S_ISDIR(st.st_mode):
        return os.path.isfile(os.path.join(path, "meta.json"))
    if not stat.S_ISREG(st.st_mode):
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return head[:2] == b"\x1f\x8b" or (len(head) == 512 and head[257:262] == b"ustar")
