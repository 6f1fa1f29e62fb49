"""The GPU inventory: which NVIDIA GPUs this host has, from every source that shows them, merged.

Checks used to arbitrate between sources themselves (NVML names else collect_env's, the matrix's
count else the PCI bus's, "no GPU" when NVML was derived from an empty bus). The `gpus` fact does
it once. Its sources, best first (a union: every source that answers contributes):

1. `nvidia` — NVML, else `nvidia-smi -q -x` / `-q` / the table: index, BDF, product name; the count
   it claims (`Attached GPUs`) even when an excerpt shows fewer GPU sections. In an excerpt, a GPU's
   `Minor Number: N` (/dev/nvidiaN, numbered from 0 as the driver probes the GPUs) makes the count at least N+1.
   `nvidia-smi -L` — its `GPU n: <name> (UUID: …)` lines: index, product name; NVML's whole list of the GPUs where it
   ran (in a container: those given to it) under its command line or alone in its code block, else a lower bound.
2. `gpu_topology` — the rows of `nvidia-smi topo -m`: index and NUMA affinity.
3. `pci` — /sys/bus/pci/devices: BDF and NUMA node of every NVIDIA display/3D function. Inside a
   container it shows the host's GPUs, not only those given to the container, so it ranks after
   the sources that show what CUDA sees.
   The NVIDIA GPU functions of a pasted `lspci` (the `pcie` fact) where sysfs is not in the source: BDF, NUMA
   node, the model its bracketed name or device id gives; an excerpt's count is a lower bound.
4. `collect_env` — the `GPU n: <name>` lines of a pasted vLLM collect_env / SGLang check_env.
5. `nvlink_status` — the `GPU n: <name> (UUID: …)` lines of a pasted `nvidia-smi nvlink -s`: index, product
   name; an excerpt may stop after any GPU, so its count is a lower bound.
   The `Device: N, <name>, pciBusID: …` lines of a pasted p2pBandwidthLatencyTest: every CUDA device, index,
   BDF, product name (CUDA's list, a lower bound).
   The `ggml_cuda_init` device lines of a llama.cpp log: CUDA index, product name (CUDA's list, a lower bound).
   TensorFlow's GPU device log (`Created TensorFlow device ... -> physical GPU (device: N, name: ..., pci bus id:
   ...)`, `Found device N` and its `pciBusID:`): BDF, product name, CUDA index (CUDA's list, a lower bound).
   The `GPU Device IDs Detected` row of a pasted `dcgmi diag`: a GPU per PCI device id, named by the GPU table.
6. ollama's `inference compute` lines among pasted evidence lines: product name, in ollama's order.
   Lightning's Tensor Cores notice (`You are using a CUDA device ('NVIDIA L4') ...`): rank zero's device, a lower bound.
7. the user's own words: a count and a model (`8 x A10G GPUs`), the model resolved by the GPU table; last of all.
8. an NCCL log's ranks that its SHM and P2P channels join on one host: one GPU each, a lower bound.

Another vendor's GPUs a source names (an AMD Instinct in rccl-tests' header or a ROCm collect_env, /dev/kfd given to
an LXC container, the GPUs a kernel log shows amdgpu driving where no line of it is NVIDIA's, a GPU key the user answers
`AMD`, an engine's lines of ROCm, HIP, Metal, MPS or a macOS host where they show no NVIDIA GPU: other_gpu_line; AMD's
own tools, rocm-smi, rocminfo and amd-smi, and ROCm's variables set to a value: AMD_TOOL_LINES, gpus_from_rocm_variables)
are kept apart in `others`: never counted, never an NVIDIA GPU (facts/applicability.py reads them).

Per GPU, records are joined by BDF, else by index; a field one source lacks is filled from the
next, and a disagreement is kept in `conflicts`. The count is the best source's (an NVML excerpt's yields to a whole
`nvidia-smi -L` that shows at least as many); every source's
own count is kept in `counts`, so a check can say which agreed. "No GPU" (`none_on_bus`) needs a
whole source that shows none: an excerpt, or a source that does not list GPUs, never proves it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, TypeVar

from stackaudit.facts._parse import NVSMI_GPU_LINE, RANK_DEVICE, ParseError, only_one
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.nvidia import QUERY_ROW, QUERY_ROW_NAME_FIRST, NvidiaGpus
from stackaudit.facts.pci import PCI_DEVICES, PciDevices
from stackaudit.facts.peer_access import DQ_DEVICE, DQ_PCI, NVB_DEVICE
from stackaudit.facts.ray_log import NODES_WITH, RESOURCE_GPU
from stackaudit.facts.registry import (
    FactContext,
    FactUnavailable,
    Sourced,
    fact,
    parser,
    provider,
    read_source,
)
from stackaudit.facts.serving_logs import (
    GGML_BREAKDOWN_DEVICE,
    GGML_DEVICE_INFO,
    GGML_LIST_DEVICE,
    GGML_MAIN_DEVICE,
    GGML_USING_DEVICE,
    HAMI_CORE_LINE,
    OLLAMA_POOLED_VRAM,
    nccl_test_groups,
)
from stackaudit.facts.sources import (
    DCGMI_DIAG,
    ENGINE_LOG,
    EVIDENCE_LINES,
    GGML_CUDA_DEVICES,
    GPU_MONITOR,
    JAX_DEVICES,
    K8S_NODE,
    K8S_SPEC,
    NCCL_TESTS,
    NVC_INFO,
    NVIDIA_DAEMON_LOG,
    NVSMI_LIST,
    NVSMI_P2P,
    NVSMI_P2P_UNNAMED,
    P2P_BANDWIDTH_TEST,
    RAY_STATUS,
    TF_DEVICES,
    USER_MACHINE,
)
from stackaudit.facts.topology import NvlinkStatus, TopoMatrix, gpu_index, parse_p2p_matrix
from stackaudit.gputable import (
    ARCHITECTURE_ORDER,
    LAPTOP_PART,
    MINING_BOARD,
    VGPU_PROFILE,
    GpuTableError,
    UnknownGpuError,
    architecture_of,
    board_words,
    brand_family,
    by_pci_device_id,
    capability_name,
    capability_of,
    exact_name,
    lookup,
    nominal_memory_gib,
    normalize,
    other_vendor,
)
from stackaudit.host.base import NotCaptured
from stackaudit.host.source import command_key, doc_key, file_key
from stackaudit.pci_address import BDF, is_bdf, normalize_bdf

NVIDIA_TITLE = "NVML / nvidia-smi"
TOPOLOGY_TITLE = "`nvidia-smi topo -m`"
P2P_MATRIX_TITLE = "`nvidia-smi topo -p2p`"
PCI_TITLE = PCI_DEVICES
LSPCI_TITLE = "`lspci`"
COLLECT_ENV_TITLE = "collect_env / check_env report"
# SGLang's and lmdeploy's check_env (mmengine's collect_env) name each GPU by torch.cuda.get_device_name, grouping the
# indices of one name (`GPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3`) over a `GPU 0,1 Compute Capability: 9.0` line
# no other report prints: CUDA's own names, as a CUDA program's device list gives them (corpus 2628). vLLM's collect_env
# prints `nvidia-smi -L` instead.
CHECK_ENV_TITLE = "check_env's torch.cuda.get_device_name list"
NCCL_TESTS_TITLE = "nccl-tests header"
P2P_TEST_TITLE = "p2pBandwidthLatencyTest's device lines"
NVBANDWIDTH_TITLE = "nvbandwidth's device lines"
DEVICE_QUERY_TITLE = "deviceQuery's device lines"
DCGM_DIAG_TITLE = "`dcgmi diag` metadata (GPU Device IDs Detected)"
GGML_TITLE = "llama.cpp's `ggml_cuda_init` device list"
JAX_TITLE = "JAX's device list"
TF_TITLE = "TensorFlow's GPU device log"
# CUDA lists the devices CUDA_VISIBLE_DEVICES leaves it, which a pasted output does not show.
CUDA_LIST = "CUDA's device list, which CUDA_VISIBLE_DEVICES may narrow"
KERNEL_LOG_TITLE = "the kernel log's NVRM and PCI enumeration lines"
NVLINK_TITLE = "`nvidia-smi nvlink -s`"
NVSMI_LIST_TITLE = NVSMI_LIST.title
NVC_INFO_TITLE = NVC_INFO.title
OLLAMA_TITLE = "ollama's `inference compute` lines"
TORCH_WARNED_TITLE = "PyTorch's warning of a GPU its build has no kernels for"
LIGHTNING_TITLE = "Lightning's Tensor Cores notice"
TORCH_NAMED_TITLE = "a printout of torch.cuda.get_device_name"
UNSLOTH_TITLE = "Unsloth's start-up banner"
COMFY_TITLE = "ComfyUI's start-up device line"
USER_WORDS_TITLE = "the user's own words"
QUERY_ROWS_TITLE = "`nvidia-smi --query-gpu=index,name,driver_version` rows"


@dataclass(frozen=True)
class GpuRecord:
    """One GPU as the sources show it; "" / None: no source that answered shows that field."""

    index: int | None = None  # NVML / nvidia-smi / CUDA index (PCI bus order unless remapped)
    bdf: str = ""  # sysfs form, 0000:41:00.0
    model: str = ""  # product name, "NVIDIA H100 80GB HBM3"
    numa_node: int | None = None  # -1: the firmware gives no locality
    shown_by: tuple[str, ...] = ()  # the sources that list this GPU

    @property
    def label(self) -> str:
        if self.index is not None:
            return f"GPU {self.index} ({self.bdf})" if self.bdf else f"GPU {self.index}"
        return self.bdf


@dataclass(frozen=True, kw_only=True)
class GpuInventory(Sourced):
    """Every NVIDIA GPU the sources show, merged; see the module docstring for the rules."""

    gpus: tuple[GpuRecord, ...] = ()
    counts: tuple[tuple[str, int], ...] = ()  # (source, GPUs it shows), best source first
    empty_in: tuple[str, ...] = ()  # whole sources that show no NVIDIA GPU at all
    # (GPU, field, kept value, other value), and ("GPUs", "count", ...) when the counts differ.
    conflicts: tuple[tuple[str, str, str, str], ...] = ()
    # (source, why): sources whose listing is an excerpt, so that their count is a lower bound only.
    partial: tuple[tuple[str, str], ...] = ()
    # Another vendor's GPUs the sources name, in words with the source (`AMD Instinct MI100 (rccl-tests header)`).
    others: tuple[str, ...] = ()
    # Whole sources that show no GPU of any vendor (a cloud instance type without accelerators), in words.
    no_accelerator: tuple[str, ...] = ()
    # (model, how a report says it) for a model resolved from a name the nvidia-smi table cut: inferred, not shown.
    inferred: tuple[tuple[str, str], ...] = ()
    # Partial sources whose excerpt is read as the host's listing where no source shows more GPUs: an nvidia-smi
    # table that ends at the border after a GPU's rows (NvidiaGpus.cut_at_border).
    read_whole: tuple[str, ...] = ()
    # Why an engine shown runs its model on one GPU by its own design, in words: ggml's Metal backend drives the one
    # Metal device it picks (ggml-metal.m: `found device` for each, then `picking default device`, the system's
    # default; ggml-org/llama.cpp#10003 asks for a choice and the log shows the default taken).
    one_device: tuple[str, ...] = ()

    def in_words(self, model: str) -> str:
        """A model as a report says it: a cut name's inferred product marked so (NvidiaGpu.name_in_words)."""
        return dict(self.inferred).get(model, model)

    @property
    def whole_count(self) -> int | None:
        """The count where it is the host's; None where no source shows one or an excerpt may leave GPUs out.

        Where the listings are excerpts, the count the user's words state (`I have 4 A10Gs`) is the host's when no
        source shows more GPUs: it is the denominator of a verdict over the GPUs shown (`1 of 4 GPUs shown`). A count
        of boards that carry several GPUs each (gpus_per_board) is that many times as many GPUs where a listing shows
        exactly those.
        """
        if not self.count_unshown:
            return self.count
        said = self.count_in(USER_WORDS_TITLE)
        if said is not None and said < (self.at_least or 0):
            said = said * self.gpus_per_board if said * self.gpus_per_board == self.at_least else said
        return said if said is not None and said >= (self.at_least or 0) else None

    @property
    def listed(self) -> tuple[GpuRecord, ...]:
        """The GPUs a tool's listing shows (nvidia-smi, lspci, an engine's device lines), not the user's words alone
        (an issue form's `GPU: NVIDIA GeForce RTX 2080`)."""
        return tuple(g for g in self.gpus if any(s != USER_WORDS_TITLE for s in g.shown_by))

    @property
    def gpus_per_board(self) -> int:
        """The GPUs one board carries where every GPU named is of one model whose board carries several (the GPU
        table's gpus_per_board: the Tesla K80's two); 1 otherwise. The user's words count such boards (`K80 x2`) where
        a listing shows that many times as many GPUs (corpus 1843: two K80 boards, four CUDA devices)."""
        models = {g.model for g in self.gpus if g.model}
        if len(models) != 1:
            return 1
        try:
            match = lookup(next(iter(models)))
        except (UnknownGpuError, GpuTableError):
            return 1
        return 1 if match.alternatives else match.spec.gpus_per_board

    @property
    def count_unshown(self) -> str:
        """"" when the best source's count is the host's; else why GPUs may be missing from it (an excerpt).

        A source that lists every GPU and shows the same count settles it, and so does an excerpt read as whole
        (`read_whole`) where no source shows or states more GPUs than it lists.
        """
        if not self.counts:
            return ""
        cut = dict(self.partial)
        if any(src not in cut and n == self.count for src, n in self.counts):
            return ""
        best = self.counts[0][0]
        if best in self.read_whole and self.count is not None and (self.at_least or 0) <= self.count:
            return ""
        return cut.get(best, "")

    @property
    def count(self) -> int | None:
        """How many GPUs the best source shows; None when no source shows a count.

        NVML's excerpt (a table cut inside its rows) yields to a whole `nvidia-smi -L` from the same NVML that shows at
        least as many GPUs as every source: the listing is the whole of what the excerpt is part of (corpus 814).
        """
        if not self.counts:
            return None
        best, n = self.counts[0]
        cut = dict(self.partial)
        listed = self.count_in(NVSMI_LIST_TITLE)
        if best == NVIDIA_TITLE and best in cut and NVSMI_LIST_TITLE not in cut and listed is not None \
                and listed >= max(c for _, c in self.counts):
            return listed
        return n

    @property
    def at_least(self) -> int | None:
        """The most GPUs one source shows or states: each count, an excerpt's too, is a lower bound of the host's."""
        return max((n for _, n in self.counts), default=None)

    @property
    def cut_before_gpus(self) -> str:
        """Why the GPU listings shown name no GPU where each one is cut before its first GPU (an nvidia-smi table
        cut in its header); "" where a source lists or counts a GPU, or where no listing is shown."""
        if self.gpus or self.counts or not self.partial:
            return ""
        return "; ".join(f"{src}: {why}" for src, why in self.partial)

    @property
    def laptop_gpu(self) -> str:
        """The one GPU the sources show where its name is a laptop's discrete GPU (gputable.LAPTOP_PART: `... Laptop
        GPU`, `... with Max-Q Design`), in words; "" where they show several or none, or no such name. A laptop holds
        one discrete GPU, so the name settles "the only GPU" that an excerpt of a listing cannot (corpus 1270)."""
        if len(self.gpus) != 1 or (self.at_least or 1) > 1 or not LAPTOP_PART.search(model := self.gpus[0].model):
            return ""
        return f"{self.gpus[0].label} is a {model}, a laptop's GPU, and a laptop holds one discrete GPU"

    @property
    def none_on_bus(self) -> bool:
        """True only when a whole source shows no NVIDIA GPU and no source shows one."""
        return bool(self.empty_in) and not any(n for _, n in self.counts)

    @property
    def models(self) -> dict[int, str]:
        """Product names by index (GPUs whose index and name some source shows)."""
        return {g.index: g.model for g in self.gpus if g.index is not None and g.model}

    @property
    def bdfs(self) -> tuple[str, ...]:
        return tuple(sorted(g.bdf for g in self.gpus if g.bdf))

    @property
    def agreed(self) -> tuple[str, ...]:
        """The sources whose count is the inventory's count."""
        return tuple(s for s, n in self.counts if n == self.count)

    def count_in(self, source: str) -> int | None:
        """How many GPUs one source shows (PCI_TITLE: the host's bus, also from inside a container)."""
        return next((n for s, n in self.counts if s == source), None)

    def by_index(self, index: int) -> GpuRecord | None:
        return next((g for g in self.gpus if g.index == index), None)

    def by_bdf(self, bdf: str) -> GpuRecord | None:
        return next((g for g in self.gpus if g.bdf == bdf), None)

    def numa_nodes(self) -> dict[int, int]:
        """index -> NUMA node, for GPUs whose index and (non-negative) node are known."""
        return {g.index: g.numa_node for g in self.gpus
                if g.index is not None and g.numa_node is not None and g.numa_node >= 0}

    @classmethod
    def union(cls, parts: list[GpuInventory]) -> GpuInventory:
        """Join the inventories of several sources (best first) into one."""
        return merge_inventories(parts)


# --- merging ---------------------------------------------------------------------------------


_FIELDS = ("index", "bdf", "model", "numa_node")


def merge_inventories(parts: list[GpuInventory]) -> GpuInventory:
    """Per GPU by BDF, else by index; the better-ranked source's value wins, a disagreement is kept."""
    identified = any(g.bdf and g.index is not None for p in parts for g in p.gpus)
    if not identified:
        parts = [_index_by_bus_order(p) for p in parts]
    merged: list[GpuRecord] = []
    conflicts: list[tuple[str, str, str, str]] = []
    for part in parts:
        for record in part.gpus:
            at = _match(merged, record)
            if at is None:
                merged.append(record)
                continue
            best = merged[at]
            updates: dict[str, Any] = {"shown_by": tuple(dict.fromkeys(best.shown_by + record.shown_by))}
            for name in _FIELDS:
                mine, theirs = getattr(best, name), getattr(record, name)
                if mine in (None, "") and theirs not in (None, ""):
                    updates[name] = theirs
                elif name == "model" and _cut_short(mine, theirs):
                    updates[name] = theirs  # the paste cut the better source's name inside a word
                elif mine not in (None, "") and theirs not in (None, "") and mine != theirs:
                    conflicts.append((best.label, name, f"{mine} ({best.shown_by[0]})",
                                      f"{theirs} ({record.shown_by[0]})"))
            merged[at] = replace(best, **updates)
    counts = tuple(c for p in parts for c in p.counts)
    if len({n for _, n in counts}) > 1:
        (best_src, best_n), *rest = counts
        conflicts.extend(("GPUs", "count", f"{best_n} ({best_src})", f"{n} ({src})")
                         for src, n in rest if n != best_n)
    merged.sort(key=lambda g: (g.index is None, g.index if g.index is not None else 0, g.bdf))
    return GpuInventory(gpus=tuple(merged), counts=counts,
                        empty_in=tuple(e for p in parts for e in p.empty_in), conflicts=tuple(conflicts),
                        partial=tuple(x for p in parts for x in p.partial), complete=all(p.complete for p in parts),
                        others=tuple(dict.fromkeys(o for p in parts for o in p.others)),
                        no_accelerator=tuple(dict.fromkeys(o for p in parts for o in p.no_accelerator)),
                        inferred=tuple(dict.fromkeys(x for p in parts for x in p.inferred)),
                        read_whole=tuple(dict.fromkeys(x for p in parts for x in p.read_whole)),
                        one_device=tuple(dict.fromkeys(x for p in parts for x in p.one_device)))


def _cut_short(shown: str, full: str) -> bool:
    """Whether a model name is another's cut inside a word, as a paste's last line may be (`GPU 4: NVIDIA GeForce GTX 10`
    in a collect_env cut there, `NVIDIA GeForce GTX 1080 Ti` in vLLM's warning, corpus 2681): the full name starts with
    it and goes on in the same word, and it names no model of the GPU table itself (`RTX 3090` is no cut `RTX 3090 Ti`).
    """
    return bool(shown) and len(full) > len(shown) and full.startswith(shown) and shown[-1].isalnum() \
        and full[len(shown)].isalnum() and not exact_name(shown)


def _match(merged: list[GpuRecord], record: GpuRecord) -> int | None:
    for i, g in enumerate(merged):
        if record.bdf and g.bdf == record.bdf:
            return i
    for i, g in enumerate(merged):
        if record.index is not None and g.index == record.index and not (g.bdf and record.bdf):
            return i
    return None


def _whole_at_border(nvidia: NvidiaGpus) -> bool:
    """Whether an nvidia-smi table that ends at the border after a GPU's rows (NvidiaGpus.cut_at_border) is read as
    the host's listing: its GPUs are numbered 0 to N-1, so no index it shows proves a GPU it leaves out (GPU 1 alone
    proves two)."""
    return nvidia.cut_at_border and sorted(g.index for g in nvidia.gpus) == list(range(len(nvidia.gpus)))


def _index_by_bus_order(part: GpuInventory) -> GpuInventory:
    """No source pairs index and BDF: number the PCI functions in bus order, as NVML and CUDA
    (CUDA_DEVICE_ORDER=PCI_BUS_ID) do, so that index-only rows can join them."""
    if not part.gpus or any(g.index is not None for g in part.gpus):
        return part
    ordered = sorted(part.gpus, key=lambda g: g.bdf)
    return replace(part, gpus=tuple(replace(g, index=i) for i, g in enumerate(ordered)))


def cuda_order_renames(devices: Sequence[str] | None, order: str | None, inventory: GpuInventory | None) -> str:
    """Where CUDA_VISIBLE_DEVICES names a GPU by an index that CUDA's default order gives to another model than
    nvidia-smi's does, in words (`1 is the Quadro M5000 to CUDA, the NVIDIA RTX A2000 12GB to nvidia-smi`); "" where
    it does not, or the source cannot tell.

    nvidia-smi (NVML) numbers GPUs in PCI bus order; CUDA numbers them fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID
    (CUDA Programming Guide, CUDA environment variables), which puts a GPU of a newer architecture ahead of an older
    one. Read only where the inventory lists every GPU of the host by index and model (indices 0..N-1), the GPUs of
    different models are each of a different known architecture (GPUs of one architecture are ranked by a heuristic
    the listing cannot settle), and every value is an index (a UUID names one GPU either way)."""
    if not devices or (order or "").upper() == "PCI_BUS_ID" or inventory is None or not all(d.isdecimal() for d in devices):
        return ""
    listed = sorted((g for g in inventory.gpus if g.index is not None and g.model), key=lambda g: g.index or 0)
    if len(listed) < 2 or inventory.whole_count != len(listed) or [g.index for g in listed] != list(range(len(listed))):
        return ""
    ranks: dict[str, int] = {}
    for g in listed:
        arch = architecture_of(g.model)
        if arch not in ARCHITECTURE_ORDER:
            return ""
        ranks[g.model] = ARCHITECTURE_ORDER.index(arch)
    if len(set(ranks.values())) != len(ranks):  # two models of one architecture: CUDA's order between them not read
        return ""
    cuda = sorted(listed, key=lambda g: (-ranks[g.model], g.index or 0))  # a stable sort: one model keeps bus order
    moved = [f"{d} is the {cuda[int(d)].model} to CUDA, the {listed[int(d)].model} to nvidia-smi"
             for d in devices if int(d) < len(listed) and cuda[int(d)].model != listed[int(d)].model]
    return "; ".join(moved)


# Listings that number GPUs as NVML does (PCI bus order), and those that number them as the CUDA runtime does
# (fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID): where both list one host's GPUs, a model they put at different
# indices shows the two orders differ on that host.
NVML_ORDER_TITLES = (NVIDIA_TITLE, NVSMI_LIST_TITLE, QUERY_ROWS_TITLE)
CUDA_ORDER_TITLES = (GGML_TITLE, DEVICE_QUERY_TITLE)


def cuda_order_differs(inventory: GpuInventory | None) -> str:
    """Where a CUDA-order listing (CUDA_ORDER_TITLES: llama.cpp's `ggml_cuda_init` devices, deviceQuery) and an
    NVML-order listing (NVML_ORDER_TITLES: nvidia-smi) of the same GPUs name another model at one index, in words
    (`0 is the NVIDIA GeForce RTX 3090 to CUDA, the NVIDIA GeForce GTX 1660 SUPER to nvidia-smi`); "" otherwise.

    The two listings must name the same models, as many of each (a container's CUDA_VISIBLE_DEVICES renumbers a subset
    from 0, which is no order of the host's): then the program's device N is not nvidia-smi's GPU N, and a GPU picked
    by one numbering runs the work on another card (corpus 2680)."""
    if inventory is None:
        return ""
    cuda: dict[int, str] = {}
    nvml: dict[int, str] = {}
    for g in inventory.gpus:
        for title in g.shown_by if g.index is not None and g.model else ():
            if title in NVML_ORDER_TITLES:
                nvml[g.index] = g.model  # type: ignore[index]
            elif title in CUDA_ORDER_TITLES:
                cuda[g.index] = g.model  # type: ignore[index]
    # A disagreement keeps the better source's model on the record: the other listing's is in the conflict.
    for label, field, _kept, other in inventory.conflicts:
        index, (model, _, title) = label.removeprefix("GPU ").split(" ")[0], other[:-1].rpartition(" (")
        if field == "model" and index.isdecimal():
            side = nvml if title in NVML_ORDER_TITLES else cuda if title in CUDA_ORDER_TITLES else None
            if side is not None:
                side[int(index)] = model
    if len(cuda) < 2 or set(cuda) != set(nvml) or sorted(cuda.values()) != sorted(nvml.values()):
        return ""
    return "; ".join(f"{i} is the {cuda[i]} to CUDA, the {nvml[i]} to nvidia-smi" for i in sorted(cuda)
                     if cuda[i] != nvml[i])


# --- one inventory per source ----------------------------------------------------------------


def from_nvidia(nvidia: NvidiaGpus) -> GpuInventory:
    records = tuple(GpuRecord(g.index, g.bdf, g.name, None, (NVIDIA_TITLE,)) for g in nvidia.gpus)
    count = nvidia.attached if nvidia.attached is not None else len(records)
    unshown = nvidia.unshown if count <= len(records) else ""
    if unshown:
        # An excerpt's GPU with minor number N (/dev/nvidiaN) proves N+1 GPUs probed: a lower bound, still cut.
        count = max([count, *((g.minor_number or 0) + 1 for g in nvidia.gpus)])
    if unshown and not count:
        # An excerpt that stops before any GPU (the table's header alone, `nvidia-smi | head -n 4`): no count, not
        # "at least 0" beside a source that lists the GPUs (corpus 947).
        return GpuInventory(partial=((NVIDIA_TITLE, unshown),))
    return GpuInventory(gpus=records, counts=((NVIDIA_TITLE, max(count, len(records))),),
                        partial=((NVIDIA_TITLE, unshown),) if unshown else (),
                        read_whole=(NVIDIA_TITLE,) if unshown and _whole_at_border(nvidia) else (),
                        inferred=tuple(dict.fromkeys((g.name, g.name_in_words) for g in nvidia.gpus
                                                     if g.name_in_words != g.name)))


def from_topology(topo: TopoMatrix) -> GpuInventory:
    records = tuple(GpuRecord(gpu_index(name), "", "", topo.numa_node(name), (TOPOLOGY_TITLE,))
                    for name in topo.gpus)
    return GpuInventory(gpus=records, counts=((TOPOLOGY_TITLE, len(records)),))


def from_pci(pci: PciDevices, whole: bool) -> GpuInventory:
    records = tuple(GpuRecord(None, d.bdf, "", d.numa_node, (PCI_TITLE,)) for d in pci.nvidia_gpus)
    return GpuInventory(gpus=records, counts=((PCI_TITLE, len(records)),),
                        empty_in=(PCI_TITLE,) if whole and not records else ())


def from_collect_env(report: CollectEnv) -> GpuInventory:
    """torch's GPUs by CUDA index; a ROCm build names AMD GPUs there (`AMD Instinct MI300X (gfx942:…)`): others."""
    if report.gpu_models and all(other_vendor(name) for name in report.gpu_models):
        return GpuInventory(others=tuple(f"{name} ({COLLECT_ENV_TITLE})" for name in dict.fromkeys(report.gpu_models)))
    # SGLang's check_env (its `GPU 0,1 Compute Capability` line) and mmengine's collect_env (lmdeploy's check_env) name
    # torch's devices (CHECK_ENV_TITLE); vLLM's and torch's collect_env print `nvidia-smi -L`.
    titles = (COLLECT_ENV_TITLE, CHECK_ENV_TITLE) if report.tool == "openmmlab" or any(
        k.endswith(" Compute Capability") for k in report.values) else (COLLECT_ENV_TITLE,)
    records = tuple(GpuRecord(i, "", name, None, titles) for i, name in enumerate(report.gpu_models))
    return GpuInventory(gpus=records, counts=((COLLECT_ENV_TITLE, len(records)),))


# --- the fact --------------------------------------------------------------------------------

T = TypeVar("T")


def _source_fact(ctx: FactContext, name: str, kind: type[T], title: str) -> T:
    """Another fact; when it is not in the source, this alternative is not either (so the
    "not in the source" message lists the sources once, not the facts behind them)."""
    try:
        return ctx.fact(name, kind)
    except FactUnavailable as exc:
        if exc.reason.startswith(f"{name}: not in the source"):
            raise NotCaptured(title) from exc
        raise


def _combine(kind: type[Any], values: Sequence[Any]) -> GpuInventory:
    """Like `union`, but merged even when one source answered (PCI alone gets bus-order indices)."""
    return merge_inventories(list(values))


fact("gpus", GpuInventory, combine=_combine,
     hint="paste `nvidia-smi -q -x` (or `nvidia-smi`), or run on the host")


@provider("gpus", GpuInventory, rank=10, title=NVIDIA_TITLE)
def gpus_from_nvidia(ctx: FactContext) -> GpuInventory:
    """The GPUs NVML / nvidia-smi lists: index, BDF, product name."""
    nvidia = _source_fact(ctx, "nvidia", NvidiaGpus, NVIDIA_TITLE)
    if nvidia.none_on_bus:
        raise FactUnavailable("NVML / nvidia-smi were not asked (the PCI bus shows no NVIDIA GPU)")
    return from_nvidia(nvidia)


def listed_inventory(records: dict[int, GpuRecord], title: str, partial: str = "", *, whole: bool = False,
                     at_least: int = 0) -> GpuInventory:
    """The GPUs a listing names by index, in index order. A whole listing counts what it lists; any other counts at
    least its highest index + 1 (a GPU at index 7 proves eight) and `at_least` (a count it states). `partial` says why
    the listing may leave GPUs out."""
    gpus = tuple(records[i] for i in sorted(records))
    count = len(gpus) if whole else max(at_least, len(gpus), max(records) + 1)
    return GpuInventory(gpus=gpus, counts=((title, count),), partial=((title, partial),) if partial else ())


def parse_nvidia_smi_list(text: str, whole: bool) -> GpuInventory:
    """The GPUs an `nvidia-smi -L` lists (NVSMI_GPU_LINE, its UUID part whole, redacted, cut or dropped): index and
    product name. A pasted line without its UUID is one the importer took from an issue form's GPU answer
    (importers/nvidia_smi.form_list_answer). Whole, it is every GPU NVML sees where it ran; an excerpt proves as many
    GPUs as its highest index says, a lower bound."""
    records: dict[int, GpuRecord] = {}
    for line in text.splitlines():
        m = NVSMI_GPU_LINE.match(line.strip())
        if m is not None and m["name"]:
            records.setdefault(int(m["index"]), GpuRecord(int(m["index"]), "", m["name"], None, (NVSMI_LIST_TITLE,)))
    if not records:
        raise ParseError("no `GPU n: <name> (UUID: …)` line")
    return listed_inventory(records, NVSMI_LIST_TITLE, "" if whole else "a pasted `nvidia-smi -L` may leave GPUs out",
                            whole=whole)


@provider("gpus", GpuInventory, rank=15, title=NVSMI_LIST_TITLE, hint=NVSMI_LIST.hint)
def gpus_from_nvidia_smi_list(ctx: FactContext) -> GpuInventory:
    """The GPUs `nvidia-smi -L` lists: index, product name; whole under its command line (importers/nvidia_smi.py).

    Input (tests/data/captures/947, the host's listing)::

        (host) # nvidia-smi -L
        GPU 0: NVIDIA A10 (UUID: GPU-f15ae561-21b1-6003-c768-861fc285203b)
        GPU 2: Tesla T4 (UUID: GPU-bf507abe-ec25-2053-5435-1c82511a3ae8)
    """
    if ctx.host.meta.source == "live":
        # NVML (else `nvidia-smi -q -x`) lists the same GPUs with their addresses: nothing to run for.
        raise FactUnavailable("live, NVML lists the GPUs (fact `nvidia`)")
    try:
        text = read_source(ctx.host, NVSMI_LIST)
        return parse_nvidia_smi_list(text, ctx.host.provenance(command_key(NVSMI_LIST.argv)).whole)
    except ParseError as exc:
        raise FactUnavailable(f"{NVSMI_LIST_TITLE}: {exc}") from exc


