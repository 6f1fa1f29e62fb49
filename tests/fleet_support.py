"""Fleet nodes for the fleet tests and perf/fleet_scale.py: one 8-GPU serving node, with knobs to plant drift.

Modelled, not captured: the node is the bare-metal twin of tests/scenarios_rtx_pro_6000.py's host (8× RTX PRO 6000
Blackwell Server Edition on dual EPYC 9575F, SGLang TP8), built from tests/scenario_builder.py's generators: the
whole `lspci -vvv`, `nvidia-smi -q -x`, `topo -m`, sysfs, sysctls, kernel command line and a kernel log from boot.
What a node may differ in is a parameter: the driver version, one GPU's link width (sysfs, lspci and nvidia-smi
all say x8, as a link that trained narrow shows everywhere), a sysctl, a kernel command-line option; and samples
(CPU pressure, uptime) and identity (GPU UUIDs and serial numbers, boot_id, temperatures: derived from the
hostname) that always differ between real nodes and must never count as drift.

`big_dmesg` adds the bulk of a real 8-GPU server's boot log (thousands of lines: PCI enumeration of every
function, ACPI, memory map, NIC and NVMe probing) for the scale benchmark, as real-size captures have.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scenario_builder import (
    ACPI_IDLE_EPYC,
    EPYC_9575F,
    Gpu,
    Parts,
    bare_metal,
    cpu_topology,
    cpufreq,
    cpuidle,
    detect_virt,
    dev_nodes,
    dmesg,
    interrupts,
    kernel,
    lscpu,
    lspci_turin_gpus,
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
    sysctl_conf,
    sysctls,
    thp,
    vmstat,
    vulnerabilities_sysfs,
)

DRIVER = "580.65.06"
KERNEL = "6.8.0-60-generic"
CMDLINE = f"BOOT_IMAGE=/boot/vmlinuz-{KERNEL} root=UUID=2f1c0e55-7f0a-4d8e-9b3e-0d9c1a7e6b21 ro quiet iommu=pt"
NODES = numa_layout(2, 64, 2)
ROOTS = ["0000:00:01.1", "0000:20:01.1", "0000:40:01.1", "0000:60:01.1",
         "0000:80:01.1", "0000:a0:01.1", "0000:c0:01.1", "0000:e0:01.1"]
GPUS = [Gpu(f"0000:{r[5]}1:00.0", r, i // 4, 30 + 2 * i, "0x2bb5", "RTX PRO 6000 Blackwell Server Edition")
        for i, r in enumerate(ROOTS)]
SYSCTLS: dict[str, str | int] = {
    "kernel__numa_balancing": 0, "kernel__nmi_watchdog": 1, "kernel__watchdog": 1, "kernel__soft_watchdog": 1,
    "kernel__sched_autogroup_enabled": 1, "kernel__sched_rt_runtime_us": 950000, "kernel__dmesg_restrict": 0,
    "vm__swappiness": 60, "vm__overcommit_memory": 0, "vm__zone_reclaim_mode": 0, "vm__max_map_count": 262144,
    "fs__file_max": "9223372036854775807", "fs__nr_open": 1048576,
}
ENGINE_PID = 3104
PKGS = {"torch": "2.7.1+cu128", "sglang": "0.4.9.post2", "sgl-kernel": "0.2.4", "flashinfer-python": "0.2.7.post1",
        "triton": "3.3.1", "transformers": "4.53.2", "nvidia-nccl-cu12": "2.27.3", "setproctitle": "1.3.6"}
MODULES = ("nvidia_uvm 2076672 8 - Live 0x0000000000000000 (OE)\n"
           "nvidia_drm 135168 0 - Live 0x0000000000000000 (OE)\n"
           "nvidia_modeset 1720320 1 nvidia_drm, Live 0x0000000000000000 (OE)\n"
           "nvidia 11882496 79 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (OE)\n")


@dataclass(frozen=True)
class Node:
    """One node's configuration (what drift is made of) and its samples (what is never drift)."""

    hostname: str
    driver: str = DRIVER
    cmdline_extra: str = ""  # appended to the kernel command line
    sysctl: dict[str, str | int] = field(default_factory=dict)  # overrides of SYSCTLS
    narrow_gpu: int | None = None  # this GPU's link trained at x8
    cpu_pressure: float = 0.4  # sample: PSI some avg10
    uptime_s: float = 1_209_600.0  # sample
    big_dmesg: bool = False


