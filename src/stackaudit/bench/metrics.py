"""Per-level metrics, each with the formula the report prints next to it.

n is a request's output token count: the server's `usage.completion_tokens` when it sends
one; else the generated text re-counted by a local tokenizer (`--tokenizer`) or by the
server's own tokenize endpoint, after the level; else the number of content chunks — which
is n only while every chunk holds one token. Speculative decoding, TensorRT-LLM and some
llama.cpp builds send several tokens per chunk without usage: counting chunks there read
1 024 tokens instead of 4 096 and TPOT +300 %. Such chunks are detected from the text (more
words than a token can hold) and from a `finish_reason: length` reached with fewer chunks
than the tokens asked; TPOT and throughput are then "tokens per chunk unknown" and the
level invalid. The requested length is never assumed (SGLang's fallback, which credits a
server that stopped early with the full length).
"""

from __future__ import annotations

import math
from typing import Any

from stackaudit.bench import selfcheck, slo, stats
from stackaudit.bench.client import RequestRecord
from stackaudit.bench.loadgen import LevelRun
from stackaudit.bench.workload import length_distribution

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
    "achieved_concurrency": (
        "achieved concurrency = time-averaged requests in flight (sent until fully read), from when the first "
        "wave is out while requests were still being issued"
    ),
    "n": (
        "n = usage.completion_tokens, else the text re-counted by --tokenizer or the server's tokenize endpoint, "
        "else content chunks (approximate; unknown where chunks carry several tokens)"
    ),
    "early_eos": "early EOS = finish_reason 'stop' before the requested number of tokens",
    "error_rate": "error rate = failed requests / requests sent, per level (HTTP 5xx and 429 counted by kind)",
    "connect_in_ttft": "connect in TTFT = requests that opened a TCP connection after their intended send time",
    "goodput": (
        "goodput (--goodput) = share of the requests sent whose TTFT, TPOT and E2E are each at most its objective "
        "(a failed request misses); goodput tok/s = Σ n of those requests / level time"
    ),
}

# Validity thresholds.
MIN_CONCURRENCY_FRACTION = 0.95
HIGH_CV = 0.10
EARLY_EOS_INVALID_FRACTION = 0.5  # "most requests stopped early"
UNKNOWN = "tokens per chunk unknown"


class RequestMetrics:
    """Per-request derived values in milliseconds."""

    __slots__ = ("e2e", "gaps", "known", "n", "send_lag", "tokens_per_chunk", "tpot", "ttft")

    def __init__(self, record: RequestRecord) -> None:
        first = record.first if record.first is not None else record.finish
        self.ttft = (first - record.intended) * 1000.0
        self.e2e = (record.finish - record.intended) * 1000.0
        self.send_lag = max(0.0, (record.sent - record.intended) * 1000.0)
        n = record.output_tokens if record.output_tokens is not None else record.n_chunks
        self.n = n
        self.known = record.tokens_per_chunk_known  # False: n is a chunk count, below the real tokens
        chunks = max(record.n_chunks, 1)
        if record.per_chunk_tokens:
            first_tokens: float = record.per_chunk_tokens[0]
        elif n > chunks:
            first_tokens = n / chunks  # several tokens per chunk: the first chunk holds about this many
        else:
            first_tokens = 1.0
        self.tokens_per_chunk = n / chunks if record.n_chunks else math.nan
        decode_tokens = n - first_tokens
        if self.known and record.first is not None and decode_tokens > 0 and len(record.chunk_times) > 1:
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


def prompt_length(record: RequestRecord) -> int | None:
    """Prompt tokens of a request: the server's usage, else the count the prompt was sized to."""
    return record.prompt_tokens if record.prompt_tokens is not None else record.prompt_tokens_target


def _in_flight_average(records: list[RequestRecord], window_start: float, window_end: float) -> float | None:
    span = window_end - window_start
    if span <= 0:
        return None
    busy = 0.0
    for record in records:
        begin = max(record.sent, window_start)
        # In flight until the response is fully read: the slot is not free before that.
        end = min(max(record.ended, record.finish), window_end)
        if end > begin:
            busy += end - begin
    return busy / span


