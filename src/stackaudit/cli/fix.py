"""`stackaudit fix`: argument wiring only; the plan lives in stackaudit.fixes.plan (docs/fix.md)."""

from __future__ import annotations

import json
import os
from typing import Any, Optional

import click

from stackaudit.cli.options import DIR, FILE, Command, format_option
from stackaudit.cli.output import split_paths
from stackaudit.errors import UsageError

BOOT_LOADER_CHOICES = ("auto", "grub", "systemd-boot", "unknown")


def _read_report(path: str) -> dict[str, Any]:
    """A saved `audit --format json` report (schema 2), or a one-line error."""
    from stackaudit.report.json_report import read_audit_report

    return read_audit_report(path, f"--report {path}", "fix")


def boot_loader_of(host: Any, deadline: float) -> tuple[str, str]:
    """(name, evidence) of the boot loader the source shows, or ("", "")."""
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.boot_loader import BootLoader
    from stackaudit.facts.registry import load_all
    from stackaudit.host.recording import RedactingHost

    load_all()
    collector = Collector(RedactingHost(host), deadline)
    collector.start(["boot_loader"])
    found = collector.results(["boot_loader"]).get("boot_loader")
    return (found.name, found.evidence) if isinstance(found, BootLoader) else ("", "")


def _check_apply(revert: str | None, apply: bool, yes: bool, journal: str | None, other_source: bool,
                 output: str | None) -> None:
    """The refusals of --apply / --revert: one line each, exit 2, before anything is read or changed."""
    import sys

    if revert is not None and apply:
        raise UsageError("--apply and --revert: give one")
    if other_source:
        raise UsageError("--apply and --revert work on this host only, not with --from, --report or --root")
    if output:
        raise UsageError("--output goes with the printed plan, not with --apply or --revert")
    if os.geteuid() != 0:
        raise UsageError("--apply and --revert change kernel settings: run as root")
    if apply and not yes and not sys.stdin.isatty():
        raise UsageError("--apply without a terminal to confirm on: pass --yes")
    if journal and not apply:
        raise UsageError("--journal goes with --apply")


def _apply(plan: Any, root: str, yes: bool, journal: str | None, deadline: float) -> int:
    from stackaudit.engine.runner import AuditOptions, run_audit
    from stackaudit.fixes.apply import System, apply_plan
    from stackaudit.fixes.journal import default_path
    from stackaudit.host.live import LiveHost

    def verify(ids: Any) -> dict[str, str]:
        report = run_audit(LiveHost(root), AuditOptions(select=list(ids), deadline_s=deadline))
        return {r.id: r.status for r in report.results}

    def confirm(question: str) -> bool:
        return yes or click.confirm(question, default=False)

    return apply_plan(plan, System(root), journal or default_path(), verify, confirm, _say)


def _say(line: str) -> None:
    """A fix message: journal and host values in it are data, shown with their control characters escaped."""
    from stackaudit.terminal import escape_terminal

    click.echo(escape_terminal(line))


@click.command("fix", cls=Command)
@click.option("--from", "sources", multiple=True, type=FILE, metavar="PATH",
              help="Plan for a snapshot (.tar.gz or directory) or pasted command outputs; repeat it or give a "
              "comma list.")
@click.option("--report", type=FILE, metavar="FILE", help="Plan for a saved JSON report (audit --format json).")
@click.option("--only", multiple=True, metavar="IDS", help="Only these check IDs (comma list).")
@click.option("--priority", metavar="PRIORITY", help="P0, P1 or P2: that priority and above.")
@format_option("fix-plan", notes={"text": "a bash script"})
@click.option("--output", "-o", type=FILE, metavar="FILE", help="Write the plan to FILE (mode 0600).")
@click.option("--force", is_flag=True, help="With --output: replace an existing file.")
@click.option("--boot-loader", default="auto", metavar="LOADER",
              help="auto (from the source), grub, systemd-boot or unknown (both kernel-command-line forms).")
