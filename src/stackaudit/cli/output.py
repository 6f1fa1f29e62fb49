"""Writing a command's output: stdout or --output FILE (written whole, atomically)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from stackaudit.host.terminal import escape_terminal

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
        # Every command's text on stdout: no control character from a host value reaches a terminal
        # (the renderer's own SGR colours stay). A file written with --output gets the text as it is.
        sys.stdout.write(escape_terminal(text, keep_colour=True))
        sys.stdout.flush()
        return
    from stackaudit.render.write import write_file

    # --output replaces the file it names, as a shell's `>` would (these commands have no --force).
    write_file(output, text, force=True)


def split_csv(values: Sequence[str] | None) -> list[str]:
    out: list[str] = []
    for value in values or []:
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return out


def split_paths(values: Sequence[str] | None) -> list[str]:
    """`--from a,b` as `--from a --from b`, like --select; a path that exists with a comma in its name
    stays whole."""
    out: list[str] = []
    for value in values or []:
        if "," in value and not os.path.lexists(value):
            out.extend(v.strip() for v in value.split(",") if v.strip())
        else:
            out.append(value)
    return out


def colour_wanted(forced: bool | None, stream: object) -> bool:
    """Colour: --color/--no-color when given, else only on a terminal and never with NO_COLOR set to
    anything but "" (https://no-color.org)."""
    if forced is not None:
        return forced
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())
