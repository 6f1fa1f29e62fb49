"""Exports of a run: `--requests-jsonl` (one line per request) and `--format vllm-json`.

vllm-json writes the key names of a `vllm bench serve --save-result` file (its result dict in
vllm/benchmarks/serve.py: `duration`, `completed`, `request_throughput`, `output_throughput`,
`mean_ttft_ms`, `median_tpot_ms`, `std_itl_ms`, `p99_e2el_ms`, …), one object per level, so that
a level diffs against their file. The values are this tool's own measurements under those names:
TTFT and E2E run from the intended send time (vLLM: from the actual send), TPOT divides by the
tokens after the first chunk, ITL is per chunk. `std_*` is the population deviation, as
numpy's `np.std` that vLLM uses.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

from stackaudit.bench import slo, stats
from stackaudit.bench.client import RequestRecord
from stackaudit.bench.metrics import RequestMetrics, prompt_length

# Metric names in vLLM's result (`e2el` is their end-to-end latency).
VLLM_METRICS = ("ttft", "tpot", "itl", "e2el")


def _population_std(values: list[float]) -> float:
    if not values:
        return 0.0
    mean = stats.mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def _peak_tokens_per_s(records: list[RequestRecord]) -> float:
    """Most output tokens in one whole second of the level (vLLM's `max_output_tokens_per_s`)."""
    times = [(t, count) for r in records if r.ok for t, count in zip(r.chunk_times, _tokens_per_chunk(r), strict=False)]
    if not times:
        return 0.0
    start = min(r.sent for r in records if r.ok)
    buckets: dict[int, float] = {}
    for t, count in times:
        second = int(t - start)
        buckets[second] = buckets.get(second, 0.0) + count
    return max(buckets.values())


def _tokens_per_chunk(record: RequestRecord) -> list[float]:
    if record.per_chunk_tokens and len(record.per_chunk_tokens) == len(record.chunk_times):
        return [float(v) for v in record.per_chunk_tokens]
    n = record.output_tokens if record.output_tokens is not None else record.n_chunks
    chunks = max(len(record.chunk_times), 1)
    return [n / chunks] * len(record.chunk_times)


def _peak_concurrency(records: list[RequestRecord]) -> int:
    events = sorted([(r.sent, 1) for r in records if r.ok] + [(r.finish, -1) for r in records if r.ok])
    peak = current = 0
    for _, delta in events:
        current += delta
        peak = max(peak, current)
    return peak


def vllm_level(result: dict[str, Any], level: dict[str, Any], records: list[RequestRecord]) -> dict[str, Any]:
    """One level as `vllm bench serve` would have written it."""
    config = result.get("config") or {}
    server = result.get("server") or {}
    ok = [r for r in records if r.ok]
    metrics = [RequestMetrics(r) for r in ok]
    duration = float(level.get("duration_s") or 0.0)
    span = duration if duration > 0 else math.nan
    total_input = sum(n for n in (prompt_length(r) for r in ok) if n is not None)
    total_output = sum(m.n for m in metrics)
    started = result.get("started")
    try:
        date = time.strftime("%Y%m%d-%H%M%S", time.strptime(started, "%Y-%m-%dT%H:%M:%SZ")) if started else None
    except ValueError:
        date = None
    concurrency = level.get("concurrency")
    rate = level.get("request_rate")
    goodput = level.get("goodput")
    out: dict[str, Any] = {
        "date": date,
        "endpoint_type": "openai-chat" if config.get("endpoint") == "chat" else "openai",
        "backend": "openai-chat" if config.get("endpoint") == "chat" else "openai",
        "label": result.get("label"),
        "model_id": server.get("model_used"),
        "tokenizer_id": config.get("tokenizer"),
        "num_prompts": len(records),
        "request_rate": rate if rate is not None else "inf",
        "burstiness": 1.0,
        "max_concurrency": concurrency if concurrency is not None else config.get("max_concurrency"),
        "duration": duration,
        "completed": len(ok),
        "failed": len(records) - len(ok),
        "total_input_tokens": total_input,
        "total_output_tokens": total_output,
        "request_throughput": len(ok) / span,
        "request_goodput": goodput["requests_per_s"] if goodput else None,
        "output_throughput": total_output / span,
        "total_token_throughput": (total_input + total_output) / span,
        "max_output_tokens_per_s": _peak_tokens_per_s(records),
        "max_concurrent_requests": _peak_concurrency(records),
    }
    samples = {
        "ttft": [m.ttft for m in metrics],
        "tpot": [m.tpot for m in metrics if m.tpot is not None],
        "itl": [g for m in metrics for g in m.gaps],
        "e2el": [m.e2e for m in metrics],
    }
    qs = config.get("percentiles") or list(slo.DEFAULT_PERCENTILES)
    for name in VLLM_METRICS:
        values = sorted(samples[name])
        out[f"mean_{name}_ms"] = stats.mean(values) if values else 0.0
        out[f"median_{name}_ms"] = stats.percentile(values, 50) if values else 0.0
        out[f"std_{name}_ms"] = _population_std(values)
        for q in qs:
            out[f"{slo.percentile_key(q)}_{name}_ms"] = stats.percentile(values, q) if values else 0.0
    return out


def render_vllm_json(result: dict[str, Any], records: dict[str, list[tuple[int, RequestRecord]]]) -> str:
    """One level: one JSON object, as their file. Several: one object per line, as `--append-result` writes."""
    objects = []
    for level in result.get("levels", []):
        key = f"c={level['concurrency']}" if level.get("concurrency") is not None else f"r={level['request_rate']:g}"
        objects.append(vllm_level(result, level, [r for _, r in records.get(key, [])]))
    if len(objects) == 1:
        return json.dumps(objects[0], indent=2) + "\n"
    return "".join(json.dumps(o) + "\n" for o in objects)


def _seconds(value: float | None, origin: float) -> float | None:
    return None if value is None or value == 0.0 else round(value - origin, 6)


def request_lines(
    records: dict[str, list[tuple[int, RequestRecord]]], workload: dict[int, dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One dict per measured request; times in seconds from the run's first intended send."""
    every = [r for pairs in records.values() for _, r in pairs]
    origin = min((r.intended for r in every), default=0.0)
    lines = []
    for level, pairs in records.items():
        for repeat, record in pairs:
            m = RequestMetrics(record)
            lines.append({
                "level": level,
                "repeat": repeat + 1,
                "index": record.index,
                **(workload or {}).get(record.index, {}),
                "intended_s": _seconds(record.intended, origin),
                "sent_s": _seconds(record.sent, origin),
                "first_chunk_s": _seconds(record.first, origin),
                "last_chunk_s": _seconds(record.finish, origin) if record.ok else None,
                "ended_s": _seconds(record.ended, origin),
                "chunk_times_s": [round(t - origin, 6) for t in record.chunk_times],
                "chunk_counts": list(record.chunk_counts),
                "n_chunks": record.n_chunks,
                "output_tokens": record.output_tokens,
                "prompt_tokens": prompt_length(record),
                "max_tokens": record.max_tokens,
                "token_source": record.token_source,
                "tokens_per_chunk_known": record.tokens_per_chunk_known,
                "status": record.status,
                "finish_reason": record.finish_reason,
                "error": record.error,
                "connection": record.connection,
                "connect_ms": record.connect_ms,
                "ttft_ms": m.ttft if record.ok else None,
                "tpot_ms": m.tpot if record.ok else None,
                "e2e_ms": m.e2e if record.ok else None,
            })
    return lines


def write_requests_jsonl(path: str, lines: list[dict[str, Any]]) -> int:
    """Write `--requests-jsonl` (the lines of `request_lines`); returns the number of lines."""
    from stackaudit.errors import InputError

    try:
        with open(path, "w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line, separators=(",", ":")) + "\n")
    except OSError as exc:
        raise InputError(f"--requests-jsonl {path}: cannot write: {exc.strerror or exc}") from None
    return len(lines)
