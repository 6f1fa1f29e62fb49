"""KERN-PERSIST-BOOT's reading of the facts: is a setting a fix changes at its fixed value now, and what
does the persistent configuration set it to at the next boot (checks/persist.py; docs/checks.md)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any

from stackaudit.facts.apply_journal import AppliedChanges
from stackaudit.facts.boot_loader import BootCmdlineConfig, CmdlineParam
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
from stackaudit.fixes.persist import Setting

TUNED_UNIT = "tuned.service"
TUNED_REMOVES = "removed by tuned"  # the value at boot of a kernel parameter tuned drops from $tuned_params


@dataclass(frozen=True)
class Facts:
    """The facts KERN-PERSIST-BOOT reads (None: unavailable)."""

    sysctls: Sysctls | None = None
    thp: ThpSettings | None = None
    cpufreq: CpuFreq | None = None
    cpuidle: CpuIdle | None = None
    modules: LoadedModules | None = None
    nvidia_services: NvidiaServices | None = None
    sysctl_config: SysctlConfig | None = None
    modprobe_config: ModprobeConfig | None = None
    tmpfiles_config: TmpfilesConfig | None = None
    udev_rules: UdevRules | None = None
    tuned_config: TunedConfig | None = None
    systemd_units: SystemdUnits | None = None
    boot_cmdline_config: BootCmdlineConfig | None = None
    applied_changes: AppliedChanges | None = None


@dataclass
class Boot:
    """What the next boot sets: the last place that sets it (`where`, its `value`, whether that is the fixed
    value), or nothing; `unread`: places that could change it but are not in the source."""

    value: str | None = None
    where: str = ""
    kept: bool = False
    unread: list[str] = field(default_factory=list)

    def set(self, value: str, where: str, kept: bool) -> None:
        self.value, self.where, self.kept = value, where, kept
        self.unread = []  # what applies before this place is overridden by it


def _norm(path: str) -> str:
    return path.replace("[0-9]*", "*")


def _same_path(a: str, b: str) -> bool:
    a, b = _norm(a), _norm(b)
    return a == b or fnmatch.fnmatchcase(a, b) or fnmatch.fnmatchcase(b, a)


def _all(values: list[Any], wanted: str) -> bool | None:
    if not values or any(v is None for v in values):
        return None
    return all(str(v) == wanted for v in values)


def in_effect(s: Setting, f: Facts) -> tuple[bool | None, str]:
    """(whether the setting is at the value the fix sets, the value now in words); None: not shown."""
    if s.kind == "setpci":
        return True, f"{s.value} (written by fix --apply)"  # from its journal, not undone
    if s.kind == "sysctl":
        value = f.sysctls.get(s.target) if f.sysctls is not None else None
        return (None if value is None else " ".join(value.split()) == s.value), value or "not shown"
    if s.kind == "module":
        loaded = f.modules.loaded(s.target.replace("-", "_")) if f.modules is not None else None
        return loaded, {True: "loaded", False: "not loaded", None: "not shown"}[loaded]
    if s.kind == "unit":
        services = f.nvidia_services
        daemon = {"nvidia-persistenced.service": services.persistenced if services else None,
                  "nvidia-fabricmanager.service": services.fabricmanager if services else None}.get(s.target)
        running = daemon.running if daemon is not None else None
        return running, {True: "running", False: "not running", None: "not shown"}[running]
    return _sysfs_in_effect(s, f)


def _sysfs_in_effect(s: Setting, f: Facts) -> tuple[bool | None, str]:
    path, cf = s.target, f.cpufreq
    if path.endswith("transparent_hugepage/defrag"):
        value = f.thp.defrag if f.thp is not None else None
        return (None if value is None else value == s.value), value or "not shown"
    if s.latency_from is not None:
        if f.cpuidle is None or not f.cpuidle.states:
            return None, "not shown"
        deep = [st for st in f.cpuidle.states if (st.latency_us or 0) >= s.latency_from]
        on = [st.name for st in deep if not st.disabled]
        now = f"{', '.join(on)} enabled" if on else f"{', '.join(st.name for st in deep)} disabled"
        return (bool(deep) and not on), now
    if cf is None or not cf.present:
        return None, "not shown"
    if path.endswith("/scaling_governor"):
        values: list[Any] = [p.governor for p in cf.policies]
    elif path.endswith("/energy_performance_preference"):
        values = [p.epp for p in cf.policies]
    elif path.endswith("intel_pstate/no_turbo"):
        values = [cf.intel_no_turbo]
    elif path.endswith("intel_pstate/max_perf_pct"):
        values = [cf.intel_max_perf_pct]
    elif path.endswith("cpufreq/boost"):
        values = [cf.boost]
    else:
        return None, "not shown"
    shown = ", ".join(sorted({str(v) for v in values}))
    return _all(values, s.value), shown


def _tuned_applies(f: Facts) -> bool | None:
    """Whether tuned applies its profile at boot: an active profile and tuned.service enabled."""
    if f.tuned_config is None or not f.tuned_config.active:
        return False if f.tuned_config is not None else None
    if f.systemd_units is None:
        return None
    return bool(f.systemd_units.enabled(TUNED_UNIT))


def _tuned(boot: Boot, f: Facts, section: str, keys: tuple[str, ...], wanted: str,
           kept: Any = None) -> None:
    """The tuned profile's value, applied after everything else at boot (when tuned.service is enabled)."""
    applies = _tuned_applies(f)
    if applies is False:
        return
    config = f.tuned_config
    if config is None:
        boot.unread.append("/etc/tuned/active_profile")
        return
    found = next((x for x in (config.get(section, k) for k in keys) if x is not None), None)
    if found is None:
        if not config.complete:
            boot.unread += [f"tuned profile {n}" for n in config.unread]
        return
    if applies is None:
        boot.unread.append(f"whether {TUNED_UNIT} is enabled")
        return
    value = found.value.split("|")[0].strip()
    boot.set(value, f"tuned profile {found.profile} ({found.place})", kept(value) if kept else value == wanted)


