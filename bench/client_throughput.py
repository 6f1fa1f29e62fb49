"""The bench client's own cost: streamed tokens per client CPU-second, per framing, and its TPOT
timing error at 256 concurrent streams.

Setup: the client is pinned to one core with os.sched_setaffinity; the calibrated server
(tests/bench_support/calibrated_server.py) runs in its own process on another core, with zero
delay and pre-rendered 256-token responses in three framings:

- blob: one Content-Length body, one write (many SSE events per socket read);
- one-write: chunked transfer encoding, every HTTP chunk in a single write;
- chunked: one HTTP chunk per SSE event, each in its own write, as uvicorn/starlette servers
  send — the costly case, about one event per read.

A raw-socket reader that does no parsing first shows how fast the server serves (blob and
one-write), so that the server is not what is measured. Tokens per client CPU-second is the
client's CPU time (`time.process_time`, this process only) over the measurement window.
For timing error the server emits tokens at an exact gap and logs its own send times.

Run: .venv/bin/python bench/client_throughput.py [--seconds 3] [--json]
Targets: ≥ 120 000 tokens per client CPU-second on every framing; < 1 % TPOT error at 256 streams.
Figures measured on the project's machine are in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from bench_support.servers import calibrated_server  # noqa: E402
from stackaudit.bench.client import RequestRecord, RequestSpec, build_body, make_session, stream_request  # noqa: E402
from stackaudit.bench.loadgen import run_closed_loop  # noqa: E402
from stackaudit.bench.metrics import RequestMetrics  # noqa: E402

TOKENS_PER_RESPONSE = 256
FRAMINGS = ("blob", "one-write", "chunked")


def _cores() -> tuple[int, int | None]:
    available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    return available[0], (available[1] if len(available) > 1 else None)


async def _raw_reader(port: int, concurrency: int, seconds: float, body: bytes) -> dict[str, float]:
    """Fetch responses without parsing them (find the chunked terminator only): the server's rate.

    Chunked framings only: a Content-Length response has no terminator to look for.
    """
    request = (
        b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    responses = 0
    deadline = time.perf_counter() + seconds

    async def one() -> None:
        nonlocal responses
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.perf_counter() < deadline:
            writer.write(request)
            tail = b""
            while True:
                data = await reader.read(1 << 20)
                if not data:
                    return
                tail = (tail + data)[-16:]
                if tail.endswith(b"0\r\n\r\n"):
                    break
            responses += 1
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(concurrency)))
    elapsed = time.perf_counter() - start
    return {"tokens_per_s": responses * TOKENS_PER_RESPONSE / elapsed}


async def _client_rate(base: str, concurrency: int, seconds: float) -> dict[str, float]:
    body = build_body("completions", "calibrated", "x", TOKENS_PER_RESPONSE, {})
    spec = RequestSpec("/v1/completions", body, TOKENS_PER_RESPONSE)
    session = make_session(None, 60.0)
    chunks = 0
    errors = 0
    events = reads = 0
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal chunks, errors, events, reads
        while time.perf_counter() < deadline:
            record = await stream_request(session, base, spec, RequestRecord(0, time.perf_counter(), TOKENS_PER_RESPONSE, None), 60.0)
            if record.ok:
                chunks += record.n_chunks
                events += record.events
                reads += record.reads
            else:
                errors += 1

    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))  # connections and warm caches
        deadline = time.perf_counter() + seconds
        cpu0, wall0 = time.process_time(), time.perf_counter()
        chunks = events = reads = 0
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        await session.close()
    return {
        "tokens_per_s": chunks / wall, "tokens_per_cpu_s": chunks / cpu if cpu else 0.0, "cpu_share": cpu / wall,
        "events_per_read": events / reads if reads else 0.0, "errors": errors,
    }


async def _tpot_error(base: str, streams: int, gap_ms: float, tokens: int, log_path: str) -> dict[str, float]:
    def spec_for(index: int) -> RequestSpec:
        return RequestSpec("/v1/completions", build_body("completions", "calibrated", f"r{index}", tokens, {}), tokens)

    session = make_session(None, 120.0)
    try:
        # Open the connections first, as bench does before a level.
        await run_closed_loop(session, base, spec_for, streams, streams, None, 120.0, 1 << 24, first_index=10**6)
        run = await run_closed_loop(session, base, spec_for, streams, 2 * streams, None, 120.0, 1 << 24)
    finally:
        await session.close()
    for record in run.records:
        record.output_tokens = tokens
    sent: dict[str, tuple[float, float]] = {}
    with open(log_path, encoding="utf-8") as handle:
        for line in handle:
            prompt, first, last, _ = line.split("\t")
            sent[prompt] = (float(first), float(last))
    client_errors = []  # client TPOT vs the server's actual send times: the client's own error
    truth_errors = []  # client TPOT vs the configured gap: client and server together
    for record in run.records:
        tpot = RequestMetrics(record).tpot
        if not record.ok or tpot is None:
            continue
        first, last = sent[f"r{record.index}"]
        actual = (last - first) * 1000.0 / (tokens - 1)
        client_errors.append((tpot - actual) / actual)
        truth_errors.append((tpot - gap_ms) / gap_ms)
    return {
        "streams": streams,
        "truth_ms": gap_ms,
        "requests": len(client_errors),
        "client_error_pct_mean": 100.0 * sum(client_errors) / len(client_errors),
        "client_error_pct_worst": 100.0 * max(abs(e) for e in client_errors),
        "vs_configured_pct_mean": 100.0 * sum(truth_errors) / len(truth_errors),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--streams", type=int, default=256)
    parser.add_argument("--gap-ms", type=float, default=20.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    client_cpu, server_cpu = _cores()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {client_cpu})
    results: dict[str, Any] = {"client_cpu": client_cpu, "server_cpu": server_cpu, "concurrency": args.concurrency,
                               "tokens_per_response": TOKENS_PER_RESPONSE, "framings": {}}
    body = build_body("completions", "calibrated", "x", TOKENS_PER_RESPONSE, {})
    for framing in FRAMINGS:
        with calibrated_server("--ttft-ms", "0", "--gap-ms", "0", "--framing", framing, cpu=server_cpu) as url:
            entry: dict[str, Any] = {}
            if framing == "one-write":
                port = int(url.rsplit(":", 1)[1])
                entry["server_tokens_per_s_raw_reader"] = asyncio.run(
                    _raw_reader(port, args.concurrency, args.seconds, body))["tokens_per_s"]
            entry["client"] = asyncio.run(_client_rate(url, args.concurrency, args.seconds))
            results["framings"][framing] = entry
    with tempfile.TemporaryDirectory() as scratch:
        log_path = os.path.join(scratch, "times.tsv")
        with calibrated_server("--ttft-ms", "100", "--gap-ms", str(args.gap_ms), "--log-times", log_path, cpu=server_cpu) as url:
            results["tpot"] = asyncio.run(_tpot_error(url, args.streams, args.gap_ms, 64, log_path))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"client pinned to CPU {client_cpu}, server on CPU {server_cpu}; {args.concurrency} streams, "
          f"{TOKENS_PER_RESPONSE}-token responses, zero-delay server")
    for framing, entry in results["framings"].items():
        client = entry["client"]
        raw = entry.get("server_tokens_per_s_raw_reader")
        server = f"; server alone (raw reader) {raw:,.0f} tokens/s" if raw else ""
        print(
            f"{framing:>9}: {client['tokens_per_cpu_s']:,.0f} tokens per client CPU-second "
            f"({client['tokens_per_s']:,.0f} tokens/s, {client['cpu_share']:.0%} of its core, "
            f"{client['events_per_read']:.1f} events per read){server}; errors {client['errors']}"
        )
    tpot = results["tpot"]
    print(
        f"TPOT at {tpot['streams']} streams ({tpot['requests']} requests): client error vs the server's actual send "
        f"times {tpot['client_error_pct_mean']:+.3f} % mean, {tpot['client_error_pct_worst']:.3f} % worst request; "
        f"vs the configured {tpot['truth_ms']} ms gap {tpot['vs_configured_pct_mean']:+.2f} % (includes the server's own lateness)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
