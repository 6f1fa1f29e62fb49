"""Issue 28, DRV-CUDA-COMPAT: a system CUDA toolkit newer than the driver's CUDA, while torch loads its own runtime.

collect_env's 'CUDA runtime version' (check_env's NVCC) is the nvcc under CUDA_HOME, not the runtime torch loads:
torch ships its own (`CUDA used to build PyTorch`). A toolkit newer than the driver's CUDA, on collect_env's line that
calls it the runtime, looks wrong and is not (not an issue), where torch's runtime is one the driver covers and the
toolkit's major is one the driver runs by minor-version compatibility. check_env names it as what it is (`NVCC: Cuda
compilation tools`): there nothing looks wrong, and the verdict is ok (corpus 484 and 516, blind).

Real pastes from three threads (corpus 413 and 415; vllm-project/vllm#17078 below); the counter-examples are
modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks

# https://github.com/vllm-project/vllm/issues/17078 (issue body's collect_env, the lines up to the driver):
# torch 2.5.1+cu124 on driver 550.90.07 (CUDA 12.4), system toolkit 12.6.85, four H100.
VLLM_17078 = """Collecting environment information...
PyTorch version: 2.5.1+cu124
Is debug build: False
CUDA used to build PyTorch: 12.4
ROCM used to build PyTorch: N/A

OS: CentOS Stream 9 (x86_64)
GCC version: (GCC) 11.5.0 20240719 (Red Hat 11.5.0-5)
Clang version: Could not collect
CMake version: Could not collect
Libc version: glibc-2.34

Python version: 3.12.9 | packaged by Anaconda, Inc. | (main, Feb  6 2025, 18:56:27) [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-6.4.3-0_fbk14_hardened_2601_gcd42476b84e9-x86_64-with-glibc2.34
Is CUDA available: True
CUDA runtime version: 12.6.85
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:
GPU 0: NVIDIA H100
GPU 1: NVIDIA H100
GPU 2: NVIDIA H100
GPU 3: NVIDIA H100

Nvidia driver version: 550.90.07
"""


def _compat(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    return r.status, r.message


def _pasted(tmp_path: Path, text: str) -> tuple[str, str]:
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    return r.status, r.message


def test_toolkit_12_4_on_driver_535_under_torch_cu121_is_not_an_issue() -> None:
    status, message = _compat("413")  # vllm-project/vllm#4969: eight A100, driver 535.161.08 (CUDA 12.2)
    assert status == "not-an-issue"
    assert "toolkit 12.4.99" in message and "12.2" in message and "own CUDA 12.1" in message


def test_toolkit_12_5_on_driver_535_under_torch_cu121_is_not_an_issue() -> None:
    status, message = _compat("415")  # vllm-project/vllm#5790: four RTX 3090, driver 535.183.01
    assert status == "not-an-issue" and "toolkit 12.5.40" in message


def test_toolkit_12_6_on_driver_550_under_torch_cu124_is_not_an_issue(tmp_path: Path) -> None:
    status, message = _pasted(tmp_path, VLLM_17078)  # torch's CUDA equals the driver's; the toolkit is newer
    assert status == "not-an-issue" and "toolkit 12.6.85" in message and "own CUDA 12.4" in message


def test_modelled_a_toolkit_the_driver_covers_stays_ok(tmp_path: Path) -> None:
    # Modelled: 17078's report with a 12.4 toolkit: nothing is newer than the driver's CUDA, the plain ok.
    text = VLLM_17078.replace("CUDA runtime version: 12.6.85", "CUDA runtime version: 12.4.131")
    status, message = _pasted(tmp_path, text)
    assert status == "ok" and "toolkit" not in message


def test_modelled_a_toolkit_of_a_major_the_driver_cannot_run_is_not_excused(tmp_path: Path) -> None:
    # Modelled: 413 with a CUDA 13 toolkit on the R535 driver: below 13's 580 floor, so the rule stays out.
    text = body("413").replace("CUDA runtime version: 12.4.99", "CUDA runtime version: 13.0.48")
    assert text != body("413")
    status, message = _pasted(tmp_path, text)
    assert status == "ok" and "toolkit" not in message


def test_check_envs_nvcc_line_above_the_driver_is_ok() -> None:
    for prefix in ("484", "516"):
        result = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
        assert result.status == "ok" and "nvcc" in result.message, prefix


def test_modelled_collect_envs_runtime_line_stays_the_trap(tmp_path: Path) -> None:
    # Modelled: 516's check_env with its NVCC line written as collect_env's 'CUDA runtime version'.
    text = body("516").replace("NVCC: Cuda compilation tools, release 12.5, V12.5.82", "CUDA runtime version: 12.5.82")
    assert "CUDA runtime version: 12.5.82" in text
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "not-an-issue"
