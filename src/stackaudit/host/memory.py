"""MemoryHost: a host held in memory. Snapshots, pasted outputs and test fakes are all one.

Anything the source did not record raises NotCaptured: the audit says "unknown" for it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    MAX_OUTPUT_BYTES,
    CommandResult,
    HostMeta,
    NotCaptured,
)
from stackaudit.host.confined import normalise
from stackaudit.host.nvml import NvmlError, error_from_json
from stackaudit.host.source import Provenance, title_of_key

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
        path = path_key(path) if path.startswith("/") else path
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
        path = path_key(path) if path.startswith("/") else path
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


def path_key(path: str) -> str:
    """A recorded path as the key it is looked up by: normalised (host/confined.normalise)."""
    try:
        return normalise(path)
    except ValueError:
        return path
