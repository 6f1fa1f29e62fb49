"""Partial is said where it is read (issue 31): timed-out facts, --allow-partial and set-aside outputs in the
verdict, the headline counts and the JSON summary; --fail-on treats a timed-out read like an errored check;
a snapshot is recognised by its content whatever its member names' prefix."""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path

import pytest

from stackaudit.cli.audit import open_from
from stackaudit.engine.runner import Report
from stackaudit.errors import EXIT_FINDINGS, EXIT_OK
from stackaudit.host.memory import HostRecord
from stackaudit.host.snapshot_writer import write_snapshot
from stackaudit.importers import _compressed
from stackaudit.report.render import exit_code, render
from stackaudit.report.sections import RenderOptions

HOST = {"hostname": "gpu-01", "gpus": {"count": 8}, "engine_processes": ["pid 4101 (vLLM api-server)"]}


def _report(timed_out: list[str] = (), **source: object) -> Report:  # type: ignore[assignment]
    return Report(source={"kind": "snapshot", "files": ["host.tar.gz"], **source}, host=dict(HOST), results=[],
                  timed_out=list(timed_out))


@pytest.mark.parametrize(("report", "reasons"), [
    (_report(["fact gpus: timed out", "fact nvidia: timed out", "`nvidia-smi -q -x` (timed out after 10 s)"]),
     ["2 facts timed out", "1 command timed out"]),
    (_report(partial="member fs/x does not match the manifest"), ["snapshot replayed with --allow-partial"]),
    (_report(set_aside=["lscpu of host b"]), ["1 of another host's outputs set aside"]),
    (_report(), []),
])
@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json"])
def test_partial_is_in_the_verdict_of_every_reading_format(report: Report, reasons: list[str], fmt: str) -> None:
    out = render(report, fmt, options=RenderOptions(argv=["audit"]))
    if fmt == "json":
        doc = json.loads(out)
        assert doc["summary"]["partial"] == reasons
        out = doc["verdict"]
    if not reasons:
        assert "partial" not in out.lower()
    else:
        said = "partial: " + ", ".join(reasons)
        assert (said.replace("'", "&#x27;") if fmt == "html" else said) in out


def test_the_headline_counts_timed_out_reads() -> None:
    from stackaudit.report.sections import headline_lines

    counts = headline_lines(_report(["fact gpus: timed out"]))[2]
    assert counts.endswith("errors 0 · timed out 1")
    assert "timed out" not in headline_lines(_report())[2]


@pytest.mark.parametrize(("timed_out", "fail_on", "code"), [
    (["fact gpus: timed out"], "P2", EXIT_FINDINGS),
    (["fact gpus: timed out"], None, EXIT_OK),  # without --fail-on the exit code never gates
    ([], "P0", EXIT_OK),
])
def test_fail_on_treats_a_timed_out_read_like_an_errored_check(timed_out: list[str], fail_on: str | None,
                                                                code: int) -> None:
    assert exit_code(_report(timed_out), fail_on) == code


def _repacked(snapshot_dir: Path, out: Path, arcname: str) -> Path:
    """The snapshot directory packed as `tar -czf out -C dir .` packs it: members `./…`, meta.json anywhere."""
    with tarfile.open(out, "w:gz") as tar:
        for name in sorted(os.listdir(snapshot_dir), reverse=True):  # meta.json is not the first member
            tar.add(snapshot_dir / name, arcname=f"{arcname}/{name}" if arcname else name)
    return out


@pytest.mark.parametrize("arcname", [".", "snap", ""])
def test_a_snapshot_is_recognised_whatever_its_member_prefix(tmp_path: Path, arcname: str) -> None:
    snap = tmp_path / "snap"
    write_snapshot(HostRecord(meta={"hostname": "gpu-01"}, files={"/proc/cmdline": b"ro quiet\n"}),
                   str(snap))
    packed = _repacked(snap, tmp_path / "x.tar.gz", arcname)
    assert not _compressed.is_archive(str(packed))
    host = open_from([str(packed)])
    assert host.meta.source == "snapshot" and host.meta.hostname == "gpu-01"
    assert host.read_bytes("/proc/cmdline") == b"ro quiet\n"


def test_a_tarball_without_meta_json_is_still_an_archive_of_outputs(tmp_path: Path) -> None:
    top = tmp_path / "sosreport-h"
    (top / "proc").mkdir(parents=True)
    (top / "proc" / "cmdline").write_text("ro quiet\n")
    packed = _repacked(tmp_path, tmp_path / "sos.tar.gz", ".")
    assert _compressed.is_archive(str(packed))


def test_junit_errs_on_a_timed_out_read() -> None:
    import xml.etree.ElementTree as ET

    from stackaudit.report.junit import COLLECTION_TEST

    xmlschema = pytest.importorskip("xmlschema")
    text = render(_report(["fact gpus: timed out"]), "junit")
    xmlschema.XMLSchema(str(Path(__file__).resolve().parent / "data" / "junit" / "JUnit.xsd")).validate(text)
    suite = ET.fromstring(text)
    assert suite.get("errors") == "1" and suite.get("tests") == "1"
    error = suite.find(f"testcase[@name='{COLLECTION_TEST}']/error")
    assert error is not None and error.get("message") == "partial: 1 fact timed out"
    clean = ET.fromstring(render(_report(), "junit"))
    assert clean.get("errors") == "0" and clean.find(f"testcase[@name='{COLLECTION_TEST}']") is None
