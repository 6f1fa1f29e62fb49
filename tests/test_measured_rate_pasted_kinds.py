"""Issue 29, the measured rate from the benchmark kinds people paste besides `vllm bench serve`: SGLang
bench_one_batch, genai-perf's table, vLLM's offline progress bar, and a rate in the user's own words beside an engine
command. Each is read through `audit --from` into the JSON `host.measured`, with its source named; each has a case
that must not give a single-stream rate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gap_pastes import H100_BUS, llama_paste, nvidia_smi_table
from stackaudit.cli.main import main
from stackaudit.facts._parse import ParseError
from stackaudit.facts.serving_rate import (
    parse_genai_perf_rate,
    parse_one_batch_rate,
    parse_progress_rate,
    parse_prose_rate,
)

# Real: https://github.com/sgl-project/sglang/pull/30147 (comment by LarrySimingDeng), `bench_one_batch` of
# Qwen3-0.6B at batch size 1, verbatim.
ONE_BATCH = """Warmup ...
Prefill. latency: 0.02265 s, throughput:   2648.96 token/s
Decode 0. Batch size: 1, latency: 0.00637 s, throughput:    157.09 token/s
Decode 1. Batch size: 1, latency: 0.00595 s, throughput:    167.96 token/s
Decode 2. Batch size: 1, latency: 0.00585 s, throughput:    170.84 token/s
Decode 3. Batch size: 1, latency: 0.00602 s, throughput:    166.17 token/s
Decode 4. Batch size: 1, latency: 0.00572 s, throughput:    174.91 token/s
Decode.  median latency: 0.00585 s, median throughput:    170.84 token/s
Total. latency:  0.076 s, throughput:    923.17 token/s
Benchmark ...
Prefill. latency: 0.01014 s, throughput:   5916.43 token/s
Decode 0. Batch size: 1, latency: 0.00572 s, throughput:    174.85 token/s
Decode 1. Batch size: 1, latency: 0.00569 s, throughput:    175.87 token/s
Decode 2. Batch size: 1, latency: 0.00568 s, throughput:    176.18 token/s
Decode 3. Batch size: 1, latency: 0.00568 s, throughput:    175.91 token/s
Decode 4. Batch size: 1, latency: 0.00589 s, throughput:    169.70 token/s
Decode.  median latency: 0.00572 s, median throughput:    174.85 token/s
Total. latency:  0.062 s, throughput:   1122.76 token/s
"""
# Modelled: the same run at batch size 8 (bench_one_batch's format, python/sglang/bench_one_batch.py): 8 streams.
ONE_BATCH_8 = ONE_BATCH.replace("Batch size: 1,", "Batch size: 8,")
# Modelled on older versions, which print `Decode.  latency:` with no batch size: only the command tells.
ONE_BATCH_OLD = """$ python -m sglang.bench_one_batch --model-path Qwen/Qwen3-0.6B --batch-size {b} --input-len 60 --output-len 6
Benchmark ...
Prefill. latency: 0.01014 s, throughput:   5916.43 token/s
Decode.  latency: 0.00572 s, throughput:    174.85 token/s
Decode.  latency: 0.00569 s, throughput:    175.87 token/s
Decode.  median latency: 0.00571 s, median throughput:    175.13 token/s
Total.   latency:  0.062 s, throughput:   1122.76 token/s
"""

# Real: https://github.com/triton-inference-server/client/issues/779 (body by upskyy), genai-perf at `--concurrency 1`
# with non-streaming requests (no inter-token latency row), verbatim.
GENAI_C1 = """genai-perf   -m rtzr_gemma2   --service-kind triton   --backend vllm   --num-prompts 100   --random-seed 123   --synthetic-input-tokens-mean 200   --synthetic-input-tokens-stddev 0   --output-tokens-mean 100   --output-tokens-stddev 0   --output-tokens-mean-deterministic   --tokenizer rtzr/ko-gemma-2-9b-it   --concurrency 1   --measurement-interval 4000   --profile-export-file my_profile_export.json   --url localhost:18001


