"""The document every product builds, and the one drawer of it as text, Markdown, HTML and JSON.

A product says what it shows (a title, a verdict, sections of blocks) and hands over its JSON payload; how a
heading, a table or a code block looks in each format, and how each format escapes, is decided here only.
The JSON is the payload itself, its `schema` key stamped first from the format registry (render.formats).

Text: the title, the verdict, then each section after a blank line, its blocks indented under its heading.
Markdown: every data text goes through render.escape, so a `_`, `*`, `|` or `<word>` is shown as written.
HTML: one self-contained page (no script, no fetch), every text through `esc`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stackaudit.render.escape import esc, md_block, md_cell, md_cell_code, md_inline, md_table, md_text
from stackaudit.render.formats import SCHEMAS
from stackaudit.render.text import one_line


@dataclass(frozen=True)
class Paragraph:
    """Prose on one line; `backticked` spans are code in Markdown."""

    text: str


@dataclass(frozen=True)
class Code:
    """Text shown verbatim: a block of lines, or (as a table cell) a value that must not be read as markup."""

    text: str
    language: str = ""


Cell = str | Code


@dataclass(frozen=True)
class Table:
    """Rows of cells under a header; `align` gives a column `r` to align it right (`l`, the default, left)."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    align: str = ""


@dataclass(frozen=True)
class Finding:
    """One thing found: its label (a check ID, a priority or a status), its title and the lines that explain it."""

    label: str
    title: str
    detail: tuple[str, ...] = ()


@dataclass(frozen=True)
class Notes:
    """A list of short lines (warnings, assumptions, facts about the source)."""

    lines: tuple[str, ...]


Block = Paragraph | Code | Table | Finding | Notes


@dataclass(frozen=True)
class Section:
    """Blocks under a heading; a section without one continues the document's head.

    A `folded` section is drawn closed (`<details>`, its heading the summary) in Markdown and HTML, whole in text.
    """

    heading: str
    blocks: tuple[Block, ...]
    folded: bool = False


@dataclass(frozen=True)
class Document:
    """What a product shows (`title`, `verdict`, `sections`) and its JSON `payload` (without its schema number)."""

    product: str
    title: str
    verdict: str
    sections: tuple[Section, ...]
    payload: Mapping[str, Any]