# A field of a device block of `nvidia-container-cli info` (importers/nvidia_container_cli.py), and the library's
# debug line that ends its run (`nvc.c:423] shutting down library context`, with `-k -d /dev/tty`).
NVC_FIELD = re.compile(r"^(?P<key>Device Index|Device Minor|Model|Brand|GPU UUID|Bus Location|Architecture):"
                       r"\s+(?P<value>\S.*?)\s*$")
NVC_SHUTDOWN = re.compile(r"\bnvc\.c:\d+\] shutting down library context")
# The library's debug line for each GPU the driver lists, in NVML's index order, before the device blocks (`-k -d
# /dev/tty`; libnvidia-container's nvc_info.c): `nvc_info.c:623] listing device /dev/nvidia0 (GPU-5d49… at
# 00000000:1a:00.0)`. Every GPU of the host, also where the copy cuts the blocks under them (corpus 1460).
NVC_LISTING = re.compile(r"\bnvc_info\.c:\d+\] listing device /dev/nvidia(?P<minor>\d+) \((?P<uuid>GPU-[0-9a-fA-F-]+) "
                         rf"at (?P<bus>{BDF})\)")


def parse_nvc_info(text: str, whole: bool) -> GpuInventory:
    """The GPUs `nvidia-container-cli info` lists, a block each: index (its `Device Index`, else the block's place),
    product name, bus address. Whole, it is every GPU the toolkit's library found; an excerpt is a lower bound.

    Input (tests/data/captures/1270, the block whose Device Index line the copy cut)::

        Device Minor:   0
        Model:          NVIDIA GeForce GTX 1660 Ti with Max-Q Design
        Brand:          GeForce
        Bus Location:   00000000:01:00.0
    """
    blocks: list[dict[str, str]] = []
    for line in text.splitlines():
        m = NVC_FIELD.match(line.strip())
        if m is None:
            continue
        # A field the block holds already, or a Device Index, opens the next device's block.
        if not blocks or (blocks[-1] and (m["key"] in blocks[-1] or m["key"] == "Device Index")):
            blocks.append({})
        blocks[-1][m["key"]] = m["value"]
    records: dict[int, GpuRecord] = {}
    for place, block in enumerate(b for b in blocks if b.get("Model")):
        index = int(block["Device Index"]) if block.get("Device Index", "").isdigit() else place
        bus = block.get("Bus Location", "")
        records.setdefault(index, GpuRecord(index, normalize_bdf(bus) if is_bdf(bus) else "", block["Model"], None,
                                            (NVC_INFO_TITLE,)))
    # The debug lines listing the devices (NVC_LISTING), one a GPU in index order: a GPU each, the blocks' own first.
    listed = list(dict.fromkeys(normalize_bdf(m["bus"]) for line in text.splitlines()
                                if (m := NVC_LISTING.search(line)) is not None and is_bdf(m["bus"])))
    for index, bdf in enumerate(listed):
        if index not in records and bdf not in {r.bdf for r in records.values()}:
            records[index] = GpuRecord(index, bdf, "", None, (NVC_INFO_TITLE,))
    if not records:
        raise ParseError("no device block with a Model line and no `listing device` line")
    return listed_inventory(records, NVC_INFO_TITLE, "" if whole else
                            "a pasted `nvidia-container-cli info` may leave devices out", whole=whole)


@provider("gpus", GpuInventory, rank=18, title=NVC_INFO_TITLE, hint=NVC_INFO.hint)
def gpus_from_nvc_info(ctx: FactContext) -> GpuInventory:
    """The GPUs a pasted `nvidia-container-cli info` lists: index, product name, bus address."""
    try:
        text = read_source(ctx.host, NVC_INFO)
        return parse_nvc_info(text, ctx.host.provenance(doc_key(NVC_INFO.name)).whole)
    except ParseError as exc:
        raise FactUnavailable(f"{NVC_INFO_TITLE}: {exc}") from exc


@provider("gpus", GpuInventory, rank=20, title=TOPOLOGY_TITLE)
def gpus_from_topology(ctx: FactContext) -> GpuInventory:
    """The GPU rows of `nvidia-smi topo -m`: index, NUMA affinity."""
    return from_topology(_source_fact(ctx, "gpu_topology", TopoMatrix, TOPOLOGY_TITLE))


@provider("gpus", GpuInventory, rank=25, title=P2P_MATRIX_TITLE)
def gpus_from_p2p_matrix(ctx: FactContext) -> GpuInventory:
    """The GPUs of a pasted `nvidia-smi topo -p2p` matrix of any capability (rw, r, w, n, a, p, or its command line
    not shown): nvidia-smi prints a row and a column for every GPU NVML opens, so the matrix lists them whole (corpus
    2355's `-p2p n`). The NVLink (n) and atomics (a) matrices feed no P2P check (facts/topology.gpu_p2p reads r/w/p)."""
    if ctx.host.meta.source == "live":
        raise FactUnavailable("live, NVML lists the GPUs")
    for source in (*NVSMI_P2P.values(), NVSMI_P2P_UNNAMED):
        try:
            text = read_source(ctx.host, source)
        except (NotCaptured, FactUnavailable):
            continue
        try:
            matrix = parse_p2p_matrix(text, source.argv[-1] if source.argv else "")
        except ParseError:
            continue
        records = tuple(GpuRecord(gpu_index(name), "", "", None, (P2P_MATRIX_TITLE,)) for name in matrix.gpus)
        return GpuInventory(gpus=records, counts=((P2P_MATRIX_TITLE, len(records)),))
    raise NotCaptured(P2P_MATRIX_TITLE)


@provider("gpus", GpuInventory, rank=30, title=PCI_TITLE)
def gpus_from_pci(ctx: FactContext) -> GpuInventory:
    """The NVIDIA display/3D functions on the PCI bus (/sys/bus/pci/devices): BDF, NUMA node."""
    pci = _source_fact(ctx, "pci", PciDevices, PCI_TITLE)
    # Whether the bus listing is whole (a live read, a snapshot) decides if "no GPU" is proven.
    whole = ctx.host.provenance(file_key(PCI_DEVICES)).whole
    return from_pci(pci, whole)


@provider("gpus", GpuInventory, rank=35, title=LSPCI_TITLE)
def gpus_from_lspci(ctx: FactContext) -> GpuInventory:
    """The NVIDIA GPU functions of a pasted `lspci`: BDF, NUMA node, and the model where the name lspci puts in
    brackets is one row of the GPU table (`GK210GL [Tesla K80]`: Tesla K80; exact_name, corpus 1584). A row that
    names no model (`lspci -n`'s `0302: 10de:20b0`, an unnamed `Device 2330`) is named by the table's row for its
    PCI device id (corpus 2090). A bracketed name with no table row is kept where the GPU table knows its
    architecture (`GM200GL [Tesla M40]`: Maxwell, corpus 2089): what the model settles (no MIG before Ampere) holds
    without a row. An excerpt's count is a lower bound."""
    from stackaudit.facts.pcie import PcieFacts

    if ctx.optional("pci", PciDevices) is not None:
        # The bus from sysfs lists every GPU (the `pci` source): no lspci run for what it already shows.
        raise FactUnavailable("the PCI bus from sysfs lists the GPUs")
    pcie = _source_fact(ctx, "pcie", PcieFacts, LSPCI_TITLE)
    found = [f for f in pcie.gpus if f.lspci is not None]
    if not found:
        raise FactUnavailable("the lspci shown lists no NVIDIA GPU")
    records = tuple(GpuRecord(None, f.bdf, _lspci_model(f.model, f.device),
                              f.lspci.numa_node if f.lspci else None, (LSPCI_TITLE,)) for f in found)
    return GpuInventory(gpus=records, counts=((LSPCI_TITLE, len(records)),),
                        partial=() if pcie.complete else ((LSPCI_TITLE, "a pasted lspci may leave GPUs out"),))


def _lspci_model(name: str, device_id: str) -> str:
    """The model an lspci row names (gpus_from_lspci): its table row by name, else by PCI device id, else the
    bracketed name itself where its architecture is known; "" where none is."""
    if not name:
        return _row_of_device(device_id)
    return exact_name(name) or _row_of_device(device_id) or (name if architecture_of(name) else "")


def _row_of_device(device_id: str) -> str:
    """The GPU table's row for an lspci row that names no model, by its PCI device id (`lspci -n`'s `10de:20b0`, an
    unnamed `NVIDIA Corporation Device 2330`); "" where no row gives the id."""
    spec = by_pci_device_id(device_id) if device_id else None
    return spec.name if spec is not None else ""


@provider("gpus", GpuInventory, rank=40, title=COLLECT_ENV_TITLE)
def gpus_from_collect_env(ctx: FactContext) -> GpuInventory:
    """The `GPU n: <name>` lines of a pasted vLLM collect_env / SGLang check_env report."""
    report = _source_fact(ctx, "collect_env", CollectEnv, COLLECT_ENV_TITLE)
    if not report.gpu_models and report.os.startswith("macOS"):
        # torch's report on a Mac (`OS: macOS 14.5 (arm64)`): no CUDA on macOS since 10.2 (_OTHER_GPU_LINES).
        return GpuInventory(others=(f"a macOS host's GPU ({COLLECT_ENV_TITLE}: `OS: {report.os}`), which no CUDA "
                                    "since 10.2 runs",))
    if not report.gpu_models:
        raise FactUnavailable("the report lists no GPU (`No CUDA` / `Could not collect`)")
    return from_collect_env(report)


def from_nvlink_status(status: NvlinkStatus) -> GpuInventory:
    records = tuple(GpuRecord(g.index, "", g.name, None, (NVLINK_TITLE,)) for g in status.gpus if g.name)
    if not records:
        raise FactUnavailable("the `nvidia-smi nvlink -s` lines name no GPU model")
    return GpuInventory(gpus=records, counts=((NVLINK_TITLE, len(records)),),
                        partial=((NVLINK_TITLE, "a pasted `nvidia-smi nvlink -s` may stop after any GPU"),))


@provider("gpus", GpuInventory, rank=45, title=NVLINK_TITLE)
def gpus_from_nvlink_status(ctx: FactContext) -> GpuInventory:
    """The `GPU n: <name> (UUID: …)` lines of a pasted `nvidia-smi nvlink -s`: index, product name."""
    return from_nvlink_status(_source_fact(ctx, "nvlink_status", NvlinkStatus, NVLINK_TITLE))




@provider("gpus", GpuInventory, rank=46, title=GPU_MONITOR.title, hint=GPU_MONITOR.hint)
def gpus_from_monitor(ctx: FactContext) -> GpuInventory:
    """The GPUs a pasted monitor's rows list (nvtop, gpustat; facts/nvidia_smi.parse_monitor_rows): index, product
    name. The nvidia fact reads nvidia-smi's outputs before them, so a table cut after one GPU beside gpustat's rows of
    four (corpus 2409) counts at least the four the rows show; a monitor's rows prove as many GPUs as they list."""
    from stackaudit.facts.nvidia_smi import parse_monitor_rows

    try:
        shown = parse_monitor_rows(read_source(ctx.host, GPU_MONITOR))
    except ParseError as exc:
        raise FactUnavailable(f"{GPU_MONITOR.title}: {exc}") from exc
    records = {g.index: GpuRecord(g.index, "", g.name, None, (GPU_MONITOR.title,)) for g in shown.gpus if g.name}
    if not records:
        raise FactUnavailable(f"{GPU_MONITOR.title}: no GPU named")
    return listed_inventory(records, GPU_MONITOR.title, "a monitor shows the GPUs it was set to, with no count")


def parse_nccl_tests_gpus(text: str) -> GpuInventory:
    """The GPUs an nccl-tests header lists, one per local device index (ranks on other hosts repeat them)."""
    records: dict[int, GpuRecord] = {}
    others: dict[str, None] = {}
    for line in text.splitlines():
        m = RANK_DEVICE.search(line)
        if not m:
            continue
        index, bus, model = int(m["device"]), m["bus"].lower(), m["model"]
        if other_vendor(model):
            others[f"{model} [{bus}] ({NCCL_TESTS_TITLE})"] = None  # rccl-tests prints the same header for AMD GPUs
            continue
        bdf = ""
        if is_bdf(bus + ".0"):
            bdf = normalize_bdf(bus + ".0")
        elif re.fullmatch(r"0x[0-9a-f]{1,2}", bus):
            bdf = f"0000:{int(bus, 16):02x}:00.0"
        records.setdefault(index, GpuRecord(index, bdf, model if model.startswith("NVIDIA") else f"NVIDIA {model}",
                                            None, (NCCL_TESTS_TITLE,)))
    if not records and others:
        return GpuInventory(others=tuple(others))
    if not records:
        raise ParseError("no `# Rank N ... device N [bus] model` line of a GPU")
    # A rank on `device 7` proves eight local GPUs even when the excerpt shows that rank alone, and the header's
    # `nGpus 8` (`nGpus(perProc) 8`) eight GPUs of one process, on its host, where the list below it is cut (corpus
    # 1414). A list that may be cut (TestGroup.cut) counts at least what it shows. A header over no rank line (a run
    # that failed choosing its GPUs, `-g 8` on two GPUs, corpus 967) proves nothing.
    groups = nccl_test_groups(text)
    cut = any(g.cut for g in groups)
    return listed_inventory(records, NCCL_TESTS_TITLE, NCCL_TESTS_CUT if cut else "",
                            at_least=max((g.per_process for g in groups), default=0))


NCCL_TESTS_CUT = "the pasted nccl-tests device list may stop before the host's last GPU"


@parser(NCCL_TESTS, feeds="gpus", kind=GpuInventory, rank=50)
def gpus_from_nccl_tests(text: str) -> GpuInventory:
    """The GPUs a pasted nccl-tests header lists: device index, bus, model.

    Input (tests/data/captures/55)::

        # Using devices
        #   Rank  0 Pid  85517 on  <redacted> device  0 [0x52] A100-SXM4-40GB
        #   Rank  1 Pid  85517 on  <redacted> device  1 [0x57] A100-SXM4-40GB
    """
    return parse_nccl_tests_gpus(text)


# `Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0`: the CUDA samples print the three PCI
# numbers in hex (`%x`).
_P2P_DEVICE = re.compile(r"^\s*Device: (\d+), (.+?), pciBusID: ([0-9a-f]+), pciDeviceID: ([0-9a-f]+), "
                         r"pciDomainID:\s*([0-9a-f]+)\s*$", re.I)


def parse_p2p_test_gpus(text: str) -> GpuInventory:
    """The GPUs p2pBandwidthLatencyTest lists, one per CUDA device: every device CUDA sees, printed first (a lower
    bound of the host's: CUDA_VISIBLE_DEVICES may hide some). nvbandwidth's device list is the same list in its own
    words (`Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)`: domain, bus and device in hex, output.cpp
    getDeviceDisplayInfo; v0.4 and older print the name alone). So is deviceQuery's (`Device 0: "NVIDIA GeForce GTX
    1050 Ti"`, its PCI location below it in decimal: `Device PCI Domain ID / Bus ID / location ID:   0 / 1 / 0`),
    printed only after cudaGetDeviceCount succeeded."""
    records: dict[int, GpuRecord] = {}
    title = P2P_TEST_TITLE
    queried: int | None = None
    for line in text.splitlines():
        if m := DQ_DEVICE.match(line):
            queried, title = int(m["d"]), DEVICE_QUERY_TITLE
            records.setdefault(queried, GpuRecord(queried, "", m["name"].strip(), None, (title,)))
            continue
        if queried is not None and (m := DQ_PCI.match(line)) and not records[queried].bdf:
            records[queried] = replace(records[queried],
                                       bdf=f"{int(m['dom']):04x}:{int(m['bus']):02x}:{int(m['dev']):02x}.0")
            continue
        if m := _P2P_DEVICE.match(line):
            index, name = int(m.group(1)), m.group(2).strip()
            bdf = f"{int(m.group(5), 16):04x}:{int(m.group(3), 16):02x}:{int(m.group(4), 16):02x}.0"
        elif m := NVB_DEVICE.match(line):
            index, name, title = int(m["d"]), m["name"].strip(), NVBANDWIDTH_TITLE
            bdf = f"{int(m['dom'], 16):04x}:{m['bus'].lower()}:{m['dev'].lower()}.0" if m["bus"] else ""
        else:
            continue
        records.setdefault(index, GpuRecord(index, bdf, name, None, (title,)))
    if not records:
        raise ParseError("no `Device: N, <name>, pciBusID: …` or `Device N: \"<name>\"` line")
    return listed_inventory(records, title, CUDA_LIST)


@parser(P2P_BANDWIDTH_TEST, feeds="gpus", kind=GpuInventory, rank=52)
def gpus_from_p2p_test(text: str) -> GpuInventory:
    """The GPUs a pasted p2pBandwidthLatencyTest output lists: CUDA index, BDF, product name.

    Input (tests/data/captures/361)::

        Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
        Device: 1, NVIDIA RTX A6000, pciBusID: 21, pciDeviceID: 0, pciDomainID:0
        Device: 2, NVIDIA RTX A6000, pciBusID: 49, pciDeviceID: 0, pciDomainID:0

    Input (tests/data/captures/1035, nvbandwidth)::

        Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)
    """
    return parse_p2p_test_gpus(text)


# The count llama.cpp's CUDA backend found (cudaGetDeviceCount), before its device lines; a driver too old for its
# runtime prints `ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient ...` instead.
GGML_FOUND = re.compile(r"ggml_(?:cuda_init|init_cublas): found (\d+) CUDA devices?(?: \(Total VRAM: [^)]*\))?:")
# Builds of June to August 2023 print the name alone (`  Device 0: NVIDIA A10G`, llama.cpp#1899): the name runs to the
# line's end, or, in a log flattened onto one line (LocalAI#772), to the next device or the next `prefix: ` of the log.
_GGML_DEVICE = re.compile(r"\bDevice (\d+): (?:([^,\n]{1,200}), compute capability (?P<cc>\d+\.\d+)"
                          r"|([^,\n]{1,200}?)(?=\s+Device \d+: |\s+[\w.]+: |[ \t]*$))", re.M)


# The name the driver gives a device id its name table lacks (an engineering sample, a board newer than the driver):
# `Device 3: NVIDIA Graphics Device, compute capability 8.0` (corpus 2856) names no model, its compute capability
# does: kept beside the name CUDA gave (`NVIDIA Graphics Device of compute capability 8.0`, a whole GPU's name, no MIG
# slice's), for gputable.architecture_of and capability_architecture.
PLACEHOLDER_NAME = re.compile(r"^(?:NVIDIA )?Graphics Device$", re.IGNORECASE)


# The same list from llama.cpp built for HIP (ROCm): `ggml_cuda_init: found 2 ROCm devices:` over `Device 0: Radeon RX
# 7900 XTX, compute capability 11.0, VMM: no` (ollama/ollama#3158; builds since 2024 print the gfx target, `Device 0:
# AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32`): AMD GPUs, whose `compute capability` is HIP's
# reading of the gfx target, no NVIDIA one.
GGML_FOUND_ROCM = re.compile(r"ggml_(?:cuda_init|init_cublas): found (\d+) ROCm devices?")
_GGML_HIP_DEVICE = re.compile(r"\bDevice (\d+): (.+?), (?:compute capability \d+\.\d+|gfx\w+ \(0x[0-9a-f]+\))", re.I)


def parse_ggml_cuda_gpus(text: str) -> GpuInventory:
    """The GPUs llama.cpp's `ggml_cuda_init` lists: CUDA index and product name; the count it found. A HIP build's list
    (GGML_FOUND_ROCM, or device names of another vendor: gputable.other_vendor) is of AMD GPUs (`others`)."""
    found = next((int(m.group(1)) for m in GGML_FOUND.finditer(text)), 0)
    hip = GGML_FOUND_ROCM.search(text) if not found else None
    names = [m.group(2).strip() for m in _GGML_HIP_DEVICE.finditer(text)]
    if hip is not None or (names and all(other_vendor(n) for n in names)):
        return GpuInventory(others=tuple(dict.fromkeys(f"{n} (llama.cpp's HIP build)" for n in names))
                            or (f"AMD GPUs (llama.cpp's HIP build: `{hip.group(0) if hip else ''}`)",))
    records: dict[int, GpuRecord] = {}
    listed = list(_GGML_DEVICE.finditer(text))
    # A list whose lines give a compute capability is of a build that prints it: a bare name there is a line the
    # paste cut (`Device 1: NVIDI`, corpus 1300), no device.
    bare_ok = not any(m.group(2) for m in listed)
    for m in listed:
        if not (m.group(2) or bare_ok):
            continue
        name = (m.group(2) or m.group(4)).strip()
        if m.group("cc") and PLACEHOLDER_NAME.match(name):
            name += f" of compute capability {m.group('cc')}"  # what names it: gputable.capability_architecture
        records.setdefault(int(m.group(1)), GpuRecord(int(m.group(1)), "", name, None, (GGML_TITLE,)))
    if not records:
        raise ParseError("no `Device N: <name>` line")
    return listed_inventory(records, GGML_TITLE, CUDA_LIST, at_least=found)


@parser(GGML_CUDA_DEVICES, feeds="gpus", kind=GpuInventory, rank=53)
def gpus_from_ggml_cuda(text: str) -> GpuInventory:
    """The GPUs llama.cpp's start-up log lists: CUDA index, product name.

    Input (https://github.com/ikawrakow/ik_llama.cpp/pull/370)::

        ggml_cuda_init: found 1 CUDA devices:
          Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes
    """
    return parse_ggml_cuda_gpus(text)


# The build flags ggml's CUDA backend prints above its device list (ggml-cuda.cu, ggml_init_cublas / ggml_cuda_init,
# from `#if defined(...)`: compile-time, whatever the GPU): `ggml_init_cublas: CUDA_USE_TENSOR_CORES: yes`, defined where
# GGML_CUDA_FORCE_MMQ is not. ggml takes its tensor-core path only on GPUs of compute capability 7.0 (CC_VOLTA) and
# newer, chosen per matrix product at run time (ggml_cuda_mul_mat, ggml-org/llama.cpp#3776): on older GPUs the line
# names a kernel that never runs.
GGML_TENSOR_CORES = re.compile(r"^.*?\bggml_(?:cuda_init|init_cublas): CUDA_USE_TENSOR_CORES: (yes|no)\s*$", re.M)


@dataclass(frozen=True)
class GgmlCudaBuild(Sourced):
    """ggml's CUDA build flags, as its device list's header prints them (GGML_TENSOR_CORES)."""

    tensor_cores: bool = False
    line: str = ""


fact("ggml_cuda_build", GgmlCudaBuild, hint="paste llama.cpp's start-up lines (`ggml_cuda_init: ...`)")


# A CMake configure's CUDA architectures (`-DCMAKE_CUDA_ARCHITECTURES="120"`, `=86;89`, `="75-real;89"`, corpus 1855):
# the compute capabilities a build of it carries code for (CMake's `120` is compute capability 12.0, ggml's ARCHS
# `1200`). `native` and `all` name none the line shows.
CMAKE_CUDA_ARCHS = re.compile(r"-DCMAKE_CUDA_ARCHITECTURES=[\"']?((?:\d{2,3}[af]?(?:-real|-virtual)?[;,]?)+)[\"']?(?:\s|\\|$)")


@dataclass(frozen=True)
class StatedCudaArchs(Sourced):
    """The compute capabilities a pasted CMake configure builds for, as ggml's ARCHS writes them (1200 for 12.0)."""

    archs: tuple[int, ...]
    line: str


fact("stated_cuda_archs", StatedCudaArchs, hint="paste the build's CMake command")


@parser(EVIDENCE_LINES, feeds="stated_cuda_archs", kind=StatedCudaArchs, rank=10)
def stated_cuda_archs(text: str) -> StatedCudaArchs:
    """The CUDA architectures a pasted CMake configure names (CMAKE_CUDA_ARCHITECTURES); two different lists name no
    one build.

    Input (tests/data/captures/1855)::

        -DCMAKE_CUDA_ARCHITECTURES="120" \\
    """
    found = {tuple(sorted({int(re.match(r"\d+", a).group(0)) * 10 for a in re.split(r"[;,]", m.group(1))  # type: ignore[union-attr]
                           if a})): line.strip()
             for line in text.splitlines() if (m := CMAKE_CUDA_ARCHS.search(line))}
    archs, line = only_one(found.items(), "no one `-DCMAKE_CUDA_ARCHITECTURES=` list in the lines shown")
    return StatedCudaArchs(archs, line)


# A llama.cpp build asked for its CUDA backend by its build switch: the make variable or CMake option of each era
# (`LLAMA_CUBLAS=1 make`, `-DLLAMA_CUBLAS=on` in 2023, `-DLLAMA_CUDA=ON` in 2024, `-DGGML_CUDA=on` since), as a
# Dockerfile's `ENV LLAMA_CUBLAS=1` or llama-cpp-python's `CMAKE_ARGS="-DGGML_CUDA=on" pip install` sets it (corpus
# 2918): the user builds it for an NVIDIA GPU.
GGML_CUDA_ASKED = re.compile(r"(?<![\w-])(?:-D)?(?:LLAMA_CUBLAS|GGML_CUBLAS|LLAMA_CUDA|GGML_CUDA)(?::BOOL)?=[\"']?"
                             r"(?i:1|on|true|yes)\b")


@dataclass(frozen=True)
class GgmlCudaAsked(Sourced):
    """A pasted line that asks llama.cpp's build for its CUDA backend (GGML_CUDA_ASKED)."""

    line: str


fact("ggml_cuda_asked", GgmlCudaAsked, hint="paste the build's CMake command")


@parser(EVIDENCE_LINES, feeds="ggml_cuda_asked", kind=GgmlCudaAsked, rank=10)
def ggml_cuda_asked(text: str) -> GgmlCudaAsked:
    """The first line that asks a llama.cpp build for its CUDA backend.

    Input (tests/data/captures/2918)::

        ENV LLAMA_CUBLAS=1
    """
    line = next((line.strip() for line in text.splitlines() if GGML_CUDA_ASKED.search(line)), "")
    if not line:
        raise ParseError("no line asks a llama.cpp build for CUDA")
    return GgmlCudaAsked(line)


@parser(GGML_CUDA_DEVICES, feeds="ggml_cuda_build", kind=GgmlCudaBuild, rank=10)
def ggml_cuda_build_flags(text: str) -> GgmlCudaBuild:
    """ggml's CUDA build flags above its device list.

    Input (tests/data/captures/1573, https://github.com/ollama/ollama/issues/1465)::

        Dec 11 18:31:37 x99 ollama[25964]: ggml_init_cublas: CUDA_USE_TENSOR_CORES: yes
        Dec 11 18:31:37 x99 ollama[25964]: ggml_init_cublas: found 4 CUDA devices:
    """
    m = GGML_TENSOR_CORES.search(text)
    if m is None:
        raise ParseError("no `CUDA_USE_TENSOR_CORES:` line")
    return GgmlCudaBuild(tensor_cores=m.group(1) == "yes", line=m.group(0).strip())


JAX_DEVICE = re.compile(r"\b(?:Gpu|Cuda)Device\(id=(?P<id>\d+)(?:, process_index=(?P<process>\d+))?")


def parse_jax_gpus(text: str) -> GpuInventory:
    """The GPUs JAX's device list names: its device ids as indices, no product name. A multi-host list
    (`jax.devices()` over several processes) holds every process's devices: the most one process holds is the count,
    a lower bound (CUDA_VISIBLE_DEVICES may narrow what JAX sees)."""
    per_process: dict[str, set[int]] = {}
    for m in JAX_DEVICE.finditer(text):
        per_process.setdefault(m["process"] or "", set()).add(int(m["id"]))
    if not per_process:
        raise ParseError("no `GpuDevice(id=N, ...)` or `CudaDevice(id=N)` device")
    ids = max(per_process.values(), key=len)
    if len(per_process) > 1:  # global ids across hosts: one process's devices, by position
        ids = set(range(len(ids)))
    records = {i: GpuRecord(i, "", "", None, (JAX_TITLE,)) for i in sorted(ids)}
    return GpuInventory(gpus=tuple(records.values()), counts=((JAX_TITLE, len(records)),),
                        partial=((JAX_TITLE, CUDA_LIST),))


@parser(JAX_DEVICES, feeds="gpus", kind=GpuInventory, rank=57)
def gpus_from_jax(text: str) -> GpuInventory:
    """The GPUs a pasted JAX device list names: index (JAX's device id on one host), no product name.

    Input (tests/data/captures/601, a Ray task's output)::

        (test_func pid=16253, ip=10.0.2.120) 10.0.2.120 [GpuDevice(id=0, process_index=0), GpuDevice(id=1, process_index=0), GpuDevice(id=2, process_index=0), GpuDevice(id=3, process_index=0)] 4
    """
    return parse_jax_gpus(text)


# TensorFlow's GPU device log (importers/jax_devices.py): a device's short description (GetShortDeviceDescription:
# `device: 0, name: ..., pci bus id: 0000:0a:00.0, compute capability: 6.1`), and `Found device N with properties:`
# over its property lines (1.x: `name: ... major: 6 minor: 1 memoryClockRate(GHz): ...` then `pciBusID: ...`; 2.0-2.3:
# `pciBusID: ... name: ... computeCapability: 6.1`; before 1.4 a line each, `name: ...` and `pciBusID 0000:04:00.0`).
# `device: N` is the CUDA ordinal where TensorFlow ran.
# A ROCm build prints no compute capability (`-> device: 0, name: AMD Instinct MI300A, pci bus id: 0000:01:00.0`), nor
# did releases before 1.4 (`Creating TensorFlow device (/gpu:0) -> (device: 0, name: ..., pci bus id: 0000:04:00.0)`).
_TF_SHORT = re.compile(rf"\bdevice: (?P<index>\d+), name: (?P<name>.{{1,120}}?), pci bus id: (?P<bus>{BDF})"
                       r"(?:,\s*compute capability: \d+\.\d+|\)?\s*$)")
_TF_FOUND = re.compile(r"\bFound device (?P<index>\d+) with properties:")
_TF_NAME = re.compile(r"^(?:\[\d+,\d+\]<std(?:err|out)>:)?\s*name: (?P<name>.{1,120}?)"
                      r"(?: major: \d+ minor: \d+ memoryClockRate\(GHz\).*)?\s*$")
_TF_BUS = re.compile(rf"\bpciBusID:? (?P<bus>{BDF})(?: name: (?P<name>.{{1,120}}?) computeCapability: \d+\.\d+)?")
TF_VISIBLE = re.compile(r"\bAdding visible gpu devices: (?P<ids>\d+(?:, \d+)*)\s*$")


def parse_tf_gpus(text: str) -> GpuInventory:
    """The GPUs TensorFlow's device log names: PCI address and product name, with the CUDA ordinal where a line pairs
    it with the address. Several processes' lines (Horovod, one GPU each) may each call their own GPU `device: 0`
    under CUDA_VISIBLE_DEVICES: an ordinal that names two addresses, or an address given two ordinals, is dropped,
    the address kept. Another vendor's GPUs (a ROCm build's `AMD Instinct MI300A`) are `others`. The count is a lower bound: TensorFlow lists the GPUs it was given (CUDA_LIST), the most one
    `Adding visible gpu devices:` line names or the GPUs shown, whichever is more."""
    named: dict[str, str] = {}
    ordinals: dict[str, set[int]] = {}
    found: int | None = None
    name = ""
    visible = 0

    def seen(bus: str, model: str, index: int | None) -> None:
        bdf = normalize_bdf(bus)
        named.setdefault(bdf, model.strip())
        ordinals.setdefault(bdf, set()).update(() if index is None else (index,))

    for line in text.splitlines():
        if m := _TF_SHORT.search(line):
            seen(m["bus"], m["name"], int(m["index"]))
        elif m := _TF_FOUND.search(line):
            found, name = int(m["index"]), ""
        elif m := _TF_BUS.search(line):
            seen(m["bus"], m["name"] or name, found)
            found, name = None, ""
        elif m := _TF_NAME.search(line):
            name = m["name"]
        elif m := TF_VISIBLE.search(line):
            visible = max(visible, len(m["ids"].split(", ")))
    if not named:
        raise ParseError("no `device: N, name: ..., pci bus id: ...` or `pciBusID:` line")
    others = tuple(dict.fromkeys(f"{model} ({TF_TITLE}, a ROCm build)" for model in named.values() if other_vendor(model)))
    named = {bdf: model for bdf, model in named.items() if not other_vendor(model)}
    if not named:
        return GpuInventory(others=others)
    owners: dict[int, set[str]] = {}
    for bdf, indices in ordinals.items():
        for index in indices:
            owners.setdefault(index, set()).add(bdf)
    records = []
    for bdf, model in named.items():
        only = next(iter(ordinals[bdf])) if len(ordinals[bdf]) == 1 else None
        ordinal = only if only is not None and len(owners[only]) == 1 else None
        records.append(GpuRecord(ordinal, bdf, model, None, (TF_TITLE,)))
    records.sort(key=lambda g: g.bdf)
    return GpuInventory(gpus=tuple(records), counts=((TF_TITLE, max(len(records), visible)),),
                        partial=((TF_TITLE, CUDA_LIST),), others=others)


