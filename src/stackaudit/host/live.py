"""LiveHost: the real machine, optionally with its filesystem mounted under another root."""

from __future__ import annotations

import errno
import os
import re
import selectors
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from stackaudit.host import confined
from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    MAX_OUTPUT_BYTES,
    CommandResult,
    HostMeta,
    NotCaptured,
    live_provenance,
)
from stackaudit.host.source import Provenance, command_key, file_key

_PROCESS_ROOT = re.compile(r"^/proc/(\d+)/root(/.*)?$")

# Commands run in a predictable locale, so parsers see the English output they were written for.
_COMMAND_ENV_OVERRIDES = {"LC_ALL": "C", "LANG": "C"}


class LiveHost:
    """Reads files below `root` (`/` normally, `/host` for a node agent) and runs commands here."""

    def __init__(self, root: str = "/", command_timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> None:
        self.root = os.path.abspath(root)
        self.command_timeout = command_timeout
        # Source keys whose read stopped at its cap: their provenance says excerpt, not whole.
        self._cut: dict[str, int] = {}  # source key -> the cap it was cut at
        self.meta = HostMeta(
            hostname=self._hostname(),
            uid=os.getuid(),
            source="live",
            path=self.root,
        )

    def _hostname(self) -> str:
        if self.root != "/":
            try:
                name = confined.read_file(self.root, "/etc/hostname", 256).decode("utf-8", "replace").strip()
                if name:
                    return name
            except OSError:
                pass
        return socket.gethostname()

    def _named_by_process(self, path: str) -> tuple[int, str] | None:
        """(pid, path inside its root) for `/proc/PID/root/...`: a path some process chose."""
        match = _PROCESS_ROOT.match(path)
        if match is None:
            return None
        return int(match.group(1)), match.group(2) or "/"

    def _as_process_user(self, pid: int, inner: str, op: str, limit: int) -> bytes | list[str]:
        """Read what process `pid` names, inside its root, with its user's rights (root drops them in a
        child; anyone else reads with their own rights, which are no more than they already have)."""
        if self.root == "/":
            root, path = f"/proc/{pid}/root", inner
        else:
            # A mounted host's /proc/PID/root would point outside --root: resolve the path in --root itself.
            root, path = self.root, inner
        creds = None
        if os.geteuid() == 0:
            status = confined.read_file(self.root, f"/proc/{pid}/status", 64 * 1024)
            creds = confined.process_credentials(status.decode("utf-8", "replace"))
            if creds is None:
                raise PermissionError(errno.EACCES, "the process's user is not known", f"/proc/{pid}/root{inner}")
        if creds is not None and creds[0] != 0:
            return confined.read_as_user(root, path, limit, *creds, op=op)
        if op == "list":
            return confined.list_dir(root, path)
        return confined.read_file(root, path, limit)

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        path = confined.normalise(path) if path.startswith("/") else path
        named = self._named_by_process(path)
        try:
            if named is not None:
                data = self._as_process_user(named[0], named[1], "read", limit + 1)
                assert isinstance(data, bytes)
            else:
                # Every component below the root without following a link out of it; O_NONBLOCK and only
                # regular files: a FIFO or a device that never answers must not hang the collection.
                data = confined.read_file(self.root, path, limit + 1, shown_as=path)
        except OSError as exc:
            raise _with_path(exc, path) from None
        if len(data) > limit:  # one byte past the cap tells a cut file from one of exactly `limit` bytes
            self._cut[file_key(path)] = limit
            return data[:limit]
        return data

    def list_dir(self, path: str) -> list[str]:
        path = confined.normalise(path) if path.startswith("/") else path
        named = self._named_by_process(path)
        try:
            if named is not None:
                names = self._as_process_user(named[0], named[1], "list", 0)
                assert isinstance(names, list)
                return names
            return confined.list_dir(self.root, path)
        except OSError as exc:
            raise _with_path(exc, path) from None

    def readlink(self, path: str) -> str:
        path = confined.normalise(path) if path.startswith("/") else path
        try:
            return confined.read_link(self.root, path)
        except OSError as exc:
            raise _with_path(exc, path) from None

    def doc(self, name: str) -> str:
        # Engine and NCCL logs have no fixed place on a host (journald, docker logs, any file): paste them.
        raise NotCaptured(f"pasted {name.replace('_', ' ')}")

    def provenance(self, key: str) -> Provenance:
        prov = live_provenance(key)
        cut = self._cut.get(key)
        return replace(prov, whole=False, cut_at=cut) if cut is not None else prov

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def nvml(self, query: str) -> Any:
        from stackaudit.host.nvml import live_query

        return live_query(query)

    def run(self, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
        limit = self.command_timeout if timeout is None else min(timeout, self.command_timeout)
        result = run_argv(argv, limit)
        if result.truncated:
            self._cut[command_key(result.argv)] = MAX_OUTPUT_BYTES
        return result


def run_argv(argv: Sequence[str], timeout: float) -> CommandResult:
    """The one way stackaudit runs a program (live reads, `fix --apply`): an argv list and no shell, stdin
    closed, the C locale, its own session; each output capped at MAX_OUTPUT_BYTES; past `timeout` or
    the cap its process group is killed (SIGKILL). Not found: 127; not executable: 126; timed out: 124."""
    args = tuple(argv)
    start = time.monotonic()
    env = dict(os.environ, **_COMMAND_ENV_OVERRIDES)
    try:
        proc = subprocess.Popen(
            list(args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
    except FileNotFoundError:
        return CommandResult(args, 127, "", f"{args[0]}: command not found", 0.0)
    except PermissionError as exc:
        return CommandResult(args, 126, "", f"{args[0]}: {exc.strerror}", 0.0)
    out, err, timed_out, truncated = _collect_bounded(proc, timeout, MAX_OUTPUT_BYTES)
    duration = time.monotonic() - start
    if timed_out:
        return CommandResult(args, 124, _decode(out), f"timed out after {timeout:g} s", duration,
                             timed_out=True, truncated=truncated)
    return CommandResult(args, proc.returncode if proc.returncode is not None else 1, _decode(out),
                         _decode(err), duration, truncated=truncated)


def _collect_bounded(proc: subprocess.Popen[bytes], timeout: float, cap: int) -> tuple[bytes, bytes, bool, bool]:
    """Read stdout and stderr as they come, at most `cap` bytes each: a command that floods its output is
    cut (and its process group killed) at the cap, never buffered whole. (out, err, timed_out, truncated)."""
    assert proc.stdout is not None and proc.stderr is not None
    buffers: dict[int, list[bytes]] = {proc.stdout.fileno(): [], proc.stderr.fileno(): []}
    sizes = dict.fromkeys(buffers, 0)
    deadline = time.monotonic() + timeout
    timed_out = truncated = False
    with selectors.DefaultSelector() as sel:
        for stream in (proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ)
        open_fds = set(buffers)
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                fd = int(key.fd)
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(fd)
                    open_fds.discard(fd)
                    continue
                room = cap - sizes[fd]
                buffers[fd].append(chunk[:room])
                sizes[fd] += min(len(chunk), room)
                if len(chunk) > room:
                    truncated = True
            if truncated:
                break
    if timed_out or truncated:
        _kill_group(proc)
    try:
        proc.wait(timeout=max(0.1, deadline - time.monotonic()) if not (timed_out or truncated) else 5)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
        timed_out = True
    out, err = (b"".join(buffers[stream.fileno()]) for stream in (proc.stdout, proc.stderr))
    proc.stdout.close()
    proc.stderr.close()
    return out, err, timed_out, truncated


def _with_path(exc: OSError, path: str) -> OSError:
    """The same error (same class and errno) naming the path asked for, not the component that failed."""
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror or os.strerror(exc.errno), path)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


def _decode(data: bytes | None) -> str:
    if not data:
        return ""
    return data[:MAX_OUTPUT_BYTES].decode("utf-8", errors="replace")
