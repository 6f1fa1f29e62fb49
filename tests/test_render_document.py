"""The one drawer (render.document): each block in each format, the escaping of data in Markdown and HTML, and
the schema stamp of the JSON."""

from __future__ import annotations

import json

import pytest

from stackaudit.render.document import (
    Block,
    Code,
    Command,
    Document,
    Finding,
    Notes,
    Paragraph,
    Picture,
    Section,
    Table,
    draw,
)
from stackaudit.render.formats import SCHEMAS
from test_render_markdown_products import _Page, shown

NAME = "org/my_model_*v2*_fp8"  # read as emphasis by GitHub unless escaped
HOSTILE = "a | b <script>x</script> & `c`"


def doc(*blocks: Block, heading: str = "Things", verdict: str = "2 fixed", product: str = "compare") -> Document:
    return Document(product, "stackaudit test", verdict, (Section(heading, tuple(blocks)),),
                    {"tool": {"name": "stackaudit"}, "schema": 99})


def parsed(page: str) -> _Page:
    out = _Page()
    out.feed(page)
    return out


def test_text_draws_title_verdict_and_indented_sections() -> None:
    text = draw(doc(Paragraph("one line"), Notes(("first", "second")), Finding("P1", "too slow", ("why", "how"))),
                "text")
    assert text.splitlines() == ["stackaudit test", "Verdict: 2 fixed", "", "Things", "  one line", "  - first",
                                 "  - second", "  P1  too slow", "      why", "      how"]


def test_text_table_aligns_columns_and_right_aligns_numbers() -> None:
    table = Table(("name", "tok/s", "cause"), (("a", "1.5", "x"), ("longer", "12,000.0", Code("y|z"))), "lrl")
    lines = draw(doc(table, heading=""), "text").splitlines()[3:]
    assert lines == ["name       tok/s  cause", "a            1.5  x", "longer  12,000.0  y|z"]


def test_text_keeps_control_characters_off_the_terminal() -> None:
    text = draw(doc(Table(("id",), (("a\x1b[31mred\nnext",),)), heading=""), "text")
    assert "\x1b" not in text and "a\\x1b[31mred next" in text


def test_code_block_is_verbatim_in_text_and_fenced_in_markdown() -> None:
    code = Code("echo `date`\n```\nrm <file>", "bash")
    assert "  echo `date`\n  ```\n  rm <file>\n" in draw(doc(code), "text")
    markdown = draw(doc(code), "markdown")
    assert "````bash\necho `date`\n```\nrm <file>\n````" in markdown
    assert "".join(shown(markdown).text).count("echo `date`\n```\nrm <file>") == 1


@pytest.mark.parametrize("block", [
    Paragraph(NAME), Notes((NAME,)), Finding(NAME, NAME, (NAME,)), Table(("model",), ((NAME,),)),
    Table(("model",), ((Code(NAME),),)),
], ids=["paragraph", "notes", "finding", "table", "code-cell"])
def test_markdown_shows_an_underscored_name_as_written(block: Block) -> None:
    page = shown(draw(doc(block, heading=NAME, verdict=NAME), "markdown"))
    assert "em" not in page.tags and page.tags.count("strong") == 1 + isinstance(block, Finding)
    assert NAME in "".join(page.text)


def test_markdown_table_cell_with_a_pipe_stays_one_cell() -> None:
    table = Table(("a", "b"), ((HOSTILE, Code(HOSTILE)),))
    markdown = draw(doc(table), "markdown")
    page = shown(markdown)
    assert page.tags.count("td") == 2 and "script" not in page.tags
    shown_text = "".join(page.text)
    assert "a | b <script>x</script> & c" in shown_text and "a | b <script>x</script> & `c`" in shown_text


def test_markdown_headings_verdict_and_lists() -> None:
    markdown = draw(doc(Notes(("x", "y")), Notes(("z",)), Finding("P1", "slow", ("why",))), "markdown")
    assert markdown.splitlines() == ["# stackaudit test", "", "**Verdict:** 2 fixed", "", "## Things", "",
                                     "- x", "- y", "- z", "", "- **P1** slow", "  - why"]


