"""`--plot PATH`: a PNG chart (matplotlib, optional extra `plot`, imported only when drawing).

One meaning across `bench` and `ceiling`: PATH is the PNG file to write. When PATH is an
existing directory, the chart goes into it as `bench.png` (or `ceiling.png`), and the command
says where it went.
"""

from __future__ import annotations

import os
from typing import Any

from stackaudit.errors import UsageError


def resolve_plot_path(value: str, default_name: str) -> str:
    """The file `--plot VALUE` writes: VALUE, or VALUE/default_name when VALUE is a directory."""
    if os.path.isdir(value):
        return os.path.join(value, default_name)
    parent = os.path.dirname(os.path.abspath(value))
    if not os.path.isdir(parent):
        raise UsageError(f"--plot {value}: no directory {parent} to write the chart into")
    return value


def write_plots(result: dict[str, Any], tpot_samples: dict[str, list[float]], path: str) -> list[str]:
    """Throughput and TPOT vs level, and TPOT per request per level, in one PNG. Returns [path]."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'stackaudit[plot]'") from None
    levels = [lv for lv in result.get("levels", []) if lv.get("tpot_ms", {}).get("mean") is not None]
    x_name = "concurrency" if all(lv.get("concurrency") is not None for lv in levels) else "request_rate"
    xs = [lv[x_name] for lv in levels]

    figure, (left, box) = plt.subplots(1, 2, figsize=(12, 4.5))
    left.plot(xs, [lv["output_tokens_per_s"] for lv in levels], "o-", color="tab:blue", label="output tok/s (aggregate)")
    left.set_xlabel(x_name.replace("_", " "))
    left.set_ylabel("output tokens/s", color="tab:blue")
    right = left.twinx()
    right.plot(xs, [lv["tpot_ms"]["mean"] for lv in levels], "s--", color="tab:red", label="TPOT mean (ms)")
    right.set_ylabel("TPOT (ms)", color="tab:red")
    if len(xs) > 1 and x_name == "concurrency" and min(xs) > 0:
        left.set_xscale("log")
    left.set_title("Throughput and TPOT")
    labels = [key for key in tpot_samples if tpot_samples[key]]
    if labels:
        box.boxplot([tpot_samples[k] for k in labels], showfliers=True)
        box.set_xticks(range(1, len(labels) + 1))
        box.set_xticklabels(labels)
    box.set_ylabel("TPOT per request (ms)")
    box.set_title("TPOT distribution per level")
    figure.tight_layout()
    try:
        figure.savefig(path, dpi=110, format="png")
    except OSError as exc:
        raise UsageError(f"--plot {path}: cannot write: {exc.strerror or exc}") from None
    finally:
        plt.close(figure)
    return [path]
