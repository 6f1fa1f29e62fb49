"""KVER checks through the real engine on fake hosts."""

from __future__ import annotations

from typing import Any

from corpus import capture_checks
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import fake_host

CPU = "/sys/devices/system/cpu"


def lscpu(vendor: str, model: str, family: int, flags: str = "fpu vme de pse tsc msr", hypervisor: str = "") -> str:
    return (f"Architecture:        x86_64\nCPU(s):              64\nVendor ID:           {vendor}\n"
            f"Model name:          {model}\nCPU family:          {family}\nModel:               17\n"
            f"Socket(s):           2\n" + (f"Hypervisor vendor:   {hypervisor}\n" if hypervisor else "")
            + f"Flags:               {flags}\n")


TURIN = lscpu("AuthenticAMD", "AMD EPYC 9575F 64-Core Processor", 26)
GENOA = lscpu("AuthenticAMD", "AMD EPYC 9654 96-Core Processor", 25)
XEON = lscpu("GenuineIntel", "Intel(R) Xeon(R) Platinum 8480+", 6, "fpu vme hwp hwp_epp")


def uname(release: str) -> str:
    return f"Linux node1 {release} #1 SMP PREEMPT_DYNAMIC Mon Jan  6 10:00:00 UTC 2025 x86_64 x86_64 x86_64 GNU/Linux\n"


def cpufreq(driver: str, governor: str = "performance", n: int = 4) -> dict[str, Any]:
    files: dict[str, Any] = {f"{CPU}/present": f"0-{n - 1}\n"}
    for i in range(n):
        files[f"{CPU}/cpufreq/policy{i}/scaling_driver"] = driver + "\n"
        files[f"{CPU}/cpufreq/policy{i}/scaling_governor"] = governor + "\n"
    return files


def run(check: str, files: dict[str, Any], cpu: str, release: str = "6.8.0-45-generic",
        commands: dict[str, Any] | None = None, **kw: Any) -> Result:
    cmds: dict[str, Any] = {"lscpu": cpu, "uname -a": uname(release)}
    cmds.update(commands or {})
    return run_checks(fake_host(files=files, commands=cmds, **kw), select=[check])[check]


# --- KVER-AMD-ZEN5 ---------------------------------------------------------------------------


def test_zen5_old_kernel_slow_governor_is_low_issue() -> None:
    r = run("KVER-AMD-ZEN5", cpufreq("acpi-cpufreq", "schedutil"), TURIN, "6.11.0-19-generic")
    assert r.status == "issue" and r.severity == "low" and "capability gap" in r.message


def test_zen5_before_model_ids_says_unverified() -> None:
    r = run("KVER-AMD-ZEN5", cpufreq("acpi-cpufreq", "schedutil"), TURIN, "6.8.0-45-generic")
    assert r.status == "issue" and "unverified" in r.message and r.confidence == "unproven"


def test_zen5_kernel_version_alone_is_never_the_finding() -> None:
    # acpi-cpufreq + performance runs Turin at full speed: the pre-model-ID kernel is a caveat, not an issue.
    r = run("KVER-AMD-ZEN5", cpufreq("acpi-cpufreq", "performance"), TURIN, "6.8.0-45-generic")
    assert r.status == "not-an-issue" and "runs fine" in r.message and "model IDs" in r.message


def test_zen5_acpi_performance_before_613_is_not_an_issue() -> None:
    r = run("KVER-AMD-ZEN5", cpufreq("acpi-cpufreq", "performance"), TURIN, "6.11.0-19-generic")
    assert r.status == "not-an-issue" and "runs fine" in r.message


def test_zen5_new_kernel_ok_and_genoa_not_applicable() -> None:
    assert run("KVER-AMD-ZEN5", cpufreq("amd-pstate-epp", "powersave"), TURIN, "6.14.0-29-generic").status == "ok"
    assert run("KVER-AMD-ZEN5", cpufreq("acpi-cpufreq"), GENOA).status == "not-applicable"


# --- KVER-INTEL-PSTATE -----------------------------------------------------------------------


def test_intel_pstate_disable_on_cmdline_is_issue() -> None:
    files = cpufreq("acpi-cpufreq")
    files["/proc/cmdline"] = "BOOT_IMAGE=/vmlinuz ro intel_pstate=disable intel_idle.max_cstate=1\n"
    r = run("KVER-INTEL-PSTATE", files, XEON)
    assert r.status == "issue" and "intel_pstate=disable" in r.message