def test_html_escapes_every_text_and_draws_each_block() -> None:
    page = draw(doc(Paragraph(HOSTILE), Notes((HOSTILE,)), Finding(HOSTILE, HOSTILE, (HOSTILE,)),
                    Table((HOSTILE,), ((HOSTILE,), (Code(HOSTILE),)), "r"), Code(HOSTILE, "sh"), heading=HOSTILE),
                "html")
    tree = parsed(page)
    assert "script" not in tree.tags
    # The heading, the label, the header cell, the code cell and the code block as written; the paragraph, the
    # note, the title, the detail and the text cell with their `c` span as code (as Markdown shows it).
    assert tree.text.count(HOSTILE) == 5 and tree.text.count("a | b <script>x</script> & ") == 4
    assert " a | b <script>x</script> & " in tree.text and page.count("<code>c</code>") == 5
    assert {"h1", "h2", "p", "ul", "li", "table", "th", "td", "pre", "code", "section"} <= set(tree.tags)
    assert '<td class="num">' in page and "Content-Security-Policy" in page


def test_a_folded_section_is_closed_in_markdown_and_html() -> None:
    document = Document("bench", "t", "", (Section("a<b", (Notes((NAME,)),), folded=True),), {})
    markdown = draw(document, "markdown")
    lines = markdown.splitlines()
    assert lines[2:4] == ["<details><summary>a&lt;b</summary>", ""] and lines[-2:] == ["", "</details>"]
    page = shown(markdown)
    assert "details" in page.tags and "em" not in page.tags and NAME in page.text and "a<b" in page.text
    html = parsed(draw(document, "html"))
    assert {"details", "summary", "li"} <= set(html.tags) and "h2" not in html.tags and "a<b" in html.text


def test_json_is_the_payload_with_the_registry_schema_first() -> None:
    for product in ("compare", "fix-plan", "catalogue", "ceiling"):
        out = json.loads(draw(doc(product=product), "json"))
        assert list(out) == ["schema", "tool"] and out["schema"] == SCHEMAS[product]


def test_json_of_a_product_without_a_registry_number_is_its_payload_as_is() -> None:
    document = Document("bench-compare", "t", "", (), {"kind": "x", "schema": 1})
    assert json.loads(draw(document, "json")) == {"kind": "x", "schema": 1}


def test_json_keeps_text_as_written() -> None:
    document = Document("compare", "t", "", (), {"name": "→ café"})
    assert '"name": "→ café"' in draw(document, "json")


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="prometheus"):
        draw(doc(), "prometheus")


def test_a_command_is_whole_in_text_fenced_in_markdown_and_copied_in_html() -> None:
    long = "setpci -s 0000:c1:00.0 CAP_EXP+0x08.w=5000:7000 " + " ".join(f"--flag-{i}" for i in range(12))
    document = doc(Paragraph("word " * 30), Command(long, depth=1))
    text = draw(document, "text", width=40).splitlines()
    assert f"    $ {long}" in text and all(len(line) <= 40 for line in text if "$ " not in line)
    assert f"```sh\n{long}\n```" in draw(document, "markdown")
    page = draw(document, "html")
    assert 'class="copy"' in page and "<script>" in page and "script-src 'unsafe-inline'" in page
    assert "<script>" not in draw(doc(Paragraph("no command")), "html")  # no script where nothing needs one


def test_text_in_colour_styles_lines_and_still_escapes_values() -> None:
    text = draw(doc(Finding("P1", "slow \x1b[31m"), Command("ls")), "text", color=True)
    assert "\x1b[1;4mThings\x1b[0m" in text and "\x1b[32m  $ ls\x1b[0m" in text
    assert "\x1b[31m" not in text and "\\x1b[31m" in text
    assert "\x1b" not in draw(doc(Finding("P1", "slow"), Command("ls")), "text")


def test_a_folded_section_is_left_out_of_text_and_folded_elsewhere() -> None:
    document = Document("compare", "t", "", (Section("Open", (Paragraph("seen"),)),
                                            Section("More", (Notes(("hidden",)),), folded=True)), {})
    assert "hidden" not in draw(document, "text") and "seen" in draw(document, "text")
    assert "<details><summary>More</summary>\n\n- hidden\n\n</details>" in draw(document, "markdown")
    assert "<details><summary>More</summary>" in draw(document, "html")


