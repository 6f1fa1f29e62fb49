"""/dev/shm: its size and use, the device it lives on, and logind's RemoveIPC.

Size comes from `df -k -P /dev/shm` (what the kernel reports) or a pasted df table in any of its
flavours (`df -h`, `df -h /dev/shm`, `df -T`...: facts/sources.py DF_TABLES) and, where df is missing,
from the tmpfs `size=` option in /proc/self/mountinfo or /proc/mounts. The mount's device number
(`major:minor`) is what NCCL compares between ranks to decide whether they can share memory.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError, parse_size_kib
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, parser, provider
from stackaudit.facts.sources import DF_TABLES, EVIDENCE_LINES, SHM_PATH, USER_MACHINE
from stackaudit.host.base import Host, NotCaptured, list_or_none, read_or_none
from stackaudit.host.source import Source

SHM = SHM_PATH


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
    used_kib: int | None  # None: a row cut after its size (the last line of a paste)
    avail_kib: int | None
    mounted_on: str  # "" where the cut row does not show it


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


DF_HEADER = re.compile(
    r"^\s*Filesystem\s+(?:Type\s+)?(?P<unit>1K-blocks|1024-blocks|Size|1B-blocks|\d+[KMG]?-blocks|512-blocks)\s+"
    r"Used\s+Avail(?:able)?\s+(?:Use%|Capacity)\s+Mounted\s+on\s*$"
)
_HUMAN = re.compile(r"^(\d+(?:[.,]\d+)?)([KMGTPE]?)i?B?$")
_HUMAN_FACTORS = {"": 1, "K": 1, "M": 1024, "G": 1024**2, "T": 1024**3, "P": 1024**4, "E": 1024**5}


def df_kib(value: str, unit: str) -> int | None:
    """A df column value in KiB, given the header's unit column. Human sizes (`64M`, `1.5T`) are powers of
    1024, as `df -h` prints them."""
    if unit == "Size":
        m = _HUMAN.match(value)
        if not m:
            return None
        return round(float(m.group(1).replace(",", ".")) * _HUMAN_FACTORS[m.group(2)])
    if not value.isdecimal():
        return None
    n = int(value)
    if unit == "1B-blocks":
        return n // 1024
    if unit == "512-blocks":
        return n // 2
    m = re.match(r"(\d+)([KMG]?)-blocks", unit)
    if m and unit not in ("1K-blocks", "1024-blocks"):
        block = int(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2)]
        return n * block // 1024
    return n


def df_rows(lines: Sequence[str], start: int, unit: str, typed: bool) -> tuple[list[DfRow], int]:
    """The rows after a df header at `start` - 1, in KiB, and the index where they end."""
    rows: list[DfRow] = []
    i = start
    pending = ""
    ncols = 7 if typed else 6
    while i < len(lines):
        parts = (pending + " " + lines[i]).split() if pending else lines[i].split()
        if len(parts) == 1 and not pending and i + 1 < len(lines):
            pending = parts[0]  # a long filesystem name wrapped onto its own line
            i += 1
            continue
        if len(parts) == ncols - 4 and not pending and not any(
                x.strip() for x in itertools.takewhile(lambda x: x.strip()[:3] not in ("```", "~~~"), lines[i + 1:i + 3])):
            # The paste ends inside this row, after its size (`shm   64M`): the size is shown, the rest is not.
            # A code fence after it ends the paste too.
            size = df_kib(parts[-1], unit)
            if size is not None:
                rows.append(DfRow(parts[0], size, None, None, ""))
                i += 1
            break
        if len(parts) < ncols or not parts[ncols - 2].rstrip("%").replace("-", "").isdecimal():
            break
        pending = ""
        cols = parts[2:] if typed else parts[1:]
        size, used, avail = (df_kib(cols[0], unit), df_kib(cols[1], unit), df_kib(cols[2], unit))
        if size is None or used is None or avail is None:
            break
        rows.append(DfRow(parts[0], size, used, avail, " ".join(parts[ncols - 1:])))
        i += 1
    return rows, (i - 1 if pending else i)


def parse_df_table(text: str) -> tuple[DfRow, ...]:
    """Parse df in any of its flavours (`df`, `-h`, `-k`, `-P`, `-B1`, `-T`), sizes in KiB; every table
    in the text (one source pasted twice) in order."""
    lines = text.splitlines()
    rows: list[DfRow] = []
    for i, line in enumerate(lines):
        m = DF_HEADER.match(line)
        if m:
            rows.extend(df_rows(lines, i + 1, m.group("unit"), " Type " in line)[0])
    if not rows:
        raise ParseError("not a df table")
    return tuple(rows)


def read_df(host: Host, sources: Sequence[Source] = DF_TABLES) -> tuple[Source, str] | None:
    """The first of these df sources the host shows, with its output. A host that runs commands answers
    the first (a failed df is an answer too); a paste answers the one it recorded."""
    for source in sources:
        try:
            result = host.run(list(source.argv))
        except NotCaptured:
            continue
        return (source, result.stdout) if result.ok else None
    return None


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
        for name in sorted(n for n in list_or_none(host, d) or () if n.endswith(".conf")):
            text = read_or_none(host, f"{d}/{name}")
            if text is not None:
                texts.append(text)
    return parse_logind_remove_ipc(texts)


# df and the mount tables first; an NGC image's start-up note (shm_from_ngc_note) or a pasted Ray log's free-space
# figure (facts/ray_log.py) where neither is there; last, the size the user states (shm_from_user_words).
fact("shm", ShmInfo, first_of)


@provider("shm", ShmInfo)
def shm(ctx: FactContext) -> ShmInfo:
    """/dev/shm size, use and device (df -k -P /dev/shm, mountinfo); logind RemoveIPC."""
    host = ctx.host
    sources: list[str] = []
    evidence: list[str] = []
    mount: MountEntry | None = None
    for path, parse_table in (("/proc/self/mountinfo", parse_mountinfo), ("/proc/mounts", parse_mounts)):
        text = read_or_none(host, path)
        if text is None:
            continue
        try:
            entries = parse_table(text)
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
    found = read_df(host)
    if found is not None:
        source, text = found
        try:
            rows = parse_df_table(text)
        except ParseError:
            rows = ()
        # `df /dev/shm` shows the mount /dev/shm is on (its last row); a whole table, the /dev/shm row if any.
        queried = source.argv[-1] == SHM
        row = rows[-1] if rows and queried else next((r for r in reversed(rows) if r.mounted_on == SHM), None)
        if row is not None:
            sources.append(" ".join(source.argv))
            evidence.append(f"df: {row.filesystem} {row.size_kib}K size, "
                            + (f"{row.used_kib}K used" if row.used_kib is not None else "the rest of the row cut")
                            + f", mounted on {row.mounted_on or SHM}")
            size = row.size_kib * 1024
            used = row.used_kib * 1024 if row.used_kib is not None else None
            avail = row.avail_kib * 1024 if row.avail_kib is not None else None
            mounted_on = row.mounted_on or SHM
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


# A /dev/shm size the user states for their own machine: a `key: value` line of a system-info list ("CPU Shared
# Memory: 64MB (the default)", NVIDIA/TensorRT-LLM#9680) or a sentence about "my /dev/shm" ("My /dev/shm is 64MB",
# NVIDIA/nccl#1518; "my shm size in container pod only has 64MB", vllm-project/production-stack#276). Docker's
# default stated as knowledge ("By default, the shm size is limited to 64MB under docker", NVIDIA/nccl#342) is no
# statement about the machine; a spec's keys (`shm_size:`, `shmSize:`) are the container readers'.
_SIZE = r"(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>[KMGT])i?B?\b"
SHM_WORDS = (
    re.compile(r"^[\s*>\u2022-]*(?:\*\*)?(?:CPU\s+)?(?:shared\s+memory|/dev/shm(?:\s+size)?)(?:\*\*)?\s*:\s*(?:\*\*)?"
               + _SIZE, re.I),
    re.compile(r"\bmy\s+(?:/dev/shm|shm|shared\s+memory)(?:\s+size)?\b[^.;:!?]{0,40}?\b(?:is|was|has|of)\s+"
               r"(?:only\s+|just\s+)?" + _SIZE, re.I),
)


def stated_shm(line: str) -> int | None:
    """The /dev/shm size in bytes a line of the user's words states for their machine (SHM_WORDS), or None."""
    for form in SHM_WORDS:
        m = form.search(line)
        if m:
            kib = parse_size_kib(m.group("size") + m.group("unit"))
            return kib * 1024 if kib is not None else None
    return None


