"""The ceiling ladder for one setup: bandwidth, + all-reduce, + per-kernel overhead (with and without
CUDA graphs), compute; the binding term; efficiency of a measured rate and what would move it.

Model (research/ceiling-model.md section 0), per decode step at batch b on the busiest GPU:
    t_mem   = (weights read + b x KV read) / memory bandwidth
    t_comm  = n_allreduce x t_allreduce(b x hidden x 2 bytes)        n_allreduce = 2L + 2
    t_fixed = kernels per step x per-kernel floor (CUDA graphs)      [est]
    t_eager = max(t_mem + t_comm + t_fixed, launches x CPU launch cost)
    t_comp  = b x FLOPs per token per GPU / dense FLOPS of the GEMM dtype
tokens/s per stream = 1 / step time; aggregate = per stream x concurrency.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackaudit.ceiling import accounting as acc
from stackaudit.ceiling import interconnect as ic
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
from stackaudit.gputable import GpuSpec

SCHEMA = 1
CEILING_NAMES = ("bandwidth", "bandwidth+allreduce", "overhead", "overhead-eager", "compute")
DEFAULT_CONTEXT = 4096

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
    kernels_per_step: int
    levels: tuple[Level, ...]
    assumptions: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of `--format json` (top-level `schema`, DESIGN.md)."""
        by_class = self.params.by_class()
        return {
            "schema": SCHEMA,
            "tool": "stackaudit ceiling",
            "model": {
                "name": self.arch.name,
                "model_type": self.arch.model_type,
                "source": self.arch.source,
                "architecture": self.arch.describe(),
                "verified_family": self.arch.verified,
                "total_params": self.params.total,
                "notes": list(self.arch.notes),
            },
            "active_params": self.params.active,
            "active_params_by_class": by_class,
            "embeddings_counted": False,
            "lm_head_counted": True,
            "hardware": {
                "gpu": self.gpu.name,
                "gpu_note": self.gpu_note,
                "gpu_source": self.gpu.source,
                "gpus": self.gpus,
                "tp": self.tp,
                "ep": self.ep,
                "replicas": self.replicas,
                "memory_bandwidth_gbs": self.bandwidth_gbs,
                "bandwidth_source": self.bandwidth_source,
                "interconnect": self.allreduce.interconnect,
                "allreduce": {
                    "implementation": self.allreduce.implementation,
                    "latency_us": self.allreduce.latency_us,
                    "count_per_step": self.n_allreduce,
                    "reason": self.allreduce.reason,
                },
            },
            "weights": {cls: self.weights.formats[cls].name for cls in CLASSES},
            "weights_origin": self.weights.origin,
            "kv_cache": {"dtype": self.kv_dtype, "bytes_per_element": self.kv_bytes, "context": self.context},
            "levels": [_level_dict(level) for level in self.levels],
            "assumptions": list(self.assumptions),
        }


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unknown ceiling (no FLOPS figure) is null."""
    return value if math.isfinite(value) else None


def _level_dict(level: Level) -> dict[str, Any]:
    out: dict[str, Any] = {
        "concurrency": level.concurrency,
        "batch_per_replica": level.batch_per_replica,
        "bytes_per_token_per_gpu": level.bytes_per_token_per_gpu,
        "bytes_per_step_per_gpu": level.bytes_per_step_per_gpu,
        "bytes_breakdown": level.bytes_breakdown,
        "bytes_by_class": level.bytes_by_class,
        "experts_read_per_layer": level.experts_read_per_layer,
        "ceilings": [
            {
                "name": c.name,
                "tokens_per_s": _finite(c.tokens_per_s),
                "aggregate_tokens_per_s": _finite(c.aggregate_tokens_per_s),
                "step_time_us": c.step_time_us,
                "cause": c.cause,
            }
            for c in level.ceilings
        ],
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


def check_layout(arch: ModelArch, gpus: int, tp: int, ep: int) -> None:
    """Refuse contradictory parallelism with the rule that is broken, in one line."""
    if gpus < 1 or tp < 1 or ep < 1:
        raise UsageError("--gpus, --tp and --ep must be at least 1")
    if tp > gpus:
        raise UsageError(f"--tp {tp} is more than --gpus {gpus}")
    broken = []
    if gpus % tp:
        broken.append(f"--gpus {gpus}")
    if arch.heads % tp:
        broken.append(f"the model's {arch.heads} attention heads")
    if broken:
        raise UsageError(f"--tp {tp} does not divide {' nor '.join(broken)}")
    if not arch.is_mla and arch.kv_heads % tp and tp % arch.kv_heads:
        raise UsageError(f"--tp {tp} and the model's {arch.kv_heads} KV heads: neither divides the other")
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
) -> CeilingReport:
    """Decode-throughput ceilings of a model on `gpus` x `gpu`.

    model_config: a Hugging Face config dict (as read from config.json) or a parsed ModelArch.
    gpu: a row of the GPU table (stackaudit.gputable.lookup(name).spec).
    gpus: GPUs serving the model; tp: tensor-parallel size (default: all GPUs); GPUs beyond one TP
        group form data-parallel replicas that share the concurrency.
    ep: expert-parallel size for the MoE layers (default 1: experts TP-sharded).
    weights: `--weights` spec ("nvfp4", "nvfp4,attention=bf16", "q4_k_m" ...); None reads the
        config's quantization_config, else its torch_dtype.
    kv_dtype: KV cache dtype (bf16, fp8, ...); None = the model dtype.
    context: tokens in each sequence's KV cache when it decodes.
    concurrencies: streams decoding at once; one Level per value.
    interconnect: nvlink | xgmi | pcie | pcie-no-p2p; None = implied by the GPU table.
    allreduce: auto (vLLM's custom all-reduce rules) | custom | nccl.
    measured: {concurrency: per-stream tokens/s} to compare with each ceiling.
    bandwidth_gbs: memory bandwidth to use instead of the table's (e.g. from NVML clocks).

    Returns a CeilingReport; `.to_dict()` is the JSON document (`schema`, `active_params`,
    `levels[].ceilings[]` ...). Raises stackaudit.errors.UsageError / InputError on bad input.
    """
    arch = model_config if isinstance(model_config, ModelArch) else parse_arch(model_config)
    tp = gpus if tp is None else tp
    ep = 1 if ep is None else ep
    check_layout(arch, gpus, tp, ep)
    if context < 0:
        raise UsageError("--context must be 0 or more tokens")
    levels_wanted = sorted(set(concurrencies) | set((measured or {}).keys()))
    if not levels_wanted or min(levels_wanted) < 1:
        raise UsageError("--concurrency values must be 1 or more")

    plan = (
        parse_weights(weights, arch.torch_dtype)
        if weights
        else plan_from_config(arch.quantization, arch.torch_dtype)
    )
    kv_name, kv_bytes = kv_dtype_bytes(kv_dtype, arch.torch_dtype)
    bandwidth = bandwidth_gbs or gpu.memory_bandwidth_gbs
    bw_source = bandwidth_source or f"{gpu.name} spec ({gpu.source})"
    link = interconnect or ic.default_interconnect(gpu)
    layout = acc.Layout(tp=tp, ep=ep)
    collective_ranks = tp if tp > 1 else ep
    ar = ic.allreduce_model(gpu, collective_ranks, link, allreduce)
    if tp > 1:
        n_coll = 2 * arch.layers + 2  # Megatron TP: after attention and after the MLP, + embedding + logits
    elif ep > 1:
        n_coll = 2 * arch.moe_layers  # dispatch + combine per MoE layer
    else:
        n_coll = 0
    kernels = _kernels_per_step(arch)
    replicas = gpus // tp
    params = acc.count_params(arch)

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
    fit = _fit_note(arch, params, plan, gpu, tp, ep)
    if fit:
        assumptions.append(fit)

    measured = measured or {}
    levels: list[Level] = []
    for concurrency in levels_wanted:
        levels.append(
            _level(arch, gpu, plan, layout, ar, n_coll, kernels, kv_bytes, context, bandwidth, concurrency,
                   replicas, collective_ranks, measured.get(concurrency))
        )  # fmt: skip
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
        kernels_per_step=kernels,
        levels=tuple(levels),
        assumptions=tuple(assumptions),
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


def _fit_note(
    arch: ModelArch, params: acc.ParamCounts, plan: WeightPlan, gpu: GpuSpec, tp: int, ep: int
) -> str:
    """Warn when the weights alone do not fit in GPU memory (the ceiling is then hypothetical)."""
    layout = acc.Layout(tp=tp, ep=ep)
    stored = acc.params_per_gpu(arch, layout, arch.n_experts / max(1, ep) if arch.is_moe else 0)
    total = sum(stored.total(cls) * plan.bytes_per_param(cls) for cls in CLASSES)
    total += params.embedding / tp * plan.bytes_per_param("lm_head")
    capacity = gpu.memory_gib * 2**30
    if total > capacity:
        return (
            f"the weights need {total / 1e9:.1f} GB per GPU, more than the {gpu.memory_gib:g} GiB of a {gpu.name}: "
            "this layout does not fit, the ceiling is hypothetical"
        )
    return ""


def _level(
    arch: ModelArch,
    gpu: GpuSpec,
    plan: WeightPlan,
    layout: acc.Layout,
    ar: ic.AllReduceModel,
    n_coll: int,
    kernels: int,
    kv_bytes: float,
    context: int,
    bandwidth: float,
    concurrency: int,
    replicas: int,
    collective_ranks: int,
    measured: float | None,
) -> Level:
    batch = ceil_div(concurrency, replicas)
    experts_read = acc.expected_max_experts_per_rank(arch.n_experts, arch.top_k, batch, layout.ep)
    per_gpu = acc.params_per_gpu(arch, layout, experts_read)
    by_class = {cls: per_gpu.total(cls) * plan.bytes_per_param(cls) for cls in CLASSES}
    sharded = sum(per_gpu.sharded.get(cls, 0.0) * plan.bytes_per_param(cls) for cls in CLASSES)
    replicated = sum(per_gpu.replicated.get(cls, 0.0) * plan.bytes_per_param(cls) for cls in CLASSES)
    kv = batch * acc.kv_bytes_per_token_per_gpu(arch, context, kv_bytes, layout.tp)
    total_bytes = sharded + replicated + kv

    t_mem = total_bytes / (bandwidth * 1e9) * 1e6
    message = batch * arch.hidden * 2
    t_one = ar.time_us(message, collective_ranks)
    t_comm = n_coll * t_one
    t_fixed = kernels * ic.GRAPH_KERNEL_US
    t_overhead = t_mem + t_comm + t_fixed
    launches = kernels + n_coll
    t_eager = max(t_overhead, launches * ic.EAGER_LAUNCH_US)
    flops, t_comp, dtypes = _compute_time(arch, gpu, plan, layout, context, batch)

    def ceiling(name: str, t_us: float, cause: str) -> Ceiling:
        rate = 1e6 / t_us if t_us > 0 else math.inf
        return Ceiling(name, rate, rate * concurrency, t_us, cause)

    gb = total_bytes / 1e9
    bw_cause = (
        f"{gb:.2f} GB per GPU per step ÷ {bandwidth:g} GB/s "
        f"(weights {(sharded + replicated) / 1e9:.2f} GB, of which {replicated / 1e9:.2f} GB replicated on every rank; "
        f"KV {kv / 1e9:.2f} GB at {context} tokens x {batch} stream(s))"
    )
    if n_coll:
        ar_cause = f"+ {n_coll} all-reduces x {t_one:.1f} us over {ar.interconnect} ({ar.implementation}): {ar.reason}"
    else:
        ar_cause = "no all-reduce: one GPU per replica"
    ceilings = (
        ceiling("bandwidth", t_mem, bw_cause),
        ceiling("bandwidth+allreduce", t_mem + t_comm, ar_cause),
        ceiling(
            "overhead",
            t_overhead,
            f"+ {kernels} kernels x {ic.GRAPH_KERNEL_US:g} us each in CUDA graphs [est]",
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
        bytes_breakdown={"weights_sharded": sharded, "weights_replicated": replicated, "kv_cache": kv},
        bytes_by_class=by_class,
        experts_read_per_layer=experts_read,
        times_us=times,
        ceilings=ceilings,
        binding=binding,
        binding_share=share,
    )
    if measured is not None:
        level = _with_measured(level, measured, arch, gpu, plan, ar, n_coll, collective_ranks, message, kv)
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
) -> Level:
    if rate <= 0:
        raise UsageError("--measured rates must be positive tokens per second per stream")
    percent = {c.name: 100 * rate / c.tokens_per_s for c in level.ceilings}
    t_meas = 1e6 / rate
    times = level.times_us
    residual = t_meas - max(times["overhead"], times["compute"])
    levers: list[Lever] = []
    warning = ""
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
    if n_coll and ar.implementation == "nccl" and ar.interconnect != "pcie-no-p2p":
        custom = ic.allreduce_model(gpu, ranks, ar.interconnect, "custom")
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
                            "the scheduler; well-tuned stacks leave 40-150 us per layer at batch 1 (research section 4.1)")
        )  # fmt: skip
    levers.sort(key=lambda lever: lever.saved_us, reverse=True)
    result = MeasuredResult(rate, percent, per_layer, tuple(levers), warning)
    return Level(**{**level.__dict__, "measured": result})
