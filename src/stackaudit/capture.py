"""`stackaudit capture`: run every provider through a recording host and write the snapshot."""

from __future__ import annotations

import datetime as _dt

from stackaudit import __version__
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.host.base import Host
from stackaudit.host.memory import SNAPSHOT_FORMAT, write_snapshot
from stackaudit.host.recording import RecordingHost, RedactingHost


def capture_host(host: Host, output: str, deadline_s: float = 20.0) -> str:
    """Write a snapshot of exactly what the audit reads; returns a one-line summary."""
    recorder = RecordingHost(RedactingHost(host))
    report = run_audit(recorder, AuditOptions(deadline_s=deadline_s))
    record = recorder.record
    record.meta = {
        "format": SNAPSHOT_FORMAT,
        "tool_version": __version__,
        "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "hostname": host.meta.hostname,
        "uid": host.meta.uid,
        "container": report.host.get("container"),
        "source": "snapshot",
    }
    write_snapshot(record, output)
    return f"{len(record.files)} files, {len(record.commands)} commands, {len(report.results)} checks"
