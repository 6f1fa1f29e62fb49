"""A calibrated OpenAI-style streaming server for the bench tests, run in its own process.

It emits tokens at exact times: chunk j of a response leaves at t0 + TTFT + j·k·gap, where t0
is when the request was read and k the tokens per chunk; deadlines are absolute, so sleeps
that wake late do not accumulate. Options add usage or not, long lines, a server that gets
faster over its first requests, early EOS, Prometheus counters, a /tokenize endpoint, and
faults (HTTP 500 or 429, dropped connection, stall, malformed SSE, an over-long line, an error
event), `Connection: close` after every response, and zero-delay framings (one write, a
Content-Length blob, one HTTP chunk per event as uvicorn sends).

`--chunk-log FILE` appends one JSON line per streamed response with the server's own times
(CLOCK_MONOTONIC, the clock of the client's `time.perf_counter` on Linux): when the request
was read and when every chunk was written, with its tokens. Tests compare the client with
what the server did, not with its nominal schedule, so that a late wake-up on a loaded
machine is not counted as client error.

Usage: python calibrated_server.py --ttft-ms 100 --gap-ms 10 [...]; prints "PORT <n>" and serves
on 127.0.0.1 until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import json
import sys
from typing import Any


class State:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.requests = 0  # streamed generation requests seen (the preflight included)
        self.generated = 0  # output tokens sent, for /metrics
        self.prompt_tokens = 0
        self.seen: list[list[str]] = []  # prompts served, in words, for --prefix-cache
        # Open for the life of the process: one line per response, flushed per line.
        self.times_log = open(args.log_times, "a", buffering=1, encoding="utf-8") if args.log_times else None  # noqa: SIM115
        self.chunk_log = open(args.chunk_log, "a", buffering=1, encoding="utf-8") if args.chunk_log else None  # noqa: SIM115


# "Connection: close" on every response when the server runs with --close.
CONNECTION_HEADER = [b""]


def count_words(text: str) -> int:
    return len(text.split())


def _cached_words(state: State, words: list[str]) -> int:
    """Longest prefix, in words, that this prompt shares with one served before (a prefix cache)."""
    best = 0
    for earlier in state.seen:
        shared = 0
        for a, b in zip(earlier, words, strict=False):
            if a != b:
                break
            shared += 1
        best = max(best, shared)
    state.seen.append(words)
    del state.seen[:-256]
    return best


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


@functools.lru_cache(maxsize=4096)
def _content_event(chat: bool, text: str, finish: str | None, pad: str | None) -> bytes:
    """Content events repeat: each distinct one is rendered once, so the server's own cost stays small."""
    return _event(_content_obj(chat, text, finish, pad))


async def _respond_json(writer: asyncio.StreamWriter, status: int, obj: Any, content_type: str = "application/json") -> None:
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    reason = {200: "OK", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}.get(status, "Error")
    writer.write(
        b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n%s"
        % (status, reason.encode(), content_type.encode(), len(body), CONNECTION_HEADER[0], body)
    )
    await writer.drain()


def _content_obj(chat: bool, text: str, finish: str | None, pad: str | None) -> dict[str, Any]:
    if chat:
        choice: dict[str, Any] = {"index": 0, "delta": {"content": text}, "finish_reason": finish}
        obj: dict[str, Any] = {"id": "cal", "object": "chat.completion.chunk", "model": "calibrated", "choices": [choice]}
    else:
        choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
        obj = {"id": "cal", "object": "text_completion", "model": "calibrated", "choices": [choice]}
    if pad:
        obj["pad"] = pad
    return obj


