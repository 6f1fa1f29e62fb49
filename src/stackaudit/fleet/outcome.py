"""What a gatherer hands the fleet analysis: one outcome per node, a snapshot or the reason there is none."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from stackaudit.errors import UsageError


@dataclass(frozen=True)
class NodeOutcome:
    """One node's answer. Exactly one of `snapshot` and `error` is set.

    node: the name the operator knows it by (inventory host, Ray node IP/ID, snapshot file stem).
    snapshot: path on this machine of the node's gathered snapshot (.tar.gz or directory).
    error: one line saying why no snapshot came back ("unreachable: …", "capture timed out after 120 s",
        "bad manifest: …"); a node is never skipped silently.
    """

    node: str
    snapshot: str | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if (self.snapshot is None) == (self.error is None):
            raise ValueError("a NodeOutcome has either a snapshot or an error")


# Called once per node as it answers (for a progress display): the outcome and how many have answered.
Progress = Callable[[NodeOutcome, int], None]


class Gatherer(Protocol):
    """Runs `capture` on every node and brings the snapshots into `dest` (a directory it may fill)."""

    def __call__(self, dest: str, progress: Progress | None = None) -> Iterable[NodeOutcome]: ...


def optional_module(name: str, needs: str) -> Any:
    """The installed module `name` (an extra a gatherer needs), else a UsageError with the line `needs`."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise UsageError(needs) from None
