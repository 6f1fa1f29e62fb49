"""KERN/KVER facts: parsers from realistic text (and garbage), providers on fake hosts."""

from __future__ import annotations

import contextlib
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stackaudit.facts import cpufreq as cf
from stackaudit.facts import kernel_knobs as kk
from stackaudit.facts._parse import ParseError
from stackaudit.facts.pci import PciDevice, PciDevices
from stackaudit.host.base import Host
from stackaudit.host.memory import fake_host


class Ctx:
    """A minimal FactContext for calling one provider directly."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def fact(self, name: str, kind: type[Any]) -> Any:
        raise AssertionError(f"unexpected fact {name}")

    def optional(self, name: str, kind: type[Any]) -> Any:
        return None


CPU = "/sys/devices/system/cpu"


def cpufreq_files(n: int, driver: str = "intel_pstate", governor: str = "powersave",
                  epp: str | None = "balance_performance", max_khz: int = 3_800_000,
                  cap_khz: int | None = None) -> dict[str, str]:
    files = {f"{CPU}/present": f"0-{n - 1}\n" if n > 1 else "0\n"}
    for i in range(n):
        base = f"{CPU}/cpufreq/policy{i}"
        files.update({
            f"{base}/scaling_driver": driver + "\n",
            f"{base}/scaling_governor": governor + "\n",
            f"{base}/affected_cpus": f"{i}\n",
            f"{base}/scaling_available_governors": "performance powersave\n",
            f"{base}/cpuinfo_min_freq": "800000\n",
            f"{base}/cpuinfo_max_freq": f"{max_khz}\n",
            f"{base}/scaling_min_freq": "800000\n",
            f"{base}/scaling_max_freq": f"{cap_khz or max_khz}\n",
            f"{base}/scaling_cur_freq": "2100000\n",
        })
        if epp is not None:
            files[f"{base}/energy_performance_preference"] = epp + "\n"
            files[f"{base}/energy_performance_available_preferences"] = (
                "default performance balance_performance balance_power power\n")
    return files


# --- cpufreq ---------------------------------------------------------------------------------


def test_cpufreq_reads_every_policy_governor_but_samples_limits() -> None:
    files = cpufreq_files(64)
    files[f"{CPU}/cpufreq/policy5/scaling_governor"] = "performance\n"
    host = fake_host(files=files)
    fact = cf.cpufreq(Ctx(host))
    assert fact.driver == "intel_pstate"
    assert len(fact.policies) == 64
    assert fact.governors() == {"powersave": 63, "performance": 1}
    assert fact.scope == "all 64 CPUs"
    assert fact.active_mode
    assert 2 <= len(fact.sampled) <= cf.FREQ_SAMPLE
    assert {p.name for p in fact.sampled} >= {"policy0", "policy63"}


def test_cpufreq_without_present_says_cpu0_only() -> None:
    files = cpufreq_files(1)
    del files[f"{CPU}/present"]
    fact = cf.cpufreq(Ctx(fake_host(files=files)))
    assert fact.scope == "CPU 0"
    assert not fact.complete


def test_cpufreq_partial_coverage_names_what_it_saw() -> None:
    files = cpufreq_files(1)
    files[f"{CPU}/present"] = "0-127\n"
    fact = cf.cpufreq(Ctx(fake_host(files=files)))
    assert fact.scope == "CPU 0 (of 128)"


def test_cpufreq_no_driver_is_a_value_not_an_error() -> None:
    host = fake_host(files={f"{CPU}/present": "0-7\n"}, dirs={f"{CPU}/cpufreq": []})
    fact = cf.cpufreq(Ctx(host))
    assert fact.driver is None and not fact.present


def test_cpufreq_garbage_values_do_not_raise() -> None:
    files = cpufreq_files(2)
    files[f"{CPU}/cpufreq/policy0/cpuinfo_max_freq"] = "\xff\xfe garbage"
    files[f"{CPU}/cpufreq/policy0/affected_cpus"] = "0-x"
    files[f"{CPU}/present"] = "nonsense"
    fact = cf.cpufreq(Ctx(fake_host(files=files)))
    assert fact.policies[0].cpuinfo_max_khz is None
    assert fact.cpus_present is None


def test_non_utf8_sysfs_and_proc_bytes_do_not_raise() -> None:
    files: dict[str, str | bytes | OSError] = dict(cpufreq_files(2))
    files[f"{CPU}/cpufreq/policy1/scaling_governor"] = b"\xffperf\xc3\x28\n"
    files["/proc/interrupts"] = INTERRUPTS.encode() + b"\n 200: \xff\xfe 0 0 0 junk\n"
    files["/proc/swaps"] = b"Filename\tType\tSize\tUsed\tPriority\n/sw\xffap file 10 0 -2\n"
    host = fake_host(files=files)
    fact = cf.cpufreq(Ctx(host))
    assert len(fact.governors()) == 2
    assert kk.irqs(Ctx(host)).nic_irqs
    assert kk.swap(Ctx(host)).devices[0].size_kib == 10


def test_cpufreq_unreadable_knobs_are_marked() -> None:
    files: dict[str, str | bytes | OSError] = dict(cpufreq_files(1))
    files[cf.NO_TURBO] = PermissionError(13, "denied")
    fact = cf.cpufreq(Ctx(fake_host(files=files)))
    assert not fact.knows(cf.NO_TURBO)
    assert fact.knows(cf.BOOST)


def test_pm_qos_binary_and_text() -> None:
    assert cf.parse_pm_qos(struct.pack("<i", 2_000_000_000)) == cf.PM_QOS_NO_CONSTRAINT_US
    assert cf.parse_pm_qos(struct.pack("<i", 1)) == 1
    assert cf.parse_pm_qos(b"0x77359400\n") == 0x77359400
    assert cf.parse_pm_qos(b"20\n") == 20
    with pytest.raises(ParseError):
        cf.parse_pm_qos(b"\xff\xfe\xfd")


def test_cpuidle_provider_reads_cpu0_states() -> None:
    files = {
        f"{CPU}/cpuidle/current_driver": "intel_idle\n",
        f"{CPU}/cpuidle/current_governor_ro": "menu\n",
        "/sys/module/intel_idle/parameters/max_cstate": "9\n",
        "/dev/cpu_dma_latency": struct.pack("<i", 2_000_000_000),
    }
    for i, (name, lat, dis) in enumerate([("POLL", 0, 0), ("C1", 2, 0), ("C1E", 10, 0), ("C6", 170, 1)]):
        base = f"{CPU}/cpu0/cpuidle/state{i}"
        files.update({f"{base}/name": name + "\n", f"{base}/latency": f"{lat}\n", f"{base}/disable": f"{dis}\n",
                      f"{base}/desc": "MWAIT\n"})
    fact = cf.cpuidle(Ctx(fake_host(files=files)))
    assert [s.name for s in fact.states] == ["POLL", "C1", "C1E", "C6"]
    assert fact.states[3].disabled and fact.states[3].latency_us == 170
    assert fact.intel_idle_max_cstate == 9
    assert not fact.pm_qos_constrained


# --- THP, vmstat, swap -----------------------------------------------------------------------


def test_parse_thp_mode() -> None:
    assert kk.parse_thp_mode("always [madvise] never\n") == "madvise"
    assert kk.parse_thp_mode("[always] defer defer+madvise madvise never") == "always"
    assert kk.parse_thp_mode("always defer [defer+madvise] madvise never") == "defer+madvise"
    with pytest.raises(ParseError):
        kk.parse_thp_mode("what is this?")


def test_parse_vmstat_and_uptime() -> None:
    text = "nr_free_pages 123\ncompact_stall 42\nthp_fault_alloc 9\nnuma_hint_faults 1000\ngarbage line here\n"
    assert kk.parse_vmstat(text) == {"compact_stall": 42, "thp_fault_alloc": 9, "numa_hint_faults": 1000}
    assert kk.parse_uptime("3600.52 7000.11\n") == pytest.approx(3600.52)
    with pytest.raises(ParseError):
        kk.parse_vmstat("not vmstat at all")
    with pytest.raises(ParseError):
        kk.parse_uptime("")


def test_parse_proc_swaps() -> None:
    text = ("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
            "/swap.img                               file\t\t8388604\t\t1024\t\t-2\n"
            "/dev/nvme0n1p3                          partition\t16777212\t0\t\t-3\n")
    devs = kk.parse_proc_swaps(text)
    assert [(d.name, d.kind, d.size_kib, d.used_kib) for d in devs] == [
        ("/swap.img", "file", 8388604, 1024), ("/dev/nvme0n1p3", "partition", 16777212, 0)]
    assert kk.parse_proc_swaps("Filename\tType\tSize\tUsed\tPriority\n") == ()
    with pytest.raises(ParseError):
        kk.parse_proc_swaps("Filename Type\n/swap.img file eight zero")


def test_swap_provider_truncated_swaps_falls_back_to_meminfo() -> None:
    host = fake_host(files={"/proc/swaps": "Filenam", "/proc/meminfo": "SwapTotal:  8388604 kB\nSwapFree: 8000000 kB\n"})
    info = kk.swap(Ctx(host))
    assert info.enabled and info.used_kib == 388604


# --- interrupts ------------------------------------------------------------------------------

INTERRUPTS = """\
            CPU0       CPU1       CPU2       CPU3
   0:         44          0          0          0   IO-APIC   2-edge      timer
  98:          0    1234567          0          0  IR-PCI-MSI-0000:17:00.0   0-edge      mlx5_async0@pci:0000:17:00.0
  99:    9876543          0          0          0  IR-PCI-MSI-0000:17:00.0   1-edge      mlx5_comp0@pci:0000:17:00.0
 100:          0          0     555555          0  IR-PCI-MSI-0000:17:00.0   2-edge      mlx5_comp1@pci:0000:17:00.0
 150:          7          0          0          0  IR-PCI-MSI 1048576-edge      nvidia
 160:         10         20          0          0  IR-PCI-MSI 2097152-edge      ice-ens1f0-TxRx-0
 NMI:          1          2          3          4   Non-maskable interrupts
 LOC:   12345678   12345678   12345678   12345678   Local timer interrupts
