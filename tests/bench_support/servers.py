"""Start a test server in its own process on 127.0.0.1, always stopping it afterwards."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench_support.cpus import pin

HERE = os.path.dirname(os.path.abspath(__file__))
CALIBRATED = os.path.join(HERE, "calibrated_server.py")


def _read_port(process: subprocess.Popen[str], timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    assert process.stdout is not None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith("PORT "):
            return int(line.split()[1])
    raise RuntimeError(f"test server did not start within {timeout_s} s (exit {process.poll()})")


def stop(process: subprocess.Popen[Any]) -> None:
    """Terminate a test process (killed if it does not exit within 5 s)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@contextmanager
def calibrated_server(*options: str, cpu: int | None = None) -> Iterator[str]:
    """Yields the base URL of a calibrated server started with these command-line options."""
    argv = [sys.executable, CALIBRATED, *options]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        pin(process.pid, cpu)
        port = _read_port(process, 20.0)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)
