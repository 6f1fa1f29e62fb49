"""What the requests of a run hold: synthetic or dataset prompts, a shared prefix, conversations.

Three cache behaviours, said in the report:

- cache-busting (the default): every request (every conversation with `--turns`) opens with its
  own tag, so a prefix cache cannot serve a prompt it has seen and flatter TTFT;
- `--prefix-tokens N`: the first N prompt tokens are one text shared by every request, then the
  request's own tag and body: what a server gains from prefix caching shows in TTFT;
- `--turns N`: conversations of N turns; turn k carries the k earlier user messages and
  assistant answers. The answers are fixed text of `--output-tokens` words, not the server's own
  output, so the prompt of turn k + 1 extends the whole prompt of turn k (which the server has
  cached once it prefilled it), not the tokens it generated.

`--dataset FILE` takes prompts from ShareGPT JSON (a list of `{"conversations": [{"from":
"human", "value": …}, {"from": "gpt", …}]}`, `role`/`content` accepted too) or JSON Lines (one
such record, or `{"prompt": …, "output_tokens": N}`, per line), sampled reproducibly with
`--seed`; the reply's length (in the server's tokens where it can count them) is the output
length asked, unless `--output-tokens` is given.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from typing import Any

from stackaudit.bench import stats
from stackaudit.bench.prompts import _WORDS, TokenCounter
from stackaudit.errors import InputError
from stackaudit.host.limits import load_json

# Dataset files larger than this are refused: the whole file is read into memory.
MAX_DATASET_BYTES = 2 * 1024**3
# Keys a JSON Lines prompt record may give its output length under (vLLM custom datasets use
# `output_tokens`; others write `max_tokens` or `output_len`).
OUTPUT_LENGTH_KEYS = ("output_tokens", "max_tokens", "output_len")
_HUMAN = ("human", "user")
_ASSISTANT = ("gpt", "assistant", "chatgpt", "bard", "bing")


@dataclass
class DatasetEntry:
    """One usable record: its user turns in order and the replies that followed them."""

    prompts: list[str]
    replies: list[str]
    output_tokens: int | None = None  # given by the record itself (JSON Lines `output_tokens`)


@dataclass
class Dataset:
    path: str
    format: str  # "sharegpt-json", "jsonl"
    entries: list[DatasetEntry]
    records: int  # records read, usable or not
    skipped: int  # records with no user prompt
    order: list[int] = field(default_factory=list)  # sampled order of entries, by --seed

    def entry_for(self, index: int) -> DatasetEntry:
        return self.entries[self.order[index % len(self.order)]]

    def describe(self) -> dict[str, Any]:
        return {
            "path": os.path.basename(self.path),
            "format": self.format,
            "records": self.records,
            "usable": len(self.entries),
            "skipped": self.skipped,
        }


def _turns_of(record: Any) -> tuple[list[str], list[str]] | None:
    """(user prompts, replies) of one ShareGPT-style record, or a {"prompt": …} record."""
    if not isinstance(record, dict):
        return None
    if isinstance(record.get("prompt"), str):
        return [record["prompt"]], []
    turns = record.get("conversations", record.get("conversation", record.get("messages")))
    if not isinstance(turns, list):
        return None
    prompts: list[str] = []
    replies: list[str] = []
    for turn in turns:
        if not isinstance(turn, dict):
            continue
        who = str(turn.get("from", turn.get("role", ""))).lower()
        text = turn.get("value", turn.get("content"))
        if not isinstance(text, str) or not text.strip():
            continue
        if who in _HUMAN:
            if len(replies) < len(prompts):
                replies.append("")  # two user turns in a row: the first had no reply
            prompts.append(text)
        elif who in _ASSISTANT and len(replies) < len(prompts):
            replies.append(text)
    return prompts, replies


def _given_output(record: Any) -> int | None:
    if not isinstance(record, dict):
        return None
    for key in OUTPUT_LENGTH_KEYS:
        value = record.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def load_dataset(path: str, seed: int) -> Dataset:
    """Read a ShareGPT JSON or JSON Lines file; the order of entries is sampled with `seed`."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise InputError(f"--dataset {path}: {exc.strerror or exc}") from None
    if size > MAX_DATASET_BYTES:
        raise InputError(f"--dataset {path}: {size / 1024**3:.1f} GiB is over the {MAX_DATASET_BYTES // 1024**3} GiB limit")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--dataset {path}: cannot read: {exc}") from None
    stripped = text.lstrip()
    records: list[Any]
    if stripped.startswith("["):
        try:  # the one bounded parser: depth, finite numbers, valid text (a 100 000-deep file was exit 3)
            loaded = load_json(stripped, f"--dataset {path}", max_bytes=MAX_DATASET_BYTES)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        records, fmt = loaded, "sharegpt-json"
    else:
        records, fmt = [], "jsonl"
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(load_json(line, "record", max_bytes=MAX_DATASET_BYTES))
            except ValueError as exc:
                raise InputError(f"--dataset {path}: line {number} is not JSON ({str(exc).removeprefix('record is ')})") from None
    entries: list[DatasetEntry] = []
    for record in records:
        turns = _turns_of(record)
        if turns is None or not turns[0]:
            continue
        entries.append(DatasetEntry(turns[0], turns[1], _given_output(record)))
    if not entries:
        raise InputError(
            f"--dataset {path}: no usable prompt in {len(records)} records (expected ShareGPT "
            "'conversations' with a 'human' turn, or JSON Lines with a 'prompt')"
        )
    order = list(range(len(entries)))
    random.Random(seed).shuffle(order)
    return Dataset(path, fmt, entries, len(records), len(records) - len(entries), order)


