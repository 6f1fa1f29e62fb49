"""Prompts sized in the server's own tokens, each with a unique prefix.

The token counter is, in order of preference: the server's tokenize endpoint (vLLM and
SGLang `/tokenize`, llama.cpp `/tokenize`, llama-cpp-python `/extras/tokenize`, TGI
`/tokenize`), a local tokenizer the user names with `--tokenizer`, or words (said so in the
report). Sizing through the server avoids the client/server tokenizer mismatch that turned
7 140 intended prompt tokens into 35 921 (https://github.com/SemiAnalysisAI/InferenceX/pull/937).

A unique prefix per request keeps prefix caching from serving a cached prompt and
flattering TTFT.
"""

from __future__ import annotations

import asyncio
import functools
import os
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from stackaudit.errors import InputError, UsageError
from stackaudit.render.text import error_line

# Plain words that tokenize to about one token each in common vocabularies.
_WORDS = ["the", "of", "and", "to", "in", "is", "was", "for", "that", "on", "as", "with", "by", "he", "it", "at", "from", "his", "an", "were", "are", "which", "this", "be", "or", "has", "had", "not", "first", "one", "their", "its", "new", "after", "but", "who", "they", "have", "her", "she", "two", "been", "other", "when", "there", "all", "during", "into", "school", "time", "may", "years", "more", "most", "only", "over", "city", "some", "world", "would", "where", "later", "up", "such", "used", "many", "can", "state", "about", "national", "out", "known", "university", "united", "then", "made", "part", "team", "between", "under", "north", "life", "high", "county", "three", "until", "while", "these", "south", "through", "his", "before", "river", "both", "year", "also", "game", "both", "music", "group", "series", "since", "well", "however", "album", "including", "back", "film", "work", "like", "several", "early", "history", "second", "against", "named", "found", "following", "around", "company", "same", "way", "three", "million", "held", "season", "family", "each", "called", "four", "number", "well", "local", "house", "based"]

CountTokens = Callable[[str], Awaitable[int]]


@dataclass
class TokenCounter:
    """How prompt tokens are counted, and what the report says about it."""

    count: CountTokens
    source: str  # "server /tokenize", "local tokenizer …", "words"
    exact: bool  # False for words


def words_counter() -> TokenCounter:
    async def count(text: str) -> int:
        return len(text.split())

    return TokenCounter(count, "words (no tokenize endpoint on the server and no --tokenizer given)", False)


def hf_cache_dirs() -> list[str]:
    """Where the Hugging Face hub cache may be (https://huggingface.co/docs/huggingface_hub/guides/manage-cache)."""
    dirs = []
    if os.environ.get("HF_HUB_CACHE"):
        dirs.append(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        dirs.append(os.path.join(os.environ["HF_HOME"], "hub"))
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    dirs.append(os.path.join(cache, "huggingface", "hub"))
    return dirs


def _cached_tokenizer_file(model_id: str) -> str | None:
    """tokenizer.json of `org/name` in the local HF cache: the snapshot `refs/main` names, else the newest."""
    folder = "models--" + model_id.replace("/", "--")
    for hub in hf_cache_dirs():
        root = os.path.join(hub, folder)
        snapshots = os.path.join(root, "snapshots")
        if not os.path.isdir(snapshots):
            continue
        try:
            with open(os.path.join(root, "refs", "main"), encoding="ascii") as handle:
                main = handle.read().strip()
        except OSError:
            main = ""
        candidates = [os.path.join(snapshots, main)] if main else []
        try:
            others = sorted(
                (os.path.join(snapshots, name) for name in os.listdir(snapshots)),
                key=lambda path: os.path.getmtime(path), reverse=True,
            )
        except OSError:
            others = []
        for snapshot in [*candidates, *others]:
            file = os.path.join(snapshot, "tokenizer.json")
            if os.path.isfile(file):
                return file
    return None


def tokenizer_file(ref: str) -> str:
    """The tokenizer.json that `--tokenizer REF` names: a file, a directory holding one, or a cached model id.

    Never downloads: a model id must already be in the local Hugging Face cache.
    """
    if os.path.isfile(ref):
        return ref
    if os.path.isdir(ref):
        file = os.path.join(ref, "tokenizer.json")
        if os.path.isfile(file):
            return file
        raise InputError(f"--tokenizer {ref}: no tokenizer.json in that directory")
    if ref.count("/") == 1 and not ref.startswith((".", "/", "~")):
        cached = _cached_tokenizer_file(ref)
        if cached:
            return cached
        raise InputError(
            f"--tokenizer {ref}: not a file, and no tokenizer.json for that model id in the local Hugging Face cache "
            "(stackaudit never downloads; give a path to tokenizer.json)"
        )
    raise InputError(f"--tokenizer {ref}: no such file or directory")


@functools.lru_cache(maxsize=4)
def _load_tokenizer(file: str) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise UsageError("--tokenizer needs the `tokenizers` package: pip install 'stackaudit[tokenizer]'") from None
    try:
        return Tokenizer.from_file(file)
    except Exception as exc:
        raise InputError(f"--tokenizer {file}: cannot load: {error_line(exc, 200)}") from None


def local_counter(ref: str, special_tokens: bool = True) -> TokenCounter:
    """A Hugging Face `tokenizers` tokenizer named by `--tokenizer` (see `tokenizer_file`).

    `special_tokens`: count what the tokenizer adds around a text (a BOS), as a server does for
    a prompt; False for generated text, which carries none.
    """
    file = tokenizer_file(ref)
    tokenizer = _load_tokenizer(file)

    async def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=special_tokens).ids)

    return TokenCounter(count, f"local tokenizer {ref}", True)


