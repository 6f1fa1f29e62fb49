"""`--format junit`: one test case per check, in the Ant/Jenkins JUnit XML that CI systems read (docs/report.md).

One `<testsuite>`: a check is a `<testcase>` with `classname` its domain and `name` its ID (its subjects are in
the failure's text: a PID in a name would start a new test in CI history every run). An issue is a `<failure>` carrying the finding and its evidence; a check that errored is an
`<error>`; unknown, not-applicable and waived results are `<skipped>`, the message saying which and why;
ok and not-an-issue pass. A check of a sampled value (CPU pressure, clocks) is `<skipped>` with one fixed
message whatever it found, unless `--gate-samples`. When facts or commands timed out, one more test case,
`stackaudit.fact-collection`, is an `<error>` listing them (the report is partial). The document validates against the Ant JUnit schema (tests/data/junit/).

Every value that comes from the host goes through `xml_text`: XML 1.0 cannot carry most control characters
even escaped, so they are dropped; ElementTree escapes the rest (`&`, `<`, `>`, quotes, line breaks in
attributes).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.render.text import show_value
from stackaudit.report.header import finding_title
from stackaudit.report.sections import RenderOptions, sampled_ids

# Not allowed in XML 1.0 (https://www.w3.org/TR/xml/#charsets): C0 controls but tab, LF and CR, lone
# surrogates, U+FFFE/U+FFFF. DEL and C1 controls are allowed but "discouraged": dropped too.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: object) -> str:
    return _NOT_XML.sub("", "" if value is None else str(value))


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def testcase_name(r: Result) -> str:
    """The check ID: a stable name for CI test history (subjects, which may hold a PID, go in the message)."""
    return r.id


# The test case that errs when facts or commands timed out (the report is partial).
COLLECTION_TEST = "fact-collection"
SAMPLED = "sampled value: varies from run to run, never gates by default (audit --gate-samples gates it)"


def _failure_text(r: Result) -> str:
    lines = [r.message]
    if r.subjects:
        lines.append(f"Subjects: {', '.join(r.subjects)}")
    if r.evidence:
        lines += ["", "Evidence:", *(f"  {line}" for line in r.evidence)]
    if r.actual not in (None, "", [], {}):
        lines.append(f"Observed: {show_value(r.actual)}")
    if r.expected not in (None, "", [], {}):
        lines.append(f"Expected: {show_value(r.expected)}")
    if r.fix is not None and r.fix.runtime:
        lines.append(f"Fix ({r.fix.cost}): {r.fix.runtime}")
    lines.append(f"Explain: stackaudit explain {r.id}")
    return "\n".join(lines)


def _outcome(case: ET.Element, r: Result, sampled: frozenset[str]) -> None:
    if r.id in sampled:
        # Whatever this run's sample said: the message stays the same from run to run.
        ET.SubElement(case, "skipped", message=SAMPLED)
    elif r.waived and r.waiver is not None:
        until = f" (until {r.waiver.expires})" if r.waiver.expires else ""
        ET.SubElement(case, "skipped", message=xml_text(f"waived {r.status}: {r.waiver.reason}{until}"))
    elif r.status == "issue":
        failure = ET.SubElement(case, "failure", type=xml_text(r.priority or "issue"),
                                message=xml_text(f"{r.priority}: {finding_title(r)}"))
        failure.text = xml_text(_failure_text(r))
    elif r.status == "error":
        error = ET.SubElement(case, "error", type="check-error", message=xml_text(r.message))
        error.text = xml_text(r.message)
    elif r.status == "unknown":
        hint = f" (to tell: {r.hint})" if r.hint else ""
        ET.SubElement(case, "skipped", message=xml_text(f"could not tell: {r.message}{hint}"))
    elif r.status == "not-applicable":
        ET.SubElement(case, "skipped", message=xml_text(f"not applicable on this host: {r.message}"))


def counts(report: Report, sampled: frozenset[str] = frozenset()) -> dict[str, int]:
    """The testsuite's counts, from the same results the report's summary counts (checks of sampled
    values, unless gated, are skipped)."""
    results = [r for r in report.results if r.id not in sampled]
    collection = 1 if report.timed_out else 0  # the COLLECTION_TEST case
    return {
        "tests": len(report.results) + collection,
        "failures": sum(1 for r in results if r.status == "issue" and not r.waived),
        "errors": collection + sum(1 for r in results if r.status == "error" and not r.waived),
        "skipped": len(sampled) + sum(1 for r in results if r.waived or r.status in ("unknown", "not-applicable")),
    }


def _timestamp(stamp: str) -> str:
    """The schema's timestamp: ISO 8601 to the second, without a zone (the report's time is UTC)."""
    match = re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", stamp or "")
    return match.group(0) if match else "1970-01-01T00:00:00"


def render_junit(report: Report, options: RenderOptions | None = None) -> str:
    sampled = sampled_ids(report, options)
    hostname = xml_text(report.host.get("hostname")).strip() or "unknown"
    suite = ET.Element("testsuite", {
        "name": "stackaudit audit",
        "timestamp": _timestamp(report.generated_at),
        "hostname": hostname,
        **{key: str(value) for key, value in counts(report, sampled).items()},
        "time": _seconds(report.duration_s),
    })
    properties = ET.SubElement(suite, "properties")
    for name, value in (("stackaudit.version", report.tool.get("version", "")),
                        ("source", report.source.get("kind", "")),
                        ("source.files", ", ".join(str(f) for f in report.source.get("files") or [])),
                        ("kernel", report.host.get("kernel") or ""),
                        ("container", report.host.get("container") or "")):
        ET.SubElement(properties, "property", name=name, value=xml_text(value))
    for r in report.results:
        case = ET.SubElement(suite, "testcase", classname=xml_text(r.domain) or "unknown",
                             name=xml_text(testcase_name(r)), time=_seconds(r.duration_ms / 1000))
        _outcome(case, r, sampled)
    if report.timed_out:  # a partial read errs in CI as it does with --fail-on
        case = ET.SubElement(suite, "testcase", classname="stackaudit", name=COLLECTION_TEST, time="0.000")
        error = ET.SubElement(case, "error", type="timed-out",
                              message=xml_text(f"partial: {', '.join(report.partial())}"))
        error.text = xml_text("\n".join(report.timed_out))
    out = ET.SubElement(suite, "system-out")
    out.text = xml_text("\n".join(f"{t}: timed out" for t in report.timed_out)
                        + "".join(f"\nfact failed: {e}" for e in report.fact_errors)).strip()
    ET.SubElement(suite, "system-err")
    ET.indent(suite, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
