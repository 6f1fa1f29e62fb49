"""`--format junit`: validated against the Ant JUnit schema (tests/data/junit/JUnit.xsd, vendored) on the story
host, an HGX snapshot, a host without GPUs and hostile host values; its counts are the report's."""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import format_scenarios
from format_scenarios import HOSTILE_HOSTNAME, hostile
from stackaudit.engine.results import Waiver
from stackaudit.engine.runner import Report
from stackaudit.report.junit import SAMPLED
from stackaudit.report.render import render
from stackaudit.report.sections import sampled_ids

xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is a test extra")

HERE = Path(__file__).resolve().parent
XSD = HERE / "data" / "junit" / "JUnit.xsd"
SCENARIOS = (*format_scenarios.NAMES, "hostile-values")
# What XML 1.0 cannot carry (and the discouraged DEL/C1): the renderer drops these.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


@pytest.fixture(scope="module")
def schema() -> Any:
    return xmlschema.XMLSchema(str(XSD))


def scenario(name: str) -> Report:
    if name == "hostile-values":
        return hostile(format_scenarios.report("story"))
    return format_scenarios.report(name)


def test_the_vendored_schema_is_the_upstream_file() -> None:
    """Everything but the header comment is the upstream JUnit.xsd byte for byte (the hash the comment records)."""
    raw = XSD.read_bytes()
    header = re.search(rb"<!-- Vendored test fixture.*?-->\n", raw, re.S)
    assert header is not None and b"https://github.com/windyroad/JUnit-Schema/blob/" in header.group(0)
    recorded = re.search(rb"sha256 of the upstream file\s+([0-9a-f]{64})", header.group(0))
    assert recorded is not None
    upstream = raw[: header.start()] + raw[header.end():]
    assert hashlib.sha256(upstream).hexdigest() == recorded.group(1).decode()
    assert (XSD.parent / "LICENSE-JUnit-Schema").read_text().lstrip().startswith("Apache License")


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_document_validates_and_counts_what_the_report_counts(name: str, schema: Any) -> None:
    report = scenario(name)
    text = render(report, "junit")
    schema.validate(text)
    suite = ET.fromstring(text)
    sampled = sampled_ids(report)
    gated = [r for r in report.results if r.id not in sampled]
    assert suite.tag == "testsuite"
    assert int(suite.get("tests", "")) == len(report.results) == len(suite.findall("testcase"))
    failures = sum(1 for r in gated if r.status == "issue" and not r.waived)
    assert int(suite.get("failures", "")) == failures == len(suite.findall("testcase/failure"))
    errors = sum(1 for r in gated if r.status == "error" and not r.waived)
    assert int(suite.get("errors", "")) == errors == len(suite.findall("testcase/error"))
    skipped = len(sampled) + sum(1 for r in gated if r.waived or r.status in ("unknown", "not-applicable"))
    assert int(suite.get("skipped", "")) == skipped == len(suite.findall("testcase/skipped"))
    assert float(suite.get("time", "")) == pytest.approx(report.duration_s, abs=0.001)
    assert suite.get("hostname") == NOT_XML.sub("", report.host["hostname"])
    for case, r in zip(suite.findall("testcase"), report.results, strict=True):
        assert case.get("classname") == r.domain
        assert case.get("name") == r.id  # stable: subjects (a PID, a path) are in the failure's text
        outcome = list(case)
        if r.id in sampled:
            (skip,) = outcome
            assert skip.tag == "skipped" and skip.get("message") == SAMPLED
        elif r.status == "issue":
            (failure,) = outcome
            assert failure.tag == "failure" and failure.get("type") == r.priority
            assert failure.get("message", "").startswith(f"{r.priority}: ")
            assert NOT_XML.sub("", r.message) in (failure.text or "")
            assert all(NOT_XML.sub("", line) in (failure.text or "") for line in r.evidence)
            assert all(NOT_XML.sub("", s) in (failure.text or "") for s in r.subjects)
        elif r.status in ("unknown", "not-applicable"):
            (skip,) = outcome
            why = "could not tell: " if r.status == "unknown" else "not applicable on this host: "
            assert skip.tag == "skipped" and skip.get("message", "").startswith(why + NOT_XML.sub("", r.message))
        else:
            assert outcome == [], r.id  # ok and not-an-issue pass


def test_hostile_values_are_escaped_and_stripped(schema: Any) -> None:
    text = render(hostile(format_scenarios.report("story")), "junit")
    assert not NOT_XML.search(text)
    schema.validate(text)
    suite = ET.fromstring(text)
    case = suite.find("testcase")
    assert case is not None
    assert case.get("name") == "FW-ABOVE4G-MMIO"
    failure = suite.find("testcase/failure")
    assert failure is not None and "<b>&amp;</b> ]]>" in (failure.text or "")
    # A hostile subject (of a passing check here) never reaches a test name.
    assert all("quoted" not in c.get("name", "") for c in suite.findall("testcase"))
    named = ET.fromstring(render(format_scenarios.report("hostile"), "junit"))
    assert named.get("hostname") == HOSTILE_HOSTNAME


def test_a_waived_issue_is_skipped_and_a_check_error_is_an_error(schema: Any) -> None:
    report = format_scenarios.report("story")
    issue = next(i for i, r in enumerate(report.results) if r.status == "issue")
    other = next(i for i, r in enumerate(report.results) if r.status == "ok")
    results = list(report.results)
    results[issue] = results[issue].with_waiver(Waiver(results[issue].id, "ACS stays on: IOMMU isolation wins",
                                                       expires="2027-06-30"))
    results[other] = replace(results[other], status="error", message="check raised KeyError: 'gpus'")
    changed = replace(report, results=results)
    text = render(changed, "junit")
    schema.validate(text)
    suite = ET.fromstring(text)
    cases = suite.findall("testcase")
    skipped = cases[issue].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "waived issue: ACS stays on: IOMMU isolation wins (until 2027-06-30)"
    error = cases[other].find("error")
    assert error is not None and error.get("message") == "check raised KeyError: 'gpus'"
    assert int(suite.get("failures", "")) == sum(changed.summary()["by_priority"].values())
    assert suite.get("errors") == "1"
