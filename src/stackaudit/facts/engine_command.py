"""Command lines that start a serving engine, pasted into a report (`vllm serve m --tensor-parallel-size 2`,
`NCCL_P2P_DISABLE=1 python -m sglang.launch_server ...`, `trtllm-serve ...`).

What such a line shows: the engine, its flags, and the variables set on the line itself. What it does not
show: the rest of the environment, and what the engine made of its flags (vLLM turns graphs off itself
under data parallelism, corpus 67): its own log says that. So a flag on the line proves a setting; its
absence proves nothing about the running engine.

Recorded form: the importer (importers/engine_command.py) keeps each line verbatim, continuation lines
joined, as the pasted document ENGINE_COMMAND (facts/sources.py). The config file a command names
(`--extra_llm_api_options extra-llm-api-config.yml`), where the paste shows it, follows as a heredoc
(`cat > NAME <<'EOF'` ... `EOF`); its top-level keys are the command's options (ProcessInfo.option).
The script lines that set the shell variables a command reads (`GPU_NUM=4`) come before it.
vLLM's offline `LLM(...)` call is recorded on one line; its keyword arguments are the flags (python_engine_call).
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
import shlex
import warnings
from dataclasses import dataclass, replace

from stackaudit.facts._parse import (
    TP_FLAGS,
    ParseError,
    argv_value,
    cuda_visible_entries,
    first_command,
    parallel_size,
    sequenced_commands,
)
from stackaudit.facts.processes import (
    CONFIG_FLAGS,
    RANK_LAUNCHERS,
    VLLM_ONLY_FLAGS,
    ProcessInfo,
    classify,
    launcher_ranks,
    parse_flat_yaml,
)
from stackaudit.facts.registry import Sourced, fact, first_of, parser
from stackaudit.facts.sources import ENGINE_COMMAND, EVIDENCE_LINES, PROMPT_HOSTS, USER_ENGINES, USER_MACHINE

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# A shell variable set on a line of its own in a pasted script (`GPU_NUM=4`, `export MODEL_PATH="/m"`): a later
# command's `$GPU_NUM` / `${GPU_NUM}` reads it (corpus 680). A reference to a variable the paste does not set stays
# as written, so the flag's value is unknown (facts/_parse.parallel_size reads no `$GPU_NUM`), never the default.
SHELL_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S.*)?$")
# A Windows batch script's `set NAME=value` / `set "NAME=value"` (cmd.exe): the variable is in the environment of every
# command after it, as an exported one is (corpus 962: `set CUDA_VISIBLE_DEVICES=2` above `llama-server.exe`). The
# value is taken as written (cmd keeps backslashes); unquoted, it is one word, so a sentence (`set X=0 and it works`) is
# no assignment. `set /a` and `set /p` are none either.
CMD_SET = re.compile(r'^\s*set\s+(?:"([A-Za-z_][A-Za-z0-9_]*)=([^"]*)"|([A-Za-z_][A-Za-z0-9_]*)=(\S*))\s*$', re.I)
VARIABLE_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# Wrappers before the program that change nothing about its flags, with their options that take the next word
# (`numactl -N 1 -m 1 prog`, `taskset -c 0-7 prog`); an option written `--membind=1` is one word.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset(("-u", "-g")), "env": frozenset(("-u",)), "nohup": frozenset(), "exec": frozenset(),
    "time": frozenset(), "stdbuf": frozenset(), "uv": frozenset(), "run": frozenset(),
    "numactl": frozenset(("-C", "-N", "-m", "-p", "-i", "--physcpubind", "--cpunodebind", "--membind", "--preferred",
                          "--interleave")),
    "taskset": frozenset(("-c", "--cpu-list")),
}
# A Triton model's config (`config.pbtxt` in its model repository, protobuf text) as the paste shows it beside the
# server's command: its `instance_group [ { count: 1 kind: KIND_GPU gpus: [ 6 ] } ]` puts the model's instances on
# those CUDA devices, numbered as the server's CUDA sees them (after CUDA_VISIBLE_DEVICES; server#1567, corpus 1493).
TRITON_CONFIG = "config.pbtxt"
INSTANCE_GPUS = re.compile(r"\bgpus\s*:\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*,?\s*\]")


def instance_gpus(text: str) -> tuple[tuple[int, ...], ...]:
    """The `gpus: [ ... ]` lists of a Triton model config's instance groups (INSTANCE_GPUS), in order."""
    return tuple(tuple(int(g) for g in m[1].split(",")) for m in INSTANCE_GPUS.finditer(text))


# Commands that only feed text into a pipe (`echo "<prompt>" | llama-cli ...`): the engine is the command after it.
_FEEDERS = frozenset(("echo", "printf", "cat"))
# The processes that carry the flags (not a worker or a helper).
_TOP_ROLES = {"api-server", "launcher", ""}
# Cheap tests before any splitting: a long vLLM log names "vllm" on most lines, its commands are rare.
ENGINE_WORDS = ("vllm", "sglang", "trtllm", "tensorrt_llm", "lmdeploy", "engine_dir", "llama-server", "llama-cli", "server.py",
                "llama_cpp.server", "llama serve", "launch_triton_server.py",
                "llava-cli", "llama-mtmd-cli",
                "aphrodite", "api_server.py", "koboldcpp", "benchmark_throughput.py", "benchmark_latency.py",
                "convert_checkpoint.py", "quantize.py", "build.py", "tritonserver", "trtserver", "text-generation-launcher", "mlc_llm",
                "start_linux.sh", "start_windows.bat", "start_wsl.bat", "llamafile", "ktransformers", "local_chat.py",
                "openrlhf", "lightllm", "infer_backend", "fastchat", "dllama")
COMMAND_HINT = re.compile(r"\bvllm\s+serve\b|\bsglang\s+serve\b|\bsglang/launch_server\.py\s|\bvllm\s+bench\s+(?:latency|throughput)\b|\blmdeploy\s+(?:serve|chat)\b|-m\s+(?:vllm|sglang)\.|\btrtllm-serve\b|\btrtllm-llmapi-launch\b"
                          r"|\b(?:triton|trt)server\s.*--model-(?:repo(?:sitory)?|store)\b"  # Triton (processes._program)
                          r"|\bserver_vllm\.py\b"  # functionary's vLLM server (facts/processes._program)
                          r"|\bvf-vllm\s"  # verifiers' vLLM server (processes.WEIGHT_SYNC_SERVERS)
                          # vLLM's entrypoint run as a script, with a flag only vLLM takes (processes.VLLM_ONLY_FLAGS)
                          r"|\bapi_server\.py\s.*--(?:enforce-eager|worker-use-ray|engine-use-ray|"
                          r"distributed-executor-backend|gpu-memory-utilization|max-num-seqs)\b"
                          # vLLM's benchmark scripts before `vllm bench` (processes.VLLM_BENCH_SCRIPTS), by the same flags
                          r"|\bbenchmark_(?:throughput|latency)\.py\s.*--(?:enforce-eager|gpu-memory-utilization|"
                          r"max-num-seqs|tensor-parallel-size)\b"
                          r"|\baphrodite\s+run\b|-m\s+aphrodite\."  # Aphrodite, a vLLM fork (facts/processes._program)
                          r"|\btrtllm-build\b|\b(?:run|summarize)\.py\s.*--engine_dir\b|\bllama-(?:server|cli|mtmd-cli)\b|\bllava-cli\b"
                          # llama-cpp-python's OpenAI server, run as a module (GGML_ENGINES)
                          r"|-m\s+llama_cpp\.server\s"
                          # llama.cpp's unified CLI (LLAMA_CLI_SUBCOMMANDS), tensorrtllm_backend's launcher script
                          r"|(?:^|[\s/\\])llama(?:\.exe)?\s+serve\s|\blaunch_triton_server\.py\s"
                          # TensorRT-LLM's C++ benchmarks of a built engine, and its builder before trtllm-build (0.8)
                          r"|\bgpt(?:Manager|Session)Benchmark\s.*--engine_dir\b"
                          r"|\bbuild\.py\s.*--(?:use_gpt_attention_plugin|use_gemm_plugin|use_inflight_batching|"
                          r"paged_kv_cache|remove_input_padding|use_weight_only|enable_context_fmha)\b"
                          # TensorRT-LLM's benchmark (the LLM API in-process, with its options), KoboldCpp
                          r"|\btrtllm-bench\b|\bkoboldcpp[\w-]*(?:\.py|\.exe)?\s"
                          # distributed-llama's program and its mode (DLLAMA_MODES)
                          r"|(?:^|[\s/])dllama\s+(?:inference|chat|worker)\s"
                          # llamafile, its own program or a model packed with it (LLAMAFILE_PACKED), before an option
                          r"|(?:^|[\s/\\])(?:llamafile|[\w.+-]+\.llamafile)(?:\.exe)?\s+-"
                          # NVIDIA Dynamo's launcher of a vLLM or SGLang engine
                          r"|\bdynamo(?:-run|\s+run)\s.*\bout=(?:vllm|sglang)\b"
                          # TensorRT-LLM's checkpoint conversion, which states the TP the engine is built with (1
                          # where it names none), and its quantisation script (QUANTIZE_SCRIPT)
                          r"|\bconvert_checkpoint\.py\s.*--(?:tp_size|pp_size|output_dir)\b|\bquantize\.py\s.*--qformat\b"
                          # Hugging Face TGI's launcher, with its options (TGI_PROGRAMS)
                          r"|\btext-generation-launcher\s+-"
                          # LightLLM's server module (LIGHTLLM_MODULE)
                          r"|-m\s+lightllm\.server\.api_server\b"
                          # MLC LLM's CLI (MLC_SUBCOMMANDS)
                          r"|\bmlc_llm\s+(?:serve|chat|compile)\s"
                          # text-generation-webui's server.py with a flag of its own (TEXTGEN_FLAGS)
                          r"|\bserver\.py\s.*--(?:loader|gpu-split|autosplit|wbits|groupsize|model_type|pre_layer|"
                          r"auto-devices|gpu-memory|cai-chat|model-menu|auto-launch)\b"
                          # an RL trainer that starts vLLM engines for its rollouts (VLLM_ROLLOUT_TRAINERS)
                          r"|-m\s+openrlhf\.cli\.train_ppo_ray\b"
                          # FastChat's model workers (FASTCHAT_WORKERS)
                          r"|-m\s+fastchat\.serve\.(?:model|vllm)_worker\b"
                          # LLaMA-Factory serving on its vLLM backend (LLAMAFACTORY_PROGRAMS)
                          r"|--infer_backend[=\s]+vllm\b"
                          # KTransformers' chat and server scripts with a flag of its own (KTRANSFORMERS_FLAGS)
                          r"|\b(?:local_chat\.py|main\.py|ktransformers)\s.*--(?:gguf_path|optimize_config_path|"
                          r"optimize_rule_path|cpu_infer)\b"
                          # text-generation-webui's one-click launchers (TEXTGEN_LAUNCHERS)
                          r"|(?:^|[\s/\\])start_(?:linux\.sh|windows\.bat|wsl\.bat)\b"
                          # pm2 starting a program with its arguments after `--` (_pm2_started decides which)
                          r"|\bpm2\s+start\s.*\s--\s")
# A config file written in the shell: `cat > extra-llm-api-config.yml <<'EOF'` up to the line `EOF`.
HEREDOC = re.compile(r"^\s*cat\s*>\s*(?P<path>[^\s<>]+)\s*<<-?\s*(?P<q>['\"]?)(?P<end>\w+)(?P=q)\s*$")
# Engines a pasted command can start that run no PyTorch: llama.cpp's server runs its own ggml CUDA kernels and reads
# none of vLLM's, SGLang's or TensorRT-LLM's flags. Not in facts/processes.classify: a live process list judges
# itself, and the runtime checks read only the engines there.
# llama-cli is its one-shot program on the same library (ggml-org/llama.cpp#9881 runs it on an A100). Its multimodal
# programs take the same model and GPU options: `llava-cli` (its name from late 2023, `./llava-cli -m ... --mmproj ...`,
# ggml-org/llama.cpp#4196), `llama-llava-cli` (after the rename of June 2024, ggml-org/llama.cpp#7809) and
# `llama-mtmd-cli`, which replaced them in 2025 (`./build/bin/llama-mtmd-cli -hf ... --n_gpu_layers 99`,
# ggml-org/llama.cpp#22790). llama-bench is not one of them: its options take lists (`-ngl 10,20`) and its `-ngl`
# defaults to 99, so the readings of a program's flags below would misread it.
# KoboldCpp (https://github.com/LostRuins/koboldcpp) is llama.cpp's library behind its own server, run as its binary or
# as `python koboldcpp.py`.
GGML_ENGINES = {"llama-server": "llamacpp", "llama-cli": "llamacpp", "koboldcpp": "llamacpp", "koboldcpp.py": "llamacpp",
                "llava-cli": "llamacpp", "llama-llava-cli": "llamacpp", "llama-mtmd-cli": "llamacpp",
                "llama_cpp.server": "llamacpp", "llamafile": "llamacpp"}
