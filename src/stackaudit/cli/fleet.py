"""`stackaudit fleet`: argument wiring only; gathering, analysis and drift live in stackaudit.fleet."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from typing import Any

import click

from stackaudit.cli.options import Command, format_option, output_option
from stackaudit.errors import UsageError

_EXTRAS = {"ansible": ("ansible_runner", "fleet", "--inventory"), "ray": ("ray", "ray", "--ray")}


def _need_extra(engine: str) -> None:
    """One line naming the extra to install when the engine's package is missing (exit 2)."""
    module, extra, flag = _EXTRAS[engine]
    if importlib.util.find_spec(module) is None:
        raise UsageError(f"{flag} needs {module.replace('_', '-')}: pip install 'stackaudit[{extra}]'")


def _gatherer(inventory: str | None, limit: str | None, forks: int, zipapp: str | None, ray_address: str | None,
              from_dir: str | None, timeout_s: float, allow_shared_dir: bool = False) -> tuple[Any, str, int, int | None]:
    """(gatherer, its name, hidden entries, how many nodes when known) for the one source given."""
    given = [flag for flag, value in (("--inventory", inventory), ("--ray", ray_address), ("--from", from_dir))
             if value is not None]
    if len(given) != 1:
        raise UsageError("give exactly one of --inventory FILE, --ray [ADDRESS], --from DIR"
                         + (f" (got {', '.join(given)})" if given else ""))
    if limit is not None and inventory is None:
        raise UsageError("--limit selects hosts of an --inventory")
    if from_dir is not None:
        from stackaudit.fleet.directory import directory_gatherer

        gather, entries, hidden = directory_gatherer(from_dir, allow_shared_dir)
        return gather, "directory", hidden, entries
    if inventory is not None:
        _need_extra("ansible")
        from stackaudit.fleet.ansible import ansible_gatherer  # type: ignore[import-not-found,unused-ignore]

        return ansible_gatherer(inventory, limit, forks, zipapp, timeout_s=timeout_s), "ansible", 0, None
    _need_extra("ray")
    from stackaudit.fleet.ray_nodes import ray_gatherer  # type: ignore[import-not-found,unused-ignore]

    return ray_gatherer(ray_address or None, timeout_s=timeout_s), "ray", 0, None


class _Display:
    """Progress on stderr while nodes answer and audits finish (rich; off without a terminal)."""

    def __init__(self, total: int | None) -> None:
        from stackaudit.cli.output import quiet

        self.progress: Any = None
        if not sys.stderr.isatty() or quiet():
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        self.answered = self.progress.add_task("nodes answered", total=total)
        self.audited = self.progress.add_task("nodes audited ", total=total)

    def __enter__(self) -> _Display:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def on_outcome(self, outcome: Any, n: int) -> None:
        if self.progress is not None:
            self.progress.update(self.answered, completed=n)

    def on_summary(self, summary: Any) -> None:
        if self.progress is not None:
            self.progress.advance(self.audited)


@click.command("fleet", cls=Command)
@click.option("--inventory", "-i", metavar="FILE", help="Ansible inventory: capture every host over SSH (stackaudit[fleet]).")
@click.option("--limit", "-l", metavar="GROUP", help="Only these inventory hosts or groups (Ansible's --limit).")
@click.option("--forks", type=click.IntRange(1, 1000), default=50, metavar="N",
              help="Hosts Ansible captures at once.")
@click.option("--zipapp", metavar="FILE", help="The stackaudit.pyz copied to every host (default: the gatherer's).")
@click.option("--ray", "ray_address", is_flag=False, flag_value="", default=None, metavar="[ADDRESS]",
              help="Capture every alive node of this Ray cluster (default: the one this machine belongs to; "
                   "stackaudit[ray]).")
@click.option("--from", "from_dir", metavar="DIR",
              help="A directory of snapshots, one per node, named after it (node-07.tar.gz): what the Slurm and "
                   "Kubernetes recipes of docs/fleet.md write.")
@click.option("--allow-shared-dir", is_flag=True,
              help="With --from: read a directory that users other than its owner can write (links in it are "
                   "still never followed).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(1, 3600), default=300.0, metavar="SECONDS",
              help="Seconds a node's capture may run (Ansible, Ray) before it is reported timed out.")
@format_option("fleet")
@output_option("Write the fleet report to FILE.")
@click.option("--workers", type=click.IntRange(1, 256), default=None, metavar="N",
              help="Processes auditing snapshots [default: min(2, CPUs)].")
@click.option("--fail-on", metavar="LEVEL",
              help="Exit 1 on an issue at or above P0, P1 or P2 on any node, or with `drift` on any drift.")
@click.option("--waivers", metavar="FILE", help="Waiver file applied to every node (default: ./stackaudit.toml).")
def command(inventory: str | None, limit: str | None, forks: int, zipapp: str | None, ray_address: str | None,
            from_dir: str | None, timeout_s: float, fmt: str, output: str | None, workers: int | None, fail_on: str | None,
            waivers: str | None, allow_shared_dir: bool) -> int:
    """Audit every node of a cluster and report drift between nodes that should be alike.

    Exit 1 when a node failed (named with its reason) or --fail-on found what it gates on; 2 for usage errors.
    """
    import tempfile

    from stackaudit.cli.output import emit, invocation
    from stackaudit.fleet.analysis import analyse
    from stackaudit.fleet.render import FAIL_ON, document, exit_code, render
    from stackaudit.render.formats import check_format
    from stackaudit.report.waivers import find_waivers

    fmt = check_format("fleet", fmt)
    gate = None
    if fail_on is not None:
        gate = fail_on.upper() if fail_on.upper() in FAIL_ON else fail_on.lower()
        if gate not in FAIL_ON:
            raise UsageError(f"--fail-on takes {', '.join(FAIL_ON)}, not {fail_on!r}")
    found = find_waivers(waivers)
    if allow_shared_dir and from_dir is None:
        raise UsageError("--allow-shared-dir goes with --from DIR")
    gather, name, hidden, total = _gatherer(inventory, limit, forks, zipapp, ray_address, from_dir, timeout_s,
                                            allow_shared_dir)
    with tempfile.TemporaryDirectory(prefix="stackaudit-fleet-") as dest, _Display(total) as display:
        outcomes: Iterator[Any] = iter(gather(dest, display.on_outcome))
        summaries = analyse(outcomes, workers, found, display.on_summary)
    doc = document(summaries, name, argv=invocation(), fail_on=gate, hidden_entries=hidden)
    emit(render(doc, fmt), output, fmt)
    return exit_code(doc)
