"""Stacked configuration directories as systemd reads them (sysctl.d, modprobe.d, modules-load.d, tmpfiles.d,
udev rules): every `*.conf` of every directory, a name in an earlier directory hiding the same name in a later
one (/etc over /run over /usr/local/lib over /usr/lib), the whole set taken in the order of the file names
regardless of directory (sysctl.d(5), "Configuration Directories and Precedence":
https://www.freedesktop.org/software/systemd/man/latest/sysctl.d.html).

A directory that the source does not show (a snapshot from another version, a paste) or that could not be
read makes the set incomplete: what it would hold is unknown, so nothing can be concluded from its absence.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.host.base import Host, NotCaptured, read_text

MAX_FILES = 128
MAX_FILE_BYTES = 256 * 1024


class ConfigLine:
    """Base of a configuration line's dataclass (its own `file` and `line` fields): where it stands."""

    file: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


class Unread:
    """Base of a configuration fact's dataclass (its own `unread` field): the places that could change it but
    are not in the source (or could not be read) make it incomplete."""

    unread: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not self.unread


@dataclass(frozen=True)
class ConfigFile:
    path: str
    text: str


@dataclass(frozen=True)
class ConfigSet(Unread):
    """The files in the order they apply; `unread`: directories or files the source does not show (or that
    could not be read), which make the set incomplete; `hidden`: files a same-named file in a directory
    earlier in the list replaces (kept for the report's evidence)."""

    files: tuple[ConfigFile, ...]
    unread: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()


def read_file(host: Host, path: str) -> tuple[str | None, bool]:
    """(text or None when absent, whether it was shown): PermissionError and NotCaptured are not shown."""
    try:
        return read_text(host, path, MAX_FILE_BYTES), True
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None, True
    except (OSError, NotCaptured):
        return None, False


def list_names(host: Host, directory: str) -> tuple[list[str], bool]:
    """(entry names, whether the directory was shown); a directory that does not exist is shown, empty."""
    try:
        return host.list_dir(directory), True
    except (FileNotFoundError, NotADirectoryError):
        return [], True
    except (OSError, NotCaptured):
        return [], False


def read_config_dirs(host: Host, dirs: tuple[str, ...], suffix: str = ".conf") -> ConfigSet:
    """Every `*suffix` file of `dirs` (highest precedence first), the same name once, sorted by name."""
    chosen: dict[str, str] = {}
    hidden: list[str] = []
    unread: list[str] = []
    for directory in dirs:
        names, shown = list_names(host, directory)
        if not shown:
            unread.append(directory)
            continue
        for name in names:
            if not name.endswith(suffix) or "/" in name:
                continue
            if name in chosen:
                hidden.append(f"{directory}/{name}")
            else:
                chosen[name] = f"{directory}/{name}"
    files: list[ConfigFile] = []
    for name in sorted(chosen)[:MAX_FILES]:
        text, shown = read_file(host, chosen[name])
        if not shown:
            unread.append(chosen[name])
        elif text is not None:
            files.append(ConfigFile(chosen[name], text))
    return ConfigSet(tuple(files), tuple(unread), tuple(hidden))


def config_lines(text: str, comments: str = "#;") -> list[tuple[int, str]]:
    """(1-based line number, stripped line) of the lines that are not blank or comments; a line ending in a
    backslash goes on on the next (its number is the first's)."""
    out: list[tuple[int, str]] = []
    pending = ""
    start = 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not pending and (not line or line[0] in comments):
            continue
        if not pending:
            start = n
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, (pending + line).strip()))
        pending = ""
    if pending.strip():
        out.append((start, pending.strip()))
    return out
