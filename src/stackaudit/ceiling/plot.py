"""`--plot FILE`: the ceiling ladder per concurrency with the measured point (matplotlib, optional)."""

from __future__ import annotations

from pathlib import Path

from stackaudit.ceiling.ladder import CeilingReport
from stackaudit.errors import InputError


def plot_ladder(report: CeilingReport, path: Path) -> str:
    """Draw the ladder to `path`; returns a one-line warning instead when matplotlib is missing
    (the report is still printed: a missing plot must not cost the user the table)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        return f"--plot {path.name}: not drawn, matplotlib is not installed (pip install 'stackaudit[plot]')"

    levels = report.levels
    fig, axes = plt.subplots(1, len(levels), figsize=(4.2 * len(levels) + 1, 4.2), squeeze=False)
    for ax, level in zip(axes[0], levels, strict=True):
        rungs = [*level.ceilings, *([level.loaded] if level.loaded is not None else [])]
        rungs = [c for c in rungs if c.tokens_per_s != float("inf")]
        names = [c.name for c in rungs]
        values = [c.tokens_per_s for c in rungs]
        colors = ["#4c72b0" if c.name != "compute" else "#8c8c8c" for c in rungs]
        ax.barh(names[::-1], values[::-1], color=colors[::-1])
        ax.set_xscale("log")
        ax.set_xlabel("tokens/s per stream")
        ax.set_title(f"concurrency {level.concurrency}")
        if level.measured is not None:
            ax.axvline(level.measured.tokens_per_s, color="#c44e52", linestyle="--",
                       label=f"measured {level.measured.tokens_per_s:g}")  # fmt: skip
            ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(f"{report.arch.name} on {report.gpus} x {report.gpu.name} (TP {report.tp})", fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise InputError(f"--plot {path}: cannot write: {exc.strerror or exc}") from exc
    finally:
        plt.close(fig)
    return ""
