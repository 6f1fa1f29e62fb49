"""The charts: the Mermaid `xychart-beta` block of `bench --format markdown`, and the PNG plots of `bench --plot`
and `ceiling --plot`, read back from the figure's artists (axis scales, limits, tick labels, texts, bar widths
and colours), not from pixels; one PNG of each is written and opened by Pillow's PNG decoder."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ceiling_published import CONFIGS
from stackaudit.bench.render import render_result
from stackaudit.ceiling.ladder import CeilingReport, compute
from stackaudit.gputable import lookup
from test_bench_formats import level_of, result_with

# (concurrency, output tok/s, mean TPOT ms): a run that doubles its streams each level.
RUN = ((1, 42.0, 11.9), (2, 80.5, 12.4), (4, 150.2, 13.1), (8, 260.9, 15.0), (16, 1_234_567.8, 19.2))
# Mermaid's xychart lexer (packages/mermaid/src/diagrams/xychart/parser/xychart.jison).
MERMAID_NUMBER = r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)"
MERMAID_STRING = r'"[^"]*"'


def levels(run: tuple[tuple[float, float, float], ...] = RUN, key: str = "concurrency") -> list[dict[str, Any]]:
    out = []
    for x, rate, tpot in run:
        level = dict(level_of(), output_tokens_per_s=rate)
        level.pop("concurrency", None)
        level[key] = x
        level["tpot_ms"] = dict(level["tpot_ms"], mean=tpot)
        out.append(level)
    return out


def mermaid_blocks(markdown: str) -> list[list[str]]:
    return [block.strip("\n").splitlines() for block in re.findall(r"```mermaid\n(.*?)```", markdown, re.S)]


# --- bench markdown: the xychart-beta block ---------------------------------------------------------


def test_markdown_has_a_throughput_chart_that_mermaid_can_lex() -> None:
    (block,) = mermaid_blocks(render_result(result_with(levels()), "markdown"))
    assert block[0] == "xychart-beta"
    statements = {line.split()[0]: line.strip() for line in block[1:]}
    assert set(statements) == {"title", "x-axis", "y-axis", "line"}
    assert re.fullmatch(rf"title {MERMAID_STRING}", statements["title"])
    x_axis = re.fullmatch(rf'x-axis {MERMAID_STRING} \[({MERMAID_STRING}(?:, {MERMAID_STRING})*)\]',
                          statements["x-axis"])
    assert x_axis is not None
    assert re.findall(MERMAID_STRING, x_axis.group(1)) == ['"1"', '"2"', '"4"', '"8"', '"16"']
    y_axis = re.fullmatch(rf'y-axis {MERMAID_STRING} ({MERMAID_NUMBER}) --> ({MERMAID_NUMBER})', statements["y-axis"])
    assert y_axis is not None and float(y_axis.group(1)) == 0 and float(y_axis.group(2)) >= 1_234_567.8
    line = re.fullmatch(rf"line \[({MERMAID_NUMBER}(?:, {MERMAID_NUMBER})*)\]", statements["line"])
    assert line is not None  # no thousands separator, no exponent: the lexer reads neither
    assert [float(v) for v in line.group(1).split(", ")] == [42.0, 80.5, 150.2, 260.9, 1234567.8]


def test_no_chart_for_one_level_a_request_rate_run_or_levels_without_throughput() -> None:
    assert mermaid_blocks(render_result(result_with(levels(RUN[:1])), "markdown")) == []
    assert mermaid_blocks(render_result(result_with(levels(key="request_rate")), "markdown")) == []
    unmeasured = levels(RUN[:2])
    unmeasured[1]["output_tokens_per_s"] = None
    assert mermaid_blocks(render_result(result_with(unmeasured), "markdown")) == []
    # Shuffled levels are drawn in concurrency order.
    (block,) = mermaid_blocks(render_result(result_with(levels((RUN[2], RUN[0], RUN[1]))), "markdown"))
    assert block[2].strip() == 'x-axis "concurrency" ["1", "2", "4"]'


# --- bench --plot -----------------------------------------------------------------------------------

matplotlib = pytest.importorskip("matplotlib", reason="matplotlib is the plot extra")


def texts(ax: Any) -> list[str]:
    return [t.get_text() for t in ax.texts]


def test_bench_figure_ticks_limits_labels_and_title() -> None:
    from stackaudit.bench.plot import bench_figure

    result = result_with(levels(RUN[:4]))
    result["server"]["model_used"] = "Qwen/Qwen3-8B $special"
    samples = {f"c={c}": [10.0 + c, 12.0 + c, 11.0 + c] for c, _, _ in RUN[:4]}
    figure = bench_figure(result, samples)
    left, box, tpot = figure.axes  # the twin TPOT axis is added last
    assert left.get_xscale() == "log" and left.xaxis.get_transform().base == 2
    assert list(left.get_xticks()) == [1, 2, 4, 8]
    assert [t.get_text() for t in left.get_xticklabels()] == ["1", "2", "4", "8"]
    assert list(left.xaxis.get_minorticklocs()) == []
    assert left.get_ylim()[0] == 0 and tpot.get_ylim()[0] == 0 and box.get_ylim()[0] == 0
    assert tpot.get_ylim()[1] >= 15.0 and left.get_ylim()[1] >= 260.9
    assert texts(left) == ["42", "80", "150", "261"]
    assert texts(tpot) == ["11.9 ms", "12.4 ms", "13.1 ms", "15.0 ms"]
    assert [t.get_text() for t in box.get_xticklabels()] == ["c=1", "c=2", "c=4", "c=8"]
    title = figure.get_suptitle()
    assert "Qwen/Qwen3-8B \\$special" in title and "run 7" in title and "2026-12-01" in title


def test_bench_figure_of_a_request_rate_run_stays_linear() -> None:
    from stackaudit.bench.plot import bench_figure

    figure = bench_figure(result_with(levels(((0.5, 40.0, 11.0), (1.0, 80.0, 12.0)), key="request_rate")), {})
    left = figure.axes[0]
    assert left.get_xscale() == "linear" and [t.get_text() for t in left.get_xticklabels()] == ["0.5", "1"]
    assert left.get_xlabel() == "request rate (req/s)"


# --- ceiling --plot ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ladder() -> CeilingReport:
    """Llama-3-8B on one L4: bandwidth-bound at 1 stream (compute ~400x above), compute-bound at 1024."""
    return compute(CONFIGS["Llama-3-8B"], lookup("L4").spec, gpus=1, concurrencies=(1, 1024), measured={1: 16.0})


def bars(ax: Any) -> dict[str, Any]:
    names = [t.get_text() for t in ax.get_yticklabels()]
    return dict(zip(names, ax.patches, strict=True))


def test_ceiling_figure_highlights_the_binding_rung_and_cuts_compute(ladder: CeilingReport) -> None:
    from matplotlib.colors import to_hex

    from stackaudit.ceiling.plot import BINDING, ladder_figure

    figure = ladder_figure(ladder)
    low, high = figure.axes
    first = ladder.levels[0]
    compute_rate = next(c.tokens_per_s for c in first.ceilings if c.name == "compute")
    rungs = bars(low)
    assert set(rungs) == {c.name for c in first.ceilings}
    # Compute at 1 stream is far beyond the others: cut at the panel's edge and labelled, not drawn to scale.
    assert rungs["compute"].get_width() == pytest.approx(low.get_xlim()[1])
    assert low.get_xlim()[1] < compute_rate / 10
    assert rungs["compute"].get_hatch() == "//"
    assert f"{compute_rate:,.1f} tok/s (off scale)" in texts(low)
    assert to_hex(rungs["bandwidth"].get_facecolor()) == BINDING  # binding: memory bandwidth
    assert "binding memory bandwidth" in low.get_title()
    bold = [t.get_text() for t in low.get_yticklabels() if t.get_fontweight() == "bold"]
    assert bold == ["bandwidth"]
    for rung in first.ceilings:  # a value label on every bar
        if rung.name != "compute":
            assert f"{rung.tokens_per_s:,.1f}" in texts(low)
            assert rungs[rung.name].get_width() == pytest.approx(rung.tokens_per_s)
    assert low.get_xlim()[0] == 0 and low.get_xscale() == "linear"
    (measured,) = low.get_lines()
    assert list(measured.get_xdata()) == [16.0, 16.0] and " measured 16.0" in texts(low)
    # At 1024 streams compute binds: drawn to scale and highlighted.
    top = bars(high)
    assert top["compute"].get_hatch() is None and to_hex(top["compute"].get_facecolor()) == BINDING
    assert top["compute"].get_width() == pytest.approx(ladder.levels[1].ceilings[-1].tokens_per_s)
    assert figure.get_suptitle() == f"llama on 1 x L4 (TP 1) · {ladder.generated_at[:10]}"


def test_both_plots_write_pngs_that_decode(tmp_path: Path, ladder: CeilingReport) -> None:
    image = pytest.importorskip("PIL.Image", reason="Pillow comes with matplotlib")
    from stackaudit.bench.plot import write_plots
    from stackaudit.ceiling.plot import plot_ladder

    bench_png = tmp_path / "bench.png"
    assert write_plots(result_with(levels()), {"c=1": [11.0, 12.0]}, str(bench_png)) == [str(bench_png)]
    assert plot_ladder(ladder, tmp_path / "ceiling.png") == ""
    for path, size in ((bench_png, (1320, 528)), (tmp_path / "ceiling.png", (1060, 420))):
        with image.open(path) as png:
            assert png.format == "PNG" and png.size == size
            png.verify()  # the decoder walks every chunk and its CRC
