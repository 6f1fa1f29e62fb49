"""`--format prometheus`: what node_exporter's textfile collector reads, parsed back with prometheus_client's
own text parser on the story host, an HGX snapshot, a host without GPUs and hostile host values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import format_scenarios
from format_scenarios import HOSTILE_HOSTNAME, hostile
from report_scenarios import snapshot
from stackaudit import __version__
from stackaudit.checks.registry import load_all
from stackaudit.cli.main import main
from stackaudit.engine.runner import Report
from stackaudit.report.prometheus import (
    FAMILIES,
    STATUS_METRIC,
    STATUSES,
    epoch_seconds,
)
from stackaudit.report.render import render
from stackaudit.report.sections import sampled_ids

# Legacy metric and label names (what every Prometheus version reads).
METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")

parser = pytest.importorskip("prometheus_client.parser", reason="prometheus_client is a test extra")

# The control characters the renderer drops (everything but the line feed, which it escapes).
DROPPED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def families(text: str) -> dict[str, object]:
    return {f.name: f for f in parser.text_string_to_metric_families(text)}


def scenario(name: str) -> Report:
    if name == "hostile-values":
        return hostile(format_scenarios.report("story"))
    return format_scenarios.report(name)


SCENARIOS = (*format_scenarios.NAMES, "hostile-values")


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_output_parses_and_says_what_the_report_says(name: str) -> None:
    report = scenario(name)
    text = render(report, "prometheus")
    assert text.endswith("\n")  # the collector ignores a file without its final line feed
    parsed = families(text)
    assert set(parsed) == set(FAMILIES)
    for line in text.splitlines():  # a host value never splits a line: every line is a comment or a sample
        assert line.startswith("# ") or re.match(r"[a-z_:]+(\{.*\})? \S+$", line), line
    for name_, family in parsed.items():
        assert METRIC_NAME.match(name_) and family.type == "gauge" and family.documentation
        for sample in family.samples:
            assert sample.timestamp is None  # the textfile collector rejects a file with timestamps
            assert all(LABEL_NAME.match(label) for label in sample.labels)

    sampled = sampled_ids(report)
    shown = [r for r in report.results if r.status != "not-applicable" and r.id not in sampled]
    states = parsed[STATUS_METRIC].samples
    assert len(states) == len(shown) * len(STATUSES)  # a StateSet: every status of every check shown
    for r in shown:
        mine = {s.labels[STATUS_METRIC]: s.value for s in states if s.labels["id"] == r.id}
        assert mine == {s: float(s == r.status) for s in STATUSES}
    for sample in states:  # only the check's ID, its domain and the state: no subject, PID or message
        assert set(sample.labels) == {"id", "domain", STATUS_METRIC}
    priorities = {s.labels["id"]: s.value for s in parsed["stackaudit_check_priority"].samples}
    assert priorities == {r.id: float(int(r.priority[1])) for r in shown if r.status == "issue" and r.priority}
    counted = [r for r in report.results if r.id not in sampled]
    per_priority = {s.labels["priority"]: s.value for s in parsed["stackaudit_issues"].samples}
    assert per_priority == {p: float(sum(1 for r in counted if r.status == "issue" and not r.waived and r.priority == p))
                            for p in ("P0", "P1", "P2")}  # P0, P1, P2 even when 0
    per_status = {s.labels["status"]: s.value for s in parsed["stackaudit_checks"].samples}
    assert per_status == {s: float(sum(1 for r in counted if r.status == s)) for s in STATUSES}
    assert parsed["stackaudit_checks_waived"].samples[0].value == sum(1 for r in counted if r.waived)
    assert parsed["stackaudit_checks_sampled"].samples[0].value == len(sampled)
    assert parsed["stackaudit_audit_partial"].samples[0].value == float(bool(report.partial()))
    (info,) = parsed["stackaudit_audit_info"].samples
    assert info.labels["version"] == __version__
    assert info.labels["hostname"] == DROPPED.sub("", report.host["hostname"])
    (duration,) = parsed["stackaudit_audit_duration_seconds"].samples
    assert duration.value == pytest.approx(report.duration_s, abs=0.001)
    (stamp,) = parsed["stackaudit_audit_timestamp_seconds"].samples
    assert stamp.value == epoch_seconds(report.generated_at)


def test_hostile_values_come_back_whole_but_for_the_control_characters() -> None:
    text = render(hostile(format_scenarios.report("story")), "prometheus")
    assert not DROPPED.search(text)  # no NUL, escape sequence or surrogate reaches the file
    parsed = families(text)
    assert "quoted" not in "".join(str(s.labels) for s in parsed[STATUS_METRIC].samples)  # subjects are no label
    (info,) = parsed["stackaudit_audit_info"].samples
    assert info.labels["hostname"].startswith("evil\na \"quoted\"") and "\x1b" not in info.labels["hostname"]
    # The name read from the host's own files, quote and backslash included.
    (named,) = families(render(format_scenarios.report("hostile"), "prometheus"))["stackaudit_audit_info"].samples
    assert named.labels["hostname"] == HOSTILE_HOSTNAME


def test_audit_writes_a_prom_file_for_the_textfile_collector(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "stackaudit.prom"
    assert main(["audit", "--from", str(snapshot("rtx-pro-6000-lxc")), "--format", "prometheus",
                 "--output", str(out)]) == 0
    assert capsys.readouterr().out == ""
    parsed = families(out.read_text(encoding="utf-8"))
    shown = {s.labels["id"] for s in parsed[STATUS_METRIC].samples}
    assert shown and shown <= set(load_all())  # the applicable checks, one StateSet each
    assert [p.name for p in tmp_path.iterdir()] == ["stackaudit.prom"]  # no temporary file left behind
