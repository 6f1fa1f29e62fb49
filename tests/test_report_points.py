"""The points of issue 10's "The report" not covered by the other tests/test_report_*.py files, on whole-host
scenarios: one sentence of verdict in every format, one evidence line per finding under its title, checks that
cannot apply here (another CPU vendor, a VM guest's host-only checks) not-applicable and out of the default
output, the new scenario's header at COLUMNS=80 with --measured."""

from __future__ import annotations

import json

import pytest

from report_scenarios import report, snapshot
from stackaudit.cli.main import main
from stackaudit.report.header import evidence_line, finding_title
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions

SCENARIOS = ("amd-bad-knobs", "proxmox-lxc", "rtx-pro-6000-lxc", "rtx-pro-6000-lxc-fixed")


def _flat(text: str) -> str:
    return " ".join(text.replace("**", "").replace("\\", "").split())


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_verdict_is_one_sentence_in_every_format(scenario: str) -> None:
    rep = report(scenario)
    verdict = json.loads(render(rep, "json"))["verdict"]
    assert "\n" not in verdict and verdict.strip() == verdict
    top = rep.issues()[0] if rep.issues() else None
    assert verdict.startswith("fix first: ") == (top is not None)
    for fmt in ("text", "markdown"):
        out = render(rep, fmt)
        assert out.count("Verdict:") == 1 and _flat(verdict) in _flat(out)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_finding_is_titled_by_what_it_found_with_one_evidence_line(scenario: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Title: the finding, the check ID a tag; under it, once, the verbatim quote then the value in units."""
    monkeypatch.setenv("COLUMNS", "400")  # no wrapping: each line of the report whole
    rep = report(scenario)
    lines = render(rep, "text").splitlines()
    for r in rep.issues():
        title_at = next(i for i, line in enumerate(lines) if f"[{r.id}]" in line and r.priority in line)
        assert finding_title(r) in lines[title_at] and not lines[title_at].lstrip().startswith(r.id)
        evidence = evidence_line(r)
        if not evidence:
            continue
        block = lines[title_at + 1:title_at + 4]
        # Compared word by word: a line of the report is one visible line (render.text.one_line).
        assert sum(1 for line in block if line.split() == evidence.split()) == 1, (r.id, evidence, block)


def test_evidence_shows_sizes_in_binary_units() -> None:
    """The engine's 62.5 GiB memlock is shown as 62.5 GiB wherever a size is the value."""
    from stackaudit.report.header import value_text

    memlock = next(r for r in report("rtx-pro-6000-lxc").results if r.id == "CTR-MEMLOCK")
    assert any("67108864000" in line for line in memlock.evidence)  # the limits file's own figure, verbatim
    assert "62.5 GiB" in memlock.message
    assert value_text({"memlock_bytes": 67_108_864_000}) == "memlock_bytes 62.5 GiB"


@pytest.mark.parametrize(("scenario", "cannot_apply"), [
    ("rtx-pro-6000-lxc", ["KVER-INTEL-PSTATE", "KERN-EPP"]),  # AMD EPYC on acpi-cpufreq
    ("intel-well-tuned", ["KERN-AMD-PSTATE", "KVER-AMD-ZEN5"]),  # Intel Xeon
    ("kvm-vm", ["KERN-CPU-BOOST", "KERN-CSTATES", "FW-IOMMU-MODE", "FW-ACS-P2P"]),  # host-only checks in a guest
])
def test_checks_that_cannot_apply_here_are_not_applicable_and_leave_the_default_output(
        scenario: str, cannot_apply: list[str]) -> None:
    rep = report(scenario)
    by_id = {r.id: r for r in rep.results}
    assert all(by_id[cid].status == "not-applicable" for cid in cannot_apply), {
        cid: by_id[cid].status for cid in cannot_apply}
    default = render(rep, "text") + render(rep, "markdown")
    verbose = render(rep, "text", options=RenderOptions(verbose=True))
    assert not any(cid in default for cid in cannot_apply)
    listed = verbose[verbose.index("Not applicable"):]
    assert all(cid in listed and by_id[cid].message for cid in cannot_apply)  # the JSON result says why


def test_the_new_scenario_fits_80_columns_with_measured(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    snap = snapshot("rtx-pro-6000-lxc")
    capsys.readouterr()
    assert main(["audit", "--from", str(snap), "--measured", "41.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Commands (`$ `) and the config lines a fix keeps verbatim (a kernel command line) are never wrapped.
    verbatim = {keep.line for r in report("rtx-pro-6000-lxc").results if r.fix
                for step in r.fix.steps for keep in step.persistent if keep.line}
    wide = [line for line in lines if len(line) > 80 and not line.lstrip().startswith("$ ")
            and line.strip() not in verbatim and len(line.split()) > 1]
    assert not wide, wide
    assert any(line.startswith("Measured: 41.5 tok/s per stream") for line in lines)


@pytest.mark.parametrize("scenario", ["rtx-pro-6000-lxc", "rtx-pro-6000-lxc-fixed", "amd-bad-knobs", "proxmox-lxc"])
def test_every_command_line_is_a_command_without_prose(scenario: str) -> None:
    """A `$ ` line of the text report, or a line of a fenced block in Markdown, pastes into a shell as it is."""
    rep = report(scenario)
    text_commands = [line.strip()[2:] for line in render(rep, "text").splitlines() if line.lstrip().startswith("$ ")]
    markdown = render(rep, "markdown")
    fenced = [line for block in markdown.split("```sh\n")[1:] for line in block.split("```")[0].splitlines()]
    assert text_commands and fenced
    prose = [c for c in text_commands + fenced if " — " in c or c.rstrip().endswith((".", ";"))]
    assert not prose, prose
