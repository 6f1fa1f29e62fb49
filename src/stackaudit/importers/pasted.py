"""Pasted files and archives of them, read into one host (`audit --from FILE...`)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from stackaudit.errors import InputError
from stackaudit.host.memory import HostRecord, MemoryHost
from stackaudit.importers import _archives, _compressed
from stackaudit.importers._hosts import HostProfile
from stackaudit.importers._paste import view
from stackaudit.importers.recognition import ImportResult, nothing_recognisable, recognise_view, strip_header
from stackaudit.importers.registry import MAX_PASTE_BYTES, WORDS


def load_pasted(paths: list[str]) -> MemoryHost:
    """Read one or more pasted-output files (or archives of them) into a host; exit 2 when nothing is
    recognisable (the user's words alone are not). The files are one host (a report split in files) unless they disagree as two hosts do."""
    profile = HostProfile()
    # A generator: each file is read only after the one before it was found recognisable.
    return pasted_host(paths, (read_pasted(path, profile) for path in paths))


def read_pasted(path: str, profile: HostProfile) -> list[tuple[str, ImportResult]]:
    """One pasted file, or each member of an archive of them, recognised: (name, result) pairs.

    `profile` carries the first host across the files of one report."""
    try:
        if os.path.getsize(path) > MAX_PASTE_BYTES:
            raise InputError(f"{path}: larger than {MAX_PASTE_BYTES // 2**20} MiB; not a pasted output")
        with open(path, "rb") as fh:
            head = fh.read(_compressed.MAGIC_BYTES)
            if _compressed.is_compressed(head):
                return _archives.recognise_archive(path, profile)
            fh.seek(0)
            paste = view(strip_header(fh.read().decode("utf-8", errors="replace")))
        # Only the peeled lines are read from here on: the text itself (as large as the file) is gone.
        return [(os.path.basename(path), recognise_view(paste, os.path.basename(path), profile))]
    except IsADirectoryError as exc:
        raise InputError(f"{path}: is a directory without meta.json, not a snapshot") from exc
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def pasted_host(paths: list[str], read: Iterable[list[tuple[str, ImportResult]]]) -> MemoryHost:
    """The host of what `read_pasted` recognised in each of `paths`, in their order; exit 2 for a file in which
    nothing is recognisable."""
    combined = HostRecord(meta={"source": "pasted", "path": ", ".join(paths)})
    recognised: list[str] = []
    set_aside: list[str] = []
    for path, results in zip(paths, read, strict=True):
        found_any = False
        for name, result in results:
            combined.merge(result.record)
            where = "" if name == os.path.basename(path) else f"{name}: "
            recognised.extend(f"{where}{kind} (lines {a}-{b})" for kind, a, b in result.recognised)
            named = len(paths) > 1 or bool(where)
            set_aside.extend(f"{name}: {entry}" if named else entry for entry in result.set_aside)
            # The user's words alone are no pasted output (`ImporterSpec.words`).
            found_any = found_any or bool(result.set_aside) or any(kind not in WORDS for kind, _, _ in result.recognised)
        if not found_any:
            raise nothing_recognisable(path)
    combined.meta["source"] = "pasted"
    combined.meta["recognised"] = recognised
    combined.meta["path"] = ", ".join(paths)
    if set_aside:
        combined.meta["set_aside"] = set_aside
    else:
        combined.meta.pop("set_aside", None)
    return MemoryHost(combined)
