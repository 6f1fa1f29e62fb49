"""Evaluate checks against collected facts under a deadline: each check in its own thread, or all of them in
one worker thread in turn (`parallel=False`: checks only compute, and a thread each costs more than most
checks do; engine/collect.py says when).

Two phases: the checks, then the derived rules (checks/registry.py `reads=`), which get the results of
the checks they read besides their facts.
After each check, the log symptoms that prove it (facts/symptoms.py) turn its outcome into an issue that quotes
the lines, even where its facts are missing (`proven_by_symptoms`).
A check the facts leave unknown whose subject the source shows absent is not applicable (`not_shown_subject`), and so is
one of what only a Linux host has where the sources show a Windows host (facts/applicability.LINUX_ONLY)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from stackaudit.checks.registry import (
    RESULTS_PARAM,
    CheckRead,
    CheckSpec,
    Outcome,
    issue,
    not_an_issue,
    not_applicable,
    over_subjects,
)
from stackaudit.engine.collect import Missing
from stackaudit.engine.results import Result, build_result
from stackaudit.facts.applicability import (
    CPU_SUBJECTS,
    ENGINE_SUBJECTS,
    ENGINE_VERDICT_MOOT,
    GGML_STATES,
    cpu_shown_other,
    engine_gpu_absent,
    engine_shown_other,
    linux_only_why,
    no_cuda_runtime,
    no_nccl_engine,
    no_switch_shown,
    shown_absent,
)
from stackaudit.facts.engine_command import EngineCommands
from stackaudit.facts.gpus import GpuInventory
from stackaudit.facts.parallelism import Parallelism
from stackaudit.facts.peer_access import P2pBandwidth
from stackaudit.facts.serving_logs import ServingLog
from stackaudit.facts.symptoms import LogSymptoms, gpus_named
from stackaudit.facts.system import CpuInfo
from stackaudit.facts.topology import TopoMatrix
from stackaudit.fixes.model import Fix, step
from stackaudit.host.source import Provenance

CHECK_DEADLINE_S = 5.0


def _missing_outcome(spec: CheckSpec, missing: list[Missing]) -> Outcome:
    first = missing[0]
    names = ", ".join(m.fact for m in missing)
    hint = next((m.hint for m in missing if m.hint), "")
    if first.kind == "not-captured":
        message = f"the source does not show what this check reads ({names}): {first.reason}"
        hint = hint or "capture it with `stackaudit capture` on that host, or paste the output it names"
    elif first.kind == "timeout":
        message = f"collecting {names} {first.reason}"
    else:
        message = f"could not read {names}: {first.reason}"
    return Outcome("unknown", message, hint=hint)


def _provenance(spec: CheckSpec, facts: dict[str, Any],
                provenance: dict[str, tuple[Provenance, ...]]) -> tuple[Provenance, ...]:
    """The provenance of every fact the check used that had a value."""
    out: dict[Provenance, None] = {}  # each once, in the order first met
    for name in (*spec.facts, *spec.optional_read):
        if name in facts and not isinstance(facts[name], Missing):
            out.update(dict.fromkeys(provenance.get(name, ())))
    # Facts are collected in parallel: one order for every run (pasted first, then by file, lines, source).
    return tuple(sorted(out, key=_order))


def _order(p: Provenance) -> tuple[bool, str, tuple[int, int], str]:
    return (p.origin != "pasted", p.file, p.lines or (0, 0), p.source)


def stay_conditional(outcome: Outcome) -> Outcome:
    """A finding that matters only under a condition the source does not show (`Outcome.only_if`) stays
    conditional: a key negative (not-an-issue) that names the condition, with no fix; an issue only where
    the check saw the condition, which it then does not pass."""
    if outcome.status != "issue" or not outcome.only_if:
        return outcome
    # The condition goes into the finding's first clause, so that a report's one-line title names it.
    m = re.search(r"[:;] ", outcome.message)
    head, rest = (outcome.message[:m.start()], outcome.message[m.start():]) if m else (outcome.message, "")
    message = f"{head}, which matters only if {outcome.only_if} (not shown in the source){rest}"
    return Outcome("not-an-issue", message, outcome.actual, outcome.expected, outcome.subjects,
                   evidence=outcome.evidence, coverage=outcome.coverage)


_SEVERITY_RANK = ("low", "medium", "high")


def proven_by_symptoms(spec: CheckSpec, outcome: Outcome, symptoms: object) -> Outcome:
    """A failure the log shows proves itself (facts/symptoms.py): `outcome` where no symptom line proves an
    issue of `spec`; else an issue that quotes the lines, whatever the check's facts said or left unknown.

    The check's `Sharpen` (its outcome's, else its declared one) adds what its facts say ("inside a Docker
    container: raise --shm-size") and the fix; an outcome that was already an issue keeps its message and
    gains the quoted lines.
    A line that proves the failure only in a setting (`Symptom.within`: a container given GPUs) counts where the
    Sharpen's `shows` names that setting.
    A line whose symptom names its own fix (`Symptom.own_fix`) takes no Sharpen text, and its issue carries that fix
    instead of the check's.
    A line that only looks like the failure in a setting the Sharpen's `shows` names (`Symptom.looks_only`) makes an
    unknown or ok outcome not-an-issue, quoted with the Sharpen's text: the line looks wrong and is not.
    A line that leaves the check's `ok` unproven (`Symptom.doubts`: CUDA refusing an engine's kernels, where the driver
    may be what cannot run them) makes an ok outcome unknown, quoted (an unknown one quotes it too); so it does a
    not-applicable one where the
    symptom names that status too (`Symptom.doubted_statuses`: a driver that reaches no GPU, for DRV-OPEN-MODULE's
    pre-Turing rule).
    A line of another check's failure that rules this check out (`Symptom.clears`) makes an unknown outcome
    not-an-issue, quoted; a verdict of the check's own facts stands. A line that rules it out only in a setting
    (`Symptom.clears_within`: a container) does so where the Sharpen's `shows` names that setting.
    An issue that only lines within a setting the facts show prove keeps the coverage of the facts' outcome.
    """
    sharpen = outcome.sharpen or spec.sharpen
    if sharpen.stands:
        return outcome
    # A line that is this check's failure only in a setting (`Symptom.within`) proves it where the facts show that.
    own = symptoms.proving(spec.id) if isinstance(symptoms, LogSymptoms) else ()
    hits = tuple(h for h in own if not h.symptom.within or h.symptom.within in sharpen.shows)
    # A line of this check's own, even one whose setting is not shown, keeps another check's line from clearing it.
    # A line that rules the check out only in a setting (`Symptom.clears_within`) does so where the facts show that.
    cleared = tuple(h for h in symptoms.clearing(spec.id)
                    if not h.symptom.clears_within or h.symptom.clears_within in sharpen.shows) \
        if isinstance(symptoms, LogSymptoms) and not own else ()
    if cleared and outcome.status == "unknown":  # the facts left it open; the line rules it out
        first = cleared[0]
        whose = f"the log's failure is {first.symptom.check}'s" if first.symptom.check else "the log says"
        return not_an_issue(f"{whose}: \"{first.line}\" ({first.symptom.proves}); {first.symptom.cleared}, so it is "
                            "not this check's failure", actual=first.line, evidence=[h.line for h in cleared[:3]])
    # A line that only looks like this check's failure in a setting the facts show (`Symptom.looks_only`).
    looks = tuple(h for h in hits if h.symptom.looks_only and h.symptom.looks_only in sharpen.shows)
    if looks and outcome.status in ("unknown", "ok"):
        return not_an_issue(f"the log says \"{looks[0].line}\" ({looks[0].symptom.proves}), but {sharpen.text}",
                            actual=looks[0].line, evidence=[h.line for h in looks[:3]])
    hits = tuple(h for h in hits if not (h.symptom.looks_only and h.symptom.looks_only in sharpen.shows))
    # A line that leaves this check's `ok` unproven (`Symptom.doubts`): the outcome turns unknown, quoting it.
    # An outcome the facts left unknown quotes the line too: it is what puts the check in question (corpus 2413).
    doubted = tuple(h for h in symptoms.doubting(spec.id)
                    if outcome.status in h.symptom.doubted_statuses or outcome.status == "unknown") \
        if isinstance(symptoms, LogSymptoms) and not hits else ()
    if doubted:
        first = doubted[0]
        return replace(outcome, status="unknown", coverage=None, hint=outcome.hint or first.symptom.doubt_hint,
                       message=f"{outcome.message}; but the log shows “{first.line}” ({first.symptom.proves}): "
                               f"{first.symptom.doubted}",
                       evidence=tuple(dict.fromkeys((*outcome.evidence, *(h.line for h in doubted[:3])))))
    # A line whose cause this check's facts would name (`Symptom.suspects`): an unknown outcome quotes it.
    suspected = symptoms.suspecting(spec.id) if isinstance(symptoms, LogSymptoms) and not hits else ()
    if suspected and outcome.status == "unknown":
        first = suspected[0]
        return replace(outcome, message=f"{outcome.message}; the log shows \"{first.line}\" ({first.symptom.proves}), "
                       "whose cause this check would name", evidence=tuple(dict.fromkeys(
                           outcome.evidence + tuple(h.line for h in suspected[:3]))))
    if not hits:
        return outcome
    lines = tuple(dict.fromkeys(h.line for h in hits))
    faulted = outcome.gpu_lost or any(h.symptom.faults_gpu for h in hits)
    if outcome.status == "issue":
        return _lines_cover(replace(outcome, evidence=tuple(dict.fromkeys(outcome.evidence + lines))[:8],
                                    gpu_lost=faulted), lines)
    first = hits[0]
    message = (f"{first.symptom.proves}: \"{first.line}\"" + (f" (and {len(lines) - 1} more line(s))"
                                                                if len(lines) > 1 else "")
               + (f"; {sharpen.text}" if sharpen.text and not first.symptom.own_fix else "")
               + (f"; the other evidence alone said {outcome.status}: {outcome.message}" if outcome.message else ""))
    severity = max((h.symptom.severity for h in hits), key=_SEVERITY_RANK.index)
    proven = issue(message, actual=list(lines[:5]), expected="no such failure in the log", subjects=outcome.subjects,
                   severity=severity, fix=Fix.of(step(first.symptom.own_fix, cost="restart", takes=first.symptom.own_takes))
                   if first.symptom.own_fix
                   else sharpen.fix or outcome.fix, evidence=list(lines[:5]), gpu_lost=faulted)
    # Lines that prove the failure only in a setting the check's facts show (`Symptom.within`: MIG enabled on the GPUs
    # shown) are about the subjects those facts judged: the issue keeps their coverage (corpus 1145: 1 GPU shown). So
    # are an engine's refusals of the GPUs it runs on (`Symptom.on_judged`: corpus 2789, 2 GPUs shown).
    if outcome.coverage is not None and all(h.symptom.within or h.symptom.on_judged for h in hits):
        return replace(proven, coverage=outcome.coverage)
    return _lines_cover(proven, lines)


def _lines_cover(proven: Outcome, lines: Sequence[str]) -> Outcome:
    """An issue the log proves that states no coverage covers the GPUs its lines are about (facts/symptoms.gpus_named:
    a PCI address, an index, /dev/nvidiaN, a pair of devices): `1 GPU shown` for one GPU's Xid, whatever the others
    show (the engine then counts the host's GPUs, `host_count`). Lines about no GPU leave it as it is."""
    named = gpus_named(lines) if proven.coverage is None else ()
    return over_subjects(proven, named) if named else proven


def engines_shown(facts: dict[str, Any]) -> tuple[str, ...]:
    """Each engine the pasted sources show (facts/engines_shown.py, the fact DRV-CUDA-COMPAT reads too, for
    facts/applicability.engine_shown_other): a pasted command's, a container's, a server log's, ollama's discovery
    lines' and its own client's (`ollama ps`, `ollama -v`), an engine's own symptom line's, a ggml device list's
    ("ggml") and, where none of those names an engine, those the user's own words name; "" for a log or container
    that names none and for a Python environment shown (a collect_env report, site-packages). Nothing where a process
    list is read: it shows the engines itself, and the check reads it."""
    from stackaudit.facts.engines_shown import EnginesShown

    if "serving_processes" in facts and not isinstance(facts["serving_processes"], Missing):
        return ()
    shown = facts.get("engines_shown")
    if not isinstance(shown, EnginesShown):
        return ()
    return (*shown.engines, *((shown.report_engine,) if shown.report else ()))


def _windows_shown(facts: dict[str, Any]) -> tuple[str, bool, str]:
    """Why the sources show a Windows host (facts/platform.Virtualization.os; "" where they do not), whether they
    show any container (a pasted container spec, or the audit inside one), and why they show WSL 2 ("" where not)."""
    from stackaudit.facts.container import ContainerInfo
    from stackaudit.facts.docker import DockerContainers
    from stackaudit.facts.platform import Virtualization

    virt, container, specs = facts.get("virtualization"), facts.get("container"), facts.get("docker_containers")
    windows = virt.source if isinstance(virt, Virtualization) and virt.windows else ""
    shown = (isinstance(container, ContainerInfo) and container.in_container) or (
        isinstance(specs, DockerContainers) and bool(specs.containers))
    wsl = virt.source if isinstance(virt, Virtualization) and virt.wsl and not virt.windows else ""
    return windows, shown, wsl


def not_shown_subject(spec: CheckSpec, outcome: Outcome, facts: dict[str, Any], used: tuple[Provenance, ...],
                      provenance: dict[str, tuple[Provenance, ...]]) -> tuple[Outcome, tuple[Provenance, ...]]:
    """An unknown outcome of a check whose subject (`CheckSpec.applies_to`) the source shows absent becomes
    not-applicable, with why (facts/applicability.py); the sources that showed it join the result's provenance.
    A verdict of the check's own facts or a symptom's issue stands, but for a subject whose verdict is moot without
    its engine (facts/applicability.ENGINE_VERDICT_MOOT), where only an issue stands.
    Where the models of the GPUs shown decide it, the not-applicable covers those GPUs (`over_subjects`)."""
    if outcome.status == "unknown" and (why := linux_only_why(spec.id, *_windows_shown(facts))):
        return not_applicable(why), tuple(sorted(dict.fromkeys((*used, *provenance.get("virtualization", ()))),
                                                 key=_order))
    shown_engines = facts.get("engines_shown")
    log = facts.get("serving_log")
    if outcome.status == "unknown" and (why := no_cuda_runtime(
            spec.id, log if isinstance(log, ServingLog) else None, engines_shown(facts),
            bool(getattr(shown_engines, "report", False)))):
        return not_applicable(why), tuple(sorted(dict.fromkeys((*used, *provenance.get("serving_log", ()))),
                                                 key=_order))
    moot = spec.applies_to in ENGINE_VERDICT_MOOT and outcome.status not in ("unknown", "issue", "error")
    if not spec.applies_to or (outcome.status != "unknown" and not moot):
        return outcome, used
    if spec.applies_to in ENGINE_SUBJECTS:
        state = GGML_STATES.get(spec.applies_to)
        if state is not None and getattr(facts.get("serving_log"), state[0], None):
            return outcome, used  # the ggml engine's log states the subject's setting: the check's verdict stands
        engines = engines_shown(facts)
        why = engine_shown_other(spec.applies_to, engines)
        gpus, driver = facts.get("gpus"), facts.get("nvidia_driver")
        if not why and (why := engine_gpu_absent(spec.applies_to, gpus if isinstance(gpus, GpuInventory) else None,
                                                 driver is not None and not isinstance(driver, Missing))):
            return not_applicable(why), tuple(sorted(dict.fromkeys((*used, *provenance.get("gpus", ()))), key=_order))
        if not why:
            return outcome, used
        engine_facts = ("engine_commands", "ollama_cuda", "ollama_shown", "log_symptoms", "docker_containers",
                        "stated_engines", *(("gpus",) if "ggml" in engines else ()))
        return not_applicable(why), tuple(sorted(dict.fromkeys((*used, *(p for f in engine_facts
                                                                          for p in provenance.get(f, ())))), key=_order))
    commands, parallelism = facts.get("engine_commands"), facts.get("parallelism")
    # A llama-bench table's split modes (`-sm tensor`) are the flags its runs were given (facts/parallelism.BenchSplit).
    argvs = tuple(c.argv for c in commands.commands) if isinstance(commands, EngineCommands) else ()
    argvs += tuple(b.flags for b in parallelism.benches) if isinstance(parallelism, Parallelism) else ()
    if why := no_nccl_engine(spec.applies_to, engines_shown(facts), argvs):
        engine_facts = ("engine_commands", "ollama_cuda", "ollama_shown", "serving_log", "docker_containers",
                        "stated_engines")
        return not_applicable(why), tuple(sorted(dict.fromkeys((*used, *(p for f in engine_facts
                                                                          for p in provenance.get(f, ())))), key=_order))
    gpus = facts.get("gpus")
    driver = facts.get("nvidia_driver")
    cpu = facts.get("cpu")
    why = (cpu_shown_other(spec.applies_to, cpu if isinstance(cpu, CpuInfo) else None)
           if spec.applies_to in CPU_SUBJECTS else
           shown_absent(spec.applies_to, gpus if isinstance(gpus, GpuInventory) else None,
                        driver is not None and not isinstance(driver, Missing)))
    topology, p2p, log = facts.get("gpu_topology"), facts.get("p2p_bandwidth"), facts.get("serving_log")
    if not why and spec.applies_to == "nvswitch" and (why := no_switch_shown(
            topology if isinstance(topology, TopoMatrix) else None, gpus if isinstance(gpus, GpuInventory) else None,
            p2p if isinstance(p2p, P2pBandwidth) else None, log if isinstance(log, ServingLog) else None,
            getattr(facts.get("kernel"), "release", "") or "")):
        # The matrix's shape, the P2P rates or the engine's NVML reading decided it for the host, over the GPU models
        # named (none may be SXM).
        return not_applicable(why), tuple(sorted(dict.fromkeys((*used, *provenance.get("gpu_topology", ()),
                                                                *provenance.get("p2p_bandwidth", ()),
                                                                *provenance.get("serving_log", ()),
                                                                *provenance.get("kernel", ()))), key=_order))
    if not why:
        return outcome, used
    subject_fact = "cpu" if spec.applies_to in CPU_SUBJECTS else "gpus"
    shown = tuple(sorted(dict.fromkeys((*used, *provenance.get(subject_fact, ()))), key=_order))
    inventory = gpus if subject_fact == "gpus" and isinstance(gpus, GpuInventory) else None
    if inventory is not None and inventory.models:  # the GPUs shown decided it by their models: over those GPUs
        return over_subjects(not_applicable(why), [f"GPU {i}" for i in inventory.models], inventory.whole_count,
                             ask="nvidia-smi -L"), shown
    return not_applicable(why), shown


def _run_one(spec: CheckSpec, facts: dict[str, Any], in_container: bool, out: dict[str, Result],
             provenance: dict[str, tuple[Provenance, ...]],
             read: tuple[tuple[CheckSpec, Result], ...] | None = None) -> None:
    missing = [facts[n] for n in spec.facts if isinstance(facts.get(n), Missing)]
    start = time.perf_counter()
    used = _provenance(spec, facts, provenance)
    if read is not None:  # a derived rule: what it read came from where its results did
        used = tuple(sorted(dict.fromkeys((*used, *(p for _, r in read for p in r.provenance))), key=_order))
    symptoms = facts.get("log_symptoms")
    if missing:
        out[spec.id] = _judged_missing(spec, missing, facts, in_container, used, provenance)
        return
    kwargs = {n: facts[n] for n in spec.facts}
    kwargs.update({n: (None if isinstance(facts.get(n), Missing) else facts.get(n)) for n in spec.optional_facts})
    if read is not None:
        kwargs[RESULTS_PARAM] = tuple(CheckRead(c, r.status) for c, r in read)
    try:
        outcome = spec.func(**kwargs)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"returned {type(outcome).__name__}, not an Outcome")
    except Exception as exc:  # a broken check is reported as `error`, never fatal
        outcome = Outcome("error", f"the check failed: {type(exc).__name__}: {exc}")
    outcome = proven_by_symptoms(spec, outcome, symptoms)
    outcome = stay_conditional(host_count(outcome, facts.get("gpus"), facts.get("parallelism")))
    outcome, used = not_shown_subject(spec, outcome, facts, used, provenance)
    needed = facts.get(outcome.needs) if outcome.status == "unknown" and outcome.needs else None
    if isinstance(needed, Missing):  # judged as a check whose required fact is missing
        out[spec.id] = _judged_missing(spec, [needed], facts, in_container, used, provenance)
        return
    result = build_result(spec, outcome, in_container, (time.perf_counter() - start) * 1000)
    out[spec.id] = replace(result, provenance=used, message=_name_the_cuts(result, used))


