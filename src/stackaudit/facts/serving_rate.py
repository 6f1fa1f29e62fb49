"""The measured single-stream decode rate the source holds (issue 29), with where it was read.

Sources, best first:
- benchmark output pasted as it printed (the document BENCH_OUTPUT): `vllm bench serve` / benchmark_serving.py
  and SGLang's bench_serving (`Maximum request concurrency: 1` — SGLang spells it `Max reqeuest concurrency:` —
  then `Mean TPOT (ms):`, else `Output token throughput (tok/s):`), and llama-bench's table (its `tg` rows are one
  stream by construction);
- the engine's own periodic log line (the document ENGINE_LOG): vLLM's `Avg prompt throughput: %.1f tokens/s, Avg
  generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs` (vllm/v1/metrics/loggers.py; v0 prints
  `Swapped:` and `Pending:`), SGLang's `Decode batch. #running-req: %d, … gen throughput (token/s): %.2f,
  #queue-req: %d` (managers/scheduler_metrics_mixin.py; v0.5.23 writes `Decode batch,`);
- llama.cpp's own `eval time = … ms / N runs ( … ms per token, … tokens per second)` line (the document ENGINE_LOG:
  llama-cli's `llama_perf_context_print:`, `llama_print_timings:` before it, the old server's `print_timings:`, and
  llama-server's bare line under `slot print_timing:`): one sequence's decode; `prompt eval time` is prefill;
- SGLang's bench_one_batch (bench_one_batch.py): its `Decode.  median latency: %6.5f s, median throughput: %9.2f
  token/s` line, used only where every `Decode N. Batch size: B` line above it says batch 1 (older versions print
  no batch size per step: then only a pasted command's `--batch-size 1`);
- genai-perf's result table: at a concurrency of 1 (its `--concurrency`, a `concurrency: N` line or an artifacts
  path `…concurrency_N`/`…concurrencyN`) 1000 / `Inter token latency (ms)` avg, else `Output token throughput (per
  sec)`; with no concurrency shown, only the per-request inter-token latency, as 1000 / ITL;
- vLLM's offline progress bar (vllm/entrypoints/llm.py: `Processed prompts` with the postfix `est. speed input:
  %.2f toks/s, output: %.2f toks/s`) at 1/1, one prompt;
- `ollama run --verbose`'s timing summary: its `eval rate:` (one request's decode; `prompt eval rate:` is prefill);
- an inference script's one-request summary (SCRIPT_RATES): MLC-LLM's benchmark.py `decode_rate` and mlc_chat's
  `/stats` `decode:` (decode alone), exllamav2's example `Response generated in …, N tokens, R tokens/second`,
  text-generation-webui's `Output generated in … (R tokens/s, …)` and a script's `tokens/second:` summary (tokens over
  the whole response: prefill included);
- last, a rate in the user's own words (`around 10 t/s`, `~12 tok/s`) in a paste that also holds an engine command
  or engine log (the document USER_RATE; importers/prose_rate.py records it only then).

A line is a single-stream rate only where it shows one running request, and a window with prefill in it is dropped
(vLLM: prompt throughput above 0; SGLang: a `Prefill batch.` line since the decode line before). vLLM's requests
waiting are queued, not decoded (corpus 1117: `Running: 1 reqs, Waiting: 1 reqs` at a prompt throughput of 0 is one
stream); SGLang's line is read only with none queued, as its window holds no prompt throughput to show a prefill. Lines most of which lie far from their median (NEAR_MEDIAN) are several runs and give no rate. A benchmark at a concurrency above 1 measures something else and is not used. Speculative decoding
(vLLM `SpecDecoding metrics:`, SGLang `accept len:`) is noted: the rate may then exceed the one-token ceiling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import fact, first_of, parser
from stackaudit.facts.sources import BENCH_OUTPUT, ENGINE_LOG, USER_RATE

MAX_RATE = 1e6  # tokens/s: a larger figure in a paste is not a decode rate
# One engine decoding one request logs nearly the same rate window after window (corpus 677: 123.8 and 124.5; 509: five
# of seven lines within 1 % of their median, a window after the batch fell from two requests at 334). The median stands
# for the lines only where most of them lie within this fraction of it; else they are several runs quoted together
# (corpus 689: 31.4 tok/s with --enforce-eager, 57.8 without), and no one figure is the engine's rate.
NEAR_MEDIAN = 0.2
USER_WORDS = "the user's own words"  # the source of a rate read from prose, the last of all (after bench history)


@dataclass(frozen=True)
class MeasuredRate:
    tokens_per_s: float
    source: str  # what the rate was read from, as the report names it
    line: str = ""  # the verbatim line (the first of those used)
    samples: int = 1
    speculative: bool = False

    @property
    def on_cuda(self) -> bool:
        """Whether the rate is a llama-bench row run on ggml's CUDA backend (a `backend` cell naming CUDA, alone or
        beside BLAS: `CUDA`, `CUDA,BLAS`)."""
        return self.source == LLAMA_BENCH_SOURCE and any(
            "CUDA" in cell.strip().split(",") for cell in self.line.split("|"))


fact("serving_rate", MeasuredRate, first_of,
     hint="paste the engine's log while one request decodes, or `vllm bench serve --max-concurrency 1` output")

VLLM_THROUGHPUT = re.compile(r"Avg prompt throughput:\s*([\d.]+) tokens/s, Avg generation throughput:\s*([\d.]+) tokens/s, "
                   r"Running:\s*(\d+) reqs?, (?:Swapped:\s*\d+ reqs?, Pending|Waiting):\s*(\d+) reqs?")
# llama.cpp's decode timing: `llama_perf_context_print:        eval time =  2226.40 ms /   127 runs   (   17.53 ms per
# token,    57.04 tokens per second)` (llama-cli, one sequence; `llama_print_timings:` and the old server's
# `print_timings:` before it), and llama-server's `       eval time = ... / 275 tokens (...)` under `slot print_timing:`
# (one request's). `prompt eval time` is prefill and is not read.
_LLAMA_EVAL = re.compile(r"^\s*(?:\w+:\s+)?eval time =\s+[\d.]+ ms /\s+\d+ (?:runs|tokens)\s+\(\s*[\d.]+ ms per token,"
                         r"\s+([\d.]+) tokens per second\)")
SGLANG_DECODE = re.compile(r"Decode batch[.,].*?#running-req:\s*(\d+),.*?gen throughput \(token/s\):\s*([\d.]+),"
                           r"\s*#queue-req:\s*(\d+)")


def _rate(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < MAX_RATE else None


def _most_agree(rates: list[float]) -> bool:
    """Whether most of the rates lie within NEAR_MEDIAN of their median (one run's windows, not several runs')."""
    import statistics

    middle = statistics.median(rates)
    return 2 * sum(abs(r - middle) <= NEAR_MEDIAN * middle for r in rates) > len(rates)


def _summary(values: list[float], lines: list[str], what: str, speculative: bool) -> MeasuredRate:
    import statistics  # with decimal and fractions: imported only when a source holds rates

    rate = statistics.median(values)
    many = f", the median of {len(values)} lines" if len(values) > 1 else ""
    return MeasuredRate(round(rate, 2), f"{what}{many}", lines[0][:300], len(values), speculative)


def parse_engine_rate(text: str) -> MeasuredRate:
    """The single-stream rate of the engine's own throughput lines; ParseError when none shows one stream."""
    vllm: list[tuple[float, str]] = []
    sglang: list[tuple[float, str]] = []
    llama: list[tuple[float, str]] = []
    prefill_since = False
    speculative = False
    for raw in text.splitlines():
        line = raw.strip()
        if "SpecDecoding metrics" in line or "accept len:" in line:
            speculative = True
        if "Prefill batch" in line:
            prefill_since = True
            continue
        if "eval time =" in line and "prompt eval" not in line:
            m = _LLAMA_EVAL.match(line)
            rate = _rate(m.group(1)) if m else None
            if m and rate:
                llama.append((rate, line))
            continue
        if "generation throughput" in line:
            m = VLLM_THROUGHPUT.search(line)
            rate = _rate(m.group(2)) if m else None
            # Requests waiting are queued, not decoding: a window with one running and no prefill is one stream's.
            if m and rate and int(m.group(3)) == 1 and float(m.group(1)) == 0:
                vllm.append((rate, line))
        elif "gen throughput" in line:
            m = SGLANG_DECODE.search(line)
            rate = _rate(m.group(2)) if m else None
            if m and rate and int(m.group(1)) == 1 and int(m.group(3)) == 0 and not prefill_since:
                sglang.append((rate, line))
            prefill_since = False
    for rates in ([r for r, _ in vllm], [r for r, _ in sglang]):
        if rates and not _most_agree(rates):
            raise ParseError(f"the single-stream lines disagree ({min(rates)} to {max(rates)} tokens/s): several runs, "
                             "no one rate")
    if vllm:
        return _summary([r for r, _ in vllm], [ln for _, ln in vllm],
                        "vLLM's log: Avg generation throughput at Running: 1 reqs", speculative)
    if sglang:
        return _summary([r for r, _ in sglang], [ln for _, ln in sglang],
                        "SGLang's log: gen throughput at #running-req: 1", speculative)
    if llama:
        return _summary([r for r, _ in llama], [ln for _, ln in llama], "llama.cpp's eval time line (one sequence)",
                        speculative)
    raise ParseError("no engine throughput line with one running request and no prefill")


