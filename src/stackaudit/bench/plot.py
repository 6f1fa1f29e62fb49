"""`--plot DIR`: PNG charts (matplotlib, optional extra `plot`, imported only here)."""

from __future__ import annotations

import os
from typing import Any

from stackaudit.errors import UsageError


def write_plots(result: dict[str, Any], tpot_samples: dict[str, list[float]], directory: str) -> list[str]:
    """Throughput and TPOT vs concurrency; TPOT distribution per level. Returns the files written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'stackaudit[plot]'") from None
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--plot {directory}: {exc}") from None
    levels = [lv for lv in result.get("levels", []) if lv.get("tpot_ms", {}).get("mean") is not None]
    x_name = "concurrency" if all(lv.get("concurrency") is not None for lv in levels) else "request_rate"
    xs = [lv[x_name] for lv in levels]
    written = []

    figure, left = plt.subplots(figsize=(7, 4.5))
    left.plot(xs, [lv["output_tokens_per_s"] for lv in levels], "o-", color="tab:blue", label="output tok/s (aggregate)")
    left.set_xlabel(x_name.replace("_", " "))
    left.set_ylabel("output tokens/s", color="tab:blue")
    right = left.twinx()
    right.plot(xs, [lv["tpot_ms"]["mean"] for lv in levels], "s--", color="tab:red", label="TPOT mean (ms)")
    right.set_ylabel("TPOT (ms)", color="tab:red")
    if len(xs) > 1 and x_name == "concurrency" and min(xs) > 0:
        left.set_xscale("log")
    left.set_title("Throughput and TPOT")
    figure.tight_layout()
    path = os.path.join(directory, "throughput_tpot.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    written.append(path)

    figure, axis = plt.subplots(figsize=(7, 4.5))
    labels = [key for key in tpot_samples if tpot_samples[key]]
    if labels:
        axis.boxplot([tpot_samples[k] for k in labels], showfliers=True)
        axis.set_xticks(range(1, len(labels) + 1))
        axis.set_xticklabels(labels)
    axis.set_ylabel("TPOT per request (ms)")
    axis.set_title("TPOT distribution per level")
    figure.tight_layout()
    path = os.path.join(directory, "tpot_distribution.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    written.append(path)
    return written
