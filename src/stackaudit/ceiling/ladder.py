"""The ceiling ladder for one setup: bandwidth, + all-reduce, + per-kernel overhead (with and without
CUDA graphs), compute; the binding term; efficiency of a measured rate and what would move it.

Model (docs/ceiling.md), per decode step at batch b on the busiest GPU of each pipeline stage,
summed over the stages a token passes through:
    t_mem   = (weights read + b x KV read at the hardware context) / memory bandwidth
    t_comm  = n_allreduce x t_allreduce(b x hidden x 2 bytes) + (PP - 1) x stage hop
    t_fixed = kernels per step x per-kernel floor (CUDA graphs)      [est]
    t_eager = max(t_mem + t_comm + t_fixed, launches x CPU launch cost)
    t_comp  = b x FLOPs per token per GPU / dense FLOPS of the GEMM dtype
tokens/s per stream = 1 / step time; aggregate = per stream x concurrency.

The hardware context is 0 unless a caller supplies one (bench: the prompt length): a ceiling that
assumes a long KV cache is lower than what short prompts reach, so it would not be a ceiling. With
`kv_context`, one more line, "kv-loaded", gives the ceiling with that many tokens in every cache.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stackaudit import __version__
from stackaudit.ceiling import accounting as acc
from stackaudit.ceiling import interconnect as ic
from stackaudit.ceiling.measurements import published_runs_on
from stackaudit.ceiling.modelconfig import ModelArch, ceil_div, parse_arch
from stackaudit.ceiling.weights import (
    CLASS_LABELS,
    CLASSES,
    WeightPlan,
    compute_dtype,
    parse_weights,
    plan_from_config,
)
from stackaudit.errors import UsageError
from stackaudit.gputable import BOARD_FABRICS, GpuSpec
from stackaudit.render.formats import SCHEMAS

# Schema 2: the common envelope (tool {name, version}, source, generated_at), context 0 by default
# with an optional "kv-loaded" ceiling, pipeline parallelism, stored bytes, published runs.
SCHEMA = SCHEMAS["ceiling"]
CEILING_NAMES = ("bandwidth", "bandwidth+allreduce", "overhead", "overhead-eager", "compute")
KV_LOADED = "kv-loaded"
DEFAULT_CONTEXT = 0

_KV_DTYPES = {
    "bf16": 2.0, "bfloat16": 2.0, "fp16": 2.0, "float16": 2.0, "auto": 2.0,
    "fp8": 1.0, "fp8_e4m3": 1.0, "fp8_e5m2": 1.0, "fp8-e4m3": 1.0, "int8": 1.0,
    "nvfp4": 0.5625, "fp4": 0.5625, "q8_0": 1.0625, "q4_0": 0.5625, "fp32": 4.0, "float32": 4.0,
}  # fmt: skip


@dataclass(frozen=True)
class Ceiling:
    name: str
    tokens_per_s: float  # per stream: 1 / step time
    aggregate_tokens_per_s: float
    step_time_us: float
    cause: str


@dataclass(frozen=True)
class Lever:
    saved_us: float
    text: str


@dataclass(frozen=True)
class MeasuredResult:
    tokens_per_s: float
    percent_of: dict[str, float]
    residual_us_per_layer: float
    levers: tuple[Lever, ...]
    warning: str = ""
    published: tuple[str, ...] = ()


@dataclass(frozen=True)
class Level:
    concurrency: int
    batch_per_replica: int
    bytes_per_step_per_gpu: float
    bytes_breakdown: dict[str, float]
    bytes_by_class: dict[str, float]
    experts_read_per_layer: float
    times_us: dict[str, float]
    ceilings: tuple[Ceiling, ...]
    binding: str
    binding_share: float
    measured: MeasuredResult | None = None
    loaded: Ceiling | None = None  # with a KV cache of `kv_context` tokens per stream
    loaded_bytes_per_step_per_gpu: float | None = None  # weights + that KV cache, per GPU per step

    @property
    def bytes_per_token_per_gpu(self) -> float:
        return self.bytes_per_step_per_gpu / self.batch_per_replica

    @property
    def step_time_us(self) -> float:
        return max(self.times_us["overhead"], self.times_us["compute"])

    @property
    def tokens_per_s(self) -> float:
        return 1e6 / self.step_time_us

    @property
    def aggregate_tokens_per_s(self) -> float:
        return self.tokens_per_s * self.concurrency

    def ceiling(self, name: str) -> Ceiling:
        for item in self.ceilings:
            if item.name == name:
                return item
        raise KeyError(name)


@dataclass(frozen=True)
class CeilingReport:
    arch: ModelArch
    params: acc.ParamCounts
    gpu: GpuSpec
    gpu_note: str
    gpus: int
    tp: int
    ep: int
    replicas: int
    weights: WeightPlan
    kv_dtype: str
    kv_bytes: float
    context: int
    bandwidth_gbs: float
    bandwidth_source: str
    allreduce: ic.AllReduceModel
    n_allreduce: int
    levels: tuple[Level, ...]
    assumptions: tuple[str, ...] = field(default=())
    pp: int = 1
    kv_context: int | None = None
    stage_hop_us: float = 0.0
    warnings: tuple[str, ...] = field(default=())
    stored_bytes: float = 0.0  # whole model, all experts, embedding excluded
    embedding_bytes: float = 0.0
    stage_bytes: float = 0.0  # weights held by the fullest GPU
    source: Mapping[str, str] = field(default_factory=dict)
    generated_at: str = ""

    def present_classes(self) -> list[str]:
        return [cls for cls, count in self.params.by_class().items() if count > 0]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of `--format json` (docs/ceiling.md, docs/ceiling.schema.json)."""
        by_class = self.params.by_class()
        present = self.present_classes()
        return {
            "schema": SCHEMA,
            "kind": "stackaudit.ceiling",
            "tool": {"name": "stackaudit", "version": __version__},
            "source": dict(self.source),
            "generated_at": self.generated_at,
            "model": {
                "name": self.arch.name,
                "model_type": self.arch.model_type,
                "source": display_source(self.arch.source),
                "architecture": self.arch.describe(),
                "verified_family": self.arch.verified,
                "total_params": self.params.total,
                "notes": list(self.arch.notes),
            },
            "active_params": self.params.active,
            "active_params_by_class": {cls: by_class[cls] for cls in present},
            "embeddings_counted": False,
            "lm_head_counted": True,
            "hardware": {
                "gpu": self.gpu.name,
                "gpu_note": self.gpu_note,
                "gpu_source": self.gpu.source,
                "gpus": self.gpus,
                "tp": self.tp,
                "pp": self.pp,
                "ep": self.ep,
                "replicas": self.replicas,
                "nvlink_domain": self.gpu.nvlink_domain,
                "stage_hop_us": self.stage_hop_us,
                "memory_bandwidth_gbs": self.bandwidth_gbs,
                "bandwidth_source": self.bandwidth_source,
                "interconnect": self.allreduce.interconnect,
                "allreduce": {
                    "implementation": self.allreduce.implementation,
                    "latency_us": self.allreduce.latency_us,
                    "count_per_step": self.n_allreduce,
                    "topology_class": self.allreduce.path or None,
                    "topology_assumed": self.allreduce.path_assumed or None,
                    "reason": self.allreduce.reason,
                },
            },
            "weights": {cls: self.weights.formats[cls].name for cls in present},
            "weights_bits": {cls: self.weights.formats[cls].bits for cls in present},
            "weights_origin": self.weights.origin,
            "weights_stored": {
                "bytes_without_embedding": self.stored_bytes,
                "embedding_bytes": self.embedding_bytes,
                "bytes_on_fullest_gpu": self.stage_bytes,
            },
            "kv_cache": {
                "dtype": self.kv_dtype,
                "bytes_per_element": self.kv_bytes,
                "context": self.context,
                "loaded_context": self.kv_context,
            },
            "levels": [_level_dict(level) for level in self.levels],
            "warnings": list(self.warnings),
            "assumptions": list(self.assumptions),
        }


