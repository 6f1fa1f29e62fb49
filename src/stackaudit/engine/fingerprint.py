"""A host fingerprint for bench history: the values the audit observed, by name.

Two bench runs on the same host compare these to explain a difference ("KERN-CPUFREQ-GOVERNOR:
performance -> powersave"). Built from a real audit of this machine, so it names exactly the
knobs the audit checks. `split_fingerprint` separates configuration (what someone set) from
samples (what the host was doing at that instant): only configuration makes two runs differ.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from stackaudit.checks.registry import load_all as load_checks
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.host.base import Host

# Process IDs change between runs without anything changing on the host: not part of a fingerprint.
_PID = re.compile(r"\b(pid |/proc/)\d+")


def mask_pids(text: str) -> str:
    """`text` with each process ID after `pid ` or `/proc/` as `*` (compare and fleet mask them too)."""
    return _PID.sub(r"\1*", text)


def host_fingerprint(host: Host | None = None, deadline_s: float = 10.0) -> dict[str, str]:
    """Knob name -> observed value (JSON text), plus kernel, CPU and GPU inventory."""
    if host is None:
        from stackaudit.host.live import LiveHost

        host = LiveHost()
    report = run_audit(host, AuditOptions(deadline_s=deadline_s))
    out: dict[str, str] = {}
    for key in ("kernel", "cpu", "container", "numa_nodes"):
        value = report.host.get(key)
        if value is not None:
            out[f"host.{key}"] = str(value)
    gpus = report.host.get("gpus") or {}
    if gpus.get("count") is not None:
        out["host.gpus"] = str(gpus["count"])
    for result in report.results:
        if result.status in ("unknown", "error", "not-applicable") or result.actual is None:
            continue
        actual = result.actual
        text = actual if isinstance(actual, str) else json.dumps(actual, sort_keys=True, default=str)
        out[result.id] = mask_pids(text)
    return out


def split_fingerprint(fp: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(configuration, samples) of a host fingerprint: a check key is a sample when its check declares
    `sample=True`; host inventory keys and unknown keys are configuration."""
    checks = load_checks()
    configuration: dict[str, str] = {}
    samples: dict[str, str] = {}
    for key, value in fp.items():
        spec = checks.get(key)
        (samples if spec is not None and spec.sample else configuration)[key] = value
    return configuration, samples
