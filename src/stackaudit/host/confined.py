"""Reading a host's files as data: paths confined to a root, no symlink out, bounded, never blocking.

A path that comes from the host (a process's `--config`, a model directory, a snapshot member) is
data, not a location. `resolve` walks it one component at a time below a directory descriptor:
each directory is opened with O_NOFOLLOW, a symbolic link is read and its target walked again
*inside the same root* (an absolute target restarts at the root, `..` stops at it), as openat2's
RESOLVE_IN_ROOT does (https://man7.org/linux/man-pages/man2/openat2.2.html). A component swapped
for a link between the readlink and the open fails with ELOOP instead of being followed.

Only regular files are read (a FIFO or a socket is never opened for a blocking read; a character
device only where the caller names it), with O_NONBLOCK and at most `limit` bytes, streaming.

`read_as_user` reads a file that another user's process names with that user's rights: in a
forked child that drops to the process's uid, gid and groups before it opens anything, so root
never lends its own rights to a path an unprivileged user chose.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import select
import signal
import stat
import time
import warnings
from collections.abc import Sequence

MAX_LISTING_BYTES = 8 * 1024 * 1024  # a directory listing passed back from a child, NUL-separated
MAX_SYMLINKS = 40  # as the kernel's own limit on links followed in one lookup (path_resolution(7))
# Character devices read on purpose (4 bytes of PM QoS); any other device reads as empty.
READABLE_DEVICES = frozenset({"/dev/cpu_dma_latency"})
_DIR_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)


def normalise(path: str) -> str:
    """An absolute, normalised path (no `.`, `..`, `//`, NUL), or ValueError."""
    if not path or "\x00" in path:
        raise ValueError("a path with a NUL byte or empty")
    if not path.startswith("/"):
        raise ValueError(f"not an absolute path: {path[:200]!r}")
    norm = posixpath.normpath(path)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


class _Walk:
    """The open directories from the root down to the parent of the final component."""

    def __init__(self, root_fd: int) -> None:
        self.fds = [os.dup(root_fd)]

    @property
    def fd(self) -> int:
        return self.fds[-1]

    def up(self) -> None:
        if len(self.fds) > 1:
            os.close(self.fds.pop())

    def to_root(self) -> None:
        while len(self.fds) > 1:
            os.close(self.fds.pop())

    def down(self, name: str) -> None:
        self.fds.append(os.open(name, _DIR_FLAGS, dir_fd=self.fd))

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []


def _link_target(name: str, dir_fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return None  # not a link
        raise


def resolve(root_fd: int, path: str, follow_final: bool = True) -> tuple[_Walk, str]:
    """Walk `path` below `root_fd`; returns the walk (its `fd` is the final component's directory) and
    the final component's name ("" for the root itself). Links are followed inside the root only."""
    walk = _Walk(root_fd)
    pending = list(reversed(_parts(path)))
    followed = 0
    try:
        while pending:
            name = pending.pop()
            if name == "..":
                walk.up()
                continue
            last = not pending
            if last and not follow_final:
                return walk, name
            target = _link_target(name, walk.fd)
            if target is not None:
                followed += 1
                if followed > MAX_SYMLINKS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
                if target.startswith("/"):
                    walk.to_root()
                pending.extend(reversed(_parts(target)))
                if not pending:
                    return walk, ""
                continue
            if last:
                return walk, name
            walk.down(name)
        return walk, ""
    except BaseException:
        walk.close()
        raise


def _open_final(walk: _Walk, name: str, flags: int) -> int:
    if not name:
        return os.open(".", flags & ~os.O_NOFOLLOW, dir_fd=walk.fd)
    return os.open(name, flags, dir_fd=walk.fd)


def read_fd_bounded(fd: int, limit: int) -> bytes:
    """At most `limit` bytes from fd, read in chunks (never the whole file at once); stops on EAGAIN."""
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        try:
            chunk = os.read(fd, min(remaining, 1 << 20))
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _open_root(root: str) -> int:
    return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def _resolve_below(root: str, path: str, follow_final: bool = True) -> tuple[_Walk, str]:
    """`resolve` from the root directory `root` (opened and closed here)."""
    root_fd = _open_root(root)
    try:
        return resolve(root_fd, path, follow_final=follow_final)
    finally:
        os.close(root_fd)


def _open_below(root: str, path: str, flags: int) -> int:
    """A descriptor on `path` below `root`, opened with `flags`."""
    walk, name = _resolve_below(root, path)
    try:
        return _open_final(walk, name, flags)
    finally:
        walk.close()


def read_file(root: str, path: str, limit: int, shown_as: str = "") -> bytes:
    """Bytes of `path` below `root`: a regular file (or a named device), at most `limit` bytes.
    A FIFO, socket or other device reads as empty, without ever waiting on it."""
    fd = _open_below(root, path, _FILE_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), shown_as or path)
        if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and (shown_as or path) in READABLE_DEVICES):
            return read_fd_bounded(fd, limit)
        return b""
    finally:
        os.close(fd)


