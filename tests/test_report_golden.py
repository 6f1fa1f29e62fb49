"""Golden renders (text, markdown, json) of four whole-host scenarios, as `stackaudit audit --from
SNAPSHOT` prints them at COLUMNS=80. Volatile values (the time, the version, durations) are masked.

A change to the renderers or to a check's words shows here as a diff; when it is intended, refresh the
files with `pytest tests/test_report_golden.py --update-golden` and review the diff before committing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from report_scenarios import snapshot
from stackaudit import __version__
from stackaudit.cli.main import main

GOLDEN = Path(__file__).resolve().parent / "golden"
# Bare metal with many issues, an LXC container on a Proxmox node (host-level fixes say where), and step 3's
# acceptance scenario (tests/scenarios_rtx_pro_6000.py: 8x RTX PRO 6000 under SGLang TP8 in LXC) with its fixed twin.
SCENARIOS = ("amd-bad-knobs", "proxmox-lxc", "rtx-pro-6000-lxc", "rtx-pro-6000-lxc-fixed")
EXTENSIONS = {"text": "txt", "markdown": "md", "json": "json"}


def mask(text: str) -> str:
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)", "<time>", text)
    text = text.replace(f"stackaudit {__version__}", "stackaudit <version>")
    text = text.replace(f'"version": "{__version__}"', '"version": "<version>"')
    text = re.sub(r"(\d+ checks in )\d+\.\d+ s", r"\1<duration> s", text)
    return re.sub(r'"duration_s": [\d.]+', '"duration_s": "<duration>"', text)


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_render(scenario: str, fmt: str, update_golden: bool, capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    snap = snapshot(scenario)
    capsys.readouterr()
    assert main(["audit", "--from", str(snap), "--format", fmt]) == 0
    got = mask(capsys.readouterr().out)
    path = GOLDEN / f"{scenario}.{EXTENSIONS[fmt]}"
    if update_golden:
        path.parent.mkdir(exist_ok=True)
        path.write_text(got)
        return
    assert path.exists(), f"{path} missing: run pytest {__file__} --update-golden"
    expected = path.read_text()
    assert got == expected, f"{path.name} differs from the render; if intended, refresh with --update-golden"


def test_masking_leaves_no_volatile_value() -> None:
    for path in GOLDEN.glob("*"):
        text = path.read_text()
        assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", text), path.name
        assert "<time>" in text and "<version>" in text, path.name