def test_intel_no_cpufreq_on_bare_metal_is_issue_mentioning_bios_profile() -> None:
    r = run("KVER-INTEL-PSTATE", {f"{CPU}/present": "0-63\n"}, XEON, dirs={f"{CPU}/cpufreq": []},
            commands={"dmesg": "[    2.421042] intel_pstate: P-states controlled by the platform\n"})
    assert r.status == "issue" and "Performance" in r.message and r.fix_cost == "bios"
    assert r.evidence


def test_intel_acpi_on_hwp_xeon_is_issue_and_active_ok() -> None:
    assert run("KVER-INTEL-PSTATE", cpufreq("acpi-cpufreq"), XEON).status == "issue"
    files = cpufreq("intel_pstate", "powersave")
    files[f"{CPU}/intel_pstate/status"] = "active\n"
    r = run("KVER-INTEL-PSTATE", files, XEON)
    assert r.status == "ok" and "active" in r.message


def test_intel_vm_not_applicable() -> None:
    vm = lscpu("GenuineIntel", "Intel Xeon Processor (Icelake)", 6, "fpu hypervisor", "KVM")
    assert run("KVER-INTEL-PSTATE", {}, vm, dirs={f"{CPU}/cpufreq": []}).status == "not-applicable"


# --- KVER-NVIDIA-KERNEL-COMBOS ---------------------------------------------------------------


def gpu(bdf: str = "0000:41:00.0", device: str = "0x2330") -> dict[str, Any]:
    base = f"/sys/bus/pci/devices/{bdf}"
    return {f"{base}/vendor": "0x10de\n", f"{base}/device": f"{device}\n", f"{base}/class": "0x030200\n",
            f"{base}/numa_node": "0\n"}


def test_rhel9_570_with_hmm_is_high_issue() -> None:
    files = gpu()
    files["/sys/module/nvidia/version"] = "570.124.06\n"
    files["/sys/module/nvidia_uvm/parameters/uvm_disable_hmm"] = "N\n"
    r = run("KVER-NVIDIA-KERNEL-COMBOS", files, XEON, "5.14.0-570.12.1.el9_6.x86_64")
    assert r.status == "issue" and r.severity == "high" and "#901" in r.message
    assert r.fix is not None and "uvm_disable_hmm=1" in r.fix.runtime and r.fix_cost == "driver-reload"


def test_rhel9_570_with_workaround_is_not_an_issue() -> None:
    files = gpu()
    files["/sys/module/nvidia/version"] = "570.124.06\n"
    files["/sys/module/nvidia_uvm/parameters/uvm_disable_hmm"] = "Y\n"
    r = run("KVER-NVIDIA-KERNEL-COMBOS", files, XEON, "5.14.0-570.12.1.el9_6.x86_64")
    assert r.status == "not-an-issue"


def test_linux_611_is_issue_and_dkms_failure_is_issue() -> None:
    files = gpu()
    files["/sys/module/nvidia/version"] = "565.57.01\n"
    assert run("KVER-NVIDIA-KERNEL-COMBOS", files, XEON, "6.11.0-1-generic").status == "issue"
    from stackaudit.host.base import CommandResult

    r = run("KVER-NVIDIA-KERNEL-COMBOS", gpu(), XEON, "6.8.0-51-generic", commands={
        "modinfo -F version nvidia": CommandResult(("modinfo", "-F", "version", "nvidia"), 1, "",
                                                   "modinfo: ERROR: Module nvidia not found.\n")})
    assert r.status == "issue" and "DKMS" in r.message and r.subjects == ("0000:41:00.0",)


def test_blackwell_595_hmm_is_issue_and_plain_host_ok() -> None:
    files = gpu(device="0x2bb1")
    files["/sys/module/nvidia/version"] = "595.45.04\n"
    files["/sys/module/nvidia_uvm/parameters/uvm_disable_hmm"] = "N\n"
    r = run("KVER-NVIDIA-KERNEL-COMBOS", files, XEON, "6.8.0-51-generic")
    assert r.status == "issue" and "#1223" in r.message
    files = gpu()
    files["/sys/module/nvidia/version"] = "570.124.06\n"
    assert run("KVER-NVIDIA-KERNEL-COMBOS", files, XEON, "6.8.0-51-generic").status == "ok"


