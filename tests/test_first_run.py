"""The first run on a box with no engine judges the host, never the audit itself (issue 31).

/proc is a FakeHost built with test_rt_runtime's helpers: real-looking status, stat, limits and
cmdline files. Each test asserts statuses, subjects and fix commands, not prose.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.test_rt_runtime import (
    BASE_ENV,
    _Ctx,
    _status,
    audit_self,
    host,
    proc,
    sglang,
    unrelated,
    vllm_site,
    vllm_v1,
)

from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.engine.testing import run_checks
from stackaudit.facts.processes import ServingProcesses


def _self_under(parent: int, nofile: tuple[str, str] = ("20000", "20000")) -> dict[str, Any]:
    """/proc/self (pid 31337) started from `parent`, with the given open-file limit; also listed as /proc/31337."""
    env = {**BASE_ENV, "OMP_NUM_THREADS": "4096", "CUDA_DEVICE_MAX_CONNECTIONS": "1", "VLLM_USE_V1": "0"}
    files = proc(31337, parent, ["/home/ops/.venvs/stackaudit/bin/python", "-m", "stackaudit", "audit"], env,
                 comm="python", nofile=nofile)
    return {**files, **{k.replace("/proc/31337/", "/proc/self/"): v for k, v in files.items()}}


def procs_of(h: Any) -> ServingProcesses:
    result: ServingProcesses = _Ctx(h).fact("serving_processes", ServingProcesses)
    return result


def _owned(files: dict[str, Any], pid: int | str, uid: int) -> dict[str, Any]:
    """The same /proc files with process `pid` running as `uid`."""
    status = files[f"/proc/{pid}/status"].replace("Uid:\t0\t0\t0\t0", f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}")
    return {**files, f"/proc/{pid}/status": status}


def test_low_inherited_nofile_is_a_p2_note_about_the_shell_with_no_pid_and_no_prlimit() -> None:
    r = run_checks(host(unrelated(), _self_under(950)), ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == "issue" and r.priority == "P2"
    assert r.subjects == ("this shell",) and "31337" not in r.message
    assert r.fix is not None and not r.fix.commands  # nothing aimed at a process that is gone
    keep = " ".join(p.describe() for s in r.fix.steps for p in s.persistent)
    assert "--ulimit nofile=" in keep and "LimitNOFILE=" in keep


def test_the_audits_parent_shell_or_launcher_is_never_the_engine() -> None:
    # The audit was started from a process whose command line reads as `vllm serve` (a wrapper script).
    wrapper = proc(950, 812, ["/usr/bin/python3", "/usr/local/bin/vllm", "serve", "x"], BASE_ENV, comm="vllm")
    procs = procs_of(host(unrelated(), wrapper, _self_under(950)))
    assert not procs.found
    # The same command line in an unrelated process is an engine.
    procs = procs_of(host(unrelated(), wrapper, _self_under(1)))
    assert [p.pid for p in procs.roots()] == [950]


def test_pid_chooses_one_engine_instance_on_a_shared_box() -> None:
    h = host(unrelated(), audit_self(), vllm_v1(), vllm_site(), sglang())
    h.meta.extra["engine_pid"] = 5150  # a scheduler: its whole SGLang instance is read
    procs = procs_of(h)
    assert {p.engine for p in procs.processes} == {"sglang"} and procs.chosen_pid == 5150
    h.meta.extra["engine_pid"] = 31337  # not an engine process
    r = run_checks(h, ["RT-ULIMIT-NOFILE", "RT-ENV-VLLM"])
    assert r["RT-ENV-VLLM"].status == "unknown" and "--pid 31337" in r["RT-ENV-VLLM"].message


def test_another_users_engine_is_named_as_such_unless_chosen() -> None:
    files = _owned(vllm_v1(nofile=("4096", "4096")), 4101, 65534)
    h = host(unrelated(), _owned(audit_self(), "self", 1000), files, vllm_site())
    r = run_checks(h, ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == "issue" and "pid 4101 (vLLM api-server; user 65534, not the audit's)" in r.message
    # Run as root, the audit is the administrator's: no engine is another user's.
    root = run_checks(host(unrelated(), audit_self(), files, vllm_site()), ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert root.status == "issue" and "not the audit's" not in root.message
    h.meta.extra["engine_pid"] = 4101
    r = run_checks(h, ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == "issue" and "not the audit's" not in r.message and r.subjects == ("pid 4101",)


@pytest.mark.parametrize("engine", [False, True])
def test_the_headline_lists_the_engines_and_no_result_names_the_audits_pid(engine: bool) -> None:
    parts = [unrelated(), _self_under(950)] + ([vllm_v1(), vllm_site()] if engine else [])
    report = run_audit(host(*parts), AuditOptions(select=["RT"]))
    assert report.host["engine_processes"] == (["pid 4101 (vLLM api-server)"] if engine else [])
    issues = {r.id for r in report.issues()}
    assert engine or {"RT-ULIMIT-NOFILE", "RT-OMP", "RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"} <= issues
    for r in report.results:  # message, subjects, evidence, observed value: the audit's PID nowhere
        assert "31337" not in json.dumps(r.to_json()), r.id


@pytest.mark.parametrize(("gpus", "engines", "said"), [
    (0, [], "; no NVIDIA GPU and no serving engine on this host"),
    (0, ["pid 4101 (vLLM api-server)"], "; no NVIDIA GPU on this host"),
    (8, [], "; no serving engine on this host"),
    (8, ["pid 4101 (vLLM api-server)"], ""),
    (None, None, ""),  # a paste that shows neither a GPU count nor a process list
])
def test_the_verdict_says_when_the_box_has_no_gpu_or_no_engine(gpus: int | None, engines: list[str] | None,
                                                               said: str) -> None:
    from stackaudit.engine.runner import Report
    from stackaudit.report.header import NOTHING_FOUND, verdict

    report = Report(source={"kind": "live"}, host={"gpus": {"count": gpus}, "engine_processes": engines}, results=[])
    said_verdict = verdict(report, None)
    assert said_verdict.startswith(NOTHING_FOUND) and said_verdict.endswith("`" + said)


def test_with_no_gpu_and_no_engine_the_absence_leads_the_verdict() -> None:
    from stackaudit.engine.results import Result
    from stackaudit.engine.runner import Report
    from stackaudit.report.header import verdict

    nofile = Result(id="RT-ULIMIT-NOFILE", domain="RT", title="open-file limit", status="issue", priority="P2",
                    message="open-file hard limit 20000 below 65536 in this container", subjects=("this shell",))
    bare = Report(source={"kind": "live"}, host={"gpus": {"count": 0}, "engine_processes": []}, results=[nofile])
    said = verdict(bare, nofile)
    assert said.startswith("no NVIDIA GPU and no serving engine on this host: before an engine serves here, fix first: ")
    assert "[RT-ULIMIT-NOFILE, P2]" in said
    serving = Report(source={"kind": "live"}, host={"gpus": {"count": 8}, "engine_processes": ["pid 4101"]},
                     results=[nofile])
    assert verdict(serving, nofile).startswith("fix first: ")


def test_status_uid_reads_the_real_uid() -> None:
    from stackaudit.facts.processes import parse_status, status_uid

    assert status_uid(parse_status(_status(1, 0, "x").replace("Uid:\t0\t0", "Uid:\t1000\t0"))) == 1000
    assert status_uid({}) is None


def test_cli_pid_refuses_a_bad_or_absent_process(capsys: pytest.CaptureFixture[str]) -> None:
    from stackaudit.cli.main import main

    assert main(["audit", "--pid", "0", "--select", "RT-ULIMIT-NOFILE"]) == 2
    assert "--pid takes a process ID" in capsys.readouterr().err
    assert main(["audit", "--pid", "2147483647", "--select", "RT-ULIMIT-NOFILE"]) == 2
    assert "no such process" in capsys.readouterr().err
