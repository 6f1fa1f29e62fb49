"""Benchmark output pasted into a report: the result block of `vllm bench serve` / benchmark_serving.py and SGLang's
bench_serving (`============ Serving Benchmark Result ============` and its `key: value` lines up to the closing
rule), and a llama-bench table (its header `| model | … | test | t/s |` and rows).

Recorded verbatim as the pasted document BENCH_OUTPUT (facts/sources.py); facts/serving_rate.py reads the measured
single-stream rate from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts.sources import BENCH_OUTPUT
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import Candidates, next_candidate
from stackaudit.importers.registry import Found, append_document, importer

_RESULT_HEAD = re.compile(r"^\s*=+\s*Serving Benchmark Result\s*=+\s*$")
_RESULT_LINE = re.compile(r"^\s*(?:[A-Za-z][\w ()/%.-]*:\s*\S.*|-+[\w ()/.-]*-+|=+)\s*$")
_LLAMA_HEAD = re.compile(r"^\s*\|\s*model\s*\|.*\|\s*test\s*\|\s*t/s\s*\|\s*$")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
MAX_LINES = 200  # a result block is tens of lines


def _append(text: str, rec: HostRecord) -> None:
    append_document(rec, BENCH_OUTPUT.name, text)


@importer("benchmark output", "`vllm bench serve` / SGLang bench_serving results, a llama-bench table",
          needles=("Serving Benchmark Result", "| model"), per_line=True)
def bench_output(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    i = 0
    nxt = next_candidate(candidates)
    while (i := nxt(i)) < len(lines):
        line = lines[i]
        if _RESULT_HEAD.match(line):
            end = i + 1
            while end < len(lines) and end - i < MAX_LINES and _RESULT_LINE.match(lines[end]):
                end += 1
                if re.match(r"^\s*=+\s*$", lines[end - 1]):
                    break
        elif _LLAMA_HEAD.match(line):
            end = i + 1
            while end < len(lines) and end - i < MAX_LINES and _TABLE_LINE.match(lines[end]):
                end += 1
        else:
            i += 1
            continue
        body = "\n".join(x.rstrip() for x in lines[i:end]) + "\n"
        yield Found("benchmark output", i, end, partial(_append, body))
        i = end
