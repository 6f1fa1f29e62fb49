"""The one Markdown escaper, and Markdown that GitHub shows as written: rendered to HTML by a GFM
renderer (markdown-it-py with tables, as GitHub's CommonMark + tables), every fix command of the
whole-host scenarios and of docs/checks.md must come out verbatim."""

from __future__ import annotations

import html.parser
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from report_scenarios import BUILDERS as SCENARIOS
from report_scenarios import report
from stackaudit.engine.results import Result
from stackaudit.fixes.model import Fix
from stackaudit.render.escape import md_block, md_cell, md_code, md_inline, md_text
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions

REPO = Path(__file__).resolve().parents[1]


class _Text(html.parser.HTMLParser):
    """The text of an HTML page (entities decoded) and, apart, the text inside <code> elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.code: list[str] = []
        self._in_code = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "code":
            self._in_code += 1
            self.code.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._in_code -= 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_code:
            self.code[-1] += data


def to_html(markdown: str) -> _Text:
    parser = _Text()
    parser.feed(MarkdownIt("commonmark").enable("table").render(markdown))
    return parser


def shown(markdown: str) -> str:
    return "".join(to_html(markdown).text)


@pytest.mark.parametrize("text", [
    "prlimit --pid <api-server pid> --nofile=1048576:1048576",
    "a *b* _c_ | d <e> & [f](g) \\ `h`",
    "# not a heading",
    "1. not a list",
    "numa_balancing and __init__",
])
def test_prose_is_shown_as_written(text: str) -> None:
    assert shown(md_text(text)).strip() == text


@pytest.mark.parametrize("text", ["plain", "a `b` c", "``double``", "`edge", "x <y> | z"])
def test_code_span_holds_any_backticks(text: str) -> None:
    code = to_html(md_code(text)).code
    assert code == [text]


def test_code_block_fence_is_longer_than_any_backtick_run() -> None:
    lines = ["echo ```", "echo ````` done"]
    block = md_block(lines)
    assert block[0].startswith("``````") and block[-1] == block[0][: len(block[-1])]
    assert to_html("\n".join(block)).code == ["\n".join(lines) + "\n"]


def test_inline_spans_become_code_and_the_rest_is_escaped() -> None:
    page = to_html(md_inline("set `NCCL_P2P_LEVEL=<level>` not <this> *here*"))
    assert page.code == ["NCCL_P2P_LEVEL=<level>"]
    assert "".join(page.text).strip() == "set NCCL_P2P_LEVEL=<level> not <this> *here*"
    # Unbalanced backticks: no spans, the text is escaped whole.
    assert shown(md_inline("a `b <c>")).strip() == "a `b <c>"


def test_table_cell_keeps_pipes_in_prose_and_code() -> None:
    table = "| a | b |\n|---|---|\n| " + md_cell("x | y") + " | " + md_cell("`p | q`") + " |\n"
    page = to_html(table)
    assert "x | y" in "".join(page.text) and page.code == ["p | q"]


def verbatim_lines(fix: Fix) -> list[str]:
    """What a renderer must show as written: every command (the steps', their reverts', the persistent
    forms') and every config line."""
    out: list[str] = []
    for s in fix.steps:
        out += [c.line for c in (*s.commands, *s.revert)]
        out += [p.command.line if p.command is not None else p.line for p in s.persistent if p.command or p.line]
    return out


def _fix_commands(results: list[Result]) -> list[str]:
    return [c for r in results if r.status == "issue" and r.fix is not None for c in verbatim_lines(r.fix)]


@pytest.mark.parametrize("verbose", [False, True])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_every_fix_command_of_a_scenario_is_verbatim_in_the_html(scenario: str, verbose: bool) -> None:
    rep = report(scenario)
    page = to_html(render(rep, "markdown", options=RenderOptions(verbose=verbose)))
    # Each command (and config line) is a whole line of a code block, as written.
    code_lines = {line for block in page.code for line in block.splitlines()}
    commands = _fix_commands(rep.results)
    missing = [c for c in commands if c not in code_lines]
    assert not missing, missing
    # Every unknown check is listed (inside <details>), and prose placeholders survive too.
    text = "".join(page.text)
    assert all(r.id in text for r in rep.results if r.status == "unknown")


def test_the_scenarios_have_fix_commands_to_check() -> None:
    """Guard for the test above: the scenarios' fixes hold commands, placeholders included."""
    commands = {c for name in SCENARIOS for c in _fix_commands(report(name).results)}
    assert len(commands) >= 10 and "prlimit --pid 731 --nofile=1048576:1048576" in commands
    assert any(re.search(r"<[^<>]+>", c) for c in commands)  # `<placeholders>` too


def test_docs_checks_md_shows_every_fix_command_and_placeholder_verbatim() -> None:
    from stackaudit.checks.registry import load_all

    page = to_html((REPO / "docs" / "checks.md").read_text())
    code = "\n".join(page.code)
    code_lines = {line for block in page.code for line in block.splitlines()}
    text = "".join(page.text)
    specs = load_all().values()
    for spec in specs:
        for line in verbatim_lines(spec.fix):
            assert line in code_lines, (spec.id, line)
        # The prose as written (its spans as code), `<placeholders>` included.
        for prose in [s.does for s in spec.fix.steps] + [p.text for s in spec.fix.steps for p in s.persistent
                                                         if p.text] + [spec.fix.note]:
            assert "".join(prose.split("`")) in text, (spec.id, prose)
    assert "prlimit --pid <api-server pid> --nofile=1048576:1048576" in code
