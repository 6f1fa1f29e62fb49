"""An engine command read from a serving platform's log line that records it (issue 28, corpus 1778).

GPUStack's worker logs the command it starts the engine with: 0.x as the program's arguments after the backend's name
(`Run vLLM with arguments: serve MODEL ...`), 2.x as the container's whole command in brackets (`With image: IMAGE,
arguments: [vllm serve MODEL ...]`). Real lines are corpus captures or quoted from the public threads named beside
them; counter-examples are modelled and say so.
"""

from __future__ import annotations

import pytest

from corpus import capture_result, fact, pasted
from stackaudit.facts.engine_command import EngineCommands, launcher_logged

# https://github.com/gpustack/gpustack/issues/2590 (corpus 1778): GPUStack 0.x, vLLM on one GPU, no parallel size.
RUN_2590 = ("2025-07-24 03:16:46.514731+00:00 - gpustack.worker.backends.vllm - DEBUG - Run vLLM with arguments: serve "
            "/var/lib/gpustack/cache/huggingface/THUDM/GLM-4.1V-9B-Thinking --max-model-len 8192 --host 0.0.0.0 "
            "--port 40023 --served-model-name glm-4.1v-thinking\n")
# https://github.com/gpustack/gpustack/issues/3835 (2025-12-11): GPUStack 2.0.1, the command cut before its `]`.
IMAGE_3835 = ("gpustack.worker.backends.vllm - INFO - With image: gpustack/runner:cuda12.9-vllm0.11.2, arguments: "
              "[vllm serve /var/lib/gpustack/cache/huggingface/openai/gpt-oss-120b --max-model-len 8192 "
              "--tensor-parallel-size 2 --pipeline-parallel-size 2 --distributed-executor-backend ray "
              "--max-model-len=32768 --tool-call-parser=openai --enable-auto-tool-choice --async-scheduling --host "
              "192.168.8.141 --port 40044 --served-model-name\n")
# gpustack/gpustack source, gpustack/worker/backends/vllm.py (0.x): the backend's name in lower case.
RUN_SOURCE = "2025-03-02T14:56:09+00:00 - gpustack.worker.backends.vllm - DEBUG - Run vllm with arguments: serve /m --enforce-eager\n"


def _commands(text: str) -> EngineCommands | None:
    value = fact(pasted(text), "engine_commands")
    return value if isinstance(value, EngineCommands) else None


@pytest.mark.parametrize(("text", "argv_start", "tp"), [
    (RUN_2590, ("vllm", "serve", "/var/lib/gpustack/cache/huggingface/THUDM/GLM-4.1V-9B-Thinking"), None),
    (IMAGE_3835, ("vllm", "serve", "/var/lib/gpustack/cache/huggingface/openai/gpt-oss-120b"), "2"),
    (RUN_SOURCE, ("vllm", "serve", "/m"), None),
])
def test_launcher_log_line_is_the_engine_command(text: str, argv_start: tuple[str, ...], tp: str | None) -> None:
    commands = _commands(text)
    assert commands is not None
    (command,) = commands.commands
    assert command.engine == "vllm"
    assert command.argv[:3] == argv_start
    assert (command.argv[command.argv.index("--tensor-parallel-size") + 1]
            if "--tensor-parallel-size" in command.argv else None) == tp


def test_other_programs_arguments_not_an_engine_command() -> None:
    """Modelled: a log line that runs some other program with arguments is no engine's command."""
    assert launcher_logged("2025-07-24 - app - DEBUG - Run helper with arguments: serve --port 80") == ""
    assert launcher_logged("INFO - With image: nginx:1.27, arguments: [nginx -g daemon off;]") == "nginx -g daemon off;"
    assert _commands("INFO - With image: nginx:1.27, arguments: [nginx -g daemon off;]\n") is None


def test_gpustack_log_1778_read_not_refused() -> None:
    """Corpus 1778: GPUStack's log of vLLM's arguments is read as its command; the paste is no longer refused."""
    assert capture_result("1778", "RT-CUDA-GRAPHS").status == "ok"
    assert capture_result("1778", "IC-CUSTOM-ALLREDUCE").status == "not-applicable"
    assert capture_result("1778", "IC-TOPOLOGY-PLACEMENT").status == "not-applicable"
