"""A Kubernetes node as `kubectl describe node` and `kubectl get node -o yaml` (or `-o json`) show it.

A node's capacity lists the resources its kubelet registered: `nvidia.com/gpu` (or a MIG resource such as
`nvidia.com/mig-1g.5gb`) is the count of devices the NVIDIA device plugin advertised. Its allocatable lists those of
them the plugin reports healthy: "Capacity: total number of GPUs; Allocatable: number of GPUs in a Healthy state"
(NVIDIA/k8s-device-plugin#58, #452). Allocated resources are what the pods on the node requested, not what is free.
GPU feature discovery (GFD, part of the device plugin and of the GPU Operator) labels the node from NVML:
`nvidia.com/gpu.product`, `gpu.count`, `gpu.memory`, `cuda.driver.major/minor/rev` (the driver's version; newer GFD
writes `cuda.driver-version.*`), `cuda.runtime.major/minor` (the CUDA version that driver supports), `mig.strategy`
and `mig.capable` (https://github.com/NVIDIA/k8s-device-plugin#catalog-of-labels). The GPU Operator's node feature
rule labels `nvidia.com/gpu.present=true` on a node with an NVIDIA PCI device. Under the `single` MIG strategy GFD
names the product `<model>-MIG-<slice>` and counts MIG devices; time-slicing appends `-SHARED` to the product.
`System Info` (`status.nodeInfo`) names the node's kernel, OS image, container runtime and kubelet.

A description cut before its Capacity section shows no resource, and proves none absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import GpuInventory, GpuRecord
from stackaudit.facts.mig_setup import MigSetup, parse_mig_setup
from stackaudit.facts.nvidia import NvidiaDriver
from stackaudit.facts.registry import fact, parser
from stackaudit.facts.sources import K8S_NODE
from stackaudit.facts.symptoms import LogSymptoms, find_symptoms
from stackaudit.facts.system import KernelInfo
from stackaudit.facts.time_slicing import TimeSlicing
from stackaudit.gputable import capability_name, has_mig

# The start of one node in `kubectl describe node(s)` (`Name:` at the margin), or of one object in a list of nodes
# (`kind: Node`, YAML or JSON).
DESCRIBE_NAME = re.compile(r"^Name:\s+(?P<name>\S+)\s*$")
NODE_KIND = re.compile(r"^\s*(?:-\s+)?[\"']?kind[\"']?\s*:\s*[\"']?Node\b")
# The sections read: kubectl describe's (`Capacity:`) and the object's (`capacity:`, `"capacity": {`).
SECTION = re.compile(r"^(?P<indent>\s*)[\"']?(?P<name>Labels|Taints|Capacity|Allocatable|System Info|"
                     r"Allocated resources|Addresses|labels|taints|capacity|allocatable|nodeInfo|addresses)[\"']?\s*:(?P<rest>.*)$")
# One entry of a section: `key=value` (describe's labels), `key: value`, `"key": "value",`, a YAML list item.
ENTRY = re.compile(r"^\s*(?:-\s+)?[\"']?(?P<key>[A-Za-z][\w./ -]*?)[\"']?\s*[:=]\s*[\"']?(?P<value>[^\"']*?)"
                   r"[\"']?\s*[,{]?\s*$")
# A node label pasted without its `Labels:` header (describe's label lines cut out of their node, corpus 2125):
# `key=value` alone on an indented line, its key under a DNS prefix (`nvidia.com/gpu.count=1`, `kubernetes.io/os=linux`).
BARE_LABEL = re.compile(r"^\s+(?P<key>[a-z0-9][\w-]*(?:\.[\w-]+)+/[\w.-]+)=(?P<value>[\w.-]*)\s*$")
# GFD's labels that describe the node's GPUs and driver (NVIDIA/k8s-device-plugin's catalog of labels), unlike the GPU
# Operator's `gpu.deploy.*` switches, which a pod's node selector names too.
GFD_GPU_LABELS = frozenset(f"nvidia.com/{k}" for k in (
    "gpu.count", "gpu.product", "gpu.memory", "gpu.family", "gpu.machine", "gpu.compute.major", "gpu.compute.minor",
    "cuda.driver.major", "cuda.driver.minor", "cuda.driver.rev", "cuda.driver-version.major",
    "cuda.driver-version.minor", "cuda.driver-version.revision", "cuda.runtime.major", "cuda.runtime.minor",
    "cuda.runtime-version.major", "cuda.runtime-version.minor", "mig.capable", "mig.strategy"))
# A row of describe's Allocated resources table: `  nvidia.com/gpu     1            1`.
ALLOCATED_ROW = re.compile(r"^\s*(?P<key>[\w.-]+/[\w.-]+)\s+(?P<value>\d+)\b")
# GPU resources: the device plugin's (nvidia.com/gpu, nvidia.com/gpu.shared when time-slicing renames it, the MIG
# resources of the `mixed` strategy, nvidia.com/mig-1g.5gb).
GPU_RESOURCE = re.compile(r"^nvidia\.com/(?:gpu(?:\.shared)?|mig-\d+g\.\d+gb(?:\.shared)?)$")
# Any device plugin's GPU resource (`aliyun.com/gpu-mem`, `nvidia.com/gpumem` of HAMi): a domain, then a GPU word.
ANY_GPU_RESOURCE = re.compile(r"^[\w.-]+\.\w+/(?:[\w.-]*gpu|mig-)", re.IGNORECASE)
# The node's own keys of System Info / nodeInfo.
_SYSTEM_KEYS = {"kernel version": "kernel", "kernelversion": "kernel", "os image": "os", "osimage": "os",
                "container runtime version": "runtime", "containerruntimeversion": "runtime",
                "kubelet version": "kubelet", "kubeletversion": "kubelet"}
# Node feature discovery's label of the running kernel (`feature.node.kubernetes.io/kernel-version.full`).
_NFD_KERNEL = "feature.node.kubernetes.io/kernel-version.full"
# The cloud provider's labels of the node's instance type (Kubernetes' well-known labels, the beta one before 1.17).
INSTANCE_TYPE_LABELS = frozenset({"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"})
_LIST_SECTIONS = frozenset({"taints", "addresses"})
# `kubectl get nodes -o wide`'s header (kubernetes/kubernetes#46646), its columns as printed or some of them cut by the
# user (corpus 2078), and the System Info keys of its columns.
WIDE_HEAD = re.compile(r"^\s*NAME(?:\s{2,}[A-Z][A-Z-]*)*\s{2,}KERNEL-VERSION\b")
_WIDE_KEYS = {"VERSION": "kubelet", "OS-IMAGE": "os", "KERNEL-VERSION": "kernel", "CONTAINER-RUNTIME": "runtime"}
MAX_NODE_LINES = 5000  # a node's description is a few hundred lines; a longer one is read no further


@dataclass(frozen=True)
class NodeEntry:
    key: str
    value: str
    line: str  # as pasted, stripped


@dataclass(frozen=True)
class K8sNode:
    name: str = ""
    labels: tuple[NodeEntry, ...] = ()
    capacity: tuple[NodeEntry, ...] = ()
    allocatable: tuple[NodeEntry, ...] = ()
    # The Capacity section is shown and the paste goes on after it: a resource it does not list is absent.
    capacity_whole: bool = False
    system: tuple[NodeEntry, ...] = ()  # System Info / nodeInfo, keyed kernel, os, runtime, kubelet
    requested: tuple[NodeEntry, ...] = ()  # describe's Allocated resources rows of extended resources
    taints: tuple[str, ...] = ()
    # HAMi's register of the node's GPUs in its annotations (hami_entries): each GPU's model and the shares it is
    # split into; cut by kubectl (`...`) it lists only some GPUs.
    registered: tuple[tuple[str, int], ...] = ()
    registered_cut: bool = False
    registered_line: str = ""

    def label(self, key: str) -> NodeEntry | None:
        """The node's label of that key (`nvidia.com/gpu.product`), or None."""
        return next((e for e in self.labels if e.key == key), None)

    def _nvidia(self, *names: str) -> str:
        """The value of the first of GFD's labels `nvidia.com/<name>` shown, or ""."""
        return next((e.value for n in names if (e := self.label(f"nvidia.com/{n}")) is not None), "")

    def system_value(self, key: str) -> str:
        return next((e.value for e in self.system if e.key == key), "")

    @property
    def kernel(self) -> str:
        """The node's kernel release (System Info, else NFD's kernel label), or ""."""
        nfd = self.label(_NFD_KERNEL)
        return self.system_value("kernel") or (nfd.value if nfd is not None else "")

    @property
    def driver_version(self) -> str:
        """The driver's version GFD labels (`cuda.driver.major/minor/rev`, `cuda.driver-version.*`), or ""."""
        parts = [self._nvidia(f"cuda.driver.{p}", f"cuda.driver-version.{p}") for p in ("major", "minor", "rev")]
        if not parts[0] or not parts[1]:
            return ""
        return ".".join(p for p in parts if p)

    @property
    def gpu_product(self) -> str:
        """The GPU model GFD labels (`-SHARED` of time-slicing cut), or "" (a MIG slice's name). Where no product is
        labelled, the compute capability GFD labels (`gpu.compute.major/minor`) names it (gputable.capability_name)
        if no GPU of that capability has MIG: its `gpu.count` then counts whole GPUs, never slices."""
        if self.label("nvidia.com/gpu.product") is None:
            major, minor = self._nvidia("gpu.compute.major"), self._nvidia("gpu.compute.minor")
            name = capability_name(f"{major}.{minor}") if major.isdigit() and minor.isdigit() else ""
            return name if name and has_mig(name) is False else ""
        product = self._nvidia("gpu.product").removesuffix("-SHARED")
        return "" if "-MIG-" in product else product

    @property
    def gpu_count(self) -> int | None:
        """The GPUs GFD counts (whole GPUs: not under the `single` MIG strategy, which counts slices), or None."""
        count = self._nvidia("gpu.count")
        return int(count) if count.isdigit() and self.gpu_product else None

    @property
    def gpu_labelled(self) -> str:
        """The label line that says the node has an NVIDIA GPU (gpu.present=true, a GPU count above 0, a product),
        or ""."""
        for e in self.labels:
            if (e.key == "nvidia.com/gpu.present" and e.value == "true") or e.key == "nvidia.com/gpu.product" \
                    or (e.key == "nvidia.com/gpu.count" and e.value.isdigit() and int(e.value) > 0):
                return e.line
        return ""

    @staticmethod
    def gpu_resources(entries: tuple[NodeEntry, ...]) -> dict[str, NodeEntry]:
        return {e.key: e for e in entries if GPU_RESOURCE.match(e.key) and e.value.isdigit()}

    def withheld(self) -> tuple[NodeEntry, NodeEntry] | None:
        """A GPU resource the node's allocatable counts below its capacity: (capacity's, allocatable's) entries, or
        None where none is shown so. The device plugin reports the devices between the two unhealthy: all of them at
        allocatable 0 (corpus 1725), one at capacity 8 and allocatable 7 (NVIDIA/k8s-device-plugin#125)."""
        offered = self.gpu_resources(self.allocatable)
        for key, cap in self.gpu_resources(self.capacity).items():
            if key in offered and int(offered[key].value) < int(cap.value):
                return cap, offered[key]
        return None

    def zeroed(self) -> NodeEntry | None:
        """The capacity entry of a GPU resource the node counts at 0 where no GPU resource it lists counts one (a
        MIG node's `nvidia.com/gpu: 0` beside its `nvidia.com/mig-1g.5gb: 7` is its GPUs partitioned), or None. The
        kubelet lists a resource only once a device plugin registered it, and keeps it at 0 where the plugin reports
        no device or went away (NVIDIA/k8s-device-plugin#1228, corpus 1979)."""
        zero = next((e for e in self.gpu_resources(self.capacity).values() if int(e.value) == 0), None)
        if zero is None or any(ANY_GPU_RESOURCE.search(e.key) and e.value.strip("0")
                               for e in (*self.capacity, *self.allocatable)):
            return None
        return zero

    @property
    def no_gpu_capacity(self) -> bool:
        """Whether the node's whole Capacity lists no GPU resource above 0 (no device plugin registered one; another
        plugin's GPU resource, `aliyun.com/gpu-mem`, counts as one)."""
        return self.capacity_whole and not any(ANY_GPU_RESOURCE.search(e.key) and e.value.strip("0")
                                               for e in self.capacity)

    def unoffered(self) -> str:
        """The label line saying the node has a GPU where its whole Capacity lists no GPU resource above 0
        (no_gpu_capacity), or ""."""
        return self.gpu_labelled if self.no_gpu_capacity else ""

    def offered(self) -> tuple[NodeEntry, ...]:
        """The node's GPU resources where each is allocatable as counted in capacity, above 0 (the allocatable
        entries); () where one is withheld in part or whole, or none is shown in both."""
        cap, alloc = self.gpu_resources(self.capacity), self.gpu_resources(self.allocatable)
        if not cap or set(cap) != set(alloc):
            return ()
        if any(int(c.value) == 0 or c.value != alloc[k].value for k, c in cap.items()):
            return ()
        return tuple(alloc[k] for k in cap)

    def taken(self) -> tuple[NodeEntry, ...]:
        """The Allocated resources rows where the pods on the node request every device of a GPU resource its
        allocatable offers, above 0 (`nvidia.com/gpu  1  1` against allocatable 1): no device of it is free, each
        one held whole by a pod (the device plugin hands a device to one pod). () where any GPU resource offered is
        not all requested, or the node shows no allocatable GPU or no requests."""
        alloc, asked = self.gpu_resources(self.allocatable), self.gpu_resources(self.requested)
        if not alloc or any(int(a.value) == 0 or k not in asked or int(asked[k].value) < int(a.value)
                            for k, a in alloc.items()):
            return ()
        return tuple(asked[k] for k in alloc)

    @property
    def shown_gpu_resources(self) -> dict[str, NodeEntry]:
        """The GPU resources the node's Capacity lists, else its Allocatable's (gpu_resources)."""
        return self.gpu_resources(self.capacity) or self.gpu_resources(self.allocatable)

    @property
    def most_gpus(self) -> int | None:
        """The most GPU devices one pod can be handed on the node: the sum of the GPU resources its Capacity counts
        (else its Allocatable), time-slicing's replicas and MIG slices each one device; else the whole GPUs GFD counts
        (gpu_count); else the GPUs HAMi's register lists, where kubectl did not cut it; None where none shows one. A count of 1 is one GPU, or one replica or slice of it."""
        shown = self.shown_gpu_resources
        if shown or self.gpu_count is not None or self.registered_cut:
            return sum(int(e.value) for e in shown.values()) if shown else self.gpu_count
        # HAMi hands a container its GPUs' shares each on another GPU: at most the GPUs its register lists whole.
        return len(self.registered) or None

    @property
    def device_line(self) -> str:
        """The node's first GPU resource line (capacity's, else allocatable's), else GFD's `gpu.count` label line, else
        HAMi's register line."""
        shown = self.shown_gpu_resources
        count = self.label("nvidia.com/gpu.count")
        return next(iter(shown.values())).line if shown else count.line if count is not None else self.registered_line

    @property
    def gpu_node(self) -> bool:
        """Whether the node shows a GPU: a GFD label, a GPU resource, or HAMi's register of one."""
        return bool(self.gpu_labelled or self.shown_gpu_resources or self.registered)


