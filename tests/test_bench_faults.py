"""Faults: every failing request is an error with its reason; the run completes; nothing crashes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench_support.servers import calibrated_server
from stackaudit.bench.runner import BenchConfig, BenchOutcome, run_bench

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial


def bench(url: str, **options: Any) -> BenchOutcome:
    values: dict[str, Any] = {
        "concurrency": [2], "requests": 6, "input_tokens": 8, "output_tokens": 8,
        "warmup": "0", "timeout_s": 1.5,
    }
    values.update(options)
    return asyncio.run(run_bench(BenchConfig(url=url, **values), progress=None))


@pytest.mark.parametrize(
    ("fault", "reason", "options"),
    [
        ("http500", "HTTP 500", {}),
        ("drop", "connection dropped mid-stream", {}),
        ("stall", "timeout", {}),
        ("malformed", "malformed SSE", {}),
        ("longline", "over 65536 bytes", {"max_event_bytes": 64 * 1024}),
        ("error_event", "error event in stream", {}),
    ],
)
def test_fault_is_an_error_with_its_reason(fault: str, reason: str, options: dict[str, Any]) -> None:
    # Every second request faults (the preflight is request 0 and is healthy).
    with calibrated_server("--ttft-ms", "20", "--gap-ms", "2", "--fault", fault, "--fault-every", "2") as url:
        outcome = bench(url, **options)
    level = outcome.result["levels"][0]
    assert level["requests"] == 6
    assert level["errors"] == 3, level["error_reasons"]
    assert all(reason in key for key in level["error_reasons"]), level["error_reasons"]
    # The healthy requests are still measured.
    assert level["tpot_ms"]["mean"] == pytest.approx(2.0, abs=1.0)
    failed = [r for _, r in outcome.records["c=2"] if not r.ok]
    assert all(reason in (r.error or "") for r in failed)


def test_line_over_64kb_without_a_cap_is_a_dropped_stream_not_a_crash() -> None:
    """Without a cap the 70 KB line is buffered; the server then drops the connection."""
    with calibrated_server("--ttft-ms", "20", "--gap-ms", "2", "--fault", "longline", "--fault-every", "2") as url:
        outcome = bench(url)
    level = outcome.result["levels"][0]
    assert level["errors"] == 3
    assert all("connection" in key or "mid-event" in key for key in level["error_reasons"]), level["error_reasons"]


def test_unreachable_server_is_an_input_error() -> None:
    from stackaudit.errors import InputError

    with pytest.raises(InputError, match="cannot reach the server"):
        bench("http://127.0.0.1:9")
