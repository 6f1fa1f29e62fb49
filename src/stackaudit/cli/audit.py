"""`audit`, `capture`, `checks`, `explain`: argument wiring only."""

from __future__ import annotations

import os
import sys
from typing import Optional

import typer

from stackaudit.cli.main import app
from stackaudit.cli.output import colour_wanted, emit, format_option, invocation, split_csv, split_paths
from stackaudit.errors import InputError, UsageError
from stackaudit.host.terminal import escape_terminal

_FORMAT_HELP = "Output format: text, markdown or json."


def _check_from(path: str) -> None:
    """--from takes regular files and directories only: a FIFO or a device would block or never end."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"--from {path}: no such file or directory") from None
    except OSError as exc:
        raise InputError(f"--from {path}: {exc.strerror}") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(f"--from {path}: not a regular file or directory")


def _measured(text: str | None) -> float | None:
    """`--measured TOKS` as a number, or a one-line usage error (exit 2)."""
    if text is None:
        return None
    from stackaudit.engine.ceiling_line import parse_measured

    try:
        return parse_measured(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _open_source(sources: list[str], root: str, command_timeout: float,  # type: ignore[no-untyped-def]
                 allow_partial: bool = False):
    """The host to audit: live (optionally under --root), a snapshot, or pasted text files."""
    if sources:
        from stackaudit.host.memory import is_snapshot, load_snapshot
        from stackaudit.importers._archives import is_archive
        from stackaudit.importers.registry import load_pasted

        for path in sources:
            _check_from(path)
        # A compressed file that is not a snapshot is an archive of outputs (nvidia-bug-report, sosreport).
        snapshots = [p for p in sources if is_snapshot(p) and not is_archive(p)]
        if len(snapshots) > 1:
            raise UsageError("--from takes at most one snapshot (plus any number of pasted-output text files)")
        pasted = [p for p in sources if p not in snapshots]
        if not snapshots:
            return load_pasted(pasted)
        host = load_snapshot(snapshots[0], allow_partial=allow_partial)
        if not pasted:
            return host
        from stackaudit.host.memory import add_pasted

        return add_pasted(host, load_pasted(pasted))
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


@app.command()
def audit(
    sources: Optional[list[str]] = typer.Option(
        None, "--from", help="Audit a snapshot (.tar.gz or directory) or pasted command outputs (text files); "
        "repeat it or give a comma list."
    ),
    fmt: str = typer.Option("text", "--format", "-f", callback=format_option, help=_FORMAT_HELP),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the report to FILE."),
    select: Optional[list[str]] = typer.Option(None, "--select", help="Only these check IDs or domains (comma list)."),
    ignore: Optional[list[str]] = typer.Option(None, "--ignore", help="Skip these check IDs or domains."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="Exit 1 on a result at or above P0, P1 or P2."),
    waivers: Optional[str] = typer.Option(None, "--waivers", help="Waiver file (default: ./stackaudit.toml)."),
    root: str = typer.Option("/", "--root", help="Audit a host filesystem mounted at this directory."),
    deadline: float = typer.Option(20.0, "--deadline", help="Seconds for the whole fact collection."),
    command_timeout: float = typer.Option(10.0, "--command-timeout", help="Seconds for each command."),
    color: Optional[bool] = typer.Option(None, "--color/--no-color", help="Force colours on or off."),
    sample: float = typer.Option(0.0, "--sample", help="Sample GPU clocks, power, clock event reasons and PCIe "
                                 "link for SECONDS (NVML; run it under load)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show everything: why each finding matters, "
                                 "what each unknown check lacks, the not-applicable checks."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Replay a snapshot that is cut short or "
                                       "fails its manifest; the report is marked partial."),
    measured: Optional[str] = typer.Option(None, "--measured", metavar="TOKS", help="A measured decode rate "
                                           "(tokens/s per stream): the header compares it with the ceiling."),
) -> None:
    """Audit this machine (or a snapshot / pasted outputs) and print the consolidated report."""
    from stackaudit.engine.runner import AuditOptions
    from stackaudit.report.render import FAIL_ON, FORMATS, exit_code, render
    from stackaudit.report.sections import RenderOptions
    from stackaudit.report.waivers import find_waivers

    if fmt not in FORMATS:
        raise UsageError(f"--format: choose one of {', '.join(FORMATS)}, not {fmt!r}")
    if fail_on and fail_on.upper() not in FAIL_ON:
        raise UsageError(f"--fail-on takes P0, P1 or P2, not {fail_on!r}")
    if deadline <= 0 or command_timeout <= 0:
        raise UsageError("--deadline and --command-timeout must be positive")
    if not 0 <= sample <= 600:
        raise UsageError("--sample takes 0 to 600 seconds")
    measured_tok_s = _measured(measured)
    options = AuditOptions(select=split_csv(select), ignore=split_csv(ignore), deadline_s=deadline,
                           waivers=find_waivers(waivers), sample_s=sample)
    sources = split_paths(sources)
    host = _open_source(sources, root, command_timeout, allow_partial)
    show_progress = sys.stderr.isatty() and not sources
    report = _run_with_progress(host, options, show_progress)
    if measured_tok_s is not None:
        from stackaudit.engine.ceiling_line import measured_vs_ceiling

        report.host["measured"] = measured_vs_ceiling(measured_tok_s, report.host)
    use_color = colour_wanted(color, sys.stdout) if fmt == "text" and not output else bool(color)
    options_out = RenderOptions(argv=invocation(), verbose=verbose)
    emit(render(report, fmt, color=use_color, options=options_out), output)
    raise typer.Exit(exit_code(report, fail_on))


@app.command()
def capture(
    output: str = typer.Option(..., "--output", "-o", help="Snapshot to write: FILE.tar.gz, or a directory."),
    root: str = typer.Option("/", "--root", help="Capture a host filesystem mounted at this directory."),
    deadline: float = typer.Option(20.0, "--deadline", help="Seconds for the whole fact collection."),
    command_timeout: float = typer.Option(10.0, "--command-timeout", help="Seconds for each command."),
) -> None:
    """Record everything the audit reads into a snapshot (secrets redacted), to audit elsewhere."""
    from stackaudit.capture import capture_host

    if os.path.lexists(output):
        raise InputError(f"{output} exists; choose a new path (nothing was overwritten)")
    host = _open_source([], root, command_timeout)
    summary, redactions = capture_host(host, output, deadline)
    sys.stderr.write(f"stackaudit: wrote {output} ({summary})\n")
    sys.stderr.write(escape_terminal(redactions) + "\n")


@app.command("checks")
def list_checks(
    fmt: str = typer.Option("text", "--format", "-f", callback=format_option, help=_FORMAT_HELP),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to FILE."),
) -> None:
    """List the catalogue: ID, domain, severity, summary."""
    from stackaudit.catalogue import render_catalogue

    emit(render_catalogue(fmt), output)


@app.command()
def explain(check_id: str = typer.Argument(..., help="A check ID, e.g. KERN-NUMA-BALANCING.")) -> None:
    """Print one check's documentation: what it reads, the bad value, why, the fix, the traps."""
    from stackaudit.catalogue import explain_check

    emit(explain_check(check_id), None)
