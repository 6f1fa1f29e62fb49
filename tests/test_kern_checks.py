"""KERN checks through the real engine on fake hosts: an issue, a pass, and the KB's trap each."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from corpus import capture_checks, paste_checks
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import fake_host

CPU = "/sys/devices/system/cpu"

LSCPU_XEON = """\
Architecture:                       x86_64
CPU op-mode(s):                     32-bit, 64-bit
CPU(s):                             8
On-line CPU(s) list:                0-7
Vendor ID:                          GenuineIntel
Model name:                         Intel(R) Xeon(R) Platinum 8480+
CPU family:                         6
Model:                              143
Thread(s) per core:                 2
Core(s) per socket:                 4
Socket(s):                          1
Flags:                              fpu vme de pse tsc msr pae mce cx8 apic sep hwp hwp_notify hwp_act_window hwp_epp
NUMA node(s):                       1
"""

LSCPU_GENOA = """\
Architecture:                       x86_64
CPU(s):                             8
Vendor ID:                          AuthenticAMD
Model name:                         AMD EPYC 9654 96-Core Processor
CPU family:                         25
Model:                              17
Socket(s):                          2
Flags:                              fpu vme de pse tsc msr pae mce cx8 apic sep cppc
NUMA node(s):                       2
Vulnerability Spectre v2:           Mitigation; Retpolines; IBPB conditional
Vulnerability Meltdown:             Not affected
"""

LSCPU_VM = """\
Architecture:                       x86_64
CPU(s):                             8
Vendor ID:                          GenuineIntel
Model name:                         Intel Xeon Processor (Icelake)
CPU family:                         6
Model:                              106
Hypervisor vendor:                  KVM
Virtualization type:                full
Flags:                              fpu vme hypervisor
"""

UNAME = "Linux gpu01 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux\n"


def cpufreq_files(n: int = 8, driver: str = "intel_pstate", governor: str = "powersave",
                  epp: str | None = "balance_performance", max_khz: int = 3_800_000,
                  cap_khz: int | None = None) -> dict[str, Any]:
    files: dict[str, Any] = {f"{CPU}/present": f"0-{n - 1}\n"}
    for i in range(n):
        base = f"{CPU}/cpufreq/policy{i}"
        files.update({
            f"{base}/scaling_driver": driver + "\n",
            f"{base}/scaling_governor": governor + "\n",
            f"{base}/affected_cpus": f"{i}\n",
            f"{base}/cpuinfo_min_freq": "800000\n",
            f"{base}/cpuinfo_max_freq": f"{max_khz}\n",
            f"{base}/scaling_min_freq": "800000\n",
            f"{base}/scaling_max_freq": f"{cap_khz or max_khz}\n",
            f"{base}/scaling_cur_freq": "2100000\n",
        })
        if epp is not None:
            files[f"{base}/energy_performance_preference"] = epp + "\n"
    return files


def numa_files(nodes: int, cpus_per_node: int = 4) -> dict[str, Any]:
    files: dict[str, Any] = {}
    for n in range(nodes):
        lo = n * cpus_per_node
        files[f"/sys/devices/system/node/node{n}/cpulist"] = f"{lo}-{lo + cpus_per_node - 1}\n"
    return files


def proc_files(pid: int, argv: list[str], status: dict[str, str], ppid: int = 1) -> dict[str, Any]:
    comm = argv[0].rsplit("/", 1)[-1][:15]
    status_text = f"Name:\t{comm}\nPid:\t{pid}\nPPid:\t{ppid}\n" + "".join(f"{k}:\t{v}\n" for k, v in status.items())
    return {
        f"/proc/{pid}/cmdline": "\0".join(argv) + "\0",
        f"/proc/{pid}/stat": f"{pid} ({comm}) S {ppid} {pid} {pid} 0 -1 4194560 0 0 0 0\n",
        f"/proc/{pid}/status": status_text,
        f"/proc/{pid}/environ": "PATH=/usr/bin\0HOME=/root\0",
        f"/proc/{pid}/limits": "Limit                     Soft Limit           Hard Limit           Units\n"
                               "Max open files            1048576              1048576              files\n",
    }


VLLM = ["/usr/bin/python3", "/usr/local/bin/vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
        "--tensor-parallel-size", "1"]


def run(check: str, files: dict[str, Any] | None = None, lscpu: str = LSCPU_XEON, uname: str = UNAME,
        commands: dict[str, Any] | None = None, **kw: Any) -> Result:
    cmds: dict[str, Any] = {"lscpu": lscpu, "uname -a": uname}
    cmds.update(commands or {})
    host = fake_host(files=files or {}, commands=cmds, **kw)
    return run_checks(host, select=[check])[check]


# --- KERN-CPUFREQ-GOVERNOR -------------------------------------------------------------------


def test_governor_acpi_cpufreq_powersave_is_high_issue() -> None:
    r = run("KERN-CPUFREQ-GOVERNOR", cpufreq_files(driver="acpi-cpufreq", governor="powersave", epp=None),
            lscpu=LSCPU_GENOA)
    assert r.status == "issue" and r.severity == "high" and r.priority == "P0"
    assert "lowest frequency" in r.message and "all 8 CPUs" in r.message


def test_governor_ondemand_is_medium() -> None:
    r = run("KERN-CPUFREQ-GOVERNOR", cpufreq_files(driver="acpi-cpufreq", governor="ondemand", epp=None))
    assert r.status == "issue" and r.severity == "medium"


def test_governor_powersave_with_intel_pstate_active_is_not_an_issue() -> None:
    r = run("KERN-CPUFREQ-GOVERNOR", cpufreq_files(driver="intel_pstate", governor="powersave"))
    assert r.status == "not-an-issue"
    assert "EPP" in r.message or "energy-performance" in r.message


def test_governor_powersave_with_amd_pstate_epp_is_not_an_issue() -> None:
    r = run("KERN-CPUFREQ-GOVERNOR", cpufreq_files(driver="amd-pstate-epp", governor="powersave"))
    assert r.status == "not-an-issue"


def test_governor_performance_ok() -> None:
    r = run("KERN-CPUFREQ-GOVERNOR", cpufreq_files(driver="acpi-cpufreq", governor="performance", epp=None))
    assert r.status == "ok"


def test_governor_vm_without_cpufreq_unknown() -> None:
    r = run("KERN-CPUFREQ-GOVERNOR", {f"{CPU}/present": "0-7\n"}, lscpu=LSCPU_VM, dirs={f"{CPU}/cpufreq": []})
    assert r.status == "unknown" and "hypervisor" in r.message


def test_governor_mixed_names_the_cpus() -> None:
    files = cpufreq_files(driver="intel_cpufreq", governor="performance", epp=None)
    files[f"{CPU}/cpufreq/policy3/scaling_governor"] = "powersave\n"
    r = run("KERN-CPUFREQ-GOVERNOR", files)
    assert r.status == "issue" and r.subjects == ("cpu3",)


# --- KERN-CPU-BOOST --------------------------------------------------------------------------


def test_boost_no_turbo_is_issue() -> None:
    files = cpufreq_files()
    files[f"{CPU}/intel_pstate/no_turbo"] = "1\n"
    files[f"{CPU}/intel_pstate/max_perf_pct"] = "100\n"
    r = run("KERN-CPU-BOOST", files)
    assert r.status == "issue" and "turbo disabled" in r.message and r.severity == "medium"
    assert "on purpose" in r.message


def test_boost_capped_scaling_max_is_issue() -> None:
    r = run("KERN-CPU-BOOST", cpufreq_files(driver="acpi-cpufreq", epp=None, cap_khz=2_000_000), lscpu=LSCPU_GENOA)
    assert r.status == "issue" and "capped" in r.message


def test_boost_on_ok() -> None:
    files = cpufreq_files(driver="acpi-cpufreq", epp=None)
    files[f"{CPU}/cpufreq/boost"] = "1\n"
    r = run("KERN-CPU-BOOST", files, lscpu=LSCPU_GENOA)
    assert r.status == "ok" and "boost=1" in r.message


def test_boost_vm_not_applicable() -> None:
    assert run("KERN-CPU-BOOST", cpufreq_files(), lscpu=LSCPU_VM).status == "not-applicable"


# --- KERN-EPP --------------------------------------------------------------------------------


def test_epp_power_is_issue() -> None:
    r = run("KERN-EPP", cpufreq_files(epp="power"))
    assert r.status == "issue" and len(r.subjects) == 8


def test_epp_raw_value_above_balance_is_issue() -> None:
    assert run("KERN-EPP", cpufreq_files(epp="192")).status == "issue"


def test_epp_balance_performance_is_not_an_issue() -> None:
    r = run("KERN-EPP", cpufreq_files(epp="balance_performance"))
    assert r.status == "not-an-issue" and "unmeasured" in r.message


def test_epp_performance_ok_and_acpi_not_applicable() -> None:
    assert run("KERN-EPP", cpufreq_files(epp="performance")).status == "ok"
    assert run("KERN-EPP", cpufreq_files(driver="acpi-cpufreq", epp=None)).status == "not-applicable"


# --- KERN-AMD-PSTATE -------------------------------------------------------------------------

LSCPU_TURIN = LSCPU_GENOA.replace("CPU family:                         25", "CPU family:                         26") \
    .replace("EPYC 9654 96-Core", "EPYC 9575F 64-Core")
UNAME_614 = UNAME.replace("6.8.0-45-generic", "6.14.0-29-generic")


def test_amd_pstate_genoa_acpi_performance_is_not_an_issue() -> None:
    r = run("KERN-AMD-PSTATE", cpufreq_files(driver="acpi-cpufreq", governor="performance", epp=None),
            lscpu=LSCPU_GENOA, commands={"dmesg": "[    2.1] amd_pstate: driver load is disabled, boot with "
                                                  "specific mode to enable this\n"})
    assert r.status == "not-an-issue" and "by design" in r.message
    assert r.evidence


def test_amd_pstate_turin_forced_disable_is_issue() -> None:
    files = cpufreq_files(driver="acpi-cpufreq", governor="performance", epp=None)
    files["/proc/cmdline"] = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro amd_pstate=disable iommu=pt\n"
    r = run("KERN-AMD-PSTATE", files, lscpu=LSCPU_TURIN, uname=UNAME_614)
    assert r.status == "issue" and "amd_pstate=disable" in r.message


def test_amd_pstate_epp_power_is_issue_and_active_ok() -> None:
    files = cpufreq_files(driver="amd-pstate-epp", governor="powersave", epp="power")
    files[f"{CPU}/amd_pstate/status"] = "active\n"
    assert run("KERN-AMD-PSTATE", files, lscpu=LSCPU_TURIN, uname=UNAME_614).status == "issue"
    files = cpufreq_files(driver="amd-pstate-epp", governor="powersave", epp="balance_performance")
    assert run("KERN-AMD-PSTATE", files, lscpu=LSCPU_TURIN, uname=UNAME_614).status == "ok"


def test_amd_pstate_not_applicable_on_intel() -> None:
    assert run("KERN-AMD-PSTATE", cpufreq_files()).status == "not-applicable"


# --- KERN-CSTATES ----------------------------------------------------------------------------


def idle_files(states: list[tuple[str, int, int]], qos: int | None = None) -> dict[str, Any]:
    files: dict[str, Any] = {f"{CPU}/cpuidle/current_driver": "intel_idle\n",
                             f"{CPU}/cpuidle/current_governor_ro": "menu\n"}
    for i, (name, lat, dis) in enumerate(states):
        base = f"{CPU}/cpu0/cpuidle/state{i}"
        files.update({f"{base}/name": name + "\n", f"{base}/latency": f"{lat}\n", f"{base}/disable": f"{dis}\n"})
    if qos is not None:
        files["/dev/cpu_dma_latency"] = struct.pack("<i", qos)
    return files


SPR_STATES = [("POLL", 0, 0), ("C1", 1, 0), ("C1E", 2, 0), ("C6", 290, 0)]


def test_cstates_deep_enabled_no_qos_is_issue_unproven() -> None:
    r = run("KERN-CSTATES", idle_files(SPR_STATES, qos=2_000_000_000))
    assert r.status == "issue" and r.subjects == ("C6",)
    assert "unproven" in r.message and r.confidence == "unproven" and r.priority == "P2"
    assert r.fix is not None and "-D 290" in r.fix.runtime


def test_cstates_pm_qos_limit_is_not_an_issue() -> None:
    r = run("KERN-CSTATES", idle_files(SPR_STATES, qos=1))
    assert r.status == "not-an-issue" and "PM QoS" in r.message


def test_cstates_tuned_latency_profile_is_not_an_issue() -> None:
    files = idle_files(SPR_STATES)
    files["/etc/tuned/active_profile"] = "latency-performance\n"
    assert run("KERN-CSTATES", files).status == "not-an-issue"


def test_cstates_disabled_deep_or_max_cstate_ok() -> None:
    r = run("KERN-CSTATES", idle_files([("POLL", 0, 0), ("C1", 1, 0), ("C1E", 2, 0), ("C6", 290, 1)]))
    assert r.status == "ok"
    files = idle_files([("POLL", 0, 0), ("C1", 1, 0)])
    files["/proc/cmdline"] = "BOOT_IMAGE=/vmlinuz ro intel_idle.max_cstate=1 processor.max_cstate=1\n"
    r = run("KERN-CSTATES", files)
    assert r.status == "ok" and "intel_idle.max_cstate=1" in r.message


# --- KERN-NUMA-BALANCING ---------------------------------------------------------------------


def test_numa_balancing_on_multi_node_is_issue() -> None:
    files = numa_files(2)
    files["/proc/sys/kernel/numa_balancing"] = "1\n"
    files["/proc/vmstat"] = "numa_hint_faults 123456\nnuma_pages_migrated 789\n"
    r = run("KERN-NUMA-BALANCING", files)
    assert r.status == "issue" and r.severity == "low" and "123456" in r.message and "unquantified" in r.message


def test_numa_balancing_engine_bound_to_one_node_is_medium() -> None:
    files = numa_files(2)
    files["/proc/sys/kernel/numa_balancing"] = "1\n"
    files.update(proc_files(4242, VLLM, {"Cpus_allowed_list": "0-3", "VmSwap": "0 kB"}))
    r = run("KERN-NUMA-BALANCING", files)
    assert r.status == "issue" and r.severity == "medium" and "4242" in r.message


def test_numa_balancing_single_node_is_not_an_issue_and_off_ok() -> None:
    files = numa_files(1)
    files["/proc/sys/kernel/numa_balancing"] = "1\n"
    assert run("KERN-NUMA-BALANCING", files).status == "not-an-issue"
    files = numa_files(2)
    files["/proc/sys/kernel/numa_balancing"] = "0\n"
    assert run("KERN-NUMA-BALANCING", files).status == "ok"


# One NUMA node decides without the sysctl: automatic balancing has nothing to migrate, whatever its value.
# Real pastes: 741 (vllm#5222, collect_env's lscpu on a 4-CPU A100 host) and 602 (vllm#7854, an AWS L40S VM's
# lscpu cut after `NUMA node(s): 1`). Counter-examples: 136 (a real `numactl -H` of two nodes) and the GH200's lscpu
# of bytedance/xpu-perf#129 (nine nodes, one with CPUs: the GPU memory nodes still count), which stay unknown.
# The thread shows the NUMA lines; the first three lines are modelled so that the paste reads as `lscpu`.
GH200_LSCPU = """\
Architecture:             aarch64
CPU(s):                   72
Vendor ID:                ARM
NUMA:
  NUMA node(s):           9
  NUMA node0 CPU(s):      0-71
  NUMA node1 CPU(s):
  NUMA node2 CPU(s):