@parser(ENGINE_LOG, feeds="serving_rate", kind=MeasuredRate, rank=20)
def serving_rate_from_log(text: str) -> MeasuredRate:
    """The single-stream decode rate in the engine's own throughput log lines (vLLM, SGLang, llama.cpp's eval time).

    Input (https://github.com/vllm-project/vllm/issues/12314, the issue body by HuXinjing)::

        INFO 01-22 18:27:20 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 41.7 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 2.0%, CPU KV cache usage: 0.0%.
        INFO 01-22 18:27:25 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 41.7 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 2.1%, CPU KV cache usage: 0.0%.
    """
    return parse_engine_rate(text)


_CONCURRENCY = re.compile(r"^\s*Max(?:imum)? re(?:qu|qeu)est concurrency:\s*(\S+)", re.M)
_TPOT = re.compile(r"^\s*Mean TPOT \(ms\):\s*([\d.]+)", re.M)
_OUTPUT = re.compile(r"^\s*Output token throughput \(tok/s\):\s*([\d.]+)", re.M)
LLAMA_BENCH_SOURCE = "llama-bench: its tg row"
_LLAMA_BENCH_TG = re.compile(r"^\s*\|.*\|\s*tg ?\d+(?:\s*@\s*d\d+)?\s*\|\s*([\d.]+)\s*±\s*[\d.]+\s*\|\s*$", re.M)


