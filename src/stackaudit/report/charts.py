"""Inline SVG charts for the HTML pages: a line chart (throughput or TPOT vs concurrency, or over stored
runs), a bar ladder (the ceilings of one concurrency level, with the measured point) and paired bars (two
runs side by side per level). Plain SVG text, no script and no font files: every label goes through
render.escape.esc, so a value from the host cannot add markup. A document shows them as `Picture` blocks
(`charts`): drawn on the HTML page, left out of text and Markdown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.render.document import Picture, Section
from stackaudit.render.escape import esc

# The style its drawings need, on whichever page shows them.
CHART_CSS = """
svg.chart .grid{stroke:#eef2f7}svg.chart .tick,svg.chart .value{font-size:10.5px;fill:#475569}
svg.chart .axis{font-size:11.5px;fill:#334155}svg.chart .chart-title{font-size:13px;font-weight:600}
svg.chart .legend{font-size:11px}svg.chart .bar{fill:#93c5fd}svg.chart .bar.binding{fill:#2563eb}
svg.chart .measured{stroke:#dc2626;stroke-width:2;stroke-dasharray:4 2}
svg.chart .measured-label{font-size:11px;fill:#dc2626}
svg.chart .pair-bar.regression{stroke:#dc2626;stroke-width:2.5}
svg.chart .regression-label{font-size:10.5px;fill:#dc2626;font-weight:600}figure:has(>svg.chart){display:inline-block}
"""

_W, _H = 560, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 28, 44
PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2")


def charts(heading: str, drawn: Iterable[str]) -> list[Section]:
    """A section of the drawn charts under `heading` (a chart with nothing to draw left out); none when
    nothing was drawn."""
    pictures = tuple(Picture(svg, CHART_CSS) for svg in drawn if svg)
    return [Section(heading, pictures)] if pictures else []


def number(value: Any) -> float | None:
    """A JSON value a chart can plot: an int or a float (never a bool), as a float; None otherwise."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _fmt(v: float) -> str:
    """1,802 · 70 · 12.5 · 4 · 0.25: whole numbers without a decimal point, others to three figures."""
    if v == int(v) or abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def _nice_max(v: float) -> float:
    """A round axis end at or above v (1, 2, 2.5, 5 × 10^k)."""
    if v <= 0:
        return 1.0
    exp = 10 ** math.floor(math.log10(v))
    for step in (1, 2, 2.5, 5, 10):
        if v <= step * exp:
            return float(step * exp)
    return float(10 * exp)


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[float, float], ...]  # (x, y)


# At most this many x tick labels: over 50 stored runs, a label per run would overlap.
_MAX_X_TICKS = 12


def _open(chart_id: str, kind: str, title: str, height: int = _H) -> list[str]:
    """An inline SVG's opening tag, its accessible title and its visible title."""
    return [f'<svg id="{esc(chart_id)}" class="chart {kind}" role="img" viewBox="0 0 {_W} {height}" '
            f'width="{_W}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
            f"<title>{esc(title)}</title>",
            f'<text x="{_W / 2:.0f}" y="16" text-anchor="middle" class="chart-title">{esc(title)}</text>']


def _y_grid(y_max: float, sy: Callable[[float], float]) -> list[str]:
    """Five horizontal grid lines from 0 to y_max, each with its value on the left axis."""
    return [f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" class="grid"/>'
            f'<text x="{_LEFT - 6}" y="{sy(y) + 4:.1f}" text-anchor="end" class="tick">{_fmt(y)}</text>'
            for y in (y_max * i / 4 for i in range(5))]


def line_chart(chart_id: str, title: str, x_label: str, y_label: str, series: Sequence[Series],
               log2_x: bool = True, x_names: Mapping[float, str] | None = None) -> str:
    """A line chart; x on a log2 axis with ticks at the measured values (1, 2, 4 …), y from 0.
    `x_names` names x positions that are not quantities (a run's place in time order: "#12")."""
    xs = sorted({x for s in series for x, _ in s.points if x > 0})
    ys = [y for s in series for _, y in s.points]
    if not xs or not ys:
        return ""
    y_max = _nice_max(max(ys))
    pw, ph = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def sx(x: float) -> float:
        if len(xs) == 1:
            return _LEFT + pw / 2
        lo, hi = (math.log2(xs[0]), math.log2(xs[-1])) if log2_x else (xs[0], xs[-1])
        v = math.log2(x) if log2_x else x
        return _LEFT + (v - lo) / (hi - lo) * pw

    def sy(y: float) -> float:
        return _TOP + ph - y / y_max * ph

    def x_text(x: float) -> str:
        return esc(x_names[x]) if x_names and x in x_names else _fmt(x)

    out = [*_open(chart_id, "line-chart", title), *_y_grid(y_max, sy)]
    every = math.ceil(len(xs) / _MAX_X_TICKS)
    for i, x in enumerate(xs):
        if (len(xs) - 1 - i) % every == 0:  # evenly thinned, counted back from the last (the newest run)
            out.append(f'<text x="{sx(x):.1f}" y="{_TOP + ph + 16}" text-anchor="middle" class="tick">{x_text(x)}</text>')
    out.append(f'<text x="{_LEFT + pw / 2:.0f}" y="{_H - 6}" text-anchor="middle" class="axis">{esc(x_label)}</text>')
    out.append(f'<text transform="translate(14 {_TOP + ph / 2:.0f}) rotate(-90)" text-anchor="middle" '
               f'class="axis">{esc(y_label)}</text>')
    for n, s in enumerate(series):
        color = PALETTE[n % len(PALETTE)]
        pts = sorted((x, y) for x, y in s.points if x > 0)
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
        out.append(f'<polyline class="series" data-series="{esc(s.label)}" points="{path}" fill="none" '
                   f'stroke="{color}" stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle class="point" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" fill="{color}" '
                       f'data-x="{x:g}" data-y="{y:g}"><title>{esc(s.label)}: {x_text(x)} → {_fmt(y)}</title></circle>'
                       f'<text x="{sx(x):.1f}" y="{sy(y) - 7:.1f}" text-anchor="middle" class="value">{_fmt(y)}</text>')
        out.append(f'<text x="{_W - _RIGHT}" y="{_TOP + 14 * n}" text-anchor="end" class="legend" fill="{color}">'
                   f"{esc(s.label)}</text>")
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    binding: bool = False
    note: str = ""


def ladder_chart(chart_id: str, title: str, unit: str, bars: Sequence[Bar], measured: float | None = None) -> str:
    """Horizontal bars, one per ceiling, the binding one highlighted; a bar far past the others (compute,
    often 100× the rest) is cut at the axis and annotated with its value instead of drawn to scale."""
    if not bars:
        return ""
    values = sorted(b.value for b in bars)
    scale_to = values[-2] * 1.6 if len(values) > 1 and values[-1] > values[-2] * 3 else values[-1]
    if measured is not None:
        scale_to = max(scale_to, measured * 1.1)
    x_max = _nice_max(scale_to)
    left, row = 170, 26
    height = _TOP + row * len(bars) + _BOTTOM
    pw = _W - left - _RIGHT - 120  # room for the value label of a bar cut at the axis

    def sx(v: float) -> float:
        return left + min(v, x_max) / x_max * pw

    out = _open(chart_id, "ladder-chart", title, height)
    for i, b in enumerate(bars):
        y = _TOP + i * row
        cut = b.value > x_max
        cls = "bar binding" if b.binding else "bar"
        out.append(f'<text x="{left - 6}" y="{y + 16}" text-anchor="end" class="tick">{esc(b.label)}</text>'
                   f'<rect class="{cls}" data-ceiling="{esc(b.label)}" data-value="{b.value:g}" x="{left}" '
                   f'y="{y + 4}" width="{sx(b.value) - left:.1f}" height="{row - 8}"/>'
                   f'<text x="{sx(b.value) + 4:.1f}" y="{y + 16}" class="value">{_fmt(b.value)}'
                   f"{' (off scale)' if cut else ''}{esc(' · ' + b.note) if b.note else ''}</text>")
    base = _TOP + row * len(bars)
    for i in range(5):
        v = x_max * i / 4
        out.append(f'<text x="{sx(v):.1f}" y="{base + 14}" text-anchor="middle" class="tick">{_fmt(v)}</text>')
    out.append(f'<text x="{left + pw / 2:.0f}" y="{height - 6}" text-anchor="middle" class="axis">{esc(unit)}</text>')
    if measured is not None:
        x = sx(measured)
        out.append(f'<line id="{esc(chart_id)}-measured" class="measured" x1="{x:.1f}" x2="{x:.1f}" y1="{_TOP}" '
                   f'y2="{base}"/><text x="{x:.1f}" y="{_TOP - 2}" text-anchor="middle" class="measured-label">'
                   f"measured {_fmt(measured)}</text>")
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class Pair:
    """One level of two runs: its name, run A's and run B's value (None: not measured), and whether B's
    is a regression (drawn marked)."""

    label: str
    a: float | None
    b: float | None
    regression: bool = False


def paired_bar_chart(chart_id: str, title: str, y_label: str, pairs: Sequence[Pair],
                     names: tuple[str, str] = ("A", "B")) -> str:
    """Vertical bars, A beside B for each level, y from 0; B's bar of a regression is marked (class
    `regression`, a red outline and "▲ regression" above it)."""
    values = [v for p in pairs for v in (p.a, p.b) if v is not None]
    if not values:
        return ""
    y_max = _nice_max(max(values) * 1.15)  # headroom for the labels above the tallest bar
    pw, ph = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
    slot = pw / len(pairs)
    bar = min(48.0, slot * 0.36)

    def sy(y: float) -> float:
        return _TOP + ph - y / y_max * ph

    out = [*_open(chart_id, "pair-chart", title), *_y_grid(y_max, sy)]
    for n, p in enumerate(pairs):
        middle = _LEFT + slot * (n + 0.5)
        out.append(f'<text x="{middle:.1f}" y="{_TOP + ph + 16}" text-anchor="middle" class="tick">{esc(p.label)}</text>')
        for side, (run, value) in enumerate(zip(names, (p.a, p.b), strict=True)):
            if value is None:
                continue
            x = middle - bar - 2 if side == 0 else middle + 2
            marked = side == 1 and p.regression
            cls = f"pair-bar run-{'ab'[side]}" + (" regression" if marked else "")
            out.append(f'<rect class="{cls}" data-level="{esc(p.label)}" data-run="{esc(run)}" '
                       f'data-value="{value:g}" x="{x:.1f}" y="{sy(value):.1f}" width="{bar:.1f}" '
                       f'height="{sy(0) - sy(value):.1f}" fill="{PALETTE[side]}">'
                       f"<title>{esc(p.label)} run {esc(run)}: {_fmt(value)}</title></rect>"
                       f'<text x="{x + bar / 2:.1f}" y="{sy(value) - 5:.1f}" text-anchor="middle" class="value">'
                       f"{_fmt(value)}</text>")
            if marked:
                out.append(f'<text x="{x + bar / 2:.1f}" y="{sy(value) - 17:.1f}" text-anchor="middle" '
                           'class="regression-label">▲ regression</text>')
    out.append(f'<text x="{_LEFT + pw / 2:.0f}" y="{_H - 6}" text-anchor="middle" class="axis">level</text>')
    out.append(f'<text transform="translate(14 {_TOP + ph / 2:.0f}) rotate(-90)" text-anchor="middle" '
               f'class="axis">{esc(y_label)}</text>')
    for side, run in enumerate(names):
        out.append(f'<text x="{_W - _RIGHT}" y="{_TOP + 14 * side}" text-anchor="end" class="legend" '
                   f'fill="{PALETTE[side]}">run {esc(run)}</text>')
    out.append("</svg>")
    return "".join(out)
