"""A whole `stackaudit bench` run.

1. Reach the server, fingerprint it (model, type, version, flags), pick the token counter.
2. One short preflight request: auth, model, and whether the server takes `ignore_eos`;
   retried while the server answers 5xx or 429, which are measured later, not fatal.
3. Warm up until per-token speed stops changing (reported, not counted).
4. Scrape `/metrics`, run every (level, repeat) in shuffled order, scrape again. Each level
   reads the client's own CPU share and run-queue wait (`selfcheck`).
5. Settle token counts (usage, else the text re-counted by --tokenizer or the server's
   tokenize endpoint, else chunks with multi-token chunks detected), summarise.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from stackaudit import __version__
from stackaudit.bench import BENCH_SCHEMA, stats
from stackaudit.bench.ceiling import CeilingPlan
from stackaudit.bench.ceiling import annotate as annotate_ceiling
from stackaudit.bench.ceiling import resolve as resolve_ceiling
from stackaudit.bench.client import (
    ENDPOINTS,
    RequestRecord,
    RequestSpec,
    SpareConnector,
    build_body,
    make_session,
    own_pool,
    read_body,
    read_json,
    stream_request,
)
from stackaudit.bench.loadgen import LevelRun, run_closed_loop, run_open_loop
from stackaudit.bench.metrics import (
    DEFINITIONS,
    RequestMetrics,
    error_kind,
    prompt_length,
    summarize_level,
    summarize_repeat,
)
from stackaudit.bench.prompts import PromptFactory, TokenCounter, local_counter, server_counter, words_counter
from stackaudit.bench.server import counter_delta, fingerprint_server, host_fingerprint_for, scrape_metrics
from stackaudit.bench.sse import DEFAULT_MAX_EVENT_BYTES
from stackaudit.bench.workload import (
    Dataset,
    conversation_position,
    describe_mode,
    fitted_text,
    length_distribution,
    load_dataset,
)
from stackaudit.errors import InputError, UsageError

# Engines known to take `ignore_eos` in OpenAI-compatible requests.
IGNORE_EOS_ENGINES = {"vllm", "sglang", "tensorrt-llm", "llama.cpp"}
# EOS spellings tried on the server's tokenizer to find the EOS token id for `logit_bias`.
EOS_SPELLINGS = ("</s>", "<|endoftext|>", "<|eot_id|>", "<|im_end|>", "<|end_of_text|>", "<eos>")
# First test requests tried while the server answers 5xx or 429 (then measured, not fatal).
PREFLIGHT_ATTEMPTS = 6
# Multi-token chunks without usage: a share of chunks whose text holds more words than one token can.
MULTI_TOKEN_CHUNK_SHARE = 0.1
# ... or more characters per chunk, on average over a response, than tokens hold (about 4 in
# English text; 12 allows code and long words).
MAX_CHARS_PER_TOKEN = 12.0


@dataclass
class BenchConfig:
    url: str
    model: str | None = None
    endpoint: str = "completions"
    concurrency: list[int] = field(default_factory=lambda: [1])
    request_rate: list[float] = field(default_factory=list)
    max_concurrency: int | None = None
    requests: int | None = None
    duration_s: float | None = None
    input_tokens: int = 512
    output_tokens: int = 256
    repeats: int = 1
    warmup: str = "auto"  # "auto", "0", or a number of requests
    warmup_max_rounds: int = 8
    warmup_tolerance: float = 0.05
    seed: int = 0
    temperature: float = 0.0
    ignore_eos: bool = True
    eos_token_id: int | None = None
    timeout_s: float = 600.0
    tokenizer: str | None = None
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    shuffle: bool = True
    continuous_usage: bool = False
    label: str | None = None
    # Workload (see `workload`): a dataset file, a shared prefix, conversations.
    dataset: str | None = None
    prefix_tokens: int = 0
    turns: int = 1
    output_tokens_given: bool = False  # --output-tokens given: it overrides a dataset's lengths
    goodput: dict[str, float] = field(default_factory=dict)  # --goodput objectives, ms
    percentiles: list[float] = field(default_factory=lambda: [50.0, 90.0, 99.0])

    def validate(self) -> None:
        if self.endpoint not in ENDPOINTS:
            raise UsageError(f"--endpoint must be one of {', '.join(ENDPOINTS)}")
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"--url must be an http(s) URL, got {redact_url(self.url)!r}")
        if not self.request_rate and (not self.concurrency or min(self.concurrency) < 1):
            raise UsageError("--concurrency needs positive integers, e.g. 1,10")
        if any(rate <= 0 for rate in self.request_rate):
            raise UsageError("--request-rate needs positive numbers")
        if self.requests is not None and self.duration_s is not None:
            raise UsageError("give --requests or --duration, not both")
        if self.requests is not None and self.requests < 1:
            raise UsageError("--requests must be at least 1")
        if self.duration_s is not None and self.duration_s <= 0:
            raise UsageError("--duration must be positive")
        if self.repeats < 1:
            raise UsageError("--repeats must be at least 1")
        if self.output_tokens < 2:
            raise UsageError("--output-tokens must be at least 2 (TPOT needs two tokens)")
        if self.prefix_tokens < 0:
            raise UsageError("--prefix-tokens must be 0 or more")
        if self.prefix_tokens and not self.dataset and self.prefix_tokens >= self.input_tokens:
            raise UsageError(
                f"--prefix-tokens {self.prefix_tokens} must be below --input-tokens {self.input_tokens} "
                "(the shared prefix is part of the prompt)"
            )
        if self.turns < 1:
            raise UsageError("--turns must be at least 1")
        if self.warmup != "auto":
            try:
                if int(self.warmup) < 0:
                    raise ValueError
            except ValueError:
                raise UsageError("--warmup must be 'auto' or a number of requests") from None

    def public(self) -> dict[str, Any]:
        """The configuration as stored and printed: no secrets, URL credentials removed."""
        values = asdict(self)
        values["url"] = redact_url(self.url)
        if self.dataset:
            values["dataset"] = os.path.basename(self.dataset)  # a local path says nothing to a reader
        return values


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))
    return url


def base_url_of(url: str) -> str:
    base = url.rstrip("/")
    for suffix in ("/v1/completions", "/v1/chat/completions", "/v1"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base


@dataclass
class BenchOutcome:
    result: dict[str, Any]
    # level key ("c=10" or "r=2.5") → (repeat, record) for every measured request
    records: dict[str, list[tuple[int, RequestRecord]]]
    # request index → what it held (conversation, turn, dataset entry), for --requests-jsonl
    workload: dict[int, dict[str, Any]] = field(default_factory=dict)


def level_key(mode: str, target: float) -> str:
    return f"c={int(target)}" if mode == "concurrency" else f"r={target:g}"


Progress = Callable[[str], None]


class LevelBar:
    """A progress display inside a level (`progress.TerminalProgress`); a no-op by default."""

    def start(self, label: str, total: int | None, duration_s: float | None) -> None:
        return None

    def advance(self, record: RequestRecord) -> None:
        return None

    def stop(self) -> None:
        return None


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


async def _check_reachable(session: Any, base: str) -> None:
    import aiohttp

    try:
        async with session.get(base + "/v1/models", timeout=aiohttp.ClientTimeout(total=15)) as response:
            if response.status in (401, 403):
                raise InputError(f"the server refused the request (HTTP {response.status}): check the API key (--api-key-env)")
    except aiohttp.ClientConnectionError as exc:
        raise InputError(f"cannot reach the server at {redact_url(base)}: {str(exc).splitlines()[0]}") from None
    except asyncio.TimeoutError:
        raise InputError(f"the server at {redact_url(base)} did not answer within 15 s") from None
    except (aiohttp.ClientError, ValueError) as exc:
        # An answer aiohttp refuses to parse (200 headers of 8 KB, a line too long): the probe failed.
        why = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise InputError(f"the server at {redact_url(base)} gave an answer that cannot be read: {why}") from None


# The probes before a run (fingerprint, tokenize endpoint, EOS id) share one deadline: a server that
# trickles each answer cannot stretch the run by one --timeout per probe.
PROBE_BUDGET_S = 30.0


async def _probe(deadline: float, coro: Any, default: Any) -> Any:
    """`coro`'s result, or `default` once the probes' deadline has passed (the probe then reads as unavailable)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        coro.close()
        return default
    try:
        return await asyncio.wait_for(coro, remaining)
    except asyncio.TimeoutError:
        return default


