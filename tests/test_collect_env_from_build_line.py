"""A collect_env whose head is lost starts at its `CUDA used to build PyTorch:` line (importers/collect_env.py
`_START`), and torch's CUDA it names stands without torch's version (facts/python_env.py
`python_env_from_collect_env`), so DRV-CUDA-COMPAT judges the driver against it.

Real pastes: corpus 549 (vllm-project/vllm#8847: vLLM's `Failed to import from vllm._C` and `Failed to read commit
hash` warnings where the `PyTorch version` line was); vllm-project/vllm#10303 (the same `vllm._C` warning above a
whole report, eight RTX 3090s on driver 535.183.01, torch 2.4.0+cu121), read whole and, modelled, from its build
line on (a copy cut above it).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

COMPAT = "DRV-CUDA-COMPAT"
ISSUE_10303 = """WARNING 11-14 02:19:07 _custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError("No module named 'vllm._C'")
Collecting environment information...
PyTorch version: 2.4.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.3 LTS (x86_64)
GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04) 9.4.0
Clang version: Could not collect
CMake version: Could not collect
Libc version: glibc-2.31

Python version: 3.10.15 (main, Oct  3 2024, 07:27:34) [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-5.11.0-40-generic-x86_64-with-glibc2.31
Is CUDA available: True
CUDA runtime version: 12.6.77
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:
GPU 0: NVIDIA GeForce RTX 3090
GPU 1: NVIDIA GeForce RTX 3090

Nvidia driver version: 535.183.01
cuDNN version: Could not collect
"""


def test_549_the_report_after_vllm_warnings_is_read() -> None:
    result = capture_checks("549", COMPAT, "RT-TORCH-ARCH")
    assert result[COMPAT].status == "ok" and "12.1" in result[COMPAT].message and "535.183.01" in result[COMPAT].message
    # torch's version is not in the report: the arch list stays unnamed.
    assert result["RT-TORCH-ARCH"].status == "unknown" and "version is not in the pasted report" in result[
        "RT-TORCH-ARCH"].message


def test_10303_whole_and_cut_above_its_build_line(tmp_path: Path) -> None:
    whole = paste_checks(tmp_path, ISSUE_10303, COMPAT)[COMPAT]
    assert whole.status == "not-an-issue" and "12.6.77" in whole.message
    cut = ISSUE_10303[ISSUE_10303.index("CUDA used to build PyTorch"):]
    assert paste_checks(tmp_path, cut, COMPAT)[COMPAT].status == "not-an-issue"


def test_a_build_line_above_an_old_driver_is_an_issue(tmp_path: Path) -> None:
    # Modelled counter-example: the cut report under an R470 driver (CUDA 11.4): CUDA 12.1 needs 525.60.13.
    cut = ISSUE_10303[ISSUE_10303.index("CUDA used to build PyTorch"):].replace("535.183.01", "470.57.02")
    assert paste_checks(tmp_path, cut, COMPAT)[COMPAT].status == "issue"


def test_a_build_line_of_no_cuda_names_no_runtime(tmp_path: Path) -> None:
    # Modelled counter-example: a CPU build (`CUDA used to build PyTorch: None`) gives torch no CUDA to compare.
    cut = ISSUE_10303[ISSUE_10303.index("CUDA used to build PyTorch"):].replace(
        "CUDA used to build PyTorch: 12.1", "CUDA used to build PyTorch: None")
    assert paste_checks(tmp_path, cut, COMPAT)[COMPAT].status != "ok"
