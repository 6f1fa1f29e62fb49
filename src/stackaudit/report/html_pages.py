"""`bench --format html`, `bench history --format html` and `bench compare --format html`: the same
self-contained page as the audit's (report.html.page: inline style, no fetch),
with the charts as inline SVG (report.charts).

The renderers of bench/render.py hand over the lines and table rows they already
compute, so the formats say the same thing; only the charts are new here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.render.escape import esc
from stackaudit.report.charts import Pair, Series, line_chart, paired_bar_chart
from stackaudit.report.html import page


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]], table_id: str,
           numeric: Collection[int] | None = None, marked: Sequence[bool] = ()) -> str:
    """A table of text cells; `numeric`: the columns aligned right (default: all but the first);
    `marked`: per row, whether it is drawn as a regression."""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)

    def cell(i: int, value: str) -> str:
        right = i in numeric if numeric is not None else i > 0
        return f'<td class="{"num" if right else ""}">{esc(value)}</td>'

    body = "".join(('<tr class="regression">' if n < len(marked) and marked[n] else "<tr>")
                   + "".join(cell(i, v) for i, v in enumerate(row)) + "</tr>" for n, row in enumerate(rows))
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


# The history and compare pages' own style: a regression stands out in its table row and its chart bar.
_COMPARE_CSS = """
tr.regression td{background:#fef2f2;color:#991b1b;font-weight:600}
svg.chart .pair-bar.regression{stroke:#dc2626;stroke-width:2.5}
svg.chart .regression-label{font-size:10.5px;fill:#dc2626;font-weight:600}
.gate-fail{color:#b91c1c;font-weight:600}.gate-pass{color:#15803d;font-weight:600}
"""


def bench_charts(levels: Sequence[dict[str, Any]]) -> list[str]:
    """Throughput (aggregate and per stream, with the ceiling per stream when known) and TPOT p50/p99
    against concurrency (or request rate, for an open-loop run)."""
    by_concurrency = all(_number(level.get("concurrency")) for level in levels)
    key, x_label = ("concurrency", "concurrency") if by_concurrency else ("request_rate", "request rate (req/s)")

    def series(label: str, value: Any) -> Series:
        points = []
        for level in levels:
            x, y = _number(level.get(key)), _number(value(level))
            if x is not None and y is not None:
                points.append((x, y))
        return Series(label, tuple(points))

    throughput = [series("output tok/s (all streams)", lambda lv: lv.get("output_tokens_per_s"))]
    per_stream = [series("tok/s per stream", lambda lv: lv.get("output_tokens_per_s_per_stream")),
                  series("ceiling per stream", lambda lv: (lv.get("ceiling") or {}).get("tokens_per_s_per_stream"))]
    tpot = [series("TPOT p50", lambda lv: (lv.get("tpot_ms") or {}).get("p50")),
            series("TPOT p99", lambda lv: (lv.get("tpot_ms") or {}).get("p99"))]
    charts = [
        line_chart("chart-throughput", f"Output throughput vs {x_label}", x_label, "tokens/s",
                   [s for s in throughput if s.points], log2_x=by_concurrency),
        line_chart("chart-per-stream", f"Tokens/s per stream vs {x_label}", x_label, "tokens/s per stream",
                   [s for s in per_stream if s.points], log2_x=by_concurrency),
        line_chart("chart-tpot", f"TPOT vs {x_label}", x_label, "ms per output token",
                   [s for s in tpot if s.points], log2_x=by_concurrency),
    ]
    return [c for c in charts if c]


def bench_page(result: dict[str, Any], header: Sequence[str], columns: Sequence[str], rows: Sequence[Sequence[str]],
               notes: Sequence[tuple[str, Sequence[str]]], tail: Sequence[str]) -> str:
    levels = [lv for lv in result.get("levels") or [] if isinstance(lv, dict)]
    body = ["<header>", f"<h1>{esc(header[0]) if header else 'stackaudit bench'}</h1>"]
    body += [f'<p class="headline">{esc(line)}</p>' for line in header[1:]]
    body.append("</header>")
    charts = bench_charts(levels)
    if charts:
        body += ['<section id="charts" class="charts"><h2>Charts</h2>', *charts, "</section>"]
    body += ['<section id="levels"><h2>Levels</h2>',
             '<p class="muted">latency columns: mean/p50/p90/p99; "~" marks approximate token counts</p>',
             _table(columns, rows, "levels-table"), "</section>"]
    noted = [(name, lines) for name, lines in notes if lines]
    if noted:
        body.append('<section id="notes"><h2>Per level</h2>')
        for name, lines in noted:
            body.append(f"<h3>{esc(name)}</h3><ul>" + "".join(f"<li>{esc(n)}</li>" for n in lines) + "</ul>")
        body.append("</section>")
    shown = [line for line in tail if line]
    if shown:
        body.append('<section id="checks"><h2>Checks</h2><ul>' + "".join(f"<li>{esc(t)}</li>" for t in shown)
                    + "</ul></section>")
    definitions = result.get("definitions") or {}
    if isinstance(definitions, dict) and definitions:
        body.append("<details><summary>Definitions</summary><ul>"
                    + "".join(f"<li>{esc(v)}</li>" for v in definitions.values()) + "</ul></details>")
    return page(header[0] if header else "stackaudit bench", body, script=False)


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


def history_charts(runs: Sequence[HistoryRun]) -> list[tuple[str, list[str]]]:
    """Per model and server type (runs of one deployment stay on one chart across server versions), the
    runs in time order: output throughput per level, and TPOT and TTFT p50/p99 per level. Returns
    (group title, charts) for each group with something to draw."""
    groups: dict[tuple[str, str], list[HistoryRun]] = {}
    for run in runs:
        groups.setdefault((run.model, run.server_type), []).append(run)
    out = []
    for n, ((model, server_type), members) in enumerate(groups.items()):
        ordered = sorted(members, key=lambda r: (r.started, r.run_id))
        names = {float(i + 1): f"#{run.run_id}" for i, run in enumerate(ordered)}

        def series(values: Sequence[tuple[str, Any]], ordered: list[HistoryRun] = ordered) -> list[Series]:
            """A line per level and value (p50, p99 …), a level's lines next to each other in the legend."""
            by_line: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for i, run in enumerate(ordered):
                for name, level in run.levels:
                    for suffix, value in values:
                        y = _number(value(level))
                        if y is not None:
                            by_line.setdefault((name, suffix), []).append((float(i + 1), y))
            return [Series(f"{name} {suffix}".strip(), tuple(points)) for (name, suffix), points in by_line.items()]

        def percentiles(block: str) -> list[Series]:
            return series([("p50", lambda lv: (lv.get(block) or {}).get("p50")),
                           ("p99", lambda lv: (lv.get(block) or {}).get("p99"))])

        prefix = f"chart-history-{n + 1}"
        charts = [
            line_chart(f"{prefix}-throughput", "Output throughput per run", "run (in time order)", "tokens/s",
                       series([("", lambda lv: lv.get("output_tokens_per_s"))]), log2_x=False, x_names=names),
            line_chart(f"{prefix}-tpot", "TPOT per run", "run (in time order)", "ms per output token",
                       percentiles("tpot_ms"), log2_x=False, x_names=names),
            line_chart(f"{prefix}-ttft", "TTFT per run", "run (in time order)", "ms to the first token",
                       percentiles("ttft_ms"), log2_x=False, x_names=names),
        ]
        versions = sorted({run.server for run in ordered})
        title = f"model {model} on {server_type} ({len(ordered)} runs; {', '.join(versions)})"
        drawn = [c for c in charts if c]
        if drawn:
            out.append((title, drawn))
    return out


def history_page(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], runs: Sequence[HistoryRun]) -> str:
    body = ["<header>", f"<h1>{esc(title)}</h1>", "</header>",
            '<section id="runs"><h2>Runs</h2>']
    if rows:
        body.append(_table(columns, rows, "runs-table", numeric={0}))
    else:
        body.append('<p class="muted" id="no-runs">no runs stored yet</p>')
    body.append("</section>")
    groups = history_charts(runs)
    if groups:
        body.append('<section id="charts" class="charts"><h2>Charts</h2>')
        for group, charts in groups:
            body += [f"<h3>{esc(group)}</h3>", *charts]
        body.append("</section>")
    return page("stackaudit bench history", body, script=False, extra_css=_COMPARE_CSS)


# --- bench compare -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareLevel:
    """One level in common, as the text says it: its title line, a row per metric (`marked`: a regression),
    the configuration that differed and the samples that moved; `worse`: the metrics that regressed."""

    title: str
    rows: list[list[str]]
    marked: list[bool]
    causes: list[str]
    samples: list[str]
    worse: frozenset[str] = frozenset()


def compare_charts(levels: Sequence[dict[str, Any]], worse: Sequence[frozenset[str]]) -> list[str]:
    """Run A beside run B per level in common (`levels`, the report's, with `worse` for each): output
    throughput and TPOT p50, B's bar marked where that metric regressed."""

    def pairs(metric: str, values: Any) -> list[Pair]:
        out = []
        for level, regressed in zip(levels, worse, strict=True):
            test: dict[str, Any] = next((t for t in level.get("tests") or [] if t.get("metric") == metric), {})
            a, b = values(level, test)
            out.append(Pair(str(level.get("level")), _number(a), _number(b), regression=metric in regressed))
        return out

    charts = [
        paired_bar_chart("chart-compare-throughput", "Output throughput, A vs B", "tokens/s",
                         pairs("output_tokens_per_s",
                               lambda lv, _t: (lv.get("output_tokens_per_s_a"), lv.get("output_tokens_per_s_b")))),
        paired_bar_chart("chart-compare-tpot", "TPOT p50, A vs B", "ms per output token",
                         pairs("tpot_ms", lambda _lv, t: (t.get("p50_a"), t.get("p50_b")))),
    ]
    return [c for c in charts if c]


def compare_page(report: dict[str, Any], title: str, header: Sequence[str], columns: Sequence[str],
                 levels: Sequence[CompareLevel], tail: Sequence[tuple[str, Sequence[str]]]) -> str:
    body = ["<header>", f"<h1>{esc(title)}</h1>"]
    body += [f'<p class="headline">{esc(line)}</p>' for line in header]
    body.append("</header>")
    charts = compare_charts(report.get("levels") or [], [level.worse for level in levels])
    if charts:
        body += ['<section id="charts" class="charts"><h2>Charts</h2>', *charts, "</section>"]
    for n, level in enumerate(levels):
        body += [f'<section class="compare-level" id="level-{n + 1}"><h2>{esc(level.title)}</h2>',
                 _table(columns, level.rows, f"level-{n + 1}-table", numeric={2, 3, 4, 5}, marked=level.marked)]
        if level.causes:
            body.append("<h3>Likely causes (configuration that differed between the runs)</h3><ul class=\"causes\">"
                        + "".join(f"<li>{esc(c)}</li>" for c in level.causes) + "</ul>")
        if level.samples:
            body.append("<h3>Samples that differed (not configuration; they do not make the runs differ)</h3>"
                        '<ul class="samples">' + "".join(f"<li>{esc(x)}</li>" for x in level.samples) + "</ul>")
        body.append("</section>")
    if tail:
        body.append('<section id="summary"><h2>Summary</h2>')
        for line, subs in tail:
            cls = "gate-fail" if line.startswith("FAIL") else "gate-pass" if line.startswith("pass (") else ""
            body.append(f'<p class="{cls}">{esc(line)}</p>' if cls else f"<p>{esc(line)}</p>")
            if subs:
                body.append("<ul>" + "".join(f"<li>{esc(x)}</li>" for x in subs) + "</ul>")
        body.append("</section>")
    return page("stackaudit bench compare", body, script=False, extra_css=_COMPARE_CSS)