@dataclass(frozen=True)
class K8sNodes:
    nodes: tuple[K8sNode, ...]

    @property
    def gpu_nodes(self) -> tuple[K8sNode, ...]:
        return tuple(n for n in self.nodes if n.gpu_node)

    def single_gpu(self) -> tuple[K8sNode, ...]:
        """The GPU nodes shown where each offers one GPU device in all (K8sNode.most_gpus 1: one GPU, or one replica
        or MIG slice of it): no pod there is handed two; () where any GPU node shown offers more, or none shows one."""
        gpu = self.gpu_nodes
        return gpu if gpu and all(n.most_gpus == 1 for n in gpu) else ()

    @staticmethod
    def device_lines(nodes: tuple[K8sNode, ...]) -> str:
        """The first GPU resource line of each node (K8sNode.device_line), up to three, joined."""
        return "; ".join(n.device_line for n in nodes[:3])

    def taken(self) -> tuple[tuple[K8sNode, tuple[NodeEntry, ...]], ...]:
        """Each GPU node with the Allocated resources rows that take every GPU it offers (K8sNode.taken); () where
        any GPU node shown has one free, or shows no requests."""
        shown = [(n, n.taken()) for n in self.gpu_nodes]
        return tuple(shown) if shown and all(rows for _, rows in shown) else ()

    def withheld(self) -> tuple[K8sNode, NodeEntry, NodeEntry] | None:
        """The first GPU node whose allocatable holds back devices of a GPU resource its capacity counts
        (K8sNode.withheld), with the two entries; None where none does."""
        return next(((n, *pair) for n in self.gpu_nodes if (pair := n.withheld()) is not None), None)

    def zeroed(self) -> tuple[K8sNode, NodeEntry] | None:
        """The first GPU node whose capacity counts its GPU resource at 0 and no other (K8sNode.zeroed), with the
        entry; None where none does."""
        return next(((n, e) for n in self.gpu_nodes if (e := n.zeroed()) is not None), None)

    def unoffered(self) -> tuple[K8sNode, str] | None:
        """The first node labelled with a GPU whose whole Capacity lists none (K8sNode.unoffered), with the label
        line; None where none is."""
        return next(((n, line) for n in self.gpu_nodes if (line := n.unoffered())), None)

    def unserved(self) -> K8sNode | None:
        """The one node shown where its whole Capacity lists no GPU resource above 0 (K8sNode.no_gpu_capacity), or
        None: several nodes shown (a GPU another source lists may be another node's), or its Capacity cut."""
        return self.nodes[0] if len(self.nodes) == 1 and self.nodes[0].no_gpu_capacity else None

    def offered(self) -> tuple[tuple[K8sNode, tuple[NodeEntry, ...]], ...]:
        """Each GPU node with the GPU resources it offers whole (K8sNode.offered); () where any GPU node shown
        withholds one or shows none in both capacity and allocatable."""
        shown = [(n, n.offered()) for n in self.gpu_nodes]
        return tuple(shown) if shown and all(entries for _, entries in shown) else ()

    @property
    def one_gpu_node(self) -> K8sNode | None:
        """The one node that shows a GPU, or None (none, or several: each its own host)."""
        gpu = self.gpu_nodes
        return gpu[0] if len(gpu) == 1 else None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _read_node(lines: list[str]) -> K8sNode:
    """One node's sections, read by indentation: a section's entries lie deeper than its header (a YAML list's items
    at its depth too), and the first line no deeper ends it."""
    found: dict[str, list[NodeEntry]] = {"labels": [], "capacity": [], "allocatable": [], "system": [],
                                         "requested": [], "taints": [], "addresses": []}
    name = ""
    section, depth = "", 0
    capacity_whole = False
    for line in lines[:MAX_NODE_LINES]:
        if not line.strip():
            continue
        if (m := DESCRIBE_NAME.match(line)) is not None and not name:
            name = m.group("name")
        indent = _indent(line)
        if section and (indent > depth or (section in _LIST_SECTIONS and indent == depth
                                           and line.lstrip().startswith("- "))):
            _add(found, section, line)
            continue
        if section == "capacity":
            capacity_whole = True
        section = ""
        if (head := SECTION.match(line)) is not None:
            section = {"system info": "system", "nodeinfo": "system", "allocated resources": "requested"}.get(
                head.group("name").lower(), head.group("name").lower())
            depth = len(head.group("indent"))
            rest = head.group("rest").strip()
            if rest and rest not in ("{", "[", "<none>"):
                _add(found, section, line[:len(head.group("indent"))] + "  " + rest)
        elif BARE_LABEL.match(line):
            _add(found, "labels", line)
    hostname = next((e.value for e in found["labels"] if e.key == "kubernetes.io/hostname"), "") \
        or _address_hostname(found["addresses"])
    registered, cut, said = hami_entries("\n".join(lines[:MAX_NODE_LINES]))
    return K8sNode(name or hostname, tuple(found["labels"]), tuple(found["capacity"]), tuple(found["allocatable"]),
                   capacity_whole, tuple(found["system"]), tuple(found["requested"]),
                   tuple(e.line for e in found["taints"]), registered, cut, said)


