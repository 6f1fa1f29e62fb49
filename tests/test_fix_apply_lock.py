"""`fix --apply`: one at a time (a lock in a root-only directory), the journal header --revert checks and
prints, cpupower's governor and idle-state commands carried out as sysfs writes, and the persistent forms said
after a fixed check. Scratch trees under tmp_path stand in for /sys and /proc/sys (no root needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from stackaudit.errors import InputError
from stackaudit.fixes import journal as journal_module
from stackaudit.fixes.apply import (
    CPU_GOVERNOR_FILES,
    CPU_IDLE_DISABLE_FILES,
    Action,
    NotApplicable,
    System,
    action_of,
    apply_plan,
    revert_journal,
)
from stackaudit.fixes.journal import read_journal_with_header
from stackaudit.fixes.model import Fix, cmd, keep_line, step
from stackaudit.fixes.plan import Plan, build_plan

SWAP = step("Lower swappiness", "sysctl -w vm.swappiness=10", changes="vm.swappiness",
            keep=keep_line("vm.swappiness = 10", "/etc/sysctl.d/90-llm-serving.conf"))
GOVERNOR = step("Performance governor", "cpupower frequency-set -g performance")
IDLE = step("Deep idle states off", "cpupower idle-set -D 100", revert=["cpupower idle-set -E"])
LATENCIES = (0, 2, 120, 250)


def plan_of(*checks: tuple[str, Any]) -> Plan:
    results = [{"id": c, "status": "issue", "priority": "P2", "title": c, "subjects": [], "actual": None,
                "waived": None, "fix": json.loads(json.dumps(Fix.of(s).to_json()))} for c, s in checks]
    return build_plan({"schema": 2, "results": results, "generated_at": "2026-12-01T10:00:00Z",
                       "host": {"hostname": "gpu01", "container": "none", "kernel": "6.8.0"}})


def tree(root: Path, cpus: int = 2) -> Path:
    (root / "proc/sys/vm").mkdir(parents=True)
    (root / "proc/sys/vm/swappiness").write_text("60\n")
    for c in range(cpus):
        freq = root / f"sys/devices/system/cpu/cpu{c}/cpufreq"
        freq.mkdir(parents=True)
        (freq / "scaling_governor").write_text("powersave\n")
        for i, lat in enumerate(LATENCIES):
            state = root / f"sys/devices/system/cpu/cpu{c}/cpuidle/state{i}"
            state.mkdir(parents=True)
            (state / "latency").write_text(f"{lat}\n")
            (state / "disable").write_text("0\n")
    # not CPUs: the governor and idle globs must not match these
    (root / "sys/devices/system/cpu/cpufreq/policy0").mkdir(parents=True)
    (root / "sys/devices/system/cpu/cpuidle").mkdir(parents=True)
    return root


def ok_verifier(ids: Any) -> dict[str, str]:
    return dict.fromkeys(ids, "ok")


def apply(plan: Plan, root: Path, journal: Path, lines: list[str] | None = None, **kw: Any) -> int:
    out = [] if lines is None else lines
    return apply_plan(plan, System(str(root)), str(journal), ok_verifier, lambda q: True, out.append, **kw)


def disabled(root: Path, cpu: int) -> list[str]:
    return [(root / f"sys/devices/system/cpu/cpu{cpu}/cpuidle/state{i}/disable").read_text().strip()
            for i in range(len(LATENCIES))]


# --- cpupower as sysfs writes --------------------------------------------------------------------

@pytest.mark.parametrize(("line", "action"), [
    ("cpupower frequency-set -g performance", Action("sysfs", CPU_GOVERNOR_FILES, "performance")),
    ("cpupower frequency-set --governor schedutil", Action("sysfs", CPU_GOVERNOR_FILES, "schedutil")),
    ("cpupower idle-set -D 100", Action("sysfs", CPU_IDLE_DISABLE_FILES, "1", latency_from=100)),
    ("cpupower idle-set -E", Action("sysfs", CPU_IDLE_DISABLE_FILES, "0")),
    ("cpupower idle-set -d 3",
     Action("sysfs", "/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state3/disable", "1")),
])
def test_cpupower_commands_map_to_sysfs_writes(line: str, action: Action) -> None:
    assert action_of(cmd(line)) == action


@pytest.mark.parametrize("line", ["cpupower frequency-set -u 3000MHz", "cpupower frequency-set -g Perf0rmance!",
                                  "cpupower idle-set -D x", "cpupower -c 0 idle-set -E"])
def test_other_cpupower_commands_are_not_applied(line: str) -> None:
    with pytest.raises(NotApplicable):
        action_of(cmd(line))


def test_governor_written_to_every_cpu_and_reverted(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    assert apply(plan_of(("KERN-CPUFREQ-GOVERNOR", GOVERNOR)), root, tmp_path / "j.jsonl") == 0
    for c in (0, 1):
        assert (root / f"sys/devices/system/cpu/cpu{c}/cpufreq/scaling_governor").read_text() == "performance\n"
    assert not (root / "sys/devices/system/cpu/cpufreq/policy0/scaling_governor").exists()
    assert revert_journal(str(tmp_path / "j.jsonl"), System(str(root)), lambda s: None) == 0
    assert (root / "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor").read_text() == "powersave\n"


def test_idle_set_by_latency_disables_deep_states_only_and_reverts(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    (root / "sys/devices/system/cpu/cpu1/cpuidle/state1/disable").write_text("1\n")  # shallower, enabled again
    assert apply(plan_of(("KERN-CSTATES", IDLE)), root, tmp_path / "j.jsonl") == 0
    assert disabled(root, 0) == ["0", "0", "1", "1"] and disabled(root, 1) == ["0", "0", "1", "1"]
    assert revert_journal(str(tmp_path / "j.jsonl"), System(str(root)), lambda s: None) == 0
    assert disabled(root, 0) == ["0", "0", "0", "0"] and disabled(root, 1) == ["0", "1", "0", "0"]


# --- the lock --------------------------------------------------------------------------------------

HOLD = """
import sys, time
from stackaudit.fixes.journal import ApplyLock
with ApplyLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_second_apply_exits_2_naming_the_holder_and_changes_nothing(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    journal = tmp_path / "journal" / "j.jsonl"
    journal.parent.mkdir()
    lock = journal_module.LOCK_PATH
    holder = subprocess.Popen([sys.executable, "-c", HOLD, lock], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(InputError) as exc:
            apply(plan_of(("KERN-SWAP", SWAP)), root, journal)
        message = str(exc.value)
        assert exc.value.exit_code == 2 and "\n" not in message and f"pid {holder.pid}" in message
        with pytest.raises(InputError, match=f"pid {holder.pid}"):
            revert_journal(str(journal), System(str(root)), lambda s: None)
    finally:
        holder.communicate("\n", timeout=10)
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n" and not journal.exists()
    # released: the next apply goes ahead
    assert apply(plan_of(("KERN-SWAP", SWAP)), root, journal) == 0
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"


# --- the header ------------------------------------------------------------------------------------

def test_header_is_the_first_record_and_revert_prints_it(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    journal = tmp_path / "j.jsonl"
    lines: list[str] = []
    argv = ["stackaudit", "fix", "--apply", "--yes"]
    assert apply(plan_of(("KERN-SWAP", SWAP)), root, journal, lines, argv=argv, host_name="gpu01") == 0
    first = json.loads(journal.read_text().splitlines()[0])
    assert first["op"] == "header" and first["host"] == "gpu01" and first["argv"] == argv
    assert first["plan"]["report_generated_at"] == "2026-12-01T10:00:00Z" and first["plan"]["hostname"] == "gpu01"
    assert first["started"] and first["tool_version"]
    # the persistent form is said with the fixed check
    assert "  lost at reboot unless kept: vm.swappiness = 10 (in /etc/sysctl.d/90-llm-serving.conf)" in lines
    said: list[str] = []
    assert revert_journal(str(journal), System(str(root)), said.append, host_name="gpu01") == 0
    assert said[0].startswith("journal of fix --apply on gpu01, started ") and "stackaudit fix --apply --yes" in said[0]
    assert read_journal_with_header(str(journal))[2] is not None


def test_revert_refuses_a_journal_of_another_host(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    journal = tmp_path / "j.jsonl"
    assert apply(plan_of(("KERN-SWAP", SWAP)), root, journal, host_name="gpu01") == 0
    with pytest.raises(InputError, match="written on gpu01, this is gpu02"):
        revert_journal(str(journal), System(str(root)), lambda s: None, host_name="gpu02")
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"  # nothing was changed


def test_a_header_without_its_fields_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    journal.write_text(json.dumps({"op": "header", "seq": 0, "host": "gpu01"}) + "\n")
    with pytest.raises(InputError, match="header record without its fields"):
        revert_journal(str(journal), System(str(tmp_path)), lambda s: None)
