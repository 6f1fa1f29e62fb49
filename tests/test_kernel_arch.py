"""RT-KERNEL-ARCH: a kernel setting the GPU's architecture runs on a slow path (issue 29), read from the engine's
argv, a pasted command line or docker run, its configuration dump and its own log lines.

Real pastes are quoted verbatim with their thread; the GPU listings come from tests/data/captures (named by
file); command lines marked "modelled" are not from a thread.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stackaudit.engine.gap_verdict import gap_verdict
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from test_engine_settings import capture, pasted
from test_rt_runtime import host, unrelated, vllm_site, vllm_v1

R = "RT-KERNEL-ARCH"
# 8x NVIDIA H100 80GB HBM3 in a vLLM collect_env, cut before the vLLM version (corpus 123).
H100 = "123-8x-h100-vllm-collect-env-driver-550-head.txt"
# vLLM 0.4.1's collect_env on 8x A100 SXM (corpus 11): the version and the GPUs.
A100_VLLM = "11-8x-a100-nv12-epyc-nps4-vllm-collect-env-topology.txt"
# SGLang 0.2.10's check_env on 8x A100-SXM4-80GB (corpus 45).
A100_SGLANG = "45-8x-a100-sxm4-sglang-check-env-nv12.txt"
# vLLM's collect_env on an RTX PRO 6000 Blackwell Workstation (corpus 32).
BLACKWELL = "32-rtx-pro-6000-blackwell-ws-vllm-collect-env-new-format.txt"


def modelled_collect_env(gpu: str) -> str:
    """Modelled: the head of a vLLM collect_env (its old flat format) naming one GPU and vLLM 0.5.3."""
    return (f"Collecting environment information...\nPyTorch version: 2.3.1+cu121\nIs CUDA available: True\n"
            f"GPU models and configuration: \nGPU 0: {gpu}\nNvidia driver version: 550.90.07\n"
            f"vLLM Version: 0.5.3\n")

# Verbatim from https://github.com/vllm-project/vllm/issues/20112 (the start-up log and the command in the issue).
AWQ_FORCED_LOG = """\
INFO 06-17 13:04:11 [awq_marlin.py:120] Detected that the model can run with awq_marlin, however you specified quantization=awq explicitly, so forcing awq. Use quantization=awq_marlin for faster inference
WARNING 06-17 13:04:11 [config.py:931] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models.
"""
AWQ_FORCED_COMMAND = """\
python3 -m vllm.entrypoints.openai.api_server \\
  --model "${LLM_MODEL_NAME}" \\
  --served-model-name model \\
  --api-key "${LLM_API_KEY}" \\
  --max-model-len "${LLM_TOKEN_COUNT}" \\
  --tensor-parallel-size 1 \\
  --uvicorn-log-level error \\
  --gpu-memory-utilization 0.80 \\
  --max-num-seqs 32 \\
  --enable-chunked-prefill \\
  --max-num-batched-tokens 20480 \\
  --quantization awq \\
  --dtype half \\
  --enforce-eager
