"""Which runtime settings the fixes make, and how each is kept for good — read from the fix data itself
(a step's commands and its persistent forms), so that KERN-PERSIST-BOOT has no table of its own.

A runtime step's command says what it changes (the same parse `fix --apply` uses: a sysctl key, a /sys
file, a module, and `systemctl start UNIT`); its persistent forms say where the change is kept: a
`KEY = VALUE` line in sysctl.d, a module in modules-load.d, a `w PATH … VALUE` tmpfiles.d line, kernel
parameters on the boot loader's command line, a tuned profile, `systemctl enable UNIT`, a udev rule or a
systemd oneshot. The kind of change names the mechanisms that always apply to it (sysctl.d for a
sysctl, modules-load.d for a module); the forms add the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from stackaudit.fixes.apply import NotApplicable, action_of
from stackaudit.fixes.model import Fix, Persist, Step
from stackaudit.fixes.plan import _GRUB_LINE

_UNIT_START = re.compile(r"systemctl (?:start|restart) ([A-Za-z0-9@_.\-]+)")
_UNIT_ENABLE = re.compile(r"systemctl enable (?:--now )?([A-Za-z0-9@_.\-]+)")
_TUNED = re.compile(r"tuned-adm profile ([A-Za-z0-9_.\-]+)")
_SYSCTL_LINE = re.compile(r"([A-Za-z0-9_.\-/]+)\s*=\s*(\S.*)")
_TMPFILES_LINE = re.compile(r"w\+?\s+(\S+)\s+-\s+-\s+-\s+-\s+(\S+)")


@dataclass(frozen=True)
class Keep:
    """One way the fix data keeps a setting: `mechanism` (sysctl.d, modules-load.d, tmpfiles.d, cmdline,
    tuned, unit, udev, oneshot), what it names (`name`: a key, module, parameter, profile, unit) and the
    value it should hold ('' where being there is the point)."""

    mechanism: str
    name: str
    value: str = ""
    form: Persist | None = None  # the fix data's form; None where the kind of change implies it


@dataclass(frozen=True)
class Setting:
    """A value a runtime fix step sets, and the ways to keep it."""

    check: str
    kind: str  # sysctl, sysfs, module, unit
    target: str
    value: str
    step: Step
    keeps: tuple[Keep, ...]
    latency_from: int | None = None  # cpuidle: states at or above this exit latency (µs) disabled
    # The value before the fix, from the step's own revert (`sysctl -w kernel.numa_balancing=1`, `cpupower
    # idle-set -E`): what a boot that sets nothing brings back. None: the fix data does not say.
    before: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "module":
            return f"module {self.target}"
        if self.kind == "unit":
            return f"unit {self.target}"
        if self.kind == "setpci":
            return f"setpci -s {self.target}={self.value}"
        if self.latency_from is not None:
            return f"cpuidle states >= {self.latency_from} µs disabled"
        return self.target.replace("[0-9]*", "*")

    @property
    def wanted(self) -> str:
        return {"module": "loaded", "unit": "enabled"}.get(self.kind, self.value)


def keeps_of(form: Persist) -> list[Keep]:
    """The mechanisms one persistent form names."""
    out: list[Keep] = []
    if form.command is not None:
        m = _UNIT_ENABLE.fullmatch(form.command.line)
        if m:
            out.append(Keep("unit", unit_name(m.group(1)), "enabled", form))
        m = _TUNED.fullmatch(form.command.line)
        if m:
            out.append(Keep("tuned", m.group(1), m.group(1), form))
    if form.file.startswith("/etc/sysctl.d/") or form.file == "/etc/sysctl.conf":
        m = _SYSCTL_LINE.fullmatch(form.line.strip())
        if m:
            out.append(Keep("sysctl.d", m.group(1).replace("/", "."), m.group(2).strip(), form))
    elif form.file.startswith("/etc/modules-load.d/"):
        out += [Keep("modules-load.d", name.replace("-", "_"), "", form) for name in form.line.split()[:1]]
    elif form.file.startswith("/etc/tmpfiles.d/"):
        m = _TMPFILES_LINE.fullmatch(form.line.strip())
        if m:
            out.append(Keep("tmpfiles.d", m.group(1), m.group(2), form))
    elif form.file.startswith("/etc/udev/rules.d/"):
        out.append(Keep("udev", form.file, "", form))
    m = _GRUB_LINE.fullmatch(form.line) if form.file == "/etc/default/grub" else None
    if m:
        for word in m.group(1).replace('\\"', "").split():
            name, _, value = word.partition("=")
            out.append(Keep("cmdline", name, value, form))
    words = f"{form.label} {form.text}".lower()
    if not out and "udev" in words:
        out.append(Keep("udev", "", "", form))
    if not out and ("oneshot" in words or form.label.lower() == "systemd"):
        out.append(Keep("oneshot", "", "", form))
    if not out and form.command is None and "tuned" in words:
        out.append(Keep("tuned", "", "", form))
    return out


def unit_name(name: str) -> str:
    return name if "." in name else name + ".service"


# The mechanisms a kind of change is always kept by (the forms add the rest): systemd-sysctl and tuned's
# [sysctl] for a sysctl; systemd-modules-load for a module; for a sysfs file, what writes files at boot.
_IMPLIED = {"sysctl": ("sysctl.d", "tuned"), "module": ("modules-load.d",), "unit": ("unit",),
            "sysfs": ("tmpfiles.d", "udev", "tuned", "oneshot")}


def settings_of(check: str, fix: Fix) -> list[Setting]:
    """The settings a fix's runtime host steps change, each with its ways to be kept."""
    out: list[Setting] = []
    for s in fix.steps:
        if s.cost != "runtime" or s.scope != "host":
            continue
        keeps = [k for p in s.persistent for k in keeps_of(p)]
        for command in s.commands:
            unit = _UNIT_START.fullmatch(command.line) if not command.shell else None
            if unit:
                name = unit_name(unit.group(1))
                implied = [Keep("unit", name, "enabled")]
                out.append(Setting(check, "unit", name, "enabled", s, _merge(keeps, implied)))
                continue
            try:
                action = action_of(command)
            except NotApplicable:
                continue
            if action.kind == "setpci":
                continue  # per device, known only from the result that named it
            implied = [Keep(m, action.target, action.value) for m in _IMPLIED.get(action.kind, ())]
            if action.kind == "module":
                implied = [Keep("modules-load.d", action.target.replace("-", "_"))]
            out.append(Setting(check, action.kind, action.target, action.value, s, _merge(keeps, implied),
                               action.latency_from, _before(s, action.target)))
    return out


def setpci_setting(check: str, fix: Fix, target: str, value: str) -> Setting | None:
    """A masked setpci write (`BDF REG`, `VALUE:MASK`, as a journal records it) with the persistent forms of
    the fix step that writes that register; None when the check's fix has no such step."""
    reg = target.split(" ", 1)[-1]
    for s in fix.steps:
        if any(c.line.startswith("setpci ") and f" {reg}=" in c.line for c in s.commands):
            keeps = [k for p in s.persistent for k in keeps_of(p)]
            return Setting(check, "setpci", target, value, s, _merge(keeps, [Keep("udev", target, value),
                                                                         Keep("oneshot", target, value)]))
    return None


def _before(s: Step, target: str) -> str | None:
    for command in s.revert:
        try:
            action = action_of(command)
        except NotApplicable:
            continue
        if action.target == target:
            return action.value
    return None


def _merge(forms: Iterable[Keep], implied: Iterable[Keep]) -> tuple[Keep, ...]:
    """The forms' keeps first (they carry the fix data's line), then the implied ones they do not cover."""
    kept = list(forms)
    have = {k.mechanism for k in kept if k.name}
    return tuple(kept + [k for k in implied if k.mechanism not in have])
