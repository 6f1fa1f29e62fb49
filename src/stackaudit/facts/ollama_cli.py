"""ollama's own client output (importers/ollama_cli.py): `ollama -v`'s release and `ollama ps`'s loaded models; the
release its server's log names as it starts.

`ollama ps` (cmd/cmd.go ListRunningHandler) prints each model the server has loaded with its PROCESSOR: `100% GPU`
where all of it sits in GPU memory, `100% CPU` where none does, `48%/52% CPU/GPU` split (the share of the model's size
the scheduler placed in VRAM, llm/server.go EstimatedVRAM). It is the scheduler's placement, not a measurement: a
runner whose CUDA backend failed to start runs on the CPU under the same `100% GPU` (corpus 318, 1378).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import Sourced, fact, parser
from stackaudit.facts.serving_logs import OLLAMA_GO_LINE, OLLAMA_LINE
from stackaudit.facts.sources import ENGINE_LOG, OLLAMA_CLI

# `ollama ps`'s header (`CONTEXT` from 0.6.x) and a row: a model name, its 12-hex ID, its size (`3.7 GB`), then the
# rest (PROCESSOR, CONTEXT, UNTIL). `ollama -v`'s line.
PS_HEADER = re.compile(r"^\s*NAME\s+ID\s+SIZE\s+PROCESSOR\s+(?:CONTEXT\s+)?UNTIL\s*$")
# A row: a model name, its 12-hex ID, its size (`3.7 GB`), then the rest (PROCESSOR, CONTEXT, UNTIL).
PS_ROW = re.compile(r"^\s*(?P<name>\S+)\s+(?P<id>[0-9a-f]{12})\s+(?P<size>[\d.]+\s*[KMGT]?B)\s+(?P<rest>\S.*?)\s*[,，]?\s*$")
# An environment list's line for the same release (`ollama version: 0.9.6`, corpus 1306; `Ollama version :  0.30.5`,
# corpus 1572; `ollama: 0.2.1`, corpus 1333), and ollama's bug report form's `### Ollama version` heading with the
# answer under it, which importers/ollama_cli.py joins into that line (corpus 1012, 1325, 923). A release with `+`
# after it (`0.12.5+`) is a lower bound, not the release that ran.
VERSION = re.compile(r"^\s*(?:(?:Warning: client version is \S+\s+)?ollama version is v?(\d+\.\d+(?:\.\d+)?\S*)|"
                     r"\W*(?i:ollama)(?:\s+(?i:version))?\**\s*[:：]\**\s*`?v?(\d+\.\d+(?:\.\d+)?(?:-?rc\d+)?)`?)\s*$")
# PROCESSOR: `100% GPU`, `100% CPU`, `48%/52% CPU/GPU`.
_PROCESSOR = re.compile(r"^(?:(?P<one>\d{1,3})% (?P<where>GPU|CPU)|(?P<cpu>\d{1,3})%/(?P<gpu>\d{1,3})% CPU/GPU)\b")
_SIZE = re.compile(r"^([\d.]+)\s*([KMGT]?)B$")
_UNIT = {"": 1e-9, "K": 1e-6, "M": 1e-3, "G": 1.0, "T": 1e3}


@dataclass(frozen=True)
class OllamaModel:
    """One row of `ollama ps`: the model, its size in GB as printed (weights, KV cache and graph), the share of it
    in GPU memory (0-100) and the row as pasted."""
    name: str
    size_gb: float
    gpu_percent: int
    line: str


@dataclass(frozen=True)
class OllamaShown(Sourced):
    """ollama as its own client shows it: its release (`ollama -v`, else its server's start line), the models `ollama
    ps` lists."""
    release: str = ""
    models: tuple[OllamaModel, ...] = ()
    # What states the release, in words.
    release_from: str = "`ollama -v`"

    @property
    def on_gpu(self) -> tuple[OllamaModel, ...]:
        """The models `ollama ps` places wholly in GPU memory (`100% GPU`)."""
        return tuple(m for m in self.models if m.gpu_percent == 100)


fact("ollama_shown", OllamaShown, hint=OLLAMA_CLI.hint)


def _model(line: str) -> OllamaModel | None:
    row = PS_ROW.match(line)
    if row is None or (where := _PROCESSOR.match(row.group("rest"))) is None:
        return None
    size = _SIZE.match(row.group("size").replace(" ", ""))
    if where.group("one"):
        gpu = int(where.group("one")) if where.group("where") == "GPU" else 100 - int(where.group("one"))
    else:
        gpu = int(where.group("gpu"))
    return OllamaModel(row.group("name"), float(size.group(1)) * _UNIT[size.group(2)] if size else 0.0, gpu,
                       line.strip())


@parser(OLLAMA_CLI, feeds="ollama_shown", kind=OllamaShown, rank=10)
def ollama_shown_from_cli(text: str) -> OllamaShown:
    """ollama's release and loaded models, from its own client's output.

    Input (tests/data/captures/1378, ollama/ollama#9704)::

        NAME                ID              SIZE      PROCESSOR    UNTIL
        opencoder:latest    cd882db52297    6.8 GB    100% GPU     4 minutes from now
        ollama version is 0.6.0
    """
    release, models = "", []
    for line in text.splitlines():
        if (v := VERSION.match(line)) is not None:
            release = release or v.group(1) or v.group(2)
        elif not PS_HEADER.match(line) and (model := _model(line)) is not None:
            models.append(model)
    if not release and not models and not any(PS_HEADER.match(line) for line in text.splitlines()):
        raise ParseError("no `ollama ps` table or `ollama version is` line")
    return OllamaShown(release=release, models=tuple(models))


# The release ollama's server names as it starts to listen (server/routes.go): `routes.go:930: Listening on
# 127.0.0.1:11434 (version 0.1.20)` in Go's log format before 0.1.23 (corpus 1676), `msg="Listening on [::]:11434
# (version 0.5.7)"` after it, in a line of ollama's own (OLLAMA_GO_LINE, OLLAMA_LINE).
_LISTENING = re.compile(r"\bListening on \S+ \(version v?(\d+\.\d+(?:\.\d+)?(?:-?rc\d+)?)[^)\s]*\)")


@parser(ENGINE_LOG, feeds="ollama_shown", kind=OllamaShown, rank=20)
def ollama_shown_from_log(text: str) -> OllamaShown:
    """ollama's release from its server's start line in a pasted log; the last one where the log shows several starts.

    Input (tests/data/captures/1676, https://github.com/ollama/ollama/issues/1973)::

        2024/01/13 16:01:14 routes.go:930: Listening on 127.0.0.1:11434 (version 0.1.20)
    """
    found = [m.group(1) for line in text.splitlines() if "(version " in line
             and (OLLAMA_GO_LINE.search(line) or OLLAMA_LINE.search(line)) and (m := _LISTENING.search(line))]
    if not found:
        raise ParseError("no ollama `Listening on ... (version X)` line")
    return OllamaShown(release=found[-1], release_from="its server's log")
