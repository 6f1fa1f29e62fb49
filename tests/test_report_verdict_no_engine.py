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


@pytest.mark.parametrize(("number", "network"), [
    ("1578", "NCCL's network is a net plugin over TCP sockets (Google's FastSocket)"),  # one VM's log, FastSocket
    ("1456", "NCCL found no InfiniBand/RoCE device"),  # two nodes' lines, NET/IB finds no device on either
])
def test_an_nccl_log_between_nodes_over_tcp_names_that_network_and_nccl_tests(
        number: str, network: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 1578: a training job's NCCL log on GCP (random slow steps and stalls) shows no fault: the verdict says
    the nodes talk over TCP sockets, not RDMA, and sends the user to nccl-tests across the nodes."""
    verdict = _verdict(tmp_path, capsys, body(number))
    assert verdict.startswith(f"no fault found in what this paste shows; {network}, so the job's traffic between "
                              "nodes takes TCP, not RDMA; next: run nccl-tests across the nodes (`all_reduce_perf")


@pytest.mark.parametrize("number", ["479", "1007"])
def test_an_nccl_log_of_one_host_over_sockets_is_not_said_to_span_nodes(
        number: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 479 (vLLM TP4 on one host, NET/IB finds no device) and 1007 (two ranks in one container over
    NET/Socket): no nodes are shown, so the verdict names no traffic between them."""
    verdict = _verdict(tmp_path, capsys, body(number))
    assert "between nodes" not in verdict and "nccl-tests across" not in verdict