def display_source(path: str) -> str:
    """A file as reports name it: its directory and file name, never the whole local path."""
    if not path:
        return ""
    p = Path(path)
    return f"{p.parent.name}/{p.name}" if p.parent.name else p.name


def _ceiling_dict(c: Ceiling) -> dict[str, Any]:
    return {
        "name": c.name,
        "tokens_per_s": _finite(c.tokens_per_s),
        "aggregate_tokens_per_s": _finite(c.aggregate_tokens_per_s),
        "step_time_us": c.step_time_us,
        "cause": c.cause,
    }


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unknown ceiling (no FLOPS figure) is null."""
    return value if math.isfinite(value) else None


def _kv_loaded_dict(level: Level) -> dict[str, Any] | None:
    """The kv-loaded ceiling with the bytes each GPU reads per token at that context (`--context`)."""
    if level.loaded is None:
        return None
    loaded_bytes = level.loaded_bytes_per_step_per_gpu
    per_token = loaded_bytes / level.batch_per_replica if loaded_bytes is not None else None
    return {**_ceiling_dict(level.loaded), "bytes_per_token_per_gpu": per_token}


def _level_dict(level: Level) -> dict[str, Any]:
    out: dict[str, Any] = {
        "concurrency": level.concurrency,
        "batch_per_replica": level.batch_per_replica,
        "bytes_per_token_per_gpu": level.bytes_per_token_per_gpu,
        "bytes_per_step_per_gpu": level.bytes_per_step_per_gpu,
        "bytes_breakdown": level.bytes_breakdown,
        "bytes_by_class": level.bytes_by_class,
        "experts_read_per_layer": level.experts_read_per_layer,
        "ceilings": [_ceiling_dict(c) for c in level.ceilings],
        "kv_loaded": _kv_loaded_dict(level),
        "binding": level.binding,
        "binding_share": level.binding_share,
        "tokens_per_s": level.tokens_per_s,
        "aggregate_tokens_per_s": level.aggregate_tokens_per_s,
        "times_us": level.times_us,
    }
    if level.measured is not None:
        out["measured"] = {
            "tokens_per_s": level.measured.tokens_per_s,
            "percent_of": level.measured.percent_of,
            "residual_us_per_layer": level.measured.residual_us_per_layer,
            "levers": [
                {"saved_us_per_step": lever.saved_us, "text": lever.text} for lever in level.measured.levers
            ],
            "warning": level.measured.warning,
            "published_runs": list(level.measured.published),
        }
    return out


# ------------------------------------------------------------------ validation of the layout


def kv_dtype_bytes(kv_dtype: str | None, torch_dtype: str) -> tuple[str, float]:
    if kv_dtype is None:
        name = "fp16" if torch_dtype.replace("torch.", "") == "float16" else "bf16"
        return name, 2.0
    key = kv_dtype.strip().lower()
    if key not in _KV_DTYPES:
        raise UsageError(f"--kv-dtype {kv_dtype!r}: use one of bf16, fp16, fp8, int8, nvfp4, q8_0, q4_0")
    return key, _KV_DTYPES[key]


def check_layout(arch: ModelArch, gpus: int, tp: int, ep: int, pp: int = 1) -> None:
    """Refuse contradictory parallelism with the rule that is broken, in one line."""
    if gpus < 1 or tp < 1 or ep < 1 or pp < 1:
        raise UsageError("--gpus, --tp, --pp and --ep must be at least 1")
    if tp * pp > gpus:
        what = f"--tp {tp} x --pp {pp}" if pp > 1 else f"--tp {tp}"
        raise UsageError(f"{what} is more than --gpus {gpus}")
    broken = []
    if gpus % (tp * pp):
        broken.append(f"--gpus {gpus}")
    if arch.heads % tp:
        broken.append(f"the model's {arch.heads} attention heads")
    if broken:
        what = f"--tp {tp} x --pp {pp}" if pp > 1 and gpus % (tp * pp) else f"--tp {tp}"
        raise UsageError(f"{what} does not divide {' nor '.join(broken)}")
    if not arch.is_mla and arch.kv_heads % tp and tp % arch.kv_heads:
        raise UsageError(f"--tp {tp} and the model's {arch.kv_heads} KV heads: neither divides the other")
    if pp > arch.layers:
        raise UsageError(f"--pp {pp} is more than the model's {arch.layers} layers")
    if ep > 1:
        if not arch.is_moe:
            raise UsageError(f"--ep {ep} needs an MoE model; {arch.name} is dense")
        if gpus % ep:
            raise UsageError(f"--ep {ep} does not divide --gpus {gpus}")
        if arch.n_experts % ep:
            raise UsageError(f"--ep {ep} does not divide the model's {arch.n_experts} experts")
        if ep <= tp and tp % ep:
            raise UsageError(f"--ep {ep} does not divide --tp {tp}")


# ------------------------------------------------------------------ the computation


def compute(
    model_config: Mapping[str, Any] | ModelArch,
    gpu: GpuSpec,
    gpus: int = 1,
    tp: int | None = None,
    ep: int | None = None,
    weights: str | None = None,
    kv_dtype: str | None = None,
    context: int = DEFAULT_CONTEXT,
    concurrencies: Sequence[int] = (1,),
    interconnect: str | None = None,
    allreduce: str = "auto",
    measured: Mapping[int, float] | None = None,
    bandwidth_gbs: float | None = None,
    bandwidth_source: str = "",
    gpu_note: str = "",
    pp: int | None = None,
    kv_context: int | None = None,
    plan: WeightPlan | None = None,
    source: Mapping[str, str] | None = None,
    topology: str | None = None,
) -> CeilingReport:
    """Decode-throughput ceilings of a model on `gpus` x `gpu`.

    model_config: a Hugging Face config dict (as read from config.json) or a parsed ModelArch.
    gpu: a row of the GPU table (stackaudit.gputable.lookup(name).spec).
    gpus: GPUs serving the model; tp: tensor-parallel size (default: all GPUs, or gpus / pp);
        pp: pipeline stages (default 1; when the model does not fit as replicas but fits split
        into gpus / tp stages, that split is used and said). GPUs beyond one TP x PP group form
        data-parallel replicas that share the concurrency.
    ep: expert-parallel size for the MoE layers (default 1: experts TP-sharded).
    weights: `--weights` spec ("nvfp4", "nvfp4,attention=bf16", "q4_k_m", "exl2-4.0bpw" ...); None
        reads the config's quantization_config, else its torch_dtype. plan: a ready WeightPlan
        (e.g. exact bits per class from a GGUF file), used when `weights` is None.
    kv_dtype: KV cache dtype (bf16, fp8, ...); None = the model dtype.
    context: tokens in each KV cache for the hardware ceiling (default 0: the ceiling holds for any
        prompt). kv_context: adds the "kv-loaded" line with that many tokens in every cache.
    concurrencies: streams decoding at once; one Level per value.
    interconnect: nvlink | xgmi | pcie | pcie-no-p2p | network; None = implied by the GPU table.
    allreduce: auto (vLLM's custom all-reduce rules) | custom | nccl.
    topology: the class of the path the TP group's all-reduce crosses (interconnect.TOPOLOGY_CLASSES: nvlink,
        pcie-switch, pcie-socket, pcie-cross-socket ...), as the audit's machine topology shows it; None prices
        the fastest class measured for the link and says so.
    measured: {concurrency: per-stream tokens/s} to compare with each ceiling.
    bandwidth_gbs: memory bandwidth to use instead of the table's (e.g. from NVML clocks).
    source: what was read, for the JSON envelope ({"model": ..., "gpu": ...}).

    Returns a CeilingReport; `.to_dict()` is the JSON document (`schema`, `active_params`,
    `levels[].ceilings[]` ...). Raises stackaudit.errors.UsageError / InputError on bad input.
    """
    arch = model_config if isinstance(model_config, ModelArch) else parse_arch(model_config)
    if context < 0 or (kv_context is not None and kv_context < 0):
        raise UsageError("--context must be 0 or more tokens")
    levels_wanted = sorted(set(concurrencies) | set((measured or {}).keys()))
    if not levels_wanted or min(levels_wanted) < 1:
        raise UsageError("--concurrency values must be 1 or more")

    if weights:
        plan = parse_weights(weights, arch.torch_dtype, arch.quantization, moe=arch.n_experts > 0)
    elif plan is None:
        plan = plan_from_config(arch.quantization, arch.torch_dtype)
    warnings: list[str] = []
    pp_given = pp is not None
    pp = pp or 1
    tp = tp if tp is not None else max(1, gpus // pp)
    ep = 1 if ep is None else ep
    check_layout(arch, gpus, tp, ep, pp)
    params = acc.count_params(arch)
    if not pp_given and gpus > tp and not _fits(arch, params, plan, gpu, tp, ep, 1):
        split = gpus // tp
        if split <= arch.layers and _fits(arch, params, plan, gpu, tp, ep, split):
            pp = split
            warnings.append(
                f"the weights do not fit one TP group of {tp} GPU(s), so the {gpus} GPUs are read as a "
                f"pipeline of {pp} stages (llama.cpp's default layer split), not {gpus // tp} replicas; "
                "pass --pp to choose"
            )
    kv_name, kv_bytes = kv_dtype_bytes(kv_dtype, arch.torch_dtype)
    bandwidth = bandwidth_gbs or gpu.memory_bandwidth_gbs
    bw_source = bandwidth_source or f"{gpu.name} spec ({gpu.source})"
    link = interconnect or ic.interconnect_of_class(gpu, topology) or ic.default_interconnect(gpu)
    layout = acc.Layout(tp=tp, ep=ep)
    collective_ranks = tp if tp > 1 else ep
    reach = ic.span(gpu, collective_ranks, link) if collective_ranks > 1 else ic.Span(1, gpu.nvlink_domain, link)
    if reach.warning:
        warnings.append(reach.warning)
    path = topology if reach.interconnect == link else None  # beyond one NVLink domain the class is the network's
    ar = ic.allreduce_model(gpu, collective_ranks, reach.interconnect, allreduce, path)
    if tp > 1:
        n_coll = 2 * arch.layers + 2  # Megatron TP: after attention and after the MLP, + embedding + logits
    elif ep > 1:
        n_coll = 2 * arch.moe_layers  # dispatch + combine per MoE layer
    else:
        n_coll = 0
    hop_link = link
    if pp > 1 and gpu.nvlink_kind in BOARD_FABRICS and tp * pp > gpu.nvlink_domain:
        hop_link = "network"  # stages on different nodes
    hop = ic.stage_hop_us(hop_link) if pp > 1 else 0.0
    kernels = _kernels_per_step(arch)
    replicas = gpus // (tp * pp)

    assumptions = list(arch.notes) + list(plan.notes)
    assumptions.append(
        f"per-kernel floor {ic.GRAPH_KERNEL_US:g} us with CUDA graphs [est] and {ic.EAGER_LAUNCH_US:g} us CPU "
        f"launch without; {kernels} kernels per step [est]"
    )
    if not arch.verified:
        assumptions.append(
            f"model_type {arch.model_type!r} is not among the families checked against published counts; "
            "counted from the standard config fields"
        )
    if arch.is_moe:
        assumptions.append("uniform routing: E x (1 - (1 - k/E)^B) distinct experts per layer at batch B")
        if ep > 1:
            assumptions.append("EP: the step waits for the rank holding the most activated experts [est]")
    if arch.is_mla:
        assumptions.append("MLA latent KV read in full by every TP rank (no decode-context parallelism)")
    if pp > 1:
        assumptions.append(
            f"pipeline of {pp} stages: a token passes every stage in turn, so the stage times add up, plus "
            f"{pp - 1} hop(s) of {hop:g} us over {hop_link} [est]; at concurrency >= {pp} micro-batches keep "
            "the stages busy at once"
        )
    stored, embedding, fullest = _stored_bytes(arch, params, plan, tp, ep, pp)
    if fullest > gpu.memory_gib * 2**30:
        warnings.append(
            f"the weights need {fullest / 1e9:.1f} GB on the fullest GPU, more than the {gpu.memory_gib:g} GiB of a "
            f"{gpu.name}: this layout does not fit, the ceiling is hypothetical"
            + ("" if pp > 1 else "; a pipeline split (--pp) may fit")
        )

    measured = measured or {}
    published = published_runs_on(gpu.name) if measured else ()
    setup = _Setup(arch, gpu, plan, layout, ar, n_coll, kernels, kv_bytes, bandwidth, replicas,
                   collective_ranks, pp, hop)  # fmt: skip
    levels = tuple(
        _level(setup, context, kv_context, concurrency, measured.get(concurrency), published)
        for concurrency in levels_wanted
    )
    return CeilingReport(
        arch=arch,
        params=params,
        gpu=gpu,
        gpu_note=gpu_note,
        gpus=gpus,
        tp=tp,
        ep=ep,
        replicas=replicas,
        weights=plan,
        kv_dtype=kv_name,
        kv_bytes=kv_bytes,
        context=context,
        bandwidth_gbs=bandwidth,
        bandwidth_source=bw_source,
        allreduce=ar,
        n_allreduce=n_coll,
        levels=levels,
        assumptions=tuple(assumptions),
        pp=pp,
        kv_context=kv_context,
        stage_hop_us=hop,
        warnings=tuple(warnings),
        stored_bytes=stored,
        embedding_bytes=embedding,
        stage_bytes=fullest,
        source=dict(source) if source else {"model": display_source(arch.source) or arch.name, "gpu": gpu.name},
        generated_at=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )


def _kernels_per_step(arch: ModelArch) -> int:
    attention = ic.KERNELS_MLA_ATTENTION if arch.is_mla else ic.KERNELS_GQA_ATTENTION
    if arch.index_topk:
        attention += ic.KERNELS_DSA_INDEXER
    moe = ic.KERNELS_MOE + (ic.KERNELS_SHARED_EXPERT if arch.n_shared_experts else 0)
    return (
        arch.layers * attention + arch.dense_layers * ic.KERNELS_DENSE_MLP + arch.moe_layers * moe
        + ic.KERNELS_PER_STEP
    )  # fmt: skip


def _stored_bytes(
    arch: ModelArch, params: acc.ParamCounts, plan: WeightPlan, tp: int, ep: int, pp: int
) -> tuple[float, float, float]:
    """(whole model without the embedding, the embedding, the weights on the fullest GPU).

    The fullest GPU holds ceil(L / PP) layers of its TP/EP shard, plus the larger of the embedding
    (first stage) and lm_head (last stage) shards; with PP 1 it holds both.
    """
    totals = params.by_class()
    totals["experts"] = params.experts_total
    stored = sum(totals[cls] * plan.bytes_per_param(cls) for cls in CLASSES)
    # The embedding is stored like lm_head's dtype in most formats; GGUF keeps its own type.
    embedding_bpp = plan.embedding.bytes_per_param if plan.embedding else plan.bytes_per_param("lm_head")
    embedding = params.embedding * embedding_bpp
    layout = acc.Layout(tp=tp, ep=ep)
    held = acc.params_per_gpu(arch, layout, arch.n_experts / max(1, ep) if arch.is_moe else 0)
    layer_bytes = sum(held.total(cls) * plan.bytes_per_param(cls) for cls in CLASSES if cls != "lm_head")
    head = held.total("lm_head") * plan.bytes_per_param("lm_head")
    emb = embedding / tp
    stage_layers = ceil_div(arch.layers, pp)
    fullest = layer_bytes * stage_layers / arch.layers + (head + emb if pp == 1 else max(head, emb))
    return stored, embedding, fullest


def _fits(
    arch: ModelArch, params: acc.ParamCounts, plan: WeightPlan, gpu: GpuSpec, tp: int, ep: int, pp: int
) -> bool:
    return _stored_bytes(arch, params, plan, tp, ep, pp)[2] <= gpu.memory_gib * 2**30


@dataclass(frozen=True)
class _Setup:
    """What every concurrency level of one report shares."""

    arch: ModelArch
    gpu: GpuSpec
    plan: WeightPlan
    layout: acc.Layout
    ar: ic.AllReduceModel
    n_coll: int
    kernels: int
    kv_bytes: float
    bandwidth: float
    replicas: int
    collective_ranks: int
    pp: int
    hop_us: float


def _level(
    s: _Setup, context: int, kv_context: int | None, concurrency: int, measured: float | None,
    published: tuple[str, ...],
) -> Level:
    arch, plan, layout = s.arch, s.plan, s.layout
    batch = ceil_div(concurrency, s.replicas)
    # Micro-batches: with a pipeline, up to PP groups of streams are in different stages at once,
    # so each stream's KV and FLOPs share the stages' time (weights are read once per micro-batch).
    overlap = min(s.pp, batch)
    experts_read = acc.expected_max_experts_per_rank(arch.n_experts, arch.top_k, ceil_div(batch, overlap), layout.ep)
    per_gpu = acc.params_per_gpu(arch, layout, experts_read)
    by_class = {cls: per_gpu.total(cls) * plan.bytes_per_param(cls) for cls in CLASSES}
    sharded = sum(per_gpu.sharded.get(cls, 0.0) * plan.bytes_per_param(cls) for cls in CLASSES)
    replicated = sum(per_gpu.replicated.get(cls, 0.0) * plan.bytes_per_param(cls) for cls in CLASSES)
    weights_read = (sharded + replicated) * overlap  # once per micro-batch, summed over the stages

    def kv_read(tokens: int) -> float:
        return batch * acc.kv_bytes_per_token_per_gpu(arch, tokens, s.kv_bytes, layout.tp)

    kv = kv_read(context)
    total_bytes = weights_read + kv
    bandwidth_bps = s.bandwidth * 1e9
    t_mem = total_bytes / overlap / bandwidth_bps * 1e6

    message = ceil_div(batch, overlap) * arch.hidden * 2
    t_one = s.ar.time_us(message, s.collective_ranks)
    t_comm = s.n_coll * t_one + (s.pp - 1) * s.hop_us
    t_fixed = s.kernels * ic.GRAPH_KERNEL_US
    t_overhead = t_mem + t_comm + t_fixed
    launches = s.kernels + s.n_coll + (s.pp - 1)
    t_eager = max(t_overhead, launches * ic.EAGER_LAUNCH_US)
    flops, t_comp, dtypes = _compute_time(arch, s.gpu, plan, layout, context, batch)
    t_comp /= overlap

    def ceiling(name: str, t_us: float, cause: str) -> Ceiling:
        rate = 1e6 / t_us if t_us > 0 else math.inf
        return Ceiling(name, rate, rate * concurrency, t_us, cause)

    gb = total_bytes / 1e9
    stages = f", summed over {s.pp} pipeline stages" if s.pp > 1 else ""
    bw_cause = (
        f"{gb:.2f} GB per step ÷ {s.bandwidth:g} GB/s{stages} "
        f"(weights {(sharded + replicated) / 1e9:.2f} GB per GPU, of which {replicated / 1e9:.2f} GB replicated on "
        f"every rank; KV {kv / 1e9:.2f} GB at {context} tokens x {batch} stream(s))"
    )
    pieces = []
    if s.n_coll:
        pieces.append(
            f"+ {s.n_coll} all-reduces x {t_one:.1f} us over {s.ar.interconnect} ({s.ar.implementation}): {s.ar.reason}"
        )
    if s.pp > 1:
        pieces.append(f"+ {s.pp - 1} pipeline hop(s) x {s.hop_us:g} us [est]")
    ar_cause = "; ".join(pieces) if pieces else "no all-reduce: one GPU per replica"
    ceilings = (
        ceiling("bandwidth", t_mem, bw_cause),
        ceiling("bandwidth+allreduce", t_mem + t_comm, ar_cause),
        ceiling(
            "overhead",
            t_overhead,
            f"+ {s.kernels} kernels x {ic.GRAPH_KERNEL_US:g} us each in CUDA graphs [est]",
        ),
        ceiling(
            "overhead-eager",
            t_eager,
            f"without CUDA graphs: {launches} launches x {ic.EAGER_LAUNCH_US:g} us of CPU each "
            f"({launches * ic.EAGER_LAUNCH_US / 1000:.2f} ms) vs {t_overhead / 1000:.2f} ms of GPU time",
        ),
        ceiling(
            "compute",
            t_comp,
            f"{flops / 1e9:.1f} GFLOP per token per GPU x {batch} ÷ dense {'/'.join(dtypes)} tensor rate"
            if dtypes
            else "unknown: no dense FLOPS figure for this GPU",
        ),
    )
    loaded: Ceiling | None = None
    loaded_bytes: float | None = None
    if kv_context is not None:
        kv_full = kv_read(kv_context)
        loaded_bytes = weights_read + kv_full
        t_loaded = t_overhead + (kv_full - kv) / overlap / bandwidth_bps * 1e6
        _, t_comp_loaded, _ = _compute_time(arch, s.gpu, plan, layout, kv_context, batch)
        loaded = ceiling(
            KV_LOADED,
            max(t_loaded, t_comp_loaded / overlap),
            f"the overhead ceiling with {kv_context} tokens in each KV cache: + {(kv_full - kv) / 1e9:.2f} GB of KV per "
            f"step x {batch} stream(s) ({kv_full / max(1, batch) / max(1, kv_context) / 1e3:.1f} kB per token)"
            if kv_context
            else "the overhead ceiling with empty KV caches",
        )
    times = {
        "memory": t_mem,
        "allreduce": t_comm,
        "fixed": t_fixed,
        "overhead": t_overhead,
        "eager": t_eager,
        "compute": t_comp,
    }
    step = max(t_overhead, t_comp)
    if t_comp >= t_overhead:
        binding, share = "compute", 1.0
    else:
        terms = {"bandwidth": t_mem, "allreduce": t_comm, "overhead": t_fixed}
        binding = max(terms, key=lambda k: terms[k])
        share = terms[binding] / step
    level = Level(
        concurrency=concurrency,
        batch_per_replica=batch,
        bytes_per_step_per_gpu=total_bytes,
        bytes_breakdown={"weights_sharded": sharded * overlap, "weights_replicated": replicated * overlap,
                         "kv_cache": kv},
        bytes_by_class=by_class,
        experts_read_per_layer=experts_read,
        times_us=times,
        ceilings=ceilings,
        binding=binding,
        binding_share=share,
        loaded=loaded,
        loaded_bytes_per_step_per_gpu=loaded_bytes,
    )  # fmt: skip
    if measured is not None:
        level = _with_measured(level, measured, arch, s.gpu, plan, s.ar, s.n_coll, s.collective_ranks, message, kv,
                               published)  # fmt: skip
    return level


def _compute_time(
    arch: ModelArch, gpu: GpuSpec, plan: WeightPlan, layout: acc.Layout, context: int, batch: int
) -> tuple[float, float, list[str]]:
    linear = acc.linear_flops_per_token_per_gpu(arch, layout)
    attention = acc.attention_flops_per_token(arch, context) / layout.tp
    seconds = 0.0
    flops = attention
    used: list[str] = []
    for cls, value in linear.items():
        if value <= 0:
            continue
        dtype = compute_dtype(plan.formats[cls], gpu)
        if gpu.dense_tflops(dtype) <= 0:
            return flops, 0.0, []  # no FLOPS figure for this GPU: compute ceiling unknown
        seconds += value / (gpu.dense_tflops(dtype) * 1e12)
        flops += value
        if dtype not in used:
            used.append(dtype)
    attn_dtype = "bf16" if gpu.dense_tflops("bf16") > 0 else "fp16"
    seconds += attention / (gpu.dense_tflops(attn_dtype) * 1e12)
    return flops, batch * seconds * 1e6, used


def _with_measured(
    level: Level,
    rate: float,
    arch: ModelArch,
    gpu: GpuSpec,
    plan: WeightPlan,
    ar: ic.AllReduceModel,
    n_coll: int,
    ranks: int,
    message: float,
    kv: float,
    published: tuple[str, ...] = (),
) -> Level:
    if rate <= 0:
        raise UsageError("--measured rates must be positive tokens per second per stream")
    percent = {c.name: 100 * rate / c.tokens_per_s for c in level.ceilings}
    t_meas = 1e6 / rate
    times = level.times_us
    residual = t_meas - max(times["overhead"], times["compute"])
    levers: list[Lever] = []
    warning = ""
    if level.loaded is not None:
        percent[KV_LOADED] = 100 * rate / level.loaded.tokens_per_s
    if percent["bandwidth"] > 100:
        warning = (
            "measured is above the bandwidth ceiling: speculative decoding (MTP/EAGLE) on, a smaller model or "
            "precision than assumed, or an aggregate rate given as per-stream"
        )
    graph_gain = min(t_meas, times["eager"]) - times["overhead"]
    if t_meas >= 0.95 * times["eager"] and graph_gain > 0.05 * t_meas:
        levers.append(
            Lever(graph_gain, f"CUDA graphs: the rate is at or below the eager ceiling; check they are on "
                              f"(vLLM without --enforce-eager), up to {graph_gain:.0f} us per step")
        )  # fmt: skip
    if n_coll and ar.interconnect == "network":
        inside = ic.allreduce_model(gpu, min(ranks, max(2, gpu.nvlink_domain)), "nvlink", "auto")
        saved = n_coll * (ar.time_us(message, ranks) - inside.time_us(message, ranks))
        levers.append(Lever(saved, f"the TP group spans nodes: {n_coll} all-reduces x {ar.latency_us:g} us over the "
                                   f"network; TP inside one NVLink domain (pipeline or expert parallelism across "
                                   f"nodes) saves about {saved:.0f} us per step"))  # fmt: skip
    if n_coll and ar.implementation == "nccl" and ar.interconnect not in ("pcie-no-p2p", "network"):
        custom = ic.allreduce_model(gpu, ranks, ar.interconnect, "custom", None if ar.path_assumed else ar.path)
        saved = n_coll * (ar.time_us(message, ranks) - custom.time_us(message, ranks))
        if saved > 0:
            levers.append(Lever(saved, f"a custom/one-shot all-reduce instead of NCCL: {n_coll} x "
                                       f"{ar.latency_us:g} -> {custom.latency_us:g} us saves {saved:.0f} us per step"))  # fmt: skip
    if n_coll and ar.interconnect == "pcie-no-p2p":
        saved = n_coll * ar.latency_us * 0.5
        levers.append(Lever(saved, f"GPU P2P is unavailable: all-reduce through host memory costs about "
                                   f"{n_coll * ar.latency_us:.0f} us per step; fewer TP ranks or P2P-capable GPUs"))  # fmt: skip
    weight_bytes = level.bytes_breakdown["weights_sharded"] + level.bytes_breakdown["weights_replicated"]
    sixteen_bit = sum(
        level.bytes_by_class[c] for c in CLASSES if plan.formats[c].bits >= 16 and c != "router"
    )
    if sixteen_bit > 0.25 * weight_bytes and gpu.dense_tflops("fp8") > 0:
        saved = sixteen_bit / 2 / (level.bytes_per_step_per_gpu / times["memory"])
        names = ", ".join(CLASS_LABELS[c] for c in CLASSES if plan.formats[c].bits >= 16 and c != "router")
        levers.append(
            Lever(
                saved,
                f"FP8 for the 16-bit weights ({names}) halves their bytes: about {saved:.0f} us per step",
            )
        )
    if kv > 0.25 * level.bytes_per_step_per_gpu:
        saved = kv / 2 / (level.bytes_per_step_per_gpu / times["memory"])
        levers.append(Lever(saved, f"the KV cache is {100 * kv / level.bytes_per_step_per_gpu:.0f} % of the bytes: "
                                   f"an FP8 KV cache saves about {saved:.0f} us per step"))  # fmt: skip
    per_layer = residual / arch.layers
    if residual > 0:
        levers.append(
            Lever(residual, f"{residual:.0f} us per step ({per_layer:.0f} us per layer) is not explained by bandwidth, "
                            "all-reduce or the launch floor: kernel efficiency, attention, MoE routing, sampling, "
                            "the scheduler; well-tuned stacks leave 40-150 us per layer at batch 1 [est]")
        )  # fmt: skip
    levers.sort(key=lambda lever: lever.saved_us, reverse=True)
    result = MeasuredResult(rate, percent, per_layer, tuple(levers), warning, published)
    return Level(**{**level.__dict__, "measured": result})
