"""Goodput and percentiles against hand-computed values, the vllm-json key names, the markdown
as GitHub renders it, `bench history --format json`, and `--plot PATH` for a directory.

The recorded run is built here: five requests with set times (four answered, one failed), so
that every figure can be worked out by hand below.
"""

from __future__ import annotations

import html.parser
import json
import math
from typing import Any

import pytest
from markdown_it import MarkdownIt

from stackaudit.bench.client import RequestRecord
from stackaudit.bench.export import render_vllm_json, request_lines, vllm_level
from stackaudit.bench.history import History, RequestRow
from stackaudit.bench.loadgen import LevelRun
from stackaudit.bench.metrics import DEFINITIONS, summarize_level, summarize_repeat
from stackaudit.bench.render import render_history, render_result
from stackaudit.bench.slo import parse_goodput, parse_percentiles
from stackaudit.cli.main import main
from stackaudit.errors import UsageError

T0 = 1000.0
# (TTFT ms, ms per token, tokens): E2E = TTFT + (n − 1) × gap.
ANSWERED = [(100.0, 10.0, 11), (300.0, 10.0, 11), (100.0, 30.0, 11), (150.0, 20.0, 11)]


def recorded(ttft_ms: float, gap_ms: float, n: int, index: int) -> RequestRecord:
    record = RequestRecord(index, T0, n, 20)
    record.sent = T0
    record.first = T0 + ttft_ms / 1000.0
    record.chunk_times = [record.first + j * gap_ms / 1000.0 for j in range(n)]
    record.chunk_counts = [1] * n
    record.n_chunks = n
    record.finish = record.chunk_times[-1]
    record.ended = record.finish
    record.status = 200
    record.output_tokens = n
    record.prompt_tokens = 20
    record.token_source = "usage"
    record.approximate = False
    record.finish_reason = "length"
    return record


def recorded_run() -> tuple[LevelRun, list[RequestRecord]]:
    records = [recorded(*spec, index=i) for i, spec in enumerate(ANSWERED)]
    failed = RequestRecord(len(records), T0, 11, 20)
    failed.sent, failed.finish, failed.ended = T0, T0 + 0.1, T0 + 0.1
    failed.status, failed.error = 500, "HTTP 500: calibrated fault"
    records.append(failed)
    return LevelRun("concurrency", 4.0, records, T0, T0 + 0.4, T0, [], None), records


def level_of(objectives: dict[str, float] | None = None, percentiles: list[float] | None = None) -> dict[str, Any]:
    run, _ = recorded_run()
    return summarize_level("concurrency", 4.0, [run], [summarize_repeat(run)], "completions", objectives, percentiles)


def result_with(levels: list[dict[str, Any]], **config: Any) -> dict[str, Any]:
    return {
        "schema": 1, "started": "2026-12-01T12:00:00Z", "label": "formats", "run_id": 7,
        "config": {"endpoint": "completions", "input_tokens": 20, "output_tokens": 11, "seed": 0, "temperature": 0.0,
                   "repeats": 1, "order": ["c=4#1"], "prompt_tokens_source": "server /tokenize",
                   "eos_suppression": "ignore_eos", "percentiles": [50.0, 90.0, 99.0], **config},
        "server": {"url": "http://127.0.0.1:8000", "model_used": "calibrated", "server_type": "vllm",
                   "server_version": "0.11.0", "metrics_before_after": False},
        "host": {"source": "remote"}, "warmup": {"mode": "off"}, "definitions": DEFINITIONS,
        "workload": {"mode": "synthetic words; cache-busting (a unique prefix per request)"},
        "levels": levels, "anomalies": ["no warm-up (--warmup 0): the first requests may find the server cold"],
    }


def test_goodput_against_hand_computed_values() -> None:
    level = level_of({"ttft": 200.0, "tpot": 25.0, "e2e": 380.0})
    goodput = level["goodput"]
    # E2E: 200, 400, 400, 350. Good: #1 (100, 10, 200) and #4 (150, 20, 350); #2 misses TTFT, #3 TPOT, #5 failed.
    assert goodput["good"] == 2 and goodput["requests"] == 5 and goodput["share"] == pytest.approx(0.4)
    # The level spans 0.4 s (first intended send → last chunk of #2 and #3): 22 tokens, 2 requests.
    assert level["duration_s"] == pytest.approx(0.4)
    assert goodput["output_tokens_per_s"] == pytest.approx(55.0)
    assert goodput["requests_per_s"] == pytest.approx(5.0)
    # An objective at the value itself is met (at most, as vLLM's `s >= r`).
    assert level_of({"e2e": 400.0})["goodput"]["good"] == 4
    assert level_of()["goodput"] is None


