"""Golden plans (`stackaudit fix --from SNAPSHOT`; tests/golden/README.md has the layout): per whole-host scenario
the checks each group fixes (tests/golden/status/plan-SCENARIO.json), and the story's plan rendered as a bash
script, Markdown and JSON (tests/golden/rendered/plan-rtx-pro-6000-lxc.*); every bash plan passes `bash -n` and
shellcheck, and runs nothing when run whole.

Refresh after an intended change with `pytest tests/test_fix_plan_golden.py --update-golden` and
review the diff (times and the version are masked).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from fix_plan_support import bash_syntax, calls, run_group, shellcheck, stubs
from report_scenarios import snapshot
from stackaudit import __version__
from stackaudit.cli.main import main

GOLDEN = Path(__file__).resolve().parent / "golden"
SCENARIOS = ("amd-bad-knobs", "proxmox-lxc", "rtx-pro-6000-lxc", "rtx-pro-6000-lxc-fixed")
STORY = "rtx-pro-6000-lxc"  # the one plan rendered in every format
EXTENSIONS = {"text": "sh", "markdown": "md", "json": "json"}


def mask(text: str) -> str:
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)", "<time>", text)
    text = text.replace(f"stackaudit {__version__}", "stackaudit <version>")
    return text.replace(f'"version": "{__version__}"', '"version": "<version>"')


def plan(scenario: str, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    snap = snapshot(scenario)
    capsys.readouterr()
    assert main(["fix", "--from", str(snap), "--format", fmt]) == 0
    return capsys.readouterr().out


def groups(doc: dict[str, Any]) -> dict[str, object]:
    """`{"N group": [the check each step fixes, in order]}` of a JSON plan, N its place in the plan."""
    return {f"{i} {g['id']}": [step["check"] for step in g["steps"]] for i, g in enumerate(doc["groups"], 1)}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_plan_groups(scenario: str, golden: Any, capsys: pytest.CaptureFixture[str]) -> None:
    golden(GOLDEN / "status" / f"plan-{scenario}.json", groups(json.loads(plan(scenario, "json", capsys))))


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_golden_plan(fmt: str, golden: Any, capsys: pytest.CaptureFixture[str]) -> None:
    golden(GOLDEN / "rendered" / f"plan-{STORY}.{EXTENSIONS[fmt]}", mask(plan(STORY, fmt, capsys)))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_plan_is_valid_bash_and_shellcheck_clean(scenario: str, capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    script = tmp_path / "plan.sh"
    script.write_text(plan(scenario, "text", capsys))
    bash_syntax(script)
    shellcheck(script)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_plan_run_whole_runs_nothing(scenario: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = plan(scenario, "text", capsys)
    script = tmp_path / "plan.sh"
    script.write_text(text)
    programs = sorted({line.split()[0] for line in text.splitlines() if line.startswith("  ") and
                       not line.lstrip().startswith(("#", ":"))})
    assert programs, "the scenario's plan runs some command"
    bin_dir = stubs(tmp_path / "bin", [*programs, "rm", "echo"])
    done = run_group(script, None, bin_dir)
    assert done.returncode == 2
    assert calls(bin_dir) == [], "a command ran when the plan was run whole"
    assert b"usage: bash" in done.stderr and b"groups: " in done.stderr


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_markdown_blocks_are_the_bash_groups(scenario: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each group is one fenced bash block whose text is the script's function, verbatim."""
    bash = plan(scenario, "text", capsys)
    tokens = MarkdownIt("commonmark").parse(plan(scenario, "markdown", capsys))
    blocks = [t.content for t in tokens if t.type == "fence" and "() {" in t.content]
    functions = re.findall(r"^(group_\w+)\(\) \{$", bash, flags=re.M)
    # The fixed twin has nothing left to fix (its ACS redirect is a conditional key negative: issue 28).
    assert len(blocks) == len(functions) and (len(functions) > 0) != scenario.endswith("-fixed")
    for block in blocks:
        assert block.rstrip("\n") in bash


def test_json_plan_has_the_common_envelope(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(plan("proxmox-lxc", "json", capsys))
    assert doc["schema"] == 1 and doc["tool"] == {"name": "stackaudit", "version": __version__}
    assert doc["source"]["files"] == ["proxmox-lxc.tar.gz"] and doc["generated_at"].endswith("Z")
    assert doc["host"]["container_host"] == "the Proxmox node"
    # The host's steps first: the container's build on them.
    assert doc["groups"][0]["id"] == "container-host"
