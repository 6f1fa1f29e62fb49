"""`sysctl -a` (whole or grepped: `key = value` lines), recorded verbatim as `sysctl -a`'s output; a tunable shown
with `cat /proc/sys/...` and its value, recorded as the line `sysctl -a` prints for it; THP's two mode files shown with
`cat`, recorded as the files.

The `sysctls` fact parses it (facts/system.py `sysctls_from_sysctl_a`): a whole output (hundreds of
keys from kernel, vm and fs) also says which keys do not exist; a grep says nothing of the keys it hid.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.kernel_knobs import THP_DIR
from stackaudit.facts.sources import SYSCTL_A
from stackaudit.facts.system import (
    SYSCTL_CHATTER,
    SYSCTL_KEYS,
    SYSCTL_LINE,
    parse_sysctl_lines,
    sysctl_a_is_whole,
)
from stackaudit.importers._scan import Candidates, Scan, candidate_lines, run_end, strip_prompt
from stackaudit.importers.registry import Found, command_output_appended, file_content, importer

# `cat` of one kernel tunable under /proc/sys at a prompt or in a fence, its value on the line under it (corpus 2475:
# `cat /proc/sys/kernel/numa_balancing` then `1`): recorded as the `key = value` line `sysctl -a` prints for it, after
# any other. Only the keys the checks read (SYSCTL_KEYS): a path outside them is not taken.
_CAT_PROC_SYS = re.compile(r"^(?:sudo\s+)?cat\s+/proc/sys/([a-z]+(?:/[\w.-]{1,64}){1,3})\s*$")
# A tunable's value: a number or a word, a few of them at most (`4096 87380 6291456`).
_TUNABLE_VALUE = re.compile(r"^[\w.+-]{1,40}(?:[ \t]+[\w.+-]{1,40}){0,7}$")


def cat_value(lines: list[str], i: int) -> str | None:
    """The value a shown `cat` prints on the line under line i, stripped of a fence's backticks; None where that
    line is no tunable's value."""
    if i + 1 >= len(lines):
        return None
    value = lines[i + 1].strip().strip("`").strip()
    return value if _TUNABLE_VALUE.match(value) else None


@importer("sysctl", "`sysctl -a` output, whole or grepped (`key = value` lines), or a tunable under /proc/sys shown "
          "with `cat` and its value", needles=(" = ", "/proc/sys/"), per_line=True)
def sysctl(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not SYSCTL_LINE.match(lines[i]):
            if (found := _proc_sys_cat(lines, i)) is not None:
                yield found
            continue
        end = run_end(lines, i, lambda line: SYSCTL_LINE.match(line) or SYSCTL_CHATTER.match(line))
        block = lines[i:end]
        values, _ = parse_sysctl_lines(block)
        yield Found("sysctl", i, end, command_output_appended(SYSCTL_A.argv, "\n".join(block) + "\n"), whole=sysctl_a_is_whole(values))
        scan.skip(end)


def _proc_sys_cat(lines: list[str], i: int) -> Found | None:
    if "/proc/sys/" not in lines[i]:
        return None
    m = _CAT_PROC_SYS.match(strip_prompt(lines[i].strip().strip("`")))
    if not m or (key := m.group(1).replace("/", ".")) not in SYSCTL_KEYS:
        return None
    value = cat_value(lines, i)
    return None if value is None else Found("sysctl", i, i + 2, command_output_appended(SYSCTL_A.argv, f"{key} = {value}\n"))


# THP's two mode files shown with `cat`, the modes on the line under each, the active one bracketed (corpus 2476:
# `cat /sys/kernel/mm/transparent_hugepage/defrag` then `[always] defer defer+madvise madvise never`): recorded as the
# files themselves, which the thp fact reads. No other path under /sys is taken.
_CAT_THP = re.compile(rf"^(?:sudo\s+)?cat\s+{re.escape(THP_DIR)}/(enabled|defrag)\s*$")
_THP_MODES = re.compile(r"^(?:\[[a-z+]{1,16}\]|[a-z+]{1,16})(?:[ \t]+(?:\[[a-z+]{1,16}\]|[a-z+]{1,16})){0,7}$")


@importer("thp mode file", "THP's mode files shown with `cat` (/sys/kernel/mm/transparent_hugepage/{enabled,defrag})",
          needles=("/transparent_hugepage/",), per_line=True)
def thp_mode_file(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        m = _CAT_THP.match(strip_prompt(lines[i].strip().strip("`")))
        if not m or i + 1 >= len(lines):
            continue
        value = lines[i + 1].strip().strip("`").strip()
        if _THP_MODES.match(value) and value.count("[") == 1:
            yield Found("thp mode file", i, i + 2, file_content(f"{THP_DIR}/{m.group(1)}", value + "\n"), whole=True)
