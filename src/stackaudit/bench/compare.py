"""`bench compare A B`: is the difference beyond noise, and what differed that could explain it.

The test is on per-request distributions (Mann-Whitney U on TPOT and TTFT, no normality
assumed), not on two means. A change is called real only when it is significant (p < 0.05)
*and* at least max(3 %, the 95 % confidence half-width of the runs): a significant 0.5 %
shift is noise for a benchmark. Then every recorded difference between the runs that could
explain a change is listed by name — warm-up state, seed and sampling, lengths and early EOS,
token source, validity, server version and flags, host fingerprint values — so that a jump
like 38 → 66 tok/s is explained before it is celebrated.
"""

from __future__ import annotations

from typing import Any

from stackaudit.bench import BENCH_SCHEMA, stats
from stackaudit.bench.history import RequestRow, StoredRun

SIGNIFICANCE = 0.05
MIN_RELATIVE_CHANGE = 0.03


def _level_key(level: dict[str, Any]) -> str:
    if level.get("concurrency") is not None:
        return f"c={level['concurrency']}"
    return f"r={level['request_rate']:g}"


def _relative_half_width(level: dict[str, Any], metric: str) -> float | None:
    block = (level.get("repeats") or {}).get(metric) or {}
    half, mean = block.get("ci95_half_width"), block.get("mean")
    if half is None or not mean:
        return None
    return abs(float(half) / float(mean))


def assess_metric(
    name: str, a: list[float], b: list[float], level_a: dict[str, Any], level_b: dict[str, Any], repeat_metric: str
) -> dict[str, Any]:
    """Verdict on one per-request metric: real, within noise, or not enough data."""
    if len(a) < 5 or len(b) < 5:
        return {"metric": name, "verdict": "not enough data", "n_a": len(a), "n_b": len(b)}
    mean_a, mean_b = stats.mean(a), stats.mean(b)
    change = (mean_b - mean_a) / mean_a if mean_a else 0.0
    _, p = stats.mann_whitney_u(a, b)
    widths = [w for w in (
        _relative_half_width(level_a, repeat_metric),
        _relative_half_width(level_b, repeat_metric),
        stats.relative_difference_ci95(a, b),
    ) if w is not None]
    threshold = max([MIN_RELATIVE_CHANGE, *widths])
    significant = p < SIGNIFICANCE
    real = significant and abs(change) >= threshold
    if real:
        verdict = "real"
    elif significant:
        verdict = f"within noise (significant but under the {threshold:.1%} threshold)"
    else:
        verdict = "within noise"
    return {
        "metric": name,
        "mean_a": mean_a,
        "mean_b": mean_b,
        "p50_a": stats.percentile(sorted(a), 50),
        "p50_b": stats.percentile(sorted(b), 50),
        "change": change,
        "p_value": p,
        "threshold": threshold,
        "verdict": verdict,
        "real": real,
        "n_a": len(a),
        "n_b": len(b),
    }


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flat(f"{prefix}.{key}" if prefix else str(key), inner, out)
    else:
        out[prefix] = value