def stamped(product: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """`payload` with the product's schema number (render.formats.SCHEMAS) as its first key; as it is for a
    product without a number there."""
    if product not in SCHEMAS:
        return dict(payload)
    return {"schema": SCHEMAS[product], **{k: v for k, v in payload.items() if k != "schema"}}


def draw(document: Document, fmt: str) -> str:
    """`document` in `fmt` (text, markdown, html or json)."""
    if fmt == "json":
        return json.dumps(stamped(document.product, document.payload), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return _markdown(document)
    if fmt == "html":
        return _html(document)
    if fmt == "text":
        return _text(document)
    raise ValueError(f"{document.product}: no drawing in format {fmt!r}")


# --- text ---------------------------------------------------------------------------------------------


def _plain(cell: Cell) -> str:
    """A cell or a line as one visible line (render.text.one_line: no control character reaches a terminal)."""
    return one_line(cell.text if isinstance(cell, Code) else cell)


def _text_table(table: Table) -> list[str]:
    """The table's columns aligned, two spaces apart; the last column is not padded."""
    grid = [list(table.header), *([_plain(c) for c in row] for row in table.rows)]
    widths = [max(len(row[i]) for row in grid) for i in range(len(table.header))]
    return ["  ".join(c.rjust(w) if table.align[i:i + 1] == "r" else c.ljust(w)
                      for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip() for row in grid]


def _text_block(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return [_plain(block.text)]
    if isinstance(block, Code):
        return block.text.splitlines()
    if isinstance(block, Table):
        return _text_table(block)
    if isinstance(block, Finding):
        return [f"{_plain(block.label)}  {_plain(block.title)}", *(f"    {_plain(line)}" for line in block.detail)]
    return [f"- {_plain(line)}" for line in block.lines]


def _text(document: Document) -> str:
    lines = [_plain(document.title)]
    if document.verdict:
        lines.append(f"Verdict: {_plain(document.verdict)}")
    for section in document.sections:
        indent = "  " if section.heading else ""
        lines += ["", _plain(section.heading)] if section.heading else [""]
        lines += [f"{indent}{line}".rstrip() for block in section.blocks for line in _text_block(block)]
    return "\n".join(lines) + "\n"


# --- Markdown -----------------------------------------------------------------------------------------


def _md_cell(cell: Cell) -> str:
    return md_cell_code(cell.text) if isinstance(cell, Code) else md_cell(cell)


def _markdown_lines(block: Block) -> list[str]:
    """One block as Markdown lines, every data text escaped (render.escape)."""
    if isinstance(block, Paragraph):
        return [md_inline(block.text)]
    if isinstance(block, Code):
        return md_block(block.text.splitlines(), block.language)
    if isinstance(block, Table):
        rules = ["---:" if block.align[i:i + 1] == "r" else "---" for i in range(len(block.header))]
        return md_table([md_cell(h) for h in block.header], ([_md_cell(c) for c in row] for row in block.rows),
                        rules)
    if isinstance(block, Finding):
        return [f"- **{md_text(block.label, line_start=False)}** {md_inline(block.title, line_start=False)}",
                *(f"  - {md_inline(line)}" for line in block.detail)]
    return [f"- {md_inline(line)}" for line in block.lines]


def _markdown(document: Document) -> str:
    lines = [f"# {md_text(document.title, line_start=False)}", ""]
    if document.verdict:
        lines += [f"**Verdict:** {md_inline(document.verdict, line_start=False)}", ""]
    for section in document.sections:
        if section.folded:
            lines += [f"<details><summary>{esc(section.heading)}</summary>", ""]
        elif section.heading:
            lines += [f"## {md_text(section.heading, line_start=False)}", ""]
        for i, block in enumerate(section.blocks):
            # Consecutive findings or notes make one list; any other block stands apart.
            joined = i and isinstance(block, (Finding, Notes)) and type(section.blocks[i - 1]) is type(block)
            if joined and lines[-1] == "":
                lines.pop()
            lines += [*_markdown_lines(block), ""]
        if section.folded:
            lines += ["</details>", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


# --- HTML ---------------------------------------------------------------------------------------------

_CSP = "default-src 'none'; style-src 'unsafe-inline'"
_CSS = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#111827}"
        "table{border-collapse:collapse}th,td{border:1px solid #d1d5db;padding:.25rem .5rem;text-align:left}"
        "td.num{text-align:right}pre{background:#f3f4f6;padding:.5rem;overflow-x:auto}"
        ".verdict{font-weight:600}.label{font-family:monospace;font-weight:600}")


def _html_cell(cell: Cell, right: bool) -> str:
    body = f"<code>{esc(cell.text)}</code>" if isinstance(cell, Code) else esc(cell)
    return f'<td class="num">{body}</td>' if right else f"<td>{body}</td>"


def _html_block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p>{esc(block.text)}</p>"
    if isinstance(block, Code):
        kind = f' class="language-{esc(block.language)}"' if block.language else ""
        return f"<pre><code{kind}>{esc(block.text)}</code></pre>"
    if isinstance(block, Table):
        head = "".join(f"<th>{esc(h)}</th>" for h in block.header)
        body = "".join("<tr>" + "".join(_html_cell(c, block.align[i:i + 1] == "r") for i, c in enumerate(row))
                       + "</tr>" for row in block.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if isinstance(block, Finding):
        detail = "".join(f"<li>{esc(line)}</li>" for line in block.detail)
        return (f'<div class="finding"><p><span class="label">{esc(block.label)}</span> {esc(block.title)}</p>'
                + (f"<ul>{detail}</ul>" if detail else "") + "</div>")
    return "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in block.lines) + "</ul>"


def _html(document: Document) -> str:
    body = [f"<h1>{esc(document.title)}</h1>"]
    if document.verdict:
        body.append(f'<p class="verdict">Verdict: {esc(document.verdict)}</p>')
    for section in document.sections:
        heading = [f"<h2>{esc(section.heading)}</h2>"] if section.heading else []
        shell = (f"<details><summary>{esc(section.heading)}</summary>", "</details>") if section.folded else (
            "<section>", "</section>")
        body.append("\n".join([shell[0], *([] if section.folded else heading), *(_html_block(b) for b in section.blocks),
                               shell[1]]))
    return "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        f"<title>{esc(document.title)}</title><style>{_CSS}</style></head>\n<body>\n",
        "\n".join(body), "\n</body></html>\n",
    ])
