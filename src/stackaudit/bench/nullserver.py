"""An in-process zero-delay streaming server: the client measures its own ceiling on it.

It answers every POST with a pre-rendered OpenAI-style stream, one event per write with a
yield in between, so that the client sees one event per read — the costly case it meets at
high concurrency against a real server. The server shares the client's process and event
loop, so the ceiling measured is a lower bound of what the client can do alone.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any


def render_events(endpoint: str, n_tokens: int, model: str = "null", usage: bool = True) -> list[bytes]:
    """The SSE events of one response, one token per content event, then usage and [DONE]."""
    events = []
    for i in range(n_tokens):
        if endpoint == "chat":
            choice: dict[str, Any] = {"index": 0, "delta": {"content": " tok"}, "finish_reason": None}
            obj: dict[str, Any] = {"id": "null", "object": "chat.completion.chunk", "model": model, "choices": [choice]}
        else:
            choice = {"index": 0, "text": " tok", "logprobs": None, "finish_reason": None}
            obj = {"id": "null", "object": "text_completion", "model": model, "choices": [choice]}
        if i == n_tokens - 1:
            choice["finish_reason"] = "length"
        events.append(b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n")
    if usage:
        tail = {"id": "null", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": n_tokens}}
        events.append(b"data: " + json.dumps(tail, separators=(",", ":")).encode() + b"\n\n")
    events.append(b"data: [DONE]\n\n")
    return events


def _chunked(event: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(event), event)


class NullServer:
    def __init__(self, endpoint: str, n_tokens: int) -> None:
        self._frames = [_chunked(e) for e in render_events(endpoint, n_tokens)]
        self._server: asyncio.AbstractServer | None = None
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                if length:
                    await reader.readexactly(length)
                if head.startswith(b"GET"):
                    body = b'{"object":"list","data":[{"id":"null"}]}'
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                        % (len(body), body)
                    )
                    continue
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                )
                for frame in self._frames:
                    writer.write(frame)
                    await writer.drain()
                    await asyncio.sleep(0)
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()


async def measure_client_ceiling(
    endpoint: str, concurrency: int, n_tokens: int, seconds: float = 0.5
) -> dict[str, float]:
    """Content chunks per second the client parses against the null server at this concurrency."""
    from stackaudit.bench.client import RequestRecord, RequestSpec, build_body, make_session, stream_request

    server = NullServer(endpoint, n_tokens)
    await server.start()
    base = f"http://127.0.0.1:{server.port}"
    path = "/v1/chat/completions" if endpoint == "chat" else "/v1/completions"
    spec = RequestSpec(path, build_body(endpoint, "null", "x", n_tokens, {}), n_tokens)
    chunks = 0
    requests = 0
    errors = 0
    session = make_session(None, 30.0)
    try:
        deadline = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal chunks, requests, errors
            while time.perf_counter() < deadline:
                record = await stream_request(session, base, spec, RequestRecord(0, time.perf_counter(), n_tokens, None), 30.0)
                if record.ok:
                    chunks += record.n_chunks
                    requests += 1
                else:
                    errors += 1

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
        elapsed = time.perf_counter() - start
    finally:
        await session.close()
        await server.close()
    return {
        "concurrency": concurrency,
        "chunks_per_s": chunks / elapsed if elapsed > 0 else 0.0,
        "requests_per_s": requests / elapsed if elapsed > 0 else 0.0,
        "errors": errors,
        "seconds": elapsed,
    }
