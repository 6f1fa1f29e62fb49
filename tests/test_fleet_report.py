"""`stackaudit fleet --from DIR` end to end: planted drift on generated 8-GPU nodes, faults, formats, exit codes.

The nodes are tests/fleet_support.py's (modelled on real outputs; see its header), captured as `stackaudit capture`
writes snapshots. Six nodes, four with one planted difference each (driver version, one GPU's link width, a sysctl,
a kernel command-line option), every node with its own samples (CPU pressure, uptime). The expected differences
below are written by hand from what was planted: the report must name exactly those and nothing else.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from fleet_support import Node, has_row, write_node
from stackaudit.cli.main import main
from stackaudit.fleet.render import render

NODES = [
    Node("node-01", cpu_pressure=0.1, uptime_s=1_000),
    Node("node-02", driver="570.86.15", cpu_pressure=3.2, uptime_s=2_000),
    Node("node-03", narrow_gpu=3, cpu_pressure=0.7),
    Node("node-04", sysctl={"kernel__numa_balancing": 1}, uptime_s=500_000),
    Node("node-05", cmdline_extra=" pci=noaer", cpu_pressure=12.0),
    Node("node-06", cpu_pressure=0.0, uptime_s=77),
]
GPU3 = "0000:61:00.0"  # the fourth GPU (tests/fleet_support.py GPUS[3])
# (node, check, subject, kind): what each planted difference shows as, and nothing else.
PLANTED = {
    # the driver: the inventory and the three checks that report the version they judged
    ("node-02", "host", "driver", "value"),
    ("node-02", "DRV-CUDA-COMPAT", "driver", "value"),
    ("node-02", "DRV-GSP-FIRMWARE", "", "value"),
    ("node-02", "KVER-NVIDIA-KERNEL-COMBOS", "", "value"),
    # GPU 3's link at x8: the check's verdict and the GPU's value
    ("node-03", "PCIE-LINK-DOWNTRAIN", "", "status"),
    ("node-03", "PCIE-LINK-DOWNTRAIN", GPU3, "value"),
    # kernel.numa_balancing = 1
    ("node-04", "KERN-NUMA-BALANCING", "", "status"),
    ("node-04", "KERN-NUMA-BALANCING", "", "value"),
    # pci=noaer: the option itself, and AER that can no longer be judged
    ("node-05", "host", "cmdline/pci", "value"),
    ("node-05", "FW-AER-ERRORS", "", "status"),
}


def cli(*args: str) -> int:
    return main(["fleet", *args])


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fleet")
    for node in NODES:
        write_node(node, str(out / f"{node.hostname}.tar.gz"))
    return out


@pytest.fixture(scope="module")
def fleet_doc(fleet_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    report = tmp_path_factory.mktemp("out") / "fleet.json"
    assert cli("--from", str(fleet_dir), "--format", "json", "--workers", "2", "--output", str(report)) == 0
    return dict(json.loads(report.read_text()))


def _found(doc: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    return {(n, d["check"], d["subject"], d["kind"]) for d in doc["drift"] for o in d["odd"] for n in o["nodes"]}


def test_the_report_names_exactly_the_planted_differences(fleet_doc: dict[str, Any]) -> None:
    assert _found(fleet_doc) == PLANTED
    assert fleet_doc["groups"] == [{"group": "8× NVIDIA RTX PRO 6000 Blackwell Server Edition",
                                    "nodes": [n.hostname for n in NODES]}]
    for d in fleet_doc["drift"]:  # one odd node against the five others, every time
        assert not d["tie"] and d["majority"]["nodes"] == 5 and len(d["odd"]) == 1
    driver = next(d for d in fleet_doc["drift"] if d["check"] == "host" and d["subject"] == "driver")
    assert driver["majority"]["value"] == "580.65.06" and driver["odd"][0]["value"] == "570.86.15"
    drift_per_node = {n["node"]: n["drift"] for n in fleet_doc["nodes"]}
    assert drift_per_node == {"node-01": 0, "node-02": 4, "node-03": 2, "node-04": 2, "node-05": 2, "node-06": 0}


def test_text_names_the_node_the_value_and_the_majority(fleet_doc: dict[str, Any]) -> None:
    text = render(fleet_doc, "text")
    assert has_row(text, "node-02", "driver", "570.86.15", "580.65.06 on 5 others")
    assert has_row(text, "node-03", "PCIE-LINK-DOWNTRAIN", "issue P1", "ok on 5 others")
    assert re.search(rf"^  node-03 +PCIE-LINK-DOWNTRAIN {GPU3} +Gen5 x8 ", text, re.M)
    assert has_row(text, "node-04", "KERN-NUMA-BALANCING", "1", "0 on 5 others")
    assert has_row(text, "node-05", "kernel command line pci", "noaer", "(absent) on 5 others")
    assert "KERN-SCHED-KNOBS" not in text  # CPU pressure differs on every node: a sample, never drift


def test_issues_every_node_has_are_listed_once_as_shared(fleet_doc: dict[str, Any]) -> None:
    shared = {s["check"]: s for s in fleet_doc["shared"]}
    # The Turin kernel note is on every node; the planted issues are not. ACS redirect at the root ports is on every
    # node too, but at TP 8 no peer traffic crosses them: a conditional key negative, not an issue (issue 28).
    assert set(shared) == {"KVER-AMD-ZEN5"}
    assert shared["KVER-AMD-ZEN5"]["priority"] == "P2" and shared["KVER-AMD-ZEN5"]["title"]
    text = render(fleet_doc, "text")
    assert text.count("KVER-AMD-ZEN5") == 1


def test_samples_differ_between_nodes_but_never_reach_the_summary(fleet_dir: Path) -> None:
    from stackaudit.engine.runner import run_audit
    from stackaudit.fleet.analysis import summarise_snapshot
    from stackaudit.host.snapshot_reader import load_snapshot

    paths = [str(fleet_dir / f"{n}.tar.gz") for n in ("node-01", "node-05")]
    observed = [next(r.actual for r in run_audit(load_snapshot(p)).results if r.id == "KERN-SCHED-KNOBS")
                for p in paths]
    assert observed[0] != observed[1]  # the audits did see different CPU pressure
    for path in paths:
        summary = summarise_snapshot(os.path.basename(path), path)
        assert summary.ok and summary.samples > 0
        assert "KERN-SCHED-KNOBS" not in summary.checks
        assert not [k for k in summary.values if k[0] == "KERN-SCHED-KNOBS"]


def test_json_matches_its_schema_and_carries_the_envelope(fleet_doc: dict[str, Any]) -> None:
    import jsonschema

    from stackaudit import __version__

    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "fleet.schema.json").read_text())
    jsonschema.validate(fleet_doc, schema)
    assert list(fleet_doc)[:4] == ["schema", "tool", "source", "generated_at"]
    assert fleet_doc["schema"] == 1 and fleet_doc["tool"] == {"name": "stackaudit", "version": __version__}
    assert fleet_doc["source"] == {"gatherer": "directory", "nodes": 6}
    assert fleet_doc["command"].startswith("stackaudit fleet --from ")
    assert fleet_doc["summary"]["audited"] == 6 and fleet_doc["summary"]["failed"] == 0
    node3 = next(n for n in fleet_doc["nodes"] if n["node"] == "node-03")
    assert node3["issues"] == {"P0": 0, "P1": 1, "P2": 1}
    assert node3["inventory"]["gpu_count"] == "8" and node3["inventory"]["driver"] == "580.65.06"


def test_markdown_has_the_same_parts(fleet_doc: dict[str, Any]) -> None:
    from markdown_it import MarkdownIt

    md = render(fleet_doc, "markdown")
    assert md.startswith("# stackaudit fleet")
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert html.count("<table>") == 3  # nodes, drift, shared
    assert "<code>kernel command line pci</code>" in html and "<code>noaer</code>" in html


def _tampered(src: Path, dst: Path) -> None:
    """The snapshot with one member's bytes changed after capture: its manifest no longer matches."""
    with tarfile.open(src, "r:gz") as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()]  # type: ignore[union-attr]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as out:
        changed = False
        for member, data in members:
            if data is not None and not changed and member.name.endswith("proc/cmdline"):
                data, changed = data.replace(b"quiet", b"quiEt"), True
                member.size = len(data)
            out.addfile(member, io.BytesIO(data) if data is not None else None)
        assert changed
    dst.write_bytes(gzip.compress(buf.getvalue()))


