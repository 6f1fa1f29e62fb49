"""`fix --apply` and `fix --revert` (docs/fix.md, "Applying"): runtime steps only, journal first,
verify after, roll back what did not fix its check.

Only four kinds of command are ever applied, each parsed from the fix data and carried out here
without a shell: `sysctl -w KEY=VALUE` (a write to /proc/sys/KEY), `echo VALUE > /sys/PATH` (one
sysfs file) or `echo VALUE | tee /sys/…*…` (each file the glob matches; `cpupower frequency-set -g G`
and `cpupower idle-set -D N | -E | -d I | -e I` are the same sysfs writes), `modprobe NAME`, and a
masked `setpci -s BDF REG=VALUE:MASK` (only when `--only` names its check). Anything else — a reboot, a BIOS setting, GPU clocks or power limits, a restart,
a file under /etc — is printed as not applied. Writes go through a `System` so that tests can point
it at a scratch tree (`root`) and a fake command runner.
"""

from __future__ import annotations

import glob
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from stackaudit import __version__
from stackaudit.errors import InputError
from stackaudit.fixes.catalogue_fix import catalogue_fixes
from stackaudit.fixes.journal import (
    ApplyLock,
    Change,
    Header,
    Journal,
    read_journal_with_header,
)
from stackaudit.fixes.model import COST_WORDS, PLACEHOLDER, Command, Fix
from stackaudit.fixes.plan import Plan, PlanStep, has_placeholder
from stackaudit.pci_address import BDF_OPTIONAL_DOMAIN

_SYSCTL_KEY = re.compile(r"[a-z0-9_.\-/]+")
_SYSCTL_CMD = re.compile(r"sysctl -w ([^=\s]+)=(\S+)")
_SYSFS_CMD = re.compile(r"echo ([A-Za-z0-9_+.:\-]+) > (/sys/[A-Za-z0-9_.:/\-]+)")
# `echo V | tee /sys/devices/system/cpu/cpu*/…`: one value to every file a `*` matches, expanded here.
_SYSFS_TEE = re.compile(r"echo ([A-Za-z0-9_+.:\-]+) \| tee (/sys/[A-Za-z0-9_.:/*\-]+)")
_MODULE = re.compile(r"[A-Za-z0-9_\-]+")
_BDF = re.compile(BDF_OPTIONAL_DOMAIN)
_SETPCI_REG = re.compile(r"((?:CAP_|ECAP_)?[A-Z0-9_]+(?:\+0x[0-9a-fA-F]+)?\.[bwl])=([0-9a-fA-F]+):([0-9a-fA-F]+)")
_READ_CAP = 64 * 1024
# An old value the journal can hold and --revert will write back (a sysctl's several numbers, a CPU list).
_VALUE = re.compile(r"[A-Za-z0-9_+.:,\- ]*")
COMMAND_TIMEOUT_S = 10.0
# What is fixed: the check's status after the change (not an issue any more, and seen).
_FIXED = ("ok", "not-an-issue", "not-applicable")

Runner = Callable[[Sequence[str]], str]
Verifier = Callable[[Sequence[str]], dict[str, str]]


class NotApplicable(Exception):
    """A command `fix --apply` does not carry out; the message says why."""


class WriteFailed(Exception):
    pass


@dataclass(frozen=True)
class Action:
    kind: str  # sysctl, sysfs, module, setpci
    target: str  # the key, the /sys path, the module, "BDF REG"
    value: str  # the new value; "loaded" for a module; "VALUE:MASK" for setpci
    # `cpupower idle-set -D N`: each matched cpuidle `disable` file gets 1 where the state's exit latency
    # (its sibling `latency` file, µs) is at least N, else 0 (the shallower states are enabled again).
    latency_from: int | None = None


# cpupower's governor and idle-state commands as the sysfs writes cpupower makes (cpupower-frequency-set(1),
# cpupower-idle-set(1); https://docs.kernel.org/admin-guide/pm/cpufreq.html "scaling_governor",
# https://docs.kernel.org/admin-guide/pm/cpuidle.html "disable"): every CPU, every state.
CPU_GOVERNOR_FILES = "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"
CPU_IDLE_DISABLE_FILES = "/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable"
_GOVERNOR = re.compile(r"[a-z_]+")


