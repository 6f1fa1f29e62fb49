"""A busy sibling process: spins on the CPU for a bounded time, then exits by itself."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from bench_support.cpus import pin
from bench_support.servers import stop

# The loop checks its own deadline: the process ends even if nobody stops it.
_SPIN = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end:\n    pass\n"


@contextmanager
def busy_sibling(seconds: float, cpu: int | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """Run a CPU-bound loop for at most `seconds` (on `cpu` when given); stopped on exit in any case."""
    process = subprocess.Popen([sys.executable, "-c", _SPIN, str(seconds)], stdout=subprocess.DEVNULL)
    try:
        pin(process.pid, cpu)
        yield process
    finally:
        stop(process)