def parse_bench_rate(text: str) -> MeasuredRate:
    """The single-stream decode rate in pasted benchmark output; ParseError when it measured no single stream."""
    tg = _LLAMA_BENCH_TG.search(text)
    if tg and (rate := _rate(tg.group(1))):
        return MeasuredRate(rate, LLAMA_BENCH_SOURCE, tg.group(0).strip())
    conc = _CONCURRENCY.search(text)
    if conc is None or conc.group(1) != "1":
        raise ParseError("the benchmark did not run one request at a time (`--max-concurrency 1`)")
    found = _per_token_or_output(_TPOT.search(text), _OUTPUT.search(text), "a serving benchmark at concurrency 1")
    if found is None:
        raise ParseError("no TPOT or output throughput in the benchmark output")
    return found


def _per_token_or_output(per_token: re.Match[str] | None, output: re.Match[str] | None, what: str,
                         how: str = "Mean TPOT") -> MeasuredRate | None:
    """1000 / the per-token latency (ms) where the benchmark shows one, else its output throughput (prefill
    included); `what` names the benchmark and its concurrency, `how` the latency's row."""
    if per_token and (ms := _rate(per_token.group(1).replace(",", ""))):
        return MeasuredRate(round(1000.0 / ms, 2), f"{what}: 1000 / {how}", per_token.group(0).strip())
    if output and (rate := _rate(output.group(1).replace(",", ""))):
        return MeasuredRate(rate, f"{what}: Output token throughput, prefill included", output.group(0).strip())
    return None