@parser(TF_DEVICES, feeds="gpus", kind=GpuInventory, rank=51)
def gpus_from_tensorflow(text: str) -> GpuInventory:
    """The GPUs a pasted TensorFlow device log names: PCI address, product name, CUDA ordinal.

    Input (tests/data/captures/1706, https://github.com/horovod/horovod/issues/280, two processes' lines)::

        name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.683
        pciBusID: 0000:0b:00.0
        2018-05-25 00:58:37.348331: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1041] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 9768 MB memory) -> physical GPU (device: 0, name: GeForce GTX 1080 Ti, pci bus id: 0000:0a:00.0, compute capability: 6.1)
    """
    return parse_tf_gpus(text)


GGML_USING_TITLE = "llama.cpp's `using device`, `as main device`, `device_info` or memory breakdown lines"


@parser(ENGINE_LOG, feeds="gpus", kind=GpuInventory, rank=56)
def gpus_from_ggml_using_device(text: str) -> GpuInventory:
    """The GPUs llama.cpp loads the model on (GGML_USING_DEVICE): CUDA index and product name, a lower bound of the
    host's GPUs (the devices the engine was given and chose). Its `device_info:` list (GGML_DEVICE_INFO: `- CUDA0 :
    NVIDIA GeForce RTX 5070 Ti (15838 MiB, 58499 MiB free)`, corpus 1059) names the same: each device its CUDA backend
    found and read the memory of. So does its main device of 2023 (GGML_MAIN_DEVICE: `ggml_cuda_set_main_device: using
    device 0 (NVIDIA A100 80GB PCIe) as main device`, corpus 1665), which CUDA named; a HIP build's AMD GPU there is
    another vendor's (`others`). So does its memory breakdown at exit (GGML_BREAKDOWN_DEVICE: `- CUDA0 (RTX 3070 Laptop
    GPU)`, corpus 2824), CUDA's name with the vendor's words stripped.

    Input (tests/data/captures/1093, behind the journal's prefix)::

        Jan 10 16:30:58 node1 ollama[119046]: llama_load_model_from_file: using device CUDA0 (NVIDIA GeForce RTX 3090) - 23877 MiB free
        Jan 10 16:30:58 node1 ollama[119046]: llama_load_model_from_file: using device CUDA1 (NVIDIA GeForce RTX 4060 Ti) - 15837 MiB free
    """
    records: dict[int, GpuRecord] = {}
    others: list[str] = []
    for line in text.splitlines():
        m = (GGML_USING_DEVICE.search(line) or GGML_MAIN_DEVICE.search(line)) if "using device" in line \
            else GGML_BREAKDOWN_DEVICE.search(line) if "memory_breakdown" in line else GGML_DEVICE_INFO.match(line)
        if m is not None and other_vendor(m["name"]):
            others.append(f"{m['name'].strip()} (llama.cpp's HIP build)")
        elif m is not None:
            index = int(m.group(1 if m.re is GGML_DEVICE_INFO else "dev").removeprefix("CUDA"))
            records.setdefault(index, GpuRecord(index, "", m["name"].strip(), None, (GGML_USING_TITLE,)))
    if not records and others:
        return GpuInventory(others=tuple(dict.fromkeys(others)))
    if not records:
        raise ParseError("no llama.cpp `using device CUDAn (<name>) - N MiB free`, `using device N (<name>) as main "
                         "device` nor `- CUDAn : <name> (...)` line")
    return listed_inventory(records, GGML_USING_TITLE, "the devices the engine loaded the model on")


DLLAMA_TITLE = "distributed-llama's Vulkan device line"
# The Vulkan device distributed-llama's dllama runs on, as its start-up names it (`🌋 Device: NVIDIA Tegra Orin
# (nvgpu)`, the device's VkPhysicalDeviceProperties name: corpus 2829, b4rtaz/distributed-llama#265): one GPU of this
# node, an NVIDIA one where the name is NVIDIA's (a Jetson's integrated GPU names its nvgpu driver).
_DLLAMA_DEVICE = re.compile("^\\s*\U0001F30B Device: (?P<name>NVIDIA\\s.+?)\\s*$")


@parser(ENGINE_LOG, feeds="gpus", kind=GpuInventory, rank=76)
def gpus_from_dllama_device(text: str) -> GpuInventory:
    """The NVIDIA GPU distributed-llama's Vulkan backend runs on (_DLLAMA_DEVICE): its name, one GPU of the node
    whose log it is (a lower bound of the host's GPUs: Vulkan names the device dllama picked).

    Input (tests/data/captures/2829)::

        🌋 Device: NVIDIA Tegra Orin (nvgpu)
    """
    names = [m["name"] for line in text.splitlines() if "Device: " in line and (m := _DLLAMA_DEVICE.match(line))]
    if not names:
        raise ParseError("no distributed-llama `Device: NVIDIA ...` line")
    return listed_inventory({0: GpuRecord(0, "", names[0], None, (DLLAMA_TITLE,))}, DLLAMA_TITLE,
                            "the Vulkan device the engine picked")


TRITON_METRICS_TITLE = "Triton's metrics lines"
# Triton Inference Server's metrics start-up (metrics.cc): NVML's count, `found 8 GPUs supporting NVML metrics` (20.03),
# and each GPU it collects for, `GPU 0: GeForce RTX 2080 Ti` (20.03, server#1567), `Collecting metrics for GPU 0:
# NVIDIA GeForce RTX 3090` (later releases, server#5197), behind its glog prefix (serving_logs.TRITON_LINE).
_TRITON_GPU = re.compile(r"\bmetrics\.cc:\d+\]\s+\"?(?:Collecting metrics for )?GPU (\d+): ([^\"]+?)\"?\s*$")
# A log viewer's copy of the GPU's line, without glog's prefix (`" GPU 0: Tesla T4"`, corpus 1817): read only after the
# copy's own NVML count line.
_TRITON_GPU_COPIED = re.compile(r"^\s*\"\s*(?:Collecting metrics for )?GPU (\d+): ([^\"]+?)\"\s*$")
# A paste may cut the count's line after `NVML` (corpus 1767, the last line of its capture).
# A log viewer's copy shows the message without glog's prefix (serving_logs.ENGINE_CONSOLES, corpus 1817).
_TRITON_NVML_COUNT = re.compile(r"(?:\bmetrics\.cc:\d+\]\s+|^\s*)\"?found (\d+) GPUs supporting NVML(?: metrics|\s*$)")


@parser(ENGINE_LOG, feeds="gpus", kind=GpuInventory, rank=58)
def gpus_from_triton_metrics(text: str) -> GpuInventory:
    """The GPUs Triton's metrics start-up names through NVML: index and product name, and the count NVML found where
    the line is shown (the count alone where the GPUs' lines are cut off). NVML lists every GPU the server's host or container holds, whatever CUDA_VISIBLE_DEVICES
    hides from CUDA; a pasted excerpt may stop before the last GPU's line (the count says how many there are).

    Input (tests/data/captures/1493, behind the compose prefix)::

        I0528 11:19:45.103087 18 metrics.cc:164] found 8 GPUs supporting NVML metrics
        I0528 11:19:45.109310 18 metrics.cc:173]   GPU 0: GeForce RTX 2080 Ti
    """
    records: dict[int, GpuRecord] = {}
    count = 0
    for line in text.splitlines():
        copied = _TRITON_GPU_COPIED.match(line) if count else None
        if "metrics.cc:" not in line and "GPUs supporting NVML" not in line and copied is None:
            continue
        if (m := _TRITON_GPU.search(line) or copied) is not None:
            records.setdefault(int(m[1]), GpuRecord(int(m[1]), "", m[2].strip(), None, (TRITON_METRICS_TITLE,)))
        elif (m := _TRITON_NVML_COUNT.search(line)) is not None:
            count = int(m[1])
    if not records and count:
        # The count alone (the GPUs' own lines cut off): NVML found that many GPUs, their names not shown.
        return GpuInventory(counts=((TRITON_METRICS_TITLE, count),),
                            partial=((TRITON_METRICS_TITLE, "the lines of the GPUs Triton's metrics name are cut"),))
    if not records:
        raise ParseError("no Triton `metrics.cc:N] GPU n: <name>` line")
    return listed_inventory(records, TRITON_METRICS_TITLE, "" if count and len(records) == count
                            else "the lines of the GPUs Triton's metrics name may be cut", at_least=count)


# `| GPU Device IDs Detected   | 2321,2321     |`: one PCI device id per GPU of the diagnosed group, in its order.
_DIAG_IDS = re.compile(r"^\s*\|\s*GPU Device IDs Detected\s*\|\s*([0-9a-fA-F]{4}(?:\s*,\s*[0-9a-fA-F]{4})*)\s*\|?\s*$")
# `dcgmi diag -g 7` / `-i 0,1` / `--group` / `--gpuList`: a group the user chose, which may hold fewer than all GPUs.
_DIAG_CHOSEN = re.compile(r"\bdcgmi\s+diag\b.*\s(?:-g|--group|-i|--gpuList)\b")


def parse_dcgmi_diag_gpus(text: str) -> GpuInventory:
    """The GPUs a `dcgmi diag` metadata row counts, each named by the GPU table's row for its PCI device id."""
    ids = next((m.group(1) for line in text.splitlines() if (m := _DIAG_IDS.match(line))), None)
    if ids is None:
        raise ParseError("no `GPU Device IDs Detected` row")
    names = []
    for device_id in (i.strip().lower() for i in ids.split(",")):
        spec = by_pci_device_id(device_id)
        names.append("" if spec is None else spec.nvidia_smi_names[0] if spec.nvidia_smi_names else spec.name)
    records = tuple(GpuRecord(i, "", name, None, (DCGM_DIAG_TITLE,)) for i, name in enumerate(names))
    chosen = any(_DIAG_CHOSEN.search(line) for line in text.splitlines())
    return GpuInventory(gpus=records, counts=((DCGM_DIAG_TITLE, len(records)),),
                        partial=((DCGM_DIAG_TITLE, "the diagnosed group was chosen with -g/-i"),) if chosen else ())


@parser(DCGMI_DIAG, feeds="gpus", kind=GpuInventory, rank=54)
def gpus_from_dcgmi_diag(text: str) -> GpuInventory:
    """The GPUs of a pasted `dcgmi diag` table's metadata: index in the group, product from the PCI device id.

    Input (tests/data/captures/114)::

        | Driver Version Detected   | 560.35.03                                      |
        | GPU Device IDs Detected   | 2321,2321                                      |
    """
    return parse_dcgmi_diag_gpus(text)


# `msg="inference compute" id=GPU-… library=cuda [variant=v12] compute=6.1 driver=12.2 name="NVIDIA …"`; releases
# from 0.12 write the library in capitals, a `filter_id` before it and the product as `description` after the backend's
# device name (`id=GPU-… filter_id="" library=CUDA compute=8.6 name=CUDA0 description="NVIDIA GeForce RTX 3060 Ti"
# libdirs=ollama,cuda_v12 driver=13.0 pci_id=0000:01:00.0 type=discrete total="8.0 GiB" available="7.6 GiB"`).
# `library=rocm` names an AMD GPU and `library=cpu` no GPU at all.
OLLAMA_GPU = re.compile(r'msg="inference compute" id=(\S+)(?: filter_id="?[^" ]*"?)? library=(?:cuda|CUDA)\b.*? '
                         r'(?:name|description)="([^"]+)"')
# With OLLAMA_DEBUG, its reading of each GPU's free memory as it schedules a model (discover/gpu.go, the driver API's
# cuDeviceGetName and cuMemGetInfo): `msg="updating cuda memory data" gpu=GPU-… name="NVIDIA A40-8Q" overhead="0 B"
# before.total="7.8 GiB" before.free="2.0 GiB" now.total="7.8 GiB" now.free="7.5 GiB" now.used="385.8 MiB"`.
_OLLAMA_MEMORY_DATA = re.compile(r'msg="updating cuda memory data" gpu=(\S+) name="([^"]+)"')
# The same `inference compute` line with its compute capability where the paste cuts it before the name's closing quote
# (`... library=cuda compute=8.6 driver=12.4 name="`, corpus 1845): the GPU is named by its capability
# (gputable.capability_name), which gives its architecture.
_OLLAMA_CAPABILITY = re.compile(r'msg="inference compute" id=(\S+)(?: filter_id="?[^" ]*"?)? library=(?:cuda|CUDA)\b'
                                r'(?: variant=\S+)? compute=(\d{1,2}\.\d)\b')
# ollama 0.1's CUDA driver probe with OLLAMA_DEBUG (gpu/gpu_info_nvcuda.c, spring 2024): `[GPU-<uuid>] Compute
# Capability 7.2`, one line per device beside its `CUDA totalMem` and `CUDA freeMem` lines (corpus 2521, a Jetson
# Xavier's journal): the GPU by its UUID, named by its capability (gputable.capability_name).
_OLLAMA_NVCUDA_CAPABILITY = re.compile(r"\[(GPU-[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12})\] Compute Capability "
                                       r"((?:[3-9]|1[0-2])\.\d)\b")
# ollama 0.1's GPU probe (gpu/gpu.go, early 2024): `gpu.go:140: INFO CUDA Compute Capability detected: 8.6`, later in
# logfmt as `msg="CUDA Compute Capability detected: 7.5"` or `[nvidia-ml] NVML CUDA Compute Capability detected: 8.6`,
# and for a GPU below its minimum `CUDA GPU is too old. Falling back to CPU mode. Compute Capability detected: 5.2`.
# Its library (gpu_info_nvml.c, gpu_info_cudart.c) loops over every device and reports "the lowest major.minor we
# detect": one GPU of that capability, others left unnamed (corpus 2026; ollama/ollama#2445, #1992). A capability
# below 3.0 is no CUDA GPU of today's drivers (a vGPU's bogus `1.0`, ollama/ollama#4708): not read.
_OLLAMA_LOWEST_CAPABILITY = re.compile(r"\b(?:CUDA|CPU mode\.) Compute Capability detected: ((?:[3-9]|1[0-2])\.\d)\b")
# ollama 0.1's NVML probe with OLLAMA_DEBUG (gpu/gpu_info_nvml.c, early 2024): `[0] CUDA device name: NVIDIA GeForce
# MX130`, NVML's name of each device it found, by NVML's index (corpus 1916).
OLLAMA_NVML_NAME = re.compile(r"^\s*\[(\d{1,2})\] CUDA device name: (\S[^\n]*?)\s*$", re.MULTILINE)
_OLLAMA_NOW = re.compile(r'\bbefore\.free="(?P<before>[\d.]+) (?P<bu>[MG]iB)" now\.total="(?P<total>[\d.]+) (?P<tu>[MG]iB)" '
                         r'now\.free="(?P<free>[\d.]+) (?P<fu>[MG]iB)" now\.used=')


def parse_ollama_gpus(text: str) -> GpuInventory:
    """The NVIDIA GPUs ollama's `inference compute` lines name (else its debug log's `updating cuda memory data`
    lines, else the compute capability of a line whose name is cut, else ollama 0.1's debug probe's `[0] CUDA device
    name:` lines, OLLAMA_NVML_NAME, else its CUDA driver probe's capability lines, _OLLAMA_NVCUDA_CAPABILITY, else one
    GPU of the lowest capability ollama 0.1 reports), one per GPU UUID, in
    the order printed.

    ollama prints one line per GPU it found at each start; a pasted excerpt may leave GPUs out, so
    its count is a lower bound. The index is the order printed, as collect_env's is.
    """
    names: dict[str, str] = {}
    for m in (*OLLAMA_GPU.finditer(text), *_OLLAMA_MEMORY_DATA.finditer(text)):
        names.setdefault(m.group(1), m.group(2))
    for m in _OLLAMA_CAPABILITY.finditer(text):  # a line whose name is cut: the GPU by its capability
        names.setdefault(m.group(1), capability_name(m.group(2)))
    if not names:  # ollama 0.1's debug probe, by NVML's index
        names = {f"nvml {m.group(1)}": m.group(2) for m in OLLAMA_NVML_NAME.finditer(text)}
    if not names:  # its CUDA driver probe, by UUID: the GPU by its capability
        names = {m.group(1): capability_name(m.group(2)) for m in _OLLAMA_NVCUDA_CAPABILITY.finditer(text)}
    if not names:
        return parse_ollama_lowest(text)
    records = tuple(GpuRecord(i, "", name, None, (OLLAMA_TITLE,)) for i, name in enumerate(names.values()))
    return GpuInventory(gpus=records, counts=((OLLAMA_TITLE, len(records)),),
                        partial=((OLLAMA_TITLE, "pasted lines of ollama's log may leave GPUs out"),))


def parse_ollama_lowest(text: str) -> GpuInventory:
    """One GPU of the lowest compute capability ollama 0.1's probe reports (_OLLAMA_LOWEST_CAPABILITY), named by that
    capability (gputable.capability_name); the host's other GPUs, if any, are not named.

    >>> parse_ollama_lowest("2024/01/29 19:35:56 gpu.go:140: INFO CUDA Compute Capability detected: 8.6").models
    {0: 'GPU of compute capability 8.6'}
    """
    lowest = _OLLAMA_LOWEST_CAPABILITY.search(text)
    if lowest is None:
        raise ParseError('no ollama `msg="inference compute" ... library=cuda`, `updating cuda memory data`, '
                         '`[0] CUDA device name:` or `CUDA Compute Capability detected:` line')
    return GpuInventory(gpus=(GpuRecord(0, "", capability_name(lowest.group(1)), None, (OLLAMA_TITLE,)),),
                        counts=((OLLAMA_TITLE, 1),),
                        partial=((OLLAMA_TITLE, "ollama 0.1 reports the lowest compute capability of its GPUs: "
                                  "one GPU, others not named"),))


@parser(ENGINE_LOG, feeds="gpus", kind=GpuInventory, rank=59)
def gpus_from_ollama_lowest(text: str) -> GpuInventory:
    """The one GPU ollama 0.1's server log names by the lowest compute capability of its GPUs (parse_ollama_lowest).

    Input (tests/data/captures/2026)::

        2024/01/29 19:35:56 gpu.go:99: INFO Nvidia GPU detected
        2024/01/29 19:35:56 gpu.go:140: INFO CUDA Compute Capability detected: 8.6
    """
    return parse_ollama_lowest(text)


# PyTorch's warning for each GPU its build has no kernels for, from torch/cuda/__init__.py `_check_capability`
# (https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py): `NVIDIA GeForce RTX 5090 with CUDA capability
# sm_120 is not compatible with the current PyTorch installation.`, and older releases' `Found GPU0 NVIDIA GeForce GT
# 710 which is of cuda capability 3.5.`. torch names each GPU from CUDA's own device list (`get_device_name`).
# The name alone: at a line's start, after the warning's own label or a Compose service's `vllm-1  | ` prefix. The
# sentence is the warning's up to `the current PyTorch`, where a paste may cut it (corpus 2260: `... the current PyTorch
# ins`).
TORCH_WARNED = re.compile(r"(?:^|UserWarning:|\|)[ \t]*(?P<name>[A-Za-z][\w .()/-]*?) with CUDA capability sm_\d+ is "
                          r"not compatible with "
                          r"the current PyTorch\b|\bFound GPU(?P<index>\d+) (?P<old>[^\n]+?) which is of "
                          r"cuda capability \d+\.\d+", re.MULTILINE)


def parse_torch_warned_gpus(text: str) -> GpuInventory:
    """The GPUs PyTorch's capability warnings name, CUDA's index where the warning gives it, else the order printed.

    Python prints a warning once per text, so identical GPUs show one line: the count is a lower bound.
    """
    names: dict[int, str] = {}
    for m in TORCH_WARNED.finditer(text):
        index = int(m.group("index")) if m.group("index") is not None else len(names)
        if (m.group("old") or m.group("name")).strip() not in names.values():
            names.setdefault(index, (m.group("old") or m.group("name")).strip())
    if not names:
        raise ParseError("no PyTorch `with CUDA capability sm_N is not compatible` line")
    records = tuple(GpuRecord(i, "", name, None, (TORCH_WARNED_TITLE,)) for i, name in sorted(names.items()))
    return GpuInventory(gpus=records, counts=((TORCH_WARNED_TITLE, max(names) + 1),),
                        partial=((TORCH_WARNED_TITLE, "PyTorch warns once for identical GPUs; " + CUDA_LIST),))


# Lightning's notice on the CUDA device its process runs on (lightning/fabric/accelerators/cuda.py,
# `_check_cuda_matmul_precision`): `You are using a CUDA device ('NVIDIA L4') that has Tensor Cores.`, the name
# torch.cuda.get_device_name gives, printed once by rank zero (corpus 2099, NVIDIA/nccl#1212).
LIGHTNING_DEVICE = re.compile(r"\bYou are using a CUDA device \('(?P<name>[^'\n]{1,120})'\) that has Tensor Cores\b")


def parse_lightning_gpus(text: str) -> GpuInventory:
    """The GPUs Lightning's Tensor Cores notices name (LIGHTNING_DEVICE), one per name, in the order printed.

    Rank zero prints the notice for its own device only: the count is a lower bound.

    >>> parse_lightning_gpus("You are using a CUDA device ('NVIDIA A40') that has Tensor Cores. To properly").models
    {0: 'NVIDIA A40'}
    """
    names = list(dict.fromkeys(m["name"].strip() for m in LIGHTNING_DEVICE.finditer(text)))
    if not names:
        raise ParseError("no Lightning `You are using a CUDA device ('<name>') that has Tensor Cores` line")
    return _named_devices(names, LIGHTNING_TITLE, "Lightning names rank zero's device only; ")


def _named_devices(names: list[str], title: str, why: str) -> GpuInventory:
    """GPUs a program named in passing, one per name in the order printed: a lower bound (`why` says why)."""
    records = tuple(GpuRecord(i, "", name, None, (title,)) for i, name in enumerate(names))
    return GpuInventory(gpus=records, counts=((title, len(records)),), partial=((title, why + CUDA_LIST),))


@parser(EVIDENCE_LINES, feeds="gpus", kind=GpuInventory, rank=67)
def gpus_from_lightning(text: str) -> GpuInventory:
    """The GPUs Lightning's Tensor Cores notices name among pasted lines (parse_lightning_gpus).

    Input (rhasspy/piper#660)::

        You are using a CUDA device ('NVIDIA GeForce RTX 4060 Laptop GPU') that has Tensor Cores.
    """
    return parse_lightning_gpus(text)


@parser(ENGINE_LOG, feeds="gpus", kind=GpuInventory, rank=68)
def gpus_from_lightning_log(text: str) -> GpuInventory:
    """The GPUs Lightning's Tensor Cores notices name in a training or engine log (parse_lightning_gpus).

    Input (tests/data/captures/2099)::

        (RayTrainWorker pid=355353) You are using a CUDA device ('NVIDIA L4') that has Tensor Cores. To properly utilize them, you should set `torch.set_float32_matmul_precision('medium' | 'high')`
    """
    return parse_lightning_gpus(text)


# Unsloth's start-up banner (unsloth/models/llama.py, `statistics`): torch's properties of CUDA device 0
# (get_device_properties: its name and total memory) and, from 2025, torch.cuda.device_count(), then on the next line
# torch's version and device 0's compute capability (`CUDA: 8.9.`): `   \\   /|    GPU: NVIDIA L40S-48C. Max memory:
# 47.706 GB. Platform: Linux.` (2025.2, corpus 2358), `   \\   /|    NVIDIA H20. Num GPUs = 8. Max memory: 95.005 GB.
# Platform: Linux.` (2025.6, corpus 2364). Only an NVIDIA product name is read (ROCm's torch prints AMD's).
UNSLOTH_BANNER = re.compile(r"(?:GPU: )?(?P<name>(?:NVIDIA|Tesla|Quadro|GeForce)\b[^\n]{1,80}?)\. (?:Num GPUs = "
                            r"(?P<count>[1-9]\d{0,2})\. )?Max memory: (?P<memory>\d{1,4}(?:\.\d{1,3})?) GB\. Platform: ")


def parse_unsloth_gpus(text: str) -> GpuInventory:
    """The GPUs Unsloth's banner (UNSLOTH_BANNER) names: CUDA device 0's product, and as many of it as the banner's
    device count where it prints one (torch.cuda.device_count(): the devices CUDA lists to the process).

    >>> parse_unsloth_gpus("   \\\\   /|    NVIDIA H20. Num GPUs = 8. Max memory: 95.005 GB. Platform: Linux.").models
    {0: 'NVIDIA H20', 1: 'NVIDIA H20', 2: 'NVIDIA H20', 3: 'NVIDIA H20', 4: 'NVIDIA H20', 5: 'NVIDIA H20', 6: 'NVIDIA H20', 7: 'NVIDIA H20'}
    """
    m = UNSLOTH_BANNER.search(text)
    if m is None:
        raise ParseError("no Unsloth banner line (`NVIDIA H20. Num GPUs = 8. Max memory: 95.005 GB. Platform:`)")
    name = m["name"].strip()
    if m["count"] is None:
        return _named_devices([name], UNSLOTH_TITLE, "Unsloth's banner names CUDA device 0 only; ")
    return counted_gpus(UNSLOTH_TITLE, int(m["count"]), name,
                        "Unsloth's banner names device 0 and counts " + CUDA_LIST)


@parser(EVIDENCE_LINES, feeds="gpus", kind=GpuInventory, rank=72)
def gpus_from_unsloth_banner(text: str) -> GpuInventory:
    """The GPUs Unsloth's start-up banner names (parse_unsloth_gpus).

    Input (tests/data/captures/2364)::

           \\\\   /|    NVIDIA H20. Num GPUs = 8. Max memory: 95.005 GB. Platform: Linux.
    """
    return parse_unsloth_gpus(text)


# ComfyUI's model management (comfy/model_management.py, shared by Fooocus's ldm_patched and Forge) naming its torch
# device at start-up: `Device: cuda:0 NVIDIA GeForce RTX 4090 : native` (get_torch_device_name: the device,
# torch.cuda.get_device_name, the allocator backend, `cudaMallocAsync` where cuda-malloc is on), printed after
# get_total_memory read the device's memory through torch.cuda.mem_get_info (`Total VRAM 24564 MB`): both need torch's
# CUDA context on the driver. Not an AMD GPU's name, which torch's ROCm build also calls cuda:0 (corpus 2664, 2665, 2660).
# A vGPU guest's device is named after its profile (`GRID P40-8Q`, corpus 2660), which the GPU table reads by its board.
COMFY_CUDA_DEVICE = re.compile(r"^\W*Device: cuda:(\d+) (?!AMD\b|Radeon\b|Instinct\b)([^:\n]{1,80}?) : "
                               r"(?:native|cudaMallocAsync)\s*$")


def parse_comfy_gpus(text: str) -> GpuInventory:
    """The GPU ComfyUI's (or Fooocus's, Forge's) start-up line names (COMFY_CUDA_DEVICE): the torch device it runs on,
    by its CUDA index; a lower bound, since it names its one device only.

    >>> parse_comfy_gpus("Device: cuda:0 NVIDIA GeForce RTX 4090 : native").models
    {0: 'NVIDIA GeForce RTX 4090'}
    """
    names: dict[int, str] = {}
    for line in text.splitlines():
        if (m := COMFY_CUDA_DEVICE.match(line)) is not None:
            names.setdefault(int(m.group(1)), m.group(2).strip())
    if not names:
        raise ParseError("no ComfyUI `Device: cuda:N <name> : native` line")
    records = tuple(GpuRecord(i, "", name, None, (COMFY_TITLE,)) for i, name in sorted(names.items()))
    return GpuInventory(gpus=records, counts=((COMFY_TITLE, len(records)),),
                        partial=((COMFY_TITLE, "ComfyUI names the one device it runs on; " + CUDA_LIST),))


@parser(EVIDENCE_LINES, feeds="gpus", kind=GpuInventory, rank=73)
def gpus_from_comfy_device(text: str) -> GpuInventory:
    """The GPU ComfyUI's start-up names (parse_comfy_gpus).

    Input (tests/data/captures/2665)::

        Device: cuda:0 NVIDIA GeForce RTX 4090 : native
    """
    return parse_comfy_gpus(text)


# A user's torch check printing the name torch.cuda.get_device_name gives (`CUDA device name: NVIDIA GeForce RTX 4090`,
# `Current CUDA Device Name: NVIDIA GeForce RTX 3090`, `GPU device name: NVIDIA GeForce RTX 5090`): the name of a device
# CUDA listed. Only an NVIDIA product name is read (ROCm's torch answers with AMD's names under the same labels), and
# only beside a torch version line of the same printout (TORCH_PRINTED_VERSION), so a program's own banner is not read.
# TRL's environment report (`trl env`) lists every device torch counts, each by torch.cuda.get_device_name, joined by
# commas under `CUDA device(s)` (`- CUDA device(s): NVIDIA RTX A6000, NVIDIA RTX A6000, ...`, corpus 2627): one GPU a name.
# A check may print each expression it asks beside its answer on one line (`torch.cuda.get_device_name(0) / NVIDIA
# GeForce RTX 2080 Ti`, `torch.__version__ / 2.6.0a0+ecf3bae40a.nv25.01`, corpus 2916; `torch.cuda.get_device_name(0):
# ...`, `print(torch.__version__) -> 2.1.0`): the expression, a separator (TORCH_PRINTED_SEP), the value.
TORCH_PRINTED_SEP = r"\)?\s*(?:[:=/|]|->|=>|\u2192)\s*"
TORCH_DEVICE_NAME = re.compile(r"^\W{0,3}(?:(?:Current\s+)?(?:CUDA|GPU)\s+[Dd]evice(?:\s+[Nn]ame\s*(?:\(0\))?|(?P<all>\(s\)))"
                               r":|(?:print\()?torch\.cuda\.get_device_name\(\d?\)" + TORCH_PRINTED_SEP + r")"
                               r"\s*(?P<name>(?:NVIDIA|Tesla|Quadro|GeForce)\b[^\n]{1,600}?)\s*$", re.MULTILINE)
TORCH_PRINTED_VERSION = re.compile(r"^\W{0,3}(?:(?:PyTorch|Torch)\s+[Vv]ersion\s*:|(?:print\()?torch\.__version__"
                                   + TORCH_PRINTED_SEP + r")\s*\d+\.\d+", re.MULTILINE | re.IGNORECASE)


def parse_torch_named_gpus(text: str) -> GpuInventory:
    """The GPUs a torch check's printout names (TORCH_DEVICE_NAME beside TORCH_PRINTED_VERSION), one per name, in
    the order printed; a lower bound, since a check prints the device it asks about.

    >>> parse_torch_named_gpus("Torch version: 2.1.0\\nCUDA device name: NVIDIA GeForce RTX 4090").models
    {0: 'NVIDIA GeForce RTX 4090'}
    >>> parse_torch_named_gpus("- PyTorch version: 2.7.0\\n- CUDA device(s): NVIDIA A40, NVIDIA A40").models
    {0: 'NVIDIA A40', 1: 'NVIDIA A40'}
    >>> parse_torch_named_gpus("torch.cuda.get_device_name(0) / NVIDIA L4\\ntorch.__version__ / 2.6.0a0+ecf3bae40a.nv25.01").models
    {0: 'NVIDIA L4'}
    """
    if not TORCH_PRINTED_VERSION.search(text):
        raise ParseError("no `PyTorch version:` line beside a device name")
    listed = [[n.strip() for n in m["name"].split(",")] for m in TORCH_DEVICE_NAME.finditer(text) if m["all"]]
    names = listed[0] if len(listed) == 1 and all(listed[0]) else \
        list(dict.fromkeys(m["name"].strip() for m in TORCH_DEVICE_NAME.finditer(text) if not m["all"]))
    if not names:
        raise ParseError("no `CUDA device name: <NVIDIA GPU>` line of a torch check")
    return _named_devices(names, TORCH_NAMED_TITLE, "a torch check names the devices it asks about; ")


