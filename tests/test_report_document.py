"""The audit report is one document (report/document.py) drawn in text, Markdown and HTML: each format shows
the same findings in the same order, and what investigate appends comes after the audit's findings in each."""

from __future__ import annotations

import pytest

from report_scenarios import report
from stackaudit.engine.runner import Report
from stackaudit.investigate.consolidate import InvestigatedReport, consolidate
from stackaudit.investigate.evidence import Finding as Claim
from stackaudit.investigate.outcome import InvestigatorRun, Outcome
from stackaudit.render.document import Finding
from stackaudit.report.document import audit_document
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions

FORMATS = ("text", "markdown", "html")
STORY = "rtx-pro-6000-lxc"


def _ranked(rep: Report) -> list[str]:
    """The issues' IDs in the report's order: P0, P1, P2, each ranked (Result.rank_key)."""
    return [r.id for p in ("P0", "P1", "P2") for r in sorted(rep.issues(), key=lambda r: r.rank_key)
            if r.priority == p]


def _shown_in_order(out: str, ids: list[str], start: str) -> list[int]:
    """Where each ID is first met after the previous one, from `start` on (ValueError when one is missing)."""
    at, where = out.index(start), []
    for check in ids:
        at = out.index(check, at + 1)
        where.append(at)
    return where


@pytest.mark.parametrize("verbose", [False, True])
def test_every_format_shows_the_same_findings_in_the_same_order(verbose: bool) -> None:
    rep = report(STORY)
    options = RenderOptions(verbose=verbose)
    document = audit_document(rep, options)
    shown = [b for s in document.sections if not s.folded for b in s.blocks if isinstance(b, Finding)]
    ids = [b.anchor.removeprefix("result-") for b in shown]
    issues = _ranked(rep)
    negatives = [r.id for r in rep.results if r.status == "not-an-issue"]
    assert ids == issues + negatives and len(issues) == 2  # fixes first (P0, P1, P2, ranked), then negatives
    for fmt in FORMATS:
        out = render(rep, fmt, options=options)
        _shown_in_order(out, ids, "Actionable fixes")  # each one, in that order
        for finding in shown:
            assert finding.label in out, (fmt, finding.label)


def test_folded_detail_is_left_out_of_text_only() -> None:
    rep = report(STORY)
    good = next(r for r in rep.results if r.status == "ok")
    text, markdown, html = (render(rep, fmt) for fmt in FORMATS)
    n_good = sum(r.status == "ok" for r in rep.results)
    assert "what each showed" not in text and f"<details><summary>Confirmed good ({n_good}): what each showed" in markdown
    assert f'id="result-{good.id}"' in html and 'data-status="ok"' in html
    assert "```mermaid" in markdown and '<svg id="topology"' in html
    assert "mermaid" not in text and "<svg" not in text


def _investigated() -> InvestigatedReport:
    base = report(STORY)
    claim = Claim("X-KERN-dmesg-open", "KERN", "issue", "low", "documented", "any user reads the kernel log", "",
                  "0", evidence=("/proc/sys/kernel/dmesg_restrict: 0",), investigator="KERN")
    runs = [InvestigatorRun("KERN", "qwen3", rounds=1, ended="reported", kept=[claim])]
    return InvestigatedReport(**vars(base), investigation=consolidate(base, Outcome(runs), "u", "qwen3"))


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_investigators_section_comes_after_the_audits_findings(fmt: str) -> None:
    rep = _investigated()
    out = render(rep, fmt)
    section = out.index("Investigator findings (model-generated, evidence-checked)")
    last_issue = _shown_in_order(out, _ranked(rep), "Actionable fixes")[-1]
    assert last_issue < section < out.index("X-KERN-dmesg-open") < out.index("Investigators", section + 30)
    assert out.count("X-KERN-dmesg-open") == 1


def test_each_fix_wears_its_priority_badge_colour_and_reference_links() -> None:
    rep = report(STORY)
    issues = [r for r in rep.results if r.status == "issue"]
    assert {r.priority for r in issues} == {"P2"} and all(r.references for r in issues)
    html = render(rep, "html")
    text = render(rep, "text", color=True)
    for r in issues:
        head = html[html.index(f'id="result-{r.id}"'):]
        assert head.index('<span class="label badge tone-note">P2</span>') < head.index("</summary>")
        fold = head[:head.index("</details>")]
        for ref in r.references:
            assert f'<a href="{ref}" rel="noreferrer noopener">' in fold, ref
    assert text.count("\x1b[36m  P2  ") == len(issues) and "\x1b[1m  P2" not in text  # P2 in cyan, as before
    good = next(r for r in rep.results if r.status == "ok")
    assert f'<span class="label badge tone-good">{good.id}</span>' in html
