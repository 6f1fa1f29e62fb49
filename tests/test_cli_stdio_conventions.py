"""CLI conventions of issue 31: `-` is stdin for --from and report and stdout for capture -o and fix -o;
-q and -v on every command; choices in any case; exit codes documented; the echoed command is the one run."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from stackaudit.cli.main import main
from test_cli_conventions import NUMACTL, SYSCTL, cli_commands

README = Path(__file__).resolve().parents[1] / "README.md"


class _Pipe(io.TextIOWrapper):
    """Stdin fed by a pipe (not a terminal), as `… | stackaudit …` gives it."""

    def isatty(self) -> bool:
        return False


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", _Pipe(io.BytesIO(data), encoding="utf-8"))


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _audit(cli: Any, *args: str) -> dict[str, Any]:
    run = cli("audit", *args, "--select", "KERN-NUMA-BALANCING", "--format", "json")
    assert run.rc == 0, run.err
    return json.loads(run.out)  # type: ignore[no-any-return]


def test_from_dash_reads_a_paste_on_stdin(cli: Any, here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, (SYSCTL + NUMACTL).encode())
    doc = _audit(cli, "--from", "-")
    assert doc["source"]["files"] == ["stdin"] and doc["results"][0]["status"] == "issue"
    assert sorted(p.name for p in here.iterdir()) == []  # nothing written where it ran


def test_from_dash_reads_a_snapshot_tarball_on_stdin(cli: Any, here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stackaudit.host.memory import HostRecord
    from stackaudit.host.snapshot_writer import write_snapshot

    write_snapshot(HostRecord(meta={"hostname": "gpu-07"}, files={"/proc/sys/kernel/numa_balancing": b"1\n"}),
                   str(here / "s.tar.gz"))
    _stdin(monkeypatch, (here / "s.tar.gz").read_bytes())
    doc = _audit(cli, "--from", "-")
    assert doc["source"]["kind"] == "snapshot" and doc["host"]["hostname"] == "gpu-07"


@pytest.mark.parametrize(("data", "said"), [(b"", "stdin is empty"), (None, "stdin is a terminal")])
def test_from_dash_refuses_an_empty_or_terminal_stdin(cli: Any, monkeypatch: pytest.MonkeyPatch,
                                                      data: bytes | None, said: str) -> None:
    if data is None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x")))
        monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    else:
        _stdin(monkeypatch, data)
    run = cli("audit", "--from", "-")
    assert run.rc == 2 and said in run.err and "Traceback" not in run.err


def test_report_dash_reads_a_json_report_on_stdin(cli: Any, here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (here / "p.txt").write_text(SYSCTL + NUMACTL)
    saved = cli("audit", "--from", "p.txt", "--select", "KERN-NUMA-BALANCING", "-f", "json")
    _stdin(monkeypatch, saved.out.encode())
    run = cli("report", "-", "-f", "markdown")
    assert run.rc == 0 and "KERN-NUMA-BALANCING" in run.out


def test_fix_dash_o_writes_the_plan_to_stdout(cli: Any, here: Path) -> None:
    (here / "p.txt").write_text(SYSCTL + NUMACTL)
    run = cli("fix", "--from", "p.txt", "-o", "-")
    assert run.rc == 0 and run.out.startswith("#!") and not (here / "-").exists()


def test_capture_dash_o_writes_a_tarball_to_stdout(here: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    from stackaudit.host.snapshot_reader import load_snapshot

    assert main(["capture", "-o", "-", "-q", "--deadline", "60"]) == 0
    out, err = capsysbinary.readouterr()
    assert out[:2] == b"\x1f\x8b" and err == b""  # a gzip on stdout, nothing on stderr with -q
    assert not (here / "-").exists()
    (here / "got.tar.gz").write_bytes(out)
    assert load_snapshot(str(here / "got.tar.gz")).meta.source == "snapshot"


def test_every_command_takes_q_and_v() -> None:
    for path, command in cli_commands():
        if not path:
            continue  # `stackaudit` itself: -q/-v go after the command
        opts = {o for p in command.params for o in getattr(p, "opts", ())}
        assert {"-q", "-v"} <= opts, path


def test_q_and_v_together_is_a_usage_error(cli: Any) -> None:
    run = cli("checks", "-q", "-v")
    assert run.rc == 2 and "--quiet and --verbose" in run.err


def test_v_says_how_the_command_ended(cli: Any) -> None:
    run = cli("checks", "-v")
    assert run.rc == 0 and run.err.startswith("stackaudit: checks took ") and run.err.rstrip().endswith("exit 0")
    assert cli("checks").err == ""


@pytest.mark.parametrize("args", [["checks", "--format=JSON"], ["checks", "-f", "Json"], ["checks", "-f", "MD"]])
def test_format_choices_are_case_insensitive(cli: Any, args: list[str]) -> None:
    run = cli(*args)
    assert run.rc == 0, run.err
    if "MD" not in args:
        assert json.loads(run.out)["checks"]


def test_exit_codes_are_documented_in_help_and_readme(cli: Any) -> None:
    text = " ".join(cli("--help").out.split())
    for code in ("0 done", "1 a finding", "2 usage", "3 internal", "130 interrupted"):
        assert code in text, code
    readme = " ".join(README.read_text().split())
    assert "130 interrupted" in readme and "timed out" in readme


def test_the_echoed_command_is_the_one_run(cli: Any, here: Path) -> None:
    (here / "a").mkdir()
    (here / "a" / "sysctl.txt").write_text(SYSCTL)
    (here / "numactl.txt").write_text(NUMACTL)
    doc = _audit(cli, "--from", "a/sysctl.txt,numactl.txt")
    assert doc["command"] == ("stackaudit audit --from sysctl.txt,numactl.txt --select KERN-NUMA-BALANCING "
                              "--format json")
