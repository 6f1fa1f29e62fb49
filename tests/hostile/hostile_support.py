"""Hostile input, built at test time: each attack runs `stackaudit` in a child, measured with os.wait4.

Every test asserts the exit code, a one-line message, the child's peak RSS (< 300 MB) and wall time
(< 30 s), and, where it writes, that nothing appeared outside the output path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAX_RSS_MB = 300
MAX_WALL_S = 30


@dataclass
class ChildRun:
    rc: int
    out: str
    err: str
    rss_mb: float
    wall_s: float

    def one_line_error(self) -> str:
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1, self.err
        assert "Traceback" not in self.err
        return lines[0]

    def assert_bounded(self) -> None:
        assert self.rss_mb < MAX_RSS_MB, f"peak RSS {self.rss_mb:.0f} MB"
        assert self.wall_s < MAX_WALL_S, f"wall {self.wall_s:.1f} s"


def run_child(argv: list[str], tmp: Path, env: dict[str, str] | None = None, timeout: float = 60,
              stdin: int | None = subprocess.DEVNULL) -> ChildRun:
    """Run argv with its output in files, as a child of tests/hostile/measured_child.py, which reaps it with
    os.wait4 for its own peak RSS (KiB on Linux): a child forked from this worker would count the worker's RSS."""
    stamp = time.monotonic_ns()
    out_path, err_path, measured = tmp / f".out-{stamp}", tmp / f".err-{stamp}", tmp / f".rusage-{stamp}"
    full_env = dict(os.environ, PYTHONPATH=str(REPO / "src"), **(env or {}))
    start = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-S", str(Path(__file__).with_name("measured_child.py")),
                                 str(measured), *argv], stdout=out, stderr=err, stdin=stdin, env=full_env,
                                start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, 9))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
    wall = time.monotonic() - start
    # Killed at the timeout, the launcher wrote nothing: its own status and RSS stand for the run.
    child = json.loads(measured.read_text()) if measured.exists() else {
        "rc": os.waitstatus_to_exitcode(status), "maxrss_kib": usage.ru_maxrss}
    result = ChildRun(child["rc"], out_path.read_text(errors="replace"), err_path.read_text(errors="replace"),
                      child["maxrss_kib"] / 1024, wall)
    for path in (out_path, err_path, measured):
        path.unlink(missing_ok=True)
    figures = os.environ.get("STACKAUDIT_SECURITY_FIGURES")  # perf/security_figures.py collects these
    if figures:
        with open(figures, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0], "rc": result.rc,
                                 "rss_mb": round(result.rss_mb, 1), "wall_s": round(result.wall_s, 2)}) + "\n")
    return result


def stackaudit(*args: str) -> list[str]:
    return [sys.executable, "-m", "stackaudit", *args]


def tree(path: Path) -> set[str]:
    """Every path below `path` (links not followed), to show nothing was written outside the output."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [*dirnames, *filenames]:
            found.add(os.path.relpath(os.path.join(dirpath, name), path))
    return {p for p in found if not os.path.basename(p).startswith((".out-", ".err-"))}


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (drops to nobody)")
