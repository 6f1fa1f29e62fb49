"""The charts of `bench --format html`, `bench history --format html` and `bench compare --format html`: the
run's levels, the stored runs in time order and run A beside run B, as inline SVG (report.charts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.render.document import Section
from stackaudit.report.charts import Pair, Series, charts, line_chart, number, paired_bar_chart


def bench_charts(levels: Sequence[dict[str, Any]]) -> list[str]:
    """Throughput (aggregate and per stream, with the ceiling per stream when known) and TPOT p50/p99
    against concurrency (or request rate, for an open-loop run)."""
    by_concurrency = all(number(level.get("concurrency")) for level in levels)
    key, x_label = ("concurrency", "concurrency") if by_concurrency else ("request_rate", "request rate (req/s)")

    def series(label: str, value: Any) -> Series:
        points = []
        for level in levels:
            x, y = number(level.get(key)), number(value(level))
            if x is not None and y is not None:
                points.append((x, y))
        return Series(label, tuple(points))

    throughput = [series("output tok/s (all streams)", lambda lv: lv.get("output_tokens_per_s"))]
    per_stream = [series("tok/s per stream", lambda lv: lv.get("output_tokens_per_s_per_stream")),
                  series("ceiling per stream", lambda lv: (lv.get("ceiling") or {}).get("tokens_per_s_per_stream"))]
    tpot = [series("TPOT p50", lambda lv: (lv.get("tpot_ms") or {}).get("p50")),
            series("TPOT p99", lambda lv: (lv.get("tpot_ms") or {}).get("p99"))]
    return [
        line_chart("chart-throughput", f"Output throughput vs {x_label}", x_label, "tokens/s",
                   [s for s in throughput if s.points], log2_x=by_concurrency),
        line_chart("chart-per-stream", f"Tokens/s per stream vs {x_label}", x_label, "tokens/s per stream",
                   [s for s in per_stream if s.points], log2_x=by_concurrency),
        line_chart("chart-tpot", f"TPOT vs {x_label}", x_label, "ms per output token",
                   [s for s in tpot if s.points], log2_x=by_concurrency),
    ]


# --- bench history -------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryRun:
    """A stored run as the history charts read it: its place in time, what it ran against, its levels."""

    run_id: int
    started: str
    model: str
    server_type: str
    server: str  # type and version, as the table shows it
    levels: list[tuple[str, dict[str, Any]]]  # (name as the table shows it, the stored level)


def history_charts(runs: Sequence[HistoryRun]) -> list[Section]:
    """Per model and server type (runs of one deployment stay on one chart across server versions), the
    runs in time order: output throughput per level, and TPOT and TTFT p50/p99 per level; a section under
    the group's title for each group with something to draw."""
    groups: dict[tuple[str, str], list[HistoryRun]] = {}
    for run in runs:
        groups.setdefault((run.model, run.server_type), []).append(run)
    out: list[Section] = []
    for n, ((model, server_type), members) in enumerate(groups.items()):
        ordered = sorted(members, key=lambda r: (r.started, r.run_id))
        names = {float(i + 1): f"#{run.run_id}" for i, run in enumerate(ordered)}

        def series(values: Sequence[tuple[str, Any]], ordered: list[HistoryRun] = ordered) -> list[Series]:
            """A line per level and value (p50, p99 …), a level's lines next to each other in the legend."""
            by_line: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for i, run in enumerate(ordered):
                for name, level in run.levels:
                    for suffix, value in values:
                        y = number(value(level))
                        if y is not None:
                            by_line.setdefault((name, suffix), []).append((float(i + 1), y))
            return [Series(f"{name} {suffix}".strip(), tuple(points)) for (name, suffix), points in by_line.items()]

        def percentiles(block: str) -> list[Series]:
            return series([("p50", lambda lv: (lv.get(block) or {}).get("p50")),
                           ("p99", lambda lv: (lv.get(block) or {}).get("p99"))])

        prefix = f"chart-history-{n + 1}"
        versions = sorted({run.server for run in ordered})
        out += charts(f"model {model} on {server_type} ({len(ordered)} runs; {', '.join(versions)})", [
            line_chart(f"{prefix}-throughput", "Output throughput per run", "run (in time order)", "tokens/s",
                       series([("", lambda lv: lv.get("output_tokens_per_s"))]), log2_x=False, x_names=names),
            line_chart(f"{prefix}-tpot", "TPOT per run", "run (in time order)", "ms per output token",
                       percentiles("tpot_ms"), log2_x=False, x_names=names),
            line_chart(f"{prefix}-ttft", "TTFT per run", "run (in time order)", "ms to the first token",
                       percentiles("ttft_ms"), log2_x=False, x_names=names),
        ])
    return out


# --- bench compare -------------------------------------------------------------------------------


def compare_charts(levels: Sequence[dict[str, Any]], worse: Sequence[set[str]]) -> list[str]:
    """Run A beside run B per level in common (`levels`, the report's, with `worse` for each): output
    throughput and TPOT p50, B's bar marked where that metric regressed."""

    def pairs(metric: str, values: Any) -> list[Pair]:
        out = []
        for level, regressed in zip(levels, worse, strict=True):
            test: dict[str, Any] = next((t for t in level.get("tests") or [] if t.get("metric") == metric), {})
            a, b = values(level, test)
            out.append(Pair(str(level.get("level")), number(a), number(b), regression=metric in regressed))
        return out

    return [
        paired_bar_chart("chart-compare-throughput", "Output throughput, A vs B", "tokens/s",
                         pairs("output_tokens_per_s",
                               lambda lv, _t: (lv.get("output_tokens_per_s_a"), lv.get("output_tokens_per_s_b")))),
        paired_bar_chart("chart-compare-tpot", "TPOT p50, A vs B", "ms per output token",
                         pairs("tpot_ms", lambda _lv, t: (t.get("p50_a"), t.get("p50_b")))),
    ]
