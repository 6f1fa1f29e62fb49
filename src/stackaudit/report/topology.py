"""The pictures' inputs: the machine's topology and the audit's findings on it.

The topology is the fact `machine_topology` (facts/machine_topology.py), carried in the JSON report as
`topology` (docs/report.md); `topology_from_json` reads it back, so that `stackaudit report RUN.json`
re-renders the picture without the host.
`faults` puts the findings on it: ACS redirect on a bridge, a downtrained link, a lost GPU, a missing NVLink.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from stackaudit.engine.results import Result
from stackaudit.facts.machine_topology import (
    KINDS,
    Bridge,
    Device,
    Gpu,
    MachineTopology,
    Pair,
    Socket,
    TpGroups,
)

# --- from JSON (a saved report) --------------------------------------------------------------------


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _dicts(v: Any) -> list[dict[str, Any]]:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def topology_from_json(data: Any) -> MachineTopology:
    """The topology a saved report carries; anything malformed is dropped, never raised (a picture is extra)."""
    if not isinstance(data, dict):
        return MachineTopology()
    tp = data.get("tp_groups")
    groups: TpGroups | None = None
    if isinstance(tp, dict) and isinstance(tp.get("groups"), list):
        size = _int(tp.get("size")) or 0
        groups = TpGroups(size, _str(tp.get("basis")), tuple(
            tuple(_str(x) for x in g if isinstance(x, str)) for g in tp["groups"] if isinstance(g, list)))
    return MachineTopology(
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
        numa_known=data.get("numa_known") is True,
        tp=groups,
    )


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


def _index(topology: MachineTopology) -> _Index:
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


def faults(topology: MachineTopology, results: Iterable[Result]) -> list[Fault]:
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
