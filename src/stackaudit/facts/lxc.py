"""LXC container configs, read on the LXC host: Proxmox `/etc/pve/lxc/<id>.conf` (`key: value`)
and native LXC `/var/lib/lxc/<name>/config` (`key = value`); and the host's character-device
majors from /proc/devices (nvidia-uvm and nvidia-caps get dynamic majors at module load).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.cgroups import DeviceRule
from stackaudit.facts.registry import FactContext, provider
from stackaudit.host.base import Host, NotCaptured, read_optional

PVE_DIR = "/etc/pve/lxc"
LXC_DIR = "/var/lib/lxc"
NVIDIA_MAJOR = 195  # nvidia0..N (minor N), nvidiactl (255), nvidia-modeset (254)
NVIDIACTL_MINOR = 255


@dataclass(frozen=True)
class MountEntry:
    source: str
    target: str
    fs_type: str
    options: str


@dataclass(frozen=True)
class LxcConfig:
    name: str
    path: str
    flavor: str  # "proxmox" | "lxc"
    entries: tuple[tuple[str, str], ...]
    lines: tuple[str, ...] = ()  # the config's own lines, for evidence
    truncated: bool = False  # the last line is cut off (a partial copy)
    malformed: tuple[str, ...] = ()

    def values(self, key: str) -> list[str]:
        return [v for k, v in self.entries if k == key]

    def last(self, key: str) -> str | None:
        vals = self.values(key)
        return vals[-1] if vals else None

    @property
    def unprivileged(self) -> bool:
        if self.flavor == "proxmox":
            return self.last("unprivileged") == "1"
        return bool(self.values("lxc.idmap") or self.values("lxc.id_map"))

    @property
    def device_allows(self) -> tuple[DeviceRule, ...]:
        return tuple(r for key in ("lxc.cgroup2.devices.allow", "lxc.cgroup.devices.allow")
                     for v in self.values(key) if (r := parse_device_rule(v)) is not None)

    @property
    def mount_entries(self) -> tuple[MountEntry, ...]:
        out = []
        for value in self.values("lxc.mount.entry"):
            parts = value.split()
            if len(parts) >= 3:
                out.append(MountEntry(parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
        return tuple(out)

    @property
    def dev_passthrough(self) -> tuple[str, ...]:
        """Proxmox >= 8.1 `devN: /dev/nvidia0,gid=44` entries (Proxmox adds the cgroup rule itself)."""
        return tuple(v.split(",", 1)[0].strip() for k, v in self.entries
                     if re.fullmatch(r"dev\d+", k) and v.strip())

    def exposed_paths(self) -> set[str]:
        """Device paths made visible inside (bind mounts and devN), as /dev/... paths."""
        paths = {"/" + m.target.lstrip("/") for m in self.mount_entries}
        paths |= {m.source for m in self.mount_entries if m.source.startswith("/dev/")}
        return paths | set(self.dev_passthrough)

    def prlimit(self, name: str) -> str | None:
        return self.last(f"lxc.prlimit.{name}")

    @property
    def apparmor_profile(self) -> str | None:
        return self.last("lxc.apparmor.profile") or self.last("lxc.aa_profile")

    @property
    def gpu_intent(self) -> bool:
        """The config tries to give the container NVIDIA GPUs."""
        if any("nvidia" in p for p in self.exposed_paths()):
            return True
        return any(r.major == NVIDIA_MAJOR for r in self.device_allows)

    def allows(self, kind: str, major: int, minor: int) -> bool:
        """Whether an explicit allow rule lifts LXC's default `devices.deny = a` for this node."""
        return any(r.allows(kind, major, minor) for r in self.device_allows)

    @property
    def cpus(self) -> float | None:
        cores = self.last("cores")
        if cores and cores.isdecimal():
            return float(cores)
        limit = self.last("cpulimit")
        if limit:
            try:
                return float(limit) or None
            except ValueError:
                return None
        return None

    @property
    def cpuset(self) -> str | None:
        return self.last("lxc.cgroup2.cpuset.cpus") or self.last("lxc.cgroup.cpuset.cpus")


@dataclass(frozen=True)
class LxcConfigs:
    configs: tuple[LxcConfig, ...]
    # /proc/devices character majors (name -> major); None when not in the source.
    char_majors: dict[str, int] | None = None

    def major(self, name: str) -> int | None:
        return None if self.char_majors is None else self.char_majors.get(name)


