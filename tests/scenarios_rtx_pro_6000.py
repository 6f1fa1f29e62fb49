"""Step 3's acceptance scenario (issue 10): 8× RTX PRO 6000 Blackwell Server Edition on dual EPYC 9575F (Turin),
Proxmox VE 8 with kernel 6.8.12-9-pve, SGLang TP8 serving Qwen3-235B-A22B-Instruct-2507-FP8 in an LXC container.

**Scope.** The audit runs *inside the container* (`stackaudit capture` as root in privileged CT 101, the way a
user audits the machine they were given): the report's scope is the container, and every finding whose fix
belongs on the Proxmox node says so. The node's view reaches the container where Linux does not namespace it:
/proc/sys (kernel.numa_balancing is the node's), /sys/devices/system/cpu (cpufreq, cpuidle), the PCI tree in
/sys and `lspci -vvv` (a privileged container keeps CAP_SYS_ADMIN in the initial user namespace, so the whole
config space is readable), the node's kernel log (`dmesg`) and nvidia-smi. The node's own files
(/etc/pve/lxc/101.conf, its /dev/cpu_dma_latency) are not visible: the container config is judged from what
it produced inside (device nodes, limits, the user-space driver's version).

**The bad host** has what the issue lists: acpi-cpufreq with the performance governor, numa_balancing=1, ACPI C2
enabled at 100 µs exit latency, MaxReadReq 512 and MaxPayload 256 (DevCap 256) on every GPU, no NVLink, no RDMA
NIC, no nvidia_peermem, memlock 62.5 GiB for the engine, ReBAR (BAR1 128 GiB), Gen5 x16, 600 W, ECC on.

**The fixed twin** sets `kernel.numa_balancing = 0` and disables C2 on the node and changes nothing else. What
stays, from the checks' own documentation (docs/checks.md): the 6.8 kernel on Turin (KVER-AMD-ZEN5: "a
capability gap, not a fault … Turin runs fine with acpi-cpufreq + `performance`; do not raise a High finding for
the kernel version alone"), acpi-cpufreq + performance (KERN-AMD-PSTATE / KERN-CPUFREQ-GOVERNOR false
positives), MaxReadReq 512 (PCIE-MRRS: 256–2048 is information, no published inference gain), MaxPayload 256
(PCIE-MPS: the GPU's DevCap), the 62.5 GiB memlock and the absent nvidia_peermem (no RDMA: CTR-MEMLOCK,
IC-NVIDIA-PEERMEM), ACS redirect on the GPUs' own root ports (FW-ACS-P2P: GPUs on separate root ports route P2P
through the root complex anyway), custom all-reduce off at TP8 on PCIe (IC-CUSTOM-ALLREDUCE: by design).

Modelled on real outputs: nvidia-smi -q -x from the real RTX PRO 6000 Max-Q element of
tests/data/captures/04-… (telegraf's v13 fixture,
https://github.com/influxdata/telegraf/blob/74bae14c4081c88c014e87840cbdf4167d9e31b1/plugins/inputs/nvidia_smi/testdata/pro-6000-maxq-blackwell-v13.xml);
lspci from the RTX PRO 6000 Server Edition and EPYC GPP blocks of tests/test_pcie_lspci.py, with Turin's PCI
names from a public `lspci -tvnn` of a Turin board (3mdeb's Gigabyte MZ33-AR1 coreboot report: "Turin Root
Complex [1022:153a]", and amdtool's "Family 0x1a, Model 0x2, Stepping 0x1"); the two-node NPS1 layout with
distance 32 from a dual EPYC 9375F Proxmox node's `numactl --hardware`
(https://github.com/egandro/proxmox-cpu-affinity/issues/58) and Turin's `CPU family: 26` from a 9555's
report (https://github.com/RRZE-HPC/likwid/issues/665); topo -m / -p2p layout from tests/data/captures/59-…;
the Qwen3-235B-A22B config from the model card's numbers (94 layers, 64 Q / 4 KV heads, 128 experts, 8 active;
hidden 4096, MoE FFN 1536, vocab 151936) and Qwen's FP8 block quantization config; the remaining sysfs, /proc
and lscpu text from tests/scenario_builder.py's generators.
"""

from __future__ import annotations

