"""Weight storage formats: bytes per parameter per component class, from `--weights` or from the
config's `quantization_config` (docs/ceiling.md).

`--weights` grammar: comma-separated items, each `FORMAT` (the base: attention and all MLP weights)
or `CLASS=FORMAT`. Classes: attention, dense, experts, shared, mlp (= dense+experts+shared), router,
lm_head, all. Examples: `nvfp4`, `nvfp4,attention=bf16`, `experts=mxfp4,attention=bf16`,
`int4-awq-g128`, `q4_k_m`, `exl2-4.0bpw` (head 6 bits), `exl2-2.5bpw-h8`, `q4f16_1` (MLC).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stackaudit.errors import InputError, UsageError
from stackaudit.gputable import GpuSpec

CLASSES = ("attention", "dense_mlp", "experts", "shared_experts", "router", "lm_head")
CLASS_LABELS = {
    "attention": "attention",
    "dense_mlp": "dense MLP",
    "experts": "routed experts",
    "shared_experts": "shared experts",
    "router": "router",
    "lm_head": "lm_head",
}
_CLASS_WORDS: dict[str, tuple[str, ...]] = {
    "attention": ("attention",),
    "attn": ("attention",),
    "self_attn": ("attention",),
    "dense": ("dense_mlp",),
    "dense_mlp": ("dense_mlp",),
    "experts": ("experts",),
    "expert": ("experts",),
    "moe": ("experts",),
    "routed": ("experts",),
    "shared": ("shared_experts",),
    "shared_experts": ("shared_experts",),
    "mlp": ("dense_mlp", "experts", "shared_experts"),
    "ffn": ("dense_mlp", "experts", "shared_experts"),
    "router": ("router",),
    "gate": ("router",),
    "lm_head": ("lm_head",),
    "head": ("lm_head",),
    "output": ("lm_head",),
    "all": CLASSES,
}
# Classes a single quantized format applies to; the router and lm_head stay in the checkpoint's
# dtype, as in DeepSeek FP8, ModelOpt NVFP4, AWQ and GPTQ checkpoints (their ignore lists).
_BASE_CLASSES = ("attention", "dense_mlp", "experts", "shared_experts")


@dataclass(frozen=True)
class WeightFormat:
    """A storage format. `bits` includes the scales/zeros; `math` is the GEMM input type."""

    name: str
    bits: float
    math: str  # bf16 | fp16 | fp8 | fp4 | mxfp4 | int8
    description: str = ""

    @property
    def bytes_per_param(self) -> float:
        return self.bits / 8


def _fixed(name: str, bits: float, math: str, description: str) -> WeightFormat:
    return WeightFormat(name, bits, math, description)


# Sources (NVFP4: one FP8 scale per 16 values;
# MXFP4: one E8M0 scale per 32; GGUF block sizes from ggml's block definitions).
_FORMATS: dict[str, WeightFormat] = {
    "bf16": _fixed("bf16", 16, "bf16", "BF16"),
    "fp16": _fixed("fp16", 16, "fp16", "FP16"),
    "fp32": _fixed("fp32", 32, "bf16", "FP32 (served in BF16 math at best)"),
    "fp8": _fixed("fp8", 8, "fp8", "FP8 E4M3, per-tensor/channel scale"),
    "fp8-block": _fixed("fp8-block", 8 + 32 / 16384, "fp8", "FP8 E4M3 with an FP32 scale per 128x128 block"),
    "mxfp8": _fixed("mxfp8", 8.25, "fp8", "MXFP8: E8M0 scale per 32"),
    "int8": _fixed("int8", 8, "bf16", "INT8 weight-only (BF16 math)"),
    "w8a8-int8": _fixed("w8a8-int8", 8, "int8", "INT8 weights and activations"),
    "nvfp4": _fixed("nvfp4", 4.5, "fp4", "NVFP4: E2M1, FP8 scale per 16"),
    "mxfp4": _fixed("mxfp4", 4.25, "mxfp4", "MXFP4: E2M1, E8M0 scale per 32"),
    "nf4": _fixed("nf4", 4.127, "bf16", "bitsandbytes NF4, double-quantized scales per 64"),
    # GGUF: bits per weight from the block layouts (Q4_0: 32 weights in 18 bytes; Q8_0: 34 bytes).
    "q4_0": _fixed("q4_0", 4.5, "int8", "GGUF Q4_0"),
    "q4_1": _fixed("q4_1", 5.0, "int8", "GGUF Q4_1"),
    "q5_0": _fixed("q5_0", 5.5, "int8", "GGUF Q5_0"),
    "q5_1": _fixed("q5_1", 6.0, "int8", "GGUF Q5_1"),
    "q8_0": _fixed("q8_0", 8.5, "int8", "GGUF Q8_0"),
    "q4_k": _fixed("q4_k", 4.5, "int8", "GGUF Q4_K"),
    "q5_k": _fixed("q5_k", 5.5, "int8", "GGUF Q5_K"),
    "q6_k": _fixed("q6_k", 6.5625, "int8", "GGUF Q6_K"),
    "iq4_xs": _fixed("iq4_xs", 4.25, "int8", "GGUF IQ4_XS"),
    # Mixes raise some tensors (attn_v, half of ffn_down) to Q6_K; effective bits are estimates.
    "q4_k_s": _fixed("q4_k_s", 4.6, "int8", "GGUF Q4_K_S (mix, about 4.6 bits) [est]"),
    "q4_k_m": _fixed("q4_k_m", 4.85, "int8", "GGUF Q4_K_M (mix, about 4.85 bits) [est]"),
    "q5_k_m": _fixed("q5_k_m", 5.7, "int8", "GGUF Q5_K_M (mix, about 5.7 bits) [est]"),
    # MLC-LLM group quantization (mlc_llm/quantization/quantization.py): q4f16_*: int4 in groups of
    # 32 with an FP16 scale, 8 values per uint32 -> 4 + 16/32 bits; q3f16_*: int3 in groups of 40,
    # 10 values per uint32 (3.2 bits) + 16/40; q4f32_1: FP32 scale. `quantize_final_fc=True`: the
    # lm_head is quantized too.
    "q4f16_0": _fixed("q4f16_0", 4.5, "fp16", "MLC q4f16_0: int4, FP16 scale per 32"),
    "q4f16_1": _fixed("q4f16_1", 4.5, "fp16", "MLC q4f16_1: int4, FP16 scale per 32"),
    "q4bf16_1": _fixed("q4bf16_1", 4.5, "bf16", "MLC q4bf16_1: int4, BF16 scale per 32"),
    "q4f32_1": _fixed("q4f32_1", 5.0, "bf16", "MLC q4f32_1: int4, FP32 scale per 32"),
    "q3f16_0": _fixed("q3f16_0", 3.6, "fp16", "MLC q3f16_0: int3 (10 per uint32), FP16 scale per 40"),
    "q3f16_1": _fixed("q3f16_1", 3.6, "fp16", "MLC q3f16_1: int3 (10 per uint32), FP16 scale per 40"),
    "q0f16": _fixed("q0f16", 16, "fp16", "MLC q0f16: unquantized FP16"),
    "q0bf16": _fixed("q0bf16", 16, "bf16", "MLC q0bf16: unquantized BF16"),
}
# Formats whose lm_head is quantized with the rest (MLC: quantize_final_fc=True).
_HEAD_QUANTIZED = frozenset({"q4f16_0", "q4f16_1", "q4bf16_1", "q4f32_1", "q3f16_0", "q3f16_1"})
# EXL2: exllamav2's convert.py quantizes the head at `-hb/--head_bits`, default 6; the config.json
# of a converted model records both: {"quant_method": "exl2", "bits": 4.25, "head_bits": 6, ...}.
EXL2_DEFAULT_HEAD_BITS = 6
_SYNONYMS = {
    "bfloat16": "bf16",
    "float16": "fp16",
    "f16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "f32": "fp32",
    "e4m3": "fp8",
    "fp8_e4m3": "fp8",
    "float8": "fp8",
    "fp8-dynamic": "fp8",
    "w8a8-fp8": "fp8",
    "fp4": "nvfp4",
    "w4a4-nvfp4": "nvfp4",
    "int8-weight-only": "int8",
    "w8a16": "int8",
    "awq": "int4-awq-g128",
    "gptq": "int4-gptq-g128",
    "w4a16": "int4-gptq-g128",
    "int4": "int4-gptq-g128",
}
# GGUF quantizations keep the output matrix at higher precision (llama.cpp puts output.weight in
# Q6_K inside Q4/Q5 mixes).
_GGUF_HEAD = {"q8_0": "q8_0"}
_GGUF_DEFAULT_HEAD = "q6_k"


def known_formats() -> list[str]:
    return [*_FORMATS, "int4-awq-gN", "int4-gptq-gN", "int4-gN", "int8-gptq-gN", "exl2-Xbpw[-hN]"]


def exl2_format(bits: float) -> WeightFormat:
    """EXL2 at `bits` bits per weight on average (the converter's target, scales included)."""
    if not 1.5 <= bits <= 8.5:
        raise UsageError(f"exl2 at {bits:g} bits per weight: EXL2 mixes 2 to 8 bits")
    return WeightFormat(f"exl2-{bits:g}bpw", bits, "fp16", f"EXL2, {bits:g} bits per weight on average")


def _exl2_head(bits: float) -> WeightFormat:
    return WeightFormat(f"exl2-head-{bits:g}b", bits, "fp16", f"EXL2 head at {bits:g} bits")


def _parse_exl2(key: str, text: str) -> tuple[WeightFormat, WeightFormat] | None:
    """`exl2-4.0bpw`, `exl2-2.5bpw-h8`, `exl2-4.65` -> (body, head); None when not EXL2."""
    match = re.fullmatch(r"exl2[-_]?(\d+(?:\.\d+)?)(?:bpw|b)?(?:[-_]h(?:b)?(\d+(?:\.\d+)?))?", key)
    if not match:
        if key.startswith("exl2"):
            raise UsageError(f"--weights {text!r}: write EXL2 as exl2-BITSbpw, e.g. exl2-4.0bpw or exl2-2.5bpw-h8")
        return None
    head = float(match.group(2)) if match.group(2) else EXL2_DEFAULT_HEAD_BITS
    return exl2_format(float(match.group(1))), _exl2_head(head)


def parse_format(text: str) -> WeightFormat:
    """One format name -> WeightFormat; UsageError listing the known names otherwise."""
    key = (
        text.strip().lower().replace("_", "-")
        if text.strip().lower().startswith(("int", "w"))
        else text.strip().lower()
    )
    key = _SYNONYMS.get(key, key)
    if key.startswith("gguf-") or key.startswith("gguf:"):
        key = key[5:]
    if key in _FORMATS:
        return _FORMATS[key]
    exl2 = _parse_exl2(key, text)
    if exl2 is not None:
        return exl2[0]
    # Integer group quantization: int4-awq-g128, int4-gptq-g32, int4-g32 (scale+zero in BF16, gpt-fast).
    match = re.fullmatch(r"int(\d)(?:-(awq|gptq))?(?:-g(-?\d+))?", key)
    if match:
        bits = int(match.group(1))
        method = match.group(2) or ""
        group = int(match.group(3) or 128)
        if bits not in (2, 3, 4, 8):
            raise UsageError(f"--weights {text!r}: integer formats have 2, 3, 4 or 8 bits")
        overhead = {"awq": 20, "gptq": 16}.get(method, 32)  # scale (+ zero) bits per group
        per_weight = bits + (overhead / group if group > 0 else 0)
        label = f"int{bits}-{method}-g{group}" if method else f"int{bits}-g{group}"
        what = {"awq": "AWQ (FP16 scale + 4-bit zero per group)", "gptq": "GPTQ (FP16 scale per group)"}.get(
            method, "scale and zero in BF16 per group (gpt-fast/torchao)"
        )
        return WeightFormat(label, per_weight, "bf16", f"INT{bits} {what}, group {group}")
    raise UsageError(f"--weights: unknown format {text!r}; known: {', '.join(known_formats())}")


@dataclass(frozen=True)
class WeightPlan:
    """The format of each component class, and where that choice came from."""

    formats: Mapping[str, WeightFormat]
    origin: str
    notes: tuple[str, ...] = field(default=())
    embedding: WeightFormat | None = None  # known exactly only from a GGUF file

    def bytes_per_param(self, cls: str) -> float:
        return self.formats[cls].bytes_per_param

    def describe(self, present: Iterable[str] | None = None) -> str:
        """'nvfp4 for routed experts; bf16 for attention, lm_head': only the classes in `present`."""
        wanted = set(CLASSES if present is None else present)
        groups: dict[str, list[str]] = {}
        for cls in CLASSES:
            if cls in wanted:
                groups.setdefault(self.formats[cls].name, []).append(CLASS_LABELS[cls])
        return "; ".join(f"{fmt} for {', '.join(names)}" for fmt, names in groups.items())


def dtype_format(torch_dtype: str) -> WeightFormat:
    key = torch_dtype.lower().replace("torch.", "")
    if key in ("float16", "fp16", "half"):
        return _FORMATS["fp16"]
    return _FORMATS["bf16"]  # bfloat16, and float32 checkpoints are served in 16-bit


def _default_head(base: WeightFormat, unquantized: WeightFormat, text: str = "") -> WeightFormat:
    exl2 = _parse_exl2(text.strip().lower(), text) if text.strip().lower().startswith("exl2") else None
    if exl2 is not None:
        return exl2[1]
    if base.name in _HEAD_QUANTIZED:
        return base
    if (base.math == "int8" and base.name.startswith("q")) or base.name == "iq4_xs":
        return _FORMATS[_GGUF_HEAD.get(base.name, _GGUF_DEFAULT_HEAD)]
    if base.bits >= 16:
        return base
    return unquantized


# Bare 4-bit float bases that published MoE checkpoints apply to the MLP only: ModelOpt NVFP4 exports of MoE
# models exclude the attention projections (exclude_modules), gpt-oss keeps attention in BF16
# (modules_to_not_convert; https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json).
_MLP_ONLY_ON_MOE = frozenset({"nvfp4", "mxfp4"})


def parse_weights(spec: str, torch_dtype: str = "bfloat16", checkpoint: Mapping[str, Any] | None = None,
                  moe: bool = False) -> WeightPlan:
    """`--weights` value -> WeightPlan.

    A bare base (no `CLASS=` item for a class) leaves unquantised what the checkpoint keeps unquantised:
    the classes its own quantization_config ignores (`checkpoint`), else, for an NVFP4 or MXFP4 base on a MoE
    model (`moe`), the attention weights; the plan's notes state the layout assumed."""
    plan = _parse_weights(spec, torch_dtype)
    named = {cls for item in spec.split(",") if "=" in item
             for cls in _CLASS_WORDS.get(item.partition("=")[0].strip().lower(), ())}
    bases = [item.strip() for item in spec.split(",") if item.strip() and "=" not in item]
    if not bases:
        return plan
    unquantized = dtype_format(torch_dtype)
    base = plan.formats["experts"] if moe else plan.formats["dense_mlp"]
    if base.bits >= 16:
        return plan
    keep: set[str] = set()
    why = ""
    if checkpoint:
        keep, _ = _ignored_classes(checkpoint)
        why = "the checkpoint's quantization_config ignore list"
    elif moe and parse_format(bases[0]).name in _MLP_ONLY_ON_MOE:
        keep = {"attention"}
        why = (f"assumed: a {parse_format(bases[0]).name} MoE checkpoint keeps attention unquantised, as published "
               f"ones do; give `--weights {bases[0]},attention={bases[0]}` if this one does not")
    keep = (keep & set(_BASE_CLASSES)) - named
    if not keep:
        return plan
    formats = dict(plan.formats)
    for cls in keep:
        formats[cls] = unquantized
    kept = ", ".join(CLASS_LABELS[cls] for cls in _BASE_CLASSES if cls in keep)
    note = f"--weights {spec}: {kept} kept in {unquantized.name} ({why})"
    return WeightPlan(formats=formats, origin=plan.origin, notes=(*plan.notes, note), embedding=plan.embedding)


def _parse_weights(spec: str, torch_dtype: str) -> WeightPlan:
    unquantized = dtype_format(torch_dtype)
    formats: dict[str, WeightFormat] = dict.fromkeys(CLASSES, unquantized)
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if not items:
        raise UsageError("--weights is empty; give a format such as bf16, fp8 or nvfp4")
    bases = [item for item in items if "=" not in item]
    if len(bases) > 1:
        raise UsageError(
            f"--weights {spec!r}: more than one base format ({', '.join(bases)}); use CLASS=FORMAT"
        )
    if bases:
        base = parse_format(bases[0])
        for cls in _BASE_CLASSES:
            formats[cls] = base
        formats["lm_head"] = _default_head(base, unquantized, bases[0])
        if base.bits >= 16:
            formats["router"] = base
    for item in items:
        if "=" not in item:
            continue
        word, _, fmt_text = item.partition("=")
        classes = _CLASS_WORDS.get(word.strip().lower())
        if classes is None:
            raise UsageError(
                f"--weights {spec!r}: unknown class {word.strip()!r}; classes: attention, dense, experts, "
                "shared, mlp, router, lm_head, all"
            )
        fmt = parse_format(fmt_text)
        for cls in classes:
            formats[cls] = fmt
    return WeightPlan(formats=formats, origin="--weights")


# ------------------------------------------------------------------ from quantization_config


def _classes_in_pattern(pattern: str) -> set[str]:
    """Component classes a module name or pattern of an ignore list refers to."""
    text = pattern.lower()
    if text.startswith("re:"):
        text = text[3:]
    found: set[str] = set()
    if "lm_head" in text or text in ("output", "output.weight"):
        found.add("lm_head")
    if "shared_expert" in text:
        found.add("shared_experts")
    elif "expert" in text:
        found.add("experts")
    if "router" in text or re.search(r"mlp\.gate(\b|\$|$)(?!_)", text) or text.endswith(".gate"):
        found.add("router")
    if re.search(r"self_attn|\battn\b|attention", text) and "mlp" not in text:
        found.add("attention")
    if re.search(r"\.mlp\b\*?$|\.mlp\.(gate_proj|up_proj|down_proj)", text) and not found:
        found.add("dense_mlp")
    return found


def _ignored_classes(quant: Mapping[str, Any]) -> tuple[set[str], list[str]]:
    patterns: list[str] = []
    for key in ("modules_to_not_convert", "ignore", "ignored_layers", "exclude_modules", "ignored_modules"):
        value = quant.get(key)
        if isinstance(value, list):
            patterns.extend(str(item) for item in value)
    classes: set[str] = set()
    for pattern in patterns:
        classes |= _classes_in_pattern(pattern)
    return classes, patterns


def _format_from_compressed_tensors(quant: Mapping[str, Any]) -> WeightFormat | None:
    groups = quant.get("config_groups")
    if not isinstance(groups, dict) or not groups:
        return None
    group = next(iter(groups.values()))
    weights = group.get("weights") if isinstance(group, dict) else None
    if not isinstance(weights, dict):
        return None
    bits = int(weights.get("num_bits", 0) or 0)
    kind = str(weights.get("type", "int"))
    size = weights.get("group_size")
    has_activations = bool(group.get("input_activations"))
    if kind == "float" and bits == 4:
        return _FORMATS["nvfp4"] if (size in (None, 16)) else _FORMATS["mxfp4"]
    if kind == "float" and bits == 8:
        return _FORMATS["fp8-block"] if weights.get("strategy") == "block" else _FORMATS["fp8"]
    if kind == "int" and bits == 8:
        return _FORMATS["w8a8-int8"] if has_activations else _FORMATS["int8"]
    if kind == "int" and bits in (2, 3, 4):
        return parse_format(f"int{bits}-gptq-g{int(size) if size else -1}")
    return None


def format_from_quantization(quant: Mapping[str, Any]) -> WeightFormat:
    """The main format a `quantization_config` declares; InputError when it is not understood."""
    method = str(quant.get("quant_method", "")).lower()
    fmt: WeightFormat | None = None
    if method in ("fp8", "fbgemm_fp8"):
        fmt = _FORMATS["fp8-block"] if quant.get("weight_block_size") else _FORMATS["fp8"]
    elif method == "mxfp4":
        fmt = _FORMATS["mxfp4"]
    elif method == "awq":
        fmt = parse_format(
            f"int{int(quant.get('bits', quant.get('w_bit', 4)))}-awq-g{int(quant.get('group_size', quant.get('q_group_size', 128)))}"
        )
    elif method == "gptq":
        fmt = parse_format(f"int{int(quant.get('bits', 4))}-gptq-g{int(quant.get('group_size', 128))}")
    elif method == "compressed-tensors":
        fmt = _format_from_compressed_tensors(quant)
    elif method == "modelopt":
        algo = str(quant.get("quant_algo", "")).upper()
        fmt = {
            "NVFP4": _FORMATS["nvfp4"],
            "FP8": _FORMATS["fp8"],
            "FP8_BLOCK_SCALES": _FORMATS["fp8-block"],
            "W4A16_AWQ": parse_format("int4-awq-g128"),
            "W4A8_AWQ": parse_format("int4-awq-g128"),
            "MXFP4": _FORMATS["mxfp4"],
        }.get(algo)
    elif method == "exl2":
        bits = quant.get("bits")
        if isinstance(bits, (int, float)) and not isinstance(bits, bool):
            fmt = exl2_format(float(bits))
    elif method == "mlc":
        name = str(quant.get("name", "")).lower()
        fmt = _FORMATS.get(name)
    elif method == "bitsandbytes":
        if quant.get("load_in_4bit"):
            fmt = _FORMATS["nf4"]
        elif quant.get("load_in_8bit"):
            fmt = _FORMATS["int8"]
    if fmt is None:
        detail = f"quant_method {method!r}" if method else "no quant_method"
        raise InputError(f"config quantization_config ({detail}) is not understood; pass --weights FORMAT")
    return fmt


_GGUF_FLOAT_MATH = {"F16": "fp16", "BF16": "bf16", "F32": "bf16"}


def _gguf_class_format(cls: str, entry: Mapping[str, Any]) -> WeightFormat:
    """The exact average bits of one class of a GGUF file, named by its storage types."""
    types = entry.get("types") or {}
    main = next(iter(types), "?")
    name = "+".join(types) if len(types) <= 3 else "+".join(list(types)[:3]) + "+..."
    shares = ", ".join(f"{kind} {100 * share:.0f} %" for kind, share in types.items())
    math = _GGUF_FLOAT_MATH.get(main, "int8")  # quantized GGUF kernels use int8 dot products (MMQ)
    return WeightFormat(name, float(entry["bits"]), math, f"GGUF {CLASS_LABELS.get(cls, cls)}: {shares}")


def plan_from_gguf(quant: Mapping[str, Any]) -> WeightPlan:
    classes = quant.get("classes") or {}
    formats = {cls: _gguf_class_format(cls, classes[cls]) if cls in classes else _FORMATS["fp16"] for cls in CLASSES}
    embedding = _gguf_class_format("embedding", classes["embedding"]) if "embedding" in classes else None
    return WeightPlan(
        formats=formats,
        origin="GGUF tensor types (exact bytes per class)",
        notes=("bits per class summed from the GGUF tensor index: " + "; ".join(
            f"{CLASS_LABELS.get(cls, cls)} {float(classes[cls]['bits']):.2f}" for cls in (*CLASSES, "embedding")
            if cls in classes
        ),),
        embedding=embedding,
    )  # fmt: skip


def plan_from_config(quant: Mapping[str, Any] | None, torch_dtype: str) -> WeightPlan:
    """Default plan: the checkpoint's quantization, minus its ignore list; else its dtype."""
    unquantized = dtype_format(torch_dtype)
    formats: dict[str, WeightFormat] = dict.fromkeys(CLASSES, unquantized)
    if not quant:
        return WeightPlan(formats=formats, origin=f"config torch_dtype ({torch_dtype})")
    if str(quant.get("quant_method", "")).lower() == "gguf":
        return plan_from_gguf(quant)
    fmt = format_from_quantization(quant)
    ignored, patterns = _ignored_classes(quant)
    applies = set(_BASE_CLASSES)
    if quant.get("lm_head") is True or fmt.name in _HEAD_QUANTIZED:  # GPTQ flag; MLC quantize_final_fc
        applies.add("lm_head")
    applies -= ignored
    for cls in applies:
        formats[cls] = fmt
    notes: list[str] = []
    kept = [CLASS_LABELS[cls] for cls in _BASE_CLASSES if cls in ignored]
    if kept:
        notes.append(
            f"{', '.join(kept)} kept in {unquantized.name} by the config's ignore list"
            + (
                " (per-layer entries applied to the whole class)"
                if any(re.search(r"\.\d+\.", p) for p in patterns)
                else ""
            )
        )
    method = str(quant.get("quant_method", ""))
    if method == "exl2":
        head_bits = quant.get("head_bits", EXL2_DEFAULT_HEAD_BITS)
        head = float(head_bits) if isinstance(head_bits, (int, float)) else float(EXL2_DEFAULT_HEAD_BITS)
        formats["lm_head"] = _exl2_head(head)
        notes.append(f"EXL2 {fmt.bits:g} bits per weight, head {head:g} bits (config quantization_config)")
    return WeightPlan(formats=formats, origin=f"config quantization_config ({method})", notes=tuple(notes))


def compute_dtype(fmt: WeightFormat, gpu: GpuSpec) -> str:
    """The tensor-core dtype a GEMM with these weights runs in on `gpu` (a key of gpu.tflops).

    W4A16/AWQ/GPTQ/int8 weight-only run BF16 math; W8A8-FP8 runs FP8; NVFP4 W4A4 runs FP4 where
    the GPU has it; MXFP4 on Blackwell runs W4A8 in FP8 (TensorRT-LLM blog9), elsewhere BF16;
    GGUF kernels use INT8 dot products.
    """
    order = {
        "fp4": ("fp4", "fp8", "bf16", "fp16"),
        "mxfp4": ("fp8", "bf16", "fp16") if gpu.dense_tflops("fp4") > 0 else ("bf16", "fp16"),
        "fp8": ("fp8", "bf16", "fp16"),
        "int8": ("int8", "fp16"),
        "bf16": ("bf16", "fp16"),
        "fp16": ("fp16", "bf16"),
    }[fmt.math]
    for dtype in order:
        if gpu.dense_tflops(dtype) > 0:
            return dtype
    return "fp16"