async def _find_eos_id(session: Any, base: str) -> int | None:
    """The EOS token id, from the server's tokenizer, for servers without `ignore_eos`."""
    import aiohttp

    for spelling in EOS_SPELLINGS:
        for path, body in (
            ("/extras/tokenize", {"input": spelling}),
            ("/tokenize", {"content": spelling, "add_special": False, "parse_special": True}),
        ):
            try:
                async with session.post(base + path, json=body, timeout=aiohttp.ClientTimeout(total=5)) as response:
                    if response.status != 200:
                        continue
                    reply = await read_json(response)
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
                continue
            tokens = reply.get("tokens") if isinstance(reply, dict) else None
            if isinstance(tokens, list) and tokens:
                # A BOS may lead; a special token that exists is then a single id after it.
                special = [t for t in tokens[-1:] if isinstance(t, int)]
                if len(tokens) <= 2 and special:
                    return special[0]
    return None


class _Bench:
    def __init__(
        self, config: BenchConfig, api_key: str | None, progress: Progress | None, bar: LevelBar | None = None,
    ) -> None:
        self.config = config
        self.bar = bar or LevelBar()
        # Checked before anything is sent: a bad file exits 2 with one line.
        self.dataset: Dataset | None = load_dataset(config.dataset, config.seed) if config.dataset else None
        self.shared_prefix = ""
        self.shared_prefix_tokens = 0
        self.workload: dict[int, dict[str, Any]] = {}
        self._reply_tokens: dict[int, int] = {}  # dataset entry → its reply's length, counted once
        self.api_key = api_key
        self.progress = progress or (lambda line: None)
        self.base = base_url_of(config.url)
        self.notes: list[str] = []
        self.sampling: dict[str, Any] = {}
        self.eos_method = "none"
        self.counter: TokenCounter = words_counter()
        # --tokenizer, loaded before anything is sent: it re-counts output text first.
        self.local: TokenCounter | None = local_counter(config.tokenizer) if config.tokenizer else None
        self.output_counter: TokenCounter | None = (
            local_counter(config.tokenizer, special_tokens=False) if config.tokenizer else None
        )
        self.output_baseline = 0  # tokens the tokenize endpoint adds to any text (a BOS)
        self.next_index = 0
        self.model = config.model or ""
        self.factory = PromptFactory(self.counter, max(config.input_tokens, 1), config.seed)

    # -- preparation ---------------------------------------------------------------------
    async def prepare(self, session: Any) -> dict[str, Any]:
        config = self.config
        deadline = time.monotonic() + min(config.timeout_s, PROBE_BUDGET_S)
        await _check_reachable(session, self.base)
        server: dict[str, Any] = await _probe(deadline, fingerprint_server(session, self.base), {})
        model = config.model or server.get("model")
        if not model:
            raise UsageError("--model is needed: the server lists no model at /v1/models")
        self.model = model
        counter = await _probe(deadline, server_counter(session, self.base, model), None)
        if counter is None:
            counter = self.local
        self.counter = counter or words_counter()
        if self.output_counter is None and counter is not None and counter.source.startswith("server"):
            self.output_counter = counter
        if not self.counter.exact:
            self.notes.append("prompts sized in words, not tokens: the server has no tokenize endpoint and no --tokenizer was given")
        if self.output_counter is not None and self.output_counter.source.startswith("server"):
            try:
                self.output_baseline = await _probe(deadline, self.output_counter.count(""), 0)
            except Exception:
                self.output_baseline = 0
        self.sampling = {"temperature": config.temperature, "seed": config.seed}
        server_type = server.get("server_type", "unknown")
        if config.ignore_eos:
            if server_type in IGNORE_EOS_ENGINES or server_type == "unknown":
                self.sampling["ignore_eos"] = True
                self.eos_method = "ignore_eos"
            eos_id = config.eos_token_id
            if server_type not in IGNORE_EOS_ENGINES and eos_id is None:
                eos_id = await _probe(deadline, _find_eos_id(session, self.base), None)
            if eos_id is not None and server_type not in IGNORE_EOS_ENGINES:
                # No ignore_eos here: forbid the EOS token instead (OpenAI logit_bias, −100 = never).
                self.sampling["logit_bias"] = {str(eos_id): -100}
                self.eos_method = f"logit_bias on EOS token {eos_id}"
            if self.eos_method == "none":
                self.notes.append(
                    f"EOS not suppressed: {server_type} has no ignore_eos and the EOS token id is unknown "
                    "(give --eos-token-id); outputs may stop early"
                )
        await self._preflight(session)
        # The run's tag stays the one the first factory drew (one tag per run).
        self.factory = PromptFactory(self.counter, config.input_tokens, config.seed, self.factory.run_tag)
        if config.prefix_tokens:
            self.shared_prefix, self.shared_prefix_tokens = await fitted_text(self.counter, config.prefix_tokens, config.seed)
            self.shared_prefix += "\n"
            self.factory.shared = self.shared_prefix
        await self.factory.calibrate()
        return server

    def _spec_for(
        self, prompt: str, prompt_tokens: int | None, max_tokens: int, messages: list[dict[str, str]] | None = None,
    ) -> RequestSpec:
        body = build_body(
            self.config.endpoint, self.model, prompt, max_tokens, self.sampling, self.config.continuous_usage, messages,
        )
        return RequestSpec(ENDPOINTS[self.config.endpoint], body, max_tokens, prompt_tokens)

    async def _preflight(self, session: Any) -> None:
        """A 2-token request: proves the model name and auth, and whether extra fields are taken.

        A 5xx or 429 answer is retried: a server failing part of its requests is measured by
        the levels (errors by kind, error rate), not refused at the door.
        """
        refused_fields = False
        overloaded: list[str] = []
        for _ in range(PREFLIGHT_ATTEMPTS):
            spec = self._spec_for("Hello", None, 2)
            record = await stream_request(session, self.base, spec, RequestRecord(-1, time.perf_counter(), 2, None), self.config.timeout_s)
            if record.ok:
                if overloaded:
                    self.notes.append(
                        f"the first test request failed {len(overloaded)} time(s) before one succeeded "
                        f"({', '.join(sorted(set(overloaded)))}); errors are counted per level"
                    )
                return
            error = record.error or ""
            status = record.status or 0
            if not refused_fields and error.startswith(("HTTP 400", "HTTP 422")) and "ignore_eos" in self.sampling:
                # A strict server refuses unknown fields: retry without ignore_eos.
                refused_fields = True
                self.sampling.pop("ignore_eos")
                self.eos_method = "none" if "logit_bias" not in self.sampling else self.eos_method
                self.notes.append("the server refused ignore_eos; requests sent without it")
                continue
            if error.startswith(("HTTP 401", "HTTP 403")):
                raise InputError(f"the server refused the request ({error[:8]}): check the API key (--api-key-env)")
            if error.startswith("HTTP 404"):
                raise InputError(f"{ENDPOINTS[self.config.endpoint]} not found on the server (try --endpoint)")
            if status == 429 or 500 <= status <= 599:
                overloaded.append(f"HTTP {status}")
                await asyncio.sleep(0.05 * len(overloaded))
                continue
            raise InputError(f"a first test request failed: {error}")
        raise InputError(
            f"the server answered {', '.join(sorted(set(overloaded))) or 'errors'} to all {PREFLIGHT_ATTEMPTS} first test "
            "requests: nothing to measure"
        )

    # -- request making ------------------------------------------------------------------
    async def make_specs(self, count: int, width: int = 1) -> Callable[[int], RequestSpec]:
        """Prompts for the next `count` request indices (verified), more made on demand.

        `width`: conversations running at once with `--turns` (the level's concurrency).
        """
        if self.dataset is not None or self.config.turns > 1:
            return await self._workload_specs(count, max(1, width))
        first = self.next_index
        indices = list(range(first, first + count))
        self.next_index += count
        prompts = await self.factory.make_many(indices)
        prepared = {
            i: self._spec_for(p.text, p.tokens if self.counter.exact else None, self.config.output_tokens)
            for i, p in zip(indices, prompts, strict=True)
        }
        fallback_tokens = prompts[0].tokens if prompts and self.counter.exact else None

        def make_spec(index: int) -> RequestSpec:
            spec = prepared.get(index)
            if spec is None:
                # --duration: more requests than prepared; same sizing, not verified one by one.
                spec = self._spec_for(self.factory._text(index, self.factory._words), fallback_tokens, self.config.output_tokens)
            return spec

        return make_spec

    def _user_text(self, index: int, turn: int, conversation: int) -> str:
        """The user message of `turn` in the conversation whose first request is `conversation`."""
        if self.dataset is not None:
            entry = self.dataset.entry_for(conversation)
            if turn < len(entry.prompts):
                text = entry.prompts[turn]
                return (self.factory.tag(index) + text) if turn == 0 else text
        if turn == 0:
            return self.factory._text(index, self.factory._words)
        # Later turns carry no shared prefix: it opens the conversation once.
        return self.factory.own_tag(index) + self.factory.body(self.factory._words)

    def _answer_text(self, turn: int, conversation: int) -> str:
        if self.dataset is not None:
            entry = self.dataset.entry_for(conversation)
            if turn < len(entry.replies) and entry.replies[turn]:
                return entry.replies[turn]
        return self.factory.body(min(self.config.output_tokens, len(self.factory._body)))

    async def _max_tokens_for(self, conversation: int, turn: int) -> int:
        config = self.config
        if self.dataset is None or config.output_tokens_given:
            return config.output_tokens
        entry_index = self.dataset.order[conversation % len(self.dataset.order)]
        entry = self.dataset.entries[entry_index]
        if entry.output_tokens is not None:
            return max(2, entry.output_tokens)
        if turn < len(entry.replies) and entry.replies[turn]:
            key = entry_index * 1000 + turn
            if key not in self._reply_tokens:
                self._reply_tokens[key] = await self.counter.count(entry.replies[turn])
            return max(2, self._reply_tokens[key])
        return config.output_tokens

    async def _workload_specs(self, count: int, width: int) -> Callable[[int], RequestSpec]:
        """Dataset prompts and conversations (`--dataset`, `--turns`): one spec per index, counted."""
        config = self.config
        first = self.next_index
        self.next_index += count
        chat = config.endpoint == "chat"
        semaphore = asyncio.Semaphore(16)

        def parts_of(index: int) -> tuple[int, int, list[tuple[str, str]]]:
            start, turn = conversation_position(index - first, width, config.turns)
            conversation = first + start
            parts: list[tuple[str, str]] = []
            for t in range(turn):
                parts.append(("user", self._user_text(conversation + t * width, t, conversation)))
                parts.append(("assistant", self._answer_text(t, conversation)))
            parts.append(("user", self._user_text(index, turn, conversation)))
            return conversation, turn, parts

        def spec_of(index: int, max_tokens: int, tokens: int | None) -> RequestSpec:
            conversation, turn, parts = parts_of(index)
            text = "\n\n".join(content for _, content in parts)
            self.workload[index] = {
                "conversation": conversation, "turn": turn + 1, "messages": len(parts),
                **({"dataset_entry": self.dataset.order[conversation % len(self.dataset.order)]} if self.dataset else {}),
            }
            messages = [{"role": role, "content": content} for role, content in parts] if chat else None
            return self._spec_for(parts[-1][1] if chat else text, tokens, max_tokens, messages)

        async def build(index: int) -> RequestSpec:
            conversation, turn, parts = parts_of(index)
            async with semaphore:
                max_tokens = await self._max_tokens_for(conversation, turn)
                text = "\n\n".join(content for _, content in parts)
                tokens = await self.counter.count(text) if self.counter.exact else None
            return spec_of(index, max_tokens, tokens)

        specs = await asyncio.gather(*(build(i) for i in range(first, first + count)))
        prepared = dict(zip(range(first, first + count), specs, strict=True))

        def make_spec(index: int) -> RequestSpec:
            spec = prepared.get(index)
            if spec is None:
                # --duration: more requests than prepared; built now, off the counter (no await here).
                spec = spec_of(index, specs[-1].max_tokens if specs else config.output_tokens, None)
            return spec

        return make_spec

    # -- token settling (after a run, off the clock) ------------------------------------
    async def settle(self, records: list[RequestRecord]) -> None:
        """Output tokens of every request: usage; else the kept text re-counted; else chunks, checked."""
        counter = self.output_counter
        baseline = self.output_baseline if counter is not None and counter.source.startswith("server") else 0
        for record in records:
            usage = record.usage or {}
            if record.ok and isinstance(usage.get("completion_tokens"), int):
                record.output_tokens = int(usage["completion_tokens"])
                record.prompt_tokens = usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else None
                record.token_source = "usage"
                record.approximate = False
                record.chunks = None
                continue
            record.output_tokens = record.n_chunks
            record.token_source = "content chunks"
            record.approximate = True
            if record.ok and record.chunks:
                chunks = record.chunks
                counted = None
                # A text cut at its cap would be under-counted: the chunks are checked instead.
                if counter is not None and not record.text_cut:
                    try:
                        counted = await counter.count("".join(chunks)) - baseline
                    except Exception:
                        counted = None  # said below: the chunks are then checked instead
                if counter is not None and counted is not None and counted > 0:
                    record.output_tokens = counted
                    record.token_source = (
                        "local tokenizer on the text" if counter.source.startswith("local") else "server tokenize of the text"
                    )
                else:
                    record.tokens_per_chunk_known = not several_tokens_per_chunk(record, chunks)
            record.chunks = None

    # -- warm-up ---------------------------------------------------------------------------
    async def warm_up(self, session: Any, concurrency: int) -> dict[str, Any]:
        config = self.config
        if config.warmup == "0":
            self.notes.append("no warm-up (--warmup 0): the first requests may find the server cold")
            return {"mode": "off", "requests": 0, "rounds": [], "converged": None, "cold": None}
        fixed = None if config.warmup == "auto" else int(config.warmup)
        round_size = max(concurrency, 4)
        rounds: list[float] = []
        requests = 0
        max_rounds = 1 if fixed is not None else config.warmup_max_rounds
        converged = False
        for _ in range(max_rounds):
            size = fixed if fixed is not None else round_size
            make_spec = await self.make_specs(size, min(concurrency, size))
            run = await run_closed_loop(
                session, self.base, make_spec, min(concurrency, size), size, None, config.timeout_s,
                config.max_event_bytes, first_index=self.next_index - size,
            )
            await self.settle(run.records)
            requests += len(run.records)
            tpots = sorted(m.tpot for m in (RequestMetrics(r) for r in run.records if r.ok) if m.tpot is not None)
            if tpots:
                rounds.append(stats.percentile(tpots, 50))
            self.progress(f"warm-up round {len(rounds)}: TPOT p50 {rounds[-1]:.2f} ms" if rounds else "warm-up round: no TPOT")
            settled = len(rounds) >= 2 and rounds[-2] > 0 and abs(rounds[-1] - rounds[-2]) / rounds[-2] <= config.warmup_tolerance
            if fixed is None and settled:
                converged = True
                break
        cold = None
        if len(rounds) >= 2 and rounds[-1] > 0:
            slowdown = rounds[0] / rounds[-1] - 1.0
            cold = slowdown > 0.10
            if cold:
                self.notes.append(
                    f"the server was cold: first warm-up requests TPOT {rounds[0]:.2f} ms vs {rounds[-1]:.2f} ms warmed "
                    f"({slowdown:+.0%}); those requests were not counted"
                )
        if fixed is None and not converged:
            self.notes.append(
                f"warm-up did not converge within {config.warmup_max_rounds} rounds (TPOT still changing by more than "
                f"{config.warmup_tolerance:.0%}): results may drift"
            )
        return {
            "mode": "auto" if fixed is None else "fixed",
            "requests": requests,
            "rounds_tpot_ms_p50": rounds,
            "converged": converged if fixed is None else None,
            "cold": cold,
            "cold_slowdown": (rounds[0] / rounds[-1] - 1.0) if len(rounds) >= 2 and rounds[-1] > 0 else None,
        }

    async def prime_connections(self, session: Any, count: int) -> None:
        """Open `count` connections before a level, so that its first wave pays no connection setup.

        Cheap GETs leave kept-alive connections in the pool; a server that closes them instead
        gets `count` spare connections opened at connector level. Streams that go through `http1`
        get `count` connections opened in its pool instead.
        """
        count = min(count, 512)
        pool = own_pool(session, self.base)
        if pool is not None:
            await pool.fill(count)
            return
        closing: list[tuple[str | None, int | None]] = []

        async def one() -> None:
            try:
                async with session.get(self.base + "/v1/models") as response:
                    if "close" in response.headers.get("Connection", "").lower():
                        closing.append((response.url.host, response.url.port))
                    await read_body(response)
            except Exception:
                pass

        await asyncio.gather(*(one() for _ in range(count)))
        connector = session.connector
        if closing and isinstance(connector, SpareConnector):
            key = connector.key_for(*closing[0])
            if key is not None:
                await connector.open_spares(key, count)


