"""Published model configs and single-stream decode measurements the ceiling is validated against.

The configs carry the published `config.json` values of each model (the fields the ceiling reads);
the measurements are data/ceiling_measurements.toml, one public source per row. Used by the tests
(tests/test_ceiling_validation.py), by perf/ceiling_validation.py, and by `ceiling --measured`
(the published runs on the same GPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stackaudit.ceiling.ladder import compute
from stackaudit.ceiling.measurements import Measurement, measurements

_LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "hidden_act": "silu"}  # fmt: skip

# Published config.json values (the models' Hugging Face repositories).
CONFIGS: dict[str, dict[str, Any]] = {
    "Llama-2-7B": {**_LLAMA, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,
                   "torch_dtype": "float16"},
    "Llama-2-13B": {**_LLAMA, "hidden_size": 5120, "intermediate_size": 13824, "num_hidden_layers": 40,
                    "num_attention_heads": 40, "num_key_value_heads": 40, "vocab_size": 32000,
                    "torch_dtype": "float16"},
    "Llama-2-70B": {**_LLAMA, "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
                    "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 32000,
                    "torch_dtype": "float16"},
    "Llama-3-8B": {**_LLAMA, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
                   "rope_theta": 500000.0},
    "Qwen3-8B": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
                 "intermediate_size": 12288, "num_hidden_layers": 36, "num_attention_heads": 32,
                 "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936, "tie_word_embeddings": False,
                 "torch_dtype": "bfloat16", "sliding_window": None, "use_sliding_window": False},
    "Qwen2.5-7B": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
                   "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
                   "num_key_value_heads": 4, "vocab_size": 152064, "tie_word_embeddings": False,
                   "torch_dtype": "bfloat16", "sliding_window": 131072, "use_sliding_window": False},
    "Mixtral-8x7B": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
                     "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
                     "num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2,
                     "vocab_size": 32000, "sliding_window": None, "tie_word_embeddings": False,
                     "torch_dtype": "bfloat16"},
    "Qwen3-30B-A3B": {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
                      "intermediate_size": 6144, "moe_intermediate_size": 768, "num_hidden_layers": 48,
                      "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128,
                      "num_experts_per_tok": 8, "decoder_sparse_step": 1, "mlp_only_layers": [],
                      "vocab_size": 151936, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                      "sliding_window": None, "use_sliding_window": False},
    "DeepSeek-V3": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
                    "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
                    "num_attention_heads": 128, "num_key_value_heads": 128, "n_shared_experts": 1,
                    "n_routed_experts": 256, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
                    "moe_layer_freq": 1, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280,
                    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "num_nextn_predict_layers": 1,
                    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                            "weight_block_size": [128, 128]}},
    "GLM-4.5": {"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "hidden_size": 5120,
                "intermediate_size": 12288, "moe_intermediate_size": 1536, "num_hidden_layers": 92,
                "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128, "n_routed_experts": 160,
                "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
                "vocab_size": 151552, "attention_bias": True, "use_qk_norm": True, "partial_rotary_factor": 0.5,
                "tie_word_embeddings": False, "torch_dtype": "bfloat16", "num_nextn_predict_layers": 1},
    "GLM-5": {"architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "hidden_size": 6144,
              "intermediate_size": 12288, "moe_intermediate_size": 2048, "num_hidden_layers": 78,
              "num_attention_heads": 64, "num_key_value_heads": 64, "q_lora_rank": 2048, "kv_lora_rank": 512,
              "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256, "n_routed_experts": 256,
              "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
              "index_n_heads": 32, "index_head_dim": 128, "index_topk": 2048, "vocab_size": 154880,
              "tie_word_embeddings": False, "torch_dtype": "bfloat16", "num_nextn_predict_layers": 1},
    "MiniMax-M2.5": {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072,
                     "intermediate_size": 1536, "num_hidden_layers": 62, "num_attention_heads": 48,
                     "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 256,
                     "num_experts_per_tok": 8, "vocab_size": 200064, "tie_word_embeddings": False,
                     "torch_dtype": "bfloat16"},
    "gpt-oss-120b": {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880,
                     "intermediate_size": 2880, "num_hidden_layers": 36, "num_attention_heads": 64,
                     "num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 128,
                     "num_experts_per_tok": 4, "experts_per_token": 4, "vocab_size": 201088,
                     "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"] * 18,
                     "attention_bias": True, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                     "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": [
                         "model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens",
                         "lm_head"]}},
}  # fmt: skip
# LLaMA (v1) 7B/13B have the shapes of Llama-2 7B/13B (4096/11008/32 layers, 5120/13824/40 layers,
# vocab 32000); gpt-oss-20b is gpt-oss-120b with 24 layers and 32 experts (openai/gpt-oss-20b config).
CONFIGS["Llama-7B"] = {**CONFIGS["Llama-2-7B"]}
CONFIGS["Llama-13B"] = {**CONFIGS["Llama-2-13B"]}
CONFIGS["gpt-oss-20b"] = {**CONFIGS["gpt-oss-120b"], "num_hidden_layers": 24, "num_local_experts": 32,
                          "layer_types": ["sliding_attention", "full_attention"] * 12}  # fmt: skip

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
# ceiling must also be at most EFFICIENT_FACTOR x the measurement (a ceiling far above what the best
# stacks reach explains nothing).
EFFICIENT_ENGINES = frozenset({"llama.cpp", "ExLlamaV2", "MLC", "vLLM", "TensorRT-LLM"})
EFFICIENT_FACTOR = 2.5
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

    @property
    def percent_of_bandwidth(self) -> float:
        return 100 * self.measurement.measured / self.bandwidth_ceiling


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
