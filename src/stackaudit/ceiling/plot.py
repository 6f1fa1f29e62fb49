"""`--plot FILE`: the ceiling ladder per concurrency with the measured point (matplotlib, optional)."""

from __future__ import annotations

from pathlib import Path

from stackaudit.ceiling.ladder import CeilingReport
from stackaudit.errors import InputError, UsageError


def plot_ladder(report: CeilingReport, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError("--plot needs matplotlib: pip install 'stackaudit[plot]'") from exc

    levels = report.levels
    fig, axes = plt.subplots(1, len(levels), figsize=(4.2 * len(levels) + 1, 4.2), squeeze=False)
    for ax, level in zip(axes[0], levels, strict=True):
        names = [c.name for c in level.ceilings]
        values = [c.tokens_per_s for c in level.ceilings]
        colors = ["#4c72b0" if c.name != "compute" else "#8c8c8c" for c in level.ceilings]
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
