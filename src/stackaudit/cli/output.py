"""Writing a command's output: stdout or --output FILE (written whole, atomically)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from stackaudit.errors import InputError
from stackaudit.terminal import escape_terminal

# The arguments stackaudit was run with (after the program name), for the report's command line.
_invocation: list[str] | None = None


# -q / -v given to a command that has no flags of its own for them (cli.options.add_verbosity_options).
_verbosity = {"quiet": False, "verbose": False}


def remember_invocation(argv: list[str]) -> None:
    global _invocation
    _invocation = list(argv)
    _verbosity.update(quiet=False, verbose=False)


def set_verbosity(quiet: bool = False, verbose: bool = False) -> None:
    if quiet:
        _verbosity["quiet"] = True
    if verbose:
        _verbosity["verbose"] = True
    if _verbosity["quiet"] and _verbosity["verbose"]:
        from stackaudit.errors import UsageError

        raise UsageError("--quiet and --verbose: give one")


def quiet() -> bool:
    """-q: nothing on stderr but errors."""
    return _verbosity["quiet"]


def verbose() -> bool:
    """-v (on a command without a --verbose of its own)."""
    return _verbosity["verbose"]


def note(line: str) -> None:
    """A line for the user on stderr (`stackaudit: wrote …`), unless -q; host values in it are escaped."""
    if not quiet():
        sys.stderr.write(escape_terminal(line) + "\n")


def invocation() -> list[str] | None:
    """The argv the CLI was started with, or None when it was not started through `main`."""
    return None if _invocation is None else list(_invocation)


def emit(text: str, output: str | None, fmt: str = "", colour: bool = False) -> None:
    """Every command's text on stdout: no control character from a host value reaches a terminal. `colour`:
    the text renderer coloured it after escaping each value, so its SGR sequences stay (only then). A file
    written with --output gets the text as it is, but the `text` format escaped as on a terminal."""
    if not output or output == "-":
        sys.stdout.write(escape_terminal(text, keep_colour=colour))
        sys.stdout.flush()
        return
    if fmt == "text":
        text = escape_terminal(text)
    from stackaudit.render.write import write_file

    # --output replaces the file it names, as a shell's `>` would (these commands have no --force). A report
    # is for sharing and holds no secret (redacted): 0644, so node_exporter's textfile collector, which does
    # not run as root, can read a Prometheus file.
    write_file(output, text, force=True, mode=0o644)


def stdin_to_file(directory: str, label: str, limit: int) -> str:
    """Stdin copied, at most `limit` bytes, into `directory`/stdin (the name the report shows); a terminal or
    more than `limit` bytes is a one-line error."""
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError(f"{label}: stdin is a terminal; pipe the output in (`… | stackaudit …`)")
    path = os.path.join(directory, "stdin")
    copied = 0
    source = getattr(sys.stdin, "buffer", None)
    with open(path, "xb") as fh:
        while True:
            chunk = source.read(1 << 20) if source is not None else sys.stdin.read(1 << 20).encode()
            if not chunk:
                break
            copied += len(chunk)
            if copied > limit:
                raise InputError(f"{label}: more than {limit // 2**20} MiB on stdin; not read")
            fh.write(chunk)
    if copied == 0:
        raise InputError(f"{label}: stdin is empty")
    return path


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
