"""The machine's topology: one fact that the headline, the checks, the pictures and the JSON read.

Sockets (NUMA nodes), PCIe root ports and switches, GPUs, NVSwitches and NICs, one edge per GPU pair
with its `nvidia-smi topo -m` kind, and the recommended tensor-parallel groups, combined from the PCI
tree (`pcie`, else `pci`), NVML's NVLink state (`nvidia`), `nvidia-smi topo -m` (`gpu_topology`),
`nvidia-smi nvlink -s` (`nvlink_status`) and NUMA (`numa`).
The kinds are NCCL's path types as `nvidia-smi topo -m` prints them
(https://docs.nvidia.com/deploy/nvidia-smi/index.html, "topo"): NV# (NVLink, # bonded links), PIX
(one PCIe switch), PXB (several switches, no host bridge), PHB (a host bridge), NODE (host bridges
within one NUMA node), SYS (across the socket interconnect).

A GPU pair's kind comes from the matrix where the source has one: it is the driver's own answer.
Without a matrix, NVLink comes from the link states and the PCIe path from the PCI tree.
NVML names each active link's far end (`nvmlDeviceGetNvLinkRemotePciInfo`): another GPU's BDF is a
direct link (an NVLink bridge pair), anything else an NVSwitch, which joins every GPU that reaches one.
`nvidia-smi nvlink -s` names no far end: its active links join the GPUs when an NVSwitch is on the PCI
bus, or when the host has exactly two GPUs.
The NUMA nodes are those the `numa` fact lists plus any a GPU sits on, so that the headline's count is
the count of sockets drawn.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.facts._parse import format_cpulist
from stackaudit.facts.gpu_events import GpuEvents
from stackaudit.facts.gpu_links import GpuLinks
from stackaudit.facts.gpus import GpuInventory
from stackaudit.facts.nvidia import NvidiaGpus
from stackaudit.facts.parallelism import Parallelism
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.pcie import PcieFacts, describe_speed
from stackaudit.facts.rdma import RdmaDevices
from stackaudit.facts.registry import FactContext, fact, first_of, provider
from stackaudit.facts.system import NumaTopology
from stackaudit.facts.topology import NvlinkStatus, TopoMatrix, best_partition, link_kind, nvlink_count

KINDS = ("NV", "PIX", "PXB", "PHB", "NODE", "SYS")
_RANK = {"NV": 1, "PIX": 2, "PXB": 3, "PHB": 4, "NODE": 5, "SYS": 6}
# Past this many GPUs the best-group search (C(n, size)) is not worth it: no single host has more.
_MAX_SEARCH_GPUS = 16


@dataclass(frozen=True)
class Socket:
    node: int  # the NUMA node id
    cpus: str = ""  # "0-63,128-191" where a source lists them


@dataclass(frozen=True)
class Bridge:
    bdf: str  # a root port's BDF, or a switch's upstream port
    kind: str  # root-port | switch
    parent: str = ""  # the bridge above (a switch's root port); "" for a root port
    numa: int | None = None
    ports: tuple[str, ...] = ()  # a switch's downstream ports on the GPUs' paths


@dataclass(frozen=True)
class Gpu:
    name: str  # GPU0 (the nvidia-smi index)
    bdf: str = ""
    model: str = ""
    numa: int | None = None
    parent: str = ""  # the bridge node it hangs on (root port or switch)
    link: str = ""  # "Gen5 x16" now
    lost: str = ""  # why the GPU is gone ("fallen off the bus", "Xid 79"), "" when it is not


@dataclass(frozen=True)
class Device:
    """An NVSwitch or a NIC."""

    name: str  # NIC0 / the BDF for an NVSwitch
    kind: str  # nic | nvswitch
    bdf: str = ""
    label: str = ""  # mlx5_0
    numa: int | None = None
    parent: str = ""


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    kind: str  # NV PIX PXB PHB NODE SYS
    cell: str  # as printed: NV18, PIX, ...
    nvlinks: int = 0


@dataclass(frozen=True)
class TpGroups:
    size: int
    basis: str  # "engine TP", "GPUs per socket"
    groups: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class MachineTopology:
    """The machine as the pictures draw it and the headline counts it: sockets, the PCI tree's bridges,
    GPUs, NVSwitches and NICs, every GPU pair's path, and the recommended TP groups."""

    sockets: tuple[Socket, ...] = ()
    bridges: tuple[Bridge, ...] = ()
    gpus: tuple[Gpu, ...] = ()
    devices: tuple[Device, ...] = ()
    pairs: tuple[Pair, ...] = ()
    pairs_from: str = ""  # the sources of the pairs: "nvidia-smi topo -m", "NVML NVLink state and the PCI tree", ...
    numa_known: bool = False  # the `numa` fact answered: the sockets are all the NUMA nodes, not only the GPUs'
    tp: TpGroups | None = None
    # NUMA nodes the source proves beyond the sockets drawn, without saying which: every GPU of the matrix on one node
    # whose CPU list leaves lower CPUs out (`TopoMatrix.cpus_of_another_node`, corpus 1395) proves one more.
    other_nodes: int = 0

    @property
    def drawable(self) -> bool:
        """Worth a picture: two GPUs or more, or a PCI tree."""
        return len(self.gpus) >= 2 or bool(self.bridges)

    @property
    def numa_nodes(self) -> int | None:
        """The NUMA node count the headline shows: the sockets drawn, when the `numa` fact was read."""
        return len(self.sockets) if self.numa_known and self.sockets else None

    @property
    def numa_nodes_seen(self) -> int:
        """The NUMA nodes the source names (the `numa` fact's, the GPUs'): all of them only when `numa_nodes` is
        not None; a lower bound otherwise (GPUs on nodes 0 and 1 prove two)."""
        return sum(1 for s in self.sockets if s.node >= 0) + self.other_nodes

    def group_path(self, size: int) -> str | None:
        """The slowest pair kind (NV PIX PXB PHB NODE SYS) inside a TP group of `size` GPUs: the recommended
        group of that size where there is one, else the first `size` GPUs still on the bus; None when the
        source gives no pair of them."""
        if self.tp is not None and self.tp.size == size and self.tp.groups:
            members = set(self.tp.groups[0])
        else:
            members = {g.name for g in sorted(self.gpus, key=lambda g: _gpu_index(g.name)) if not g.lost}
            members = set(sorted(members, key=_gpu_index)[:size])
        kinds = [p.kind for p in self.pairs if p.a in members and p.b in members]
        if size < 2 or len(members) < size or not kinds:
            return None
        return max(kinds, key=lambda kind: _RANK[kind])

    def to_json(self) -> dict[str, Any]:
        return {
            "sockets": [{"node": s.node, "cpus": s.cpus} for s in self.sockets],
            "bridges": [{"bdf": b.bdf, "kind": b.kind, "parent": b.parent or None, "numa": b.numa,
                         "ports": list(b.ports)} for b in self.bridges],
            "gpus": [{"name": g.name, "bdf": g.bdf or None, "model": g.model, "numa": g.numa,
                      "parent": g.parent or None, "link": g.link, "lost": g.lost or None} for g in self.gpus],
            "devices": [{"name": d.name, "kind": d.kind, "bdf": d.bdf or None, "label": d.label, "numa": d.numa,
                         "parent": d.parent or None} for d in self.devices],
            "pairs": [{"a": p.a, "b": p.b, "kind": p.kind, "cell": p.cell, "nvlinks": p.nvlinks} for p in self.pairs],
            "pairs_from": self.pairs_from,
            "numa_known": self.numa_known,
            "tp_groups": None if self.tp is None else {"size": self.tp.size, "basis": self.tp.basis,
                                                       "groups": [list(g) for g in self.tp.groups]},
        }



