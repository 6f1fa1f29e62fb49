"""The bench client's own cost: streamed tokens per client CPU-second, per framing and concurrency, beside
vLLM's benchmark client on the same server; and the TPOT timing error at 256 concurrent streams.

Setup: the calibrated server (tests/bench_support/calibrated_server.py) runs in its own process on one core,
with zero delay and pre-rendered 256-token responses in three framings:

- blob: one Content-Length body, one write (many SSE events per socket read);
- one-write: chunked transfer encoding, every HTTP chunk in a single write;
- chunked: one HTTP chunk per SSE event, each in its own write, as uvicorn/starlette servers
  send (vLLM's and SGLang's servers among them) — the costly case.

Each measurement runs in a fresh process pinned to another core: stackaudit's client
(`stream_request`), or vLLM's (`async_request_openai_completions` from
vllm/benchmarks/lib/endpoint_request_func.py, `vllm bench serve`'s request function), never both in
one process. The vLLM file is loaded from `--vllm-client PATH` (a vLLM checkout or an unpacked
wheel; its code is not part of this project), else from an installed `vllm`; without either, only
stackaudit is measured. A measurement is a warm-up pass, then `--seconds` in which the client
process's CPU time (`time.process_time`, user + system) is read: tokens per CPU-second does not
depend on how busy the other core was.

A figure is `--repeat` rounds. Each round measures both clients back to back, in an order that
alternates from round to round, and its ratio is stackaudit's rate over vLLM's of that round: the two
clients of a ratio meet the server in the same minutes. At one stream on chunked framing the server
writes one event per `send` and is slower than either client, so the events a client finds per socket
read (and its cost per token) follow how busy the server's core is; a ratio of two runs minutes apart
mixes two servers. Each figure is the median of the rounds with their range, and each run keeps the
1-minute load average read when it started. A raw-socket reader that does no parsing shows how fast the server
serves alone (chunked framings), so that the server is not what is measured.
For timing error the server emits tokens at an exact gap and logs its own send times.

`--read-path` measures stackaudit's own work per socket read apart from any server: one response's
headers come from a server in this process, then reads of k chunked events each (the calibrated
server's completion event, one HTTP chunk each) are copied into the connection's read buffer and
handed to its protocol as the transport would (`buffer_updated`): the chunked decoding (bench's
`http1` client for http://, aiohttp's HTTP parser for https://), the arrival stamp and the SSE parser,
without the event loop's wake-up or the `recv` system call. Its figure, CPU
microseconds per read, does not depend on the server's pace; the figures above do.

Run: .venv/bin/python perf/client_throughput.py [--seconds 3] [--repeat 5] [--concurrency 1,8,32,128]
     [--framings blob,one-write,chunked] [--vllm-client .../vllm/benchmarks/lib/endpoint_request_func.py]
     [--streams 0] [--json]
Targets: stackaudit at least 2× vLLM's client in tokens per CPU-second at every framing and
concurrency; < 1 % TPOT error at 256 streams. Figures measured on the project's machine are in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from types import ModuleType
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

TOKENS_PER_RESPONSE = 256
FRAMINGS = ("blob", "one-write", "chunked")
CLIENTS = ("stackaudit", "vllm")


def _cores() -> tuple[int, int | None]:
    available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    return available[0], (available[1] if len(available) > 1 else None)


def _load_vllm(path: str | None) -> ModuleType | None:
    """vLLM's request-function module: from `path`, else an installed vllm; None when neither is there."""
    if path is None:
        try:
            return importlib.import_module("vllm.benchmarks.lib.endpoint_request_func")
        except ImportError:
            return None
    try:
        import regex  # noqa: F401  (vLLM's file imports it; its request functions do not use it)
    except ImportError:
        sys.modules["regex"] = re
    spec = importlib.util.spec_from_file_location("vllm_endpoint_request_func", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--vllm-client {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


async def _raw_reader(port: int, concurrency: int, seconds: float, body: bytes) -> float:
    """Tokens/s fetched without parsing (the chunked terminator is all it looks for): the server's rate."""
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
    return responses * TOKENS_PER_RESPONSE / (time.perf_counter() - start)


READ_PATH_EVENT = (
    b'data: {"id":"cal","object":"text_completion","model":"calibrated",'
    b'"choices":[{"index":0,"text":" w","logprobs":null,"finish_reason":null}]}\n\n'
)


async def _read_path(events_per_read: list[int], rounds: int, reads: int, own_http: bool) -> dict[str, dict[str, float]]:
    """CPU microseconds per socket read of stackaudit's read path, per events in the read (median, range).

    `own_http`: the path of plain http:// URLs (bench's `http1` client), else aiohttp's (https://)."""
    from stackaudit.bench import client, http1

    opened: list[http1.Connection] = []
    connect = http1.Pool.connect

    async def connect_and_keep(self: http1.Pool, kind: str = "new") -> http1.Connection:
        opened.append(await connect(self, kind))
        return opened[-1]

    finished = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
        if length:
            await reader.readexactly(int(length[0].split(b":")[1]))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        await writer.drain()
        await finished.wait()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    http1.Pool.connect = connect_and_keep  # type: ignore[method-assign]
    session = client.make_session(None, 3600.0, own_http=own_http)
    asked = 10**6  # a cap on the stream that the replayed reads never reach
    record = client.RequestRecord(0, time.perf_counter(), asked, None)
    request = asyncio.ensure_future(client.stream_request(
        session, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}",
        client.RequestSpec("/v1/completions", b"{}", asked), record, 3600.0))
    try:
        protocol: Any
        if own_http:
            while not (opened and opened[0].head is None):  # the response head is read
                await asyncio.sleep(0.005)
            protocol = opened[0]
            sink = protocol.receiver
        else:
            while not (sinks := [sink for sink in client._SINKS.values() if sink.held is None]):
                await asyncio.sleep(0.005)
            sink = sinks[0]
            protocol = sink.protocol.transport.get_protocol()
        parser = sink.parser
        # As after a stream's usage event: the events are not kept for their text.
        parser.keep_raw = False
        chunk = b"%x\r\n%s\r\n" % (len(READ_PATH_EVENT), READ_PATH_EVENT)
        times: dict[int, list[float]] = {k: [] for k in events_per_read}
        gc.collect()
        gc.disable()
        for _ in range(rounds):
            for k in events_per_read:
                data = chunk * k
                size = len(data)
                parser.chunk_times.clear()
                parser.chunk_counts.clear()
                sink.received = 0
                cpu0 = time.process_time()
                for _ in range(reads):
                    protocol.view[:size] = data
                    protocol.buffer_updated(size)
                times[k].append((time.process_time() - cpu0) / reads * 1e6)
        gc.enable()
        if sink.error is not None or parser.events == 0:
            raise SystemExit(f"--read-path: the replayed reads were not parsed ({sink.error})")
    finally:
        http1.Pool.connect = connect  # type: ignore[method-assign]
        finished.set()
        request.cancel()
        await asyncio.gather(request, return_exceptions=True)
        await session.close()
        server.close()
        await server.wait_closed()
    return {str(k): _summary(times[k]) for k in events_per_read}


async def _measure(client: str, base: str, concurrency: int, seconds: float, vllm_path: str | None) -> dict[str, Any]:
    """One client against one server at one concurrency: a warm-up pass, then the measured window."""
    tokens = errors = events = reads = 0
    if client == "stackaudit":
        from stackaudit.bench.client import (
            RequestRecord,
            RequestSpec,
            build_body,
            make_session,
            stream_request,
        )

        spec = RequestSpec("/v1/completions", build_body("completions", "calibrated", "x", TOKENS_PER_RESPONSE, {}),
                           TOKENS_PER_RESPONSE)
        session = make_session(None, 60.0)

        async def one() -> int:
            nonlocal events, reads
            record = await stream_request(
                session, base, spec, RequestRecord(0, time.perf_counter(), TOKENS_PER_RESPONSE, None), 60.0)
            events += record.events
            reads += record.reads
            return record.n_chunks if record.ok else -1
    else:
        import aiohttp

        module = _load_vllm(vllm_path)
        assert module is not None
        request = module.async_request_openai_completions
        given = module.RequestFuncInput(prompt="x", api_url=base + "/v1/completions", prompt_len=1,
                                        output_len=TOKENS_PER_RESPONSE, model="calibrated")
        # As `vllm bench serve` opens its session (vllm/benchmarks/serve.py, make_session).
        session = aiohttp.ClientSession(
            trust_env=True, timeout=module.AIOHTTP_TIMEOUT,
            connector=aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency, ttl_dns_cache=300,
                                           keepalive_timeout=60, enable_cleanup_closed=True, force_close=False),
        )

        async def one() -> int:
            output = await request(given, session)
            return int(output.output_tokens or len(output.itl) + 1) if output.success else -1

    async def worker(deadline: float) -> None:
        nonlocal tokens, errors
        while time.perf_counter() < deadline:
            got = await one()
            if got < 0:
                errors += 1
            else:
                tokens += got

    try:
        await asyncio.gather(*(worker(time.perf_counter() + min(1.0, seconds)) for _ in range(concurrency)))
        tokens = errors = events = reads = 0
        # The collector as each tool runs it: bench disables it inside a level, `vllm bench serve`
        # freezes the heap once (vllm.utils.gc_utils.freeze_gc_heap).
        gc.collect()
        if client == "stackaudit":
            gc.disable()
        else:
            gc.freeze()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker(wall0 + seconds) for _ in range(concurrency)))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        gc.enable()
        await session.close()
    return {
        "tokens_per_s": tokens / wall, "tokens_per_cpu_s": tokens / cpu if cpu else 0.0, "cpu_share": cpu / wall,
        "events_per_read": events / reads if reads else None, "errors": errors,
    }