@parser(EVIDENCE_LINES, feeds="gpus", kind=GpuInventory, rank=69)
def gpus_from_torch_printout(text: str) -> GpuInventory:
    """The GPUs a pasted torch check names by torch.cuda.get_device_name (parse_torch_named_gpus).

    Input (tests/data/captures/2050)::

        Torch version: 2.1.0
        CUDA device name: NVIDIA GeForce RTX 4090
    """
    return parse_torch_named_gpus(text)


# The index and the name of QUERY_ROW (`0, NVIDIA GeForce RTX 3090, 595.58.03`): nvidia-smi's own name of each GPU.
_QUERY_ROW_NAME = re.compile(r"^\s*(?P<index>\d{1,2}), (?P<name>[^,]+?), ")


def parse_query_rows(text: str) -> GpuInventory:
    """The GPUs rows of `nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader` name (facts/nvidia
    QUERY_ROW, whose driver STATED_DRIVER reads), or of `--query-gpu=name,memory.total,index` (QUERY_ROW_NAME_FIRST):
    each row's index and product name. A lower bound: a paste may leave
    rows out.

    >>> parse_query_rows("  0, NVIDIA GeForce RTX 3090, 595.58.03\n  1, NVIDIA GeForce RTX 3090, 595.58.03").models
    {0: 'NVIDIA GeForce RTX 3090', 1: 'NVIDIA GeForce RTX 3090'}
    """
    names: dict[int, str] = {}
    for line in text.splitlines():
        if (QUERY_ROW.match(line) and (m := _QUERY_ROW_NAME.match(line)) is not None) \
                or (m := QUERY_ROW_NAME_FIRST.match(line)) is not None:
            names.setdefault(int(m["index"]), m["name"].strip())
    if not names:
        raise ParseError("no `nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader` row")
    records = tuple(GpuRecord(i, "", name, None, (QUERY_ROWS_TITLE,)) for i, name in sorted(names.items()))
    return GpuInventory(gpus=records, counts=((QUERY_ROWS_TITLE, max(names) + 1),),
                        partial=((QUERY_ROWS_TITLE, "the rows a paste shows, not necessarily every GPU's"),))


@parser(EVIDENCE_LINES, feeds="gpus", kind=GpuInventory, rank=61)
def gpus_from_query_rows(text: str) -> GpuInventory:
    """The GPUs pasted `nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader` rows name, or rows of
    `--query-gpu=name,memory.total,index` (QUERY_ROW_NAME_FIRST).

    Input (tests/data/captures/1118)::

          0, NVIDIA GeForce RTX 3090, 595.58.03
          1, NVIDIA GeForce RTX 3090, 595.58.03

    Input (tests/data/captures/2680)::

        NVIDIA GeForce GTX 1660 SUPER, 6144 MiB, 0
        NVIDIA GeForce RTX 3090, 24576 MiB, 1
    """
    return parse_query_rows(text)


# vLLM's warning where NVML's devices differ in name (vllm/platforms/cuda.py, NvmlCudaPlatform.log_warnings): `Detected
# different devices in the system: NVIDIA GeForce RTX 3090, NVIDIA GeForce RTX 3090, NVIDIA GeForce GTX 1080 Ti. Please
# make sure to set `CUDA_DEVICE_ORDER=PCI_BUS_ID` ...` (corpus 2681). It names every device NVML counts, in NVML's
# order, which CUDA_VISIBLE_DEVICES does not narrow: the GPUs the process's host or container holds. The list is read
# only up to the sentence after it, so a line cut inside the list names none.
VLLM_DIFFERENT_DEVICES = re.compile(r"\bDetected different devices in the system: (?P<names>[^\n]+?)\. Please make sure")
VLLM_DEVICES_TITLE = "vLLM's warning of different devices"


def parse_vllm_different_devices(text: str) -> GpuInventory:
    """The GPUs vLLM's warning of different devices names (VLLM_DIFFERENT_DEVICES): NVML's index, product name.

    >>> parse_vllm_different_devices("Detected different devices in the system: NVIDIA A10, NVIDIA L4. Please make sure "
    ...                               "to set").models
    {0: 'NVIDIA A10', 1: 'NVIDIA L4'}
    """
    m = VLLM_DIFFERENT_DEVICES.search(text)
    names = [n.strip() for n in m["names"].split(", ")] if m is not None else []
    if not names or not all(names):
        raise ParseError("no vLLM `Detected different devices in the system: ...` warning")
    records = tuple(GpuRecord(i, "", name, None, (VLLM_DEVICES_TITLE,)) for i, name in enumerate(names))
    return GpuInventory(gpus=records, counts=((VLLM_DEVICES_TITLE, len(records)),))


@parser(ENGINE_LOG, feeds="gpus", kind=GpuInventory, rank=75)
def gpus_from_vllm_warning(text: str) -> GpuInventory:
    """The GPUs vLLM's warning of different devices names (parse_vllm_different_devices).

    Input (tests/data/captures/2681)::

        WARNING 06-03 01:55:23 [cuda.py:409] Detected different devices in the system: NVIDIA GeForce RTX 3090, NVIDIA GeForce RTX 3090, NVIDIA GeForce GTX 1080 Ti, NVIDIA GeForce GTX 1080 Ti, NVIDIA GeForce GTX 1080 Ti. Please make sure to set `CUDA_DE
    """
    return parse_vllm_different_devices(text)


# An MPS daemon container's entrypoint listing the GPUs it is handed (the `nvidia/mps` image AWS's virtual GPU device
# plugin runs: `Available GPUs:` then a row of `nvidia-smi --query-gpu=index,pci.bus_id,name,compute_mode
# --format=csv,noheader` per GPU, `\t- 0, 00000000:00:1E.0, Tesla T4, Exclusive_Process`, corpus 2731): each row's
# index, PCI address and product name, nvidia-smi's own.
_MPS_GPU_ROW = re.compile(r"^(?:Available GPUs:)?\s*(?:-\s+)?(?P<index>\d{1,2}), (?P<bdf>(?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{2}:"
                          r"[0-9A-Fa-f]{2}\.[0-7]), (?P<name>[^,\n]+?)(?:, [\w ]+)?\s*$")
MPS_GPUS_TITLE = "an MPS container's `Available GPUs:` rows"


def parse_mps_gpus(text: str) -> GpuInventory:
    """The GPUs an MPS container's entrypoint lists under `Available GPUs:` (_MPS_GPU_ROW): index, BDF, product name;
    the rows up to the first line of another kind. The container's GPUs, which the device plugin hands it.

    >>> parse_mps_gpus("Available GPUs:\\t- 0, 00000000:00:1E.0, Tesla T4, Exclusive_Process").gpus[0].bdf
    '0000:00:1e.0'
    """
    lines = text.splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith("Available GPUs:")), None)
    records: list[GpuRecord] = []
    for line in lines[start:] if start is not None else ():
        m = _MPS_GPU_ROW.match(line)
        if m is None:
            if records or line.strip() != "Available GPUs:":
                break
            continue
        records.append(GpuRecord(int(m["index"]), normalize_bdf(m["bdf"]), m["name"].strip(), None, (MPS_GPUS_TITLE,)))
    if not records:
        raise ParseError("no MPS container's `Available GPUs:` row")
    return GpuInventory(gpus=tuple(records), counts=((MPS_GPUS_TITLE, len(records)),),
                        partial=((MPS_GPUS_TITLE, "the rows a paste shows, not necessarily every GPU's"),))


@parser(NVIDIA_DAEMON_LOG, feeds="gpus", kind=GpuInventory, rank=74)
def gpus_from_mps_entrypoint(text: str) -> GpuInventory:
    """The GPUs an MPS daemon container's entrypoint lists (parse_mps_gpus).

    Input (tests/data/captures/2731)::

        Available GPUs:	- 0, 00000000:00:1E.0, Tesla T4, Exclusive_Process
    """
    return parse_mps_gpus(text)


@parser(EVIDENCE_LINES, feeds="gpus", kind=GpuInventory, rank=55)
def gpus_from_ollama(text: str) -> GpuInventory:
    """The GPUs ollama's pasted `inference compute` lines name: product name; else those PyTorch's capability
    warnings name (parse_torch_warned_gpus), each a GPU that CUDA listed; else a Jetson's one integrated GPU by its
    platform lines (parse_jetson_gpus: Tegra's NvRmMem lines in an engine's journal).

    Input (tests/data/captures/244, two of its four GPUs)::

        May 27 12:33:01 test-server ollama[233489]: time=2024-05-27T12:33:01.069Z level=INFO source=types.go:71 msg="inference compute" id=GPU-4effbf41-2d2b-123d-3e00-87b020bf6f2c library=cuda compute=6.1 driver=12.2 name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="7.8 GiB"
        May 27 12:33:01 test-server ollama[233489]: time=2024-05-27T12:33:01.069Z level=INFO source=types.go:71 msg="inference compute" id=GPU-d340a9a6-dd55-c0cc-2a5c-6400aa90cbef library=cuda compute=6.1 driver=12.2 name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="7.8 GiB"

    Input (tests/data/captures/985)::

        NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
    """
    try:
        return parse_ollama_gpus(text)
    except ParseError:
        pass
    try:
        return parse_torch_warned_gpus(text)
    except ParseError:
        return parse_jetson_gpus(text)


# The memory ollama found on each GPU at discovery: `total="7.9 GiB" available="7.8 GiB"` (MiB or GiB).
_OLLAMA_MEMORY = re.compile(r'\btotal="(?P<total>[\d.]+) (?P<tu>[MG]iB)" available="(?P<free>[\d.]+) (?P<fu>[MG]iB)"')
# ollama's scheduler of 2026 (0.30) placing a llama-server model on one GPU (server/sched.go): the GPU's product and
# the memory available on it, `msg="selecting single GPU for llama-server model" main_gpu=0 id=0 filter_id=0
# library=CUDA name=CUDA0 description="Tesla V100-SXM2-32GB" integrated=false predicted="23.0 GiB" available="31.4
# GiB"` (corpus 1572; format.HumanBytes2). It gives no total: the product's nominal memory is its total.
OLLAMA_SINGLE_GPU = re.compile(r'msg="selecting single GPU for llama-server model".*?\bname=(?P<dev>\S+) '
                               r'description="(?P<name>[^"]+)".*?\bavailable="(?P<free>[\d.]+) (?P<fu>[KMG]iB|B)"')


@dataclass(frozen=True)
class FreeAtStart:
    """One GPU's memory as the engine found it when it started: how much there was and how much was free."""

    gpu: str  # "GPU 0 (NVIDIA GeForce GTX 1070)" (ollama); SGLang's rank ("TP3"); vLLM's device ("cuda:1")
    total_mib: float | None  # None where the engine's line does not give the GPU's total (SGLang)
    free_mib: float
    line: str
    own_mib: float | None = None  # what the engine had taken itself before this reading (SGLang's distributed init)
    refused: bool = False  # the engine refused to start for want of this memory (vLLM's `on startup is less than`)
    # What came free since the engine's previous reading (ollama's `before.free` to `now.free`, read as it waits for
    # the memory of a runner it unloaded): its own memory, released; None where the line gives one reading.
    freed_mib: float | None = None
    # Why the engine leaves this GPU out, in words (ollama's pick of the discrete GPU over an integrated one); "" where
    # it runs on it or the source does not say.
    left_out: str = ""
    # The free memory of every GPU the engine saw, summed (ollama 0.1's `N MB VRAM available`): no one GPU's, and no
    # total; the GPUs are those the other sources list.
    pooled: bool = False

    @property
    def held_mib(self) -> float | None:
        if self.total_mib is None:
            return None
        return max(self.total_mib - self.free_mib - (self.own_mib or 0.0), 0.0)


@dataclass(frozen=True, kw_only=True)
class EngineGpuMemory(Sourced):
    """GPU memory an engine found free on each GPU at its start (ollama's `inference compute` lines, SGLang's
    `Load weight begin. avail mem=` lines); a pasted excerpt may leave GPUs out."""

    gpus: tuple[FreeAtStart, ...] = ()
    # A line of HAMi-core in the engine's log (facts/serving_logs.HAMI_CORE_LINE): CUDA in its process answers through
    # HAMi's vGPU interception, which reports the pod's share of the GPU as its memory; "" where none is shown.
    vgpu_line: str = ""


fact("engine_gpu_memory", EngineGpuMemory, hint="paste the engine's start-up log")


# A size's unit as an engine's log writes it (ollama's `GiB`/`MiB`, torch's out-of-memory message down to `bytes`), in MiB.
_MIB_PER = {"GiB": 1024.0, "MiB": 1.0, "KiB": 1 / 1024, "B": 1 / 2**20, "bytes": 1 / 2**20}


def _mib(value: str, unit: str) -> float:
    return float(value) * _MIB_PER[unit]


@parser(EVIDENCE_LINES, feeds="engine_gpu_memory", kind=EngineGpuMemory, rank=10)
def engine_gpu_memory_from_ollama(text: str) -> EngineGpuMemory:
    """The total and available memory ollama's pasted `inference compute` lines give each NVIDIA GPU, once per GPU.

    Input (tests/data/captures/244, two of its four GPUs)::

        May 27 12:33:01 test-server ollama[233489]: time=2024-05-27T12:33:01.069Z level=INFO source=types.go:71 msg="inference compute" id=GPU-4effbf41-2d2b-123d-3e00-87b020bf6f2c library=cuda compute=6.1 driver=12.2 name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="7.8 GiB"
        May 27 12:33:01 test-server ollama[233489]: time=2024-05-27T12:33:01.069Z level=INFO source=types.go:71 msg="inference compute" id=GPU-d340a9a6-dd55-c0cc-2a5c-6400aa90cbef library=cuda compute=6.1 driver=12.2 name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="7.8 GiB"
    """
    seen: dict[str, FreeAtStart] = {}
    lines = text.splitlines()
    pooled = next((m for m in map(OLLAMA_POOLED_VRAM.search, lines) if m), None)
    for i, line in enumerate(lines):
        gpu, memory = OLLAMA_GPU.search(line), _OLLAMA_MEMORY.search(line)
        if gpu is not None and memory is not None and gpu.group(1) not in seen:
            seen[gpu.group(1)] = FreeAtStart(f"GPU {len(seen)} ({gpu.group(2)})", _mib(memory["total"], memory["tu"]),
                                             _mib(memory["free"], memory["fu"]), line.strip())
        data = _OLLAMA_MEMORY_DATA.search(line)
        # The readings may sit on the next line where the paste broke the line inside `before.total`.
        now = _OLLAMA_NOW.search(line)
        if now is None and data is not None and i + 1 < len(lines):
            now = _OLLAMA_NOW.search(lines[i + 1])
        if data is None or now is None or data.group(1) in seen:
            continue
        free, before = _mib(now["free"], now["fu"]), _mib(now["before"], now["bu"])
        seen[data.group(1)] = FreeAtStart(f"GPU {len(seen)} ({data.group(2)})", _mib(now["total"], now["tu"]), free,
                                          line.strip(), freed_mib=max(free - before, 0.0))
    if not seen and (ledger := _trtllm_ledger(lines)) is not None:
        return EngineGpuMemory(gpus=(ledger,), complete=False)
    if not seen and pooled is not None:
        return EngineGpuMemory(gpus=(FreeAtStart("every GPU ollama counted", None, float(pooled["free"]),
                                                 pooled.string.strip(), pooled=True),), complete=False)
    if not seen:
        raise ParseError('no ollama `msg="inference compute" ... total=... available=...` line, no `MB VRAM '
                         'available` line, no TensorRT-LLM memory ledger')
    return EngineGpuMemory(gpus=tuple(seen.values()), complete=False)


# ollama's ROCm discovery before 0.1.29 (gpu/gpu_info_rocm.c under OLLAMA_DEBUG, corpus 1543): each GPU's name, its
# memory and what is in use (`[0] ROCm totalMem 12868124672`, `[0] ROCm usedMem 16650240`, bytes, from ROCm's SMI
# library), `[1] ROCm integrated GPU` for an APU's, and the GPUs it then keeps (gpu/gpu.go: `msg="ROCm integrated GPU
# detected - ROCR_VISIBLE_DEVICES=0"`, the discrete GPUs only, leaving the integrated one out).
_ROCM_FIELD = re.compile(r"^\s*\[(\d+)\] ROCm (device name:|totalMem|usedMem) (\S.*?)\s*$")
_ROCM_KEPT = re.compile(r'msg="ROCm integrated GPU detected - ROCR_VISIBLE_DEVICES=([\d,]+)"')


def parse_ollama_rocm_memory(text: str) -> EngineGpuMemory:
    """Each GPU ollama's old ROCm discovery read (_ROCM_FIELD): its total and free memory, and the GPUs its pick leaves
    out (_ROCM_KEPT)."""
    fields: dict[int, dict[str, str]] = {}
    lines: dict[int, str] = {}
    for line in text.splitlines():
        if (m := _ROCM_FIELD.match(line)) is not None:
            fields.setdefault(int(m[1]), {})[m[2]] = m[3]
            if m[2] == "usedMem":
                lines[int(m[1])] = line.strip()
    kept = _ROCM_KEPT.search(text)
    visible = {int(i) for i in kept[1].split(",")} if kept else None
    gpus = [FreeAtStart(f"GPU {i} ({f.get('device name:', 'AMD GPU')})", int(f["totalMem"]) / 2**20,
                        (int(f["totalMem"]) - int(f["usedMem"])) / 2**20, lines[i],
                        left_out=f"ollama keeps the discrete GPUs only (`{kept[0]}`)"
                        if kept and visible is not None and i not in visible else "")
            for i, f in sorted(fields.items()) if f.get("totalMem", "").isdecimal() and f.get("usedMem", "").isdecimal()]
    if not gpus:
        raise ParseError("no ollama `[N] ROCm totalMem` and `usedMem` lines")
    return EngineGpuMemory(gpus=tuple(gpus), complete=False)


@provider("engine_gpu_memory", EngineGpuMemory, rank=12, title="ollama's ROCm discovery")
def engine_gpu_memory_from_ollama_rocm(ctx: FactContext) -> EngineGpuMemory:
    """The memory ollama's old ROCm discovery read on each AMD GPU, with its pick of GPUs from its server log.

    Input (tests/data/captures/1543)::

        [0] ROCm totalMem 12868124672
        [0] ROCm usedMem 16650240
    """
    try:
        evidence = ctx.host.doc(EVIDENCE_LINES.name)
    except NotCaptured as exc:
        raise FactUnavailable("no pasted lines of evidence") from exc
    try:
        log = ctx.host.doc(ENGINE_LOG.name)
    except NotCaptured:
        log = ""
    try:
        return parse_ollama_rocm_memory(evidence + "\n" + log)
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc


# TensorRT-LLM's executor memory ledger (facts/cuda_ran.py TRTLLM_LEDGER, py_executor_creator.py's error message): the GPU's total above, then each component it
# created with the free memory before and after it, the model first: `Total GPU memory (GiB): 95.00`,
# `Previously created components and free GPU memory before/after creation (GiB):`, `Model: 94.30 / 47.83`.
TRTLLM_LEDGER_TOTAL = re.compile(r"^\s*Total GPU memory \(GiB\): ([\d.]+)\s*$")
TRTLLM_LEDGER_HEAD = re.compile(r"^\s*Previously created components and free GPU memory before/after creation \(GiB\):\s*$")
TRTLLM_LEDGER_ROW = re.compile(r"^\s*([A-Z][\w ()-]*): ([\d.]+) / ([\d.]+)\s*$")


def trtllm_ledger_span(lines: Sequence[str], i: int) -> tuple[int, int]:
    """The lines of TensorRT-LLM's memory ledger around its `Free GPU memory before component creation attempt` line
    at `i`: its `Total GPU memory` line just above, and below it (a blank line allowed) the list of components created
    with their free memory before and after; (i, i + 1) where neither is there."""
    start = i - 1 if i and TRTLLM_LEDGER_TOTAL.match(lines[i - 1]) else i
    end = i + 1
    at = end + 1 if end < len(lines) and not lines[end].strip() else end
    if at < len(lines) and TRTLLM_LEDGER_HEAD.match(lines[at]):
        at += 1
        while at < len(lines) and TRTLLM_LEDGER_ROW.match(lines[at]):
            at += 1
        end = at
    return start, end



def _trtllm_ledger(lines: list[str]) -> FreeAtStart | None:
    """The free memory TensorRT-LLM's executor ledger shows before its first component (the model) on its GPU, with
    the GPU's total (TRTLLM_LEDGER_TOTAL, TRTLLM_LEDGER_ROW): what was free when the engine began
    placing its own memory. None where the ledger's total or its component list is not shown.

    Input (tests/data/captures/1060)::

        Total GPU memory (GiB): 95.00
        Free GPU memory before component creation attempt (GiB): 16.95
        Previously created components and free GPU memory before/after creation (GiB):
        Model: 94.30 / 47.83
    """
    total = next((m for m in map(TRTLLM_LEDGER_TOTAL.match, lines) if m), None)
    head = next((i for i, line in enumerate(lines) if TRTLLM_LEDGER_HEAD.match(line)), None)
    row = lines[head + 1] if head is not None and head + 1 < len(lines) else ""
    first = TRTLLM_LEDGER_ROW.match(row)
    if total is None or first is None:
        return None
    return FreeAtStart("the engine's GPU", float(total.group(1)) * 1024, float(first.group(2)) * 1024, row.strip())


# SGLang's log lines per rank (python/sglang/srt/model_executor/model_runner.py): `Init torch distributed ends.
# [elapsed=0.32 s, ]mem usage=0.39 GB` (what its own NCCL init took), then `Load weight begin. avail mem=94.01 GB` (the
# free memory before the weights, from torch.cuda.mem_get_info: GiB despite the "GB"). The tag is the time and the
# rank (`[2025-10-16 09:06:10 TP5]`, `[2026-01-20 02:40:16 DP1 TP1]`), after any prefix a log collector adds; a
# single-rank server prints no rank.
_SGLANG_RANK = r"\[(?:[\d-]+ )?[\d:]+(?: (?P<rank>[A-Z]+\d+(?: [A-Z]+\d+)*))?\] "
_SGLANG_FREE = re.compile(_SGLANG_RANK + r"Load weight begin\. avail mem=(?P<free>[\d.]+) GB\s*$")
_SGLANG_INIT = re.compile(_SGLANG_RANK + r"Init torch distributed ends\. (?:elapsed=[\d.]+ s, )?"
                          r"mem usage=(?P<own>[\d.]+) GB")
# vLLM's refusal to start (vllm/v1/worker: the memory snapshot taken when its worker opens the GPU), the device named
# since 0.10: `Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization`.
_VLLM_STARTUP = re.compile(r"\bFree memory on device(?: (?P<dev>[\w:]+))? \((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) "
                           r"on startup is less than\b")
# vLLM's memory-profiling assertion (its worker, 0.7 on: the free memory of the snapshot taken as the worker opened the
# GPU, then after profiling): `Error in memory profiling. Initial free memory 23.4375 GiB, current free memory 23.4375
# GiB.` (corpus 2736); the v0 worker wrote bytes (`Initial free memory 25165824000, current free memory ...`). No total.
_VLLM_PROFILED = re.compile(r"\bError in memory profiling\. Initial free memory (?P<free>\d+(?:\.\d+)?)(?P<gib> GiB)?,")


@parser(ENGINE_LOG, feeds="engine_gpu_memory", kind=EngineGpuMemory, rank=11)
def engine_gpu_memory_from_engine_log(text: str) -> EngineGpuMemory:
    """The memory each SGLang rank found free when it began loading weights (with what its own distributed init
    took), the free and total memory vLLM found when it refused to start, the free memory its profiling assertion
    found at start (_VLLM_PROFILED), or the memory llama.cpp found free on the
    device it loads the model on (GGML_USING_DEVICE), or the total and free memory llama-server's `--list-devices`
    prints for each device (GGML_LIST_DEVICE; a device whose free exceeds its total, unified memory, is left out),
    once per rank or device; with HAMi-core's first line in the log (HAMI_CORE_LINE), under which the free memory is
    the pod's share.

    SGLang's lines do not give the GPU's total memory: what else held memory is settled only with the total.
    llama.cpp's line names the device's product: its total is the GPU table's nominal memory for that name, where the
    table pins the name to one size (gputable.nominal_memory_gib). NVML reports a little less than the nominal size,
    so the memory read as held is at most overstated by that reserve, never understated.

    Input (tests/data/captures/526, two of its eight ranks)::

        [2025-10-16 09:06:09 TP7] Init torch distributed ends. mem usage=1.77 GB
        [2025-10-16 09:06:09 TP6] Init torch distributed ends. mem usage=2.01 GB
        [2025-10-16 09:06:10 TP6] Load weight begin. avail mem=137.29 GB
        [2025-10-16 09:06:10 TP7] Load weight begin. avail mem=137.52 GB
    """
    own = {m["rank"] or "TP0": float(m["own"]) * 1024 for m in map(_SGLANG_INIT.search, text.splitlines()) if m}
    seen: dict[str, FreeAtStart] = {}
    for line in text.splitlines():
        if (m := _SGLANG_FREE.search(line)) is not None and (rank := m["rank"] or "TP0") not in seen:
            seen[rank] = FreeAtStart(rank, None, float(m["free"]) * 1024, line.strip(), own.get(rank))
        elif (m := _VLLM_STARTUP.search(line)) is not None and (dev := m["dev"] or "the engine's GPU") not in seen:
            seen[dev] = FreeAtStart(dev, float(m["total"]) * 1024, float(m["free"]) * 1024, line.strip(), refused=True)
        elif (m := _VLLM_PROFILED.search(line)) is not None and "the engine's GPU" not in seen:
            free = float(m["free"]) * 1024 if m["gib"] else float(m["free"]) / 2**20
            seen["the engine's GPU"] = FreeAtStart("the engine's GPU", None, free, line.strip())
        elif (m := GGML_USING_DEVICE.search(line)) is not None and (dev := f"{m['dev']} ({m['name']})") not in seen:
            total = nominal_memory_gib(m["name"])
            seen[dev] = FreeAtStart(dev, total * 1024 if total is not None else None, float(m["free"]), line.strip())
        elif ((m := GGML_LIST_DEVICE.match(line)) is not None and (dev := f"{m['dev']} ({m['name']})") not in seen
              and int(m["free"]) <= int(m["total"])):
            seen[dev] = FreeAtStart(dev, float(m["total"]), float(m["free"]), line.strip())
        elif (m := OLLAMA_SINGLE_GPU.search(line)) is not None and (dev := f"{m['dev']} ({m['name']})") not in seen:
            total = nominal_memory_gib(m["name"])
            seen[dev] = FreeAtStart(dev, total * 1024 if total is not None else None, _mib(m["free"], m["fu"]),
                                    line.strip())
    if not seen:
        raise ParseError("no SGLang `Load weight begin. avail mem=` line, no vLLM `Free memory on device ... on "
                         "startup` line, no llama.cpp `using device CUDA0 (...) - N MiB free` nor `CUDA0: NAME (T MiB, F MiB free)` line")
    vgpu = next((line.strip() for line in text.splitlines() if HAMI_CORE_LINE.search(line)), "")
    return EngineGpuMemory(gpus=tuple(seen.values()), complete=False, vgpu_line=vgpu[:300])


# Builds of llama.cpp since 2026 add each device's total and free memory to its `ggml_cuda_init` line: `Device 0:
# NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes, VRAM: 24126 MiB (23863 MiB free)` (corpus 1796), the
# memory cudaMemGetInfo gave when the backend started, before the model's load.
GGML_INIT_VRAM = re.compile(r"\bDevice (?P<idx>\d+): (?P<name>[^,]+), compute capability \d+\.\d+, VMM: (?:yes|no), "
                            r"VRAM: (?P<total>\d+) MiB \((?P<free>\d+) MiB free\)")


@parser(GGML_CUDA_DEVICES, feeds="engine_gpu_memory", kind=EngineGpuMemory, rank=14)
def engine_gpu_memory_from_ggml_init(text: str) -> EngineGpuMemory:
    """The total and free memory llama.cpp's `ggml_cuda_init` device lines give each device (GGML_INIT_VRAM), once
    per device; a device whose free exceeds its total (unified memory) is left out.

    Input (tests/data/captures/1796)::

        ggml_cuda_init: found 1 CUDA devices (Total VRAM: 24126 MiB):
          Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes, VRAM: 24126 MiB (23863 MiB free)
    """
    seen: dict[str, FreeAtStart] = {}
    for line in text.splitlines():
        if (m := GGML_INIT_VRAM.search(line)) is not None and int(m["free"]) <= int(m["total"]) \
                and (dev := f"CUDA{m['idx']} ({m['name'].strip()})") not in seen:
            seen[dev] = FreeAtStart(dev, float(m["total"]), float(m["free"]), line.strip())
    if not seen:
        raise ParseError("no `ggml_cuda_init` device line with its `VRAM: T MiB (F MiB free)`")
    return EngineGpuMemory(gpus=tuple(seen.values()), complete=False)


# torch's CUDA out-of-memory message since 2.1 (c10/cuda/CUDACachingAllocator.cpp; `capacty` before 2.2): the GPU's
# total and free memory, each process NVML lists on it (`Process 2218444 has 75.15 GiB memory in use.`; this process
# as `Including non-PyTorch memory, this process has 3.18 GiB memory in use.` where its PID matches NVML's, which it
# does not inside a container), then what this process's caching allocator holds. Sizes as torch's format_size
# prints them (B, KiB, MiB, GiB); the sentences may be broken over lines.
_SIZE = r"([\d.]+) ([KMG]iB|bytes|B)"
_TORCH_OOM_HEAD = re.compile(r"(?:\bTried to allocate " + _SIZE + r"\.\s+)?\bGPU (\d+) has a total "
                             r"capac(?:i)?ty of " + _SIZE + r" of which " + _SIZE + r" is free\.")
_TORCH_OOM_PROCESS = re.compile(r"\s*(?:Process (\d+)|Including non-PyTorch memory, (this process)) has " + _SIZE
                                + r" memory in use\.")
_TORCH_OOM_OWN = re.compile(r"\s*Of the allocated memory " + _SIZE + r" is allocated by PyTorch, and " + _SIZE
                            + r" is reserved by PyTorch but unallocated\.")
# The same message from torch 1.4 to 2.0, in one parenthesis: `CUDA out of memory. Tried to allocate 448.00 MiB (GPU 0;
# 23.65 GiB total capacity; 19.91 GiB already allocated; 265.81 MiB free; 19.91 GiB reserved in total by PyTorch)`
# (corpus 2257). The total and free memory are cudaMemGetInfo's through the process's live context, as since 2.1; a
# fraction set with set_per_process_memory_fraction adds `N allowed; ` before the reserve, which is all this process's
# allocator holds (allocated blocks included). It names no process; a paste may break it between words. Anchored on
# `CUDA out of memory`: other backends' forks print the same parenthesis (`MUSA out of memory`, `NPU out of memory`).
TORCH_OOM_OLD = re.compile(r"\bCUDA out of memory\. Tried to allocate " + _SIZE + r"\s+\(GPU (\d+);\s+" + _SIZE
                           + r"\s+total\s+capacity;\s+" + _SIZE + r"\s+already\s+allocated;\s+" + _SIZE
                           + r"\s+free;(?:\s+" + _SIZE + r"\s+allowed;)?\s+" + _SIZE
                           + r"\s+reserved\s+in\s+total\s+by\s+PyTorch\)")


@dataclass(frozen=True, kw_only=True)
class GpuOutOfMemory(Sourced):
    """torch's out-of-memory message (the last in the source): the GPU's memory and who held it as torch saw it."""

    gpu: int
    asked_mib: float | None  # `Tried to allocate`, where the paste keeps it
    total_mib: float
    free_mib: float
    # Each process the message names with its memory in use: (PID, MiB), "this process" for torch's own where its PID
    # matched NVML's.
    processes: tuple[tuple[str, float], ...] = ()
    # What this process's caching allocator holds: allocated by PyTorch, plus reserved but unallocated; None where
    # the message stops before it.
    allocator_mib: float | None = None
    line: str = ""

    @property
    def own_mib(self) -> float | None:
        """This process's memory in use: the message's `this process`, else the one process it names whose memory is
        the allocator's holding and at most a CUDA context's more (inside a container NVML's PID is the host's, so
        torch names its own process by number); None where the message does not show it."""
        mine = [mib for pid, mib in self.processes if pid == "this process"]
        if mine:
            return mine[0]
        if len(self.processes) == 1 and self.allocator_mib is not None \
                and 0.0 <= self.processes[0][1] - self.allocator_mib <= _OOM_CONTEXT_MIB:
            return self.processes[0][1]
        return None

    @property
    def others_holding(self) -> tuple[tuple[str, float], ...]:
        """The processes the message names that hold more than a CUDA context (_OOM_CONTEXT_MIB) and are not this
        process: another program's allocations on the GPU. Where torch does not name its own (`this process`), one
        of those holding so much is taken as its own, the rest as others: the message does not say which is which,
        and one process is the engine's. Processes holding a context or less (an engine's other ranks or its
        front end keep one on GPU 0) are not counted."""
        large = [(pid, mib) for pid, mib in self.processes if mib > _OOM_CONTEXT_MIB]
        if any(pid == "this process" for pid, _ in self.processes):
            return tuple(p for p in large if p[0] != "this process")
        large.sort(key=lambda p: p[1])
        return tuple(large[:-1])