async def run_bench(
    config: BenchConfig, api_key: str | None = None, progress: Progress | None = _stderr,
    ceiling: CeilingPlan | None = None, bar: LevelBar | None = None,
) -> BenchOutcome:
    """Run the benchmark; returns the report dict and the per-request records.

    `ceiling`: the `--ceiling-*` flags, checked by `stackaudit.bench.ceiling.prepare`; None = no
    flags (derived from the audit facts when the server is on this host). `bar`: a progress
    display inside each level.
    """
    config.validate()
    bench = _Bench(config, api_key, progress, bar)
    started = time.time()
    session = make_session(api_key, config.timeout_s)
    try:
        return await _run(bench, session, started, ceiling or CeilingPlan())
    finally:
        await session.close()


async def _run(bench: _Bench, session: Any, started: float, ceiling_plan: CeilingPlan) -> BenchOutcome:
    config = bench.config
    say = bench.progress
    server = await bench.prepare(session)
    mode = "rate" if config.request_rate else "concurrency"
    targets: list[float] = [float(r) for r in config.request_rate] if mode == "rate" else [float(c) for c in config.concurrency]
    top_concurrency = int(max(targets)) if mode == "concurrency" else (config.max_concurrency or 16)

    # The host fingerprint runs a quick audit: before measuring, so it cannot disturb the client.
    host, host_source = await asyncio.to_thread(host_fingerprint_for, config.url)
    # The decode ceiling's setup (flags, else this host's audit facts), also before measuring.
    ceiling_setup, ceiling_note = await asyncio.to_thread(
        resolve_ceiling, ceiling_plan, config.url, config.input_tokens, config.output_tokens
    )
    if ceiling_setup is None:
        say(ceiling_note)
    else:
        say(f"ceiling: {ceiling_setup.model_name} on {ceiling_setup.gpus}x {ceiling_setup.gpu_spec.name}, "
            f"TP {ceiling_setup.tp}, context {ceiling_setup.context}")
    await bench.prime_connections(session, top_concurrency)
    warmup = await bench.warm_up(session, top_concurrency)

    plan = [(target, repeat) for target in targets for repeat in range(config.repeats)]
    if config.shuffle and len(plan) > 1:
        # Shuffled so that drift over time does not alias into the effect of concurrency.
        random.Random(config.seed).shuffle(plan)
    metrics_before = await scrape_metrics(session, bench.base)
    runs: dict[float, list[tuple[int, LevelRun, dict[str, Any]]]] = {t: [] for t in targets}
    stop = _Interrupt()
    with stop:
        await _run_plan(bench, session, mode, plan, top_concurrency, runs, stop)
    finished = [t for t in targets if runs[t]]
    if stop.interrupted:
        if not finished:
            raise KeyboardInterrupt
        say(f"interrupted: keeping the {len(finished)} finished level(s); the report is marked partial")
        targets = finished
    # After an interruption the server's counters also hold the level cut short: no cross-check.
    metrics_after = None if stop.interrupted else await scrape_metrics(session, bench.base)
    measured = [r for entries in runs.values() for _, run, _ in entries for r in run.records]
    if measured and not any(r.ok for r in measured):
        kinds: dict[str, int] = {}
        for record in measured:
            kind = error_kind(record)
            kinds[kind] = kinds.get(kind, 0) + 1
        raise InputError(
            f"every measured request failed ({', '.join(f'{k} ×{n}' for k, n in sorted(kinds.items()))}): nothing measured"
        )

    levels = []
    records: dict[str, list[tuple[int, RequestRecord]]] = {}
    for target in targets:
        entries = sorted(runs[target], key=lambda e: e[0])
        level = summarize_level(
            mode, target, [e[1] for e in entries], [e[2] for e in entries], config.endpoint,
            objectives=config.goodput or None, percentiles=config.percentiles,
        )
        levels.append(level)
        records[level_key(mode, target)] = [(repeat, r) for repeat, run, _ in entries for r in run.records]

    anomalies = list(bench.notes)
    cross_check = None
    all_records = [r for entries in records.values() for _, r in entries]
    client_tokens = sum((r.output_tokens or 0) if r.ok else r.n_chunks for r in all_records)
    delta = counter_delta(
        server.get("server_type", "unknown"),
        metrics_before[0] if metrics_before else None,
        metrics_after[0] if metrics_after else None,
    )
    if delta is not None:
        difference = client_tokens - delta["output_tokens"]
        agree = abs(difference) <= max(5.0, 0.02 * max(delta["output_tokens"], 1.0))
        cross_check = {
            "server_metric": delta["metric"],
            "server_output_tokens": delta["output_tokens"],
            "client_output_tokens": client_tokens,
            "agree": agree,
        }
        if not agree:
            anomalies.append(
                f"token totals disagree: the client counted {client_tokens} output tokens, the server's "
                f"{delta['metric']} rose by {delta['output_tokens']:.0f} (other traffic on the server, or a counting error)"
            )
    if mode == "concurrency" and len(levels) > 1:
        anomalies.extend(_monotonicity(levels))

    result = {
        "schema": BENCH_SCHEMA,
        "kind": "stackaudit.bench",
        "tool": {"name": "stackaudit", "version": __version__},
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "duration_s": time.time() - started,
        "label": config.label,
        "config": {
            **config.public(),
            "order": [level_key(mode, t) + f"#{r + 1}" for t, r in plan],
            "prompt_tokens_source": bench.counter.source,
            "eos_suppression": bench.eos_method,
            "workload_mode": describe_mode(config.prefix_tokens, config.turns, bench.dataset),
        },
        "workload": _workload_summary(bench, all_records),
        "server": {
            **server,
            "url": redact_url(config.url),
            "model_used": bench.model,
            "sampling": bench.sampling,
            "metrics_before_after": bool(metrics_before and metrics_after),
        },
        "host": {"fingerprint": host, "source": host_source},
        "client": {
            "validity": "judged per level from the client's own CPU share, run-queue wait and events per read",
            "output_token_counter": bench.output_counter.source if bench.output_counter else None,
        },
        "warmup": warmup,
        "definitions": DEFINITIONS,
        "levels": levels,
        "token_cross_check": cross_check,
        "anomalies": anomalies,
        "partial": _partial(mode, plan, runs) if stop.interrupted else None,
    }
    annotate_ceiling(result, ceiling_setup, ceiling_note)
    measured_indices = {r.index for r in all_records}
    return BenchOutcome(result, records, {i: m for i, m in bench.workload.items() if i in measured_indices})


