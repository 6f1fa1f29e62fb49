"""A waiver naming no check (a typo) is reported with the nearest check ID, like an expired one; it is
never applied and never silently ignored."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from stackaudit.engine.results import Waiver
from stackaudit.report.waivers import nearest_check_id, unknown_waivers
from test_core_cli import NUMA_PASTE  # the two outputs KERN-NUMA-BALANCING reads, as pasted

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "report.schema.json").read_text(encoding="utf-8"))
TYPO = '[[waiver]]\nid = "KERN-NUMA-BALANCNG"\nreason = "pinned per node by the scheduler"\n'


def test_nearest_id_of_a_typo_and_none_for_nonsense() -> None:
    known = ["KERN-NUMA-BALANCING", "KERN-THP", "FW-IOMMU-MODE"]
    assert nearest_check_id("kern-numa-balancng", known) == "KERN-NUMA-BALANCING"
    assert nearest_check_id("FW-IOMU-MODE", known) == "FW-IOMMU-MODE"
    assert nearest_check_id("ZZZZZZZZ", known) == ""


def test_only_waivers_naming_no_registered_check_are_unknown() -> None:
    waivers = [Waiver("KERN-THP", "a real ID"), Waiver("KERN-TPH", "a typo"), Waiver("NO-SUCH-THING-AT-ALL", "x")]
    found = unknown_waivers(waivers)  # the whole catalogue
    assert [(w.id, nearest) for w, nearest in found] == [("KERN-TPH", "KERN-THP"), ("NO-SUCH-THING-AT-ALL", "")]


@pytest.fixture
def typo_audit(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    (tmp_path / "report.txt").write_text(NUMA_PASTE)
    (tmp_path / "stackaudit.toml").write_text(TYPO)
    monkeypatch.chdir(tmp_path)
    return lambda *args: cli("audit", "--from", "report.txt", "--select", "KERN-NUMA-BALANCING", *args)


def test_json_reports_the_unknown_id_with_the_nearest_and_does_not_apply_it(typo_audit) -> None:  # type: ignore[no-untyped-def]
    run = typo_audit("--fail-on", "P2", "--format", "json")
    data = json.loads(run.out)
    jsonschema.validate(data, SCHEMA)
    assert run.rc == 1 and data["results"][0]["status"] == "issue" and data["results"][0]["waived"] is None
    [unknown] = data["summary"]["unknown_waivers"]
    assert unknown["id"] == "KERN-NUMA-BALANCNG" and unknown["nearest"] == "KERN-NUMA-BALANCING"


def test_text_and_markdown_name_the_unknown_id_and_the_nearest(typo_audit) -> None:  # type: ignore[no-untyped-def]
    text = " ".join(typo_audit().out.split())  # the line wraps at the terminal's width
    assert ("unknown check ID in a waiver: KERN-NUMA-BALANCNG (nearest: KERN-NUMA-BALANCING): pinned per node by"
            " the scheduler — not applied") in text
    markdown = typo_audit("--format", "markdown").out
    assert "## Waivers naming no check" in markdown
    assert "KERN-NUMA-BALANCNG (nearest: KERN-NUMA-BALANCING)" in markdown


def test_a_valid_waiver_is_not_reported_as_unknown(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "report.txt").write_text(NUMA_PASTE)
    (tmp_path / "stackaudit.toml").write_text(TYPO.replace("BALANCNG", "BALANCING"))
    monkeypatch.chdir(tmp_path)
    data = json.loads(cli("audit", "--from", "report.txt", "--select", "KERN-NUMA-BALANCING", "--format", "json").out)
    assert "unknown_waivers" not in data["summary"] and data["results"][0]["waived"]
