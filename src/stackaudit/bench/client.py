"""One streamed request, recorded into a `RequestRecord`.

A plain `http://` server gets the streams through bench's own HTTP/1.1 client (`bench/http1.py`, chosen
per base URL by `own_pool` before anything is sent); `https://` and everything else go through aiohttp,
as do the probes and the bodies read whole. Both paths hand each socket read to the same `_Sink` and SSE
parser in the socket callback, and a request is sent once on either.

The aiohttp session is shared by all requests of a run, with no connection limit (aiohttp's default
of 100 silently caps concurrency: https://github.com/gpustack/gpustack/pull/2324) and long
keep-alive, so that connection setup and TLS handshakes do not land in TTFT
(https://github.com/vllm-project/vllm/pull/21981).

Keep-alive does not help against a server that closes every connection after its response
(`Connection: close`): each later request would pay a TCP connect inside its TTFT, 1.4–2.6 ms
through aiohttp's connect path at 16 streams. `SpareConnector` (`http1.Pool.open_spare` on the
own path) opens the slot's next connection while the current response streams, and every connect
a request still pays on its own path is timed and kept in its record.

What a server sends is bounded (docs/design.md, "Bounds"): a body read whole (`/v1/models`,
`/metrics`, version and tokenize replies) is read through `read_body` and cut off past
`MAX_BODY_BYTES`; an error body is read up to `ERROR_BODY_BYTES`; a completion stream past
`max_stream_bytes(max_tokens)` is an error; a request keeps its decoded text only (at most 16
bytes per token asked), never the SSE bytes. Redirects are followed only within the origin asked
for: a redirect elsewhere is refused and counted as a `redirect` error, so that nothing is
measured against another server under this one's URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import time
from asyncio import selector_events
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from yarl import URL

from stackaudit.bench.http1 import ERROR_BODY_BYTES, Connection, HttpError, Pool, thread_buffer
from stackaudit.bench.sse import DEFAULT_MAX_EVENT_BYTES, TEXT_BYTES_PER_TOKEN, StreamError, StreamParser
from stackaudit.host.limits import MAX_FILE_BYTES, load_json
from stackaudit.render.text import error_line, one_line

ENDPOINTS = {"completions": "/v1/completions", "chat": "/v1/chat/completions"}

# A body read whole: vLLM's /metrics page is 50-300 KiB, /v1/models a few KiB per model.
MAX_BODY_BYTES = MAX_FILE_BYTES
# A completion stream: per token asked (a chunk with top-20 logprobs is about 4 KiB), plus room
# for the first and last events.
STREAM_BYTES_PER_TOKEN = 64 * 1024
STREAM_BASE_BYTES = 1024 * 1024


def max_stream_bytes(max_tokens: int) -> int:
    return STREAM_BASE_BYTES + STREAM_BYTES_PER_TOKEN * max(1, max_tokens)


class BodyTooLarge(ValueError):
    """A response body past its cap (a ValueError, as a body that is not JSON is)."""


class CrossOriginRedirect(aiohttp.ClientConnectionError):
    """The server redirected to another scheme, host or port: not followed."""


async def read_body(response: aiohttp.ClientResponse, limit: int = MAX_BODY_BYTES) -> bytes:
    """The whole body, or BodyTooLarge as soon as it passes `limit` bytes (the connection is dropped)."""
    declared = response.content_length
    if declared is not None and declared > limit:
        response.close()
        raise BodyTooLarge(f"{response.url.path} body is {declared} bytes, over the limit of {limit}")
    parts: list[bytes] = []
    size = 0
    while True:
        data = await response.content.read(min(1 << 20, limit + 1 - size))
        if not data:
            return b"".join(parts)
        size += len(data)
        if size > limit:
            response.close()
            raise BodyTooLarge(f"{response.url.path} body is over the limit of {limit} bytes")
        parts.append(data)


async def read_json(response: aiohttp.ClientResponse, limit: int = MAX_BODY_BYTES) -> Any:
    """The body as JSON (size, depth and number limits of `load_json`); ValueError otherwise."""
    return load_json(await read_body(response, limit), response.url.path, max_bytes=limit)


async def read_text(response: aiohttp.ClientResponse, limit: int = MAX_BODY_BYTES) -> str:
    return (await read_body(response, limit)).decode("utf-8", "replace")


def _origin(url: URL) -> str:
    return f"{url.scheme}://{url.host}:{url.port}"


def _refused(origin: str, ours: str) -> str:
    return f"redirect: a redirect to another origin ({origin}) refused; only redirects within {ours} are followed"


# Redirects followed within the origin, as aiohttp's default.
MAX_REDIRECTS = 10



# The response bytes of a stream are parsed where they arrive. A coroutine resumes only after the
# event loop has run every callback already queued; with hundreds of streams finishing and
# restarting together that delay reaches milliseconds and would land in TPOT. So the time is taken
# in aiohttp's socket callback, `ResponseHandler.data_received` (one call per socket read), and the
# body's pieces, which aiohttp's HTTP parser hands to `StreamReader.feed_data` inside that call (one
# per HTTP chunk), go to the stream's `_Sink` instead of the reader's buffer. Both are class-level
# wrappers (the classes have __slots__) that act only for connections a `_Sink` is attached to.
#
# The reading coroutine then only waits for the end of the body, an error or the timeout. On
# chunked framing (one HTTP chunk per SSE event, as uvicorn sends) this spares, per event,
# aiohttp's buffering, its flow control (a resume_reading and a parser call for every chunk read
# back) and a coroutine resume; each socket read is parsed once, whatever its number of chunks.


class _Sink:
    """One stream's body, taken from aiohttp's socket callback and parsed once per socket read.

    Attached to the connection by `SpareConnector.connect` (in the request's own task, before the
    request is sent), so that bytes arriving with the response headers are taken too. Until the
    response is known to be a 200 (`start`), reads are held with their arrival times; a response
    of another status keeps its first bytes as the error body. Past `cap` bytes, or on a parse
    error, the sink fails the reader with that error.
    """

    __slots__ = ("arrived", "asked", "cap", "error", "held", "parser", "pending", "protocol", "reader", "received")

    def __init__(self, parser: StreamParser, cap: int, asked: int) -> None:
        self.parser = parser
        self.cap = cap
        self.asked = asked  # output tokens asked (for the message past `cap`)
        self.received = 0
        self.pending: list[bytes] = []  # the pieces of the socket read under way
        self.arrived = 0.0  # when that read arrived
        self.held: list[tuple[float, bytes]] | None = []  # reads before `start`; None once started
        self.reader: aiohttp.StreamReader | Connection | None = None  # failed with the sink's error
        self.error: StreamError | None = None
        self.protocol: Any = None

    def attach(self, protocol: Any) -> None:
        """Take the body of the next response on this connection (a redirect's body is dropped)."""
        self.detach()
        self.protocol = protocol
        self.held = []
        self.received = 0
        _SINKS[id(protocol)] = self

    def detach(self) -> None:
        if self.protocol is not None and _SINKS.get(id(self.protocol)) is self:
            del _SINKS[id(self.protocol)]
        self.protocol = None

    def end_read(self) -> None:
        pending = self.pending
        if not pending:
            return
        self.pending = []
        data = pending[0] if len(pending) == 1 else b"".join(pending)
        if self.held is None:
            self.feed(data, self.arrived)
        else:
            self.held.append((self.arrived, data))
            self.received += len(data)
            if self.received > self.cap:
                self.detach()  # the rest is not kept; a 200 fails at `start`

    def start(self, reader: aiohttp.StreamReader | Connection) -> None:
        """The response is a 200: parse the reads held so far, and every later one as it arrives."""
        held, self.held = self.held or [], None
        self.reader = reader
        self.received = 0
        for arrived, data in held:
            self.feed(data, arrived)
        if self.error is not None:
            raise self.error

    def held_body(self, limit: int) -> bytes:
        """The first `limit` bytes of a response that is not a 200 (its error body)."""
        return b"".join(data for _, data in self.held or [])[:limit]

    def feed(self, data: bytes, arrived: float) -> None:
        if self.error is not None:
            return
        self.received += len(data)
        try:
            if self.received > self.cap:
                raise StreamError(f"response stream over {self.cap} bytes for {self.asked} tokens asked")
            self.parser.feed(data, arrived)
        except StreamError as exc:
            self.error = exc
            self.detach()
            if self.reader is not None:
                self.reader.set_exception(exc)


# Connection (protocol) id → the sink taking its response body.
_SINKS: dict[int, _Sink] = {}


class _Reading:
    """The sink whose connection's socket read is being handled (set around `data_received`)."""

    sink: _Sink | None = None


def _install_arrival_clock() -> None:
    from aiohttp.client_proto import ResponseHandler

    original_feed = aiohttp.StreamReader.feed_data
    original_received = ResponseHandler.data_received
    if getattr(original_feed, "_stackaudit_clock", False):
        return
    sinks = _SINKS
    reading = _Reading
    clock = time.perf_counter

    def data_received(self: ResponseHandler, data: bytes) -> None:
        sink = sinks.get(id(self))
        if sink is None or not data:
            return original_received(self, data)
        sink.arrived = clock()
        reading.sink = sink
        try:
            return original_received(self, data)
        finally:
            reading.sink = None
            sink.end_read()

    def feed_data(self: aiohttp.StreamReader, data: bytes, *args: Any, **kwargs: Any) -> Any:
        sink = reading.sink
        if sink is None:
            return original_feed(self, data, *args, **kwargs)
        if data:
            sink.pending.append(data)
        return False  # nothing buffered: no more data is pending in this reader

    feed_data._stackaudit_clock = True  # type: ignore[attr-defined]
    aiohttp.StreamReader.feed_data = feed_data  # type: ignore[method-assign]
    ResponseHandler.data_received = data_received  # type: ignore[method-assign]


_install_arrival_clock()


# asyncio's socket transport reads for a plain Protocol (aiohttp's is one) with `recv(max_size)`: a new
# 256 KiB bytes object per read, shrunk to the bytes read. A BufferedProtocol is handed a buffer to
# `recv_into` instead. On the chunked test server, a reader that does nothing else read 149,686 tokens
# per CPU-second as a Protocol and 204,762 as a BufferedProtocol (docs/benchmarks.md). `_BufferedReads`
# hands aiohttp's handler a copy of only the bytes read, inside the same callback, so one buffer per
# thread (the event loop's, `http1.thread_buffer`) serves every connection.


class _BufferedReads(asyncio.BufferedProtocol):
    """aiohttp's protocol for one connection, fed from the buffer the transport reads into."""

    __slots__ = ("handler", "view")

    def __init__(self, handler: asyncio.Protocol) -> None:
        self.handler = handler
        self.view = thread_buffer()  # created in the loop's thread, which makes every call

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.view

    def buffer_updated(self, nbytes: int) -> None:
        self.handler.data_received(bytes(self.view[:nbytes]))

    def eof_received(self) -> bool | None:
        return self.handler.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.handler.connection_lost(exc)

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()


_SOCKET_TRANSPORT: type[asyncio.Transport] = getattr(selector_events, "_SelectorSocketTransport")  # noqa: B009 (private in typeshed)


def _read_into_buffer(handler: asyncio.Protocol) -> None:
    """Have the transport of this aiohttp connection read into a buffer (plain TCP only; TLS is left as it is)."""
    transport = getattr(handler, "transport", None)
    if isinstance(transport, _SOCKET_TRANSPORT) and transport.get_protocol() is handler and not transport.is_closing():
        transport.set_protocol(_BufferedReads(handler))


# The request whose connection the connector is opening: set by `stream_request` in its own
# task, read by `SpareConnector._create_connection` (same task, so the same context).
_CURRENT: contextvars.ContextVar[RequestRecord | None] = contextvars.ContextVar("stackaudit_bench_request", default=None)
# The sink of that request's response body: attached by `SpareConnector.connect` to the connection it gets.
_CURRENT_SINK: contextvars.ContextVar[_Sink | None] = contextvars.ContextVar("stackaudit_bench_sink", default=None)

# Spare connections older than this are not handed out: the server may have dropped them.
SPARE_MAX_AGE_S = 30.0


class SpareConnector(aiohttp.TCPConnector):
    """A TCP connector that keeps spare connections for servers that close after each response.

    `open_spare(key)` starts a connection in the background and parks it here, outside the
    keep-alive pool; the next request that finds no pooled connection takes it instead of
    connecting on its own path. A connect that a request does pay is timed into its record.
    """

    def __init__(self, *args: Any, own_http: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.own_http = own_http  # plain http:// streams go through `http1` (see `own_pool`)
        self.pools: dict[str, Pool | None] = {}  # base URL → its `http1` pool, None where aiohttp serves it
        self._spares: defaultdict[Any, deque[tuple[Any, float]]] = defaultdict(deque)
        self._spare_tasks: set[asyncio.Task[None]] = set()
        self._templates: dict[Any, tuple[Any, Any]] = {}  # key → (request, timeout) to connect like
        self.origin: str | None = None  # scheme://host:port of the server, set by the first request

    async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
        # Every request of a session goes to one server: its first request sets the origin, and a
        # connection elsewhere can only be a redirect's, refused before it is opened. (A connector
        # check costs nothing per request; a TraceConfig's signals cost about a fifth of a request.)
        origin = _origin(req.url)
        if self.origin is None:
            self.origin = origin
        elif origin != self.origin:
            raise CrossOriginRedirect(_refused(origin, self.origin))
        connection = await super().connect(req, traces, timeout)
        sink = _CURRENT_SINK.get()
        if sink is not None and connection.protocol is not None:
            sink.attach(connection.protocol)  # before the request is sent: no byte of its response is missed
            _read_into_buffer(connection.protocol)
        return connection

    async def _create_connection(self, req: Any, traces: Any, timeout: Any) -> Any:
        key = req.connection_key
        self._templates[key] = (req, timeout)
        spares = self._spares.get(key)
        now = time.perf_counter()
        while spares:
            proto, opened = spares.popleft()
            if proto.is_connected() and now - opened <= SPARE_MAX_AGE_S:
                record = _CURRENT.get()
                if record is not None:
                    record.connection = "spare"
                return proto
            proto.close()
        record = _CURRENT.get()
        started = time.perf_counter()
        proto = await super()._create_connection(req, traces, timeout)
        if record is not None:
            record.connection = "new"
            record.connect_ms = (time.perf_counter() - started) * 1000.0
        return proto

    def key_for(self, host: str | None, port: int | None) -> Any:
        """The connection key this connector used for host:port, if it connected there before."""
        for key in self._templates:
            if key.host == host and key.port == port:
                return key
        return None

    def open_spare(self, key: Any) -> None:
        """Open one connection to `key` in the background (no request is sent on it)."""
        template = self._templates.get(key)
        if template is None or self.closed:
            return
        task = asyncio.get_running_loop().create_task(self._open_spare(key, *template))
        self._spare_tasks.add(task)
        task.add_done_callback(self._spare_tasks.discard)

    async def open_spares(self, key: Any, count: int) -> None:
        """Have `count` spare connections to `key` ready (before a level against a closing server)."""
        template = self._templates.get(key)
        if template is None:
            return
        parked = sum(1 for proto, _ in self._spares.get(key, ()) if proto.is_connected())
        await asyncio.gather(*(self._open_spare(key, *template) for _ in range(max(0, count - parked))))

    async def _open_spare(self, key: Any, req: Any, timeout: Any) -> None:
        token = _CURRENT.set(None)
        try:
            proto = await super()._create_connection(req, [], timeout)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
            return  # the request that needed it will connect itself, and say so
        finally:
            _CURRENT.reset(token)
        if self.closed:
            proto.close()
            return
        self._spares[key].append((proto, time.perf_counter()))

    async def close(self, *args: Any, **kwargs: Any) -> Any:
        for task in list(self._spare_tasks):
            task.cancel()
        for task in list(self._spare_tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for spares in self._spares.values():
            for proto, _ in spares:
                proto.close()
        self._spares.clear()
        for pool in self.pools.values():
            if pool is not None:
                await pool.close()
        return await super().close(*args, **kwargs)


class RequestRecord:
    """Everything measured about one request. Times are `time.perf_counter()` seconds."""

    __slots__ = (
        "approximate",
        "body",
        "chunk_counts",
        "chunk_times",
        "chunks",
        "connect_ms",
        "connection",
        "ended",
        "error",
        "events",
        "finish",
        "finish_reason",
        "first",
        "index",
        "intended",
        "max_tokens",
        "n_chunks",
        "output_tokens",
        "per_chunk_tokens",
        "prompt_tokens",
        "prompt_tokens_target",
        "reads",
        "sent",
        "server_closes",
        "status",
        "text_cut",
        "token_source",
        "tokens_per_chunk_known",
        "usage",
    )

    def __init__(self, index: int, intended: float, max_tokens: int, prompt_tokens_target: int | None) -> None:
        self.index = index
        self.intended = intended  # when the request should have been sent (slot freed / scheduled arrival)
        self.sent = 0.0  # when the client actually started it
        self.first: float | None = None  # first content chunk
        self.finish = 0.0  # last content chunk (or the error)
        self.ended = 0.0  # the response fully read (usage, [DONE]) and the connection released
        self.chunk_times: list[float] = []
        self.chunk_counts: list[int] = []
        self.n_chunks = 0
        self.usage: dict[str, Any] | None = None
        self.per_chunk_tokens: list[int] = []
        self.finish_reason: str | None = None
        self.error: str | None = None
        # The decoded text of every content chunk, kept only without usage (to count tokens after the
        # run), at most TEXT_BYTES_PER_TOKEN × max_tokens bytes; text_cut when that was reached.
        self.chunks: list[str] | None = None
        self.text_cut = False
        self.max_tokens = max_tokens
        self.prompt_tokens_target = prompt_tokens_target
        self.output_tokens: int | None = None  # settled after the run (usage, re-tokenized or chunks)
        self.prompt_tokens: int | None = None
        self.token_source = "chunks"
        self.approximate = True
        self.body: bytes | None = None  # the request body sent (holds no credential)
        self.status: int | None = None  # HTTP status, None when no response came
        self.connection = "pooled"  # "pooled" (kept alive), "spare" (opened during an earlier stream), "new"
        self.connect_ms: float | None = None  # a TCP connect paid on this request's own path, inside its TTFT
        self.server_closes = False  # the response said `Connection: close`
        self.reads = 0  # pieces of the stream handed to the parser as they arrived
        self.events = 0  # SSE events in them
        # False when the text shows several tokens in some chunks and nothing counts them exactly.
        self.tokens_per_chunk_known = True

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class RequestSpec:
    """What to send: the endpoint path, JSON body bytes, headers."""

    path: str
    body: bytes
    max_tokens: int
    prompt_tokens_target: int | None = None
    headers: dict[str, str] = field(default_factory=dict)


def build_body(
    endpoint: str,
    model: str,
    prompt: str,
    max_tokens: int,
    sampling: dict[str, Any],
    continuous_usage: bool = False,
    messages: list[dict[str, str]] | None = None,
) -> bytes:
    """The request body. `stream_options.include_usage` asks for the token counts we report.

    `messages`: a conversation so far (chat, `--turns`), sent instead of the one user message.
    """
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "stream": True}
    if endpoint == "chat":
        body["messages"] = messages if messages else [{"role": "user", "content": prompt}]
    else:
        body["prompt"] = prompt
    options: dict[str, Any] = {"include_usage": True}
    if continuous_usage:
        # vLLM: per-chunk cumulative usage, so tokens per chunk are exact
        # (https://github.com/openshift-psap/llm-load-test/pull/81).
        options["continuous_usage_stats"] = True
    body["stream_options"] = options
    body.update(sampling)
    return json.dumps(body, separators=(",", ":")).encode()


def make_session(api_key: str | None, timeout_s: float, own_http: bool = True) -> aiohttp.ClientSession:
    """The session of a run; `own_http=False` sends streams to plain http:// servers through aiohttp too."""
    connector = SpareConnector(
        limit=0, limit_per_host=0, keepalive_timeout=600, enable_cleanup_closed=True, own_http=own_http)
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return aiohttp.ClientSession(
        connector=connector,
        headers=headers,
        timeout=aiohttp.ClientTimeout(total=timeout_s, sock_connect=min(timeout_s, 30.0)),
        # Lines are split by our own parser, not aiohttp's readline, so there is no 64 KB or
        # 128 KB line limit (https://github.com/NVIDIA/TensorRT-LLM/pull/13952).
        read_bufsize=2**20,
        auto_decompress=False,
    )


async def stream_request(
    session: aiohttp.ClientSession,
    base_url: str,
    spec: RequestSpec,
    record: RequestRecord,
    timeout_s: float,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> RequestRecord:
    """Send one streamed request and record its timing; never raises for a failed request."""
    perf_counter = time.perf_counter
    parser = StreamParser(max_event_bytes=max_event_bytes, text_cap=TEXT_BYTES_PER_TOKEN * max(1, record.max_tokens))
    stream_cap = max_stream_bytes(record.max_tokens)
    sink = _Sink(parser, stream_cap, record.max_tokens)
    record.body = spec.body
    token = _CURRENT.set(record)
    sink_token = _CURRENT_SINK.set(sink)
    record.sent = perf_counter()
    try:
        pool = own_pool(session, base_url)
        if pool is not None:
            await _stream_own(pool, base_url, spec, record, sink, timeout_s)
        else:
            await _stream_aiohttp(session, base_url, spec, record, sink)
    except (StreamError, CrossOriginRedirect, HttpError) as exc:
        record.error = str(exc)
    except asyncio.TimeoutError:
        record.error = f"timeout: no complete response within {timeout_s:g} s"
    except aiohttp.ClientPayloadError as exc:
        record.error = f"connection dropped mid-stream: {error_line(exc, 200)}"
    except aiohttp.ServerDisconnectedError:
        record.error = "connection dropped mid-stream: server disconnected"
    except aiohttp.ClientConnectionError as exc:
        record.error = f"connection error: {error_line(exc, 200)}"
    except aiohttp.ClientError as exc:
        record.error = f"client error: {error_line(exc, 200)}"
    except OSError as exc:  # `http1`'s connect
        record.error = f"connection error: {error_line(exc, 200)}"
    finally:
        sink.detach()
        _CURRENT_SINK.reset(sink_token)
        _CURRENT.reset(token)
    record.ended = perf_counter()
    record.reads = parser.reads
    record.events = parser.events
    record.finish = parser.chunk_times[-1] if (record.error is None and parser.chunk_times) else perf_counter()
    record.chunk_times = parser.chunk_times
    record.chunk_counts = parser.chunk_counts
    record.n_chunks = parser.n_chunks
    record.first = parser.chunk_times[0] if parser.chunk_times else None
    record.usage = parser.usage
    record.per_chunk_tokens = parser.per_chunk_tokens
    record.finish_reason = parser.finish_reason
    # The text only where it may be needed: no usage to count tokens from.
    record.chunks = parser.chunks if parser.usage is None else None
    record.text_cut = parser.text_cut and parser.usage is None
    return record


def own_pool(session: aiohttp.ClientSession, base_url: str) -> Pool | None:
    """The `http1` pool that carries this session's streams to `base_url`, or None where aiohttp carries them.

    Decided once per base URL, before any request is sent: a plain `http://` URL without credentials, in a
    session of `make_session` that reads no proxy from the environment and whose headers hold no line break.
    `https://` and everything else stay on aiohttp.
    """
    connector = session.connector
    if not isinstance(connector, SpareConnector):
        return None
    pools = connector.pools
    if base_url not in pools:
        url = URL(base_url)
        lines = [f"Host: {url.raw_authority}", *(f"{name}: {value}" for name, value in session.headers.items())]
        own = (connector.own_http and url.scheme == "http" and url.raw_host and not url.user and not url.password
               and not session.trust_env and not any("\r" in line or "\n" in line for line in lines))
        timeout = session.timeout.sock_connect or session.timeout.total or 30.0
        pools[base_url] = Pool(url.raw_host or "", url.port or 80, timeout, url.raw_path.rstrip("/").encode(),
                               "".join(line + "\r\n" for line in lines).encode()) if own else None
    return pools[base_url]


async def _stream_aiohttp(session: aiohttp.ClientSession, base_url: str, spec: RequestSpec, record: RequestRecord,
                          sink: _Sink) -> None:
    """One stream through aiohttp, its body taken by the sink in aiohttp's socket callback."""
    perf_counter = time.perf_counter
    async with session.post(base_url + spec.path, data=spec.body, headers=spec.headers or None) as response:
        record.status = response.status
        if _closes(response):
            record.server_closes = True
            connector = session.connector
            if isinstance(connector, SpareConnector):
                key = connector.key_for(response.url.host, response.url.port)
                # This connection ends with the response: the slot's next one opens now.
                if key is not None:
                    connector.open_spare(key)
        content = response.content
        if response.status != 200:
            sink.detach()  # the rest of an error body stays in the reader
            body = sink.held_body(ERROR_BODY_BYTES)
            if len(body) < ERROR_BODY_BYTES and not content.is_eof():
                body += await content.read(ERROR_BODY_BYTES - len(body))
            record.error = f"HTTP {response.status}: {one_line(body.decode('utf-8', 'replace'), 200) or '(empty body)'}"
        else:
            sink.start(content)
            # With the sink attached, it parses every piece as it arrives and readany returns only
            # at the end of the body (b""), raises the sink's StreamError or a connection error,
            # or times out. Without (another connector), the pieces come back here.
            while data := await content.readany():
                sink.feed(data, perf_counter())
            if sink.error is not None:  # found in the read that also ended the body
                raise sink.error
            sink.parser.finish()


async def _stream_own(pool: Pool, base_url: str, spec: RequestSpec, record: RequestRecord, sink: _Sink, timeout_s: float) -> None:
    """One stream through `http1`: a kept-alive connection (or a new one, its connect timed), one send.

    A redirect within the server's origin is followed with the same request, as aiohttp follows a 307
    (at most MAX_REDIRECTS); one to another origin is refused."""
    headers = pool.headers
    if spec.headers:
        if any("\r" in item or "\n" in item for pair in spec.headers.items() for item in pair):
            raise HttpError("client error: a request header holds a line break")
        headers += "".join(f"{name}: {value}\r\n" for name, value in spec.headers.items()).encode()
    target = pool.prefix + spec.path.encode()
    at: URL | None = None  # where a redirect was answered from
    for _ in range(MAX_REDIRECTS + 1):
        connection = pool.take()
        if connection is None:
            started = time.perf_counter()
            connection = await pool.connect()
            record.connect_ms = (time.perf_counter() - started) * 1000.0
        record.connection = connection.kind
        sink.start(connection)  # a 200's body is parsed read by read; a parse error ends the response
        request = b"POST %s HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s" % (target, headers, len(spec.body), spec.body)
        try:
            await connection.send(request, sink, timeout_s - (time.perf_counter() - record.sent))
        finally:
            pool.give_back(connection)
            record.status = connection.status
            record.server_closes = connection.closes
        if connection.location is None:
            break
        at = (at or URL(base_url + spec.path)).join(URL(connection.location))
        if _origin(at) != _origin(URL(base_url)):
            raise HttpError(_refused(_origin(at), _origin(URL(base_url))))
        target = at.raw_path_qs.encode()
    else:
        raise HttpError(f"client error: over {MAX_REDIRECTS} redirects")
    if connection.status != 200:
        record.error = f"HTTP {connection.status}: {one_line(connection.error_body.decode('utf-8', 'replace'), 200) or '(empty body)'}"
        return
    sink.parser.finish()


def _closes(response: aiohttp.ClientResponse) -> bool:
    value = response.headers.get("Connection", "")
    if "close" in value.lower():
        return True
    return response.version is not None and tuple(response.version) < (1, 1) and "keep-alive" not in value.lower()


