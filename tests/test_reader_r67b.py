"""What the reports of corpus 1395-1411 told a user misleadingly (r67b), pinned so the old words do not come back.

- 1411: Xid 45 bursts, then a task hung in state D; the fix offered `nvidia-smi -r` and `nvidia-smi -q`, which hang
  the same way: the step is to drain and reboot the node.
- 1411: `Tainted: P OE 5.15.0-97-generic #107-Ubuntu` names the kernel; the header said `kernel ?`.
- 1396: the header said `Container: container` where the kind of container is not known.
- 1395, 1397: "no ceiling:" listed every missing source in the engine's terms (~80 words); it says the reason in one
  clause and what to give, the full list kept in the JSON report.
- 1395: the header said `NUMA nodes: at least 1` beside FW-NUMA-NPS's CPUs on another node (at least 2).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_report, capture_result
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.facts.gpu_events import hung_task_lines
from stackaudit.importers.pasted import load_pasted
from stackaudit.report.sections import headline_lines


def test_an_xid_beside_a_task_hung_in_state_d_says_to_drain_and_reboot() -> None:
    r = capture_result("1411", "DRV-XID")
    assert r.status == "issue" and r.fix is not None
    words = " ".join(s.does + " " + " ".join(c.line for c in s.commands) for s in r.fix.steps)
    assert "nvidia-smi -r -i" not in words and "GPU Recovery Action" not in words, words
    assert "Drain the node, then reboot it" in words and "systemctl reboot" in words, words
    assert "state D" in r.message


# Modelled text (no corpus entry holds it): the same Xid burst with no hung task keeps the GPU-reset step.
_XID_ALONE = "[Sat Oct 12 18:35:32 2024] NVRM: Xid (PCI:0000:61:00): 45, pid=1496200, name=distprovers-gpu, Ch 0000000a\n"


def test_an_xid_without_a_hung_task_keeps_the_recovery_action_step(tmp_path: Path) -> None:
    paste = tmp_path / "dmesg.txt"
    paste.write_text("$ sudo dmesg\n" + _XID_ALONE, encoding="utf-8")
    [r] = [r for r in run_audit(load_pasted([str(paste)]), AuditOptions()).results if r.id == "DRV-XID"]
    assert r.status == "issue" and r.fix is not None
    words = " ".join(s.does for s in r.fix.steps)
    assert "GPU Recovery Action" in words and "reboot it" not in words, words


def test_hung_task_lines_are_the_kernels_reports_only() -> None:
    lines = ["[ 1.0] INFO: task cache_mgr_event:620917 blocked for more than 120 seconds.",
             "[ 1.0] task:cache_mgr_event state:D stack:    0 pid:620917 ppid:620571 flags:0x00000002",
             "[ 1.0] task:kworker state:S stack:    0 pid:1",
             "the job was blocked for more than an hour"]
    assert hung_task_lines(lines) == tuple(ln.strip() for ln in lines[:2])


def test_the_taint_line_names_the_kernel_where_nothing_better_does() -> None:
    assert capture_report("1411").host["kernel"] == "5.15.0-97-generic"
    assert "kernel 5.15.0-97-generic" in headline_lines(capture_report("1411"))[0]


def test_the_not_tainted_form_names_the_kernel_too(tmp_path: Path) -> None:
    # Modelled text: an oops header's `CPU: … Comm: … Not tainted RELEASE #BUILD` line.
    paste = tmp_path / "dmesg.txt"
    paste.write_text("$ sudo dmesg\n" + _XID_ALONE + "[Sat Oct 12 18:38:44 2024] CPU: 12 PID: 620917 Comm: python Not "
                     "tainted 6.8.0-45-generic #45-Ubuntu\n", encoding="utf-8")
    assert run_audit(load_pasted([str(paste)]), AuditOptions()).host["kernel"] == "6.8.0-45-generic"


def test_a_container_of_unknown_kind_is_said_in_words() -> None:
    report = capture_report("1396")
    assert report.host["container"] == "container"
    line = headline_lines(report)[1]
    assert "Container: yes (kind unknown)" in line and "Container: container" not in line, line


def test_no_ceiling_says_the_reason_in_one_clause_and_keeps_the_list_in_json() -> None:
    for prefix, reason in (("1395", "the server log names no model"), ("1397", "the source shows no served model")):
        host = capture_report(prefix).host
        line = host["measured"]["line"]
        assert f"no ceiling: {reason} (give `--model MODEL`)" in line, line
        assert "not in the source" not in line and "docker_containers" not in line, line
        assert "serving_processes: not in the source" in host["ceiling_missing_detail"]


def test_the_numa_lower_bound_counts_the_node_the_gpus_cpu_list_leaves_out() -> None:
    report = capture_report("1395")
    assert capture_result("1395", "FW-NUMA-NPS").status == "not-an-issue"
    assert report.host["numa_nodes_at_least"] == 2
    assert "NUMA nodes: at least 2" in headline_lines(report)[1]


