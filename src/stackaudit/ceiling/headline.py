"""The audit headline's ceiling: what the served model could reach on the source's GPUs (issue 4), priced
by this package from the facts the audit collected.

The audit command hands `ceiling_fields` to the engine (`AuditOptions.ceiling`); the engine imports no product.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from stackaudit.ceiling.interconnect import topology_class
from stackaudit.ceiling.ladder import compute
from stackaudit.ceiling.modelconfig import load_model
from stackaudit.errors import InputError, StackauditError


@dataclass(frozen=True)
class HeadlineCeiling:
    """The ceiling line and its figure, or why there is none (`missing`); `layout` states the weight formats
    the ceiling priced and any layout it assumed."""

    line: str | None
    tokens_per_s: float | None
    missing: str = ""
    # The whole of why (each source of the served model and what it lacked), for the JSON report: `missing` is short.
    missing_detail: str = ""
    layout: str = ""
    ladder: tuple[tuple[str, float], ...] = ()  # the rungs up to the headline's, (name, tokens/s per stream)


@dataclass(frozen=True)
class ModelChoice:
    """`audit --model PATH|ID`: the model the ceiling prices instead of (or where the source shows no) served
    model, and where its config was read."""

    name: str
    config: dict[str, Any]
    source: str
    weights: str | None = None  # a format the name gives (a quantised re-upload the catalogue answered)


# `--quantization` values of the engines and the `--weights` format each stands for (vLLM and SGLang names).
_ENGINE_WEIGHTS = {"fp8": "fp8", "int8": "int8", "nvfp4": "nvfp4", "mxfp4": "mxfp4", "modelopt_fp4": "nvfp4",
                   "awq": "int4-awq-g128", "awq_marlin": "int4-awq-g128", "gptq": "int4-gptq-g128",
                   "gptq_marlin": "int4-gptq-g128"}


def resolve_model(model: str) -> ModelChoice:
    """`--model PATH|ID`: a config.json, a model directory, an id in this machine's Hugging Face cache (never
    a download), else stackaudit's catalogue. InputError (one line) when none of them holds it."""
    from stackaudit.models import lookup

    try:
        raw, arch = load_model(model)
        return ModelChoice(arch.name, raw, f"--model {model}")
    except InputError as exc:
        found = lookup(model)
        if found is None:
            raise InputError(f"{exc}; nor is it in stackaudit's catalogue (`stackaudit ceiling --help`)") from None
        return ModelChoice(found.id, found.config, f"stackaudit's catalogue ({found.source})", found.weights)


def _tp_of(facts: dict[str, Any], gpu_count: int) -> tuple[int, str]:
    """TP of the served engine for `--model`: the served model's, the parallelism fact's, else every GPU."""
    from stackaudit.facts.parallelism import Parallelism
    from stackaudit.facts.serving_model import ServingModel

    served = facts.get("serving_model")
    if isinstance(served, ServingModel):
        return served.tp, ""
    par = facts.get("parallelism")
    if isinstance(par, Parallelism) and par.engines and par.engines[0].tp:
        return int(par.engines[0].tp), ""
    return gpu_count, f"TP {gpu_count} assumed (all GPUs: the source shows no engine's TP)"


def _short_reason(detail: str) -> str:
    """Why no served model, in one clause: what the sources the paste does show said of the model (`the server log
    names no model`), without the sources it does not show (`serving_processes: not in the source (/proc)`, each
    listed in the engine's terms: corpus 1395, 1397); the full list stays in `ceiling_missing_detail`."""
    from stackaudit.facts.registry import load_all

    spec = load_all().get("serving_model")
    titles = spec.titles if spec is not None else ()
    said = []
    for part in detail.split("; "):
        title, _, reason = part.partition(": ")
        # A reason that is a fact the source lacks (`docker_containers: …`, `serving_processes: …`) names inputs,
        # not what a shown source said of the model.
        if title not in titles or reason.startswith(("not in the source", "not shown")) \
                or re.match(r"[a-z_]+: ", reason):
            continue
        said.append(reason)
    # The best source's words alone where all of them would make more than a clause.
    short = "; ".join(said) if len("; ".join(said)) <= 160 else said[0] if said else ""
    return short if short and len(short) <= 200 else "the source shows no served model"


# The ladder's rungs the report shows, each one cumulative; the last is the headline's figure.
LADDER_RUNGS = ("bandwidth", "bandwidth+allreduce", "overhead")


