"""Engine: parallel collection, failures isolated, unknown vs not-applicable, priority, waivers."""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
import time

import pytest

from stackaudit.checks.registry import CheckSpec, check, issue, ok
from stackaudit.engine.collect import Collector, Missing
from stackaudit.engine.evaluate import evaluate
from stackaudit.engine.results import Result, Waiver, priority_of
from stackaudit.engine.runner import Report, apply_waivers
from stackaudit.engine.selection import select_checks
from stackaudit.errors import UsageError
from stackaudit.facts.registry import FactUnavailable, Provider
from stackaudit.fixes.model import advice
from stackaudit.host.memory import fake_host
from stackaudit.report.render import exit_code


def _spec(func, facts=(), optional=(), severity="high", confidence="documented", cost="runtime") -> CheckSpec:  # type: ignore[no-untyped-def]
    return CheckSpec(id="KERN-TEST", domain="KERN", title="t", severity=severity, confidence=confidence,
                     fix=advice("do it", cost=cost), func=func, facts=tuple(facts), optional_facts=tuple(optional))


def test_registry_refuses_a_check_that_asks_for_the_host() -> None:
    with pytest.raises(TypeError, match="host"):
        @check("KERN-HOSTY", title="x", severity="low", confidence="unproven", fix=advice("x", cost="none"))
        def hosty(host):  # type: ignore[no-untyped-def]
            return ok("x")


def test_registry_refuses_bad_ids() -> None:
    with pytest.raises(ValueError):
        check("kern-lower", title="x", severity="low", confidence="unproven", fix=advice("x", cost="none"))
    with pytest.raises(ValueError):
        check("NOPE-X", title="x", severity="low", confidence="unproven", fix=advice("x", cost="none"))


def test_collector_isolates_failing_and_hanging_providers() -> None:
    release = threading.Event()

    def good(ctx):  # type: ignore[no-untyped-def]
        return "value"

    def broken(ctx):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    def hangs(ctx):  # type: ignore[no-untyped-def]
        release.wait(10)
        return "late"

    def unavailable(ctx):  # type: ignore[no-untyped-def]
        raise FactUnavailable("not readable", "run as root")

    def dependent(ctx):  # type: ignore[no-untyped-def]
        return ctx.fact("good", str) + "+dep"

    providers = {n: Provider(n, f, str, "") for n, f in
                 [("good", good), ("broken", broken), ("hangs", hangs), ("unavailable", unavailable), ("dependent", dependent)]}
    collector = Collector(fake_host(), deadline_s=0.5, providers=providers, parallel=True)
    start = time.monotonic()
    collector.start(providers)
    facts = collector.results(providers)
    release.set()
    assert time.monotonic() - start < 2
    assert facts["good"] == "value" and facts["dependent"] == "value+dep"
    assert isinstance(facts["broken"], Missing) and facts["broken"].kind == "error" and "boom" in facts["broken"].reason
    assert isinstance(facts["hangs"], Missing) and facts["hangs"].kind == "timeout"
    assert facts["unavailable"] == Missing("unavailable", "not readable", "run as root")


