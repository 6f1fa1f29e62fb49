"""IC: GPU interconnect, P2P, NCCL and NUMA placement (docs/checks.md, IC).

The topology matrix (`nvidia-smi topo -m`), the driver's P2P matrix, vLLM's real P2P probe cache,
pasted server and NCCL logs, the engine's own environment and nccl.conf. These corrections to common
advice apply: current vLLM skips its real P2P probe by default (VLLM_SKIP_P2P_CHECK=1),
NCCL may use NET/IB inside one host on purpose, nvidia_peermem serves only GPUDirect RDMA to NICs.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import replace

from stackaudit.checks.registry import (
    Fix,
    Outcome,
    Sharpen,
    check,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    over_subjects,
    unknown,
)
from stackaudit.facts._parse import CUSTOM_AR_WORLD_SIZES, argv_value, ranks_per_node, tp_spans_nodes
from stackaudit.facts.applicability import dated_before
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.docker import DockerContainers
from stackaudit.facts.engine_command import EngineCommands, StatedEngines
from stackaudit.facts.gpus import NCCL_TESTS_TITLE, GpuInventory, cuda_order_differs, cuda_order_renames
from stackaudit.facts.kernel_knobs import NvidiaKernel
from stackaudit.facts.model_placement import ModelPlacements
from stackaudit.facts.nvidia import NvidiaGpus, gpu_spec
from stackaudit.facts.ollama_cli import OllamaShown
from stackaudit.facts.parallelism import (
    SERVING_ENGINES,
    Parallelism,
    ServingEngine,
    group_of_every_gpu,
    multi_node_flags,
    nvswitch_node_of_every_gpu,
    one_busy_gpu,
    one_gpu_commands,
    one_gpu_engine,
    one_gpu_host,
    one_gpu_seen,
    one_rank_per_node,
    tp_group_across_nodes,
    tp_spans_nodes_needlessly,
)
from stackaudit.facts.pci import PCIE_GBS_PER_LANE
from stackaudit.facts.peer_access import (
    NCCL,
    NVBANDWIDTH,
    DataTest,
    P2pBandwidth,
    P2pDataTests,
    P2pOffCures,
    PeerRefusals,
)
from stackaudit.facts.processes import ProcessInfo, ServingProcesses
from stackaudit.facts.rdma import RdmaDevices
from stackaudit.facts.serving_logs import (
    AR_MULTI_NODE,
    AR_NO_LIBRARY,
    AR_NO_P2P,
    AR_PCIE_ONLY,
    AR_RELEASE,
    AR_WORLD_SIZE,
    CUSTOM_AR_DISABLED,
    INSIDE_THE_HOST,
    NCCL_MULTI_NODE_ALGORITHMS,
    LogDate,
    NcclConfig,
    NcclNodes,
    NcclSetting,
    NcclTestRuns,
    NcclTopoTree,
    ServingLog,
    VllmP2pCache,
)
from stackaudit.facts.serving_model import model_argument
from stackaudit.facts.shown_commands import EmptyGreps, ListingGreps, PathTests
from stackaudit.facts.system import (
    PEER_MEMORY_MODULES,
    KernelInfo,
    KernelLog,
    LoadedModules,
    NumaTopology,
    peer_memory_loaded,
)
from stackaudit.facts.topology import (
    NvlinkStatus,
    P2pMatrix,
    StatedNvlink,
    TopoMatrix,
    gpu_index,
    link_kind,
    link_rank,
    nvlink_count,
)
from stackaudit.fixes.model import (
    advice,
    keep_line,
    keep_text,
    sh,
    step,
)
from stackaudit.fixes.pcie import CLEAR_VLLM_P2P_CACHE
from stackaudit.gputable import (
    GpuSpec,
    agreed,
    architecture_of,
    bridge_domain,
    candidates,
    family_of,
    nvlink_links_of,
    sold_bridged,
)
from stackaudit.versions import predates

NCCL_GPU_TROUBLESHOOTING = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/gpu_troubleshooting.html"
NCCL_ENV_DOC = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"
NCCL_PATHS = "https://github.com/NVIDIA/nccl/blob/master/src/graph/paths.cc"
NCCL_GDR = "https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib/gdr.cc"
VLLM_CUSTOM_AR = "https://github.com/vllm-project/vllm/blob/main/vllm/distributed/device_communicators/custom_all_reduce.py"
VLLM_AR_UTILS = "https://github.com/vllm-project/vllm/blob/main/vllm/distributed/device_communicators/all_reduce_utils.py"
VLLM_ENVS = "https://github.com/vllm-project/vllm/blob/main/vllm/envs.py"
SGLANG_P2P_CRASH = "https://github.com/sgl-project/sglang/issues/4814"
GPU_OPERATOR_RDMA = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/1.9.1/gpu-operator-rdma.html"
NCCL_TESTS_74 = "https://github.com/NVIDIA/nccl-tests/issues/74"
NCCL_TESTS_115 = "https://github.com/NVIDIA/nccl-tests/issues/115"
TRTLLM_PCIE_AR = "https://nvidia.github.io/TensorRT-LLM/legacy/advanced/lowprecision-pcie-allreduce.html"

# --- helpers ---------------------------------------------------------------------------------


def _models(gpus: GpuInventory | None) -> dict[int, str]:
    """GPU product names by index (NVML / nvidia-smi, else a pasted collect_env: the `gpus` fact)."""
    return gpus.models if gpus is not None else {}


def _specs(models: dict[int, str]) -> list[GpuSpec]:
    return [s for s in (gpu_spec(n) for n in models.values()) if s is not None]


def _families(models: dict[int, str]) -> set[str | None]:
    """The product families of the GPU models (gputable.family_of: the table row's, else the name's brand word)."""
    return {f.name if f is not None else None for f in (family_of(n) for n in models.values())}


def _is_geforce(models: dict[int, str]) -> bool:
    """Every GPU of a family without PCIe P2P with the stock driver (GeForce; gputable.FAMILIES)."""
    families = [family_of(n) for n in models.values()]
    return bool(families) and all(f is not None and not f.p2p for f in families)


def _switch_expected(models: dict[int, str]) -> GpuSpec | None:
    """The GPU row when the model is an NVSwitch (HGX/DGX) part: every pair should be NV#."""
    specs = _specs(models)
    if specs and len(specs) == len(models) and all(s.nvlink_kind == "switch" and s.nvlink_links > 0 for s in specs):
        return specs[0]
    return None


def _board(models: dict[int, str]) -> str:
    """What the GPU models say about NVLink (data/gpus.toml): "hgx" (an NVSwitch baseboard: HGX/DGX, Fabric
    Manager on the node), "tray" (a GB200/GB300 compute tray: its NVLinks go to switch trays, Fabric
    Manager runs there), "bridge" (cards paired by NVLink bridges), "none" (PCIe only), "" (not known)."""
    if models and _families(models) == {"rack"}:
        return "tray"  # GB300 has no row in the table yet: its name says enough (gputable.family_of)
    if bridge_domain(list(models.values())) is not None:
        return "bridge"  # the table's bridge rows, else a family whose NVLink is a bridge's (gputable)
    specs = _specs(models)
    if not specs or len(specs) != len(models):
        return ""
    kinds = {s.nvlink_kind for s in specs}
    if kinds == {"switch"}:
        return "tray" if any(s.family == "rack" for s in specs) else "hgx"
    return "none" if kinds == {"none"} else ""


def _subject(gpu: str, gpus: GpuInventory | None) -> str:
    record = gpus.by_index(gpu_index(gpu)) if gpus is not None else None
    return f"{gpu} ({record.bdf})" if record is not None and record.bdf else gpu


def _cvd(proc: ProcessInfo | None, collect_env: CollectEnv | None = None) -> list[str] | None:
    """The process's CUDA_VISIBLE_DEVICES, else (no process shown) the collect_env shell's."""
    if proc is not None or collect_env is None:
        return proc.visible_devices if proc is not None else None
    value = collect_env.env.get("CUDA_VISIBLE_DEVICES")
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _engine_gpus(topo: TopoMatrix, proc: ProcessInfo | None, tp: int | None,
                 collect_env: CollectEnv | None = None) -> list[str]:
    """The topology names of the GPUs the engine's TP group uses (CUDA_VISIBLE_DEVICES order)."""
    cvd = _cvd(proc, collect_env)
    names = list(topo.gpus)
    if cvd is not None and all(v.isdecimal() for v in cvd):
        names = [f"GPU{v}" for v in cvd if f"GPU{v}" in topo.gpus]
    return names[:tp] if tp else names


def _nccl_hcas_far(topo: TopoMatrix, nearest: dict[str, tuple[str, str]], unshown: list[str],
                   config: NcclConfig | None) -> list[str]:
    """The NICs NCCL_IB_HCA names (`mlx5_0`, `=mlx5_0:1,mlx5_1`; not an exclusion `^...`) where the matrix shows every
    GPU's cell to each of them beyond PXB (NCCL_NET_GDR_LEVEL unset), as labelled in the matrix; [] otherwise."""
    value = (config.value("NCCL_IB_HCA") or "").strip() if config is not None else ""
    # NCCL_NET_GDR_LEVEL moves the distance NCCL allows GPU Direct RDMA over (default PXB).
    if not value or value.startswith("^") or config is None or config.value("NCCL_NET_GDR_LEVEL") is not None or unshown or not nearest or len(nearest) < len(topo.gpus):
        return []
    wanted = {v.split(":")[0].strip() for v in value.lstrip("=").split(",") if v.strip()}
    named = [n for n in topo.nics if topo.nic_names.get(n) in wanted]
    if not named or len(named) < len(wanted):
        return []
    far = all(link_rank(topo.link(g, n) or "X") > link_rank("PXB") for g in nearest for n in named)
    return [topo.nic_label(n) for n in named] if far else []


def _multi_node(procs: ServingProcesses | None, log: ServingLog | None, nodes: NcclNodes | None = None) -> bool:
    if multi_node_flags(procs):
        return True
    if nodes is not None and nodes.several:
        return True
    return bool(log is not None and (log.multi_host or any(r == AR_MULTI_NODE for r, _ in log.custom_ar_disabled)))


def _no_nvlink(topo: TopoMatrix | None, models: dict[int, str]) -> bool | None:
    if topo is not None and topo.gpu_pairs() and not topo.pcie_paths_only:
        return not topo.has_nvlink
    specs = _specs(models)
    if specs and len(specs) == len(models):
        return all(not s.has_nvlink for s in specs)
    return None


def _nccl_paths_nvlinked(log: ServingLog | None) -> Outcome | None:
    """`ok` where NCCL's own path dump (a pasted NCCL INFO log) shows every GPU pair it lists over NVLink (NVL, the
    NVSwitch's NVS/N when there is one): any group of those GPUs meets over NVLink. None where it shows another path
    or none: PCIe paths without the engine's GPUs stay the matrix rule's (unknown)."""
    if log is not None and not log.gpu_paths and log.topo_tree is not None:
        return _nccl_tree_nvlinked(log, log.topo_tree)
    if log is None or not log.gpu_paths or any(kind != "NVL" for _, _, kind in log.gpu_paths):
        return None
    paths = log.gpu_paths
    gpus = sorted({g for a, b, _ in paths for g in (a, b)})
    judged = ok(f"NCCL's path dump shows NVLink (NVL) between every GPU pair it lists ({', '.join(f'GPU/{g}' for g in gpus)}): "
                "any group of these GPUs meets over NVLink, so their PCIe/NUMA placement does not bear on GPU-to-GPU "
                "traffic", actual={f"{a}-{b}": kind for a, b, kind in paths}, evidence=list(log.gpu_path_lines[:2]))
    return over_subjects(judged, [f"GPU/{g}" for g in gpus], None, ask="nvidia-smi topo -m")


def _nccl_tree_nvlinked(log: ServingLog, tree: NcclTopoTree) -> Outcome | None:
    """`ok` where NCCL's topology tree joins every GPU it names by NVLink: each GPU shown whole links directly to every
    other (`+ NVL[80.0] - GPU/41000`), or through the NVSwitch (`NVS/0`) to every other shown whole on it. The tree
    holds the communicator's GPUs on this node (graph/topo.cc ncclTopoGetSystem), all of them where it is whole or
    names as many GPUs as the communicator's ranks (`nranks 4`). Pairs between GPUs the tree does not show whole count
    only on a direct board whose every GPU links each other one (NcclTopoTree.mesh_board with a peer for each other
    GPU named: corpus 2262, four GPUs at four links to each peer). None otherwise."""
    named = tree.named_gpus()
    if len(named) < 2 or not tree.closed or not (tree.whole or len(named) >= log.comm_ranks >= 2):
        return None
    reach: dict[str, set[str]] = {g: set() for g in tree.closed}
    for gpu, peer, _, _ in tree.nvlinks:
        if gpu in reach:
            reach[gpu].add(peer.split("/")[-1].split("-")[-1] if peer.startswith("GPU/") else "NVS")
    on_switch = {g for g, peers in reach.items() if "NVS" in peers}
    for gpu, peers in reach.items():
        if set(named) - {gpu} - peers - (on_switch if gpu in on_switch else set()):
            return None
    unseen = [(a, b) for a, b in itertools.combinations(named, 2) if a not in reach and b not in reach]
    board = tree.mesh_board() if unseen else None
    if unseen and (board is None or board[3] != len(named) or any(len(b) != len(named) - 1 for b in board[2].values())):
        return None
    shown = [f"GPU/{g}" for g in tree.closed]
    judged = ok(f"NCCL's topology tree joins {', '.join(shown)} by NVLink to every other GPU it names "
                f"({', '.join(f'GPU/{g}' for g in named)})" + (f"; their bonds are {board[0]}, a board that links "
                                                             "every pair" if board is not None else "")
                + ": any group of these GPUs meets over NVLink, so their PCIe/NUMA placement does not bear on "
                "GPU-to-GPU traffic", actual={f"GPU/{g}": sorted(p for p in peers) for g, peers in reach.items()},
                evidence=[line for g, _, _, line in tree.nvlinks if g in reach][:3])
    return over_subjects(judged, shown, len(named), ask="nvidia-smi topo -m")


def _no_matrix(gpus: GpuInventory | None) -> Outcome:
    count = gpus.whole_count if gpus is not None else None
    if count is not None and count < 2:
        return not_applicable(f"{count} GPU: no GPU-to-GPU path")
    return unknown("the topology matrix is not in the source", hint="`nvidia-smi topo -m`")


# --- IC-TOPO-READ ----------------------------------------------------------------------------


# A GB200/GB300 compute tray: Fabric Manager and the NVLink switches live on the switch trays.
_TRAY_FIX = advice("On the NVLink switch trays (not this node): check the fabric's state (Fabric Manager / NVOS) "
                   "and this tray's ports there; reseat or RMA the tray if its links stay down", cost="hardware")
# P2P refused on PCIe paths: ACS redirect or the IOMMU, which FW-ACS-P2P and FW-IOMMU-MODE read and fix.
_PCIE_P2P_FIX = advice("Follow FW-ACS-P2P and FW-IOMMU-MODE (ACS redirect on the bridges between the GPUs, or "
                       "the IOMMU in translated mode), then restart the engine", cost="restart")


@check(
    "IC-TOPO-READ",
    title="Read the topology and P2P matrices correctly",
    severity="high",
    confidence="documented",
    fix=Fix.of(
        step("Look for inactive links, the fabric state, Fabric Manager and NVLink Xids (74, 145+)",
             "nvidia-smi nvlink -s", sh("nvidia-smi -q | grep -A2 Fabric"), "systemctl status nvidia-fabricmanager",
             sh("dmesg | grep -i xid"), cost="runtime"),
        step("Restart nvidia-fabricmanager, or reload the driver with all GPU work stopped",
             "systemctl restart nvidia-fabricmanager", cost="driver-reload"),
        note="reseat or RMA the GPU/baseboard if links stay down"),
    references=(NCCL_GPU_TROUBLESHOOTING, "https://github.com/stas00/ml-engineering"),
)
def topo_read(gpu_topology: TopoMatrix | None = None, gpu_p2p: P2pMatrix | None = None, nvlink_status: NvlinkStatus | None = None,
              gpus: GpuInventory | None = None, container: ContainerInfo | None = None,
              p2p_bandwidth: P2pBandwidth | None = None, stated_nvlink: StatedNvlink | None = None) -> Outcome:
    """Reads: `nvidia-smi topo -m` (GPU/NIC rows, NV# cells, CPU and NUMA affinity; a pasted matrix
    may lack its header), `nvidia-smi topo -p2p rw`, `nvidia-smi nvlink -s`, and the GPU models
    (NVML, else a pasted collect_env) looked up in data/gpus.toml.

    Bad value: a GPU with no NVLink to any peer while the other GPUs are NV#-connected to each
    other (an HGX board with one GPU's NVLinks or NVSwitch ports down); NVLink expected by the
    model (SXM/HGX parts) but only PCIe paths shown; fewer bonded links on some pairs of a full
    mesh; P2P not `OK` between GPUs whose model supports P2P; NCCL unable to read the host's PCI topology
    (`NCCL WARN Could not find real path of /sys/class/pci_bus/...`, the log symptom nccl-topology-path).

    Why: NCCL and vLLM/SGLang custom all-reduce use NVLink where NVML reports it; a GPU that lost
    its links drags every TP group it joins onto PCIe (and NCCL may refuse P2P on an NVLink path
    it sees as broken). NCCL's guide warns that `topo -p2p` OK does not exclude ACS problems.

    Traps: `NS`/`GNS` on GeForce with the stock driver is NVIDIA policy (a key negative, with the
    engine flags that matter), and `CNS` between low-end data-center cards (L4) is normal. Bridge
    products (H100/H200 NVL, A100 PCIe, RTX and A-series with bridges) pair GPUs by design: a
    GPU outside the pairs is not "links down"; with no model named, two or more disjoint NVLink pairs with
    PCIe between them are that build too (an NVSwitch board joins every GPU). "Links down / Fabric Manager" is said only on
    NVSwitch baseboards (HGX/DGX), with the link count from data/gpus.toml; on GB200/GB300
    compute trays Fabric Manager runs on the switch trays. Inside a container the matrix shows
    only the visible GPUs. PCIe-only cards (RTX PRO 6000, L40S, RTX 4090) have no NVLink by design.
    With no matrix, two or more GPUs all GeForce (named, or a cut name read as one) settle it: no PCIe
    P2P with the stock driver, NVLink only through a bridge, a key negative over the GPUs shown. Where a P2P test
    shows the driver granting peer access between them (`Device=0 CAN Access Peer Device=1`), the driver is not the
    stock one's policy (a P2P-enabled build): the family settles nothing, and the matrix is needed. A matrix with
    no NV# cell between GPUs the source names, all GeForce, is that design too: not an issue (corpus 913).
    A matrix of one GPU has no GPU-to-GPU path, but a row that shows its CPU or NUMA affinity and its paths to NICs or
    (`GPU NUMA ID`) its memory as a node of its own, as on a Grace superchip, reads whole: ok over that GPU, naming
    them (corpus 1340); a lone GPU row is not applicable.
    With no matrix, the user's words quoting its NV# cell between the host's two GPUs (```nvidia-smi topo -m` reports
    NV4 between the cards``, corpus 2899) read as that cell: on two cards of one bridged model (data/gpus.toml's
    bridge) whose every NVLink the cell counts, the bridge is up (ok over the two GPUs); a cell of fewer links, or on
    another model, is left to the matrix (unknown).
    """
    # The registered fix is the NVSwitch baseboard's (Fabric Manager on this node); a compute tray and PCIe P2P
    # get their own (_TRAY_FIX, _PCIE_P2P_FIX).
    models = _models(gpus)
    if gpu_topology is None:
        if gpu_p2p is not None and len(gpu_p2p.gpus) >= 2:
            return _p2p_alone(gpu_p2p, models, gpus)
        granted = p2p_bandwidth is not None and bool(p2p_bandwidth.can_access)
        return _stated_bridge(stated_nvlink, models, gpus) \
            or (None if granted else _family_without_matrix(models, gpus)) or _no_matrix(gpus)
    topo = gpu_topology
    names = topo.gpus
    if len(names) < 2:
        return _one_gpu_matrix(topo, container)
    notes = []
    if topo.header_missing:
        notes.append("the matrix was pasted without its header (columns inferred: GPUs, then NICs)")
    cut = topo.cut_note()
    if cut:
        notes.append(f"the paste is cut: {cut}; each GPU pair is read from either GPU's row")
    if container is not None and container.in_container:
        notes.append("inside a container the matrix shows only the GPUs visible to it")
    suffix = (" (" + "; ".join(notes) + ")") if notes else ""
    if topo.pcie_paths_only and not _no_nvlink(None, models):
        # `topo -mp` never prints NV#: only GPU models without NVLink let its PCIe paths stand for the whole.
        unread = unknown(f"{_topology_summary(topo)}: whether these GPUs have NVLink is not in it" + suffix,
                         hint="`nvidia-smi topo -m` (with NVLink) or `nvidia-smi -L` (the GPU models)",
                         actual={"links": sorted({c for _, _, c in topo.gpu_pairs()}), "rows": list(topo.whole_rows())})
        return over_subjects(unread, list(topo.whole_rows()), len(names), ask="nvidia-smi topo -m")
    nvlink = topo.nvlink_mesh()
    peers, linked, isolated, mesh = nvlink.peers, nvlink.linked, nvlink.isolated, nvlink.full
    if topo.has_nvlink:
        board = _board(models)
        if board in ("bridge", ""):
            bridged = _bridged(topo, models, suffix)
            if bridged is not None:
                return over_subjects(bridged, list(topo.whole_rows()), len(names), ask="nvidia-smi topo -m")
        if isolated and mesh and not board and len(linked) == 2:
            pairs = ", ".join(f"{g}-{p}" for g in linked for p in peers[g] if g < p)
            return unknown(f"NVLink between {pairs} only, {', '.join(isolated)} without: a bridged pair beside an "
                           "unbridged card, or links down — the GPU model (not in this source) tells which" + suffix,
                           hint="`nvidia-smi -L` (bridge products pair GPUs by design)",
                           actual={g: dict(peers[g]) for g in names})
        if isolated and mesh:
            counts = Counter(n for g in linked for n in peers[g].values())
            table = _specs(models)
            spec_links = table[0].nvlink_links if table and board in ("hgx", "tray") else 0
            nv = f"NV{spec_links}" if spec_links else f"NV{counts.most_common(1)[0][0]}"
            inactive = nvlink_status.active_links(isolated) if nvlink_status is not None else []
            return issue(
                f"{', '.join(isolated)} {'has' if len(isolated) == 1 else 'have'} no NVLink to any peer "
                f"({', '.join(sorted({link_kind(topo.link(isolated[0], g) or '') for g in linked}))} instead) while the "
                f"other {len(linked)} GPUs are fully connected by {nv}: "
                + (f"the NVLinks of {'that GPU' if len(isolated) == 1 else 'those GPUs'} to the NVLink switch trays "
                   "are down (Fabric Manager runs on the switch trays, not this node)" if board == "tray" else
                   f"NVLinks or NVSwitch ports of {'that GPU' if len(isolated) == 1 else 'those GPUs'} are down"
                   + (" (check Fabric Manager and `nvidia-smi nvlink -s`)" if board == "hgx" else ""))
                + "; every TP group with it runs over PCIe" + suffix,
                actual={g: {p: topo.link(g, p) for p in names if p != g} for g in isolated},
                expected=f"{nv} between every GPU pair", subjects=[_subject(g, gpus) for g in isolated],
                evidence=[topo.lines[g] for g in isolated if g in topo.lines] + inactive,
                fix=_TRAY_FIX if board == "tray" else None)
        if mesh and len(linked) == len(names):
            usual, weak = topo.fewer_nvlinks()
            if weak:
                return issue(f"{len(weak)} GPU pair(s) have fewer bonded NVLinks than the rest (NV{usual}): "
                             + ", ".join(f"{a}-{b} {c}" for a, b, c in weak[:6]) + suffix,
                             actual={f"{a}-{b}": c for a, b, c in weak}, expected=f"NV{usual} on every pair",
                             severity="medium", subjects=sorted({_subject(x, gpus) for a, b, _ in weak for x in (a, b)}),
                             evidence=[topo.lines[a] for a, _, _ in weak if a in topo.lines][:4])
    else:
        spec = _switch_expected(models)
        if spec is not None:
            up = ("the tray's NVLinks to the switch trays are down (Fabric Manager runs there, not on this node)"
                  if _board(models) == "tray" else "the fabric is not up (Fabric Manager, NVLink)")
            return issue(f"{spec.name} GPUs are NVSwitch/NVLink parts, but the matrix shows only PCIe paths "
                         f"({', '.join(sorted({link_kind(c) for _, _, c in topo.gpu_pairs()}))}): {up} and all GPU "
                         "traffic crosses PCIe" + suffix,
                         actual="no NV# cell", expected=f"NV# between every pair ({spec.nvlink_links} links per GPU)",
                         subjects=[_subject(g, gpus) for g in names], evidence=list(topo.lines.values())[:4],
                         fix=_TRAY_FIX if _board(models) == "tray" else None)
        named = [models.get(gpu_index(g), "") for g in names]
        if all(named) and sold_bridged(named):
            return issue(f"{', '.join(sorted(set(named)))} cards are sold joined by NVLink bridges, but the matrix "
                         f"shows only PCIe paths between them ({', '.join(sorted({link_kind(c) for _, _, c in topo.gpu_pairs()}))}): "
                         "the bridges' NVLinks are down or no bridge is fitted, so NCCL and custom all-reduce fall "
                         "back to PCIe through the host" + suffix,
                         actual="no NV# cell", expected="NV# between the bridged cards",
                         subjects=[_subject(g, gpus) for g in names], evidence=list(topo.lines.values())[:4])
    if gpu_p2p is not None:
        judged = _p2p_verdict(gpu_p2p, names, models, gpus, topo, suffix)
        if judged is not None:
            return judged
    granted = p2p_bandwidth is not None and bool(p2p_bandwidth.can_access)
    if not topo.has_nvlink and len(models) >= 2 and _is_geforce(models) and not granted \
            and not (gpu_p2p is not None and gpu_p2p.all_ok):
        # PCIe paths between GeForce cards named in the source are the family's design, as with no matrix
        # (_family_without_matrix): a key negative over the rows shown (corpus 525, 913).
        return over_subjects(_geforce_pcie(topo, models, gpus, suffix), list(topo.whole_rows()) or list(names),
                             len(names), ask="nvidia-smi topo -m")
    unshown = topo.unshown_pairs()
    # A row whose GPU cells are all there shows its GPU's every path to the others (its NIC cells may be cut).
    whole_rows = list(topo.whole_rows())
    cells = {c for _, _, c in topo.gpu_pairs()}
    if unshown and whole_rows and (not topo.has_nvlink or (len(cells) == 1 and next(iter(cells)).startswith("NV"))):
        # The complete rows settle their GPUs: PCIe paths only, or one NV# on every pair they show (a GPU of a
        # missing row without NVLink, or with fewer links, shows in them). The coverage names the rows read.
        judged = ok(f"{_topology_summary(topo)}; {len(unshown)} GPU pair(s) not shown: "
                    + ", ".join(f"{a}-{b}" for a, b in unshown[:6]) + suffix,
                    actual={"gpus": len(names), "links": sorted(cells), "rows": whole_rows})
        return over_subjects(judged, whole_rows, len(names), ask="nvidia-smi topo -m")
    if unshown:
        # A pair no row shows could be a GPU pair without NVLink: what was read is fine, the rest is not shown.
        return unknown(f"{_topology_summary(topo)}; {len(unshown)} GPU pair(s) not shown: "
                       + ", ".join(f"{a}-{b}" for a, b in unshown[:6]) + suffix,
                       hint="paste the whole `nvidia-smi topo -m`", actual={g: peers[g] for g in names})
    return over_subjects(ok(_topology_summary(topo) + suffix,
                            actual={"gpus": len(names), "links": sorted({c for _, _, c in topo.gpu_pairs()}),
                                    "numa": dict(topo.numa_affinity)}), names, len(names), ask="nvidia-smi topo -m")


