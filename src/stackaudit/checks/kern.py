"""KERN: kernel runtime knobs (docs/checks.md, KERN).

All of these are host-global: inside a container they are read (sysfs and /proc are the
host's) and the fix is printed for the host (docs/design.md, "Status rules").
"""

from __future__ import annotations

import re
from collections import Counter

from stackaudit.checks.registry import (
    Fix,
    Outcome,
    Severity,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    unknown,
)
from stackaudit.checks.registry import check as register_check
from stackaudit.facts._parse import format_cpulist
from stackaudit.facts.boot_loader import CmdlineTool, tool_of
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.cpufreq import (
    BOOST,
    CPU_SYS,
    NO_TURBO,
    CpuFreq,
    CpuIdle,
)
from stackaudit.facts.kernel_knobs import (
    CpuIsolation,
    IrqInfo,
    SchedState,
    SwapInfo,
    ThpSettings,
    VmStat,
    Vulnerabilities,
)
from stackaudit.facts.platform import Virtualization
from stackaudit.facts.processes import ProcessInfo, ServingProcesses
from stackaudit.facts.system import CpuInfo, KernelCmdline, KernelInfo, KernelLog, NumaTopology, Sysctls
from stackaudit.fixes.kernel_cmdline import cmdline_forms
from stackaudit.fixes.model import (
    Persist,
    cmd,
    keep_cmd,
    keep_line,
    keep_text,
    needs_shell,
    sh,
    step,
)

CPUFREQ_DOC = "https://docs.kernel.org/admin-guide/pm/cpufreq.html"
INTEL_PSTATE_DOC = "https://docs.kernel.org/admin-guide/pm/intel_pstate.html"
AMD_PSTATE_DOC = "https://docs.kernel.org/admin-guide/pm/amd-pstate.html"

SLOW_GOVERNORS = ("powersave", "ondemand", "conservative")
POWER_EPP = ("power", "balance_power")
# Exit latency (µs) from which an idle state counts as deep (docs/checks.md, KERN-CSTATES: ~100 µs).
DEEP_IDLE_US = 100


def is_vm(virtualization: Virtualization | None) -> bool:
    """A VM per the one `virtualization` fact (systemd-detect-virt, else lscpu, else DMI)."""
    return virtualization is not None and virtualization.is_vm


def where(container: ContainerInfo | None) -> str:
    return f" (inside {container.kind}: a host-level setting, fix it on the host)" if container and container.in_container else ""


def counts(counter: Counter[str], unit: str = "CPU") -> str:
    """Counter({'performance': 62, 'powersave': 2}) -> "performance on 62 CPUs, powersave on 2 CPUs"."""
    parts = []
    for value, n in counter.most_common():
        parts.append(f"{value} on {n} {unit}{'s' if n != 1 else ''}")
    return ", ".join(parts)


def engine_processes(procs: ServingProcesses | None) -> list[ProcessInfo]:
    return list(procs.processes) if procs is not None else []


# --- KERN-CPUFREQ-GOVERNOR -------------------------------------------------------------------


def _governor_fix(tool: str) -> Fix:
    return Fix.of(step("Set the performance governor on every CPU", "cpupower frequency-set -g performance",
                       changes="scaling_governor of every CPU",
                       keep=(keep_cmd(cmd("tuned-adm profile throughput-performance"), label="tuned",
                                      text="or latency-performance / accelerator-performance"),
                             *cmdline_forms("cpufreq.default_governor=performance", tool),
                             keep_text("a systemd oneshot running the command", label="systemd"))))


@register_check(
    "KERN-CPUFREQ-GOVERNOR",
    title="CPU frequency governor/driver keeps cores slow",
    severity="medium",
    confidence="documented",
    fix=_governor_fix(""),
    references=(CPUFREQ_DOC, "https://github.com/vllm-project/vllm/issues/6854",
                "https://github.com/vllm-project/vllm/issues/8147"),
)
def governor(cpufreq: CpuFreq, virtualization: Virtualization | None = None,
             container: ContainerInfo | None = None, cmdline_tool: CmdlineTool | None = None) -> Outcome:
    """Reads: /sys/devices/system/cpu/cpufreq/policy*/scaling_driver and scaling_governor (every
    policy), or a pasted `cpupower frequency-info` (often CPU 0 only: the result then says "CPU 0").

    Bad value: a generic-governor driver (acpi-cpufreq, intel_cpufreq = intel_pstate passive,
    amd-pstate passive/guided, cppc_cpufreq) with governor `powersave` (pinned to the lowest
    frequency: the severe variant, high) or `ondemand`/`conservative` (medium).

    Why: the serving engine's scheduler loop is CPU-bound per step; vLLM maintainers describe
    5-13 ms GPU bubbles per decode step from CPU work, and a CPU change alone gave 3.8x in one
    report. No published A/B of the governor alone: the mechanism is single-thread speed.

    Traps: with intel_pstate or amd-pstate-epp in active mode, `powersave` is not the minimum
    frequency but the default dynamic mode steered by EPP (see KERN-EPP): not an issue; with the
    driver not in the source, `powersave` is unknown, never flagged. In VMs and containers
    without cpufreq sysfs the answer is unknown. A scaling_max_freq below
    cpuinfo_max_freq is reported once, by KERN-CPU-BOOST. A fast governor whose CPUs read below their policy's
    lowest frequency is not an issue here: no governor goes under that floor, a power or thermal limit does.
    A Windows host (facts/platform.WINDOWS_LINES: llama.cpp built for Windows, a `.exe` path, `OS: Windows 11`) has
    no Linux cpufreq governor (its power plan sets processor speed): not applicable through the engine's rule
    (facts/applicability.LINUX_ONLY), unless a container is shown (Docker Desktop runs it in WSL 2's Linux VM).
    """
    if not cpufreq.present:
        if is_vm(virtualization):
            # The check's rule asks for unknown here (not the n/a of the other host-only checks): a VM may
            # still expose a cpufreq driver, and the governor that slows it is then the host's to report.
            return unknown("no cpufreq interface: a VM's CPU frequency is controlled by the hypervisor",
                           hint="check the governor on the hypervisor host")
        if container is not None and container.in_container:
            return unknown("no cpufreq interface visible inside this container",
                           hint="run the audit on the host (or with the host's / at /host, --root /host)")
        return unknown("no cpufreq driver is loaded: firmware controls P-states (see KVER-INTEL-PSTATE)",
                       hint="check the BIOS power profile (Performance)")
    driver = cpufreq.driver or "unknown driver"
    govs = cpufreq.governors()
    if not govs:
        return unknown(f"scaling_governor of {cpufreq.scope} could not be read", hint="run as root")
    observed = f"driver {driver}, governor {counts(govs)} ({cpufreq.scope})"
    slow = {g: n for g, n in govs.items() if g in SLOW_GOVERNORS}
    if cpufreq.active_mode:
        # The correction ("powersave is EPP-steered, not the minimum") fails where the policy's range is
        # only the lowest frequency: the CPU is then pinned there whatever EPP asks.
        pinned = [p for p in cpufreq.policies if p.governor == "powersave" and p.scaling_max_khz is not None
                  and p.cpuinfo_min_khz is not None and p.scaling_max_khz <= p.cpuinfo_min_khz]
        if pinned:
            # The policy's maximum must be raised, not the governor changed (the same cap KERN-CPU-BOOST names).
            mhz = pinned[0].scaling_max_khz // 1000 if pinned[0].scaling_max_khz else 0
            cpus = sorted(c for p in pinned for c in p.cpus)
            top = max((p.cpuinfo_max_khz for p in pinned if p.cpuinfo_max_khz), default=None)
            raise_max = Fix.of(step(
                "Raise the frequency ceiling of the pinned policies to the hardware maximum",
                f"cpupower frequency-set -u {top // 1000}MHz" if top else "cpupower frequency-set -u <cpuinfo_max_freq>",
                changes="scaling_max_freq", keep=keep_text(
                    "remove the cap where it is set: TLP's CPU_SCALING_MAX_FREQ_ON_AC/BAT, a tuned profile, "
                    "power-profiles-daemon")))
            return issue(f"{observed}: the policy allows only {mhz} MHz (its hardware minimum), so 'powersave' "
                         "holds the CPU at its lowest frequency whatever EPP asks; raise scaling_max_freq "
                         "(KERN-CPU-BOOST names the cap)" + where(container), actual=observed,
                         expected="a policy range up to the hardware maximum", severity="high",
                         subjects=[f"cpu{c}" for c in cpus[:16]], fix=raise_max)
        if "powersave" in govs:
            return not_an_issue(
                f"{observed}: with {driver} in active mode, 'powersave' is the default dynamic mode whose "
                "aggressiveness is set by the energy-performance preference (KERN-EPP), not the minimum "
                "frequency" + where(container),
                actual=observed,
                expected="performance, or powersave with an active-mode driver",
            )
        return _held_below_floor(cpufreq, observed) or ok(observed, actual=observed)
    if not cpufreq.driver and "powersave" in slow:
        # Which driver decides what 'powersave' means: the minimum frequency (generic governors) or
        # the EPP-steered default (intel_pstate / amd-pstate-epp active). Never flag it blind.
        del slow["powersave"]
        if not slow:
            return unknown(f"{observed}: 'powersave' pins the lowest frequency only with a generic-governor driver "
                           "(acpi-cpufreq, intel_cpufreq, amd-pstate passive); with intel_pstate or amd-pstate-epp "
                           "active it is the normal EPP-steered mode, and scaling_driver is not in this source",
                           hint="cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver (or paste `cpupower "
                           "frequency-info` whole)")
    if slow:
        bad_cpus = cpufreq.cpus_with("governor", tuple(slow))
        severe = "powersave" in slow
        what = ("'powersave' pins these CPUs to their lowest frequency" if severe
                else "'ondemand'/'conservative' ramp up late for a bursty, CPU-bound engine loop")
        return issue(
            f"{observed}: {what}; the engine's per-step CPU work runs slower (documented mechanism; no "
            "published A/B of the governor alone)" + where(container),
            actual=observed,
            expected="governor performance",
            subjects=[f"cpu{c}" for c in bad_cpus[:16]] + (["..."] if len(bad_cpus) > 16 else []),
            severity="high" if severe else "medium",
            evidence=[f"{CPU_SYS}/cpufreq/policy{c}/scaling_governor: {g}" for g in slow for c in
                      cpufreq.cpus_with("governor", (g,))[:3]],
            fix=_governor_fix(tool_of(cmdline_tool)),
        )
    return _held_below_floor(cpufreq, observed) or ok(observed, actual=observed)


