"""A bench run, the history list and a comparison, each as a document (render.document) drawn as text, Markdown,
HTML and JSON; the HTML page adds the charts (bench/charts.py) as pictures."""

from __future__ import annotations

import math
from typing import Any

from stackaudit.bench.ceiling import header_line
from stackaudit.bench.ceiling import level_line as ceiling_level_line
from stackaudit.bench.metrics import UNKNOWN
from stackaudit.render.document import Block, Code, Document, Finding, Notes, Paragraph, Section, Table, draw
from stackaudit.report.charts import charts


def _num(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _dist(block: dict[str, Any] | None, digits: int = 1) -> str:
    block = block or {}
    return "/".join(_num(block.get(k), digits) for k in ("mean", "p50", "p90", "p99"))


def _level_name(level: dict[str, Any]) -> str:
    if level.get("concurrency") is not None:
        return f"c={level['concurrency']}"
    return f"rate={level['request_rate']:g}/s"


def _ci(block: dict[str, Any] | None, digits: int = 1) -> str:
    block = block or {}
    if block.get("mean") is None:
        return "-"
    text = _num(block["mean"], digits)
    if block.get("ci95_half_width") is not None:
        text += f" ± {_num(block['ci95_half_width'], digits)}"
    if block.get("cv") is not None:
        text += f" (CV {block['cv']:.1%})"
    return text


def _asked_lengths(config: dict[str, Any]) -> str:
    if not config.get("dataset"):
        return (
            f"input {config.get('input_tokens')} tokens (sized by {config.get('prompt_tokens_source')}) · "
            f"output {config.get('output_tokens')} tokens"
        )
    output = f"{config.get('output_tokens')} tokens" if config.get("output_tokens_given") else "from the dataset"
    return f"input from the dataset (counted by {config.get('prompt_tokens_source')}) · output {output}"


def _header_lines(result: dict[str, Any]) -> list[str]:
    server = result.get("server", {})
    config = result.get("config", {})
    warmup = result.get("warmup", {})
    version = f" {server['server_version']}" if server.get("server_version") else ""
    run = f" · run {result['run_id']}" if result.get("run_id") else ""
    lines = [
        f"stackaudit bench · {server.get('url')} · model {server.get('model_used')} "
        f"({server.get('server_type', 'unknown')}{version}){run}",
        f"endpoint {config.get('endpoint')} · {_asked_lengths(config)} · "
        f"EOS: {config.get('eos_suppression')} · seed {config.get('seed')} · temperature {config.get('temperature')} · "
        f"repeats {config.get('repeats')} in order {', '.join(config.get('order', []))}",
    ]
    partial = result.get("partial")
    if partial:
        lines.append(
            f"PARTIAL: {partial.get('reason')}; kept {', '.join(partial.get('levels_kept') or [])}; "
            f"not run: {', '.join(partial.get('not_run') or []) or '-'}"
        )
    if warmup.get("mode") == "off":
        lines.append("warm-up: off")
    else:
        rounds = warmup.get("rounds_tpot_ms_p50") or []
        trail = " → ".join(f"{v:.2f}" for v in rounds)
        state = {True: "converged", False: "did not converge", None: "fixed"}[warmup.get("converged")]
        lines.append(f"warm-up: {warmup.get('requests')} requests, {state} (TPOT p50 per round, ms: {trail or '-'})")
    client = result.get("client") or {}
    recounted = any(source != "usage" for level in result.get("levels", []) for source in level.get("token_source") or [])
    if client.get("output_token_counter") and recounted:
        lines.append(f"output tokens without usage re-counted by: {client['output_token_counter']}")
    lines.extend(_workload_lines(result))
    host = result.get("host") or {}
    lines.append(f"host fingerprint: {host.get('source')}")
    ceiling_header = header_line(result)
    if ceiling_header:
        lines.append(ceiling_header)
    return lines


def _lengths(block: dict[str, Any] | None) -> str:
    block = block or {}
    if block.get("mean") is None:
        return "-"
    return (
        f"mean {_num(block['mean'], 0)}, p50 {_num(block.get('p50'), 0)}, p99 {_num(block.get('p99'), 0)} "
        f"({_num(block.get('min'), 0)}–{_num(block.get('max'), 0)})"
    )


def _workload_lines(result: dict[str, Any]) -> list[str]:
    workload = result.get("workload")
    if not workload:
        return []
    lines = [f"workload: {workload.get('mode')}"]
    if (workload.get("input_tokens") or {}).get("mean") is None and (workload.get("output_tokens") or {}).get("mean") is None:
        return lines
    lines.append(
        f"lengths (tokens): input {_lengths(workload.get('input_tokens'))}; "
        f"output {_lengths(workload.get('output_tokens'))}; output asked {_lengths(workload.get('output_tokens_asked'))} "
        f"(from {workload.get('output_lengths_from')})"
    )
    return lines


def _custom_percentiles(result: dict[str, Any]) -> bool:
    asked = (result.get("config") or {}).get("percentiles")
    return bool(asked) and [float(q) for q in asked or []] != [50.0, 90.0, 99.0]


def _percentile_note(level: dict[str, Any]) -> str | None:
    blocks = level.get("percentiles") or {}
    parts = []
    for name, label in (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"), ("itl_ms", "ITL"), ("e2e_ms", "E2E")):
        block = blocks.get(name) or {}
        if block:
            parts.append(f"{label} " + ", ".join(f"{key} {_num(value, 2)}" for key, value in block.items()))
    return "percentiles (ms): " + "; ".join(parts) if parts else None


def _goodput_note(level: dict[str, Any]) -> str | None:
    goodput = level.get("goodput")
    if not goodput:
        return None
    objectives = ", ".join(f"{name} ≤ {limit:g} ms" for name, limit in goodput["objectives_ms"].items())
    share = "-" if goodput.get("share") is None else f"{goodput['share']:.1%}"
    return (
        f"goodput ({objectives}): {goodput['good']} of {goodput['requests']} requests ({share}); "
        f"{_num(goodput['output_tokens_per_s'])} tok/s, {_num(goodput['requests_per_s'], 2)} req/s"
    )


_COLUMNS = (
    "level", "out tok/s", "tok/s/stream", "req/s", "TTFT ms", "TPOT ms", "ITL ms", "E2E ms", "req", "err", "valid",
)


def _tokens_unknown(level: dict[str, Any]) -> bool:
    return (level.get("tokens_per_chunk") or {}).get("source") == UNKNOWN


def _level_row(level: dict[str, Any]) -> list[str]:
    approx = "~" if level.get("approximate_tokens") else ""
    unknown = _tokens_unknown(level)
    return [
        _level_name(level),
        "unknown" if unknown else approx + _num(level.get("output_tokens_per_s")),
        "unknown" if unknown else approx + _num(level.get("output_tokens_per_s_per_stream")),
        _num(level.get("requests_per_s"), 2),
        _dist(level.get("ttft_ms")),
        "unknown" if unknown else _dist(level.get("tpot_ms"), 2),
        _dist(level.get("itl_ms"), 2),
        _dist(level.get("e2e_ms")),
        str(level.get("requests")),
        str(level.get("errors")),
        "yes" if level.get("valid") else "NO",
    ]


def _level_notes(level: dict[str, Any], percentiles: bool = False) -> list[str]:
    notes = []
    goodput = _goodput_note(level)
    if goodput:
        notes.append(goodput)
    if percentiles:
        note = _percentile_note(level)
        if note:
            notes.append(note)
    ceiling = ceiling_level_line(level)
    if ceiling:
        notes.append(ceiling)
    repeats = level.get("repeats") or {}
    if repeats.get("n", 0) > 1:
        notes.append(
            f"repeats: out tok/s {_ci(repeats.get('output_tokens_per_s'))}; TPOT ms {_ci(repeats.get('tpot_ms'), 2)} "
            "(mean ± 95 % CI)"
        )
    per_chunk = level.get("tokens_per_chunk") or {}
    if _tokens_unknown(level):
        notes.append(f"{UNKNOWN}: TPOT and throughput not measured (ITL and TTFT are per chunk and stand)")
    elif per_chunk.get("mean") is not None:
        notes.append(
            f"tokens per chunk: mean {per_chunk['mean']:.2f}, p90 {per_chunk['p90']:.2f}, max {per_chunk['max']:.0f} "
            f"({per_chunk.get('source')}); token source: {', '.join(level.get('token_source') or []) or '-'}"
        )
    if level.get("achieved_concurrency") is not None:
        notes.append(
            f"achieved concurrency {level['achieved_concurrency']:.1f}; send lag p99 {_num(level.get('send_lag_ms_p99'), 2)} ms; "
            f"event-loop lag p99 {_num(level.get('loop_lag_ms_p99'), 2)} ms"
        )
    client = level.get("client") or {}
    if client.get("cpu_share_max") is not None:
        wait = client.get("cpu_wait_ms")
        per_read = client.get("events_per_read")
        notes.append(
            f"client: up to {client['cpu_share_max']:.0%} of a core; waited {_num(wait, 0)} ms for a CPU; "
            f"{_num(per_read, 2)} SSE events per read"
        )
    notes.extend(f"INVALID: {reason}" for reason in level.get("invalid_reasons", []))
    notes.extend(f"flag: {flag}" for flag in level.get("flags", []))
    notes.extend(f"warning: {warning}" for warning in level.get("warnings", []))
    for reason, count in (level.get("error_reasons") or {}).items():
        notes.append(f"error ×{count}: {reason}")
    return notes


# Markdown: two narrow tables that GitHub shows whole (at most 6 columns each).
_THROUGHPUT_COLUMNS = ("level", "out tok/s", "tok/s per stream", "req/s", "errors", "valid")
_LATENCY_COLUMNS = ("level", "TTFT", "TPOT", "ITL", "E2E")


def _throughput_row(level: dict[str, Any]) -> tuple[str, ...]:
    row = _level_row(level)
    return (row[0], row[1], row[2], row[3], f"{level.get('errors')} of {level.get('requests')}", row[10])


def _p50_p99(block: dict[str, Any] | None, digits: int) -> str:
    block = block or {}
    if block.get("p50") is None:
        return "-"
    return f"{_num(block['p50'], digits)} / {_num(block.get('p99'), digits)}"


def _latency_row(level: dict[str, Any]) -> tuple[str, ...]:
    return (
        _level_name(level),
        _p50_p99(level.get("ttft_ms"), 1),
        "unknown" if _tokens_unknown(level) else _p50_p99(level.get("tpot_ms"), 2),
        _p50_p99(level.get("itl_ms"), 2),
        _p50_p99(level.get("e2e_ms"), 1),
    )


def _cross_check(result: dict[str, Any]) -> str | None:
    """The client's output tokens against the server's counters, or why they could not be compared."""
    cross = result.get("token_cross_check")
    if cross:
        state = "agree" if cross["agree"] else "DISAGREE"
        return (f"token cross-check: client {cross['client_output_tokens']} vs server {cross['server_output_tokens']:.0f} "
                f"({cross['server_metric']}): {state}")
    if not (result.get("server") or {}).get("metrics_before_after"):
        return "token cross-check: not possible (no Prometheus counters on the server)"
    return None


# Mermaid's xychart grammar (packages/mermaid/src/diagrams/xychart/parser/xychart.jison): a number is
# `[+-]?(\d+(\.\d+)?|\.\d+)` (no exponent, no thousands separator), a string is `"` anything but `"` `"`.
def _mermaid_number(value: float) -> str:
    return f"{value:.1f}"


def throughput_chart(levels: list[dict[str, Any]]) -> Code | None:
    """An `xychart-beta` block of output throughput per concurrency level (GitHub draws Mermaid inline),
    for a run of two or more concurrency levels with a throughput each; None otherwise. The levels are
    categories, evenly spaced, so 1, 2, 4, 8 read as a doubling per step."""
    points: dict[float, float] = {}
    for level in levels:
        concurrency, rate = level.get("concurrency"), level.get("output_tokens_per_s")
        if concurrency is None:
            return None  # a request-rate run: throughput vs rate is another chart
        if isinstance(rate, (int, float)) and math.isfinite(rate) and rate >= 0:
            points[float(concurrency)] = float(rate)
    if len(points) < 2:
        return None
    ordered = sorted(points.items())
    top = max(rate for _, rate in ordered)
    y_max = math.ceil(top * 1.1) if top > 0 else 1
    return Code("\n".join([
        "xychart-beta",
        '    title "Output throughput vs concurrency"',
        '    x-axis "concurrency" [' + ", ".join(f'"{c:g}"' for c, _ in ordered) + "]",
        f'    y-axis "output tokens/s" 0 --> {y_max}',
        "    line [" + ", ".join(_mermaid_number(rate) for _, rate in ordered) + "]",
    ]), "mermaid")


def document(result: dict[str, Any], fmt: str = "text") -> Document:
    """A run's document in `fmt`: its setup, the charts, the levels, each level's notes, the token cross-check,
    the anomalies and the definitions (folded where Markdown and HTML can open it); the JSON is the result as
    stored.

    Markdown (as GitHub shows it at 1000 px) has the levels as two tables of at most six columns and a
    throughput chart, where the text and the page have one wide table."""
    from stackaudit.bench.charts import bench_charts

    header = _header_lines(result)
    levels = result.get("levels", [])
    if fmt == "markdown":
        chart = throughput_chart(levels)
        tables = [Section("Throughput", (Paragraph("'~' marks approximate token counts."),
                                         Table(_THROUGHPUT_COLUMNS, tuple(_throughput_row(lv) for lv in levels)),
                                         *([chart] if chart else []))),
                  Section("Latency (ms, p50 / p99)", (Table(_LATENCY_COLUMNS, tuple(_latency_row(lv) for lv in levels)),))]
    else:
        tables = [Section("Levels", (Paragraph("latency columns: mean/p50/p90/p99; '~' marks approximate token counts"),
                                     Table(_COLUMNS, tuple(tuple(_level_row(lv)) for lv in levels), id="levels-table")))]
    custom = _custom_percentiles(result)
    noted = [Section(f"Level {_level_name(lv)}", (Notes(tuple(notes)),)) for lv in levels
             if (notes := _level_notes(lv, custom))]
    cross = _cross_check(result)
    anomalies = tuple(result.get("anomalies") or ())
    sections = [
        Section("", (Notes(tuple(header[1:])),)), *charts("Charts", bench_charts(levels)), *tables, *noted,
        *([Section("", (Paragraph(cross),))] if cross else []),
        *([Section("Anomalies", (Notes(anomalies),))] if anomalies else []),
        # Folded where Markdown and HTML can open it; the text shows the definitions whole.
        Section("Definitions", (Notes(tuple((result.get("definitions") or {}).values())),), folded=fmt != "text"),
    ]
    return Document("bench", header[0], "", tuple(sections), result)


def render_result(result: dict[str, Any], fmt: str) -> str:
    """The run's document drawn in `fmt`."""
    return draw(document(result, fmt), fmt)


def history_level(level: dict[str, Any]) -> dict[str, Any]:
    """A stored level as `bench history --format json` lists it: numbers, not text."""
    return {
        "level": _level_name(level),
        "concurrency": level.get("concurrency"),
        "request_rate": level.get("request_rate"),
        "output_tokens_per_s": level.get("output_tokens_per_s"),
        "requests_per_s": level.get("requests_per_s"),
        "tpot_ms_mean": (level.get("tpot_ms") or {}).get("mean"),
        "ttft_ms_p50": (level.get("ttft_ms") or {}).get("p50"),
        "e2e_ms_p50": (level.get("e2e_ms") or {}).get("p50"),
        "requests": level.get("requests"),
        "errors": level.get("errors"),
        "valid": level.get("valid"),
        "ceiling_efficiency": (level.get("ceiling") or {}).get("efficiency"),
        "goodput_share": (level.get("goodput") or {}).get("share"),
    }


def render_history(runs: list[Any], fmt: str, path: str, missing: bool = False) -> str:
    """The stored runs; `missing`: there is no database at `path` (one line in text and Markdown)."""
    if missing and fmt != "json":
        return f"bench history: no runs stored yet (no database at {path})\n"
    items = []
    for run in runs:
        result = run.result
        server = result.get("server", {})
        structured = [history_level(level) for level in result.get("levels", [])]
        summary = []
        for level in result.get("levels", []):
            efficiency = (level.get("ceiling") or {}).get("efficiency")
            of_ceiling = f", {efficiency:.0%} of ceiling".replace("%", " %") if efficiency is not None else ""
            summary.append(f"{_level_name(level)}: {_num(level.get('output_tokens_per_s'))} tok/s, TPOT {_num((level.get('tpot_ms') or {}).get('mean'), 2)} ms{of_ceiling}")
        items.append(
            {
                "run_id": run.id,
                "started": run.started,
                "partial": bool(result.get("partial")),
                "label": run.label,
                "url": server.get("url"),
                "model": server.get("model_used"),
                "server": f"{server.get('server_type')} {server.get('server_version') or ''}".strip(),
                "levels": summary,
                "structured": structured,
            }
        )
    header = ("run", "started", "label", "model", "server", "levels")
    rows = [
        (str(i["run_id"]), (i["started"] or "") + (" (partial)" if i["partial"] else ""), i["label"] or "",
         str(i["model"]), i["server"], "; ".join(i["levels"]))
        for i in items
    ]
    from stackaudit.bench.charts import HistoryRun, history_charts

    charted = [
        HistoryRun(run.id, run.started or "", str(item["model"]), str(run.result.get("server", {}).get("server_type") or "unknown"),
                   item["server"], [(_level_name(lv), lv) for lv in run.result.get("levels", [])])
        for run, item in zip(runs, items, strict=True)
    ]
    runs_json = [{**{k: v for k, v in item.items() if k not in ("levels", "structured")}, "levels": item["structured"]}
                 for item in items]
    listing = Table(header, tuple(rows), id="runs-table") if rows else Paragraph("no runs stored yet")
    return draw(Document("bench-history", f"bench history: {path}", "", (Section("", (listing,)), *history_charts(charted)),
                         {"kind": "stackaudit.bench.history", "db": path, "runs": runs_json}), fmt)


def _change(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1%}"


def _difference_line(cause: dict[str, Any]) -> str:
    return f"[{cause['category']}] {cause['name']}: {cause['a']} → {cause['b']}"


_COMPARE_RULE = (
    "A change is real when Mann-Whitney U on the per-request values gives p < 0.05 and it is beyond the runs' "
    "noise: the 95 % half-width of the difference of their repeat medians, at least 3 %. Only configuration "
    "differences make runs not comparable; samples (what the host was doing) are listed apart."
)


def _compare_title(report: dict[str, Any]) -> str:
    a, b = report["a"], report["b"]
    return f"bench compare: run {a['run_id']} ({a['started']}) → run {b['run_id']} ({b['started']})"


def _compare_level_title(level: dict[str, Any]) -> str:
    return (
        f"{level['level']}: output {_num(level['output_tokens_per_s_a'])} → {_num(level['output_tokens_per_s_b'])} tok/s "
        f"({_change(level['output_tokens_per_s_change'])}) — {level['verdict']}"
    )


def _test_parts(test: dict[str, Any]) -> dict[str, str] | None:
    """One metric's figures as the text shows them; None for a metric with too little data to judge."""
    if "mean_a" not in test:
        return None
    median = "p50_a" in test
    return {
        "statistic": "p50" if median else "mean",
        "a": f"{test['p50_a' if median else 'mean_a']:.2f}",
        "b": f"{test['p50_b' if median else 'mean_b']:.2f}",
        "change": f"{test['change']:+.1%}",
        "p": f"{test['p_value']:.3g}" if test.get("p_value") is not None else "",
        "threshold": f"{test['threshold']:.1%}",
        "noise": test.get("noise_source", ""),
    }


def _test_line(test: dict[str, Any]) -> str:
    parts = _test_parts(test)
    if parts is None:
        return f"{test['metric']}: {test['verdict']}"
    moved = f"{parts['statistic']} {parts['a']} → {parts['b']}" if parts["statistic"] == "p50" else f"{parts['a']} → {parts['b']}"
    p_value = f", p={parts['p']}" if parts["p"] else ""
    return (f"{test['metric']}: {moved} ({parts['change']}){p_value}, "
            f"threshold {parts['threshold']} ({parts['noise']}): {test['verdict']}")


def _compare_tail(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The lines after the levels, each with its sub-items: levels in one run only, the configuration
    differences when nothing changed for real, and the --fail-on gate."""
    tail: list[tuple[str, list[str]]] = []
    if report["levels_only_in_a"] or report["levels_only_in_b"]:
        tail.append((f"levels only in A: {report['levels_only_in_a']}; only in B: {report['levels_only_in_b']}", []))
    if not report["levels"]:
        tail.append(("no concurrency or rate level in common: nothing to compare", []))
    elif not any(level["real"] for level in report["levels"]) and report["differences"]:
        tail.append(("recorded configuration differences between the runs (none produced a real change):",
                     [_difference_line(cause) for cause in report["differences"]]))
    gate = report.get("fail_on")
    if gate is not None:
        limit = f"{gate['regression']:.0%}".replace("%", " %")
        if gate["failed"]:
            found = "; ".join(f"{r['level']} {r['metric']} {r['change']:+.1%}" for r in gate["regressions"])
            tail.append((f"FAIL (--fail-on regression:{limit}): {found}", []))
        else:
            tail.append((f"pass (--fail-on regression:{limit}): no real regression of {limit} or more", []))
    return tail


_COMPARE_COLUMNS = ("metric", "statistic", "A", "B", "change", "p", "threshold (noise)", "verdict", "regression")


def _compare_table(level: dict[str, Any], n: int, gated: set[tuple[str, str]], worse: set[str]) -> Table:
    """A row per metric, as `_test_line` says it; a real change for the worse marked (and said to fail the
    --fail-on gate where it counted)."""
    rows: list[tuple[str, ...]] = []
    for test in level["tests"]:
        parts = _test_parts(test)
        mark = ("regression, fails --fail-on" if (level["level"], test["metric"]) in gated else "regression"
                ) if test["metric"] in worse else ""
        figures = ("-",) * 6 if parts is None else (parts["statistic"], parts["a"], parts["b"], parts["change"],
                                                    parts["p"] or "-", f"{parts['threshold']} ({parts['noise']})")
        rows.append((test["metric"], *figures, test["verdict"], mark))
    return Table(_COMPARE_COLUMNS, tuple(rows), id=f"level-{n}-table",
                 tones=tuple("alarm" if row[-1] else "" for row in rows))


def render_compare(report: dict[str, Any], fmt: str) -> str:
    """The comparison's document drawn in `fmt`: a level's metrics as lines, on the page a table with the
    charts above; JSON is the report as is."""
    from stackaudit.bench.charts import compare_charts
    from stackaudit.bench.compare import regressions

    gated = {(r["level"], r["metric"]) for r in (report.get("fail_on") or {}).get("regressions") or []}
    worse = [{r["metric"] for r in regressions(level, 0.0)} for level in report["levels"]]
    runs = [f"{side}: run {run['run_id']} · {run['started']}" + (f" · label {run['label']}" if run.get("label") else "")
            for side, run in (("A", report["a"]), ("B", report["b"]))] if fmt == "html" else []
    sections = [Section("", tuple(Paragraph(line) for line in (*runs, _COMPARE_RULE))),
                *charts("Charts", compare_charts(report["levels"], worse))]
    for n, level in enumerate(report["levels"], 1):
        blocks: list[Block] = [_compare_table(level, n, gated, worse[n - 1]) if fmt == "html" else
                               Notes(tuple(_test_line(test) for test in level["tests"]))]
        if level["likely_causes"]:
            blocks.append(Finding("likely causes", "configuration that differed between the runs",
                                  tuple(_difference_line(cause) for cause in level["likely_causes"])))
        if level.get("samples_differing"):
            blocks.append(Finding("samples that differed", "not configuration; they do not make the runs differ",
                                  tuple(_difference_line(sample) for sample in level["samples_differing"])))
        sections.append(Section(_compare_level_title(level), tuple(blocks)))
    tail: list[Block] = []
    for line, subs in _compare_tail(report):
        tail += [Paragraph(line), *([Notes(tuple(subs))] if subs else [])]
    sections.append(Section("", tuple(tail)))
    return draw(Document("bench-compare", _compare_title(report), "", tuple(sections), report), fmt)
