"""`bench compare A B`: is the difference beyond noise, and what differed that could explain it.

The test is on per-request distributions (Mann-Whitney U on TPOT and TTFT, no normality
assumed), not on two means. A change is called real only when it is significant (p < 0.05)
*and* its median moved beyond the noise of the runs themselves: the 95 % half-width of the
difference between their repeat medians (each run's repeats, `--repeats`, are its own measure
of how much a rerun moves), with a 3 % floor. A significant 0.5 % shift is noise for a benchmark, and so is a 5 %
one when the repeats of the same run spread by 8 %.

Then the recorded differences between the runs are listed, in two kinds. Configuration —
warm-up settings, seed and sampling, lengths, token source, server version and flags, and
the host's configuration facts (step 1's split, `split_fingerprint`) — makes two runs differ:
a change alongside one is "not comparable as it stands". Samples — what the host or server
happened to be doing (CPU pressure, a cold server, early EOS counts, validity) — are listed
apart: two runs of one machine are comparable when only samples moved (CPU pressure going
from 4.6 % to 25.5 % is not a different machine).

`--fail-on regression:PCT` turns a real regression of at least PCT % (TPOT or TTFT up,
throughput down) into exit status 1, for CI.
"""

from __future__ import annotations

import math
from typing import Any

from stackaudit.bench import BENCH_SCHEMA, stats
from stackaudit.bench.history import RequestRow, StoredRun
from stackaudit.bench.workload import describe_mode
from stackaudit.errors import UsageError

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


def repeat_noise(repeats_a: list[float], repeats_b: list[float]) -> float | None:
    """Relative 95 % half-width of B − A from the two runs' per-repeat values (None: < 2 each)."""
    if len(repeats_a) < 2 or len(repeats_b) < 2:
        return None
    mean_a = stats.mean(repeats_a)
    if not mean_a:
        return None
    spread = math.sqrt(stats.stdev(repeats_a) ** 2 / len(repeats_a) + stats.stdev(repeats_b) ** 2 / len(repeats_b))
    return abs(stats.t_critical_95(len(repeats_a) + len(repeats_b) - 2) * spread / mean_a)


def _host_busy(level: dict[str, Any]) -> bool:
    return any(str(w).startswith("host busy") for w in level.get("warnings") or [])


def _ttft_wait_floor(level: dict[str, Any]) -> float:
    """The client's CPU wait per request as a share of the level's median TTFT (0 when unknown)."""
    wait = (level.get("client") or {}).get("cpu_wait_ms")
    ttft = (level.get("ttft_ms") or {}).get("p50")
    requests = level.get("requests") or 0
    if not wait or not ttft or not requests:
        return 0.0
    return float(wait) / requests / float(ttft)


def _repeat_medians(rows: list[RequestRow], level: str, field: str) -> list[float]:
    by_repeat: dict[int, list[float]] = {}
    for row in rows:
        value = getattr(row, field)
        if row.level == level and row.ok and value is not None:
            by_repeat.setdefault(row.repeat, []).append(value)
    return [stats.percentile(sorted(values), 50) for _, values in sorted(by_repeat.items())]


