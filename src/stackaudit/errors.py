"""Errors that the CLI turns into exit codes (docs/design.md)."""

from __future__ import annotations

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
