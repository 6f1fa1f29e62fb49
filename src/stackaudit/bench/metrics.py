"""Per-level metrics, each with the formula the report prints next to it.

n is a request's output token count: the server's `usage.completion_tokens` when it sends
one; else the server's own tokenize endpoint on the generated text; else the number of
content chunks. The last two are marked approximate. The requested length is never assumed
(SGLang's fallback, which credits a server that stopped early with the full length).
"""

from __future__ import annotations

import math
from typing import Any

from stackaudit.bench import stats
from stackaudit.bench.client import RequestRecord
from stackaudit.bench.loadgen import LevelRun

DEFINITIONS = {
    "ttft_ms": "TTFT = time of the first content chunk − intended send time, per request",
    "tpot_ms": (
        "TPOT = (t_last_chunk − t_first_chunk) / (n − tokens in the first chunk), per request, then "
        "averaged over requests; with one token per chunk this is (E2E − TTFT)/(n − 1)"
    ),
    "itl_ms": "ITL = gaps between consecutive content chunks, pooled over requests (a chunk may hold several tokens)",
    "e2e_ms": "E2E = time of the last content chunk − intended send time, per request",
    "intended_send": (
        "intended send time = when the request's slot freed (fixed concurrency) or its scheduled "
        "Poisson arrival (--request-rate); client delays count in the latency"
    ),
    "output_tokens_per_s": "output tok/s (aggregate) = Σ n over successful requests / (last completion − first intended send)",
    "output_tokens_per_s_per_stream": "tok/s per stream = 1000 / mean TPOT (decode speed one stream sees)",
    "requests_per_s": "req/s = successful requests / (last completion − first intended send)",
    "achieved_concurrency": "achieved concurrency = time-averaged requests in flight while requests were still being issued",
    "n": "n = usage.completion_tokens, else server-retokenized text, else content chunks (approximate)",
}

# Validity thresholds.
MIN_CONCURRENCY_FRACTION = 0.95
CEILING_WARN_FRACTION = 0.5
CEILING_INVALID_FRACTION = 0.9
HIGH_CV = 0.10


class RequestMetrics:
    """Per-request derived values in milliseconds."""

    __slots__ = ("e2e", "first_chunk_tokens", "gaps", "n", "send_lag", "tokens_per_chunk", "tpot", "ttft")

    def __init__(self, record: RequestRecord) -> None:
        first = record.first if record.first is not None else record.finish
        self.ttft = (first - record.intended) * 1000.0
        self.e2e = (record.finish - record.intended) * 1000.0
        self.send_lag = max(0.0, (record.sent - record.intended) * 1000.0)
        n = record.output_tokens if record.output_tokens is not None else record.n_chunks
        self.n = n
        chunks = max(record.n_chunks, 1)
        if record.per_chunk_tokens:
            first_tokens: float = record.per_chunk_tokens[0]
        elif n > chunks:
            first_tokens = n / chunks  # several tokens per chunk: the first chunk holds about this many
        else:
            first_tokens = 1.0
        self.first_chunk_tokens = first_tokens
        self.tokens_per_chunk = n / chunks if record.n_chunks else math.nan
        decode_tokens = n - first_tokens
        if record.first is not None and decode_tokens > 0 and len(record.chunk_times) > 1:
            self.tpot: float | None = (record.chunk_times[-1] - record.first) * 1000.0 / decode_tokens
        else:
            self.tpot = None
        gaps: list[float] = []
        times = record.chunk_times
        counts = record.chunk_counts
        for i in range(len(times)):
            if i:
                gaps.append((times[i] - times[i - 1]) * 1000.0)
            # Chunks read together arrived together: the gaps between them are zero.
            gaps.extend([0.0] * (counts[i] - 1))
        self.gaps = gaps


def _in_flight_average(records: list[RequestRecord], window_start: float, window_end: float) -> float | None:
    span = window_end - window_start
    if span <= 0:
        return None
    busy = 0.0
    for record in records:
        begin = max(record.sent, window_start)
        end = min(record.finish, window_end)
        if end > begin:
            busy += end - begin
    return busy / span


