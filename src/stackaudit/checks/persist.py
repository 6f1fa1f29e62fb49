"""KERN-PERSIST-BOOT: settings that are right now but lost at the next reboot (docs/checks.md, KERN).

The settings are the ones the catalogue's runtime fixes change (fixes/persist.py reads them from the
fix data); the evaluation is checks/_persist_eval.py.
"""

from __future__ import annotations

import inspect
from dataclasses import fields
from typing import Any

from stackaudit.checks import import_all
from stackaudit.checks._persist_eval import Facts, at_boot, in_effect, oneshot_step, persist_step
from stackaudit.checks.registry import CHECKS, CheckSpec, Fix, Outcome, issue, not_applicable, ok, unknown
from stackaudit.checks.registry import check as register_check
from stackaudit.facts.apply_journal import AppliedChanges
from stackaudit.facts.container import ContainerInfo
from stackaudit.fixes import Step, step
from stackaudit.fixes.persist import Setting, setpci_setting, settings_of

ID = "KERN-PERSIST-BOOT"


def _writes_setpci(spec: CheckSpec) -> bool:
    """A fix with a masked setpci write: what it set is known from `fix --apply`'s journal only."""
    return any(c.line.startswith("setpci ") for s in spec.fix.steps for c in s.commands)


# Every domain's checks are registered before this one reads their fixes (the settings and their owners).
import_all()
# By ID: the same order (and the same documented sources) whichever module was imported first.
OWNERS: dict[str, CheckSpec] = {spec.id: spec for spec in sorted(CHECKS.values(), key=lambda c: c.id)
                                if spec.id != ID and (settings_of(spec.id, spec.fix) or _writes_setpci(spec))}
# This check reads what its owners read (to know whether each is ok now) and the persistent configuration.
OWN_FACTS = (*(f.name for f in fields(Facts)), "container")
FACT_NAMES = (*OWN_FACTS, *sorted({n for spec in OWNERS.values() for n in (*spec.facts, *spec.optional_facts)}
                                   - set(OWN_FACTS)))


def catalogue_settings(applied: AppliedChanges | None = None) -> list[Setting]:
    """Every setting a runtime fix of the catalogue changes (this check's own fix left out), and the masked
    setpci writes `fix --apply` made and did not undo (from its journals)."""
    out = [s for spec in OWNERS.values() for s in settings_of(spec.id, spec.fix)]
    seen: set[tuple[str, str]] = set()
    for _, change in (applied.changes if applied is not None else ()):
        spec = OWNERS.get(change.check)
        if change.kind != "setpci" or spec is None or (change.target, change.new) in seen:
            continue
        seen.add((change.target, change.new))
        setting = setpci_setting(change.check, spec.fix, change.target, change.new)
        out += [setting] if setting is not None else []
    return out


# Boot values of sysfs files the kernel documents (used where no configuration sets them):
# https://docs.kernel.org/admin-guide/pm/intel_pstate.html (no_turbo 0 unless the firmware disables turbo,
# max_perf_pct 100), https://docs.kernel.org/admin-guide/pm/cpufreq.html ("boost": enabled where supported).
KERNEL_BOOT_DEFAULTS = {"/sys/devices/system/cpu/intel_pstate/no_turbo": "0",
                        "/sys/devices/system/cpu/intel_pstate/max_perf_pct": "100",
                        "/sys/devices/system/cpu/cpufreq/boost": "1"}


def boot_default(s: Setting) -> str | None:
    """What a boot that sets nothing brings: the fix data's revert value, else the kernel's documented one."""
    return s.before if s.before is not None else KERNEL_BOOT_DEFAULTS.get(s.target)


def owners_passing(facts: dict[str, Any]) -> dict[str, bool]:
    """Whether each owning check is ok now, run on the same facts (False where a fact it needs is missing)."""
    out: dict[str, bool] = {}
    for spec in OWNERS.values():
        if any(facts.get(n) is None for n in spec.facts):
            out[spec.id] = False
            continue
        try:
            outcome = spec.func(**{n: facts.get(n) for n in (*spec.facts, *spec.optional_facts)})
        except Exception:  # its own result reports the error; here it only cannot pass
            out[spec.id] = False
            continue
        out[spec.id] = outcome.status == "ok"
    return out


_register = register_check(
    ID,
    title="Runtime settings right now, lost at the next reboot",
    severity="low",
    confidence="documented",
    fix=Fix.of(step("Keep each runtime setting in the configuration the next boot applies (sysctl.d, "
                    "modules-load.d, tmpfiles.d, the boot loader's command line, a tuned profile, a systemd unit)",
                    takes="nothing now; kept from the next boot")),
    references=("https://www.freedesktop.org/software/systemd/man/latest/sysctl.d.html",
                "https://www.freedesktop.org/software/systemd/man/latest/modules-load.d.html",
                "https://www.freedesktop.org/software/systemd/man/latest/tmpfiles.d.html",
                "https://github.com/redhat-performance/tuned/blob/master/man/tuned.conf.5"),
)


