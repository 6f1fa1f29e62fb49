"""One module per domain; each check a small pure function of facts."""

from __future__ import annotations

import importlib
import pkgutil

_imported = False


def import_all() -> None:
    """Import every domain module of this package, so that each check registers itself (once)."""
    global _imported
    if _imported:
        return
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and info.name != "registry":
            importlib.import_module(f"{__name__}.{info.name}")
    _imported = True
