"""Recognise outputs pasted into bug reports and turn them into a host record (a snapshot).

Each importer finds its output by content, anywhere in a text, and records it verbatim under its own
source (the command's argv, the file's path, or a pasted document such as an engine log), with its
provenance: the pasted file, the lines, and whether the output is whole or an excerpt. Parsers of
the facts read it from there. What no importer recognises is ignored; a text with nothing
recognisable is an input error.
"""

from __future__ import annotations

import importlib
import pkgutil

_imported = False


def import_all() -> None:
    """Import every importer module, so that each registers itself (once: listing the package cost a quarter
    of recognising a paste)."""
    global _imported
    if _imported:
        return
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and info.name not in ("registry", "recognition"):
            importlib.import_module(f"{__name__}.{info.name}")
    _imported = True
