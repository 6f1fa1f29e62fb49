"""`ulimit -a` from bash, dash or zsh, recorded verbatim as a pasted `ulimit -a` document.

The `self_limits` fact parses it (facts/limits.py `limits_from_ulimit_a`): soft limits only, the hard
column unknown. Two cut pieces of one output (a line annotated by hand between them) join in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from stackaudit.facts.limits import ULIMIT_ROWS, ulimit_line
from stackaudit.facts.sources import ULIMIT_A
from stackaudit.host.memory import HostRecord
from stackaudit.importers.registry import Found, importer

# Rows bash's `ulimit -a` prints at least (dash prints 12, zsh 14 or more); a cut paste shows fewer.
WHOLE_MIN_ROWS = 12


def _append_doc(text: str) -> Callable[[HostRecord], None]:
    def apply(record: HostRecord) -> None:
        record.docs[ULIMIT_A.name] = record.docs.get(ULIMIT_A.name, "") + text

    return apply


@importer("ulimit -a", "`ulimit -a` (bash, dash, zsh): the shell's soft resource limits")
def ulimit(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        if ulimit_line(lines[i]) is None:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and ulimit_line(lines[j]) is not None:
            j += 1
        known = [e for e in map(ulimit_line, lines[i:j]) if e is not None and e[0] in ULIMIT_ROWS]
        if len(known) >= 3:
            text = "\n".join(lines[i:j]) + "\n"
            yield Found("ulimit -a", i, j, _append_doc(text), whole=len(known) >= WHOLE_MIN_ROWS)
        i = j
