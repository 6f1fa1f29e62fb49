"""The tuned profile applied after boot and what it sets: [sysctl] keys, [cpu] governor / EPP / latency,
[vm] transparent hugepages, [sysfs] files; `include=` profiles first, the including one over them
(tuned-profiles(7), tuned.conf(5): https://github.com/redhat-performance/tuned/blob/master/man/tuned.conf.5).
A profile in /etc/tuned (or /etc/tuned/profiles) hides the packaged one of the same name under
/usr/lib/tuned. tuned applies its settings when it starts, after systemd-sysctl: its [sysctl] values
override sysctl.d — only while tuned.service is enabled (KERN-PERSIST-BOOT reads that from systemd_units).

[bootloader] `cmdline` / `cmdline_<suffix>` options are what tuned writes into `$tuned_params` (tuned's
plugin_bootloader.py): the options merged over the profiles like any other, then concatenated in option
order; a value starting with `-` takes those words out of what the options before it added (never out of
the boot loader's own configuration), `+` or nothing adds them; `${name}` is a [variables] value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts.config_dirs import ConfigLine, Unread, read_file
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import TUNED_ACTIVE_PROFILE, TUNED_PROFILE_DIRS

MAX_INCLUDE_DEPTH = 8


@dataclass(frozen=True)
class TunedSetting(ConfigLine):
    section: str  # sysctl, cpu, vm, sysfs, bootloader, variables
    key: str
    value: str
    profile: str
    file: str
    line: int = 0

    @property
    def place(self) -> str:
        return f"{self.where} [{self.section}] {self.key}"


_TRUE = ("true", "1")  # tuned's unit.py: `enabled` / `replace` are true for True, true, 1 only
_VARIABLE = re.compile(r"(?<!\\)\$\{(\w+)\}")


@dataclass(frozen=True)
class TunedBootParam(ConfigLine):
    """A word the [bootloader] plugin puts into `$tuned_params`, and the option line it comes from."""

    name: str
    value: str | None  # None: a bare flag
    profile: str
    file: str
    line: int

    @property
    def word(self) -> str:
        return self.name if self.value is None else f"{self.name}={self.value}"


@dataclass(frozen=True)
class TunedBootCmdline:
    """What tuned writes into `$tuned_params` when it applies the profile: `params` in order; `removed`,
    words a `-` option took out; `unknown`, options whose value is not known here (a `${f:...}` function,
    a variable not defined in a profile); `skip_grub_config`, the option that keeps tuned from writing the
    boot loader's configuration (it then only records the line in /etc/tuned/bootcmdline)."""

    params: tuple[TunedBootParam, ...] = ()
    removed: tuple[TunedBootParam, ...] = ()  # each word with the line of the `-` option that took it out
    unknown: tuple[str, ...] = ()
    skip_grub_config: str = ""

    @property
    def words(self) -> str:
        return " ".join(p.word for p in self.params)

    def last(self, name: str) -> TunedBootParam | None:
        return next((p for p in reversed(self.params) if p.name == name), None)

    def removal(self, name: str) -> TunedBootParam | None:
        return next((p for p in reversed(self.removed) if p.name == name), None)


@dataclass(frozen=True)
class TunedConfig(Unread):
    """The active profile(s) and their merged settings (the last profile, or including profile, wins)."""

    active: tuple[str, ...]
    settings: tuple[TunedSetting, ...]
    unread: tuple[str, ...] = ()  # profiles not found or not in the source

    def get(self, section: str, key: str) -> TunedSetting | None:
        found = None
        for s in self.settings:
            if s.section == section and s.key == key:
                found = s
        return found

    def bootloader(self) -> TunedBootCmdline:
        return tuned_boot_cmdline(self.settings)


