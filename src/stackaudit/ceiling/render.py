"""Text, Markdown, JSON and HTML (report.html_pages) renderings of a CeilingReport."""

from __future__ import annotations

import json

from stackaudit.ceiling.ladder import CeilingReport, Level
from stackaudit.ceiling.weights import CLASS_LABELS
from stackaudit.render.escape import md_cell, md_inline, md_table

_LABELS = {
    "bandwidth": "bandwidth",
    "bandwidth+allreduce": "bandwidth+allreduce",
    "overhead": "overhead (CUDA graphs)",
    "overhead-eager": "overhead-eager",
    "compute": "compute",
    "kv-loaded": "kv-loaded",
}
_BINDING_WORDS = {
    "bandwidth": "memory bandwidth",
    "allreduce": "all-reduce latency",
    "overhead": "per-kernel fixed overhead",
    "compute": "compute",
}


_PUBLISHED_SHOWN = 5


def _b(count: float) -> str:
    return f"{count / 1e9:.2f} B" if count >= 1e9 else f"{count / 1e6:.1f} M"


def _rate(value: float) -> str:
    return f"{value:,.1f}" if value < 1e5 else f"{value:,.0f}"


def _pct(value: float) -> str:
    return f"{value:.1f} %" if value < 10 else f"{value:.0f} %"


def _header_lines(report: CeilingReport) -> list[str]:
    arch = report.arch
    p = report.params
    lines = [
        f"model: {arch.name} ({arch.model_type}; {arch.describe()})",
        f"hardware: {report.gpus} x {report.gpu.name}, TP {report.tp}"
        + (f", PP {report.pp}" if report.pp > 1 else "")
        + (f", EP {report.ep}" if report.ep > 1 else "")
        + (f", {report.replicas} replicas" if report.replicas > 1 else "")
        + f"; memory {report.bandwidth_gbs:g} GB/s per GPU ({report.bandwidth_source}); "
        f"interconnect {report.allreduce.interconnect}"
        + (f"; all-reduce priced for {report.allreduce.path_words}" if report.allreduce.path else ""),
    ]
    if report.gpu_note:
        lines.append(f"gpu: {report.gpu_note}")
    lines += [
        f"weights: {report.weights.describe(report.present_classes())} [{report.weights.origin}]",
        f"KV cache: {report.kv_dtype}; the ceiling at context {report.context}"
        + (
            f", the kv-loaded line at {report.kv_context} tokens per stream"
            if report.kv_context is not None
            else " (--context N adds a kv-loaded line)"
        ),
        f"active parameters: {_b(p.active)} per token (embeddings not counted: one row is read per token; "
        f"lm_head counted: {_b(p.lm_head)}); total {_b(p.total)}",
        "  " + " · ".join(f"{CLASS_LABELS[cls]} {_b(v)}" for cls, v in p.by_class().items() if v > 0),
    ]
    return lines


def _measured_lines(level: Level, indent: str) -> list[str]:
    m = level.measured
    if m is None:
        return []
    pieces = ", ".join(f"{_pct(m.percent_of[c.name])} of {c.name}" for c in level.ceilings)
    if level.loaded is not None and "kv-loaded" in m.percent_of:
        pieces += f", {_pct(m.percent_of['kv-loaded'])} of kv-loaded"
    lines = [f"{indent}measured {m.tokens_per_s:g} tok/s = {pieces}"]
    if m.warning:
        lines.append(f"{indent}warning: {m.warning}")
    if m.levers:
        lines.append(f"{indent}what would move it most: {m.levers[0].text}")
        lines.extend(f"{indent}  then: {lever.text}" for lever in m.levers[1:3])
    if m.published:
        lines.append(f"{indent}published single-stream runs on this GPU (ceiling validation table):")
        lines.extend(f"{indent}  {run}" for run in m.published[:_PUBLISHED_SHOWN])
        if len(m.published) > _PUBLISHED_SHOWN:
            lines.append(f"{indent}  and {len(m.published) - _PUBLISHED_SHOWN} more (--format json lists them)")
    return lines


