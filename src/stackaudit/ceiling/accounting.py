"""Parameter, byte and FLOP accounting for one decode step (docs/ceiling.md).

Per layer: attention (GQA/MHA or MLA, plus the DSA indexer), a dense MLP or an MoE block (routed
experts, shared experts, router), then lm_head. The embedding table is a lookup (one row read per
token) and is not counted; lm_head is a full GEMV every token, counted even when tied.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from stackaudit.ceiling.modelconfig import ModelArch, ceil_div


@dataclass(frozen=True)
class AttentionParams:
    """Per layer. `replicated` is held in full on every TP rank (MLA down-projections, indexer)."""

    sharded: float  # split across TP ranks (Q, O, MLA up-projections)
    kv: float  # GQA K/V projections: split across min(TP, kv_heads) ranks, replicated beyond
    replicated: float

    @property
    def total(self) -> float:
        return self.sharded + self.kv + self.replicated


def attention_params(arch: ModelArch) -> AttentionParams:
    h = arch.hidden
    if arch.is_mla:
        qk_head = arch.qk_nope_head_dim + arch.qk_rope_head_dim
        if arch.q_lora_rank:
            q_down = h * arch.q_lora_rank
            q_up = arch.q_lora_rank * arch.heads * qk_head
        else:
            q_down = 0
            q_up = h * arch.heads * qk_head
        kv_down = h * (arch.kv_lora_rank + arch.qk_rope_head_dim)
        kv_up = arch.kv_lora_rank * arch.heads * (arch.qk_nope_head_dim + arch.v_head_dim)
        out = arch.heads * arch.v_head_dim * h
        indexer = 0
        if arch.index_heads and arch.index_head_dim:
            # DSA indexer, DeepSeek-V3.2 layout: wq_b, wk, weights_proj.
            q_source = arch.q_lora_rank or h
            indexer = (
                q_source * arch.index_heads * arch.index_head_dim
                + h * arch.index_head_dim
                + h * arch.index_heads
            )
        # vLLM/SGLang replicate q_a/kv_a on every rank (`fused_qkv_a_proj ... disable_tp`).
        return AttentionParams(sharded=q_up + kv_up + out, kv=0, replicated=q_down + kv_down + indexer)
    d = arch.head_dim
    q_and_o = 2 * h * arch.heads * d
    kv = 2 * h * arch.kv_heads * d
    if arch.attention_bias:
        q_and_o += arch.heads * d
        kv += 2 * arch.kv_heads * d
    return AttentionParams(sharded=q_and_o, kv=kv, replicated=0)


def mlp_params(arch: ModelArch, width: int) -> float:
    return (3 if arch.gated_mlp else 2) * arch.hidden * width


def expert_params(arch: ModelArch) -> float:
    params = mlp_params(arch, arch.expert_intermediate)
    if arch.expert_bias:  # gpt-oss: gate_up bias 2*I_e, down bias h
        params += 2 * arch.expert_intermediate + arch.hidden
    return params


@dataclass(frozen=True)
class ParamCounts:
    """Whole-model counts by component class (active = read for one token at batch 1)."""

    attention: float
    dense_mlp: float
    experts_active: float
    experts_total: float
    shared_experts: float
    router: float
    lm_head: float
    embedding: float

    @property
    def active(self) -> float:
        """Active parameters: embeddings excluded, lm_head included."""
        return (
            self.attention
            + self.dense_mlp
            + self.experts_active
            + self.shared_experts
            + self.router
            + self.lm_head
        )

    @property
    def total(self) -> float:
        """Stored parameters (embedding counted once more when untied; MTP layers excluded)."""
        return (
            self.attention + self.dense_mlp + self.experts_total + self.shared_experts + self.router
            + self.lm_head + self.embedding
        )  # fmt: skip

    def by_class(self) -> dict[str, float]:
        return {
            "attention": self.attention,
            "dense_mlp": self.dense_mlp,
            "experts": self.experts_active,
            "shared_experts": self.shared_experts,
            "router": self.router,
            "lm_head": self.lm_head,
        }


def count_params(arch: ModelArch) -> ParamCounts:
    attn = attention_params(arch)
    per_expert = expert_params(arch) if arch.is_moe else 0.0
    return ParamCounts(
        attention=arch.layers * attn.total,
        dense_mlp=arch.dense_layers * mlp_params(arch, arch.intermediate),
        experts_active=arch.moe_layers * arch.top_k * per_expert,
        experts_total=arch.moe_layers * arch.n_experts * per_expert,
        shared_experts=arch.moe_layers * arch.n_shared_experts * mlp_params(arch, arch.shared_intermediate),
        router=arch.moe_layers * arch.hidden * arch.n_experts,
        lm_head=arch.vocab * arch.hidden,
        embedding=0 if arch.tie_word_embeddings else arch.vocab * arch.hidden,
    )


# ------------------------------------------------------------------ MoE experts read at batch B


def expected_distinct_experts(n_experts: int, top_k: int, batch: int) -> float:
    """E * (1 - (1 - k/E)^B): distinct experts touched per layer with uniform routing."""
    if n_experts == 0:
        return 0.0
    return n_experts * (1 - (1 - top_k / n_experts) ** batch)


def expected_max_experts_per_rank(n_experts: int, top_k: int, batch: int, ep: int) -> float:
    """Expected experts on the busiest of `ep` ranks (each owns E/ep experts).

    Each expert is touched with probability p = 1 - (1 - k/E)^B; a rank's count is
    Binomial(E/ep, p) and the step waits for the busiest rank: E[max of ep iid binomials]
    (balls-in-bins; the EP max-load is an estimate).
    """
    if n_experts == 0:
        return 0.0
    if ep <= 1:
        return expected_distinct_experts(n_experts, top_k, batch)
    per_rank = n_experts // ep
    p = 1 - (1 - top_k / n_experts) ** batch
    pmf = [math.comb(per_rank, i) * p**i * (1 - p) ** (per_rank - i) for i in range(per_rank + 1)]
    cdf = 0.0
    expectation = 0.0
    for m in range(per_rank + 1):
        # E[max] = sum over m >= 1 of P(max >= m) = 1 - P(all < m) = 1 - F(m-1)^ep
        if m > 0:
            expectation += 1 - cdf**ep
        cdf += pmf[m]
    return min(expectation, float(per_rank))


# ------------------------------------------------------------------ per-GPU bytes and FLOPs


@dataclass(frozen=True)
class Layout:
    """How one model replica is spread: TP for attention/dense, EP x moe-TP for experts."""

    tp: int
    ep: int

    @property
    def moe_tp(self) -> int:
        return max(1, self.tp // self.ep) if self.ep <= self.tp else 1


def kv_heads_per_rank(arch: ModelArch, tp: int) -> int:
    """GQA: each rank holds ceil(kv/TP) heads; with TP > kv heads they are replicated."""
    return max(1, ceil_div(arch.kv_heads, tp))


def kv_bytes_per_token_per_gpu(arch: ModelArch, context: int, kv_bytes: float, tp: int) -> float:
    """KV cache read by one GPU for one sequence's decode step at `context` tokens.

    GQA: 2 * heads_on_rank * head_dim per layer. MLA: the (kv_lora + rope) latent, held in full
    by every rank (only decode-context-parallel shards it). DSA reads min(context, index_topk)
    latent rows plus every indexer key (FP8 + a 4-byte scale). Sliding layers read
    min(context, window) rows.
    """
    full_layers = arch.layers - arch.sliding_layers
    windowed = min(context, arch.sliding_window) if arch.sliding_layers else 0
    if arch.is_mla:
        per_row = (arch.kv_lora_rank + arch.qk_rope_head_dim) * kv_bytes
        rows = min(context, arch.index_topk) if arch.index_topk else context
        total = arch.layers * per_row * rows
        if arch.index_topk:
            total += arch.layers * context * (arch.index_head_dim + 4)
        return total
    per_row = 2 * kv_heads_per_rank(arch, tp) * arch.head_dim * kv_bytes
    return per_row * (full_layers * context + arch.sliding_layers * windowed)


def attention_flops_per_token(arch: ModelArch, context: int) -> float:
    """Score and value FLOPs for one token (QK^T and PV), whole model."""
    if arch.is_mla:
        rows = min(context, arch.index_topk) if arch.index_topk else context
        per_layer = (
            2 * arch.heads * (arch.kv_lora_rank + arch.qk_rope_head_dim) * rows
            + 2 * arch.heads * arch.kv_lora_rank * rows
        )
        if arch.index_topk:
            per_layer += 2 * arch.index_heads * arch.index_head_dim * context
        return arch.layers * per_layer
    full_layers = arch.layers - arch.sliding_layers
    windowed = min(context, arch.sliding_window) if arch.sliding_layers else 0
    return 4 * arch.heads * arch.head_dim * (full_layers * context + arch.sliding_layers * windowed)


@dataclass(frozen=True)
class GpuParams:
    """Parameters one GPU reads per decode step, by class, split into sharded and replicated."""

    sharded: dict[str, float]
    replicated: dict[str, float]

    def total(self, cls: str) -> float:
        return self.sharded.get(cls, 0.0) + self.replicated.get(cls, 0.0)


def params_per_gpu(arch: ModelArch, layout: Layout, experts_read_per_layer: float) -> GpuParams:
    """Weights on the busiest GPU for one step that reads `experts_read_per_layer` experts."""
    attn = attention_params(arch)
    tp = layout.tp
    kv_share = kv_heads_per_rank(arch, tp) / arch.kv_heads
    sharded = {
        "attention": arch.layers * (attn.sharded / tp + attn.kv * kv_share),
        "dense_mlp": arch.dense_layers * mlp_params(arch, arch.intermediate) / tp,
        "experts": arch.moe_layers * experts_read_per_layer * expert_params(arch) / layout.moe_tp
        if arch.is_moe
        else 0.0,
        "shared_experts": arch.moe_layers
        * arch.n_shared_experts
        * mlp_params(arch, arch.shared_intermediate)
        / tp,
        "lm_head": arch.vocab * arch.hidden / tp,
    }
    replicated = {
        "attention": arch.layers * attn.replicated,
        "router": arch.moe_layers * arch.hidden * arch.n_experts,  # ReplicatedLinear in vLLM/SGLang
    }
    return GpuParams(sharded=sharded, replicated=replicated)


def linear_flops_per_token_per_gpu(arch: ModelArch, layout: Layout) -> dict[str, float]:
    """2 x parameters one GPU multiplies per token (experts: the routing average, k/E of them)."""
    experts_per_rank = arch.top_k / layout.ep if arch.is_moe else 0.0
    params = params_per_gpu(arch, layout, experts_per_rank)
    return {
        cls: 2 * params.total(cls)
        for cls in ("attention", "dense_mlp", "experts", "shared_experts", "router", "lm_head")
    }