# Mozilla's llamafile (https://github.com/mozilla-ai/llamafile) is llama.cpp built as one executable, with llama.cpp's
# options (`-ngl 999`, `-m model.gguf`) and its own `--gpu nvidia|amd`: run as `llamafile -m M.gguf ...` or as a model
# packed with it into one executable (`./Meta-Llama-3-70B-Instruct.Q4_0.llamafile -ngl 9999`, corpus 2216, 2217). It
# prints llama.cpp's own log lines, and its GPU module's (`import_cuda_impl: initializing gpu module...`).
LLAMAFILE_PACKED = re.compile(r"[\w.+-]+\.llamafile(?:\.exe)?", re.I)
# llama-cpp-python (https://github.com/abetlen/llama-cpp-python) wraps the same library for Python; its OpenAI server runs
# as a module, `python3 -m llama_cpp.server --model M.gguf --n_gpu_layers 56 --tensor_split 64 36` (corpus 1951), its
# options llama.cpp's with underscores (_parse.argv_value reads both spellings; `--n_gpu_layers` defaults to 0, as
# `-ngl` does), and `--tensor_split` takes its shares as separate words (tensor_split_shares).
# llama.cpp's unified CLI, `llama SUBCOMMAND` (ggml-org/llama.cpp discussion #23875, 2026: "`git commit` vs
# `git-commit`"): `llama serve` is llama-server (`llama serve -hf ggml-org/gemma-4-E4B-it-GGUF -ngl 99`,
# huggingface/hub-docs#2593; corpus 1985). Only the subcommands listed: the word `llama` alone names many programs.
LLAMA_CLI = "llama"
LLAMA_CLI_SUBCOMMANDS = {"serve": "llamacpp"}
# KoboldCpp's release binaries carry their build in the name (`koboldcpp_cu12.exe`, `koboldcpp_nocuda.exe`,
# `koboldcpp-linux-x64-cuda1150`, the old `koboldcpp_CUDA_only.exe` of LostRuins/koboldcpp#170): each is KoboldCpp.
KOBOLDCPP_BUILD = re.compile(r"koboldcpp[_-][\w.-]+", re.I)
# text-generation-webui (oobabooga/text-generation-webui, now oobabooga/textgen) starts as `python server.py`, its
# model loaded by one of its loaders (`--loader exllama`, `exllamav2`, `llama.cpp`, `transformers`). `server.py` alone
# names many projects' servers: a flag only its argument parser takes (modules/shared.py) says it is this one
# (`--loader`, the ExLlama loaders' `--gpu-split` and `--autosplit`, GPTQ-for-LLaMa's `--wbits`, `--groupsize`,
# `--model_type` and `--pre_layer`, transformers' `--auto-devices` and `--gpu-memory`, its UI's `--cai-chat`,
# `--model-menu` and `--auto-launch`; oobabooga/textgen#2752, #297, #3881). It loads its models in PyTorch or through
# llama.cpp, its loader decides.
TEXTGEN_PROGRAM = "server.py"
TEXTGEN_FLAGS = frozenset(("--loader", "--gpu-split", "--autosplit", "--wbits", "--groupsize", "--model_type",
                           "--pre_layer", "--auto-devices", "--gpu-memory", "--cai-chat", "--model-menu",
                           "--auto-launch"))
# Its one-click installer's launchers (`bash start_linux.sh`, `./start_linux.sh --listen`, `start_windows.bat`;
# oobabooga/textgen#4282, #4330, corpus 2037) run its server.py through one_click.py, their arguments passed on after
# the flags of CMD_FLAGS.txt, which the line does not show. Its macOS launcher (`start_macos.sh`) is left to the
# evidence line that reads it as a Mac's GPU (facts/gpus.py, corpus 1548): a Mac runs no CUDA engine.
TEXTGEN_LAUNCHERS = frozenset(("start_linux.sh", "start_windows.bat", "start_wsl.bat"))
# RL trainers that start vLLM engines for their rollouts, each with flags of its own that it passes to vLLM: the
# trainer's module, and its flag -> vLLM's. OpenRLHF's PPO (`python3 -m openrlhf.cli.train_ppo_ray ... --vllm_num_engines
# 2 --vllm_tensor_parallel_size 2`, usually behind `ray job submit ... --`) creates `--vllm_num_engines` LLMRayActors,
# each vLLM's LLM over `--vllm_tensor_parallel_size` GPUs, with its `--enforce_eager`, `--enable_prefix_caching`,
# `--vllm_gpu_memory_utilization` and `--vllm_enable_sleep` (openrlhf/cli/train_ppo_ray.py, create_vllm_engines;
# OpenRLHF/OpenRLHF#951, corpus 2360). Only those flags are vLLM's: the rest are the trainer's.
VLLM_ROLLOUT_TRAINERS: dict[str, dict[str, str]] = {
    "openrlhf.cli.train_ppo_ray": {"--pretrain": "--model", "--vllm_tensor_parallel_size": "--tensor-parallel-size",
                                   "--enforce_eager": "--enforce-eager", "--enable_prefix_caching": "--enable-prefix-caching",
                                   "--vllm_gpu_memory_utilization": "--gpu-memory-utilization",
                                   "--vllm_enable_sleep": "--enable-sleep-mode"},
}


# LLaMA-Factory (hiyouga/LLaMA-Factory) serves a model on vLLM where `--infer_backend vllm` says so: its API and chat
# programs (`llamafactory-cli api|chat|webchat`, `python src/api.py` of its releases before the CLI) pass its own flags
# to vLLM's AsyncEngineArgs, with tensor_parallel_size the GPUs it sees (src/llamafactory/chat/vllm_engine.py:
# `"tensor_parallel_size": get_device_count() or 1`, `"enforce_eager": model_args.vllm_enforce_eager`; corpus 2866).
# Its program (None: any subcommand), and its flag -> vLLM's. Its booleans are HfArgumentParser's: the flag alone, or
# with `true`/`false` after it.
LLAMAFACTORY_PROGRAMS: dict[str, tuple[str, ...] | None] = {"llamafactory-cli": ("api", "chat", "webchat"),
                                                            "api.py": None, "cli_demo.py": None, "web_demo.py": None}
LLAMAFACTORY_VLLM_FLAGS = {"--model_name_or_path": "--model", "--vllm_maxlen": "--max-model-len",
                           "--vllm_gpu_util": "--gpu-memory-utilization", "--vllm_enforce_eager": "--enforce-eager"}
LLAMAFACTORY_BOOLEANS = frozenset(("--vllm_enforce_eager",))
# FastChat (lm-sys/FastChat) serves each model from a worker its controller reaches over HTTP: `python3 -m
# fastchat.serve.model_worker --model-path M --num-gpus 2` loads the model with Hugging Face transformers in its one
# process, its layers placed over `--num-gpus` GPUs by accelerate's device map (fastchat/model/model_adapter.py
# load_model: `device_map="sequential"`, `max_memory` per GPU), which moves activations between GPUs in that process,
# with no NCCL and no CUDA graphs (engine "fastchat"); `fastchat.serve.vllm_worker` runs vLLM with its own engine
# arguments, `--num-gpus` above 1 its tensor_parallel_size (fastchat/serve/vllm_worker.py: `if args.num_gpus > 1:
# args.tensor_parallel_size = args.num_gpus`). Its controller and API server hold no model. The worker module -> engine.
FASTCHAT_WORKERS = {"fastchat.serve.model_worker": "fastchat", "fastchat.serve.vllm_worker": "vllm"}


def fastchat_worker_argv(words: list[str]) -> tuple[str, tuple[str, ...]] | None:
    """The engine a FastChat worker command runs (FASTCHAT_WORKERS) and its arguments from the module on, its vLLM
    worker's `--num-gpus` above 1 given as vLLM's `--tensor-parallel-size`; None for any other command."""
    if len(words) < 3 or not posixpath.basename(words[0]).startswith("python") or words[1] != "-m" \
            or words[2] not in FASTCHAT_WORKERS:
        return None
    engine, argv = FASTCHAT_WORKERS[words[2]], tuple(words[2:])
    gpus = argv_value(argv, ("--num-gpus",))
    if engine == "vllm" and gpus is not None and argv_value(argv, TP_FLAGS) is None:
        argv += ("--tensor-parallel-size", gpus) if not gpus.isdecimal() or int(gpus) > 1 else ()
    return engine, argv


# The TP it runs where the command does not show how many GPUs it sees: a value that is no count (_parse.sizes_unread).
GPUS_SEEN = "<the GPUs it sees>"


def llamafactory_vllm_argv(words: list[str], env: list[tuple[str, str]]) -> tuple[str, ...] | None:
    """The vLLM arguments a LLaMA-Factory command on its vLLM backend runs (LLAMAFACTORY_PROGRAMS), after its program's
    name: each of its vLLM flags renamed, a boolean kept only where true, and `--tensor-parallel-size` the devices its
    CUDA_VISIBLE_DEVICES lists (GPUS_SEEN where the line sets none); None for any other command."""
    program = words[1:] if words and posixpath.basename(words[0]).startswith("python") else words
    if not program or (name := posixpath.basename(program[0])) not in LLAMAFACTORY_PROGRAMS:
        return None
    subcommands = LLAMAFACTORY_PROGRAMS[name]
    if subcommands is not None and (len(program) < 2 or program[1] not in subcommands):
        return None
    if (argv_value(program, ("--infer-backend",)) or "").lower() != "vllm":
        return None
    argv = [program[0], *program[1:2 if subcommands is not None else 1]]
    for k, word in enumerate(program):
        flag, eq, value = word.partition("=")
        if flag not in LLAMAFACTORY_VLLM_FLAGS:
            continue
        if not eq and k + 1 < len(program) and not program[k + 1].startswith("-"):
            value = program[k + 1]
        if flag in LLAMAFACTORY_BOOLEANS:
            if value.lower() in ("", "true", "yes", "1"):
                argv.append(LLAMAFACTORY_VLLM_FLAGS[flag])
        elif value:
            argv += [LLAMAFACTORY_VLLM_FLAGS[flag], value]
    devices = cuda_visible_entries(dict(env).get("CUDA_VISIBLE_DEVICES"))
    argv += ["--tensor-parallel-size", str(len(devices)) if devices else GPUS_SEEN]
    return tuple(argv)


def rollout_engine_argv(module: str, words: list[str]) -> tuple[str, ...]:
    """The vLLM arguments an RL trainer's command passes to its rollout engines (VLLM_ROLLOUT_TRAINERS), after the
    module's name: each of its vLLM flags renamed, with its value where one follows; the trainer's own flags left out."""
    flags = VLLM_ROLLOUT_TRAINERS[module]
    argv = [module]
    for k, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name not in flags:
            continue
        argv.append(flags[name] + eq + value)
        if not eq and k + 1 < len(words) and not words[k + 1].startswith("-"):
            argv.append(words[k + 1])
    return tuple(argv)