def _differences(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Recorded differences that could explain a change, each with its category."""
    found: list[dict[str, Any]] = []

    def add(category: str, name: str, value_a: Any, value_b: Any) -> None:
        if value_a != value_b:
            found.append({"category": category, "name": name, "a": value_a, "b": value_b})

    wa, wb = a.get("warmup") or {}, b.get("warmup") or {}
    add("warm-up", "warm-up mode", wa.get("mode"), wb.get("mode"))
    add("warm-up", "warm-up requests", wa.get("requests"), wb.get("requests"))
    add("warm-up", "server found cold", wa.get("cold"), wb.get("cold"))
    add("warm-up", "warm-up converged", wa.get("converged"), wb.get("converged"))
    ca, cb = a.get("config", {}), b.get("config", {})
    add("seed/sampling", "seed", ca.get("seed"), cb.get("seed"))
    add("seed/sampling", "temperature", ca.get("temperature"), cb.get("temperature"))
    sa, sb = a.get("server", {}), b.get("server", {})
    sampling_a: dict[str, Any] = {}
    sampling_b: dict[str, Any] = {}
    _flat("", sa.get("sampling") or {}, sampling_a)
    _flat("", sb.get("sampling") or {}, sampling_b)
    for key in sorted(set(sampling_a) | set(sampling_b)):
        if key not in ("seed", "temperature"):
            add("seed/sampling", f"sampling {key}", sampling_a.get(key), sampling_b.get(key))
    add("seed/sampling", "EOS suppression", ca.get("eos_suppression"), cb.get("eos_suppression"))
    add("lengths", "input tokens asked", ca.get("input_tokens"), cb.get("input_tokens"))
    add("lengths", "output tokens asked", ca.get("output_tokens"), cb.get("output_tokens"))
    add("lengths", "prompt token source", ca.get("prompt_tokens_source"), cb.get("prompt_tokens_source"))
    add("lengths", "endpoint", ca.get("endpoint"), cb.get("endpoint"))
    add("server", "url", sa.get("url"), sb.get("url"))
    add("server", "model", sa.get("model_used"), sb.get("model_used"))
    add("server", "server type", sa.get("server_type"), sb.get("server_type"))
    add("server", "server version", sa.get("server_version"), sb.get("server_version"))
    fa, fb = sa.get("flags") or {}, sb.get("flags") or {}
    for key in sorted(set(fa) | set(fb)):
        add("server", f"server flag {key}", fa.get(key), fb.get(key))
    ha = (a.get("host") or {}).get("fingerprint")
    hb = (b.get("host") or {}).get("fingerprint")
    if ha is None or hb is None:
        if (ha is None) != (hb is None):
            add("host", "host fingerprint", "present" if ha else "none (remote)", "present" if hb else "none (remote)")
    else:
        for key in sorted(set(ha) | set(hb)):
            add("host", key, ha.get(key), hb.get(key))
    add("client", "stackaudit version", (a.get("tool") or {}).get("version"), (b.get("tool") or {}).get("version"))
    return found


# How likely each category is to explain a change, most likely first (anchors-bench.md §4.5, §4.6).
_CATEGORY_ORDER = ("warm-up", "seed/sampling", "lengths", "tokens", "validity", "server", "host", "client")


def _level_differences(level_a: dict[str, Any], level_b: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def add(category: str, name: str, value_a: Any, value_b: Any) -> None:
        if value_a != value_b:
            found.append({"category": category, "name": name, "a": value_a, "b": value_b})

    add("tokens", "token source", level_a.get("token_source"), level_b.get("token_source"))
    add("lengths", "requests that stopped early (EOS)", level_a.get("early_eos"), level_b.get("early_eos"))
    mean_a, mean_b = level_a.get("output_tokens_mean"), level_b.get("output_tokens_mean")
    if mean_a and mean_b and abs(mean_a - mean_b) / mean_a > 0.02:
        add("lengths", "mean output tokens", round(mean_a, 1), round(mean_b, 1))
    add("validity", "valid", level_a.get("valid"), level_b.get("valid"))
    drift_a = any("changed during the level" in f for f in level_a.get("flags", []))
    drift_b = any("changed during the level" in f for f in level_b.get("flags", []))
    add("warm-up", "speed drifting during the level", drift_a, drift_b)
    return found


def compare_runs(
    run_a: StoredRun, rows_a: list[RequestRow], run_b: StoredRun, rows_b: list[RequestRow]
) -> dict[str, Any]:
    a, b = run_a.result, run_b.result
    levels_a = {_level_key(lv): lv for lv in a.get("levels", [])}
    levels_b = {_level_key(lv): lv for lv in b.get("levels", [])}
    common = [key for key in levels_a if key in levels_b]
    run_differences = _differences(a, b)
    levels = []
    for key in common:
        la, lb = levels_a[key], levels_b[key]

        def values(rows: list[RequestRow], field: str, key: str = key) -> list[float]:
            return [getattr(r, field) for r in rows if r.level == key and r.ok and getattr(r, field) is not None]

        tests = [
            assess_metric("tpot_ms", values(rows_a, "tpot_ms"), values(rows_b, "tpot_ms"), la, lb, "tpot_ms"),
            assess_metric("ttft_ms", values(rows_a, "ttft_ms"), values(rows_b, "ttft_ms"), la, lb, "ttft_ms"),
        ]
        throughput_a, throughput_b = la.get("output_tokens_per_s") or 0.0, lb.get("output_tokens_per_s") or 0.0
        level_diffs = _level_differences(la, lb)
        real = any(t.get("real") for t in tests)
        causes = sorted(level_diffs + run_differences, key=lambda d: _CATEGORY_ORDER.index(d["category"]))
        levels.append(
            {
                "level": key,
                "output_tokens_per_s_a": throughput_a,
                "output_tokens_per_s_b": throughput_b,
                "output_tokens_per_s_change": (throughput_b - throughput_a) / throughput_a if throughput_a else None,
                "tests": tests,
                "real": real,
                "verdict": _verdict(real, tests, causes),
                "likely_causes": causes if real else [],
            }
        )
    return {
        "schema": BENCH_SCHEMA,
        "kind": "stackaudit.bench.compare",
        "a": {"run_id": run_a.id, "started": run_a.started, "label": run_a.label},
        "b": {"run_id": run_b.id, "started": run_b.started, "label": run_b.label},
        "levels": levels,
        "levels_only_in_a": [k for k in levels_a if k not in levels_b],
        "levels_only_in_b": [k for k in levels_b if k not in levels_a],
        "differences": run_differences,
    }


def _verdict(real: bool, tests: list[dict[str, Any]], causes: list[dict[str, Any]]) -> str:
    if not real:
        if all(t.get("verdict") == "not enough data" for t in tests):
            return "not enough data to tell"
        return "within noise"
    if not causes:
        return "real; no recorded difference explains it (check GPU clocks, power, other tenants)"
    categories = []
    for cause in causes:
        if cause["category"] not in categories:
            categories.append(cause["category"])
    return "real, but the runs differ in " + ", ".join(categories) + ": not comparable as they stand"
