"""RT-TORCH-ARCH: the cu129 and cu130 wheels' arch lists (checks/rt.py WHEEL_ARCHES, WHEEL_ARCHES_VARY).

cu129 wheels (torch >= 2.8) and cu130 wheels (torch >= 2.9) carry sm_80 to sm_120 on every platform
(pytorch/pytorch .ci/manywheel/build_cuda.sh, commit 799d09f2; release/2.13's TORCH_CUDA_ARCH_LIST_TABLE).
sm_75 is in the x86_64 wheels only, so a Turing GPU under a cu130 wheel is left unknown, never ok or an issue,
unless a collect_env of that torch names its machine (`OS: ... (x86_64)`: ok; aarch64 stays unknown).
Real pastes: corpus capture 475 (sglang#40797), and the excerpts below with their threads; counter-examples are
modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.rt import wheel_arch_list
from stackaudit.facts.collect_env import parse_collect_env

# https://github.com/vllm-project/vllm/issues/30435 (collect_env of the issue body, cut after the driver line; trailing spaces dropped).
RTX5090_CU130 = """==============================
       PyTorch Info
==============================
PyTorch version              : 2.9.0+cu130
Is debug build               : False
CUDA used to build PyTorch   : 13.0
ROCM used to build PyTorch   : N/A

==============================
      Python Environment
==============================
Python version               : 3.11.14 | packaged by conda-forge | (main, Oct 13 2025, 14:09:32) [GCC 14.3.0] (64-bit runtime)
Python platform              : Linux-6.6.87.2-microsoft-standard-WSL2-x86_64-with-glibc2.35

==============================
       CUDA / GPU Info
==============================
Is CUDA available            : True
CUDA runtime version         : Could not collect
CUDA_MODULE_LOADING set to   :
GPU models and configuration :
GPU 0: NVIDIA GeForce RTX 5090
GPU 1: NVIDIA GeForce RTX 5060 Ti

Nvidia driver version        : 581.57
"""

# https://github.com/sgl-project/sglang/issues/13198 (check_env quoted in a comment, its line breaks restored).
GB10_CU130 = """Python: 3.12.12 | packaged by Anaconda, Inc. | (main, Oct 21 2025, 20:05:09) [GCC 11.2.0]
CUDA available: True
GPU 0: NVIDIA GB10
GPU 0 Compute Capability: 12.1
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 13.0, V13.0.88
CUDA Driver Version: 580.95.05
PyTorch: 2.9.1+cu130
sglang: 0.5.5.post1
"""


def test_b200_under_cu130_211_is_ok() -> None:
    result = capture_checks("475", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert "sm_100" in result.message and "NVIDIA B200 (compute 10.0)" in result.message


def test_rtx50_under_cu130_29_is_ok(tmp_path: Path) -> None:
    # The arch list is known; the RTX 5060 Ti, a model the GPU table lacks, is a GeForce RTX 50 card, compute 12.0
    # (gputable.capability_of).
    result = paste_checks(tmp_path, RTX5090_CU130, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert result.actual["arch_list"][-1] == "sm_120"
    assert result.actual["gpus"] == {"NVIDIA GeForce RTX 5090": "12.0", "NVIDIA GeForce RTX 5060 Ti": "12.0"}


def test_gb10_runs_the_sm120_cubin(tmp_path: Path) -> None:
    # A cubin for 12.0 runs on 12.1 (same major, higher minor).
    result = paste_checks(tmp_path, GB10_CU130, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert "compute 12.1" in result.message


def test_cu129_and_cu130_lists_start_at_their_first_release() -> None:
    assert wheel_arch_list("2.8.0+cu129") == ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert wheel_arch_list("2.9.1+cu130") == wheel_arch_list("2.8.0+cu129")
    # Modelled: no release before 2.9 was built for CUDA 13.0, so such a version is no official wheel.
    assert wheel_arch_list("2.8.0+cu130") is None
    assert wheel_arch_list("2.7.1+cu129") is None


# Modelled: a T4 (compute 7.5) under a cu130 wheel: sm_75 is in the x86_64 wheel, not in the aarch64 one (AWS G5g).
T4_CU130 = RTX5090_CU130.replace("GPU 0: NVIDIA GeForce RTX 5090\nGPU 1: NVIDIA GeForce RTX 5060 Ti\n",
                                 "GPU 0: Tesla T4\n").replace(
    "Python platform              : Linux-6.6.87.2-microsoft-standard-WSL2-x86_64-with-glibc2.35\n", "")


def test_turing_under_cu130_is_no_sure_verdict(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, T4_CU130, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "unknown", result.message
    assert "sm_75" in result.message


# Modelled: a V100 (compute 7.0) under a cu130 wheel: CUDA 13 builds no sm_70, so no wheel of it runs there.
V100_CU130 = RTX5090_CU130.replace("GPU 0: NVIDIA GeForce RTX 5090\nGPU 1: NVIDIA GeForce RTX 5060 Ti\n",
                                   "GPU 0: Tesla V100-SXM2-32GB\n")


def test_volta_under_cu130_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, V100_CU130, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "issue", result.message
    assert "compute 7.0" in result.message


# --- the machine a collect_env names settles the platform's capabilities (WHEEL_ARCHES_ON) ---------------------------

def test_turing_under_cu129_on_a_named_x86_64_host_is_ok() -> None:
    # Real: corpus 1899 (vllm collect_env, `OS : Ubuntu 22.04.5 LTS (x86_64)`), an RTX 2080 Ti and an RTX 3090.
    result = capture_checks("1899", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert "compute 7.5" in result.message


@pytest.mark.parametrize(("line", "machine"), [
    ("OS: Ubuntu 22.04.2 LTS (x86_64)", "x86_64"),  # vllm-project/vllm#9293's collect_env
    ("OS                           : Ubuntu 22.04.5 LTS (x86_64)", "x86_64"),  # corpus 1899, vLLM's layout
    ("OS: Ubuntu 24.04.2 LTS (aarch64)", "aarch64"),  # modelled on a GH200's report
    ("OS: Ubuntu 22.04.2 LTS", ""),  # modelled: no machine named
])
def test_the_os_line_names_the_machine(line: str, machine: str) -> None:
    text = f"PyTorch version: 2.9.0+cu130\nIs debug build: False\nCUDA used to build PyTorch: 13.0\n{line}\n"
    assert parse_collect_env(text).machine == machine


@pytest.mark.parametrize(("machine", "status"), [("x86_64", "ok"), ("aarch64", "unknown")])
def test_turing_under_cu130_follows_the_named_machine(tmp_path: Path, machine: str, status: str) -> None:
    # Modelled: the T4 excerpt above with an OS line; the aarch64 wheel lacks sm_75 (left unknown, as before).
    text = T4_CU130.replace("PyTorch version              : 2.9.0+cu130\n",
                            f"PyTorch version              : 2.9.0+cu130\nOS                           : "
                            f"Ubuntu 22.04.5 LTS ({machine})\n")
    assert f"({machine})" in text
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == status, result.message
