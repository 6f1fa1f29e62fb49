"""Sources: the one key shared by live reads, snapshots, pastes and tests; and where a text came from.

A `Source` names one thing a host can show: a command (`lscpu`), a file or tree (`/proc/cmdline`,
`/sys/devices/system/node`), an NVML query, or a document with no place on a host (an engine or
NCCL log). Providers and importers name sources, never argv or path literals of their own, so that a
live read, a snapshot member, a pasted output and a test fixture meet at the same key.

A `Provenance` says, for one source key, where its text came from and whether it is **whole** (a live
read, a full command output, a paste with its explicit start and end markers) or an **excerpt** (a
grep, a `head`, a cut paste). Only a whole source can prove that something is absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ORIGINS = ("live", "snapshot", "pasted", "fake")


@dataclass(frozen=True)
class Source:
    """One thing a host can show: a command (argv), a file or tree (path), NVML, or a document."""

    name: str
    title: str
    argv: tuple[str, ...] = ()
    path: str = ""
    doc: bool = False
    nvml: bool = False
    # What to paste or run to supply this source, cheapest first ("paste `lscpu`").
    hint: str = ""
    # A command's own time limit in seconds; 0: the host's default.
    timeout_s: float = 0.0

    @property
    def key(self) -> str:
        """The key a snapshot and a paste record this source under (`cmd:lscpu`, `fs:/proc/cmdline`)."""
        if self.argv:
            return command_key(self.argv)
        if self.doc:
            return doc_key(self.name)
        if self.nvml:
            return "nvml:"
        return file_key(self.path)


def command_key(argv: tuple[str, ...] | list[str]) -> str:
    return "cmd:" + " ".join(argv)


def file_key(path: str) -> str:
    return "fs:" + path


def doc_key(name: str) -> str:
    return "doc:" + name


@dataclass(frozen=True)
class Provenance:
    """Where one source's text came from: origin, whole or excerpt, and the pasted file's lines."""

    source: str  # the source's title (`lscpu`, /sys/devices/system/node, pasted NCCL log)
    origin: str = "live"  # live | snapshot | pasted | fake
    whole: bool = True
    file: str = ""  # the pasted file's name (never a path of the machine that ran the audit)
    lines: tuple[int, int] | None = None  # 1-based, inclusive
    # The read or command output was cut at this many bytes (its cap), so it is an excerpt.
    cut_at: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "origin": self.origin, "whole": self.whole,
                               "file": self.file or None, "lines": list(self.lines) if self.lines else None}
        if self.cut_at is not None:
            out["cut_at"] = self.cut_at
        return out

    @classmethod
    def from_json(cls, data: Any) -> Provenance:
        if not isinstance(data, dict):
            raise ValueError("a provenance entry is not an object")
        lines = data.get("lines")
        span: tuple[int, int] | None = None
        if isinstance(lines, list) and len(lines) == 2 and all(isinstance(x, int) for x in lines):
            span = (lines[0], lines[1])
        origin = str(data.get("origin", "snapshot"))
        cut_at = data.get("cut_at")
        return cls(str(data.get("source", "")), origin if origin in ORIGINS else "snapshot",
                   bool(data.get("whole", False)), str(data.get("file") or ""), span,
                   cut_at if isinstance(cut_at, int) and not isinstance(cut_at, bool) and cut_at > 0 else None)

    def cut_text(self) -> str:
        """`lspci -vvv was cut at 8 MiB`, or "" when it was not cut."""
        if self.cut_at is None:
            return ""
        size = f"{self.cut_at / (1 << 20):g} MiB" if self.cut_at >= 1 << 20 else f"{self.cut_at} bytes"
        return f"{self.source.strip('`')} was cut at {size}"

    def describe(self) -> str:
        """`pasted lscpu (report.txt lines 12-38, excerpt)`, `live /proc/cmdline`."""
        where = []
        if self.file:
            where.append(self.file)
        if self.lines:
            a, b = self.lines
            where.append(f"line {a}" if a == b else f"lines {a}–{b}")
        if self.cut_at is not None:
            where.append(self.cut_text().rpartition(" was ")[2])
        elif not self.whole:
            where.append("excerpt")
        tail = f" ({', '.join(where)})" if where else ""
        return f"{self.origin} {self.source}{tail}"


def title_of_key(key: str) -> str:
    """A readable title for a raw source key: `cmd:numactl -H` -> `numactl -H`, a sysfs file -> its tree."""
    kind, _, rest = key.partition(":")
    if kind == "cmd":
        return f"`{rest}`"
    if kind == "doc":
        return f"pasted {rest.replace('_', ' ')}"
    if kind == "nvml":
        return "NVML"
    return tree_of(rest)


def tree_of(path: str) -> str:
    """The tree a file belongs to, for provenance: /sys/devices/system/node/node0/cpulist ->
    /sys/devices/system/node; /proc/1234/status -> /proc/<pid>; other files are themselves."""
    parts = path.split("/")
    if path.startswith("/proc/") and len(parts) > 2 and parts[2].isdecimal():
        return "/proc/<pid>"
    if path.startswith("/sys/devices/system/") and len(parts) > 4:
        return "/".join(parts[:5])
    if path.startswith(("/sys/bus/pci/devices/", "/sys/devices/pci")):
        return "/sys/bus/pci/devices"
    if path.startswith("/sys/class/") and len(parts) > 3:
        return "/".join(parts[:4])
    if path.startswith("/sys/module/") and len(parts) > 3:
        return "/".join(parts[:4])
    if path.startswith("/sys/fs/cgroup"):
        return "/sys/fs/cgroup"
    if path.startswith("/proc/sys/"):
        return "/proc/sys"
    return path
