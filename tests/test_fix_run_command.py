"""`fix --apply` runs modprobe and setpci through the host layer's one runner (host.live.run_argv): an argv
list, a timeout that kills the whole process group, capped output, and one line for every failure."""

from __future__ import annotations

import pytest

from stackaudit.fixes import apply
from stackaudit.fixes.apply import WriteFailed, run_command


def test_the_output_is_returned() -> None:
    assert run_command(["sh", "-c", "echo 0x42"]) == "0x42\n"


def test_a_missing_program_is_one_line() -> None:
    with pytest.raises(WriteFailed, match=r"^no-such-setpci -s 01:00\.0: exit 127: no-such-setpci: command not found$"):
        run_command(["no-such-setpci", "-s", "01:00.0"])


def test_a_failure_names_the_exit_and_the_last_line_of_stderr() -> None:
    with pytest.raises(WriteFailed, match=r"^sh -c .*: exit 3: second$"):
        run_command(["sh", "-c", "echo first >&2; echo second >&2; exit 3"])


@pytest.mark.timeout(30)
def test_a_timeout_kills_what_the_command_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program that leaves a child holding its output (the old subprocess.run waited for it) returns
    at the timeout: the whole process group is killed."""
    monkeypatch.setattr(apply, "COMMAND_TIMEOUT_S", 0.5)
    with pytest.raises(WriteFailed, match=r"exit 124: timed out after 0\.5 s$"):
        run_command(["sh", "-c", "sleep 120 & sleep 120"])
