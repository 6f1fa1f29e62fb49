"""Consolidation: the ten investigations merged, de-duplicated against the rule engine by (check ID, subject)
and between investigators (X- findings by subject and quoted line), rendered in the three formats."""

from __future__ import annotations

import json

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.investigate.consolidate import InvestigatedReport, consolidate
from stackaudit.investigate.evidence import Finding
from stackaudit.investigate.outcome import InvestigatorRun, Outcome
from stackaudit.report.render import render

GPU = "0000:41:00.0"


def engine_report() -> Report:
    return Report(source={"kind": "fake"}, host={"hostname": "h"}, results=[
        Result("KERN-NUMA-BALANCING", "KERN", "NUMA balancing", "issue", "on", severity="high", priority="P1"),
        Result("PCIE-LINK-DOWNTRAIN", "PCIE", "link", "ok", "full speed", subjects=(GPU, "0000:42:00.0")),
    ])


def found(fid: str, domain: str, status: str = "issue", subject: str = "", quote: str = "a quoted line here") -> Finding:
    return Finding(fid, fid.split("-")[1] if fid.startswith("X-") else fid.split("-")[0], status, "medium",
                   "documented", f"title of {fid}", subject, "x", evidence=(quote,), investigator=domain)


def test_duplicates_of_the_engine_and_of_each_other_are_merged() -> None:
    runs = [
        InvestigatorRun("KERN", "m", ended="reported", kept=[
            found("KERN-NUMA-BALANCING", "KERN"),  # the engine's own finding: agreed, not repeated
            found("X-KERN-swap-on", "KERN", quote="/proc/swaps: /dev/sda2 partition 8388604 0 -2")]),
        InvestigatorRun("PCIE", "m", ended="reported", kept=[
            found("PCIE-LINK-DOWNTRAIN", "PCIE", subject=GPU),  # the engine says ok for this GPU: kept, with that
            found("PCIE-LINK-DOWNTRAIN", "PCIE", status="ok", subject="0000:42:00.0"),  # agrees
            found("X-PCIE-aer-errors", "PCIE", subject=GPU, quote="CESta: RxErr+ BadTLP-")]),
        InvestigatorRun("IC", "m", ended="reported", kept=[
            found("X-IC-aer-errors", "IC", subject=GPU, quote="CESTA: RXERR+ BADTLP-"),  # the same line: one finding
            found("PCIE-LINK-DOWNTRAIN", "IC", subject=GPU)]),
    ]
    inv = consolidate(engine_report(), Outcome(runs), "http://127.0.0.1:8000", "m")
    assert inv.agreed == 2 and inv.duplicates == 2
    ids = [(f.id, f.subject) for f in inv.findings]
    assert ids == [("X-KERN-swap-on", ""), ("PCIE-LINK-DOWNTRAIN", GPU), ("X-PCIE-aer-errors", GPU)]
    downtrain = inv.findings[1]
    assert downtrain.engine_status == "ok" and downtrain.also_found_by == ("IC",)
    assert inv.findings[2].also_found_by == ("IC",) and not inv.findings[0].also_found_by


def test_rendered_in_text_markdown_and_json_after_the_engine_report() -> None:
    runs = [InvestigatorRun("KERN", "qwen3", rounds=3, prompt_tokens=900, completion_tokens=100, ended="reported",
                            reason="reported 2 finding(s)", dropped={"quote not found in any tool output": 1},
                            kept=[found("X-KERN-swap-on", "KERN", quote="/proc/swaps: /dev/sda2 partition")])]
    base = engine_report()
    report = InvestigatedReport(**vars(base), investigation=consolidate(base, Outcome(runs, duration_s=2.0), "u", "qwen3"))
    text, markdown = render(report, "text"), render(report, "markdown")
    for out in (text, markdown):
        section = out.index("Investigator findings (model-generated, evidence-checked)")
        assert section > out.index("KERN-NUMA-BALANCING")
        assert "X-KERN-swap-on" in out[section:] and "/proc/swaps: /dev/sda2 partition" in out[section:]
    assert "KERN qwen3 1000 0.0 s 3 1 1 0 reported 2 finding(s)" in " ".join(text.split())  # the table's row
    assert "| KERN | qwen3 | 1000 | 0.0 s | 3 | 1 | 1 | 0 | reported 2 finding(s) |" in markdown
    doc = json.loads(render(report, "json"))
    assert doc["investigation"]["findings"][0]["id"] == "X-KERN-swap-on"
    assert doc["investigation"]["investigators"][0]["dropped_reasons"] == {"quote not found in any tool output": 1}
    # A report without an investigation is unchanged: no section, no key.
    assert "investigation" not in json.loads(render(base, "json"))
    assert "Investigator findings" not in render(base, "text") + render(base, "markdown")
