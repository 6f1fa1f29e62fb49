"""DRV-CUDA-COMPAT from the system toolkit alone needs no GPU row (checks/drv.py cuda_compat, _toolkit_only).

The one driver against the one toolkit (`nvcc -V`, which builds what the user runs: gpu_burn's PTX) is judged over the
GPUs a table lists, and without a list where a paste shows the nvidia-smi header line alone (`nvidia-smi | grep
"Driver Version"`): a listing of none counts nothing (checks/drv.py gpu_total). Real pastes are corpus
captures or verbatim excerpts (the source beside each); the counter-example is modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.checks.drv import gpu_total

# https://github.com/chelsea0x3b/dfdx/pull/619 (description by quietlychris, 2023-03-25): `nvcc --version`'s last two
# lines and the nvidia-smi header line, without the table's borders.
DFDX_619 = """Cuda compilation tools, release 11.5, V11.5.119
Build cuda_11.5.r11.5/compiler.30672275_0

NVIDIA-SMI 525.89.02    Driver Version: 525.89.02    CUDA Version: 12.0
"""


@pytest.mark.parametrize(("prefix", "toolkit"), [
    ("818", "12.6"),  # gpu-burn#127: 8 A100-SXM4, `nvidia-smi | grep "Driver Version"` and `nvcc -V`
    ("170", "12.4"),  # a WSL2 RTX 3090 hardware list: its driver line and nvcc
])
def test_corpus_toolkit_under_a_header_alone_is_ok(prefix: str, toolkit: str) -> None:
    result = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and f"system toolkit {toolkit}" in result.message
    assert result.coverage is None


def test_a_header_line_and_nvcc_of_a_pr_is_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, DFDX_619, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and "11.5" in result.message and result.coverage is None


def test_a_header_line_alone_counts_no_gpu() -> None:
    # gpu-burn#127's header line: the nvidia fact holds the driver and no GPU row, so the host's count is not known.
    nvidia = fact(pasted("| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |\n"),
                  "nvidia")
    assert not nvidia.gpus and gpu_total(nvidia) is None


def test_a_table_listing_the_gpu_keeps_its_coverage() -> None:
    # Corpus 410 (a GTX 1650 table and nvcc 12.0): the ok covers the one GPU the table lists.
    result = capture_checks("410", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and result.coverage is not None and result.coverage.count == 1


def test_a_toolkit_of_a_newer_major_is_still_an_issue(tmp_path: Path) -> None:
    # Modelled: dfdx#619's paste with a CUDA 13.0 nvcc on the 525 driver (CUDA 12.0): what it builds does not run.
    text = DFDX_619.replace("release 11.5, V11.5.119", "release 13.0, V13.0.48").replace("11.5.r11.5", "13.0.r13.0")
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "issue"