from scenario_builder import (
    ACPI_IDLE_EPYC,
    EPYC_9575F,
    Gpu,
    IdleState,
    Parts,
    cgroup_v2,
    cpu_topology,
    cpufreq,
    cpuidle,
    detect_virt,
    dev_nodes,
    dmesg,
    hf_cached_model,
    interrupts,
    kernel,
    lscpu,
    lspci_turin_gpus,
    lxc_container,
    memory,
    merge,
    numa_layout,
    nvidia_driver,
    nvidia_gpus,
    nvml_userspace,
    nvsmi_topology,
    nvsmi_xml,
    pressure,
    proc_devices,
    proc_limits,
    processes,
    python_site,
    sglang_server,
    sysctls,
    thp,
    vmstat,
    vulnerabilities_sysfs,
)

DRIVER = "575.57.08"
MODEL = "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
MODEL_REVISION = "e156cb4efb7fd2e5a6e6ba62bc3c5dc5c4d4b1a7"
HF_HOME = "/models/hf"
# Qwen3-235B-A22B-Instruct-2507-FP8: the fields the ceiling reads (model card: 235B total, 22B active, 94 layers,
# GQA 64/4, 128 experts with 8 active, 262,144 context) and Qwen's fine-grained FP8 config (block 128×128).
QWEN3_235B_FP8 = {
    "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 262144,
    "max_window_layers": 94, "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 1536,
    "norm_topk_prob": True, "num_attention_heads": 64, "num_experts": 128, "num_experts_per_tok": 8,
    "num_hidden_layers": 94, "num_key_value_heads": 4, "output_router_logits": False, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 5000000, "router_aux_loss_coef": 0.001, "sliding_window": None,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                            "weight_block_size": [128, 128]},
}
NODES = numa_layout(2, 64, 2)  # NPS1: node 0 = CPUs 0-63,128-191, node 1 = 64-127,192-255
ROOTS = ["0000:00:01.1", "0000:20:01.1", "0000:40:01.1", "0000:60:01.1",
         "0000:80:01.1", "0000:a0:01.1", "0000:c0:01.1", "0000:e0:01.1"]
