"""The two sides of a comparison: a JSON report read back, or a snapshot audited now.

Both become a `Side`: the report's host inventory and its results by check ID, in the shape
`audit --format json` writes (a snapshot's audit goes through the same JSON encoding, so a report
and the snapshot it was made from read the same). Anything else is refused with one line (exit 2):
a missing path, a directory without meta.json, text that is not JSON, JSON that is not an audit
report, a report of another schema.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from stackaudit.compare.document import ReportResult, SideInfo
from stackaudit.engine.runner import AuditOptions, file_name
from stackaudit.errors import InputError, input_mode
from stackaudit.report.json_report import read_audit_report


@dataclass
class Side:
    """One side of a comparison, by file name (never its path: the output may be pasted anywhere)."""

    name: str
    kind: str  # "report" (read back) or "snapshot" (audited now)
    host: dict[str, object]
    results: dict[str, ReportResult]  # check ID -> the result as the JSON report holds it
    tool_version: str = ""
    generated_at: str = ""
    captured_at: str = ""
    origin: str = ""  # what the audit read: live, snapshot, pasted

    @property
    def hostname(self) -> str:
        return str(self.host.get("hostname") or "")

    def describe(self) -> SideInfo:
        """What the JSON output's `source.a` / `source.b` says about this side."""
        out: SideInfo = {"file": self.name, "kind": self.kind, "hostname": self.hostname or None,
                               "origin": self.origin or None, "tool_version": self.tool_version or None}
        if self.captured_at:
            out["captured_at"] = self.captured_at
        if self.kind == "report" and self.generated_at:
            out["generated_at"] = self.generated_at
        return out


def load_side(path: str, options: AuditOptions | None = None) -> Side:
    """A, or B: a JSON report (schema 2) or a snapshot, audited with `options` as `audit` would (its waivers and
    headline ceiling, which the CLI passes)."""
    mode = input_mode(path, path)
    from stackaudit.host.snapshot_reader import is_snapshot

    if stat.S_ISDIR(mode):
        if not is_snapshot(path):
            raise InputError(f"{path}: a directory that is not a stackaudit snapshot (no meta.json)")
        return _audited(path, options)
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: not a regular file or directory")
    if is_snapshot(path):  # gzip or tar: a snapshot, or an archive of command outputs
        from stackaudit.importers._compressed import is_archive

        if is_archive(path):
            raise InputError(f"{path}: compressed, but not a stackaudit snapshot (an archive of command outputs: "
                             "audit it with `stackaudit audit --from`, then compare the JSON reports)")
        return _audited(path, options)
    return _read_report(path)


def _audited(path: str, options: AuditOptions | None) -> Side:
    from stackaudit.engine.runner import run_audit
    from stackaudit.host.snapshot_reader import load_snapshot
    from stackaudit.report.json_report import report_to_json

    report = run_audit(load_snapshot(path), options)
    # Through the JSON encoding, as a report written to a file would be (tuples become lists).
    doc = json.loads(json.dumps(report_to_json(report)))
    return _side(file_name(path), "snapshot", doc)


def _read_report(path: str) -> Side:
    doc = read_audit_report(path, path, "compare", not_json="neither a snapshot nor a JSON report")
    return _side(file_name(path), "report", doc)


def _side(name: str, kind: str, doc: Mapping[str, object]) -> Side:
    results: dict[str, ReportResult] = {}
    for n, result in enumerate(cast("list[object]", doc["results"])):  # read_audit_report checked: a list
        if not (isinstance(result, dict) and isinstance(result.get("id"), str)
                and isinstance(result.get("status"), str)):
            raise InputError(f"{name}: result {n + 1} has no check ID or status: not a stackaudit audit report")
        if result["id"] in results:
            raise InputError(f"{name}: check {result['id']} appears twice: not a stackaudit audit report")
        results[result["id"]] = cast(ReportResult, result)

    def part(key: str) -> dict[str, object]:
        value = doc.get(key)
        return value if isinstance(value, dict) else {}

    host, source, tool = part("host"), part("source"), part("tool")
    return Side(name=name, kind=kind, host=dict(host), results=results,
                tool_version=str(tool.get("version") or ""),
                generated_at=str(doc.get("generated_at") or ""),
                captured_at=str(source.get("captured_at") or ""),
                origin=str(source.get("kind") or ""))
