""""To judge more, run next": the few commands that would settle the most `unknown` checks.

An unknown result says why: facts the source did not show (`Result.facts_missing`), or the check's
own hint (`Result.hint`). A missing fact is supplied by any of its sources, and each source names the
command that shows it (its title or hint in facts.registry: `lscpu`, `nvidia-smi -q -x`). A check is
settled once every fact it misses is supplied. Steps are chosen greedily: the command that settles
the most checks not yet settled first, then the next, so no step repeats what an earlier one gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from stackaudit.engine.results import Result
from stackaudit.facts._parse import engine_of
from stackaudit.fixes.model import PLACEHOLDER
from stackaudit.report.commands import commands_in

DEFAULT_STEPS = 5
# A fact whose sources name no command (a tree under /proc or /sys) is supplied by a snapshot of the host.
CAPTURE_COMMAND = "sudo stackaudit capture -o host.tar.gz"
_CAPTURE = "stackaudit capture"


# A check about one engine or one container kind: where the source shows another engine or container kind (or no
# container), it does not count toward the rank (a TRT-LLM or LXC check settled by a capture is no reason to run the
# capture first for a vLLM paste in Docker). Where the source does not say, it counts.
CONCERNS = {"RT-ENV-SGLANG": ("engine", "sglang"), "RT-ENV-VLLM": ("engine", "vllm"),
            "RT-TRTLLM-ALLREDUCE": ("engine", "trtllm"), "CTR-LXC-DEVICES": ("container", "lxc"),
            "CTR-LXC-HOST-SCOPE": ("container", "lxc"), "CTR-K8S-GPU-TOPOLOGY": ("container", "kubernetes")}
# The question a paste shows, read from the headline's facts, and the checks that answer it: the step that settles
# most of them comes first, whatever else it settles; the steps after it follow by count. Two GPUs or more (sharding, tensor parallelism) or a hang a
# log shows: the GPUs' interconnect (P2P, topology, NCCL) decides both; a hang also the PCIe switches' ACS and the
# IOMMU, which route P2P through the root complex ("significant performance reduction or even a hang", NCCL
# troubleshooting; checks/fw.py). A measured rate (`is 72.8 tok/s normal?`, corpus 1117): what caps one GPU's
# decode, its clocks and power limit, and CUDA graphs.
QUESTIONS: tuple[tuple[str, Callable[[Mapping[str, Any]], bool], tuple[str, ...]], ...] = (
    ("interconnect", lambda host: _gpu_count(host) >= 2 or _trouble(host) == "hang", ("IC-",)),
    ("hang", lambda host: _trouble(host) == "hang", ("FW-ACS-P2P", "FW-IOMMU-MODE")),
    ("rate", lambda host: isinstance(host.get("measured"), dict), ("PWR-", "RT-CUDA-GRAPHS")),
)


def _gpu_count(host: Mapping[str, Any]) -> int:
    gpus = host.get("gpus")
    count = gpus.get("count") if isinstance(gpus, dict) else None
    return count if isinstance(count, int) else 0


def _trouble(host: Mapping[str, Any]) -> str:
    trouble = host.get("trouble")
    return str(trouble.get("kind", "")) if isinstance(trouble, dict) else ""


# NVIDIA's own tools, and a command about its driver, modules or services (`lsmod | grep nvidia_peermem`, `journalctl
# -u nvidia-fabricmanager`): on a host whose GPUs are another vendor's they show nothing (`nvidia-smi: command not
# found` on a ROCm or Metal host).
_NVIDIA_COMMAND = re.compile(r"^(?:sudo )?(?:nvbandwidth|dcgmi|nvcc)(?:\s|$)|nvidia", re.IGNORECASE)


def other_vendor_only(host: Mapping[str, Any]) -> bool:
    """Whether the headline's facts show only another vendor's GPUs (`gpus.others`: AMD, Apple) and no NVIDIA one."""
    gpus = host.get("gpus")
    return isinstance(gpus, dict) and bool(gpus.get("others")) and not gpus.get("count") and not gpus.get("names")


def focus_of(host: Mapping[str, Any]) -> tuple[str, ...]:
    """The check-ID prefixes of the questions the headline's facts (Report.host) show."""
    return tuple(prefix for group in questions_of(host) for prefix in group)


