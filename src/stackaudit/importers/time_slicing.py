"""A device plugin's time-slicing section (facts/time_slicing.py), recorded verbatim as the pasted document
TIME_SLICING."""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.sources import TIME_SLICING
from stackaudit.facts.time_slicing import section_end
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, importer


@importer("time slicing", "a device plugin's time-slicing section (`timeSlicing:` with its resources' `replicas`), "
          "YAML or JSON", needles=("timeSlicing",), per_line=True)
def time_slicing(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        end = section_end(lines, i)
        if end:
            yield Found("time slicing", i, end, document_appended(TIME_SLICING.name, "\n".join(lines[i:end]) + "\n"))
