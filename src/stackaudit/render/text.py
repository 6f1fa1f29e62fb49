"""The one way to make text one line: fold it, escape it for a terminal, cut it with `…`."""

from __future__ import annotations

import re

_SPACES = re.compile(r"\s+")


def cut(text: str, limit: int) -> str:
    """`text` when it has at most `limit` characters; else its first `limit - 1` and `…`."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int | None = None) -> str:
    """`text` as one visible line: each run of white space (line breaks too) becomes one space, the ends are
    stripped, control characters a value may hold are escaped (host.terminal), and it is cut at `limit`."""
    from stackaudit.host.terminal import escape_terminal

    line = escape_terminal(_SPACES.sub(" ", text).strip())
    return line if limit is None else cut(line, limit)


def first_line(text: str, default: str = "") -> str:
    """The first non-blank line of `text`, stripped; `default` when it has none."""
    return next((line.strip() for line in text.splitlines() if line.strip()), default)


def last_line(text: str, default: str = "") -> str:
    """The last non-blank line of `text` (where a program says why it stopped), stripped; `default` when it
    has none."""
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), default)