def test_a_picture_is_inline_on_the_page_its_source_in_markdown_and_absent_from_text() -> None:
    svg = '<svg id="pic"><rect/></svg>'
    document = doc(Picture(svg, "svg .x{fill:red}", Code("graph TD\n  A --> B", "mermaid"), "a caption"))
    page = draw(document, "html")
    assert svg in page and "svg .x{fill:red}" in page and "<figcaption>a caption</figcaption>" in page
    assert "a caption\n\n```mermaid\ngraph TD\n  A --> B\n```" in draw(document, "markdown")
    assert "Things" not in draw(document, "text")  # a section of pictures only is left out
    assert "Things" not in draw(doc(Picture(svg)), "markdown")  # nothing to draw without a source


def test_tagged_findings_get_a_filter_per_tag_and_their_fold() -> None:
    found = (Finding("P1", "slow", ("why",), more=("on the page only",), tags=(("priority", "P1"), ("domain", "KERN")),
                     anchor="result-KERN-X"), Finding("P2", "odd", tags=(("priority", "P2"), ("domain", "KERN"))))
    page = draw(doc(*found), "html")
    tree = parsed(page)
    assert 'id="filter-priority-P1"' in page and 'id="filter-priority-P2"' in page
    assert page.count('id="filter-domain-KERN"') == 1 and 'id="result-KERN-X"' in page
    assert '<details class="finding result"' in page and 'data-priority="P2"' in page
    assert "on the page only" in "".join(tree.text)
    assert "on the page only" not in draw(doc(*found), "text") + draw(doc(*found), "markdown")


def test_a_findings_tone_is_its_badge_on_the_page_and_its_colour_in_text() -> None:
    document = doc(Finding("P0", "on fire", tone="alarm"), Finding("P2", "untidy", tone="note"),
                   Finding("", "plain"))
    html = draw(document, "html")
    assert '<span class="label badge tone-alarm">P0</span>' in html and ".tone-alarm{background:" in html
    assert '<span class="label badge tone-note">P2</span>' in html
    text = draw(document, "text", color=True)
    assert "\x1b[1;31m  P0  on fire\x1b[0m" in text and "\x1b[36m  P2  untidy\x1b[0m" in text
    assert "\x1b[1m  plain\x1b[0m" in text  # no tone: bold
    assert "\x1b" not in draw(document, "text") and "P0" in draw(document, "markdown")


def test_addresses_in_prose_and_linked_notes_are_links_on_the_page() -> None:
    html = draw(doc(Notes(("see: https://example.org/a_b#c.", "x < y"), ("", "https://example.org/x")),
                    Notes(("lost GPU: GPU5", "outside"), ("#result-X", "javascript:alert(1)"))), "html")
    assert '<a href="https://example.org/a_b#c" rel="noreferrer noopener">https://example.org/a_b#c</a>.' in html
    assert '<a href="https://example.org/x" rel="noreferrer noopener">x &lt; y</a>' in html
    assert '<a href="#result-X">lost GPU: GPU5</a>' in html
    assert "<li>outside</li>" in html and 'href="javascript' not in html  # an https address or an anchor only


def test_a_payload_given_as_a_function_is_built_only_for_json() -> None:
    calls: list[int] = []

    def payload() -> dict[str, object]:
        calls.append(1)
        return {"tool": {"name": "stackaudit"}}

    document = Document("compare", "t", "", (Section("s", (Paragraph("p"),)),), payload)
    for fmt in ("text", "markdown", "html"):
        draw(document, fmt)
    assert not calls
    assert json.loads(draw(document, "json"))["tool"] == {"name": "stackaudit"} and calls == [1]


def test_a_verdicts_command_is_code_on_the_page_and_in_markdown() -> None:
    # The audit's verdict names the ceiling command in backticks (report/header.py nothing_found).
    said = "nothing found; next: `stackaudit ceiling --model M --gpu <GPU>`"
    page = draw(doc(verdict=said), "html")
    assert '<p class="verdict">Verdict: nothing found; next: <code>stackaudit ceiling --model M --gpu &lt;GPU&gt;</code></p>' in page
    assert "`" not in page.split('class="verdict">')[1].split("</p>")[0]
    assert "**Verdict:** nothing found; next: `stackaudit ceiling --model M --gpu <GPU>`" in draw(doc(verdict=said), "markdown")
