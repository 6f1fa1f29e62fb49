"""A command line that starts a serving engine, pasted into a report (`vllm serve ...`,
`python -m sglang.launch_server ...`, `trtllm-serve ...`, TensorRT-LLM's `trtllm-build` and `run.py --engine_dir`,
llama.cpp's `llama-server`, NVIDIA Dynamo's `dynamo run out=vllm`, Hugging Face TGI's `text-generation-launcher`), with its prompt or list marker, leading
`NAME=value` assignments and continuation lines (`\\`, a batch file's `^`, PowerShell's backtick:
facts/_parse.continued), above the line that names the engine too (`mpirun -n 4 \\` over
`python3 ../run.py --engine_dir DIR`).
llama.cpp's programs of before 2024 (`./server`, `./main`, `./llava`) are read only where the paste shows llama.cpp: the line
that shows it (the command's own, else a ggml line) is recorded after the command.

A serving platform's log line that records the command it starts the engine with (GPUStack's `Run vllm with
arguments: serve MODEL ...`, its `With image: IMAGE, arguments: [vllm serve MODEL ...]`:
facts/engine_command.LAUNCHER_LOG) is that command.
KoboldCpp's printed arguments (`Namespace(... gpulayers=33, ... model_param='x.gguf', ...)`:
facts/engine_command.koboldcpp_namespace) are its command line, as `koboldcpp --gpulayers 33 --model x.gguf ...`.

The command that ssh runs on its host (`ssh HOST '<python> -m sglang.launch_server ...'`) is that engine's command.

A command in Markdown inline code (a prose sentence's backticks, or a line that is one span) is the span.
A command after a label in the user's words on its line (`My service startup command is: ...`, PROSE_LABEL) is what
follows the label.
A command's `$VAR` is read from a `VAR=value` line above it in the paste, recorded before the command.
A script's variable set to a whole engine command (`CMD='python -u -m vllm.entrypoints.openai.api_server ...'`, as typed
or as `set -x` traces it) is that command where no line below sets it again (the last step of one built up, corpus 2735).
A container's argument list on one line (`command: ["--served-model-name", ...]`, `args: [...]`), where it
runs an engine (facts/engine_command.container_args), is the command too.
Recorded verbatim (continuations joined) as the pasted document ENGINE_COMMAND; the `engine_commands`
fact reads it (facts/engine_command.py). A line inside a docker run, compose or pod spec is theirs.
vLLM's offline engine in Python (`LLM(model=..., tensor_parallel_size=8, enforce_eager=True)`), where the paste
shows vLLM, is recorded as its call on one line, as Python writes it back.
The config file the command names (`--extra_llm_api_options extra-llm-api-config.yml`, `--config`) is recorded
after it as a heredoc where the paste shows that file: a fenced block under a line that ends with its name
(corpus 457), or a `cat > NAME <<EOF` heredoc.
vLLM's config file pasted without any command (a flat YAML of its arguments' long names, one a flag only vLLM takes:
facts/engine_command.vllm_config_block, corpus 1669) is recorded as `vllm serve --config config.yaml`, the one command
that reads such a file, with the file after it as a heredoc.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Callable, Iterator

from stackaudit.facts._parse import continued, without_continuation
from stackaudit.facts.container import ACTIVATE_LINE
from stackaudit.facts.engine_command import (
    COMMAND_HINT,
    CONTAINER_ARGS,
    ENGINE_WORDS,
    GGML_SHOWN,
    HEREDOC,
    LEGACY_COMMAND,
    OLLAMA_SERVE,
    PYTHON_CALL,
    RAY_LLM_KWARGS,
    TRITON_CONFIG,
    VARIABLE_REFERENCE,
    VLLM_CONFIG_NAME,
    VLLM_MODULE,
    EngineCommand,
    exports,
    koboldcpp_namespace,
    launcher_logged,
    namespace_end,
    parse_command_line,
    printed_engine_args,
    python_engine_call,
    ray_llm_engine_call,
    shell_assignment,
    vllm_config_block,
    wrapped_inside_value,
)
from stackaudit.facts.model_placement import TRITON_GROUP, triton_group_end
from stackaudit.facts.processes import VLLM_ONLY_FLAGS, WEIGHT_SYNC_SERVERS
from stackaudit.facts.serving_logs import VLLM_LINE
from stackaudit.facts.sources import ENGINE_COMMAND
from stackaudit.importers._scan import FENCE, INLINE_CODE, Candidates, Scan, strip_prompt
from stackaudit.importers.registry import Found, document_appended, importer

# Lines that print the command an engine runs, with the reader of each: KoboldCpp's `Namespace(...)` of its arguments
# (every setting on one line, which a paste may wrap: facts/engine_command.namespace_end), and a serving platform's
# log line (GPUStack's `Run vllm with arguments:`).
_PRINTED_COMMANDS = (("Namespace(", koboldcpp_namespace), ("arguments:", launcher_logged))

MAX_CONTINUATIONS = 64  # a command is a few lines; a run of `\` lines past this is not one
# A line of only `NAME=value` assignments continued with `\\` (`NCCL_P2P_DISABLE=1 \\` above `vllm serve \\`).
_ASSIGNMENTS = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+\\$")
# A Markdown list item's marker before a step's command (`2. trtllm-build --checkpoint_dir ...`).
_LIST_ITEM = re.compile(r"^(?:\d{1,2}[.)]|[-*])\s+")
# A label in the user's words before the command on its line: a few words around `command`, `cmd` or `script`, and a
# colon (`My service startup command is: CUDA_VISIBLE_DEVICES=0,1 python3 -m vllm...`, corpus 884; `3. command:
# ./build/bin/llama-cli -m ...`, corpus 889; `The command I used: ...`; the full-width colon of a CJK keyboard,
# `Command： python -m sglang.launch_server ...`, corpus 1685). The command is what follows it.
PROSE_LABEL = re.compile(r"^(?:[A-Za-z][\w'-]*\s+){0,6}?(?:command(?:\s+line)?|cmd|script)(?:\s+[A-Za-z][\w'-]*){0,3}"
                         r"\s*(?::\s+|\uff1a\s*)", re.I)


# An item of a YAML list (a container's args pasted without their `args:` key): `- trtllm-serve`, `- '--tp_size'`.
_YAML_ITEM = re.compile(r"^(?P<indent>\s*)- (?P<value>\S.*?)\s*$")


def _yaml_args(lines: list[str], i: int) -> tuple[str, int] | None:
    """The command a YAML list of args from line i shows (`- trtllm-serve`, `- serve`, `- '--tp_size'`, `- '8'`, one
    word an item), joined as a shell line, and the end of the list; None where line i is no such list's first item
    (fewer than three items at its indentation, or an item of more than one word)."""
    first = _YAML_ITEM.match(lines[i])
    if first is None:
        return None
    items: list[str] = []
    end = i
    while end < len(lines) and end - i <= MAX_CONTINUATIONS:
        m = _YAML_ITEM.match(lines[end])
        if m is None or m.group("indent") != first.group("indent"):
            break
        value = m.group("value")
        if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if not value or any(c.isspace() for c in value):
            return None
        items.append(value)
        end += 1
    return (shlex.join(items), end) if len(items) >= 3 else None


# How far below a container's argument list its environment block may open (a fence's close, a label line between).
ENV_GAP = 4
# The line that labels a block as the environment (`and environment:`, `env:`, `Environment variables:`).
_ENV_LABEL = re.compile(r"\b(?:environment|env)(?:\s+variables?)?\s*:\s*$", re.I)


def _container_env_shown(lines: list[str], start: int) -> str:
    """The environment pasted below a container's argument list, as a CONTAINER_ENV line ("" where none is): a fenced
    block that opens within ENV_GAP lines under a line that labels it the environment, all of whose lines set a
    variable (`VLLM_USE_FLASHINFER_SAMPLER=1`, corpus 1050)."""
    for k in range(start, min(start + ENV_GAP, len(lines) - 1)):
        if not (FENCE.match(lines[k + 1]) and _ENV_LABEL.search(lines[k])):
            continue
        close = next((j for j in range(k + 2, min(k + 2 + MAX_CONTINUATIONS, len(lines))) if FENCE.match(lines[j])), None)
        body = [x.strip() for x in lines[k + 2:close] if x.strip()] if close is not None else []
        pairs = [shell_assignment(x) for x in body]
        if body and all(pairs):
            return "environment: " + json.dumps([f"{n}={v}" for n, v in (p for p in pairs if p is not None)])
        return ""
    return ""


# A quote that opens a JSON object or list after a space or `=` (`--kv-transfer-config '{`), not closed by the line's end.
_OPEN_JSON_QUOTE = re.compile(r"""(?:^|[\s=])(?:'\s*[\[{][^']*|"\s*[\[{][^"]*)$""")


def _open_json_quote(line: str) -> bool:
    """Whether the line ends inside a quoted argument that opens a JSON object or list (`'{`, `"[`): the shell
    reads on to the closing quote. A lone apostrophe (`# it's`) opens nothing."""
    return _OPEN_JSON_QUOTE.search(line) is not None


def continued_from(lines: list[str], start: int, taken: int) -> tuple[str, int]:
    """The lines above `start` that `\\` continues into it (`mpirun -n 4 \\` over `python3 ../run.py \\` over
    `--engine_dir DIR`, corpus 578), joined without their prompt and `\\`, with the first one's index; ("", start)
    where the line above does not end with `\\`."""
    first = start
    while first > taken and start - first < MAX_CONTINUATIONS and continued(lines[first - 1]):
        first -= 1
    parts = [_LIST_ITEM.sub("", strip_prompt(lines[first]), count=1), *(x.strip() for x in lines[first + 1:start])]
    return ("".join(without_continuation(p) + " " for p in parts), first) if first < start else ("", start)


def _ggml_shown(lines: list[str], start: int, first_ggml: list[str]) -> str:
    """The line that shows llama.cpp around a command of a generic name (`./server`, facts/engine_command
    LEGACY_GGML_PROGRAMS): the command's own line (its prompt's directory or its path), else the first ggml line
    of the paste; "" where none does. `first_ggml` keeps the paste's first ggml line once searched: the paste is
    searched once per paste, and only for such a command."""
    if GGML_SHOWN.search(lines[start]):
        return lines[start].strip()
    if not first_ggml:
        first_ggml.append(next((x.strip() for x in lines if GGML_SHOWN.search(x)), ""))
    return first_ggml[0]


def _variables_set(lines: list[str], start: int, command: str) -> tuple[str, dict[str, str]]:
    """The lines above `start` that set the shell variables `command` reads (`GPU_NUM=4` above
    `... --tp-size $GPU_NUM`, corpus 680), and those that export a variable to it in the same block (`export
    CUDA_LAUNCH_BLOCKING=1` with no fence between: the command's environment, corpus 784), as text recorded before the
    command, and their values; ("", {}) where it reads none the paste sets and none is exported to it. The last
    setting above the command wins, as in the shell."""
    names = {a or b for a, b in VARIABLE_REFERENCE.findall(command)} if "$" in command else set()
    block = next((j + 1 for j in range(start - 1, -1, -1) if FENCE.match(lines[j])), 0)
    shown: dict[str, tuple[str, str]] = {}  # name -> (its line, its value)
    for n in range(0 if names else block, start):  # above the block only a variable the command reads counts
        if "=" not in lines[n]:  # every assignment has one: the cheap test keeps a long paste linear
            continue
        text = strip_prompt(lines[n]).strip()
        assigned = shell_assignment(text)
        if assigned is not None and (assigned[0] in names or (n >= block and exports(text))):
            shown[assigned[0]] = (text, assigned[1])
    return "".join(f"{text}\n" for text, _ in shown.values()), {name: value for name, (_, value) in shown.items()}


def _activated_above(lines: list[str], start: int) -> str:
    """The last line of the command's block above `start` (no fence between) that activates a Python environment
    (facts/container.ACTIVATE_LINE: `source /xrepo/.../vllm_env/bin/activate` in a launch script, corpus 2455, 680),
    with its line end, recorded before the command as the block's exports are: the environment the command runs in;
    "" where none does."""
    block = next((j + 1 for j in range(start - 1, -1, -1) if FENCE.match(lines[j])), 0)
    found = next((text for n in range(start - 1, block - 1, -1)
                  if "activate" in lines[n] and ACTIVATE_LINE.match(text := lines[n].strip())), "")
    return found and found + "\n"


def _config_shown(lines: list[str], command: EngineCommand) -> str:
    """The config file the command names, as a heredoc, where the paste shows it; "" where it does not: a heredoc, a
    fenced block under a line that names it, or a fenced block whose first line is a comment naming it. A block
    with nothing in it shows no file."""
    name = command.config_name
    if not name:
        return ""
    named = re.compile(rf"(?:^|[\s`*/]){re.escape(name)}[`*:\s]*$")
    for i, line in enumerate(lines):
        if name not in line:
            continue
        heredoc = HEREDOC.match(line) or HEREDOC.match(strip_prompt(line))  # `cat >` itself looks like a prompt
        if heredoc and posixpath.basename(heredoc.group("path")) == name:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == heredoc.group("end")), None)
        elif named.search(line) and i + 1 < len(lines) and FENCE.match(lines[i + 1]):
            i += 1  # the fence under the line that names the file; a paste that ends inside it shows the file's start
            end = next((j for j in range(i + 1, len(lines)) if FENCE.match(lines[j])), len(lines))
        elif i > 0 and FENCE.match(lines[i - 1]) and re.match(rf"\s*#\s*{re.escape(name)}\s*$", line):
            # A comment naming the file as its fenced block's first line (`# extra-llm-api-config.yml`, corpus 1060).
            end = next((j for j in range(i + 1, len(lines)) if FENCE.match(lines[j])), len(lines))
        else:
            continue
        if end is not None and any(x.strip() for x in lines[i + 1:end]):  # a closing fence under the command shows none
            return f"cat > {name} <<'EOF'\n" + "\n".join(lines[i + 1:end]) + "\nEOF\n"
    return ""


def _triton_configs_shown(lines: list[str], command: EngineCommand) -> str:
    """Each instance_group of a Triton model config the paste shows, as a heredoc of the config file, where the
    command is Triton's; "" where it is not or the paste shows none. The configs sit in the model repository the
    command names (`--model-repository`), so every one shown is the server's."""
    if command.engine != "triton":
        return ""
    shown: list[str] = []
    for i, line in enumerate(lines):
        # A Triton model config's instance_group (facts/engine_command.TRITON_CONFIG) as the paste shows it: from its
        # `instance_group [` line to the `]` that closes it (facts/model_placement reads the same blocks).
        if len(shown) >= 16 or "instance_group" not in line or not TRITON_GROUP.match(strip_prompt(line)):
            continue
        end = triton_group_end(lines, i)
        shown.append(f"cat > {TRITON_CONFIG} <<'EOF'\n" + "\n".join(lines[i:end]) + "\nEOF\n")
    return "".join(shown)


MAX_RAY_LLM_LINES = 200  # one model's Ray Serve LLM config is a few dozen lines


def _ray_llm_item(lines: list[str], i: int) -> tuple[EngineCommand, int, int] | None:
    """The Ray Serve LLM model config (an `llm_configs` item) whose `engine_kwargs:` key is line i, as its vLLM
    engine (facts/engine_command.ray_llm_engine_call), with the item's first line and its end; None where the lines
    around it are no such item. The item runs from the `- ` that opens it to the first line indented less than its
    keys."""
    m = RAY_LLM_KWARGS.match(lines[i])
    if m is None:
        return None
    column = len(m["indent"]) + len(m["item"] or "")  # where the item's keys start
    start = i
    if not m["item"]:
        # The item's first key is the first line above indented less than its keys: `- model_loading_config:`.
        start = next((j for j in range(i - 1, max(i - MAX_RAY_LLM_LINES, -1), -1)
                      if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) < column), -1)
        if start < 0 or len(lines[start]) - len(lines[start].lstrip()) != column - 2 \
                or not lines[start].lstrip().startswith("- "):
            return None
    end = i + 1
    while end < len(lines) and end - start <= MAX_RAY_LLM_LINES and (
            not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) >= column):
        end += 1
    import yaml

    body = [lines[start][:column - 2] + "  " + lines[start][column:], *lines[start + 1:end]]
    try:
        item = yaml.safe_load("\n".join(x[column:] if len(x) > column else x.strip() for x in body))
    except yaml.YAMLError:
        return None
    command = ray_llm_engine_call(item)
    return (command, start, end) if command is not None else None


