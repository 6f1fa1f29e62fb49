"""Which modules the next boot loads, refuses or configures: modules-load.d lists, modprobe.d options,
blacklists and `install <module> /bin/false` (modules-load.d(5), modprobe.d(5):
https://www.freedesktop.org/software/systemd/man/latest/modules-load.d.html,
https://man7.org/linux/man-pages/man5/modprobe.d.5.html).

Names are compared with `-` and `_` alike (the kernel treats them as one). A `blacklist` line stops
loading by alias only; a module named in modules-load.d is still loaded, so only `install M /bin/false`
(or /bin/true, or /usr/bin/…) refuses it.
"""

from __future__ import annotations

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
from stackaudit.facts.sources import ETC_MODULES, MODPROBE_D, MODULES_LOAD_D

_REFUSING = ("/bin/false", "/bin/true", "/usr/bin/false", "/usr/bin/true", "false", "true")


def module_name(name: str) -> str:
    return name.strip().replace("-", "_")


@dataclass(frozen=True)
class ModuleLine(ConfigLine):
    module: str  # `_` form
    text: str
    file: str
    line: int


@dataclass(frozen=True)
class ModprobeConfig(Unread):
    """modules-load.d entries, modprobe.d options / blacklist / refusing installs, in the order read."""

    load: tuple[ModuleLine, ...] = ()
    options: tuple[tuple[ModuleLine, str, str], ...] = ()  # (line, parameter, value)
    blacklist: tuple[ModuleLine, ...] = ()
    refused: tuple[ModuleLine, ...] = ()  # install M /bin/false
    unread: tuple[str, ...] = ()

    def loads(self, module: str) -> ModuleLine | None:
        name = module_name(module)
        return next((m for m in self.load if m.module == name), None)

    def refuses(self, module: str) -> ModuleLine | None:
        name = module_name(module)
        return next((m for m in self.refused if m.module == name), None)

    def option(self, module: str, param: str) -> tuple[ModuleLine, str] | None:
        """The last `options` line that sets `param` of `module` (modprobe takes them all; a later one wins)."""
        name = module_name(module)
        found = None
        for line, key, value in self.options:
            if line.module == name and key == param:
                found = (line, value)
        return found


def parse_modules_load(path: str, text: str) -> list[ModuleLine]:
    return [ModuleLine(module_name(line.split()[0]), line, path, n) for n, line in config_lines(text)]


def parse_modprobe_d(path: str, text: str) -> ModprobeConfig:
    options: list[tuple[ModuleLine, str, str]] = []
    blacklist: list[ModuleLine] = []
    refused: list[ModuleLine] = []
    for n, line in config_lines(text, comments="#"):
        words = line.split()
        if len(words) < 2:
            continue
        entry = ModuleLine(module_name(words[1]), line, path, n)
        if words[0] == "options":
            for word in words[2:]:
                key, _, value = word.partition("=")
                options.append((entry, key, value))
        elif words[0] == "blacklist":
            blacklist.append(entry)
        elif words[0] == "install" and len(words) >= 3 and words[2] in _REFUSING:
            refused.append(entry)
    return ModprobeConfig(options=tuple(options), blacklist=tuple(blacklist), refused=tuple(refused))


def modprobe_config_of(load_files: list[ConfigFile], modprobe_files: list[ConfigFile],
                       unread: tuple[str, ...] = ()) -> ModprobeConfig:
    load = [m for f in load_files for m in parse_modules_load(f.path, f.text)]
    parts = [parse_modprobe_d(f.path, f.text) for f in modprobe_files]
    return ModprobeConfig(tuple(load), tuple(o for p in parts for o in p.options),
                          tuple(b for p in parts for b in p.blacklist), tuple(r for p in parts for r in p.refused),
                          unread)


@provider("modprobe_config", ModprobeConfig, title="modules-load.d and modprobe.d", hint=MODPROBE_D[0].hint)
def modprobe_config(ctx: FactContext) -> ModprobeConfig:
    """Modules the next boot loads (modules-load.d, /etc/modules) and their modprobe.d options and refusals."""
    loads = read_config_dirs(ctx.host, tuple(s.path for s in MODULES_LOAD_D))
    probes = read_config_dirs(ctx.host, tuple(s.path for s in MODPROBE_D))
    load_files = list(loads.files)
    unread = [*loads.unread, *probes.unread]
    text, shown = read_file(ctx.host, ETC_MODULES.path)
    if text is not None and not any(f.path.endswith("/modules.conf") for f in load_files):
        load_files.append(ConfigFile(ETC_MODULES.path, text))
    if len(unread) == len(MODULES_LOAD_D) + len(MODPROBE_D) and not shown:
        raise FactUnavailable("no module configuration (modules-load.d, modprobe.d) in this source",
                              hint=MODPROBE_D[0].hint)
    return modprobe_config_of(load_files, list(probes.files), tuple(unread))
