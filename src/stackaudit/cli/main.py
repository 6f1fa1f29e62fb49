"""Entry point: argument wiring only (click). Heavy modules are imported inside the commands."""

from __future__ import annotations

import sys

import click

from stackaudit import __version__
from stackaudit.cli.options import CONTEXT_SETTINGS, Group
from stackaudit.errors import EXIT_USAGE, StackauditError
from stackaudit.render.text import one_line, report_error

# The commands: each a module exposing `command: click.Command` (audit's module exposes several, in
# `commands`). A new command is one more name here.
_COMMAND_MODULES = tuple(f"stackaudit.cli.{name}" for name in (
    "ceiling", "bench", "compare", "fix", "completion", "investigate", "fleet", "report"))


@click.group(
    name="stackaudit",
    cls=Group,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    help="Audit every layer under an LLM inference server, measure it, and say what to fix first.",
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
    command = cli_group()
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
