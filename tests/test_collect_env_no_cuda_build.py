"""A report's "CUDA used to build PyTorch: None" is a torch built without CUDA (facts/collect_env.py NO_CUDA_BUILD):
CollectEnv.torch_cuda and the pasted environment's torch_cuda read "", never a CUDA version "None".

torch/utils/collect_env.py prints torch.version.cuda, which is None for a CPU, XPU or TPU build: "None" in older
reports, "Could not collect" where replace_nones stands in for it. Real pastes: the excerpts below with their threads
(vllm#4275's in tests/test_torch_cpu_build.py); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.collect_env import parse_collect_env
from test_torch_cpu_build import VLLM_4275

# https://github.com/vllm-project/vllm/issues/16521 (a TPU host: torch 2.8.0 built without CUDA), excerpt.
VLLM_16521 = """Collecting environment information...
PyTorch version: 2.8.0
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Debian GNU/Linux 11 (bullseye) (x86_64)
GCC version: (Debian 10.2.1-6) 10.2.1 20210110
Clang version: Could not collect
CMake version: version 4.0.0
Libc version: glibc-2.31

Python version: 3.10.16 (main, Jan 14 2025, 05:27:07) [GCC 10.2.1 20210110] (64-bit runtime)
Python platform: Linux-6.8.0-1015-gcp-x86_64-with-glibc2.31
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

# https://github.com/vllm-project/vllm/issues/15953 (a CPU build of vLLM on Arch Linux), excerpt.
VLLM_15953 = """PyTorch version: 2.6.0+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Arch Linux (x86_64)
Is CUDA available: False
CUDA runtime version: No CUDA
CUDA_MODULE_LOADING set to: N/A
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA
"""


def test_none_is_no_cuda_build() -> None:
    for text, version in ((VLLM_16521, "2.8.0"), (VLLM_15953, "2.6.0+cpu"), (VLLM_4275, "2.2.1+cpu")):
        report = parse_collect_env(text)
        assert report.torch_version == version
        assert report.torch_cuda == "", report.torch_cuda


def test_a_report_without_the_line_leaves_the_build_unknown() -> None:
    # Modelled: the report cut before its "CUDA used to build PyTorch" line, torch without a local version.
    report = parse_collect_env(VLLM_16521.replace("CUDA used to build PyTorch: None\n", ""))
    assert report.torch_cuda is None


def test_a_cuda_build_reads_its_version() -> None:
    # Modelled: the same report from a CUDA 12.4 build.
    report = parse_collect_env(VLLM_16521.replace("PyTorch: None", "PyTorch: 12.4"))
    assert report.torch_cuda == "12.4"


# Modelled: a torch built without CUDA (no `+cpu` in its version) where nvidia-smi shows a GPU and its driver.
NO_CUDA_BESIDE_A_GPU = VLLM_16521.replace(
    "GPU models and configuration: No CUDA\nNvidia driver version: No CUDA\n",
    "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\nNvidia driver version: 550.54.15\n")


def test_a_build_without_cuda_beside_a_gpu(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, NO_CUDA_BESIDE_A_GPU, "RT-TORCH-ARCH", "DRV-CUDA-COMPAT")
    arch, compat = results["RT-TORCH-ARCH"], results["DRV-CUDA-COMPAT"]
    assert arch.status == "issue" and "built without CUDA" in arch.message, arch.message
    # No CUDA version "None" is judged against the driver.
    assert compat.status != "ok" and "None" not in compat.message, compat.message


def test_corpus_2183_a_cpu_torch_and_no_runtime_leave_nothing_to_match() -> None:
    # Corpus 2183 (vllm#24063): torch 2.6.0+cpu, `CUDA runtime version: Could not collect`, driver 570.124.06.
    compat = capture_checks("2183", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert compat.status == "not-applicable", compat.message
    assert "2.6.0+cpu" in compat.message


# https://github.com/vllm-project/vllm/issues/9114 (chanandrew96), the report's CUDA lines: a CPU torch beside a
# CUDA 12.1 toolkit the report found, two RTX 4090 on driver 560.35.03.
VLLM_9114 = """Collecting environment information...
PyTorch version: 2.4.0+cpu
Is debug build: False
CUDA used to build PyTorch: Could not collect
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
Is CUDA available: False
CUDA runtime version: 12.1.105
CUDA_MODULE_LOADING set to: N/A
GPU models and configuration:
GPU 0: NVIDIA GeForce RTX 4090
GPU 1: NVIDIA GeForce RTX 4090

Nvidia driver version: 560.35.03
"""


def test_a_cpu_torch_beside_a_runtime_the_report_found_stays_open(tmp_path: Path) -> None:
    compat = paste_checks(tmp_path, VLLM_9114, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert compat.status != "not-applicable", compat.message


def test_modelled_a_runtime_wheel_in_the_package_list_stays_open(tmp_path: Path) -> None:
    # Modelled: corpus 2183 with a CUDA runtime wheel in its package list (vllm#18396 lists one beside torch +cpu).
    text = body("2183").replace("cuDNN version                :",
                                "cuDNN version                : Could not collect\n\nVersions of relevant libraries:\n"
                                "[pip3] nvidia-cuda-runtime-cu12==12.4.127\n[pip3] torch==2.6.0+cpu\n")
    compat = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert compat.status != "not-applicable", compat.message
