"""Audit every node's snapshot in worker processes, streaming: the parent holds summaries, never snapshots.

Each snapshot is verified by its manifest (host/snapshot_reader.py's `load_snapshot`: every member's size and
SHA-256) and audited by the same engine as `stackaudit audit` (`engine.runner.run_audit`) in a pool of
worker processes; a worker returns a `NodeSummary` (fleet/summary.py). A snapshot that is refused (a bad
manifest, a file that is not a snapshot) makes that node failed with the reason; the others go on. Nodes
are handed to the pool as the gatherer yields them (while other nodes still answer) with a bounded number in
flight, so memory holds at most a few snapshots at a time whatever the fleet's size.

The pool starts its workers from a fork server that has already imported the engine (Linux), so a worker
neither pays the imports again nor inherits the parent's threads (a progress display, a gatherer's).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from stackaudit.engine.results import Result, Waiver
from stackaudit.engine.runner import Report, file_name
from stackaudit.errors import InputError
from stackaudit.fixes.model import PRIORITIES
from stackaudit.fleet.outcome import NodeOutcome
from stackaudit.fleet.summary import HOST, CheckState, NodeSummary, Value, observed
from stackaudit.host.base import Host
from stackaudit.render.text import one_line

# Kernel command-line parameters that name this one machine (its disks, its boot image): never drift.
_CMDLINE_IDENTITY = frozenset({"BOOT_IMAGE", "root", "resume", "resume_offset", "initrd", "rd.luks.uuid",
                               "rd.lvm.lv", "cryptdevice", "netroot", "ip", "hostname"})
# Headline keys that are not configuration: the machine's name, what the capture ran as, the model ceiling.
_HEADLINE_SKIP = frozenset({"hostname", "uid", "ceiling", "ceiling_missing", "host_of"})
# A worker is replaced after this many audits (memory a long run could accumulate goes with it).
_TASKS_PER_WORKER = 200
# Snapshots in flight per worker: enough to keep workers busy, few enough to bound what is held.
_IN_FLIGHT_PER_WORKER = 2
# The message kept for an issue (shared results show it once).
_MESSAGE_CHARS = 240
_LINE_CHARS = 400  # a failed node's reason

OnSummary = Callable[[NodeSummary], None]


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def summarise_snapshot(node: str, path: str, waivers: Sequence[Waiver] = ()) -> NodeSummary:
    """Load (verifying the manifest) and audit one snapshot; the summary, or the node failed with the reason."""
    from stackaudit.engine.runner import AuditOptions, run_audit
    from stackaudit.host.snapshot_reader import load_snapshot

    try:
        host = load_snapshot(path)
    except InputError as exc:
        return NodeSummary(node, error=snapshot_error(str(exc), path))
    try:
        report = run_audit(host, AuditOptions(waivers=list(waivers)))
        return summarise_report(node, report, host)
    except Exception as exc:  # one node's audit failing never stops the fleet's
        return NodeSummary(node, error=one_line(f"audit failed: {type(exc).__name__}: {exc}", _LINE_CHARS))


def snapshot_error(message: str, path: str) -> str:
    """load_snapshot's reason without the path on this machine (the node is named beside it)."""
    text = message.replace(f"snapshot {path} ", "snapshot ").replace(path, file_name(path))
    text = text.replace(" (--allow-partial replays what is there)", "")
    if "manifest" in text:
        text = "bad manifest: " + text.removeprefix("snapshot refused: ")
    return one_line(text, _LINE_CHARS)


def summarise_report(node: str, report: Report, host: Host) -> NodeSummary:
    """The compact form of one audit: verdicts, configuration values and the inventory (no samples)."""
    from stackaudit.checks.registry import load_all

    catalogue = load_all()
    summary = NodeSummary(node, hostname=str(report.host.get("hostname") or ""),
                          captured_at=str(report.source.get("captured_at") or ""),
                          tool_version=str(report.tool.get("version") or ""),
                          partial=bool(report.source.get("partial")))
    counts = report.summary()
    summary.counts = {**{p: int(counts["by_priority"].get(p, 0)) for p in PRIORITIES}, **counts["by_status"]}
    for result in report.results:
        spec = catalogue.get(result.id)
        if spec is not None and spec.sample:
            summary.samples += result.actual is not None
            continue
        summary.checks[result.id] = _state(result)
        for subject, value in _result_values(result).items():
            summary.values[(result.id, subject)] = observed(value)
    inventory, host_values = _inventory(report, host)
    summary.inventory = inventory
    for subject, value in host_values.items():
        summary.values[(HOST, subject)] = observed(value)
    return summary