def questions_of(host: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """Per question the headline's facts (Report.host) show, the check-ID prefixes that answer it."""
    question = host.get("question")  # the checks the user's own question names (facts/question.py) first
    asked = question.get("checks") if isinstance(question, dict) else None
    return [*([tuple(str(c) for c in asked)] if isinstance(asked, list) and asked else []),
            *(prefixes for _, shows, prefixes in QUESTIONS if shows(host))]


def concerns_another(check: str, host: Mapping[str, Any]) -> bool:
    """Whether `check` is about an engine or container kind (CONCERNS) other than those the headline's facts show."""
    what, name = CONCERNS.get(check, ("", ""))
    if what == "engine":
        engines = host.get("engines") or []
        return bool(engines) and name not in engines
    if what == "container":
        container = host.get("container")
        return container is not None and container != name
    return False


@dataclass(frozen=True)
class NextStep:
    """One thing to run (or do, when `command` is False) and the checks it would settle."""

    text: str
    command: bool
    settles: tuple[str, ...]
    facts: tuple[str, ...] = ()
    # The part of the host it adds where a check judged some of its subjects (Coverage.gap): "for all 8 GPUs; …".
    adds: str = ""
    # Of `settles`, the checks already judged on the GPUs shown (`ok` with `1 of 4 GPUs shown`): it confirms them for
    # the rest.
    confirms: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"step": self.text, "command": self.command, "settles": list(self.settles), "facts": list(self.facts),
                **({"adds": self.adds} if self.adds else {})}


# The last registry fact_commands read, with its answer: every report rendered asks again (11 ms each).
_last_commands: tuple[tuple[tuple[str, object], ...], dict[str, list[str]]] = ((), {})


def fact_commands(fact_specs: Mapping[str, object] | None = None) -> dict[str, list[str]]:
    """Each fact's commands, best source first, from the registry's titles and hints."""
    global _last_commands
    if fact_specs is None:
        from stackaudit.facts.registry import load_all

        fact_specs = load_all()
    specs = tuple(fact_specs.items())
    seen, answer = _last_commands  # one read: another thread may replace it meanwhile
    if len(seen) == len(specs) and all(a is b and x == y for (x, a), (y, b) in zip(seen, specs, strict=True)):
        return {name: list(commands) for name, commands in answer.items()}
    out: dict[str, list[str]] = {}
    for name, spec in fact_specs.items():
        texts = [getattr(spec, "hint", "")]
        for alt in getattr(spec, "alternatives", ()):
            texts += [alt.hint, alt.title]
        found: list[str] = []
        for text in texts:
            for command in commands_in(text or ""):
                if _key(command) not in {_key(c) for c in found}:
                    found.append(command)
        out[name] = found
    _last_commands = (specs, {name: list(commands) for name, commands in out.items()})
    return out


def _key(command: str) -> str:
    """`sudo dmesg` and `dmesg` are one step (shown with sudo where any source asks for it); so are
    `sudo stackaudit capture -o host.tar.gz` and `stackaudit capture`: one snapshot, whatever file it is written to."""
    bare = command[5:] if command.startswith("sudo ") else command
    return _CAPTURE if bare.split()[:2] == _CAPTURE.split() else bare


@dataclass
class _Need:
    check: str
    # Each requirement is a set of step keys any one of which supplies it; all must be met.
    requirements: list[tuple[str, frozenset[str]]]


def _needs(results: Iterable[Result], by_fact: Mapping[str, list[str]],
           shown: dict[str, str], is_command: dict[str, bool], adds: dict[str, str]) -> list[_Need]:
    def add(text: str, command: bool) -> str:
        # A command with a `<placeholder>` is not runnable as pasted (the shell reads `<` as a redirection).
        command = command and not PLACEHOLDER.search(text)
        key = _key(text) if command else text
        if command and (text.startswith("sudo ") or key not in shown):
            shown[key] = text
        elif not command:
            shown.setdefault(key, text)
        is_command[key] = command
        return key

    needs = []
    for r in results:
        requirements: list[tuple[str, frozenset[str]]] = []
        for fact in r.facts_missing:
            commands = by_fact.get(fact) or [CAPTURE_COMMAND]
            requirements.append((fact, frozenset(add(c, True) for c in commands)))
        if not r.facts_missing:
            commands = commands_in(r.hint) if r.hint else []
            if commands:
                keys = frozenset(add(c, True) for c in commands)
                requirements.append(("", keys))
                gap = r.coverage.gap() if r.coverage is not None else ""
                for key in keys if gap and gap in r.hint else ():
                    adds.setdefault(key, gap)
            elif r.hint:
                requirements.append(("", frozenset({add(r.hint.strip().rstrip("."), False)})))
        if requirements:
            needs.append(_Need(r.id, requirements))
    return needs