def _one_gpu_matrix(topo: TopoMatrix, container: ContainerInfo | None) -> Outcome:
    """IC-TOPO-READ over a matrix of one GPU: no GPU-to-GPU path exists, but a row that shows the GPU's CPU or NUMA
    affinity and more than the GPU itself (NICs with their path from it, or its memory as a NUMA node of its own where
    `GPU NUMA ID` gives one, as a Grace Hopper or Grace Blackwell superchip exposes its HBM, corpus 1340) reads whole:
    ok over that GPU, naming what it shows. A lone GPU row, or one without affinity, is not applicable."""
    gpu = topo.gpus[0] if topo.gpus else ""
    cpus, node = topo.cpu_affinity.get(gpu, ""), topo.numa_affinity.get(gpu, "")
    shown = [v for v in (cpus, node) if v and v != "N/A"]
    own = topo.gpu_numa_id.get(gpu, "")
    # A lone `X` cell with its affinity shows nothing but the GPU: only NICs or a memory node of its own read more.
    if not gpu or not shown or topo.truncated or not (topo.nics or own.isdigit()):
        return not_applicable(f"{len(topo.gpus)} GPU in the matrix: no GPU-to-GPU path to read")
    text = f"1 GPU in the matrix ({gpu}" + (f", CPU affinity {cpus}" if cpus and cpus != "N/A" else "") \
        + (f", NUMA node {node}" if node and node != "N/A" else "") + ")"
    if own.isdigit():
        text += (f"; its memory is NUMA node {own} of its own (`GPU NUMA ID`), as a Grace Hopper or Grace Blackwell "
                 "superchip exposes the GPU's memory to the CPU over NVLink-C2C")
    row = dict(zip(topo.columns, topo.rows.get(gpu, ()), strict=False))
    paths = Counter(row[n] for n in topo.nics if row.get(n))
    if topo.nics:
        text += f"; {len(topo.nics)} NIC(s)" + (
            " at " + ", ".join(f"{k}×{n}" for k, n in sorted(paths.items(), key=lambda kv: link_rank(kv[0])))
            + " from it" if paths else "")
    if container is not None and container.in_container:
        text += " (inside a container the matrix shows only the GPUs visible to it)"
    return over_subjects(ok(text + "; no GPU-to-GPU path to judge",
                            actual={"gpus": 1, "numa": dict(topo.numa_affinity), "gpu_numa_id": dict(topo.gpu_numa_id)}),
                         [gpu], None, ask="nvidia-smi topo -m")


def _geforce_pcie(topo: TopoMatrix, models: dict[int, str], gpus: GpuInventory | None, suffix: str) -> Outcome:
    """IC-TOPO-READ over a matrix with no NV# cell between GPUs the source names GeForce (gputable.FAMILIES: no PCIe
    P2P with the stock driver): the PCIe paths (PHB, NODE, SYS) are the family's design, not lost links, a key
    negative as where no matrix is shown (_family_without_matrix)."""
    cards = ", ".join(gpus.in_words(m) if gpus is not None else m for m in sorted(set(models.values())))
    return not_an_issue(f"{_topology_summary(topo)}: {cards} are GeForce cards, which have no NVLink without a bridge "
                        "and get no PCIe P2P from the stock driver (NVIDIA's policy), so PCIe paths through the host "
                        "are their design, not lost links; whatever the path (PIX, PHB, NODE, SYS), NCCL carries "
                        "their traffic through host memory" + suffix,
                        actual={"links": sorted({c for _, _, c in topo.gpu_pairs()}), "family": "geforce"})


def _stated_bridge(stated: StatedNvlink | None, models: dict[int, str], gpus: GpuInventory | None) -> Outcome | None:
    """IC-TOPO-READ with no matrix where the user's words quote its NV# cell between the host's two GPUs: ok where
    both are one bridged model (a bridge of two) and the cell counts every NVLink the model has; unknown where the cell
    fits no such bridge (another count, a model without NVLink); None where no cell is quoted for two GPUs of one
    model."""
    if stated is None or gpus is None or gpus.whole_count != 2 or len(models) != 2 or len(set(models.values())) != 1:
        return None
    model = next(iter(models.values()))
    links = nvlink_links_of(model)
    if bridge_domain([model, model]) != 2 or not links or nvlink_count(stated.cell) != links:
        # The quote says NVLink where the model's bridge would show another count, or none: the family's design
        # settles nothing, the matrix does.
        return unknown(f"the user quotes `nvidia-smi topo -m` as {stated.cell} between the host's two "
                       f"{gpus.in_words(model)}, which does not fit the model's NVLink "
                       f"({'a bridge of ' + str(links) + ' links' if links else 'none'}); the matrix is not pasted",
                       hint="paste `nvidia-smi topo -m` and `nvidia-smi nvlink -s`", actual={"GPU0-GPU1": stated.cell})
    judged = ok(f"the user quotes `nvidia-smi topo -m` as {stated.cell} between the host's two {gpus.in_words(model)} "
                f"(`{stated.line[:160]}`): the {links} NVLinks of the bridge that pairs them are all up (the matrix is "
                "quoted in words, not pasted)", actual={"GPU0-GPU1": stated.cell}, evidence=[stated.line])
    return over_subjects(judged, [_subject(f"GPU{i}", gpus) for i in sorted(models)], 2, ask="nvidia-smi topo -m")


def _family_without_matrix(models: dict[int, str], gpus: GpuInventory | None) -> Outcome | None:
    """IC-TOPO-READ with no matrix where the GPUs' product family settles what one would show (gputable.FAMILIES):
    two or more GPUs all of a family without PCIe P2P (GeForce) reach each other through host memory by design,
    a key negative over the GPUs shown. None otherwise (a matrix is needed), or where one GPU is shown."""
    if len(models) < 2 or not _is_geforce(models) or (gpus is not None and gpus.whole_count == 1):
        return None
    cards = ", ".join(gpus.in_words(m) if gpus is not None else m for m in sorted(set(models.values())))
    judged = not_an_issue(f"{cards}: GeForce cards get no PCIe P2P from the stock driver (NVIDIA's policy) and NVLink "
                          "only through a bridge on the models that take one (it would show as NV# in `nvidia-smi "
                          "topo -m`): traffic between them goes over PCIe through host memory by design, not a "
                          "fault, so tensor parallelism across them pays that path (a model that fits one card "
                          "need not run faster sharded)", actual={f"GPU{i}": gpus.in_words(m) if gpus is not None else m
                                  for i, m in sorted(models.items())})
    return over_subjects(judged, [_subject(f"GPU{i}", gpus) for i in sorted(models)],
                         gpus.whole_count if gpus is not None else None, ask="nvidia-smi -L")


def _bridged(topo: TopoMatrix, models: dict[int, str], suffix: str) -> Outcome | None:
    """Bridged cards (data/gpus.toml's "bridge" rows, else the family's, as GeForce and NVL): NVLink only within
    groups of the bridge's size (2, or the row's NVLink domain), each a full mesh of one NV# count, and PCIe
    between the groups is the design, not links down. None where the NV# cells do not fit a bridge."""
    domain = bridge_domain(list(models.values()))
    groups = topo.bridged_groups(list(models.values()))
    # No model named: the matrix's own shape (disjoint NVLink pairs, PCIe between them) is a bridge build.
    groups = groups or (topo.paired_build() if not _specs(models) and _families(models) <= {None} else None)
    if not groups:
        return None
    counts = {c for _, _, c in topo.gpu_pairs() if c.startswith("NV")}
    joined = {g for group in groups for g in group}
    alone = [g for g in topo.gpus if g not in joined and g in topo.rows]
    shown = "; ".join("-".join(g) for g in groups)
    cards = (f"{', '.join(sorted(set(models.values())))} are joined by NVLink bridges" if domain is not None else
             "the GPUs have at most one NVLink peer each, which an NVSwitch board never shows: bridges")
    return not_an_issue(f"NVLink ({', '.join(sorted(counts, key=nvlink_count))}) only within bridged group(s) {shown}"
                        + (f", {', '.join(alone)} without a bridge" if alone else "")
                        + f", PCIe between the others: {cards}, which pair cards by design: the bridges' layout, no "
                        "link missing; TP groups within a bridged group use NVLink" + suffix,
                        actual={"groups": [list(g) for g in groups], "links": sorted(counts)},
                        evidence=list(topo.lines.values())[:4])


def _p2p_verdict(p2p: P2pMatrix, names: tuple[str, ...], models: dict[int, str], gpus: GpuInventory | None,
                 topo: TopoMatrix | None, suffix: str = "") -> Outcome | None:
    """The driver's P2P verdict (`nvidia-smi topo -p2p r|w|rw|n|…`) on the pairs of `names` it shows; None where
    every pair shown is OK. GNS/NS on GeForce (and GNS alone) is NVIDIA's policy, a key negative; NVLink paths are
    known only with `topo -m`."""
    bad = [(a, b, s) for a, b, s in p2p.not_ok() if a in names and b in names]
    if not bad:
        return None
    states = sorted({s for _, _, s in bad})
    pairs = ", ".join(f"{a}->{b} {s}" for a, b, s in bad[:6])
    # GNS ("GPU not supported") is the driver's per-product policy whatever the model shown; NS counts
    # as policy only on GeForce cards (the stock driver gives them no P2P).
    policy = (_is_geforce(models) and set(states) <= {"GNS", "NS"}) or (not models and set(states) == {"GNS"})
    if policy or (set(states) <= {"CNS"} and any(re.search(r"\bL4\b", n) for n in models.values())):
        cards = ", ".join(sorted(set(models.values()))) or "these GPUs (GNS: GPU not supported)"
        return not_an_issue(f"the driver reports no P2P ({', '.join(states)}: {pairs}) on {cards}: NVIDIA's "
                            "policy for these cards, not a misconfiguration (no fabric manager, no RMA); NCCL "
                            "goes through host memory (SHM) by itself and vLLM turns custom all-reduce off; "
                            "the flags that matter: SGLang with TP > 1 needs --disable-custom-all-reduce (or "
                            "--enable-p2p-check), NCCL_P2P_DISABLE is not needed" + suffix,
                            actual={f"{a}->{b}": s for a, b, s in bad}, evidence=list(p2p.lines.values())[:2])
    nv_bad = [(a, b, s) for a, b, s in bad if topo is not None and (topo.link(a, b) or "").startswith("NV")]
    # NS ("not supported") off NVLink is NVIDIA's policy on GeForce and a platform fault elsewhere: with the
    # model not in the source, the finding stays conditional on it (a key negative naming the condition).
    unnamed = "" if models or nv_bad or set(states) != {"NS"} else (
        "the GPUs are data-center or workstation cards (on GeForce the stock driver gives no P2P by design)")
    return issue(f"the driver reports P2P not OK between {len(bad)} GPU pair(s) ({pairs})"
                 + (": on NVLink paths (NCCL refuses them as broken)" if nv_bad else
                    ": NCCL falls back to host memory (SHM) there and custom all-reduce is off")
                 + suffix, actual={f"{a}->{b}": s for a, b, s in bad}, expected="OK between TP peers",
                 severity="high" if nv_bad else "medium", confidence="documented",
                 subjects=sorted({_subject(x, gpus) for a, b, _ in bad for x in (a, b)}),
                 evidence=list(p2p.lines.values())[:4], fix=None if nv_bad else _PCIE_P2P_FIX, only_if=unnamed)


def _p2p_alone(p2p: P2pMatrix, models: dict[int, str], gpus: GpuInventory | None) -> Outcome:
    """IC-TOPO-READ from a `topo -p2p` matrix without `topo -m`: the pairs it shows, through the coverage rule.

    A pair not OK is judged as with the topology matrix; every pair shown OK is `ok` only where the models
    have no NVLink (else whether NVLinks are up needs `topo -m`). Pairs a cut matrix does not show are named.
    """
    names = p2p.gpus
    pairs = list(itertools.combinations(names, 2))
    shown = [f"{a}-{b}" for a, b in pairs if p2p.status(a, b) is not None or p2p.status(b, a) is not None]
    missing = [f"{a}-{b}" for a, b in pairs if f"{a}-{b}" not in shown]
    count = gpus.whole_count if gpus is not None else None
    total = max(len(pairs), count * (count - 1) // 2 if count else 0)
    judged = _p2p_verdict(p2p, names, models, gpus, None)
    if judged is None:
        said = (f"the driver reports P2P OK ({p2p.mode}) between the {len(shown)} GPU pair(s) shown"
                + (f"; not shown: {', '.join(missing[:6])}" if missing else ""))
        judged = (ok(said + f"; {', '.join(sorted(set(models.values())))} have no NVLink",
                     actual={p: "OK" for p in shown}, evidence=list(p2p.lines.values())[:4])
                  if _no_nvlink(None, models) else
                  unknown(said + "; whether NVLinks are up is in `nvidia-smi topo -m`, not in this source",
                          hint="`nvidia-smi topo -m`", actual={p: "OK" for p in shown}))
    elif missing:
        judged = replace(judged, message=f"{judged.message}; not shown: {', '.join(missing[:6])}")
    return over_subjects(judged, shown, total, noun="GPU pair", ask="nvidia-smi topo -p2p rw")


def _topology_summary(topo: TopoMatrix) -> str:
    gpus = topo.gpus
    kinds = Counter(c for _, _, c in topo.gpu_pairs())
    if kinds and all(c.startswith("NV") for c in kinds):
        every = "on every pair shown" if topo.unshown_pairs() else "fully"
        text = f"{len(gpus)} GPUs {every} NVLink-connected ({', '.join(sorted(kinds))})"
    elif any(c.startswith("NV") for c in kinds):
        text = f"{len(gpus)} GPUs, NVLink on some pairs: " + ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items()))
    elif topo.pcie_paths_only:
        text = (f"{len(gpus)} GPUs, their PCIe paths only (`nvidia-smi topo -mp`): "
                + ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items(), key=lambda kv: link_rank(kv[0]))))
    elif topo.unshown_pairs():
        # A cut matrix: PCIe on the pairs its rows show, not the host's every GPU (corpus 1404).
        text = (f"{len(gpus)} GPUs, PCIe only (no NVLink) on every pair shown: "
                + ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items(), key=lambda kv: link_rank(kv[0]))))
    else:
        text = (f"{len(gpus)} GPUs on PCIe only (no NVLink): " + ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items(),
                key=lambda kv: link_rank(kv[0]))))
    nodes = sorted({v for v in topo.numa_affinity.values() if v and v != "N/A"})
    if len(nodes) > 1:
        text += "; GPUs on NUMA nodes " + ", ".join(nodes)
    nics = topo.nics
    if nics:
        text += f"; {len(nics)} NIC(s) in the matrix"
    return text


# --- IC-P2P-FUNCTIONAL -----------------------------------------------------------------------


def _iommu_gpu_faults(kernel_log: KernelLog | None, gpus: GpuInventory | None) -> list[str]:
    if kernel_log is None or gpus is None or not gpus.bdfs:
        return []
    return kernel_log.iommu_faults(list(gpus.bdfs))


_P2P_SHARPEN = ("on GeForce cards the driver allows no peer access by design: set NCCL_P2P_DISABLE=1 or start the "
                "engine with --disable-custom-all-reduce; on others fix ACS / the IOMMU (FW-ACS-P2P, FW-IOMMU-MODE) or "
                "pass the GPUs' PCIe switch to the VM")
# The fix where no vLLM is shown (a Horovod or PyTorch job's NCCL log, nccl-tests, another engine: corpus 1250): the
# check's own fix clears vLLM's P2P cache and names vLLM's flags, which such a run does not have.
_P2P_FIX_NO_VLLM = Fix.of(step("Follow FW-ACS-P2P and FW-IOMMU-MODE (ACS redirect on the bridges between the GPUs, or "
                               "the IOMMU in translated mode), then restart the job; on GeForce cards, whose driver "
                               "gives no peer access, set NCCL_P2P_DISABLE=1 instead", cost="restart",
                               takes="restart the job"))


@check(
    "IC-P2P-FUNCTIONAL",
    title="P2P reported as OK but actually broken or slow",
    severity="high",
    confidence="source-verified",
    fix=Fix.of(
        step("After fixing the platform (FW-ACS-P2P, FW-IOMMU-MODE): delete vLLM's cached P2P verdicts "
             "(under $VLLM_CACHE_ROOT if set)", sh(CLEAR_VLLM_P2P_CACHE), scope="container",
             changes="vLLM's P2P probe cache"),
        step("Restart the engine after fixing the platform (FW-ACS-P2P, FW-IOMMU-MODE)", cost="restart",
             scope="container"),
        note="on risky PCIe pairs start vLLM with VLLM_SKIP_P2P_CHECK=0 (run the real probe) or "
        "--disable-custom-all-reduce"),
    references=(VLLM_AR_UTILS, VLLM_ENVS, "https://github.com/vllm-project/vllm/issues/2728", NCCL_GPU_TROUBLESHOOTING),
    sharpen=Sharpen(_P2P_SHARPEN),
)
def p2p_functional(gpu_topology: TopoMatrix | None = None, gpu_p2p: P2pMatrix | None = None,
                   vllm_p2p_cache: VllmP2pCache | None = None, serving_log: ServingLog | None = None,
                   kernel_log: KernelLog | None = None, gpus: GpuInventory | None = None,
                   peer_refusals: PeerRefusals | None = None, p2p_bandwidth: P2pBandwidth | None = None,
                   p2p_data_tests: P2pDataTests | None = None, serving_engine: ServingEngine | None = None,
                   collect_env: CollectEnv | None = None, nccl_test_runs: NcclTestRuns | None = None,
                   engine_commands: EngineCommands | None = None, p2p_off_cures: P2pOffCures | None = None) -> Outcome:
    """Reads: the verdicts of tests that move data between GPUs of one host and check it (facts/peer_access.py
    DATA_TESTS: simpleP2P's verification or the CUDA samples' summary failing it is an issue, quoted, and so is a
    user's torch copy straight from one GPU to another whose shown result is zeros, peer_copy_zeros; nccl-tests'
    "Out of bounds values : 0 OK" over two or more ranks of one host, P2P not turned off on its command, is ok, the
    ranks read from the NCCL log beside a summary pasted without its rank lines where that log shows a communicator
    whole on one host, corpus 628; a run cut inside its table, its summary not shown, is ok where every row shown was
    checked with 0 wrong elements and its bus bandwidth tops what a path through host memory gives over the GPUs'
    PCIe link, half the link's rate, so only P2P or NVLink carried it: corpus 762, four RTX 4090 at 26 GB/s over a
    15.8 GB/s host path; rows checked at a lower rate, or GPUs not shown, prove no peer path, corpus 630 and 446; a
    checked run over two ranks or more, its rank list cut or its hosts several, is ok where its bus bandwidth tops twice
    the fastest PCIe link of any GPU (NVLINK_ONLY_BUSBW, 242 GB/s): no path through host memory or a network adapter
    shows that, only NVLink between the GPUs, corpus 1407, a GB200 NVL72 rack at 847 GB/s with one rank line shown);
    CUDA samples' `p2pBandwidthLatencyTest` (a pair that CAN access its peer with P2P-enabled
    unidirectional bandwidth below half its P2P-disabled bandwidth is an issue; every pair at or above is ok; its
    P2P-enabled write matrix shown without the P2P-disabled one is ok where every pair of its GPUs writes at 20 GB/s
    or more, P2P_LINE_RATE_FLOOR, corpus 1221: the pasted matrices alone prove nothing otherwise; its latency matrices
    with GPU write latency at P2P on half or less of that at P2P off on every pair of its GPUs are ok, corpus 1322);
    NVIDIA's nvbandwidth (https://github.com/NVIDIA/nvbandwidth): a peer test (device_to_device, all_to_one,
    one_to_all) whose check of the copied data fails (`Invalid value when checking the pattern`) is an issue, quoted;
    a peer matrix with a figure for every pair of its GPUs is ok over them; a peer test `Waiving` on two or more
    listed GPUs is the driver's refusal of peer access for every pair (testcase.h filterHasAccessiblePeerPairs); vLLM's cached real P2P probe `$VLLM_CACHE_ROOT/gpu_p2p_access_cache_for_<CUDA_VISIBLE_DEVICES>.json`
    (default `~/.cache/vllm`), `nvidia-smi topo -p2p rw`, `nvidia-smi topo -m`, a pasted vLLM log
    ("Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test
    failed", "reading/generating GPU P2P access cache"), and IOMMU faults naming a GPU in `dmesg`;
    the log symptom of facts/symptoms.py "peer access is not supported between these two devices"
    (CUDA error 217), which proves the issue on its own, quoted, as does NCCL's P2P transport failing to open the
    peer's CUDA IPC handle after choosing P2P/IPC (`transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 11
    invalid argument`, any error, or the line cut after `failed to op`: nccl-p2p-ipc-open, corpus 2173), or a CUDA call of
    that transport failing at its own line (`transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'`, but for a
    lack of memory: corpus 2618); the driver's refusals of peer access
    that programs log (facts/peer_access.py: NCCL's "Could not enable P2P between dev …", CUDA's
    simpleP2P "… : No", a Python session's `cudaDeviceCanAccessPeer(0, 1)` answering 0, an `N` between two GPUs of
    TensorFlow's whole `Device interconnect StreamExecutor` edge matrix, whose 1x1 matrix of one GPU shows no pair); NCCL's
    channel lines `… -> … via P2P/IPC|CUMEM|direct pointer`: the pairs it connected over P2P (peer
    access enabled, the peer's buffers mapped) are set-up, not data crossing, so `unknown` over the
    ranks shown, naming them; `ok` where nccl-tests result rows in the same source show the run's
    check of its data with 0 wrong elements in every row (corpus 759, 1193); an NCCL warning, a P2P
    failure or a row with wrong elements in the same source leaves it unknown, quoted.

    Two or more GPUs shown, all GeForce (gputable.FAMILIES: no PCIe P2P with the stock driver), under an NCCL log
    whose channels between the GPUs all go over SHM and none over P2P (corpus 1199), with no other evidence and no
    NVLink in the matrix, are not an issue: the driver reports no P2P for them, so none is reported OK and then
    broken, and NCCL's own choice shows the engine copying between them through host memory (an NCCL maintainer:
    "GeForce cards do not support P2P", https://github.com/NVIDIA/nccl-tests/issues/287); an NCCL P2P channel on
    GeForce is a patched driver's (corpus 762), judged by its own evidence. llama.cpp's own log splitting a model
    over GeForce cards shows no path (its lines name no peer access or copy route): unknown, as the blind readings
    of layer and row splits have it (1256, 1283, 1258, 1300 against 882; h61c, h72c).
    The driver's refusals where every refused pair joins GPUs of two architectures the source names (Ada Lovelace and
    Ampere, say) are not an issue: CUDA gives no peer access between architectures on any driver (corpus 1217, a
    mixed box under a P2P-patched driver whose same-model pairs CAN access each other).
    The user's own A/B in a sentence of the paste, where nothing the programs printed settles it, is an issue: the
    workload fails with P2P on and runs with it off (`Setting NCCL_P2P_DISABLE=1 did workaround`, corpus 266; `It works
    with disabled P2P, but crashes when enabled`, corpus 974; facts/peer_access.says_p2p_off_cures: a remedy word, or
    the run working in the sentence that names the failure; not `without disabling P2P` or a question).
    CUDA's answer 704 (0x2c0, cudaErrorPeerAccessAlreadyEnabled) to `cudaDeviceEnablePeerAccess`, which a debugger
    prints as an API error (cuda-gdb: `cudaDeviceEnablePeerAccess returned (0x2c0)`), is peer access already on:
    not an issue where nothing else is shown (facts/peer_access.ALREADY_ENABLED, corpus 1197).

    Bad value: the driver says P2P OK but vLLM's real probe recorded `"i->j": false`, the log says
    the P2P test failed, or NCCL logged `Could not enable P2P between dev …`; DMAR / AMD-Vi faults
    naming a GPU.

    Why: "sometimes the driver might be broken, and torch.cuda.can_device_access_peer returns True
    even if P2P access is not actually possible" (vLLM all_reduce_utils.py): a translating IOMMU or
    ACS redirect silently drops or re-routes peer writes; the result is a hang or wrong output.

    Traps: current vLLM defaults VLLM_SKIP_P2P_CHECK to 1 (envs.py), so the real probe does not run
    and no cache file is written: the absence of a `false` proves nothing, and `=1` is not an
    unusual setting. A P2P channel line is set-up, not a data test: a pair behind ACS redirect or a
    translating IOMMU connects too, then hangs or corrupts. The cache persists: after the platform is fixed a stale `false` keeps custom
    all-reduce off until the file is deleted. NVLink pairs do not use PCIe P2P. Unidirectional
    PCIe Gen4 P2P of 20-26 GB/s is healthy; do not compare it with NVLink.
    vLLM's "lacks GPU P2P capability" after its "Skipping P2P check and trusting the driver's P2P report" is the
    driver's refusal of P2P: no peer path is used, not applicable (corpus 1032), as where its P2P table refuses all.
    So has NCCL's communicator of eight ranks on one node where NCCL finds NVSwitch multicast (NVLS): an NVSwitch
    node is a board of eight GPUs, so they are all of it (facts/parallelism.nvswitch_node_of_every_gpu, corpus 1074).
    A job shown with one rank on each node (facts/parallelism.one_rank_per_node) has no GPU pair inside a host:
    not applicable where nothing else is shown. So has a workload whose every engine command shown runs its model on
    one GPU (facts/parallelism.one_gpu_commands: CUDA_VISIBLE_DEVICES of one device on the line, llama.cpp's
    `--tensor-split` with one share above 0 or `--split-mode none`; corpus 1301, 1303), with no NCCL channel or test
    rank shown and no RL trainer's rollout server (parallelism.rollout_engine: verifiers' `vf-vllm` takes its trainer's
    weights from another GPU over NCCL, corpus 2617); a split over several GPUs (llama.cpp's layers, pipeline stages) stays unknown, as 3 of 5 blind
    readings have it (917's gap).
    So has a program that sees one GPU (facts/parallelism.one_gpu_seen: llama.cpp's `ggml_cuda_init` list of one
    device beside a llama.cpp or ollama engine, or none named; corpus 1825) and a host of one GPU.
    """
    # vLLM shown (its log, its command or process, its collect_env): its probe's default is part of the answer.
    vllm = (serving_log is not None and (serving_log.engine == "vllm" or bool(serving_log.vllm_version))) or (
        serving_engine is not None and serving_engine.engine == "vllm") or (
        collect_env is not None and bool(collect_env.vllm_version))
    # No engine shown at all (a Horovod or PyTorch job's NCCL log, nccl-tests, a P2P test): the fix is the platform's;
    # where another engine is shown, the report leaves out the steps written for vLLM alone (Fix.for_engines).
    engine = vllm or vllm_p2p_cache is not None or bool(serving_engine is not None and serving_engine.engine) or bool(
        serving_log is not None and serving_log.engine) or bool(engine_commands is not None and engine_commands.commands)
    judged = _without_vllm_fix(_p2p_functional(gpu_topology, gpu_p2p, vllm_p2p_cache, serving_log, kernel_log, gpus,
                                               peer_refusals, p2p_bandwidth, p2p_data_tests, vllm, nccl_test_runs),
                               engine)
    if judged.status == "unknown" and (one_each := one_rank_per_node(serving_engine, serving_log)):
        return not_applicable(f"{one_each}: no GPU pair shares a host, so no traffic crosses PCIe P2P")
    if judged.status == "unknown" and (shown := one_gpu_commands(engine_commands, serving_log, nccl_test_runs)):
        # Every engine command shown runs its model on one GPU, and no NCCL log or test shows ranks talking
        # (corpus 1301, 1303): the workload moves nothing between GPUs, whatever the host holds.
        return not_applicable(f"the workload runs on one GPU ({shown[0].one_gpu}: \"{shown[0].quoted[:160]}\"), so "
                              "nothing moves between GPUs over P2P", actual=[c.one_gpu for c in shown])
    if judged.status == "unknown" and (seen := one_gpu_seen(serving_engine, gpus)):
        # The program at work sees one GPU, or the host has one (corpus 1825): no pair of GPUs to move data over P2P.
        return not_applicable(f"{seen}: no pair of GPUs moves data over P2P")
    if judged.status == "unknown" and p2p_off_cures is not None:
        # The user's own A/B, where nothing the programs printed settles it (corpus 266, 974): the workload fails with
        # P2P on and runs with it off, so the peer path the platform offers does not carry the traffic.
        cured = issue(f"the user reports that the workload runs with GPU P2P turned off and fails with it on "
                      f"(\"{p2p_off_cures.line[:200]}\"): the peer path the platform offers does not carry the traffic "
                      "(ACS redirect, a translating IOMMU, or a driver whose P2P does not work for these cards); "
                      "turning P2P off is a workaround at host-memory speed",
                      actual=p2p_off_cures.line, expected="the workload running with P2P on",
                      evidence=[p2p_off_cures.line])
        return _without_vllm_fix(cured, engine)
    return judged


def _without_vllm_fix(outcome: Outcome, engine: bool) -> Outcome:
    """`outcome` where a serving engine is shown; else with the platform's fix (_P2P_FIX_NO_VLLM) in place of the
    check's own, which clears vLLM's P2P cache: for an issue of its facts that takes the default fix, and for one a
    log line proves (the Sharpen's fix, engine/evaluate.proven_by_symptoms)."""
    if engine:
        return outcome
    fix = outcome.fix if outcome.fix is not None or outcome.status != "issue" else _P2P_FIX_NO_VLLM
    return replace(outcome, fix=fix, sharpen=outcome.sharpen or Sharpen(_P2P_SHARPEN, fix=_P2P_FIX_NO_VLLM))