def python_engine_shown(lines: list[str]) -> bool:
    """Whether the paste shows vLLM, whose `LLM(` a Python call names (VLLM_MODULE, or a vLLM log line)."""
    return any(VLLM_MODULE.search(x) or (".py:" in x and VLLM_LINE.search(x)) for x in lines)


# A terminal wraps a long line at its width, inside a word: `... --nnodes 2 --node-r` over `ank 0 --tp-size 8 ...`
# (corpus 1757, sgl-project/sglang#9859). The next line goes on it where the line is terminal-long and ends inside an
# option's name, and the next line starts with the rest of that name and holds more options: a word that is no program
# (a prompt's command, a log line, a list's next command stay lines of their own).
_WRAP_WIDTH = 80
_CUT_OPTION = re.compile(r"\s--[a-z][\w-]*$")
_WRAPPED_REST = re.compile(r"^(?P<rest>[a-z][a-z-]*)\s(?:\S+\s+)*--[a-z]")


def _terminal_wrapped(joined: str, next_line: str) -> bool:
    """Whether `next_line` is the rest of the command's last line, which a terminal wrapped inside an option's name."""
    last = joined.splitlines()[-1] if joined else ""
    rest = _WRAPPED_REST.match(next_line)
    return len(last) >= _WRAP_WIDTH and _CUT_OPTION.search(last) is not None and rest is not None \
        and not rest["rest"].startswith("python") and not any(w in rest["rest"] for w in ENGINE_WORDS) \
        and not VLLM_LINE.search(next_line) and parse_command_line(next_line) is None