def cpupower_action(argv: tuple[str, ...]) -> Action | None:
    """The sysfs action of `cpupower frequency-set -g G`, `cpupower idle-set -D N | -E | -d I | -e I`."""
    if argv[:2] == ("cpupower", "frequency-set") and len(argv) == 4 and argv[2] in ("-g", "--governor") \
            and _GOVERNOR.fullmatch(argv[3]):
        return Action("sysfs", CPU_GOVERNOR_FILES, argv[3])
    if argv[:2] != ("cpupower", "idle-set"):
        return None
    if argv[2:] in (("-E",), ("--enable-all",)):
        return Action("sysfs", CPU_IDLE_DISABLE_FILES, "0")
    if len(argv) == 4 and argv[3].isdecimal():
        if argv[2] in ("-D", "--disable-by-latency"):
            return Action("sysfs", CPU_IDLE_DISABLE_FILES, "1", latency_from=int(argv[3]))
        if argv[2] in ("-d", "--disable", "-e", "--enable"):
            state = CPU_IDLE_DISABLE_FILES.replace("state[0-9]*", f"state{int(argv[3])}")
            return Action("sysfs", state, "1" if argv[2] in ("-d", "--disable") else "0")
    return None


def _safe_relative(path: str) -> bool:
    return ".." not in path.split("/") and "//" not in path


def action_of(command: Command) -> Action:
    """The action a fix command is, or NotApplicable."""
    if has_placeholder(command):
        raise NotApplicable(f"a placeholder to fill in: {command.line}")
    line = command.line
    m = (_SYSFS_CMD.fullmatch(line) or _SYSFS_TEE.fullmatch(line)) if command.shell else None
    if m:
        if not _safe_relative(m.group(2)):
            raise NotApplicable(f"not a plain /sys path: {line}")
        return Action("sysfs", m.group(2), m.group(1))
    if command.shell:
        raise NotApplicable(f"a shell line: {line}")
    m = _SYSCTL_CMD.fullmatch(line)
    if m:
        key = m.group(1)
        if not _SYSCTL_KEY.fullmatch(key) or not _safe_relative(key) or key.startswith("/"):
            raise NotApplicable(f"not a sysctl key: {key}")
        return Action("sysctl", key, m.group(2))
    argv = command.argv
    power = cpupower_action(argv) if argv[:1] == ("cpupower",) else None
    if power is not None:
        return power
    if len(argv) == 2 and argv[0] == "modprobe" and _MODULE.fullmatch(argv[1]):
        return Action("module", argv[1], "loaded")
    if len(argv) == 4 and argv[:2] == ("setpci", "-s") and _BDF.fullmatch(argv[2]):
        r = _SETPCI_REG.fullmatch(argv[3])
        if r:
            return Action("setpci", f"{argv[2]} {r.group(1)}", f"{r.group(2)}:{r.group(3)}")
        raise NotApplicable(f"not a masked setpci write: {line}")
    raise NotApplicable(f"not a runtime kind fix --apply carries out: {line}")


def _selected(text: str) -> str:
    """A sysfs choice file (`always [madvise] never`) reads as its selected word; others as they are."""
    m = re.search(r"\[([^\]]+)\]", text)
    return m.group(1) if m else " ".join(text.split())


def run_command(argv: Sequence[str]) -> str:
    """modprobe / setpci through the host layer's runner (host.live.run_argv); a failure is WriteFailed."""
    from stackaudit.host.live import run_argv

    done = run_argv(argv, COMMAND_TIMEOUT_S)
    if done.returncode != 0:
        err = done.stderr.strip().splitlines()
        raise WriteFailed(f"{' '.join(argv)}: exit {done.returncode}{': ' + err[-1][:400] if err else ''}")
    return done.stdout[:_READ_CAP]