def run_next(results: Iterable[Result], limit: int | None = DEFAULT_STEPS,
             by_fact: Mapping[str, list[str]] | None = None, host: Mapping[str, Any] | None = None) -> list[NextStep]:
    """The steps that settle the most unknown checks, best first (all of them with limit=None); a check judged on
    some of its subjects (`Result.partly_shown`: `ok` with `1 of 8 GPUs shown`) is settled by the rest.

    `host`: the headline's facts (Report.host): a command of an engine they do not show (`engines`: none where
    the key is absent) is never a step (`python -m sglang.check_env` on a vLLM host), nor an NVIDIA tool where they
    show only another vendor's GPUs (`nvidia-smi` on a ROCm host, other_vendor_only); the question they show
    (QUESTIONS) ranks first; a check about an engine or container kind they do not show (CONCERNS) does not count
    toward the rank. None: every command may be a step, ranked by count.
    """
    focus = questions_of(host) if host is not None else []
    unknown = [r for r in results if (r.status == "unknown" or r.partly_shown) and not r.waived]
    partly = {r.id for r in unknown if r.status != "unknown"}
    shown: dict[str, str] = {}
    is_command: dict[str, bool] = {}
    adds: dict[str, str] = {}
    needs = _needs(unknown, by_fact if by_fact is not None else fact_commands(), shown, is_command, adds)
    if host is not None:
        present = set(host.get("engines") or ())
        nvidia_absent = other_vendor_only(host)
        absent = {k for k, text in shown.items() if is_command[k] and (
            engine_of(text) not in ("", *present) or (nvidia_absent and _NVIDIA_COMMAND.search(text)))}
        for need in needs:
            need.requirements = [(fact, opts - absent) for fact, opts in need.requirements]
        for key in absent:
            del shown[key]
    chosen: list[str] = []
    steps: list[NextStep] = []
    settled: set[str] = set()
    candidates = sorted(shown)
    counts = {n.check: host is None or not concerns_another(n.check, host) for n in needs}
    while candidates and (limit is None or len(steps) < limit):
        # Per step key, the open checks it would settle with the steps chosen (each of their requirements not yet
        # met holds it) and the number it helps (any requirement holds it): one pass over the needs a round,
        # where testing each candidate against each need costs candidates × needs.
        have = set(chosen)
        settles_with: dict[str, list[str]] = {}
        helps: dict[str, int] = {}
        for n in needs:
            if n.check in settled:
                continue
            unmet = [opts for _, opts in n.requirements if not have & opts]
            for key in frozenset.intersection(*unmet) if unmet else shown:
                settles_with.setdefault(key, []).append(n.check)
            for key in frozenset().union(*(opts for _, opts in n.requirements)):
                helps[key] = helps.get(key, 0) + 1
        # Each question only until one step has answered it: then the next question, and the rest by count.
        asking = tuple(p for group in focus if not any(c.startswith(group) for c in settled) for p in group)
        ranks: list[tuple[int, int, int, bool, str]] = []
        for key in candidates:
            newly = settles_with.get(key, ())
            asked = sum(1 for c in newly if c.startswith(asking)) if asking else 0
            counted = sum(1 for c in newly if counts[c])
            # The question's checks first, then more checks settled that concern what the source shows, then more
            # helped, then commands before prose, then by name.
            ranks.append((-asked, -counted, -helps.get(key, 0), not is_command[key], key))
        best = min(ranks)[-1]
        picked = {*chosen, best}
        newly_settled = [n.check for n in needs if n.check not in settled
                         and all(picked & opts for _, opts in n.requirements)]
        helped = [n.check for n in needs if n.check not in settled
                  and any(best in opts for _, opts in n.requirements)]
        if not helped:
            break
        facts = sorted({fact for n in needs for fact, opts in n.requirements if fact and best in opts})
        chosen.append(best)
        candidates.remove(best)
        settled.update(newly_settled)
        settles = tuple(newly_settled or helped)
        steps.append(NextStep(shown[best], is_command[best], settles, tuple(facts), adds.get(best, ""),
                              tuple(c for c in settles if c in partly)))
    return steps
