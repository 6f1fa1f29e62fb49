"""The recogniser framework: importers claim line spans of a text and fill a HostRecord."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from stackaudit.errors import InputError
from stackaudit.host.base import CommandResult
from stackaudit.host.memory import HostRecord, MemoryHost

MAX_PASTE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Found:
    """One recognised output: lines [start, end) of the text, and how to record it."""

    kind: str
    start: int
    end: int
    apply: Callable[[HostRecord], None]


Importer = Callable[[list[str]], Iterator[Found]]


@dataclass(frozen=True)
class ImporterSpec:
    kind: str
    description: str
    func: Importer


IMPORTERS: dict[str, ImporterSpec] = {}


def importer(kind: str, description: str) -> Callable[[Importer], Importer]:
    """Register an importer: a generator of Found spans over the text's lines."""

    def register(func: Importer) -> Importer:
        IMPORTERS[kind] = ImporterSpec(kind, description, func)
        return func

    return register


@dataclass
class ImportResult:
    record: HostRecord
    recognised: list[tuple[str, int, int]] = field(default_factory=list)


def strip_header(text: str) -> str:
    """Drop the `# ...` header of the shared captures (ends at `# ----- end of header`)."""
    marker = "# ----- end of header"
    idx = text.find(marker)
    if idx >= 0 and text.lstrip().startswith("#"):
        nl = text.find("\n", idx)
        return text[nl + 1:] if nl >= 0 else ""
    return text


def recognise(text: str) -> ImportResult:
    """Run every importer over the text; overlapping claims go to the longest span."""
    from stackaudit import importers

    importers.import_all()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    candidates: list[Found] = []
    for spec in IMPORTERS.values():
        try:
            candidates.extend(spec.func(lines))
        except (ValueError, IndexError, KeyError):
            # An importer that trips on odd input recognises nothing there; the others go on.
            continue
    candidates.sort(key=lambda f: (-(f.end - f.start), f.start))
    taken: list[Found] = []
    for cand in candidates:
        if all(cand.end <= t.start or cand.start >= t.end or cand.kind == t.kind == "_shared" for t in taken):
            taken.append(cand)
    taken.sort(key=lambda f: f.start)
    record = HostRecord(meta={"source": "pasted"})
    result = ImportResult(record)
    for found in taken:
        found.apply(record)
        result.recognised.append((found.kind, found.start + 1, found.end))
    return result


def load_pasted(paths: list[str]) -> MemoryHost:
    """Read one or more pasted-output files into a host; exit 2 when nothing is recognisable."""
    combined = HostRecord(meta={"source": "pasted", "path": ", ".join(paths)})
    recognised: list[str] = []
    for path in paths:
        try:
            if os.path.getsize(path) > MAX_PASTE_BYTES:
                raise InputError(f"{path}: larger than {MAX_PASTE_BYTES // 2**20} MiB; not a pasted output")
            with open(path, "rb") as fh:
                raw = fh.read()
        except IsADirectoryError as exc:
            raise InputError(f"{path}: is a directory without meta.json, not a snapshot") from exc
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
        text = strip_header(raw.decode("utf-8", errors="replace"))
        result = recognise(text)
        combined.merge(result.record)
        recognised.extend(f"{kind} (lines {a}-{b})" for kind, a, b in result.recognised)
        if not result.recognised:
            raise InputError(
                f"{path}: nothing recognisable (expected outputs such as lspci -vvv, nvidia-smi, lscpu, "
                "/proc/cmdline, sysctl -a, dmesg; see `stackaudit audit --help`)"
            )
    combined.meta["source"] = "pasted"
    combined.meta["recognised"] = recognised
    combined.meta["path"] = ", ".join(paths)
    return MemoryHost(combined)


def record_command(record: HostRecord, argv: tuple[str, ...], stdout: str) -> None:
    """Store a pasted output as if the command had run and succeeded."""
    record.commands[argv] = CommandResult(argv, 0, stdout)


def record_file(record: HostRecord, path: str, content: str) -> None:
    record.files[path] = content.encode()


def command_output(argv: tuple[str, ...], stdout: str) -> Callable[[HostRecord], None]:
    """A Found.apply that records a pasted output as the command's."""
    return lambda record: record_command(record, argv, stdout)


def file_content(path: str, content: str) -> Callable[[HostRecord], None]:
    """A Found.apply that records pasted text as a file's content."""
    return lambda record: record_file(record, path, content)
