"""torch's collect_env pasted from below its head (issue 28, h125a).

A report whose `PyTorch version` and OS lines are above the paste's cut starts at one of torch's own later fields:
`GCC version: (GCC) ...` (corpus 2920), `Libc version: glibc-...`, `Python version: 3.x (...) (64-bit runtime)`,
`Python platform: Linux-...`, `Is CUDA available: True`. Read with the report's anchors below it (its GPU list, its
CUDA answer), it is the report; the same field in a user's list without them is not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.importers.recognition import recognise

_TAIL = """\
Python version: 3.10.16 (main, Dec 11 2024, 16:24:50) [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-5.15.0-119-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.1.105
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:
GPU 0: NVIDIA L40S
GPU 1: NVIDIA L40S

Nvidia driver version: 550.127.05
cuDNN version: Could not collect
HIP runtime version: N/A
"""


def test_report_cut_at_its_gcc_line() -> None:
    # Corpus 2920 (vllm-project/vllm#17462): the report from `GCC version:`, 2x L20, driver 535.161.08.
    r = capture_checks("2920", "DRV-CUDA-COMPAT", "MEM-MIG", "DRV-FABRIC-MANAGER")
    assert r["DRV-CUDA-COMPAT"].status == "ok" and "535.161.08" in r["DRV-CUDA-COMPAT"].message
    assert r["MEM-MIG"].status == "not-applicable" and r["DRV-FABRIC-MANAGER"].status == "not-applicable"


@pytest.mark.parametrize("head", ["GCC version: (GCC) 11.4.0\nClang version: Could not collect\n"
                                  "CMake version: version 3.22.1\nLibc version: glibc-2.35\n\n",
                                  "Libc version: glibc-2.35\n\n", "", "Is CUDA available: True\n"])
def test_modelled_other_cuts(tmp_path: Path, head: str) -> None:
    # Modelled: the same report cut at other lines of its head (the last: from its CUDA answer on).
    text = head + (_TAIL if not head.startswith("Is CUDA") else _TAIL.split("Is CUDA available: True\n", 1)[1])
    assert any(kind == "collect_env" for kind, *_ in recognise(text).recognised)
    r = paste_checks(tmp_path, text, "MEM-MIG", "DRV-CUDA-COMPAT")
    assert r["MEM-MIG"].status == "not-applicable" and r["DRV-CUDA-COMPAT"].status == "ok"


def test_modelled_a_users_list_with_a_python_line_is_no_report() -> None:
    # Modelled: a bug template's environment list; its `Python version: 3.10` has no bitness, no report anchor follows.
    text = "OS: Ubuntu 22.04\nPython version: 3.10.12\nGCC version: 11.4\nGPU: RTX 4090\n"
    assert not any(kind == "collect_env" for kind, *_ in recognise(text).recognised)