async def fitted_text(counter: TokenCounter, tokens: int, seed: int) -> tuple[str, int]:
    """Plain words that the counter counts as close to `tokens` as it can, not over: the shared prefix."""
    rng = random.Random(seed + 7919)
    words = [rng.choice(_WORDS) for _ in range(tokens * 2 + 16)]
    count = counter.count
    n = tokens
    best = (0, 0)
    tried: set[int] = set()
    for _ in range(24):
        if n in tried or n < 1:
            break
        tried.add(n)
        got = await count(" ".join(words[:n]))
        if got <= tokens and got > best[1]:
            best = (n, got)
        if got == tokens:
            break
        n = n - max(1, (got - tokens) // 2) if got > tokens else n + max(1, (tokens - got) // 2)
        n = min(n, len(words))
    return " ".join(words[: best[0]]), best[1]


def conversation_position(local: int, width: int, turns: int) -> tuple[int, int]:
    """(first local index of the conversation, turn) of the request at local index `local`.

    Conversations run `width` at a time, interleaved: turn t of a conversation is `width`
    requests after turn t − 1, so that at concurrency `width` a turn is usually sent after
    the one before it was answered.
    """
    block, within = divmod(local, width * turns)
    turn, lane = divmod(within, width)
    return block * width * turns + lane, turn


def length_distribution(values: list[int]) -> dict[str, float | None]:
    """mean, p50, p90, p99, min and max of token lengths."""
    dist = stats.distribution([float(v) for v in values])
    dist["min"] = float(min(values)) if values else None
    dist["max"] = float(max(values)) if values else None
    return dist


def describe_mode(prefix_tokens: int, turns: int, dataset: Dataset | None) -> str:
    """One line for the report: where prompts come from and what a prefix cache can reuse."""
    source = f"dataset {os.path.basename(dataset.path)} ({dataset.format}, {len(dataset.entries)} prompts)" if dataset else "synthetic words"
    if prefix_tokens and turns > 1:
        cache = f"shared prefix of {prefix_tokens} tokens, conversations of {turns} turns"
    elif prefix_tokens:
        cache = f"shared prefix of {prefix_tokens} tokens (prefix caching measured)"
    elif turns > 1:
        cache = f"conversations of {turns} turns, each turn carrying the earlier ones (prefix caching measured)"
    else:
        cache = "cache-busting (a unique prefix per request)"
    return f"{source}; {cache}"
