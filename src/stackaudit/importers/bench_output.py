"""Benchmark output pasted into a report: the result block of `vllm bench serve` / benchmark_serving.py and SGLang's
bench_serving (`============ Serving Benchmark Result ============` and its `key: value` lines up to the closing
rule), a llama-bench table (its header `| model | … | test | t/s |` and rows), SGLang bench_one_batch's lines
(`Prefill. latency:`, `Decode N. Batch size:`, `Decode.  median latency:`, `Total. latency:`), genai-perf's table
(from its `LLM Metrics` title, with the lines near it that show its concurrency) and vLLM's offline progress bar
(`Processed prompts: … est. speed input: … toks/s, output: … toks/s]`) and TensorRT-LLM's old benchmark.py result line
(`[BENCHMARK] model_name llama_7b world_size 1 ... tokens_per_sec 1857.9 ...`) and its C++ gptSessionBenchmark's
(`[BENCHMARK] batch_size 64 input_length 128 output_length 128 latency(ms) 9960.81 tokensPerSec 822.42`), and
`ollama run --verbose`'s timing summary (`eval rate:            137.74 tokens/s`), and lmdeploy's profile_generation
result block (`concurrency: 64, input_tokens: 1, output_tokens: 2048` … `first_token latency(min, max, ave): …`),
and the one-request summary lines of inference scripts (SCRIPT_RATE_LINES: exllamav2's examples, MLC-LLM's
benchmark.py and chat stats, a script's `tokens/second:` summary), and the torch all-reduce benchmark's result
(all_reduce_bench.py: `The average bandwidth of all_reduce ...` over its `algbw:` / `busbw:` lines or payload table).

Recorded verbatim as the pasted document BENCH_OUTPUT (facts/sources.py); facts/serving_rate.py reads the measured
single-stream rate from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from stackaudit.facts.serving_rate import EXLLAMA_LINE, EXLLAMA_RATE, KOBOLDCPP_RUN_LINE, SCRIPT_RATES
from stackaudit.facts.sources import BENCH_OUTPUT
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, document_appended, importer

_RESULT_HEAD = re.compile(r"^\s*=+\s*Serving Benchmark Result\s*=+\s*$")
# A result block's `Key: value` line, the one shape both the serving benchmarks' block and lmdeploy's profile block
# print (`Mean TTFT (ms):  12.3`, lmdeploy's `first_token latency(min, max, ave): …`, whose key holds commas).
_KEY_VALUE = r"[A-Za-z][\w ()/%,.-]*:\s*\S.*"
# ... or its rules: a titled dash rule (`-----Time to First Token-----`) and the closing `=====`.
_RESULT_LINE = re.compile(rf"^\s*(?:{_KEY_VALUE}|-+[\w ()/.-]*-+|=+)\s*$")
# llama-bench's header ends on `| test | t/s |`; scripts/compare-llama-bench.py's (and tables written after it, corpus
# 2902) on a `t/s` column per compared run and the `Speedup` (`| Model | Test | t/s master | t/s branch | Speedup |`).
_LLAMA_HEAD = re.compile(r"^\s*\|\s*model\s*(?:\|.*)?\|\s*test\s*\|\s*(?:t/s|(?:t/s [^|]+\|\s*){2,}speedup)\s*\|\s*$",
                         re.IGNORECASE)
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
# The torch all-reduce benchmark's result (stas00/ml-engineering network/benchmarks/all_reduce_bench.py, NCCL's busbw
# math through torch.distributed): its head, under a launcher's prefix where one tags each rank's output (SkyPilot's
# `(head, rank=0, pid=22990) [host:0]:`, corpus 2885), then the `algbw:` and `busbw:` lines of its 2024 form (`The
# average bandwidth of all_reduce with a 40.0GB payload (5 trials, 16 ranks):`) or the payload table of its later one
# (`The average bandwidth of all_reduce over 16 ranks (...):` over `| payload |    busbw   |    algbw   |`).
_ALLREDUCE_HEAD = re.compile(r"\bThe average bandwidth of all_reduce (?:with an? [\d.]+\s*[KMGT]i?B payload \(\d+ trials, "
                             r"\d+ ranks\)|over \d+ ranks\b.*):\s*$")
_ALLREDUCE_LINE = re.compile(r"(?:^|[:\]]\s*)(?:algbw|busbw): [\d.]+ G[Bb]ps\b|^\s*\|.*\|\s*$|^\s*$")
MAX_LINES = 200  # a result block is tens of lines
CONTEXT_LINES = 40  # lines above a block (and 10 below) searched for the command's flags that qualify it


@importer("benchmark output", "`vllm bench serve` / SGLang bench_serving results, a llama-bench table",
          needles=("Serving Benchmark Result", "| model", "bandwidth of all_reduce"), per_line=True)
def bench_output(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        line = lines[i]
        if _RESULT_HEAD.match(line):
            end = i + 1
            while end < len(lines) and end - i < MAX_LINES and _RESULT_LINE.match(lines[end]):
                end += 1
                if re.match(r"^\s*=+\s*$", lines[end - 1]):
                    break
        elif "all_reduce" in line and _ALLREDUCE_HEAD.search(line):
            end = i + 1
            while end < len(lines) and end - i < MAX_LINES and _ALLREDUCE_LINE.search(lines[end]):
                end += 1
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1
            if not any("busbw" in x for x in lines[i + 1:end]):
                continue
        elif _LLAMA_HEAD.match(line):
            end = i + 1
            while end < len(lines) and end - i < MAX_LINES and _TABLE_LINE.match(lines[end]):
                end += 1
        else:
            continue
        body = "\n".join(x.rstrip() for x in lines[i:end]) + "\n"
        yield Found("benchmark output", i, end, document_appended(BENCH_OUTPUT.name, body))
        scan.skip(end)


# bench_one_batch's own command line: its `--batch-size` (older versions print no batch size per decode step).
_BATCH_FLAG = re.compile(r"--batch-size[= ]\s*\d")
_ONE_BATCH_LINE = re.compile(r"^\s*(?:Warmup \.\.\.|Benchmark \.\.\.|Prefill\. latency:.*|Decode \d+\. Batch size: \d+,.*"
                             r"|Decode\.\s+latency:.*|Decode\.\s+median latency:.*|Total\.\s+latency:.*)\s*$")


def _near(lines: list[str], start: int, end: int, context: re.Pattern[str]) -> list[str]:
    """The lines shortly above and below lines[start:end] that match `context` (a command's flag, a path)."""
    return [x.strip() for x in (*lines[max(0, start - CONTEXT_LINES):start], *lines[end:end + 10])
            if context.search(x)]


def _runs(lines: list[str], candidates: Candidates | None, kind: str, first: Callable[[str], object],
          rest: Callable[[str], object], needed: str, context: re.Pattern[str] | None = None) -> Iterator[Found]:
    """Each run of a line that `first` accepts and the lines after it that `rest` accepts, holding `needed`
    somewhere, as one BENCH_OUTPUT span, after the lines near it that match `context`."""
    for i in (scan := Scan(lines, candidates)):
        if not first(lines[i]):
            continue
        end = i + 1
        while end < len(lines) and end - i < MAX_LINES and rest(lines[end]):
            end += 1
        near = _near(lines, i, end, context) if context else []
        body = "\n".join([*near, *(x.strip() for x in lines[i:end])]) + "\n"
        if needed in body:
            yield Found(kind, i, end, document_appended(BENCH_OUTPUT.name, body))
        scan.skip(end)


@importer("sglang bench_one_batch", "SGLang bench_one_batch's Prefill / Decode / median lines",
          needles=("Warmup ...", "Benchmark ...", "latency:"),
          per_line=True)
def one_batch(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    return _runs(lines, candidates, "sglang bench_one_batch", _ONE_BATCH_LINE.match, _ONE_BATCH_LINE.match,
                 "median throughput", _BATCH_FLAG)


def _progress_line(line: str) -> bool:
    return "Processed prompts:" in line and "est. speed input:" in line  # substring tests: linear in a long line


@importer("vllm progress bar", "vLLM's offline `Processed prompts` progress bar with its est. speed",
          needles=("Processed prompts",), per_line=True)
def progress_bar(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    return _runs(lines, candidates, "vllm progress bar", _progress_line, _progress_line, "toks/s")


# TensorRT-LLM's old benchmark result lines, a Markdown quote's `> ` before them allowed: benchmarks/python/benchmark.py's
# `[BENCHMARK] model_name ... world_size ... tokens_per_sec ...` (NVIDIA/TensorRT-LLM#329) and the C++
# gptSessionBenchmark's `[BENCHMARK] batch_size N input_length N [output_length N] latency(ms) F [tokensPerSec F ...]`.
_TRTLLM_RESULT = re.compile(r"^\s*(?:>\s*)?\[BENCHMARK\] (?:model_name \S+ world_size \d+ .*\btokens_per_sec [\d.]+"
                            r"|batch_size \d+ input_length \d+ (?:output_length \d+ )?latency\(ms\) [\d.]+)")


@importer("trtllm benchmark.py result",
          "TensorRT-LLM's `[BENCHMARK] model_name ...` (benchmark.py) or `[BENCHMARK] batch_size ...` (gptSessionBenchmark)"
          " result line", needles=("[benchmark] model_name", "[benchmark] batch_size"), per_line=True)
def trtllm_benchmark(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    return _runs(lines, candidates, "trtllm benchmark.py result", _TRTLLM_RESULT.match, _TRTLLM_RESULT.match,
                 "[BENCHMARK]")


# `ollama run --verbose`'s timing summary (ollama api/types.go, Metrics.Summary), one line per key it prints:
# `total duration:       1.416382244s` ... `eval rate:            137.74 tokens/s`.
_OLLAMA_STATS = re.compile(r"^\s*(?:total duration|load duration|prompt eval count|prompt eval duration|prompt eval rate"
                           r"|eval count|eval duration|eval rate):\s+(?:[\d.]+[hm])*[\d.]+\s*(?:[mµnu]?s|token\(s\)|tokens/s)\s*$")


@importer("ollama --verbose stats", "`ollama run --verbose`'s timing summary (`eval rate: N tokens/s` and its peers)",
          needles=("duration:", "eval count:", "eval rate:"), per_line=True)
def ollama_stats(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    return _runs(lines, candidates, "ollama --verbose stats", _OLLAMA_STATS.match, _OLLAMA_STATS.match, "eval rate:")


# lmdeploy's profile_generation / profile_throughput / profile_serving result block (benchmark/*.py): from its
# `concurrency: N` line (`cocurrency:` in one release), through `first_token latency(min, max, ave): …`, to its rule.
_LMDEPLOY_FIRST = re.compile(r"^\s*co(?:n)?currency: \d+\b")
_LMDEPLOY_LINE = re.compile(rf"^\s*(?:{_KEY_VALUE}|-{{10,}})\s*$")  # its rule: `-` * 50


@importer("lmdeploy profile result", "lmdeploy's profile_generation / profile_throughput result block "
          "(`concurrency:` … `first_token latency(min, max, ave):` …)", needles=("currency: ",), per_line=True)
def lmdeploy_profile(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    return _runs(lines, candidates, "lmdeploy profile result", _LMDEPLOY_FIRST.match, _LMDEPLOY_LINE.match,
                 "first_token latency(min, max, ave):")


_GENAI_TITLE = re.compile(r"^\s*(?:NVIDIA GenAI-Perf \|\s*)?LLM Metrics\s*$")
_GENAI_LINE = re.compile(r"^\s*(?:[┏┃┡│└].*|[A-Za-z][\w ()]*\(per sec\):\s*[\d,.]+)\s*$")
# Where genai-perf's concurrency shows near its table: its command line, a `concurrency: N` line, an artifacts path.
_GENAI_CONTEXT = re.compile(r"--concurrency[= ]\s*\d+|^\s*concurrency:\s*\d+\s*$|concurrency_?\d", re.I)


@importer("genai-perf table", "NVIDIA genai-perf's LLM Metrics table, with its concurrency where shown",
          needles=("LLM Metrics",), per_line=True)
def genai_perf(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    return _runs(lines, candidates, "genai-perf table", _GENAI_TITLE.match, _GENAI_LINE.match, "LLM Metrics",
                 _GENAI_CONTEXT)


# The one-request summary lines inference scripts print: each rate line of facts/serving_rate.SCRIPT_RATES (one table
# of the shapes: exllamav2, MLC-LLM, text-generation-webui, KoboldCpp, a script's own summary), and the lines of the
# same runs that carry no rate: a script's three-line summary's first two (`Time taken for Response: 8.5787 seconds`,
# `tokens total: 696`; turboderp/exllama#231), KoboldCpp's --benchmark CSV header and the lines of its console above a
# generation's summary (facts/serving_rate.KOBOLDCPP_RUN_LINE: `Processing Prompt [BLAS] (...)`, `Generating (78 / 387
# tokens)`, the stop's `(EOS token triggered!)`), counted only in a run that holds the summary; exllama's benchmark
# lines (facts/serving_rate.EXLLAMA_LINE), counted only in a run that holds its generation rate.
_SCRIPT_RUN_LINES = (r"^\s*(?:Time taken for Response: [\d.]+ seconds|tokens total: \d+)\s*$", KOBOLDCPP_RUN_LINE.pattern,
                     r"^\s*Timestamp,Backend,Layers,Model,MaxCtx,GenAmount,ProcessingTime,ProcessingSpeed,GenerationTime,"
                     r"GenerationSpeed\b", EXLLAMA_LINE.pattern)
SCRIPT_RATE_LINES = re.compile("|".join((*(p.pattern for p, _ in SCRIPT_RATES), *_SCRIPT_RUN_LINES)))
# The script's three-line summary counts only whole: `tokens/second:` alone could be any program's.
_SCRIPT_WHOLE = re.compile(r"Time taken for Response: .*\ntokens total: .*\ntokens/second: ")


def _script_rates(body: str) -> bool:
    if KOBOLDCPP_RUN_LINE.search(body.split("\n", 1)[0]) and "CtxLimit:" not in body:
        return False  # KoboldCpp's console lines count only with the summary they lead to
    if EXLLAMA_LINE.search(body.split("\n", 1)[0]) and not EXLLAMA_RATE.search(body):
        return False  # exllama's benchmark lines count only with the generation rate they lead to
    return "tokens/second:" not in body or bool(_SCRIPT_WHOLE.search(body))


@importer("inference script rate", "an inference script's one-request summary line (exllamav2's `Response generated "
          "in …`, text-generation-webui's `Output generated in …`, KoboldCpp's --benchmark row, MLC-LLM's `decode_rate … tokens/sec` and `/stats`, a `tokens/second:` summary)",
          needles=("Response generated in", "Output generated in", "koboldcpp_", "Timestamp,Backend,", "GenerationSpeed:", "CtxLimit:", "Processing Prompt", "Generating (", "EOS token triggered", "Stop Token Triggered", "decode_rate", "prefill: ", "encode: ", "Time taken for Response",
                   "tokens total:", "tokens/second:", "-- Generating ", "** Speed:", "-- Sequence length:", "-- Loading model"),
          per_line=True)
def script_rate(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for found in _runs(lines, candidates, "inference script rate", SCRIPT_RATE_LINES.search, SCRIPT_RATE_LINES.search,
                       ""):
        if _script_rates("\n".join(x.strip() for x in lines[found.start:found.end])):
            yield found