def assess_metric(
    name: str, a: list[float], b: list[float], level_a: dict[str, Any], level_b: dict[str, Any], repeat_metric: str,
    noise: float | None = None,
) -> dict[str, Any]:
    """Verdict on one per-request metric: real, within noise, or not enough data.

    `noise`: the repeat spread of the difference (`repeat_noise`); without it, the runs'
    stored repeat half-widths stand in, and with one repeat each only the 3 % floor is left.
    For TTFT, a run whose client waited for a CPU cannot resolve a change smaller than its wait
    per request relative to its median TTFT: any first chunk may be stamped late by that much,
    and on a loaded host that moves TTFT from run to run more than three repeats show. (Spans,
    and so TPOT, move far less: both their ends are late alike.)
    """
    if len(a) < 5 or len(b) < 5:
        return {"metric": name, "verdict": "not enough data", "n_a": len(a), "n_b": len(b)}
    mean_a, mean_b = stats.mean(a), stats.mean(b)
    p50_a, p50_b = stats.percentile(sorted(a), 50), stats.percentile(sorted(b), 50)
    # The change of the medians: a few requests stamped late on a busy host move a mean, not a median.
    change = (p50_b - p50_a) / p50_a if p50_a else 0.0
    _, p = stats.mann_whitney_u(a, b)
    if noise is not None:
        widths = [noise]
        noise_source = "repeat spread"
    else:
        widths = [w for w in (_relative_half_width(level_a, repeat_metric), _relative_half_width(level_b, repeat_metric))
                  if w is not None]
        noise_source = "stored repeat CI" if widths else "3 % floor (one repeat per run: give --repeats 3)"
    held_up = max(_ttft_wait_floor(level_a), _ttft_wait_floor(level_b)) if name == "ttft_ms" else 0.0
    if held_up > max([MIN_RELATIVE_CHANGE, *widths]):
        noise_source = "client CPU wait (host busy)"
    threshold = max([MIN_RELATIVE_CHANGE, *widths, held_up])
    significant = p < SIGNIFICANCE
    busy = [run for run, level in (("A", level_a), ("B", level_b)) if _host_busy(level)]
    if name == "ttft_ms" and busy:
        # Every first chunk may be stamped late by the client's own wait for a CPU: the TTFT of
        # a busy host measures the host. TPOT (a span, both ends late alike) is still judged.
        return {
            "metric": name, "mean_a": mean_a, "mean_b": mean_b, "p50_a": p50_a, "p50_b": p50_b, "change": change,
            "p_value": p, "threshold": threshold, "noise_source": noise_source, "real": False, "n_a": len(a),
            "n_b": len(b),
            "verdict": f"not judged: host busy in run {' and '.join(busy)} (TTFT includes the client's wait for a CPU)",
        }
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
        "p50_a": p50_a,
        "p50_b": p50_b,
        "change": change,
        "p_value": p,
        "threshold": threshold,
        "noise_source": noise_source,
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


