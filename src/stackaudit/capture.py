"""`stackaudit capture`: run every provider through a recording host and write the snapshot.

What it records is redacted (host/redact.py) and, for processes that are neither serving engines, their
workers nor the daemons the checks read, withheld beyond their name: their command line and
environment stay out of the snapshot (docs/security.md).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import posixpath
import time
from collections.abc import Sequence

from stackaudit import __version__
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.errors import InputError
from stackaudit.host.base import Host, NotCaptured, list_or_none
from stackaudit.host.recording import RecordingHost, RedactingHost
from stackaudit.host.redact import rules_fingerprint
from stackaudit.host.snapshot_writer import SNAPSHOT_FORMAT, SnapshotWriteError, write_snapshot

# Daemons whose argv or environment checks read (persistence mode, fabric manager, MPS, display servers).
AUDITED_DAEMONS = frozenset({
    "nvidia-persistenced", "nv-fabricmanager", "nvidia-fabricmanager", "nvidia-cuda-mps-control",
    "nvidia-cuda-mps-server", "Xorg", "X", "Xwayland", "gnome-shell", "kwin_wayland", "weston", "sway",
    "gdm", "gdm3", "sddm", "lightdm",
})


def is_audited_process(argv: Sequence[str]) -> bool:
    """A serving engine, one of its workers or helpers, or a daemon the checks read."""
    from stackaudit.facts.processes import classify

    if not argv:
        return False
    if posixpath.basename(argv[0]) in AUDITED_DAEMONS:
        return True
    return classify(tuple(argv)) is not None


# Every process's identity (comm and uid from /proc/PID/status, the /proc/PID/exe link) is recorded, for at
# most this many processes and this long: what ran, and as whom, without its command line.
MAX_IDENTITIES = 4096
IDENTITIES_S = 5.0


def record_identities(host: Host) -> int:
    """Read (so that the recording host keeps) the status and exe link of every process in /proc."""
    pids = [n for n in list_or_none(host, "/proc") or () if n.isdecimal()][:MAX_IDENTITIES]
    stop = time.monotonic() + IDENTITIES_S
    done = 0
    for pid in pids:
        if time.monotonic() > stop:
            break
        with contextlib.suppress(OSError, NotCaptured):
            host.read_bytes(f"/proc/{pid}/status", 64 * 1024)
        with contextlib.suppress(OSError, NotCaptured):
            host.readlink(f"/proc/{pid}/exe")
        done += 1
    return done


def capture_host(host: Host, output: str, deadline_s: float = 20.0) -> tuple[str, str]:
    """Write a snapshot of exactly what the audit reads; returns a one-line summary and the redaction summary."""
    redacting = RedactingHost(host, keep_process=is_audited_process)
    recorder = RecordingHost(redacting)
    report = run_audit(recorder, AuditOptions(deadline_s=deadline_s))
    record_identities(recorder)
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
    fingerprint = rules_fingerprint()
    if fingerprint:
        record.meta["redaction"] = fingerprint  # what load_snapshot trusts instead of redacting again
    try:
        refused = write_snapshot(record, output)
    except (SnapshotWriteError, OSError) as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc} (nothing was left behind)") from exc
    except KeyboardInterrupt:
        raise InputError(f"capture of {output} interrupted (nothing was left behind)") from None
    summary = f"{len(record.files)} files, {len(record.commands)} commands, {len(report.results)} checks"
    if refused:
        summary += f", {refused} paths refused as member names"
    return summary, redacting.summary()
