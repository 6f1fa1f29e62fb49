"""A fix as data: a list of steps, each with its commands, what it changes, its cost, its scope,
its persistent form and its revert (docs/design.md).

Commands are kept as written, so every renderer shows them verbatim; an argv command is one a
program can run without a shell (`argv`), a shell line (`sh(...)`) is one where a pipeline, a
redirect or a glob is the point. `<placeholder>` words (`<pid>`, `<bdf>`) stay one word; a step
that names `per=` is written for one subject and `Fix.bind(subjects)` repeats its commands for the
subjects a check's result named.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from stackaudit.fixes.shell_quote import bash_word
from stackaudit.pci_address import BDF

FixCost = Literal["runtime", "restart", "driver-reload", "reboot", "bios", "hardware", "none"]
# "host": a host-global knob (kernel, BIOS, GPU settings): applied on the machine that owns the kernel —
# the container's host when audited from inside a container; "container": what the container's own
# configuration or the engine's launch can change; "container-host": the container's configuration
# that lives on its host (/etc/pve/lxc/<id>.conf, `docker run` flags, the node's containerd).
StepScope = Literal["host", "container", "container-host"]
FixScope = Literal["host", "container"]

FIX_COSTS: tuple[FixCost, ...] = ("runtime", "restart", "driver-reload", "reboot", "bios", "hardware", "none")
# Cheapest first; "none" (nothing to change) counts below everything.
_COST_RANK: tuple[FixCost, ...] = ("none", "runtime", "restart", "driver-reload", "reboot", "bios", "hardware")

COST_WORDS: dict[str, str] = {
    "runtime": "runtime",
    "restart": "restart the engine",
    "driver-reload": "reload the driver (all GPU work stops)",
    "reboot": "reboot",
    "bios": "BIOS setting, then reboot",
    "hardware": "not fixable by configuration",
    "none": "nothing to change",
}
# What a restart takes, by where its step applies (StepScope): the engine's own launch (`container`; a host step
# restarts the program it configures); the container's configuration on its host: the runtime that applies it
# (`container-host`: the runtime's config, its default limits). A step whose restart is none of these says its own
# (`Step.takes`: recreate the container, restart the kubelet).
RESTART_WORDS: dict[str, str] = {
    "host": COST_WORDS["restart"],
    "container": COST_WORDS["restart"],
    "container-host": "restart the container runtime",
}

PLACEHOLDER = re.compile(r"<[^<>\n]+>")
# Characters that make a line need a shell when they are not quoted.
_SHELL_CHARS = frozenset("|&;<>()$`*?~")


def _masked(line: str) -> tuple[str, list[str]]:
    """The line with each `<placeholder>` replaced by a plain word, and the placeholders."""
    found: list[str] = []

    def keep(m: re.Match[str]) -> str:
        found.append(m.group(0))
        return f"PLACEHOLDER{len(found) - 1}X"

    return PLACEHOLDER.sub(keep, line), found


# Subject patterns for `per_match`: a process named `pid 731`; a GPU named by its PCI address (which
# `nvidia-smi -i` takes as well as an index).
PID_SUBJECT = r"pid (\d+)"
BDF_SUBJECT = f"({BDF})"


def needs_shell(line: str) -> bool:
    """True when the line has a shell operator, redirect, substitution or glob outside quotes."""
    text, _ = _masked(line)
    quote = ""
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _SHELL_CHARS:
            return True
    return False


@dataclass(frozen=True)
class Command:
    """One command line, as it is shown and pasted. `shell`: a shell line (a pipeline or a redirect is the
    point); otherwise `argv` is what a program runs."""

    line: str
    shell: bool = False

    def __post_init__(self) -> None:
        if not self.line.strip() or "\n" in self.line:
            raise ValueError(f"a command is one non-empty line: {self.line!r}")
        if not self.shell and needs_shell(self.line):
            raise ValueError(f"{self.line!r} needs a shell: write it with sh()")

    @property
    def argv(self) -> tuple[str, ...]:
        """The words of an argv command (a `<placeholder>` stays one word); () for a shell line."""
        if self.shell:
            return ()
        text, found = _masked(self.line)
        words = shlex.split(text)
        for i, placeholder in enumerate(found):
            words = [w.replace(f"PLACEHOLDER{i}X", placeholder) for w in words]
        return tuple(words)

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "shell": True} if self.shell else {"line": self.line, "argv": list(self.argv)}


def cmd(line: str) -> Command:
    """An argv command (refused when it needs a shell)."""
    return Command(line)


def sh(line: str) -> Command:
    """A shell line: a pipeline, a redirect or a glob is the point."""
    return Command(line, shell=True)


@dataclass(frozen=True)
class Persist:
    """How a step is kept for good: a config line and the file it goes in, or a command, or (where neither
    fits) what to do in words. `label` names the setup it is for (`Docker`, `LXC`, `GRUB`)."""

    line: str = ""
    file: str = ""
    command: Command | None = None
    text: str = ""
    label: str = ""

    def __post_init__(self) -> None:
        if not (self.line or self.command or self.text):
            raise ValueError("a persistent form needs a line, a command or a text")

    def describe(self) -> str:
        """One line of text (for the derived `fix.persistent` and the catalogue)."""
        head = f"{self.label}: " if self.label else ""
        if self.command is not None:
            body = self.command.line
        elif self.line:
            body = f"{self.line} (in {self.file})" if self.file else self.line
        else:
            body = ""
        extra = self.text if not body else (f" — {self.text}" if self.text else "")
        return head + body + extra

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in ("label", "line", "file", "text"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.command is not None:
            out["command"] = self.command.to_json()
        return out


def keep_line(line: str, file: str, label: str = "", text: str = "") -> Persist:
    return Persist(line=line, file=file, label=label, text=text)


def keep_cmd(command: Command, label: str = "", text: str = "") -> Persist:
    return Persist(command=command, label=label, text=text)


def keep_text(text: str, label: str = "") -> Persist:
    return Persist(text=text, label=label)


@dataclass(frozen=True)
class Step:
    """One step of a fix. `does`: its one line of description (the only prose); `commands`: run in order;
    `changes`: what it changes (a sysctl key, a register, a file); `persistent`: ways to keep it (any one);
    `revert`: the commands that undo it; `per`: the placeholder (`<bdf>`) its commands are written for, so
    that `Fix.bind` repeats them for each subject of the result."""

    does: str
    commands: tuple[Command, ...] = ()
    changes: str = ""
    cost: FixCost = "runtime"
    scope: StepScope = "host"
    persistent: tuple[Persist, ...] = ()
    revert: tuple[Command, ...] = ()
    per: str = ""
    # A regex whose first group takes the value out of a subject (`pid (\d+)` for `pid 731`); subjects that do not
    # match are not this step's. Empty: the subject as it is.
    per_match: str = ""
    # The cost in words where COST_WORDS would say it wrong (`restart the container`).
    takes: str = ""

    def __post_init__(self) -> None:
        if "\n" in self.does or not self.does.strip():
            raise ValueError(f"a step's description is one non-empty line: {self.does!r}")
        if self.per and not any(self.per in c.line for c in self.commands):
            raise ValueError(f"step {self.does!r}: per={self.per!r} appears in none of its commands")

    def bind(self, subjects: Sequence[str]) -> Step:
        if self.per_match:
            found = [re.fullmatch(self.per_match, s) for s in subjects]
            subjects = [m.group(1) for m in found if m is not None]
        if not self.per or not subjects:
            return self

        def each(commands: tuple[Command, ...]) -> tuple[Command, ...]:
            out: list[Command] = []
            for c in commands:
                if self.per in c.line:
                    # A subject comes from the host: one bash word, whatever it holds.
                    for s in subjects:
                        line = c.line.replace(self.per, bash_word(s))
                        out.append(replace(c, line=line, shell=c.shell or needs_shell(line)))
                else:
                    out.append(c)
            return tuple(out)

        return replace(self, commands=each(self.commands), revert=each(self.revert), per="", per_match="")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"does": self.does, "cost": self.cost, "scope": self.scope,
                               "commands": [c.to_json() for c in self.commands]}
        if self.takes:
            out["takes"] = self.takes
        if self.changes:
            out["changes"] = self.changes
        out["persistent"] = [p.to_json() for p in self.persistent]
        out["revert"] = [c.to_json() for c in self.revert]
        return out


def step(does: str, *commands: Command | str, changes: str = "", cost: FixCost = "runtime",
         scope: StepScope = "host", keep: Persist | Iterable[Persist] = (), revert: Iterable[Command | str] = (),
         per: str = "", per_match: str = "", takes: str = "") -> Step:
    """A step; a command given as a string is an argv command (`cmd`)."""
    return Step(
        does=does,
        commands=tuple(c if isinstance(c, Command) else cmd(c) for c in commands),
        changes=changes,
        cost=cost,
        scope=scope,
        persistent=(keep,) if isinstance(keep, Persist) else tuple(keep),
        revert=tuple(c if isinstance(c, Command) else cmd(c) for c in revert),
        per=per,
        per_match=per_match,
        takes=takes,
    )


def _by_rank(cost: str) -> int:
    return _COST_RANK.index(cost) if cost in _COST_RANK else len(_COST_RANK)


_ENGINE_WORDS = {"vllm": re.compile(r"\bvllm", re.IGNORECASE), "sglang": re.compile(r"\bsglang", re.IGNORECASE),
                 "trtllm": re.compile(r"\btrtllm|\btensorrt", re.IGNORECASE)}


def engines_named(text: str) -> set[str]:
    """The serving engines a fix text names (`vllm`, `sglang`, `trtllm`)."""
    return {name for name, rx in _ENGINE_WORDS.items() if rx.search(text)}


@dataclass(frozen=True)
class Fix:
    """How to fix an issue: its steps in order, and a note (a trap to avoid). The old flat fields
    (`cost`, `runtime`, `persistent`, `scope`) are derived from the steps."""

    steps: tuple[Step, ...] = field(default_factory=tuple)
    note: str = ""

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError("a fix has at least one step (a step with no command says what to do)")

    @classmethod
    def of(cls, *steps: Step, note: str = "") -> Fix:
        return cls(steps=steps, note=note)

    @property
    def cost(self) -> FixCost:
        """What the whole fix takes: its costliest step."""
        return max((s.cost for s in self.steps), key=_by_rank)

    @property
    def scope(self) -> FixScope:
        """`container` when every step is the container's own; else `host` (the host or the container's host)."""
        return "container" if all(s.scope == "container" for s in self.steps) else "host"

    @property
    def commands(self) -> tuple[Command, ...]:
        return tuple(c for s in self.steps for c in s.commands)

    @property
    def runtime(self) -> str:
        """The steps in one line: each step's commands, or its description when it has none."""
        return "; ".join("; ".join(c.line for c in s.commands) if s.commands else s.does for s in self.steps)

    @property
    def persistent(self) -> str:
        return "; ".join(p.describe() for s in self.steps for p in s.persistent)

    def cost_words(self, pod: bool = False) -> str:
        """`runtime, then restart the engine`: the steps' costs in order, each once. `pod`: the engine runs
        in a Kubernetes pod, where a container-scope restart is a redeploy."""
        words: list[str] = []
        # A step that changes nothing (a look-up) adds no cost when others do.
        costed = [s for s in self.steps if s.cost != "none"] or list(self.steps)
        for s in costed:
            if s.cost != "restart":
                word = s.takes or COST_WORDS[s.cost]
            elif pod and s.scope == "container" and (not s.takes or "container" in s.takes):
                word = "redeploy the pod"  # a pod's container is restarted or recreated by redeploying the pod
            else:
                word = s.takes or RESTART_WORDS[s.scope]
            if word not in words:
                words.append(word)
        if words == [COST_WORDS["runtime"]]:
            return "runtime (takes effect now)"
        return ", then ".join(words)

    def for_engines(self, engines: Iterable[str]) -> Fix:
        """The fix for a host that runs these serving engines: a step written for one engine only (vLLM's P2P
        cache, an SGLang flag) goes where that engine is absent, unless it is the fix's only step."""
        present = set(engines)

        def fits(s: Step) -> bool:
            named = engines_named(" ".join([s.does, *(c.line for c in s.commands)]))
            return len(named) != 1 or named <= present

        kept = tuple(s for s in self.steps if fits(s))
        return replace(self, steps=kept) if kept and len(kept) < len(self.steps) else self

    def bind(self, subjects: Sequence[str]) -> Fix:
        """The fix for these subjects: steps written `per` a subject repeat their commands for each."""
        if not subjects or not any(s.per for s in self.steps):
            return self
        return replace(self, steps=tuple(s.bind(subjects) for s in self.steps))

    def to_json(self) -> dict[str, Any]:
        return {
            "cost": self.cost,
            "runtime": self.runtime,
            "persistent": self.persistent,
            "scope": self.scope,
            "note": self.note,
            "steps": [s.to_json() for s in self.steps],
        }