def _held_below_floor(cpufreq: CpuFreq, observed: str) -> Outcome | None:
    """A fast governor whose CPUs read below their policy's floor (CpuFreq.below_floor): the low clock is real, but
    no governor chose it (not an issue of this check); None where no CPU reads below it."""
    low = cpufreq.below_floor
    if not low:
        return None
    cur = sorted({p.cur_khz // 1000 for p in low if p.cur_khz})
    floor = sorted({(p.scaling_min_khz or p.cpuinfo_min_khz or 0) // 1000 for p in low})
    cpus = sorted(c for p in low for c in p.cpus)
    return not_an_issue(
        f"{observed}; CPUs {', '.join(map(str, cpus[:8]))}{', …' if len(cpus) > 8 else ''} read "
        f"{'/'.join(map(str, cur))} MHz, below the policy's {'/'.join(map(str, floor))} MHz floor, which no governor "
        "goes under: a power or thermal limit below cpufreq holds the clock (see PWR-PLATFORM-PROFILE), not the "
        "governor", actual=observed, expected="governor performance", subjects=[f"cpu{c}" for c in cpus[:16]])


# --- KERN-CPU-BOOST --------------------------------------------------------------------------


@register_check(
    "KERN-CPU-BOOST",
    title="Turbo/boost disabled or maximum CPU performance capped",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Turn turbo/boost on and lift the frequency caps (the knobs this host has)",
                       sh("echo 0 > /sys/devices/system/cpu/intel_pstate/no_turbo"),
                       sh("echo 100 > /sys/devices/system/cpu/intel_pstate/max_perf_pct"),
                       sh("echo 1 > /sys/devices/system/cpu/cpufreq/boost"),
                       "cpupower frequency-set -u <cpuinfo_max_freq>", changes="turbo/boost and scaling_max_freq",
                       keep=(keep_text("a tuned profile or a systemd oneshot running the same commands"),
                             keep_text("'Turbo Boost' / 'Core Performance Boost' enabled", label="BIOS")))),
    references=(INTEL_PSTATE_DOC, CPUFREQ_DOC),
)
def boost(cpufreq: CpuFreq, virtualization: Virtualization | None = None,
          container: ContainerInfo | None = None) -> Outcome:
    """Reads: /sys/devices/system/cpu/intel_pstate/{no_turbo,max_perf_pct},
    /sys/devices/system/cpu/cpufreq/boost, and scaling_max_freq vs cpuinfo_max_freq of a sample
    of policies (or `cpupower frequency-info`: "boost state support: Active").

    Bad value: turbo/boost off (no_turbo=1, boost=0), max_perf_pct below 100, or scaling_max_freq
    capped below cpuinfo_max_freq on a serving host.

    Why: single-thread speed of the engine loop matters (evidence of KERN-CPUFREQ-GOVERNOR);
    these knobs are documented in the kernel's intel_pstate and cpufreq guides.

    Traps: some sites disable turbo on purpose, for deterministic latency or a power budget: the
    result is a warning (medium), not an error. Applies to bare metal only.
    """
    if is_vm(virtualization):
        return not_applicable("a VM: turbo is decided by the hypervisor host")
    if not cpufreq.present:
        if container is not None and container.in_container:
            return unknown("no cpufreq interface visible inside this container", hint="run the audit on the host")
        return unknown("no cpufreq driver is loaded: turbo is decided by the firmware (BIOS profile)",
                       hint="check BIOS 'Turbo Boost' / 'Core Performance Boost'")
    caps = cpufreq.turbo_caps()
    if caps:
        # The fix names only the knobs found wrong, with the values of this host.
        problems = [what for what, _, _ in caps]
        return issue(
            "; ".join(problems) + f" ({cpufreq.scope}). Single-thread speed of the engine loop drops; "
            "some sites do this on purpose for deterministic latency or power" + where(container),
            actual="; ".join(problems),
            expected="turbo/boost on, max_perf_pct 100, scaling_max_freq = cpuinfo_max_freq",
            evidence=[line for _, lines, _ in caps for line in lines],
            fix=Fix.of(step("Turn turbo/boost on and lift the frequency caps found here",
                       *[sh(c) if needs_shell(c) else cmd(c) for _, _, c in caps],
                       changes="turbo/boost and scaling_max_freq",
                       keep=(keep_text("a tuned profile or a systemd oneshot running the same commands"),
                             keep_text("'Turbo Boost' / 'Core Performance Boost' enabled if it is off there",
                                       label="BIOS")))),
        )
    seen = cpufreq.turbo_knobs
    switch = cpufreq.turbo_switch_unshown
    if not seen and not cpufreq.sampled:
        unread = [p for p in (NO_TURBO, BOOST) if not cpufreq.knows(p)]
        return unknown("turbo state and frequency limits are not in this source"
                       + (f" ({', '.join(unread)} unread)" if unread else ""),
                       hint="run `cpupower frequency-info` or read /sys/devices/system/cpu/cpufreq/boost")
    if cpufreq.sampled:
        p = cpufreq.sampled[0]
        limits = f"scaling_max_freq {p.scaling_max_khz} kHz of cpuinfo_max_freq {p.cpuinfo_max_khz} kHz"
        if not seen and switch is not None:
            # An uncapped policy says nothing of turbo: the driver's switch, not in the source, turns it off.
            return unknown(f"{limits} ({cpufreq.scope}): no cap in the policy, but {cpufreq.driver}'s turbo switch "
                           f"({switch}) is not in this source", hint=f"cat {switch}")
        seen = [*seen, limits]
    if not cpufreq.turbo_knobs:
        seen.append("no turbo knob exposed by the driver")
    return ok(f"{', '.join(seen)} ({cpufreq.scope})", actual=", ".join(seen))


# --- KERN-EPP --------------------------------------------------------------------------------


def _epp_bias(value: str) -> str:
    """'performance'|'balanced'|'power'|'unknown' for a named or raw (0-255) EPP value."""
    if value.isdecimal():
        raw = int(value)
        return "performance" if raw == 0 else "balanced" if raw <= 0x80 else "power"
    if value in POWER_EPP:
        return "power"
    if value == "performance":
        return "performance"
    if value == "balance_performance":
        return "balanced"
    return "unknown"


@register_check(
    "KERN-EPP",
    title="energy_performance_preference biased to power saving",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Set the energy-performance preference to performance on every CPU (the performance "
                       "governor forces it on these drivers)",
                       sh("echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/energy_performance_preference"),
                       changes="energy_performance_preference of every CPU",
                       keep=(keep_cmd(cmd("powerprofilesctl set performance")),
                             keep_text("a tuned profile, or a systemd oneshot / udev rule")))),
    references=(AMD_PSTATE_DOC, INTEL_PSTATE_DOC),
)
def epp(cpufreq: CpuFreq, container: ContainerInfo | None = None) -> Outcome:
    """Reads: /sys/devices/system/cpu/cpufreq/policy*/energy_performance_preference (every
    policy) and energy_performance_available_preferences.

    Bad value: `power` or `balance_power` (or a raw value above 0x80) on a serving host.

    Why: EPP is the OS's hint to the hardware P-state controller (0x00 performance ... 0xFF
    power; amd-pstate.h: BALANCE_PERFORMANCE 0x80, BALANCE_POWERSAVE 0xBF).

    Traps: `balance_performance` is a reasonable default; the gain of `performance` over it for
    LLM serving is unmeasured (not an issue). `default` on AMD means the firmware's value, which
    sysfs does not show (unknown). Applies only with intel_pstate (HWP) or amd-pstate-epp.
    """
    if not cpufreq.present:
        return not_applicable("no cpufreq driver, no energy-performance preference")
    if not cpufreq.active_mode:
        return not_applicable(f"driver {cpufreq.driver or 'unknown'}: EPP applies to intel_pstate (HWP) "
                              "and amd-pstate-epp only")
    epps = cpufreq.epps()
    if not epps:
        if any(p.endswith("energy_performance_preference") for p in cpufreq.unread):
            return unknown(f"energy_performance_preference of {cpufreq.scope} is not in this source",
                           hint="cat /sys/devices/system/cpu/cpu*/cpufreq/energy_performance_preference")
        return not_applicable(f"driver {cpufreq.driver} exposes no EPP here (no HWP)")
    observed = f"EPP {counts(epps)} ({cpufreq.scope}, driver {cpufreq.driver})"
    bad = [v for v in epps if _epp_bias(v) == "power"]
    if bad:
        cpus = cpufreq.cpus_with("epp", tuple(bad))
        return issue(
            f"{observed}: biased to power saving, the hardware ramps clocks late for the engine loop"
            + where(container),
            actual=observed,
            expected="performance (or balance_performance)",
            subjects=[f"cpu{c}" for c in cpus[:16]] + (["..."] if len(cpus) > 16 else []),
        )
    if all(v == "default" for v in epps):
        return unknown(f"{observed}: 'default' is the firmware's value, which sysfs does not show",
                       hint="check the BIOS power profile, or set EPP explicitly")
    if any(_epp_bias(v) == "balanced" for v in epps):
        return not_an_issue(
            f"{observed}: balance_performance is a reasonable default; the gain of 'performance' over it for "
            "LLM serving is unmeasured",
            actual=observed,
            expected="performance or balance_performance",
        )
    return ok(observed, actual=observed)


# --- KERN-AMD-PSTATE -------------------------------------------------------------------------


@register_check(
    "KERN-AMD-PSTATE",
    title="Which frequency driver an AMD EPYC host uses",
    severity="low",
    confidence="source-verified",
    fix=Fix.of(step("Enable amd-pstate on the kernel command line (needs 'CPPC = Enabled' in BIOS), reboot, then "
                       "set EPP/governor", cost="reboot", changes="the kernel command line",
                       keep=cmdline_forms("amd_pstate=active"))),
    references=(AMD_PSTATE_DOC, "https://github.com/torvalds/linux/blob/master/drivers/cpufreq/amd-pstate.c"),
    applies_to="amd-cpu",
)
def amd_pstate(cpufreq: CpuFreq, cpu: CpuInfo | None = None, kernel: KernelInfo | None = None,
               cmdline: KernelCmdline | None = None, kernel_log: KernelLog | None = None,
               cmdline_tool: CmdlineTool | None = None,
               virtualization: Virtualization | None = None) -> Outcome:
    """Reads: /sys/devices/system/cpu/amd_pstate/status, scaling_driver and governor, EPP;
    `lscpu` CPU family (25 = Zen 3/4, 26 = Zen 5); `uname -r`; cmdline `amd_pstate=`; dmesg
    "amd_pstate: driver load is disabled".

    Bad value: not a fault by itself. Flagged only: Zen 5 (family 26, EPYC 9005 Turin) on kernel
    >= 6.13 with `amd_pstate=disable` forced; amd-pstate active with EPP `power`. acpi-cpufreq
    with a slow governor is KERN-CPUFREQ-GOVERNOR's finding (a runtime fix): here it is a key
    negative, never a second issue with a reboot. CPPC disabled in BIOS prevents amd-pstate.

    Why: amd-pstate is disabled by default on server platforms with CPUs older than family 0x1A
    (drivers/cpufreq/amd-pstate.c, amd_pstate_init), so Genoa (Zen 4) servers use acpi-cpufreq
    on every kernel; Turin gets amd-pstate by default from Linux 6.13.

    Traps: acpi-cpufreq + `performance` on Genoa is the kernel default and fine (not an issue);
    no published LLM-serving gain of amd-pstate over acpi-cpufreq + performance.
    """
    driver = cpufreq.driver
    # Without lscpu the cpufreq driver still names the vendor: intel_pstate / intel_cpufreq run only on
    # Intel CPUs, amd-pstate only on AMD ones (a pasted `cpupower frequency-info` shows the driver).
    if cpu is None and driver in ("intel_pstate", "intel_cpufreq"):
        return not_applicable(f"not an AMD CPU (cpufreq driver {driver})")
    if cpu is None and not (driver or "").startswith("amd-pstate"):
        return unknown("the CPU vendor is not in the source (neither lscpu nor a vendor's cpufreq driver)",
                       hint="`lscpu`")
    if cpu is not None and not cpu.is_amd:
        return not_applicable("not an AMD CPU")
    if is_vm(virtualization) and not cpufreq.present:
        return not_applicable("a VM without cpufreq: the frequency driver is the hypervisor host's")
    family = cpu.family if cpu is not None else None
    zen5 = family is not None and family >= 26
    release = kernel.release_tuple if kernel is not None else ()
    forced = cmdline.last("amd_pstate") if cmdline is not None else None
    status = cpufreq.amd_pstate_status
    govs = cpufreq.governors()
    disabled_log = kernel_log.grep(r"amd_pstate: driver load is disabled", needles=("amd_pstate",)) if kernel_log is not None else []
    observed = (f"family {family if family is not None else '?'}, kernel {kernel.release if kernel else '?'}, "
                f"driver {driver or 'none'}"
                + (f", amd_pstate/status {status}" if status else "")
                + (f", governor {counts(govs)}" if govs else "")
                + (f", cmdline amd_pstate={forced}" if forced else ""))
    if zen5 and release >= (6, 13) and forced == "disable":
        return issue(
            f"{observed}: Zen 5 gets amd-pstate by default from 6.13, but amd_pstate=disable is forced on the "
            "command line (no CPPC/EPP control)",
            actual=observed, expected="amd_pstate default (or =active)",
            subjects=["cmdline:amd_pstate"],
            fix=Fix.of(step("Remove amd_pstate=disable from the kernel command line, then reboot", cost="reboot",
                               changes="the kernel command line",
                               keep=cmdline_forms("amd_pstate=disable", tool_of(cmdline_tool), remove=True))),
        )
    if driver and driver.startswith("amd-pstate"):
        power = [v for v in cpufreq.epps() if v == "power"]
        if power:
            return issue(f"{observed}: amd-pstate with EPP 'power' ({cpufreq.scope}) keeps clocks low",
                         actual=observed, expected="EPP performance or balance_performance",
                         fix=Fix.of(step("Set the energy-performance preference to performance on every CPU",
                                 sh("echo performance | tee "
                                    "/sys/devices/system/cpu/cpu*/cpufreq/energy_performance_preference"),
                                 changes="energy_performance_preference of every CPU",
                                 keep=keep_text("a tuned profile or a systemd oneshot"))))
        return ok(observed, actual=observed)
    if driver == "acpi-cpufreq":
        slow = [g for g in govs if g in SLOW_GOVERNORS]
        if slow:
            # KERN-CPUFREQ-GOVERNOR reports the slow governor with its runtime fix; repeating it here with a
            # reboot (switching drivers) would rank a costlier fix for the same cause.
            return not_an_issue(
                f"acpi-cpufreq is not the problem, its {', '.join(slow)} governor is: KERN-CPUFREQ-GOVERNOR reports "
                "it with its runtime fix (`cpupower frequency-set -g performance`); acpi-cpufreq with the "
                f"performance governor is fine, no reboot into amd-pstate is needed ({observed})",
                actual=observed, expected="acpi-cpufreq + performance, or amd-pstate",
            )
        if not zen5:
            return not_an_issue(
                f"{observed}: amd-pstate is off by design on server platforms with CPUs older than family 0x1A "
                "(Zen 4 and older); acpi-cpufreq + performance is the kernel default and fine, and no "
                "LLM-serving gain from amd-pstate is published"
                + (" (dmesg: 'driver load is disabled' is this default, not a failure)" if disabled_log else ""),
                actual=observed, expected="acpi-cpufreq + performance, or amd-pstate",
                evidence=disabled_log[:2],
            )
        if release and release < (6, 13):
            return not_an_issue(
                f"{observed}: Zen 5 on a kernel before 6.13 uses acpi-cpufreq by default (a capability gap, see "
                "KVER-AMD-ZEN5); with the performance governor it runs fine",
                actual=observed, expected="acpi-cpufreq + performance, or amd-pstate",
            )
        return ok(f"{observed}: acpi-cpufreq with a fast governor; amd-pstate would add CPPC/EPP control "
                  "(check BIOS CPPC = Enabled)", actual=observed)
    if not cpufreq.present:
        return unknown(f"{observed}: no cpufreq driver (VM, container view, or CPPC/P-states off in BIOS)",
                       hint="check BIOS 'CPPC = Enabled' and dmesg | grep -i amd_pstate")
    return ok(observed, actual=observed)


# --- KERN-CSTATES ----------------------------------------------------------------------------

LATENCY_TUNED_PROFILES = ("latency-performance", "accelerator-performance", "network-latency",
                          "realtime", "cpu-partitioning", "hpc-compute")


def _max_cstate_forms(driver: str | None, tool: str) -> tuple[Persist, ...]:
    """The kernel-command-line C-state limit of the cpuidle driver in use, in the host's form: `intel_idle.max_cstate`
    only binds intel_idle; acpi_idle (AMD, or Intel with intel_idle off) obeys `processor.max_cstate`."""
    key = "intel_idle.max_cstate" if driver == "intel_idle" else "processor.max_cstate"
    return cmdline_forms(f"{key}=1", tool)


@register_check(
    "KERN-CSTATES",
    title="Deep CPU idle states raise wake-up latency",
    severity="low",
    confidence="unproven",
    fix=Fix.of(step("Disable idle states with exit latency >= 100 µs (re-enables the shallower ones)",
                       "cpupower idle-set -D 100", changes="the enabled cpuidle states", revert=["cpupower idle-set -E"],
                       keep=(keep_cmd(cmd("tuned-adm profile latency-performance"), label="tuned",
                                      text="or accelerator-performance"),
                             keep_text("'Global C-state Control' / 'Package C-state limit' (C0/C1)", label="BIOS"),
                             *_max_cstate_forms("intel_idle", ""))),
                  note="or hold /dev/cpu_dma_latency open with a low value"),
    references=("https://docs.kernel.org/admin-guide/pm/cpuidle.html",
                "https://docs.kernel.org/power/pm_qos_interface.html",
                "https://github.com/NVIDIA/nccl/issues/182"),
)
def cstates(cpuidle: CpuIdle, cmdline: KernelCmdline | None = None,
            virtualization: Virtualization | None = None, cmdline_tool: CmdlineTool | None = None) -> Outcome:
    """Reads: /sys/devices/system/cpu/cpu0/cpuidle/state*/{name,latency,disable} (or `cpupower
    idle-info`), /sys/module/intel_idle/parameters/max_cstate, cmdline intel_idle.max_cstate=,
    processor.max_cstate=, idle=; the PM QoS limit (/dev/cpu_dma_latency, root) and
    /etc/tuned/active_profile.

    Bad value: enabled idle states with exit latency >= ~100 µs (Intel C6/C10, deep package
    states) and no PM QoS limit keeping cpuidle out of them.

    Why: exit latency is added to the next wake-up, and the engine's threads sleep and wake on
    every step (ZMQ, CUDA sync). NCCL developers advised disabling C-states for EPYC hangs/perf.
    No published LLM-serving measurement: unproven, ranked low.

    Traps: C1/C1E are fine. Deep states listed as enabled while a PM QoS request (tuned
    latency-performance) caps latency are not used: not an issue. Disabling all idle states
    raises power and can reduce boost headroom. `cpupower idle-set -D N` disables states with
    latency >= N µs; `intel_idle.max_cstate=` needs a reboot.
    """
    if is_vm(virtualization):
        return not_applicable("a VM: host C-states are the hypervisor's")
    if cmdline is not None and (cmdline.last("idle") in ("poll", "halt")):
        return ok(f"idle={cmdline.last('idle')} on the command line: no deep C-states (note: this raises power "
                  "and can reduce boost headroom)", actual=f"idle={cmdline.last('idle')}")
    if not cpuidle.states:
        if cpuidle.driver in (None, "none", ""):
            return unknown("no cpuidle states for CPU 0 (no cpuidle driver visible)",
                           hint="cpupower idle-info on the host")
        return ok(f"cpuidle driver {cpuidle.driver} lists no states for CPU 0", actual="no idle states")
    enabled = cpuidle.enabled()
    listing = ", ".join(f"{s.name} {s.latency_us}µs{'' if not s.disabled else ' (disabled)'}" for s in cpuidle.states)
    observed = f"CPU 0 idle states ({cpuidle.driver or 'unknown driver'}): {listing}"
    deep = [s for s in enabled if s.latency_us is not None and s.latency_us >= DEEP_IDLE_US]
    limits = []
    for key in ("intel_idle.max_cstate", "processor.max_cstate"):
        value = cmdline.last(key) if cmdline is not None else None
        if value is not None:
            limits.append(f"{key}={value}")
    if not deep:
        shallow_max = max((s.latency_us or 0 for s in enabled), default=0)
        return ok(f"{observed}: no enabled state with exit latency >= {DEEP_IDLE_US} µs (max {shallow_max} µs)"
                  + (f"; {', '.join(limits)}" if limits else ""), actual=observed)
    worst = max(s.latency_us or 0 for s in deep)
    first = min(s.latency_us or 0 for s in deep)
    if cpuidle.pm_qos_constrained and cpuidle.pm_qos_limit_us is not None and cpuidle.pm_qos_limit_us < first:
        return not_an_issue(
            f"{observed}: deep states are enabled but a PM QoS request limits CPU latency to "
            f"{cpuidle.pm_qos_limit_us} µs, so cpuidle does not enter them"
            + (f" (tuned profile {cpuidle.tuned_profile})" if cpuidle.tuned_profile else ""),
            actual=observed, expected=f"no state >= {DEEP_IDLE_US} µs in use",
        )
    if cpuidle.pm_qos_limit_us is None and cpuidle.tuned_profile in LATENCY_TUNED_PROFILES:
        return not_an_issue(
            f"{observed}: tuned profile {cpuidle.tuned_profile} holds a low PM QoS latency request "
            "(force_latency), so the deep states are not entered (the PM QoS value itself needs root to read)",
            actual=observed, expected=f"no state >= {DEEP_IDLE_US} µs in use",
        )
    qos_note = ("" if cpuidle.pm_qos_limit_us is not None
                else "; the PM QoS limit was not readable (run as root to confirm no latency request holds them off)")
    names = ", ".join(s.name for s in deep)
    return issue(
        f"{len(deep)} deep idle state(s) enabled ({names}, exit latency up to {worst} µs) and no PM QoS limit: "
        f"{observed}{qos_note}. Each wake-up of the engine's threads can pay this latency; the effect on LLM serving is "
        "unproven (no published measurement), and disabling all states can reduce boost headroom",
        actual=observed,
        expected=f"no enabled state >= {DEEP_IDLE_US} µs, or a PM QoS limit",
        subjects=[s.name for s in deep],
        fix=Fix.of(step(f"Disable idle states with exit latency >= {first} µs", f"cpupower idle-set -D {first}",
                       changes="the enabled cpuidle states", revert=["cpupower idle-set -E"],
                       keep=(keep_cmd(cmd("tuned-adm profile latency-performance"), label="tuned",
                                      text="or accelerator-performance"),
                             keep_text("the C-state limit", label="BIOS"),
                             *_max_cstate_forms(cpuidle.driver, tool_of(cmdline_tool))))),
    )


# --- KERN-NUMA-BALANCING ---------------------------------------------------------------------


@register_check(
    "KERN-NUMA-BALANCING",
    title="Automatic NUMA balancing on",
    severity="low",
    confidence="documented",
    fix=Fix.of(step("Turn off automatic NUMA balancing", "sysctl -w kernel.numa_balancing=0",
                       changes="kernel.numa_balancing", revert=["sysctl -w kernel.numa_balancing=1"],
                       keep=keep_line("kernel.numa_balancing = 0", "/etc/sysctl.d/90-llm-serving.conf"))),
    references=("https://docs.kernel.org/admin-guide/sysctl/kernel.html#numa-balancing",),
)
def numa_balancing(numa: NumaTopology, sysctls: Sysctls | None = None, vmstat: VmStat | None = None,
                   serving_processes: ServingProcesses | None = None) -> Outcome:
    """Reads: /proc/sys/kernel/numa_balancing (0 off, 1 on, 2 memory tiering, 3 both), NUMA nodes
    (/sys/devices/system/node), /proc/vmstat numa_hint_faults / numa_pages_migrated, and the
    engine processes' Cpus_allowed_list.

    Bad value: non-zero on a host with more than one NUMA node; worse (medium) when the engine
    processes are bound to one node, where the kernel docs say it should be disabled.

    Why: the feature periodically unmaps pages and traps the faults, an overhead that hits the
    CPU-bound scheduler loop. Impact on vLLM/SGLang unmeasured.

    Traps: on single-node machines the value is irrelevant (not an issue), so one node decides
    without the sysctl. CUDA pinned pages are not migrated anyway.
    """
    key = "kernel.numa_balancing"
    nodes = numa.count
    value = sysctls.get(key) if sysctls is not None else None
    if value is None and sysctls is not None and key in sysctls.absent:
        return ok("kernel.numa_balancing does not exist: the kernel has no automatic NUMA balancing",
                  actual="absent")
    if value is None and nodes <= 1:
        return not_an_issue("one NUMA node: automatic NUMA balancing has nothing to migrate, whatever "
                            "kernel.numa_balancing says", expected="0 on multi-node hosts")
    if value is None:
        return unknown(f"{nodes} NUMA nodes, but kernel.numa_balancing is not in this source",
                       hint="cat /proc/sys/kernel/numa_balancing")
    if value.strip() == "0":
        if nodes <= 1:
            return not_applicable("one NUMA node; kernel.numa_balancing = 0")
        return ok(f"kernel.numa_balancing = 0 on {nodes} NUMA nodes", actual="0", expected="0")
    if nodes <= 1:
        return not_an_issue(
            f"kernel.numa_balancing = {value} on a single-node machine: there is nothing to balance, the value "
            "is irrelevant", actual=value, expected="0 on multi-node hosts",
        )
    faults = ""
    if vmstat is not None and vmstat.get("numa_hint_faults") is not None:
        faults = (f"; since boot: {vmstat.get('numa_hint_faults')} hinting faults, "
                  f"{vmstat.get('numa_pages_migrated') or 0} pages migrated")
    bound = []
    for proc in engine_processes(serving_processes):
        cpus = proc.cpus_allowed
        if cpus:
            proc_nodes = numa.nodes_of(cpus)
            if len(proc_nodes) == 1:
                bound.append(f"{proc.pid} ({proc.comm}) on node {proc_nodes.pop()}")
    severity: Severity = "medium" if bound else "low"
    return issue(
        f"kernel.numa_balancing = {value} on {nodes} NUMA nodes{faults}: page unmapping and hinting faults add "
        "overhead to the engine's CPU loop"
        + (f"; engine processes are bound to one node ({'; '.join(bound[:4])}), where the kernel docs say to "
           "disable it" if bound else "")
        + ". The impact on serving is unquantified",
        actual=value, expected="0", subjects=[key], severity=severity,
        evidence=[f"/proc/sys/kernel/numa_balancing: {value}"],
    )


# --- KERN-THP --------------------------------------------------------------------------------


@register_check(
    "KERN-THP",
    title="Transparent huge pages: synchronous compaction stalls",
    severity="low",
    confidence="documented",
    fix=Fix.of(step("Make THP defrag defer to khugepaged (or madvise)",
                       sh("echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag"),
                       changes="/sys/kernel/mm/transparent_hugepage/defrag",
                       keep=(keep_line("w /sys/kernel/mm/transparent_hugepage/defrag - - - - defer+madvise",
                                       "/etc/tmpfiles.d/thp-defrag.conf"),
                             keep_text("or a systemd oneshot unit"))),
                  note="`transparent_hugepage=` on the command line sets `enabled`, not `defrag`"),
    references=("https://docs.kernel.org/admin-guide/mm/transhuge.html",),
)
def thp(thp: ThpSettings, vmstat: VmStat | None = None) -> Outcome:
    """Reads: /sys/kernel/mm/transparent_hugepage/{enabled,defrag} (the bracketed value) and
    /proc/vmstat compact_stall, thp_fault_alloc.

    Bad value: defrag = always together with compaction stalls (compact_stall rising during
    serving): page faults stall in synchronous reclaim/compaction.

    Why: with defrag=always, THP allocations stall for direct compaction (kernel THP doc).
    Weights and KV cache live in GPU memory; host-side THP matters little.

    Traps: "disable THP on AI servers" is database-tuning folklore, unproven for GPU inference:
    enabled=always or madvise with a non-`always` defrag is not an issue. One reading shows
    stalls since boot, not whether they are rising: sample again during serving. With defrag
    not in the source the answer is unknown.
    """
    if thp.enabled == "unsupported":
        return not_applicable("the kernel has no transparent huge page support")
    observed = f"enabled={thp.enabled}, defrag={thp.defrag or 'unknown'}"
    stalls = vmstat.get("compact_stall") if vmstat is not None else None
    if thp.defrag is None and thp.enabled != "never":
        # The bad value is defrag=always: without it the answer is unknown, never ok (docs/design.md, "Status rules").
        return unknown(f"{observed}: transparent_hugepage/defrag is not in this source",
                       hint="cat /sys/kernel/mm/transparent_hugepage/defrag")
    if thp.defrag == "always":
        if stalls is None:
            return unknown(f"{observed}: compaction stalls (/proc/vmstat compact_stall) are not in this source",
                           hint="grep compact_stall /proc/vmstat during serving")
        if stalls > 0:
            rate = vmstat.per_hour("compact_stall") if vmstat is not None else None
            return issue(
                f"{observed}, {stalls} synchronous compaction stalls since boot"
                + (f" (~{rate:.1f}/h)" if rate is not None else "")
                + ": page faults can stall in direct compaction. One reading cannot show they are rising: "
                "compare compact_stall twice during serving",
                # The configuration only: the stall counter grows by itself (it is in the message and evidence),
                # so two audits of an unchanged host compare equal.
                actual=observed,
                expected="defrag madvise or defer+madvise",
                subjects=["transparent_hugepage/defrag"],
                evidence=[f"/sys/kernel/mm/transparent_hugepage/defrag: {thp.defrag_raw}",
                          f"/proc/vmstat: compact_stall {stalls}"],
            )
        return ok(f"{observed}, no compaction stall since boot", actual=observed)
    if thp.enabled == "always":
        return not_an_issue(
            f"{observed}: THP always on looks like a problem to database-tuning guides, but 'disable THP on AI "
            "servers' is unproven for GPU inference (weights and KV cache live in GPU memory); only defrag=always "
            "stalls are a plausible host-side cost",
            actual=observed, expected="defrag not 'always'",
        )
    note = " ('disable THP' for GPU inference is unproven; harmless)" if thp.enabled == "never" else ""
    return ok(observed + note, actual=observed)


# --- KERN-SWAP -------------------------------------------------------------------------------


def _kib(text: str | None) -> int:
    if not text:
        return 0
    parts = text.split()
    return int(parts[0]) if parts and parts[0].isdecimal() else 0


@register_check(
    "KERN-SWAP",
    title="Serving processes swapped out",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Free memory, then lower swappiness (`swapoff -a` too, if RAM allows)",
                       "sysctl -w vm.swappiness=10", changes="vm.swappiness",
                       keep=keep_line("vm.swappiness = 10", "/etc/sysctl.d/90-llm-serving.conf", text="or 1")),
                  note="size RAM for model loading + CPU KV offload"),
    sample=True,
)
def swap(swap: SwapInfo, serving_processes: ServingProcesses | None = None,
         sysctls: Sysctls | None = None) -> Outcome:
    """Reads: /proc/swaps and /proc/meminfo SwapTotal/SwapFree (pasted: the swap line of top's or free's summary,
    `MiB Swap: 0.0 total, 0.0 free, 0.0 used.`, free -h's `Swap:` row); VmSwap of every serving process
    (/proc/<pid>/status); /proc/sys/vm/swappiness.

    Bad value: VmSwap > 0 for an API server, engine or worker process.

    Why: a swapped-out page of the Python engine costs milliseconds to bring back, stalling the
    step loop.

    Traps: swappiness=60 with nothing of the engine swapped is harmless (not an issue). Applies
    only to hosts with swap. free's `Swap:` row without its unit (free -g truncates to whole GiB: its 0 is under
    1 GiB, not none) and top's `GiB Swap: 0.0 total` do not show swap off.
    """
    swappiness = sysctls.get("vm.swappiness") if sysctls is not None else None
    if not swap.enabled:
        return not_applicable("no swap configured")
    dev = ", ".join(f"{d.name} ({d.used_kib} of {d.size_kib} KiB used)" for d in swap.devices[:4])
    observed = f"swap on: {dev or f'{swap.total_kib} KiB'}" + (f", vm.swappiness={swappiness}" if swappiness else "")
    procs = engine_processes(serving_processes)
    if not procs:
        why = ("no serving process found" if serving_processes is not None
               else "the serving processes could not be read")
        return unknown(f"{observed}; {why}, so VmSwap of the engine cannot be checked",
                       hint="run the audit while vLLM/SGLang/TensorRT-LLM serves")
    swapped = [(p, _kib(p.status.get("VmSwap"))) for p in procs]
    bad = [(p, k) for p, k in swapped if k > 0]
    if bad:
        listed = "; ".join(f"pid {p.pid} {p.role or p.comm} VmSwap {k} kB" for p, k in bad[:6])
        return issue(
            f"serving processes have pages in swap ({listed}): {observed}. Touching them costs milliseconds each, "
            "stalling the engine's step loop",
            actual=listed, expected="VmSwap 0 kB for every serving process",
            subjects=[str(p.pid) for p, _ in bad],
            evidence=[f"/proc/{p.pid}/status: VmSwap: {k} kB" for p, k in bad[:6]],
        )
    if swappiness is not None and swappiness.isdecimal() and int(swappiness) >= 60:
        return not_an_issue(
            f"{observed}; no serving process has swapped pages ({len(procs)} checked): swappiness {swappiness} "
            "with nothing of the engine swapped is harmless",
            actual="VmSwap 0 kB", expected="VmSwap 0 kB",
        )
    return ok(f"{observed}; no serving process has swapped pages ({len(procs)} checked)", actual="VmSwap 0 kB")


