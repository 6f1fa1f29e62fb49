"""The recogniser framework: importers claim line spans of a text and fill a HostRecord.

Every span's recording is stamped with its provenance: the pasted kind, the file and lines it came
from, and whether the kind's explicit start and end markers show it whole (`Found.whole`); anything
else is an excerpt, which never proves that something is absent.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from stackaudit.errors import InputError
from stackaudit.host.base import CommandResult
from stackaudit.host.memory import HostRecord, MemoryHost, join_provenance
from stackaudit.host.source import Provenance, command_key, doc_key, file_key

MAX_PASTE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Found:
    """One recognised output: lines [start, end) of the text, and how to record it."""

    kind: str
    start: int
    end: int
    apply: Callable[[HostRecord], None]
    # True only where the kind's explicit markers show the whole output (a dmesg from boot with no gap).
    whole: bool = False


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
        if kind in IMPORTERS and IMPORTERS[kind].func is not func:
            raise ValueError(f"two importers of kind {kind!r}")
        IMPORTERS[kind] = ImporterSpec(kind, description, func)
        return func

    return register


def _keys(record: HostRecord) -> dict[str, object]:
    """Every source key a record holds, with a token that changes when its content does."""
    keys: dict[str, object] = {file_key(p): len(v) for p, v in record.files.items()}
    keys.update({command_key(a): len(r.stdout) for a, r in record.commands.items()})
    keys.update({doc_key(n): len(t) for n, t in record.docs.items()})
    keys.update({file_key(p): tuple(v) for p, v in record.dirs.items()})
    return keys


def _stamp(record: HostRecord, found: Found, before: dict[str, object], file_name: str,
           kind_keys: dict[str, list[str]]) -> None:
    """Record where the keys this span wrote came from; a span that only adds to an earlier one's
    recording (scattered log lines) widens that one's lines."""
    after = _keys(record)
    changed = [k for k, v in after.items() if before.get(k) != v]
    if not changed:
        changed = kind_keys.get(found.kind, [])
    kind_keys.setdefault(found.kind, [])
    for key in changed:
        if key not in kind_keys[found.kind]:
            kind_keys[found.kind].append(key)
        prov = Provenance(found.kind, "pasted", found.whole, file_name, (found.start + 1, found.end))
        old = record.provenance.get(key)
        record.provenance[key] = prov if old is None else join_provenance(old, prov)


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


def recognise(text: str, file_name: str = "") -> ImportResult:
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
    kind_keys: dict[str, list[str]] = {}
    for found in taken:
        before = _keys(record)
        found.apply(record)
        _stamp(record, found, before, file_name, kind_keys)
        last = result.recognised[-1] if result.recognised else None
        if last is not None and last[0] == found.kind and last[2] == found.start:
            result.recognised[-1] = (found.kind, last[1], found.end)  # adjacent lines of one output: one span
        else:
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
        result = recognise(text, os.path.basename(path))
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