def summarize_repeat(run: LevelRun) -> dict[str, Any]:
    """Figures of one repeat of one level; validity judged here, from the client's own readings."""
    ok = [r for r in run.records if r.ok]
    metrics = [RequestMetrics(r) for r in ok]
    last = max((r.finish for r in run.records), default=run.end)
    first_intended = min((r.intended for r in run.records), default=run.start)
    span = max(last - first_intended, 1e-9)
    known = all(m.known for m in metrics)
    tokens = sum(m.n for m in metrics) if known else None
    chunks = sum(r.n_chunks for r in ok)
    tpots = [m.tpot for m in metrics if m.tpot is not None]
    ttfts = sorted(m.ttft for m in metrics)
    lags = sorted(m.send_lag for m in [RequestMetrics(r) for r in run.records])
    window_end = run.issue_end if run.issue_end - run.start > 0.2 * (last - run.start) else last
    window_start = run.start
    if run.mode == "concurrency" and len(run.records) > int(run.target):
        # From when the first wave is out: its stagger is the send lag, reported (and in TTFT) already.
        ramped = max(r.sent for r in run.records[: int(run.target)])
        if ramped < window_end:
            window_start = max(run.start, ramped)
    achieved = _in_flight_average(run.records, window_start, window_end)
    invalid: list[str] = []
    warnings: list[str] = []
    lag_p99 = stats.percentile(lags, 99) if lags else 0.0
    ttft_p50 = stats.percentile(ttfts, 50) if ttfts else 0.0
    if run.mode == "concurrency" and achieved is not None and achieved < MIN_CONCURRENCY_FRACTION * run.target:
        invalid.append(
            f"achieved concurrency {achieved:.1f} below the target {run.target:g} (client or connection limit)"
        )
    if lag_p99 > max(10.0, 0.1 * ttft_p50):
        invalid.append(f"client send lag p99 {lag_p99:.1f} ms: requests left late (client CPU or connection limits)")
    chunk_rate = chunks / span
    reads = sum(r.reads for r in ok)
    events_per_read = sum(r.events for r in ok) / reads if reads else None
    loop_p99 = stats.percentile(sorted(run.loop_lag_ms), 99) if run.loop_lag_ms else 0.0
    loop_p50 = stats.percentile(sorted(run.loop_lag_ms), 50) if run.loop_lag_ms else 0.0
    if run.loop_lag_ms:
        gaps = [g for m in metrics for g in m.gaps if g > 0]
        gap_p50 = stats.percentile(sorted(gaps), 50) if gaps else math.inf
        if loop_p99 > max(5.0, 0.1 * gap_p50):
            warnings.append(f"client event-loop lag p99 {loop_p99:.1f} ms: chunk times may be late by that much")
    usage = run.usage
    if usage is not None:
        for note in (
            selfcheck.host_busy(usage),
            selfcheck.client_bound(usage, events_per_read),
            selfcheck.ttft_queueing(usage, ttft_p50, ttfts[0], loop_p50) if ttfts else None,
        ):
            if note:
                warnings.append(note)
    connects = [r.connect_ms for r in run.records if r.connect_ms is not None]
    return {
        "target": run.target,
        "requests": len(run.records),
        "errors": len(run.records) - len(ok),
        "duration_s": span,
        "output_tokens": tokens,
        "output_tokens_per_s": tokens / span if tokens is not None else None,
        "requests_per_s": len(ok) / span,
        "tpot_ms_mean": stats.mean(tpots) if tpots else None,
        "ttft_ms_mean": stats.mean(ttfts) if ttfts else None,
        "achieved_concurrency": achieved,
        "send_lag_ms_p99": lag_p99,
        "loop_lag_ms_p99": loop_p99,
        "chunks_per_s": chunk_rate,
        "events_per_read": events_per_read,
        "client_cpu_share": usage.cpu_share if usage is not None else None,
        "client_cpu_wait_ms": usage.wait_ms if usage is not None else None,
        "connects_in_ttft": len(connects),
        "connect_ms_sum": sum(connects),
        "invalid": invalid,
        "warnings": warnings,
    }


