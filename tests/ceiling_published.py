"""Published model configs and single-stream decode measurements the ceiling is validated against.

The configs are the shipped catalogue's (data/models.toml: the published `config.json` values the ceiling reads);
the measurements are data/ceiling_measurements.toml, one public source per row. Used by the tests
(tests/test_ceiling_validation.py) and by perf/ceiling_validation.py; `ceiling --measured` reads the
measurements itself (ceiling/measurements.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stackaudit.ceiling.ladder import compute
from stackaudit.ceiling.measurements import Measurement, measurements
from stackaudit.models import lookup as lookup_model

# The measurement table's model names and the catalogue entry (data/models.toml) each one's config comes from.
MODEL_IDS = {
    "Llama-7B": "huggyllama/llama-7b",
    "Llama-13B": "huggyllama/llama-13b",
    "Llama-2-7B": "meta-llama/Llama-2-7b-chat-hf",
    "Llama-2-13B": "meta-llama/Llama-2-13b-chat-hf",
    "Llama-2-70B": "meta-llama/Llama-2-70b-chat-hf",
    "Llama-3-8B": "meta-llama/Meta-Llama-3-8B-Instruct",
    "Qwen3-8B": "Qwen/Qwen3-8B",
    "Qwen2.5-7B": "Qwen/Qwen2.5-7B-Instruct",
    "Mixtral-8x7B": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "Qwen3-30B-A3B": "Qwen/Qwen3-30B-A3B",
    "DeepSeek-V3": "deepseek-ai/DeepSeek-V3",
    "GLM-4.5": "zai-org/GLM-4.5",
    "GLM-5": "zai-org/GLM-5",
    "GLM-5.1": "zai-org/GLM-5.1",
    "MiniMax-M2.5": "MiniMaxAI/MiniMax-M2.5",
    "gpt-oss-120b": "openai/gpt-oss-120b",
    "gpt-oss-20b": "openai/gpt-oss-20b",
}


def _catalogue_config(model_id: str) -> dict[str, Any]:
    found = lookup_model(model_id)
    if found is None or found.id != model_id:
        raise KeyError(f"validation: {model_id} is not in data/models.toml")
    return found.config


# The published config.json values, as the shipped catalogue holds them (one copy of each number).
CONFIGS: dict[str, dict[str, Any]] = {name: _catalogue_config(model_id) for name, model_id in MODEL_IDS.items()}

# Active parameters (embeddings excluded, lm_head included) counted by hand from the same configs.
HAND_COUNTED_ACTIVE_PARAMS = {
    "DeepSeek-V3": 36.62e9,
    "Qwen3-30B-A3B": 3.04e9,
    "gpt-oss-120b": 5.13e9,
    "Mixtral-8x7B": 12.75e9,
    "GLM-4.5": 32.86e9,
    "GLM-5": 40.83e9,
    "MiniMax-M2.5": 10.42e9,
    "Llama-3-8B": 7.51e9,
    "Qwen3-8B": 7.57e9,
}


# Engines whose dense batch-1 decode is known to run close to the bandwidth limit: on these rows the
# ceiling of the run's own workload (the kv-loaded line at its context) must also be at most EFFICIENT_FACTOR x
# the measurement (a ceiling far above what the best stacks reach explains nothing).
EFFICIENT_ENGINES = frozenset({"llama.cpp", "ExLlamaV2", "MLC", "vLLM", "TensorRT-LLM"})
EFFICIENT_FACTOR = 2.5
# A run is KV-loaded from this many tokens in its cache: there the kv-loaded line (`--context`) is its ceiling.
KV_LOADED_CONTEXT = 16384
# Stored bytes against the published checkpoint or GGUF size, less the embedding.
SIZE_TOLERANCE = 0.15


@dataclass(frozen=True)
class ValidationRow:
    measurement: Measurement
    bytes_gb: float  # per token per GPU at the measurement's context
    bandwidth_ceiling: float
    allreduce_ceiling: float
    overhead_ceiling: float
    ceiling: float  # the final figure: the hardware line at context 0
    loaded_ceiling: float  # the kv-loaded line at the measurement's context
    stored_gb: float  # whole model without the embedding
    embedding_gb: float

    @property
    def bytes_error(self) -> float | None:
        """Relative difference to the hand count (plus its documented correction)."""
        expected = self.measurement.expected_bytes_gb
        return None if expected is None else self.bytes_gb / expected - 1

    @property
    def independent_gb(self) -> float | None:
        """The published size less the embedding table: the count the tool's stored bytes must match."""
        m = self.measurement
        if m.published_bytes_gb is None:
            return None
        return m.published_bytes_gb - self.embedding_gb

    @property
    def size_error(self) -> float | None:
        independent = self.independent_gb
        return None if independent is None else self.stored_gb / independent - 1


def _embedding_gb(m: Measurement) -> float:
    """The embedding table as the published file stores it (one V x h matrix, tied or not)."""
    from stackaudit.ceiling.modelconfig import parse_arch
    from stackaudit.ceiling.weights import dtype_format, parse_format

    arch = parse_arch(CONFIGS[m.model])
    fmt = parse_format(m.embedding_format) if m.embedding_format else dtype_format(arch.torch_dtype)
    return arch.vocab * arch.hidden * fmt.bytes_per_param / 1e9


def validate_one(m: Measurement) -> ValidationRow:
    from stackaudit.gputable import lookup

    common: dict[str, Any] = {
        "gpus": m.gpus, "tp": m.tp, "pp": m.pp, "ep": m.ep, "weights": m.format or None,
        "kv_dtype": m.kv_dtype, "concurrencies": [1], "interconnect": m.interconnect, "allreduce": m.allreduce,
    }  # fmt: skip
    spec = lookup(m.gpu).spec
    hardware = compute(CONFIGS[m.model], spec, context=0, kv_context=m.context, **common)
    at_context = compute(CONFIGS[m.model], spec, context=m.context, **common)
    level = hardware.levels[0]
    loaded = level.loaded
    assert loaded is not None
    return ValidationRow(
        measurement=m,
        bytes_gb=at_context.levels[0].bytes_per_token_per_gpu / 1e9,
        bandwidth_ceiling=level.ceiling("bandwidth").tokens_per_s,
        allreduce_ceiling=level.ceiling("bandwidth+allreduce").tokens_per_s,
        overhead_ceiling=level.ceiling("overhead").tokens_per_s,
        ceiling=level.tokens_per_s,
        loaded_ceiling=loaded.tokens_per_s,
        stored_gb=hardware.stored_bytes / 1e9,
        embedding_gb=_embedding_gb(m),
    )


def validate() -> list[ValidationRow]:
    """Run the ceiling on every measurement of the table."""
    return [validate_one(m) for m in measurements()]