@click.option("--waivers", type=FILE, metavar="FILE", help="Waiver file (default: ./stackaudit.toml).")
@click.option("--root", default="/", type=DIR, metavar="DIR", help="Audit a host filesystem mounted at this directory.")
@click.option("--deadline", type=click.FLOAT, default=20.0, metavar="SECONDS",
              help="Seconds for the whole fact collection.")
@click.option("--command-timeout", type=click.FLOAT, default=10.0, metavar="SECONDS", help="Seconds for each command.")
@click.option("--apply", is_flag=True, help="Apply the runtime steps here, as root (journal first).")
@click.option("--yes", is_flag=True, help="With --apply: do not ask for confirmation.")
@click.option("--journal", type=FILE, metavar="FILE", help="With --apply: the journal file to create.")
@click.option("--revert", type=FILE, metavar="JOURNAL", help="Restore every value a journal recorded.")
def command(sources: tuple[str, ...], report: Optional[str], only: tuple[str, ...], priority: Optional[str],
            fmt: str, output: Optional[str], force: bool, boot_loader: str, waivers: Optional[str], root: str,
            deadline: float, command_timeout: float, apply: bool, yes: bool, journal: Optional[str],
            revert: Optional[str]) -> int:
    """Print the plan that fixes what the audit found, as a bash script grouped by what each step costs."""
    from stackaudit.cli.audit import _open_source
    from stackaudit.cli.output import emit, split_csv
    from stackaudit.engine.runner import utc_now
    from stackaudit.fixes.plan import build_plan
    from stackaudit.fixes.plan_render import render
    from stackaudit.render.formats import check_format
    from stackaudit.render.write import write_file

    fmt = check_format("fix-plan", fmt)
    boot_loader = boot_loader.lower()
    if boot_loader not in BOOT_LOADER_CHOICES:
        raise UsageError(f"--boot-loader: choose one of {', '.join(BOOT_LOADER_CHOICES)}, not {boot_loader!r}")
    if report and sources:
        raise UsageError("--report and --from: give one source")
    if priority is not None and priority.upper() not in ("P0", "P1", "P2"):
        raise UsageError(f"--priority takes P0, P1 or P2, not {priority!r}")
    if force and not output:
        raise UsageError("--force goes with --output")
    if deadline <= 0 or command_timeout <= 0:
        raise UsageError("--deadline and --command-timeout must be positive")
    if revert is not None or apply:
        _check_apply(revert, apply, yes, journal, bool(report or sources) or os.path.abspath(root) != "/", output)
    from stackaudit.checks.registry import load_all

    load_all()  # the catalogue of fixes a revert and a saved report's plan are held to (fixes/catalogue_fix.py)
    if revert is not None:
        from stackaudit.fixes.apply import System, revert_journal

        return revert_journal(revert, System(root), _say)
    loader, evidence = (boot_loader, "--boot-loader") if boot_loader in ("grub", "systemd-boot") else ("", "")
    if report:
        doc = _read_report(report)
        from stackaudit.engine.runner import file_name

        name = file_name(report)
        source = {"kind": "report", "files": [name], "audited": doc.get("source")}
    else:
        from stackaudit.engine.runner import AuditOptions, run_audit
        from stackaudit.report.json_report import report_to_json
        from stackaudit.report.waivers import find_waivers

        host = _open_source(split_paths(sources), root, command_timeout)
        audited = run_audit(host, AuditOptions(deadline_s=deadline, waivers=find_waivers(waivers)))
        # Through the JSON encoding, as a saved report would be read: one path to the plan.
        doc = json.loads(json.dumps(report_to_json(audited)))
        name, source = "the audit", None
        if boot_loader == "auto":
            loader, evidence = boot_loader_of(host, deadline)
    plan = build_plan(doc, boot_loader=loader, boot_evidence=evidence, only=split_csv(only),
                      priority=priority or "", source=source, generated_at=utc_now(), name=name,
                      catalogue_only=bool(report))
    if apply:
        return _apply(plan, root, yes, journal, deadline)
    text = render(plan, fmt)
    if output and output != "-":
        write_file(output, text, force=force)
    else:
        emit(text, None)
    return 0
