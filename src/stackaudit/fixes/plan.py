"""The fix plan (`stackaudit fix`): the steps of every issue an audit found, grouped by what they cost,
read from the results as the JSON report holds them (docs/fix.md).

A live audit, a snapshot and a saved report all go through the same JSON shape, so the three give the
same plan. Every command comes from a result's fix steps; the plan adds no command text of its own,
except the revert it builds from the observed value: the step's own `sysctl -w KEY=VALUE` with the
value the audit read (quoted for bash) in place of the new one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from stackaudit.errors import InputError
from stackaudit.fixes.model import (
    FIX_COSTS,
    PLACEHOLDER,
    PRIORITIES,
    Command,
    Persist,
    Step,
    needs_shell,
    rank_key,
)
from stackaudit.fixes.shell_quote import bash_word

# Groups in the order a person works through them. In a container the host's steps come first: the
# container's own steps build on them (ACS cleared on the node, then the engine restarted in the container).
GROUPS = ("now", "restart", "driver-reload", "reboot", "bios", "container-host")
CONTAINER_ORDER = ("container-host", "now", "restart", "driver-reload", "reboot", "bios")
GROUP_TITLES = {
    "now": "runtime, no disruption",
    "restart": "restart the serving engine",
    "driver-reload": "reload the driver (all GPU work stops)",
    "reboot": "reboot",
    "bios": "BIOS/firmware and hardware (a person does these)",
    "container-host": "on the container's host",
}
_GROUP_OF_COST = {"none": "now", "runtime": "now", "restart": "restart", "driver-reload": "driver-reload",
                  "reboot": "reboot", "bios": "bios", "hardware": "bios"}
_GRUB_LINE = re.compile(r'GRUB_CMDLINE_LINUX(?:_DEFAULT)?="(?:\.\.\. ?)?(.*)"')
_SYSCTL_SET = re.compile(r"sysctl -w ([A-Za-z0-9_.\-/]+)=(\S+)")


@dataclass(frozen=True)
class PlanStep:
    """One step of one result's fix, placed in a group."""

    check: str
    priority: str | None
    title: str
    step: Step
    group: str
    observed: Any = None
    revert: tuple[Command, ...] = ()
    revert_from: str = ""  # "observed" (built from the value read) or "fix" (the fix's own), "" none
    last: bool = False  # the result's last step: its check must pass after this group
    note: str = ""  # the fix's note, on the result's first step

    @property
    def kernel_cmdline(self) -> list[tuple[Persist, str]]:
        """(persistent form, kernel parameters) for each kernel-command-line form of this step."""
        out = []
        for p in self.step.persistent:
            m = _GRUB_LINE.fullmatch(p.line) if p.file == "/etc/default/grub" else None
            if m:
                out.append((p, m.group(1).replace('\\"', '"')))
        return out


@dataclass
class Plan:
    tool: dict[str, str]
    source: dict[str, Any]
    generated_at: str
    report_generated_at: str
    hostname: str
    container: str  # the container kind the audit ran in, "" on a host
    container_host: str  # `the Proxmox node`, `the Docker host`…, "" on a host
    boot_loader: str  # grub, systemd-boot, or "" (not known: both forms are given)
    boot_evidence: str
    steps: list[PlanStep] = field(default_factory=list)
    only: list[str] = field(default_factory=list)
    priority: str = ""
    waived: int = 0
    # Checks whose report fix text was not the catalogue's: their steps are the catalogue's fix instead.
    fix_replaced: list[str] = field(default_factory=list)

    def group(self, name: str) -> list[PlanStep]:
        return [s for s in self.steps if s.group == name]

    @property
    def order(self) -> tuple[str, ...]:
        return CONTAINER_ORDER if self.container else GROUPS

    @property
    def groups(self) -> list[str]:
        return [g for g in self.order if self.group(g)]

    def verify(self, name: str) -> list[str]:
        """Check IDs whose last step is in this group: they must pass once it is done."""
        return sorted({s.check for s in self.group(name) if s.last})

    def group_title(self, name: str) -> str:
        if name == "container-host":
            return f"on the container's host: {self.container_host}"
        return GROUP_TITLES[name]


