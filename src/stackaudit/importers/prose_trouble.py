"""A hang in the user's own words (`it will get stuck when loading the model`), pasted beside an engine's command
line or log, or said in a sentence of a paste that names a GPU workload (an engine, NCCL or its tests, DDP).

Recorded as the pasted document USER_TROUBLE (facts/sources.py), the line verbatim, only where the paste also holds
an engine command or an engine log line, as importers/prose_rate.py does for a rate; or where the line is a sentence
(importers/prose_engine.is_sentence) and some line of the paste names the workload that hangs (WORKLOAD: `it hangs in
0.15.0` beside a vLLM compose, corpus 1136; `all_reduce_perf ... gets stuck` beside nccl-tests output, corpus 844).
Alone, a hang could be any program's (`System repeatedly freezes`, corpus 80): it is not the GPU stack's question.
A hang said not to happen (`does not stuck but failes`, corpus 1102) is none.
facts/trouble.py reads it last, after the logs.
A line that is itself a log line or a kernel log line (`NVRM: ... RC watchdog`) is left to its own recogniser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.engine_command import stated_engines
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.sources import USER_TROUBLE
from stackaudit.facts.trouble import NEGATED_BEFORE, USER_HANG
from stackaudit.importers._scan import Candidates, candidate_lines, engine_beside
from stackaudit.importers.prose_engine import is_sentence
from stackaudit.importers.registry import Found, document_appended, importer
from stackaudit.importers.system import is_kernel_log_line

# A GPU workload besides the engines (facts/engine_command.STATED_ENGINE_WORDS): NCCL and its tests' binaries
# (`all_reduce_perf`), PyTorch's distributed launchers and DDP.
WORKLOAD = re.compile(r"\bnccl|\b[a-z]+(?:_[a-z]+)*_perf\b|\bDDP\b|\btorchrun\b|\btorch\.distributed\b", re.I)


def says_hang(line: str) -> bool:
    """Whether a line of the user's words says a hang (USER_HANG) that it does not negate (facts/trouble.NEGATED_BEFORE)."""
    return any(not NEGATED_BEFORE.search(line[:m.start()]) for m in USER_HANG.finditer(line))


def _workload_named(lines: list[str]) -> bool:
    return any(WORKLOAD.search(x) or stated_engines(x) for x in lines)


@importer("prose hang", "a hang in the user's words (`it gets stuck`) beside an engine command or log, or a workload",
          needles=("stuck", "hang", "hung", "no response", "freez", "timed out", "timeout", "time out", "deadlock"),
          per_line=True)
def prose_trouble(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    engine: bool | None = None  # the paste's engine text, looked for once, at the first hang
    workload: bool | None = None  # a GPU workload the paste names, looked for once, at the first hang sentence
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if not says_hang(line) or is_log_line(line) or is_kernel_log_line(line):
            continue
        if engine is None:
            engine = engine_beside(lines)
        if not engine:
            if not is_sentence(line):
                continue
            if workload is None:
                workload = _workload_named(lines)
            if not workload:
                return
        yield Found("prose hang", i, i + 1, document_appended(USER_TROUBLE.name, line.strip() + "\n"))
        return  # the first line says it
