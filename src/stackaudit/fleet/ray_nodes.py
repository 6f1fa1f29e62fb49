"""Gather snapshots on an existing Ray cluster: exactly one capture task per alive node.

Each task is pinned to its node with `NodeAffinitySchedulingStrategy(node_id, soft=False)` and asks for
no CPU (`num_cpus=0`), so it runs beside an engine's placement groups that hold the node's GPUs and CPUs;
it is never retried (`max_retries=0`): a task lost with its node is that node's failure, not a second run
elsewhere. The task (fleet/ray_task.py, sent by value) runs the zipapp's `capture` under the node's Python
and returns the snapshot's bytes, at most MAX_SNAPSHOT_BYTES, which the driver writes to
dest/<node>.tar.gz. The root a node captures is its STACKAUDIT_ROOT environment variable (`/` without).

This connects to a cluster that exists (`address`, or the one `ray.init(address="auto")` finds); it never
starts one. Ray's control plane runs whatever its clients send: audit only clusters you already trust.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

from stackaudit.errors import InputError, UsageError
from stackaudit.fleet.outcome import Gatherer, NodeOutcome, Progress, optional_module
from stackaudit.fleet.reasons import node_file_name, reason_line
from stackaudit.render.text import error_line
from stackaudit.render.write import write_file

EXTRA_HINT = "pip install 'stackaudit[ray]'"
NEEDS_RAY = f"gathering on a Ray cluster needs ray: {EXTRA_HINT}"
MiB = 1 << 20
# A gathered snapshot's compressed size (a real 8-GPU node's is a few MiB; the loader's own bounds hold too).
MAX_SNAPSHOT_BYTES = 128 * MiB
# Seconds the driver waits past `timeout_s` for a task to come back (start a worker, ship the bytes).
ANSWER_GRACE_S = 60.0


class RayNode(TypedDict, total=False):
    """The keys of a `ray.nodes()` entry this module reads."""

    Alive: bool
    NodeID: str
    NodeManagerHostname: str
    NodeManagerAddress: str


def alive_nodes(ray: Any) -> list[RayNode]:
    """The cluster's alive nodes, each once (by node ID), from `ray.nodes()` (a developer API)."""
    seen: dict[str, RayNode] = {}
    for node in ray.nodes():
        if node.get("Alive") and node.get("NodeID") and node["NodeID"] not in seen:
            seen[node["NodeID"]] = node
    return list(seen.values())


def node_names(nodes: list[RayNode]) -> dict[str, str]:
    """node ID -> the name its outcome carries: the host name, with the node ID's start where several
    Ray nodes share a host (several raylets on one machine)."""
    def host(node: RayNode) -> str:
        return str(node.get("NodeManagerHostname") or node.get("NodeManagerAddress") or "node")

    counts = Counter(host(n) for n in nodes)
    return {n["NodeID"]: host(n) if counts[host(n)] == 1 else f"{host(n)}-{n['NodeID'][:12]}" for n in nodes}