# --- KERN-IRQ-AFFINITY -----------------------------------------------------------------------


@register_check(
    "KERN-IRQ-AFFINITY",
    title="irqbalance / NIC interrupt placement",
    severity="low",
    confidence="unproven",
    fix=Fix.of(step("Pin NIC queue IRQs to NIC-local cores away from the engine (set_irq_affinity scripts), or keep "
                       "irqbalance off the engine's cores", changes="IRQ affinity",
                       keep=keep_line("IRQBALANCE_BANNED_CPULIST=<engine cores>", "/etc/default/irqbalance",
                                      text="/etc/sysconfig/irqbalance on RHEL"))),
)
def irq_affinity(irqs: IrqInfo, numa: NumaTopology | None = None,
                 serving_processes: ServingProcesses | None = None,
                 cpu_isolation: CpuIsolation | None = None) -> Outcome:
    """Reads: /proc/interrupts (NIC queue IRQs: mlx5/mlx4 with their PCI function, Intel/Broadcom
    `-TxRx-` queues), /proc/irq/<n>/effective_affinity_list, `systemctl is-active irqbalance`,
    the NIC's NUMA node (sysfs), the engine processes' Cpus_allowed_list.

    Bad value: the NIC's queue IRQs all on the remote NUMA node of the NIC, or all on the CPUs the
    engine's busy threads run on.

    Why: general network-tuning practice for high-rate NICs (RDMA, heavy HTTP). GPU interrupts are
    few because CUDA synchronisation spins/polls by default. Unproven for LLM serving.

    Traps: "disable irqbalance for GPU inference" is not supported by evidence; with GPU-only
    traffic leave it (not an issue). Applies with high-rate NICs or isolated CPU sets.
    """
    nic = [q for q in irqs.nic_irqs if q.total > 0] or list(irqs.nic_irqs)
    isolated = bool(cpu_isolation and cpu_isolation.isolated)
    balance = {"active": "irqbalance active", "inactive": "irqbalance not running", None: "irqbalance state unknown"}
    if not nic:
        if irqs.irqbalance == "inactive":
            return not_an_issue(
                f"{balance[irqs.irqbalance]} and no high-rate NIC queue interrupts: 'disable irqbalance for GPU "
                "inference' is not supported by evidence either way; GPU interrupts are few (CUDA polls)",
                actual=balance[irqs.irqbalance],
            )
        if not isolated:
            return not_applicable(f"no NIC queue interrupts found ({balance[irqs.irqbalance]}); GPU interrupts are "
                                  "few because CUDA polls")
    problems: list[str] = []
    # NIC IRQs on the remote NUMA node of their NIC.
    if numa is not None and irqs.nic_nodes and numa.count > 1:
        node_of_bdf = irqs.nic_nodes
        by_bdf: dict[str, list[int]] = {}
        for q in nic:
            if q.bdf and q.affinity:
                by_bdf.setdefault(q.bdf, []).extend(q.affinity)
        for bdf, cpus in sorted(by_bdf.items()):
            nic_node = node_of_bdf.get(bdf)
            if nic_node is None or nic_node < 0:
                continue
            irq_nodes = numa.nodes_of(cpus)
            if irq_nodes and nic_node not in irq_nodes:
                problems.append(f"NIC {bdf} is on node {nic_node} but all its queue IRQs go to node(s) "
                                f"{', '.join(str(n) for n in sorted(irq_nodes))}")
    # NIC IRQs all on the engine's CPUs.
    engine_cpus: set[int] = set()
    for proc in engine_processes(serving_processes):
        allowed = proc.cpus_allowed
        if allowed and (irqs.cpus is None or len(allowed) < irqs.cpus):
            engine_cpus.update(allowed)
    irq_cpus = {c for q in nic if q.affinity for c in q.affinity}
    if engine_cpus and irq_cpus and irq_cpus <= engine_cpus:
        problems.append(f"all {len(nic)} NIC queue IRQs target CPUs {format_cpulist(sorted(irq_cpus))}, which are "
                        "the engine processes' pinned CPUs")
    observed = f"{len(nic)} NIC queue IRQs, {balance[irqs.irqbalance]}"
    if problems:
        return issue(
            f"{observed}: {'; '.join(problems)}. Interrupt work then competes with the engine or crosses the "
            "socket; the effect on serving is unproven",
            actual="; ".join(problems), expected="NIC IRQs on NIC-local cores not used by the engine",
            subjects=sorted({q.bdf for q in nic if q.bdf}),
        )
    if not any(q.affinity for q in nic):
        return unknown(f"{observed}: the IRQ affinities are not in this source",
                       hint="cat /proc/irq/<n>/effective_affinity_list")
    return ok(f"{observed}: placement is NIC-local and off the engine's pinned CPUs as far as visible",
              actual=observed)


