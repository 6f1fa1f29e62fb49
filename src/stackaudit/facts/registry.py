"""Facts: a type, the sources that can show it, and how their answers merge.

A check asks for facts by parameter name (flake8/pytest style injection); the engine collects
the facts it needs, in parallel. A fact has one or more **alternatives**, each reading one source
(a command, a file tree, NVML, a pasted document) and ranked best first; the fact's **combine** rule
says how their answers merge:

- `first_of` — the best alternative that answers (NUMA: sysfs, else `numactl -H`, else `lscpu`);
- `union` — every alternative that answers, joined (events, inventories: Xid lines from the kernel
  log and lost GPUs from NVML); the fact type's `union(parts)` classmethod joins them;
- `merge_by(key)` — per subject (a GPU's BDF), field by field: a field one source cannot show is
  filled from the next; disagreements are kept in the type's `conflicts`.

An alternative that cannot tell raises FactUnavailable with the reason and how to get the answer;
NotCaptured from the host becomes "not in the source". A fact is missing only when every
alternative is, and the reason names each source tried.

Adding a source to a fact is one decorated function: `@parser(SOURCE, feeds="numa", rank=30)` for
a text parser, `@provider("numa", NumaTopology, rank=10)` for a reader of trees or several files.
Composite facts are ordinary providers that ask for other facts (`ctx.fact`, `ctx.optional`).

Every fact field is configuration (a sysctl, a driver version, a link's maximum) unless declared a
**sample** with `sample_field()` (utilisation, temperature, current clocks, PSI): compare, bench
compare and fleet drift use configuration only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from stackaudit.facts._parse import ParseError
from stackaudit.host.base import DEFAULT_COMMAND_TIMEOUT_S, Host, read_text
from stackaudit.host.source import Source

T = TypeVar("T")


class FactUnavailable(Exception):
    """The fact cannot be known from this source; `hint` says how to get it (e.g. "run as root")."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


class FactContext(Protocol):
    """What a provider gets: the host and access to other facts (which may block until ready)."""

    @property
    def host(self) -> Host:
        """The host being audited."""
        ...

    def fact(self, name: str, kind: type[T]) -> T:
        """Another fact's value; raises FactUnavailable when that fact is unavailable."""
        ...

    def optional(self, name: str, kind: type[T]) -> T | None:
        """Another fact's value, or None when unavailable."""
        ...


ProviderFunc = Callable[[FactContext], Any]
Combine = Callable[[type[Any], Sequence[Any]], Any]


@dataclass(frozen=True, kw_only=True)
class Sourced:
    """Base of fact types that carry where they came from; the engine fills both fields.

    `complete` is False when any source that answered was an excerpt (a pasted `dmesg | head`):
    such a fact cannot prove that something is absent.
    """

    sources: tuple[str, ...] = ()
    complete: bool = True


def sample_field(default: Any = None, **kwargs: Any) -> Any:
    """A dataclass field that is a sample (changes from one instant to the next), not configuration."""
    metadata = {**kwargs.pop("metadata", {}), "sample": True}
    if "default_factory" in kwargs:
        return dataclasses.field(metadata=metadata, **kwargs)
    return dataclasses.field(default=default, metadata=metadata, **kwargs)


def sample_fields(kind: type[Any]) -> frozenset[str]:
    """The names of a fact type's fields declared with sample_field()."""
    if not dataclasses.is_dataclass(kind):
        return frozenset()
    return frozenset(f.name for f in dataclasses.fields(kind) if f.metadata.get("sample"))


# --- combine rules -----------------------------------------------------------------------------


def first_of(kind: type[Any], values: Sequence[Any]) -> Any:
    """The best-ranked answer."""
    return values[0]


def union(kind: type[Any], values: Sequence[Any]) -> Any:
    """Every answer, joined by the type's `union(parts)` classmethod."""
    if len(values) == 1:
        return values[0]
    join = getattr(kind, "union", None)
    if join is None:
        raise TypeError(f"{kind.__name__} has no union() classmethod")
    return join(list(values))


