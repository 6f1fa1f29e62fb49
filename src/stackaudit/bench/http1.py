"""A small HTTP/1.1 client on asyncio: the bench's streamed requests to a plain `http://` server.

aiohttp's request cycle (its session, connector and response start) cost about 150 µs of client CPU per
response on the project's machine, a fifth to a third of a 256-token response's cost in all
(docs/benchmarks.md). Against a plain `http://` server the bench sends its streamed requests here
instead (`bench/client.py` decides by the URL, before sending).
A `Pool` keeps the kept-alive connections to one server. A `Connection` writes a request as one block
of bytes and reads its response in the transport's socket callback: it decodes Content-Length, chunked
and close-delimited bodies, and hands the body bytes of each socket read, with the time the read
arrived, to the request's receiver in that same callback.
A request is sent once.
A connection that fails before or during its response makes that response fail; nothing is sent again.
"""

from __future__ import annotations

import asyncio
import threading
import time
from itertools import repeat
from typing import Protocol

# A response head longer than this is refused (aiohttp refuses header lines past 8 KiB each).
MAX_HEAD_BYTES = 64 * 1024
# The first bytes of a body that is not a 200: what the request's error quotes.
ERROR_BODY_BYTES = 400
# Framings of a response body.
LENGTH, CHUNKED, UNTIL_CLOSE = 0, 1, 2
READ_BUFFER_BYTES = 256 * 1024
_THREAD = threading.local()


def thread_buffer() -> memoryview:
    """One read buffer per thread (the event loop's): the transport reads into it, the protocol copies the bytes read."""
    found: memoryview | None = getattr(_THREAD, "view", None)
    if found is None:
        found = _THREAD.view = memoryview(bytearray(READ_BUFFER_BYTES))
    return found


class HttpError(Exception):
    """A response that failed before its end; the message is the request's error."""


class Receiver(Protocol):
    def feed(self, data: bytes, arrived: float) -> None: ...


