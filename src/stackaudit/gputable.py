"""The GPU table (data/gpus.toml): typed rows and lookup by the names people write.

Shared by the GPU checks and `stackaudit ceiling` (docs/design.md). Import-light on
purpose: only the standard library, and the TOML file is read once, on first use.

    >>> match = lookup("h100")
    >>> match.spec.name, match.note
    ('H100 SXM', "'h100' is ambiguous; assumed H100 SXM (the most common); others: H100 PCIe, H100 NVL")
"""

from __future__ import annotations

import functools
import pkgutil
import re
import sys
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib



def table_text() -> str:
    """The shipped data/gpus.toml, read through the package's loader, so that it also loads from inside the
    zipapp shipped to nodes (pkgutil: importlib.resources costs about 10 ms of every start)."""
    return (pkgutil.get_data("stackaudit", "data/gpus.toml") or b"").decode("utf-8")


class GpuTableError(ValueError):
    """The table file is malformed (a bug in the shipped data, not a user error)."""


class UnknownGpuError(LookupError):
    """No row matches a name; `suggestions` holds close names: given, or found (difflib) when first read.

    Most lookups of an unknown name (a paste's AMD card, a word read as a model) only ask whether it is known:
    the search for close names, a few ms each, is made only for a message."""

    def __init__(self, query: str, suggestions: tuple[str, ...] | GpuTable) -> None:
        super().__init__(query)
        self.query = query
        self._suggestions = suggestions

    @property
    def suggestions(self) -> tuple[str, ...]:
        if not isinstance(self._suggestions, tuple):
            self._suggestions = suggest(self.query, self._suggestions)
        return self._suggestions

    def __str__(self) -> str:
        hint = f"; did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        return f"unknown GPU {self.query!r}{hint}"


@dataclass(frozen=True)
class GpuSpec:
    """One row of data/gpus.toml. Bandwidths in GB/s (1e9 B/s), rates in dense TFLOPS/TOPS."""

    name: str
    aliases: tuple[str, ...]
    nvidia_smi_names: tuple[str, ...]
    vendor: str
    architecture: str
    compute_capability: str
    form_factor: str
    memory_gib: float
    memory_type: str
    memory_bus_bits: int
    memory_bandwidth_gbs: float
    pcie_gen: int
    pcie_width: int
    nvlink_kind: str
    nvlink_links: int
    nvlink_gbs_per_link: float
    nvlink_total_gbs: float
    p2p: bool
    power_w: float
    tflops: Mapping[str, float]
    source: str
    notes: str = ""
    # GPUs that share one NVLink/xGMI fabric (8 on an HGX board, 72 in a GB200 NVL72 rack, 2 for a
    # bridged pair); 1 for PCIe-only cards. Tensor parallelism beyond it crosses the node network.
    nvlink_domain: int = 1
    datasheet: str = ""
    # The vendor's headline rates where it publishes them with sparsity (dense = half of these).
    tflops_sparse: Mapping[str, float] = field(default_factory=dict)
    family: str = ""  # a key of FAMILIES
    # Whether the model has MIG (the MIG user guide's supported-GPU list, MIG_GPUS); None: the row does not say.
    mig: bool | None = None
    # The PCI device ids (vendor 10de, four lowercase hex digits) of the model's boards; () where the row gives none.
    pci_device_ids: tuple[str, ...] = ()
    # NVML's `GPU Max Operating Temp` of the model (where SW thermal slowdown starts cutting the clocks), as
    # `nvidia-smi -q` prints it on the model's boards; None where the row does not give it. The table's row of a GPU
    # whose source shows its temperature but not its thresholds (the nvidia-smi table) judges it by this.
    max_operating_temp_c: int | None = None
    # The GPUs one board of the model carries, each a row of nvidia-smi (the Tesla K80: two GK210); 1 for most.
    gpus_per_board: int = 1

    @property
    def has_nvlink(self) -> bool:
        return self.nvlink_links > 0 and self.nvlink_kind != "none"

    def dense_tflops(self, dtype: str) -> float:
        """Dense tensor rate for `dtype` (0.0 where the GPU has no such path)."""
        return float(self.tflops.get(dtype, 0.0))

    def all_names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases, *self.nvidia_smi_names)


@dataclass(frozen=True)
class GpuMatch:
    """Result of `lookup`: the row, and a note when the name was ambiguous or inexact."""

    spec: GpuSpec
    query: str
    note: str = ""
    alternatives: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class _Ambiguous:
    name: str
    default: str
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class BoardPower:
    """A row of data/gpus.toml that holds only a card's default board power (W), with its source, the card's
    memory (GiB) where the model comes with one size, and its max operating temperature where a source gives it."""

    name: str
    aliases: tuple[str, ...]
    power_w: float
    source: str
    memory_gib: float | None = None
    max_operating_temp_c: int | None = None

    def all_names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class GpuTable:
    gpus: tuple[GpuSpec, ...]
    ambiguous: tuple[_Ambiguous, ...]
    # The rows that give a card's board power alone (_POWER_ONLY_KEYS); no lookup of a model finds them.
    power_only: tuple[BoardPower, ...] = ()

    def by_name(self, name: str) -> GpuSpec:
        for gpu in self.gpus:
            if gpu.name == name:
                return gpu
        raise GpuTableError(f"gpus.toml refers to a missing row {name!r}")


@dataclass(frozen=True)
class Family:
    """A product line and what it implies for GPU-to-GPU traffic."""

    name: str
    p2p: bool  # PCIe peer-to-peer with the stock driver
    # "all-pairs": every pair of a board over NVLink/NVSwitch or xGMI; "trays": NVLinks to the rack's switch trays;
    # "bridge": only cards joined by an NVLink bridge, where the model has one; "none": PCIe only.
    nvlink: str
    what: str
    source: str
    # False where no card of the line has MIG (NVIDIA's MIG user guide lists data-center and RTX PRO parts only);
    # None where it depends on the model (the table row, or the GPU's own MIG Mode field).
    mig: bool | None = None
    # CUDA forward compatibility (the cuda-compat package: a newer CUDA major on an older driver branch): "NVIDIA
    # Data Center GPUs", "select NGC Server Ready SKUs of RTX cards" and Jetson only (FORWARD_COMPAT); on another GPU
    # a CUDA call fails with error 804. None where it depends on the SKU.
    forward_compat: bool | None = None
    # Whether the line's boards ship with ECC enabled (ECC_SHIPPED_ON): then ECC off was turned off on the host, a
    # choice, not the default. None where the line does not say (workstation cards differ by model; GeForce has none).
    ecc_shipped_on: bool | None = None
    # True where the line is the NVLink-bridged build itself (NVL: "2- or 4-way NVIDIA NVLink bridge" on NVIDIA's H100
    # and H200 pages): two or more such cards are sold joined by bridges, so a matrix without NV# between them shows
    # the bridges' links down or missing (sold_bridged).
    bridged_build: bool = False


FORWARD_COMPAT = "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html"
# The NVLink kinds that join a board's GPUs into one domain (`nvlink_domain`): an NVSwitch, direct NVLinks between
# modules (a DGX-1's hybrid cube mesh of V100 SXM2), AMD's xGMI. Tensor parallelism wider crosses the node network.
BOARD_FABRICS = ("switch", "mesh", "infinity-fabric")
_NCCL_TESTS_287 = "https://github.com/NVIDIA/nccl-tests/issues/287"
_HGX = "https://www.nvidia.com/en-us/data-center/hgx/"
# NVIDIA's product brief of a data-center board: "Tesla P100 PCIe boards are shipped with ECC enabled by default"
# (PB-08248-001, this copy); NVML reads a board's own default (nvmlDeviceGetDefaultEccMode).
ECC_SHIPPED_ON = ("https://vdocuments.net/tesla-p100-pcie-gpu-accelerator-nvidia-2017-09-07-tesla-p100-pcie-gpu-"
                  "accelerator.html")
