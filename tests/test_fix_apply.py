"""`fix --apply` / `fix --revert`: journal first, verify after, roll back, revert exactly, refusals.

The writes go to a scratch tree (tmp_path/proc/sys, tmp_path/sys) through `System(root=tmp_path)`,
with a fake runner for modprobe/setpci and a verifier that reads the tree, so the core runs without
root. A child process killed with SIGKILL between the journal record and the write (and after it)
leaves a journal that `--revert` completes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from stackaudit.cli.main import main
from stackaudit.fixes.apply import (
    Action,
    Applier,
    NotApplicable,
    System,
    action_of,
    apply_plan,
    new_header,
    revert_journal,
    select_units,
)
from stackaudit.fixes.journal import Journal, read_journal
from stackaudit.fixes.model import Fix, Step, cmd, sh, step
from stackaudit.fixes.plan import Plan, build_plan

SWAP = step("Lower swappiness", "sysctl -w vm.swappiness=10", changes="vm.swappiness")
NUMA = step("Turn off NUMA balancing", "sysctl -w kernel.numa_balancing=0")
DEFRAG = step("THP defrag", sh("echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag"))
REBOOT = step("Passthrough IOMMU", "grubby --update-kernel=ALL --args=iommu=pt", cost="reboot")
BIOS = step("Enable Above 4G decoding", cost="bios")
CLOCKS = step("Lock clocks", "nvidia-smi -lgc 1980")
SETPCI = step("Clear ACS", "setpci -s 0000:00:01.0 ECAP_ACS+0x6.w=0000:002c")
PEERMEM = step("Load nvidia-peermem", "modprobe nvidia-peermem")
# What each check wants, for the fake verifier.
WANTED = {"KERN-SWAP": ("proc/sys/vm/swappiness", "10"), "KERN-NUMA-BALANCING": ("proc/sys/kernel/numa_balancing", "0"),
          "KERN-THP": ("sys/kernel/mm/transparent_hugepage/defrag", "defer+madvise")}
ORIGINAL = {"proc/sys/vm/swappiness": "60\n", "proc/sys/kernel/numa_balancing": "1\n",
            "sys/kernel/mm/transparent_hugepage/defrag": "always defer [madvise] never\n"}


def result(check: str, *steps: Step) -> dict[str, Any]:
    return {"id": check, "status": "issue", "priority": "P2", "title": check, "subjects": [], "actual": None,
            "waived": None, "fix": json.loads(json.dumps(Fix.of(*steps).to_json()))}


def plan_of(*results: dict[str, Any], only: list[str] | None = None, container: str = "none") -> Plan:
    return build_plan({"schema": 2, "results": list(results),
                       "host": {"hostname": "h", "container": container, "kernel": "6.8.0"}}, only=only)


def tree(root: Path) -> Path:
    for rel, text in ORIGINAL.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def verifier(root: Path, broken: Sequence[str] = ()) -> Any:
    """ok when the tree holds what the check wants; `broken` checks stay an issue whatever is written."""
    def verify(ids: Sequence[str]) -> dict[str, str]:
        out = {}
        for i in ids:
            rel, want = WANTED[i]
            text = (root / rel).read_text().strip()
            out[i] = "ok" if text == want and i not in broken else "issue"
        return out
    return verify


class Recorder:
    """One log of journal records and writes, in the order they happen."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def system(self, root: Path, fail_on: str = "") -> System:
        events = self.events

        class Recording(System):
            def write(self, action: Action, value: str) -> None:
                events.append(("write", f"{action.target}={value}"))
                if action.target == fail_on:
                    from stackaudit.fixes.apply import WriteFailed
                    raise WriteFailed(f"cannot write {action.target}: injected")
                super().write(action, value)

        return Recording(str(root))

    def journal(self, path: Path) -> Journal:
        events = self.events
        journal = Journal.create(str(path))
        plain = journal.record

        def record(data: dict[str, Any]) -> None:
            plain(data)
            events.append(("journal", f"{data['op']} {data.get('target', data['seq'])}"))

        journal.record = record  # type: ignore[method-assign]
        return journal


def apply_all(plan: Plan, root: Path, journal: Path, broken: Sequence[str] = (), runner: Any = None) -> int:
    system = System(str(root), run=runner) if runner else System(str(root))
    lines: list[str] = []
    code = apply_plan(plan, system, str(journal), verifier(root, broken), lambda q: True, lines.append)
    return code


