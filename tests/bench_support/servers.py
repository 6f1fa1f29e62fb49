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


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def llama_cpp_server(model: str, n_ctx: int, *options: str) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1 for a GGUF model: its URL once /v1/models
    answers (60 s at most); its output goes to server.log beside the model."""
    import urllib.request

    port = free_port()
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1", "--port", str(port),
            "--n_ctx", str(n_ctx), "--n_threads", "1", "--verbose", "False", *options]
    log = open(os.path.join(os.path.dirname(model), "server.log"), "w", encoding="utf-8")  # noqa: SIM115 (closed in finally)
    process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/v1/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama-cpp-python server did not start (exit {process.poll()}), see {log.name}")
            time.sleep(0.2)
        yield url
    finally:
        stop(process)
        log.close()
