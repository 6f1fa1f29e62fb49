"""Machine outputs that do not flap (issue 31): Prometheus and JUnit name checks by their ID only, a status
is a StateSet, not-applicable series are left out by default, and sampled values never gate unless asked."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from stackaudit.checks.registry import sample_checks
from stackaudit.cli.main import main
from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.errors import EXIT_FINDINGS, EXIT_OK
from stackaudit.report.prometheus import STATUS_METRIC
from stackaudit.report.render import exit_code, render
from stackaudit.report.sections import RenderOptions

parser = pytest.importorskip("prometheus_client.parser", reason="prometheus_client is a test extra")


def _result(check_id: str, status: str, priority: str | None = None, subjects: tuple[str, ...] = ()) -> Result:
    return Result(id=check_id, domain=check_id.split("-")[0], title="t", status=status,
                  message=f"{check_id} message", priority=priority, subjects=subjects)


def _report() -> Report:
    return Report(source={"kind": "live"}, host={"hostname": "h"}, results=[
        _result("KERN-SCHED-KNOBS", "issue", "P1", ("cpu-pressure",)),  # a sampled value
        _result("RT-ULIMIT-NOFILE", "issue", "P1", ("pid 4101",)),
        _result("DRV-XID", "not-applicable"),
        _result("KERN-THP", "ok"),
    ])


def _states(text: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for family in parser.text_string_to_metric_families(text):
        if family.name == STATUS_METRIC:
            for s in family.samples:
                out.setdefault(s.labels["id"], {})[s.labels[STATUS_METRIC]] = s.value
    return out


def test_a_sampled_issue_never_gates_fail_on_or_junit_unless_asked() -> None:
    report = replace(_report(), results=[r for r in _report().results if r.id != "RT-ULIMIT-NOFILE"])
    assert exit_code(report, "P2") == EXIT_OK
    assert exit_code(report, "P2", gate_samples=True) == EXIT_FINDINGS
    suite = ET.fromstring(render(report, "junit"))
    assert suite.get("failures") == "0" and suite.find("testcase[@name='KERN-SCHED-KNOBS']/skipped") is not None
    gated = ET.fromstring(render(report, "junit", options=RenderOptions(gate_samples=True)))
    assert gated.get("failures") == "1" and gated.find("testcase[@name='KERN-SCHED-KNOBS']/failure") is not None
    assert "KERN-SCHED-KNOBS" not in _states(render(report, "prometheus"))
    assert _states(render(report, "prometheus", options=RenderOptions(gate_samples=True)))["KERN-SCHED-KNOBS"]["issue"] == 1


def test_not_applicable_checks_are_left_out_of_prometheus_unless_verbose() -> None:
    assert set(_states(render(_report(), "prometheus"))) == {"RT-ULIMIT-NOFILE", "KERN-THP"}
    verbose = _states(render(_report(), "prometheus", options=RenderOptions(verbose=True)))
    assert verbose["DRV-XID"] == {"issue": 0, "ok": 0, "not-an-issue": 0, "unknown": 0, "not-applicable": 1, "error": 0}


def test_a_pid_subject_is_in_no_label_and_no_test_name() -> None:
    prom = render(_report(), "prometheus")
    assert "4101" not in prom
    junit = ET.fromstring(render(_report(), "junit"))
    assert [c.get("name") for c in junit.findall("testcase")] == [r.id for r in _report().results]
    failure = junit.find("testcase[@name='RT-ULIMIT-NOFILE']/failure")
    assert failure is not None and "Subjects: pid 4101" in (failure.text or "")


def _masked(fmt: str, text: str) -> str:
    if fmt == "prometheus":
        return re.sub(r"^(stackaudit_audit_(?:timestamp|duration)_seconds) \S+$", r"\1 <t>", text, flags=re.M)
    return re.sub(r' (timestamp|time)="[^"]*"', r' \1="<t>"', text)


@pytest.mark.parametrize("fmt", ["prometheus", "junit"])
def test_two_live_runs_give_the_same_output_but_for_times(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for _ in range(2):
        # A generous deadline: a read timed out on a loaded box would (rightly) change the output.
        assert main(["audit", "-q", "--format", fmt, "--deadline", "120", "--command-timeout", "60"]) in (
            EXIT_OK, EXIT_FINDINGS)
        outputs.append(_masked(fmt, capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert not re.search(rf"\bpid {os.getpid()}\b", outputs[0]) and "[pid " not in outputs[0]


def test_no_engine_here_nothing_about_the_audit_itself_gates(capsys: pytest.CaptureFixture[str]) -> None:
    """The proof on a box with no engine: no result names the audit's PID, RT-ULIMIT-NOFILE is no P1, and
    --fail-on P1 exits 0 unless the host itself has a P0/P1 finding (none on a clean CPU-only box)."""
    import json

    code = main(["audit", "-q", "--fail-on", "P1", "--format", "json", "--deadline", "120", "--command-timeout", "60"])
    doc = json.loads(capsys.readouterr().out)
    if doc["host"]["engine_processes"] != []:
        pytest.skip("a serving engine runs on this machine")
    assert not re.search(rf"\bpid {os.getpid()}\b", json.dumps(doc["results"]))
    nofile = next(r for r in doc["results"] if r["id"] == "RT-ULIMIT-NOFILE")
    assert nofile["priority"] in (None, "P2") and not any(s.startswith("pid ") for s in nofile["subjects"])
    blocking = [r["id"] for r in doc["results"] if r["status"] == "issue" and r["priority"] in ("P0", "P1")
                and r["id"] not in sample_checks()]
    assert code == (EXIT_FINDINGS if blocking or doc["summary"]["partial"] else EXIT_OK), blocking


def test_a_sampled_value_leads_the_verdict_only_when_nothing_else_is_found() -> None:
    from stackaudit.report.sections import sections, top_finding

    # A P1 sample (one moment of CPU pressure) and a P2 that is not a sample: the P2 leads.
    report = Report(source={"kind": "live"}, host={"hostname": "h"}, results=[
        _result("KERN-SCHED-KNOBS", "issue", "P1", ("cpu-pressure",)),
        _result("KERN-THP", "issue", "P2"),
    ])
    top = top_finding(sections(report))
    assert top is not None and top.id == "KERN-THP"
    # The sample alone still leads: it is what the source shows.
    alone = Report(source={"kind": "live"}, host={"hostname": "h"}, results=report.results[:1])
    top = top_finding(sections(alone))
    assert top is not None and top.id == "KERN-SCHED-KNOBS"
