"""`audit`, `capture`, `checks`, `explain`: argument wiring only."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

import click

from stackaudit.cli.options import (
    DIR,
    FILE,
    Command,
    HelpArgument,
    format_option,
    output_option,
    terminal_width,
    wrapped,
)
from stackaudit.cli.output import colour_wanted, emit, invocation, split_csv, split_paths
from stackaudit.errors import InputError, UsageError, input_mode

if TYPE_CHECKING:
    from stackaudit.engine.measured import Endpoint


def _check_from(path: str) -> None:
    """--from takes regular files and directories only: a FIFO or a device would block or never end."""
    import stat

    mode = input_mode(path, f"--from {path}")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(f"--from {path}: not a regular file or directory")


def _history_rate(endpoints: list[Endpoint]) -> tuple[float, str] | None:
    """The `bench` history's latest single-stream run for an engine's endpoint (read-only; no database is made)."""
    from stackaudit.bench.history import single_stream_rate

    return single_stream_rate(endpoints)


def _measured(text: str | None) -> float | None:
    """`--measured TOKS` as a number, or a one-line usage error (exit 2)."""
    if text is None:
        return None
    from stackaudit.engine.measured import parse_measured

    try:
        return parse_measured(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def headline_ceiling(model: str | None = None, weights: str | None = None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The headline ceiling the audit hands the engine (`AuditOptions.ceiling`): `--model PATH|ID` resolved (a
    file, a directory, this machine's HF cache, the catalogue) and `--weights` checked, before any fact is
    collected, so a bad value is one line and exit 2."""
    choice = None
    if model is not None:
        from stackaudit.ceiling.headline import resolve_model

        choice = resolve_model(model)
    if weights is not None:
        from stackaudit.ceiling.weights import parse_weights

        parse_weights(weights)

    def fields(facts: dict[str, Any]) -> dict[str, Any]:
        # Imported when an audit runs, not when `compare` reads two JSON reports.
        from stackaudit.ceiling.headline import ceiling_fields

        return ceiling_fields(facts, choice, weights)

    return fields


def open_from(sources: list[str], allow_partial: bool = False):  # type: ignore[no-untyped-def]
    """The host `--from` names: one snapshot, pasted text files, or both (audit and investigate alike).
    `-` is stdin (a paste or a snapshot tarball), read whole into a private temporary file first."""
    if "-" in sources:
        import tempfile

        from stackaudit.cli.output import stdin_to_file
        from stackaudit.importers.registry import MAX_PASTE_BYTES

        if sources.count("-") > 1:
            raise UsageError("--from - (stdin) can be given once")
        with tempfile.TemporaryDirectory(prefix="stackaudit-stdin-") as directory:
            piped = stdin_to_file(directory, "--from -", MAX_PASTE_BYTES)
            # Everything is read into memory while loading: the temporary file can go afterwards.
            return open_from([piped if p == "-" else p for p in sources], allow_partial)
    from stackaudit.host.snapshot_reader import is_snapshot, load_snapshot
    from stackaudit.importers._compressed import is_archive

    for path in sources:
        _check_from(path)
    # A compressed file that is not a snapshot is an archive of outputs (nvidia-bug-report, sosreport).
    snapshots = [p for p in sources if is_snapshot(p) and not is_archive(p)]
    if len(snapshots) > 1:
        raise UsageError("--from takes at most one snapshot (plus any number of pasted-output text files)")
    pasted = [p for p in sources if p not in snapshots]
    if not snapshots:
        from stackaudit.importers.pasted import load_pasted

        return load_pasted(pasted)
    host = load_snapshot(snapshots[0], allow_partial=allow_partial)
    if not pasted:
        return host
    from stackaudit.host.memory import add_pasted
    from stackaudit.importers.pasted import load_pasted

    return add_pasted(host, load_pasted(pasted))


def _open_source(sources: list[str], root: str, command_timeout: float,  # type: ignore[no-untyped-def]
                 allow_partial: bool = False):
    """The host to audit: live (optionally under --root), a snapshot, or pasted text files."""
    if sources:
        return open_from(sources, allow_partial)
    from stackaudit.host.live import LiveHost

    if not os.path.isdir(root):
        raise InputError(f"--root {root}: not a directory")
    return LiveHost(root=root, command_timeout=command_timeout)