GPUS = [Gpu(f"0000:{r[5]}1:00.0", r, i // 4, 30 + 2 * i, "0x2bb5", "RTX PRO 6000 Blackwell Server Edition")
        for i, r in enumerate(ROOTS)]
MEMLOCK_BYTES = 67_108_864_000  # 62.5 GiB
ENGINE_PID = 2211
SGLANG_PKGS = {"torch": "2.7.1+cu128", "sglang": "0.4.9.post2", "sgl-kernel": "0.2.4", "flashinfer-python": "0.2.7.post1",
               "triton": "3.3.1", "transformers": "4.53.2", "nvidia-nccl-cu12": "2.27.3", "setproctitle": "1.3.6"}
MODULES = ("nvidia_uvm 2076672 8 - Live 0x0000000000000000 (OE)\n"
           "nvidia_drm 135168 0 - Live 0x0000000000000000 (OE)\n"
           "nvidia_modeset 1720320 1 nvidia_drm, Live 0x0000000000000000 (OE)\n"
           "nvidia 11882496 79 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (OE)\n"
           "zfs 6598656 8 - Live 0x0000000000000000 (PO)\n")


def _kernel_log() -> list[str]:
    """The node's kernel log from boot, as `dmesg` prints it inside a privileged container."""
    return [
        "[    0.000000] Linux version 6.8.12-9-pve (build@proxmox) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU "
        "Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z) ()",
        "[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.8.12-9-pve root=/dev/mapper/pve-root ro quiet iommu=pt",
        "[    1.211874] pci 0000:00:00.2: AMD-Vi: IOMMU performance counters supported",
        "[    1.216402] AMD-Vi: Interrupt remapping enabled",
        "[    1.262337] iommu: Default domain type: Passthrough (set via kernel command line)",
        "[    3.918220] amd_pstate: driver load is disabled, boot with specific mode to enable this",
        "[    9.402115] nvidia: module license 'Dual MIT/GPL' taints kernel.",
        f"[    9.871003] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  {DRIVER}  Release Build  "
        "(dvs-builder@U22-I3-AM02-24-3)  Wed May 21 21:13:41 UTC 2025",
        "[   10.114622] nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for x86_64  "
        f"{DRIVER}  Release Build  (dvs-builder@U22-I3-AM02-24-3)  Wed May 21 20:55:28 UTC 2025",
        "[   10.552198] [drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver",
    ]


def rtx_pro_6000_lxc(fixed: bool = False, p2p_level: str | None = None) -> Parts:
    """The bad host, or (`fixed`) its twin with numa_balancing=0 and C2 disabled on the Proxmox node.

    `p2p_level`: NCCL_P2P_LEVEL in the engine's environment (modelled: `SYS` sends NCCL's peer traffic across the
    root ports, the condition under which their ACS redirect is an issue)."""
    ncpu = 256
    env = {"PATH": "/opt/sglang/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "HOME": "/root", "LANG": "C.UTF-8", "VIRTUAL_ENV": "/opt/sglang/.venv", "HF_HOME": HF_HOME,
           "HF_HUB_OFFLINE": "1", "INVOCATION_ID": "0b9f2c7d41e64a4e8c0b5a2a3c1d9e77", "JOURNAL_STREAM": "8:31722"}
    if p2p_level is not None:
        env["NCCL_P2P_LEVEL"] = p2p_level
    # SGLang raised its soft nofile limit to the hard one (set_ulimit); memlock is the container's 62.5 GiB.
    limits = proc_limits(nofile=("524288", "524288"), memlock=(str(MEMLOCK_BYTES), str(MEMLOCK_BYTES)))
    argv = ["/opt/sglang/.venv/bin/python3", "-m", "sglang.launch_server", "--model-path", MODEL, "--tp", "8",
            "--host", "0.0.0.0", "--port", "30000", "--mem-fraction-static", "0.88", "--context-length", "65536"]
    engine = sglang_server(ENGINE_PID, 1, argv, env, tp=8, ncpu=ncpu, limits=limits,
                           exe="/usr/bin/python3.12", cap_eff="000001ffffffffff", seccomp=0)
    c2 = IdleState("C2", "ACPI IOPORT 0x415", 100, 200, disable=1 if fixed else 0)
    return merge(
        kernel("6.8.12-9-pve", "#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z)", "sglang-ct",
               "BOOT_IMAGE=/boot/vmlinuz-6.8.12-9-pve root=/dev/mapper/pve-root ro quiet iommu=pt"),
        lscpu(EPYC_9575F, 2, 2, NODES), cpu_topology(NODES, 792_415_232), vulnerabilities_sysfs("AuthenticAMD"),
        cpufreq(ncpu, "acpi-cpufreq", "performance", min_khz=1_500_000, max_khz=3_300_000, cur_khz=3_300_000,
                boost="1", governors="conservative ondemand userspace powersave performance schedutil"),
        cpuidle("acpi_idle", (*ACPI_IDLE_EPYC[:2], c2)),
        sysctls(kernel__numa_balancing=0 if fixed else 1, kernel__nmi_watchdog=1, kernel__watchdog=1,
                kernel__soft_watchdog=1, kernel__sched_autogroup_enabled=1, kernel__sched_rt_runtime_us=950000,
                kernel__dmesg_restrict=0, vm__swappiness=60, vm__overcommit_memory=0, vm__zone_reclaim_mode=0,
                vm__max_map_count=262144, fs__file_max="9223372036854775807", fs__nr_open=1048576),
        thp("madvise", "madvise"), vmstat(1_209_600), memory(536_870_912), pressure(1.4), interrupts(8),
        detect_virt("none"),
        nvidia_gpus(GPUS, iommu_type="identity", root_device="0x153e", speed="32.0 GT/s PCIe"),
        nvidia_driver(DRIVER), nvml_userspace(DRIVER), dev_nodes(range(8)), proc_devices(uvm_major=507),
        Parts(files={"/proc/modules": MODULES}),
        lspci_turin_gpus(GPUS, mps=256, mrrs=512),
        nvsmi_xml(GPUS, driver=DRIVER, cuda="12.9"),
        nvsmi_topology(GPUS, NODES),
        dmesg(_kernel_log()),
        processes(engine),
        python_site("/opt/sglang/.venv/lib/python3.12/site-packages", SGLANG_PKGS, "12.8"),
        Parts(files={"/opt/sglang/.venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\n"
                                                      "version = 3.12.3\n"}),
        hf_cached_model(f"{HF_HOME}/hub", MODEL, MODEL_REVISION, QWEN3_235B_FP8),
        lxc_container(ENGINE_PID + 900, ncpu, 256 * 1024 * 1024, limits),
        cgroup_v2("max 100000", "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n", "0-255", "549755813888"),
    )


def rtx_pro_6000_lxc_fixed() -> Parts:
    return rtx_pro_6000_lxc(fixed=True)


# name: (builder, audited inside a container); the expectations live in tests/data/scenarios/rtx-pro-6000-lxc.toml
SCENARIOS = {"rtx-pro-6000-lxc": (rtx_pro_6000_lxc, True), "rtx-pro-6000-lxc-fixed": (rtx_pro_6000_lxc_fixed, True)}
HOSTNAMES = {"rtx-pro-6000-lxc": "sglang-ct", "rtx-pro-6000-lxc-fixed": "sglang-ct"}
