"""The audit's own cgroup limits (v1 and v2): CPU quota, throttling, cpuset, memory, devices.

Inside a container these are the container's limits (with a cgroup namespace the container's
cgroup is the root of /sys/fs/cgroup; without one, /proc/self/cgroup names the path below it).
On a host they are the limits of the audit's own cgroup (usually a user slice: no quota).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from stackaudit.facts._parse import ParseError, parse_cpulist
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import PROC_SELF_CGROUP
from stackaudit.host.base import Host, NotCaptured, read_optional

CGROUP_ROOT = "/sys/fs/cgroup"
# cgroup v1 reports "no limit" as the largest page-aligned signed 64-bit value.
_V1_UNLIMITED = 0x7FFFFFFFFFFFF000
T = TypeVar("T")


@dataclass(frozen=True)
class CgroupEntry:
    """One line of /proc/<pid>/cgroup: `hierarchy-id:controllers:path`."""

    hierarchy: int
    controllers: tuple[str, ...]
    path: str


@dataclass(frozen=True)
class DeviceRule:
    """A cgroup v1 devices.list line (`c 195:* rwm`; `a *:* rwm` allows everything)."""

    kind: str  # "a" | "c" | "b"
    major: int | None  # None: "*"
    minor: int | None
    access: str

    def allows(self, kind: str, major: int, minor: int) -> bool:
        if self.kind != "a" and self.kind != kind:
            return False
        return (self.major is None or self.major == major) and (self.minor is None or self.minor == minor)


@dataclass(frozen=True)
class CgroupLimits:
    version: int  # 1 or 2
    path: str = "/"  # the cgroup path of the audit's process, as /proc/self/cgroup names it
    cpu_quota_us: int | None = None  # None: no quota ("max" / -1)
    cpu_period_us: int | None = None
    nr_periods: int | None = None
    nr_throttled: int | None = None
    throttled_usec: int | None = None
    cpuset_cpus: tuple[int, ...] | None = None  # effective cpuset; None: not readable
    memory_max_bytes: int | None = None  # None: unlimited or unreadable
    memory_unlimited: bool = False
    device_rules: tuple[DeviceRule, ...] | None = None  # v1 only (v2 uses eBPF: not readable)
    sources: tuple[str, ...] = ()  # the files that answered

    @property
    def cpu_limit(self) -> float | None:
        """CPUs the quota allows (quota / period), None without a quota."""
        if self.cpu_quota_us is None or not self.cpu_period_us:
            return None
        return self.cpu_quota_us / self.cpu_period_us

    @property
    def throttled_ratio(self) -> float | None:
        if not self.nr_periods or self.nr_throttled is None:
            return None
        return self.nr_throttled / self.nr_periods


def parse_proc_cgroup(text: str) -> tuple[CgroupEntry, ...]:
    """Parse /proc/<pid>/cgroup (`0::/` on v2; `4:cpu,cpuacct:/docker/<id>` on v1)."""
    entries = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[0].isdecimal():
            raise ParseError(f"not a /proc/self/cgroup line: {line[:80]!r}")
        controllers = tuple(c for c in parts[1].split(",") if c)
        entries.append(CgroupEntry(int(parts[0]), controllers, parts[2] or "/"))
    if not entries:
        raise ParseError("empty /proc/self/cgroup")
    return tuple(entries)


def parse_cpu_max(text: str) -> tuple[int | None, int]:
    """Parse v2 cpu.max: `max 100000` -> (None, 100000); `200000 100000` -> (200000, 100000)."""
    parts = text.split()
    if len(parts) != 2 or not parts[1].isdecimal() or not (parts[0] == "max" or parts[0].isdecimal()):
        raise ParseError(f"not a cpu.max value: {text.strip()[:40]!r}")
    return (None if parts[0] == "max" else int(parts[0])), int(parts[1])


def parse_cpu_stat(text: str) -> dict[str, int]:
    """Parse cpu.stat (`nr_throttled 12`; v1 has throttled_time in ns, v2 throttled_usec)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdecimal():
            out[parts[0]] = int(parts[1])
    if not out:
        raise ParseError("not a cpu.stat file")
    return out


def parse_memory_limit(text: str) -> int | None:
    """Parse memory.max (`max` or bytes) or v1 memory.limit_in_bytes; None: unlimited."""
    value = text.strip()
    if value == "max" or value == "-1":
        return None
    if not value.isdecimal():
        raise ParseError(f"not a memory limit: {value[:40]!r}")
    number = int(value)
    return None if number >= _V1_UNLIMITED else number


