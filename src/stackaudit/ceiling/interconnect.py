"""All-reduce latency and per-kernel fixed costs.

All-reduce latencies are small-message (<= 32 KB) figures measured in public sources, one row each in
LATENCY_TABLE, by topology class (NVLink/NVSwitch, GPUs behind PCIe switches, root ports on one socket,
across sockets).
Where a value is an estimate it is marked [est], and so is the cause line the ceiling prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.errors import UsageError
from stackaudit.facts._parse import CUSTOM_AR_WORLD_SIZES
from stackaudit.facts.pci import PCIE_GBS_PER_LANE
from stackaudit.gputable import BOARD_FABRICS, GpuSpec

INTERCONNECTS = ("nvlink", "xgmi", "pcie", "pcie-no-p2p", "network")
ALLREDUCE_MODES = ("auto", "custom", "nccl")


# Per-kernel fixed costs.
# CPU launch cost in eager mode: "about 4-6 us" per kernel (susun-blog.com pegainfer post) and
# "~5us of CPU work on an A100".
EAGER_LAUNCH_US = 5.0
# Inside a CUDA graph: launch gap plus ramp-up/tail of a small decode kernel. [est] The NVIDIA
# CUDA Graphs blog (developer.nvidia.com/blog/cuda-graphs/) measured ~0.5 us of launch overhead per
# graph node; ~1 us more of ramp/tail per bandwidth-bound kernel is an assumption.
GRAPH_KERNEL_US = 1.5

# All-reduce between nodes (IB/RoCE): nccl-tests all_reduce_perf on two 8x A100 nodes over
# InfiniBand HDR, one GPU per node, 8-128 B messages: 18.96-20.67 us
# (https://github.com/NVIDIA/nccl-tests/issues/150). A wider group across nodes is no faster, so
# this is a floor for TP spanning NVLink domains. vLLM's custom all-reduce is off across nodes
# ("Custom allreduce is disabled because this process group spans across nodes").
INTER_NODE_ALLREDUCE_US = 19.0

# One pipeline-stage hop (send the hidden state of the batch to the next stage) [est]: the raw P2P
# latency, 0.36-0.45 us with PCIe P2P and ~14 us with P2P disabled (rtx6kpro benchmarks/results.md,
# "P2P Bandwidth and Latency"); across nodes half of the 2-rank all-reduce above. Low on purpose:
# a ceiling must not be below what a stack reaches.
_HOP_US = {"nvlink": 0.45, "xgmi": 0.45, "pcie": 0.45, "pcie-no-p2p": 14.0, "network": INTER_NODE_ALLREDUCE_US / 2}


def stage_hop_us(interconnect: str) -> float:
    """Latency of one pipeline-stage hop over `interconnect` [est]."""
    return _HOP_US.get(interconnect, _HOP_US["pcie"])


@dataclass(frozen=True)
class Span:
    """How a group of `ranks` GPUs sits on the GPU model's NVLink domains."""

    ranks: int
    domain: int
    interconnect: str  # the link the group's collectives cross
    warning: str = ""

    @property
    def domains(self) -> int:
        return -(-self.ranks // self.domain)


def span(gpu: GpuSpec, ranks: int, interconnect: str) -> Span:
    """The link a TP group of `ranks` uses: beyond one NVLink/xGMI domain it is the node network
    (NVSwitch/OAM boards) or PCIe (bridged cards)."""
    domain = max(1, gpu.nvlink_domain)
    if interconnect not in ("nvlink", "xgmi") or ranks <= domain:
        return Span(ranks, domain, interconnect)
    if gpu.nvlink_kind in BOARD_FABRICS:
        nodes = -(-ranks // domain)
        return Span(
            ranks, domain, "network",
            f"TP {ranks} spans {nodes} NVLink domains of {domain} {gpu.name} GPUs: every all-reduce crosses the "
            f"node network (IB/RoCE), priced at {INTER_NODE_ALLREDUCE_US:g} us, not {interconnect}; the gap to a "
            "measurement is the network before it is kernel efficiency",
        )  # fmt: skip
    return Span(
        ranks, domain, "pcie" if gpu.p2p else "pcie-no-p2p",
        f"TP {ranks} is wider than the {domain}-GPU NVLink bridge of {gpu.name}: the all-reduce crosses PCIe",
    )  # fmt: skip


@dataclass(frozen=True)
class AllReduceModel:
    """Which collective implementation runs, its small-message latency, and why."""

    interconnect: str
    implementation: str  # "custom" | "nccl" | "none"
    latency_us: float
    link_gbs: float  # unidirectional per-GPU bandwidth used for the size-dependent term
    reason: str
    path: str = ""  # the topology class priced (TOPOLOGY_CLASSES); "" with one GPU
    path_assumed: str = ""  # why the class was assumed (no topology read); "" when the topology gave it

    def time_us(self, message_bytes: float, ranks: int) -> float:
        """Latency + the ring's 2(N-1)/N bytes over the link (negligible for decode at batch 1)."""
        if ranks <= 1 or self.implementation == "none":
            return 0.0
        transfer = 2 * (ranks - 1) / ranks * message_bytes / (self.link_gbs * 1e9) * 1e6
        return self.latency_us + transfer

    @property
    def path_words(self) -> str:
        return path_words(self.path, self.path_assumed)


def path_words(path: str, assumed: str) -> str:
    """'PCIe across sockets (from the topology)', or the class with why it was assumed."""
    if not path:
        return ""
    return f"{CLASS_WORDS[path]} ({f'assumed: {assumed}' if assumed else 'from the topology'})"


def default_interconnect(gpu: GpuSpec) -> str:
    """Interconnect implied by the table when nothing was detected.

    SXM/OAM parts sit on NVSwitch/xGMI boards, or on a board whose NVLinks join the modules directly (V100 SXM2);
    a bridge joins only 2 (or 4) cards, so PCIe GPUs
    default to PCIe (pass --interconnect nvlink for bridged pairs); GeForce has no PCIe P2P ("GeForce cards do not support P2P", nccl-tests #287).
    """
    if gpu.nvlink_kind in ("switch", "mesh"):
        return "nvlink"
    if gpu.nvlink_kind == "infinity-fabric":
        return "xgmi"
    return "pcie" if gpu.p2p else "pcie-no-p2p"


def interconnect_of_class(gpu: GpuSpec, path: str | None) -> str | None:
    """The `--interconnect` a topology class implies (PCIe classes without P2P on GeForce); None for None."""
    if path is None:
        return None
    if path not in TOPOLOGY_CLASSES:
        raise UsageError(f"--topology {path!r}: use one of {', '.join(TOPOLOGY_CLASSES)}")
    if path in PCIE_CLASSES:
        return "pcie" if gpu.p2p else "pcie-no-p2p"
    return path


def _link_gbs(gpu: GpuSpec, interconnect: str) -> float:
    if interconnect == "network":
        return 50.0  # one 400 Gb/s NIC per GPU (NDR: "46-48 GB/s per NIC", nccl-tests #290)
    if interconnect in ("nvlink", "xgmi") and gpu.nvlink_total_gbs > 0:
        return gpu.nvlink_total_gbs / 2
    lanes = gpu.pcie_width or 16
    per_lane = PCIE_GBS_PER_LANE.get(gpu.pcie_gen or 4, 1.969)
    bandwidth = lanes * per_lane
    # Without P2P every byte crosses host memory twice (SHM transport).
    return bandwidth / 2 if interconnect == "pcie-no-p2p" else bandwidth


def allreduce_model(gpu: GpuSpec, ranks: int, interconnect: str, mode: str = "auto",
                    path: str | None = None) -> AllReduceModel:
    """Pick the implementation (vLLM's rules under "auto") and its latency for `ranks` GPUs.

    `path`: the topology class the group's all-reduce crosses (TOPOLOGY_CLASSES, from the audit's machine
    topology); None prices the fastest PCIe class measured for `ranks` GPUs and says it was assumed.
    """
    if interconnect not in INTERCONNECTS:
        raise UsageError(f"--interconnect {interconnect!r}: use one of {', '.join(INTERCONNECTS)}")
    if mode not in ALLREDUCE_MODES:
        raise UsageError(f"--allreduce {mode!r}: use one of {', '.join(ALLREDUCE_MODES)}")
    if path is not None and path not in TOPOLOGY_CLASSES:
        raise UsageError(f"--topology {path!r}: use one of {', '.join(TOPOLOGY_CLASSES)}")
    link = _link_gbs(gpu, interconnect)
    if ranks <= 1:
        return AllReduceModel(interconnect, "none", 0.0, link, "one GPU per replica: no all-reduce")
    if interconnect == "network":
        if mode == "custom":
            raise UsageError("--allreduce custom: custom all-reduce works inside one node only")
        latency, source = _latency_us("network", ranks, False)
        return AllReduceModel(
            interconnect, "nccl", latency, link,
            f"the group spans nodes (vLLM custom all-reduce off across nodes); {source}", "network",
            "" if path == "network" else "the TP group is wider than one NVLink domain",
        )  # fmt: skip
    fully_connected = interconnect in ("nvlink", "xgmi")
    p2p = interconnect != "pcie-no-p2p"
    if mode == "auto":
        # vllm/distributed/device_communicators/custom_all_reduce.py gates.
        if ranks not in CUSTOM_AR_WORLD_SIZES:
            use_custom, why = False, f"vLLM custom all-reduce off: unsupported world size {ranks}"
        elif not p2p:
            use_custom, why = False, "custom all-reduce off: no GPU P2P (GeForce or P2P disabled)"
        elif ranks > 2 and not fully_connected:
            use_custom, why = (
                False,
                "vLLM custom all-reduce off: not supported on more than two PCIe-only GPUs",
            )
        else:
            use_custom, why = True, "custom all-reduce on"
    elif mode == "custom":
        if not p2p:
            raise UsageError("--allreduce custom needs GPU P2P; this interconnect has none (pcie-no-p2p)")
        use_custom, why = True, "custom/one-shot all-reduce (--allreduce custom)"
    else:
        use_custom, why = False, "NCCL (--allreduce nccl)"
    implementation = "custom" if use_custom else "nccl"
    assumed = ""
    if interconnect == "pcie":
        if path not in PCIE_CLASSES:
            path = assumed_pcie_class(implementation, ranks)
            assumed = "no topology read; the fastest PCIe class measured for this group size"
    elif path != interconnect:
        path, assumed = interconnect, f"no topology read; the {interconnect} link is the class"
    assert path is not None
    latency, source = _latency_us(path, ranks, use_custom)
    reason = f"{why}; priced for {path_words(path, assumed)}; {source}"
    return AllReduceModel(interconnect, implementation, latency, link, reason, path, assumed)


# ------------------------------------------------------------------ all-reduce latency by topology class
# The class of the path a TP group's all-reduce crosses, from `nvidia-smi topo -m`'s worst pair kind in the group
# (facts/machine_topology.py): NV# -> nvlink; PIX/PXB -> pcie-switch; PHB/NODE -> pcie-socket; SYS -> pcie-cross-socket.
TOPOLOGY_CLASSES = ("nvlink", "xgmi", "pcie-switch", "pcie-socket", "pcie-cross-socket", "pcie-no-p2p", "network")
PCIE_CLASSES = ("pcie-switch", "pcie-socket", "pcie-cross-socket")
_CLASS_OF_KIND = {"NV": "nvlink", "PIX": "pcie-switch", "PXB": "pcie-switch", "PHB": "pcie-socket",
                  "NODE": "pcie-socket", "SYS": "pcie-cross-socket"}  # fmt: skip
CLASS_WORDS = {
    "nvlink": "NVLink/NVSwitch", "xgmi": "xGMI (Infinity Fabric)", "pcie-switch": "GPUs behind PCIe switches",
    "pcie-socket": "PCIe root ports on one socket", "pcie-cross-socket": "PCIe across sockets",
    "pcie-no-p2p": "PCIe without GPU P2P", "network": "the node network",
}  # fmt: skip


def topology_class(kind: str | None) -> str | None:
    """The class of an `nvidia-smi topo -m` pair kind (NV, PIX, PXB, PHB, NODE, SYS); None when unknown."""
    return _CLASS_OF_KIND.get(kind or "")


@dataclass(frozen=True)
class LatencyRow:
    """One published small-message all-reduce latency: a class, an implementation, the widest group measured."""

    path: str  # a TOPOLOGY_CLASSES value
    implementation: str  # custom | nccl
    max_ranks: int  # the group size measured; a row also prices smaller groups
    latency_us: float  # the lowest figure the source gives for 1-32 KB messages (a ceiling takes the fastest)
    figures: str  # what the source shows, as it shows it
    measured_by: str  # who measured, on what
    source: str  # the public page


# Who measured, on what, and where (LatencyRow.measured_by, .source), for the sources several rows cite.
_SGLANG_H100 = ("SGLang developers, H100 HGX, sgl-kernel custom all-reduce unit test",
                "https://github.com/sgl-project/sglang/pull/2904")
_VLLM_MI355X = ("vLLM contributors, MI355X, aiter custom all-reduce", "https://github.com/vllm-project/vllm/pull/39080")
_V100_PLX = ("a SGLang fork contributor, 4x V100 SXM2 behind one PCIe switch",
             "https://github.com/haohervchb/sglang-V100/pull/2")
_RTX6K_RESULTS = "https://github.com/local-inference-lab/rtx6kpro/blob/main/benchmarks/results.md"
_RTX6K_SWITCHES = ("local-inference-lab (p2pmark --allreduce), 8x RTX PRO 6000 Max-Q behind 3 switches", _RTX6K_RESULTS)
_RTX6K_SOCKET = ("local-inference-lab (SGLang auto-crossover benchmark), 4x RTX PRO 6000, ASUS ESC8000A-E13P",
                 "https://github.com/local-inference-lab/rtx6kpro/blob/main/optimization/pcie-oneshot-allreduce.md")

# One declared table; `_row` picks from it, nothing else prices an all-reduce.
LATENCY_TABLE: tuple[LatencyRow, ...] = (
    LatencyRow("nvlink", "custom", 4, 3.7, "TP2/TP4 custom all-reduce 3.7-4.8 us for 512 B-32 KB", *_SGLANG_H100),
    LatencyRow("nvlink", "custom", 8, 5.7, "TP8 custom all-reduce 5.7-7.8 us for 512 B-32 KB", *_SGLANG_H100),
    LatencyRow("nvlink", "nccl", 8, 6.0, "NCCL NVLSTree in a CUDA graph, 2 GPUs, 128 B-64 KB: about 6 us "
               "(the issue asks why wider groups are slower, so 6 us bounds them from below)",
               "an NCCL user (nccl-tests all_reduce_perf), HGX 8x H100, NCCL 2.20.5",
               "https://github.com/NVIDIA/nccl/issues/1259"),
    LatencyRow("xgmi", "custom", 8, 6.3, "TP8 custom all-reduce 6.3-7.6 us for 24-96 KB", *_VLLM_MI355X),
    LatencyRow("xgmi", "nccl", 8, 6.3, "no published RCCL small-message figure found: the custom all-reduce's "
               "6.3 us is used, so the ceiling stays a ceiling [est]", *_VLLM_MI355X),
    LatencyRow("pcie-switch", "custom", 4, 4.0, "4 ranks behind one PLX switch, one-shot push in a CUDA graph: "
               "4.0 us (4 KB) to 11.8 us (32 KB)", *_V100_PLX),
    LatencyRow("pcie-switch", "custom", 8, 7.5, "8 GPUs behind PCIe switches, custom all-reduce 7.5 us (256 B-1 KB), "
               "9.2 us (8 KB), 16.5 us (32 KB)", *_RTX6K_SWITCHES),
    LatencyRow("pcie-switch", "nccl", 4, 19.4, "4 ranks behind one PLX switch, NCCL (PXB) in a CUDA graph: "
               "19.4 us (4 KB), 20.3 (8 KB), 22.3 (16 KB), 24.2 (32 KB)", *_V100_PLX),
    LatencyRow("pcie-switch", "nccl", 8, 24.1, "8 GPUs behind PCIe switches, NCCL 24.1-24.6 us for 256 B-32 KB",
               *_RTX6K_SWITCHES),
    LatencyRow("pcie-socket", "custom", 4, 6.1, "4 GPUs on one NUMA node, PCIe one-shot 6.1 us (1 KB) to 9.2 us (32 KB)",
               *_RTX6K_SOCKET),
    LatencyRow("pcie-socket", "nccl", 4, 13.2, "4 GPUs on one NUMA node, NCCL 13.2-15.6 us for 1-32 KB", *_RTX6K_SOCKET),
    LatencyRow("pcie-cross-socket", "custom", 8, 26.2, "custom all-reduce \"is slower than default NCCL\" on dual-CPU "
               "systems without switches, so it is priced at NCCL's figure",
               "local-inference-lab, 8x RTX PRO 6000 Server on dual AMD Turin", _RTX6K_RESULTS),
    LatencyRow("pcie-cross-socket", "nccl", 8, 26.2, "8 GPUs across two sockets, NCCL 32 KB: 48.16 us with NCCL's "
               "own topology search, 26.20 us with an NCCL graph XML",
               "local-inference-lab (nccl-tests), 8x RTX PRO 6000 Server on dual AMD Turin", _RTX6K_RESULTS),
    LatencyRow("pcie-no-p2p", "nccl", 8, 30.0, "no published small-message figure found; a P2P hop without P2P costs "
               "~14 us (rtx6kpro results.md), an all-reduce at least two [est]", "estimate", _RTX6K_RESULTS),
    LatencyRow("network", "nccl", 16, INTER_NODE_ALLREDUCE_US, "nccl-tests between two nodes over InfiniBand HDR, "
               "one GPU per node, 8-128 B: 18.96-20.67 us",
               "an NCCL user (nccl-tests all_reduce_perf), two 8x A100 nodes",
               "https://github.com/NVIDIA/nccl-tests/issues/150"),
)  # fmt: skip


def _row(path: str, implementation: str, ranks: int) -> LatencyRow | None:
    """The narrowest row of (path, implementation) measured on `ranks` GPUs or more; else its widest row."""
    rows = sorted((r for r in LATENCY_TABLE if r.path == path and r.implementation == implementation),
                  key=lambda r: r.max_ranks)  # fmt: skip
    if not rows:
        return None
    return next((r for r in rows if r.max_ranks >= ranks), rows[-1])


def assumed_pcie_class(implementation: str, ranks: int) -> str:
    """With P2P over PCIe and no topology read: the class with the lowest latency measured on `ranks` GPUs or
    more, so that the ceiling stays a ceiling."""
    rows = [r for c in PCIE_CLASSES if (r := _row(c, implementation, ranks)) is not None and r.max_ranks >= ranks]
    return min(rows, key=lambda r: r.latency_us).path if rows else "pcie-switch"


def _latency_us(path: str, ranks: int, custom: bool) -> tuple[float, str]:
    """Small-message latency per all-reduce from LATENCY_TABLE, and the sentence that cites it."""
    implementation = "custom" if custom else "nccl"
    row = _row(path, implementation, ranks) or _row(path, "nccl", ranks)
    if row is None:  # pragma: no cover - every class has an NCCL row (tests/test_ceiling_topology.py)
        raise ValueError(f"no all-reduce latency for {path}")
    wider = f"; measured on {row.max_ranks} GPUs, not {ranks}" if ranks > row.max_ranks else ""
    return row.latency_us, (f"{row.latency_us:g} us for {CLASS_WORDS[row.path]}: {row.figures} "
                            f"({row.measured_by}; {row.source}){wider}")


# ------------------------------------------------------------------ kernels per layer [est]
# Counts for a fused serving stack (vLLM/SGLang) at decode; the all-reduce kernels are counted
# by the all-reduce term. They are estimates, labelled so in the output.
KERNELS_GQA_ATTENTION = 6  # norm, qkv GEMM, rope, cache write, attention, o_proj
KERNELS_MLA_ATTENTION = 13  # norms, q_a, q_b, kv_a, rope, absorb bmm x2, cache write, attention x2, o_proj
KERNELS_DSA_INDEXER = 5
KERNELS_DENSE_MLP = 4  # norm, gate_up, activation, down
KERNELS_MOE = 8  # norm, router, top-k, align, GEMM1, activation, GEMM2, combine
KERNELS_SHARED_EXPERT = 3
KERNELS_PER_STEP = 7  # embedding, final norm, lm_head, logits gather, sampling