FAMILIES = {
    "geforce": Family("geforce", False, "bridge", "GeForce consumer cards: no PCIe P2P with the stock driver, no MIG",
                      _NCCL_TESTS_287, mig=False, forward_compat=False),
    # mig=False: https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html lists no GeForce part.
    "workstation": Family("workstation", True, "bridge", "RTX and RTX PRO cards (workstation and server editions)",
                          "https://www.nvidia.com/en-us/products/workstations/"),
    "datacenter-pcie": Family("datacenter-pcie", True, "bridge", "data-center PCIe cards",
                              "https://www.nvidia.com/en-us/data-center/products/", forward_compat=True,
                              ecc_shipped_on=True),
    "nvl": Family("nvl", True, "bridge", "NVL PCIe cards, joined in pairs or quads by NVLink bridges",
                  "https://www.nvidia.com/en-us/data-center/h200/", forward_compat=True, ecc_shipped_on=True,
                  bridged_build=True),
    "baseboard": Family("baseboard", True, "all-pairs", "SXM or OAM modules on an HGX/DGX or OAM baseboard", _HGX,
                        forward_compat=True, ecc_shipped_on=True),
    "rack": Family("rack", True, "trays", "Grace superchips in an NVLink rack (GB200/GB300 NVL72)",
                   "https://www.nvidia.com/en-us/data-center/gb200-nvl72/", forward_compat=True,
                   ecc_shipped_on=True),
}
# Brand words in product names, for a name the table has no row for (a model it lacks, a name the nvidia-smi
# table cut): NVML's product names carry the line ("NVIDIA GeForce RTX 3060", "NVIDIA GB300").
# The RTX PRO 6000D's names: NVML's `NVIDIA RTX 6000D` and the product's `RTX PRO 6000D` (a Blackwell GB202 board of
# compute capability 12.0, `NVIDIA RTX 6000D, capability (12, 0)` in torch's device list, corpus 606).
RTX_6000D = re.compile(r"\bRTX\s+(?:PRO\s+)?6000\s?D\b", re.I)
# A workstation board's number without its generation's words (`RTX 4000`, `RTX 8000`): Turing's Quadro RTX 4000, 5000
# and 8000 or Ada's RTX 4000 and 5000 (`... Ada Generation`), workstation boards all, none of them with MIG (the MIG
# user guide lists neither generation: https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html). No
# GeForce card has such a number. `RTX 6000` is the table's ambiguous name, of a line whose Blackwell board has MIG.
WORKSTATION_NUMBER = re.compile(r"^(?:NVIDIA\s+)?RTX\s?[458]000$", re.I)
_FAMILY_WORDS = (
    (re.compile(r"\bGeForce\b", re.I), "geforce"),
    # A bare GeForce model number as people write it (`2x 3060 12GB`, `RTX 3070 Ti`): GTX 1050 to RTX 5090. The
    # workstation boards' numbers (RTX 4000, 5000, 6000, A4000, 5880) end in 000 or have another third digit.
    (re.compile(r"^(?:(?:RTX|GTX)\s*)?[1-5]0[5-9]0(?:\s*Ti|\s*SUPER)?$", re.I), "geforce"),
    # Turing's GTX 16 cards (GTX 1630 to 1660 SUPER: `a nvidia GTX 1650`, corpus 2671), with their series word: a bare
    # 1650 may be anything.
    (re.compile(r"^GTX\s*16[3-6]0(?:\s*Ti|\s*SUPER)?$", re.I), "geforce"),
    (re.compile(r"\bGB[23]00\b"), "rack"),
    (re.compile(r"\bNVL\b"), "nvl"),
    (re.compile(r"-SXM|\b(?:HGX|DGX)\b"), "baseboard"),
    (re.compile(r"\b(?:RTX PRO|Quadro|RTX A\d{4}|RTX \d{4} Ada)\b"), "workstation"),
    # A bare workstation number (`1x RTX 4000 8Gb`, corpus 2233): WORKSTATION_NUMBER.
    (WORKSTATION_NUMBER, "workstation"),
    # The RTX PRO 6000D, the RTX PRO 6000 Blackwell's variant for China, which NVML names `NVIDIA RTX 6000D` (corpus
    # 606: sglang's check_env, `GPU 0,1,2,3,4,5,6,7: NVIDIA RTX 6000D`; corpus 1982: nvidia-smi at 600 W). The GeForce
    # cards' China variants keep their brand word (`NVIDIA GeForce RTX 4090 D`).
    (RTX_6000D, "workstation"),
)


def family_of(name: str, table: GpuTable | None = None) -> Family | None:
    """The product family of a GPU name: its table row's, else the brand word in the name; None if neither."""
    try:
        spec = lookup(name, table).spec
    except (UnknownGpuError, GpuTableError):
        spec = None
    if spec is not None and spec.family:
        return FAMILIES[spec.family]
    return brand_family(name)


def brand_family(name: str) -> Family | None:
    """The product family the brand word in a name says (`GeForce`, `RTX A`, `-SXM`, `NVL`); None without one."""
    for pattern, family in _FAMILY_WORDS:
        if pattern.search(name):
            return FAMILIES[family]
    return None


def bridge_domain(names: Collection[str], table: GpuTable | None = None) -> int | None:
    """How many cards one NVLink bridge joins, where every name is a bridged card: the table rows' NVLink domain
    (2, or 4 for a 4-way bridge) when every row is a "bridge" or "none" row and one is a bridge; 2 for names the
    table lacks whose family's NVLink is a bridge's (GeForce, workstation, data-center PCIe, NVL). None otherwise.

    An NV# cell between such cards is a bridge's, and a card outside every bridged group has no bridge: the
    build, not links down.
    """
    specs: list[GpuSpec | None] = []
    for name in names:
        try:
            specs.append(lookup(name, table).spec)
        except (UnknownGpuError, GpuTableError, OSError):
            specs.append(None)
    if not specs:
        return None
    known = [s for s in specs if s is not None]
    if len(known) == len(specs):
        kinds = {s.nvlink_kind for s in known}
        if kinds <= {"bridge", "none"} and "bridge" in kinds:
            return max(s.nvlink_domain for s in known if s.nvlink_kind == "bridge")
        return None
    families = [family_of(n, table) for n in names]
    return 2 if all(f is not None and f.nvlink == "bridge" for f in families) else None


def sold_bridged(names: Collection[str], table: GpuTable | None = None) -> bool:
    """Whether two or more GPUs are all of a line sold as the NVLink-bridged build (Family.bridged_build: NVL cards),
    so that NVLink is expected between them."""
    families = [family_of(n, table) for n in names]
    return len(families) >= 2 and all(f is not None and f.bridged_build for f in families)


def on_nvswitch(name: str, table: GpuTable | None = None) -> bool | None:
    """Whether a GPU model may sit on an NVSwitch fabric: its table row's NVLink kind (a cut name's rows', where they
    agree), else its product family's
    NVLink expectation ("all-pairs" baseboards, "trays" racks), else False for a Jetson (jetson_gpu: the module's
    name or the one CUDA and nvidia-smi give its GPU, `Orin (nvgpu)`), another SoC's integrated GPU (integrated_gpu:
    the DGX Spark's GB10), a TITAN card
    (DESKTOP_CARD), a name whose model words imply no NVLink (nvlink_links_of) or a compute capability no NVSwitch board carries (NO_NVSWITCH_CAPABILITIES); None for a name
    none of them knows.

    False is the claim that matters (PCIe cards and bridged pairs need no Fabric Manager); an SXM module says True
    although some boards join their GPUs without a switch."""
    try:
        return lookup(name, table).spec.nvlink_kind == "switch"
    except (UnknownGpuError, GpuTableError):
        pass
    # A cut name that several rows may be: where they agree.
    switch = agreed(candidates(name, table), lambda s: s.nvlink_kind == "switch") if cut_prefix(name) else None
    if switch is not None:
        return switch
    family = family_of(name, table)
    if family is not None:
        return family.nvlink in ("all-pairs", "trays")
    # A Jetson module's integrated GPU or another SoC's (INTEGRATED_GPUS: the DGX Spark's GB10, one GPU beside its CPU),
    # a TITAN desktop card, a name whose model words imply an architecture before NVLink, or a capability no NVSwitch
    # board carries.
    if jetson_gpu(name) or integrated_gpu(name) or DESKTOP_CARD.search(name) \
            or capability_of(name) in NO_NVSWITCH_CAPABILITIES or nvlink_links_of(name, table) == 0:
        return False
    return None


def nvlink_links_of(name: str, table: GpuTable | None = None) -> int | None:
    """The NVLinks every model a name may mean has (0: none; `candidates`), else 0 for a name the table lacks whose
    model words name an architecture before NVLink (PRE_NVLINK); None for any other name the table does not know,
    or one whose candidates differ (`H100`: 18 on SXM, 12 on PCIe and NVL; `A100`: 12 on every variant)."""
    try:
        said = agreed(candidates(name, table), lambda s: s.nvlink_links if s.has_nvlink else 0)
    except GpuTableError:
        said = None
    if said is None and architecture_of(name, table=table) in PRE_NVLINK:
        return 0
    return said


MIG_GPUS = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html"
# The MIG user guide's parts (MIG_GPUS) of the architectures whose product lines are complete, for names the table has
# no row for. Ampere's MIG parts are the GA100 boards: A100 and A30 (the guide), A800 (the A100's export variant).
# Ada Lovelace has none. Hopper and Blackwell are left out: every Hopper part has MIG, and Blackwell's list still grows.
# The guide's R610 edition (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/610/supported-gpus.html) lists the
# RTX PRO 6000 Blackwell (Server, Workstation and Max-Q editions, 4 instances), RTX PRO 5000 Blackwell (2) and RTX PRO
# 4500 Blackwell (GB203, 2): an RTX PRO Blackwell name without a row is left open (None), never read as lacking MIG.
MIG_PARTS: dict[str, str] = {"Ampere": r"\bA(?:100|30|800)\b", "Ada Lovelace": ""}


# The integrated GPU of a Jetson module before Thor, by the module's name or the one CUDA and torch give its GPU
# (`Orin (nvgpu)`, `Xavier`): Nano and TX1 (Maxwell), TX2 (Pascal), Xavier (Volta), Orin (Ampere). NVIDIA's MIG user
# guide (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html) lists none of them; Jetson AGX
# Thor (Blackwell) is left out, as its GPU has MIG (https://developer.nvidia.com/blog/introducing-nvidia-jetson-thor-the-
# ultimate-platform-for-physical-ai/).
# The platform's words where no line names the module (facts/gpus.jetson_module): an L4T release before Thor's R38, or
# Tegra's NvRmMem memory manager of the nvgpu driver, which Thor does not run, or the container toolkit's CSV mode on
# that driver (facts/gpus._CSV_MODE); CUDA names the Nano's and TX2's GPUs
# `NVIDIA Tegra X1` and `NVIDIA Tegra X2`, Vulkan the Orin's `NVIDIA Tegra Orin (nvgpu)` (corpus 2829). A GPU named by its compute capability alone (capability_name: ollama's
# `[GPU-<uuid>] Compute Capability 7.2`) of one of these modules' capabilities only (https://developer.nvidia.com/
# cuda-gpus, Jetson products): 5.3 Nano and TX1, 6.2 TX2, 7.2 AGX Xavier and Xavier NX, 8.7 the Orin modules; no
# discrete board has one of them.
JETSON_WITHOUT_MIG = re.compile(r"\bJetson\s+(?:AGX\s+|Orin\s+)?(?:Nano|TX[12]|Xavier|Orin)\b|^(?:NVIDIA\s+)?"
                                r"(?:Orin|Xavier)\b|\bJetson, (?:L4T R(?:2\d|3[0-7])\.|Tegra's NvRmMem\b|nvgpu driver\b)"
                                r"|\bTegra (?:X[12]|Xavier|Orin)\b|^GPU of compute capability (?:5\.3|6\.2|7\.2|8\.7)$", re.I)
