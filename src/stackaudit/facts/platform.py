"""Platform: virtual machine or bare metal, and a Windows host where the sources show one (Virtualization.os)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import GpuInventory, counted_gpus, listed_model, stated_gpus
from stackaudit.facts.hostname import Hostname
from stackaudit.facts.peer_access import NHC_BW
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, parser, provider, read_source
from stackaudit.facts.serving_logs import OLLAMA_WINDOWS
from stackaudit.facts.sources import (
    ENGINE_COMMAND,
    ENGINE_LOG,
    EVIDENCE_LINES,
    K8S_NODE,
    P2P_BANDWIDTH_TEST,
    PROMPT_HOSTS,
    RIG_REPORT_ENVIRONMENT,
    SYSTEMD_DETECT_VIRT,
    USER_MACHINE,
)
from stackaudit.facts.system import CpuInfo, KernelInfo, KernelLog
from stackaudit.gputable import VGPU_PROFILE, exact_name
from stackaudit.host.base import NotCaptured, read_optional
from stackaudit.pci_address import off_link_slot, on_root_bus

if TYPE_CHECKING:
    from stackaudit.facts.collect_env import CollectEnv
    from stackaudit.facts.lspci import LspciDevice
    from stackaudit.facts.nvidia import NvidiaGpus

# DMI product/vendor strings of common hypervisors (as systemd-detect-virt matches them: src/basic/virt.c
# dmi_vendor_table), and Cloud Hypervisor's (`Cloud Hypervisor cloud-hypervisor`, which systemd finds by CPUID).
_DMI_HYPERVISORS = {
    "QEMU": "qemu",
    "KVM": "kvm",
    "KubeVirt": "kvm",
    "Cloud Hypervisor": "kvm",
    "VMware": "vmware",
    "VMW": "vmware",
    "VirtualBox": "oracle",
    "innotek GmbH": "oracle",
    "Virtual Machine": "microsoft",
    "Hyper-V": "microsoft",
    "Amazon EC2": "amazon",
    "Google Compute Engine": "google",
    "Xen": "xen",
    "OpenStack": "kvm",
    "Bochs": "bochs",
    "Parallels": "parallels",
    "BHYVE": "bhyve",
    "Apple Virtualization": "apple",
}
# An EC2 bare-metal instance keeps the `Amazon EC2` vendor and names its `.metal` type (`Amazon EC2 c5.metal`).
_EC2_METAL = re.compile(r"\.metal\b")

# The kernel prints the machine's DMI ids, `<vendor> <product>/<board>, BIOS <version> <date>`, at boot
# (`DMI: ...`, drivers/firmware/dmi_scan.c dmi_setup) and in every stack dump of an Oops or WARN
# (`Hardware name: ...`, lib/dump_stack.c). The `, BIOS ` part is always printed, which no other `DMI:` line holds
# (`DMI: Memory slots populated: 4/4`).
_KERNEL_DMI = re.compile(r"^\s*(?:\[\s*\d+\.\d+\]\s*)?(?:DMI|Hardware name): (?P<ids>.+?, BIOS .*?)\s*$")


def dmi_hypervisor(dmi: str) -> str | None:
    """The hypervisor a DMI ids string names (_DMI_HYPERVISORS), as systemd-detect-virt names it; None for a
    physical machine's board, or an EC2 `.metal` instance's."""
    if _EC2_METAL.search(dmi):
        return None
    return next((name for marker, name in _DMI_HYPERVISORS.items() if marker in dmi), None)


def kernel_dmi(log: KernelLog | None) -> str:
    """The DMI ids the kernel log prints (_KERNEL_DMI, its last such line), or "" where it shows none."""
    for line in reversed(log.lines if log is not None else ()):
        if ("DMI: " in line or "Hardware name: " in line) and (m := _KERNEL_DMI.match(line)):
            return m.group("ids")
    return ""


@dataclass(frozen=True)
class KernelFlavour:
    """A kernel build that only a virtual machine boots: its release names the hypervisor."""

    pattern: str  # searched in the kernel release (`uname -r`)
    vm: str  # the hypervisor, as systemd-detect-virt names it
    what: str
    source: str


_UBUNTU_VARIANTS = "https://ubuntu.com/kernel/variants"
# WSL 2's kernel: its GPU is the Windows driver's (GPU-PV), and no NVIDIA kernel module of Linux's is loaded.
WSL_KERNEL = KernelFlavour(r"-microsoft-standard-WSL2$", "microsoft", "the WSL 2 kernel (a Hyper-V utility VM)",
                           "https://learn.microsoft.com/en-us/windows/wsl/about#what-is-wsl-2")
# Kernel flavours built for one cloud's or hypervisor's guests. Left out on purpose: Ubuntu's `-oracle`, which OCI's
# bare-metal GPU shapes (BM.GPU.*) also boot, and `-nvidia`, NVIDIA's flavour for its bare-metal DGX systems.
# AWS's *.metal instance types boot `-aws` kernels too; their DMI and lscpu, read first, say bare metal.
CLOUD_KERNELS = (
    KernelFlavour(r"-aws$", "amazon", "Ubuntu's kernel for AWS EC2 (linux-aws)", _UBUNTU_VARIANTS),
    KernelFlavour(r"-azure(?:-fde|-cvm)?$", "microsoft", "Ubuntu's kernel for Azure VMs (linux-azure)", _UBUNTU_VARIANTS),
    KernelFlavour(r"-(?:gcp|gke)$", "google", "Ubuntu's kernel for Google Compute Engine (linux-gcp, linux-gke)",
                  _UBUNTU_VARIANTS),
    KernelFlavour(r"-kvm$", "kvm", "Ubuntu's kernel for KVM guests (linux-kvm)", _UBUNTU_VARIANTS),
    KernelFlavour(r"\.amzn(?:1|2|2023)\.", "amazon", "Amazon Linux's kernel for EC2",
                  "https://docs.aws.amazon.com/linux/al2023/ug/kernel.html"),
    KernelFlavour(r"-cloud-(?:amd64|arm64)$", "vm", "Debian's cloud kernel (linux-image-cloud-*: no drivers for "
                  "bare-metal hardware)", "https://lists.debian.org/debian-cloud/2020/04/msg00000.html"),
    WSL_KERNEL,
)


@dataclass(frozen=True)
class CloudHostname:
    """A host name a cloud gives its virtual machines by default: the name says whose VM the host is."""

    pattern: str  # matched against the whole host name, case ignored
    vm: str  # the hypervisor, as systemd-detect-virt names it
    what: str
    source: str


# Names the provider, not the user, gives. Left out on purpose: Tencent Cloud's `VM-<ip>-<os>` (corpus 784, 1333),
# which its bare-metal GPU cluster instances (HCC), created through the same CVM service, may carry too. EC2's
# *.metal instances get IP-based names as well; their DMI and lscpu, read first, say bare metal.
CLOUD_HOSTNAMES = (
    # A user who hides the address keeps the name's form, its octets written X (`ec2-user@ip-X-X-X-X`, corpus 1503).
    CloudHostname(r"ip-(?:\d{1,3}|x{1,3})(?:-(?:\d{1,3}|x{1,3})){3}"
                  r"(?:\.ec2\.internal|\.[a-z]{2}(?:-[a-z]+)+-\d\.compute\.internal)?",
                  "amazon", "an EC2 instance's IP-based host name",
                  "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-naming.html"),
    # GKE names each node after its Compute Engine instance: gke-<cluster>-<node pool>-<group hash>-<suffix>.
    CloudHostname(r"gke-[a-z0-9-]+-[0-9a-f]{8}-[a-z0-9]{4}", "google",
                  "a GKE node's name (its Compute Engine VM instance)",
                  "https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools"),
    # AKS names each node after its scale set instance: aks-<node pool>-<number>-vmss<instance id>.
    CloudHostname(r"aks-[a-z0-9]+-\d+-vmss[0-9a-z]{6}", "microsoft",
                  "an AKS node's name (an Azure virtual machine scale set instance)",
                  "https://learn.microsoft.com/en-us/azure/aks/core-aks-concepts"),
    # Not a cloud's but an installer's: Ubuntu's desktop installer suggests `<user>-<model>` as the host name, its model
    # `virtual machine` where the DMI manufacturer is Bochs (QEMU/KVM) or VMware (ubiquity's misc.dmimodel), so
    # `ads-team1@exaleapvrt2-virtual-machine` (corpus 1482) and `root@user-virtual-machine` (1412) are guests.
    CloudHostname(r"[\w.-]+-virtual-machine", "vm",
                  "the host name Ubuntu's installer suggests on a QEMU/KVM or VMware guest (`<user>-virtual-machine`)",
                  "https://git.launchpad.net/ubiquity/tree/ubiquity/misc.py"),
)


def cloud_hostname(name: str) -> CloudHostname | None:
    """The row of CLOUD_HOSTNAMES a host name is, or None."""
    return next((row for row in CLOUD_HOSTNAMES if re.fullmatch(row.pattern, name.strip(), re.I)), None)


# The name Windows setup gives a PC it installs (`DESKTOP-` and seven letters and digits, an OEM laptop's `LAPTOP-` and
# eight), which WSL 2 takes as its Linux host name. Alone it says no VM: a Linux host may be named so by hand, and the
# blind readings of an NCCL log on `DESKTOP-VMBL43V` leave it open (corpus 1246). Beside a GPU that sysfs shows no PCI
# path for (NCCL's `Could not find real path of /sys/class/pci_bus/...`) it is WSL 2, which hands Linux the GPU through
# the Windows driver's paravirtual device without a PCI tree (corpus 2269); a cloud VM's missing path stays open (1236).
WINDOWS_MACHINE_NAME = re.compile(r"DESKTOP-[A-Z0-9]{7}|LAPTOP-[A-Z0-9]{8}")


@dataclass(frozen=True)
class CloudInstance:
    """A cloud provider's name for a virtual machine size: naming it says the host is that provider's VM."""

    pattern: str  # searched in the user's words
    vm: str  # the hypervisor, as systemd-detect-virt names it
    what: str
    source: str


# Instance types name VMs; AWS's bare-metal types end in `.metal`, which the size pattern leaves out.
CLOUD_INSTANCES = (
    CloudInstance(r"\b(?:[a-z]+\d+[a-z]*)\.(?:nano|micro|small|medium|large|\d*xlarge)\b", "amazon",
                  "an EC2 instance type (a Nitro VM)",
                  "https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html"),
    # Azure's size with or without its `Standard_` prefix (`NC80adis_H100_v5`): the bare name ends in its version.
    CloudInstance(r"\bStandard[_ ]N[CDV]\d+\w*(?: [A-Z]+\d+\w*)?(?: v\d+\b)?|\bN[CDV]\d+[a-z]*_(?:[A-Z]+\d+\w*_)?v\d+\b", "microsoft",
                  "an Azure N-series VM size",
                  "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/overview"),
    CloudInstance(r"\b(?:a2|a3|a4|g2)-(?:highgpu|megagpu|ultragpu|edgegpu|standard)-\d+g?\b", "google",
                  "a Compute Engine accelerator-optimized machine type",
                  "https://cloud.google.com/compute/docs/accelerator-optimized-machines"),
)


@dataclass(frozen=True)
class GpuInstance:
    """A cloud GPU instance family: how many GPUs each size holds, and which model (the provider's documentation)."""

    pattern: str  # the whole instance type, its size as group 1 (case ignored)
    model: str  # the GPU table's name
    sizes: tuple[tuple[str, int], ...]  # (size, GPUs)
    source: str
    # The provider hands the size's GPUs to the VM as NVIDIA vGPUs (its GRID driver in the guest), not passed through.
    vgpu: bool = False


_AWS_GPUS = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"
# AWS Batch's GPU page lists the GPUs of each size of the previous-generation families too (P2, P3, P3dn, G3).
_AWS_BATCH_GPUS = "https://docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html"
_GCP_GPUS = "https://cloud.google.com/compute/docs/gpus"
_G_SIZES = (("xlarge", 1), ("2xlarge", 1), ("4xlarge", 1), ("8xlarge", 1), ("16xlarge", 1), ("12xlarge", 4),
            ("24xlarge", 4), ("48xlarge", 8))
_GCP_COUNTS = (("1", 1), ("2", 2), ("4", 4), ("8", 8))
# The GPU instance types whose GPUs the provider documents per size: AWS's accelerated computing specifications
# (G4dn, G5, G6, G6e, P4d, P4de, P5, P5e, P5en; the previous generation's P2, P3, P3dn and G3), Google's GPU machine
# types (A2, A3, G2), and Azure's N-series sizes. A bare-metal size (`g4dn.metal`) and a size not listed name no
# count here; nor does a Compute Engine N1 machine type (`n1-standard-8`), whose GPUs are attached per VM in any
# number the zone offers (https://cloud.google.com/compute/docs/gpus#n1-gpus), so its name says none.
GPU_INSTANCES = (
    # P2: Tesla K80 GPUs (each a GK210 of a K80 board), P3: Tesla V100 SXM2 16GB, P3dn: Tesla V100 SXM2 32GB, G3: Tesla
    # M60 GPUs (g3s.xlarge and g3.4xlarge one each).
    GpuInstance(r"p2\.(\w+)", "Tesla K80", (("xlarge", 1), ("8xlarge", 8), ("16xlarge", 16)), _AWS_BATCH_GPUS),
    GpuInstance(r"p3\.(\w+)", "Tesla V100 SXM2 16GB", (("2xlarge", 1), ("8xlarge", 4), ("16xlarge", 8)), _AWS_BATCH_GPUS),
    GpuInstance(r"p3dn\.(24xlarge)", "Tesla V100 SXM2 32GB", (("24xlarge", 8),), _AWS_BATCH_GPUS),
    GpuInstance(r"g3s?\.(\w+)", "Tesla M60", (("xlarge", 1), ("4xlarge", 1), ("8xlarge", 2), ("16xlarge", 4)),
                _AWS_BATCH_GPUS),
    GpuInstance(r"g4dn\.(\w+)", "T4", (*_G_SIZES[:6],), _AWS_GPUS),
    GpuInstance(r"g5\.(\w+)", "A10G", _G_SIZES, _AWS_GPUS),
    GpuInstance(r"g6\.(\w+)", "L4", _G_SIZES, _AWS_GPUS),
    GpuInstance(r"g6e\.(\w+)", "L40S", _G_SIZES, _AWS_GPUS),
    GpuInstance(r"p4d\.(24xlarge)", "A100 SXM4 40GB", (("24xlarge", 8),), _AWS_GPUS),
    GpuInstance(r"p4de\.(24xlarge)", "A100 SXM4 80GB", (("24xlarge", 8),), _AWS_GPUS),
    GpuInstance(r"p5\.(48xlarge)", "H100 SXM", (("48xlarge", 8),), _AWS_GPUS),
    GpuInstance(r"p5en?\.(48xlarge)", "H200 SXM", (("48xlarge", 8),), _AWS_GPUS),
    GpuInstance(r"a2-highgpu-(\d+)g", "A100 SXM4 40GB", _GCP_COUNTS, _GCP_GPUS),
    GpuInstance(r"a2-megagpu-(16)g", "A100 SXM4 40GB", (("16", 16),), _GCP_GPUS),
    GpuInstance(r"a2-ultragpu-(\d+)g", "A100 SXM4 80GB", _GCP_COUNTS, _GCP_GPUS),
    GpuInstance(r"a3-(?:highgpu|megagpu|edgegpu)-(\d+)g", "H100 SXM", _GCP_COUNTS, _GCP_GPUS),
    GpuInstance(r"a3-ultragpu-(8)g", "H200 SXM", (("8", 8),), _GCP_GPUS),
    GpuInstance(r"g2-standard-(\d+)", "L4", (("4", 1), ("8", 1), ("12", 1), ("16", 1), ("32", 1), ("24", 2), ("48", 4),
                                            ("96", 8)), _GCP_GPUS),
    GpuInstance(r"Standard_NC(\d+)ads_A100_v4", "A100 PCIe 80GB", (("24", 1), ("48", 2), ("96", 4)),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/nca100v4-series"),
    GpuInstance(r"Standard_ND(96)asr_v4", "A100 SXM4 40GB", (("96", 8),),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/ndasra100v4-series"),
    GpuInstance(r"Standard_ND(96)amsr_A100_v4", "A100 SXM4 80GB", (("96", 8),),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/ndma100v4-series"),
    GpuInstance(r"Standard_ND(96)isr_H100_v5", "H100 SXM", (("96", 8),),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/ndh100v5-series"),
    GpuInstance(r"(?:Standard_)?NC(40)ads_H100_v5|(?:Standard_)?NC(80)adis_H100_v5", "H100 NVL", (("40", 1), ("80", 2)),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/ncadsh100v5-series"),
    # NVadsA10 v5: every size, whole or partial A10, runs NVIDIA's GRID (vGPU) guest driver ("NVadsA10 v5-series VMs
    # only support NVIDIA GRID drivers" in the series page's driver notes); a partial size counts as one GPU here.
    GpuInstance(r"(?:Standard_)?NV(\d+)adm?s_A10_v5", "A10", (("6", 1), ("12", 1), ("18", 1), ("36", 1), ("72", 2)),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/nvadsa10v5-series",
                vgpu=True),
    # NCv3: Tesla V100 PCIe 16GB GPUs (NC24rs_v3 is NC24s_v3 with InfiniBand); NDv2: eight V100 SXM2 32GB over NVLink.
    GpuInstance(r"(?:Standard_)?NC(\d+)r?s_v3", "Tesla V100 PCIe 16GB", (("6", 1), ("12", 2), ("24", 4)),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/ncv3-series"),
    GpuInstance(r"(?:Standard_)?ND(40)rs_v2", "Tesla V100 SXM2 32GB", (("40", 8),),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/ndv2-series"),
    GpuInstance(r"Standard_NC(\d+)as_T4_v3", "T4", (("4", 1), ("8", 1), ("16", 1), ("64", 4)),
                "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/ncast4v3-series"),
)
# EC2 G4ad instances carry AMD Radeon Pro V520 GPUs (https://aws.amazon.com/ec2/instance-types/g4/): no NVIDIA GPU.
OTHER_VENDOR_INSTANCES = ((r"g4ad\.\w+", "AMD Radeon Pro V520", "https://aws.amazon.com/ec2/instance-types/g4/"),)
INSTANCE_TITLE = "a GPU instance type in the user's words"
# A line that names an instance beside a contrast speaks of another machine too (`Using a a2-highgpu-8g instance works
# with 8 gpus without any shared memory error`, corpus 249): the same words as PLATFORM_WORDS' negations.
# The contrast is read in the clause that names the instance (`When deploying NC80adis_H100_v5 in East US, I noticed
# that the 2 GPU were not using NVLink`, corpus 906: the negation is of the links, not of the machine).
_CLAUSE = re.compile(r"[,;]\s|\.\s")
_CONTRAST = re.compile(r"\b(?:not|n't|instead|than|unlike|outside|without|vs\.?|versus)\b", re.I)


def instance_gpus(name: str) -> tuple[int, GpuInstance] | None:
    """How many GPUs an instance type holds and its GPU_INSTANCES row; None for a type or size not listed."""
    for row in GPU_INSTANCES:
        # Azure's portal spells a size with spaces (`Standard NC96ads A100 v4`, corpus 904), its API with `_`.
        m = re.fullmatch(row.pattern, re.sub(r"\s+", "_", name.strip()), re.I)
        size = next((g for g in m.groups() if g), "") if m else ""
        count = dict(row.sizes).get(size.lower()) if m else None
        if count is not None:
            return count, row
    return None


@dataclass(frozen=True)
class CloudOnlyGpu:
    """A GPU model only one cloud's VMs carry, whose VMs give its GPUs no P2P: naming the model names the VM's paths."""

    model: str  # the GPU table's name
    vm: str  # the hypervisor, as systemd-detect-virt names it
    what: str
    sources: tuple[str, ...]


# The A10G is AWS's variant of the A10, built into EC2 G5 instances only (data/gpus.toml). Their multi-GPU sizes
# give no P2P between the A10Gs: CUDA answers "peer access is not supported between these two devices" on a
# g5.48xlarge (NVIDIA/TensorRT-LLM#1034), TensorRT-LLM logs "Device 0 peer access Device 1 is not available" on
# A10G VMs (NVIDIA/TensorRT-LLM#1487), and the maintainer's fix for slow all-reduce on a g5.48xlarge is AWS's
# topology file (NVIDIA/nccl#1298).
CLOUD_ONLY_GPUS = (
    CloudOnlyGpu("A10G", "amazon", "EC2 G5's GPU, whose VMs give no P2P between their A10Gs (no NVLink, no PCIe P2P)",
                 ("https://github.com/NVIDIA/TensorRT-LLM/issues/1034",
                  "https://github.com/NVIDIA/TensorRT-LLM/issues/1487", "https://github.com/NVIDIA/nccl/issues/1298")),
)


def cloud_only_gpu(models: Iterable[str]) -> CloudOnlyGpu | None:
    """The CLOUD_ONLY_GPUS row whose model every one of the named GPUs is (at least one named), else None."""
    names = {exact_name(m) or m for m in models if m}
    return next((row for row in CLOUD_ONLY_GPUS if names == {row.model}), None)


@dataclass(frozen=True)
class PlatformWords:
    """A statement in the user's own words that says the machine is bare metal, or which VM it is."""

    pattern: str  # searched in one line of the user's words, case ignored
    what: str
    vm: str = "none"  # what the statement says: "none" (bare metal) or the hypervisor, as systemd-detect-virt names it
    wsl: bool = False  # the statement names WSL 2, whose GPU the Windows driver drives
    fails: bool = False  # the statement says the GPU (nvidia-smi, CUDA) fails in that WSL VM


# A line that names no negation or comparison (`not`, `instead`, `than`, `vs`): it states this machine.
_NO_CONTRAST = r"^(?!.*\b(?:not|n't|instead|than|unlike|outside|without|vs\.?|versus)\b)"
# Statements, not mentions: VM threads compare with bare metal ("25% of baremetal speed", NVIDIA/nccl#2171; "the
# same as BareMetal environment", NVIDIA/nccl#1464) and maintainers ask ("Are you running inside a VM ?",
# NVIDIA/nccl#428), so a row needs a negated VM, or "bare metal" as the label of a machine the line names.
PLATFORM_WORDS: tuple[PlatformWords, ...] = (
    PlatformWords(r"\bnot\s+(?:running\s+|run\s+)?(?:inside|in|on)\s+an?\s+(?:VM|virtual\s+machine)\b",
                  "the user says it does not run in a VM"),
    PlatformWords(r"\bbare[- ]?metal\s*,?\s*(?:\(\s*)?not\s+an?\s+(?:VM|virtual\s+machine)\b",
                  "the user says bare metal, not a VM"),
    PlatformWords(r"^[\s*>•-]*(?:\*\*)?bare[- ]?metal(?:\*\*)?\s+(?:\S+\s+){0,3}?(?:\d+\s*x\s*\w|server\b|node\b|"
                  r"host\b|machine\b|workstation\b)", "the user lists the machine as bare metal"),
    # A line that is only the answer to an issue form's environment or hardware question, `Physical bare metal` (under
    # LocalAI's "Environment, CPU architecture, OS, and Version", corpus 1844). A bare `Bare Metal` line is a heading
    # in documentation as often (a section of an install guide), so the answer needs its `physical`.
    PlatformWords(r"^[\s*>•-]*(?:\*\*)?physical\s+bare[- ]?metal(?:\s+(?:server|host|machine|node))?(?:\*\*)?\.?\s*$",
                  "the user answers physical bare metal"),
    # A failure the user places in WSL (`can never get nvidia-smi to work under WSL`, corpus 1169; `I get this error
    # in WSL:`, corpus 1177): a WSL VM, WSL 2's unless it has no GPU at all, whose GPU does not work. The failure and
    # WSL in one clause: `cannot detect my GPU inside the container, but it works fine on WSL` (corpus 376) is none.
    PlatformWords(r"\b(?:errors?|fail(?:s|ed|ing|ure)?|never\b[^,;.]*|can(?:no|')t\b[^,;.]*|"
                  r"(?:does|do|did|wo)n't\b[^,;.]*|(?:does|do|did) not\b[^,;.]*)\s+(?:in|under|inside|on|within)\s+"
                  r"(?:the\s+|my\s+)?WSL\s?2?\b", "the user says the GPU fails in WSL (a Hyper-V utility VM)",
                  "microsoft", wsl=True, fails=True),
    # WSL 2 runs Linux, and the GPU it is handed (GPU-PV), in a Hyper-V utility VM; WSL 1 has no GPU. A line that
    # names WSL 2 beside a negation or a comparison states nothing of this machine.
    PlatformWords(_NO_CONTRAST + r".*\bWSL\s?2\b",
                  "WSL 2 (a Hyper-V utility VM)", "microsoft", wsl=True),
    # WSL named without its version beside the GPU stack set up in it (`I install WSL ubuntu18.04, Docker Desktop for
    # windows, CUDA Toolkit and nvidia-docker2`, corpus 2337; `I've installed NCCL and its tests on WSL`, corpus 2705):
    # WSL 1 has no GPU, so a WSL given CUDA (or NCCL, CUDA's collectives) is WSL 2.
    PlatformWords(_NO_CONTRAST + r"(?=.*\b(?:CUDA|NCCL|nvidia-docker2?|GPUs?)\b).*\bWSL\b(?!\s?1\b)",
                  "WSL with CUDA set up in it: WSL 2 (a Hyper-V utility VM; WSL 1 has no GPU)", "microsoft", wsl=True),
    # Docker Desktop runs its containers in a VM of its own, and gives them an NVIDIA GPU only on Windows with its WSL 2
    # back end (https://docs.docker.com/desktop/features/gpu/): named beside a GPU (`dockerdesktop 2080ti环境，执行
    # docker run ... --gpus all`, corpus 2869), its containers run in WSL 2.
    PlatformWords(_NO_CONTRAST + r"(?=.*\b(?:CUDA|NCCL|nvidia|GPUs?)\b).*\bdocker[\s-]?desktop\b",
                  "Docker Desktop with a GPU: its WSL 2 back end (a Hyper-V utility VM)", "microsoft", wsl=True),
    # Docker Desktop named by its version alone (`docker是最新V4.31.1` beside `555.85+cuda12.5`, corpus 2864): its
    # releases are 4.x since 2021 (https://docs.docker.com/desktop/release-notes/), while Docker Engine went from 1.13
    # to 17.03 and Compose is 1.x or 2.x, so a `docker` 4.x beside CUDA is Docker Desktop, whose GPU is WSL 2's.
    PlatformWords(_NO_CONTRAST + r"(?=.*(?<![a-z])(?:CUDA|NCCL|nvidia|GPUs?)(?![a-z])).*(?<![a-z0-9_-])docker(?![a-z0-9_-]|\.\w)"
                  r"(?:[^\x00-\x7f]{1,6}|\s*(?:desktop\s*)?(?:version\s*)?(?:is\s*)?(?:the\s+)?(?:latest\s*)?(?:to\s+)?)[vV]?"
                  r"4\.\d{1,2}(?:\.\d{1,2})?(?![\d.])",
                  "Docker Desktop (its 4.x version) with a GPU: its WSL 2 back end (a Hyper-V utility VM)", "microsoft",
                  wsl=True),
    # A guest the user names by its kind (`doesn't work in both confidential VM and normal VM`, corpus 1098): a VM
    # the driver runs in, not one compared with (the negation lookbehinds keep `not in a guest VM` out).
    PlatformWords(r"(?<!not )(?<!n't )\b(?:in|inside|on)\s+(?:both\s+|a\s+|the\s+|my\s+|our\s+)?"
                  r"(?:confidential|normal|guest|pass-?through)\s+VMs?\b", "a virtual machine in the user's words",
                  "vm"),
    # Bottlerocket's variants are named for the platform each image is built for (https://bottlerocket.dev/en/os/
    # latest/#/concepts/variants/): `aws-k8s-1.32-nvidia` and `aws-ecs-2` boot on EC2 (a Nitro VM unless a `.metal`
    # type, as for EC2 in PLATFORM_NAMES; corpus 2280), `vmware-k8s-1.30` in a VMware guest, `metal-k8s-1.29` on bare
    # metal.
    PlatformWords(_NO_CONTRAST + r"(?!.*\.metal\b).*(?<![\w-])aws-(?:k8s-\d+\.\d+|ecs-\d+|dev)\b",
                  "a Bottlerocket variant built for EC2 (aws-*)", "amazon"),
    PlatformWords(_NO_CONTRAST + r".*(?<![\w-])vmware-(?:k8s-\d+\.\d+|dev)\b",
                  "a Bottlerocket variant built for VMware guests (vmware-*)", "vmware"),
    PlatformWords(_NO_CONTRAST + r".*(?<![\w-])metal-(?:k8s-\d+\.\d+|dev)\b",
                  "a Bottlerocket variant built for bare metal (metal-*)"),
    # Kaggle's notebooks run on Google Cloud VMs (its T4 x2 accelerator is two T4s of one VM). The machine, not a
    # Kaggle dataset, guide or competition: `on Kaggle`, `Kaggle environment`, `Kaggle Notebooks`.
    PlatformWords(_NO_CONTRAST + r"(?:.*\b(?:on|in)\s+(?:the\s+)?kaggle\b(?!['’]?s?\s+(?:datasets?|competitions?|api|guides?|hub)\b)"
                  r"|.*\bkaggle\s+(?:notebooks?|kernels?|environment|sessions?|vms?|machines?)\b)",
                  "a Kaggle notebook (a Google Cloud VM)", "google"),
)



@dataclass(frozen=True)
class PlatformName:
    """A hypervisor, cloud or managed Kubernetes service whose name beside a guest's word states the host's VM."""

    pattern: str  # the name, as the user writes it (case ignored)
    vm: str  # the hypervisor, as systemd-detect-virt names it ("vm" where the provider does not say which)
    what: str
    source: str
    # "hypervisor": its guests (`Proxmox VM`, `VM in proxmox`); "cloud": its guests or instances (`EC2 instance`,
    # `OVH VM`); "kubernetes": its nodes or clusters (`in GKE cluster`), each node a VM of the provider's cloud.
    kind: str


# The names read as a VM only beside a guest's word: a Proxmox or VMware host is the hypervisor's bare metal, and a
# Proxmox LXC container shares its host's kernel. Left out: Runpod, vast.ai and similar GPU rentals, whose machines
# are containers on hosts of either kind; Cloud Hypervisor, whose name holds `Cloud` and reads as prose too.
PLATFORM_NAMES = (
    PlatformName(r"proxmox(?:\s+VE)?", "kvm", "a Proxmox VE guest (QEMU/KVM)",
                 "https://pve.proxmox.com/wiki/Qemu/KVM_Virtual_Machines", "hypervisor"),
    PlatformName(r"vmware|esxi|vsphere", "vmware", "a VMware guest", "https://docs.vmware.com/en/VMware-vSphere/",
                 "hypervisor"),
    PlatformName(r"hyper-?v", "microsoft", "a Hyper-V guest",
                 "https://learn.microsoft.com/en-us/windows-server/virtualization/hyper-v/overview", "hypervisor"),
    PlatformName(r"virtualbox", "oracle", "a VirtualBox guest", "https://www.virtualbox.org/manual/", "hypervisor"),
    PlatformName(r"kvm|qemu|libvirt", "kvm", "a QEMU/KVM guest", "https://www.qemu.org/docs/master/", "hypervisor"),
    PlatformName(r"xen(?:server)?", "xen", "a Xen guest", "https://xenproject.org/", "hypervisor"),
    PlatformName(r"(?:aws\s+)?ec2|aws", "amazon", "an EC2 instance (a Nitro VM unless a `.metal` type)",
                 "https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html", "cloud"),
    PlatformName(r"azure", "microsoft", "an Azure VM (Hyper-V)",
                 "https://learn.microsoft.com/en-us/azure/virtual-machines/overview", "cloud"),
    PlatformName(r"gcp|google\s+cloud|(?:google\s+)?compute\s+engine|gce", "google", "a Compute Engine VM",
                 "https://cloud.google.com/compute/docs/instances", "cloud"),
    PlatformName(r"ovh(?:cloud)?", "vm", "an OVHcloud Public Cloud instance (an OpenStack VM)",
                 "https://www.ovhcloud.com/en/public-cloud/", "cloud"),
    PlatformName(r"gke", "google", "a GKE node (a Compute Engine VM)",
                 "https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools", "kubernetes"),
    PlatformName(r"eks", "amazon", "an EKS node (an EC2 instance)",
                 "https://docs.aws.amazon.com/eks/latest/userguide/eks-compute.html", "kubernetes"),
    PlatformName(r"aks", "microsoft", "an AKS node (an Azure VM scale set instance)",
                 "https://learn.microsoft.com/en-us/azure/aks/core-aks-concepts", "kubernetes"),
)
# A statement of this host (read by platform_words): no question (platform_words), negation or comparison (the Kaggle row's), nor a plan, a
# wish or a condition (`When I move to the server i'm planning I will probably be using proxmox`, btbtyler09/
# mi100-llm-testing#7; `I want to launch one VM with one GPU each`, keylase/nvidia-patch#251).
# A line that names bare metal (`an EC2 c5.metal instance`, `bare-metal EC2 instance`) states no VM either.
_PLANNED = r"\b(?:plan\w*|will|going\s+to|wants?|wanted|would|could|should|consider\w*|if|whether|wonder\w*)\b"
_STATED = (rf"{_NO_CONTRAST}(?!.*{_PLANNED})"
           r"(?!.*metal\b)")
_GUEST = r"(?:VMs?|virtual\s+machines?|guests?)"
_ARTICLE = r"(?:an?\s+|the\s+|my\s+|our\s+)?"
_BETWEEN = r"(?:(?!(?:and|or|to|vs)\b)[\w.-]+\s+)?"  # one word between the name and the guest (`Proxmox Ubuntu VM`)
_NAMED_GUEST = {
    "hypervisor": _GUEST,
    "cloud": r"(?:VMs?|virtual\s+machines?|guests?|instances?)",
    "kubernetes": r"(?:clusters?|nodes?|node\s?pools?|nodegroups?|workers?)",
}


def stated_instances(text: str, contrast: bool = False) -> list[tuple[str, CloudInstance]]:
    """The instance types a text names (cloud_instances) in its statements: clauses (_CLAUSE) of lines that ask
    nothing, with no plan, wish or condition (_PLANNED); `Would a g5.12xlarge be enough?` and `I plan to move to a
    p4d.24xlarge` name no machine of the paste. A negation may be of something else than the machine (`GPU Direct
    RDMA is not utilized ... on instances that support GDRDMA: p5.48xlarge`, corpus 1580), so it stays unless
    `contrast` leaves out the clauses that hold one (_CONTRAST) too."""
    return [pair for line in text.splitlines() if "?" not in line for clause in _CLAUSE.split(line)
            if not re.search(_PLANNED, clause, re.I) and not (contrast and _CONTRAST.search(clause))
            for pair in cloud_instances(clause)]


def _name_words(row: PlatformName) -> PlatformWords:
    """The PLATFORM_WORDS row of a PLATFORM_NAMES row: its name before a guest's word, or a guest's word before it."""
    guest = _NAMED_GUEST[row.kind]
    name = rf"\b(?:{row.pattern})\b"
    after = rf"{name}\s+{_BETWEEN}{guest}\b"
    before = rf"\b{guest}\s+(?:in|on|under|inside|of|from)\s+{_ARTICLE}{name}"
    # A managed Kubernetes service runs every workload on its cloud's VMs: a workload on it (`We are on GKE version
    # 1.16`, `deploy ... to GKE`, corpus 1817) is on one of them, with no guest's word.
    served = rf"\b(?:on|to|in|into)\s+(?:the\s+)?{name}" if row.kind == "kubernetes" else ""
    # A hypervisor named with a GPU it passes into a guest, in one clause (`a Proxmox host with an RTX5090 passed into
    # a Ubuntu 26.04 VM`, corpus 2248): that guest, where the GPU is.
    if row.kind == "hypervisor":
        served = (rf"{name}[^.;?!]{{0,80}}?\bpass(?:ed|es|ing)?[- ]?(?:through\s+)?(?:in)?to\s+{_ARTICLE}"
                  rf"(?:[\w.-]+\s+){{0,3}}?{guest}\b")
    either = f"{after}|{before}|{served}" if served else f"{after}|{before}"
    return PlatformWords(rf"{_STATED}.*(?:{either})", f"{row.what} in the user's words", row.vm)


_UNNAMED_ROWS = len(PLATFORM_WORDS)
PLATFORM_WORDS = (*PLATFORM_WORDS, *(_name_words(row) for row in PLATFORM_NAMES))
# Every alternative of a named row holds its name: a line that names none of PLATFORM_NAMES is tried on the
# unnamed rows alone, not on each named row's look-aheads.
_ANY_PLATFORM_NAME = re.compile("|".join(rf"\b(?:{row.pattern})\b" for row in PLATFORM_NAMES), re.I)


# A limit of NVIDIA vGPU at work, in the user's words: its licence (`we are noticing licensing issue`, corpus 932;
# `unlicensed`) or the slowdown an unlicensed vGPU shows after 20 minutes (`constant at around 20 minutes, after which
# it runs very poorly`, corpus 311). A model's or a project's licence (`Apache license`) is none.
_VGPU_LIMIT_WORDS = re.compile(
    r"\bunlicensed\b|\blicen[cs](?:e|ing)\s+(?:issues?|problems?|errors?|status|expired|server)\b"
    r"|\b(?:vgpu|grid|nvidia)\s+(?:software\s+)?licen[cs]\w*"
    r"|\b(?:after|around|about|~)\s*~?\s*20\s*min(?:ute)?s?\b(?=.*\b(?:slow|poor|throttl|drops?|degrad))", re.I)


def stated_vgpu_limit(line: str) -> str:
    """The words of a line that state a limit of NVIDIA vGPU at work (_VGPU_LIMIT_WORDS), or "".

    >>> stated_vgpu_limit("On one of the nodes we are noticing licensing issue.")
    'licensing issue'
    >>> stated_vgpu_limit("The model is released under the Apache license 2.0")
    ''
    """
    m = _VGPU_LIMIT_WORDS.search(line)
    return m.group(0) if m else ""


def vgpu_limit_said(text: str) -> str:
    """The first line of the user's words that states a vGPU limit at work (stated_vgpu_limit), cut, or ""."""
    line = next((ln.strip() for ln in text.splitlines() if stated_vgpu_limit(ln)), "")
    return f"the user's words: {line[:120]!r}" if line else ""


def platform_words(line: str) -> PlatformWords | None:
    """The row of PLATFORM_WORDS a line of the user's words states, or None (a question states nothing)."""
    if "?" in line:
        return None
    rows = PLATFORM_WORDS if _ANY_PLATFORM_NAME.search(line) else PLATFORM_WORDS[:_UNNAMED_ROWS]
    return next((row for row in rows if re.search(row.pattern, line, re.I)), None)


_ANY_INSTANCE = re.compile(r"large\b|\.(?:nano|micro|small|medium)\b|Standard[_ ]N|\bN[CDV]\d+[a-z]*_|"
                           r"-(?:highgpu|megagpu|ultragpu|edgegpu|standard)-", re.I)


def cloud_instances(text: str) -> list[tuple[str, CloudInstance]]:
    """The instance types a text names, with their table row, in order."""
    if not _ANY_INSTANCE.search(text):
        return []
    found = [(m.start(), m.group(0), row) for row in CLOUD_INSTANCES for m in re.finditer(row.pattern, text)]
    return [(name, row) for _, name, row in sorted(found, key=lambda x: x[0])]


# An EC2 instance type in a host name the user gave, its `.` written as `_` or `-` (`p2_xlarge_instance`, corpus 1910).
_HOST_EC2_TYPE = re.compile(r"(?<![a-z0-9])([a-z]+\d+[a-z]*)-(nano|micro|small|medium|large|\d*xlarge)(?![a-z0-9])",
                            re.I)


def host_instance(name: str) -> str:
    """The GPU instance type a host name is named after (`p2_xlarge_instance`: p2.xlarge; `a2-highgpu-1g-worker`),
    where GPU_INSTANCES documents its GPUs; "" otherwise. A name of another type, or of none, says nothing."""
    spelled = _HOST_EC2_TYPE.sub(r"\1.\2", name.strip().replace("_", "-"))
    return next((found for found, _ in cloud_instances(spelled) if instance_gpus(found) is not None), "")


# EC2 instance families without an accelerator, by the letters before the generation digit (`m5.16xlarge`: `m`).
# AWS's naming page sorts every family into a category; GPUs (and FPGAs, Inferentia, Trainium) are only in
# "Accelerated computing": DL, F, G, Inf, P, Trn, VT (and G's `gr`). Listed here: general purpose (A, M, T),
# compute optimized (C, Hpc), memory optimized (R, U, X, Z) and storage optimized (D, H, I, Im, Is).
EC2_NO_ACCELERATOR = frozenset({"a", "m", "t", "c", "hpc", "r", "u", "x", "z", "d", "h", "i", "im", "is"})
EC2_NAMES = "https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html"


def instances_without_gpu(text: str) -> list[str]:
    """The EC2 instance types a text's statements name (stated_instances) whose family has no accelerator
    (EC2_NO_ACCELERATOR), in order."""
    return [name for name, row in stated_instances(text)
            if row.vm == "amazon" and (m := re.match(r"[a-z]+", name)) and m.group(0) in EC2_NO_ACCELERATOR]


# WSL 2 mounts the Windows driver's user-space libraries into its Linux VM under /usr/lib/wsl: `lib` holds libcuda,
# libnvidia-ml and nvidia-smi, `drivers` the driver store's folders (`/usr/lib/wsl/drivers/nvaci.inf_amd64_<hash>/`;
# https://docs.nvidia.com/cuda/wsl-user-guide/index.html). A program's line that names a library there (ollama's
# `Discovered GPU libraries: [/usr/lib/wsl/lib/libnvidia-ml.so.1 ...]`, a loader's `/usr/lib/wsl/lib/libcuda.so.1`)
# ran in WSL 2's VM. The path must name a library (`lib*.so*`) or an nvidia-smi there, not a glob of one: ollama 0.1
# lists `/usr/lib/wsl/lib/libnvidia-ml.so*` among its search paths on every Linux host, and reports the miss where the
# file is not there (`/usr/lib/wsl/lib/libnvidia-ml.so.1: cannot open shared object file`, ollama#1704: a container).
WSL_LIBRARY = re.compile(r"(?<![\w./-])/usr/lib/wsl/(?:lib|drivers/[\w.-]+)/(?:lib[\w.+-]*\.so[\d.]*|nvidia-smi)"
                         r"(?![\w*?\[])")
_WSL_LIBRARY_MISSED = re.compile(r"cannot open shared object|No such file|not found|search paths|Unable to load",
                                 re.IGNORECASE)


# A Linux NVIDIA driver's own libcuda and libnvidia-ml carry its version in their file name (`libcuda.so.535.183.01`
# in /usr/lib/x86_64-linux-gnu, installed by the driver package); the Windows driver's under WSL 2 do not
# (`/usr/lib/wsl/lib/libcuda.so.1.1`). Found beside WSL's, the first is a Linux driver installed inside WSL 2, which
# NVIDIA's CUDA on WSL guide says not to do (corpus 2250: ollama probes both, no device found through either).
LINUX_DRIVER_LIBRARY = re.compile(r"(?<![\w./-])(?!/usr/lib/wsl/)(?:/[\w.+-]+){0,12}/lib(?:cuda|nvidia-ml)\.so\."
                                  r"\d{3}\.\d{2,3}(?:\.\d{1,3})?(?![\w.])")


def wsl_library(text: str, linux: bool = False) -> str:
    """The first line of a text that names a library of WSL 2's driver mount (WSL_LIBRARY), or with `linux` a Linux
    driver's own library (LINUX_DRIVER_LIBRARY), and does not report it missing (_WSL_LIBRARY_MISSED), stripped; ""
    where none."""
    library = LINUX_DRIVER_LIBRARY if linux else WSL_LIBRARY
    return next((line.strip() for line in text.splitlines()
                 if library.search(line) and not _WSL_LIBRARY_MISSED.search(line)), "")


@dataclass(frozen=True)
class RemotingFrontend:
    """A CUDA API-remoting layer's client side: a libcuda (or its own library) that forwards each CUDA call to a GPU
    behind it, which the program never holds itself."""

    pattern: str  # searched in one line, case ignored
    what: str
    source: str


# harp's frontend (InternLM's and OpenXLab's GPU platform) replaces libcuda.so.1, whose back-trace frames sit beside
# /usr/local/harp/lib/libvirtdev-frontend.so.0 (InternLM/lmdeploy#1169, corpus 2021); sglang's import of libharpcuda.so.0
# fails where the frontend is missing (sgl-project/sglang#5999). GVirtuS links programs against its frontend's libcuda
# and libcudart (`libgvirtus-frontend.so`, `GVirtuS/lib/frontend/`: cjg/GVirtuS#1, #9).
REMOTING_FRONTENDS = (
    RemotingFrontend(r"/usr/local/harp/|\blib(?:harpcuda|virtdev-frontend)\.so|\bCudaFrontend\.cpp:",
                     "harp's CUDA API-remoting frontend (libvirtdev-frontend, libharpcuda)",
                     "https://github.com/InternLM/lmdeploy/issues/1169"),
    RemotingFrontend(r"\blibgvirtus-frontend\.so|\bGVirtuS\S*/lib/frontend\b",
                     "GVirtuS's CUDA API-remoting frontend", "https://github.com/cjg/GVirtuS"),
)
# Substrings one of REMOTING_FRONTENDS' lines holds (the evidence reader's needles), and the patterns as one.
REMOTING_NEEDLES = ("/harp/", "harpcuda", "virtdev-frontend", "CudaFrontend", "gvirtus", "GVirtuS")
REMOTING_LINE = re.compile("|".join(f"(?:{row.pattern})" for row in REMOTING_FRONTENDS), re.IGNORECASE)
# What a program prints where the frontend fails it: a CUDA driver error code (`failed to call cuCtxGetDevice(&device),
# error code: CUDA_ERROR_INVALID_CONTEXT`), a failed assertion, or a library the loader cannot open or link.
_REMOTING_FAILURE = re.compile(r"\bCUDA_ERROR_[A-Z_]+|Assertion\s+\S+\s+failed|cannot open shared object file|"
                               r"undefined symbol|relocation error", re.IGNORECASE)


def remoting_frontend(text: str) -> tuple[str, str, str] | None:
    """(what, the first line naming it, the first failure line) where a line of the text names a CUDA API-remoting
    frontend (REMOTING_FRONTENDS); the failure line is "" where no line reports a CUDA error code, a failed assertion
    or a library that would not load (_REMOTING_FAILURE). None where no line names one."""
    lines = text.splitlines()
    for row in REMOTING_FRONTENDS:
        named = next((line.strip() for line in lines if re.search(row.pattern, line, re.IGNORECASE)), "")
        if named:
            failed = next((line.strip() for line in lines if _REMOTING_FAILURE.search(line)), "")
            return row.what, named, failed
    return None


# WSL 1's kernel release, which `uname -r` (and Python's platform string) reports there: 4.4.0, the Windows build, and a
# capitalised `Microsoft` (`4.4.0-19041-Microsoft`, corpus 2662; WSL 2's kernels end `-microsoft-standard[-WSL2]`). No
# Linux kernel runs: WSL 1 translates Linux system calls onto the Windows kernel, has no GPU paravirtualisation
# (/dev/dxg, /usr/lib/wsl/lib), which only WSL 2's VM gets, so CUDA finds no GPU there
# (https://docs.nvidia.com/cuda/wsl-user-guide/index.html: CUDA on WSL needs WSL 2), and it runs no container engine
# either (Docker Desktop's WSL back end needs WSL 2: https://docs.docker.com/desktop/features/wsl/).
WSL1_KERNEL = re.compile(r"4\.4\.0-\d{4,5}-Microsoft")


def wsl1_kernel(release: str) -> bool:
    """Whether a kernel release is WSL 1's (WSL1_KERNEL)."""
    return WSL1_KERNEL.fullmatch(release.strip()) is not None


def wsl_kernel(release: str) -> bool:
    """Whether a kernel release is WSL 2's (WSL_KERNEL)."""
    return bool(re.search(WSL_KERNEL.pattern, release.strip()))


# NVIDIA's Linux for Tegra kernel (`5.10.120-tegra`, `5.10.120-rt70-tegra`, `5.15.136-tegra`): the kernel of a Jetson
# (or IGX) board's BSP, which ships the GPU driver built for it with it (the integrated GPU's nvgpu before Thor, its
# OpenRM module on Thor), so no driver of a desktop or data-centre install meets this kernel
# (https://docs.nvidia.com/jetson/archives/r36.4/DeveloperGuide/SD/Kernel/KernelCustomization.html).
TEGRA_KERNEL = re.compile(r"\d-(?:[\w.]{1,40}-)?tegra$")


def tegra_kernel(release: str) -> bool:
    """Whether a kernel release is NVIDIA's Linux for Tegra kernel (TEGRA_KERNEL)."""
    return TEGRA_KERNEL.search(release.strip()) is not None


def cloud_kernel(release: str) -> KernelFlavour | None:
    """The flavour of CLOUD_KERNELS a kernel release names, or None."""
    for flavour in CLOUD_KERNELS:
        if re.search(flavour.pattern, release.strip()):
            return flavour
    return None


@dataclass(frozen=True)
class Virtualization:
    vm: str  # "none", the hypervisor's name, or "" where only the operating system is shown (`os`)
    source: str
    vgpu: str = ""  # why the VM's GPUs are NVIDIA vGPUs where its instance type says so (GpuInstance.vgpu), else ""
    # "windows" where the sources show the engine's host runs Windows itself (WINDOWS_LINES, a Windows driver model);
    # "" where they do not say. WSL 2 is Linux in a Hyper-V VM: vm "microsoft", os "".
    os: str = ""
    wsl: bool = False  # WSL 2's utility VM: its GPU is the Windows driver's, with no Linux NVIDIA kernel module
    # A Windows host (os "windows") whose user's words name a WSL VM on it (PLATFORM_WORDS, wsl): that statement,
    # "" where none does. The GPU table shown is the host's; the VM reaches those GPUs through the Windows driver.
    wsl_guest: str = ""
    wsl_fails: bool = False  # that statement says the GPU fails in the VM (nvidia-smi, CUDA)
    # Where no source tells whether the machine is a VM (vm ""): why it is a laptop (its only GPU is a laptop's,
    # GpuInventory.laptop_gpu), "" otherwise. A laptop runs Linux bare or in WSL 2 on its Windows, either with one GPU.
    laptop: str = ""
    # A vGPU limit at work: the driver's licence status (vgpu_unlicensed), else the user's words stating one
    # (vgpu_limit_said: its licence, the 20-minute slowdown); "" if none.
    vgpu_limit: str = ""
    # A CUDA API-remoting frontend in place of libcuda (REMOTING_FRONTENDS): the line naming it, and the line where it
    # failed the program ("" where none shows); "" where no line names one.
    remoted: str = ""
    remote_failure: str = ""
    # Under WSL 2, the line of the text that showed WSL's library which names a Linux driver's own library beside it
    # (wsl_library, linux: a Linux driver installed inside WSL 2); "" where none does.
    linux_library: str = ""
    # Why the program runs under WSL 1 (its kernel release, WSL1_KERNEL), which has no GPU; "" where nothing says so.
    # WSL 1 runs on Windows itself, which may be bare or a VM: vm stays "" (not shown).
    wsl1: str = ""

    @property
    def is_vm(self) -> bool:
        return self.vm not in ("none", "")

    @property
    def windows(self) -> bool:
        return self.os == "windows"


@dataclass(frozen=True)
class WindowsLine:
    """A line form that only a program running on Windows itself prints (not under WSL 2, whose programs are Linux's)."""

    pattern: str  # searched in one line, case ignored
    what: str


# cmd's and PowerShell's prompts name a drive-letter folder (`C:\Users\wardm> ollama ps`, `PS C:\Users\me> nvidia-smi`):
# a shell under WSL 2 shows /mnt/c instead. The command after it is read by its own reader too.
WINDOWS_PROMPT = WindowsLine(r"^\s*(?:PS\s+)?[A-Z]:\\[^<>|\"*?\n]{0,120}>\s*\S.*", "a Windows shell's prompt")

# llama.cpp prints `built with <compiler> for <target>`: its CMake build sets the compiler to CMake's compiler id and
# version (`MSVC 19.29.30159.0`) and the target to the Visual Studio platform (`x64`), else to the system name and
# processor (`Windows AMD64`, `Linux x86_64`): https://github.com/ggml-org/llama.cpp/blob/master/cmake/build-info.cmake.
# MSVC builds only for Windows. Its w64devkit build prints GCC's target triple (`x86_64-w64-mingw32`). Its programs'
# logs print the same words after the build number and commit (`build: 5966 (14c28dfc) with MSVC 19.39.33523.0 for x64`,
# ggml-org/llama.cpp#14826; `build: 6123 (79c1160b0) with MSVC 19.44.35213.0 for Windows AMD64`; corpus 1825).
# A program or library on a drive-letter path (`C:\Users\...\AppData\Local\Programs\Ollama\lib\ollama\ggml-cuda.dll`,
# ollama's `cmd="C:\\...\\ollama_llama_server.exe ...`) is loaded by Windows; a WSL 2 program reaches the drive as
# /mnt/c. A list's `OS: Windows 11` (torch's collect_env: `OS: Microsoft Windows 11 Pro`) names it, unless the same
# line names WSL (`OS: Windows 11 + WSL2`: the engine runs in the Linux VM).
WINDOWS_LINES = (
    WindowsLine(r"\b(?:built|build: \d+ \(\w+\)) with (?:MSVC\b.*|.*\bfor\s+\S*(?:windows|mingw)\S*.*)",
                "llama.cpp built for Windows"),
    # So is a Python file there, as a traceback's frame names it (`File "K:\text-generation-webui\server.py", line 67`,
    # corpus 2233): Windows' Python ran it from the drive.
    WindowsLine(r"\b[A-Z]:\\{1,2}(?:[^\\\s\"']+\\{1,2})*[^\\\s\"']+\.(?:exe|dll|py)\b",
                "a Windows program, library or Python file path"),
    # A model file on a Windows drive, either separator, as the engine is given or opens it: llama.cpp's loader
    # (`loaded meta data ... from C:\Users\...\model.gguf`, corpus 1423, 962, 1282; the ggml era's `llama.cpp: loading
    # model from C:\AI\...\x.ggmlv3.q5_K_M.bin`, corpus 2048), KoboldCpp's `Loading model: f:\koboldcpp\x.gguf`
    # (LostRuins/koboldcpp#595) and its parsed arguments (`model_param='C:/Users/Paul/.../x.gguf'`, #1128, #1527,
    # corpus 2049; with its backslashes repeated by Python's repr, #610), and a `--model`/`-m` argument (corpus 2048).
    # ollama names its model by its blob (`from D:\Ollama\models\blobs\sha256-<64 hex>`, corpus 2119; ollama/ollama#9541,
    # intel/ipex-llm#12861). A relative path with backslash separators is Windows' too (text-generation-webui's
    # `loading model from models\x.ggmlv3.q6_K.bin`, corpus 2122; oobabooga/textgen#2046, #2020).
    # A program under WSL 2 names the drive /mnt/c, and a Linux program separates with `/`.
    WindowsLine(r"(?:\bfrom|\bLoading model:|(?<![\w-])(?:-m|--model)(?:\s+|=)|\bmodel(?:_param)?\s*=)\s*['\"]?"
                r"(?:[A-Z]:(?:\\+|/)(?:[^\\/\s\"']+(?:\\+|/))*|(?:[^\\/\s\"':]+\\+)+)"
                r"(?:[^\\/\s\"']+\.(?:gguf|ggml|bin)\b|sha256-[0-9a-f]{64}\b)",
                "a model loaded from a Windows path (a drive or backslash separators)"),
    # KoboldCpp loads its backend as a library of the platform's own kind (koboldcpp.py init_library:
    # `Initializing dynamic library: koboldcpp_cublas.dll`, `.so` on Linux and under WSL 2; corpus 1499).
    WindowsLine(r"\bInitializing dynamic library: \S+\.dll\b", "KoboldCpp loads its backend as a Windows library"),
    # cmd and PowerShell run a program by a relative path with backslashes (`.\bin\llama-server.exe ^`, corpus 962);
    # a shell under WSL 2 writes `./llama-server.exe`.
    WindowsLine(r"(?:^|\s)\.\\(?:[^\\\s\"']+\\)*[^\\\s\"']+\.exe\b", "a Windows program run by its relative path"),
    # PowerShell sets a program's environment through its env: drive (`$env:OLLAMA_LLM_LIBRARY = "cuda_v13"` before
    # `ollama serve`, corpus 2321): Windows' own shell; under WSL 2 a Linux shell writes `export NAME=value`.
    WindowsLine(r"^\s*\$env:[A-Za-z_]\w{0,80}\s*=\s*\S.{0,120}", "PowerShell sets a variable for the program"),
    # ollama's `server config` line names its folders as the server sees them: `OLLAMA_MODELS:C:\\Users\\...`.
    WindowsLine(r"\bOLLAMA_(?:MODELS|RUNNERS_DIR|TMPDIR):[A-Z]:\\\S*", "ollama's server config: a folder on a Windows drive"),
    # The user's statement, in a clause (between `,`, `;` or `.`) that names no WSL, negation or comparison, of a line
    # that asks nothing: `I am currently working with Windows 11` (corpus 882), `RTX 4070 + Intel UHD on Windows`
    # (corpus 2321). Windows' own names for WSL and its tools (`Windows Subsystem for Linux`, `Windows Terminal`) and
    # Docker Desktop, which runs its containers in WSL 2, are not the host's words.
    WindowsLine(r"^(?!.*\?)(?:.*[,;.]\s*)?(?![^,;.]*\b(?:WSL\w*|not|n't|instead|than|unlike|outside|without|vs|versus)\b)"
                r"[^,;.]*\b(?:on|with|using|under|running)\s+(?:Microsoft\s+)?Windows(?:\s?1[01])?\b"
                r"(?!\s*(?:Subsystem|Terminal|Docker|Desktop)\b)",
                "the user's words name Windows"),
    WINDOWS_PROMPT,
    # nvidia-smi on Windows heads its first column with the driver model (`Driver-Model`, `TCC/WDDM` before R525), where
    # Linux and WSL 2 show `Persistence-M`.
    WindowsLine(r"^\|\s*GPU\s+Name\s+(?:Driver-Model|TCC/WDDM)\s*\|.*", "nvidia-smi's Driver-Model column (a Windows driver)"),
    WindowsLine(r"^[\s*>•-]*(?:\*\*)?(?:OS|Operating system)(?:\*\*)?\s*[:=]\s*(?:\*\*)?\s*(?:Microsoft\s+)?Windows\b"
                r"(?!.*\bWSL).*", "the operating system named Windows"),
    # An engine's own line that only its native Windows build logs (facts/serving_logs.OLLAMA_WINDOWS): ollama's from a
    # Go source file named `*_windows.go`, which Go compiles into a Windows binary alone (`source=gpu_windows.go:167`,
    # corpus 2194), or its `detected OS VRAM overhead`, logged where it loads NVML, which it does on Windows only.
    WindowsLine(OLLAMA_WINDOWS.pattern, "a line only an engine's native Windows build logs"),
)


def windows_line(line: str) -> WindowsLine | None:
    """The row of WINDOWS_LINES a line shows, or None."""
    return next((row for row in WINDOWS_LINES if re.search(row.pattern, line, re.I)), None)


def _last_clause(text: str, limit: int = 120) -> str:
    """The end of a matched text, at most `limit` characters, from the start of its last clause (_CLAUSE) there."""
    tail = text.strip()[-limit:]
    return _CLAUSE.split(tail)[-1] if len(text.strip()) > limit else tail


def windows_lines(text: str) -> str:
    """Why a text shows a Windows host (its first line of WINDOWS_LINES, in words), or "" where none does."""
    for line in text.splitlines():
        for row in WINDOWS_LINES:
            if m := re.search(row.pattern, line, re.I):
                return f"{row.what}: `{_last_clause(m.group(0))}`"
    return ""


def windows_driver(nvidia: NvidiaGpus | None) -> str:
    """Why the nvidia-smi table shows a Windows driver: every GPU's Driver-Model column reads WDDM, TCC or MCDM
    (facts/nvidia_smi.WINDOWS_DRIVER_MODELS; the Linux driver prints Persistence-M there); "" otherwise."""
    gpus = nvidia.gpus if nvidia is not None else ()
    if not gpus or any(g.driver_model is None for g in gpus):
        return ""
    return f"the nvidia-smi table's Driver-Model column reads {', '.join(sorted({g.driver_model or '' for g in gpus}))}"


def _gpu_on_root_bus(ctx: FactContext) -> tuple[str, str] | None:
    """A discrete NVIDIA GPU at bus 00 of its PCI domain, or at a device other than 0 of another bus: ("vm", why),
    else None.

    On a physical machine a PCIe card sits behind a root port or switch, on a bus numbered after them, as device 0
    of that bus (its link's only device); a hypervisor's virtual root complex puts a passed-through card on bus 00
    itself (QEMU's `00:08.0`, EC2's `00:1e.0`, Hyper-V's domain per device, `0001:00:00.0`), and its virtual PCI
    bridges put several cards on one bus (pci_address.off_link_slot: `06:10.0` and `06:11.0`, corpus 909; EC2 p4d's
    `10:1c.0`, corpus 620; a GKE node's `80:02.0`, corpus 1455). Read from the GPUs' addresses (NVML, nvidia-smi,
    sysfs), the GPU functions of a pasted `lspci` and an NCCL log's `busId` fields.
    """
    from stackaudit.facts.pcie import PcieFacts
    from stackaudit.facts.serving_logs import ServingLog

    inventory = ctx.optional("gpus", GpuInventory)
    pcie = ctx.optional("pcie", PcieFacts)
    log = ctx.optional("serving_log", ServingLog)
    for bdf, where in [*((b, "") for b in (inventory.bdfs if inventory else ())),
                       *((f.bdf, " (lspci)") for f in (pcie.gpus if pcie else ())),
                       *((b, " (an NCCL log's busId)") for b in (log.gpu_bus_ids if log else ()))]:
        if on_root_bus(bdf):
            return "vm", (f"GPU {bdf}{where} on bus 00 of its PCI domain, where only a hypervisor's virtual root "
                          "complex puts a PCIe card (a passed-through GPU)")
        if off_link_slot(bdf):
            return "vm", (f"GPU {bdf}{where} at device {bdf.split(':')[-1].split('.')[0]} of its bus, where a PCIe "
                          "link gives a card device 00 only: a shared bus that a hypervisor's virtual PCI bridge "
                          "gives passed-through GPUs")
    return None


@dataclass(frozen=True)
class HypervisorDevice:
    """A PCI function that only a hypervisor presents to its guests: its emulated or paravirtual devices."""

    pattern: str  # lspci's vendor and device name (case ignored)
    ids: str  # the vendor:device ids `lspci -nn` prints, a pattern matched from their start
    vm: str  # the hypervisor, as systemd-detect-virt names it
    what: str


# VMware's paravirtual SCSI, NIC, SVGA and VMCI devices (vendor 15ad); QEMU's virtio devices (Red Hat's vendor id
# 1af4) and its own (1b36: the QXL display, PCIe root ports), the subsystem QEMU's i440FX names; Xen's platform device
# (5853); Hyper-V's synthetic display of a generation-1 VM (1414:5353). Corpus 1822 (VMware PVSCSI, VMXNET3);
# elasticluster/elasticluster#504 (a Compute Engine VM's `Red Hat, Inc Virtio SCSI`). A BlueField DPU presents virtio
# functions to its bare-metal host too, so virtio beside a BlueField says nothing.
HYPERVISOR_DEVICES = (
    HypervisorDevice(r"\bVMware (?:PVSCSI|VMXNET ?3?|SVGA|Virtual Machine Communication Interface)", r"15ad:",
                     "vmware", "VMware's paravirtual devices"),
    HypervisorDevice(r"\bRed Hat, Inc\.? (?:Virtio|QXL|QEMU)", r"1af4:|1b36:", "kvm", "QEMU's virtio devices"),
    HypervisorDevice(r"\bXenSource, Inc\.? Xen Platform Device", r"5853:0001", "xen", "Xen's platform device"),
    HypervisorDevice(r"\bMicrosoft Corporation Hyper-V virtual VGA", r"1414:5353", "microsoft",
                     "Hyper-V's synthetic display"),
)


def hypervisor_device(devices: Sequence[LspciDevice]) -> tuple[HypervisorDevice, LspciDevice] | None:
    """The first function of a pasted lspci that only a hypervisor presents (HYPERVISOR_DEVICES), with its row; None
    where none is, or where virtio sits beside a BlueField DPU."""
    dpu = any("bluefield" in d.description.lower() for d in devices)
    for dev in devices:
        ids = f"{dev.vendor.removeprefix('0x')}:{dev.device.removeprefix('0x')}".lower()
        for row in HYPERVISOR_DEVICES:
            shown = re.search(row.pattern, dev.description, re.I) or (dev.vendor and re.match(row.ids, ids))
            if shown and not (dpu and row.vm == "kvm"):
                return row, dev
    return None


def _hypervisor_device(ctx: FactContext) -> tuple[str, str] | None:
    """A pasted or live lspci's function that only a hypervisor presents (hypervisor_device): (vm, why), else None."""
    from stackaudit.facts.pcie import read_lspci

    lspci, _ = read_lspci(ctx.host)
    found = hypervisor_device(lspci.devices) if lspci is not None else None
    if found is None:
        return None
    row, dev = found
    return row.vm, f"lspci shows {row.what}, which only a hypervisor presents: `{dev.bdf} {dev.description[:120]}`"


def _emulated_switch(ctx: FactContext) -> tuple[str, str] | None:
    """A PCI switch of an NCCL log's topology tree whose PCI ids only a hypervisor presents (serving_logs
    EMULATED_SWITCHES: QEMU's TI XIO3130 ports, corpus 1269): ("vm", why), else None."""
    from stackaudit.facts.serving_logs import ServingLog

    log = ctx.optional("serving_log", ServingLog)
    tree = log.topo_tree if log is not None else None
    if tree is None or not tree.emulated:
        return None
    what, line = tree.emulated[0]
    return "vm", f"NCCL's topology tree shows {what}, which only a hypervisor presents: `{line.split('NCCL INFO')[-1].strip()}`"


def _ofi_instance(ctx: FactContext) -> tuple[str, str] | None:
    """The EC2 instance type aws-ofi-nccl's platform line names (ServingLog.ofi_platform: the plugin reads it from DMI's
    product name), where it is a type of CLOUD_INSTANCES (a Nitro VM; a `.metal` type is none): ("amazon", why), else
    None."""
    from stackaudit.facts.serving_logs import ServingLog

    log = ctx.optional("serving_log", ServingLog)
    platform = log.ofi_platform() if log is not None else None
    named = cloud_instances(platform[0]) if platform is not None else []
    if platform is None or [name for name, row in named if row.vm == "amazon"] != [platform[0]]:
        return None
    return "amazon", (f"aws-ofi-nccl names the instance type {platform[0]} (DMI's product name): "
                      f"{CLOUD_INSTANCES[0].what}")


def vgpu_guest(nvidia: NvidiaGpus | None, gpus: GpuInventory | None) -> str:
    """Why the GPUs shown are NVIDIA vGPUs in a guest (`GPU Virtualization Mode: VGPU`, else the vGPU software's
    licence section, vgpu_licence, where no GPU shows another mode, else a GPU named by its vGPU profile), or ""
    when nothing shown says so."""
    shown = nvidia.gpus if nvidia else ()
    if any(g.virtualization_mode == "VGPU" for g in shown):
        return "nvidia-smi GPU Virtualization Mode: VGPU"
    if not any(g.virtualization_mode for g in shown) and (licence := vgpu_licence(nvidia)):
        return licence
    vgpu = next((g for g in (gpus.gpus if gpus else ()) if VGPU_PROFILE.match(g.model.strip())), None)
    return f"{vgpu.label} is named by the vGPU profile {vgpu.model!r}" if vgpu else ""


def vgpu_licence(nvidia: NvidiaGpus | None) -> str:
    """The vGPU software's licence section of `nvidia-smi -q` in words (`vGPU Software Licensed Product`: the product
    and its `License Status`), or "" where no GPU shows it. Only NVIDIA's vGPU guest driver prints the section: the
    guest licenses its vGPU from a licence server (NVIDIA vGPU software licensing guide)."""
    g = next((g for g in (nvidia.gpus if nvidia else ()) if g.vgpu_license), None)
    if g is None:
        return ""
    product = f"{g.vgpu_product}, " if g.vgpu_product else ""
    return (f"nvidia-smi -q shows the vGPU software's licence ({product}License Status: {g.vgpu_license}), which only "
            "NVIDIA's vGPU guest driver reports")


def vgpu_unlicensed(nvidia: NvidiaGpus | None) -> str:
    """The vGPU licence a guest's driver reports missing (`License Status : Unlicensed`, `Unlicensed (Restricted)`:
    NVIDIA's licensing guide: an unlicensed vGPU runs at full capability for 20 minutes, then degraded), in words,
    or ""."""
    g = next((g for g in (nvidia.gpus if nvidia else ()) if (g.vgpu_license or "").lower().startswith("unlicensed")),
             None)
    if g is None:
        return ""
    return f"the driver's own licence status, nvidia-smi -q's `License Status : {g.vgpu_license}`"


def vgpu_host(nvidia: NvidiaGpus | None) -> str:
    """Why the driver shown is NVIDIA's vGPU host (manager) driver on the hypervisor, or "" when nothing shown
    says so.

    The host driver prints a `vGPU Driver Capability` section at the top of `nvidia-smi -q` and, per GPU,
    `GPU Virtualization Mode: Host VGPU` (or `Host VSGA`); a guest's driver prints `VGPU` or `Pass-Through`
    (vgpu_guest), a bare-metal driver `None`.
    """
    if nvidia is None:
        return ""
    host = next((g.virtualization_mode for g in nvidia.gpus if (g.virtualization_mode or "").startswith("Host ")), "")
    if host:
        return f"nvidia-smi GPU Virtualization Mode: {host}"
    return "nvidia-smi shows the `vGPU Driver Capability` section" if nvidia.vgpu_host_driver else ""


def wsl_driver(nvidia: NvidiaGpus | None) -> str:
    """Why the nvidia-smi table shown is WSL 2's, or "" when nothing shown says so.

    NVML refuses a user-space library of another version than the kernel driver ("Driver/library version mismatch"),
    so a table's `NVIDIA-SMI` and `Driver Version` are one version on Linux and on Windows. WSL 2 has no NVIDIA kernel
    module: its Linux library (`NVIDIA-SMI 555.52.01`) reports the Windows driver it reaches through the Hyper-V GPU
    paravirtualization (`Driver Version: 555.99`). `nvidia-smi -q` there prints the Windows driver model (`Driver
    Model: WDDM`) beside a persistence mode, which Windows' own nvidia-smi reports N/A (corpus 1263).
    """
    if nvidia is None:
        return ""
    if versions := wsl_versions(nvidia.smi_version, nvidia.driver_version):
        return versions
    # `nvidia-smi -q` names no library version: a Windows driver model beside a persistence mode, which only
    # Linux's nvidia-smi prints (facts/nvidia_smi._driver_model), is the Linux tool over the Windows driver.
    models = {g.wsl_driver_model for g in nvidia.gpus}
    if nvidia.gpus and None not in models:
        return (f"nvidia-smi -q shows the Windows driver model {', '.join(sorted(m or '' for m in models))} beside a "
                f"persistence mode, which only Linux's nvidia-smi reports: {WSL_KERNEL.what}")
    return ""


def wsl_versions(smi_version: str | None, driver_version: str | None) -> str:
    """Why a header's `NVIDIA-SMI` version over another `Driver Version` is WSL 2's (wsl_driver), or ""."""
    if not smi_version or not driver_version or smi_version == driver_version:
        return ""
    return f"the nvidia-smi header's Linux library {smi_version} over the Windows driver {driver_version}: {WSL_KERNEL.what}"


def driver_branch(version: str) -> int | None:
    """The release branch of a driver version: its major number down to a multiple of 5 (Linux 580.105.08 and
    Windows 581.80 are R580, Windows 572.16 is R570, 566.03 R565); None where the version has no major number."""
    m = re.match(r"\s*(\d{3})\.", version)
    return int(m.group(1)) // 5 * 5 if m else None


def windows_only_driver(version: str | None) -> bool:
    """Whether a driver version is one only NVIDIA's Windows drivers carry. Since R450 NVIDIA numbers its Linux
    drivers by their branch (450, 455, ... 570, 575, 580, 590: a multiple of 5, https://www.nvidia.com/en-us/drivers/unix/)
    and the Windows drivers of a branch one to four above it (R535's 536.23, R550's 551.76, R570's 572.16, R575's
    577.00): a major number from 450 on that is no multiple of 5 is a Windows driver's (27 corpus files, none Linux)."""
    m = re.match(r"\s*(\d{3})\.\d", version or "")
    return m is not None and int(m.group(1)) >= 450 and int(m.group(1)) % 5 != 0


# The compiler a Linux CPython names in its version string (`3.10.12 (main, ...) [GCC 11.4.0]`); Windows' says `[MSC v.`.
_LINUX_PYTHON = re.compile(r"\[GCC [\d.]+")


def wsl_report_driver(env: CollectEnv | None) -> str:
    """Why a collect_env / check_env report is WSL 2's: its Python is a Linux one (built by GCC) and the driver it
    reports is of a Windows-only number (windows_only_driver), which a Linux process sees only through WSL 2's
    libraries, reporting the Windows driver (corpus 1018: `CUDA Driver Version: 577.00`); "" where it is not."""
    if env is None or not windows_only_driver(env.driver_version):
        return ""
    python = next((v for k, v in env.values.items() if k in ("Python", "Python version") and _LINUX_PYTHON.search(v)), "")
    if not python:
        return ""
    return (f"the report's driver {env.driver_version}, a Windows driver's number (R{driver_branch(env.driver_version)} "
            f"on Linux is numbered {driver_branch(env.driver_version)}.x), under a Linux Python "
            f"({python[python.index('[GCC'):].split(']')[0]}]): {WSL_KERNEL.what}")


def wsl_foreign_library(smi_version: str | None, driver_version: str | None, library: str = "") -> str:
    """Why a WSL 2 header's `NVIDIA-SMI` library, or a library a program loads there, is not the one the Windows driver
    ships, or "".

    Under WSL 2 the Linux user-space libraries (libcuda, libnvidia-ml, nvidia-smi in /usr/lib/wsl/lib) come with the
    Windows driver, from its own branch: `NVIDIA-SMI 565.57.02` over `Driver Version: 566.03` (both R565). A library
    of another branch (`NVIDIA-SMI 580.105.08` over `572.16`: R580 over R570) is a Linux driver package installed
    inside WSL, which NVIDIA's CUDA on WSL guide says not to do: it shadows the libraries that match the driver. So is
    a Linux driver's own library that a program's line under WSL 2 names (`library`, LINUX_DRIVER_LIBRARY:
    `/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01`).
    """
    lib, drv = driver_branch(smi_version or ""), driver_branch(driver_version or "")
    if wsl_versions(smi_version, driver_version) and lib is not None and drv is not None and lib != drv:
        return (f"the nvidia-smi header's library {smi_version} (R{lib}) is not the R{drv} branch of the Windows "
                f"driver {driver_version} it talks to: a Linux driver package installed inside WSL 2")
    if (m := LINUX_DRIVER_LIBRARY.search(library)) is None:
        return ""
    folder, _, name = m.group(0).rpartition("/")
    return (f"a program loads {name}, a Linux driver's own library (R{driver_branch(name.split('.so.')[1])}), from "
            f"{folder or '/'} beside WSL's: a Linux driver package installed inside WSL 2")


# NVIDIA's vGPU host driver logs each physical GPU's time-sliced vGPU scheduler at load (`NVRM: GPU at 0000:01:00.0 has
# software scheduler ENABLED with policy BEST_EFFORT`): the resource manager prints it only under the vGPU hypervisor
# (kschedmgrConstructPolicy, `if (hypervisorIsVgxHyper() && IsPASCALorBetter(pGpu))`; on bare metal and in a
# passed-through guest the line stays at debug level: NVIDIA/open-gpu-kernel-modules,
# src/nvidia/src/kernel/gpu/fifo/kernel_sched_mgr.c), and the vGPU user guide reads the scheduling behaviour from these
# lines on the hypervisor host (https://docs.nvidia.com/vgpu/latest/grid-vgpu-user-guide/index.html).
_VGPU_SCHEDULER = re.compile(r"NVRM: GPU at (?:PCI:)?[0-9a-f:.]+ has software scheduler (?:ENABLED|DISABLED) with policy "
                             r"\w+", re.I)


def _vgpu_scheduler_line(ctx: FactContext) -> str:
    """The kernel log's vGPU host scheduler line (_VGPU_SCHEDULER), trimmed to its match; "" where none is shown."""
    log = ctx.optional("kernel_log", KernelLog)
    found = log.grep(_VGPU_SCHEDULER.pattern, needles=("software scheduler",)) if log is not None else []
    match = _VGPU_SCHEDULER.search(found[0]) if found else None
    return match.group(0) if match else ""


def _gpu_virtualization(ctx: FactContext) -> tuple[str, str] | None:
    """What the driver says of its GPUs: nvidia-smi `GPU Virtualization Mode` (`Pass-Through` and `VGPU`
    are guests, a VM; `None` is "bare metal GPU", NVML nvmlGpuVirtualizationMode_t:
    https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html), else a GPU named by a vGPU
    profile (VGPU_PROFILE, a guest); the kernel log's vGPU host scheduler line (_VGPU_SCHEDULER) says the vGPU host
    driver, on the hypervisor; None when none is shown."""
    from stackaudit.facts.nvidia import NvidiaDriver, NvidiaGpus

    nvidia = ctx.optional("nvidia", NvidiaGpus)
    modes = sorted({g.virtualization_mode for g in (nvidia.gpus if nvidia else ()) if g.virtualization_mode})
    if not modes and (wsl := wsl_driver(nvidia)):
        return WSL_KERNEL.vm, wsl
    driver = ctx.optional("nvidia_driver", NvidiaDriver) if nvidia is None else None
    if driver is not None and (wsl := wsl_versions(driver.smi_version, driver.version)):
        return WSL_KERNEL.vm, wsl  # the header line copied into prose
    if not modes and nvidia is not None and nvidia.vgpu_host_driver:
        return "none", f"{vgpu_host(nvidia)}: NVIDIA's vGPU host driver, on the hypervisor (not a guest)"
    if not modes and (scheduler := _vgpu_scheduler_line(ctx)):
        return "none", (f"the kernel log's `{scheduler}`: the vGPU host driver's scheduler of the physical GPU's vGPUs, "
                        "on the hypervisor (not a guest)")
    if not modes:
        named = vgpu_guest(nvidia, ctx.optional("gpus", GpuInventory))
        return ("vm", f"{named}, which only NVIDIA's vGPU guest driver reports (a virtual machine)") if named else None
    guest = [m for m in modes if m in ("Pass-Through", "VGPU")]
    if guest:
        return "vm", f"nvidia-smi GPU Virtualization Mode: {guest[0]} (a virtual machine)"
    return "none", f"nvidia-smi GPU Virtualization Mode: {', '.join(modes)}"


fact("virtualization", Virtualization, hint="paste `lscpu` or `systemd-detect-virt --vm`")


@provider("virtualization", Virtualization)
def virtualization(ctx: FactContext) -> Virtualization:
    """Virtual machine or not (`systemd-detect-virt --vm`, else lscpu, DMI, GPU slots, cloud kernel, hostname).

    DMI is /sys/class/dmi/id, else the ids the kernel log prints (kernel_dmi: its boot line or an Oops's
    `Hardware name:`). A DMI string that names no hypervisor is a physical machine's.
    Where none of them answers, a Windows host (_windows_host: the nvidia-smi table's Driver-Model column, a Python
    report's platform) is the answer, with vm "" (nothing tells whether it is a virtual machine). Those sources are
    read only then, so that an answer's provenance names only what it read.
    """
    from stackaudit.facts.nvidia import NvidiaGpus

    try:
        found = _machine(ctx)
        said = (vgpu_unlicensed(ctx.optional("nvidia", NvidiaGpus)) or _vgpu_limit_words(ctx)) if found.is_vm else ""
        return replace(found, vgpu_limit=said) if said else found
    except FactUnavailable:
        if windows := _windows_host(ctx):
            guest = _wsl_guest(ctx)
            gpus = ctx.optional("gpus", GpuInventory)
            return Virtualization("", windows, os="windows", wsl_guest=f"{guest[1].what}: {guest[0][:120]!r}"
                                  if guest else "", wsl_fails=guest is not None and guest[1].fails,
                                  laptop=gpus.laptop_gpu if gpus is not None else "")
        raise


def _vgpu_limit_words(ctx: FactContext) -> str:
    """A vGPU limit at work in the user's words (USER_MACHINE, vgpu_limit_said), or "" where none is stated."""
    try:
        return vgpu_limit_said(read_source(ctx.host, USER_MACHINE))
    except (NotCaptured, FactUnavailable):
        return ""


def _wsl_guest(ctx: FactContext) -> tuple[str, PlatformWords] | None:
    """The line of the user's words (USER_MACHINE) that names a WSL VM (a PLATFORM_WORDS row with wsl), one that
    says the GPU fails there first; None where none does."""
    try:
        text = read_source(ctx.host, USER_MACHINE)
    except (NotCaptured, FactUnavailable):
        return None
    said = [(line.strip(), words) for line in text.splitlines() if (words := platform_words(line)) and words.wsl]
    return next((s for s in said if s[1].fails), said[0] if said else None)


def _machine(ctx: FactContext) -> Virtualization:
    """The virtualization provider's answer from the machine's own sources, in their order."""
    host = ctx.host
    try:
        result = host.run(list(SYSTEMD_DETECT_VIRT.argv))
    except NotCaptured:
        result = None
    if result is not None and not result.not_found and not result.timed_out:
        answer = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
        if answer:
            return Virtualization(answer, "systemd-detect-virt --vm")
    cpu = ctx.optional("cpu", CpuInfo)
    if cpu is not None and (cpu.hypervisor_vendor or "hypervisor" in cpu.flags):
        return Virtualization((cpu.hypervisor_vendor or "unknown").lower(), "lscpu Hypervisor vendor")
    gpu_mode = _gpu_virtualization(ctx)
    if gpu_mode is not None and gpu_mode[0] != "none":
        # The header's library over another driver (wsl_versions) is WSL 2's utility VM.
        return Virtualization(*gpu_mode, wsl=gpu_mode[1].endswith(WSL_KERNEL.what))
    try:
        dmi = " ".join(
            (read_optional(host, f"/sys/class/dmi/id/{name}") or "").strip() for name in ("sys_vendor", "product_name")
        ).strip()
    except (PermissionError, NotCaptured):
        dmi = ""
    dmi_source = "DMI"
    if not dmi and (dmi := kernel_dmi(ctx.optional("kernel_log", KernelLog))):
        dmi_source = "the kernel log's DMI ids"
    if dmi and (name := dmi_hypervisor(dmi)):
        return Virtualization(name, f"{dmi_source}: {dmi}")
    if cpu is not None and (cpu.complete or cpu.hypervisor_span):
        # lscpu prints `Hypervisor vendor:` in a VM; an excerpt may have cut it, unless it shows the lines around it.
        return Virtualization("none", "lscpu shows no hypervisor" + (
            "" if cpu.complete else " (its lines from BogoMIPS to the caches, where lscpu prints one, are shown)"))
    if cpu is not None and cpu.hypervisor_flag_shown:
        # A guest's kernel sets the `hypervisor` flag from CPUID; a flags line past its place shows it is not set.
        return Virtualization("none", "the CPU flags show no `hypervisor` flag (the line runs past where the kernel "
                                      "prints it)")
    if gpu_mode is not None:
        return Virtualization(*gpu_mode)
    root_bus = _gpu_on_root_bus(ctx) or _emulated_switch(ctx) or _ofi_instance(ctx) or _hypervisor_device(ctx)
    if root_bus is not None:
        return Virtualization(*root_bus)
    if dmi:
        return Virtualization("none", f"{dmi_source}: {dmi}")
    kernel = ctx.optional("kernel", KernelInfo)
    if kernel is not None and wsl1_kernel(kernel.release):
        return Virtualization("", f"kernel {kernel.release}", wsl1=f"kernel {kernel.release}: WSL 1, which translates "
                              "Linux calls onto the Windows kernel and has no GPU (CUDA on WSL needs WSL 2)")
    flavour = cloud_kernel(kernel.release) if kernel is not None else None
    if kernel is not None and flavour is not None:
        return Virtualization(flavour.vm, f"kernel {kernel.release}: {flavour.what}", wsl=flavour is WSL_KERNEL)
    from stackaudit.facts.collect_env import CollectEnv

    if wsl := wsl_report_driver(ctx.optional("collect_env", CollectEnv)):
        return Virtualization(WSL_KERNEL.vm, wsl, wsl=True)
    host_name = ctx.optional("hostname", Hostname)
    named = cloud_hostname(host_name.name) if host_name is not None else None
    if host_name is not None and named is not None:
        return Virtualization(named.vm, f"host name {host_name.name}: {named.what}")
    if host_name is not None and WINDOWS_MACHINE_NAME.fullmatch(host_name.name) and _gpu_off_sysfs(ctx):
        return Virtualization(WSL_KERNEL.vm, f"host name {host_name.name}, a Windows machine's, on a Linux NCCL that "
                              f"finds no PCI path in sysfs for its GPU: {WSL_KERNEL.what}", wsl=True)
    raise FactUnavailable("no source tells whether this is a virtual machine",
                          "paste `lscpu` or `systemd-detect-virt --vm`")


def _gpu_off_sysfs(ctx: FactContext) -> str:
    """The log's line where NCCL found no sysfs path for a GPU's PCI bus id (the nccl-topology-path symptom: a bus id
    NCCL read, not its unread `fffffff`), "" where none does."""
    from stackaudit.facts.symptoms import LogSymptoms

    symptoms = ctx.optional("log_symptoms", LogSymptoms)
    return next((h.line for h in (symptoms.hits if symptoms is not None else ())
                 if h.symptom.name == "nccl-topology-path" and "/fffffff" not in h.line), "")


# What a Python report prints of a Windows host, by its key. torch's collect_env prints `OS: Microsoft Windows 11 Pro`:
# its get_windows_version reads `wmic os get Caption`
# (https://github.com/pytorch/pytorch/blob/main/torch/utils/collect_env.py). Its `Python platform` is Python's
# platform.platform(), `Windows-11-10.0.26100-SP0` on Windows. OpenMMLab's check_env prints sys.platform, `win32` on
# Windows (https://docs.python.org/3/library/sys.html#sys.platform).
REPORT_WINDOWS = {"OS": r"^(?:Microsoft\s+)?Windows\b", "Python platform": r"^Windows-", "sys.platform": r"^win32$"}


def _windows_host(ctx: FactContext) -> str:
    """Why the GPU listing or the Python report shows a Windows host: the nvidia-smi table's Windows driver model
    (windows_driver), a collect_env / check_env line of REPORT_WINDOWS; "" where neither does."""
    from stackaudit.facts.collect_env import CollectEnv
    from stackaudit.facts.nvidia import NvidiaGpus

    if why := windows_driver(ctx.optional("nvidia", NvidiaGpus)):
        return why
    env = ctx.optional("collect_env", CollectEnv)
    values = env.values if env is not None else {}
    return next((f"the Python report's `{key}: {values[key]}`" for key, pattern in REPORT_WINDOWS.items()
                 if re.search(pattern, values.get(key, "").strip())), "")


# What `systemd-detect-virt` (without --vm) prints for a container (systemd's src/basic/virt.c container ids):
# it names no virtual machine.
SYSTEMD_CONTAINERS = ("openvz", "lxc", "lxc-libvirt", "systemd-nspawn", "docker", "podman", "rkt", "wsl", "proot",
                      "pouch", "container-other")
# club-3090's report.sh (System section) prints `WSL2` where /proc/version names Microsoft, else
# `<systemd-detect-virt's answer> (virtualized)` where that answer is not `none`, else `inside-container (...)` where
# /.dockerenv exists, else `bare metal`.
_RIG_ENVIRONMENT = re.compile(r"^- \*\*Environment:\*\* (?P<env>.+?)\s*$", re.M)


@parser(RIG_REPORT_ENVIRONMENT, feeds="virtualization", kind=Virtualization, rank=50)
def virtualization_from_rig_report(text: str) -> Virtualization:
    """The machine club-3090's rig report detected (`Environment:`): `bare metal` (systemd-detect-virt said none),
    a hypervisor (`kvm (virtualized)`) or WSL 2 (a Hyper-V VM); a container says nothing of the machine under it.

    report.sh also prints `bare metal` where systemd-detect-virt is not installed; systemd ships it, and the report
    runs on the Linux host that serves club-3090's containers, a systemd distribution.

    Input (tests/data/captures/634)::

        - **Environment:** kvm (virtualized)
    """
    m = _RIG_ENVIRONMENT.search(text)
    if m is None:
        raise ParseError("no Environment line")
    env = m.group("env")
    said = f"club-3090 rig report: Environment: {env}"
    if env == "bare metal":
        return Virtualization("none", said)
    if env.startswith("WSL2"):
        return Virtualization(WSL_KERNEL.vm, f"{said}: {WSL_KERNEL.what}", wsl=True)
    virt = re.fullmatch(r"(?P<name>[\w-]+) \(virtualized\)", env)
    if virt is None or virt.group("name") in SYSTEMD_CONTAINERS:
        raise ParseError(f"the Environment line names no virtual machine and no bare metal: {env!r}")
    return Virtualization(virt.group("name"), said)


@parser(P2P_BANDWIDTH_TEST, feeds="virtualization", kind=Virtualization, rank=60)
def virtualization_from_azure_health_check(text: str) -> Virtualization:
    """An Azure VM, where the pasted bandwidth figures are those of Azure's node health checks (NHC_BW:
    azurehpc-health-checks' `check_gpu_bw`, which runs on Azure's HPC and AI VM sizes and reads their size from the
    instance metadata service).

    Input (tests/data/captures/1042, Azure/azurehpc-health-checks#162)::

        ERROR:  nhc:  Health check failed:  check_gpu_bw: P2P test on GPU 1 to GPU 0 failed. Bandwidth 256.63 is less than 335. FaultCode: NHC2020
    """
    line = next((ln.strip() for ln in text.splitlines() if NHC_BW.search(ln)), None)
    if line is None:
        raise ParseError("no line of Azure's health check")
    return Virtualization("microsoft", f"Azure's node health check (azurehpc-health-checks): {line[:100]!r}")


@parser(K8S_NODE, feeds="virtualization", kind=Virtualization, rank=85)
def virtualization_from_node(text: str) -> Virtualization:
    """A cloud's VM, where a pasted Kubernetes node lists a volume limit that only that cloud's VMs report
    (k8s_node.VM_VOLUME_LIMITS: Azure Disk's, GCE persistent disk's).

    Input (tests/data/captures/1958, NVIDIA/k8s-device-plugin#245; its Capacity heading)::

        Capacity:
          attachable-volumes-azure-disk:  24
          nvidia.com/gpu:                 1
    """
    from stackaudit.facts.k8s_node import node_vm

    found = node_vm(text)
    if found is None:
        raise ParseError("no node lists a volume limit only a cloud's VM reports")
    return Virtualization(*found)


@parser(USER_MACHINE, feeds="virtualization", kind=Virtualization, rank=90)
def virtualization_from_user_words(text: str) -> Virtualization:
    """A cloud instance type in the user's words (`g5.48xlarge`), in a statement (stated_instances): that provider's
    VM; several providers, none.
    A statement of PLATFORM_WORDS: bare metal (`It is not running inside a VM.`), beside an instance type none;
    or a VM (`The container is running in WSL2.`), counted as one more provider.

    Input (tests/data/captures/215)::

        These tests have been conducted on an AWS g5.48xlarge instance which has 8 x A10G GPUs
    """
    named = stated_instances(text)
    said = [(line.strip(), words) for line in text.splitlines() if (words := platform_words(line))]
    vms = {row.vm for _, row in named} | {words.vm for _, words in said if words.vm != "none"}
    bare = next(((line, words) for line, words in said if words.vm == "none"), None)
    # A Windows line (WINDOWS_LINES) names the host's operating system; beside WSL 2 in the same words (the one
    # statement of PLATFORM_WORDS of a Hyper-V VM) it is the Windows under the Linux VM the engine runs in.
    windows = "" if any(words.vm == WSL_KERNEL.vm for _, words in said) else windows_lines(text)
    os = "windows" if windows else ""
    if bare is not None and not vms:
        return Virtualization("none", f"{bare[1].what}: {bare[0][:120]!r}", os=os)
    if not vms and windows:
        return Virtualization("", f"{windows} in the pasted text", os=os)
    if len(vms) != 1:
        raise ParseError("names no cloud instance type" if not vms else
                         "names instances of several providers")
    if bare is not None:
        raise ParseError("names a cloud instance type and says bare metal")
    if not named:
        line, words = next((line, words) for line, words in said if words.vm != "none")
        return Virtualization(words.vm, f"{words.what} in the user's words: {line[:120]!r}", os=os, wsl=words.wsl,
                              vgpu_limit=vgpu_limit_said(text))
    name, row = named[0]
    sized = instance_gpus(name)
    vgpu = (f"{name} is a size its provider serves with NVIDIA vGPU (GRID) guests ({sized[1].source})"
            if sized is not None and sized[1].vgpu else "")
    return Virtualization(row.vm, f"{name} in the user's words: {row.what}", vgpu, os=os,
                          vgpu_limit=vgpu_limit_said(text))


@parser(PROMPT_HOSTS, feeds="virtualization", kind=Virtualization, rank=95)
def virtualization_from_prompt_host(text: str) -> Virtualization:
    """A cloud's VM, where the paste's shell prompts name one host and it is a name the cloud gives its VMs
    (CLOUD_HOSTNAMES): the machine the commands ran on. After the machine's own sources and the user's words, which
    say more (an instance size that names a vGPU guest, corpus 932).

    Input (corpus 1507's prompt as the importer hands it over: the prompt's host, a tab, its command)::

        ip-10-0-0-73\tsudo docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi
    """
    host = _prompt_host(text)
    named = cloud_hostname(host) if host else None
    if named is not None:
        return Virtualization(named.vm, f"host name {host} (the shell prompts): {named.what}")
    instance = host_instance(host)
    if not instance:
        raise ParseError("the shell prompts name no single host a cloud gives its VMs, or named after an instance type")
    sized, row = instance_gpus(instance), cloud_instances(instance)[0][1]
    return Virtualization(row.vm, f"host name {host} (the shell prompts), named after the instance type {instance}: "
                          f"{row.what}", f"{instance} is a size its provider serves with NVIDIA vGPU (GRID) guests "
                          f"({sized[1].source})" if sized is not None and sized[1].vgpu else "")


def _prompt_host(text: str) -> str:
    """The one host a paste's shell prompts (PROMPT_HOSTS: host, a tab, the command) name; "" where none or several."""
    names = {name for name, _, _ in (line.partition("\t") for line in text.splitlines()) if name}
    return next(iter(names)) if len(names) == 1 else ""


HOST_INSTANCE_TITLE = "a GPU instance type a shell prompt's host is named after"


@parser(PROMPT_HOSTS, feeds="gpus", kind=GpuInventory, rank=94)
def gpus_from_prompt_host(text: str) -> GpuInventory:
    """The GPUs of the instance type the shell prompts' one host is named after (host_instance): count and model, a
    count kept as an excerpt's (a lower bound), as for an instance type in the user's words.

    Input (modelled on the prompt of corpus 1910, as the importer hands it over: its host, a tab, its command)::

        p2_xlarge_instance\tsystemctl status docker.service
    """
    host = _prompt_host(text)
    instance = host_instance(host)
    sized = instance_gpus(instance) if instance else None
    if sized is None:
        raise ParseError("the shell prompts name no single host named after a GPU instance type of GPU_INSTANCES")
    count, row = sized
    return counted_gpus(HOST_INSTANCE_TITLE, count, row.model, f"the GPUs of {instance}, which the host {host} is "
                        f"named after, as its provider documents them ({row.source}), not a listing")


@parser(ENGINE_LOG, feeds="virtualization", kind=Virtualization, rank=97)
def virtualization_from_engine_log(text: str) -> Virtualization:
    """A Windows host, where the engine's log loads a program or library from a Windows path (WINDOWS_LINES); a log
    says nothing of a virtual machine (vm "").

    Input (tests/data/captures/928)::

        time=2024-08-12T20:24:12.353-06:00 level=INFO source=server.go:392 msg="starting llama server" cmd="C:\\\\Users\\\\user\\\\AppData\\\\Local\\\\Programs\\\\Ollama\\\\ollama_runners\\\\cuda_v11.3\\\\ollama_llama_server.exe
    """
    return _windows_in(text, "the engine's log")


@parser(ENGINE_COMMAND, feeds="virtualization", kind=Virtualization, rank=98)
def virtualization_from_engine_command(text: str) -> Virtualization:
    """A Windows host, where the engine's command line runs a Windows program (WINDOWS_LINES); a command says nothing
    of a virtual machine (vm "").

    Input (tests/data/captures/962, a batch file)::

        .\\bin\\llama-server.exe ^
    """
    return _windows_in(text, "the engine's command line")


# The user's words saying the machine is a laptop: the laptop they own or run on (`it is working on my laptop`,
# corpus 2474; `Now I have a laptop`, corpus 2418), a laptop named after its make (`(MSI Vector 16 HX AI A2XWIG
# laptop)`, corpus 216), or a hardware list's model that is a laptop with a GeForce (`Hardware model: Surface Book 3`,
# corpus 2472: Microsoft's only Surface with one). A line that compares or reproduces on another machine (`Reproducible
# with a 1650 Max-Q on my Laptop`, corpus 252: another machine than the paste's), negates or asks states none.
_LAPTOP_SAID = re.compile(r"\b(?:my|our|an?|this)\s+(?:[\w-]+\s+){0,5}?laptop\b|\(\s*[\w -]{1,60}\blaptop\)"
                          r"|\bSurface\s+Book\b", re.I)
_LAPTOP_ASIDE = re.compile(r"\b(?:reproduc\w*|other|another|previous|old)\b", re.I)


def stated_laptop(line: str) -> str:
    """The words of a line of the user's that say the machine is a laptop (_LAPTOP_SAID), stripped; "" where it
    says none, asks, or compares (_CONTRAST, _LAPTOP_ASIDE)."""
    if "?" in line or ("aptop" not in line.lower() and "surface" not in line.lower()):
        return ""
    m = _LAPTOP_SAID.search(line)
    return line.strip()[:120] if m and not _CONTRAST.search(line) and not _LAPTOP_ASIDE.search(line) else ""


@provider("virtualization", Virtualization, rank=99, title="a laptop's GPU")
def virtualization_of_a_laptop(ctx: FactContext) -> Virtualization:
    """A laptop, where nothing else tells the machine: its only GPU's name is a laptop's (GpuInventory.laptop_gpu:
    `... Laptop GPU`, `... with Max-Q Design`), else the user's words say it is a laptop (stated_laptop) and no source
    shows more than one GPU. It says no VM or bare metal (vm ""): a laptop's Linux runs bare or in WSL 2 on its
    Windows (corpus 1263, 1270), with the laptop's one discrete GPU either way.

    Input (tests/data/captures/1464, `nvidia-container-cli info`)::

        Model:          GeForce GTX 1080 with Max-Q Design
    """
    gpus = ctx.optional("gpus", GpuInventory)
    laptop = gpus.laptop_gpu if gpus is not None else ""
    if not laptop and (gpus is None or (len(gpus.gpus) <= 1 and (gpus.at_least or 1) <= 1)):
        try:
            said = next((w for line in read_source(ctx.host, USER_MACHINE).splitlines() if (w := stated_laptop(line))),
                        "")
        except (NotCaptured, FactUnavailable):
            said = ""
        laptop = f"a laptop in the user's words ({said!r}), and a laptop holds one discrete GPU" if said else ""
    if not laptop:
        raise FactUnavailable("no laptop GPU named, nor a laptop in the user's words")
    return Virtualization("", laptop, laptop=laptop)


@parser(EVIDENCE_LINES, feeds="virtualization", kind=Virtualization, rank=96)
def virtualization_from_evidence_lines(text: str) -> Virtualization:
    """WSL 2's VM, where a pasted line loads a library from its driver mount (WSL_LIBRARY).

    Input (tests/data/captures/1916, ollama's debug line)::

        wiring nvidia management library functions in /usr/lib/wsl/lib/libnvidia-ml.so.1
    """
    if (remoted := _remoted(text, "a pasted line")) is not None:
        return remoted
    line = wsl_library(text)
    if not line:
        raise ParseError("no library of WSL 2's driver mount (/usr/lib/wsl) or CUDA API-remoting frontend in the "
                         "lines shown")
    return Virtualization(WSL_KERNEL.vm, f"a library of WSL 2's driver mount: {line[:120]!r}: {WSL_KERNEL.what}",
                          wsl=True, linux_library=wsl_library(text, linux=True))


def _remoted(text: str, where: str) -> Virtualization | None:
    """A GPU behind a CUDA API-remoting frontend (remoting_frontend), the program's libcuda forwarding its calls: a
    virtual GPU (vm "remoting"); None where no line names a frontend."""
    found = remoting_frontend(text)
    if found is None:
        return None
    what, line, failed = found
    return Virtualization("remoting", f"{where}: {what}", remoted=line, remote_failure=failed)


def _windows_in(text: str, where: str) -> Virtualization:
    """The Windows host a pasted document's lines show (WINDOWS_LINES), with no word of a virtual machine; WSL 2's VM
    where a line loads a library from its driver mount (WSL_LIBRARY) instead; a remoted GPU where a line names a CUDA
    API-remoting frontend (REMOTING_FRONTENDS)."""
    if (remoted := _remoted(text, where)) is not None:
        return remoted
    if line := wsl_library(text):
        return Virtualization(WSL_KERNEL.vm, f"{where}: a library of WSL 2's driver mount: {line[:120]!r}: "
                              f"{WSL_KERNEL.what}", wsl=True, linux_library=wsl_library(text, linux=True))
    windows = windows_lines(text)
    if not windows:
        raise ParseError(f"no line of {where} that only a Windows host prints")
    return Virtualization("", f"{where}: {windows}", os="windows")


@parser(USER_MACHINE, feeds="gpus", kind=GpuInventory, rank=93)
def gpus_from_instance_type(text: str) -> GpuInventory:
    """The GPUs the one instance type the user's words name holds (GPU_INSTANCES): count and model, a count of the
    user's words (a lower bound, as a stated count); a clause that names it beside a contrast, a plan or a condition,
    or a line that asks, names no machine (stated_instances). An
    instance type whose GPUs are another vendor's (OTHER_VENDOR_INSTANCES: EC2 G4ad's AMD GPUs) names those.

    Input (tests/data/captures/578)::

        setting: aws g5.48xlarge
    """
    named = {name for name, _ in stated_instances(text, contrast=True)}
    found = instance_gpus(next(iter(named))) if len(named) == 1 else None
    other = next((f"{model} ({next(iter(named))}: its provider's GPU, {source})"
                  for pattern, model, source in OTHER_VENDOR_INSTANCES
                  if len(named) == 1 and re.fullmatch(pattern, next(iter(named)), re.I)), "")
    if other and len({name for name, _ in cloud_instances(text)}) == 1:
        # Another vendor's GPUs (GpuInventory.others): the instance holds no NVIDIA GPU.
        return GpuInventory(others=(other,))
    if found is None or len({name for name, _ in cloud_instances(text)}) != 1:
        raise ParseError("names no single GPU instance type of GPU_INSTANCES")
    count, row = found
    return counted_gpus(INSTANCE_TITLE, count, row.model, f"the GPUs of {next(iter(named))} as its provider "
                        f"documents them ({row.source}), not a listing")


@parser(USER_MACHINE, feeds="gpus", kind=GpuInventory, rank=95)
def no_gpus_from_user_words(text: str) -> GpuInventory:
    """No NVIDIA GPU, where the user's words name one EC2 instance type and its family has no accelerator
    (EC2_NO_ACCELERATOR); a statement of GPUs or any other instance type in the same words says nothing.

    Input (tests/data/captures/66)::

        On a m5.16xlarge instance, I'm getting this error when running `ray microbenchmark` with autoscaler default docker:
    """
    named = [name for name, _ in cloud_instances(text)]
    free = instances_without_gpu(text)
    if not free or len(set(named)) != 1 or any(stated_gpus(line) or listed_model(line) for line in text.splitlines()):
        raise ParseError("names no single EC2 instance type of a family without GPUs")
    said = f"the user's words ({free[0]}: an EC2 family without accelerators)"
    return GpuInventory(empty_in=(said,), no_accelerator=(said,))
