"""Helpers for importers: spans of lines, prompts, code fences."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence

from stackaudit.facts.engine_command import COMMAND_HINT, parse_command_line
from stackaudit.facts.serving_logs import is_log_line

# A shell prompt (`root@host:~#`, `(venv) $`), or the `+ ` a shell's trace (`set -x`, PS4) puts before each command
# it runs: an entrypoint script's log shows the engine's command line that way, after the log viewer's timestamp
# (`2026-01-27 14:26:31 + python3 -m vllm...`, `2025-11-24 13:54:38.398 | + exec vllm serve ...`). A job's state
# line (`[1]+  Killed    nohup python3 -m sglang.launch_server ...`) names the command the shell ran in the background.
# A `user@host:dir#` prompt glued to an assignment that starts the command, quoted or not, is one too (corpus 993:
# `> root@13yper:.../benchmarks#CUDA_VISIBLE_DEVICES=1 python3 benchmark_throughput.py ...`).
# A notebook cell's shell escape (IPython's `!python -m sglang.launch_server ...`, corpus 1023) is one too.
# The bash prompt of Red Hat's family (`[root@gpu01 tensorrt_llm]# `, PS1 `[\u@\h \W]\$ `) is one, as is its tail alone
# where the paste lost its user and host (` ]# mpirun -n 2 ...`, corpus 1737).
# Windows' cmd.exe prompt (`f:\koboldcpp>`, corpus 2014) and PowerShell's (`PS C:\Users\admin>`), after conda's
# environment too (`(base) PS C:\Users\admin> ollama serve`, corpus 2039), are prompts.
PROMPT = re.compile(r"^\s*(?:!(?=[\w./])|(?:\d{4}-\d\d-\d\d[T ][\d:.,]+Z?\s+(?:\|\s+)?)?\++\s+|"
                    r"\[\d+\][+-]?\s+(?:Running|Stopped|Killed|Done|Exit \d+|Terminated|Aborted)\s+|"
                    r"(?:>\s+)?[\w.-]+@[\w.-]+:[~/][\w.~/-]*[#$](?=[A-Z_]+=)|"
                    r"(?:\([\w.-]+\)\s*)?(?:PS\s+)?[A-Za-z]:\\[^<>|\"\n]*>\s*(?=\S)|"
                    r"(?:\(?[\w.-]+\)?\s*)?(?:[\w.@:~/-]*[#$%>]\s+|\$\s*|"
                    r"(?:\[[\w.-]+@[\w.-]+(?:\s+[\w.~/-]+)?)?\][#$]\s+))")
FENCE = re.compile(r"^\s*(```|~~~)")
# Markdown inline code: a span between single backticks, its text the group (a command quoted in a sentence, a line
# that is one span).
INLINE_CODE = re.compile(r"(?<!`)`([^`]+)`(?!`)")


def strip_prompt(line: str) -> str:
    """`root@host:~# cat /proc/cmdline` -> `cat /proc/cmdline`."""
    return PROMPT.sub("", line, count=1).strip()


def engine_beside(lines: list[str]) -> bool:
    """True when some line of the paste is an engine command or an engine log line (the first one ends the scan).
    The user's words (a rate, a hang) count only beside one: alone they could be any program's."""
    return any((COMMAND_HINT.search(x) and parse_command_line(strip_prompt(x).rstrip("\\ ")) is not None)
               or is_log_line(x) for x in lines)


def take_while(lines: list[str], start: int, pred: re.Pattern[str] | Callable[[str], object], allow_blank: int = 0) -> int:
    """End index (exclusive) of the run of lines from `start` that `pred` accepts (a pattern: that it finds a
    match in), up to a fence; `allow_blank` blank lines in a row stay in the run."""
    accepts = pred.search if isinstance(pred, re.Pattern) else pred
    end = start
    blanks = 0
    i = start
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            blanks += 1
            if blanks > allow_blank:
                break
            i += 1
            continue
        if FENCE.match(line) or not accepts(line):
            break
        blanks = 0
        i += 1
        end = i
    return end


class Candidates:
    """The lines a recogniser's trigger can fire on: the sorted indices of the lines holding one of its
    needles (importers/recognition.py scans the text once for the needles of every recogniser). `next(i)`
    is the first of them at or after line i, or `end` when none is left, so a recogniser jumps from
    candidate to candidate instead of testing every line. `offset` shifts the indices for a recogniser
    run on `lines[offset:]` (the registry's probes for a second host)."""

    __slots__ = ("end", "indices", "offset")

    def __init__(self, indices: Sequence[int], end: int, offset: int = 0) -> None:
        self.indices, self.end, self.offset = indices, end, offset

    def next(self, i: int) -> int:
        k = bisect.bisect_left(self.indices, i + self.offset)
        return self.indices[k] - self.offset if k < len(self.indices) else self.end


def _every_line(i: int) -> int:
    return i


def candidate_lines(candidates: Candidates | None, n: int) -> Sequence[int]:
    """The lines to test, in order: the candidates (shifted by their offset), or all `n` without them."""
    if candidates is None:
        return range(n)
    first = bisect.bisect_left(candidates.indices, candidates.offset)
    return [c - candidates.offset for c in candidates.indices[first:]]


def next_candidate(candidates: Candidates | None) -> Callable[[int], int]:
    """The recogniser's `next(i)`: the identity where it was handed no candidates (every line is one)."""
    return candidates.next if candidates is not None else _every_line


def run_end(lines: list[str], start: int, pred: Callable[[str], object]) -> int:
    """The first index from `start` whose line `pred` refuses (or the end of the lines)."""
    end = start
    while end < len(lines) and pred(lines[end]):
        end += 1
    return end


class Scan:
    """A recogniser's loop over its candidate lines: `for i in (scan := Scan(lines, candidates))`.
    Each line is tested once, in order; `scan.skip(end)` resumes at `end` after a block it read."""

    __slots__ = ("_at", "_n", "_next")

    def __init__(self, lines: list[str], candidates: Candidates | None) -> None:
        self._next, self._n, self._at = next_candidate(candidates), len(lines), 0

    def __iter__(self) -> Iterator[int]:
        while (i := self._next(self._at)) < self._n:
            self._at = i + 1
            yield i

    def skip(self, end: int) -> None:
        self._at = max(end, self._at)