# Any Jetson module, Thor too: an SoC's integrated GPU, on no NVSwitch.
JETSON = re.compile(r"\bJetson\b|\bTegra (?:X[12]|Xavier|Orin)\b", re.I)


def nvgpu_jetson(name: str) -> bool:
    """Whether a GPU's name is a Jetson module's before Thor (JETSON_WITHOUT_MIG), whose integrated GPU the nvgpu
    driver runs: it has no persistence mode (Jetson's nvidia-smi prints `Persistence-M` N/A, corpus 2519) and no
    nvidia-persistenced. Thor's OpenRM driver is the discrete GPUs' and is left open."""
    return bool(JETSON_WITHOUT_MIG.search(name))


def jetson_gpu(name: str) -> bool:
    """Whether a GPU's name is a Jetson module's integrated GPU (JETSON, or the name CUDA and torch give it before Thor:
    JETSON_WITHOUT_MIG, `Orin (nvgpu)`, `NVIDIA Tegra X2`). It sits on the SoC beside the CPU, with no PCIe link."""
    return bool(JETSON.search(name) or JETSON_WITHOUT_MIG.search(name))
# NVIDIA's TITAN cards (GTX TITAN to TITAN RTX) are desktop PCIe cards: at most two joined by an NVLink bridge (TITAN
# RTX), never on an NVSwitch (https://www.nvidia.com/en-us/titan/titan-v/: a PCIe card; NVSwitch boards carry SXM
# modules only, https://www.nvidia.com/en-us/data-center/nvlink/). TITAN V is Volta, 7.0, a capability NVSwitch boards
# share, so its name, not its capability, says so (corpus 2041).
DESKTOP_CARD = re.compile(r"\bTITAN\b", re.I)


def has_mig(name: str, table: GpuTable | None = None) -> bool | None:
    """Whether a GPU model has MIG: its table rows' `mig` where every row it may be says the same (`candidates`), else
    its product line's (GeForce: none), else False for a Jetson module's GPU before Thor (JETSON_WITHOUT_MIG), an
    integrated GPU (INTEGRATED_GPUS) or a bare workstation number (WORKSTATION_NUMBER: Turing's or Ada's), else False for an
    architecture before Ampere (PRE_AMPERE), else False for an Ampere or Ada Lovelace name outside MIG_PARTS; None
    where none of them says."""
    try:
        said = agreed(candidates(name, table), lambda s: s.mig)
    except GpuTableError:
        said = None
    if said is not None:
        return said
    family = family_of(name, table)
    if (family is not None and family.mig is False) or JETSON_WITHOUT_MIG.search(name) or WORKSTATION_NUMBER.match(name) \
            or integrated_gpu(name):
        return False
    architecture = architecture_of(name, table=table)
    if architecture in PRE_AMPERE:
        return False
    if architecture not in MIG_PARTS:
        return None
    parts = MIG_PARTS[architecture]
    return None if parts and re.search(parts, name) else False


# Names of another vendor's GPUs, as ROCm's tools and torch print them: `AMD Instinct MI100` (rccl-tests),
# `AMD Radeon Graphics (gfx906:sramecc+:xnack-)` (collect_env on ROCm), `Intel(R) Data Center GPU Max 1550`.
_OTHER_VENDOR = re.compile(r"^\s*(?:AMD|Radeon|Instinct|Intel)\b|\(gfx\d", re.I)


def other_vendor(name: str) -> bool:
    """True where a GPU name is another vendor's (AMD, Intel), never NVIDIA's: by its vendor's words, or by the table's
    row the name names exactly (`MI300X`, an AMD row, in `a 8 cards MI300X system`, corpus 2698)."""
    if _OTHER_VENDOR.search(name):
        return True
    try:
        spec, _ = _exact(name, None)
    except GpuTableError:
        return False
    return spec is not None and spec.vendor != "NVIDIA"


# NVIDIA architectures, oldest first (NVML_DEVICE_ARCH_*); "pre-Turing" is what a PCI device id alone can say.
ARCHITECTURE_ORDER = ("Kepler", "Maxwell", "Pascal", "Volta", "pre-Turing", "Turing", "Ampere", "Ada Lovelace",
                      "Hopper", "Blackwell", "Rubin")
# No GSP and no open kernel module before Turing (driver README, gsp.html and kernel_open.html).
# No Resizable BAR either: NVIDIA supports it from the GeForce RTX 30 series on
# (https://www.nvidia.com/en-us/geforce/news/geforce-rtx-30-series-resizable-bar-support/), and the UEFI strap patch
# that resizes Turing's BAR1 leaves GTX 1000 (Pascal) cards without it (https://github.com/terminatorul/NvStrapsReBar).
PRE_TURING = frozenset(ARCHITECTURE_ORDER[:ARCHITECTURE_ORDER.index("Turing")])
# Resizable BAR, by the same NVIDIA page: the GeForce RTX 30 series (Ampere) and every generation after it, whose
# BAR1 a BIOS with Resizable BAR on sizes to the VRAM (a 3090's or 4090's 32 GiB). Turing's needs the strap patch.
RESIZABLE_BAR = frozenset(ARCHITECTURE_ORDER[ARCHITECTURE_ORDER.index("Ampere"):])
# Integrated GPUs: on the SoC, sharing its memory (unified memory architecture), so no BAR1 aperture maps a memory of
# their own: name (as lspci or nvidia-smi prints it) -> PCI device id. GB10 (DGX Spark): "DGX Spark SoC is
# characterized by a unified memory architecture" (https://forums.developer.nvidia.com/t/dgx-spark-gpudirect-rdma/
# 348787/6); lspci prints `GB20B [GB10]`, or `Device 2e12` where pci.ids predates it.
INTEGRATED_GPUS: dict[str, str] = {"GB10": "0x2e12"}
# None of them has MIG (has_mig, without_mig): NVIDIA's MIG user guide (MIG_GPUS, R610 edition) lists Jetson Thor's iGPU
# but no GB10, and the DGX Spark's nvidia-smi prints its `MIG M.` cell N/A (NVIDIA/k8s-device-plugin issue 1482).


def integrated_gpu(name: str, device_id: str = "") -> str:
    """The INTEGRATED_GPUS name a GPU's name or PCI device id (`0x2e12`) gives, else ""."""
    for model, pci_id in INTEGRATED_GPUS.items():
        if re.search(rf"\b{model}\b", name) or device_id.lower() == pci_id:
            return model
    return ""


# No NVLink before Pascal: NVLink 1.0 came with the GP100 of the Tesla P100 (SXM2); no Kepler or Maxwell GPU has it in any
# form factor (https://www.nvidia.com/en-us/data-center/nvlink/ lists Pascal as its first generation).
PRE_NVLINK = frozenset(ARCHITECTURE_ORDER[:ARCHITECTURE_ORDER.index("Pascal")])
# No MIG before Ampere: the MIG user guide lists Ampere and later parts only
# (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html).
PRE_AMPERE = frozenset(ARCHITECTURE_ORDER[:ARCHITECTURE_ORDER.index("Ampere")])

# The architecture and compute capability a model number names, for GPUs the table has no row for. NVIDIA's CUDA GPU
# lists give each product's compute capability (https://developer.nvidia.com/cuda-gpus, and /cuda-legacy-gpus for older
# parts), whose major number is the architecture: 3 Kepler (Tesla K, GTX 600, GTX 760-780, GTX TITAN/Black/Z, most
# Quadro K), 5 Maxwell (GeForce 900, Tesla/Quadro M, GTX 745/750/750 Ti, GTX TITAN X, Quadro K620/K1200/K2200),
# 6 Pascal (GeForce 10, Tesla/Quadro P, NVIDIA TITAN X/Xp, Quadro GP100), 7.0 Volta (V100, TITAN V, Quadro GV100),
# 7.5 Turing (GeForce 16 and RTX 20, Quadro RTX, TITAN RTX), 8.6 Ampere (RTX 30, RTX A), 9.0 Hopper (H100, H200,
# H800, H20, GH200), 12.0 Blackwell (RTX 50, RTX PRO Blackwell). A vGPU guest names its board with a variant letter
# (`GRID V100D-32C`, `V100DX`, `V100L`: NVIDIA Virtual GPU Software User Guide, "Virtual GPU Types"), which the Volta
# words take.
# The third field is the capability every GPU the words name has, from the same lists; "" where they mix (Kepler's 3.0,
# 3.5 and 3.7; Maxwell's 5.0 and 5.2), and then the architecture's one capability, where it has one (SINGLE_CAPABILITY),
# stands. Pascal's GP100 parts (Tesla P100, Quadro GP100) are 6.0, its other parts 6.1. The Ampere words name GA10x
# cards only (8.6; the A100 and A30, 8.0, are table rows), the Blackwell words GB20x cards only (12.0; the B200 and
# GB200 are 10.0, the B300 and GB300 10.3).
# The first pattern that matches wins: "GeForce GTX TITAN X" is Maxwell, "NVIDIA TITAN X" Pascal.
# Series that mix architectures under one model number (GeForce 900M, GT 700) are not listed.
# Compute capabilities that each belong to one architecture (https://developer.nvidia.com/cuda-gpus); a major alone
# stands for each of its minors, whose capability the row leaves unsaid: 3.x Kepler, 5.x Maxwell, 6.x Pascal, 7.0 and
# 7.2 Volta, 7.5 Turing, 8.6 and 8.7 Ampere's GA10x and Orin parts, 8.9 Ada Lovelace. 8.0 (A100, A30), 9.0, 10.x, 11.0
# and 12.x are left out: each holds MIG parts beside parts without.
CAPABILITY_ARCHITECTURES = (("3", "Kepler"), ("5", "Maxwell"), ("6.0", "Pascal"), ("6.1", "Pascal"), ("7.0", "Volta"),
                            ("7.2", "Volta"), ("7.5", "Turing"), ("8.6", "Ampere"), ("8.7", "Ampere"),
                            ("8.9", "Ada Lovelace"))