# --- KERN-ISOLCPUS ---------------------------------------------------------------------------


@register_check(
    "KERN-ISOLCPUS",
    title="isolcpus/nohz_full trap: engine confined or unbalanced",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Start the engine pinned explicitly (taskset -c / numactl --physcpubind / a cgroup cpuset), one "
                       "busy thread per isolated CPU", cost="restart",
                       keep=(keep_line("CPUAffinity=<isolated cores>", "the engine's systemd unit"),
                             keep_text("or remove isolcpus=/nohz_full= from the kernel command line (reboot)")))),
    references=("https://docs.kernel.org/admin-guide/kernel-parameters.html",),
)
def isolcpus(cpu_isolation: CpuIsolation, cmdline: KernelCmdline | None = None,
             serving_processes: ServingProcesses | None = None) -> Outcome:
    """Reads: cmdline isolcpus= / nohz_full= / rcu_nocbs=; /sys/devices/system/cpu/{isolated,
    nohz_full}; Cpus_allowed_list of every serving process (/proc/<pid>/status).

    Bad value: engine processes confined to a few housekeeping CPUs while more CPUs sit isolated;
    or an engine process allowed several isolated CPUs without explicit pinning (isolated CPUs
    are not load-balanced: all its threads stay on one core).

    Why: isolated CPUs are removed from scheduler load balancing (kernel-parameters: isolcpus),
    so unpinned multi-threaded processes do not spread onto them.

    Traps: deliberate isolation with explicit pinning (each engine process on its own isolated
    CPU) is fine: not an issue. nohz_full alone does not remove CPUs from load balancing.
    """
    params = {}
    if cmdline is not None:
        for key in ("isolcpus", "nohz_full", "rcu_nocbs"):
            if cmdline.has(key):
                params[key] = cmdline.last(key) or ""
    isolated = set(cpu_isolation.isolated or ())
    if not params and not isolated and not cpu_isolation.nohz_full:
        if cmdline is None and cpu_isolation.isolated is None:
            return unknown("neither the kernel command line nor /sys/devices/system/cpu/isolated is in this source")
        return not_applicable("no isolcpus=, nohz_full= or rcu_nocbs= on the kernel command line")
    shown = ", ".join(f"{k}={v}" for k, v in params.items()) or "CPU isolation"
    observed = (f"{shown}; isolated (no load balancing): {format_cpulist(sorted(isolated)) or 'none'}"
                + (f"; nohz_full: {format_cpulist(cpu_isolation.nohz_full)}" if cpu_isolation.nohz_full else ""))
    if not isolated:
        return ok(f"{observed}: no CPU is removed from load balancing (nohz_full/rcu_nocbs only)", actual=observed)
    online = set(cpu_isolation.online or ())
    housekeeping = online - isolated if online else set()
    procs = engine_processes(serving_processes)
    if not procs:
        return unknown(f"{observed}; no serving process found to check its CPU placement",
                       hint="run the audit while the engine serves")
    problems: list[str] = []
    pinned_ok = 0
    for proc in procs:
        cpus = proc.cpus_allowed
        if not cpus:
            continue
        allowed = set(cpus)
        on_iso = allowed & isolated
        on_hk = allowed - isolated
        label = f"pid {proc.pid} ({proc.role or proc.comm})"
        if on_hk:
            if len(on_hk) < len(isolated):
                problems.append(f"{label} runs on {len(on_hk)} housekeeping CPU(s) "
                                f"{format_cpulist(sorted(on_hk))} while {len(isolated)} isolated CPUs are outside "
                                "load balancing")
        elif len(on_iso) > 1:
            problems.append(f"{label} is allowed {len(on_iso)} isolated CPUs {format_cpulist(sorted(on_iso))}, which "
                            "are not load-balanced: its threads stay on one core")
        else:
            pinned_ok += 1
    if problems:
        return issue(f"{observed}: " + "; ".join(problems[:4]),
                     actual="; ".join(problems[:4]),
                     expected="engine processes pinned explicitly, one busy thread per isolated CPU",
                     subjects=[p for p in params] or ["isolated"],
                     evidence=[f"/sys/devices/system/cpu/isolated: {format_cpulist(sorted(isolated))}"])
    if pinned_ok:
        return not_an_issue(f"{observed}: deliberate isolation with explicit pinning ({pinned_ok} engine process(es) "
                            "each on its own isolated CPU) is fine", actual=observed)
    hk = f"{len(housekeeping)} housekeeping CPUs" if housekeeping else "housekeeping CPUs"
    return ok(f"{observed}: the engine processes have enough CPUs ({hk})", actual=observed)