def split_host_fingerprint(fp: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(configuration, samples) of a stored host fingerprint, by the audit's own split."""
    try:
        from stackaudit.engine.fingerprint import split_fingerprint
    except ImportError:  # the audit part is not installed: every value counts as configuration
        return dict(fp), {}
    return split_fingerprint(fp)


def _differences(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Recorded differences between two runs, each with its category and kind (configuration or sample)."""
    found: list[dict[str, Any]] = []

    def add(category: str, name: str, value_a: Any, value_b: Any, kind: str = "configuration") -> None:
        if value_a != value_b:
            found.append({"category": category, "name": name, "a": value_a, "b": value_b, "kind": kind})

    wa, wb = a.get("warmup") or {}, b.get("warmup") or {}
    add("warm-up", "warm-up mode", wa.get("mode"), wb.get("mode"))
    add("warm-up", "warm-up requests", wa.get("requests"), wb.get("requests"))
    add("warm-up", "server found cold", wa.get("cold"), wb.get("cold"), "sample")
    add("warm-up", "warm-up converged", wa.get("converged"), wb.get("converged"), "sample")
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
    # Prompts and what a prefix cache can reuse (dataset, --prefix-tokens, --turns): a workload change.
    # Runs stored before workloads existed were all synthetic and cache-busting.
    default_mode = describe_mode(0, 1, None)
    add("lengths", "workload", ca.get("workload_mode", default_mode), cb.get("workload_mode", default_mode))
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
        config_a, samples_a = split_host_fingerprint(ha)
        config_b, samples_b = split_host_fingerprint(hb)
        for key in sorted(set(config_a) | set(config_b)):
            add("host", key, config_a.get(key), config_b.get(key))
        for key in sorted(set(samples_a) | set(samples_b)):
            add("host", key, samples_a.get(key), samples_b.get(key), "sample")
    add("client", "stackaudit version", (a.get("tool") or {}).get("version"), (b.get("tool") or {}).get("version"))
    return found


def _workload_of(result: dict[str, Any]) -> dict[str, Any]:
    """What a run asked of the server, as `bench compare` requires equal (defaults: runs stored before the key)."""
    config = result.get("config") or {}
    return {
        "endpoint": config.get("endpoint"),
        "input tokens": config.get("input_tokens"),
        "output tokens": config.get("output_tokens"),
        "dataset": config.get("dataset"),
        "prefix tokens": config.get("prefix_tokens") or 0,
        "turns": config.get("turns") or 1,
        "ignore EOS": config.get("ignore_eos", True),
    }


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)


def workload_mismatch(run_a: StoredRun, run_b: StoredRun) -> str | None:
    """One line naming how two runs' workloads differ, or None when they ran the same workload."""
    a, b = _workload_of(run_a.result), _workload_of(run_b.result)
    differing = [f"{name} {_shown(a[name])} vs {_shown(b[name])}" for name in a if a[name] != b[name]]
    if not differing:
        return None
    return f"runs {run_a.id} and {run_b.id} ran different workloads ({', '.join(differing)})"


# How likely each category is to explain a change, most likely first (anchors-bench.md §4.5, §4.6).
_CATEGORY_ORDER = ("warm-up", "seed/sampling", "lengths", "tokens", "validity", "server", "host", "client")


def _level_differences(level_a: dict[str, Any], level_b: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def add(category: str, name: str, value_a: Any, value_b: Any, kind: str = "sample") -> None:
        if value_a != value_b:
            found.append({"category": category, "name": name, "a": value_a, "b": value_b, "kind": kind})

    add("tokens", "token source", level_a.get("token_source"), level_b.get("token_source"), "configuration")
    add("lengths", "requests that stopped early (EOS)", level_a.get("early_eos"), level_b.get("early_eos"))
    mean_a, mean_b = level_a.get("output_tokens_mean"), level_b.get("output_tokens_mean")
    if mean_a and mean_b and abs(mean_a - mean_b) / mean_a > 0.02:
        add("lengths", "mean output tokens", round(mean_a, 1), round(mean_b, 1))
    add("validity", "valid", level_a.get("valid"), level_b.get("valid"))
    drift_a = any("changed during the level" in f for f in level_a.get("flags", []))
    drift_b = any("changed during the level" in f for f in level_b.get("flags", []))
    add("warm-up", "speed drifting during the level", drift_a, drift_b)
    busy_a = any(w.startswith("host busy") for w in level_a.get("warnings", []))
    busy_b = any(w.startswith("host busy") for w in level_b.get("warnings", []))
    add("host", "client host busy (waited for a CPU)", busy_a, busy_b)
    return found


def parse_fail_on(text: str | None) -> float | None:
    """`regression:PCT` → PCT / 100; None when not given. Raises UsageError on anything else."""
    if text is None:
        return None
    kind, _, value = text.partition(":")
    try:
        percent = float(value)
    except ValueError:
        percent = -1.0
    if kind.strip().lower() != "regression" or not 0 < percent < 100:
        raise UsageError(f"--fail-on takes regression:PCT with 0 < PCT < 100, e.g. regression:5; got {text!r}")
    return percent / 100.0


def _throughput_test(level_a: dict[str, Any], level_b: dict[str, Any]) -> dict[str, Any]:
    """Aggregate throughput, judged against the spread of each run's repeats (no per-request values)."""
    a, b = level_a.get("output_tokens_per_s"), level_b.get("output_tokens_per_s")
    if not a or b is None:
        return {"metric": "output_tokens_per_s", "verdict": "not enough data"}
    change = (b - a) / a
    halves = [(level.get("repeats") or {}).get("output_tokens_per_s", {}).get("ci95_half_width") for level in (level_a, level_b)]
    if all(h is not None for h in halves):
        noise = math.sqrt(sum(float(h) ** 2 for h in halves if h is not None)) / a
        source = "repeat spread"
    else:
        noise = 0.0
        source = "3 % floor (one repeat per run: give --repeats 3)"
    threshold = max(MIN_RELATIVE_CHANGE, noise)
    real = abs(change) >= threshold and noise > 0
    if real:
        verdict = "real"
    elif noise == 0.0:
        verdict = "not enough repeats to tell"
    else:
        verdict = "within noise"
    return {
        "metric": "output_tokens_per_s", "mean_a": a, "mean_b": b, "change": change, "threshold": threshold,
        "noise_source": source, "verdict": verdict, "real": real,
    }


# Which direction is worse, per metric.
_WORSE_WHEN_HIGHER = {"tpot_ms": True, "ttft_ms": True, "output_tokens_per_s": False}


def regressions(level: dict[str, Any], limit: float) -> list[dict[str, Any]]:
    """The real changes of a compared level that are regressions of at least `limit` (a fraction)."""
    found = []
    for test in level["tests"]:
        if not test.get("real") or test.get("change") is None:
            continue
        worse = test["change"] if _WORSE_WHEN_HIGHER[test["metric"]] else -test["change"]
        if worse >= limit:
            found.append({"level": level["level"], "metric": test["metric"], "change": test["change"]})
    return found


def compare_runs(
    run_a: StoredRun, rows_a: list[RequestRow], run_b: StoredRun, rows_b: list[RequestRow],
    fail_on_regression: float | None = None,
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

        def noise(field: str, key: str = key) -> float | None:
            return repeat_noise(_repeat_medians(rows_a, key, field), _repeat_medians(rows_b, key, field))

        tests = [
            assess_metric("tpot_ms", values(rows_a, "tpot_ms"), values(rows_b, "tpot_ms"), la, lb, "tpot_ms", noise("tpot_ms")),
            assess_metric("ttft_ms", values(rows_a, "ttft_ms"), values(rows_b, "ttft_ms"), la, lb, "ttft_ms", noise("ttft_ms")),
            _throughput_test(la, lb),
        ]
        throughput_a, throughput_b = la.get("output_tokens_per_s") or 0.0, lb.get("output_tokens_per_s") or 0.0
        level_diffs = _level_differences(la, lb)
        real = any(t.get("real") for t in tests)
        ordered = sorted(level_diffs + run_differences, key=lambda d: _CATEGORY_ORDER.index(d["category"]))
        causes = [d for d in ordered if d["kind"] == "configuration"]
        samples = [d for d in ordered if d["kind"] == "sample"]
        entry: dict[str, Any] = {
            "level": key,
            "output_tokens_per_s_a": throughput_a,
            "output_tokens_per_s_b": throughput_b,
            "output_tokens_per_s_change": (throughput_b - throughput_a) / throughput_a if throughput_a else None,
            "tests": tests,
            "real": real,
            "comparable": not causes,
            "verdict": _verdict(real, tests, causes, samples),
            "likely_causes": causes if real else [],
            "samples_differing": samples,
        }
        if fail_on_regression is not None:
            entry["regressions"] = regressions(entry, fail_on_regression)
        levels.append(entry)
    report: dict[str, Any] = {
        "schema": BENCH_SCHEMA,
        "kind": "stackaudit.bench.compare",
        "a": {"run_id": run_a.id, "started": run_a.started, "label": run_a.label},
        "b": {"run_id": run_b.id, "started": run_b.started, "label": run_b.label},
        "levels": levels,
        "levels_only_in_a": [k for k in levels_a if k not in levels_b],
        "levels_only_in_b": [k for k in levels_b if k not in levels_a],
        "differences": [d for d in run_differences if d["kind"] == "configuration"],
        "samples_differing": [d for d in run_differences if d["kind"] == "sample"],
    }
    if fail_on_regression is not None:
        found = [r for level in levels for r in level["regressions"]]
        report["fail_on"] = {"regression": fail_on_regression, "failed": bool(found), "regressions": found}
    return report


def _verdict(real: bool, tests: list[dict[str, Any]], causes: list[dict[str, Any]], samples: list[dict[str, Any]]) -> str:
    if not real:
        if all(t.get("verdict") in ("not enough data", "not enough repeats to tell") for t in tests):
            return "not enough data to tell"
        return "within noise"
    if not causes:
        moved = f" (samples that moved: {', '.join(s['name'] for s in samples)})" if samples else ""
        return f"real; same configuration{moved}: check GPU clocks, power, other tenants"
    categories = []
    for cause in causes:
        if cause["category"] not in categories:
            categories.append(cause["category"])
    return "real, but the runs differ in " + ", ".join(categories) + ": not comparable as they stand"
