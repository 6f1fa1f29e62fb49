"""Escapes in host values (review 2026-12, L2, L3): a colour or a screen clear in a value reaches neither a
terminal (the renderer's own colours are added after each value is escaped) nor a text file written with -o."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from report_scenarios import report
from stackaudit.cli.main import main
from stackaudit.cli.output import emit
from stackaudit.report.json_report import read_audit_report
from stackaudit.report.render import render

PAYLOAD = "\x1b[2J\x1b[H\x1b[1;32mALL CHECKS PASSED\x1b[0m\x1b[8m"


def _plain(tmp: Path) -> Path:
    """The JSON report of the bare-metal scenario with many issues (tests/report_scenarios.py), as audit writes it."""
    path = tmp / "plain.json"
    path.write_text(render(report("amd-bad-knobs"), "json"))
    return path


def _crafted(tmp: Path) -> Path:
    doc = json.loads(_plain(tmp).read_text())
    doc["results"][0]["message"] = "node gpu01 " + PAYLOAD + " hidden"
    doc["host"]["hostname"] = "gpu" + PAYLOAD
    path = tmp / "crafted.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_values_colour_never_reaches_a_colour_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from stackaudit.report.json_report import report_from_json

    report = report_from_json(read_audit_report(str(_crafted(tmp_path)), "crafted", "report"))
    capsys.readouterr()
    emit(render(report, "text", color=True), None, colour=True)
    out = capsys.readouterr().out
    assert "\x1b[1;32mALL" not in out and "\x1b[8m" not in out and "\x1b[2J" not in out
    assert "\\x1b[1;32mALL CHECKS PASSED" in out
    assert "\x1b[" in out  # the renderer's own colours are still there


def test_text_written_with_o_has_no_raw_escape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.txt"
    assert main(["report", str(_crafted(tmp_path)), "--format", "text", "-o", str(out)]) in (0, 1)
    text = out.read_text()
    assert "\x1b" not in text and "\\x1b[2J" in text


def test_compare_text_written_with_o_has_no_raw_escape(tmp_path: Path) -> None:
    crafted = _crafted(tmp_path)
    out = tmp_path / "compare.txt"
    assert main(["compare", str(_plain(tmp_path)), str(crafted), "--format", "text",
                 "-o", str(out)]) in (0, 1)
    text = out.read_text()
    assert "\x1b" not in text and "\\x1b[" in text
