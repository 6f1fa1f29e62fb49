"""Importers `cpupower frequency-info`, `cpupower idle-info` and `sysctl -a`: pasted text -> facts."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from stackaudit.engine.collect import Collector
from stackaudit.engine.testing import run_checks
from stackaudit.facts import cpufreq as cf
from stackaudit.facts.cpufreq import parse_frequency_info, parse_idle_info, to_khz
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.facts.system import Sysctls
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise

# The corpus of real pastes (each file names its public thread in its header).
CAPTURES = Path(__file__).resolve().parent / "data" / "captures"


def fact_of(host: MemoryHost, name: str) -> Any:
    """A fact as the engine collects it (every alternative: sysfs first, then the pasted command)."""
    load_facts()
    return Collector(host).results([name])[name]


def host_of(text: str) -> tuple[MemoryHost, list[tuple[str, int, int]]]:
    result = recognise(text)
    return MemoryHost(result.record), result.recognised


FREQ_ACPI = """\
Here is what I see on the box, any idea why it is slow?

$ cpupower frequency-info
analyzing CPU 0:
  driver: acpi-cpufreq
  CPUs which run at the same hardware frequency: 0
  CPUs which need to have their frequency coordinated by software: 0
  maximum transition latency:  Cannot determine or is not supported.
  hardware limits: 2.20 GHz - 4.43 GHz
  available frequency steps:  3.60 GHz, 2.80 GHz, 2.20 GHz
  available cpufreq governors: conservative ondemand userspace powersave performance schedutil
  current policy: frequency should be within 2.20 GHz and 3.60 GHz.
                  The governor "ondemand" may decide which speed to use
                  within this range.
  current CPU frequency: Unable to call hardware
  current CPU frequency: 2.20 GHz (asserted by call to kernel)
  boost state support:
    Supported: yes
    Active: no
$ lscpu
Thanks!
"""

FREQ_AMD_EPP = """\
analyzing CPU 12:
  driver: amd-pstate-epp
  CPUs which run at the same hardware frequency: 12
  CPUs which need to have their frequency coordinated by software: 12
  energy performance preference: power
  hardware limits: 408 MHz - 3.36 GHz
  available cpufreq governors: performance powersave
  current policy: frequency should be within 1.51 GHz and 3.36 GHz.
                  The governor "powersave" may decide which speed to use
                  within this range.
  current CPU frequency: 1.98 GHz (asserted by call to kernel)
  boost state support:
    Supported: yes
    Active: yes
    AMD PSTATE Highest Performance: 255. Maximum Frequency: 3.36 GHz.
    AMD PSTATE Lowest Performance: 31. Lowest Frequency: 400 MHz.
"""

IDLE_INFO = """\
root@gpu01:~# cpupower idle-info
CPUidle driver: intel_idle
CPUidle governor: menu
analyzing CPU 0:

Number of idle states: 4
Available idle states: POLL C1 C1E C6
POLL:
Flags/Description: CPUIDLE CORE POLL IDLE
Latency: 0
Residency: 0
Usage: 412385
Duration: 1264772
C1:
Flags/Description: MWAIT 0x00
Latency: 2
Residency: 2
Usage: 8123312
Duration: 2419992014
C1E:
Flags/Description: MWAIT 0x01
Latency: 10
Residency: 20
Usage: 25522
Duration: 52416716
C6 (DISABLED) :
Flags/Description: MWAIT 0x20
Latency: 133
Residency: 600
Usage: 0
Duration: 0