def _koboldcpp_typed(above: list[str]) -> bool:
    """Whether a line above is a KoboldCpp command line as typed (its binary or koboldcpp.py), whose printed arguments
    (`Namespace(...)`, facts/engine_command.koboldcpp_namespace) below it are its echo: the same run, once. A paste cut
    inside the echo (corpus 2132) shows fewer of its flags than the typed line does."""
    for line in above[-MAX_ECHO_DISTANCE:]:
        command = parse_command_line(strip_prompt(line)) if "koboldcpp" in line.lower() else None
        if command is not None and "Namespace(" not in line \
                and any(posixpath.basename(w).lower().startswith("koboldcpp") for w in command.argv[:2]):
            return True
    return False


# Lines below a variable's assignment searched for the script assigning it again (a start script builds its command up
# in a few steps, each traced by `set -x`: corpus 2735).
MAX_REASSIGN_DISTANCE = 64


def _held_command(lines: list[str], i: int, joined: str) -> EngineCommand | None:
    """The engine command a shell variable is set to on line i (`CMD='python -u -m vllm.entrypoints.openai.api_server
    ...'`, as typed or as `set -x` traces it: `+ CMD='...'`), which the script runs (`exec $CMD`); None where the value
    is no engine command, or where a line below sets the same variable again (a script building the command up: the
    last value is the one run)."""
    assigned = shell_assignment(joined)
    if assigned is None or not COMMAND_HINT.search(assigned[1]):
        return None
    again = assigned[0] + "="
    if any(strip_prompt(x).startswith(again) for x in lines[i + 1:i + 1 + MAX_REASSIGN_DISTANCE]):
        return None
    return parse_command_line(assigned[1])


