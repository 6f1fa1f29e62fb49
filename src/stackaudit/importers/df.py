"""`df`, `df -h`, `df -k`, `df -P`, `df -B1`, `df -T` pasted into a report.

Recorded in the form the shm fact runs live: `df -k -P /dev/shm` (header and the /dev/shm row),
plus the whole table as `df -k -P`. Human sizes (`64M`, `1.5T`) are powers of 1024, as `df -h`
prints them (`df -H`, powers of 1000, is recognised by its header only when the caller says so).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts.shm import DF_ARGV, SHM
from stackaudit.host.memory import HostRecord
from stackaudit.importers.registry import Found, importer, record_command

_HEADER = re.compile(
    r"^\s*Filesystem\s+(?:Type\s+)?(?P<unit>1K-blocks|1024-blocks|Size|1B-blocks|\d+[KMG]?-blocks|512-blocks)\s+"
    r"Used\s+Avail(?:able)?\s+(?:Use%|Capacity)\s+Mounted\s+on\s*$"
)
_SIZE = re.compile(r"^(\d+(?:[.,]\d+)?)([KMGTPE]?)i?B?$")
_FACTORS = {"": 1, "K": 1, "M": 1024, "G": 1024**2, "T": 1024**3, "P": 1024**4, "E": 1024**5}


def _kib(value: str, unit: str) -> int | None:
    """A df column value in KiB, given the header's unit column."""
    if unit == "Size":
        m = _SIZE.match(value)
        if not m:
            return None
        number = float(m.group(1).replace(",", "."))
        return round(number * _FACTORS[m.group(2)])
    if not value.isdecimal():
        return None
    n = int(value)
    if unit == "1B-blocks":
        return n // 1024
    if unit == "512-blocks":
        return n // 2
    m = re.match(r"(\d+)([KMG]?)-blocks", unit)
    if m and unit not in ("1K-blocks", "1024-blocks"):
        block = int(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2)]
        return n * block // 1024
    return n


def _rows(lines: list[str], start: int, unit: str, typed: bool) -> tuple[list[tuple[str, int, int, int, str]], int]:
    """Rows after a header at `start` - 1: (filesystem, size, used, avail KiB, mount point), end index."""
    rows = []
    i = start
    pending = ""
    ncols = 7 if typed else 6
    while i < len(lines):
        parts = (pending + " " + lines[i]).split() if pending else lines[i].split()
        if len(parts) == 1 and not pending and i + 1 < len(lines):
            pending = parts[0]  # a long filesystem name wrapped onto its own line
            i += 1
            continue
        if len(parts) < ncols or not parts[ncols - 2].rstrip("%").replace("-", "").isdecimal():
            break
        pending = ""
        cols = parts[2:] if typed else parts[1:]
        size, used, avail = (_kib(cols[0], unit), _kib(cols[1], unit), _kib(cols[2], unit))
        if size is None or used is None or avail is None:
            break
        rows.append((parts[0], size, used, avail, " ".join(parts[ncols - 1:])))
        i += 1
    return rows, (i - 1 if pending else i)


def _table(rows: list[tuple[str, int, int, int, str]]) -> str:
    out = ["Filesystem     1024-blocks      Used Available Capacity Mounted on"]
    for fs, size, used, avail, mount in rows:
        pct = f"{(used * 100 + (used + avail) - 1) // (used + avail) if used + avail else 0}%"
        out.append(f"{fs} {size} {used} {avail} {pct} {mount}")
    return "\n".join(out) + "\n"


def _apply(rows: list[tuple[str, int, int, int, str]], rec: HostRecord) -> None:
    record_command(rec, ("df", "-k", "-P"), _table(rows))
    shm = [r for r in rows if r[4] == SHM]
    if shm:
        record_command(rec, DF_ARGV, _table(shm[-1:]))


@importer("df", "`df`, `df -h`, `df -k` (the /dev/shm row feeds CTR-SHM-SIZE)")
def df(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        m = _HEADER.match(lines[i])
        if m:
            rows, end = _rows(lines, i + 1, m.group("unit"), " Type " in lines[i])
            if rows:
                yield Found("df", i, end, partial(_apply, rows))
            i = max(end, i + 1)
        else:
            i += 1
