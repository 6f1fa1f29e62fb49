"""The serving engine in the user's own words: a sentence that names ollama, llama.cpp, vLLM, SGLang, TensorRT-LLM or
PyTorch (`ollama seems to only use 1 nvidia gpu`), or says the model runs with tensor parallelism (`the tensor
parallelism does not work at all`: facts/engine_command.STATED_SPLIT).
A sentence that says the program whose output is pasted ran in a container (`Ollama container logs`, `I can't get the
docker image to run anything nvidia`: facts/container.STATED_CONTAINER_WORDS) is recorded the same way, and so is one,
however short, that says the user started the engine's server from their own shell (`ran `ollama serve``:
facts/container.STATED_HOST_WORDS), or ticks TGI's issue form's `The CLI directly` box beside an empty Docker box
(facts/container.form_cli_directly), and one that names a custom all-reduce switch the run has (`After adding
--enable-p2p-check, why is ... slower`: facts/engine_command.stated_switches), and one that says the job runs on two
nodes or more (`NCCL all_reduce on 2 nodes dropped ...`: facts/engine_command.stated_nodes), and one that gives a run's
TP size (`with SGLang TP4 serving ...`, a list's `- **Config:** TP=8, DCP=1, ...`: facts/engine_command.stated_tp).
An environment list's line that names an engine with its release (`Koboldcpp version: 1.99.4`: LISTED_ENGINE_RELEASE)
is recorded too: a label too short for a sentence that still states the engine the user runs, as is a list's
engine line (`- Engine: vLLM Docker image ...`: LISTED_ENGINE_LABEL). So is a requirement or
`pip freeze` line of an engine's package (`vllm==0.2.7`, `vllm @ git+https://...`: PIP_ENGINE_LINE).

Recorded as the pasted document USER_ENGINES (facts/sources.py), the line verbatim; facts/engine_command.py reads it
as the weakest source of the engines a paste shows (facts/applicability.engine_shown_other).
It reads the user's words only: its spans yield to every other recogniser's (`words=True`), and alone they leave a
paste unrecognised.
A line another reader's kind could be is never read, even where that reader declined it: a command (a `docker run`,
an engine's command line, a prompt's command), a log line, a warning, a tag or heading, a line of evidence, a
container's log line behind its compose prefix.
A line is a sentence: it holds at least MIN_WORDS words of letters, and the engine's name stands in it as a word
(facts/engine_command.stated_engines: not inside a path, an image, a module or a variable's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.container import (
    FORM_CLI_DIRECTLY,
    STATED_SMI_INSIDE,
    form_cli_directly,
    stated_container,
    stated_host,
)
from stackaudit.facts.engine_command import (
    COMMAND_HINT,
    stated_engines,
    stated_nodes,
    stated_split,
    stated_switches,
    stated_tp,
)
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.sources import USER_ENGINES
from stackaudit.facts.symptoms import is_symptom
from stackaudit.importers._paste import looks_like_command, strip_prompt_line
from stackaudit.importers._scan import PROMPT, Candidates, candidate_lines
from stackaudit.importers.evidence import is_evidence
from stackaudit.importers.registry import Found, document_appended, importer

# A container's log line behind its compose prefix (`llama-cpp    | llm_load_tensors: ...`): the service's name, not
# the user's words; the view peels one such prefix, not one under another (a kubelet's).
_COMPOSE_LOG = re.compile(r"^[\w.-]+\s+\|\s")
# A program the user ran, at the start of a line: a container or cluster CLI, an engine's own CLI, an interpreter.
_PROGRAM = re.compile(r"^\s*(?:sudo\s+)?(?:docker|podman|nerdctl|kubectl|oc|helm|ollama|llama-server|vllm|sglang"
                      r"|trtllm-\w+|lmdeploy|python\d?(?:\.\d+)?|pip\d?|conda|torchrun|mpirun|export|env)\b")
# A machine's line by its shape: a tag, heading or comment, a path, markup or JSON at its start (`[TensorRT-LLM]
# [WARNING]`, `### Which llama.cpp modules`, `/usr/lib/python3/...: FutureWarning`), or a raised warning or error.
_MACHINE = re.compile(r"^\s*[\[#/<{]|\w(?:Warning|Error|Exception):")
_WORD = re.compile(r"(?<![\w/.-])[A-Za-z]{2,}(?![\w/-])")
MIN_WORDS = 5  # words of letters in a sentence; a shorter line is a title, a label or a command
# An environment list's line that names the engine with its release (`Koboldcpp version: 1.99.4`, corpus 1857;
# `- vLLM Version: 0.6.3`): the user states what they run, in a label too short for a sentence.
LISTED_ENGINE_RELEASE = re.compile(r"^\W{0,6}(?P<name>[A-Za-z][\w.-]{1,30})\**\s+version\**\s*:\**\s*`?v?\d+(?:\.\d+)+\S*\s*$",
                                   re.IGNORECASE)
# An environment list's engine line (`- Engine: vLLM Docker image `vllm/vllm-openai:v0.25.0``, corpus 2842;
# `Inference engine: SGLang`): the user states the engine they run, in a label too short for a sentence.
LISTED_ENGINE_LABEL = re.compile(r"^\W{0,6}(?:(?:Inference|Serving)\s+)?Engine\**\s*:\**\s*(?P<name>\S.{0,120})$",
                                 re.IGNORECASE)
# A requirement or `pip freeze` line of a serving engine's package, pinned to a release or to a source
# (`vllm @ git+https://github.com/vllm-project/vllm@d537c625...`, corpus 1659; `vllm==0.2.7`): the engine installed.
# torch's line names a library many programs load, no serving engine.
PIP_ENGINE_LINE = re.compile(r"^\s*(?P<name>[A-Za-z][\w.-]{1,30})\s*(?:==\s*v?\d[\w.+!-]*|@\s*(?:git\+)?https?://\S+)\s*$")
MAX_LINES = 20  # sentences read from one paste; past a few, the paste is a log or a listing

# The words of facts/engine_command.STATED_ENGINE_WORDS that every match holds (case ignored).
_NEEDLES = ("ollama", "llama", "kobold", "vllm", "sglang", "tensorrt", "trt", "torch", "transformers", "diffusers",
            "comfyui", "unsloth", "axolotl",
            "deepspeed", "exllama", "lmdeploy", "aphrodite", "text-generation-inference", "tgi", "container", "image",
            "parallel", "studio", "--enable-p2p-check", "--disable-custom-all-reduce", "the cli directly", "metal",
            "brew", "snap", "flatpak", "node", "tp", "appimage", "manual")


def is_sentence(line: str, min_words: int = MIN_WORDS) -> bool:
    """Whether a line of a paste is the user's words and nothing another reader's kind could be."""
    return (len(line) <= 2000 and len(_WORD.findall(line)) >= min_words and not looks_like_command(line)
            and strip_prompt_line(line) is None and not PROMPT.match(line) and not _PROGRAM.match(line)
            and not COMMAND_HINT.search(line) and not _MACHINE.search(line) and not is_log_line(line) and not is_evidence(line)
            and not _COMPOSE_LOG.match(line))


@importer("prose engine", "the serving engine in the user's words ('ollama seems to only use 1 nvidia gpu')",
          needles=_NEEDLES, per_line=True, words=True)
def prose_engine(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if FORM_CLI_DIRECTLY.match(line):
            # TGI's issue form: the `The CLI directly` box ticked, its Docker box left empty (corpus 1644).
            if form_cli_directly(lines, i):
                yield Found("prose engine", i, i + 1, document_appended(USER_ENGINES.name, line.strip() + "\n"))
                taken += 1
                if taken == MAX_LINES:
                    return
            continue
        # The user's label for an nvidia-smi run in a container starts with the program's name, as a command does
        # (`nvidia-smi **from inside the ollama container**:`, corpus 1856).
        if STATED_SMI_INSIDE.search(line) and len(line) <= 200 and is_sentence(line.replace("nvidia-smi", "it"), 4) \
                and not is_symptom(line):
            yield Found("prose engine", i, i + 1, document_appended(USER_ENGINES.name, line.strip() + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        # The user's words that they started the server themselves are short (`ran `ollama serve``, corpus 1112).
        host_words = bool(stated_host(line))
        listed = LISTED_ENGINE_RELEASE.match(line) or PIP_ENGINE_LINE.match(line) or LISTED_ENGINE_LABEL.match(line)
        if listed and stated_engines(listed.group("name")) not in ((), ("torch",)) and not is_evidence(line):
            yield Found("prose engine", i, i + 1, document_appended(USER_ENGINES.name, line.strip() + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        if not (stated_engines(line) or stated_container(line)[0] or stated_split(line) or stated_switches(line)
                or stated_nodes(line) or stated_tp(line) or host_words) \
                or not is_sentence(line, 2 if host_words else MIN_WORDS) or is_symptom(line):
            continue  # a program's own message (a log symptom) is not the user's words
        yield Found("prose engine", i, i + 1, document_appended(USER_ENGINES.name, line.strip() + "\n"))
        taken += 1
        if taken == MAX_LINES:
            return
