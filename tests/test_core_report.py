"""Report sections, their order, and what each says (text and markdown)."""

from __future__ import annotations

import json

import pytest

from stackaudit.checks.registry import Fix
from stackaudit.engine.results import Result, Waiver
from stackaudit.engine.runner import Report
from stackaudit.fixes.model import keep_line, step
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions


def _r(rid: str, status: str, priority: str | None = None, **kw) -> Result:  # type: ignore[no-untyped-def]
    return Result(id=rid, domain=rid.split("-")[0], title=f"title of {rid}", status=status, message=f"message of {rid}",
                  priority=priority, severity=kw.pop("severity", "high" if priority else None), **kw)


def _report(container: str = "none") -> Report:
    fix_host = Fix.of(step("Turn off NUMA balancing", "sysctl -w kernel.numa_balancing=0",
                           keep=keep_line("kernel.numa_balancing = 0", "/etc/sysctl.d/90-llm.conf")))
    fix_ctr = Fix.of(step("Recreate the container", cost="restart", scope="container",
                          keep=keep_line("--shm-size=16g", "docker run")))
    results = [
        _r("KERN-NUMA-BALANCING", "issue", "P2", severity="low", actual="1", expected="0", fix=fix_host,
           fix_cost="runtime", confidence="documented", why="hinting faults hit the scheduler loop"),
        _r("CTR-SHM-SIZE", "issue", "P0", actual="64 MiB", expected=">= 1 GiB", fix=fix_ctr, fix_cost="restart",
           confidence="documented", scope="container" if container != "none" else "host"),
        _r("IC-NCCL-ENV", "issue", "P1", fix=fix_host, fix_cost="runtime", confidence="field-reports"),
        _r("CTR-MEMLOCK", "not-an-issue", actual="64 KiB"),
        _r("FW-VM", "ok", actual="none"),
        _r("KERN-SWAP", "unknown", hint="run as root"),
        _r("RT-OMP", "error"),
        _r("KERN-THP", "issue", "P1", fix=fix_host, fix_cost="runtime").with_waiver(Waiver("KERN-THP", "accepted here")),
    ]
    return Report(source={"kind": "live"}, host={"hostname": "h1", "kernel": "6.8.0", "cpu": "EPYC", "container": container,
                                                  "gpus": {"count": 2, "bdfs": []}, "uid": 0}, results=results,
                  expired_waivers=[Waiver("PWR-APP-CLOCKS", "old", expires="2026-01-01")], timed_out=["`lscpu` (timed out after 1 s)"])


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_sections_in_order_and_priorities_ranked(fmt: str) -> None:
    # The verdict names the top finding before the sections: each marker is looked for after the previous one.
    text = render(_report(), fmt, options=RenderOptions(verbose=True))
    order = ["Verdict", "CTR-SHM-SIZE", "Actionable fixes", "CTR-SHM-SIZE", "IC-NCCL-ENV", "KERN-NUMA-BALANCING",
             "Key negative results", "CTR-MEMLOCK", "Confirmed good", "FW-VM", "To judge more, run next", "KERN-SWAP",
             "Could not check", "KERN-SWAP", "Waived", "KERN-THP", "Errors", "RT-OMP"]
    position = 0
    for marker in order:
        found = text.find(marker, position)
        assert found >= 0, f"{marker!r} not after position {position}:\n{text}"
        position = found + len(marker)
    assert "run as root" in text and "accepted here" in text and "PWR-APP-CLOCKS" in text and "lscpu" in text
    assert "sysctl -w kernel.numa_balancing=0" in text and "/etc/sysctl.d/90-llm.conf" in text
    assert "P0 1 · P1 1 · P2 1" in text


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_host_level_fix_in_a_container_says_where(fmt: str) -> None:
    inside = render(_report(container="docker"), fmt)
    # The title and the fix line of the two host-level fixes, not the shm one (nor the verdict: shm is first).
    assert inside.count("on the Docker host") == 4
    outside = render(_report(), fmt)
    assert "Docker host" not in outside and "container's host" not in outside


def test_json_report_carries_schema_and_waiver() -> None:
    data = json.loads(render(_report(), "json"))
    assert data["schema"] == 2 and data["generated_at"].endswith("Z")
    thp = next(r for r in data["results"] if r["id"] == "KERN-THP")
    assert thp["waived"]["reason"] == "accepted here"
    assert data["summary"]["by_priority"] == {"P0": 1, "P1": 1, "P2": 1}
    assert data["summary"]["expired_waivers"][0]["id"] == "PWR-APP-CLOCKS"
