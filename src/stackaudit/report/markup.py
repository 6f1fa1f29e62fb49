"""The one Markdown escaper: every Markdown renderer (the report, docs/checks.md) writes text through it.

GitHub's renderer reads `<word>` as an HTML tag and drops it (`prlimit --pid <api-server pid>` would
paste as `prlimit --pid`), `*` and `_` as emphasis, `|` as a table cell's end, and a code span ends at
the first backtick run as long as its fence. So: prose is backslash-escaped (CommonMark escapes any
ASCII punctuation, https://spec.commonmark.org/0.31.2/#backslash-escapes), code spans and code blocks
get a fence longer than any backtick run inside, and text inside code is never escaped (it is shown
verbatim there).
"""

from __future__ import annotations

import re

# Characters that start inline markup or HTML, or end a table cell; `\` first so it is not doubled.
_SPECIAL = re.compile(r"([\\`*_<>|&\[\]])")
_LINE_START = re.compile(r"^(\s*)(\d*)([#+\-=.)])(?=\s|$)")


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


def md_inline(text: str) -> str:
    """Prose with `backticked` spans: the spans become code spans, the rest is escaped.

    Text with an odd number of backticks has no well-formed spans: it is escaped whole.
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return md_text(text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(md_code(part) if part else "")
        else:
            out.append(md_text(part, line_start=i == 0))
    return "".join(out)


def md_cell(text: str) -> str:
    """A table cell: like md_inline, and a `|` inside a code span is escaped too (GFM ends the cell there)."""
    return md_inline(text).replace("|", "\\|").replace("\\\\|", "\\|")