def _token_count_of(reply: Any) -> int | None:
    if isinstance(reply, dict):
        if isinstance(reply.get("count"), int):
            return int(reply["count"])
        tokens = reply.get("tokens")
        if isinstance(tokens, list):
            return len(tokens)
    if isinstance(reply, list):
        return len(reply)
    return None


# (path, body builder): vLLM/SGLang, llama-cpp-python, llama.cpp, TGI.
_TOKENIZE_ENDPOINTS: tuple[tuple[str, Callable[[str, str], dict[str, Any]]], ...] = (
    ("/tokenize", lambda model, text: {"model": model, "prompt": text}),
    ("/extras/tokenize", lambda model, text: {"model": model, "input": text}),
    ("/tokenize", lambda model, text: {"content": text}),
    ("/tokenize", lambda model, text: {"inputs": text}),
)


async def server_counter(session: Any, base_url: str, model: str) -> TokenCounter | None:
    """Find the server's tokenize endpoint; None when it has none."""
    import aiohttp

    from stackaudit.bench.client import read_json

    probe = "Hello world, this is a tokenizer probe."
    for path, make_body in _TOKENIZE_ENDPOINTS:
        try:
            async with session.post(
                base_url + path, json=make_body(model, probe), timeout=aiohttp.ClientTimeout(total=10)
            ) as response:
                if response.status != 200:
                    continue
                reply = await read_json(response)
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            continue
        if not _token_count_of(reply):
            continue

        async def count(text: str, path: str = path, make_body: Any = make_body) -> int:
            async with session.post(
                base_url + path, json=make_body(model, text), timeout=aiohttp.ClientTimeout(total=30)
            ) as response:
                if response.status != 200:
                    raise InputError(f"tokenize endpoint {path} answered HTTP {response.status}")
                reply = await read_json(response)
            value = _token_count_of(reply)
            if value is None:
                raise InputError(f"tokenize endpoint {path} gave no token count")
            return value

        return TokenCounter(count, f"server {path}", True)
    return None


@dataclass
class Prompt:
    text: str
    tokens: int  # as counted by the counter


class PromptFactory:
    """Makes prompts of a target token count; request i gets the unique prefix `i`."""

    def __init__(self, counter: TokenCounter, target_tokens: int, seed: int, run_tag: str | None = None) -> None:
        if target_tokens < 1:
            raise UsageError("--input-tokens must be at least 1")
        self.counter = counter
        self.target = target_tokens
        self.seed = seed
        rng = random.Random(seed)
        self._body = [rng.choice(_WORDS) for _ in range(max(64, target_tokens * 2 + 64))]
        self._words = 0  # body words that fit with a typical prefix, found by calibrate()
        self._semaphore = asyncio.Semaphore(16)
        # `--prefix-tokens`: text every prompt opens with, before its own tag (counted in the target).
        self.shared = ""
        # Unique per run, not per seed: a rerun with the same seed must not find its prompts in
        # the server's prefix cache (the body words still follow the seed).
        self.run_tag = run_tag or secrets.token_hex(3)

    def tag(self, index: int) -> str:
        # Fixed-width index: prefixes then tokenize to the same length in most vocabularies.
        return f"{self.shared}{self.own_tag(index)}"

    def own_tag(self, index: int) -> str:
        """The tag alone, without the shared prefix: what opens a later turn of a conversation."""
        return f"Request {index:07d} of run {self.run_tag}: "

    def body(self, words: int) -> str:
        return " ".join(self._body[:words])

    def _text(self, index: int, words: int) -> str:
        return self.tag(index) + self.body(words)

    async def calibrate(self) -> None:
        self._words = await self._fit(0, None)

    async def _fit(self, index: int, start: int | None) -> int:
        """Number of body words for which prompt `index` is closest to the target, not over it."""
        count = self.counter.count
        prefix_tokens = await count(self._text(index, 0))
        words = start if start is not None else max(0, self.target - prefix_tokens)
        words = min(words, len(self._body))
        best: tuple[int, int] | None = None  # (words, tokens) with tokens <= target
        tried: dict[int, int] = {}
        for _ in range(24):
            if words in tried:
                break
            tokens = await count(self._text(index, words))
            tried[words] = tokens
            if tokens <= self.target and (best is None or tokens > best[1]):
                best = (words, tokens)
            if tokens == self.target:
                break
            if tokens > self.target:
                step = max(1, (tokens - self.target) // 2) if tokens - self.target > 4 else 1
                words = max(0, words - step)
            else:
                if words >= len(self._body):
                    break
                step = max(1, (self.target - tokens) // 2) if self.target - tokens > 4 else 1
                words = min(len(self._body), words + step)
        return best[0] if best else 0

    async def make(self, index: int, verify: bool) -> Prompt:
        if not verify:
            return Prompt(self._text(index, self._words), -1)
        async with self._semaphore:
            tokens = await self.counter.count(self._text(index, self._words))
            words = self._words
            if tokens != self.target:
                words = await self._fit(index, self._words)
                tokens = await self.counter.count(self._text(index, words))
        return Prompt(self._text(index, words), tokens)

    async def make_many(self, indices: list[int], verify_limit: int = 512) -> list[Prompt]:
        """Prompts for these request indices; all verified up to `verify_limit`, then a sample."""
        rng = random.Random(self.seed + 1)
        verify_all = len(indices) <= verify_limit
        sample = set(indices if verify_all else rng.sample(indices, 64))
        prompts = await asyncio.gather(*(self.make(i, i in sample) for i in indices))
        typical = next((p.tokens for p in prompts if p.tokens >= 0), self.target)
        return [p if p.tokens >= 0 else Prompt(p.text, typical) for p in prompts]
