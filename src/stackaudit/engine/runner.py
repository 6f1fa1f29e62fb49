"""The audit: choose checks, collect the facts they need, evaluate, apply waivers."""

from __future__ import annotations

import datetime as _dt
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from stackaudit import __version__
from stackaudit.checks.registry import CheckSpec
from stackaudit.checks.registry import load_all as load_checks
from stackaudit.engine.collect import DEFAULT_DEADLINE_S, Collector, Missing
from stackaudit.engine.evaluate import CHECK_DEADLINE_S, evaluate
from stackaudit.engine.results import Result, Waiver, for_engines
from stackaudit.engine.selection import select_checks, with_read_checks
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.fixes.model import PRIORITIES
from stackaudit.host.base import Host
from stackaudit.host.recording import RedactingHost

if TYPE_CHECKING:
    from stackaudit.engine.measured import Endpoint

# Facts the headline shows, collected whatever checks are selected.
HEADLINE_FACTS = ("kernel", "hostname", "cpu", "container", "gpus", "machine_topology", "nvidia", "serving_model",
                  "lxc_configs", "serving_processes", "parallelism", "serving_rate", "trouble",
                  "question")


@dataclass
class AuditOptions:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    deadline_s: float = DEFAULT_DEADLINE_S
    # How long the checks may run once the facts are in (tests raise it: their verdicts must not depend on load).
    check_deadline_s: float = CHECK_DEADLINE_S
    waivers: list[Waiver] = field(default_factory=list)
    today: _dt.date | None = None
    # `audit --sample SECONDS`: sample GPU clocks/power/clock event reasons/link over a window
    # (fact `gpu_samples`); the collection deadline grows by the window.
    sample_s: float = 0.0
    # `audit --pid PID`: the engine instance to read on a box running several (0: every engine found).
    engine_pid: int = 0
    # The headline's ceiling keys from the facts (`ceiling`, `ceiling_tok_s`, … or `ceiling_missing`); the audit
    # command passes ceiling.headline.ceiling_fields with its --model and --weights (the engine imports no
    # product); without it the headline has no ceiling.
    ceiling: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # `audit --measured TOKS`: the measured decode rate, before any the source holds (fact `serving_rate`).
    measured: float | None = None
    # Where no rate is measured: a look-up of the latest single-stream run `bench` stored for the engine's
    # endpoints ((host names, port)) and model, as (tokens/s, where it was read); the CLI passes
    # bench.history.single_stream_rate (the engine does not import a product).
    history_rate: Callable[[list[Endpoint]], tuple[float, str] | None] | None = None


class AppendedSection(Protocol):
    """A part a product appends to the audit report (investigate's findings): its sections of the report's
    document (render.document.Section, which the engine does not import) and its keys of the JSON."""

    def sections(self) -> tuple[Any, ...]: ...

    def json(self) -> dict[str, Any]: ...


@dataclass
class Report:
    source: dict[str, Any]
    host: dict[str, Any]
    results: list[Result]
    timed_out: list[str] = field(default_factory=list)
    fact_errors: list[str] = field(default_factory=list)
    expired_waivers: list[Waiver] = field(default_factory=list)
    unused_waivers: list[Waiver] = field(default_factory=list)
    duration_s: float = 0.0
    tool: dict[str, str] = field(default_factory=lambda: {"name": "stackaudit", "version": __version__})
    generated_at: str = field(default_factory=lambda: utc_now())
    # The fact `machine_topology` as JSON (facts/machine_topology.py), which the pictures draw; {} when not computed.
    topology: dict[str, Any] = field(default_factory=dict)

    def appended(self) -> tuple[AppendedSection, ...]:
        """The sections products append, drawn last by every renderer (none for a plain audit)."""
        return ()

    def by_status(self, status: str) -> list[Result]:
        return [r for r in self.results if r.status == status]

    def issues(self, include_waived: bool = False) -> list[Result]:
        return [r for r in self.results if r.status == "issue" and (include_waived or not r.waived)]

    def partial(self) -> list[str]:
        """Why this report is not a whole read of its source ([] when it is): facts or commands that timed
        out, a snapshot replayed with --allow-partial, another host's outputs set aside from a paste."""
        reasons = []
        facts = sum(1 for t in self.timed_out if t.startswith("fact "))
        commands = len(self.timed_out) - facts
        for n, what in ((facts, "fact"), (commands, "command")):
            if n:
                reasons.append(f"{n} {what}{'s' if n > 1 else ''} timed out")
        if self.source.get("partial"):
            reasons.append("snapshot replayed with --allow-partial")
        if self.source.get("set_aside"):
            reasons.append(f"{len(self.source['set_aside'])} of another host's outputs set aside")
        return reasons

    def summary(self) -> dict[str, Any]:
        statuses = ("issue", "ok", "not-an-issue", "unknown", "not-applicable", "error")
        counts = {s: sum(1 for r in self.results if r.status == s) for s in statuses}
        priorities = {p: sum(1 for r in self.issues() if r.priority == p) for p in PRIORITIES}
        return {
            "checks": len(self.results),
            "by_status": counts,
            "by_priority": priorities,
            "waived": sum(1 for r in self.results if r.waived),
            "expired_waivers": [w.to_json() for w in self.expired_waivers],
            "timed_out": list(self.timed_out),
            "fact_errors": list(self.fact_errors),
            "partial": self.partial(),
            "duration_s": round(self.duration_s, 3),
        }


