"""Derived rules: an engine phase after the checks that reads their results; no check runs another."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from stackaudit.checks.registry import CheckRead, CheckSpec, check, issue, ok
from stackaudit.checks.registry import load_all as load_checks
from stackaudit.engine.evaluate import evaluate
from stackaudit.engine.selection import with_read_checks
from stackaudit.fixes.model import advice
from stackaudit.host.source import Provenance

CHECKS_DIR = Path(__file__).resolve().parents[1] / "src" / "stackaudit" / "checks"


def _spec(id: str, func, facts=(), reads=None) -> CheckSpec:  # type: ignore[no-untyped-def]
    return CheckSpec(id=id, domain="KERN", title="t", severity="low", confidence="documented",
                     fix=advice("x", cost="none"), func=func, facts=tuple(facts), optional_facts=(), reads=reads)


def test_a_rule_reads_the_results_of_the_checks_it_selects_after_they_ran() -> None:
    seen: list[tuple[str, str]] = []

    def rule(results: tuple[CheckRead, ...]):  # type: ignore[no-untyped-def]
        seen.extend((r.spec.id, r.status) for r in results)
        return issue("b failed") if any(r.status != "ok" for r in results) else ok("all ok")

    a = _spec("KERN-A", lambda a: ok("fine"), facts=("a",))
    b = _spec("KERN-B", lambda b: issue("bad"), facts=("b",))
    c = _spec("KERN-C", lambda: ok("not read"))
    derived = _spec("KERN-RULE", rule, reads=lambda spec: spec.id in ("KERN-A", "KERN-B"))
    where = {"a": (Provenance("file a"),), "b": (Provenance("file b"),)}
    # The rule comes first in the list: it still runs after the checks, and the results keep the list's order.
    results = evaluate([derived, a, b, c], {"a": 1, "b": 2}, False, provenance=where, parallel=False)
    assert [r.id for r in results] == ["KERN-RULE", "KERN-A", "KERN-B", "KERN-C"]
    assert seen == [("KERN-A", "ok"), ("KERN-B", "issue")]
    assert results[0].status == "issue"
    # What the rule read came from where the results it read did.
    assert [p.source for p in results[0].provenance] == ["file a", "file b"]


def test_a_rule_chosen_alone_has_the_checks_it_reads_evaluated_but_not_chosen() -> None:
    catalogue = load_checks()
    rule = catalogue["KERN-PERSIST-BOOT"]
    assert rule.reads is not None
    run = with_read_checks([rule], catalogue)
    assert run[0] is rule and {"KERN-SWAP", "DRV-PERSISTENCE"} <= {s.id for s in run[1:]}
    assert with_read_checks([catalogue["KERN-SWAP"]], catalogue) == [catalogue["KERN-SWAP"]]


def test_persist_boot_reads_its_own_facts_only() -> None:
    """Its owners' facts reach it through their results, not as its parameters (no forged signature)."""
    rule = load_checks()["KERN-PERSIST-BOOT"]
    assert "nvidia" not in rule.optional_facts and "sysctls" in rule.optional_facts
    assert "results" not in (*rule.facts, *rule.optional_facts)


def test_the_registry_refuses_a_rule_without_results_and_a_check_with_them() -> None:
    with pytest.raises(TypeError, match="derived rule"):
        check("KERN-NORES", title="x", severity="low", confidence="unproven", fix=advice("x", cost="none"),
              reads=lambda spec: True)(lambda sysctls=None: ok("x"))
    with pytest.raises(TypeError, match="derived rule"):
        check("KERN-RES", title="x", severity="low", confidence="unproven",
              fix=advice("x", cost="none"))(lambda results: ok("x"))


def test_no_check_module_imports_the_checks_or_calls_a_sibling() -> None:
    """Helpers may be shared between domain modules; a registered check is never imported, nor any check run."""
    checks = {(spec.func.__module__, spec.func.__name__) for spec in load_checks().values()}
    for path in CHECKS_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("stackaudit.checks"):
                assert not any((node.module, a.name) in checks for a in node.names), (path.name, node.module)
                assert not any(a.name in ("import_all", "CHECKS") for a in node.names), (path.name, node.module)
            if isinstance(node, ast.Attribute) and node.attr == "__signature__":
                pytest.fail(f"{path.name} writes a __signature__")
            if isinstance(node, ast.Attribute) and node.attr == "func":
                pytest.fail(f"{path.name} calls a check's function (`.func`)")


def test_a_rule_that_did_not_finish_is_an_error_and_the_checks_keep_their_results() -> None:
    a = _spec("KERN-A", lambda: ok("fine"))
    broken = _spec("KERN-RULE", lambda results: 1 / 0, reads=lambda spec: True)
    results = evaluate([a, replace(broken)], {}, False, parallel=True)
    assert [r.status for r in results] == ["ok", "error"]
