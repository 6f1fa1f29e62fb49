"""Entry point: argument wiring only (click). Heavy modules are imported inside the commands."""

from __future__ import annotations

import sys
import time

import click

from stackaudit import __version__
from stackaudit.cli.options import CONTEXT_SETTINGS, Group
from stackaudit.errors import EXIT_USAGE, StackauditError
from stackaudit.render.text import one_line, report_error

# The commands: each a module exposing `command: click.Command` named as the module (audit's module
# exposes several, in `commands`). A new command is one more name here.
EXIT_CODES = ("Exit codes: 0 done; 1 a finding at or above --fail-on, a check that errored or a read that "
              "timed out (or what a command's --fail-on gates on); 2 usage or input error; 3 internal error; "
              "130 interrupted (Ctrl-C).")

_COMMAND_MODULES = tuple(f"stackaudit.cli.{name}" for name in (
    "ceiling", "bench", "compare", "fix", "completion", "investigate", "fleet", "report"))


class _LazyGroup(Group):
    """Imports a command's module when that command is asked for: `audit` loads no bench or fleet code.
    Listing the commands (help, completion, a misspelt name) loads them all."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = f"stackaudit.cli.{cmd_name}"
        if cmd_name not in self.commands and module in _COMMAND_MODULES:
            self.add_command(__import__(module, fromlist=["command"]).command)
        if cmd_name not in self.commands:  # audit, capture, checks, explain; else a module named otherwise
            from stackaudit.cli import audit

            for command in audit.commands:
                self.add_command(command)
        if cmd_name not in self.commands:
            _register()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register()
        return super().list_commands(ctx)


@click.group(
    name="stackaudit",
    cls=_LazyGroup,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    help="Audit every layer under an LLM inference server, measure it, and say what to fix first.",
    epilog=EXIT_CODES,
    root=True,
)
@click.version_option(__version__, "--version", prog_name="stackaudit", message="%(prog)s %(version)s",
                      help="Print the version and exit.")
# `stackaudit --debug COMMAND …`: an internal error raises with its traceback instead of one line (main()).
@click.option("--debug", is_flag=True, hidden=True, expose_value=False, is_eager=True)
def cli() -> None:
    """stackaudit: audit, capture, ceiling, bench."""


_registered = False


def _register() -> None:
    """Add every command to the group (once)."""
    global _registered
    if _registered:
        return
    _registered = True
    from stackaudit.cli import audit

    for command in audit.commands:
        cli.add_command(command)
    for module_name in _COMMAND_MODULES:
        name = module_name.rsplit(".", 1)[-1]
        if name not in cli.commands:
            cli.add_command(__import__(module_name, fromlist=["command"]).command)


def cli_group() -> click.Group:
    """The `stackaudit` group with every command added."""
    _register()
    return cli


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every error becomes one line on stderr and an exit code (docs/design.md)."""
    from stackaudit.cli.output import remember_invocation

    args = list(argv) if argv is not None else sys.argv[1:]
    remember_invocation(args)
    command = cli  # each command's module is imported when it is asked for (_LazyGroup)
    started = time.monotonic()
    code = _run(command, args, argv)
    from stackaudit.cli.output import verbose

    if verbose():
        sys.stderr.write(f"stackaudit: {' '.join(args[:1])} took {time.monotonic() - started:.2f} s, exit {code}\n")
    return code


def _run(command: click.Group, args: list[str], argv: list[str] | None) -> int:
    try:
        # Shell completion (_STACKAUDIT_COMPLETE=bash_source …) is answered inside click's main.
        rv = command.main(args=args, prog_name="stackaudit", standalone_mode=False)
    except click.exceptions.Abort:
        sys.stderr.write("stackaudit: aborted\n")
        return 130
    except click.ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `stackaudit` (click >= 8.2): the help
            sys.stdout.write(exc.format_message() + "\n")
            return 0
        sys.stderr.write(f"stackaudit: error: {one_line(exc.format_message())}\n")
        return EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code
    except BrokenPipeError:
        return 0
    except (StackauditError, KeyboardInterrupt) as exc:
        return report_error(exc)
    except Exception as exc:  # the one place an unexpected failure becomes exit 3
        if "--debug" in (argv if argv is not None else sys.argv):
            raise
        return report_error(exc)
    return int(rv) if isinstance(rv, int) else 0