# A CUDA context beside what torch's allocator holds: a few hundred MiB (563 MiB on an H100 under torch 2.1, corpus
# 1523: 75.15 GiB in use for 73.66 allocated and 963.77 MiB reserved); at most this much.
_OOM_CONTEXT_MIB = 1536.0

fact("gpu_oom", GpuOutOfMemory, hint="paste the whole out-of-memory message")


def parse_torch_oom(text: str) -> GpuOutOfMemory:
    """The last torch out-of-memory message of the text, with the processes it names and its allocator's holding.

    Input (tests/data/captures/1523)::

        torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 11.32 GiB. GPU 0 has a total capacty of 79.14 GiB of which 3.98 GiB is free. Process 2218444 has 75.15 GiB memory in use. Of the allocated memory 73.66 GiB is allocated by PyTorch, and 963.77 MiB is reserved by PyTorch but unallocated.
    """
    heads = list(_TORCH_OOM_HEAD.finditer(text))
    olds = list(TORCH_OOM_OLD.finditer(text))
    if not heads and not olds:
        raise ParseError("no torch out-of-memory message (`GPU N has a total capacity of ... of which ... is free`, "
                         "before torch 2.1 `(GPU N; ... total capacity; ... free; ...)`)")
    if olds and (not heads or olds[-1].start() > heads[-1].start()):
        return _torch_oom_before_2_1(text, olds[-1])
    head = heads[-1]
    pos = head.end()
    processes: list[tuple[str, float]] = []
    while (m := _TORCH_OOM_PROCESS.match(text, pos)) is not None:
        processes.append((m.group(1) or "this process", _mib(m.group(3), m.group(4))))
        pos = m.end()
    own = _TORCH_OOM_OWN.match(text, pos)
    allocator = _mib(own.group(1), own.group(2)) + _mib(own.group(3), own.group(4)) if own else None
    start = text.rfind("\n", 0, head.start()) + 1
    return GpuOutOfMemory(gpu=int(head.group(3)), asked_mib=_mib(head.group(1), head.group(2)) if head.group(1) else None,
                          total_mib=_mib(head.group(4), head.group(5)),
                          free_mib=_mib(head.group(6), head.group(7)), processes=tuple(processes),
                          allocator_mib=allocator, line=" ".join(text[start:own.end() if own else pos].split()),
                          complete=False)


def _torch_oom_before_2_1(text: str, m: re.Match[str]) -> GpuOutOfMemory:
    """torch's out-of-memory message before 2.1 (TORCH_OOM_OLD): the GPU's memory and its allocator's reserve; no
    process named."""
    start = text.rfind("\n", 0, m.start()) + 1
    return GpuOutOfMemory(gpu=int(m.group(3)), asked_mib=_mib(m.group(1), m.group(2)),
                          total_mib=_mib(m.group(4), m.group(5)), free_mib=_mib(m.group(8), m.group(9)),
                          allocator_mib=_mib(m.group(12), m.group(13)), line=" ".join(text[start:m.end()].split()),
                          complete=False)


@parser(EVIDENCE_LINES, feeds="gpu_oom", kind=GpuOutOfMemory, rank=10)
def gpu_oom_in_evidence_lines(text: str) -> GpuOutOfMemory:
    """torch's out-of-memory message among pasted evidence lines (parse_torch_oom).

    Input (tests/data/captures/1523)::

        torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 11.32 GiB. GPU 0 has a total capacty of 79.14 GiB of which 3.98 GiB is free. Process 2218444 has 75.15 GiB memory in use. Of the allocated memory 73.66 GiB is allocated by PyTorch, and 963.77 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
    """
    return parse_torch_oom(text)


@parser(ENGINE_LOG, feeds="gpu_oom", kind=GpuOutOfMemory, rank=11)
def gpu_oom_in_engine_log(text: str) -> GpuOutOfMemory:
    """torch's out-of-memory message in an engine's log (parse_torch_oom).

    Input (tests/data/captures/1523)::

        torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 11.32 GiB. GPU 0 has a total capacty of 79.14 GiB of which 3.98 GiB is free. Process 2218444 has 75.15 GiB memory in use. Of the allocated memory 73.66 GiB is allocated by PyTorch, and 963.77 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
    """
    return parse_torch_oom(text)


# ggml's Metal backend adding a buffer past the GPU's budget (ggml-metal.m, ggml_metal_add_buffer; from 2024
# ggml_backend_metal_log_allocated_size): `allocated 'scr1' buffer, size = 256.00 MB, (23984.91 / 21845.34),
# warning: current allocated size is greater than the recommended max working set size` (ollama/ollama#434, corpus
# 1546; MiB since 2024, ggml-org/llama.cpp#5206). The pair is the Metal device's currentAllocatedSize, which counts
# this process's own resources only (an MTLDevice object is the process's), over its recommendedMaxWorkingSetSize,
# the memory macOS lets the GPU wire (https://developer.apple.com/documentation/metal/mtldevice). Locales with a
# decimal comma print `(120024,09 / 73728,00)` (ggml-org/llama.cpp#3213).
_METAL_OVER = re.compile(r"\b(?:ggml_metal_add_buffer|ggml_backend_metal_log_allocated_size): allocated .*?"
                         r"\(\s*(?P<own>\d+(?:[.,]\d+)?) / \s*(?P<limit>\d+(?:[.,]\d+)?)\), ?warning: current allocated "
                         r"size is greater than the recommended max working set size")
# The work that then fails on the device: `ggml_metal_graph_compute: command buffer 8 failed with status 5`
# (MTLCommandBufferStatusError) and ggml's assertion in ggml-metal.m.
_METAL_FAILED = re.compile(r"\bcommand buffer \d+ failed with status \d+|\bGGML_ASSERT: \S*ggml-metal\.m:\d+")


@dataclass(frozen=True, kw_only=True)
class MetalWorkingSet(Sourced):
    """ggml's Metal backend holding more of its own than the GPU's recommended working set (its last such line)."""

    own_mib: float  # the process's own Metal allocations (currentAllocatedSize)
    limit_mib: float  # recommendedMaxWorkingSetSize
    line: str
    failed: str = ""  # the device work that then failed, "" where the source shows none


fact("metal_working_set", MetalWorkingSet, hint="paste ggml's `ggml_metal_init` and buffer lines")


def parse_metal_working_set(text: str) -> MetalWorkingSet:
    """ggml's last Metal buffer line over the working set (_METAL_OVER), with the failure after it (_METAL_FAILED)."""
    over = list(_METAL_OVER.finditer(text))
    if not over:
        raise ParseError("no ggml Metal buffer line past the recommended max working set size")
    m = over[-1]
    start = text.rfind("\n", 0, m.start()) + 1
    failed = _METAL_FAILED.search(text, m.end())
    return MetalWorkingSet(own_mib=float(m["own"].replace(",", ".")), limit_mib=float(m["limit"].replace(",", ".")),
                           line=text[start:m.end()].strip(), failed=failed.group(0) if failed else "", complete=False)


@parser(EVIDENCE_LINES, feeds="metal_working_set", kind=MetalWorkingSet, rank=10)
def metal_working_set_in_evidence_lines(text: str) -> MetalWorkingSet:
    """ggml's Metal buffer line past the GPU's working set among pasted evidence lines.

    Input (tests/data/captures/1546)::

        ggml_metal_add_buffer: allocated 'scr1            ' buffer, size =   256.00 MB, (23984.91 / 21845.34), warning: current allocated size is greater than the recommended max working set size
        ggml_metal_graph_compute: command buffer 8 failed with status 5
    """
    return parse_metal_working_set(text)


@parser(ENGINE_LOG, feeds="metal_working_set", kind=MetalWorkingSet, rank=11)
def metal_working_set_in_engine_log(text: str) -> MetalWorkingSet:
    """ggml's Metal buffer line past the GPU's working set in an engine's log (parse_metal_working_set).

    Input (https://github.com/ggml-org/llama.cpp/issues/3213)::

        ggml_metal_add_buffer: allocated 'kv              ' buffer, size =    82,00 MB, (120107,58 / 73728,00), warning: current allocated size is greater than the recommended max working set size
    """
    return parse_metal_working_set(text)


# A count and a model as people write them: `8 x A10G`, `8xA100 80GB`, `1 × NVIDIA H100 80GB HBM3`, `8 cards 4090`,
# `4 GPUs of L40S`, `4 A100 GPUs`, a count before the brand (`only 1 nvidia 4090`, abetlen/llama-cpp-python#1026),
# then the model first: `A100 * 8`, `GPU: 5090 *8`. The words next to the count are tried against the GPU table, the
# longest first.
_COUNT_BEFORE = re.compile(r"(?<![\w.:+-])([1-9]\d?)\s*(?:[x×*]|(?=\s+(?:cards?|GPUs?|NVIDIA)\b))\s*(?:(?:cards?|GPUs?)\s+)?"
                           r"(?:of\s+)?(?=\S)", re.I)
# The count after the model also in brackets, as an issue template's answer puts it: `GPU used: Nvidia H200 (8 GPUs)`
# (vllm-project/vllm#13412, corpus 1052); the bracket may say they are the ones at hand: `Platform: GCP VM with A100 (1
# GPU available)` (huggingface/trl#3158, corpus 2365).
# The count after the model as a title says a machine, glued to its noun: `A100 8card` (InternLM/lmdeploy#329, corpus
# 1357), `A100 8cards`.
# The count after the model and before its noun, apart: `i used cmd with A10 4 cards` (huggingface/text-generation-
# inference#814, corpus 1637), `A100 8 GPUs`.
# The count after the model and the host's noun: `Kubernetes Pod running on A10G Host with 8 GPU Cards` (vllm-project/
# vllm#878, corpus 1664), `an H100 node with 8 GPUs`.
_COUNT_AFTER = re.compile(r"\s*(?:[x×*]\s*([1-9]\d?)(?![\w.])|\(\s*([1-9]\d?)\s*(?:[x×*]\s*)?(?:GPUs?|cards?)(?:\s+available)?\s*\))"
                          r"|\s+([1-9]\d?)cards?\b|\s+([1-9]\d?)\s+(?:cards|GPUs)\b"
                          r"|\s+(?:host|node|server|machine|instance|box|workstation)\s+with\s+([1-9]\d?)\s+(?:GPU\s+)?"
                          r"(?:cards|GPUs)\b", re.I)
# A model the words compare the host's with (`faster than an A100 server with 8 GPUs`, `vs A100 8 GPUs`): not the
# host's, read before a count after its model.
_COMPARED = re.compile(r"\b(?:than|vs\.?|versus|compared\s+(?:to|with)|unlike|like)\s+(?:\S+\s+){0,3}\S+\s*$", re.I)
# A count in a word before the brand, or in digits before a GeForce model number glued to its series, as people list
# a desktop's cards: `Two NVIDIA GeForce RTX 5090` (NVIDIA/TensorRT-LLM#2864, corpus 1629), `a machine with two RTX
# 5090 GPUs` (vllm-project/vllm#14628), `on 2 RTX4090`
# (NVIDIA/TensorRT-LLM#395, corpus 1625). `dual` counts two (`I have dual rtx 3090`, mlc-ai/mlc-llm#2492, corpus 1824;
# `Dual RTX 3090 on X570`, `dual NVIDIA A6000`). The brand or series must follow the count at once. A GKE accelerator
# name counts the same way (`with four \`nvidia-tesla-t4\``, huggingface/text-generation-inference#1168, corpus 2796), the
# model read from its words (_model_in, as gpus_from_node_selector reads the label).
_COUNT_BRAND = re.compile(r"(?<![\w.:+-])(two|three|four|five|six|seven|eight|dual)\s+"
                          r"(?=(?:NVIDIA|GeForce|RTX|GTX|Tesla|Quadro)\s+\S|`?nvidia-[a-z]+\d*\S*`?(?:\s|$))"
                          r"|(?<![\w.:+-])([1-9]\d?)\s+(?=(?:RTX|GTX)\d{4}\b)", re.I)
_AT_LEAST = re.compile(r"\b(?:at least|up to|more than|over)\s+$", re.I)
# One GPU named with an article before the brand word, as people describe a desktop: `on an NVIDIA RTX 3060 12 GB VRAM
# and an AMD Ryzen 9 7900` (ggml-org/llama.cpp#12237, corpus 1054). The model must follow the brand word at once, and
# a machine word after it (`an NVIDIA H100 node`, `a NVIDIA A100 server`) names a host of GPUs, not one.
_ONE_BEFORE = re.compile(r"(?<![\w.:+-])(?:an?|one|a\s+single)\s+NVIDIA\s+(?=\S)", re.I)
_MACHINE_AFTER = re.compile(r"^(?:\S+\s+){1,4}?(?:nodes?|servers?|machines?|clusters?|box(?:es)?|instances?|systems?|hosts?"
                            r"|pods?|VMs?|rigs?|boards?|baseboards?)\b", re.I)
_MODEL_FIRST = re.compile(r"(?<![\w.:+-])([1-9]\d?)\s+(?=(?:NVIDIA\s+)?[\w-]+(?:\s+[\w-]+){0,2}\s+(?:GPUs|cards)\b)",
                          re.I)
# The first person's count of the cards they own before the model and the noun, which may be singular as in
# _OWNED_COUNT (`I have 4 tesla M40 24GB gpu,`, ollama/ollama#5497, corpus 2718).
_OWNED_MODEL_COUNT = re.compile(r"\bI(?:\s+have|\s+own|'ve\s+got)\s+([1-9]\d?)\s+"
                                r"(?=(?:NVIDIA\s+)?[\w-]+(?:\s+[\w-]+){0,2}\s+(?:GPUs?|cards?)\b)", re.I)
# A count before a model number in the plural, as people write a set of cards: `4 A10Gs`, `2 RTX 3090s`, `4x 3090s`
# (vllm-project/vllm#9373: "I have 4 A10Gs"). The plural word holds a digit (a model number), so `4 GPUs` and `16
# cores` are none of these.
_COUNT_PLURAL = re.compile(r"(?<![\w.:+-])([1-9]\d?)\s*(?:[x×*]\s*)?((?:[A-Za-z]+\s+){0,2}[A-Za-z]*\d\w*?)s\b")
# A count with a Chinese measure word for cards before the model: `1张A100-80GB` (kvcache-ai/ktransformers#634, corpus
# 2482), `8卡2080ti` (InternLM/lmdeploy#2127, corpus 1674), `我的设备上有4块4090` (corpus 709). Chinese runs its words
# together, so a CJK character may stand right before the count (not a Latin letter, digit or dot), and the model
# (a letter or a model number of three digits or more first) ends where CJK text starts again (`4块4090显卡`).
# The count may be a Chinese numeral (`两张A800`, corpus 2683; _CJK_COUNTS).
_CJK_COUNTS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8}
_COUNT_MEASURE = re.compile(r"(?<![A-Za-z0-9_.:+-])([1-9]\d?|[一二两三四五六七八])\s*[张块卡]\s*(?=[A-Za-z]|\d{3})")
_CJK_RUN = re.compile(r"[\u3000-\u9fff\uff00-\uffef].*")
# A count before a data-centre model and that model's memory, as people list a machine's resources: `- resources: 4 A10
# (each with 24G)` (vllm-project/vllm#8879, corpus 1972), `8 H100 80GB` (a cluster's node in a README), `2 A100 80G`.
# The memory must be the model's own (gputable's nominal size): a count and a model alone (`4 A10`) may be anything.
_COUNT_MODEL_MEMORY = re.compile(r"(?<![\w.:+-])([1-9]\d?)\s+(?:NVIDIA\s+)?([A-Z]{1,2}\d{1,4}[A-Z]?)\s*(?:\(\s*)?"
                                 r"(?:each\s+(?:with\s+)?)?(\d{2,3})\s?G(?:B|iB)?\b", re.I)


# A model the GPU table lacks, named with the brand and then its compute capability (`8× NVIDIA B30Z, compute capability
# **(10, 3)** / sm_103`, sgl-project/sglang#34340, corpus 2762): a GPU of that capability (gputable.capability_name), which
# is what the checks read of a model.
_BRANDED_UNLISTED = re.compile(r"^NVIDIA\s+[A-Z][\w-]{1,15},?\s+(?=.{0,40}\b(?:compute capability|sm_?\d))", re.I)


def _unlisted_model(after: str) -> str:
    """The model the words after a count name by the capability they state (_BRANDED_UNLISTED); "" otherwise."""
    cap = stated_capability(after[:120]) if _BRANDED_UNLISTED.match(after) else ""
    return capability_name(cap) if cap else ""


def _count_model_memory(line: str) -> list[tuple[int, str]]:
    """The (count, model) pairs of _COUNT_MODEL_MEMORY on a line, where the memory is the model's own."""
    said: list[tuple[int, str]] = []
    for m in _COUNT_MODEL_MEMORY.finditer(line):
        memory = m.group(3)
        model = _model_in([m.group(2), memory + "GB"]) or _model_in([m.group(2)])
        nominal = nominal_memory_gib(model) if model else None
        if model and (nominal == float(memory) or re.search(rf"\b{memory}GB\b", model)):
            said.append((int(m.group(1)), model))
    return said


# NVIDIA DGX systems, each built with one set of GPUs (the user guides' hardware overviews):
# https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html (8 A100 SXM4, 40 or 80 GB),
# https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html (8 H100 or H200 SXM),
# https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html (8 B200),
# https://docs.nvidia.com/dgx/dgx-spark/hardware.html (one GB10 Grace Blackwell superchip: its one integrated GPU, named
# `NVIDIA GB10` by nvidia-smi and CUDA).
DGX_SYSTEMS = (
    (re.compile(r"\bDGX[- ]?A100(?:[\s-]+(40|80)\s?GB)?\b", re.I), 8, "A100 SXM4 {}GB", "A100"),
    (re.compile(r"\bDGX[- ]?H100\b", re.I), 8, "H100 SXM", "H100 SXM"),
    (re.compile(r"\bDGX[- ]?H200\b", re.I), 8, "H200 SXM", "H200 SXM"),
    (re.compile(r"\bDGX[- ]?B200\b", re.I), 8, "B200", "B200"),
    (re.compile(r"\bDGX[- ]?Spark\b", re.I), 1, "NVIDIA GB10", "NVIDIA GB10"),
)


def _model_in(tokens: list[str], backwards: bool = False) -> str:
    """The model the GPU table names by the first (or last) words, the longest match, else a model number the
    table lacks after its family's brand word (`GeForce RTX 2080`); "" when none.

    Only a row's own name or alias (as `lookup` matches them exactly), or a name the table declares ambiguous (`A100
    40GB`, kept in the user's words for the checks to resolve with its note): a word that several rows merely
    contain (`4`, `200Gb`) is none.
    """
    # The vendor's name before a brand word takes none of the model's words (`NVIDIA GeForce RTX 4060 Ti 16GB` is the
    # 4060 Ti, not the 4060); a model has up to five (`RTX PRO 6000 Blackwell Max-Q`).
    if not backwards and len(tokens) > 1 and tokens[0].lower() == "nvidia" and tokens[1][:1].isalpha():
        tokens = tokens[1:]
    # A GeForce suffix glued to its number (`2 x 2080Ti GPUs`, corpus 626) is the table's `2080 Ti`; a memory size
    # glued to the model by a hyphen (`4x A40-48G`, corpus 1720) is the model's next word.
    words = " ".join(_GLUED_MEMORY.sub(r"\1 \2", t) for t in (tokens[-5:] if backwards else tokens[:5])).split()
    # A GeForce brand glued to its number (`Using RTX4070,`, corpus 2418) is the table's `RTX 4070`.
    words = " ".join(re.sub(r"^((?:RTX|GTX))(?=\d{3,4}(?:Ti)?\W*$)", r"\1 ", w, flags=re.I) for w in words).split()
    # No GeForce card of the 20 to 50 series is a GTX: `GTX 3090` (huggingface/text-embeddings-inference#208, corpus
    # 2668) is the RTX 3090 with its series' old word.
    words = _GTX_AS_RTX.sub("RTX ", " ".join(words)).split()
    # An RTX A-series workstation card without its brand (`4 A5000 GPUS`, ikawrakow/ik_llama.cpp, corpus 2827): no
    # other NVIDIA GPU is named `A` and four digits (the data-centre A-series has one to three).
    # The Ada workstation boards in the user's shorthand (`ADA 6000s`, `RTX 6000 Adas`, `A6000 Ada`, `6000 Ada`:
    # _ADA_SHORTHAND) first, before the bare `A6000` reads as the Ampere RTX A6000.
    words = _ADA_SHORTHAND.sub(lambda m: f"RTX {m.group(1) or m.group(2)} Ada", " ".join(words)).split()
    words = _BARE_RTX_A.sub(r"RTX \1", " ".join(words)).split()
    # So is one before a sentence's full stop (`on Nvidia RTX 4060Ti.`, corpus 2567).
    tokens = [re.sub(r"^(\d{3,4})(Ti)(?=[.,;:]?$)", r"\1 \2", re.sub(r"^(\d+)G$", r"\1GB", t, flags=re.I), flags=re.I)
              for t in words]
    for n in range(len(tokens), 0, -1):
        text = " ".join(tokens[-n:] if backwards else tokens[:n]).strip(",;:()")
        # A vGPU guest's device named after its profile (`GPU:GRID T4-4Q`, corpus 2830; `NVIDIA A10-24Q` with the
        # vendor word dropped above): the name NVML gives it, which the GPU table reads by its board (board_words).
        profile = text if VGPU_PROFILE.match(text) else f"NVIDIA {text}"
        if _vgpu_profile(profile):
            return profile
        # The brand word first is the user's, not nvidia-smi's: `Nvidia H200` is the ambiguous `H200` (SXM or NVL),
        # not the H200 SXM whose nvidia-smi name it spells (corpus 1050, 1052).
        bare = _BRAND_FIRST.sub("", text)
        if text and (name := (bare != text and exact_name(bare)) or exact_name(text)
                     or exact_name(_FORM_FIRST.sub(r"\2 \1", text))):
            return name
    for n in range(len(tokens), 0, -1):  # a model the table lacks, named with its line's brand word
        # The vendor's name before a brand word is no part of the model (`Nvidia RTX 4060 Ti`), nor a sentence's full
        # stop; before a bare number it stays (`NVIDIA 4060` is no model the brand route names).
        text = " ".join(tokens[-n:] if backwards else tokens[:n]).strip(",;:().")
        text = _BRAND_FIRST.sub("", text) if re.match(r"NVIDIA\s+[A-Z]", text, re.I) else text
        if not backwards and n < len(tokens) and _SERIES_WORD.match(tokens[n]):
            continue  # `RTX 4000 series`: a product series, no model
        if titan := _TITAN_MODEL.match(text):
            return f"TITAN {_TITAN_SUFFIX[titan.group(1).lower()]}"
        if MINING_BOARD.match(text):
            return text
        if tesla := _TESLA_MODEL.match(text):
            return f"Tesla {tesla.group(1).upper()}{tesla.group(2)}"
        if _BRANDED_MODEL.search(text) and brand_family(text) is not None and not re.match(r"(?:x|of)\s", text, re.I):
            return text
    return ""


_BRAND_FIRST = re.compile(r"^NVIDIA\s+(?=\S)", re.I)
_GTX_AS_RTX = re.compile(r"\bGTX\s+(?=[2-5]0[5-9]0\b)", re.I)
# An Ada Lovelace workstation board as users shorten it: the number with `Ada` after or before it, in the plural, with an
# `A` borrowed from the Ampere RTX A6000's name (`10 x ADA 6000s`, exllamav2#571, corpus 2906; `RTX 6000 Adas`, `A6000
# Ada`, `Ada A6000`, `6000 Ada`). NVML names these boards `NVIDIA RTX <number> Ada Generation` (RTX 2000 to 6000 and
# the 5880); `Ada` beside the number names that line, never Turing's Quadro RTX 6000 nor Ampere's RTX A6000, whose
# names (`Quadro RTX 6000`, `RTX A6000`) have no `Ada`.
_ADA_SHORTHAND = re.compile(r"(?<![\w-])(?:(?:RTX\s*)?A?([2-6][05]00|5880)s?\s*Adas?|Adas?\s+(?:RTX\s*)?A?([2-6][05]00|5880)s?)"
                            r"(?![\w-])", re.I)
_BARE_RTX_A = re.compile(r"(?<![\w-])(?<!RTX )(A[1-6][05]00)(?![\w-])", re.I)
# The word after a number that makes it a product series (`RTX 4000 series`, `GeForce RTX 3000-series`), not a model.
_SERIES_WORD = re.compile(r"^-?series\b", re.I)
# A data-centre model and its memory joined by a hyphen, as people write a board: `A40-48G` (ggml-org/llama.cpp#1885,
# corpus 1720), `8*A100-80G`, `A800-80GB`; a GeForce number and its memory the same way (`RTX 3050-6GB`, corpus 2650).
# Only letters, digits and a size in G or GB: `V100-SXM2` is nvidia-smi's own name, left whole.
_GLUED_MEMORY = re.compile(r"^([A-Z]{0,2}\d{2,4}[A-Z]?)-(\d{1,3}GB?)$", re.I)
# An NVIDIA TITAN card as people write it (`Titan-V`, `TITAN Xp`, `Titan RTX`; corpus 1171): the GPU table has no TITAN
# row; the name as nvidia-smi spells it (`TITAN V`) is what gputable's architecture words read (Volta, Pascal, Turing).
_TITAN_MODEL = re.compile(r"^(?:NVIDIA\s+)?TITAN[\s-]?(V|Xp|X|RTX)$", re.I)
_TITAN_SUFFIX = {"v": "V", "xp": "Xp", "x": "X", "rtx": "RTX"}
# A Tesla board the GPU table has no row for, named with its brand word and its model, whose letter is its architecture's
# (`tesla M40`, corpus 2718; `Tesla K40m`, `Tesla P4`, `Tesla M60`): NVML's name for it (`Tesla M40 24GB`), whose letter
# gputable's architecture words read (Kepler, Maxwell, Pascal). The brand is required: `M40` alone is no GPU's name.
_TESLA_MODEL = re.compile(r"^Tesla\s+([KMP])(\d{1,3}[cdms]?)$", re.I)
# A form factor written before the model (`PCIE Nvidia V100 32G`, llama.cpp#24324), as the table's names put it after.
_FORM_FIRST = re.compile(r"^(PCIe|SXM\d?)\s+(?:NVIDIA\s+)?(\S+)", re.I)


# A model number at the end of a branded name the GPU table has no row for (`GeForce RTX 2080`, `RTX A4000`,
# `Quadro RTX 8000 Ti`): the brand word names its family (gputable.brand_family), which is what the checks read.
_BRANDED_MODEL = re.compile(r"(?:^|\s)[A-Z]?\d{3,4}(?:\s+(?:Ti|SUPER))?$", re.I)


# The user saying what their machine holds, the count in digits or a word: `Normally, the node has two H800 GPU Cards:`
# (NVIDIA/k8s-device-plugin#502, corpus 1240). `the`, `my`, `our` or `this` before the machine's noun: the one host the
# paste is about, not a cluster's nodes in general.
_HOST_HAS = re.compile(r"\b(?:the|my|our|this)\s+(?:node|server|machine|host|box|workstation)\s+has\s+"
                       r"([1-9]\d?|two|three|four|five|six|seven|eight)\s+(?=\S)", re.I)
