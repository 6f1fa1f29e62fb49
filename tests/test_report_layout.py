"""Text report layout: prose at most COLUMNS wide (80 here), commands never wrapped (one line each);
a longer line is a command or one unbreakable token (a URL, a path)."""

from __future__ import annotations

import pytest

from report_scenarios import BUILDERS as SCENARIOS
from report_scenarios import report
from stackaudit.engine.results import Result
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions


def _commands(results: list[Result]) -> list[str]:
    return [c.line for r in results if r.status == "issue" and r.fix for c in r.fix.commands]


def _config_lines(results: list[Result]) -> set[str]:
    """Config lines of the fixes' persistent forms: shown as written, like commands (never wrapped)."""
    return {p.line for r in results if r.status == "issue" and r.fix for s in r.fix.steps for p in s.persistent
            if p.line}


@pytest.mark.parametrize("verbose", [False, True])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_prose_fits_80_columns_and_commands_are_whole_lines(scenario: str, verbose: bool,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    rep = report(scenario)
    lines = render(rep, "text", options=RenderOptions(argv=["audit", "--from", f"{scenario}.tar.gz"],
                                                      verbose=verbose)).splitlines()
    command_lines = {line.strip()[2:] for line in lines if line.lstrip().startswith("$ ")}
    # Wider lines are commands, or one token that cannot be broken (a URL, a long path).
    config = _config_lines(rep.results)
    too_wide = [line for line in lines if len(line) > 80 and not line.lstrip().startswith("$ ")
                and len(line.split()) > 1 and line.strip() not in config]
    assert not too_wide, too_wide
    assert set(_commands(rep.results)) <= command_lines


def test_width_follows_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    rep = report("amd-bad-knobs")
    monkeypatch.setenv("COLUMNS", "120")
    wide = render(rep, "text").splitlines()
    monkeypatch.setenv("COLUMNS", "80")
    narrow = render(rep, "text").splitlines()
    assert max(len(line) for line in wide if not line.lstrip().startswith("$ ")) > 80
    assert len(narrow) > len(wide)


def test_a_long_command_is_not_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    from stackaudit.checks.registry import Fix
    from stackaudit.engine.runner import Report
    from stackaudit.fixes.model import step

    long_command = "setpci -s 0000:c1:00.0 CAP_EXP+0x08.w=5000:7000 " + " ".join(f"--flag-{i}" for i in range(12))
    r = Result(id="PCIE-MRRS", domain="PCIE", title="t", status="issue", priority="P1", severity="medium",
               message="MaxReadReq 512 bytes on 0000:c1:00.0", fix=Fix.of(step("Raise it", long_command)))
    rep = Report(source={"kind": "live"}, host={"hostname": "h", "container": "none", "gpus": {}}, results=[r])
    monkeypatch.setenv("COLUMNS", "80")
    lines = render(rep, "text").splitlines()
    assert any(line.strip() == f"$ {long_command}" for line in lines) and len(long_command) > 80