_ARCH_WORDS = (
    # A Jetson module's integrated GPU by the module's name or the one CUDA gives it (`Orin`, llama.cpp's `using device
    # CUDA0 (Orin)`, corpus 2652; `Xavier`, `NVIDIA Tegra X1`): one capability each (https://developer.nvidia.com/cuda-gpus,
    # Jetson products), Thor left out.
    (re.compile(r"\b(?:Jetson\s+Nano|Jetson\s+TX1|Tegra X1)\b", re.I), "Maxwell", "5.3"),
    (re.compile(r"\b(?:Jetson\s+TX2|Tegra X2)\b", re.I), "Pascal", "6.2"),
    (re.compile(r"\bOrin\b", re.I), "Ampere", "8.7"),
    (re.compile(r"\bXavier\b", re.I), "Volta", "7.2"),
    (re.compile(r"\bTesla K\d+|\bGTX 6\d\d(?: Ti)?\b|\bGTX 7[6-8]0(?: Ti)?\b|\bGTX TITAN(?: Black| Z)?\b(?! X)"
                r"|\bQuadro K(?!(?:620|1200|2200)M?\b)\d+", re.I), "Kepler", ""),
    (re.compile(r"\b(?:Tesla|Quadro) M\d+|\bGTX 9[5-8]0(?: Ti|M)?\b|\bGTX 7(?:45|50)(?: Ti)?\b|\bGTX TITAN X\b"
                r"|\bQuadro K(?:620|1200|2200)M?\b", re.I), "Maxwell", ""),
    (re.compile(r"\bTesla P100\b|\bQuadro GP100\b", re.I), "Pascal", "6.0"),
    # The mining boards of Pascal's GP10x chips (`NVIDIA P104-100`, P102-100, P106-100, P106-090): pci.ids names them
    # by their chip (`GP104 [P104-100]`, https://pci-ids.ucw.cz/read/PC/10de), GeForce GTX 10 silicon, 6.1.
    (re.compile(r"\b(?:Tesla|Quadro) P\d+|\bGTX 10[5-8]0(?: Ti)?\b|\bTITAN Xp?\b|\bP10[246]-\d{3}\b", re.I),
     "Pascal", "6.1"),
    (re.compile(r"\bG?V100(?:[DLSX]{1,2})?\b|\bTITAN V\b", re.I), "Volta", ""),
    # GV100 boards that nvidia-smi and CUDA name by their board number alone (`Tesla PG503-216`, lmdeploy's check_env
    # in corpus 2923; PG500-216): pci.ids names them by their chip, 1df0 `GV100GL [Tesla PG500-216]` and 1df2
    # `GV100GL [Tesla PG503-216]` (https://pci-ids.ucw.cz/read/PC/10de), Volta, 7.0. The board number says the chip,
    # not the module: which board (and so whether an NVSwitch) is left open.
    (re.compile(r"\bPG50[03]-216\b", re.I), "Volta", "7.0"),
    # A GeForce RTX series named by its family words (`RTX 50xx`, `RTX 50-series`, `RTX40 series`): one architecture,
    # and for the 30, 40 and 50 series one capability each (https://developer.nvidia.com/cuda-gpus).
    # NVIDIA's CMP mining boards (`NVIDIA CMP 30HX`, llm_benchmark's report in corpus 2327; MINING_BOARD): pci.ids names
    # them by their chip, TU116 [CMP 30HX], TU106 [CMP 40HX], TU102 [CMP 50HX] (Turing, 7.5), GA104 [CMP 70HX] and GA102
    # [CMP 90HX] (Ampere's GA10x, 8.6): GeForce silicon. The GA100 board (CMP 170HX, 8.0) is left out.
    (re.compile(r"\bCMP [345]0HX\b", re.I), "Turing", "7.5"),
    (re.compile(r"\bCMP [79]0HX\b", re.I), "Ampere", "8.6"),
    (re.compile(r"\bGTX 16[5-6]0(?: Ti| SUPER)?\b|\bRTX 20[6-8]0\b|\bRTX ?20(?:xx|[- ]?series)\b|\bQuadro RTX \d{4}\b|\bTITAN RTX\b", re.I),
     "Turing", ""),
    (re.compile(r"\bRTX 30[5-9]0\b|\bRTX ?30(?:xx|[- ]?series)\b|\bRTX A\d{3,4}\b", re.I), "Ampere", "8.6"),
    # The Ampere data-center boards without a table row: A30 (GA100, 8.0), A16 and A2 (GA107, 8.6), so no one capability
    # (https://developer.nvidia.com/cuda-gpus).
    (re.compile(r"(?<!RTX )\bA(?:2|16|30)\b", re.I), "Ampere", ""),
    # The small-form-factor and embedded Ada cards: `RTX 4000 SFF Ada Generation`, `RTX 2000E Ada Generation`.
    (re.compile(r"\bRTX 40[5-9]0\b|\bRTX ?40(?:xx|[- ]?series)\b|\bRTX \d{4}E?(?: SFF)? Ada\b", re.I), "Ada Lovelace", ""),
    # The Ada data-center card NVIDIA sells in China beside the L20 (2024), without a table row: `NVIDIA L2` (CUDA's
    # device name; llama.cpp lists it `NVIDIA L2, compute capability 8.9`, corpus 2825). Its whole name only: `L2`
    # alone is a CPU cache's name as often.
    (re.compile(r"^\s*NVIDIA L2\s*$", re.I), "Ada Lovelace", "8.9"),
    (re.compile(r"\bG?H(?:20|100|200|800)\b", re.I), "Hopper", ""),
    # The nvidia-smi table cuts every RTX PRO Blackwell name after `Blac` (`NVIDIA RTX PRO 4500 Blac...`, CUT_MARKS).
    # A variant's memory may stand before `Blackwell` (`NVIDIA RTX PRO 5000 72GB Blackwell`, corpus 2854).
    (re.compile(r"\bRTX 50[5-9]0\b|\bRTX ?50(?:xx|[- ]?series)\b|\bRTX PRO \d{4}(?: \d{2,3}GB)? Blac(?:kwell\b|\.\.\.|…)|" + RTX_6000D.pattern, re.I), "Blackwell",
     "12.0"),
    # The DGX Spark's integrated GB10 (`NVIDIA GB10`, INTEGRATED_GPUS), compute capability 12.1
    # (https://developer.nvidia.com/cuda-gpus); without its row the table's nearest name is the A10's.
    (re.compile(r"\bGB10\b", re.I), "Blackwell", "12.1"),
    # A GPU named by its compute capability alone (CAPABILITY_NAME: ollama's `inference compute` line whose name the
    # paste cuts), one row per capability of CAPABILITY_ARCHITECTURES.
    *((re.compile(r"\bcompute capability " + (re.escape(cap) if "." in cap else cap + r"\.\d") + r"\b"),
       architecture, cap if "." in cap else "") for cap, architecture in CAPABILITY_ARCHITECTURES),
)


def capability_name(capability: str) -> str:
    """The model words of a GPU a source names by its compute capability alone (ollama's `compute=8.6` with its name
    cut), which _ARCH_WORDS reads.

    >>> capability_name("8.6"), capability_of(capability_name("8.6")), has_mig(capability_name("8.6"))
    ('GPU of compute capability 8.6', '8.6', False)
    """
    return f"{CAPABILITY_NAME}{capability}"


CAPABILITY_NAME = "GPU of compute capability "  # capability_name's words before the capability


def capability_architecture(name: str) -> str:
    """The architecture of a GPU named by its compute capability (capability_name; `NVIDIA Graphics Device of compute
    capability 8.0`, facts/gpus.PLACEHOLDER_NAME), whichever capability: architecture_of leaves out those whose
    architecture holds MIG parts beside parts without (8.0 is Ampere's GA100, 9.0 Hopper, 10.x to 12.x Blackwell:
    https://developer.nvidia.com/cuda-gpus), which a reader of the architecture alone, not of MIG, may take (the kernel
    module's flavour); "" for any other name.

    >>> capability_architecture(capability_name("8.0")), capability_architecture(capability_name("12.0"))
    ('Ampere', 'Blackwell')
    """
    m = re.search(r"\bcompute capability (\d{1,2})\.(\d)$", name)
    if m is None:
        return ""
    major, minor = int(m.group(1)), int(m.group(2))
    if major >= 10:
        return "Blackwell" if major <= 12 else ""
    return {3: "Kepler", 5: "Maxwell", 6: "Pascal", 7: "Volta" if minor < 5 else "Turing",
            8: "Ada Lovelace" if minor == 9 else "Ampere", 9: "Hopper"}.get(major, "")


