"""The terminal's conventions, on every command: `-h` like `--help`, NO_COLOR, `-f md` for markdown,
comma lists for `--from`, and an unrecognised paste answered with the kinds that are recognised."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
import pytest

from stackaudit.cli.output import colour_wanted, split_paths
from test_core_cli import NUMA_PASTE

# Modelled: the two outputs KERN-NUMA-BALANCING reads, pasted in two files as a user attaches them.
# The two outputs KERN-NUMA-BALANCING reads (test_core_cli's paste), each as its own file.
SYSCTL, _, _rest = NUMA_PASTE.partition("$ numactl -H\n")
NUMACTL = "$ numactl -H\n" + _rest


def cli_commands() -> list[tuple[list[str], Any]]:
    """Every command of the CLI with its path: [], ["audit"], ... (a group's commands too)."""
    from stackaudit.cli.main import cli_group

    out: list[tuple[list[str], Any]] = []

    def walk(command: click.Command, path: list[str]) -> None:
        out.append((path, command))
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])

    walk(cli_group(), [])
    return out


def test_dash_h_is_help_on_every_command(cli) -> None:  # type: ignore[no-untyped-def]
    commands = cli_commands()
    assert len(commands) >= 10
    for path, _ in commands:
        short, long = cli(*path, "-h"), cli(*path, "--help")
        assert short.rc == 0 and long.rc == 0, (path, short.err)
        assert short.out == long.out and "Usage: stackaudit" in short.out, path
        assert "-h, --help" in short.out, path


def test_md_is_markdown_wherever_format_is() -> None:
    with_format = []
    for path, command in cli_commands():
        for param in command.params:
            if "--format" in getattr(param, "opts", ()):
                with_format.append(path)
                ctx = command.make_context(" ".join(["stackaudit", *path]), [], resilient_parsing=True)
                assert param.process_value(ctx, "md") == "markdown", path
                assert param.process_value(ctx, "json") == "json", path
    assert ["audit"] in with_format and ["ceiling"] in with_format and ["fix"] in with_format
    assert len(with_format) >= 7


def test_checks_dash_f_md_prints_the_markdown_catalogue(cli) -> None:  # type: ignore[no-untyped-def]
    md, markdown = cli("checks", "-f", "md"), cli("checks", "--format", "markdown")
    assert md.rc == 0 and md.out == markdown.out and md.out.startswith("# stackaudit checks")


@pytest.fixture
def pastes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "sysctl.txt").write_text(SYSCTL)
    (tmp_path / "numactl.txt").write_text(NUMACTL)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _audit_json(cli, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    run = cli("audit", *args, "--select", "KERN-NUMA-BALANCING", "--format", "json")
    assert run.rc == 0, run.err
    return json.loads(run.out)  # type: ignore[no-any-return]


def test_from_takes_a_comma_list_like_select(cli, pastes: Path) -> None:  # type: ignore[no-untyped-def]
    repeated = _audit_json(cli, "--from", "sysctl.txt", "--from", "numactl.txt")
    listed = _audit_json(cli, "--from", "sysctl.txt,numactl.txt")
    assert sorted(listed["source"]["files"]) == ["numactl.txt", "sysctl.txt"]
    assert listed["source"]["files"] == repeated["source"]["files"]
    assert listed["results"][0]["status"] == repeated["results"][0]["status"] == "issue"


def test_a_file_with_a_comma_in_its_name_stays_one_path(tmp_path: Path) -> None:
    named = tmp_path / "node 1,2.txt"
    named.write_text(SYSCTL)
    assert split_paths([str(named), "a.txt, b.txt"]) == [str(named), "a.txt", "b.txt"]


class _Tty:
    def isatty(self) -> bool:
        return True


def test_no_color_turns_colour_off_unless_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_wanted(None, _Tty()) is True
    assert colour_wanted(None, object()) is False  # not a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    assert colour_wanted(None, _Tty()) is False
    assert colour_wanted(True, _Tty()) is True  # a flag given on the command line wins (no-color.org)
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: not asked for
    assert colour_wanted(None, _Tty()) is True


def test_audit_on_a_terminal_has_no_ansi_escape_with_no_color(  # type: ignore[no-untyped-def]
    cli, pastes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = cli("audit", "--from", "sysctl.txt,numactl.txt")
    assert "\x1b[" in coloured.out
    monkeypatch.setenv("NO_COLOR", "1")
    plain = cli("audit", "--from", "sysctl.txt,numactl.txt")
    assert plain.rc == coloured.rc and "KERN-NUMA-BALANCING" in plain.out
    assert "\x1b" not in plain.out + plain.err


def test_nothing_recognisable_names_the_recognised_kinds(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    junk = tmp_path / "notes.txt"
    junk.write_text("the server is slow since Tuesday\n")
    run = cli("audit", "--from", str(junk))
    assert run.rc == 2 and run.out == ""
    [line] = run.err.splitlines()
    assert "notes.txt: nothing recognisable; recognised kinds:" in line
    for kind in ("lscpu", "numactl -H", "dmesg", "sysctl", "nvidia-smi -q -x", "lspci", "docker inspect"):
        assert kind in line, kind
    assert "--help" not in line