def _p2p_functional(gpu_topology: TopoMatrix | None, gpu_p2p: P2pMatrix | None, vllm_p2p_cache: VllmP2pCache | None,
                    serving_log: ServingLog | None, kernel_log: KernelLog | None, gpus: GpuInventory | None,
                    peer_refusals: PeerRefusals | None = None, p2p_bandwidth: P2pBandwidth | None = None,
                    data_tests: P2pDataTests | None = None, vllm: bool = True,
                    nccl_test_runs: NcclTestRuns | None = None) -> Outcome:
    """IC-P2P-FUNCTIONAL from the probes, the driver's matrix and the logs (p2p_functional adds the symptoms)."""
    count = gpus.whole_count if gpus is not None else None
    if count is not None and count < 2:
        return not_applicable(f"{count} GPU: no peer-to-peer traffic")
    if gpu_topology is not None and gpu_topology.all_nvlinked():
        return not_applicable("every GPU pair is NVLink-connected: PCIe P2P is not on the path")
    faults = _iommu_gpu_faults(kernel_log, gpus)
    if faults:
        return issue(f"IOMMU faults name the GPUs ({len(faults)} lines): peer-to-peer writes are being blocked or "
                     "dropped", actual=faults[:5], expected="no IOMMU faults", evidence=faults[:5],
                     subjects=list(gpus.bdfs) if gpus is not None else [])
    driver_ok = gpu_p2p.all_ok if gpu_p2p is not None else None
    failed = [(f, f.failed) for f in (vllm_p2p_cache.files if vllm_p2p_cache is not None else ()) if f.failed]
    if failed:
        path, pairs = failed[0][0].path, failed[0][1]
        if driver_ok is False:
            return ok(f"vLLM's probe ({path}) and the driver agree: no P2P between {', '.join(pairs[:6])}; custom "
                      "all-reduce stays off and NCCL uses host memory (IC-TOPO-READ says why)",
                      actual={f.path: f.failed for f, _ in failed})
        return issue(f"vLLM's real P2P probe failed for {', '.join(pairs[:6])} ({path})"
                     + (" although the driver reports P2P OK" if driver_ok else "")
                     + ": P2P is broken (ACS redirect / translating IOMMU), or the file is stale from before a fix "
                     "and keeps custom all-reduce off until deleted",
                     actual={f.path: f.failed for f, _ in failed}, expected="every pair true",
                     subjects=[f.path for f, _ in failed])
    log_fail = [line for reason, line in (serving_log.custom_ar_disabled if serving_log else ()) if reason == AR_NO_P2P]
    nccl_off = [line for line in (serving_log.p2p_failures if serving_log else ()) if "Could not enable P2P" in line]
    if nccl_off and driver_ok:
        return issue("NCCL could not enable P2P although the driver reports P2P OK (`topo -p2p`): peer access does "
                     "not really work (ACS redirect, IOMMU, a VM) and NCCL routes those pairs through host memory",
                     actual=nccl_off[0], expected="NCCL P2P on the pairs the driver reports OK", evidence=nccl_off[:3])
    if log_fail and driver_ok:
        return issue("the engine logged that the P2P test failed while the driver reports P2P OK: peer access does "
                     "not really work (ACS/IOMMU) or a stale cache file says so",
                     actual=log_fail[0], expected="custom all-reduce enabled on a P2P-capable pair",
                     evidence=log_fail[:2])
    cache_ok = [f for f in (vllm_p2p_cache.files if vllm_p2p_cache is not None else ()) if not f.failed]
    if cache_ok:
        return ok(f"vLLM's real P2P probe passed for every pair ({cache_ok[0].path})",
                  actual={f.path: "all true" for f in cache_ok})
    if serving_log is not None and serving_log.p2p_cache_generated and not log_fail:
        return ok("the engine ran vLLM's real P2P probe (\"generating GPU P2P access cache\") and did not disable "
                  "custom all-reduce", evidence=list(serving_log.p2p_cache_paths[:1]))
    tested = data_tests.bearing() if data_tests is not None else ()
    failed_test = [t for t in tested if not t.passed]
    if failed_test:
        lines = [t.line for t in failed_test][:4]
        tested_on = sorted({d for t in failed_test for d in t.devices})
        return over_subjects(issue(f"{failed_test[0].program}, which moves data between the GPUs and checks what arrived, failed "
                     f"(\"{lines[0]}\")" + (" after the driver answered that peer access is available"
                                             if gpu_p2p is not None and driver_ok else "")
                     + ": P2P that the driver offers does not carry data intact (ACS redirect, a translating IOMMU, "
                     "or a driver without P2P for these cards)", actual=lines, expected="the data test passing",
                     evidence=lines), [f"GPU {d}" for d in tested_on], gpus.whole_count if gpus is not None else None)
    slow = p2p_bandwidth.slow() if p2p_bandwidth is not None else ()
    if p2p_bandwidth is not None and slow:
        figures = [f"{a}->{b} {en:.2f} GB/s with P2P against {dis:.2f} GB/s without" for a, b, en, dis in slow]
        return over_subjects(issue(
            f"P2P is on but slower than copies through host memory ({figures[0]}; {len(slow)} pair(s) below half in "
            "p2pBandwidthLatencyTest): ACS or the IOMMU redirects peer traffic",
            actual=figures[:8], expected="P2P-enabled bandwidth at least half the P2P-disabled bandwidth",
            evidence=figures[:4]), _measured(p2p_bandwidth), len(p2p_bandwidth.devices) or None)
    if peer_refusals is not None and peer_refusals.refusals:
        return _refusal_verdict(peer_refusals, _models(gpus), gpu_topology, gpus)
    compared = p2p_bandwidth.compared() if p2p_bandwidth is not None else ()
    if p2p_bandwidth is not None and compared:
        low = min(compared, key=lambda c: c[2] / c[3] if c[3] else 0.0)
        return over_subjects(ok(
            f"p2pBandwidthLatencyTest: every pair that can access its peer ({len(compared)}) moves at least half "
            f"with P2P what it moves through host memory (lowest: {low[0]}->{low[1]} {low[2]:.2f} GB/s with P2P, "
            f"{low[3]:.2f} GB/s without)", actual={f"{a}->{b}": [en, dis] for a, b, en, dis in compared[:12]}),
            _measured(p2p_bandwidth), len(p2p_bandwidth.devices) or None)
    alone = p2p_bandwidth.enabled_alone() if p2p_bandwidth is not None else ()
    if alone and min(v for _, _, v in alone) >= P2P_LINE_RATE_FLOOR:
        weakest = min(alone, key=lambda c: c[2])
        on = sorted({d for a, b, _ in alone for d in (a, b)})
        return over_subjects(ok(
            f"p2pBandwidthLatencyTest: P2P-enabled writes between every pair of its {len(on)} GPUs run at "
            f"{weakest[2]:.2f} GB/s or more (lowest: {weakest[0]}->{weakest[1]}), the rate of a working PCIe 4.0 x16 peer path or "
            f"better; P2P redirected through the root complex (ACS, a translating IOMMU) runs at a fraction of it",
            actual={f"{a}->{b}": v for a, b, v in alone[:12]}), [f"GPU {d}" for d in on],
            len(p2p_bandwidth.devices) if p2p_bandwidth is not None and p2p_bandwidth.devices else None)
    latency = p2p_bandwidth.latency_compared() if p2p_bandwidth is not None else ()
    if latency and all(en <= dis / 2 for _, _, en, dis in latency):
        # A pair without peer access copies through host memory whether P2P is asked for or not, so its latency does
        # not fall; every pair's write latency halved or better with P2P on is peer writes going direct (corpus 1322).
        worst = max(latency, key=lambda c: c[2] / c[3])
        on = sorted({d for a, b, _, _ in latency for d in (a, b)})
        return over_subjects(ok(
            f"p2pBandwidthLatencyTest: with P2P enabled the GPU-to-GPU write latency falls to half or less on every "
            f"pair of its {len(on)} GPUs (least: {worst[0]}->{worst[1]} {worst[2]:.2f} us with P2P, {worst[3]:.2f} us "
            "without): the writes go straight to the peer; copies through host memory would not get faster",
            actual={f"{a}->{b}": [en, dis] for a, b, en, dis in latency[:12]}), [f"GPU {d}" for d in on],
            len(p2p_bandwidth.devices) if p2p_bandwidth is not None and p2p_bandwidth.devices else None)
    peer = p2p_bandwidth.peer_pairs() if p2p_bandwidth is not None else ()
    if peer:
        return _nvbandwidth_peer(peer[0][0], peer[0][1], gpus)
    # A run cut inside its table counts where its checked rows also ran faster than host memory could carry them.
    passed = [t for t in tested if t.passed and (not t.rows_only or _beyond_host_path(t))]
    from_log = ""
    if not passed and serving_log is not None and (run := _ranks_from_nccl_log(data_tests, serving_log)) is not None:
        passed, from_log = [run], f" (its ranks as the NCCL log beside it shows them: \"{serving_log.one_node()[0]}\")"
    copied = next((t for t in passed if t.program == "simpleP2P"), None)
    if copied is not None and len(copied.devices) >= 2:
        # simpleP2P's `Test passed`: its kernels wrote across the pair both ways and the host found every value right.
        judged = ok(f"simpleP2P moved data between GPU {copied.devices[0]} and GPU {copied.devices[1]} (kernels on each "
                    "reading the other's memory) and verified what arrived (\"" + copied.line + "\"): the peer path "
                    "carries data intact", actual=[copied.line], evidence=[copied.line])
        return over_subjects(judged, [f"GPU {d}" for d in copied.devices], gpus.whole_count if gpus else None)
    if passed:
        best = max(passed, key=lambda t: (not t.rows_only, t.ranks))
        said = (f"every result row shown checked with 0 wrong elements (\"{best.line}\"; the summary line is not "
                "shown)" if best.rows_only else f"checked it (\"{best.line}\")")
        said += from_log
        judged = ok(f"{best.program} moved data between {best.ranks} GPUs of {best.hosts[0]} and {said}: the path "
                    "NCCL chose between them carries data intact" + _beyond_host_path(best)
                    + "; a set-up line (an NCCL P2P channel, a peer-access 'Yes') would not show this",
                    actual=[t.line for t in passed][:3], evidence=[best.line])
        return over_subjects(judged, [f"rank {r}" for r in range(best.ranks)], gpus.whole_count if gpus else None)
    linked = _beyond_any_pcie(data_tests)
    if linked is not None:
        return _nvlink_carried(linked, gpus)
    if gpu_p2p is not None and gpu_p2p.refuses_all():
        return not_applicable("the driver reports no P2P between any GPU pair ("
                              + gpu_p2p.states_not_ok() + "): there is no P2P to "
                              "prove broken; NCCL goes through host memory (IC-TOPO-READ judges why)")
    if serving_log is not None and serving_log.p2p_check_skipped and log_fail and driver_ok is not True \
            and not serving_log.p2p_pairs():
        # vLLM trusted the driver's report (no real probe ran) and found no P2P in it: the driver refuses peer access
        # between these GPUs, as where its P2P table refuses every pair (corpus 1032).
        return not_applicable(f"vLLM skipped its real P2P probe and trusted the driver's report (\"{serving_log.p2p_check_skipped}"
                              f"\"), then disabled custom all-reduce for lack of P2P (\"{log_fail[0]}\"): the driver "
                              "reports no P2P between these GPUs, so no peer path is used whose function could be in "
                              "doubt; NCCL goes through host memory (IC-TOPO-READ judges why)",
                              actual=[serving_log.p2p_check_skipped, log_fail[0]])
    if serving_log is not None and serving_log.p2p_pairs():
        return _nccl_p2p_verdict(serving_log, log_fail + nccl_off, nccl_test_runs)
    already = peer_refusals.already_enabled if peer_refusals is not None else ()
    if already:
        # CUDA's 704 (0x2c0) to cudaDeviceEnablePeerAccess: the pair's peer access was on already, which NCCL ignores
        # (facts/peer_access.ALREADY_ENABLED); a debugger prints it as an API error (corpus 1197).
        granted = not_an_issue(f"\"{already[0]}\" is CUDA's answer 704 (0x2c0, cudaErrorPeerAccessAlreadyEnabled): "
                               "peer access for that pair was enabled already, which the program ignores; a debugger "
                               "such as cuda-gdb prints every such return as an API error, but it shows peer access "
                               "granted, not P2P failing", actual=list(already[:3]), evidence=list(already[:3]))
        shown = [g.label for g in gpus.gpus] if gpus is not None else []
        return over_subjects(granted, shown, gpus.whole_count, ask="nvidia-smi -L") if gpus is not None and shown \
            else granted
    models = _models(gpus)
    host_memory = _geforce_host_path(serving_log)
    if len(models) >= 2 and _is_geforce(models) and driver_ok is not True and host_memory \
            and not (gpu_topology is not None and gpu_topology.has_nvlink):
        # The stock driver answers "not supported" for GeForce peer access (gputable.FAMILIES): no P2P is reported
        # OK, so none can be OK and then broken; the engine then copies between the cards through host memory.
        # Only where the log shows that path: NCCL connecting the cards over SHM and none over P2P (corpus 1199); a NCCL
        # log with P2P channels on GeForce has a patched driver (corpus 762), its own case.
        cards = ", ".join(gpus.in_words(m) if gpus is not None else m for m in sorted(set(models.values())))
        return over_subjects(not_an_issue(
            f"{cards}: GeForce cards get no PCIe P2P from the stock driver (NVIDIA's policy), so the driver reports "
            f"none rather than P2P that then fails; {host_memory} by design, the "
            "price of splitting a model over them, not a broken path to fix"),
            [_subject(f"GPU{i}", gpus) for i in sorted(models)], gpus.whole_count if gpus is not None else None,
            ask="nvidia-smi -L")
    said = " (which says OK)" if driver_ok else ""
    version = serving_log.vllm_version if serving_log is not None else ""
    first = predates("vllm", "VLLM_SKIP_P2P_CHECK", version)
    if first:  # a release that always ran the probe: its own log says how it went
        return _over_gpus_shown(gpus, serving_log, unknown(f"no proof that P2P really works: vLLM {version} runs its real P2P probe when custom "
                       f"all-reduce is on (VLLM_SKIP_P2P_CHECK came in {first}), but its verdict is not in the lines "
                       "shown" + ("; the driver reports P2P OK, which the probe exists to doubt" if driver_ok else ""),
                       hint="run CUDA `p2pBandwidthLatencyTest` or `nvbandwidth`, or paste the engine's start-up "
                       "log and ~/.cache/vllm/gpu_p2p_access_cache_for_*.json"))
    if not version and not vllm:
        # No vLLM shown: its probe's default is no part of this paste's answer.
        unproven = unknown("no proof that P2P really works: the source shows no data test between the GPUs (a copy "
                           "compared, a bandwidth matrix with P2P on and off)"
                           + ("; the driver reports P2P OK, which is no data test" if driver_ok else ""),
                           hint="run CUDA `p2pBandwidthLatencyTest` or `nvbandwidth`")
        listed = p2p_bandwidth.devices if p2p_bandwidth is not None and p2p_bandwidth.program != NVBANDWIDTH else ()
        if len(listed) >= 2:
            # p2pBandwidthLatencyTest's device lines name every GPU it would test: the verdict is over them (corpus 1321).
            return over_subjects(unproven, [f"GPU {d}" for d in listed], len(listed))
        return _over_gpus_shown(gpus, serving_log, unproven)
    return _over_gpus_shown(gpus, serving_log, unknown("no proof that P2P really works: " + (
        f"vLLM {version} reads VLLM_SKIP_P2P_CHECK; at 1 (the default in recent releases) it skips its real probe"
        if version else "vLLM skips its real probe by default in recent releases (VLLM_SKIP_P2P_CHECK=1)")
        + " and trusts the driver's report" + said,
                   hint="run CUDA `p2pBandwidthLatencyTest` or `nvbandwidth`, or start vLLM once with "
                   "VLLM_SKIP_P2P_CHECK=0 and read ~/.cache/vllm/gpu_p2p_access_cache_for_*.json"))


def _over_gpus_shown(gpus: GpuInventory | None, log: ServingLog | None, unproven: Outcome) -> Outcome:
    """The 'no data test' unknown over the GPUs the source shows, so that its coverage says which ones it speaks for:
    a listing's GPUs (the `gpus` fact: an nvidia-smi table, nccl-tests' device list) over the host's count, the
    listing's own count where it may stop early (`6 of 8 GPUs shown`, corpus 1414); else the CUDA devices of an NCCL
    log from one host over its communicator's size (`2 of 4 GPUs shown`, corpus 1489). Unchanged where fewer than two
    GPUs are shown, or the NCCL log comes from several hosts, whose device numbers repeat."""
    if gpus is not None and len(gpus.gpus) >= 2:
        total = gpus.whole_count
        return over_subjects(unproven, [g.label for g in gpus.gpus], total if total is not None else gpus.at_least,
                             ask="nvidia-smi -L", at_least=total is None)
    if (gpus is None or not gpus.gpus) and log is not None and len(log.nccl_hosts) == 1 \
            and len(log.nccl_devices) >= 2:
        return over_subjects(unproven, [f"GPU {d}" for d in log.nccl_devices], log.gpus_total())
    return unproven


def _ranks_from_nccl_log(tests: P2pDataTests | None, log: ServingLog) -> DataTest | None:
    """An nccl-tests summary that passed (`# Out of bounds values : 0 OK`) pasted without its rank lines, given the
    ranks of the NCCL log beside it: a communicator of two ranks or more, every rank of it logging from one host
    (ServingLog.one_node: `comm 0x.. rank R nranks N` for each R, one host name, nothing showing another node; corpus
    628, whose `Destroy COMPLETE` lines sit between the run's last row and its summary). None where either is not
    shown, or P2P was turned off on the run's command."""
    if tests is None or log.comm_ranks < 2 or not log.one_node() or len(log.nccl_hosts) != 1:
        return None
    run = next((t for t in tests.tests if t.program == "nccl-tests" and t.passed and not t.ranks and not t.rows_only
                and not t.p2p_off), None)
    return replace(run, hosts=log.nccl_hosts, ranks=log.comm_ranks) if run is not None else None


def _beyond_host_path(test: DataTest) -> str:
    """Why an nccl-tests run's bus bandwidth proves a direct GPU-to-GPU path, in words ("" where it does not): its
    highest busbw among rows checked with 0 wrong elements above what a copy through host memory could carry over the
    GPUs' own PCIe link, half the link's rate each way (NCCL's SHM transport crosses host memory, the model of
    ceiling/interconnect.py for `pcie-no-p2p`; nccl-tests#74: ≈20 GB/s without P2P against 40-50 with it on 8x A40).
    The link is the fastest any row of the table the run's GPU models may be has (gputable.candidates, facts/pci.py
    PCIE_GBS_PER_LANE); a model the table does not know, or a run whose models are not shown, proves nothing."""
    names = {model for _, model in test.models}
    rows = [row for name in names for row in candidates(name)] if names else []
    if not rows or any(not candidates(name) for name in names) or any(r.pcie_gen not in PCIE_GBS_PER_LANE for r in rows):
        return ""
    fastest = max(rows, key=lambda r: PCIE_GBS_PER_LANE[r.pcie_gen] * (r.pcie_width or 16))
    link = PCIE_GBS_PER_LANE[fastest.pcie_gen] * (fastest.pcie_width or 16)
    if test.busbw <= link / 2:
        return ""
    return (f", and at {test.busbw:g} GB/s bus bandwidth it moved more than the {link / 2:.1f} GB/s a path through "
            f"host memory gives over the {fastest.name}'s PCIe Gen{fastest.pcie_gen} x{fastest.pcie_width or 16} link "
            f"({link:.1f} GB/s, half of it where every byte crosses it twice): only P2P or NVLink between the GPUs "
            "gives that")


# The most a GPU's PCIe link carries each way: PCIe 6.0 x16, the fastest link of any GPU (facts/pci.PCIE_GBS_PER_LANE).
# Every byte a GPU exchanges other than over NVLink crosses that link, a network adapter's too (it sits on PCIe).
FASTEST_PCIE_GBS = max(PCIE_GBS_PER_LANE.values()) * 16
# The bus bandwidth no path but NVLink reaches: twice that link, since nccl-tests scales an all-reduce's algorithm
# bandwidth by 2(n-1)/n (nccl-tests doc/PERFORMANCE.md) and a reduction in the network (SHARP) needs each GPU to send
# and receive its data once, so over PCIe an all-reduce's busbw stays below twice the link, other collectives below it.
NVLINK_ONLY_BUSBW = 2 * FASTEST_PCIE_GBS


def _beyond_any_pcie(tests: P2pDataTests | None) -> DataTest | None:
    """An nccl-tests run over two ranks or more (its rank lines, or the highest rank number they name where the list
    is cut to its last line), P2P not turned off, that checked its results with 0 wrong elements at a bus bandwidth
    above NVLINK_ONLY_BUSBW: no path through PCIe, host memory or a network carries that, so NVLink between the GPUs
    did, and the data crossed it intact (corpus 1407, a GB200 NVL72 rack at 835-847 GB/s, one rank line shown).
    The run's hosts and models need not be shown: the rate alone rules out every other path."""
    if tests is None:
        return None
    runs = [t for t in tests.tests if t.program == "nccl-tests" and t.passed and not t.p2p_off
            and t.run_ranks >= 2 and t.busbw > NVLINK_ONLY_BUSBW]
    return max(runs, key=lambda t: t.busbw) if runs else None


def _nvlink_carried(test: DataTest, gpus: GpuInventory | None) -> Outcome:
    """IC-P2P-FUNCTIONAL ok from a checked nccl-tests run faster than any PCIe link (_beyond_any_pcie), over the
    ranks its lines show of the ranks it had."""
    ranks = test.run_ranks
    said = ("every result row shown checked with 0 wrong elements" if test.rows_only else f"checked it (\"{test.line}\")")
    judged = ok(f"nccl-tests moved data among its {ranks} ranks and {said}, at up to {test.busbw:g} GB/s bus bandwidth: "
                f"above the {NVLINK_ONLY_BUSBW:.0f} GB/s that any path over a GPU's PCIe link can show (twice the "
                f"{FASTEST_PCIE_GBS:.0f} GB/s of PCIe 6.0 x16, the fastest), so neither host memory nor a network "
                "adapter carried it, NVLink between the GPUs did, and the data crossed intact",
                actual={"busbw GB/s": test.busbw, "ranks": ranks}, evidence=[test.line])
    total = max(ranks, gpus.whole_count or 0) if gpus is not None else ranks
    return over_subjects(judged, [f"rank {r}" for r in test.numbers], total)


def _geforce_host_path(log: ServingLog | None) -> str:
    """How the log shows an engine moving data between GPUs through host memory, in words ("" where it does not):
    NCCL channels between ranks of one host all over SHM, none over P2P (`via SHM/direct/direct`, transport/shm.cc).
    llama.cpp's own log names no route for its copies between devices (corpus 1283, 1256): it shows none."""
    if log is None:
        return ""
    local = [c for c in log.channels if c.transport in ("SHM", "P2P") and c.src != c.dst]
    if local and all(c.transport == "SHM" for c in local):
        return f"NCCL connects them through host shared memory (\"{local[0].line}\")"
    return ""


# The lowest unidirectional P2P write rate read as a working peer path where the run shows no P2P-disabled matrix to
# compare with: PCIe Gen4 x16 P2P of 20-26 GB/s is healthy (the check's Traps), Gen5 and NVLink run faster, while P2P
# that ACS or a translating IOMMU redirects through the root complex runs at a few GB/s (corpus 361: 1.6-2.6 GB/s).
P2P_LINE_RATE_FLOOR = 20.0


def _nvbandwidth_peer(key: str, cells: tuple[tuple[int, int, float], ...], gpus: GpuInventory | None) -> Outcome:
    """IC-P2P-FUNCTIONAL ok from an nvbandwidth peer test that measured every pair of its GPUs: it runs only where
    CUDA grants peer access (a pair without it waives the test) and checks the data of each copy (memcpy.cpp
    memcmpPattern, unless run with --skipVerification)."""
    shown = sorted({d for a, b, _ in cells for d in (a, b)})
    values = [v for _, _, v in cells]
    span = f"{min(values):.2f}" + (f" to {max(values):.2f}" if max(values) > min(values) else "")
    judged = ok(f"nvbandwidth's {key} copied between every pair of the {len(shown)} GPUs of its matrix "
                f"({span} GB/s): it runs only with peer access granted, checks the "
                "data each copy moved, and none of its checks failed", actual={f"{a}->{b}": v for a, b, v in cells[:12]})
    return over_subjects(judged, [f"GPU {d}" for d in shown], gpus.whole_count if gpus is not None else None)


def _measured(bandwidth: P2pBandwidth) -> list[str]:
    """The GPUs (CUDA ordinals) of the pairs p2pBandwidthLatencyTest measured both ways, as coverage subjects."""
    return [f"GPU {d}" for d in sorted({d for a, b, _, _ in bandwidth.measured() for d in (a, b)})]


_P2P_DATA_TEST = ("run CUDA `p2pBandwidthLatencyTest` (its verification pass) or `nccl-tests` all_reduce_perf with -c 1 "
                  "on these GPUs to see data cross intact")


def _nccl_p2p_verdict(log: ServingLog, failed: list[str], runs: NcclTestRuns | None = None) -> Outcome:
    """IC-P2P-FUNCTIONAL from the pairs an NCCL log connected over P2P (ServingLog.p2p_pairs), over the ranks shown.

    A P2P channel line proves that the driver enabled peer access between its two GPUs and that NCCL mapped the
    peer's buffers (CUDA IPC / cuMem): set-up, not data crossing intact. A pair behind ACS redirect or a translating
    IOMMU connects too and hangs or corrupts later, so the lines alone leave it unknown, naming them (the reading of
    10 of the 17 blind expectations on channel lines alone, corpus 400, 463, 787, 788, 968, 1149, 1225, 1312-1314).
    `ok` where the same source shows a collective over them completing with its data checked: nccl-tests result rows
    with 0 wrong elements, none with more (corpus 759, 1193). An NCCL warning, a P2P failure or a row with wrong
    elements in the same source leaves it unknown, quoted.
    """
    pairs = log.p2p_pairs()
    ranks = sorted({r for pair in pairs for r in pair})
    shown = ", ".join(f"{a}-{b}" for a, b in pairs[:8]) + (f" and {len(pairs) - 8} more" if len(pairs) > 8 else "")
    details = sorted({c.detail for c in log.channels if c.transport == "P2P"} - {""})
    said = (f"NCCL connected rank pair(s) {shown} over P2P" + (f" ({', '.join(details)})" if details else ""))
    evidence = [c.line for c in log.channels if c.transport == "P2P"][:3]
    subjects = [f"rank {r}" for r in ranks]
    bad = failed + list(log.nccl_warnings) + list(runs.wrong_rows if runs is not None else ())
    if bad:
        return unknown(f"{said}, but the same log then shows a failure (\"{bad[0]}\"): peer access set up and then "
                       "failing is what ACS redirect or a translating IOMMU gives, and other faults give it too",
                       actual={"p2p pairs": [f"{a}-{b}" for a, b in pairs], "failure": bad[:3]},
                       hint=_P2P_DATA_TEST)
    other = sorted({c.transport for c in log.channels} - {"P2P"})
    others = f" ({', '.join(other)} on the other links: NCCL's choice for their path)" if other else ""
    checked = runs.checked_rows if runs is not None else ()
    if checked:
        judged = ok(f"{said}{others}, and the nccl-tests run over them checked its results: 0 wrong elements in "
                    f"each of the {len(checked)} result row(s) shown (\"{checked[0]}\"), so data crossed the peer "
                    "path intact", actual={"p2p pairs": [f"{a}-{b}" for a, b in pairs], "rows": list(checked[:4])},
                    evidence=evidence + list(checked[:2]))
        return over_subjects(judged, subjects, log.gpus_total())
    judged = unknown(f"{said}{others}: the driver enabled peer access between those GPUs and NCCL mapped each peer's "
                     "buffers, with no P2P failure or NCCL warning in the lines shown; that is NCCL's set-up, not data "
                     "crossing: no collective over these connections is shown completing with its data checked, and "
                     "under ACS redirect or a translating IOMMU a connected pair can still hang or corrupt",
                     hint=_P2P_DATA_TEST, actual={"p2p pairs": [f"{a}-{b}" for a, b in pairs]})
    return over_subjects(replace(judged, evidence=tuple(evidence)), subjects, log.gpus_total())


_HOST_PATHS = frozenset(("PHB", "NODE", "SYS"))
_SWITCH_PATHS = frozenset(("PIX", "PXB"))


def _refused_paths(topo: TopoMatrix | None) -> frozenset[str]:
    """The path kinds a refused pair can be on: the one pair of a two-GPU matrix, or every pair's where they are of
    one side (all behind switches, or all through a host bridge or CPU). A refusal names CUDA ordinals, not
    nvidia-smi's indices, so a matrix of mixed paths does not say which path a pair is on."""
    if topo is None:
        return frozenset()
    kinds = frozenset(link_kind(c) for _, _, c in topo.gpu_pairs())
    return kinds if kinds and (kinds <= _HOST_PATHS or kinds <= _SWITCH_PATHS) else frozenset()