class System:
    """Reads and writes the settings, below `root` (`/` on the live host; a scratch tree in tests)."""

    def __init__(self, root: str = "/", run: Runner = run_command) -> None:
        self.root = os.path.realpath(root)
        self.run = run

    def path(self, action: Action) -> str:
        if action.kind == "sysctl":
            key = action.target if "/" in action.target else action.target.replace(".", "/")
            inner = "/proc/sys/" + key
        elif action.kind == "sysfs":
            inner = action.target
        else:
            raise ValueError(action.kind)
        if not inner.startswith(("/sys/", "/proc/sys/")) or not _safe_relative(inner):
            raise WriteFailed(f"{inner}: not a /sys or /proc/sys path")
        full = os.path.join(self.root, inner.lstrip("/"))
        top = os.path.join(self.root, inner.split("/")[1])
        # /sys is full of links; wherever they lead, the file must stay in /sys (or /proc/sys).
        real = os.path.realpath(full)
        if not (real + "/").startswith(os.path.realpath(top) + "/"):
            raise WriteFailed(f"{inner} leads outside {inner.split('/')[1]}")
        return real

    def expand(self, action: Action) -> list[Action]:
        """A sysfs action whose path has a `*`: one action for each file it matches (sorted); others as they are."""
        if action.kind != "sysfs" or "*" not in action.target:
            return [action]
        found = sorted(glob.glob(os.path.join(self.root, action.target.lstrip("/"))))
        if not found:
            raise WriteFailed(f"no file matches {action.target}")
        out = [Action("sysfs", "/" + os.path.relpath(f, self.root), action.value) for f in found]
        if action.latency_from is None:
            return out
        return [Action(a.kind, a.target, "1" if self._latency(a.target) >= action.latency_from else "0")
                for a in out]

    def _latency(self, disable_path: str) -> int:
        """The exit latency (µs) of the cpuidle state whose `disable` file this is."""
        text = self.read(Action("sysfs", disable_path.rsplit("/", 1)[0] + "/latency", ""))
        if not text.isdecimal():
            raise WriteFailed(f"{disable_path}: the state's latency reads {text[:20]!r}")
        return int(text)

    def read(self, action: Action) -> str:
        if action.kind == "module":
            return "loaded" if os.path.isdir(os.path.join(self.root, "sys/module", action.target.replace("-", "_"))) \
                else "absent"
        if action.kind == "setpci":
            bdf, reg = action.target.split(" ")
            return self.run(["setpci", "-s", bdf, reg.split("=")[0]]).strip()
        try:
            fd = os.open(self.path(action), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as fh:
                return _selected(fh.read(_READ_CAP).decode("utf-8", "replace"))
        except OSError as exc:
            raise WriteFailed(f"cannot read {action.target}: {exc.strerror or exc}") from None

    def write(self, action: Action, value: str) -> None:
        if action.kind == "module":
            name = action.target
            self.run(["modprobe", name] if value == "loaded" else ["modprobe", "-r", name])
            return
        if action.kind == "setpci":
            bdf, reg = action.target.split(" ")
            self.run(["setpci", "-s", bdf, f"{reg}={value}"])
            return
        try:
            # Never created: a /proc/sys or /sys file that is not there is not a setting.
            fd = os.open(self.path(action), os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                os.write(fd, (value + "\n").encode())
            finally:
                os.close(fd)
        except OSError as exc:
            raise WriteFailed(f"cannot write {value} to {action.target}: {exc.strerror or exc}") from None


def satisfied(action: Action, current: str, wanted: str) -> bool:
    """Whether the current value already is the wanted one (for setpci: the masked bits)."""
    if action.kind == "setpci":
        value, mask = (int(x, 16) for x in wanted.split(":"))
        try:
            return int(current, 16) & mask == value & mask
        except ValueError:
            return False
    return " ".join(current.split()) == " ".join(wanted.split())


def restore_value(change: Change) -> str:
    """What to write to bring back the old value: for setpci the old bits under the same mask."""
    if change.kind == "setpci":
        mask_text = change.new.split(":")[1]
        mask = int(mask_text, 16)
        return f"{int(change.old, 16) & mask:0{len(mask_text)}x}:{mask_text}"
    return change.old


@dataclass
class Unit:
    """One check's runtime steps, applied and verified together."""

    check: str
    title: str
    actions: list[Action]
    keep: tuple[str, ...] = ()  # the steps' persistent forms, in words


@dataclass
class Outcome:
    check: str
    status: str  # fixed, unchanged, not-fixed, failed
    detail: str = ""
    changes: list[Change] = field(default_factory=list)


def select_units(plan: Plan) -> tuple[list[Unit], list[tuple[PlanStep, str]]]:
    """(what --apply carries out, per check) and (steps it does not, with why). A check with any step
    that cannot be applied is not applied at all: half a fix verifies as not fixed."""
    by_check: dict[str, list[PlanStep]] = {}
    for s in plan.steps:
        by_check.setdefault(s.check, []).append(s)
    units: list[Unit] = []
    skipped: list[tuple[PlanStep, str]] = []
    for check, steps in by_check.items():
        actions: list[Action] = []
        why: list[tuple[PlanStep, str]] = []
        for s in steps:
            if s.step.cost == "none":  # a look-up: it changes nothing, so there is nothing to apply
                continue
            reason = _not_applied(plan, s)
            if reason:
                why.append((s, reason))
                continue
            try:
                actions += [action_of(c) for c in s.step.commands]
            except NotApplicable as exc:
                why.append((s, str(exc)))
                continue
            if any(c.line.startswith("setpci ") for c in s.step.commands) and check not in plan.only:
                why.append((s, f"setpci: only with --only {check}"))
        if why:
            named = [w[0] for w in why]
            skipped += why + [(s, "with the rest of its fix") for s in steps if s not in named and s.step.commands]
            continue
        if not actions:
            skipped.append((steps[0], "nothing to run"))
            continue
        keep = tuple(p.describe() for s in steps for p in s.step.persistent)
        units.append(Unit(check, steps[0].title, actions, keep))
    return units, skipped


def _not_applied(plan: Plan, s: PlanStep) -> str:
    if plan.container:
        return f"audited in a container: a host change, made on {plan.container_host}"
    if s.step.cost != "runtime":
        return s.step.takes or COST_WORDS[s.step.cost]
    if s.step.scope != "host":
        return f"{s.step.scope} scope"
    if not s.step.commands:
        return "a person does it: " + s.step.does
    return ""


class Applier:
    """Applies units: journal record (fsynced), change, journal record; verify; roll back on failure."""

    def __init__(self, system: System, journal: Journal, verify: Verifier,
                 say: Callable[[str], None] = print) -> None:
        self.system = system
        self.journal = journal
        self.verify = verify
        self.say = say

    def apply(self, unit: Unit) -> Outcome:
        out = Outcome(unit.check, "unchanged")
        try:
            for action in [a for each in unit.actions for a in self.system.expand(each)]:
                old = self.system.read(action)
                if satisfied(action, old, action.value):
                    continue
                if not _VALUE.fullmatch(old):
                    raise WriteFailed(f"{action.target} reads {old[:40]!r}: not a value --revert could write back")
                change = Change(self.journal.next_seq(), unit.check, action.kind, action.target, old, action.value)
                self.journal.record(change.to_json())
                out.changes.append(change)
                self.system.write(action, action.value)
                self.journal.record({"op": "written", "seq": change.seq})
        except WriteFailed as exc:
            out.status, out.detail = "failed", str(exc)
            self._roll_back(out)
            return out
        if not out.changes:
            return out
        status = self.verify([unit.check]).get(unit.check, "unknown")
        if status in _FIXED:
            out.status = "fixed"
        else:
            out.status, out.detail = "not-fixed", f"the check is {status} after the change"
            self._roll_back(out)
        return out

    def _roll_back(self, out: Outcome) -> None:
        for change in reversed(out.changes):
            action = Action(change.kind, change.target, change.new)
            try:
                self.system.write(action, restore_value(change))
                self.journal.record({"op": "rolled-back", "seq": change.seq})
            except WriteFailed as exc:
                out.detail += f"; ROLLBACK FAILED for {change.target}: {exc} (fix --revert {self.journal.path})"


@dataclass
class Restored:
    change: Change
    ok: bool
    detail: str = ""




@dataclass(frozen=True)
class Allowed:
    """A change `fix --apply` can make for one check: its kind, the targets (a pattern) and the new values."""

    kind: str
    target: re.Pattern[str]
    value: re.Pattern[str]
    mask: int = 0  # setpci: the bits the write may change


# Values the host chooses (the platform profile's own list of choices), not the fix text.
_HOST_CHOSEN = {"/sys/firmware/acpi/platform_profile": re.compile(r"[a-z][a-z0-9-]{0,40}")}
_HEX = re.compile(r"[0-9a-fA-F]{1,8}")


def _glob_pattern(path: str) -> re.Pattern[str]:
    """A sysfs glob (`cpu[0-9]*`) as a regex that never crosses a `/`."""
    out = ""
    for part in re.split(r"(\*|\[0-9\])", path):
        out += "[^/]*" if part == "*" else "[0-9]" if part == "[0-9]" else re.escape(part)
    return re.compile(out)


def allowed_of(fix: Fix) -> list[Allowed]:
    """The changes the runtime host steps of a catalogue fix can make. A `<placeholder>` BDF (the step's
    `per`) stands for any PCI address; any other placeholder makes the command one --apply never runs."""
    out: list[Allowed] = []
    for step in fix.steps:
        if step.cost != "runtime" or step.scope != "host":
            continue
        for command in step.commands:
            line = command.line.replace(step.per, "0000:00:00.0") if step.per else command.line
            if PLACEHOLDER.search(line):
                continue
            try:
                action = action_of(Command(line, shell=command.shell))
            except (NotApplicable, ValueError):
                continue
            if action.kind == "setpci":
                reg = action.target.split(" ", 1)[1]
                out.append(Allowed("setpci", re.compile(_BDF.pattern + " " + re.escape(reg)), _HEX,
                                   int(action.value.split(":")[1], 16)))
            elif action.kind == "sysfs":
                value = re.compile("[01]") if action.latency_from is not None or action.target.endswith(
                    "/disable") else _HOST_CHOSEN.get(action.target, re.compile(re.escape(action.value)))
                out.append(Allowed("sysfs", _glob_pattern(action.target), value))
            else:
                out.append(Allowed(action.kind, re.compile(re.escape(action.target)), re.compile(re.escape(
                    action.value))))
    return out


def _allows(rule: Allowed, change: Change) -> bool:
    if rule.kind != change.kind or not rule.target.fullmatch(change.target):
        return False
    if change.kind == "module":
        # Only a module the apply loaded is unloaded again.
        return change.new == "loaded" and change.old == "absent"
    if change.kind == "setpci":
        value, _, mask = change.new.partition(":")
        if not (_HEX.fullmatch(value) and _HEX.fullmatch(mask) and _HEX.fullmatch(change.old)):
            return False
        return int(mask, 16) == rule.mask and int(value, 16) & ~rule.mask == 0
    return rule.value.fullmatch(change.new) is not None and _VALUE.fullmatch(change.old) is not None


def check_change(change: Change, where: str, fixes: dict[str, Fix] | None = None) -> None:
    """A journal is an input: each change must be one --apply could have made from the catalogue's fix
    steps for the check it names (same kind, a target the step writes, a value the step allows), or InputError."""
    fix = (catalogue_fixes() if fixes is None else fixes).get(change.check)
    if fix is None or not any(_allows(rule, change) for rule in allowed_of(fix)):
        raise InputError(f"{where}: change {change.seq} is not one fix --apply makes for "
                         f"{change.check[:40]!r} (nothing was changed)")


def check_header(path: str, host_name: str) -> Header:
    """The journal's header: refused (InputError) when missing or written on another host."""
    _, _, header = read_journal_with_header(path)
    if header is None:
        raise InputError(f"journal {path} has no header naming its host and plan: not one fix --apply wrote "
                         "(nothing was changed)")
    if header.host != host_name:
        raise InputError(f"journal {path} was written on {header.host or '?'}, this is {host_name}: "
                         "revert it there (nothing was changed)")
    return header


def revert(path: str, system: System, fixes: dict[str, Fix] | None = None) -> list[Restored]:
    """Every change of the journal not yet undone, last first: the old value written, then read back."""
    changes, undone, _ = read_journal_with_header(path)
    fixes = catalogue_fixes() if fixes is None else fixes
    for change in changes:
        check_change(change, f"journal {path}", fixes)
    todo = [c for c in reversed(changes) if c.seq not in undone]
    if not todo:
        return []
    journal = Journal.reopen(path)
    out: list[Restored] = []
    try:
        for change in todo:
            action = Action(change.kind, change.target, change.new)
            try:
                system.write(action, restore_value(change))
                now = system.read(action)
            except WriteFailed as exc:
                out.append(Restored(change, False, str(exc)))
                continue
            if satisfied(action, now, restore_value(change)):
                journal.record({"op": "reverted", "seq": change.seq})
                out.append(Restored(change, True))
            else:
                out.append(Restored(change, False, f"reads {now!r} after writing {change.old!r}"))
    finally:
        journal.close()
    return out


def _describe(action: Action) -> str:
    if action.kind == "module":
        return f"load module {action.target}"
    if action.kind == "setpci":
        return f"setpci -s {action.target}={action.value}"
    if action.latency_from is not None:
        return f"{action.target} = 1 where the state's latency >= {action.latency_from} µs, else 0"
    return f"{action.target} = {action.value}"


def plan_identity(plan: Plan) -> dict[str, Any]:
    """What names the plan an apply carried out: the audited host, the report's time and source, the tool."""
    return {"hostname": plan.hostname, "report_generated_at": plan.report_generated_at,
            "source": plan.source, "tool": plan.tool, "only": list(plan.only)}


def new_header(plan: Plan, argv: Sequence[str] | None = None, host_name: str | None = None) -> Header:
    import socket  # only to name the host in a journal: not on every start

    return Header(host_name if host_name is not None else socket.gethostname(), plan_identity(plan),
                  tuple(sys.argv if argv is None else argv),
                  datetime.now(timezone.utc).isoformat(timespec="seconds"), __version__)


def apply_plan(plan: Plan, system: System, journal_path: str, verify: Verifier,
               confirm: Callable[[str], bool], say: Callable[[str], None] = print,
               argv: Sequence[str] | None = None, host_name: str | None = None,
               lock: str | None = None) -> int:
    """The whole `fix --apply`: what is not applied printed, the rest confirmed, applied one check at a
    time; exit 1 when any check failed or was rolled back. One at a time on the host: a second apply while
    the lock (`lock`, default journal.LOCK_PATH) is held exits 2 naming the holder."""
    units, skipped = select_units(plan)
    for s, why in skipped:
        say(f"not applied: {s.check}: {s.step.does} ({why})")
    if not units:
        say("nothing to apply")
        return 0
    say("to apply (runtime, journal first):")
    for unit in units:
        for action in unit.actions:
            say(f"  {unit.check}: {_describe(action)}")
    if not confirm(f"apply {sum(len(u.actions) for u in units)} change(s)?"):
        say("nothing applied")
        return 0
    with ApplyLock(lock):
        journal = Journal.create(journal_path)
        failed = False
        try:
            journal.header = new_header(plan, argv, host_name)
            for unit in units:
                out = Applier(system, journal, verify, say).apply(unit)
                failed |= out.status in ("failed", "not-fixed")
                words = {"fixed": "fixed", "unchanged": "already set, nothing changed",
                         "not-fixed": "not fixed, rolled back", "failed": "failed, rolled back"}[out.status]
                say(f"{unit.check}: {words}{': ' + out.detail if out.detail else ''}")
                if out.status in ("fixed", "unchanged") and unit.keep:
                    # A runtime change is gone at the next boot: KERN-PERSIST-BOOT reports it until one is kept.
                    say(f"  lost at reboot unless kept: {'; '.join(unit.keep)}")
        finally:
            journal.close()
            # Said even when interrupted: the journal is what --revert completes.
            say(f"journal: {journal_path} (undo: stackaudit fix --revert {journal_path})")
    return 1 if failed else 0


def revert_journal(path: str, system: System, say: Callable[[str], None] = print,
                   host_name: str | None = None, lock: str | None = None) -> int:
    """`fix --revert`: the journal checked as root's own (owner, mode, no link, a header naming this host,
    only changes the catalogue's fixes make) and its header printed, then every change undone, last first."""
    import socket

    with ApplyLock(lock):
        return _revert_locked(path, system, say, socket.gethostname() if host_name is None else host_name)


def _revert_locked(path: str, system: System, say: Callable[[str], None], host_name: str) -> int:
    header = check_header(path, host_name)
    say(header.describe())
    restored = revert(path, system)
    if not restored:
        say(f"{path}: every change is already undone")
        return 0
    for r in restored:
        state = "restored" if r.ok else f"NOT restored: {r.detail}"
        say(f"{r.change.check}: {r.change.target} = {r.change.old}: {state}")
    return 0 if all(r.ok for r in restored) else 1
