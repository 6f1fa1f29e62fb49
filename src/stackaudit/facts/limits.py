"""Resource limits and security state of the audit's own process (/proc/self/limits, status).

`parse_limits` reads any /proc/<pid>/limits (the runtime checks reuse it for the engine's
processes). Where /proc/self/limits is not in the source, a pasted `ulimit -a` (bash, dash or zsh)
answers `self_limits` with the hard column "unknown": the shell shows soft limits only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError, key_value_lines
from stackaudit.facts.registry import fact, first_of, parser
from stackaudit.facts.sources import PROC_SELF_LIMITS, PROC_SELF_STATUS, ULIMIT_A

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


@dataclass(frozen=True)
class ResourceLimits:
    # row name -> (soft, hard), as the kernel prints them ("unlimited" kept; "unknown" where not shown)
    values: dict[str, tuple[str, str]]

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


fact("self_limits", ResourceLimits, first_of, hint=ULIMIT_A.hint)


@parser(PROC_SELF_LIMITS, feeds="self_limits", kind=ResourceLimits, rank=10)
def parse_limits(text: str) -> ResourceLimits:
    """Resource limits of a process (/proc/<pid>/limits; the audit's own from /proc/self/limits).

    Input (the kernel's table)::

        Limit                     Soft Limit           Hard Limit           Units
        Max open files            1024                 4096                 files
        Max locked memory         65536                65536                bytes
    """
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
    """Write a /proc/<pid>/limits table (for tests: a fake host's /proc/<pid>/limits)."""
    lines = [f"{'Limit':<26}{'Soft Limit':<21}{'Hard Limit':<21}{'Units':<10}"]
    for name, units in LIMIT_ROWS:
        if name in values:
            soft, hard = values[name]
            lines.append(f"{name:<26}{soft:<21}{hard:<21}{units:<10}".rstrip())
    return "\n".join(lines) + "\n"


# --- pasted `ulimit -a` ------------------------------------------------------------------------------

# ulimit option letter -> /proc/<pid>/limits row (bash's and zsh's letters; dash's names map to them)
ULIMIT_ROWS = {
    "t": "Max cpu time", "f": "Max file size", "d": "Max data size", "s": "Max stack size",
    "c": "Max core file size", "m": "Max resident set", "u": "Max processes", "n": "Max open files",
    "l": "Max locked memory", "v": "Max address space", "x": "Max file locks", "i": "Max pending signals",
    "q": "Max msgqueue size", "e": "Max nice priority", "r": "Max realtime priority", "R": "Max realtime timeout",
}
# bash: `max locked memory       (kbytes, -l) 64`, `open files                      (-n) 1024`; the `(-n)`
# marker is distinctive enough to allow a note typed after the value (`1024     <<< This is too small`).
_BASH = re.compile(r"^\s*(?P<name>[A-Za-z][\w ./-]*?)\s+\((?:(?P<unit>[^,()]+(?:\([^)]*\))?[^,()]*),\s*)?-(?P<flag>[A-Za-z])\)"
                   r"\s+(?P<value>unlimited|\d+)(?:\s+(?:<<<|<--|#|//).*)?\s*$")
# zsh: `-l: locked-in-memory size (kbytes) 64`, `-n: file descriptors          1024`
_ZSH = re.compile(r"^\s*-(?P<flag>[A-Za-z])(?:\s+\d+)?:\s+(?P<name>[\w ./-]+?)\s*(?:\((?P<unit>[^)]*)\))?\s+"
                  r"(?P<value>unlimited|\d+)\s*$")
# dash: `locked memory(kbytes) 64`, `nofiles              1024`
_DASH_NAMES = {"time": "t", "file": "f", "data": "d", "stack": "s", "coredump": "c", "memory": "m",
               "locked memory": "l", "process": "u", "nofiles": "n", "vmemory": "v", "locks": "x",
               "rtprio": "r", "nice": "e", "sigpending": "i", "msgqueue": "q", "rttime": "R"}
_DASH = re.compile(r"^\s*(?P<name>time|file|data|stack|coredump|memory|locked memory|process|nofiles|vmemory|"
                   r"locks|rtprio|nice|sigpending|msgqueue|rttime|sbsize|swap|pipe)\s*(?:\((?P<unit>[^)]*)\))?\s+"
                   r"(?P<value>unlimited|\d+)\s*$")


def _factor(unit: str, shell: str) -> int:
    """Bytes per unit a shell prints a limit in (bash's `blocks` are 1024 bytes, dash's 512)."""
    unit = (unit or "").strip()
    if unit.startswith("kbytes"):
        return 1024
    if unit.startswith("blocks"):
        return 1024 if shell == "bash" else 512
    if unit.startswith("512 bytes"):
        return 512
    return 1


def ulimit_line(line: str) -> tuple[str, str, str, str] | None:
    """(option letter, unit, value, shell) of one `ulimit -a` line; None for any other line."""
    for shell, rx in (("bash", _BASH), ("zsh", _ZSH)):
        m = rx.match(line)
        if m:
            return m.group("flag"), m.group("unit") or "", m.group("value"), shell
    m = _DASH.match(line)
    if m:
        return _DASH_NAMES.get(m.group("name"), ""), m.group("unit") or "", m.group("value"), "dash"
    return None


@parser(ULIMIT_A, feeds="self_limits", kind=ResourceLimits, rank=20)
def limits_from_ulimit_a(text: str) -> ResourceLimits:
    """Soft resource limits of the shell it ran in (`ulimit -a`: bash, dash or zsh; hard limits unknown).

    Input (tests/data/captures/78, three of its lines)::

        core file size              (blocks, -c) 0
        max locked memory           (kbytes, -l) 264154548
        open files                          (-n) 1024
    """
    values: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        entry = ulimit_line(line)
        if entry is None or entry[0] not in ULIMIT_ROWS:
            continue
        flag, unit, value, shell = entry
        soft = value if value == "unlimited" else str(int(value) * _factor(unit, shell))
        values[ULIMIT_ROWS[flag]] = (soft, UNKNOWN)
    if not values:
        raise ParseError("no limit line in the `ulimit -a` output")
    return ResourceLimits(values)


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


@parser(PROC_SELF_STATUS, feeds="process_security", kind=ProcessSecurity, rank=0)
def parse_status_security(text: str) -> ProcessSecurity:
    """Seccomp, CapEff, CapBnd, NoNewPrivs and Uid of a process (/proc/<pid>/status; the audit's own).

    Input (a container's python3, tests/test_ctr_checks.py)::

        Uid:    0       0       0       0
        CapEff: 00000000a80425fb
        NoNewPrivs:     0
        Seccomp:        2
    """
    fields = key_value_lines(text)
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
