"""A command line that starts a serving engine, pasted into a report (`vllm serve ...`,
`python -m sglang.launch_server ...`, `trtllm-serve ...`, TensorRT-LLM's `trtllm-build` and `run.py --engine_dir`,
llama.cpp's `llama-server`), with its prompt or list marker, leading `NAME=value` assignments and `\\` continuation
lines.

A command in Markdown inline code (a prose sentence's backticks, or a line that is one span) is the span.
Recorded verbatim (continuations joined) as the pasted document ENGINE_COMMAND; the `engine_commands`
fact reads it (facts/engine_command.py). A line inside a docker run, compose or pod spec is theirs.
The config file the command names (`--extra_llm_api_options extra-llm-api-config.yml`, `--config`) is recorded
after it as a heredoc where the paste shows that file: a fenced block under a line that ends with its name
(corpus 457), or a `cat > NAME <<EOF` heredoc.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from stackaudit.facts.engine_command import (
    COMMAND_HINT,
    ENGINE_WORDS,
    HEREDOC,
    EngineCommand,
    parse_command_line,
)
from stackaudit.facts.sources import ENGINE_COMMAND
from stackaudit.importers._scan import FENCE, Candidates, Scan, strip_prompt
from stackaudit.importers.registry import Found, document_appended, importer

MAX_CONTINUATIONS = 64  # a command is a few lines; a run of `\` lines past this is not one
# Inline code in Markdown prose: "Run `python -m sglang.launch_server ... --tp 2` on 8*4090", or a line that is one span.
_INLINE_CODE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
# A line of only `NAME=value` assignments continued with `\\` (`NCCL_P2P_DISABLE=1 \\` above `vllm serve \\`).
_ASSIGNMENTS = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+\\$")
# A Markdown list item's marker before a step's command (`2. trtllm-build --checkpoint_dir ...`).
_LIST_ITEM = re.compile(r"^(?:\d{1,2}[.)]|[-*])\s+")


def _config_shown(lines: list[str], command: EngineCommand) -> str:
    """The config file the command names, as a heredoc, where the paste shows it; "" where it does not."""
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
            i += 1  # the fence under the line that names the file
            end = next((j for j in range(i + 1, len(lines)) if FENCE.match(lines[j])), None)
        else:
            continue
        if end is not None:
            return f"cat > {name} <<'EOF'\n" + "\n".join(lines[i + 1:end]) + "\nEOF\n"
    return ""


@importer("engine command", "an engine's command line (`vllm serve ...`, `python -m sglang.launch_server ...`)",
          needles=("llm", "sglang", "lmdeploy", "engine_dir", "llama-server"), per_line=True)  # ENGINE_WORDS
def engine_command(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        line = lines[i]
        low = line.lower()
        # Substring tests first: most lines of a vLLM log say "vllm", few "serve", "-m " or "trtllm".
        if ("serve" not in low and "-m " not in low and "trtllm" not in low and "engine_dir" not in low) \
                or not any(w in low for w in ENGINE_WORDS) \
                or not (COMMAND_HINT.search(line) or line.rstrip().endswith("\\")):
            continue
        end = i + 1
        joined = _LIST_ITEM.sub("", strip_prompt(line), count=1)
        start = i
        while start > 0 and i - start < MAX_CONTINUATIONS and _ASSIGNMENTS.match(strip_prompt(lines[start - 1]).strip()):
            start -= 1  # the variables set for the command on the lines above it
            joined = strip_prompt(lines[start]).strip()[:-1] + joined
        while joined.endswith("\\") and end < len(lines) and end - i <= MAX_CONTINUATIONS:
            joined = joined[:-1] + " " + lines[end].strip()
            end += 1
        command = parse_command_line(joined)
        if command is None:
            spans = (strip_prompt(span) for span in _INLINE_CODE.findall(line))  # "`$ lmdeploy serve ...`" (2724)
            command = next((c for c in map(parse_command_line, spans) if c is not None), None)
            start, end = (i, i + 1) if command is not None else (start, end)
        if command is not None:
            yield Found("engine command", start, end,
                        document_appended(ENGINE_COMMAND.name, command.line + "\n" + _config_shown(lines, command)))
            scan.skip(end)

