"""The evidence rule: a finding is kept only if each of its quotes is text a tool returned in that
investigation — a whole line (at least MIN_LINE_CHARS long), or at least MIN_QUOTE_CHARS characters that
contain the finding's observed value — matched after whitespace normalisation. Anything else is dropped and
counted, never shown (docs/investigate.md, "The evidence rule").

Only the quotable lines of tool outputs count (investigate/tools.py: a file's or a command's lines, a
listing's entries, a fact's JSON), never a header, a cut marker, an error or a check's documentation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from stackaudit.checks.registry import DOMAINS
from stackaudit.investigate.schema import FINDING_SCHEMA, X_ID_PATTERN, validate

MIN_QUOTE_CHARS = 20
# A whole line shorter than this ("0", "1", "on") proves nothing on its own: it matches any such file.
MIN_LINE_CHARS = 8
_SPACE = re.compile(r"\s+")


def normalise_ws(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class Finding:
    """A kept finding: model-generated, every quote found in a tool output of its investigation."""

    id: str
    domain: str
    status: str
    severity: str
    confidence: str
    title: str
    subject: str = ""
    observed: str = ""
    expected: str = ""
    recommendation: str = ""
    evidence: tuple[str, ...] = ()
    investigator: str = ""  # the domain whose investigator found it
    also_found_by: tuple[str, ...] = ()
    engine_status: str = ""  # the rule engine's status for (id, subject), when it disagrees

    @property
    def is_extra(self) -> bool:
        """An `X-` finding: something the catalogue has no check for."""
        return self.id.startswith("X-")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "domain": self.domain, "status": self.status,
                               "severity": self.severity, "confidence": self.confidence, "title": self.title,
                               "subject": self.subject, "observed": self.observed, "expected": self.expected,
                               "recommendation": self.recommendation, "evidence": list(self.evidence),
                               "investigator": self.investigator, "also_found_by": list(self.also_found_by)}
        if self.engine_status:
            out["engine_status"] = self.engine_status
        return out


@dataclass
class Checked:
    """One report_findings call, judged: the findings kept and why the others were dropped."""

    kept: list[Finding] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def dropped_count(self) -> int:
        return sum(self.dropped.values())

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1


class EvidenceIndex:
    """The quotable text of one investigation, normalised: its lines, and all of it joined."""

    def __init__(self, lines: Iterable[str]) -> None:
        normalised = [normalise_ws(line) for line in lines]
        self.lines = {line for line in normalised if line}
        self.text = "\n".join(line for line in normalised if line)

    def quote_holds(self, quote: str, observed: str) -> str:
        """"" when the quote is evidence (for a finding whose observed value is `observed`); else why not."""
        q = normalise_ws(quote)
        if not q:
            return "empty quote"
        if q in self.lines:
            return "" if len(q) >= MIN_LINE_CHARS else "quote too short to prove anything"
        if len(q) < MIN_QUOTE_CHARS:
            return "quote not found" if not self._inside(q) else "quote too short to prove anything"
        if not self._inside(q):
            return "quote not found in any tool output"
        value = normalise_ws(observed)
        if not value:
            return "partial-line quote without an observed value"
        if value.lower() not in q.lower():
            return "quote does not contain the observed value"
        return ""

    def _inside(self, quote: str) -> bool:
        # Inside one line, or across consecutive lines (a quote may span a line break, normalised to a space).
        return quote in self.text or quote in self.text.replace("\n", " ")


def check_findings(raw: Any, domain: str, index: EvidenceIndex, known_ids: Iterable[str]) -> Checked:
    """Judge the findings one report_findings call gave (already schema-valid as a whole, but judged one
    by one so that one bad finding does not cost the others)."""
    known = set(known_ids)
    out = Checked()
    items = raw if isinstance(raw, list) else []
    for item in items:
        if validate(FINDING_SCHEMA, item):
            out.drop("not in the findings schema")
            continue
        fid = str(item["id"])
        if re.match(X_ID_PATTERN, fid):
            if fid.split("-")[1] != domain:
                out.drop("X- ID of another domain")
                continue
        elif fid not in known:
            out.drop("unknown check ID")
            continue
        observed = str(item.get("observed", ""))
        reasons = [index.quote_holds(str(q), observed) for q in item["evidence"]]
        failed = [r for r in reasons if r]
        if failed:
            out.drop(failed[0])
            continue
        finding_domain = fid.split("-")[1] if fid.startswith("X-") else fid.split("-")[0]
        out.kept.append(Finding(
            id=fid, domain=finding_domain if finding_domain in DOMAINS else domain, status=str(item["status"]),
            severity=str(item["severity"]), confidence=str(item["confidence"]), title=str(item["title"]),
            subject=str(item.get("subject", "")), observed=observed, expected=str(item.get("expected", "")),
            recommendation=str(item.get("recommendation", "")),
            evidence=tuple(normalise_ws(str(q)) for q in item["evidence"]), investigator=domain))
    return out
