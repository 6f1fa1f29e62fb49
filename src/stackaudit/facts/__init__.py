"""Pure parsers (text -> frozen dataclasses) and fact providers (Host -> facts)."""

from __future__ import annotations

import importlib
import pkgutil

_imported = False


def import_all() -> None:
    """Import every module of this package, so that each provider registers itself (once: every audit and
    every report asks, and listing the package costs a millisecond or two)."""
    global _imported
    if _imported:
        return
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    _imported = True
