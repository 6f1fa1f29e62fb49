"""The shipped catalogue of model architectures (data/models.toml): a model id resolves to its published
config.json values without a download.

`lookup(model)` answers an exact id (case-blind), an id whose organisation differs (a re-upload keeps the
name), and a quantised re-upload named after its base (`lukealonso/GLM-5-NVFP4` -> `zai-org/GLM-5`, with
the format its name gives). Each answer names the config.json its numbers come from.
"""

from __future__ import annotations

import functools
import pkgutil
import sys
from dataclasses import dataclass
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib



def catalogue_text() -> str:
    """The shipped data/models.toml, read as gputable.table_text reads data/gpus.toml (also from the zipapp)."""
    return (pkgutil.get_data("stackaudit", "data/models.toml") or b"").decode("utf-8")


# Name suffixes of quantised re-uploads and the `--weights` format each names (the checkpoint's own
# quantization_config, when readable, is better: it says which layers stay unquantised).
_FORMAT_SUFFIXES = (
    ("-nvfp4", "nvfp4"), ("-fp4", "nvfp4"), ("-mxfp4", "mxfp4"), ("-fp8-dynamic", "fp8"), ("-fp8", "fp8"),
    ("-awq", "int4-awq-g128"), ("-gptq-int4", "int4-gptq-g128"), ("-int4", "int4-gptq-g128"),
    ("-w4a16", "int4-gptq-g128"), ("-w8a8", "int8"), ("-int8", "int8"),
)  # fmt: skip


@dataclass(frozen=True)
class CatalogueModel:
    """One catalogue answer: the config, where its numbers come from, and what the name added."""

    id: str
    config: dict[str, Any]
    source: str
    weights: str | None = None  # a format the looked-up name gives (a quantised re-upload)
    note: str = ""


@functools.cache
def entries() -> dict[str, tuple[str, dict[str, Any], str]]:
    """{lower-case id: (id, config, source URL)}, `like` entries resolved."""
    data = tomllib.loads(catalogue_text())
    raw = {str(m["id"]): m for m in data.get("model", [])}
    out: dict[str, tuple[str, dict[str, Any], str]] = {}

    def resolve(model_id: str, depth: int = 0) -> dict[str, Any]:
        entry = raw[model_id]
        if depth > 4:
            raise ValueError(f"models.toml: `like` chain too long at {model_id}")
        base = resolve(str(entry["like"]), depth + 1) if entry.get("like") else {}
        return {**base, **dict(entry.get("config", {}))}

    for model_id, entry in raw.items():
        out[model_id.lower()] = (model_id, resolve(model_id), str(entry["source"]))
    return out


def _by_name(name: str) -> list[str]:
    """Catalogue keys whose name part (after the organisation) is `name` (lower case)."""
    return [key for key in entries() if key.rsplit("/", 1)[-1] == name]


def lookup(model: str) -> CatalogueModel | None:
    """The catalogue's architecture for a model id (or a path ending in one), or None."""
    text = model.strip().rstrip("/").lower()
    if not text:
        return None
    table = entries()
    found = table.get(text)
    if found is not None:
        return CatalogueModel(found[0], dict(found[1]), found[2])
    name = text.rsplit("/", 1)[-1]
    keys = _by_name(name)
    if len(keys) == 1:
        model_id, config, source = table[keys[0]]
        return CatalogueModel(model_id, dict(config), source, note=f"{model} read as {model_id} (same name)")
    for suffix, fmt in _FORMAT_SUFFIXES:
        if name.endswith(suffix):
            keys = _by_name(name.removesuffix(suffix))
            if len(keys) == 1:
                model_id, config, source = table[keys[0]]
                config = {k: v for k, v in config.items() if k != "quantization_config"}
                return CatalogueModel(model_id, config, source, fmt,
                                      f"{model} read as {model_id} with {fmt} weights (from its name)")
    return None


def ids() -> list[str]:
    """Every id the catalogue holds."""
    return [model_id for model_id, _, _ in entries().values()]



__all__ = ["CatalogueModel", "catalogue_text", "entries", "ids", "lookup"]
