"""RT-TORCH-ARCH: the cu128 wheels' shared arch list from torch 2.7 on, and nightlies (checks/rt.py WHEEL_ARCHES,
WHEEL_ARCHES_VARY, wheel_arch_list).

cu128 wheels of 2.7 to 2.11 all carry sm_75 to sm_120; sm_70 is in 2.8 to 2.10 only, so a Volta GPU under a cu128
wheel is left unknown, never an issue. A nightly (`2.8.0.dev20250327+cu126`) is built by the release script after
the previous release's branch cut: it gets the list only where that release is already in the table.
Real pastes are corpus captures (their threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.rt import wheel_arch_list


@pytest.mark.parametrize(("prefix", "gpu"), [
    ("367", "NVIDIA B200 (compute 10.0)"),  # sgl-project/sglang check_env, torch 2.9.1+cu128
    ("32", "Blackwell Workstation Edition (compute 12.0)"),  # vLLM collect_env, torch 2.7.0+cu128
    ("307", "A100-SXM4-80GB (compute 8.0)"),  # vLLM collect_env, torch 2.8.0+cu128
    ("378", "NVIDIA H100 (compute 9.0)"),  # collect_env, nightly torch 2.8.0.dev20250327+cu126
])
def test_cu128_from_27_and_nightlies_name_their_list(prefix: str, gpu: str) -> None:
    result = capture_checks(prefix, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert gpu in result.message


def test_nightly_at_a_change_of_list_stays_unknown() -> None:
    # Modelled: a 2.7 nightly with cu128 is built before 2.7, the first release the cu128 list is known for.
    assert wheel_arch_list("2.7.0.dev20250110+cu128") is None
    assert wheel_arch_list("2.6.0.dev20241112+cu126") is None
    assert wheel_arch_list("2.8.0.dev20250327+cu126") == wheel_arch_list("2.6.0+cu126")


# Modelled: a V100 host's collect_env under torch 2.8.0+cu128 (which has sm_70; 2.7 and 2.11 do not).
V100_CU128 = """PyTorch version: 2.8.0+cu128
Is debug build: False
CUDA used to build PyTorch: 12.8
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
Python platform: Linux-5.15.0-105-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.8.93
GPU models and configuration:
GPU 0: Tesla V100S-PCIE-32GB
GPU 1: Tesla V100S-PCIE-32GB

Nvidia driver version: 570.124.06
"""


def test_volta_under_cu128_is_no_sure_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, V100_CU128, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "unknown", result.message
    assert "sm_70" in result.message