def merge_by(key: str, items: str) -> Combine:
    """Merge the records of field `items` per `key`, field by field, best rank first.

    A field that is None (or empty) in the better source is taken from the next; where two sources
    give different values the better one wins and the disagreement is kept in the result's
    `conflicts` field (when the type has one), as `(key value, field, kept, other)`. A record field
    declared with `differs(f)` names its disagreements itself, `f(kept, other) -> [(name, kept, other)]`.
    The fact's own fields keep the best source's values, except those declared with `merged_field()`,
    which are filled from the next source as the records' fields are.
    """

    def combine(kind: type[Any], values: Sequence[Any]) -> Any:
        merged: dict[Any, Any] = {}
        order: list[Any] = []
        conflicts: list[tuple[str, str, str, str]] = []
        for value in values:
            for record in getattr(value, items):
                k = getattr(record, key)
                if k not in merged:
                    merged[k] = record
                    order.append(k)
                    continue
                best = merged[k]
                updates: dict[str, Any] = {}
                for f in dataclasses.fields(best):
                    mine, theirs = getattr(best, f.name), getattr(record, f.name)
                    if _empty(mine) and not _empty(theirs):
                        updates[f.name] = theirs
                    elif _empty(mine) or _empty(theirs) or f.name == key:
                        continue
                    elif "differs" in f.metadata:
                        conflicts.extend((str(k), *c) for c in f.metadata["differs"](mine, theirs))
                    elif mine != theirs:
                        conflicts.append((str(k), f.name, str(mine), str(theirs)))
                if updates:
                    merged[k] = dataclasses.replace(best, **updates)
        filled = {f.name: next((getattr(v, f.name) for v in values if not _empty(getattr(v, f.name))),
                               getattr(values[0], f.name))
                  for f in dataclasses.fields(values[0]) if f.metadata.get("merged")}
        out = dataclasses.replace(values[0], **filled, **{items: tuple(merged[k] for k in order)})
        if conflicts and "conflicts" in {f.name for f in dataclasses.fields(out)}:
            out = dataclasses.replace(out, conflicts=tuple(conflicts))
        return out

    combine.__name__ = f"merge_by({key!r})"
    return combine


def differs(compare: Callable[[Any, Any], list[tuple[str, str, str]]], default: Any = None) -> Any:
    """A record field whose disagreements between two sources `compare(kept, other)` names (see merge_by)."""
    return dataclasses.field(default=default, metadata={"differs": compare})


def merged_field(default: Any = ()) -> Any:
    """A field of a `merge_by` fact that the next source fills when the best leaves it empty."""
    return dataclasses.field(default=default, metadata={"merged": True})


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == () or value == frozenset()


# --- registration --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Provider:
    """One way to obtain a fact: a function of the context, reading one source (its `title`)."""

    name: str
    func: ProviderFunc
    kind: type[Any]
    summary: str
    rank: int = 0
    title: str = ""  # the source it reads, as unknown messages name it
    hint: str = ""  # what to paste or run to supply that source


@dataclass(frozen=True)
class FactSpec:
    """A fact: its type, its alternatives best first, and how their answers combine."""

    name: str
    kind: type[Any]
    combine: Combine
    alternatives: tuple[Provider, ...]
    hint: str = ""

    @property
    def summary(self) -> str:
        return self.alternatives[0].summary if self.alternatives else ""

    @property
    def titles(self) -> tuple[str, ...]:
        return tuple(a.title for a in self.alternatives if a.title)

    @property
    def func(self) -> ProviderFunc:
        """The best alternative alone (for tests that call one provider directly)."""
        return self.alternatives[0].func


PROVIDERS: dict[str, FactSpec] = {}
_DECLARED: dict[str, tuple[type[Any], Combine, str]] = {}


def fact(name: str, kind: type[Any], combine: Combine = first_of, hint: str = "") -> None:
    """Declare a fact with several sources and its combine rule (before or after its alternatives)."""
    _DECLARED[name] = (kind, combine, hint)
    spec = PROVIDERS.get(name)
    if spec is not None:
        PROVIDERS[name] = FactSpec(name, kind, combine, spec.alternatives, hint)


def _add(alt: Provider) -> None:
    spec = PROVIDERS.get(alt.name)
    kind, combine, hint = _DECLARED.get(alt.name, (alt.kind, first_of, ""))
    if spec is None:
        PROVIDERS[alt.name] = FactSpec(alt.name, kind, combine, (alt,), hint)
        return
    if any(a.func is alt.func for a in spec.alternatives):
        return
    if alt.name not in _DECLARED:
        raise ValueError(f"fact {alt.name!r} has two providers but no fact() declaration of how they combine")
    if any(a.rank == alt.rank for a in spec.alternatives):
        raise ValueError(f"fact {alt.name!r}: two alternatives of rank {alt.rank}")
    alts = tuple(sorted((*spec.alternatives, alt), key=lambda a: a.rank))
    PROVIDERS[alt.name] = FactSpec(alt.name, kind, combine, alts, hint)


def provider(name: str, kind: type[Any], *, rank: int = 0, title: str = "", hint: str = "") -> Callable[
        [ProviderFunc], ProviderFunc]:
    """Register `func(ctx)` as an alternative of fact `name`, whose value is an instance of `kind`.

    `title` names the source it reads in "not in the source" messages (default: the docstring's
    parenthesised source, e.g. "(/sys/devices/system/node)").
    """

    def register(func: ProviderFunc) -> ProviderFunc:
        doc = (func.__doc__ or "").strip().splitlines()
        summary = doc[0] if doc else ""
        _add(Provider(name, func, kind, summary, rank, title or _title_from_summary(summary), hint))
        return func

    return register


def parser(source: Source, *, feeds: str, kind: type[Any], rank: int) -> Callable[
        [Callable[[str], T]], Callable[[str], T]]:
    """Register a parser of one source's text as an alternative of fact `feeds`.

    The engine reads the source (runs the command, reads the file, or takes the pasted document),
    so the parser is a pure function of text that raises ParseError when the text is not its kind.
    """

    def register(func: Callable[[str], T]) -> Callable[[str], T]:
        def read_and_parse(ctx: FactContext) -> Any:
            try:
                return func(read_source(ctx.host, source))
            except ParseError as exc:
                raise FactUnavailable(f"{source.title}: {exc}") from exc

        read_and_parse.__name__ = func.__name__
        read_and_parse.__doc__ = func.__doc__
        doc = (func.__doc__ or "").strip().splitlines()
        _add(Provider(feeds, read_and_parse, kind, doc[0] if doc else "", rank, source.title, source.hint))
        return func

    return register


def read_source(host: Host, source: Source) -> str:
    """The text a source shows on this host; FactUnavailable when it cannot (NotCaptured propagates)."""
    if source.doc:
        return host.doc(source.name)
    if source.argv:
        result = host.run(list(source.argv), source.timeout_s or DEFAULT_COMMAND_TIMEOUT_S)
        if result.not_found:
            raise FactUnavailable(f"{source.title} is not installed")
        if not result.ok:
            raise FactUnavailable(f"{source.title} failed: {(result.stderr.strip() or str(result.returncode))[:200]}")
        return result.stdout
    try:
        return read_text(host, source.path)
    except FileNotFoundError as exc:
        raise FactUnavailable(f"{source.path} is missing") from exc


def _title_from_summary(summary: str) -> str:
    """The source a provider's summary names in its last parentheses: `NUMA nodes with their CPUs
    (/sys/devices/system/node).` -> `/sys/devices/system/node`; `(/proc/vmstat: compaction, ...)` -> `/proc/vmstat`."""
    groups = re.findall(r"\(([^()]+)\)", summary)
    if not groups:
        return ""
    inner = groups[-1].split(": ", 1)[0].strip()
    return inner if len(inner) < 80 else ""


def load_all() -> dict[str, FactSpec]:
    """Import every fact module so their providers register."""
    from stackaudit import facts

    facts.import_all()
    return PROVIDERS