def parse_devices_list(text: str) -> tuple[DeviceRule, ...]:
    """Parse v1 devices.list (`c 195:* rwm`, `a *:* rwm`)."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        m = re.fullmatch(r"([abc])\s+(\*|\d+):(\*|\d+)\s+([rwm]+)", line)
        if not m:
            raise ParseError(f"not a devices.list line: {line[:60]!r}")
        major = None if m.group(2) == "*" else int(m.group(2))
        minor = None if m.group(3) == "*" else int(m.group(3))
        rules.append(DeviceRule(m.group(1), major, minor, m.group(4)))
    return tuple(rules)


def parsed(fn: Callable[[str], T], raw: str | None) -> T | None:
    """`fn(raw)`, or None when raw is None or does not parse."""
    if raw is None:
        return None
    try:
        return fn(raw)
    except ParseError:
        return None


def _first(host: Host, paths: list[str]) -> tuple[str, str] | None:
    """The first readable file among `paths` (path, text); NotCaptured and denial count as absent."""
    for path in paths:
        try:
            text = read_optional(host, path)
        except (PermissionError, NotCaptured, IsADirectoryError):
            continue
        except OSError:
            continue
        if text is not None:
            return path, text
    return None


def _candidates(base: str, rel: str, name: str) -> list[str]:
    """The file in the process's own cgroup directory first, then at the mount's root."""
    out = []
    if rel not in ("", "/"):
        out.append(f"{base}{rel.rstrip('/')}/{name}")
    out.append(f"{base}/{name}")
    return out


@provider("cgroup_limits", CgroupLimits)
def cgroup_limits(ctx: FactContext) -> CgroupLimits:
    """The audit's own cgroup limits (cpu.max/cfs quota, cpu.stat, cpuset, memory, devices)."""
    host = ctx.host
    try:
        text = read_optional(host, PROC_SELF_CGROUP.path)
    except PermissionError as exc:
        raise FactUnavailable("/proc/self/cgroup is not readable") from exc
    if text is None:
        raise FactUnavailable("/proc/self/cgroup is missing (no cgroup support)")
    try:
        entries = parse_proc_cgroup(text)
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc
    v2 = next((e for e in entries if e.hierarchy == 0 and not e.controllers), None)
    v1 = {c: e.path for e in entries if e.controllers for c in e.controllers}
    sources: list[str] = []

    def read(paths: list[str]) -> str | None:
        found = _first(host, paths)
        if found is None:
            return None
        sources.append(found[0])
        return found[1]

    if not v1 or ("cpu" not in v1 and "memory" not in v1 and v2 is not None):
        rel = v2.path if v2 is not None else "/"
        cpu_max = parsed(parse_cpu_max, read(_candidates(CGROUP_ROOT, rel, "cpu.max")))
        stat = parsed(parse_cpu_stat, read(_candidates(CGROUP_ROOT, rel, "cpu.stat"))) or {}
        cpuset_text = read(_candidates(CGROUP_ROOT, rel, "cpuset.cpus.effective"))
        mem_text = read(_candidates(CGROUP_ROOT, rel, "memory.max"))
        if not sources:
            raise FactUnavailable("no cgroup v2 files readable under /sys/fs/cgroup")
        cpus = parsed(parse_cpulist, cpuset_text.strip()) if cpuset_text else None
        mem = parsed(parse_memory_limit, mem_text)
        return CgroupLimits(
            version=2,
            path=rel,
            cpu_quota_us=cpu_max[0] if cpu_max else None,
            cpu_period_us=cpu_max[1] if cpu_max else None,
            nr_periods=stat.get("nr_periods"),
            nr_throttled=stat.get("nr_throttled"),
            throttled_usec=stat.get("throttled_usec"),
            cpuset_cpus=cpus,
            memory_max_bytes=mem,
            memory_unlimited=mem_text is not None and mem is None and mem_text.strip() == "max",
            sources=tuple(sources),
        )

    # cgroup v1: one hierarchy per controller, mounted as cpu,cpuacct / cpu / cpuset / memory / devices.
    cpu_rel = v1.get("cpu", "/")
    cpu_dirs = [f"{CGROUP_ROOT}/cpu,cpuacct", f"{CGROUP_ROOT}/cpu"]
    quota_text = read([p for d in cpu_dirs for p in _candidates(d, cpu_rel, "cpu.cfs_quota_us")])
    period_text = read([p for d in cpu_dirs for p in _candidates(d, cpu_rel, "cpu.cfs_period_us")])
    stat = parsed(parse_cpu_stat, read([p for d in cpu_dirs for p in _candidates(d, cpu_rel, "cpu.stat")])) or {}
    cpuset_rel = v1.get("cpuset", "/")
    cpuset_text = read(_candidates(f"{CGROUP_ROOT}/cpuset", cpuset_rel, "cpuset.effective_cpus")
                       + _candidates(f"{CGROUP_ROOT}/cpuset", cpuset_rel, "cpuset.cpus"))
    mem_rel = v1.get("memory", "/")
    mem_text = read(_candidates(f"{CGROUP_ROOT}/memory", mem_rel, "memory.limit_in_bytes"))
    dev_rel = v1.get("devices", "/")
    dev_text = read(_candidates(f"{CGROUP_ROOT}/devices", dev_rel, "devices.list"))
    if not sources:
        raise FactUnavailable("no cgroup v1 files readable under /sys/fs/cgroup")
    quota: int | None = None
    if quota_text is not None and quota_text.strip().lstrip("-").isdecimal():
        quota = int(quota_text.strip())
        quota = quota if quota > 0 else None
    period = int(period_text.strip()) if period_text and period_text.strip().isdecimal() else None
    throttled_ns = stat.get("throttled_time")
    mem = parsed(parse_memory_limit, mem_text)
    return CgroupLimits(
        version=1,
        path=cpu_rel,
        cpu_quota_us=quota,
        cpu_period_us=period,
        nr_periods=stat.get("nr_periods"),
        nr_throttled=stat.get("nr_throttled"),
        throttled_usec=throttled_ns // 1000 if throttled_ns is not None else None,
        cpuset_cpus=parsed(parse_cpulist, cpuset_text.strip()) if cpuset_text else None,
        memory_max_bytes=mem,
        memory_unlimited=mem_text is not None and mem is None,
        device_rules=parsed(parse_devices_list, dev_text),
        sources=tuple(sources),
    )
