"""The one escaper per target: Markdown (`md_*`) and HTML (`esc`); the terminal's is stackaudit.terminal's.

Every Markdown renderer (the report, bench, ceiling, compare, fleet, docs/checks.md) writes text through
the `md_*` functions.

GitHub's renderer reads `<word>` as an HTML tag and drops it (`prlimit --pid <api-server pid>` would
paste as `prlimit --pid`), `*` and `_` as emphasis, `|` as a table cell's end, and a code span ends at
the first backtick run as long as its fence. So: prose is backslash-escaped (CommonMark escapes any
ASCII punctuation, https://spec.commonmark.org/0.31.2/#backslash-escapes), code spans and code blocks
get a fence longer than any backtick run inside, and text inside code is never escaped (it is shown
verbatim there).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

# Characters that start inline markup or HTML, or end a table cell; `\` first so it is not doubled.
_SPECIAL = re.compile(r"([\\`*_<>|&\[\]])")
_LINE_START = re.compile(r"^(\s*)(\d*)([#+\-=.)])(?=\s|$)")


def esc(value: Any) -> str:
    """`value` as HTML text or an attribute value: `&`, `<`, `>` and both quotes escaped."""
    from html import escape  # html.entities is large: imported by the HTML formats only

    return escape(str(value), quote=True)


def md_text(text: str, line_start: bool = True) -> str:
    """Prose, escaped: shown as written whatever it contains; newlines become spaces.

    `line_start`: the text may begin a line, where `# `, `- `, `1. ` would start a block.
    """
    flat = " ".join(text.split("\n"))
    escaped = _SPECIAL.sub(r"\\\1", flat)
    if not line_start:
        return escaped
    return _LINE_START.sub(lambda m: m.group(1) + m.group(2) + "\\" + m.group(3), escaped)


def _longest_run(text: str, char: str = "`") -> int:
    runs = re.findall(f"{re.escape(char)}+", text)
    return max((len(r) for r in runs), default=0)


def md_code(text: str) -> str:
    """A code span that shows `text` verbatim, whatever backticks it holds."""
    flat = " ".join(text.split("\n"))
    fence = "`" * (_longest_run(flat) + 1)
    # A span that starts or ends with a backtick (or is all spaces) needs a padding space each side;
    # CommonMark strips one space from each side of such a span.
    pad = " " if flat.startswith("`") or flat.endswith("`") or (flat.startswith(" ") and flat.endswith(" ")) else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def md_block(lines: list[str], info: str = "sh") -> list[str]:
    """A fenced code block of `lines`, verbatim: the fence is longer than any backtick run inside."""
    fence = "`" * max(3, _longest_run("\n".join(lines)) + 1)
    return [f"{fence}{info}", *lines, fence]


def md_inline(text: str, line_start: bool = True) -> str:
    """Prose with `backticked` spans: the spans become code spans, the rest is escaped.

    Text with an odd number of backticks has no well-formed spans: it is escaped whole.
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return md_text(text, line_start)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(md_code(part) if part else "")
        else:
            out.append(md_text(part, line_start=line_start and i == 0))
    return "".join(out)


def md_cell(text: str) -> str:
    """A table cell: like md_inline, and a `|` inside a code span is escaped too (GFM ends the cell there).

    A cell starts no block, so `-` or `1.` at its start stays as written.
    """
    return md_inline(text, line_start=False).replace("|", "\\|").replace("\\\\|", "\\|")


def md_cell_code(text: str) -> str:
    """A table cell holding `text` verbatim: a code span, its pipes escaped (GFM ends a cell at one)."""
    return md_code(text).replace("|", "\\|")


def md_table(header: Sequence[str], rows: Iterable[Sequence[str]], align: Sequence[str] | None = None) -> list[str]:
    """A GFM table of cells already escaped (md_cell, md_cell_code); `align` gives each column's rule
    (`---`, `---:`), `---` by default."""
    rules = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(rules) + "|"]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return out