def _measure_in_child(client: str, url: str, concurrency: int, seconds: float, vllm_path: str | None) -> dict[str, Any]:
    """`_measure` in a fresh process (it inherits this one's core): no client's import touches the other's run."""
    argv = [sys.executable, os.path.abspath(__file__), "--measure", client, url, str(concurrency), str(seconds)]
    if vllm_path:
        argv += ["--vllm-client", vllm_path]
    load = _load_average()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds * 4 + 120, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{client} at {concurrency} streams failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    result["load_average"] = load
    return result


def _load_average() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def _rounds(clients: list[str], url: str, concurrency: int, seconds: float, repeat: int,
            vllm_path: str | None) -> list[dict[str, Any]]:
    """`repeat` rounds of every client back to back, the order reversed every other round."""
    rounds = []
    for index in range(repeat):
        order = clients if index % 2 == 0 else clients[::-1]
        rounds.append({client: _measure_in_child(client, url, concurrency, seconds, vllm_path) for client in order})
    return rounds


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "low": min(values), "high": max(values)}


def _summarise(level: dict[str, Any], clients: list[str]) -> None:
    """Median and range over the rounds of each client's rate, and of the ratio within each round."""
    rounds = level["rounds"]
    for client in clients:
        level[client] = _summary([r[client]["tokens_per_cpu_s"] for r in rounds])
    if "stackaudit" in clients:
        level["events_per_read"] = _summary([r["stackaudit"]["events_per_read"] or 0.0 for r in rounds])
    if "vllm" in clients and "stackaudit" in clients:
        level["ratio"] = _summary([r["stackaudit"]["tokens_per_cpu_s"] / r["vllm"]["tokens_per_cpu_s"] for r in rounds])
    loads = [r[c]["load_average"] for r in rounds for c in clients if r[c]["load_average"] is not None]
    level["load_average"] = _summary(loads) if loads else None
    level["errors"] = sum(r[c]["errors"] for r in rounds for c in clients)


