"""RT-TORCH-ARCH: a CPU build of torch (`+cpu`, "CUDA used to build PyTorch: None") on a host with NVIDIA GPUs
has no CUDA kernels: an issue. The same build where no NVIDIA GPU is shown is no finding of this check.
Real pastes are corpus captures or verbatim excerpts (the public thread beside each); counter-examples are modelled
where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

ARCH = "RT-TORCH-ARCH"


def test_a_cpu_wheel_beside_an_a100_is_an_issue() -> None:
    # Corpus 450: vLLM's collect_env, "PyTorch version: 2.7.1+cpu", "CUDA used to build PyTorch: Could not collect",
    # nvidia-smi's GPU 0: NVIDIA A100-SXM4-40GB.
    result = capture_checks("450", ARCH)[ARCH]
    assert result.status == "issue", result.message
    assert "built without CUDA" in result.message and "2.7.1+cpu" in result.message


# https://github.com/vllm-project/vllm/issues/4275 (a CPU inference host: torch 2.2.1+cpu, no GPU), excerpt.
VLLM_4275 = """Collecting environment information...
PyTorch version: 2.2.1+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
GCC version: (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0
Clang version: Could not collect
CMake version: version 3.29.2
Libc version: glibc-2.35

Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-6.1.0-20-amd64-x86_64-with-glibc2.35
Is CUDA available: False
CUDA runtime version: No CUDA
CUDA_MODULE_LOADING set to: N/A
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA
cuDNN version: No CUDA
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True
"""


def test_a_cpu_wheel_with_no_gpu_shown_is_no_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_4275, ARCH)[ARCH]
    assert result.status != "issue", result.message


def test_a_cuda_wheel_is_not_read_as_cpu(tmp_path: Path) -> None:
    # Modelled: corpus 450 with the CUDA 12.8 wheel instead: an A100 (8.0) is in cu128's list.
    text = next(p for p in Path(__file__).parent.joinpath("data", "captures").glob("450-*.txt")).read_text()
    body = text.split("-----\n", 1)[1].replace("2.7.1+cpu", "2.7.1+cu128")
    result = paste_checks(tmp_path, body, ARCH)[ARCH]
    assert result.status != "issue", result.message
    assert "built without CUDA" not in result.message


def test_a_cpu_build_issue_covers_the_gpus_the_report_shows() -> None:
    # Corpus 450: collect_env of torch 2.7.1+cpu beside one A100: the issue covers that GPU.
    result = capture_checks("450", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "issue" and "built without CUDA" in result.message
    assert result.coverage is not None and result.coverage.text() == "1 of 1 GPU shown"