def _judged_missing(spec: CheckSpec, missing: list[Missing], facts: dict[str, Any], in_container: bool,
                    used: tuple[Provenance, ...], provenance: dict[str, tuple[Provenance, ...]]) -> Result:
    """A check judged without a fact it needs (a required fact missing, or the one its own `unknown` names): the
    missing-source outcome, a log line that proves or suspects it (proven_by_symptoms), the host's GPU count."""
    outcome = host_count(proven_by_symptoms(spec, _missing_outcome(spec, missing), facts.get("log_symptoms")),
                         facts.get("gpus"), facts.get("parallelism"))
    outcome, used = not_shown_subject(spec, outcome, facts, used, provenance)
    result = build_result(spec, outcome, in_container)
    return replace(result, facts_missing=tuple(m.fact for m in missing) if outcome.status == "unknown" else (),
                   provenance=used)


def host_count(outcome: Outcome, gpus: object, parallelism: object = None) -> Outcome:
    """A check over GPUs judged with the best GPU count the audit has (the `gpus` inventory: `Attached GPUs`, the
    nvidia-smi table, an lspci list, the topology matrix), where its own facts do not show how many there are.
    Where every source is an excerpt, the most GPUs any of them shows is the count, as a lower bound
    (GpuInventory.at_least: a table cut inside GPU 1's rows shows a host of at least two GPUs).
    Where no source lists the host whole and the engine's TP x PP is more GPUs than any source shows, the GPUs shown
    are some of the job's: its world is the count (SGLang `--tp 16` over two nodes of eight, one GPU's row pasted:
    `1 of 16 GPUs shown`, corpus 1114)."""
    cov = outcome.coverage
    if cov is None or cov.noun != "GPU" or not isinstance(gpus, GpuInventory):
        return outcome
    best, bound = gpus.whole_count, False
    if best is None:
        best, bound = gpus.at_least, True
    world = parallelism.shown_world_size if isinstance(parallelism, Parallelism) else None
    if world is not None and gpus.count_unshown and world > (gpus.at_least or 0):
        best, bound = world, False
    if best is None or (cov.total is not None and cov.total >= best):
        return outcome
    return over_subjects(outcome, cov.shown, best, noun=cov.noun, ask=cov.ask, blind=cov.blind, at_least=bound)


