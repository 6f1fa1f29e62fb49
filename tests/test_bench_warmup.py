"""Warm-up against a server that gets faster over its first requests; when a difference is real."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench_support.servers import calibrated_server
from stackaudit.bench.compare import compare_runs
from stackaudit.bench.history import History
from stackaudit.bench.runner import BenchConfig, BenchOutcome, run_bench

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial

GAP_MS = 10.0


def bench(url: str, **options: Any) -> BenchOutcome:
    values: dict[str, Any] = {
        "concurrency": [4], "requests": 16, "input_tokens": 8, "output_tokens": 24,
    }
    values.update(options)
    return asyncio.run(run_bench(BenchConfig(url=url, **values), progress=None))


def test_warmup_detected_and_excluded() -> None:
    # The first 12 requests are slower: the very first has twice the token gap.
    with calibrated_server("--ttft-ms", "30", "--gap-ms", str(GAP_MS), "--slow-first", "12", "--slow-factor", "2") as url:
        outcome = bench(url, warmup="auto")
    warmup = outcome.result["warmup"]
    assert warmup["converged"] is True
    assert warmup["cold"] is True and warmup["cold_slowdown"] > 0.3
    assert warmup["requests"] >= 12  # it kept warming until the speed stopped changing
    assert any("server was cold" in note for note in outcome.result["anomalies"])
    level = outcome.result["levels"][0]
    # Measured requests are all warm: TPOT is the warm truth.
    assert abs(level["tpot_ms"]["mean"] - GAP_MS) <= 1.0
    assert not any("changed during the level" in flag for flag in level["flags"])


def test_cold_run_then_warm_run_real_difference_with_warmup_named(tmp_path: Any) -> None:
    with calibrated_server("--ttft-ms", "30", "--gap-ms", str(GAP_MS), "--slow-first", "16", "--slow-factor", "2") as url:
        cold = bench(url, warmup="0", seed=1)
        warm = bench(url, warmup="auto", seed=2)
    assert cold.result["levels"][0]["tpot_ms"]["mean"] > 1.2 * GAP_MS
    with History(str(tmp_path / "h.sqlite3")) as history:
        a = history.add(cold.result, cold.records)
        b = history.add(warm.result, warm.records)
        report = compare_runs(history.get(str(a)), history.requests(a), history.get(str(b)), history.requests(b))
    level = report["levels"][0]
    assert level["real"]
    names = {cause["name"] for cause in level["likely_causes"]}
    assert "warm-up mode" in names and "seed" in names
    assert level["likely_causes"][0]["category"] == "warm-up"  # most likely first


def test_same_truth_within_noise_small_shift_under_threshold_ten_percent_real(tmp_path: Any) -> None:
    runs = {}
    for name, gap in (("base", 10.0), ("same", 10.0), ("small", 10.15), ("planted", 11.0)):
        with calibrated_server("--ttft-ms", "30", "--gap-ms", str(gap)) as url:
            runs[name] = bench(url, warmup="0")
    with History(str(tmp_path / "h.sqlite3")) as history:
        ids = {name: history.add(outcome.result, outcome.records) for name, outcome in runs.items()}

        def verdict(other: str) -> dict[str, Any]:
            a, b = history.get(str(ids["base"])), history.get(str(ids[other]))
            level = compare_runs(a, history.requests(a.id), b, history.requests(b.id))["levels"][0]
            return next(t for t in level["tests"] if t["metric"] == "tpot_ms")

        same, small, planted = verdict("same"), verdict("small"), verdict("planted")
    assert not same["real"] and same["verdict"].startswith("within noise")
    # 1.5 % slower: may well be significant with tight distributions, but under max(3 %, CI).
    assert not small["real"]
    assert planted["real"] and 0.07 < planted["change"] < 0.13
