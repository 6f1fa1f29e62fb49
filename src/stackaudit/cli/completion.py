"""`stackaudit completion bash|zsh|fish`: print the shell's completion script (click's own).

The script asks the program itself for completions (`_STACKAUDIT_COMPLETE=bash_complete stackaudit …`),
so every command and option, including ones added later, complete with no new script.
"""

from __future__ import annotations

import click

from stackaudit.cli.options import Command, HelpArgument

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_STACKAUDIT_COMPLETE"


def completion_script(shell: str) -> str:
    from click.shell_completion import get_completion_class

    from stackaudit.cli.main import cli_group

    complete = get_completion_class(shell)
    if complete is None:  # pragma: no cover - SHELLS are click's own
        raise click.BadParameter(f"no completion for {shell}")
    return complete(cli_group(), {}, "stackaudit", COMPLETE_VAR).source()


_SET_UP = """Set it up once, in the shell's start-up file:

\b
  bash (~/.bashrc): eval "$(stackaudit completion bash)"
  zsh (~/.zshrc):   eval "$(stackaudit completion zsh)"
  fish:             stackaudit completion fish > \\
                        ~/.config/fish/completions/stackaudit.fish
"""


@click.command("completion", cls=Command, epilog=_SET_UP)
@click.argument("shell", cls=HelpArgument, type=click.Choice(SHELLS, case_sensitive=False), metavar="SHELL",
                help=f"The shell: {', '.join(SHELLS)}.")
def command(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish."""
    click.echo(completion_script(shell), nl=False)
