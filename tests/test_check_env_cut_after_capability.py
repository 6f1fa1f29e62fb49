"""Issue 28 (recognition): SGLang check_env cut after its `GPU 0,1 Compute Capability: 8.0` line.

Such an excerpt has none of the report's later lines (`CUDA Driver Version`, `PyTorch`, `sglang:`), but the
`Compute Capability` line is check_env's alone (mmengine's collect_env prints the GPU line without it). It is
read as check_env, and what it does not show (torch, flashinfer) stays unknown.

Each excerpt is the first lines of a real report, cut where the paste of corpus 461 is cut; the URL is beside it.
The counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.importers.recognition import recognise

# https://github.com/sgl-project/sglang/pull/965 (zhyncs, 2024-08-07): 8x A100-SXM4-80GB.
CHECK_ENV_965 = """root@hostname:/sglang# python3 -m sglang.check_env

Python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA A100-SXM4-80GB
GPU 0,1,2,3,4,5,6,7 Compute Capability: 8.0
"""
# https://github.com/sgl-project/sglang/issues/2805 (Rssevenyu's comment, 2025-01-09): one A40, pydantic warning above.
CHECK_ENV_2805 = """/root/anaconda3/lib/python3.11/site-packages/pydantic/_internal/_config.py:345: UserWarning: Valid config keys have changed in V2:
* 'fields' has been removed
  warnings.warn(message, UserWarning)
Python: 3.11.5 (main, Sep 11 2023, 13:54:46) [GCC 11.2.0]
CUDA available: True
GPU 0: NVIDIA A40
GPU 0 Compute Capability: 8.6
"""
# https://github.com/sgl-project/sglang/pull/11052 (Alexhaoge, 2025): 8x H20 in lmsysorg/sglang:v0.5.3.post1-cu129.
CHECK_ENV_11052 = """Python: 3.12.11 (main, Jun  4 2025, 08:56:18) [GCC 11.4.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA H20
GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0
"""


def _kinds(text: str) -> list[str]:
    return [k for k, _, _ in recognise(text).recognised]


def test_corpus_461_is_read_and_what_is_cut_stays_unknown() -> None:
    results = capture_checks("461", "RT-FLASHINFER", "RT-TORCH-ARCH", "RT-VERSION-MATRIX")
    # flashinfer 0.2.3 is in the `pip show` above the report, not in it: its line is cut, not absent.
    assert {r.status for r in results.values()} == {"unknown"}


@pytest.mark.parametrize(("text", "gpus", "capability"), [
    (CHECK_ENV_965, 8, "8.0"), (CHECK_ENV_2805, 1, "8.6"), (CHECK_ENV_11052, 8, "9.0")])
def test_real_excerpts_are_read_as_check_env(text: str, gpus: int, capability: str) -> None:
    assert "collect_env" in _kinds(text)
    report = fact(pasted(text), "collect_env")
    assert report.tool == "sglang"
    assert len(report.gpu_models) == gpus
    assert set(report.capabilities.values()) == {capability}


def test_flashinfer_not_in_a_cut_report_is_unknown_not_absent(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, CHECK_ENV_965, "RT-FLASHINFER")["RT-FLASHINFER"]
    assert result.status == "unknown"


def test_modelled_gpu_lines_without_capability_are_not_read() -> None:
    # Modelled: the same lines with no `Compute Capability` line could be anyone's; they stay unread.
    text = "Python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]\nCUDA available: True\nGPU 0,1: NVIDIA A100-SXM4-80GB\n"
    assert "collect_env" not in _kinds(text)
