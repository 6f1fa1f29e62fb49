"""The user's question naming a setting a check judges (`how could I know which NCCL_P2P_LEVEL it uses?`, corpus 626;
`is it the PHB topology?`, corpus 913).

Recorded as the pasted document USER_QUESTION (facts/sources.py), the first such sentence verbatim
(importers/prose_engine.is_sentence: no log line, command or tool output); facts/question.py reads it.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.question import asked_checks
from stackaudit.facts.sources import USER_QUESTION
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.prose_engine import is_sentence
from stackaudit.importers.registry import Found, document_appended, importer


@importer("prose question", "the user's question naming a setting a check judges ('which NCCL_P2P_LEVEL it uses?')",
          needles=("?",), per_line=True)
def prose_question(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if asked_checks(line) and is_sentence(line):
            yield Found("prose question", i, i + 1, document_appended(USER_QUESTION.name, line.strip() + "\n"))
            return  # the first question says it