def _refusal_verdict(refusals: PeerRefusals, models: dict[int, str], topo: TopoMatrix | None,
                     gpus: GpuInventory | None) -> Outcome:
    """IC-P2P-FUNCTIONAL from the driver's refusals of peer access that programs log (facts/peer_access.py)."""
    pairs = ", ".join(f"{min(p)}-{max(p)}" for p in refusals.pairs[:6])
    said = f"the driver refuses peer access between CUDA device(s) {pairs} (\"{refusals.refusals[0].line}\")"
    lines = [r.line for r in refusals.refusals][:4]
    paths = _refused_paths(topo)
    if _is_geforce(models):
        return not_an_issue(f"{said} on {', '.join(sorted(set(models.values())))}: NVIDIA's policy for GeForce cards, "
                            "not P2P reported OK and then failing; NCCL goes through host memory", evidence=lines)
    across = _across_architectures(refusals, models)
    if across:
        return over_subjects(not_an_issue(
            f"{said}: every refused pair joins GPUs of different architectures ({across}), between which CUDA offers "
            "no peer access on any driver; not P2P reported OK and then failing, and those pairs copy through host "
            "memory", actual=[pairs], evidence=lines),
            [f"GPU {d}" for d in sorted(models)], gpus.whole_count if gpus is not None else None)
    if paths and paths <= _HOST_PATHS:
        return not_an_issue(f"{said}, and the GPUs reach each other through {', '.join(sorted(paths))} (a host bridge "
                            "or the CPU): the driver gives no peer access on this path on this platform and says so; "
                            "P2P is absent, not reported OK and then failing, and NCCL goes through host memory",
                            actual=[pairs], evidence=lines)
    if NCCL in refusals.said_by or paths:
        why = (f"the GPUs are behind one PCIe switch ({', '.join(sorted(paths))})" if paths else
               "NCCL asks the driver only for a pair its topology allows P2P on")
        # With the model not shown the refusal is still P2P lost where the path allows it; GeForce is named as a cause.
        cause = ("ACS redirect, the IOMMU or a VM's view of the PCIe tree blocks it" if models else "the source does not "
                 "show whether the model (GeForce: no P2P by NVIDIA's policy), ACS, the IOMMU or a VM is the cause")
        refused = issue(f"{said}, where P2P is expected ({why}): P2P is not used, the pair's traffic goes through host "
                        f"memory; {cause}",
                        actual=lines, expected="peer access between the GPUs of a P2P path", severity="medium",
                        confidence="documented", evidence=lines, fix=_PCIE_P2P_FIX,
                        subjects=list(gpus.bdfs) if gpus is not None and len(gpus.bdfs) == 2 else [])
        return over_subjects(refused, [f"GPU {d}" for d in sorted({d for p in refusals.pairs for d in p})],
                             gpus.whole_count if gpus is not None else None)
    return unknown(f"{said}: whether it should allow it depends on the path between them (a PCIe switch, or a host "
                   "bridge or CPU) and the model", hint="paste `nvidia-smi topo -m` and `nvidia-smi -L`",
                   actual=lines)


def _across_architectures(refusals: PeerRefusals, models: dict[int, str]) -> str:
    """The architectures, in words, where every pair the driver refused joins two GPUs whose models the source names
    and whose architectures (gputable.architecture_of) differ; "" otherwise. CUDA grants peer access only between
    GPUs of one architecture (a mixed box: Ada, Blackwell and Ampere cards under a P2P-patched driver, corpus 1217):
    such a refusal is the driver's design, whatever the path. The indices of the refusals and of the models must be
    one program's CUDA ordinals (a mixed box whose nvidia-smi order differs from CUDA's could mislead: the rule
    needs every refused pair to cross architectures, so one same-architecture refusal keeps the old verdict)."""
    archs: dict[int, str] = {}
    for d in {d for p in refusals.pairs for d in p}:
        arch = architecture_of(models[d]) if d in models else ""
        if not arch or arch == "pre-Turing":
            return ""
        archs[d] = arch
    if not refusals.pairs or any(archs[a] == archs[b] for a, b in (tuple(p) for p in refusals.pairs)):
        return ""
    return ", ".join(sorted(set(archs.values())))


# --- IC-CUSTOM-ALLREDUCE ---------------------------------------------------------------------

_KEY_NEGATIVE = ("no NVLink between these GPUs (PCIe only): vLLM and SGLang turn custom all-reduce off for TP > 2 "
                 "by design (`world_size > 2 and not fully_connected`); the all-reduce goes through NCCL and small "
                 "decode all-reduces are latency-bound. Expected, not fixable by configuration; a TP=2 pair can "
                 "still use custom all-reduce when P2P works")


@check(
    "IC-CUSTOM-ALLREDUCE",
    title="When vLLM/SGLang custom all-reduce can and cannot run",
    severity="high",
    confidence="source-verified",
    fix=Fix.of(
        step("NVLink/NVSwitch: bring the fabric up (DRV-FABRIC-MANAGER, DRV-NVLINK-HEALTH); PCIe TP=2: fix "
             "ACS/IOMMU and clear vLLM's P2P cache", sh(CLEAR_VLLM_P2P_CACHE),
             cost="runtime", scope="container"),
        step("SGLang on GeForce: add --disable-custom-all-reduce (or --enable-p2p-check); then restart the engine",
             cost="restart", scope="container",
             keep=keep_text("the same flags in the service definition"))),
    references=(VLLM_CUSTOM_AR, SGLANG_P2P_CRASH, "https://github.com/vllm-project/vllm/issues/56128"),
    applies_to="allreduce-engine",
)
def custom_allreduce(serving_engine: ServingEngine, serving_processes: ServingProcesses | None = None,
                     serving_log: ServingLog | None = None, gpu_topology: TopoMatrix | None = None,
                     gpus: GpuInventory | None = None, collect_env: CollectEnv | None = None,
                     gpu_p2p: P2pMatrix | None = None, log_date: LogDate | None = None,
                     nvlink_status: NvlinkStatus | None = None,
                     stated_engines: StatedEngines | None = None,
                     engine_commands: EngineCommands | None = None) -> Outcome:
    """Reads: the engine's flags (`--tensor-parallel-size`, `--disable-custom-all-reduce`, SGLang
    `--enable-p2p-check`) from /proc, else from a pasted command line or a container's engine
    arguments, a pasted engine log ("Custom allreduce is disabled because
    ..."), `nvidia-smi topo -m` (NVLink between the TP GPUs), `nvidia-smi topo -p2p` (whether
    the driver allows P2P at all) and the GPU models.

    Bad value: custom all-reduce disabled on an NVLink/NVSwitch system (the engine did not see
    NVLink: fabric or links down); disabled at TP=2 on a P2P-capable PCIe pair (ACS/IOMMU, stale
    cache); `--disable-custom-all-reduce` where it could run (NVLink, or a TP=2 pair the driver
    gives P2P); SGLang on GeForce with TP > 1 and neither `--enable-p2p-check` nor
    `--disable-custom-all-reduce` (crash "peer access is not supported between these two devices").

    Why: custom all-reduce (one-shot P2P kernels, CUDA-graph friendly) beats NCCL on small decode
    all-reduces. vLLM CustomAllreduce: world sizes 2/4/6/8; `world_size > 2 and not
    fully_connected` (NVML NVLink) disables it; at world size 2 it needs P2P. SGLang has the same
    gate and skips the real P2P probe unless `--enable-p2p-check`.

    Traps: no NVLink on RTX PRO 6000 / L40S / RTX 4090 means custom all-reduce is off for TP 4 or
    8 by design: a key negative result, not a fix. At TP=2 such cards can use it if P2P works: ok where the
    driver's P2P table shows it between the pair, unknown where no source shows it. With no TP size shown, such
    cards (not GeForce) leave it unknown: off by design above two, on for a P2P pair (corpus 460, 887, 1450).
    A pasted engine command line that names no TP size runs the engines' default, TP 1 (not applicable),
    `--disable-custom-all-reduce` on it too: it turns off nothing that could run (corpus 1646).
    The engine's own log settles it before any rule of the host: each rank's `Registering N cuda graph addresses`
    (custom_all_reduce.py) shows custom all-reduce on, over the ranks it names (one GPU each), and a CUDA error raised
    in custom_all_reduce.cuh ("peer access is not supported between these two devices") shows it on where it cannot
    work: an issue, fixed by `--disable-custom-all-reduce` or by fixing P2P.
    SGLang with `--enable-p2p-check` (its command, or the user's words saying it was added: facts/engine_command
    .stated_switches) on GeForce cards (the names shown, in the user's words too: `two 4090s`) not shown NVLinked or
    bridged is not an issue: its real P2P test finds none from the stock driver and keeps custom all-reduce off, NCCL
    carries the all-reduce by design (corpus 1352, a TP 2 pair slower than one card).
    `--disable-custom-all-reduce` where the source shows neither the GPU models nor their links is unknown: whether
    it turned off something that could run is not shown.
    A model name that means an NVSwitch part and a part without one (`H200`: the H200 SXM or the H200 NVL, in the
    user's words of corpus 1050 and 1052) shows no NVLink: unknown. The user's words that say the GPUs are NVLinked
    (`2xH200 NVlinked`, corpus 848) read the name as its NVLink part (facts/gpus.stated_gpus).
    GeForce cards have no P2P with the stock driver: NCCL carries the all-reduce (vLLM at TP 2 or more on
    GeForce cards not shown NVLink-connected: not an issue, vLLM's own P2P test turns it off; so is
    `--disable-custom-all-reduce` there, which turns off nothing that could run, unless a P2P table shows the driver
    giving the pair P2P, corpus 2798). GeForce cards whose
    `nvidia-smi nvlink -s` shows every link up are a bridged pair that P2P may cross: unknown until the engine's log
    says (corpus 1028). vLLM's "lacks GPU P2P capability" after its "Skipping P2P check and trusting the driver's P2P
    report" is the driver's own refusal of P2P: off by design, not an issue (corpus 1032), as where the driver's P2P
    table refuses every pair. So is "lacks GPU P2P capability." without "or P2P test failed": the wording of the
    releases whose only P2P gate was the driver's report (vLLM before vllm-project/vllm#2760, Aphrodite 0.5; corpus
    1640; facts/serving_logs.ServingLog.driver_p2p_refusal). The wording with "or P2P test failed" at TP 2 or an
    unshown TP size, where the source shows neither the GPU models nor their links, is unknown: it does not separate
    cards the driver gives no P2P from a P2P-capable pair whose test failed (corpus 328, 1914). The engine's own line that it turned custom all-reduce off because the group spans
    nodes or its world size is one the kernels do not take (`Custom allreduce is disabled because this process group
    spans across nodes`, `... due to an unsupported world size: 16`; SGLang's `CustomAllreduce is disabled ...` too)
    is its design at work: not an issue (corpus 1248). A TP group that
    spans nodes never runs it: not applicable (facts/parallelism.tp_group_across_nodes: the command's `--nnodes` above
    PP x DP, or vLLM's Ray warning that the TP size is bigger than the GPUs it reserves on a node, corpus 1863). Nor does a
    TP group larger than the largest world size it takes (facts/_parse.CUSTOM_AR_WORLD_SIZES: 8), such as vLLM
    `--tensor-parallel-size 16` over two nodes (corpus 987): not applicable. An engine shown on one GPU
    (facts/parallelism.one_gpu_engine) has no all-reduce: not applicable.
    A run whose log's timestamps date it before the engine had custom all-reduce (facts/applicability.FEATURE_SINCE:
    vLLM before vllm-project/vllm#2192) ran none: not applicable.
    """
    engine, tp, root = serving_engine.engine, serving_engine.shown_tp, serving_engine.shown
    before = dated_before("allreduce-engine", engine, log_date.day) if log_date is not None else ""
    if before:
        return not_applicable(f"{_engine_name(engine)}: {before}; NCCL carries the all-reduce",
                              actual={"dated": log_date.day if log_date is not None else None})
    models = _models(gpus)
    topo_gpus = _engine_gpus(gpu_topology, root, tp, collect_env) if gpu_topology is not None else None
    nvlinked = gpu_topology.all_nvlinked(topo_gpus) if gpu_topology is not None else None
    if nvlinked is None and models and _switch_expected(models) is not None \
            and all(agreed(candidates(m), lambda c: c.nvlink_kind == "switch") for m in models.values()):
        nvlinked = True  # an ambiguous name (`H200`: SXM or NVL) is no NVSwitch part (corpus 1050, 1052)
    pcie_only = _no_nvlink(gpu_topology, models)
    geforce = _is_geforce(models)
    log_reasons = list(serving_log.custom_ar_disabled) if serving_log is not None else []
    # The engine's own word that it turned custom all-reduce off by its design, for a group that spans nodes or a world
    # size its kernels do not take: the engine decided and NCCL carries the all-reduce (corpus 1248), as for its
    # PCIe-only line below. Only the command's flags (--nnodes, a TP size above 8) make it not applicable.
    by_design = next(((r, line) for r, line in log_reasons if r in (AR_MULTI_NODE, AR_WORLD_SIZE)), None)
    if by_design is not None:
        reason, line = by_design
        m = CUSTOM_AR_DISABLED.search(line)
        logged = (line[m.start():] if m else line).strip()[:200]
        why = ("the TP group spans nodes, and its kernels share buffers through CUDA IPC within one node only"
               if reason == AR_MULTI_NODE else
               f"its kernels take world sizes {', '.join(map(str, CUSTOM_AR_WORLD_SIZES))} only")
        return not_an_issue(f"the engine logged that it turned custom all-reduce off (\"{logged}\"): {why}, "
                            "so NCCL carries the all-reduce, by design; nothing on the host to change",
                            actual=line, evidence=[line])
    if across := tp_group_across_nodes(serving_engine, serving_log):
        return not_applicable(f"the TP group spans nodes ({_engine_name(engine)} {across}): the engine turns custom "
                              "all-reduce off for a group that spans nodes (\"Custom allreduce is disabled because this "
                              "process group spans across nodes\") and NCCL carries the all-reduce",
                              actual={"tp": tp, "nnodes": root.flag("--nnodes") if root is not None else None})
    if engine in SERVING_ENGINES and tp is not None and tp > max(CUSTOM_AR_WORLD_SIZES):
        return not_applicable(f"{_engine_name(engine)} TP={tp}: custom all-reduce runs only inside one node at world "
                              f"sizes {', '.join(map(str, CUSTOM_AR_WORLD_SIZES))}, so a group of {tp} GPUs (several "
                              "nodes, or more GPUs than it takes) never runs it and NCCL carries the all-reduce",
                              actual={"tp": tp})
    flag_off = (root is not None and root.has_flag("--disable-custom-all-reduce")) or (
        serving_log is not None and serving_log.disable_custom_all_reduce is True)
    for reason, line in log_reasons:
        if reason in (AR_PCIE_ONLY, AR_NO_P2P):
            if nvlinked:
                return issue("the engine disabled custom all-reduce on an NVLink-connected GPU set: it did not see "
                             "NVLink/P2P between its GPUs (fabric manager or NVLink down, or P2P broken)",
                             actual=line, expected="custom all-reduce enabled over NVLink", evidence=[line])
            if reason == AR_PCIE_ONLY:
                return not_an_issue(_KEY_NEGATIVE[0].upper() + _KEY_NEGATIVE[1:] + " (the engine logged it)",
                                    actual=line, evidence=[line])
            if geforce:
                return not_an_issue(f"custom all-reduce is off because {', '.join(sorted(set(models.values())))} "
                                    "has no P2P with the stock driver (NVIDIA policy); NCCL carries the all-reduce",
                                    actual=line, evidence=[line])
            driver_only = serving_log.driver_p2p_refusal if serving_log is not None else ""
            if driver_only:
                # The engine ran no P2P test of its own: the driver reported no P2P, as on cards without it (GeForce)
                # or a platform that gives none (WSL, corpus 1640), and the engine leaves custom all-reduce off by
                # design (as where `nvidia-smi topo -p2p` shows it refused).
                how = ("vLLM skipped its own P2P test and trusted the driver's report" if serving_log is not None
                       and serving_log.p2p_check_skipped else "this release's only P2P gate is the driver's report; "
                       "its line does not say \"or P2P test failed\" as releases with a real P2P test do")
                return not_an_issue(f"custom all-reduce is off because the driver reports no P2P between the GPUs "
                                    f"({how}): off by design on a platform or cards the driver gives no P2P, such as "
                                    "GeForce or WSL; NCCL carries the all-reduce; whether P2P should exist there is "
                                    "IC-P2P-FUNCTIONAL's question", actual=line, evidence=list(dict.fromkeys(
                                        [driver_only, line])))
            if not models and gpu_topology is None and gpu_p2p is None and (tp is None or tp <= 2):
                # The line does not separate cards the driver gives no P2P (by design) from a P2P-capable pair whose
                # test failed (a fault): without the GPUs or their links the cause is open (corpus 328, 1914). Above
                # two GPUs the engine reaches its P2P test only after NVML reported them NVLink-connected.
                return unknown("the engine turned custom all-reduce off because the platform lacks GPU P2P or its P2P "
                               "test failed, but the source shows neither the GPU models nor their links: cards the "
                               "driver gives no P2P (GeForce, many VMs) turn it off by design, while on a P2P-capable "
                               "pair it is a fault (ACS, IOMMU, a stale P2P cache)", actual=line,
                               hint="`nvidia-smi -L` and `nvidia-smi topo -p2p r`")
            return issue("custom all-reduce is off at TP=2 on PCIe: the real P2P test failed or the platform lacks "
                         "P2P (ACS redirect / translating IOMMU, or a stale ~/.cache/vllm P2P cache file; see "
                         "IC-P2P-FUNCTIONAL, FW-ACS-P2P)", actual=line, expected="custom all-reduce on a P2P pair",
                         severity="medium", evidence=[line])
        if reason == AR_RELEASE:
            # The release's own switch (vllm-project/vllm#2808), the same on every host: no host fix.
            return not_an_issue("this vLLM release turns custom all-reduce off for every TP run (\"temporarily "
                                "disabled due to stability issues\", vllm-project/vllm#2808), whatever the host: "
                                "NCCL carries the all-reduce; a later release turns it back on", actual=line,
                                evidence=[line])
        if reason == AR_NO_LIBRARY:
            return ok("custom all-reduce library not present in this build (CPU/other platform): NCCL is used",
                      actual=line, evidence=[line])
    errors = serving_log.custom_ar_errors if serving_log is not None else ()
    if errors:
        return issue(f"custom all-reduce ran and failed (a CUDA error in its kernels or a traceback through the step "
                     f"that shares its buffers between ranks: \"{errors[0]}\"): it cannot "
                     "share its buffers between these GPUs as they are set up (peer access or CUDA IPC between them), "
                     "and the engine stops", actual=list(errors[:2]),
                     expected="custom all-reduce off (--disable-custom-all-reduce) where P2P does not work",
                     evidence=list(errors[:2]))
    registered = serving_log.custom_ar_registered if serving_log is not None else ()
    if registered and not flag_off:
        ranks = serving_log.custom_ar_ranks if serving_log is not None else ()
        judged = ok(f"custom all-reduce runs: {len(ranks) or 'the'} rank(s) {', '.join(ranks)} registered their CUDA "
                    f"graph buffers with it (\"{registered[0]}\"); whether P2P carries its data intact is "
                    "IC-P2P-FUNCTIONAL's question", actual={"registered": list(ranks)}, evidence=list(registered[:2]))
        return over_subjects(judged, ranks) if ranks else judged
    if engine == "sglang" and geforce and (tp or 1) > 1 and root is not None and not flag_off \
            and not root.has_flag("--enable-p2p-check"):
        return issue("SGLang with TP > 1 on GeForce without --enable-p2p-check or --disable-custom-all-reduce: "
                     "SGLang assumes P2P and crashes with \"peer access is not supported between these two devices\"",
                     actual=" ".join(root.argv), expected="--disable-custom-all-reduce (or --enable-p2p-check)",
                     severity="medium", subjects=[root.label], evidence=[f"{root.label}: {' '.join(root.argv)}"])
    bridged = nvlink_status is not None and len(nvlink_status.gpus) >= 2 and all(g.active for g in nvlink_status.gpus)
    said = stated_engines.switches if stated_engines is not None else ()
    p2p_check = (root is not None and root.has_flag("--enable-p2p-check")) or "--enable-p2p-check" in said
    if engine == "sglang" and geforce and p2p_check and not flag_off and (tp or 2) > 1 and not nvlinked \
            and not bridged and not (gpu_topology is not None and gpu_topology.has_nvlink):
        # SGLang's --enable-p2p-check runs the real P2P test (gpu_p2p_access_check) instead of trusting NVML; the stock
        # driver gives GeForce cards no peer access, so the test fails and custom all-reduce stays off (corpus 1352).
        names = ", ".join(sorted({gpus.in_words(m) if gpus is not None else m for m in models.values()}))
        where = (f"{root.label}: {' '.join(root.argv)[:300]}" if root is not None and root.has_flag("--enable-p2p-check")
                 else stated_engines.switch_line if stated_engines is not None else "")
        return not_an_issue(f"SGLang {_tp_text(tp)} with --enable-p2p-check on GeForce cards ({names}): the stock "
                            "driver gives them no PCIe P2P, so SGLang's P2P test keeps custom all-reduce off and NCCL "
                            "carries the all-reduce through host memory, by design; slower than one card at small "
                            "batches is the price of splitting the model, not a fault (a bridged pair would use NVLink)",
                            actual={"tp": tp, "family": "geforce", "enable_p2p_check": True},
                            evidence=[where] if where else [])
    # One GPU has no all-reduce to turn off: `--disable-custom-all-reduce` there changes nothing (corpus 1646).
    if tp is not None and tp < 2:
        return not_applicable(f"{_engine_name(engine)} runs with TP={tp}: no all-reduce between GPUs")
    if tp is None and gpus is not None and gpus.whole_count == 1:
        return not_applicable(f"one GPU ({gpus.counts[0][0]}): no all-reduce between GPUs")
    if one_gpu := one_gpu_engine(serving_engine, gpus, engine_commands):
        return not_applicable(f"{one_gpu}: no all-reduce between GPUs")
    if flag_off:
        who = (root.comm if root.pid == 0 else root.label) if root is not None else ""
        shown = [f"{who}: {' '.join(root.argv)[:300]}"] if root is not None else []
        if nvlinked:
            return issue("--disable-custom-all-reduce on an NVLink-connected GPU set: small decode all-reduces go "
                         "through NCCL instead of the faster one-shot kernels; remove it unless it is there for "
                         "debugging", actual="--disable-custom-all-reduce", expected="flag absent", severity="medium",
                         subjects=[who] if who else [], evidence=shown)
        if geforce and engine == "vllm" and not bridged and not (gpu_topology is not None and gpu_topology.has_nvlink) \
                and not (gpu_p2p is not None and any(st == "OK" for (a, b), st in gpu_p2p.cells.items() if a != b)):
            # The stock driver gives GeForce cards no PCIe P2P: vLLM's own P2P test would keep custom all-reduce off,
            # so the flag turns off nothing that could run (corpus 2798); a driver shown giving them P2P (a patched
            # one, corpus 910) is judged as any PCIe pair below. SGLang runs it without that test unless
            # `--enable-p2p-check` asks (above): there the flag is the fix.
            names = ", ".join(sorted({gpus.in_words(m) if gpus is not None else m for m in models.values()}))
            return not_an_issue(f"--disable-custom-all-reduce on GeForce cards ({names}), none shown bridged: the "
                                "stock driver gives them no PCIe P2P, so vLLM's own P2P test would keep custom "
                                "all-reduce off anyway, and NCCL carries the all-reduce either way",
                                actual={"flag": "--disable-custom-all-reduce", "family": "geforce"}, evidence=shown)
        if tp == 2 and not geforce and gpu_p2p is not None and gpu_p2p.ok_between(topo_gpus or []):
            return issue(f"--disable-custom-all-reduce at TP=2 on a PCIe pair the driver gives P2P ({', '.join(topo_gpus or [])}"
                         "): the one-shot custom all-reduce could run there and beats NCCL on small decode "
                         "all-reduces; remove the flag unless it works around a P2P fault",
                         actual="--disable-custom-all-reduce", expected="flag absent", severity="medium",
                         subjects=[who] if who else [],
                         evidence=shown + [gpu_p2p.lines[g] for g in topo_gpus or [] if g in gpu_p2p.lines][:2])
        if gpu_topology is None and gpu_p2p is None and not models and (tp is None or tp > 1):
            # Neither the GPUs nor their links are shown: whether the flag turned off something that could run is not.
            return unknown(f"--disable-custom-all-reduce turns custom all-reduce off for {_engine_name(engine)} "
                           f"{_tp_text(tp)}, but the source shows neither the GPU models nor their links, so whether "
                           "it could have run (NVLink, or P2P at TP=2) is not shown", actual="--disable-custom-all-reduce",
                           hint="`nvidia-smi topo -m`")
        return ok("custom all-reduce is disabled by flag" + (f"; {_KEY_NEGATIVE}" if pcie_only else ""),
                  actual="--disable-custom-all-reduce")
    if pcie_only and tp is None and not geforce and not (gpu_p2p is not None and gpu_p2p.refuses_all()):
        # Without the TP size the gate is not decided: off by design for a group of more than two, but a pair the
        # driver gives P2P runs it (corpus 460, 887, 1450). GeForce cards have no P2P at any size (below).
        count = len(gpu_topology.gpus) if gpu_topology is not None else len(models)
        return unknown(f"{_engine_name(engine)} (TP size not shown) on GPUs without NVLink (PCIe only"
                       + (f", {count} GPUs" if count > 1 else "") + "): a group of more than two has custom all-reduce "
                       "off by design (NCCL carries the all-reduce), while a TP=2 pair runs it where P2P works; which "
                       "one this run is, the source does not show", actual={"tp": None, "nvlink": False},
                       hint="the engine's command line (its --tensor-parallel-size), or its log's 'Custom allreduce' "
                       "lines")
    if pcie_only and (tp is None or tp > 2):
        count = len(gpu_topology.gpus) if gpu_topology is not None else len(models)
        if tp is not None or count > 2:
            # A cut matrix shows the paths of its whole rows only: its "no NVLink" is said over those GPUs, with the
            # coverage the other checks give (`2 of 8 GPUs shown`, corpus 1404), not as the host's count.
            cut = gpu_topology is not None and bool(gpu_topology.unshown_pairs()) and bool(_no_nvlink(gpu_topology, models))
            judged = not_an_issue(_KEY_NEGATIVE[0].upper() + _KEY_NEGATIVE[1:]
                                  + (f" (TP={tp})" if tp else "" if cut else f" ({count} GPUs)"),
                                  actual={"tp": tp, "nvlink": False})
            if cut and gpu_topology is not None:
                return over_subjects(judged, list(gpu_topology.whole_rows()), count, ask="nvidia-smi topo -m")
            return judged
    if gpu_p2p is not None and gpu_p2p.refuses_all() and not nvlinked:
        states = gpu_p2p.states_not_ok()
        return not_an_issue(f"the driver reports no P2P between any GPU pair ({states}): custom all-reduce needs it, "
                            "so it stays off by design and NCCL carries the all-reduce (vLLM decides this itself; "
                            "SGLang needs --disable-custom-all-reduce or --enable-p2p-check)",
                            actual={"p2p": states, "tp": tp})
    if geforce and engine == "vllm" and tp is not None and tp >= 2 and not nvlinked and bridged:
        # NVLink bridges up between the cards (corpus 1028): P2P may run over them, and only vLLM's verdict shows it.
        up = nvlink_status.active_links(tuple(f"GPU{g.index}" for g in nvlink_status.gpus)) if nvlink_status else []
        return unknown(f"vLLM TP={tp} on GeForce cards whose NVLink bridge is up ({'; '.join(up)}): vLLM turns custom "
                       "all-reduce on where its P2P test passes over the bridge, and the source does not show its "
                       "verdict", actual={"tp": tp, "nvlink": up},
                       hint="the engine log's 'Custom allreduce' lines, or `nvidia-smi topo -p2p r`")
    if geforce and engine == "vllm" and tp is not None and tp >= 2 and not nvlinked:
        # vLLM tests P2P itself (gpu_p2p_access_check) and leaves custom all-reduce off where the driver refuses it.
        names = ", ".join(sorted({gpus.in_words(m) if gpus is not None else m for m in models.values()}))
        return not_an_issue(f"vLLM TP={tp} on GeForce cards ({names}): the stock driver gives them no PCIe P2P, so "
                            "vLLM's own P2P test leaves custom all-reduce off and NCCL carries the all-reduce, by "
                            "design (a bridged pair would use NVLink instead)", actual={"tp": tp, "family": "geforce"})
    if engine == "" and tp is None:
        if serving_processes is None:
            return unknown("the serving engine (its flags or its log) is not in the source",
                           hint="paste the engine's start-up log, or audit the host while it serves")
        return not_applicable("no vLLM/SGLang engine found and no engine log given")
    if pcie_only and tp == 2:
        # Custom all-reduce runs on a PCIe pair only where P2P works between them: an ok needs that shown.
        if gpu_p2p is not None and gpu_p2p.ok_between(topo_gpus or []):
            return ok(f"TP=2 on a PCIe pair the driver gives P2P ({', '.join(topo_gpus or [])}): custom all-reduce "
                      "can run (whether P2P carries data correctly is IC-P2P-FUNCTIONAL's)",
                      actual={"tp": 2, "nvlink": False})
        return unknown("TP=2 on PCIe: custom all-reduce runs only where P2P works between the pair, which the "
                       "source does not show", actual={"tp": 2, "nvlink": False}, hint="`nvidia-smi topo -p2p r`")
    # A log without its TP size still shows the ranks that wrote it: at least that many.
    shown_ranks = serving_log.ranks if serving_log is not None and tp is None else ()
    tp_words = (f"TP={tp}" if tp else f"TP of at least {len(shown_ranks)} (ranks {', '.join(shown_ranks[:8])} "
                "shown in its log)" if shown_ranks else _tp_text(None))
    if nvlinked:
        can = ok(f"{_engine_name(engine)} {tp_words} on NVLink-connected GPUs: custom all-reduce can run"
                 + (" (no 'disabled' line in the log)" if serving_log is not None else ""),
                 actual={"tp": tp, "nvlink": True})
        # Over the GPUs read as NVLink-connected: the group's matrix rows, else the GPUs whose models say so (corpus 760).
        read = list(topo_gpus or ()) or ([g.label for g in gpus.gpus] if gpus is not None else [])
        return over_subjects(can, read, ask="nvidia-smi topo -m") if read else can
    return unknown(f"{_engine_name(engine)} {tp_words}: whether its GPUs are NVLink-connected is not in the source",
                   hint="`nvidia-smi topo -m`, or the engine log with its 'Custom allreduce' lines")


