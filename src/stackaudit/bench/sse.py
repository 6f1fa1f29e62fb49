"""Byte-level parsing of an OpenAI-style SSE stream: the client's hot path.

Every read from the socket is handed to `StreamParser.feed` with the time it was read. All
events inside one read arrived together, so they share that time. Plain content events
(the vast majority) are counted with `bytes.count` on the whole read, without splitting it
into events and without decoding JSON: inside a JSON string a `"` is always escaped, so
`"text":"` can only be the key of a completion's text, `"content":"` the key of a chat delta.
Only events that carry something rarer — `usage`, a `finish_reason`, `[DONE]`, an `error`,
a comment, a multi-line event or anything that does not look like `data: {...}` — go through
the per-event path, which decodes their JSON.

What a request needs from its stream: the time of every content chunk (TTFT, ITL, TPOT),
the number of content chunks, `usage`, `finish_reason`, and whether the stream ended cleanly.
Text is not decoded on the hot path. The events are kept as bytes only until `usage` is seen
(then nothing is kept) or `RAW_FLUSH_BYTES` pile up; then, and when the stream ends without
usage, their text is decoded into `chunks`, at most `text_cap` bytes of it (16 bytes per token
asked: `text_cut` says when that was reached). A request keeps that text, never the SSE bytes.
"""

from __future__ import annotations

import json
from typing import Any

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
# Text kept per request, per output token asked (an English token is about 4 bytes, code up to 12).
TEXT_BYTES_PER_TOKEN = 16
# Undecoded events a stream holds at most before their text is decoded (a 256-token stream is
# 40-80 KiB of SSE, so most are decoded once, at their end, and only when they carried no usage).
RAW_FLUSH_BYTES = 256 * 1024


class StreamError(Exception):
    """The stream is not a well-formed OpenAI SSE stream, or carries an error event."""


# Keys of content-bearing fields, in the compact (`"k":"`) and spaced (`"k": "`) JSON styles.
_CONTENT_KEYS = (b"text", b"content", b"reasoning_content", b"reasoning")


class _Patterns:
    """The byte patterns of one JSON style, compact (`"k":"`) or spaced (`"k": "`)."""

    __slots__ = ("content", "empty", "empty_any", "finish", "reasoning", "text", "usage")

    def __init__(self, spaced: bool) -> None:
        colon = b'": "' if spaced else b'":"'
        self.text = b'"text' + colon
        self.content = b'"content' + colon
        # `"reasoning` starts both reasoning keys: counted only in reads that hold it.
        self.reasoning = (b'"reasoning_content' + colon, b'"reasoning' + colon)
        # Empty values are subtracted only in reads that hold an empty string at all.
        self.empty_any = colon + b'"'
        self.empty = tuple(b'"' + key + colon + b'"' for key in _CONTENT_KEYS)
        # Markers of the events the per-event path decodes. `[DONE]` is not one: a read that holds it fails
        # the plain check (its `data: [` is not a `data: {`), so it goes to the per-event path anyway.
        self.usage = b'"usage": {' if spaced else b'"usage":{'
        self.finish = b'"finish_reason": "' if spaced else b'"finish_reason":"'


_COMPACT = _Patterns(False)
_SPACED = _Patterns(True)