def test_serial_collection_computes_on_demand_within_the_deadline() -> None:
    """A snapshot's facts are computed in one worker, dependencies first; a hung one times out with those
    after it, a cycle is an error, and the audit still ends by the deadline."""
    import threading

    release = threading.Event()
    order: list[str] = []

    def base(ctx):  # type: ignore[no-untyped-def]
        order.append("base")
        return "b"

    def on_base(ctx):  # type: ignore[no-untyped-def]
        order.append("on_base")
        return ctx.fact("base", str) + "+1"

    def loop_a(ctx):  # type: ignore[no-untyped-def]
        return ctx.fact("loop_b", str)

    def loop_b(ctx):  # type: ignore[no-untyped-def]
        return ctx.fact("loop_a", str)

    def hangs(ctx):  # type: ignore[no-untyped-def]
        release.wait(10)
        return "late"

    def after(ctx):  # type: ignore[no-untyped-def]
        return "after"

    providers = {n: Provider(n, f, str, "") for n, f in [("on_base", on_base), ("base", base), ("loop_a", loop_a),
                                                         ("loop_b", loop_b), ("hangs", hangs), ("after", after)]}
    collector = Collector(fake_host(), deadline_s=0.5, providers=providers)
    assert not collector.parallel  # a fake host, like a snapshot, is not live
    start = time.monotonic()
    collector.start(providers)
    assert order == []  # nothing runs before it is asked for
    facts = collector.results(["on_base", "base", "loop_a", "hangs", "after"])
    release.set()
    assert time.monotonic() - start < 2
    assert facts["on_base"] == "b+1" and facts["base"] == "b" and order == ["on_base", "base"]
    assert isinstance(facts["loop_a"], Missing) and "cycle" in facts["loop_a"].reason
    assert isinstance(facts["hangs"], Missing) and facts["hangs"].kind == "timeout"
    assert isinstance(facts["after"], Missing) and facts["after"].kind == "timeout"


def test_serial_collection_asked_from_two_threads_computes_once_and_waits() -> None:
    """Another thread asking for a fact the worker is computing waits for it (no cycle is claimed)."""
    import threading

    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow(ctx):  # type: ignore[no-untyped-def]
        calls.append(1)
        started.set()
        release.wait(5)
        return "done"

    collector = Collector(fake_host(), deadline_s=5, providers={"slow": Provider("slow", slow, str, "")})
    worker = threading.Thread(target=lambda: collector.results(["slow"]))
    worker.start()
    assert started.wait(5)
    answers: list[object] = []
    other = threading.Thread(target=lambda: answers.append(collector.optional("slow", str)))
    other.start()
    release.set()
    other.join(5)
    worker.join(5)
    assert answers == ["done"] and calls == [1]


def test_a_live_host_collects_in_parallel_and_a_snapshot_serially() -> None:
    from stackaudit.host.base import HostMeta
    from stackaudit.host.memory import MemoryHost

    live = MemoryHost(fake_host().record, meta=HostMeta(source="live"))
    assert Collector(live).parallel and not Collector(fake_host()).parallel


def test_serial_evaluation_runs_every_check_and_reports_a_hung_one() -> None:
    def fine():  # type: ignore[no-untyped-def]
        return ok("fine")

    def slow():  # type: ignore[no-untyped-def]
        time.sleep(3)
        return ok("late")

    specs = [_spec(fine), _spec(fine)]
    specs[1] = dataclasses.replace(specs[1], id="TEST-OTHER")
    results = evaluate(specs, {}, in_container=False, parallel=False)
    assert [r.status for r in results] == ["ok", "ok"]
    start = time.monotonic()
    slow_spec = dataclasses.replace(_spec(slow), id="TEST-SLOW")
    [first, hung] = evaluate([specs[0], slow_spec], {}, in_container=False, deadline_s=0.3, parallel=False)
    assert first.status == "ok" and hung.status == "error" and "did not finish" in hung.message
    assert time.monotonic() - start < 2


def test_missing_fact_makes_unknown_with_hint_and_optional_gets_none() -> None:
    calls: list[object] = []

    def needs(a):  # type: ignore[no-untyped-def]
        calls.append(a)
        return ok("fine")

    def maybe(a=None):  # type: ignore[no-untyped-def]
        return ok(f"got {a}")

    missing = Missing("a", "permission denied", "run as root")
    [r1] = evaluate([_spec(needs, facts=["a"])], {"a": missing}, in_container=False)
    assert r1.status == "unknown" and r1.hint == "run as root" and not calls
    [r2] = evaluate([_spec(maybe, optional=["a"])], {"a": missing}, in_container=False)
    assert r2.status == "ok" and r2.message == "got None"