def _address_hostname(entries: list[NodeEntry]) -> str:
    """The Hostname of a node's addresses: describe's `Hostname: x`, the object's `- address: x` beside its
    `type: Hostname` (either first)."""
    for i, e in enumerate(entries):
        if e.key == "Hostname":
            return e.value
        if e.key == "type" and e.value == "Hostname":
            pair = [x for x in entries[max(i - 1, 0):i + 2] if x.key == "address"]
            if pair:
                return pair[0].value
    return ""


def _add(found: dict[str, list[NodeEntry]], section: str, line: str) -> None:
    if section == "requested":
        row = ALLOCATED_ROW.match(line)
        if row is not None:
            found[section].append(NodeEntry(row.group("key"), row.group("value"), line.strip()))
        return
    if section == "taints":
        found[section].append(NodeEntry("", "", line.strip()))
        return
    entry = ENTRY.match(line)
    if entry is None:
        return
    key = entry.group("key").strip()
    if section == "system":
        key = _SYSTEM_KEYS.get(key.lower(), "")
        if not key:
            return
    found[section].append(NodeEntry(key, entry.group("value").strip(), line.strip()))


def wide_nodes(lines: list[str]) -> tuple[K8sNode, ...]:
    """The nodes of `kubectl get nodes -o wide`: each row under its header whose cells (split at two spaces or more)
    match the header's columns one to one, its kubelet, OS image, kernel and runtime as System Info. A row cut short
    shows fewer cells and is not read."""
    nodes: list[K8sNode] = []
    columns: list[str] = []
    for line in lines[:MAX_NODE_LINES]:
        if WIDE_HEAD.match(line):
            columns = line.split()
            continue
        if not line.strip():
            columns = []  # a blank line ends the table
        cells = re.split(r"\s{2,}", line.strip())
        if not columns or len(cells) != len(columns):
            continue
        system = tuple(NodeEntry(_WIDE_KEYS[c], v, line.strip()) for c, v in zip(columns, cells, strict=True)
                       if c in _WIDE_KEYS and v != "<none>")
        nodes.append(K8sNode(cells[0], system=system))
    return tuple(nodes)