def error_kind(record: RequestRecord) -> str:
    """The kind of a failed request: redirect, HTTP 429, HTTP 5xx, other HTTP, timeout, connection, stream."""
    error = record.error or ""
    if error.startswith("redirect"):
        return "redirect"  # to another origin, refused (bench/client.py)
    if record.status == 429:
        return "HTTP 429"
    if record.status is not None and 500 <= record.status <= 599:
        return "HTTP 5xx"
    if record.status is not None and record.status != 200:
        return "HTTP other"
    if error.startswith("timeout"):
        return "timeout"
    if error.startswith(("connection", "client error")):
        return "connection"
    return "stream"


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
    objectives: dict[str, float] | None = None,
    percentiles: list[float] | None = None,
) -> dict[str, Any]:
    """The level entry of the report: pooled distributions, repeat statistics, validity, flags.

    `objectives`: `--goodput` (ms per metric); `percentiles`: `--percentiles`, reported apart
    from the fixed mean/p50/p90/p99 of each distribution.
    """
    records = [r for run in runs for r in run.records]
    ok = [r for r in records if r.ok]
    metrics = [RequestMetrics(r) for r in ok]
    tpots = [m.tpot for m in metrics if m.tpot is not None]
    total_span = sum(s["duration_s"] for s in repeat_summaries)
    unknown = [r for r in ok if not r.tokens_per_chunk_known]
    aggregate: float | None = None
    if not unknown:
        total_tokens = sum(s["output_tokens"] or 0 for s in repeat_summaries)
        aggregate = total_tokens / total_span if total_span > 0 else 0.0
    tpot_dist = stats.distribution(tpots)
    per_stream = 1000.0 / tpot_dist["mean"] if tpot_dist["mean"] else None
    sources = sorted({r.token_source for r in ok})
    approximate = any(r.approximate for r in ok)
    flags: list[str] = []
    invalid = sorted({reason for s in repeat_summaries for reason in s["invalid"]})
    warnings = sorted({w for s in repeat_summaries for w in s["warnings"]})
    if unknown:
        invalid.append(
            f"{UNKNOWN}: {len(unknown)} of {len(ok)} responses carry several tokens in some chunks and neither usage "
            "nor a tokenizer counted them; TPOT and throughput not measured (give --tokenizer, or ask the server for usage)"
        )
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
    if unknown:
        per_chunk = {"mean": None, "p50": None, "p90": None, "p99": None, "max": None, "source": UNKNOWN}  # type: ignore[dict-item]
    elif multi_token:
        flags.append(
            f"chunks carry several tokens (mean {per_chunk['mean']:.2f} per chunk): ITL is per chunk, not per "
            "token; TPOT divides by tokens"
        )
    if approximate and not unknown:
        flags.append(
            "token counts approximate: the server sent no usage ("
            + ", ".join(s for s in sources if s != "usage")
            + "); throughput and TPOT rest on them"
        )
    # Early EOS is what the server says (finish_reason "stop"), never inferred from a short count:
    # a short count with finish_reason "length" is a counting problem, handled above.
    early = [
        r for r, m in zip(ok, metrics, strict=True)
        if r.finish_reason == "stop" and r.max_tokens and (not m.known or m.n < r.max_tokens)
    ]
    if early:
        counted = "" if unknown else f" (mean {stats.mean([RequestMetrics(r).n for r in early]):.0f} tokens)"
        flags.append(
            f"early EOS: {len(early)} of {len(ok)} requests stopped (finish_reason 'stop') before the "
            f"{ok[0].max_tokens} tokens asked{counted}"
        )
        if len(early) > EARLY_EOS_INVALID_FRACTION * len(ok):
            invalid.append(
                f"most requests stopped early: {len(early)} of {len(ok)} ended at EOS before the length asked, so the "
                "level measured shorter outputs than configured (suppress EOS, or check the prompt and model)"
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
        "output_tokens_per_s": stats.mean_ci95(
            [s["output_tokens_per_s"] for s in repeat_summaries if s["output_tokens_per_s"] is not None]
        ),
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
    kinds: dict[str, int] = {}
    for record in records:
        if not record.ok:
            kind = error_kind(record)
            kinds[kind] = kinds.get(kind, 0) + 1
    error_rate = errors / len(records) if records else 0.0
    if errors:
        flags.append(
            f"errors: {errors} of {len(records)} requests failed ({error_rate:.0%}: "
            + ", ".join(f"{kind} ×{count}" for kind, count in sorted(kinds.items()))
            + "); latencies and throughput are those of the successful requests"
        )
    closes = sum(1 for r in records if r.server_closes)
    connects = sum(s["connects_in_ttft"] for s in repeat_summaries)
    connect_sum = sum(s["connect_ms_sum"] for s in repeat_summaries)
    connections = {
        "server_closes": closes,
        "connects_in_ttft": connects,
        "connect_ms_mean": connect_sum / connects if connects else None,
        "spare_used": sum(1 for r in records if r.connection == "spare"),
    }
    if closes:
        flags.append(
            f"server closes connections: {closes} of {len(records)} responses said 'Connection: close'; "
            f"{connects} requests paid a TCP connect inside TTFT"
            + (f", mean {connect_sum / connects:.2f} ms" if connects else "")
            + f"; {connections['spare_used']} used a connection opened during an earlier stream"
        )
    elif connects:
        flags.append(
            f"{connects} of {len(records)} requests paid a TCP connect inside TTFT, mean {connect_sum / connects:.2f} ms "
            "(no kept-alive connection was free for them)"
        )
    shares = [s["client_cpu_share"] for s in repeat_summaries if s["client_cpu_share"] is not None]
    waits = [s["client_cpu_wait_ms"] for s in repeat_summaries if s["client_cpu_wait_ms"] is not None]
    per_read = [s["events_per_read"] for s in repeat_summaries if s["events_per_read"] is not None]
    client = {
        "cpu_share_max": max(shares) if shares else None,
        "cpu_wait_ms": sum(waits) if waits else None,
        # Share of the level the client spent runnable but off a CPU: its timings cannot resolve less.
        "cpu_wait_share": (sum(waits) / 1000.0 / total_span) if waits and total_span > 0 else None,
        "events_per_read": stats.mean(per_read) if per_read else None,
    }
    qs = list(percentiles or slo.DEFAULT_PERCENTILES)
    samples = {
        "ttft_ms": [m.ttft for m in metrics],
        "tpot_ms": tpots,
        "itl_ms": [g for m in metrics for g in m.gaps],
        "e2e_ms": [m.e2e for m in metrics],
    }
    judged = None
    if objectives:
        latencies = [
            slo.RequestLatency(True, m.ttft, m.tpot, m.e2e, m.n) if r.ok else slo.RequestLatency(False, 0.0, None, 0.0, 0)
            for r, m in ((r, RequestMetrics(r)) for r in records)
        ]
        judged = slo.goodput(latencies, objectives, total_span)
    return {
        "concurrency": int(target) if mode == "concurrency" else None,
        "request_rate": target if mode == "rate" else None,
        "duration_s": total_span,
        "percentiles": {name: slo.percentile_block(values, qs) for name, values in samples.items()},
        "goodput": judged,
        "lengths": {
            "input_tokens": length_distribution([n for n in (prompt_length(r) for r in ok) if n is not None]),
            "output_tokens": length_distribution([m.n for m in metrics]) if not unknown else length_distribution([]),
        },
        "ttft_ms": stats.distribution([m.ttft for m in metrics]),
        "tpot_ms": tpot_dist,
        "itl_ms": stats.distribution([g for m in metrics for g in m.gaps]),
        "e2e_ms": stats.distribution([m.e2e for m in metrics]),
        "output_tokens_per_s": aggregate,
        "output_tokens_per_s_per_stream": per_stream,
        "requests_per_s": (len(ok) / total_span) if total_span > 0 else 0.0,
        "requests": len(records),
        "errors": errors,
        "error_rate": error_rate,
        "error_kinds": kinds,
        "error_reasons": _error_reasons(records),
        "valid": not invalid,
        "invalid_reasons": invalid,
        "warnings": warnings,
        "flags": flags,
        "token_source": sources,
        "approximate_tokens": approximate,
        "tokens_per_chunk": per_chunk,
        "output_tokens_mean": stats.mean([m.n for m in metrics]) if metrics and not unknown else None,
        "early_eos": len(early),
        "prompt_tokens_check": prompt_check,
        "achieved_concurrency": stats.mean(achieved) if achieved else None,
        "send_lag_ms_p99": max((s["send_lag_ms_p99"] for s in repeat_summaries), default=None),
        "loop_lag_ms_p99": max((s["loop_lag_ms_p99"] for s in repeat_summaries), default=None),
        "repeats": repeats,
        "connections": connections,
        "client": client,
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