concurrency: 1

                                        LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓
┃              Statistic ┃      avg ┃      min ┃      max ┃      p99 ┃      p90 ┃      p75 ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩
│   Request latency (ms) │ 3,792.74 │ 3,781.30 │ 3,812.85 │ 3,812.27 │ 3,807.09 │ 3,798.46 │
│ Output sequence length │   100.00 │   100.00 │   100.00 │   100.00 │   100.00 │   100.00 │
│  Input sequence length │   200.00 │   200.00 │   200.00 │   200.00 │   200.00 │   200.00 │
└────────────────────────┴──────────┴──────────┴──────────┴──────────┴──────────┴──────────┘
Output token throughput (per sec): 26.37
Request throughput (per sec): 0.26
"""
# Modelled (genai-perf's streaming table, its rows as genai_perf/export_data/console_exporter.py names them): an
# `Inter token latency (ms)` row of 12.50 ms avg; with `{conc}` standing for how the concurrency shows.
GENAI_STREAM = """{conc}
                                         LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━┓
┃                        Statistic ┃    avg ┃    min ┃    max ┃    p99 ┃    p90 ┃    p75 ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━┩
│         Time to first token (ms) │  40.10 │  38.20 │  45.00 │  44.80 │  42.00 │  41.00 │
│         Inter token latency (ms) │  12.50 │  12.10 │  13.40 │  13.30 │  12.90 │  12.70 │
│             Request latency (ms) │ 1,627… │        │        │        │        │        │
└──────────────────────────────────┴────────┴────────┴────────┴────────┴────────┴────────┘
Output token throughput (per sec): 301.17
Request throughput (per sec): 2.35
"""

# Real counter-example at concurrency 32: https://github.com/ai-dynamo/dynamo/issues/402 (comment by CharlesRiggins,
# quoting the example's docs), verbatim up to where the stored excerpt of the thread ends (inside the table).
GENAI_C32 = "\n".join((  # the trailing spaces as pasted, spelled out
    '> The genai-perf produces files `JSON` files in artifacts directiory `concurrency_32/profile_export_concurrency_32_genai_perf.json`.',
    '>' + " " * 1,
    '> The tool prints summary of the results:',
    '>' + " " * 1,
    '> ```',
    '>                                     NVIDIA GenAI-Perf | LLM Metrics' + " " * 36,
    '> ┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓',
    '> ┃                         Statistic ┃      avg ┃      min ┃      max ┃      p99 ┃      p90 ┃      p75 ┃',
    '> ┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩',
    '> │          Time To First Token (ms) │ 1,385.48 │   538.11 │ 4,052.35 │ 4,027.65 │ 2,566.46 │ 1,134.94 │',
    '> │         Time To Second Token (ms) │    18.61 │    13.86 │    27.00 │    25.22 │    22.54 │    19.62 │',
    '> │              Request Latency (ms) │ 4,278.64 │ 3,216.85 │ 6,993.44 │ 6,963.85 │ 5,483.71 │ 4,082.48 │',
    '',
))

# Real counter-example, not at one prompt: https://github.com/vllm-project/vllm/pull/5425 (comment by mgoin).
PROGRESS_1000 = ("Processed prompts: 100%|██████| 1000/1000 [00:10<00:00, 97.45it/s, est. speed input: 49992.62 "
                 "toks/s, output: 12473.79 toks/s]\n")
# Modelled (vllm/entrypoints/llm.py sets this postfix on its `Processed prompts` tqdm bar): one prompt, 256 tokens
# out in 5.01 s.
PROGRESS_1 = ("Processed prompts: 100%|██████████| 1/1 [00:05<00:00,  5.01s/it, est. speed input: 1.60 toks/s, "
              "output: 51.10 toks/s]\n")

# Real: https://github.com/vllm-project/vllm/issues/30832 (body by lisp2025), the rate in words beside the command.
PROSE = "The output tokens is 30 tokens/s 1/req which is slower than excpted"
# The same words under that thread's command, joined on one line (as importers/engine_command.py records it).
PROSE_PASTE = "vllm serve mypath/DeepSeek-V3.2 --tensor-parallel-size 8\n" + PROSE + "\n"
# Real counter-example (a range is not one rate): https://github.com/kyuz0/amd-strix-halo-vllm-toolboxes/issues/42
# (comment by martinbrook).
PROSE_RANGE = "I'm seeing 20-25 tokens/s with the following using claude CLI."


@pytest.fixture(autouse=True)
def own_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A HOME of this test's own: no `bench` history left by other runs outranks the user's words."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _host(capsys: pytest.CaptureFixture[str], paste: Path) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", "json"]) == 0
    return dict(json.loads(capsys.readouterr().out)["host"])


def _measured(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str) -> dict[str, Any] | None:
    """`host.measured` of the 1× H100 `vllm serve` paste with `text` in place of the engine's log."""
    measured = _host(capsys, llama_paste(tmp_path, log=text)).get("measured")
    if not measured:
        return None
    assert f"(from {measured['source']})" in measured["line"]  # the report's Measured line names the source
    return dict(measured)


