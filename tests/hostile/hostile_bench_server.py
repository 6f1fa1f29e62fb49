"""A hostile OpenAI-compatible server for bench's bounds (run as a script; prints `PORT n`).

A plain streaming server (usage in its last event, or none with `--no-usage`) plus one attack at a time:
`--metrics-bytes N` and `--models-bytes N` answer with N bytes and no Content-Length (the client cannot
know the size before reading); `--redirect-to URL --redirect-every K` answers every K-th completion with
a `--redirect-status` redirect to URL + the same path; `--self-report URL` reports that URL (with its
credentials) as its model id, in `/get_server_info` and in a `/metrics` info label (`--self-report-file
F`: every value of the JSON object in F under its own name in the last two, its `tokenizer_path` and
`note` in the model id); `--text-bytes N` puts N bytes
of text in every content chunk; `--big-headers` answers /v1/models with 200 headers of 8 KB;
`--trickle` answers every pre-run probe with headers, then a byte every 0.2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

PIECE = b"vllm:junk_total 1.0\n" * 52_429  # about 1 MiB of valid Prometheus lines


async def _json(writer: asyncio.StreamWriter, status: int, obj: Any, extra: str = "") -> None:
    body = json.dumps(obj).encode()
    writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode()
                 + body)
    await writer.drain()


async def _flood(writer: asyncio.StreamWriter, total: int, head: bytes = b"") -> None:
    """`total` bytes with no Content-Length: the body ends when the connection does."""
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n" + head)
    sent = len(head)
    while sent < total:
        piece = PIECE[: total - sent]
        writer.write(piece)
        sent += len(piece)
        await writer.drain()


def _event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


async def _stream(writer: asyncio.StreamWriter, body: dict[str, Any], args: argparse.Namespace) -> None:
    n = int(body.get("max_tokens") or 16)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    text = "w" * args.text_bytes
    for i in range(n):
        event = _event({"choices": [{"index": 0, "text": text, "finish_reason": "length" if i == n - 1 else None}]})
        writer.write(b"%x\r\n%s\r\n" % (len(event), event))
    tail = b""
    if args.usage:
        tail += _event({"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": n}})
    tail += b"data: [DONE]\n\n"
    writer.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(tail), tail))
    await writer.drain()


# What bench probes before a run (not /v1/models, which says the server is up, nor the completions).
_PROBES = ("/version", "/get_server_info", "/info", "/props", "/metrics", "/tokenize", "/extras/tokenize")


async def _trickle(writer: asyncio.StreamWriter) -> None:
    """Headers, then one byte of a long body every 0.2 s: each probe runs until its own timeout."""
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
    await writer.drain()
    for _ in range(5000):
        writer.write(b" ")
        await writer.drain()
        await asyncio.sleep(0.2)


async def handle(args: argparse.Namespace, state: dict[str, int], reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = next((int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), 0)
            raw = await reader.readexactly(length) if length else b""
            if args.big_headers and path == "/v1/models":
                # 200 headers of 8 KB each: more than aiohttp's limits allow.
                extra = "".join(f"X-Pad-{n}: {'x' * 8000}\r\n" for n in range(200))
                await _json(writer, 200, {"data": [{"id": "m"}]}, extra)
                return
            if args.trickle and path.split("?")[0] in _PROBES:
                await _trickle(writer)
                return
            if method == "GET" and path == "/metrics" and args.metrics_bytes:
                await _flood(writer, args.metrics_bytes)
                return
            if method == "GET" and path == "/v1/models" and args.models_bytes:
                await _flood(writer, args.models_bytes, b'{"data": [{"id": "' + b"m" * 64)
                return
            report = args.reported
            if method == "GET" and path == "/v1/models":
                # The model id holds what a path or a note could: never a value only its name marks secret.
                model = " ".join(report[k] for k in ("tokenizer_path", "note") if k in report) or "hostile"
                await _json(writer, 200, {"data": [{"id": model, "owned_by": "vllm"}]})
            elif method == "GET" and path == "/get_server_info" and report:
                await _json(writer, 200, {"version": "0.1", **report})
            elif method == "GET" and path == "/metrics" and report:
                labels = ",".join(f'{k}="{v}"'.replace("\n", "\\n") for k, v in report.items())
                text = f"vllm:generation_tokens_total 0.0\nvllm:model_info{{{labels}}} 1.0\n".encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (len(text), text))
                await writer.drain()
            elif method == "POST" and path.startswith("/v1/"):
                state["completions"] += 1
                if args.redirect_to and state["completions"] % args.redirect_every == 0:
                    extra = f"Location: {args.redirect_to}{path}\r\n"
                    await _json(writer, args.redirect_status, {"moved": True}, extra)
                else:
                    await _stream(writer, json.loads(raw or b"{}"), args)
            else:
                await _json(writer, 404, {"error": "not found"})
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metrics-bytes", type=int, default=0)
    parser.add_argument("--models-bytes", type=int, default=0)
    parser.add_argument("--redirect-to", default=None)
    parser.add_argument("--redirect-every", type=int, default=1)
    parser.add_argument("--redirect-status", type=int, default=307)
    parser.add_argument("--self-report", default=None)
    parser.add_argument("--text-bytes", type=int, default=1)
    parser.add_argument("--no-usage", dest="usage", action="store_false")
    parser.add_argument("--self-report-file", default=None)
    parser.add_argument("--big-headers", action="store_true")
    parser.add_argument("--trickle", action="store_true")
    args = parser.parse_args()
    args.reported = {"tokenizer_path": args.self_report, "dist_init_addr": args.self_report} if args.self_report else {}
    if args.self_report_file:
        with open(args.self_report_file, encoding="utf-8") as source:
            args.reported = json.load(source)
    state = {"completions": 0}
    server = await asyncio.start_server(lambda r, w: handle(args, state, r, w), "127.0.0.1", 0)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
