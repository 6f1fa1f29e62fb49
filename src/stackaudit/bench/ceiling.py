"""Measured vs ceiling per concurrency level (issue 4, last point; issue 5).

The ceiling of a level is `stackaudit ceiling`'s ladder at that concurrency: the cumulative
"overhead" rung (bandwidth + all-reduce + the per-layer launch floor with CUDA graphs) is *the*
ceiling; the bandwidth rung is given beside it. The measured per-stream rate
(`output_tokens_per_s_per_stream` = 1000 / mean TPOT) is expressed as a fraction of each.

Where the setup comes from: the `--ceiling-*` flags, else, for a server on this host (the same
locality test as the host fingerprint), the audit's `serving_model` and `nvidia` facts. The flags
are checked before any request is sent (`prepare`); the facts are read before measuring
(`resolve`); the levels are annotated after the run (`annotate`). Nothing here fails a run: a
ceiling that cannot be computed is `null` with a one-line reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stackaudit.errors import InputError, StackauditError, UsageError
from stackaudit.render.text import error_line

FACTS_DEADLINE_S = 8.0
# `--quantization` values of the serving engine that are also `--weights` formats (as ceiling_line).
_ENGINE_WEIGHTS = ("fp8", "int8", "nvfp4", "mxfp4")


@dataclass(frozen=True)
class CeilingFlags:
    """The `--ceiling-*` flags as given (None = not given)."""

    model: str | None = None
    gpu: str | None = None
    gpus: int | None = None
    tp: int | None = None
    weights: str | None = None
    context: int | None = None


@dataclass
class CeilingPlan:
    """The flags, with the model and GPU already loaded and checked (before any request)."""

    flags: CeilingFlags = field(default_factory=CeilingFlags)
    model_config: Any = None  # a ModelArch when --ceiling-model was given
    model_name: str | None = None
    gpu_spec: Any = None  # a GpuSpec when --ceiling-gpu was given
    gpu_note: str = ""


@dataclass
class CeilingSetup:
    """Everything `compute` needs, and where each value came from."""

    model_config: Any  # ModelArch or a config.json dict
    model_name: str
    gpu_spec: Any
    gpu_note: str
    gpus: int
    tp: int
    weights: str | None
    kv_dtype: str | None
    context: int
    context_source: str
    sources: dict[str, str]


def prepare(flags: CeilingFlags) -> CeilingPlan:
    """Check the flags and load what they name; UsageError / InputError (exit 2) on a bad one."""
    from stackaudit.ceiling import compute, load_model
    from stackaudit.gputable import UnknownGpuError, lookup

    for name, value in (("--ceiling-gpus", flags.gpus), ("--ceiling-tp", flags.tp)):
        if value is not None and value < 1:
            raise UsageError(f"{name} must be at least 1, got {value}")
    if flags.context is not None and flags.context < 0:
        raise UsageError(f"--ceiling-context must be 0 or more tokens, got {flags.context}")
    if flags.gpus is not None and flags.tp is not None and flags.tp > flags.gpus:
        raise UsageError(f"--ceiling-tp {flags.tp} is more than --ceiling-gpus {flags.gpus}")
    plan = CeilingPlan(flags)
    if flags.gpu is not None:
        try:
            match = lookup(flags.gpu)
        except UnknownGpuError as exc:
            raise UsageError(f"--ceiling-gpu: {exc} (stackaudit ceiling --list-gpus shows the table)") from None
        plan.gpu_spec, plan.gpu_note = match.spec, match.note
    if flags.model is not None:
        try:
            _, arch = load_model(flags.model)
        except StackauditError as exc:
            raise _same_kind(exc, f"--ceiling-model: {error_line(exc)}") from None
        except (OSError, ValueError) as exc:
            raise InputError(f"--ceiling-model {flags.model!r}: {exc}") from None
        plan.model_config, plan.model_name = arch, arch.name
    if flags.weights is not None:
        from stackaudit.ceiling.weights import parse_weights

        dtype = getattr(plan.model_config, "torch_dtype", None) or "bfloat16"
        try:
            parse_weights(flags.weights, dtype)
        except StackauditError as exc:
            raise _same_kind(exc, f"--ceiling-weights: {error_line(exc)}") from None
    if plan.model_config is not None and plan.gpu_spec is not None:
        # Both known: a dry run surfaces a contradictory layout (--ceiling-tp 3 on 32 heads) now.
        gpus = flags.gpus or flags.tp or 1
        try:
            compute(plan.model_config, plan.gpu_spec, gpus=gpus, tp=flags.tp, weights=flags.weights,
                    context=flags.context or 0, concurrencies=[1])
        except StackauditError as exc:
            raise UsageError(f"ceiling: {_bench_flags(error_line(exc))}") from None
    return plan


def _same_kind(exc: StackauditError, message: str) -> StackauditError:
    """An unreadable input stays an InputError; anything else is a usage error (both exit 2)."""
    return InputError(message) if isinstance(exc, InputError) else UsageError(message)


def _bench_flags(message: str) -> str:
    """`stackaudit ceiling`'s flag names in its messages, as `bench` spells them (--tp -> --ceiling-tp)."""
    return re.sub(r"(?<![\w-])--(tp|gpus|weights|context)\b", r"--ceiling-\1", message)