# Blocks over several lines that hold vLLM's engine arguments, each by a needle of its line and its reader (the call,
# the block's first line, its end): vLLM's engine arguments printed as a dict by the program that runs it
# (facts/engine_command.printed_engine_args), and Ray Serve LLM's model config, whose engine_kwargs are vLLM's engine
# arguments (_ray_llm_item). Tried in this order.
_ENGINE_ARG_BLOCKS: tuple[tuple[str, Callable[[list[str], int], tuple[EngineCommand, int, int] | None]], ...] = (
    ("'enforce_eager'", printed_engine_args), ("engine_kwargs", _ray_llm_item))


# Lines above KoboldCpp's printed arguments searched for the command that started it: its banner and backend lines
# come between (about 10 lines in KoboldCpp 1.78's console, corpus 2132).
MAX_ECHO_DISTANCE = 40


@importer("engine command", "an engine's command line (`vllm serve ...`, `python -m sglang.launch_server ...`)",
          needles=("llm", "dllama", "engineargs(", "engine_kwargs", "'enforce_eager'", "sglang", "lmdeploy", "engine_dir", "llama-server", "llama-cli", "/server ", "/main ",
                   "llava", "llama-mtmd-cli", "llama_cpp.server", "llama serve", "llamafile",
                   "launch_triton_server",
                   "aphrodite", "api_server.py", "koboldcpp", "benchmark_", "convert_checkpoint", "quantize.py", "build.py", "command:",
                   "args:", "tritonserver", "trtserver", "text-generation-launcher", "ollama serve", "ollama app.exe", "mlc_llm", "namespace(",
                   "server.py", "start_linux.sh", "start_windows.bat", "start_wsl.bat", "llamafile", "ktransformers",
                   "local_chat", "openrlhf", "infer_backend", "fastchat",
                   # a vLLM config file's key (facts/engine_command.vllm_config_block)
                   *(f"{f[2:]}{sep}" for f in VLLM_ONLY_FLAGS for sep in (":", " :")),
                   *(f"{f[2:].replace('-', '_')}{sep}" for f in VLLM_ONLY_FLAGS for sep in (":", " :"))),
          per_line=True)  # ENGINE_WORDS, LEGACY_COMMAND