@parser(BENCH_OUTPUT, feeds="serving_rate", kind=MeasuredRate, rank=10)
def serving_rate_from_bench(text: str) -> MeasuredRate:
    """The single-stream decode rate a pasted benchmark measured (vllm bench serve, bench_serving, llama-bench).

    Input (https://github.com/ggml-org/llama.cpp/pull/7199, the description by slaren, two of its three rows)::

        | model                          |       size |     params | backend    | ngl |         fa |          test |              t/s |
        | ------------------------------ | ---------: | ---------: | ---------- | --: | ---------: | ------------: | ---------------: |
        | llama 7B Q4_0                  |   3.56 GiB |     6.74 B | CUDA       |  99 |          1 |         pp512 | 4918.36 ± 132.23 |
        | llama 7B Q4_0                  |   3.56 GiB |     6.74 B | CUDA       |  99 |          1 |         tg128 |    165.76 ± 1.50 |
    """
    return parse_bench_rate(text)


_ONE_BATCH_STEP = re.compile(r"^\s*Decode \d+\. Batch size: (\d+),", re.M)
_BATCH_FLAG = re.compile(r"--batch-size[= ][ \t]*((?:\d+[ \t]*)+)")
_ONE_BATCH_MEDIAN = re.compile(r"^\s*Decode\.\s+median latency:\s*[\d.]+ s, median throughput:\s*([\d.]+) token/s",
                               re.M)


def parse_one_batch_rate(text: str) -> MeasuredRate:
    """SGLang bench_one_batch's median decode throughput at batch size 1; ParseError at any other batch size."""
    medians: list[tuple[float, str]] = []
    # Older versions print `Decode.  latency:` with no batch size: then only the command's `--batch-size` tells.
    flagged = {int(b) for f in _BATCH_FLAG.findall(text) for b in f.split()}
    start = 0
    for m in _ONE_BATCH_MEDIAN.finditer(text):
        sizes = {int(b) for b in _ONE_BATCH_STEP.findall(text, start, m.start())} or flagged
        start = m.end()
        if sizes == {1} and (rate := _rate(m.group(1))):
            medians.append((rate, m.group(0).strip()))
    if not medians:
        raise ParseError("no bench_one_batch decode median at batch size 1")
    # The last median is the `Benchmark ...` run (the first is its warmup).
    rate, line = medians[-1]
    return MeasuredRate(rate, "SGLang bench_one_batch at batch size 1: Decode median throughput", line)


@parser(BENCH_OUTPUT, feeds="serving_rate", kind=MeasuredRate, rank=11)
def serving_rate_from_one_batch(text: str) -> MeasuredRate:
    """The decode rate of SGLang's bench_one_batch at batch size 1.

    Input (https://github.com/sgl-project/sglang/pull/30147, the comment by LarrySimingDeng, its last lines)::

        Decode 3. Batch size: 1, latency: 0.00568 s, throughput:    175.91 token/s
        Decode 4. Batch size: 1, latency: 0.00589 s, throughput:    169.70 token/s
        Decode.  median latency: 0.00572 s, median throughput:    174.85 token/s
        Total. latency:  0.062 s, throughput:   1122.76 token/s
    """
    return parse_one_batch_rate(text)


_GENAI_CONCURRENCY = re.compile(r"--concurrency[= ]\s*(\d+)|^\s*concurrency:\s*(\d+)\s*$|concurrency_?(\d+)(?!\d)",
                                re.M | re.I)
_GENAI_ROW = r"^[\s│|]*{label}\s*[│|:]\s*([\d,.]+)"
_GENAI_ITL = re.compile(_GENAI_ROW.format(label=r"Inter token latency \(ms\)"), re.M | re.I)
_GENAI_OUTPUT = re.compile(_GENAI_ROW.format(label=r"Output token throughput \(per sec\)"), re.M | re.I)


