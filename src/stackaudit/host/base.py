"""Host protocol: files, directory listings, links and commands, nothing else.

Missing is normal: a file that does not exist raises FileNotFoundError, one we may not read
raises PermissionError, and a source that never recorded a path (a snapshot from another tool
version, a pasted bug report) raises NotCaptured, so that the check says "unknown" rather than
"absent".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from stackaudit.host.source import Provenance, title_of_key

# Bound what one read or one command may bring back, so a runaway file or log cannot eat memory.
# (docs/security.md: each bound and the attack it stops.)
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_OUTPUT_BYTES = 8 * 1024 * 1024
DEFAULT_COMMAND_TIMEOUT_S = 10.0


class NotCaptured(LookupError):
    """The source (snapshot or pasted text) does not say anything about this path or command."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


@dataclass(frozen=True)
class CommandResult:
    """What one command did. returncode 127: not installed; 124: timed out."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str = ""
    duration_s: float = 0.0
    timed_out: bool = False
    # The output reached MAX_OUTPUT_BYTES and was cut there (the command was stopped).
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def not_found(self) -> bool:
        return self.returncode == 127

    def to_json(self) -> dict[str, Any]:
        return {
            "argv": list(self.argv),
            "returncode": self.returncode,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "duration_s": round(self.duration_s, 4),
            "timed_out": self.timed_out,
            **({"truncated": True} if self.truncated else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CommandResult:
        return cls(
            argv=tuple(str(a) for a in data["argv"]),
            returncode=int(data["returncode"]),
            stdout=str(data.get("stdout", "")),
            stderr=str(data.get("stderr", "")),
            duration_s=float(data.get("duration_s", 0.0)),
            timed_out=bool(data.get("timed_out", False)),
            truncated=bool(data.get("truncated", False)),
        )


@dataclass(frozen=True)
class HostMeta:
    """Who and where the audit ran: the snapshot's meta.json."""

    hostname: str = ""
    uid: int = -1
    source: str = "live"  # live | snapshot | pasted
    path: str = ""
    captured_at: str = ""
    tool_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class Host(Protocol):
    """Everything a fact provider may ask of a machine."""

    meta: HostMeta

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        """Content of an absolute path. Raises FileNotFoundError, PermissionError, OSError, NotCaptured."""
        ...

    def list_dir(self, path: str) -> list[str]:
        """Sorted entry names. Raises FileNotFoundError, PermissionError, NotADirectoryError, NotCaptured."""
        ...

    def readlink(self, path: str) -> str:
        """Target of a symbolic link, as stored (often relative). Raises OSError, NotCaptured."""
        ...

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        """Run a command (argv list, no shell, bounded time and output). Raises NotCaptured only."""
        ...

    def which(self, name: str) -> str | None:
        """Path of an executable on PATH, or None. Raises NotCaptured."""
        ...

    def nvml(self, query: str) -> Any:
        """Answer of an NVML query (stackaudit.host.nvml). Raises NvmlError or NotCaptured."""
        ...

    def doc(self, name: str) -> str:
        """A document with no place on a host (an engine or NCCL log) by source name. Raises NotCaptured."""
        ...

    def provenance(self, key: str) -> Provenance:
        """Where the text recorded under a source key (`cmd:lscpu`, `fs:/proc/cmdline`) came from."""
        ...


class HostWrapper:
    """Passes every call to `inner`; wrappers (redaction, recording, access logs) override what they need."""

    def __init__(self, inner: Host) -> None:
        self.inner = inner
        self.meta: HostMeta = inner.meta

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        return self.inner.read_bytes(path, limit)

    def list_dir(self, path: str) -> list[str]:
        return self.inner.list_dir(path)

    def readlink(self, path: str) -> str:
        return self.inner.readlink(path)

    def which(self, name: str) -> str | None:
        return self.inner.which(name)

    def nvml(self, query: str) -> Any:
        return self.inner.nvml(query)

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        return self.inner.run(argv, timeout)

    def doc(self, name: str) -> str:
        return self.inner.doc(name)

    def provenance(self, key: str) -> Provenance:
        return self.inner.provenance(key)


def live_provenance(key: str, origin: str = "live") -> Provenance:
    """A live read (or a whole snapshot member) of a source key."""
    return Provenance(title_of_key(key), origin, True)


def read_text(host: Host, path: str, limit: int = MAX_FILE_BYTES) -> str:
    """Read a file as text; undecodable bytes are replaced, never an exception."""
    return host.read_bytes(path, limit).decode("utf-8", errors="replace")


def read_optional(host: Host, path: str) -> str | None:
    """Text of a file, or None when it does not exist (NotCaptured and PermissionError propagate)."""
    try:
        return read_text(host, path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def read_or_none(host: Host, path: str) -> str | None:
    """Text of a file, or None when it is absent, unreadable, a directory or not in the source.

    For best-effort reads whose absence the caller treats like "not set"; a fact that must tell
    "unknown" from "absent" uses read_optional and handles PermissionError / NotCaptured itself.
    """
    try:
        return read_optional(host, path)
    except (OSError, NotCaptured):
        return None


class Reads:
    """read_optional, with None for a file unreadable or not in the source, that remembers whether any read
    answered (`answered`). A file the source shows, present or absent, answers."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.answered = False

    def __call__(self, path: str) -> str | None:
        try:
            text = read_optional(self.host, path)
        except (PermissionError, NotCaptured):
            return None
        self.answered = True
        return text


def list_or_none(host: Host, path: str) -> list[str] | None:
    """Entry names of a directory, or None when it is absent, unreadable, not a directory or not in the source.

    The directory's counterpart of read_or_none, for best-effort listings."""
    try:
        return host.list_dir(path)
    except (OSError, NotCaptured):
        return None
