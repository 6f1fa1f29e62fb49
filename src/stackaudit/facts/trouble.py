"""What a pasted log shows the user fighting besides slowness: a hang (a timeout) or a failure (an error).

Fact `trouble` (Trouble): the first line of a pasted engine / NCCL log, Ray log or lines of evidence that
shows a hang, else the first that shows a failure (a CUDA that does not start, memory that runs out or a CUDA error
count, at whatever log level), with its kind and the checks that answer what it is about (ANSWERED_BY); else a hang in the user's own words
(importers/prose_trouble.py), unless they say it does not happen (`does not stuck but failes`).
A hang's line outranks a failure's, since a watchdog's timeout ends in an error too.
The report's verdict names it where no finding explains it (report/header.py `verdict`).
A setting that names a timeout (`watchdog_timeout=300`, `--watchdog-timeout`) is not a hang.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import Sourced, fact, first_of, parser
from stackaudit.facts.sources import ENGINE_LOG, EVIDENCE_LINES, RAY_LOG, USER_TROUBLE

# NCCL's and PyTorch's watchdog (`Watchdog caught collective operation timeout`), a timeout said in words.
_HANG_WORDS = r"timed out|time ?out(?![\w=-])|hangs?|hanging|stuck|deadlock(?:ed)?"
HANG = re.compile(rf"(?<![\w-])(?:{_HANG_WORDS})(?![\w-])", re.I)
# A hang as people write it: the log's words, and `hung`, `freezes`, `no response`.
USER_HANG = re.compile(rf"(?<![\w-])(?:{_HANG_WORDS}|hung|freez(?:es|ing)|no response)(?![\w-])", re.I)
# A hang said not to happen, right before its word: `does not stuck`, `doesn't hang`, `no longer hangs`, `without hanging`.
NEGATED_BEFORE = re.compile(r"(?:\b(?:not|never|no\s+longer|without)|n't)\s+(?:\w+\s+)?$", re.I)
# CUDA that does not start: the driver library's initialisation fails (ollama's `cuda driver library init failure: 3`,
# TensorFlow's `failed call to cuInit`, PyTorch's `CUDA driver initialization failed`, the driver API's error names).
CUDA_INIT = re.compile(r"\bdriver library init failure\b|\bcuInit\b.*\b(?:fail(?:ed|ure)?|error)\b"
                       r"|\bfailed call to cuInit\b|\bCUDA driver initialization failed\b"
                       r"|\bCUDA_ERROR_(?:NOT_INITIALIZED|NO_DEVICE|SYSTEM_DRIVER_MISMATCH)\b", re.I)
# GPU memory that runs out: `CUDA error: out of memory`, `CUDA out of memory`, `cudaMalloc failed: out of memory`,
# ggml's `CUDA error 2 at ...: out of memory`, and `OutOfMemoryError`.
OUT_OF_MEMORY = re.compile(r"\b(?:CUDA|cudaMalloc\w*|GPU)\b[^\n]*?\bout of memory\b|\bOutOfMemoryError\b")
# Any other CUDA error an engine reports (`CUDA error: unknown error`, `CUDA error 700`, `CUDA error: an illegal memory
# access was encountered`): the kernel log's Xid lines say what the driver saw at that moment (corpus 1324).
CUDA_ERROR = re.compile(r"\bCUDA error\b")
# The checks that answer what a failure line is about, best first: a CUDA that does not start (is the driver new
# enough for the runtime?), memory that runs out (does another process hold it?), another CUDA error (did the driver
# log an Xid?). The verdict names the first that
# judged the host (report/header.py `nothing_found`).
ANSWERED_BY: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (CUDA_INIT, ("DRV-CUDA-COMPAT",)),
    (OUT_OF_MEMORY, ("MEM-GPU-SHARED",)),
    (CUDA_ERROR, ("DRV-XID",)),
)
# Python's traceback head, a log line at ERROR or CRITICAL level, an exception's name with its message, and a Go
# log's error in its key=value form (ollama's `error="llm server error"`, and `status="llm server error"` at INFO level
# while it waits on a runner that died: corpus 1398), and NCCL's warning of a call that failed (`NCCL WARN Cuda failure
# 1 'invalid argument'`, `NCCL WARN ... failed`, corpus 1360): a warning without those words is advice, not a failure,
# and so is one that a library it may use is absent (`NCCL WARN Failed to open libibverbs.so[.1]`: no InfiniBand).
# NCCL before 2.3 wrote its warnings with the source file before ` WARN ` and no `NCCL` (facts/serving_logs.NCCL_OLD_WARN).
FAILURE = re.compile(r"Traceback \(most recent call last\)|\b(?:ERROR|CRITICAL)\b|\b\w+(?:Error|Exception): "
                     r"|\berr(?:or)?=\"[^\"]|\bstatus=\"[^\"]*\berror\""
                     r"|(?:\bNCCL WARN\b|\.(?:cu|cc|h):\d+ WARN )(?!.*\bFailed to open lib)"
                     r"(?=.*\b(?:[Ff]ailure|failed|[Ee]rror)\b)"
                     # The failures an engine logs at INFO level or in its own words (corpus 1565: ollama's `level=INFO
                     # ... msg="Unable to load cudart library ...: cuda driver library init failure: 3"`).
                     rf"|(?i:{CUDA_INIT.pattern})|{OUT_OF_MEMORY.pattern}|{CUDA_ERROR.pattern}")
# The workload on the CPU where the user wants the GPU, in the user's own words: `LocalAI using CPU instead of GPU`
# (corpus 1809), `it only uses the CPU`, `it's not using the GPU`, `CUDA remains 0%`, `the model not even being loaded
# into VRAM` (corpus 2157). What it says is that the engine does
# not compute on the GPU, not why: a container the GPU never reached, a build without CUDA, a model told to keep its
# layers on the CPU (LocalAI's `gpu_layers`, ollama's num_gpu 0).
ON_CPU = re.compile(r"\b(?:us(?:es|ing|e)|runs?|running|ran)\s+(?:on\s+)?(?:the\s+|my\s+)?CPU\s+"
                    r"(?:instead\s+of|rather\s+than|and\s+not)\s+(?:the\s+|my\s+)?GPU\b"
                    r"|\b(?:only|always)\s+(?:uses?|using|runs?\s+on|running\s+on)\s+(?:the\s+)?CPU\b"
                    r"|\bnot\s+(?:using|utili[sz]ing)\s+(?:the\s+|my\s+|any\s+)?GPU\b(?!\s+(?:enough|fully|much))"
                    r"|\b(?:GPU|CUDA)(?:\s+(?:usage|utili[sz]ation|load))?\s+(?:remains|stays)\s+(?:at\s+)?0\s?%"
                    r"|\bmodel\s+(?:is\s+|was\s+)?(?:not|never)\s+(?:even\s+)?(?:being\s+|getting\s+)?(?:loaded|offloaded)\s+"
                    r"(?:in(?:to)?|on(?:to)?|to)\s+(?:the\s+)?(?:VRAM|GPU)\b", re.I)
Kind = Literal["hang", "failure", "stall", "cpu"]


@dataclass(frozen=True)
class Trouble(Sourced):
    kind: Kind
    line: str  # the line that shows it, verbatim
    checks: tuple[str, ...] = ()  # the checks that answer what it is about (ANSWERED_BY), best first
    shows: str = ""  # what the engine's own lines show of it, in words (a stall: the prefill beside it)


def find_trouble(text: str) -> Trouble:
    """The first hang line, else the first failure line; ParseError when the text shows neither."""
    lines = text.splitlines()
    patterns: tuple[tuple[Kind, re.Pattern[str]], ...] = (("hang", HANG), ("failure", FAILURE))
    for kind, pattern in patterns:
        for line in lines:
            if m := pattern.search(line):
                checks = next((c for about, c in ANSWERED_BY if kind == "failure" and about.search(line)), ())
                return Trouble(kind, _sentence(line, m.start()), checks)
    raise ParseError("no hang or failure in the log")


def _sentence(line: str, at: int) -> str:
    """The sentence of `line` that holds position `at` (prose runs on; a log line is one sentence), at most 300
    characters."""
    start = line.rfind(". ", 0, at)
    end = line.find(". ", at)
    begin = start + 2 if start >= 0 else 0
    if at - begin > LEAD:
        # A long log line whose trouble sits far in (a Go log's `status="llm server error"` after its time, level,
        # source and message): the quote starts a word before it, so a report's cut quote still holds it.
        cut = line.rfind(" ", begin, at - LEAD // 2)
        return "…" + line[cut + 1 if cut >= 0 else at:end + 1 if end >= 0 else len(line)].strip()[:300]
    return line[begin:end + 1 if end >= 0 else len(line)].strip()[:300]


LEAD = 80  # how far into a sentence its trouble may sit before the quote starts nearer it


fact("trouble", Trouble, first_of, hint="paste the engine's log up to where it stops or fails")


@parser(ENGINE_LOG, feeds="trouble", kind=Trouble, rank=20)
def trouble_in_engine_log(text: str) -> Trouble:
    """A hang or failure line of a pasted engine / NCCL log.

    Input (tests/data/captures/314)::

        (VllmWorkerProcess pid=409) ERROR 11-19 06:08:46 multiproc_worker_utils.py:229] Traceback (most recent call last):
    """
    try:
        return find_trouble(text)
    except ParseError:
        return decode_stall(text)


# A window whose generation falls below this fraction of the log's best is a stall; a prefill beside it that runs
# at PREFILL_OVER times that best is a long prompt.
STALL_FRACTION = 0.1
PREFILL_OVER = 10


def decode_stall(text: str) -> Trouble:
    """vLLM's own metrics lines where running requests all but stop generating (below STALL_FRACTION of the log's
    highest generation throughput) in the window of a long prefill or the one before it (prompt throughput at
    PREFILL_OVER times that highest): the engine scheduled a long prompt's prefill while the running requests waited
    (corpus 1570: 0.9 tokens/s with 2 running, then 7408.7 prompt tokens/s), its scheduling, not the host's.
    ParseError where the lines show no such window.

    Input (tests/data/captures/1570)::

        (APIServer pid=1) INFO 09-07 06:35:40 [loggers.py:310] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.9 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 63.7%, Prefix cache hit rate: 85.1%
    """
    from stackaudit.facts.serving_rate import VLLM_THROUGHPUT

    windows = [(float(m.group(1)), float(m.group(2)), int(m.group(3)), line.strip()) for line in text.splitlines()
               if (m := VLLM_THROUGHPUT.search(line))]
    best = max((gen for _, gen, _, _ in windows), default=0.0)
    for i, (_, gen, running, line) in enumerate(windows):
        if running < 1 or best <= 0 or gen >= STALL_FRACTION * best:
            continue
        prefill = next((w for w in windows[i:i + 2] if w[0] >= PREFILL_OVER * best), None)
        if prefill is not None:
            shows = (f"generation at {gen:g} tokens/s with {running} running (the log's best: {best:g} tokens/s), "
                     f"beside a prefill at {prefill[0]:g} prompt tokens/s{' in the next window' if prefill[3] != line else ''}: "
                     "a long prompt prefilled beside running requests holds their decode back, the engine's "
                     "scheduling, not the host's")
            # The quote from the metrics on (the time and logger before them would crowd a cut quote).
            return Trouble("stall", _sentence(line[max(line.find("Avg prompt throughput"), 0):], 0), shows=shows)
    raise ParseError("no hang, failure or decode stall in the log")


@parser(RAY_LOG, feeds="trouble", kind=Trouble, rank=25)
def trouble_in_ray_log(text: str) -> Trouble:
    """A hang or failure line of a pasted Ray log.

    Input (tests/data/captures/65)::

        2021-03-11 01:20:22,469 INFO services.py:1251 -- View the Ray dashboard at http://127.0.0.1:8265
        ValueError                                Traceback (most recent call last)
    """
    return find_trouble(text)


@parser(EVIDENCE_LINES, feeds="trouble", kind=Trouble, rank=30)
def trouble_in_evidence_lines(text: str) -> Trouble:
    """A hang or failure line pasted on its own (an error quoted in prose).

    Input (tests/data/captures/314)::

        (VllmWorkerProcess pid=409) ERROR 11-19 06:08:46 multiproc_worker_utils.py:229] Traceback (most recent call last):
    """
    return find_trouble(text)


@parser(USER_TROUBLE, feeds="trouble", kind=Trouble, rank=90)
def trouble_in_user_words(text: str) -> Trouble:
    """A hang in the user's own words, beside an engine command or log; else the workload on the CPU in their words
    (ON_CPU), beside an engine or a container spec.

    Input (tests/data/captures/68)::

        If I disable tensor parallelism, everything works fine. However, as long as I set tensor-parallel-size > 1, it will get stuck when loading the model. The log is as follows:
    """
    lines = text.strip().splitlines()
    for line in lines:
        # The first hang the line does not negate (importers/prose_trouble.says_hang took it for that one).
        m = next((m for m in USER_HANG.finditer(line) if not NEGATED_BEFORE.search(line[:m.start()])), None)
        if m is not None:
            return Trouble("hang", _sentence(line, m.start()))
    for line in lines:
        if m := ON_CPU.search(line):
            return Trouble("cpu", _sentence(line, m.start()))
    raise ParseError("no hang, nor the workload on the CPU, in the user's words")
