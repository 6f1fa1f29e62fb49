"""MemoryHost: a host held in memory. Snapshots, pasted outputs and test fakes are all one.

Anything the source did not record raises NotCaptured: the audit says "unknown" for it.
"""

from __future__ import annotations

import errno
import io
import json
import os
import posixpath
import tarfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackaudit.errors import InputError
from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    CommandResult,
    HostMeta,
    NotCaptured,
)
from stackaudit.host.nvml import NvmlError, error_from_json
from stackaudit.host.source import Provenance, title_of_key

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
        # Not declared: a live capture's member (whole), or a pasted one nobody vouched for (an excerpt).
        origin = self.meta.source if self.meta.source in ("snapshot", "pasted", "fake") else "snapshot"
        return Provenance(title_of_key(key), origin, origin != "pasted")


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
    """`cmd/<argv joined by "__", unsafe characters replaced>.json` (DESIGN.md)."""
    safe = "__".join(argv)
    safe = "".join(c if c.isalnum() or c in "-_.=+," else "_" for c in safe)
    return (safe[:180] or "empty") + ".json"


def _load_entries(entries: Mapping[str, tuple[str, bytes | str]]) -> HostRecord:
    """Build a record from {relative path: ("file"|"link", content|target)} of a snapshot."""
    record = HostRecord()
    for rel, (kind, payload) in entries.items():
        if rel.startswith("fs/"):
            path = "/" + rel[3:]
            if kind == "link":
                record.links[path] = str(payload)
            else:
                record.files[path] = payload if isinstance(payload, bytes) else payload.encode()
        elif kind != "file":
            continue
        elif rel.startswith("cmd/") and rel.endswith(".json"):
            data = json.loads(payload)
            result = CommandResult.from_json(data)
            record.commands[result.argv] = result
        elif rel.startswith("nvml/") and rel.endswith(".json"):
            record.nvml[_nvml_query_from_file(rel[5:-5])] = json.loads(payload)
        elif rel == "meta.json":
            record.meta = json.loads(payload)
        elif rel == "dirs.json":
            record.dirs = {k: list(v) for k, v in json.loads(payload).items()}
        elif rel == "errors.json":
            loaded = json.loads(payload)
            for kind_name in ("read", "list", "link"):
                record.errors[kind_name] = dict(loaded.get(kind_name, {}))
        elif rel == "links.json":
            record.links.update({k: str(v) for k, v in json.loads(payload).items()})
        elif rel == "which.json":
            record.which = dict(json.loads(payload))
        elif rel.startswith("doc/") and rel.endswith(".txt"):
            body = payload if isinstance(payload, bytes) else payload.encode()
            record.docs[rel[4:-4]] = body.decode("utf-8", errors="replace")
        elif rel == "provenance.json":
            loaded = json.loads(payload)
            if not isinstance(loaded, dict):
                raise ValueError("provenance.json is not an object")
            record.provenance = {str(k): Provenance.from_json(v) for k, v in loaded.items()}
    return record


def load_snapshot(path: str) -> MemoryHost:
    """Open a snapshot directory or .tar.gz; a bad one is an InputError (exit 2)."""
    entries: dict[str, tuple[str, bytes | str]] = {}
    try:
        if os.path.isdir(path):
            for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
                for name in [*filenames, *dirnames]:
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, path).replace(os.sep, "/")
                    if os.path.islink(full):
                        entries[rel] = ("link", os.readlink(full))
                    elif os.path.isfile(full):
                        with open(full, "rb") as fh:
                            entries[rel] = ("file", fh.read())
        else:
            with tarfile.open(path, "r:*") as tar:
                for member in tar.getmembers():
                    rel = posixpath.normpath(member.name).lstrip("/")
                    if rel.startswith("../"):
                        continue
                    if member.issym():
                        entries[rel] = ("link", member.linkname)
                    elif member.isfile():
                        member_file = tar.extractfile(member)
                        if member_file is not None:
                            entries[rel] = ("file", member_file.read())
    except (OSError, tarfile.TarError, EOFError) as exc:
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
        record = _load_entries(entries)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"snapshot {path} is damaged: {exc}") from exc
    record.meta.setdefault("source", "snapshot")
    record.meta["path"] = path
    return MemoryHost(record)


def is_snapshot(path: str) -> bool:
    if os.path.isdir(path):
        return os.path.exists(os.path.join(path, "meta.json"))
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
    except OSError:
        return False
    return magic == b"\x1f\x8b" or tarfile.is_tarfile(path)


def write_snapshot(record: HostRecord, out_path: str) -> None:
    """Write a record as a .tar.gz (or a directory when out_path has no .tar.gz/.tgz suffix)."""
    members: list[tuple[str, bytes | None, str | None]] = [("meta.json", _json_bytes(record.meta), None)]
    for path, data in sorted(record.files.items()):
        members.append(("fs" + path, data, None))
    for path, link in sorted(record.links.items()):
        members.append(("fs" + path, None, link))
    for argv, result in sorted(record.commands.items()):
        members.append(("cmd/" + command_file_name(argv), _json_bytes(result.to_json()), None))
    for query, value in sorted(record.nvml.items()):
        members.append((f"nvml/{_nvml_file_from_query(query)}.json", _json_bytes(value), None))
    for name, text in sorted(record.docs.items()):
        members.append((f"doc/{_doc_file_name(name)}.txt", text.encode(), None))
    if record.provenance:
        members.append(("provenance.json", _json_bytes({k: p.to_json() for k, p in sorted(record.provenance.items())}),
                        None))
    members.append(("dirs.json", _json_bytes(record.dirs), None))
    members.append(("errors.json", _json_bytes(record.errors), None))
    members.append(("which.json", _json_bytes(record.which), None))
    if out_path.endswith((".tar.gz", ".tgz")):
        tmp = out_path + ".part"
        with tarfile.open(tmp, "w:gz") as tar:
            for member_name, content, link_target in members:
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
        os.replace(tmp, out_path)
        return
    # A directory cannot hold a symlink and files beneath the same path (a tar can); such links
    # go to links.json instead, so that nothing recorded is lost.
    conflicting: dict[str, str] = {}
    for member_name, content, link_target in members:
        full = os.path.join(out_path, member_name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if link_target is not None:
            if os.path.lexists(full):
                conflicting["/" + member_name[len("fs/"):]] = link_target
            else:
                os.symlink(link_target, full)
        else:
            assert content is not None
            if os.path.islink(os.path.dirname(full)):
                raise OSError(f"snapshot path {member_name} lies beneath a recorded link")
            with open(full, "wb") as fh:
                fh.write(content)
    if conflicting:
        with open(os.path.join(out_path, "links.json"), "wb") as fh:
            fh.write(_json_bytes(conflicting))


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