# Compute capabilities of which no part sits on an NVSwitch fabric: NVSwitch boards carry SXM modules of compute
# capability 7.0 (V100 on HGX-2), 8.0, 9.0 and 10.x only. Pascal's SXM2 P100 (6.0) joins a DGX-1's GPUs by direct
# NVLinks, with no switch; Turing (7.5), the GA10x parts (8.6), Jetson's Xavier (7.2) and Orin (8.7), and Ada Lovelace
# (8.9) are PCIe cards or modules (https://developer.nvidia.com/cuda-gpus; https://www.nvidia.com/en-us/data-center/nvlink/).
NO_NVSWITCH_CAPABILITIES = frozenset({"6.0", "6.1", "6.2", "7.2", "7.5", "8.6", "8.7", "8.9"})
# Architectures whose every CUDA GPU has the same compute capability (https://developer.nvidia.com/cuda-gpus): a model
# the table has no row for, named into one of them (_ARCH_WORDS), has that capability. Turing is 7.5 throughout, Ada
# Lovelace 8.9, Hopper 9.0 (one chip, GH100, in H100, H200, H800, H20 and GH200); Pascal (6.0/6.1), Ampere
# (8.0/8.6/8.7) and Blackwell (10.0/10.3/12.0/12.1) vary. Volta is 7.0 but for Jetson Xavier's 7.2, a module _ARCH_WORDS
# never names: the Volta words (V100 and its vGPU boards, TITAN V, Quadro GV100) all name 7.0 parts.
SINGLE_CAPABILITY = {"Volta": "7.0", "Turing": "7.5", "Ada Lovelace": "8.9", "Hopper": "9.0"}
# Architectures whose every CUDA GPU has one major (the same list): a model of one whose minor no row or model word
# settles (Maxwell's 5.0 and 5.2, Ampere's 8.0, 8.6 and 8.7) runs a cubin of that major's minor 0, whichever minor it
# has (binary compatibility within a major). Blackwell spans 10, 11 and 12: none.
SINGLE_MAJOR = {"Kepler": "3", "Maxwell": "5", "Pascal": "6", "Volta": "7", "Turing": "7", "Ampere": "8",
                "Ada Lovelace": "8", "Hopper": "9"}


def capability_of(name: str) -> str:
    """The compute capability a GPU name's model words imply (_ARCH_WORDS): the words' own, else their
    architecture's single one (SINGLE_CAPABILITY); "" where no words match or they mix capabilities.

    >>> capability_of("NVIDIA GeForce RTX 3070"), capability_of("NVIDIA GeForce RTX 5090"), capability_of("NVIDIA A30")
    ('8.6', '12.0', '')

    A partition or vGPU profile name is read by its board's words (board_words).
    """
    name = board_words(name) or name
    for pattern, architecture, capability in _ARCH_WORDS:
        if pattern.search(name):
            return capability or SINGLE_CAPABILITY.get(architecture, "")
    # A GPU named by a capability CAPABILITY_ARCHITECTURES leaves out (its architecture holds MIG parts beside parts
    # without): the capability, with no architecture words (`GPU of compute capability 10.3`, corpus 2762).
    named = re.fullmatch(re.escape(CAPABILITY_NAME) + r"(\d+\.\d)", name)
    return named.group(1) if named else ""


# NVIDIA numbers PCI device ids by chip (envytools, https://envytools.readthedocs.io/en/latest/hw/pciid.html); the
# first Turing chip, TU102, starts at 0x1E00 (the open kernel module's supported-GPU list, which is Turing and
# later, begins at 0x1E02), so every GPU id below it is an older chip.
_FIRST_TURING_DEVICE_ID = 0x1E00


def without_mig(name: str, architecture: str = "", label: str = "") -> str:
    """Why a GPU of this model has no MIG, in words: its product line (FAMILIES), an architecture before Ampere
    (PRE_AMPERE; `architecture` where the caller knows it, else the name's), its table row (has_mig: NVIDIA's MIG user
    guide lists no such part); "" when none says. `label` names a GPU shown without its model."""
    family = family_of(name) if name else None
    if family is not None and family.mig is False:
        return f"{name} ({family.what})"
    if name and JETSON_WITHOUT_MIG.search(name):
        return f"{name} (a Jetson module's integrated GPU, before Thor: no MIG)"
    if name and (model := integrated_gpu(name)):
        return f"{name} (the {model}, an SoC's integrated GPU: NVIDIA's MIG user guide lists no such part)"
    architecture = architecture or (architecture_of(name) if name else "")
    if architecture in PRE_AMPERE:
        return f"{name or label} ({architecture}: MIG starts with Ampere)"
    if name and has_mig(name) is False:
        return f"{name} (NVIDIA's MIG user guide lists no such part)"
    return ""


def without_ecc(name: str, architecture: str = "") -> str:
    """Why a GPU of this model has no ECC, in words: a GeForce card (FAMILIES) of an architecture before Ada Lovelace,
    whose GDDR memory has no ECC (nvidia-smi prints its ECC Mode N/A, NVML answers NotSupported); "" when that is not
    shown. Ada's and later GeForce cards are left out: NVML offers an ECC mode on some of them."""
    family = family_of(name) if name else None
    architecture = architecture or (architecture_of(name) if name else "")
    if family is None or family.name != "geforce" or architecture not in ARCHITECTURE_ORDER:
        return ""
    if ARCHITECTURE_ORDER.index(architecture) >= ARCHITECTURE_ORDER.index("Ada Lovelace"):
        return ""
    return f"{name} (a GeForce card of {architecture}: its memory has no ECC)"


# MIG is the driver's from R450 on, the A100's first branch (NVIDIA's MIG user guide, Deployment Considerations: A100
# from R450, >= 450.80.02; every later MIG GPU from a later branch).
MIG_FIRST_BRANCH = 450


def driver_without_mig(version: str | None) -> str:
    """Why no GPU runs MIG under this driver, in words: its branch predates MIG_FIRST_BRANCH; "" when it does not or
    the version is unreadable."""
    m = re.match(r"\s*(\d+)\.\d+", version or "")
    if m is None or int(m.group(1)) >= MIG_FIRST_BRANCH:
        return ""
    return f"driver {version.strip() if version else ''} predates MIG, which starts with R{MIG_FIRST_BRANCH} and the A100"


# A mining board's whole name as its tools print it (`NVIDIA CMP 30HX`, `NVIDIA P104-100`): no table row, no brand word
# of a family, but a model the architecture words (_ARCH_WORDS) read.
MINING_BOARD = re.compile(r"^(?:NVIDIA\s+)?(?:CMP [345790]0HX|P10[246]-\d{3})$", re.I)


def architecture_of(name: str, pci_device_id: int | None = None, table: GpuTable | None = None) -> str:
    """The architecture a GPU's name or NVIDIA PCI device id implies: its table row's (for a name the nvidia-smi table
    cut, the one every row it may be shares), else the model number's
    series, else "pre-Turing" for a device id below Turing's; "" when none of them says.

    A partition or vGPU profile name is read by its board's words (board_words)."""
    name = board_words(name) or name
    if name:
        words = next((architecture for pattern, architecture, _ in _ARCH_WORDS if pattern.search(name)), "")
        try:
            match = lookup(name, table)
        except (UnknownGpuError, GpuTableError):
            match = None
        # A name the table reads as ambiguous ("Quadro RTX 6000" as the RTX 6000 Ada or RTX A6000, the vendor word
        # dropped) is settled by its model words where they name one architecture.
        if match is not None and not (match.alternatives and words):
            return match.spec.architecture
        # A cut name that several rows may be (`NVIDIA RTX PRO 6000 Blac...`): the architecture they share.
        shared = agreed(candidates(name, table), lambda s: s.architecture) if match is None and cut_prefix(name) else None
        if shared:
            return shared
        if words:
            return words
    if pci_device_id is not None and 0 < pci_device_id < _FIRST_TURING_DEVICE_ID:
        return "pre-Turing"
    return ""


# Words that name another model, not a variant of one: a query without them never matches a row with them
# ("GeForce GTX 1080" is not the GTX 1080 Ti, a 180 W card with 8 GB).
_MODEL_WORDS = frozenset({"ti", "super"})
_VENDOR_WORDS = frozenset({"nvidia", "geforce", "tesla", "amd", "quadro"})


# Remembered: a lookup normalizes every name of every row (16 000 calls over the corpus's 480 audits).
@functools.lru_cache(maxsize=8192)
def normalize(name: str) -> str:
    """Canonical form for matching: lowercase, vendor words dropped, letters and digits split.

    "NVIDIA GeForce RTX4090" -> "rtx 4090"; "A100-SXM4-80GB" -> "a 100 sxm 4 80 gb".
    """
    text = name.lower().replace("max-q", "maxq")
    text = re.sub(r"[^a-z0-9]+", " ", text)
    text = re.sub(r"(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])", " ", text)
    return " ".join(word for word in text.split() if word not in _VENDOR_WORDS)