def _kernel_log(node: Node) -> list[str]:
    lines = [
        f"[    0.000000] Linux version {KERNEL} (buildd@lcy02-amd64-078) (x86_64-linux-gnu-gcc-13 (Ubuntu "
        "13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #60-Ubuntu SMP PREEMPT_DYNAMIC",
        f"[    0.000000] Command line: {CMDLINE}{node.cmdline_extra}",
    ]
    if node.big_dmesg:
        lines += _boot_bulk()
    lines += [
        "[    1.211874] pci 0000:00:00.2: AMD-Vi: IOMMU performance counters supported",
        "[    1.216402] AMD-Vi: Interrupt remapping enabled",
        "[    1.262337] iommu: Default domain type: Passthrough (set via kernel command line)",
        "[    9.402115] nvidia: module license 'NVIDIA' taints kernel.",
        f"[    9.871003] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  {node.driver}  Release Build  "
        "(dvs-builder@U22-I3-AM02-24-3)  Wed Jul  9 22:56:51 UTC 2025",
        "[   10.114622] nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for x86_64  "
        f"{node.driver}  Release Build  (dvs-builder@U22-I3-AM02-24-3)  Wed Jul  9 22:41:03 UTC 2025",
        "[   10.552198] [drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver",
    ]
    return lines


def _boot_bulk() -> list[str]:
    """About 6,000 lines in the shapes a dual-socket server's boot log has (modelled: e820 map, ACPI tables, PCI
    enumeration of every bus and function, per-CPU bring-up, NIC and NVMe probing)."""
    out: list[str] = []
    t = 0.0
    for i in range(160):
        out.append(f"[    0.000000] BIOS-e820: [mem 0x{i * 0x10000000:016x}-0x{i * 0x10000000 + 0xfffffff:016x}] "
                   f"{'usable' if i % 7 else 'reserved'}")
    for i in range(120):
        out.append(f"[    0.0{i:05d}] ACPI: SSDT 0x{0x6F2A0000 + i * 0x1000:016X} 00{i % 9}A4C (v02 AMD    "
                   f"AmdTable 00000002 MSFT 05000000)")
    for cpu in range(256):
        t += 0.00031
        out.append(f"[{t:13.6f}] smpboot: x86: Booting SMP configuration: node {cpu // 128} #{cpu}")
    for bus in range(0, 256, 1):
        for fn in range(6):
            t += 0.00002
            bdf = f"0000:{bus:02x}:{fn:02x}.0"
            out.append(f"[{t:13.6f}] pci {bdf}: [1022:14{fn:02x}] type 00 class 0x088000 PCIe Root Complex "
                       "Integrated Endpoint")
            out.append(f"[{t:13.6f}] pci {bdf}: Adding to iommu group {bus * 6 + fn}")
            if fn % 2 == 0:
                out.append(f"[{t:13.6f}] pci {bdf}: PME# supported from D0 D3hot D3cold")
    for n in range(16):
        t += 0.0113
        out.append(f"[{t:13.6f}] nvme nvme{n}: pci function 0000:{0x41 + n:02x}:00.0")
        out.append(f"[{t:13.6f}] nvme nvme{n}: 64/0/0 default/read/poll queues")
        out.append(f"[{t:13.6f}]  nvme{n}n1: p1 p2")
    for n in range(8):
        t += 0.021
        out.append(f"[{t:13.6f}] mlx5_core 0000:{0x1c + n * 0x20:02x}:00.0: firmware version: 28.43.1014")
        out.append(f"[{t:13.6f}] mlx5_core 0000:{0x1c + n * 0x20:02x}:00.0: 252.048 Gb/s available PCIe "
                   "bandwidth (16.0 GT/s PCIe x16 link)")
    return out


def _narrow(parts: Parts, gpu: int) -> Parts:
    """One GPU's link trained at x8: sysfs, lspci's LnkSta and nvidia-smi's current width all say so."""
    g = GPUS[gpu]
    real = f"/sys/devices/pci{g.root_port[:7]}/{g.root_port}/{g.bdf}"
    files = {**parts.files, f"{real}/current_link_width": "8\n"}
    commands = dict(parts.commands)
    key = ("lspci", "-D", "-nn", "-vvv")
    lspci = str(commands[key])
    start = lspci.index(f"{g.bdf} 3D controller")
    end = lspci.find("\n\n", start)
    block = lspci[start:end].replace("LnkSta:\tSpeed 32GT/s, Width x16", "LnkSta:\tSpeed 32GT/s, Width x8 (downgraded)")
    commands[key] = lspci[:start] + block + lspci[end:]
    xml_key = ("nvidia-smi", "-q", "-x")
    xml = str(commands[xml_key])
    bus_id = f"0000{g.bdf.upper()}"
    start = xml.index(f'<gpu id="{bus_id}">')
    end = xml.index("</gpu>", start)
    block = xml[start:end].replace("<current_link_width>16x</current_link_width>",
                                   "<current_link_width>8x</current_link_width>")
    commands[xml_key] = xml[:start] + block + xml[end:]
    return Parts(files, parts.links, parts.dirs, commands, parts.which, parts.docs)


