"""Whole-host scenarios, replayed from snapshots and audited as a user would (`audit --from`).

Each scenario is a realistic fake host (tests/scenario_builder.py) captured with
`stackaudit.capture.capture_host` into a .tar.gz and audited through the CLI with `--format json`.
The expected statuses below are written by hand, one per check, each with the check's entry
(docs/checks.md) and the sentence of it that justifies the expectation; they were never
produced by the tool. Priorities follow docs/design.md ("P0 = high severity, fixable without reboot
(runtime, restart or driver-reload), confidence documented or better; P1 = other high, or medium;
P2 = the rest").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from scenario_builder import (
    ACPI_IDLE_EPYC,
    EPYC_7543,
    EPYC_9354,
    EPYC_9355,
    INTEL_IDLE_SPR,
    QEMU_SPR,
    XEON_8468,
    XEON_8480,
    Gpu,
    IdleState,
    Parts,
    bare_metal,
    build_host,
    cgroup_v2,
    cpu_topology,
    cpufreq,
    cpuidle,
    detect_virt,
    dev_nodes,
    dmesg,
    docker_container,
    interrupts,
    irqbalance,
    kernel,
    kubernetes_pod,
    lscpu,
    lxc_container,
    memory,
    merge,
    numa_layout,
    nvidia_driver,
    nvidia_gpus,
    nvml_userspace,
    pressure,
    proc_devices,
    proc_limits,
    processes,
    proxmox_lxc_conf,
    python_site,
    sglang_server,
    sysctl_conf,
    sysctls,
    thp,
    vllm_serve,
    vmstat,
    vulnerabilities_sysfs,
)
from stackaudit.capture import capture_host
from stackaudit.cli.main import main

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "report.schema.json").read_text())
GIB_KIB = 1024 * 1024
VLLM_PKGS = {"torch": "2.7.1+cu128", "vllm": "0.10.1.1", "triton": "3.3.1", "transformers": "4.55.2",
             "nvidia-nccl-cu12": "2.26.2", "xformers": "0.0.31", "setproctitle": "1.3.6"}
COMMON_SYSCTLS = dict(kernel__nmi_watchdog=1, kernel__watchdog=1, kernel__soft_watchdog=1,
                      kernel__sched_autogroup_enabled=1, kernel__sched_rt_runtime_us=950000,
                      kernel__dmesg_restrict=1, vm__overcommit_memory=0, vm__zone_reclaim_mode=0,
                      vm__max_map_count=1048576, fs__file_max="9223372036854775807", fs__nr_open=1048576)
MODULES = ("nvidia_uvm 4956160 4 - Live 0x0000000000000000 (PO)\n"
           "nvidia_drm 131072 0 - Live 0x0000000000000000 (PO)\n"
           "nvidia_modeset 1638400 1 nvidia_drm, Live 0x0000000000000000 (PO)\n"
           "nvidia 11640832 34 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (PO)\n"
           "mlx5_ib 495616 0 - Live 0x0000000000000000\nib_uverbs 200704 1 mlx5_ib, Live 0x0000000000000000\n"
           "mlx5_core 2580480 1 mlx5_ib, Live 0x0000000000000000\n")


def _sysctls(**values: Any) -> Parts:
    return sysctls(**{**COMMON_SYSCTLS, **values})


# --- 1. bare-metal dual-socket AMD EPYC 9354 (Genoa) with bad knobs, 8x L40S, vLLM TP=8 ----------


def amd_bad_knobs() -> Parts:
    nodes = numa_layout(2, 32, 2)
    roots = ["0000:00:01.1", "0000:20:01.1", "0000:40:01.1", "0000:60:01.1",
             "0000:80:01.1", "0000:a0:01.1", "0000:c0:01.1", "0000:e0:01.1"]
    gpus = [Gpu(f"0000:{r[5:7][0]}1:00.0", r, i // 4, 20 + i) for i, r in enumerate(roots)]
    env = {"SHELL": "/bin/bash", "USER": "llm", "HOME": "/home/llm", "PATH": "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin",
           "VIRTUAL_ENV": "/opt/venv", "HF_HOME": "/data/hf", "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
           "OMP_NUM_THREADS": "64", "CUDA_DEVICE_MAX_CONNECTIONS": "1", "VLLM_USE_FLASHINFER_SAMPLER": "0",
           "XDG_SESSION_ID": "7", "XDG_RUNTIME_DIR": "/run/user/1000"}
    argv = ["/opt/venv/bin/python3", "/opt/venv/bin/vllm", "serve", "meta-llama/Llama-3.3-70B-Instruct",
            "--tensor-parallel-size", "8", "--enforce-eager", "--max-model-len", "32768",
            "--gpu-memory-utilization", "0.92", "--port", "8000"]
    engine = vllm_serve(4101, 3977, argv, env, tp=8, ncpu=128, exe="/usr/bin/python3.12", uid=1000,
                        limits=proc_limits(nofile=("1024", "4096")), swap_kb=(1_843_200, 512_000, 0))
    return merge(
        kernel("6.8.0-45-generic", "#45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024", "gpu-amd-01",
               "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=UUID=4c1c2a8e-6f1d-4a8e-9c55-2b7d6a1f0e13 ro amd_iommu=on "
               "quiet splash"),
        lscpu(EPYC_9354, 2, 2, nodes), cpu_topology(nodes, 396_103_412), vulnerabilities_sysfs("AuthenticAMD"),
        cpufreq(128, "acpi-cpufreq", "powersave", min_khz=1_500_000, max_khz=3_250_000, cur_khz=1_500_000,
                boost="0", governors="conservative ondemand userspace powersave performance schedutil"),
        cpuidle("acpi_idle", ACPI_IDLE_EPYC, pm_qos_us=2_000_000_000),
        _sysctls(kernel__numa_balancing=1, vm__swappiness=60),
        thp("always", "always"),
        vmstat(1_728_000, compact_stall=18_234, compact_fail=3_120, numa_hint_faults=91_234_567,
               numa_pages_migrated=1_234_567),
        memory(792_206_824, [("/swap.img", "file", 8_388_604, 2_314_240)]),
        pressure(2.1),
        sysctl_conf({"/etc/sysctl.d/60-hpc-tuning.conf": "# from an HPC tuning guide (2019)\n"
                                                         "kernel.sched_migration_cost_ns = 5000000\n"
                                                         "kernel.sched_min_granularity_ns = 10000000\n"
                                                         "vm.swappiness = 60\n"}),
        interrupts(8), irqbalance("inactive"), detect_virt("none"),
        nvidia_gpus(gpus, iommu_type="DMA-FQ"), nvidia_driver("570.133.20"), dev_nodes(range(8)), proc_devices(),
        nvml_userspace("570.133.20"), Parts(files={"/proc/modules": MODULES.split("mlx5_ib")[0]}),
        dmesg(["[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) #45-Ubuntu SMP",
               "[    0.000000] Command line: BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro amd_iommu=on quiet splash",
               "[    0.412345] AMD-Vi: Unknown option - 'on'",
               "[    1.904821] pci 0000:00:00.2: AMD-Vi: IOMMU performance counters supported",
               "[    1.906513] AMD-Vi: Interrupt remapping enabled",
               "[    1.934210] iommu: Default domain type: Translated",
               "[    1.934214] iommu: DMA domain TLB invalidation policy: lazy mode",
               "[    4.512000] amd_pstate: the _CPC object is not present in SBIOS or ACPI disabled",
               "[   12.118201] nvidia: loading out-of-tree module taints kernel."]),
        processes(engine),
        python_site("/opt/venv/lib/python3.12/site-packages",
                    {**VLLM_PKGS, "flashinfer-python": "0.2.8", "flashinfer-cubin": "0.2.8",
                     "flashinfer-jit-cache": "0.2.6+cu128"}, "12.8"),
        Parts(files={"/opt/venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\n"
                                             "version = 3.12.3\n"}),
        bare_metal(9001, 128, 396_103_412, proc_limits()),
    )


AMD_BAD_KNOBS = {
    "KERN-PERSIST-BOOT": ("not-applicable", "KB KERN-PERSIST-BOOT — Bad value: a setting at the value its fix sets "
                                            "now (none here: every runtime knob the fixes change is at its bad value)"),
    "FW-IOMMU-MODE": ("issue", "KB FW-IOMMU-MODE — Bad value: group type `DMA` or `DMA-FQ` for GPU groups and the "
                               "GPUs use PCIe P2P (8x L40S, no NVLink, TP=8)"),
    "FW-VM": ("ok", "KB FW-VM — Applies when: `systemd-detect-virt --vm` prints a hypervisor (not `none`): it printed "
                    "none"),
    "FW-NUMA-NPS": ("ok", "KB FW-NUMA-NPS — Bad value: not a fault by itself; report the layout (every GPU reports "
                          "its node, none -1)"),
    "KERN-CPUFREQ-GOVERNOR": ("issue", "KB KERN-CPUFREQ-GOVERNOR — Bad value: driver `acpi-cpufreq` ... with "
                                       "governor `powersave` (= pinned to minimum frequency)"),
    "KERN-CPU-BOOST": ("issue", "KB KERN-CPU-BOOST — Detect: /sys/devices/system/cpu/cpufreq/boost (acpi-cpufreq / "
                                "amd-pstate: 0 = boost off); Bad value: turbo/boost off"),
    "KERN-EPP": ("not-applicable", "KB KERN-EPP — Applies when: `scaling_driver` is `intel_pstate` (HWP) or "
                                   "`amd-pstate-epp` (here acpi-cpufreq)"),
    # Issue 10's priority rule: no check repeats another's finding with a costlier fix — the slow governor is
    # KERN-CPUFREQ-GOVERNOR's (runtime); a driver switch (reboot) here would rank a costlier fix for one cause.
    "KERN-AMD-PSTATE": ("not-an-issue", "KB KERN-AMD-PSTATE — acpi-cpufreq with a slow governor is reported by "
                                        "KERN-CPUFREQ-GOVERNOR (issue 10: no repeat with a costlier fix)"),
    "KERN-CSTATES": ("issue", "KB KERN-CSTATES — Bad value: enabled states with exit latency >= ~100 µs ... and no "
                              "PM QoS limit (ACPI C2 400 µs, /dev/cpu_dma_latency = 2000000000: no constraint)"),
    "KERN-NUMA-BALANCING": ("issue", "KB KERN-NUMA-BALANCING — Bad value: non-zero on a multi-NUMA serving host "
                                     "(2 nodes)"),
    "KERN-THP": ("issue", "KB KERN-THP — Bad value: `defrag = [always]` together with rising `compact_stall` "
                          "(18234 stalls)"),
    "KERN-SWAP": ("issue", "KB KERN-SWAP — Bad value: `VmSwap` > 0 for API server/engine/worker processes"),
    "KERN-IRQ-AFFINITY": ("not-an-issue", "KB KERN-IRQ-AFFINITY — False positives: \"Disable irqbalance for GPU "
                                          "inference\" is not supported by evidence; for GPU-only traffic leave it"),
    "KERN-ISOLCPUS": ("not-applicable", "KB KERN-ISOLCPUS — Applies when: `isolcpus=`/`nohz_full=`/`rcu_nocbs=` on "
                                        "cmdline (none)"),
    "KERN-WATCHDOG": ("ok", "KB KERN-WATCHDOG — Bad value: none for performance; Report info only"),
    "KERN-MITIGATIONS": ("ok", "KB KERN-MITIGATIONS — Bad value: none by default (security decision); Report as info"),
    "KERN-SCHED-KNOBS": ("issue", "KB KERN-SCHED-KNOBS — Bad value: tuning scripts writing "
                                  "`kernel.sched_min_granularity_ns`/`sched_migration_cost_ns` (moved to debugfs in "
                                  "Linux 5.13, so writes fail silently on new kernels)"),
    "KVER-AMD-ZEN5": ("not-applicable", "KB KVER-AMD-ZEN5 — Applies when: `lscpu` CPU family 26 (0x1A); Genoa is 25"),
    "KVER-INTEL-PSTATE": ("not-applicable", "KB KVER-INTEL-PSTATE — Applies when: Intel hosts"),
    "KVER-NVIDIA-KERNEL-COMBOS": ("ok", "KB KVER-NVIDIA-KERNEL-COMBOS — known cases are RHEL 9 5.14.0-570 + 570/575, "
                                        "Linux 6.11, 595 on Blackwell, failed DKMS: none is 6.8 + 570 on Ada"),
    "KVER-DMABUF": ("not-applicable", "KB KVER-DMABUF — Applies when: multi-node NCCL over IB/RoCE or RDMA KV "
                                      "transfer (no RDMA device)"),
    "CTR-SHM-SIZE": ("issue", "KB CTR-SHM-SIZE Correction — on bare metal, systemd-logind's `RemoveIPC=yes` can "
                              "delete /dev/shm segments of a user's processes at logout: check it for non-root "
                              "service users (vLLM runs as uid 1000, RemoveIPC left at its default yes)"),
    "CTR-MEMLOCK": ("not-an-issue", "KB CTR-MEMLOCK — Negative result: CUDA pinned host memory is not limited by "
                                    "RLIMIT_MEMLOCK ... do not report it as a performance problem there"),
    "CTR-IPC-ISOLATION": ("not-applicable", "KB CTR-IPC-ISOLATION — Applies when: TP group split across several "
                                            "containers or pods (no container here)"),
    "CTR-LXC-DEVICES": ("not-applicable", "KB CTR-LXC-DEVICES — Applies when: LXC/LXD/Incus/Proxmox containers"),
    "CTR-K8S-GPU-TOPOLOGY": ("not-applicable", "KB CTR-K8S-GPU-TOPOLOGY — Applies when: K8s pods"),
    "RT-CUDA-GRAPHS": ("issue", "KB RT-CUDA-GRAPHS — Detect: /proc/<pid>/cmdline for vLLM `--enforce-eager`; "
                                "Bad value: graphs disabled on a production server"),
    "RT-ENV-VLLM": ("issue", "KB RT-ENV-VLLM — Bad value: `VLLM_USE_FLASHINFER_SAMPLER=0` (PyTorch-native "
                             "top-p/top-k fallback, slower)"),
    "RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS": ("issue", "KB RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS — Bad value: `1` in vLLM "
                                                    "workers (copied from Megatron training recipes) — unproven harm"),
    "RT-ULIMIT-NOFILE": ("issue", "KB RT-ULIMIT-NOFILE — Bad value: hard limit < 65536 (hard 4096)"),
    "RT-OMP": ("issue", "KB RT-OMP — Bad value: very large `OMP_NUM_THREADS` exported to all TP workers "
                        "(64 x 8 workers on 128 CPUs: oversubscription)"),
    "RT-FLASHINFER": ("issue", "KB RT-FLASHINFER — Bad value: the three FlashInfer packages at different versions "
                               "(jit-cache 0.2.6 vs 0.2.8)"),
    "RT-TORCH-ARCH": ("unknown", "KB RT-TORCH-ARCH — Detect: `torch.cuda.get_arch_list()`; the arch list is not "
                                 "readable from files (a blind read is unknown, general rule 2)"),
    "RT-VERSION-MATRIX": ("ok", "KB RT-VERSION-MATRIX — Severity: — (inventory)"),
    "RT-ENV-SGLANG": ("not-applicable", "KB RT-ENV-SGLANG — Applies when: SGLang"),
    "RT-TRTLLM-ALLREDUCE": ("not-applicable", "KB RT-TRTLLM-ALLREDUCE — Applies when: TensorRT-LLM with TP > 1"),
}


# --- 2. bare-metal dual Xeon Platinum 8480+ well tuned, 8x H100 PCIe, vLLM as a service -------


def intel_well_tuned() -> Parts:
    nodes = numa_layout(2, 56, 2)
    roots = ["0000:15:01.0", "0000:2a:01.0", "0000:3d:01.0", "0000:64:01.0",
             "0000:97:01.0", "0000:aa:01.0", "0000:bd:01.0", "0000:e4:01.0"]
    gpus = [Gpu(f"0000:{int(r[5:7], 16) + 1:02x}:00.0", r, i // 4, 40 + i, "0x2331", "H100 PCIe")
            for i, r in enumerate(roots)]
    env = {"LANG": "C.UTF-8", "PATH": "/srv/vllm/.venv/bin:/usr/bin:/bin", "HOME": "/srv/vllm",
           "VIRTUAL_ENV": "/srv/vllm/.venv", "INVOCATION_ID": "1d3a0c6b9d2f4c11a0c59f1bd7c3a0e2",
           "JOURNAL_STREAM": "8:51234", "HF_HOME": "/srv/models", "VLLM_SKIP_P2P_CHECK": "1"}
    argv = ["/srv/vllm/.venv/bin/python3", "/srv/vllm/.venv/bin/vllm", "serve", "/srv/models/Llama-3.1-405B-FP8",
            "--tensor-parallel-size", "8", "--max-model-len", "65536", "--port", "8000"]
    engine = vllm_serve(2210, 1, argv, env, tp=8, ncpu=224, exe="/usr/bin/python3.12", uid=998,
                        limits=proc_limits(nofile=("1048576", "1048576"), memlock=("unlimited", "unlimited")))
    return merge(
        kernel("6.8.0-52-generic", "#53~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Wed Jan 15 19:18:46 UTC 2", "gpu-intel-02",
               "BOOT_IMAGE=/vmlinuz-6.8.0-52-generic root=/dev/mapper/vg0-root ro intel_iommu=on iommu=pt"),
        lscpu(XEON_8480, 2, 2, nodes), cpu_topology(nodes, 1_056_512_000), vulnerabilities_sysfs("GenuineIntel"),
        cpufreq(224, "intel_pstate", "performance", min_khz=800_000, max_khz=3_800_000, cur_khz=3_000_000,
                epp="performance", intel_pstate={"status": "active", "no_turbo": "0", "max_perf_pct": "100",
                                                 "min_perf_pct": "21", "hwp_dynamic_boost": "0"}),
        cpuidle("intel_idle", INTEL_IDLE_SPR, pm_qos_us=99, tuned_profile="accelerator-performance",
                intel_max_cstate=9),
        _sysctls(kernel__numa_balancing=0, vm__swappiness=10),
        thp("always", "madvise"), vmstat(3_456_000, compact_stall=0, thp_fault_alloc=90_211),
        memory(2_113_024_000, [("/dev/dm-1", "partition", 8_388_604, 0)]), pressure(0.4),
        sysctl_conf({"/etc/sysctl.d/90-llm-serving.conf": "kernel.numa_balancing = 0\n"}),
        # Kept across reboots (KERN-PERSIST-BOOT), modelled: tuned enabled with its packaged
        # accelerator-performance profile (governor, PM QoS, swappiness) and a udev rule for EPP.
        Parts(files={"/usr/lib/tuned/accelerator-performance/tuned.conf":
                     "[main]\nsummary=Throughput performance based tuning with disabled higher latency STOP states\n"
                     "[cpu]\ngovernor=performance\nenergy_perf_bias=performance\nforce_latency=99\n"
                     "[sysctl]\nvm.swappiness=10\n",
                     "/etc/systemd/system/multi-user.target.wants/tuned.service": "",
                     "/etc/udev/rules.d/90-epp.rules":
                     'SUBSYSTEM=="cpu", ACTION=="add", ATTR{cpufreq/energy_performance_preference}="performance"\n'}),
        interrupts(8), irqbalance("active"), detect_virt("none"),
        nvidia_gpus(gpus, iommu_type="identity", root_vendor="0x8086", root_device="0x352a"),
        nvidia_driver("570.133.20"), dev_nodes(range(8)), proc_devices(), nvml_userspace("570.133.20"),
        Parts(files={"/proc/modules": MODULES},
              links={f"/sys/class/infiniband/mlx5_{i}/device": f"../../../0000:{b}:00.0"
                     for i, b in enumerate(("16", "2b", "98", "ab"))}),
        dmesg(["[    0.000000] Linux version 6.8.0-52-generic (buildd@lcy02-amd64-046)",
               "[    0.923311] DMAR: IOMMU enabled", "[    1.804212] iommu: Default domain type: Passthrough (set via "
               "kernel command line)", "[    2.100011] intel_pstate: Intel P-state driver initializing",
               "[    2.100233] intel_pstate: HWP enabled"]),
        processes(engine),
        python_site("/srv/vllm/.venv/lib/python3.12/site-packages", {**VLLM_PKGS, "flashinfer-python": "0.2.8"},
                    "12.8"),
        Parts(files={"/srv/vllm/.venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\n"}),
        bare_metal(9102, 224, 1_056_512_000, proc_limits()),
    )


INTEL_WELL_TUNED = {
    "KERN-PERSIST-BOOT": ("ok", "KB KERN-PERSIST-BOOT — Reads: sysctl.d, udev `ATTR{}=` rules, the active tuned profile "
                                "(when tuned.service is enabled): each runtime setting is kept"),
    "FW-IOMMU-MODE": ("ok", "KB FW-IOMMU-MODE — False positives: IOMMU enabled with `identity` groups is fine for "
                            "translation (that is what `iommu=pt` gives)"),
    "FW-VM": ("ok", "KB FW-VM — Applies when: `systemd-detect-virt --vm` prints a hypervisor (not `none`)"),
    "FW-NUMA-NPS": ("ok", "KB FW-NUMA-NPS — Bad value: not a fault by itself; report the layout"),
    "KERN-CPUFREQ-GOVERNOR": ("ok", "KB KERN-CPUFREQ-GOVERNOR — Fix: governor performance (already set)"),
    "KERN-CPU-BOOST": ("ok", "KB KERN-CPU-BOOST — Bad value: turbo/boost off, `max_perf_pct` < 100 (no_turbo 0, "
                             "max_perf_pct 100)"),
    "KERN-EPP": ("ok", "KB KERN-EPP — Bad value: `power` or `balance_power` (EPP performance)"),
    "KERN-AMD-PSTATE": ("not-applicable", "KB KERN-AMD-PSTATE — Applies when: AMD EPYC/Threadripper/Ryzen hosts"),
    "KERN-CSTATES": ("not-an-issue", "KB KERN-CSTATES — Fix (runtime): hold `/dev/cpu_dma_latency` open with a low "
                                     "value (tuned's latency profiles set a low `force_latency` this way): the 99 µs "
                                     "limit keeps cpuidle out of C6 (290 µs)"),
    "KERN-NUMA-BALANCING": ("ok", "KB KERN-NUMA-BALANCING — Fix: `kernel.numa_balancing = 0` (set)"),
    "KERN-THP": ("not-an-issue", "KB KERN-THP — False positives: `always` with `defrag=madvise` are fine"),
    "KERN-SWAP": ("ok", "KB KERN-SWAP — Bad value: `VmSwap` > 0 for engine processes (all 0, swappiness 10)"),
    "KERN-IRQ-AFFINITY": ("not-applicable", "KB KERN-IRQ-AFFINITY — Applies when: high-rate NICs or isolated CPU "
                                            "sets (no NIC queue IRQs, no isolation)"),
    "KERN-ISOLCPUS": ("not-applicable", "KB KERN-ISOLCPUS — Applies when: `isolcpus=`/`nohz_full=` on cmdline"),
    "KERN-WATCHDOG": ("ok", "KB KERN-WATCHDOG — Report info only"),
    "KERN-MITIGATIONS": ("ok", "KB KERN-MITIGATIONS — Report as info with the trade-off"),
    "KERN-SCHED-KNOBS": ("ok", "KB KERN-SCHED-KNOBS — Bad value: CPU PSI `some avg10` > ~10 % (0.4 %), no stale "
                               "sched_* lines"),
    "KVER-INTEL-PSTATE": ("ok", "KB KVER-INTEL-PSTATE — intel_pstate uses HWP when available (active, HWP capable)"),
    "KVER-AMD-ZEN5": ("not-applicable", "KB KVER-AMD-ZEN5 — Applies when: `lscpu` CPU family 26"),
    "KVER-NVIDIA-KERNEL-COMBOS": ("ok", "KB KVER-NVIDIA-KERNEL-COMBOS — none of the known cases matches 6.8 + 570"),
    "KVER-DMABUF": ("ok", "KB KVER-DMABUF — GDR \"can also be enabled by using the DMA-BUF feature of recent Linux "
                          "kernels combined with the Open Source Nvidia GPU driver\" (open module, 6.8)"),
    "CTR-SHM-SIZE": ("ok", "KB CTR-SHM-SIZE — Bad value: `/dev/shm` < 1 GiB (host tmpfs ~1 TiB; service user uid "
                           "998 is not a logind session user)"),
    "CTR-MEMLOCK": ("ok", "KB CTR-MEMLOCK — Bad value: not `unlimited` ... and RDMA NICs are in use (unlimited)"),
    "CTR-CPU-LIMITS": ("not-applicable", "KB CTR-CPU-LIMITS — Applies when: Docker/K8s/LXC CPU limits"),
    "RT-CUDA-GRAPHS": ("ok", "KB RT-CUDA-GRAPHS — Bad value: graphs disabled (no eager flag)"),
    "RT-KERNEL-ARCH": ("ok", "KB RT-KERNEL-ARCH — Bad value: a kernel setting slow on the GPU's architecture (awq without Marlin, triton attention on Hopper): none in the engine's full command line"),
    "RT-ENV-VLLM": ("not-an-issue", "KB RT-ENV-VLLM Correction — `VLLM_SKIP_P2P_CHECK=1` is the default in current "
                                    "vLLM (vllm/envs.py), not an override"),
    "RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS": ("not-applicable", "KB RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS — Applies when: "
                                                             "environment sets `CUDA_DEVICE_MAX_CONNECTIONS`"),
    "RT-ULIMIT-NOFILE": ("ok", "KB RT-ULIMIT-NOFILE — Bad value: hard limit < 65536 (1048576)"),
    "RT-OMP": ("ok", "KB RT-OMP — `1` is vLLM's own default for workers (unset here: vLLM sets it)"),
    "RT-FLASHINFER": ("not-an-issue", "KB RT-FLASHINFER — False positives: a missing system nvcc is fine if "
                                      "nothing JIT-compiles"),
    "RT-VERSION-MATRIX": ("ok", "KB RT-VERSION-MATRIX — inventory"),
}


# --- 3. Docker container with default limits on a dual EPYC 9355 (Turin) host, vLLM TP=4 ----


def docker_default() -> Parts:
    nodes = numa_layout(2, 32, 2)
    gpus = [Gpu(f"0000:{b}:00.0", f"0000:{r}:01.1", 0, 30 + i) for i, (r, b) in
            enumerate((("00", "01"), ("20", "21"), ("40", "41"), ("60", "61")))]
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME": "3f2a9c1d0b7e",
           "NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility",
           "NVIDIA_REQUIRE_CUDA": "cuda>=12.8 brand=tesla,driver>=470,driver<471", "CUDA_VERSION": "12.8.1",
           "LD_LIBRARY_PATH": "/usr/local/nvidia/lib:/usr/local/nvidia/lib64", "VLLM_USAGE_SOURCE":
           "production-docker-image", "HF_HOME": "/root/.cache/huggingface", "HOME": "/root"}
    seccomp, cap = 2, "00000000a80425fb"  # Docker's default profile and capability set (no CAP_SYS_NICE)
    limits = proc_limits(nofile=("1048576", "1048576"))
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2.5-32B-Instruct",
            "--tensor-parallel-size", "4", "--max-model-len", "32768"]
    engine = vllm_serve(1, 0, argv, env, tp=4, ncpu=128, exe="/usr/bin/python3.12", limits=limits, cap_eff=cap,
                        seccomp=seccomp)
    return merge(
        kernel("6.14.0-29-generic", "#29~24.04.1-Ubuntu SMP PREEMPT_DYNAMIC Thu Aug 14 16:52:50 UTC 2", "3f2a9c1d0b7e",
               "BOOT_IMAGE=/boot/vmlinuz-6.14.0-29-generic root=UUID=0b9d5b2e-3c1a-4f77-a0f2-5b1e6c9d8a10 ro"),
        lscpu(EPYC_9355, 2, 2, nodes), cpu_topology(nodes, 396_103_412), vulnerabilities_sysfs("AuthenticAMD"),
        cpufreq(128, "amd-pstate-epp", "powersave", min_khz=400_000, max_khz=4_400_000, cur_khz=3_550_000,
                epp="balance_performance", boost="1", amd_pstate_status="active"),
        cpuidle("acpi_idle", ACPI_IDLE_EPYC),
        _sysctls(kernel__numa_balancing=1, vm__swappiness=60),
        thp("madvise", "madvise"), vmstat(604_800), memory(792_206_824), pressure(1.2), interrupts(8),
        nvidia_gpus(gpus, iommu_type="DMA-FQ"), nvidia_driver("570.133.20"), dev_nodes(range(4)),
        nvml_userspace("570.133.20"),
        Parts(files={"/usr/bin/python3": b"\x7fELF\x02\x01\x01",
                     "/usr/local/cuda/version.json": '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      '
                                                     '"version" : "12.8.1"\n   }\n}\n'}),
        Parts(commands={("dmesg",): "dmesg: read kernel buffer failed: Operation not permitted\n"}),
        processes(engine),
        python_site("/usr/local/lib/python3.12/dist-packages",
                    {**VLLM_PKGS, "flashinfer-python": "0.2.8+cu128torch2.7"}, "12.8"),
        docker_container("3f2a9c1d0b7e8a6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7", 412, 128, 65536, limits,
                         env, cap, seccomp),
        cgroup_v2("max 100000", "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n", "0-127", "max"),
    )


DOCKER_DEFAULT = {
    "CTR-SHM-SIZE": ("issue", "KB CTR-SHM-SIZE — Bad value: `/dev/shm` < 1 GiB with TP > 1 (Docker default 64 MiB)"),
    "CTR-SECCOMP-NUMA": ("issue", "KB CTR-SECCOMP-NUMA — Bad value: ... `SYS_NICE` absent while the workload needs "
                                  "NUMA placement (4 GPUs, NCCL, default seccomp)"),
    "CTR-MEMLOCK": ("not-an-issue", "KB CTR-MEMLOCK — Negative result: a 64 KiB memlock does not slow single-node "
                                    "vLLM/SGLang with PCIe or NVLink (8 MiB here, no RDMA)"),
    "CTR-STACK-ULIMIT": ("ok", "KB CTR-STACK-ULIMIT — Report as info only; no evidence it changes throughput"),
    "CTR-GPU-ACCESS": ("ok", "KB CTR-GPU-ACCESS — Bad value: fewer visible GPUs than intended, missing "
                             "/dev/nvidia-uvm, capabilities lacking compute,utility (all present, versions match)"),
    "CTR-IPC-ISOLATION": ("ok", "KB CTR-IPC-ISOLATION — Fix: run all TP ranks in one container/pod (normal mode)"),
    "CTR-CPU-LIMITS": ("ok", "KB CTR-CPU-LIMITS — Bad value: `nr_throttled` rising; cpuset < TP+4 (no quota, "
                             "128 CPUs, never throttled)"),
    "CTR-LXC-DEVICES": ("not-applicable", "KB CTR-LXC-DEVICES — Applies when: LXC/LXD/Incus/Proxmox containers"),
    "CTR-LXC-HOST-SCOPE": ("not-applicable", "KB CTR-LXC-HOST-SCOPE — Applies when: LXC"),
    "CTR-K8S-GPU-TOPOLOGY": ("not-applicable", "KB CTR-K8S-GPU-TOPOLOGY — Applies when: K8s pods"),
    "KERN-NUMA-BALANCING": ("issue", "KB KERN-NUMA-BALANCING — Bad value: non-zero on a multi-NUMA serving host "
                                     "(host-global knob read from inside the container, general rule 1)"),
    "FW-IOMMU-MODE": ("issue", "KB FW-IOMMU-MODE — Applies when: >=2 GPUs over PCIe, bare metal or "
                               "LXC/Docker/K8s host; Bad value: group type DMA-FQ"),
    "KERN-CPUFREQ-GOVERNOR": ("not-an-issue", "KB KERN-CPUFREQ-GOVERNOR — False positives: with `amd-pstate-epp` "
                                              "in active mode, `powersave` is not minimum frequency"),
    "KERN-EPP": ("not-an-issue", "KB KERN-EPP — False positives: `balance_performance` is a reasonable default"),
    "KERN-AMD-PSTATE": ("ok", "KB KERN-AMD-PSTATE — Turin (Zen 5) gets amd-pstate by default from Linux 6.13 (6.14, "
                              "amd-pstate-epp active, EPP not power)"),
    "KVER-AMD-ZEN5": ("ok", "KB KVER-AMD-ZEN5 — Bad value: kernel < 6.13 (6.14 here)"),
    "KERN-CPU-BOOST": ("ok", "KB KERN-CPU-BOOST — Bad value: boost off (boost = 1)"),
    "KERN-THP": ("ok", "KB KERN-THP — False positives: `enabled=madvise` (Ubuntu default) is fine"),
    "KERN-SWAP": ("not-applicable", "KB KERN-SWAP — Applies when: host with swap (none)"),
    "RT-CUDA-GRAPHS": ("ok", "KB RT-CUDA-GRAPHS — Bad value: graphs disabled (no eager flag)"),
    "RT-FLASHINFER": ("ok", "KB RT-FLASHINFER — Bad value: packages at different versions; CUDA_HOME other than "
                            "torch's CUDA (one package; /usr/local/cuda 12.8.1 = torch cu128)"),
    "RT-ULIMIT-NOFILE": ("ok", "KB RT-ULIMIT-NOFILE — Bad value: hard limit < 65536 (1048576)"),
}


# --- 4. Kubernetes pod: SGLang TP=2 on a dual Xeon 8468 node with 8x L40S and ConnectX HCAs ---


def kubernetes_sglang() -> Parts:
    nodes = numa_layout(2, 48, 2)
    roots = ["0000:17:01.0", "0000:29:01.0", "0000:3b:01.0", "0000:4d:01.0",
             "0000:97:01.0", "0000:a9:01.0", "0000:bb:01.0", "0000:cd:01.0"]
    gpus = [Gpu(f"0000:{int(r[5:7], 16) + 1:02x}:00.0", r, i // 4, 60 + i) for i, r in enumerate(roots)]
    pod_gpus = [gpus[1], gpus[5]]  # the device plugin handed out one GPU per socket
    env = {"PATH": "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",
           "HOSTNAME": "sglang-qwen-7d9c8b6f5-x2kqp", "NVIDIA_VISIBLE_DEVICES": "GPU-5c1e0a3b-2d4f,GPU-9a07e6c1-8b2d",
           "NVIDIA_DRIVER_CAPABILITIES": "compute,utility", "KUBERNETES_SERVICE_HOST": "10.96.0.1",
           "KUBERNETES_SERVICE_PORT": "443", "CUDA_DEVICE_MAX_CONNECTIONS": "1", "HF_HOME": "/models/hf",
           "HOME": "/root"}
    cap, seccomp = "00000000a80425fb", 0  # containerd defaults; pod seccomp Unconfined
    limits = proc_limits(nofile=("1024", "524288"), memlock=("65536", "65536"))
    argv = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-72B-Instruct-AWQ", "--tp", "2",
            "--host", "0.0.0.0", "--port", "30000", "--cuda-graph-max-bs", "4"]
    engine = sglang_server(1, 0, argv, env, tp=2, ncpu=192, limits=limits, exe="/usr/bin/python3.10", cap_eff=cap,
                           seccomp=seccomp)
    return merge(
        kernel("5.15.0-119-generic", "#129-Ubuntu SMP Fri Aug 2 19:25:20 UTC 2024", "sglang-qwen-7d9c8b6f5-x2kqp",
               "BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=/dev/sda2 ro intel_iommu=on iommu=pt"),
        lscpu(XEON_8468, 2, 2, nodes), cpu_topology(nodes, 1_056_512_000), vulnerabilities_sysfs("GenuineIntel"),
        cpufreq(192, "intel_pstate", "powersave", min_khz=800_000, max_khz=3_800_000, cur_khz=2_100_000,
                epp="balance_performance", intel_pstate={"status": "active", "no_turbo": "0", "max_perf_pct": "100"}),
        cpuidle("intel_idle", INTEL_IDLE_SPR),
        _sysctls(kernel__numa_balancing=0, vm__swappiness=60),
        thp("madvise", "madvise"), vmstat(904_800), memory(2_113_024_000), pressure(3.0), interrupts(8),
        nvidia_gpus(gpus, iommu_type="identity", root_vendor="0x8086", root_device="0x352a"),
        nvidia_driver("570.133.20"), dev_nodes([1, 5]), nvml_userspace("570.133.20"),
        Parts(dirs={"/proc/driver/nvidia/gpus": [g.bdf for g in pod_gpus]},
              files={"/proc/modules": MODULES, "/usr/bin/python3": b"\x7fELF\x02\x01\x01",
                     "/usr/local/cuda/version.json": '{"cuda": {"name": "CUDA SDK", "version": "12.6.3"}}\n'},
              links={f"/sys/class/infiniband/mlx5_{i}/device": f"../../../0000:{b}:00.0"
                     for i, b in enumerate(("18", "98"))}),
        Parts(commands={("dmesg",): "dmesg: read kernel buffer failed: Operation not permitted\n"}),
        processes(engine),
        python_site("/usr/local/lib/python3.10/dist-packages",
                    {"torch": "2.7.1+cu126", "sglang": "0.4.10.post2", "sgl-kernel": "0.2.8",
                     "flashinfer-python": "0.2.9rc2", "triton": "3.3.1", "transformers": "4.54.0"}, "12.6"),
        kubernetes_pod("8b5a1f4e-2c3d-4e5f-9a8b-7c6d5e4f3a2b", 214, 192, 65536, limits, env, cap, seccomp),
        cgroup_v2("400000 100000", "nr_periods 52311\nnr_throttled 9120\nthrottled_usec 812345678\n", "0-191",
                  "137438953472"),
    )


K8S_POD = {
    "CTR-SHM-SIZE": ("issue", "KB CTR-SHM-SIZE — Kubernetes: pod spec has no `emptyDir: {medium: Memory}` mounted at "
                              "`/dev/shm` and `hostIPC` is false (64 MiB, TP=2)"),
    "CTR-MEMLOCK": ("issue", "KB CTR-MEMLOCK — Bad value: not `unlimited` (or < several GiB) and RDMA NICs are in "
                             "use (64 KiB, mlx5_0/mlx5_1)"),
    "CTR-CPU-LIMITS": ("issue", "KB CTR-CPU-LIMITS — Bad value: `nr_throttled` rising; effective cpuset smaller "
                                "than roughly TP+4 cores (4 CPUs, throttled in 17 % of periods)"),
    "CTR-K8S-GPU-TOPOLOGY": ("issue", "KB CTR-K8S-GPU-TOPOLOGY — Bad value: the pod's GPUs connected via `SYS` "
                                      "(cross socket) while better sets exist on the node"),
    "CTR-SECCOMP-NUMA": ("ok", "KB CTR-SECCOMP-NUMA — Applies when: Docker/containerd with the default seccomp "
                               "profile (Seccomp: 0, unconfined)"),
    "CTR-GPU-ACCESS": ("ok", "KB CTR-GPU-ACCESS — Bad value: missing /dev/nvidia-uvm ... (device plugin injected "
                             "nvidia1, nvidia5, nvidiactl, nvidia-uvm)"),
    "CTR-IPC-ISOLATION": ("ok", "KB CTR-IPC-ISOLATION — Fix: run all TP ranks in one container/pod (done)"),
    "CTR-STACK-ULIMIT": ("ok", "KB CTR-STACK-ULIMIT — Report as info only"),
    "CTR-LXC-HOST-SCOPE": ("not-applicable", "KB CTR-LXC-HOST-SCOPE — Applies when: LXC"),
    "KVER-DMABUF": ("ok", "KB KVER-DMABUF — GDR via DMA-BUF with the open kernel module on a kernel >= 5.12"),
    "KERN-CPUFREQ-GOVERNOR": ("not-an-issue", "KB KERN-CPUFREQ-GOVERNOR — False positives: with `intel_pstate` ... "
                                              "in active mode, `powersave` is not minimum frequency"),
    "KERN-EPP": ("not-an-issue", "KB KERN-EPP — False positives: `balance_performance` is a reasonable default"),
    "KERN-CSTATES": ("issue", "KB KERN-CSTATES — Bad value: enabled states with exit latency >= ~100 µs (C6 290 µs) "
                              "and no PM QoS limit"),
    "KVER-INTEL-PSTATE": ("ok", "KB KVER-INTEL-PSTATE — intel_pstate active with HWP"),
    "RT-CUDA-GRAPHS": ("issue", "KB RT-CUDA-GRAPHS — Detect: ... or CUDA-graph batch size capped very low "
                                "(`--cuda-graph-max-bs`)"),
    "RT-ENV-SGLANG": ("not-an-issue", "KB RT-ENV-SGLANG — Bad value: none of the following by themselves: ... "
                                      "`CUDA_DEVICE_MAX_CONNECTIONS=4|8` (this entry exists to suppress false "
                                      "positives)"),
    "RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS": ("not-an-issue", "KB RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS — False "
                                                           "positives: Do not flag the value seen in SGLang processes"),
    "RT-ULIMIT-NOFILE": ("not-an-issue", "KB RT-ULIMIT-NOFILE — False positives: SGLang raises its own soft limit; "
                                         "only the hard limit matters (hard 524288)"),
    "RT-ENV-VLLM": ("not-applicable", "KB RT-ENV-VLLM — Applies when: vLLM"),
    "RT-TRTLLM-ALLREDUCE": ("not-applicable", "KB RT-TRTLLM-ALLREDUCE — Applies when: TensorRT-LLM"),
}


# --- 5. Proxmox LXC container: vLLM TP=2 on 2x RTX A6000, dual EPYC 7543 node ---------------


def proxmox_lxc() -> Parts:
    nodes = numa_layout(2, 32, 2)
    gpus = [Gpu("0000:41:00.0", "0000:40:01.1", 0, 27, "0x2230", "RTX A6000"),
            Gpu("0000:c1:00.0", "0000:c0:01.1", 1, 75, "0x2230", "RTX A6000")]
    env = {"SHELL": "/bin/bash", "HOME": "/root", "PATH": "/root/venv/bin:/usr/local/bin:/usr/bin:/bin",
           "VIRTUAL_ENV": "/root/venv", "TERM": "tmux-256color", "TMUX": "/run/tmux/0/default,812,0"}
    limits = proc_limits(nofile=("1024", "4096"))  # lxc.prlimit.nofile: 1024:4096 on the node
    argv = ["/root/venv/bin/python3", "/root/venv/bin/vllm", "serve", "mistralai/Mistral-Small-24B-Instruct-2501",
            "--tensor-parallel-size", "2", "--max-model-len", "16384"]
    engine = vllm_serve(731, 702, argv, env, tp=2, ncpu=128, exe="/usr/bin/python3.11", limits=limits)
    idle = (*ACPI_IDLE_EPYC[:2], IdleState("C2", "ACPI IOPORT 0x814", 400, 800, disable=1))
    return merge(
        kernel("6.8.12-4-pve", "#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-4 (2024-11-06T15:04Z)", "llm-lxc",
               "BOOT_IMAGE=/boot/vmlinuz-6.8.12-4-pve root=ZFS=rpool/ROOT/pve-1 ro root=ZFS=rpool/ROOT/pve-1 "
               "boot=zfs quiet iommu=pt"),
        lscpu(EPYC_7543, 2, 2, nodes), cpu_topology(nodes, 264_013_420), vulnerabilities_sysfs("AuthenticAMD"),
        cpufreq(128, "acpi-cpufreq", "performance", min_khz=1_500_000, max_khz=2_800_000, cur_khz=2_800_000,
                boost="1", governors="conservative ondemand userspace powersave performance schedutil"),
        cpuidle("acpi_idle", idle),
        _sysctls(kernel__numa_balancing=1, vm__swappiness=60),
        thp("madvise", "madvise"), vmstat(2_604_800), memory(67_108_864), pressure(0.8), interrupts(8),
        detect_virt("none"),
        nvidia_gpus(gpus, iommu_type="identity"), nvidia_driver("550.127.05", open_module=False),
        dev_nodes([0, 1]), nvml_userspace("550.120"),
        dmesg(["[    0.000000] Linux version 6.8.12-4-pve (build@proxmox) (gcc (Debian 12.2.0-14) 12.2.0)"]),
        processes(engine),
        python_site("/root/venv/lib/python3.11/site-packages", VLLM_PKGS, "12.8"),
        Parts(files={"/root/venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\n"}),
        lxc_container(1204, 128, 32 * GIB_KIB, limits),
        cgroup_v2("1600000 100000", "nr_periods 210344\nnr_throttled 12\nthrottled_usec 80211\n", "0-127",
                  "68719476736"),
    )


PROXMOX_LXC = {
    "CTR-LXC-DEVICES": ("issue", "KB CTR-LXC-DEVICES Correction — compare the user-space library version (the file "
                                 "`libnvidia-ml.so.1` resolves to) with `/proc/driver/nvidia/version` (550.120 vs "
                                 "550.127.05: NVML mismatch)"),
    "CTR-LXC-HOST-SCOPE": ("issue", "KB CTR-LXC-HOST-SCOPE — Bad value: `nofile` hard limit < 65536 (4096)"),
    "RT-ULIMIT-NOFILE": ("issue", "KB RT-ULIMIT-NOFILE — Bad value: hard limit < 65536 (vLLM API server hard 4096)"),
    "KERN-NUMA-BALANCING": ("issue", "KB CTR-LXC-HOST-SCOPE — False positives: Reading "
                                     "`/proc/sys/kernel/numa_balancing` inside LXC shows the host value — it is "
                                     "correct to report it, but the fix goes to the host"),
    "CTR-SHM-SIZE": ("ok", "KB CTR-SHM-SIZE — Bad value: `/dev/shm` < 1 GiB (32 GiB)"),
    "CTR-SECCOMP-NUMA": ("not-applicable", "KB CTR-SECCOMP-NUMA — Applies when: Docker/containerd"),
    "CTR-GPU-ACCESS": ("ok", "KB CTR-GPU-ACCESS — nvidia0/1, nvidiactl, nvidia-uvm present (the version match is "
                             "CTR-LXC-DEVICES's in LXC)"),
    "CTR-CPU-LIMITS": ("ok", "KB CTR-CPU-LIMITS — Bad value: fewer than roughly TP+4 cores (16 CPUs for TP=2)"),
    "CTR-MEMLOCK": ("not-an-issue", "KB CTR-MEMLOCK — Negative result: CUDA pinned host memory is not limited by "
                                    "RLIMIT_MEMLOCK (no RDMA)"),
    "CTR-IPC-ISOLATION": ("ok", "KB CTR-IPC-ISOLATION — all TP ranks in one container"),
    "CTR-K8S-GPU-TOPOLOGY": ("not-applicable", "KB CTR-K8S-GPU-TOPOLOGY — Applies when: K8s pods"),
    "KERN-CPUFREQ-GOVERNOR": ("ok", "KB KERN-CPUFREQ-GOVERNOR — governor performance"),
    "KERN-AMD-PSTATE": ("not-an-issue", "KB KERN-AMD-PSTATE — False positives: acpi-cpufreq + `performance` "
                                        "governor on Genoa is the kernel default and fine — do not flag (Milan, "
                                        "family 25, likewise)"),
    "KERN-CSTATES": ("ok", "KB KERN-CSTATES — Bad value: enabled states with exit latency >= ~100 µs (C2 disabled)"),
    "FW-IOMMU-MODE": ("ok", "KB FW-IOMMU-MODE — IOMMU enabled with `identity` groups is fine (iommu=pt)"),
    "FW-VM": ("ok", "KB FW-VM — `systemd-detect-virt --vm` prints none: a container is not a VM"),
    "KVER-NVIDIA-KERNEL-COMBOS": ("ok", "KB KVER-NVIDIA-KERNEL-COMBOS — no known case for 6.8 + 550"),
    "RT-CUDA-GRAPHS": ("ok", "KB RT-CUDA-GRAPHS — graphs on"),
}


# --- 6. KVM virtual machine with 2 passed-through H100 PCIe, no engine running ---------------


def kvm_vm() -> Parts:
    nodes = [list(range(16))]
    gpus = [Gpu("0000:01:00.0", "0000:00:02.0", -1, None, "0x2331", "H100 PCIe"),
            Gpu("0000:02:00.0", "0000:00:02.1", -1, None, "0x2331", "H100 PCIe")]
    return merge(
        kernel("6.8.0-51-generic", "#52-Ubuntu SMP PREEMPT_DYNAMIC Thu Dec  5 13:09:44 UTC 2024", "gpu-vm",
               "BOOT_IMAGE=/vmlinuz-6.8.0-51-generic root=LABEL=cloudimg-rootfs ro console=tty1 console=ttyS0"),
        lscpu(QEMU_SPR, 1, 1, nodes, hypervisor="KVM"), cpu_topology(nodes, 247_421_012),
        vulnerabilities_sysfs("GenuineIntel"),
        Parts(files={"/sys/devices/system/cpu/cpuidle/current_driver": "none\n"}),
        _sysctls(kernel__numa_balancing=0, vm__swappiness=60),
        thp("madvise", "madvise"), vmstat(86_400), memory(247_421_012), pressure(0.1), interrupts(4),
        detect_virt("kvm"), irqbalance("active"),
        nvidia_gpus(gpus, iommu_type=None, root_vendor="0x1b36", root_device="0x000c", bridge_numa=False),
        nvidia_driver("570.133.20"), dev_nodes([0, 1]), nvml_userspace("570.133.20"),
        dmesg(["[    0.000000] Hypervisor detected: KVM", "[    0.000000] kvm-clock: Using msrs 4b564d01 and "
               "4b564d00"]),
        bare_metal(2301, 16, 123_710_506, proc_limits(nofile=("1024", "1048576"))),
    )


KVM_VM = {
    "KERN-PERSIST-BOOT": ("not-applicable", "KB KERN-PERSIST-BOOT — kernel.numa_balancing = 0 but its check does not "
                                            "apply (one NUMA node): nothing to keep"),
    "FW-VM": ("unknown", "KB FW-VM — Bad value: VM with multi-GPU TP and `topo -p2p` not `OK` between TP peers "
                         "(2 GPUs; the P2P matrix is not in the source)"),
    "FW-IOMMU-MODE": ("not-applicable", "KB FW-VM — False positives: In the guest, ACS/IOMMU checks of "
                                        "FW-IOMMU-MODE/FW-ACS-P2P describe the virtual topology — report as not "
                                        "applicable"),
    "FW-NUMA-NPS": ("ok", "KB FW-NUMA-NPS — Flag when GPUs report `numa_node = -1` on a multi-socket host (one "
                          "socket, one node here: not flagged)"),
    "KERN-CPUFREQ-GOVERNOR": ("unknown", "KB KERN-CPUFREQ-GOVERNOR — False positives: In VMs/containers without "
                                         "cpufreq sysfs, report unknown"),
    "KERN-CPU-BOOST": ("not-applicable", "KB KERN-CPU-BOOST — Applies when: bare metal host"),
    "KERN-CSTATES": ("not-applicable", "KB KERN-CSTATES — Applies when: bare metal host"),
    "KERN-EPP": ("not-applicable", "KB KERN-EPP — Applies when: `scaling_driver` is `intel_pstate` or "
                                   "`amd-pstate-epp` (no cpufreq driver)"),
    "KVER-INTEL-PSTATE": ("not-applicable", "KB KVER-INTEL-PSTATE — Bad value: no cpufreq interface on *bare metal*; "
                                            "a VM's P-states are the host's"),
    "KERN-NUMA-BALANCING": ("not-applicable", "KB KERN-NUMA-BALANCING — Applies when: more than one NUMA node"),
    "KERN-SWAP": ("not-applicable", "KB KERN-SWAP — Applies when: host with swap"),
    "KERN-THP": ("ok", "KB KERN-THP — `enabled=madvise` (Ubuntu default) is fine"),
    "CTR-SHM-SIZE": ("ok", "KB CTR-SHM-SIZE — Bad value: `/dev/shm` < 1 GiB (118 GiB)"),
    "CTR-LXC-DEVICES": ("not-applicable", "KB CTR-LXC-DEVICES — Applies when: LXC"),
    "RT-CUDA-GRAPHS": ("not-applicable", "KB RT-CUDA-GRAPHS — Applies when: all engines (none runs)"),
    "RT-KERNEL-ARCH": ("not-applicable", "KB RT-KERNEL-ARCH — Applies when: an engine runs (none runs)"),
    "RT-ENV-SGLANG": ("not-applicable", "KB RT-ENV-SGLANG — Applies when: SGLang"),
    "RT-ULIMIT-NOFILE": ("not-an-issue", "KB RT-ULIMIT-NOFILE — False positives: SGLang raises its own soft limit; "
                                         "only the hard limit matters (the shell's 1024 soft / 1048576 hard)"),
    "RT-TORCH-ARCH": ("not-applicable", "KB RT-TORCH-ARCH — no torch in the environment read (no engine runs)"),
}


# --- 7. the Proxmox node itself: the container config of CT 101, copied from another node ----


def proxmox_node() -> Parts:
    nodes = numa_layout(2, 32, 2)
    gpus = [Gpu("0000:41:00.0", "0000:40:01.1", 0, 27, "0x2230", "RTX A6000"),
            Gpu("0000:c1:00.0", "0000:c0:01.1", 1, 75, "0x2230", "RTX A6000")]
    conf = ("arch: amd64\ncores: 4\nfeatures: nesting=1\nhostname: llm-lxc\nmemory: 65536\n"
            "net0: name=eth0,bridge=vmbr0,firewall=1,hwaddr=BC:24:11:5E:2A:91,ip=dhcp,type=veth\nostype: debian\n"
            "rootfs: local-zfs:subvol-101-disk-0,size=200G\nswap: 0\nunprivileged: 0\n"
            "lxc.cgroup2.devices.allow: c 195:* rwm\nlxc.cgroup2.devices.allow: c 234:* rwm\n"
            "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file\n"
            "lxc.mount.entry: /dev/nvidia1 dev/nvidia1 none bind,optional,create=file\n"
            "lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file\n"
            "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file\n"
            "lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file\n"
            "lxc.prlimit.nofile: 1024:4096\n")
    return merge(
        kernel("6.8.12-4-pve", "#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-4 (2024-11-06T15:04Z)", "pve-gpu1",
               "BOOT_IMAGE=/boot/vmlinuz-6.8.12-4-pve root=ZFS=rpool/ROOT/pve-1 ro boot=zfs quiet iommu=pt"),
        lscpu(EPYC_7543, 2, 2, nodes), cpu_topology(nodes, 264_013_420),
        cpufreq(128, "acpi-cpufreq", "performance", min_khz=1_500_000, max_khz=2_800_000, cur_khz=2_800_000,
                boost="1"),
        _sysctls(kernel__numa_balancing=1), thp("madvise", "madvise"), detect_virt("none"),
        nvidia_gpus(gpus, iommu_type="identity"), nvidia_driver("550.127.05", open_module=False),
        proc_devices(uvm_major=508), proxmox_lxc_conf(101, conf),
        Parts(dirs={"/etc/pve/lxc": ["101.conf"]}),
        bare_metal(5120, 128, 132_006_710, proc_limits()),
    )


PROXMOX_NODE = {
    "KERN-PERSIST-BOOT": ("unknown", "KB KERN-PERSIST-BOOT — Traps: \"not set\" means the kernel's default at boot "
                                     "(the governor's default is the kernel build's, not in the source)"),
    "CTR-LXC-DEVICES": ("issue", "KB CTR-LXC-DEVICES — Bad value: missing uvm rule/mount (CUDA fails); major number "
                                 "hard-coded from another host (rule for 234, nvidia-uvm is 508 here)"),
    "CTR-LXC-HOST-SCOPE": ("issue", "KB CTR-LXC-HOST-SCOPE — Bad value: `nofile` hard limit < 65536 "
                                    "(lxc.prlimit.nofile 1024:4096)"),
    "CTR-CPU-LIMITS": ("issue", "KB CTR-CPU-LIMITS — Applies when: ... LXC; Bad value: roughly < TP+4 cores "
                                "(cores: 4 for 2 GPUs)"),
    "CTR-SHM-SIZE": ("ok", "KB CTR-SHM-SIZE — the node's own /dev/shm (126 GiB) is large"),
    "CTR-GPU-ACCESS": ("not-applicable", "KB CTR-GPU-ACCESS — Applies when: Docker, Kubernetes, LXC (inside); the "
                                         "node is not a Docker host"),
    "KERN-NUMA-BALANCING": ("issue", "KB KERN-NUMA-BALANCING — Bad value: non-zero on a multi-NUMA serving host"),
    "KERN-AMD-PSTATE": ("not-an-issue", "KB KERN-AMD-PSTATE — False positives: acpi-cpufreq + `performance` is the "
                                        "kernel default and fine — do not flag"),
    "FW-IOMMU-MODE": ("ok", "KB FW-IOMMU-MODE — `identity` groups (iommu=pt) are fine"),
}


SCENARIOS: dict[str, tuple[Any, dict[str, tuple[str, str]], bool]] = {
    # name: (builder, expected table, audited inside a container)
    "amd-bad-knobs": (amd_bad_knobs, AMD_BAD_KNOBS, False),
    "intel-well-tuned": (intel_well_tuned, INTEL_WELL_TUNED, False),
    "docker-default": (docker_default, DOCKER_DEFAULT, True),
    "k8s-pod": (kubernetes_sglang, K8S_POD, True),
    "proxmox-lxc": (proxmox_lxc, PROXMOX_LXC, True),
    "kvm-vm": (kvm_vm, KVM_VM, False),
    "proxmox-node": (proxmox_node, PROXMOX_NODE, False),
}
HOSTNAMES = {"amd-bad-knobs": "gpu-amd-01", "intel-well-tuned": "gpu-intel-02", "docker-default": "3f2a9c1d0b7e",
             "k8s-pod": "sglang-qwen-7d9c8b6f5-x2kqp", "proxmox-lxc": "llm-lxc", "kvm-vm": "gpu-vm",
             "proxmox-node": "pve-gpu1"}

# Check defects found against the knowledge base: (scenario, check) -> reason. Empty when none.
XFAIL: dict[tuple[str, str], str] = {}

_REPORTS: dict[str, dict[str, Any]] = {}
_SNAPSHOTS: dict[str, Path] = {}


def audit(name: str, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Capture the scenario's host into a snapshot and audit it through the CLI (memoised per scenario)."""
    if name not in _REPORTS:
        builder = SCENARIOS[name][0]
        host = build_host(builder(), HOSTNAMES[name])
        snap = tmp_path_factory.mktemp("snapshots") / f"{name}.tar.gz"
        capture_host(host, str(snap))
        capsys.readouterr()
        rc = main(["audit", "--from", str(snap), "--format", "json"])
        out = capsys.readouterr().out
        assert rc == 0, out[-2000:]
        _REPORTS[name] = json.loads(out)
        _SNAPSHOTS[name] = snap
    return _REPORTS[name]