"""
# Verbatim from https://github.com/vllm-project/vllm/issues/5677 (vllm/vllm-openai:v0.5.0.post1).
GPTQ_FORCED_LOG = (" INFO 06-19 06:04:52 gptq_marlin.py:137] Detected that the model can run with gptq_marlin, however "
                   "you specified quantization=gptq explicitly, so forcing gptq. Use quantization=gptq_marlin for "
                   "faster inference\n")
# Verbatim from https://github.com/vllm-project/vllm/issues/21376 (23 tok/s with the flag, 123 without).
AWQ_DOCKER_RUN = """\
docker run \\
-e VLLM_USE_V1=1 \\
--ipc=host \\
-p "${MODEL_PORT}:8000" \\
--env "HUGGING_FACE_HUB_TOKEN=${HUGGING_FACE_HUB_TOKEN}" \\
--env "VLLM_LOGGING_LEVEL=${VLLM_LOGGING_LEVEL}" \\
-v "${HF_HOME}:/root/.cache/huggingface" \\
-v ~/.cache/vllm/torch_compile_cache:/root/.cache/vllm/torch_compile_cache \\
vllm/vllm-openai:latest \\
--model ${MODEL_ID} \\
--tokenizer hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 \\
--max-model-len 8192 \\
--quantization awq
"""
# Verbatim from https://github.com/vllm-project/vllm/pull/37296 (two TP workers loading an NVFP4 checkpoint).
NVFP4_MARLIN_LOG = """\
(Worker_TP1 pid=646936) WARNING 03-17 17:06:53 [nvfp4_utils.py:144] Your GPU does not have native support for FP4 computation but FP4 quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads.
(Worker_TP0 pid=646817) WARNING 03-17 17:06:53 [nvfp4_utils.py:144] Your GPU does not have native support for FP4 computation but FP4 quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads.
"""


def kernel(tmp_path: Path, *parts: str) -> Result:
    return pasted(tmp_path, *parts, checks=(R,))[R]


# --- the engine's own line says it forced the slow kernel: no GPU needed ---------------------------------------


@pytest.mark.parametrize(("paste", "quant"), [(AWQ_FORCED_LOG + AWQ_FORCED_COMMAND, "awq"), (GPTQ_FORCED_LOG, "gptq")])
def test_the_engines_forcing_line_is_the_issue_without_the_gpu(tmp_path: Path, paste: str, quant: str) -> None:
    r = kernel(tmp_path, paste)
    assert r.status == "issue" and r.severity == "high"
    assert f"{quant} GEMM kernel instead of {quant}_marlin" in r.message
    assert "https://github.com/vllm-project/vllm/issues/5677" in r.message


# --- a flag against the GPUs the source names ------------------------------------------------------------------


def test_a_docker_run_forcing_awq_is_unknown_without_the_gpu_and_high_on_hopper(tmp_path: Path) -> None:
    r = kernel(tmp_path, AWQ_DOCKER_RUN)
    assert r.status == "unknown" and "--quantization awq" in r.message and "GPUs" in r.message
    r = kernel(tmp_path, capture(H100), AWQ_DOCKER_RUN)
    assert r.status == "issue" and r.severity == "high" and "H100" in r.message
    assert "https://github.com/vllm-project/vllm/issues/21376" in r.message


def test_awq_forced_on_a_turing_gpu_is_the_only_kernel_there(tmp_path: Path) -> None:
    # Modelled: a T4 (compute capability 7.5) has no Marlin kernel, so `--quantization awq` is its only path.
    line = "$ vllm serve TheBloke/Llama-2-7B-Chat-AWQ --quantization awq"
    r = kernel(tmp_path, modelled_collect_env("Tesla T4"), line)
    assert r.status == "ok" and "vLLM 0.5.3" in r.message
    r = kernel(tmp_path, capture(A100_SGLANG), line)
    assert r.status == "issue" and r.severity == "high" and "A100" in r.message


def test_sglang_triton_attention_on_hopper_is_medium_on_ampere_it_is_the_default_path(tmp_path: Path) -> None:
    # Modelled command lines; real GPU listings.
    line = "$ python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --attention-backend triton"
    r = kernel(tmp_path, capture(H100), line)
    assert r.status == "issue" and r.severity == "medium" and "126.41" in r.message
    r = kernel(tmp_path, capture(A100_SGLANG), line)
    assert r.status == "ok" and "SGLang 0.2.10" in r.message


def test_fa3_on_b200_and_fp8_on_ampere_are_low(tmp_path: Path) -> None:
    # Modelled: a B200 (sm100); SGLang refuses fa3 there (sglang#12360).
    r = kernel(tmp_path, modelled_collect_env("NVIDIA B200"), "$ python -m sglang.launch_server --model-path m --attention-backend fa3")
    assert r.status == "issue" and r.severity == "low" and "does not start" in r.message
    # fa3 on Hopper is SGLang's own default there.
    r = kernel(tmp_path, capture(H100), "$ python -m sglang.launch_server --model-path m --attention-backend fa3")
    assert r.status != "issue"
    r = kernel(tmp_path, capture(A100_SGLANG), "$ vllm serve m --quantization fp8")
    assert r.status == "issue" and r.severity == "low" and "weight-only FP8" in r.message


def test_the_fp4_marlin_line_counts_only_before_blackwell(tmp_path: Path) -> None:
    r = kernel(tmp_path, NVFP4_MARLIN_LOG)
    assert r.status == "unknown" and "GPUs" in r.message
    r = kernel(tmp_path, capture(H100), NVFP4_MARLIN_LOG)
    assert r.status == "issue" and r.severity == "low" and "NVFP4" in r.message
    # On Blackwell the line names a backend choice, not a missing FP4 unit (vllm#27471).
    r = kernel(tmp_path, capture(BLACKWELL), NVFP4_MARLIN_LOG)
    assert r.status == "unknown" and "does not show every flag" in r.message


def test_a_configuration_dump_is_read_like_the_flags(tmp_path: Path) -> None:
    # Modelled: vLLM's `non-default args:` line (vllm/entrypoints/utils.py) with quantization forced.
    dump = ("INFO 07-22 10:00:00 [cli_args.py:261] non-default args: {'model': 'Qwen/Qwen2.5-7B-Instruct-AWQ', "
            "'quantization': 'awq', 'max_model_len': 8192}")
    r = kernel(tmp_path, capture(H100), dump)
    assert r.status == "issue" and "`--quantization awq`" in r.message
    r = kernel(tmp_path, capture(H100), dump.replace("'awq'", "'awq_marlin'"))
    assert r.status == "unknown"


# --- ok only from a complete command line ----------------------------------------------------------------------


def test_ok_needs_a_complete_command_line(tmp_path: Path) -> None:
    line = "$ vllm serve hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 --max-model-len 8192"
    assert kernel(tmp_path, capture(H100), line).status == "unknown"  # no version beside the line
    r = kernel(tmp_path, capture(A100_VLLM), line)
    assert r.status == "ok" and "vLLM 0.4.1" in r.message
    # A running engine's argv is complete.
    r = run_checks(host(unrelated(), vllm_v1(), vllm_site()), [R])[R]
    assert r.status == "ok"
    r = run_checks(host(unrelated(), vllm_v1(extra_args=("-q", "gptq")), vllm_site()), [R])[R]
    assert r.status == "unknown" and "--quantization gptq" in r.message


# --- the gap verdict: each severity its class -----------------------------------------------------------------


@pytest.mark.parametrize(("severity", "klass", "explains"),
                         [("high", "multiple", True), ("medium", "tens", False), ("low", "none-for-decode", False)])
def test_each_severity_weighs_its_class_in_the_gap(severity: str, klass: str, explains: bool) -> None:
    found = Result(R, "rt", "kernel backend not suited to the GPU's architecture", "issue", "found",
                   severity=severity)
    out = gap_verdict({"decode_tok_s": 10.0, "ceiling_tok_s": 100.0}, [found])
    assert out["findings"][0]["class"] == klass and out["host_explains"] is explains


# --- an attention backend vLLM chose or was told to use -------------------------------------------------------

# Verbatim from https://github.com/vllm-project/vllm/issues/56564 (GLM-5.3-Flash on 8x H100, the quoted log line).
SPARSE_MLA_SM90 = ("Using FLASHINFER_MLA_SPARSE_SM90 attention backend out of potential backends: "
                   "['FLASHINFER_MLA_SPARSE_SM90', 'FLASH_ATTN_MLA_SPARSE']\n")


def test_the_sparse_mla_sm90_backend_is_medium_from_its_log_line_or_the_environment(tmp_path: Path) -> None:
    r = kernel(tmp_path, SPARSE_MLA_SM90)
    assert r.status == "issue" and r.severity == "medium" and "36 % slower at concurrency 1" in r.message
    # Modelled: the same backend forced through the environment of a running engine.
    r = run_checks(host(unrelated(), vllm_v1(env={"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA_SPARSE_SM90"}),
                        vllm_site()), [R])[R]
    assert r.status == "issue" and "VLLM_ATTENTION_BACKEND=FLASHINFER_MLA_SPARSE_SM90" in r.message
    r = run_checks(host(unrelated(), vllm_v1(env={"VLLM_ATTENTION_BACKEND": "FLASH_ATTN_MLA_SPARSE"}), vllm_site()),
                   [R])[R]
    assert r.status == "ok"


# --- llama.cpp's CUDA build and the GPU's compute capability (issue 28, blind XJ: corpus 1056) ---------------------

# The `system_info` line of ollama 0.30's cuda_v13 llama-server (corpus 1056, its line 6 without the journal prefix).
SYSTEM_INFO_1056 = (
    "0.00.082.906 I system_info: n_threads = 24 (n_threads_batch = 24) / 48 | CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | "
    "F16C = 1 | LLAMAFILE = 1 | REPACK = 1 | CUDA : ARCHS = 750,800,860,890,900,1000,1030,1100,1200,1210 | "
    "USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 |\n")
# https://github.com/ollama/ollama/issues/17766 (comment by sbe-arg): the same cuda_v13 library's device list on five
# Pascal cards, verbatim. Beside SYSTEM_INFO_1056 it is modelled: one paste of the two threads' lines.
PASCAL_17766 = """Aug 16 00:44:15 custom ollama[3422]: ggml_cuda_init: found 5 CUDA devices (Total VRAM: 87990 MiB):
Aug 16 00:44:15 custom ollama[3422]:   Device 0: Quadro P6000, compute capability 6.1, VMM: yes, VRAM: 22903 MiB
Aug 16 00:44:15 custom ollama[3422]:   Device 1: Quadro P6000, compute capability 6.1, VMM: yes, VRAM: 24436 MiB
Aug 16 00:44:15 custom ollama[3422]:   Device 2: Quadro P6000, compute capability 6.1, VMM: yes, VRAM: 24436 MiB
Aug 16 00:44:15 custom ollama[3422]:   Device 3: Quadro P4000, compute capability 6.1, VMM: yes, VRAM: 8107 MiB
Aug 16 00:44:15 custom ollama[3422]:   Device 4: Quadro P4000, compute capability 6.1, VMM: yes, VRAM: 8107 MiB
"""
# Modelled: the same build on a Turing card, its lowest entry.
T4_DEVICES = "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: Tesla T4, compute capability 7.5, VMM: yes\n"


def test_a_gpu_older_than_every_arch_of_the_build_is_left_out(tmp_path: Path) -> None:
    r = kernel(tmp_path, PASCAL_17766 + SYSTEM_INFO_1056)
    assert r.status == "issue" and "Quadro P6000 (compute capability 6.1)" in r.message and "the lowest 7.5" in r.message
    assert r.subjects == ("GPU 0", "GPU 1", "GPU 2", "GPU 3", "GPU 4")
    assert r.fix is not None and "CMAKE_CUDA_ARCHITECTURES" in str(r.fix)


def test_a_gpu_the_build_covers_or_layers_on_the_gpu_are_no_issue(tmp_path: Path) -> None:
    assert kernel(tmp_path, T4_DEVICES + SYSTEM_INFO_1056).status != "issue"
    # Modelled: the log goes on to put the layers on the GPU (another CUDA library of ollama's took it).
    offloaded = "load_tensors: offloaded 41/41 layers to GPU\n"
    assert kernel(tmp_path, PASCAL_17766 + SYSTEM_INFO_1056 + offloaded).status != "issue"


def test_the_build_without_the_gpu_names_its_floor_1056() -> None:
    from corpus import capture_checks

    r = capture_checks("1056", R)[R]
    assert r.status == "unknown" and "compute capability 7.5 and newer" in r.message


def test_ollamas_runner_line_is_the_same_reader() -> None:
    from stackaudit.facts.serving_logs import parse_serving_log
    from test_ollama_log_lines import SYSTEM_11983

    archs = parse_serving_log(SYSTEM_11983 + SYSTEM_INFO_1056).ggml_cuda_archs
    assert [a for a, _ in archs] == [(500, 600, 610, 700, 750, 800, 860, 870, 890, 900, 1200),
                                     (750, 800, 860, 890, 900, 1000, 1030, 1100, 1200, 1210)]


def test_a_build_carrying_the_gpus_own_arch_is_ok_927() -> None:
    from corpus import capture_checks

    # corpus 927: `Device 0: NVIDIA GeForce RTX 3050 Laptop GPU, compute capability 8.6` (its `found` line cut) and
    # ollama's `CUDA.0.ARCHS=500,...,860,...`.
    r = capture_checks("927", R)[R]
    assert r.status == "ok" and r.coverage is not None and r.coverage.shown == ("GPU 0",)


def test_a_named_gpu_whose_capability_is_not_settled_is_named(tmp_path: Path) -> None:
    from corpus import capture_checks

    # corpus 1283: `CUDA : ARCHS = 610` and the user's `3 old gpus (1080ti, 2x1070)`: the GPU table's GTX 1070 row
    # (Pascal GP104, 6.1) settles the `1070` the words name, so the build's own entry covers it.
    r = capture_checks("1283", R)[R]
    assert r.status == "ok" and "GTX 1070 (compute capability 6.1)" in r.message and "ARCHS = 610" in r.message
    # Modelled: a name the table has no row for (`1060`) is named, not judged.
    line = "> system_info: n_threads = 2 / 4 | CUDA : ARCHS = 610 | USE_GRAPHS = 1 |\n"
    r = kernel(tmp_path, "system: 2x1060\n", line)
    assert r.status == "unknown" and "names 1060 without a compute capability" in r.message


# --- a complete llama.cpp command line without its release (h61b) ---------------------------------------------------
# The class counted: 12 blind readings of 'no kernel flag ... but the engine's version is not in the source', ok 5,
# unknown 6, not-an-issue 1. No KERNEL_RULES row is llama.cpp's, so its release adds nothing to its flags; the GPUs
# shown decide whether any build carries code for them.


def test_a_complete_llama_cpp_command_is_judged_by_the_gpus_shown() -> None:
    from corpus import capture_checks

    # corpus 1301: `llama-server --host 0.0.0.0 ... -np 15 --tensor-split 1.0,0.0,0.0 -ngl 99999` and three RTX 4090
    # (8.9) in ggml_cuda_init's list.
    r = capture_checks("1301", R)[R]
    assert r.status == "ok" and "compute capability 8.9" in r.message and "version is not in the source" not in r.message
    assert r.coverage is not None and r.coverage.shown == ("GPU 0", "GPU 1", "GPU 2")
    # corpus 1282: an RTX 5070 Ti (12.0): a build runs there only from a CUDA 12.8 toolkit, which the paste does not
    # show; corpus 1281: a GTX 1080 Ti (6.1), which CUDA 13 toolkits no longer compile for.
    for prefix, cap in (("1282", "12.0"), ("1281", "6.1")):
        r = capture_checks(prefix, R)[R]
        assert r.status == "unknown" and f"(compute capability {cap}) is outside" in r.message, prefix


def test_a_version_query_or_a_cut_llama_cpp_line_is_no_command_to_judge(tmp_path: Path) -> None:
    from corpus import capture_checks

    # corpus 925: only `./build/bin/llama-server --version` beside the device list: it runs no model.
    r = capture_checks("925", R)[R]
    assert r.status == "unknown" and "is outside" not in r.message and "version is not in the source" in r.message
    # Modelled: a line that goes on past the paste (`\\`), on an RTX 4090 the device list shows.
    devices = "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes\n"
    whole = "llama-server -m /models/qwen2.5-7b-q4_k_m.gguf -ngl 99 -c 8192\n"
    assert kernel(tmp_path, devices, whole).status == "ok"
    assert kernel(tmp_path, devices, "llama-server -m /models/qwen2.5-7b-q4_k_m.gguf -ngl 99 \\\n").status == "unknown"


# --- a vLLM command that leaves no kernel to its release (h68k) ------------------------------------------------------
# Without the version, a complete vLLM command is unknown because vLLM picks two of the table's kernels itself: Marlin
# for AWQ/GPTQ checkpoints (from 0.5.3) and the sparse-MLA attention backend on Hopper. A command that settles both
# (an explicit --quantization or a flag of a release after 0.5.3; an explicit attention backend or GPUs shown, none
# Hopper) needs no release.


def test_a_vllm_command_that_settles_both_kernels_needs_no_release(tmp_path: Path) -> None:
    from corpus import capture_checks

    # corpus 1453: `vllm serve ... --speculative-config '{...dflash...}' --attention-backend flash_attn`.
    r = capture_checks("1453", R)[R]
    assert r.status == "ok", r.message
    assert "`--speculative-config` is in no release before 0.8.0" in r.message and "`flash_attn`" in r.message
    # Modelled: the same kind of command without the attention backend, no GPU shown: vLLM may pick it itself.
    spec = "vllm serve /models/m --speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 3}'\n"
    assert kernel(tmp_path, spec).status == "unknown"
    # Modelled: GPUs shown, none Hopper, settle the attention backend; an H100 does not.
    a100 = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-4e5a8c1e-0d9b-4f2a-9c1e-1a2b3c4d5e6f)\n"
    h100 = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-4e5a8c1e-0d9b-4f2a-9c1e-1a2b3c4d5e6f)\n"
    r = kernel(tmp_path, a100, spec)
    assert r.status == "ok" and "no GPU shown is Hopper" in r.message, r.message
    assert kernel(tmp_path, h100, spec).status == "unknown"
    # Modelled: `vllm serve` alone dates the command to 0.5.0, before vLLM picked Marlin for AWQ itself.
    assert kernel(tmp_path, a100, "vllm serve /models/m-awq --attention-backend FLASH_ATTN\n").status == "unknown"
    # An explicit quantization other than the table's settles that kernel (corpus 350's bitsandbytes, with a backend).
    r = kernel(tmp_path, "vllm serve /models/m --quantization bitsandbytes --attention-backend FLASH_ATTN\n")
    assert r.status == "ok" and "`--quantization bitsandbytes` chooses" in r.message, r.message
