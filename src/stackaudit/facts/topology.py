"""GPU interconnect topology: `nvidia-smi topo -m`, `nvidia-smi topo -p2p <cap>`, `nvidia-smi nvlink -s`.

Parsers take the text as people paste it: with or without the header line (bug reports often cut
it, as in shared capture 09), with or without NIC rows and the legends, with the ANSI underline
codes nvidia-smi prints on a terminal, tabs or spaces, and a last row cut short.

The legend of `topo -m` (printed by nvidia-smi itself under the matrix; also in the knowledge
base, IC-TOPO-READ): `X` self; `SYS` PCIe plus the SMP interconnect between NUMA nodes;
`NODE` PCIe plus the interconnect between PCIe host bridges of one NUMA node; `PHB` PCIe plus a
host bridge; `PXB` several PCIe bridges without a host bridge; `PIX` at most one PCIe bridge;
`NV#` a bonded set of # NVLinks. Old drivers printed `SOC` where new ones print `SYS`.

`topo -p2p` cells: `OK`, `CNS` chipset not supported, `GNS` GPU not supported, `TNS` topology
not supported, `NS` not supported, `DR` disabled by regkey, `U` unknown.

Providers: `gpu_topology` runs `nvidia-smi topo -m` and `gpu_p2p` runs `nvidia-smi topo -p2p rw`
(each its own fact, so the engine runs them in parallel with everything else, each under a
timeout), only where the PCI bus shows an NVIDIA GPU. Pasted text is recorded verbatim under the
argv it shows (importers/topology.py); where no `topo -m` is in the source, `gpu_topology` takes the
matrix inside a pasted vLLM `collect_env` / SGLang `check_env` report, and `gpu_p2p` a pasted `-p2p r`,
`-p2p w` or a matrix whose command line is not shown. `nvlink_status` is read from a pasted or
recorded `nvidia-smi nvlink -s` only: live, NVLink state per link comes from NVML (the `nvidia`
fact), not from one more nvidia-smi process.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from stackaudit.facts._parse import NVSMI_GPU_LINE, ParseError, parse_cpulist
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.registry import (
    FactContext,
    FactUnavailable,
    Sourced,
    fact,
    first_of,
    parser,
    provider,
    read_source,
)
from stackaudit.facts.sources import NVSMI_NVLINK_S, NVSMI_P2P, NVSMI_P2P_UNNAMED, NVSMI_TOPO_M, USER_MACHINE
from stackaudit.gputable import all_gpus, bridge_domain
from stackaudit.host.base import NotCaptured
from stackaudit.host.source import Source

TOPO_ARGV = NVSMI_TOPO_M.argv
P2P_ARGV = NVSMI_P2P["rw"].argv
NVLINK_ARGV = NVSMI_NVLINK_S.argv
NVIDIA_SMI_TIMEOUT_S = 15.0

# Best first: NVLink, then PCIe paths from the closest to the farthest (NCCL's PATH_* order).
_RANK = {"X": 0, "NV": 1, "PIX": 2, "PXB": 3, "PHB": 4, "NODE": 5, "SYS": 6}
# The cells of `nvidia-smi topo -m`'s matrix (SOC: older drivers' SYS), and its rows' and columns' names (`mlx5_0`).
_CELLS = r"X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC"
_NAMES = r"GPU\d+|NIC\d+|mlx\d+_\d+"
_CELL = re.compile(rf"^({_CELLS})$")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\[(?:4|0|24|1|22)m")
_DEVICE = re.compile(r"^(GPU\d+|NIC\d+|mlx\d+_\w+)$")
_GPU = re.compile(r"^GPU(\d+)$")
# Two cells or two column names run together where a paste lost the tab between them (`NODEPXB`, `NIC8NIC9`).
_MERGED = re.compile(rf"(?:{_CELLS}){{2,}}|(?:{_NAMES}){{2,}}")
_MERGED_PART = re.compile(rf"{_CELLS}|{_NAMES}")
_P2P_CELL = re.compile(r"^(X|OK|CNS|GNS|TNS|NS|DR|U)$")


def clean(line: str) -> str:
    """A line without ANSI codes (nvidia-smi underlines the header on a terminal) or CR."""
    return _ANSI.sub("", line).replace("\r", "")


def link_kind(cell: str) -> str:
    """`NV18` -> `NV`; `SOC` (old drivers) -> `SYS`; others unchanged."""
    if cell.startswith("NV"):
        return "NV"
    return "SYS" if cell == "SOC" else cell


def link_rank(cell: str) -> int:
    """0 self, 1 NVLink, 2 PIX ... 6 SYS; 9 for anything unknown."""
    return _RANK.get(link_kind(cell), 9)


def _numa_nodes(value: str) -> tuple[int, ...]:
    """`0-1` -> (0, 1); `3` -> (3,); `N/A` or "" -> ()."""
    try:
        return parse_cpulist(value)
    except ParseError:
        return ()


def nvlink_count(cell: str) -> int:
    m = re.fullmatch(r"NV(\d+)", cell)
    return int(m.group(1)) if m else 0


@dataclass(frozen=True)
class NvlinkMesh:
    """The NVLink view of a `topo -m` matrix (derived from its NV# cells)."""

    peers: dict[str, dict[str, int]]  # GPU -> {peer reached over NVLink: bonded link count}
    linked: tuple[str, ...]  # GPUs with at least one NVLink peer
    isolated: tuple[str, ...]  # GPUs whose every GPU cell is shown (their row, else the others') and none is NV#
    full: bool  # two or more linked GPUs, each with NVLink to every other linked GPU


@dataclass(frozen=True)
class TopoMatrix:
    """`nvidia-smi topo -m`: one row per device, cells aligned with `columns`."""

    columns: tuple[str, ...]  # GPU0.., then NIC0.. (old drivers: mlx5_0 ...)
    rows: dict[str, tuple[str, ...]]  # device -> its cells, same order as columns (maybe short: cut row)
    cpu_affinity: dict[str, str] = field(default_factory=dict)  # GPU -> "0-55,112-167" (as printed)
    numa_affinity: dict[str, str] = field(default_factory=dict)  # GPU -> "0", "0-1", "N/A"
    gpu_numa_id: dict[str, str] = field(default_factory=dict)  # GPU -> own NUMA id (Grace/GB200), "N/A"
    nic_names: dict[str, str] = field(default_factory=dict)  # NIC0 -> mlx5_0 (NIC Legend)
    header_missing: bool = False  # the column names were inferred
    truncated: bool = False  # a row is shorter than the header (paste cut)
    lines: dict[str, str] = field(default_factory=dict)  # device -> its row as printed (evidence)
    pcie_paths_only: bool = False  # `nvidia-smi topo -mp`: PCIe paths only, no NV# even between NVLinked GPUs

    @property
    def gpus(self) -> tuple[str, ...]:
        names = [c for c in self.columns if _GPU.match(c)]
        names += [r for r in self.rows if _GPU.match(r) and r not in names]
        return tuple(sorted(names, key=lambda n: int(n[3:])))

    @property
    def nics(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if not _GPU.match(c))

    def link(self, a: str, b: str) -> str | None:
        """The cell for a -> b (or b -> a when a's row is cut short or missing)."""
        for row, col in ((a, b), (b, a)):
            cells = self.rows.get(row)
            if cells is not None and col in self.columns:
                i = self.columns.index(col)
                if i < len(cells):
                    return cells[i]
        return None

    def gpu_pairs(self) -> list[tuple[str, str, str]]:
        """(a, b, cell) for every GPU pair whose cell is known."""
        gpus = self.gpus
        out = []
        for i, a in enumerate(gpus):
            for b in gpus[i + 1:]:
                cell = self.link(a, b)
                if cell is not None:
                    out.append((a, b, cell))
        return out

    def nvlink_between_shown(self) -> bool:
        """Whether the matrix shows a GPU pair and every GPU pair it shows meets over NVLink (NV#)."""
        pairs = self.gpu_pairs()
        return bool(pairs) and all(link_kind(c) == "NV" for _, _, c in pairs)

    def rows_not_shown(self) -> tuple[str, ...]:
        """The GPUs of the matrix whose row is missing or cut short: what a paste cut part-way leaves out."""
        return tuple(g for g in self.gpus if len(self.rows.get(g, ())) < len(self.columns))

    def unshown_pairs(self) -> tuple[tuple[str, str], ...]:
        """The GPU pairs whose cell no row shows: the one part of a cut matrix that is not known.

        A cell is shown in either GPU's row (the matrix is symmetric), so the complete rows of a cut
        paste settle every pair they reach; only pairs of GPUs whose rows are both cut before the
        other's column stay unknown."""
        gpus = self.gpus
        return tuple((a, b) for i, a in enumerate(gpus) for b in gpus[i + 1:] if self.link(a, b) is None)

    def whole_rows(self) -> tuple[str, ...]:
        """The GPUs whose row shows its path to every other GPU (its NIC cells may be cut)."""
        gpu_columns = sum(1 for c in self.columns if _GPU.match(c))
        return tuple(g for g in self.gpus if len(self.rows.get(g, ())) >= gpu_columns)

    def nvlink_fabric(self) -> bool:
        """Whether a whole row bonds more NVLinks than any GPU has (the GPU table's most).

        Such a row's NV# cells count each GPU's links to NVSwitches, not links to one peer.
        On that fabric every GPU with an NV# cell reaches every other over NVLink.
        """
        return any(g in self.whole_rows() for g in self.fabric_rows())

    def fabric_rows(self) -> tuple[str, ...]:
        """The rows shown, whole or cut, whose NV# cells bond more NVLinks than any GPU has (the GPU table's most):
        a cut row's cells are a part of its links, so more than a GPU has shows NVSwitches as surely (corpus 1031:
        NV18 to four peers on H20)."""
        most = max((s.nvlink_links for s in all_gpus()), default=0)
        return tuple(g for g in self.gpus if g in self.rows and sum(self.nvlink_peers(g).values()) > most)

    def numa_hidden(self) -> bool:
        """Whether every GPU's NUMA affinity spans several nodes and no path is SYS: the sockets are not shown."""
        spans = [len(_numa_nodes(v)) > 1 for v in (self.numa_affinity.get(g, "") for g in self.gpus)]
        return bool(spans) and all(spans) and not any(link_kind(c) == "SYS" for _, _, c in self.gpu_pairs())

    def one_node(self) -> str:
        """The CPU list every GPU shares when the matrix shows one NUMA node, else "".

        One node shown: every GPU has its row and reports the same node and the same CPUs, one range from
        CPU 0 ("0-15"). Linux numbers a multi-node host's CPUs across its nodes first, so a node of such a
        host that has SMT siblings prints two ranges ("0-7,16-23"); one range from 0 shared by every GPU is
        what a one-node host prints (`lscpu` confirms it)."""
        gpus = self.gpus
        cpus = {self.cpu_affinity.get(g, "") for g in gpus}
        nodes = {self.numa_affinity.get(g, "") for g in gpus}
        if len(gpus) < 1 or self.rows_not_shown() or len(cpus) != 1 or len(nodes) != 1:
            return ""
        value, node = cpus.pop(), nodes.pop()
        return value if node.isdecimal() and re.fullmatch(r"0-\d+", value) else ""

    def cpus_of_another_node(self) -> list[int]:
        """The CPUs below the highest of the one list every GPU shares that the list leaves out (`0-31,64-95` beside
        `32-63,96-127`), where every GPU of the matrix reports the same NUMA node: Linux numbers a multi-node host's
        CPUs across its nodes first, so those sit on another node (FW-NUMA-NPS; the headline's lower bound of NUMA
        nodes counts that node). [] otherwise."""
        nodes = {g: self.numa_node(g) for g in self.gpus}
        if not nodes or None in nodes.values() or len(set(nodes.values())) != 1:
            return []
        sets = self.cpu_sets()
        lists = {sets.get(g) for g in self.gpus}
        cpus = lists.pop() if len(lists) == 1 else None
        return sorted(set(range(max(cpus) + 1)) - cpus) if cpus else []

    def cpu_sets(self) -> dict[str, frozenset[int]]:
        """Each GPU's CPU affinity as a set (GPUs whose list does not read are left out)."""
        out: dict[str, frozenset[int]] = {}
        for g, value in self.cpu_affinity.items():
            try:
                out[g] = frozenset(parse_cpulist(value))
            except ParseError:
                continue
        return out

    def fewer_nvlinks(self) -> tuple[int, list[tuple[str, str, str]]]:
        """The usual bonded NVLink count of the GPU pairs shown, and the NV# pairs that bond fewer links than it."""
        counts = Counter(int(c[2:]) for _, _, c in self.gpu_pairs() if c[2:].isdecimal())
        usual = counts.most_common(1)[0][0]
        return usual, [(a, b, c) for a, b, c in self.gpu_pairs()
                       if c.startswith("NV") and c[2:].isdecimal() and int(c[2:]) < usual]

    def cut_note(self) -> str:
        """`rows GPU6, GPU7 not shown (cut)`, or "" for a matrix whose GPU rows are all complete."""
        missing = self.rows_not_shown()
        return f"row{'s' if len(missing) > 1 else ''} {', '.join(missing)} not shown (cut)" if missing else ""

    def nvlink_peers(self, gpu: str) -> dict[str, int]:
        """Peers reached over NVLink and the bonded link count."""
        out = {}
        for other in self.gpus:
            if other != gpu:
                n = nvlink_count(self.link(gpu, other) or "")
                if n:
                    out[other] = n
        return out

    def nvlink_mesh(self) -> NvlinkMesh:
        """The GPUs with NVLink peers, those shown without any, and whether the linked ones form a full mesh."""
        peers = {g: self.nvlink_peers(g) for g in self.gpus}
        linked = tuple(g for g in self.gpus if peers[g])
        isolated = tuple(g for g in self.gpus if not peers[g] and g in self.rows and not self.pcie_paths_only
                         and all(self.link(g, o) is not None for o in self.gpus if o != g))
        full = len(linked) >= 2 and all(set(peers[g]) >= set(linked) - {g} for g in linked)
        return NvlinkMesh(peers, linked, isolated, full)

    def nvlink_groups(self) -> tuple[tuple[str, ...], ...] | None:
        """The GPUs joined by NVLink, one group per connected set, when each set is a full mesh (every member NV#
        to every other, as a bridge joins its cards); None when some set is not (a GPU reaches a peer's peer
        over PCIe, or the cell between them is not shown).

        GPUs with no NVLink peer are in no group: on bridged cards they are the ones without a bridge.
        """
        peers = {g: self.nvlink_peers(g) for g in self.gpus}
        groups: list[tuple[str, ...]] = []
        seen: set[str] = set()
        for gpu in self.gpus:
            if gpu in seen or not peers[gpu]:
                continue
            group, todo = {gpu}, [gpu]
            while todo:
                for peer in peers[todo.pop()]:
                    if peer not in group:
                        group.add(peer)
                        todo.append(peer)
            seen |= group
            members = tuple(sorted(group, key=gpu_index))
            if any(b not in peers[a] for a in members for b in members if a != b):
                return None
            groups.append(members)
        return tuple(groups)

    def bridged_groups(self, models: list[str]) -> tuple[tuple[str, ...], ...] | None:
        """The NVLink groups when the GPU models are bridge cards (gputable.bridge_domain) and the NV# cells a bridge
        build: each group a full mesh of 2 or the models' domain of cards, one NV# count on every NVLink pair, and
        some GPU pair on PCIe; None otherwise.

        The cards outside every group are cards without a bridge, not GPUs whose links are down.
        """
        domain = bridge_domain(models)
        groups = self.nvlink_groups() if domain is not None else None
        counts = {c for _, _, c in self.gpu_pairs() if c.startswith("NV")}
        pcie = any(not c.startswith("NV") for _, _, c in self.gpu_pairs())
        if not groups or not pcie or len(counts) != 1 or any(len(g) not in (2, domain) for g in groups):
            return None
        return groups

    def paired_build(self) -> tuple[tuple[str, ...], ...] | None:
        """The NVLink pairs when the matrix's own shape is a bridge build, whatever the GPU model: two or more
        disjoint pairs, each GPU with at most one NVLink peer, and PCIe between the pairs; None otherwise.

        An NVSwitch board joins every linked GPU to every other, so it never shows disjoint pairs; a lone pair
        beside unlinked GPUs stays ambiguous (a bridged pair, or the rest of a board with its links down).
        The pairs' NV# counts may differ (bridges of different cards or sizes).
        """
        groups = self.nvlink_groups()
        pcie = any(not c.startswith("NV") for _, _, c in self.gpu_pairs())
        if not groups or len(groups) < 2 or not pcie or any(len(g) != 2 for g in groups):
            return None
        return groups

    def no_switch_fabric(self) -> str:
        """Why the matrix's own shape shows no NVSwitch fabric between its GPUs, in words; "" where it does not.

        Only a whole matrix (every GPU row shown, every pair settled) of two or more GPUs, read as `topo -m`
        prints it (not `-mp`, which hides NVLink), in one of three shapes:
        - no NV# cell at all: every pair PIX, PXB, PHB, NODE or SYS (corpus 617, 625);
        - a bridge build (paired_build: disjoint NVLink pairs with PCIe between them, corpus 577): a switch joins
          every linked GPU to every other;
        - no pair bonding more than NV4 (a bridge's or a direct mesh's links, corpus 774): an NVSwitch board shows
          each GPU's links to its switches on every pair, NV6 (V100) to NV18 (Hopper, Blackwell).
        A cut matrix may hide a board's NV# rows, so it says nothing."""
        names = self.gpus
        if self.pcie_paths_only or len(names) < 2 or len(self.whole_rows()) != len(names) or self.unshown_pairs():
            return ""
        cells = sorted({c for _, _, c in self.gpu_pairs()})
        said = f"{len(names)} GPUs, {'/'.join(cells)}"
        if not self.has_nvlink:
            return f"the whole `nvidia-smi topo -m` ({said}) joins no GPU pair by NVLink"
        if (pairs := self.paired_build()) is not None:
            return (f"the whole `nvidia-smi topo -m` ({said}) links only disjoint pairs by NVLink "
                    f"({', '.join('-'.join(p) for p in pairs)}), as bridges do")
        if max(nvlink_count(c) for c in cells) <= 4:
            return f"the whole `nvidia-smi topo -m` ({said}) bonds at most 4 NVLinks per pair, as bridges or a direct mesh do"
        return ""

    @property
    def has_nvlink(self) -> bool:
        return any(c.startswith("NV") for _, _, c in self.gpu_pairs())

    def all_nvlinked(self, gpus: list[str] | None = None) -> bool | None:
        """Every pair of the GPUs (all of the matrix's by default) NV#? None when a pair is not shown (a cut
        matrix: it may be PCIe) or there is no pair."""
        cells = [self.link(a, b) for a, b in itertools.combinations(gpus or self.gpus, 2)]
        if any(c is not None and not c.startswith("NV") for c in cells):
            return False
        return None if not cells or None in cells else True

    def numa_node(self, gpu: str) -> int | None:
        """The GPU's NUMA node from the `NUMA Affinity` column, when it is one number."""
        value = self.numa_affinity.get(gpu, "")
        return int(value) if value.isdecimal() else None

    def nic_label(self, nic: str) -> str:
        name = self.nic_names.get(nic)
        return f"{nic} ({name})" if name else nic

    def path(self, a: str, b: str) -> str | None:
        """The cell for a-b where the matrix shows it, else the PCIe path a switch sibling's row implies.

        PIX and PXB say two GPUs hang below one host bridge without crossing it: every path out of that subtree
        is the same for both. So where a meets c over PIX or PXB and c meets b over PHB, NODE or SYS, a meets b
        over the same; where c meets b over PIX or PXB too, b is in the subtree, at worst PXB from a.
        None where no row shows a pair that settles it (NVLink is never inferred)."""
        shown = self.link(a, b)
        if shown is not None:
            return shown
        inside = None
        for x, y in ((a, b), (b, a)):
            for c in self.gpus:
                near, far = self.link(x, c), self.link(c, y)
                if c in (a, b) or near is None or far is None or link_kind(near) not in ("PIX", "PXB"):
                    continue
                if link_kind(far) in ("PHB", "NODE", "SYS"):
                    return link_kind(far)
                if link_kind(far) in ("PIX", "PXB"):
                    inside = "PXB"
        return inside

    def inferred_pairs(self, group: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
        """The pairs of a group that no row shows but `path` settles through a switch sibling's row."""
        return [(a, b) for a, b in itertools.combinations(group, 2)
                if self.link(a, b) is None and self.path(a, b) is not None]

    def group_cost(self, group: tuple[str, ...] | list[str]) -> tuple[int, int]:
        """A GPU group's worst path (link_rank: NV, one switch, one socket, SYS), then the sum of its paths.

        A pair a cut matrix does not show counts as the path a switch sibling's row implies (`path`); one
        nothing settles ranks after SYS (link_rank's 9): never the best, never called SYS."""
        ranks = [link_rank(self.path(a, b) or "") for a, b in itertools.combinations(group, 2)]
        return (max(ranks, default=0), sum(ranks))

    def best_partition(self, size: int) -> list[tuple[str, ...]]:
        """Disjoint TP groups of `size` GPUs, best first, by group_cost."""
        return best_partition(self.gpus, size, self.group_cost)

    def nearest_nics(self) -> tuple[dict[str, tuple[str, str]], list[str]]:
        """Each GPU's nearest NIC (cell, NIC) where the matrix settles it, and the GPUs whose row it does not.

        A GPU with a PIX/PXB cell shown has a near NIC whatever its cut cells hold; any other GPU needs every NIC
        cell shown, since a cell a cut matrix leaves out may be the near one.
        """
        nearest: dict[str, tuple[str, str]] = {}
        unshown: list[str] = []
        for g in self.gpus:
            cells = [(self.link(g, n), n) for n in self.nics]
            known = [(c, n) for c, n in cells if c is not None]
            best = min(known, key=lambda x: link_rank(x[0]), default=None)
            if best is not None and (len(known) == len(cells) or link_rank(best[0]) <= link_rank("PXB")):
                nearest[g] = best
            else:
                unshown.append(g)
        return nearest, unshown

    def nics_near_gpus(self) -> list[str]:
        """NICs one or two PCIe bridges from a GPU (PIX/PXB): where NCCL may pick NET/IB inside a host."""
        return [self.nic_label(n) for n in self.nics
                if any(link_kind(self.link(g, n) or "") in ("PIX", "PXB") for g in self.gpus)]

    def host_bridged_pair(self) -> bool:
        """Some GPU pair's path crosses the host bridge or the CPU interconnect (PHB, NODE or SYS)."""
        return any(link_kind(c) in ("SYS", "PHB", "NODE") for _, _, c in self.gpu_pairs())


def best_partition(names: Sequence[str], size: int,
                   cost: Callable[[tuple[str, ...]], tuple[int, int]]) -> list[tuple[str, ...]]:
    """Disjoint groups of `size` GPUs, best first (greedy: the cheapest group of the GPUs left)."""
    left, groups = list(names), []
    while len(left) >= size:
        best = min(itertools.combinations(left, size), key=cost)
        groups.append(best)
        left = [g for g in left if g not in best]
    return groups


def gpu_index(name: str) -> int:
    m = _GPU.match(name)
    if not m:
        raise ValueError(name)
    return int(m.group(1))


def _unmerged(tokens: list[str]) -> list[str]:
    """The tokens with cells or column names that lost the tab between them split apart again."""
    out: list[str] = []
    for tok in tokens:
        out += _MERGED_PART.findall(tok) if not _CELL.match(tok) and _MERGED.fullmatch(tok) else [tok]
    return out


def _split_row(tokens: list[str]) -> tuple[list[str], list[str]]:
    """Topology cells first, then whatever follows (affinity columns)."""
    cells: list[str] = []
    i = 0
    while i < len(tokens) and _CELL.match(tokens[i]):
        cells.append(tokens[i])
        i += 1
    return cells, tokens[i:]


_MP_COMMAND = re.compile(r"^nvidia-smi topo -mp$", re.M)  # the importer's mark above a `topo -mp` matrix


def parse_topo_matrix(text: str) -> TopoMatrix:
    """Parse `nvidia-smi topo -m` (also the matrix inside vLLM collect_env / SGLang check_env)."""
    header: list[str] | None = None
    extra_cols: list[str] = []
    rows: dict[str, list[str]] = {}
    tails: dict[str, list[str]] = {}
    lines: dict[str, str] = {}
    nic_names: dict[str, str] = {}
    in_nic_legend = False
    for raw in text.splitlines():
        line = clean(raw)
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("NIC Legend"):
            in_nic_legend = True
            continue
        legend = re.match(r"^(NIC\d+):\s*(\S+)\s*$", stripped)
        if in_nic_legend and legend:
            nic_names[legend.group(1)] = legend.group(2)
            continue
        tokens = _unmerged(stripped.split())
        if tokens and all(_DEVICE.match(t) for t in tokens[:1]) and len(tokens) >= 2 and _CELL.match(tokens[1]):
            name = tokens[0]
            cells, tail = _split_row(tokens[1:])
            if not cells or (tail and _P2P_CELL.match(tail[0])):
                continue  # a `topo -p2p` row (X OK OK ...), not a topology row
            if name not in rows:
                rows[name] = cells
                tails[name] = tail
                lines[name] = stripped
            continue
        if header is None and tokens and _DEVICE.match(tokens[0]) and (
                len(tokens) == 1 or _DEVICE.match(tokens[1]) or tokens[1] == "CPU"):
            names = []
            rest = stripped
            for tok in tokens:
                if _DEVICE.match(tok):
                    names.append(tok)
                else:
                    break
            rest = " ".join(tokens[len(names):])
            header = names
            extra_cols = [c for c in ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID") if c in rest]
    if not rows:
        raise ParseError("not the output of `nvidia-smi topo -m` (no device rows)")
    header_missing = header is None
    if header is None:
        header = _infer_columns(rows)
    if not any(_GPU.match(c) for c in header) and not any(_GPU.match(r) for r in rows):
        raise ParseError("no GPU in the topology matrix")
    truncated = False
    final_rows: dict[str, tuple[str, ...]] = {}
    cpu: dict[str, str] = {}
    numa: dict[str, str] = {}
    gpu_numa: dict[str, str] = {}
    for name, row_cells in rows.items():
        row = tuple(row_cells)
        if len(row) > len(header):
            row = row[:len(header)]
        if len(row) < len(header):
            truncated = True
        final_rows[name] = row
        tail = tails[name]
        if _GPU.match(name) and tail:
            labels = extra_cols or ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"]
            for label, value in zip(labels, tail, strict=False):
                {"CPU Affinity": cpu, "NUMA Affinity": numa, "GPU NUMA ID": gpu_numa}[label][name] = value
    for name, row in final_rows.items():
        if name in header and len(row) > header.index(name) and row[header.index(name)] != "X":
            raise ParseError(f"row {name} does not have X on its own column")
    return TopoMatrix(tuple(header), final_rows, cpu, numa, gpu_numa, nic_names, header_missing, truncated, lines,
                      pcie_paths_only=bool(_MP_COMMAND.search(text)))


def _infer_columns(rows: dict[str, list[str]]) -> list[str]:
    """Columns of a matrix pasted without its header: GPUs first (their `X` positions, a NIC row's `X` and NVLink
    cells say how many), then NICs."""
    width = max(len(c) for c in rows.values())
    gpu_rows = [r for r in rows if _GPU.match(r)]
    n_gpus = len(gpu_rows)
    for name, cells in rows.items():
        if "X" in cells:
            pos = cells.index("X")
            if _GPU.match(name):
                n_gpus = max(n_gpus, pos + 1)
            elif name.startswith("NIC") and name[3:].isdigit() and pos >= int(name[3:]):
                # NICk's own column follows every GPU's and the k NICs before it (a matrix cut to its NIC rows).
                n_gpus = max(n_gpus, pos - int(name[3:]))
        for i, cell in enumerate(cells):
            if cell.startswith("NV"):
                n_gpus = max(n_gpus, i + 1)
    n_gpus = min(n_gpus, width)
    cols = [f"GPU{i}" for i in range(n_gpus)]
    cols += [f"NIC{i}" for i in range(width - n_gpus)]
    return cols


# --- topo -p2p -------------------------------------------------------------------------------


@dataclass(frozen=True)
class P2pMatrix:
    """`nvidia-smi topo -p2p <cap>`: OK / CNS / GNS / TNS / NS / DR / U per GPU pair."""

    gpus: tuple[str, ...]
    cells: dict[tuple[str, str], str]
    mode: str = "rw"
    lines: dict[str, str] = field(default_factory=dict)

    def status(self, a: str, b: str) -> str | None:
        return self.cells.get((a, b))

    def not_ok(self) -> list[tuple[str, str, str]]:
        return sorted((a, b, s) for (a, b), s in self.cells.items() if a != b and s != "OK")

    def states_not_ok(self) -> str:
        """The states of the pairs not `OK`, each once: `CNS, GNS`."""
        return ", ".join(sorted({st for _, _, st in self.not_ok()}))

    def refuses_all(self) -> bool:
        """Every GPU pair refuses P2P (GNS, NS, CNS, TNS, DR); `U` (unknown) says nothing either way."""
        refused = [st for _, _, st in self.not_ok() if st != "U"]
        return len(self.gpus) >= 2 and len(refused) == len(self.gpus) * (len(self.gpus) - 1)

    def ok_between(self, gpus: list[str]) -> bool:
        """The driver allows P2P between every pair of these GPUs (two or more)."""
        return len(gpus) >= 2 and all(self.status(a, b) == "OK" for a, b in itertools.permutations(gpus, 2))

    @property
    def all_ok(self) -> bool:
        return all(s == "OK" for (a, b), s in self.cells.items() if a != b)


def parse_p2p_matrix(text: str, mode: str = "rw") -> P2pMatrix:
    """Parse `nvidia-smi topo -p2p r|w|rw|n|a|p`."""
    header: list[str] | None = None
    cells: dict[tuple[str, str], str] = {}
    lines: dict[str, str] = {}
    rows: list[tuple[str, list[str]]] = []
    for raw in text.splitlines():
        tokens = clean(raw).split()
        if not tokens:
            continue
        if header is None and all(_GPU.match(t) for t in tokens):
            header = tokens
            continue
        if _GPU.match(tokens[0]) and len(tokens) >= 2 and all(_P2P_CELL.match(t) for t in tokens[1:]):
            rows.append((tokens[0], tokens[1:]))
            lines[tokens[0]] = clean(raw).strip()
    if not rows:
        raise ParseError("not the output of `nvidia-smi topo -p2p` (no GPU rows)")
    if header is None:
        width = max(len(c) for _, c in rows)
        header = [f"GPU{i}" for i in range(width)]
    for name, row in rows:
        for col, value in zip(header, row, strict=False):
            cells[(name, col)] = value
    gpus = tuple(sorted(set(header) | {n for n, _ in rows}, key=lambda n: int(n[3:])))
    return P2pMatrix(gpus, cells, mode, lines)


# --- nvlink -s -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NvlinkLink:
    link: int
    gbps: float | None  # None: <inactive> (or a state without a speed: `up`)
    text: str = ""
    up: bool | None = None  # a listing of states without speeds (`dcgmi nvlink --link-status`: U / D)

    @property
    def active(self) -> bool:
        return self.up if self.up is not None else self.gbps is not None


@dataclass(frozen=True)
class NvlinkGpu:
    index: int
    name: str
    uuid: str = ""
    links: tuple[NvlinkLink, ...] = ()
    note: str = ""  # e.g. "all links inactive" / NVML message

    @property
    def active(self) -> int:
        return sum(1 for link in self.links if link.active)

    @property
    def inactive(self) -> tuple[int, ...]:
        return tuple(link.link for link in self.links if not link.active)


@dataclass(frozen=True)
class NvlinkStatus:
    gpus: tuple[NvlinkGpu, ...]

    def active_links(self, gpus: tuple[str, ...]) -> list[str]:
        """`GPU3: 0 active link(s)` for each of the named GPUs (`GPU3`) the listing shows."""
        return [f"GPU{x.index}: {x.active} active link(s)" for x in self.gpus if f"GPU{x.index}" in gpus]


NVL_LINK = re.compile(r"^\s*Link (\d+):\s*(?:(<inactive>)|([\d.]+)\s*GB/s)", re.IGNORECASE)


def parse_nvlink_status(text: str) -> NvlinkStatus:
    """Parse `nvidia-smi nvlink -s` / `--status`: per GPU, each link's GB/s or `<inactive>`."""
    gpus: list[NvlinkGpu] = []
    current: dict[str, object] | None = None
    links: list[NvlinkLink] = []

    def flush() -> None:
        if current is not None:
            gpus.append(NvlinkGpu(int(str(current["index"])), str(current["name"]), str(current["uuid"]),
                                  tuple(links), str(current["note"])))

    for raw in text.splitlines():
        line = clean(raw).strip()
        m = NVSMI_GPU_LINE.match(line)
        if m:
            flush()
            current = {"index": m["index"], "name": m["name"], "uuid": m["uuid"] or "", "note": ""}
            links = []
            continue
        if current is None:
            continue
        lk = NVL_LINK.match(line)
        if lk:
            gbps = None if lk.group(2) else float(lk.group(3))
            links.append(NvlinkLink(int(lk.group(1)), gbps, line))
        elif "inactive" in line.lower() or "unable to retrieve" in line.lower():
            current["note"] = line
    flush()
    if not gpus:
        raise ParseError("not the output of `nvidia-smi nvlink -s` (no `GPU n:` lines)")
    return NvlinkStatus(tuple(gpus))


# --- providers -------------------------------------------------------------------------------


def _run_nvidia_smi(ctx: FactContext, argv: tuple[str, ...]) -> str:
    pci = ctx.optional("pci", PciDevices)
    if pci is not None and not pci.nvidia_gpus:
        raise FactUnavailable("no NVIDIA GPU on the PCI bus")
    result = ctx.host.run(list(argv), timeout=NVIDIA_SMI_TIMEOUT_S)
    if result.not_found:
        raise FactUnavailable("nvidia-smi is not installed or not on PATH", "install the NVIDIA driver utilities")
    if result.timed_out:
        raise FactUnavailable(f"`{' '.join(argv)}` did not answer within {NVIDIA_SMI_TIMEOUT_S:g} s")
    if not result.ok:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise FactUnavailable(f"`{' '.join(argv)}` failed: {detail[0] if detail else result.returncode}")
    return result.stdout


fact("gpu_topology", TopoMatrix, first_of, hint=NVSMI_TOPO_M.hint)


@provider("gpu_topology", TopoMatrix, rank=10, title=NVSMI_TOPO_M.title, hint=NVSMI_TOPO_M.hint)
def gpu_topology(ctx: FactContext) -> TopoMatrix:
    """GPU/NIC topology matrix with CPU and NUMA affinity (`nvidia-smi topo -m`)."""
    text = _run_nvidia_smi(ctx, TOPO_ARGV)
    try:
        return parse_topo_matrix(text)
    except ParseError as exc:
        raise FactUnavailable(f"`nvidia-smi topo -m`: {exc}") from exc


@provider("gpu_topology", TopoMatrix, rank=20, title="the topology in a pasted collect_env / check_env report")
def topology_from_collect_env(ctx: FactContext) -> TopoMatrix:
    """GPU/NIC topology matrix the report prints (`GPU Topology:` / `NVIDIA Topology:`; never run live)."""
    from stackaudit.facts.collect_env import CollectEnv

    report = ctx.optional("collect_env", CollectEnv)
    if report is None:
        if ctx.host.meta.source == "live":
            raise FactUnavailable("collect_env is not run live")
        raise NotCaptured("vLLM collect_env / SGLang check_env report")
    if not report.topology_text or "Could not collect" in report.topology_text:
        raise FactUnavailable("the report has no topology matrix")
    try:
        return parse_topo_matrix(report.topology_text)
    except ParseError as exc:
        raise FactUnavailable(f"the report's topology matrix: {exc}") from exc


fact("gpu_p2p", P2pMatrix, first_of, hint=NVSMI_P2P["rw"].hint)


@provider("gpu_p2p", P2pMatrix, rank=10, title=NVSMI_P2P["rw"].title, hint=NVSMI_P2P["rw"].hint)
def gpu_p2p(ctx: FactContext) -> P2pMatrix:
    """Peer-to-peer read/write status between GPUs as the driver reports it (`nvidia-smi topo -p2p rw`)."""
    text = _run_nvidia_smi(ctx, P2P_ARGV)
    try:
        return parse_p2p_matrix(text, "rw")
    except ParseError as exc:
        raise FactUnavailable(f"`nvidia-smi topo -p2p rw`: {exc}") from exc


def _pasted_p2p(ctx: FactContext, source: Source, mode: str) -> P2pMatrix:
    """A pasted status matrix of one capability (never run live: there `-p2p rw` is)."""
    if ctx.host.meta.source == "live":
        raise FactUnavailable(f"live, {NVSMI_P2P['rw'].title} is the one run")
    try:
        return parse_p2p_matrix(read_source(ctx.host, source), mode)
    except ParseError as exc:
        raise FactUnavailable(f"{source.title}: {exc}") from exc


@provider("gpu_p2p", P2pMatrix, rank=20, title=NVSMI_P2P["r"].title, hint=NVSMI_P2P["rw"].hint)
def gpu_p2p_read(ctx: FactContext) -> P2pMatrix:
    """Peer-to-peer read status between GPUs (a pasted `nvidia-smi topo -p2p r`)."""
    return _pasted_p2p(ctx, NVSMI_P2P["r"], "r")


@provider("gpu_p2p", P2pMatrix, rank=30, title=NVSMI_P2P["w"].title, hint=NVSMI_P2P["rw"].hint)
def gpu_p2p_write(ctx: FactContext) -> P2pMatrix:
    """Peer-to-peer write status between GPUs (a pasted `nvidia-smi topo -p2p w`)."""
    return _pasted_p2p(ctx, NVSMI_P2P["w"], "w")


@provider("gpu_p2p", P2pMatrix, rank=35, title=NVSMI_P2P["p"].title, hint=NVSMI_P2P["rw"].hint)
def gpu_p2p_prop(ctx: FactContext) -> P2pMatrix:
    """Peer-to-peer status between GPUs over PCIe (a pasted `nvidia-smi topo -p2p p`, "prop": the same
    status cells as r/w, for the PCIe path)."""
    return _pasted_p2p(ctx, NVSMI_P2P["p"], "p")


@provider("gpu_p2p", P2pMatrix, rank=40, title=NVSMI_P2P_UNNAMED.title, hint=NVSMI_P2P_UNNAMED.hint)
def gpu_p2p_unnamed(ctx: FactContext) -> P2pMatrix:
    """Peer-to-peer status between GPUs (a pasted -p2p matrix whose command line is not shown: mode "")."""
    return _pasted_p2p(ctx, NVSMI_P2P_UNNAMED, "")


fact("nvlink_status", NvlinkStatus, first_of, hint=NVSMI_NVLINK_S.hint)


@provider("nvlink_status", NvlinkStatus, title="NVML, `nvidia-smi nvlink -s`")
def nvlink_status(ctx: FactContext) -> NvlinkStatus:
    """Per-link NVLink state from a pasted or recorded `nvidia-smi nvlink -s` (live: the `nvidia` fact, NVML)."""
    if ctx.host.meta.source == "live":
        raise FactUnavailable("live NVLink state is read through NVML (fact `nvidia`), not `nvidia-smi nvlink -s`")
    result = ctx.host.run(list(NVLINK_ARGV))
    if not result.ok:
        raise FactUnavailable("`nvidia-smi nvlink -s` is not in this source")
    try:
        return parse_nvlink_status(result.stdout)
    except ParseError as exc:
        raise FactUnavailable(f"`nvidia-smi nvlink -s`: {exc}") from exc


# The user's words quoting `nvidia-smi topo -m`'s NVLink cell between their GPUs, the matrix not pasted: ``nvidia-smi
# topo -m` reports NV4 between the cards` (an issue form's answer, corpus 2899), `topo -m shows NV2 between both GPUs`.
# Only `between` the cards or GPUs as a whole: a cell quoted for one pair of several names no other pair.
_STATED_NV_CELL = re.compile(r"\btopo\s+-m`?\s+(?:reports|shows|says|gives|lists)\s+`?(NV\d{1,2})`?\s+between\s+"
                             r"(?:the|both|my|our)\s+(?:two\s+)?(?:cards|GPUs)\b", re.I)


@dataclass(frozen=True, kw_only=True)
class StatedNvlink(Sourced):
    """The NVLink cell (`NV4`) the user's words quote from `nvidia-smi topo -m` between their GPUs, and the line."""

    cell: str
    line: str


fact("stated_nvlink", StatedNvlink, first_of, hint=NVSMI_TOPO_M.hint)


@parser(USER_MACHINE, feeds="stated_nvlink", kind=StatedNvlink, rank=90)
def nvlink_from_user_words(text: str) -> StatedNvlink:
    """The NVLink cell a line of the user's words quotes from `nvidia-smi topo -m` between their GPUs (_STATED_NV_CELL).

    Input (tests/data/captures/2899)::

        2× RTX 3090 24 GB (sm86), NVLink. `nvidia-smi topo -m` reports NV4 between the cards; tensor parallel size 2.
    """
    for line in text.splitlines():
        if "topo" in line and (m := _STATED_NV_CELL.search(line)):
            return StatedNvlink(cell=m.group(1).upper(), line=line.strip()[:300], complete=False)
    raise ParseError("the user's words quote no NV# cell of `nvidia-smi topo -m` between their GPUs")
