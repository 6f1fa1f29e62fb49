"""`stackaudit ceiling`: the physical ceiling of decode throughput, explained.

Public API (for the CLI, and for the audit and bench headlines):

    from stackaudit.ceiling import compute, load_model
    from stackaudit.gputable import lookup
    raw, arch = load_model("deepseek-ai/DeepSeek-V3")        # path, model dir, or local HF cache id
    report = compute(arch, lookup("H200").spec, gpus=8, tp=8, kv_context=4096, concurrencies=[1, 10])
    report.levels[0].ceiling("bandwidth").tokens_per_s         # per stream
    report.to_dict()                                           # the JSON document (schema 2)

See `stackaudit.ceiling.ladder.compute` for every parameter.
"""

from __future__ import annotations

from stackaudit.ceiling.ladder import (
    CEILING_NAMES,
    DEFAULT_CONTEXT,
    SCHEMA,
    Ceiling,
    CeilingReport,
    Level,
    MeasuredResult,
    compute,
)
from stackaudit.ceiling.modelconfig import ModelArch, load_model, parse_arch, resolve_config_path

__all__ = [
    "CEILING_NAMES",
    "DEFAULT_CONTEXT",
    "SCHEMA",
    "Ceiling",
    "CeilingReport",
    "Level",
    "MeasuredResult",
    "ModelArch",
    "compute",
    "load_model",
    "parse_arch",
    "resolve_config_path",
]
