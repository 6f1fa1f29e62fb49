"""A report's `PyTorch version: 2.4.0+cu121` names the build where its package list has `torch 2.4.0`
(facts/python_env.py `python_env_from_collect_env`).

PyPI accepts no local version label, so a PyPI wheel's metadata (what `pip list` and the report's `[pip3]`/`[conda]`
lines print) is `2.4.0`, while its `torch.__version__` (the report's version line) is `2.4.0+cu121`. The labelled
one names the official wheel and so its arch list (checks/rt.py WHEEL_ARCHES).

Real pastes: corpus 542 (vllm-project/vllm#8691: `PyTorch version: 2.4.0+cu121` over `[conda] torch 2.4.0 pypi_0`);
the version lines of vllm-project/vllm#10296 (`PyTorch version: 2.4.0+cu121`, H100s) and vllm-project/vllm#13497
(`PyTorch version: 2.5.1+cu121`, one RTX 4090), whose package lists are cut in the retrieved copies: their `[pip3]
torch==X` line is written in the form vllm-project/vllm PR 4211's example prints (`[pip3] torch==2.2.1`).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

ARCH = "RT-TORCH-ARCH"


def _report(version_line: str, built: str, gpu: str, listed: str) -> str:
    return (f"Collecting environment information...\nPyTorch version: {version_line}\nIs debug build: False\n"
            f"CUDA used to build PyTorch: {built}\nROCM used to build PyTorch: N/A\n\n"
            "OS: Ubuntu 22.04.5 LTS (x86_64)\nIs CUDA available: True\n"
            f"GPU models and configuration: GPU 0: {gpu}\nNvidia driver version: 535.183.01\n\n"
            "Versions of relevant libraries:\n[pip3] numpy==1.26.4\n[pip3] nvidia-nccl-cu12==2.20.5\n"
            f"[pip3] torch=={listed}\n[pip3] triton==3.0.0\n")


def test_542_the_labelled_version_names_the_official_wheel() -> None:
    result = capture_checks("542", ARCH)[ARCH]
    assert result.status == "ok" and "2.4.0+cu121" in result.message and "sm_90" in result.message


def test_the_version_line_wins_over_the_bare_package_line(tmp_path: Path) -> None:
    h100 = paste_checks(tmp_path, _report("2.4.0+cu121", "12.1", "NVIDIA H100 80GB HBM3", "2.4.0"), ARCH)[ARCH]
    assert h100.status == "ok" and "2.4.0+cu121" in h100.message
    rtx = paste_checks(tmp_path, _report("2.5.1+cu121", "12.1", "NVIDIA GeForce RTX 4090", "2.5.1"), ARCH)[ARCH]
    assert rtx.status == "ok" and "sm_86" in rtx.message


def test_a_cu121_wheel_still_has_no_blackwell_kernels(tmp_path: Path) -> None:
    # Modelled: the same report on an RTX 5090: the named wheel's list decides, and it lacks sm_120.
    text = _report("2.4.0+cu121", "12.1", "NVIDIA GeForce RTX 5090", "2.4.0")
    assert paste_checks(tmp_path, text, ARCH)[ARCH].status == "issue"


def test_a_bare_version_or_another_release_names_no_wheel(tmp_path: Path) -> None:
    # Modelled counter-examples: a bare version line beside its CUDA is PyPI's default build of it (h72b:
    # checks/rt.official_build), read for what the wheel's list holds; a package line of another release is not
    # the same install's metadata, and the package line stands (no arch list: unknown).
    bare = paste_checks(tmp_path, _report("2.4.0", "12.1", "NVIDIA H100 80GB HBM3", "2.4.0"), ARCH)[ARCH]
    assert bare.status == "ok" and "as the 2.4.0+cu121 wheel" in bare.message
    # ... and only for what it holds: a Blackwell card it lacks stays open (a third-party build may carry it).
    blackwell = paste_checks(tmp_path, _report("2.4.0", "12.1", "NVIDIA GeForce RTX 5090", "2.4.0"), ARCH)[ARCH]
    assert blackwell.status == "unknown"
    other = paste_checks(tmp_path, _report("2.4.0+cu121", "12.1", "NVIDIA H100 80GB HBM3", "2.3.1"), ARCH)[ARCH]
    assert other.status == "unknown" and "torch 2.3.1" in other.message