def render_text(report: CeilingReport) -> str:
    lines = [
        "stackaudit ceiling: decode throughput a stream could reach on this hardware",
        *_header_lines(report),
    ]
    for level in report.levels:
        bd = level.bytes_breakdown
        lines += [
            "",
            f"concurrency {level.concurrency}"
            + (f" ({level.batch_per_replica} per replica)" if report.replicas > 1 else ""),
            f"  bytes per GPU per step: {level.bytes_per_step_per_gpu / 1e9:.2f} GB = weights "
            f"{bd['weights_sharded'] / 1e9:.2f} GB sharded + {bd['weights_replicated'] / 1e9:.2f} GB replicated "
            f"+ KV {bd['kv_cache'] / 1e9:.2f} GB"
            + (f"; {level.experts_read_per_layer:.1f} experts read per layer" if report.arch.is_moe else ""),
            f"  {'ceiling':<24}{'tok/s per stream':>17}{'aggregate':>12}   cause",
        ]
        for c in level.ceilings:
            lines.append(
                f"  {_LABELS[c.name]:<24}{_rate(c.tokens_per_s):>17}{_rate(c.aggregate_tokens_per_s):>12}   {c.cause}"
            )
        if level.loaded is not None:
            c = level.loaded
            lines.append(
                f"  {_LABELS[c.name]:<24}{_rate(c.tokens_per_s):>17}{_rate(c.aggregate_tokens_per_s):>12}   {c.cause}"
            )
        lines.append(
            f"  binding: {_BINDING_WORDS[level.binding]} ({100 * level.binding_share:.0f} % of the step); "
            f"ceiling {_rate(level.tokens_per_s)} tok/s per stream, {_rate(level.aggregate_tokens_per_s)} aggregate"
        )
        lines += _measured_lines(level, "  ")
    if report.warnings:
        lines += ["", "warnings:"] + [f"  - {item}" for item in report.warnings]
    if report.assumptions:
        lines += ["", "assumptions:"] + [f"  - {item}" for item in report.assumptions]
    return "\n".join(lines) + "\n"


def render_markdown(report: CeilingReport) -> str:
    lines = ["# Decode-throughput ceiling", ""]
    lines += [f"- {md_inline(line)}" for line in _header_lines(report) if not line.startswith("  ")]
    for level in report.levels:
        bd = level.bytes_breakdown
        lines += [
            "",
            f"## Concurrency {level.concurrency}",
            "",
            f"Bytes per GPU per step: **{level.bytes_per_step_per_gpu / 1e9:.2f} GB** (weights "
            f"{bd['weights_sharded'] / 1e9:.2f} GB sharded, {bd['weights_replicated'] / 1e9:.2f} GB replicated, "
            f"KV {bd['kv_cache'] / 1e9:.2f} GB).",
            "",
        ]
        rows = [[_LABELS[c.name], _rate(c.tokens_per_s), _rate(c.aggregate_tokens_per_s), md_cell(c.cause)]
                for c in (*level.ceilings, *([level.loaded] if level.loaded is not None else []))]
        rows.append([
            "**ceiling**", f"**{_rate(level.tokens_per_s)}**", f"**{_rate(level.aggregate_tokens_per_s)}**",
            f"binding: {_BINDING_WORDS[level.binding]} ({100 * level.binding_share:.0f} % of the step)",
        ])
        lines += md_table(["ceiling", "tok/s per stream", "aggregate tok/s", "cause"], rows,
                          ["---", "---:", "---:", "---"])
        lines += [
            "",
            f"Ceiling: **{_rate(level.tokens_per_s)} tok/s per stream** "
            f"({_rate(level.aggregate_tokens_per_s)} aggregate); binding: **{_BINDING_WORDS[level.binding]}** "
            f"({100 * level.binding_share:.0f} % of the step).",
        ]
        measured = _measured_lines(level, "")
        if measured:
            lines += [""] + [f"- {md_inline(line)}" for line in measured]
    if report.warnings:
        lines += ["", "## Warnings", ""] + [f"- {md_inline(item)}" for item in report.warnings]
    if report.assumptions:
        lines += ["", "## Assumptions", ""] + [f"- {md_inline(item)}" for item in report.assumptions]
    return "\n".join(lines) + "\n"


def render_json(report: CeilingReport) -> str:
    return json.dumps(report.to_dict(), indent=2, allow_nan=False) + "\n"


def render(report: CeilingReport, fmt: str) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "html":
        from stackaudit.report.html_pages import ceiling_page

        return ceiling_page(report, _header_lines(report), render_text(report), _LABELS)
    if fmt == "text":
        return render_text(report)
    raise ValueError(f"ceiling: no renderer for format {fmt!r}")
