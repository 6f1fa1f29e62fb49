"""Published model configs and decode measurements the ceiling is validated against.

The configs carry the published `config.json` values of each model (the fields the ceiling reads);
the measurements are the rows of research/ceiling-model.md section 4 with their sources. Used by
the tests (tests/test_ceiling_validation.py) and by bench/ceiling_validation.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "hidden_act": "silu"}  # fmt: skip

# Published config.json values (Hugging Face model repos; sources in research section 2.2).
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

# Active parameters (embeddings excluded, lm_head included) computed in research section 2.2.
RESEARCH_ACTIVE_PARAMS = {
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


@dataclass(frozen=True)
class Measurement:
    """One published single-stream decode measurement (research section 4)."""

    row: int
    model: str
    setup: str
    gpu: str | None  # None: the hardware is not known
    gpus: int
    tp: int
    weights: str | None
    measured: float
    research_bytes_gb: float
    source: str
    ep: int = 1
    context: int = 256
    kv_dtype: str | None = None
    interconnect: str | None = None
    allreduce: str = "auto"
    # Where the code of the engines contradicts an assumption of the research's arithmetic, the
    # difference (GB per GPU) and its evidence; the comparison uses research + correction.
    correction_gb: float = 0.0
    correction_reason: str = ""

    @property
    def expected_bytes_gb(self) -> float:
        return self.research_bytes_gb + self.correction_gb


# The DSA indexer (wq_b, wk, weights_proj: 9.37 M params per GLM-5 layer, BF16) is a ReplicatedLinear
# ("no tensor parallel, just replicated") in vLLM and SGLang deepseek_v2.py; the research divided
# it by TP: + 78 x 9.37 M x 2 B x (1 - 1/8).
_GLM5_INDEXER: dict[str, Any] = {
    "correction_gb": 78 * 9.3676e6 * 2 * (1 - 1 / 8) / 1e9,
    "correction_reason": "DSA indexer replicated on every TP rank (vLLM/SGLang Indexer: ReplicatedLinear)",
}
# The MoE router (`self.gate = ReplicatedLinear(..., quant_config=None)` in vLLM deepseek_v2.py) is
# replicated in BF16; the research divided it by TP: + 58 x 7168 x 256 x 2 B x (1 - 1/8).
_DSV3_ROUTER: dict[str, Any] = {
    "correction_gb": 58 * 7168 * 256 * 2 * (1 - 1 / 8) / 1e9,
    "correction_reason": "router replicated in BF16 on every rank (vLLM deepseek_v2.py: ReplicatedLinear)",
}

MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement(1, "Llama-2-7B", "BF16, 1x A100-80GB (330 W cap), gpt-fast", "A100 SXM4 80GB", 1, 1, "bf16",
                104.9, 13.21, "pytorch-labs/gpt-fast README"),
    Measurement(2, "Llama-2-7B", "int8 weight-only, gpt-fast", "A100 SXM4 80GB", 1, 1, "all=int8",
                155.58, 6.62, "pytorch-labs/gpt-fast README"),
    Measurement(3, "Llama-2-7B", "int4 g32, gpt-fast", "A100 SXM4 80GB", 1, 1, "all=int4-g32",
                196.80, 4.13, "pytorch-labs/gpt-fast README"),
    Measurement(4, "Llama-2-7B", "BF16, 8x A100 TP8, gpt-fast", "A100 SXM4 80GB", 8, 8, "bf16",
                328.43, 1.65, "pytorch-labs/gpt-fast README (TP table)"),
    Measurement(6, "Llama-2-70B", "BF16, 4x A100 TP4, gpt-fast", "A100 SXM4 80GB", 4, 4, "bf16",
                38.01, 34.4, "pytorch-labs/gpt-fast README"),
    Measurement(7, "Llama-2-70B", "BF16, 8x A100 TP8, gpt-fast", "A100 SXM4 80GB", 8, 8, "bf16",
                62.50, 17.2, "pytorch-labs/gpt-fast README"),
    Measurement(8, "Mixtral-8x7B", "BF16, 2x A100 TP2, gpt-fast", "A100 SXM4 80GB", 2, 2, "bf16",
                78.75, 12.75, "pytorch-labs/gpt-fast mixtral-moe/README.md"),
    Measurement(10, "Mixtral-8x7B", "int8, 1x A100, gpt-fast", "A100 SXM4 80GB", 1, 1, "all=int8",
                56.04, 12.75, "pytorch-labs/gpt-fast mixtral-moe/README.md"),
    Measurement(11, "Llama-2-7B", "F16, RTX 3090, llama.cpp tg128", "RTX 3090", 1, 1, "fp16",
                48.52, 13.21, "ggml-org/llama.cpp PR #4766", context=64),
    Measurement(12, "Llama-2-7B", "Q4_0, RTX 3090, llama.cpp tg128", "RTX 3090", 1, 1, "q4_0",
                121.82, 3.75, "ggml-org/llama.cpp PR #4766", context=64),
    Measurement(14, "Llama-2-13B", "q4f16_1, RTX 4090, MLC-LLM", "RTX 4090", 1, 1, "all=int4-gptq-g32",
                108.8, 7.23, "ggml-org/llama.cpp PR #4766 (MLC comparison)", context=64),
    Measurement(15, "Qwen3-30B-A3B", "Q4_0, RTX 4090, llama.cpp ubatch 1 (mean ctx ~2K)", "RTX 4090", 1, 1,
                "q4_0", 205.87, 1.99, "ggml-org/llama.cpp PR #15631", context=2048),
    Measurement(16, "Llama-3-8B", "Q4_0 at 32K context, RTX 4090, llama.cpp", "RTX 4090", 1, 1, "q4_0",
                102.76, 8.69, "ggml-org/llama.cpp PR #17505", context=33024),
    Measurement(18, "Qwen3-8B", "BF16, RTX 4090, vLLM", "RTX 4090", 1, 1, "bf16",
                58.7, 15.16, "AlexsJones/llmfit PR #1046", context=300),
    Measurement(19, "Qwen2.5-7B", "BF16 ctx 2048, L4, HF SDPA", "L4", 1, 1, "bf16",
                16.05, 14.26, "arXiv 2605.30571", context=2048),
    Measurement(21, "Llama-3-8B", "NIM 1.3.0, hardware not shown (FP8 assumed)", None, 1, 1, "fp8",
                229, 8.16, "NIM benchmark page (use with caution)"),
    Measurement(22, "DeepSeek-V3", "FP8, 8x H200 TP8, SGLang v0.4.1", "H200 SXM", 8, 8, None,
                30.29, 5.50, "sgl-project/sglang PR #2643"),
    Measurement(23, "DeepSeek-V3", "R1: attention BF16, MoE NVFP4, 8x B200, TP8 / TP4xEP2, TRT-LLM", "B200", 8, 8,
                "nvfp4,attention=bf16", 111, 6.43, "NVIDIA/TensorRT-LLM blog1", ep=2, **_DSV3_ROUTER),
    Measurement(24, "GLM-5", "NVFP4 (attention BF16), 8x RTX PRO 6000 TP8, SGLang NCCL",
                "RTX PRO 6000 Blackwell Workstation", 8, 8, "nvfp4,attention=bf16", 51.6, 7.71,
                "local-inference-lab/rtx6kpro models/glm5.md", context=0, **_GLM5_INDEXER),
    Measurement(25, "GLM-5", "NVFP4, 8x RTX PRO 6000 TP8, SGLang + PCIe one-shot AR",
                "RTX PRO 6000 Blackwell Workstation", 8, 8, "nvfp4,attention=bf16", 56.6, 7.71,
                "rtx6kpro pcie-oneshot-allreduce.md", context=0, allreduce="custom", **_GLM5_INDEXER),
    Measurement(27, "MiniMax-M2.5", "NVFP4 (attention BF16), 2x RTX PRO 6000 TP2, SGLang",
                "RTX PRO 6000 Blackwell Workstation", 2, 2, "nvfp4,attention=bf16", 89, 5.37,
                "rtx6kpro results.md"),
    Measurement(28, "gpt-oss-120b", "MXFP4 experts, 1x A100-80GB, vLLM", "A100 SXM4 80GB", 1, 1, None,
                90, 5.00, "vllm-project/vllm issue #22331"),
    Measurement(30, "gpt-oss-120b", "FP4, 8x MI300X TP8, vLLM ROCm", "MI300X", 8, 8, None,
                249, 0.63, "SemiAnalysisAI/InferenceX PR #1092"),
)  # fmt: skip


@dataclass(frozen=True)
class ValidationRow:
    measurement: Measurement
    bytes_gb: float
    bandwidth_ceiling: float
    allreduce_ceiling: float
    overhead_ceiling: float

    @property
    def bytes_error(self) -> float:
        """Relative difference to the research's figure (plus its documented correction)."""
        return self.bytes_gb / self.measurement.expected_bytes_gb - 1

    @property
    def percent_of_bandwidth(self) -> float:
        return 100 * self.measurement.measured / self.bandwidth_ceiling


def validate() -> list[ValidationRow]:
    """Run the ceiling on every measurement whose hardware is known."""
    from stackaudit.ceiling.ladder import compute
    from stackaudit.gputable import lookup

    rows: list[ValidationRow] = []
    for m in MEASUREMENTS:
        if m.gpu is None:
            continue
        report = compute(
            CONFIGS[m.model], lookup(m.gpu).spec, gpus=m.gpus, tp=m.tp, ep=m.ep, weights=m.weights,
            kv_dtype=m.kv_dtype, context=m.context, concurrencies=[1], interconnect=m.interconnect,
            allreduce=m.allreduce,
        )  # fmt: skip
        level = report.levels[0]
        rows.append(
            ValidationRow(
                measurement=m,
                bytes_gb=level.bytes_per_token_per_gpu / 1e9,
                bandwidth_ceiling=level.ceiling("bandwidth").tokens_per_s,
                allreduce_ceiling=level.ceiling("bandwidth+allreduce").tokens_per_s,
                overhead_ceiling=level.ceiling("overhead").tokens_per_s,
            )
        )
    return rows
