"""What an investigation produced: one InvestigatorRun per domain (budget use, findings kept, claims dropped,
how it ended), or why none ran. Kept apart from investigate/loop.py so that the renderers read it without
importing the `openai` SDK (an optional extra)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stackaudit.investigate.evidence import Finding


@dataclass
class InvestigatorRun:
    """How one investigator went: its budget use, its findings kept, its claims dropped and how it ended."""

    domain: str
    model: str
    rounds: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    duration_s: float = 0.0
    tool_calls: int = 0
    malformed: int = 0
    retries: int = 0
    ended: str = "not-started"  # reported | reported-forced | no-report | error | not-started
    reason: str = ""
    kept: list[Finding] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def dropped_count(self) -> int:
        return sum(self.dropped.values())

    def to_json(self) -> dict[str, Any]:
        return {"domain": self.domain, "model": self.model, "rounds": self.rounds,
                "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens,
                           "total": self.tokens, "estimated": self.tokens_estimated},
                "duration_s": round(self.duration_s, 3), "tool_calls": self.tool_calls,
                "malformed_tool_calls": self.malformed, "retries": self.retries, "ended": self.ended,
                "reason": self.reason, "kept": len(self.kept), "dropped": self.dropped_count,
                "dropped_reasons": dict(sorted(self.dropped.items()))}


@dataclass
class Outcome:
    """What the investigation produced: one run per domain, or why none ran (`unreachable`)."""

    runs: list[InvestigatorRun]
    unreachable: str = ""
    duration_s: float = 0.0
