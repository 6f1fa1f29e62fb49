"""`bench compare --fail-on`: a planted −15 % is caught and a same-configuration rerun is not, 10 of 10,
with a busy sibling process competing for the machine's cores.

Runs are real bench runs against one calibrated server whose token gap the test sets between
runs: the baseline, and a planted 1/0.85 of it (−15 % throughput, +17.6 % TPOT), same URL and
flags — a regression no configuration explains. Sequence B0, P0, B1, P1, … B10:
each B_i is compared with B_i+1 (same configuration) and with P_i (planted). The host
fingerprint is fixed here (the same machine), so that only the bench figures decide.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import pytest

from bench_support.busy import busy_sibling
from bench_support.servers import calibrated_server
from stackaudit.bench import runner
from stackaudit.bench.compare import compare_runs, regressions
from stackaudit.bench.history import History
from stackaudit.bench.runner import BenchConfig, run_bench

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial

# Ten rounds (twenty gate decisions) keep this serial test near a minute of `make test`.
ROUNDS = 10
GAP_MS = 8.0
PLANTED_GAP_MS = GAP_MS / 0.85
LIMIT = 0.05  # --fail-on regression:5


def set_gap(url: str, gap_ms: float) -> None:
    request = urllib.request.Request(url + "/control", json.dumps({"gap_ms": gap_ms}).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def one_run(url: str, history: History, gap_ms: float) -> int:
    set_gap(url, gap_ms)
    config = BenchConfig(
        url=url, concurrency=[4], requests=4, repeats=5, input_tokens=8, output_tokens=32, warmup="0", seed=1,
    )
    outcome = asyncio.run(run_bench(config, progress=None))
    return history.add(outcome.result, outcome.records)


def summary(report: dict[str, Any]) -> list[tuple[str, float, float, str]]:
    return [(t["metric"], round(t.get("change", 0.0), 4), round(t.get("threshold", 0.0), 4), t["verdict"])
            for t in report["levels"][0]["tests"]]


def gate(history: History, a: int, b: int) -> dict[str, Any]:
    return compare_runs(
        history.get(str(a)), history.requests(a), history.get(str(b)), history.requests(b), fail_on_regression=LIMIT
    )


@pytest.mark.slow
def test_planted_regression_caught_and_rerun_passes_10_of_10_with_a_busy_sibling(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fingerprint = {"host.kernel": "6.8.0", "KERN-SWAP": "0"}
    monkeypatch.setattr(runner, "host_fingerprint_for", lambda url: (dict(fingerprint), "test: one machine"))
    missed, false_alarms = [], []
    with History(str(tmp_path / "gate.sqlite3")) as history, \
            calibrated_server("--ttft-ms", "60", "--gap-ms", str(GAP_MS), "--control", "--version", "cal-1") as url, \
            busy_sibling(120.0):
        base = one_run(url, history, GAP_MS)
        for i in range(ROUNDS):
            planted = one_run(url, history, PLANTED_GAP_MS)
            rerun = one_run(url, history, GAP_MS)
            caught = gate(history, base, planted)
            same = gate(history, base, rerun)
            if not caught["fail_on"]["failed"]:
                missed.append((i, summary(caught)))
            if same["fail_on"]["failed"]:
                false_alarms.append((i, summary(same)))
            base = rerun
    assert not missed, missed
    assert not false_alarms, false_alarms
    # What the gate said about the last planted run, by metric.
    level = caught["levels"][0]
    assert {r["metric"] for r in regressions(level, LIMIT)} >= {"tpot_ms", "output_tokens_per_s"}
    assert level["comparable"] and level["likely_causes"] == []
