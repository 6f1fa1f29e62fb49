"""Archives people attach instead of pasting: `nvidia-bug-report.log.gz` and `sosreport-*.tar.xz`.

Both are read as streams, never extracted to disk, with caps a hostile or broken archive cannot get
past: 512 MiB uncompressed in all, and past 64 MiB no more than 100 bytes out for each compressed byte
in (the snapshot's own rule, host/snapshot_reader.BoundedDecompression), 50 000 members, and a member or
section larger than 8 MiB cut at 8 MiB (its recording an excerpt); a line is read at most 8 MiB at a time. Each section or member the audit has a source for goes through the
same recognisers as a paste (or, for a file the archive holds verbatim, straight to that file's
source); its provenance names the archive and the member or section.

nvidia-bug-report.sh (shipped with the NVIDIA driver) writes one text log, gzipped: sections open with
a line of 44 underscores, a blank line, then a header that is either `*** /path` (a file it appended,
followed by an `*** ls:` line of metadata in newer versions) or the command it ran
(`/usr/bin/lspci -d "10de:*" -v -xxx`, `dmesg:`, `/usr/bin/nvidia-smi --query`, `journalctl -b -0 ...`).
Its prologue holds a `uname: ` line.

sos (https://github.com/sosreport/sos) writes a tarball whose top directory holds the host's files
under their own paths (`proc/cmdline`, `etc/...`) and command outputs under
`sos_commands/<plugin>/<command with spaces as _>` (`sos_commands/kernel/dmesg`,
`sos_commands/pci/lspci_-nnvv`, `sos_commands/processor/lscpu`).
"""

from __future__ import annotations

import gzip
import lzma
import os
import re
import tarfile
from collections.abc import Callable, Iterator
from functools import partial
from typing import IO

from stackaudit.errors import InputError
from stackaudit.facts.sources import PROC_CMDLINE, PROC_MODULES, UNAME
from stackaudit.host.memory import HostRecord
from stackaudit.host.snapshot_reader import SnapshotError
from stackaudit.host.source import Provenance, command_key, file_key
from stackaudit.importers import _hosts
from stackaudit.importers._compressed import MAGIC_BYTES, TAR_MAGIC_AT, decompressed, zlib_error
from stackaudit.importers.recognition import ImportResult, recognise
from stackaudit.importers.registry import record_command, record_file

MAX_MEMBERS = 50_000
MAX_MEMBER = 8 * 1024 * 1024

SEPARATOR = "_" * 44


def recognise_archive(path: str, profile: _hosts.HostProfile) -> list[tuple[str, ImportResult]]:
    """Each recognised section or member of an archive, named `ARCHIVE:SECTION`, in order."""
    label = os.path.basename(path)
    with open(path, "rb") as fh:
        head = fh.read(MAGIC_BYTES)
    try:
        with decompressed(path, head) as stream:
            block = stream.peek(512)[:512]
            if block[TAR_MAGIC_AT:TAR_MAGIC_AT + 5] == b"ustar":
                return list(_sos_members(stream, label, profile))
            return list(_bug_report_sections(stream, label, profile))
    except SnapshotError as exc:
        raise InputError(f"{label}: {exc}; not read") from None
    except (EOFError, lzma.LZMAError, tarfile.TarError, gzip.BadGzipFile, zlib_error()) as exc:
        raise InputError(f"{label}: a damaged archive ({exc})") from exc


# --- nvidia-bug-report.log.gz (or any compressed text) --------------------------------------------------------------------

# How each section of the log is read: by the recognisers, or as the verbatim file it appended.
_RECOGNISED_SECTIONS = re.compile(
    r"^(?:\S*/)?(?:lspci\b.*|nvidia-smi (?:--query|-q)\b.*|dmesg:?|journalctl -b\b.*)$"
    r"|^Scanning kernel log files for NVIDIA kernel messages:?$"
)
_FILE_SECTIONS = {"/proc/cmdline": PROC_CMDLINE, "/proc/modules": PROC_MODULES}
_UNAME_LINE = re.compile(r"^uname: (?P<text>Linux \S+ .*)$")


def _lines(stream: IO[bytes]) -> Iterator[str]:
    """The stream's lines, each read at most MAX_MEMBER bytes at a time: a longer line is its first
    MAX_MEMBER bytes, the rest skipped, so one endless line costs no more than one section."""
    while True:
        raw = stream.readline(MAX_MEMBER + 1)
        if not raw:
            return
        if len(raw) > MAX_MEMBER and not raw.endswith(b"\n"):
            while True:  # the rest of a line past the cap
                rest = stream.readline(MAX_MEMBER)
                if not rest or rest.endswith(b"\n"):
                    break
        yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


def _bug_report_sections(stream: IO[bytes], label: str,
                         profile: _hosts.HostProfile) -> Iterator[tuple[str, ImportResult]]:
    section: list[str] = []
    size = 0
    first = 1  # 1-based line number, in the log, of section[0]
    number = 0
    sections = 0
    for line in _lines(stream):
        number += 1
        if line.strip() == SEPARATOR:
            if section:
                yield from _bug_report_section(section, first, size > MAX_MEMBER, label, profile)
            section, size, first = [], 0, number + 1
            sections += 1
            continue
        if size <= MAX_MEMBER:
            size += len(line) + 1
            if size <= MAX_MEMBER:
                section.append(line)
    if not sections:
        # No bug-report sections: a compressed paste (`dmesg | xz`), read as one.
        yield label, _excerpt_if(size > MAX_MEMBER, recognise("\n".join(section), label, profile))
    elif section:
        yield from _bug_report_section(section, first, size > MAX_MEMBER, label, profile)