class _Interrupt:
    """Ctrl-C (SIGINT) during the timed levels: the level running is cancelled, the finished ones kept.

    A second Ctrl-C raises KeyboardInterrupt at once. Where the event loop cannot take a signal
    handler (Windows), Ctrl-C keeps its default: KeyboardInterrupt, nothing kept.
    """

    def __init__(self) -> None:
        self.interrupted = False
        self.level: asyncio.Future[Any] | None = None
        self._installed = False

    def _on_sigint(self) -> None:
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True
        if self.level is not None:
            self.level.cancel()

    def __enter__(self) -> _Interrupt:
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._on_sigint)
            self._installed = True
        except (NotImplementedError, RuntimeError, ValueError):
            pass
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)


async def _run_plan(
    bench: _Bench, session: Any, mode: str, plan: list[tuple[float, int]], top_concurrency: int,
    runs: dict[float, list[tuple[int, LevelRun, dict[str, Any]]]], stop: _Interrupt,
) -> None:
    """Every (level, repeat) of `plan` in order, each summary into `runs`, until the end or Ctrl-C."""
    config = bench.config
    say = bench.progress
    for position, (target, repeat) in enumerate(plan):
        if stop.interrupted:
            return
        n_requests = config.requests
        if n_requests is None and config.duration_s is None:
            n_requests = max(20, 4 * int(target)) if mode == "concurrency" else max(20, round(target * 10))
        prepare_count = n_requests if n_requests is not None else max(64, int(target * (config.duration_s or 1) * 4))
        make_spec = await bench.make_specs(prepare_count, max(1, int(target)))
        first_index = bench.next_index - prepare_count
        await bench.prime_connections(session, int(target) if mode == "concurrency" else top_concurrency)
        # No collector pauses inside a timed level (vLLM freezes its GC heap for the same reason).
        gc.collect()
        gc.disable()
        bench.bar.start(
            f"[{position + 1}/{len(plan)}] {level_key(mode, target)} repeat {repeat + 1}", n_requests, config.duration_s
        )
        level = asyncio.ensure_future(
            _run_level(bench, session, mode, target, make_spec, n_requests, first_index, repeat)
        )
        stop.level = level
        try:
            run = await level
        except asyncio.CancelledError:
            if not stop.interrupted:
                raise
            return  # the level cut short is not kept
        finally:
            stop.level = None
            bench.bar.stop()
            gc.enable()
        await bench.settle(run.records)
        summary = summarize_repeat(run)
        runs[target].append((repeat, run, summary))
        rate = summary["output_tokens_per_s"]
        say(
            f"[{position + 1}/{len(plan)}] {level_key(mode, target)} repeat {repeat + 1}: "
            + (f"{rate:.1f} tok/s" if rate is not None else "tok/s unknown")
            + f", TPOT {summary['tpot_ms_mean'] or 0:.2f} ms, {summary['errors']} errors"
        )


