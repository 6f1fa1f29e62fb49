"""What every report says first: version, UTC time, the command line (secrets hidden, no paths),
the source's file names, and one sentence of verdict; finding titles and their evidence line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from report_scenarios import snapshot
from stackaudit import __version__
from stackaudit.checks.registry import Fix
from stackaudit.cli.main import main
from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.fixes.model import step
from stackaudit.report.header import (
    NOTHING_FOUND,
    NOTHING_SHOWN,
    evidence_line,
    finding_title,
    human_size,
    redact_argv,
)
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions


def test_secret_flag_values_are_hidden_and_paths_cut_to_names() -> None:
    argv = ["audit", "--from", "/home/alice/cases/gpu box/report.txt", "--api-key", "sk-123", "--hf-token=hf_abc",
            "--db-password", "hunter2", "--client-secret=s3", "-o", "/srv/out/r.md", "--select", "KERN,FW",
            "--url=http://127.0.0.1:8000/v1", "-e", "HF_TOKEN=hf_xyz", "--input-tokens", "512"]
    out = redact_argv(argv)
    hidden = "<redacted>"  # host/redact.py's marker, as in a snapshot
    assert out == ["audit", "--from", "report.txt", "--api-key", hidden, f"--hf-token={hidden}", "--db-password",
                   hidden, f"--client-secret={hidden}", "-o", "r.md", "--select", "KERN,FW",
                   "--url=http://127.0.0.1:8000/v1", "-e", f"HF_TOKEN={hidden}", "--input-tokens", "512"]
    assert not any(secret in " ".join(out) for secret in ("sk-123", "hf_abc", "hf_xyz", "hunter2", "s3 ", "alice", "/srv"))


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_every_format_names_version_time_command_and_source(fmt: str, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    snap = snapshot("proxmox-lxc")
    capsys.readouterr()
    rc = main(["audit", "--from", str(snap), "--format", fmt])
    out = capsys.readouterr().out
    assert rc == 0
    assert str(snap.parent) not in out and "/tmp" not in out.split("## stackaudit report")[-1][:600]
    command = f"stackaudit audit --from {snap.name} --format {fmt}"
    if fmt == "json":
        data = json.loads(out)
        assert data["command"] == command and data["tool"]["version"] == __version__
        assert data["source"]["files"] == [snap.name] and data["verdict"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["generated_at"])
        return
    head = out[:800]
    assert f"stackaudit {__version__} · " in head and f"snapshot {snap.name}" in head and command in head
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", head)
    assert "Verdict: fix first: " in head.replace("**", "")


def _issue(rid: str, scope: str, priority: str = "P1", **kw: object) -> Result:
    return Result(id=rid, domain=rid.split("-")[0], title=f"title of {rid}", status="issue", priority=priority,
                  severity="high", confidence="documented", fix_cost="runtime", scope=scope,
                  fix=Fix.of(step("Turn it off", "sysctl -w kernel.numa_balancing=0")), **kw)  # type: ignore[arg-type]


def _report(results: list[Result], container: str = "lxc", kernel: str = "6.8.12-9-pve") -> Report:
    return Report(source={"kind": "pasted", "files": ["case.txt"]},
                  host={"hostname": "ct", "kernel": kernel, "cpu": "EPYC", "container": container,
                        "gpus": {"count": 8, "bdfs": []}, "uid": 0}, results=results)


def test_verdict_names_the_top_finding_and_where_to_apply_it() -> None:
    top = _issue("KERN-NUMA-BALANCING", "host", "P1", message="kernel.numa_balancing = 1 on 2 NUMA nodes: overhead",
                 subjects=("kernel.numa_balancing",))
    other = _issue("RT-OMP", "container", "P2", message="OMP oversubscription: 512 threads")
    for fmt in ("text", "markdown", "json"):
        out = " ".join(render(_report([other, top]), fmt).replace("**", "").replace("\\", "").split())
        assert ("fix first: kernel.numa_balancing = 1 on 2 NUMA nodes [KERN-NUMA-BALANCING, P1], apply it on the "
                "Proxmox node") in out, out[:600]
    docker = " ".join(render(_report([top], container="docker", kernel="6.8.0"), "text").split())
    assert "apply it on the Docker host" in docker
    bare = render(_report([top], container="none", kernel="6.8.0"), "text")
    assert "apply it" not in bare


def test_nothing_found_says_what_to_do_next() -> None:
    ok = Result(id="KERN-THP", domain="KERN", title="t", status="ok", message="madvise")
    named = _report([ok])
    named.host["gpus"] = {"count": 8, "bdfs": [], "names": ["NVIDIA H100 80GB HBM3"]}
    named.host["engines"] = ["vllm"]
    bare_table = _report([ok])  # a GPU table alone: a model named, no engine, no rate
    bare_table.host["gpus"] = {"count": 8, "bdfs": [], "names": ["NVIDIA H100 80GB HBM3"]}
    for fmt in ("text", "markdown", "json"):
        assert NOTHING_FOUND in " ".join(render(named, fmt).split())
        # A paste showing no engine or rate gets no `stackaudit ceiling` of placeholders, a GPU model named or not.
        for report in (_report([ok]), bare_table):
            said = " ".join(render(report, fmt).split())
            assert NOTHING_SHOWN in said and NOTHING_FOUND not in said


def test_title_says_the_finding_with_the_id_as_a_tag() -> None:
    r = _issue("DRV-XID", "host", "P0", message="GPU 0000:b3:00.0 fell off the bus: Xid 79 at 12.5 s; reset it",
               subjects=("0000:b3:00.0",), evidence=("NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', GPU has fallen "
                                                     "off the bus.",), actual={"size_bytes": 67108864000})
    assert finding_title(r) == "GPU 0000:b3:00.0 fell off the bus"
    text = " ".join(render(_report([r], container="none"), "text").split())
    assert "P0 GPU 0000:b3:00.0 fell off the bus [DRV-XID]" in text
    # One evidence line: the verbatim quote, then the value with sizes in units.
    assert evidence_line(r) == ("“NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', GPU has fallen off the bus.” "
                                "→ size_bytes 62.5 GiB")
    # A subject the first clause does not name is added, when there are few.
    pid = _issue("RT-ULIMIT-NOFILE", "host", message="open-file hard limit below 65536: hard 4096", subjects=("pid 731",))
    assert finding_title(pid) == "open-file hard limit below 65536 — pid 731"
    # A log line quoted in backticks keeps its own sentences (corpus 1563's vLLM warning).
    quote = _issue("RT-KERNEL-ARCH", "host", message="`Layer x is not supported by AWQMoeMarlin. Falling back to Moe "
                   "WNA16 kernels`: the MoE expert layers run on the generic kernels")
    assert finding_title(quote) == "`Layer x is not supported by AWQMoeMarlin. Falling back to Moe WNA16 kernels`"


@pytest.mark.parametrize(("n", "text"), [(67108864000, "62.5 GiB"), (8 * 2**20, "8 MiB"), (512, "512 B"),
                                         (137438953472, "128 GiB")])
def test_human_size(n: int, text: str) -> None:
    assert human_size(n) == text


def test_verbose_shows_why_and_the_default_does_not() -> None:
    r = _issue("KERN-NUMA-BALANCING", "host", message="kernel.numa_balancing = 1", why="hinting faults cost")
    rep = _report([r], container="none")
    assert "hinting faults cost" not in render(rep, "text")
    assert "hinting faults cost" in render(rep, "text", options=RenderOptions(verbose=True))


def test_no_machine_path_in_a_report_of_a_pasted_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "deep" / "dir" / "nvidia-smi.txt"
    paste.parent.mkdir(parents=True)
    paste.write_text("Linux gpu-01 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 "
                     "x86_64 x86_64 x86_64 GNU/Linux\n")
    for fmt in ("text", "markdown", "json"):
        capsys.readouterr()
        assert main(["audit", "--from", str(paste), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert str(tmp_path) not in out and "nvidia-smi.txt" in out


def test_a_finding_without_a_verbatim_line_shows_its_reason() -> None:
    """The numbers that make a finding are in the message after its title; without a quote they are the detail
    line, since the title alone drops them (reader pass 7: 394's TP 4 on one GPU, 435's "tokens/s unaffected")."""
    tp = _issue("CTR-GPU-ACCESS", "container", "P0",
                message="serving containers whose engine asks for more GPUs than the container lets it see: qwen1.5: "
                        "TP x PP = 4, at most 1 GPU (CUDA_VISIBLE_DEVICES=0): the engine cannot place its ranks",
                subjects=("qwen1.5",))
    assert evidence_line(tp) == ("qwen1.5: TP x PP = 4, at most 1 GPU (CUDA_VISIBLE_DEVICES=0): the engine cannot "
                                 "place its ranks")
    assert "TP x PP = 4, at most 1 GPU" in " ".join(render(_report([tp], container="none"), "text").split())
    # A value the reason does not say follows it; a long reason is cut at a word.
    long = _issue("PWR-GPU-POWER-LIMIT", "host", "P1", message="GPU 0 capped at 280 W; " + "GPU 1 capped too " * 20,
                  actual={"limit_w": 280})
    line = evidence_line(long)
    assert line.startswith("GPU 1 capped too") and "… → limit_w 280" in line and len(line) < 190
    # A message that is all title has no reason: the line is the observed value, or nothing.
    assert evidence_line(_issue("KERN-THP", "host", message="THP always", actual="always")) == ""
    assert evidence_line(_issue("KERN-THP", "host", message="THP always", actual="never")) == "observed: never"


def test_the_quote_is_the_line_the_finding_names() -> None:
    """Of several verbatim lines, the first that names a subject of the finding is quoted (417 quoted
    `NCCL_DEBUG=INFO` under a finding about NCCL_ALGO); without one, the first; a subject of two characters
    names nothing (it would match any line)."""
    env = ("NCCL_DEBUG=INFO", "NCCL_MAX_NCHANNELS=1", "NCCL_ALGO=Ring", "NCCL_ALGO=Tree")
    algo = _issue("IC-NCCL-ENV", "host", "P2", message="NCCL_ALGO=Ring forces NCCL's choice", subjects=("NCCL_ALGO",),
                  evidence=env)
    assert evidence_line(algo) == "“NCCL_ALGO=Ring”"
    other = _issue("IC-NCCL-ENV", "host", "P2", message="NCCL_ALGO=Ring forces NCCL's choice",
                   subjects=("NCCL_PROTO",), evidence=env)
    assert evidence_line(other) == "“NCCL_DEBUG=INFO”"
    short = _issue("IC-NCCL-ENV", "host", "P2", message="GPU 1 has a setting", subjects=("1",), evidence=env)
    assert evidence_line(short) == "“NCCL_DEBUG=INFO”"


@pytest.mark.parametrize(("capture", "shown"), [
    ("394-vllm-compose-tp4-one-gpu-reserved-enforce-eager.txt", "TP x PP = 4, at most 1 GPU (CUDA_VISIBLE_DEVICES=0)"),
    ("435-ollama-2x-rtx3060-nvidia-smi-550-persistence-off.txt", "steady-state tokens/s are unaffected"),
    ("402-2x-rtx3090-dual-socket-sys-gpu0-numa-na-280w-cap.txt", "GPU 1 capped at 280 W"),
    ("417-2x-rtx2080ti-nccl-2-6-4-max-nchannels-1-algo-ring-all-reduce-perf.txt",
     "“NCCL_MAX_NCHANNELS=1 (the user's own words)”"),
])
def test_real_pastes_show_what_makes_the_finding(capture: str, shown: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).parent / "data" / "captures" / capture
    main(["audit", "--from", str(path)])
    text = " ".join(capsys.readouterr().out.split())
    assert shown in text


def test_a_minor_first_finding_is_said_to_be_minor() -> None:
    """A P2 first finding means every finding is minor; the verdict says so, so that "fix first" is not read as
    the cause of the trouble (reader pass 7: 435's persistence mode for a "GPU not detected" question)."""
    from stackaudit.report.header import verdict

    minor = _issue("DRV-PERSISTENCE", "host", "P2", message="persistence mode Disabled on GPU(s) 0,1")
    numa = _issue("KERN-NUMA-BALANCING", "host", "P1", message="kernel.numa_balancing = 1")
    assert verdict(_report([minor], container="none"), minor) == (
        "fix first: persistence mode Disabled on GPU(s) 0,1 [DRV-PERSISTENCE, P2]; all findings are minor")
    assert "minor" not in verdict(_report([numa, minor], container="none"), numa)
