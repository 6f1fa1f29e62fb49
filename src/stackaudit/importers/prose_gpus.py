"""A GPU count and model in the user's own words (`8 x A10G GPUs`, `a 8 cards 4090 server`).

Recorded as the pasted document USER_GPUS (facts/sources.py), the line verbatim; facts/gpus.py reads it last,
as "the user's own words", for the model that a topology matrix or a log does not name.
A line that is itself a log line is left to its own recogniser.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.gpus import stated_gpus
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.sources import USER_GPUS
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, importer

MAX_LINES = 20  # lines of words read from one paste; past a few, they state several machines anyway


@importer("prose gpus", "a GPU count and model in the user's words ('8 x A10G GPUs')",
          needles=("x", "*", "card", "gpu", "dgx"), per_line=True)
def prose_gpus(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if len(line) > 2000 or is_log_line(line):
            continue
        if stated_gpus(line):
            yield Found("prose gpus", i, i + 1, document_appended(USER_GPUS.name, line.strip() + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
