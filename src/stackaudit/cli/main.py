"""Entry point: argument wiring only. Heavy modules are imported inside the commands."""

from __future__ import annotations

import sys

import typer

try:  # typer >= 0.24 vendors click; older releases depend on it.
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

from stackaudit import __version__
from stackaudit.errors import EXIT_INTERNAL, EXIT_USAGE, StackauditError

app = typer.Typer(
    name="stackaudit",
    help="Audit every layer under an LLM inference server, measure it, and say what to fix first.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # `-h` as well as `--help` on every command (subcommands inherit the context's help option names).
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"stackaudit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """stackaudit: audit, capture, ceiling, bench."""


def _register() -> None:
    from stackaudit.cli import audit as _audit  # noqa: F401  (registers commands on `app`)

    for name in ("ceiling", "bench", "compare", "fix"):
        try:
            module = __import__(f"stackaudit.cli.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:  # pragma: no cover - only while a part is being built
            if exc.name != f"stackaudit.cli.{name}":
                raise
            continue
        module.register(app)


# Commands written on plain click (the CLI is moving from typer to click, issue step 8): name -> module
# exposing `command: click.Command`. main() dispatches them directly until the whole CLI is on click.
_CLICK_COMMANDS: dict[str, str] = {"report": "stackaudit.cli.report"}


def _click_command(argv: list[str]):  # type: ignore[no-untyped-def]
    """The plain-click command argv names, with its own click's exception module, or None."""
    if not argv or argv[0] not in _CLICK_COMMANDS:
        return None
    import click

    module = __import__(_CLICK_COMMANDS[argv[0]], fromlist=["command"])
    return module.command, click.exceptions


def _one_line(text: str) -> str:
    """An error message as one line of visible text (a path or value in it may hold control characters)."""
    from stackaudit.host.terminal import escape_terminal

    return escape_terminal(text.replace("\n", " "))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every error becomes one line on stderr and an exit code (docs/design.md)."""
    _register()
    from stackaudit.cli.output import remember_invocation

    remember_invocation(list(argv) if argv is not None else sys.argv[1:])
    args = list(argv) if argv is not None else sys.argv[1:]
    plain = _click_command(args)
    exceptions = click_exceptions
    if plain is not None:
        command, exceptions = plain
        args, prog_name = args[1:], f"stackaudit {args[0]}"
    else:
        command, prog_name = typer.main.get_command(app), "stackaudit"
    try:
        rv = command.main(args=args, prog_name=prog_name, standalone_mode=False)
    except (typer.Exit, getattr(exceptions, "Exit", typer.Exit)) as exc:
        return int(exc.exit_code or 0)
    except (typer.Abort, getattr(exceptions, "Abort", typer.Abort)):
        sys.stderr.write("stackaudit: aborted\n")
        return 130
    except exceptions.ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `stackaudit`: the help, not an error
            sys.stdout.write(exc.format_message() + "\n")
            return 0
        sys.stderr.write(f"stackaudit: error: {exc.format_message()}\n")
        return EXIT_USAGE if isinstance(exc, exceptions.UsageError) else exc.exit_code
    except StackauditError as exc:
        sys.stderr.write(f"stackaudit: error: {_one_line(str(exc))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("stackaudit: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the one place an unexpected failure becomes exit 3
        if "--debug" in (argv if argv is not None else sys.argv):
            raise
        sys.stderr.write(f"stackaudit: internal error: {type(exc).__name__}: {_one_line(str(exc))}\n")
        return EXIT_INTERNAL
    return int(rv) if isinstance(rv, int) else 0