class StreamParser:
    """Accumulates one response stream. `feed` is called once per socket read."""

    __slots__ = (
        "_buffer",
        "_patterns",
        "_prefix",
        "_raw_bytes",
        "_separator",
        "chunk_counts",
        "chunk_times",
        "chunks",
        "done",
        "events",
        "finish_reason",
        "keep_raw",
        "max_event_bytes",
        "n_chunks",
        "per_chunk_tokens",
        "raw",
        "reads",
        "text_bytes",
        "text_cap",
        "text_cut",
        "usage",
    )

    def __init__(
        self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES, keep_raw: bool = True, text_cap: int | None = None
    ) -> None:
        self._buffer = b""
        self._separator = b""  # decided on the first read: b"\n\n" or b"\r\n\r\n"
        self._patterns = _COMPACT
        self._prefix = b"data: {"  # or b"data:{", as the first event is written
        self.max_event_bytes = max_event_bytes
        self.keep_raw = keep_raw
        self.chunk_times: list[float] = []  # one entry per read that held content chunks
        self.chunk_counts: list[int] = []  # content chunks in that read
        self.n_chunks = 0
        self.events = 0
        self.reads = 0  # feed calls: pieces of the stream as they arrived (events per read = events / reads)
        self.usage: dict[str, Any] | None = None
        self.per_chunk_tokens: list[int] = []  # from continuous usage stats, when the server sends them
        self.finish_reason: str | None = None
        self.done = False
        self.raw: list[bytes] = []  # events not decoded yet (at most RAW_FLUSH_BYTES)
        self._raw_bytes = 0
        # The decoded text of content events while no usage was seen, up to text_cap UTF-8 bytes.
        self.chunks: list[str] = []
        self.text_cap = text_cap
        self.text_bytes = 0
        self.text_cut = False

    # -- hot path -----------------------------------------------------------------------
    def feed(self, data: bytes, now: float) -> None:
        self.reads += 1
        if self._buffer:
            data = self._buffer + data
        separator = self._separator
        if not separator:
            separator = self._sniff(data)
            if not separator:
                self._keep(data)
                return
        cut = data.rfind(separator)
        if cut < 0:
            self._keep(data)
            return
        complete = data[:cut]
        self._buffer = data[cut + len(separator) :]
        if len(self._buffer) > self.max_event_bytes:  # complete events, then an event too long to end
            raise StreamError(f"SSE event over {self.max_event_bytes} bytes without an end")
        if len(separator) == 4:
            complete = complete.replace(b"\r\n", b"\n")
        if self.keep_raw:
            self.raw.append(complete)
            self._raw_bytes += len(complete)
            if self._raw_bytes > RAW_FLUSH_BYTES:
                self.decode_raw()
        find = complete.find
        patterns = self._patterns
        usage_at, finish_at, error_at = find(patterns.usage), find(patterns.finish), find(b'"error"')
        if usage_at >= 0 or finish_at >= 0 or error_at >= 0:
            special_at = min(at for at in (usage_at, finish_at, error_at) if at >= 0)
            start = complete.rfind(b"\n\n", 0, special_at)
            if start >= 0 and not self._plain(complete[:start], now):
                self._slow(complete[:start], now)
            self._slow(complete[start + 2 :] if start >= 0 else complete, now)
            return
        if not self._plain(complete, now):
            self._slow(complete, now)

    def _plain(self, part: bytes, now: float) -> bool:
        """Plain `data: {...}` events, their content counted without decoding; False (nothing counted)
        when `part` holds anything else (comments, fields, multi-line data: the per-event path)."""
        count = part.count
        # One `data: {...}` line per event: every line feed is one of the two ending an event after its `}`.
        ends = count(b"}\n\n")
        if count(b"\n") != 2 * ends or count(self._prefix) != ends + 1 or not part.endswith(b"}"):
            return False
        self.events += ends + 1
        patterns = self._patterns
        n = count(patterns.text) + count(patterns.content)
        if b'"reasoning' in part:
            for pattern in patterns.reasoning:
                n += count(pattern)
        if patterns.empty_any in part:
            for pattern in patterns.empty:
                n -= count(pattern)
        if n:
            self.n_chunks += n
            self.chunk_times.append(now)
            self.chunk_counts.append(n)
        return True

    # -- rarer paths --------------------------------------------------------------------
    def _sniff(self, data: bytes) -> bytes:
        lf = data.find(b"\n")
        if lf < 0:
            return b""
        self._separator = b"\r\n\r\n" if lf > 0 and data[lf - 1 : lf] == b"\r" else b"\n\n"
        start = data.find(b"{")
        if start >= 0 and data[start : start + 200].find(b'": ') >= 0:
            self._patterns = _SPACED
        if start >= 5 and data[start - 5 : start] == b"data:":
            self._prefix = b"data:{"
        return self._separator

    def _keep(self, data: bytes) -> None:
        if len(data) > self.max_event_bytes:
            raise StreamError(f"SSE event over {self.max_event_bytes} bytes without an end")
        self._buffer = data

    def _slow(self, part: bytes, now: float) -> None:
        """Event by event, decoding JSON: usage, finish_reason, [DONE], errors, comments."""
        content_here = 0
        for event in part.split(b"\n\n"):
            payload = _data_of(event)
            if payload is None:
                continue
            self.events += 1
            if payload == b"[DONE]":
                self.done = True
                continue
            try:
                obj = json.loads(payload)
            except (ValueError, RecursionError):  # a 100 000-deep event is not a completion chunk
                raise StreamError(f"malformed SSE: data is not JSON: {_excerpt(payload)}") from None
            if not isinstance(obj, dict):
                raise StreamError(f"malformed SSE: data is not a JSON object: {_excerpt(payload)}")
            if obj.get("error") is not None:
                raise StreamError(f"error event in stream: {_error_text(obj['error'])}")
            has_content = False
            for choice in obj.get("choices") or ():
                if not isinstance(choice, dict):
                    continue
                if _choice_has_content(choice):
                    has_content = True
                reason = choice.get("finish_reason")
                if reason:
                    self.finish_reason = str(reason)
            usage = obj.get("usage")
            if isinstance(usage, dict):
                # Usage counts the tokens: the text is not needed for this request.
                self.keep_raw = False
                self.raw.clear()
                self.chunks.clear()
                previous = self.usage.get("completion_tokens") if self.usage else None
                self.usage = usage
                if has_content and isinstance(usage.get("completion_tokens"), int):
                    self.per_chunk_tokens.append(usage["completion_tokens"] - (previous or 0))
            if has_content:
                content_here += 1
        if content_here:
            self.n_chunks += content_here
            self.chunk_times.append(now)
            self.chunk_counts.append(content_here)

    def finish(self) -> None:
        """The connection ended: flush a last event without a trailing blank line, check the end."""
        tail = self._buffer.strip()
        self._buffer = b""
        if tail:
            if self._separator == b"\r\n\r\n":
                tail = tail.replace(b"\r\n", b"\n")
            if self.keep_raw:
                self.raw.append(tail)
                self._raw_bytes += len(tail)
            if tail.startswith(b"data:") and not (tail.endswith(b"}") or tail.endswith(b"[DONE]")):
                raise StreamError("connection closed mid-event (truncated SSE data)")
            self._slow(tail, self.chunk_times[-1] if self.chunk_times else 0.0)
        if self.usage is None:
            self.decode_raw()
        else:
            self.raw.clear()
        if not self.done and self.finish_reason is None:
            raise StreamError("stream ended without [DONE] or a finish_reason (connection closed mid-stream)")
        if self.n_chunks == 0:
            raise StreamError("stream ended without any content chunk")

    def decode_raw(self) -> None:
        """The text of the events kept so far into `chunks` (up to text_cap bytes); the bytes dropped."""
        raw, self.raw, self._raw_bytes = self.raw, [], 0
        if not raw or self.text_cut:
            return
        cap = self.text_cap
        for text in extract_chunks(raw):
            if cap is not None:
                size = len(text.encode("utf-8", "surrogatepass"))
                if self.text_bytes + size > cap:
                    self.text_cut = True
                    self.keep_raw = False
                    return
                self.text_bytes += size
            self.chunks.append(text)


