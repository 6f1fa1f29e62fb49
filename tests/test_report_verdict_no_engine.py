"""Where no finding stands and the paste shows no serving engine and no token rate, the verdict does not turn the
user's question into a throughput one: no `stackaudit ceiling --model MODEL --measured TOK/S` of placeholders for a
GPU table behind a Docker question (corpus 1419), a topology matrix behind a node freeze (1432), and an nccl-tests
run gets NCCL's own transport lines as its next step (1418: a latency question, 1459: busbw against NVLink).
A paste that shows the engine (1396: vLLM's log) or an engine's check_env (322) keeps the ceiling."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body
from test_verdict_trouble import _verdict, own_data_home  # noqa: F401  (the fixture: a HOME of each test's own)


@pytest.mark.parametrize("number", ["1419", "1432", "1412"])
def test_a_paste_without_engine_or_rate_gets_no_throughput_verdict(
        number: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdict = _verdict(tmp_path, capsys, body(number))
    assert verdict.startswith("no fault found in what this paste shows; next: the steps below settle")
    assert "throughput" not in verdict and "stackaudit ceiling" not in verdict
    assert "GPU model" not in verdict  # 1419 names its RTX 3070: the verdict does not say it names none


@pytest.mark.parametrize("number", ["1418", "1459"])
def test_an_nccl_tests_run_gets_nccls_transport_lines_as_next_step(
        number: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdict = _verdict(tmp_path, capsys, body(number))
    assert verdict.startswith("nothing found that explains the collective's time or bandwidth; next: rerun it with "
                              "NCCL_DEBUG=INFO")
    assert "TOK/S" not in verdict and "--model MODEL" not in verdict


@pytest.mark.parametrize("number", ["1396", "322"])
def test_a_paste_showing_the_engine_keeps_the_ceiling(number: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    verdict = _verdict(tmp_path, capsys, body(number))
    assert verdict.startswith("nothing found that explains low throughput; next: measure against the ceiling: "
                              "`stackaudit ceiling --model MODEL")