def boot_sysctl(s: Setting, f: Facts) -> Boot:
    boot = Boot()
    config = f.sysctl_config
    if config is None:
        boot.unread.append("sysctl.d")
    else:
        line = config.winner(s.target)
        if line is not None:
            boot.set(line.value, line.where, " ".join(line.value.split()) == s.value)
        boot.unread += list(config.unread)
    _tuned(boot, f, "sysctl", (s.target,), s.value)
    return boot


def boot_module(s: Setting, f: Facts) -> Boot:
    boot = Boot()
    config = f.modprobe_config
    if config is None:
        boot.unread.append("modules-load.d")
        return boot
    loads, refused = config.loads(s.target), config.refuses(s.target)
    if loads is not None:
        boot.set("loaded", loads.where, True)
    if refused is not None:
        boot.set("refused", f"{refused.where} ({refused.text})", False)
    boot.unread += [] if loads or refused else list(config.unread)
    return boot


def boot_unit(s: Setting, f: Facts) -> Boot:
    boot = Boot()
    units = f.systemd_units
    if units is None:
        boot.unread.append("/etc/systemd/system")
        return boot
    targets = units.enabled(s.target)
    if targets:
        boot.set("enabled", f"{s.target} wanted by {', '.join(f'{t}.target' for t in targets)}", True)
    elif s.target in units.masked:
        boot.set("masked", f"/etc/systemd/system/{s.target} -> /dev/null", False)
    else:
        boot.unread += list(units.unread)
    return boot


# tuned's plugins that write a sysfs file a fix changes ([cpu] and [vm] options; [sysfs] names files):
# https://github.com/redhat-performance/tuned/tree/master/tuned/plugins (plugin_cpu.py, plugin_vm.py).
_TUNED_SYSFS = (("/scaling_governor", "cpu", ("governor",)),
                ("/energy_performance_preference", "cpu", ("energy_performance_preference",)),
                ("transparent_hugepage/defrag", "vm", ("transparent_hugepage.defrag",)))