"""


def test_parse_interrupts() -> None:
    ncpu, rows = kk.parse_interrupts(INTERRUPTS)
    assert ncpu == 4
    assert [r[0] for r in rows] == [0, 98, 99, 100, 150, 160]
    assert rows[2][1] == 9876543
    with pytest.raises(ParseError):
        kk.parse_interrupts("  98: 0 0 mlx5")


def test_irqs_provider_maps_nic_queues_to_bdf_and_affinity() -> None:
    host = fake_host(
        files={"/proc/interrupts": INTERRUPTS, "/proc/irq/99/effective_affinity_list": "0\n",
               "/proc/irq/100/smp_affinity_list": "2-3\n"},
        commands={"systemctl is-active irqbalance": "active\n"},
    )
    info = kk.irqs(Ctx(host))
    assert info.irqbalance == "active"
    assert info.nvidia_irqs == 1
    by_number = {q.number: q for q in info.nic_irqs}
    assert by_number[99].bdf == "0000:17:00.0" and by_number[99].affinity == (0,)
    assert by_number[100].affinity == (2, 3)
    assert by_number[160].bdf is None and by_number[160].name.startswith("ice-")


# --- isolation, vulnerabilities, sched, nvidia -----------------------------------------------


def test_cpu_isolation_provider() -> None:
    host = fake_host(files={f"{CPU}/isolated": "4-63\n", f"{CPU}/nohz_full": "(null)\n", f"{CPU}/online": "0-63\n"})
    iso = kk.cpu_isolation(Ctx(host))
    assert iso.isolated == tuple(range(4, 64)) and iso.nohz_full == () and iso.online == tuple(range(64))


def test_parse_psi_and_stale_sysctl_lines() -> None:
    assert kk.parse_psi("some avg10=12.50 avg60=3.00 avg300=1.00 total=123\nfull avg10=0.00 avg60=0.00 "
                        "avg300=0.00 total=0\n") == (12.5, 3.0)
    with pytest.raises(ParseError):
        kk.parse_psi("full avg10=1")
    conf = "# tuning from 2019\nkernel.sched_migration_cost_ns = 5000000\nvm.swappiness=10\n" \
           "-kernel.sched_min_granularity_ns=10000000\n; kernel.sched_latency_ns = 1\n"
    assert kk.stale_sysctl_lines("/etc/sysctl.d/99-tune.conf", conf) == [
        ("/etc/sysctl.d/99-tune.conf", 2, "kernel.sched_migration_cost_ns"),
        ("/etc/sysctl.d/99-tune.conf", 4, "kernel.sched_min_granularity_ns"),
    ]


def test_nvidia_kernel_reads_version_and_flavour_from_proc() -> None:
    open_text = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  "
                 "(dvs-builder@U16)  Thu Jan 23 2025\nGCC version:  gcc version 11.4.0\n")
    closed_text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.135  Fri Jan 10 20:00:00 UTC 2025\n"
    nk = kk.nvidia_kernel(Ctx(fake_host(files={"/proc/driver/nvidia/version": open_text})))
    assert (nk.version, nk.open_module) == ("570.86.15", True)
    nk = kk.nvidia_kernel(Ctx(fake_host(files={"/proc/driver/nvidia/version": closed_text})))
    assert (nk.version, nk.open_module) == ("550.135", False)
    nk = kk.nvidia_kernel(Ctx(fake_host(files={"/proc/driver/nvidia/version": "garbage\n"})))
    assert (nk.version, nk.open_module) == (None, None)


def test_nvidia_kernel_provider_runs_modinfo_only_when_not_loaded() -> None:
    host = fake_host(commands={"modinfo -F version nvidia": "570.124.06\n"})
    assert kk.nvidia_kernel(Ctx(host)).modinfo_rc is None  # no GPU known: modinfo is not run
    gpu = PciDevices((PciDevice("0000:41:00.0", "0x10de", "0x2330", "0x030200"),))

    class GpuCtx(Ctx):
        def optional(self, name: str, kind: type[Any]) -> Any:
            return gpu if name == "pci" else None

    nk = kk.nvidia_kernel(GpuCtx(host))
    assert nk.loaded_version is None and nk.installed_version == "570.124.06" and nk.modinfo_rc == 0
    loaded = fake_host(files={"/sys/module/nvidia/version": "575.51.03\n",
                              "/sys/module/nvidia_uvm/parameters/uvm_disable_hmm": "N\n"})
    nk2 = kk.nvidia_kernel(Ctx(loaded))
    assert nk2.version == "575.51.03" and nk2.major == 575 and nk2.uvm_disable_hmm == "N"


# --- property: parsers raise only ParseError -------------------------------------------------

PARSERS = [kk.parse_thp_mode, kk.parse_vmstat, kk.parse_uptime, kk.parse_proc_swaps, kk.parse_interrupts,
           kk.parse_psi]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300) | st.sampled_from(
    [INTERRUPTS[:37], INTERRUPTS[:200], "Filename\tType\n/x file 1 2 3", "[always", "some avg10=", "\x00\x00"]))
def test_parsers_raise_only_parse_error(text: str) -> None:
    for parse in PARSERS:
        with contextlib.suppress(ParseError):
            parse(text)  # type: ignore[operator]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=16))
def test_pm_qos_raises_only_parse_error(data: bytes) -> None:
    with contextlib.suppress(ParseError):
        cf.parse_pm_qos(data)
