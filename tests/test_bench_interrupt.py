"""Ctrl-C during `stackaudit bench`: a real SIGINT to the CLI in a subprocess, against a local SSE server.

Finished levels are kept (stored, rendered, marked partial, exit 130); the level cut short is not.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench_support.servers import calibrated_server

# A request takes 20 ms to its first token and 128 × 20 ms in all: 2.6 s. Two requests are 5.2 s at
# c=1 and 2.6 s at c=2, long enough to be interrupted inside.
SLOW = ("--ttft-ms", "20", "--gap-ms", "20")
ARGS = ["--input-tokens", "8", "--output-tokens", "128", "--warmup", "0", "--no-shuffle", "--format", "markdown"]


def _start(url: str, db: Path, *levels: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "stackaudit", "bench", "--url", url, *levels, *ARGS, "--db", str(db)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())


def _wait_for_line(process: subprocess.Popen[str], needle: str, timeout_s: float = 60.0) -> list[str]:
    """stderr lines up to the one holding `needle` (the test fails if it does not come)."""
    assert process.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        if needle in line:
            return lines
    process.kill()
    raise AssertionError(f"{needle!r} never appeared on stderr: {lines}")


def _history(db: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "stackaudit", "bench", "history", "--db", str(db), "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    loaded: dict[str, object] = json.loads(done.stdout)
    return loaded


def test_ctrl_c_after_a_finished_level_keeps_it_marked_partial(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite3"
    with calibrated_server(*SLOW) as url:
        process = _start(url, db, "-c", "1,2", "--requests", "2")
        try:
            _wait_for_line(process, "[1/2] c=1 repeat 1:")
            time.sleep(0.3)  # inside the second level
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert "PARTIAL: interrupted (Ctrl-C); kept c=1; not run: c=2#1" in out
    assert "| c=1 |" in out and "| c=2 |" not in out
    runs = _history(db)["runs"]
    assert isinstance(runs, list) and len(runs) == 1
    assert runs[0]["partial"] is True
    assert [level["level"] for level in runs[0]["levels"]] == ["c=1"]
    assert runs[0]["levels"][0]["requests"] == 2


def test_ctrl_c_before_any_level_finished_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite3"
    with calibrated_server(*SLOW) as url:
        process = _start(url, db, "-c", "2", "--requests", "20")
        try:
            _wait_for_line(process, "bench: ceiling:")  # said just before the level starts
            time.sleep(0.5)
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err and out == ""
    assert not db.exists()
