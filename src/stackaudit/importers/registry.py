"""The importer table: `@importer` registers a recogniser of one pasted kind, and the helpers its
spans use to fill a HostRecord (commands, files, documents).

Every span's recording is stamped with its provenance by the recognition loop (importers/recognition.py):
the pasted kind, the file and lines it came from, and whether the kind's explicit start and end markers
show it whole (`Found.whole`); anything else is an excerpt, which never proves that something is absent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from stackaudit.host.base import CommandResult
from stackaudit.host.memory import HostRecord
from stackaudit.host.source import command_key, doc_key, file_key

MAX_PASTE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)  # slots: a long kernel log makes one per line
class Found:
    """One recognised output: lines [start, end) of the text, and how to record it."""

    kind: str
    start: int
    end: int
    apply: Callable[[HostRecord], None]
    # True only where the kind's explicit markers show the whole output (a dmesg from boot with no gap).
    whole: bool = False
    # How to record the output where the paste cuts it at its end (it lies in a fence that never closes:
    # recognition._cut_at_end), for a kind whose reader must know it is cut (a container spec: what the cut left out
    # is unknown, not absent); None: `apply`, the provenance's whole flag saying enough.
    cut: Callable[[HostRecord], None] | None = None


Importer = Callable[..., Iterator[Found]]  # (lines) or, with per_line needles, (lines, candidates=...)


@dataclass(frozen=True)
class ImporterSpec:
    kind: str
    description: str
    func: Importer
    # Strings (case ignored) one of which every output the recogniser accepts holds: where the text holds
    # none of them, the recogniser is not run. Empty: no safe set, it reads every text.
    needles: tuple[str, ...] = ()
    # The needles are on the line its trigger tests (each output starts from such a line): it is handed
    # the candidate lines (`Candidates`) and jumps from one to the next.
    per_line: bool = False
    # Its spans yield to every other recogniser's, whatever their length (the line-level evidence reader).
    fallback: bool = False
    # It reads the user's words: a fallback whose spans, alone, leave a paste unrecognised (importers/pasted.py).
    words: bool = False


IMPORTERS: dict[str, ImporterSpec] = {}
FALLBACK: set[str] = set()  # the kinds whose spans yield to every other's (`ImporterSpec.fallback`)
WORDS: set[str] = set()  # the kinds of the user's words that alone recognise nothing (`ImporterSpec.words`)


def importer(kind: str, description: str, needles: tuple[str, ...] = (),
             per_line: bool = False, fallback: bool = False, words: bool = False) -> Callable[[Importer], Importer]:
    """Register an importer: a generator of Found spans over the text's lines. `needles`: strings at least
    one of which every output it accepts holds (case ignored), derived from its trigger; `per_line`: they
    stand on the trigger's line, and the importer takes `candidates` (importers/_scan.py `Candidates`);
    `words`: it reads the user's words, a fallback that alone recognises nothing."""
    if per_line and not needles:
        raise ValueError(f"{kind!r}: per_line needs needles")
    if any(not n or "\n" in n or not (n.isascii() or all(c.lower() == c.upper() for c in n)) for n in needles):
        # ASCII, or no letter with case (a full-width colon, a Chinese measure word): the scan lowercases the
        # text's UTF-8 bytes, which folds the case of ASCII letters only.
        raise ValueError(f"{kind!r}: a needle is a non-empty ASCII string, or one without cased letters, within one "
                         "line")

    def register(func: Importer) -> Importer:
        if kind in IMPORTERS and IMPORTERS[kind].func is not func:
            raise ValueError(f"two importers of kind {kind!r}")
        IMPORTERS[kind] = ImporterSpec(kind, description, func, _fewest(needles), per_line, fallback or words, words)
        # One order whatever module was imported first (module name, then place in the module): the
        # recognition loop and the kinds `audit --help` lists follow it.
        ordered = sorted(IMPORTERS.values(), key=lambda s: (s.func.__module__, s.func.__code__.co_firstlineno))
        IMPORTERS.clear()
        IMPORTERS.update((s.kind, s) for s in ordered)
        if fallback or words:
            FALLBACK.add(kind)
        if words:
            WORDS.add(kind)
        return func

    return register


def _fewest(needles: tuple[str, ...]) -> tuple[str, ...]:
    """The needles lowercased, less those holding another of them (a line holding the longer one holds the
    shorter): each needle costs a pass over the text."""
    low = sorted(set(n.lower() for n in needles), key=len)
    kept: list[str] = []
    for n in low:
        if not any(k in n for k in kept):
            kept.append(n)
    return tuple(kept)