def _cmdline(boot: Boot, s: Setting, f: Facts) -> None:
    """Kernel parameters the fix data names for this setting, as the boot loader in use is configured
    (`$tuned_params` expanded), and what tuned writes there at its next start."""
    wanted = [k for k in s.keeps if k.mechanism == "cmdline" and k.name]
    if not wanted:
        return
    config = f.boot_cmdline_config
    if config is None:
        boot.unread.append("the boot loader's configuration")
        return
    for keep in wanted:
        param = config.last(keep.name)
        if param is not None:
            via = f", {param.via}" if param.via else ""
            boot.set(param.value or "", f"{param.where} ({param.name}={param.value}{via})", param.value == keep.value)
            if not config.loader:
                boot.unread.append("which boot loader is in use")
        _tuned_cmdline(boot, keep.name, param, config, f)
        boot.unread += config.unknown_after(keep.name)
    if boot.value is None:
        boot.unread += list(config.unread)


def _tuned_cmdline(boot: Boot, name: str, param: CmdlineParam | None, loader: BootCmdlineConfig,
                   f: Facts) -> None:
    """tuned rewrites `$tuned_params` from the active profile's [bootloader] cmdline each time it applies
    it (tuned.service at boot): a parameter the files give through `$tuned_params` stays only where the
    profile gives it too; one only the profile gives is not on the next boot's command line. With tuned
    not applying at boot, the files stay as they are (disabling tuned.service removes nothing)."""
    through_tuned = param is not None and param.via.startswith("$tuned_params")
    applies = _tuned_applies(f)
    if applies is False or (param is not None and not through_tuned):
        return
    config = f.tuned_config
    if config is None:
        if through_tuned:
            boot.unread.append("/etc/tuned/active_profile")
        return
    cmdline = config.bootloader()
    own = cmdline.last(name)
    if param is None:
        # (a `$tuned_params` of unknown value may carry it: the caller names it as unknown)
        if own is not None and applies and not loader.unknown_after(name):
            boot.set(own.value or "", f"{own.where} (tuned profile {own.profile}: {own.word}, not on the boot "
                     "loader's configured command line: no $tuned_params there carries it)", False)
        return
    if applies is None:
        boot.unread.append(f"whether {TUNED_UNIT} is enabled")
        return
    if own is not None and own.value == param.value:
        boot.where = (f"{param.where} ({param.word}, {param.via}; tuned profile {own.profile} writes it at "
                      f"each start: {own.where})")
        if cmdline.skip_grub_config and param.where.startswith("/etc/tuned/"):
            boot.unread.append(f"GRUB's tuned_params ({cmdline.skip_grub_config}: tuned writes only "
                               "/etc/tuned/bootcmdline)")
        return
    if own is None and (cmdline.unknown or not config.complete):
        boot.unread += [*cmdline.unknown, *(f"tuned profile {n}" for n in config.unread)]
        return
    rewrites = f"tuned rewrites $tuned_params ({param.where}, {param.via}) at its next start"
    gone = cmdline.removal(name)
    if own is not None:
        boot.set(own.value or "", f"{own.where} ({own.word} in tuned profile {own.profile}: {rewrites})", False)
    elif gone is not None:
        boot.set(TUNED_REMOVES, f"{gone.where} (-{gone.word} in tuned profile {gone.profile}: {rewrites} "
                 "without it)", False)
    else:
        boot.set(TUNED_REMOVES, f"tuned profile {' '.join(config.active)} (no [bootloader] cmdline sets "
                 f"{name}: {rewrites} without it)", False)


def _tmpfiles(boot: Boot, s: Setting, f: Facts) -> None:
    config = f.tmpfiles_config
    if config is None:
        boot.unread.append("tmpfiles.d")
        return
    found = next((w for w in config.writes if _same_path(w.path, s.target)), None)
    if found is not None:
        boot.set(found.value, found.where, found.value == s.value)
    boot.unread += list(config.unread)


def _udev(boot: Boot, s: Setting, f: Facts) -> None:
    rules = f.udev_rules
    if rules is None:
        boot.unread.append("udev rules.d")
        return
    for rule in rules.rules:
        value = rule.sets(_norm(s.target))
        if value is not None:
            boot.set(value, rule.where, value == s.value)
    boot.unread += list(rules.unread)


