"""Collect facts in parallel, each in its own daemon thread, under one overall deadline.

A provider that fails or hangs never stops the others: it becomes a Missing value with the
reason, and a hung thread is abandoned (daemon), so the audit ends on time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from stackaudit.facts.registry import PROVIDERS, FactUnavailable, Provider
from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    CommandResult,
    Host,
    HostMeta,
    NotCaptured,
)

T = TypeVar("T")
DEFAULT_DEADLINE_S = 20.0


@dataclass(frozen=True)
class Missing:
    """Why a fact has no value: unavailable (with a hint), not in the source, timed out, or failed."""

    fact: str
    reason: str
    hint: str = ""
    kind: str = "unavailable"  # unavailable | not-captured | timeout | error


@dataclass
class _Slot:
    provider: Provider
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    missing: Missing | None = None
    started: float = 0.0
    duration_s: float = 0.0


class TrackingHost:
    """Remembers the commands that timed out, so the report can name them."""

    def __init__(self, inner: Host) -> None:
        self.inner = inner
        self.meta: HostMeta = inner.meta
        self.timed_out: list[CommandResult] = []
        self._lock = threading.Lock()

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        return self.inner.read_bytes(path, limit)

    def list_dir(self, path: str) -> list[str]:
        return self.inner.list_dir(path)

    def readlink(self, path: str) -> str:
        return self.inner.readlink(path)

    def which(self, name: str) -> str | None:
        return self.inner.which(name)

    def nvml(self, query: str) -> Any:
        return self.inner.nvml(query)

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        result = self.inner.run(argv, timeout)
        if result.timed_out:
            with self._lock:
                self.timed_out.append(result)
        return result


class Collector:
    """Runs providers on demand; `fact()` from inside a provider waits for its dependency."""

    def __init__(self, host: Host, deadline_s: float = DEFAULT_DEADLINE_S,
                 providers: dict[str, Provider] | None = None) -> None:
        self.host = TrackingHost(host)
        self.providers = PROVIDERS if providers is None else providers
        self.deadline = time.monotonic() + deadline_s
        self.deadline_s = deadline_s
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()

    # FactContext protocol ----------------------------------------------------------------
    def fact(self, name: str, kind: type[T]) -> T:
        value = self._wait(name)
        if isinstance(value, Missing):
            raise FactUnavailable(f"{name}: {value.reason}", value.hint)
        if not isinstance(value, kind):
            raise TypeError(f"fact {name} is {type(value).__name__}, not {kind.__name__}")
        return value

    def optional(self, name: str, kind: type[T]) -> T | None:
        value = self._wait(name)
        return value if isinstance(value, kind) else None

    # ---------------------------------------------------------------------------------------
    def start(self, names: Iterable[str]) -> None:
        for name in names:
            self._slot(name)

    def _slot(self, name: str) -> _Slot:
        with self._lock:
            slot = self._slots.get(name)
            if slot is not None:
                return slot
            provider = self.providers.get(name)
            if provider is None:
                slot = _Slot(Provider(name, lambda ctx: None, object, ""))
                slot.missing = Missing(name, f"no provider for fact {name!r}", kind="error")
                slot.done.set()
                self._slots[name] = slot
                return slot
            slot = _Slot(provider)
            self._slots[name] = slot
        thread = threading.Thread(target=self._run, args=(slot,), name=f"fact-{name}", daemon=True)
        slot.started = time.monotonic()
        thread.start()
        return slot

    def _run(self, slot: _Slot) -> None:
        name = slot.provider.name
        try:
            slot.value = slot.provider.func(self)
        except FactUnavailable as exc:
            slot.missing = Missing(name, exc.reason, exc.hint)
        except NotCaptured as exc:
            slot.missing = Missing(name, f"not in the source ({exc.what})", kind="not-captured")
        except PermissionError as exc:
            slot.missing = Missing(name, f"permission denied: {exc.filename or exc}", "run as root")
        except Exception as exc:  # a broken provider is reported, never fatal
            slot.missing = Missing(name, f"{type(exc).__name__}: {exc}", kind="error")
        finally:
            slot.duration_s = time.monotonic() - slot.started
            slot.done.set()

    def _wait(self, name: str) -> Any:
        slot = self._slot(name)
        remaining = self.deadline - time.monotonic()
        if not slot.done.wait(max(0.0, remaining)):
            return Missing(name, f"did not finish within the {self.deadline_s:g} s deadline", kind="timeout")
        return slot.missing if slot.missing is not None else slot.value

    def results(self, names: Iterable[str]) -> dict[str, Any]:
        """Wait (up to the deadline) for each fact; values or Missing."""
        return {name: self._wait(name) for name in names}

    def durations(self) -> dict[str, float]:
        return {name: slot.duration_s for name, slot in self._slots.items() if slot.done.is_set()}
