"""RT-TORCH-ARCH: torch 1.10/1.11 wheels' arch lists (checks/rt.py WHEEL_ARCHES, from pytorch/builder's
release/1.10 and release/1.11 branches) and models the GPU table lacks, named into an architecture of one compute
capability (gputable.SINGLE_CAPABILITY: Turing 7.5, Ada Lovelace 8.9).

An official wheel's version (`1.10.0+cu113`) names its build; a bare `1.10.0` (a conda or source build) does not,
so its arch list stays unknown. Real pastes are verbatim (the public thread beside each) or corpus captures;
counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.rt import wheel_arch_list

# https://github.com/pytorch/pytorch/issues/124007 (the issue body's collect_env, up to the driver line)
TITAN_RTX_110 = """Collecting environment information...
PyTorch version: 1.10.0+cu113
Is debug build: False
CUDA used to build PyTorch: 11.3
ROCM used to build PyTorch: N/A

OS: Ubuntu 18.04.5 LTS (x86_64)
GCC version: (Ubuntu 8.4.0-1ubuntu1~18.04) 8.4.0
Clang version: Could not collect
CMake version: version 3.13.0
Libc version: glibc-2.27

Python version: 3.8.17 (default, Jul  5 2023, 21:04:15)  [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-5.4.0-66-generic-x86_64-with-glibc2.17
Is CUDA available: True
CUDA runtime version: 11.3.58
CUDA_MODULE_LOADING set to:<SP>
GPU models and configuration:<SP>
GPU 0: NVIDIA TITAN RTX
GPU 1: NVIDIA TITAN RTX
GPU 2: NVIDIA TITAN RTX
GPU 3: NVIDIA TITAN RTX
GPU 4: NVIDIA TITAN RTX
GPU 5: NVIDIA TITAN RTX
GPU 6: NVIDIA TITAN RTX
GPU 7: NVIDIA TITAN RTX

Nvidia driver version: 535.54.03
""".replace("<SP>", " ")  # two lines end in a space, as pasted


@pytest.mark.parametrize(("version", "has"), [
    ("1.10.0+cu113", "sm_75"), ("1.11.0+cu113", "sm_86"), ("1.10.1+cu111", "sm_80"), ("1.10.2+cu102", "sm_70"),
])
def test_torch_110_and_111_wheels_have_their_builders_lists(version: str, has: str) -> None:
    archs = wheel_arch_list(version)
    assert archs is not None and has in archs


def test_cu102_wheels_stop_at_volta() -> None:
    # release/1.10 manywheel/build.sh: the `10.*` case adds nothing to 3.7;5.0;6.0;7.0.
    assert wheel_arch_list("1.10.2+cu102") == ("sm_37", "sm_50", "sm_60", "sm_70")


def test_releases_before_the_sourced_branches_stay_unknown() -> None:
    # Modelled: torch 1.9's builder branch is not read, so its lists are not claimed.
    assert wheel_arch_list("1.9.0+cu111") is None


def test_a_110_wheel_on_turing_is_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, TITAN_RTX_110, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert "TITAN RTX (compute 7.5)" in result.message


@pytest.mark.parametrize(("prefix", "gpu"), [
    ("86", "RTX 4070 Laptop GPU (compute 8.9)"),  # vLLM collect_env on WSL2, torch 2.4.0+cu121
    ("160", "RTX 4060 Laptop GPU (compute 8.9)"),  # lmdeploy check_env on Windows, torch 2.6.0+cu126
])
def test_ada_models_the_table_lacks_have_compute_89(prefix: str, gpu: str) -> None:
    result = capture_checks(prefix, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert gpu in result.message


def test_a_bare_version_is_the_projects_build_of_its_cuda(tmp_path: Path) -> None:
    # Corpus 340 (pytorch/pytorch#68917): `PyTorch version: 1.10.0` built for CUDA 11.3, PyPI's or the pytorch
    # channel's conda build, with the cu113 wheel's list (h72b: checks/rt.official_build).
    result = capture_checks("340", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "1.10.0+cu113" in result.message
    # Modelled: the same report from a git checkout's build (`1.10.0a0+git…`), whose list no version names.
    from corpus import corpus_path

    text = corpus_path("340").read_text().replace("PyTorch version: 1.10.0", "PyTorch version: 1.10.0a0+git36449ea")
    assert paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "unknown"


def test_an_architecture_of_several_capabilities_settles_only_its_major(tmp_path: Path) -> None:
    # Modelled: a Maxwell name the table lacks (Maxwell is 5.0 or 5.2, and its words name both): its minor stays open,
    # its major does not (gputable.SINGLE_MAJOR), and the cu113 wheel's sm_50 runs on either minor: ok, said as 5.x.
    # (An RTX A name is no longer one: every RTX A card is 8.6, gputable.capability_of.)
    text = TITAN_RTX_110.replace("NVIDIA TITAN RTX", "NVIDIA GeForce GTX 980")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "compute 5.x" in result.message