def engine_command(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0  # the end of the last command read: a continuation above a line is never one already read
    first_ggml: list[str] = []
    for i in (scan := Scan(lines, candidates)):
        line = lines[i]
        low = line.lower()
        if ("llm(" in low or "engineargs(" in low) and PYTHON_CALL.search(line) and python_engine_shown(lines):
            # A Python engine constructor: its call runs on to the line that closes it.
            call, end = None, i
            while call is None and end < len(lines) and end - i <= MAX_CONTINUATIONS:
                end += 1
                call = python_engine_call("\n".join(lines[i:end]))
            if call is not None:
                yield Found("engine command", i, end, document_appended(ENGINE_COMMAND.name, call.line + "\n"))
                scan.skip(end)
                taken = end
            continue
        if (arg_block := next((found for needle, read in _ENGINE_ARG_BLOCKS
                               if needle in line and (found := read(lines, i)) is not None), None)) is not None:
            # A block of vLLM's engine arguments over several lines (_ENGINE_ARG_BLOCKS): the block is the call.
            call, start, end = arg_block
            yield Found("engine command", start, end, document_appended(ENGINE_COMMAND.name, call.line + "\n"))
            scan.skip(end)
            taken = end
            continue
        if ":" in line and (block := vllm_config_block(lines, i)) is not None \
                and not any("--config" in x for x in lines):
            # vLLM's config file pasted without its command (one that names its file reads it, _config_shown): the
            # command that reads it, then the file as a heredoc.
            start, end = block
            yield Found("engine command", start, end, document_appended(
                ENGINE_COMMAND.name, f"vllm serve --config {VLLM_CONFIG_NAME}\ncat > {VLLM_CONFIG_NAME} <<'EOF'\n"
                + "\n".join(lines[start:end]) + "\nEOF\n"))
            scan.skip(end)
            taken = end
            continue
        # A printed repr wrapped over lines reads on to its closing `)` (namespace_end); the lines join as they wrap.
        end = namespace_end(lines, i) if "Namespace(" in line else i + 1
        whole = "".join(x.rstrip("\r") for x in lines[i:end])
        if (printed := next((v for needle, read in _PRINTED_COMMANDS if needle in line and (v := read(whole))), None)):
            if "Namespace(" in line and _koboldcpp_typed(lines[:i]):
                # KoboldCpp echoes the command line that started it: the typed line above is the run (corpus 2132).
                continue
            if (from_print := parse_command_line(printed)) is not None:
                yield Found("engine command", i, end, document_appended(ENGINE_COMMAND.name, from_print.line + "\n"))
                scan.skip(end)
                taken = end
            continue
        if "[" in line and CONTAINER_ARGS.match(line):
            # A container's argument list on one line (`command: ["--model", ...]`): the list is the whole command.
            if (from_list := parse_command_line(line)) is not None:
                env = _container_env_shown(lines, i + 1)
                yield Found("engine command", i, i + 1,
                            document_appended(ENGINE_COMMAND.name, (env and env + "\n") + from_list.line + "\n"))
                scan.skip(i + 1)
                taken = i + 1
            continue
        if "ollama" in low and OLLAMA_SERVE.search(line) \
                and (served := parse_command_line(strip_prompt(line))) is not None and served.engine == "ollama":
            # ollama's server started by hand, behind a prompt or the variables set for it (`(3.10) root@HOST:~#
            # ollama serve`, corpus 1798).
            yield Found("engine command", i, i + 1, document_appended(ENGINE_COMMAND.name, served.line + "\n"))
            scan.skip(i + 1)
            taken = i + 1
            continue
        # Substring tests first: most lines of a vLLM log say "vllm", few "serve", "-m " or "trtllm".
        if ("serve" not in low and "-m " not in low and "trtllm" not in low and "engine_dir" not in low
                and "bench" not in low and "aphrodite" not in low and "llama-cli" not in low and "koboldcpp" not in low
                and "llava" not in low and "mtmd-cli" not in low and "lmdeploy chat" not in low
                and "dynamo" not in low and "convert_checkpoint" not in low and "build.py" not in low
                and "quantize.py" not in low
                and "text-generation-launcher" not in low and "mlc_llm" not in low and "start_" not in low
                and "llamafile" not in low and "ktransformers" not in low and "local_chat" not in low
                and "infer_backend" not in low and "dllama" not in low
                and not any(p in low for p in WEIGHT_SYNC_SERVERS)) \
                or not (any(w in low for w in ENGINE_WORDS) or LEGACY_COMMAND.search(line)) \
                or not (COMMAND_HINT.search(line) or LEGACY_COMMAND.search(line) or continued(line)
                        or (i > 0 and continued(lines[i - 1]))):  # the last line of a continued command
            continue
        end = i + 1
        joined = PROSE_LABEL.sub("", _LIST_ITEM.sub("", strip_prompt(line), count=1), count=1)
        listed = _yaml_args(lines, i)
        if listed is not None:
            joined, end = listed
        start = i
        if i > 0 and wrapped_inside_value(strip_prompt(lines[i - 1]), joined):
            start -= 1  # the variables set for the command, wrapped by the paste inside the last one's value
            joined = strip_prompt(lines[start]).strip() + joined
        while start > 0 and i - start < MAX_CONTINUATIONS and _ASSIGNMENTS.match(strip_prompt(lines[start - 1]).strip()):
            start -= 1  # the variables set for the command on the lines above it
            joined = strip_prompt(lines[start]).strip()[:-1] + joined
        # A continuation into a blank line or a fence that opens a block is a command the paste cuts: its `\\` stays
        # (EngineCommand.cut).
        # A `\\` with spaces after it (corpus 765) continues the line as its writer meant, though a shell would end it.
        # A JSON value in quotes spread over lines (`--kv-transfer-config '{` over its keys, corpus 2452) is one
        # argument, as the shell reads it: its lines join the command until the quote closes.
        while end < len(lines) and end - i <= MAX_CONTINUATIONS and lines[end].strip() and not FENCE.match(lines[end]) \
                and (continued(joined) or _open_json_quote(joined)):
            joined = (without_continuation(joined) if continued(joined) else joined) + " " + lines[end].strip()
            end += 1
        if end < len(lines) and _terminal_wrapped(joined, lines[end]):
            joined += lines[end]  # the rest of a long line the terminal wrapped, mid-word (corpus 1757)
            end += 1
        above, first = continued_from(lines, start, taken)
        # A block that holds the command alone, its last `\\` into the fence that closes it: the writer closed the
        # block there, so the command ends (corpus 217, 848); one the paste cuts with no fence after it stays cut
        # (corpus 1401), as does one whose `\\` runs into a block below it.
        opened = first if above else start
        if continued(joined) and end < len(lines) and FENCE.match(lines[end]) and opened > 0 \
                and FENCE.match(lines[opened - 1]):
            joined = without_continuation(joined)
        legacy = LEGACY_COMMAND.search(above + joined) is not None  # only a generic program name needs the context
        assignments, variables = _variables_set(lines, first, above + joined)
        assignments = _activated_above(lines, first) + assignments
        command = parse_command_line(above + joined, ggml_shown=_ggml_shown(lines, first, first_ggml) if legacy
                                     else "", variables=variables) if above else None
        start = first if command is not None else start
        command = command or parse_command_line(joined, ggml_shown=_ggml_shown(lines, start, first_ggml) if legacy
                                                else "", variables=variables)
        if command is None and (held := _held_command(lines, i, joined)) is not None:
            command = held  # a script's variable holding the command it runs (`+ CMD='python -m vllm...'`, 2735)
        if command is None:
            spans = (strip_prompt(span) for span in INLINE_CODE.findall(line))  # "`$ lmdeploy serve ...`" (2724)
            # A span that names the program alone ("After calling `vllm serve`, ...") is a mention, not a command.
            command = next((c for c in map(parse_command_line, spans) if c is not None and not c.names_only_program),
                           None)
            start, end = (i, i + 1) if command is not None else (start, end)
        if command is not None:
            # The line that shows llama.cpp, recorded after the command; none where the command's own words show it (its
            # GGUF model, corpus 1954): the command is read again from a line recorded twice.
            shown = _ggml_shown(lines, start, first_ggml) if command.engine_shown_by_context \
                and not GGML_SHOWN.search(command.line) else ""
            rest = (shown and shown + "\n") + _config_shown(lines, command) + _triton_configs_shown(lines, command)
            # A command the paste ends in, inside a block that never closes (recognition._cut_at_end: `--host 0.0.0.`,
            # corpus 1830), may go on past what the paste shows: recorded with a `\\` after it (EngineCommand.cut).
            yield Found("engine command", start, end,
                        document_appended(ENGINE_COMMAND.name, assignments + command.line + "\n" + rest),
                        cut=None if command.cut else document_appended(
                            ENGINE_COMMAND.name, assignments + command.line + " \\\n" + rest))
            scan.skip(end)
            taken = end

