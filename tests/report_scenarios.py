"""Whole-host scenarios (tests/test_scenarios_host.py and, for step 3's acceptance scenario,
tests/scenarios_rtx_pro_6000.py build them) captured and audited for report tests.

`snapshot(name)` captures a scenario's fake host into a .tar.gz once per session; `report(name)` is
the audit of it; `cli_render(name, fmt)` is what `stackaudit audit --from SNAPSHOT --format FMT`
prints. `without_command` removes one source from a scenario (as if the user had not pasted it).
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

from scenario_builder import Parts, build_host
from scenarios_rtx_pro_6000 import HOSTNAMES as RTX_HOSTNAMES
from scenarios_rtx_pro_6000 import SCENARIOS as RTX_SCENARIOS
from stackaudit.capture import capture_host
from stackaudit.cli.audit import headline_ceiling
from stackaudit.engine.runner import AuditOptions, Report, run_audit
from stackaudit.host.snapshot_reader import load_snapshot
from test_scenarios_host import HOSTNAMES as HOST_HOSTNAMES
from test_scenarios_host import SCENARIOS as HOST_SCENARIOS

# Every whole-host scenario by name: its builder, and the hostname its fake host answers.
BUILDERS = {**{n: s[0] for n, s in HOST_SCENARIOS.items()}, **{n: s[0] for n, s in RTX_SCENARIOS.items()}}
HOSTNAMES = {**HOST_HOSTNAMES, **RTX_HOSTNAMES}

_DIR = Path(tempfile.mkdtemp(prefix="stackaudit-report-tests-"))
_SNAPSHOTS: dict[str, Path] = {}


def parts(name: str) -> Parts:
    return BUILDERS[name]()


def snapshot(name: str, scenario: Parts | None = None, tag: str = "") -> Path:
    key = name + tag
    if key not in _SNAPSHOTS:
        path = _DIR / f"{name}{tag}.tar.gz"
        capture_host(build_host(scenario if scenario is not None else parts(name), HOSTNAMES[name]), str(path))
        _SNAPSHOTS[key] = path
    return _SNAPSHOTS[key]


_REPORTS: dict[str, Report] = {}


def report(name: str, scenario: Parts | None = None, tag: str = "") -> Report:
    """The audit of a scenario's snapshot as `stackaudit audit` runs it (with the headline ceiling), computed once per snapshot (an audit is the slow part of a
    test); each caller gets its own copy, so a test that changes a report cannot change another's."""
    key = name + tag
    if key not in _REPORTS:
        _REPORTS[key] = run_audit(load_snapshot(str(snapshot(name, scenario, tag))),
                                   AuditOptions(ceiling=headline_ceiling()))
    return copy.deepcopy(_REPORTS[key])


def without_command(scenario: Parts, program: str) -> Parts:
    """The scenario without the output of `program` (every argv that starts with it)."""
    commands = {argv: out for argv, out in scenario.commands.items() if argv[:1] != (program,)}
    assert len(commands) < len(scenario.commands), f"the scenario has no {program} output to remove"
    return Parts(scenario.files, scenario.links, scenario.dirs, commands, scenario.which, scenario.docs)