def container_host_name(kind: str, kernel: str) -> str:
    """The machine a container's host-level fixes are made on, in words."""
    if kind == "lxc":
        # Proxmox VE kernels are named `<version>-pve`.
        return "the Proxmox node" if kernel.endswith("-pve") else "the LXC host"
    return {"docker": "the Docker host", "podman": "the Podman host", "kubernetes": "the Kubernetes node",
            "systemd-nspawn": "the nspawn host"}.get(kind, "the container's host")


def _command(data: Any, where: str) -> Command:
    if not isinstance(data, dict) or not isinstance(data.get("line"), str):
        raise InputError(f"{where}: a command without a line: not a stackaudit report")
    try:
        return Command(data["line"], shell=bool(data.get("shell")))
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def _persist(data: Any, where: str) -> Persist:
    if not isinstance(data, dict):
        raise InputError(f"{where}: a persistent form that is not an object")
    command = _command(data["command"], where) if data.get("command") is not None else None
    try:
        return Persist(line=str(data.get("line") or ""), file=str(data.get("file") or ""), command=command,
                       text=str(data.get("text") or ""), label=str(data.get("label") or ""))
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def step_from_json(data: Any, where: str) -> Step:
    """A fix step as `Step.to_json` wrote it, checked as the fix data is."""
    if not isinstance(data, dict) or not isinstance(data.get("does"), str):
        raise InputError(f"{where}: a fix step without a description: not a stackaudit report")
    cost = data.get("cost", "runtime")
    scope = data.get("scope", "host")
    if cost not in FIX_COSTS or scope not in ("host", "container", "container-host"):
        raise InputError(f"{where}: fix step cost {str(cost)[:20]!r} / scope {str(scope)[:20]!r} unknown")
    lists = {k: data.get(k, []) for k in ("commands", "persistent", "revert")}
    if not all(isinstance(v, list) for v in lists.values()):
        raise InputError(f"{where}: a fix step's commands, persistent forms and revert are lists")
    try:
        return Step(does=data["does"], commands=tuple(_command(c, where) for c in lists["commands"]),
                    changes=str(data.get("changes") or ""), cost=cost, scope=scope,
                    persistent=tuple(_persist(p, where) for p in lists["persistent"]),
                    revert=tuple(_command(c, where) for c in lists["revert"]), takes=str(data.get("takes") or ""))
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def has_placeholder(command: Command) -> bool:
    """A `<placeholder>` left in a command: a person fills it in; the plan never runs it as it is."""
    return bool(PLACEHOLDER.search(command.line))


def observed_text(value: Any) -> str:
    """The value the audit read, in words (the report's own wording, never JSON)."""
    from stackaudit.render.text import show_value

    return show_value(value, limit=400)


def revert_from_observed(step: Step, subjects: list[str], observed: Any) -> tuple[Command, ...]:
    """The step's own `sysctl -w KEY=NEW` with the observed value in place of NEW, when the result
    named that key alone and its observed value is the key's value (a scalar); () otherwise."""
    if len(subjects) != 1 or not isinstance(observed, (str, int, float)) or isinstance(observed, bool):
        return ()
    out = []
    for c in step.commands:
        m = _SYSCTL_SET.fullmatch(c.line)
        if c.shell or m is None or m.group(1) != subjects[0]:
            return ()
        line = _with_value(c, m, observed)
        out.append(Command(line, shell=needs_shell(line)))
    return tuple(out)


def _with_value(command: Command, m: re.Match[str], observed: Any) -> str:
    """The command's line with its value replaced by the observed one, quoted as one bash word."""
    return command.line[:m.start(2)] + bash_word(f"{observed}") + command.line[m.end(2):]


def _group(step: Step, in_container: bool) -> str:
    if in_container and step.scope in ("host", "container-host"):
        return "container-host"
    return _GROUP_OF_COST[step.cost]


def _rank(priority: str | None) -> int:
    return PRIORITIES.index(priority) if priority in PRIORITIES else len(PRIORITIES)


def _report_order(result: dict[str, Any]) -> tuple[int, bool, int, int, int, str]:
    """The report's order (its verdict first): the same key the text and Markdown reports sort by."""
    def text(key: str) -> str | None:
        value = result.get(key)
        return value if isinstance(value, str) else None

    return rank_key(text("priority"), result.get("gpu_lost") is True, text("severity"), text("fix_cost"),
                    text("confidence"), str(result.get("id")))