def _oneshot(boot: Boot, s: Setting, f: Facts) -> None:
    """An enabled local unit whose command is the fix's own command or writes the value to the file."""
    units = f.systemd_units
    if units is None:
        boot.unread.append("/etc/systemd/system")
        return
    tail = "/".join(_norm(s.target).split("/")[-2:])
    for command in s.step.commands:
        for unit, line in units.running(command.line):
            boot.set(s.value, f"{unit.path} ({line})", True)
    for unit, line in units.running(tail.replace("*", "")):
        if f" {s.value} " in f" {line.replace('>', ' ').replace('|', ' ')} ":
            boot.set(s.value, f"{unit.path} ({line})", True)
    boot.unread += list(units.unread)


def boot_sysfs(s: Setting, f: Facts) -> Boot:
    """In boot order: the kernel command line, tmpfiles.d and udev (early boot), local units, tuned last."""
    boot = Boot()
    _cmdline(boot, s, f)
    _tmpfiles(boot, s, f)
    _udev(boot, s, f)
    _oneshot(boot, s, f)
    if s.latency_from is not None:
        limit = s.latency_from

        def low_enough(value: str) -> bool:
            return value.isdecimal() and int(value) < limit

        _tuned(boot, f, "cpu", ("force_latency",), "", kept=low_enough)
        return boot
    section = next(((sec, keys) for suffix, sec, keys in _TUNED_SYSFS if s.target.endswith(suffix)), None)
    if section is not None:
        _tuned(boot, f, section[0], section[1], s.value)
    else:
        _tuned_sysfs(boot, s, f)
    return boot


def _tuned_sysfs(boot: Boot, s: Setting, f: Facts) -> None:
    """tuned's [sysfs] section: file paths (globs allowed) and the value written to them."""
    config = f.tuned_config
    if config is None or _tuned_applies(f) is False:
        if config is None:
            boot.unread.append("/etc/tuned/active_profile")
        return
    for item in config.settings:
        if item.section == "sysfs" and _same_path(item.key, s.target):
            boot.set(item.value, f"tuned profile {item.profile} ({item.place})", item.value == s.value)


def boot_setpci(s: Setting, f: Facts) -> Boot:
    """A masked setpci write `fix --apply` made: kept by the kernel parameter the fix data names (ACS:
    `pci=disable_acs_redir=` listing the device), a udev rule or an enabled oneshot unit running the write."""
    bdf, reg = s.target.split(" ", 1)
    write = f"{reg}={s.value}"
    boot = Boot()
    for keep in (k for k in s.keeps if k.mechanism == "cmdline" and k.name):
        config = f.boot_cmdline_config
        if config is None:
            boot.unread.append("the boot loader's configuration")
            continue
        prefix = keep.value.split("<", 1)[0]
        param = config.last(keep.name)
        short = bdf.split(":", 1)[1] if bdf.count(":") == 2 else bdf
        if param is not None and param.value and param.value.startswith(prefix) and short in param.value:
            boot.set(param.value, f"{param.where} ({param.name}={param.value})", True)
            if not config.loader:
                boot.unread.append("which boot loader is in use")
    rules = f.udev_rules
    if rules is None:
        boot.unread.append("udev rules.d")
    else:
        for rule in rules.rules:
            if any("setpci" in run and write in run for run in rule.runs):
                boot.set(s.value, rule.where, True)
    units = f.systemd_units
    if units is None:
        boot.unread.append("/etc/systemd/system")
    else:
        for unit, line in units.running(write):
            if "setpci" in line and bdf.split(":", 1)[-1] in line:
                boot.set(s.value, f"{unit.path} ({line})", True)
    return boot


def at_boot(s: Setting, f: Facts) -> Boot:
    return {"sysctl": boot_sysctl, "module": boot_module, "unit": boot_unit,
            "setpci": boot_setpci}.get(s.kind, boot_sysfs)(s, f)