def _run_with_progress(host, options, show: bool):  # type: ignore[no-untyped-def]
    from stackaudit.engine.runner import run_audit

    if not show:
        return run_audit(host, options)
    from rich.console import Console

    console = Console(stderr=True)
    with console.status("collecting facts and running checks…", spinner="dots"):
        return run_audit(host, options)


def _recognised_kinds(width: int) -> str:
    """The `audit --help` epilog: every kind of pasted output --from recognises, from the recogniser
    registry (imported only when the help is shown)."""
    from stackaudit.importers.registry import recognised_kinds

    return wrapped("Pasted outputs --from recognises (any mix, in one file or several):", recognised_kinds(),
                   width)


def _deadline_options(func: Any) -> Any:
    func = click.option("--command-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="Seconds for each command.")(func)
    return click.option("--deadline", type=float, default=20.0, metavar="SECONDS",
                        help="Seconds for the whole fact collection.")(func)


@click.command("audit", cls=Command, epilog_factory=_recognised_kinds)
@click.option("--from", "sources", multiple=True, type=FILE, metavar="PATH",
              help="Audit a snapshot (.tar.gz or directory) or pasted command outputs (text files; - for "
              "stdin); repeat it or give a comma list.")
@format_option("audit")
@output_option("Write the report to FILE.")
@click.option("--select", multiple=True, metavar="IDS", help="Only these check IDs or domains (comma list).")
@click.option("--ignore", multiple=True, metavar="IDS", help="Skip these check IDs or domains (comma list).")
@click.option("--fail-on", metavar="PRIORITY", help="Exit 1 on a result at or above P0, P1 or P2, a check that "
              "errored or a read that timed out.")
@click.option("--waivers", type=FILE, metavar="FILE", help="Waiver file (default: ./stackaudit.toml).")
@click.option("--root", default="/", type=DIR, metavar="DIR", help="Audit a host filesystem mounted at this directory.")
@_deadline_options
@click.option("--color/--no-color", default=None, show_default=False,
              help="Force colours on or off (default: on a terminal, unless NO_COLOR is set).")
@click.option("--sample", type=float, default=0.0, metavar="SECONDS",
              help="Sample GPU clocks, power, clock event reasons and PCIe link for SECONDS (NVML; run it under "
              "load).")
@click.option("--verbose", "-v", is_flag=True, help="Show everything: why each finding matters, what each "
              "unknown check lacks, the not-applicable checks.")
@click.option("--quiet", "-q", is_flag=True, help="Nothing on stderr but errors (no progress indicator).")
@click.option("--allow-partial", is_flag=True, help="Replay a snapshot that is cut short or fails its "
              "manifest; the report is marked partial.")
@click.option("--gate-samples", is_flag=True, help="Let checks of sampled values (CPU pressure, clocks, swap in "
              "use) gate --fail-on and JUnit like any other; by default they are reported but never gate.")
@click.option("--pid", "--engine", "engine_pid", type=int, default=None, metavar="PID",
              help="The engine to audit on a box running several (any PID of its processes); without it every "
              "engine found is read, another user's named as such.")
@click.option("--measured", metavar="TOKS", help="A measured decode rate (tokens/s per stream): the header "
              "compares it with the ceiling.")
@click.option("--model", "model", metavar="MODEL", help="The served model for the ceiling: a config.json, a "
              "model directory, or an id (this machine's Hugging Face cache, else stackaudit's catalogue; never a "
              "download).")
@click.option("--weights", metavar="SPEC", help="The weights' formats for the ceiling, as `stackaudit ceiling "
              "--weights` takes them (nvfp4, fp8, nvfp4,attention=bf16 ...).")
def audit(sources: tuple[str, ...], fmt: str, output: Optional[str], select: tuple[str, ...],
          ignore: tuple[str, ...], fail_on: Optional[str], waivers: Optional[str], root: str, deadline: float,
          command_timeout: float, color: Optional[bool], sample: float, verbose: bool, quiet: bool,
          allow_partial: bool, gate_samples: bool, engine_pid: Optional[int], measured: Optional[str],
          model: Optional[str], weights: Optional[str]) -> int:
    """Audit this machine (or a snapshot / pasted outputs) and print the consolidated report."""
    from stackaudit.engine.runner import AuditOptions
    from stackaudit.render.formats import check_format
    from stackaudit.report.render import FAIL_ON, exit_code, render
    from stackaudit.report.sections import RenderOptions
    from stackaudit.report.waivers import find_waivers

    fmt = check_format("audit", fmt)
    if fail_on and fail_on.upper() not in FAIL_ON:
        raise UsageError(f"--fail-on takes P0, P1 or P2, not {fail_on!r}")
    if deadline <= 0 or command_timeout <= 0:
        raise UsageError("--deadline and --command-timeout must be positive")
    if not 0 <= sample <= 600:
        raise UsageError("--sample takes 0 to 600 seconds")
    if quiet and verbose:
        raise UsageError("--quiet and --verbose: give one")
    if engine_pid is not None and engine_pid <= 0:
        raise UsageError(f"--pid takes a process ID (a positive number), not {engine_pid}")
    measured_tok_s = _measured(measured)
    ceiling = headline_ceiling(model, weights)
    options = AuditOptions(select=split_csv(select), ignore=split_csv(ignore), deadline_s=deadline,
                           waivers=find_waivers(waivers), sample_s=sample, engine_pid=engine_pid or 0,
                           ceiling=ceiling, measured=measured_tok_s,
                           history_rate=_history_rate)
    paths = split_paths(sources)
    if engine_pid and not paths and not os.path.isdir(f"/proc/{engine_pid}"):
        raise InputError(f"--pid {engine_pid}: no such process")
    host = _open_source(paths, root, command_timeout, allow_partial)
    show_progress = sys.stderr.isatty() and not paths and not quiet
    report = _run_with_progress(host, options, show_progress)
    to_stdout = not output or output == "-"
    use_color = colour_wanted(color, sys.stdout) if fmt == "text" and to_stdout else bool(color)
    # Prose wrapped to the terminal's width on a terminal; COLUMNS, else 80, in a file or a pipe.
    width = terminal_width(sys.stdout if to_stdout else None)
    options_out = RenderOptions(argv=invocation(), verbose=verbose, width=width, gate_samples=gate_samples)
    emit(render(report, fmt, color=use_color, options=options_out), output, fmt, colour=use_color)
    return exit_code(report, fail_on, gate_samples)


@click.command("capture", cls=Command)
@click.option("--output", "-o", required=True, type=FILE, metavar="PATH",
              help="Snapshot to write: FILE.tar.gz, a directory, or - for a .tar.gz on stdout.")
@click.option("--root", default="/", type=DIR, metavar="DIR", help="Capture a host filesystem mounted at this directory.")
@_deadline_options
def capture(output: str, root: str, deadline: float, command_timeout: float) -> None:
    """Record everything the audit reads into a snapshot (secrets redacted), to audit elsewhere."""
    from stackaudit.capture import capture_host
    from stackaudit.cli.output import note

    if output == "-":
        if sys.stdout.isatty():
            raise UsageError("capture -o -: stdout is a terminal; redirect it (> host.tar.gz) or pipe it")
        import shutil
        import tempfile

        host = _open_source([], root, command_timeout)
        with tempfile.TemporaryDirectory(prefix="stackaudit-capture-") as directory:
            path = os.path.join(directory, "snapshot.tar.gz")
            summary, redactions = capture_host(host, path, deadline)
            with open(path, "rb") as fh:
                shutil.copyfileobj(fh, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        note(f"stackaudit: wrote the snapshot to stdout ({summary})")
        note(redactions)
        return
    if os.path.lexists(output):
        raise InputError(f"{output} exists; choose a new path (nothing was overwritten)")
    host = _open_source([], root, command_timeout)
    summary, redactions = capture_host(host, output, deadline)
    note(f"stackaudit: wrote {output} ({summary})")
    note(redactions)


@click.command("checks", cls=Command)
@format_option("catalogue")
@output_option()
def list_checks(fmt: str, output: Optional[str]) -> None:
    """List the catalogue: ID, domain, severity, summary."""
    from stackaudit.catalogue import render_catalogue
    from stackaudit.render.formats import check_format

    emit(render_catalogue(check_format("catalogue", fmt)), output)


@click.command("explain", cls=Command)
@click.argument("check_id", cls=HelpArgument, metavar="CHECK_ID", help="A check ID, e.g. KERN-NUMA-BALANCING.")
@format_option("catalogue")
def explain(check_id: str, fmt: str) -> None:
    """Print one check's documentation: what it reads, the bad value, why, the fix, the traps."""
    from stackaudit.catalogue import explain_check
    from stackaudit.render.formats import check_format

    emit(explain_check(check_id, check_format("catalogue", fmt)), None)


commands = [audit, capture, list_checks, explain]