def _data_of(event: bytes) -> bytes | None:
    """The data of one SSE event (lines joined by \\n), or None for a comment-only event."""
    if event.startswith(b"data: ") and b"\n" not in event:
        return event[6:]
    lines = []
    for line in event.split(b"\n"):
        if line.startswith(b"data:"):
            value = line[5:]
            lines.append(value[1:] if value.startswith(b" ") else value)
        elif not line or line.startswith(b":") or line.startswith((b"event:", b"id:", b"retry:")):
            continue
        else:
            raise StreamError(f"malformed SSE: unexpected line {_excerpt(line)}")
    if not lines:
        return None
    return b"\n".join(lines)


def _choice_has_content(choice: dict[str, Any]) -> bool:
    text = choice.get("text")
    if isinstance(text, str) and text:
        return True
    delta = choice.get("delta")
    if isinstance(delta, dict):
        for key in ("content", "reasoning_content", "reasoning"):
            value = delta.get(key)
            if isinstance(value, str) and value:
                return True
    return False


def _excerpt(data: bytes, limit: int = 80) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return repr(text + ("…" if len(data) > limit else ""))


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error)[:200]


def extract_chunks(raw: list[bytes]) -> list[str]:
    """The text of every content event of a stream kept in `raw`, in order (off the hot path)."""
    pieces: list[str] = []
    for part in raw:
        for event in part.split(b"\n\n"):
            try:
                payload = _data_of(event)
            except StreamError:
                continue
            if not payload or payload == b"[DONE]":
                continue
            try:
                obj = json.loads(payload)
            except (ValueError, RecursionError):
                continue
            if not isinstance(obj, dict):
                continue
            for choice in obj.get("choices") or ():
                if not isinstance(choice, dict):
                    continue
                text = choice.get("text")
                if isinstance(text, str):
                    if text:
                        pieces.append(text)
                    continue
                delta = choice.get("delta")
                if isinstance(delta, dict):
                    joined = "".join(
                        value for key in ("reasoning_content", "reasoning", "content")
                        if isinstance(value := delta.get(key), str)
                    )
                    if joined:
                        pieces.append(joined)
    return pieces
