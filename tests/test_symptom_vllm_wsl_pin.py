"""vLLM's "Using 'pin_memory=False' as WSL is detected" proves MEM-PINNED-HOST on its own (facts/symptoms.py).

vLLM logs the line where it allocates host buffers without pinning (vllm-project/vllm#312); the check's own facts
(the serving processes, the kernel release) are seldom in a pasted log.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "MEM-PINNED-HOST"

# https://github.com/vllm-project/vllm/issues/1084 (issue body, 2023-09-18): the V0 cache engine's line, as quoted.
VLLM_1084 = """\
WARNING 09-18 10:59:09 cache_engine.py:96] Using 'pin_memory=False' as WSL is detected. This may slow down the performance.
"""

# https://github.com/vllm-project/vllm/issues/38820 (comment by Asher-Ding, 2026-05-06): vLLM 0.20.1, TP 2 on WSL2; the
# log's first lines.
VLLM_38820 = """\
WARNING 05-06 20:59:06 [interface.py:686] Using 'pin_memory=False' as WSL is detected. This may slow down the performance.
(APIServer pid=34165) INFO 05-06 20:59:06 [utils.py:299]
(APIServer pid=34165) INFO 05-06 20:59:06 [utils.py:299]        █     █     █▄   ▄█
"""

# Modelled: the same start-up on native Linux, where vLLM pins and logs no such line.
NATIVE = """\
(APIServer pid=34165) INFO 05-06 20:59:06 [utils.py:233] non-default args: {'model_tag': '/models/gemma', 'host': '0.0.0.0'}
(EngineCore pid=589) INFO 03-22 10:54:07 [parallel_state.py:1400] world_size=1 rank=0 local_rank=0 backend=nccl
"""


def test_tp2_worker_log_in_the_corpus_is_an_issue() -> None:
    result = capture_checks("371", CHECK)[CHECK]  # vllm-project/vllm#15255
    assert result.status == "issue"
    assert "pin_memory=False" in result.message and "WSL" in result.message


def test_2703_line_cut_inside_its_last_word_is_an_issue() -> None:
    """Corpus 2703 (both readers): `Using 'pin_memory=False' as WSL is dete`, cut by the stored copy."""
    result = capture_checks("2703", CHECK)[CHECK]
    assert result.status == "issue" and "as WSL is dete" in result.message, result.message


def test_modelled_another_pin_memory_line_proves_nothing(tmp_path: Path) -> None:
    """Modelled: a line that names pin_memory and WSL but not vLLM's detection."""
    text = "INFO 05-06 20:59:06 [config.py:1] Using 'pin_memory=False' as WSL users asked for it\n"
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status != "issue"


def test_v0_cache_engine_line_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_1084, CHECK)[CHECK]
    assert result.status == "issue"
    assert any("cache_engine.py:96" in e for e in result.evidence)


def test_v1_interface_line_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_38820, CHECK)[CHECK]
    assert result.status == "issue"


def test_native_linux_log_proves_nothing(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, NATIVE, CHECK)[CHECK]
    assert result.status != "issue"


# A WSL 2 kernel release proves the issue without the engine's processes: CUDA on WSL limits pinned system memory
# (https://docs.nvidia.com/cuda/wsl-user-guide/index.html#known-limitations-for-linux-cuda-applications) and vLLM's
# is_pin_memory_available() turns pinning off wherever the uname names Microsoft.


def test_wsl_kernel_in_collect_env_is_an_issue() -> None:
    result = capture_checks("1073", CHECK)[CHECK]  # vllm-project/vllm#4411: 'Linux-5.15.133.1-microsoft-standard-WSL2'
    assert result.status == "issue"
    assert "WSL" in result.message
    assert "microsoft-standard-WSL2" in str(result.actual)


def test_native_kernel_in_collect_env_is_not_an_issue() -> None:
    result = capture_checks("1043", CHECK)[CHECK]  # pytorch/pytorch#157398: 'Linux-6.8.0-62-generic'
    assert result.status == "unknown"
    assert "serving_processes" in result.message


