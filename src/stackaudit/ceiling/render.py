"""A CeilingReport as a document (render.document), drawn as text, Markdown, HTML and JSON; the HTML page adds
the ladder charts (report.charts) as pictures."""

from __future__ import annotations

from stackaudit.ceiling.ladder import CeilingReport, Level
from stackaudit.ceiling.weights import CLASS_LABELS
from stackaudit.render.document import Block, Document, Notes, Paragraph, Section, Table, draw
from stackaudit.report.charts import Bar, Series, charts, ladder_chart, line_chart

# A ceiling's name as shown, where it needs words beside it.
_LABELS = {"overhead": "overhead (CUDA graphs)"}
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


def _measured(level: Level) -> list[Block]:
    """The measured rate against each ceiling, then its warning, what would move it and the published runs."""
    m = level.measured
    if m is None:
        return []
    pieces = ", ".join(f"{_pct(m.percent_of[c.name])} of {c.name}" for c in level.ceilings)
    if level.loaded is not None and "kv-loaded" in m.percent_of:
        pieces += f", {_pct(m.percent_of['kv-loaded'])} of kv-loaded"
    notes = [f"warning: {m.warning}"] if m.warning else []
    if m.levers:
        notes.append(f"what would move it most: {m.levers[0].text}")
        notes.extend(f"then: {lever.text}" for lever in m.levers[1:3])
    if m.published:
        notes.append("published single-stream runs on this GPU (ceiling validation table):")
        notes.extend(str(run) for run in m.published[:_PUBLISHED_SHOWN])
        if len(m.published) > _PUBLISHED_SHOWN:
            notes.append(f"and {len(m.published) - _PUBLISHED_SHOWN} more (--format json lists them)")
    return [Paragraph(f"measured {m.tokens_per_s:g} tok/s = {pieces}"), *([Notes(tuple(notes))] if notes else [])]


def _level(report: CeilingReport, level: Level) -> Section:
    bd = level.bytes_breakdown
    rows = [(_LABELS.get(c.name, c.name), _rate(c.tokens_per_s), _rate(c.aggregate_tokens_per_s), c.cause)
            for c in (*level.ceilings, *([level.loaded] if level.loaded is not None else []))]
    binding = f"binding: {_BINDING_WORDS[level.binding]} ({100 * level.binding_share:.0f} % of the step)"
    rows.append(("ceiling", _rate(level.tokens_per_s), _rate(level.aggregate_tokens_per_s), binding))
    return Section(
        f"Concurrency {level.concurrency}" + (f" ({level.batch_per_replica} per replica)" if report.replicas > 1 else ""),
        (Paragraph(f"bytes per GPU per step: {level.bytes_per_step_per_gpu / 1e9:.2f} GB = weights "
                   f"{bd['weights_sharded'] / 1e9:.2f} GB sharded + {bd['weights_replicated'] / 1e9:.2f} GB replicated "
                   f"+ KV {bd['kv_cache'] / 1e9:.2f} GB"
                   + (f"; {level.experts_read_per_layer:.1f} experts read per layer" if report.arch.is_moe else "")),
         Table(("ceiling", "tok/s per stream", "aggregate tok/s", "cause"), tuple(rows), "lrrl"),
         Paragraph(f"{binding}; ceiling {_rate(level.tokens_per_s)} tok/s per stream, "
                   f"{_rate(level.aggregate_tokens_per_s)} aggregate"),
         *_measured(level)))


def document(report: CeilingReport) -> Document:
    """The report's document: the model and hardware, each concurrency's ladder, the warnings and assumptions."""
    sections = [Section("", tuple(Paragraph(line) for line in _header_lines(report))),
                *charts("Ladder", _charts(report)), *(_level(report, level) for level in report.levels)]
    sections += [Section(heading, (Notes(tuple(items)),))
                 for heading, items in (("Warnings", report.warnings), ("Assumptions", report.assumptions)) if items]
    return Document("ceiling", "stackaudit ceiling: decode throughput a stream could reach on this hardware", "",
                    tuple(sections), report.to_dict())


def render(report: CeilingReport, fmt: str) -> str:
    return draw(document(report), fmt)


def _charts(report: CeilingReport) -> list[str]:
    """Per level, the ladder of ceilings (tokens/s per stream), the binding one highlighted, the measured
    point marked; with several levels, the ceiling against concurrency."""
    out = []
    for level in report.levels:
        ceilings = [*level.ceilings, *([level.loaded] if level.loaded is not None else [])]
        binding = min(ceilings, key=lambda c: abs(c.tokens_per_s - level.tokens_per_s)) if ceilings else None
        bars = [Bar(_LABELS.get(c.name, c.name), c.tokens_per_s, binding=c is binding) for c in ceilings]
        measured = level.measured.tokens_per_s if level.measured is not None else None
        out.append(ladder_chart(f"chart-ladder-c{level.concurrency}", f"Ceiling ladder at concurrency {level.concurrency}",
                                "tokens/s per stream", bars, measured=measured))
    if len(report.levels) > 1:
        points = tuple((float(lv.concurrency), lv.tokens_per_s) for lv in report.levels)
        agg = tuple((float(lv.concurrency), lv.aggregate_tokens_per_s) for lv in report.levels)
        out.append(line_chart("chart-ceiling-per-stream", "Ceiling per stream vs concurrency", "concurrency",
                              "tokens/s per stream", [Series("ceiling per stream", points)]))
        out.append(line_chart("chart-ceiling-aggregate", "Aggregate ceiling vs concurrency", "concurrency",
                              "tokens/s", [Series("aggregate ceiling", agg)]))
    return out
