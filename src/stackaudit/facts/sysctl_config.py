"""The sysctl values the next boot sets: sysctl.d files in systemd-sysctl's order, /etc/sysctl.conf last.

Order (sysctl.d(5), https://www.freedesktop.org/software/systemd/man/latest/sysctl.d.html): files of the
same name, /etc over /run over /usr/local/lib over /usr/lib; all files sorted by name whatever their
directory; where several set a key, the lexicographically latest file wins. procps `sysctl --system`
applies /etc/sysctl.conf after them (sysctl(8)); systemd distributions link it in as
/etc/sysctl.d/99-sysctl.conf, which is the same place in practice. A key is written dotted or with
slashes (`kernel/numa_balancing`); a leading `-` only silences a missing key; a `*` pattern sets every
key it matches.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from stackaudit.facts.config_dirs import (
    ConfigFile,
    ConfigLine,
    Unread,
    config_lines,
    read_config_dirs,
    read_file,
)
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import SYSCTL_CONF, SYSCTL_D


@dataclass(frozen=True)
class SysctlLine(ConfigLine):
    key: str  # dotted form
    value: str
    file: str
    line: int


@dataclass(frozen=True)
class SysctlConfig(Unread):
    """Every assignment in the order applied at boot; `unread`: places not in the source (incomplete)."""

    lines: tuple[SysctlLine, ...]
    files: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()

    def winner(self, key: str) -> SysctlLine | None:
        """The assignment that takes effect for `key` (the last one that names or matches it)."""
        found: SysctlLine | None = None
        for line in self.lines:
            if line.key == key or ("*" in line.key and fnmatch.fnmatchcase(key, line.key)):
                found = line
        return found


def dotted(key: str) -> str:
    """`kernel/numa_balancing` -> `kernel.numa_balancing`: with a slash first, slashes and dots swap."""
    key = key.strip()
    slash, dot = key.find("/"), key.find(".")
    if slash != -1 and (dot == -1 or slash < dot):
        return key.translate(str.maketrans("/.", "./"))
    return key


def parse_sysctl_conf(path: str, text: str) -> list[SysctlLine]:
    """`key = value` lines of one file (`#` and `;` comments; a leading `-` dropped)."""
    out = []
    for n, line in config_lines(text):
        key, eq, value = line.partition("=")
        if not eq:
            continue
        key = key.strip().lstrip("-").strip()
        if key:
            out.append(SysctlLine(dotted(key), value.strip(), path, n))
    return out


def sysctl_config_of(files: list[ConfigFile], unread: tuple[str, ...] = (), hidden: tuple[str, ...] = ()
                     ) -> SysctlConfig:
    lines = [line for f in files for line in parse_sysctl_conf(f.path, f.text)]
    return SysctlConfig(tuple(lines), tuple(f.path for f in files), unread, hidden)


@provider("sysctl_config", SysctlConfig, title="sysctl.d and /etc/sysctl.conf", hint=SYSCTL_D[0].hint)
def sysctl_config(ctx: FactContext) -> SysctlConfig:
    """The sysctl assignments the next boot applies (sysctl.d and /etc/sysctl.conf)."""
    found = read_config_dirs(ctx.host, tuple(s.path for s in SYSCTL_D))
    files = list(found.files)
    unread = list(found.unread)
    text, shown = read_file(ctx.host, SYSCTL_CONF.path)
    if not shown:
        unread.append(SYSCTL_CONF.path)
    elif text is not None and not any(f.path.endswith("/99-sysctl.conf") for f in files):
        files.append(ConfigFile(SYSCTL_CONF.path, text))
    if len(unread) == len(SYSCTL_D) + 1:
        raise FactUnavailable("no sysctl configuration (sysctl.d, /etc/sysctl.conf) in this source",
                              hint=SYSCTL_D[0].hint)
    return sysctl_config_of(files, tuple(unread), found.hidden)
