"""Helpers for tests: run the real engine on a (fake) host."""

from __future__ import annotations

from collections.abc import Iterable

from stackaudit.engine.results import Result
from stackaudit.engine.runner import AuditOptions, Report, run_audit
from stackaudit.host.base import Host

# A test's verdict must not depend on how busy the machine is: the audit's deadline for the checks (5 s) turns a
# check slowed by a loaded machine into an error, so tests give the checks a minute.
TEST_DEADLINE_S = 60.0


def run_checks(host: Host, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> dict[str, Result]:
    """Results by check ID, through the same collection and evaluation as a real audit."""
    report = run_audit(host, AuditOptions(select=list(select), ignore=list(ignore), check_deadline_s=TEST_DEADLINE_S))
    return {r.id: r for r in report.results}


def audit_report(host: Host, select: Iterable[str] = ()) -> Report:
    return run_audit(host, AuditOptions(select=list(select), check_deadline_s=TEST_DEADLINE_S))