def test_no_gpu_not_applicable() -> None:
    files = {"/sys/bus/pci/devices/0000:00:00.0/vendor": "0x8086\n",
             "/sys/bus/pci/devices/0000:00:00.0/class": "0x060000\n"}
    assert run("KVER-NVIDIA-KERNEL-COMBOS", files, XEON).status == "not-applicable"


# --- KVER-DMABUF -----------------------------------------------------------------------------

PROC_MODULES = "nvidia_uvm 1437696 0 - Live 0x0000000000000000\nnvidia 54308864 10 nvidia_uvm, Live 0x0\n" \
               "mlx5_ib 425984 0 - Live 0x0\nib_core 434176 2 mlx5_ib, Live 0x0\n"


def rdma_host(open_module: bool, peermem: bool = False) -> dict[str, Any]:
    flavour = "Open Kernel Module for x86_64" if open_module else "x86_64 Kernel Module"
    files: dict[str, Any] = {
        "/proc/driver/nvidia/version": f"NVRM version: NVIDIA UNIX {flavour}  570.124.06  Release Build\n",
        "/proc/modules": PROC_MODULES + ("nvidia_peermem 16384 0 - Live 0x0\n" if peermem else ""),
    }
    return files


def test_dmabuf_proprietary_without_peermem_is_issue() -> None:
    r = run("KVER-DMABUF", rdma_host(False), XEON, dirs={"/sys/class/infiniband": ["mlx5_0", "mlx5_1"]})
    assert r.status == "issue" and "multi-node" in r.message and r.subjects == ("mlx5_0", "mlx5_1")


def test_dmabuf_open_module_new_kernel_ok_and_peermem_ok() -> None:
    assert run("KVER-DMABUF", rdma_host(True), XEON, dirs={"/sys/class/infiniband": ["mlx5_0"]}).status == "ok"
    assert run("KVER-DMABUF", rdma_host(False, peermem=True), XEON,
               dirs={"/sys/class/infiniband": ["mlx5_0"]}).status == "ok"


def test_dmabuf_single_node_engine_is_not_an_issue() -> None:
    files = rdma_host(False)
    argv = ["/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-72B-Instruct", "--tp", "4"]
    files.update({"/proc/777/cmdline": "\0".join(argv) + "\0",
                  "/proc/777/stat": "777 (python3) S 1 777 777 0 -1 0 0 0 0 0\n",
                  "/proc/777/status": "Name:\tpython3\nPid:\t777\nPPid:\t1\n"})
    r = run("KVER-DMABUF", files, XEON, dirs={"/sys/class/infiniband": ["mlx5_0"]})
    assert r.status == "not-an-issue" and "one node" in r.message


def _engine_host(argv: list[str]) -> dict[str, Any]:
    files = rdma_host(False)
    files.update({"/proc/777/cmdline": "\0".join(argv) + "\0",
                  "/proc/777/stat": "777 (python3) S 1 777 777 0 -1 0 0 0 0 0\n",
                  "/proc/777/status": "Name:\tpython3\nPid:\t777\nPPid:\t1\n"})
    return files


def test_dmabuf_reads_the_engines_multi_node_flags_as_ic_does() -> None:
    """One rule with IC-NCCL-ENV and IC-NIC-GPU-AFFINITY (facts/parallelism.multi_node_flags): `--nnodes 1` is one node
    (modelled), `--nnodes 2 --node-rank 0` (the shape of sglang#4161's command) spans nodes."""
    base = ["/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-R1", "--tp", "16"]
    one = run("KVER-DMABUF", _engine_host([*base, "--nnodes", "1"]), XEON, dirs={"/sys/class/infiniband": ["mlx5_0"]})
    assert one.status == "not-an-issue" and "one node" in one.message
    two = run("KVER-DMABUF", _engine_host([*base, "--nnodes", "2", "--node-rank", "0"]), XEON,
              dirs={"/sys/class/infiniband": ["mlx5_0"]})
    assert two.status == "issue" and "matters only" not in two.message


def test_dmabuf_no_rdma_not_applicable() -> None:
    assert run("KVER-DMABUF", rdma_host(False), XEON).status == "not-applicable"