@parser(USER_MACHINE, feeds="shm", kind=ShmInfo, rank=95)
def shm_from_user_words(text: str) -> ShmInfo:
    """The /dev/shm size the user states (`CPU Shared Memory: 64MB`): the last source, where no df, mount table
    or log shows it; two different sizes state none.

    Input (tests/data/captures/275)::

        CPU Shared Memory: 64MB (the default). GPT indicated that this could cause the hang behavior
    """
    said = [(size, line.strip()) for line in text.splitlines() if (size := stated_shm(line)) is not None]
    sizes = {size for size, _ in said}
    if len(sizes) != 1:
        raise ParseError("states no /dev/shm size" if not sizes else "states several /dev/shm sizes")
    size, line = said[0]
    return ShmInfo(size, sources=("the user's own words",), evidence=(f"the user's own words: {line[:160]!r}",))


# The note an NGC image's entrypoint prints when /dev/shm is Docker's default: its shm check tests
# `df -k /dev/shm` for a size of exactly 65536 KiB before it echoes `NOTE: The SHMEM allocation limit is set to the
# default of 64MB.` (nvidia_entrypoint.d's shm check in the NGC PyTorch, TensorFlow and Triton images).
NGC_SHM_NOTE = re.compile(r"\bNOTE: The SHMEM allocation limit is set to the default of 64MB\b")
NGC_SHM_BYTES = 65536 * 1024


@parser(EVIDENCE_LINES, feeds="shm", kind=ShmInfo, rank=85)
def shm_from_ngc_note(text: str) -> ShmInfo:
    """/dev/shm's size as an NGC image's entrypoint reports it (NGC_SHM_NOTE): 64 MiB, inside that container.

    Input (tests/data/captures/1767)::

        NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be
    """
    line = next((ln.strip() for ln in text.splitlines() if NGC_SHM_NOTE.search(ln)), "")
    if not line:
        raise ParseError("no NGC start-up note on /dev/shm")
    return ShmInfo(NGC_SHM_BYTES, sources=("the NGC image's start-up note",),
                   evidence=(f"the NGC entrypoint: {line[:160]!r}",))