# Modelled: the head of torch's collect_env (as in pytorch/pytorch#157398), once on WSL 2 and once on native Linux.
COLLECT_ENV = """\
Collecting environment information...
PyTorch version: 2.7.1+cu128
Is debug build: False
CUDA used to build PyTorch: 12.8
ROCM used to build PyTorch: N/A

OS: Ubuntu 24.04.2 LTS (x86_64)
GCC version: (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0
Libc version: glibc-2.39

Python version: 3.11.13 (main, Jun  5 2025, 13:12:00) [GCC 11.2.0] (64-bit runtime)
Python platform: {platform}
Is CUDA available: True
GPU models and configuration:
GPU 0: NVIDIA RTX A6000
GPU 1: NVIDIA RTX A6000
"""


def test_collect_env_platform_decides(tmp_path: Path) -> None:
    wsl = COLLECT_ENV.format(platform="Linux-5.15.167.4-microsoft-standard-WSL2-x86_64-with-glibc2.39")
    native = COLLECT_ENV.format(platform="Linux-6.8.0-62-generic-x86_64-with-glibc2.39")
    assert paste_checks(tmp_path, wsl, CHECK)[CHECK].status == "issue"
    assert paste_checks(tmp_path, native, CHECK)[CHECK].status == "unknown"


# Modelled on the logs of vLLM 0.8 on its CPU platform that public threads quote (`[cpu.py:170] Pin memory is not
# supported on CPU.`, the platform's own warning: vllm/platforms/cpu.py).
VLLM_CPU = """\
INFO 04-16 09:38:36 [engine.py:310] Added request cmpl-aae746bcb8594a8ab23b0faf8e4047dc-0.
WARNING 04-16 09:38:37 [cpu.py:170] Pin memory is not supported on CPU.
INFO 04-16 09:38:37 [metrics.py:489] Avg prompt throughput: 0.4 tokens/s, Avg generation throughput: 0.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%.
"""


def test_vllm_on_its_cpu_platform_pins_nothing_and_ran_no_cuda(tmp_path: Path) -> None:
    # Corpus 1521 (vllm-project/vllm#12153, V0's `_logger.py:72`) and the V1 form: the CPU platform's warning rules
    # MEM-PINNED-HOST out, and the metrics line's "GPU KV cache" is the CPU platform's pool, no CUDA at work.
    for result in (capture_checks("1521", CHECK, "DRV-CUDA-COMPAT"),
                   paste_checks(tmp_path, VLLM_CPU, CHECK, "DRV-CUDA-COMPAT")):
        assert result[CHECK].status == "not-an-issue" and "CPU platform" in result[CHECK].message, result[CHECK].message
        assert result["DRV-CUDA-COMPAT"].status != "ok", result["DRV-CUDA-COMPAT"].message


# --- vLLM under WSL 2 from any source that shows WSL 2, not only its kernel release (h118a) --------------------------

def test_2704_vllm_under_wsl2_in_the_users_words_is_an_issue() -> None:
    """Corpus 2704 (both readers): a vLLM nightly in Docker on WSL2 (the user's words), dying in its UVA buffer."""
    result = capture_checks("2704", CHECK)[CHECK]
    assert result.status == "issue" and "vLLM under WSL 2" in result.message, result.message


def test_2712_another_engine_under_wsl2_is_not_judged_by_vllms_rule() -> None:
    """Corpus 2712: SGLang under WSL2 (the user's words): vLLM's pinning rule says nothing of it."""
    result = capture_checks("2712", CHECK)[CHECK]
    assert "vLLM under WSL 2" not in result.message


def test_modelled_vllm_command_on_native_linux_is_no_wsl_issue(tmp_path: Path) -> None:
    """Modelled: the same vLLM command with no WSL shown."""
    text = ("$ docker run --gpus all --shm-size=16g vllm/vllm-openai:v0.8.5 --model Qwen/Qwen2.5-7B-Instruct "
            "--tensor-parallel-size 2\n")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert "WSL" not in result.message, result.message


def test_modelled_vllm_command_under_wsl2_is_an_issue(tmp_path: Path) -> None:
    text = ("I run this on Windows 11 with WSL2 and Docker Desktop, 2 GPUs.\n"
            "$ docker run --gpus all --shm-size=16g vllm/vllm-openai:v0.8.5 --model Qwen/Qwen2.5-7B-Instruct "
            "--tensor-parallel-size 2\n")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "issue" and "vLLM under WSL 2" in result.message, result.message
