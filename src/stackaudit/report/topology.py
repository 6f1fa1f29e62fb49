"""The machine's topology as the pictures draw it: sockets (NUMA nodes), PCIe root ports and switches,
GPUs, NVSwitches and NICs, one edge per GPU pair with its `nvidia-smi topo -m` kind, and the
recommended tensor-parallel groups; `faults` puts the audit's findings on it (ACS redirect on a
bridge, a downtrained link, a lost GPU, a missing NVLink).

Built once from the facts at the end of an audit (`topology_from_facts`) and carried in the JSON
report as `topology` (docs/report.md), so that `stackaudit report RUN.json` re-renders the picture
without the host. The kinds are NCCL's path types as `nvidia-smi topo -m` prints them
(https://docs.nvidia.com/deploy/nvidia-smi/index.html, "topo"): NV# (NVLink, # bonded links), PIX
(one PCIe switch), PXB (several switches, no host bridge), PHB (a host bridge), NODE (host bridges
within one NUMA node), SYS (across the socket interconnect).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackaudit.engine.results import Result

KINDS = ("NV", "PIX", "PXB", "PHB", "NODE", "SYS")
_RANK = {"NV": 1, "PIX": 2, "PXB": 3, "PHB": 4, "NODE": 5, "SYS": 6}
# Past this many GPUs the best-group search (C(n, size)) is not worth it: no single host has more.
_MAX_SEARCH_GPUS = 16
FAULT_KINDS = ("acs-redirect", "downtrained", "lost", "missing-nvlink")


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
class Topology:
    sockets: tuple[Socket, ...] = ()
    bridges: tuple[Bridge, ...] = ()
    gpus: tuple[Gpu, ...] = ()
    devices: tuple[Device, ...] = ()
    pairs: tuple[Pair, ...] = ()
    pairs_from: str = ""  # "nvidia-smi topo -m" | "the PCI tree" | ""
    tp: TpGroups | None = None

    @property
    def drawable(self) -> bool:
        """Worth a picture: two GPUs or more, or a PCI tree."""
        return len(self.gpus) >= 2 or bool(self.bridges)

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
            "tp_groups": None if self.tp is None else {"size": self.tp.size, "basis": self.tp.basis,
                                                       "groups": [list(g) for g in self.tp.groups]},
        }


# --- from JSON (a saved report) --------------------------------------------------------------------


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _dicts(v: Any) -> list[dict[str, Any]]:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def topology_from_json(data: Any) -> Topology:
    """The topology a saved report carries; anything malformed is dropped, never raised (a picture is extra)."""
    if not isinstance(data, dict):
        return Topology()
    tp = data.get("tp_groups")
    groups: TpGroups | None = None
    if isinstance(tp, dict) and isinstance(tp.get("groups"), list):
        size = _int(tp.get("size")) or 0
        groups = TpGroups(size, _str(tp.get("basis")), tuple(
            tuple(_str(x) for x in g if isinstance(x, str)) for g in tp["groups"] if isinstance(g, list)))
    return Topology(
        sockets=tuple(Socket(n, _str(s.get("cpus"))) for s in _dicts(data.get("sockets"))
                      if (n := _int(s.get("node"))) is not None),
        bridges=tuple(Bridge(_str(b.get("bdf")), "switch" if b.get("kind") == "switch" else "root-port",
                             _str(b.get("parent")),
                             _int(b.get("numa")), tuple(_str(p) for p in b.get("ports") or [] if isinstance(p, str)))
                      for b in _dicts(data.get("bridges")) if _str(b.get("bdf"))),
        gpus=tuple(Gpu(_str(g.get("name")), _str(g.get("bdf")), _str(g.get("model")), _int(g.get("numa")),
                       _str(g.get("parent")), _str(g.get("link")), _str(g.get("lost")))
                   for g in _dicts(data.get("gpus")) if _str(g.get("name"))),
        devices=tuple(Device(_str(d.get("name")), "nvswitch" if d.get("kind") == "nvswitch" else "nic",
                             _str(d.get("bdf")), _str(d.get("label")),
                             _int(d.get("numa")), _str(d.get("parent")))
                      for d in _dicts(data.get("devices")) if _str(d.get("name"))),
        pairs=tuple(Pair(_str(p.get("a")), _str(p.get("b")), k, _str(p.get("cell")), _int(p.get("nvlinks")) or 0)
                    for p in _dicts(data.get("pairs")) if (k := _str(p.get("kind"))) in KINDS),
        pairs_from=_str(data.get("pairs_from")),
        tp=groups,
    )


# --- from the facts --------------------------------------------------------------------------------


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
    from stackaudit.facts.pci import PciDevices
    from stackaudit.facts.pcie_config import PcieFacts

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
    from stackaudit.facts.gpu_events import GpuEvents
    from stackaudit.facts.gpu_links import GpuLinks

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
    from stackaudit.facts.gpu_links import GpuLinks
    from stackaudit.facts.pcie_config import describe_speed

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

    left = list(names)
    out: list[tuple[str, ...]] = []
    if size < 2 or len(left) > _MAX_SEARCH_GPUS:
        return ()
    while len(left) >= size:
        best = min(itertools.combinations(left, size), key=cost)
        out.append(best)
        left = [g for g in left if g not in best]
    return tuple(out)


def _tp_groups(gpus: Sequence[Gpu], pairs: Sequence[Pair], parallelism: Any) -> TpGroups | None:
    from stackaudit.facts.parallelism import Parallelism

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


def topology_from_facts(facts: Mapping[str, Any]) -> Topology:
    """The topology from whatever of the facts the audit collected (any may be missing)."""
    from stackaudit.facts.gpus import GpuInventory
    from stackaudit.facts.pcie_config import PcieFacts
    from stackaudit.facts.rdma import RdmaDevices
    from stackaudit.facts.system import NumaTopology
    from stackaudit.facts.topology import TopoMatrix, link_kind, nvlink_count

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
    pairs: list[Pair] = []
    pairs_from = ""
    if topo is not None:
        pairs_from = "nvidia-smi topo -m"
        for a, b, cell in topo.gpu_pairs():
            kind = link_kind(cell)
            if kind in KINDS:
                pairs.append(Pair(a, b, kind, cell, nvlink_count(cell)))
    elif len(gpus) >= 2 and all(g.bdf in up for g in gpus):
        pairs_from = "the PCI tree"
        for ga, gb in itertools.combinations(gpus, 2):
            kind = _tree_kind(up[ga.bdf], up[gb.bdf], ga.numa, gb.numa)
            pairs.append(Pair(ga.name, gb.name, kind, kind))
    sockets: list[Socket] = []
    numa = facts.get("numa")
    if isinstance(numa, NumaTopology):
        sockets = [Socket(n.id, _cpulist(n.cpus)) for n in numa.nodes]
    seen = {s.node for s in sockets}
    for g in gpus:
        if g.numa is not None and g.numa not in seen:
            seen.add(g.numa)
            affinity = topo.cpu_affinity.get(g.name, "") if topo else ""
            sockets.append(Socket(g.numa, affinity))
    sockets.sort(key=lambda s: s.node)
    return Topology(tuple(sockets), tuple(sorted(bridges.values(), key=lambda b: b.bdf)), tuple(gpus), tuple(devices),
                    tuple(pairs), pairs_from, _tp_groups(gpus, pairs, facts.get("parallelism")))


def _cpulist(cpus: Iterable[int]) -> str:
    """(0, 1, 2, 5) -> "0-2,5"."""
    out: list[str] = []
    ordered = sorted(set(cpus))
    for _, run in itertools.groupby(enumerate(ordered), key=lambda t: t[1] - t[0]):
        values = [v for _, v in run]
        out.append(f"{values[0]}-{values[-1]}" if len(values) > 1 else str(values[0]))
    return ",".join(out)


# --- the findings on it ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    kind: str  # acs-redirect | downtrained | lost | missing-nvlink
    target: str  # a GPU name, a bridge BDF, or "GPU0-GPU2" for a pair
    check: str = ""  # the check that found it
    text: str = ""


@dataclass
class _Index:
    gpu_by_bdf: dict[str, str] = field(default_factory=dict)
    bridge_of_port: dict[str, str] = field(default_factory=dict)


def _index(topology: Topology) -> _Index:
    idx = _Index()
    for g in topology.gpus:
        if g.bdf:
            idx.gpu_by_bdf[g.bdf.lower()] = g.name
            idx.gpu_by_bdf[g.bdf.lower().removeprefix("0000:")] = g.name
        idx.gpu_by_bdf[g.name.lower()] = g.name
    for b in topology.bridges:
        idx.bridge_of_port[b.bdf.lower()] = b.bdf
        for p in b.ports:
            idx.bridge_of_port[p.lower()] = b.bdf
    return idx


def _gpu_of(subject: str, idx: _Index) -> str:
    s = subject.strip().lower()
    if s in idx.gpu_by_bdf:
        return idx.gpu_by_bdf[s]
    for token in s.replace(",", " ").split():
        if token in idx.gpu_by_bdf:
            return idx.gpu_by_bdf[token]
    return ""


def faults(topology: Topology, results: Iterable[Result]) -> list[Fault]:
    """Where the audit's findings sit on the picture: each mark names the node (or pair) it is drawn on."""
    idx = _index(topology)
    out: list[Fault] = []
    for g in topology.gpus:
        if g.lost:
            out.append(Fault("lost", g.name, "", f"{g.name} lost: {g.lost}"))
    lost = {f.target for f in out}
    by_id = {r.id: r for r in results if r.status == "issue"}
    acs = by_id.get("FW-ACS-P2P")
    for subject in acs.subjects if acs else ():
        bridge = idx.bridge_of_port.get(subject.lower())
        if bridge:
            out.append(Fault("acs-redirect", bridge, "FW-ACS-P2P", f"ACS redirect at {subject}"))
    down = by_id.get("PCIE-LINK-DOWNTRAIN")
    for subject in down.subjects if down else ():
        gpu = _gpu_of(subject, idx)
        if gpu and gpu not in lost:
            out.append(Fault("downtrained", gpu, "PCIE-LINK-DOWNTRAIN", f"{gpu} link below its capability"))
    for check in ("DRV-NVLINK-HEALTH", "IC-TOPO-READ"):  # NVML's link states; the matrix's missing NV# cells
        found = by_id.get(check)
        for gpu in dict.fromkeys(_gpu_of(s, idx) for s in (found.subjects if found else ())):
            if gpu:
                out.append(Fault("missing-nvlink", gpu, check, f"{gpu}: NVLink missing or inactive"))
    # On a host whose GPUs mostly meet over NVLink, a pair that does not is a link missing there.
    nv = [p for p in topology.pairs if p.kind == "NV"]
    if nv and len(nv) * 2 >= len(topology.pairs):
        for p in topology.pairs:
            if p.kind != "NV":
                out.append(Fault("missing-nvlink", f"{p.a}-{p.b}", "", f"{p.a}-{p.b} over {p.cell}, not NVLink"))
    return out