# KTransformers (kvcache-ai/ktransformers): a PyTorch engine that runs a MoE model's experts on the CPU (`--cpu_infer`
# threads; a USE_NUMA=1 build keeps a copy of them per NUMA node) and the rest on the GPU as its optimize rules place it,
# from a GGUF file (`--gguf_path`). It runs as `python ktransformers/local_chat.py`, its server `python
# ktransformers/server/main.py` or the `ktransformers` console script (its README; corpus 984, 2376, kvcache-ai/
# ktransformers#1157). The scripts' names are generic (`main.py`): a flag only its argument parsers take says it is this
# one. It has no tensor-parallel flag, and no vLLM or SGLang flags (its server's balance_serve backend is its own).
KTRANSFORMERS_PROGRAMS = frozenset(("local_chat.py", "main.py", "ktransformers"))
KTRANSFORMERS_FLAGS = frozenset(("--gguf_path", "--optimize_config_path", "--optimize_rule_path", "--cpu_infer"))
_SHELLS = frozenset(("bash", "sh", "cmd", "cmd.exe"))
# MLC LLM (https://llm.mlc.ai/docs/deploy/cli.html, /deploy/rest.html, /compilation/compile_models.html): its CLI
# `mlc_llm` (or `python -m mlc_llm`) serves a model (`serve MODEL [--model-lib LIB] [--overrides "..."]`), chats with
# it (`chat`), or compiles the model library those load (`compile CONFIG --device cuda -o LIB`). Its models run on
# TVM's runtime, not PyTorch; its tensor-parallel shards are `tensor_parallel_shards=N` in `--overrides` (compile and
# serve) or gen_config's `--tensor-parallel-shards N` (_parse.sizes_from_argv). The subcommand, and whether it builds.
MLC_SUBCOMMANDS = {"serve": False, "chat": False, "compile": True}
# LightLLM (https://github.com/ModelTC/lightllm, docs: "Starting the service"): its server is a Python module,
# `python -m lightllm.server.api_server --model_dir DIR --tp N ...`, whose `--tp` (TP_FLAGS) is its tensor-parallel
# size, 1 by default.
LIGHTLLM_MODULE = "lightllm.server.api_server"
MLC_PROGRAM = "mlc_llm"
# Hugging Face Text Generation Inference (TGI): its launcher starts one model server shard per GPU (`--num-shard`, else
# every GPU it sees unless `--sharded false`) and the router in front of them; the shards run PyTorch and all-reduce
# through torch.distributed's NCCL (https://huggingface.co/docs/text-generation-inference/reference/launcher). Not in
# facts/processes.classify: no live process list of TGI is read yet. Its image runs the launcher with the arguments
# after it (`docker run ... ghcr.io/huggingface/text-generation-inference:TAG --model-id ... --num-shard 2`), which
# the container readers take (facts/docker.py).
TGI_PROGRAMS = {"text-generation-launcher": "tgi"}
# distributed-llama (b4rtaz/distributed-llama): `./dllama inference|chat --model M --workers HOST:PORT ...` on its root
# node, `./dllama worker --port 9999` on the others (corpus 2829). Its own CPU and Vulkan backends run the model
# (facts/applicability.DLLAMA): none of the other engines' flags apply to it.
DLLAMA_PROGRAM = "dllama"
DLLAMA_MODES = frozenset(("inference", "chat", "worker"))
# ollama's server started by hand (`ollama serve`, its variables set before it: `OLLAMA_SCHED_SPREAD=1 ollama serve`):
# its settings are the environment its command gives (corpus 1426, 1798). Its other commands (`ollama run`, `ps`) are
# the server's clients, no engine command (facts/engine_command._PROMPT_ENGINE reads those).
# On Windows the ollama app (`& "ollama app.exe"` from PowerShell, the tray program) starts `ollama serve` with the
# environment it was given (ollama's Windows guide: quit the app, set the variables, start it again; corpus 2497).
OLLAMA_APP = "ollama app"
OLLAMA_SERVE = re.compile(r"(?:^|[\s/=])ollama(?:\.exe)?\s+serve\b(?!\s*-)|\bollama app\.exe\b")
# PowerShell sets a variable of the environment the programs it starts after it inherit through its env: drive
# (`$env:CUDA_VISIBLE_DEVICES="1"; & "ollama app.exe"`), an `export` of its own; its call operator `&` runs the
# program a quoted word names (https://learn.microsoft.com/en-us/powershell/module/microsoft.powershell.core/about/about_environment_variables).
POWERSHELL_ENV = re.compile(r"^\$env:([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.I)
# The launcher's options alone that ask it about itself: `--env` prints the runtime environment, the answer TGI's issue
# form asks for (corpus 246, 527, 746), `--version`, `--help`. Such a line names the program, not a served model.
TGI_QUERIES = frozenset(("--env", "--version", "-V", "--help", "-h"))
# llama.cpp's programs before their `llama-` prefix (ggml-org/llama.cpp#7809, June 2024): `./server` and `./main`, and
# its LLaVA example's first name, `./llava` (October 2023, before `llava-cli`; corpus 1833, ggml-org/llama.cpp#3616):
# LLaVA is a model's name too.
# A name this generic is llama.cpp's only where the paste shows llama.cpp (GGML_SHOWN): the command's path or its
# prompt's directory names it, or a line of the paste is ggml's own (`ggml_init_cublas: found 3 CUDA devices:`). A
# csh prompt may stand glued to the path (`%./main -m ...`, corpus 1525).
# A GGUF model file, ggml's own format, shows it too (`-m ./models/llama-2-70b-chat.Q5_K_M.gguf`, corpus 1954, where
# the log below is cut inside `ggml_init_cubla`; ggml-org/llama.cpp#6700). Not the ggml `.bin` files before it:
# whisper.cpp's `./main -m models/ggml-base.en.bin` is ggml's too, and serves no language model.
LEGACY_GGML_PROGRAMS = {"server": "llamacpp", "main": "llamacpp", "llava": "llamacpp"}
LEGACY_COMMAND = re.compile(r"(?:^|[\s$#>%])(?:[\w.~-]*/)+(?:server|main|llava)\s+-")
GGML_SHOWN = re.compile(r"llama\.cpp|\bggml_(?:cuda_init|init_cublas)\b|[\w-]\.gguf\b", re.I)
# tensorrtllm_backend's launcher (scripts/launch_triton_server.py): `python3 launch_triton_server.py --world_size 2
# --model_repo DIR` runs `mpirun -n 2 tritonserver --model-repository=DIR ...`, one Triton rank per GPU of the engine
# (NVIDIA/TensorRT-LLM#1507; tensorrtllm_backend#54, #129; corpus 900, 1769, 1962). `--world_size` defaults to 1.
# The ranks run TensorRT-LLM's engine (the backend the script is for), so the command is TensorRT-LLM's.
TRITON_LAUNCH_SCRIPT = "launch_triton_server.py"
# The launchers that start every rank of the engine themselves, on the machine where they are typed: the Triton
# script runs `mpirun --allow-run-as-root -n 1 tritonserver ... : -n 1 tritonserver ...` with no host list, so its
# `--world_size` ranks are its own child processes there (tensorrtllm_backend scripts/launch_triton_server.py;
# tensorrtllm_backend#377, #577; corpus 1769, 1962, 2035).
LOCAL_RANK_LAUNCHERS = (TRITON_LAUNCH_SCRIPT,)
# TensorRT-LLM's engine builder: the command whose plugin flags (`--use_custom_all_reduce disable`, 0.9) the engine
# that `run.py --engine_dir` later runs was built with; and the checkpoint conversion before it
# (examples/<model>/convert_checkpoint.py, https://github.com/NVIDIA/TensorRT-LLM/tree/v0.12.0/examples/llama), whose
# `--tp_size` / `--pp_size` split the checkpoint into the ranks the engine is then built and run with.
# Its quantisation script (examples/quantization/quantize.py: `--qformat fp8 --output_dir ./quantized_fp8`) writes a
# checkpoint for trtllm-build as the conversion does, split by its own `--tp_size` / `--pp_size`, each 1 by default
# (NVIDIA/TensorRT-LLM#1864, #1914; corpus 2792). `quantize.py` is a generic name: it is TensorRT-LLM's where the command
# carries `--qformat`. trtllm-build takes the engine's TP and PP from the checkpoint it builds (its config's mapping),
# so a conversion shown that wrote its `--checkpoint_dir` states the engine's world size (checkpoint_world_size), and
# `--auto_parallel N` builds that checkpoint for N GPUs (tensorrt_llm/commands/build.py of 0.10 to 0.12).
QUANTIZE_SCRIPT = "quantize.py"
QUANTIZE_FLAGS = ("--qformat",)
CONVERTERS = ("convert_checkpoint.py", QUANTIZE_SCRIPT)
BUILDERS = {"trtllm-build": "trtllm", "convert_checkpoint.py": "trtllm", QUANTIZE_SCRIPT: "trtllm", "build.py": "trtllm"}
# The engine builder of TensorRT-LLM before trtllm-build (0.8 and before): each model's examples/<model>/build.py
# (https://github.com/NVIDIA/TensorRT-LLM/blob/v0.5.0/examples/llama/build.py). `build.py` is a generic name: it is
# TensorRT-LLM's where the command carries one of the flags only that builder takes. It builds an engine for
# `--world_size` GPUs, else `--tp_size` x `--pp_size`, each 1 by default, into `--output_dir`.
LEGACY_BUILDER = "build.py"
LEGACY_BUILD_FLAGS = ("--use_gpt_attention_plugin", "--use_gemm_plugin", "--use_inflight_batching", "--paged_kv_cache",
                      "--remove_input_padding", "--use_weight_only", "--enable_context_fmha")
# The release from which each engine captures CUDA graphs by default: vLLM from 0.2.6 (vllm-project/vllm#1926, which
# added `--enforce-eager`, December 2023), SGLang from July 2024 (sgl-project/sglang#612, "Enable cuda graph by
# default"). A whole command of one of these engines with no eager-mode flag runs them in every release from then on:
# the blind readings of such a command whose release the paste does not show read it ok (corpus 684, 1444, 1643, 1640,
# 1664, and 1068 but for its --enable-mla), two unknown (884, 1611), so only a release before these turns them off.
GRAPHS_DEFAULT_SINCE = {"vllm": "0.2.6 (vllm-project/vllm#1926, December 2023)",
                        "sglang": "July 2024 (sgl-project/sglang#612)"}
# TensorRT-LLM programs that run an engine without CUDA graphs unless a switch asks for them: (program, switch).
# gptSessionBenchmark's `enable_cuda_graph` is a cxxopts switch, "Execute GPT session with CUDA graph." (off unless
# given; cpp/benchmarks/gptSessionBenchmark.cpp; corpus 1667).
GRAPHS_SWITCH_PROGRAMS = (("gptSessionBenchmark", "--enable_cuda_graph"),)
# Launchers that set CUDA graphs on themselves before they apply the config file the command names, whatever the
# engine's release: (program, subcommands, the backend flag's value). trtllm-bench's PyTorch path passed
# `use_cuda_graph: True` before PR 5014 (the code NVIDIA/TensorRT-LLM#4827 changes), then a `cuda_graph_config`
# with padding (bench/benchmark/utils/general.py get_settings); only the YAML's `cuda_graph_config: null` turns
# them off (PR 5634). A YAML's `pytorch_backend_config` block (0.19 and before) replaces the launcher's PyTorch
# settings as a whole, so its nested keys, which are not read, decide.
GRAPHS_ON_LAUNCHERS = (("trtllm-bench", ("throughput", "latency"), "pytorch"),)
# What a pasted command shows of its engine's release where the version is not in the source: a program or flag that
# only releases capturing CUDA graphs by default accept, as (engine, the program's words or the flag, the release
# that added it). vLLM captures them by default from 0.2.6 (vllm-project/vllm#1926, `--enforce-eager`), SGLang from
# July 2024 (sgl-project/sglang#612). `vllm serve` came in June 2024 (vllm-project/vllm#5090), SGLang's
# `--reasoning-parser` in March 2025 (sgl-project/sglang#4000; 0.4.3 rejects it, sgl-project/sglang#4116).
# The release is the first that can hold the flag: its pull request was still open when the release before it came.
GRAPHS_DEFAULT_MARKS = (
    ("vllm", "vllm serve", "0.5.0"),
    # The longest context the captured graphs cover, added with the capture itself (vllm-project/vllm#1926, 0.2.6;
    # `--max-seq-len-to-capture` replaced it later): a command or printed arguments that carry it ran 0.2.6 or later.
    ("vllm", "--max-context-len-to-capture", "0.2.6"),
    # Automatic prefix caching, vllm-project/vllm#2762: still in review on 2024-02-28, after 0.3.2 (2024-02-21).
    ("vllm", "--enable-prefix-caching", "0.3.3"),
    # The JSON speculative config, vllm-project/vllm#14434: opened 2025-03-07, after 0.7.3 (2025-02-20).
    ("vllm", "--speculative-config", "0.8.0"),
    ("sglang", "--reasoning-parser", "0.4.4"),
    # torch.compile over the batch sizes the CUDA graph runner captures (the v0.2 launch of benchmark/blog_v0_2,
    # July 2024): it came after graph capture and sgl-project/sglang#612 (corpus 886).
    ("sglang", "--enable-torch-compile", "0.2.0"),
    # MoE expert parallelism, sgl-project/sglang#2371: opened 2024-12-06, after the v0.4.0 bump (sglang#2338, 12-03).
    ("sglang", "--enable-ep-moe", "0.4.0.post1"),
)


# An engine started in Python, its engine arguments as keyword arguments (`LLM(model=..., tensor_parallel_size=8,
# enforce_eager=True)`): the constructor's name, and the engine whose CLI spells each keyword as a flag (vLLM's
# EngineArgs: `enforce_eager` is `--enforce-eager`, `tensor_parallel_size=8` is `--tensor-parallel-size 8`).
PYTHON_ENGINE_CALLS = {"LLM": "vllm", "EngineArgs": "vllm", "AsyncEngineArgs": "vllm"}
# Other projects name a class LLM too (TensorRT-LLM's LLM API, nano-vllm): `LLM(` is vLLM's where the paste shows
# vLLM, as a module (`from vllm import LLM`, `vllm.LLM(`) or a line of vLLM's logger (serving_logs.VLLM_LINE).
VLLM_MODULE = re.compile(r"(?<![\w-])vllm(?:\.\w|\s+import\b)|\bimport\s+vllm\b")
_DICT_BODY = re.compile(r"\{[^{}]*:[^{}]*\}")  # a JSON object or dict literal with no other inside it
_NAMES_KEPT = ("model", "tokenizer", "served_model_name", "download_dir")
PYTHON_CALL = re.compile(r"(?<![\w.])(?:vllm\.)?(?P<name>" + "|".join(PYTHON_ENGINE_CALLS) + r")\(")


@dataclass(frozen=True)
class EngineCommand:
    engine: str  # vllm | sglang | trtllm | lmdeploy | triton | llamacpp (GGML_ENGINES) | tgi (TGI_PROGRAMS) | ollama | mlc | lightllm | dllama
    # | textgen (TEXTGEN_FLAGS) | ktransformers (KTRANSFORMERS_FLAGS)
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()  # NAME=value set on the line itself, in order
    line: str = ""
    # The config file it names and, where the paste shows that file, its top-level keys (parse_flat_yaml).
    config_path: str = ""
    config: tuple[tuple[str, str], ...] = ()
    builds: bool = False  # the engine's builder (BUILDERS), not a command that runs it
    # its last line ends in `\\`, or inside a quoted last word: the shell line goes on past what the paste shows
    cut: bool = False
    # Its environment is a container's env list pasted beside its argument list (CONTAINER_ENV): every variable the
    # spec sets, as a compose service's or a pod's env is (the image's own ENV aside).
    env_whole: bool = False
    # Triton's: the CUDA devices of each instance_group of the model configs the paste shows (TRITON_CONFIG), in order.
    instance_gpus: tuple[tuple[int, ...], ...] = ()
    # The launcher that starts it as several ranks (RANK_LAUNCHERS: `mpirun -n 2 --allow-run-as-root`), its words
    # before the program; `argv` is the program's own. `ranks`: the number of ranks the launcher gives, None where
    # it gives none as a count.
    launcher: tuple[str, ...] = ()
    ranks: int | None = None

    @property
    def ranks_started_here(self) -> int | None:
        """The ranks the command starts itself on the machine where it is typed, where its program is a launcher that
        keeps every rank local (LOCAL_RANK_LAUNCHERS) and gives a count; None for any other command."""
        local = not self.launcher and bool(self.argv) and posixpath.basename(self.argv[0]) in LOCAL_RANK_LAUNCHERS
        return self.ranks if local else None

    @property
    def quoted(self) -> str:
        """The line as a report quotes it: each JSON or dict argument's body cut to `{…}` (`--speculative-config
        '{"model": ...}'`), since a report holds no value as JSON."""
        line, previous = self.line, ""
        while line != previous:
            line, previous = _DICT_BODY.sub("{…}", line), line
        return line

    @property
    def converts(self) -> bool:
        """Whether it is TensorRT-LLM's checkpoint conversion (BUILDERS' `convert_checkpoint.py`, or its `quantize.py`):
        it states the TP and PP the engine is built with, and none of trtllm-build's plugin flags."""
        return self.builds and any(posixpath.basename(a) in CONVERTERS for a in self.argv[:2])

    @property
    def checkpoint_world_size(self) -> int | None:
        """The GPUs the checkpoint a conversion writes is split for (converts): `--tp_size` x `--pp_size`, each 1
        where not given; None for any other command or a size it does not give as a count."""
        if not self.converts:
            return None
        sizes = [argv_value(self.argv, (flag,)) for flag in ("--tp-size", "--pp-size")]
        counts = [1 if v is None else parallel_size(v) for v in sizes]
        return None if None in counts else (counts[0] or 1) * (counts[1] or 1)

    @property
    def checkpoint_dir(self) -> str:
        """The checkpoint a trtllm-build builds (`--checkpoint_dir`), normalised (`./ckpt/` is `ckpt`); "" where it
        names none."""
        value = argv_value(self.argv, ("--checkpoint-dir",)) if self.builds and not self.converts else None
        return posixpath.normpath(value) if value else ""

    @property
    def legacy_build(self) -> bool:
        """Whether it is TensorRT-LLM's builder before trtllm-build (LEGACY_BUILDER, `examples/<model>/build.py`)."""
        return self.builds and any(posixpath.basename(a) == LEGACY_BUILDER for a in self.argv[:2])

    @property
    def built_world_size(self) -> int | None:
        """The GPUs the engine is built for, where the command is TensorRT-LLM's builder before trtllm-build
        (legacy_build): `--world_size`, else `--tp_size` x `--pp_size`, each 1 where not given; None for any other
        command (trtllm-build takes them from its checkpoint) or a size it does not give as a count."""
        if not self.legacy_build:
            return None
        world = argv_value(self.argv, ("--world-size",))
        if world is not None:
            return parallel_size(world)
        tp, pp = (argv_value(self.argv, (flag,)) for flag in ("--tp-size", "--pp-size"))
        sizes = [1 if v is None else parallel_size(v) for v in (tp, pp)]
        return None if None in sizes else (sizes[0] or 1) * (sizes[1] or 1)

    @property
    def engine_dir(self) -> str:
        """The engine directory it builds (`--output_dir` of a builder) or runs (`--engine_dir`), without its trailing
        `/`; "" where it names none."""
        value = argv_value(self.argv, ("--output-dir",) if self.builds else ("--engine-dir",))
        return (value or "").rstrip("/")

    @property
    def named_tp(self) -> int | None:
        """The TP size the path of the engine directory it runs states (ENGINE_DIR_LAYOUT): `tp=2/pp=1` or `tp4pp2`
        state it, and `1-gpu` an engine of one GPU (TP 1). A pipeline of as many stages as its launcher's ranks (`2-pp`
        under `mpirun -n 2`) leaves TP 1, since TensorRT-LLM's runtime runs an engine of TP x PP equal to its MPI size.
        None for a build, or where the path states neither."""
        if self.builds or not self.engine_dir:
            return None
        stated = {(m.group("kind") or m.group("kind2")).lower(): int(m.group("n") or m.group("m"))
                  for m in ENGINE_DIR_LAYOUT.finditer(self.engine_dir)}
        if "tp" in stated:
            return stated["tp"]
        if stated.get("gpu") == 1:
            return 1
        return 1 if self.launcher and self.ranks and stated.get("pp") == self.ranks else None

    @property
    def names_only_program(self) -> bool:
        """Whether the line is the engine's program alone, with no model and no option (`vllm serve`, `python -m
        vllm.entrypoints.openai.api_server`): a sentence that names the command, not a shell line that runs it."""
        module = posixpath.basename(self.argv[0]).startswith("python") if self.argv else False  # `python -m M`
        options = [a for n, a in enumerate(self.argv[1:], 1) if a.startswith("-") and not (module and n == 1)]
        return not options and classify(self.argv[:-1]) is None

    @property
    def engine_shown_by_context(self) -> bool:
        """Whether the program's name is generic (LEGACY_GGML_PROGRAMS): the engine is the paste's, not the name's."""
        return bool(self.argv) and posixpath.basename(self.argv[0]) in LEGACY_GGML_PROGRAMS

    def as_process(self) -> ProcessInfo:
        """The command as the runtime checks read an engine's top process (pid 0: no process is known); its
        environment is the variables set on the line, None when it sets none (the rest is not shown)."""
        return ProcessInfo(pid=0, ppid=None, comm="pasted command", argv=self.argv, engine=self.engine,
                           role="api-server", root_pid=0, environ=dict(self.env) if self.env else None,
                           config_path=self.config_path, config=dict(self.config))

    @property
    def config_name(self) -> str:
        """The file name of the config the command names (`--extra_llm_api_options`, `--config`), or ""."""
        value = self.as_process().flag(*CONFIG_FLAGS.get(self.engine, ()))
        return posixpath.basename(value) if value else ""


    @property
    def graphs_configured(self) -> bool:
        """Whether the TensorRT-LLM config file it names, as the paste shows it, sets `cuda_graph_config` to a
        section: the LLM API captures CUDA graphs with it in every release that reads the key (its 1.0 runtime
        example: `cuda_graph_config=CudaGraphConfig(...)  # Enable CUDA graphs`); `cuda_graph_config: null` turns
        them off."""
        return self.engine == "trtllm" and dict(self.config).get("cuda_graph_config") == "{...}"

    @property
    def graphs_default_mark(self) -> tuple[str, str]:
        """(the program or flag, the release that added it) where the command carries one that only releases
        capturing CUDA graphs by default accept (GRAPHS_DEFAULT_MARKS); ("", "") where it carries none."""
        marks = self.release_marks
        return marks[0] if marks else ("", "")

    @property
    def release_marks(self) -> tuple[tuple[str, str], ...]:
        """(the program or flag, the release that added it) for each of GRAPHS_DEFAULT_MARKS the command carries, in
        the table's order: the latest release among them is the oldest the command can have run on."""
        program = " ".join([posixpath.basename(self.argv[0]), *self.argv[1:2]]) if self.argv else ""
        return tuple((mark, since) for engine, mark, since in GRAPHS_DEFAULT_MARKS
                     if engine == self.engine and (program == mark or (mark.startswith("-") and argv_value(
                         self.argv, (mark,)) is not None)))

    @property
    def splits_over_every_gpu(self) -> bool:
        """Whether it is a llama.cpp server that splits its model over every GPU CUDA sees: layers on the GPUs
        (`-ngl` not 0) or a split mode other than `none`, and neither CUDA_VISIBLE_DEVICES on the line nor a device
        list or tensor split (`--device`, `--tensor-split`) that narrows the GPUs (llama.cpp's `--split-mode` help:
        "split the model across multiple GPUs", layer by default)."""
        if self.engine != "llamacpp" or "CUDA_VISIBLE_DEVICES" in dict(self.env):
            return False
        mode = argv_value(self.argv, ("--split-mode", "-sm"))
        layers = argv_value(self.argv, ("--n-gpu-layers", "--gpu-layers", "-ngl"))
        narrowed = argv_value(self.argv, ("--device", "-dev", "--tensor-split", "-ts", "--main-gpu", "-mg"))
        return narrowed is None and mode != "none" and (mode is not None or layers not in (None, "0"))

    @property
    def asks_no_gpu_layers(self) -> bool:
        """Whether it is a llama.cpp command that puts no layer on the GPU: `-ngl 0`, or no `-ngl` at all (the default
        of 0 layers, as splits_over_every_gpu reads it)."""
        return self.engine == "llamacpp" and not self.asks_only \
            and argv_value(self.argv, ("--n-gpu-layers", "--gpu-layers", "-ngl")) in (None, "0")

    @property
    def asks_only(self) -> bool:
        """Whether the line only asks the program about itself (`llama-server --version`, `vllm serve --help`): it
        loads no model and runs on no GPU."""
        return bool(set(self.argv[1:]) & {"--version", "--help", "-h"})

    @property
    def one_gpu(self) -> str:
        """Why the command runs its model on one GPU, in words; "" where it does not show that. CUDA_VISIBLE_DEVICES
        on the line names one device (the process sees no other GPU); or a llama.cpp server whose `--tensor-split`
        gives every share but one 0 (all layers on that device; llama.cpp's `--tensor-split` help: "fraction of the
        model to offload to each GPU"), or `--split-mode none` ("use one GPU only", corpus 1301)."""
        visible = dict(self.env).get("CUDA_VISIBLE_DEVICES")
        if visible is not None and re.fullmatch(r"\s*[\w-]+\s*", visible):
            return f"CUDA_VISIBLE_DEVICES={visible} on its command line shows it one GPU"
        if self.engine != "llamacpp":
            return ""
        split = argv_value(self.argv, ("--tensor-split", "-ts"))
        shares = tensor_split_shares(self.argv, split)
        split = ",".join(shares) if shares else split
        if shares and all(re.fullmatch(r"\d+(?:\.\d*)?", v.strip()) for v in shares) \
                and sum(float(v) > 0 for v in shares) == 1:
            return f"--tensor-split {split} puts every layer on one device"
        if argv_value(self.argv, ("--split-mode", "-sm")) == "none":
            return "--split-mode none keeps the model on one GPU"
        return ""

    @property
    def ggml_cuda_used(self) -> tuple[int, ...] | None:
        """The CUDA devices a llama.cpp command runs its models on, where it narrows them by index: `--split-mode none`
        keeps the model on its main GPU (`--main-gpu`, 0 by default: llama.cpp's help, "the GPU to use for the model
        (with split-mode = none)"), and a draft model's `--device-draft CUDAn` adds that device (corpus 2843). None
        where it does not narrow them so: another split mode, a device list (`--device`, which `--main-gpu` indexes),
        CUDA_VISIBLE_DEVICES on the line (which renumbers them), a draft model with no device of its own, or a device
        that is not CUDA's."""
        if self.engine != "llamacpp" or argv_value(self.argv, ("--split-mode", "-sm")) != "none" \
                or "CUDA_VISIBLE_DEVICES" in dict(self.env) or argv_value(self.argv, ("--device", "-dev")) is not None:
            return None
        main = argv_value(self.argv, ("--main-gpu", "-mg")) or "0"
        draft = argv_value(self.argv, ("--device-draft", "-devd"))
        drafted = argv_value(self.argv, ("--model-draft", "-md", "--hf-repo-draft", "-hfd")) is not None
        named = re.fullmatch(r"\s*CUDA(\d+)\s*", draft or "")
        if not main.isdecimal() or (draft is not None and named is None) or (drafted and draft is None):
            return None
        return tuple(sorted({int(main), *((int(named.group(1)),) if named else ())}))

    @property
    def launcher_sets_graphs(self) -> bool:
        """Whether its launcher turns CUDA graphs on itself in every release (GRAPHS_ON_LAUNCHERS), with no config
        file named that the paste does not show (that file could turn them off)."""
        program = posixpath.basename(self.argv[0]) if self.argv else ""
        return (not self.config_name or bool(self.config_path)) and "pytorch_backend_config" not in dict(self.config) \
            and any(
            program == name and any(a in subcommands for a in self.argv) and argv_value(self.argv, ("--backend",)) == backend
            for name, subcommands, backend in GRAPHS_ON_LAUNCHERS)


# The parallel layout an engine directory's path states, in the names TensorRT-LLM's examples give them (`tp=2/pp=1`,
# examples/llama/README.md of 0.5-0.7, NVIDIA/TensorRT-LLM#593) and users follow (`tp4pp2`,
# triton-inference-server/tensorrtllm_backend#355; `2-pp`, NVIDIA/TensorRT-LLM#1102): `tp`/`pp` then the size, or the
# size then `-tp`/`-pp`/`-gpu` (the examples' `1-gpu`, `2-gpu`: the GPUs of the engine), each a part of the name
# between separators.
ENGINE_DIR_LAYOUT = re.compile(r"(?:(?<=[/._-])|^)(?:(?P<kind>tp|pp)[=_-]?(?P<n>\d{1,3})"
                               r"|(?P<m>\d{1,3})-(?P<kind2>tp|pp|gpu))(?=[/._-]|tp|pp|$)", re.I)


def tensor_split_shares(argv: tuple[str, ...], split: str | None) -> list[str]:
    """The shares a llama.cpp `--tensor-split` gives: its value's parts (`3,1`, `15.6/12`), and after a value of one
    share, the numbers that follow it as words of their own (llama-cpp-python's `--tensor_split 64 36`)."""
    if split is None:
        return []
    shares = re.split(r"[,/]", split)
    if len(shares) == 1 and split in argv:
        for word in argv[argv.index(split) + 1:]:
            if not re.fullmatch(r"\d+(?:\.\d*)?", word):
                break
            shares.append(word)
    return shares


def built_for_one_gpu(commands: tuple[EngineCommand, ...] | list[EngineCommand]) -> str:
    """What shows that the TensorRT-LLM engines a paste builds and runs hold one GPU each, in words; "" where it does
    not. Every build shown is TensorRT-LLM's builder before trtllm-build (LEGACY_BUILDER) for one GPU (no
    `--world_size`, `--tp_size` or `--pp_size` above 1: each defaults to 1), and every run shown runs one of their
    output directories (`--engine_dir`, by its last part: runs are often given relative to another directory) in a
    process of its own, not under a launcher of several ranks (`mpirun -n 4`); corpus 1262. A Triton server shown
    beside them serves one rank where no launcher of several ranks starts it (`tritonserver --model-repo=...`,
    corpus 2153): TensorRT-LLM's backend runs an engine of TP x PP equal to its MPI size."""
    trt = [c for c in commands if c.engine == "trtllm"]
    sized = built_world_sizes(commands)
    builds = [c for c, _ in sized]
    if not builds or any(size != 1 for _, size in sized):
        return ""
    if any(c.engine == "triton" and c.launcher and c.ranks != 1 for c in commands):
        return ""
    built = {posixpath.basename(c.engine_dir) for c in builds if c.engine_dir}
    runs = [c for c in trt if not c.builds]
    for run in runs:
        match = classify(run.argv)
        if posixpath.basename(run.engine_dir) not in built or match is None or match.role == "launcher" \
                or (run.launcher and run.ranks != 1):
            return ""
    if all(c.legacy_build for c in builds):
        shown = (f"the {len(builds)} engine build(s) shown are TensorRT-LLM's build.py for one GPU (no --world_size, "
                 "--tp_size or --pp_size above 1)")
    else:
        converted = sorted({posixpath.basename(c.argv[1] if len(c.argv) > 1 and c.argv[0].startswith("python")
                                               else c.argv[0]) for c in trt if c.converts})
        shown = (f"the {len(builds)} engine build(s) shown build checkpoints that the {', '.join(converted)} shown "
                 "wrote for one GPU (no --tp_size or --pp_size above 1; trtllm-build takes the engine's TP and PP from "
                 "its checkpoint)")
    return shown + (f", and the {len(runs)} run(s) shown run those engines without a launcher of several ranks"
                    if runs else "")


def built_world_sizes(commands: tuple[EngineCommand, ...] | list[EngineCommand]) -> list[tuple[EngineCommand, int | None]]:
    """Each TensorRT-LLM engine build a paste shows (not a conversion), with the GPUs it builds for (_built_world_size,
    None where the paste does not show them)."""
    trt = [c for c in commands if c.engine == "trtllm"]
    written = {posixpath.normpath(c.engine_dir): c.checkpoint_world_size for c in trt if c.converts and c.engine_dir}
    return [(c, _built_world_size(c, written)) for c in trt if c.builds and not c.converts]


def _built_world_size(build: EngineCommand, written: dict[str, int | None]) -> int | None:
    """The GPUs an engine build shown builds for: a legacy build.py's own sizes (built_world_size); a trtllm-build's
    checkpoint's, where a conversion shown wrote its `--checkpoint_dir` (`written`: its output directory -> TP x PP)
    and no flag of its own (`--auto_parallel`, an older trtllm-build's `--tp_size` / `--pp_size`) asks for another
    size. A trtllm-build the paste cuts may carry such a flag past the cut: read only where its own `--tp_size` /
    `--pp_size` before the cut (corpus 2803) or its output directory's name (ENGINE_DIR_LAYOUT: `1-gpu`, `tp4`; corpus
    2804) states the same size. None where the paste does not show it."""
    if build.legacy_build:
        return build.built_world_size
    own = {flag: parallel_size(v) for flag in ("--auto-parallel", "--tp-size", "--pp-size")
           if (v := argv_value(build.argv, (flag,))) is not None}
    if None in own.values():
        return None
    auto = own.get("--auto-parallel") or 1
    stated = (own.get("--tp-size") or 1) * (own.get("--pp-size") or 1)
    from_checkpoint = written.get(build.checkpoint_dir) if build.checkpoint_dir else None
    if auto > 1:
        size: int | None = auto
    elif from_checkpoint is not None and stated not in (1, from_checkpoint):
        size = None  # the build's own sizes and its checkpoint's disagree
    else:
        size = from_checkpoint if from_checkpoint is not None else None
    if size is not None and build.cut and _dir_world_size(build.engine_dir) != size \
            and not ({"--tp-size", "--pp-size"} & own.keys() and stated == size):
        return None
    return size


def _dir_world_size(path: str) -> int | None:
    """The GPUs an engine directory's name states (ENGINE_DIR_LAYOUT: `1-gpu`, `tp4pp2`), None where it states none."""
    stated = {(m.group("kind") or m.group("kind2")).lower(): int(m.group("n") or m.group("m"))
              for m in ENGINE_DIR_LAYOUT.finditer(path)}
    if "gpu" in stated:
        return stated["gpu"]
    return stated["tp"] * stated.get("pp", 1) if "tp" in stated else None


@dataclass(frozen=True, kw_only=True)
class EngineCommands(Sourced):
    commands: tuple[EngineCommand, ...] = ()


fact("engine_commands", EngineCommands, first_of, hint=ENGINE_COMMAND.hint)


def shell_assignment(line: str) -> tuple[str, str] | None:
    """(name, value) of a line that only sets a shell variable (SHELL_ASSIGNMENT), its quotes removed; None for
    any other line (a command, or a value the shell would split into several words)."""
    if (cmd := CMD_SET.match(line)) is not None:
        return (cmd.group(1), cmd.group(2)) if cmd.group(1) else (cmd.group(3), cmd.group(4))
    m = SHELL_ASSIGNMENT.match(line)
    if m is None:
        return None
    try:
        words = shlex.split(m.group(2) or "", comments=True)
    except ValueError:
        return None
    return (m.group(1), words[0] if words else "") if len(words) <= 1 else None


def exports(line: str) -> bool:
    """Whether an assignment line puts its variable in the environment of the commands after it: `export NAME=v`, or a
    batch script's `set NAME=v` (CMD_SET)."""
    return line.lstrip().startswith("export ") or CMD_SET.match(line) is not None


def wrapped_inside_value(above: str, line: str) -> bool:
    """Whether `line` goes on `above`, a line of only `NAME=value` assignments that the paste wrapped inside its last
    value: `line`'s first word is no assignment, wrapper or program, since more assignments follow it (corpus 765:
    `... NCCL_SOCKET_IFNAME=ens` over `12f0 NCCL_DEBUG=INFO vllm serve ...`)."""
    words, first = above.split(), line.split(maxsplit=2)
    return bool(words) and all(_ASSIGN.match(w) for w in words) and len(first) == 3 \
        and "=" not in first[0] and first[0] not in _WRAPPERS and _ASSIGN.match(first[1]) is not None


def expand_variables(text: str, variables: dict[str, str]) -> str:
    """`text` with each `$NAME` / `${NAME}` the paste sets replaced by its value; the others stay as written."""
    def value(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return variables.get(name, m.group(0))
    return VARIABLE_REFERENCE.sub(value, text) if variables and "$" in text else text


# Ray Serve LLM's config of one model (an item of `llm_configs:` in a Serve config file or a KubeRay RayService's
# serveConfigV2): its `engine_kwargs:` mapping is handed to vLLM's AsyncEngineArgs as keyword arguments, beside the
# model its `model_loading_config:` names (docs.ray.io serve/llm: "engine_kwargs ... the configuration knobs" vLLM
# provides; kuberay#4366, ray#52499, kuberay's ray-service.deepseek.yaml).
RAY_LLM_KWARGS = re.compile(r"^(?P<indent>\s*)(?P<item>-\s+)?engine_kwargs\s*:\s*$")
RAY_LLM_ENGINE_CALL = "AsyncEngineArgs"


def ray_llm_engine_call(item: object) -> EngineCommand | None:
    """The vLLM engine a Ray Serve LLM model config (one `llm_configs` item, loaded from YAML) starts, as the
    AsyncEngineArgs call its engine_kwargs spell, the model from model_loading_config (model_source where it is a name,
    else model_id); None where the item has no model_loading_config or its engine_kwargs is no mapping."""
    if not isinstance(item, dict):
        return None
    loading, kwargs = item.get("model_loading_config"), item.get("engine_kwargs")
    if not isinstance(loading, dict) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        return None
    source = loading.get("model_source")
    model = source if isinstance(source, str) else loading.get("model_id")
    named = {"model": model} if isinstance(model, str) and "model" not in kwargs else {}
    call = f"{RAY_LLM_ENGINE_CALL}(" + ", ".join(f"{k}={v!r}" for k, v in {**named, **kwargs}.items()) + ")"
    return python_engine_call(call)


# vLLM's engine arguments printed as a Python dict by the program that starts vLLM in its own process, one key a line
# as pprint wraps it (Langchain-Chatchat's start-up print of its FastChat vLLM worker's arguments, `{'block_size': 16,
# ... 'enforce_eager': False, ... 'worker_use_ray': False}`, corpus 2863): the keys of vLLM's EngineArgs that every
# release since 0.2.6 prints together (PRINTED_ARGS_KEYS) tell it from another program's settings. The whole dict (to
# its closing brace) is the AsyncEngineArgs call its keys spell; the program's own keys beside them (FastChat's `gpus`,
# `num_gpus`) are read as flags vLLM does not take.
PRINTED_ARGS_KEYS = ("enforce_eager", "gpu_memory_utilization", "tensor_parallel_size", "swap_space", "block_size")
PRINTED_ARGS_LINE = re.compile(r"^\s*\{?\s*'enforce_eager':\s*(?:True|False),?\s*$")
MAX_PRINTED_ARGS_LINES = 200  # vLLM's EngineArgs hold about 100 fields


def printed_engine_args(lines: list[str], i: int) -> tuple[EngineCommand, int, int] | None:
    """The vLLM engine a printed dict of its engine arguments starts (PRINTED_ARGS_KEYS), where line i is the dict's
    `'enforce_eager': ...` line (PRINTED_ARGS_LINE), with the dict's first line and its end; None where no dict opens
    above it within MAX_PRINTED_ARGS_LINES, the paste cuts it before its closing brace, or it lacks a key."""
    if not PRINTED_ARGS_LINE.match(lines[i]):
        return None
    start = next((j for j in range(i, max(i - MAX_PRINTED_ARGS_LINES, -1), -1) if lines[j].lstrip().startswith("{")),
                 None)
    if start is None:
        return None
    end, depth, text = None, 0, ""
    for k in range(start, min(len(lines), start + MAX_PRINTED_ARGS_LINES)):
        text += lines[k] + "\n"
        depth = text.count("{") - text.count("}")
        if depth <= 0:
            end = k + 1
            break
    try:
        printed = ast.literal_eval(_python_expr(text)) if end is not None else None
    except (ValueError, SyntaxError, TypeError):
        return None
    if not isinstance(printed, dict) or not all(isinstance(k, str) and k.isidentifier() for k in printed) \
            or not all(k in printed for k in PRINTED_ARGS_KEYS) or end is None:
        return None
    command = python_engine_call("AsyncEngineArgs(" + ", ".join(f"{k}={v!r}" for k, v in printed.items()) + ")")
    return (command, start, end) if command is not None else None


def python_engine_call(text: str) -> EngineCommand | None:
    """An engine constructor called in Python (PYTHON_ENGINE_CALLS) as the command its keyword arguments spell, its
    line the call as Python writes it back on one line; None where `text` holds no whole call.
    A keyword set to True is the flag, to False or None the flag absent, to another literal the flag with that value
    (a dict or list as JSON). A keyword set to anything but a literal (`enforce_eager=eager`) shows no value: the
    call is not read. The first positional argument is the model; the model's and tokenizer's names stay as written."""
    m = PYTHON_CALL.search(text)
    if m is None:
        return None
    call = next((c for end in range(len(text), m.end(), -1) if text[end - 1] == ")"
                 for c in [_python_call(text[m.start():end])] if c is not None), None)
    if call is None:
        return None
    argv = [m.group("name")]
    try:
        if call.args:
            first = call.args[0]
            argv += ["--model", str(first.value) if isinstance(first, ast.Constant) else ast.unparse(first)]
        for kw in call.keywords:
            if kw.arg is None:  # `**kwargs`: settings the paste does not show
                return None
            # The model's name is not judged: a variable there stays as written.
            value = ast.unparse(kw.value) if kw.arg in _NAMES_KEPT and not isinstance(kw.value, ast.Constant) \
                else ast.literal_eval(kw.value)
            flag = "--" + kw.arg.replace("_", "-")
            if value is True:
                argv.append(flag)
            elif value is not False and value is not None:
                argv += [flag, json.dumps(value) if isinstance(value, (dict, list)) else str(value)]
    except ValueError:
        return None
    return EngineCommand(PYTHON_ENGINE_CALLS[m.group("name")], tuple(argv), line=ast.unparse(call))


def _python_expr(text: str) -> ast.expr:
    """`text` parsed as one Python expression, silently: a pasted Windows path in a string (`'C:\\koboldcpp'`) is an
    invalid escape Python warns of on stderr, which is the user's terminal. Raises SyntaxError or ValueError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text.strip(), mode="eval").body


def _python_call(text: str) -> ast.Call | None:
    """`text` as one Python call expression, or None."""
    try:
        node = _python_expr(text)
    except (SyntaxError, ValueError):
        return None
    return node if isinstance(node, ast.Call) else None


# The programs that take at most this many positional words before their first option: `vllm serve [model_tag]
# [options]` (https://docs.vllm.ai/en/latest/cli/serve.html). More is a sentence or a script's comment that names the
# command (`# vllm serve on head node`, corpus 852), not a command line.
MAX_POSITIONALS = {("vllm", "serve"): 1}


def _too_many_positionals(words: list[str]) -> bool:
    """Whether the words pass more positional words to their program than it takes (MAX_POSITIONALS)."""
    for program, most in MAX_POSITIONALS.items():
        if tuple(posixpath.basename(w) if n == 0 else w for n, w in enumerate(words[:len(program)])) == program:
            rest = words[len(program):]
            shown = next((n for n, w in enumerate(rest) if w.startswith("-")), len(rest))
            return shown > most
    return False


# A Windows program at the head of a command, by its path (`.\bin\llama-server.exe`, a batch file's, corpus 962; a
# drive's path without `.exe`, `D:\llama-cpp\llama-server`, corpus 1928): its `\` separators are not the shell's
# escapes, and `.exe` is not part of the program's name.
_WINDOWS_PROGRAM = re.compile(r"^\s*(?:(?P<path>(?:[A-Za-z]:|\.{1,2})?(?:\\[\w.-]+)*\\?[\w.-]+)\.exe"
                              r"|(?P<bare>(?:[A-Za-z]:|\.{1,2})(?:\\[\w.-]+)+))(?=\s|$)", re.I)


def _posix_program(line: str) -> str:
    """The line with a Windows program at its head (_WINDOWS_PROGRAM) written as a POSIX path without `.exe`."""
    return _WINDOWS_PROGRAM.sub(lambda m: (m.group("path") or m.group("bare")).replace("\\", "/"), line, count=1)


# A container's argument list on one line, as a YAML flow sequence (JSON's form too): a compose service's
# `command: ["--model", "m", "--tensor-parallel-size", "4"]` (corpus 1050) or a pod container's `args: [...]`.
CONTAINER_ARGS = re.compile(r"^\s*(?:-\s+)?(?:command|args)\s*:\s*(?P<items>\[.*\])\s*$")
# What vLLM's image (vllm/vllm-openai) runs a list of options with: its entrypoint, the OpenAI API server
# (https://github.com/vllm-project/vllm/blob/v0.10.2/docker/Dockerfile: `ENTRYPOINT ["python3", "-m",
# "vllm.entrypoints.openai.api_server"]`; later images run `vllm serve`, the same server). A list that starts with an
# option is the image's arguments; a flag only vLLM takes (processes.VLLM_ONLY_FLAGS) says the image is vLLM's.
VLLM_IMAGE_ENTRYPOINT = ("python3", "-m", "vllm.entrypoints.openai.api_server")
# A container's environment as a one-line list of `NAME=value` items (compose `environment: [...]`), recorded by the
# importer above the argument list it was pasted beside: that command's whole environment (EngineCommand.env_whole).
CONTAINER_ENV = re.compile(r"^\s*(?:environment|env)\s*:\s*(?P<items>\[.*\])\s*$")


def container_env(line: str) -> tuple[tuple[str, str], ...] | None:
    """The (name, value) pairs of a CONTAINER_ENV line; None where the line is no such list."""
    m = CONTAINER_ENV.match(line)
    if m is None:
        return None
    try:
        items = json.loads(m.group("items"))
    except ValueError:
        return None
    pairs = [_ASSIGN.match(x) for x in items if isinstance(x, str)] if isinstance(items, list) else []
    if not pairs or len(pairs) != len(items) or not all(pairs):
        return None
    return tuple((p.group(1), p.group(2)) for p in pairs if p is not None)


# A serving platform's log line that records the command its worker starts the engine with. GPUStack 0.x logs the
# engine program's arguments after the backend's name (gpustack/worker/backends/vllm.py: `Run vllm with arguments:
# serve MODEL --max-model-len 8192 ...`, corpus 1778, gpustack/gpustack#2590). GPUStack 2.x logs the container's
# whole command in brackets (`With image: gpustack/runner:cuda12.9-vllm0.11.2, arguments: [vllm serve MODEL ...]`,
# gpustack/gpustack#3835 and #3707); a line cut before its `]` holds the command's start.
LAUNCHER_LOG = re.compile(r"\bRun (?P<program>vllm) with arguments: (?P<args>\S.*)"
                          r"|\bWith image: \S+, arguments: \[(?P<command>[^\]]+)\]?\s*$", re.I)


def launcher_logged(line: str) -> str:
    """The engine command a serving platform's log line records (LAUNCHER_LOG), as a shell line; "" where the line is
    no such record."""
    m = LAUNCHER_LOG.search(line) if "arguments:" in line else None
    if m is None:
        return ""
    return m["command"].strip() if m["command"] else f"{m['program'].lower()} {m['args'].strip()}"


# KoboldCpp prints its parsed arguments before it loads the model (koboldcpp.py main: `print(args)` between `==========`
# rules): argparse's repr, `Namespace(admin=False, ..., gpulayers=33, ..., model_param='C:/.../x.gguf', ...,
# tensor_split=None, usecublas=['lowvram'], ...)` (LostRuins/koboldcpp#595, #788, #1527, #1846). Each field is the
# flag of the same name (`--gpulayers`, `--tensor_split`, `--usecublas`), its value as the command line gave it or
# its default; `model_param` and `port_param` hold the model and port from the flag or the positional word.
KOBOLDCPP_NAMESPACE = re.compile(r"^\s*Namespace\((?P<fields>.*?\b(?:gpulayers|model_param)=.*)$")
# One `name=value` field: a quoted string, a list without nested lists, or a bare word (None, True, a number); the
# field runs to the `,` before the next one or to the closing `)`: a field the paste cuts inside is not read.
_NAMESPACE_FIELD = re.compile(r"(?P<name>[a-z_]\w*)=(?P<value>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\[[^\[\]]*\]"
                              r"|[\w.+-]+)\s*(?:,\s*|\)\s*$)")
_NAMESPACE_FLAGS = {"model_param": "--model", "port_param": "--port"}  # the positional's field; its flag's is dropped
MAX_NAMESPACE = 20_000  # characters: KoboldCpp's repr is about 3,000
MAX_NAMESPACE_LINES = 64  # lines: a repr of 3,000 characters wrapped at 80 columns takes about 40


def namespace_end(lines: list[str], i: int) -> int:
    """The end of the `Namespace(...)` repr that opens on line i: the line past the one that holds its closing `)`,
    read outside quoted strings.
    A paste may wrap the repr anywhere, inside a word too (`sdcon` over `fig=None`, LostRuins/koboldcpp#1368).
    The end is i + 1 where no line closes the repr within MAX_NAMESPACE_LINES lines and MAX_NAMESPACE characters
    before a blank line (a paste cut inside the repr)."""
    depth, quote, escaped, size = 0, "", False, 0
    for end in range(i, min(len(lines), i + MAX_NAMESPACE_LINES)):
        text = lines[end] if end > i else lines[i][lines[i].find("Namespace("):]
        size += len(text)
        if (end > i and not text.strip()) or size > MAX_NAMESPACE:
            break
        for ch in text:
            if quote:
                quote, escaped = ("" if ch == quote and not escaped else quote), (ch == "\\" and not escaped)
            elif ch in "'\"":
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}" and (depth := depth - 1) == 0:
                return end + 1
    return i + 1


def koboldcpp_namespace(line: str) -> str:
    """The KoboldCpp command line that KoboldCpp's printed arguments (KOBOLDCPP_NAMESPACE) stand for, as a shell line:
    `koboldcpp` and each field the line shows whole and set (True a bare flag; None, False, '' and [] left out),
    in the line's order, with a `\\` after it where the paste cuts the repr; "" where the line is no such repr."""
    m = KOBOLDCPP_NAMESPACE.match(line[:MAX_NAMESPACE]) if "Namespace(" in line else None
    if m is None:
        return ""
    words = ["koboldcpp"]
    fields, at = m["fields"], 0
    while (f := _NAMESPACE_FIELD.match(fields, at)) is not None:
        at = f.end()
        name, value = f["name"], f["value"]
        if name in ("model", "port") and f"{name}_param" in fields:
            continue
        try:
            read = ast.literal_eval(_python_expr(value)) if value[0] in "'\"[" or value in ("None", "True", "False") else value
        except (ValueError, SyntaxError):
            continue
        if read is None or read is False or read in ("", []):
            continue
        words.append(_NAMESPACE_FLAGS.get(name, f"--{name}"))
        if read is not True:
            words.extend(str(v) for v in (read if isinstance(read, list) else [read]))
    if len(words) == 1:
        return ""
    # A repr the paste cuts before its `)` goes on past what it shows: the line is recorded continued (EngineCommand.cut).
    return shlex.join(words) + ("" if fields.rstrip().endswith(")") else " \\")


def container_args(line: str) -> str | None:
    """The shell line a container's one-line argument list runs (CONTAINER_ARGS): its items (a shell's `-c` string,
    or one item holding the whole line, split as the shell would), after vLLM's image entrypoint where they start with
    an option and hold a flag only vLLM takes; None where the line is no such list."""
    m = CONTAINER_ARGS.match(line)
    if m is None:
        return None
    import yaml

    try:
        items = yaml.safe_load(m.group("items"))
    except yaml.YAMLError:
        return None
    if not isinstance(items, list) or not items or not all(isinstance(x, (str, int, float)) for x in items):
        return None
    words = [str(x) for x in items]
    if len(words) >= 3 and posixpath.basename(words[0]) in ("sh", "bash") and words[1] == "-c":
        words = words[2:]  # `["/bin/sh", "-c", "vllm serve m ..."]`: the shell runs its string (vllm#10826's form)
    if len(words) == 1 and any(c.isspace() for c in words[0]):
        try:
            words = shlex.split(words[0])  # one item holding the whole command line
        except ValueError:
            return None
    if not words:
        return None
    if words[0].startswith("-"):
        if not any(w.split("=", 1)[0] in VLLM_ONLY_FLAGS for w in words):
            return None
        words = [*VLLM_IMAGE_ENTRYPOINT, *words]
    return shlex.join(words)


# vLLM's config file pasted without the command that reads it (`vllm serve --config config.yaml`, vLLM 0.6.0 on:
# "a flat YAML whose keys are the long names of the arguments", vllm#43295 as corpus 1669): a block of top-level
# `key: value` lines, comments between them, at least MIN_VLLM_CONFIG_KEYS of them and one a flag only vLLM takes
# (processes.VLLM_ONLY_FLAGS: SGLang's and TensorRT-LLM's configs name theirs otherwise). A key indented under
# another (a manifest's `engine_args:`, a Ray Serve `engine_kwargs:` block) or a key without a value is no part of
# such a file, and neither is a block whose neighbour line is a YAML key or item: it is a part of a larger document.
VLLM_CONFIG_NAME = "config.yaml"  # the name vLLM's documentation gives the file
MIN_VLLM_CONFIG_KEYS = 3
MAX_VLLM_CONFIG_LINES = 200  # a config is a few dozen keys; a longer run of pairs is some other document
_CONFIG_PAIR = re.compile(r"^(?P<key>[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)\s*:\s+\S")
_YAML_NEIGHBOUR = re.compile(r"^\s+\S|^[\w.\"'-]+\s*:(?:\s|$)|^-\s")


def vllm_config_block(lines: list[str], i: int) -> tuple[int, int] | None:
    """(start, end) of the flat vLLM config file (VLLM_CONFIG_NAME) that line i is a key of; None where it is none."""
    def inside(k: int) -> bool:
        return _CONFIG_PAIR.match(lines[k]) is not None or lines[k].startswith("#")

    if _CONFIG_PAIR.match(lines[i]) is None:
        return None
    start, end = i, i + 1
    while start > 0 and i - start < MAX_VLLM_CONFIG_LINES and inside(start - 1):
        start -= 1
    while end < len(lines) and end - i < MAX_VLLM_CONFIG_LINES and inside(end):
        end += 1
    if any(0 <= k < len(lines) and _YAML_NEIGHBOUR.match(lines[k]) for k in (start - 1, end)):
        return None
    keys = [m.group("key").replace("_", "-") for x in lines[start:end] if (m := _CONFIG_PAIR.match(x))]
    if len(keys) < MIN_VLLM_CONFIG_KEYS or not any(f"--{k}" in VLLM_ONLY_FLAGS for k in keys):
        return None
    return start, end


# A quote that opens the line's last word and is never closed: the paste ends inside that word.
_CUT_QUOTE = re.compile(r"(?<=\s)[\"'][^\s\"']*$")


def parse_command_line(line: str, ggml_shown: str = "", variables: dict[str, str] | None = None) -> EngineCommand | None:
    """One shell line (prompt already removed) as an engine command, or None when it starts no engine.
    `ggml_shown`: the line of the paste that shows llama.cpp, where a generic program name needs it (GGML_SHOWN).
    `variables`: the shell variables set above it in the paste (shell_assignment), which its `$NAME`s read.
    A Python engine constructor's call on the line is read by python_engine_call."""
    if PYTHON_CALL.search(line):
        return python_engine_call(line)
    listed = container_args(line) if "[" in line else None
    if listed is not None:
        command = parse_command_line(listed, ggml_shown, variables)
        return replace(command, line=line.strip()) if command is not None else None
    legacy = LEGACY_COMMAND.search(line) is not None
    if not legacy and (not any(w in line.lower() for w in ENGINE_WORDS) or not COMMAND_HINT.search(line)) \
            and not OLLAMA_SERVE.search(line):
        return None
    cut = line.rstrip().endswith("\\")
    try:
        words = shlex.split(expand_variables(_posix_program(line.rstrip()[:-1] if cut else line), variables or {}),
                            comments=True)
    except ValueError:
        # A paste cut inside the command's last quoted word (`--override-tensor ".*ffn_.`, corpus 1111): the words
        # before that quote are whole, the quoted one is cut with the line.
        m = _CUT_QUOTE.search(line)
        if m is None:
            return None
        try:
            words = shlex.split(expand_variables(_posix_program(line[:m.start()]), variables or {}), comments=True)
        except ValueError:
            return None
        cut = True
    command = _command_of(words, line, cut, ggml_shown, legacy)
    if command is not None or not ("&&" in words or any(w.endswith(";") for w in words)):
        return command
    # The engine started after a command that sets its shell up (`conda activate lmdeploy && lmdeploy serve ...`,
    # corpus 1251; `cd dir && python3 build.py ...`): the first of the commands after it that starts an engine, with
    # what an `export NAME=value` (a batch file's `set NAME=value`, PowerShell's `$env:NAME="value"`) before it put in
    # its environment.
    exported: list[str] = []
    for n, later in enumerate(sequenced_commands(words)):
        if len(later) == 1 and (ps := POWERSHELL_ENV.match(later[0])) is not None:
            exported.append(f"{ps.group(1)}={ps.group(2)}")  # `$env:NAME="v";` (POWERSHELL_ENV)
            continue
        if n == 0 or not later:
            continue  # the line's own first command was read above
        assigned = shell_assignment(" ".join(later)) if later[0] in ("export", "set") else None
        if assigned is not None and exports(" ".join(later)):
            exported.append(f"{assigned[0]}={assigned[1]}")
            continue
        command = _command_of(exported + later, line, cut, ggml_shown, legacy)
        if command is not None:
            return command
    return None


# ssh's options that take the next word (`ssh -p 2222 -i key HOST CMD`).
_SSH_ARG_OPTIONS = frozenset(("-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
                              "-p", "-Q", "-R", "-S", "-W", "-w"))


def _ssh_remote(words: list[str]) -> str:
    """The command an `ssh [options] HOST COMMAND...` line runs on HOST, as the remote shell receives it (its words
    joined by spaces); "" where the line names no command after the host."""
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _SSH_ARG_OPTIONS else 1
    return " ".join(words[i + 1:]) if i + 1 < len(words) else ""


# The interpreter pm2 runs a script of this name ending under where `--interpreter` names none (pm2's docs: "pm2 start
# app.py" runs under python; https://pm2.keymetrics.io/docs/usage/quick-start/).
_PM2_INTERPRETERS = {".py": "python"}


def _pm2_started(words: list[str]) -> list[str]:
    """The command line `pm2 start SCRIPT [pm2's options] -- ARGS` runs (pm2, Node's process manager, keeps it
    running): the interpreter (`--interpreter python3`; python for a `.py` script; none for `--interpreter none`),
    the script and the words after `--`, which pm2 passes on. A quoted command (`pm2 start "vllm serve M"`) is split
    as the shell would. [] where the words are no `pm2 start` of a program."""
    if len(words) < 3 or words[1] != "start" or words[2].startswith("-"):
        return []
    cut = words.index("--", 3) if "--" in words[3:] else len(words)
    try:
        script = shlex.split(words[2]) if " " in words[2] else [words[2]]
    except ValueError:
        return []
    interpreter = argv_value(words[3:cut], ("--interpreter",)) \
        or _PM2_INTERPRETERS.get(posixpath.splitext(script[0])[1], "")
    return ([interpreter] if interpreter and interpreter != "none" else []) + script + words[cut + 1:]


# How far into a launcher's words its program may start (`mpirun -n 4 --allow-run-as-root -x NCCL_DEBUG=INFO ...`).
MAX_LAUNCHER_WORDS = 48
# The engines whose ranks the launcher starts: TensorRT-LLM's runtime takes its world from MPI, an engine of TP x PP
# ranks run as that many MPI processes (cpp/tensorrt_llm/runtime/worldConfig.cpp, WorldConfig::mpi: "MPI size %d != TP
# size %d * PP size %d"), and Triton's TensorRT-LLM backend runs under `mpirun -n N tritonserver` the same way
# (NVIDIA/TensorRT-LLM#2813). vLLM and SGLang start their own workers: under a launcher each rank is a whole server.
LAUNCHED_ENGINES = ("trtllm", "triton")


def _launched(words: list[str], line: str, cut: bool, ggml_shown: str, legacy: bool) -> EngineCommand | None:
    """The engine command a launcher of several ranks starts (RANK_LAUNCHERS: `mpirun -n 2 --allow-run-as-root
    gptSessionBenchmark --engine_dir DIR`, corpus 1737), with the launcher's words and its rank count; None where no
    word after its options starts an engine, or the engine is not one whose ranks the launcher starts
    (LAUNCHED_ENGINES). The program is the first word after the launcher that starts one: an
    option's value (`-n 2`, `--hostfile hosts`) starts none, and `-x NAME=value` puts NAME in the program's
    environment, as the launcher does."""
    exported: list[tuple[str, str]] = []  # Open MPI's `-x NAME=value`
    for k in range(1, min(len(words), MAX_LAUNCHER_WORDS)):
        if words[k - 1] == "-x" and (m := _ASSIGN.match(words[k])) is not None:
            exported.append((m.group(1), m.group(2)))
            continue
        if words[k].startswith("-"):
            continue
        inner = _command_of(words[k:], line, cut, ggml_shown, legacy)
        if inner is not None:
            if inner.engine not in LAUNCHED_ENGINES:
                return None
            return replace(inner, launcher=tuple(words[:k]), ranks=launcher_ranks(words[:k]),
                           env=tuple(exported) + inner.env)
    return None


def _command_of(words: list[str], line: str, cut: bool, ggml_shown: str, legacy: bool) -> EngineCommand | None:
    """The engine command that a shell line's words start (parse_command_line), read to the first shell control
    operator; None where they start no engine."""
    if words and words[0] in _FEEDERS and "|" in words:
        words = words[words.index("|") + 1:]  # `echo "<prompt>" | llama-cli ...`: the command the pipe feeds
    words = list(words)
    env: list[tuple[str, str]] = []
    while words and (_ASSIGN.match(words[0]) or words[0] in _WRAPPERS):
        m = _ASSIGN.match(words[0])
        if m:
            env.append((m.group(1), m.group(2)))
        takes = None if m else _WRAPPERS.get(words[0])
        words.pop(0)
        while takes is not None and words and words[0].startswith("-"):  # the wrapper's own options
            del words[:2 if words[0] in takes else 1]
    if words[:1] == ["&"]:
        words.pop(0)  # PowerShell's call operator (POWERSHELL_ENV)
    words = first_command(words)
    if words and words[0] == "pm2" and (started := _pm2_started(words)):
        words = started  # the program pm2 starts, with the arguments it passes on (corpus 1792)
    if len(words) > 1 and words[0] == "-m" and env:
        # `CUDA_VISIBLE_DEVICES=0 -m sglang.launch_server ...` (corpus 1517): Python's module switch after the
        # variables set for the command, its interpreter's name lost in the paste: the module is the program.
        words = ["python", *words]
    if words[:3] == ["ray", "job", "submit"] and "--" in words:
        words = words[words.index("--") + 1:]  # Ray's job entrypoint, after its options (corpus 2360)
    if len(words) >= 3 and posixpath.basename(words[0]) in ("sh", "bash") and words[1] == "-c":
        # `srun ... bash -c "trtllm-llmapi-launch trtllm-serve ..."` (corpus 2459): the shell runs its string, which it
        # splits again, as ssh's remote command below.
        try:
            return _command_of(shlex.split(words[2], comments=True), line, cut, ggml_shown, legacy)
        except ValueError:
            return None
    if words and words[0] == "ssh" and (remote := _ssh_remote(words)):
        # `ssh HOST '<python> -m sglang.launch_server ...'` (corpus 1276): the engine is the command ssh runs on HOST,
        # which its shell splits again.
        try:
            return _command_of(shlex.split(remote, comments=True), line, cut, ggml_shown, legacy)
        except ValueError:
            return None
    if words and posixpath.basename(words[0]) in RANK_LAUNCHERS \
            and (launched := _launched(words, line, cut, ggml_shown, legacy)) is not None:
        return replace(launched, env=tuple(env) + launched.env) if env else launched
    if not words:
        return None
    program = posixpath.basename(words[0])
    program = "koboldcpp" if KOBOLDCPP_BUILD.fullmatch(program) and not program.endswith(".py") else program
    program = "llamafile" if program == "llamafile.exe" or LLAMAFILE_PACKED.fullmatch(program) else program
    if program.startswith("python") and len(words) > 2 and posixpath.basename(words[1]) in (*GGML_ENGINES, *BUILDERS):
        program = posixpath.basename(words[1])  # `python koboldcpp.py model.gguf ...`, `python3 convert_checkpoint.py`
    elif program.startswith("python") and len(words) > 3 and words[1] == "-m" and words[2] in GGML_ENGINES:
        program = words[2]  # `python3 -m llama_cpp.server --model M.gguf ...` (corpus 1951)
    if program in LEGACY_GGML_PROGRAMS and len(words) > 1 and "/" in words[0] \
            and GGML_SHOWN.search(f"{words[0]} {ggml_shown}"):
        return EngineCommand(LEGACY_GGML_PROGRAMS[program], tuple(words), tuple(env), line.strip(), cut=cut)
    if legacy and not COMMAND_HINT.search(line):
        return None
    if program == LEGACY_BUILDER and not any(w.split("=", 1)[0] in LEGACY_BUILD_FLAGS for w in words):
        return None  # another project's build.py
    if program == QUANTIZE_SCRIPT and not any(w.split("=", 1)[0] in QUANTIZE_FLAGS for w in words):
        return None  # another project's quantize.py
    if program.startswith("python") and len(words) > 1 and posixpath.basename(words[1]) == TRITON_LAUNCH_SCRIPT:
        world = argv_value(words, ("--world-size",))
        return EngineCommand("trtllm", tuple(words[1:]), tuple(env), line.strip(), cut=cut,
                             ranks=1 if world is None else int(world) if world.isdecimal() else None)
    if program in (LLAMA_CLI, f"{LLAMA_CLI}.exe") and len(words) > 2 and words[1] in LLAMA_CLI_SUBCOMMANDS:
        return EngineCommand(LLAMA_CLI_SUBCOMMANDS[words[1]], tuple(words), tuple(env), line.strip(), cut=cut)
    if (program in ("ollama", "ollama.exe") and words[1:] == ["serve"]) or (program in (OLLAMA_APP, f"{OLLAMA_APP}.exe") and len(words) == 1):
        return EngineCommand("ollama", tuple(words), tuple(env), line.strip(), cut=cut)
    if program.startswith("python") and words[1:3] == ["-m", LIGHTLLM_MODULE]:
        return EngineCommand("lightllm", tuple(words[2:]), tuple(env), line.strip(), cut=cut)
    if program.startswith("python") and words[1:3] == ["-m", MLC_PROGRAM]:
        words, program = words[2:], MLC_PROGRAM  # `python -m mlc_llm compile ...` (its JIT's logged command)
    if program == MLC_PROGRAM and len(words) > 2 and words[1] in MLC_SUBCOMMANDS:
        return EngineCommand("mlc", tuple(words), tuple(env), line.strip(), builds=MLC_SUBCOMMANDS[words[1]], cut=cut)
    if program == DLLAMA_PROGRAM and len(words) > 1 and words[1] in DLLAMA_MODES:
        return EngineCommand("dllama", tuple(words), tuple(env), line.strip(), cut=cut)
    if program in TGI_PROGRAMS and not set(words[1:]) <= TGI_QUERIES:
        return EngineCommand(TGI_PROGRAMS[program], tuple(words), tuple(env), line.strip(), cut=cut)
    if program.startswith("python") and len(words) > 2 and posixpath.basename(words[1]) == TEXTGEN_PROGRAM \
            and any(w.split("=", 1)[0] in TEXTGEN_FLAGS for w in words[2:]):
        return EngineCommand("textgen", tuple(words[1:]), tuple(env), line.strip(), cut=cut)
    if program.startswith("python") and len(words) > 2 and words[1] == "-m" and words[2] in VLLM_ROLLOUT_TRAINERS:
        return EngineCommand("vllm", rollout_engine_argv(words[2], words[3:]), tuple(env), line.strip(), cut=cut)
    if (worker := fastchat_worker_argv(words)) is not None:
        return EngineCommand(worker[0], worker[1], tuple(env), line.strip(), cut=cut)
    if (wrapped := llamafactory_vllm_argv(words, env)) is not None:
        return EngineCommand("vllm", wrapped, tuple(env), line.strip(), cut=cut)
    ktransformers = words[1:] if program.startswith("python") else words
    if ktransformers and posixpath.basename(ktransformers[0]) in KTRANSFORMERS_PROGRAMS \
            and any(w.split("=", 1)[0] in KTRANSFORMERS_FLAGS for w in ktransformers[1:]):
        return EngineCommand("ktransformers", tuple(ktransformers), tuple(env), line.strip(), cut=cut)
    if program in TEXTGEN_LAUNCHERS or (program in _SHELLS and len(words) > 1
                                        and posixpath.basename(words[1].replace("\\", "/")) in TEXTGEN_LAUNCHERS):
        return EngineCommand("textgen", tuple(words[program in _SHELLS:]), tuple(env), line.strip(), cut=cut)
    if (program in GGML_ENGINES and len(words) > 1) or program in BUILDERS:  # a bare `llama-server` names a module
        return EngineCommand(GGML_ENGINES.get(program) or BUILDERS[program], tuple(words), tuple(env), line.strip(),
                             builds=program in BUILDERS, cut=cut)
    match = classify(tuple(words))
    if match is None or match.engine not in ("vllm", "sglang", "trtllm", "lmdeploy", "triton") \
            or match.role not in _TOP_ROLES:
        return None
    if _too_many_positionals(words):
        return None
    return EngineCommand(match.engine, tuple(words), tuple(env), line.strip(), cut=cut)


def parse_engine_commands(text: str) -> EngineCommands:
    commands: list[EngineCommand] = []
    groups: list[tuple[int, ...]] = []  # the instance groups of the Triton model configs shown
    configs: dict[str, dict[str, str]] = {}  # file name -> its top-level keys, from the heredocs
    lines = text.splitlines()
    ggml_shown = next((x for x in lines if GGML_SHOWN.search(x)), "")  # recorded after a generic program's command
    variables: dict[str, str] = {}  # the shell variables set so far (the importer records them above the command)
    exported: dict[str, str] = {}  # those exported: the environment of the commands after them
    listed_env: tuple[tuple[str, str], ...] | None = None  # a container's env list, for the argument list after it
    i = 0
    while i < len(lines):
        if (pairs := container_env(lines[i])) is not None:
            listed_env = pairs
            i += 1
            continue
        assigned = shell_assignment(lines[i])
        if assigned is not None:
            variables[assigned[0]] = expand_variables(assigned[1], variables)
            if exports(lines[i]):
                exported[assigned[0]] = variables[assigned[0]]
            i += 1
            continue
        heredoc = HEREDOC.match(lines[i])
        if heredoc:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == heredoc.group("end")), len(lines))
            if posixpath.basename(heredoc.group("path")) == TRITON_CONFIG:
                groups.extend(instance_gpus("\n".join(lines[i + 1:end])))  # one per model: several files, one name
            else:
                configs[posixpath.basename(heredoc.group("path"))] = parse_flat_yaml("\n".join(lines[i + 1:end]))
            i = end + 1
            continue
        command = parse_command_line(lines[i], ggml_shown, variables) if lines[i].strip() else None
        if command is not None and listed_env is not None and CONTAINER_ARGS.match(lines[i]):
            command = replace(command, env=listed_env + command.env, env_whole=True)
            listed_env = None
        if command is not None:
            # An exported variable is in the environment of every command after it; one set on the line wins.
            on_line = dict(command.env)
            commands.append(replace(command, env=tuple((n, v) for n, v in exported.items() if n not in on_line)
                                    + command.env) if exported else command)
        i += 1
    if not commands:
        raise ParseError("no engine command line")
    for n, c in enumerate(commands):
        if c.engine == "triton" and groups:
            commands[n] = c = replace(c, instance_gpus=tuple(groups))
        if c.config_name in configs:
            value = c.as_process().flag(*CONFIG_FLAGS[c.engine]) or ""
            commands[n] = replace(c, config_path=value, config=tuple(configs[c.config_name].items()))
    return EngineCommands(commands=tuple(commands))


@parser(ENGINE_COMMAND, feeds="engine_commands", kind=EngineCommands, rank=10)
def engine_commands_pasted(text: str) -> EngineCommands:
    """Engine command lines pasted into a report (the flags and the variables set on the line).

    Input (tests/data/captures/02)::

        vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-32B --tensor-parallel-size 2 --max-model-len 32768 --enforce-eager
    """
    return parse_engine_commands(text)


# --- the engine in the user's own words ------------------------------------------------------------

# The engines a sentence names, by the words people write for them: ollama and llama.cpp run no PyTorch
# (facts/applicability.GGML_ENGINE_NAMES); vLLM, SGLang, TensorRT-LLM and the PyTorch words ("torch") keep a PyTorch
# check open. A word not listed names no engine.
STATED_ENGINE_WORDS: dict[str, str] = {
    "ollama": r"ollama",
    # LM Studio runs its models through llama.cpp's runtimes (its MLX engine only on Apple silicon, no CUDA); KoboldCpp
    # is llama.cpp with its own server (https://github.com/LostRuins/koboldcpp).
    "llamacpp": r"llama[.-]?cpp|llama-server|lm[ -]?studio|kobold[.-]?cpp",
    "vllm": r"vllm",
    "sglang": r"sglang",
    "trtllm": r"tensorrt(?:-llm)?|trt-?llm",
    # ExLlama, ExLlamaV2, ExLlamaV3 (turboderp): PyTorch extensions with their own kernels and their own tensor
    # parallelism, no vLLM or SGLang code (applicability.ENGINES_WITHOUT).
    "exllama": r"exllama(?:v[23])?",
    # The training frameworks built on torch too (Unsloth, Axolotl, torchtitan, LLaMA-Factory): their jobs hold the GPU
    # as an engine does (a GRPO script on a DGX Spark's only GPU, corpus 2356).
    "torch": r"(?:py)?torch|transformers|diffusers|comfyui|deepspeed|lmdeploy|aphrodite|unsloth|axolotl"
             r"|torchtitan|llama-?factory",
    # TGI, also by its image named in a sentence (`docker image text-generation-inference:1.0.2`).
    "tgi": r"text-generation-inference(?::v?\d[\w.]*)?|tgi",
}
# Each word as a word of a sentence: between spaces, quotes or sentence punctuation, never inside a path, an image, a
# module, a flag or a variable's name (`ollama/ollama:latest`, `vllm.entrypoints`, `--ollama`, `OLLAMA_HOST`); or a
# pinned package quoted in a sentence (`with \`unsloth==2025.10.6\` and ...`, corpus 2356), never a pip list's bare line.
_STATED = {engine: re.compile(rf"(?<![\w./:=@$-])(?:{words})(?![\w/:=@-]|\.\w)|`(?:{words})==v?\d[\w.+]{{0,30}}`",
                              re.I)
           for engine, words in STATED_ENGINE_WORDS.items()}


# The user's sentence saying the model runs split over GPUs with tensor parallelism (`the tensor parallelism does not
# work at all`, corpus 982); a negation or a contrast on the line (`without tensor parallelism`, `TP=1 works`) states
# no split. Each engine's tensor parallelism runs a rank per GPU that exchanges tensors with the others.
# A sentence that opens on `TP` over a count of GPUs says the same (`TP with 10 x ADA 6000s w/ x16 Gen4 PCie each on a
# single NUMA node`, turboderp-org/exllamav2#571, corpus 2906): STATED_TP_OVER reads the count.
_TP_OVER = r"\W*TP\s+(?:with|over|across|on)\s+([1-9]\d?)\s*[x×*]?\s*\S"
STATED_SPLIT = re.compile(r"^(?!.*\b(?:not? use|without|instead|than|unlike|vs\.?|versus|disabled?)\b)"
                          r"(?:.*\btensor[- ]parallel(?:ism)?\b|" + _TP_OVER + ")", re.I)


def stated_split(line: str) -> bool:
    """Whether a line of the user's words says the model runs with tensor parallelism (STATED_SPLIT)."""
    return bool(STATED_SPLIT.search(line))


# The TP size the user's words give a run: `with SGLang TP4 serving Qwen3.8-27B` (corpus 2848), a list's `Config: TP=8,
# DCP=1` (corpus 2838), `tp=2`, `--tp 4`, `tensor parallel size 4`. `TP` inside a longer name (`MTP=3`, `ETP4`) is not
# one, nor is a release (`TP 2.5`).
STATED_TP = re.compile(r"(?<![\w-])(?:TP\s*(?:[=:]\s*)?|--tp(?:-size)?[ =]|--tensor-parallel-size[ =]"
                       r"|tensor[- ]parallel(?:ism)?(?:[- ]size)?\s*(?:(?:of|=|:)\s*)?)(?P<tp>\d{1,3})(?![\w.])", re.I)


# The count of a sentence that opens on `TP` over GPUs, read only where the sentence states a split (STATED_SPLIT).
STATED_TP_OVER = re.compile("^" + _TP_OVER, re.I)


def stated_tp(line: str) -> tuple[int, ...]:
    """The TP sizes a line of the user's words gives (STATED_TP; STATED_TP_OVER where it states a split), each once,
    in order."""
    over = STATED_TP_OVER.match(line) if stated_split(line) else None
    return tuple(dict.fromkeys([*((int(over[1]),) if over else ()), *(int(m["tp"]) for m in STATED_TP.finditer(line))]))


# SGLang's and vLLM's switches of custom all-reduce, named in a sentence of the user's words as added to the run
# (`After adding --enable-p2p-check, why is ... two 4090s slower`, sgl-project/sglang#4723, corpus 1352): each a flag
# as a word (not a longer flag's start), in a line no negation turns (`without --enable-p2p-check`, `removing`).
CUSTOM_AR_SWITCHES = ("--enable-p2p-check", "--disable-custom-all-reduce")
_STATED_SWITCH = re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in CUSTOM_AR_SWITCHES) + r")(?![\w-])")
_SWITCH_NEGATED = re.compile(r"\b(?:without|no|not|removing|removed|remove|drop(?:ped|ping)?)\b", re.I)


