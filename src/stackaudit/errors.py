"""Errors that the CLI turns into exit codes (docs/design.md)."""

from __future__ import annotations

import os

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


def input_mode(path: str, label: str) -> int:
    """The `st_mode` of an input path, or a one-line InputError that starts with `label`."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"{label}: no such file or directory") from None
    except OSError as exc:
        raise InputError(f"{label}: {exc.strerror}") from None
