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


def import_all() -> None:
    """Import every importer module, then put the table in one order: module name, then place in the module.

    Without the second step the table's order would follow whichever module something imported first.
    """
    from stackaudit.importers.registry import IMPORTERS

    names = [info.name for info in pkgutil.iter_modules(__path__)
             if not info.name.startswith("_") and info.name not in ("registry", "recognition")]
    for name in names:
        importlib.import_module(f"{__name__}.{name}")
    rank = {f"{__name__}.{name}": i for i, name in enumerate(sorted(names))}
    ordered = sorted(IMPORTERS.values(),
                     key=lambda spec: (rank.get(spec.func.__module__, len(rank)), spec.func.__code__.co_firstlineno))
    if list(IMPORTERS.values()) != ordered:
        IMPORTERS.clear()
        IMPORTERS.update((spec.kind, spec) for spec in ordered)