def build_plan(doc: dict[str, Any], *, boot_loader: str = "", boot_evidence: str = "", only: list[str] | None = None,
               priority: str = "", source: dict[str, Any] | None = None, generated_at: str = "",
               name: str = "the report", catalogue_only: bool = False) -> Plan:
    """The plan for an audit report's results (the JSON shape, schema 2). `catalogue_only` (a saved report,
    whoever wrote it): a result's fix steps are kept only where they are the catalogue's for its check ID,
    else the catalogue's fix is used and the check is named in `fix_replaced` (fixes/catalogue_fix.py)."""
    results = doc.get("results")
    if not isinstance(results, list):
        raise InputError(f"{name}: no results list: not a stackaudit audit report")
    host = doc.get("host") if isinstance(doc.get("host"), dict) else {}
    host = host or {}
    ids = {r.get("id") for r in results if isinstance(r, dict)}
    wanted = [i.upper() for i in (only or [])]
    unknown = [i for i in wanted if i not in ids]
    if unknown:
        raise InputError(f"--only: {', '.join(unknown)}: no such check in {name}")
    if priority and priority.upper() not in PRIORITIES:
        raise InputError(f"--priority takes P0, P1 or P2, not {priority!r}")
    kind = str(host.get("container") or "")
    kind = "" if kind == "none" else kind
    plan = Plan(tool=dict(doc.get("tool") or {}), source=dict(source or doc.get("source") or {}),
                generated_at=generated_at, report_generated_at=str(doc.get("generated_at") or ""),
                hostname=str(host.get("hostname") or ""), container=kind,
                container_host=container_host_name(kind, str(host.get("kernel") or "")) if kind else "",
                boot_loader=boot_loader, boot_evidence=boot_evidence, only=wanted,
                priority=priority.upper())
    issues = [r for r in results if isinstance(r, dict) and r.get("status") == "issue"]
    plan.waived = sum(1 for r in issues if r.get("waived"))
    chosen = [r for r in issues if not r.get("waived") and (not wanted or r.get("id") in wanted)
              and (not plan.priority or _rank(r.get("priority")) <= _rank(plan.priority))]
    chosen.sort(key=_report_order)
    for r in chosen:
        plan.steps += _result_steps(r, plan.order, plan.fix_replaced if catalogue_only else None)
    plan.steps.sort(key=lambda s: plan.order.index(s.group))  # stable: priority order within a group
    return plan


def _result_steps(result: dict[str, Any], order: tuple[str, ...], replaced: list[str] | None) -> list[PlanStep]:
    in_container = order == CONTAINER_ORDER
    check = str(result.get("id"))
    fix = result.get("fix")
    if not isinstance(fix, dict) or not isinstance(fix.get("steps"), list) or not fix["steps"]:
        raise InputError(f"result {check[:40]}: an issue without fix steps: not a stackaudit report of schema 2")
    subjects = [str(s) for s in result.get("subjects") or []]
    steps = [step_from_json(data, f"result {check[:40]} step {n}") for n, data in enumerate(fix["steps"], 1)]
    note = str(fix.get("note") or "")
    if replaced is not None:
        from stackaudit.fixes.catalogue_fix import catalogue_fix, step_is_catalogues

        own = catalogue_fix(check)
        if own is None:
            replaced.append(check[:40])
            return []
        if not all(step_is_catalogues(s, own) for s in steps):
            replaced.append(check)
            bound = own.bind(subjects)
            steps, note = list(bound.steps), ("the report's fix text is not the catalogue's: the catalogue's "
                                              "steps are given" + (f"; {own.note}" if own.note else ""))
    out: list[PlanStep] = []
    for n, step in enumerate(steps, 1):
        revert = revert_from_observed(step, subjects, result.get("actual"))
        out.append(PlanStep(check=check, priority=result.get("priority"), title=str(result.get("title") or ""),
                            step=step, group=_group(step, in_container), observed=result.get("actual"),
                            revert=revert or step.revert,
                            revert_from="observed" if revert else ("fix" if step.revert else ""),
                            note=note if n == 1 else ""))
    # The check must pass once the group of its costliest step is done.
    last = max(range(len(out)), key=lambda i: (order.index(out[i].group), i))
    out[last] = replace(out[last], last=True)
    return out

