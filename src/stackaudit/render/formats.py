"""The one format registry: the --format names each product offers, and the one check of a value.

The CLI lists a command's formats from here, so its help and completion import no renderer.
Each command checks its --format value with `check_format` before it reads anything.
"""

from __future__ import annotations

from stackaudit.errors import UsageError

_PROSE = ("text", "markdown", "json")
_PAGES = (*_PROSE, "html")

FORMATS: dict[str, tuple[str, ...]] = {
    "audit": ("text", "markdown", "json", "prometheus", "junit", "html"),
    # `stackaudit bench` also writes the key names of `vllm bench serve --save-result` (bench/export.py).
    "bench": (*_PAGES, "vllm-json"),
    "bench-stored": _PAGES,  # bench history and bench compare
    "catalogue": _PROSE,
    "ceiling": _PAGES,
    "compare": _PROSE,
    "fix-plan": _PROSE,
    "fleet": _PAGES,
    "investigate": _PROSE,
}


def format_name(fmt: str) -> str:
    """A --format value as the registry spells it: any case, and `md` for markdown."""
    name = fmt.lower()
    return "markdown" if name == "md" else name


def check_format(product: str, fmt: str) -> str:
    """`fmt`'s registry name when `product` offers it, else a one-line usage error (exit 2)."""
    formats = FORMATS[product]
    name = format_name(fmt)
    if name not in formats:
        raise UsageError(f"--format: choose one of {', '.join(formats)}, not {fmt!r}")
    return name
