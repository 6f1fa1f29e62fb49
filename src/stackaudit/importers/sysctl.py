"""`sysctl -a` (whole or grepped: `key = value` lines), recorded verbatim as `sysctl -a`'s output.

The `sysctls` fact parses it (facts/system.py `sysctls_from_sysctl_a`): a whole output (hundreds of
keys from kernel, vm and fs) also says which keys do not exist; a grep says nothing of the keys it hid.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.sources import SYSCTL_A
from stackaudit.facts.system import SYSCTL_CHATTER, SYSCTL_LINE, parse_sysctl_lines, sysctl_a_is_whole
from stackaudit.importers._scan import Candidates, Scan, run_end
from stackaudit.importers.registry import Found, command_output_appended, importer


@importer("sysctl", "`sysctl -a` output, whole or grepped (`key = value` lines)", needles=(" = ",), per_line=True)
def sysctl(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not SYSCTL_LINE.match(lines[i]):
            continue
        end = run_end(lines, i, lambda line: SYSCTL_LINE.match(line) or SYSCTL_CHATTER.match(line))
        block = lines[i:end]
        values, _ = parse_sysctl_lines(block)
        yield Found("sysctl", i, end, command_output_appended(SYSCTL_A.argv, "\n".join(block) + "\n"), whole=sysctl_a_is_whole(values))
        scan.skip(end)