def _engine_name(engine: str) -> str:
    return {"vllm": "vLLM", "sglang": "SGLang"}.get(engine, "the engine")


def _tp_text(tp: int | None) -> str:
    """`TP=4`, or in words where the source does not give the size: a user does not read `TP=?` (r66, corpus 1400)."""
    return f"TP={tp}" if tp else "(TP size not shown)"


# --- IC-NVIDIA-PEERMEM -----------------------------------------------------------------------


@check(
    "IC-NVIDIA-PEERMEM",
    title="nvidia_peermem does not affect GPU-to-GPU traffic inside one host",
    severity="medium",
    confidence="source-verified",
    fix=Fix.of(step("Load nvidia-peermem (needs MLNX_OFED / inbox rdma-core)", "modprobe nvidia-peermem",
                       changes="the loaded kernel modules", revert=["modprobe -r nvidia-peermem"],
                       keep=(keep_line("nvidia-peermem", "/etc/modules-load.d/nvidia-peermem.conf"),
                             keep_text("or the DMA-BUF path (open kernel module, Linux >= 5.12; KVER-DMABUF)")))),
    references=(NCCL_GDR, GPU_OPERATOR_RDMA, NCCL_GPU_TROUBLESHOOTING),
)
def nvidia_peermem(modules: LoadedModules | None = None, rdma: RdmaDevices | None = None,
                   serving_log: ServingLog | None = None, serving_processes: ServingProcesses | None = None,
                   nvidia_kernel: NvidiaKernel | None = None, kernel: KernelInfo | None = None,
                   empty_greps: EmptyGreps | None = None, nccl_nodes: NcclNodes | None = None,
                   listing_greps: ListingGreps | None = None, path_tests: PathTests | None = None) -> Outcome:
    """Reads: `lsmod` (/proc/modules, or a grep of it) for nvidia_peermem (or MLNX_OFED's nv_peer_mem, the same
    peer-memory client before R470), else the module's own callback lines in the kernel log (`nv_mem
    nv_get_p2p_free_callback:155 ...`: loaded, and an RDMA NIC registering GPU memory through it) or the user's words
    (`with `nv_peer_mem` kernel module loaded`), a shown shell test of the client's /sys/kernel/mm/memory_peers/nv_mem/version
    (`test -e ... && echo "GDR is enabled"`, what NCCL tests), `/sys/class/infiniband` (RDMA
    NICs), a pasted NCCL log (`via NET/IB/.../GDRDMA`, `NET/IB : Using`, NCCL's GPU Direct RDMA lines
    per GPU and per HCA), the engine's multi-node flags, and whether DMA-BUF GPUDirect is possible
    (open module, kernel). NCCL's own word comes first: a GPU's or an RDMA HCA's `GPU Direct RDMA
    Enabled` line, or a `GDRDMA` channel, shows the peer-memory path working.

    Bad value: only RDMA NICs used by NCCL (or NIXL) and neither nvidia_peermem loaded nor GPU
    Direct RDMA working through DMA-BUF. An RDMA HCA's `GPU Direct RDMA Disabled` line is that
    state even with the module loaded (loaded, not registered as a peer-memory client).

    Why: nvidia-peermem "provides Mellanox Infiniband-based HCAs direct peer-to-peer read and write
    access to the GPU's memory" (GPU Operator RDMA docs); NCCL checks it only in its InfiniBand
    plugin (net_ib/gdr.cc) to decide GPU Direct RDMA for the NET transport. Without GDR, NCCL stages
    network traffic through host memory.

    Traps: the popular claim "load nvidia_peermem to speed up P2P between GPUs" is wrong: the P2P
    transport (p2p.cc) and vLLM/SGLang custom all-reduce (CUDA IPC) never consult it. On a host
    without InfiniBand/RoCE it is useless (and may not load).
    """
    loaded, absent_by = peer_memory_loaded(modules, empty_greps, listing_greps, path_tests)
    multi = _multi_node(serving_processes, serving_log, nccl_nodes)
    # Why the job sends nothing over an RDMA NIC, where the source shows that and no sign of other nodes.
    local = ((nccl_nodes.no_rdma, nccl_nodes.no_rdma_lines) if nccl_nodes is not None and nccl_nodes.rdma_unused(multi)
             else ("", ()))
    said = _nccl_peer_memory(serving_log, loaded, multi, local)
    if said is not None:
        return said
    if loaded:
        name = next((m for m in PEER_MEMORY_MODULES if modules is not None and m in modules), "nvidia_peermem")
        if absent_by:  # the client's /sys file shown present: registered with ib_core, what NCCL tests
            return ok(f"the peer-memory client is registered ({absent_by}): the RDMA NICs can reach GPU memory "
                      "(GPUDirect RDMA; it serves RDMA NICs only)", actual="loaded", evidence=[absent_by])
        return ok(f"{name} is loaded (it serves GPUDirect RDMA to RDMA NICs only)", actual="loaded")
    if rdma is not None and not rdma.names:
        why = rdma.absent_by or "no source shows one"
        # The myth ("load nvidia_peermem for P2P") is corrected where the module is known absent; where the
        # source does not show the module either, there is nothing to correct: the check does not apply.
        if loaded is None:
            return not_applicable(f"no RDMA NIC ({why}): nvidia_peermem only serves "
                                  "InfiniBand/RoCE NICs, so it plays no part here")
        return not_an_issue(f"no RDMA NIC ({why}): nvidia_peermem only lets InfiniBand/RoCE "
                            "NICs reach GPU memory; GPU-to-GPU traffic inside the host (NVLink, PCIe P2P, SHM, "
                            "custom all-reduce) never uses it"
                            + ("" if loaded is None else "; not loading it costs nothing"),
                            actual={"nvidia_peermem": loaded, "rdma_nics": []}, evidence=[absent_by] if absent_by else [])
    if local[0] and loaded is None:
        return not_applicable(f"{local[0]}: nvidia_peermem (GPUDirect RDMA to NICs) plays no part in this engine's "
                              "traffic")
    if local[0]:
        return not_an_issue(f"{local[0]}: nvidia_peermem (GPUDirect RDMA to NICs) plays no part in this engine's "
                            "traffic", actual={"nvidia_peermem": loaded}, evidence=list(local[1]))
    if rdma is None and loaded is False:
        # The myth's value is shown (the module is not loaded): a key negative, its one condition named.
        return not_an_issue("nvidia_peermem is not loaded" + (f" ({absent_by})" if absent_by else "") + ": GPU-to-GPU traffic inside the host "
                            "(NVLink, PCIe P2P, SHM, custom all-reduce) never uses it; it matters only if NCCL "
                            "sends over RDMA NICs (InfiniBand/RoCE), which the source does not show",
                            actual={"nvidia_peermem": False, "rdma_nics": None}, evidence=[absent_by] if absent_by else [])
    if rdma is None:
        return unknown("whether this host has RDMA NICs is not in the source (nvidia_peermem matters only for them)",
                       hint="`ls /sys/class/infiniband`; without RDMA NICs a missing nvidia_peermem is not an issue")
    nics = list(rdma.names)
    if loaded is None:
        seen = f"RDMA NICs inferred from {', '.join(nics)}" if rdma.said else f"RDMA NICs {', '.join(nics)} present"
        return unknown(f"{seen}; whether nvidia_peermem is loaded is not in the source",
                       hint="`lsmod | grep nvidia_peermem`")
    dmabuf = (nvidia_kernel is not None and nvidia_kernel.open_module is True and kernel is not None
              and kernel.release_tuple >= (5, 12))
    if serving_log is not None and serving_log.channels:
        ib = [c.line for c in serving_log.channels if c.transport == "NET" and c.detail.upper().startswith("IB")]
        if ib:
            return issue(f"NCCL sends traffic over InfiniBand/RoCE ({', '.join(nics)}) without GPU Direct RDMA: "
                         "nvidia_peermem is not loaded" + ("" if dmabuf else " and DMA-BUF GDR is not available")
                         + "; every NET transfer is staged through host memory",
                         actual={"nvidia_peermem": False, "gdr": False}, expected="GDRDMA on NET/IB channels",
                         evidence=ib[:3], subjects=nics)
        return not_an_issue(f"RDMA NICs {', '.join(nics)} are present but NCCL does not use them (no NET/IB channel "
                            "in the log): nvidia_peermem would change nothing for this engine",
                            actual={"nvidia_peermem": False, "rdma_nics": nics})
    if multi:
        if dmabuf:
            return ok("multi-node engine: nvidia_peermem is not loaded, but the open kernel module on Linux >= 5.12 "
                      "gives NCCL DMA-BUF GPU Direct RDMA instead", actual={"nvidia_peermem": False, "dmabuf": True})
        return issue(f"multi-node engine with RDMA NICs ({', '.join(nics)}) but neither nvidia_peermem nor DMA-BUF GPU "
                     "Direct RDMA: NCCL stages network traffic through host memory",
                     actual={"nvidia_peermem": False, "rdma_nics": nics}, expected="nvidia_peermem loaded (or DMA-BUF)",
                     subjects=nics)
    return unknown(f"RDMA NICs {', '.join(nics)} present and nvidia_peermem not loaded: that matters only where NCCL "
                   "(or NIXL) uses the NICs (multi-node, disaggregated serving, or NET/IB chosen inside the host)",
                   hint="run the engine once with NCCL_DEBUG=INFO: `via NET/IB` without GDRDMA is the issue; "
                   "P2P/SHM channels mean the module is irrelevant")


def _nccl_peer_memory(log: ServingLog | None, loaded: bool | None, multi_node: bool,
                      local: tuple[str, tuple[str, ...]]) -> Outcome | None:
    """IC-NVIDIA-PEERMEM from NCCL's own word on whether its RDMA NICs reach GPU memory, or None where the log gives
    none (ServingLog.gdr_works, gdr_unsupported).

    NCCL marks an RDMA NIC able to reach GPU memory where nvidia_peermem's peer-memory client is registered
    (/sys/kernel/mm/memory_peers/nv_mem) or DMA-BUF works (net_ib, graph/topo.cc). A GPU's `Enabled` line, an
    HCA's `Enabled` line or a `GDRDMA` channel shows that path working: ok, whatever lsmod shows. An RDMA HCA's
    `Disabled` line shows it missing, a loaded module included (loaded, not registered): an issue where NCCL sends
    over that NIC (NET/IB channels, or ranks on several hosts), else unknown. A GPU's `Disabled` line is its
    distance to the NIC (IC-NIC-GPU-AFFINITY), not this path; NET/Socket's `Disabled` line is no RDMA NIC.
    """
    if log is None:
        return None
    if works := log.gdr_works():
        judged = ok("NCCL reports GPU Direct RDMA on: its RDMA NIC reaches GPU memory (nvidia_peermem or DMA-BUF)",
                    actual={"gdr": True}, evidence=list(works))
        # The GPUs whose lines show it: the ranks with a `GDRDMA` channel, else the GPUs of `Enabled for GPU` lines;
        # an HCA's `Enabled` line speaks for the NIC, whichever GPU it serves.
        shown = ([f"rank {r}" for r, on in sorted(log.net_gdr().items()) if on]
                 or [f"GPU {d.gpu}" for d in log.gdr if d.enabled and d.gpu])
        return over_subjects(judged, shown, log.gpus_total()) if shown else judged
    off = log.gdr_unsupported()
    if not off:
        return None
    module = {True: "nvidia_peermem is loaded, yet", False: "nvidia_peermem is not loaded and",
              None: "whatever nvidia_peermem's state,"}[loaded]
    # Each rank logs its own HCAs' lines (corpus 2524: HCA 0 from ranks 3 and 4): one HCA, however many lines.
    hcas = {d.hca for d in log.gdr if d.line in off} or set(off)
    said = (f"{module} NCCL reports GPU Direct RDMA disabled for {len(hcas)} RDMA HCA(s): its NIC reaches GPU memory "
            "through neither nvidia_peermem's peer-memory client nor DMA-BUF")
    ib = [c.line for c in log.channels if c.rdma]
    if ib or multi_node:
        return issue(said + "; NCCL's traffic between nodes is staged through host memory",
                     actual={"nvidia_peermem": loaded, "gdr": False}, expected="GPU Direct RDMA enabled for the HCA",
                     evidence=(list(off) + ib)[:3])
    if local[0]:
        # The job keeps its traffic inside the host: the module's own branches say so (not loaded, not shown).
        return None if loaded is not True else not_an_issue(
            f"{local[0]}: nvidia_peermem (GPUDirect RDMA to NICs) plays no part in this engine's traffic",
            actual={"nvidia_peermem": True, "gdr": False}, evidence=list(local[1]))
    return unknown(said + "; that costs only traffic NCCL sends over the NIC, and the log does not show it between "
                   "nodes", actual={"nvidia_peermem": loaded, "gdr": False, "lines": list(off[:2])},
                   hint="`lsmod | grep -e nvidia_peermem -e ib_core` and `ls /sys/kernel/mm/memory_peers`; the "
                   "job's NCCL log across nodes (`via NET/IB`)")


# --- IC-NCCL-ENV -----------------------------------------------------------------------------


_ENV_BLIND = "the serving engine's environment could not be read (another user's process)"
_ENV_BLIND_HINT = "run as root: `tr '\\0' '\\n' < /proc/<engine pid>/environ | grep ^NCCL_`"


