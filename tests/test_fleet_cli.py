"""`stackaudit fleet` wiring: usage errors, missing extras, gatherers handed to the analysis, the drift rules on
hand-built summaries (ties, groups), and the Kubernetes recipe's manifest."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from fleet_support import has_row
from stackaudit.cli.main import main
from stackaudit.fleet.drift import find_drift
from stackaudit.fleet.outcome import NodeOutcome, Progress
from stackaudit.fleet.render import document, render
from stackaudit.fleet.summary import CheckState, NodeSummary, Value

DOCS = Path(__file__).resolve().parents[1] / "docs"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["fleet", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("args", "words"), [
    ((), "exactly one of --inventory FILE, --ray [ADDRESS], --from DIR"),
    (("--from", "a", "--ray"), "(got --ray, --from)"),
    (("--from", "/nonexistent/fleet"), "no such directory"),
    (("--from", ".", "--format", "pdf"), "--format: choose one of text, markdown, json, html, not 'pdf'"),
    (("--from", ".", "--fail-on", "P3"), "--fail-on takes P0, P1, P2, drift"),
    (("--from", ".", "--limit", "gpu"), "--limit selects hosts of an --inventory"),
    (("--from", ".", "--workers", "0"), "--workers"),
])
def test_usage_errors_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                                              words: str) -> None:
    code, out, err = cli(capsys, *args)
    assert code == 2 and out == ""
    assert words in err and err.count("\n") == 1 and err.startswith("stackaudit: error: ")


def test_an_empty_directory_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / ".hidden").write_text("x")
    code, _, err = cli(capsys, "--from", str(tmp_path))
    assert code == 2 and "no snapshots in it" in err


@pytest.mark.parametrize(("args", "module", "install"), [
    (("--inventory", "hosts.ini"), "ansible_runner", "pip install 'stackaudit[fleet]'"),
    (("--ray",), "ray", "pip install 'stackaudit[ray]'"),
    (("--ray", "ray://head:10001"), "ray", "pip install 'stackaudit[ray]'"),
])
def test_without_the_extra_one_line_names_it(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                             args: tuple[str, ...], module: str, install: str) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a))
    code, out, err = cli(capsys, *args)
    assert code == 2 and out == ""
    assert err.strip().endswith(install) and err.count("\n") == 1


def _fake_engine(monkeypatch: pytest.MonkeyPatch, module: str, factory: str, outcomes: list[NodeOutcome],
                 calls: list[tuple[Any, ...]]) -> None:
    """A gatherer module as the Ansible and Ray ones expose it, yielding `outcomes` and reporting progress."""
    import importlib.util

    def make(*args: Any, **kwargs: Any) -> Any:
        calls.append((*args, kwargs))

        def gather(dest: str, progress: Progress | None = None) -> Iterator[NodeOutcome]:
            assert Path(dest).is_dir()
            for n, outcome in enumerate(outcomes, 1):
                if progress is not None:
                    progress(outcome, n)
                yield outcome
        return gather

    fake = types.ModuleType(f"stackaudit.fleet.{module}")
    setattr(fake, factory, make)
    monkeypatch.setitem(sys.modules, f"stackaudit.fleet.{module}", fake)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name in ("ansible_runner", "ray")
                        else real(name, *a))


def test_inventory_hands_its_options_to_the_ansible_gatherer_and_names_failed_hosts(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    outcomes = [NodeOutcome("gpu-a", error="unreachable: ssh: connect to host 10.0.0.7 port 22: No route to host"),
                NodeOutcome("gpu-b", error="capture timed out after 120 s")]
    _fake_engine(monkeypatch, "ansible", "ansible_gatherer", outcomes, calls)
    code, out, _ = cli(capsys, "--inventory", "hosts.ini", "--limit", "h100", "--forks", "8", "--workers", "1",
                       "--timeout", "120")
    assert calls == [("hosts.ini", "h100", 8, None, {"timeout_s": 120.0})]
    assert code == 1  # a node failed
    assert "nodes from Ansible" in out
    assert has_row(out, "gpu-a", "unreachable: ssh: connect to host 10.0.0.7 port 22: No route to host")
    assert has_row(out, "gpu-b", "capture timed out after 120 s")


def test_ray_without_an_address_lets_the_gatherer_find_the_cluster(capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    _fake_engine(monkeypatch, "ray_nodes", "ray_gatherer", [NodeOutcome("10.0.0.5", error="node died mid-run")], calls)
    code, out, _ = cli(capsys, "--ray", "--format", "json", "--workers", "1")
    assert calls == [(None, {"timeout_s": 300.0})] and code == 1
    assert '"gatherer": "ray"' in out and '"error": "node died mid-run"' in out


def _node(name: str, values: dict[tuple[str, str], str], checks: dict[str, CheckState] | None = None,
          gpus: str = "8", model: str = "NVIDIA H100 80GB HBM3") -> NodeSummary:
    return NodeSummary(name, inventory={"gpu_model": model, "gpu_count": gpus, "driver": "", "kernel": "", "cpu": ""},
                       counts={"P0": 0, "P1": 0, "P2": 0}, checks=checks or {},
                       values={k: Value(v, v) for k, v in values.items()})


def test_a_tie_says_there_is_no_majority() -> None:
    nodes = [_node(f"n{i}", {("host", "driver"): "570.86.15" if i < 2 else "580.65.06"}) for i in range(4)]
    drift = find_drift(nodes)
    assert len(drift.drift) == 1 and drift.drift[0].tie and drift.drift[0].majority is None
    assert drift.drift_on("n0") == 0  # a tie names no node as the odd one
    text = render(document(nodes, "directory", generated_at="2026-01-01T00:00:00Z"), "text")
    assert has_row(text, "n0, n1, n2, n3", "driver", "570.86.15 on 2 (n0, n1); 580.65.06 on 2 (n2, n3)", "no majority")


def test_only_nodes_with_the_same_gpu_model_and_count_are_compared() -> None:
    nodes = [_node("h100-a", {("host", "driver"): "570.86.15"}), _node("h100-b", {("host", "driver"): "570.86.15"}),
             _node("h100-c", {("host", "driver"): "580.65.06"}),
             _node("h200-a", {("host", "driver"): "580.65.06"}, model="NVIDIA H200"),
             _node("h100x4", {("host", "driver"): "550.54.15"}, gpus="4")]
    drift = find_drift(nodes)
    assert sorted(drift.groups) == ["4× NVIDIA H100 80GB HBM3", "8× NVIDIA H100 80GB HBM3", "8× NVIDIA H200"]
    assert [(d.group, d.odd[0].nodes) for d in drift.drift] == [("8× NVIDIA H100 80GB HBM3", ("h100-c",))]
    text = render(document(nodes, "directory", generated_at="2026-01-01T00:00:00Z"), "text")
    assert "Drift within 8× NVIDIA H200: one node only, nothing to compare" in text
    assert has_row(text, "h100-c", "driver", "580.65.06", "570.86.15 on 2 others")


def test_a_subject_an_issue_does_not_name_is_not_absent_drift() -> None:
    ok = CheckState("ok")
    bad = CheckState("issue", "P1", message="GPU 3 at x8")
    full = {("PCIE-LINK-DOWNTRAIN", f"gpu{i}"): "Gen5 x16" for i in range(2)}
    nodes = [_node("a", full, {"PCIE-LINK-DOWNTRAIN": ok}), _node("b", full, {"PCIE-LINK-DOWNTRAIN": ok}),
             _node("c", {("PCIE-LINK-DOWNTRAIN", "gpu1"): "Gen5 x8"}, {"PCIE-LINK-DOWNTRAIN": bad})]
    found = {(d.kind, d.subject, d.odd[0].value) for d in find_drift(nodes).drift}
    # gpu0 is not listed by c's issue: its status says the rest, no "(absent)" for gpu0.
    assert found == {("status", "", "issue P1"), ("value", "gpu1", "Gen5 x8")}


def test_a_value_missing_on_a_node_with_the_same_status_is_absent_drift() -> None:
    ok = CheckState("ok")
    nodes = [_node(n, {("IC-NCCL-ENV", "NCCL_IB_HCA"): "mlx5"}, {"IC-NCCL-ENV": ok}) for n in ("a", "b")]
    nodes.append(_node("c", {}, {"IC-NCCL-ENV": ok}))
    (d,) = find_drift(nodes).drift
    assert (d.subject, d.odd[0].value, d.odd[0].nodes, d.majority) == ("NCCL_IB_HCA", "(absent)", ("c",), "mlx5")


def test_a_gatherer_naming_a_node_twice_audits_the_first_only(tmp_path: Path) -> None:
    from stackaudit.fleet.analysis import analyse

    outcomes = [NodeOutcome("n1", error="unreachable"), NodeOutcome("n1", snapshot=str(tmp_path / "x.tar.gz"))]
    summaries = analyse(outcomes, workers=1)
    assert [(s.node, s.error) for s in summaries] == [
        ("n1", "unreachable"), ("n1 (again)", "a second outcome for node n1: only the first is audited")]


def test_the_daemonset_captures_the_host_root_read_only() -> None:
    manifest = yaml.safe_load((DOCS / "fleet-daemonset.yaml").read_text())
    assert manifest["apiVersion"] == "apps/v1" and manifest["kind"] == "DaemonSet"
    spec = manifest["spec"]
    pod = spec["template"]["spec"]
    assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    assert pod["hostPID"] is True
    assert any(t["key"] == "nvidia.com/gpu" for t in pod["tolerations"])
    (container,) = pod["containers"]
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    host = mounts["host-root"]
    assert host["mountPath"] == "/host" and host["readOnly"] is True
    assert volumes["host-root"]["hostPath"]["path"] == "/"
    # Every hostPath is mounted read-only; only the shared volume and /tmp are written.
    for name, volume in volumes.items():
        if "hostPath" in volume:
            assert mounts[name].get("readOnly") is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"].get("privileged") is not True
    command = " ".join(container["command"])
    assert "stackaudit.pyz capture --root /host --output" in command
    assert "/fleet/snapshots/$(NODE_NAME).tar.gz" in command  # the file stem is the node: what --from reads
    env = {e["name"]: e for e in container["env"]}
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    assert "persistentVolumeClaim" in volumes[next(n for n, m in mounts.items() if m["mountPath"] == "/fleet")]


def test_the_slurm_recipe_runs_one_task_per_node() -> None:
    text = (DOCS / "fleet.md").read_text()
    assert 'srun -N "$SLURM_NNODES" --ntasks-per-node=1' in text
    assert "capture --output /shared/fleet/$(hostname).tar.gz" in text
    assert "stackaudit fleet --from /shared/fleet" in text
