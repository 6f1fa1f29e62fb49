"""A fix's cost words follow where its steps apply, and run-next follows what the paste shows.

`fix:` said `restart the engine` for every restart, also where the fix recreates a container (corpus 1567),
mends a Kubernetes node (1583) or starts a node's systemd unit (1586); run-next listed the snapshot twice,
`sudo stackaudit capture -o host.tar.gz` and `stackaudit capture` (1583); and it asked for `nvidia-smi` on
pastes whose GPUs are AMD's or Apple's (1543, 1546, 1569). Corpus pastes are read through `audit --from`;
the modelled fixes and results below are marked so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus import body
from stackaudit.cli.main import main
from stackaudit.engine.results import Result
from stackaudit.fixes.model import Fix, step
from stackaudit.report.next_steps import run_next


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str, fmt: str = "text") -> str:
    paste = tmp_path / "paste.txt"
    paste.write_text(body(number), encoding="utf-8")
    capsys.readouterr()
    main(["audit", "--from", str(paste), "--format", fmt])
    return capsys.readouterr().out


def _json(tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str) -> dict[str, Any]:
    return dict(json.loads(_report(tmp_path, capsys, number, "json")))


def _fix_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("fix: ")]


@pytest.mark.parametrize(("number", "words"), [
    ("1567", "fix: restart the container runtime, then recreate the container"),
    ("1583", "fix: mend the node (its driver, or restart the kubelet), then recreate the"),
    ("1586", "fix: start the device plugin's unit on the node"),
])
def test_corpus_fix_cost_says_what_the_fix_restarts(number: str, words: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    lines = _fix_lines(_report(tmp_path, capsys, number))
    assert lines and lines[0].startswith(words), lines
    assert not any("restart the engine" in line for line in lines), lines


def test_modelled_restart_words_follow_the_step_scope() -> None:
    # Modelled fixes: the same restart cost, three scopes.
    engine = Fix.of(step("Relaunch with the flag", cost="restart", scope="container"))
    runtime = Fix.of(step("Raise the runtime's limit", cost="restart", scope="container-host"))
    recreate = Fix.of(step("Recreate it with the GPUs", cost="restart", scope="container",
                           takes="recreate the container"))
    assert engine.cost_words() == "restart the engine"
    assert runtime.cost_words() == "restart the container runtime"
    assert recreate.cost_words() == "recreate the container"
    # In a pod, a container recreated is the pod redeployed.
    assert recreate.cost_words(pod=True) == "redeploy the pod"
    assert Fix.of(*runtime.steps, *recreate.steps).cost_words() == ("restart the container runtime, then recreate "
                                                                   "the container")


def test_corpus_run_next_lists_the_capture_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    steps = [s["step"] for s in _json(tmp_path, capsys, "1583")["run_next"]]
    captures = [s for s in steps if "stackaudit capture" in s]
    assert captures == ["sudo stackaudit capture -o host.tar.gz"], steps


def test_modelled_capture_with_and_without_sudo_is_one_step() -> None:
    # Modelled results: one check's hint asks for `stackaudit capture`, another's fact for the sudo form.
    results = [Result(id="A-ONE", domain="A", title="A-ONE", status="unknown", message="?",
                      hint="run `stackaudit capture` on the serving host"),
               Result(id="A-TWO", domain="A", title="A-TWO", status="unknown", message="?", facts_missing=("tree",))]
    steps = run_next(results, by_fact={"tree": ["sudo stackaudit capture -o host.tar.gz"]})
    assert [(s.text, s.settles) for s in steps] == [("sudo stackaudit capture -o host.tar.gz", ("A-ONE", "A-TWO"))]


@pytest.mark.parametrize("number", ["1543", "1546", "1569"])
def test_corpus_run_next_asks_no_nvidia_tool_of_another_vendors_gpus(
        number: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(tmp_path, capsys, number)
    assert report["host"]["gpus"].get("others"), report["host"]["gpus"]
    steps = [s["step"] for s in report["run_next"] if s["command"]]
    assert steps and not [s for s in steps if "nvidia" in s or "nvbandwidth" in s], steps


def test_modelled_run_next_keeps_nvidia_tools_where_an_nvidia_gpu_is_shown() -> None:
    # Modelled: one check settled by nvidia-smi; the headline shows an AMD GPU, then an NVIDIA one beside it.
    results = [Result(id="D-ONE", domain="D", title="D-ONE", status="unknown", message="?", facts_missing=("nvidia",))]
    by_fact = {"nvidia": ["nvidia-smi -q"]}
    amd_only = {"gpus": {"count": None, "bdfs": [], "others": ["AMD Radeon RX 6800M (ollama's ROCm discovery)"]}}
    both = {"gpus": {"count": 1, "bdfs": [], "names": ["NVIDIA A10G"], "others": ["AMD Radeon (dmesg)"]}}
    assert run_next(results, by_fact=by_fact, host=amd_only) == []
    assert [s.text for s in run_next(results, by_fact=by_fact, host=both)] == ["nvidia-smi -q"]
