"""Errors that the CLI turns into exit codes (docs/design.md)."""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class StackauditError(Exception):
    """Base class: its message is printed as one line, the process exits with `exit_code`."""

    exit_code = EXIT_INTERNAL


class UsageError(StackauditError):
    """Bad flags or arguments (exit 2)."""

    exit_code = EXIT_USAGE


class InputError(StackauditError):
    """An input the user gave cannot be read or understood (exit 2)."""

    exit_code = EXIT_USAGE


def report_error(exc: BaseException) -> int:
    """Write the one line an error that ended a command gets on stderr; its exit code. The CLI's main and
    the zipapp's (fleet/zipapp.py, which cannot import click) end the same way through this."""
    from stackaudit.render.text import one_line

    if isinstance(exc, StackauditError):
        sys.stderr.write(f"stackaudit: error: {one_line(str(exc))}\n")
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        sys.stderr.write("stackaudit: interrupted\n")
        return 130
    sys.stderr.write(f"stackaudit: internal error: {type(exc).__name__}: {one_line(str(exc))}\n")
    return EXIT_INTERNAL
