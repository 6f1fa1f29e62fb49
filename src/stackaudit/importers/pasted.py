"""Pasted files and archives of them, read into one host (`audit --from FILE...`)."""

from __future__ import annotations

import os

from stackaudit.errors import InputError
from stackaudit.host.memory import HostRecord, MemoryHost
from stackaudit.importers import _archives, _compressed
from stackaudit.importers._hosts import HostProfile
from stackaudit.importers._paste import view
from stackaudit.importers.recognition import nothing_recognisable, recognise_view, strip_header
from stackaudit.importers.registry import MAX_PASTE_BYTES, WORDS


def load_pasted(paths: list[str]) -> MemoryHost:
    """Read one or more pasted-output files (or archives of them) into a host; exit 2 when nothing is
    recognisable (the user's words alone are not). The files are one host (a report split in files) unless they disagree as two hosts do."""
    combined = HostRecord(meta={"source": "pasted", "path": ", ".join(paths)})
    recognised: list[str] = []
    set_aside: list[str] = []
    profile = HostProfile()
    for path in paths:
        try:
            if os.path.getsize(path) > MAX_PASTE_BYTES:
                raise InputError(f"{path}: larger than {MAX_PASTE_BYTES // 2**20} MiB; not a pasted output")
            with open(path, "rb") as fh:
                head = fh.read(_compressed.MAGIC_BYTES)
                if _compressed.is_compressed(head):
                    results = _archives.recognise_archive(path, profile)
                else:
                    fh.seek(0)
                    paste = view(strip_header(fh.read().decode("utf-8", errors="replace")))
                    # Only the peeled lines are read from here on: the text itself (as large as the file) is gone.
                    results = [(os.path.basename(path), recognise_view(paste, os.path.basename(path), profile))]
                    del paste
        except IsADirectoryError as exc:
            raise InputError(f"{path}: is a directory without meta.json, not a snapshot") from exc
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
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