def test_journal_record_is_on_disk_before_each_write(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    rec = Recorder()
    journal = rec.journal(tmp_path / "j.jsonl")
    units, _ = select_units(plan_of(result("KERN-SWAP", SWAP), result("KERN-THP", DEFRAG)))
    applier = Applier(rec.system(root), journal, verifier(root), lambda s: None)
    assert [applier.apply(u).status for u in units] == ["fixed", "fixed"]
    assert rec.events == [("journal", "change vm.swappiness"), ("write", "vm.swappiness=10"), ("journal", "written 1"),
                          ("journal", "change /sys/kernel/mm/transparent_hugepage/defrag"),
                          ("write", "/sys/kernel/mm/transparent_hugepage/defrag=defer+madvise"),
                          ("journal", "written 2")]
    changes, undone = read_journal(str(tmp_path / "j.jsonl"))
    assert [(c.target, c.old, c.new) for c in changes] == [
        ("vm.swappiness", "60", "10"), ("/sys/kernel/mm/transparent_hugepage/defrag", "madvise", "defer+madvise")]
    assert not undone and stat_mode(tmp_path / "j.jsonl") == 0o600


def stat_mode(path: Path) -> int:
    return os.stat(path).st_mode & 0o777


def test_a_check_still_an_issue_is_rolled_back_and_exit_1(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    plan = plan_of(result("KERN-SWAP", SWAP), result("KERN-NUMA-BALANCING", NUMA))
    assert apply_all(plan, root, tmp_path / "j.jsonl", broken=["KERN-NUMA-BALANCING"]) == 1
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"
    assert (root / "proc/sys/kernel/numa_balancing").read_text() == "1\n"  # back to the old value
    changes, undone = read_journal(str(tmp_path / "j.jsonl"))
    assert undone == {c.seq for c in changes if c.target == "kernel.numa_balancing"}


def test_a_failing_write_rolls_back_the_checks_earlier_changes(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    rec = Recorder()
    two = step("Both", "sysctl -w vm.swappiness=10", "sysctl -w kernel.numa_balancing=0")
    units, _ = select_units(plan_of(result("KERN-SWAP", two)))
    out = Applier(rec.system(root, fail_on="kernel.numa_balancing"), rec.journal(tmp_path / "j.jsonl"),
                  verifier(root), lambda s: None).apply(units[0])
    assert out.status == "failed" and "injected" in out.detail
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"
    assert rec.events[-2:] == [("write", "vm.swappiness=60"), ("journal", "rolled-back 1")]


def test_revert_restores_the_exact_old_values_last_first(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    plan = plan_of(result("KERN-SWAP", SWAP), result("KERN-NUMA-BALANCING", NUMA))
    assert apply_all(plan, root, tmp_path / "j.jsonl") == 0
    assert (root / "proc/sys/kernel/numa_balancing").read_text() == "0\n"
    rec = Recorder()
    assert revert_journal(str(tmp_path / "j.jsonl"), rec.system(root), lambda s: None) == 0
    # Applied in the report's order (KERN-NUMA-BALANCING before KERN-SWAP), reverted last first.
    assert rec.events == [("write", "vm.swappiness=60"), ("write", "kernel.numa_balancing=1")]
    assert (root / "proc/sys/vm/swappiness").read_text() == ORIGINAL["proc/sys/vm/swappiness"]
    assert (root / "proc/sys/kernel/numa_balancing").read_text() == ORIGINAL["proc/sys/kernel/numa_balancing"]
    # Reverted once: a second revert has nothing left to do and writes nothing.
    rec.events.clear()
    assert revert_journal(str(tmp_path / "j.jsonl"), rec.system(root), lambda s: None) == 0 and not rec.events


def test_a_second_apply_changes_nothing(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    plan = plan_of(result("KERN-SWAP", SWAP))
    assert apply_all(plan, root, tmp_path / "1.jsonl") == 0
    rec = Recorder()
    units, _ = select_units(plan)
    out = Applier(rec.system(root), rec.journal(tmp_path / "2.jsonl"), verifier(root), lambda s: None).apply(units[0])
    assert out.status == "unchanged" and rec.events == []
    assert (tmp_path / "2.jsonl").read_text() == ""


def test_reboot_bios_clocks_and_unmasked_setpci_are_never_run(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def runner(argv: Sequence[str]) -> str:
        calls.append(list(argv))
        return "0000\n" if len(argv) == 4 else "002c\n"

    plan = plan_of(result("R", REBOOT), result("B", BIOS), result("C", CLOCKS), result("S", SETPCI),
                   result("MIX", SWAP, REBOOT))
    units, skipped = select_units(plan)
    assert units == []
    reasons = {(s.check, why.split(":")[0]) for s, why in skipped}
    assert {("R", "reboot"), ("B", "BIOS setting, then reboot"), ("S", "setpci"), ("MIX", "reboot"),
            ("MIX", "with the rest of its fix")} <= reasons
    assert any(s.check == "C" and "not a runtime kind" in why for s, why in skipped)
    root = tree(tmp_path / "root")
    assert apply_all(plan, root, tmp_path / "j.jsonl", runner=runner) == 0 and calls == []
    assert not (tmp_path / "j.jsonl").exists()  # nothing to apply: no journal


def test_setpci_with_only_is_a_masked_write_journalled_and_reverted(tmp_path: Path) -> None:
    register = {"value": 0x002C}
    calls: list[list[str]] = []

    def runner(argv: Sequence[str]) -> str:
        calls.append(list(argv))
        if "=" in argv[-1]:
            value, mask = (int(x, 16) for x in argv[-1].split("=")[1].split(":"))
            register["value"] = (register["value"] & ~mask) | (value & mask)
            return ""
        return f"{register['value']:04x}\n"

    units, _ = select_units(plan_of(result("FW-ACS-P2P", SETPCI), only=["FW-ACS-P2P"]))
    assert [u.actions for u in units] == [[Action("setpci", "0000:00:01.0 ECAP_ACS+0x6.w", "0000:002c")]]
    system = System(str(tmp_path), run=runner)
    journal = Journal.create(str(tmp_path / "j.jsonl"))
    journal.header = new_header(plan_of())
    out = Applier(system, journal, lambda ids: {"FW-ACS-P2P": "ok"}, lambda s: None).apply(units[0])
    journal.close()
    assert out.status == "fixed" and register["value"] == 0
    assert ["setpci", "-s", "0000:00:01.0", "ECAP_ACS+0x6.w=0000:002c"] in calls
    assert revert_journal(str(tmp_path / "j.jsonl"), system, lambda s: None) == 0 and register["value"] == 0x002C
    assert calls[-2] == ["setpci", "-s", "0000:00:01.0", "ECAP_ACS+0x6.w=002c:002c"]


def test_module_load_and_its_revert(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def runner(argv: Sequence[str]) -> str:
        calls.append(list(argv))
        module = tmp_path / "sys/module/nvidia_peermem"
        module.mkdir(parents=True) if argv[1] != "-r" else module.rmdir()
        return ""

    units, _ = select_units(plan_of(result("IC-NVIDIA-PEERMEM", PEERMEM)))
    system = System(str(tmp_path), run=runner)
    journal = Journal.create(str(tmp_path / "j.jsonl"))
    journal.header = new_header(plan_of())
    assert Applier(system, journal, lambda ids: {"IC-NVIDIA-PEERMEM": "ok"}, lambda s: None).apply(units[0]).status == "fixed"
    journal.close()
    assert revert_journal(str(tmp_path / "j.jsonl"), system, lambda s: None) == 0
    assert calls == [["modprobe", "nvidia-peermem"], ["modprobe", "-r", "nvidia-peermem"]]


def test_a_look_up_step_is_left_out_and_a_container_applies_nothing(tmp_path: Path) -> None:
    look_up = step("Find the value", "sysctl vm.swappiness", cost="none")
    units, skipped = select_units(plan_of(result("KERN-SWAP", look_up, SWAP)))
    assert [(u.check, u.actions) for u in units] == [("KERN-SWAP", [Action("sysctl", "vm.swappiness", "10")])]
    assert skipped == []
    units, skipped = select_units(plan_of(result("KERN-SWAP", SWAP), container="docker"))
    assert units == [] and "the Docker host" in skipped[0][1]


@pytest.mark.parametrize("line", ["sysctl -w ../../etc/passwd=1", "sysctl -w kernel/../../x=1", "sysctl -w /etc/x=1",
                                  "sysctl -w Kernel.X=1"])
def test_sysctl_keys_are_validated(line: str) -> None:
    with pytest.raises(NotApplicable):
        action_of(cmd(line))


@pytest.mark.parametrize("line", ["echo 1 > /sys/../etc/passwd", "echo 1 > /etc/sysctl.conf",
                                  "echo 1 | tee /sys/devices/../../etc/*", "echo $(id) > /sys/x",
                                  "echo 1 | tee /sys/x; reboot", "echo 1 | tee /etc/x*"])
def test_sysfs_writes_are_one_plain_sys_path(line: str) -> None:
    with pytest.raises(NotApplicable):
        action_of(sh(line))


def test_a_tee_glob_writes_each_cpu_and_revert_restores_each(tmp_path: Path) -> None:
    epp = "/sys/devices/system/cpu/cpu*/cpufreq/energy_performance_preference"
    for n, old in enumerate(["power", "balance_performance"]):
        f = tmp_path / f"sys/devices/system/cpu/cpu{n}/cpufreq/energy_performance_preference"
        f.parent.mkdir(parents=True)
        f.write_text(old + "\n")
    units, _ = select_units(plan_of(result("KERN-EPP", step("epp", sh(f"echo performance | tee {epp}")))))
    journal = Journal.create(str(tmp_path / "j.jsonl"))
    journal.header = new_header(plan_of())
    out = Applier(System(str(tmp_path)), journal, lambda ids: {"KERN-EPP": "ok"}, lambda s: None).apply(units[0])
    journal.close()
    assert out.status == "fixed"
    assert [(c.target.split("/")[5], c.old) for c in out.changes] == [("cpu0", "power"), ("cpu1", "balance_performance")]
    assert revert_journal(str(tmp_path / "j.jsonl"), System(str(tmp_path)), lambda s: None) == 0
    assert [(tmp_path / f"sys/devices/system/cpu/cpu{n}/cpufreq/energy_performance_preference").read_text()
            for n in (0, 1)] == ["power\n", "balance_performance\n"]


def test_a_setting_whose_old_value_could_not_be_written_back_is_not_changed(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    (root / "proc/sys/vm/swappiness").write_text("60 $(reboot)\n")
    units, _ = select_units(plan_of(result("KERN-SWAP", SWAP)))
    journal = Journal.create(str(tmp_path / "j.jsonl"))
    out = Applier(System(str(root)), journal, verifier(root), lambda s: None).apply(units[0])
    assert out.status == "failed" and "could write back" in out.detail and out.changes == []
    assert (root / "proc/sys/vm/swappiness").read_text() == "60 $(reboot)\n"


def test_a_sys_link_leading_out_of_sys_is_refused(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    (tmp_path / "outside").write_text("keep\n")
    (root / "sys/escape").symlink_to(tmp_path / "outside")
    units, _ = select_units(plan_of(result("E", step("e", sh("echo 1 > /sys/escape")))))
    journal = Journal.create(str(tmp_path / "j.jsonl"))
    out = Applier(System(str(root)), journal, lambda ids: {"E": "ok"}, lambda s: None).apply(units[0])
    assert out.status == "failed" and (tmp_path / "outside").read_text() == "keep\n"


_CHILD = """
import os, signal, sys
from stackaudit.fixes.apply import System, apply_plan
from stackaudit.fixes.plan import build_plan
import json
root, journal, when, doc = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])

class Dying(System):
    def write(self, action, value):
        if action.target == "vm.swappiness" and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        super().write(action, value)
        if action.target == "vm.swappiness":
            os.kill(os.getpid(), signal.SIGKILL)

apply_plan(build_plan(doc), Dying(root), journal, lambda ids: {i: "ok" for i in ids}, lambda q: True, print)
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_kill_9_in_the_middle_then_revert_restores_everything(when: str, tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    doc = {"schema": 2, "results": [result("KERN-SWAP", SWAP), result("KERN-NUMA-BALANCING", NUMA), result("KERN-THP", DEFRAG)],
           "host": {"hostname": "h", "container": "none"}}
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(tmp_path / "j.jsonl"), when, json.dumps(doc)],
                          capture_output=True, timeout=60, env=env)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    # The plan takes equal findings in the report's order, by ID: NUMA balancing, then swappiness, then THP.
    assert (root / "proc/sys/kernel/numa_balancing").read_text() == "0\n"
    assert (root / "proc/sys/vm/swappiness").read_text() == ("60\n" if when == "before" else "10\n")
    assert (root / "sys/kernel/mm/transparent_hugepage/defrag").read_text() == ORIGINAL[
        "sys/kernel/mm/transparent_hugepage/defrag"]  # never reached
    assert revert_journal(str(tmp_path / "j.jsonl"), System(str(root)), lambda s: None) == 0
    for rel in ("proc/sys/vm/swappiness", "proc/sys/kernel/numa_balancing"):
        assert (root / rel).read_text() == ORIGINAL[rel]


# --- refusals -----------------------------------------------------------------------------------------


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("stackaudit: error:"), err
    return err


def test_apply_with_a_snapshot_or_report_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert "this host only" in _one_line_error(capsys, ["fix", "--apply", "--yes", "--from", str(tmp_path)])
    assert "this host only" in _one_line_error(capsys, ["fix", "--apply", "--report", str(tmp_path / "r.json")])
    # --root: the audit would read a mounted tree while modprobe and setpci ran here.
    assert "this host only" in _one_line_error(capsys, ["fix", "--revert", "j.jsonl", "--root", str(tmp_path)])


def test_apply_and_revert_need_root(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                    tmp_path: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "run as root" in _one_line_error(capsys, ["fix", "--apply", "--yes"])
    assert "run as root" in _one_line_error(capsys, ["fix", "--revert", str(tmp_path / "j.jsonl")])


def test_apply_without_a_terminal_or_yes_is_refused(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    assert "pass --yes" in _one_line_error(capsys, ["fix", "--apply"])


@pytest.mark.parametrize("content", [None, b"", b"{not json\n", b'{"op": "change", "seq": 1}\n',
                                     b'{"op": "change", "seq": 1, "check": "A", "kind": "shell", "target": "x", '
                                     b'"old": "1", "new": "2"}\n'])
def test_a_missing_or_corrupt_journal_is_one_line_and_changes_nothing(
        content: bytes | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    path = tmp_path / "j.jsonl"
    if content is not None:
        path.write_bytes(content)
    # A good first record followed by a corrupt line: the good one is not undone either.
    _one_line_error(capsys, ["fix", "--revert", str(path)])
    if content is not None:
        assert path.read_bytes() == content


@pytest.mark.parametrize("kind,target,old,new", [
    ("sysfs", "/etc/shadow", "x", "y"), ("sysctl", "../../etc/passwd", "1", "0"), ("sysfs", "/sys/x", "$(id)", "1"),
    ("module", "nvidia; reboot", "absent", "loaded"), ("setpci", "0000:00:01.0 ECAP_ACS+0x6.w", "zz", "0000:002c")])
def test_a_journal_naming_a_change_apply_never_makes_is_refused(kind: str, target: str, old: str, new: str,
                                                                 tmp_path: Path) -> None:
    from stackaudit.errors import InputError
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/shadow").write_text("secret\n")
    good = {"op": "change", "seq": 1, "check": "KERN-SWAP", "kind": "sysctl", "target": "vm.swappiness", "old": "60",
            "new": "10"}
    bad = {**good, "seq": 2, "kind": kind, "target": target, "old": old, "new": new}
    head = new_header(plan_of()).to_json()
    (tmp_path / "j.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (head, good, bad)))
    tree(tmp_path)
    (tmp_path / "proc/sys/vm/swappiness").write_text("10\n")
    with pytest.raises(InputError, match="not one fix --apply makes"):
        revert_journal(str(tmp_path / "j.jsonl"), System(str(tmp_path), run=lambda argv: pytest.fail(str(argv))),
                       lambda s: None)
    assert (tmp_path / "etc/shadow").read_text() == "secret\n"
    assert (tmp_path / "proc/sys/vm/swappiness").read_text() == "10\n"  # the good change is not undone either


def test_a_corrupt_line_after_good_records_restores_nothing(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    assert apply_all(plan_of(result("KERN-SWAP", SWAP)), root, tmp_path / "j.jsonl") == 0
    with open(tmp_path / "j.jsonl", "a") as fh:
        fh.write("{garbage\n")
    from stackaudit.errors import InputError
    with pytest.raises(InputError, match="corrupt"):
        revert_journal(str(tmp_path / "j.jsonl"), System(str(root)), lambda s: None)
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"


def test_a_journal_is_never_written_through_a_link_or_over_a_file(tmp_path: Path) -> None:
    from stackaudit.errors import InputError
    (tmp_path / "target").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    for name in ("link", "target"):
        with pytest.raises(InputError):
            Journal.create(str(tmp_path / name))
    assert (tmp_path / "target").read_text() == "x"


def test_a_no_at_the_prompt_changes_nothing_and_creates_no_journal(tmp_path: Path) -> None:
    root = tree(tmp_path / "root")
    lines: list[str] = []
    asked: list[str] = []
    code = apply_plan(plan_of(result("KERN-SWAP", SWAP), result("R", REBOOT)), System(str(root)),
                      str(tmp_path / "j.jsonl"), verifier(root), lambda q: asked.append(q) or False, lines.append)
    assert code == 0 and asked == ["apply 1 change(s)?"]
    assert "  KERN-SWAP: vm.swappiness = 10" in lines and lines[-1] == "nothing applied"
    assert any(x.startswith("not applied: R: Passthrough IOMMU (reboot)") for x in lines)
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n" and not (tmp_path / "j.jsonl").exists()
