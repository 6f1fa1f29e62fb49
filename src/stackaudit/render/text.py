"""The one way to make text one line (fold it, escape it for a terminal, cut it with `…`), and the one line
an error that ends a command writes on stderr."""

from __future__ import annotations

import re
import sys

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
