"""bench against a hostile server on 127.0.0.1: huge bodies, cross-origin redirects, a key in argv,
credentials in what the server reports about itself, streams past their caps."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hostile_support import run_child, stackaudit

from stackaudit.bench.client import (
    MAX_BODY_BYTES,
    RequestRecord,
    RequestSpec,
    build_body,
    make_session,
    max_stream_bytes,
    stream_request,
)
from stackaudit.bench.sse import TEXT_BYTES_PER_TOKEN, StreamError, StreamParser

SERVER = Path(__file__).with_name("hostile_bench_server.py")
GiB = 1024**3
FAST = ["--input-tokens", "8", "--output-tokens", "8", "--warmup", "0", "--quiet", "--no-history", "-f", "json"]


@contextmanager
def hostile_server(*options: str) -> Iterator[str]:
    process = subprocess.Popen([sys.executable, str(SERVER), *options], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("PORT "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def bench(tmp_path: Path, url: str, *extra: str, env: dict[str, str] | None = None) -> tuple[int, str, str, float, float]:
    run = run_child(stackaudit("bench", "--url", url, "-c", "2", "--requests", "8", *FAST, *extra), tmp_path,
                    env=env, timeout=90)
    return run.rc, run.out, run.err, run.rss_mb, run.wall_s


@pytest.mark.parametrize("endpoint", ["--metrics-bytes", "--models-bytes"])
def test_a_1_gib_body_is_cut_at_its_cap(tmp_path: Path, endpoint: str) -> None:
    with hostile_server(endpoint, str(GiB)) as url:
        run = run_child(stackaudit("bench", "--url", url, "--model", "hostile", "-c", "2", "--requests", "8", *FAST),
                        tmp_path, timeout=90)
    assert run.rc == 0, run.err
    run.assert_bounded()
    report = json.loads(run.out)
    assert report["levels"][0]["errors"] == 0
    if endpoint == "--metrics-bytes":
        assert report["server"]["metrics_available"] is False  # the page past 8 MiB is not read at all


@pytest.mark.parametrize("status", ["307", "308"])
def test_a_cross_origin_redirect_is_an_error_of_its_own_kind(tmp_path: Path, status: str) -> None:
    with hostile_server() as elsewhere, hostile_server("--redirect-to", elsewhere, "--redirect-every", "2",
                                                       "--redirect-status", status) as url:
        run = run_child(stackaudit("bench", "--url", url, "-c", "1", "--requests", "8", *FAST), tmp_path, timeout=90)
    assert run.rc == 0, run.err
    run.assert_bounded()
    [level] = json.loads(run.out)["levels"]
    assert level["errors"] == 4 and level["error_kinds"] == {"redirect": 4}
    assert level["requests"] == 8


def test_a_cross_origin_redirect_of_every_request_exits_2(tmp_path: Path) -> None:
    with hostile_server() as elsewhere, hostile_server("--redirect-to", elsewhere) as url:
        run = run_child(stackaudit("bench", "--url", url, "-c", "1", "--requests", "4", *FAST), tmp_path, timeout=60)
    assert run.rc == 2
    line = run.one_line_error()
    assert "redirect" in line and "another origin" in line


def test_a_same_origin_redirect_is_followed(tmp_path: Path) -> None:
    with hostile_server("--redirect-every", "2", "--redirect-to", "") as url:
        # Location is the path alone: relative, so the same origin.
        run = run_child(stackaudit("bench", "--url", url, "-c", "1", "--requests", "8", *FAST), tmp_path, timeout=60)
    assert run.rc == 0, run.err
    [level] = json.loads(run.out)["levels"]
    assert level["errors"] == 0


KEY = "sk-proj-Zq8uV3hostileKEYvalue0123"


@pytest.mark.parametrize("argv", [["--api-key", KEY], [f"--api-key={KEY}"]])
def test_a_key_in_argv_is_refused_with_a_hint(tmp_path: Path, argv: list[str]) -> None:
    run = run_child(stackaudit("bench", "--url", "http://127.0.0.1:9", *argv), tmp_path)
    assert run.rc == 2
    line = run.one_line_error()
    assert "--api-key-env" in line and "/proc/PID/cmdline" in line
    assert KEY not in run.out + run.err


def test_the_key_comes_from_the_variable_named(tmp_path: Path) -> None:
    run = run_child(stackaudit("bench", "--url", "http://127.0.0.1:9", "--api-key-env", "NO_SUCH_VARIABLE_SET"), tmp_path)
    assert run.rc == 2 and "NO_SUCH_VARIABLE_SET is not set" in run.one_line_error()
    run = run_child(stackaudit("bench", "--url", "http://127.0.0.1:9", "--api-key-env", KEY), tmp_path)
    assert run.rc == 2 and KEY not in run.err and "name of an environment variable" in run.one_line_error()


def test_credentials_the_server_reports_about_itself_never_reach_history(tmp_path: Path) -> None:
    reported = "https://alice:hunter2Secret9@hf.example/org/model"
    db = tmp_path / "runs.sqlite3"
    with hostile_server("--self-report", reported) as url:
        run = run_child(stackaudit("bench", "--url", url, "-c", "1", "--requests", "4", "--input-tokens", "8",
                                   "--output-tokens", "8", "--warmup", "0", "--quiet", "-f", "json", "--db", str(db)),
                        tmp_path, timeout=60)
    assert run.rc == 0, run.err
    report = json.loads(run.out)
    assert "hf.example/org/model" in json.dumps(report)  # the value is kept, its credentials are not
    with sqlite3.connect(db) as handle:
        stored = "\n".join(str(row) for row in handle.execute("SELECT * FROM runs"))
    assert "hunter2Secret9" not in run.out + run.err + stored
    assert "alice" not in run.out + stored


async def _one_request(url: str, max_tokens: int) -> RequestRecord:
    session = make_session(None, 30.0)
    try:
        body = build_body("completions", "hostile", "hello", max_tokens, {})
        spec = RequestSpec("/v1/completions", body, max_tokens)
        return await stream_request(session, url, spec, RequestRecord(0, time.perf_counter(), max_tokens, None), 30.0)
    finally:
        await session.close()


def test_a_request_keeps_its_decoded_text_capped_never_the_sse() -> None:
    # 64 chunks of 4 KiB of text and no usage: 256 KiB of text, 16 bytes × 64 tokens kept.
    with hostile_server("--no-usage", "--text-bytes", "4096") as url:
        record = asyncio.run(_one_request(url, 64))
    assert record.ok and record.n_chunks == 64
    assert record.text_cut and record.chunks is not None
    assert sum(len(t) for t in record.chunks) <= TEXT_BYTES_PER_TOKEN * 64
    assert not hasattr(record, "raw")
    with hostile_server("--text-bytes", "4096") as url:  # with usage no text is kept at all
        record = asyncio.run(_one_request(url, 64))
    assert record.ok and record.chunks is None and not record.text_cut


def test_a_stream_past_its_cap_is_an_error() -> None:
    text = max_stream_bytes(4) // 3  # four chunks of a third of the cap each
    with hostile_server("--text-bytes", str(text)) as url:
        record = asyncio.run(_one_request(url, 4))
    assert not record.ok and record.error is not None and "response stream over" in record.error
    assert MAX_BODY_BYTES == 8 * 1024 * 1024


def test_a_deeply_nested_event_is_a_stream_error_not_a_crash() -> None:
    parser = StreamParser()
    with pytest.raises(StreamError, match="not JSON"):
        parser.feed(b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n", 1.0)


def test_200_huge_headers_are_a_probe_failure_exit_2_not_3(tmp_path: Path) -> None:
    with hostile_server("--big-headers") as url:
        rc, _out, err, _rss, _wall = bench(tmp_path, url)
    lines = [x for x in err.splitlines() if x.strip()]
    assert rc == 2 and len(lines) == 1 and "cannot be read" in lines[0] and "Traceback" not in err, err[-2000:]


def test_trickling_probes_share_one_deadline(tmp_path: Path) -> None:
    """Every probe trickles a byte each 0.2 s: they end together at the probes' deadline (--timeout here)."""
    with hostile_server("--trickle") as url:
        start = time.monotonic()
        rc, _out, err, rss, wall = bench(tmp_path, url, "--model", "m", "--timeout", "6")
        took = time.monotonic() - start
    assert rc == 0, err[-2000:]
    assert took < 45, f"{took:.0f} s"  # one probe after another took about 60 s
    print(f"trickling probes: {rss:.0f} MB, {wall:.1f} s")
