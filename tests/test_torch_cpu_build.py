"""RT-TORCH-ARCH: a CPU build of torch (`+cpu`, "CUDA used to build PyTorch: None") on a host with NVIDIA GPUs
has no CUDA kernels: an issue. The same build where no NVIDIA GPU is shown is no finding of this check, nor one where
the sources show the engine built for the CPU on purpose (facts/engines_shown.cpu_build_shown).
Real pastes are corpus captures or verbatim excerpts (the public thread beside each); counter-examples are modelled
where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.engines_shown import cpu_build_shown

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


def test_corpus_2183_a_cpu_torch_in_vllms_cpu_environment_is_no_issue() -> None:
    # Corpus 2183 (vllm#24063): `(vllm-cpu) root@gpu-3090:~/oss/vllm-cpu# UV=1 python vllm/collect_env.py`, torch
    # 2.6.0+cpu beside an RTX 3090: vLLM's CPU build, on purpose.
    result = capture_checks("2183", ARCH)[ARCH]
    assert result.status == "not-an-issue", result.message
    assert "vllm-cpu" in result.message


def test_modelled_the_same_report_in_an_environment_not_named_for_the_cpu_is_an_issue(tmp_path: Path) -> None:
    # Modelled: corpus 2183 run from a `(vllm)` environment: nothing shows the CPU build meant.
    text = body("2183").replace("(vllm-cpu) root@gpu-3090:~/oss/vllm-cpu#", "(vllm) root@gpu-3090:~/oss/vllm#")
    result = paste_checks(tmp_path, text, ARCH)[ARCH]
    assert result.status == "issue", result.message


def test_what_shows_a_cpu_build() -> None:
    # vLLM's CPU build's version: intel/llm-on-ray#179 (`vllm 0.4.0.post1+cpu requires torch==2.1.2+cpu`).
    assert "0.4.0.post1+cpu" in cpu_build_shown("", CollectEnv("vllm", "old", vllm_version="0.4.0.post1+cpu"))
    assert cpu_build_shown("vllm-cpu\troot\tgpu-3090\n", None)  # corpus 2183's prompt
    # Modelled: an environment whose name only starts with the letters, a CUDA build's version, and a second
    # prompt in an environment of another name.
    assert cpu_build_shown("cpuinfo\tuser\thost\n", None) == ""
    assert cpu_build_shown("", CollectEnv("vllm", "new", vllm_version="0.9.1.dev5+gd98139677.d20250520")) == ""
    assert cpu_build_shown("vllm-cpu\troot\th\nvllm\troot\th\n", None) == ""