def advice(does: str, cost: FixCost, scope: StepScope = "host", keep: Persist | Iterable[Persist] = (),
           note: str = "", takes: str = "") -> Fix:
    """A fix that is one step with no command: what to do, in words (`takes`: what it costs, where the cost's own
    words would say it wrong)."""
    return Fix.of(step(does, cost=cost, scope=scope, keep=keep, takes=takes), note=note)


# The order issues are read in: the report, its verdict and the fix plan share it (rank_key).
PRIORITIES = ("P0", "P1", "P2")
SEVERITIES = ("high", "medium", "low")
CONFIDENCES = ("source-verified", "documented", "field-reports", "unproven")


def rank_key(priority: str | None, gpu_lost: bool, severity: str | None, fix_cost: str | None,
             confidence: str | None, check_id: str) -> tuple[int, bool, int, int, int, str]:
    """The order issues are read in (the report, its verdict and the fix plan): by priority; within one, a
    lost or faulted GPU first, then more severe, then cheaper to fix, then better evidenced, then by ID."""
    def at(order: tuple[str, ...], value: str | None) -> int:
        return order.index(value) if value in order else len(order)

    return (at(PRIORITIES, priority), not gpu_lost, at(SEVERITIES, severity), at(FIX_COSTS, fix_cost),
            at(CONFIDENCES, confidence), check_id)
