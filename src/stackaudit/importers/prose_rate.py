"""A decode rate in the user's own words (`around 10 t/s`, `~12 tok/s`, `getting 8 tokens/s`), pasted beside an
engine's command line or log.

Recorded as the pasted document USER_RATE (facts/sources.py), the line verbatim, only where the paste also holds an
engine command (`vllm serve …`, `python -m sglang.launch_server …`) or an engine log line: a rate with no engine
beside it could be any program's. facts/serving_rate.py reads it last, as "the user's own words".
A line that is itself a log, benchmark or progress line is left to its own recogniser.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.serving_rate import PROSE_RATE
from stackaudit.facts.sources import USER_RATE
from stackaudit.importers._scan import Candidates, candidate_lines, engine_beside
from stackaudit.importers.registry import Found, document_appended, importer

MAX_LINES = 50  # lines of words with a rate read from one paste; past a few, they give several rates anyway
# Words of the machine-written lines that state a rate (vLLM's log, benchmark results, tqdm's postfix, llama.cpp's
# and Ollama's timings).
_NOT_PROSE = ("throughput", "est. speed", "it/s", "tokens/s,", "|", "ms per token", "eval rate", "eval time")


@importer("prose rate", "a rate in the user's words (`around 10 t/s`) beside an engine command or log",
          needles=("t/s", "tok/s", "toks/s", "token/s", "tokens/s", "tokens per second", "tokens/sec", "tps"),
          per_line=True)
def prose_rate(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    engine: bool | None = None  # the paste's engine text, looked for once, at the first rate
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if PROSE_RATE.search(line) and not is_log_line(line) and not any(w in line.lower() for w in _NOT_PROSE):
            if engine is None:
                engine = engine_beside(lines)
            if not engine:
                return
            yield Found("prose rate", i, i + 1, document_appended(USER_RATE.name, line.strip() + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
