"""The headline's ceiling line: what the served model could reach on these GPUs (issue 4)."""

from __future__ import annotations

from typing import Any


def ceiling_line(facts: dict[str, Any]) -> str | None:
    """'~80 tok/s per stream at concurrency 1 (bandwidth-bound) …', or None when unknown."""
    from stackaudit.facts.nvidia import NvidiaGpus
    from stackaudit.facts.serving_model import ServingModel

    served = facts.get("serving_model")
    gpus = facts.get("nvidia")
    if not isinstance(served, ServingModel) or not isinstance(gpus, NvidiaGpus) or not gpus.gpus:
        return None
    spec = next((g.spec for g in gpus.gpus if g.spec is not None), None)
    if spec is None:
        return None
    from stackaudit.ceiling import compute
    from stackaudit.errors import StackauditError

    weights = served.quantization if served.quantization in ("fp8", "int8", "nvfp4", "mxfp4") else None
    try:
        report = compute(served.config, spec, gpus=served.tp, tp=served.tp, weights=weights,
                         kv_dtype=served.kv_cache_dtype if served.kv_cache_dtype not in (None, "auto") else None,
                         concurrencies=[1])
    except (StackauditError, ValueError, KeyError, ZeroDivisionError):
        return None
    level = report.levels[0]
    # The "overhead" rung is cumulative: bandwidth + all-reduce + per-layer launch floor with CUDA graphs.
    rung = level.ceiling("overhead")
    return (f"~{rung.tokens_per_s:.0f} tok/s per stream at concurrency 1 (binding: {level.binding}) for "
            f"{served.model} on {served.tp}× {spec.name}, TP {served.tp}; `stackaudit ceiling` for the ladder")