"""


def test_numa_balancing_one_node_needs_no_sysctl(tmp_path: Path) -> None:
    for prefix in ("741", "602"):
        r = capture_checks(prefix, "KERN-NUMA-BALANCING")["KERN-NUMA-BALANCING"]
        assert r.status == "not-an-issue" and "one NUMA node" in r.message, prefix
    # Modelled: `numactl -H` of a one-node host says the same.
    paste = "available: 1 nodes (0)\nnode 0 cpus: 0 1 2 3\nnode 0 size: 64000 MB\nnode 0 free: 60000 MB\n"
    r = paste_checks(tmp_path, paste, "KERN-NUMA-BALANCING")["KERN-NUMA-BALANCING"]
    assert r.status == "not-an-issue" and "one NUMA node" in r.message


def test_numa_balancing_many_nodes_without_sysctl_stay_unknown(tmp_path: Path) -> None:
    r = capture_checks("136", "KERN-NUMA-BALANCING")["KERN-NUMA-BALANCING"]
    assert r.status == "unknown" and "2 NUMA nodes" in r.message
    r = paste_checks(tmp_path, GH200_LSCPU, "KERN-NUMA-BALANCING")["KERN-NUMA-BALANCING"]
    assert r.status == "unknown" and "9 NUMA nodes" in r.message


# --- KERN-THP --------------------------------------------------------------------------------

THP = "/sys/kernel/mm/transparent_hugepage"


def test_thp_defrag_always_with_stalls_is_issue() -> None:
    r = run("KERN-THP", {f"{THP}/enabled": "[always] madvise never\n",
                         f"{THP}/defrag": "[always] defer defer+madvise madvise never\n",
                         "/proc/vmstat": "compact_stall 5123\nthp_fault_alloc 99\n", "/proc/uptime": "7200.0 1.0\n"})
    assert r.status == "issue" and "5123" in r.message and "rising" in r.message


def test_thp_observed_value_is_the_configuration_not_the_growing_counter() -> None:
    # Two audits a minute apart differ in compact_stall only: the observed value (what compare diffs) is equal.
    def at(stalls: int) -> object:
        return run("KERN-THP", {f"{THP}/enabled": "[always] madvise never\n",
                                f"{THP}/defrag": "[always] defer defer+madvise madvise never\n",
                                "/proc/vmstat": f"compact_stall {stalls}\n", "/proc/uptime": "7200.0 1.0\n"})
    first, later = at(5123), at(5188)
    assert first.actual == later.actual and "5188" in later.message  # type: ignore[attr-defined]


def test_thp_enabled_always_is_not_an_issue() -> None:
    r = run("KERN-THP", {f"{THP}/enabled": "[always] madvise never\n",
                         f"{THP}/defrag": "always defer defer+madvise [madvise] never\n",
                         "/proc/vmstat": "compact_stall 0\n"})
    assert r.status == "not-an-issue" and "unproven" in r.message


def test_thp_madvise_ok_and_defrag_always_without_stalls_ok() -> None:
    assert run("KERN-THP", {f"{THP}/enabled": "always [madvise] never\n",
                            f"{THP}/defrag": "always defer [defer+madvise] madvise never\n"}).status == "ok"
    assert run("KERN-THP", {f"{THP}/enabled": "always [madvise] never\n",
                            f"{THP}/defrag": "[always] defer defer+madvise madvise never\n",
                            "/proc/vmstat": "compact_stall 0\n"}).status == "ok"


# --- KERN-SWAP -------------------------------------------------------------------------------

SWAPS = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swap.img  file\t\t8388604\t\t524288\t\t-2\n"


def test_swap_engine_swapped_is_issue() -> None:
    files = {"/proc/swaps": SWAPS, "/proc/sys/vm/swappiness": "60\n"}
    files.update(proc_files(4242, VLLM, {"VmSwap": "204800 kB", "Cpus_allowed_list": "0-7"}))
    r = run("KERN-SWAP", files)
    assert r.status == "issue" and r.subjects == ("4242",) and r.severity == "medium"


def test_swap_swappiness_60_nothing_swapped_is_not_an_issue() -> None:
    files = {"/proc/swaps": SWAPS, "/proc/sys/vm/swappiness": "60\n"}
    files.update(proc_files(4242, VLLM, {"VmSwap": "0 kB"}))
    assert run("KERN-SWAP", files).status == "not-an-issue"


def test_swap_low_swappiness_ok_and_no_swap_not_applicable() -> None:
    files = {"/proc/swaps": SWAPS, "/proc/sys/vm/swappiness": "10\n"}
    files.update(proc_files(4242, VLLM, {"VmSwap": "0 kB"}))
    assert run("KERN-SWAP", files).status == "ok"
    assert run("KERN-SWAP", {"/proc/swaps": "Filename\tType\tSize\tUsed\tPriority\n",
                             "/proc/meminfo": "SwapTotal:  0 kB\nSwapFree: 0 kB\n"}).status == "not-applicable"


def test_swap_without_engine_is_unknown() -> None:
    r = run("KERN-SWAP", {"/proc/swaps": SWAPS, "/proc/1/cmdline": "/sbin/init\0"})
    assert r.status == "unknown" and "no serving process" in r.message


# --- KERN-IRQ-AFFINITY -----------------------------------------------------------------------

INTERRUPTS = """\
            CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7
  99:    9876543          0          0          0          0          0          0          0  IR-PCI-MSI-0000:17:00.0   1-edge      mlx5_comp0@pci:0000:17:00.0
 100:          0    5555555          0          0          0          0          0          0  IR-PCI-MSI-0000:17:00.0   2-edge      mlx5_comp1@pci:0000:17:00.0
 150:          7          0          0          0          0          0          0          0  IR-PCI-MSI 1048576-edge      nvidia