def persist_boot(**facts: Any) -> Outcome:
    """Reads: for every setting a runtime fix of the catalogue changes (its step's command: a sysctl, a
    /sys file, a module, a unit; its persistent forms), the value now (/proc/sys, /sys, /proc/modules,
    the daemon) and what the next boot sets: sysctl.d in systemd-sysctl's order and /etc/sysctl.conf,
    modules-load.d and modprobe.d (`install M /bin/false`), tmpfiles.d `w` lines, udev `ATTR{}=` rules,
    enabled local oneshot units, the active tuned profile (with `include=`, when tuned.service is
    enabled), the boot loader's configured command line (GRUB or systemd-boot, whichever is in use;
    GRUB's BLS entries where GRUB_ENABLE_BLSCFG=true, their `$tuned_params` from /etc/tuned/bootcmdline or
    grubenv) and the tuned profile's [bootloader] cmdline that tuned writes there at its next start;
    and the masked setpci writes `fix --apply` made and did not undo (its journals).

    Bad value: a setting at the value its fix sets now, which the persistent configuration sets to
    another value or does not set at all: the next reboot brings the original issue back.

    Why: `sysctl -w`, an echo into /sys, `modprobe` and `systemctl start` last until the reboot; the
    checks pass after `fix --apply` and fail again after the next maintenance window.

    Traps: "not set" means the kernel's or the driver's default at boot (for the sysctls the fixes
    change, the value the check flags). tuned applies its [sysctl] after systemd-sysctl and wins. A
    kernel parameter tuned's [bootloader] gives reaches the kernel through `$tuned_params` only: one
    the profile gives that the files do not carry yet is not on the next boot's command line, one the
    files carry that the profile no longer gives (`-param`) goes at tuned's next start; disabling
    tuned.service removes nothing. A `$tuned_params` whose value is not in the source is unknown. A
    /etc file masks the /usr/lib file of the same name. A directory the source does not show
    (a snapshot of another version, a paste) makes the answer unknown, never ok. A module may also
    be loaded by udev for its hardware, and a unit started by a vendor preset: both are reported as
    not kept. Inside a container the configuration is the host's and is not visible.
    """
    container = facts.get("container")
    if isinstance(container, ContainerInfo) and container.in_container:
        return unknown(f"inside {container.kind}: the boot configuration is the host's", hint="run on the host")
    read = Facts(**{f.name: facts.get(f.name) for f in fields(Facts)})
    lost: list[tuple[Setting, str, Step]] = []
    kept: list[str] = []
    unread: list[str] = []
    defaulted: list[str] = []
    passing = owners_passing(facts)
    for s in catalogue_settings(read.applied_changes):
        now, shown = in_effect(s, read)
        if not now or not passing.get(s.check):
            continue  # its check is not ok now (it reports the setting itself), or the value is not the fix's
        boot = at_boot(s, read)
        if boot.unread and not (boot.value is not None and not boot.kept):
            unread.append(f"{s.label} ({', '.join(dict.fromkeys(boot.unread))[:120]} not readable or not in the source)")
        elif boot.kept:
            kept.append(f"{s.label} = {shown} (kept by {boot.where})")
        elif boot.value is None and s.kind == "sysfs" and boot_default(s) == s.value:
            kept.append(f"{s.label} = {shown} (the kernel's default at boot)")
        elif boot.value is None and s.kind == "sysfs" and boot_default(s) is None:
            # Nothing sets it and neither the fix data nor the kernel docs say what boot brings: unknown here.
            defaulted.append(f"{s.label} = {shown} (no configuration sets it: the kernel's default at boot)")
        else:
            at = (f"{boot.value} from {boot.where}" if boot.value is not None
                  else "not written by any udev rule, unit or kernel parameter (the device's reset value)"
                  if s.kind == "setpci" else "not set by any file (the default)")
            lost.append((s, f"{s.label}: {shown} now, at boot {at}", persist_step(s, boot)))
    if lost:
        lost = _one_unit_per_check(lost)
        return issue("right now, lost at reboot: " + "; ".join(text for _, text, _ in lost)
                     + (f"; unknown: {'; '.join(unread)}" if unread else ""),
                     actual={s.label: text.split(": ", 1)[1] for s, text, _ in lost},
                     expected="the persistent configuration sets the value the fix set",
                     subjects=[s.label for s, _, _ in lost], fix=Fix.of(*[p for _, _, p in lost]),
                     evidence=[text for _, text, _ in lost])
    if unread or defaulted:
        return unknown("; ".join(filter(None, [
            "the persistent configuration is not in the source for: " + "; ".join(unread) if unread else "",
            "not known whether the boot default is the same value: " + "; ".join(defaulted) if defaulted else ""])),
            hint="set it in one of the step's persistent forms (or audit again after a reboot)" if not unread
            else "run on the host (or capture a new snapshot)")
    if not kept:
        return not_applicable("no setting a runtime fix changes is at its fixed value with its check ok now")
    return ok("kept across reboots: " + "; ".join(kept), actual=sorted(kept), subjects=[k.split(" = ")[0] for k in kept])


def _one_unit_per_check(lost: list[tuple[Setting, str, Step]]) -> list[tuple[Setting, str, Step]]:
    """The setpci writes of one check kept by one oneshot unit (its step on the first of them)."""
    writes: dict[str, list[Setting]] = {}
    for s, _, _ in lost:
        if s.kind == "setpci":
            writes.setdefault(s.check, []).append(s)
    out = []
    for s, text, keep in lost:
        if s.kind != "setpci":
            out.append((s, text, keep))
        elif writes[s.check][0] is s:
            out.append((s, text, oneshot_step(s.check, writes[s.check])))
    return out


# Its parameters are the facts above, each optional (the registry injects facts by parameter name).
persist_boot.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in FACT_NAMES])
_register(persist_boot)
