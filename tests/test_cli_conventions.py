"""The terminal's conventions, on every command: `-h` like `--help`, NO_COLOR, `-f md` for markdown,
comma lists for `--from`, and an unrecognised paste answered with the kinds that are recognised."""

from __future__ import annotations

import json
import os
import re
import subprocess
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


# -- help: width, hanging indents, metavars ----------------------------------------------------------------
BANNED_METAVARS = {"TEXT", "FLOAT", "INTEGER", "BOOLEAN", "INT", "STR", "STRING", "PATH_TYPE"}


def _help(cli, path: list[str], monkeypatch: pytest.MonkeyPatch, columns: int) -> str:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", str(columns))
    run = cli(*path, "--help")
    assert run.rc == 0, (path, run.err)
    return run.out  # type: ignore[no-any-return]


def _option_rows(text: str) -> list[list[str]]:
    """The help's option rows, each with its continuation lines: [first line, more lines…]."""
    rows: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            inside = line == "Options:"
            continue
        if not line.strip():
            inside = False  # the section ends at its blank line (an epilog may follow)
            continue
        if not inside:
            continue
        if line.startswith("  -"):
            rows.append([line])
        elif rows:
            rows[-1].append(line)
    return rows


def test_help_at_80_columns_fits_with_hanging_indents(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    wrapped_rows = 0
    for path, _ in cli_commands():
        text = _help(cli, path, monkeypatch, 80)
        assert max(len(line) for line in text.splitlines()) <= 80, path
        for first, *more in _option_rows(text):
            if not more:
                continue
            wrapped_rows += 1
            # The help column starts where the first line's help starts; every continuation line hangs there.
            names_end = len(first) - len(first.lstrip()) + len(first.strip().split("  ")[0])
            column = names_end + len(first[names_end:]) - len(first[names_end:].lstrip())
            for line in more:
                assert len(line) - len(line.lstrip()) == column, (path, first, line)
    assert wrapped_rows >= 10


def test_help_follows_a_wider_terminal_up_to_its_cap(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    narrow = _help(cli, ["bench"], monkeypatch, 80).splitlines()
    wide = _help(cli, ["bench"], monkeypatch, 110).splitlines()
    huge = _help(cli, ["bench"], monkeypatch, 400).splitlines()
    assert max(map(len, wide)) > 80 and len(wide) < len(narrow)
    assert max(map(len, huge)) <= 120


def test_every_option_has_a_readable_metavar() -> None:
    checked = 0
    for path, command in cli_commands():
        ctx = command.make_context(" ".join(["stackaudit", *path]), [], resilient_parsing=True)
        for param in command.params:
            if getattr(param, "is_flag", False) or getattr(param, "hidden", False):
                continue
            checked += 1
            metavar = param.make_metavar(ctx)
            name = param.opts[0] if param.opts else param.name
            assert param.metavar, f"{path} {name}: no metavar of its own (click would print {metavar})"
            choice = isinstance(param.type, click.Choice)
            # `[ADDRESS]`: an option whose value may be left out (`fleet --ray` alone).
            assert choice or re.fullmatch(r"([A-Z][A-Z0-9_]*|\[[A-Z][A-Z0-9_]*\])(\.\.\.)?", metavar), (path, name, metavar)
            assert metavar.strip("[].") not in BANNED_METAVARS and "<" not in metavar, (path, name, metavar)
    assert checked >= 60


def test_help_shows_no_type_names(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    for path, _ in cli_commands():
        text = _help(cli, path, monkeypatch, 120)
        assert not re.search(r"<[a-z\[\]]+>|\b(TEXT|FLOAT|INTEGER)\b", text), (path, text)


def test_every_list_option_takes_a_comma_list() -> None:
    """An option that may be repeated takes a comma list too, and says so."""
    from stackaudit.cli.output import split_csv

    listed = []
    for path, command in cli_commands():
        for param in command.params:
            if isinstance(param, click.Option) and param.multiple:
                listed.append((path, param.opts[0]))
                assert "comma list" in (param.help or ""), (path, param.opts)
    assert (["audit"], "--select") in listed and (["fix"], "--only") in listed and (["ceiling"], "--measured") in listed
    assert split_csv(["KERN-THP,KERN-NUMA-BALANCING", " FW "]) == ["KERN-THP", "KERN-NUMA-BALANCING", "FW"]


def test_select_and_ignore_take_comma_lists(cli, pastes: Path) -> None:  # type: ignore[no-untyped-def]
    both = _audit_json(cli, "--from", "sysctl.txt,numactl.txt")  # --select KERN-NUMA-BALANCING
    run = cli("audit", "--from", "sysctl.txt,numactl.txt", "--select", "KERN-NUMA-BALANCING,KERN-THP",
              "--ignore", "KERN-THP,FW", "--format", "json")
    assert run.rc == 0, run.err
    assert [r["id"] for r in json.loads(run.out)["results"]] == [r["id"] for r in both["results"]]


# -- audit: --quiet / --verbose, --from kinds ----------------------------------------------------------
def test_audit_quiet_and_verbose(cli, pastes: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("audit", "--from", "sysctl.txt,numactl.txt", "-q", "-v")
    assert run.rc == 2 and run.err.strip() == "stackaudit: error: --quiet and --verbose: give one"
    quiet = cli("audit", "--from", "sysctl.txt,numactl.txt", "--quiet", "--select", "KERN")
    verbose = cli("audit", "--from", "sysctl.txt,numactl.txt", "--verbose", "--select", "KERN")
    assert quiet.rc == verbose.rc == 0 and quiet.err == ""
    assert "KERN-NUMA-BALANCING" in quiet.out and len(verbose.out) > len(quiet.out)


def test_audit_help_lists_every_recognised_kind(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from stackaudit.importers.registry import recognised_kinds

    text = _help(cli, ["audit"], monkeypatch, 80)
    listed = text.split("Pasted outputs --from recognises", 1)[1]
    kinds = [kind.strip() for kind in " ".join(listed.splitlines()[1:]).split(",")]
    assert kinds == recognised_kinds()  # each whole on one line: none is split where it has a space
    assert len(kinds) >= 25


# -- --format: the one format registry (render.formats) -------------------------------------------------
FORMAT_PRODUCTS = {
    ("audit",): "audit", ("checks",): "catalogue", ("ceiling",): "ceiling", ("compare",): "compare",
    ("explain",): "catalogue", ("fix",): "fix-plan", ("bench",): "bench", ("bench", "history"): "bench-stored",
    ("bench", "compare"): "bench-stored", ("investigate",): "investigate", ("fleet",): "fleet",
    ("report",): "audit",
}


def test_format_choices_come_from_the_registry(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from stackaudit.render import formats

    assert "vllm-json" in formats.FORMATS["bench"]
    seen = set()
    for path, command in cli_commands():
        for param in command.params:
            if "--format" in getattr(param, "opts", ()):
                seen.add(tuple(path))
                assert getattr(param, "product", None) == FORMAT_PRODUCTS[tuple(path)], path
    assert seen == set(FORMAT_PRODUCTS)
    # A format the registry adds is offered at once, with no CLI edit.
    for path, product in FORMAT_PRODUCTS.items():
        monkeypatch.setitem(formats.FORMATS, product, (*formats.FORMATS[product], "xlsx"))
        assert "xlsx" in " ".join(_help(cli, list(path), monkeypatch, 120).split()), path
    # No format list anywhere but the registry.
    for source in (Path(__file__).resolve().parents[1] / "src" / "stackaudit").rglob("*.py"):
        if source.name != "formats.py":
            assert not re.search(r"\bFORMATS\s*=|\(\"text\", \"markdown\"", source.read_text()), source


@pytest.mark.parametrize("fmt", ["JSON", "Json", "MD", "Markdown"])
def test_format_is_accepted_in_any_case(cli, fmt: str) -> None:  # type: ignore[no-untyped-def]
    run, lower = cli("checks", "--format", fmt), cli("checks", "--format", fmt.lower())
    assert run.rc == 0 and run.out == lower.out, run.err


# The arguments a command needs before it reads its --format (none is read: the format is checked first).
FORMAT_ARGS = {("compare",): ["a", "b"], ("report",): ["x"], ("explain",): ["FW-IOMMU-MODE"], ("bench", "compare"): ["1", "2"],
               ("fleet",): ["--from", "."], ("investigate",): ["--llm-url", "http://127.0.0.1:9", "--model", "m"]}


@pytest.mark.parametrize("path", sorted(FORMAT_PRODUCTS))
def test_an_unknown_format_is_one_line_naming_the_choices(cli, path: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    from stackaudit.render.formats import FORMATS

    run = cli(*path, *FORMAT_ARGS.get(path, []), "--format", "xlsx")
    assert run.rc == 2, (path, run.err)
    assert run.err == f"stackaudit: error: --format: choose one of {', '.join(FORMATS[FORMAT_PRODUCTS[path]])}, " \
                      "not 'xlsx'\n", (path, run.err)


def test_a_listed_format_without_a_renderer_is_one_line(cli, monkeypatch: pytest.MonkeyPatch, pastes: Path) -> None:  # type: ignore[no-untyped-def]
    from stackaudit.render import formats

    monkeypatch.setitem(formats.FORMATS, "audit", (*formats.FORMATS["audit"], "xlsx"))
    run = cli("audit", "--from", "sysctl.txt,numactl.txt", "--format", "xlsx")
    assert run.rc == 2 and run.err.startswith("stackaudit: error: unknown format 'xlsx'"), run.err


# -- shell completion --------------------------------------------------------------------------------------
def _complete(words: str, cword: int) -> list[str]:
    """What the shell gets back from `stackaudit` asked to complete `words` (a subprocess, as bash runs it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("_STACKAUDIT")}
    env.update(_STACKAUDIT_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=str(cword),
               PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    done = subprocess.run([sys.executable, "-m", "stackaudit"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_completion_answers_commands_options_and_format_values() -> None:
    assert "plain,audit" in _complete("stackaudit a", 1)
    assert {"plain,history", "plain,compare"} <= set(_complete("stackaudit bench ", 2))
    assert "plain,--from" in _complete("stackaudit audit --fr", 2)
    from stackaudit.render.formats import FORMATS

    assert _complete("stackaudit audit --format ", 3) == [f"plain,{fmt}" for fmt in FORMATS["audit"]]
    assert _complete("stackaudit audit --from ", 3) == ["file,"]
    assert _complete("stackaudit audit --root ", 3) == ["dir,"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_command_prints_each_shells_script(cli, shell: str) -> None:  # type: ignore[no-untyped-def]
    run = cli("completion", shell)
    assert run.rc == 0 and run.err == ""
    assert "_STACKAUDIT_COMPLETE" in run.out and f"{shell}_complete" in run.out
    if shell == "bash":
        assert "complete -o nosort -F _stackaudit_completion stackaudit" in run.out
        checked = subprocess.run(["bash", "-n"], input=run.out, capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stderr
    if shell == "zsh":
        assert run.out.startswith("#compdef stackaudit")
    if shell == "fish":
        assert "complete --no-files --command stackaudit" in run.out


def test_bash_source_variable_gives_the_same_script(cli) -> None:  # type: ignore[no-untyped-def]
    env = dict(os.environ, _STACKAUDIT_COMPLETE="bash_source",
               PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    done = subprocess.run([sys.executable, "-m", "stackaudit"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == cli("completion", "bash").out.strip()
    run = cli("completion", "tcsh")
    assert run.rc == 2 and run.err.count("\n") == 1 and "tcsh" in run.err


# -- a command added to _COMMAND_MODULES --------------------------------------------------------------
def test_a_plain_click_command_joins_the_group(cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from stackaudit.cli import main as cli_main

    (tmp_path / "hello_cmd.py").write_text(
        "import click\nfrom stackaudit.errors import UsageError\n\n"
        "@click.command('hello')\n@click.option('--name', metavar='NAME', help='Who.')\n"
        "def command(name):\n    '''Say hello.'''\n"
        "    if name == 'bad':\n        raise UsageError('--name bad: not a name')\n"
        "    click.echo(f'hello {name}')\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli_main, "_COMMAND_MODULES", (*cli_main._COMMAND_MODULES, "hello_cmd"))
    monkeypatch.setattr(cli_main.cli, "commands", dict(cli_main.cli.commands))
    monkeypatch.setattr(cli_main, "_registered", False)
    assert cli("hello", "--name", "you").out == "hello you\n"
    assert "hello" in cli("--help").out
    assert cli("hello", "-h").out.startswith("Usage: stackaudit hello [OPTIONS]")  # -h inherited
    bad = cli("hello", "--name", "bad")
    assert bad.rc == 2 and bad.err == "stackaudit: error: --name bad: not a name\n"
    unknown = cli("hello", "--nope")
    assert unknown.rc == 2 and unknown.err.startswith("stackaudit: error: No such option") and unknown.err.count("\n") == 1


# -- the text report's width -------------------------------------------------------------------------------
def test_the_report_wraps_to_columns_with_hanging_indents(cli, pastes: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "60")
    lines = cli("audit", "--from", "sysctl.txt,numactl.txt").out.splitlines()
    assert all(len(line) <= 60 for line in lines if not line.lstrip().startswith("$ ")), lines
    # The identity line wraps, and its continuation hangs under it.
    at = next(i for i, line in enumerate(lines) if line.startswith("stackaudit ") and " · " in line)
    assert lines[at + 1].startswith("  ") and lines[at + 1].strip()
    monkeypatch.setenv("COLUMNS", "120")
    assert len(cli("audit", "--from", "sysctl.txt,numactl.txt").out.splitlines()) < len(lines)


class _Pty:
    """The far end of a pseudo-terminal, as sys.stdout is on a terminal."""

    def __init__(self, columns: int) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.slave

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal with a set size (Linux)")
def test_the_width_is_the_terminals_capped_unless_columns_says(monkeypatch: pytest.MonkeyPatch) -> None:
    from stackaudit.cli.options import MAX_WIDTH, terminal_width

    monkeypatch.delenv("COLUMNS", raising=False)
    for columns, expected in ((100, 100), (300, MAX_WIDTH), (20, 40)):
        terminal = _Pty(columns)
        try:
            assert terminal_width(terminal) == expected, columns
        finally:
            terminal.close()
    assert terminal_width(object()) == 80  # not a terminal (a pipe, a file)
    assert terminal_width(None) == 80
    monkeypatch.setenv("COLUMNS", "200")  # the user's own setting wins
    assert terminal_width(None) == 200


def test_docs_cli_md_is_current(monkeypatch: pytest.MonkeyPatch) -> None:
    from stackaudit.cli.reference import render_cli_reference

    monkeypatch.setenv("COLUMNS", "60")  # the reference has its own width, whatever the terminal's
    current = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    assert current == render_cli_reference(), "docs/cli.md is stale: run `make docs`"


def test_bare_stackaudit_prints_the_help(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli()
    assert run.rc == 0 and run.out.startswith("Usage: stackaudit [OPTIONS] COMMAND") and run.err == ""
    assert "completion" in run.out and "audit" in run.out


def test_an_internal_error_is_one_line_unless_debug(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from stackaudit import catalogue
    from stackaudit.cli.main import main

    def broken(fmt: str) -> str:
        raise RuntimeError("the catalogue\nbroke")

    monkeypatch.setattr(catalogue, "render_catalogue", broken)
    run = cli("checks")
    assert run.rc == 3 and run.err == "stackaudit: internal error: RuntimeError: the catalogue broke\n"
    with pytest.raises(RuntimeError, match="the catalogue"):
        main(["--debug", "checks"])