root@gpu01:~# exit
"""

SYSCTL_GREP = """\
[root@node ~]# sysctl -a | grep -E 'numa|swappiness|watchdog'
kernel.numa_balancing = 1
kernel.numa_balancing_promote_rate_limit_MBps = 65536
kernel.nmi_watchdog = 1
kernel.soft_watchdog = 1
kernel.watchdog = 1
kernel.watchdog_cpumask = 0-127
kernel.watchdog_thresh = 10
vm.swappiness = 60
net.ipv4.conf.eth0/100.rp_filter = 1
[root@node ~]#
"""


# --- units and parsers -----------------------------------------------------------------------


def test_to_khz() -> None:
    assert to_khz("1.20 GHz") == 1_200_000
    assert to_khz("800 MHz") == 800_000
    assert to_khz("408 MHz - 3.36 GHz") == 408_000
    assert to_khz("2,20 GHz") == 2_200_000
    assert to_khz("Cannot determine") is None


def test_parse_frequency_info_fields() -> None:
    [cpu] = parse_frequency_info(FREQ_ACPI.splitlines()[3:])
    assert (cpu.cpu, cpu.driver, cpu.governor) == (0, "acpi-cpufreq", "ondemand")
    assert (cpu.hw_min, cpu.hw_max, cpu.pol_min, cpu.pol_max) == (2_200_000, 4_430_000, 2_200_000, 3_600_000)
    assert cpu.cur == 2_200_000 and cpu.boost_supported is True and cpu.boost_active is False


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FREQ_ACPI.splitlines() + IDLE_INFO.splitlines() + ["\ufffd\x00", ""])
                | st.text(max_size=60), max_size=60))
def test_cpupower_parsers_and_recognition_never_crash(lines: list[str]) -> None:
    parse_frequency_info(lines)
    parse_idle_info(lines)
    recognise("\n".join(lines))


# --- frequency-info --------------------------------------------------------------------------


def test_frequency_info_with_chatter_gives_cpufreq_of_cpu0_only() -> None:
    host, recognised = host_of(FREQ_ACPI)
    assert [k for k, _, _ in recognised] == ["cpupower-frequency-info"]
    _, start, end = recognised[0]
    assert FREQ_ACPI.splitlines()[start - 1] == "$ cpupower frequency-info"
    assert FREQ_ACPI.splitlines()[end - 1].strip() == "Active: no"
    fact = fact_of(host, "cpufreq")
    assert fact.driver == "acpi-cpufreq"
    assert fact.scope == "CPU 0"
    assert fact.boost == "0"
    p = fact.policies[0]
    assert (p.governor, p.scaling_max_khz, p.cpuinfo_max_khz) == ("ondemand", 3_600_000, 4_430_000)
    assert not fact.knows(cf.NO_TURBO)  # not in the paste: unknown, not absent


def test_frequency_info_checks_say_cpu0() -> None:
    host, _ = host_of(FREQ_ACPI)
    results = run_checks(host, select=["KERN-CPUFREQ-GOVERNOR", "KERN-CPU-BOOST", "KERN-EPP"])
    gov = results["KERN-CPUFREQ-GOVERNOR"]
    assert gov.status == "issue" and "CPU 0" in gov.message and "all" not in gov.message.split("(")[1]
    assert results["KERN-CPU-BOOST"].status == "issue"
    assert results["KERN-EPP"].status == "not-applicable"


def test_frequency_info_amd_epp_and_several_cpus() -> None:
    text = FREQ_AMD_EPP + FREQ_AMD_EPP.replace("CPU 12", "CPU 13").replace(": 12", ": 13")
    host, recognised = host_of(text)
    assert len(recognised) == 1
    fact = fact_of(host, "cpufreq")
    assert [p.name for p in fact.policies] == ["policy12", "policy13"]
    assert fact.scope == "CPUs 12-13"
    assert fact.epps() == {"power": 2}
    assert fact.boost == "1"
    assert run_checks(host, select=["KERN-EPP"])["KERN-EPP"].status == "issue"


def test_frequency_info_no_driver_is_no_cpufreq() -> None:
    host, recognised = host_of("analyzing CPU 0:\n  no or unknown cpufreq driver is active on this CPU\n"
                               "  CPUs which run at the same hardware frequency: Not Available\n")
    assert recognised
    fact = fact_of(host, "cpufreq")
    assert not fact.present and fact.driver is None


def test_truncated_frequency_info_keeps_what_it_has() -> None:
    host, recognised = host_of("analyzing CPU 0:\n  driver: intel_pstate\n  CPUs which run at the sa")
    assert recognised
    fact = fact_of(host, "cpufreq")
    assert fact.driver == "intel_pstate" and fact.governors() == {}


def test_real_capture_k8s_node_intel_pstate_performance(tmp_path: Path) -> None:
    host = load_pasted([str(CAPTURES / "27-k8s-gpu-node-cpupower-frequency-info.txt")])
    results = run_checks(host, select=["KERN-CPUFREQ-GOVERNOR", "KERN-CPU-BOOST", "KERN-EPP"])
    gov = results["KERN-CPUFREQ-GOVERNOR"]
    # Header: governor performance, intel_pstate active, boost active -> no CPU frequency finding;
    # only CPU 0 is shown, so the result must say "CPU 0".
    assert gov.status == "ok" and "CPU 0" in gov.message and "intel_pstate" in gov.message
    assert results["KERN-CPU-BOOST"].status == "ok"
    assert results["KERN-EPP"].status in ("unknown", "not-applicable")


# --- idle-info -------------------------------------------------------------------------------


def test_idle_info_with_prompts_gives_cpuidle() -> None:
    host, recognised = host_of(IDLE_INFO)
    assert [k for k, _, _ in recognised] == ["cpupower-idle-info"]
    idle = fact_of(host, "cpuidle")
    assert idle.driver == "intel_idle" and idle.governor == "menu"
    assert [(s.name, s.latency_us, s.disabled) for s in idle.states] == [
        ("POLL", 0, False), ("C1", 2, False), ("C1E", 10, False), ("C6", 133, True)]
    assert idle.pm_qos_limit_us is None
    assert run_checks(host, select=["KERN-CSTATES"])["KERN-CSTATES"].status == "ok"


def test_idle_info_deep_state_enabled_raises_cstates() -> None:
    host, _ = host_of(IDLE_INFO.replace("C6 (DISABLED) :", "C6:"))
    r = run_checks(host, select=["KERN-CSTATES"])["KERN-CSTATES"]
    assert r.status == "issue" and "unproven" in r.message and "PM QoS limit was not readable" in r.message


def test_idle_info_silent_and_no_states() -> None:
    host, recognised = host_of("CPUidle driver: none\nCPUidle governor: menu\nanalyzing CPU 0:\n\n"
                               "CPU 0: No idle states\n")
    assert recognised
    assert fact_of(host, "cpuidle").states == ()


# --- sysctl ----------------------------------------------------------------------------------


def sysctls_of(host: MemoryHost) -> Sysctls:
    value = fact_of(host, "sysctls")
    assert isinstance(value, Sysctls), value
    return value


def test_grepped_sysctl_with_prompts() -> None:
    host, recognised = host_of(SYSCTL_GREP)
    assert recognised == [("sysctl", 2, 10)]
    values = sysctls_of(host)
    assert values.get("kernel.numa_balancing") == "1" and values.get("vm.swappiness") == "60"
    # A grep says nothing about the keys it filtered out: unknown, not absent.
    assert "vm.zone_reclaim_mode" in values.unreadable and not values.absent
    # Recorded verbatim as the command's output (a slash in a key stays a slash), no /proc/sys file.
    assert host.run(["sysctl", "-a"]).stdout.splitlines()[-1] == "net.ipv4.conf.eth0/100.rp_filter = 1"
    assert not [p for p in host.record.files if p.startswith("/proc/sys")]


def whole_sysctl() -> str:
    lines = [f"net.ipv4.conf.veth{i}.rp_filter = 2" for i in range(250)]
    lines += ["kernel.numa_balancing = 0", "kernel.printk = 4\t4\t1\t7", "vm.swappiness = 10",
              "fs.file-max = 9223372036854775807", "sysctl: permission denied on key 'kernel.nmi_watchdog'",
              "sysctl: reading key \"net.ipv6.conf.all.stable_secret\""]
    return "\n".join(lines) + "\n"


def test_whole_sysctl_marks_missing_keys_absent_and_denied_unreadable() -> None:
    host, recognised = host_of(whole_sysctl())
    assert len(recognised) == 1
    values = sysctls_of(host)
    assert values.get("kernel.printk") is None  # not a key the checks read
    assert "vm.zone_reclaim_mode" in values.absent
    assert "kernel.nmi_watchdog" in values.unreadable
    r = run_checks(host, select=["KERN-NUMA-BALANCING"])["KERN-NUMA-BALANCING"]
    assert r.status in ("ok", "unknown", "not-applicable")


def test_sysctl_non_utf8_and_noise(tmp_path: Path) -> None:
    path = tmp_path / "paste.txt"
    path.write_bytes(b"\xff\xfe junk\nkernel.numa_balancing = 1\n\xc3\x28 more junk\nvm.swappiness = 1\n")
    host = load_pasted([str(path)])
    values = sysctls_of(host)
    assert values.get("kernel.numa_balancing") == "1" and values.get("vm.swappiness") == "1"


def test_not_sysctl_lines_are_not_claimed() -> None:
    with contextlib.suppress(Exception):
        _, recognised = host_of("a = b\nfoo.bar = 1\nkernel numa = 1\n")
        assert not any(k == "sysctl" for k, _, _ in recognised)


# --- a tunable shown with `cat /proc/sys/...`, numastat's node columns ------------------------


def test_cat_proc_sys_is_recorded_as_its_sysctl_line() -> None:
    host, recognised = host_of("Confirm NUMA balancing:\n$ cat /proc/sys/kernel/numa_balancing\n1\n"
                               "```\ncat /proc/sys/vm/swappiness\n60\n```\n")
    assert [k for k, _, _ in recognised].count("sysctl") == 2
    values = sysctls_of(host)
    assert values.get("kernel.numa_balancing") == "1" and values.get("vm.swappiness") == "60"
    assert "vm.zone_reclaim_mode" in values.unreadable and not values.absent  # two keys say nothing of the others
    assert host.run(["sysctl", "-a"]).stdout == "kernel.numa_balancing = 1\nvm.swappiness = 60\n"


def test_cat_proc_sys_outside_the_checks_keys_or_without_a_value_is_not_taken() -> None:
    for text in ("cat /proc/sys/kernel/core_pattern\n|/usr/share/apport/apport %p\n",  # not a key the checks read
                 "cat /proc/sys/kernel/numa_balancing\nit said it was on, so I turned it off\n",  # prose under it
                 "cat /proc/sys/kernel/numa_balancing\n",  # the command alone
                 "echo 0 > /proc/sys/kernel/numa_balancing\n0\n"):  # a write, not a read
        _, recognised = host_of(text)
        assert not any(k == "sysctl" for k, _, _ in recognised), text


def test_cat_proc_sys_regexes_are_linear_on_a_long_line() -> None:
    import time

    from stackaudit.facts.system import NUMASTAT_COLUMNS
    from stackaudit.importers.sysctl import _CAT_PROC_SYS, _CAT_THP, _THP_MODES, _TUNABLE_VALUE
    from stackaudit.importers.system import _FLAGS_WRAPPED, _NUMASTAT_ROW

    for pattern, line in ((_CAT_PROC_SYS, "cat /proc/sys/" + "a/" * 100_000), (_TUNABLE_VALUE, "1 " * 100_000 + "!"),
                          (NUMASTAT_COLUMNS, "Node 0" + " Node 1" * 30_000 + " x"),
                          (_NUMASTAT_ROW, "Heap" + " 1.5" * 60_000 + " x"),
                          (_CAT_THP, "cat /sys/kernel/mm/transparent_hugepage/" + "e" * 200_000),
                          (_THP_MODES, "[always] " + "madvise " * 25_000 + "!"),
                          (_FLAGS_WRAPPED, " " * 26 + "sse " * 50_000 + "!")):
        start = time.perf_counter()
        assert not pattern.match(line)
        assert time.perf_counter() - start < 0.5


def test_corpus_numa_balancing_cat_and_numastat_nodes_make_an_issue() -> None:
    from corpus import capture_result

    # 2475: `cat /proc/sys/kernel/numa_balancing` then 1; numastat -p's columns Node 0, Node 1.
    r = capture_result("2475", "KERN-NUMA-BALANCING")
    assert r.status == "issue" and "2 NUMA nodes" in r.message
    # numastat's node ids show no layout: the nodes' CPUs, the sockets and the GPU's node are not shown.
    assert capture_result("2475", "FW-NUMA-NPS").status == "unknown"


def test_numastat_columns_give_the_node_count() -> None:
    from corpus import END_OF_HEADER

    text = next(CAPTURES.glob("2377-*")).read_text(encoding="utf-8")
    _, recognised = host_of(text.split(END_OF_HEADER + "\n", 1)[1])
    assert any(k == "numastat" for k, _, _ in recognised)  # another thread's `numastat -p` (columns unindented)
    host, recognised = host_of("$ numastat -m\n\nPer-node system memory usage (in MBs):\n"
                               "                          Node 0          Node 1          Node 2          Node 3"
                               "           Total\n"
                               "                 --------------- --------------- --------------- --------------- "
                               "---------------\nMemTotal               128000.00       128000.00       128000.00"
                               "       128000.00       512000.00\n")
    assert [k for k, _, _ in recognised] == ["numastat"]
    numa = fact_of(host, "numa")
    assert numa.count == 4 and not any(n.cpus for n in numa.nodes)
    # Not numastat: a table of GPUs with a total column.
    _, recognised = host_of("        GPU 0   GPU 1   Total\nUsed    10      12      22\n")
    assert not any(k == "numastat" for k, _, _ in recognised)


def test_cat_thp_mode_files_are_recorded_as_the_files() -> None:
    from stackaudit.facts.kernel_knobs import THP_DIR

    host, recognised = host_of("```\n$ cat /sys/kernel/mm/transparent_hugepage/enabled\nalways [madvise] never\n\n"
                               "cat /sys/kernel/mm/transparent_hugepage/defrag\n"
                               "always defer [defer+madvise] madvise never\n```\n")
    assert [k for k, _, _ in recognised] == ["thp mode file", "thp mode file"]
    assert host.record.files[f"{THP_DIR}/defrag"] == b"always defer [defer+madvise] madvise never\n"
    thp = fact_of(host, "thp")
    assert (thp.enabled, thp.defrag) == ("madvise", "defer+madvise")
    # Not a mode file's content: a value without its bracketed mode, prose, another sysfs file.
    for text in ("cat /sys/kernel/mm/transparent_hugepage/enabled\nalways madvise never\n",
                 "cat /sys/kernel/mm/transparent_hugepage/enabled\nI think it is [always] on here\n",
                 "cat /sys/kernel/mm/transparent_hugepage/khugepaged/defrag\n1\n"):
        _, recognised = host_of(text)
        assert not recognised or all(k != "thp mode file" for k, _, _ in recognised), text


def test_corpus_thp_always_without_compaction_counters_is_unknown() -> None:
    from corpus import capture_result

    # 2476: enabled and defrag both [always] shown with cat; /proc/vmstat's compact_stall is not.
    r = capture_result("2476", "KERN-THP")
    assert r.status == "unknown" and "defrag=always" in r.message


def test_lscpu_flags_wrapped_by_the_terminal_are_joined() -> None:
    from stackaudit.facts.system import CpuInfo

    flags = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 "
             "ss ht syscall nx rdrand hypervisor lahf_lm pti ibrs")
    width, col = 80, 26
    first, rest = flags[:width - col], flags[width - col:]
    wrapped = ["    Flags:".ljust(col) + first] + [" " * col + rest[k:k + width - col]
                                                    for k in range(0, len(rest), width - col)]
    text = "Architecture:             x86_64\nCPU(s):                   8\n" + "\n".join(wrapped) + \
        "\nVirtualization features:  \n  Hypervisor\n"
    host, recognised = host_of(text)
    assert recognised[0][0] == "lscpu" and recognised[0][2] >= 2 + len(wrapped)
    cpu = fact_of(host, "cpu")
    assert isinstance(cpu, CpuInfo)
    assert {"mca", "hypervisor", "pti", "ibrs"} <= cpu.flags  # `m`+`ca` cut at the wrap, joined again
    # A short Flags line is not a wrapped one: an indented line under it stays out.
    host, _ = host_of("Architecture:        x86_64\nCPU(s):              8\nFlags:               fpu vme\n"
                      "                     hypervisor\n")
    assert "hypervisor" not in fact_of(host, "cpu").flags


def test_corpus_kvm_guest_lscpu_wrapped_flags() -> None:
    from corpus import capture_result

    # 2477: an Alibaba Cloud KVM guest's lscpu, its flags wrapped at 80 columns with `hypervisor` and `pti` in them.
    assert capture_result("2477", "KVER-INTEL-PSTATE").status == "not-applicable"
    assert capture_result("2477", "KERN-MITIGATIONS").status == "not-an-issue"
    # 1797: pti on a machine that shows no hypervisor: information, ok.
    assert capture_result("1797", "KERN-MITIGATIONS").status == "ok"