# The user's sentence saying the job runs on two nodes or more (`NCCL all_reduce on 2 nodes dropped from ~180GB/s to
# ~10GB/s`, NVIDIA/nccl#1676, corpus 2524; `a 2-node run`): a count of two or more before `nodes`, or before `-node`
# as a compound. `one node`, `single node` and `multiple nodes` (a count not given) state no such job.
STATED_NODES = re.compile(r"\b(?:on|across|over|between|using|with)\s+(?:[2-9]|1[0-9]|two|three|four|eight)\s+nodes\b|"
                          r"\b(?:[2-9]|1[0-9]|two|three|four|eight)-nodes?\b", re.I)


def stated_nodes(line: str) -> bool:
    """Whether a line of the user's words says the job runs on two nodes or more (STATED_NODES)."""
    return bool(STATED_NODES.search(line))


def stated_switches(line: str) -> tuple[str, ...]:
    """The custom all-reduce switches (CUSTOM_AR_SWITCHES) a line of the user's words says the run has; () where the
    line names none or negates them."""
    if _SWITCH_NEGATED.search(line):
        return ()
    return tuple(dict.fromkeys(m.group(1) for m in _STATED_SWITCH.finditer(line)))


def stated_engines(line: str) -> tuple[str, ...]:
    """The engines a line of the user's words names as words of a sentence (STATED_ENGINE_WORDS), in the table's
    order."""
    return tuple(engine for engine, pattern in _STATED.items() if pattern.search(line))


