"""`fix --revert` trusts only root's own journal, and the apply lock only root's own file (review 2026-12, X1/X2/L1/L7/L8).

Writes go to scratch trees through `System(root=tmp_path)` with a runner that fails the test if modprobe or
setpci is ever called; the one command-line revert runs inside a private mount namespace whose /proc/sys,
/sys and /run are tmpfs, so the machine's own kernel settings are never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hostile_support import REPO, needs_root

from stackaudit.errors import InputError
from stackaudit.fixes.apply import System, revert_journal
from stackaudit.fixes.journal import ApplyLock

HOST = "gpu01"
HEADER = {"op": "header", "seq": 0, "host": HOST, "plan": {"hostname": HOST}, "argv": ["stackaudit", "fix"],
          "started": "2026-12-01T10:00:00+00:00", "tool_version": "1.0"}
SWAP = {"op": "change", "seq": 1, "check": "KERN-SWAP", "kind": "sysctl", "target": "vm.swappiness", "old": "60",
        "new": "10"}
NOBODY = 65534


def _never(argv: Sequence[str]) -> str:
    raise AssertionError(f"ran {list(argv)}")


def _root(tmp: Path) -> Path:
    root = tmp / "root"
    for rel, text in {"proc/sys/vm/swappiness": "10\n", "proc/sys/kernel/randomize_va_space": "2\n",
                      "sys/power/state": "freeze mem\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _journal(path: Path, *records: dict[str, Any], mode: int = 0o600) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    os.chmod(path, mode)
    return path


def _refused(journal: Path, root: Path, match: str) -> str:
    with pytest.raises(InputError, match=match) as exc:
        revert_journal(str(journal), System(str(root), run=_never), lambda s: None, host_name=HOST)
    assert "\n" not in str(exc.value) and exc.value.exit_code == 2
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"  # nothing was changed
    assert (root / "proc/sys/kernel/randomize_va_space").read_text() == "2\n"
    return str(exc.value)


def test_a_journal_of_root_with_a_catalogue_change_is_reverted(tmp_path: Path) -> None:
    root = _root(tmp_path)
    journal = _journal(tmp_path / "j" / "j.jsonl", HEADER, SWAP)
    assert revert_journal(str(journal), System(str(root), run=_never), lambda s: None, host_name=HOST) == 0
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"


@needs_root
def test_a_journal_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j" / "j.jsonl", HEADER, SWAP)
    os.chown(journal, NOBODY, NOBODY)
    _refused(journal, _root(tmp_path), "not a regular file of root's own")


@pytest.mark.parametrize("mode", [0o666, 0o620])
def test_a_journal_writable_by_others_is_refused(tmp_path: Path, mode: int) -> None:
    journal = _journal(tmp_path / "j" / "j.jsonl", HEADER, SWAP, mode=mode)
    _refused(journal, _root(tmp_path), "not a regular file of root's own")


def test_a_journal_in_a_directory_writable_by_others_is_refused(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "ops" / "j.jsonl", HEADER, SWAP)
    os.chmod(journal.parent, 0o1777)
    _refused(journal, _root(tmp_path), "directory .*ops is not root's own")


def test_a_journal_reached_through_a_linked_directory_is_refused(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "real" / "j.jsonl", HEADER, SWAP)
    (tmp_path / "ops").symlink_to(journal.parent)
    _refused(tmp_path / "ops" / "j.jsonl", _root(tmp_path), "a link or not a directory")


def test_a_hard_linked_journal_is_refused(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j" / "j.jsonl", HEADER, SWAP)
    os.link(journal, tmp_path / "j" / "other.jsonl")
    _refused(journal, _root(tmp_path), "2 link")


@pytest.mark.parametrize("header", [None, {**HEADER, "host": ""}, {**HEADER, "host": "gpu02"}])
def test_a_journal_without_a_header_naming_this_host_is_refused(tmp_path: Path, header: dict[str, Any] | None) -> None:
    records = [header, SWAP] if header else [SWAP]
    journal = _journal(tmp_path / "j" / "j.jsonl", *records)
    _refused(journal, _root(tmp_path), "no header|written on")


@pytest.mark.parametrize(("check", "kind", "target", "old", "new"), [
    ("KERN-SWAP", "sysctl", "kernel.randomize_va_space", "0", "2"),  # ASLR off
    ("KERN-X", "sysctl", "vm.swappiness", "60", "10"),  # not a catalogue check
    ("KERN-NUMA-BALANCING", "sysctl", "vm.swappiness", "60", "10"),  # another check's key
    ("KERN-SWAP", "sysctl", "vm.swappiness", "60", "0"),  # a value the step never sets
    ("KERN-THP", "sysfs", "/sys/power/state", "mem", "freeze"),
    ("KERN-THP", "sysfs", "/sys/kernel/mm/transparent_hugepage/enabled", "always", "never"),
    ("KERN-CSTATES", "sysfs", "/sys/devices/system/cpu/cpu0/cpuidle/state1/../../online", "0", "1"),
    ("IC-NVIDIA-PEERMEM", "module", "nbd", "loaded", "absent"),  # would load any module
    ("IC-NVIDIA-PEERMEM", "module", "nvidia-peermem", "loaded", "absent"),  # would load it
    ("IC-NVIDIA-PEERMEM", "module", "usb_storage", "absent", "loaded"),  # would unload it
    ("FW-ACS-P2P", "setpci", "0000:00:01.0 COMMAND.w", "0004", "0000:0004"),  # bus mastering off
    ("FW-ACS-P2P", "setpci", "0000:00:01.0 ECAP_ACS+0x6.w", "ffff", "0000:ffff"),  # a mask the fix never uses
    ("PCIE-MRRS", "setpci", "0000:00:01.0 CAP_EXP+0x08.w", "0000", "8000:7000"),  # bits outside the mask
])
def test_a_change_the_catalogue_never_makes_for_its_check_is_refused(tmp_path: Path, check: str, kind: str,
                                                                      target: str, old: str, new: str) -> None:
    bad = {"op": "change", "seq": 2, "check": check, "kind": kind, "target": target, "old": old, "new": new}
    journal = _journal(tmp_path / "j" / "j.jsonl", HEADER, SWAP, bad)
    before = journal.read_bytes()
    _refused(journal, _root(tmp_path), "not one fix --apply makes")
    assert (tmp_path / "root/sys/power/state").read_text() == "freeze mem\n"
    assert journal.read_bytes() == before


def test_a_hard_link_at_the_lock_path_is_refused_and_never_truncated(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    victim = run / "victim"
    victim.write_text("IMPORTANT-ROOT-DATA\n")
    os.link(victim, run / "fix.lock")
    with pytest.raises(InputError, match="2 link"), ApplyLock(str(run / "fix.lock")):
        pass
    assert victim.read_text() == "IMPORTANT-ROOT-DATA\n"


@needs_root
def test_a_lock_created_by_another_user_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    (run / "fix.lock").write_text("")
    os.chown(run / "fix.lock", NOBODY, NOBODY)
    with pytest.raises(InputError, match="root's own"), ApplyLock(str(run / "fix.lock")):
        pass


def test_a_lock_in_a_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    with pytest.raises(InputError, match="not root's own"), ApplyLock(str(shared / "fix.lock")):
        pass
    assert not (shared / "fix.lock").exists()


def test_the_lock_is_made_in_a_root_only_directory_and_keeps_a_longer_file_whole(tmp_path: Path) -> None:
    lock = tmp_path / "run" / "stackaudit" / "fix.lock"
    with ApplyLock(str(lock)):
        assert os.stat(lock.parent).st_mode & 0o777 == 0o700
        assert lock.read_text().split() == [str(os.getpid())]
    os.chmod(lock, 0o600)
    with open(lock, "a") as fh:
        fh.write("tail kept\n")
    with ApplyLock(str(lock)):
        assert lock.read_text().endswith("tail kept\n")  # O_CREAT without O_TRUNC: nothing cut


_NAMESPACE = r"""
import json, os, subprocess, sys
for where in ("/proc/sys", "/sys", "/run"):
    subprocess.run(["mount", "-t", "tmpfs", "stackaudit-hostile", where], check=True, timeout=20)
