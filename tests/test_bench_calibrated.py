"""Measured TTFT, TPOT and throughput against a server whose timing is exact by construction.

The calibrated server (tests/bench_support/calibrated_server.py, its own process) emits chunk j
at TTFT + j·k·gap after reading the request. Truth for n tokens at concurrency c (closed loop):
TTFT, TPOT = gap, E2E = TTFT + (n − 1)·gap, aggregate = c·n / E2E. On a loaded machine the
server itself runs late, so the main test compares with the server's own chunk log (what it
did), 2 %, and with the schedule only loosely.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench_support.chunk_log import (
    host_busy,
    paired_errors,
    read_chunk_log,
    server_throughput,
    valid_or_held_up,
)
from bench_support.cpus import own_core, two_cores
from bench_support.servers import calibrated_server
from stackaudit.bench.runner import BenchConfig, BenchOutcome, run_bench

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial

TTFT_MS = 500.0
GAP_MS = 20.0
N = 32


def within(measured: float | None, truth: float) -> bool:
    assert measured is not None
    return abs(measured - truth) <= max(0.02 * truth, 1.0)


def within_ratio(measured: float | None, truth: float) -> bool:
    assert measured is not None
    return abs(measured - truth) <= 0.02 * truth


def bench(url: str, **options: Any) -> BenchOutcome:
    values: dict[str, Any] = {"input_tokens": 16, "output_tokens": N, "warmup": "0"}
    values.update(options)
    return asyncio.run(run_bench(BenchConfig(url=url, **values), progress=None))


@pytest.mark.parametrize(("concurrency", "requests"), [(1, 4), (64, 192)])
def test_ttft_tpot_throughput_match_truth(concurrency: int, requests: int, tmp_path: Any) -> None:
    client_cpu, server_cpu = two_cores() or (None, None)
    log = str(tmp_path / "chunks.jsonl")
    options = ("--ttft-ms", str(TTFT_MS), "--gap-ms", str(GAP_MS), "--tokenize", "--chunk-log", log)
    with calibrated_server(*options, cpu=server_cpu) as url:
        if client_cpu is None:
            outcome = bench(url, concurrency=[concurrency], requests=requests)
        else:
            with own_core(client_cpu):
                outcome = bench(url, concurrency=[concurrency], requests=requests)
    level = outcome.result["levels"][0]
    assert level["errors"] == 0 and level["requests"] == requests
    assert valid_or_held_up(level), (level["invalid_reasons"], level["warnings"])
    # Against what the server did (tests/bench_support/chunk_log.py), so that a server running
    # late on a loaded machine is not counted as client error; the schedule only loosely.
    records = [r for _, r in outcome.records[f"c={concurrency}"]]
    served = read_chunk_log(log)
    tpot_error, ttft_error = paired_errors(records, served)
    tolerance = 0.10 if host_busy(level) else 0.02
    assert abs(ttft_error) <= tolerance and abs(tpot_error) <= tolerance, (ttft_error, tpot_error, level["warnings"])
    assert within_ratio(level["output_tokens_per_s"], server_throughput(records, served)), level
    e2e = TTFT_MS + (N - 1) * GAP_MS
    assert level["e2e_ms"]["p50"] == pytest.approx(e2e, rel=0.1)
    assert level["tpot_ms"]["mean"] == pytest.approx(GAP_MS, rel=0.1)
    assert level["output_tokens_per_s_per_stream"] == pytest.approx(1000.0 / GAP_MS, rel=0.1)
    assert level["token_source"] == ["usage"] and not level["approximate_tokens"]
    assert level["prompt_tokens_check"]["checked"] == requests
    assert abs(level["prompt_tokens_check"]["mean_difference_tokens"]) <= 1
    assert outcome.result["config"]["prompt_tokens_source"] == "server /tokenize"
    if concurrency > 1:
        assert level["achieved_concurrency"] >= 0.95 * concurrency
    assert 0 < level["client"]["cpu_share_max"] < 0.85 and level["client"]["events_per_read"] >= 1.0


def test_without_usage_counts_chunks_and_says_approximate() -> None:
    with calibrated_server("--ttft-ms", "50", "--gap-ms", str(GAP_MS), "--no-usage") as url:
        outcome = bench(url, concurrency=[2], requests=4)
    level = outcome.result["levels"][0]
    assert level["approximate_tokens"]
    assert level["token_source"] == ["content chunks"]
    assert any("approximate" in flag for flag in level["flags"])
    assert level["output_tokens_mean"] == N
    assert within(level["tpot_ms"]["mean"], GAP_MS)
    # Words, said so: this server has no tokenize endpoint.
    assert outcome.result["config"]["prompt_tokens_source"].startswith("words")
    assert any("sized in words" in note for note in outcome.result["anomalies"])


def test_several_tokens_per_chunk_divides_by_tokens_not_chunks() -> None:
    with calibrated_server("--ttft-ms", "200", "--gap-ms", "5", "--tokens-per-chunk", "4") as url:
        outcome = bench(url, concurrency=[8], requests=16)
    level = outcome.result["levels"][0]
    assert level["tokens_per_chunk"]["mean"] == pytest.approx(4.0)
    assert any("several tokens" in flag for flag in level["flags"])
    assert within(level["tpot_ms"]["mean"], 5.0), level["tpot_ms"]
    # ITL is per chunk, k times the token gap: reported as such, not as a token gap.
    assert level["itl_ms"]["p50"] == pytest.approx(20.0, abs=1.0)
    # Requests here last 340 ms, so the closed loop's turnaround between requests weighs more: 5 %.
    truth = 8 * N / ((200 + (N - 4) * 5) / 1000.0)
    assert abs(level["output_tokens_per_s"] - truth) <= 0.05 * truth


def test_long_lines_chat_endpoint() -> None:
    with calibrated_server("--ttft-ms", "200", "--gap-ms", str(GAP_MS), "--line-pad", "70000") as url:
        outcome = bench(url, concurrency=[4], requests=8, endpoint="chat", output_tokens=16)
    level = outcome.result["levels"][0]
    assert level["errors"] == 0, level["error_reasons"]
    assert level["output_tokens_mean"] == 16
    # Every event is 70 KB here: moving and scanning it is real time inside TTFT, so 5 %.
    assert abs(level["ttft_ms"]["p50"] - 200.0) <= 10.0
    assert within(level["tpot_ms"]["mean"], GAP_MS)


def test_early_eos_flagged_and_ignore_eos_asked() -> None:
    with calibrated_server("--ttft-ms", "20", "--gap-ms", "2", "--eos-after", "10") as url:
        stopped = bench(url, concurrency=[2], requests=4, ignore_eos=False)
        suppressed = bench(url, concurrency=[2], requests=4)
    level = stopped.result["levels"][0]
    assert level["early_eos"] == 4
    assert level["output_tokens_mean"] == 10  # never the requested length
    assert any("early EOS" in flag for flag in level["flags"])
    # All four stopped early: the level measured other lengths than configured.
    assert not level["valid"] and any("most requests stopped early" in r for r in level["invalid_reasons"])
    assert suppressed.result["server"]["sampling"]["ignore_eos"] is True
    assert suppressed.result["levels"][0]["early_eos"] == 0


def test_open_loop_poisson_latency_from_scheduled_arrival(tmp_path: Any) -> None:
    log = str(tmp_path / "chunks.jsonl")
    with calibrated_server("--ttft-ms", "200", "--gap-ms", "2", "--chunk-log", log) as url:
        outcome = bench(url, request_rate=[20.0], concurrency=[], requests=30, output_tokens=8)
    level = outcome.result["levels"][0]
    assert level["request_rate"] == 20.0 and level["concurrency"] is None
    assert level["valid"], level["invalid_reasons"]
    records = [r for _, r in outcome.records["r=20"]]
    # Against what the server did (its first chunk, from the scheduled arrival), not its schedule:
    # a server that woke late on a loaded machine is not the client's error.
    _, ttft_error = paired_errors(records, read_chunk_log(log))
    assert abs(ttft_error) <= 0.02, ttft_error
    assert level["ttft_ms"]["p50"] == pytest.approx(200.0, rel=0.1)
    intended = [r.intended for r in records]
    assert intended == sorted(intended) and intended[-1] - intended[0] > 0.5  # spread, not a burst


def test_open_loop_queueing_behind_a_cap_counts_in_latency() -> None:
    """With one slot, requests wait; latency from the intended time shows it, and the run says so."""
    with calibrated_server("--ttft-ms", "100", "--gap-ms", "1") as url:
        outcome = bench(url, request_rate=[50.0], concurrency=[], requests=10, output_tokens=4, max_concurrency=1)
    level = outcome.result["levels"][0]
    assert level["ttft_ms"]["p90"] > 300.0  # queued behind earlier requests
    assert not level["valid"] and any("send lag" in r for r in level["invalid_reasons"])