async def _tpot_error(base: str, streams: int, gap_ms: float, tokens: int, log_path: str) -> dict[str, float]:
    from stackaudit.bench.client import RequestSpec, build_body, make_session
    from stackaudit.bench.loadgen import run_closed_loop
    from stackaudit.bench.metrics import RequestMetrics

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


def _range(summary: dict[str, float] | None, form: str) -> str:
    if summary is None:
        return "-"
    return f"{summary['median']:{form}} ({summary['low']:{form}}–{summary['high']:{form}})"


def _print_table(results: dict[str, Any]) -> None:
    print(f"client pinned to CPU {results['client_cpu']}, server on CPU {results['server_cpu']}; "
          f"{TOKENS_PER_RESPONSE}-token responses, zero-delay server; tokens per client CPU-second, "
          f"median (range) of {results['repeat']} rounds")
    print(f"{'framing':>9}  {'streams':>7}  {'stackaudit':>27}  {'vLLM':>27}  {'ratio':>19}  "
          f"{'events/read':>17}  {'load avg':>13}  errors")
    for framing, entry in results["framings"].items():
        for level in entry["levels"]:
            ratio = level.get("ratio")
            ratio_text = f"{ratio['median']:.2f}× ({ratio['low']:.2f}–{ratio['high']:.2f})" if ratio else "-"
            print(f"{framing:>9}  {level['concurrency']:>7}  {_range(level['stackaudit'], ',.0f'):>27}  "
                  f"{_range(level.get('vllm'), ',.0f'):>27}  {ratio_text:>19}  "
                  f"{_range(level.get('events_per_read'), '.1f'):>17}  {_range(level['load_average'], '.1f'):>13}  "
                  f"{level['errors']}")
        raw = entry.get("server_tokens_per_s_raw_reader")
        if raw:
            print(f"{'':>9}  server alone (raw reader, {results['raw_reader_streams']} streams): {raw:,.0f} tokens/s")
    if not results["vllm_client"]:
        print("vLLM's client not measured: give --vllm-client PATH/endpoint_request_func.py")
    tpot = results.get("tpot")
    if tpot:
        print(
            f"TPOT at {tpot['streams']} streams ({tpot['requests']} requests): client error vs the server's actual send "
            f"times {tpot['client_error_pct_mean']:+.3f} % mean, {tpot['client_error_pct_worst']:.3f} % worst request; "
            f"vs the configured {tpot['truth_ms']} ms gap {tpot['vs_configured_pct_mean']:+.2f} % "
            "(includes the server's own lateness)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=5, help="rounds per figure (median and range)")
    parser.add_argument("--concurrency", default="1,8,32,128", help="stream counts, comma list")
    parser.add_argument("--framings", default=",".join(FRAMINGS))
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--vllm-client", metavar="PATH", help="vLLM's vllm/benchmarks/lib/endpoint_request_func.py")
    parser.add_argument("--streams", type=int, default=256, help="streams for the TPOT error (0: skip it)")
    parser.add_argument("--gap-ms", type=float, default=20.0)
    parser.add_argument("--read-path", action="store_true",
                        help="only stackaudit's CPU per socket read, replayed in this process (no server's pace)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--measure", nargs=4, metavar=("CLIENT", "URL", "STREAMS", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.measure:
        client, url, streams, seconds = args.measure
        print(json.dumps(asyncio.run(_measure(client, url, int(streams), float(seconds), args.vllm_client))))
        return 0

    from bench_support.servers import calibrated_server
    from stackaudit.bench.client import build_body

    client_cpu, server_cpu = _cores()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {client_cpu})
    if args.read_path:
        paths = {name: asyncio.run(_read_path([1, 4, 16], args.repeat, 2000, name == "http1"))
                 for name in ("http1", "aiohttp")}
        if args.json:
            print(json.dumps({"repeat": args.repeat, "reads_per_round": 2000, "read_path": paths}, indent=2))
        for name, read_path in ([] if args.json else paths.items()):
            print(f"stackaudit's read path through {name}, CPU µs per socket read of k chunked events, median "
                  f"(range) of {args.repeat} rounds of 2000 reads")
            for k, summary in read_path.items():
                print(f"  k={k:>2}: {_range(summary, '.2f')} µs per read, {summary['median'] / int(k):.2f} µs per event")
        return 0
    levels = [int(v) for v in args.concurrency.split(",") if v]
    clients = [c for c in args.clients.split(",") if c]
    vllm_found = _load_vllm(args.vllm_client) is not None if "vllm" in clients else False
    if not vllm_found:
        clients = [c for c in clients if c != "vllm"]
    raw_streams = 32
    results: dict[str, Any] = {"client_cpu": client_cpu, "server_cpu": server_cpu, "tokens_per_response": TOKENS_PER_RESPONSE,
                               "seconds": args.seconds, "repeat": args.repeat, "vllm_client": vllm_found, "raw_reader_streams": raw_streams,
                               "framings": {}}
    body = build_body("completions", "calibrated", "x", TOKENS_PER_RESPONSE, {})
    for framing in [f for f in args.framings.split(",") if f]:
        with calibrated_server("--ttft-ms", "0", "--gap-ms", "0", "--framing", framing, cpu=server_cpu) as url:
            entry: dict[str, Any] = {"levels": []}
            if framing != "blob":
                port = int(url.rsplit(":", 1)[1])
                entry["server_tokens_per_s_raw_reader"] = asyncio.run(_raw_reader(port, raw_streams, args.seconds, body))
            for concurrency in levels:
                level: dict[str, Any] = {"concurrency": concurrency, "rounds": _rounds(
                    clients, url, concurrency, args.seconds, args.repeat, args.vllm_client)}
                _summarise(level, clients)
                entry["levels"].append(level)
            results["framings"][framing] = entry
    if args.streams:
        with tempfile.TemporaryDirectory() as scratch:
            log_path = os.path.join(scratch, "times.tsv")
            with calibrated_server("--ttft-ms", "100", "--gap-ms", str(args.gap_ms), "--log-times", log_path,
                                   cpu=server_cpu) as url:
                results["tpot"] = asyncio.run(_tpot_error(url, args.streams, args.gap_ms, 64, log_path))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
