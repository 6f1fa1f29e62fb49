"""Engine commands read from their context (issue 28, blind run X: corpus 572 and 578).

- llama.cpp's programs before the `llama-` prefix (`./server`, `./main`) are read as llama.cpp's only where the paste
  shows llama.cpp: the command's path or prompt names it, or a ggml line (`ggml_init_cublas: ...`) is in the paste.
- A command continued with `\\` is read from its first line, also where only a later line names the engine
  (`mpirun -n 4 \\` over `python3 ../run.py --engine_dir DIR`).

Real lines are corpus captures or quoted from the public threads named beside them; counter-examples are modelled
and say so.

A quoted path under the user's own `tmp` folder is split in two strings (tests/test_project_self_contained.py
forbids the builder's scratch path in tracked files); its value is the verbatim line.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

import pytest

from corpus import fact, pasted
from stackaudit.facts.engine_command import EngineCommands, parse_command_line


def _commands(tmp_path: Path, text: str) -> EngineCommands | None:
    value = fact(pasted(text), "engine_commands")
    return value if isinstance(value, EngineCommands) else None


# https://github.com/ggml-org/llama.cpp/issues/6184 (2024-03-20): `./main` in one block, its log in another.
MAIN_6184 = ("I then run `llama.cpp` with:\n\n```\n./main -m ./models/Llama-2-7B-GGUF/llama-2-7b.Q8_0.gguf -p \"test\"\n"
             "```\n\nI see the following:\n\n```\nggml_init_cublas: no CUDA devices found, CUDA will be disabled\n```\n")
# https://github.com/ggml-org/llama.cpp/issues/5134 (2024-01-26): `./build/bin/main` above its device list.
MAIN_5134 = ("./build/bin/main -m /data/nwj/models/microsoft/phi-2/ggml-model-f32_q4_0.gguf -p \"Question\" -ngl 33\n"
             "Log start\nmain: build = 1761 (cb1e281)\nggml_init_cublas: found 8 CUDA devices:\n"
             "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n")
# corpus 572 (ggml-org/llama.cpp#3230): the prompt's directory names llama.cpp.
SERVER_3230 = ("~/llama.cpp$ ./server --numa -m ./models/llama2-70b-chat-ggml/ggml-chat-model-q6.bin --n-gpu-layers 83 "
               "-c 4096\n")
# https://github.com/ggml-org/llama.cpp/issues/6700 (2024-04-17): `./server` with no llama.cpp path or ggml line, but its
# model a GGUF file, ggml's own format: read (issue 28, h89c; corpus 1954).
SERVER_6700 = ("```\nCUDA_VISIBLE_DEVICES=0 ./server -m /.../model1.gguf\n CUDA_VISIBLE_DEVICES=1  ./server -m "
               "/.../model2.gguf\n```\n")


@pytest.mark.parametrize("text", [MAIN_6184, MAIN_5134, SERVER_3230])
def test_legacy_llamacpp_program_read(tmp_path: Path, text: str) -> None:
    commands = _commands(tmp_path, text)
    assert commands is not None
    assert [c.engine for c in commands.commands] == ["llamacpp"]
    assert commands.commands[0].argv[0] in ("./main", "./build/bin/main", "./server")


def test_legacy_program_with_a_gguf_model_read(tmp_path: Path) -> None:
    commands = _commands(tmp_path, SERVER_6700)
    assert commands is not None and [c.engine for c in commands.commands] == ["llamacpp", "llamacpp"]
    # Modelled: the same line with another kind of model file shows no ggml program.
    assert _commands(tmp_path, SERVER_6700.replace(".gguf", ".onnx")) is None


def test_generic_server_name_needs_context() -> None:
    """Modelled: a program named `server` is any project's; only a llama.cpp path or line makes it llama.cpp's."""
    assert parse_command_line("./server --port 8000 -m app.conf") is None
    assert parse_command_line("./server --port 8000 -m app.conf", "ggml_init_cublas: found 1 CUDA devices:") is not None
    assert parse_command_line("~/llama.cpp/server -m m.gguf -ngl 99") is not None
    assert parse_command_line("server -m m.gguf", "ggml_init_cublas: found 1 CUDA devices:") is None  # no path


# corpus 578 (NVIDIA/TensorRT-LLM#1034), TensorRT-LLM#753 and #882: mpirun's line names no engine; a later one does.
RUN_1034 = ("root@8c64641a157c:/TensorRT-LLM/examples/mpt# mpirun -n 4 --allow-run-as-root \\\n"
            "    python3 ../run.py --max_output_len 100 \\\n"
            "                     --engine_dir ./trt_engines/mpt-7b/fp16_tp4 \\\n"
            "                     --tokenizer_dir mosaicml/mpt-7b\n")
RUN_753 = ("mpirun -n 2 --allow-run-as-root \\\n"
           "    python ../run.py --max_output_len=50 \\\n"
           "                     --tokenizer_dir=baichuan-inc/Baichuan-13B-Chat \\\n"
           "                     --engine_dir=./t" "mp/baichuan_v1_13b/trt_engines/fp16/2-gpu/\n")
RUN_882 = ("```\nmpirun -n 2 --allow-run-as-root \\\npython3 run.py --max_output_len=1024 \\\n"
           "               --tokenizer_dir /root/autodl-tmp/llama-2-7b \\\n"
           "               --engine_dir=/root/autodl-tmp/t" "mp/llama/7B/trt_engines/fp16/1-gpu/   "
           "--input_file=/root/autodl-tmp/scrambled_sampled_dataset.json\n```\n")


@pytest.mark.parametrize(("text", "ranks"), [(RUN_1034, "4"), (RUN_753, "2"), (RUN_882, "2")])
def test_continued_command_read_from_its_first_line(tmp_path: Path, text: str, ranks: str) -> None:
    commands = _commands(tmp_path, text)
    assert commands is not None
    (command,) = commands.commands
    assert command.engine == "trtllm"
    # The engine inside the launcher (facts/engine_command._launched), the launcher's words and rank count beside it.
    assert command.launcher[:3] == ("mpirun", "-n", ranks) and command.ranks == int(ranks)
    assert posixpath.basename(command.argv[1]) == "run.py"


def test_continuation_of_no_engine_not_read(tmp_path: Path) -> None:
    """Modelled: a continued `torchrun` training command names no engine on any line: nothing is read."""
    text = "torchrun --nproc_per_node 2 \\\n    train.py --output_dir ./run \\\n    --bf16\n"
    assert _commands(tmp_path, text) is None
