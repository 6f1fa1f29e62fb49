"""Load generation: closed loop at a fixed concurrency, open loop at a Poisson request rate.

Every request carries its *intended* send time, and latency is counted from it:
- closed loop: the moment its slot freed (the previous request on that slot completed);
- open loop: its scheduled arrival.
Time the client spends getting round to sending (a busy event loop, a connection limit) then
shows in the latency instead of vanishing from it, unlike the 506 ms reported vs 1 932 ms from
schedule in https://github.com/vllm-project/vllm/issues/54101. The difference, `sent −
intended`, is reported as send lag.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stackaudit.bench.client import RequestRecord, RequestSpec, stream_request
from stackaudit.bench.selfcheck import ClientUsage, UsageMeter


@dataclass
class LevelRun:
    """The raw outcome of one level (one concurrency or rate, one repeat)."""

    mode: str  # "concurrency" or "rate"
    target: float
    records: list[RequestRecord]
    start: float
    end: float
    issue_end: float  # when the last request was issued
    loop_lag_ms: list[float] = field(default_factory=list)
    usage: ClientUsage | None = None  # the client's loop thread during the level


class _LoopLagMonitor:
    """Samples how late the event loop wakes a 5 ms sleeper: the client's own scheduling delay."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._task: asyncio.Task[Any] | None = None

    async def _run(self) -> None:
        interval = 0.005
        while True:
            before = time.perf_counter()
            await asyncio.sleep(interval)
            self.samples.append(max(0.0, (time.perf_counter() - before - interval) * 1000.0))

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


async def run_closed_loop(
    session: Any,
    base_url: str,
    make_spec: Callable[[int], RequestSpec],
    concurrency: int,
    n_requests: int | None,
    duration_s: float | None,
    timeout_s: float,
    max_event_bytes: int,
    first_index: int = 0,
    on_done: Callable[[RequestRecord], None] | None = None,
) -> LevelRun:
    records: list[RequestRecord] = []
    next_index = first_index
    issued = 0
    monitor = _LoopLagMonitor()
    monitor.start()
    meter = UsageMeter()
    meter.start()
    start = time.perf_counter()
    stop_at = start + duration_s if duration_s else None
    issue_end = start

    async def slot() -> None:
        nonlocal next_index, issued, issue_end
        intended = start
        while True:
            if n_requests is not None and issued >= n_requests:
                return
            if stop_at is not None and time.perf_counter() >= stop_at:
                return
            index = next_index
            next_index += 1
            issued += 1
            spec = make_spec(index)
            record = RequestRecord(index, intended, spec.max_tokens, spec.prompt_tokens_target)
            records.append(record)
            issue_end = max(issue_end, intended)
            await stream_request(session, base_url, spec, record, timeout_s, max_event_bytes)
            intended = time.perf_counter()  # the slot frees now: the next request is due now
            if on_done is not None:
                on_done(record)

    try:
        await asyncio.gather(*(slot() for _ in range(concurrency)))
    finally:
        await monitor.stop()
    usage = meter.stop()
    end = time.perf_counter()
    return LevelRun("concurrency", float(concurrency), records, start, end, issue_end, monitor.samples, usage)


def poisson_arrivals(rate: float, seed: int, n_requests: int | None, duration_s: float | None) -> list[float]:
    """Offsets (s) of Poisson arrivals at `rate` per second: exponential gaps, seeded."""
    rng = random.Random(seed)
    offsets: list[float] = []
    t = 0.0
    limit = n_requests if n_requests is not None else 10_000_000
    while len(offsets) < limit:
        t += rng.expovariate(rate)
        if duration_s is not None and t > duration_s:
            break
        offsets.append(t)
    return offsets


async def run_open_loop(
    session: Any,
    base_url: str,
    make_spec: Callable[[int], RequestSpec],
    rate: float,
    n_requests: int | None,
    duration_s: float | None,
    timeout_s: float,
    max_event_bytes: int,
    seed: int,
    max_concurrency: int | None = None,
    first_index: int = 0,
    on_done: Callable[[RequestRecord], None] | None = None,
) -> LevelRun:
    offsets = poisson_arrivals(rate, seed, n_requests, duration_s)
    records: list[RequestRecord] = []
    tasks: list[asyncio.Task[Any]] = []
    limit = asyncio.Semaphore(max_concurrency) if max_concurrency else None
    monitor = _LoopLagMonitor()
    monitor.start()
    meter = UsageMeter()
    meter.start()
    start = time.perf_counter()

    async def one(spec: RequestSpec, record: RequestRecord) -> None:
        if limit is None:
            await stream_request(session, base_url, spec, record, timeout_s, max_event_bytes)
        else:
            async with limit:
                await stream_request(session, base_url, spec, record, timeout_s, max_event_bytes)
        if on_done is not None:
            on_done(record)

    try:
        for i, offset in enumerate(offsets):
            intended = start + offset
            delay = intended - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            spec = make_spec(first_index + i)
            record = RequestRecord(first_index + i, intended, spec.max_tokens, spec.prompt_tokens_target)
            records.append(record)
            tasks.append(asyncio.get_running_loop().create_task(one(spec, record)))
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:  # a level cancelled (Ctrl-C) between arrivals leaves none running
            task.cancel()
        await monitor.stop()
    usage = meter.stop()
    end = time.perf_counter()
    issue_end = start + offsets[-1] if offsets else start
    return LevelRun("rate", rate, records, start, end, issue_end, monitor.samples, usage)
