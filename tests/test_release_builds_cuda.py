"""DRV-CUDA-COMPAT from a release whose builds ship more than one CUDA (facts/python_env.RELEASE_NEWEST_CUDA_MAJOR),
the user's CUDA as PyTorch's old issue template states it (facts/nvidia.STATED_CUDA), and a toolkit release before
CUDA 11 against the driver NVIDIA lists for it.

vLLM 0.2.2 to 0.11.0 publish wheels for CUDA 12.x (PyPI) and 11.8 (the GitHub release): a driver at CUDA 12's floor
(525.60.13) runs whichever one is installed, ok; below it the 11.8 build may still run, so nothing is concluded; a
release outside the rows says nothing. A list's bare `vLLM 0.2.7` line names the release (corpus 1664); a sentence that
names a release does not. Before CUDA 11 each toolkit release names its own driver (facts/nvidia.TOOLKIT_BUILD_DRIVER):
nvcc's `V8.0.61` needs 375.26 whatever its branch's CUDA. Real pastes are corpus captures 1664 (vllm-project/vllm#878),
1695 and 1648; the others are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.nvidia import STATED_CUDA
from stackaudit.facts.python_env import STATED_VERSION, release_newest_cuda_major


@pytest.mark.parametrize(("version", "major"), [("0.1.7", 11), ("0.2.1", 11), ("0.2.2", 12), ("0.2.7", 12),
                                                ("0.5.4", 12), ("0.6.3.post1", 12), ("0.11.0", 12),
                                                ("0.11.1", None), ("0.2", None)])
def test_vllm_releases_name_the_newest_cuda_major_of_their_builds(version: str, major: int | None) -> None:
    assert release_newest_cuda_major("vllm", version) == major


@pytest.mark.parametrize(("line", "version"), [("vLLM 0.2.7", "0.2.7"), ("- vLLM v0.5.4", "0.5.4"),
                                               ("sglang 0.4.9.post1", "0.4.9.post1"), ("vLLM 0.2", None),
                                               ("vLLM 0.2.7 crashes with TP 8", None)])
def test_a_bare_release_line_names_the_engine_release(line: str, version: str | None) -> None:
    m = STATED_VERSION.match(line)
    assert (m.group("version") if m else None) == version


def test_a_vllm_release_under_a_driver_of_its_newest_cuda_major_is_ok() -> None:
    # Corpus 1664 (vllm-project/vllm#878): `Driver Version: 535.129.03` and `vLLM 0.2.7` in the user's list.
    result = capture_checks("1664", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "vllm 0.2.7" in result.message and "535.129.03" in result.message


def test_below_the_newest_majors_floor_an_older_build_may_run(tmp_path: Path) -> None:
    # Modelled: corpus 1664's list on a CUDA 11.7 driver: vLLM 0.2.7's CUDA 11.8 wheel runs there by minor-version
    # compatibility, its PyPI CUDA 12.1 one does not; which is installed is not shown.
    text = body("1664").replace("535.129.03", "515.65.01").replace("CUDA Version: 12.2", "CUDA Version: 11.7")
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message


def test_a_vllm_release_outside_the_rows_says_nothing(tmp_path: Path) -> None:
    # Modelled: vLLM 0.13.0 has CUDA 13 builds, which driver 535 does not run.
    text = body("1664").replace("vLLM 0.2.7", "vLLM 0.13.0")
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message


@pytest.mark.parametrize(("line", "cuda"), [(" - CUDA/cuDNN version:9.0", "9.0"),
                                            ("- CUDA/cuDNN version: 10.1 / 7.6.5", "10.1"),
                                            ("- CUDA/cuDNN version: N/A", None)])
def test_pytorchs_template_line_states_the_cuda_in_use(line: str, cuda: str | None) -> None:
    m = STATED_CUDA.match(line)
    assert (m.group(1) if m else None) == cuda


def test_the_template_cuda_at_or_below_the_drivers_is_ok() -> None:
    # Corpus 1695: `- CUDA/cuDNN version:9.0` beside nvidia-smi's `Driver Version: 390.116` (CUDA 9.1).
    result = capture_checks("1695", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "CUDA 9.0" in result.message and "390.116" in result.message


def test_a_toolkit_update_before_cuda_11_needs_its_own_driver() -> None:
    # Corpus 1648: nvcc's `release 8.0, V8.0.61` (CUDA 8.0 GA2, driver 375.26 or newer) beside driver 367.124 (an
    # R367 driver of CUDA 8.0 GA1): the branch's CUDA is 8.0, yet the release needs a newer driver.
    result = capture_checks("1648", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "issue", result.message
    assert "375.26" in result.message and "367.124" in result.message


@pytest.mark.parametrize(("driver", "build", "status"), [("375.26", "8.0.61", "ok"), ("367.124", "8.0.44", "ok"),
                                                         ("418.30", "10.1.243", "issue"), ("418.56", "10.1.243", "ok"),
                                                         ("384.59", "9.0.176", "issue"), ("384.81", "9.0.176", "ok")])
def test_the_toolkit_release_is_set_against_its_listed_driver(tmp_path: Path, driver: str, build: str,
                                                              status: str) -> None:
    # Modelled: nvidia-smi's header and nvcc's fourth line, as corpus 1648 pastes them.
    major_minor = build.rsplit(".", 1)[0]
    cuda = major_minor
    text = (f"| NVIDIA-SMI {driver}    Driver Version: {driver}    CUDA Version: {cuda}     |\n"
            f"Cuda compilation tools, release {major_minor}, V{build}\n")
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == status, result.message


# https://github.com/vllm-project/vllm/issues/7077 (issue body by yanghengjian): `pip list`'s rows as the environment,
# no driver shown. The release is read; with no driver nothing is concluded.
VLLM_7077 = """### Your current environment

vllm                              0.5.3.post1
vllm-flash-attn                   2.5.9.post1
"""


def test_a_release_without_a_driver_stays_unknown(tmp_path: Path) -> None:
    assert STATED_VERSION.match("vllm                              0.5.3.post1") is not None
    result = paste_checks(tmp_path, VLLM_7077, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "driver version is not in this source" in result.message


# https://github.com/phvu/cuda-smi/issues/7 (issue body by neilpanchal): nvcc's release 9.1.85 on macOS; the driver
# (387.99) is only in the user's later words. The table needs a driver to set the release against.
CUDA_SMI_7 = """nvcc is installed:

```
♦ cuda-smi-1.0 / ➞  nvcc --version
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2017 NVIDIA Corporation
Built on Fri_Nov__3_21:08:57_CDT_2017
Cuda compilation tools, release 9.1, V9.1.85
```
"""


def test_a_toolkit_release_without_a_driver_stays_unknown(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, CUDA_SMI_7, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status in ("unknown", "not-applicable"), result.message


def test_a_lists_driver_package_word_and_old_cuda_line_are_read() -> None:
    # Corpus 1700: the user's list `- cuda 9.0` over `- nvidia-driver 396.51` (a CUDA 9.2 driver): both are read, as the
    # needle filter now passes CUDA 7 to 9 lines, and the CUDA named is at or below the driver's.
    assert STATED_CUDA.match("- cuda 9.0") is not None
    result = capture_checks("1700", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "CUDA 9.0" in result.message and "396.51" in result.message
