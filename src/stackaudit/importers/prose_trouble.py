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
The workload on the CPU where the user wants the GPU (facts/trouble.ON_CPU: `LocalAI using CPU instead of GPU`, corpus
1809) is recorded too, its first sentence, where the paste also holds an engine, a workload or a container's GPU request
(GPU_REQUEST: compose's `capabilities: [gpu]`, `--gpus`, `nvidia.com/gpu`, the nvidia runtime). Its reader reads the
user's words only: its spans yield to every other recogniser's (`words=True`), and alone they leave a paste unrecognised.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.engine_command import stated_engines
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.sources import USER_TROUBLE
from stackaudit.facts.trouble import NEGATED_BEFORE, ON_CPU, USER_HANG
from stackaudit.importers._scan import Candidates, candidate_lines, engine_beside
from stackaudit.importers.prose_engine import is_sentence
from stackaudit.importers.registry import Found, document_appended, importer
from stackaudit.importers.system import is_kernel_log_line

# A GPU workload besides the engines (facts/engine_command.STATED_ENGINE_WORDS): NCCL and its tests' binaries
# (`all_reduce_perf`), PyTorch's distributed launchers and DDP.
WORKLOAD = re.compile(r"\bnccl|\b[a-z]+(?:_[a-z]+)*_perf\b|\bDDP\b|\btorchrun\b|\btorch\.distributed\b", re.I)
# A container's GPU request as a spec writes it: compose's device reservation (`capabilities: [gpu]`), `--gpus`, a pod's
# `nvidia.com/gpu`, the nvidia runtime (`runtime: nvidia`, `--runtime=nvidia`).
GPU_REQUEST = re.compile(r"capabilities:\s*\[[^\]]*\bgpu\b|--gpus[=\s]|\bnvidia\.com/gpu\b|\bruntime:\s*nvidia\b"
                         r"|--runtime[=\s]+nvidia\b", re.I)


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


@importer("prose cpu", "the workload on the CPU instead of the GPU in the user's words ('using CPU instead of GPU') "
          "beside an engine, a workload or a container's GPU request", needles=("CPU", "GPU", "VRAM"), per_line=True,
          words=True)
def prose_on_cpu(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    beside: bool | None = None  # an engine, a workload or a GPU request in the paste, looked for once
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if not ON_CPU.search(line) or not is_sentence(line) or is_log_line(line) or is_kernel_log_line(line):
            continue
        if beside is None:
            beside = engine_beside(lines) or _workload_named(lines) or any(GPU_REQUEST.search(x) for x in lines)
        if not beside:
            return
        yield Found("prose cpu", i, i + 1, document_appended(USER_TROUBLE.name, line.strip() + "\n"))
        return  # the first line says it
