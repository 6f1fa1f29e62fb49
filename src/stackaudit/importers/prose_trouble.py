"""A hang in the user's own words (`it will get stuck when loading the model`), pasted beside an engine's command
line or log.

Recorded as the pasted document USER_TROUBLE (facts/sources.py), the line verbatim, only where the paste also holds
an engine command or an engine log line, as importers/prose_rate.py does for a rate.
facts/trouble.py reads it last, after the logs.
A line that is itself a log line is left to its own recogniser.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.sources import USER_TROUBLE
from stackaudit.facts.trouble import USER_HANG
from stackaudit.importers._scan import Candidates, candidate_lines, engine_beside
from stackaudit.importers.registry import Found, document_appended, importer


@importer("prose hang", "a hang in the user's words (`it gets stuck`) beside an engine command or log",
          needles=("stuck", "hang", "hung", "no response", "freez", "timed out", "timeout", "time out", "deadlock"),
          per_line=True)
def prose_trouble(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    engine: bool | None = None  # the paste's engine text, looked for once, at the first hang
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if USER_HANG.search(line) and not is_log_line(line):
            if engine is None:
                engine = engine_beside(lines)
            if not engine:
                return
            yield Found("prose hang", i, i + 1, document_appended(USER_TROUBLE.name, line.strip() + "\n"))
            return  # the first line says it
