"""udev rules that set sysfs attributes (`ATTR{name}="value"`) or run a program (`RUN+="…"`) when a device
appears: one way a sysfs value or a setpci write is kept across reboots (udev(7),
https://www.freedesktop.org/software/systemd/man/latest/udev.html). Rules files are stacked like sysctl.d
(/etc/udev/rules.d over /run over /usr/lib, same name hides) and read in name order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts.config_dirs import ConfigFile, ConfigLine, Unread, config_lines, read_config_dirs
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import UDEV_RULES_D

# KEY, KEY{attr}, then an operator, then a double-quoted value.
_PAIR = re.compile(r'\s*([A-Za-z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?')


@dataclass(frozen=True)
class UdevRule(ConfigLine):
    file: str
    line: int
    matches: tuple[tuple[str, str], ...]  # (KEY or KEY{attr}, value) of == matches
    attrs: tuple[tuple[str, str], ...]  # (attribute, value) assigned with ATTR{...}=
    runs: tuple[str, ...]  # RUN+= programs

    def sets(self, sysfs_path: str) -> str | None:
        """The value this rule writes to a file whose path ends with an ATTR{} it assigns."""
        for attr, value in self.attrs:
            if sysfs_path.endswith("/" + attr.lstrip("/")):
                return value
        return None


@dataclass(frozen=True)
class UdevRules(Unread):
    rules: tuple[UdevRule, ...]
    unread: tuple[str, ...] = ()


def parse_udev_rules(path: str, text: str) -> list[UdevRule]:
    out = []
    for n, line in config_lines(text, comments="#"):
        matches: list[tuple[str, str]] = []
        attrs: list[tuple[str, str]] = []
        runs: list[str] = []
        pos = 0
        while pos < len(line):
            m = _PAIR.match(line, pos)
            if not m:
                break
            pos = m.end()
            key, attr, op, value = m.group(1), m.group(2), m.group(3), m.group(4)
            name = f"{key}{{{attr}}}" if attr is not None else key
            if op in ("==", "!="):
                matches.append((name if op == "==" else name + "!", value))
            elif key in ("ATTR", "SYSCTL") and attr and op in ("=", ":="):
                attrs.append((attr, value))
            elif key == "RUN" and op in ("+=", "=", ":="):
                runs.append(value)
        if attrs or runs:
            out.append(UdevRule(path, n, tuple(matches), tuple(attrs), tuple(runs)))
    return out


def udev_rules_of(files: list[ConfigFile], unread: tuple[str, ...] = ()) -> UdevRules:
    return UdevRules(tuple(r for f in files for r in parse_udev_rules(f.path, f.text)), unread)


@provider("udev_rules", UdevRules, title="udev rules.d")
def udev_rules(ctx: FactContext) -> UdevRules:
    """udev rules that assign sysfs attributes or run programs (udev rules.d)."""
    found = read_config_dirs(ctx.host, tuple(s.path for s in UDEV_RULES_D), suffix=".rules")
    if len(found.unread) == len(UDEV_RULES_D):
        raise FactUnavailable("no udev rules directory in this source")
    return udev_rules_of(list(found.files), found.unread)
