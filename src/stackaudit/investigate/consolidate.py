"""Merge the investigators' kept findings into the report: the section **Investigator findings
(model-generated, evidence-checked)** appended to the audit's document, and `investigation` in its JSON.

De-duplication: a finding about a catalogue check is the rule engine's own when the engine has a result for
that (check ID, subject) with the same status (counted, not repeated); with another status it is kept and
says what the engine found. Between investigators, a check finding is one per (check ID, subject), an `X-`
finding one per subject and quoted line. The rule engine's results are never changed, and the exit code
stays the audit's: model-generated findings inform, they do not gate.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from stackaudit.checks.registry import DOMAINS
from stackaudit.engine.runner import AppendedSection, Report
from stackaudit.fixes.model import SEVERITIES
from stackaudit.investigate.evidence import Finding
from stackaudit.investigate.outcome import InvestigatorRun, Outcome
from stackaudit.render.document import Finding as DocFinding
from stackaudit.render.document import Paragraph, Section, Table
from stackaudit.report.bounds import bounded

SECTION_TITLE = "Investigator findings (model-generated, evidence-checked)"
_STATUS_ORDER = ("issue", "not-an-issue", "ok")
_ENDED_WORDS = {"reported": "reported", "reported-forced": "reported when a budget ran out",
                "no-report": "no report", "error": "failed", "not-started": "not started"}


@dataclass
class Investigation:
    """The merged investigation, as the report shows it."""

    endpoint: str
    model: str
    runs: list[InvestigatorRun] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    agreed: int = 0  # findings the rule engine had already (same check, subject and status)
    duplicates: int = 0  # findings another investigator had already
    unreachable: str = ""
    duration_s: float = 0.0

    @property
    def dropped(self) -> int:
        return sum(r.dropped_count for r in self.runs)

    @property
    def malformed(self) -> int:
        return sum(r.malformed for r in self.runs)

    @property
    def tokens(self) -> int:
        return sum(r.tokens for r in self.runs)

    @property
    def usable(self) -> bool:
        return bool(self.findings) or self.agreed > 0

    def headline(self) -> str:
        """One line saying what happened."""
        if self.unreachable:
            return (f"The investigators did not run: the LLM endpoint {self.endpoint} could not be used "
                    f"({self.unreachable}). This is the deterministic report.")
        ended: dict[str, int] = {}
        for run in self.runs:
            ended[run.ended] = ended.get(run.ended, 0) + 1
        how = ", ".join(f"{n} {_ENDED_WORDS.get(k, k)}" for k, n in sorted(ended.items(), key=lambda kv: kv[0]))
        estimated = "~" if any(r.tokens_estimated for r in self.runs) else ""
        line = (f"{len(self.runs)} investigator(s) on {self.model} ({how}): {len(self.findings)} finding(s) kept, "
                f"{self.agreed} agreeing with the rule engine, {self.dropped} claim(s) dropped for evidence not "
                f"found in a tool output, {self.malformed} malformed tool call(s); {estimated}{self.tokens} tokens "
                f"in {self.duration_s:.1f} s.")
        if not self.usable:
            line += " The model produced nothing usable; the rule engine's results above stand alone."
        return line

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = bounded({
            "endpoint": self.endpoint, "model": self.model, "summary": self.headline(),
            "unreachable": self.unreachable or None, "usable": self.usable,
            "findings": [f.to_json() for f in self.findings],
            "agreed_with_engine": self.agreed, "duplicates": self.duplicates, "dropped": self.dropped,
            "malformed_tool_calls": self.malformed, "tokens": self.tokens, "duration_s": round(self.duration_s, 3),
            "investigators": [r.to_json() for r in self.runs],
        })
        return out


@dataclass
class InvestigatedReport(Report):
    """An audit report with an investigation: the renderers add the section when it is set
    (dataclasses.replace, as report/bounds.py uses, keeps the subclass and the field)."""

    investigation: Investigation | None = None

    def appended(self) -> tuple[AppendedSection, ...]:
        return () if self.investigation is None else (InvestigationSection(self),)



def _engine_index(report: Report) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for r in report.results:
        index.setdefault(r.id, []).append((tuple(r.subjects), r.status))
    return index


def _engine_status(index: dict[str, list[tuple[tuple[str, ...], str]]], finding: Finding) -> str | None:
    """The rule engine's status for the finding's (check ID, subject); None when it has no such result."""
    for subjects, status in index.get(finding.id, []):
        if not finding.subject or not subjects or finding.subject in subjects:
            return status
    return None


def _order(f: Finding) -> tuple[int, int, int, str, str]:
    return (_STATUS_ORDER.index(f.status) if f.status in _STATUS_ORDER else 9,
            SEVERITIES.index(f.severity) if f.severity in SEVERITIES else 9,
            DOMAINS.index(f.domain) if f.domain in DOMAINS else 99, f.id, f.subject)


def consolidate(report: Report, outcome: Outcome, endpoint: str, model: str) -> Investigation:
    """The ten investigations, merged and de-duplicated against the rule engine and each other."""
    investigation = Investigation(endpoint, model, list(outcome.runs), unreachable=outcome.unreachable,
                                  duration_s=outcome.duration_s)
    index = _engine_index(report)
    kept: list[Finding] = []
    by_check: dict[tuple[str, str], int] = {}
    by_quote: dict[tuple[str, str], int] = {}
    for run in sorted(outcome.runs, key=lambda r: DOMAINS.index(r.domain) if r.domain in DOMAINS else 99):
        for finding in run.kept:
            if finding.is_extra:
                keys = [(finding.subject.lower(), q.lower()) for q in finding.evidence]
                seen = next((by_quote[k] for k in keys if k in by_quote), None)
                if seen is not None:
                    kept[seen] = _also(kept[seen], run.domain)
                    investigation.duplicates += 1
                    continue
                for k in keys:
                    by_quote[k] = len(kept)
                kept.append(finding)
                continue
            status = _engine_status(index, finding)
            if status == finding.status:
                investigation.agreed += 1
                continue
            if status is not None:
                finding = replace(finding, engine_status=status)
            key = (finding.id, finding.subject.lower())
            if key in by_check:
                kept[by_check[key]] = _also(kept[by_check[key]], run.domain)
                investigation.duplicates += 1
                continue
            by_check[key] = len(kept)
            kept.append(finding)
    investigation.findings = sorted(kept, key=_order)
    return investigation


def _also(finding: Finding, domain: str) -> Finding:
    if domain == finding.investigator or domain in finding.also_found_by:
        return finding
    return replace(finding, also_found_by=(*finding.also_found_by, domain))


# --- the report's part: sections appended to the audit's document, a key of its JSON ------------------------


def investigation_of(report: Report) -> Investigation | None:
    return report.investigation if isinstance(report, InvestigatedReport) else None


@dataclass(frozen=True)
class InvestigationSection:
    """The investigators' part of the audit report (Report.appended): its sections, after the audit's, and
    its JSON key."""

    report: Report

    def sections(self) -> tuple[Section, ...]:
        return investigation_sections(self.report)

    def json(self) -> dict[str, Any]:
        return render_json_section(self.report)


def _finding(f: Finding) -> DocFinding:
    status = f"{f.severity} {f.status}" if f.status == "issue" else f.status
    subject = f" ({f.subject})" if f.subject else ""
    return DocFinding(f.id, f"{status}: {f.title}{subject}", (*_details(f), *(f'quote: "{q}"' for q in f.evidence)))


def _details(f: Finding) -> list[str]:
    out = []
    if f.observed or f.expected:
        out.append(f"observed: {f.observed or '?'}" + (f"; expected: {f.expected}" if f.expected else ""))
    if f.engine_status:
        out.append(f"the rule engine says {f.engine_status} for {f.id}")
    if f.recommendation:
        out.append(f"recommendation: {f.recommendation}")
    who = ", ".join([f.investigator, *f.also_found_by])
    out.append(f"found by the {who} investigator{'s' if f.also_found_by else ''} · confidence {f.confidence}")
    return out


def investigation_sections(report: Report) -> tuple[Section, ...]:
    """The investigators' findings, then a table of the investigators (none without an investigation)."""
    inv = investigation_of(report)
    if inv is None:
        return ()
    inv = _bounded(inv)
    found = Section(SECTION_TITLE, (Paragraph(inv.headline()), *(_finding(f) for f in inv.findings)))
    if not inv.runs:
        return (found,)
    header = ("domain", "model", "tokens", "time", "rounds", "kept", "dropped", "malformed", "how it ended")
    rows = tuple((r.domain, r.model, f"{'~' if r.tokens_estimated else ''}{r.tokens}", f"{r.duration_s:.1f} s",
                  str(r.rounds), str(len(r.kept)), str(r.dropped_count), str(r.malformed),
                  r.reason or _ENDED_WORDS.get(r.ended, r.ended)) for r in inv.runs)
    return found, Section("Investigators", (Table(header, rows, "llrrrrrrl"),))


def render_json_section(report: Report) -> dict[str, Any]:
    """`{"investigation": {...}}` for the JSON report, or {} (report/json_report.py)."""
    inv = investigation_of(report)
    return {} if inv is None else {"investigation": inv.to_json()}


def _bounded(inv: Investigation) -> Investigation:
    findings = [replace(f, title=bounded(f.title, 300), observed=bounded(f.observed, 500),
                        expected=bounded(f.expected, 500), recommendation=bounded(f.recommendation, 1000),
                        subject=bounded(f.subject, 200), evidence=tuple(bounded(q, 2000) for q in f.evidence))
                for f in inv.findings]
    return replace(inv, findings=findings)
