"""systemd units the next boot starts: `systemctl enable` makes a link in
/etc/systemd/system/<target>.wants/ (systemctl(1), "enable"); a local oneshot unit under /etc/systemd/system
keeps a runtime command (setpci, an echo into /sys, cpupower) by running it at every boot
(https://www.freedesktop.org/software/systemd/man/latest/systemctl.html).

A unit linked to /dev/null in /etc/systemd/system is masked: it never starts, enabled or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts.config_dirs import Unread, list_names, read_file
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import SYSTEMD_SYSTEM
from stackaudit.host.base import NotCaptured

MAX_UNITS = 256
MAX_WANTS_DIRS = 64
VENDOR_UNIT_DIRS = ("/usr/lib/systemd/system", "/lib/systemd/system")
_EXEC = re.compile(r"^\s*(ExecStart(?:Pre|Post)?)\s*=\s*(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class LocalUnit:
    name: str
    path: str
    exec_lines: tuple[str, ...]  # ExecStartPre/ExecStart/ExecStartPost values, prefixes (-@:+!) dropped


@dataclass(frozen=True)
class SystemdUnits(Unread):
    """Units enabled through /etc/systemd/system/*.wants (unit -> the targets that want it), masked units,
    and the local units' commands."""

    wanted_by: tuple[tuple[str, str], ...]  # (unit, target)
    masked: frozenset[str] = frozenset()
    local: tuple[LocalUnit, ...] = ()
    unread: tuple[str, ...] = ()

    def enabled(self, unit: str) -> tuple[str, ...]:
        """The targets that start `unit` at boot ('' suffix .service optional); () when none or masked."""
        name = unit if "." in unit else unit + ".service"
        if name in self.masked:
            return ()
        return tuple(t for u, t in self.wanted_by if u == name)

    def running(self, needle: str) -> list[tuple[LocalUnit, str]]:
        """Enabled local units and the command line of theirs that contains `needle`."""
        return [(u, line) for u in self.local if self.enabled(u.name) for line in u.exec_lines if needle in line]


def exec_lines(text: str) -> tuple[str, ...]:
    return tuple(m.group(2).strip().lstrip("-@:+!").strip() for m in _EXEC.finditer(text) if m.group(2).strip())


@provider("systemd_units", SystemdUnits, title=SYSTEMD_SYSTEM.title, hint=SYSTEMD_SYSTEM.hint)
def systemd_units(ctx: FactContext) -> SystemdUnits:
    """Units enabled at boot and the local units' commands (/etc/systemd/system)."""
    base = SYSTEMD_SYSTEM.path
    names, shown = list_names(ctx.host, base)
    if not shown:
        raise FactUnavailable(f"{base} is not in this source", hint=SYSTEMD_SYSTEM.hint)
    wanted: list[tuple[str, str]] = []
    masked: set[str] = set()
    local: list[LocalUnit] = []
    unread: list[str] = []
    for name in names[:MAX_UNITS]:
        path = f"{base}/{name}"
        if name.endswith((".wants", ".requires")):
            units, ok = list_names(ctx.host, path)
            if not ok:
                unread.append(path)
            wanted += [(u, name.rsplit(".", 1)[0]) for u in units]
        elif name.endswith((".service", ".timer", ".path")):
            try:
                if ctx.host.readlink(path) == "/dev/null":
                    masked.add(name)
                    continue
            except (OSError, NotCaptured):
                pass  # not a link (or not recorded as one): a unit file
            text, ok = read_file(ctx.host, path)
            if not ok:
                unread.append(path)
            elif text is not None:
                local.append(LocalUnit(name, path, exec_lines(text)))
    # Units a package enables statically (links in the vendor tree's *.wants, no `systemctl enable` needed).
    for vendor in VENDOR_UNIT_DIRS:
        names, ok = list_names(ctx.host, vendor)
        for name in [n for n in names if n.endswith(".wants")][:MAX_WANTS_DIRS]:
            units, ok = list_names(ctx.host, f"{vendor}/{name}")
            wanted += [(u, name.rsplit(".", 1)[0]) for u in units]
    return SystemdUnits(tuple(wanted), frozenset(masked), tuple(local), tuple(unread))
