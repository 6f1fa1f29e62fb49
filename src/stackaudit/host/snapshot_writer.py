"""Writing a HostRecord as a snapshot: a .tar.gz or a directory, manifest.json last, through a
temporary file or descriptors so that a failed write leaves nothing behind.
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
import tarfile
from collections.abc import Sequence
from typing import Any

from stackaudit.host.confined import normalise
from stackaudit.host.memory import HostRecord

# 2: pastes recorded verbatim under their true argv or path, documents under doc/, provenance.json.
# Format 1 snapshots (no doc/, no provenance.json) still replay: every member is a whole live read.
SNAPSHOT_FORMAT = 2


def command_file_name(argv: Sequence[str]) -> str:
    """`cmd/<argv joined by "__", unsafe characters replaced>.json` (docs/design.md)."""
    safe = "__".join(argv)
    safe = "".join(c if c.isalnum() or c in "-_.=+," else "_" for c in safe)
    return (safe[:180] or "empty") + ".json"


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
