"""text-generation-webui's launch command read as an engine command (facts/engine_command.TEXTGEN_FLAGS).

`python server.py` names many projects' servers. A flag only text-generation-webui's argument parser takes
(`--loader`, `--gpu-split`, `--wbits`, `--gpu-memory`, `--auto-devices`, ...) says it is that one. Its loaders
split the model's layers over the GPUs `--gpu-split` or `--gpu-memory` lists, or over every GPU they see, so the
command sets no TP that a missing flag would default to 1 (ServingEngine.shown_tp: None).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.importers.recognition import recognise

# Real: https://github.com/oobabooga/textgen/issues/297 (the user's server line, 4-bit LLaMA-30B on a 4090).
TGW_297 = ("python server.py --auto-devices --gpu-memory 20 --load-in-4bit --cai-chat --listen --extensions gallery "
           "llama_prompts --model llama-30b-4bit")
# Real: https://github.com/oobabooga/textgen/pull/3881 (the ExLlamaV2 loader's first test).
TGW_3881 = "python server.py --model TheBloke_Llama-2-7b-Chat-GPTQ --loader exllamav2"
# Real: https://github.com/oobabooga/textgen/issues/2179 (a user's run_cmd flags, GPTQ-for-LLaMa's).
TGW_2179 = "python server.py --chat --xformers --bf16 --gpu-memory 6500MiB --wbits 4 --groupsize 128"
# Real: https://github.com/abetlen/llama-cpp-python/issues/553 (another project's server: not text-generation-webui, but
# llama-cpp-python's, read as llama.cpp's; h89c, corpus 1951).
LLAMA_CPP_PYTHON_553 = ("python3 -m llama_cpp.server --model ggml-model-f16.bin --port 7777 --host 192.168.0.1 "
                        "--n_gpu_layers 30 --n_threads 4 --n_ctx 2048")


def test_its_commands_are_read() -> None:
    for line in (TGW_297, TGW_3881, TGW_2179):
        command = parse_command_line(line)
        assert command is not None and command.engine == "textgen", line
        assert command.argv[0] == "server.py"


def test_another_server_is_not() -> None:
    other = parse_command_line(LLAMA_CPP_PYTHON_553)
    assert other is not None and other.engine == "llamacpp"
    # Modelled: another project's server.py with only generic flags.
    assert parse_command_line("python server.py --port 8000 --host 0.0.0.0 --model m") is None


def test_the_exllama_gpu_split_thread() -> None:
    # Corpus 1986 (oobabooga/textgen#2752): `--loader exllama --gpu-split 24,24` and a load traceback, no driver and
    # no topology shown. The layers split over two GPUs: no TP 1 to call the placement moot.
    results = capture_checks("1986", "DRV-CUDA-COMPAT", "IC-TOPOLOGY-PLACEMENT", "MEM-GPU-SHARED")
    assert {cid: r.status for cid, r in results.items()} == {
        "DRV-CUDA-COMPAT": "unknown", "IC-TOPOLOGY-PLACEMENT": "unknown", "MEM-GPU-SHARED": "unknown"}


def test_a_split_without_a_matrix_is_not_one_gpu(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, f"$ {TGW_297}\n", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status != "not-applicable", result.message


# Its one-click launchers, real: oobabooga/textgen#4282 (`bash start_linux.sh`), #4330 (`./start_linux.sh`), corpus 2037
# (`$  bash start_linux.sh `, its prompt and spaces as pasted).
LAUNCHERS = ("bash start_linux.sh", "./start_linux.sh ", "$  bash start_linux.sh ")


def test_its_one_click_launchers_are_its_commands() -> None:
    for line in LAUNCHERS:
        assert [k for k, *_ in recognise(line + "\n").recognised] == ["engine command"]
    command = parse_command_line("bash start_linux.sh")
    assert command is not None and command.engine == "textgen" and command.argv == ("start_linux.sh",)
    # Modelled: a launcher named in prose, shown with `cat`, or another script run by bash is no command of it.
    # Its macOS launcher says the host is a Mac (facts/gpus.py, corpus 1548), read there.
    for line in ("Run start_linux.sh to start it.", "cat start_linux.sh", "bash start.sh", "bash start_macos.sh"):
        assert parse_command_line(line) is None, line