# --- from the facts -------------------------------------------------------------------------------


def _gpu_index(name: str) -> int:
    return int(name[3:]) if name[3:].isdecimal() else 1 << 30


def _switch_chain(upstream: Sequence[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(node bdf, its parent node, its ports) along a device's path: the root port, then one switch per
    upstream/downstream port pair below it (a switch is named by its upstream port)."""
    if not upstream:
        return []
    nodes: list[tuple[str, str, tuple[str, ...]]] = [(upstream[0], "", ())]
    for i in range(1, len(upstream), 2):
        ports = (upstream[i + 1],) if i + 1 < len(upstream) else ()
        nodes.append((upstream[i], nodes[-1][0], ports))
    return nodes


def _pci_tree(pci: Any) -> tuple[dict[str, tuple[str, ...]], dict[str, str], dict[str, int | None]]:
    """{bdf: upstream}, {bdf: role}, {bdf: numa} from the `pcie` fact (PcieFacts) or the `pci` fact (PciDevices)."""

    up: dict[str, tuple[str, ...]] = {}
    role: dict[str, str] = {}
    numa: dict[str, int | None] = {}
    if isinstance(pci, PcieFacts):
        for f in pci.functions:
            up[f.bdf], role[f.bdf] = f.upstream, f.role
            node = f.sysfs.numa_node if f.sysfs else (f.lspci.numa_node if f.lspci else None)
            numa[f.bdf] = node if node is not None and node >= 0 else None
    elif isinstance(pci, PciDevices):
        for d in pci.devices:
            up[d.bdf], role[d.bdf] = d.upstream, d.role
            numa[d.bdf] = d.numa_node if d.numa_node is not None and d.numa_node >= 0 else None
    return up, role, numa


def _lost_gpus(gpu_events: Any, gpu_links: Any) -> dict[str, str]:

    out: dict[str, str] = {}
    if isinstance(gpu_events, GpuEvents):
        for e in gpu_events.events:
            if e.kind in ("fallen-off-bus", "lost", "probe-failed"):
                out.setdefault(e.bdf, e.kind.replace("-", " "))
            elif e.kind == "xid" and e.code == 79:
                out.setdefault(e.bdf, "Xid 79 (fallen off the bus)")
    if isinstance(gpu_links, GpuLinks):
        for g in gpu_links.links:
            if g.cur_width in (63, 255):
                out.setdefault(g.bdf, f"link width {g.cur_width}: the device no longer answers")
    return out


def _links(gpu_links: Any) -> dict[str, str]:

    if not isinstance(gpu_links, GpuLinks):
        return {}
    return {g.bdf: describe_speed(g.cur_speed, g.cur_width) for g in gpu_links.links
            if g.cur_speed is not None or g.cur_width is not None}


def _tree_kind(a: Sequence[str], b: Sequence[str], numa_a: int | None, numa_b: int | None) -> str:
    """The topo -m kind of two devices from their upstream bridges (when no matrix is in the source)."""
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    if a and b and common == len(a) == len(b):
        return "PIX"
    if common >= 2:  # below one root port, across switches
        return "PXB" if common < max(len(a), len(b)) - 1 else "PIX"
    if common == 1:
        return "PHB"
    if numa_a is not None and numa_a == numa_b:
        return "NODE"
    return "SYS"


def best_groups(names: Sequence[str], size: int, rank: Mapping[tuple[str, str], int]) -> tuple[tuple[str, ...], ...]:
    """Disjoint groups of `size` GPUs, each the closest (worst path, then sum of paths) of the GPUs left."""
    def cost(group: tuple[str, ...]) -> tuple[int, int]:
        ranks = [rank.get((a, b), rank.get((b, a), 9)) for a, b in itertools.combinations(group, 2)]
        return (max(ranks, default=0), sum(ranks))

    if size < 2 or len(names) > _MAX_SEARCH_GPUS:
        return ()
    return tuple(best_partition(names, size, cost))


def _tp_groups(gpus: Sequence[Gpu], pairs: Sequence[Pair], parallelism: Any) -> TpGroups | None:

    names = [g.name for g in gpus]
    if len(names) < 2:
        return None
    tp: int | None = None
    if isinstance(parallelism, Parallelism):
        tp = next((e.tp for e in parallelism.engines if e.tp), None)
    basis = "engine TP"
    if tp is None:
        per_socket: dict[int | None, int] = {}
        for g in gpus:
            per_socket[g.numa] = per_socket.get(g.numa, 0) + 1
        tp, basis = min(per_socket.values()), "GPUs per socket"
    if tp < 2 or tp > len(names):
        return None
    rank = {(p.a, p.b): _RANK[p.kind] for p in pairs}
    groups = (tuple(names),) if tp == len(names) else best_groups(names, tp, rank)
    return TpGroups(tp, basis, groups) if groups else None


def topology_from_facts(facts: Mapping[str, Any]) -> MachineTopology:
    """The topology from whichever of its facts the source shows (any may be missing)."""
    pcie = facts.get("pcie")
    up, role, numa_of = _pci_tree(pcie if isinstance(pcie, PcieFacts) and pcie.functions else facts.get("pci"))
    inventory = facts.get("gpus")
    topo = facts.get("gpu_topology")
    topo = topo if isinstance(topo, TopoMatrix) else None
    lost = _lost_gpus(facts.get("gpu_events"), facts.get("gpu_links"))
    links = _links(facts.get("gpu_links"))
    # GPUs by nvidia-smi index: the inventory's, then the matrix's names, then the PCI bus order.
    records: dict[str, tuple[str, str, int | None]] = {}
    if isinstance(inventory, GpuInventory):
        for r in inventory.gpus:
            if r.index is not None:
                records[f"GPU{r.index}"] = (r.bdf or "", r.model or "", r.numa_node)
    for name in topo.gpus if topo else ():
        records.setdefault(name, ("", "", None))
    if not records:
        bus_gpus = sorted(b for b, r in role.items() if r == "gpu")
        records = {f"GPU{i}": (b, "", None) for i, b in enumerate(bus_gpus)}
    # Bridges on the GPUs', NVSwitches' and NICs' paths.
    bridges: dict[str, Bridge] = {}
    parent_of: dict[str, str] = {}
    for bdf, chain in up.items():
        if role.get(bdf) not in ("gpu", "nvswitch", "nic"):
            continue
        nodes = _switch_chain(chain)
        for here, parent, ports in nodes:
            old = bridges.get(here)
            merged = tuple(sorted({*(old.ports if old else ()), *ports}))
            bridges[here] = Bridge(here, "root-port" if not parent else "switch", parent,
                                   numa_of.get(here) if numa_of.get(here) is not None else numa_of.get(bdf), merged)
        parent_of[bdf] = nodes[-1][0] if nodes else ""
    gpus: list[Gpu] = []
    for name in sorted(records, key=_gpu_index):
        bdf, model, node = records[name]
        if node is None or node < 0:
            node = topo.numa_node(name) if topo else None
        if node is None and bdf:
            node = numa_of.get(bdf)
        gpus.append(Gpu(name, bdf, model, node, parent_of.get(bdf, ""), links.get(bdf, ""), lost.get(bdf, "")))
    devices: list[Device] = [Device(b, "nvswitch", b, "", numa_of.get(b), parent_of.get(b, ""))
                             for b in sorted(up) if role.get(b) == "nvswitch"]
    nic_bdfs = sorted(b for b in up if role.get(b) == "nic")
    devices += [Device(f"NIC{i}", "nic", b, "", numa_of.get(b), parent_of.get(b, "")) for i, b in enumerate(nic_bdfs)]
    if topo is not None and not nic_bdfs:
        rdma = facts.get("rdma")
        names = rdma.names if isinstance(rdma, RdmaDevices) else ()
        for i, nic in enumerate(topo.nics):
            # Old drivers head the columns with the device names (mlx5_0) instead of NIC0 and a legend.
            name, label = (nic, topo.nic_names.get(nic, "")) if nic.startswith("NIC") else (f"NIC{i}", nic)
            # The matrix gives no NIC its NUMA node: a GPU one or two switches away (PIX/PXB) shares it.
            near = [g for g in topo.gpus if link_kind(topo.link(g, nic) or "") in ("PIX", "PXB")]
            devices.append(Device(name, "nic", "", label or (names[i] if i < len(names) else ""),
                                  topo.numa_node(near[0]) if near else None, ""))
    pairs, pairs_from = _pairs(gpus, topo, up, _nvlinks(gpus, facts.get("nvidia"), facts.get("nvlink_status"),
                                                        any(r == "nvswitch" for r in role.values())))
    sockets: list[Socket] = []
    numa = facts.get("numa")
    if isinstance(numa, NumaTopology):
        sockets = [Socket(n.id, format_cpulist(list(n.cpus))) for n in numa.nodes]
    seen = {s.node for s in sockets}
    for g in gpus:
        if g.numa is not None and g.numa not in seen:
            seen.add(g.numa)
            affinity = topo.cpu_affinity.get(g.name, "") if topo else ""
            sockets.append(Socket(g.numa, affinity))
    sockets.sort(key=lambda s: s.node)
    # The CPUs every GPU's list leaves out sit on a node the matrix does not name (FW-NUMA-NPS says so too).
    other = 1 if not isinstance(numa, NumaTopology) and topo is not None and topo.cpus_of_another_node() else 0
    return MachineTopology(tuple(sockets), tuple(sorted(bridges.values(), key=lambda b: b.bdf)), tuple(gpus),
                           tuple(devices), tuple(pairs), pairs_from, isinstance(numa, NumaTopology),
                           _tp_groups(gpus, pairs, facts.get("parallelism")), other)


def _pairs(gpus: Sequence[Gpu], topo: TopoMatrix | None, up: Mapping[str, Sequence[str]],
           nvlinks: tuple[dict[frozenset[str], int], str]) -> tuple[list[Pair], str]:
    """Every GPU pair with its kind, and the sources that gave them: the matrix where there is one (the
    driver's own answer); else NVLink from the link states and the PCIe path from the PCI tree."""
    if topo is not None:
        return [Pair(a, b, link_kind(cell), cell, nvlink_count(cell)) for a, b, cell in topo.gpu_pairs()
                if link_kind(cell) in KINDS], "nvidia-smi topo -m"
    bonded, links_from = nvlinks
    tree = len(gpus) >= 2 and all(g.bdf in up for g in gpus)
    pairs: list[Pair] = []
    for ga, gb in itertools.combinations(gpus, 2):
        if n := bonded.get(frozenset((ga.name, gb.name)), 0):
            pairs.append(Pair(ga.name, gb.name, "NV", f"NV{n}", n))
        elif tree:
            kind = _tree_kind(up[ga.bdf], up[gb.bdf], ga.numa, gb.numa)
            pairs.append(Pair(ga.name, gb.name, kind, kind))
    sources = [s for s, used in ((links_from, bool(bonded)), ("the PCI tree", tree and len(pairs) > len(bonded))) if used]
    return pairs, " and ".join(sources)


def _nvlinks(gpus: Sequence[Gpu], nvidia: Any, status: Any, nvswitch_on_bus: bool) -> tuple[
        dict[frozenset[str], int], str]:
    """{GPU pair: bonded NVLinks} from NVML's link states (`nvidia`), else `nvidia-smi nvlink -s`; and the source.

    NVML names each active link's far end: a GPU's BDF is a direct link, any other address an NVSwitch.
    Two GPUs that both reach NVSwitches meet over NVLink, bonded as the fewer of their switch links
    (`topo -m` prints NV18 between two H100 SXM on one NVSwitch fabric).
    Links whose far end no source names (`nvlink -s`, an NVML answer without one) count as switch links
    where an NVSwitch is on the PCI bus, and as a bridge between the two GPUs of a two-GPU host.
    """
    name_of = {g.bdf: g.name for g in gpus if g.bdf}
    names = {g.name for g in gpus}
    direct: dict[tuple[str, str], int] = {}
    switch: dict[str, int] = {}
    unnamed: dict[str, int] = {}
    source = ""
    if isinstance(nvidia, NvidiaGpus):
        for info in nvidia.gpus:
            here = name_of.get(info.bdf) or f"GPU{info.index}"
            if here not in names or not info.nvlinks:
                continue
            source = "NVML NVLink state"
            for link in info.nvlinks:
                if not link.active:
                    continue
                peer = name_of.get(link.remote_bdf, "")
                if peer and peer != here:
                    direct[here, peer] = direct.get((here, peer), 0) + 1
                elif link.remote_bdf:
                    switch[here] = switch.get(here, 0) + 1
                else:
                    unnamed[here] = unnamed.get(here, 0) + 1
    if not source and isinstance(status, NvlinkStatus):
        for pasted in status.gpus:
            if f"GPU{pasted.index}" in names and pasted.active:
                source = "`nvidia-smi nvlink -s`"
                unnamed[f"GPU{pasted.index}"] = pasted.active
    # Both ends of a direct link see it: the bond is the larger count (one end may be unreadable).
    bonded: dict[frozenset[str], int] = {}
    for (a, b), n in direct.items():
        bonded[frozenset((a, b))] = max(n, direct.get((b, a), 0))
    if unnamed and (nvswitch_on_bus or switch):
        for here, n in unnamed.items():
            switch[here] = switch.get(here, 0) + n
    elif len(unnamed) == 2 and len(names) == 2:
        bonded[frozenset(unnamed)] = min(unnamed.values())
    for a, b in itertools.combinations(sorted(switch, key=_gpu_index), 2):
        key = frozenset((a, b))
        bonded[key] = bonded.get(key, 0) + min(switch[a], switch[b])
    return bonded, source if bonded else ""


fact("machine_topology", MachineTopology, first_of)

# The facts the topology is combined from (the provider asks for each; any may be missing).
INPUTS = {"pcie": PcieFacts, "pci": PciDevices, "gpus": GpuInventory, "gpu_topology": TopoMatrix,
          "gpu_events": GpuEvents, "gpu_links": GpuLinks, "nvidia": NvidiaGpus, "nvlink_status": NvlinkStatus,
          "numa": NumaTopology, "rdma": RdmaDevices, "parallelism": Parallelism}


@provider("machine_topology", MachineTopology, title="the PCI tree, NVLink state, `nvidia-smi topo -m`, NUMA")
def machine_topology(ctx: FactContext) -> MachineTopology:
    """The machine's topology combined from the PCI tree, NVLink state, the topology matrix and NUMA."""
    return topology_from_facts({name: ctx.optional(name, kind) for name, kind in INPUTS.items()})
