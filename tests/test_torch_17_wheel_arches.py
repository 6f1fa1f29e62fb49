"""RT-TORCH-ARCH: torch 1.7 wheels' arch lists (checks/rt.py WHEEL_ARCHES, pytorch/builder manywheel/build.sh).

The `10.*` case of the builder's script was 3.7;5.0;6.0;7.0;7.5 from commit 51249bc7 (2020-07-30) to d68291fd
(2021-02-04), for both 1.7 releases; the `11.0` case added 8.0. The 1.8 and 1.9 lists of cu101/cu102 are not read.
Real pastes are verbatim (the public thread beside each) or corpus captures; counter-examples are modelled where
marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.rt import wheel_arch_list

# https://github.com/pytorch/pytorch/issues/46973 (the issue body's collect_env on Colab, up to the driver line)
COLAB_T4_170 = """Collecting environment information...
PyTorch version: 1.7.0+cu101
Is debug build: True
CUDA used to build PyTorch: 10.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 18.04.5 LTS (x86_64)
GCC version: (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0
Clang version: 6.0.0-1ubuntu2 (tags/RELEASE_600/final)
CMake version: version 3.12.0

Python version: 3.6 (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 10.1.243
GPU models and configuration: GPU 0: Tesla T4
Nvidia driver version: 418.67
"""


@pytest.mark.parametrize(("version", "archs"), [
    ("1.7.1+cu101", ("sm_37", "sm_50", "sm_60", "sm_70", "sm_75")),
    ("1.7.0+cu102", ("sm_37", "sm_50", "sm_60", "sm_70", "sm_75")),
    ("1.7.1+cu110", ("sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80")),
    ("1.10.2+cu102", ("sm_37", "sm_50", "sm_60", "sm_70")),  # the later step of the same CUDA
])
def test_torch_17_wheels_have_the_builders_lists(version: str, archs: tuple[str, ...]) -> None:
    assert wheel_arch_list(version) == archs


@pytest.mark.parametrize("version", ["1.6.0+cu101", "1.8.0+cu101", "1.8.1+cu102", "1.9.0+cu102"])
def test_releases_whose_builds_are_not_read_stay_unknown(version: str) -> None:
    # Modelled: 1.6 built cu101 without 7.5 and main dropped 7.5 again in February 2021, so 1.6, 1.8 and 1.9 differ.
    assert wheel_arch_list(version) is None


def test_corpus_590_v100_on_171_cu101_is_ok() -> None:
    # Corpus 590 (a Kubeflow V100 node's collect_env): compute 7.0 is in the cu101 list.
    result = capture_checks("590", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert "compute 7.0" in result.message


def test_colab_t4_on_170_cu101_is_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, COLAB_T4_170, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert "Tesla T4 (compute 7.5)" in result.message


def test_ampere_on_171_cu101_is_an_issue(tmp_path: Path) -> None:
    # Modelled after https://github.com/MRzzm/DINet/issues/100 (torch==1.7.1+cu101 on an RTX 3090 fails): sm_86 is
    # another major than sm_75, and the 1.7 wheels carry no PTX.
    text = COLAB_T4_170.replace("1.7.0+cu101", "1.7.1+cu101").replace("Tesla T4", "NVIDIA GeForce RTX 3090")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "issue", result.message
    assert "RTX 3090 (compute 8.6)" in result.message


def test_a_bare_171_is_the_projects_build_of_its_cuda(tmp_path: Path) -> None:
    # Modelled after https://github.com/pytorch/pytorch/issues/58794 (`PyTorch version: 1.7.1` from conda): a release
    # without `+cuNNN` beside its CUDA is PyPI's or the pytorch channel's build, read for what the wheel's list holds
    # (h72b: checks/rt.official_build); a git build's `1.7.0a0+git…` names none.
    text = COLAB_T4_170.replace("1.7.0+cu101", "1.7.1")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "as the 1.7.1+cu101 wheel" in result.message, result.message
    text = COLAB_T4_170.replace("1.7.0+cu101", "1.7.0a0+git57bffc3")
    assert paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "unknown"
