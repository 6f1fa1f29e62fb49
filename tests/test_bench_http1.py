"""Bench's own HTTP/1.1 client (stackaudit.bench.http1) as `stream_request` drives it: body framings split at
every byte, keep-alive reuse, `Connection: close`, a server that drops the stream, a status that is not 200,
and which URLs stay on aiohttp. Every server here is a modelled one on 127.0.0.1 that counts the requests it
reads: no request may reach it twice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import aiohttp
import pytest

from stackaudit.bench import client, http1

EVENTS = [b'data: {"choices":[{"text":"%s"}]}\n\n' % w for w in (b"one", b"two", b"three")]
FINISH = b'data: {"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":3}}\n\n'
STREAM = b"".join(EVENTS) + FINISH + b"data: [DONE]\n\n"
SSE = b"Content-Type: text/event-stream\r\n"


def chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


def ok_chunked(extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\n" + SSE + extra + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(*EVENTS, FINISH, b"data: [DONE]\n\n")


def ok_length(extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\n" + SSE + extra + b"Content-Length: %d\r\n\r\n%s" % (len(STREAM), STREAM)


Reply = Callable[[int], tuple[bytes, bool]]  # request number → (response bytes, close the connection after)


class Server:
    """Reads whole requests (head and Content-Length body) and answers each with `reply`."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[bytes] = []
        self.connections = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
                body = await reader.readexactly(int(length[0].split(b":")[1])) if length else b""
                self.requests.append(head + body)
                response, close = self.reply(len(self.requests) - 1)
                writer.write(response)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


async def _requests(reply: Reply, count: int, url: str = "", pause_s: float = 0.0,
                    own_http: bool = True) -> tuple[list[client.RequestRecord], Server]:
    """`count` requests one after the other through `stream_request`, as bench sends them."""
    server = Server(reply)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    base = url or f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}"
    session = client.make_session(None, 5.0, own_http=own_http)
    records = []
    try:
        for index in range(count):
            if index and pause_s:
                await asyncio.sleep(pause_s)
            record = client.RequestRecord(index, time.perf_counter(), 3, None)
            spec = client.RequestSpec("/v1/completions", b'{"stream":true}', 3)
            records.append(await client.stream_request(session, base, spec, record, 5.0))
    finally:
        await session.close()
        listening.close()
        await listening.wait_closed()
    return records, server


def _run(reply: Reply, count: int = 1, **options: object) -> tuple[list[client.RequestRecord], Server]:
    return asyncio.run(_requests(reply, count, **options))  # type: ignore[arg-type]


def _streamed(record: client.RequestRecord) -> None:
    assert record.ok, record.error
    assert record.status == 200 and record.n_chunks == 3 and record.finish_reason == "length"
    assert record.usage == {"completion_tokens": 3}


class _Transport:
    """Stands in for the socket: what the connection writes is kept, and nothing is read."""

    def __init__(self) -> None:
        self.closed = False

    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


class _Body:
    def __init__(self) -> None:
        self.data = b""

    def feed(self, data: bytes, arrived: float) -> None:
        self.data += data


CRLF_EVENTS = [event.replace(b"\n", b"\r\n") for event in [*EVENTS, FINISH]]
CRLF_CHUNKED = b"HTTP/1.1 200 OK\r\n" + SSE + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(*CRLF_EVENTS)


@pytest.mark.parametrize(
    ("response", "body"),
    [(ok_chunked(), STREAM), (ok_length(), STREAM), (ok_chunked(b"X-Pad: " + b"p" * 300 + b"\r\n"), STREAM),
     (CRLF_CHUNKED, b"".join(CRLF_EVENTS))],
    ids=["chunked", "content-length", "long-head", "chunked-crlf-events"],
)
def test_a_response_split_at_every_byte_gives_its_body_once_and_ends_there(response: bytes, body: bytes) -> None:
    """Every cut of the response into two socket reads: in the head, in a chunk-size line, between CR and
    LF, inside an event, inside the terminal chunk; and events that hold CRLFs themselves."""

    async def run() -> None:
        pool = http1.Pool("127.0.0.1", 9, 1.0)
        for cut in range(1, len(response)):
            connection = http1.Connection(pool, "new")
            connection.transport = _Transport()  # type: ignore[assignment]
            got = _Body()
            done = connection.send(b"POST / HTTP/1.1\r\n\r\n", got, 5.0)
            for part in (response[:cut], response[cut:]):
                connection.view[: len(part)] = part
                connection.buffer_updated(len(part))
            assert done.done() and done.exception() is None, cut
            assert got.data == body and connection.status == 200, cut
            assert connection.reusable, cut

    asyncio.run(run())