"""


NIC_LINK = {"/sys/bus/pci/devices/0000:17:00.0": "../../../devices/pci0000:16/0000:16:02.0/0000:17:00.0"}


def nic_files(nic_node: int, irq_cpus: tuple[str, str]) -> dict[str, Any]:
    files = numa_files(2)
    files["/proc/interrupts"] = INTERRUPTS
    files["/proc/irq/99/effective_affinity_list"] = irq_cpus[0] + "\n"
    files["/proc/irq/100/effective_affinity_list"] = irq_cpus[1] + "\n"
    # The device's files live under its real sysfs path; /sys/bus/pci/devices/<bdf> links to it.
    dev = "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0"
    files.update({f"{dev}/vendor": "0x15b3\n", f"{dev}/device": "0x101d\n", f"{dev}/class": "0x020000\n",
                  f"{dev}/numa_node": f"{nic_node}\n"})
    return files


def test_irq_affinity_remote_node_is_issue() -> None:
    r = run("KERN-IRQ-AFFINITY", nic_files(1, ("0", "1")), commands={"systemctl is-active irqbalance": "active\n"},
            links=NIC_LINK)
    assert r.status == "issue" and "node 1" in r.message and r.confidence == "unproven"


def test_irq_affinity_local_ok() -> None:
    r = run("KERN-IRQ-AFFINITY", nic_files(1, ("4", "5")), commands={"systemctl is-active irqbalance": "active\n"},
            links=NIC_LINK)
    assert r.status == "ok"


def test_irq_irqbalance_off_without_nic_is_not_an_issue() -> None:
    from stackaudit.host.base import CommandResult

    files = {"/proc/interrupts": INTERRUPTS.splitlines()[0] + "\n" + INTERRUPTS.splitlines()[3] + "\n"}
    r = run("KERN-IRQ-AFFINITY", files, commands={
        "systemctl is-active irqbalance": CommandResult(("systemctl", "is-active", "irqbalance"), 3, "inactive\n")})
    assert r.status == "not-an-issue" and "not supported by evidence" in r.message


# --- KERN-ISOLCPUS ---------------------------------------------------------------------------


def iso_files(isolated: str = "4-63", cmdline: str = "isolcpus=4-63 nohz_full=4-63") -> dict[str, Any]:
    return {"/proc/cmdline": f"BOOT_IMAGE=/vmlinuz-6.8.0 root=UUID=1234 ro {cmdline}\n",
            f"{CPU}/isolated": isolated + "\n", f"{CPU}/nohz_full": isolated + "\n", f"{CPU}/online": "0-63\n"}


def test_isolcpus_engine_confined_to_housekeeping_is_issue() -> None:
    files = iso_files()
    files.update(proc_files(4242, VLLM, {"Cpus_allowed_list": "0-63"}))
    r = run("KERN-ISOLCPUS", files)
    assert r.status == "issue" and "4 housekeeping" in r.message


def test_isolcpus_engine_spanning_isolated_is_issue() -> None:
    files = iso_files()
    files.update(proc_files(4242, VLLM, {"Cpus_allowed_list": "4-11"}))
    r = run("KERN-ISOLCPUS", files)
    assert r.status == "issue" and "stay on one core" in r.message


def test_isolcpus_explicit_pinning_is_not_an_issue() -> None:
    files = iso_files()
    files.update(proc_files(4242, VLLM, {"Cpus_allowed_list": "4"}))
    assert run("KERN-ISOLCPUS", files).status == "not-an-issue"


def test_isolcpus_absent_not_applicable_and_nohz_only_ok() -> None:
    files = iso_files(isolated="", cmdline="quiet splash")
    assert run("KERN-ISOLCPUS", files).status == "not-applicable"
    files = iso_files(isolated="", cmdline="nohz_full=4-63 rcu_nocbs=4-63")
    assert run("KERN-ISOLCPUS", files).status == "ok"


# --- KERN-WATCHDOG / KERN-MITIGATIONS (information) ------------------------------------------


def test_watchdog_is_information() -> None:
    r = run("KERN-WATCHDOG", {"/proc/sys/kernel/nmi_watchdog": "1\n", "/proc/sys/kernel/watchdog": "1\n"})
    assert r.status == "ok" and "hang detection" in r.message
    assert run("KERN-WATCHDOG", {}, strict=True).status == "unknown"


def test_mitigations_is_information() -> None:
    vul = f"{CPU}/vulnerabilities"
    r = run("KERN-MITIGATIONS", {f"{vul}/spectre_v2": "Mitigation: Enhanced / Automatic IBRS\n",
                                 f"{vul}/meltdown": "Not affected\n", f"{vul}/mds": "Vulnerable: no microcode\n"})
    assert r.status == "ok" and "1 mitigated, 1 vulnerable of 3" in r.message
    r = run("KERN-MITIGATIONS", {"/proc/cmdline": "ro mitigations=off\n"}, lscpu=LSCPU_GENOA)
    assert r.status == "ok" and "single-tenant" in r.message and "lscpu" in r.message


# The kernel's `pti` flag (X86_FEATURE_PTI, set only when page-table isolation is on) in real pastes of
# /proc/cpuinfo and lscpu, from different threads; the flags lines are verbatim, the blocks cut where noted.
# https://github.com/kata-containers/tests/pull/2624 (i7-8705G, the first processor's block, tab-separated)
CPUINFO_KATA = """\
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 158
model name\t: Intel(R) Core(TM) i7-8705G CPU @ 3.10GHz
stepping\t: 9
microcode\t: 0xca
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse \
sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology \
nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid \
sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch \
cpuid_fault epb invpcid_single pti ssbd ibrs ibpb stibp tpr_shadow vnmi flexpriority ept vpid ept_ad fsgsbase \
tsc_adjust bmi1 avx2 smep bmi2 erms invpcid mpx rdseed adx smap clflushopt intel_pt xsaveopt xsavec xgetbv1 xsaves \
dtherm ida arat pln pts hwp hwp_notify hwp_act_window hwp_epp md_clear flush_l1d
bugs\t\t: cpu_meltdown spectre_v1 spectre_v2 spec_store_bypass l1tf mds swapgs itlb_multihit
bogomips\t: 6199.99

