"""Which cores the bench tests pin to: the client on one, the server (or a busy loop) on another."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


def two_cores() -> tuple[int, int] | None:
    """(client core, server core) where this process may run on two or more; else None."""
    if not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2:
        return None
    mine = sorted(os.sched_getaffinity(0))
    return mine[0], mine[1]


def pin(pid: int, cpu: int | None) -> None:
    """Pin a process (0: this one) to one core; nothing where `cpu` is None or affinity is not supported."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(pid, {cpu})


@contextmanager
def own_core(cpu: int | None) -> Iterator[None]:
    """This (client) process on one core for the block, its affinity restored after; a no-op for None."""
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