def summarize_repeat(run: LevelRun, ceiling_chunks_per_s: float | None) -> dict[str, Any]:
    """Figures of one repeat of one level; validity judged here."""
    ok = [r for r in run.records if r.ok]
    metrics = [RequestMetrics(r) for r in ok]
    last = max((r.finish for r in run.records), default=run.end)
    first_intended = min((r.intended for r in run.records), default=run.start)
    span = max(last - first_intended, 1e-9)
    tokens = sum(m.n for m in metrics)
    chunks = sum(r.n_chunks for r in ok)
    tpots = [m.tpot for m in metrics if m.tpot is not None]
    ttfts = [m.ttft for m in metrics]
    lags = sorted(m.send_lag for m in [RequestMetrics(r) for r in run.records])
    window_end = run.issue_end if run.issue_end - run.start > 0.2 * (last - run.start) else last
    achieved = _in_flight_average(run.records, run.start, window_end)
    invalid: list[str] = []
    warnings: list[str] = []
    lag_p99 = stats.percentile(lags, 99) if lags else 0.0
    ttft_p50 = stats.percentile(sorted(ttfts), 50) if ttfts else 0.0
    if run.mode == "concurrency" and achieved is not None and achieved < MIN_CONCURRENCY_FRACTION * run.target:
        invalid.append(
            f"achieved concurrency {achieved:.1f} below the target {run.target:g} (client or connection limit)"
        )
    if lag_p99 > max(10.0, 0.1 * ttft_p50):
        invalid.append(f"client send lag p99 {lag_p99:.1f} ms: requests left late (client CPU or connection limits)")
    chunk_rate = chunks / span
    if ceiling_chunks_per_s:
        share = chunk_rate / ceiling_chunks_per_s
        if share > CEILING_INVALID_FRACTION:
            invalid.append(
                f"client at {share:.0%} of its own ceiling ({chunk_rate:.0f} of {ceiling_chunks_per_s:.0f} chunks/s)"
            )
        elif share > CEILING_WARN_FRACTION:
            warnings.append(
                f"client near its own ceiling: {share:.0%} ({chunk_rate:.0f} of {ceiling_chunks_per_s:.0f} chunks/s)"
            )
    if run.loop_lag_ms:
        loop_p99 = stats.percentile(sorted(run.loop_lag_ms), 99)
        gaps = [g for m in metrics for g in m.gaps if g > 0]
        gap_p50 = stats.percentile(sorted(gaps), 50) if gaps else math.inf
        if loop_p99 > max(5.0, 0.1 * gap_p50):
            warnings.append(f"client event-loop lag p99 {loop_p99:.1f} ms: chunk times may be late by that much")
    else:
        loop_p99 = 0.0
    return {
        "target": run.target,
        "requests": len(run.records),
        "errors": len(run.records) - len(ok),
        "duration_s": span,
        "output_tokens": tokens,
        "output_tokens_per_s": tokens / span,
        "requests_per_s": len(ok) / span,
        "tpot_ms_mean": stats.mean(tpots) if tpots else None,
        "ttft_ms_mean": stats.mean(ttfts) if ttfts else None,
        "achieved_concurrency": achieved,
        "send_lag_ms_p99": lag_p99,
        "loop_lag_ms_p99": loop_p99,
        "chunks_per_s": chunk_rate,
        "invalid": invalid,
        "warnings": warnings,
    }


def _error_reasons(records: list[RequestRecord]) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for record in records:
        if record.error:
            # Group by the reason's head, not its details (HTTP bodies differ per request).
            key = record.error.split(": ", 1)[0] if record.error.startswith("HTTP") else record.error[:120]
            reasons[key] = reasons.get(key, 0) + 1
    return reasons