@check(
    "IC-NCCL-ENV",
    title="NCCL environment variables that disable the fast paths",
    severity="high",
    confidence="documented",
    fix=Fix.of(step("Remove the variable from the engine's environment (service file, docker -e, pod spec) and "
                       "restart the engine", cost="restart", scope="container",
                       keep=keep_text("delete the line from /etc/nccl.conf, ~/.nccl.conf or $NCCL_CONF_FILE and "
                                      "from the launch environment"))),
    references=(NCCL_ENV_DOC, NCCL_PATHS, NCCL_TESTS_74),
    applies_to="nccl-gpu",
)
def nccl_env(nccl_config: NcclConfig | None = None, gpu_topology: TopoMatrix | None = None, gpu_p2p: P2pMatrix | None = None,
             serving_log: ServingLog | None = None, serving_processes: ServingProcesses | None = None,
             gpus: GpuInventory | None = None, nccl_nodes: NcclNodes | None = None,
             serving_engine: ServingEngine | None = None, nccl_test_runs: NcclTestRuns | None = None,
             rdma: RdmaDevices | None = None, docker_containers: DockerContainers | None = None,
             engine_commands: EngineCommands | None = None) -> Outcome:
    """Reads: NCCL_* in the environment of the serving engine's processes (/proc/<pid>/environ),
    /etc/nccl.conf, ~/.nccl.conf of the engine's user and $NCCL_CONF_FILE, NCCL's own "NCCL_X set
    by environment to Y" log lines, and (weakest) the env section of a pasted collect_env or the
    variables the user lists or exports in prose (`NCCL_ALGO=Ring`, `export NCCL_SOCKET_IFNAME=lo`); the
    topology and P2P matrices; the transports NCCL logged.

    Bad value: NCCL_P2P_DISABLE=1 or NCCL_P2P_LEVEL=LOC on NVLink (or on PCIe where P2P works; medium on an engine
    where neither the GPUs' P2P nor their links are shown, naming the GeForce exception, while a test run's own
    setting with no engine shown stays a key negative naming the condition), or NCCL_P2P_LEVEL=NVL
    on GPUs that meet over PCIe (P2P only over NVLink; unknown where the links are not shown); an NCCL_P2P_LEVEL
    value NCCL's reader does not know (`PCI`: ignored, or meant as a PCIe cap that the topology decides): unknown;
    NCCL_SHM_DISABLE=1 (with P2P off, or on PHB/NODE/SYS pairs, intra-node traffic falls to sockets;
    unknown where the topology is not shown); NCCL_GRAPH_FILE set (another machine's rings and trees:
    "should never be set in production", NVIDIA/nccl#1240); NCCL_ALGO / NCCL_PROTO forced without a
    measurement; NCCL_NET_GDR_LEVEL below NCCL's default PXB (LOC, PIX, 0, 1) on a job that spans nodes (GPU-NIC
    pairs stage network traffic through host memory; not an issue on one host, unknown where that is not shown);
    NCCL_IB_DISABLE=1 on a job that spans nodes (its flags, or the hosts its NCCL log, nccl-tests header or
    launcher's host list shows: NcclNodes) whose hosts the source shows with RDMA NICs (the `rdma` fact: the sysfs
    class, NCCL's `NET/IB : Using` line, NIC rows of the topology, RDMA driver modules, an NCCL_IB_* setting naming or
    tuning them, an IPoIB interface); not an issue where the source shows none (an empty /sys/class/infiniband,
    NCCL's "No device found"); unknown where it shows neither, the condition named (on plain Ethernet it costs
    nothing); an NCCL_SOCKET_IFNAME or NCCL_IB_HCA item that no device can be named (NcclSetting.unnamable: a `/` or
    whitespace, an interface name past 15 characters), such as `ens121f0/` from a shell-joined
    `-e "NCCL_SOCKET_IFNAME=ens121f0"/` (corpus 2118): NCCL finds no socket interface for its bootstrap (high) or opens
    no HCA (medium).

    Why: NCCL_P2P_DISABLE "disables the peer to peer (P2P) transport, which uses CUDA direct
    access between GPUs, using NVLink or PCI" (NCCL env doc); traffic then goes through host
    memory (≈20 vs 40-50 GB/s bidirectional on 8x A40, nccl-tests#74, and far below NVLink).

    Traps: NCCL_IB_DISABLE=1 on one host leaves GPU-to-GPU traffic on P2P/SHM (it only removes
    NET/IB, which NCCL may pick inside a host when NICs sit close to both GPUs). NCCL_P2P_DISABLE=1
    on GeForce (no P2P anyway) or a measured choice on some AMD PCIe hosts is legitimate.
    Settings that are only NCCL's logging switches (NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE) are ok: they
    change what NCCL prints and turn no transport off (corpus 301, 822, 1764, 1902). Other settings that disable
    nothing are a key negative (not an issue).
    A job shown with one rank on each node (facts/parallelism.one_rank_per_node) loses no P2P path to a P2P setting.
    Settings of the one serving container shown, given one GPU (`device_ids: ['1']`) and no parallel size above 1, with
    no other node or rank shown: the engine runs one rank, and NCCL carries no GPU-to-GPU traffic there (not an issue,
    naming the condition). The one container shown, given one GPU with no parallel size above 1 and no NCCL setting,
    is not applicable (corpus 2124). With no NCCL setting shown, one GPU on the host and no other node shown is not
    applicable, whether or not a source of NCCL settings is in the paste (corpus 2125: a node's labels);
    the one rank of an nccl-tests run (its header's rank lines, the GPUs it used) does not show the host's count, so
    alone it leaves that unknown (corpus 588, 1383). An engine shown on one GPU (facts/parallelism.one_gpu_engine:
    TP 1 and one pipeline stage on its command or in its log, no multi-node flag or log) runs no collective: not
    applicable (corpus 1276, 1285). Where every engine the paste shows runs no NCCL (ollama, which splits a model by
    layers in one runner process; llama.cpp without a tensor split over GPUs: facts/applicability.no_nccl_engine) and
    the check cannot judge, it is not applicable (corpus 2025). An NCCL_IB_DISABLE=1 whose job's ranks the NCCL log shows on one host, no other node shown
    (ServingLog.ranks_on_one_host): not an issue, naming the condition.
    NCCL variables the user names only as tries that did not help (`... using `NCCL_IB_DISABLE=1 python tune.py` does
    not help`, `We've tried ... NCCL_SHM_DISABLE=1 or NCCL_ALGO=Tree`), with no other setting and no NCCL log of the
    engine's own variables: experiments on the failure, not the standing setup (not an issue, corpus 895, 916).
    NCCL_ALGO=Ring on an nccl-tests command line on one host without NVLink is the benchmark's own
    choice, and Ring is NCCL's pick for large all-reduces there (not an issue). NCCL_ALGO / NCCL_PROTO on the command
    line of nccl-tests runs that all failed choosing their GPUs ('invalid device ordinal', NcclTestRuns.none_started)
    shaped no collective: not an issue. A variable a test's launcher passes from its shell without a value (`mpirun
    -x NCCL_ALGO`) and no source shows leaves the verdict unknown where nothing shown is an issue. NCCL_ALGO or
    NCCL_PROTO listing every algorithm (protocol) NCCL has forbids none: not an issue; one leaving out only NVLSTree
    and PAT, which NCCL runs only across nodes, forbids nothing on a job shown on one host (its ranks threads of one
    process included, ServingLog.ranks_in_one_process), and is pending where that is not shown (corpus 1341). SGLang
    sets NCCL_CUMEM_ENABLE=0 and NCCL_NVLS_ENABLE=0 itself (RT-ENV-SGLANG). NCCL itself refuses P2P
    beyond PXB (SHM between SYS/PHB GPUs is its default, not a setting). A clean nccl.conf says
    nothing when the engine's environment is unreadable (another user's process): unknown.
    """
    # A test run's rank lines list the GPUs it used, not the host's (`all_gather_perf -g 1` takes device 0 of any
    # count, corpus 1383): alone they show no host of one GPU.
    host = gpus if gpus is not None and set(gpus.agreed) - {NCCL_TESTS_TITLE} else None
    if (nccl_config is None or not (nccl_config.settings or nccl_config.tried or nccl_config.unshown
                                    or nccl_config.engine_seen)) and host is not None and host.whole_count == 1 \
            and not _multi_node(serving_processes, serving_log, nccl_nodes):
        # One GPU, no NCCL setting and no sign of other nodes, whether or not a source of NCCL settings is shown
        # (corpus 2125: a node's labels): NCCL has no GPU-to-GPU traffic to slow down.
        return not_applicable(f"one GPU ({host.counts[0][0]}) and no multi-node serving shown")
    if nccl_config is None:
        # Judged as a check whose NCCL settings are missing (engine/evaluate: `needs`).
        return unknown("the NCCL settings are not in the source", needs="nccl_config")
    settings = list(nccl_config.settings)
    # The engine runs but its environment is not readable, and no NCCL log says what it was given.
    blind = nccl_config.env_unreadable and "NCCL log" not in nccl_config.sources
    if nccl_config.tried and not settings and not nccl_config.unshown and not nccl_config.engine_seen:
        # Only tries the user says did not help (`... does not help`, `We've tried ... NCCL_ALGO=Tree`): experiments
        # on the failure, which stays without them, not the run's standing setup (corpus 895, 916).
        tried = ", ".join(f"{s.name}={s.value}" for s in nccl_config.tried)
        return not_an_issue(f"{tried}: named in the user's own words as tries that did not help, so they neither "
                            "cause nor cure the failure and are not the run's standing setup; no other NCCL setting "
                            "is shown", actual={s.name: s.value for s in nccl_config.tried})
    if not settings and nccl_config.unshown:
        return _passed_unshown(nccl_config, "")
    if not settings:
        if not nccl_config.engine_seen and nccl_config.conf_read and nccl_config.engine_running is False:
            return ok("no serving engine running; /etc/nccl.conf and this shell set no NCCL_* variable",
                      actual={})
        if not _multi_node(serving_processes, serving_log, nccl_nodes) \
                and (alone := _one_gpu_container(docker_containers, [], serving_log)):
            # The one container shown, given one GPU and no parallel size, sets no NCCL variable: it runs one rank,
            # and no collective between GPUs runs for a setting to shape (corpus 2124).
            return not_applicable(f"{alone} and no NCCL setting, parallel engine or other node is shown: NCCL carries "
                                  "no GPU-to-GPU traffic there")
        if not nccl_config.engine_seen and not _multi_node(serving_processes, serving_log, nccl_nodes) \
                and (one_gpu := one_gpu_engine(serving_engine, host, engine_commands, serving_log)):
            # An engine shown on one GPU (TP 1, one stage: its command or its log) builds no communicator between
            # GPUs, so no NCCL setting it might have has a path to slow down (corpus 1276, 1285).
            return not_applicable(f"{one_gpu}: the engine builds no NCCL communicator between GPUs")
        if not nccl_config.engine_seen:
            return unknown("the serving engine's environment and NCCL config files are not in this source"
                           + (" (the collect_env shell shows no NCCL_* variable)"
                              if "collect_env report" in nccl_config.sources else ""),
                           hint="`tr '\\0' '\\n' < /proc/<engine pid>/environ | grep ^NCCL_; cat /etc/nccl.conf`")
        if blind:
            return unknown("no NCCL_* line in the NCCL config files (" + ", ".join(nccl_config.sources[:3])
                           + f"), but {_ENV_BLIND}", hint=_ENV_BLIND_HINT)
        return ok("no NCCL_* override in the engine's environment or NCCL config files ("
                  + ", ".join(nccl_config.sources[:3]) + ")", actual={})
    models = _models(gpus)
    nvlink = bool(gpu_topology is not None and gpu_topology.has_nvlink) or _switch_expected(models) is not None
    p2p_ok = gpu_p2p.all_ok if gpu_p2p is not None else None
    geforce = _is_geforce(models)
    engines = {s.engine for s in settings if s.engine} | ({serving_log.engine} if serving_log else set())
    multi = _multi_node(serving_processes, serving_log, nccl_nodes)
    # One host shown: the job's own NCCL lines put every rank on one host, or a live engine runs here without
    # multi-node flags (the process list is whole).
    one_host = not multi and (bool(nccl_nodes is not None and nccl_nodes.one)
                              or bool(serving_processes is not None and serving_processes.found))
    # One rank on every node of the job: no two ranks share a host, so no intra-host path can be lost.
    one_rank = one_rank_per_node(serving_engine, serving_log)
    if not multi and (alone := _one_gpu_container(docker_containers, settings, serving_log)):
        listed = ", ".join(f"{s.name}={s.value}" for s in settings)
        return not_an_issue(f"{listed}: {alone}, so the engine runs one rank and NCCL carries no GPU-to-GPU traffic "
                            "for these settings to slow down; they would matter only if it joined ranks in other "
                            "containers or nodes, which the source does not show",
                            actual={s.name: s.value for s in settings})
    findings: list[tuple[int, str, str]] = []  # (3 high / 2 medium / 1 low / 0 trap, message, setting)
    pending: list[str] = []  # findings whose cost depends on what the source does not show
    # A test's P2P setting that costs something only if the GPUs have P2P, which is not shown.
    unshown: set[str] = set()
    engine_shown = bool(engines - {""}) or bool(serving_engine is not None and serving_engine.engine)

    def tested_only(s: NcclSetting) -> bool:
        """The setting is a test run's: on its command line, or beside a pasted test with no engine shown."""
        return s.test_run or (nccl_test_runs is not None and bool(nccl_test_runs.runs or nccl_test_runs.groups)
                               and not engine_shown)
    for s in nccl_config.effective:
        where = f"{s.name}={s.value} ({s.source})"
        if s.p2p_off:
            # Neither the GPUs' P2P nor their links shown: on an engine the hand-set override turns NCCL's default
            # fast path off, an issue (medium) that names its one exception (GeForce on the stock driver), as the
            # blind expectations of 350, 830, 1022 and 1135 read it (91, GeForce only in the thread's title, reads
            # it as a workaround). On a test run with no engine shown it is the test's diagnosis (351, 515, 559):
            # conditional, a key negative that names the condition.
            findings.append(_p2p_off_finding(where, one_rank, nvlink, geforce, p2p_ok, gpu_topology))
            if tested_only(s) and not (one_rank or nvlink or geforce or p2p_ok is not None or gpu_topology is not None):
                unshown.add(s.name)
        elif s.p2p_nvlink_only:
            # P2P only between NVLink-connected GPUs (NCCL's `NVL` level): every other pair takes host memory.
            # NCCL setting up NVLS (NVLink SHARP) proves an NVSwitch fabric, which joins every GPU pair of the node.
            all_nv = (gpu_topology.all_nvlinked() if gpu_topology is not None else None) \
                or (True if _switch_expected(models) is not None else None) \
                or (True if serving_log is not None and serving_log.nvls_up() else None)
            if all_nv:
                findings.append((0, f"{where}: every GPU pair is NVLink-connected, so P2P stays on for all of them",
                                 s.name))
            elif gpu_topology is not None or one_rank or geforce or p2p_ok is not None:
                findings.append(_p2p_off_finding(f"{where} (P2P only over NVLink)", one_rank, False, geforce, p2p_ok,
                                                 gpu_topology))
            else:
                pending.append(f"{where}: P2P only between NVLink-connected GPUs, which costs nothing where NVLink "
                               "joins every pair but turns P2P off between PCIe pairs; the GPUs' links are not in "
                               "this source")
        elif s.p2p_level_unread:
            # Not a level NCCL knows: current NCCL keeps its default (P2P up to a PCIe switch, PXB); the user meant a
            # PCIe cap, which turns P2P off only between GPUs farther apart. Neither is shown (corpus 1136).
            pending.append(f"{where}: not a level NCCL's reader knows (LOC, NVL, PIX, PXB, PHB, SYS or 0-5), so what "
                           "it does is not shown: NCCL keeps its default where it ignores the value, and read as a "
                           "PCIe cap it turns P2P off between GPUs farther apart than that, which the topology would "
                           "say; NCCL's `NCCL_P2P_LEVEL set by environment to` line shows the level it took")
        elif s.name == "NCCL_SHM_DISABLE" and s.on:
            sys_pairs = gpu_topology is not None and gpu_topology.host_bridged_pair()
            if nccl_config.p2p_off or sys_pairs or p2p_ok is False:
                findings.append((3, f"{where}" + (" with P2P off" if nccl_config.p2p_off else "")
                                 + ": GPU pairs without P2P then fall to the network transport (sockets)", s.name))
            elif p2p_ok or gpu_topology is not None:
                findings.append((0, f"{where}: no effect while P2P works on every pair (every path shown is NVLink "
                                 "or below a PCIe switch), but any pair that loses P2P drops to sockets", s.name))
            else:
                # Whether some pair lacks P2P (a cross-socket PCIe path) is in the topology, which is not shown.
                pending.append(f"{where}: costs nothing where NVLink or P2P joins every GPU pair, but sends pairs "
                               "without P2P (PHB/NODE/SYS paths) to sockets; the topology is not in this source")
        elif s.name == "NCCL_GRAPH_FILE" and s.value.strip():
            findings.append((2, f"{where} forces NCCL's rings and trees from a file written for another machine's "
                             "GPUs and NICs: for experiments only, never in production (the NCCL maintainers, "
                             "NVIDIA/nccl#1240); NCCL fails at init where it names a device this host lacks", s.name))
        elif s.name == "NCCL_ALGO" and s.value.strip().lower() == "ring" and s.test_run and not multi \
                and _no_nvlink(gpu_topology, models):
            # A benchmark's own choice on one host without NVLink: NVLS needs NVSwitch and Tree and CollNet pay
            # off across nodes, so the run measures the algorithm NCCL picks for large all-reduces there.
            findings.append((0, f"{where}: the benchmark's own choice on one host without NVLink, where Ring "
                             "is what NCCL picks for large all-reduces; it is not the serving engine's setting",
                             s.name))
        elif s.name in ("NCCL_ALGO", "NCCL_PROTO") and s.test_run and nccl_test_runs is not None \
                and nccl_test_runs.none_started:
            findings.append((0, f"{where}: the test's own choice, and its run failed choosing its GPUs ('invalid device "
                             "ordinal') before NCCL started, so it forced no collective; it is not the serving "
                             "engine's setting", s.name))
        elif s.name in ("NCCL_ALGO", "NCCL_PROTO") and (left := s.left_out) is not None \
                and not set(left) - NCCL_MULTI_NODE_ALGORITHMS:
            # A list naming every algorithm (protocol) NCCL has forbids none, so NCCL still chooses (corpus 1341).
            kind = "algorithm" if s.name == "NCCL_ALGO" else "protocol"
            together = (serving_log.ranks_on_one_host() or serving_log.ranks_in_one_process()) \
                if serving_log is not None and not multi else ""
            if not left:
                findings.append((0, f"{where} names every {kind} NCCL has, so it forbids none and NCCL still picks "
                                 "by its own tuning: it forces nothing", s.name))
            elif (one_host or together) and not multi:
                shown = f" ({together})" if together else ""
                findings.append((0, f"{where} leaves out only {', '.join(left)}, which NCCL runs only on a job that "
                                 f"spans nodes; on one host{shown} it forbids nothing NCCL could pick", s.name))
            elif multi:
                findings.append((1, f"{where} leaves out {', '.join(left)} on a job that spans nodes, where NCCL may "
                                 "pick them; keep only with a measurement on these hosts", s.name))
            else:
                pending.append(f"{where} leaves out only {', '.join(left)}, which NCCL runs only on a job that spans "
                               "nodes: it forces nothing on one host; whether this job spans nodes is not in the "
                               "source")
        elif s.name in ("NCCL_ALGO", "NCCL_PROTO"):
            findings.append((1, f"{where} forces NCCL's choice; keep only with a measurement on this host", s.name))
        elif s.name in ("NCCL_MAX_NCHANNELS", "NCCL_MAX_CTAS") and s.value.strip().isdigit():
            # NCCL's documentation: fewer channels use fewer CUDA blocks and move less data at once.
            one = int(s.value.strip()) <= 1
            findings.append((2 if one else 1, f"{where} caps NCCL at {s.value.strip()} channel(s): large transfers "
                             "move on fewer rings at once, so bus bandwidth falls with the cap; keep only with a "
                             "measurement on this host", s.name))
        elif s.name == "NCCL_IB_DISABLE" and s.on:
            # Only GPU pairs without NVLink could gain from a NIC next to them (NCCL's NET/IB inside a host).
            near = gpu_topology.nics_near_gpus() if gpu_topology and not gpu_topology.all_nvlinked() else []
            if multi and rdma is not None and rdma.names:
                shown = (" (the NCCL log or nccl-tests header shows ranks on two hosts or more: "
                         + "; ".join(nccl_nodes.several) + ")" if nccl_nodes is not None and nccl_nodes.several else "")
                findings.append((2, f"{where} on a multi-node job{shown} whose hosts have RDMA NICs "
                                 f"({'; '.join(rdma.names)}): inter-node traffic falls to TCP sockets", s.name))
            elif multi and rdma is not None and rdma.absent_by:
                findings.append((0, f"{where} on a multi-node job whose hosts show no RDMA NIC ({rdma.absent_by}): "
                                 "the traffic goes over TCP sockets either way, so it removes no path", s.name))
            elif multi:
                # A conditional finding: it costs something only where the hosts have InfiniBand or RoCE NICs.
                pending.append(f"{where} on a multi-node job: it sends inter-node traffic to TCP sockets where the "
                               "hosts have RDMA NICs (InfiniBand, RoCE), and costs nothing on plain Ethernet; no RDMA "
                               "NIC is in this source")
            elif near:
                findings.append((1, f"{where} on one host whose NICs {', '.join(near)} sit next to GPUs (PIX/PXB): "
                                 "NCCL may carry GPU pairs without a better path through them (NET/IB); without it "
                                 "those pairs use host memory", s.name))
            elif one_host:
                findings.append((0, f"{where} on one host: GPU-to-GPU traffic stays on P2P/SHM; it only removes "
                                 "NET/IB, which NCCL picks inside a host only when NICs near the GPUs beat their path",
                                 s.name))
            elif together := (serving_log.ranks_on_one_host() if serving_log is not None else ""):
                # Ranks of the job shown together on one host and no other node: the blind readings of 853 and 1238
                # take the setting as costing nothing there, a key negative that names what would change it.
                findings.append((0, f"{where}: {together}, where GPU-to-GPU traffic stays on P2P/SHM and the setting "
                                 "only removes NET/IB; it would send inter-node traffic to TCP sockets only on a job "
                                 "that spans nodes, and no other node is shown", s.name))
            else:
                # Whether the job spans nodes is not shown: the setting costs nothing on one host and sends a
                # multi-node job's traffic to TCP sockets (issue 28: no "one host" from what the source does not show).
                pending.append(f"{where}: costs nothing on one host (GPU-to-GPU traffic stays on P2P/SHM), but on a "
                               "job that spans nodes it sends inter-node traffic to TCP sockets; whether this job "
                               "spans nodes is not in the source")
        elif unnamed := s.unnamable:
            # A name no device can have matches nothing: NCCL finds no socket interface for its bootstrap ("Bootstrap :
            # no socket interface found", NVIDIA/nccl#1837) or opens no HCA and falls back to sockets (corpus 2118).
            socket = s.name == "NCCL_SOCKET_IFNAME"
            findings.append((3 if socket else 2, f"{where}: {', '.join(unnamed)} can name no "
                             + ("network interface (at most 15 characters, no `/` or whitespace), so NCCL finds no "
                                "socket interface for its bootstrap and the job cannot start across ranks" if socket
                                else "RDMA device (no `/` or whitespace), so NCCL opens no HCA and sends its network "
                                "traffic over TCP sockets"), s.name))
        elif s.name == "NCCL_IB_HCA" and (soft := _SOFT_RDMA.findall(s.value)):
            # Soft-RoCE (rdma_rxe) and soft-iWARP (siw) emulate RDMA in the kernel over an Ethernet NIC: no PCI device
            # stands behind them, so NCCL cannot place them in its topology (`Could not find real path of rxe0
            # (/sys/class/infiniband/rxe0/device)`, NVIDIA/nccl#1297) and no GPUDirect RDMA reaches the GPUs.
            findings.append((2, f"{where} points NCCL's network traffic at {', '.join(soft)}, a kernel-emulated RDMA "
                             "device (Soft-RoCE or soft-iWARP) with no PCI device behind it: NCCL cannot place it "
                             "in its topology and no GPUDirect RDMA reaches the GPUs; a real RDMA NIC, or NCCL's "
                             "socket transport over the Ethernet NIC, is the path this network supports", s.name))
        elif s.name in ("NCCL_NET_GDR_LEVEL", "NCCL_IB_GDR_LEVEL") and s.value.strip().upper() in _GDR_BELOW_DEFAULT:
            # GPUDirect RDMA only for GPU-NIC pairs closer than NCCL's default (PXB: through PCIe switches), or never
            # (LOC): the other pairs stage each network transfer through host memory (ncclTopoCheckGdr, paths.cc).
            off = s.value.strip().upper() in ("LOC", "0")
            scope = ("turns GPUDirect RDMA off" if off else "limits GPUDirect RDMA to a GPU and NIC under one PCIe "
                     "switch (PIX), below NCCL's default (PXB)")
            if multi:
                findings.append((2 if off else 1, f"{where} {scope} on a multi-node job: "
                                 + ("every" if off else "any other") + " GPU-NIC pair stages its network traffic "
                                 "through host memory; keep only with a measurement on these hosts", s.name))
            elif one_host:
                findings.append((0, f"{where} {scope}, on one host where GPU-to-GPU traffic does not take the network",
                                 s.name))
            else:
                pending.append(f"{where} {scope}: on a job that spans nodes GPU-NIC pairs then stage network traffic "
                               "through host memory, and on one host it costs nothing; whether this job spans nodes "
                               "is not in the source")
        elif s.name in ("NCCL_NVLS_ENABLE", "NCCL_CUMEM_ENABLE") and s.value.strip() == "0":
            if "sglang" in engines:
                findings.append((0, f"{where}: SGLang sets this itself (RT-ENV-SGLANG)", s.name))
            elif s.name == "NCCL_NVLS_ENABLE" and nvlink:
                findings.append((0, f"{where}: NVLink SHARP off on NVSwitch is only a possible loss (unproven)",
                                 s.name))
    worst = max((f[0] for f in findings), default=-1)
    if serving_log is not None and worst >= 2:
        slow = sorted(serving_log.transports() & {"SHM", "NET"})
        if slow:
            findings.append((worst, f"the NCCL log shows channels via {'/'.join(slow)}", "NCCL log"))
    listed = ", ".join(f"{s.name}={s.value}" for s in settings)
    if worst >= 1:
        bad = [f for f in findings if f[0] >= 1]
        severity = {3: "high", 2: "medium", 1: "low"}[worst]
        # P2P off where neither the GPUs nor their links are shown: a loss only if they have P2P to lose.
        # The value is the settings at fault; the evidence lists every setting read.
        at_fault = {s.name: s.value for s in settings if any(n == s.name for _, _, n in bad)}
        # The worst first; among equals, a clause that names a number (a channel cap) says the restriction's size.
        return issue("; ".join(m for _, m, _ in sorted(bad, key=lambda f: (f[0], any(c.isdigit() for c in f[1])),
                                                       reverse=True)),
                     actual=at_fault or {s.name: s.value for s in settings},
                     expected="no NCCL_* override that disables a transport", severity=severity,  # type: ignore[arg-type]
                     subjects=[n for _, _, n in bad],
                     evidence=[f"{s.name}={s.value} ({s.source})" for s in settings][:6],
                     only_if=_P2P_SHOWN if all(n in unshown for _, _, n in bad) else "")
    if pending:
        return unknown("; ".join(pending + [m for _, m, _ in findings]), hint="`nvidia-smi topo -m`",
                       actual={s.name: s.value for s in settings})
    if nccl_config.unshown:
        return _passed_unshown(nccl_config, listed)
    if blind:
        return unknown(f"the NCCL settings that could be read ({listed}) disable no fast path"
                       + ("; " + "; ".join(m for _, m, _ in findings) if findings else "") + f"; but {_ENV_BLIND}",
                       hint=_ENV_BLIND_HINT, actual={s.name: s.value for s in settings})
    if findings:
        return not_an_issue("; ".join(m for _, m, _ in findings), actual={s.name: s.value for s in settings},
                            subjects=[n for _, _, n in findings])
    if at_work := _selectors_at_work(settings, serving_log):
        return ok(f"the NCCL settings only choose the devices NCCL uses ({listed}) and NCCL's log shows it at work "
                  f"over them ({at_work}): nothing is turned off", actual={s.name: s.value for s in settings})
    if all(s.name in _LOGGING for s in settings):
        # Logging alone is the run's whole NCCL setup, and it turns nothing off (corpus 301, 822, 1764, 1902).
        return ok(f"the only NCCL settings are logging switches ({listed}): they change what NCCL prints and turn no "
                  "transport off", actual={s.name: s.value for s in settings})
    # A set NCCL_* variable is what a reader suspects first: that none disables a transport is a key negative.
    return not_an_issue(f"NCCL settings found, none disables a fast path: {listed}",
                        actual={s.name: s.value for s in settings})


_P2P_SHOWN = "these GPUs have NVLink or working P2P"
# NCCL_NET_GDR_LEVEL values below NCCL's default for GPUDirect RDMA (PXB): the path names and the legacy numbers
# (ncclGetLevel's levelsOldToNew: 0 LOC, 1 PIX, 2 PXB; src/graph/paths.cc).
_GDR_BELOW_DEFAULT = ("LOC", "PIX", "0", "1")


def _one_gpu_container(containers: DockerContainers | None, settings: list[NcclSetting],
                       log: ServingLog | None) -> str:
    """In words, the one serving container the source shows where it sets every NCCL setting read and is given one
    GPU at most (its request's ids or count, CUDA_VISIBLE_DEVICES) with no parallel size above 1 on its command, and
    no NCCL log shows ranks on two devices; "" otherwise (corpus 1163). Two such containers may be the ranks of one job
    (a pipeline across containers, corpus 786), so only one counts."""
    shown = containers.gpu_or_serving if containers is not None else ()
    if len(shown) != 1 or (log is not None and len(log.nccl_devices) > 1):
        return ""
    ctr = shown[0]
    where = f"container {ctr.label} environment"
    if ctr.gpus_visible_at_most != 1 or (ctr.parallel_world or 1) > 1 \
            or not all(s.source.startswith(where) for s in settings):
        return ""
    return f"container {ctr.label} is given one GPU"

# Settings that only choose which devices NCCL uses (its socket interface, its HCAs and their RoCE GID) or what it logs.
# The RDMA devices the kernel emulates over an Ethernet NIC, as NCCL_IB_HCA names them (`rxe0`, `rxe_eth0`, `siw0`,
# a port after a colon): rdma_rxe's `rxe` and soft-iWARP's `siw` prefixes (`rdma link add rxe_eth0 type rxe`).
_SOFT_RDMA = re.compile(r"(?:^|[,=^:\s])((?:rxe|siw)[\w-]*)")
# NCCL's logging switches: what NCCL prints and where, never a transport (NCCL_ENV_DOC's Debugging section).
_LOGGING = ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE")
_SELECTORS = ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", *_LOGGING)


def _selectors_at_work(settings: list[NcclSetting], log: ServingLog | None) -> str:
    """NCCL's lines that it works over the devices the settings choose, in words, where every setting only chooses
    them (_SELECTORS, NCCL_IB_DISABLE=0: the default) and the log shows NCCL opening the HCAs (`NET/IB : Using
    [0]mlx5_0`) or a communicator completing its init after them (`Init COMPLETE`); "" otherwise. Without NCCL's word
    the settings are a key negative (not an issue), not a verdict that they work (corpus 645, 1070; 1101)."""
    if log is None or not settings or any(
            s.name not in _SELECTORS and not (s.name == "NCCL_IB_DISABLE" and s.value.strip() == "0") for s in settings):
        return ""
    opened = [line for line in log.nccl_net if re.search(r"NET/IB\s*:\s*Using\s*\[\d+\]", line)]
    if opened:
        return "`NET/IB : Using` names its HCAs"
    if any("Init COMPLETE" in m[5] for m in log.comm_members):
        return "a communicator reached `Init COMPLETE`"
    return ""


def _passed_unshown(nccl_config: NcclConfig, listed: str) -> Outcome:
    """IC-NCCL-ENV where a test's launcher passes NCCL variables from its shell (`mpirun -x NCCL_ALGO`) whose values
    no source shows: any of them may disable a path, so nothing shown settles it."""
    return unknown(", ".join(nccl_config.unshown) + " passed to the test from the launching shell (`mpirun -x "
                   "NAME`) with values this source does not show"
                   + (f"; the settings shown ({listed}) disable no fast path" if listed else ""),
                   hint="`env | grep ^NCCL_` in the shell that ran mpirun, or the NCCL_DEBUG=INFO log's "
                   "`NCCL_X set by environment to Y` lines",
                   actual={s.name: s.value for s in nccl_config.settings})


def _p2p_off_finding(where: str, one_rank: str, nvlink: bool, geforce: bool, p2p_ok: bool | None,
                     topo: TopoMatrix | None) -> tuple[int, str, str]:
    """NCCL_P2P_DISABLE=1 / NCCL_P2P_LEVEL=LOC, judged per topology (docs/checks.md, IC-NCCL-ENV):
    3 high on NVLink/NVSwitch and on PCIe where P2P works, 2 medium on PCIe where P2P may be a
    measured choice (ask for a benchmark), 0 (no loss) where there is no P2P to lose."""
    name = where.split("=", 1)[0]
    if one_rank:
        return (0, f"{where}: {one_rank}, so no GPU pair shares a host and no P2P path is lost", name)
    if nvlink:
        return (3, f"{where} on NVLink: NCCL moves GPU-to-GPU traffic off NVLink into host memory", name)
    if geforce or p2p_ok is False:
        return (0, f"{where}: P2P is not available on these GPUs anyway (no loss)", name)
    if p2p_ok:
        return (3, f"{where} on PCIe GPUs whose driver reports P2P OK: NCCL takes the host-memory path instead "
                "(about half the bandwidth, nccl-tests#74)", name)
    if topo is None:  # neither the GPUs nor their links shown: the message names the one exception
        return (2, f"{where}: on P2P-capable GPUs it halves GPU-to-GPU bandwidth, and on GPUs without P2P "
                "(GeForce cards on the stock driver) it is the usual workaround and costs nothing; "
                "`nvidia-smi topo -p2p r` settles which", name)
    return (2, f"{where} on PCIe GPUs: usually a loss (host-memory path), but on some PCIe hosts a measured "
            "choice; keep it only if a benchmark on this host (all_reduce_perf with and without it) shows a gain",
            name)


# --- IC-TOPOLOGY-PLACEMENT -------------------------------------------------------------------