class RayGatherer:
    """A Gatherer (fleet/outcome.py) over the alive nodes of a Ray cluster."""

    def __init__(self, address: str | None, timeout_s: float) -> None:
        optional_module("ray", NEEDS_RAY)
        if timeout_s <= 0:
            raise UsageError(f"a capture time limit of {timeout_s:g} s is no time")
        self.address = address
        self.timeout_s = timeout_s

    def __call__(self, dest: str, progress: Progress | None = None) -> Iterator[NodeOutcome]:
        ray = optional_module("ray", NEEDS_RAY)
        dest = os.path.abspath(dest)
        os.makedirs(dest, exist_ok=True)
        from stackaudit.fleet.zipapp import build_zipapp

        with tempfile.TemporaryDirectory(prefix="stackaudit-ray-") as tmp:
            zipapp = Path(build_zipapp(os.path.join(tmp, "stackaudit.pyz"))).read_bytes()
        owned = not ray.is_initialized()
        if owned:
            try:
                # Workers' output stays on the nodes; Ray's own notices below errors stay out of the report.
                ray.init(address=self.address or "auto", log_to_driver=False, logging_level=logging.ERROR)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.address or "the local cluster (RAY_ADDRESS or a running `ray start`)"
                raise InputError(reason_line(f"cannot connect to Ray at {where}: {exc}")) from None
        try:
            yield from self._gather(ray, zipapp, dest, progress)
        finally:
            if owned:
                ray.shutdown()

    def _gather(self, ray: Any, zipapp: bytes, dest: str, progress: Progress | None) -> Iterator[NodeOutcome]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from stackaudit.fleet import ray_task

        # By value: the nodes run the task without stackaudit installed (standard library and the zipapp).
        ray.cloudpickle.register_pickle_by_value(ray_task)
        nodes = alive_nodes(ray)
        if not nodes:
            raise InputError("the Ray cluster has no alive node")
        names = node_names(nodes)
        task = ray.remote(ray_task.capture_on_node)
        payload = ray.put(zipapp)
        pending: dict[Any, str] = {}
        for node in nodes:
            strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
            ref = task.options(num_cpus=0, max_retries=0, retry_exceptions=False,
                               scheduling_strategy=strategy).remote(payload, self.timeout_s, MAX_SNAPSHOT_BYTES)
            pending[ref] = names[node["NodeID"]]
        deadline = time.monotonic() + self.timeout_s + ANSWER_GRACE_S
        answered = 0
        try:
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=min(left, 5.0))
                for ref in ready:
                    name = pending.pop(ref)
                    outcome = self._outcome(ray, ref, name, dest)
                    answered += 1
                    if progress is not None:
                        progress(outcome, answered)
                    yield outcome
            for ref, name in list(pending.items()):
                del pending[ref]
                outcome = NodeOutcome(name, error=f"no answer within {self.timeout_s + ANSWER_GRACE_S:g} s "
                                                  "(the task was cancelled)")
                answered += 1
                if progress is not None:
                    progress(outcome, answered)
                yield outcome
        finally:
            for ref in list(pending):  # the consumer stopped early: leave nothing running on the nodes
                ray.cancel(ref, force=True)

    def _outcome(self, ray: Any, ref: Any, node: str, dest: str) -> NodeOutcome:
        from stackaudit.host.snapshot_reader import is_snapshot

        try:
            answer = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            return NodeOutcome(node, error=reason_line(f"capture task failed: {error_line(exc)}"))
        except ray.exceptions.RayError as exc:
            # NodeDiedError, WorkerCrashedError, ObjectLostError, TaskUnschedulableError, …: the node is gone.
            return NodeOutcome(node, error=reason_line(f"the node was lost during the capture ({type(exc).__name__}): "
                                                       f"{error_line(exc)}"))
        if not isinstance(answer, dict) or ("snapshot" not in answer and "error" not in answer):
            return NodeOutcome(node, error="the capture task answered something that is not a result")
        if "error" in answer:
            return NodeOutcome(node, error=reason_line(str(answer["error"])))
        data = answer["snapshot"]
        if not isinstance(data, bytes) or len(data) > MAX_SNAPSHOT_BYTES:
            return NodeOutcome(node, error=f"the snapshot is over the limit of {MAX_SNAPSHOT_BYTES} bytes")
        path = os.path.join(dest, node_file_name(node))
        # Owner-only, as capture writes it: a snapshot shows the node's configuration.
        write_file(path, data, force=True)
        if not is_snapshot(path):
            return NodeOutcome(node, error=f"returned a file that is not a snapshot ({len(data)} bytes, "
                                           "no gzip or tar header)")
        return NodeOutcome(node, snapshot=path)


def ray_gatherer(address: str | None = None, timeout_s: float = 300) -> Gatherer:
    """A gatherer running capture once on every alive node of the Ray cluster at `address`.

    address: what `ray.init(address=...)` takes (`ray://head:10001`, `head:6379`); None: "auto", the
        cluster this machine belongs to (RAY_ADDRESS, or one started here with `ray start`).
    timeout_s: seconds a node's capture may run before it is killed and reported as timed out.
    """
    return RayGatherer(address, timeout_s)
