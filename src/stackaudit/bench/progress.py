"""The progress display on stderr: a rich bar with ETA inside each level, else plain lines.

The bar is drawn only when stderr is a terminal and `-q` is not given; it redraws 4 times a
second from rich's own thread, and a request done only advances a counter, so the timed path
pays one method call per request. Lines said while a bar shows go through its console, above it.
"""

from __future__ import annotations

import sys
from typing import Any

from stackaudit.bench.client import RequestRecord
from stackaudit.bench.runner import LevelBar


class TerminalProgress(LevelBar):
    """Per-level bar (requests done of the level's count, or seconds of `--duration`) with ETA."""

    def __init__(self, stream: Any = None) -> None:
        from rich.console import Console

        self.console = Console(file=stream or sys.stderr, highlight=False)
        self._progress: Any = None
        self._task: Any = None
        self._by_time = False
        self.done = 0
        self.errors = 0

    def line(self, text: str) -> None:
        self.console.print(f"bench: {text}", markup=False)

    def start(self, label: str, total: int | None, duration_s: float | None) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.done = self.errors = 0
        self._by_time = total is None
        columns: list[Any] = [TextColumn("{task.description}"), BarColumn()]
        columns.append(TextColumn("{task.completed:.0f}/{task.total:.0f} s") if self._by_time else MofNCompleteColumn())
        columns.extend([TextColumn("{task.fields[errors]} err"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()])
        self._progress = Progress(*columns, console=self.console, transient=True, refresh_per_second=4)
        self._progress.start()
        self._task = self._progress.add_task(label, total=float(duration_s or 0) if self._by_time else float(total or 0), errors=0)
        if self._by_time:
            # Time-bound level: rich's thread moves the bar with the clock (no work in the event loop).
            self._progress.update(self._task, completed=0)

    def advance(self, record: RequestRecord) -> None:
        self.done += 1
        if not record.ok:
            self.errors += 1
        if self._progress is None:
            return
        if self._by_time:
            elapsed = self._progress.tasks[0].elapsed or 0.0
            self._progress.update(self._task, completed=min(elapsed, self._progress.tasks[0].total or elapsed), errors=self.errors)
        else:
            self._progress.update(self._task, advance=1, errors=self.errors)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        self._progress = None
        self._task = None


def make_progress(quiet: bool, stream: Any = None) -> TerminalProgress | None:
    """A bar when `stream` (stderr) is a terminal and not quiet; None means plain lines (or none with -q)."""
    target = stream or sys.stderr
    if quiet or not getattr(target, "isatty", lambda: False)():
        return None
    return TerminalProgress(target)
