"""`df`, `df -h`, `df -k`, `df -P`, `df -B1`, `df -T`, with or without `/dev/shm`, pasted into a report.

Recorded verbatim under the argv it shows (facts/sources.py DF_PASTED): its prompt line's (`$ df -h
/dev/shm`, `kubectl exec ... -- df -h /dev/shm`) where that is one of them, else the flags its header
shows. The shm and container facts read it (facts/shm.py `read_df`, `parse_df_table`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.shm import DF_HEADER, df_rows
from stackaudit.facts.sources import DF_PASTED, DF_TABLES
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, command_output_appended, importer

_KNOWN_ARGV = {s.argv for s in DF_TABLES}
# The flags a header shows; other block sizes (`df -B 4K`, POSIXLY_CORRECT 512-blocks) are not recorded.
_HEADER_FLAGS = {"Size": ("-h",), "1K-blocks": (), "1024-blocks": ("-P",), "1B-blocks": ("-B1",)}
# `df ...` at the end of a prompt line, after a prompt, `sudo` or `kubectl exec ... --`; no pipe, no redirection.
_COMMAND = re.compile(r"(?:^|[\s#$>%])(df(?:\s+[^\s|;&<>`'\"]+)*)\s*$")


def _argv(lines: list[str], header: int, unit: str, typed: bool) -> tuple[str, ...] | None:
    """The argv the paste shows for the table whose header is lines[header]."""
    if header > 0:
        m = _COMMAND.search(lines[header - 1].strip().strip("`"))
        if m and tuple(m.group(1).split()) in _KNOWN_ARGV:
            return tuple(m.group(1).split())
    flags = _HEADER_FLAGS.get(unit)
    if flags is None:
        return None
    argv = ("df", *flags, *(("-T",) if typed else ()))
    return argv if any(s.argv == argv for s in DF_PASTED) else None


@importer("df", "`df`, `df -h`, `df -k` (the /dev/shm row feeds CTR-SHM-SIZE)", needles=("Filesystem",), per_line=True)
def df(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if m := DF_HEADER.match(lines[i]):
            typed = " Type " in lines[i]
            rows, end = df_rows(lines, i + 1, m.group("unit"), typed)
            argv = _argv(lines, i, m.group("unit"), typed)
            if rows and argv is not None:
                # Whole: a df table from its header line (df has no end marker; a cut table still shows rows),
                # unless the paste ends inside its last row.
                text = "\n".join(lines[i:end]) + "\n"
                yield Found("df", i, end, command_output_appended(argv, text), whole=rows[-1].used_kib is not None)
            scan.skip(end)
