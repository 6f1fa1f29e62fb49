"""A scripted OpenAI-compatible server on 127.0.0.1 for the investigator tests (aiohttp, in a thread).

Each test sets `server.script`: a function of the request (`Call`: the investigator's domain from the
X-Stackaudit-Investigator header, the request body, how many requests that domain sent before) returning a
`Reply` — tool calls, text, an HTTP error or a delay. Streaming requests get Server-Sent Events chunks as the
OpenAI API sends them (tool-call arguments split across chunks, usage in a last chunk with no choices).
The server records every request and the most requests it held at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Reply:
    content: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)  # (name, arguments: a dict, or raw text)
    usage: tuple[int, int] | None = (100, 20)
    status: int = 200
    message: str = ""
    delay_s: float = 0.0
    finish_reason: str = ""


@dataclass
class Call:
    domain: str
    body: dict[str, Any]
    index: int
    headers: dict[str, str]

    def tool_outputs(self) -> list[str]:
        return [str(m.get("content", "")) for m in self.body.get("messages", []) if m.get("role") == "tool"]

    @property
    def forced(self) -> bool:
        return isinstance(self.body.get("tool_choice"), dict)


def call(tool: str, /, **arguments: Any) -> tuple[str, Any]:
    return tool, arguments


def report(*findings: dict[str, Any]) -> tuple[str, Any]:
    return "report_findings", {"findings": list(findings)}


def finding(fid: str, quote: str | list[str], observed: str = "", status: str = "issue", subject: str = "",
            title: str = "scripted finding", severity: str = "medium") -> dict[str, Any]:
    quotes = [quote] if isinstance(quote, str) else quote
    out: dict[str, Any] = {"id": fid, "status": status, "severity": severity, "confidence": "documented",
                           "title": title, "evidence": quotes}
    if observed:
        out["observed"] = observed
    if subject:
        out["subject"] = subject
    return out


class ScriptedServer:
    def __init__(self) -> None:
        self.script: Callable[[Call], Reply] = lambda c: Reply(tool_calls=[report()])
        self.requests: list[Call] = []
        self.active = 0
        self.max_active = 0
        self.models_status = 200
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self.url = ""

    def reset(self, script: Callable[[Call], Reply]) -> None:
        with self._lock:
            self.script = script
            self.requests = []
            self.max_active = 0
            self._counts = {}
            self.models_status = 200

    def by_domain(self, domain: str) -> list[Call]:
        return [c for c in self.requests if c.domain == domain]

    async def _models(self, request: web.Request) -> web.StreamResponse:
        if self.models_status != 200:
            return web.json_response({"error": {"message": "no"}}, status=self.models_status)
        return web.json_response({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        domain = request.headers.get("X-Stackaudit-Investigator", "")
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            index = self._counts.get(domain, 0)
            self._counts[domain] = index + 1
            current = Call(domain, body, index, dict(request.headers))
            self.requests.append(current)
        try:
            reply = self.script(current)
            if reply.delay_s:
                await asyncio.sleep(reply.delay_s)
            if reply.status != 200:
                return web.json_response({"error": {"message": reply.message or "scripted error"}},
                                         status=reply.status)
            calls = [{"id": f"call_{index}_{i}", "type": "function",
                      "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                     for i, (name, args) in enumerate(reply.tool_calls)]
            finish = reply.finish_reason or ("tool_calls" if calls else "stop")
            if body.get("stream"):
                return await self._stream(request, reply, calls, finish)
            message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
            if calls:
                message["tool_calls"] = calls
            out: dict[str, Any] = {"id": "cmpl", "object": "chat.completion", "created": 0, "model": "scripted",
                                   "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
            if reply.usage is not None:
                out["usage"] = {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                                "total_tokens": sum(reply.usage)}
            return web.json_response(out)
        finally:
            with self._lock:
                self.active -= 1

    async def _stream(self, request: web.Request, reply: Reply, calls: list[dict[str, Any]],
                      finish: str) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> None:
            chunk: dict[str, Any] = {"id": "cmpl", "object": "chat.completion.chunk", "created": 0,
                                     "model": "scripted", "choices": choices}
            if usage is not None:
                chunk["usage"] = usage
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        await send([{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}])
        for piece in _pieces(reply.content):
            await send([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
        for i, tc in enumerate(calls):
            args = tc["function"]["arguments"]
            await send([{"index": 0, "delta": {"tool_calls": [{"index": i, "id": tc["id"], "type": "function",
                                                                "function": {"name": tc["function"]["name"],
                                                                             "arguments": ""}}]},
                         "finish_reason": None}])
            for piece in _pieces(args):
                await send([{"index": 0, "delta": {"tool_calls": [{"index": i, "function": {"arguments": piece}}]},
                             "finish_reason": None}])
        await send([{"index": 0, "delta": {}, "finish_reason": finish}])
        if reply.usage is not None:
            await send([], {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                            "total_tokens": sum(reply.usage)})
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


def _pieces(text: str, size: int = 7) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i:i + size]


def serve_app(models: Any, chat: Any, name: str, max_body: int = 1024**2) -> tuple[str, Callable[[], None]]:
    """An OpenAI-style app (GET /v1/models, POST /v1/chat/completions) on a free loopback port, in a thread of
    its own; returns its URL and a function that stops it."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def boot() -> None:
        app = web.Application(client_max_size=max_body)
        app.router.add_get("/v1/models", models)
        app.router.add_post("/v1/chat/completions", chat)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        holder["url"] = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]
        holder["runner"] = runner

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(boot())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=main, name=name, daemon=True)
    thread.start()
    ready.wait(10)

    def stop() -> None:
        asyncio.run_coroutine_threadsafe(holder["runner"].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    return str(holder["url"]), stop


def start_server() -> tuple[ScriptedServer, Callable[[], None]]:
    """The server on a free loopback port, in its own thread; returns it and a function that stops it."""
    server = ScriptedServer()
    server.url, stop = serve_app(server._models, server._chat, "scripted-llm")
    return server, stop


def module_server() -> Iterator[ScriptedServer]:
    """The body of a module-scoped `server` fixture: one scripted server for a test module."""
    srv, stop = start_server()
    try:
        yield srv
    finally:
        stop()
