"""`bench --format html` and `ceiling --format html`: the same self-contained page as the audit's
(report.html.page: inline style, no fetch), with the run's charts as inline SVG (report.charts).

The renderers of bench/render.py and ceiling/render.py hand over the lines and table rows they already
compute, so the three formats say the same thing; only the charts are new here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from stackaudit.report.charts import Bar, Series, ladder_chart, line_chart
from stackaudit.report.html import esc, page

if TYPE_CHECKING:
    from stackaudit.ceiling.ladder import CeilingReport


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]], table_id: str) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f'<td class="{"num" if i else ""}">{esc(v)}</td>' for i, v in enumerate(row))
                   + "</tr>" for row in rows)
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


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


def ceiling_charts(report: CeilingReport, labels: dict[str, str]) -> list[str]:
    """Per level, the ladder of ceilings (tokens/s per stream), the binding one highlighted, the measured
    point marked; with several levels, the ceiling against concurrency."""
    out = []
    for level in report.levels:
        ceilings = [*level.ceilings, *([level.loaded] if level.loaded is not None else [])]
        binding = min(ceilings, key=lambda c: abs(c.tokens_per_s - level.tokens_per_s)) if ceilings else None
        bars = [Bar(labels.get(c.name, c.name), c.tokens_per_s, binding=c is binding) for c in ceilings]
        measured = level.measured.tokens_per_s if level.measured is not None else None
        out.append(ladder_chart(f"chart-ladder-c{level.concurrency}", f"Ceiling ladder at concurrency {level.concurrency}",
                                "tokens/s per stream", bars, measured=measured))
    if len(report.levels) > 1:
        points = tuple((float(lv.concurrency), lv.tokens_per_s) for lv in report.levels)
        agg = tuple((float(lv.concurrency), lv.aggregate_tokens_per_s) for lv in report.levels)
        out.append(line_chart("chart-ceiling-per-stream", "Ceiling per stream vs concurrency", "concurrency",
                              "tokens/s per stream", [Series("ceiling per stream", points)]))
        out.append(line_chart("chart-ceiling-aggregate", "Aggregate ceiling vs concurrency", "concurrency",
                              "tokens/s", [Series("aggregate ceiling", agg)]))
    return [c for c in out if c]


def ceiling_page(report: CeilingReport, header: Sequence[str], text: str, labels: dict[str, str]) -> str:
    body = ["<header><h1>Decode-throughput ceiling</h1>"]
    body += [f'<p class="headline">{esc(line)}</p>' for line in header if not line.startswith("  ")]
    body.append("</header>")
    charts = ceiling_charts(report, labels)
    if charts:
        body += ['<section id="charts" class="charts"><h2>Ladder</h2>', *charts, "</section>"]
    body += ['<section id="ceiling-text"><h2>Report</h2>', f"<pre>{esc(text)}</pre>", "</section>"]
    return page(f"ceiling — {report.arch.name}", body, script=False)