# --- KERN-WATCHDOG ---------------------------------------------------------------------------


# The kernel's lockup detector reporting a stall (kernel/watchdog.c: `BUG: soft lockup - CPU#%d stuck for %us!`, printed
# after the `watchdog: ` prefix, `NMI watchdog: ` before Linux 4.15; kernel/watchdog_perf.c: `Watchdog detected hard
# LOCKUP on cpu %d`): the detector is on where it prints them.
WATCHDOG_REPORTS = r"\bBUG: soft lockup - CPU#\d+ stuck for \d+s!|\bWatchdog detected hard LOCKUP on cpu \d+"


@register_check(
    "KERN-WATCHDOG",
    title="NMI/soft-lockup watchdog (info)",
    severity="low",
    confidence="unproven",
    fix=Fix.of(step("Turn off the NMI watchdog (only if a tool needs the perf counter)",
                       "sysctl -w kernel.nmi_watchdog=0", changes="kernel.nmi_watchdog",
                       revert=["sysctl -w kernel.nmi_watchdog=1"],
                       keep=keep_line("kernel.nmi_watchdog = 0", "/etc/sysctl.d/90-llm-serving.conf"))),
)
def watchdog(sysctls: Sysctls | None = None, kernel_log: KernelLog | None = None) -> Outcome:
    """Reads: /proc/sys/kernel/nmi_watchdog and /proc/sys/kernel/watchdog; the kernel log's lockup reports
    (WATCHDOG_REPORTS).

    Bad value: none for performance: reported as information.

    Why: the NMI watchdog uses a perf counter and periodic NMIs; the cost is negligible for this
    workload (unproven either way).

    Traps: disabling it loses hang detection; do not recommend it for speed.
    A lockup the watchdog reports in the kernel log (`watchdog: BUG: soft lockup - CPU#20 stuck for 23s!
    [tritonserver:77999]`) shows it on and doing its work: not an issue for this check, whatever else is shown; the
    report names a stall that something else caused, and turning the watchdog off would hide it, not end it.
    """
    fired = kernel_log.grep(WATCHDOG_REPORTS, re.IGNORECASE, needles=("lockup",)) if kernel_log is not None else []
    if fired:
        line = fired[0].strip()
        return not_an_issue(f"the lockup watchdog is on and reporting a stall (\"{line[-160:]}\"): it names a CPU stuck in "
                            "the kernel, which something else caused, and costs the serving nothing; keep it on",
                            actual="reporting", evidence=[line])
    if sysctls is None:
        return unknown("", needs="sysctls")
    values = {k: sysctls.get(k) for k in ("kernel.nmi_watchdog", "kernel.watchdog")}
    known = {k: v for k, v in values.items() if v is not None}
    if not known:
        if all(k in sysctls.absent for k in values):
            return ok("no watchdog sysctls: the kernel has no lockup detector", actual="absent")
        return unknown("kernel.nmi_watchdog / kernel.watchdog are not in this source",
                       hint="cat /proc/sys/kernel/nmi_watchdog /proc/sys/kernel/watchdog")
    shown = ", ".join(f"{k} = {v}" for k, v in known.items())
    return ok(f"{shown}: information only; the watchdog's cost is negligible for serving (any effect is unproven), "
              "and disabling it loses hang detection", actual=shown)


