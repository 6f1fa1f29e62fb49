"""Issue 29, the measured rate from what the source holds: `--measured`, the engine's own throughput log lines (one
running request, no prefill in the window) and pasted benchmark output, each named in the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gap_pastes import H100_BUS, LLAMA_LOG, llama_paste, nvidia_smi_table
from stackaudit.cli.main import main
from stackaudit.facts._parse import ParseError
from stackaudit.facts.serving_rate import parse_bench_rate, parse_engine_rate

# vLLM v1's format string (vllm/v1/metrics/loggers.py) filled in; v0's (vllm/engine/metrics.py); SGLang's
# decode line (v0.5.x `Decode batch.`, v0.5.23 `Decode batch,`).
VLLM = ("INFO 01-13 10:02:{s:02d} [loggers.py:123] Engine 000: Avg prompt throughput: {p} tokens/s, Avg generation "
        "throughput: {g} tokens/s, Running: {r} reqs, Waiting: {w} reqs, GPU KV cache usage: 0.4%, Prefix cache hit "
        "rate: 0.0%")
VLLM_V0 = ("INFO 07-01 12:00:05 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 88.1 "
           "tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.2%, CPU KV cache usage: "
           "0.0%.")
SGLANG = ("[2026-01-13 10:04:{s:02d} TP0] Decode batch{sep} #running-req: {r}, #token: 2312, token usage: 0.01, "
          "cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}, ")
PREFILL = ("[2026-01-13 10:04:00 TP0] Prefill batch. #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: "
           "0.01, #running-req: 0, #queue-req: 0, ")
# `vllm bench serve` result block (benchmarks/serve.py prints these keys); SGLang's bench_serving spells the
# concurrency line `Max reqeuest concurrency:`.
BENCH = """============ Serving Benchmark Result ============
Successful requests:                     20
{conc}
Benchmark duration (s):                  46.37
Total input tokens:                      20480
Total generated tokens:                  5120
Request throughput (req/s):              0.43
Output token throughput (tok/s):         110.41
Total Token throughput (tok/s):          552.07
---------------Time to First Token----------------
Mean TTFT (ms):                          41.20
Median TTFT (ms):                        40.95
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          7.01
Median TPOT (ms):                        7.00
==================================================
"""
# llama-bench's markdown table (tools/llama-bench), one tg row.
LLAMA_BENCH = """| model                          |       size |     params | backend    | ngl |            test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: | -------------------: |
| llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |           pp512 |      7530.33 ± 30.22 |
| llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |           tg128 |        142.51 ± 0.51 |
"""


def _vllm(g: float, r: int = 1, w: int = 0, p: float = 0.0, s: int = 1) -> str:
    return VLLM.format(g=g, r=r, w=w, p=p, s=s)


def test_vllm_lines_count_only_with_one_running_request_and_no_prompt() -> None:
    text = "\n".join([_vllm(120.0, p=812.3, s=1), _vllm(140.0, s=11), _vllm(141.0, s=21), _vllm(300.0, r=3, s=31)])
    rate = parse_engine_rate(text)
    assert rate.tokens_per_s == 140.5 and rate.samples == 2 and "Running: 1" in rate.source
    assert "median of 2 lines" in rate.source and "140.0 tokens/s" in rate.line
    # A request waiting is queued, not decoded: with one running and no prefill the window is still one stream's.
    assert parse_engine_rate(text + "\n" + _vllm(150.0, w=1, s=41)).samples == 3
    assert parse_engine_rate(VLLM_V0).tokens_per_s == 88.1
    with pytest.raises(ParseError):
        parse_engine_rate(_vllm(300.0, r=3))


@pytest.mark.parametrize("sep", [".", ","])
def test_sglang_lines_after_a_prefill_or_at_batch_two_do_not_count(sep: str) -> None:
    lines = [PREFILL, SGLANG.format(sep=sep, r=1, g=9.1, q=0, s=1), SGLANG.format(sep=sep, r=1, g=10.36, q=0, s=5),
             SGLANG.format(sep=sep, r=2, g=19.9, q=0, s=9), SGLANG.format(sep=sep, r=1, g=10.2, q=1, s=13)]
    rate = parse_engine_rate("\n".join(lines))
    assert rate.tokens_per_s == 10.36 and rate.samples == 1 and not rate.speculative
    spec = parse_engine_rate(SGLANG.format(sep=sep, r=1, g=25.0, q=0, s=1).replace("cuda graph", "accept len: 2.41, cuda graph"))
    assert spec.speculative


def test_benchmark_output_at_concurrency_one_gives_1000_over_tpot() -> None:
    rate = parse_bench_rate(BENCH.format(conc="Maximum request concurrency:             1"))
    assert rate.tokens_per_s == pytest.approx(1000 / 7.01, abs=0.01) and "TPOT" in rate.source
    sglang = parse_bench_rate(BENCH.format(conc="Max reqeuest concurrency:                1"))
    assert sglang.tokens_per_s == rate.tokens_per_s
    for conc in ("Maximum request concurrency:             8", "Traffic request rate:                    inf"):
        with pytest.raises(ParseError, match="one request at a time"):
            parse_bench_rate(BENCH.format(conc=conc))
    assert parse_bench_rate(LLAMA_BENCH).tokens_per_s == 142.51


def _host(capsys: pytest.CaptureFixture[str], paste: Path, *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", "json", *extra]) == 0
    return dict(json.loads(capsys.readouterr().out)["host"])


def test_the_llama_paste_gives_ceiling_and_measured_without_flags(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    host = _host(capsys, llama_paste(tmp_path))
    measured = host["measured"]
    assert measured["decode_tok_s"] == 142.7 and "vLLM's log" in measured["source"]
    assert measured["ceiling_tok_s"] == host["ceiling_tok_s"]
    assert measured["percent_of_ceiling"] == round(100 * 142.7 / host["ceiling_tok_s"], 1)
    assert "(from vLLM's log" in measured["line"]
    given = _host(capsys, llama_paste(tmp_path), "--measured", "99")["measured"]
    assert given["decode_tok_s"] == 99 and given["source"] == "--measured"  # the flag wins over the log


def test_a_pasted_benchmark_is_recognised_and_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = llama_paste(tmp_path, log="$ vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct "
                        "--max-concurrency 1\n" + BENCH.format(conc="Maximum request concurrency:             1"))
    host = _host(capsys, paste)
    assert host["measured"]["decode_tok_s"] == round(1000 / 7.01, 2)
    assert "serving benchmark" in host["measured"]["source"]


def test_a_measured_rate_without_a_model_says_what_it_needs(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "log.txt"
    paste.write_text(nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559) + "\n" + LLAMA_LOG,
                     encoding="utf-8")
    measured = _host(capsys, paste)["measured"]
    assert measured["decode_tok_s"] == 142.7 and measured["ceiling_tok_s"] is None
    assert "give `--model MODEL`" in measured["line"]


# SGLang's stats lines in the prefix shapes users paste: the 2024 time-only prefix (sglang#1270, corpus 509), no
# prefix at all (https://github.com/sgl-project/sglang/issues/938, the issue body), and a date without a rank tag
# (https://github.com/sgl-project/sglang-jax/pull/564, the description).
SGLANG_938 = ("Decode batch. #running-req: 1010, #token: 55006, token usage: 0.93, gen throughput (token/s): 1397.13, "
              "#queue-req: 12279\nwhy throughput  only 1397?\n")
SGLANG_JAX_564 = "".join(
    f"[2025-12-17 05:10:47] Decode batch. #running-req: 1, #token: 64, token usage: 0.00, gen throughput (token/s): "
    f"{g}, #queue-req: 0, #cache_miss: 1\n" for g in ("84.39", "84.23", "84.41"))


def test_sglang_lines_are_read_whatever_prefix_they_were_pasted_with(tmp_path: Path) -> None:
    from corpus import body
    from stackaudit.importers.recognition import recognise

    assert parse_engine_rate(body("509")).tokens_per_s == 238.71  # median of the seven one-request lines
    assert parse_engine_rate(SGLANG_JAX_564).tokens_per_s == 84.39
    for text in (body("509"), SGLANG_938, SGLANG_JAX_564):
        assert [k for k, _, _ in recognise(text).recognised] == ["server log"], text[:40]
    with pytest.raises(ParseError):
        parse_engine_rate(SGLANG_938)  # 1010 running requests: not a single-stream rate


def test_a_time_only_prefix_without_a_rank_tag_is_not_sglang() -> None:
    from stackaudit.facts.serving_logs import is_log_line

    # Modelled: many programs print `[HH:MM:SS] `; only SGLang's rank tag (or its stats line) makes it SGLang's.
    assert not is_log_line("[04:40:55] Loading weights from disk")
    assert is_log_line("[04:40:55 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.float16")