for path, text in {"/proc/sys/kernel/randomize_va_space": "2\n", "/proc/sys/vm/swappiness": "10\n",
                   "/sys/power/state": "freeze mem\n"}.items():
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
from stackaudit.cli.main import main
code = main(["fix", "--revert", sys.argv[1]])
print("RESULT " + json.dumps({"code": code, "aslr": open("/proc/sys/kernel/randomize_va_space").read(),
                              "state": open("/sys/power/state").read(),
                              "swappiness": open("/proc/sys/vm/swappiness").read()}))
"""


def _namespace_works() -> bool:
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        return False
    probe = subprocess.run([unshare, "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs stackaudit-probe /mnt"], capture_output=True, timeout=20)
    return probe.returncode == 0


@pytest.mark.skipif(not _namespace_works(), reason="needs root and unshare -m with mount rights")
def test_the_review_journal_through_the_command_line_changes_nothing(tmp_path: Path) -> None:
    """The review's X1 journal: owned by nobody, 0666, no header, ASLR off and a suspend; exit 2, one line."""
    records = [{"op": "change", "seq": 1, "check": "KERN-X", "kind": "sysctl", "target": "kernel.randomize_va_space",
                "old": "0", "new": "2"},
               {"op": "change", "seq": 2, "check": "KERN-X", "kind": "sysfs", "target": "/sys/power/state",
                "old": "mem", "new": "freeze"}]
    journal = _journal(tmp_path / "j" / "cli.jsonl", *records, mode=0o666)
    os.chown(journal, NOBODY, NOBODY)
    unshare = shutil.which("unshare")
    assert unshare is not None
    done = subprocess.run([unshare, "-m", "--propagation", "private", sys.executable, "-c", _NAMESPACE, str(journal)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line[len("RESULT "):])
    assert out == {"code": 2, "aslr": "2\n", "state": "freeze mem\n", "swappiness": "10\n"}
    errors = [x for x in done.stderr.splitlines() if x.strip()]
    assert len(errors) == 1 and "root's own" in errors[0], done.stderr


def test_revert_messages_show_a_journals_escapes_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A header whose argv clears the screen is printed escaped (nothing to undo: no setting is written)."""
    import socket

    from stackaudit.cli.main import main

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    header = {**HEADER, "host": socket.gethostname(), "argv": ["stackaudit\x1b[2J\x1b[H\x1b[1;32mALL OK\x1b[0m"]}
    journal = _journal(tmp_path / "j" / "j.jsonl", header, SWAP, {"op": "reverted", "seq": 1})
    capsys.readouterr()
    assert main(["fix", "--revert", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[2J" in out and "every change is already undone" in out