_COUNT_WORDS = {"dual": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


# One cheap test before the patterns above: a count beside x/×/*, a count before cards/GPUs, or `DGX`.
# A cloud launcher's accelerator request, `<model>:<count>` (the count 1 where left out): SkyPilot's `sky launch --gpus
# T4:4` (corpus 2246) and its task YAML's `accelerators: A100:8`, dstack's `--gpu A100:2`. The launcher provisions a
# machine with those GPUs and runs the job there. Docker's own `--gpus` takes `all`, a count or `device=...`, which
# name no model of the GPU table. Google Cloud's `gcloud container node-pools create ... --accelerator
# type=nvidia-tesla-t4,count=1` (and `gcloud compute instances create`'s) asks for the same, its type the GKE
# accelerator name (corpus 2582).
_LAUNCH_SPEC = re.compile(r"(?:(?<![\w-])--gpus?[= ]|\baccelerators:[ \t]*\{?[ \t]*|(?<![\w-])--accelerator[= ]type=)"
                          r"['\"]?([A-Za-z][\w-]{0,30})(?:(?::|,count=)([1-9]\d?))?['\"]?(?=[\s,}]|$)")
_ANY_STATEMENT = re.compile(r"(?<![\w.:+-])[1-9]\d?\s*[x×*]|(?<![\w.:+-])(?:an?|one|a\s+single)\s+NVIDIA\s|[x×*]\s*[1-9]\d?(?![\w.])"
                            r"|(?<![\w.:+-])[1-9]\d?\s+(?:\S+\s+){0,3}(?:cards?|GPUs?)\b|(?<![\w.:+-])[1-9]\d?cards?\b|(?<![\w.:+-])[1-9]\d?\s+NVIDIA\s|DGX|"
                            + _COUNT_PLURAL.pattern + "|" + _HOST_HAS.pattern + "|" + _COUNT_BRAND.pattern + "|"
                            + _LAUNCH_SPEC.pattern + "|" + _COUNT_MEASURE.pattern, re.I)


# The HTML tags of a GitHub comment's folded section and emphasis (`<summary>Performance on 4x RTX 4090</summary>`,
# corpus 2902): markup around the user's words, read as a space.
_HTML_MARKUP = re.compile(r"</?(?:summary|details|b|strong|br)\s*/?>", re.IGNORECASE)


def stated_gpus(line: str) -> list[tuple[int, str]]:
    """The (count, model) pairs a line of the user's words states, each model as the GPU table names it.

    An unknown name is no statement; a DGX system's name states its GPUs. HTML markup is read as a space.
    """
    line = _HTML_MARKUP.sub(" ", line) if "<" in line else line
    if not _ANY_STATEMENT.search(line):
        return _count_model_memory(line)
    said: list[tuple[int, str]] = _count_model_memory(line)
    for m in _BRACKETED_LIST.finditer(line):
        if listed := _bracketed_models(int(m.group(1)), m.group(2)):
            # The list is the statement: its count is the sum, not the first model's (`3 GPUs (RTX 3090, ...`).
            said.extend(listed)
            line = line[:m.start()] + " " * (m.end() - m.start()) + line[m.end():]
    for pattern, count, model, plain in DGX_SYSTEMS:
        for m in pattern.finditer(line):
            said.append((count, model.format(m.group(1)) if m.re.groups and m.group(1) else plain))
    for m in _LAUNCH_SPEC.finditer(line):
        if model := _model_in([m.group(1)]):
            said.append((int(m.group(2) or 1), model))
    for rx in (_COUNT_BEFORE, _MODEL_FIRST, _OWNED_MODEL_COUNT, _COUNT_MEASURE):
        # A machine's line counts its cards a few times: the measure word's first matches only (a long line stays linear).
        for m in islice(rx.finditer(line), 8) if rx is _COUNT_MEASURE else rx.finditer(line):
            after = line[m.end():].strip() if rx is not _COUNT_MEASURE else _CJK_RUN.sub("", line[m.end():m.end() + 80])
            model = _laptop_or_model(re.split(r"\s+", after.strip())[:6], 4) or _unlisted_model(after)
            if model:
                said.append((_CJK_COUNTS.get(m.group(1)) or int(m.group(1)), model))
    for m in _COUNT_PLURAL.finditer(line):
        model = _model_in(m.group(2).split())
        if model:
            said.append((int(m.group(1)), model))
    for m in _COUNT_AFTER.finditer(line):
        # A list's key glued to the model it counts (`-GPU:RTX-4090*8`, corpus 975) is no part of the model's name.
        model = _model_in(_LIST_GPU_KEY.sub("", line[:m.start()]).split()[-4:], backwards=True)
        if model and not (m.lastindex and m.lastindex >= 4 and _COMPARED.search(line[:m.start()])):
            said.append((int(next(g for g in m.groups() if g)), model))
    for m in _HOST_HAS.finditer(line):
        # The model before the noun that counts it (`two H800 GPU Cards`): the words up to `GPU` or `card`.
        words = re.split(r"\s+", line[m.end():].strip())[:4]
        noun = next((k for k, w in enumerate(words) if re.match(r"(?:GPU|card)s?\b", w, re.I)), None)
        model = _model_in(words[:noun]) if noun else ""
        if model:
            said.append((_COUNT_WORDS.get(m.group(1).lower()) or int(m.group(1)), model))
    for m in _ONE_BEFORE.finditer(line):
        model = _laptop_or_model(re.split(r"\s+", line[m.end():].strip())[:6], 4)
        if model and not _MACHINE_AFTER.match(line[m.end():]):
            said.append((1, model))
    for m in _COUNT_BRAND.finditer(line):
        if _AT_LEAST.search(line[:m.start()]):
            continue  # `at least four GeForce GTX 1070`: a lower bound, not the machine's cards
        after = line[m.end():].strip()
        if (gke := re.match(r"`?(nvidia-\S+?)`?(?:\s|$)", after)) is not None:
            after = gke.group(1).replace("-", " ")
        model = _laptop_or_model(re.split(r"\s+", after)[:6], 4)
        if model and not _MACHINE_AFTER.match(line[m.end():]):
            said.append((_COUNT_WORDS.get((m.group(1) or "").lower()) or int(m.group(2) or 0), model))
    if _NVLINK_SAID.search(line):  # `2xH200 NVlinked` (corpus 848): the ambiguous name's NVLink part
        said = [(n, _nvlinked_default(m)) for n, m in said]
    return list(dict.fromkeys(said))


# A count of GPUs with the cards listed in brackets after it, a model alone counting one: `3 old gpus (1080ti,
# 2x1070)` (ggml-org/llama.cpp#13560, corpus 1283), `4 GPUs (2x A100 80GB + 2x L40S 44GB)`, `4 GPUs (2x3090 + 2x5060
# Ti)` (a training script's and a launch script's headers, found by the code search).
_BRACKETED_LIST = re.compile(r"(?<![\w.:+-])([1-9]\d?)\s+(?:[A-Za-z-]+\s+){0,2}?(?:GPUs?|cards?)\s*\(([^()]+)\)", re.I)
_LIST_ITEM = re.compile(r"^\s*(?:([1-9]\d?)\s*[x×*]\s*)?(\S.*?)\s*$")


def _bracketed_models(count: int, inside: str) -> list[tuple[int, str]]:
    """The (count, model) pairs of a bracketed list whose every item names a model the GPU table knows (a bare model
    counting one) and whose counts add up to `count`; [] for anything else (`4 GPUs (2x2 mesh)`, a vendor the table
    lacks, a sum that differs)."""
    said: list[tuple[int, str]] = []
    for item in re.split(r"\s*(?:,|\+|&|\band\b)\s*", inside):
        m = _LIST_ITEM.match(item)
        words = m.group(2).split() if m is not None else []
        model = _model_in(words) if m is not None else ""
        if m is None or not model or len(model.split()) < len(words) - 2:
            return []
        said.append((int(m.group(1) or 1), model))
    return said if len(said) > 1 and sum(n for n, _ in said) == count else []


def stated_gpu_list(line: str) -> list[tuple[int, str]]:
    """The (count, model) pairs of the first bracketed list of one host's GPUs on a line (_BRACKETED_LIST); []."""
    for m in _BRACKETED_LIST.finditer(line):
        if listed := _bracketed_models(int(m.group(1)), m.group(2)):
            return listed
    return []


# A host's cards listed one count and model a line (`1x RTX 4000 8Gb`, then `2x RTX A4000 16Gb`) right under the
# user's short line that states their total (`I got 3.`, oobabooga/textgen#2923, corpus 2233): the bracketed list's
# statement (`3 GPUs (1x RTX 4000, 2x RTX A4000)`) over lines. Each item line is a count before a model the GPU table
# or a brand word names, and nothing else; their counts must add up to the total, the only number of its line.
_CARD_ITEM = re.compile(r"^\W{0,3}([1-9]\d?)\s*[x×*]\s*(\S.{0,60}?)\s*$")
_TOTAL_LINE = re.compile(r"^\D{0,30}?(?<![\w.])([1-9]\d?)(?!\w|\.\d)\D{0,30}$")


def listed_cards(lines: Sequence[str], i: int) -> tuple[str, int]:
    """The bracketed-list line (`3 GPUs (1x RTX 4000 8Gb, 2x RTX A4000 16Gb)`) that line i, a total, and the card lines
    under it state together (_CARD_ITEM, _TOTAL_LINE), and the line after the last card; ("", i) where line i opens no
    such list (fewer than two cards, a sum that differs from the total)."""
    total = _TOTAL_LINE.match(lines[i]) if len(lines[i]) <= 60 else None
    items: list[str] = []
    end = i + 1
    while total is not None and end < len(lines) and (m := _CARD_ITEM.match(lines[end])) \
            and len(stated_gpus(lines[end])) == 1:
        items.append(f"{m.group(1)}x {m.group(2)}")
        end += 1
    if total is None or len(items) < 2:
        return "", i
    joined = f"{total.group(1)} GPUs ({', '.join(items)})"
    return (joined, end) if stated_gpu_list(joined) else ("", i)


# The user's words saying the GPUs they count are NVLinked: `a 2xH200 NVlinked instance` (corpus 848).
_NVLINK_SAID = re.compile(r"\bNVLink(?:ed|-connected)?\b", re.I)


def _nvlinked_default(model: str) -> str:
    """An ambiguous name's default row where that row has NVLink (`H200`: the H200 SXM), else the name as it is."""
    try:
        match = lookup(model)
    except (UnknownGpuError, GpuTableError):
        return model
    return match.spec.name if match.alternatives and match.spec.has_nvlink else model


# A hardware list's GPU key naming a model without a count (`GPU: NVIDIA GeForce RTX 5080`, corpus 850; `* GPU: A100
# PCIe 80GB`, corpus 714). A numbered key (`GPU 0:`) is a tool's listing, not a list's.
# An issue template's key for the same answer: TensorRT-LLM's `GPU name` (`- GPU name: NVIDIA A40, 46GB`,
# NVIDIA/TensorRT-LLM#1601, corpus 1736; `  - GPU name: L4`, NVIDIA/TensorRT-LLM#1187), `GPU model` or `GPU type`, with
# the template's hint left in brackets before the colon (`GPU name (e.g., NVIDIA H100, NVIDIA A100)`): the hint's
# models are the form's examples, not the user's answer. A full-width colon (`GPU ：Tesla V100-SXM2-32GB`, corpus 1572)
# is the same key, and so is llm_benchmark's system report's `gpu_info: NVIDIA CMP 30HX` (aidatatools/ollama-benchmark,
# corpus 2327). The plural key (`GPUS: 3090 (24 gb) 3060 (12 gb)`, predibase/lorax#150, corpus 2419), and a Markdown
# table's row of the same key (`| **GPU** | NVIDIA RTX 3090 Ti (eVGA, GA102, 24 GB VRAM) |`, corpus 2422) too. So is a
# summary's `GPU Info :` with nvidia-smi's `Name :` retyped after it (`GPU Info : Name :  Tesla V100   Driver Version:
# 450.51.05`, NVIDIA/enroot#47, corpus 2504). Chinese words may qualify the key, glued before it as Chinese writes them
# (`物理机GPU: NVIDIA T4`, the physical machine's GPU, corpus 2867).
_LIST_GPU_KEY = re.compile(r"^\W*[\u4e00-\u9fff]{0,6}GPUs?(?:\s+(?:name|model|type|info)|_info)?\**(?:\s*\([^()]{0,80}\))?\s*[:：|]\**\s*"
                           r"(?:name\s*:\s*)?(?=\S)", re.I)
# A hardware list's GPU line without its key: the brand and a model alone on their line (`nVidia 4090`, `NVIDIA GeForce
# RTX 3090 Ti`, `NVIDIA A100`), under or over another item of the same list (HARDWARE_LIST_ITEM: the OS release, the
# CUDA, cuDNN or driver version; vllm-project/vllm#787, corpus 2480). In prose the same words are no list's line.
# The brand may be the product line's alone (`- Geforce RTX 2070 Max-Q` under `- Nvidia driver 470.14 + CUDA 11.3`,
# docker/for-win#11208, corpus 2707), and a laptop's part may follow the model (`Max-Q`, `Mobile`).
_BARE_GPU_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:nvidia(?:\s+(?:geforce|tesla|quadro))?|geforce|tesla|quadro)"
                            r"(?:\s+(?:rtx|gtx))?\s+[a-z]{0,3}\s?\d{2,4}[a-z]{0,3}(?:\s+(?:ti|super))?"
                            r"(?:\s+(?:max-q|mobile))?\s*$", re.I)
# A device listing names each GPU with its PCI address on the line beside it (the Unraid NVIDIA driver plugin's
# `Installed GPU(s):`, then `0:`, `Tesla P40`, `82:00.0` and its UUID, corpus 2678): an item of the same list.
HARDWARE_LIST_ITEM = re.compile(r"^\s*(?:[-*+]\s+)?(?:(?:Ubuntu|Debian|CentOS|Rocky|RHEL|Fedora|openSUSE|Arch Linux|"
                                r"Windows|WSL\s?2?)\s+\d[\w.]{0,10}\b|(?:CUDA|cuDNN|NVIDIA driver|Driver)\s+v?\d+\.\d[\w.]{0,12})"
                                r"[^\n]{0,80}$|^\s*(?:[0-9a-f]{4,8}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s*$", re.I)


# The same list on one line, its items apart by commas (`Host Environment: Ubuntu 24.04, 4070ti, Driver Version: 550.120,
# CUDA Version: 12.4`, replicate/cog-comfyui#234, corpus 2663; `RTX 5090, Windows 11 + WSL2, Docker, image ...`,
# sgl-project/sglang#35385, corpus 2712): an item that is a model and nothing else, beside an item of the same list
# (HARDWARE_LIST_ITEM), the first item with the list's key dropped (`Host Environment:`).
_ITEM_KEY = re.compile(r"^[A-Za-z][\w ]{0,30}:\s*")
# The model's memory in brackets after it (`RTX 4080 SUPER (16GB VRAM), driver 610.43, CUDA 13.3`, llama.cpp's issue
# template in corpus 2930): an aside of the item, not a word of the model.
_ITEM_MEMORY = re.compile(r"\s*\(\s*\d{1,3}\s?GB?(?:\s+(?:VRAM|memory|G?DDR\dX?|HBM\de?))?\s*\)$", re.I)
MAX_INLINE_ITEMS = 12  # items of one line read as a list's
# A short list of the machine in Markdown emphasis, its OS named without a release and its CPU by its vendor (`_Ubuntu,
# AMD, nVidia 3090_`, ollama/ollama#10753, corpus 2836): the OS alone is an item of the same list where every item is
# a word or two, and the model's item holds nothing but the model (its brand and number).
_OS_ALONE = re.compile(r"^(?:Ubuntu|Debian|CentOS|Rocky|RHEL|Fedora|openSUSE|Arch Linux|Linux|Windows|WSL\s?2?)$", re.I)


def inline_listed_model(line: str) -> str:
    """The model a hardware list written on one line names as an item of its own (_ITEM_KEY's comment), where another
    item is an OS release or a CUDA or driver version (HARDWARE_LIST_ITEM); "" otherwise, or where items name several.

    >>> inline_listed_model("Host Environment: Ubuntu 24.04, 4070ti, Driver Version: 550.120, CUDA Version: 12.4")
    '4070 ti'
    >>> inline_listed_model("RTX 5090, Windows 11 + WSL2, Docker")
    'RTX 5090'
    >>> inline_listed_model("_Ubuntu, AMD, nVidia 3090_")
    'RTX 3090'
    >>> inline_listed_model("Ubuntu, Debian and Fedora all show it on the RTX 3090, as I said")
    ''
    >>> inline_listed_model("RTX 4080 SUPER (16GB VRAM), driver 610.43, CUDA 13.3")
    'RTX 4080 SUPER'
    """
    if "," not in line or len(line) > 400:
        return ""
    items = [_ITEM_MEMORY.sub("", _ITEM_KEY.sub("", item.strip(), count=1) if k == 0 else item.strip())
             for k, item in enumerate(line.strip().strip("_*").strip().rstrip(".").split(",")[:MAX_INLINE_ITEMS])]
    short = all(len(item.split()) <= 2 for item in items)
    if len(items) < 2 or not any(HARDWARE_LIST_ITEM.match(item) or (short and _OS_ALONE.match(item)) for item in items):
        return ""
    models = {model for item in items if item and len(item) <= 40 and (model := _model_in(item.split()))
              and (normalize(model) == normalize(item)
                   or (short and set(normalize(item).split()) <= set(normalize(model).split())))}
    return models.pop() if len(models) == 1 else ""


def bare_listed_model(lines: Sequence[str], i: int) -> str:
    """The model line i names as a hardware list's GPU line without its key (_BARE_GPU_LINE), where the line above or
    below it is another item of the same list (HARDWARE_LIST_ITEM); "" otherwise."""
    if not _BARE_GPU_LINE.match(lines[i]) or not any(0 <= k < len(lines) and HARDWARE_LIST_ITEM.match(lines[k])
                                                     for k in (i - 1, i + 1)):
        return ""
    return _model_in(lines[i].split()[-4:])
# A Markdown table of the user's runs with a column of the hardware they ran on (`| version | Hardware | Processing Time
# |`, then `| v0.10.1.1 (v0) | T4 | 38s |`, vllm-project/vllm#25172, corpus 2651): where every row's cell of that column
# names one and the same model, the runs are on that GPU, which is the host's. Rows of several models may be several
# hosts: none is read.
_TABLE_GPU_HEAD = re.compile(r"^\s*\|(?:[^|\n]{0,60}\|){0,8}\s*(?:Hardware|GPUs?|GPU model|Device)\s*\|", re.I)
_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|){2,}\s*$")
MAX_TABLE_ROWS = 40  # rows of one table read for its GPU column


def table_column_model(lines: Sequence[str], i: int) -> tuple[str, int]:
    """The one model every row of the Markdown table whose header is line i names in its hardware column
    (_TABLE_GPU_HEAD), and the line after the table's last row; ("", i) where line i heads no such table, a row names
    no model of the GPU table there, or the rows name several.

    >>> table_column_model(["| version | Hardware | Time |", "|---|---|---|", "| v0 | T4 | 38s |", "| v1 | T4 | 80s |"], 0)
    ('T4', 4)
    """
    head = _TABLE_GPU_HEAD.match(lines[i]) if len(lines[i]) <= 600 else None
    if head is None or i + 1 >= len(lines) or not _TABLE_RULE.match(lines[i + 1]):
        return "", i
    column = head.group(0).count("|") - 1
    models: set[str] = set()
    end = i + 2
    while end < len(lines) and end < i + 2 + MAX_TABLE_ROWS and lines[end].lstrip().startswith("|"):
        cells = lines[end][:600].strip().strip("|").split("|")
        model = _model_in(cells[column - 1].split()[:5]) if len(cells) >= column else ""
        if not model:
            return "", i
        models.add(model)
        end += 1
    return (next(iter(models)), end) if len(models) == 1 else ("", i)


# The items of a list's GPU value: a bracketed aside (the memory, the vendor) or a separator ends a model's words.
_LIST_ITEM_END = re.compile(r"\([^()]{0,80}\)|[,;+&/|]|\band\b", re.I)


# A laptop's GPU as a list names it: a GeForce or RTX model number, then `Laptop` (`NVIDIA GeForce RTX 5070 Ti Laptop
# GPU`, corpus 2601; `NVIDIA GeForce RTX 4060 Laptop 8GB`, corpus 2602; `RTX A2000 Laptop GPU`). NVML names the part
# `... Laptop GPU` (gputable.LAPTOP_GPU), the name a laptop's power budget and its one discrete GPU are read from; the
# model number alone is a desktop card's. A GeForce 20 to 50 series number without its brand (`a 5080 Laptop GPU`,
# corpus 869's user) is an RTX's.
_LISTED_LAPTOP = re.compile(r"^(?:NVIDIA\s+)?((?:GeForce\s+)?[RG]TX\s+\d{3,4}(?:\s?Ti)?|RTX\s+(?:PRO\s+)?[A-Z]?\d{3,4}"
                            r"(?:\s+Ada(?:\s+Generation)?)?|[2-5]0[5-9]0(?:\s?Ti)?)\s+Laptop\b", re.I)


def listed_model(line: str) -> str:
    """The model a hardware list's `GPU: <model>` line names without a count, as the GPU table names it; "" for any
    other line. It names what the host's GPUs are, not how many: issue templates ask `GPU:` of multi-GPU hosts too.
    A laptop's GPU (_LISTED_LAPTOP) keeps NVML's `Laptop GPU` after its model number.

    >>> listed_model("- GPU: NVIDIA GeForce RTX 5070 Ti Laptop GPU")
    'GeForce RTX 5070 Ti Laptop GPU'
    """
    key = _LIST_GPU_KEY.match(line)
    if key is None or _ANY_STATEMENT.search(line):
        return ""
    # A vGPU guest's GPU is named by its profile (`- GPU:GRID T4-4Q`, corpus 2830), as its driver names it: _model_in.
    return _laptop_or_model(re.split(r"\s+", line[key.end():].strip())[:6])


def _vgpu_profile(text: str) -> bool:
    """Whether the text is a vGPU profile's name (VGPU_PROFILE) whose board the GPU table names exactly: `NVIDIA
    A10-24Q`, not a model's size after the GPU (`H200 QwQ-32B`, corpus 2840)."""
    return VGPU_PROFILE.match(text) is not None and bool(exact_name(board_words(text) or ""))


def _laptop_or_model(words: list[str], first: int = 6) -> str:
    """The model the words name (_model_in, from the `first` words), a laptop's GPU (_LISTED_LAPTOP) with NVML's
    `Laptop GPU` after its model number."""
    if laptop := _LISTED_LAPTOP.match(" ".join(words)):
        model = re.sub(r"(\d)Ti\b", r"\1 Ti", " ".join(laptop.group(1).split()), flags=re.I)
        return ("RTX " if model[:1].isdigit() else "") + model + " Laptop GPU"
    return _model_in(words[:first])


def listed_models(line: str) -> tuple[str, ...]:
    """The models a hardware list's GPU line names one after another, each once, in their order (`GPUS: 3090 (24 gb)
    3060 (12 gb)`: RTX 3090, RTX 3060): each item's words up to its bracketed aside or a separator (_LIST_ITEM_END);
    () for any other line, or where a count is stated (listed_model).

    >>> listed_models("GPUS: 3090 (24 gb) 3060 (12 gb)")
    ('RTX 3090', '3060')
    >>> listed_models("| **GPU** | NVIDIA RTX 3090 Ti (eVGA, GA102, 24 GB VRAM) |")
    ('RTX 3090',)
    """
    key = _LIST_GPU_KEY.match(line)
    if key is None or not listed_model(line):
        return ()
    value = line[key.end():]
    return tuple(dict.fromkeys(m for item in _LIST_ITEM_END.split(value[:400])
                               if (m := _model_in(item.split()[:4]))))


# A GeForce RTX series named by its family words (`RTX 50xx requires sm_120`, corpus 1876; `RTX 50xx's sm_120 is not
# compatible with the current PyTorch installation`, Hellod035/LeggedLab#26), and the CUDA architecture a line names.
_SERIES = re.compile(r"\b(?:GeForce\s+)?RTX ?([2-5])0(?:xx|[- ]?series)\b", re.I)
# torch's tuple (`compute capability **(10, 3)**`, corpus 2762) names one too.
_ARCH_NAMED = re.compile(r"\bsm_?(\d)(\d)\b|\bsm_?(1\d)(\d)\b|\bcompute capability (\d+)\.(\d)\b"
                         r"|\bcompute capability\W{0,4}\((\d+),\s*(\d)\)", re.I)


def stated_capability(line: str) -> str:
    """The one compute capability a line names (_ARCH_NAMED: `sm_103`, `compute capability 10.3`, `(10, 3)`); "" where
    it names none or several."""
    named = {".".join(g for g in a.groups() if g) for a in _ARCH_NAMED.finditer(line)}
    return named.pop() if len(named) == 1 else ""


def stated_series(line: str) -> str:
    """The GeForce RTX series a line of the user's words names by its family words (_SERIES) together with the
    compute capability it needs (`sm_120`, `compute capability 12.0`), as `GeForce RTX 50 series`; "" where the line
    names no series, no capability, or one that is not the series' (gputable.capability_of)."""
    m = _SERIES.search(line)
    if m is None:
        return ""
    name = f"GeForce RTX {m.group(1)}0 series"
    named = {".".join(g for g in a.groups() if g) for a in _ARCH_NAMED.finditer(line)}
    return name if named and named == {capability_of(name)} else ""


# Huawei's Ascend NPUs named in the user's words (`on **Ascend NPU**`, `Ascend 910B`, `Atlas 800I A2`): another
# vendor's accelerators, run by CANN and collectives over HCCL, not CUDA and NCCL (https://www.hiascend.com/en/software/cann).
_STATED_NPU = re.compile(r"\bAscend\W{0,3}(?:NPUs?\b|910[A-C]?\b|310P?\b)|\bAtlas\s+[89]00[A-Z]?\b", re.I)


def stated_npus(line: str) -> str:
    """The Ascend NPUs a line of the user's words names, in words; "" where it names none."""
    m = _STATED_NPU.search(line)
    return f"Ascend NPUs (the user's words: '{m.group(0)}')" if m else ""


# A list's or an issue template's GPU key answered with another vendor's name alone (`GPU: AMD`): ollama's bug report
# form asks `### GPU` with the choices Nvidia, AMD, Intel, Apple and Other, and renders the heading with the names
# chosen under it (corpus 1012: `AMD`; importers/prose_machine joins the two). Another choice beside it (`Nvidia, AMD`)
# is no such answer. So is a list's GPU key answered with another vendor's cards, a count before them or not (`- GPUs: 2
# AMD Radeon Pro VII`, ROCm/rocm_smi_lib#110, corpus 2694): the name as gputable.other_vendor reads it, with no NVIDIA
# word on the line.
_STATED_VENDOR_GPU = re.compile(r"^\W*GPU\**\s*:\**\s*(AMD|Intel|Apple)\W*$", re.I)
_STATED_VENDOR_CARDS = re.compile(r"^\W{0,3}GPUs?\**\s*:\**\s*(?:[1-9]\d?\s?x?\s+)?(?P<name>(?:AMD|Radeon|Instinct)\b[^,;]{0,60})$",
                                  re.I)
_NVIDIA_WORD = re.compile(r"\b(?:NVIDIA|GeForce|RTX|GTX|Tesla|Quadro)\b", re.I)


def stated_vendor_gpus(line: str) -> str:
    """Another vendor's GPUs a list's GPU key names alone (_STATED_VENDOR_GPU) or with their model
    (_STATED_VENDOR_CARDS), in words; "" where it names none."""
    if m := _STATED_VENDOR_GPU.match(line.strip()):
        return f"{m.group(1)} GPUs (the user's words: '{line.strip()}')"
    m = _STATED_VENDOR_CARDS.match(line.strip())
    if m and other_vendor(m.group("name")) and not _NVIDIA_WORD.search(line):
        return f"{m.group('name').strip()} (the user's words: '{line.strip()}')"
    return ""


# The user saying how many GPUs they own without naming the model: `I have 2 NVIDIA cards detected as CUDA0 and CUDA1`
# (ggml-org/llama.cpp#24147, corpus 1059). Only the first person's `have` / `own` / `'ve got` right before the count: a
# count after other words (`tried with 2 GPUs`, `using 2 cards`) may be part of the host.
# The same `have` after the first person's own clause and `and`: `I am using Linux and have 8 GPUs`
# (huggingface/text-generation-inference#1499, corpus 1427).
# The singular after the count as the plural (`I have 7 gpu for the gpustack instance`, gpustack/gpustack#1697, corpus
# 719), unless a noun follows it, which the count is then of (`I have 2 GPU servers`).
_OWNED_COUNT = re.compile(r"\bI(?:(?:\s+am|'m)\s+[^.;!?]{1,40}?\s+and)?(?:\s+have|\s+own|'ve\s+got)\s+([1-9]\d?)\s+"
                          r"(?:NVIDIA\s+)?(?:GPUs|GPU\b(?!\s+[a-z]+s\b|\s+(?:box|setup|rig|system|machine)\b)|cards|"
                          r"graphics\s+cards)\b", re.I)
# The host named by its GPU count: `trying to use nccl in a 3 gpu setup` (NVIDIA/nccl#1740, corpus 631), `a 4-GPU
# machine`, `my 8x GPU server`.
_SETUP_COUNT = re.compile(r"\b(?:an?|my|our|this)\s+([1-9]\d?)\s?-?\s?(?:x\s?)?GPUs?\s+"
                          r"(?:setup|machine|server|box|rig|system|workstation|host)\b", re.I)


# The user saying which GPU they own without a count: `i have 3090, and ran it on coolify` (corpus 1117), `I have an
# RTX 4090`. The first person's `have` / `own` / `'ve got` right before the model, as the GPU table names it (_model_in):
# the host's model, not how many (a count there is _COUNT_PLURAL's or _OWNED_COUNT's).
# `What I use is A100 80GB + fully NVlink` (corpus 891): the first person's `use` / `am using` before the model too.
# A description of the host saying what its GPU is: `GPU is GP104BM [GeForce GTX 1070 Mobile]` (NVIDIA/gpu-operator#327,
# corpus 2052), `my GPU is a GTX 1080`, `The GPU is an RTX 3090`: the one GPU in the singular, right before the model.
# So is an inline key of the user's list of versions: `I have ubuntu-22.04, cuda==12.1, nvidia driver == 530, gpu==V100`
# (vllm-project/vllm#5635, corpus 2333); a flag (`--gpu=0`) or a variable (`num_gpu=1`) is none.
# A sentence starting with the use (`Using RTX4070, 32 GB RAM memory`, triton-inference-server/server#6945, corpus 2418),
# and the host the trouble is seen on (`an issue with latest nvidia drivers on a RTX A4500`, nextcloud/llm2#52, corpus
# 2425: `on` with an article, `my` or the brand, right before the model: `running an embeddings model on Nvidia RTX
# 4060Ti`, corpus 2567) say the same of the user's GPU. So do the host's GPU after `with` (`I am with L40`, corpus 2565;
# `a Proxmox server w/ a Tesla P40 in it`, corpus 2548; `cluster kubernetes with 4070 Super GPU`, corpus 2571: the
# bare `with` only where the noun GPU follows the model) and a hardware summary's line that starts with the key
# without its colon (`gpu V100 32G 显存。`, corpus 2553). So do `I'm running` before the model (`I'm running a RTX 4080
# (CUDA0) and RTX 3050-6GB (CUDA1)`, ollama/ollama#14365, corpus 2650) and a line that starts with `Graphics card` and
# the model (`Graphics card 4090`, sgl-project/sglang#2559, corpus 2643). So does the user's own machine said to be its
# GPU (`My machine is V100`, NVIDIA NIM forum's issue, corpus 2872).
# A cloud's instance named by the provider's possessive and the GPU (`doesn't work on Azure's K80 instance`, corpus 2890):
# the provider's name, the model, then the machine noun.
_PROVIDERS_MACHINE = r"(?=[A-Z][\w-]+['’]s\s+[\w-]+(?:\s+[\w-]+)?\s+(?:instances?|VMs?|nodes?|pods?|servers?|machines?)\b)"
_OWNED_MODEL = re.compile(r"(?:(?:\b(?:my|our)\s+(?:machine|server|host|box|computer|workstation)\s+is|\bI(?:\s+have|\s+own|'ve\s+got|\s+use(?:\s+is)?|\s+am\s+using|'m\s+using"
                          r"|(?:\s+am|['’]m)\s+with|(?:\s+am|['’]m)\s+running)|^\s*Graphics\s+cards?(?=\s+\w)"
                          r"|\bGPU\s+is|(?:^|(?<=[.!?]\s))\s*Using|\bon(?=\s+(?:an?|my|our|NVIDIA)\s|\s+`[\w -]{2,30}`\s+GPU\b"
                          r"|\s+" + _PROVIDERS_MACHINE + r")|\bw/"
                          r"|(?<!compared )\bwith(?=\s+(?:an?\s+)?[\w-]{1,20}(?:\s+[\w-]{1,20}){0,2}\s+GPU\b)|^\s*GPU(?=\s+[A-Z]))\s+"
                          r"|(?<![\w-])GPU\s*==?\s*)(?:a\s+single\s+|an?\s+|my\s+|our\s+|one\s+"
                          r"|" + _PROVIDERS_MACHINE + r"[\w-]+['’]s\s+)?(?![1-9]\d?\s)",
                          re.I)


# One card named with the brand, the model and the noun in the singular, as the host's card a sentence speaks of: `WSL
# doesn't see Nvidia L40S card.` (microsoft/WSL#14339, corpus 2713), `the NVIDIA RTX A6000 GPU`. A model compared with
# (_COMPARED) is not the host's.
# The noun may stand between the brand and the model too, as a provider's menu names its machines (`a Runpod Nvidia GPU
# L40s Pod`, corpus 2884): the one word after it, which the GPU table must know.
_BRANDED_CARD = re.compile(r"(?<![\w.:+/-])NVIDIA\s+(?:((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:GPU|card)\b(?![s-])"
                           r"|GPU\s+([\w-]+)\b(?![s-]))", re.I)


# A model number in the plural after a count written as a word: `running on two 4090s` (sgl-project/sglang#4723,
# corpus 1352). The GPUs a run uses, not how many the host holds: the model only, as owned_model's.
_WORDED_PLURAL = re.compile(r"(?<![\w.:+-])(?:two|three|four|five|six|seven|eight)\s+((?:[A-Za-z]+\s+){0,2}"
                            r"[A-Za-z]*\d\w*?)s\b", re.I)


# A Jetson module a line names (jtop's `Module: NVIDIA Jetson Orin NX(16GB ram)`, /proc/device-tree/model's `NVIDIA
# Jetson AGX Orin Developer Kit`): one module, one integrated GPU, named as the module (gputable.JETSON_WITHOUT_MIG
# reads it). The module word after `Jetson` is required: a host name such as `jetson-desktop` names none. A user's
# environment line names the module without the brand (`Jetson Orin NX 16G` over `jetpack 6.2`, vllm-project/vllm#12346,
# corpus 2716): the same module; a path or an image name (`dustynv/jetson-orin`, `l4t-jetson`) names none.
_JETSON_MODULE = re.compile(r"(?:\bNVIDIA\s+|(?<![\w./:-]))(Jetson\s+(?:AGX\s+)?(?:Nano|TX[12]|Xavier|Orin|Thor)(?:\s+(?:NX|Nano))?)(?![\w-])",
                            re.I)
# NVIDIA's spelling of each word of a module's name, whatever the case a user types it in (`Nvidia Jetson AGX ORIN`
# in a title beside jtop's `NVIDIA Jetson AGX Orin`, corpus 2518): one module, one name.
_JETSON_WORDS = {w.lower(): w for w in ("Jetson", "AGX", "Nano", "TX1", "TX2", "Xavier", "Orin", "Thor", "NX")}


