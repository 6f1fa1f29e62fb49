"""The Ray gatherer on a real 3-node cluster (`ray.cluster_utils.Cluster`) on this machine: one snapshot
per node, each of its own root, none twice, and a node removed while its capture is stuck reported as lost.

The cluster runs in tests/fleet_ray_driver.py, a subprocess in its own network namespace with only
loopback (root is needed to make it); this module starts it once and checks what it gathered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fleet_nodes_support import Node, built_zipapp, write_node
from stackaudit.fleet.ray_nodes import MAX_SNAPSHOT_BYTES
from stackaudit.fleet.ray_task import ROOT_VARIABLE, capture_on_node
from stackaudit.host.snapshot_reader import load_snapshot

pytest.importorskip("ray", reason="ray is not installed (the test extra installs it)")

DRIVER = Path(__file__).resolve().parent / "fleet_ray_driver.py"
SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def gathered(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    work = tmp_path_factory.mktemp("ray")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p),
               RAY_USAGE_STATS_ENABLED="0")
    proc = subprocess.run([sys.executable, str(DRIVER), str(work)], capture_output=True, text=True, timeout=240,
                          env=env)
    if proc.returncode == 77:
        pytest.skip(f"a loopback-only network namespace needs root: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(json.loads((work / "result.json").read_text()), work=work)


def _node_of(name: str, names: dict[str, str]) -> str:
    """The fake node an outcome names: its host name ends with the start of the node's ID."""
    [fake] = [fake for node_id, fake in names.items() if name.endswith(node_id[:12])]
    return fake


def test_one_outcome_per_alive_node_none_twice(gathered: dict) -> None:  # type: ignore[type-arg]
    outcomes, names = gathered["outcomes"], gathered["names"]
    assert len(outcomes) == 3
    assert len({o["node"] for o in outcomes}) == 3
    assert sorted(_node_of(o["node"], names) for o in outcomes) == ["ray-head", "ray-stuck", "ray-worker"]
    assert gathered["answered"] == [[o["node"], i] for i, o in enumerate(outcomes, 1)]


def test_each_node_captured_its_own_root(gathered: dict) -> None:  # type: ignore[type-arg]
    drivers = {"ray-head": b"570.124.06\n", "ray-worker": b"580.65.06\n"}
    snapshots = [o for o in gathered["outcomes"] if o["snapshot"]]
    assert len(snapshots) == 2
    for outcome in snapshots:
        fake = _node_of(outcome["node"], gathered["names"])
        assert outcome["snapshot"] == str(gathered["work"] / "dest" / f"{outcome['node']}.tar.gz")
        host = load_snapshot(outcome["snapshot"])
        assert host.meta.hostname == fake
        assert host.read_bytes("/sys/module/nvidia/version") == drivers[fake]


def test_a_node_removed_mid_capture_is_reported_as_lost(gathered: dict) -> None:  # type: ignore[type-arg]
    [lost] = [o for o in gathered["outcomes"] if _node_of(o["node"], gathered["names"]) == "ray-stuck"]
    assert lost["snapshot"] is None
    assert lost["error"].startswith("the node was lost during the capture (NodeDiedError): ")
    assert "\n" not in lost["error"]


# --- the node-side task alone (no cluster): what it answers when the capture cannot give a snapshot ---


@pytest.fixture(scope="module")
def zipapp_bytes() -> bytes:
    return Path(built_zipapp()).read_bytes()


def test_the_task_kills_a_capture_past_its_time_limit(zipapp_bytes: bytes, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "nvidia-smi").write_text("#!/bin/sh\nexec sleep 30\n")
    (stubs / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{stubs}:{os.environ['PATH']}")
    monkeypatch.setenv(ROOT_VARIABLE, str(write_node(Node("slow"), tmp_path / "root")))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert capture_on_node(zipapp_bytes, 3, MAX_SNAPSHOT_BYTES) == {"error": "capture timed out after 3 s"}
    assert not list(tmp_path.glob("stackaudit-ray-*"))  # its scratch directory is gone


def test_the_task_reports_a_failed_or_oversized_capture(zipapp_bytes: bytes, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, str(tmp_path / "missing"))
    assert capture_on_node(zipapp_bytes, 60, MAX_SNAPSHOT_BYTES) == {
        "error": f"capture failed (exit 2): stackaudit: error: --root {tmp_path / 'missing'}: not a directory"}
    monkeypatch.setenv(ROOT_VARIABLE, str(write_node(Node("big"), tmp_path / "root")))
    answer = capture_on_node(zipapp_bytes, 60, 1000)
    assert answer["error"].startswith("snapshot of ") and answer["error"].endswith(" bytes is over the limit of 1000 bytes")