def tuned_boot_cmdline(settings: tuple[TunedSetting, ...]) -> TunedBootCmdline:
    """tuned's merge of the [bootloader] unit (profiles/merger.py: a later profile's option replaces the same
    option in place, `replace=true` drops the earlier ones) and plugin_bootloader's concatenation."""
    options: dict[str, TunedSetting] = {}
    enabled = True
    variables: dict[str, str] = {}
    for profile in dict.fromkeys((s.profile, s.file) for s in settings):
        own = [s for s in settings if (s.profile, s.file) == profile and s.section == "bootloader"]
        if any(s.key == "replace" and s.value.lower() in _TRUE for s in own):
            options.clear()
        for s in own:
            if s.key == "enabled":
                enabled = s.value.lower() in _TRUE
            elif s.key != "replace":
                options[s.key] = s
        for s in settings:
            if (s.profile, s.file) == profile and s.section == "variables" and re.fullmatch(r"\w+", s.key):
                variables[s.key] = _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), s.value)
    if not enabled:
        return TunedBootCmdline()
    words: list[tuple[str, TunedSetting]] = []
    removed: list[TunedBootParam] = []
    for key, s in options.items():
        raw = s.value
        if not key.startswith("cmdline") or not raw:
            continue
        op, rest = raw[0], raw[1:]
        if op == "-":
            gone = set(rest.split())
            removed += [_param(w, s) for w, _ in words if w in gone]  # named by the `-` option's line
            words = [(w, o) for w, o in words if w not in gone]
        elif op == "+" or (op == "\\" and rest[:1] in ("\\", "+", "-")):
            words += [(w, s) for w in rest.split()]
        else:
            words += [(w, s) for w in raw.split()]
    params: list[TunedBootParam] = []
    unknown: list[str] = []
    for word, s in words:
        expanded = _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), word)
        if "${" in expanded:
            unknown.append(f"{s.place} ({word}: a tuned function or variable not evaluated here)")
            continue
        params += [_param(w, s) for w in expanded.split()]
    skip = options.get("skip_grub_config")
    return TunedBootCmdline(tuple(params), tuple(removed), tuple(dict.fromkeys(unknown)),
                            skip.place if skip is not None and skip.value.lower() in (*_TRUE, "y", "yes", "t") else "")


def _param(word: str, s: TunedSetting) -> TunedBootParam:
    name, eq, value = word.partition("=")
    return TunedBootParam(name, value if eq else None, s.profile, s.file, s.line)


def tuned_conf_lines(text: str) -> list[tuple[str, str, str, int]]:
    """(section, key, value, 1-based line) of each `key = value` line of a section (`#` comments)."""
    out: list[tuple[str, str, str, int]] = []
    section = ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        key, eq, value = line.partition("=")
        if eq and section:
            out.append((section, key.strip(), value.strip(), n))
    return out


def parse_tuned_conf(text: str) -> dict[str, dict[str, str]]:
    """INI sections -> {key: value} (`#` comments); a repeated key keeps the last value."""
    out: dict[str, dict[str, str]] = {}
    for section, key, value, _ in tuned_conf_lines(text):
        out.setdefault(section, {})[key] = value
    return out


def _settings(host_read: dict[str, tuple[str, str] | None], name: str, depth: int = 0,
              unread: list[str] | None = None) -> list[TunedSetting]:
    found = host_read.get(name)
    if found is None:
        if unread is not None:
            unread.append(name)
        return []
    path, text = found
    lines = tuned_conf_lines(text)
    out: list[TunedSetting] = []
    if depth < MAX_INCLUDE_DEPTH:
        for inc in parse_tuned_conf(text).get("main", {}).get("include", "").replace(";", ",").split(","):
            if inc.strip():
                out += _settings(host_read, inc.strip(), depth + 1, unread)
    last = {(section, key): n for section, key, _, n in lines}  # a repeated key: its last line
    out += [TunedSetting(section, k, v, name, path, n) for section, k, v, n in lines
            if section != "main" and last[(section, k)] == n]
    return out


def tuned_config_of(active: str, profiles: dict[str, tuple[str, str] | None]) -> TunedConfig:
    """`profiles`: name -> (path, text), None where the profile is not found or not in the source."""
    names = tuple(active.split())
    unread: list[str] = []
    settings = [s for n in names for s in _settings(profiles, n, 0, unread)]
    return TunedConfig(names, tuple(settings), tuple(unread))


@provider("tuned_config", TunedConfig, title=TUNED_ACTIVE_PROFILE.title, hint=TUNED_ACTIVE_PROFILE.hint)
def tuned_config(ctx: FactContext) -> TunedConfig:
    """The active tuned profile and what it sets (/etc/tuned/active_profile and the profiles' tuned.conf)."""
    text, shown = read_file(ctx.host, TUNED_ACTIVE_PROFILE.path)
    if not shown:
        raise FactUnavailable(f"{TUNED_ACTIVE_PROFILE.path} is not in this source", hint=TUNED_ACTIVE_PROFILE.hint)
    if text is None or not text.strip():
        return TunedConfig((), ())
    profiles: dict[str, tuple[str, str] | None] = {}
    pending = list(text.split())
    while pending and len(profiles) < 32:
        name = pending.pop()
        if name in profiles or "/" in name or name.startswith("."):
            continue
        found: tuple[str, str] | None = None
        for d in TUNED_PROFILE_DIRS:
            path = f"{d}/{name}/tuned.conf"
            body, ok = read_file(ctx.host, path)
            if body is not None:
                found = (path, body)
                break
            if not ok:
                break
        profiles[name] = found
        if found:
            include = parse_tuned_conf(found[1]).get("main", {}).get("include", "")
            pending += [i.strip() for i in include.replace(";", ",").split(",") if i.strip()]
    return tuned_config_of(text, profiles)
