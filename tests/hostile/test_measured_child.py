"""The hostile tests' RSS bound measures the program, not the test worker that starts it."""

from __future__ import annotations

import sys
from pathlib import Path

from hostile_support import run_child


def test_a_small_program_started_from_a_large_worker_measures_small(tmp_path: Path) -> None:
    ballast = bytearray(350 * 1024 * 1024)  # the worker late in a run: hundreds of MB resident
    ballast[:: 4096] = b"x" * len(ballast[:: 4096])
    run = run_child([sys.executable, "-c", "print('ok')"], tmp_path)
    assert run.rc == 0 and run.out.strip() == "ok"
    assert run.rss_mb < 100, f"peak RSS {run.rss_mb:.0f} MB: the worker's pages were counted"
    del ballast


def test_the_program_s_exit_code_and_a_signal_come_back(tmp_path: Path) -> None:
    assert run_child([sys.executable, "-c", "raise SystemExit(3)"], tmp_path).rc == 3
    assert run_child([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], tmp_path).rc == -9
