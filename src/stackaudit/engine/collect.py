"""Collect facts under one overall deadline: from a live host in parallel, each in its own daemon thread;
from a snapshot, a paste or a fake host in one worker thread, each fact computed when first asked for.

A fact's alternatives run best first; `first_of` stops at the first that answers, `union` and
`merge_by` ask them all. Every host access an alternative makes is logged, so each fact knows the
sources it came from (its provenance) and whether they were whole; a fact built on other facts
inherits theirs. A fact that fails or hangs never stops the others: it becomes a Missing value with
the reason (naming each source tried), and a hung thread is abandoned (daemon), so the audit ends
on time.

Parallel threads pay off where facts wait on the machine (nvidia-smi takes seconds); reading a snapshot
only computes, under the GIL, and a thread per fact (about 130, then one per check) made a replayed 8-GPU
audit spend 40 % of its CPU switching between them (perf/fleet_scale.py). Serially, a hung fact makes
the ones not yet computed time out with it; parsing held bytes does not hang on the machine.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from stackaudit.facts.registry import PROVIDERS, FactSpec, FactUnavailable, Provider, Sourced, first_of
from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    CommandResult,
    Host,
    HostWrapper,
    NotCaptured,
)
from stackaudit.host.source import Provenance, command_key, doc_key, file_key

T = TypeVar("T")
DEFAULT_DEADLINE_S = 20.0


@dataclass(frozen=True)
class Missing:
    """Why a fact has no value: unavailable (with a hint), not in the source, timed out, or failed."""

    fact: str
    reason: str
    hint: str = ""
    kind: str = "unavailable"  # unavailable | not-captured | timeout | error


class TrackingHost(HostWrapper):
    """Remembers the commands that timed out, so the report can name them."""

    def __init__(self, inner: Host) -> None:
        super().__init__(inner)
        self.timed_out: list[CommandResult] = []
        self._lock = threading.Lock()

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        result = self.inner.run(argv, timeout)
        if result.timed_out:
            with self._lock:
                self.timed_out.append(result)
        return result


class AccessLog(HostWrapper):
    """The source keys one alternative read that answered (for its provenance)."""

    def __init__(self, inner: Host) -> None:
        super().__init__(inner)
        self.keys: list[str] = []

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        data = self.inner.read_bytes(path, limit)
        self.keys.append(file_key(path))
        return data

    def list_dir(self, path: str) -> list[str]:
        entries = self.inner.list_dir(path)
        self.keys.append(file_key(path))
        return entries

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        result = self.inner.run(argv, timeout)
        if not result.not_found:
            self.keys.append(command_key(tuple(argv)))
        return result

    def nvml(self, query: str) -> Any:
        answer = self.inner.nvml(query)
        self.keys.append("nvml:")
        return answer

    def doc(self, name: str) -> str:
        text = self.inner.doc(name)
        self.keys.append(doc_key(name))
        return text

    def provenance_entries(self) -> list[Provenance]:
        return list(dict.fromkeys(self.inner.provenance(key) for key in dict.fromkeys(self.keys)))


class _AlternativeContext:
    """The FactContext one alternative runs with: its own access log, facts through the collector."""

    def __init__(self, collector: Collector, fact_name: str) -> None:
        self.collector = collector
        self.fact_name = fact_name
        self.log = AccessLog(collector.host)
        self.used_facts: list[str] = []

    @property
    def host(self) -> Host:
        return self.log

    def fact(self, name: str, kind: type[T]) -> T:
        self.used_facts.append(name)
        return self.collector.fact(name, kind)

    def optional(self, name: str, kind: type[T]) -> T | None:
        self.used_facts.append(name)
        return self.collector.optional(name, kind)


@dataclass
class _Slot:
    spec: FactSpec
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    missing: Missing | None = None
    provenance: tuple[Provenance, ...] = ()
    started: float = 0.0
    duration_s: float = 0.0
    owner: int = 0  # serial mode: the thread computing it


def _as_spec(name: str, entry: FactSpec | Provider) -> FactSpec:
    if isinstance(entry, FactSpec):
        return entry
    return FactSpec(name, entry.kind, first_of, (entry,))


class Collector:
    """Runs facts on demand; `fact()` from inside a provider waits for its dependency."""

    def __init__(self, host: Host, deadline_s: float = DEFAULT_DEADLINE_S,
                 providers: dict[str, FactSpec] | dict[str, Provider] | None = None,
                 parallel: bool | None = None) -> None:
        self.host = TrackingHost(host)
        # Default: a thread per fact for a live host only (see the module's docstring).
        self.parallel = host.meta.source == "live" if parallel is None else parallel
        table: dict[str, Any] = PROVIDERS if providers is None else providers
        self.providers: dict[str, FactSpec] = {n: _as_spec(n, e) for n, e in table.items()}
        self.deadline = time.monotonic() + deadline_s
        self.deadline_s = deadline_s
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()
        # Alternatives that broke while another answered: reported, never silent.
        self.alternative_errors: list[str] = []

    # FactContext protocol (for callers outside a provider) -------------------------------------
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
            spec = self.providers.get(name)
            if spec is None:
                slot = _Slot(FactSpec(name, object, first_of, ()))
                slot.missing = Missing(name, f"no provider for fact {name!r}", kind="error")
                slot.done.set()
                self._slots[name] = slot
                return slot
            slot = _Slot(spec)
            self._slots[name] = slot
        if not self.parallel:
            return slot  # computed by the first _wait
        thread = threading.Thread(target=self._run, args=(slot,), name=f"fact-{name}", daemon=True)
        slot.started = time.monotonic()
        thread.start()
        return slot

    def _run(self, slot: _Slot) -> None:
        spec = slot.spec
        answers: list[tuple[Any, list[Provenance]]] = []
        failures: list[tuple[Provider, Missing]] = []
        primary_failed = False
        try:
            for n, alt in enumerate(spec.alternatives):
                ctx = _AlternativeContext(self, spec.name)
                try:
                    value = alt.func(ctx)
                except FactUnavailable as exc:
                    failures.append((alt, Missing(spec.name, _with_cuts(exc.reason, ctx), exc.hint)))
                    continue
                except NotCaptured as exc:
                    failures.append((alt, Missing(spec.name, f"not in the source ({exc.what})", kind="not-captured")))
                    continue
                except PermissionError as exc:
                    failures.append((alt, Missing(spec.name, f"permission denied: {exc.filename or exc}",
                                                  "run as root")))
                    continue
                except Exception as exc:  # a broken alternative is reported; the next may still answer
                    failures.append((alt, Missing(spec.name, _with_cuts(f"{type(exc).__name__}: {exc}", ctx),
                                                  kind="error")))
                    continue
                finally:
                    primary_failed = primary_failed or (n == 0 and len(failures) == 1)
                prov = dict.fromkeys(ctx.log.provenance_entries())
                for dep in ctx.used_facts:
                    prov.update(dict.fromkeys(self.provenance(dep)))
                answers.append((value, list(prov)))
                if spec.combine is first_of:
                    break
            if not answers:
                slot.missing = _all_missing(spec, failures)
                return
            with self._lock:
                self.alternative_errors.extend(f"{spec.name} ({alt.title or alt.summary}): {m.reason}"
                                               for alt, m in failures if m.kind == "error")
            value = spec.combine(spec.kind, [v for v, _ in answers])
            slot.provenance = tuple(dict.fromkeys(p for _, prov in answers for p in prov))
            # Joined sources prove absence only through the first (the one that sees everything: the
            # whole kernel log, the sysfs class): without it, the others show what is there, no more.
            partial = primary_failed and spec.combine is not first_of
            slot.value = _with_sources(value, slot.provenance, partial)
        except Exception as exc:  # a broken provider is reported, never fatal
            slot.missing = Missing(spec.name, f"{type(exc).__name__}: {exc}", kind="error")
        finally:
            slot.duration_s = time.monotonic() - slot.started
            slot.done.set()

    def _wait(self, name: str) -> Any:
        slot = self._slot(name)
        if not self.parallel and not slot.done.is_set() and self._claim(slot):
            return self._compute_here(slot)
        remaining = self.deadline - time.monotonic()
        if not slot.done.wait(max(0.0, remaining)):
            return Missing(name, f"did not finish within the {self.deadline_s:g} s deadline", kind="timeout")
        return slot.missing if slot.missing is not None else slot.value

    def _claim(self, slot: _Slot) -> bool:
        """Serial mode: whether this thread is to compute the slot (nobody has started it, or this very thread
        is computing it: a cycle, which _compute_here reports); False while another thread computes it (a
        caller besides the worker), which then waits for it as in parallel mode."""
        me = threading.get_ident()
        with self._lock:
            if not slot.started:
                slot.owner = me
                slot.started = -1.0  # claimed; the start time is set when it runs
                return True
            return slot.owner == me

    def _compute_here(self, slot: _Slot) -> Any:
        """Serial mode: compute the fact in this thread (its dependencies first, as it asks for them)."""
        name = slot.spec.name
        if slot.started > 0:  # asked for again while this thread computes it: it depends on itself
            return Missing(name, "the fact depends on itself (a cycle among the facts)", kind="error")
        if time.monotonic() > self.deadline:
            slot.missing = Missing(name, f"did not finish within the {self.deadline_s:g} s deadline", kind="timeout")
            slot.done.set()
            return slot.missing
        slot.started = time.monotonic()
        self._run(slot)
        return slot.missing if slot.missing is not None else slot.value

    def results(self, names: Iterable[str]) -> dict[str, Any]:
        """Wait (up to the deadline) for each fact; values or Missing."""
        names = list(names)
        if self.parallel:
            return {name: self._wait(name) for name in names}
        # One worker computes them all; a fact it has not finished by the deadline times out.
        worker = threading.Thread(target=lambda: [self._wait(n) for n in names], name="facts", daemon=True)
        worker.start()
        worker.join(max(0.0, self.deadline - time.monotonic()))
        return {name: self._settled(name) for name in names}

    def _settled(self, name: str) -> Any:
        slot = self._slots.get(name)
        if slot is None or not slot.done.is_set():
            return Missing(name, f"did not finish within the {self.deadline_s:g} s deadline", kind="timeout")
        return slot.missing if slot.missing is not None else slot.value

    def provenance(self, name: str) -> tuple[Provenance, ...]:
        """Where a collected fact's value came from (empty while it is missing or running)."""
        slot = self._slots.get(name)
        if slot is None or not slot.done.is_set():
            return ()
        return slot.provenance


