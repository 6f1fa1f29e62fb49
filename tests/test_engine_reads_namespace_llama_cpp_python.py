"""Issue 28 (h89c): engines read from what their users paste.

- vLLM's API server printed every parsed flag (`api_server.py:152] args: Namespace(... enforce_eager=False, ...)`,
  0.2.x to 0.8.x): enforce_eager=False there leaves CUDA graphs on, vLLM's default since 0.2.6, where nothing else
  shown narrows them (corpus 1949).
- llama-cpp-python's OpenAI server, `python3 -m llama_cpp.server --model M.gguf --n_gpu_layers N`, is llama.cpp's
  library behind its own server (corpus 1951).
- llama.cpp's programs before their `llama-` prefix (`./server`, `./main`) are read where the model they load is a GGUF
  file, ggml's own format (corpus 1954).
- A container whose command is a bare shell (`--entrypoint=bash`) runs what is typed inside it: its image names no
  engine whose TP the placement checks could take (corpus 1947).

Real lines are quoted (some shortened to the fields the rule reads) from the source named beside each; the
counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.engine_command import EngineCommands, parse_command_line, tensor_split_shares

# --- vLLM's `args: Namespace(...)` -----------------------------------------------------------------------------

_HEAD = "INFO 05-04 14:43:16 api_server.py:151] vLLM API server version {v}\n"
_ARGS = ("INFO 05-04 14:43:16 api_server.py:152] args: Namespace(host=None, port=8000, model='m', "
         "max_model_len={length}, tensor_parallel_size=1, gpu_memory_utilization=0.9, quantization=None, "
         "enforce_eager={eager}, {capture}disable_custom_all_reduce=False, {extra}engine_use_ray=False{end}\n")


def _namespace(version: str = "0.4.1", length: str = "None", eager: str = "False",
               capture: str = "max_context_len_to_capture=8192, ", extra: str = "", end: str = ")") -> str:
    head = _HEAD.format(v=version) if version else ""
    return head + _ARGS.format(length=length, eager=eager, capture=capture, extra=extra, end=end)


# The shapes of three public logs (stored GitHub index): vLLM 0.4.1 serving Meta-Llama-3-8B-Instruct (a benchmark
# note, whole Namespace, max_model_len=None), vLLM 0.3.x serving Mistral-7B with worker_use_ray=True (whole line, no
# version line), vLLM 0.6.1.dev in Docker serving Phi-3.5-vision (max_seq_len_to_capture=8192, whole line).
REAL_SHAPES = [
    _namespace("0.4.1"),
    _namespace("", extra="worker_use_ray=True, "),
    _namespace("0.6.1.dev238+ge2c6e0a82", capture="max_context_len_to_capture=None, max_seq_len_to_capture=8192, "),
]


def _graphs(tmp_path: Path, text: str) -> tuple[str, str]:
    r = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    return r.status, r.message


def test_corpus_1949_namespace_with_enforce_eager_false_is_ok() -> None:
    # vllm-project/vllm#4383: vLLM 0.4.1, the args line cut after disable_custom_all_reduce ("tok").
    r = capture_checks("1949", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "Namespace" in r.message, r.message


@pytest.mark.parametrize("text", REAL_SHAPES)
def test_namespace_lines_of_other_releases_are_ok(tmp_path: Path, text: str) -> None:
    assert _graphs(tmp_path, text)[0] == "ok"


def test_namespace_with_enforce_eager_true_is_the_issue(tmp_path: Path) -> None:
    assert _graphs(tmp_path, _namespace(eager="True"))[0] == "issue"


@pytest.mark.parametrize("text", [
    # Modelled: a cut line of a release that reads compilation_config (0.6.5 on): the flag may follow the cut.
    _namespace("0.8.3", end=", tok"),
    # Modelled: compilation_config set (`-O 0` turns graphs off in V1).
    _namespace("0.8.3", extra="compilation_config={'level': 0}, "),
    # Modelled: data parallelism, under which some releases force eager mode.
    _namespace("0.8.3", extra="data_parallel_size=2, compilation_config=None, "),
    # Modelled: capture length below max_model_len: longer sequences run eagerly.
    _namespace("0.4.1", length="32768"),
    # corpus 68's shape (vllm-project/vllm#13814): the line cut before enforce_eager.
    _HEAD.format(v="0.4.1") + "INFO 05-04 14:43:16 api_server.py:152] args: Namespace(host=None, port=8000, model='m'\n",
])
def test_namespace_that_leaves_graphs_open_stays_unknown(tmp_path: Path, text: str) -> None:
    assert _graphs(tmp_path, text)[0] == "unknown"


def test_namespace_of_a_v1_release_whole_with_compilation_config_none_is_ok(tmp_path: Path) -> None:
    # Modelled on vllm-project/vllm#16777's 0.8.4 line: compilation_config=None keeps vLLM's default.
    assert _graphs(tmp_path, _namespace("0.8.4", extra="compilation_config=None, "))[0] == "ok"


# --- llama-cpp-python's server ---------------------------------------------------------------------------------

# ggml-org/llama.cpp#5014, abetlen/llama-cpp-python#1826, #553 (each a command of the issue body, in backticks).
PYTHON_SERVER = [
    "start llma-cpp-python sever use command:\n`sudo python3 -m llama_cpp.server --model "
    "./codellama-7b-instruct.Q5_K_S.gguf --n_gpu_layers 35 --host 0.0.0.0 --port 8085`\n",
    "After I install `llama-cpp-python-server` with cuda support and run \n`python3 -m llama_cpp.server --model "
    "starcoderbase-3b/starcoderbase-3b.Q4_K_M.gguf --n_gpu_layers 10\n`\n",
    "```\npython3 -m llama_cpp.server --model ggml-model-f16.bin --port 7777 --host 192.168.0.1 --n_gpu_layers 30 "
    "--n_threads 4 --n_ctx 2048\n```\n",
]


@pytest.mark.parametrize("text", PYTHON_SERVER)
def test_llama_cpp_python_server_is_llamacpp(text: str) -> None:
    commands = fact(pasted(text), "engine_commands")
    assert isinstance(commands, EngineCommands)
    (command,) = commands.commands
    assert command.engine == "llamacpp" and not command.asks_no_gpu_layers  # `--n_gpu_layers N` read as `-ngl N`


def test_corpus_1951_is_read_and_its_split_is_two_devices() -> None:
    results = capture_checks("1951", "IC-TOPOLOGY-PLACEMENT", "DRV-CUDA-COMPAT", "RT-TORCH-ARCH")
    assert results["IC-TOPOLOGY-PLACEMENT"].status == "unknown"  # `--tensor_split 64 36`: two devices, links not shown
    assert results["DRV-CUDA-COMPAT"].status == "unknown"
    assert results["RT-TORCH-ARCH"].status == "not-applicable"  # llama.cpp's kernels, no torch


def test_tensor_split_shares_as_separate_words() -> None:
    argv = ("python3", "-m", "llama_cpp.server", "--tensor_split", "64", "36", "--n_ctx", "8000")
    assert tensor_split_shares(argv, "64") == ["64", "36"]
    assert tensor_split_shares(("llama-server", "-ts", "3,1", "-c", "4"), "3,1") == ["3", "1"]
    # Modelled: every share but one 0 keeps the model on one device, in either spelling.
    one = parse_command_line("python3 -m llama_cpp.server --model m.gguf --n_gpu_layers 99 --tensor_split 0 1")
    assert one is not None and "one device" in one.one_gpu
    two = parse_command_line("python3 -m llama_cpp.server --model m.gguf --n_gpu_layers 99 --tensor_split 64 36")
    assert two is not None and two.one_gpu == ""


def test_modelled_other_python_module_named_server_is_not_read() -> None:
    assert parse_command_line("python3 -m http.server --model x 8000") is None


# --- llama.cpp's `./server` with a GGUF model --------------------------------------------------------------------

def test_corpus_1954_legacy_server_with_a_gguf_model_is_read() -> None:
    # ggml-org/llama.cpp#3520: `$ ./server -m ./models/llama-2-70b-chat.Q5_K_M.gguf -ngl 999`, then `ggml_init_cubla`.
    results = capture_checks("1954", "IC-TOPOLOGY-PLACEMENT", "CTR-GPU-ACCESS")
    assert results["IC-TOPOLOGY-PLACEMENT"].status == "unknown"
    assert results["CTR-GPU-ACCESS"].status == "unknown"


def test_corpus_1954_command_is_read_once() -> None:
    # Its own line shows llama.cpp (the GGUF model): it is not recorded again as the line that shows it.
    commands = fact(pasted("```\n$ ./server -m ./models/llama-2-70b-chat.Q5_K_M.gguf -ngl 999\nggml_init_cubla\n"),
                    "engine_commands")
    assert isinstance(commands, EngineCommands) and len(commands.commands) == 1


# --- a container that runs a shell ------------------------------------------------------------------------------

def test_corpus_1947_bash_entrypoint_states_no_tp() -> None:
    # vllm-project/vllm#12008: `docker run ... --entrypoint=bash vllm/vllm-openai:latest`, torchrun inside it.
    r = capture_checks("1947", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "unknown" and "bash runs TP" not in r.message, r.message


def test_modelled_serving_container_still_gives_its_tp(tmp_path: Path) -> None:
    text = "docker run --gpus all --ipc=host vllm/vllm-openai:v0.6.6 --model m --tensor-parallel-size 1\n"
    r = paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "not-applicable" and "TP 1" in r.message, r.message
    shell = "docker run --gpus all --ipc=host -it --entrypoint bash vllm/vllm-openai:v0.6.6\n"
    r = paste_checks(tmp_path, shell, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert "TP 1" not in r.message, r.message


# --- llama.cpp's unified CLI and tensorrtllm_backend's launcher ---------------------------------------------------

# huggingface/hub-docs#2593 (run on Jobs), meta-models/meta-oss-cookbook#34, ggml-org/llama-install.sh#20 (corpus 1985).
LLAMA_SERVE = [
    "llama serve -hf ggml-org/gemma-4-E4B-it-GGUF --host 0.0.0.0 --port 8080 -ngl 99",
    "llama serve -hf meta-models/Muse-Glimmer-30B-GGUF:Q4_K_M",
    "llama serve -hf unsloth/gemma-4-E4B-it-GGUF:Q4_K_M -ngl 99 -c 4096",
]


@pytest.mark.parametrize("line", LLAMA_SERVE)
def test_llama_serve_is_llama_server(line: str) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == "llamacpp"


def test_modelled_llama_alone_or_another_word_is_no_engine() -> None:
    assert parse_command_line("llama serve") is None  # no model: the word names the program
    assert parse_command_line("llama stack run ./run.yaml --port 8321") is None  # Meta's Llama Stack CLI


# NVIDIA/TensorRT-LLM#1507, tensorrtllm_backend#54 (corpus 900), #129 (corpus 1769), and corpus 1962's pod.
LAUNCH_SCRIPT = [
    ("python3 scripts/launch_triton_server.py --world_size=2 --model_repo=/models", 2),
    ("python3 scripts/launch_triton_server.py --world_size=2 --model_repo=/workspace/tensorrtllm_backend/all_models/vicuna",
     2),
    ("python launch_triton_server.py --world_size 2 --tritonserver /opt/tritonserver/bin/tritonserver --model_repo /m/",
     2),
    ("python3 launch_triton_server.py --model_repo /m", 1),  # modelled: `--world_size` defaults to 1
]


@pytest.mark.parametrize(("line", "ranks"), LAUNCH_SCRIPT)
def test_launch_triton_server_is_tensorrt_llm_over_its_world(line: str, ranks: int) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == "trtllm" and command.ranks == ranks


def test_corpus_1769_world_of_two_states_no_tp_of_one() -> None:
    # tensorrtllm_backend#129: `--world_size 2` runs two ranks of an engine built before; its TP is not 1.
    results = capture_checks("1769", "IC-TOPOLOGY-PLACEMENT", "IC-CUSTOM-ALLREDUCE")
    assert results["IC-TOPOLOGY-PLACEMENT"].status == "unknown"
    assert "TP=1" not in results["IC-CUSTOM-ALLREDUCE"].message


# --- NCCL 2.19's channel lines: one rank on each node ---------------------------------------------------------------

def test_corpus_1956_every_rank_on_device_0_over_the_network_is_one_rank_per_node() -> None:
    # autoscriptlabs/nccl-mesh-plugin#56: `0[0] -> 1[0] [send] via NET/IB/4|5` on every channel, ranks 0 and 1.
    r = capture_checks("1956", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "not-applicable" and "one rank on each node" in r.message, r.message


_NET = ":22901:22901 [0] NCCL INFO Channel {c:02d}/0 : {a}[{ga}] -> {b}[{gb}] [send] via NET/IB/4\n"


def test_the_same_lines_without_the_environment_are_one_rank_per_node(tmp_path: Path) -> None:
    text = "".join(_NET.format(c=c, a=0, ga=0, b=1, gb=0) for c in range(4))
    assert paste_checks(tmp_path, text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"].status == "not-applicable"


@pytest.mark.parametrize("text", [
    # Shaped after NVIDIA/nccl-tests#166 and deepseek-ai/DeepEP#106: a cut of a job of several GPUs per node, the
    # ranks shown not 0 to N-1.
    "".join(_NET.format(c=c, a=7, ga=7, b=8, gb=0) for c in range(4)),
    "".join(_NET.format(c=c, a=2, ga=2, b=10, gb=2) for c in range(4)),
    # corpus 831 (vllm-project/vllm#16318): a two-rank communicator across nodes on device 4 of each, nodes of
    # several GPUs.
    "".join(_NET.format(c=c, a=0, ga=4, b=1, gb=4) for c in range(4)),
    # Modelled: one host whose P2P and SHM are turned off connects its ranks over the network too.
    "host:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
    "host:1:1 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n"
    + "".join(_NET.format(c=c, a=0, ga=0, b=1, gb=0) for c in range(4)),
])
def test_net_lines_that_do_not_show_one_rank_per_node(tmp_path: Path, text: str) -> None:
    r = paste_checks(tmp_path, text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert "one rank on each node" not in r.message, r.message