processor\t: 1
vendor_id\t: GenuineIntel
"""
# https://github.com/daisukekobayashi/darknet-docker/issues/3 (i7 950, under `cat /proc/cpuinfo`)
CPUINFO_DARKNET = """\
$ cat /proc/cpuinfo
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 26
model name\t: Intel(R) Core(TM) i7 CPU         950  @ 3.07GHz
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse \
sse2 ss ht tm pbe syscall nx rdtscp lm constant_tsc arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid \
aperfmperf pni dtes64 monitor ds_cpl vmx est tm2 ssse3 cx16 xtpr pdcm sse4_1 sse4_2 popcnt lahf_lm pti ssbd ibrs \
ibpb stibp tpr_shadow vnmi flexpriority ept vpid dtherm ida flush_l1d
bugs\t\t: cpu_meltdown spectre_v1 spectre_v2 spec_store_bypass l1tf mds swapgs itlb_multihit
"""
# https://github.com/fleek-network/ursa/issues/470 (Xeon E5-2403 v2, two of its lines)
CPUINFO_URSA = """\
model name\t: Intel(R) Xeon(R) CPU E5-2403 v2 @ 1.80GHz
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse \
sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon pebs bts rep_good nopl xtopology \
nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 cx16 xtpr pdcm pcid dca \
sse4_1 sse4_2 x2apic popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm cpuid_fault pti ssbd ibrs ibpb \
stibp tpr_shadow vnmi flexpriority ept vpid fsgsbase smep erms xsaveopt dtherm arat pln pts md_clear flush_l1d
"""
# https://github.com/remicres/otbtf/issues/35 (lscpu of a Xeon Gold 5122 with no Vulnerability lines; Flags cut)
LSCPU_OTBTF = """\
Architecture:        x86_64
CPU op-mode(s):      32-bit, 64-bit
CPU(s):              8
Thread(s) per core:  1
Core(s) per socket:  4
Socket(s):           2
Vendor ID:           GenuineIntel
CPU family:          6
Model:               85
Model name:          Intel(R) Xeon(R) Gold 5122 CPU @ 3.60GHz
Flags:               fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx \
fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl \
xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 \
xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm \
3dnowprefetch cpuid_fault epb cat_l3 cdp_l3 invpcid_single pti intel_ppin ssbd mba ibrs ibpb stibp tpr_shadow
"""
# Counter-examples, where the flags show microcode features but no `pti`. Real: an AMD Ryzen 5 2400G
# (https://github.com/docker/for-linux/issues/1146: AMD is not affected by Meltdown) and an i7-1360P under a
# hypervisor (https://github.com/fastfetch-cli/fastfetch/issues/1529: ibrs_enhanced, not affected either).
CPUINFO_RYZEN = """\
vendor_id\t: AuthenticAMD
model name\t: AMD Ryzen 5 2400G with Radeon Vega Graphics
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht \
syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid aperfmperf \
pni pclmulqdq monitor ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm \
extapic cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw skinit wdt tce topoext perfctr_core perfctr_nb bpext \
perfctr_llc mwaitx cpb hw_pstate sme ssbd sev ibpb vmmcall sev_es fsgsbase bmi1 avx2 smep bmi2 rdseed adx smap
"""
CPUINFO_1360P = """\
model name      : 13th Gen Intel(R) Core(TM) i7-1360P
flags           : fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse \
sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology tsc_reliable nonstop_tsc cpuid pni \
pclmulqdq vmx ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand \
hypervisor lahf_lm abm 3dnowprefetch invpcid_single ssbd ibrs ibpb stibp ibrs_enhanced tpr_shadow vnmi ept vpid \
md_clear serialize flush_l1d arch_capabilities
"""


def test_mitigations_pti_flag_is_ok_in_real_cpuinfo_and_lscpu(tmp_path: Path) -> None:
    for paste in (CPUINFO_KATA, CPUINFO_DARKNET, CPUINFO_URSA, LSCPU_OTBTF):
        r = paste_checks(tmp_path, UNAME + paste, "KERN-MITIGATIONS")["KERN-MITIGATIONS"]
        assert r.status == "ok" and "page-table isolation" in r.message, (paste[:60], r.message)


def test_mitigations_microcode_flags_without_pti_stay_unknown(tmp_path: Path) -> None:
    for paste in (CPUINFO_RYZEN, CPUINFO_1360P):
        r = paste_checks(tmp_path, UNAME + paste, "KERN-MITIGATIONS")["KERN-MITIGATIONS"]
        assert r.status == "unknown", (paste[:60], r.message)
    # Modelled: the E5-2403 v2's line cut before `pti` shows nothing of the kernel's choice.
    cut = CPUINFO_URSA[:CPUINFO_URSA.index(" pti ")] + "\n"
    r = paste_checks(tmp_path, UNAME + cut, "KERN-MITIGATIONS")["KERN-MITIGATIONS"]
    assert r.status == "unknown"


def test_mitigations_the_kernels_own_state_wins_over_the_pti_flag() -> None:
    r = run("KERN-MITIGATIONS", {"/proc/cmdline": "ro mitigations=off\n"}, lscpu=LSCPU_OTBTF)
    assert r.status == "ok" and "single-tenant" in r.message


def test_proc_cpuinfo_reads_the_first_processor() -> None:
    from stackaudit.facts.system import cpu_from_proc_cpuinfo

    cpu = cpu_from_proc_cpuinfo(CPUINFO_KATA)
    assert (cpu.vendor, cpu.family, cpu.model) == ("GenuineIntel", 6, 158)
    assert cpu.page_table_isolation and "hwp" in cpu.flags and cpu.is_intel
    assert cpu_from_proc_cpuinfo(CPUINFO_RYZEN).family == 23  # from the model name: no `cpu family` line shown


def test_proc_cpuinfo_is_recognised_apart_from_lscpu_and_lspci() -> None:
    from stackaudit.importers.recognition import recognise

    kinds = [k for k, _, _ in recognise(CPUINFO_DARKNET, "paste").recognised]
    assert kinds == ["/proc/cpuinfo"]
    # lscpu's `Flags:` and lspci's capability `Flags:` are not /proc/cpuinfo's lower-case x86 flags line.
    assert "/proc/cpuinfo" not in [k for k, _, _ in recognise(LSCPU_OTBTF, "paste").recognised]
    lspci = "\tFlags: bus master, fast devsel, latency 0, IRQ 16\n\tCapabilities: [60] Power Management version 3\n"
    assert "/proc/cpuinfo" not in [k for k, _, _ in recognise(lspci, "paste").recognised]


def test_corpus_1797_cpuinfo_pti_is_ok() -> None:
    assert capture_checks("1797", "KERN-MITIGATIONS")["KERN-MITIGATIONS"].status == "ok"


# --- KERN-SCHED-KNOBS ------------------------------------------------------------------------


def test_sched_knobs_contention_and_stale_lines_are_issue() -> None:
    files = {"/proc/pressure/cpu": "some avg10=23.51 avg60=18.00 avg300=9.12 total=123456789\n",
             "/etc/sysctl.d/99-latency.conf": "kernel.sched_migration_cost_ns = 5000000\n",
             "/proc/sys/kernel/sched_autogroup_enabled": "1\n"}
    files.update(proc_files(4242, VLLM, {"Cpus_allowed_list": "0-7"}))
    r = run("KERN-SCHED-KNOBS", files)
    assert r.status == "issue" and r.severity == "medium"
    assert "23.5" in r.message and "kernel.sched_migration_cost_ns" in r.message


def test_sched_knobs_pressure_without_engine_is_low() -> None:
    r = run("KERN-SCHED-KNOBS", {"/proc/pressure/cpu": "some avg10=24.70 avg60=18.00 avg300=9.12 total=1\n"})
    assert r.status == "issue" and r.severity == "low" and "sample during serving" in r.message


def test_sched_knobs_stale_line_on_old_kernel_is_ok() -> None:
    files = {"/proc/pressure/cpu": "some avg10=0.10 avg60=0.00 avg300=0.00 total=1\n",
             "/etc/sysctl.conf": "kernel.sched_migration_cost_ns = 5000000\n",
             "/proc/sys/kernel/sched_migration_cost_ns": "500000\n"}
    r = run("KERN-SCHED-KNOBS", files, uname=UNAME.replace("6.8.0-45-generic", "5.4.0-150-generic"))
    assert r.status == "ok" and "EEVDF" in r.message


# --- review additions: blind reads, exact fixes ----------------------------------------------


def _without_driver(files: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in files.items() if not k.endswith("/scaling_driver")}


def test_governor_powersave_with_driver_not_in_source_is_unknown() -> None:
    """KB KERN-CPUFREQ-GOVERNOR trap: "Do not flag `powersave` alone; read `scaling_driver` first"."""
    r = run("KERN-CPUFREQ-GOVERNOR", _without_driver(cpufreq_files(governor="powersave", epp=None)))
    assert r.status == "unknown" and "scaling_driver" in r.hint


def test_governor_ondemand_with_driver_not_in_source_is_still_an_issue() -> None:
    """ondemand/conservative exist only with generic-governor drivers: no driver needed to flag them."""
    r = run("KERN-CPUFREQ-GOVERNOR", _without_driver(cpufreq_files(governor="ondemand", epp=None)))
    assert r.status == "issue" and r.severity == "medium"


def test_thp_defrag_not_in_source_is_unknown_not_a_verdict() -> None:
    """The bad value is defrag=always: with `enabled` alone the answer is unknown (KB general rule 2)."""
    r = run("KERN-THP", {"/sys/kernel/mm/transparent_hugepage/enabled": "[always] madvise never\n"})
    assert r.status == "unknown" and "defrag" in r.message


def test_boost_fix_names_only_the_wrong_knobs_with_this_hosts_values() -> None:
    files = cpufreq_files()
    files[f"{CPU}/intel_pstate/no_turbo"] = "1\n"
    files[f"{CPU}/intel_pstate/max_perf_pct"] = "100\n"
    r = run("KERN-CPU-BOOST", files)
    assert r.status == "issue" and r.fix is not None
    assert r.fix.runtime == f"echo 0 > {CPU}/intel_pstate/no_turbo"
    capped = run("KERN-CPU-BOOST", cpufreq_files(driver="acpi-cpufreq", epp=None, cap_khz=2_000_000),
                 lscpu=LSCPU_GENOA)
    assert capped.fix is not None and capped.fix.runtime == "cpupower frequency-set -u 3800000"
    assert "<" not in capped.fix.runtime