def node_parts(node: Node) -> Parts:
    ncpu = 256
    env = {"PATH": "/opt/sglang/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "HOME": "/root", "LANG": "C.UTF-8", "VIRTUAL_ENV": "/opt/sglang/.venv", "HF_HOME": "/models/hf"}
    limits = proc_limits(nofile=("1048576", "1048576"), memlock=("unlimited", "unlimited"))
    argv = ["/opt/sglang/.venv/bin/python3", "-m", "sglang.launch_server", "--model-path",
            "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "--tp", "8", "--host", "0.0.0.0", "--port", "30000"]
    engine = sglang_server(ENGINE_PID, 1, argv, env, tp=8, ncpu=ncpu, limits=limits, exe="/usr/bin/python3.12",
                           cap_eff="000001ffffffffff", seccomp=0)
    parts = merge(
        kernel(KERNEL, "#60-Ubuntu SMP PREEMPT_DYNAMIC Fri May 16 10:12:26 UTC 2025", node.hostname,
               CMDLINE + node.cmdline_extra),
        lscpu(EPYC_9575F, 2, 2, NODES), cpu_topology(NODES, 792_415_232), vulnerabilities_sysfs("AuthenticAMD"),
        cpufreq(ncpu, "amd-pstate-epp", "performance", min_khz=1_500_000, max_khz=5_008_000, cur_khz=3_300_000,
                boost="1", governors="performance powersave"),
        cpuidle("acpi_idle", ACPI_IDLE_EPYC[:2]),
        sysctls(**{**SYSCTLS, **node.sysctl}),
        # What the node's image configures: its runtime sysctls come from there, so a node configured
        # differently differs in its configuration and its runtime alike (not also "lost at reboot").
        sysctl_conf({"/etc/sysctl.d/90-gpu-node.conf": "".join(
            f"{key.replace('__', '.')} = {value}\n" for key, value in sorted({**SYSCTLS, **node.sysctl}.items()))}),
        thp("madvise", "madvise"), vmstat(node.uptime_s), memory(1_584_830_464), pressure(node.cpu_pressure),
        interrupts(8), detect_virt("none"),
        nvidia_gpus(GPUS, iommu_type="identity", root_device="0x153e", speed="32.0 GT/s PCIe"),
        nvidia_driver(node.driver), nvml_userspace(node.driver), dev_nodes(range(8)), proc_devices(),
        Parts(files={"/proc/modules": MODULES}),
        lspci_turin_gpus(GPUS, mps=256, mrrs=512),
        nvsmi_xml(GPUS, driver=node.driver, cuda="13.0"),
        nvsmi_topology(GPUS, NODES),
        dmesg(_kernel_log(node)),
        processes(engine),
        python_site("/opt/sglang/.venv/lib/python3.12/site-packages", PKGS, "12.8"),
        bare_metal(ENGINE_PID + 900, ncpu, 256 * 1024 * 1024, limits),
    )
    parts = _narrow(parts, node.narrow_gpu) if node.narrow_gpu is not None else parts
    return _own_identity(parts, node.hostname)


def _own_identity(parts: Parts, hostname: str) -> Parts:
    """What every real node has of its own, derived from its name: its GPUs' UUIDs and serial numbers, its
    boot_id, and temperatures (samples). None of it is configuration, so none of it may count as drift."""
    import hashlib
    import re

    h = hashlib.sha256(hostname.encode()).hexdigest()
    commands = dict(parts.commands)
    xml_key = ("nvidia-smi", "-q", "-x")
    xml = str(commands[xml_key]).replace("GPU-5e1c", f"GPU-{h[:4]}").replace(
        "<serial>18243250", f"<serial>1824{int(h[4:8], 16) % 10_000:04d}")
    commands[xml_key] = re.sub(r"<gpu_temp>(\d+) C</gpu_temp>",
                               lambda m: f"<gpu_temp>{int(m.group(1)) + int(h[8], 16) % 7} C</gpu_temp>", xml)
    files = dict(parts.files)
    files["/proc/sys/kernel/random/boot_id"] = f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}\n"
    return Parts(files, parts.links, parts.dirs, commands, parts.which, parts.docs)


def write_node(node: Node, out_path: str) -> None:
    """Capture the node as `stackaudit capture` would: a format-2 snapshot with its manifest."""
    from scenario_builder import build_host
    from stackaudit.capture import capture_host

    capture_host(build_host(node_parts(node), node.hostname), out_path)


def audit_or_die(node: str, path: str, waivers: object = ()) -> object:
    """The analysis's worker function, except that a snapshot named `*crash*` kills the worker process (as the
    kernel's OOM killer would): for the test that a dead worker fails only its own node."""
    import os

    from stackaudit.fleet.analysis import summarise_snapshot

    if "crash" in os.path.basename(path):
        os._exit(137)
    return summarise_snapshot(node, path, waivers)  # type: ignore[arg-type]


def has_row(text: str, *cells: str) -> bool:
    """Whether a row of a drawn text table (render.document: cells two or more spaces apart) starts with `cells`."""
    rows = (line.strip().split("  ") for line in text.splitlines())
    return any([c.strip() for c in row if c.strip()][:len(cells)] == list(cells) for row in rows)