def _name_the_cuts(result: Result, used: tuple[Provenance, ...]) -> str:
    """An unknown result says which of its sources were cut at their cap (`lspci -vvv was cut at 8 MiB`):
    the cut, not the host, may be why nothing could be proved."""
    cuts = [p.cut_text() for p in used if p.cut_at is not None]
    if result.status != "unknown" or not cuts:
        return result.message
    return f"{result.message} ({'; '.join(dict.fromkeys(cuts))})"


def evaluate(specs: Iterable[CheckSpec], facts: dict[str, Any], in_container: bool,
             deadline_s: float = CHECK_DEADLINE_S,
             provenance: dict[str, tuple[Provenance, ...]] | None = None, parallel: bool = True) -> list[Result]:
    """The results of `specs` in their order: the checks first, then the derived rules on their results.
    A derived rule reads the checks among `specs` that its `reads` selects (the caller includes them)."""
    specs = list(specs)
    checks = [s for s in specs if s.reads is None]
    out = _phase([(s, None) for s in checks], facts, in_container, deadline_s, provenance or {}, parallel)
    rules = []
    for spec in specs:
        if spec.reads is not None:
            selects = spec.reads
            rules.append((spec, tuple((c, out[c.id]) for c in sorted(checks, key=lambda c: c.id) if selects(c))))
    if rules:
        out.update(_phase(rules, facts, in_container, deadline_s, provenance or {}, parallel))
    return [out[spec.id] for spec in specs]


def _phase(runs: Sequence[tuple[CheckSpec, tuple[tuple[CheckSpec, Result], ...] | None]], facts: dict[str, Any],
           in_container: bool, deadline_s: float, provenance: dict[str, tuple[Provenance, ...]],
           parallel: bool) -> dict[str, Result]:
    out: dict[str, Result] = {}
    threads = []
    if parallel:
        for spec, read in runs:
            thread = threading.Thread(target=_run_one, args=(spec, facts, in_container, out, provenance, read),
                                      name=f"check-{spec.id}", daemon=True)
            thread.start()
            threads.append(thread)
    else:
        def run_all() -> None:
            for spec, read in runs:
                _run_one(spec, facts, in_container, out, provenance, read)

        threads.append(threading.Thread(target=run_all, name="checks", daemon=True))
        threads[0].start()
    end = time.monotonic() + deadline_s
    for thread in threads:
        thread.join(max(0.0, end - time.monotonic()))
    results = {}
    for spec, _ in runs:
        result = out.get(spec.id)
        if result is None:
            result = build_result(spec, Outcome("error", f"the check did not finish within {deadline_s:g} s"),
                                  in_container)
        results[spec.id] = result
    return results