def list_dir(root: str, path: str) -> list[str]:
    fd = _open_below(root, path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        return sorted(os.listdir(fd))
    finally:
        os.close(fd)


def read_link(root: str, path: str) -> str:
    walk, name = _resolve_below(root, path, follow_final=False)
    try:
        if not name:
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), path)
        return os.readlink(name, dir_fd=walk.fd)
    finally:
        walk.close()


# --- reading with another user's rights -------------------------------------------------------

_STATUS_OK = b"O"
_STATUS_ERR = b"E"


def read_as_user(root: str, path: str, limit: int, uid: int, gid: int, groups: Sequence[int],
                 op: str = "read", timeout_s: float = 5.0) -> bytes | list[str]:
    """`read_file` (op "read") or `list_dir` (op "list") in a forked child that has dropped to uid/gid/groups
    first: the kernel, not a mode-bit check, decides what that user may read. Raises the child's OSError."""
    rfd, wfd = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns about fork() in a threaded process: the child below runs only os calls
        # (no lock another thread could hold) and ends in os._exit.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: only os calls, then _exit, whatever happens
        code = 0
        try:
            os.close(rfd)
            os.setgroups(list(groups))
            os.setgid(gid)
            os.setuid(uid)
            if os.getuid() != uid or os.geteuid() != uid:
                raise PermissionError(errno.EPERM, "could not drop privileges")
            if op == "list":
                payload = "\x00".join(list_dir(root, path)).encode("utf-8", "surrogateescape")[:MAX_LISTING_BYTES]
            else:
                payload = read_file(root, path, limit)
            _write_all(wfd, _STATUS_OK + payload)
        except OSError as exc:
            _write_all(wfd, _STATUS_ERR + str(exc.errno or errno.EIO).encode())
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(wfd)
    try:
        data = _read_child(rfd, (MAX_LISTING_BYTES if op == "list" else limit) + 1, timeout_s)
    except BaseException:
        _kill(pid)
        raise
    finally:
        os.close(rfd)
        _wait(pid)
    if data[:1] == _STATUS_OK:
        body = data[1:]
        if op == "list":
            return sorted(n for n in body.decode("utf-8", "surrogateescape").split("\x00") if n)
        return body[:limit]
    code = int(data[1:] or b"0") if data[:1] == _STATUS_ERR and data[1:].isdigit() else errno.EIO
    cls = {errno.ENOENT: FileNotFoundError, errno.EACCES: PermissionError, errno.EPERM: PermissionError,
           errno.ENOTDIR: NotADirectoryError, errno.EISDIR: IsADirectoryError}.get(code, OSError)
    raise cls(code, os.strerror(code), path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_child(fd: int, limit: int, timeout_s: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + timeout_s
    while size < limit:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(errno.ETIMEDOUT, "the reading child did not answer in time")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _wait(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def process_credentials(status_text: str) -> tuple[int, int, list[int]] | None:
    """(uid, gid, groups) of a process from its /proc/PID/status: the real ids (the user who started it,
    never more than it has), its supplementary groups. None when the lines are missing or malformed."""
    fields: dict[str, list[str]] = {}
    for line in status_text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key in ("Uid", "Gid", "Groups"):
            fields[key] = value.split()
    try:
        uid = int(fields["Uid"][0])
        gid = int(fields["Gid"][0])
        groups = [int(g) for g in fields.get("Groups", [])]
    except (KeyError, IndexError, ValueError):
        return None
    return uid, gid, groups