class Connection(asyncio.BufferedProtocol):
    """One TCP connection to the pool's server; it carries one request at a time."""

    __slots__ = ("body_left", "closes", "done", "ended", "error_body", "framing", "head", "kind", "location", "pool",
                 "receiver", "rest", "reusable", "status", "timer", "transport", "view")

    def __init__(self, pool: Pool, kind: str) -> None:
        self.pool = pool
        self.kind = kind  # as the next request records it: "new", "spare" (opened ahead) or "pooled" (kept alive)
        self.view = thread_buffer()  # created in the loop's thread, which makes every call
        self.transport: asyncio.Transport | None = None
        self.receiver: Receiver | None = None  # the request whose response is being read
        self.done: asyncio.Future[None] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.head: bytes | None = b""  # the response head read so far; None once complete
        self.status: int | None = None
        self.location: str | None = None  # the Location header of a redirect
        self.closes = False  # the server ends the connection after this response
        self.framing = LENGTH
        self.body_left = 0  # LENGTH: body bytes to come; CHUNKED: bytes of the chunk and its CRLF to come,
        # 0 before a chunk-size line, -1 in the trailer
        self.rest = b""  # CHUNKED: an unfinished chunk-size or trailer line
        self.ended = False
        self.reusable = False
        self.error_body = b""

    def send(self, request: bytes, receiver: Receiver, timeout_s: float) -> asyncio.Future[None]:
        """Write `request`; the future ends with the response (or its error, or a TimeoutError after `timeout_s`)."""
        assert self.transport is not None
        loop = asyncio.get_running_loop()
        self.receiver, self.head, self.status, self.location, self.rest, self.error_body = receiver, b"", None, None, b"", b""
        self.ended = self.reusable = False
        self.done = loop.create_future()
        self.timer = loop.call_later(timeout_s, self.set_exception, asyncio.TimeoutError())
        self.transport.write(request)
        return self.done

    def set_exception(self, exc: BaseException) -> None:
        """End the response with `exc` and drop the connection (a receiver's parse error, the timeout)."""
        if self.transport is not None:
            self.transport.close()
        self._end(exc)

    def _end(self, exc: BaseException | None) -> None:
        self.receiver = None
        if self.timer is not None:
            self.timer.cancel()
        done = self.done
        if done is not None and not done.done():
            if exc is None:
                done.set_result(None)
            else:
                done.set_exception(exc)

    # -- asyncio's calls ----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.view

    def buffer_updated(self, nbytes: int) -> None:
        arrived = time.perf_counter()
        receiver = self.receiver
        if receiver is None:  # bytes with no request waiting: the connection cannot be trusted
            self.set_exception(HttpError("connection error: bytes from the server outside a response"))
            return
        data = bytes(self.view[:nbytes])
        try:
            if self.head is not None:
                data = self._read_head(data)
                if self.head is not None:
                    return
            if self.framing == CHUNKED:
                body = self._dechunk(data)
            elif self.framing == LENGTH:
                body = data[: self.body_left]
                self.body_left -= len(body)
                self.ended = self.body_left == 0
                self.reusable = self.ended and len(body) == len(data) and not self.closes
            else:
                body = data
        except ValueError as exc:
            self.set_exception(HttpError(f"connection error: malformed HTTP response ({exc})"))
            return
        if body:
            if self.status == 200:
                receiver.feed(body, arrived)
            else:
                self.error_body += body[: ERROR_BODY_BYTES - len(self.error_body)]
                if len(self.error_body) >= ERROR_BODY_BYTES and not self.ended:
                    self.reusable = False  # the rest of the body is not read
                    self.ended = True
        if self.ended:
            self._end(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.receiver is None:
            return
        if self.head is None and self.framing == UNTIL_CLOSE:
            self._end(None)
        elif self.head is None:
            self._end(HttpError("connection dropped mid-stream: the server closed the connection before the end of the body"))
        else:
            self._end(HttpError("connection dropped mid-stream: server disconnected before the response"))

    # -- the response -------------------------------------------------------------------
    def _read_head(self, data: bytes) -> bytes:
        """The bytes after the head once it is complete (`head` is then None); b"" until it is."""
        assert self.head is not None
        data = self.head + data
        end = data.find(b"\r\n\r\n")
        if end < 0:
            if len(data) > MAX_HEAD_BYTES:
                raise ValueError(f"response head over {MAX_HEAD_BYTES} bytes")
            self.head = data
            return b""
        lines = data[:end].split(b"\r\n")
        version, status = lines[0].split(None, 2)[:2]
        if not version.startswith(b"HTTP/1."):
            raise ValueError(f"status line {lines[0][:80]!r}")
        if 100 <= int(status) < 200:  # an interim response (100 Continue): the real one follows
            self.head = b""
            return self._read_head(data[end + 4 :])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        connection = headers.get(b"connection", b"").lower()
        self.status = int(status)
        self.closes = b"close" in connection or (version == b"HTTP/1.0" and b"keep-alive" not in connection)
        location = headers.get(b"location")
        self.location = location.decode("latin-1") if location is not None and 300 <= self.status < 400 else None
        if b"chunked" in headers.get(b"transfer-encoding", b"").lower():
            self.framing, self.body_left = CHUNKED, 0
        elif b"content-length" in headers or self.status in (204, 304):
            self.framing, self.body_left = LENGTH, int(headers.get(b"content-length", b"0"))
            if self.body_left < 0:
                raise ValueError("negative Content-Length")
        else:
            self.framing, self.closes = UNTIL_CLOSE, True
        self.head = None
        self.pool.closes = self.closes
        if self.closes:
            self.pool.open_spare()  # this connection ends with the response: the next one opens now
        return data[end + 4 :]

    def _dechunk(self, data: bytes) -> bytes:
        """The chunk data in `data`, joined; `ended` once the terminal chunk and its trailer are read.

        A read of whole chunks whose data holds no CRLF (SSE events end with LF) is split once, and every
        size checked against its data's length, with no Python step per chunk. Otherwise one pass per
        chunk: its size line, then its data and CRLF; a chunk cut by the end of the read leaves
        `body_left` (its bytes to come), a cut size or trailer line `rest`."""
        if not self.rest and not self.body_left and data.endswith(b"\r\n"):
            parts = data.split(b"\r\n")
            payloads = parts[1:-1:2]
            try:
                lengths = list(map(int, parts[0:-1:2], repeat(16)))
            except ValueError:  # a chunk extension: the pass below reads it
                lengths = []
            if lengths and 0 not in lengths and lengths == list(map(len, payloads)):
                return b"".join(payloads)
        if self.rest:
            data, self.rest = self.rest + data, b""
        pieces = []
        find = data.find
        at, size, left = 0, len(data), self.body_left
        while at < size:
            if left <= 0:
                eol = find(b"\r\n", at)
                if eol < 0:
                    if size - at > MAX_HEAD_BYTES:
                        raise ValueError("chunk-size line too long")
                    self.rest = data[at:]
                    break
                if left < 0:  # trailer lines, up to an empty one
                    if eol == at:
                        self.ended = True
                        self.reusable = eol + 2 == size and not self.closes
                        break
                    at = eol + 2
                    continue
                line = data[at:eol]
                length = int(line if b";" not in line else line.split(b";", 1)[0], 16)
                at = eol + 2
                if length <= 0:
                    if length < 0:
                        raise ValueError("negative chunk size")
                    left = -1
                    continue
                left = length + 2
            end = at + left  # the end of the chunk's CRLF
            if end <= size:
                if left > 2:
                    pieces.append(data[at : end - 2])
                at, left = end, 0
            else:
                if left > 2 and at < size:
                    pieces.append(data[at : min(end - 2, size)])
                left = end - size
                break
        self.body_left = left
        return b"".join(pieces)


class Pool:
    """The idle connections to one server (host, port) and the spare ones being opened."""

    def __init__(self, host: str, port: int, connect_timeout_s: float, prefix: bytes = b"", headers: bytes = b"") -> None:
        self.host = host
        self.port = port
        self.connect_timeout_s = connect_timeout_s
        self.prefix = prefix  # the base URL's path, before each request's
        self.headers = headers  # the header lines every request to this server carries
        self.idle: list[Connection] = []
        self.closes = False  # the server's last response ended its connection
        self.closed = False
        self._tasks: set[asyncio.Task[None]] = set()

    async def connect(self, kind: str = "new") -> Connection:
        loop = asyncio.get_running_loop()
        _, connection = await asyncio.wait_for(
            loop.create_connection(lambda: Connection(self, kind), self.host, self.port), self.connect_timeout_s)
        return connection

    def take(self) -> Connection | None:
        """The most recently idle connection still open, or None."""
        while self.idle:
            connection = self.idle.pop()
            if connection.transport is not None and not connection.transport.is_closing():
                return connection
        return None

    def give_back(self, connection: Connection) -> None:
        """Keep the connection for the next request if its response was read to the end and it stays open."""
        transport = connection.transport
        if transport is None:
            return
        if connection.reusable and not self.closed and not transport.is_closing():
            connection.kind = "pooled"
            self.idle.append(connection)
        else:
            transport.close()

    async def _open(self, kind: str) -> None:
        try:
            connection = await self.connect(kind)
        except (OSError, asyncio.TimeoutError):
            return  # the request that needed it connects itself, and says so
        if self.closed:
            self.give_back(connection)
        else:
            self.idle.append(connection)

    def open_spare(self) -> None:
        """Open one connection in the background for a later request."""
        if not self.closed:
            task = asyncio.get_running_loop().create_task(self._open("spare"))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def fill(self, count: int) -> None:
        """Have `count` idle connections open (before a level): spares against a server that closes them."""
        open_now = sum(1 for c in self.idle if c.transport is not None and not c.transport.is_closing())
        await asyncio.gather(*(self._open("spare" if self.closes else "pooled") for _ in range(count - open_now)))

    async def close(self) -> None:
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for connection in self.idle:
            self.give_back(connection)
        self.idle.clear()
