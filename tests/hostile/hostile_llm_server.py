"""A hostile OpenAI-compatible endpoint on 127.0.0.1 (aiohttp, in a thread), one behaviour per `mode`
(review 2026-12, section 2; modelled on its repro server):

- `huge`: a chat reply whose `content` is `size` bytes, sent in 1 MiB pieces without a Content-Length;
- `manycalls`: one reply with `calls` tool calls, then a report once asked again;
- `deep`: tool-call arguments and content nested `depth` levels deep;
- `redirect`: HTTP 307 to `target` (another origin);
- `gzip`: a gzip-encoded reply that inflates to `size` bytes;
- `badjson`: a body that is not UTF-8 JSON.

Every request is recorded with its body size.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

_PIECE = 1024 * 1024


@dataclass
class HostileLLM:
    mode: str = "huge"
    size: int = 200 * 1024 * 1024
    calls: int = 2000
    depth: int = 5000
    target: str = ""
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)

    async def models(self, request: web.Request) -> web.StreamResponse:
        self.requests.append({"path": request.path, "bytes": 0})
        if self.mode == "redirect":
            raise web.HTTPTemporaryRedirect(self.target + request.path)
        return web.json_response({"object": "list", "data": [{"id": "m", "object": "model"}]})

    async def chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = json.loads(raw)
        tools = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
        self.requests.append({"path": request.path, "bytes": len(raw), "tool_messages": tools})
        if self.mode == "redirect":
            raise web.HTTPTemporaryRedirect(self.target + request.path)
        if self.mode == "huge":
            return await self._huge(request)
        if self.mode == "gzip":
            return await self._gzip(request)
        if self.mode == "badjson":
            return web.Response(body=b"\xff\xfe{not json", content_type="application/json")
        if self.mode == "manycalls" and not tools:
            calls = [("read_file", json.dumps({"path": "/proc/sys/vm/swappiness"}))] * self.calls
        elif self.mode == "deep" and not tools:
            calls = [("read_file", "[" * self.depth), ("read_file", "[" * (self.depth * 40))]
        else:
            calls = [("report_findings", json.dumps({"findings": []}))]
        content = ('{"findings": ' + "[" * self.depth) if self.mode == "deep" else None
        message = {"role": "assistant", "content": content, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)]}
        return web.json_response({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                  "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    async def _huge(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        try:
            await response.write(b'{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,'
                                 b'"message":{"role":"assistant","content":"')
            piece = b"a" * _PIECE
            for _ in range(self.size // _PIECE):
                await response.write(piece)
            await response.write(b'"},"finish_reason":"stop"}]}')
            await response.write_eof()
        except (ConnectionError, RuntimeError):
            pass  # the client stopped reading: what a capped client does
        return response

    async def _gzip(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})
        await response.prepare(request)
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        try:
            await response.write(packer.compress(b'{"choices":[{"index":0,"message":{"content":"'))
            zeros = b"0" * _PIECE
            for _ in range(self.size // _PIECE):
                await response.write(packer.compress(zeros))
            await response.write(packer.compress(b'"}}]}') + packer.flush())
            await response.write_eof()
        except (ConnectionError, RuntimeError):
            pass
        return response


@contextmanager
def serve(llm: HostileLLM) -> Iterator[HostileLLM]:
    """The endpoint on a free loopback port for the `with` block."""
    from investigate_support import serve_app

    llm.url, stop = serve_app(llm.models, llm.chat, "hostile-llm", max_body=64 * 1024 * 1024)
    try:
        yield llm
    finally:
        stop()