def _str_tuple(row: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = row.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise GpuTableError(f"gpus.toml: {key} of {row.get('name')!r} must be a list of strings")
    return tuple(value)


def _parse_row(row: Mapping[str, Any]) -> GpuSpec:
    try:
        tflops_raw = row["tflops"]
        if not isinstance(tflops_raw, dict):
            raise GpuTableError(f"gpus.toml: tflops of {row.get('name')!r} must be a table")
        tflops = {str(key): float(value) for key, value in tflops_raw.items()}
        sparse_raw = row.get("tflops_sparse", {})
        if not isinstance(sparse_raw, dict):
            raise GpuTableError(f"gpus.toml: tflops_sparse of {row.get('name')!r} must be a table")
        nvlink_kind = str(row["nvlink_kind"])
        if nvlink_kind in BOARD_FABRICS and "nvlink_domain" not in row:
            raise GpuTableError(f"gpus.toml: {row.get('name')!r} is on a {nvlink_kind} fabric but has no nvlink_domain")
        return GpuSpec(
            name=str(row["name"]),
            aliases=_str_tuple(row, "aliases"),
            nvidia_smi_names=_str_tuple(row, "nvidia_smi_names"),
            vendor=str(row["vendor"]),
            architecture=str(row["architecture"]),
            compute_capability=str(row["compute_capability"]),
            form_factor=str(row["form_factor"]),
            memory_gib=float(row["memory_gib"]),
            memory_type=str(row["memory_type"]),
            memory_bus_bits=int(row["memory_bus_bits"]),
            memory_bandwidth_gbs=float(row["memory_bandwidth_gbs"]),
            pcie_gen=int(row["pcie_gen"]),
            pcie_width=int(row["pcie_width"]),
            nvlink_kind=nvlink_kind,
            nvlink_links=int(row["nvlink_links"]),
            nvlink_gbs_per_link=float(row["nvlink_gbs_per_link"]),
            nvlink_total_gbs=float(row["nvlink_total_gbs"]),
            p2p=bool(row["p2p"]),
            power_w=float(row["power_w"]),
            tflops=tflops,
            source=str(row["source"]),
            notes=str(row.get("notes", "")),
            nvlink_domain=int(row.get("nvlink_domain", 1)),
            datasheet=str(row.get("datasheet", "")),
            tflops_sparse={str(key): float(value) for key, value in sparse_raw.items()},
            family=_family_key(row),
            mig=bool(row["mig"]) if "mig" in row else None,
            pci_device_ids=tuple(i.lower() for i in _str_tuple(row, "pci_device_ids")),
            max_operating_temp_c=int(row["max_operating_temp_c"]) if "max_operating_temp_c" in row else None,
            gpus_per_board=int(row.get("gpus_per_board", 1)),
        )
    except KeyError as exc:
        raise GpuTableError(f"gpus.toml: row {row.get('name')!r} lacks {exc.args[0]!r}") from exc


def _family_key(row: Mapping[str, Any]) -> str:
    family = str(row["family"])
    if family not in FAMILIES:
        raise GpuTableError(f"gpus.toml: {row.get('name')!r} has family {family!r}, not one of {', '.join(FAMILIES)}")
    if bool(row["p2p"]) != FAMILIES[family].p2p:
        raise GpuTableError(f"gpus.toml: p2p of {row.get('name')!r} contradicts its family {family!r}")
    return family


# The keys of a row that gives a card's board power alone: a row with no other key is read as a BoardPower.
_POWER_ONLY_KEYS = frozenset(("name", "aliases", "power_w", "source", "notes", "memory_gib", "max_operating_temp_c"))


def _power_row(row: Mapping[str, Any]) -> BoardPower:
    try:
        return BoardPower(str(row["name"]), _str_tuple(row, "aliases"), float(row["power_w"]), str(row["source"]),
                          float(row["memory_gib"]) if "memory_gib" in row else None,
                          int(row["max_operating_temp_c"]) if "max_operating_temp_c" in row else None)
    except KeyError as exc:
        raise GpuTableError(f"gpus.toml: row {row.get('name')!r} lacks {exc.args[0]!r}") from exc


def parse_table(text: str) -> GpuTable:
    """Parse the TOML text of a GPU table (exposed for tests of malformed tables)."""
    data = tomllib.loads(text)
    rows = data.get("gpu", [])
    gpus = tuple(_parse_row(row) for row in rows if not row.keys() <= _POWER_ONLY_KEYS)
    power_only = tuple(_power_row(row) for row in rows if row.keys() <= _POWER_ONLY_KEYS)
    ambiguous = tuple(
        _Ambiguous(str(entry["name"]), str(entry["default"]), tuple(entry["candidates"]))
        for entry in data.get("ambiguous", [])
    )
    table = GpuTable(gpus=gpus, ambiguous=ambiguous, power_only=power_only)
    seen: dict[str, str] = {}
    rows_named: tuple[GpuSpec | BoardPower, ...] = (*gpus, *power_only)
    for gpu in rows_named:
        for written in gpu.all_names():
            key = normalize(written)
            if seen.get(key, gpu.name) != gpu.name:
                raise GpuTableError(f"gpus.toml: name {written!r} is used by {seen[key]!r} and {gpu.name!r}")
            seen[key] = gpu.name
    for entry in ambiguous:
        table.by_name(entry.default)
        for candidate in entry.candidates:
            table.by_name(candidate)
    return table


@functools.lru_cache(maxsize=1)
def load_table() -> GpuTable:
    """The shipped table, read once."""
    return parse_table(table_text())


def all_gpus() -> tuple[GpuSpec, ...]:
    return load_table().gpus


@dataclass(frozen=True)
class _ExactNames:
    """The names a query matches exactly, in `lookup`'s order (the first row wins): NVML's product names verbatim,
    each row's name and aliases normalised, and the declared ambiguous names normalised."""

    verbatim: dict[str, GpuSpec]
    names: dict[str, GpuSpec]
    ambiguous: dict[str, _Ambiguous]
    # Each row with the words of each of its names normalised, for the rows whose names hold a query's words.
    words: tuple[tuple[GpuSpec, tuple[frozenset[str], ...]], ...]


def _index(table: GpuTable) -> _ExactNames:
    verbatim: dict[str, GpuSpec] = {}
    names: dict[str, GpuSpec] = {}
    for gpu in table.gpus:
        for smi in gpu.nvidia_smi_names:
            verbatim.setdefault(" ".join(smi.lower().split()), gpu)
        for written in (gpu.name, *gpu.aliases):
            names.setdefault(normalize(written), gpu)
    ambiguous: dict[str, _Ambiguous] = {}
    for entry in table.ambiguous:
        ambiguous.setdefault(normalize(entry.name), entry)
    words = tuple((gpu, tuple(frozenset(normalize(written).split()) for written in gpu.all_names()))
                  for gpu in table.gpus)
    return _ExactNames(verbatim, names, ambiguous, words)


def _index_of(table: GpuTable | None) -> _ExactNames:
    return _shipped_index() if table is None or table is load_table() else _index(table)


@functools.lru_cache(maxsize=1)
def _shipped_index() -> _ExactNames:
    return _index(load_table())


def _exact(query: str, table: GpuTable | None) -> tuple[GpuSpec | None, _Ambiguous | None]:
    """The row a query names exactly (NVML's product name, or a row name or alias), else the declared ambiguous
    name it is; (None, None) when neither."""
    index = _index_of(table)
    spec = index.verbatim.get(" ".join(query.lower().split())) or index.names.get(normalize(query))
    return spec, (None if spec is not None else index.ambiguous.get(normalize(query)))


def exact_name(query: str) -> str:
    """The shipped table's row name a query names exactly, the query itself where it is a declared ambiguous name
    (for the caller to resolve with its note), or "" (a word several rows merely contain is none)."""
    spec, ambiguous = _exact(query, None)
    return spec.name if spec is not None else query if ambiguous is not None else ""


def lookup(query: str, table: GpuTable | None = None) -> GpuMatch:
    """Find the row for a name as people write it (case, spaces, "NVIDIA"/"GeForce" ignored).

    Order: the exact nvidia-smi product name; a row name or alias; a declared ambiguous name (its default, with a
    note); every row whose names contain all the words of the query (the first, i.e. the most
    common variant, with a note when several match). Raises UnknownGpuError with close names.
    A name the nvidia-smi table cut (`Tesla V100-SXM2...`) raises it with the rows whose product name starts with
    what it shows (`candidates` and `agreed` give what those rows share).
    """
    table = table or load_table()
    key = normalize(query)
    if not key:
        raise UnknownGpuError(query, ())
    if key in {normalize(name) for name in INTEGRATED_GPUS}:
        # An integrated GPU has no row: its name split as a size (`GB10` as `gb 10`) must not read as another board's.
        raise UnknownGpuError(query, ())
    prefix = cut_prefix(query)
    if prefix is not None:
        # Before the names: the words a cut leaves (`Tesla V100-PCIE`) may be an alias of one variant. The name alone
        # names no row, even where one row starts with it (the table does not hold every board): resolve_cut_name
        # reads the row from its memory size, `candidates` and `agreed` give what the rows it may be share.
        raise UnknownGpuError(query, tuple(gpu.name for gpu in _cut_rows(prefix, table)))
    # The exact product name NVML prints ("NVIDIA H200") names one variant, even where the same
    # words typed by a person ("H200") are ambiguous.
    spec, entry = _exact(query, table)
    if spec is not None:
        return GpuMatch(spec=spec, query=query)
    if entry is not None:
        others = tuple(name for name in entry.candidates if name != entry.default)
        return GpuMatch(
            spec=table.by_name(entry.default),
            query=query,
            note=f"{query!r} is ambiguous; assumed {entry.default} (the most common); others: {', '.join(others)}",
            alternatives=others,
        )
    words = set(key.split())
    partial = [gpu for gpu, names in _index_of(table).words
               if any(words <= written and not (written - words) & _MODEL_WORDS for written in names)]
    if len(partial) == 1:
        return GpuMatch(spec=partial[0], query=query, note=f"{query!r} read as {partial[0].name}")
    if partial:
        others = tuple(gpu.name for gpu in partial[1:])
        return GpuMatch(
            spec=partial[0],
            query=query,
            note=f"{query!r} is ambiguous; assumed {partial[0].name} (the most common); others: {', '.join(others)}",
            alternatives=others,
        )
    raise UnknownGpuError(query, table)


# The default `nvidia-smi` table prints a name in a fixed-width column and cuts a longer one to its first
# characters and "..." ("NVIDIA A100 80G...", "NVIDIA RTX PRO 6000 Blac..."); a copy that typesets the dots writes one
# "…". NVML's full product name is in `nvidia-smi -q` and `--query-gpu=name`. Row memory as NVML reports it lies
# within this share of the nominal size (97887 of 98304 MiB for a 96 GiB RTX PRO 6000, 81559 of 81920 MiB for an
# H100 80GB HBM3).
CUT_MARKS = ("...", "…")
_MEMORY_SHARE = 0.95


def _fits_memory(memory_mib: float, nominal_gib: float) -> bool:
    """Whether NVML's memory total (MiB) is a card of this nominal size: at most the size, at least _MEMORY_SHARE."""
    return _MEMORY_SHARE <= memory_mib / (nominal_gib * 1024) <= 1.0
_Value = TypeVar("_Value", bound=Hashable)


def cut_prefix(shown: str) -> str | None:
    """What a name the nvidia-smi table cut shows, spaces collapsed (`NVIDIA A100 80G` of `NVIDIA A100 80G...`);
    None for a name that is not cut."""
    text = " ".join(shown.split())
    mark = next((m for m in CUT_MARKS if text.endswith(m)), "")
    return text[: -len(mark)].rstrip() if mark else None


def _cut_rows(prefix: str, table: GpuTable) -> tuple[GpuSpec, ...]:
    """The rows whose nvidia-smi product name starts with what a cut name shows (case ignored)."""
    shown = prefix.lower()
    return tuple(gpu for gpu in table.gpus
                 if shown and any(" ".join(name.lower().split()).startswith(shown) for name in gpu.nvidia_smi_names))


def candidates(name: str, table: GpuTable | None = None) -> tuple[GpuSpec, ...]:
    """The rows a GPU name may mean: for a name the nvidia-smi table cut, every row whose product name starts with
    what it shows; else the row `lookup` finds, with an ambiguous name's other candidates.

    A name the table does not know, or reads inexactly as one row, gives ()."""
    table = table or load_table()
    prefix = cut_prefix(name)
    if prefix is not None:
        return _cut_rows(prefix, table)
    try:
        match = lookup(name, table)
    except UnknownGpuError:
        return ()
    if match.note and not match.alternatives:
        return ()
    return (match.spec, *(table.by_name(other) for other in match.alternatives))


# A name a cloud provider's virtualisation gives a GPU or a slice of one, led by the board's model and then a count and
# its form factor (`L20-2-PCIE-48GB-48GB-L-H-V`, an Alibaba host's collect_env: vllm-project/vllm#10652, corpus 885).
# The provider's scheme for the rest of the name is not published, so only the leading model is read: the board the
# slice runs on, whose compute capability the slice has. Whether it is shared or whole is not read from the name.
_PARTITION_NAME = re.compile(r"^(?P<model>[A-Za-z]+\d+[A-Za-z]*)-\d+-(?:PCIE|SXM\d?)-\d+GB\b", re.IGNORECASE)


# The name NVIDIA's vGPU guest driver gives a virtual GPU: its profile, `GRID <board>-<frame buffer in GB><series>`
# (series A, B, C or Q; a MIG-backed profile puts its slice count first, `GRID A100-3-20C`; some B profiles end
# in a head count, `GRID P4-1B4`): NVIDIA Virtual GPU Software User Guide, "Virtual GPU Types"
# (https://docs.nvidia.com/vgpu/latest/grid-vgpu-user-guide/index.html#virtual-gpu-types-grid). Newer guest
# drivers print `NVIDIA <board>-<size><series>` (`NVIDIA L40S-24Q`, ollama/ollama#8023).
# A physical board never bears such a name (`GRID K520` is a board: no `-<size><series>`; `NVIDIA A100-PCIE-40GB`
# ends in GB).
# The board leads the profile, written without spaces (`RTXA5000-24Q` is an RTX A5000, `RTX6000-Ada-48Q` an RTX 6000
# Ada), with a letter for the board's variant where one model has several (`A100D`, `V100DX`, `H100XM`: the same
# guide's type tables), which names no other model.
VGPU_PROFILE = re.compile(r"^(?:GRID|NVIDIA)\s+(?P<board>[^\s-]+(?:[\s-][^\s-]+)*?)-(?:\d+-)?\d+[ABCQ]\d?$")
_VGPU_VARIANT = re.compile(r"(?<=\d)(?:DX|XM|D|X|L)$")


def board_words(name: str) -> str:
    """The board a provider's partition name (_PARTITION_NAME) or a vGPU profile (VGPU_PROFILE) runs on, as people
    write it; "" for any other name.

    >>> board_words("L20-2-PCIE-48GB-48GB-L-H-V"), board_words("GRID A100D-3-40C"), board_words("NVIDIA RTXA5000-24Q")
    ('L20', 'A100', 'RTX A5000')
    >>> board_words("NVIDIA L4"), board_words("NVIDIA A100-PCIE-40GB")
    ('', '')
    """
    text = name.strip()
    m = _PARTITION_NAME.match(text) or VGPU_PROFILE.match(text)
    if m is None:
        return ""
    if "model" in m.groupdict():
        return m.group("model")
    board = _VGPU_VARIANT.sub("", m.group("board"))
    return re.sub(r"^RTX(?=[A-Z]?\d)", "RTX ", board.replace("-", " "), flags=re.IGNORECASE)


def agreed(rows: Collection[GpuSpec], read: Callable[[GpuSpec], _Value]) -> _Value | None:
    """The value `read` gives every row; None where the rows differ on it, or where there is no row.

    >>> agreed(candidates("NVIDIA RTX PRO 6000 Blac..."), lambda gpu: gpu.architecture)
    'Blackwell'
    >>> agreed(candidates("NVIDIA RTX PRO 6000 Blac..."), lambda gpu: gpu.power_w) is None
    True
    """
    values = {read(row) for row in rows}
    return values.pop() if len(values) == 1 else None


@dataclass(frozen=True)
class CutName:
    """A product name the nvidia-smi table cut: the row it resolves to, or None with the rows it may be."""

    shown: str
    spec: GpuSpec | None
    candidates: tuple[str, ...]
    note: str
    rows: tuple[GpuSpec, ...] = ()  # the rows of `candidates`, for what they share (`agreed`)


def resolve_cut_name(shown: str, memory_mib: float | None, power_cap_w: float | None,
                     table: GpuTable | None = None) -> CutName | None:
    """Resolve a name cut by the `nvidia-smi` table from its row's memory size and power cap; None if not cut.

    Candidates are the rows whose nvidia-smi product name starts with the shown part.
    The memory size keeps the rows whose nominal size it fits (NVML reports slightly less).
    The power cap keeps the rows whose board power equals it; a cap no row has (set with `nvidia-smi -pl`)
    narrows nothing.
    One row left, with the memory size shown, resolves the name; several stay unresolved and the note names them.
    """
    prefix = cut_prefix(shown)
    if prefix is None:
        return None
    table = table or load_table()
    rows = list(_cut_rows(prefix, table))
    basis: list[str] = []
    if memory_mib is not None and rows:
        rows = [gpu for gpu in rows if _fits_memory(memory_mib, gpu.memory_gib)]
        basis.append(f"{memory_mib:g} MiB")
    if power_cap_w is not None and rows:
        capped = [gpu for gpu in rows if abs(gpu.power_w - power_cap_w) < 1.0]
        if capped:
            rows = capped
            basis.append(f"a {power_cap_w:g} W cap")
    names = tuple(gpu.name for gpu in rows)
    how = f" from {' and '.join(basis)}" if basis else ""
    if len(rows) == 1 and memory_mib is not None:
        return CutName(shown, rows[0], names,
                       f"{shown!r} (cut by the nvidia-smi table) read as {rows[0].name}{how} (gpus.toml)", tuple(rows))
    if rows:
        why = f"is ambiguous{how}" if memory_mib is not None else "is not resolved without its memory size"
        return CutName(shown, None, names, f"{shown!r} (cut by the nvidia-smi table) {why}: may be "
                       f"{' or '.join(names)}; `nvidia-smi --query-gpu=name --format=csv` names it", tuple(rows))
    with_memory = f" with {memory_mib:g} MiB" if memory_mib is not None else ""
    return CutName(shown, None, (), f"{shown!r} (cut by the nvidia-smi table) matches no row of the GPU table"
                   f"{with_memory}; "
                   "`nvidia-smi --query-gpu=name --format=csv` names it")


def by_pci_device_id(device_id: str, table: GpuTable | None = None) -> GpuSpec | None:
    """The row whose boards have an NVIDIA PCI device id (`2321`, `0x2330`); None where no row gives it."""
    key = device_id.lower().removeprefix("0x").rjust(4, "0")
    return next((g for g in (table or load_table()).gpus if key in g.pci_device_ids), None)


def suggest(query: str, table: GpuTable | None = None, limit: int = 3) -> tuple[str, ...]:
    """Close row names for an unknown query (difflib on the normalized forms)."""
    table = table or load_table()
    by_key: dict[str, str] = {}
    for gpu in table.gpus:
        for written in gpu.all_names():
            by_key.setdefault(normalize(written), gpu.name)
    for entry in table.ambiguous:
        by_key.setdefault(normalize(entry.name), entry.default)
    import difflib  # only for an unknown name

    close = difflib.get_close_matches(normalize(query), list(by_key), n=limit * 3, cutoff=0.5)
    names: list[str] = []
    for key in close:
        if by_key[key] not in names:
            names.append(by_key[key])
    return tuple(names[:limit])


# A laptop GPU's power limit is the laptop maker's choice within NVIDIA's range for the part (the RTX A500 Laptop GPU:
# 20-60 W, https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/rtx/nvidia-rtx-a500-laptop-gpu-datasheet.pdf):
# NVML names these parts `... Laptop GPU`.
LAPTOP_GPU = re.compile(r"\bLaptop\s+GPU\b", re.I)
# A laptop's one discrete GPU, as NVML names it: `... Laptop GPU` (Ampere on, 2021) or `... with Max-Q Design` (the thin
# laptop design of 2017-2020: GTX 10, GTX 16 and RTX 20 parts). NVIDIA laptops with two discrete GPUs were SLI designs of
# Pascal and before (MSI GT80, ASUS GX800, Clevo P870: full-power GTX 980M/1070/1080 modules, never Max-Q), and SLI left
# laptops before Turing (which kept an NVLink bridge for desktop TU102/TU104 cards only), so neither name is ever one of
# a pair. Not the desktop `RTX PRO 6000 Blackwell Max-Q Workstation Edition`, nor an `M`/`Mobile` part, which an SLI
# laptop could carry two of. The GeForce MX parts (MX110 to MX570, 2017-2022) are notebook GPUs only, the entry-level
# discrete GPU beside the CPU's graphics, never in SLI (https://www.nvidia.com/en-us/geforce/gaming-laptops/mx-550/):
# NVML names them `NVIDIA GeForce MX350` (corpus 1571), `GeForce MX250`.
# NVIDIA's mobile Turing workstation parts whose names no desktop card bears: the Quadro RTX 3000 (PCI 1f36), Quadro
# T1000 (1fb9) and Quadro T2000 (1fb8), each also sold `with Max-Q Design` under the same device id (NVIDIA's
# supported-GPU list of the driver README, the open kernel module's supported-gpus.json; the desktop T1000 is `NVIDIA
# T1000`, 1ff0). NVML prints them without a laptop word (`Quadro RTX 3000`, corpus 1382): a laptop's one GPU, whose
# power limit is the laptop maker's budget (35-80 W for the Quadro RTX 3000).
MOBILE_QUADRO = re.compile(r"\bQuadro\s+(?:RTX\s+3000|T1000|T2000)\b", re.I)
LAPTOP_PART = re.compile(rf"{LAPTOP_GPU.pattern}|\bwith\s+Max-Q\s+Design\b|\bGeForce\s+MX\s?\d{{3}}\b|"
                         rf"{MOBILE_QUADRO.pattern}", re.I)

# The memory sizes (GiB) NVIDIA gave a GeForce model number's Laptop GPU and none of its desktop cards, from the laptop
# and desktop compare pages (https://www.nvidia.com/en-us/geforce/laptops/compare/ and
# https://www.nvidia.com/en-us/geforce/graphics-cards/compare/): RTX 3050 Laptop 4 GB (desktop 8 or 6), RTX 3060 Laptop
# 6 GB (desktop 12 or 8), RTX 3080 Laptop 8 or 16 GB (desktop 10 or 12), RTX 4070 Laptop 8 GB (desktop 12), RTX 4080
# Laptop 12 GB (desktop 16), RTX 4090 Laptop 16 GB (desktop 24). A name the nvidia-smi table cut right after the model
# number (`NVIDIA GeForce RTX 3060 ...`, corpus 1168: the column prints `... RTX 3060 Ti` whole, so a longer name was
# cut) with one of these sizes is that Laptop GPU.
LAPTOP_ONLY_MEMORY_GIB: dict[str, tuple[int, ...]] = {
    "RTX 3050": (4,), "RTX 3060": (6,), "RTX 3080": (8, 16), "RTX 4070": (8,), "RTX 4080": (12,), "RTX 4090": (16,)}
_CUT_GEFORCE = re.compile(r"^(?:NVIDIA\s+)?GeForce\s+(RTX\s+\d{4})$", re.I)


def cut_laptop_gpu(shown: str, memory_mib: float | None) -> str:
    """The Laptop GPU a name the nvidia-smi table cut after its GeForce model number is, by its memory size
    (LAPTOP_ONLY_MEMORY_GIB): `RTX 3060 Laptop GPU` for `NVIDIA GeForce RTX 3060 ...` with 6144 MiB; "" otherwise."""
    prefix = cut_prefix(shown)
    match = _CUT_GEFORCE.match(prefix or "")
    if match is None or memory_mib is None:
        return ""
    model = " ".join(match.group(1).upper().split())
    sizes = LAPTOP_ONLY_MEMORY_GIB.get(model, ())
    return next((f"{model} Laptop GPU" for gib in sizes if _fits_memory(memory_mib, gib)), "")


@functools.lru_cache(maxsize=1)
def _board_rows() -> dict[str, BoardPower]:
    return {normalize(written): row for row in load_table().power_only for written in row.all_names()}


def board_row(name: str) -> BoardPower | None:
    """The power-only row of gpus.toml for a desktop card the table has no full row for; None for any other name, a
    Laptop GPU's too."""
    if LAPTOP_GPU.search(name):
        return None
    return _board_rows().get(normalize(name))


def board_power(name: str) -> tuple[float, str] | None:
    """The default power limit (W) of a desktop card the table has no full row for, with NVIDIA's page (a power-only
    row of gpus.toml); None for any other name, a Laptop GPU's too."""
    row = board_row(name)
    return (row.power_w, row.source) if row is not None else None


def cut_board_power(shown: str, memory_mib: float | None) -> BoardPower | None:
    """The power-only row a name the nvidia-smi table cut is, by its memory size (cut_board_rows), where one row alone
    fits; None otherwise."""
    rows = cut_board_rows(shown, memory_mib)
    return rows[0] if len(rows) == 1 else None


def cut_board_rows(shown: str, memory_mib: float | None) -> tuple[BoardPower, ...]:
    """The power-only rows a name the nvidia-smi table cut may be, by its memory size: the rows whose name starts with
    what the cut name shows and whose one memory size the GPU's fits (`NVIDIA RTX 4000 Ada Gene...` with 20475 MiB:
    the RTX 4000 Ada Generation, 20 GB, corpus 1688); () where a row gives no memory size, or without the memory size.

    Only rows that give the model's one memory size take part. A GeForce name takes part only where it is cut after
    its model number and its memory fits none of that model's Laptop GPU sizes (LAPTOP_ONLY_MEMORY_GIB: `NVIDIA
    GeForce RTX 4080 ...` of 16376 MiB is no RTX 4080 Laptop GPU, 12 GB; corpus 2329): a cut name may be the model's
    Laptop GPU, whose name extends the desktop card's, and a GeForce Laptop GPU may carry its desktop card's memory
    (RTX 4060: 8 GB both). NVIDIA's workstation Laptop GPUs carry other memory sizes than the desktop cards of their
    number (RTX 4000 Ada Laptop 12 GB, RTX 5000 Ada Laptop 16 GB: corpus 570's `NVIDIA RTX 5000 Ada Gene...` of
    16376 MiB is one). A GeForce name of more memory than any board of its model number, its Laptop GPU's too, is a
    desktop board re-fitted with more memory: every row its name starts (corpus 2870).
    """
    prefix = cut_prefix(shown)
    if prefix is None or memory_mib is None:
        return ()
    model = ""
    if re.search(r"\bGeForce\b", prefix, re.I):
        geforce = _CUT_GEFORCE.match(prefix)
        model = " ".join(geforce.group(1).upper().split()) if geforce else ""
        if model not in LAPTOP_ONLY_MEMORY_GIB or cut_laptop_gpu(shown, memory_mib):
            return ()
    key = normalize(prefix)
    rows = [row for row in load_table().power_only
            if key and any(normalize(written).startswith(key) for written in row.all_names())]
    if not rows or any(row.memory_gib is None for row in rows):
        return ()
    fitting = tuple(row for row in rows if row.memory_gib and _fits_memory(memory_mib, row.memory_gib))
    # A GeForce card with more memory than NVIDIA gave any board of its model number, desktop or Laptop GPU (`NVIDIA
    # GeForce RTX 4080 ...` of 32760 MiB, corpus 2870): a desktop board re-fitted with more memory chips, as sold for
    # AI work (the RTX 2080 Ti 22G, RTX 4080 Super 32G, RTX 4090 48G); its chip and board power are its model's, so
    # it may be any of the desktop rows its name starts.
    larger = model and all(memory_mib > max(row.memory_gib or 0, *LAPTOP_ONLY_MEMORY_GIB[model]) * 1024 for row in rows)
    return fitting or (tuple(rows) if larger else ())


def nominal_memory_gib(name: str) -> float | None:
    """The nominal memory (GiB) of the GPU a product name names exactly (a full row, or a power-only row that gives
    the card's one memory size); None for a name the table does not pin to one size."""
    spec, _ = _exact(name, None)
    if spec is not None:
        return spec.memory_gib
    if LAPTOP_GPU.search(name):
        return None
    return next((row.memory_gib for row in load_table().power_only
                 if normalize(name) in {normalize(written) for written in row.all_names()}), None)
