"""Pastes recorded verbatim under their own source (no /sys or /proc file invented), and the fact a
paste gives equals the fact the live source gives, on the fields the paste shows.

Real outputs come from the corpus (tests/data/captures, each with its public thread in its header);
a "live" host is a fake holding the files or commands a real host with the same state would show
(modelled from the paste, and said so).
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus import body, fact, pasted
from stackaudit.engine.collect import Collector, Missing
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.facts.system import SYSCTL_KEYS, Sysctls
from stackaudit.host.memory import MemoryHost, fake_host
from stackaudit.host.redact import redact_command_output

CORPUS = Path(__file__).parent / "data" / "captures"





def invented(host: MemoryHost, *prefixes: str) -> list[str]:
    """Files under /sys or /proc a paste recorded (a paste is a command's output, not a tree)."""
    paths = [*host.record.files, *host.record.dirs, *host.record.errors.get("read", {})]
    return [p for p in paths if p.startswith(prefixes)]


# --- sysctl -a ------------------------------------------------------------------------------------


def test_sysctl_excerpt_is_recorded_verbatim_as_sysctl_a() -> None:
    text = body("88")  # an excerpt of `sysctl -a` in a fence (uds-core#271)
    host = pasted(text)
    recorded = host.run(["sysctl", "-a"]).stdout
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("```")]
    assert recorded.splitlines() == lines  # every line as pasted (kernel.printk keeps its tabs)
    assert "kernel.printk = 4\t4\t1\t7" in recorded
    assert invented(host, "/proc", "/sys") == []
    assert host.record.provenance["cmd:sysctl -a"].whole is False


def test_sysctl_excerpt_equals_proc_sys_on_the_keys_it_shows() -> None:
    from_paste = fact(pasted(body("88")), "sysctls")
    # The same kernel read live: the two keys the excerpt shows, the rest as a live host has them.
    live = fact(fake_host(files={"/proc/sys/kernel/osrelease": "6.5.0-1016-azure\n",
                                 "/proc/sys/kernel/sched_autogroup_enabled": "1\n",
                                 "/proc/sys/kernel/numa_balancing": "1\n"}), "sysctls")
    assert isinstance(from_paste, Sysctls) and isinstance(live, Sysctls)
    assert from_paste.values == {"kernel.osrelease": "6.5.0-1016-azure", "kernel.sched_autogroup_enabled": "1"}
    assert all(live.get(k) == v for k, v in from_paste.values.items())
    # An excerpt proves no absence: kernel.numa_balancing (cut off just above) is unknown, not absent.
    assert "kernel.numa_balancing" in from_paste.unreadable and not from_paste.absent


