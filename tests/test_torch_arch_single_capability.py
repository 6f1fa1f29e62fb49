"""RT-TORCH-ARCH on GPU names the table lacks or reads as ambiguous, settled by gputable.SINGLE_CAPABILITY: Hopper
is compute 9.0 (the H20 and H800 have no table row), Volta's V100 words are 7.0 (a vGPU guest's `GRID V100D-32C`
names its board), and a `Quadro RTX 6000` is Turing (7.5), not the RTX 6000 Ada the vendor-less words suggest.

Real pastes are verbatim excerpts (the public thread beside each) or corpus captures; counter-examples are
modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.gputable import architecture_of

_HEAD = """PyTorch version: 2.5.1+cu124
Is debug build: False
CUDA used to build PyTorch: 12.4
ROCM used to build PyTorch: N/A

OS: {os}
GCC version: {gcc}
Clang version: Could not collect
CMake version: {cmake}
Libc version: {libc}

Python version: {python}
Python platform: {platform}
Is CUDA available: True
CUDA runtime version: {runtime}
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:{gpus}
Nvidia driver version: {driver}
cuDNN version: Could not collect
"""

# https://github.com/vllm-project/vllm/issues/11763 (the issue body's collect_env, to the cuDNN line)
H20_11763 = _HEAD.format(
    os="Alibaba Group Enterprise Linux Server 7.2 (Paladin) (x86_64)",
    gcc="(GCC) 10.2.1 20200825 (Alibaba 10.2.1-3 2.17)", cmake="version 3.26.4", libc="glibc-2.32",
    python="3.10.13 (main, Sep 11 2023, 13:44:35) [GCC 11.2.0] (64-bit runtime)",
    platform="Linux-5.10.134-16.3.al8.x86_64-x86_64-with-glibc2.32", runtime="12.4.131",
    gpus=" \nGPU 0: NVIDIA H20\nGPU 1: NVIDIA H20\nGPU 2: NVIDIA H20\nGPU 3: NVIDIA H20\n", driver="535.183.06")

# https://github.com/vllm-project/vllm/issues/12245 (the issue body's collect_env, to the cuDNN line)
H20_12245 = _HEAD.format(
    os="Debian GNU/Linux 11 (bullseye) (x86_64)", gcc="(Debian 10.2.1-6) 10.2.1 20210110",
    cmake="Could not collect", libc="glibc-2.31",
    python="3.10.16 (main, Jan  5 2025, 05:32:43) [Clang 19.1.6 ] (64-bit runtime)",
    platform="Linux-5.10.135.bsk.6-amd64-x86_64-with-glibc2.31", runtime="Could not collect",
    gpus="\nGPU 0: NVIDIA H20\nGPU 1: NVIDIA H20\n", driver="535.161.08")


@pytest.mark.parametrize("text", [H20_11763, H20_12245], ids=["vllm-11763", "vllm-12245"])
def test_h20_under_a_cu124_wheel_is_ok(tmp_path: Path, text: str) -> None:
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "NVIDIA H20 (compute 9.0)" in result.message


def test_corpus_348_eight_h20_are_hopper() -> None:
    # Corpus 348 (vllm-project/vllm#13778): eight H20 under torch 2.5.1+cu124.
    result = capture_checks("348", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "NVIDIA H20 (compute 9.0)" in result.message


def test_modelled_h20_under_a_cu117_wheel_is_an_issue(tmp_path: Path) -> None:
    # Modelled: the same H20 host under torch 1.13.1+cu117, whose list stops at sm_86: Hopper has no kernels there.
    text = H20_11763.replace("2.5.1+cu124", "1.13.1+cu117").replace("CUDA used to build PyTorch: 12.4",
                                                                   "CUDA used to build PyTorch: 11.7")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "issue" and "NVIDIA H20 (compute 9.0)" in result.message


def test_corpus_339_vgpu_profile_names_a_v100() -> None:
    # Corpus 339 (InternLM/lmdeploy#2414): `GPU 0: GRID V100D-32C` under torch 2.3.1+cu121 (sm_70 in its list).
    result = capture_checks("339", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "GRID V100D-32C (compute 7.0)" in result.message


@pytest.mark.parametrize(("name", "architecture"), [
    ("GRID V100D-32C", "Volta"),  # corpus 339, InternLM/lmdeploy#2414
    ("GRID V100DX-32C", "Volta"),  # a V100S board's vGPU profile (nvidia-smi's name in a public setup note)
    ("GRID V100D-8C", "Volta"),  # CUDA.jl's versioninfo() on a vGPU guest (a public HPC guide)
    ("GRID V100-8C", "Volta"),  # mdevctl types on a V100 host (a public vGPU guide)
    ("NVIDIA H20", "Hopper"), ("NVIDIA H20-3e", "Hopper"),  # corpus 392: the 141 GB H20 variant
    ("Quadro RTX 6000", "Turing"), ("Quadro RTX 8000", "Turing"),
    ("RTX 6000", "Ada Lovelace"),  # typed without the vendor word: the table's ambiguous default stays
    ("NVIDIA RTX 6000 Ada Generation", "Ada Lovelace"),
    ("GRID A100D-20C", "Ampere"),  # corpus 246: the profile names its board (gputable.board_words), an A100
])
def test_architecture_of_vgpu_hopper_and_quadro_names(name: str, architecture: str) -> None:
    assert architecture_of(name) == architecture


@pytest.mark.parametrize("prefix", [
    # pytorch/pytorch#68917: three Quadro RTX 6000, a bare 1.10.0 built with CUDA 11.3: the project's own build, whose
    # list holds 7.5 (h72b: checks/rt.official_build)
    "340",
])
def test_quadro_rtx_6000_is_settled_as_turing(prefix: str) -> None:
    result = capture_checks(prefix, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "Quadro RTX 6000 (compute 7.5)" in result.message
    assert result.actual["gpus"] == {"Quadro RTX 6000": "7.5"}


def test_modelled_quadro_rtx_6000_under_a_cu128_2_7_wheel_is_ok(tmp_path: Path) -> None:
    # Modelled: vllm#12245's host with its H20s replaced by Quadro RTX 6000 under 2.7.0+cu128 (sm_75 in its list).
    text = H20_12245.replace("NVIDIA H20", "Quadro RTX 6000").replace("2.5.1+cu124", "2.7.0+cu128").replace(
        "CUDA used to build PyTorch: 12.4", "CUDA used to build PyTorch: 12.8")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok" and "Quadro RTX 6000 (compute 7.5)" in result.message
