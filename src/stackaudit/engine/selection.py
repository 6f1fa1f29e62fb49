"""--select / --ignore by check ID or domain."""

from __future__ import annotations

from collections.abc import Iterable

from stackaudit.checks.registry import DOMAINS, CheckSpec
from stackaudit.errors import UsageError


def _split(values: Iterable[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        out.extend(v.strip().upper() for v in value.split(",") if v.strip())
    return out


def select_checks(catalogue: dict[str, CheckSpec], select: Iterable[str] = (),
                  ignore: Iterable[str] = ()) -> list[CheckSpec]:
    """The checks chosen by IDs or domains; an unknown name is a usage error."""
    chosen = _split(select)
    dropped = _split(ignore)
    for name in (*chosen, *dropped):
        if name not in catalogue and name not in DOMAINS:
            close = [cid for cid in catalogue if name in cid][:3]
            tip = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(f"unknown check ID or domain {name!r}{tip}; `stackaudit checks` lists them")

    def matches(spec: CheckSpec, names: list[str]) -> bool:
        return spec.id in names or spec.domain in names

    specs = sorted(catalogue.values(), key=lambda s: (DOMAINS.index(s.domain), s.id))
    if chosen:
        specs = [s for s in specs if matches(s, chosen)]
    return [s for s in specs if not matches(s, dropped)]


def with_read_checks(specs: list[CheckSpec], catalogue: dict[str, CheckSpec]) -> list[CheckSpec]:
    """The chosen checks, then the checks a chosen derived rule reads the results of that were not chosen:
    they are evaluated for the rule, not reported."""
    chosen = {s.id for s in specs}
    rules = [s.reads for s in specs if s.reads is not None]
    extra = [c for c in sorted(catalogue.values(), key=lambda c: c.id)
             if c.id not in chosen and c.reads is None and any(reads(c) for reads in rules)]
    return [*specs, *extra]
