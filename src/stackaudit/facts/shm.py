"""/dev/shm: its size and use, the device it lives on, and logind's RemoveIPC.

Size comes from `df -k -P /dev/shm` (what the kernel reports) and, where df is missing, from
the tmpfs `size=` option in /proc/self/mountinfo or /proc/mounts. The mount's device number
(`major:minor`) is what NCCL compares between ranks to decide whether they can share memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError, parse_size_kib
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.host.base import Host, NotCaptured, read_or_none

SHM = "/dev/shm"
DF_ARGV = ("df", "-k", "-P", SHM)


@dataclass(frozen=True)
class MountEntry:
    mount_point: str
    fs_type: str
    source: str
    options: tuple[str, ...]
    device: str = ""  # "major:minor" (mountinfo only)

    def option(self, name: str) -> str | None:
        for opt in self.options:
            key, eq, value = opt.partition("=")
            if key == name:
                return value if eq else ""
        return None


@dataclass(frozen=True)
class DfRow:
    filesystem: str
    size_kib: int
    used_kib: int
    avail_kib: int
    mounted_on: str


@dataclass(frozen=True)
class ShmInfo:
    size_bytes: int | None  # None: not known
    used_bytes: int | None = None
    available_bytes: int | None = None
    mount: MountEntry | None = None  # None: /dev/shm is not a mount of its own (or mounts unread)
    mounted_on: str = SHM  # the mount df reports /dev/shm on ("/" when it is a plain directory)
    sources: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    boot_id: str = ""
    # systemd-logind RemoveIPC (default yes): None when logind.conf is not in the source.
    logind_remove_ipc: bool | None = None

    @property
    def device(self) -> str:
        return self.mount.device if self.mount else ""

    @property
    def use_ratio(self) -> float | None:
        if self.size_bytes and self.used_bytes is not None:
            return self.used_bytes / self.size_bytes
        return None


def _unescape(field: str) -> str:
    """Mount tables escape space, tab, newline and backslash as octal (\\040)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> tuple[MountEntry, ...]:
    """Parse /proc/<pid>/mountinfo (superblock options merged after the per-mount ones)."""
    entries = []
    for line in text.splitlines():
        if not line.strip():
            continue
        left, sep, right = line.partition(" - ")
        fields = left.split()
        rest = right.split()
        if not sep or len(fields) < 6 or len(rest) < 2 or ":" not in fields[2]:
            raise ParseError(f"not a mountinfo line: {line[:80]!r}")
        options = tuple(fields[5].split(",")) + (tuple(rest[2].split(",")) if len(rest) > 2 else ())
        entries.append(MountEntry(_unescape(fields[4]), rest[0], _unescape(rest[1]), options, fields[2]))
    if not entries:
        raise ParseError("empty mountinfo")
    return tuple(entries)


def parse_mounts(text: str) -> tuple[MountEntry, ...]:
    """Parse /proc/mounts or /etc/mtab (`source mountpoint fstype options 0 0`)."""
    entries = []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 4:
            raise ParseError(f"not a /proc/mounts line: {line[:80]!r}")
        entries.append(MountEntry(_unescape(parts[1]), parts[2], _unescape(parts[0]), tuple(parts[3].split(","))))
    if not entries:
        raise ParseError("empty mount table")
    return tuple(entries)


def parse_df(text: str) -> tuple[DfRow, ...]:
    """Parse `df -k -P` (1024-blocks); long filesystem names wrapped onto two lines are joined."""
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if line.startswith("Filesystem")), None)
    if header is None:
        raise ParseError("not the output of `df`")
    rows = []
    pending = ""
    for line in lines[header + 1:]:
        parts = (pending + " " + line).split() if pending else line.split()
        if not parts:
            continue
        if len(parts) == 1:
            pending = parts[0]
            continue
        pending = ""
        if len(parts) < 6 or not all(p.isdecimal() for p in parts[1:4]):
            raise ParseError(f"not a `df -k -P` row: {line[:80]!r}")
        rows.append(DfRow(parts[0], int(parts[1]), int(parts[2]), int(parts[3]), " ".join(parts[5:])))
    if not rows:
        raise ParseError("df printed no filesystem")
    return tuple(rows)


def parse_logind_remove_ipc(texts: list[str]) -> bool:
    """RemoveIPC from logind.conf and its drop-ins, in order (last wins; default yes)."""
    value = True
    for text in texts:
        section = ""
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
            elif section == "Login" and line.startswith("RemoveIPC="):
                value = line.split("=", 1)[1].strip().lower() in ("yes", "true", "1", "on")
    return value




def _logind(host: Host) -> bool | None:
    texts = []
    for path in ("/usr/lib/systemd/logind.conf", "/etc/systemd/logind.conf"):
        text = read_or_none(host, path)
        if text is not None:
            texts.append(text)
    if not texts:
        return None
    for d in ("/usr/lib/systemd/logind.conf.d", "/etc/systemd/logind.conf.d", "/run/systemd/logind.conf.d"):
        try:
            names = sorted(n for n in host.list_dir(d) if n.endswith(".conf"))
        except (OSError, NotCaptured):
            continue
        for name in names:
            text = read_or_none(host, f"{d}/{name}")
            if text is not None:
                texts.append(text)
    return parse_logind_remove_ipc(texts)


@provider("shm", ShmInfo)
def shm(ctx: FactContext) -> ShmInfo:
    """/dev/shm size, use and device (df -k -P /dev/shm, mountinfo); logind RemoveIPC."""
    host = ctx.host
    sources: list[str] = []
    evidence: list[str] = []
    mount: MountEntry | None = None
    for path, parser in (("/proc/self/mountinfo", parse_mountinfo), ("/proc/mounts", parse_mounts)):
        text = read_or_none(host, path)
        if text is None:
            continue
        try:
            entries = parser(text)
        except ParseError:
            continue
        sources.append(path)
        matches = [e for e in entries if e.mount_point == SHM]
        if matches:
            mount = matches[-1]  # the last mount on a point hides the earlier ones
            evidence.extend(line for line in text.splitlines() if f" {SHM} " in line)
        break
    size = used = avail = None
    mounted_on = SHM if mount else ""
    try:
        result = host.run(list(DF_ARGV))
    except NotCaptured:
        result = None
    if result is not None and result.ok:
        try:
            row = parse_df(result.stdout)[-1]
        except ParseError:
            row = None
        if row is not None:
            sources.append("df -k -P /dev/shm")
            evidence.append(f"df: {row.filesystem} {row.size_kib}K size, {row.used_kib}K used, mounted on {row.mounted_on}")
            size, used, avail, mounted_on = row.size_kib * 1024, row.used_kib * 1024, row.avail_kib * 1024, row.mounted_on
    if size is None and mount is not None and mount.fs_type == "tmpfs":
        opt = mount.option("size")
        kib = parse_size_kib(opt) if opt and not opt.endswith("%") else None
        if kib is not None:
            size = kib * 1024
    if not sources:
        raise FactUnavailable("neither the mount table nor `df /dev/shm` is in this source",
                              "run `df -k -P /dev/shm` (or `df -h`) where the server runs")
    boot_id = (read_or_none(host, "/proc/sys/kernel/random/boot_id") or "").strip()
    return ShmInfo(
        size_bytes=size,
        used_bytes=used,
        available_bytes=avail,
        mount=mount,
        mounted_on=mounted_on or SHM,
        sources=tuple(sources),
        evidence=tuple(evidence),
        boot_id=boot_id,
        logind_remove_ipc=_logind(host),
    )
