"""`bench history --format html` and `bench compare --format html`, without a browser
(tests/test_report_html_browser.py opens the compare page in Chromium): the pages carry the text form's
rows, chart the runs in time order per model and server, mark a regression, escape a hostile label, hold
no external URL, and the CLI writes them with -o and exits as for the other formats.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from html_scenarios import HOSTILE_NAME
from stackaudit.bench.compare import compare_runs
from stackaudit.bench.history import History
from stackaudit.bench.render import render_compare, render_history
from stackaudit.cli.main import main
from stackaudit.render.formats import FORMATS
from test_bench_formats import level_of, result_with
from test_bench_history import repeated_rows, stored_result

# Markup, both quotes and an ampersand: whatever the page does with it must stay text.
HOSTILE_LABEL = HOSTILE_NAME + " 'single' & co"
WARM = {"mode": "auto", "requests": 30, "cold": False, "converged": True}


def hostile_store(folder: Path) -> str:
    """Runs 1–3 of model "m" (stored_result: one level, c=10, TPOT mean only) — 2 is a planted +18 % TPOT,
    3 a +1 % rerun — and runs 4–5 of a model named with markup (result_with: c=4 and c=16 with every
    percentile), 5 started before 4 and labelled with HOSTILE_LABEL."""
    db = str(folder / "h.sqlite3")
    low = level_of()
    high = dict(low, concurrency=16, output_tokens_per_s=812.5, tpot_ms=dict(low["tpot_ms"], p50=19.5, p99=41.0))
    later = result_with([low, high])
    earlier = result_with([dict(low, output_tokens_per_s=300.0), dict(high, output_tokens_per_s=700.0)])
    earlier["started"], earlier["label"] = "2026-11-30T08:00:00Z", HOSTILE_LABEL
    for run in (later, earlier):
        run["server"]["model_used"] = HOSTILE_NAME
    with History(db) as history:
        history.add_rows(stored_result(40.0, 10.0, WARM, 1, {}), repeated_rows(10.0, 1))
        history.add_rows(stored_result(34.0, 11.8, WARM, 1, {}), repeated_rows(11.8, 2))
        history.add_rows(stored_result(40.0, 10.1, WARM, 1, {}), repeated_rows(10.1, 3))
        history.add_rows(later, [])
        history.add_rows(earlier, [])
    return db


def compare_report(db: str, a: str, b: str, limit: float | None) -> dict[str, Any]:
    with History(db) as history:
        run_a, run_b = history.get(a), history.get(b)
        report = compare_runs(run_a, history.requests(run_a.id), run_b, history.requests(run_b.id),
                              fail_on_regression=limit)
    report["a"]["label"] = HOSTILE_LABEL  # the compare page shows both runs' labels
    return report


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    return hostile_store(tmp_path_factory.mktemp("bench-html"))


class Page(HTMLParser):
    """A page as a browser's parser reads it: start tags with attributes, each table's rows of cell text
    (with the row's class), and the text outside tags."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: dict[str, list[tuple[str, list[str]]]] = {}
        self.text: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "table":
            self._table = found.get("id") or ""
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append((found.get("class") or "", []))
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.tables[self._table][-1][1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def chart_points(html: str, chart_id: str) -> list[tuple[float, float]]:
    svg = html.split(f'id="{chart_id}"', 1)[1].split("</svg>", 1)[0]
    return [(float(x), float(y)) for x, y in re.findall(r'data-x="([\d.e+-]+)" data-y="([\d.e+-]+)"', svg)]


def assert_self_contained(html: str) -> None:
    """No tag that runs or loads anything, no attribute or style that names a URL (the SVG namespace is
    a name, not a fetch), and the audit page's policy that forbids every fetch."""
    page = Page(html)
    names = [tag for tag, _ in page.tags]
    assert not {"script", "img", "link", "iframe", "object", "embed", "a"} & set(names), names
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            assert name == "xmlns" or not (name.startswith("on") or "://" in (value or "") or (value or "").startswith("//")), (tag, name)
    assert "url(" not in html and "@import" not in html
    assert "default-src 'none'" in html and "form-action 'none'" in html


def test_html_is_a_format_of_history_and_compare() -> None:
    assert "html" in FORMATS["bench-stored"]


def test_history_page_has_the_text_rows_and_charts_runs_in_time_order(store: str) -> None:
    with History(store) as history:
        runs = history.list_runs()
    html = render_history(runs, "html", store)
    text = render_history(runs, "text", store)
    page = Page(html)
    header, *rows = page.tables["runs-table"]
    # Every run, cell for cell as the text table shows it (its columns start where their headings do).
    lines = text.splitlines()[2:]
    starts = [m.start() for m in re.finditer(r"\S+", lines[0])]
    text_rows = [[line[i:j].strip() for i, j in zip(starts, [*starts[1:], None], strict=True)] for line in lines]
    assert [header[1], *(cells for _, cells in rows)] == text_rows
    assert [cells[0] for _, cells in rows] == ["5", "4", "3", "2", "1"]
    # Two groups (model and server), each its runs in time order: run 5 started before run 4.
    groups = re.findall(r"<h2>(model .*?)</h2>", html)
    assert len(groups) == 2 and all(g.startswith("model ") for g in groups)
    markup = next(n for n in (1, 2) if f'id="chart-history-{n}-tpot"' in html)
    plain = 3 - markup
    throughput = chart_points(html, f"chart-history-{markup}-throughput")
    assert throughput == [(1.0, 300.0), (2.0, pytest.approx(level_of()["output_tokens_per_s"])), (1.0, 700.0), (2.0, 812.5)]
    ticks = html.split(f'id="chart-history-{markup}-throughput"', 1)[1].split("</svg>", 1)[0]
    assert re.findall(r'class="tick">(#\d+)</text>', ticks) == ["#5", "#4"]
    tpot = chart_points(html, f"chart-history-{markup}-tpot")
    assert (1.0, 19.5) in tpot and (2.0, 41.0) in tpot  # c=16's p50 and p99
    assert chart_points(html, f"chart-history-{markup}-ttft")
    assert chart_points(html, f"chart-history-{plain}-throughput") == [(1.0, 40.0), (2.0, 34.0), (3.0, 40.0)]
    assert f'id="chart-history-{plain}-tpot"' not in html  # stored with a TPOT mean only: nothing to draw
    assert_self_contained(html)


def test_compare_page_has_each_metric_row_and_marks_the_regression(store: str) -> None:
    report = compare_report(store, "1", "2", 0.05)
    html, text = render_compare(report, "html"), render_compare(report, "text")
    page = Page(html)
    header, *rows = page.tables["level-1-table"]
    assert header[1][:4] == ["metric", "statistic", "A", "B"] and header[1][-1] == "regression"
    assert [cells[0] for _, cells in rows] == ["tpot_ms", "ttft_ms", "output_tokens_per_s"]
    for test, (_, cells) in zip(report["levels"][0]["tests"], rows, strict=True):
        metric, statistic, a, b, change, p = cells[:6]
        moved = f"p50 {a} → {b}" if statistic == "p50" else f"{a} → {b}"
        p_value = f", p={p}" if p != "-" else ""
        assert f"{metric}: {moved} ({change}){p_value}, threshold" in text  # the figures the text form gives
        assert cells[7] == test["verdict"]
    marked = {cells[0]: (cls, cells[-1]) for cls, cells in rows}
    assert marked["tpot_ms"] == ("tone-alarm", "regression, fails --fail-on")
    assert marked["ttft_ms"] == ("", "") and marked["output_tokens_per_s"] == ("", "")
    assert re.findall(r'class="pair-bar run-b regression" data-level="c=10"', html) == ['class="pair-bar run-b regression" data-level="c=10"']
    assert 'id="chart-compare-throughput"' in html
    lines = [line for line in text.splitlines() if line.startswith(("c=10:", "FAIL"))]
    assert [line for line in lines if line in page.text] == lines  # the level's title and the gate line
    assert_self_contained(html)
    rerun = render_compare(compare_report(store, "1", "3", 0.05), "html")
    assert 'class="tone-alarm"' not in rerun and "pass (--fail-on regression:5 %)" in rerun


def test_a_hostile_label_and_model_stay_text(store: str) -> None:
    with History(store) as history:
        runs = history.list_runs()
    for html in (render_history(runs, "html", store), render_compare(compare_report(store, "1", "2", None), "html")):
        page = Page(html)
        assert [tag for tag, _ in page.tags].count("script") == 0 and "onerror" not in {a for _, t in page.tags for a in t}
        assert HOSTILE_LABEL in "".join(page.text)  # shown, as text
        assert "&lt;script&gt;" in html and "&quot;&gt;&lt;img" in html and "&#x27;single&#x27; &amp; co" in html


def test_cli_writes_the_pages_with_output_and_keeps_the_exit_status(store: str, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    history_file, compare_file = tmp_path / "history.html", tmp_path / "compare.html"
    assert main(["bench", "history", "--db", store, "--format", "html", "-o", str(history_file)]) == 0
    assert main(["bench", "compare", "1", "2", "--db", store, "--fail-on", "regression:5", "-f", "html",
                 "-o", str(compare_file)]) == 1
    assert capsys.readouterr().out == ""
    assert history_file.read_text().startswith("<!DOCTYPE html>") and 'id="runs-table"' in history_file.read_text()
    assert "<p>FAIL (--fail-on regression:5 %)" in compare_file.read_text()
    assert main(["bench", "compare", "1", "3", "--db", store, "--fail-on", "regression:5", "--format", "html",
                 "-o", str(compare_file)]) == 0
    assert "<p>pass (--fail-on regression:5 %)" in compare_file.read_text()
    capsys.readouterr()
    assert main(["bench", "history", "--db", store, "--format", "pdf"]) == 2
    err = capsys.readouterr().err
    assert "--format: choose one of text, markdown, json, html, not 'pdf'" in err and len(err.strip().splitlines()) == 1
