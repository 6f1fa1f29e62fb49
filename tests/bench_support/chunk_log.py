"""The calibrated server's own record (`--chunk-log`), joined with the client's records by prompt.

Same clock on both sides (CLOCK_MONOTONIC: the server's loop.time, the client's perf_counter on
Linux). Per request: TTFT = first chunk written − the request's intended send time; TPOT = (last
chunk written − first chunk written) / (n − tokens of the first chunk).
"""

from __future__ import annotations

import json
from typing import Any

from stackaudit.bench import stats
from stackaudit.bench.client import RequestRecord
from stackaudit.bench.metrics import RequestMetrics


def read_chunk_log(path: str) -> dict[str, dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return {entry["prompt"]: entry for entry in map(json.loads, handle)}


def prompt_of(record: RequestRecord) -> str:
    assert record.body is not None
    body = json.loads(record.body)
    return str(body["messages"][-1]["content"] if "messages" in body else body["prompt"])


def paired_errors(records: list[RequestRecord], log: dict[str, dict[str, Any]]) -> tuple[float, float]:
    """Median relative error of the client's TPOT and TTFT against the server's record, per request."""
    tpot_errors, ttft_errors = [], []
    for record in records:
        entry = log[prompt_of(record)]
        times, tokens = entry["chunk_times"], entry["chunk_tokens"]
        metrics = RequestMetrics(record)
        true_ttft = (times[0] - record.intended) * 1000.0
        ttft_errors.append((metrics.ttft - true_ttft) / true_ttft)
        if metrics.tpot is not None and len(times) > 1:
            true_tpot = (times[-1] - times[0]) * 1000.0 / (sum(tokens) - tokens[0])
            tpot_errors.append((metrics.tpot - true_tpot) / true_tpot)
    tpot = stats.percentile(sorted(tpot_errors), 50) if tpot_errors else float("nan")
    return tpot, stats.percentile(sorted(ttft_errors), 50)


def server_throughput(records: list[RequestRecord], log: dict[str, dict[str, Any]]) -> float:
    """Output tokens per second the server delivered to these requests: Σ n / (last chunk written − first intended)."""
    entries = [log[prompt_of(record)] for record in records]
    tokens = sum(sum(entry["chunk_tokens"]) for entry in entries)
    span = max(entry["chunk_times"][-1] for entry in entries) - min(record.intended for record in records)
    return tokens / span


def host_busy(level: dict[str, Any]) -> bool:
    """Whether the level says other work held the client off its CPU, or its event loop ran late: either way the
    level itself warns that its timings may be late."""
    return any(warning.startswith(("host busy", "client event-loop lag")) for warning in level.get("warnings", []))


def valid_or_held_up(level: dict[str, Any]) -> bool:
    """Valid; or invalid only because the client left late while the level says the host held it up."""
    if level["valid"]:
        return True
    lateness = ("client send lag", "achieved concurrency")
    return host_busy(level) and all(reason.startswith(lateness) for reason in level["invalid_reasons"])
