"""Checks: small pure functions of facts, registered with their documentation.

A check's parameters are fact names (see stackaudit.facts); it never sees the Host, and the
registry refuses one that asks for it. A parameter with a default of None is optional: the
check runs and gets None when that fact is unavailable. A check whose required facts are
unavailable is `unknown` with the fact's reason, without being called.

A derived rule (`check(..., reads=...)`) reads results as well as facts. The engine evaluates it in a
second phase, after every check: its `results` parameter gets the results of the checks `reads` selects
(CheckRead: the check and its status). No check imports or calls another.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from stackaudit.facts.applicability import CPU_SUBJECTS, ENGINE_SUBJECTS, LINUX_ONLY, SUBJECTS
from stackaudit.facts.symptoms import PROVEN

# A fix is data (its steps): stackaudit.fixes; importable from here for the checks.
from stackaudit.fixes.catalogue_fix import declare_fix
from stackaudit.fixes.model import FIX_COSTS, Fix, FixCost, FixScope

__all__ = ["CHECKS", "DOMAINS", "FIX_COSTS", "STATUSES", "CheckRead", "CheckSpec", "Coverage", "Fix", "FixCost", "FixScope",
           "Outcome", "Sharpen", "check", "issue", "load_all", "not_an_issue", "not_applicable", "ok", "over_subjects",
           "unknown"]

Status = Literal["issue", "ok", "not-an-issue", "unknown", "not-applicable", "error"]
Severity = Literal["high", "medium", "low"]
Confidence = Literal["source-verified", "documented", "field-reports", "unproven"]

STATUSES: tuple[Status, ...] = ("issue", "ok", "not-an-issue", "unknown", "not-applicable", "error")
DOMAINS = ("FW", "CTR", "DRV", "KERN", "KVER", "MEM", "PCIE", "PWR", "IC", "RT")


@dataclass(frozen=True)
class Coverage:
    """Which subjects (GPUs, links, bridges, devices, CPUs) a check over subjects judged, of how many the host has.

    `total` is the best count the audit has (`Attached GPUs`, the nvidia-smi table, an lspci list, the topology
    matrix; the engine fills it from the `gpus` inventory where the check does not know it); None: not known.
    `blind` are subjects the source lists without the value the check reads.
    `ask` is the command that shows one subject's value (`nvidia-smi -q`, `sudo lspci -vvv -d 10de:`).
    `at_least`: `total` is a lower bound, the most subjects any source shows where each is an excerpt (a table cut
    inside GPU 1's rows shows two GPUs of a host that may have more): `1 of 2 GPUs shown`, never complete.
    """

    shown: tuple[str, ...]
    total: int | None = None
    noun: str = "GPU"
    ask: str = ""
    blind: tuple[str, ...] = ()
    at_least: bool = False

    @property
    def count(self) -> int:
        return len(self.shown)

    @property
    def complete(self) -> bool:
        """True when every subject of the host was judged (the count is known and reached)."""
        return self.total is not None and self.count >= self.total and not self.at_least

    @property
    def missing(self) -> int | None:
        """How many subjects were not judged; None when the host's count is not known."""
        if self.total is None:
            return None
        return max(self.total - self.count, 0)

    def text(self) -> str:
        """`1 of 8 GPUs shown`, or `1 GPU shown` when the host's count is not known."""
        if self.total is None or (self.at_least and self.count >= self.total):  # every one of a lower bound
            return f"{self.count} {_plural(self.noun, self.count)} shown"
        return f"{self.count} of {self.total} {_plural(self.noun, self.total)} shown"

    def gap(self) -> str:
        """What the source lacks, named precisely: `for all 8 GPUs; the source has GPU 0 only`; "" when complete."""
        if self.complete:
            return ""
        shown = ", ".join(self.shown[:3]) + (", …" if self.count > 3 else "")
        has = f"the source has {shown} only" if self.count else "the source shows none"
        if self.blind:
            named = ", ".join(self.blind[:3]) + (", …" if len(self.blind) > 3 else "")
            rest = self.missing if self.missing is not None else len(self.blind)
            return f"for the {rest} {_plural(self.noun, rest)} not shown ({named}); {has}"
        if self.at_least:
            return f"for every {self.noun} of the host (at least {self.total}); {has}, and how many the host has is " \
                   "not in the source"
        if self.missing is not None:
            return f"for all {self.total} {_plural(self.noun, self.total or 0)}; {has}"
        return f"for every {self.noun} of the host; {has}, and how many the host has is not in the source"

    def run_next(self) -> str:
        """The command and the part it would add (`Coverage.gap`); "" when every subject was judged."""
        gap = self.gap()
        return f"{f'`{self.ask}`' if self.ask else 'the same output'} {gap}" if gap else ""

    def to_json(self) -> dict[str, Any]:
        return {"shown": self.count, "total": self.total, "of": self.noun, "subjects": list(self.shown),
                **({"at_least": True} if self.at_least else {})}


def _plural(noun: str, n: int) -> str:
    return noun if n == 1 else noun + "s"


@dataclass(frozen=True)
class Sharpen:
    """What a check's facts add to a failure that a log symptom proves (facts/symptoms.py).

    The engine applies the symptoms (engine/evaluate.proven_by_symptoms), whatever the check's facts said.
    A check declares its default (`check(..., sharpen=...)`), used also when its facts are missing.
    An outcome's own `sharpen` replaces the default where the check's facts say more (the container's kind).
    """

    text: str = ""
    fix: Fix | None = None
    # The facts say the symptom's line is not about this setting here (a VM guest's log shows its virtual
    # IOMMU's faults): the check's own verdict stands.
    stands: bool = False
    # The settings the facts show that a symptom may need (`Symptom.within`: "container", a container given GPUs).
    shows: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What a check says. The engine adds ID, domain, defaults, priority and scope."""

    status: Status
    message: str
    actual: Any = None
    expected: Any = None
    subjects: tuple[str, ...] = ()
    severity: Severity | None = None
    confidence: Confidence | None = None
    fix: Fix | None = None
    evidence: tuple[str, ...] = ()
    hint: str = ""
    # A lost or faulted GPU (fallen off the bus, GSP timeouts, uncontained memory errors): P0 whatever its
    # fix costs (the one override of the priority rule, docs/report.md).
    gpu_lost: bool = False
    # An optional fact the check could not judge without: where that fact is missing, the engine reports the
    # check as it reports one whose required fact is missing (the fact's own reason and hint).
    needs: str = ""
    # A finding whose own reason says it matters only under a condition the source does not show: the condition
    # in words. The engine reports such an issue as a key negative that names it (engine/evaluate.stay_conditional).
    only_if: str = ""
    # A check over subjects: which it judged, of how many (`over_subjects`, the one coverage rule).
    coverage: Coverage | None = None
    # What the facts add to a failure a log symptom proves; None: the check's declared `Sharpen`.
    sharpen: Sharpen | None = None


def issue(message: str, *, actual: Any = None, expected: Any = None, subjects: tuple[str, ...] | list[str] = (),
          severity: Severity | None = None, confidence: Confidence | None = None, fix: Fix | None = None,
          evidence: tuple[str, ...] | list[str] = (), gpu_lost: bool = False, only_if: str = "") -> Outcome:
    return Outcome("issue", message, actual, expected, tuple(subjects), severity, confidence, fix, tuple(evidence),
                   gpu_lost=gpu_lost, only_if=only_if)



def over_subjects(judged: Outcome, shown: Sequence[str], total: int | None = None, *, noun: str = "GPU",
                  ask: str = "", blind: Sequence[str] = (), at_least: bool = False) -> Outcome:
    """The one coverage rule for every check over subjects (GPUs, links, bridges, devices, CPUs).

    `judged` is the check's verdict over the subjects it could read (`shown`); `total` is how many the host has
    (`at_least`: the most any source shows, a lower bound).
    The status is `issue` when any shown subject has it, whatever the others show.
    It is `ok` (or `not-an-issue`) when the shown subjects are fine, with the coverage `K of N shown`.
    A `not-applicable` that the shown subjects decide (their models lack the feature) gets the same coverage.
    A subject the source does not show could be one that has the feature.
    A not-applicable from a host-wide fact (no GPU on the bus, no engine) does not come through this rule.
    It is `unknown` only when no subject is shown, or when the shown ones are themselves inconclusive.
    Where subjects are missing, the hint names the missing part (`Coverage.run_next`).
    """
    coverage = Coverage(tuple(dict.fromkeys(shown)), total, noun, ask, tuple(dict.fromkeys(blind)), at_least)
    if coverage.total is not None and coverage.total < coverage.count:
        coverage = replace(coverage, total=coverage.count)
    missing = coverage.run_next()
    if judged.coverage is not None and judged.hint == judged.coverage.run_next():
        judged = replace(judged, hint="")  # the rule applied again, with a better count: its own hint goes
    if judged.status == "issue":
        return replace(judged, coverage=coverage)
    if not coverage.shown and judged.status != "unknown":
        return replace(judged, status="unknown", hint=missing, coverage=coverage)
    if judged.status == "unknown":  # the shown subjects do not settle it: their own hint first
        return replace(judged, hint=judged.hint or missing, coverage=coverage)
    if judged.status in ("ok", "not-an-issue", "not-applicable"):
        return replace(judged, hint=missing, coverage=coverage)
    return judged


def ok(message: str, *, actual: Any = None, expected: Any = None, subjects: tuple[str, ...] | list[str] = (),
       evidence: tuple[str, ...] | list[str] = ()) -> Outcome:
    return Outcome("ok", message, actual, expected, tuple(subjects), evidence=tuple(evidence))


def not_an_issue(message: str, *, actual: Any = None, expected: Any = None,
                 subjects: tuple[str, ...] | list[str] = (), evidence: tuple[str, ...] | list[str] = ()) -> Outcome:
    return Outcome("not-an-issue", message, actual, expected, tuple(subjects), evidence=tuple(evidence))


def unknown(message: str, *, hint: str = "", actual: Any = None, subjects: tuple[str, ...] | list[str] = (),
            needs: str = "") -> Outcome:
    return Outcome("unknown", message, actual, None, tuple(subjects), hint=hint, needs=needs)


def not_applicable(message: str, *, actual: Any = None) -> Outcome:
    return Outcome("not-applicable", message, actual)


CheckFunc = Callable[..., Outcome]
# The parameter a derived rule gets the results it reads by (not a fact).
RESULTS_PARAM = "results"
# The facts that show which engines a paste holds (an engine subject's, facts/applicability.ENGINE_SUBJECTS).
ENGINE_SUBJECT_FACTS = ("serving_processes", "engines_shown", "engine_commands", "ollama_cuda", "ollama_shown",
                        "serving_log", "docker_containers", "collect_env", "python_env", "stated_engines", "gpus",
                        "log_symptoms", "parallelism")


@dataclass(frozen=True)
class CheckSpec:
    """A registered check: its function and its one source of documentation."""

    id: str
    domain: str
    title: str
    severity: Severity
    confidence: Confidence
    fix: Fix
    func: CheckFunc
    facts: tuple[str, ...]
    optional_facts: tuple[str, ...]
    references: tuple[str, ...] = ()
    doc: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)
    # True when the observed value (`actual`) is a sample (current clocks, processes on a GPU, swap in
    # use), not configuration: compare and bench compare list it apart and never call it drift.
    sample: bool = False
    # A derived rule: which checks' results it reads (evaluated after them); None for a check.
    reads: Callable[[CheckSpec], bool] | None = None
    # What the check's facts add to a failure a log symptom proves, where its outcome says nothing more.
    sharpen: Sharpen = Sharpen()
    # What the check is about (a key of facts/applicability.SUBJECTS): where the check cannot judge and the source
    # shows that thing absent, the engine reports it not applicable (engine/evaluate.not_shown_subject).
    applies_to: str = ""

    @property
    def summary(self) -> str:
        return self.title

    @property
    def optional_read(self) -> tuple[str, ...]:
        """The optional facts the check's result reads: its parameters', and the log symptoms where one proves it
        (the engine applies them, engine/evaluate.proven_by_symptoms)."""
        proven = ("log_symptoms",) if self.id in PROVEN and "log_symptoms" not in self.optional_facts else ()
        return (*self.optional_facts, *proven)

    @property
    def subject_read(self) -> tuple[str, ...]:
        """The facts that show whether the check's subject is absent (`applies_to`), collected besides its own."""
        platform = ("virtualization", "container", "docker_containers") if self.id in LINUX_ONLY else ()
        if self.applies_to in CPU_SUBJECTS:
            return ("cpu", *platform)
        if self.applies_to in ENGINE_SUBJECTS:
            return (*ENGINE_SUBJECT_FACTS, *platform)
        if self.applies_to == "nccl-gpu":  # an engine shown that runs no NCCL (applicability.no_nccl_engine)
            return ("gpus", "nvidia_driver", *ENGINE_SUBJECT_FACTS, *platform)
        if self.applies_to == "nvswitch":  # a whole topology matrix or P2P rates can show no switch fabric
            return ("gpus", "nvidia_driver", "gpu_topology", "p2p_bandwidth", *platform)
        return ("gpus", "nvidia_driver", *platform) if self.applies_to else platform


@dataclass(frozen=True)
class CheckRead:
    """A check's result as a derived rule reads it: the check (its fix data) and its status in this audit."""

    spec: CheckSpec
    status: str


CHECKS: dict[str, CheckSpec] = {}


def check(
    id: str,
    *,
    title: str,
    severity: Severity,
    confidence: Confidence,
    fix: Fix,
    references: tuple[str, ...] = (),
    tags: tuple[str, ...] = (),
    sample: bool = False,
    reads: Callable[[CheckSpec], bool] | None = None,
    sharpen: Sharpen | None = None,
    applies_to: str = "",
) -> Callable[[CheckFunc], CheckFunc]:
    """Register a check (with `reads`: a derived rule). Its docstring is its documentation (`stackaudit explain ID`)."""
    domain = id.split("-", 1)[0]
    if id != id.upper() or domain not in DOMAINS:
        raise ValueError(f"check ID {id!r}: uppercase, with one of the domains {DOMAINS} first")
    subjects = (*SUBJECTS, *CPU_SUBJECTS, *ENGINE_SUBJECTS)
    if applies_to and applies_to not in subjects:
        raise ValueError(f"check {id}: applies_to {applies_to!r} is not one of {', '.join(subjects)}")

    def register(func: CheckFunc) -> CheckFunc:
        if id in CHECKS:
            raise ValueError(f"check {id} registered twice")
        required: list[str] = []
        optional: list[str] = []
        parameters = inspect.signature(func).parameters
        if (reads is not None) != (RESULTS_PARAM in parameters):
            raise TypeError(f"check {id}: a derived rule (reads=) and only one takes `{RESULTS_PARAM}`")
        for name, param in parameters.items():
            if name == RESULTS_PARAM:
                continue
            if name == "host":
                raise TypeError(f"check {id} asks for the host: checks take facts only (docs/design.md)")
            if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
                raise TypeError(f"check {id}: parameters must be named facts")
            (optional if param.default is None else required).append(name)
            if param.default is not inspect.Parameter.empty and param.default is not None:
                raise TypeError(f"check {id}: a fact parameter's default can only be None")
        CHECKS[id] = CheckSpec(
            id=id,
            domain=domain,
            title=title,
            severity=severity,
            confidence=confidence,
            fix=fix,
            func=func,
            facts=tuple(required),
            optional_facts=tuple(optional),
            references=references,
            doc=inspect.cleandoc(func.__doc__ or ""),
            tags=tags,
            sample=sample,
            reads=reads,
            sharpen=sharpen or Sharpen(),
            applies_to=applies_to,
        )
        declare_fix(id, fix)
        return func

    return register


def load_all() -> dict[str, CheckSpec]:
    """Import every check module so their checks register."""
    from stackaudit import checks

    checks.import_all()
    return CHECKS


def sample_checks() -> frozenset[str]:
    """The IDs of the checks whose observed value is a sample (this stackaudit's catalogue)."""
    return frozenset(check_id for check_id, spec in load_all().items() if spec.sample)