# --- KERN-MITIGATIONS ------------------------------------------------------------------------


@register_check(
    "KERN-MITIGATIONS",
    title="CPU vulnerability mitigations (info, security trade-off)",
    severity="low",
    confidence="unproven",
    fix=Fix.of(step("Only on single-tenant trusted hosts: turn CPU mitigations off on the kernel command line, "
                       "then reboot", cost="reboot", changes="the kernel command line",
                       keep=cmdline_forms("mitigations=off"))),
)
def mitigations(vulnerabilities: Vulnerabilities | None = None, cmdline: KernelCmdline | None = None,
                cpu: CpuInfo | None = None, virtualization: Virtualization | None = None) -> Outcome:
    """Reads: /sys/devices/system/cpu/vulnerabilities/* (or lscpu's "Vulnerability" lines), cmdline
    `mitigations=`, and the CPU flags (/proc/cpuinfo or lscpu's Flags) for `pti`.

    Bad value: none by default: mitigations are a security decision; reported as information.

    Why: some mitigations (retpoline/IBRS and others) add cost to syscalls and context switches,
    and the serving loop uses ZMQ, sockets and futexes. No published vLLM/SGLang number.

    Traps: do not recommend mitigations=off by default; only single-tenant trusted hosts.
    Only the `pti` flag shows a mitigation in force (page-table isolation, CpuInfo.page_table_isolation); the
    microcode flags (ibrs, ibpb, stibp, ssbd, md_clear) show what the CPU can do; a flags line without `pti` says
    nothing. In a virtual machine (the virtualization fact: lscpu's `hypervisor` flag, DMI) mitigations in force are
    not an issue: the guest shares its host's CPUs with other tenants, not the single-tenant trusted host the fix is
    for (corpus 2477).
    """
    entries: tuple[tuple[str, str], ...] = ()
    source = "/sys/devices/system/cpu/vulnerabilities"
    if vulnerabilities is not None and vulnerabilities.entries:
        entries = vulnerabilities.entries
    elif cpu is not None and cpu.vulnerabilities:
        entries, source = cpu.vulnerabilities, "lscpu"
    flag = cmdline.last("mitigations") if cmdline is not None else None
    if not entries and flag is None and cpu is not None and cpu.page_table_isolation:
        shown = "CPU flag pti"
        if is_vm(virtualization):
            return _guest_mitigations(shown)
        return ok(f"{shown}: the kernel runs page-table isolation, its Meltdown mitigation; information only: "
                  "mitigations add some syscall/context-switch cost (unproven for LLM serving) and turning them off "
                  "is a security decision", actual=shown)
    if not entries and flag is None:
        return unknown("CPU vulnerability state is not in this source",
                       hint="grep . /sys/devices/system/cpu/vulnerabilities/*")
    mitigated = [n for n, t in entries if t.startswith("Mitigation")]
    vulnerable = [n for n, t in entries if t.startswith("Vulnerable")]
    parts = []
    if flag is not None:
        parts.append(f"cmdline mitigations={flag}")
    if entries:
        parts.append(f"{len(mitigated)} mitigated, {len(vulnerable)} vulnerable of {len(entries)} ({source})")
    shown = "; ".join(parts)
    if flag == "off":
        return ok(f"{shown}: mitigations are off, a security trade-off acceptable only on single-tenant trusted "
                  "hosts", actual=shown)
    if is_vm(virtualization) and mitigated:
        return _guest_mitigations(shown)
    return ok(f"{shown}: information only; mitigations add some syscall/context-switch cost (unproven for LLM "
              "serving: no published number) and turning them off is a security decision", actual=shown)