async def stream(state: State, writer: asyncio.StreamWriter, body: dict[str, Any], chat: bool, t0: float, index: int) -> bool:
    """Send one streamed response; False when the connection must close."""
    args = state.args
    loop = asyncio.get_running_loop()
    max_tokens = int(body.get("max_tokens") or 16)
    messages = body.get("messages") or []
    prompt = messages[-1]["content"] if chat else body.get("prompt", "")
    # The whole conversation is the prompt a server prefills (joined as the client joins turns).
    transcript = "\n\n".join(m["content"] for m in messages) if chat else prompt
    prompt_tokens = count_words(transcript)
    cached = _cached_words(state, transcript.split()) if args.prefix_cache else 0
    # Prefill: a time per prompt token that the prefix cache did not already hold.
    prefill_s = args.prefill_ms_per_token * (prompt_tokens - cached) / 1000.0
    n = max_tokens
    finish = "length"
    suppress_eos = bool(body.get("ignore_eos")) or (body.get("logit_bias") or {}).get(str(args.eos_id)) == -100
    if args.eos_after and not suppress_eos and args.eos_after < n:
        n, finish = args.eos_after, "stop"
    gap = args.gap_ms / 1000.0
    if args.slow_first and index < args.slow_first:
        gap *= 1.0 + (args.slow_factor - 1.0) * (1.0 - index / args.slow_first)
    faulty_index = args.fault_every - 1 if not args.fault_first else 0
    fault = args.fault if (args.fault and args.fault_every and index % args.fault_every == faulty_index) else None
    if args.fault and args.fault_from and index >= args.fault_from:
        fault = args.fault
    if fault in ("http500", "http429"):
        status = 500 if fault == "http500" else 429
        await _respond_json(writer, status, {"error": {"message": "calibrated fault", "code": status}})
        return True
    k = args.tokens_per_chunk
    chunks = (n + k - 1) // k
    pad = "x" * args.line_pad if args.line_pad else None
    if args.ttft_ms == 0 and args.gap_ms == 0 and not fault and args.framing == "blob":
        # Zero-delay, Content-Length framing: the whole response as one body.
        events = [_content_event(chat, " w" * min(k, n - j * k), finish if j == chunks - 1 else None, pad) for j in range(chunks)]
        if args.usage and (body.get("stream_options") or {}).get("include_usage"):
            events.append(_event({"id": "cal", "choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n, "total_tokens": prompt_tokens + n}}))
        events.append(b"data: [DONE]\n\n")
        payload = b"".join(events)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n%s\r\n%s"
            % (len(payload), CONNECTION_HEADER[0], payload)
        )
        await writer.drain()
        state.generated += n
        return True
    writer.write(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n%s\r\n"
        % CONNECTION_HEADER[0]
    )
    if args.ttft_ms == 0 and args.gap_ms == 0 and not fault and args.framing == "chunked":
        # Zero-delay, one HTTP chunk per event in its own write, as uvicorn/starlette servers send.
        for j in range(chunks):
            writer.write(_chunk(_content_event(chat, " w" * min(k, n - j * k), finish if j == chunks - 1 else None, pad)))
        if args.usage and (body.get("stream_options") or {}).get("include_usage"):
            writer.write(_chunk(_event({"id": "cal", "choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n, "total_tokens": prompt_tokens + n}})))
        writer.write(_chunk(b"data: [DONE]\n\n"))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        state.generated += n
        return True
    if args.ttft_ms == 0 and args.gap_ms == 0 and not fault:
        # Zero-delay: the whole pre-rendered response in one write.
        frames = [
            _chunk(_content_event(chat, " w" * min(k, n - j * k), finish if j == chunks - 1 else None, pad))
            for j in range(chunks)
        ]
        if args.usage and (body.get("stream_options") or {}).get("include_usage"):
            frames.append(_chunk(_event({"id": "cal", "choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n, "total_tokens": prompt_tokens + n}})))
        frames.append(_chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
        writer.write(b"".join(frames))
        await writer.drain()
        state.generated += n
        return True
    sent_first = sent_last = 0.0
    chunk_times: list[float] = []
    chunk_tokens: list[int] = []
    for j in range(chunks):
        deadline = t0 + args.ttft_ms / 1000.0 + prefill_s + j * k * gap
        delay = deadline - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        if fault and j == 2:
            if fault == "drop":
                writer.transport.abort()
                return False
            if fault == "stall":
                await asyncio.sleep(3600)
            if fault == "malformed":
                writer.write(_chunk(b'data: {"choices": [{"text": "unterminated\n\n'))
                await writer.drain()
                continue
            if fault == "longline":
                writer.write(_chunk(b'data: {"choices":[{"text":"' + b"y" * 70_000))  # no end of line, ever
                await writer.drain()
                await asyncio.sleep(0.05)
                writer.transport.abort()
                return False
            if fault == "error_event":
                writer.write(_chunk(_event({"error": {"message": "calibrated error event", "code": 500}})))
                writer.write(_chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
                await writer.drain()
                return True
        tokens = min(k, n - j * k)
        writer.write(_chunk(_content_event(chat, " w" * tokens, finish if j == chunks - 1 else None, pad)))
        sent_last = loop.time()
        chunk_times.append(sent_last)
        chunk_tokens.append(tokens)
        if j == 0:
            sent_first = sent_last
        await writer.drain()
        state.generated += tokens
    if state.times_log is not None:
        # CLOCK_MONOTONIC, the clock of the client's perf_counter on Linux: directly comparable.
        state.times_log.write(f"{prompt}\t{sent_first:.9f}\t{sent_last:.9f}\t{n}\n")
    if state.chunk_log is not None:
        record = {
            "prompt": prompt, "received": t0, "chunk_times": chunk_times, "chunk_tokens": chunk_tokens, "finish": finish,
            "messages": [[m.get("role"), m.get("content")] for m in messages], "prompt_tokens": prompt_tokens, "cached_tokens": cached,
        }
        state.chunk_log.write(json.dumps(record) + "\n")
    if args.usage and (body.get("stream_options") or {}).get("include_usage"):
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": n, "total_tokens": prompt_tokens + n}
        writer.write(_chunk(_event({"id": "cal", "object": "text_completion", "choices": [], "usage": usage})))
    writer.write(_chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
    await writer.drain()
    state.prompt_tokens += prompt_tokens
    state.generated += args.metrics_overcount
    return True


async def handle(state: State, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    args = state.args
    loop = asyncio.get_running_loop()
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            t0 = loop.time()
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            raw = await reader.readexactly(length) if length else b""
            t0 = loop.time()
            if args.require_key and f"authorization: bearer {args.require_key}".lower() not in head.decode("latin-1").lower():
                await _respond_json(writer, 401, {"error": {"message": "missing or wrong API key"}})
                continue
            if method == "GET" and path == "/v1/models":
                await _respond_json(writer, 200, {"object": "list", "data": [{"id": "calibrated", "object": "model", "owned_by": "stackaudit-test"}]})
            elif method == "GET" and path == "/version" and args.version:
                await _respond_json(writer, 200, {"version": args.version})
            elif method == "GET" and path == "/metrics" and args.metrics:
                text = (
                    "# TYPE vllm:generation_tokens_total counter\n"
                    f'vllm:generation_tokens_total{{model_name="calibrated"}} {float(state.generated)}\n'
                    f'vllm:prompt_tokens_total{{model_name="calibrated"}} {float(state.prompt_tokens)}\n'
                    f'vllm:cache_config_info{{block_size="16",enable_prefix_caching="True",gap_ms="{args.gap_ms}"}} 1.0\n'
                )
                await _respond_json(writer, 200, text.encode(), "text/plain")
            elif method == "POST" and path == "/control" and args.control:
                # Tests change the token gap between runs without a new server (same URL).
                args.gap_ms = float(json.loads(raw or b"{}")["gap_ms"])
                await _respond_json(writer, 200, {"gap_ms": args.gap_ms})
            elif method == "POST" and path == "/tokenize" and args.tokenize:
                body = json.loads(raw or b"{}")
                text = body.get("prompt", body.get("content", ""))
                await _respond_json(writer, 200, {"count": count_words(text), "tokens": list(range(count_words(text)))})
            elif method == "POST" and path in ("/v1/completions", "/v1/chat/completions"):
                body = json.loads(raw or b"{}")
                chat = path.endswith("chat/completions")
                index = state.requests
                state.requests += 1
                if body.get("stream"):
                    if not await stream(state, writer, body, chat, t0, index):
                        return
                    if args.close:
                        return
                else:
                    n = int(body.get("max_tokens") or 16)
                    prompt = body["messages"][-1]["content"] if chat else body.get("prompt", "")
                    await _respond_json(writer, 200, {"choices": [{"text": " w" * n}], "usage": {"prompt_tokens": count_words(prompt), "completion_tokens": n}})
            else:
                await _respond_json(writer, 404, {"error": "not found"})
            if args.close:
                return  # one response per connection: the client must connect again
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ttft-ms", type=float, default=100.0)
    parser.add_argument("--gap-ms", type=float, default=10.0)
    parser.add_argument("--tokens-per-chunk", type=int, default=1)
    parser.add_argument("--no-usage", dest="usage", action="store_false")
    parser.add_argument("--line-pad", type=int, default=0, help="bytes of padding in every content event")
    parser.add_argument("--slow-first", type=int, default=0, help="the first N requests are slower")
    parser.add_argument("--slow-factor", type=float, default=2.0, help="gap multiplier of the very first request")
    parser.add_argument("--eos-after", type=int, default=0, help="stop after N tokens unless EOS is suppressed")
    parser.add_argument("--eos-id", type=int, default=2)
    parser.add_argument("--fault", choices=["http500", "http429", "drop", "stall", "malformed", "longline", "error_event"])
    parser.add_argument("--fault-every", type=int, default=0)
    parser.add_argument("--fault-first", action="store_true", help="fault requests 0, N, 2N … (the first probe too)")
    parser.add_argument("--fault-from", type=int, default=0, help="fault every request from this index on")
    parser.add_argument("--control", action="store_true", help="POST /control {\"gap_ms\": x} sets the token gap")
    parser.add_argument("--close", action="store_true", help="'Connection: close' and close after every response")
    parser.add_argument("--framing", choices=["one-write", "blob", "chunked"], default="one-write",
                        help="zero-delay responses: chunked in one write, a Content-Length blob, or one write per event")
    parser.add_argument("--chunk-log", default=None, help="append one JSON line per response: the server's own chunk times")
    parser.add_argument("--tokenize", action="store_true")
    parser.add_argument("--prefill-ms-per-token", type=float, default=0.0,
                        help="TTFT grows by this per prompt token not already in the prefix cache")
    parser.add_argument("--prefix-cache", action="store_true",
                        help="prompt words shared with an earlier prompt (its prefix) cost no prefill")
    parser.add_argument("--metrics", action="store_true")
    parser.add_argument("--metrics-overcount", type=int, default=0, help="tokens /metrics over-reports per response")
    parser.add_argument("--version", default=None)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log-times", default=None, help="append 'prompt, first and last chunk send times' per response")
    parser.add_argument("--require-key", default=None, help="answer 401 without this bearer token")
    args = parser.parse_args()
    state = State(args)
    if args.close:
        CONNECTION_HEADER[0] = b"Connection: close\r\n"
    gc.freeze()
    gc.disable()  # no collector pauses in the middle of a timed stream
    server = await asyncio.start_server(lambda r, w: handle(state, r, w), "127.0.0.1", args.port, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    sys.stdout.write(f"PORT {port}\n")
    sys.stdout.flush()
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