def test_intel_no_cpufreq_inside_a_container_is_unknown_not_an_issue() -> None:
    """A container that shows no cpufreq says nothing about the host's P-state control (blind read)."""
    r = run("KVER-INTEL-PSTATE", {f"{CPU}/present": "0-63\n", "/.dockerenv": ""}, XEON, dirs={f"{CPU}/cpufreq": []})
    assert r.status == "unknown" and "container" in r.message and "--root" in r.hint


def test_driver_kernel_combos_do_not_apply_under_a_wsl2_kernel() -> None:
    """Corpus 1138 (vllm-project/vllm#17611): collect_env from WSL 2 (kernel 5.15.167.4-microsoft-standard-WSL2, the
    Windows driver 572.60): no NVIDIA module runs in that kernel."""
    r = capture_checks("1138", "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert r.status == "not-applicable" and "WSL 2" in r.message


def test_driver_kernel_combos_do_not_apply_under_a_tegra_kernel() -> None:
    """Corpus 2413 (NVIDIA/dcgm-exporter#234): `uname -a` of a Jetson, 5.10.120-rt70-tegra; and corpus 1715
    (another thread), collect_env's platform Linux-5.15.136-tegra: L4T's BSP ships the GPU driver built for its
    kernel (issue 28, h106a)."""
    for prefix, release in (("2413", "5.10.120-rt70-tegra"), ("1715", "5.15.136-tegra")):
        r = capture_checks(prefix, "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
        assert r.status == "not-applicable" and release in r.message and "Tegra" in r.message


def test_tegra_kernel_words() -> None:
    from stackaudit.facts.platform import tegra_kernel

    assert tegra_kernel("5.10.120-rt70-tegra") and tegra_kernel("4.9.253-tegra")
    # Modelled: a generic kernel, a release that only names tegra inside it, a host name.
    assert not tegra_kernel("6.8.0-45-generic") and not tegra_kernel("5.15.0-tegra-custom")
    assert not tegra_kernel("tegra")


def test_a_refused_peer_memory_module_on_a_kernel_before_5_12_is_both_paths_off(tmp_path) -> None:
    """Corpus 2430 (Mellanox/nv_peer_memory#43): modprobe refuses nv_peer_mem on kernel 3.10 with a ConnectX-3 in
    lspci: no peer-memory client and no DMA-BUF, whatever the module's flavour. Corpus 2429 (NVIDIA/gpu-operator#2868):
    nvidia_peermem refused with no kernel and no RDMA NIC shown stays unknown. The same 2430 paste on kernel 5.15
    (modelled) leaves DMA-BUF open: the flavour is not shown."""
    from corpus import body, capture_checks, paste_checks

    result = capture_checks("2430", "KVER-DMABUF")["KVER-DMABUF"]
    assert result.status == "issue", result.message
    assert "refused to load nv_peer_mem" in result.message and "older than 5.12" in result.message
    assert capture_checks("2429", "KVER-DMABUF")["KVER-DMABUF"].status == "unknown"
    newer = body("2430").replace("3.10.0-862.el7.x86_64", "5.15.0-91-generic")
    later = paste_checks(tmp_path, newer, "KVER-DMABUF")["KVER-DMABUF"]
    assert later.status == "unknown" and "5.15.0-91" in later.message, later.message


def test_a_kernel_before_5_12_with_an_excerpt_of_the_module_list_leaves_peer_memory_open(tmp_path) -> None:
    """Modelled on corpus 2430 without its modprobe refusal: kernel 3.10, a ConnectX-3 in lspci and `lsmod | grep
    mlx`. DMA-BUF is off on that kernel, but a grep for mlx shows nothing of nv_peer_mem: the peer-memory path stays
    open, so unknown, never an issue read off the excerpt."""
    from corpus import paste_checks

    text = ("$ uname -r\n3.10.0-862.el7.x86_64\n$ lspci | grep Mellanox\n"
            "01:00.0 Network controller: Mellanox Technologies MT27500 Family [ConnectX-3]\n$ lsmod | grep mlx\n"
            "mlx4_ib               159200  0\nmlx4_core             297413  1 mlx4_ib\n")
    result = paste_checks(tmp_path, text, "KVER-DMABUF")["KVER-DMABUF"]
    assert result.status == "unknown", result.message