def _state(result: Result) -> CheckState:
    message = one_line(result.message, _MESSAGE_CHARS) if result.status == "issue" else ""
    return CheckState(result.status, result.priority, result.waived, message)


def _result_values(result: Result) -> dict[str, object]:
    """Subject -> observed value, flattened as `compare` flattens it (as the JSON report holds it: tuples are
    lists)."""
    from stackaudit.compare.diff import result_values
    from stackaudit.engine.results import jsonable

    if result.actual is None:
        return {}
    return result_values({"actual": jsonable(result.actual)})


def _inventory(report: Report, host: Host) -> tuple[dict[str, str], dict[str, object]]:
    """(the inventory the report shows per node, the host values compared between nodes)."""
    from stackaudit.compare.diff import result_values
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.nvidia import NvidiaDriver
    from stackaudit.facts.system import KernelCmdline
    from stackaudit.host.recording import RedactingHost

    collector = Collector(RedactingHost(host), 10.0)
    collector.start(["nvidia_driver", "cmdline"])
    driver = collector.optional("nvidia_driver", NvidiaDriver)
    cmdline = collector.optional("cmdline", KernelCmdline)
    headline = {k: v for k, v in report.host.items() if k not in _HEADLINE_SKIP}
    gpus_value = headline.get("gpus")
    gpus: dict[str, object] = gpus_value if isinstance(gpus_value, dict) else {}
    names = gpus.get("names")
    inventory = {
        "gpu_model": ", ".join(str(n) for n in names) if isinstance(names, list) else "",
        "gpu_count": "" if gpus.get("count") is None else str(gpus["count"]),
        "driver": (driver.version or "") if driver else "",
        "kernel": str(headline.get("kernel") or ""),
        "cpu": str(headline.get("cpu") or ""),
    }
    compared = dict(headline)
    compared["driver"] = inventory["driver"] or None
    if cmdline is not None:
        params: dict[str, str] = {}
        for key, value in cmdline.params:
            if key in _CMDLINE_IDENTITY:
                continue
            params[key] = value if value is not None else "(set)"
        compared["cmdline"] = params or None
    values = {k: v for k, v in result_values({"actual": compared}).items() if v is not None}
    return inventory, values


class _Interner:
    """The parent keeps one copy of each key and value: 1000 nodes mostly observe the same values."""

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}
        self._values: dict[tuple[str, str], Value] = {}
        self._states: dict[CheckState, CheckState] = {}

    def text(self, s: str) -> str:
        return self._strings.setdefault(s, s)

    def summary(self, s: NodeSummary) -> NodeSummary:
        s.values = {(self.text(c), self.text(subj)): self._values.setdefault((v.shown, v.digest), v)
                    for (c, subj), v in s.values.items()}
        s.checks = {self.text(c): self._states.setdefault(st, st) for c, st in s.checks.items()}
        s.inventory = {self.text(k): self.text(v) for k, v in s.inventory.items()}
        return s


def _context() -> Any:
    """A fork server that has imported the engine where there is one (Linux), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["stackaudit.fleet.analysis", "stackaudit.fleet.preload"])
        return ctx
    return multiprocessing.get_context("spawn")


def _warm() -> None:
    """Worker start: the check and fact catalogues loaded before the first node (already there when the
    worker was forked from the fork server, which imported fleet/preload.py)."""
    from stackaudit.checks.registry import load_all as load_checks
    from stackaudit.facts.registry import load_all as load_facts

    load_checks()
    load_facts()


def _pool(workers: int) -> ProcessPoolExecutor:
    kwargs: dict[str, Any] = {}
    if sys.version_info >= (3, 11):
        kwargs["max_tasks_per_child"] = _TASKS_PER_WORKER
    return ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_warm, **kwargs)


def analyse(outcomes: Iterable[NodeOutcome], workers: int | None = None, waivers: Sequence[Waiver] = (),
            on_summary: OnSummary | None = None) -> list[NodeSummary]:
    """Every node's summary, in the order the gatherer named them; failed nodes carry their reason."""
    workers = workers or default_workers()
    if workers < 1:
        raise ValueError("workers must be at least 1")
    interner = _Interner()
    order: list[str] = []
    done: dict[str, NodeSummary] = {}

    def finish(summary: NodeSummary) -> None:
        done[summary.node] = interner.summary(summary)
        if on_summary is not None:
            on_summary(summary)

    for summary in _stream(outcomes, workers, tuple(waivers), order):
        finish(summary)
    return [done[n] for n in order]


