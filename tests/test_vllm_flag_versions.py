"""Advice that names a vLLM setting is for the releases that read it (versions.FIRST_RELEASE): a log that names an
older vLLM is not told to set VLLM_SKIP_P2P_CHECK, which it does not have (its real P2P probe always ran)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log
from stackaudit.versions import predates


@pytest.mark.parametrize(("prefix", "version"), [
    ("328", "0.4.2"),  # Real: vLLM 0.4.2 in a k8s pod, `Initializing an LLM engine (v0.4.2)`.
    ("68", "0.6.6.post1"),  # Real: `vLLM API server version 0.6.6.post1`.
    ("296", "0.9.2"),  # Real: vLLM 0.9.2 in Docker, TP 2 on RTX 5090.
])
def test_the_log_names_its_vllm_release(prefix: str, version: str) -> None:
    assert parse_serving_log(body(prefix)).vllm_version == version


def test_vllm_0_4_2_is_told_its_probe_runs_not_to_set_a_flag_it_lacks() -> None:
    result = capture_checks("328", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "unknown"
    assert "vLLM 0.4.2 runs its real P2P probe" in result.message and "came in 0.6.3" in result.message
    assert "VLLM_SKIP_P2P_CHECK=0" not in result.hint and "VLLM_SKIP_P2P_CHECK=1" not in result.message


@pytest.mark.parametrize("prefix", ["68", "296"])
def test_a_release_with_the_flag_is_told_to_set_it(prefix: str) -> None:
    result = capture_checks(prefix, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert "reads VLLM_SKIP_P2P_CHECK" in result.message and "VLLM_SKIP_P2P_CHECK=0" in result.hint


def test_the_same_log_from_a_newer_release_gets_the_flag(tmp_path: Path) -> None:
    # Modelled: capture 328 with its engine line naming v0.10.0.
    text = body("328").replace("Initializing an LLM engine (v0.4.2)", "Initializing an LLM engine (v0.10.0)")
    result = paste_checks(tmp_path, text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert "vLLM 0.10.0 reads VLLM_SKIP_P2P_CHECK" in result.message, result.message


def test_an_unread_version_or_setting_claims_nothing() -> None:
    assert predates("vllm", "VLLM_SKIP_P2P_CHECK", "0.6.2") == "0.6.3"
    assert predates("vllm", "VLLM_SKIP_P2P_CHECK", "0.6.3") == ""
    assert predates("vllm", "VLLM_SKIP_P2P_CHECK", None) == ""
    assert predates("vllm", "VLLM_NOT_IN_THE_TABLE", "0.1.0") == ""
