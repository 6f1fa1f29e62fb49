"""The sources facts read, by name: one table shared by providers, importers, snapshots and tests.

A source's `title` is what "not in the source" messages and provenance lines name; its `hint` is
the cheapest thing a user can paste or run to supply it. Providers and importers take argv and paths
from here, never literals of their own, so that a live read, a snapshot member and a paste meet at
the same key (`Source.key`).
"""

from __future__ import annotations

from stackaudit.host.source import Source

# --- host basics ---------------------------------------------------------------------------------
UNAME = Source("uname", "`uname -a`", argv=("uname", "-a"), hint="paste `uname -a`")
PROC_CMDLINE = Source("proc_cmdline", "/proc/cmdline", path="/proc/cmdline", hint="paste `cat /proc/cmdline`")
LSCPU = Source("lscpu", "`lscpu`", argv=("lscpu",), hint="paste `lscpu`")
NODE_SYSFS = Source("node_sysfs", "/sys/devices/system/node", path="/sys/devices/system/node")
NUMACTL_H = Source("numactl_h", "`numactl -H`", argv=("numactl", "-H"), hint="paste `numactl -H`")
PROC_MODULES = Source("proc_modules", "/proc/modules", path="/proc/modules", hint="paste `lsmod`")
LSMOD = Source("lsmod", "`lsmod`", argv=("lsmod",), hint="paste `lsmod`")
DMESG = Source("dmesg", "`dmesg`", argv=("dmesg",), hint="paste `sudo dmesg` (the whole log, from boot)")

# --- NVIDIA --------------------------------------------------------------------------------------
NVML = Source("nvml", "NVML", nvml=True, hint="run on the host with the NVIDIA driver loaded")
NVSMI_XML = Source("nvsmi_xml", "`nvidia-smi -q -x`", argv=("nvidia-smi", "-q", "-x"), hint="paste `nvidia-smi -q`")
NVSMI_QUERY = Source("nvsmi_query", "`nvidia-smi -q`", argv=("nvidia-smi", "-q"), hint="paste `nvidia-smi -q`")
NVSMI_TABLE = Source("nvsmi_table", "`nvidia-smi`", argv=("nvidia-smi",), hint="paste `nvidia-smi`")

# --- PCI and RDMA ----------------------------------------------------------------------------------
PCI_SYSFS = Source("pci_sysfs", "/sys/bus/pci/devices", path="/sys/bus/pci/devices")
LSPCI_VVV = Source("lspci_vvv", "`lspci -vvv`", argv=("lspci", "-D", "-nn", "-vvv"), hint="paste `sudo lspci -vvv`")
INFINIBAND_SYSFS = Source("infiniband_sysfs", "/sys/class/infiniband", path="/sys/class/infiniband",
                          hint="paste `ls /sys/class/infiniband` or an NCCL_DEBUG=INFO log")

# --- documents with no place on a host --------------------------------------------------------------
# One pasted log holds the engine's own lines (vLLM, SGLang) and NCCL's INFO/WARN lines, in order.
ENGINE_LOG = Source("engine_log", "pasted engine / NCCL log", doc=True,
                    hint="paste the server's log (with NCCL_DEBUG=INFO for NCCL lines)")

ALL: tuple[Source, ...] = tuple(v for v in globals().values() if isinstance(v, Source))
BY_NAME: dict[str, Source] = {s.name: s for s in ALL}