# The Jetson platform where no line names the module: its L4T release (`AGX L4T: 35.2.1`, jtop's `Jetpack 4.5.1 [L4T
# 32.5.2]`, `Jetson L4T R36.4.7`, /etc/nv_tegra_release's `# R35 (release), REVISION: 2.1`), or the Tegra memory manager
# (NvRmMem) that CUDA and the 3D driver call on Jetson's nvgpu GPU driver (`NvRmMemInitNvmap failed with Permission
# denied`, `****NvRmMemInit failed****`: ollama/ollama#1289, anduril/jetpack-nixos#118 on Orin, jetsonhacks/rootOnNVMe#28
# on a TX2). Jetson AGX Thor (L4T R38, JetPack 7) runs the OpenRM driver of the discrete GPUs instead of nvgpu
# (https://docs.nvidia.com/jetson/agx-thor-devkit/user-guide/latest/), so the NvRmMem lines name a module before it.
# Named as the platform (JETSON_PLATFORM_WORDS), which gputable.JETSON_WITHOUT_MIG reads.
_L4T_RELEASE = re.compile(r"\bL4T\b\W{0,3}R?(\d{2})\.(\d{1,2}(?:\.\d{1,2})?)\b|^# R(\d{2}) \(release\), REVISION: (\d{1,2}\.\d{1,2})\b")
_NVRM_MEM = re.compile(r"\bNvRmMemInit(?:Nvmap)? failed\b")
# The NVIDIA Container Toolkit's hook names the mode it resolved from `auto` (`Auto-detected mode as 'csv'`,
# triton-inference-server/server#5641, corpus 2338): `csv` on a Tegra host without NVML or whose GPUs run on the nvgpu
# module (nvidia-container-toolkit internal/info: `(isTegra && !hasNVML) || usesNVGPUModule`), which is a Jetson before
# Thor; Thor's OpenRM driver brings NVML, so the toolkit resolves its nvml or legacy mode there. A mode set by hand
# (`mode = "csv"` in config.toml) prints no such line.
_CSV_MODE = re.compile(r"\bAuto-detected mode as 'csv'")
JETSON_PLATFORM_WORDS = ("NVIDIA Jetson, L4T R", "NVIDIA Jetson, Tegra's NvRmMem memory manager",
                         "NVIDIA Jetson, nvgpu driver (the container toolkit's CSV mode)")


def jetson_module(line: str) -> str:
    """The Jetson module a line names (_JETSON_MODULE), as `NVIDIA Jetson Orin NX` in NVIDIA's spelling
    (_JETSON_WORDS); else the Jetson platform its L4T release names (_L4T_RELEASE: JETSON_PLATFORM_WORDS); "" where it
    names none.

    >>> jetson_module("Module: NVIDIA Jetson Orin NX(16GB ram)"), jetson_module("Hostname: jetson-desktop")
    ('NVIDIA Jetson Orin NX', '')
    >>> jetson_module("Jetson Orin NX 16G"), jetson_module("image: dustynv/jetson-orin-nx")
    ('NVIDIA Jetson Orin NX', '')
    >>> jetson_module("AGX L4T: 35.2.1"), jetson_module("# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t210ref")
    ('NVIDIA Jetson, L4T R35.2.1', 'NVIDIA Jetson, L4T R32.7.4')
    """
    m = _JETSON_MODULE.search(line)
    if m:
        return f"NVIDIA {' '.join(_JETSON_WORDS[w.lower()] for w in m.group(1).split())}"
    release = _L4T_RELEASE.search(line)
    if release:
        major, rest = release.group(1) or release.group(3), release.group(2) or release.group(4)
        return f"{JETSON_PLATFORM_WORDS[0]}{major}.{rest}"
    return ""


def jetson_platform(line: str) -> str:
    """The Jetson a line names: its module or L4T release (jetson_module), else Tegra's memory manager failing in a
    program's lines (nvrm_mem_line); "" where it names none.

    >>> jetson_platform("NvRmMemInitNvmap failed with Permission denied")
    "NVIDIA Jetson, Tegra's NvRmMem memory manager"
    """
    return jetson_module(line) or (JETSON_PLATFORM_WORDS[1] if nvrm_mem_line(line) else "") \
        or (JETSON_PLATFORM_WORDS[2] if csv_mode_line(line) else "")


def nvrm_mem_line(line: str) -> bool:
    """Whether a line is Tegra's memory manager failing on a Jetson (_NVRM_MEM), a line of evidence on its own."""
    return "NvRmMem" in line and _NVRM_MEM.search(line) is not None


def csv_mode_line(line: str) -> bool:
    """Whether a line is the container toolkit's hook resolving its CSV mode on a Jetson before Thor (_CSV_MODE), a line
    of evidence on its own."""
    return "'csv'" in line and _CSV_MODE.search(line) is not None


JETSON_TITLE = "a Jetson's platform lines (L4T release, Tegra's NvRmMem, the container toolkit's CSV mode)"


@dataclass(frozen=True)
class L4tRelease(Sourced):
    """The Jetson's L4T release the source shows (`36.4.0`), and the line; L4T ships the GPU driver with the board's
    BSP, so the release names the driver and the CUDA it carries."""

    release: str
    line: str


fact("l4t_release", L4tRelease, hint="paste `cat /etc/nv_tegra_release` or jtop's summary")


def _l4t_in(text: str) -> L4tRelease:
    """The one L4T release the lines name (_L4T_RELEASE); two different releases name none."""
    found: dict[str, str] = {}
    for line in text.splitlines()[:MAX_JETSON_LINES]:
        if (m := _L4T_RELEASE.search(line)) is not None:
            found.setdefault(f"{m.group(1) or m.group(3)}.{m.group(2) or m.group(4)}", line.strip())
    release, line = only_one(found.items(), "no one L4T release in the lines shown")
    return L4tRelease(release, line)


@parser(USER_MACHINE, feeds="l4t_release", kind=L4tRelease, rank=20)
def l4t_release_in_words(text: str) -> L4tRelease:
    """The L4T release a hardware summary names (jtop's `L4T: 36.4.0`).

    Input (tests/data/captures/1773)::

        L4T: 36.4.0
    """
    return _l4t_in(text)


@parser(EVIDENCE_LINES, feeds="l4t_release", kind=L4tRelease, rank=10)
def l4t_release_in_evidence(text: str) -> L4tRelease:
    """The L4T release /etc/nv_tegra_release or a list names among the lines of evidence.

    Input (corpus 1828's form)::

        AGX L4T: 35.2.1
    """
    return _l4t_in(text)


def parse_jetson_gpus(text: str) -> GpuInventory:
    """The one integrated GPU of the Jetson the lines name (jetson_platform), its module where a line names it, else
    the first platform line's words; a module holds one GPU."""
    named = [m for line in text.splitlines()[:MAX_JETSON_LINES] if (m := jetson_platform(line))]
    if not named:
        raise ParseError("no Jetson module, L4T release, NvRmMem or CSV mode line")
    model = next((m for m in named if not m.startswith(JETSON_PLATFORM_WORDS)), named[0])
    return GpuInventory(gpus=(GpuRecord(0, "", model, None, (JETSON_TITLE,)),), counts=((JETSON_TITLE, 1),))


MAX_JETSON_LINES = 5000  # lines of one document read for a Jetson's platform lines


def worded_model(line: str) -> str:
    """The GPU model a line of the user's words names in the plural after a count word (_WORDED_PLURAL), without the
    count; "" where it names none."""
    m = _WORDED_PLURAL.search(line)
    return _model_in(m.group(1).split()) if m else ""


_OWNED_KEYS = 4  # keys of _OWNED_MODEL read on one line


def owned_model(line: str) -> str:
    """The GPU model a line of the user's words says they own without a count (_OWNED_MODEL); "" where it names none."""
    # The first of a line's few keys (_OWNED_KEYS) whose next words name a model: `I have` may precede other items.
    # A parenthesis glued to the model ends it (`on an RTX Pro 6000(202504 newest GPU)`, corpus 2441).
    model = next((found for m in islice(_OWNED_MODEL.finditer(line), _OWNED_KEYS)
                  if (found := _laptop_or_model([w.strip("`") for w in
                                                 re.split(r"\s+|(?<=\w)\(", line[m.end():m.end() + 160].strip())[:6]],
                                                4))),
                 "") or next((found for m in islice(_BRANDED_CARD.finditer(line), _OWNED_KEYS)
                              if not _COMPARED.search(line[:m.start()])
                              and (found := _laptop_or_model((m.group(1) or m.group(2)).split()))), "")
    # The line saying the cards are NVLinked reads an ambiguous name as its NVLink part, as stated_gpus does.
    return _nvlinked_default(model) if model and _NVLINK_SAID.search(line) else model


def owned_models(line: str) -> tuple[str, ...]:
    """The models a line of the user's words says they own, one host's cards joined after the key (owned_model): each
    item's words up to its bracketed aside or a separator (_LIST_ITEM_END), an article before it dropped, up to the
    first item that names none; () where fewer than two models are named.

    >>> owned_models("I'm running a RTX 4080 (CUDA0) and RTX 3050-6GB (CUDA1) and Ollama seems very reluctant")
    ('RTX 4080', 'RTX 3050')
    """
    m = next((k for k in islice(_OWNED_MODEL.finditer(line), _OWNED_KEYS)
              if _model_in(line[k.end():k.end() + 160].split()[:4])), None)
    if m is None:
        return ()
    models: list[str] = []
    for item in _LIST_ITEM_END.split(line[m.end():m.end() + 400]):
        words = re.sub(r"^\s*(?:an?|one)\s+", "", item, flags=re.I).split()
        if not words:
            continue
        if not (model := _model_in(words[:4])):
            break
        models.append(model)
    found = tuple(dict.fromkeys(models))
    return found if len(found) > 1 else ()


# A parameter list's GPU count on a line of its own, without a model: `gpu=2` under `node=1` (vllm-project/vllm#13273,
# corpus 1213), `GPUs: 4`. The whole line is the key and the count, so a flag (`--gpus=2`), a shell variable of a script
# (`GPU_NUM=4`) or a per-actor resource (`num_gpus=1`) is none.
_KEYED_COUNT = re.compile(r"^\s*(?:[-*>]\s+)?\**\s*gpus?\s*[=:]\s*([1-9]\d?)\s*\**\s*$", re.I)


def owned_gpu_count(line: str) -> int | None:
    """The GPU count a line of the user's words states without a model (_OWNED_COUNT, _SETUP_COUNT, _KEYED_COUNT);
    None where it states none."""
    m = _OWNED_COUNT.search(line) or _SETUP_COUNT.search(line) or _KEYED_COUNT.match(line)
    return int(m.group(1)) if m else None


# The words a GPU's full name adds to its short one without naming another model (a laptop's part, `GPU`).
_FULL_NAME_WORDS = frozenset({"laptop", "gpu", "maxq", "mobile", "with", "design"})


def _named_in_full(short: str, full: str) -> bool:
    """Whether `full` is `short` with only words of _FULL_NAME_WORDS after it (gputable.normalize), or the same name
    spelt longer (`GTX 1660 Ti` and `GeForce GTX 1660 Ti`, corpus 560): one GPU named twice."""
    a, b = normalize(short), normalize(full)
    if a == b:
        return (len(short), short) < (len(full), full)
    return b.startswith(a + " ") and set(b[len(a):].split()) <= _FULL_NAME_WORDS


def parse_user_gpus(text: str) -> GpuInventory:
    """The GPUs the user's words state: one count and one model (the largest count where one model is stated with
    several), or nothing where the lines name several models. Without a
    count, a list's one model (listed_model) names the first GPU's model and states no count."""
    said = {s for line in text.splitlines() for s in stated_gpus(line)}
    models = {m for line in text.splitlines()
              if (m := listed_model(line) or owned_model(line) or worded_model(line) or jetson_module(line)
                      or stated_series(line) or inline_listed_model(line))}
    # Another vendor's model the GPU table names (`a 8 cards MI300X system`, corpus 2698: an AMD row) is kept apart
    # (GpuInventory.others), as its name in AMD's own words would be (stated_vendor_gpus).
    apart = [f"{m} (the user's words)" for m in sorted({m for _, m in said} | models) if other_vendor(m)]
    said = {(n, m) for n, m in said if not other_vendor(m)}
    models = {m for m in models if not other_vendor(m)}
    try:
        found = _nvidia_user_gpus(text, said, models)
    except ParseError:
        if not apart:
            raise
        return GpuInventory(others=tuple(apart))
    return replace(found, others=(*found.others, *(a for a in apart if a not in found.others)))


def _nvidia_user_gpus(text: str, said: set[tuple[int, str]], models: set[str]) -> GpuInventory:
    """parse_user_gpus over the (count, model) pairs and the models without a count the user's words state, each an
    NVIDIA GPU's."""
    # A Jetson's L4T release names the platform of the module another line names (jtop's `Module:` and `L4T:`): one GPU.
    models = {m for m in models if not m.startswith(JETSON_PLATFORM_WORDS)} or models
    # A model named again in short (`- GPU: NVIDIA GeForce RTX 5060 Laptop GPU`, then `Use WSL2 with RTX 5060 Laptop
    # GPU` read as `RTX 5060`, corpus 2706) is the same GPU: the full name stands for both.
    models = {m for m in models if not any(_named_in_full(m, n) for n in models)}
    owned = {c for line in text.splitlines() if (c := owned_gpu_count(line)) is not None}
    if not said and len(owned) == 1 and len(models) <= 1:
        # A count without a model (`I have 2 NVIDIA cards`): the host's count, the model left to the listings (or to
        # a list's one model).
        owned_count = next(iter(owned))
        why = "a count in the user's words, not a listing"
        if models:
            return counted_gpus(USER_WORDS_TITLE, owned_count, next(iter(models)), why)
        return GpuInventory(counts=((USER_WORDS_TITLE, owned_count),), partial=((USER_WORDS_TITLE, why),))
    several = [ms for line in text.splitlines() if len(ms := listed_models(line) or owned_models(line)) > 1]
    if not said and len(several) == 1 and models <= set(several[0]):
        # One list line's several models (`GPUS: 3090 (24 gb) 3060 (12 gb)`, corpus 2419), or one sentence's that the
        # user owns them (owned_models, corpus 2650): one host's, one GPU of each at least, in the user's order; no
        # count stated.
        return GpuInventory(gpus=tuple(GpuRecord(i, "", m, None, (USER_WORDS_TITLE,)) for i, m in enumerate(several[0])))
    if not said and len(models) == 1:
        return GpuInventory(gpus=(GpuRecord(0, "", next(iter(models)), None, (USER_WORDS_TITLE,)),))
    npus = [n for line in text.splitlines() if (n := stated_npus(line) or stated_vendor_gpus(line))]
    if not said and not models and npus:
        # Another vendor's accelerators only (Ascend NPUs, `GPU: AMD`): no NVIDIA GPU in the user's words
        # (GpuInventory.others).
        return GpuInventory(others=(npus[0],))
    if not said:
        raise ParseError("no GPU count and model in the user's words" + (
            f" (a list names several models: {', '.join(sorted(models))})" if models else ""))
    if len(said) > 1 and len({m for _, m in said}) == 1:
        # One model in several counts: runs on part of one host (`1 nvidia 4090`, then 2, then 3 with
        # CUDA_VISIBLE_DEVICES, llama-cpp-python#1026); the largest count is the least the host holds.
        said = {max(said)}
    lists = [listed for line in text.splitlines() if (listed := stated_gpu_list(line))]
    if len(said) > 1 and len(lists) == 1 and said <= set(lists[0]):
        # One host's mixed cards, counted and listed in one statement (`3 old gpus (1080ti, 2x1070)`, corpus 1283):
        # numbered in the user's order, which need not be the host's.
        records = tuple(GpuRecord(i, "", model, None, (USER_WORDS_TITLE,))
                        for i, model in enumerate(m for n, m in lists[0] for _ in range(n)))
        return GpuInventory(gpus=records, counts=((USER_WORDS_TITLE, len(records)),),
                            partial=((USER_WORDS_TITLE, "a count in the user's words, not a listing"),))
    if len(said) > 1:
        raise ParseError("the user's words name several GPU sets (" + ", ".join(f"{n} x {m}" for n, m in sorted(said))
                         + "): several hosts' or one host's mixed cards, which the words do not tell apart")
    count, model = next(iter(said))
    return counted_gpus(USER_WORDS_TITLE, count, model, "a count in the user's words, not a listing")


def counted_gpus(title: str, count: int, model: str, why: str) -> GpuInventory:
    """`count` GPUs of one model that a source states without listing them (indices 0..count-1), its count kept
    as an excerpt's (`why`): the user's words, a cloud instance type."""
    records = tuple(GpuRecord(i, "", model, None, (title,)) for i in range(count))
    return GpuInventory(gpus=records, counts=((title, count),), partial=((title, why),))


@parser(USER_MACHINE, feeds="gpus", kind=GpuInventory, rank=90)
def gpus_from_user_words(text: str) -> GpuInventory:
    """The GPU count and model the user's words state: index (0..count-1), product name.

    Input (tests/data/captures/215)::

        These tests have been conducted on an AWS g5.48xlarge instance which has 8 x A10G GPUs
    """
    return parse_user_gpus(text)


# The kernel's PCI enumeration line of a function (drivers/pci/probe.c pci_setup_device: `pci 0000:01:00.0: [10de:2204]
# type 00 class 0x030000`, newer kernels adding the port type, `PCIe Legacy Endpoint`): an NVIDIA display (0x0300) or
# 3D (0x0302) controller, its PCI device id naming the model through the GPU table (corpus 2277, an RTX 3090's 2204).
# Its audio (0x0403) and USB (0x0c03) functions and an NVSwitch (0x0680) are no GPU.
KERNEL_PCI_GPU = re.compile(rf"\bpci ({BDF}): \[10de:([0-9a-fA-F]{{4}})\] type 0[01] class 0x030[02][0-9a-fA-F]{{2}}\b")


def kernel_pci_gpus(lines: Sequence[str]) -> dict[str, str]:
    """The NVIDIA GPU functions the kernel's PCI enumeration lines show (KERNEL_PCI_GPU): BDF -> PCI device id."""
    return {normalize_bdf(m.group(1)) or m.group(1).lower(): m.group(2).lower()
            for line in lines if "[10de:" in line and (m := KERNEL_PCI_GPU.search(line))}


@provider("gpus", GpuInventory, rank=60, title=KERNEL_LOG_TITLE)
def gpus_from_kernel_log(ctx: FactContext) -> GpuInventory:
    """GPUs the driver names in the kernel log (Xid and fallen-off-the-bus lines, `NVRM: GPU 0000:13:00.0: ...` lines
    such as RmInitAdapter's failure, corpus 656), and the NVIDIA GPU functions the kernel's PCI enumeration lines show
    (kernel_pci_gpus), each named by the GPU table's row for its PCI device id (corpus 2277): BDFs, no count."""
    from stackaudit.facts.gpu_events import STATED_GPU, GpuEvents, nvrm_gpu_bdfs
    from stackaudit.facts.system import KernelLog

    events = ctx.optional("gpu_events", GpuEvents)
    log = ctx.optional("kernel_log", KernelLog)
    enumerated = kernel_pci_gpus(log.grep(r"\[10de:", needles=("[10de:",))) if log is not None else {}
    # An Xid in the user's words that names no address (STATED_GPU) names no GPU by its BDF.
    bdfs = sorted({e.bdf for e in (events.events if events is not None else ()) if e.bdf and e.bdf != STATED_GPU}
                  | set(nvrm_gpu_bdfs(log.lines) if log is not None else ()) | set(enumerated))
    if not bdfs:
        raise FactUnavailable("the kernel log names no GPU")
    return GpuInventory(gpus=tuple(GpuRecord(None, b, _row_of_device(enumerated.get(b, "")), None, (KERNEL_LOG_TITLE,))
                                   for b in bdfs))



AMDGPU_LOG_TITLE = "the kernel log's amdgpu lines"
# AMD's kernel driver naming the GPU it drives: its dev_printk prefix (`amdgpu 0000:9e:00.0: amdgpu: GPU reset begin!`,
# corpus 1223 and 1245), else its DRM or module lines without one (`[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring
# sdma0 timeout`, `[drm] Initialized amdgpu 3.57.0`, `amdgpu: Failed to evict process queues`). amdgpu drives AMD's
# Radeon and Instinct GPUs and the Ryzen APUs' integrated ones, the GPUs ROCm runs on.
_AMDGPU_DEVICE = re.compile(rf"(?:^|[\s\]])amdgpu ({BDF}): ")
_AMDGPU_MODULE = re.compile(r"\[drm:amdgpu_\w+ \[amdgpu\]\]|\[drm\] (?:Initialized amdgpu|amdgpu kernel modesetting)"
                            r"|(?:^|[\s\]]|kernel:\s)amdgpu: ")
# Any line of NVIDIA's kernel modules or of nouveau, which drives NVIDIA GPUs too: a log that holds one shows an
# NVIDIA GPU beside the AMD one (a Ryzen APU's integrated GPU beside a GeForce card), so it shows no AMD-only host.
_NVIDIA_KERNEL_LINE = re.compile(r"NVRM|nvidia|nouveau", re.I)


def amdgpu_devices(lines: Sequence[str]) -> tuple[str, ...]:
    """The AMD GPUs kernel-log lines show amdgpu driving, in words: the BDFs its lines name, else the first line of
    the module (_AMDGPU_MODULE); () where no line is amdgpu's."""
    bdfs = list(dict.fromkeys(normalize_bdf(m.group(1)) or m.group(1).lower()
                              for line in lines if (m := _AMDGPU_DEVICE.search(line))))
    if bdfs:
        return (f"{'an AMD GPU' if len(bdfs) == 1 else 'AMD GPUs'} at {', '.join(bdfs)} ({AMDGPU_LOG_TITLE})",)
    first = next((line.strip() for line in lines if _AMDGPU_MODULE.search(line)), "")
    return (f"an AMD GPU ({AMDGPU_LOG_TITLE}: {first[:120]})",) if first else ()


@provider("gpus", GpuInventory, rank=62, title=AMDGPU_LOG_TITLE)
def gpus_from_amdgpu_log(ctx: FactContext) -> GpuInventory:
    """AMD GPUs the kernel log shows amdgpu driving (amdgpu_devices): another vendor's (`others`), where no line of
    the log is NVIDIA's driver's or nouveau's (a host with both keeps its NVIDIA GPU open)."""
    from stackaudit.facts.system import KernelLog

    log = ctx.fact("kernel_log", KernelLog)
    amd = amdgpu_devices(log.grep(r"amdgpu", needles=("amdgpu",)))
    if not amd:
        raise FactUnavailable("the kernel log shows no amdgpu line")
    if _NVIDIA_KERNEL_LINE.search(log.text):
        raise FactUnavailable("the kernel log shows NVIDIA's driver or nouveau beside amdgpu: not an AMD-only host")
    return GpuInventory(others=amd)


OTHER_LOG_TITLE = "another vendor's GPU in an engine's lines (ROCm, Metal)"
# Lines of an engine's log that show a GPU of another vendor at work, and how a report names it: `{name}`, the GPU the
# line names; `{line}`, the line itself (cut), where it names none.
# - ollama before 0.1.29 probed ROCm's SMI library from C (gpu/gpu_info_rocm.c, printed under OLLAMA_DEBUG) and logged
#   what it found (gpu/gpu.go): `discovered 2 ROCm GPU Devices`, `[0] ROCm device name: Navi 22 [Radeon RX ...]`,
#   `msg="Radeon GPU detected"`, `msg="ROCm integrated GPU detected - ROCR_VISIBLE_DEVICES=0"`, `msg="rocm detected 2
#   devices with 10208M available memory"` (corpus 1543, ollama/ollama#2869; ollama/ollama#738).
# - ollama from 0.1.29 reads the amdgpu driver's sysfs nodes (discover/amd_linux.go, amd_windows.go): `msg="amdgpu is
#   supported" gpu=0 gpu_type=gfx1102`, `msg="amdgpu is not supported (supported types:[gfx1103])" gpu_type=gfx1150`,
#   `msg="unsupported Radeon iGPU detected skipping" id=1` (ollama/ollama#11557),
#   then its `inference compute` line of a ROCm GPU (`library=rocm variant="" compute=gfx1102 driver=0.0
#   name=1002:7480`, `library=ROCm` from 0.12); 0.12's bootstrap drops a device whose runner did not start
#   (`msg="filtering device which didn't fully initialize" ... library=ROCm`, corpus 1545, ollama/ollama#13920).
# - llama.cpp built for HIP (ggml-cuda compiled for ROCm) names its devices as the CUDA build does with ROCm for CUDA:
#   `ggml_cuda_init: found 1 ROCm devices:` (`ggml_init_cublas:` before March 2024, ollama/ollama#3158), `using
#   device ROCm0 (AMD Radeon RX 7900 XTX)`, `- ROCm0 : AMD Radeon RX 7900 XTX (24560 MiB, 24480 MiB free)`. A CUDA
#   build on NVIDIA GPUs says `found N CUDA devices` and `CUDA0`.
# - ggml's Metal backend (ggml-metal.m, Apple's Metal on macOS): `ggml_metal_init: found device: Apple M2 Max`,
#   `ggml_metal_init: GPU name:   Apple M2 Max`, any `ggml_metal_*:` / `ggml_backend_metal_*:` line and its assertions
#   in ggml-metal.m (corpus 1546, ollama/ollama#434; ggml-org/llama.cpp#10003 names an Intel Mac's AMD Radeon VII),
#   `using device Metal (Apple M2 Max)`, `- Metal : Apple M2 Max (...)`. Metal runs Apple's, AMD's and Intel's GPUs;
#   CUDA has no macOS release since CUDA 10.2, so an NVIDIA GPU of an old Mac is never CUDA's there.
METAL_BACKEND = "ggml's Metal backend"
# AMD's own tools and ROCm's runtime variables, each line alone naming an AMD GPU (what the GPU's row shows of its
# clocks and power is read by amd_readings):
# - rocm-smi's banner and its concise table (ROCm/ROC-smi, rocm_smi_lib's python_smi_tools/rocm_smi.py): the classic
#   header `GPU  Temp (DieEdge)  AvgPwr  SCLK  MCLK  Fan  Perf  PwrCap  VRAM%  GPU%` (ROCm/ROC-smi#86, corpus 1595)
#   and the ROCm 6 one `Device  Node  IDs (DID, GUID)  Temp (Edge)  Power (Avg)  Partitions (Mem, Compute, ID)  SCLK
#   ...` (ROCm/ROCm#4750), and a GPU's row: its temperature in `c` or `°C` and its clocks in `Mhz`, the spelling of
#   rocm-smi (nvidia-smi prints `MHz`), a row a paste may wrap in backticks (corpus 1595).
# - rocm-smi's per-GPU fields (`GPU[0]\t\t: Card series: \t\tAMD Instinct MI100`, `--showproductname`, `-i`'s
#   `Device Name:`, `GFX Version:  gfx942`), a GPU's `GPU[N]` prefix and a field name of rocm-smi's.
# - rocminfo's GPU agent (`Name:  gfx1100`, its ISA `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`, `Marketing Name:
#   Radeon RX 7900 XTX`); a CPU agent's `Marketing Name` (an EPYC, a Ryzen with Radeon graphics) names no GPU.
# - amd-smi's banner (`AMD-SMI 24.6.2+2b02a07 amdgpu version: 6.7.0 ROCm version: 6.2.1`), its `static` fields
#   (`MARKET_NAME: AMD Instinct MI350X`, `TARGET_GRAPHICS_VERSION: gfx950`, ROCm/rocm-systems#2987), `list`'s `KFD_ID:`
#   and `metric`'s `GFX_ACTIVITY:`, `UMC_ACTIVITY:`, `THROTTLE_STATUS:` (joular/powerjoular#67).
# - rocm-smi's JSON (`--json`): a `"card0": {` key, `"Card Series": "AMD INSTINCT MI200 ..."`, `"GFX Version": "gfx..."`
#   (ROCm/rocm_smi_lib#159).
# - ROCm's runtime variables set to a value in a command or an environment dump (`HSA_OVERRIDE_GFX_VERSION=10.3.0`,
#   `HIP_VISIBLE_DEVICES=0`, `ROCR_VISIBLE_DEVICES=0,1`; ollama/ollama#3107): only ROCm's runtime reads them. ollama's
#   config dump lists them empty on every host (`HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES:`, corpus 1259), which is
#   no value set.
_ROCM_SMI_FIELDS = (r"Card [Ss]eries|Card [Mm]odel|Card [Vv]endor|Card SKU|Device Name|GFX Version|Temperature \(Sensor"
                    r" \w+\) \(C\)|(?:Current Socket|Average) Graphics Package Power \(W\)|GPU use \(%\)|GPU [Mm]emory "
                    r"(?:use|Allocated) \(|Max Graphics Package Power \(W\)|[sm]clk clock level|Performance Level|"
                    r"VBIOS version|GPU ID")
ROCM_VARIABLE = "AMD GPUs (ROCm's runtime variable"
AMD_TOOL_LINES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\W{0,3}=+\s*ROCm System Management Interface\s*=+"), "AMD GPUs (rocm-smi: `{line}`)"),
    (re.compile(r"^\W{0,3}(?:GPU\s+Temp\b.*\bAvgPwr\s+SCLK\s+MCLK\b|Device\s+(?:Node\s+IDs|\[Model : Revision\])\s.*"
                r"\bTemp\s.*\bSCLK\s+MCLK\b)"), "AMD GPUs (rocm-smi's table: `{line}`)"),
    (re.compile(r"^\W{0,3}\d+\s+.*?\d(?:\.\d+)?(?:c|°C)\s+.*?\b\d+Mhz\s+(?:\d+Mhz|N/A|None)\b"),
     "AMD GPUs (rocm-smi's table: `{line}`)"),
    (re.compile(r"^\W{0,3}GPU\[\d+\]\s*:\s*(?:Card [Ss]eries|Device Name|Card [Mm]odel):\s*(?P<name>[^\s0].*?)\s*$"),
     "{name} (rocm-smi)"),
    (re.compile(r"^\W{0,3}GPU\[\d+\]\s*:\s*GFX Version:\s*(?P<name>gfx\w+)"), "an AMD GPU, {name} (rocm-smi)"),
    (re.compile(r"^\W{0,3}GPU\[\d+\]\s*:\s*(?:" + _ROCM_SMI_FIELDS + r")"), "AMD GPUs (rocm-smi: `{line}`)"),
    (re.compile(r"^\s*Name:\s+(?P<name>gfx\d\w*)\s*$|^\s*Name:\s+amdgcn-amd-amdhsa--(?P<name2>gfx\w+)"),
     "an AMD GPU, {name} (rocminfo)"),
    (re.compile(r"^\s*Marketing Name:\s+(?P<name>(?:AMD )?(?:Radeon|Instinct|FirePro)\b.*?)\s*$"), "{name} (rocminfo)"),
    (re.compile(r"\bAMD-SMI \d+\.\d+\S*\s+amdgpu version:|^\s*AMDSMI Tool: \d"), "AMD GPUs (amd-smi: `{line}`)"),
    (re.compile(r"^\s*MARKET_NAME:\s+(?P<name>\S.*?)\s*$"), "{name} (amd-smi)"),
    (re.compile(r"^\s*(?:GFX_ACTIVITY|UMC_ACTIVITY|THROTTLE_STATUS|KFD_ID):\s+\S"), "AMD GPUs (amd-smi: `{line}`)"),
    (re.compile(r'^\s*"Card [Ss]eries"\s*:\s*"(?P<name>[^"]+)"'), "{name} (rocm-smi --json)"),
    (re.compile(r'^\s*"card\d+"\s*:\s*\{|^\s*"GFX Version"\s*:\s*"gfx'), "AMD GPUs (rocm-smi --json: `{line}`)"),
    (re.compile(r"^\s*TARGET_GRAPHICS_VERSION:\s+(?P<name>gfx\w+)"), "an AMD GPU, {name} (amd-smi)"),
    (re.compile(r"^(?!.*\bCUDA_VISIBLE_DEVICES=)(?:.*?[\s\"'])?(?:export\s+|--env\s+|-e\s+|set\s+)?(?:HSA_OVERRIDE_GFX_VERSION(?:_\d+)?|HIP_VISIBLE_DEVICES|"
                r"ROCR_VISIBLE_DEVICES)=[\"']?[\w.,-]"), ROCM_VARIABLE + ": `{line}`)"),
)
# vLLM's attention selector on ROCm (`Using ROCmFlashAttention backend.`, vllm/attention/selector.py before V1;
# corpus 2693) and torch's HIP build falling back from hipBLASLt (`Attempting to use hipBLASLt on an unsupported
# architecture! Overriding blas backend to hipblas`, aten/src/ATen/Context.cpp): only a ROCm build prints them
# (facts/cuda_ran.TORCH_ROCM reads them too).
ROCM_BUILD_LINE = re.compile(r"(?i:\bUsing ROCm ?\w{0,20}Attention backend\b|\bAttempting to use hipBLASLt on an "
                             r"unsupported architecture\b)")