def headline_ceiling(facts: dict[str, Any], choice: ModelChoice | None = None,
                     weights: str | None = None) -> HeadlineCeiling:
    """The served model's single-stream decode ceiling on the source's GPUs, or the reason it is unknown.
    `choice` (`--model`) replaces the served model; `weights` (`--weights`) its weight formats."""
    from stackaudit.facts.nvidia import NvidiaGpus
    from stackaudit.facts.serving_model import ServingModel

    served = facts.get("serving_model")
    gpus = facts.get("nvidia")
    if choice is None and not isinstance(served, ServingModel):
        detail = getattr(served, "reason", "") or ""
        return HeadlineCeiling(None, None, f"{_short_reason(detail)} (give `--model MODEL`)", missing_detail=detail)
    if isinstance(gpus, NvidiaGpus) and not gpus.gpus:
        return HeadlineCeiling(None, None, "the source shows no NVIDIA GPU")
    if not isinstance(gpus, NvidiaGpus):
        # Not read is not absent: an engine log's rate was made on a GPU the source does not name (corpus 1403).
        return HeadlineCeiling(None, None, "the source does not name the GPU (give `stackaudit ceiling --gpu GPU`)")
    spec = next((g.spec for g in gpus.gpus if g.spec is not None), None)
    if spec is None:
        return HeadlineCeiling(None, None, "the GPU model is not in stackaudit's GPU table")

    notes: list[str] = []
    kv_dtype: str | None = None
    if choice is not None:
        name, config, tp = choice.name, choice.config, _tp_of(facts, len(gpus.gpus))[0]
        notes += [n for n in (_tp_of(facts, len(gpus.gpus))[1],) if n]
        fmt = weights or choice.weights
    else:
        assert isinstance(served, ServingModel)
        name, config, tp = served.model, served.config, served.tp
        fmt = weights or _ENGINE_WEIGHTS.get((served.quantization or "").lower()) or served.weights
        kv_dtype = served.kv_cache_dtype if served.kv_cache_dtype not in (None, "auto") else None
        notes += [n for n in (served.note,) if n]
    tp = max(1, tp)  # the engine's TP, even where the source now shows fewer GPUs (one lost)
    path = _topology_class(facts, tp)
    try:
        report = compute(config, spec, gpus=tp, tp=tp, weights=fmt, kv_dtype=kv_dtype, concurrencies=[1],
                         topology=path)
    except (StackauditError, ValueError, KeyError, ZeroDivisionError) as exc:
        return HeadlineCeiling(None, None, f"the ceiling model cannot price {name}: {exc}")
    level = report.levels[0]
    # The "overhead" rung is cumulative: bandwidth + all-reduce + per-layer launch floor with CUDA graphs.
    rung = level.ceiling("overhead")
    line = (f"~{rung.tokens_per_s:.0f} tok/s per stream at concurrency 1 (binding: {level.binding}) for "
            f"{name} on {tp}× {spec.name}, TP {tp}; `stackaudit ceiling` for the ladder")
    if report.allreduce.path:
        notes.append(f"all-reduce priced for {report.allreduce.path_words}, {report.allreduce.latency_us:g} us each")
    layout = "; ".join([f"weights: {report.weights.describe(report.present_classes())} ({report.weights.origin})",
                        *report.weights.notes, *notes])
    ladder = tuple((name, level.ceiling(name).tokens_per_s) for name in LADDER_RUNGS)
    return HeadlineCeiling(line, rung.tokens_per_s, layout=layout, ladder=ladder)


def _topology_class(facts: dict[str, Any], tp: int) -> str | None:
    """The class of the path the TP group's all-reduce crosses, from the topology the audit read; None
    when it shows no pair of the group's GPUs."""
    from stackaudit.facts.machine_topology import MachineTopology

    topology = facts.get("machine_topology")
    if not isinstance(topology, MachineTopology) or tp < 2:
        return None
    return topology_class(topology.group_path(tp))


def ceiling_fields(facts: dict[str, Any], choice: ModelChoice | None = None,
                   weights: str | None = None) -> dict[str, Any]:
    """The report's `host` keys: `ceiling` (the line or null), and `ceiling_tok_s`, `ceiling_layout` (the
    weight formats priced) and `ceiling_ladder` (the rungs up to the figure) when there is one or `ceiling_missing` (why not) when there is none — what a
    measured rate compares with."""
    ceiling = headline_ceiling(facts, choice, weights)
    if ceiling.line is None:
        return {"ceiling": None, "ceiling_missing": ceiling.missing,
                **({"ceiling_missing_detail": ceiling.missing_detail} if ceiling.missing_detail else {})}
    return {"ceiling": ceiling.line, "ceiling_tok_s": round(float(ceiling.tokens_per_s or 0.0), 2),
            "ceiling_layout": ceiling.layout,
            "ceiling_ladder": [{"name": name, "tok_s": round(value, 2)} for name, value in ceiling.ladder]}