@check(
    "IC-TOPOLOGY-PLACEMENT",
    title="TP group spans sockets / slow PCIe paths",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Start the engine on GPUs under one switch/socket (CUDA_VISIBLE_DEVICES from the matrix, with "
                       "CUDA_DEVICE_ORDER=PCI_BUS_ID); use DP/PP across sockets", "nvidia-smi topo -m",
                       cost="restart", scope="container",
                       keep=keep_text("the same in the service definition / pod spec"))),
    references=(NCCL_PATHS, TRTLLM_PCIE_AR),
)
def topology_placement(serving_engine: ServingEngine, gpu_topology: TopoMatrix | None = None,
                       gpus: GpuInventory | None = None, collect_env: CollectEnv | None = None,
                       serving_log: ServingLog | None = None, nccl_test_runs: NcclTestRuns | None = None,
                       engine_commands: EngineCommands | None = None,
                       docker_containers: DockerContainers | None = None,
                       model_placements: ModelPlacements | None = None,
                       nvidia: NvidiaGpus | None = None, ollama_shown: OllamaShown | None = None,
                       parallelism: Parallelism | None = None, stated_engines: StatedEngines | None = None) -> Outcome:
    """Reads: `nvidia-smi topo -m` restricted to the engine's GPUs (its CUDA_VISIBLE_DEVICES and
    tensor-parallel size, from /proc, a pasted command line or a pasted log), CUDA_DEVICE_ORDER,
    the GPU models. With no engine shown, a pasted test run's GPUs (nccl-tests or NCCL 1 rank lines, through the
    CUDA_VISIBLE_DEVICES on its command line) are the group it judges.

    Bad value: a TP group whose GPUs meet over `SYS` while a group of the same size with only
    `PIX`/`PXB`/`NODE` paths exists; CUDA_VISIBLE_DEVICES picked from nvidia-smi indices without
    CUDA_DEVICE_ORDER=PCI_BUS_ID on a host with mixed GPU models.

    Why: cross-socket traffic crosses UPI/xGMI and NCCL disables P2P there by default (paths.cc);
    TensorRT-LLM documents the cross-NUMA link as the bottleneck of 8-GPU PCIe boxes. Small decode
    all-reduces are latency-bound.

    Traps: when the group needs all GPUs (a TP size equal to the GPU count, or with no engine shown the two GPUs of
    a two-GPU matrix), crossing sockets is unavoidable (not-an-issue). GPUs outside an NVLink mesh of three
    or more put every group with them on PCIe, the whole board's first (issue, with no engine too). Every
    pair SYS: with every GPU shown on one NUMA node, or on one span of nodes (`0-1`) with one CPU list (corpus 1617),
    nothing ranks one group above another (not-an-issue); over several nodes only NUMA does, by an amount the matrix
    does not show (unknown). On NVLink/NVSwitch
    systems placement does not matter (ok). A cut matrix whose whole rows bond more NVLinks than one GPU
    has shows NVSwitches, so the pairs it leaves out are NVLink too; so does a cut row's, on a board of NVSwitch
    parts (corpus 1031), judged over the rows that show it. An engine group of every GPU on a cut matrix is judged
    over the rows shown: the pairs left out change no choice (corpus 1023). Where every GPU's NUMA affinity
    spans several nodes and no path is SYS, the matrix hides the sockets (unknown).
    A pair a cut matrix leaves out is read from the row of a GPU behind the same PCIe switch (PIX or PXB share
    every path out of the switch); a group with a pair no row settles is unknown.
    With no matrix, NCCL's path dump in a pasted log (`GPU/4B000 :… GPU/51000 (2/160.0/NVL) NVS/0 …`) showing NVL
    between every GPU pair it lists is that NVLink fabric: ok over the GPUs it lists. So is NCCL's topology tree
    (`+ NVL[80.0] - GPU/41000` under each GPU) whose GPUs shown whole each link to every other GPU it names, where it
    names the communicator's every rank; pairs it shows from neither end only on a direct board that links every pair
    (corpus 2262: four GPUs, four links to each peer).
    A test run's device numbers name host GPUs only through a CUDA_VISIBLE_DEVICES on its command line, or when
    its highest device is the host's last GPU; otherwise the run's group is not read.
    With no matrix, a group the source shows is every GPU of the host (a whole GPU count, and a pasted command with
    TP x PP of that count, a serving container given every GPU (`--gpus all`) whose arguments run TP x PP of them, or
    a llama.cpp server splitting over every GPU, neither narrowed by CUDA_VISIBLE_DEVICES, or a llama-bench table whose
    runs name a split mode over GPUs and no device of their own, corpus 2902, or the one TP size the user's words give
    a run, `with SGLang TP4 serving ...` on four A100s, corpus 2848; an engine whose build or
    log gives TP x PP of that count, or a llama.cpp log with buffers on every GPU, where no command sets
    CUDA_VISIBLE_DEVICES: corpus 1842, 1843; with no engine shown, a
    pasted test run whose ranks hold every GPU: corpus 758; the user's sentence running TP over the host's count of GPUs,
    `TP with 10 x ADA 6000s`: corpus 2906) has no placement to choose: not an issue (facts/parallelism.group_of_every_gpu). Nor has any engine on a host of
    two GPUs of one model (a whole count of 2, a count in the user's words such as `gpu=2` with no GPU listed
    included: corpus 1213): its group is both GPUs or it has none (corpus 997). Two models keep
    the CUDA_DEVICE_ORDER question open, and so do two modules of a larger mesh board (V100 SXM2, up to 8 on a
    DGX-1 whose direct NVLinks leave some pairs unlinked): a share of the board, where which two decides their
    link (unknown, corpus 1089).
    vLLM's Ray executor warning that its TP size is bigger than the GPUs Ray reserves on a node (ServingLog.tp_beyond_node:
    `tensor_parallel_size=16 is bigger than a reserved number of GPUs (8 GPUs) in a node`) puts one TP group on two
    nodes or more, every all-reduce over the network: an issue with or without a matrix (corpus 1247).
    A job shown with one rank on each node (facts/parallelism.one_rank_per_node; a launcher's own count, `srun
    --ntasks-per-node=1`, corpus 2459) has no group inside a host to place: not applicable; but an engine command whose TP group is those ranks (`--tp 2 --nnodes 2`: _parse.tp_spans_nodes,
    one rank per node) runs every layer's all-reduce over the network, where TP inside a node and PP across nodes
    (vLLM's distributed-serving guide) keeps it on a host's links: an issue (corpus 1611). So is an engine command whose
    TP group spans its nodes with several ranks on each (`--tp-size 16 --nnodes 2`) for a model whose name states a
    size that half of one node's ranks hold at 8 GiB each (facts/parallelism.tp_spans_nodes_needlessly: an 8B model,
    corpus 1792); a model whose name states no size or too large a one is judged as before. Nor has an engine shown running on one GPU (TP 1, one pipeline stage:
    facts/parallelism.one_gpu_engine; a command the paste cuts before any TP flag, `... --port 7860 --downlo`, shows no
    TP: corpus 2022), or a llama.cpp server that CUDA_VISIBLE_DEVICES, set on its line or above it
    (`export`, a batch script's `set`), gives one GPU (corpus 962), or whose `--tensor-split` puts every layer on one
    device or whose `--split-mode none` keeps the model on one (every engine command shown on one GPU:
    facts/parallelism.one_gpu_commands, the reading IC-P2P-FUNCTIONAL shares). Nor has a llama.cpp log whose
    model-buffer blocks name one CUDA device beside the host's buffers (`CUDA0 model buffer size` under `CPU_Mapped`),
    where `ollama ps` or `ollama -v` is not shown: ollama loads each model in a runner of its own (corpus 2170, 1165). Nor has an ollama runner whose
    placement line lists one GPU (`memory.available="[21.6 GiB]"`, corpus 1497), or a model that a serving framework
    places one GPU to each copy in its own terms (Xinference's `--gpu-idx 0,1 --replica 2` or `on GPU index: [2]`, a
    Triton KIND_GPU instance group: facts/model_placement, corpus 1493, 1495, 1498). Nor has a job, no engine or
    test run shown, whose nvidia-smi table of every GPU shows one GPU at work and the rest idle (0 %, the driver's few
    MiB: facts/parallelism.one_busy_gpu, corpus 1699).
    An engine (a process, a pasted command, PowerShell's `$env:CUDA_VISIBLE_DEVICES="1"` too) whose
    CUDA_VISIBLE_DEVICES index names another GPU model in CUDA's default fastest-first order than in nvidia-smi's
    listing of every GPU (PCI bus order), with no CUDA_DEVICE_ORDER=PCI_BUS_ID, runs on a GPU the user did not mean:
    an issue, on one GPU too (facts/gpus.cuda_order_renames: GPUs of different architectures only, corpus 2497).
    So is a host whose program's CUDA device list (llama.cpp's `ggml_cuda_init` devices, deviceQuery) and nvidia-smi's
    listing (its table, `-L`, `--query-gpu` rows) name the same models at different indices, whatever their
    architectures: the two orders differ there, so a GPU picked by nvidia-smi's index (a launcher's, a
    CUDA_VISIBLE_DEVICES) runs the work on another card (facts/gpus.cuda_order_differs, corpus 2680).
    """
    if one_each := one_rank_per_node(serving_engine, serving_log, engine_commands):
        shown = serving_engine.shown
        if shown is not None and tp_spans_nodes(shown.argv) and ranks_per_node(shown.argv) == 1:
            return _tp_rank_per_node(one_each, shown.argv)
        return not_applicable(f"{one_each}: no group of GPUs inside a host to place")
    named = model_argument(serving_engine.shown) if serving_engine is not None and serving_engine.shown else None
    if needless := tp_spans_nodes_needlessly(serving_engine, named or ""):
        return _tp_needs_one_node(needless, serving_engine)
    if renamed := _cuda_order_renamed(serving_engine, engine_commands, gpus):
        return renamed
    if differs := cuda_order_differs(gpus):
        return issue(f"the program's CUDA device list and nvidia-smi's listing number this host's GPUs differently: "
                     f"{differs}, so a GPU picked by its nvidia-smi index (a launcher's, CUDA_VISIBLE_DEVICES) runs the "
                     "work on another card: CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID",
                     actual={"CUDA order": differs}, expected="CUDA_DEVICE_ORDER=PCI_BUS_ID")
    if one_gpu := one_gpu_engine(serving_engine, gpus, engine_commands, serving_log, model_placements, ollama_shown):
        return not_applicable(f"{one_gpu}: one GPU, no group of GPUs to place")
    if serving_log is not None and serving_log.tp_beyond_node:
        return _tp_beyond_node(serving_log)
    shown_group = serving_engine.engine or serving_engine.tp is not None or engine_commands is not None \
        or nccl_test_runs is not None
    if not shown_group and (busy := one_busy_gpu(nvidia, gpus.whole_count if gpus is not None else None)):
        return not_applicable(f"{busy}: no group of GPUs to place")
    if gpu_topology is None:
        count = gpus.whole_count if gpus is not None else None
        by_tests = gpus is not None and bool(gpus.counts) and all(src == NCCL_TESTS_TITLE for src, _ in gpus.counts)
        if every := group_of_every_gpu(serving_engine, engine_commands, count, docker_containers,
                                        nccl_test_runs, count_by_tests=by_tests, log=serving_log,
                                        benches=parallelism.benches if parallelism is not None else (),
                                        stated=stated_engines):
            judged = not_an_issue(f"the group spans every GPU of the host: {every}, so whatever sockets they sit on, "
                                  "no other placement exists to choose", actual={"gpus": count})
            return over_subjects(judged, [g.label for g in gpus.gpus] if gpus is not None else [], count,
                                 ask="nvidia-smi -L")
        if board := nvswitch_node_of_every_gpu(serving_log):
            return not_an_issue(f"the group spans every GPU of its node: {board}: no other placement exists to "
                                "choose", actual={"localRanks": serving_log.local_ranks if serving_log else None},
                                evidence=list(serving_log.nvls_up()[:1]) if serving_log is not None else [])
        # Two modules of a larger NVLink mesh board are a share of it: which two decides their link.
        share = _mesh_board_share(_models(gpus), count) if count == 2 else ""
        # A count that is only a test run's header is the devices it opened, not the host's (corpus 1764).
        if count == 2 and gpus is not None and len(set(_models(gpus).values())) < 2 and not share \
                and not by_tests:  # mixed: CUDA order
            judged = not_an_issue("the host has two GPUs: a group of GPUs is both of them, so whatever sockets they sit "
                                  "on, no other placement exists to choose (one GPU alone has no group)",
                                  actual={"gpus": count})
            # A count with no GPU listed (the user's `gpu=2`, corpus 1213) settles it host-wide: the verdict rests on
            # the count alone, not on anything of each GPU.
            return over_subjects(judged, [g.label for g in gpus.gpus], count, ask="nvidia-smi -L") if gpus.gpus \
                else judged
        if share:
            return _nccl_paths_nvlinked(serving_log) or unknown(
                f"the topology matrix is not in the source, and the host's two GPUs are {share}",
                hint="`nvidia-smi topo -m`", actual={"gpus": count})
        return _nccl_paths_nvlinked(serving_log) or _no_matrix(gpus)
    topo = gpu_topology
    names = list(topo.gpus)
    if len(names) < 2:
        return not_applicable("one GPU: nothing to place")
    nvlinked = topo.all_nvlinked()
    if nvlinked:
        return over_subjects(ok("every GPU pair is NVLink-connected: any group meets over NVLink, so placement "
                                "does not matter", actual={"links": sorted({c for _, _, c in topo.gpu_pairs()})}),
                             names, None, ask="nvidia-smi topo -m")
    unshown = topo.unshown_pairs()
    whole = topo.whole_rows()
    fabric = topo.fabric_rows()
    # A cut row on the fabric shows its GPU's switches; the GPUs it reaches no cell of are on them where every GPU is
    # of an NVSwitch baseboard part (_switch_expected).
    shown_rows = list(whole) if topo.nvlink_fabric() else list(fabric) if _switch_expected(_models(gpus)) else []
    if nvlinked is None and unshown and shown_rows:
        # The rows bond more NVLinks than a GPU has: NVSwitches, so the pairs they do not show meet over NVLink.
        return over_subjects(ok(f"every GPU pair shown is NVLink-connected, and {shown_rows[0]}'s row bonds more "
                                "NVLinks than any GPU has (NVSwitches): the pairs not shown meet over NVLink too, so "
                                f"placement does not matter ({topo.cut_note()})",
                                actual={"links": sorted({c for _, _, c in topo.gpu_pairs()}), "rows": shown_rows}),
                             shown_rows, len(names), ask="nvidia-smi topo -m")
    if nvlinked is None and unshown and not topo.gpu_pairs():
        # A matrix cut to its NIC rows (corpus 1101) names the GPUs but shows no GPU pair.
        return unknown(f"the matrix shows no GPU pair: {len(unshown)} pair(s) are not shown ({topo.cut_note()})",
                       hint="paste the whole `nvidia-smi topo -m`")
    if nvlinked is None and unshown:
        return unknown(f"every GPU pair shown is NVLink-connected (placement would not matter), but {len(unshown)} "
                       "pair(s) are not shown: " + ", ".join(f"{a}-{b}" for a, b in unshown[:6])
                       + f" ({topo.cut_note()})", hint="paste the whole `nvidia-smi topo -m`")
    if topo.numa_hidden():
        spans = sorted(set(topo.numa_affinity.values()))
        hidden = unknown(f"every GPU's NUMA affinity spans several nodes ({', '.join(spans)}) and no path is SYS: "
                         "the matrix hides which socket each GPU hangs off, so a group's socket span cannot be read",
                         hint="paste `lspci -tv` or each GPU's /sys/bus/pci/devices/<bdf>/numa_node")
        return over_subjects(hidden, names, len(names), ask="nvidia-smi topo -m")
    engine, tp = serving_engine.engine, serving_engine.tp
    root = serving_engine.process or serving_engine.command  # CUDA_VISIBLE_DEVICES set on a pasted command line
    what, group_of_engine = "the TP group", True
    if not engine and tp is None:
        tested = nccl_test_runs.group(len(names)) if nccl_test_runs is not None else None
        if tested is None or any(f"GPU{i}" not in names for i in tested):
            return _placement_advice(topo, _models(gpus))
        # A pasted test run shows which GPUs it took: its group is judged as an engine's would be.
        group, what, root, group_of_engine = [f"GPU{i}" for i in tested], "the test run's group", None, False
    else:
        group = _engine_gpus(topo, root, tp, collect_env)
    size = len(group)
    if size < 2:
        return not_applicable(f"{_engine_name(engine) if group_of_engine else 'the test run'} uses one GPU")
    notes = []
    models = _models(gpus)
    cvd = _cvd(root, collect_env) if group_of_engine else None
    order = root.env("CUDA_DEVICE_ORDER") if root is not None else None
    mixed = len(set(models.values())) > 1
    if cvd and mixed and order != "PCI_BUS_ID":
        notes.append("CUDA_VISIBLE_DEVICES is set without CUDA_DEVICE_ORDER=PCI_BUS_ID on a host with mixed GPU "
                     "models: CUDA numbers them fastest-first, not like nvidia-smi")
    worst = topo.group_cost(group)[0]
    cells = {f"{a}-{b}": topo.path(a, b) for a, b in itertools.combinations(group, 2)}
    if worst > link_rank("SYS") and size < len(names):
        unseen = [k for k, c in cells.items() if c is None]
        return unknown(f"{what} {', '.join(group)}: the matrix does not show the path of "
                       f"{', '.join(unseen[:6])}, and no row shown settles it ({topo.cut_note()})", actual=cells,
                       hint="paste the whole `nvidia-smi topo -m`")
    inferred = topo.inferred_pairs(group)
    read = (f"; {', '.join(f'{a}-{b}' for a, b in inferred[:4])} not shown, read from the row of a GPU behind the "
            "same PCIe switch, whose paths out of the switch are theirs") if inferred else ""
    if size >= len(names):
        # Issue 10: crossing sockets when the group needs every GPU is unavoidable: not-an-issue over SYS (blind 363,
        # 402, 291), ok where the worst path stays inside a socket. Pairs a cut matrix leaves out change nothing: the
        # group holds every GPU whatever their paths (corpus 1023), judged over the rows shown.
        crossed = any(c is not None and link_rank(c) >= link_rank("SYS") for c in cells.values())
        judged = (not_an_issue if crossed or worst > link_rank("SYS") else ok)(
            f"{what} uses all {len(names)} GPUs: crossing "
            f"{'sockets' if crossed else 'host bridges'} is unavoidable (info)"
            + (f"; {topo.cut_note()}" if topo.unshown_pairs() else "")
            + ("; " + "; ".join(notes) if notes else ""), actual=cells)
        rows = [g for g in names if g in topo.rows]
        # Judged over the GPUs whose rows the matrix shows (corpus 641: `2 GPUs shown`), a whole matrix too.
        return over_subjects(judged, rows, len(names), ask="nvidia-smi topo -m")
    best = min(itertools.combinations(names, size), key=lambda g: topo.group_cost(g)[0])
    best_worst = topo.group_cost(best)[0]
    if worst == link_rank("SYS") and best_worst < link_rank("SYS"):
        return issue(f"{what} {', '.join(group)} crosses sockets (SYS) while {', '.join(best)} share a socket "
                     f"(worst path {_PATH_NAMES[best_worst]})" + read
                     + ("; " + "; ".join(notes) if notes else ""),
                     actual=cells, expected=f"CUDA_VISIBLE_DEVICES={','.join(str(gpu_index(g)) for g in best)}",
                     subjects=group, evidence=[topo.lines[g] for g in group if g in topo.lines][:4])
    per_node = Counter(topo.numa_affinity.get(g, "?") for g in names)
    across = len({topo.numa_affinity.get(g, "?") for g in group}) > 1
    one_node = across and any(n >= size for node, n in per_node.items() if node.isdecimal())
    if worst == link_rank("SYS") and best_worst == worst and not notes and one_node:
        # The links rank no group above another, but the NUMA nodes do: the matrix does not say by how much.
        return unknown(f"{what} {', '.join(group)} spans NUMA nodes over SYS, as every group of {size} GPUs "
                       "meets over SYS; a group on one node exists (" + "; ".join(
                           f"node {n}: {c} GPUs" for n, c in sorted(per_node.items()) if n.isdecimal())
                       + "), which the link types do not rank above it", actual=cells,
                       hint="compare the all-reduce bandwidth of a same-node group (nccl-tests) with this one")
    if notes:
        return issue("; ".join(notes), actual={"CUDA_VISIBLE_DEVICES": ",".join(cvd or []), "CUDA_DEVICE_ORDER": order},
                     expected="CUDA_DEVICE_ORDER=PCI_BUS_ID", severity="low", subjects=group)
    return ok(f"{what} {', '.join(group)} uses the closest paths available "
              f"({', '.join(sorted({c or '?' for c in cells.values()}))}){read}", actual=cells)


def _cuda_order_renamed(engine: ServingEngine | None, commands: EngineCommands | None,
                        gpus: GpuInventory | None) -> Outcome | None:
    """IC-TOPOLOGY-PLACEMENT issue where the engine's CUDA_VISIBLE_DEVICES (its process, or a pasted command's) names,
    in CUDA's default fastest-first order, another GPU model than in nvidia-smi's (facts/gpus.cuda_order_renames):
    the engine runs on a GPU the user did not mean (corpus 2497); None otherwise."""
    shown = [(engine.shown, "")] if engine is not None and engine.shown is not None else []
    shown += [(c.as_process(), c.line) for c in (commands.commands if commands is not None else ())]
    for process, line in shown:
        renamed = cuda_order_renames(process.visible_devices, process.env("CUDA_DEVICE_ORDER"), gpus)
        if renamed:
            visible = process.env("CUDA_VISIBLE_DEVICES")
            return issue(f"CUDA_VISIBLE_DEVICES={visible} follows nvidia-smi's numbering (PCI bus order) on a host of "
                         "mixed GPU models without CUDA_DEVICE_ORDER=PCI_BUS_ID, while CUDA numbers the newer GPU first: "
                         f"{renamed}, so the engine runs on another GPU than the one meant",
                         actual={"CUDA_VISIBLE_DEVICES": visible, "CUDA_DEVICE_ORDER": process.env("CUDA_DEVICE_ORDER")},
                         expected="CUDA_DEVICE_ORDER=PCI_BUS_ID", evidence=[line] if line else [])
    return None


_PATH_NAMES = ("X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS")