def whole_sysctl_a(**values: str) -> str:
    """A whole `sysctl -a` (modelled: hundreds of keys from kernel, vm, fs and net)."""
    lines = [f"net.ipv4.conf.veth{i}.rp_filter = 2" for i in range(200)]
    lines += [f"{k} = {v}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def test_whole_sysctl_a_equals_proc_sys_and_proves_absence() -> None:
    keys = {"kernel.numa_balancing": "0", "vm.swappiness": "10", "fs.file-max": "9223372036854775807",
            "kernel.osrelease": "6.8.0-45-generic"}
    host = pasted(whole_sysctl_a(**keys))
    assert host.record.provenance["cmd:sysctl -a"].whole is True and invented(host, "/proc") == []
    from_paste = fact(host, "sysctls")
    # The live host: the same four keys; every other key the checks read does not exist (fake: ENOENT).
    live = fact(fake_host(files={"/proc/sys/" + k.replace(".", "/"): v + "\n" for k, v in keys.items()}), "sysctls")
    assert from_paste.values == live.values == keys
    assert from_paste.absent == live.absent == frozenset(SYSCTL_KEYS) - set(keys)


def test_two_grepped_blocks_join_and_stay_an_excerpt() -> None:
    host = pasted("$ sysctl vm.swappiness\nvm.swappiness = 60\n$ sysctl kernel.numa_balancing\n"
                  "kernel.numa_balancing = 1\n")
    assert host.run(["sysctl", "-a"]).stdout == "vm.swappiness = 60\nkernel.numa_balancing = 1\n"
    value = fact(host, "sysctls")
    assert value.values == {"vm.swappiness": "60", "kernel.numa_balancing": "1"}
    assert host.record.provenance["cmd:sysctl -a"].whole is False


def test_a_paste_without_sysctls_names_both_sources() -> None:
    host = pasted("Linux gpu01 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC x86_64 x86_64 x86_64 GNU/Linux\n")
    missing = fact(host, "sysctls")
    assert isinstance(missing, Missing) and missing.kind == "not-captured"
    assert missing.reason == "not in the source: /proc/sys, `sysctl -a`"
    assert "sysctl -a" in missing.hint


# --- cpupower frequency-info / idle-info ---------------------------------------------------------------

CPUFREQ = "/sys/devices/system/cpu/cpufreq"


def cpupower_body(text: str) -> str:
    """The lines cpupower printed: from `analyzing CPU` on, without the fence."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("analyzing CPU"))
    return "\n".join(ln for ln in lines[start:] if not ln.startswith("```")) + "\n"


def test_frequency_info_is_recorded_verbatim_and_whole() -> None:
    text = body("27")  # gpu-operator#1116: intel_pstate, governor performance, boost active
    host = pasted(text)
    assert host.run(["cpupower", "frequency-info"]).stdout == cpupower_body(text)
    assert invented(host, "/sys", "/proc") == []
    assert host.record.provenance["cmd:cpupower frequency-info"].whole is True


def test_frequency_info_equals_sysfs_on_the_fields_it_shows() -> None:
    from_paste = fact(pasted(body("27")), "cpufreq")
    # The same CPU 0 read from sysfs (modelled from the paste: 1.20-3.00 GHz, performance, 1.80 GHz now).
    policy = f"{CPUFREQ}/policy0"
    live = fact(fake_host(files={
        f"{policy}/scaling_driver": "intel_pstate\n", f"{policy}/scaling_governor": "performance\n",
        f"{policy}/scaling_available_governors": "performance powersave\n", f"{policy}/affected_cpus": "0\n",
        f"{policy}/cpuinfo_min_freq": "1200000\n", f"{policy}/cpuinfo_max_freq": "3000000\n",
        f"{policy}/scaling_min_freq": "1200000\n", f"{policy}/scaling_max_freq": "3000000\n",
        f"{policy}/scaling_cur_freq": "1800000\n", f"{policy}/energy_performance_preference": "performance\n",
        "/sys/devices/system/cpu/intel_pstate/no_turbo": "0\n", "/sys/devices/system/cpu/intel_pstate/status": "active\n",
        "/sys/devices/system/cpu/intel_pstate/max_perf_pct": "100\n", "/sys/devices/system/cpu/present": "0-63\n",
    }, dirs={CPUFREQ: ["policy0"]}), "cpufreq")
    assert (from_paste.driver, from_paste.available_governors, from_paste.intel_no_turbo) == (
        live.driver, live.available_governors, live.intel_no_turbo)
    shown = ("name", "cpus", "governor", "scaling_min_khz", "scaling_max_khz", "cur_khz", "cpuinfo_min_khz",
             "cpuinfo_max_khz")
    assert [getattr(from_paste.policies[0], f) for f in shown] == [getattr(live.policies[0], f) for f in shown]
    # What the paste cannot show stays unknown, never defaulted.
    assert from_paste.policies[0].epp is None and not from_paste.knows(f"{policy}/energy_performance_preference")
    assert from_paste.intel_max_perf_pct is None and from_paste.intel_pstate_status is None
    assert from_paste.cpus_present is None and from_paste.scope == "CPU 0" and live.scope == "CPU 0 (of 64)"


def test_frequency_info_of_cpu12_capped_at_400_mhz() -> None:
    from_paste = fact(pasted(body("81")), "cpufreq")  # TLP#764: amd-pstate-epp, CPU 12, policy 400-400 MHz
    [p] = from_paste.policies
    assert (p.name, p.cpus, p.governor) == ("policy12", (12,), "powersave")
    assert (p.scaling_max_khz, p.cpuinfo_max_khz, p.cur_khz) == (400_000, 4_460_000, 399_000) and p.capped
    assert from_paste.boost == "1" and from_paste.intel_no_turbo is None


def test_a_paste_without_cpupower_names_sysfs_and_cpupower() -> None:
    missing = fact(pasted(body("88")), "cpufreq")
    assert isinstance(missing, Missing)
    assert missing.reason == "not in the source: /sys/devices/system/cpu/cpufreq, `cpupower frequency-info`"


# elektricM/amd-bc250-docs#61 ("docs: add flags for cpupower", the "before" output), verbatim: a CPU other
# than 0 is analysed (cpupower picks one when --cpu is not given).
IDLE_INFO_CPU12 = """\
$ cpupower idle-info
CPUidle driver: acpi_idle
CPUidle governor: menu
analyzing CPU 12:

Number of idle states: 4
Available idle states: POLL C1 C2 C3
POLL:
Flags/Description: CPUIDLE CORE POLL IDLE
Latency: 0
Residency: 0
Usage: 946
Duration: 56142
C1:
Flags/Description: ACPI FFH MWAIT 0x0
Latency: 1
Residency: 2
Usage: 149456
Duration: 48326097
C2:
Flags/Description: ACPI IOPORT 0x414
Latency: 350
Residency: 700
Usage: 4780
Duration: 4302472
C3:
Flags/Description: ACPI IOPORT 0x415
Latency: 400
Residency: 800
Usage: 64055
Duration: 1581475808
"""


def test_idle_info_is_recorded_verbatim_and_equals_sysfs() -> None:
    host = pasted(IDLE_INFO_CPU12)
    recorded = host.run(["cpupower", "idle-info"]).stdout
    assert recorded == IDLE_INFO_CPU12.split("\n", 1)[1]  # everything but the prompt line
    assert invented(host, "/sys", "/proc") == [] and host.record.provenance["cmd:cpupower idle-info"].whole
    from_paste = fact(host, "cpuidle")
    # The same states read from sysfs (modelled from the paste), CPU 0's as the sysfs provider reads them.
    base = "/sys/devices/system/cpu/cpu0/cpuidle"
    states = [("POLL", "CPUIDLE CORE POLL IDLE", 0, 0), ("C1", "ACPI FFH MWAIT 0x0", 1, 2),
              ("C2", "ACPI IOPORT 0x414", 350, 700), ("C3", "ACPI IOPORT 0x415", 400, 800)]
    files = {"/sys/devices/system/cpu/cpuidle/current_driver": "acpi_idle\n",
             "/sys/devices/system/cpu/cpuidle/current_governor_ro": "menu\n"}
    for i, (name, desc, latency, residency) in enumerate(states):
        files.update({f"{base}/state{i}/name": name + "\n", f"{base}/state{i}/desc": desc + "\n",
                      f"{base}/state{i}/latency": f"{latency}\n", f"{base}/state{i}/residency": f"{residency}\n",
                      f"{base}/state{i}/disable": "0\n"})
    live = fact(fake_host(files=files, dirs={base: [f"state{i}" for i in range(4)]}), "cpuidle")
    assert (from_paste.driver, from_paste.governor, from_paste.states) == (live.driver, live.governor, live.states)
    # No PM QoS limit and no tuned profile in the paste: unknown, not "no constraint".
    assert from_paste.pm_qos_limit_us is None and "/etc/tuned/active_profile" in from_paste.unread


def test_cut_idle_info_is_an_excerpt() -> None:
    cut = IDLE_INFO_CPU12.split("C2:\n")[0]
    host = pasted(cut)
    assert host.record.provenance["cmd:cpupower idle-info"].whole is False
    assert [s.name for s in fact(host, "cpuidle").states] == ["POLL", "C1"]


# --- ulimit -a ------------------------------------------------------------------------------------


def test_ulimit_a_is_recorded_verbatim_as_a_document() -> None:
    text = body("78")  # pytorch#137695: bash `ulimit -a`, one row annotated by hand ("<<< This is too small")
    host = pasted(text)
    lines = text.splitlines()
    start = lines.index("$ ulimit -a") + 1
    end = lines.index("```", start)
    assert host.doc("ulimit_a") == "\n".join(lines[start:end]) + "\n"  # the annotated row too, as typed
    assert invented(host, "/proc", "/sys") == [] and host.record.provenance["doc:ulimit_a"].whole is True


def test_ulimit_a_equals_proc_self_limits_on_the_soft_column() -> None:
    from_paste = fact(pasted(body("78")), "self_limits")
    # The same shell's /proc/self/limits (modelled from the paste: kbytes x 1024, bash blocks of 1024 bytes).
    live = fact(fake_host(files={"/proc/self/limits": """\
Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max file size             unlimited            unlimited            bytes
Max data size             unlimited            unlimited            bytes
Max stack size            8388608              unlimited            bytes
Max core file size        0                    unlimited            bytes
Max resident set          unlimited            unlimited            bytes
Max processes             8254145              8254145              processes
Max open files            1024                 1048576              files
Max locked memory         270494257152         270494257152         bytes
Max address space         unlimited            unlimited            bytes
Max file locks            unlimited            unlimited            locks
Max pending signals       8254145              8254145              signals
Max msgqueue size         819200               819200               bytes
Max nice priority         0                    0
Max realtime priority     0                    0
Max realtime timeout      unlimited            unlimited            us
"""}), "self_limits")
    assert {k: v[0] for k, v in from_paste.values.items()} == {k: v[0] for k, v in live.values.items()}
    # The shell shows no hard limit: unknown, never copied from the soft one.
    assert all(hard == "unknown" for _, hard in from_paste.values.values())
    assert from_paste.soft("Max open files") == 1024 and not from_paste.known("Max open files", 1)


def test_cut_ulimit_a_is_an_excerpt_and_no_paste_names_both_sources() -> None:
    cut = pasted("open files                          (-n) 1024\nstack size                  (kbytes, -s) 8192\n"
                 "max locked memory           (kbytes, -l) 64\n")
    assert cut.record.provenance["doc:ulimit_a"].whole is False
    assert fact(cut, "self_limits").soft("Max locked memory") == 65536
    missing = fact(pasted(body("88")), "self_limits")
    assert isinstance(missing, Missing) and missing.reason == "not in the source: /proc/self/limits, `ulimit -a`"


# --- df -----------------------------------------------------------------------------------------


def test_df_h_without_prompt_is_recorded_verbatim_under_df_h() -> None:
    text = body("33")  # a `df -h` table in a fence, no prompt line (a k8s pod, /dev/shm 64M)
    host = pasted(text)
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Filesystem "))
    assert host.run(["df", "-h"]).stdout == "\n".join(lines[start:start + 4]) + "\n"
    assert [a for a in host.record.commands if a[0] == "df"] == [("df", "-h")]  # no `df -k -P` rebuilt
    assert host.record.provenance["cmd:df -h"].whole is True


def test_df_h_paste_equals_df_k_p_dev_shm_on_the_shm_row() -> None:
    from_paste = fact(pasted(body("33")), "shm")
    # The same pod read live: `df -k -P /dev/shm` (modelled from the paste's 64M tmpfs, nothing used).
    live = fact(fake_host(commands={("df", "-k", "-P", "/dev/shm"): (
        "Filesystem     1024-blocks  Used Available Capacity Mounted on\n"
        "tmpfs                65536     0     65536       0% /dev/shm\n")}), "shm")
    assert (from_paste.size_bytes, from_paste.used_bytes, from_paste.available_bytes, from_paste.mounted_on) == (
        live.size_bytes, live.used_bytes, live.available_bytes, live.mounted_on) == (64 << 20, 0, 64 << 20, "/dev/shm")
    assert from_paste.sources == ("df -h",) and live.sources == ("df -k -P /dev/shm",)


def test_df_prompt_line_gives_the_argv() -> None:
    host = pasted(body("52"))  # docker-ce: `root@...:/# df -h` in a container, the copy cut after two rows
    assert host.run(["df", "-h"]).stdout.splitlines()[1].startswith("overlay ")
    # Modelled on capture 73's `kubectl exec ... -- df -h /dev/shm`, with a whole row.
    shm_only = pasted("`kubectl exec -it vllm-router -- df -h /dev/shm`\nFilesystem      Size  Used Avail Use% Mounted on\n"
                      "shm              64M     0   64M   0% /dev/shm\n")
    assert list(shm_only.record.commands) == [("df", "-h", "/dev/shm")]
    assert fact(shm_only, "shm").size_bytes == 64 << 20


def test_df_typed_table_and_container_from_its_overlay_root() -> None:
    host = pasted("$ df -T\nFilesystem     Type     1K-blocks    Used Available Use% Mounted on\n"
                  "overlay        overlay  102687672 5332676  92095740   6% /\n"
                  "shm            tmpfs        65536       0     65536   0% /dev/shm\n")
    assert list(host.record.commands) == [("df", "-T")]
    assert fact(host, "shm").size_bytes == 64 << 20
    assert fact(host, "container").kind == "container"


# --- docker inspect -----------------------------------------------------------------------------------


def test_docker_inspect_is_recorded_as_pasted_and_equals_the_live_read() -> None:
    from test_ctr_facts import docker_object  # modelled on a vLLM container's inspect (see there)

    obj = docker_object(name="vllm", cid="a" * 64)
    array = json.dumps([obj], indent=2)  # two-space indent: the paste's own layout, not the tool's
    host = pasted("$ docker inspect vllm\n" + array + "\n$ exit\n")
    recorded = host.doc("docker_inspect")
    assert recorded.splitlines()[:3] == array.splitlines()[:3] and len(recorded.splitlines()) == len(array.splitlines())
    assert not any(argv[0] == "docker" for argv in host.record.commands)  # no `docker ps -q` listing invented
    assert host.record.provenance["doc:docker_inspect"].whole is True
    # The same container on a live Docker host: `docker ps -q`, then `docker inspect <id>`, whose output the
    # host layer redacts before any fact sees it (host/redact.py).
    inspect = ("docker", "inspect", "a" * 12)
    live = fake_host(which={"docker": "/usr/bin/docker"}, commands={
        ("docker", "ps", "-q"): "a" * 12 + "\n", inspect: redact_command_output(inspect, array)})
    assert fact(host, "docker_containers") == fact(live, "docker_containers")


def test_docker_inspect_without_a_paste_names_both_sources() -> None:
    missing = fact(pasted(body("88")), "docker_containers")
    assert isinstance(missing, Missing)
    assert missing.reason == ("not in the source: `docker ps -q`, pasted `docker inspect`, pasted `docker run` command "
                              "line, pasted docker compose file, pasted Kubernetes pod / deployment spec, pasted "
                              "`docker inspect` excerpt")


# --- lspci ------------------------------------------------------------------------------------------


def test_lspci_nn_vvv_is_recorded_under_the_flags_it_shows_and_equals_the_live_listing() -> None:
    from stackaudit.facts.pcie import LSPCI_ARGV, PcieFacts

    text = body("05")  # hwloc#653: one A100's `lspci -vvv -nn` entry, no domain in its address, cut at DevSta
    host = pasted(text)
    assert host.run(["lspci", "-nn", "-vvv"]).stdout == text.strip("\n") + "\n"  # as pasted
    assert LSPCI_ARGV not in host.record.commands and invented(host, "/sys", "/proc") == []
    from_paste = fact(host, "pcie")
    # The same listing as the live `lspci -D -nn -vvv` prints it (the domain added to the address).
    live = fact(fake_host(commands={LSPCI_ARGV: "0000:" + text.lstrip()}), "pcie")
    assert isinstance(from_paste, PcieFacts) and isinstance(live, PcieFacts)
    assert [(f.bdf, f.role, f.config) for f in from_paste.functions] == [(f.bdf, f.role, f.config) for f in live.functions]
    [gpu] = from_paste.gpus
    assert gpu.config is not None and gpu.config.express is not None and gpu.config.express.devctl_mrrs == 512


def test_grepped_acsctl_lines_are_an_lspci_vvv_excerpt() -> None:
    host = pasted(body("07"))  # nccl#629: `lspci -vvv | grep ACSCtl`, no device headers
    [argv] = [a for a in host.record.commands if a[0] == "lspci"]
    assert argv == ("lspci", "-vvv") and host.record.provenance["cmd:lspci -vvv"].whole is False
    assert len(fact(host, "pcie").loose) == 16


def test_iommu_group_listing_is_a_document_not_a_rebuilt_lspci() -> None:
    text = body("28")  # an IOMMU-group script's output under `IOMMU Group N:` headings
    host = pasted(text)
    assert not [a for a in host.record.commands if a[0] == "lspci"]
    listing = host.doc("iommu_group_listing")
    assert listing.splitlines()[0] == "IOMMU Group 0:" and all(line in text.splitlines() for line in listing.splitlines())
    gpu = fact(host, "pcie").by_bdf()["0000:01:00.0"]
    assert gpu.lspci is not None and gpu.lspci.iommu_group == 1


# --- nvidia-smi topo -m / -p2p, collect_env ----------------------------------------------------------


def test_topo_p2p_rw_is_recorded_once_under_its_argv_and_equals_the_live_run() -> None:
    text = body("59")  # vllm benchmark template: `topo -m` and `topo -p2p rw` of two RTX 5090s (GNS)
    host = pasted(text)
    p2p_argvs = [a for a in host.record.commands if a[:3] == ("nvidia-smi", "topo", "-p2p")]
    assert p2p_argvs == [("nvidia-smi", "topo", "-p2p", "rw")] and ("nvidia-smi", "topo", "-m") in host.record.commands
    recorded = host.run(["nvidia-smi", "topo", "-p2p", "rw"]).stdout
    assert all(line.rstrip() in [ln.rstrip() for ln in text.splitlines()] for line in recorded.splitlines())
    live = fake_host(commands={("nvidia-smi", "topo", "-p2p", "rw"): recorded,
                               ("nvidia-smi", "topo", "-m"): host.run(["nvidia-smi", "topo", "-m"]).stdout})
    assert fact(host, "gpu_p2p") == fact(live, "gpu_p2p")
    assert fact(host, "gpu_topology") == fact(live, "gpu_topology")


def test_collect_env_topology_stays_in_the_report_and_equals_topo_m() -> None:
    from stackaudit.facts.collect_env import parse_collect_env

    host = pasted(body("11"))  # vllm#4455-style report: 8x A100 NV12, the matrix inside collect_env
    assert ("nvidia-smi", "topo", "-m") not in host.record.commands
    report = parse_collect_env(host.run(["python3", "-m", "vllm.collect_env"]).stdout)
    live = fake_host(commands={("nvidia-smi", "topo", "-m"): report.topology_text})
    from_paste, from_live = fact(host, "gpu_topology"), fact(live, "gpu_topology")
    assert from_paste == from_live and from_paste.link("GPU0", "GPU7") == "NV12"


def test_no_topology_anywhere_names_both_sources() -> None:
    missing = fact(pasted(body("88")), "gpu_topology")
    assert isinstance(missing, Missing) and missing.reason.startswith("not in the source: `nvidia-smi topo -m`, ")


# --- snapshot format 2: the verbatim pastes replay as themselves ----------------------------------------


def test_a_paste_of_every_converted_kind_replays_from_a_format_2_snapshot(tmp_path: Path) -> None:
    from stackaudit.host.snapshot_reader import load_snapshot
    from stackaudit.host.snapshot_writer import write_snapshot
    from stackaudit.importers.pasted import load_pasted

    text = "\n\n".join(body(n) for n in ("88", "27", "78", "33", "05", "59")) + "\n\n" + IDLE_INFO_CPU12
    paste = tmp_path / "report.txt"
    paste.write_text(text)
    host = load_pasted([str(paste)])
    assert invented(host, "/sys", "/proc") == []
    write_snapshot(host.record, str(tmp_path / "snap.tar.gz"))
    replayed = load_snapshot(str(tmp_path / "snap.tar.gz"))
    names = ("sysctls", "cpufreq", "cpuidle", "self_limits", "shm", "pcie", "gpu_p2p", "gpu_topology")
    load_facts()
    before, after = Collector(host).results(names), Collector(replayed).results(names)
    assert not any(isinstance(v, Missing) for v in before.values()), before
    assert before == after
    assert replayed.record.provenance["doc:ulimit_a"].file == "report.txt"