def _partial(
    mode: str, plan: list[tuple[float, int]], runs: dict[float, list[tuple[int, LevelRun, dict[str, Any]]]]
) -> dict[str, Any]:
    """What an interrupted run kept and what it did not run (the level cut short among them)."""
    done = {(target, repeat) for target, entries in runs.items() for repeat, _, _ in entries}
    return {
        "reason": "interrupted (Ctrl-C)",
        "levels_kept": [level_key(mode, t) for t in sorted(runs) if runs[t]],
        "not_run": [level_key(mode, t) + f"#{r + 1}" for t, r in plan if (t, r) not in done],
    }


def _workload_summary(bench: _Bench, records: list[RequestRecord]) -> dict[str, Any]:
    """What the prompts were, and the input and output lengths the measured requests had."""
    config = bench.config
    ok = [r for r in records if r.ok]
    inputs = [n for n in (prompt_length(r) for r in ok) if n is not None]
    outputs = [r.output_tokens for r in ok if r.output_tokens is not None and r.tokens_per_chunk_known]
    return {
        "mode": describe_mode(config.prefix_tokens, config.turns, bench.dataset),
        "cache_busting": not config.prefix_tokens and config.turns == 1,
        "prefix_tokens": config.prefix_tokens or None,
        "prefix_tokens_counted": bench.shared_prefix_tokens or None,
        "turns": config.turns,
        "dataset": bench.dataset.describe() if bench.dataset else None,
        "output_lengths_from": (
            "--output-tokens" if bench.dataset is None or config.output_tokens_given else "the dataset (reply length, else --output-tokens)"
        ),
        "input_tokens": length_distribution(inputs),
        "input_tokens_source": "usage.prompt_tokens, else " + bench.counter.source,
        "output_tokens_asked": length_distribution([r.max_tokens for r in records]),
        "output_tokens": length_distribution(outputs),
    }


