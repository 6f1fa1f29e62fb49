""""Run next" answers the question the paste shows before it settles the most checks (report/next_steps.QUESTIONS):
two GPUs or more, or a hang, put the interconnect's command first; a check about an engine or container kind the
paste shows to be another (CONCERNS) does not drive the rank; a step that would judge the rest of the host for checks
already good on the GPUs shown says it confirms them."""

from __future__ import annotations

import pytest

from corpus import corpus_path
from stackaudit.engine.results import Result
from stackaudit.engine.runner import AuditOptions, Report, run_audit
from stackaudit.importers.pasted import load_pasted
from stackaudit.report.next_steps import run_next
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions


def _report(prefix: str) -> Report:
    return run_audit(load_pasted([str(corpus_path(prefix))]), AuditOptions())


def _first_step(prefix: str) -> tuple[str, tuple[str, ...]]:
    report = _report(prefix)
    step = run_next([r for r in report.results], host=report.host)[0]
    return step.text, step.settles


@pytest.mark.parametrize("prefix", [
    "320",  # Real: TGI on two GeForce cards, "sharding is not faster": `topo -m` was 5th behind the capture.
    "15",  # Real: two RTX 3090 at a 250 W cap, an nvidia-smi table only.
    "203",  # Real: two A800 PCIe, an nvidia-smi table only.
])
def test_a_multi_gpu_paste_gets_the_interconnect_command_first(prefix: str) -> None:
    text, settles = _first_step(prefix)
    assert text != "sudo stackaudit capture -o host.tar.gz" and all(c.startswith("IC-") or c == "KVER-DMABUF" for c in settles), (text, settles)


def test_a_one_gpu_paste_without_trouble_keeps_the_count_ranking() -> None:
    # Real counter-example: ollama on one Tesla T4; no question of sharding, the step that settles most leads.
    text, _ = _first_step("317")
    assert text == "sudo stackaudit capture -o host.tar.gz"


def _unknown(rid: str, missing: str) -> Result:
    return Result(id=rid, domain=rid.split("-")[0], title=rid, status="unknown", message="?", facts_missing=(missing,))


def test_checks_of_an_engine_or_container_not_shown_do_not_drive_the_rank() -> None:
    # Modelled: one step settles three checks of SGLang, TRT-LLM and LXC, the other two checks of any host.
    results = [_unknown("RT-ENV-SGLANG", "a"), _unknown("RT-TRTLLM-ALLREDUCE", "a"), _unknown("CTR-LXC-DEVICES", "a"),
               _unknown("KERN-THP", "b"), _unknown("KERN-SWAP", "b")]
    by_fact = {"a": ["cmd-a"], "b": ["cmd-b"]}
    vllm_docker = {"engines": ["vllm"], "container": "docker"}
    assert [s.text for s in run_next(results, by_fact=by_fact, host=vllm_docker)] == ["cmd-b", "cmd-a"]
    sglang_lxc = {"engines": ["sglang", "trtllm"], "container": "lxc"}
    assert [s.text for s in run_next(results, by_fact=by_fact, host=sglang_lxc)] == ["cmd-a", "cmd-b"]
    # A source that names no engine and no container leaves them counted: they may be this host's.
    assert [s.text for s in run_next(results, by_fact=by_fact, host={})] == ["cmd-a", "cmd-b"]


def test_checks_good_on_the_gpus_shown_are_confirmed_not_settled() -> None:
    # Real: capture 317's table is cut after GPU 0; four checks are good for it.
    text = " ".join(render(_report("317"), "text", RenderOptions()).split())
    step = text[text.index("settles 1 check: DRV-GSP-FIRMWARE"):]
    assert "settles 1 check: DRV-GSP-FIRMWARE; confirms for the GPUs not shown: DRV-COMPUTE-MODE" in step, step