def parse_genai_perf_rate(text: str) -> MeasuredRate:
    """The single-stream rate of a genai-perf result table; ParseError at a concurrency above 1."""
    if "genai-perf" not in text.lower() and "llm metrics" not in text.lower():
        raise ParseError("no genai-perf result table")
    shown = {int(next(g for g in m.groups() if g)) for m in _GENAI_CONCURRENCY.finditer(text)}
    if shown and shown != {1}:
        raise ParseError(f"genai-perf ran at concurrency {max(shown)}, not one request at a time")
    # With no concurrency shown, the output throughput may be many streams' sum: only the per-request ITL is one.
    what = "genai-perf at concurrency 1" if shown else "genai-perf, concurrency not shown, the per-request ITL"
    rate = _per_token_or_output(_GENAI_ITL.search(text), _GENAI_OUTPUT.search(text) if shown else None, what,
                                "Inter token latency avg")
    if rate is None:
        raise ParseError("genai-perf: no inter-token latency, and no output throughput at concurrency 1")
    return rate


@parser(BENCH_OUTPUT, feeds="serving_rate", kind=MeasuredRate, rank=12)
def serving_rate_from_genai_perf(text: str) -> MeasuredRate:
    """The single-stream rate of a genai-perf result table (concurrency 1, or 1000 / ITL).

    Input (https://github.com/triton-inference-server/client/issues/779, the issue body by upskyy, four of its lines)::

        concurrency: 1
                                                LLM Metrics
        Output token throughput (per sec): 26.37
        Request throughput (per sec): 0.26
    """
    return parse_genai_perf_rate(text)


# Bounded gaps (a bar is a terminal's width): a long line of repeated `Processed prompts` stays linear.
_PROGRESS = re.compile(r"Processed prompts:\s*100%[^\n]{0,300}?\|\s*(\d+)/(\d+) \[[^\]\n]{0,200}?est\. speed input:\s*"
                       r"[\d.]+ toks/s, output:\s*([\d.]+) toks/s\]")


def parse_progress_rate(text: str) -> MeasuredRate:
    """The output speed of vLLM's offline progress bar at 1/1 prompts; ParseError for more prompts."""
    done = [m for m in _PROGRESS.finditer(text) if m.group(1) == m.group(2)]
    if not done:
        raise ParseError("no finished `Processed prompts` progress bar")
    last = done[-1]
    if last.group(2) != "1" or not (rate := _rate(last.group(3))):
        raise ParseError(f"the progress bar ran {last.group(2)} prompts, not one")
    return MeasuredRate(rate, "vLLM's offline progress bar at 1/1 prompts: output toks/s, prefill included",
                        last.group(0).strip())


@parser(BENCH_OUTPUT, feeds="serving_rate", kind=MeasuredRate, rank=13)
def serving_rate_from_progress(text: str) -> MeasuredRate:
    """The output speed of vLLM's offline progress bar for one prompt.

    Input (https://github.com/flashserve/RAGPulse/blob/99a62769a91d5ebd17a2d4ddbbc88c1d16edc0e8/example/single_local_instance/README.md, its sample run)::

        Sent request 5/5 at time 8.00s
        Processed prompts: 100%|█| 1/1 [00:07<00:00, 7.05s/it, est. speed input: 434.76 toks/s, output: 42.58 toks/s]
    """
    return parse_progress_rate(text)


# `ollama run --verbose`'s decode rate (api/types.go, Metrics.Summary): `eval rate:            137.74 tokens/s`, one
# request's eval count over its eval duration; `prompt eval rate:` is prefill and is not read.
_OLLAMA_EVAL_RATE = re.compile(r"^\s*eval rate:\s+([\d.]+) tokens/s\s*$", re.M)
# How the rate's source names it; facts/cuda_ran.py tells ollama's own decode by it.
OLLAMA_VERBOSE = "ollama run --verbose"
# How the rate's source names exllamav2's example line (facts/cuda_ran.py tells exllamav2's decode by it).
EXLLAMAV2_EXAMPLE = "exllamav2's examples/inference.py"
# exllama's (v1) benchmark script, test_benchmark_inference.py with `-p`: after its load and first-pass lines it prints
# `-- Generating 128 tokens...` (`-- Generating 128 tokens, 1920 token prompt...` in later releases) and under it the
# rate of those tokens generated one at a time for one sequence, `** Speed: 15.56 tokens/second`
# (turboderp/exllama#3, #6, #29; corpus 1869). The first pass's `** Speed:` (the whole prompt at once) is not read.
EXLLAMA_BENCHMARK = "exllama's test_benchmark_inference.py"
EXLLAMA_RATE = re.compile(r"^[ \t]*-- Generating \d+ tokens\b[^\n]*\n[ \t]*\*\* Speed: ([\d.]+) tokens/second[ \t]*$", re.M)
# Its other lines (` -- Sequence length: 2048`, ` ** VRAM, Model: [cuda:0] 6,683.17 MB - [cuda:1] 0.00 MB`), which
# importers/bench_output records with the rate.
EXLLAMA_LINE = re.compile(r"^\s*(?:-- (?:Loading model|Tokenizer|Model config|Model|Sequence length|Tuning|Options|"
                          r"Groupsize|Act-order|Warmup pass|Inference, first pass|Generating \d+ tokens|Loading dataset|"
                          r"Testing)\b|-- --\w+: |\*\* (?:Time, [\w ]+|VRAM, \w+|Speed|Perplexity):)")
