"""`sysctl -a` (whole or grepped: `key = value` lines), recorded verbatim as `sysctl -a`'s output.

The `sysctls` fact parses it (facts/system.py `sysctls_from_sysctl_a`): a whole output (hundreds of
keys from kernel, vm and fs) also says which keys do not exist; a grep says nothing of the keys it hid.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.sources import SYSCTL_A
from stackaudit.facts.system import SYSCTL_CHATTER, SYSCTL_LINE, parse_sysctl_lines, sysctl_a_is_whole
from stackaudit.importers._scan import Candidates, next_candidate
from stackaudit.importers.registry import Found, command_output_appended, importer


@importer("sysctl", "`sysctl -a` output, whole or grepped (`key = value` lines)", needles=(" = ",), per_line=True)
def sysctl(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    i = 0
    nxt = next_candidate(candidates)
    while (i := nxt(i)) < len(lines):
        if not SYSCTL_LINE.match(lines[i]):
            i += 1
            continue
        start = end = i
        while end < len(lines) and (SYSCTL_LINE.match(lines[end]) or SYSCTL_CHATTER.match(lines[end])):
            end += 1
        block = lines[start:end]
        values, _ = parse_sysctl_lines(block)
        yield Found("sysctl", start, end, command_output_appended(SYSCTL_A.argv, "\n".join(block) + "\n"), whole=sysctl_a_is_whole(values))
        i = max(end, i + 1)
