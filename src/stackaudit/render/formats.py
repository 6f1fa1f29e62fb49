"""The one format registry: the --format names each product offers, the one check of a value, and the
schema number of each product's JSON payload.

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


# The schema number each product's JSON payload carries as its "schema" key; a change to a payload's
# contract bumps its number here (docs/report.md, docs/ceiling.md, ...).
SCHEMAS: dict[str, int] = {
    "audit": 2,
    "bench": 1,
    "bench-history": 2,
    "catalogue": 1,
    "ceiling": 2,  # 2: the common envelope, context 0 by default with a "kv-loaded" ceiling, pipelines
    "compare": 1,
    "fix-plan": 1,
    "fleet": 1,
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