def test_raising_check_is_error_and_hanging_check_is_reported() -> None:
    def raises():  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("x")

    def slow():  # type: ignore[no-untyped-def]
        time.sleep(3)
        return ok("late")

    [r] = evaluate([_spec(raises)], {}, in_container=False)
    assert r.status == "error" and "ZeroDivisionError" in r.message
    start = time.monotonic()
    [r] = evaluate([_spec(slow)], {}, in_container=False, deadline_s=0.3)
    assert r.status == "error" and "did not finish" in r.message
    assert time.monotonic() - start < 2


@pytest.mark.parametrize(("severity", "confidence", "cost", "expected"), [
    ("high", "documented", "runtime", "P0"),
    ("high", "source-verified", "driver-reload", "P0"),
    ("high", "field-reports", "runtime", "P1"),
    ("high", "documented", "reboot", "P1"),
    ("medium", "source-verified", "runtime", "P1"),
    ("low", "documented", "runtime", "P2"),
])
def test_priority_rules(severity: str, confidence: str, cost: str, expected: str) -> None:
    assert priority_of(severity, confidence, cost) == expected


def test_scope_is_container_only_for_container_fixes_inside_a_container() -> None:
    def bad():  # type: ignore[no-untyped-def]
        return issue("bad", fix=advice("restart it", cost="restart", scope="container"))

    def host_bad():  # type: ignore[no-untyped-def]
        return issue("bad")

    [inside] = evaluate([_spec(bad)], {}, in_container=True)
    [outside] = evaluate([_spec(bad)], {}, in_container=False)
    [host_level] = evaluate([_spec(host_bad)], {}, in_container=True)
    assert (inside.scope, outside.scope, host_level.scope) == ("container", "host", "host")


def _result(rid: str, status: str = "issue", priority: str | None = "P1", subjects=()) -> Result:  # type: ignore[no-untyped-def]
    return Result(id=rid, domain=rid.split("-")[0], title="t", status=status, message="m", priority=priority,
                  severity="high" if priority else None, subjects=tuple(subjects))


def test_waivers_accept_by_id_and_subject_and_expire() -> None:
    today = dt.date(2026, 11, 29)
    results = [_result("KERN-THP"), _result("FW-VM", subjects=["0000:01:00.0"]), _result("CTR-SHM-SIZE")]
    waivers = [Waiver("KERN-THP", "accepted"), Waiver("FW-VM", "gpu0 only", subject="0000:02:00.0"),
               Waiver("CTR-SHM-SIZE", "until fixed", expires="2026-11-01"), Waiver("RT-OMP", "never used")]
    out, expired, unused = apply_waivers(results, waivers, today)
    assert [r.waived for r in out] == [True, False, False]
    assert [w.id for w in expired] == ["CTR-SHM-SIZE"]
    assert {w.id for w in unused} == {"FW-VM", "RT-OMP"}


def test_fail_on_ignores_waived_and_counts_errors() -> None:
    def report(results: list[Result]) -> Report:
        return Report(source={}, host={}, results=results)

    waived = _result("KERN-THP", priority="P0").with_waiver(Waiver("KERN-THP", "ok"))
    assert exit_code(report([waived]), "P0") == 0
    assert exit_code(report([_result("KERN-THP", priority="P1")]), "P0") == 0
    assert exit_code(report([_result("KERN-THP", priority="P1")]), "P1") == 1
    assert exit_code(report([_result("KERN-THP", priority="P2")]), None) == 0
    assert exit_code(report([_result("KERN-THP", status="error", priority=None)]), "P0") == 1
    with pytest.raises(UsageError):
        exit_code(report([]), "P9")


def test_select_and_ignore_by_id_and_domain() -> None:
    from stackaudit.checks.registry import load_all

    catalogue = load_all()
    fw = select_checks(catalogue, ["FW"])
    assert fw and all(s.domain == "FW" for s in fw)
    assert [s.id for s in select_checks(catalogue, ["fw-vm"])] == ["FW-VM"]
    assert "FW-VM" not in {s.id for s in select_checks(catalogue, ["FW"], ["FW-VM"])}
    with pytest.raises(UsageError, match="unknown check ID"):
        select_checks(catalogue, ["NOPE"])
