"""The comparison's rules on hand-made results: which list a status move belongs in, what counts as a
changed value (by check ID and subject), what is a sample, and the text render of each list."""

from __future__ import annotations

import re
from typing import Any

import pytest

from stackaudit.compare.diff import compare_sides, sample_checks, status_group
from stackaudit.compare.inputs import Side
from stackaudit.compare.render import document, exit_code, render, show


def result(check_id: str, status: str, actual: Any = None, priority: str | None = None,
           subjects: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    if status == "issue" and priority is None:
        priority = "P1"
    return {"id": check_id, "title": f"title of {check_id}", "status": status, "priority": priority,
            "subjects": list(subjects), "actual": actual, "message": f"{check_id} is {status}", "waived": None,
            **extra}


def side(name: str, *results: dict[str, Any], host: dict[str, Any] | None = None, version: str = "0.1.0") -> Side:
    return Side(name=name, kind="report", host=host if host is not None else {"hostname": "h", "kernel": "6.8.0"},
                results={r["id"]: r for r in results}, tool_version=version, origin="live")


@pytest.mark.parametrize(("a", "b", "group"), [
    ("issue", "ok", "fixed"),
    ("issue", "not-an-issue", "fixed"),
    ("ok", "issue", "regressed"),
    ("not-an-issue", "issue", "regressed"),
    ("unknown", "issue", "regressed"),
    ("not-applicable", "issue", "regressed"),
    ("error", "issue", "regressed"),
    ("ok", "unknown", "newly_unknown"),
    ("issue", "unknown", "newly_unknown"),
    ("ok", "error", "newly_unknown"),
    ("unknown", "ok", "newly_known"),
    ("error", "not-an-issue", "newly_known"),
    ("ok", "not-an-issue", "other"),
    ("issue", "not-applicable", "other"),
    ("unknown", "error", "other"),
    ("ok", "ok", None),
    ("unknown", "unknown", None),
])
def test_status_groups(a: str, b: str, group: str | None) -> None:
    assert status_group(result("X", a), result("X", b)) == group


@pytest.mark.parametrize(("a", "b", "group"), [
    ("P2", "P0", "regressed"), ("P1", "P0", "regressed"), ("P2", "P1", "regressed"),
    ("P1", "P1", "still_wrong"), ("P0", "P2", "still_wrong"),
])
def test_a_priority_that_rose_is_a_regression(a: str, b: str, group: str) -> None:
    assert status_group(result("X", "issue", priority=a), result("X", "issue", priority=b)) == group


def test_values_by_check_and_subject() -> None:
    a = side("a.json",
             result("PCIE-LINK-DOWNTRAIN", "ok", {"0000:01:00.0": "Gen5 x16", "0000:02:00.0": "Gen5 x16"}),
             result("KERN-NUMA-BALANCING", "issue", "1", subjects=("kernel.numa_balancing",)),
             result("FW-NUMA-NPS", "ok", {"layout": "NPS1", "gpu_numa_nodes": {"0000:01:00.0": 0}}),
             result("RT-OMP", "ok", ["pid 4101 (vLLM api-server): 8"]),
             host={"hostname": "node-a", "kernel": "6.8.0-45-generic", "gpus": {"count": 8, "names": ["H100"]}})
    b = side("b.json",
             result("PCIE-LINK-DOWNTRAIN", "ok", {"0000:01:00.0": "Gen5 x16", "0000:02:00.0": "Gen5 x16"}),
             result("KERN-NUMA-BALANCING", "ok", "0"),  # an ok result names no subject: the key is still shown
             result("FW-NUMA-NPS", "ok", {"layout": "NPS4", "gpu_numa_nodes": {"0000:01:00.0": 0}}),
             result("RT-OMP", "ok", ["pid 5120 (vLLM api-server): 8"]),  # the engine restarted: no change
             host={"hostname": "node-b", "kernel": "6.8.0-52-generic", "gpus": {"count": 7, "names": ["H100"]}})
    doc = compare_sides(a, b, samples=())
    changes = {(e["id"], e["subject"]): (e["a"], e["b"]) for e in doc["configuration"]}
    assert changes == {("host", "kernel"): ("6.8.0-45-generic", "6.8.0-52-generic"),
                       ("host", "gpus/count"): (8, 7),
                       ("KERN-NUMA-BALANCING", "kernel.numa_balancing"): ("1", "0"),
                       ("FW-NUMA-NPS", "layout"): ("NPS1", "NPS4")}
    assert [e["id"] for e in doc["fixed"]] == ["KERN-NUMA-BALANCING"]


def test_a_subject_on_one_side_only() -> None:
    a = side("a", result("RT-ENV-VLLM", "ok", {"VLLM_A": "1"}))
    b = side("b", result("RT-ENV-VLLM", "ok", {"VLLM_A": "1", "VLLM_B": "0"}))
    doc = compare_sides(a, b, samples=())
    assert doc["configuration"] == [{"id": "RT-ENV-VLLM", "subject": "VLLM_B", "b": "0"}]
    text = render(document(a, b, generated_at="T"), "text")
    assert re.search(r"^  RT-ENV-VLLM +VLLM_B +\(absent\) +0$", text, re.M), text


def test_a_status_change_compares_only_the_subjects_both_sides_name() -> None:
    a = side("a", result("PCIE-LINK-DOWNTRAIN", "ok", {"g0": "Gen4 x16", "g1": "Gen4 x16"}))
    b = side("b", result("PCIE-LINK-DOWNTRAIN", "issue", {"g1": "Gen4 x8"}))
    doc = compare_sides(a, b, samples=())
    assert doc["configuration"] == [{"id": "PCIE-LINK-DOWNTRAIN", "subject": "g1", "a": "Gen4 x16", "b": "Gen4 x8"}]


def test_a_verdict_on_one_side_only_is_a_status_change_not_a_value() -> None:
    a = side("a", result("DRV-PERSISTENCE", "ok", "Enabled"))
    b = side("b", result("DRV-PERSISTENCE", "unknown", None))
    doc = compare_sides(a, b, samples=())
    assert doc["configuration"] == [] and [e["id"] for e in doc["newly_unknown"]] == ["DRV-PERSISTENCE"]


def test_sampled_checks_never_make_a_difference() -> None:
    a = side("a", result("KERN-SCHED-KNOBS", "ok", "CPU pressure some avg10 = 0.4 %"),
             result("PWR-CLOCK-EVENTS", "ok", {"g0": ["gpu_idle"]}))
    b = side("b", result("KERN-SCHED-KNOBS", "issue", "CPU pressure some avg10 = 37.5 %", priority="P2"),
             result("PWR-CLOCK-EVENTS", "ok", {"g0": ["sw_power_cap"]}))
    doc = document(a, b, fail_on="regressed", generated_at="T")
    assert doc["verdict"] == "no difference" and doc["difference"] is False and exit_code(doc) == 0
    assert doc["regressed"] == [] and doc["configuration"] == []
    assert [e["id"] for e in doc["samples"]["status"]] == ["KERN-SCHED-KNOBS"]
    assert [(e["id"], e["subject"]) for e in doc["samples"]["values"]] == [("KERN-SCHED-KNOBS", ""),
                                                                          ("PWR-CLOCK-EVENTS", "g0")]
    text = render(doc, "text")
    assert "Verdict: no difference" in text and "sampled values moved" in text


def test_the_sample_checks_come_from_the_catalogue() -> None:
    # Declared with sample=True in checks/: CPU pressure, swap in use, processes on a GPU, clock event reasons.
    assert {"KERN-SCHED-KNOBS", "KERN-SWAP", "MEM-GPU-SHARED", "PWR-CLOCK-EVENTS"} <= sample_checks()
    assert "KERN-NUMA-BALANCING" not in sample_checks() and "PCIE-LINK-DOWNTRAIN" not in sample_checks()


def test_fail_on_regressed() -> None:
    a = side("a", result("KERN-THP", "ok", "madvise"))
    b = side("b", result("KERN-THP", "issue", "always", priority="P2"))
    assert exit_code(document(a, b, fail_on="regressed", generated_at="T")) == 1
    assert exit_code(document(a, b, generated_at="T")) == 0  # no gate asked
    assert exit_code(document(b, a, fail_on="regressed", generated_at="T")) == 0  # a fix passes


def test_checks_in_one_side_only_and_another_version() -> None:
    a = side("a", result("KERN-THP", "ok"), version="0.1.0")
    b = side("b", result("KERN-THP", "ok"), result("KERN-NEW", "issue"), version="0.2.0")
    doc = document(a, b, generated_at="T")
    assert doc["only_in_b"] == [{"id": "KERN-NEW", "status": "issue"}] and doc["regressed"] == []
    assert doc["verdict"] == "1 check only in B"
    assert "0.1.0, 0.2.0" in doc["note"]


@pytest.mark.parametrize(("value", "shown"), [
    ("570.133.20", "570.133.20"), ("", '""'), (" padded", '" padded"'), ("two\nlines", '"two\\nlines"'),
    (7, "7"), (None, "null"), (["12.8"], '["12.8"]'), (True, "true"),
])
def test_values_are_shown_as_the_report_holds_them(value: Any, shown: str) -> None:
    assert show(value) == shown


def test_the_docs_name_every_sample_check() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "compare.md").read_text()
    assert all(f"`{check_id}`" in text for check_id in sample_checks()), sorted(sample_checks())


def test_regressed_and_still_wrong_go_p0_first() -> None:
    a = side("a", result("A-P2", "issue", priority="P2"), result("B-P0", "issue", priority="P0"),
             result("C-OK", "ok"), result("D-OK", "ok"))
    b = side("b", result("A-P2", "issue", priority="P2"), result("B-P0", "issue", priority="P0"),
             result("C-OK", "issue", priority="P2"), result("D-OK", "issue", priority="P1"))
    doc = compare_sides(a, b, samples=())
    assert [e["id"] for e in doc["still_wrong"]] == ["B-P0", "A-P2"]
    assert [e["id"] for e in doc["regressed"]] == ["D-OK", "C-OK"]