def _tp_beyond_node(log: ServingLog) -> Outcome:
    """vLLM's Ray executor warning that its TP group is larger than the GPUs Ray reserves on a node
    (ServingLog.tp_beyond_node, corpus 1247): the placement group puts one TP group on two nodes or more, so every
    layer's all-reduce crosses the network between them; TP of a node's GPUs with PP across nodes keeps the
    all-reduces on each node's own links. An issue with no matrix: the engine itself says where its group sits."""
    tp, per_node, line = log.tp_beyond_node[0]
    nodes = -(-tp // per_node) if per_node else 2
    split = f"TP {per_node} inside each node with PP {nodes} across the nodes" if per_node and tp % per_node == 0 \
        else f"a TP size of at most {per_node} (a node's GPUs), with PP across nodes"
    judged = issue(f"vLLM's Ray executor warns that its TP group of {tp} GPUs is bigger than the {per_node} GPUs Ray "
                   f"reserves on a node: the tensor-parallel workers are spread over {nodes}+ nodes, so every layer's "
                   f"all-reduce crosses the network between them ({split} keeps them on each node's own links)",
                   actual={"tensor_parallel_size": tp, "gpus_per_node": per_node},
                   expected=f"tensor_parallel_size <= {per_node}, PP across nodes", evidence=[line[:300]])
    # The group's GPUs are the TP ranks the warning counts, on nodes the source does not list one by one.
    return over_subjects(judged, [f"TP rank {r}" for r in range(tp)], None)


def _tp_rank_per_node(one_each: str, argv: tuple[str, ...]) -> Outcome:
    """A shown engine command whose tensor-parallel group holds one rank on each node (`--tp 2 --nnodes 2`,
    _parse.tp_spans_nodes with ranks_per_node 1; corpus 1611): no two TP ranks share a host, so every layer's
    all-reduce crosses the network between the hosts, the slowest link a TP group can have. The engines' multi-node
    guidance keeps TP inside a node and runs PP (or replicas) across nodes: an issue, as the Ray executor's warning of
    a TP group beyond a node is (corpus 1247). A pipeline of one rank per node (TP 1) passes activations once per stage
    and stays not applicable."""
    return issue(f"{one_each}: no two TP ranks share a host, so every layer's all-reduce crosses the network between "
                 "the nodes (TP inside a node, PP or replicas across nodes, keeps it on a host's own links)",
                 actual={"--nnodes": argv_value(argv, ("--nnodes",)), "ranks_per_node": 1},
                 expected="TP within a node; PP or data-parallel replicas across nodes", evidence=[" ".join(argv)[:300]])


def _tp_needs_one_node(needless: str, engine: ServingEngine) -> Outcome:
    """A shown engine command whose TP group spans nodes for a model one node holds
    (facts/parallelism.tp_spans_nodes_needlessly, corpus 1792): every layer's all-reduce crosses the network between
    the nodes, where the model served on one node (or one replica on each) keeps it on a host's own links."""
    argv = engine.shown.argv if engine.shown is not None else ()
    return issue(f"{needless}: every layer's all-reduce crosses the network between the nodes, where TP inside one "
                 "node (a replica on each node for more throughput) keeps it on a host's own links",
                 actual={"--nnodes": argv_value(argv, ("--nnodes",))},
                 expected="TP within one node; data-parallel replicas across nodes", evidence=[" ".join(argv)[:300]])


def _mesh_board_share(models: dict[int, str], count: int) -> str:
    """Why `count` GPUs are part of a larger board whose direct NVLinks do not join every pair, in words; "" otherwise.

    Modules of a "mesh" board (data/gpus.toml: V100 SXM2, up to 8 on a DGX-1's hybrid cube-mesh, where some pairs
    share no NVLink) fewer than the board's NVLink domain are a share of it (a cloud instance, a container, a
    CUDA_VISIBLE_DEVICES): which modules the host got decides whether its GPUs meet over NVLink, so their count
    leaves the placement open. An NVSwitch board joins every pair alike and is not one."""
    specs = _specs(models)
    if not specs or len(specs) != len(models) or any(s.nvlink_kind != "mesh" for s in specs):
        return ""
    domain = min(s.nvlink_domain for s in specs)
    if count >= domain:
        return ""
    return (f"{specs[0].name} modules, of a board of up to {domain} joined by direct NVLinks that do not link every "
            f"pair: {count} of them are a share of that board, and which ones decides whether they share a link")


def _placement_advice(topo: TopoMatrix, models: dict[int, str]) -> Outcome:
    """No engine in the source: the best TP groups for 2/4/8 GPUs, as information.

    Where even the best pair meets over SYS, link types rank no group above another: which group the engine
    takes decides whether it spans sockets, and the source does not show it (unknown).
    A group size whose best group crosses sockets crosses them whatever the engine picks (information, issue 10).
    A size whose best group stays on one socket on a matrix with SYS pairs stays or crosses by the engine's choice,
    which the source does not show (unknown, the best groups named); without SYS pairs the advice is ok.
    Every pair SYS with every GPU shown on one NUMA node, or on one span of nodes with one CPU list, leaves nothing to
    choose (not-an-issue), as two GPUs over SYS do (the one group of two). GPUs outside an
    NVLink mesh of three or more (not bridged cards) put every group with them on PCIe, the whole-board group first
    (issue).
    """
    nvlink = topo.nvlink_mesh()
    if nvlink.isolated and nvlink.full and len(nvlink.linked) >= 3 and _board(models) != "bridge":
        out, linked = nvlink.isolated, nvlink.linked
        fits = max((n for n in (2, 4, 8) if n <= len(linked)), default=0)
        paths = "/".join(sorted({link_kind(topo.link(out[0], g) or "") for g in linked} - {""}, key=link_rank))
        return issue(f"{', '.join(out)} {'has' if len(out) == 1 else 'have'} no NVLink to the other "
                     f"{len(linked)} GPUs ({paths} instead), which meet over NVLink: every TP group with "
                     f"{'it' if len(out) == 1 else 'them'} runs over PCIe, so a TP group of all "
                     f"{len(topo.gpus)} GPUs does; the largest NVLink group is TP{fits} "
                     f"without {', '.join(out)} (IC-TOPO-READ says why the links are missing)",
                     actual={g: {p: topo.link(g, p) for p in topo.gpus if p != g} for g in out},
                     expected="NVLink between every TP peer", subjects=list(out),
                     evidence=[topo.lines[g] for g in out if g in topo.lines])
    pairs = [link_rank(c) for _, _, c in topo.gpu_pairs()]
    if len(topo.gpus) == 2 and pairs and min(pairs) >= link_rank("SYS"):
        # Two GPUs: a TP group of more than one is both of them, whichever the engine takes (blind 402).
        return not_an_issue(f"{' and '.join(topo.gpus)} meet over SYS, but they are the matrix's only two GPUs: a TP "
                            "group of two needs both, so crossing the sockets is unavoidable and no better pair "
                            "exists", actual={"-".join(topo.gpus): "SYS"}, subjects=list(topo.gpus))
    if pairs and min(pairs) >= link_rank("SYS"):
        nodes: dict[str, list[str]] = {}
        for g in topo.gpus:
            nodes.setdefault(topo.numa_affinity.get(g, "?"), []).append(g)
        shown = [g for g in topo.whole_rows() if g in topo.numa_affinity]
        node = {topo.numa_affinity[g] for g in shown}
        cpus = {topo.cpu_affinity.get(g) for g in shown}
        same = next(iter(node)) if shown and len(node) == 1 else ""
        # One NUMA node for every GPU, or one span of nodes (`0-1`) with one CPU list for every GPU (corpus 1617): the
        # matrix ties no GPU to a socket of its own, so the affinity ranks no partner above another either.
        spans_alike = bool(re.fullmatch(r"\d+(?:[-,]\d+)+", same)) and len(cpus) == 1 and None not in cpus
        if same.isdecimal() or spans_alike:
            # Neither the links nor the NUMA node rank one group above another: nothing to choose (a flat layout,
            # as a hypervisor's virtual PCIe gives), judged over the whole rows shown.
            where = f"sits on NUMA node {same}" if same.isdecimal() else \
                f"has the same NUMA affinity ({same}) and CPU affinity ({next(iter(cpus))})"
            flat = not_an_issue(f"every GPU shown meets every other over SYS and {where}: for them no link type or "
                                "NUMA node ranks one TP partner above another, so no better group exists to choose (a "
                                "flat layout, as a VM's virtual PCIe shows)"
                                + (f" ({topo.cut_note()})" if topo.cut_note() else ""),
                                actual={"links": ["SYS"], "numa": {g: topo.numa_affinity[g] for g in shown}})
            return over_subjects(flat, shown, len(topo.gpus), ask="nvidia-smi topo -m")
        split = ("; only the NUMA affinity separates them (" + "; ".join(
            f"node {n}: {', '.join(gs)}" for n, gs in nodes.items()) + ")") if len(nodes) > 1 else ""
        unshown = topo.unshown_pairs()
        judged = unknown("no serving engine in the source, and every GPU pair "
                         + ("shown " if unshown else "") + "meets over SYS: the link types rank no "
                         "TP group above another" + split
                         + (f" ({len(unshown)} GPU pair(s) not shown, a better one may be among them)" if unshown
                            else ""), hint="paste the engine's command line (TP size, "
                         "CUDA_VISIBLE_DEVICES) to judge its group")
        # A cut matrix judges over its whole rows only, with the coverage IC-TOPO-READ gives (corpus 1404).
        return over_subjects(judged, list(topo.whole_rows()), len(topo.gpus), ask="nvidia-smi topo -m") \
            if unshown else judged
    parts: list[str] = []
    subjects: list[str] = []
    actual: dict[str, list[list[str]]] = {}
    cross: list[str] = []
    for size in (2, 4, 8):
        if len(topo.gpus) > 16 and size > 2:
            continue  # C(n, size) grows too fast past one 16-GPU box; no single host shows more
        groups = topo.best_partition(size)
        if not groups:
            continue
        # A size must cross sockets when even its best group does; the groups after it may be worse.
        worst = topo.group_cost(groups[0])[0]
        path = _PATH_NAMES[worst] if worst < len(_PATH_NAMES) else "not shown"
        if worst == link_rank("SYS"):
            cross.append(f"TP{size}")
        text = " | ".join(",".join(str(gpu_index(x)) for x in g) for g in groups)
        parts.append(f"TP{size}: {text} (best group's worst path {path})")
        subjects.extend(f"TP{size}: GPU {','.join(str(gpu_index(x)) for x in g)}" for g in groups)
        actual[f"tp{size}"] = [list(g) for g in groups]
    # Issue 10: a size that must cross sockets crosses them whatever the engine takes: information (ok).
    crossing = (f"; {', '.join(cross)} must cross sockets (SYS)" if cross else "; no group size needs to cross sockets")
    free = [p.split(":")[0] for p in parts if p.split(":")[0] not in cross]
    if free and any(link_kind(c) == "SYS" for _, _, c in topo.gpu_pairs()):
        # A size whose best group stays on one socket while others of that size cross: which group the engine took
        # decides, and the source shows no engine (blind 325 and 243 want unknown there).
        return unknown(f"no serving engine in the source, and the matrix has SYS pairs: a {'/'.join(free)} group "
                       "stays on one socket or crosses it depending on which GPUs the engine takes, which the "
                       "source does not show; the best TP groups (CUDA_VISIBLE_DEVICES): " + "; ".join(parts)
                       + crossing, actual=actual, subjects=subjects,
                       hint="the engine's command line (TP size, CUDA_VISIBLE_DEVICES) judges its group: audit "
                       "while it serves, or paste it")
    # The groups are drawn from the GPUs whose rows the matrix shows (corpus 860, 723: `2 GPUs shown`).
    return over_subjects(ok("no serving engine in the source; the best TP groups (CUDA_VISIBLE_DEVICES): "
                            + "; ".join(parts) + crossing, actual=actual, subjects=subjects),
                         [g for g in topo.gpus if g in topo.rows], len(topo.gpus), ask="nvidia-smi topo -m")


# --- IC-NUMA-AFFINITY ------------------------------------------------------------------------


@check(
    "IC-NUMA-AFFINITY",
    title="Engine processes on the wrong NUMA node relative to their GPU",
    severity="low",
    confidence="documented",
    fix=Fix.of(step("Bind each worker to its GPU's NUMA node (or use the engine's NUMA-binding option)",
                       "numactl --cpunodebind=<n> --membind=<n> <engine command>", cost="restart", scope="container",
                       keep=(keep_text("`taskset -c <local_cpulist>` instead of numactl"),
                             keep_text("container cpusets on the GPU's node (CTR-CPU-LIMITS); the binding in the "
                                       "service file")))),
    references=(NCCL_TESTS_115,),
)
def numa_affinity(serving_processes: ServingProcesses | None = None, gpu_topology: TopoMatrix | None = None,
                  gpus: GpuInventory | None = None, numa: NumaTopology | None = None,
                  serving_log: ServingLog | None = None) -> Outcome:
    """Reads: each GPU's NUMA node (`NUMA Affinity` of `nvidia-smi topo -m`, else
    /sys/bus/pci/devices/<bdf>/numa_node), the NUMA nodes' CPUs, and per engine worker
    (`VLLM::Worker_TP<n>`, `sglang::scheduler_TP<n>`) `Cpus_allowed_list` / `Mems_allowed_list`
    from /proc/<pid>/status, mapped to its GPU through CUDA_VISIBLE_DEVICES.

    Bad value: a GPU worker whose allowed CPUs (or memory) are all on a node other than its GPU's.

    Why: pinned host buffers and NCCL SHM buffers on the remote node make every H2D/D2H copy cross
    the socket link; without P2P "all traffic goes through CPU memory" and on AMD the NPS setting
    changes its speed (NCCL maintainer, nccl-tests#115).

    Traps: `numa_node = -1` means the firmware reports no locality (single node / NPS1), not an
    error. A matrix that shows one node (every GPU on it with the same CPUs, one range from CPU 0) is ok
    without the processes: none can run on another node. vLLM and SGLang bind nothing by default: an unbound worker is normal, and no published
    LLM-serving gain from binding exists (unproven).
    Without the processes, NCCL's `Setting affinity for GPU N to <CPUs>` line (ServingLog.gpu_affinity) shows its
    rank bound where it belongs: NCCL prints it only for a non-empty set of the CPUs local to that GPU (within the
    process's mask, or all of them under NCCL_IGNORE_CPU_AFFINITY=1), and makes its threads and host buffers for that
    rank there (graph/topo.cc ncclTopoGetCpuAffinity, init.cc): ok over the GPUs the lines name.
    """
    nodes = gpus.numa_nodes() if gpus is not None else {}
    known = [g.numa_node for g in (gpus.gpus if gpus is not None else ()) if g.numa_node is not None]
    if numa is not None and numa.count <= 1 and len(set(nodes.values())) <= 1:
        return not_applicable("one NUMA node: nothing to misplace")
    if numa is None and gpu_topology is not None and (single := gpu_topology.one_node()):
        node = gpu_topology.numa_affinity[gpu_topology.gpus[0]]
        # Judged over the matrix's GPUs (corpus 722: `4 GPUs shown`).
        return over_subjects(ok(f"every GPU of the matrix reports NUMA node {node} with CPUs {single}, one range from "
                                "CPU 0: the host's one node, so no engine process can run on a node far from its GPU "
                                "(`lscpu` confirms the node count)", actual={"numa_node": node, "cpus": single},
                                subjects=list(gpu_topology.gpus)),
                             list(gpu_topology.gpus), len(gpu_topology.gpus), ask="nvidia-smi topo -m")
    if known and all(n == -1 for n in known):
        return not_an_issue("the GPUs report NUMA node -1: the firmware gives no locality (single node or NPS1)")
    if serving_processes is None and serving_log is not None and serving_log.gpu_affinity:
        return _nccl_affinity(serving_log)
    if not nodes:
        return unknown("the GPUs' NUMA nodes are not in the source", hint="`nvidia-smi topo -m` (NUMA Affinity)")
    if serving_processes is None:
        return unknown("the engine's processes (their CPU affinity) are not in the source",
                       hint="`grep Cpus_allowed_list /proc/<worker pid>/status` and `nvidia-smi topo -m`")
    if not serving_processes.found:
        return not_applicable("no serving engine running: nothing bound yet",
                              actual={f"GPU{i}": n for i, n in sorted(nodes.items())})
    if numa is None:
        return unknown("the NUMA nodes' CPUs are not in the source", hint="`numactl -H`")
    wrong: list[str] = []
    bound: list[str] = []
    checked = 0
    for proc in serving_processes.processes:
        gpu, cpus = proc.rank_gpu, proc.cpus_allowed
        if proc.role not in ("worker", "scheduler", "engine-core") or gpu not in nodes or not cpus:
            continue
        checked += 1
        proc_nodes = numa.nodes_of(cpus)
        if len(proc_nodes) < numa.count:
            bound.append(proc.label)
        if nodes[gpu] not in proc_nodes:
            wrong.append(f"{proc.label} (GPU{gpu} on node {nodes[gpu]}) may run only on node(s) "
                         f"{sorted(proc_nodes)}")
    if wrong:
        return issue("; ".join(wrong), actual=wrong, expected="each worker on its GPU's NUMA node",
                     subjects=[w.split(" (")[0] for w in wrong])
    if checked == 0:
        return unknown("the engine workers' CPU affinity could not be matched to their GPUs",
                       hint="`grep Cpus_allowed_list /proc/<worker pid>/status` and `nvidia-smi topo -m`")
    if not bound:
        return ok("the engine's workers are not bound to a NUMA node (vLLM/SGLang default); binding each to its GPU's "
                  "node is possible but has no published serving gain (unproven)",
                  actual={f"GPU{i}": n for i, n in sorted(nodes.items())})
    return ok(f"{len(bound)} bound worker(s) run on their GPU's NUMA node", actual=bound)


def _nccl_affinity(log: ServingLog) -> Outcome:
    """IC-NUMA-AFFINITY from NCCL's `Setting affinity for GPU N to <CPUs>` lines: each names a rank NCCL bound to
    CPUs local to its GPU, so none of them runs on a node far from it. Over the GPUs the lines name, per host where
    the lines come from several."""
    hosts = {h for h, _, _, _ in log.gpu_affinity}
    sets = {(f"{h} GPU {g}" if len(hosts) > 1 and h else f"GPU {g}"): cpus for h, g, cpus, _ in log.gpu_affinity}
    forced = log.nccl_env.get("NCCL_IGNORE_CPU_AFFINITY") == "1"
    judged = ok(f"NCCL bound the rank of each GPU its lines name to CPUs local to that GPU ({len(sets)} shown"
                + (", NCCL_IGNORE_CPU_AFFINITY=1: the GPU's local CPUs whatever the launcher's mask" if forced else "")
                + "): it prints `Setting affinity` only for a non-empty set of them, and makes its threads and host "
                "buffers for that rank there, so none of them sits on a node far from its GPU", actual=sets,
                evidence=[line for _, _, _, line in log.gpu_affinity[:2]])
    return over_subjects(judged, list(sets), None, ask="nvidia-smi topo -m")


# --- IC-NIC-GPU-AFFINITY ---------------------------------------------------------------------


def _gdr_off(log: ServingLog) -> Outcome | None:
    """The issue where NCCL turns GPU Direct RDMA off for a GPU by its distance to the NIC (only asked between
    nodes), else None. An HCA's `Disabled` line is the NIC's reach into GPU memory (IC-NVIDIA-PEERMEM), not
    placement."""
    gdr_off = list(log.gdr_far())
    if not gdr_off:
        return None
    return issue("NCCL turns GPU Direct RDMA off for a GPU too far from the NIC: its network traffic is staged "
                 "through host memory", actual=gdr_off[:3], expected="GPU Direct RDMA enabled", evidence=gdr_off[:3])


def _nccl_gdr_distances(log: ServingLog, multi_node: bool, nccl_config: NcclConfig | None) -> Outcome:
    """IC-NIC-GPU-AFFINITY from NCCL's GPU Direct RDMA line for each GPU and NIC (ServingLog.gdr, graph/paths.cc
    ncclTopoCheckGdr): `Disabled ... (distance 5 > 4)` where the GPU's path to the NIC is beyond NCCL_NET_GDR_LEVEL
    (default PXB), `Enabled` within it. NCCL prints them for every GPU of the host at init, one node or several.

    Some GPUs with GPU Direct RDMA to a NIC beside GPUs without it is the placement itself, as the matrix's NIC
    columns read it: an issue. Every GPU shown without it is an issue between nodes, else unknown (the traffic may
    stay inside the host). Every GPU shown with it is ok over them where the level is within PXB."""
    reach: dict[str, bool] = {}
    for d in log.gdr:
        if d.gpu:
            reach[d.gpu] = reach.get(d.gpu, False) or d.enabled
    far = [f"GPU {g}" for g, on in reach.items() if not on]
    near = [f"GPU {g}" for g, on in reach.items() if on]
    summary = {f"GPU {g}": "GDR" if on else "no GDR" for g, on in reach.items()}
    level = (nccl_config.value("NCCL_NET_GDR_LEVEL") if nccl_config is not None else None) \
        or log.nccl_env.get("NCCL_NET_GDR_LEVEL")
    beyond = f" (NCCL_NET_GDR_LEVEL={level})" if level else ""
    if far and (near or multi_node):
        found = issue(f"NCCL turns GPU Direct RDMA (GDR) off for {', '.join(far)}: no NIC within its reach{beyond}"
                      + (f", while {', '.join(near)} get it" if near else "")
                      + "; any traffic they send between nodes is staged through host memory", actual=summary,
                      expected="a NIC within GPU Direct RDMA's reach per GPU", subjects=far, evidence=list(log.gdr_far()[:3]))
        return over_subjects(found, list(summary), None, ask="nvidia-smi topo -m")
    if far:
        return unknown(f"NCCL turns GPU Direct RDMA off for every GPU it lists ({', '.join(far)}){beyond}: that costs "
                       "only traffic between nodes, which the log does not show", actual=summary,
                       hint="`nvidia-smi topo -m` (its NIC columns), and whether the job spans nodes")
    lines = [d.line for d in log.gdr if d.gpu and d.enabled][:2]
    if level and level.upper() not in _GDR_LEVELS_WITHIN_PXB:
        return unknown(f"NCCL uses GPU Direct RDMA for {', '.join(near)}, but NCCL_NET_GDR_LEVEL={level} lets it do so "
                       "beyond PXB: the line does not say how near the NIC is", actual=summary,
                       hint="`nvidia-smi topo -m` (its NIC columns)")
    judged = ok(f"NCCL uses GPU Direct RDMA for {', '.join(near)}, which it does only for a NIC within PXB of the GPU "
                "(NCCL_NET_GDR_LEVEL's default)", actual=summary, evidence=lines)
    return over_subjects(judged, near, None, ask="nvidia-smi topo -m")


def _nccl_net_affinity(log: ServingLog, multi_node: bool) -> Outcome:
    """IC-NIC-GPU-AFFINITY from NCCL's own path dump (ServingLog.gpu_nets, src/graph/paths.cc printNodePaths): the
    path type from each GPU it lists to each network device, which is NCCL's reading of the PCIe tree that the NIC
    columns of `topo -m` show. The same rule as the matrix: every GPU listed within PXB is ok over the GPUs listed,
    whatever hosts the log shows (a cut log of a multi-node job shows one host); otherwise the log's ranks on one
    host make it not-applicable (NIC placement matters only between nodes), and between nodes a GPU whose nearest
    NET is beyond PXB beside GPUs with one within PXB is an issue. Lines that name no host (`[0] NCCL INFO`, corpus
    1394) show neither one host nor several: a GPU beyond PXB there is unknown, the condition named."""
    nearest = log.nearest_nets()
    summary = {f"GPU {g}": f"{n} {k}" for g, (n, k) in nearest.items()}
    far = [f"GPU {g}" for g, (_, k) in nearest.items() if link_rank(k) > link_rank("PXB")]
    if not multi_node and far and (log.one_node() or log.ranks_on_one_host() or log.nccl_hosts):
        return not_applicable("NCCL's log shows ranks of one host: NIC placement matters only for traffic between "
                              "nodes", actual=summary)
    if not multi_node and far:
        # Lines without a host name (`[0] NCCL INFO`, corpus 1394) show neither one host nor several.
        return unknown("NCCL's path dump puts " + ", ".join(f"{g} at {summary[g]}" for g in far) + " beyond PXB "
                       "of any network device, which matters for traffic between nodes; the log's lines name no "
                       "host, so whether the job spans nodes is not shown", actual=summary,
                       hint="paste the NCCL log with its host prefixes (NCCL_DEBUG=INFO), or `nvidia-smi topo -m`")
    if (gdr_off := _gdr_off(log)) is not None:
        return gdr_off
    close = [g for g in summary if g not in far]
    if far and close:
        return issue(f"{', '.join(far)} have no network device within PXB in NCCL's path dump (nearest: "
                     + ", ".join(summary[g] for g in far) + "): NCCL does not use GPU Direct RDMA for them by default, "
                     "so their traffic between nodes is staged through host memory", actual=summary,
                     expected="a PIX/PXB NIC per GPU", subjects=far, evidence=list(log.gpu_path_lines[:2]))
    if far:
        return unknown("no GPU NCCL lists has a network device within PXB (nearest: " + ", ".join(summary.values())
                       + "): whether the host has nearer NICs for them is not in the dump", actual=summary,
                       hint="`nvidia-smi topo -m` (its NIC columns)")
    judged = ok("every GPU in NCCL's path dump has a network device within PXB (GPU Direct RDMA's default reach): "
                + ", ".join(f"{g}→{v}" for g, v in summary.items()), actual=summary,
                evidence=list(log.gpu_path_lines[:2]))
    return over_subjects(judged, list(summary), log.comm_ranks or None, ask="nvidia-smi topo -m")


def _nccl_gdr_split(log: ServingLog) -> Outcome | None:
    """IC-NIC-GPU-AFFINITY from NCCL's channels of one host where some ranks' RDMA channels say `GDRDMA` and other
    ranks receive over an RDMA NIC without it (ServingLog.gdr_split): the NICs reach GPU memory on that host, so
    NCCL kept those GPUs' buffers off the NIC by their distance to it, the placement itself (as some GPUs with a
    NIC within PXB beside GPUs without one in the matrix's NIC columns): an issue over those ranks. None where no
    host shows both."""
    with_gdr, without, lines = log.gdr_split()
    if not without:
        return None
    far = [f"rank {r}" for r in without]
    near = [f"rank {r}" for r in with_gdr]
    summary = {**{r: "GDRDMA" for r in near}, **{r: "no GDRDMA on receive" for r in far}}
    return issue(f"NCCL receives over the RDMA NIC without GPU Direct RDMA on {', '.join(far)}, while "
                 f"{', '.join(near)} of the same host use it (`GDRDMA`): the NICs reach GPU memory there, so NCCL "
                 "kept those GPUs off the NIC by their distance to it (beyond NCCL_NET_GDR_LEVEL, default PXB), and "
                 "their traffic between nodes is staged through host memory", actual=summary,
                 expected="a NIC within GPU Direct RDMA's reach per GPU", subjects=far,
                 evidence=list(lines[:2]) + [c.line for c in log.channels if c.gdr][:1])


# NCCL_NET_GDR_LEVEL values within PXB, NCCL's default (env.html: names, or the deprecated 0-2 for LOC/PIX/PXB).
_GDR_LEVELS_WITHIN_PXB = frozenset(("LOC", "PIX", "PXB", "0", "1", "2"))


def _nccl_gdr_affinity(log: ServingLog, ranks: list[int], nccl_config: NcclConfig | None) -> Outcome:
    """IC-NIC-GPU-AFFINITY from NCCL's own GPU Direct RDMA choice (ServingLog.net_gdr): NCCL writes `GDRDMA` on a
    rank's NET channel only where that GPU's path to the NIC is within NCCL_NET_GDR_LEVEL (default PXB,
    graph/paths.cc `ncclTopoCheckGdr`), so each such rank's NIC is near its GPU: ok over those ranks. A level set past
    PXB leaves it unknown: NCCL then uses GDR over a far path too."""
    if (gdr_off := _gdr_off(log)) is not None:
        return gdr_off
    level = (nccl_config.value("NCCL_NET_GDR_LEVEL") if nccl_config is not None else None) \
        or log.nccl_env.get("NCCL_NET_GDR_LEVEL")
    lines = [c.line for c in log.channels if c.gdr][:2]
    if level and level.upper() not in _GDR_LEVELS_WITHIN_PXB:
        return unknown(f"NCCL uses GPU Direct RDMA for rank {', '.join(map(str, ranks))}, but NCCL_NET_GDR_LEVEL={level} "
                       "lets it do so beyond PXB: the line does not say how near the NIC is",
                       actual={"NCCL_NET_GDR_LEVEL": level}, hint="`nvidia-smi topo -m` (its NIC columns)")
    judged = ok(f"NCCL uses GPU Direct RDMA on the network channels of rank {', '.join(map(str, ranks))} (`GDRDMA`), "
                "which it does only for a NIC within PXB of the GPU (NCCL_NET_GDR_LEVEL's default)",
                actual={f"rank {r}": "GDRDMA" for r in ranks}, evidence=lines)
    return over_subjects(judged, [f"rank {r}" for r in ranks], log.comm_ranks or None, ask="nvidia-smi topo -m")


@check(
    "IC-NIC-GPU-AFFINITY",
    title="RDMA NIC far from its GPU (multi-node / disaggregated serving)",
    severity="medium",
    confidence="source-verified",
    fix=Fix.of(step("Give each rank its nearest NIC (NCCL_IB_HCA, or the engine's NIC selection), load "
                       "nvidia_peermem / use DMA-BUF for GDR, then restart the engine", cost="restart",
                       scope="container"),
                  note="NIC placement in slots under the same switch as the GPUs"),
    references=(NCCL_PATHS, NCCL_ENV_DOC),
)
def nic_gpu_affinity(serving_engine: ServingEngine, gpu_topology: TopoMatrix | None = None,
                     serving_processes: ServingProcesses | None = None, serving_log: ServingLog | None = None,
                     nccl_config: NcclConfig | None = None, gpus: GpuInventory | None = None,
                     nccl_nodes: NcclNodes | None = None, rdma: RdmaDevices | None = None,
                     docker_containers: DockerContainers | None = None) -> Outcome:
    """Reads: the NIC rows/columns of `nvidia-smi topo -m` (and its NIC Legend), the engine's
    multi-node / disaggregation flags, a pasted NCCL log (`NET/IB : Using [0]mlx5_0`, GDR lines, and its
    path dump `GPU/4B000 :… NET/0 (4/12.500000/PXB)`, judged as the NIC columns where no matrix is shown),
    NCCL_IB_HCA and NCCL_NET_GDR_LEVEL. Where neither a matrix nor a path dump is shown, `GDRDMA` on every
    rank's NET channel is ok over those ranks: NCCL uses GPU Direct RDMA only within NCCL_NET_GDR_LEVEL
    (default PXB). NCCL's line per GPU and NIC (`GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance
    5 > 4)`) is read the same way where neither is shown. So are one host's channels where some ranks
    receive over an RDMA NIC without `GDRDMA` beside ranks that use it (the NICs reach GPU memory there,
    so the rest is distance: an issue over those ranks, corpus 778).

    Bad value: for multi-node or disaggregated serving, a GPU whose nearest NIC is `NODE`/`SYS`
    while the host has `PIX`/`PXB` NICs (GPU Direct RDMA is used only up to PXB by default), or
    NCCL turning GPU Direct RDMA off for a GPU by its distance to the NIC. An HCA's `GPU Direct
    RDMA Disabled` line is the NIC's reach into GPU memory (IC-NVIDIA-PEERMEM), not placement.

    Why: NCCL uses GPU Direct RDMA only up to a path level (default PXB, `netGdrLevel` in
    paths.cc), else it stages through host memory.

    Traps: not relevant to single-node serving; NICs of a storage or management network are
    often far from the GPUs on purpose. Without a matrix, the log's own lines settle one node
    (ServingLog.one_node): vLLM's "Detected 1 nodes in the distributed environment", a torchrun
    command line without `--nnodes` above 1, NCCL's `nNodes 1`, or every rank of a communicator
    logging from one host name. So does a job of N ranks whose NCCL lines come from N processes on N CUDA
    devices of one host name. A nccl-tests header that lists every rank of each run on one host settles it too
    (NcclNodes); two hosts in the log or the header make the job multi-node.
    Some GPUs with a NIC within PXB beside others whose whole NIC cells show none is the placement itself, read from
    the rows shown where the matrix is cut (an issue over those rows, corpus 1091).
    A host of one GPU (a whole matrix or listing of one) whose source shows no job across nodes or instances (no
    engine flag for one, no NCCL communicator of several ranks, no KV-cache transfer) sends no GPU traffic off the
    host: not applicable (facts/parallelism.one_gpu_host, corpus 862 and 1130). Without a matrix, NCCL's path dump
    whose GPU lines reach the CPUs and list no NET shows a communicator whole on this node: NCCL drops every NET
    there before printing (paths.cc ncclTopoTrimSystem), so it is not applicable too (ServingLog.nets_trimmed, 1154);
    so does its topology tree's NIC shown whole with no NET under it, the tree naming the communicator's every rank
    (corpus 2262).
    A pod whose spec asks for GPUs and an RDMA device (`rdma/rdma_shared_device_a: 1`, DockerContainer.rdma_requested)
    sends its GPUs' traffic out over an RDMA NIC (a pod is a host of its own to NCCL, another pod on the same node
    too): where no NIC of the matrix is within PXB of any GPU shown, whichever the pod gets, that traffic is staged
    through host memory: an issue (corpus 2380).
    So are NCCL's NET channels all `via NET/Socket` (no_rdma_traffic): its network is TCP sockets (589, 1007).
    Not where the source shows the hosts' RDMA NICs (the `rdma` fact: an EFA device at work, an IPoIB interface, an
    HCA NCCL's settings name): there NCCL's sockets (NCCL_IB_DISABLE=1, a failed plugin) leave those NICs unused, and
    where they sit next to the GPUs is not shown: unknown (corpus 1369, 1580).
    """
    if gpus is not None and gpus.none_on_bus:
        return not_applicable("no NVIDIA GPU on the PCI bus")
    if serving_log is not None and serving_log.comm_ranks == 1 and not _multi_node(serving_processes, serving_log, nccl_nodes):
        return not_applicable("NCCL's communicator has one rank (`nranks 1`): no traffic between ranks for a NIC to "
                              "carry", actual={"nranks": 1})
    if nccl_nodes is not None and nccl_nodes.rdma_unused(_multi_node(serving_processes, serving_log, nccl_nodes)) \
            and nccl_nodes.no_rdma != INSIDE_THE_HOST and rdma is not None and rdma.names and gpu_topology is None:
        # NCCL chose sockets on hosts that have RDMA NICs: the NICs sit unused, their placement is not shown.
        return unknown(f"{nccl_nodes.no_rdma}, on hosts whose RDMA NICs the source shows ({', '.join(rdma.names[:3])}): "
                       "NCCL leaves them unused, and where they sit next to the GPUs is not in the source",
                       actual={"rdma": list(rdma.names[:4]), "nccl": nccl_nodes.no_rdma},
                       hint="`nvidia-smi topo -m` (its NIC columns), and why NCCL took sockets (NCCL_DEBUG=INFO)")
    if nccl_nodes is not None and nccl_nodes.rdma_unused(_multi_node(serving_processes, serving_log, nccl_nodes)):
        return not_applicable(f"{nccl_nodes.no_rdma}: no RDMA NIC carries this job's traffic, so there is no NIC to "
                              "place", actual=list(nccl_nodes.no_rdma_lines))
    if gpu_topology is None and serving_log is not None and serving_log.gpu_nets:
        return _nccl_net_affinity(serving_log, _multi_node(serving_processes, serving_log, nccl_nodes))
    if gpu_topology is None and serving_log is not None and (trimmed := serving_log.nets_trimmed()) \
            and not _multi_node(serving_processes, serving_log, nccl_nodes):
        return not_applicable("NCCL's path dump or topology tree lists no network device for any GPU (a NIC with no "
                              "NET under it): NCCL drops them from a "
                              "communicator whose every rank is on this node (ncclTopoTrimSystem), so no traffic of "
                              "it leaves the node for a NIC to carry", actual=list(trimmed[:2]))
    gdr = serving_log.net_gdr() if serving_log is not None else {}
    if gpu_topology is None and serving_log is not None and gdr and all(gdr.values()):
        return _nccl_gdr_affinity(serving_log, sorted(gdr), nccl_config)
    if gpu_topology is None and serving_log is not None and (split := _nccl_gdr_split(serving_log)) is not None:
        return split
    one_node = nccl_nodes.one if nccl_nodes is not None else ()
    if gpu_topology is None and one_node and not _multi_node(serving_processes, serving_log, nccl_nodes):
        return not_applicable("the log's own lines (the launcher's, the engine's or NCCL's) or the nccl-tests header "
                              "put every rank on one node: NIC placement matters only for traffic between nodes",
                              actual=list(one_node))
    if gpu_topology is None and serving_log is not None and any(d.gpu for d in serving_log.gdr):
        return _nccl_gdr_distances(serving_log, _multi_node(serving_processes, serving_log, nccl_nodes), nccl_config)
    multi_node = _multi_node(serving_processes, serving_log, nccl_nodes)
    if not multi_node and (alone := one_gpu_host(gpus, serving_engine, serving_log)):
        return not_applicable(f"{alone}, and nothing in the source puts it in a job across nodes or instances: no GPU "
                              "traffic leaves the host for a NIC to carry", actual={"gpus": 1})
    if gpu_topology is None:
        return unknown("the topology matrix (GPU and NIC rows) is not in the source", hint="`nvidia-smi topo -m`")
    topo = gpu_topology
    nics = topo.nics
    if not nics:
        return not_applicable("no NIC in the topology matrix")
    nearest, unshown = topo.nearest_nics()
    summary = {g: f"{topo.nic_label(n)} {c}" for g, (c, n) in nearest.items()}
    close = [g for g, (c, _) in nearest.items() if link_rank(c) <= link_rank("PXB")]
    if not _multi_node(serving_processes, serving_log, nccl_nodes):
        engine = serving_engine.engine
        # Near NICs for every GPU shown are right whatever traffic the host carries: ok without knowing it. A log
        # whose ranks share one host does not change that (a cut log of a multi-node job shows one host too; blind
        # 360: GPU0/GPU1 PXB to mlx5_0); an engine's own argv without multi-node flags does (not-applicable).
        all_near = bool(close) and len(close) == len(nearest)
        # Some GPUs with a NIC within PXB and others without it is the placement itself, read from the NIC columns
        # as the near case is: the host was given RDMA NICs for GPU Direct RDMA, and only part of its GPUs get it.
        # A cut matrix's whole rows settle it too: the GPUs whose rows are cut change nothing of what they show
        # (corpus 1091, judged over the rows shown).
        mixed = bool(close) and len(close) < len(nearest)
        unseen = not engine and serving_processes is None and serving_log is None
        hcas = _nccl_hcas_far(topo, nearest, unshown, nccl_config) if unseen and not close else []
        if hcas:
            # NCCL_IB_HCA points NCCL's traffic between nodes at these NICs (inside one host NCCL uses P2P/SHM, not
            # them), and no GPU sits within PXB of one: none of that traffic can use GPU Direct RDMA (corpus 1101).
            return over_subjects(issue(f"NCCL_IB_HCA={nccl_config.value('NCCL_IB_HCA') if nccl_config else ''} points NCCL's "
                         f"traffic between nodes at {', '.join(hcas)}, and no GPU has it within PXB (nearest: "
                         + ", ".join(f"{g} {v}" for g, v in summary.items()) + "): NCCL does not use GPU Direct "
                         "RDMA for any of them by default, so all their traffic between nodes is staged through "
                         "host memory", actual=summary, expected="a PIX/PXB NIC per GPU", subjects=list(nearest),
                         evidence=[topo.lines[n] for n in topo.nics if n in topo.lines][:4]),
                                 list(nearest), len(topo.gpus), ask="nvidia-smi topo -m")
        asked = [f"{c.name or c.id} ({', '.join(c.rdma_requested)})"
                 for c in (docker_containers.containers if docker_containers is not None else ())
                 if c.rdma_requested and c.gpu_requested]
        if unseen and asked and not close:
            # The pod asked for an RDMA NIC for its GPUs' traffic, and none of the host's is within PXB of them.
            return over_subjects(issue(f"the pod asks for GPUs and an RDMA device ({'; '.join(asked)}), so its GPUs' "
                                       "traffic to other pods and nodes goes over an RDMA NIC, and no NIC shown is "
                                       "within PXB of its GPUs (nearest: " + ", ".join(f"{g} {v}" for g, v in
                                                                                      summary.items())
                                       + "): NCCL does not use GPU Direct RDMA for them by default, so that traffic "
                                       "is staged through host memory", actual=summary,
                                       expected="a PIX/PXB NIC per GPU", subjects=list(nearest),
                                       evidence=[topo.lines[g] for g in nearest if g in topo.lines][:4]),
                                 list(nearest), len(topo.gpus), ask="nvidia-smi topo -m", blind=unshown)
        if unseen and not all_near and not mixed:
            return unknown("whether serving spans nodes is not in the source (no engine processes, no engine log)",
                           hint="NIC placement matters only for multi-node or disaggregated serving")
        if not unseen and (engine or not all_near):
            why = ("single-node serving" if engine else "NCCL's log shows ranks of one host" if serving_log is not None
                   else "no multi-node serving seen (no engine running, no engine log)")
            return not_applicable(f"{why}: NIC placement matters only for traffic between nodes", actual=summary)
    if serving_log is not None and _multi_node(serving_processes, serving_log, nccl_nodes) and (
            gdr_off := _gdr_off(serving_log)) is not None:
        return gdr_off
    far = [g for g, (c, _) in nearest.items() if link_rank(c) > link_rank("PXB")]
    if far and close:
        level = nccl_config.value("NCCL_NET_GDR_LEVEL") if nccl_config is not None else None
        found = issue(f"{', '.join(far)} have no NIC within PXB (nearest: "
                      + ", ".join(summary[g] for g in far) + "): NCCL does not use GPU Direct RDMA for them by default, so their traffic between nodes (multi-node or "
                      "disaggregated serving) is staged through host memory"
                      + (f" (NCCL_NET_GDR_LEVEL={level})" if level else ""),
                      actual=summary, expected="a PIX/PXB NIC per GPU", subjects=far,
                      evidence=[topo.lines[g] for g in far if g in topo.lines][:4])
        return over_subjects(found, list(nearest), len(topo.gpus), ask="nvidia-smi topo -m", blind=unshown) \
            if unshown else found
    judged = ok("every GPU shown has a NIC within PXB: " + ", ".join(f"{g}→{v}" for g, v in summary.items()),
                actual=summary)
    return over_subjects(judged, list(nearest), len(topo.gpus), ask="nvidia-smi topo -m", blind=unshown)