def _all_missing(spec: FactSpec, failures: list[tuple[Provider, Missing]]) -> Missing:
    """Every alternative failed: one Missing whose reason names each source tried."""
    if len(failures) == 1:
        alt, missing = failures[0]
        return Missing(spec.name, missing.reason, missing.hint or alt.hint or spec.hint, missing.kind)
    if not failures:
        return Missing(spec.name, "no source can show this fact", kind="error")
    hint = spec.hint or next((m.hint for _, m in failures if m.hint), "") or next(
        (a.hint for a, _ in reversed(failures) if a.hint), "")
    if all(m.kind == "not-captured" for _, m in failures):
        titles = ", ".join(a.title or a.summary for a, _ in failures)
        return Missing(spec.name, f"not in the source: {titles}", hint, "not-captured")
    parts = []
    for alt, missing in failures:
        # "not shown": the fact is in the source (another of its sources is there), this alternative's is not.
        reason = "not shown" if missing.kind == "not-captured" else missing.reason
        parts.append(f"{alt.title or alt.summary}: {reason}")
    kinds = {m.kind for _, m in failures} - {"not-captured"}
    kind = "error" if kinds == {"error"} else "unavailable"
    return Missing(spec.name, "; ".join(parts), hint, kind)


def _with_cuts(reason: str, ctx: _AlternativeContext) -> str:
    """A fact's reason for being unknown names the sources it read that were cut at their cap."""
    cuts = [p.cut_text() for p in ctx.log.provenance_entries() if p.cut_at is not None]
    return f"{reason} ({'; '.join(dict.fromkeys(cuts))})" if cuts else reason


def _with_sources(value: Any, provenance: tuple[Provenance, ...], partial: bool = False) -> Any:
    """Fill a Sourced value's `sources` and `complete` from what was read."""
    if not isinstance(value, Sourced):
        return value
    sources = tuple(dict.fromkeys(p.source for p in provenance))
    complete = value.complete and not partial and all(p.whole for p in provenance)
    return dataclasses.replace(value, sources=sources, complete=complete)
