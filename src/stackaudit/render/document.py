"""The document every product builds, and the one drawer of it as text, Markdown, HTML and JSON.

A product says what it shows (a title, a verdict, sections of blocks) and hands over its JSON payload; how a
heading, a table or a code block looks in each format, and how each format escapes, is decided here only.
The JSON is the payload itself, its `schema` key stamped first from the format registry (render.formats).

Text: the title, the verdict, then each section after a blank line, its blocks indented under its heading;
prose wrapped to a width when one is given, a command or a code line never (so it is copied whole).
Markdown: every data text goes through render.escape, so a `_`, `*`, `|` or `<word>` is shown as written.
HTML: one self-contained page (no fetch), every text through `esc`; a finding with lines under it is a fold
that opens to them, tagged findings get a filter per tag, a table's keyed rows a text box that finds them, a
command a copy button (inline script, only then).
A finding's tone colours its label: a badge on the page, the line in text. An `https://` address is a link.
A folded section is detail a reader opens: `<details>` in Markdown and HTML; text, read at a terminal, leaves
it out.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.render.escape import esc, md_block, md_cell, md_cell_code, md_inline, md_table, md_text
from stackaudit.render.formats import SCHEMAS
from stackaudit.render.text import one_line
from stackaudit.terminal import escape_terminal


@dataclass(frozen=True)
class Paragraph:
    """Prose on one line; `backticked` spans are code in Markdown; `depth` sets it in under the block before
    (in text)."""

    text: str
    depth: int = 0


@dataclass(frozen=True)
class Code:
    """Text shown verbatim: a block of lines, or (as a table cell) a value that must not be read as markup."""

    text: str
    language: str = ""
    depth: int = 0


@dataclass(frozen=True)
class Command:
    """One command to run, shown whole: `$ ` in front in text, a `sh` block in Markdown."""

    text: str
    depth: int = 0


Cell = str | Code


@dataclass(frozen=True)
class Table:
    """Rows of cells under a header; `align` gives a column `r` to align it right (`l`, the default, left).

    On the HTML page only: `id` names the table; `tones` marks a row (a name in TONES, one a row; empty: none);
    `keys` are the names a row is found by, one tuple a row. A table with a `toggle` has a text box above it
    that keeps the rows (of every table) one of whose keys contains the text, and a box labelled `toggle` that
    keeps only its own marked rows."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    align: str = ""
    id: str = ""
    tones: tuple[str, ...] = ()
    keys: tuple[tuple[str, ...], ...] = ()
    toggle: str = ""


