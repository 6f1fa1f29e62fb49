"""`--plot FILE`: the ceiling ladder per concurrency with the measured point (matplotlib, optional).

One panel per concurrency level, one horizontal bar per rung (tokens/s per stream), each with its value.
The rung of the binding term is drawn in its own colour and says so. The compute ceiling is often tens of
times the others at low concurrency: drawn to scale it would squash every other bar to a sliver, so when it
is far beyond them it is cut at the panel's edge, hatched, and labelled with its value ("off scale").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stackaudit.ceiling.ladder import CeilingReport, Level
from stackaudit.errors import InputError

# The rung each binding term (Level.binding) is the ceiling of.
BINDING_RUNG = {"bandwidth": "bandwidth", "allreduce": "bandwidth+allreduce", "overhead": "overhead",
                "compute": "compute"}
BINDING_WORDS = {"bandwidth": "memory bandwidth", "allreduce": "all-reduce latency",
                 "overhead": "per-kernel overhead", "compute": "compute"}
# Compute is drawn to scale only within this factor of the largest other value in the panel.
OFF_SCALE = 3.0
BAR, BINDING, OFF, MEASURED = "#4c72b0", "#dd8452", "#c7c7c7", "#c44e52"


def plain(text: str) -> str:
    """`text` as matplotlib shows it literally: a `$` in a model name would start mathtext."""
    return text.replace("$", r"\$")


def _panel(ax: Any, level: Level) -> None:
    rungs = [c for c in (*level.ceilings, *([level.loaded] if level.loaded is not None else []))
             if c.tokens_per_s != float("inf")]
    measured = level.measured.tokens_per_s if level.measured is not None else 0.0
    others = [c.tokens_per_s for c in rungs if c.name != "compute"] + [measured]
    scale = max(others, default=0.0) or max((c.tokens_per_s for c in rungs), default=1.0)
    right = scale * 1.35
    binding = BINDING_RUNG.get(level.binding)
    rows = rungs[::-1]  # the first rung on top
    for y, rung in enumerate(rows):
        off_scale = rung.name == "compute" and rung.tokens_per_s > OFF_SCALE * scale
        width = right if off_scale else rung.tokens_per_s
        color = BINDING if rung.name == binding else (OFF if off_scale else BAR)
        ax.barh(y, width, color=color, hatch="//" if off_scale else None, edgecolor="white" if off_scale else color)
        label = f"{rung.tokens_per_s:,.1f}"
        if off_scale:
            ax.text(right * 0.97, y, f"{label} tok/s (off scale)", va="center", ha="right", fontsize=8)
        else:
            ax.text(width + right * 0.01, y, label, va="center", ha="left", fontsize=8)
    ax.set_yticks(range(len(rows)), labels=[r.name for r in rows])
    for tick in ax.get_yticklabels():
        if tick.get_text() == binding:
            tick.set_fontweight("bold")
    ax.set_xlim(0, right)
    ax.set_xlabel("tokens/s per stream")
    words = BINDING_WORDS.get(level.binding, level.binding)
    ax.set_title(f"concurrency {level.concurrency}: binding {words} ({100 * level.binding_share:.0f} % of the step)",
                 fontsize=9)
    if level.measured is not None:
        ax.axvline(measured, color=MEASURED, linestyle="--")
        # Labelled on the line itself, above the bars: a legend box would cover the compute label.
        ax.set_ylim(-0.6, len(rows) + 0.1)
        ax.text(measured, len(rows) - 0.35, f" measured {measured:,.1f}", color=MEASURED, fontsize=8, va="center",
                ha="left" if measured < right * 0.7 else "right")


def ladder_title(report: CeilingReport) -> str:
    model = report.source.get("model") or report.arch.name
    date = report.generated_at[:10]
    return plain(f"{model} on {report.gpus} x {report.gpu.name} (TP {report.tp})" + (f" · {date}" if date else ""))


def ladder_figure(report: CeilingReport) -> Any:
    """The ladder as a matplotlib Figure, not yet written anywhere."""
    from matplotlib.figure import Figure

    levels = report.levels
    figure = Figure(figsize=(4.6 * len(levels) + 1.4, 4.2))
    axes = figure.subplots(1, len(levels), squeeze=False)
    for ax, level in zip(axes[0], levels, strict=True):
        _panel(ax, level)
    figure.suptitle(ladder_title(report), fontsize=10)
    figure.tight_layout()
    return figure


def plot_ladder(report: CeilingReport, path: Path) -> str:
    """Draw the ladder to `path`; returns a one-line warning instead when matplotlib is missing
    (the report is still printed: a missing plot must not cost the user the table)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return f"--plot {path.name}: not drawn, matplotlib is not installed (pip install 'stackaudit[plot]')"
    figure = ladder_figure(report)
    try:
        figure.savefig(path)
    except OSError as exc:
        raise InputError(f"--plot {path}: cannot write: {exc.strerror or exc}") from exc
    return ""
