"""Resource limits and security state of the audit's own process (/proc/self/limits, status).

`parse_limits` reads any /proc/<pid>/limits (the runtime checks reuse it for the engine's
processes). `ulimit -a` pasted from a shell is imported as /proc/self/limits with the hard
column "unknown" (the shell shows soft limits only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.host.base import read_optional

# /proc/<pid>/limits row names, in the kernel's order, with their units (fs/proc/base.c lnames[]).
LIMIT_ROWS: tuple[tuple[str, str], ...] = (
    ("Max cpu time", "seconds"),
    ("Max file size", "bytes"),
    ("Max data size", "bytes"),
    ("Max stack size", "bytes"),
    ("Max core file size", "bytes"),
    ("Max resident set", "bytes"),
    ("Max processes", "processes"),
    ("Max open files", "files"),
    ("Max locked memory", "bytes"),
    ("Max address space", "bytes"),
    ("Max file locks", "locks"),
    ("Max pending signals", "signals"),
    ("Max msgqueue size", "bytes"),
    ("Max nice priority", ""),
    ("Max realtime priority", ""),
    ("Max realtime timeout", "us"),
)
MEMLOCK = "Max locked memory"
NOFILE = "Max open files"
STACK = "Max stack size"
UNKNOWN = "unknown"  # hard limit not shown by the source (pasted `ulimit -a`)
CAP_SYS_NICE = 23
CAP_SYS_ADMIN = 21


@dataclass(frozen=True)
class ResourceLimits:
    # row name -> (soft, hard), as the kernel prints them ("unlimited" kept; "unknown" where not shown)
    values: dict[str, tuple[str, str]]
    source: str = "/proc/self/limits"

    def soft(self, name: str) -> int | None:
        """The soft limit as a number; None for unlimited or unknown (see is_unlimited)."""
        return _number(self.values.get(name, (UNKNOWN, UNKNOWN))[0])

    def hard(self, name: str) -> int | None:
        return _number(self.values.get(name, (UNKNOWN, UNKNOWN))[1])

    def is_unlimited(self, name: str, which: int = 0) -> bool:
        return self.values.get(name, (UNKNOWN, UNKNOWN))[which] == "unlimited"

    def known(self, name: str, which: int = 0) -> bool:
        entry = self.values.get(name)
        return entry is not None and entry[which] != UNKNOWN

    def line(self, name: str) -> str:
        soft, hard = self.values.get(name, (UNKNOWN, UNKNOWN))
        return f"{name}: soft {soft}, hard {hard}"


def _number(value: str) -> int | None:
    return int(value) if value.isdecimal() else None


def parse_limits(text: str) -> ResourceLimits:
    """Parse /proc/<pid>/limits (`Limit  Soft Limit  Hard Limit  Units` table)."""
    values: dict[str, tuple[str, str]] = {}
    names = sorted((n for n, _ in LIMIT_ROWS), key=len, reverse=True)
    for line in text.splitlines():
        stripped = line.strip()
        name = next((n for n in names if stripped.startswith(n + " ")), None)
        if name is None:
            continue
        parts = stripped[len(name):].split()
        if len(parts) < 2 or not all(re.fullmatch(r"\d+|unlimited|unknown", p) for p in parts[:2]):
            raise ParseError(f"bad limits row: {stripped[:80]!r}")
        values[name] = (parts[0], parts[1])
    if not values:
        raise ParseError("not a /proc/<pid>/limits table")
    return ResourceLimits(values)


def format_limits(values: dict[str, tuple[str, str]]) -> str:
    """Write a /proc/<pid>/limits table (used by the `ulimit -a` importer and tests)."""
    lines = [f"{'Limit':<26}{'Soft Limit':<21}{'Hard Limit':<21}{'Units':<10}"]
    for name, units in LIMIT_ROWS:
        if name in values:
            soft, hard = values[name]
            lines.append(f"{name:<26}{soft:<21}{hard:<21}{units:<10}".rstrip())
    return "\n".join(lines) + "\n"


@provider("self_limits", ResourceLimits)
def self_limits(ctx: FactContext) -> ResourceLimits:
    """The audit process's own resource limits (/proc/self/limits)."""
    text = read_optional(ctx.host, "/proc/self/limits")
    if text is None:
        raise FactUnavailable("/proc/self/limits is missing")
    try:
        return parse_limits(text)
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc


@dataclass(frozen=True)
class ProcessSecurity:
    """Seccomp mode and effective capabilities of a process (/proc/<pid>/status)."""

    seccomp: int | None  # 0 off, 1 strict, 2 filter; None: not shown
    cap_eff: int | None
    cap_bnd: int | None = None
    no_new_privs: bool | None = None
    uid: int | None = None

    def has_cap(self, bit: int) -> bool | None:
        return None if self.cap_eff is None else bool(self.cap_eff >> bit & 1)


def parse_status_security(text: str) -> ProcessSecurity:
    """Seccomp, CapEff, CapBnd, NoNewPrivs and Uid from /proc/<pid>/status."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    if "CapEff" not in fields and "Seccomp" not in fields:
        raise ParseError("not a /proc/<pid>/status file")

    def hexval(name: str) -> int | None:
        value = fields.get(name, "")
        return int(value, 16) if re.fullmatch(r"[0-9a-fA-F]{1,16}", value) else None

    seccomp = fields.get("Seccomp", "")
    nnp = fields.get("NoNewPrivs", "")
    uid = fields.get("Uid", "").split()
    return ProcessSecurity(
        seccomp=int(seccomp) if seccomp.isdecimal() else None,
        cap_eff=hexval("CapEff"),
        cap_bnd=hexval("CapBnd"),
        no_new_privs=(nnp == "1") if nnp.isdecimal() else None,
        uid=int(uid[1]) if len(uid) > 1 and uid[1].isdecimal() else None,
    )


@provider("process_security", ProcessSecurity)
def process_security(ctx: FactContext) -> ProcessSecurity:
    """The audit process's seccomp mode and capabilities (/proc/self/status)."""
    text = read_optional(ctx.host, "/proc/self/status")
    if text is None:
        raise FactUnavailable("/proc/self/status is missing")
    try:
        return parse_status_security(text)
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc
