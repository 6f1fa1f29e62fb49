"""Fact providers: Host -> frozen dataclasses, registered by name.

A check asks for facts by parameter name (flake8/pytest style injection); the engine runs the
providers it needs, in parallel. A provider that cannot tell raises FactUnavailable with the
reason and how to get the answer; NotCaptured from the host becomes "not in the source".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from stackaudit.host.base import Host

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


@dataclass(frozen=True)
class Provider:
    name: str
    func: ProviderFunc
    kind: type[Any]
    summary: str


PROVIDERS: dict[str, Provider] = {}


def provider(name: str, kind: type[Any]) -> Callable[[ProviderFunc], ProviderFunc]:
    """Register `func` as the provider of fact `name`, whose value is an instance of `kind`."""

    def register(func: ProviderFunc) -> ProviderFunc:
        if name in PROVIDERS and PROVIDERS[name].func is not func:
            raise ValueError(f"fact {name!r} has two providers")
        doc = (func.__doc__ or "").strip().splitlines()
        PROVIDERS[name] = Provider(name, func, kind, doc[0] if doc else "")
        return func

    return register


def load_all() -> dict[str, Provider]:
    """Import every fact module so their providers register."""
    from stackaudit import facts

    facts.import_all()
    return PROVIDERS
