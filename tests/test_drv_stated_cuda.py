"""DRV-CUDA-COMPAT from a hardware list's bare `CUDA Version: X.Y` line (facts/nvidia.py STATED_CUDA, checks/drv.py
_toolkit_only).

The line is nvidia-smi's figure copied, or the CUDA the user runs. Above the CUDA of the driver's branch it cannot be
this driver's own figure: it is the CUDA in use (or the forward-compatibility package's), and a CUDA of the same major
above the driver floor runs by minor-version compatibility (not an issue). At or below the branch's CUDA it says
nothing of the runtime. Real pastes: corpus captures 456 (TensorRT-LLM#1131) and 276 (text-generation-inference#2238),
and TensorRT-LLM#1563's header line below; the others are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks


def test_cuda_above_the_branch_runs_by_minor_version_compatibility() -> None:
    result = capture_checks("456", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "not-an-issue", result.message
    assert "CUDA 12.3" in result.message and "525.116.03" in result.message


def test_header_figure_copied_line_by_line_says_nothing_of_the_runtime() -> None:
    # 276 copies nvidia-smi's header onto three lines: CUDA 12.4 is driver 550's own figure.
    result = capture_checks("276", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "not in this source" in result.message


# https://github.com/NVIDIA/TensorRT-LLM/issues/1563 (the issue body's System Info): the header on one line.
P40_HEADER = """1,Hardware and CUDA info:
NVidia P40
NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0
"""


def test_header_line_is_not_a_stated_cuda(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, P40_HEADER, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "names CUDA" not in result.message


# Modelled: the 456 list with a CUDA 13.0 the R525 driver cannot run, unless it is the compat package's figure.
MAJOR_ABOVE = """GPU:2xRTX4090
driver:525.116.03
CUDA Version: 13.0
"""


def test_major_above_the_driver_is_left_unknown(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, MAJOR_ABOVE, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "forward-compatibility" in result.message


# Modelled: nvcc's release beside the bare line: the toolkit line is read, the bare one is not.
WITH_NVCC = """driver:525.116.03
CUDA Version: 12.3
Cuda compilation tools, release 12.0, V12.0.140
"""


def test_toolkit_line_wins_over_the_bare_line(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, WITH_NVCC, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "toolkit 12.0" in result.message
