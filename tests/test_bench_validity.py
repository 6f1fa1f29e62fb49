"""Validity judged from the client itself; errors measured, not fatal; tokens the server does not count."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bench_support.busy import busy_sibling
from bench_support.cpus import own_core, two_cores
from bench_support.servers import calibrated_server
from bench_support.tiny_tokenizer import write_tiny_tokenizer
from stackaudit.bench import selfcheck
from stackaudit.bench.client import RequestRecord
from stackaudit.bench.prompts import tokenizer_file
from stackaudit.bench.runner import BenchConfig, BenchOutcome, run_bench, several_tokens_per_chunk
from stackaudit.bench.selfcheck import ClientUsage
from stackaudit.cli.main import main
from stackaudit.errors import InputError

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial

FAST = ["--input-tokens", "8", "--output-tokens", "8", "--warmup", "0", "--quiet", "--no-history", "-f", "json"]


def bench(url: str, **options: Any) -> BenchOutcome:
    values: dict[str, Any] = {"input_tokens": 8, "output_tokens": 16, "warmup": "0"}
    values.update(options)
    return asyncio.run(run_bench(BenchConfig(url=url, **values), progress=None))


# -- the client judged from itself ----------------------------------------------------------
@pytest.mark.parametrize("framing", ["one-write", "blob", "chunked"])
def test_fast_zero_delay_server_out_of_process_never_makes_a_run_invalid(framing: str) -> None:
    with calibrated_server("--ttft-ms", "0", "--gap-ms", "0", "--framing", framing) as url:
        outcome = bench(url, concurrency=[16], requests=128, output_tokens=128)
    level = outcome.result["levels"][0]
    assert level["errors"] == 0, level["error_reasons"]
    assert level["valid"], level["invalid_reasons"]
    assert level["output_tokens_mean"] == 128
    client = level["client"]
    assert 0 < client["cpu_share_max"] <= 1.5 and client["events_per_read"] >= 1.0
    # The client is the limit here: said as a warning, with what it means, never as invalid.
    for warning in level["warnings"]:
        assert warning.startswith(("client-bound", "TTFT is mostly client queueing", "client event-loop lag", "host busy"))


@pytest.mark.skipif(two_cores() is None, reason="needs two cores: one for the server, one shared by client and busy loop")
def test_client_sharing_its_core_with_a_busy_loop_is_flagged_host_busy() -> None:
    cores = two_cores()
    assert cores is not None
    client_cpu, server_cpu = cores
    with (calibrated_server("--ttft-ms", "20", "--gap-ms", "5", cpu=server_cpu) as url, own_core(client_cpu),
          busy_sibling(15.0, cpu=client_cpu) as spinner):
        outcome = bench(url, concurrency=[4], requests=32)
        assert spinner.poll() is None  # it was still spinning during the level
    level = outcome.result["levels"][0]
    busy = [w for w in level["warnings"] if w.startswith("host busy: the client waited")]
    assert busy, (level["warnings"], level["client"])
    assert level["client"]["cpu_wait_ms"] >= selfcheck.HOST_BUSY_MIN_WAIT_MS


def test_schedstat_is_read_and_busy_judged_from_wait(tmp_path: Any) -> None:
    stat = tmp_path / "schedstat"
    stat.write_text("2500000000 40000000 900\n")  # 2.5 s on CPU, 40 ms waiting, 900 slices
    assert selfcheck.read_schedstat((str(tmp_path / "missing"), str(stat))) == (2500.0, 40.0)
    stat.write_text("garbage\n")
    assert selfcheck.read_schedstat((str(stat),)) is None
    # 1 s level, 20 ms of CPU: 2 ms waiting is noise, 8 ms is 40 % of the client's own CPU time.
    assert selfcheck.host_busy(ClientUsage(1.0, 0.02, 2.0)) is None
    assert selfcheck.host_busy(ClientUsage(1.0, 0.02, 8.0)) is not None
    # A busy client (500 ms of CPU): 8 ms is neither 2 % of the level nor 25 % of its CPU.
    assert selfcheck.host_busy(ClientUsage(1.0, 0.5, 8.0)) is None
    assert selfcheck.host_busy(ClientUsage(10.0, 0.5, 250.0)) is not None
    assert selfcheck.host_busy(ClientUsage(1.0, 0.02, None)) is None


def test_client_bound_and_ttft_queueing_are_said_when_they_are() -> None:
    bound = ClientUsage(1.0, 0.97, 0.0)
    assert "client-bound" in (selfcheck.client_bound(bound, 6.5) or "")
    assert selfcheck.client_bound(ClientUsage(1.0, 0.3, 0.0), 1.0) is None
    # Median TTFT 98 ms, the fastest request 1 ms: the rest is the client's own queue.
    assert "mostly client queueing" in (selfcheck.ttft_queueing(bound, 98.0, 1.0, 0.5) or "")
    # A paced server: every request near 60 ms; no queueing, however busy the client.
    assert selfcheck.ttft_queueing(bound, 61.0, 59.5, 0.5) is None
    assert selfcheck.ttft_queueing(ClientUsage(1.0, 0.2, 0.0), 98.0, 1.0, 0.5) is None


# -- errors are measured -------------------------------------------------------------------
@pytest.mark.parametrize(("fault", "kind"), [("http500", "HTTP 5xx"), ("http429", "HTTP 429")])
def test_server_failing_half_the_time_from_the_first_probe_is_measured(
    fault: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with calibrated_server("--ttft-ms", "5", "--gap-ms", "1", "--fault", fault, "--fault-every", "2", "--fault-first") as url:
        rc = main(["bench", "--url", url, "-c", "2", "--requests", "8", *FAST])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    report = json.loads(captured.out)
    level = report["levels"][0]
    assert level["requests"] == 8 and level["errors"] == 4
    assert level["error_kinds"] == {kind: 4} and level["error_rate"] == pytest.approx(0.5)
    assert any(flag.startswith("errors: 4 of 8 requests failed") for flag in level["flags"])
    assert level["tpot_ms"]["mean"] == pytest.approx(1.0, abs=0.5)  # the healthy half is still measured
    assert any("first test request failed 1 time" in note for note in report["anomalies"])


def test_every_request_failing_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    # The first probe succeeds; every request after it fails.
    with calibrated_server("--ttft-ms", "5", "--gap-ms", "1", "--fault", "http500", "--fault-from", "1") as url:
        rc = main(["bench", "--url", url, "-c", "2", "--requests", "4", *FAST])
    err = capsys.readouterr().err
    assert rc == 2 and "every measured request failed (HTTP 5xx ×4)" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_server_that_always_fails_is_refused_after_the_probes(capsys: pytest.CaptureFixture[str]) -> None:
    with calibrated_server("--fault", "http500", "--fault-every", "1") as url:
        assert main(["bench", "--url", url, *FAST]) == 2
    err = capsys.readouterr().err
    assert "answered HTTP 500 to all 6 first test requests" in err and len(err.strip().splitlines()) == 1


# -- tokens the server does not count --------------------------------------------------------
def record_with(finish: str, max_tokens: int, chunks: list[str]) -> RequestRecord:
    record = RequestRecord(0, 0.0, max_tokens, None)
    record.finish_reason = finish
    record.n_chunks = len(chunks)
    return record


def test_multi_token_chunks_detected_from_the_text_and_the_finish_reason() -> None:
    one_each = [" the", " cat", " sat", ".", " It", " was"]
    assert not several_tokens_per_chunk(record_with("length", 6, one_each), one_each)
    four_each = [" the cat sat on", " the mat and it", " was warm there ."]
    assert several_tokens_per_chunk(record_with("stop", 64, four_each), four_each)
    # No spaces to see (code, CJK): the server's "length" with fewer chunks than tokens says it.
    dense = ["你好世界", "很好"]
    assert several_tokens_per_chunk(record_with("length", 16, dense), dense)
    assert not several_tokens_per_chunk(record_with("stop", 16, dense), dense)
    # One long word per chunk, far longer than tokens are: several tokens each.
    glued = ["internationalisation", "counterrevolutionaries", "electroencephalography"]
    assert several_tokens_per_chunk(record_with("stop", 64, glued), glued)


def test_tokenizer_from_a_path_a_directory_or_the_local_hf_cache(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    file = write_tiny_tokenizer(str(tmp_path / "tokenizer.json"))
    assert tokenizer_file(file) == file
    assert tokenizer_file(str(tmp_path)) == file
    snapshot = tmp_path / "hub" / "models--acme--tiny" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (tmp_path / "hub" / "models--acme--tiny" / "refs").mkdir()
    (tmp_path / "hub" / "models--acme--tiny" / "refs" / "main").write_text("abc123")
    write_tiny_tokenizer(str(snapshot / "tokenizer.json"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert tokenizer_file("acme/tiny") == str(snapshot / "tokenizer.json")
    with pytest.raises(InputError, match="never downloads"):
        tokenizer_file("acme/not-cached")


def test_tokenizer_without_the_package_is_a_one_line_usage_error(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from stackaudit.bench import prompts

    file = write_tiny_tokenizer(str(tmp_path / "tokenizer.json"))
    prompts._load_tokenizer.cache_clear()
    monkeypatch.setitem(__import__("sys").modules, "tokenizers", None)  # as on a plain install
    try:
        # Checked before any request: the URL need not answer.
        assert main(["bench", "--url", "http://127.0.0.1:9", "--tokenizer", file, *FAST]) == 2
    finally:
        prompts._load_tokenizer.cache_clear()
    err = capsys.readouterr().err
    assert "pip install 'stackaudit[tokenizer]'" in err and len(err.strip().splitlines()) == 1
