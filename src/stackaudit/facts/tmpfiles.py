"""Files systemd-tmpfiles writes at boot: `w PATH - - - - VALUE` lines of tmpfiles.d, the way a sysfs value
(THP defrag) is kept (tmpfiles.d(5), https://www.freedesktop.org/software/systemd/man/latest/tmpfiles.d.html).

Where several files name the same path, the entry in the file with the lexicographically *earliest* name
applies (the opposite of sysctl.d); a later one is a conflict systemd-tmpfiles ignores.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.facts.config_dirs import ConfigFile, ConfigLine, Unread, config_lines, read_config_dirs
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import TMPFILES_D


@dataclass(frozen=True)
class TmpfileWrite(ConfigLine):
    path: str
    value: str
    file: str
    line: int


@dataclass(frozen=True)
class TmpfilesConfig(Unread):
    writes: tuple[TmpfileWrite, ...]  # in the order read
    unread: tuple[str, ...] = ()


def parse_tmpfiles(path: str, text: str) -> list[TmpfileWrite]:
    out = []
    for n, line in config_lines(text, comments="#"):
        fields = line.split(None, 6)
        # `w`, `w+` (append), with `!`/`-`/`=` modifiers: the argument is the seventh field.
        if len(fields) == 7 and fields[0].rstrip("!-=~^").startswith("w"):
            out.append(TmpfileWrite(fields[1], fields[6].strip(), path, n))
    return out


def tmpfiles_config_of(files: list[ConfigFile], unread: tuple[str, ...] = ()) -> TmpfilesConfig:
    return TmpfilesConfig(tuple(w for f in files for w in parse_tmpfiles(f.path, f.text)), unread)


@provider("tmpfiles_config", TmpfilesConfig, title="tmpfiles.d")
def tmpfiles_config(ctx: FactContext) -> TmpfilesConfig:
    """The `w` (write) entries of tmpfiles.d (tmpfiles.d)."""
    found = read_config_dirs(ctx.host, tuple(s.path for s in TMPFILES_D))
    if len(found.unread) == len(TMPFILES_D):
        raise FactUnavailable("no tmpfiles.d directory in this source")
    return tmpfiles_config_of(list(found.files), found.unread)
