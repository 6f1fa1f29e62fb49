"""RT-TORCH-ARCH on GPU names the table has no row for, settled by the capability their model words name
(gputable.capability_of, from NVIDIA's CUDA GPUs page https://developer.nvidia.com/cuda-gpus): GeForce RTX 30 and
RTX A cards are 8.6, GeForce RTX 50 and RTX PRO Blackwell cards 12.0, Pascal's GP100 parts 6.0 and its other parts
6.1. A name no words match stays unknown.

Real pastes are corpus captures (the public thread beside each) or verbatim excerpts of a public thread;
counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.gputable import UnknownGpuError, capability_of, lookup
from test_torch_cu129_cu130_arches import RTX5090_CU130

CHECK = "RT-TORCH-ARCH"

# https://github.com/vllm-project/vllm/issues/19906 (the issue body's collect_env, to the GPU lines): two RTX 5080
# under torch 2.7.0+cu128.
RTX5080_19906 = """Collecting environment information...
==============================
        System Info
==============================
OS                           : Ubuntu 22.04.5 LTS (x86_64)
GCC version                  : (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version                : Could not collect
CMake version                : Could not collect
Libc version                 : glibc-2.35

==============================
       PyTorch Info
==============================
PyTorch version              : 2.7.0+cu128
Is debug build               : False
CUDA used to build PyTorch   : 12.8
ROCM used to build PyTorch   : N/A

==============================
      Python Environment
==============================
Python version               : 3.12.11 (main, Jun 12 2025, 12:40:51) [Clang 20.1.4 ] (64-bit runtime)
Python platform              : Linux-5.15.0-141-generic-x86_64-with-glibc2.35

==============================
       CUDA / GPU Info
==============================
Is CUDA available            : True
CUDA runtime version         : 12.8.93
CUDA_MODULE_LOADING set to   : LAZY
GPU models and configuration :
GPU 0: NVIDIA GeForce RTX 5080
GPU 1: NVIDIA GeForce RTX 5080
"""


def test_corpus_488_rtx_3070_is_ampere_8_6() -> None:
    # Corpus 488 (vllm-project/vllm#10409): three RTX 3070 under torch 2.5.1+cu124, whose list carries sm_86.
    result = capture_checks("488", CHECK)[CHECK]
    assert result.status == "ok" and "NVIDIA GeForce RTX 3070 (compute 8.6)" in result.message


def test_rtx_5080_under_a_cu128_wheel_is_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, RTX5080_19906, CHECK)[CHECK]
    assert result.status == "ok" and "NVIDIA GeForce RTX 5080 (compute 12.0)" in result.message


def test_rtx_5060_ti_beside_a_5090_under_a_cu130_wheel_is_ok(tmp_path: Path) -> None:
    # vllm-project/vllm#30435: an RTX 5090 (a table row) and an RTX 5060 Ti (no row) under torch 2.9.0+cu130.
    result = paste_checks(tmp_path, RTX5090_CU130, CHECK)[CHECK]
    assert result.status == "ok" and "NVIDIA GeForce RTX 5060 Ti (compute 12.0)" in result.message


def test_modelled_rtx_5080_under_a_cu126_wheel_is_an_issue(tmp_path: Path) -> None:
    # Modelled on vllm#19906: the same cards under 2.7.0+cu126, whose list stops at sm_90 (as vllm#19605's warning
    # says of an RTX 5070 Ti: "sm_120 is not compatible with the current PyTorch installation").
    text = RTX5080_19906.replace("2.7.0+cu128", "2.7.0+cu126").replace(
        "CUDA used to build PyTorch   : 12.8", "CUDA used to build PyTorch   : 12.6")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "issue" and "NVIDIA GeForce RTX 5080 (compute 12.0)" in result.message


def test_modelled_a_name_no_words_match_stays_unknown(tmp_path: Path) -> None:
    # Modelled on corpus 488: its RTX 3070s renamed to a board name that names no product line.
    text = body("488").replace("NVIDIA GeForce RTX 3070", "NVIDIA Graphics Device")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "unknown" and "compute capability of NVIDIA Graphics Device" in result.message


@pytest.mark.parametrize(("name", "capability"), [
    ("NVIDIA GeForce RTX 3070", "8.6"), ("NVIDIA GeForce RTX 3050 Laptop GPU", "8.6"), ("NVIDIA RTX A4000", "8.6"),
    ("NVIDIA GeForce RTX 5080", "12.0"), ("NVIDIA GeForce RTX 5070 Ti", "12.0"),
    ("NVIDIA RTX PRO 4000 Blackwell", "12.0"),
    ("NVIDIA GeForce RTX 2080 Ti", "7.5"), ("NVIDIA GeForce RTX 4060", "8.9"),  # one capability per architecture
    ("Tesla P100-PCIE-16GB", "6.0"), ("Quadro GP100", "6.0"),  # Pascal's GP100 parts
    ("NVIDIA GeForce GTX 1070", "6.1"), ("Tesla P4", "6.1"), ("NVIDIA TITAN Xp", "6.1"),
    ("NVIDIA GeForce GTX 980", ""), ("Tesla K80", ""),  # Maxwell and Kepler mix capabilities
    ("NVIDIA A30", ""), ("NVIDIA B300", ""),  # Ampere or Blackwell outside the words
    ("NVIDIA GB10", "12.1"),  # the DGX Spark's integrated GPU: its own word row (h86a)
    ("NVIDIA Graphics Device", ""),
])
def test_capability_of(name: str, capability: str) -> None:
    assert capability_of(name) == capability


def test_the_rule_reaches_names_the_table_lacks() -> None:
    # The words settle names without a row; a name with a row keeps the row's capability (checks/rt.py).
    for name in ("NVIDIA GeForce RTX 3070", "NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5060 Ti"):
        with pytest.raises(UnknownGpuError):
            lookup(name)


def test_an_integrated_gpu_names_no_board_row() -> None:
    # Corpus 1912 (sgl-project/sglang#13198): `NVIDIA GB10` split as a size (`gb 10`) read as the A10 row.
    for name in ("NVIDIA GB10", "GB10"):
        with pytest.raises(UnknownGpuError):
            lookup(name)
    assert lookup("NVIDIA A10").spec.name == "A10"