def test_percentiles_against_hand_computed_values() -> None:
    level = level_of(percentiles=[50.0, 90.0, 99.9])
    ttft = level["percentiles"]["ttft_ms"]
    # Sorted TTFTs 100, 100, 150, 300; linear between ranks at (n − 1)·q: 1.5 → 125, 2.7 → 255, 2.997 → 299.55.
    assert list(ttft) == ["p50", "p90", "p99.9"]
    assert ttft["p50"] == pytest.approx(125.0)
    assert ttft["p90"] == pytest.approx(255.0)
    assert ttft["p99.9"] == pytest.approx(299.55)
    assert level["percentiles"]["tpot_ms"]["p50"] == pytest.approx(15.0)  # 10, 10, 20, 30
    assert level["ttft_ms"]["p99"] == pytest.approx(295.5)  # the fixed distribution stays as it was


@pytest.mark.parametrize(("text", "message"), [
    ("ttft", "--goodput takes"), ("latency:5", "--goodput takes"), ("ttft:-1", "--goodput takes"),
])
def test_goodput_flag_errors(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_goodput(text)


def test_goodput_and_percentile_parsing() -> None:
    assert parse_goodput("ttft:500, tpot:50,e2el:9000") == {"ttft": 500.0, "tpot": 50.0, "e2e": 9000.0}
    assert parse_percentiles("99.9,50,90,99,50") == [50.0, 90.0, 99.0, 99.9]
    for bad in ("0", "101", "x"):
        with pytest.raises(UsageError, match="--percentiles"):
            parse_percentiles(bad)


# The result keys `vllm bench serve --save-result` writes for a generation run (its `result_json`
# in vllm/benchmarks/serve.py: run metadata, then the benchmark's result dict, then
# mean/median/std/p<q> for each metric in ttft, tpot, itl, e2el; p99 by default).
VLLM_KEYS = {
    "date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts", "request_rate",
    "burstiness", "max_concurrency", "duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
    "request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
    "max_output_tokens_per_s", "max_concurrent_requests",
    *(f"{stat}_{metric}_ms" for stat in ("mean", "median", "std", "p99") for metric in ("ttft", "tpot", "itl", "e2el")),
}


def test_vllm_json_has_their_key_names_and_hand_computed_values() -> None:
    level = level_of({"ttft": 200.0, "tpot": 25.0, "e2e": 380.0})
    _, records = recorded_run()
    out = vllm_level(result_with([level]), level, records)
    assert set(out) >= VLLM_KEYS, VLLM_KEYS - set(out)
    assert out["completed"] == 4 and out["failed"] == 1 and out["num_prompts"] == 5
    assert out["request_rate"] == "inf" and out["max_concurrency"] == 4 and out["backend"] == "openai"
    assert out["date"] == "20261201-120000"
    assert out["total_input_tokens"] == 80 and out["total_output_tokens"] == 44
    assert out["request_throughput"] == pytest.approx(10.0) and out["output_throughput"] == pytest.approx(110.0)
    assert out["total_token_throughput"] == pytest.approx(310.0)
    assert out["request_goodput"] == pytest.approx(5.0)
    assert out["mean_ttft_ms"] == pytest.approx(162.5) and out["median_ttft_ms"] == pytest.approx(125.0)
    assert out["std_ttft_ms"] == pytest.approx(math.sqrt(26875 / 4))  # population deviation, as np.std
    assert out["median_e2el_ms"] == pytest.approx(375.0) and out["p99_e2el_ms"] == pytest.approx(400.0)
    assert out["max_concurrent_requests"] == 4
    assert out["max_output_tokens_per_s"] == 44  # every token within the first second
    several = render_vllm_json(result_with([level, level]), {"c=4": [(0, r) for r in records]})
    assert [json.loads(line)["completed"] for line in several.splitlines()] == [4, 4]  # one object per line


def test_request_lines_hold_times_chunks_and_errors() -> None:
    _, records = recorded_run()
    lines = request_lines({"c=4": [(0, r) for r in records]}, {0: {"turn": 1}})
    assert len(lines) == 5 and lines[0]["turn"] == 1
    assert lines[0]["first_chunk_s"] == pytest.approx(0.1) and lines[0]["chunk_times_s"][-1] == pytest.approx(0.2)
    assert lines[0]["tpot_ms"] == pytest.approx(10.0) and lines[0]["chunk_counts"] == [1] * 11
    assert lines[4]["status"] == 500 and lines[4]["error"].startswith("HTTP 500") and lines[4]["ttft_ms"] is None


class _Tables(html.parser.HTMLParser):
    """Rows of cells of every table, and the headings, of rendered HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.headings: list[str] = []
        self._cell: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag in ("h1", "h2", "h3", "h4"):
            self.headings.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell += data


def test_text_and_json_are_the_runs_document_drawn() -> None:
    result = result_with([level_of({"ttft": 200.0})])
    lines = render_result(result, "text").splitlines()
    assert lines[0] == "stackaudit bench · http://127.0.0.1:8000 · model calibrated (vllm 0.11.0) · run 7"
    table = lines.index("Levels") + 2  # under the legend: the wide table, every latency as mean/p50/p90/p99
    assert lines[table].startswith("  level  out tok/s  tok/s/stream") and lines[table + 1].startswith("  c=4 ")
    assert "162.5/125.0/255.0/295.5" in lines[table + 1]
    notes = lines.index("Level c=4")
    assert lines[notes + 1] == "  - goodput (ttft ≤ 200 ms): 3 of 5 requests (60.0%); 82.5 tok/s, 7.50 req/s"
    assert lines[lines.index("Anomalies") + 1].startswith("  - no warm-up (--warmup 0)")
    assert lines[lines.index("Definitions") + 1:] == [f"  - {text}" for text in DEFINITIONS.values()]
    drawn = render_result(result, "json")
    assert json.loads(drawn) == result and drawn.startswith('{\n  "schema": 1,')


# GitHub's markdown body: 14 px text, about 7.5 px a character on average, 13 px padding each side of a cell.
CHAR_PX, CELL_PADDING_PX, PAGE_PX = 7.5, 26, 1000


def test_markdown_fits_github_at_1000_px() -> None:
    level = level_of({"ttft": 200.0}, [50.0, 99.9])
    wide = dict(level, concurrency=1024, output_tokens_per_s=1_234_567.8, output_tokens_per_s_per_stream=12_345.6,
                requests=123_456, errors=12_345)
    markdown = render_result(result_with([level, wide], percentiles=[50.0, 99.9]), "markdown")
    html_text = MarkdownIt("commonmark").enable("table").render(markdown)
    parsed = _Tables()
    parsed.feed(html_text)
    assert parsed.headings[0] == "h1" and parsed.headings.count("h1") == 1  # the run's title, then its sections
    assert len(parsed.tables) == 2
    for table in parsed.tables:
        columns = len(table[0])
        assert columns <= 6 and all(len(row) == columns for row in table)
        width = sum(max(len(row[i]) for row in table) * CHAR_PX + CELL_PADDING_PX for i in range(columns))
        assert width <= PAGE_PX, (table[0], width)
    assert [row[0] for row in parsed.tables[1]] == ["level", "c=4", "c=1024"]  # latency: p50 / p99 per metric
    assert "<details><summary>Definitions</summary>" in html_text and "TTFT = time of the first" in html_text
    assert "goodput (ttft ≤ 200 ms)" in markdown and "p99.9" in markdown  # the custom percentiles are shown


def test_history_json_levels_are_structured(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "h.sqlite3")
    level = level_of({"ttft": 200.0})
    with History(db) as history:
        history.add_rows(result_with([level]), [RequestRow("c=4", 0, True, 10.0, 100.0, 200.0, 11)])
        text = render_history(history.list_runs(), "text", history.path)
    assert main(["bench", "history", "--db", db, "--format", "json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    stored = listing["runs"][0]["levels"][0]
    assert stored["level"] == "c=4" and stored["concurrency"] == 4 and stored["requests"] == 5
    assert stored["tpot_ms_mean"] == pytest.approx(17.5) and stored["goodput_share"] == pytest.approx(0.6)
    assert stored["output_tokens_per_s"] == pytest.approx(110.0)
    assert "c=4: 110.0 tok/s" in text  # the text listing keeps its one-line summary


def test_ceiling_plot_into_a_directory(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "torch_dtype": "bfloat16",
    }), encoding="utf-8")
    charts = tmp_path / "charts"
    charts.mkdir()
    assert main(["ceiling", "--model", str(config), "--gpu", "L4", "--plot", str(charts)]) == 0
    assert (charts / "ceiling.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"chart written to {charts / 'ceiling.png'}" in capsys.readouterr().err
    assert main(["ceiling", "--model", str(config), "--gpu", "L4", "--plot", str(tmp_path / "no" / "x.png")]) == 2
    assert "no directory" in capsys.readouterr().err


class _Terminal:
    """A stderr that says it is a terminal, and keeps what was written."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.written: list[str] = []

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.written.append(text)
        return len(text)

    def flush(self) -> None:
        return None


def test_progress_bar_only_on_a_terminal_and_not_with_quiet() -> None:
    from stackaudit.bench.progress import make_progress

    assert make_progress(False, _Terminal(False)) is None
    assert make_progress(True, _Terminal(True)) is None
    terminal = _Terminal(True)
    bar = make_progress(False, terminal)
    assert bar is not None
    _, records = recorded_run()
    bar.start("[1/1] c=4 repeat 1", len(records), None)
    for record in records:
        bar.advance(record)
    bar.stop()
    bar.line("[1/1] c=4 repeat 1: 110.0 tok/s")
    assert bar.done == 5 and bar.errors == 1
    shown = "".join(terminal.written)
    assert "c=4 repeat 1" in shown and "bench: [1/1] c=4 repeat 1: 110.0 tok/s" in shown