async def _run_level(
    bench: _Bench, session: Any, mode: str, target: float, make_spec: Callable[[int], RequestSpec],
    n_requests: int | None, first_index: int, repeat: int,
) -> LevelRun:
    config = bench.config
    if mode == "concurrency":
        return await run_closed_loop(
            session, bench.base, make_spec, int(target), n_requests, config.duration_s, config.timeout_s,
            config.max_event_bytes, first_index=first_index, on_done=bench.bar.advance,
        )
    return await run_open_loop(
        session, bench.base, make_spec, target, n_requests, config.duration_s, config.timeout_s,
        config.max_event_bytes, seed=config.seed + repeat, max_concurrency=config.max_concurrency,
        first_index=first_index, on_done=bench.bar.advance,
    )


def _monotonicity(levels: list[dict[str, Any]]) -> list[str]:
    """A higher concurrency with lower TPOT is possible (data-parallel servers), and worth saying."""
    notes = []
    ordered = sorted((lv for lv in levels if lv["tpot_ms"]["mean"]), key=lambda lv: lv["concurrency"])
    for low, high in itertools.pairwise(ordered):
        if high["tpot_ms"]["mean"] < 0.9 * low["tpot_ms"]["mean"]:
            notes.append(
                f"TPOT at concurrency {high['concurrency']} ({high['tpot_ms']['mean']:.2f} ms) is below concurrency "
                f"{low['concurrency']} ({low['tpot_ms']['mean']:.2f} ms): warm-up order or a data-parallel server"
            )
    return notes


def _word_starts(text: str) -> int:
    """Words begun in `text`: a lower bound of its tokens in vocabularies that split at spaces."""
    starts = 0
    previous_space = True
    for char in text:
        space = char.isspace()
        if previous_space and not space:
            starts += 1
        previous_space = space
    return starts


def several_tokens_per_chunk(record: RequestRecord, chunks: list[str]) -> bool:
    """Whether this response's chunks hold several tokens, with nothing to count them exactly.

    Three signs: the server reached `finish_reason: length` with fewer chunks than the tokens
    asked (it generated max_tokens tokens in them); a tenth of the chunks begin two or more
    words (BPE and SentencePiece vocabularies split at spaces, so a token holds one word
    start); or the text is longer per chunk, on average, than tokens are.
    """
    if record.finish_reason == "length" and record.max_tokens and 0 < record.n_chunks < record.max_tokens:
        return True
    if not chunks:
        return False
    multi = sum(1 for text in chunks if _word_starts(text) >= 2)
    if multi >= max(1, MULTI_TOKEN_CHUNK_SHARE * len(chunks)):
        return True
    return sum(len(text) for text in chunks) / len(chunks) > MAX_CHARS_PER_TOKEN