@pytest.fixture(scope="module")
def faults_dir(fleet_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("faults")
    shutil.copy(fleet_dir / "node-01.tar.gz", out / "node-01.tar.gz")
    shutil.copy(fleet_dir / "node-06.tar.gz", out / "node-06.tgz")
    _tampered(fleet_dir / "node-03.tar.gz", out / "node-03.tar.gz")
    (out / "node-04.tar.gz").write_bytes(b"<html>502 Bad Gateway</html>\n")
    (out / "node-05").mkdir()
    (out / "node-07.tar.gz").write_bytes(b"")
    (out / ".node-08.tar.gz.part").write_bytes(b"\x1f\x8b half an upload")
    return out


def test_failed_nodes_are_named_with_their_reason_and_the_others_reported(faults_dir: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--from", str(faults_dir), "--format", "json", "--workers", "1") == 1
    doc = json.loads(capsys.readouterr().out)
    failed = {f["node"]: f["error"] for f in doc["failed"]}
    assert set(failed) == {"node-03", "node-04", "node-05", "node-07"}
    assert failed["node-03"].startswith("bad manifest: member ") and "does not match the manifest" in failed["node-03"]
    assert "node-04.tar.gz" in failed["node-04"] and str(faults_dir) not in failed["node-04"]
    assert "empty directory" in failed["node-05"]
    assert "empty file" in failed["node-07"]
    audited = [n["node"] for n in doc["nodes"] if n["status"] == "audited"]
    assert audited == ["node-01", "node-06"]  # node-06 from its .tgz stem
    assert doc["source"]["hidden_entries"] == 1  # the half-written upload, counted
    assert doc["drift"] == []
    text = render(doc, "text")
    assert "Failed nodes (4): not audited" in text and has_row(text, "node-03", failed["node-03"])


def test_fail_on_gates(fleet_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alike = tmp_path / "alike"
    alike.mkdir()
    for name in ("node-01", "node-06"):  # two nodes without planted drift: P2 issues only, on both
        shutil.copy(fleet_dir / f"{name}.tar.gz", alike / f"{name}.tar.gz")
    assert cli("--from", str(alike), "--workers", "1", "--fail-on", "drift") == 0
    assert "--fail-on drift: passed" in capsys.readouterr().out
    assert cli("--from", str(alike), "--workers", "1", "--fail-on", "p1") == 0
    assert cli("--from", str(alike), "--workers", "1", "--fail-on", "P2", "--format", "json") == 1
    capsys.readouterr()
    assert cli("--from", str(fleet_dir), "--workers", "2", "--fail-on", "drift", "--format", "json") == 1
    gate = json.loads(capsys.readouterr().out)["fail_on"]
    assert gate == {"on": "drift", "failed": True, "nodes": ["node-02", "node-03", "node-04", "node-05"]}


def test_a_sample_issue_counts_for_its_node_but_is_not_drift(fleet_doc: dict[str, Any]) -> None:
    # node-05's CPU pressure (12 %) is a P1 issue of a sample check: counted in its priorities, never a difference.
    p1 = sorted(n["node"] for n in fleet_doc["nodes"] if n["issues"]["P1"])
    assert p1 == ["node-03", "node-05"]
    assert not [d for d in fleet_doc["drift"] if d["check"] == "KERN-SCHED-KNOBS"]


def test_a_worker_that_dies_fails_its_node_only(fleet_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fleet_support
    from stackaudit.fleet import analysis
    from stackaudit.fleet.outcome import NodeOutcome

    crash = tmp_path / "crash.tar.gz"
    shutil.copy(fleet_dir / "node-01.tar.gz", crash)
    monkeypatch.setattr(analysis, "summarise_snapshot", fleet_support.audit_or_die)
    # node-01 is in flight beside the crashing snapshot when the pool breaks; node-06 comes after it.
    outcomes = [NodeOutcome("node-01", snapshot=str(fleet_dir / "node-01.tar.gz")), NodeOutcome("node-x", snapshot=str(crash)),
                NodeOutcome("node-06", snapshot=str(fleet_dir / "node-06.tar.gz"))]
    summaries = analysis.analyse(outcomes, workers=1)
    assert [(s.node, s.ok) for s in summaries] == [("node-01", True), ("node-x", False), ("node-06", True)]
    assert summaries[1].error == "the audit's worker process died on this snapshot (out of memory, or killed)"
