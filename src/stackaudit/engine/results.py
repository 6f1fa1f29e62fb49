"""One result per check per audit, with priority and scope (docs/design.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from stackaudit.checks.registry import CheckSpec, Coverage, Fix, Outcome
from stackaudit.fixes.model import rank_key
from stackaudit.host.source import Provenance

_CHEAP_FIX = frozenset({"runtime", "restart", "driver-reload"})
_STRONG_EVIDENCE = frozenset({"source-verified", "documented"})


def priority_of(severity: str, confidence: str, fix_cost: str) -> str:
    """P0 = high severity, fixable without reboot, evidence documented or better; P1 = other high,
    or medium; P2 = the rest. The checks set the severities the overrides rest on (NCCL per variable
    and topology, a display server low, another engine medium); a lost or faulted GPU is P0 through
    `Outcome.gpu_lost` (docs/design.md, "Priority rules")."""
    if severity == "high" and fix_cost in _CHEAP_FIX and confidence in _STRONG_EVIDENCE:
        return "P0"
    if severity in ("high", "medium"):
        return "P1"
    return "P2"


@dataclass(frozen=True)
class Waiver:
    id: str
    reason: str
    subject: str = ""
    expires: str = ""  # ISO date, empty = never
    source: str = ""

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "subject": self.subject, "reason": self.reason, "expires": self.expires,
                "source": self.source}


@dataclass(frozen=True)
class Result:
    id: str
    domain: str
    title: str
    status: str
    message: str
    severity: str | None = None
    confidence: str | None = None
    fix_cost: str | None = None
    priority: str | None = None
    subjects: tuple[str, ...] = ()
    actual: Any = None
    expected: Any = None
    fix: Fix | None = None
    references: tuple[str, ...] = ()
    scope: str = "host"
    evidence: tuple[str, ...] = ()
    hint: str = ""
    waiver: Waiver | None = None
    duration_ms: float = 0.0
    facts_missing: tuple[str, ...] = field(default_factory=tuple)
    why: str = ""
    # Where the facts this result used came from (source, pasted file and lines, whole or excerpt).
    provenance: tuple[Provenance, ...] = ()
    # An issue about a GPU that is gone or faulted (Outcome.gpu_lost): P0, and read before any other P0.
    gpu_lost: bool = False
    # A check over subjects: which it judged, of how many the host has (checks/registry.py `over_subjects`).
    coverage: Coverage | None = None

    @property
    def partly_shown(self) -> bool:
        """A verdict (ok, not-an-issue, not-applicable, unknown) over some of the host's subjects: the rest would
        settle more."""
        return self.coverage is not None and not self.coverage.complete and self.status in (
            "ok", "not-an-issue", "not-applicable", "unknown")

    @property
    def quoted(self) -> str:
        """The evidence line a report quotes: the first that names one of the result's subjects, else the first;
        "" without evidence."""
        named = [line for line in self.evidence if any(len(s) > 2 and s in line for s in self.subjects)]
        return named[0] if named else (self.evidence[0] if self.evidence else "")

    @property
    def rank_key(self) -> tuple[int, bool, int, int, int, str]:
        return rank_key(self.priority, self.gpu_lost, self.severity, self.fix_cost, self.confidence, self.id)

    @property
    def waived(self) -> bool:
        return self.waiver is not None

    def with_waiver(self, waiver: Waiver) -> Result:
        return replace(self, waiver=waiver)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "domain": self.domain,
            "title": self.title,
            "status": self.status,
            "priority": self.priority,
            "severity": self.severity,
            "confidence": self.confidence,
            "fix_cost": self.fix_cost,
            "scope": self.scope,
            "subjects": list(self.subjects),
            "actual": jsonable(self.actual),
            "expected": jsonable(self.expected),
            "message": self.message,
            "hint": self.hint,
            "evidence": list(self.evidence),
            "fix": self.fix.to_json() if self.fix else None,
            "why": self.why,
            "references": list(self.references),
            "waived": self.waiver.to_json() if self.waiver else None,
            "provenance": [p.to_json() for p in self.provenance],
            # Optional (schema 2): present on an issue about a lost or faulted GPU only.
            **({"gpu_lost": True} if self.gpu_lost else {}),
            # Optional (schema 2): on a check over subjects only, which of them it judged.
            **({"coverage": self.coverage.to_json()} if self.coverage is not None else {}),
        }


def jsonable(value: Any) -> Any:
    """A value as the JSON report holds it (tuples and sets as lists, other objects as text)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    return str(value)


def build_result(spec: CheckSpec, outcome: Outcome, in_container: bool, duration_ms: float = 0.0) -> Result:
    """Fill in what the check did not say from its registration."""
    fix = outcome.fix or spec.fix
    scope = fix.scope if in_container else "host"
    severity: str | None = None
    confidence: str | None = None
    fix_cost: str | None = None
    priority: str | None = None
    if outcome.status == "issue":
        severity = outcome.severity or spec.severity
        confidence = outcome.confidence or spec.confidence
        fix_cost = fix.cost
        # A GPU that is gone or faulted comes first whatever the fix costs (a reboot, an RMA).
        priority = "P0" if outcome.gpu_lost else priority_of(severity, confidence, fix_cost)
    return Result(
        id=spec.id,
        domain=spec.domain,
        title=spec.title,
        status=outcome.status,
        message=outcome.message,
        severity=severity,
        confidence=confidence or (outcome.confidence or spec.confidence),
        fix_cost=fix_cost,
        priority=priority,
        subjects=outcome.subjects,
        actual=outcome.actual,
        expected=outcome.expected,
        # A fix written per subject (`<bdf>`) is repeated for the subjects this result named.
        fix=fix.bind(outcome.subjects) if outcome.status == "issue" else None,
        references=spec.references,
        scope=scope,
        evidence=outcome.evidence,
        hint=outcome.hint,
        duration_ms=duration_ms,
        why=doc_section(spec.doc, "Why") if outcome.status in ("issue", "not-an-issue") else "",
        gpu_lost=outcome.gpu_lost and outcome.status == "issue",
        coverage=outcome.coverage,
    )


def for_engines(result: Result, engines: list[str]) -> Result:
    """The result with its fix for the serving engines the source shows (Fix.for_engines); its cost and
    priority follow the steps kept."""
    fix = result.fix.for_engines(engines) if result.fix is not None else None
    if fix is None or fix is result.fix or result.severity is None or result.confidence is None:
        return result
    priority = "P0" if result.gpu_lost else priority_of(result.severity, result.confidence, fix.cost)
    return replace(result, fix=fix, fix_cost=fix.cost, priority=priority)


def doc_section(doc: str, name: str) -> str:
    """One `Name:` paragraph of a check's docstring, on one line."""
    for para in doc.split("\n\n"):
        text = " ".join(line.strip() for line in para.strip().splitlines())
        if text.startswith(f"{name}:"):
            return text[len(name) + 1:].strip()
    return ""
