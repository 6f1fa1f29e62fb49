"""Recognise outputs pasted into bug reports and turn them into a host record (a snapshot).

Each importer finds its output by content, anywhere in a text, and writes what it found in the
canonical form the fact providers read live (a file under /proc or /sys, or a command's output).
What no importer recognises is ignored; a text with nothing recognisable is an input error.
"""

from __future__ import annotations

import importlib
import pkgutil


def import_all() -> None:
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and info.name not in ("registry",):
            importlib.import_module(f"{__name__}.{info.name}")
