"""The headline's ceiling line: what the served model could reach on these GPUs (issue 4), and how a
measured decode rate (`audit --measured TOKS`) compares with it (issue 10)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HeadlineCeiling:
    """The ceiling line and its figure, or why there is none (`missing`)."""

    line: str | None
    tokens_per_s: float | None
    missing: str = ""


def headline_ceiling(facts: dict[str, Any]) -> HeadlineCeiling:
    """The served model's single-stream decode ceiling on the source's GPUs, or the reason it is unknown."""
    from stackaudit.facts.nvidia import NvidiaGpus
    from stackaudit.facts.serving_model import ServingModel

    served = facts.get("serving_model")
    gpus = facts.get("nvidia")
    if not isinstance(served, ServingModel):
        reason = getattr(served, "reason", "") or "the source shows no served model"
        return HeadlineCeiling(None, None, reason)
    if not isinstance(gpus, NvidiaGpus) or not gpus.gpus:
        return HeadlineCeiling(None, None, "the source shows no NVIDIA GPU")
    spec = next((g.spec for g in gpus.gpus if g.spec is not None), None)
    if spec is None:
        return HeadlineCeiling(None, None, "the GPU model is not in stackaudit's GPU table")
    from stackaudit.ceiling import compute
    from stackaudit.errors import StackauditError

    weights = served.quantization if served.quantization in ("fp8", "int8", "nvfp4", "mxfp4") else None
    try:
        report = compute(served.config, spec, gpus=served.tp, tp=served.tp, weights=weights,
                         kv_dtype=served.kv_cache_dtype if served.kv_cache_dtype not in (None, "auto") else None,
                         concurrencies=[1])
    except (StackauditError, ValueError, KeyError, ZeroDivisionError) as exc:
        return HeadlineCeiling(None, None, f"the ceiling model cannot price {served.model}: {exc}")
    level = report.levels[0]
    # The "overhead" rung is cumulative: bandwidth + all-reduce + per-layer launch floor with CUDA graphs.
    rung = level.ceiling("overhead")
    line = (f"~{rung.tokens_per_s:.0f} tok/s per stream at concurrency 1 (binding: {level.binding}) for "
            f"{served.model} on {served.tp}× {spec.name}, TP {served.tp}; `stackaudit ceiling` for the ladder")
    return HeadlineCeiling(line, rung.tokens_per_s)


def ceiling_line(facts: dict[str, Any]) -> str | None:
    """'~80 tok/s per stream at concurrency 1 (binding: …) …', or None when unknown."""
    return headline_ceiling(facts).line


def ceiling_fields(facts: dict[str, Any]) -> dict[str, Any]:
    """The report's `host` keys: `ceiling` (the line or null), and `ceiling_tok_s` when there is one or
    `ceiling_missing` (why not) when there is none — what `audit --measured` compares with."""
    ceiling = headline_ceiling(facts)
    if ceiling.line is None:
        return {"ceiling": None, "ceiling_missing": ceiling.missing}
    return {"ceiling": ceiling.line, "ceiling_tok_s": round(float(ceiling.tokens_per_s or 0.0), 2)}


def parse_measured(text: str) -> float:
    """`--measured TOKS`: a positive, finite decode rate in tokens/s per stream; ValueError otherwise."""
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(f"--measured {text!r}: give the measured decode rate in tokens/s per stream, "
                         "a number such as 41.5") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"--measured {text!r}: the decode rate must be a positive number of tokens/s")
    return value


def measured_vs_ceiling(tokens_per_s: float, host: Mapping[str, Any]) -> dict[str, Any]:
    """The report's `host.measured`: the measured rate, the ceiling's, the percentage, and the line shown."""
    ceiling = host.get("ceiling_tok_s")
    if not isinstance(ceiling, (int, float)) or ceiling <= 0:
        why = host.get("ceiling_missing") or "the source shows no served model and GPUs"
        line = f"Measured: {tokens_per_s:g} tok/s per stream; no ceiling: {why}"
        return {"decode_tok_s": tokens_per_s, "ceiling_tok_s": None, "percent_of_ceiling": None, "line": line}
    percent = round(100.0 * tokens_per_s / float(ceiling), 1)
    line = f"Measured: {tokens_per_s:g} tok/s per stream = {percent:g} % of the ceiling (~{float(ceiling):.0f} tok/s)"
    if percent > 100:
        line += "; above the ceiling: the model, GPUs or TP measured are not the ones the source shows"
    else:
        line += "; `stackaudit ceiling --measured` lists what would close the gap"
    return {"decode_tok_s": tokens_per_s, "ceiling_tok_s": float(ceiling), "percent_of_ceiling": percent,
            "line": line}