def utc_now() -> str:
    """The report's time: UTC, ISO 8601 to the second, with Z."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_name(path: str) -> str:
    """The name of a file or directory given on the command line, never its path (docs/design.md)."""
    return os.path.basename(os.path.normpath(path)) or path


def source_files(meta_path: str) -> list[str]:
    """The names of the files a snapshot or paste was read from: never their paths (docs/design.md)."""
    return [os.path.basename(p.strip().rstrip("/")) for p in meta_path.split(", ") if p.strip()]


def _history_rate(facts: dict[str, Any], host: Host, look_up: Callable[[list[Endpoint]], tuple[float, str] | None]
                  ) -> tuple[float, str, bool] | None:
    """The latest single-stream `bench` run against the endpoint of an engine the audit found, same model."""
    from stackaudit.engine.measured import engine_endpoints

    endpoints = engine_endpoints(facts, host.meta.hostname, host.meta.source == "live")
    found = look_up(endpoints) if endpoints else None
    return (found[0], found[1], False) if found else None


def _headline(facts: dict[str, Any], host: Host, options: AuditOptions | None = None) -> dict[str, Any]:
    from stackaudit.facts.container import ContainerInfo
    from stackaudit.facts.hostname import Hostname
    from stackaudit.facts.machine_topology import MachineTopology
    from stackaudit.facts.question import UserQuestion
    from stackaudit.facts.serving_logs import TCP_PLUGIN_NET, NcclNodes
    from stackaudit.facts.system import CpuInfo, KernelInfo
    from stackaudit.facts.trouble import Trouble

    kernel = facts.get("kernel")
    cpu = facts.get("cpu")
    container = facts.get("container")
    topology = facts.get("machine_topology")
    from stackaudit.facts.gpus import GpuInventory

    inventory = facts.get("gpus")
    gpus: dict[str, Any] = {"count": None, "bdfs": []}
    if isinstance(inventory, GpuInventory):
        names = sorted(set(inventory.models.values()))
        # A name resolved from a cut one, as the headline says it (`NVIDIA GeForce ... (likely RTX 3090 …)`).
        said = [inventory.in_words(n) for n in names]
        gpus = {"count": inventory.count, "bdfs": list(inventory.bdfs), **({"names": names} if names else {}),
                **({"said": said} if said != names else {}),
                # Why the count may leave GPUs out (an excerpt, an NCCL log's ranks): the headline says "at least".
                **({"at_least": True} if inventory.count is not None and inventory.count_unshown else {}),
                # Another vendor's GPUs the sources name (AMD under ROCm, Apple's Metal): run-next leaves NVIDIA's
                # tools out where no NVIDIA GPU is shown.
                **({"others": list(inventory.others)} if inventory.others else {})}
    from stackaudit.engine.measured import measured_from, measured_vs_ceiling
    from stackaudit.facts.serving_rate import USER_WORDS

    ceiling = options.ceiling(facts) if options is not None and options.ceiling is not None else {}
    measured = measured_from(facts, options.measured if options else None)
    # A run `bench` stored comes before a rate in the user's own words (the last source), after every other.
    if (measured is None or measured[1] == USER_WORDS) and options is not None and options.history_rate is not None:
        measured = _history_rate(facts, host, options.history_rate) or measured
    return {
        **ceiling,
        **({"measured": measured_vs_ceiling(measured[0], ceiling, measured[1], measured[2])} if measured else {}),
        "hostname": host.meta.hostname or (name.name if isinstance(name := facts.get("hostname"), Hostname) else ""),
        "kernel": kernel.release if isinstance(kernel, KernelInfo) else None,
        "arch": kernel.machine if isinstance(kernel, KernelInfo) else None,
        "cpu": cpu.model_name if isinstance(cpu, CpuInfo) else None,
        "sockets": cpu.sockets if isinstance(cpu, CpuInfo) else None,
        # The sockets the topology draws: the `numa` fact's nodes and any node a GPU sits on.
        "numa_nodes": topology.numa_nodes if isinstance(topology, MachineTopology) else None,
        # Without the `numa` fact, the nodes the GPUs sit on: a lower bound, so that the headline says what the body does.
        **({"numa_nodes_at_least": seen} if isinstance(topology, MachineTopology) and topology.numa_nodes is None
           and (seen := topology.numa_nodes_seen) else {}),
        "container": (container.kind or "none") if isinstance(container, ContainerInfo) else None,
        # A host and its own containers are one machine seen from two scopes (a Proxmox node's LXC configs).
        "host_of": _containers_configured(facts.get("lxc_configs")),
        "gpus": gpus,
        "engine_processes": _engine_processes(facts.get("serving_processes")),
        "uid": host.meta.uid,
        # The serving engines this source shows (vllm, sglang, trtllm): run-next and fix steps name only these.
        **({"engines": engines} if (engines := engines_of(facts)) is not None else {}),
        # A hang or failure a pasted log shows (facts/trouble.py): the verdict names it where no finding explains it.
        # With the checks that answer what it is about (a CUDA that does not start: DRV-CUDA-COMPAT), where it names one.
        **({"trouble": {"kind": t.kind, "line": t.line, **({"checks": list(t.checks)} if t.checks else {}),
                        **({"shows": t.shows} if t.shows else {})}}
           if isinstance(t := facts.get("trouble"), Trouble) else {}),
        # Why NCCL's own lines send none of the job's traffic between nodes over RDMA, where the log shows the job
        # spanning nodes or NCCL loaded a net plugin over TCP (FastSocket, made for traffic between VMs): the verdict
        # of a paste with no fault names the network the nodes use. A job on one host may use no network at all.
        **({"nccl_network": nodes.no_rdma} if isinstance(nodes := facts.get("nccl_nodes"), NcclNodes)
           and nodes.no_rdma and (nodes.several or nodes.no_rdma == TCP_PLUGIN_NET) else {}),
        # The user's question naming a setting a check judges (facts/question.py): the verdict names that check's answer.
        **({"question": {"line": q.line, "checks": list(q.checks)}}
           if isinstance(q := facts.get("question"), UserQuestion) else {}),
    }


def _engine_processes(procs: Any) -> list[str] | None:
    """The serving engines found (`pid 4101 (vLLM api-server)`, one per instance); [] when the process
    list shows none; None when the source shows no process list."""
    from stackaudit.facts.processes import ServingProcesses

    if not isinstance(procs, ServingProcesses) or not procs.listed:
        return None
    return [p.label for p in procs.roots()]


def engines_of(facts: dict[str, Any]) -> list[str] | None:
    """The serving engines the facts show, or None when the source could not tell (no parallelism fact)."""
    from stackaudit.facts.parallelism import Parallelism

    parallelism = facts.get("parallelism")
    if not isinstance(parallelism, Parallelism):
        return None
    return sorted(parallelism.engines_shown())


def _containers_configured(lxc: Any) -> list[str]:
    """The containers whose configs this source shows from their host (`lxc 101`), for the headline."""
    from stackaudit.facts.lxc import LxcConfigs

    if not isinstance(lxc, LxcConfigs):
        return []
    return [f"{c.flavor if c.flavor == 'lxc' else 'proxmox lxc'} {c.name}" for c in lxc.configs]


def apply_waivers(results: list[Result], waivers: Iterable[Waiver], today: _dt.date) -> tuple[
        list[Result], list[Waiver], list[Waiver]]:
    """Mark results a waiver accepts; return (results, expired waivers, waivers that matched nothing)."""
    expired: list[Waiver] = []
    active: list[Waiver] = []
    for waiver in waivers:
        if waiver.expires and _dt.date.fromisoformat(waiver.expires) < today:
            expired.append(waiver)
        else:
            active.append(waiver)
    used: set[int] = set()
    out = []
    for result in results:
        for i, waiver in enumerate(active):
            if waiver.id != result.id:
                continue
            if waiver.subject and waiver.subject not in result.subjects:
                continue
            if result.status in ("issue", "error", "unknown"):
                result = result.with_waiver(waiver)
            used.add(i)
            break
        out.append(result)
    unused = [w for i, w in enumerate(active) if i not in used]
    return out, expired, unused


def run_audit(host: Host, options: AuditOptions | None = None) -> Report:
    """Audit a host (live, snapshot, pasted or fake) and return the report."""
    options = options or AuditOptions()
    started = time.monotonic()
    catalogue = load_checks()
    load_facts()
    specs: list[CheckSpec] = select_checks(catalogue, options.select, options.ignore)
    if options.engine_pid:
        host.meta.extra["engine_pid"] = options.engine_pid  # read by the serving_processes fact
    evaluated = with_read_checks(specs, catalogue)
    safe_host = RedactingHost(host)
    providers = None
    if options.sample_s > 0:
        from stackaudit.facts.nvidia import sampling_providers

        providers = sampling_providers(options.sample_s)
    collector = Collector(safe_host, options.deadline_s + max(0.0, options.sample_s), providers)
    needed = {*HEADLINE_FACTS}
    for spec in evaluated:
        needed.update(spec.facts)
        needed.update(spec.optional_read)
        needed.update(spec.subject_read)
    collector.start(sorted(needed))
    facts = collector.results(sorted(needed))
    from stackaudit.facts.container import ContainerInfo

    container = facts.get("container")
    in_container = isinstance(container, ContainerInfo) and container.in_container
    provenance = {name: collector.provenance(name) for name in needed}
    results = evaluate(evaluated, facts, in_container, options.check_deadline_s, provenance=provenance,
                       parallel=collector.parallel)[:len(specs)]
    engines = engines_of(facts)
    if engines is not None:  # a step written for an engine that is not there is left out (Fix.for_engines)
        results = [for_engines(r, engines) for r in results]
    if host.meta.source == "pasted":  # each quoted line cited where the paste shows it (engine/quote_lines.py)
        from stackaudit.engine.quote_lines import cite_quoted_lines

        results = cite_quoted_lines(results, host.meta.path.split(", "))
    results, expired, unused = apply_waivers(results, options.waivers, options.today or _dt.date.today())
    timed_out = [f"`{' '.join(r.argv)}` ({r.stderr})" for r in collector.host.timed_out]
    timed_out += [f"fact {m.fact}: {m.reason}" for m in facts.values() if isinstance(m, Missing) and m.kind == "timeout"]
    fact_errors = [f"{m.fact}: {m.reason}" for m in facts.values() if isinstance(m, Missing) and m.kind == "error"]
    fact_errors += collector.alternative_errors
    source: dict[str, Any] = {"kind": host.meta.source, "captured_at": host.meta.captured_at}
    if host.meta.source != "live":
        source["files"] = source_files(host.meta.path)
    if host.meta.extra.get("partial"):
        source["partial"] = True  # a snapshot replayed with --allow-partial (docs/security.md)
    if host.meta.extra.get("recognised"):
        source["recognised"] = host.meta.extra["recognised"]
    if host.meta.extra.get("set_aside"):
        # The paste holds another host's outputs too: audited the first, these were left out.
        source["set_aside"] = list(host.meta.extra["set_aside"])
    from stackaudit.facts.machine_topology import MachineTopology

    host_fields = _headline(facts, safe_host, options)
    if isinstance(host_fields.get("measured"), dict):
        from stackaudit.engine.gap_verdict import gap_verdict

        host_fields["measured"].update(gap_verdict(host_fields["measured"], results))
    topology = facts.get("machine_topology")
    return Report(
        source=source,
        host=host_fields,
        topology=topology.to_json() if isinstance(topology, MachineTopology) else {},
        results=results,
        timed_out=timed_out,
        fact_errors=fact_errors,
        expired_waivers=expired,
        unused_waivers=unused,
        duration_s=time.monotonic() - started,
    )