def test_keep_alive_reuses_one_connection_and_each_request_is_sent_once() -> None:
    records, server = _run(lambda index: (ok_chunked() if index % 2 else ok_length(), False), count=4)
    for record in records:
        _streamed(record)
    assert server.connections == 1 and len(server.requests) == 4
    assert [r.connection for r in records] == ["new", "pooled", "pooled", "pooled"]
    assert records[0].connect_ms is not None and all(r.connect_ms is None for r in records[1:])
    request = server.requests[0]
    assert request.startswith(b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nContent-Type: application/json\r\n" in request and request.endswith(b'\r\n\r\n{"stream":true}')


def test_connection_close_is_followed_by_a_spare_connection_for_the_next_request() -> None:
    records, server = _run(lambda index: (ok_chunked(b"Connection: close\r\n"), True), count=3, pause_s=0.05)
    for record in records:
        _streamed(record)
        assert record.server_closes
    # The next connection opened while the previous response streamed: no connect in the next request's TTFT.
    assert [r.connection for r in records] == ["new", "spare", "spare"]
    assert len(server.requests) == 3 and server.connections >= 3


def test_a_body_that_ends_with_the_connection_is_read_to_the_close() -> None:
    response = b"HTTP/1.0 200 OK\r\n" + SSE + b"\r\n" + STREAM
    records, server = _run(lambda index: (response, True), count=2, pause_s=0.05)
    for record in records:
        _streamed(record)
        assert record.server_closes
    assert len(server.requests) == 2


@pytest.mark.parametrize("framing", ["chunked", "content-length"])
def test_a_server_closing_mid_stream_is_that_requests_error_and_nothing_is_sent_again(framing: str) -> None:
    whole = ok_chunked() if framing == "chunked" else ok_length()
    cut = whole.index(EVENTS[2])  # two events sent, then the connection drops
    records, server = _run(lambda index: (whole[:cut] if index == 0 else whole, index == 0), count=2)
    assert records[0].error is not None and records[0].error.startswith("connection dropped mid-stream"), records[0].error
    assert records[0].status == 200 and records[0].n_chunks == 2
    _streamed(records[1])
    assert records[1].connection == "new"
    assert len(server.requests) == 2  # one send per request: the dropped one was not sent again


def test_a_server_that_closes_before_answering_fails_the_request_once() -> None:
    records, server = _run(lambda index: (b"", True))
    assert records[0].error == "connection dropped mid-stream: server disconnected before the response"
    assert records[0].status is None and len(server.requests) == 1


@pytest.mark.parametrize("size", [60, 1_000_000])
def test_a_status_that_is_not_200_is_an_error_quoting_its_body(size: int) -> None:
    error = b'{"error":{"message":"' + b"x" * size + b'"}}'
    reply = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
    records, server = _run(lambda index: (reply % (len(error), error) if index == 0 else ok_chunked(), False), count=2)
    assert records[0].status == 503
    assert records[0].error is not None and records[0].error.startswith('HTTP 503: {"error":{"message":"xxx')
    assert len(records[0].error) <= len("HTTP 503: ") + 200
    _streamed(records[1])
    # A short error body is read whole and its connection kept; a long one is cut and its connection dropped.
    assert server.connections == (1 if size == 60 else 2)


def test_an_idle_connection_the_server_closed_is_not_reused() -> None:
    """A kept-alive connection that the server closed while idle (its keep-alive timeout) is skipped."""
    records, server = _run(lambda index: (ok_chunked(), True), count=2, pause_s=0.1)
    for record in records:
        _streamed(record)
    assert [r.connection for r in records] == ["new", "new"] and len(server.requests) == 2


def test_a_malformed_chunk_size_is_a_connection_error() -> None:
    response = b"HTTP/1.1 200 OK\r\n" + SSE + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + EVENTS[0] + b"\r\n"
    records, _ = _run(lambda index: (response, False))
    assert records[0].error is not None and records[0].error.startswith("connection error: malformed HTTP response")


@pytest.mark.parametrize(
    ("url", "trust_env", "own"),
    [
        ("http://127.0.0.1:8000", False, True),
        ("http://localhost:8000/prefix", False, True),
        ("https://127.0.0.1:8000", False, False),
        ("http://user:secret@127.0.0.1:8000", False, False),
        ("http://127.0.0.1:8000", True, False),  # the session reads HTTP(S)_PROXY from the environment
    ],
)
def test_only_plain_http_without_credentials_or_proxies_goes_through_http1(url: str, trust_env: bool, own: bool) -> None:
    async def run() -> bool:
        session = (aiohttp.ClientSession(connector=client.SpareConnector(), trust_env=True) if trust_env
                   else client.make_session(None, 5.0))
        try:
            return client.own_pool(session, url) is not None
        finally:
            await session.close()

    assert asyncio.run(run()) is own


def test_a_session_header_with_a_line_break_stays_on_aiohttp() -> None:
    async def run() -> bool:
        session = client.make_session("key\r\nX-Injected: 1", 5.0)
        try:
            return client.own_pool(session, "http://127.0.0.1:8000") is None
        finally:
            await session.close()

    assert asyncio.run(run())


@pytest.mark.parametrize(("location", "path"), [("/v2/completions", b"/v2/completions"), ("next", b"/v1/next")])
def test_a_same_origin_redirect_is_followed_with_the_same_request(location: str, path: bytes) -> None:
    moved = b"HTTP/1.1 307 Temporary Redirect\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % location.encode()
    records, server = _run(lambda index: (moved if index == 0 else ok_chunked(), False))
    _streamed(records[0])
    assert [request.split(b" ")[1] for request in server.requests] == [b"/v1/completions", path]
    assert server.requests[1].endswith(b'{"stream":true}')


def test_an_https_url_is_sent_through_aiohttp() -> None:
    """https:// goes to aiohttp: the server's first bytes are a TLS handshake, not a plain request."""
    first: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first.append(await reader.read(3))
        writer.close()

    async def run() -> tuple[client.RequestRecord, object]:
        listening = await asyncio.start_server(handle, "127.0.0.1", 0)
        base = f"https://127.0.0.1:{listening.sockets[0].getsockname()[1]}"
        session = client.make_session(None, 5.0)
        try:
            record = client.RequestRecord(0, time.perf_counter(), 3, None)
            await client.stream_request(session, base, client.RequestSpec("/v1/completions", b"{}", 3), record, 5.0)
            return record, session.connector.pools[base]  # type: ignore[union-attr]
        finally:
            await session.close()
            listening.close()
            await listening.wait_closed()

    record, pool = asyncio.run(run())
    assert pool is None and record.error is not None and record.status is None
    assert first and first[0][:2] == b"\x16\x03"  # a TLS record: the handshake
