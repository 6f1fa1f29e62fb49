"""Goldens of `stackaudit audit --from SNAPSHOT` (tests/golden/README.md has the layout).

- Status goldens (tests/golden/status/SCENARIO.json): `{ID: [status, priority]}` of every whole-host scenario.
  They prove that behaviour is unchanged; a check's new wording does not touch them.
- Rendered goldens (tests/golden/rendered/rtx-pro-6000-lxc.*): the story scenario in every format, at COLUMNS=80,
  with volatile values (the time, the version, durations) masked. The JSON one has each result's provenance
  collapsed to its count; provenance order and wording are tested on their own below.

When a change is intended, refresh with `pytest tests/test_report_golden.py --update-golden` and review the diff.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from report_scenarios import BUILDERS, snapshot
from stackaudit import __version__
from stackaudit.cli.main import main

GOLDEN = Path(__file__).resolve().parent / "golden"
# Every whole-host scenario: bare metal, LXC on a Proxmox node, step 3's acceptance scenario
# (tests/scenarios_rtx_pro_6000.py: 8x RTX PRO 6000 under SGLang TP8 in LXC) and its fixed twin, and the rest.
SCENARIOS = tuple(sorted(BUILDERS))
# The one scenario rendered in every format: it has issues of every priority, a container and a PCIe picture.
STORY = "rtx-pro-6000-lxc"
EXTENSIONS = {"text": "txt", "markdown": "md", "html": "html", "json": "json", "prometheus": "prom",
              "junit": "junit.xml"}


def mask(text: str) -> str:
    """The time, the version and durations as placeholders, in every format's spelling of them."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)", "<time>", text)
    text = text.replace(f"stackaudit {__version__}", "stackaudit <version>")
    text = re.sub(rf'("version": |version=|value=)"{re.escape(__version__)}"', r'\1"<version>"', text)
    text = re.sub(r"(\d+ checks in )\d+\.\d+ s", r"\1<duration> s", text)
    text = re.sub(r'"duration_s": [\d.]+', '"duration_s": "<duration>"', text)
    text = re.sub(r'timestamp="[^"]*"', 'timestamp="<time>"', text)  # junit
    text = re.sub(r' time="[\d.]+"', ' time="<time>"', text)
    return re.sub(r"^(stackaudit_audit_(?:timestamp|duration)_seconds) \S+$", r"\1 <time>", text, flags=re.M)


def statuses(doc: dict[str, Any]) -> dict[str, object]:
    """`{ID: [status, priority]}` of a JSON report."""
    ids = [r["id"] for r in doc["results"]]
    assert len(ids) == len(set(ids)), "one result per check"
    return {r["id"]: [r["status"], r["priority"]] for r in doc["results"]}


def collapse_provenance(text: str) -> str:
    """The JSON report with each result's provenance list replaced by its count (`<3 sources>`)."""
    doc = json.loads(text)
    for r in doc["results"]:
        r["provenance"] = f"<{len(r['provenance'])} sources>"
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def audit(scenario: str, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["audit", "--from", str(snapshot(scenario)), "--format", fmt]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_statuses(scenario: str, golden: Any, capsys: pytest.CaptureFixture[str]) -> None:
    golden(GOLDEN / "status" / f"{scenario}.json", statuses(json.loads(audit(scenario, "json", capsys))))


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_golden_render(fmt: str, golden: Any, capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    got = mask(audit(STORY, fmt, capsys))
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", got) and "<time>" in got and "<version>" in got
    if fmt == "json":
        got = collapse_provenance(got)
    golden(GOLDEN / "rendered" / f"{STORY}.{EXTENSIONS[fmt]}", got)


def test_every_golden_file_has_a_test(update_golden: bool) -> None:
    """Each file in tests/golden is one a golden test writes (tests/golden/README.md): a file whose scenario or
    format is gone is compared by nobody, so delete it. (Under --update-golden the other tests may not have
    written theirs yet: only a file too many fails then.)"""
    import test_compare_cli as compare
    import test_fix_plan_golden as plans

    expected = {"README.md", *(f"status/{s}.json" for s in SCENARIOS),
                *(f"rendered/{STORY}.{e}" for e in EXTENSIONS.values()),
                *(f"status/plan-{s}.json" for s in plans.SCENARIOS),
                *(f"rendered/plan-{plans.STORY}.{e}" for e in plans.EXTENSIONS.values()),
                *(f"status/compare-{p}.json" for p in compare.PAIRS),
                *(f"rendered/compare-{compare.RENDERED}.{e}" for e in compare.EXTENSIONS.values()),
                # tests/test_investigate_cli.py (not imported here: it is skipped without the openai SDK)
                f"rendered/investigate-{STORY}.txt", f"rendered/investigate-{STORY}.json"}
    present = {str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*") if p.is_file()}
    assert not present - expected, f"no test writes {sorted(present - expected)}: delete them"
    assert update_golden or present == expected, f"missing {sorted(expected - present)}: run with --update-golden"


# --- provenance, which the rendered JSON golden collapses ----------------------------------------------------

def test_provenance_is_in_one_order_without_repeats(capsys: pytest.CaptureFixture[str]) -> None:
    """Each result's sources: pasted first, then by pasted file, lines and source title; each once."""
    doc = json.loads(audit(STORY, "json", capsys))
    read = [r for r in doc["results"] if r["provenance"]]
    assert len(read) > 50
    for r in read:
        prov = r["provenance"]
        keys = [(p["origin"] != "pasted", p["file"] or "", p["lines"] or [0, 0], p["source"]) for p in prov]
        assert keys == sorted(keys), r["id"]
        assert len({json.dumps(p, sort_keys=True) for p in prov}) == len(prov), r["id"]
        assert {p["origin"] for p in prov} == {"snapshot"} and all(p["source"] for p in prov), r["id"]


def test_provenance_names_the_sources_a_check_read(capsys: pytest.CaptureFixture[str]) -> None:
    """KERN-CSTATES read the kernel command line, the cpuidle tree and systemd-detect-virt, in that order, each
    whole; its finding names the first and counts the rest in one line."""
    doc = json.loads(audit(STORY, "json", capsys))
    (cstates,) = [r for r in doc["results"] if r["id"] == "KERN-CSTATES"]
    assert cstates["provenance"] == [
        {"source": source, "origin": "snapshot", "whole": True, "file": None, "lines": None}
        for source in ("/proc/cmdline", "/sys/devices/system/cpu", "`systemd-detect-virt --vm`")]
    text = audit(STORY, "text", capsys)
    finding = text[text.index("[KERN-CSTATES]"):].splitlines()
    assert finding[1].startswith("      CPU 0 idle states")  # the reason, where no line is quoted
    assert "      from snapshot /proc/cmdline and 2 more" in finding[2:6]