def _results(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in report["results"]}


CASES = [
    pytest.param(name, check_id, id=f"{name}-{check_id}",
                 marks=[pytest.mark.xfail(strict=True, reason=XFAIL[(name, check_id)])] if (name, check_id) in XFAIL
                 else [])
    for name, (_, table, _) in SCENARIOS.items() for check_id in table
]


@pytest.mark.parametrize(("scenario", "check_id"), CASES)
def test_expected_status(scenario: str, check_id: str, tmp_path_factory: pytest.TempPathFactory,
                         capsys: pytest.CaptureFixture[str]) -> None:
    expected, why = SCENARIOS[scenario][1][check_id]
    result = _results(audit(scenario, tmp_path_factory, capsys))[check_id]
    assert result["status"] == expected, f"{why}\n-> got {result['status']}: {result['message']}"


def test_every_table_is_large_enough_and_covers_the_domains() -> None:
    """At least 8 checks per scenario; every FW (OS-readable), KERN, KVER, CTR and RT check has a definite
    expectation in some scenario."""
    from stackaudit.checks.registry import load_all

    for name, (_, table, _) in SCENARIOS.items():
        assert len(table) >= 8, name
        for check_id, (status, why) in table.items():
            assert status in ("issue", "ok", "not-an-issue", "unknown", "not-applicable"), (name, check_id)
            assert why.startswith("KB ") and check_id.split("-")[0] in {"FW", "KERN", "KVER", "CTR", "RT"}
    wanted = {c for c in load_all() if c.split("-")[0] in ("KERN", "KVER", "CTR", "RT")}
    wanted |= {"FW-IOMMU-MODE", "FW-VM", "FW-NUMA-NPS"}
    definite = {c for _, t, _ in SCENARIOS.values() for c, (s, _) in t.items() if s != "unknown"}
    assert wanted <= definite, sorted(wanted - definite)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_report_validates_and_every_check_has_one_result(scenario: str, tmp_path_factory: pytest.TempPathFactory,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from stackaudit.checks.registry import load_all

    report = audit(scenario, tmp_path_factory, capsys)
    jsonschema.validate(report, json.loads(json.dumps(SCHEMA)))
    ids = [r["id"] for r in report["results"]]
    assert sorted(ids) == sorted(load_all()) and len(ids) == len(set(ids))
    assert report["source"]["kind"] == "snapshot"
    ours = [r for r in report["results"] if r["domain"] in ("FW", "KERN", "KVER", "CTR", "RT")]
    assert not [r for r in ours if r["status"] == "error"], [(r["id"], r["message"]) for r in ours
                                                             if r["status"] == "error"]
    for r in report["results"]:
        assert (r["priority"] is not None) == (r["status"] == "issue"), r["id"]


def _priorities(scenario: str, tmp_path_factory: pytest.TempPathFactory,
                capsys: pytest.CaptureFixture[str]) -> dict[str, str | None]:
    return {i: r["priority"] for i, r in _results(audit(scenario, tmp_path_factory, capsys)).items()}


def test_amd_bad_knobs_priorities(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    got = _priorities("amd-bad-knobs", tmp_path_factory, capsys)
    want = {
        # high (powersave on acpi-cpufreq is the severe variant, KB "Med–High (with acpi-cpufreq+powersave)"),
        # documented, runtime fix -> P0
        "KERN-CPUFREQ-GOVERNOR": "P0",
        # KB RT-CUDA-GRAPHS: High / documented; engine restart -> P0
        "RT-CUDA-GRAPHS": "P0",
        # KB FW-IOMMU-MODE: High / documented, but the fix is a reboot -> P1
        "FW-IOMMU-MODE": "P1",
        "KERN-CPU-BOOST": "P1",  # KB: Med / documented
        "KERN-SWAP": "P1",  # KB: Med when present
        "RT-ULIMIT-NOFILE": "P1",  # KB: Med under high concurrency
        "RT-FLASHINFER": "P1",  # KB: Med–High, no FLASHINFER_DISABLE_VERSION_CHECK (the severe variant) -> medium
        "KERN-NUMA-BALANCING": "P2",  # KB: Low–Med / documented mechanism; not bound to one node -> low
        "KERN-THP": "P2",  # KB: Low
        "KERN-CSTATES": "P2",  # KB: Low–Med / unproven
        "KERN-SCHED-KNOBS": "P2",  # stale config lines, no contention: low
        "RT-OMP": "P2",  # KB: Low
        "RT-ENV-VLLM": "P2",  # KB: Low–Med
        "RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS": "P2",  # KB: Low / unproven
    }
    assert {k: got[k] for k in want} == want


def test_amd_bad_knobs_messages(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    res = _results(audit("amd-bad-knobs", tmp_path_factory, capsys))
    # KB FW-IOMMU-MODE correction: recognise `amd_iommu=on` as a harmless no-op.
    assert "amd_iommu=on" in res["FW-IOMMU-MODE"]["message"]
    assert len(res["FW-IOMMU-MODE"]["subjects"]) == 8
    # KB RT-CUDA-GRAPHS: read from the API server's /proc/<pid>/cmdline, not the test's environment.
    assert "--enforce-eager" in res["RT-CUDA-GRAPHS"]["message"] and res["RT-CUDA-GRAPHS"]["subjects"] == ["pid 4101"]
    # KB KERN-CPUFREQ-GOVERNOR: the fix is `cpupower frequency-set -g performance`, no reboot.
    assert "performance" in res["KERN-CPUFREQ-GOVERNOR"]["fix"]["runtime"]
    assert res["KERN-CPUFREQ-GOVERNOR"]["fix_cost"] == "runtime"
    # KB CTR-MEMLOCK negative result: the message says why a small memlock is fine.
    assert "pin_user_pages" in res["CTR-MEMLOCK"]["message"]
    # Bare metal: everything is fixed where the audit ran.
    assert {r["scope"] for r in res.values()} == {"host"}


def test_amd_bad_knobs_fails_a_p0_gate(tmp_path_factory: pytest.TempPathFactory,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    audit("amd-bad-knobs", tmp_path_factory, capsys)
    capsys.readouterr()
    rc = main(["audit", "--from", str(_SNAPSHOTS["amd-bad-knobs"]), "--format", "json", "--fail-on", "P0",
               "--select", "KERN,RT"])
    capsys.readouterr()
    assert rc == 1  # docs/design.md: exit 1 for results at or above --fail-on


def test_snapshot_holds_no_secret(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    import tarfile

    audit("amd-bad-knobs", tmp_path_factory, capsys)
    with tarfile.open(_SNAPSHOTS["amd-bad-knobs"]) as tar:
        blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
    assert b"hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789" not in blob
    assert b"VIRTUAL_ENV=/opt/venv" in blob  # the environ was captured, with the token redacted


def test_intel_well_tuned_has_no_issue_in_the_host_domains(tmp_path_factory: pytest.TempPathFactory,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    res = _results(audit("intel-well-tuned", tmp_path_factory, capsys))
    issues = [(i, r["message"]) for i, r in res.items()
              if r["domain"] in ("FW", "KERN", "KVER", "CTR", "RT") and r["status"] == "issue"]
    assert issues == []


def test_container_scopes(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """KB general rule 1: host-global knobs cannot be fixed from inside a container: label them host-level."""
    docker = _results(audit("docker-default", tmp_path_factory, capsys))
    assert docker["CTR-SHM-SIZE"]["scope"] == "container" and docker["CTR-SHM-SIZE"]["priority"] == "P0"
    assert "TP x PP = 4" in docker["CTR-SHM-SIZE"]["message"] and "64 MiB" in docker["CTR-SHM-SIZE"]["message"]
    assert "--shm-size" in docker["CTR-SHM-SIZE"]["fix"]["persistent"]
    assert docker["CTR-SECCOMP-NUMA"]["scope"] == "container" and docker["CTR-SECCOMP-NUMA"]["priority"] == "P2"
    for host_level in ("KERN-NUMA-BALANCING", "FW-IOMMU-MODE"):
        assert docker[host_level]["scope"] == "host", host_level
    assert docker["KERN-CPUFREQ-GOVERNOR"]["scope"] == "host"

    pod = _results(audit("k8s-pod", tmp_path_factory, capsys))
    assert pod["CTR-SHM-SIZE"]["scope"] == "container" and "emptyDir" in pod["CTR-SHM-SIZE"]["fix"]["persistent"]
    # KB CTR-MEMLOCK: Kubernetes: not settable per pod ... set `LimitMEMLOCK=infinity` in the containerd unit.
    assert pod["CTR-MEMLOCK"]["scope"] == "host" and "LimitMEMLOCK" in pod["CTR-MEMLOCK"]["fix"]["persistent"]
    assert pod["CTR-CPU-LIMITS"]["scope"] == "container" and pod["CTR-CPU-LIMITS"]["priority"] == "P1"
    assert pod["KERN-CSTATES"]["scope"] == "host"
    assert pod["RT-CUDA-GRAPHS"]["priority"] == "P2"  # capped capture sizes: low severity

    lxc = _results(audit("proxmox-lxc", tmp_path_factory, capsys))
    assert lxc["KERN-NUMA-BALANCING"]["scope"] == "host"
    # The container's LXC config lives on its host (/etc/pve/lxc/<id>.conf): applied on the Proxmox node.
    assert lxc["CTR-LXC-HOST-SCOPE"]["scope"] == "host"
    # KB: "High when present (no CUDA) / field practice": high but not documented -> P1 (docs/design.md)
    assert lxc["CTR-LXC-DEVICES"]["priority"] == "P1"


def test_runtime_results_come_from_the_engine_processes(tmp_path_factory: pytest.TempPathFactory,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    pod = _results(audit("k8s-pod", tmp_path_factory, capsys))
    assert "--cuda-graph-max-bs 4" in pod["RT-CUDA-GRAPHS"]["message"]
    vm = _results(audit("kvm-vm", tmp_path_factory, capsys))
    # KB RT domain (issue 2): where no server runs, report what can be read from the current environment and say so.
    assert "no engine runs" in vm["RT-ULIMIT-NOFILE"]["message"] and vm["RT-ULIMIT-NOFILE"]["subjects"] == []
    assert "hypervisor" in vm["KERN-CPUFREQ-GOVERNOR"]["message"]
