"""The one way to make text one line (fold it, escape it for a terminal, cut it with `…`), and the one line
an error that ends a command writes on stderr."""

from __future__ import annotations

import re
import sys
from typing import Any

from stackaudit.errors import EXIT_INTERNAL, StackauditError

_SPACES = re.compile(r"\s+")


def cut(text: str, limit: int) -> str:
    """`text` when it has at most `limit` characters; else its first `limit - 1` and `…`."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int | None = None) -> str:
    """`text` as one visible line: each run of white space (line breaks too) becomes one space, the ends are
    stripped, control characters a value may hold are escaped (stackaudit.terminal), and it is cut at `limit`."""
    from stackaudit.terminal import escape_terminal

    line = escape_terminal(_SPACES.sub(" ", text).strip())
    return line if limit is None else cut(line, limit)


def first_line(text: str, default: str = "") -> str:
    """The first non-blank line of `text`, stripped; `default` when it has none."""
    return next((line.strip() for line in text.splitlines() if line.strip()), default)


def error_line(exc: BaseException, limit: int | None = None) -> str:
    """The first line of an error's message (its type's name when it has none), cut at `limit`."""
    line = first_line(str(exc), type(exc).__name__)
    return line if limit is None else cut(line, limit)


def last_line(text: str, default: str = "") -> str:
    """The last non-blank line of `text` (where a program says why it stopped), stripped; `default` when it
    has none."""
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), default)


def report_error(exc: BaseException) -> int:
    """Write the one line an error that ended a command gets on stderr; its exit code. The CLI's main and
    the zipapp's (fleet/zipapp.py, which cannot import click) end the same way through this."""
    if isinstance(exc, StackauditError):
        sys.stderr.write(f"stackaudit: error: {one_line(str(exc))}\n")
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        sys.stderr.write("stackaudit: interrupted\n")
        return 130
    sys.stderr.write(f"stackaudit: internal error: {type(exc).__name__}: {one_line(str(exc))}\n")
    return EXIT_INTERNAL


def show_value(value: Any, limit: int = 160) -> str:
    """A value in words for prose, never JSON: `key value` pairs and items joined by `, ` (`; ` when an item
    holds a comma), yes/no, `none` for an empty one, `—` for None. Longer than `limit`: the whole items that
    fit and `and N more`; one item alone too long is cut at a word, with `…`."""
    if value is None:
        return "—"
    items = _items(value)
    sep = "; " if any(", " in i for i in items) else ", "
    text = sep.join(items) if items else "none"
    if len(text) <= limit:
        return text
    for n in range(len(items) - 1, 0, -1):
        head = sep.join(items[:n]) + f" and {len(items) - n} more"
        if len(head) <= limit:
            return head
    return cut_at_word(text, limit)


def plural(n: int, word: str) -> str:
    """`1 node`, `2 nodes`: a count and its noun."""
    return f"{n} {word}{'s' if n != 1 else ''}"


def cut_at_word(text: str, limit: int) -> str:
    """At most `limit` characters, cut before a word (never inside one), `…` marking the cut."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(",;:") + "…"


def _items(value: Any) -> list[str]:
    """The top-level items of a value, each in words."""
    if isinstance(value, dict):
        # `ShmSize 64 MiB`; a key of several words is set apart: `0000:3b:00.0 xid 79: 1`.
        return [f"{k}{':' if ' ' in str(k) else ''} {_word(v, nested=True)}".rstrip() for k, v in value.items()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_word(v, nested=True) for v in value]
    return [_word(value, nested=False)]


def _word(value: Any, nested: bool) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        items = _items(value)
        if not items:
            return "none"
        inner = ", ".join(items)
        return f"({inner})" if nested and len(items) > 1 else inner
    return str(value)
