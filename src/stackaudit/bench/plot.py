"""`--plot PATH`: a PNG chart (matplotlib, optional extra `plot`, imported only when drawing).

One meaning across `bench` and `ceiling`: PATH is the PNG file to write. When PATH is an
existing directory, the chart goes into it as `bench.png` (or `ceiling.png`), and the command
says where it went.
"""

from __future__ import annotations

import os
from typing import Any

from stackaudit.ceiling.plot import plain
from stackaudit.errors import UsageError


def resolve_plot_path(value: str, default_name: str) -> str:
    """The file `--plot VALUE` writes: VALUE, or VALUE/default_name when VALUE is a directory."""
    if os.path.isdir(value):
        return os.path.join(value, default_name)
    parent = os.path.dirname(os.path.abspath(value))
    if not os.path.isdir(parent):
        raise UsageError(f"--plot {value}: no directory {parent} to write the chart into")
    return value


def _tick_levels(axis: Any, xs: list[float], concurrency: bool) -> None:
    """Ticks at the measured levels, labelled as numbers (1, 2, 4 …). Concurrency levels usually double,
    so a base-2 log axis spaces them evenly; a request rate stays linear."""
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

    if concurrency and len(xs) > 1 and min(xs) > 0:
        axis.set_xscale("log", base=2)
        axis.set_xlim(min(xs) / 1.4, max(xs) * 1.4)
    axis.xaxis.set_major_locator(FixedLocator(xs))
    axis.xaxis.set_major_formatter(FixedFormatter([f"{x:g}" for x in xs]))
    axis.xaxis.set_minor_locator(NullLocator())


def _label_points(axis: Any, xs: list[float], ys: list[float], fmt: str, color: str, below: bool = False) -> None:
    """The value beside each point: throughput above left, TPOT below right, so that where the two lines
    cross their labels do not sit on each other."""
    for x, y in zip(xs, ys, strict=True):
        axis.annotate(fmt.format(y), (x, y), textcoords="offset points", xytext=(5, -12) if below else (-5, 6),
                      ha="left" if below else "right", fontsize=8, color=color)


def title_line(result: dict[str, Any]) -> str:
    """`model · run 7 · 2026-12-01`: what the chart is of, which run, and when."""
    server = result.get("server") or {}
    parts = [f"model {server.get('model_used') or 'unknown'}"]
    if result.get("run_id") is not None:
        parts.append(f"run {result['run_id']}")
    if result.get("label"):
        parts.append(str(result["label"]))
    if result.get("started"):
        parts.append(str(result["started"])[:10])
    return plain(" · ".join(parts))


def bench_figure(result: dict[str, Any], tpot_samples: dict[str, list[float]]) -> Any:
    """The chart as a matplotlib Figure (not drawn to a file): throughput and mean TPOT per level on the left,
    TPOT per request per level on the right.

    Both y axes start at 0. A TPOT axis cut at the lowest mean makes a 3 % rise look like a cliff; from 0,
    the slope of the line is the relative change, which is what decides whether a level is worth its latency.
    """
    from matplotlib.figure import Figure

    levels = [lv for lv in result.get("levels", []) if lv.get("tpot_ms", {}).get("mean") is not None]
    concurrency = all(lv.get("concurrency") is not None for lv in levels)
    x_name = "concurrency" if concurrency else "request_rate"
    xs = [float(lv[x_name]) for lv in levels]
    rates = [float(lv.get("output_tokens_per_s") or 0.0) for lv in levels]
    tpots = [float(lv["tpot_ms"]["mean"]) for lv in levels]

    figure = Figure(figsize=(12, 4.8))
    left, box = figure.subplots(1, 2)
    left.plot(xs, rates, "o-", color="tab:blue", label="output tok/s (aggregate)")
    _label_points(left, xs, rates, "{:,.0f}", "tab:blue")
    left.set_xlabel("concurrency (streams)" if concurrency else "request rate (req/s)")
    left.set_ylabel("output tokens/s", color="tab:blue")
    left.set_ylim(0, max(rates, default=0.0) * 1.2 or 1.0)
    right = left.twinx()
    right.plot(xs, tpots, "s--", color="tab:red", label="TPOT mean (ms)")
    _label_points(right, xs, tpots, "{:.1f} ms", "tab:red", below=True)
    right.set_ylabel("TPOT mean (ms)", color="tab:red")
    right.set_ylim(0, max(tpots, default=0.0) * 1.3 or 1.0)
    if xs:
        _tick_levels(left, xs, concurrency)
    left.set_title("Throughput and TPOT per level")
    labels = [key for key in tpot_samples if tpot_samples[key]]
    if labels:
        box.boxplot([tpot_samples[k] for k in labels], showfliers=True)
        box.set_xticks(range(1, len(labels) + 1), labels=[plain(k) for k in labels])
        box.set_ylim(bottom=0)
    box.set_ylabel("TPOT per request (ms)")
    box.set_title("TPOT distribution per level")
    figure.suptitle(title_line(result), fontsize=10)
    figure.tight_layout()
    return figure


def write_plots(result: dict[str, Any], tpot_samples: dict[str, list[float]], path: str) -> list[str]:
    """Throughput and TPOT vs level, and TPOT per request per level, in one PNG. Returns [path]."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'stackaudit[plot]'") from None
    figure = bench_figure(result, tpot_samples)
    try:
        figure.savefig(path, dpi=110, format="png")
    except OSError as exc:
        raise UsageError(f"--plot {path}: cannot write: {exc.strerror or exc}") from None
    return [path]