def _guest_mitigations(shown: str) -> Outcome:
    """KERN-MITIGATIONS in a virtual machine whose kernel keeps its mitigations: a shared host's guest, not an issue."""
    return not_an_issue(f"{shown} in a virtual machine: the guest kernel keeps its CPU mitigations, as a guest sharing "
                        "its host's CPUs with other tenants should; turning them off is not a choice for it",
                        actual=shown)


# --- KERN-SCHED-KNOBS ------------------------------------------------------------------------

PSI_CONTENDED = 10.0


@register_check(
    "KERN-SCHED-KNOBS",
    title="Stale scheduler tunables and CPU contention",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Move batch jobs off the serving cores; give the engine a larger CPU weight",
                        "systemctl set-property <batch unit> CPUWeight=<weight>", changes="cgroup CPU weights",
                        keep=keep_text("drop obsolete kernel.sched_* lines from /etc/sysctl.d (they moved to "
                                       "/sys/kernel/debug/sched in Linux 5.13)"))),
    references=("https://github.com/vllm-project/vllm-project.github.io/pull/300",
                "https://tangled.org/tjh.dev/kernel/commit/3624ba7b5e2acc02b01301ea5fd3534971eb9896"),
    # Its observed value leads with CPU pressure (PSI), a sample: bench compare lists it apart.
    sample=True,
)
def sched_knobs(sched: SchedState, kernel: KernelInfo | None = None,
                serving_processes: ServingProcesses | None = None) -> Outcome:
    """Reads: /proc/pressure/cpu (PSI `some avg10`), /proc/sys/kernel/sched_*, /etc/sysctl.conf and
    sysctl.d files, /etc/tuned/active_profile.

    Bad value: CPU PSI `some avg10` above ~10 % during serving; config lines writing
    kernel.sched_min_granularity_ns / sched_migration_cost_ns (and the other knobs moved to
    debugfs in Linux 5.13, commit 8a99b6833c88), which then fail silently.

    Why: CPU contention delays the engine loop (vLLM community post on CPU pressure).

    Traps: EEVDF (6.6+) defaults are fine for this workload; there is no evidence for specific
    knob values, so only contention and dead config lines are reported. Pressure read while no
    engine runs says little about serving.
    """
    problems: list[str] = []
    evidence: list[str] = []
    severity: Severity = "low"
    if sched.psi_some_avg10 is not None and sched.psi_some_avg10 > PSI_CONTENDED:
        serving = serving_processes is not None and serving_processes.found
        problems.append(f"CPU pressure some avg10 = {sched.psi_some_avg10:.1f} % (tasks waiting for a CPU)"
                        + ("" if serving else " (no serving process running: sample during serving)"))
        evidence.append(f"/proc/pressure/cpu: some avg10={sched.psi_some_avg10:.2f}")
        # Pressure while no engine runs says little about serving: reported, ranked low.
        severity = "medium" if serving else "low"
    if sched.stale_config:
        moved = (kernel is not None and kernel.release_tuple >= (5, 13)) or (
            sched.kernel_sched_knobs is not None
            and not any(k.partition(".")[2] in sched.kernel_sched_knobs for _, _, k in sched.stale_config))
        if moved:
            keys = sorted({k for _, _, k in sched.stale_config})
            problems.append(f"sysctl config sets {', '.join(keys)}, which moved to /sys/kernel/debug/sched in Linux "
                            "5.13: these lines fail silently")
            evidence.extend(f"{f}:{n}: {k}" for f, n, k in sched.stale_config[:5])
    if problems:
        return issue("; ".join(problems), actual="; ".join(problems),
                     expected=f"CPU PSI some avg10 <= {PSI_CONTENDED:.0f} %, no obsolete scheduler sysctls",
                     severity=severity, evidence=evidence,
                     subjects=sorted({k for _, _, k in sched.stale_config}) or ["cpu-pressure"])
    parts = []
    if sched.psi_some_avg10 is not None:
        parts.append(f"CPU pressure some avg10 = {sched.psi_some_avg10:.1f} %")
    else:
        parts.append("CPU pressure (PSI) not available")
    parts.append("no obsolete scheduler sysctl lines")
    if sched.tuned_profile:
        parts.append(f"tuned profile {sched.tuned_profile}")
    return ok(", ".join(parts) + " (EEVDF defaults are fine for this workload)", actual=", ".join(parts))
