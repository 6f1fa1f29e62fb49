"""Writing a command's output: stdout or --output FILE (written whole, atomically)."""

from __future__ import annotations

import os
import sys

from stackaudit.errors import InputError

# The arguments stackaudit was run with (after the program name), for the report's command line.
_invocation: list[str] | None = None


def remember_invocation(argv: list[str]) -> None:
    global _invocation
    _invocation = list(argv)


def invocation() -> list[str] | None:
    """The argv the CLI was started with, or None when it was not started through `main`."""
    return None if _invocation is None else list(_invocation)


def emit(text: str, output: str | None) -> None:
    if not output or output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(directory):
        raise InputError(f"cannot write {output}: directory {directory} does not exist")
    tmp = f"{output}.part"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, output)
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from exc


def split_csv(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for value in values or []:
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return out