# The sources whose kernels run only on a GPU (exllama and exllamav2 have no CPU path): facts/cuda_ran and
# facts/engines_shown tell them by these.
EXLLAMA_SOURCES = (EXLLAMAV2_EXAMPLE, EXLLAMA_BENCHMARK)
# KoboldCpp's `--benchmark` writes one CSV row per run (koboldcpp.py, under its header `Timestamp,Backend,Layers,Model,
# MaxCtx,GenAmount,ProcessingTime,ProcessingSpeed,GenerationTime,GenerationSpeed,TotalTime,Output,Flags`): the backend
# library it loaded (`koboldcpp_cublas.dll`: CUDA; `.so` on Linux), the GPU layers it was given, and the generation
# speed of its GenAmount tokens after a full context's prompt (decode alone, one request). Corpus 1331. Later releases
# print the same run as `key: value` lines after `Benchmark Completed - v1.78 Results:` (`GenerationSpeed: 4.30T/s`),
# and every generation ends on its summary line (`CtxLimit:16384/16384, Amt:100/100, Init:0.07s, Process:21.22s
# (1.3ms/T = 767.28T/s), Generate:23.24s (232.4ms/T = 4.30T/s), Total:44.46s (2.25T/s)`, its Generate part the decode
# alone; LostRuins/koboldcpp#1266). Each rate's source starts with KOBOLDCPP (facts/engines_shown reads it as llama.cpp's
# library at work).
KOBOLDCPP = "KoboldCpp's"
KOBOLDCPP_BENCHMARK = f"{KOBOLDCPP} --benchmark row"
KOBOLDCPP_BENCH_ROW = re.compile(
    r"^\s*\d{4}-\d\d-\d\d [\d:.]+(?:[+-]\d\d:\d\d)?,(?P<backend>koboldcpp_\w+)\.(?:dll|so|dylib),(?P<layers>-?\d+),"
    r"[^,\n]*,\d+,\d+,[\d.]+,[\d.]+,[\d.]+,(?P<rate>[\d.]+),[\d.]+", re.M)

# KoboldCpp's generation summary line (CtxLimit ... Generate: ... T/s). Releases before its `Amt:` field (1.6x, May 2024)
# print the run above it: `Processing Prompt [BLAS] (1676 / 1676 tokens)`, `Generating (78 / 387 tokens)` (tokens
# generated of those asked for), the stop that ended it early (`(EOS token triggered!)`, `(Special Stop Token Triggered!
# ID:128009)`), then `CtxLimit: 1754/8192, Process:25.05s (14.9ms/T = 66.89T/s), Generate:59.05s (152.6ms/T = 6.55T/s),
# Total:84.11s (4.60T/s)`, whose Generate rate divides the time by the tokens asked for, not those generated: its
# maintainer took it for a reporting bug and fixed it (LostRuins/koboldcpp#852, corpus 1564). The rate read is then the
# generated tokens over the Generate time.
KOBOLDCPP_SUMMARY = re.compile(r"\bCtxLimit: ?\d+/\d+, (?:Amt: ?\d+/\d+, ?)?.*?\bGenerate: ?(?P<kobold_secs>[\d.]+)s "
                               r"\([\d.]+ms/T = (?P<kobold_rate>[\d.]+) ?T/s\)")
