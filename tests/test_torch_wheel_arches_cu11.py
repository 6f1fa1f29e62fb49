"""Issue 28, a verdict where the text suffices: the arch list of an official torch 1.12-2.0 wheel for CUDA 11.3,
11.6 or 11.7 follows from its version (WHEEL_ARCHES, pytorch/builder's release branches), so a pasted check_env
with such a torch and a GPU model settles RT-TORCH-ARCH."""

from __future__ import annotations

import re

from corpus import body, capture_checks
from stackaudit.checks.rt import torch_supports, wheel_arch_list

_CHECK = "RT-TORCH-ARCH"
# Real: torch's own warning with 1.13.1+cu117 on an H100 (PKU-YuanGroup/Open-Sora-Plan#39, issue body, 2024-03-04)
# and with 1.13.0+cu117 (HazyResearch/hyena-dna#76, issue body, 2024-09-17): the same line in both.
_TORCH_113_WARNING = "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86."


def test_torch_1_13_cu117_list_is_the_one_torch_prints() -> None:
    printed = tuple(_TORCH_113_WARNING.split("capabilities ")[1].rstrip(".").split())
    assert wheel_arch_list("1.13.1+cu117") == printed
    assert wheel_arch_list("1.13.0+cu117") == printed
    # ... so an H100 (compute 9.0) has no kernels in it, as the threads found.
    assert torch_supports("9.0", "1.13.1+cu117", "11.7", printed) is False


def test_lmdeploy_654_torch_2_0_cu117_arch_flags_match_the_table() -> None:
    # Real (corpus 161, InternLM/lmdeploy#654): the NVCC arch flags the wheel printed.
    flags = re.findall(r"code=(sm_\d+)", body("161"))
    assert tuple(flags) == wheel_arch_list("2.0.0+cu117")
    r = capture_checks("161", _CHECK)[_CHECK]
    assert r.status == "ok" and "sm_80" in r.message


def test_lmdeploy_check_env_torch_1_13_cu117_on_eight_a100_is_ok() -> None:
    # Real (corpus 226): its arch flags are cut before sm_80; the version alone names the list.
    r = capture_checks("226", _CHECK)[_CHECK]
    assert r.status == "ok" and "1.13.0+cu117" in r.message and "compute 8.0" in r.message


def test_builds_outside_the_table_stay_unknown() -> None:
    # Modelled: no cu117 wheel before 1.13, and a source build has no known list.
    assert wheel_arch_list("1.12.1+cu117") is None
    assert wheel_arch_list("1.13.0a0+git1234") is None
    assert wheel_arch_list("1.12.1+cu116") == wheel_arch_list("1.13.1+cu117")
