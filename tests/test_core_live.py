"""The live audit of the machine the tests run on, and its capture replayed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from stackaudit.capture import capture_host
from stackaudit.checks.registry import load_all
from stackaudit.engine.runner import run_audit
from stackaudit.host.live import LiveHost
from stackaudit.host.recording import RecordingHost
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.report.json_report import report_to_json

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "report.schema.json").read_text())


# Facts that read the machine's processes, which change between two reads while other tests run.
_PROCESS_FACTS = {"serving_processes", "parallelism", "engine_commands", "process_security", "docker_containers"}


def _comparable(data: dict) -> list[tuple]:  # type: ignore[type-arg]
    return [(r["id"], r["status"], r["message"], json.dumps(r["actual"], sort_keys=True)) for r in data["results"]]


def test_live_audit_completes_with_every_check_and_valid_json(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("audit", "--format", "json")
    assert run.rc == 0, run.err
    data = json.loads(run.out)
    jsonschema.validate(data, SCHEMA)
    assert {r["id"] for r in data["results"]} == set(load_all())
    assert data["source"]["kind"] == "live"
    assert data["summary"]["by_status"]["error"] == 0, [r for r in data["results"] if r["status"] == "error"]


def test_capture_replays_to_the_same_results(tmp_path) -> None:
    """What the capture run saw and what the snapshot replays are identical, result by result."""
    recorder = RecordingHost(LiveHost())
    live = report_to_json(run_audit(recorder))
    out = tmp_path / "host.tar.gz"
    capture_host(LiveHost(), str(out))
    replayed = report_to_json(run_audit(load_snapshot(str(out))))
    jsonschema.validate(replayed, SCHEMA)
    assert replayed["source"]["kind"] == "snapshot"
    # Same machine a moment later: statuses agree, except for checks that read the running processes,
    # which other tests start and stop meanwhile (a llama-server, a fake engine); against its own capture
    # run, below, everything agrees.
    moving = {spec.id for spec in load_all().values() if _PROCESS_FACTS & {*spec.facts, *spec.optional_facts}}
    assert [(i, s) for i, s, *_ in _comparable(live) if i not in moving] == \
        [(i, s) for i, s, *_ in _comparable(replayed) if i not in moving]
    direct = tmp_path / "direct"
    from stackaudit.host.snapshot_writer import write_snapshot

    recorder.record.meta = {"format": 1, "hostname": recorder.meta.hostname}
    write_snapshot(recorder.record, str(direct))
    assert _comparable(report_to_json(run_audit(load_snapshot(str(direct))))) == _comparable(live)


def test_cli_capture_then_audit_from(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "snap.tar.gz"
    run = cli("capture", "-o", str(out))
    assert run.rc == 0 and out.exists(), run.err
    run = cli("audit", "--from", str(out), "--format", "json")
    assert run.rc == 0, run.err
    data = json.loads(run.out)
    assert data["source"]["kind"] == "snapshot" and len(data["results"]) == len(load_all())
