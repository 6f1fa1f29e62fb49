"""MemoryHost: a host held in memory. Snapshots, pasted outputs and test fakes are all one.

Anything the source did not record raises NotCaptured: the audit says "unknown" for it.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import io
import json
import os
import posixpath
import secrets
import shutil
import stat
import tarfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackaudit.errors import InputError
from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    MAX_OUTPUT_BYTES,
    CommandResult,
    HostMeta,
    NotCaptured,
)
from stackaudit.host.confined import normalise, read_fd_bounded
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
from stackaudit.host.nvml import NvmlError, error_from_json
from stackaudit.host.source import Provenance, title_of_key
from stackaudit.host.ustar import Member, read_members

# 2: pastes recorded verbatim under their true argv or path, documents under doc/, provenance.json.
# Format 1 snapshots (no doc/, no provenance.json) still replay: every member is a whole live read.
SNAPSHOT_FORMAT = 2
_ERRNO_NAMES = {"ENOENT": FileNotFoundError, "EACCES": PermissionError, "EPERM": PermissionError,
                "ENOTDIR": NotADirectoryError, "EINVAL": OSError, "EISDIR": IsADirectoryError}


def error_name(exc: OSError) -> str:
    """The errno name an OSError is recorded under in a snapshot."""
    if exc.errno is not None and exc.errno in errno.errorcode:
        return errno.errorcode[exc.errno]
    if isinstance(exc, FileNotFoundError):
        return "ENOENT"
    if isinstance(exc, PermissionError):
        return "EACCES"
    return "EIO"


def make_error(name: str, path: str) -> OSError:
    cls = _ERRNO_NAMES.get(name, OSError)
    code = getattr(errno, name, errno.EIO)
    return cls(code, os.strerror(code), path)


@dataclass
class HostRecord:
    """Everything a host was asked and answered: the content of a snapshot."""

    files: dict[str, bytes] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    dirs: dict[str, list[str]] = field(default_factory=dict)
    commands: dict[tuple[str, ...], CommandResult] = field(default_factory=dict)
    which: dict[str, str | None] = field(default_factory=dict)
    errors: dict[str, dict[str, str]] = field(default_factory=lambda: {"read": {}, "list": {}, "link": {}})
    nvml: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    # Documents with no place on a host (engine and NCCL logs), by source name.
    docs: dict[str, str] = field(default_factory=dict)
    # Where each source key's text came from; keys absent here are whole reads of `meta["source"]`.
    provenance: dict[str, Provenance] = field(default_factory=dict)

    def merge(self, other: HostRecord) -> None:
        self.files.update(other.files)
        self.links.update(other.links)
        for path, names in other.dirs.items():
            self.dirs[path] = sorted(set(self.dirs.get(path, [])) | set(names))
        self.commands.update(other.commands)
        self.which.update(other.which)
        for kind, entries in other.errors.items():
            self.errors.setdefault(kind, {}).update(entries)
        self.nvml.update(other.nvml)
        self.meta.update(other.meta)
        for name, text in other.docs.items():
            self.docs[name] = self.docs.get(name, "") + text
        for key, prov in other.provenance.items():
            mine = self.provenance.get(key)
            self.provenance[key] = prov if mine is None else join_provenance(mine, prov)


def join_provenance(a: Provenance, b: Provenance) -> Provenance:
    """One source shown twice (two spans of a paste, two pasted files): an excerpt, unless one is whole."""
    if a.whole and not b.whole:
        return a
    if b.whole and not a.whole:
        return b
    if a.file == b.file and a.lines and b.lines:
        return Provenance(a.source, a.origin, a.whole and b.whole, a.file,
                          (min(a.lines[0], b.lines[0]), max(a.lines[1], b.lines[1])))
    files = a.file if a.file == b.file else ", ".join(f for f in (a.file, b.file) if f)
    return Provenance(a.source, a.origin, a.whole and b.whole, files, None)


class MemoryHost:
    """A Host answering from a HostRecord. `derive_dirs` lists directories from the files held."""

    def __init__(self, record: HostRecord, meta: HostMeta | None = None, derive_dirs: bool = False) -> None:
        self.record = record
        self.derive_dirs = derive_dirs
        # The redaction rules every answer already went through (set by load_snapshot only, for a snapshot
        # whose manifest verified and whose meta.json names these rules): RedactingHost passes it through.
        self.redacted_with = ""
        self.meta = meta or HostMeta(
            hostname=str(record.meta.get("hostname", "")),
            uid=int(record.meta.get("uid", -1)),
            source=str(record.meta.get("source", "snapshot")),
            path=str(record.meta.get("path", "")),
            captured_at=str(record.meta.get("time", "")),
            tool_version=str(record.meta.get("tool_version", "")),
            extra={k: v for k, v in record.meta.items() if k not in {"hostname", "uid", "source", "path"}},
        )

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        data = self.record.files.get(path)  # keys are normalised: a hit needs no normalising (most reads)
        if data is not None:
            return data[:limit]
        path = _path_key(path) if path.startswith("/") else path
        data = self.record.files.get(path)
        if data is not None:
            return data[:limit]
        err = self.record.errors.get("read", {}).get(path)
        if err is not None:
            raise make_error(err, path)
        if self.derive_dirs:
            if path in self.record.dirs or self._derived_entries(path):
                raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        raise NotCaptured(path)

    def _derived_entries(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        names = {
            p[len(prefix):].split("/", 1)[0]
            for p in (*self.record.files, *self.record.links, *self.record.dirs)
            if p.startswith(prefix) and len(p) > len(prefix)
        }
        return sorted(names)

    def list_dir(self, path: str) -> list[str]:
        path = path.rstrip("/") or "/"
        entries = self.record.dirs.get(path)
        if entries is not None:
            return sorted(entries)
        err = self.record.errors.get("list", {}).get(path)
        if err is not None:
            raise make_error(err, path)
        if self.derive_dirs:
            derived = self._derived_entries(path)
            if derived:
                return derived
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        raise NotCaptured(path)

    def readlink(self, path: str) -> str:
        path = _path_key(path) if path.startswith("/") else path
        target = self.record.links.get(path)
        if target is not None:
            return target
        err = self.record.errors.get("link", {}).get(path)
        if err is not None:
            raise make_error(err, path)
        if self.derive_dirs:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        raise NotCaptured(path)

    def which(self, name: str) -> str | None:
        if name in self.record.which:
            return self.record.which[name]
        if self.derive_dirs:
            return None
        raise NotCaptured(f"which {name}")

    def nvml(self, query: str) -> Any:
        if query not in self.record.nvml:
            if self.derive_dirs:
                raise NvmlError("library-not-found", "no NVML in this fake host")
            raise NotCaptured(f"nvml {query}")
        data = self.record.nvml[query]
        err = error_from_json(data)
        if err is not None:
            raise err
        return data

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        result = self.record.commands.get(tuple(argv))
        if result is None:
            if self.derive_dirs:
                return CommandResult(tuple(argv), 127, "", f"{argv[0]}: command not found")
            raise NotCaptured(" ".join(argv))
        return result

    def doc(self, name: str) -> str:
        text = self.record.docs.get(name)
        if text is None:
            raise NotCaptured(f"pasted {name.replace('_', ' ')}")
        return text

    def provenance(self, key: str) -> Provenance:
        prov = self.record.provenance.get(key)
        if prov is not None:
            return prov
        # Not declared: a live capture's member (whole, unless its command was cut at the output cap),
        # or a pasted one nobody vouched for (an excerpt).
        origin = self.meta.source if self.meta.source in ("snapshot", "pasted", "fake") else "snapshot"
        whole = origin != "pasted"
        if whole and key.startswith("cmd:"):
            result = self.record.commands.get(tuple(key[4:].split(" ")))
            if result is not None and result.truncated:
                return Provenance(title_of_key(key), origin, False, cut_at=MAX_OUTPUT_BYTES)
        return Provenance(title_of_key(key), origin, whole)


def add_pasted(snapshot: MemoryHost, pasted: MemoryHost) -> MemoryHost:
    """A snapshot with pasted outputs beside it (`--from host.tar.gz --from nccl.log`): what the snapshot
    recorded stays (a live read is whole); the pastes add what it lacks, with their own provenance."""
    base, extra = snapshot.record, pasted.record
    record = HostRecord(files=dict(base.files), links=dict(base.links), dirs={k: list(v) for k, v in base.dirs.items()},
                        commands=dict(base.commands), which=dict(base.which),
                        errors={k: dict(v) for k, v in base.errors.items()}, nvml=dict(base.nvml),
                        meta=dict(base.meta), docs=dict(base.docs), provenance=dict(base.provenance))
    added: list[str] = []
    for path, data in extra.files.items():
        if path not in record.files:
            record.files[path] = data
            added.append("fs:" + path)
    for path, names in extra.dirs.items():
        if path not in record.dirs:
            record.dirs[path] = list(names)
            added.append("fs:" + path)
    for argv, result in extra.commands.items():
        if argv not in record.commands:
            record.commands[argv] = result
            added.append("cmd:" + " ".join(argv))
    for name, text in extra.docs.items():
        if name not in record.docs:
            record.docs[name] = text
            added.append("doc:" + name)
    for key in added:
        if key in extra.provenance:
            record.provenance[key] = extra.provenance[key]
    record.meta["path"] = ", ".join(p for p in (base.meta.get("path", ""), extra.meta.get("path", "")) if p)
    record.meta["recognised"] = list(extra.meta.get("recognised", []))
    return MemoryHost(record)


def fake_host(
    files: Mapping[str, str | bytes | OSError] | None = None,
    commands: Mapping[str | tuple[str, ...], str | CommandResult] | None = None,
    links: Mapping[str, str] | None = None,
    dirs: Mapping[str, Sequence[str]] | None = None,
    which: Mapping[str, str | None] | None = None,
    nvml: Mapping[str, Any] | None = None,
    docs: Mapping[str, str] | None = None,
    hostname: str = "testhost",
    uid: int = 0,
    strict: bool = False,
) -> MemoryHost:
    """A FakeHost for tests, from strings. Non-strict fakes answer "absent" for anything unlisted."""
    record = HostRecord(meta={"hostname": hostname, "uid": uid, "source": "fake"})
    for path, content in (files or {}).items():
        if isinstance(content, OSError):
            record.errors["read"][path] = error_name(content)
        else:
            record.files[path] = content.encode() if isinstance(content, str) else content
    for key, out in (commands or {}).items():
        argv = tuple(key.split()) if isinstance(key, str) else tuple(key)
        record.commands[argv] = out if isinstance(out, CommandResult) else CommandResult(argv, 0, out)
    record.links.update(links or {})
    record.dirs.update({k: list(v) for k, v in (dirs or {}).items()})
    record.which.update(which or {})
    record.nvml.update(nvml or {})
    record.docs.update(docs or {})
    return MemoryHost(record, derive_dirs=not strict)


# --- snapshot files -------------------------------------------------------------------------

def command_file_name(argv: Sequence[str]) -> str:
    """`cmd/<argv joined by "__", unsafe characters replaced>.json` (docs/design.md)."""
    safe = "__".join(argv)
    safe = "".join(c if c.isalnum() or c in "-_.=+," else "_" for c in safe)
    return (safe[:180] or "empty") + ".json"


def _load_entries(entries: Mapping[str, tuple[str, bytes | str]]) -> HostRecord:
    """Build a record from {relative path: ("file"|"link", content|target)} of a snapshot; every JSON
    member parsed with limits (host/limits.py) and its shape checked, so a bad one is a ValueError."""
    record = HostRecord()
    for rel, (kind, payload) in entries.items():
        value: Any = None
        if kind == "file" and rel.endswith(".json") and not rel.startswith(("fs/", "doc/")):
            value = load_json(payload, rel)
        if rel.startswith("fs/"):
            path = _path_key("/" + rel[3:])
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
            record.dirs = {_path_key(k): [str(n) for n in _list(rel, v)] for k, v in _object(rel, value).items()}
        elif rel == "errors.json":
            loaded = _object(rel, value)
            for kind_name in ("read", "list", "link"):
                record.errors[kind_name] = {_path_key(k): str(v)
                                            for k, v in _object(rel, loaded.get(kind_name, {})).items()}
        elif rel == "links.json":
            record.links.update({_path_key(k): str(v) for k, v in _object(rel, value).items()})
        elif rel == "which.json":
            record.which = {str(k): (None if v is None else str(v)) for k, v in _object(rel, value).items()}
        elif rel.startswith("doc/") and rel.endswith(".txt"):
            body = payload if isinstance(payload, bytes) else payload.encode()
            record.docs[rel[4:-4]] = body.decode("utf-8", errors="replace")
        elif rel == "provenance.json":
            loaded = _object(rel, value)
            record.provenance = {str(k): Provenance.from_json(v) for k, v in loaded.items()}
    return record




def _object(what: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    return value


def _list(what: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{what} holds a listing that is not a list")
    return value


def _path_key(path: str) -> str:
    """A recorded path as the key it is looked up by: normalised (host/confined.normalise)."""
    try:
        return normalise(path)
    except ValueError:
        return path


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


# --- writing ---------------------------------------------------------------------------------------


class SnapshotWriteError(OSError):
    """A snapshot that could not be written (its temporary file or directory is gone)."""


def _safe_link(member: str, target: str) -> bool:
    """A recorded link kept as a symlink member only when it is relative and stays inside the snapshot's
    fs/ tree (as sysfs links do); any other goes to links.json, so no extraction can follow it out."""
    if not target or target.startswith("/") or "\x00" in target:
        return False
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(member), target))
    return joined == "fs" or joined.startswith("fs/")


def _members(record: HostRecord) -> tuple[list[tuple[str, bytes | None, str | None]], int]:
    """(name, content, link target) of every member but the manifest; and how many paths were refused.

    A recorded path becomes a member name only in its normalised form: a name is derived from the
    path, never the path joined into the output location."""
    refused = 0
    members: list[tuple[str, bytes | None, str | None]] = [("meta.json", _json_bytes(record.meta), None)]
    links: dict[str, str] = {}
    file_names: set[str] = set()
    for path, data in sorted(record.files.items()):
        try:
            norm = normalise(path)
        except ValueError:
            refused += 1
            continue
        members.append(("fs" + norm, data, None))
        file_names.add("fs" + norm)
    for path, link in sorted(record.links.items()):
        try:
            norm = normalise(path)
        except ValueError:
            refused += 1
            continue
        name = "fs" + norm
        below = any(f.startswith(name + "/") for f in file_names)
        if _safe_link(name, link) and not below and name not in file_names:
            members.append((name, None, link))
        else:
            links[norm] = link
    for argv, result in sorted(record.commands.items()):
        members.append(("cmd/" + command_file_name(argv), _json_bytes(result.to_json()), None))
    for query, value in sorted(record.nvml.items()):
        members.append((f"nvml/{_doc_file_name(_nvml_file_from_query(query))}.json", _json_bytes(value), None))
    for name, text in sorted(record.docs.items()):
        members.append((f"doc/{_doc_file_name(name)}.txt", text.encode("utf-8", "replace"), None))
    if record.provenance:
        members.append(("provenance.json", _json_bytes({k: p.to_json() for k, p in sorted(record.provenance.items())}),
                        None))
    members.append(("dirs.json", _json_bytes(record.dirs), None))
    members.append(("errors.json", _json_bytes(record.errors), None))
    members.append(("which.json", _json_bytes(record.which), None))
    if links:
        members.append(("links.json", _json_bytes(links), None))
    return members, refused


def _manifest(members: Sequence[tuple[str, bytes | None, str | None]]) -> bytes:
    listed: dict[str, dict[str, Any]] = {}
    for name, content, link in members:
        if link is not None:
            listed[name] = {"link": link}
        else:
            assert content is not None
            listed[name] = {"size": len(content), "sha256": hashlib.sha256(content).hexdigest()}
    return _json_bytes({"format": SNAPSHOT_FORMAT, "members": listed})


def write_snapshot(record: HostRecord, out_path: str) -> int:
    """Write a record as a .tar.gz (or a directory when out_path has no .tar.gz/.tgz suffix); returns how
    many recorded paths were refused as member names. manifest.json is the last member written.

    A directory is created here (mode 0700; one that exists is refused) and filled through descriptors;
    a tarball goes through a temporary file created exclusively, without following links, beside the
    target, then linked into place (never over an existing file). On any failure the temporary file or
    the half-written directory is removed and SnapshotWriteError raised."""
    members, refused = _members(record)
    manifest = _manifest(members)
    if out_path.endswith((".tar.gz", ".tgz")):
        _write_tarball(members, manifest, out_path)
    else:
        _write_directory(members, manifest, out_path)
    return refused


def _write_tarball(members: Sequence[tuple[str, bytes | None, str | None]], manifest: bytes, out_path: str) -> None:
    directory = os.path.dirname(os.path.abspath(out_path))
    tmp = os.path.join(directory, f".{os.path.basename(out_path)}.{secrets.token_hex(8)}.part")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise SnapshotWriteError(exc.errno, f"cannot create a temporary file in {directory}: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            with gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w|") as tar:
                for member_name, content, link_target in [*members, ("manifest.json", manifest, None)]:
                    info = tarfile.TarInfo(member_name)
                    info.mtime = 0
                    if link_target is not None:
                        info.type = tarfile.SYMTYPE
                        info.linkname = link_target
                        tar.addfile(info)
                    else:
                        assert content is not None
                        info.size = len(content)
                        info.mode = 0o644
                        tar.addfile(info, io.BytesIO(content))
            fh.flush()
            os.fsync(fh.fileno())
        _place(tmp, out_path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(FileNotFoundError):  # renamed into place where there are no hard links
        os.unlink(tmp)


def _place(tmp: str, out_path: str) -> None:
    """Link the finished temporary file to its name, never over an existing one; where the filesystem has
    no hard links (FAT, some FUSE mounts), rename it after checking the name is still free."""
    try:
        os.link(tmp, out_path, follow_symlinks=False)
        return
    except FileExistsError as exc:
        raise SnapshotWriteError(errno.EEXIST, f"{out_path} exists (nothing was overwritten)") from exc
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
    if os.path.lexists(out_path):
        raise SnapshotWriteError(errno.EEXIST, f"{out_path} exists (nothing was overwritten)")
    os.rename(tmp, out_path)


def _write_directory(members: Sequence[tuple[str, bytes | None, str | None]], manifest: bytes, out_path: str) -> None:
    try:
        os.mkdir(out_path, 0o700)
    except FileExistsError as exc:
        raise SnapshotWriteError(errno.EEXIST, f"{out_path} exists; choose a new path (nothing was overwritten)") from exc
    top = os.open(out_path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if os.fstat(top).st_uid != os.geteuid():
            raise SnapshotWriteError(errno.EPERM, f"{out_path} was replaced while being written")
        dirs: dict[str, int] = {"": top}
        try:
            for member_name, content, link_target in [*members, ("manifest.json", manifest, None)]:
                parent, _, leaf = member_name.rpartition("/")
                dir_fd = _make_dirs(dirs, parent)
                if link_target is not None:
                    os.symlink(link_target, leaf, dir_fd=dir_fd)
                    continue
                assert content is not None
                fd = os.open(leaf, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                             dir_fd=dir_fd)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(content)
        finally:
            for name, fd in dirs.items():
                if name:
                    os.close(fd)
    except BaseException:
        shutil.rmtree(out_path, ignore_errors=True)
        raise
    finally:
        os.close(top)


def _make_dirs(dirs: dict[str, int], rel: str) -> int:
    """The descriptor of directory `rel` below the snapshot's top, created (0700) as needed, no link followed."""
    if rel in dirs:
        return dirs[rel]
    parent, _, leaf = rel.rpartition("/")
    parent_fd = _make_dirs(dirs, parent)
    with contextlib.suppress(FileExistsError):
        os.mkdir(leaf, 0o700, dir_fd=parent_fd)
    dirs[rel] = os.open(leaf, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
    return dirs[rel]


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, indent=1, sort_keys=True, default=str).encode()


def _doc_file_name(name: str) -> str:
    """A document's source name as a file name (source names are identifiers; anything else is replaced)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120] or "doc"


def _nvml_file_from_query(query: str) -> str:
    """`gpu/0/nvlink` -> `gpu__0__nvlink` (one file per query, no nested folders)."""
    return query.replace("/", "__")


def _nvml_query_from_file(name: str) -> str:
    return name.replace("__", "/")
