"""The CLI's click building blocks: commands that list their arguments, `--format` options whose choices
come from the format registry (render.formats, which imports no renderer), and the terminal's width.

Only click is imported here; everything a command does is imported inside it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from typing import Any

import click
from click.shell_completion import CompletionItem

# Help and the text report follow the terminal, up to this width (longer lines are hard to read);
# an explicit COLUMNS wins for the report.
MAX_WIDTH = 120
MIN_WIDTH = 40

# Every command: `-h` as well as `--help`, help as wide as the terminal (up to MAX_WIDTH), defaults shown.
# A context inherits these from its parent, so a command added to the group gets them too.
CONTEXT_SETTINGS: dict[str, Any] = {
    "help_option_names": ["-h", "--help"],
    "max_content_width": MAX_WIDTH,
    "show_default": True,
}


def terminal_width(stream: Any = None) -> int:
    """Columns to write the report's prose in: COLUMNS when set (the user's choice, at least MIN_WIDTH),
    else the width of the terminal `stream` is, when it is one, up to MAX_WIDTH; else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    width = 80
    if stream is not None and getattr(stream, "isatty", lambda: False)():
        try:
            width = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            width = shutil.get_terminal_size((80, 24)).columns
    return max(MIN_WIDTH, min(width, MAX_WIDTH))


class HelpArgument(click.Argument):
    """A positional argument with a help line, listed in its command's help (click < 8.5 has no help for
    arguments; from 8.5 click lists them itself, under "Positional arguments")."""

    def __init__(self, param_decls: Sequence[str], help: str = "", **attrs: Any) -> None:
        super().__init__(param_decls, **attrs)
        self.help = help


# -- -q / -v on every command --------------------------------------------------------------------------
# A command that defines --quiet/--verbose itself (audit, bench, report) keeps its own; every other command
# of the CLI gets these two, which set the process-wide verbosity (cli.output.quiet / verbose).
QUIET_HELP = "Nothing on stderr but errors (no notes, progress or warnings)."
VERBOSE_HELP = "Also say on stderr how long the command took and how it ended."


def _set_verbosity(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    from stackaudit.cli.output import set_verbosity

    if value:
        set_verbosity(**{str(param.name): True})
    return value


def add_verbosity_options(command: click.Command) -> None:
    """Give `command` --quiet/-q and --verbose/-v unless it has either already."""
    taken = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    if not {"--quiet", "-q"} & taken:
        command.params.append(click.Option(["--quiet", "-q"], is_flag=True, expose_value=False,
                                           callback=_set_verbosity, help=QUIET_HELP))
    if not {"--verbose", "-v"} & taken:
        command.params.append(click.Option(["--verbose", "-v"], is_flag=True, expose_value=False,
                                           callback=_set_verbosity, help=VERBOSE_HELP))


class Command(click.Command):
    """A command whose help has an "Arguments:" section before its options, and an epilog that may be
    computed when the help is shown (`epilog_factory(width)`), not when the CLI starts. Every one takes
    -q and -v (add_verbosity_options)."""

    def __init__(self, *args: Any, epilog_factory: Callable[[int], str] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT_SETTINGS)
        super().__init__(*args, **kwargs)
        self.epilog_factory = epilog_factory
        add_verbosity_options(self)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _format_arguments(self, ctx, formatter)
        super().format_options(ctx, formatter)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        if self.epilog_factory is not None:
            formatter.write_paragraph()
            formatter.write(self.epilog_factory(formatter.width))


class Group(click.Group):
    """A group with the same help conventions as `Command`."""

    command_class = Command

    def __init__(self, *args: Any, root: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT_SETTINGS)
        super().__init__(*args, **kwargs)
        if not root:  # `stackaudit` itself takes -q/-v after its commands, not before them
            add_verbosity_options(self)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _format_arguments(self, ctx, formatter)
        super().format_options(ctx, formatter)


def _format_arguments(command: click.Command, ctx: click.Context, formatter: click.HelpFormatter) -> None:
    if hasattr(click.Command, "format_arguments"):  # click >= 8.5 lists documented arguments itself
        return
    rows = [(p.make_metavar(ctx), p.help) for p in command.get_params(ctx)
            if isinstance(p, HelpArgument) and p.help]
    if rows:
        with formatter.section("Arguments"):
            formatter.write_dl(rows)


def wrapped(title: str, items: Sequence[str], width: int) -> str:
    """A titled paragraph of comma-separated items, wrapped to the help's width; an item is never split
    across lines (its spaces are non-breaking while wrapping)."""
    import textwrap

    joined = ", ".join(item.replace(" ", "\xa0") for item in items)
    body = textwrap.fill(joined, width=width, initial_indent="  ", subsequent_indent="  ",
                         break_long_words=False, break_on_hyphens=False)
    return f"{title}\n{body.replace(chr(0xA0), ' ')}\n"


# -- paths -------------------------------------------------------------------------------------------------
class _PathText(click.ParamType):  # type: ignore[type-arg]  # generic in newer click only
    """A path kept as the text given (the command checks it, with its own one-line error); the shell
    completes it as a file or a directory name."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.name = kind

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        return [CompletionItem(incomplete, type=self.kind)]


FILE = _PathText("file")  # completes files and directories
DIR = _PathText("dir")  # completes directories


# -- --format ------------------------------------------------------------------------------------------
def _format_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Any case, and `md` for markdown, wherever --format is."""
    from stackaudit.render.formats import format_name

    return format_name(value) if value else value


class FormatOption(click.Option):
    """`--format/-f FORMAT`: its choices are the product's entry in the format registry, read when the help
    or a completion needs them. The command itself checks the value (render.formats.check_format), so a
    format the registry adds appears here with no change to the CLI."""

    def __init__(self, param_decls: Sequence[str], *, product: str, notes: dict[str, str] | None = None,
                 lead: str = "Output format", **attrs: Any) -> None:
        attrs.setdefault("default", "text")
        attrs.setdefault("metavar", "FORMAT")
        attrs.setdefault("callback", _format_name)
        super().__init__(param_decls, **attrs)
        self.product = product
        self.notes, self.lead = notes or {}, lead

    @property
    def formats(self) -> tuple[str, ...]:
        from stackaudit.render.formats import FORMATS

        return FORMATS[self.product]

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        names = [f"{fmt} ({self.notes[fmt]})" if fmt in self.notes else fmt for fmt in self.formats]
        listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)
        self.help = f"{self.lead}: {listed} (md for markdown)."
        return super().get_help_record(ctx)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        return [CompletionItem(fmt) for fmt in self.formats if fmt.startswith(incomplete)]


def format_option(product: str, **attrs: Any) -> Callable[[Any], Any]:
    """The `--format/-f` decorator for a command that writes `product` (a key of render.formats.FORMATS)."""
    return click.option("--format", "-f", "fmt", cls=FormatOption, product=product, **attrs)


def output_option(help: str = "Write to FILE.") -> Callable[[Any], Any]:
    return click.option("--output", "-o", type=FILE, metavar="FILE", default=None, help=help)