def parse_device_rule(value: str) -> DeviceRule | None:
    """An LXC devices.allow/deny value: `c 195:* rwm`, `a`, `c *:* m`."""
    value = value.strip()
    if value == "a":
        return DeviceRule("a", None, None, "rwm")
    m = re.fullmatch(r"([abc])\s+(\*|\d+):(\*|\d+)(?:\s+([rwm]+))?", value)
    if not m:
        return None
    return DeviceRule(m.group(1), None if m.group(2) == "*" else int(m.group(2)),
                      None if m.group(3) == "*" else int(m.group(3)), m.group(4) or "rwm")


def parse_lxc_config(text: str, name: str = "", path: str = "", flavor: str | None = None) -> LxcConfig:
    """Parse a Proxmox (`key: value`) or native LXC (`key = value`) container config.

    Proxmox snapshot sections (`[snapname]`) end the current config. A last line that is neither
    a comment nor a setting marks the copy as truncated.
    """
    entries: list[tuple[str, str]] = []
    lines: list[str] = []
    malformed: list[str] = []
    last_bad = False
    pve = colon = eq = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            last_bad = False
            continue
        if line.startswith("[") and line.endswith("]"):
            break
        m = re.match(r"([A-Za-z][\w.\-]*)\s*([:=])\s*(.*)$", line)
        if not m:
            malformed.append(line)
            last_bad = True
            continue
        last_bad = False
        key, sep, value = m.group(1), m.group(2), m.group(3).strip()
        if sep == ":":
            colon += 1
            if not key.startswith("lxc."):
                pve += 1
        else:
            eq += 1
        entries.append((key, value))
        lines.append(line)
    if not entries:
        raise ParseError("not an LXC container config")
    kind = flavor or ("proxmox" if colon > eq or pve else "lxc")
    return LxcConfig(name, path, kind, tuple(entries), tuple(lines), last_bad, tuple(malformed))


def parse_proc_devices(text: str) -> dict[str, int]:
    """Character-device majors from /proc/devices (`195 nvidia-frontend`, `507 nvidia-uvm`)."""
    majors: dict[str, int] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if line.endswith("devices:"):
            section = line
            continue
        parts = line.split()
        if section.startswith("Character") and len(parts) == 2 and parts[0].isdecimal():
            majors.setdefault(parts[1], int(parts[0]))
    if not section:
        raise ParseError("not /proc/devices")
    return majors


def _read(host: Host, path: str) -> str | None:
    try:
        return read_optional(host, path)
    except (PermissionError, IsADirectoryError):
        return None


def _entries(host: Host, path: str) -> list[str] | None:
    """A directory's entries: none where it is absent or unreadable, None where the source does not hold it."""
    try:
        return host.list_dir(path)
    except NotCaptured:
        return None
    except OSError:
        return []


@provider("lxc_configs", LxcConfigs)
def lxc_configs(ctx: FactContext) -> LxcConfigs:
    """LXC/Proxmox container configs on this host (/etc/pve/lxc, /var/lib/lxc), /proc/devices majors."""
    host = ctx.host
    configs: list[LxcConfig] = []
    pve, lxc = _entries(host, PVE_DIR), _entries(host, LXC_DIR)
    for name in (n for n in pve or () if n.endswith(".conf")):
        path = f"{PVE_DIR}/{name}"
        text = _read(host, path)
        if text is None:
            continue
        try:
            configs.append(parse_lxc_config(text, name[:-5], path, "proxmox"))
        except ParseError:
            continue
    for name in lxc or ():
        path = f"{LXC_DIR}/{name}/config"
        try:
            text = _read(host, path)
        except NotCaptured:
            continue
        if text is None:
            continue
        try:
            configs.append(parse_lxc_config(text, name, path, "lxc"))
        except ParseError:
            continue
    if not configs and pve is None and lxc is None:
        raise NotCaptured("LXC container configs (/etc/pve/lxc, /var/lib/lxc)")
    majors: dict[str, int] | None = None
    try:
        devices = _read(host, "/proc/devices")
    except NotCaptured:
        devices = None
    if devices is not None:
        try:
            majors = parse_proc_devices(devices)
        except ParseError:
            majors = None
    return LxcConfigs(tuple(configs), majors)
