"""The tuned profile applied after boot and what it sets: [sysctl] keys, [cpu] governor / EPP / latency,
[vm] transparent hugepages, [sysfs] files; `include=` profiles first, the including one over them
(tuned-profiles(7), tuned.conf(5): https://github.com/redhat-performance/tuned/blob/master/man/tuned.conf.5).
A profile in /etc/tuned (or /etc/tuned/profiles) hides the packaged one of the same name under
/usr/lib/tuned. tuned applies its settings when it starts, after systemd-sysctl: its [sysctl] values
override sysctl.d — only while tuned.service is enabled (KERN-PERSIST-BOOT reads that from systemd_units).
"""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.facts.config_dirs import read_file
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import TUNED_ACTIVE_PROFILE, TUNED_PROFILE_DIRS

MAX_INCLUDE_DEPTH = 8


@dataclass(frozen=True)
class TunedSetting:
    section: str  # sysctl, cpu, vm, sysfs
    key: str
    value: str
    profile: str
    file: str

    @property
    def where(self) -> str:
        return f"{self.file} [{self.section}] {self.key}"


@dataclass(frozen=True)
class TunedConfig:
    """The active profile(s) and their merged settings (the last profile, or including profile, wins)."""

    active: tuple[str, ...]
    settings: tuple[TunedSetting, ...]
    unread: tuple[str, ...] = ()  # profiles not found or not in the source

    @property
    def complete(self) -> bool:
        return not self.unread

    def get(self, section: str, key: str) -> TunedSetting | None:
        found = None
        for s in self.settings:
            if s.section == section and s.key == key:
                found = s
        return found


def parse_tuned_conf(text: str) -> dict[str, dict[str, str]]:
    """INI sections -> {key: value} (`#` comments); a repeated key keeps the last value."""
    out: dict[str, dict[str, str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            out.setdefault(section, {})
            continue
        key, eq, value = line.partition("=")
        if eq and section:
            out.setdefault(section, {})[key.strip()] = value.strip()
    return out


def _settings(host_read: dict[str, tuple[str, str] | None], name: str, depth: int = 0,
              unread: list[str] | None = None) -> list[TunedSetting]:
    found = host_read.get(name)
    if found is None:
        if unread is not None:
            unread.append(name)
        return []
    path, text = found
    sections = parse_tuned_conf(text)
    out: list[TunedSetting] = []
    if depth < MAX_INCLUDE_DEPTH:
        for inc in sections.get("main", {}).get("include", "").replace(";", ",").split(","):
            if inc.strip():
                out += _settings(host_read, inc.strip(), depth + 1, unread)
    for section, values in sections.items():
        if section == "main":
            continue
        out += [TunedSetting(section, k, v, name, path) for k, v in values.items()]
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
