"""`sysctl -a` (whole or grepped: `key = value` lines) -> /proc/sys files.

A whole `sysctl -a` (hundreds of keys from kernel, vm, fs and net) also says which keys do
not exist: the sysctl keys the checks read that it lacks are recorded as absent (ENOENT), and
those it reports "permission denied" for as unreadable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from stackaudit.facts.system import SYSCTL_KEYS
from stackaudit.host.memory import HostRecord
from stackaudit.importers.registry import Found, importer, record_file

_TOP = ("abi", "crypto", "debug", "dev", "fs", "kernel", "net", "sunrpc", "user", "vm")
_LINE = re.compile(rf"^\s*((?:{'|'.join(_TOP)})\.[A-Za-z0-9_.\-/:@+]+) = (.*)$")
_CHATTER = re.compile(r"^\s*sysctl: (?:permission denied on key|reading key|cannot stat)\s*['\"]?([\w.\-/]+)")
# Lines a whole `sysctl -a` has at least (a grep of it has far fewer).
WHOLE_MIN_LINES = 200


def sysctl_key_to_path(key: str) -> str:
    """`net.ipv4.conf.eth0/100.rp_filter` -> `/proc/sys/net/ipv4/conf/eth0.100/rp_filter`.

    sysctl shows path separators as dots and dots inside a name as slashes.
    """
    return "/proc/sys/" + "".join("/" if c == "." else "." if c == "/" else c for c in key)


def parse_sysctl_lines(lines: list[str]) -> tuple[dict[str, str], set[str]]:
    """(values by key, keys reported as unreadable) from `sysctl -a` lines; other lines ignored."""
    values: dict[str, str] = {}
    denied: set[str] = set()
    for line in lines:
        m = _LINE.match(line)
        if m:
            values.setdefault(m.group(1), m.group(2).rstrip())
            continue
        c = _CHATTER.match(line)
        if c:
            denied.add(c.group(1).strip("'\""))
    return values, denied


def _apply(record: HostRecord, values: dict[str, str], denied: set[str], whole: bool) -> None:
    for key, value in values.items():
        record_file(record, sysctl_key_to_path(key), value + "\n")
    for key in denied:
        record.errors["read"][sysctl_key_to_path(key)] = "EACCES"
    if whole:
        for key in SYSCTL_KEYS:
            path = sysctl_key_to_path(key)
            if key not in values and key not in denied and path not in record.files:
                record.errors["read"].setdefault(path, "ENOENT")


def _applier(values: dict[str, str], denied: set[str], whole: bool) -> Callable[[HostRecord], None]:
    def apply(record: HostRecord) -> None:
        _apply(record, values, denied, whole)

    return apply


@importer("sysctl", "`sysctl -a` output, whole or grepped (`key = value` lines)")
def sysctl(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        if not _LINE.match(lines[i]):
            i += 1
            continue
        start = i
        end = i
        j = i
        while j < len(lines):
            if _LINE.match(lines[j]) or _CHATTER.match(lines[j]):
                end = j + 1
            else:
                break
            j += 1
        block = lines[start:end]
        values, denied = parse_sysctl_lines(block)
        tops = {k.split(".", 1)[0] for k in values}
        whole = len(values) >= WHOLE_MIN_LINES and {"kernel", "vm", "fs"} <= tops
        yield Found("sysctl", start, end, _applier(values, denied, whole))
        i = max(end, i + 1)
