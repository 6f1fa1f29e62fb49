"""Versions compared by PEP 440 (stackaudit.versions), where the checks compare them."""

from __future__ import annotations

import pytest

from stackaudit.checks.rt import torch_supports
from stackaudit.versions import is_older, parse_version, public_version, release


def test_a_release_candidate_sorts_before_its_release() -> None:
    assert is_older("2.7.0rc1", "2.7.0") is True
    assert is_older("2.7.0", "2.7.0rc1") is False
    assert sorted(["2.7.0", "2.7.0rc1", "2.7.0.dev20250310", "2.7.0.post1", "2.6.0"], key=parse_version) == [
        "2.6.0", "2.7.0.dev20250310", "2.7.0rc1", "2.7.0", "2.7.0.post1"]


@pytest.mark.parametrize(("text", "numbers"), [
    ("2.7.1+cu128", (2, 7, 1)),
    ("1.0.0rc4", (1, 0, 0)),
    ("570.124.06", (570, 124, 6)),   # a driver version: leading zero of the last part
    ("12.8", (12, 8)),
    ("550.54.15-open", (550, 54, 15)),  # not PEP 440: the leading numbers
    ("", ()),
    (None, ()),
    ("unknown", ()),
])
def test_release_numbers(text: str | None, numbers: tuple[int, ...]) -> None:
    assert release(text) == numbers


def test_public_version_drops_the_build_label_only() -> None:
    assert public_version("0.2.8+cu128torch2.7") == "0.2.8"
    assert public_version("0.2.08") == "0.2.8"
    assert public_version("0.2.8rc1+cu128") != public_version("0.2.8")  # a release candidate is not the release


def test_torch_floor_for_blackwell_counts_the_27_series_and_not_26() -> None:
    # sm_120 without the arch list: CUDA 12.8 and torch 2.7 are the floors (a 2.7 pre-release is that series).
    assert torch_supports("12.0", "2.6.0", "12.8") is False
    assert torch_supports("12.0", "2.7.0rc1", "12.8") is None
    assert torch_supports("12.0", "2.7.1+cu128", "12.8") is None
    assert torch_supports("12.0", "2.7.1", "12.6") is False