def default_context(input_tokens: int, output_tokens: int) -> tuple[int, str]:
    """The KV-cache length of a request's first decode step: its prompt. Every later step reads more, so
    the ceiling at the prompt length bounds every step's (a ceiling never below a measurement)."""
    return input_tokens, (
        f"the prompt, {input_tokens} tokens: the KV length of the first decode step (the {output_tokens} "
        "output tokens only lower later steps); --ceiling-context to set"
    )


FactsLoader = Callable[[], dict[str, Any]]


def collect_facts() -> dict[str, Any]:
    """The audit's `serving_model` and `nvidia` facts for this host (values or Missing)."""
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all
    from stackaudit.host.live import LiveHost

    load_all()
    names = ["serving_model", "nvidia"]
    collector = Collector(LiveHost(), FACTS_DEADLINE_S)
    collector.start(names)
    return collector.results(names)


def _why_missing(value: Any) -> str:
    reason = getattr(value, "reason", None)
    return str(reason) if reason else "not available"


def resolve(
    plan: CeilingPlan, url: str, input_tokens: int, output_tokens: int, facts_loader: FactsLoader | None = None,
) -> tuple[CeilingSetup | None, str]:
    """(setup, note): the setup to compute, or None with why not. Never raises."""
    try:
        return _resolve(plan, url, input_tokens, output_tokens, facts_loader or collect_facts)
    except Exception as exc:  # a ceiling must never lose the benchmark
        return None, f"ceiling: not computed ({type(exc).__name__}: {error_line(exc)})"