def parse_k8s_nodes(text: str) -> K8sNodes:
    """The nodes of a pasted `kubectl describe node`, `kubectl get node -o yaml|json` or `kubectl get nodes -o wide`;
    ParseError where none shows a label, a resource, an allocated resource, its system info or HAMi's register of
    its GPUs (hami_registered: a node object cut inside its annotations, corpus 2407)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if DESCRIBE_NAME.match(line) or NODE_KIND.match(line)]
    bounds = sorted({0, *starts})
    pieces = [lines[a:b] for a, b in zip(bounds, [*bounds[1:], len(lines)], strict=True)]
    nodes = wide_nodes(lines) + tuple(n for piece in pieces if (n := _read_node(piece)).labels or n.capacity
                                      or n.allocatable or n.system or n.requested or n.registered)
    if not nodes:
        raise ParseError("no node label, resource, allocated resource, system info or HAMi register")
    return K8sNodes(nodes)


fact("k8s_nodes", K8sNodes, hint=K8S_NODE.hint)

# Where the GPU inventory's count and model come from.
GFD_TITLE = "GPU feature discovery's node labels"
RESOURCE_TITLE = "the node's one GPU device (its nvidia.com/gpu resource)"
# A Kubernetes node's volume limit that only an Azure VM reports: the Azure Disk plugin counts the data disks its VM
# size may attach (`attachable-volumes-azure-disk: 24` on an NC6, corpus 1958), as GCE's persistent-disk plugin does on
# a Compute Engine VM. EBS's limit is left out: EC2's `.metal` instances attach EBS volumes too.
VM_VOLUME_LIMITS = {"attachable-volumes-azure-disk": ("microsoft", "an Azure VM: the Azure Disk plugin's limit of the "
                                                                   "VM size's data disks"),
                    "attachable-volumes-gce-pd": ("google", "a Compute Engine VM: the GCE persistent-disk plugin's "
                                                            "limit of the VM's disks")}


def node_vm(text: str) -> tuple[str, str] | None:
    """(the hypervisor, why) where a pasted node's Capacity or Allocatable lists a volume limit that only a cloud's VM
    reports (VM_VOLUME_LIMITS), on every node shown; None otherwise."""
    nodes = parse_k8s_nodes(text).nodes
    found = [next((e for e in (*n.capacity, *n.allocatable) if e.key in VM_VOLUME_LIMITS), None) for n in nodes]
    vms = {VM_VOLUME_LIMITS[e.key][0] for e in found if e is not None}
    if not found or any(e is None for e in found) or len(vms) != 1:
        return None
    entry = next(e for e in found if e is not None)
    return VM_VOLUME_LIMITS[entry.key][0], f"the node's `{entry.line}`: {VM_VOLUME_LIMITS[entry.key][1]}"

@parser(K8S_NODE, feeds="k8s_nodes", kind=K8sNodes, rank=10)
def k8s_nodes_from_paste(text: str) -> K8sNodes:
    """The nodes of a pasted `kubectl describe node` or `kubectl get node -o yaml|json`: labels, GPU resources
    (capacity, allocatable, requested), taints, system info.

    Input (tests/data/captures/1725, NVIDIA/k8s-device-plugin#58)::

          allocatable:
            nvidia.com/gpu: "0"
          capacity:
            nvidia.com/gpu: "16"
    """
    return parse_k8s_nodes(text)


def _one_gpu_node(text: str) -> K8sNode:
    """The one node of the paste that shows a GPU; ParseError where none does or several do (each its own host)."""
    node = parse_k8s_nodes(text).one_gpu_node
    if node is None:
        raise ParseError("no one GPU node")
    return node


HAMI_TITLE = "HAMi's node-nvidia-register annotation"
# HAMi's device plugin registers the node's GPUs in an annotation (`hami.io/node-nvidia-register`): one
# `UUID,split count,memory MiB,cores %,type,NUMA node,healthy[,index,mode]` entry a GPU, `:` after each, or newer
# releases' JSON array of `{"id":...,"type":...}` objects; the type is the vendor before the device's name
# (`NVIDIA-NVIDIA A100-PCIE-40GB`, `NVIDIA-Tesla P4`). kubectl describe cuts a long value with `...`; YAML may fold it
# over lines (Project-HAMi/HAMi#314, corpus 2171; HAMi's docs' `NVIDIA-Tesla V100-PCIE-32GB` and `NVIDIA-NVIDIA A40`).
HAMI_KEY = re.compile(r"hami\.io/node-nvidia-register:")
_HAMI_NEXT_KEY = re.compile(r"^\s*(?:[\w.-]+/)?[\w.-]+:(?:\s|$)|^\S")
_HAMI_ENTRY = re.compile(r"GPU-[0-9a-fA-F-]+,(?P<split>\d+),\d+,\d+,NVIDIA-(?P<model>[^,:\n'\"]+),-?\d+,(?:true|false)"
                         r"(?=[,:'\"\s]|$)|\{[^{}]*?\"type\":\"NVIDIA-(?P<json>[^\"]+)\"[^{}]*\}")
_HAMI_JSON_COUNT = re.compile(r"\"count\":(\d+)")
MAX_HAMI_LINES = 64


def hami_entries(text: str) -> tuple[tuple[tuple[str, int], ...], bool, str]:
    """The GPUs HAMi's register annotation of a node lists whole (_HAMI_ENTRY), each as its model and the shares it
    is split into (the count after its UUID, JSON's `count`; 0 where not shown); whether kubectl cut the value (`...`:
    it lists only some of the node's GPUs); and the annotation's line, stripped. ((), False, "") where no entry is
    whole."""
    m = HAMI_KEY.search(text)
    if m is None:
        return (), False, ""
    lines = text[m.end():].splitlines()[:MAX_HAMI_LINES]
    value = lines[0] if lines else ""
    for line in lines[1:]:
        if line.strip() and _HAMI_NEXT_KEY.match(line) and not line.strip().startswith(("GPU-", "[", "{")):
            break
        value += " " + line.strip()
    entries = []
    for e in _HAMI_ENTRY.finditer(value):
        model = (e.group("model") or e.group("json") or "").strip()
        split = e.group("split") or ((c := _HAMI_JSON_COUNT.search(e.group(0))) and c.group(1)) or "0"
        if model:
            entries.append((model, int(split)))
    if not entries:
        return (), False, ""
    start = text.rfind("\n", 0, m.start()) + 1
    return (tuple(entries[:256]), value.rstrip().rstrip("'\"").endswith("..."),
            " ".join((text[start:m.end()] + " " + value).split())[:200])


def hami_registered(text: str) -> GpuInventory | None:
    """The GPUs HAMi's register annotation of a node lists (hami_entries), each with its model; a value cut by kubectl
    (`...`) lists only some of the node's GPUs: its count is a lower bound. None where no entry is whole."""
    entries, cut, _ = hami_entries(text)
    if not entries:
        return None
    records = tuple(GpuRecord(i, "", model, None, (HAMI_TITLE,)) for i, (model, _) in enumerate(entries))
    return GpuInventory(gpus=records, counts=((HAMI_TITLE, len(records)),),
                        partial=((HAMI_TITLE, "kubectl cut the annotation's value"),) if cut else ())


@parser(K8S_NODE, feeds="gpus", kind=GpuInventory, rank=80)
def gpus_from_node_labels(text: str) -> GpuInventory:
    """The GPUs GPU feature discovery labels on the one GPU node shown: count (`nvidia.com/gpu.count`) and model
    (`nvidia.com/gpu.product`); not under the `single` MIG strategy, whose labels count slices. Without them, on the
    one node shown, the GPUs HAMi's register annotation lists (hami_registered).

    Input (NVIDIA/k8s-device-plugin#1501)::

                        nvidia.com/gpu.count=8
                        nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
    """
    nodes = parse_k8s_nodes(text).nodes
    # One node shown, GFD counting none of its GPUs: HAMi's register annotation lists them with their model.
    if len(nodes) == 1 and nodes[0].gpu_count is None and (hami := hami_registered(text)) is not None:
        return hami
    node = _one_gpu_node(text)
    count = node.gpu_count
    if count is None and node.most_gpus == 1:
        # Without GFD's labels, a node whose resources count one GPU device in all (its Capacity, else Allocatable):
        # one GPU, whatever shares it (time-slicing's replicas and MIG's slices each count one device or more).
        return GpuInventory(gpus=(GpuRecord(0, "", "", None, (RESOURCE_TITLE,)),), counts=((RESOURCE_TITLE, 1),))
    if count is None:
        raise ParseError("no GPU count and model labelled")
    records = tuple(GpuRecord(i, "", node.gpu_product, None, (GFD_TITLE,)) for i in range(count))
    return GpuInventory(gpus=records, counts=((GFD_TITLE, count),))


@parser(K8S_NODE, feeds="time_slicing", kind=TimeSlicing, rank=11)
def shares_from_hami_register(text: str) -> TimeSlicing:
    """The shares HAMi's register annotation splits each of the node's GPUs into (hami_entries): its device plugin
    offers each GPU to that many pods, as time-slicing's replicas do.

    Input (tests/data/captures/2407)::

        hami.io/node-nvidia-register: 'GPU-220d2c17-3969-3911-209a-e08aa68ab060,10,6144,100,NVIDIA-NVIDIA
          GeForce RTX 2060,0,true,0,hami-core:'
    """
    nodes = [n for n in parse_k8s_nodes(text).nodes if n.registered]
    if not nodes:
        raise ParseError("no HAMi register annotation")
    return TimeSlicing(tuple(dict.fromkeys(e for n in nodes for e in n.registered)),
                       tuple(n.registered_line for n in nodes), "HAMi's register of the node's GPUs")


@parser(K8S_NODE, feeds="kernel", kind=KernelInfo, rank=65)
def kernel_from_node(text: str) -> KernelInfo:
    """The kernel release of the one GPU node shown (System Info's `Kernel Version`, nodeInfo's `kernelVersion`).

    Input (modelled on `kubectl describe node`)::

          Kernel Version:             5.15.0-1034-aws
    """
    node = _one_gpu_node(text)
    if not node.kernel:
        raise ParseError("no kernel version shown")
    return KernelInfo(node.kernel, hostname=node.name)


@parser(K8S_NODE, feeds="nvidia_driver", kind=NvidiaDriver, rank=48)
def driver_from_node_labels(text: str) -> NvidiaDriver:
    """The driver version GPU feature discovery labels on the one GPU node shown (`nvidia.com/cuda.driver.major`,
    `.minor`, `.rev`): GFD reads it from NVML, so the driver is loaded.

    Input (modelled on GFD's labels)::

                        nvidia.com/cuda.driver.major=535
                        nvidia.com/cuda.driver.minor=104
                        nvidia.com/cuda.driver.rev=05
    """
    version = _one_gpu_node(text).driver_version
    if not version:
        raise ParseError("no driver version labelled")
    return NvidiaDriver(version, None, loaded=True)


@parser(K8S_NODE, feeds="mig_setup", kind=MigSetup, rank=11)
def mig_setup_from_node(text: str) -> MigSetup:
    """The node's MIG strategy label (`nvidia.com/mig.strategy=single`), the MIG manager's layout label and the MIG
    resources it offers (facts/mig_setup.MIG_SETUP_LINE).

    Input (NVIDIA/gpu-operator#981)::

        nvidia.com/mig.config: all-1g.5gb
    """
    return parse_mig_setup(text)


@parser(K8S_NODE, feeds="log_symptoms", kind=LogSymptoms, rank=31)
def symptoms_in_node(text: str) -> LogSymptoms:
    """The node's labels that are symptoms (facts/symptoms.py: GFD's `-MIG-INVALID` product, a GPU count of 0, the
    MIG manager's failed state).

    Input (modelled on NVIDIA/gpu-operator#479)::

                        nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB-MIG-INVALID
    """
    return LogSymptoms(find_symptoms(text.splitlines()))
