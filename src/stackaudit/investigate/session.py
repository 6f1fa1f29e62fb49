"""One investigation of a snapshot: the facts collected from it, each domain's share, the investigators,
and the merged report. The audit has already run: its results are never changed here."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable
from typing import Any

from stackaudit.engine.runner import HEADLINE_FACTS, Report
from stackaudit.host.memory import MemoryHost
from stackaudit.host.recording import RedactingHost
from stackaudit.host.redact import redact_url_credentials
from stackaudit.investigate.consolidate import InvestigatedReport, consolidate
from stackaudit.investigate.loop import InvestigationConfig, investigate_async


def collect_facts(host: MemoryHost, deadline_s: float = 20.0) -> dict[str, Any]:
    """Every fact a check or the headline reads, collected from the snapshot (values or Missing)."""
    from stackaudit.checks.registry import load_all as load_checks
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all as load_facts

    load_facts()
    names = {*HEADLINE_FACTS}
    for spec in load_checks().values():
        names.update(spec.facts)
        names.update(spec.optional_read)
    collector = Collector(RedactingHost(host), deadline_s)
    collector.start(sorted(names))
    return collector.results(sorted(names))


def domain_facts() -> dict[str, list[str]]:
    """The facts each domain's checks read, by domain."""
    from stackaudit.checks.registry import load_all as load_checks

    out: dict[str, set[str]] = {}
    for spec in load_checks().values():
        out.setdefault(spec.domain, set()).update((*spec.facts, *spec.optional_read))
    return {domain: sorted(names) for domain, names in out.items()}


def explanations() -> dict[str, str]:
    """Each check's documentation, as `stackaudit explain` prints it."""
    from stackaudit.catalogue import explain_check
    from stackaudit.checks.registry import load_all as load_checks

    return {check_id: explain_check(check_id) for check_id in sorted(load_checks())}


def investigate(host: MemoryHost, report: Report, config: InvestigationConfig,
                facts: dict[str, Any] | None = None) -> InvestigatedReport:
    """The report with its investigation section. The endpoint being down, slow or erroring still gives
    the report, with a line saying what happened."""
    facts = facts if facts is not None else collect_facts(host)
    results = [r.to_json() for r in report.results]
    docs = explanations()
    outcome = asyncio.run(investigate_async(config, host, facts, results, domain_facts(), docs, list(docs)))
    investigation = consolidate(report, outcome, redact_url_credentials(config.url), config.model)
    fields = {f.name: getattr(report, f.name) for f in dataclasses.fields(report) if f.name != "investigation"}
    return InvestigatedReport(**fields, investigation=investigation)


def parse_domains(values: Iterable[str]) -> tuple[str, ...]:
    """`--domains FW,PCIE` as domains in catalogue order; ValueError naming an unknown one."""
    from stackaudit.checks.registry import DOMAINS

    wanted = [v.strip().upper() for value in values for v in value.split(",") if v.strip()]
    unknown = [v for v in wanted if v not in DOMAINS]
    if unknown:
        raise ValueError(f"unknown domain {unknown[0]!r}: choose from {', '.join(DOMAINS)}")
    return tuple(d for d in DOMAINS if d in wanted) if wanted else DOMAINS
