"""KERN-PERSIST-BOOT: settings that are right now but lost at the next reboot (docs/checks.md, KERN).

A derived rule: the engine evaluates it after the checks whose fixes change a setting, and gives it their
results. The settings are the ones those fixes change (fixes/persist.py reads them from the fix data);
the evaluation is checks/_persist_eval.py.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from stackaudit.checks._persist_eval import Facts, at_boot, in_effect, oneshot_step, persist_step
from stackaudit.checks.registry import (
    CheckRead,
    CheckSpec,
    Fix,
    Outcome,
    check,
    issue,
    not_applicable,
    ok,
    unknown,
)
from stackaudit.facts.apply_journal import AppliedChanges
from stackaudit.facts.boot_loader import BootCmdlineConfig
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.cpufreq import CpuFreq, CpuIdle
from stackaudit.facts.kernel_knobs import ThpSettings
from stackaudit.facts.modprobe_config import ModprobeConfig
from stackaudit.facts.nvidia import NvidiaServices
from stackaudit.facts.sysctl_config import SysctlConfig
from stackaudit.facts.system import LoadedModules, Sysctls
from stackaudit.facts.systemd_units import SystemdUnits
from stackaudit.facts.tmpfiles import TmpfilesConfig
from stackaudit.facts.tuned import TunedConfig
from stackaudit.facts.udev_rules import UdevRules
from stackaudit.fixes.model import Step, step
from stackaudit.fixes.persist import Setting, setpci_setting, settings_of

ID = "KERN-PERSIST-BOOT"


def _writes_setpci(spec: CheckSpec) -> bool:
    """A fix with a masked setpci write: what it set is known from `fix --apply`'s journal only."""
    return any(c.line.startswith("setpci ") for s in spec.fix.steps for c in s.commands)


@functools.cache
def owns_a_setting(spec: CheckSpec) -> bool:
    """A check whose fix changes a setting the next boot may undo: this rule reads its result (asked per check at
    each audit, of a registered check that never changes: answered once)."""
    return spec.id != ID and (bool(settings_of(spec.id, spec.fix)) or _writes_setpci(spec))


def catalogue_settings(owners: Iterable[CheckSpec], applied: AppliedChanges | None = None) -> list[Setting]:
    """Every setting the owners' runtime fixes change, and the masked setpci writes `fix --apply` made for
    them and did not undo (from its journals)."""
    by_id = {spec.id: spec for spec in owners}
    out = [s for spec in by_id.values() for s in settings_of(spec.id, spec.fix)]
    seen: set[tuple[str, str]] = set()
    for _, change in (applied.changes if applied is not None else ()):
        spec = by_id.get(change.check)
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


def owners_passing(results: Iterable[CheckRead]) -> dict[str, bool]:
    """Whether each owning check is ok in this audit (not where a fact it needs is missing)."""
    return {r.spec.id: r.status == "ok" for r in results}


@check(
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
    reads=owns_a_setting,
)
def persist_boot(results: tuple[CheckRead, ...], sysctls: Sysctls | None = None, thp: ThpSettings | None = None,
                 cpufreq: CpuFreq | None = None, cpuidle: CpuIdle | None = None, modules: LoadedModules | None = None,
                 nvidia_services: NvidiaServices | None = None, sysctl_config: SysctlConfig | None = None,
                 modprobe_config: ModprobeConfig | None = None, tmpfiles_config: TmpfilesConfig | None = None,
                 udev_rules: UdevRules | None = None, tuned_config: TunedConfig | None = None,
                 systemd_units: SystemdUnits | None = None, boot_cmdline_config: BootCmdlineConfig | None = None,
                 applied_changes: AppliedChanges | None = None, container: ContainerInfo | None = None) -> Outcome:
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
    if container is not None and container.in_container:
        return unknown(f"inside {container.kind}: the boot configuration is the host's", hint="run on the host")
    read = Facts(sysctls=sysctls, thp=thp, cpufreq=cpufreq, cpuidle=cpuidle, modules=modules,
                 nvidia_services=nvidia_services, sysctl_config=sysctl_config, modprobe_config=modprobe_config,
                 tmpfiles_config=tmpfiles_config, udev_rules=udev_rules, tuned_config=tuned_config,
                 systemd_units=systemd_units, boot_cmdline_config=boot_cmdline_config,
                 applied_changes=applied_changes)
    lost: list[tuple[Setting, str, Step]] = []
    kept: list[str] = []
    unread: list[str] = []
    defaulted: list[str] = []
    passing = owners_passing(results)
    for s in catalogue_settings((r.spec for r in results), read.applied_changes):
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
