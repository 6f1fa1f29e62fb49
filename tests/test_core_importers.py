"""Pasted host-side outputs: recognised by content, with chatter around, several in one file."""

from __future__ import annotations

from stackaudit.engine.testing import run_checks
from stackaudit.facts.system import parse_cmdline, parse_lscpu, parse_numactl, parse_proc_modules, parse_uname
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise

BUG_REPORT = """Hi, vLLM is slow on my box. Here is some info:

$ uname -a
Linux gpu-node-7 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux
$ cat /proc/cmdline
BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic root=UUID=0b3f-11 ro quiet splash pci=noacs amd_iommu=on
$ lscpu
Architecture:             x86_64
  CPU op-mode(s):         32-bit, 64-bit
CPU(s):                   128
  On-line CPU(s) list:    0-127
Vendor ID:                AuthenticAMD
  Model name:             AMD EPYC 7763 64-Core Processor
    CPU family:           25
    Model:                1
    Thread(s) per core:   1
    Core(s) per socket:   64
    Socket(s):            2
Virtualization features:
  Virtualization:         AMD-V
NUMA:
  NUMA node(s):           2
  NUMA node0 CPU(s):      0-63
  NUMA node1 CPU(s):      64-127
Vulnerabilities:
  Spectre v2:             Mitigation; Retpolines
$ numactl -H
available: 2 nodes (0-1)
node 0 cpus: 0 1 2 3
node 0 size: 257655 MB
node 0 free: 250000 MB
node 1 cpus: 4 5 6 7
node 1 size: 258031 MB
node 1 free: 251000 MB
node distances:
node   0   1
  0:  10  32
  1:  32  10
$ lsmod | head
Module                  Size  Used by
nvidia_uvm           4956160  4
nvidia_drm             122880  0
nvidia              54190080  98 nvidia_uvm,nvidia_modeset
and dmesg:
[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075)
[    0.512233] PCI: Unknown option `noacs'
thanks!
"""


def test_every_output_recognised_and_chatter_ignored() -> None:
    result = recognise(BUG_REPORT)
    kinds = [k for k, _, _ in result.recognised]
    for kind in ("uname -a", "/proc/cmdline", "lscpu", "numactl -H", "lsmod", "dmesg"):
        assert kind in kinds
    record = result.record
    assert parse_cmdline(record.files["/proc/cmdline"].decode()).pci_options() == ["noacs"]
    cpu = parse_lscpu(record.commands[("lscpu",)].stdout)
    assert (cpu.sockets, cpu.family, cpu.numa_nodes, cpu.model_name) == (2, 25, 2, "AMD EPYC 7763 64-Core Processor")
    assert parse_uname(record.commands[("uname", "-a")].stdout).release == "6.8.0-45-generic"
    # Recorded verbatim under their own commands (snapshot format 2), never as invented /proc or /sys files.
    assert {"nvidia", "nvidia_uvm", "nvidia_drm"} <= parse_proc_modules(record.commands[("lsmod",)].stdout).names
    assert "/proc/modules" not in record.files and not any(p.startswith("/sys/") for p in record.files)
    numa = parse_numactl(record.commands[("numactl", "-H")].stdout)
    assert numa.nodes[1].cpus == (4, 5, 6, 7) and numa.nodes[0].distances == (10, 32)
    assert "Unknown option `noacs'" in record.commands[("dmesg",)].stdout


def test_pasted_host_gives_results_and_unknown_for_the_rest(tmp_path) -> None:
    path = tmp_path / "report.txt"
    path.write_bytes(BUG_REPORT.encode() + b"\xff\xfe broken bytes\n")
    host = load_pasted([str(path)])
    results = run_checks(host, ["FW"])
    assert results["FW-NUMA-NPS"].status == "ok" and "NPS1" in results["FW-NUMA-NPS"].message
    # The paste shows no PCI bus: GPU-dependent checks stay unknown, never ok or not-applicable.
    assert results["FW-IOMMU-MODE"].status == "unknown"


def test_numactl_cpu_compress_capture(captures_dir) -> None:  # type: ignore[no-untyped-def]
    host = load_pasted([str(captures_dir / "26-dual-epyc-9135-rtx4090-numactl-hardware.txt")])
    # `--cpu-compress` prints `node 1 cpus: 16-31 (16)`: the count in parentheses is not a CPU.
    assert parse_numactl(host.record.commands[("numactl", "-H")].stdout).nodes[1].cpus == tuple(range(16, 32))
    r = run_checks(host, ["FW-NUMA-NPS"])["FW-NUMA-NPS"]
    assert r.status == "ok" and "2 NUMA node" in r.message


def test_cmdline_capture_intel_iommu_pt(captures_dir) -> None:  # type: ignore[no-untyped-def]
    host = load_pasted([str(captures_dir / "28-rtx3070ti-vfio-proc-cmdline-intel-iommu-on.txt")])
    cmdline = parse_cmdline(host.record.files["/proc/cmdline"].decode())
    assert cmdline.last("intel_iommu") == "on" and cmdline.last("iommu") == "pt"
    assert cmdline.has("quite")  # the typo in the capture is kept, not an error