def _bug_report_section(section: list[str], first: int, cut: bool, label: str,
                        profile: _hosts.HostProfile) -> Iterator[tuple[str, ImportResult]]:
    at = next((i for i, line in enumerate(section) if line.strip()), None)
    if at is None:
        return
    header = section[at].strip()
    body_at = at + 1
    if header.startswith("*** "):
        path = header[4:].strip()
        while body_at < len(section) and section[body_at].startswith("*** ls:"):
            body_at += 1
        source = _FILE_SECTIONS.get(path)
        if source is not None:
            body = section[body_at:]
            while body and not body[-1].strip():
                body.pop()
            while body and not body[0].strip():
                body.pop(0)
                body_at += 1
            if body:
                name = f"{label}:{path}"
                text = "\n".join(body) + "\n"
                yield name, _verbatim(name, source.title, partial(record_file, path=source.path, content=text),
                                      file_key(source.path), first + body_at, len(body), not cut)
        return
    for n, line in enumerate(section):
        m = _UNAME_LINE.match(line)
        if m and n < 16:
            name = f"{label}:uname"
            text = m.group("text").strip() + "\n"
            yield name, _verbatim(name, UNAME.title, partial(record_command, argv=UNAME.argv, stdout=text),
                                  command_key(UNAME.argv), first + n, 1, True)
            return
    if _RECOGNISED_SECTIONS.match(header):
        name = f"{label}:{header}"
        text = "\n".join(section[body_at:])
        yield name, _excerpt_if(cut, recognise(text, name, profile, line_offset=first - 1 + body_at))


# --- sosreport-*.tar.xz --------------------------------------------------------------------------

_RECOGNISED_MEMBERS = re.compile(
    r"^sos_commands/(?:kernel/(?:dmesg(?:_-T)?|lsmod|sysctl_-a|uname_-a)|pci/lspci(?:_-nn?vv|_-tv)?"
    r"|processor/(?:lscpu|cpupower_\w.*)|numa/numactl_--hardware|nvidia/nvidia-smi\S*"
    r"|logs/journalctl_--no-pager(?:_--catalog)?(?:_--boot)?|logs/journalctl_.*(?:-k|--dmesg)\S*"
    r"|filesys/df_\S*|docker/docker_inspect\S*|podman/podman_inspect\S*)$"
)
_FILE_MEMBERS = {"proc/cmdline": PROC_CMDLINE, "proc/modules": PROC_MODULES}


def _sos_members(stream: IO[bytes], label: str,
                 profile: _hosts.HostProfile) -> Iterator[tuple[str, ImportResult]]:
    count = 0
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        for member in tar:
            count += 1
            if count > MAX_MEMBERS:
                raise InputError(f"{label}: more than {MAX_MEMBERS} members; not read")
            # A stream needs no index of what it passed: 50 000 members cost nothing to remember.
            tar.members.clear()  # type: ignore[attr-defined]
            if not member.isfile():
                continue
            rel = member.name.lstrip("./")
            rel = rel.split("/", 1)[1] if "/" in rel else rel  # below the sosreport-HOST-DATE/ directory
            source = _FILE_MEMBERS.get(rel)
            if source is None and not _RECOGNISED_MEMBERS.match(rel):
                continue
            fh = tar.extractfile(member)
            if fh is None:
                continue
            data = fh.read(MAX_MEMBER + 1)
            cut = len(data) > MAX_MEMBER
            if cut:
                data = data[:data.rfind(b"\n", 0, MAX_MEMBER) + 1 or MAX_MEMBER]
            text = data.decode("utf-8", errors="replace")
            name = f"{label}:{rel}"
            if source is not None:
                if text.strip():
                    n_lines = text.rstrip("\n").count("\n") + 1
                    body = text if text.endswith("\n") else text + "\n"
                    yield name, _verbatim(name, source.title, partial(record_file, path=source.path, content=body),
                                          file_key(source.path), 1, n_lines, not cut)
                continue
            yield name, _excerpt_if(cut, recognise(text, name, profile))


# --- shared --------------------------------------------------------------------------------------


def _verbatim(name: str, title: str, apply: Callable[[HostRecord], None], key: str, line: int, n_lines: int,
              whole: bool) -> ImportResult:
    """A file the archive holds as it is, recorded under its own source."""
    record = HostRecord(meta={"source": "pasted"})
    apply(record)
    record.provenance[key] = Provenance(title, "pasted", whole, name, (line, line + n_lines - 1))
    return ImportResult(record, recognised=[(title, line, line + n_lines - 1)])


def _excerpt_if(cut: bool, result: ImportResult) -> ImportResult:
    """A section or member cut at the size cap: everything it gave is an excerpt."""
    if cut:
        for key, prov in list(result.record.provenance.items()):
            result.record.provenance[key] = Provenance(prov.source, prov.origin, False, prov.file, prov.lines)
    return result