@dataclass(frozen=True)
class Finding:
    """One thing found: its label (a check ID, a priority or a status; none: its title alone), its title, the
    lines that explain it
    and the blocks under them (a fix's steps); a finding with blocks is a heading of its own in Markdown.

    `more`: lines only the HTML page shows, in the finding's fold. `tags`: (name, value) pairs the HTML page
    filters by. `anchor`: the finding's id in HTML, for a link to it. `tone`: how urgent it is (a name in
    TONES), the colour of its label: a badge in HTML, the line's colour in text."""

    label: str
    title: str
    detail: tuple[str, ...] = ()
    blocks: tuple[Paragraph | Code | Command, ...] = ()
    more: tuple[str, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()
    anchor: str = ""
    tone: str = ""


@dataclass(frozen=True)
class Notes:
    """A list of short lines (warnings, assumptions, facts about the source); `links`, where given, are the
    lines' targets in HTML (an `https://` address or a `#anchor` in the page; empty: no link), one a line."""

    lines: tuple[str, ...]
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class Picture:
    """A drawing: `html` (inline SVG the product drew and escaped) and the `style` it needs, on the HTML page;
    its `source` (a Mermaid diagram GitHub draws) in Markdown, where one is given; `caption` with it in both.
    `key`: what the drawing marks, in words, under it on the HTML page. Text leaves it out."""

    html: str
    style: str = ""
    source: Code | None = None
    caption: str = ""
    key: Notes | None = None


Block = Paragraph | Code | Command | Table | Finding | Notes | Picture

# A finding's tone: its SGR style in text (a finding without one: bold) and its badge colour in HTML.
TONES = {"alarm": ("1;31", "#b91c1c"), "warn": ("1;33", "#c2410c"), "note": ("36", "#a16207"),
         "good": ("32", "#15803d"), "info": ("34", "#0369a1")}


@dataclass(frozen=True)
class Section:
    """Blocks under a heading; a section without one continues the document's head. A `folded` one is
    detail a reader opens (Markdown and HTML); text leaves it out."""

    heading: str
    blocks: tuple[Block, ...]
    folded: bool = False


@dataclass(frozen=True)
class Document:
    """What a product shows (`title`, `verdict`, `sections`) and its JSON `payload` (without its schema number).

    A payload costly to build may be given as a function: it is called only when the JSON is drawn."""

    product: str
    title: str
    verdict: str
    sections: tuple[Section, ...]
    payload: Mapping[str, Any] | Callable[[], Mapping[str, Any]]


def stamped(product: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """`payload` with the product's schema number (render.formats.SCHEMAS) as its first key; as it is for a
    product without a number there."""
    if product not in SCHEMAS:
        return dict(payload)
    return {"schema": SCHEMAS[product], **{k: v for k, v in payload.items() if k != "schema"}}


def appended(document: Document, sections: tuple[Section, ...]) -> Document:
    """`document` with `sections` after its own (the payload as it is)."""
    return Document(document.product, document.title, document.verdict, document.sections + sections,
                    document.payload)


def draw(document: Document, fmt: str, width: int | None = None, color: bool = False) -> str:
    """`document` in `fmt` (text, markdown, html or json); text's prose wrapped at `width` columns when given,
    and in colour (bold headings, green commands) with `color`."""
    if fmt == "json":
        payload = document.payload() if callable(document.payload) else document.payload
        return json.dumps(stamped(document.product, payload), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return _markdown(document)
    if fmt == "html":
        return _html(document)
    if fmt == "text":
        return _text(document, _Wrap(width, color))
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


@dataclass(frozen=True)
class _Wrap:
    """How text lines are made: prose wrapped at `width` (None: one line each), SGR styles with `color`."""

    width: int | None
    color: bool

    def prose(self, text: str, indent: int, hanging: int = 2, style: str = "") -> list[str]:
        return self.wrapped(_plain(text), indent, hanging, style)

    def wrapped(self, line: str, indent: int, hanging: int = 2, style: str = "") -> list[str]:
        """A line already made visible (one_line), wrapped."""
        pad = " " * indent
        # A line that fits comes back from textwrap as it is: drawn without textwrap's chunking.
        fits = self.width is None or (indent + len(line) <= max(40, self.width) and line == line.strip())
        lines = [pad + line] if fits else textwrap.wrap(
            line, width=max(40, self.width or 0), initial_indent=pad, subsequent_indent=pad + " " * hanging,
            break_long_words=False, break_on_hyphens=False) or [pad]
        return [self.styled(x, style) for x in lines]

    def verbatim(self, lines: list[str], indent: int) -> list[str]:
        """Never wrapped: a command or a code line is copied whole."""
        return [self.styled(" " * indent + escape_terminal(x), "32") for x in lines]

    def styled(self, line: str, style: str) -> str:
        return f"\x1b[{style}m{line}\x1b[0m" if self.color and style and line.strip() else line


def _text_block(block: Block, wrap: _Wrap, indent: int) -> list[str]:
    if isinstance(block, Paragraph):
        return wrap.prose(block.text, indent + 2 * block.depth)
    if isinstance(block, Code):
        return wrap.verbatim(block.text.splitlines(), indent + 2 * block.depth)
    if isinstance(block, Command):
        return wrap.verbatim([f"$ {block.text}"], indent + 2 * block.depth)
    if isinstance(block, Table):
        return [" " * indent + line for line in _text_table(block)]
    if isinstance(block, Picture):
        return []
    if isinstance(block, Finding):
        head = f"{_plain(block.label)}  {_plain(block.title)}" if block.label else _plain(block.title)
        return [*wrap.wrapped(head, indent, 4, TONES.get(block.tone, ("1",))[0]),
                *(x for line in block.detail for x in wrap.prose(line, indent + 4)),
                *(x for b in block.blocks for x in _text_block(b, wrap, indent + 4))]
    return [x for line in block.lines for x in wrap.prose(f"- {line}", indent)]


def _stands_apart(block: Block, before: Block) -> bool:
    """Two findings, one of them with lines under it, stand apart by a blank line."""
    return isinstance(block, Finding) and isinstance(before, Finding) and bool(
        block.detail or block.blocks or before.detail or before.blocks)


def _text(document: Document, wrap: _Wrap) -> str:
    lines = wrap.prose(document.title, 0, style="1")
    if document.verdict:
        lines += wrap.prose(f"Verdict: {document.verdict}", 0, style="1")
    for section in document.sections:
        if section.folded or (section.blocks and all(isinstance(b, Picture) for b in section.blocks)):
            continue
        lines += ["", *wrap.prose(section.heading, 0, style="1;4")] if section.heading else [""]
        indent = 2 if section.heading else 0
        for i, block in enumerate(section.blocks):
            # A finding with lines under it stands apart from the next one by a blank line.
            if i and _stands_apart(block, section.blocks[i - 1]):
                lines.append("")
            lines += _text_block(block, wrap, indent)
    return "\n".join(line.rstrip() for line in lines) + "\n"


# --- Markdown -----------------------------------------------------------------------------------------


def _md_cell(cell: Cell) -> str:
    return md_cell_code(cell.text) if isinstance(cell, Code) else md_cell(cell)


def _markdown_lines(block: Block) -> list[str]:
    """One block as Markdown lines, every data text escaped (render.escape)."""
    if isinstance(block, Paragraph):
        return [md_inline(block.text)]
    if isinstance(block, Code):
        return md_block(block.text.splitlines(), block.language)
    if isinstance(block, Command):
        return md_block([block.text], "sh")
    if isinstance(block, Picture):  # its source, under its caption; nothing without a source
        caption = [md_inline(block.caption), ""] if block.caption else []
        return [*caption, *_markdown_lines(block.source)] if block.source else []
    if isinstance(block, Table):
        rules = ["---:" if block.align[i:i + 1] == "r" else "---" for i in range(len(block.header))]
        return md_table([md_cell(h) for h in block.header], ([_md_cell(c) for c in row] for row in block.rows),
                        rules)
    label = f"{md_text(block.label, line_start=False)}" if isinstance(block, Finding) and block.label else ""
    if isinstance(block, Finding) and block.blocks:
        head = f"### {label + ' · ' if label else ''}{md_inline(block.title, line_start=False)}"
        return [head, *(x for line in block.detail for x in ("", md_inline(line))),
                *markdown_blocks(block.blocks)]
    if isinstance(block, Finding):
        return [f"- {f'**{label}** ' if label else ''}{md_inline(block.title, line_start=False)}",
                *(f"  - {md_inline(line)}" for line in block.detail)]
    return [f"- {md_inline(line)}" for line in block.lines]


def markdown_blocks(blocks: Sequence[Block]) -> list[str]:
    """Blocks as Markdown, each after a blank line; consecutive commands in one `sh` fence."""
    merged: list[Block] = []
    for block in blocks:
        before = merged[-1] if merged else None
        if isinstance(block, Command) and isinstance(before, Command | Code) and (
                isinstance(before, Command) or before.language == "sh"):
            merged[-1] = Code(f"{before.text}\n{block.text}", "sh")
        else:
            merged.append(block)
    return [line for block in merged for line in ("", *_markdown_lines(block))]


def _listed(block: Block) -> bool:
    """Whether the block is drawn as a Markdown list (notes, a finding without blocks)."""
    return isinstance(block, Notes) or (isinstance(block, Finding) and not block.blocks)


def _markdown(document: Document) -> str:
    lines = [f"# {md_text(document.title, line_start=False)}", ""]
    if document.verdict:
        lines += [f"**Verdict:** {md_inline(document.verdict, line_start=False)}", ""]
    for section in document.sections:
        if section.blocks and not any(_markdown_lines(b) for b in section.blocks):
            continue
        if section.folded:  # the summary is HTML: Markdown's escapes would show there
            lines += [f"<details><summary>{esc(section.heading)}</summary>", ""]
        elif section.heading:
            lines += [f"## {md_text(section.heading, line_start=False)}", ""]
        for i, block in enumerate(section.blocks):
            # Consecutive findings or notes make one list; any other block stands apart.
            joined = i and _listed(block) and type(section.blocks[i - 1]) is type(block) and _listed(
                section.blocks[i - 1])
            if joined and lines[-1] == "":
                lines.pop()
            lines += [*_markdown_lines(block), ""]
        if section.folded:
            lines += ["</details>", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


# --- HTML ---------------------------------------------------------------------------------------------

_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'"
_CSP_SCRIPT = _CSP + "; script-src 'unsafe-inline'"
_CSS = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#111827}"
        "table{border-collapse:collapse}th,td{border:1px solid #d1d5db;padding:.25rem .5rem;text-align:left}"
        "td.num{text-align:right}pre{background:#f3f4f6;padding:.5rem;overflow-x:auto;white-space:pre-wrap}"
        ".verdict{font-weight:600}.label{font-family:monospace;font-weight:600}"
        ".badge{border-radius:4px;padding:0 6px;color:#fff}"
        + "".join(f".tone-{name}{{background:{colour}}}" for name, (_, colour) in TONES.items()) +
        "details.finding{border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:6px 10px}"
        "details.finding>summary{cursor:pointer}.more{color:#4b5563}.cmd{display:flex;gap:4px}.cmd pre{flex:1}"
        "#filters{border:1px solid #e5e7eb;border-radius:6px;padding:8px 12px;display:flex;flex-wrap:wrap;gap:6px 18px}"
        "#filters fieldset{border:0;margin:0;padding:0}#filters label{margin-right:8px;white-space:nowrap}"
        "figure{margin:0;overflow-x:auto}figcaption{color:#4b5563}tr.tone-alarm td{background:#fef2f2;color:#991b1b;"
        "font-weight:600}#filters input[type=search]{font:inherit;width:18em}")

# The findings' filters (a finding is hidden when one of its tags is unticked) and the copy buttons.
SCRIPT = """
(function(){
  function apply(){
    var on={};
    document.querySelectorAll('#filters input[data-filter]').forEach(function(b){
      (on[b.dataset.filter]=on[b.dataset.filter]||{})[b.value]=b.checked;});
    var shown=0,total=0;
    document.querySelectorAll('.result').forEach(function(r){
      var ok=Object.keys(on).every(function(k){var m=on[k];return !(k in r.dataset)||m[r.dataset[k]]!==false;});
      r.hidden=!ok;total++;if(ok)shown++;});
    var c=document.getElementById('shown');if(c)c.textContent=shown+' of '+total+' results shown';
    var box=document.getElementById('row-filter'),only=document.getElementById('row-toggle');
    if(!box)return;
    var q=box.value.toLowerCase(),rows=0,kept=0;
    document.querySelectorAll('tr[data-keys]').forEach(function(r){
      var mine=r.closest('table').id===box.dataset.table,ok=r.dataset.keys.split('\\n').some(function(k){
        return k.toLowerCase().indexOf(q)>=0;})&&!(mine&&only.checked&&!r.classList.length);
      r.hidden=!ok;if(mine){rows++;if(ok)kept++;}});
    document.getElementById('rows-shown').textContent=kept+' of '+rows+' rows shown';
  }
  document.querySelectorAll('#filters input').forEach(function(b){
    b.addEventListener(b.type==='search'?'input':'change',apply);});
  document.querySelectorAll('button.copy').forEach(function(b){
    b.addEventListener('click',function(){
      var text=b.dataset.copy||'';
      function done(){b.textContent='copied';setTimeout(function(){b.textContent='copy';},1500);}
      try{if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(text).then(done,function(){});return;}}
      catch(e){}
      var t=document.createElement('textarea');t.value=text;document.body.appendChild(t);t.select();
      try{document.execCommand('copy');done();}catch(e){}document.body.removeChild(t);
    });});
  apply();
})();
"""


_URL = re.compile(r"https://[^\s<>\"'`]+[^\s<>\"'`.,;:)\]]")


def _prose(text: str) -> str:
    """Text escaped, each `https://` address in it a link (a trailing stop or bracket left outside)."""
    out, at = [], 0
    for m in _URL.finditer(text):
        out += [esc(text[at:m.start()]), _linked(esc(m.group()), m.group())]
        at = m.end()
    return "".join(out) + esc(text[at:])


def _inline(text: str) -> str:
    """Prose escaped, its `backticked` spans as code (as Markdown shows them), its addresses links; escaped
    whole when the backticks do not pair."""
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return _prose(text)
    return "".join(f"<code>{esc(p)}</code>" if i % 2 else _prose(p) for i, p in enumerate(parts))


def _html_cell(cell: Cell, right: bool) -> str:
    body = f"<code>{esc(cell.text)}</code>" if isinstance(cell, Code) else _inline(cell)
    return f'<td class="num">{body}</td>' if right else f"<td>{body}</td>"


def _depth(block: Paragraph | Code | Command) -> str:
    return f' style="margin-left:{1.5 * block.depth}rem"' if block.depth else ""


def _html_finding(block: Finding) -> str:
    tags = "".join(f' data-{esc(k)}="{esc(v)}"' for k, v in block.tags)
    attrs = (f' id="{esc(block.anchor)}"' if block.anchor else "") + tags
    kind = "finding result" if block.tags else "finding"
    badge = f" badge tone-{esc(block.tone)}" if block.tone in TONES else ""
    label = f'<span class="label{badge}">{esc(block.label)}</span> ' if block.label else ""
    head = label + _inline(block.title)
    if not (block.detail or block.blocks or block.more):
        return f'<p class="{kind}"{attrs}>{head}</p>'
    detail = "".join(f"<li>{_inline(line)}</li>" for line in block.detail)
    more = "".join(f"<li>{_inline(line)}</li>" for line in block.more)
    return (f'<details class="{kind}"{attrs}><summary>{head}</summary>' + (f"<ul>{detail}</ul>" if detail else "")
            + (f'<ul class="more">{more}</ul>' if more else "") + "".join(_html_block(b) for b in block.blocks)
            + "</details>")


def _html_block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p{_depth(block)}>{_inline(block.text)}</p>"
    if isinstance(block, Code):
        kind = f' class="language-{esc(block.language)}"' if block.language else ""
        return f"<pre{_depth(block)}><code{kind}>{esc(block.text)}</code></pre>"
    if isinstance(block, Command):
        return (f'<div class="cmd"{_depth(block)}><pre><code class="language-sh">{esc(block.text)}</code></pre>'
                f'<button type="button" class="copy" data-copy="{esc(block.text)}">copy</button></div>')
    if isinstance(block, Picture):
        caption = f"<figcaption>{_inline(block.caption)}</figcaption>" if block.caption else ""
        return f"<figure>{block.html}{caption}</figure>" + (_html_block(block.key) if block.key else "")
    if isinstance(block, Table):
        return _html_table(block)
    if isinstance(block, Finding):
        return _html_finding(block)
    links = block.links + ("",) * (len(block.lines) - len(block.links))
    return "<ul>" + "".join(f"<li>{_linked(_inline(line), link)}</li>"
                            for line, link in zip(block.lines, links, strict=False)) + "</ul>"


def _html_table(table: Table) -> str:
    """The table; above it, where it has a `toggle`, the text box and the box that filter rows."""
    head = "".join(f"<th>{esc(h)}</th>" for h in table.header)
    tones, keys = table.tones + ("",) * len(table.rows), table.keys + ((),) * len(table.rows)
    body = "".join(
        "<tr" + (f' class="tone-{esc(tone)}"' if tone else "") + (f' data-keys="{esc(chr(10).join(k))}"' if k else "")
        + ">" + "".join(_html_cell(c, table.align[i:i + 1] == "r") for i, c in enumerate(row)) + "</tr>"
        for row, tone, k in zip(table.rows, tones, keys, strict=False))
    ident = f' id="{esc(table.id)}"' if table.id else ""
    box = (f'<div id="filters" role="group" aria-label="filters"><label>find <input type="search" id="row-filter" '
           f'data-table="{esc(table.id)}" aria-label="keep the rows that name"></label><label><input type="checkbox" '
           f'id="row-toggle"> {esc(table.toggle)}</label><span id="rows-shown"></span></div>') if table.toggle else ""
    return f"{box}<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _linked(body: str, link: str) -> str:
    """`body` (HTML) as a link to `link` when it is an https address or an anchor in the page."""
    if not link.startswith(("https://", "#")):
        return body
    outside = ' rel="noreferrer noopener"' if link.startswith("https://") else ""
    return f'<a href="{esc(link)}"{outside}>{body}</a>'


def _filters(findings: list[Finding]) -> str:
    """A box per tag name, a ticked box per value, in the order they are first met; empty without tags."""
    values: dict[str, dict[str, None]] = {}
    for f in findings:
        for name, value in f.tags:
            values.setdefault(name, {})[value] = None
    if not values:
        return ""
    boxes = "".join(f'<fieldset data-filter="{esc(name)}"><legend>{esc(name)}</legend>' + "".join(
        f'<label><input type="checkbox" data-filter="{esc(name)}" value="{esc(v)}" id="filter-{esc(name)}-{esc(v)}"'
        f" checked> {esc(v)}</label>" for v in vals) + "</fieldset>" for name, vals in values.items())
    return f'<div id="filters" role="group" aria-label="filters">{boxes}<span id="shown"></span></div>'


def _html(document: Document) -> str:
    blocks = [b for section in document.sections for b in section.blocks]
    filters = _filters([b for b in blocks if isinstance(b, Finding)])
    body = [f"<h1>{esc(document.title)}</h1>"]
    if document.verdict:
        body.append(f'<p class="verdict">Verdict: {_inline(document.verdict)}</p>')
    for i, section in enumerate(document.sections):
        heading = [f"<h2>{esc(section.heading)}</h2>"] if section.heading else []
        if section.folded:
            heading = [f"<details><summary>{esc(section.heading)}</summary>"]
        blocks_html = [*heading, *(_html_block(b) for b in section.blocks), *(["</details>"] if section.folded else [])]
        body += ["\n".join(["<section>", *blocks_html, "</section>"]), *([filters] if i == 0 and filters else [])]
    # The script only where a filter or a copy button needs it (an escaped value cannot spell them).
    scripted = bool(filters) or any('class="copy"' in part or 'id="row-filter"' in part for part in body)
    styles = dict.fromkeys(b.style for b in blocks if isinstance(b, Picture) and b.style)
    return "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP_SCRIPT if scripted else _CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(document.title)}</title><style>{_CSS}{''.join(styles)}</style></head>\n<body>\n",
        "\n".join(body), f"\n<script>{SCRIPT}</script>" if scripted else "", "\n</body></html>\n",
    ])