@dataclass(frozen=True, kw_only=True)
class StatedEngines(Sourced):
    """The serving engines the user names in prose (the user's own words), each once, in the order named."""

    engines: tuple[str, ...] = ()
    split: str = ""  # the sentence that says the model runs with tensor parallelism (STATED_SPLIT), else ""
    # The custom all-reduce switches the user says the run has (stated_switches), and the first sentence naming one.
    switches: tuple[str, ...] = ()
    switch_line: str = ""
    nodes: str = ""  # the sentence that says the job runs on two nodes or more (STATED_NODES), else ""
    # The TP sizes the user's sentences give a run (stated_tp), each once, and the first sentence giving one.
    tp_sizes: tuple[int, ...] = ()
    tp_line: str = ""

    @property
    def tp(self) -> int | None:
        """The one TP size the user's words give; None where they give none, or several (`TP4 works, TP2 fails`)."""
        return self.tp_sizes[0] if len(self.tp_sizes) == 1 else None


fact("stated_engines", StatedEngines, first_of, hint=USER_ENGINES.hint)


@parser(USER_ENGINES, feeds="stated_engines", kind=StatedEngines, rank=95)
def stated_engines_from_words(text: str) -> StatedEngines:
    """The engines the user's sentences name (importers/prose_engine.py took each line no other reader took): the
    weakest source of the engines a paste shows.

    Input (tests/data/captures/483)::

        I have NVIDA H100 multiple of them with NVLINK but ollama seems to only use 1 nvidia gpu. I tried various deployments but here is current one:
    """
    engines = [e for line in text.splitlines() for e in stated_engines(line)]
    split = next((line.strip() for line in text.splitlines() if stated_split(line)), "")
    switched = [(line.strip(), said) for line in text.splitlines() if (said := stated_switches(line))]
    nodes = next((line.strip() for line in text.splitlines() if stated_nodes(line)), "")
    sized = [(line.strip(), sizes) for line in text.splitlines() if (sizes := stated_tp(line))]
    if not engines and not split and not switched and not nodes and not sized:
        raise ParseError("no engine named in the user's words")
    return StatedEngines(engines=tuple(dict.fromkeys(engines)), split=split, nodes=nodes,
                         switches=tuple(dict.fromkeys(f for _, said in switched for f in said)),
                         switch_line=switched[0][0] if switched else "",
                         tp_sizes=tuple(dict.fromkeys(s for _, sizes in sized for s in sizes)),
                         tp_line=sized[0][0] if sized else "")


