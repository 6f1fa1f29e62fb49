"""The byte-level SSE parser: counts, timing per read, and every malformed case as an error."""

from __future__ import annotations

import json

import pytest

from stackaudit.bench.sse import StreamError, StreamParser


def completion_event(text: str, finish: str | None = None, spaced: bool = False) -> bytes:
    obj = {"id": "x", "choices": [{"index": 0, "text": text, "finish_reason": finish}]}
    separators = (", ", ": ") if spaced else (",", ":")
    return b"data: " + json.dumps(obj, separators=separators).encode() + b"\n\n"


def chat_event(delta: dict[str, object], finish: str | None = None) -> bytes:
    obj = {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def usage_event(completion: int, prompt: int = 7) -> bytes:
    return b"data: " + json.dumps({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}).encode() + b"\n\n"


DONE = b"data: [DONE]\n\n"


@pytest.mark.parametrize("spaced", [False, True])
def test_counts_content_chunks_and_times_each_read(spaced: bool) -> None:
    parser = StreamParser()
    parser.feed(completion_event("a", spaced=spaced), 1.0)
    parser.feed(completion_event("b", spaced=spaced) + completion_event("c", spaced=spaced), 2.0)
    parser.feed(completion_event("", spaced=spaced), 2.5)  # empty text is not a content chunk
    parser.feed(completion_event("d", "length", spaced=spaced) + usage_event(4) + DONE, 3.0)
    parser.finish()
    assert parser.n_chunks == 4
    assert parser.chunk_times == [1.0, 2.0, 3.0]
    assert parser.chunk_counts == [1, 2, 1]
    assert parser.usage == {"prompt_tokens": 7, "completion_tokens": 4}
    assert parser.finish_reason == "length"
    assert parser.done


def test_events_split_across_reads_and_crlf() -> None:
    stream = (completion_event("hello") + completion_event("world", "stop") + DONE).replace(b"\n", b"\r\n")
    parser = StreamParser()
    for i in range(0, len(stream), 7):  # 7-byte reads: every boundary split somewhere
        parser.feed(stream[i : i + 7], float(i))
    parser.finish()
    assert parser.n_chunks == 2
    assert parser.done


def test_chat_role_only_chunk_is_not_a_token_and_reasoning_is() -> None:
    parser = StreamParser()
    parser.feed(chat_event({"role": "assistant", "content": ""}), 1.0)
    parser.feed(chat_event({"reasoning_content": "think"}), 2.0)
    parser.feed(chat_event({"content": "answer"}, "stop") + DONE, 3.0)
    parser.finish()
    assert parser.n_chunks == 2
    assert parser.chunk_times[0] == 2.0  # TTFT is not the role chunk (vLLM PR #46652)
    assert "".join(parser.chunks) == "thinkanswer" and not parser.raw  # decoded text kept, not the bytes


def test_comments_and_event_fields_are_ignored() -> None:
    parser = StreamParser()
    parser.feed(b": keep-alive\n\n", 0.5)
    parser.feed(b"event: message\nid: 1\n" + completion_event("a", "stop"), 1.0)
    parser.feed(DONE, 1.1)
    parser.finish()
    assert parser.n_chunks == 1


def test_continuous_usage_gives_tokens_per_chunk() -> None:
    parser = StreamParser()
    for i, (text, cumulative) in enumerate([("ab", 2), ("cde", 5), ("f", 6)]):
        obj = {"choices": [{"text": text, "finish_reason": None}], "usage": {"completion_tokens": cumulative}}
        parser.feed(b"data: " + json.dumps(obj).encode() + b"\n\n", float(i))
    parser.feed(DONE, 4.0)
    parser.finish()
    assert parser.per_chunk_tokens == [2, 3, 1]


@pytest.mark.parametrize(
    ("stream", "reason"),
    [
        (completion_event("a") + b'data: {"choices": [{"text": "unterminated\n\n', "malformed SSE"),
        (completion_event("a") + b"data: not json at all\n\n", "malformed SSE"),
        (completion_event("a") + b"garbage line\n\n", "malformed SSE"),
        (completion_event("a") + b'data: {"error": {"message": "boom"}}\n\n', "error event in stream: boom"),
        (completion_event("a"), "without [DONE] or a finish_reason"),
        (completion_event("a") + b'data: {"choices": [{"te', "truncated"),
        (DONE, "without any content chunk"),
    ],
)
def test_malformed_streams_raise_with_reason(stream: bytes, reason: str) -> None:
    parser = StreamParser()
    with pytest.raises(StreamError, match=reason.replace("[", r"\[").replace("]", r"\]")):
        parser.feed(stream, 1.0)
        parser.finish()


def test_long_events_parse_and_the_cap_is_an_error() -> None:
    long_text = "z" * 100_000
    event = completion_event(long_text, "length")
    parser = StreamParser()
    for i in range(0, len(event), 16384):
        parser.feed(event[i : i + 16384], 1.0)
    parser.feed(DONE, 2.0)
    parser.finish()
    assert parser.n_chunks == 1
    capped = StreamParser(max_event_bytes=64 * 1024)
    with pytest.raises(StreamError, match="over 65536 bytes"):
        for i in range(0, len(event), 16384):
            capped.feed(event[i : i + 16384], 1.0)


def test_the_cap_holds_for_a_long_event_after_complete_ones_in_one_read() -> None:
    """A read that ends whole events and then starts one past the cap is an error at that read, not later."""
    capped = StreamParser(max_event_bytes=64 * 1024)
    with pytest.raises(StreamError, match="over 65536 bytes"):
        capped.feed(completion_event("a", None) + b'data: {"choices":[{"text":"' + b"y" * 70_000, 1.0)


def _content_ends(stream: bytes, separator: bytes) -> list[int]:
    """The byte offset just past each content event (an event with non-empty text), decoded with json."""
    ends, at = [], 0
    while (cut := stream.find(separator, at)) >= 0:
        payload = stream[at:cut].strip().removeprefix(b"data:").strip()
        if payload.startswith(b"{") and any(c.get("text") for c in json.loads(payload).get("choices", [])):
            ends.append(cut + len(separator))
        at = cut + len(separator)
    return ends


# Text that looks like SSE framing or a key inside a JSON string (escaped as JSON writes it), an empty
# text, a blank line between events, the finish in its own event, then usage and [DONE].
_TRICKY = (
    completion_event("a") + completion_event('data: {"text":"x"}\n\n') + completion_event("")
    + completion_event("}") + b"\n" + completion_event("b") + completion_event("", "length") + usage_event(3) + DONE
)


@pytest.mark.parametrize("crlf", [False, True])
def test_every_split_into_two_reads_counts_and_stamps_each_event_once(crlf: bool) -> None:
    stream = _TRICKY.replace(b"\n", b"\r\n") if crlf else _TRICKY
    ends = _content_ends(stream, b"\r\n\r\n" if crlf else b"\n\n")
    assert len(ends) == 4
    for cut in range(len(stream) + 1):
        parser = StreamParser()
        parser.feed(stream[:cut], 1.0)
        parser.feed(stream[cut:], 2.0)
        parser.finish()
        first = sum(end <= cut for end in ends)  # content events whose last byte came with the first read
        expected = [(t, n) for t, n in ((1.0, first), (2.0, len(ends) - first)) if n]
        assert list(zip(parser.chunk_times, parser.chunk_counts, strict=True)) == expected, cut
        assert parser.n_chunks == 4 and parser.events == 8, cut
        assert parser.usage == {"prompt_tokens": 7, "completion_tokens": 3} and parser.finish_reason == "length"
        assert parser.done, cut


def test_every_split_into_three_reads_keeps_the_text_in_order() -> None:
    stream = completion_event("one") + completion_event('x"}\n\ndata: {') + completion_event("three", "stop") + DONE
    for first in range(0, len(stream) + 1, 3):
        for second in range(first, len(stream) + 1, 5):
            parser = StreamParser()
            for piece, now in ((stream[:first], 1.0), (stream[first:second], 2.0), (stream[second:], 3.0)):
                parser.feed(piece, now)
            parser.finish()
            assert parser.chunks == ["one", 'x"}\n\ndata: {', "three"], (first, second)
            assert parser.n_chunks == 3 and sum(parser.chunk_counts) == 3 and parser.done


def test_content_then_done_in_one_read_without_a_finish_reason() -> None:
    """[DONE] after plain events in the same read: every event is counted once, and the stream ends."""
    parser = StreamParser()
    parser.feed(completion_event("a") + completion_event("b"), 1.0)
    parser.feed(completion_event("c") + completion_event("d") + DONE, 2.0)
    parser.finish()
    assert parser.chunk_counts == [2, 2] and parser.chunk_times == [1.0, 2.0]
    assert parser.events == 5 and parser.done and parser.chunks == ["a", "b", "c", "d"]


def test_an_error_event_after_plain_events_in_one_read_is_an_error() -> None:
    parser = StreamParser()
    with pytest.raises(StreamError, match="error event in stream: overloaded"):
        parser.feed(completion_event("a") + completion_event("b") + b'data: {"error":{"message":"overloaded"}}\n\n', 1.0)