KOBOLDCPP_RUN_LINE = re.compile(r"^\s*(?:Processing Prompt(?: \[\w+\])? \(\d+ / \d+ tokens\)|Generating \(\d+ / \d+ tokens\)|"
                                r"\((?:EOS token triggered!|Special Stop Token Triggered! ID:\d+)\))\s*$")
_KOBOLDCPP_GENERATING = re.compile(r"^\s*Generating \((\d+) / (\d+) tokens\)", re.M)


def _koboldcpp_generated(text: str, m: re.Match[str]) -> tuple[float, str] | None:
    """The rate of a KoboldCpp summary line without `Amt:` over the tokens its run generated, where the `Generating (N /
    M tokens)` line above it shows fewer generated than asked for (KOBOLDCPP_SUMMARY), with the words saying so; None
    otherwise."""
    if "Amt:" in m.group(0):
        return None
    above = list(_KOBOLDCPP_GENERATING.finditer(text, 0, m.start()))
    if not above:
        return None
    generated, asked = int(above[-1].group(1)), int(above[-1].group(2))
    secs = _rate(m.group("kobold_secs"))
    if not secs or not 0 < generated < asked:
        return None
    rate = _rate(f"{generated / secs:.4f}")
    if rate is None:
        return None
    return rate, (f"{KOBOLDCPP} generation line: {generated} tokens generated over its Generate time (the line's own "
                  f"{m.group('kobold_rate')} T/s divides by the {asked} asked for; one request, decode alone)")


def parse_ollama_stats_rate(text: str) -> MeasuredRate:
    """The decode rate of `ollama run --verbose`'s summaries (the median of several); ParseError without one."""
    found = [(rate, m.group(0).strip()) for m in _OLLAMA_EVAL_RATE.finditer(text) if (rate := _rate(m.group(1)))]
    if not found:
        raise ParseError("no `eval rate:` line of `ollama run --verbose`")
    return _summary([r for r, _ in found], [ln for _, ln in found], f"{OLLAMA_VERBOSE}: eval rate (one request)",
                    False)


@parser(BENCH_OUTPUT, feeds="serving_rate", kind=MeasuredRate, rank=14)
def serving_rate_from_ollama_stats(text: str) -> MeasuredRate:
    """The decode rate in `ollama run --verbose`'s timing summary.

    Input (https://github.com/ollama/ollama/issues/3841, a maintainer's comment, its last lines)::

        eval count:           168 token(s)
        eval duration:        1.219709s
        eval rate:            137.74 tokens/s
    """
    return parse_ollama_stats_rate(text)


# An inference script's one-request summary line (importers/bench_output.SCRIPT_RATE_LINES records these lines): per
# shape, the pattern whose group 1 (or its group named `rate`) is the rate and what the report calls its source. One
# request at a time by construction: each script generates one sequence and divides its tokens by its time.
SCRIPT_RATES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bdecode_time [\d.]+ sec, decode_rate ([\d.]+) tokens/sec"),
     "MLC-LLM's benchmark.py: decode_rate (one request)"),
    (re.compile(r"^\s*(?:Statistics:\s*)?(?:prefill|encode): [\d.]+ tok/s, decode: ([\d.]+) tok/s", re.M),
     "MLC-LLM's chat stats: decode (one request)"),
    (re.compile(r"^\s*(?:-- )?Response generated in [\d.]+ seconds, \d+ tokens, ([\d.]+) tokens/second", re.M),
     f"{EXLLAMAV2_EXAMPLE}: tokens over the response's time (one request, prefill included)"),
    (re.compile(r"\bOutput generated in [\d.]+ seconds \(([\d.]+) tokens/s, \d+ tokens, context \d+"),
     "text-generation-webui's reply line: new tokens over the reply's time (one request, prefill included)"),
    (re.compile(r"^\s*tokens/second: ([\d.]+)\s*$", re.M),
     "a script's tokens/second summary (one request, prefill included)"),
    (EXLLAMA_RATE, f"{EXLLAMA_BENCHMARK}: generated tokens over their time (one sequence, decode alone)"),
    (KOBOLDCPP_BENCH_ROW, f"{KOBOLDCPP_BENCHMARK}: GenerationSpeed (one request, decode alone)"),
    (re.compile(r"^\s*GenerationSpeed: ([\d.]+) ?T/s\s*$", re.M),
     f"{KOBOLDCPP} benchmark results: GenerationSpeed (one request, decode alone)"),
    (KOBOLDCPP_SUMMARY, f"{KOBOLDCPP} generation line: Generate (one request, decode alone)"),
)