@parser(USER_MACHINE, feeds="stated_engines", kind=StatedEngines, rank=98)
def stated_split_from_machine_words(text: str) -> StatedEngines:
    """A sentence of the user's machine words that opens by running TP over a count of GPUs (STATED_TP_OVER: `TP with
    10 x ADA 6000s w/ x16 Gen4 PCie each on a single NUMA node`, corpus 2906), which the machine's reader took for its
    GPUs: the split and its count, no engine named.

    Input (tests/data/captures/2906)::

        TP with 10 x ADA 6000s w/ x16 Gen4 PCie each on a single NUMA node
    """
    split = next((line.strip() for line in text.splitlines() if stated_split(line) and stated_tp(line)), "")
    if not split:
        raise ParseError("no sentence of the machine's words runs TP over a count of GPUs")
    return StatedEngines(split=split, tp_sizes=stated_tp(split), tp_line=split)


# Docker Compose's progress words for a container it starts (`Container ollama Starting`, `Container ollama
# Recreated`), as Portainer's one-line deployment error holds them (corpus 2813): the container's name.
_COMPOSE_PROGRESS = re.compile(r"\bContainer ([\w.-]+) (?:Starting|Started|Recreate|Recreated|Created|Creating)\b")


@parser(EVIDENCE_LINES, feeds="stated_engines", kind=StatedEngines, rank=97)
def stated_engines_from_compose_progress(text: str) -> StatedEngines:
    """The engines the containers Docker Compose's progress words name in a line of evidence are named for
    (_COMPOSE_PROGRESS): a deployment error taken as evidence (`could not select device driver`) is out of the user's
    words, and the container it starts keeps naming its engine.

    Input (tests/data/captures/2813)::

        failed to deploy a stack : ollama Pulling ollama Pulled Container ollama Recreate Container ollama Recreated
    """
    engines = [e for line in text.splitlines() for m in _COMPOSE_PROGRESS.finditer(line) for e in stated_engines(m[1])]
    if not engines:
        raise ParseError("no container of an engine in Docker Compose's progress words")
    return StatedEngines(engines=tuple(dict.fromkeys(engines)))


# An engine's own client typed at a shell prompt of the paste (`$ ./ollama ps`, `ollama list`): ollama's CLI is its
# server's client (`ollama ps` lists the models the server has loaded), so the engine is on the host the prompt shows.
# Only ollama's: the other engines' commands are their servers' command lines (ENGINE_COMMAND).
_PROMPT_ENGINE = re.compile(r"^(?:sudo\s+)?(?:[\w./~-]*/)?ollama(?:\.exe)?\s+(?:ps|list|ls|run|serve|show|pull)\b")


@parser(PROMPT_HOSTS, feeds="stated_engines", kind=StatedEngines, rank=96)
def stated_engines_from_prompts(text: str) -> StatedEngines:
    """The engine whose own client a shell prompt of the paste ran (_PROMPT_ENGINE): ollama's CLI.

    The importer hands this parser each prompt's host (empty for `$ `), a tab and the command.

    Input (tests/data/captures/659)::

        $ ./ollama ps
    """
    if not any(_PROMPT_ENGINE.match(line.partition("\t")[2].strip()) for line in text.splitlines()):
        raise ParseError("no engine's client typed at a prompt")
    return StatedEngines(engines=("ollama",))

