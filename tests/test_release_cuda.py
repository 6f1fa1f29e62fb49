"""DRV-CUDA-COMPAT from the CUDA major an engine's release is built with (facts/python_env.RELEASE_CUDA_MAJOR).

TensorRT-LLM 0.9 to 1.1 load a CUDA 12.x runtime: a driver at or above CUDA 12's floor runs it, a driver below does
not, and a release outside the table's rows says nothing. An engine shown only by its container or the user's words is
an engine shown: a driver of the newest CUDA major runs whichever runtime it ships. Real pastes are corpus captures;
the counter-examples are modelled where marked.
"""

from __future__ import annotations

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.python_env import STATED_VERSION, release_cuda_major


@pytest.mark.parametrize(("version", "major"), [("0.11.0", 12), ("0.13.0.dev2024081300", 12), ("1.0.0rc4", 12),
                                                ("1.1.0rc1", 12), ("0.8.0", None), ("1.2.0", None)])
def test_tensorrt_llm_releases_name_their_cuda_major(version: str, major: int | None) -> None:
    assert release_cuda_major("tensorrt-llm", version) == major


@pytest.mark.parametrize(("prefix", "said"), [
    ("975", "tensorrt-llm 0.16.0 (CUDA 12.x)"),  # `pip list`'s `tensorrt-llm 0.16.0` beside driver 550.135
    ("983", "tensorrt-llm 0.11.0 (CUDA 12.x)"),  # a list's `- TensorRT-LLM: v0.11.0` beside `- Driver: 550.90.07`
])
def test_a_tensorrt_llm_release_above_the_cuda_12_floor_is_ok(prefix: str, said: str) -> None:
    result = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and said in result.message


def test_a_tensorrt_llm_release_below_the_cuda_12_floor_is_an_issue(tmp_path) -> None:
    # Modelled: corpus 983's list on a CUDA 11.7 driver.
    text = "- Driver: 515.65.01\n- TensorRT-LLM: v0.11.0\n"
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "issue" and "525.60.13" in result.message


def test_a_release_the_table_does_not_hold_stays_unknown(tmp_path) -> None:
    # Modelled: a TensorRT-LLM release after the table's last row.
    text = "- Driver: 550.90.07\n- TensorRT-LLM: v1.2.0\n"
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "unknown"


def test_an_engine_container_on_a_driver_of_the_newest_cuda_major_is_ok() -> None:
    # Corpus 986: the TensorRT-LLM release container (a PowerShell docker run) on Windows driver 580.97.
    assert capture_checks("986", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"


def test_no_engine_shown_stays_unknown() -> None:
    # Corpus 953: `nvidia-smi --version` alone on driver 595.71.05: the paste shows no program using CUDA.
    assert capture_checks("953", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "unknown"


# https://github.com/NVIDIA/TensorRT-LLM/issues/2667 (issue body by Justin-12138, corpus 975): its driver line and the
# line TensorRT-LLM prints when imported, without the `pip list` rows.
TRTLLM_2667 = """Driver Version: 550.135        CUDA Version: 12.4

But there is no output except the:
[TensorRT-LLM] TensorRT-LLM version: 0.16.0
"""


def test_the_version_tensorrt_llm_prints_when_imported_names_its_cuda_major(tmp_path) -> None:
    result = paste_checks(tmp_path, TRTLLM_2667, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and "tensorrt-llm 0.16.0 (CUDA 12.x)" in result.message


def test_a_development_build_is_read_by_its_release() -> None:
    # A NIM log's import line (a development build): 0.10.1.dev2024053000 is of the 0.10 release.
    m = STATED_VERSION.match("[TensorRT-LLM] TensorRT-LLM version: 0.10.1.dev2024053000")
    assert m is not None and release_cuda_major("tensorrt-llm", m.group("version")) == 12