def oneshot_step(check: str, writes: list[Setting]) -> Any:
    """One oneshot unit per check running its setpci writes at every boot, before the driver's daemon."""
    from stackaudit.fixes.model import sh, step
    from stackaudit.fixes.shell_quote import bash_word

    unit = f"stackaudit-setpci-{check.lower()}.service"
    lines = ["[Unit]", f"Description=setpci writes of {check} (stackaudit fix)", "Before=nvidia-persistenced.service",
             "[Service]", "Type=oneshot",
             *(f"ExecStart=/usr/bin/env setpci -s {w.target.split(' ', 1)[0]} {w.target.split(' ', 1)[1]}={w.value}"
               for w in writes), "[Install]", "WantedBy=multi-user.target"]
    write = sh("printf '%s\\n' " + " ".join(bash_word(x) for x in lines) + f" > /etc/systemd/system/{unit}")
    return step(f"Keep {check}'s setpci writes across reboots: a oneshot unit, {unit}", write,
                f"systemctl enable {unit}", changes=f"/etc/systemd/system/{unit}", takes=TAKES,
                keep=writes[0].step.persistent)


# --- the persistent fix ------------------------------------------------------------------------

TAKES = "nothing now; kept from the next boot"


def _form_line(s: Setting, mechanism: str) -> tuple[str, str] | None:
    """(line, file) of the fix data's persistent form for this mechanism."""
    keep = next((k for k in s.keeps if k.mechanism == mechanism and k.form is not None and k.form.file), None)
    return (keep.form.line, keep.form.file) if keep is not None and keep.form is not None else None


def persist_step(s: Setting, boot: Boot) -> Any:
    """The step that keeps `s`: the fix data's own persistent form written where it wins at boot, or the
    line that sets another value changed, or (where the data gives no file) its forms as they are."""
    from stackaudit.fixes.model import sh, step
    from stackaudit.fixes.shell_quote import bash_word

    does_keep = f"Keep {s.label} = {s.wanted} across reboots ({s.check})"
    forms = s.step.persistent
    if boot.value is not None and not boot.kept:
        where = boot.where.split(" (")[0]
        if boot.value == TUNED_REMOVES:
            return step(f"{does_keep}: tuned takes it out of $tuned_params ({boot.where}) — give it in the active "
                        "profile's [bootloader] cmdline, or on the boot loader's own command line", takes=TAKES,
                        keep=forms)
        if s.kind == "sysctl" and where.startswith("/etc/") and ":" in where and not where.startswith("/etc/tuned"):
            path, line = where.rsplit(":", 1)
            command = sh(f"sed -i {bash_word(f'{line}s/.*/{s.target} = {s.value}/')} {bash_word(path)}")
            return step(f"{does_keep}: change {where}, which sets {boot.value}", command,
                        changes=path, takes=TAKES, keep=forms)
        if s.kind == "unit" and boot.value == "masked":
            return step(f"{does_keep}: unmask and enable it", f"systemctl unmask {s.target}",
                        f"systemctl enable {s.target}", changes=f"/etc/systemd/system/{s.target}", takes=TAKES)
        if s.kind != "sysctl" or not where.startswith(("/usr/", "/lib/", "/run/")):
            return step(f"{does_keep}: {boot.where} sets {boot.value} at boot — change it there", takes=TAKES,
                        keep=forms)
    if s.kind == "unit":
        return step(does_keep, f"systemctl enable {s.target}", changes=f"/etc/systemd/system/*.wants/{s.target}",
                    takes=TAKES)
    mechanism = {"sysctl": "sysctl.d", "module": "modules-load.d"}.get(s.kind, "tmpfiles.d")
    form = _form_line(s, mechanism)
    if form is None:
        return step(f"{does_keep}: one of the ways below", takes=TAKES, keep=forms)
    line, path = form
    if s.kind == "sysctl" and boot.value is not None:
        # A vendor file (/usr/lib, /run) sets another value: a later-named file in /etc/sysctl.d wins over it
        # (a name starting with letters sorts after the usual two-digit prefixes).
        vendor = boot.where.split(" (")[0].rsplit(":", 1)[0].rsplit("/", 1)[-1]
        name = "99-zz-llm-serving.conf" if vendor < "99-zz-llm-serving.conf" else "zz-" + vendor
        path = f"/etc/sysctl.d/{name}"
    command = sh(f"echo {bash_word(line)} >> {bash_word(path)}")
    return step(does_keep, command, changes=path, takes=TAKES, keep=forms)