def parse_script_rate(text: str) -> MeasuredRate:
    """The rate of an inference script's one-request summary lines (the median of several); ParseError without one."""
    for pattern, what in SCRIPT_RATES:
        group = next((g for g in ("rate", "kobold_rate") if g in pattern.groupindex), 1)
        found = [(rate, m.group(0).strip()) for m in pattern.finditer(text) if (rate := _rate(m.group(group)))]
        if pattern is KOBOLDCPP_SUMMARY:
            counted = [c for m in pattern.finditer(text) if (c := _koboldcpp_generated(text, m))]
            if counted and len(counted) == len(found):
                found = [(rate, line) for (rate, _), (_, line) in zip(counted, found, strict=True)]
                what = counted[0][1]
        if found:
            rates = [r for r, _ in found]
            if not _most_agree(rates):
                raise ParseError(f"the summary lines disagree ({min(rates)} to {max(rates)} tokens/s): several runs")
            return _summary(rates, [ln for _, ln in found], what, False)
    raise ParseError("no inference script's summary rate")


@parser(BENCH_OUTPUT, feeds="serving_rate", kind=MeasuredRate, rank=15)
def serving_rate_from_script(text: str) -> MeasuredRate:
    """The rate of an inference script's one-request summary (MLC-LLM's benchmark.py, exllamav2's example).

    Input (https://github.com/dusty-nv/jetson-containers/issues/412, the issue body by whk6688)::

        /data/models/mlc/dist/Llama-2-7b-chat-hf-q4f16_ft/params:  input=16 output=128 prefill_time 0.081 sec, prefill_rate 197.0 tokens/sec, decode_time 6.632 sec, decode_rate 19.3 tokens/sec
    """
    return parse_script_rate(text)


# A rate as people write it: `around 10 t/s`, `~12 tok/s`, `getting 8 tokens/s`, `10.36 tok/s`. A range (`20-25
# tokens/s`) is not one rate.
PROSE_RATE = re.compile(r"(?<![\d.\-–])(\d{1,6}(?:\.\d+)?)\s*(?:t/s|toks?/s(?:ec)?|tokens?/s(?:ec)?|tokens? per second|tps)\b",
                        re.I)
_CUE = re.compile(r"(?:around|about|approx(?:imately)?|roughly|only|getting|get|got|seeing|see|at|~|≈)\s*$", re.I)


def parse_prose_rate(text: str) -> MeasuredRate:
    """The one rate the user's own words give; ParseError when they give none or several."""
    first: dict[tuple[float, bool], str] = {}  # per (rate, cued): the first line that says it
    for line in text.splitlines():
        for m in PROSE_RATE.finditer(line):
            if rate := _rate(m.group(1)):
                key = (rate, bool(_CUE.search(line[max(0, m.start() - 16):m.start()])))
                if key not in first:
                    first[key] = line.strip()[:300]
    said = {r: ln for (r, c), ln in first.items() if c} or {r: ln for (r, _), ln in first.items()}
    if not said:
        raise ParseError("no rate in the user's words")
    if len(said) > 1:
        raise ParseError("the user's words give several rates")
    rate, line = next(iter(said.items()))
    return MeasuredRate(rate, USER_WORDS, line)


@parser(USER_RATE, feeds="serving_rate", kind=MeasuredRate, rank=90)
def serving_rate_from_prose(text: str) -> MeasuredRate:
    """A rate in the user's own words beside an engine command or log (the last source).

    Input (https://github.com/vllm-project/vllm/issues/30832, the issue body by lisp2025)::

        The output tokens is 30 tokens/s 1/req which is slower than excpted
    """
    return parse_prose_rate(text)
