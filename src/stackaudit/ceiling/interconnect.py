"""All-reduce latency and per-kernel fixed costs.

Latencies are small-message (<= 32 KB) figures measured in public sources; where a value
is an estimate it is marked [est], and so is the cause line the ceiling prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.errors import UsageError
from stackaudit.gputable import GpuSpec

INTERCONNECTS = ("nvlink", "xgmi", "pcie", "pcie-no-p2p", "network")
ALLREDUCE_MODES = ("auto", "custom", "nccl")

# vLLM custom_all_reduce.py: `_SUPPORTED_WORLD_SIZES = [2, 4, 6, 8]`.
_CUSTOM_AR_WORLD_SIZES = (2, 4, 6, 8)
# PCIe unidirectional GB/s per lane by generation (x16: 15.75 / 31.5 / 63 / 121).
_PCIE_GBS_PER_LANE = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}

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
INTER_NODE_SOURCE = "19 us: NCCL all-reduce between nodes over InfiniBand, 18.96-20.67 us (nccl-tests #150)"

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
    if gpu.nvlink_kind in ("switch", "infinity-fabric"):
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

    def time_us(self, message_bytes: float, ranks: int) -> float:
        """Latency + the ring's 2(N-1)/N bytes over the link (negligible for decode at batch 1)."""
        if ranks <= 1 or self.implementation == "none":
            return 0.0
        transfer = 2 * (ranks - 1) / ranks * message_bytes / (self.link_gbs * 1e9) * 1e6
        return self.latency_us + transfer


def default_interconnect(gpu: GpuSpec) -> str:
    """Interconnect implied by the table when nothing was detected.

    SXM/OAM parts sit on NVSwitch/xGMI boards; a bridge joins only 2 (or 4) cards, so PCIe GPUs
    default to PCIe (pass --interconnect nvlink for bridged pairs); GeForce has no PCIe P2P ("GeForce cards do not support P2P", nccl-tests #287).
    """
    if gpu.nvlink_kind == "switch":
        return "nvlink"
    if gpu.nvlink_kind == "infinity-fabric":
        return "xgmi"
    return "pcie" if gpu.p2p else "pcie-no-p2p"


def _link_gbs(gpu: GpuSpec, interconnect: str) -> float:
    if interconnect == "network":
        return 50.0  # one 400 Gb/s NIC per GPU (NDR: "46-48 GB/s per NIC", nccl-tests #290)
    if interconnect in ("nvlink", "xgmi") and gpu.nvlink_total_gbs > 0:
        return gpu.nvlink_total_gbs / 2
    lanes = gpu.pcie_width or 16
    per_lane = _PCIE_GBS_PER_LANE.get(gpu.pcie_gen or 4, 1.969)
    bandwidth = lanes * per_lane
    # Without P2P every byte crosses host memory twice (SHM transport).
    return bandwidth / 2 if interconnect == "pcie-no-p2p" else bandwidth


def allreduce_model(gpu: GpuSpec, ranks: int, interconnect: str, mode: str = "auto") -> AllReduceModel:
    """Pick the implementation (vLLM's rules under "auto") and its latency for `ranks` GPUs."""
    if interconnect not in INTERCONNECTS:
        raise UsageError(f"--interconnect {interconnect!r}: use one of {', '.join(INTERCONNECTS)}")
    if mode not in ALLREDUCE_MODES:
        raise UsageError(f"--allreduce {mode!r}: use one of {', '.join(ALLREDUCE_MODES)}")
    link = _link_gbs(gpu, interconnect)
    if ranks <= 1:
        return AllReduceModel(interconnect, "none", 0.0, link, "one GPU per replica: no all-reduce")
    if interconnect == "network":
        if mode == "custom":
            raise UsageError("--allreduce custom: custom all-reduce works inside one node only")
        return AllReduceModel(
            interconnect, "nccl", INTER_NODE_ALLREDUCE_US, link,
            f"the group spans nodes (vLLM custom all-reduce off across nodes); {INTER_NODE_SOURCE}",
        )  # fmt: skip
    fully_connected = interconnect in ("nvlink", "xgmi")
    p2p = interconnect != "pcie-no-p2p"
    if mode == "auto":
        # vllm/distributed/device_communicators/custom_all_reduce.py gates.
        if ranks not in _CUSTOM_AR_WORLD_SIZES:
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
    latency, source = _latency_us(interconnect, ranks, use_custom)
    return AllReduceModel(interconnect, "custom" if use_custom else "nccl", latency, link, f"{why}; {source}")


def _latency_us(interconnect: str, ranks: int, custom: bool) -> tuple[float, str]:
    """Small-message latency per all-reduce, from the public measurements cited per value."""
    if interconnect == "nvlink":
        if custom:
            value = 5.0 if ranks <= 4 else 7.0
            return value, f"{value:g} us: H100 NVLink custom AR 3.7-7.8 us (sglang PR #2904)"
        return 10.0, "10 us: NCCL on NVLink [est], 6 us NVLS on 2 GPUs (nccl #1259)"
    if interconnect == "xgmi":
        if custom:
            return 6.3, "6.3 us: xGMI TP8 custom AR (vllm PR #39080)"
        return 10.0, "10 us: RCCL on xGMI [est]"
    if interconnect == "pcie":
        if custom:
            value = 6.0 if ranks <= 2 else 7.5 if ranks <= 4 else 9.2
            return (
                value,
                f"{value:g} us: PCIe one-shot/custom AR 6.1-9.2 us (rtx6kpro pcie-oneshot-allreduce.md)",
            )
        if ranks <= 4:
            return 14.0, "14 us: NCCL on PCIe, same socket, 13.2-15.6 us (rtx6kpro)"
        return (
            25.0,
            "25 us: NCCL on 8 PCIe GPUs behind switches, 24.1-24.6 us (rtx6kpro); 30-50 us across sockets",
        )
    return 30.0, "30 us: NCCL without P2P (host-memory transport) [est, unverified]"


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
