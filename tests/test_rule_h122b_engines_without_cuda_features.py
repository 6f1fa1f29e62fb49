"""Checks of CUDA graphs and NCCL where the engine shown is llama.cpp's (issue 28, h122b).

- facts/serving_logs.GGML_LOG_LINE: llama.cpp's rpc-server lines (`create_backend: using CUDA backend`, `Starting RPC
  server on ...`) are llama.cpp's log, so the engine shown is llama.cpp, which builds no NCCL communicator.
- facts/engine_command.EngineCommand.ggml_cuda_used: `--split-mode none` keeps llama.cpp's models on its main GPU and
  the draft's device, so ggml's graphs are judged on those GPUs only (RT-CUDA-GRAPHS).
"""

from __future__ import annotations

from corpus import capture_result
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.facts.serving_logs import is_log_line, parse_serving_log

# Real (ggml-org/llama.cpp#9214): the rpc-server's start, behind its warning banner.
RPC_SERVER_LOG = """create_backend: using CUDA backend
ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 4060 Ti, compute capability 8.9, VMM: yes
Starting RPC server on 0.0.0.0:50052, backend memory: 7686 MB
"""


def test_rpc_server_lines_are_llama_cpp_log() -> None:
    assert is_log_line("create_backend: using CUDA backend")
    assert is_log_line("Starting RPC server on 0.0.0.0:50052, backend memory: 7686 MB")
    # Modelled: the first release's line, and a newer release's banner.
    assert is_log_line("Starting RPC server on 0.0.0.0:50052")
    assert is_log_line("Starting RPC server v2.0.0")
    assert parse_serving_log(RPC_SERVER_LOG).engine == "llamacpp"
    # Modelled: another program's words are no such line.
    assert not is_log_line("Starting RPC server for the tracker")


def test_nccl_not_applicable_to_rpc_servers() -> None:
    # Real (corpus 2826): four rpc-server hosts of four A800 each.
    result = capture_result("2826", "IC-NCCL-ENV")
    assert result.status == "not-applicable" and "llama.cpp" in result.message, result.message


def test_split_mode_none_runs_on_the_main_gpu_and_the_drafts() -> None:
    # Real (corpus 2843): the model and its draft both on CUDA0, the RTX 3090 beside an RTX 2070 SUPER.
    command = parse_command_line("llama-server.exe -m a.gguf -ngl 999 --main-gpu 0 -md b.gguf --device-draft CUDA0 "
                                 "--split-mode none")
    assert command is not None and command.ggml_cuda_used == (0,)
    result = capture_result("2843", "RT-CUDA-GRAPHS")
    assert result.status == "ok" and "CUDA0 (NVIDIA GeForce RTX 3090) alone" in result.message, result.message
    # Modelled: the main GPU elsewhere, the draft on another device.
    command = parse_command_line("llama-server -m a.gguf -sm none -mg 1 -md b.gguf -devd CUDA0")
    assert command is not None and command.ggml_cuda_used == (0, 1)
    # Modelled: a draft with no device of its own, another split mode, a device list: not narrowed by index.
    for line in ("llama-server -m a.gguf -sm none -md b.gguf", "llama-server -m a.gguf -sm layer",
                 "llama-server -m a.gguf -sm none --device CUDA1", "llama-server -m a.gguf -sm none -devd Vulkan0 -md b"):
        parsed = parse_command_line(line)
        assert parsed is not None and parsed.ggml_cuda_used is None, line