_OTHER_GPU_LINES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\s*\[\d+\] ROCm device name: (?P<name>\S.*?)\s*$"), "{name} (ollama's ROCm discovery)"),
    (re.compile(r"\bdiscovered \d+ ROCm GPU Devices\b|^\s*\[\d+\] ROCm (?:brand|vendor|VRAM vendor|subsystem name|"
                r"vbios version|totalMem|usedMem|integrated GPU)\b|\bmsg=\"(?:Radeon GPU detected|ROCm integrated GPU "
                r"detected|rocm detected \d+ devices|unsupported Radeon iGPU detected)"),
     "AMD GPUs (ollama's ROCm discovery: `{line}`)"),
    (re.compile(r'\bmsg="amdgpu (?:is supported|is not supported|too old)\b[^"]*".*?\bgpu_type=(?P<name>gfx\w+)'),
     "an AMD GPU, {name} (ollama's ROCm discovery)"),
    (re.compile(r'\bmsg="inference compute" id=\S+ library=rocm\b.*?\bcompute=(?P<name>gfx\w+)', re.I),
     "an AMD GPU, {name} (ollama's `inference compute` line of library=rocm)"),
    (re.compile(r"\bmsg=\"filtering device which didn't fully initialize\".*?\bpci_id=(?P<name>[0-9a-fA-F:.]+).*?"
                r"\blibrary=ROCm\b", re.I), "an AMD GPU at {name} (ollama's ROCm library found it, and it did not "
     "initialise)"),
    (re.compile(r"\bggml_(?:cuda_init|init_cublas): found [1-9]\d* ROCm devices"),
     "AMD GPUs (llama.cpp's HIP build: `{line}`)"),
    (re.compile(r"\busing device ROCm\d+ \((?P<name>[^)]+)\)|^\s*(?:\d+\.\d\d\.\d{3}\.\d{3} [DIWE] )?\s*-?\s*ROCm\d+\s*:"
                r" (?P<name2>[^()]+?) \(\d+ MiB"), "{name} (llama.cpp's HIP build)"),
    # Its buffers on a ROCm device (`llama_kv_cache_init:      ROCm0 KV buffer size =   488.00 MiB`, `ROCm0 model
    # buffer size`, `ROCm_Host`'s beside them) and HIP's allocation call in its CUDA source's error (`hipMalloc((void
    # **) &ptr, look_ahead_size)`, corpus 1569): the HIP build names its devices ROCm0, ROCm1, ...
    (re.compile(r"\bROCm\d+ (?:model |KV |compute |output )?buffer size\b|\bhipMalloc\("),
     "AMD GPUs (llama.cpp's HIP build: `{line}`)"),
    # RCCL, ROCm's build of NCCL, logs under NCCL's tags and names itself: its network plugin `librccl-net.so`, its
    # banner `RCCL version : 2.21.5-HEAD:9a0e6a1` (`RCCL version 2.6.4+hip3.5` before), the ROCr runtime's version, its
    # sources' path (`/src/extlibs/rccl/build/src/init.cpp:126 NCCL WARN Missing "HSA_FORCE_FINE_GRAIN_PCIE=1"`;
    # ROCm/rccl#1026, ROCm/rccl#1454, ROCm/rccl-tests#163).
    (re.compile(r"\blibrccl(?:-net)?\.so\b|\bRCCL version\b|\bNCCL INFO ROCr version\b|/rccl/\S*\.(?:cc|cpp):\d+"),
     "AMD GPUs (RCCL, ROCm's NCCL: `{line}`)"),
    *AMD_TOOL_LINES,
    (ROCM_BUILD_LINE, "AMD GPUs (a ROCm build of vLLM or torch: `{line}`)"),
    # Kubernetes hands AMD GPUs out under AMD's names: the device plugin's resource in a pod's requests, limits or a
    # node's capacity (`amd.com/gpu: 8`, ROCm/k8s-device-plugin, vllm-project/vllm#11465) and the DRA driver's device
    # class in a ResourceClaim (`deviceClassName: gpu.amd.com`, ROCm/k8s-gpu-dra-driver, corpus 1878).
    (re.compile(r"\bdeviceClassName:\s*[\"']?gpu\.amd\.com\b|\bamd\.com/gpu[\"']?\s*:\s*[\"']?[1-9]"),
     "AMD GPUs (Kubernetes' AMD GPU resource: `{line}`)"),
    (re.compile(r"\bggml_metal_init: (?:found device|GPU name):\s+(?P<name>\S.*?)\s*$"), "{name} (" + METAL_BACKEND + ")"),
    # ggml's Vulkan backend listing an AMD or Intel device (`ggml_vulkan: 0 = AMD Radeon RX 580 Series (RADV
    # POLARIS10) (radv) | uma: 0 | fp16: 0 | ...`, ggml-vulkan.cpp ggml_vk_print_gpu_info; corpus 2845): Vulkan runs
    # on NVIDIA's GPUs too, whose devices it names `NVIDIA ...` (not another vendor's).
    (re.compile(r"\bggml_vulkan: \d+ = (?P<name>(?:AMD|Radeon|Intel)\b[^|(]*?)\s*[(|]"),
     "{name} (ggml's Vulkan backend)"),
    (re.compile(r"\busing device Metal\d* \((?P<name>[^)]+)\)|^\s*(?:\d+\.\d\d\.\d{3}\.\d{3} [DIWE] )?\s*-?\s*Metal\d*"
                r"\s*: (?P<name2>[^()]+?) \(\d+ MiB"), "{name} (" + METAL_BACKEND + ")"),
    (re.compile(r"\bggml_(?:backend_)?metal_\w+:|\bggml-metal\.m:\d+"), "a Metal GPU (" + METAL_BACKEND + ": `{line}`)"),
    # torch's own repr of a tensor or device on Apple's Metal Performance Shaders backend (`device(type='mps',
    # index=0)`, `tensor([1.], device='mps:0')`): macOS only (https://pytorch.org/docs/stable/notes/mps.html).
    (re.compile(r"\bdevice\(type='mps'|\bdevice='mps(?::\d+)?'"), "an Apple GPU (torch's MPS device: `{line}`)"),
    # A macOS host runs no CUDA: CUDA 10.2 (2019) is the last CUDA toolkit and driver release for macOS
    # (https://docs.nvidia.com/cuda/archive/10.2/cuda-toolkit-release-notes/index.html), so its GPU is Metal's (Apple's,
    # or an Intel Mac's AMD or Intel GPU). text-generation-webui's one-click launcher for macOS (`bash start_macos.sh`,
    # corpus 1548) starts the server on the Mac itself; a collect_env's `OS: macOS 14.5 (arm64)` is read by
    # gpus_from_collect_env.
    # LocalAI's AIO image's entrypoint (aio/entrypoint.sh, mudler/LocalAI) greps lspci's VGA and 3D controllers for
    # NVIDIA first, printing `NVIDIA GPU detected`, then for AMD and Intel: an AMD or Intel line with no NVIDIA line
    # beside it (_NVIDIA_IN_LOG) is a host whose bus shows no NVIDIA GPU (corpus 1978, mudler/LocalAI#3184).
    (re.compile(r"^\s*(?P<name>Intel|AMD) GPU detected(?:\s*$|, but (?:Intel GPU drivers|ROCm) (?:are|is) not installed)"),
     "an {name} GPU (LocalAI's AIO entrypoint, which looks for an NVIDIA one first: `{line}`)"),
    (re.compile(r"\bstart_macos\.sh\b"), "a macOS host's GPU (text-generation-webui's macOS launcher: `{line}`), "
     "which no CUDA since 10.2 runs"),
)
# One of these literals stands on every line of _OTHER_GPU_LINES (importers/evidence.py's needles).
OTHER_GPU_NEEDLES = ("amd.com", "ROCm", "rccl", "ROCr version", "hipMalloc", "hipBLASLt", "Mhz", "SCLK", "GPU[", "Name:", "MARKET_NAME", "TARGET_GRAPHICS", "AMD-SMI", "AMDSMI",
                     "_VISIBLE_DEVICES=", "HSA_OVERRIDE",
                     "GFX_ACTIVITY", "UMC_ACTIVITY", "THROTTLE_STATUS", "KFD_ID", '"card', '"Card', '"GFX', "amdgpu", "Radeon GPU", "Radeon iGPU", "ggml_metal", "ggml_vulkan:", "ggml_backend_metal", "ggml-metal",
                     "Metal", "start_macos", "'mps", "GPU detected")
# A GPU of NVIDIA's in the same lines: a CUDA device ollama or llama.cpp found (`library=cuda`, `found 1 CUDA
# devices`, `CUDA0`), an NVIDIA name or GPU UUID. A log that holds one shows a host with an NVIDIA GPU beside the
# other vendor's (ollama's own test log `frank`: an AMD gfx1030 and an NVIDIA RTX 2080 Ti), so it shows no
# other-vendor-only host.
_NVIDIA_IN_LOG = re.compile(r"\blibrary=cuda\b|\bfound [1-9]\d* CUDA devices|\bCUDA\d+\b|\bNVIDIA\b|"
                            r"\bGPU-[0-9a-f]{8}-[0-9a-f]{4}-", re.I)


def other_gpu_line(line: str) -> str:
    """The GPU of another vendor a line of an engine's log shows at work (_OTHER_GPU_LINES), in words; "" where it
    shows none."""
    for pattern, words in _OTHER_GPU_LINES:
        if (m := pattern.search(line)) is not None:
            name = next((g for g in (m.groupdict().get("name"), m.groupdict().get("name2")) if g), "")
            # A paste that wraps each line in backticks (corpus 1595) keeps them out of the quote.
            return words.format(name=name.strip(), line=line[m.start():].strip().strip("`").strip()[:100])
    return ""


def parse_other_vendor_gpus(text: str) -> GpuInventory:
    """Another vendor's GPUs an engine's lines show at work (other_gpu_line), in words (`others`): the named ones, else
    the first line that names none; never where the same lines show an NVIDIA GPU (_NVIDIA_IN_LOG)."""
    shown = [words for line in text.splitlines() if (words := other_gpu_line(line))]
    if not shown:
        raise ParseError("no line of another vendor's GPU (ROCm, Metal)")
    if _NVIDIA_IN_LOG.search(text):
        raise ParseError("the lines show an NVIDIA GPU beside another vendor's: not another vendor's host alone")
    # A line that names a GPU, else an AMD tool's or an engine's line, is quoted before a ROCm variable's.
    shown.sort(key=lambda w: w.startswith(ROCM_VARIABLE))
    named = [w for w in shown if "`" not in w]
    metal = next((w for w in shown if METAL_BACKEND in w), "")
    return GpuInventory(others=tuple(dict.fromkeys(named or shown[:1])), one_device=(
        f"ggml's Metal backend runs the model on the one Metal device it picks, the system's default GPU ({metal})",)
        if metal else ())


@parser(EVIDENCE_LINES, feeds="gpus", kind=GpuInventory, rank=63)
def gpus_from_other_vendor_lines(text: str) -> GpuInventory:
    """Another vendor's GPUs that pasted lines of ollama's ROCm discovery or ggml's Metal backend show (others).

    Input (tests/data/captures/1543)::

        discovered 2 ROCm GPU Devices
        [0] ROCm device name: Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT]

    Input (tests/data/captures/1546)::

        ggml_metal_graph_compute: command buffer 8 failed with status 5
    """
    return parse_other_vendor_gpus(text)


@parser(ENGINE_LOG, feeds="gpus", kind=GpuInventory, rank=64)
def gpus_from_other_vendor_log(text: str) -> GpuInventory:
    """Another vendor's GPUs an engine's log shows at work: ollama's ROCm lines, llama.cpp's HIP or Metal devices.

    Input (tests/data/captures/1545)::

        time=2026-01-26T16:13:57.699-03:00 level=DEBUG source=runner.go:153 msg="filtering device which didn't fully initialize" id=0 libdir=C:\\Users\\aldoc\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\rocm pci_id=0000:03:00.0 library=ROCm
    """
    return parse_other_vendor_gpus(text)


@parser(K8S_SPEC, feeds="gpus", kind=GpuInventory, rank=66)
def gpus_from_k8s_spec(text: str) -> GpuInventory:
    """AMD GPUs a pasted Kubernetes spec asks for: AMD's device plugin resource or DRA device class (_OTHER_GPU_LINES),
    where the spec names no NVIDIA resource.

    Input (tests/data/captures/1878)::

            deviceClassName: gpu.amd.com
    """
    return parse_other_vendor_gpus(text)


SELECTOR_TITLE = "a pod spec's nodeSelector (its nodes' GPU model label)"


@parser(K8S_SPEC, feeds="gpus", kind=GpuInventory, rank=82)
def gpus_from_node_selector(text: str) -> GpuInventory:
    """The GPUs a pasted pod spec asks for, of the model its nodeSelector pins it to (container_specs.NODE_GPU_LABEL),
    the label's value read as the user's words are (`gtx-1050` the GeForce GTX 1050, `nvidia-tesla-t4` the T4): a lower
    bound of the node's, which may hold more. A value the GPU table does not read as a model names none.

    Input (tests/data/captures/2124)::

        apiVersion: v1
        kind: Pod
        metadata:
          name: gpu-gtx-1050
        spec:
          containers:
            - name: cuda-container
              image: nvidia/cuda:9.0-devel
              resources:
                limits:
                  nvidia.com/gpu: 1 # requesting 2 GPUs
                requests:
                  nvidia.com/gpu: 1
          nodeSelector:
            accelerator: gtx-1050
    """
    from stackaudit.facts.container_specs import selected_gpu_labels

    named = [(model, n) for value, n in selected_gpu_labels(text) if (model := _model_in(value.replace("-", " ").split()))]
    if len({m for m, _ in named}) != 1:
        raise ParseError("no pod spec pinned by its nodeSelector to one GPU model it asks GPUs of")
    model, count = named[0][0], max(n for _, n in named)
    return counted_gpus(SELECTOR_TITLE, count, model, "the GPUs a pod asks for on nodes labelled with their model")


@parser(K8S_NODE, feeds="gpus", kind=GpuInventory, rank=81)
def gpus_from_k8s_node(text: str) -> GpuInventory:
    """AMD GPUs a pasted node description counts (`amd.com/gpu: 8` in its capacity), where it counts no NVIDIA GPU.

    Input (modelled on `kubectl describe node`)::

          amd.com/gpu:        8
    """
    return parse_other_vendor_gpus(text)


RAY_STATUS_TITLE = "`ray status`'s accelerator types"
# Ray 1.x's `ray status` line for a node type, read by ray_log.NODES_WITH and RESOURCE_GPU: ` 1 node(s) with resources:
# {..., 'GPU': 4.0, ..., 'accelerator_type:T4': 1.0}`. Ray names the type from the GPU's product name (`Tesla T4` the
# T4: ray/_private/accelerators/nvidia_gpu.py).
_RAY_TYPE = re.compile(r"'accelerator_type:([\w.-]{1,30})'")


@parser(RAY_STATUS, feeds="gpus", kind=GpuInventory, rank=83)
def gpus_from_ray_status(text: str) -> GpuInventory:
    """The GPUs of a Ray 1.x cluster, of the model its nodes' accelerator type names (_RAY_TYPE): each node type's
    count times its GPUs, where every node type with GPUs names one model the GPU table reads.

    Input (tests/data/captures/2386)::

        ------------------------------------------------------------
         1 node(s) with resources: {'CPU': 1.0, 'node:10.0.58.7': 1.0, 'object_store_memory': 1275152793.0, 'memory': 2550305588.0}
         1 node(s) with resources: {'memory': 120227550823.0, 'GPU': 4.0, 'node:10.0.40.99': 1.0, 'object_store_memory': 51526093209.0, 'CPU': 40.0, 'accelerator_type:T4': 1.0}
    """
    models: set[str] = set()
    count = 0
    for line in text.splitlines():
        nodes, gpu = NODES_WITH.match(line), RESOURCE_GPU.search(line)
        if nodes is None or gpu is None or round(float(gpu.group(1))) == 0:
            continue
        kind = _RAY_TYPE.search(line)
        models.add(_model_in(kind.group(1).replace("-", " ").split()) if kind else "")
        count += int(nodes.group(1)) * round(float(gpu.group(1)))
    if not count or len(models) != 1 or "" in models:
        raise ParseError("no Ray node type whose GPUs one accelerator type names")
    return counted_gpus(RAY_STATUS_TITLE, count, models.pop(), "the GPUs a Ray cluster's nodes offer, by type")


# A GPU's row of rocm-smi's concise table (AMD_TOOL_LINES): its index first, then (past the node, IDs or model
# columns of later layouts) its temperature in `c` or `°C` and its average power, then its clocks in `Mhz`, its cap
# in W, and, where the header ends with `VRAM%  GPU%`, its memory and busy shares last.
_ROCM_SMI_ROW = re.compile(r"^\W{0,3}(?P<gpu>\d+)\s+(?:.*?\s)?(?P<temp>\d+(?:\.\d+)?)(?:c|°C)\s+"
                           r"(?P<power>\d+(?:\.\d+)?W|N/A)\s+(?P<rest>.*?\d+Mhz.*?)[\s`]*$")
_ROCM_SMI_TAIL = re.compile(r"\bVRAM%\s+GPU%\W*$")
_ROCM_SMI_SHARES = re.compile(r"(?:(\d+(?:\.\d+)?)%|N/A)\s+(?:(\d+(?:\.\d+)?)%|N/A)\s*$")


@dataclass(frozen=True)
class AmdGpuReading:
    """One AMD GPU's row of rocm-smi's concise table; None where the row reads N/A or the table has no such column."""

    index: int
    temp_c: float
    power_w: float | None
    cap_w: float | None
    sclk_mhz: int | None
    busy_pct: float | None
    vram_pct: float | None
    line: str

    def in_words(self) -> str:
        busy = f"{self.busy_pct:g} % busy, " if self.busy_pct is not None else ""
        clock = f"SCLK {self.sclk_mhz} MHz, " if self.sclk_mhz is not None else ""
        power = (f"{self.power_w:g} W" + (f" of its {self.cap_w:g} W cap" if self.cap_w is not None else "")
                 if self.power_w is not None else "power N/A")
        return f"GPU {self.index} {busy}{clock}{self.temp_c:g} °C, {power}"


@dataclass(frozen=True, kw_only=True)
class AmdGpuReadings(Sourced):
    """The clocks, power and busy share rocm-smi's concise table shows per AMD GPU (its rows in a paste)."""

    gpus: tuple[AmdGpuReading, ...] = ()

    def in_words(self) -> str:
        """Each GPU's readings; the GPUs that read alike idle (0 % busy at one clock) as one group."""
        idle = [g for g in self.gpus if g.busy_pct == 0]
        clocks = {g.sclk_mhz for g in idle}
        if len(idle) < 2 or len(clocks) != 1:
            return "; ".join(g.in_words() for g in self.gpus)
        rest = [g.in_words() for g in self.gpus if g not in idle]
        return "; ".join([*rest, f"GPUs {', '.join(str(g.index) for g in idle)} 0 % busy at SCLK {clocks.pop()} MHz"])


fact("amd_gpu_readings", AmdGpuReadings, hint="paste `rocm-smi` (its concise table) while the GPUs work")


@parser(EVIDENCE_LINES, feeds="amd_gpu_readings", kind=AmdGpuReadings, rank=10)
def amd_gpu_readings(text: str) -> AmdGpuReadings:
    """Each AMD GPU's row of a pasted rocm-smi concise table: temperature, power and its cap, SCLK, and the VRAM% and
    GPU% columns where the table's header ends with them.

    Input (tests/data/captures/1595, each line wrapped in backticks as posted)::

        `GPU  Temp (DieEdge)  AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%  `
        `1    62.0c           111.0W  1502Mhz 1200Mhz  0%   auto  290.0W   25%   100%    `
    """
    lines = text.splitlines()
    shares = any(_ROCM_SMI_TAIL.search(line) for line in lines)
    seen: dict[int, AmdGpuReading] = {}
    for line in lines:
        m = _ROCM_SMI_ROW.match(line)
        if m is None or int(m["gpu"]) in seen:
            continue
        clocks = re.findall(r"\b(\d+)Mhz\b", m["rest"])
        caps = re.findall(r"\b(\d+(?:\.\d+)?)W\b", m["rest"])
        tail = _ROCM_SMI_SHARES.search(m["rest"]) if shares else None
        seen[int(m["gpu"])] = AmdGpuReading(
            int(m["gpu"]), float(m["temp"]), None if m["power"] == "N/A" else float(m["power"][:-1]),
            float(caps[-1]) if caps else None, int(clocks[0]) if clocks else None,
            float(tail[2]) if tail and tail[2] else None, float(tail[1]) if tail and tail[1] else None,
            line.strip().strip("`").strip())
    if not seen:
        raise ParseError("no row of rocm-smi's concise table")
    return AmdGpuReadings(gpus=tuple(seen.values()), complete=False)


NCCL_LOG_TITLE = "an NCCL log's ranks on one host"


def from_nccl_log(ranks: Sequence[int], bus_ids: Sequence[str], on_host: int | None = None) -> GpuInventory:
    """The GPUs an NCCL log's ranks on one host hold: one each, since NCCL refuses two ranks of one communicator on
    one GPU (`Duplicate GPU detected`, init.cc); the BDFs its `busId` lines name. A lower bound: a log shows the
    ranks it prints, not the host's GPUs. `on_host`: the most ranks one host of a log from several hosts shows, the
    host's count (the job's world is not one host's GPUs: corpus 384, two pods of two ranks)."""
    n = on_host if on_host is not None else max(len(ranks), len(bus_ids))
    if n < 2:
        raise FactUnavailable("the NCCL log shows no two ranks on one host")
    records = tuple(GpuRecord(None, b, "", None, (NCCL_LOG_TITLE,)) for b in bus_ids)
    return GpuInventory(gpus=records, counts=((NCCL_LOG_TITLE, n),),
                        partial=((NCCL_LOG_TITLE, "an NCCL log shows the ranks it prints, not every GPU"),))


@provider("gpus", GpuInventory, rank=65, title=NCCL_LOG_TITLE)
def gpus_from_nccl_log(ctx: FactContext) -> GpuInventory:
    """The ranks of a pasted NCCL log that its SHM and P2P channels join on one host (ServingLog.ipc_group); for
    RCCL's log, AMD GPUs."""
    from stackaudit.facts.serving_logs import ServingLog

    log = ctx.fact("serving_log", ServingLog)
    if log.rccl_lines:
        # RCCL's log: its ranks hold AMD GPUs (ServingLog.rccl_lines), of a model the log does not name.
        return GpuInventory(others=(f"AMD GPUs (RCCL's log: {log.rccl_lines[0][:120]})",))
    group = log.ipc_group()
    on_host: dict[str, set[int]] = {}
    if group and log.multi_host:
        for c in log.channels:
            if c.transport in ("SHM", "P2P"):
                on_host.setdefault(c.host, set()).update((c.src, c.dst))
    return from_nccl_log(group, log.gpu_bus_ids if group else (),
                         max(len(r) for r in on_host.values()) if on_host else None)


CONTAINERS_TITLE = "container specs (LXC config, docker run, compose)"


@provider("gpus", GpuInventory, rank=70, title=CONTAINERS_TITLE)
def gpus_from_containers(ctx: FactContext) -> GpuInventory:
    """AMD GPUs that containers are handed: /dev/kfd (ROCm's compute device) in an LXC config or a Docker / compose
    spec, where no container is handed an NVIDIA GPU (a /dev/nvidia* node, --gpus, the nvidia runtime)."""
    from stackaudit.facts.docker import DockerContainers
    from stackaudit.facts.lxc import LxcConfigs

    handed: dict[str, bool] = {}  # container -> handed an NVIDIA GPU
    kfd: list[str] = []
    lxc = ctx.optional("lxc_configs", LxcConfigs)
    for c in lxc.configs if lxc is not None else ():
        paths = c.exposed_paths()
        handed[f"LXC container {c.name}"] = any(p.startswith("/dev/nvidia") for p in paths)
        if "/dev/kfd" in paths:
            kfd.append(f"LXC container {c.name}")
    docker = ctx.optional("docker_containers", DockerContainers)
    for d in docker.containers if docker is not None else ():
        handed[d.label] = d.gpu_requested
        if any(dev.startswith("/dev/kfd") for dev in d.devices):
            kfd.append(d.label)
    if any(handed.values()):
        raise FactUnavailable("a container is handed an NVIDIA GPU, whose device nodes name no model")
    if not kfd:
        raise FactUnavailable("no container is handed a GPU's compute device")
    return GpuInventory(others=tuple(f"an AMD GPU (/dev/kfd handed to {name})" for name in kfd))


ROCM_ENV_TITLE = "ROCm's runtime variables set for an engine"
# ROCm's runtime reads these (AMD_TOOL_LINES: HSA_OVERRIDE_GFX_VERSION, its per-GPU HSA_OVERRIDE_GFX_VERSION_N,
# HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES); no CUDA program does.
ROCM_VARIABLES = re.compile(r"^(?:HSA_OVERRIDE_GFX_VERSION(?:_\d+)?|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES)$")


@provider("gpus", GpuInventory, rank=71, title=ROCM_ENV_TITLE)
def gpus_from_rocm_variables(ctx: FactContext) -> GpuInventory:
    """AMD GPUs an engine command or a container's environment sets a ROCm variable to a value for
    (`HSA_OVERRIDE_GFX_VERSION=10.3.0 ./llama-cli ...`, corpus 1592; `--env HSA_OVERRIDE_GFX_VERSION="10.3.0"`,
    ollama/ollama#8473), where none of them sets CUDA_VISIBLE_DEVICES or is handed an NVIDIA GPU: a line that sets
    both is for either vendor."""
    from stackaudit.facts.docker import DockerContainers
    from stackaudit.facts.engine_command import EngineCommands

    envs: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    commands = ctx.optional("engine_commands", EngineCommands)
    envs += [(f"on the {c.engine} command line", c.env) for c in (commands.commands if commands is not None else ())]
    docker = ctx.optional("docker_containers", DockerContainers)
    for d in docker.containers if docker is not None else ():
        if d.gpu_requested:
            raise FactUnavailable("a container is handed an NVIDIA GPU")
        envs.append((f"in the environment of {d.label}", d.env))
    if any(name == "CUDA_VISIBLE_DEVICES" for _, env in envs for name, _ in env):
        raise FactUnavailable("CUDA_VISIBLE_DEVICES is set beside ROCm's variables: not an AMD-only host")
    shown = [f"{ROCM_VARIABLE} `{name}={value}` {where})" for where, env in envs for name, value in env
             if ROCM_VARIABLES.match(name) and value.strip()]
    if not shown:
        raise FactUnavailable("no engine command or container sets a ROCm variable")
    return GpuInventory(others=tuple(dict.fromkeys(shown)))


# What ollama's start-up says of CUDA: the CUDA runners it ships (`Dynamic LLM libraries [cuda_v11 rocm_v60002 cpu]`),
# the runner it chose for a GPU (`variant=v12`, ollama >= 0.5) and the CUDA the driver supports (`driver=12.2`: the
# driver API's cuDriverGetVersion, the figure nvidia-smi's header shows).
# ollama's runners as it lists them at start: `msg="Dynamic LLM libraries [cpu_avx cpu_avx2 cpu]"` (to 0.2), then
# `msg="Dynamic LLM libraries" runners="[cpu cpu_avx cpu_avx2 cuda_v11 cuda_v12]"`.
_OLLAMA_LIBRARIES = re.compile(r'msg="Dynamic LLM libraries(?: \[([^\]]*)\]"|" runners="?\[([^\]]*)\])')
# Its CUDA probe's answer (OLLAMA_DEBUG), the journal tag peeled: how many GPUs the driver reports.
_OLLAMA_COUNT = re.compile(r"^\s*device count (\d+)\s*$")
# Its CUDA probe's reading of the driver (OLLAMA_DEBUG, `cuDriverGetVersion`), the journal tag peeled. Releases before
# 0.1.29 print the same words over NVML's driver version (`CUDA driver version: 546.01`, ollama/ollama#2573): a
# driver's release, no CUDA version.
_OLLAMA_PROBE_DRIVER = re.compile(r"^\s*CUDA driver version: (\d{1,2}\.\d+)\s*$")
# Its CUDA probe's lines per GPU (OLLAMA_DEBUG, `[GPU-<uuid>] Compute Capability 12.0`, and the memory it read there,
# `[GPU-<uuid>] CUDA totalMem 24563 mb`, gpu_info_nvcuda.c's cuMemGetInfo; corpus 2690): the GPUs it found.
_OLLAMA_PROBE_GPU = re.compile(r"^\s*\[(GPU-[0-9a-fA-F-]+)\] (?:Compute Capability \d+\.\d+|CUDA (?:total|free)Mem \d+ ?mb)"
                               r"\s*$")
_OLLAMA_DISCOVERY = re.compile(r'msg="inference compute" id=(\S+) .*?library=cuda\b(?:.*?\bvariant=v(\d+))?.*?\bdriver=(\d+\.\d+)')


@dataclass(frozen=True, kw_only=True)
class OllamaCuda(Sourced):
    """ollama's CUDA at start-up: the driver's CUDA its discovery read, the runners it ships or chose."""

    driver_cuda: str  # "12.2": the highest CUDA the driver supports, as ollama's discovery read it
    chosen: tuple[int, ...] = ()  # the CUDA majors of the runners ollama chose (`variant=v12`)
    shipped: tuple[int, ...] = ()  # the CUDA majors of the runners it ships (`cuda_v11`, `cuda_v12`)
    gpus: tuple[str, ...] = ()  # the GPU UUIDs discovered, in the order printed (an excerpt may leave some out)
    device_count: int | None = None  # how many GPUs the driver reported to ollama's probe
    lines: tuple[str, ...] = ()
    # Every runner its library list names (`cpu_avx`, `cuda_v12`, `rocm_v60002`), and that line; () where none is shown.
    runners: tuple[str, ...] = ()
    runners_line: str = ""

    @property
    def cuda_runner_missing(self) -> bool:
        """Whether ollama lists its runners and none is a CUDA one, while its discovery found a CUDA GPU (this fact
        exists only where it did): every layer then runs on the CPU (corpus 1845)."""
        return bool(self.runners) and not any(r.startswith("cuda") for r in self.runners)


fact("ollama_cuda", OllamaCuda, hint="paste ollama's start-up log (`journalctl -u ollama`)")


@parser(EVIDENCE_LINES, feeds="ollama_cuda", kind=OllamaCuda, rank=10)
def ollama_cuda_from_log(text: str) -> OllamaCuda:
    """The driver's CUDA and ollama's CUDA runners from its pasted discovery lines (with OLLAMA_DEBUG, its CUDA probe's
    `CUDA driver version: 12.8`, and its `[GPU-<uuid>] Compute Capability 12.0` line per GPU).

    Input (tests/data/captures/244, the library list and one of its four GPUs)::

        May 27 12:32:59 test-server ollama[233489]: time=2024-05-27T12:32:59.476Z level=INFO source=payload.go:44 msg="Dynamic LLM libraries [cuda_v11 rocm_v60002 cpu cpu_avx cpu_avx2]"
        May 27 12:33:01 test-server ollama[233489]: time=2024-05-27T12:33:01.069Z level=INFO source=types.go:71 msg="inference compute" id=GPU-4effbf41-2d2b-123d-3e00-87b020bf6f2c library=cuda compute=6.1 driver=12.2 name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="7.8 GiB"
    """
    drivers: list[str] = []
    gpus: list[str] = []
    chosen: list[int] = []
    shipped: list[int] = []
    lines: list[str] = []
    count: int | None = None
    probe_drivers: list[str] = []
    runners: list[str] = []
    runners_line = ""
    for line in text.splitlines():
        libs, found, probe = _OLLAMA_LIBRARIES.search(line), _OLLAMA_DISCOVERY.search(line), _OLLAMA_COUNT.search(line)
        count = int(probe.group(1)) if probe else count
        probed, probed_gpu = _OLLAMA_PROBE_DRIVER.search(line), _OLLAMA_PROBE_GPU.search(line)
        if probed_gpu:
            gpus.append(probed_gpu.group(1))
        if data := _OLLAMA_MEMORY_DATA.search(line):
            gpus.append(data.group(1))
        if probed:
            probe_drivers.append(probed.group(1))
            lines.append(line.strip())
        if libs:
            listed = libs.group(1) if libs.group(1) is not None else libs.group(2)
            shipped += [int(m) for m in re.findall(r"\bcuda_v(\d+)\b", listed)]
            runners += listed.split()
            runners_line = runners_line or line.strip()
            lines.append(line.strip())
        if found:
            gpus.append(found.group(1))
            drivers.append(found.group(3))
            chosen += [int(found.group(2))] if found.group(2) else []
            lines.append(line.strip())
    drivers += probe_drivers  # the discovery line's reading first
    if not drivers:
        raise ParseError('no ollama `msg="inference compute" ... library=cuda ... driver=X.Y` line or CUDA probe')
    return OllamaCuda(driver_cuda=drivers[0], chosen=tuple(dict.fromkeys(chosen)),
                      shipped=tuple(dict.fromkeys(shipped)), gpus=tuple(dict.fromkeys(gpus)), device_count=count,
                      lines=tuple(dict.fromkeys(lines))[:4], complete=False, runners=tuple(dict.fromkeys(runners)),
                      runners_line=runners_line)