class _Tracked(dict[Any, Any]):
    """A record's table that notes the source key of every entry written (an O(1) change log, where
    comparing the whole record before and after each span would cost the record's size per span)."""

    def __init__(self, key_of: Callable[[Any], str], touched: list[str]) -> None:
        super().__init__()
        self._key_of, self._touched = key_of, touched

    def __setitem__(self, key: Any, value: Any) -> None:
        self._touched.append(self._key_of(key))
        super().__setitem__(key, value)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def append_part(self, key: Any, text: str) -> None:
        """Text added to the end of an entry, joined once when the record is complete."""
        self._touched.append(self._key_of(key))
        self.parts.setdefault(key, []).append(text)

    @property
    def parts(self) -> dict[Any, list[str]]:
        if not hasattr(self, "_parts"):
            self._parts: dict[Any, list[str]] = {}
        return self._parts

    def joined(self) -> dict[Any, Any]:
        out = dict(self)
        for key, parts in self.parts.items():
            out[key] = out.get(key, "") + "".join(parts)
        return out


def tracked_record(touched: list[str]) -> HostRecord:
    record = HostRecord(meta={"source": "pasted"})
    record.files = _Tracked(file_key, touched)
    record.dirs = _Tracked(file_key, touched)
    record.commands = _Tracked(command_key, touched)
    record.docs = _Tracked(doc_key, touched)
    return record


def untrack(record: HostRecord) -> None:
    record.files, record.dirs = dict(record.files), dict(record.dirs)
    docs = record.docs
    record.commands, record.docs = dict(record.commands), docs.joined() if isinstance(docs, _Tracked) else docs


def append_document(record: HostRecord, name: str, text: str, sep: str = "") -> None:
    """Add text to the end of a pasted document (a log quoted in many pieces), after `sep` where the document
    already holds text. Linear in the pieces: a record that `recognise` is filling joins them once, instead of
    copying the document for each."""
    docs = record.docs
    if sep and (docs.get(name) or (isinstance(docs, _Tracked) and docs.parts.get(name))):
        text = sep + text
    if isinstance(docs, _Tracked):
        docs.append_part(name, text)
    else:
        docs[name] = docs.get(name, "") + text


def _apply_each(rec: HostRecord, applies: tuple[Callable[[HostRecord], None], ...]) -> None:
    for apply in applies:
        apply(rec)


def applied_each(*applies: Callable[[HostRecord], None]) -> Callable[[HostRecord], None]:
    """A Found.apply that records one span in several places, in order (a partial of partials: it pickles)."""
    return partial(_apply_each, applies=applies)


def document_appended(name: str, text: str, sep: str = "") -> Callable[[HostRecord], None]:
    """A Found.apply that adds pasted text to the end of a pasted document (`append_document`)."""
    return partial(append_document, name=name, text=text, sep=sep)  # a partial, not a lambda: it pickles


def recognised_kinds() -> list[str]:
    """The kinds of output the registered importers recognise, as their table names them."""
    from stackaudit import importers

    importers.import_all()
    return [kind for kind in IMPORTERS if not kind.startswith("_")]


def record_command(record: HostRecord, argv: tuple[str, ...], stdout: str) -> None:
    """Store a pasted output as if the command had run and succeeded."""
    record.commands[argv] = CommandResult(argv, 0, stdout)


def record_file(record: HostRecord, path: str, content: str) -> None:
    record.files[path] = content.encode()


def command_output(argv: tuple[str, ...], stdout: str) -> Callable[[HostRecord], None]:
    """A Found.apply that records a pasted output as the command's."""
    return partial(record_command, argv=argv, stdout=stdout)  # a partial, not a lambda: it pickles


def command_output_appended(argv: tuple[str, ...], stdout: str) -> Callable[[HostRecord], None]:
    """A Found.apply that records a pasted output as the command's, after any earlier span of the same
    command in the paste (two greps of `sysctl -a`, `cpupower frequency-info` pasted for two CPUs)."""

    def apply(record: HostRecord) -> None:
        earlier = record.commands.get(argv)
        record_command(record, argv, (earlier.stdout if earlier is not None else "") + stdout)

    return apply


def file_content(path: str, content: str) -> Callable[[HostRecord], None]:
    """A Found.apply that records pasted text as a file's content."""
    return partial(record_file, path=path, content=content)
