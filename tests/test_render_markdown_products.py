"""Bench and ceiling Markdown write data through the one escaper (render.escape): a model name with `_`
and `*` is shown as written by a CommonMark + tables renderer (markdown-it-py, as GitHub renders), not
as emphasis, and a `|` in a cell does not end it."""

from __future__ import annotations

import html.parser

from markdown_it import MarkdownIt

from ceiling_published import CONFIGS
from stackaudit.bench.render import render_compare, render_history, render_result
from stackaudit.ceiling import compute, parse_arch
from stackaudit.ceiling.render import render
from stackaudit.gputable import lookup
from test_bench_formats import level_of, result_with

NAME = "org/my_model_*v2*_fp8"


class _Page(html.parser.HTMLParser):
    """The visible text of a rendered page, and the tags that opened (em and strong are emphasis)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def shown(markdown: str) -> _Page:
    page = _Page()
    page.feed(MarkdownIt("commonmark").enable("table").render(markdown))
    return page


def test_bench_markdown_shows_a_model_name_as_written() -> None:
    result = result_with([level_of()])
    result["server"]["model_used"] = NAME
    result["anomalies"] = [f"model {NAME} | answered <empty>"]
    page = shown(render_result(result, "markdown"))
    text = "".join(page.text)
    assert NAME in text and f"model {NAME} | answered <empty>" in text
    assert "em" not in page.tags and "strong" not in page.tags


def test_bench_history_markdown_cells_show_a_model_name_as_written() -> None:
    class Run:
        id, started, label = 1, "2026-12-01T12:00:00Z", "a|b"
        result = result_with([level_of()])

    Run.result["server"]["model_used"] = NAME
    page = shown(render_history([Run()], "markdown", "runs.db"))
    assert "em" not in page.tags and "table" in page.tags
    assert NAME in page.text and "a|b" in page.text


def test_bench_compare_markdown_shows_a_model_name_as_written() -> None:
    cause = {"category": "config", "name": "model", "a": NAME, "b": "[x](y)"}
    level = {"level": "c=1", "output_tokens_per_s_a": 10.0, "output_tokens_per_s_b": 10.0,
             "output_tokens_per_s_change": 0.0, "verdict": "no real change", "real": False, "tests": [],
             "likely_causes": [cause]}
    report = {"a": {"run_id": 1, "started": "s"}, "b": {"run_id": 2, "started": "t"}, "levels": [level],
              "levels_only_in_a": [], "levels_only_in_b": [], "differences": [cause]}
    page = shown(render_compare(report, "markdown"))
    assert "".join(page.text).count(f"model: {NAME} → [x](y)") == 2
    assert "em" not in page.tags and "a" not in page.tags


def test_ceiling_markdown_shows_a_model_name_as_written() -> None:
    report = compute(parse_arch(CONFIGS["Llama-3-8B"], name=NAME), lookup("H100").spec)
    page = shown(render(report, "markdown"))
    assert NAME in "".join(page.text)
    assert "em" not in page.tags
