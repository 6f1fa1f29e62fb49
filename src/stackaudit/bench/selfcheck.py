"""Is the client itself fit to measure? Judged from the client during each level, not from a side test.

Two readings are taken around every level, on the thread that runs the event loop:

- its CPU time, so the level knows what share of a core the client used: an asyncio client
  runs on one core, and when it runs or waits to run nearly all the time it is the bottleneck
  — its throughput is then its own, a lower bound of the server's, and its TTFT mostly its own
  queueing;
- the run-queue wait of `/proc/thread-self/schedstat` (second field, nanoseconds the thread
  was runnable but not running: https://docs.kernel.org/scheduler/sched-stats.html), so a
  level run while other processes held the client off its CPU says so. On a shared 2-core
  machine that wait reached 100–420 ms per level, and single runs read 8–15 % high, for every
  client; the loop-lag monitor did not catch all of them.

Events per read (SSE events per piece of stream the client received) is kept too: a client
that keeps up reads events about as the server writes them, a saturated one finds them piled
up in the socket.

An earlier design measured an in-process null server sharing the client's event loop; that
server capped itself at 31–54 k chunks/s and made every run against a fast server invalid.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

# Thresholds.
CLIENT_BOUND_CPU_SHARE = 0.85  # of one core
HOST_BUSY_MIN_WAIT_MS = 5.0
HOST_BUSY_WAIT_FRACTION = 0.02  # of the level's wall time
# Of the client's own CPU time: a mostly idle client that shares its core with a busy loop
# waits little in all (the scheduler favours the waker) but long for every slice it runs.
HOST_BUSY_WAIT_PER_CPU = 0.25
QUEUEING_FRACTION = 0.5  # of TTFT p50

_SCHEDSTAT_PATHS = ("/proc/thread-self/schedstat", "/proc/self/schedstat")


def read_schedstat(paths: tuple[str, ...] = _SCHEDSTAT_PATHS) -> tuple[float, float] | None:
    """(CPU ms, run-queue wait ms) of the calling thread, or None where the kernel does not say."""
    for path in paths:
        try:
            with open(path, encoding="ascii") as handle:
                fields = handle.read().split()
        except OSError:
            continue
        if len(fields) >= 2 and fields[0].isdecimal() and fields[1].isdecimal():
            return int(fields[0]) / 1e6, int(fields[1]) / 1e6
    return None


@dataclass
class ClientUsage:
    """What the client's loop thread did during one level."""

    wall_s: float
    cpu_s: float
    wait_ms: float | None  # None: no schedstat here

    @property
    def cpu_share(self) -> float:
        return self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def demand_share(self) -> float:
        """Share of the level the client was running or runnable: near 1, it wanted a whole core."""
        if self.wall_s <= 0:
            return 0.0
        return (self.cpu_s + (self.wait_ms or 0.0) / 1000.0) / self.wall_s


class UsageMeter:
    """Started and stopped on the event loop's thread, around one level."""

    def __init__(self) -> None:
        self._wall = 0.0
        self._cpu = 0.0
        self._sched: tuple[float, float] | None = None

    def start(self) -> None:
        self._sched = read_schedstat()
        self._cpu = time.thread_time()
        self._wall = time.perf_counter()

    def stop(self) -> ClientUsage:
        wall = time.perf_counter() - self._wall
        cpu = time.thread_time() - self._cpu
        after = read_schedstat()
        wait = after[1] - self._sched[1] if (after is not None and self._sched is not None) else None
        return ClientUsage(wall, cpu, wait)


def host_busy(usage: ClientUsage) -> str | None:
    """The warning when other work kept the client off its CPU long enough to move its timings."""
    if usage.wait_ms is None:
        return None
    wall_ms = usage.wall_s * 1000.0
    cpu_ms = usage.cpu_s * 1000.0
    if usage.wait_ms < HOST_BUSY_MIN_WAIT_MS:
        return None
    if usage.wait_ms < HOST_BUSY_WAIT_FRACTION * wall_ms and usage.wait_ms < HOST_BUSY_WAIT_PER_CPU * cpu_ms:
        return None
    return (
        f"host busy: the client waited {usage.wait_ms:.0f} ms for a CPU during the level "
        f"({usage.wait_ms / wall_ms:.1%} of it, {usage.wait_ms / max(cpu_ms, 1e-9):.0%} of the client's own CPU time); "
        "chunk times may be late by that much"
    )


def client_bound(usage: ClientUsage, events_per_read: float | None) -> str | None:
    """The warning when the client, not the server, set the pace."""
    if usage.demand_share < CLIENT_BOUND_CPU_SHARE:
        return None
    piled = f", {events_per_read:.1f} SSE events per read" if events_per_read else ""
    return (
        f"client-bound: the client ran {usage.cpu_share:.0%} of the level and waited for a CPU "
        f"{usage.demand_share - usage.cpu_share:.0%} more{piled}; throughput is the client's limit, a lower bound "
        "of the server's"
    )


def ttft_queueing(usage: ClientUsage, ttft_p50: float, ttft_min: float, loop_lag_p50: float) -> str | None:
    """'TTFT is mostly client queueing' when most of the median TTFT is the client waiting for itself.

    The fastest request of a level met an idle client; the median's excess over it, or the
    event loop's own lag, is the client's queueing once the client is bound.
    """
    if ttft_p50 <= 0:
        return None
    excess = max(ttft_p50 - ttft_min, loop_lag_p50)
    if usage.demand_share < CLIENT_BOUND_CPU_SHARE and loop_lag_p50 < QUEUEING_FRACTION * ttft_p50:
        return None
    if excess < QUEUEING_FRACTION * ttft_p50:
        return None
    return (
        f"TTFT is mostly client queueing: median {ttft_p50:.1f} ms, of which about {excess:.1f} ms above the "
        f"fastest request's {ttft_min:.1f} ms while the client was running or waiting for a CPU "
        f"{usage.demand_share:.0%} of the level"
    )
