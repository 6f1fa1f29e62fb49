"""A process tree as `ps --forest` prints it (`ps a --forest -o pid,comm`, `ps axf`), pasted:

        PID COMMAND
       2780 slurm_script
       2791  \\_ python3.11
       2816      \\_ python3.11

A header that ends in the command's column (COMMAND, CMD or COMM) and at least one child row (`\\_ `) below it; the
block runs while rows start with a PID. It is recorded verbatim as the pasted document PROCESS_TREE
(facts/sources.py); facts/container.py reads it.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.container import FOREST_HEADER, FOREST_ROW
from stackaudit.facts.sources import PROCESS_TREE
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, document_appended, importer


@importer("process tree", "a process tree as `ps --forest` prints it (`PID COMMAND`, children under `\\_ `)",
          needles=("PID",), per_line=True)
def process_tree(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not FOREST_HEADER.match(lines[i]):
            continue
        end = i + 1
        while end < len(lines) and FOREST_ROW.match(lines[end]):
            end += 1
        if not any("\\_ " in line for line in lines[i + 1:end]):
            continue
        yield Found("process tree", i, end, document_appended(PROCESS_TREE.name, "\n".join(lines[i:end]) + "\n"))
        scan.skip(end)