def _resolve(
    plan: CeilingPlan, url: str, input_tokens: int, output_tokens: int, facts_loader: FactsLoader,
) -> tuple[CeilingSetup | None, str]:
    flags = plan.flags
    sources: dict[str, str] = {}
    model_config, model_name = plan.model_config, plan.model_name
    spec, gpu_note = plan.gpu_spec, plan.gpu_note
    if model_config is not None:
        sources["model"] = "--ceiling-model"
    if spec is not None:
        sources["gpu"] = "--ceiling-gpu"
    served: Any = None
    nvidia: Any = None
    facts_note = ""
    wanted = model_config is None or spec is None or flags.tp is None or flags.gpus is None
    if wanted:
        from stackaudit.bench.server import is_local_url

        if is_local_url(url):
            from stackaudit.facts.nvidia import NvidiaGpus
            from stackaudit.facts.serving_model import ServingModel

            facts = facts_loader()
            served = facts.get("serving_model")
            nvidia = facts.get("nvidia")
            if not isinstance(served, ServingModel):
                facts_note = f"serving_model: {_why_missing(served)}"
                served = None
            if not isinstance(nvidia, NvidiaGpus):
                facts_note += ("; " if facts_note else "") + f"nvidia: {_why_missing(nvidia)}"
                nvidia = None
        else:
            facts_note = "the server is not on this host, so its GPUs and model are not read from the audit"
    if model_config is None and served is not None:
        model_config, model_name = served.config, served.model
        sources["model"] = f"audit fact serving_model ({served.engine}: {served.config_path})"
    if spec is None and nvidia is not None:
        found = next((g for g in nvidia.gpus if g.spec is not None), None)
        if found is not None:
            spec = found.spec
            gpu_note = f"detected: {found.name}"
            sources["gpu"] = "audit fact nvidia"
        elif nvidia.gpus:
            facts_note += ("; " if facts_note else "") + f"nvidia: {nvidia.gpus[0].name} is not in the GPU table"
        else:
            facts_note += ("; " if facts_note else "") + "nvidia: no NVIDIA GPU on this host"
    missing = [flag for flag, value in (("--ceiling-model", model_config), ("--ceiling-gpu", spec)) if value is None]
    if missing:
        why = f"give {' and '.join(missing)}"
        if facts_note:
            why = f"{facts_note}; {why}"
        return None, f"ceiling: not computed ({why})"

    tp = flags.tp
    if tp is not None:
        sources["tp"] = "--ceiling-tp"
    elif served is not None:
        tp, sources["tp"] = served.tp, "audit fact serving_model"
    gpus = flags.gpus
    if gpus is not None:
        sources["gpus"] = "--ceiling-gpus"
    else:
        gpus = tp or 1
        sources["gpus"] = "the TP size" if tp else "default (1)"
    if tp is None:
        tp, sources["tp"] = gpus, "all GPUs"
    weights = flags.weights
    kv_dtype = None
    if weights is not None:
        sources["weights"] = "--ceiling-weights"
    elif served is not None and sources["model"].startswith("audit") and served.quantization in _ENGINE_WEIGHTS:
        weights, sources["weights"] = served.quantization, "the engine's --quantization"
    else:
        sources["weights"] = "the model config (quantization_config, else torch_dtype)"
    if served is not None and served.kv_cache_dtype not in (None, "auto"):
        kv_dtype, sources["kv_dtype"] = served.kv_cache_dtype, "the engine's --kv-cache-dtype"
    if flags.context is not None:
        context, context_source = flags.context, "--ceiling-context"
    else:
        context, context_source = default_context(input_tokens, output_tokens)
    return CeilingSetup(
        model_config=model_config, model_name=str(model_name or getattr(model_config, "name", "model")),
        gpu_spec=spec, gpu_note=gpu_note, gpus=gpus, tp=tp, weights=weights, kv_dtype=kv_dtype,
        context=context, context_source=context_source, sources=sources,
    ), ""


def _level_concurrency(level: Mapping[str, Any]) -> tuple[int | None, str]:
    """The concurrency to compute the ceiling at: the level's own, else (open loop) the achieved one."""
    if level.get("concurrency") is not None:
        return int(level["concurrency"]), "target"
    achieved = level.get("achieved_concurrency")
    if isinstance(achieved, (int, float)) and achieved > 0:
        return max(1, round(achieved)), "achieved"
    return None, ""


