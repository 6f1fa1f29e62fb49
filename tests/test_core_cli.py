"""The CLI as a user runs it: formats, outputs, errors (exit 2, one line), hanging commands."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
STACKAUDIT = [sys.executable, "-m", "stackaudit"]


def _one_line_error(err: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("stackaudit: error:"), err
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [
    ["audit", "--format", "yaml"],
    ["audit", "--fail-on", "P7"],
    ["audit", "--select", "NOPE-CHECK"],
    ["audit", "--no-such-flag"],
    ["audit", "--from", "/nonexistent/file.txt"],
    ["audit", "--root", "/nonexistent-root"],
    ["audit", "--deadline", "0"],
    ["explain", "KERN-NOT-A-CHECK"],
    ["checks", "--format", "xml"],
])
def test_usage_errors_exit_2_with_one_line(cli, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    run = cli(*args)
    assert run.rc == 2
    _one_line_error(run.err)


def test_unreadable_and_unrecognisable_inputs_exit_2(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    chatter = tmp_path / "notes.txt"
    chatter.write_text("hello, my server is slow, please help\nthanks\n")
    run = cli("audit", "--from", str(chatter))
    assert run.rc == 2 and "nothing recognisable" in run.err
    _one_line_error(run.err)
    binary = tmp_path / "blob.bin"
    binary.write_bytes(os.urandom(4096))
    run = cli("audit", "--from", str(binary))
    assert run.rc == 2
    _one_line_error(run.err)
    if os.geteuid() != 0:
        locked = tmp_path / "locked.txt"
        locked.write_text("x")
        locked.chmod(0)
        run = cli("audit", "--from", str(locked))
        assert run.rc == 2
    waivers = tmp_path / "w.toml"
    waivers.write_text("[[waiver]]\nid = 'KERN-THP'\n")
    run = cli("audit", "--waivers", str(waivers), "--select", "FW")
    assert run.rc == 2 and "reason" in run.err


def test_output_file_and_formats(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "r.md"
    run = cli("audit", "--select", "FW", "--format", "markdown", "--output", str(out))
    assert run.rc == 0 and run.out == ""
    text = out.read_text()
    assert text.startswith("# stackaudit report") and "## Actionable fixes" in text
    run = cli("audit", "--select", "FW", "--format", "json")
    data = json.loads(run.out)
    assert data["schema"] == 2 and {r["domain"] for r in data["results"]} == {"FW"}
    run = cli("audit", "--output", str(tmp_path / "missing-dir" / "r.txt"), "--select", "FW")
    assert run.rc == 2


def test_capture_refuses_to_overwrite(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    existing = tmp_path / "snap.tar.gz"
    existing.write_bytes(b"keep me")
    run = cli("capture", "-o", str(existing))
    assert run.rc == 2 and existing.read_bytes() == b"keep me"


def test_checks_and_explain(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("checks")
    assert run.rc == 0 and "FW-IOMMU-MODE" in run.out
    run = cli("explain", "fw-iommu-mode")
    assert run.rc == 0
    for section in ("Reads:", "Bad value:", "Why:", "Traps:", "Fix:", "iommu=pt"):
        assert section in run.out
    # The same document as data and as Markdown: the fix's steps the report's, every command whole.
    run = cli("explain", "fw-iommu-mode", "--format", "json")
    data = json.loads(run.out)
    assert run.rc == 0 and data["schema"] == 1 and data["id"] == "FW-IOMMU-MODE" and data["fix"]["steps"]
    run = cli("explain", "fw-iommu-mode", "-f", "md")
    assert run.rc == 0 and "## Fix: reboot" in run.out and "```sh\ngrubby --update-kernel=ALL --args=iommu=pt\n```" in run.out


def test_hanging_command_does_not_hang_the_audit(tmp_path) -> None:
    """A fake `lscpu` that sleeps: the audit ends within its command timeout and names it."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "lscpu"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    proc = subprocess.run([*STACKAUDIT, "audit", "--command-timeout", "1", "--deadline", "3", "--format", "json"],
                          capture_output=True, text=True, timeout=25, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert any("lscpu" in t for t in data["summary"]["timed_out"])
    assert data["summary"]["duration_s"] < 5


def test_help_is_fast_to_import() -> None:
    """--help must not import the engine, rich report or aiohttp (start-up budget 0.3 s)."""
    code = ("import sys; from stackaudit.cli.main import main; rc = main(['--help']); "
            "heavy = [m for m in ('aiohttp', 'stackaudit.engine.runner', 'stackaudit.report.document', 'pynvml') "
            "if m in sys.modules]; print(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_script_entry_point_runs() -> None:
    proc = subprocess.run([*STACKAUDIT, "--version"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout.startswith("stackaudit ")


NUMA_PASTE = """$ sysctl kernel.numa_balancing
kernel.numa_balancing = 1
$ numactl -H
available: 2 nodes (0-1)
node 0 cpus: 0 1 2 3
node 0 size: 257655 MB
node 0 free: 250000 MB
node 1 cpus: 4 5 6 7
node 1 size: 258031 MB
node 1 free: 251000 MB
node distances:
node   0   1
  0:  10  32
  1:  32  10
"""


def test_stackaudit_toml_in_working_directory_waives_and_expiry_is_reported(cli, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    paste = tmp_path / "report.txt"
    paste.write_text(NUMA_PASTE)
    monkeypatch.chdir(tmp_path)
    args = ("audit", "--from", str(paste), "--select", "KERN-NUMA-BALANCING", "--fail-on", "P2", "--format", "json")
    run = cli(*args)
    [result] = json.loads(run.out)["results"]
    assert run.rc == 1 and result["status"] == "issue" and result["waived"] is None
    (tmp_path / "stackaudit.toml").write_text(
        '[[waiver]]\nid = "KERN-NUMA-BALANCING"\nreason = "pinned per node by the scheduler"\nexpires = 2999-01-01\n')
    run = cli(*args)
    data = json.loads(run.out)
    assert run.rc == 0 and data["results"][0]["waived"]["reason"] == "pinned per node by the scheduler"
    assert data["summary"]["waived"] == 1
    (tmp_path / "stackaudit.toml").write_text(
        '[[waiver]]\nid = "KERN-NUMA-BALANCING"\nreason = "until the reboot"\nexpires = 2020-01-01\n')
    run = cli(*args)
    data = json.loads(run.out)
    assert run.rc == 1 and data["results"][0]["waived"] is None
    assert data["summary"]["expired_waivers"][0]["expires"] == "2020-01-01"
    text = cli("audit", "--from", str(paste), "--select", "KERN-NUMA-BALANCING")
    assert "expired" in text.out and "until the reboot" in text.out


def test_one_error_line_for_the_cli_and_the_zipapp(capsys) -> None:  # type: ignore[no-untyped-def]
    from stackaudit.errors import InputError
    from stackaudit.render.text import one_line, report_error

    assert one_line("cannot read /x:\n   permission denied\n") == "cannot read /x: permission denied"
    assert "\x1b" not in one_line("bad \x1b[31mname")
    assert report_error(InputError("no such\nfile")) == 2
    assert report_error(KeyboardInterrupt()) == 130
    assert report_error(RuntimeError("boom\nagain")) == 3
    err = capsys.readouterr().err.splitlines()
    assert err == ["stackaudit: error: no such file", "stackaudit: interrupted",
                   "stackaudit: internal error: RuntimeError: boom again"]
