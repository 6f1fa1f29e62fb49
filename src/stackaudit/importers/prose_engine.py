"""The serving engine in the user's own words: a sentence that names ollama, llama.cpp, vLLM, SGLang, TensorRT-LLM or
PyTorch (`ollama seems to only use 1 nvidia gpu`).

Recorded as the pasted document USER_ENGINES (facts/sources.py), the line verbatim; facts/engine_command.py reads it
as the weakest source of the engines a paste shows (facts/applicability.engine_shown_other).
Its spans yield to every other recogniser's (a fallback kind): a command, a log or a table that names an engine is
theirs. A line of evidence (an error quoted in prose) is left to the evidence reader, and a log line (a server's, or
a container's behind its compose prefix) is not the user's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.engine_command import stated_engines
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.sources import USER_ENGINES
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.evidence import is_evidence
from stackaudit.importers.registry import Found, document_appended, importer

# A container's log line behind its compose prefix (`llama-cpp    | llm_load_tensors: ...`): the service's name, not
# the user's words; the view peels one such prefix, not one under another (a kubelet's).
_COMPOSE_LOG = re.compile(r"^[\w.-]+\s+\|\s")
MAX_LINES = 20  # sentences read from one paste; past a few, the paste is a log or a listing

# The words of facts/engine_command.STATED_ENGINE_WORDS that every match holds (case ignored).
_NEEDLES = ("ollama", "llama", "vllm", "sglang", "tensorrt", "trt", "torch", "transformers", "diffusers", "comfyui",
            "deepspeed", "exllama", "lmdeploy", "aphrodite", "text-generation-inference", "tgi")


@importer("prose engine", "the serving engine in the user's words ('ollama seems to only use 1 nvidia gpu')",
          needles=_NEEDLES, per_line=True, fallback=True)
def prose_engine(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if len(line) > 2000 or not stated_engines(line) or is_evidence(line) or is_log_line(line) \
                or _COMPOSE_LOG.match(line):
            continue
        yield Found("prose engine", i, i + 1, document_appended(USER_ENGINES.name, line.strip() + "\n"))
        taken += 1
        if taken == MAX_LINES:
            return
