"""`ulimit -a` from bash, dash or zsh -> /proc/self/limits (soft limits; hard shown as unknown)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts.limits import UNKNOWN, format_limits
from stackaudit.host.memory import HostRecord
from stackaudit.importers.registry import Found, importer, record_file

# ulimit option letter -> /proc/<pid>/limits row
_ROWS = {
    "t": "Max cpu time", "f": "Max file size", "d": "Max data size", "s": "Max stack size",
    "c": "Max core file size", "m": "Max resident set", "u": "Max processes", "n": "Max open files",
    "l": "Max locked memory", "v": "Max address space", "x": "Max file locks", "i": "Max pending signals",
    "q": "Max msgqueue size", "e": "Max nice priority", "r": "Max realtime priority", "R": "Max realtime timeout",
}
# bash: `max locked memory       (kbytes, -l) 64`, `open files                      (-n) 1024`
_BASH = re.compile(r"^\s*(?P<name>[A-Za-z][\w ./-]*?)\s+\((?:(?P<unit>[^,()]+(?:\([^)]*\))?[^,()]*),\s*)?-(?P<flag>[A-Za-z])\)"
                   r"\s+(?P<value>unlimited|\d+)\s*$")
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
    unit = (unit or "").strip()
    if unit.startswith("kbytes"):
        return 1024
    if unit.startswith("blocks"):
        return 1024 if shell == "bash" else 512
    if unit.startswith("512 bytes"):
        return 512
    return 1


def _match(line: str) -> tuple[str, str, str, str] | None:
    """(flag, unit, value, shell) of one `ulimit -a` line."""
    for shell, rx in (("bash", _BASH), ("zsh", _ZSH)):
        m = rx.match(line)
        if m:
            return m.group("flag"), m.group("unit") or "", m.group("value"), shell
    m = _DASH.match(line)
    if m:
        return _DASH_NAMES.get(m.group("name"), ""), m.group("unit") or "", m.group("value"), "dash"
    return None


def _apply(entries: list[tuple[str, str, str, str]], rec: HostRecord) -> None:
    values: dict[str, tuple[str, str]] = {}
    for flag, unit, value, shell in entries:
        row = _ROWS.get(flag)
        if row is None:
            continue
        shown = value if value == "unlimited" else str(int(value) * _factor(unit, shell))
        values[row] = (shown, UNKNOWN)
    record_file(rec, "/proc/self/limits", format_limits(values))


@importer("ulimit -a", "`ulimit -a` (bash, dash, zsh) as the shell's /proc/self/limits")
def ulimit(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        first = _match(lines[i])
        if first is None:
            i += 1
            continue
        entries = [first]
        j = i + 1
        while j < len(lines) and (m := _match(lines[j])) is not None:
            entries.append(m)
            j += 1
        known = [e for e in entries if e[0] in _ROWS]
        if len(known) >= 3:
            yield Found("ulimit -a", i, j, partial(_apply, known))
        i = j
