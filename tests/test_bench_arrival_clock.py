"""The arrival clock (stackaudit.bench.client): aiohttp hands every piece of a response it receives to
`StreamReader.feed_data`, which the client wraps to stamp the piece's arrival time. aiohttp's public
tracing (TraceConfig.on_response_chunk_received) fires when the body is read, not when bytes arrive, so
it cannot replace the hook; these tests fail when an aiohttp release stops calling the wrapped method
(then every chunk would be stamped when the coroutine resumes, and the event loop's delay would land in
TPOT)."""

from __future__ import annotations

import asyncio
import time

import aiohttp

from stackaudit.bench import client

PIECES = [b"data: one\n\n", b"data: two\n\n", b"data: three\n\n"]
GAP_S = 0.05


async def _serve_pieces(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A chunked response whose pieces leave the server GAP_S apart (raw asyncio: no aiohttp on this side)."""
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    await writer.drain()
    for piece in PIECES:
        await asyncio.sleep(GAP_S)
        writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    writer.close()


async def _read_with_clock() -> tuple[list[tuple[float, int]], list[float], bytes]:
    """Read the stream as the client does (registered in client._ARRIVALS, readany() in a loop); returns
    the arrivals the hook stamped, the times of the reads, and the body."""
    server = await asyncio.start_server(_serve_pieces, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    arrivals: list[tuple[float, int]] = []
    read_times: list[float] = []
    body = b""
    try:
        async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/") as response:
            key = id(response.content)
            client._ARRIVALS[key] = arrivals
            try:
                while True:
                    data = await response.content.readany()
                    if not data:
                        break
                    body += data
                    read_times.append(time.perf_counter())
            finally:
                client._ARRIVALS.pop(key, None)
    finally:
        server.close()
        await server.wait_closed()
    return arrivals, read_times, body


def test_the_wrapper_is_installed_on_aiohttps_stream_reader() -> None:
    assert getattr(aiohttp.StreamReader.feed_data, "_stackaudit_clock", False) is True


def test_every_received_piece_is_stamped_as_it_arrives() -> None:
    arrivals, read_times, body = asyncio.run(_read_with_clock())
    assert body == b"".join(PIECES)
    # The hook fired for every byte of the body, each piece stamped no later than the read that got it.
    assert sum(size for _, size in arrivals) == len(body), arrivals
    assert len(arrivals) >= len(PIECES)
    assert arrivals[0][0] <= read_times[0]
    stamps = [stamp for stamp, _ in arrivals]
    assert stamps == sorted(stamps)
    # The server's gaps are in the stamps (not all at one instant).
    assert stamps[-1] - stamps[0] >= (len(PIECES) - 1) * GAP_S * 0.8


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