def test_bench_one_batch_at_batch_one_gives_the_benchmark_median(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rate = parse_one_batch_rate(ONE_BATCH)
    assert rate.tokens_per_s == 174.85 and "174.85 token/s" in rate.line  # the Benchmark run, not the warmup
    with pytest.raises(ParseError, match="batch size 1"):
        parse_one_batch_rate(ONE_BATCH_8)
    measured = _measured(capsys, tmp_path, ONE_BATCH)
    assert measured is not None and measured["decode_tok_s"] == 174.85
    assert "bench_one_batch at batch size 1" in measured["source"] and "bench_one_batch" in measured["line"]
    assert _measured(capsys, tmp_path, ONE_BATCH_8) is None


def test_bench_one_batch_without_step_batch_sizes_needs_the_command(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    measured = _measured(capsys, tmp_path, ONE_BATCH_OLD.format(b=1))
    assert measured is not None and measured["decode_tok_s"] == 175.13
    for b in ("8", "1 8"):
        with pytest.raises(ParseError):
            parse_one_batch_rate(ONE_BATCH_OLD.format(b=b))
    with pytest.raises(ParseError):  # no command: the batch size is unknown
        parse_one_batch_rate(ONE_BATCH_OLD.format(b=1).split("\n", 1)[1])
    assert _measured(capsys, tmp_path, ONE_BATCH_OLD.format(b=8)) is None


def test_genai_perf_at_concurrency_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rate = parse_genai_perf_rate(GENAI_C1)
    assert rate.tokens_per_s == 26.37 and "prefill included" in rate.source
    measured = _measured(capsys, tmp_path, GENAI_C1)
    assert measured is not None and measured["decode_tok_s"] == 26.37 and "genai-perf" in measured["source"]
    stream = parse_genai_perf_rate(GENAI_STREAM.format(conc="genai-perf profile -m x --streaming --concurrency 1"))
    assert stream.tokens_per_s == 80.0 and "at concurrency 1: 1000 / Inter token latency" in stream.source


def test_genai_perf_above_concurrency_one_is_not_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for conc in ("genai-perf profile -m x --streaming --concurrency 4",
                 "artifacts/x-openai-chat-concurrency4/profile_export_genai_perf.json"):
        with pytest.raises(ParseError, match="concurrency 4"):
            parse_genai_perf_rate(GENAI_STREAM.format(conc=conc))
    assert _measured(capsys, tmp_path, GENAI_STREAM.format(conc="$ genai-perf profile -m x --concurrency 4")) is None
    with pytest.raises(ParseError, match="concurrency 32"):  # its artifacts path, five lines above the table
        parse_genai_perf_rate(GENAI_C32)
    # Through the paste reader: the path line travels with the table, so a modelled ITL row does not make it count.
    itl = "> │         Inter Token Latency (ms) │    18.20 │    13.86 │    27.00 │    25.22 │    22.54 │    19.62 │\n"
    assert _measured(capsys, tmp_path, GENAI_C32 + itl) is None
    assert _measured(capsys, tmp_path, GENAI_C32.replace("concurrency_32", "run") + itl) is not None


def test_genai_perf_without_concurrency_uses_the_per_request_itl(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rate = parse_genai_perf_rate(GENAI_STREAM.format(conc=""))
    assert rate.tokens_per_s == 80.0 and "concurrency not shown, the per-request ITL" in rate.source
    with pytest.raises(ParseError):  # the output throughput of an unknown concurrency is no single-stream rate
        parse_genai_perf_rate(GENAI_C1.replace("--concurrency 1", "").replace("concurrency: 1", ""))
    measured = _measured(capsys, tmp_path, GENAI_STREAM.format(conc=""))
    assert measured is not None and measured["decode_tok_s"] == 80.0 and "per-request ITL" in measured["source"]


def test_the_offline_progress_bar_counts_only_for_one_prompt(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_progress_rate(PROGRESS_1).tokens_per_s == 51.10
    with pytest.raises(ParseError, match="1000 prompts"):
        parse_progress_rate(PROGRESS_1000)
    with pytest.raises(ParseError):  # a bar still running is not read
        parse_progress_rate(PROGRESS_1.replace("100%", "0%").replace("1/1", "0/1"))
    measured = _measured(capsys, tmp_path, PROGRESS_1)
    assert measured is not None and measured["decode_tok_s"] == 51.1 and "progress bar at 1/1" in measured["source"]
    assert _measured(capsys, tmp_path, PROGRESS_1000) is None


def test_a_rate_in_words_beside_the_engine_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    measured = _measured(capsys, tmp_path, PROSE_PASTE)
    assert measured is not None and measured["decode_tok_s"] == 30.0
    assert measured["source"] == "the user's own words" and "(from the user's own words)" in measured["line"]
    for words, rate in (("around 10 t/s", 10.0), ("~12 tok/s", 12.0), ("I'm getting 8 tokens/s", 8.0),
                        ("GLM-5 runs at 10.36 tok/s single stream", 10.36),
                        ("expected 50 tok/s but getting 9.5 tok/s", 9.5)):
        assert parse_prose_rate(words).tokens_per_s == rate, words
    for words in (PROSE_RANGE, "between 10 tok/s and 20 tok/s", "no rate here"):
        with pytest.raises(ParseError):
            parse_prose_rate(words)


def test_the_engine_log_outranks_the_users_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gap_pastes import LLAMA_LOG
    measured = _measured(capsys, tmp_path, "around 10 t/s\n" + LLAMA_LOG)
    assert measured is not None and measured["decode_tok_s"] == 142.7 and "vLLM's log" in measured["source"]


def test_a_rate_in_words_with_no_engine_text_is_not_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Modelled: the same words with only an nvidia-smi table beside them (no engine command, no engine log).
    # A benchmark client's command is no engine command either (bench_one_batch runs the engine in-process: it is).
    paste = tmp_path / "words.txt"
    for beside in ("", "$ python -m sglang.bench_serving --backend sglang --num-prompts 10\n"):
        paste.write_text(nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559) + "\n" + beside
                         + "I get around 10 t/s\n", encoding="utf-8")
        assert _host(capsys, paste).get("measured") is None, beside


def test_the_words_read_from_one_paste_are_bounded() -> None:
    from stackaudit.importers.prose_rate import MAX_LINES, prose_rate
    lines = ["vllm serve meta-llama/Llama-3.1-8B-Instruct", *(["around 10 t/s"] * (MAX_LINES + 10))]
    assert len(list(prose_rate(lines))) == MAX_LINES
    assert not list(prose_rate(lines[1:]))  # no engine text: none
