"""The measured single-stream decode rate the source holds (issue 29), with where it was read.

Sources, best first:
- benchmark output pasted as it printed (the document BENCH_OUTPUT): `vllm bench serve` / benchmark_serving.py
  and SGLang's bench_serving (`Maximum request concurrency: 1` — SGLang spells it `Max reqeuest concurrency:` —
  then `Mean TPOT (ms):`, else `Output token throughput (tok/s):`), and llama-bench's table (its `tg` rows are one
  stream by construction);
- the engine's own periodic log line (the document ENGINE_LOG): vLLM's `Avg prompt throughput: %.1f tokens/s, Avg
  generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs` (vllm/v1/metrics/loggers.py; v0 prints
  `Swapped:` and `Pending:`), SGLang's `Decode batch. #running-req: %d, … gen throughput (token/s): %.2f,
  #queue-req: %d` (managers/scheduler_metrics_mixin.py; v0.5.23 writes `Decode batch,`).

A line is a single-stream rate only where it shows one running request and none waiting, and a window with
prefill in it is dropped (vLLM: prompt throughput above 0; SGLang: a `Prefill batch.` line since the decode line
before). A benchmark at a concurrency above 1 measures something else and is not used. Speculative decoding
(vLLM `SpecDecoding metrics:`, SGLang `accept len:`) is noted: the rate may then exceed the one-token ceiling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import fact, first_of, parser
from stackaudit.facts.sources import BENCH_OUTPUT, ENGINE_LOG

MAX_RATE = 1e6  # tokens/s: a larger figure in a paste is not a decode rate


@dataclass(frozen=True)
class MeasuredRate:
    tokens_per_s: float
    source: str  # what the rate was read from, as the report names it
    line: str = ""  # the verbatim line (the first of those used)
    samples: int = 1
    speculative: bool = False


fact("serving_rate", MeasuredRate, first_of,
     hint="paste the engine's log while one request decodes, or `vllm bench serve --max-concurrency 1` output")

_VLLM = re.compile(r"Avg prompt throughput:\s*([\d.]+) tokens/s, Avg generation throughput:\s*([\d.]+) tokens/s, "
                   r"Running:\s*(\d+) reqs?, (?:Swapped:\s*\d+ reqs?, Pending|Waiting):\s*(\d+) reqs?")
_SGLANG = re.compile(r"Decode batch[.,].*?#running-req:\s*(\d+),.*?gen throughput \(token/s\):\s*([\d.]+),"
                     r"\s*#queue-req:\s*(\d+)")


def _rate(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < MAX_RATE else None


def _summary(values: list[float], lines: list[str], what: str, speculative: bool) -> MeasuredRate:
    import statistics  # with decimal and fractions: imported only when a source holds rates

    rate = statistics.median(values)
    many = f", the median of {len(values)} lines" if len(values) > 1 else ""
    return MeasuredRate(round(rate, 2), f"{what}{many}", lines[0][:300], len(values), speculative)


def parse_engine_rate(text: str) -> MeasuredRate:
    """The single-stream rate of the engine's own throughput lines; ParseError when none shows one stream."""
    vllm: list[tuple[float, str]] = []
    sglang: list[tuple[float, str]] = []
    prefill_since = False
    speculative = False
    for raw in text.splitlines():
        line = raw.strip()
        if "SpecDecoding metrics" in line or "accept len:" in line:
            speculative = True
        if "Prefill batch" in line:
            prefill_since = True
            continue
        if "generation throughput" in line:
            m = _VLLM.search(line)
            rate = _rate(m.group(2)) if m else None
            if m and rate and int(m.group(3)) == 1 and int(m.group(4)) == 0 and float(m.group(1)) == 0:
                vllm.append((rate, line))
        elif "gen throughput" in line:
            m = _SGLANG.search(line)
            rate = _rate(m.group(2)) if m else None
            if m and rate and int(m.group(1)) == 1 and int(m.group(3)) == 0 and not prefill_since:
                sglang.append((rate, line))
            prefill_since = False
    if vllm:
        return _summary([r for r, _ in vllm], [ln for _, ln in vllm],
                        "vLLM's log: Avg generation throughput at Running: 1 reqs", speculative)
    if sglang:
        return _summary([r for r, _ in sglang], [ln for _, ln in sglang],
                        "SGLang's log: gen throughput at #running-req: 1", speculative)
    raise ParseError("no engine throughput line with one running request and no prefill")


@parser(ENGINE_LOG, feeds="serving_rate", kind=MeasuredRate, rank=20)
def serving_rate_from_log(text: str) -> MeasuredRate:
    """The single-stream decode rate in the engine's own throughput log lines (vLLM, SGLang)."""
    return parse_engine_rate(text)


_CONCURRENCY = re.compile(r"^\s*Max(?:imum)? re(?:qu|qeu)est concurrency:\s*(\S+)", re.M)
_TPOT = re.compile(r"^\s*Mean TPOT \(ms\):\s*([\d.]+)", re.M)
_OUTPUT = re.compile(r"^\s*Output token throughput \(tok/s\):\s*([\d.]+)", re.M)
_LLAMA_BENCH_TG = re.compile(r"^\s*\|.*\|\s*tg\d+(?:\s*@\s*d\d+)?\s*\|\s*([\d.]+)\s*±\s*[\d.]+\s*\|\s*$", re.M)


def parse_bench_rate(text: str) -> MeasuredRate:
    """The single-stream decode rate in pasted benchmark output; ParseError when it measured no single stream."""
    tg = _LLAMA_BENCH_TG.search(text)
    if tg and (rate := _rate(tg.group(1))):
        return MeasuredRate(rate, "llama-bench: its tg row", tg.group(0).strip())
    conc = _CONCURRENCY.search(text)
    if conc is None or conc.group(1) != "1":
        raise ParseError("the benchmark did not run one request at a time (`--max-concurrency 1`)")
    tpot = _TPOT.search(text)
    if tpot and (ms := _rate(tpot.group(1))):
        return MeasuredRate(round(1000.0 / ms, 2), "a serving benchmark at concurrency 1: 1000 / Mean TPOT",
                            tpot.group(0).strip())
    out = _OUTPUT.search(text)
    if out and (rate := _rate(out.group(1))):
        return MeasuredRate(rate, "a serving benchmark at concurrency 1: Output token throughput, prefill included",
                            out.group(0).strip())
    raise ParseError("no TPOT or output throughput in the benchmark output")


@parser(BENCH_OUTPUT, feeds="serving_rate", kind=MeasuredRate, rank=10)
def serving_rate_from_bench(text: str) -> MeasuredRate:
    """The single-stream decode rate a pasted benchmark measured (vllm bench serve, bench_serving, llama-bench)."""
    return parse_bench_rate(text)
