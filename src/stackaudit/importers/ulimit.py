"""`ulimit -a` from bash, dash or zsh, recorded verbatim as a pasted `ulimit -a` document.

The `self_limits` fact parses it (facts/limits.py `limits_from_ulimit_a`): soft limits only, the hard
column unknown. Two cut pieces of one output (a line annotated by hand between them) join in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.limits import ULIMIT_ROWS, ulimit_line
from stackaudit.facts.sources import ULIMIT_A
from stackaudit.importers._scan import Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer

# Rows bash's `ulimit -a` prints at least (dash prints 12, zsh 14 or more); a cut paste shows fewer.
WHOLE_MIN_ROWS = 12


# The names dash's rows start with (facts/limits.py `_DASH`); bash's `(kbytes, -l)` and zsh's `-l:` hold a `-`.
DASH_NAMES = ("time", "file", "data", "stack", "coredump", "memory", "locked memory", "process", "nofiles", "vmemory",
              "locks", "rtprio", "nice", "sigpending", "msgqueue", "rttime", "sbsize", "swap", "pipe")
_DASH_START = re.compile(r"^\s*(?:" + "|".join(DASH_NAMES) + ")")


def _maybe_row(line: str) -> bool:
    return "-" in line or bool(_DASH_START.match(line))


# No needle gate: the `-` is on a quarter of a long log's lines, and a pass over the text for each of dash's
# names costs more than the test it saves; a line that is none of the three shapes costs one test, not three.
@importer("ulimit -a", "`ulimit -a` (bash, dash, zsh): the shell's soft resource limits")
def ulimit(lines: list[str]) -> Iterator[Found]:
    for i in (scan := Scan(lines, None)):
        if not _maybe_row(lines[i]) or ulimit_line(lines[i]) is None:
            continue
        j = run_end(lines, i + 1, lambda line: _maybe_row(line) and ulimit_line(line) is not None)
        known = [e for e in map(ulimit_line, lines[i:j]) if e is not None and e[0] in ULIMIT_ROWS]
        if len(known) >= 3:
            text = "\n".join(lines[i:j]) + "\n"
            yield Found("ulimit -a", i, j, document_appended(ULIMIT_A.name, text), whole=len(known) >= WHOLE_MIN_ROWS)
        scan.skip(j)
