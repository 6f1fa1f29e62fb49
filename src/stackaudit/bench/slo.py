"""`--goodput` (service-level objectives) and `--percentiles`: parsing and the per-level figures.

Kept free of aiohttp so that the CLI can check the flags before anything loads.

Goodput follows `vllm bench serve --goodput` (a request is good when each named latency is at
most its objective, in ms) but is reported as the share of all requests sent that were good
(a failed request is not) and as the output tokens of good requests per second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.bench import stats
from stackaudit.errors import UsageError

# Objective names; `e2el` is vLLM's spelling of e2e.
SLO_NAMES = {"ttft": "ttft", "tpot": "tpot", "e2e": "e2e", "e2el": "e2e"}
DEFAULT_PERCENTILES = (50.0, 90.0, 99.0)


def parse_goodput(text: str) -> dict[str, float]:
    """`ttft:200,tpot:50,e2e:5000` → {"ttft": 200.0, "tpot": 50.0, "e2e": 5000.0} (ms)."""
    objectives: dict[str, float] = {}
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        name, sep, value = part.partition(":")
        key = SLO_NAMES.get(name.lower())
        try:
            number = float(value) if sep else -1.0
        except ValueError:
            number = -1.0
        if key is None or number < 0:
            raise UsageError(f"--goodput takes ttft:MS,tpot:MS,e2e:MS (any of them), got {text!r}")
        objectives[key] = number
    if not objectives:
        raise UsageError(f"--goodput takes ttft:MS,tpot:MS,e2e:MS (any of them), got {text!r}")
    return objectives


def parse_percentiles(text: str) -> list[float]:
    """`50,90,99.9` → [50.0, 90.0, 99.9]; each in (0, 100]."""
    try:
        values = [float(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise UsageError(f"--percentiles takes a comma list of numbers, e.g. 50,90,99.9; got {text!r}") from None
    if not values or min(values) <= 0 or max(values) > 100:
        raise UsageError(f"--percentiles takes numbers above 0 and at most 100, got {text!r}")
    return sorted(set(values))


def percentile_key(q: float) -> str:
    """p99, p99.9: the spelling of `vllm bench serve` (an integer percentile without decimals)."""
    return f"p{int(q)}" if float(q).is_integer() else f"p{q:g}"


def percentile_block(values: Sequence[float], qs: Sequence[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {percentile_key(q): (stats.percentile(ordered, q) if ordered else None) for q in qs}


@dataclass
class RequestLatency:
    """What goodput judges of one request; tpot None where it has no second token."""

    ok: bool
    ttft_ms: float
    tpot_ms: float | None
    e2e_ms: float
    output_tokens: int


def meets(request: RequestLatency, objectives: dict[str, float]) -> bool:
    if not request.ok:
        return False
    for name, limit in objectives.items():
        if name == "ttft" and request.ttft_ms > limit:
            return False
        if name == "e2e" and request.e2e_ms > limit:
            return False
        # A one-token answer has no TPOT: nothing to miss (vLLM counts it as 0).
        if name == "tpot" and request.tpot_ms is not None and request.tpot_ms > limit:
            return False
    return True


def goodput(requests: Sequence[RequestLatency], objectives: dict[str, float], span_s: float) -> dict[str, object]:
    """Share of requests meeting every objective, and their requests and output tokens per second."""
    good = [r for r in requests if meets(r, objectives)]
    span = span_s if span_s > 0 else float("nan")
    return {
        "objectives_ms": dict(objectives),
        "good": len(good),
        "requests": len(requests),
        "share": len(good) / len(requests) if requests else None,
        "requests_per_s": len(good) / span if good else 0.0,
        "output_tokens_per_s": sum(r.output_tokens for r in good) / span if good else 0.0,
    }