def _stream(outcomes: Iterable[NodeOutcome], workers: int, waivers: tuple[Waiver, ...],
            order: list[str]) -> Generator[NodeSummary, None, None]:
    """Summaries as they complete; an outcome without a snapshot is a failed node at once."""
    limit = workers * _IN_FLIGHT_PER_WORKER
    seen: set[str] = set()
    pool = _Audits(workers, waivers)
    try:
        for outcome in outcomes:
            if outcome.node in seen:
                # Two snapshots for one name: the first is audited, this one is named (never dropped silently).
                name = f"{outcome.node} (again)"
                order.append(name)
                yield NodeSummary(name, error=f"a second outcome for node {outcome.node}: only the first is audited")
                continue
            seen.add(outcome.node)
            order.append(outcome.node)
            if outcome.snapshot is None:
                yield NodeSummary(outcome.node, error=one_line(outcome.error or "no snapshot", _LINE_CHARS))
                continue
            yield from pool.submit(outcome)
            while len(pool.pending) >= limit:
                yield from pool.collect()
        while pool.pending:
            yield from pool.collect()
    finally:
        pool.close()


class _Audits:
    """The worker pool and the snapshots in flight in it.

    A worker that dies (the kernel's OOM killer, a signal) takes the pool with it, and every audit in flight
    fails with it: those nodes are then audited again one at a time, each alone in a fresh single-worker
    pool, so that only the snapshot that kills a worker on its own is failed (with that reason)."""

    def __init__(self, workers: int, waivers: tuple[Waiver, ...]) -> None:
        self.workers, self.waivers = workers, waivers
        self.pool = _pool(workers)
        self.pending: dict[Future[NodeSummary], NodeOutcome] = {}

    def submit(self, outcome: NodeOutcome) -> Generator[NodeSummary, None, None]:
        assert outcome.snapshot is not None
        try:
            future = self.pool.submit(summarise_snapshot, outcome.node, outcome.snapshot, self.waivers)
        except BrokenProcessPool:  # broken since the last collect: recover, then submit to the new pool
            yield from self._recover([outcome])
            return
        self.pending[future] = outcome

    def collect(self) -> Generator[NodeSummary, None, None]:
        """Yield what completed (waiting for at least one)."""
        finished, _ = wait(list(self.pending), return_when=FIRST_COMPLETED)
        broken: list[NodeOutcome] = []
        yield from self._results(finished, broken)
        if broken:
            yield from self._recover(broken)

    def _results(self, futures: Iterable[Future[NodeSummary]],
                 broken: list[NodeOutcome]) -> Generator[NodeSummary, None, None]:
        """Each future's summary, taken out of `pending`; a node whose worker died goes to `broken`."""
        for future in futures:
            outcome = self.pending.pop(future)
            try:
                yield future.result()
            except BrokenProcessPool:
                broken.append(outcome)

    def _recover(self, broken: list[NodeOutcome]) -> Generator[NodeSummary, None, None]:
        yield from self._results(list(self.pending), broken)  # the rest in flight on the broken pool fail with it
        self.pool.shutdown(wait=False, cancel_futures=True)
        for outcome in broken:
            yield _alone(outcome, self.waivers)
        self.pool = _pool(self.workers)

    def close(self) -> None:
        for future in self.pending:
            future.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)


def _alone(outcome: NodeOutcome, waivers: tuple[Waiver, ...]) -> NodeSummary:
    """One snapshot audited in a pool of its own: a worker that dies now died of this snapshot."""
    assert outcome.snapshot is not None
    pool = _pool(1)
    try:
        return pool.submit(summarise_snapshot, outcome.node, outcome.snapshot, waivers).result()
    except BrokenProcessPool:
        return NodeSummary(outcome.node, error="the audit's worker process died on this snapshot (out of memory, "
                                               "or killed)")
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