def annotate(result: dict[str, Any], setup: CeilingSetup | None, note: str) -> None:
    """Add `ceiling` to every level (null when not computed) and a top-level `ceiling` block."""
    levels = result.get("levels") or []
    for level in levels:
        level["ceiling"] = None
    if setup is None:
        result["ceiling"] = {"computed": False, "note": note}
        return
    from stackaudit.ceiling import compute

    wanted = {lv_id: _level_concurrency(level) for lv_id, level in enumerate(levels)}
    concurrencies = sorted({c for c, _ in wanted.values() if c is not None})
    if not concurrencies:
        result["ceiling"] = {"computed": False, "note": "ceiling: not computed (no level with a concurrency)"}
        return
    try:
        report = compute(
            setup.model_config, setup.gpu_spec, gpus=setup.gpus, tp=setup.tp, weights=setup.weights,
            kv_dtype=setup.kv_dtype, context=setup.context, concurrencies=concurrencies, gpu_note=setup.gpu_note,
        )
    except (StackauditError, ValueError, KeyError, ZeroDivisionError) as exc:
        result["ceiling"] = {"computed": False, "note": f"ceiling: not computed ({error_line(exc)})"}
        return
    by_concurrency = {lv.concurrency: lv for lv in report.levels}
    for lv_id, level in enumerate(levels):
        concurrency, how = wanted[lv_id]
        ladder = by_concurrency.get(concurrency) if concurrency is not None else None
        if ladder is None:
            continue
        ceiling = ladder.ceiling("overhead").tokens_per_s
        bandwidth = ladder.ceiling("bandwidth").tokens_per_s
        measured = level.get("output_tokens_per_s_per_stream")
        measured = float(measured) if isinstance(measured, (int, float)) and measured > 0 else None
        level["ceiling"] = {
            "tokens_per_s_per_stream": ceiling,
            "bandwidth_tokens_per_s": bandwidth,
            "binding": ladder.binding,
            "efficiency": measured / ceiling if measured is not None and ceiling > 0 else None,
            "bandwidth_efficiency": measured / bandwidth if measured is not None and bandwidth > 0 else None,
            "concurrency": concurrency,
            "concurrency_source": how,
        }
    document = report.to_dict()
    hardware = document["hardware"]
    formats = document["weights"]
    # The bulk of the bytes: router and lm_head stay unquantized in most formats, so are not named.
    bulk = {cls: fmt for cls, fmt in formats.items() if cls not in ("router", "lm_head")}
    distinct = sorted(set(bulk.values()))
    weights = setup.weights or (distinct[0] if len(distinct) == 1 else ",".join(f"{c}={f}" for c, f in bulk.items()))
    result["ceiling"] = {
        "computed": True,
        "note": "",
        "rung": "overhead (bandwidth + all-reduce + per-layer launch floor with CUDA graphs)",
        "model": setup.model_name,
        "gpu": setup.gpu_spec.name,
        "gpu_note": setup.gpu_note,
        "gpus": report.gpus,
        "tp": report.tp,
        "weights": weights,
        "weights_by_class": formats,
        "weights_origin": document["weights_origin"],
        "kv_dtype": report.kv_dtype,
        "context": report.context,
        "context_source": setup.context_source,
        "memory_bandwidth_gbs": hardware["memory_bandwidth_gbs"],
        "interconnect": hardware["interconnect"],
        "sources": setup.sources,
    }


def level_line(level: Mapping[str, Any]) -> str | None:
    """'measured 38.2 tok/s per stream = 41 % of the 93 tok/s ceiling (binding: bandwidth); …'."""
    block = level.get("ceiling")
    if not block:
        return None
    at = ""
    if block.get("concurrency_source", "target") != "target":
        at = f" at the achieved concurrency {block['concurrency']} (open loop)"
    ceiling, bandwidth = block["tokens_per_s_per_stream"], block["bandwidth_tokens_per_s"]
    approx = "~" if level.get("approximate_tokens") else ""
    measured = level.get("output_tokens_per_s_per_stream")
    if block.get("efficiency") is None or not measured:
        return (f"ceiling{at}: {ceiling:,.0f} tok/s per stream (binding: {block['binding']}; bandwidth alone "
                f"{bandwidth:,.0f}); no measured per-stream rate")
    text = (
        f"measured {approx}{measured:,.1f} tok/s per stream = {block['efficiency']:.0%} of the "
        f"{ceiling:,.0f} tok/s ceiling{at} (binding: {block['binding']}); "
        f"{block['bandwidth_efficiency']:.0%} of bandwidth alone ({bandwidth:,.0f} tok/s)"
    )
    if block["efficiency"] > 1.0:
        text += " — ABOVE the ceiling: the ceiling's model, GPUs or weights do not match this server"
    return text.replace("%", " %")


def header_line(result: Mapping[str, Any]) -> str | None:
    """The ceiling setup, or why there is none; None for a report made before ceilings existed."""
    block = result.get("ceiling")
    if not isinstance(block, Mapping):
        return None
    if not block.get("computed"):
        return str(block.get("note") or "ceiling: not computed")
    sources = block.get("sources") or {}
    origin = "flags" if all(str(v).startswith("--") for k, v in sources.items() if k in ("model", "gpu")) else (
        "audit facts" if all(str(v).startswith("audit") for k, v in sources.items() if k in ("model", "gpu"))
        else "flags and audit facts"
    )
    return (
        f"ceiling: {block['model']} on {block['gpus']}× {block['gpu']}, TP {block['tp']}, weights "
        f"{block['weights']}, KV {block['kv_dtype']}, context {block['context']} ({block['context_source']}); "
        f"from {origin}; ceiling = bandwidth + all-reduce + launch floor with CUDA graphs (`stackaudit ceiling`)"
    )
