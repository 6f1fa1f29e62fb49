"""The stream read path across HTTP chunk and socket-read boundaries (stackaudit.bench.client): a
server whose bytes arrive split in the middle of a `data:` line, in the middle of the CRLF after a chunk
size, with chunk extensions, with one SSE event spread over two HTTP chunks, and with the zero-length
terminal chunk itself split. Every event must come out whole, once, in order, each stamped by the read
that completed it."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from stackaudit.bench import client
from test_bench_arrival_clock import _stream as stream

# Reads split by the server's pauses: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial

GAP_S = 0.05
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
EVENTS = [b'data: {"choices":[{"text":"%s"}]}\n\n' % w for w in (b"one", b"two", b"three")]
FINISH = b'data: {"choices":[{"text":"","finish_reason":"length"}]}\n\n'
DONE = b"data: [DONE]\n\n"


def _chunk(data: bytes, extension: bytes = b"") -> bytes:
    return b"%x%s\r\n%s\r\n" % (len(data), extension, data)


def _segments() -> list[bytes]:
    """The response as the socket writes it, one write per segment, GAP_S apart."""
    one, two, three = EVENTS
    # Event two spread over two HTTP chunks, cut inside its `data:` field name.
    two_a, two_b = two[:2], two[2:]
    body = (_chunk(one) + _chunk(two_a, b";name=value") + _chunk(two_b, b';q="a b"') + _chunk(three)
            + _chunk(FINISH) + _chunk(DONE) + b"0\r\n\r\n")
    base, c1, c2a = len(HEAD), len(_chunk(one)), len(_chunk(two_a, b";name=value"))
    c2b = len(_chunk(two_b, b';q="a b"'))
    cuts = [
        base + 3,                     # inside the CRLF after the first chunk size ("24\r" | "\n")
        base + c1 - 30,               # inside event one's `data:` line
        base + c1 - 1,                # between the CR and the LF that end chunk one
        base + c1 + 6,                # inside a chunk extension (";name" | "=value")
        base + c1 + c2a + 1,          # inside a chunk size's hex digits ("2" | "2;q=...")
        base + c1 + c2a + c2b + 2,    # after event two's last byte, inside chunk three's size line
        base + len(body) - 4,         # inside the terminal chunk ("0\r" | "\n\r\n")
        base + len(body) - 1,         # before its last LF
    ]
    whole = HEAD + body
    out, start = [], 0
    for cut in sorted(cuts):
        out.append(whole[start:cut])
        start = cut
    out.append(whole[start:])
    assert b"".join(out) == whole and all(out)
    return out


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    length = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
    if length:
        await reader.readexactly(int(length[0].split(b":")[1]))
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for index, segment in enumerate(_segments()):
        if index:
            await asyncio.sleep(GAP_S)
        writer.write(segment)
        await writer.drain()
    # Keep the connection open: the end of the body is the terminal chunk, not the close.
    await asyncio.sleep(2.0)
    writer.close()


@pytest.mark.parametrize("own_http", [True, False], ids=["http1", "aiohttp"])
def test_events_split_across_chunks_and_reads_come_out_whole_once_in_order(own_http: bool) -> None:
    started = time.perf_counter()
    record, _ = asyncio.run(stream(_serve, own_http))
    assert record.ok, record.error
    assert record.chunks == ["one", "two", "three"]
    assert record.n_chunks == 3 and record.finish_reason == "length"
    # The body ended at the terminal chunk, not at the server's close two seconds later.
    assert record.ended - started < 2.0
    # Each event is stamped by the read that completed it, one read (and at least one pause) after the other.
    assert record.chunk_counts == [1, 1, 1]
    first, second, third = record.chunk_times
    assert second - first >= 2 * GAP_S and third - second >= GAP_S


def test_the_transport_reads_into_the_connections_buffer() -> None:
    """Through aiohttp, the stream's connection is read with recv_into a buffer (no 256 KiB bytes object per read)."""
    seen: list[object] = []

    original = client._read_into_buffer

    def spy(handler: asyncio.Protocol) -> None:
        original(handler)
        transport = getattr(handler, "transport", None)
        seen.append(transport.get_protocol() if transport is not None else None)

    client._read_into_buffer = spy  # type: ignore[assignment]
    try:
        record, _ = asyncio.run(stream(_serve, own_http=False))
    finally:
        client._read_into_buffer = original  # type: ignore[assignment]
    assert record.ok, record.error
    assert seen and all(isinstance(p, asyncio.BufferedProtocol) for p in seen)
