"""The arrival clock (stackaudit.bench.client): aiohttp hands every socket read of a response to
`ResponseHandler.data_received`, and the body's pieces to `StreamReader.feed_data` inside it; the client
wraps both to stamp each read's arrival time and parse it there. aiohttp's public tracing
(TraceConfig.on_response_chunk_received) fires when the body is read, not when bytes arrive, so it cannot
replace the hooks; these tests fail when an aiohttp release stops calling the wrapped methods (then every
chunk would be stamped when the coroutine resumes, and the event loop's delay would land in TPOT)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import aiohttp
import pytest

from stackaudit.bench import client

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial

PIECES = [b'data: {"choices":[{"text":"%s"}]}\n\n' % word for word in (b"one", b"two", b"three")]
GAP_S = 0.05


async def _serve_pieces(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A chunked response whose pieces leave the server GAP_S apart (raw asyncio: no aiohttp on this side).

    The first piece goes out with the headers, in one write: it must be stamped too."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
    if length:
        await reader.readexactly(int(length[0].split(b":")[1]))  # the request body
    status = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    for index, piece in enumerate([*PIECES, b'data: {"choices":[{"text":"","finish_reason":"length"}]}\n\n']):
        if index:
            await asyncio.sleep(GAP_S)
        writer.write((status if index == 0 else b"") + f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    writer.close()


Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _stream(serve: Serve = _serve_pieces, own_http: bool = True) -> tuple[client.RequestRecord, float]:
    """One request through `stream_request`, as bench sends it; the record and when the call returned.

    `own_http`: through bench's own HTTP/1.1 client (`http1`, what a plain http:// URL gets) or aiohttp's
    (what an https:// URL gets)."""
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    session = client.make_session(None, 30.0, own_http=own_http)
    try:
        record = client.RequestRecord(0, time.perf_counter(), 3, None)
        spec = client.RequestSpec("/v1/completions", b"{}", 3)
        await client.stream_request(session, f"http://127.0.0.1:{port}", spec, record, 30.0)
        returned = time.perf_counter()
    finally:
        await session.close()
        server.close()
        await server.wait_closed()
    return record, returned


def test_the_wrappers_are_installed_on_aiohttps_classes() -> None:
    from aiohttp.client_proto import ResponseHandler

    assert getattr(aiohttp.StreamReader.feed_data, "_stackaudit_clock", False) is True
    assert ResponseHandler.data_received.__qualname__.startswith("_install_arrival_clock")


@pytest.mark.parametrize("own_http", [True, False], ids=["http1", "aiohttp"])
def test_every_read_is_stamped_as_it_arrives(own_http: bool) -> None:
    record, returned = asyncio.run(_stream(own_http=own_http))
    assert record.ok, record.error
    assert record.n_chunks == len(PIECES) and record.chunk_counts == [1, 1, 1]
    # The piece that came with the headers was taken and stamped too, before the request returned.
    stamps = record.chunk_times
    assert record.sent < stamps[0] <= stamps[1] <= stamps[2] < returned
    # The server's gaps are in the stamps (not all at one instant).
    assert stamps[1] - stamps[0] >= GAP_S * 0.8 and stamps[2] - stamps[1] >= GAP_S * 0.8
    assert record.reads >= len(PIECES)


def test_public_tracing_fires_only_when_a_body_is_read() -> None:
    """Why TraceConfig is not used: its chunk signal comes from ClientResponse.read() (the whole body at
    once), never for a streamed readany() loop. Should a release signal streamed chunks, this fails: then
    the hook can give way to the public API."""
    chunks: list[bytes] = []

    async def on_chunk(session: object, context: object, params: aiohttp.TraceResponseChunkReceivedParams) -> None:
        chunks.append(params.chunk)

    async def run() -> None:
        server = await asyncio.start_server(_serve_pieces, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        trace = aiohttp.TraceConfig()
        trace.on_response_chunk_received.append(on_chunk)
        try:
            async with aiohttp.ClientSession(trace_configs=[trace]) as session, \
                    session.get(f"http://127.0.0.1:{port}/") as response:
                while await response.content.readany():
                    pass
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(run())
    assert len(chunks) < len(PIECES)


async def _serve_one_write_of_chunks(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Headers first; then ten events as ten HTTP chunks in a single write (one socket read on 127.0.0.1)."""
    await reader.readuntil(b"\r\n\r\n")
    await reader.readexactly(2)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    await writer.drain()
    await asyncio.sleep(GAP_S)
    events = [b'data: {"choices":[{"text":"w%d"}]}\n\n' % i for i in range(9)]
    events.append(b'data: {"choices":[{"text":"w9","finish_reason":"length"}]}\n\n')
    writer.write(b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events) + b"0\r\n\r\n")
    await writer.drain()
    writer.close()


@pytest.mark.parametrize("own_http", [True, False], ids=["http1", "aiohttp"])
def test_the_chunks_of_one_socket_read_are_parsed_once_with_one_stamp(own_http: bool) -> None:
    """Ten HTTP chunks in one read: one stamp and one parse, not ten (as uvicorn's chunked framing sends)."""
    record, _ = asyncio.run(_stream(_serve_one_write_of_chunks, own_http))
    assert record.ok, record.error
    assert record.n_chunks == 10 and record.events == 10
    assert record.reads == 1 and len(set(record.chunk_times)) == 1  # (the finish_reason event is counted apart)
