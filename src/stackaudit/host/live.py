"""LiveHost: the real machine, optionally with its filesystem mounted under another root."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    MAX_OUTPUT_BYTES,
    CommandResult,
    HostMeta,
    NotCaptured,
    live_provenance,
)
from stackaudit.host.source import Provenance

# Commands run in a predictable locale, so parsers see the English output they were written for.
_COMMAND_ENV_OVERRIDES = {"LC_ALL": "C", "LANG": "C"}


class LiveHost:
    """Reads files below `root` (`/` normally, `/host` for a node agent) and runs commands here."""

    def __init__(self, root: str = "/", command_timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> None:
        self.root = os.path.abspath(root)
        self.command_timeout = command_timeout
        self.meta = HostMeta(
            hostname=self._hostname(),
            uid=os.getuid(),
            source="live",
            path=self.root,
        )

    def _hostname(self) -> str:
        if self.root != "/":
            try:
                with open(self._path("/etc/hostname"), encoding="utf-8", errors="replace") as fh:
                    name = fh.read().strip()
                if name:
                    return name
            except OSError:
                pass
        return socket.gethostname()

    def _path(self, path: str) -> str:
        if self.root == "/":
            return path
        return os.path.join(self.root, path.lstrip("/"))

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        # O_NONBLOCK: a FIFO or a device that never answers must not hang the collection.
        fd = os.open(self._path(path), os.O_RDONLY | os.O_NONBLOCK)
        try:
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
        finally:
            os.close(fd)

    def list_dir(self, path: str) -> list[str]:
        return sorted(os.listdir(self._path(path)))

    def readlink(self, path: str) -> str:
        return os.readlink(self._path(path))

    def doc(self, name: str) -> str:
        # Engine and NCCL logs have no fixed place on a host (journald, docker logs, any file): paste them.
        raise NotCaptured(f"pasted {name.replace('_', ' ')}")

    def provenance(self, key: str) -> Provenance:
        return live_provenance(key)

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def nvml(self, query: str) -> Any:
        from stackaudit.host.nvml import live_query

        return live_query(query)

    def run(self, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
        limit = self.command_timeout if timeout is None else min(timeout, self.command_timeout)
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
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out, err = proc.communicate()
            return CommandResult(
                args,
                124,
                _decode(out),
                f"timed out after {limit:g} s",
                time.monotonic() - start,
                timed_out=True,
            )
        return CommandResult(args, proc.returncode, _decode(out), _decode(err), time.monotonic() - start)


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