def summarize_level(
    mode: str,
    target: float,
    runs: list[LevelRun],
    repeat_summaries: list[dict[str, Any]],
    endpoint: str,
) -> dict[str, Any]:
    """The level entry of the report: pooled distributions, repeat statistics, validity, flags."""
    records = [r for run in runs for r in run.records]
    ok = [r for r in records if r.ok]
    metrics = [RequestMetrics(r) for r in ok]
    tpots = [m.tpot for m in metrics if m.tpot is not None]
    total_tokens = sum(s["output_tokens"] for s in repeat_summaries)
    total_span = sum(s["duration_s"] for s in repeat_summaries)
    aggregate = total_tokens / total_span if total_span > 0 else 0.0
    tpot_dist = stats.distribution(tpots)
    per_stream = 1000.0 / tpot_dist["mean"] if tpot_dist["mean"] else None
    sources = sorted({r.token_source for r in ok})
    approximate = any(r.approximate for r in ok)
    flags: list[str] = []
    invalid = sorted({reason for s in repeat_summaries for reason in s["invalid"]})
    warnings = sorted({w for s in repeat_summaries for w in s["warnings"]})
    # Tokens per chunk: exact with continuous usage, else each request's mean.
    exact_per_chunk = [t for r in ok for t in r.per_chunk_tokens]
    if exact_per_chunk:
        per_chunk_values = [float(v) for v in exact_per_chunk]
        per_chunk_source = "continuous usage (per chunk)"
    else:
        per_chunk_values = [m.tokens_per_chunk for m in metrics if not math.isnan(m.tokens_per_chunk)]
        per_chunk_source = "n / content chunks (per request)"
    per_chunk = stats.distribution(per_chunk_values)
    per_chunk["max"] = max(per_chunk_values) if per_chunk_values else None
    per_chunk["source"] = per_chunk_source  # type: ignore[assignment]
    multi_token = bool(per_chunk_values) and (per_chunk["mean"] or 0) > 1.05
    if multi_token:
        flags.append(
            f"chunks carry several tokens (mean {per_chunk['mean']:.2f} per chunk): ITL is per chunk, not per "
            "token; TPOT divides by tokens"
        )
    if approximate:
        flags.append(
            "token counts approximate: the server sent no usage ("
            + ", ".join(s for s in sources if s != "usage")
            + "); throughput and TPOT rest on them"
        )
    early = [r for r, m in zip(ok, metrics, strict=True) if r.max_tokens and m.n < r.max_tokens]
    if early:
        flags.append(
            f"early EOS: {len(early)} of {len(ok)} requests returned fewer tokens than the {ok[0].max_tokens} asked "
            f"(mean {stats.mean([RequestMetrics(r).n for r in early]):.0f})"
        )
    prompt_diffs = [
        r.prompt_tokens - r.prompt_tokens_target
        for r in ok
        if r.prompt_tokens is not None and r.prompt_tokens_target is not None and r.token_source == "usage"
    ]
    prompt_check: dict[str, Any] = {"checked": len(prompt_diffs)}
    if prompt_diffs:
        mean_diff = stats.mean(prompt_diffs)
        prompt_check["mean_difference_tokens"] = mean_diff
        target_tokens = ok[0].prompt_tokens_target or 1
        if abs(mean_diff) > max(2.0, 0.02 * target_tokens):
            note = " (the chat template adds tokens)" if endpoint == "chat" and mean_diff > 0 else ""
            flags.append(
                f"usage.prompt_tokens differs from the target by {mean_diff:+.1f} tokens on average{note}"
            )
    repeats: dict[str, Any] = {
        "n": len(repeat_summaries),
        "output_tokens_per_s": stats.mean_ci95([s["output_tokens_per_s"] for s in repeat_summaries]),
        "tpot_ms": stats.mean_ci95([s["tpot_ms_mean"] for s in repeat_summaries if s["tpot_ms_mean"] is not None]),
        "ttft_ms": stats.mean_ci95([s["ttft_ms_mean"] for s in repeat_summaries if s["ttft_ms_mean"] is not None]),
    }
    for name in ("output_tokens_per_s", "tpot_ms"):
        cv = repeats[name].get("cv")
        if cv is not None and cv > HIGH_CV:
            flags.append(f"high variability between repeats: {name} CV {cv:.0%}")
    drift = _drift(ok)
    if drift:
        flags.append(drift)
    achieved = [s["achieved_concurrency"] for s in repeat_summaries if s["achieved_concurrency"] is not None]
    errors = len(records) - len(ok)
    return {
        "concurrency": int(target) if mode == "concurrency" else None,
        "request_rate": target if mode == "rate" else None,
        "ttft_ms": stats.distribution([m.ttft for m in metrics]),
        "tpot_ms": tpot_dist,
        "itl_ms": stats.distribution([g for m in metrics for g in m.gaps]),
        "e2e_ms": stats.distribution([m.e2e for m in metrics]),
        "output_tokens_per_s": aggregate,
        "output_tokens_per_s_per_stream": per_stream,
        "requests_per_s": (len(ok) / total_span) if total_span > 0 else 0.0,
        "requests": len(records),
        "errors": errors,
        "error_reasons": _error_reasons(records),
        "valid": not invalid,
        "invalid_reasons": invalid,
        "warnings": warnings,
        "flags": flags,
        "token_source": sources,
        "approximate_tokens": approximate,
        "tokens_per_chunk": per_chunk,
        "output_tokens_mean": stats.mean([m.n for m in metrics]) if metrics else None,
        "early_eos": len(early),
        "prompt_tokens_check": prompt_check,
        "achieved_concurrency": stats.mean(achieved) if achieved else None,
        "send_lag_ms_p99": max((s["send_lag_ms_p99"] for s in repeat_summaries), default=None),
        "loop_lag_ms_p99": max((s["loop_lag_ms_p99"] for s in repeat_summaries), default=None),
        "repeats": repeats,
    }


def _drift(ok: list[RequestRecord]) -> str | None:
    """Did per-token speed change between the first and second half of the level (by send order)?"""
    ordered = sorted(ok, key=lambda r: r.intended)
    tpots = [m.tpot for m in (RequestMetrics(r) for r in ordered) if m.tpot is not None]
    if len(tpots) < 16:
        return None
    half = len(tpots) // 2
    first, second = tpots[:half], tpots[half:]
    _, p = stats.mann_whitney_u(first, second)
    m1, m2 = stats.mean(first), stats.mean(second)
    if m1 and p < 0.01 and abs(m2 - m1) / m1 >= 0.05:
        return (
            f"per-token speed changed during the level: TPOT {m1:.2f} → {m2:.2f} ms between its halves "
            f"(p={p:.3g}); warm-up incomplete or server state changing"
        )
    return None


def per_request_rows(records: list[RequestRecord]) -> list[tuple[float | None, float, float, int, int]]:
    """(tpot_ms, ttft_ms, e2e_ms, n, ok) per request, for the history store."""
    rows = []
    for record in records:
        if record.ok:
            m = RequestMetrics(record)
            rows.append((m.tpot, m.ttft, m.e2e, m.n, 1))
        else:
            rows.append((None, 0.0, (record.finish - record.intended) * 1000.0, 0, 0))
    return rows
