"""NVIDIA GPUs and driver: per-GPU state (NVML, else nvidia-smi outputs), driver flavour, daemons, Xids.

Sources of the `nvidia` fact, in order (declared in facts/nvidia_smi.py; docs/checks.md, DRV/MEM/PWR):
1. NVML through the choke point (`host.nvml`, stackaudit.host.nvml): live, and replayed from a
   snapshot's `nvml/…` entries. Live, this is the only source: one `gpu/<n>` query per GPU costs
   milliseconds, where `nvidia-smi -q -x` takes seconds on an 8-GPU host (it queries every field
   of every GPU, supported clocks included), so it is not run when NVML answers.
2. `nvidia-smi -q -x` (XML), run only when NVML cannot be used (nvidia-ml-py missing), or pasted.
3. `nvidia-smi -q` text, as pasted into bug reports.
4. The `nvidia-smi` default table (old "Driver Version" and new "KMD Version" headers).

A host whose PCI bus shows no NVIDIA GPU gets an empty `NvidiaGpus` (checks: not applicable);
a GPU host whose driver is not reachable gets FactUnavailable with the reason. Never a write:
nothing here changes a GPU setting.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from stackaudit.facts._parse import ParseError, only_one, stated_lines
from stackaudit.facts.readings import Verdict, reading, worse_of
from stackaudit.facts.registry import (
    FactContext,
    FactSpec,
    FactUnavailable,
    Provider,
    Sourced,
    fact,
    first_of,
    parser,
    provider,
    sample_field,
)
from stackaudit.facts.sources import (
    ENGINE_LOG,
    EVIDENCE_LINES,
    MODINFO_NVIDIA_LICENSE,
    NVIDIA_MODULE_VERSION,
    NVIDIA_PROC_PARAMS,
    NVIDIA_PROC_VERSION,
    NVSMI_VERSION,
    P2P_BANDWIDTH_TEST,
    POWER_CAP_SWEEP,
    POWERPROFILESCTL,
    PROC_MEMINFO,
    PROC_MODULES,
    PROMPT_HOSTS,
)
from stackaudit.facts.symptoms import KERNEL_OPEN_README
from stackaudit.gputable import (
    ARCHITECTURE_ORDER,
    BoardPower,
    GpuSpec,
    GpuTableError,
    UnknownGpuError,
    agreed,
    architecture_of,
    board_power,
    board_row,
    cut_board_rows,
    cut_prefix,
    lookup,
    resolve_cut_name,
)
from stackaudit.host.base import Host, NotCaptured, Reads, list_or_none, read_optional
from stackaudit.host.nvml import NvmlError
from stackaudit.pci_address import normalize_bdf
from stackaudit.versions import release

# --- vocabulary ------------------------------------------------------------------------------

# NVML clock event reason bits (nvmlClocksEventReason*, pynvml 13.615.71; NVML API reference
# group__nvmlClocksEventReasons). The names are those of the nvidia-smi XML elements
# `clocks_event_reason_<name>` (older drivers: `clocks_throttle_reason_<name>`).
CLOCK_EVENT_BITS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clocks_setting",
}
CLOCK_EVENT_LABELS = {
    "gpu_idle": "Idle",
    "applications_clocks_setting": "Applications Clocks Setting",
    "sw_power_cap": "SW Power Cap",
    "hw_slowdown": "HW Slowdown",
    "sync_boost": "Sync Boost",
    "sw_thermal_slowdown": "SW Thermal Slowdown",
    "hw_thermal_slowdown": "HW Thermal Slowdown",
    "hw_power_brake_slowdown": "HW Power Brake Slowdown",
    "display_clocks_setting": "Display Clock Setting",
}
ARCHITECTURES = {2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing", 7: "Ampere", 8: "Ada Lovelace",
                 9: "Hopper", 10: "Blackwell", 13: "Rubin"}  # NVML_DEVICE_ARCH_*
COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}  # NVML_COMPUTEMODE_*
FABRIC_STATES = {0: "Not Supported", 1: "Not Started", 2: "In Progress", 3: "Completed"}  # NVML_GPU_FABRIC_STATE_*
# The Fabric block's registration fields (`nvidia-smi -q`, NVML nvmlGpuFabricInfo) and the value each shows on a GPU
# Fabric Manager registered; `Not Supported` cannot say. The worse field decides (facts/readings.py): a Completed
# state does not outweigh a Status that says otherwise (NVML: the status "must be checked only if state returns
# complete", https://docs.nvidia.com/deploy/nvml-api/structnvmlGpuFabricInfo__v3__t.html). DRV-FABRIC-MANAGER.
FABRIC_FIELDS = (("Fabric State", "fabric_state", "Completed"), ("Fabric Status", "fabric_status", "Success"))
# The Health block's summary (R550 and later: NVML's healthSummary beside its health mask of degraded bandwidth, route
# recovery, unhealthy routes, access-timeout recovery and incorrect configuration,
# https://docs.nvidia.com/deploy/nvml-api/group__nvmlFabricDefs.html): the state of the fabric's links after
# registration, which is the NVLink fabric's health, not Fabric Manager's (DRV-NVLINK-HEALTH).
FABRIC_HEALTH = ("Fabric Health Summary", "fabric_health", "Healthy")
_FABRIC_CANNOT_SAY = frozenset({"Not Supported", "N/A"})
RECOVERY_ACTIONS = {0: "None", 1: "GPU Reset", 2: "Node Reboot", 3: "Drain P2P", 4: "Drain and Reset",
                    5: "Recover IMEX Domain", 6: "Bus Reset", 7: "System Reboot"}  # NVML_GPU_RECOVERY_ACTION_*

# --- facts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NvLink:
    link: int
    active: bool | None
    remote_bdf: str = ""
    replay: int | None = None
    recovery: int | None = None
    crc_flit: int | None = None
    crc_data: int | None = None

    @property
    def errors(self) -> int:
        return sum(v or 0 for v in (self.replay, self.recovery, self.crc_flit, self.crc_data))


# A display server's process (Xorg, a Wayland compositor, a display manager).
DISPLAY_SERVER = re.compile(r"(?:^|/)(?:Xorg|Xwayland|X|gnome-shell|kwin_wayland|kwin_x11|sway|gdm[\w-]*|sddm[\w-]*)$")
# An engine's helper process (API server, a worker's small context) by name; under SMALL_MIB it is the engine's own.
_ENGINE_NAME = re.compile(r"VLLM::|vllm|sglang|trtllm|tensorrt_llm|mpi4py", re.IGNORECASE)
SMALL_MIB = 1024.0


@dataclass(frozen=True)
class GpuProcess:
    pid: int
    name: str = ""
    used_mib: float | None = None
    kind: str = "C"  # C compute, G graphics, C+G, M (MPS)

    @property
    def large(self) -> bool:
        """It holds SMALL_MIB or more: real work (model weights), not a bare CUDA context."""
        return (self.used_mib or 0) >= SMALL_MIB


# Power limits closer than this many watts are the same limit.
POWER_TOLERANCE_W = 1.0


@dataclass(frozen=True)
class GpuInfo:
    """One GPU as NVML / nvidia-smi reports it. None everywhere means "the source does not say"."""

    index: int
    name: str = ""
    uuid: str = ""
    bdf: str = ""  # sysfs form, 0000:01:00.0
    # The driver's device minor (/dev/nvidiaN), numbered from 0 as the GPUs probe: N proves N+1 GPUs probed.
    minor_number: int | None = None
    architecture: str = ""
    compute_capability: str = ""
    pci_device_id: int | None = None  # the NVIDIA PCI device id (0x1401 of `Device Id : 0x140110DE`)
    persistence: bool | None = None
    driver_model: str | None = None  # Windows only: WDDM | TCC | MCDM (no persistence mode there)
    # The Windows driver model `nvidia-smi -q` prints beside a persistence mode: Linux's nvidia-smi over the Windows
    # driver, WSL 2's (facts/platform.wsl_driver).
    wsl_driver_model: str | None = None
    compute_mode: str | None = None  # Default | Exclusive_Process | Prohibited | Exclusive_Thread
    display_active: bool | None = None
    mig_current: bool | None = None
    mig_pending: bool | None = None
    mig_devices: int | None = None
    ecc_current: bool | None = None
    ecc_pending: bool | None = None
    ecc_volatile_uncorrected: int | None = sample_field()
    ecc_volatile_corrected: int | None = sample_field()
    ecc_aggregate_uncorrected: int | None = None
    ecc_aggregate_corrected: int | None = None
    retired_sbe: int | None = None
    retired_dbe: int | None = None
    retired_pending: bool | None = None
    remap_corrected: int | None = None
    remap_uncorrected: int | None = None
    remap_pending: bool | None = None
    remap_failure: bool | None = None
    power_limit_w: float | None = None  # current (requested) limit
    power_default_w: float | None = None
    power_min_w: float | None = None
    power_max_w: float | None = None
    power_enforced_w: float | None = None
    power_draw_w: float | None = sample_field()
    clock_events: tuple[str, ...] | None = sample_field()  # active reasons, CLOCK_EVENT_BITS names
    sm_clock_mhz: int | None = sample_field()
    mem_clock_mhz: int | None = sample_field()
    max_sm_clock_mhz: int | None = None
    max_mem_clock_mhz: int | None = None
    app_graphics_mhz: int | None = None
    app_mem_mhz: int | None = None
    default_app_graphics_mhz: int | None = None
    default_app_mem_mhz: int | None = None
    memory_total_mib: float | None = None
    memory_used_mib: float | None = sample_field()
    bar1_total_mib: float | None = None
    # "None" on bare metal, "Pass-Through" in a VM the GPU is passed into, "VGPU" in a vGPU guest,
    # "Host VGPU" / "Host VSGA" on the hypervisor (NVML nvmlDeviceGetVirtualizationMode).
    virtualization_mode: str | None = None
    # NVIDIA vGPU software's licence as the guest driver reports it (`nvidia-smi -q`'s `vGPU Software Licensed
    # Product` section: its `License Status`, `Licensed (Expiry: ...)` or `Unlicensed (Restricted)`, and the product
    # licensed, `NVIDIA Virtual Compute Server`); None where not shown.
    vgpu_license: str | None = None
    vgpu_product: str | None = None
    pcie_gen: int | None = sample_field()
    pcie_gen_max: int | None = None  # max of the link (min of device and host)
    pcie_gen_device_max: int | None = None
    pcie_gen_host_max: int | None = None
    pcie_width: int | None = None
    pcie_width_max: int | None = None
    pcie_replays: int | None = None
    nvlinks: tuple[NvLink, ...] | None = None  # () = the GPU has no NVLink; None = not in the source
    processes: tuple[GpuProcess, ...] | None = sample_field()
    utilization_gpu: int | None = sample_field()
    utilization_mem: int | None = sample_field()
    gsp_firmware: str | None = None  # version string; "" = N/A (GSP not in use)
    memory_bus_width: int | None = None
    pstate: str | None = sample_field()
    fabric_state: str | None = None
    fabric_status: str | None = None
    fabric_health: str | None = None  # `Fabric/Health/Summary` (newer drivers): Healthy, Unhealthy, ...
    temp_c: int | None = sample_field()
    temp_slowdown_c: int | None = None
    # `GPU Max Operating Temp` (NVML_TEMPERATURE_THRESHOLD_GPU_MAX): where the SW thermal capping starts cutting clocks
    temp_max_operating_c: int | None = None
    mem_temp_c: int | None = sample_field()
    mem_temp_max_c: int | None = None
    recovery_action: str | None = None
    # Features the source says this GPU lacks (NVML NotSupported, nvidia-smi "N/A"): "ecc", "mig", "remap", "retire"
    # (page retirement),
    # "power" (the table's power cap reads N/A), "app-clocks" (`nvidia-smi -q`'s application clocks and their
    # defaults all N/A).
    # A field that is None and not listed here was not read (NoPermission, an excerpt): unknown, not absent.
    unsupported: tuple[str, ...] = ()
    # Readings the source shows as `ERR!` (nvidia-smi asked and NVML failed to answer): "power-draw" (the table's
    # `ERR! / 250W`, corpus 1365), "power-limit" (its `N/A / ERR!`, corpus 1571). Not read, like None, but named: the
    # cell beside it still stands.
    unreadable: tuple[str, ...] = ()
    error: str = ""  # the whole GPU could not be read (e.g. NVML "gpu-is-lost")
    # The name as the source printed it when the nvidia-smi table cut it ("NVIDIA A100 80G..."); `name` then holds
    # the product name it resolves to (gputable.resolve_cut_name), or the cut name when it stays ambiguous.
    cut_name: str = ""

    @property
    def label(self) -> str:
        if self.index < 0:  # a GPU the source names by its address only (nvidia-smi could not open it)
            return f"GPU {self.bdf}"
        return f"GPU {self.index} ({self.bdf})" if self.bdf else f"GPU {self.index}"

    @property
    def subject(self) -> str:
        return self.bdf or f"GPU {self.index}"

    @property
    def shows_display(self) -> bool:
        """`Display Active: Enabled`, or a display server among its processes."""
        return bool(self.display_active) or any(DISPLAY_SERVER.search(p.name or "") for p in self.processes or ())

    @property
    def compute_processes(self) -> list[GpuProcess]:
        """Its processes less the display servers."""
        return [p for p in self.processes or () if not DISPLAY_SERVER.search(p.name or "")]

    @property
    def serving_work(self) -> bool:
        """Whether it shows serving work: a process other than the display holds SMALL_MIB or more, or half its
        memory or more is used (model weights; a desktop takes far less)."""
        used, total = self.memory_used_mib, self.memory_total_mib
        return any(p.large for p in self.compute_processes) or (
            used is not None and total is not None and total > 0 and used >= total / 2)

    def outside(self, engine_pids: set[int]) -> list[GpuProcess]:
        """Its processes that are not the engine's: neither its PIDs nor a small context of an engine's name."""
        return [p for p in self.compute_processes if p.pid not in engine_pids
                and not (_ENGINE_NAME.search(p.name) and not p.large)]

    @property
    def name_in_words(self) -> str:
        """The name as a report says it: a name the table cut and its figures resolved is shown cut, the product
        marked as inferred (`NVIDIA GeForce ... (likely RTX 3090 from 24 GiB/350 W)`): a capped card of
        another model with the same memory fits the same figures."""
        if not self.cut_name or self.name == self.cut_name:
            return self.name
        shown = cut_prefix(self.cut_name) or self.cut_name
        # The words after the cut where it fell between words (`RTX 3090`), else the whole name (`A100 80GB PCIe`).
        whole_words = self.name.lower().startswith(shown.lower()) and self.name[len(shown):len(shown) + 1] == " "
        product = self.name[len(shown):].strip() if whole_words else self.name
        basis = [f"{self.memory_total_mib / 1024:.0f} GiB"] if self.memory_total_mib is not None else []
        spec = self.spec
        if self.power_cap_w is not None and spec is not None and abs(spec.power_w - self.power_cap_w) < 1.0:
            basis.append(f"{self.power_cap_w:g} W")
        return f"{self.cut_name.strip()} (likely {product}{' from ' + '/'.join(basis) if basis else ''})"

    @property
    def spec(self) -> GpuSpec | None:
        """The row of data/gpus.toml for this GPU's product name, or None when unknown."""
        return gpu_spec(self.name)

    @property
    def max_operating_temp(self) -> tuple[int | None, str]:
        """`GPU Max Operating Temp` and where it comes from: the source's (`nvidia-smi -q`), else the GPU table's row
        for the model, a full row or a power-only one (the nvidia-smi table shows the temperature, not its thresholds);
        (None, "") where neither."""
        if self.temp_max_operating_c is not None:
            return self.temp_max_operating_c, "max operating temperature"
        spec = self.spec
        if spec is not None and spec.max_operating_temp_c is not None:
            return spec.max_operating_temp_c, f"the {spec.name} max operating temperature in the GPU table"
        board = board_row(self.name or "") if spec is None else None
        if board is not None and board.max_operating_temp_c is not None:
            return board.max_operating_temp_c, f"the {board.name} max operating temperature in the GPU table"
        return None, ""

    @property
    def power_cap_w(self) -> float | None:
        """The power limit in force: the requested one, else the enforced one where another limiter (a power
        brake, an out-of-band cap) holds it more than POWER_TOLERANCE_W lower."""
        if self.power_enforced_w is not None and (self.power_limit_w is None or self.power_braked):
            return self.power_enforced_w
        return self.power_limit_w

    @property
    def power_braked(self) -> bool:
        """Another limiter (a power brake, an out-of-band cap) holds the enforced limit below the requested one."""
        limit, enforced = self.power_limit_w, self.power_enforced_w
        return limit is not None and enforced is not None and enforced < limit - POWER_TOLERANCE_W

    @property
    def power_default(self) -> tuple[float | None, str]:
        """The default power limit and where it comes from: the GPU's own, else its GPU-table row's, else its board
        power on NVIDIA's spec page (a power-only row of the GPU table, gputable.board_power).

        The row's is no evidence where the cap is what resolved a name the nvidia-smi table cut
        (gputable.resolve_cut_name): it would only repeat the cap.
        A cut name has the default that every row it may be with its memory size has (gputable.agreed: 300 W for a
        `Tesla V100-SXM2...` of 16 or 32 GB), and none where they differ; a cut name no full row fits has the board
        power that every power-only row its memory size fits gives (gputable.cut_board_rows)."""
        if self.power_default_w is not None:
            return self.power_default_w, "the GPU's default"
        spec = self.spec
        if self.cut_name:
            cut = resolve_cut_name(self.cut_name, self.memory_total_mib, None)
            rows = cut.rows if cut is not None else ()
            shown = self.cut_name.strip()
            fits = f" with {self.memory_total_mib:g} MiB" if self.memory_total_mib is not None else ""
            board_rows = () if rows else cut_board_rows(self.cut_name, self.memory_total_mib)
            if len({row.power_w for row in board_rows}) == 1:
                # Every power-only row the cut name may be by its memory gives one board power (`NVIDIA GeForce RTX
                # 4080 ...` of 16 GB: the RTX 4080 and the RTX 4080 Super, both 320 W; corpus 2329).
                names = " or ".join(row.name for row in board_rows)
                refit = self.memory_total_mib is not None and all(
                    self.memory_total_mib > (row.memory_gib or 0) * 1024 for row in board_rows)
                return board_rows[0].power_w, (f"the {names} board power on NVIDIA's spec page (the "
                                               f"row{'s' if len(board_rows) > 1 else ''} the cut name {shown!r} "
                                               + (f"may be: its {self.memory_total_mib:g} MiB is more than NVIDIA "
                                                  "fits, a board re-fitted with more memory)" if refit
                                                  else f"fits{fits})"))
            if not agreed(rows, lambda row: row.power_w):
                return None, ""
            if len(rows) > 1:
                return rows[0].power_w, (f"the default in the GPU table of every row the cut name {shown!r} may be"
                                         f"{fits} ({' and '.join(r.name for r in rows)})")
            return rows[0].power_w, f"the {rows[0].name} default in the GPU table (the row the cut name {shown!r} fits{fits})"
        if spec is None or not spec.power_w:
            board = board_power(self.name or "")
            return (board[0], f"the {self.name.strip()} board power on NVIDIA's spec page") if board else (None, "")
        return spec.power_w, f"the {spec.name} default in the GPU table"

    @property
    def power_default_most(self) -> tuple[float | None, str]:
        """The highest default of the GPU-table rows a name the nvidia-smi table cut may be with its memory size, where
        their defaults differ (power_default gives none there), and those rows in words; (None, "") otherwise.

        A cap at or above it is at or above the default whichever row the card is (the 24 GB `NVIDIA GeForce ...` at
        450 W: the RTX 3090's 350 W, the RTX 4090's 450 W; corpus 2368). The cap itself chooses no row here. Where no
        full row fits, the power-only rows its memory fits (gputable.cut_board_rows: `NVIDIA RTX PRO 4500 Blac...` of
        32 GB, the workstation card's 200 W or the Server Edition's 165 W; corpus 2811)."""
        if not self.cut_name or self.power_default_w is not None:
            return None, ""
        cut = resolve_cut_name(self.cut_name, self.memory_total_mib, None)
        rows: Sequence[GpuSpec | BoardPower] = cut.rows if cut is not None and self.memory_total_mib is not None else ()
        if not rows:
            rows = cut_board_rows(self.cut_name, self.memory_total_mib)
        if len({row.power_w for row in rows}) < 2:
            return None, ""
        said = " or ".join(f"{row.name} ({row.power_w:g} W)" for row in rows)
        return max(row.power_w for row in rows), (f"the highest default of the rows the cut name "
                                                  f"{self.cut_name.strip()!r} may be with {self.memory_total_mib:g} "
                                                  f"MiB: {said}")

    @property
    def implied_architecture(self) -> str:
        """The architecture as the source names it, else as the name or PCI device id implies
        (gputable.architecture_of); "" when nothing says."""
        return self.architecture or architecture_of(self.name, self.pci_device_id)

    @property
    def active_nvlinks(self) -> int | None:
        return None if self.nvlinks is None else sum(1 for link in self.nvlinks if link.active)

    @property
    def unwired_nvlinks(self) -> tuple[int, ...]:
        """The links listed inactive on a GPU whose active links are all its model wires (`nvlink_links` in
        data/gpus.toml) out of more the chip lists: unconnected by design, not down. An H100 NVL wires 12 of
        the GH100's 18 through its three bridges (NVIDIA: 600 GB/s NVLink, 50 GB/s a link), and
        `nvidia-smi nvlink -s` lists the other 6 `<inactive>`. () otherwise."""
        spec = self.spec
        if self.nvlinks is None or spec is None or not spec.has_nvlink:
            return ()
        if self.active_nvlinks != spec.nvlink_links or len(self.nvlinks) <= spec.nvlink_links:
            return ()
        return tuple(link.link for link in self.nvlinks if not link.active)

    @property
    def busy(self) -> bool:
        return (self.utilization_gpu or 0) >= 20 or (self.pstate in ("P0", "P1") and (self.utilization_gpu or 0) > 0)


@functools.lru_cache(maxsize=256)  # the shipped table is read once; checks ask per GPU, ~100 times an audit
def gpu_spec(name: str) -> GpuSpec | None:
    """Expectations for a product name (GPU table), None for a name the table does not know."""
    if not name:
        return None
    try:
        match = lookup(name)
    except (UnknownGpuError, GpuTableError, OSError):
        return None
    return match.spec


@dataclass(frozen=True)
class NvidiaGpus(Sourced):
    gpus: tuple[GpuInfo, ...]
    driver_version: str | None = None
    cuda_version: str | None = None  # the highest CUDA the driver supports (not the toolkit in use)
    attached: int | None = None  # the count the source claims (an excerpt may show fewer)
    notes: tuple[str, ...] = ()
    # Where the listing stops inside a GPU's rows (a table cut part-way): "" when it does not.
    cut: str = ""
    # The index of the GPU whose rows the table ends inside (its cells after the cut are not shown); None: no such GPU.
    cut_inside: int | None = None
    # `cut` is the default table ending at the border that closes a GPU's rows, before its Processes box: every GPU
    # it lists is whole, and what follows the last one is not shown. Such a paste is read as the host's listing
    # where no other source shows more GPUs (the corpus' blind readers, issue 28: corpus 376, 648, 939, 1228, 1229),
    # a lower bound beside a source that does (`GpuInventory.read_whole`).
    cut_at_border: bool = False
    # The PCI bus shows no NVIDIA GPU, so neither NVML nor nvidia-smi was asked.
    none_on_bus: bool = False
    # The log's top holds the `vGPU Driver Capability` section, which only NVIDIA's vGPU host (manager) driver prints.
    vgpu_host_driver: bool = False
    # The `NVIDIA-SMI` version of the default table's header: the user-space library's, which equals the kernel
    # driver's everywhere NVML runs but WSL 2 (facts/platform.py `wsl_driver`).
    smi_version: str | None = None

    @property
    def unshown(self) -> str:
        """"" when the source lists every GPU of the host; else why GPUs may be missing from it.

        An excerpt never proves that there are no other GPUs: a table cut inside a GPU's rows, fewer
        sections than `Attached GPUs`, or a GPU without its address (`nvidia-smi -q | grep`, a rig report cut in
        its bullets).
        """
        if self.cut:
            return self.cut + ": GPUs after it are not in this source"
        if self.attached and self.attached > len(self.gpus):
            return f"only {len(self.gpus)} of the {self.attached} attached GPUs are in this source"
        if self.attached is None and not self.complete and any(not g.bdf for g in self.gpus if not g.error):
            return "the excerpt shows a GPU without its PCI address: the other GPUs are not in this source"
        return ""

    def by_bdf(self, bdf: str) -> GpuInfo | None:
        for gpu in self.gpus:
            if gpu.bdf == bdf:
                return gpu
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted({g.name for g in self.gpus if g.name}))

    @property
    def names_in_words(self) -> tuple[str, ...]:
        """The names as a report says them, each once: a cut name's inferred product marked so (name_in_words)."""
        return tuple(sorted({g.name_in_words for g in self.gpus if g.name}))


# --- NVML answers -> facts -------------------------------------------------------------------


def _num(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _flag(value: Any) -> bool | None:
    n = _num(value)
    return None if n is None else bool(n)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _pair(value: Any) -> tuple[Any, Any]:
    return (value[0], value[1]) if isinstance(value, list) and len(value) >= 2 else (None, None)


def _watts(mw: Any) -> float | None:
    n = _num(mw)
    return None if n is None else round(n / 1000.0, 2)


def _mib(nbytes: Any) -> float | None:
    n = _num(nbytes)
    return None if n is None else round(n / 2**20, 1)


def reasons_from_mask(mask: int) -> tuple[str, ...]:
    return tuple(name for bit, name in CLOCK_EVENT_BITS.items() if mask & bit)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def gpu_from_nvml(data: dict[str, Any]) -> GpuInfo:
    """A `gpu/<n>` NVML answer (stackaudit.host.nvml) as a GpuInfo."""
    get = data.get
    mig_cur, mig_pend = _pair(get("mig_mode"))
    ecc_cur, ecc_pend = _pair(get("ecc_mode"))
    ecc = _dict(get("ecc_errors"))
    retired = _dict(get("retired_pages"))
    remap = get("remapped_rows")
    remap_vals = remap if isinstance(remap, list) and len(remap) == 4 else [None] * 4
    power = _dict(get("power"))
    pmin, pmax = _pair(power.get("constraints_mw"))
    clocks = _dict(get("clocks"))
    mem_raw = get("memory")
    memory: dict[str, Any] = mem_raw if isinstance(mem_raw, dict) and "error" not in mem_raw else {}
    pcie = _dict(get("pcie"))
    temp = _dict(get("temperature"))
    util = _dict(get("utilization"))
    reasons = _num(get("clock_event_reasons"))
    arch = _num(get("architecture"))
    cap = get("cuda_capability")
    compute = _num(get("compute_mode"))
    fabric = _dict(get("fabric"))
    fabric_state = _num(fabric.get("state"))
    fabric_status = _num(fabric.get("status"))
    gsp = get("gsp_firmware_version")
    gsp_mode = _pair(get("gsp_firmware_mode"))[0]
    if isinstance(gsp, str):
        gsp_value: str | None = gsp if gsp and gsp != "N/A" else ""
    elif isinstance(gsp, dict) and gsp.get("error") == "not-supported":
        gsp_value = ""
    else:
        gsp_value = None
    if gsp_mode == 0 and gsp_value is None:
        gsp_value = ""
    recovery = _num(get("recovery_action"))
    pstate = _num(get("pstate"))
    return GpuInfo(
        index=int(get("index", 0)),
        name=_str(get("name")),
        uuid=_str(get("uuid")),
        bdf=normalize_bdf(_str(get("pci_bus_id"))),
        architecture=ARCHITECTURES.get(arch, "") if arch is not None else "",
        compute_capability=f"{cap[0]}.{cap[1]}" if isinstance(cap, list) and len(cap) == 2 else "",
        persistence=_flag(get("persistence_mode")),
        compute_mode=COMPUTE_MODES.get(compute) if compute is not None else None,
        display_active=_flag(get("display_active")),
        mig_current=_flag(mig_cur),
        mig_pending=_flag(mig_pend),
        mig_devices=_num(get("mig_device_count")),
        ecc_current=_flag(ecc_cur),
        ecc_pending=_flag(ecc_pend),
        ecc_volatile_uncorrected=_num(ecc.get("volatile_uncorrected")),
        ecc_volatile_corrected=_num(ecc.get("volatile_corrected")),
        ecc_aggregate_uncorrected=_num(ecc.get("aggregate_uncorrected")),
        ecc_aggregate_corrected=_num(ecc.get("aggregate_corrected")),
        retired_sbe=_num(retired.get("single_bit")),
        retired_dbe=_num(retired.get("double_bit")),
        retired_pending=_flag(retired.get("pending")),
        remap_corrected=_num(remap_vals[0]),
        remap_uncorrected=_num(remap_vals[1]),
        remap_pending=_flag(remap_vals[2]),
        remap_failure=_flag(remap_vals[3]),
        power_limit_w=_watts(power.get("limit_mw")),
        power_default_w=_watts(power.get("default_mw")),
        power_min_w=_watts(pmin),
        power_max_w=_watts(pmax),
        power_enforced_w=_watts(power.get("enforced_mw")),
        power_draw_w=_watts(power.get("usage_mw")),
        clock_events=reasons_from_mask(reasons) if reasons is not None else None,
        sm_clock_mhz=_num(clocks.get("sm")),
        mem_clock_mhz=_num(clocks.get("mem")),
        max_sm_clock_mhz=_num(clocks.get("max_sm")),
        max_mem_clock_mhz=_num(clocks.get("max_mem")),
        app_graphics_mhz=_num(clocks.get("app_graphics")),
        app_mem_mhz=_num(clocks.get("app_mem")),
        default_app_graphics_mhz=_num(clocks.get("default_app_graphics")),
        default_app_mem_mhz=_num(clocks.get("default_app_mem")),
        memory_total_mib=_mib(memory.get("total")),
        memory_used_mib=_mib(memory.get("used")),
        bar1_total_mib=_mib(get("bar1_total")),
        pcie_gen=_num(pcie.get("gen")),
        pcie_gen_max=_num(pcie.get("max_gen")),
        pcie_gen_device_max=_num(pcie.get("gpu_max_gen")),
        pcie_width=_num(pcie.get("width")),
        pcie_width_max=_num(pcie.get("max_width")),
        pcie_replays=_num(pcie.get("replay_counter")),
        nvlinks=_nvlinks_from_nvml(get("nvlink")),
        processes=_processes_from_nvml(get("processes")),
        utilization_gpu=_num(util.get("gpu")),
        utilization_mem=_num(util.get("memory")),
        gsp_firmware=gsp_value,
        memory_bus_width=_num(get("memory_bus_width")),
        pstate=f"P{pstate}" if pstate is not None and pstate < 32 else None,
        fabric_state=FABRIC_STATES.get(fabric_state) if fabric_state is not None else None,
        fabric_status=(None if fabric_status is None else "Success" if fabric_status == 0 else f"error {fabric_status}"),
        temp_c=_num(temp.get("gpu")),
        temp_slowdown_c=_num(temp.get("slowdown")),
        temp_max_operating_c=_num(temp.get("gpu_max")),
        mem_temp_c=_num(temp.get("memory")),
        mem_temp_max_c=_num(temp.get("mem_max")),
        recovery_action=RECOVERY_ACTIONS.get(recovery, str(recovery)) if recovery is not None else None,
        unsupported=tuple(name for name, key in (("ecc", "ecc_mode"), ("mig", "mig_mode"), ("remap", "remapped_rows"))
                          if get(key) == {"error": "not-supported"})
        + (("retire",) if retired.get("pending") == {"error": "not-supported"} else ()),
    )


def _nvlinks_from_nvml(value: Any) -> tuple[NvLink, ...] | None:
    if isinstance(value, dict):
        # NotSupported / InvalidArgument on link 0: this GPU has no NVLink.
        return () if value.get("error") in ("not-supported", "invalid-argument") else None
    if not isinstance(value, list):
        return None
    links: list[NvLink] = []
    for entry in value:
        errors = entry.get("errors") or {}
        links.append(NvLink(
            link=int(entry.get("link", len(links))),
            active=_flag(entry.get("active")),
            remote_bdf=normalize_bdf(_str(entry.get("remote_bus_id"))),
            replay=_num(errors.get("replay")),
            recovery=_num(errors.get("recovery")),
            crc_flit=_num(errors.get("crc_flit")),
            crc_data=_num(errors.get("crc_data")),
        ))
    return tuple(links)


def _processes_from_nvml(value: Any) -> tuple[GpuProcess, ...] | None:
    if not isinstance(value, dict):
        return None
    procs: dict[int, GpuProcess] = {}
    known = False
    for kind, key in (("C", "compute"), ("G", "graphics")):
        entries = value.get(key)
        if not isinstance(entries, list):
            continue
        known = True
        for entry in entries:
            pid = int(entry.get("pid", 0))
            used = _mib(entry.get("used_memory"))
            previous = procs.get(pid)
            if previous is not None:
                procs[pid] = GpuProcess(pid, previous.name, previous.used_mib or used, "C+G")
            else:
                procs[pid] = GpuProcess(pid, _str(entry.get("name")), used, kind)
    return tuple(procs.values()) if known else None


def _cuda_version(value: Any) -> str | None:
    n = _num(value)
    return f"{n // 1000}.{(n % 1000) // 10}" if n else None


def from_nvml(host: Host) -> NvidiaGpus:
    """Every GPU through the NVML choke point; raises NvmlError / NotCaptured when it cannot run."""
    system = host.nvml("system")
    count = _num(system.get("device_count"))
    if count is None:
        raise NvmlError("unknown", f"NVML gives no device count: {system.get('device_count')}")
    gpus = []
    for index in range(count):
        try:
            gpus.append(gpu_from_nvml(host.nvml(f"gpu/{index}")))
        except NvmlError as exc:
            gpus.append(GpuInfo(index=index, error=exc.kind))
    driver = system.get("driver_version")
    return NvidiaGpus(tuple(gpus), driver if isinstance(driver, str) else None,
                      _cuda_version(system.get("cuda_driver_version")), count)


# --- driver flavour --------------------------------------------------------------------------


@dataclass(frozen=True)
class NvidiaDriver:
    version: str | None
    flavour: str | None  # "open" | "proprietary" | None (not known)
    flavour_evidence: str = ""
    proc_version_line: str = ""
    enable_gpu_firmware: str | None = None  # /proc/driver/nvidia/params EnableGpuFirmware
    loaded: bool | None = None
    # The `NVIDIA-SMI` version on the header line that states the driver: the user-space library's (facts/platform.py
    # wsl_driver: another version than the driver's only under WSL 2).
    smi_version: str | None = None
    # The branch a package install named where no version is stated (`apt install nvidia-dkms-515`: installed_flavour).
    package_branch: str | None = None
    # The package row that states the version where every statement of it is an installed package's (a `dpkg -l`
    # row, an RPM name: _INSTALLED_PACKAGE), "" otherwise: the driver installed, not shown loaded.
    installed_package: str = ""


_LICENSE_FLAVOUR = {"Dual MIT/GPL": "open", "NVIDIA": "proprietary"}

# GPUs that only the open kernel modules drive. The driver README says "Blackwell and later are only supported by the
# open kernel modules" (kernel_open.html). NVIDIA's R560 announcement says Grace Hopper and Blackwell must use them.
# The proprietary module refuses to initialise such a GPU ("NVRM: ... requires use of the NVIDIA open kernel modules"),
# so neither nvidia-smi nor CUDA finds one under it. A source that shows one running (nvidia-smi listing it, CUDA
# initialised on it) therefore shows the open flavour loaded. Turing to Hopper GPUs run under either flavour, so
# their running says nothing of it.
OPEN_ONLY_FROM = "Blackwell"
OPEN_ONLY_NAMES = re.compile(r"\bGH200\b")
OPEN_ONLY_SOURCES = (KERNEL_OPEN_README,
                     "https://developer.nvidia.com/blog/nvidia-transitions-fully-towards-open-source-gpu-kernel-modules/")


def open_module_only(name: str, architecture: str = "") -> bool:
    """Whether only the open kernel modules drive a GPU (OPEN_ONLY_FROM): its architecture, as the source names it or
    else as its name implies (gputable.architecture_of), is Blackwell or later, or its name is a Grace Hopper's."""
    said = (architecture or architecture_of(name)).lower()
    arch = next((a for a in ARCHITECTURE_ORDER if a.lower() == said), "")
    later = bool(arch) and ARCHITECTURE_ORDER.index(arch) >= ARCHITECTURE_ORDER.index(OPEN_ONLY_FROM)
    return later or bool(OPEN_ONLY_NAMES.search(name))


# The banner of the loaded module, the first line of /proc/driver/nvidia/version, with its version number
# (NVIDIA's README quotes it with `[...]` for the number: no banner of a host):
# `NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  (dvs-builder@...)  Sat May 24 ...`
# `NVRM version: NVIDIA UNIX x86_64 Kernel Module  510.73.08  Wed May 18 20:34:14 UTC 2022`
PROC_VERSION_BANNER = re.compile(r"NVRM version:\s+NVIDIA UNIX\b.*?Kernel Module(?:\s+for\s+\S+)?\s+\d+\.\d+")


def parse_proc_version(text: str) -> tuple[str | None, str | None]:
    """(version, flavour) from /proc/driver/nvidia/version ("Open Kernel Module" = open flavour)."""
    line = next((ln for ln in text.splitlines() if ln.startswith("NVRM version")), "")
    if not line:
        raise ParseError("not /proc/driver/nvidia/version")
    m = re.search(r"Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)?)", line) or re.search(
        r"\s(\d{3,}\.\d+(?:\.\d+)?)\s", line + " ")
    flavour = "open" if "Open Kernel Module" in line else "proprietary" if "Kernel Module" in line else None
    return (m.group(1) if m else None), flavour


def first_with_flavour(kind: type[Any], values: Sequence[NvidiaDriver]) -> NvidiaDriver:
    """The best-ranked answer, its flavour filled, where it names none, from the next answer that names one for the
    same branch (or for no version at all): nvidia-smi names the version and never the flavour, a package the user
    installed for that branch names the flavour (installed_flavour, corpus 1835)."""
    best = values[0]
    if best.flavour is not None:
        return best
    branch = release(best.version, 1)
    for other in values[1:]:
        theirs = release(other.version or other.package_branch, 1)
        if other.flavour is not None and (not branch or not theirs or theirs == branch):
            return replace(best, flavour=other.flavour, flavour_evidence=other.flavour_evidence)
    return best


fact("nvidia_driver", NvidiaDriver, first_with_flavour,
     hint="paste `nvidia-smi` (or `cat /proc/driver/nvidia/version`)")


@provider("nvidia_driver", NvidiaDriver, rank=10, title="/proc/driver/nvidia, `modinfo nvidia`")
def nvidia_driver(ctx: FactContext) -> NvidiaDriver:
    """The NVIDIA kernel driver: version, open or proprietary flavour, GSP firmware parameter."""
    host = ctx.host
    proc = read_optional(host, NVIDIA_PROC_VERSION.path)
    try:
        sys_version = (read_optional(host, NVIDIA_MODULE_VERSION.path) or "").strip() or None
    except NotCaptured:
        if proc is None:
            raise
        sys_version = None  # a pasted banner without /sys: the banner's version stands
    version, flavour, evidence, line = sys_version, None, "", ""
    if proc:
        try:
            proc_ver, flavour = parse_proc_version(proc)
            version = version or proc_ver
            line = next(ln for ln in proc.splitlines() if ln.startswith("NVRM version")).strip()
            evidence = f"/proc/driver/nvidia/version: {line}"
        except ParseError:
            pass
    if flavour is None:
        try:
            result = host.run(list(MODINFO_NVIDIA_LICENSE.argv))
        except NotCaptured:
            result = None
        if result is not None and result.ok:
            lic = result.stdout.strip()
            flavour = _LICENSE_FLAVOUR.get(lic)
            evidence = f"modinfo nvidia: license {lic!r}"
    params = None
    try:
        params = read_optional(host, NVIDIA_PROC_PARAMS.path)
    except NotCaptured:
        params = None
    gsp = None
    if params:
        m = re.search(r"^EnableGpuFirmware:\s*(\S+)", params, re.MULTILINE)
        gsp = m.group(1) if m else None
    if proc is None and sys_version is None and flavour is None:
        raise FactUnavailable("the NVIDIA kernel module is not loaded (/proc/driver/nvidia/version missing)",
                              "run on the host with the driver loaded")
    return NvidiaDriver(version, flavour, evidence, line, gsp, proc is not None or sys_version is not None)


def fabric_verdict(gpu: GpuInfo, fields: tuple[tuple[str, str, str], ...] = FABRIC_FIELDS,
                   ) -> tuple[Verdict, tuple[str, ...]]:
    """Whether the fabric registered this GPU, by the worse of its Fabric fields, with the lines to quote; with
    `(FABRIC_HEALTH,)`, whether the fabric's health summary calls it healthy."""
    return worse_of([reading(label, getattr(gpu, attr), frozenset({good}), _FABRIC_CANNOT_SAY)
                     for label, attr, good in fields])


# --- daemons: nvidia-persistenced, nv-fabricmanager, MPS, display servers ---------------------


@dataclass(frozen=True)
class Daemon:
    name: str
    active: str | None = None  # `systemctl is-active` answer; None: no systemd answer
    pids: tuple[int, ...] = ()
    argv: tuple[str, ...] = ()
    exec_start: str | None = None  # effective ExecStart of the unit (after drop-ins)
    version: str | None = None
    # From its pasted journal (facts/nvidia_daemons.py): the line where Fabric Manager says its version does
    # not match the driver's; whether it found NVSwitches (False: NV_WARN_NOTHING_TO_DO, none on this host).
    mismatch: str | None = None
    nvswitch: bool | None = None
    log: tuple[str, ...] = ()  # the pasted lines that settled `active`, `mismatch` and `nvswitch`
    # False: systemd answered that it has no such unit (`Unit X.service could not be found.`): not installed.
    # `systemctl is-active` answers `inactive` for a unit that does not exist as well, so that word leaves it None.
    installed: bool | None = None

    @property
    def running(self) -> bool | None:
        if self.pids:
            return True
        if self.installed is False:
            return False
        if self.active is not None:
            return self.active in ("active", "reloading", "activating")
        return None

    @property
    def state(self) -> str | None:
        """The unit's state in words: `not installed` where systemd has no unit for it, else its is-active word."""
        return "not installed" if self.installed is False and not self.pids else self.active


@dataclass(frozen=True)
class NvidiaServices:
    persistenced: Daemon
    fabricmanager: Daemon
    mps: Daemon
    display_servers: tuple[tuple[int, str], ...] = ()
    processes_visible: bool = False  # /proc of the host was listed (not an isolated container's)
    hostengine: Daemon | None = None  # DCGM's nv-hostengine, from pasted status / journal lines only
    dockerd: Daemon | None = None  # Docker's daemon (docker.service), from pasted `systemctl` lines only
    # nvidia-docker 1's plugin daemon (nvidia-docker.service), from pasted `systemctl` / journal lines only
    nvidia_docker: Daemon | None = None


_DISPLAY = ("Xorg", "X", "Xwayland", "gnome-shell", "kwin_wayland", "sway", "weston")


def effective_exec_start(unit_text: str) -> str | None:
    """The ExecStart systemd runs: `systemctl cat` lists the unit then drop-ins; empty resets."""
    value: str | None = None
    for line in unit_text.splitlines():
        m = re.match(r"\s*ExecStart\s*=\s*(.*)$", line)
        if m:
            value = m.group(1).strip() or None
    return value


def _is_active(host: Host, unit: str) -> str | None:
    try:
        result = host.run(["systemctl", "is-active", unit])
    except NotCaptured:
        return None
    word = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
    if result.not_found or word not in ("active", "inactive", "failed", "activating", "deactivating", "reloading"):
        return None  # no systemd here (containers: "System has not been booted with systemd")
    return word


def _scan_processes(host: Host) -> tuple[dict[str, list[tuple[int, tuple[str, ...]]]], bool]:
    from stackaudit.facts.processes import parse_cmdline_bytes

    found: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    names = list_or_none(host, "/proc")
    if names is None:
        return found, False
    for name in names:
        if not (name.isascii() and name.isdecimal()):
            continue
        try:
            raw = host.read_bytes(f"/proc/{name}/cmdline")
        except (OSError, NotCaptured):
            continue
        argv = parse_cmdline_bytes(raw)
        if argv:
            found.setdefault(argv[0].rsplit("/", 1)[-1], []).append((int(name), argv))
    return found, True


fact("nvidia_services", NvidiaServices, first_of, hint="paste `systemctl status nvidia-fabricmanager nvidia-persistenced`")


@provider("nvidia_services", NvidiaServices)
def nvidia_services(ctx: FactContext) -> NvidiaServices:
    """nvidia-persistenced, nv-fabricmanager and MPS daemons; display servers (systemctl, /proc)."""
    host = ctx.host
    procs, visible = _scan_processes(host)

    def daemon(name: str, unit: str, binaries: tuple[str, ...]) -> Daemon:
        active = _is_active(host, unit)
        running = [p for b in binaries for p in procs.get(b, [])]
        exec_start = None
        if active is not None:
            try:
                cat = host.run(["systemctl", "cat", unit])
                exec_start = effective_exec_start(cat.stdout) if cat.ok else None
            except NotCaptured:
                exec_start = None
        return Daemon(name, active, tuple(p for p, _ in running), running[0][1] if running else (), exec_start)

    persist = daemon("nvidia-persistenced", "nvidia-persistenced", ("nvidia-persistenced",))
    # The service/package is nvidia-fabricmanager, the binary nv-fabricmanager (KB correction).
    fm = daemon("nv-fabricmanager", "nvidia-fabricmanager", ("nv-fabricmanager",))
    try:
        fm_path = host.which("nv-fabricmanager")
    except NotCaptured:
        fm_path = None
    if fm_path:
        try:
            out = host.run([fm_path, "--version"])
            m = re.search(r"(\d+\.\d+(?:\.\d+)?)", out.stdout)
            if m:
                fm = Daemon(fm.name, fm.active, fm.pids, fm.argv, fm.exec_start, m.group(1))
        except NotCaptured:
            pass
    mps_running = procs.get("nvidia-cuda-mps-control", []) + procs.get("nvidia-cuda-mps-server", [])
    mps = Daemon("nvidia-cuda-mps-control", None, tuple(p for p, _ in mps_running),
                 mps_running[0][1] if mps_running else ())
    display = tuple((pid, name) for name in _DISPLAY for pid, _ in procs.get(name, []))
    if not visible and persist.active is None and fm.active is None:
        raise FactUnavailable("neither systemd nor /proc is visible here", "run on the host")
    return NvidiaServices(persist, fm, mps, display, visible)


@provider("nvidia_driver", NvidiaDriver, rank=20, title="NVML / nvidia-smi")
def nvidia_driver_from_nvidia(ctx: FactContext) -> NvidiaDriver:
    """The driver version NVML or nvidia-smi reports (no flavour: they do not say open or proprietary)."""
    nvidia = ctx.fact("nvidia", NvidiaGpus)
    version = nvidia.driver_version
    if not version:
        # The table's header lines of two drivers name none (facts/nvidia_smi.py parse_table): its note says so.
        raise FactUnavailable(next((n for n in nvidia.notes if n.startswith("several driver versions")),
                                   "the NVIDIA source names no driver version"))
    return NvidiaDriver(version, None, loaded=True)


# `nvidia-smi --version` (driver 525+): one `NAME version : VALUE` line each for nvidia-smi, NVML, the driver, CUDA.
NVSMI_VERSION_LINE = re.compile(r"^\s*(NVIDIA-SMI|NVML|DRIVER|CUDA) version\s*:\s*(\d+\.\d+(?:\.\d+)?)\s*$",
                                re.IGNORECASE | re.MULTILINE)


@parser(NVSMI_VERSION, feeds="nvidia_driver", kind=NvidiaDriver, rank=25)
def parse_nvsmi_version(text: str) -> NvidiaDriver:
    """The loaded driver's version that `nvidia-smi --version` reports, as the table header's `Driver Version`.

    Input (tests/data/captures/180)::

        NVIDIA-SMI version  : 595.58.03
        NVML version        : 595.58
        DRIVER version      : 595.58.03
        CUDA Version        : 13.2
    """
    driver = next((m for m in NVSMI_VERSION_LINE.finditer(text) if m.group(1).upper() == "DRIVER"), None)
    if driver is None:
        raise ParseError("no `DRIVER version :` line")
    return NvidiaDriver(driver.group(2), None, loaded=True)


# The banner the module prints when it loads; "Open Kernel Module" is the open flavour:
# `NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release Build ...`
# `NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024`
DRIVER_LOADED = "NVRM: loading NVIDIA UNIX"  # what every form of the banner starts with
_DRIVER_BANNER = re.compile(re.escape(DRIVER_LOADED) + r" (Open Kernel Module for )?[\w-]+(?: Kernel Module)?\s+"
                            r"(\d+\.\d+(?:\.\d+)?)")


@provider("nvidia_driver", NvidiaDriver, rank=30, title="the kernel log's NVRM banner")
def nvidia_driver_from_log(ctx: FactContext) -> NvidiaDriver:
    """The driver version and flavour from the module's load banner in the kernel log (`NVRM: loading NVIDIA UNIX`)."""
    from stackaudit.facts.system import KernelLog

    for line in reversed(ctx.fact("kernel_log", KernelLog).lines):  # the last load is the running one
        m = _DRIVER_BANNER.search(line)
        if m:
            flavour = "open" if m.group(1) else "proprietary"
            return NvidiaDriver(m.group(2), flavour, f"kernel log: {line.strip()}", loaded=True)
    raise FactUnavailable("the kernel log has no NVRM load banner")


@parser(EVIDENCE_LINES, feeds="nvidia_driver", kind=NvidiaDriver, rank=47)
def driver_from_ngc_check(text: str) -> NvidiaDriver:
    """The driver version an NGC image's entrypoint found on the host (facts/docker.ngc_driver_found): its check reads
    the loaded module, so the driver is loaded. Two lines that name two versions name none.

    Input (tests/data/captures/1864)::

        WARNING: CUDA Minor Version Compatibility mode ENABLED.
          Using driver version 495.29.05 which has support for CUDA 11.5.  This container
    """
    from stackaudit.facts.docker import ngc_driver_found

    found = {v for line in text.splitlines() if (v := ngc_driver_found(line))}
    return NvidiaDriver(only_one(found, "no NGC driver check naming one driver version" if not found else
                                 f"NGC driver checks name {len(found)} driver versions"), None, loaded=True)


@provider("nvidia_driver", NvidiaDriver, rank=40, title="collect_env's `Nvidia driver version`")
def nvidia_driver_from_collect_env(ctx: FactContext) -> NvidiaDriver:
    """The driver version a pasted vLLM collect_env / SGLang check_env reports (`Nvidia driver version: 470.129.06`).

    The report asks nvidia-smi, which answers only from a loaded driver: the version is the loaded one. A report cut
    inside the version after its branch (`Nvidia driver version        : 535`, corpus 603) names the branch, NVIDIA's
    three digits, and no more: the branch is what its CUDA and the compatibility floors are read from.
    A user who writes the report's fields out by hand may name the package the driver came from beside the version
    (`Nvidia driver version   : 595.84 (nvidia-driver-595-open, Ubuntu package 595.84-0ubuntu0.24.04.1)`, corpus 2854):
    a package of the version's branch names its flavour (BRANCH_PACKAGE: Ubuntu's two flavours of a branch conflict),
    and so do the open flavour's words beside it (STATED_OPEN: `595.71.05 (open kernel module)`).
    """
    from stackaudit.facts.collect_env import CollectEnv

    value = ctx.fact("collect_env", CollectEnv).driver_version
    m = re.match(r"\d{3}\.\d+(?:\.\d+)?(?=$|[\s(,;])|\d+\.\d+|[1-9]\d\d\.?$", value)
    if m is None:
        raise FactUnavailable("the report names no driver version")
    version, rest = m.group(0), value[m.end():]
    if not rest.strip():
        return NvidiaDriver(value, None, loaded=True)
    flavours = {"open" if p.group(2) else "proprietary" for p in BRANCH_PACKAGE.finditer(rest)
                if version.startswith(p.group(1) + ".")}
    if STATED_OPEN.search(f"{version} {rest.strip()}"):
        flavours.add("open")
    flavour = next(iter(flavours)) if len(flavours) == 1 else None
    return NvidiaDriver(version, flavour, f"collect_env: Nvidia driver version: {value}" if flavour else "",
                        loaded=True)


# nvidia-smi's header versions written on their own (a copied header line, a hardware list): `Driver Version: 591.86`,
# `Driver: 580.95.05` (a three-digit branch: NVIDIA's numbering), a list's bullet without the colon
# (`- Nvidia driver version 580.65.06, CUDA version 13.0`, corpus 760; `- NVIDIA driver 595.91.07`, corpus 805), an
# item of a comma list (`..., driver 580.159.03, CUDA runtime 13.0`, corpus 237), the open flavour's package named with
# its version (`nvidia-open 595.71.05`, corpus 803; Arch's `nvidia-open 595.71.05-5`, corpus 252), the vendor's name
# before the version (`GPU driver: NVIDIA 595.84`, corpus 1058), the flavour's word before `driver` at a line's start
# (`open driver 550.90.07`, corpus 1098) or `GPU` there (`GPU driver 590.48.01`, corpus 1900), an RPM package's name-version-release (`nvidia-driver-latest-dkms-545.23.08-1.el7
# .x86_64`, corpus 1105: NVIDIA's RHEL packages carry the driver's version; their kernel module's `kmod-nvidia-open-dkms-
# 610.57.04-1.fc44.noarch`, corpus 2760, `kmod-nvidia-latest-dkms-...` for the proprietary one), a `dpkg -l` row of an installed Ubuntu
# driver package (`ii  nvidia-driver-570  570.124.06-0ubuntu1  amd64  NVIDIA driver metapackage`, corpus 1066), an `apt
# list --installed` row of one (`nvidia-compute-utils-470/unknown,now 470.57.02-0ubuntu1 amd64 [installed,automatic]`,
# corpus 2176: the version installed, whatever branch the package's name keeps), a row of
# `nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader` (`0, NVIDIA GeForce RTX 3090, 595.58.03`,
# corpus 1118: the index, the GPU's name as nvidia-smi prints it, the driver's version last: QUERY_ROW), a version in
# Markdown's code marks (`Driver version: `535.129.03``, corpus 1262), a sentence of a list's bullet in bold (`- GPU driver
# version is **535.154.05**`, corpus 2418), a list's `- nvidia-driver 396.51` (1700), the
# vendor's name alone before the version, a line of its own (`nVidia v550.142`, corpus 2215: no GPU's name has a
# three-digit number, a dot and more digits),
# `nvidia-container-cli info`'s `NVRM version:   384.130` (corpus 1311, 1813: the library asked the loaded driver), a
# list's driver named in the words of the module's banner (`Driver     NVIDIA Open Kernel Module 610.43.02, CUDA 13.3`,
# corpus 2242: STATED_OPEN reads its flavour), the
# key in the plural (`Nvidia Drivers: 581.29 - CUDA Version: 13.0`, corpus 1857; `NVIDIA Drivers: 555.42.06`,
# `* NVIDIA drivers: 535.54.03`, `- NVIDIA Drivers: 530.30.02` in projects' environment lists); a floor (`545+`) or a
# branch (`535.xx`) names no driver, nor does the tag of the GPU operator's driver image (`nvcr.io/nvidia/driver:460.32.03-
# centos7`, corpus 1922: the driver that container would install, which may never load). The user's sentence naming
# the drivers and then the version it is on (`I have Nvidia drivers setup and working and Im on version 535.104.05`,
# corpus 2815), or opening with a driver's whole version as what it uses (_SAID_USING, _DRIVER_SHAPE: corpus 2822).
_QUERY_ROW_HEAD = r"^\s*\d{1,2}, (?:NVIDIA |Tesla |Quadro )[\w .-]{2,40}, "
QUERY_ROW = re.compile(_QUERY_ROW_HEAD + r"\d{3}\.\d+\.\d+\s*$")
# A row of `nvidia-smi --query-gpu=name,memory.total,index --format=csv,noheader` (`NVIDIA GeForce RTX 3090, 24576 MiB,
# 1`, corpus 2680): the name first, the index last, as the query orders its fields.
QUERY_ROW_NAME_FIRST = re.compile(r"^\s*(?P<name>(?:NVIDIA |Tesla |Quadro )[\w .-]{2,40}), \d{1,6} MiB, (?P<index>\d{1,2})\s*$")
# A Linux driver's whole version (`550.90.07`, `535.104.05`): a three-digit branch, a two- or three-digit build and a
# two-digit patch, a shape no other program of these stacks has (ollama's `0.6.1`, a kernel's `6.8.0`).
_DRIVER_SHAPE = r"[3-9]\d\d\.\d{2,3}\.\d{2}(?!\d|\.\d)"
# The user's sentence opening with the version in that shape as what they run (`Using 550.90.07 on a Proxmox CT, I get
# error code 999`, corpus 2822).
_SAID_USING = r"^\W*(?i:(?:i'?m |i am )?(?:using|running)) v?"
# What a line of either sentence holds, for the importers' needle gate (importers/evidence.py).
SAID_DRIVER_NEEDLES = ("on version ", "using version ", "running version ",
                       *(f"{verb} {lead}" for verb in ("using", "running") for lead in "v3456789"))
STATED_DRIVER = re.compile(r"(?:(?<!/)\b(?i:drivers?(?: version)?):\s*`?(?i:nvidia\s+)?|^\W*(?i:(?:nvidia|open|(?:nvidia )?gpu) |nvidia-)?(?i:driver(?: version)?)\s+(?:(?i:is)\s+\**)?(?i:nvidia\s+(?:open\s+)?kernel\s+module\s+)?|"
                           + _QUERY_ROW_HEAD + r"(?=\d{3}\.\d+\.\d+\s*$)|"
                           r",\s*(?i:driver)\s+|^\W*(?i:nvidia)\s+v?(?=\d{3}\.\d+(?:\.\d+)?\s*$)|^\s*NVRM version:\s+|\bnvidia-open(?:-dkms)?[\s=]+|\b(?i:open gpu kernel modules version):\s*(?:(?:x11-drivers/)?nvidia-drivers-)?|"
                           r"\b(?:nvidia-driver|kmod-nvidia)-(?:latest-|open-)?(?:dkms-)?(?=\d{3}\.\d+\.\d+-\w)|"
                           r"^[ih]i\s+(?:nvidia-(?:driver|dkms|kernel-common|kernel-source|utils)|libnvidia-compute)-\d{3}"
                           r"(?:-server)?(?:-open)?(?::\w+)?\s+|"
                           r"\bnvidia-(?:driver|dkms|kernel-common|kernel-source|utils|compute-utils)-\d{3}(?:-server)?"
                           r"(?:-open)?/[\w.,-]+\s+(?=\d{3}\.\d+\.\d+-\S+\s+\w+\s+\[installed)|"
                           + _SAID_USING + r"(?=" + _DRIVER_SHAPE + r")|"
                           r"\b(?i:drivers?)\b[^.\n]{0,60}?\b(?i:on|using|running) (?i:version) (?=" + _DRIVER_SHAPE
                           + r"))(\d{3}\.\d+(?:\.\d+)?)\b",
                           re.MULTILINE)
# STATED_DRIVER's package forms: an RPM's name-version-release, a `dpkg -l` row.
_INSTALLED_PACKAGE = re.compile(r"nvidia-driver-|kmod-nvidia-|[ih]i\s|nvidia-[\w-]+/")
# ollama's `detected GPUs ... library=/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.16`: the driver's user-mode library
# it loaded, whose file name carries the driver's version (the driver package installs libcuda.so.<version>).
_LIBCUDA = re.compile(r"\blibcuda\.so\.(\d{3}\.\d+(?:\.\d+)?)\b")
# WSL 2's driver mount: the Windows driver serves the GPU there and ships its Linux libraries unversioned
# (`/usr/lib/wsl/lib/libcuda.so.1.1`).
_WSL_MOUNT = "/usr/lib/wsl/"


def libcuda_versions(text: str) -> list[str]:
    """The driver versions the libcuda.so.<version> files a text names carry (_LIBCUDA), in order; none where the text
    shows WSL 2's driver mount (_WSL_MOUNT): a versioned libcuda beside it is a Linux driver package's installed inside
    WSL, not the Windows driver that runs the GPU (facts/platform.LINUX_DRIVER_LIBRARY, corpus 2250)."""
    return [] if _WSL_MOUNT in text else [m.group(1) for m in _LIBCUDA.finditer(text)]
# ollama before 0.1.29 (gpu/gpu.go) names the driver's NVML library it found, `Discovered GPU libraries:
# [/usr/lib64/libnvidia-ml.so.545.29.06]` (ollama/ollama#1973, corpus 1676), and says `Nvidia GPU detected` once NVML
# answered through one. NVML answers only from a library of the loaded kernel module's version: another is refused,
# `Unable to load CUDA management library PATH: nvml vram init failure: 18` (NVML_ERROR_LIB_RM_VERSION_MISMATCH,
# ollama/ollama#2502), and a library refused so names no loaded driver.
_NVML_LIBRARY = re.compile(r"\blibnvidia-ml\.so\.(\d{3}\.\d+(?:\.\d+)?)\b")
_NVML_ANSWERED = re.compile(r"\bNvidia GPU detected\b")
_NVML_REFUSED = re.compile(r"Unable to load CUDA management library \S*?libnvidia-ml\.so\.(\d{3}\.\d+(?:\.\d+)?)\b")
# The same refusal with NVML's own error code (`: nvml vram init failure: 999`): any code but 18 (the library's version
# against the kernel module's) leaves the library the installed driver's own, its version the driver's (corpus 2178,
# ollama/ollama#4216 and #1877's comment: `libnvidia-ml.so.550.54.14: nvml vram init failure: 999` where nvidia-smi
# reads 550.54.14); not shown loaded.
_NVML_INIT_REFUSED = re.compile(_NVML_REFUSED.pattern + r": nvml \w+ init failure: (\d+)\b")


# The flavour stated beside the version on the same line of a hardware summary (`Driver | 595.71.05 (open kernel
# module)`, corpus 860; `NVIDIA driver 580.95.05 (open)`): NVIDIA ships its kernel modules in two flavours, "open"
# and "proprietary" (https://download.nvidia.com/XFree86/Linux-x86_64/595.71.05/README/kernel_open.html).
# The flavour's word alone after the version, as a list item (`driver 570.124.04, open.`, corpus 985).
# The user's words for the flavour after the version (`595.71.05 open kernel driver`, corpus 1086), or before it
# where the line starts with them (`open driver 550.90.07 doesn't work`, corpus 1098).
# NVIDIA/open-gpu-kernel-modules' bug form asks `NVIDIA Open GPU Kernel Modules Version` (importers/evidence.form_answer
# joins its answer to it: `NVIDIA Open GPU Kernel Modules Version: 525.85.05`, corpus 1786, 1787): the open flavour's
# version the reporter runs (STATED_DRIVER reads the version, after Gentoo's package name where the answer gives it:
# `nvidia-drivers-530.41.03`, corpus 1970).
STATED_OPEN = re.compile(r"\(open(?:[- ]source)?(?: kernel)?(?: modules?| driver| flavou?r)?\)|"
                         r"\bopen gpu kernel modules version\b|"
                         r"\bopen(?:[- ]source)? kernel (?:modules?|driver)\b|"
                         r"\b\d{3}\.\d+(?:\.\d+)?,?\s+open(?=\s*(?:[.,;]|$))|^\W*open driver \d{3}\.\d+",
                         re.IGNORECASE | re.MULTILINE)
# The user's words saying the driver they run is the open flavour, with no version beside them: the flavour's words as
# a sentence's subject at a line's start (`Open driver doesn't report `GPU 1 NVIDIA GeForce GTX 1070 Ti``,
# NVIDIA/open-gpu-kernel-modules#696, corpus 1678), after a verb of running it (`I'm running the 575.64.03 open driver
# to support a new RTX PRO 6000`, open-gpu-kernel-modules#914), or as what the loaded module is (`The loaded
# `nvidia.ko` is the **open** kernel module.`, zzzhouuu/truenas-nvidia-drivers#20). A line that names the other flavour
# too (`closed`, `proprietary`) compares them, and one that negates the words (`not using the open driver`) states
# none: neither is read. So do an environment list's kernel-module item whose value is the open module (`- Kernel module:
# NVIDIA Open Kernel Module`, corpus 2601), and NVIDIA/open-gpu-kernel-modules' bug form answering its version with a
# commit of that repository (`NVIDIA Open GPU Kernel Modules Version: 7c345b838b8a...`, corpus 2603): the reporter
# built the open modules from it (STATED_DRIVER reads no version from a commit); and a list's item that is the open
# module's name alone (`- NVIDIA Open Kernel Module` under `- Driver: 580.173.02`, corpus 2759; the form's heading
# `NVIDIA Open GPU Kernel Modules Version` is a question, not this). A list's kernel-module item answered with the
# flavour's word alone is the same (`- NVIDIA kernel module: open`, corpus 2847).
_OPEN_WORDS = r"\W{0,2}open\W{0,2}(?:[- ]source)?(?:\s+gpu)?(?:\s+kernel)?\s+(?:driver|modules?)\b"
USED_OPEN = re.compile(r"^\W*(?:the\s+)?" + _OPEN_WORDS
                       + r"|\b(?:running|using|run|use|installed|loaded|with)\s+(?:the\s+)?(?:\d{3}\.\d+(?:\.\d+)?\s+)?"
                       + _OPEN_WORDS + r"|\bis\s+the\s+" + _OPEN_WORDS
                       + r"|^\W*(?:nvidia\s+)?kernel\s+modules?(?:\s+(?:type|flavou?r))?\s*:\W{0,2}(?:(?:nvidia\s+)?"
                       + _OPEN_WORDS + r"|[*_`]{0,2}open[*_`.\s]{0,4}$)|\bopen gpu kernel modules version:\s*[0-9a-f]{7,40}\s*$"
                       r"|^\W*nvidia\s+open(?:\s+gpu)?\s+kernel\s+modules?\W{0,3}$", re.IGNORECASE)
# A line naming the other flavour, negating, or answering the open flavour's words with no (Unraid's driver page:
# `Open Source Kernel Module: No`, corpus 2678).
_OTHER_FLAVOUR = re.compile(r"\b(?:closed|proprietary|not|never)\b|n't\s+(?:use|run|using|running)\b|"
                            r":\s*(?:no|false|disabled|off)\s*$", re.IGNORECASE)


def used_open(line: str) -> bool:
    """Whether a line of the user's words says the driver they run is the open flavour (USED_OPEN), naming neither
    the other flavour nor a negation."""
    return bool(USED_OPEN.search(line)) and not _OTHER_FLAVOUR.search(line)


# The distribution packages of the open flavour, by branch (Ubuntu's `nvidia-driver-580-open`, `nvidia-dkms-580-open`):
# Ubuntu's packages of a branch's two flavours conflict, so the one installed is the flavour of that branch.
OPEN_PACKAGE = re.compile(r"\bnvidia-(?:driver|dkms|kernel-source|kernel-common)-(\d{3})-open\b")
# The open flavour's package without a branch in its name: NVIDIA's CUDA repository's and Arch's `nvidia-open` (and
# `nvidia-open-dkms`), whose proprietary counterpart is another package (`cuda-drivers`, `nvidia`). On the line that
# states the driver's version (`NVIDIA Driver 575.51.03, installed using `nvidia-open` package`, corpus 621) it names
# that driver's flavour; so does the RPM of NVIDIA's RHEL and Fedora repositories with its version after it
# (`kmod-nvidia-open-dkms-610.57.04-1.fc44.noarch`, corpus 2760).
OPEN_PACKAGE_NAME = re.compile(r"\bnvidia-open(?:-dkms)?\b(?!-(?!\d{3}\.))")
# An apt command that installs a branch's driver packages (`sudo apt install --reinstall nvidia-dkms-515`, corpus 1835;
# `sudo apt install nvidia-dkms-580 nvidia-driver-580 -y`; `sudo apt-get install nvidia-driver-575-open`), its
# arguments up to the next command (`&&`, `;`, `|`). Debian's and Ubuntu's packages of one branch come in two
# flavours that conflict: `nvidia-driver-515` and `nvidia-dkms-515` (with `-server` for the server branch) install the
# proprietary module, the same names ending `-open` the open one (OPEN_PACKAGE). A simulated install (`-s`,
# `--simulate`, `--dry-run`, `--no-act`) installs nothing.
APT_INSTALL = re.compile(r"\bapt(?:-get)?\s+install\b([^&|;\n]*)")
_APT_SIMULATE = re.compile(r"(?:^|\s)(?:-s|--simulate|--dry-run|--no-act|--just-print)\b")
BRANCH_PACKAGE = re.compile(r"(?<![\w-])nvidia-(?:driver|dkms|kernel-source|kernel-common)-(\d{3})(?:-server)?(-open)?"
                            r"(?![\w.-])")


def installed_flavour(text: str) -> tuple[str, str, str] | None:
    """The flavour and branch that apt install commands of the text name (APT_INSTALL, BRANCH_PACKAGE), with the
    line; None where none names one, or where they name two flavours or two branches."""
    named: dict[tuple[str, str], str] = {}
    for line in text.splitlines():
        if "install" not in line or "nvidia-" not in line:
            continue
        for m in APT_INSTALL.finditer(line):
            if _APT_SIMULATE.search(m.group(1)):
                continue
            for p in BRANCH_PACKAGE.finditer(m.group(1)):
                named.setdefault(("open" if p.group(2) else "proprietary", p.group(1)), line.strip())
    if len(named) != 1:
        return None
    (flavour, branch), line = next(iter(named.items()))
    return flavour, branch, line


@parser(EVIDENCE_LINES, feeds="nvidia_driver", kind=NvidiaDriver, rank=50)
def driver_from_evidence_lines(text: str) -> NvidiaDriver:
    """The driver version nvidia-smi's header line states where the paste shows that line alone (copied into prose,
    a hardware list, `driver:525.116.03`): nvidia-smi prints it only from a loaded driver. ollama's `detected GPUs`
    line names the libcuda.so.<version> it loaded, the driver's own library. Two different versions name no one driver.
    An open-flavour package of the driver's branch (OPEN_PACKAGE) listed beside it names the flavour open, and so
    do the words the summary line stating the version says it with (STATED_OPEN). The user's words saying the
    driver they run is the open one (used_open) name the flavour of the one version the paste states, or of none. A two-column Markdown table row
    (`| **Driver** | 595.71.05 (open kernel module) |`) is the same statement (facts/_parse.stated_line).

    Input (tests/data/captures/247)::

        NVIDIA-SMI 470.141.03   Driver Version: 470.141.03   CUDA Version: 11.4
    """
    text = stated_lines(text)
    found = list(dict.fromkeys([*(m.group(1) for m in STATED_DRIVER.finditer(text)),
                                *libcuda_versions(text)]))
    if not found and (apt := installed_flavour(text)) is not None:
        return NvidiaDriver(None, apt[0], f"package: {apt[2]}", package_branch=apt[1])
    said_open = next((line.strip() for line in text.splitlines() if used_open(line)), "")
    if not found and said_open:  # the flavour in the user's words, joined to the version another source states
        return NvidiaDriver(None, "open", f"stated: {said_open[:200]}")
    only_one(found, "no one `Driver Version:` in the lines shown" if not found else
             f"several driver versions in the lines shown ({', '.join(found)})")
    package = next((line.strip() for line in text.splitlines()
                    if any(found[0].startswith(m.group(1) + ".") for m in OPEN_PACKAGE.finditer(line))
                    or ((OPEN_PACKAGE_NAME.search(line) or STATED_OPEN.search(line)) and found[0] in line)), "")
    said = "stated" if package and STATED_OPEN.search(package) else "package"
    # A package's own version (an RPM's name, a `dpkg -l` row) shows the driver installed, not loaded.
    installed = all(_INSTALLED_PACKAGE.match(m.group(0)) for m in STATED_DRIVER.finditer(text) if m.group(1) == found[0])
    smi = next((m.group(1) for m in _SMI_BESIDE_DRIVER.finditer(text) if m.group(2) == found[0]), None) or (
        stated[0] if len(stated := list(dict.fromkeys(m.group(1) for m in _SMI_STATED.finditer(text)))) == 1 else None)
    flavour: str | None = "open" if package else None
    evidence = f"{said}: {package}" if package else ""
    if not package and (apt := installed_flavour(text)) is not None and found[0].startswith(apt[1] + "."):
        flavour, evidence = apt[0], f"package: {apt[2]}"  # an apt install of this branch's packages
    if flavour is None and said_open:
        flavour, evidence = "open", f"stated: {said_open[:200]}"  # the user's words for the module they run
    row = next((line.strip() for line in text.splitlines() if found[0] in line and STATED_DRIVER.search(line)), "")
    return NvidiaDriver(found[0], flavour, evidence,
                        loaded=None if installed and not libcuda_versions(text) else True, smi_version=smi,
                        installed_package=row if installed and not libcuda_versions(text) else "")


# The nvidia module's row of /proc/modules with the module's own taint letters after its address (`nvidia 34041856 32
# nvidia_modeset,nvidia_uvm, Live 0xffffffffc099b000 (POE)`): the kernel prints them for the taints the module set
# when it loaded (kernel/module/main.c module_flags). P (TAINT_PROPRIETARY_MODULE) marks a license that is not
# GPL-compatible: the proprietary flavour's `NVIDIA`. The open flavour's `Dual MIT/GPL` sets no P, so its row shows O
# (out-of-tree) and E (unsigned) or O alone (https://docs.kernel.org/admin-guide/tainted-kernels.html).
# A row without the parenthesised letters shows none: a module built outside the kernel tree always has O.
NVIDIA_MODULE_ROW = re.compile(r"^\s*nvidia \d+ \d+ \S+ (?:Live|Loading|Unloading) 0x[0-9a-f]+ \(([A-Z]+)\)\s*$",
                               re.MULTILINE)


def taint_flavour(text: str) -> tuple[str, str] | None:
    """The flavour (`proprietary` or `open`) the nvidia module's taint letters in /proc/modules show
    (NVIDIA_MODULE_ROW), with its row; None where no such row is shown, or where two rows disagree."""
    found = {("proprietary" if "P" in m.group(1) else "open", m.group(0).strip())
             for m in NVIDIA_MODULE_ROW.finditer(text) if "O" in m.group(1) or "P" in m.group(1)}
    if len({f for f, _ in found}) != 1:
        return None
    return min(found)


@parser(PROC_MODULES, feeds="nvidia_driver", kind=NvidiaDriver, rank=65)
def driver_flavour_from_taint(text: str) -> NvidiaDriver:
    """The loaded module's flavour from the taint letters of its /proc/modules row (taint_flavour): no version, so it
    fills the flavour of a better answer (first_with_flavour), as the loaded module's.

    Input (tests/data/captures/1897, https://github.com/NVIDIA/gpu-operator/issues/180)::

        nvidia 34041856 32 nvidia_modeset,nvidia_uvm, Live 0xffffffffc099b000 (POE)
    """
    found = taint_flavour(text)
    if found is None:
        raise ParseError("no nvidia row with taint letters in /proc/modules")
    return NvidiaDriver(None, found[0], f"/proc/modules: {found[1]}", loaded=True)


@parser(PROMPT_HOSTS, feeds="nvidia_driver", kind=NvidiaDriver, rank=90)
def driver_flavour_from_prompts(text: str) -> NvidiaDriver:
    """The flavour and branch of the driver packages an apt install typed at a shell prompt names (installed_flavour):
    no version, so it only fills the flavour of a better answer for that branch (first_with_flavour).

    Input (corpus 1835's prompt as the importer hands it over: the prompt's host, a tab, its command)::

        \tsudo apt remove nvidia-kernel-open-515  && sudo apt install --reinstall nvidia-dkms-515 && sudo reboot
    """
    installed = installed_flavour(text)
    if installed is None:
        raise ParseError("no apt install of one flavour of one branch's driver packages at the prompts")
    flavour, branch, line = installed
    return NvidiaDriver(None, flavour, f"package: {line}", package_branch=branch)


# NCCL's probe of a GPU for DMA-BUF (src/transport/net.cc, ncclDmaBufSupport: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED and
# a test export of device memory): `NCCL INFO DMA-BUF is available on GPU device 0`. CUDA exports GPU memory as a
# DMA-BUF only under the open kernel modules (the driver README's kernel_open.html: "DMABUF for CUDA allocations"
# needs them; NVIDIA's GPUDirect RDMA guide, "Using dma-buf": "requires the open-source NVIDIA kernel modules").
NCCL_DMABUF_AVAILABLE = re.compile(r"\bNCCL INFO DMA-BUF is available on GPU device (\d+)")


@parser(ENGINE_LOG, feeds="nvidia_driver", kind=NvidiaDriver, rank=66)
def driver_flavour_from_nccl_dmabuf(text: str) -> NvidiaDriver:
    """The open flavour where NCCL found DMA-BUF available on a GPU (NCCL_DMABUF_AVAILABLE): CUDA exports GPU memory
    as a DMA-BUF only under the open kernel modules, so the module that drives that GPU is the open one. No version,
    so it fills the flavour of a better answer (first_with_flavour), as the loaded module's.

    Input (tests/data/captures/2453)::

        qwen35-122b-fp8-0-worker-0-worker-ldr-0:96:96 [0] NCCL INFO DMA-BUF is available on GPU device 0
    """
    found = next((m for m in NCCL_DMABUF_AVAILABLE.finditer(text)), None)
    if found is None:
        raise ParseError("no NCCL line finding DMA-BUF available on a GPU")
    return NvidiaDriver(None, "open", f"NCCL: {found.group(0)}", loaded=True)


# nvidia-smi's header line copied into prose: `NVIDIA-SMI 580.105.08  Driver Version: 572.16` (the library's, the driver's).
_SMI_BESIDE_DRIVER = re.compile(r"NVIDIA-SMI\s+(\d{3}\.\d+(?:\.\d+)?)\s+(?:KMD|Driver) Version:\s*(\d{3}\.\d+(?:\.\d+)?)")
# The same header's library version as an item of its own in an environment list, beside the driver's item
# (`- NVIDIA-SMI: 535.309.01` under `- Windows Driver Version: 610.47`, corpus 2706; `nvidia-smi --version`'s
# `NVIDIA-SMI version  : 580.95.05`, corpus 1016): the version of the nvidia-smi and NVML library that ran.
_SMI_STATED = re.compile(r"^[\s>*\u2022-]{0,8}NVIDIA-SMI(?: version)?\s{0,4}:\s{0,4}`?(\d{3}\.\d+(?:\.\d+)?)\b",
                         re.MULTILINE)


# nvbandwidth's header: `Driver Version: 550.127.08`, which it read from NVML (nvmlSystemGetDriverVersion).
_BANDWIDTH_TEST_DRIVER = re.compile(r"^[\s>]*Driver Version:\s*(\d{3}\.\d+(?:\.\d+)?)\s*$", re.MULTILINE)


@parser(P2P_BANDWIDTH_TEST, feeds="nvidia_driver", kind=NvidiaDriver, rank=45)
def driver_from_bandwidth_test(text: str) -> NvidiaDriver:
    """The loaded driver's version that nvbandwidth's header prints (it asks NVML, so the driver is loaded).

    Input (tests/data/captures/1035, https://github.com/NVIDIA/nvbandwidth/issues/34)::

        CUDA Driver Version: 12040
        Driver Version: 550.127.08
    """
    found = set(_BANDWIDTH_TEST_DRIVER.findall(text))
    return NvidiaDriver(only_one(found, "no one `Driver Version:` line in the bandwidth test"), None, loaded=True)


@parser(ENGINE_LOG, feeds="nvidia_driver", kind=NvidiaDriver, rank=55)
def driver_from_engine_log(text: str) -> NvidiaDriver:
    """The driver's version in the file name of the libcuda.so.<version> an engine's log names (ollama's discovery
    found or loaded it: the driver package installs the library under the driver's version), or of the
    libnvidia-ml.so.<version> ollama before 0.1.29 found, where its `Nvidia GPU detected` says NVML answered and no line
    says that library was refused (_NVML_ANSWERED); where none answered, the version of the library NVML refused with
    a code other than 18 (_NVML_INIT_REFUSED), installed and not shown loaded.
    Two different versions name no one driver.

    Input (tests/data/captures/1565, https://github.com/ollama/ollama/issues/11593)::

        msg="Unable to load cudart library /usr/lib/x86_64-linux-gnu/libcuda.so.575.57.08: cuda driver library init failure: 3"

    Input (tests/data/captures/1676, https://github.com/ollama/ollama/issues/1973)::

        2024/01/13 16:01:14 gpu.go:248: Discovered GPU libraries: [/usr/lib64/libnvidia-ml.so.545.29.06]
        2024/01/13 16:01:14 gpu.go:94: Nvidia GPU detected
    """
    found = set(libcuda_versions(text))
    if "libnvidia-ml.so." in text and _NVML_ANSWERED.search(text):
        found |= set(_NVML_LIBRARY.findall(text)) - set(_NVML_REFUSED.findall(text))
    refused = _NVML_INIT_REFUSED.findall(text)
    if not found and refused and all(code != "18" for _, code in refused):
        return NvidiaDriver(only_one({version for version, _ in refused},
                                     "several libnvidia-ml.so.<version> refused in the engine's log"), None)
    return NvidiaDriver(only_one(found, "no one libcuda.so.<version> (or answering libnvidia-ml.so.<version>) in the "
                                 "engine's log"), None, loaded=True)


# The system CUDA toolkit: nvcc's `Cuda compilation tools, release 12.4, V12.4.131`, a hardware list's
# `CUDA Toolkit: CUDA 13.0 Update 2` (`CUDA tool kit:12.4`, corpus 907), or the toolkit's package as the package manager
# lists it installed: `apt list --installed`'s `nvidia-cuda-toolkit/noble,now 12.0.140~12.0.1-4build4 amd64 [installed]`
# (Debian's and Ubuntu's package, corpus 2657) or NVIDIA's repository's `cuda-toolkit-12-4/...,now 12.4.1-1 amd64
# [installed]`, `dpkg -l`'s `ii  nvidia-cuda-toolkit  12.0.140~12.0.1-4build4  amd64 ...`. A package's `-doc` or `-gcc`
# companion is not the toolkit, and a package apt lists without `[installed` is only available.
_TOOLKIT_PACKAGE = r"(?:nvidia-cuda-toolkit|cuda-toolkit-\d+-\d+)"
STATED_TOOLKIT = re.compile(r"\bCuda compilation tools, release (\d+\.\d+)|^\W*CUDA Tool ?kit:\s*(?:CUDA\s*)?(\d+\.\d+)\b|"
                            rf"^\s*{_TOOLKIT_PACKAGE}/\S*,now (\d+\.\d+)\.\d+\S* \S+ \[installed|"
                            rf"^\s*ii\s+{_TOOLKIT_PACKAGE}(?::\w+)?\s+(\d+\.\d+)\.\d+", re.IGNORECASE)
# A hardware list's CUDA on its own line, in the user's words or a template's field: `CUDA Version: 12.3`, `cuda version
# : 12.2` (corpus 1005), `Cuda:12.4` (1017), `* cuda: 12.3` (1105), `Cuda version: `12.2`` (1262), a bare `CUDA 12.8`
# (837), `- **CUDA:** 12.8, driver 581.80` (950: what follows a comma is another item), PyTorch's old issue template's
# `- CUDA/cuDNN version:9.0` (1695), its cuDNN after a slash (`10.1 / 7.6.5`). Not nvidia-smi's header, which
# has the driver before it on its line, nor `nvidia-smi -q`'s padded field (`CUDA Version    : 12.2`): nvidia-smi's
# figure copied, or the CUDA the user runs; which, the line alone does not say.
STATED_CUDA = re.compile(r"^\W*CUDA(?:/cuDNN)?(?: Version ?:| ?:|\s)\s*`?(\d+\.\d+)(?:\.\d+)?`?\s*(?:[,;(/].*)?$", re.IGNORECASE)
# The CUDA as the last item of a line of the user's items, after two spaces or a comma (`ubuntu 16.04 nvidia 2080
# drivier-version 430.64  cuda 10.0`, corpus 2230; `Ubuntu 22.04, driver 535.54.03, CUDA 12.2`): the same statement as
# STATED_CUDA's, the line's last. Not nvidia-smi's header flattened onto one line (`NVIDIA-SMI 535.183.01  Driver
# Version: 535.183.01   CUDA Version: 12.2`, corpus 1005), whose driver's own field before it makes it the driver's
# figure, read with the header (stated_cuda_item). An item the user says nvidia-smi reported (`Driver: 552.x, CUDA 12.4
# reported by nvidia-smi`, corpus 2256) is the driver's figure, as the header's is (`smi`: CudaToolkit.header).
STATED_CUDA_ITEM = re.compile(r"(?:\S\s{2,}|,\s*)CUDA(?: Version)?(?:\s*:\s*|\s+)v?(\d+\.\d+)(?:\.\d+)?"
                              r"(?P<smi>\s+(?:as\s+)?(?:reported|shown|printed) by nvidia-smi)?\s*$", re.IGNORECASE)
_SMI_DRIVER_FIELD = re.compile(r"\bDriver Version:\s*\d{3}\.", re.IGNORECASE)
# The driver's version named on the item's own line (`- Nvidia driver version 580.65.06, CUDA version 13.0`, corpus
# 760): the CUDA beside it is the driver's figure, as nvidia-smi's header pairs them, not a runtime in use.
_DRIVER_ON_LINE = re.compile(r"\bdriver(?: version)?:?\s+v?\d{3}\.\d+", re.IGNORECASE)


# A template's field naming several libraries, answered with their versions in the same order (TensorRT-LLM's issue
# form: `Versions of TensorRT, Modelopt, CUDA, cuBLAS, etc. used`, answered `Versions of TensorRT, CUDA: (10.0.1,
# 12.4)`, corpus 2877): the CUDA of that pairing is the user's statement of the CUDA in use, as STATED_CUDA's.
_PAIRED_VERSIONS = re.compile(r"^\W*Versions? of (?P<names>[\w .,/-]+?)(?:,? etc\.?)?(?: used)?\s*:\s*"
                              r"\(?(?P<values>\d[\w .,/-]*?)\)?\s*$", re.IGNORECASE)


def paired_cuda(line: str) -> str:
    """The CUDA release a template's line of names and versions pairs with `CUDA` (_PAIRED_VERSIONS), "" where the
    line is none or its names and versions do not pair one to one.

    >>> paired_cuda("Versions of TensorRT, CUDA: (10.0.1, 12.4)"), paired_cuda("Versions of TensorRT, CUDA: 10.0.1")
    ('12.4', '')
    """
    m = _PAIRED_VERSIONS.match(line)
    if m is None:
        return ""
    names = [n.strip().lower() for n in m.group("names").split(",") if n.strip()]
    values = [v.strip() for v in m.group("values").split(",")]
    if len(names) != len(values) or "cuda" not in names:
        return ""
    cuda = re.fullmatch(r"v?(\d+\.\d+)(?:\.\d+)*", values[names.index("cuda")])
    return cuda.group(1) if cuda else ""


def stated_cuda_item(line: str) -> re.Match[str] | None:
    """The CUDA that ends a line of the user's items (STATED_CUDA_ITEM), None on any other line, nvidia-smi's
    header among them."""
    m = STATED_CUDA_ITEM.search(line)
    return m if m is not None and not _SMI_DRIVER_FIELD.search(line) else None
# nvidia-smi's header copied one field a line (`Driver Version: 550.54.15` over `CUDA Version: 12.4`, corpus 276), and
# `nvidia-container-cli info`'s `NVRM version:` over its `CUDA version:` (corpus 1311): the CUDA line under the driver's
# is the driver's own figure, its highest, not a runtime. So is one under the header's library version as a list's item
# (`- NVIDIA-SMI: 535.309.01` over `- CUDA Version: 13.3`, corpus 2706).
HEADER_DRIVER_FIELD = re.compile(r"^\W*(?:NVIDIA-SMI:? ?\d{3}\.|Driver Version:\s*\d{3}\.|NVRM version:\s*\d{3}\.)",
                                  re.IGNORECASE)


@dataclass(frozen=True)
class CudaToolkit(Sourced):
    """The system CUDA toolkit a paste shows (nvcc's release), not the runtime a program ships.

    `stated` marks a list's bare CUDA line (`CUDA Version: X.Y`, `cuda: 12.3`: STATED_CUDA), read only where no toolkit
    line is shown: a CUDA the paste names, which may be nvidia-smi's figure for the driver rather than a toolkit.
    `header` marks a stated line that is the nvidia-smi header copied one field a line (under its `Driver Version:`
    line), or an item the user says nvidia-smi reported: the driver's highest CUDA, never the runtime."""

    version: str = ""
    line: str = ""
    stated: bool = False
    header: bool = False
    build: str = ""  # nvcc's full release (`V8.0.61`: 8.0.61), where its line shows one


fact("cuda_toolkit", CudaToolkit, hint="paste `nvcc --version`")

# The Linux driver each toolkit release before CUDA 11 needs, by nvcc's full release: before CUDA 11 there is no
# minor-version compatibility, and NVIDIA lists a driver per release (CUDA Toolkit release notes, table "CUDA Toolkit
# and Compatible Driver Versions": 8.0.44 367.48, 8.0.61 GA2 375.26 (as cms-sw/cmsdist#2858 pairs them), 9.2.148
# Update 1 396.37, "10.1.105 general release, and updates" 418.39, 10.2.89 440.33), keyed by the release nvcc prints
# (CUDA 9.0, listed as 9.0.76, prints `V9.0.176`). CUDA 10.1's updates (10.1.168, 10.1.243) need the general
# release's 418.39, not the newer driver their installers bundle.
TOOLKIT_BUILD_DRIVER: dict[str, tuple[int, ...]] = {
    "8.0.44": (367, 48), "8.0.61": (375, 26), "9.0.176": (384, 81),
    "9.1.85": (390, 46), "9.2.88": (396, 26), "9.2.148": (396, 37), "10.0.130": (410, 48), "10.1.105": (418, 39),
    "10.1.168": (418, 39), "10.1.243": (418, 39), "10.2.89": (440, 33),
}
_NVCC_BUILD = re.compile(r"\bV(\d+\.\d+\.\d+)\b")


@parser(EVIDENCE_LINES, feeds="cuda_toolkit", kind=CudaToolkit, rank=10)
def toolkit_from_evidence_lines(text: str) -> CudaToolkit:
    """The system toolkit's release, where the paste shows one (two different releases name no one toolkit); else a
    bare `CUDA Version: X.Y` line (STATED_CUDA), a CUDA that ends a line of items (STATED_CUDA_ITEM) or that a
    template's line of names and versions pairs with CUDA (paired_cuda), marked `stated`.

    Input (tests/data/captures/410, nvcc --version's fourth line)::

        Cuda compilation tools, release 12.0, V12.0.140

    A two-column Markdown table row (`| **CUDA Toolkit** | 13.0 |`) is the same statement (facts/_parse.stated_line).
    """
    text = stated_lines(text)
    found = {next(g for g in m.groups() if g): line.strip() for line in text.splitlines()
             for m in [STATED_TOOLKIT.search(line)] if m}
    lines = text.splitlines()
    stated = {m.group(1): (line.strip(), (i > 0 and bool(HEADER_DRIVER_FIELD.match(lines[i - 1])))
                           or (m.re is STATED_CUDA_ITEM and (bool(m.group("smi")) or bool(_DRIVER_ON_LINE.search(line)))))
              for i, line in enumerate(lines) for m in [STATED_CUDA.search(line) or stated_cuda_item(line)] if m}
    stated.update({cuda: (line.strip(), False) for line in lines if (cuda := paired_cuda(line)) and cuda not in stated})
    # nvidia-smi's header flattened onto a line of a list (`- Software:  NVIDIA-SMI 535.129.03  Driver Version:
    # 535.129.03   CUDA Version: 12.4`, corpus 2876): the driver's figure, as its header copied one field a line.
    stated.update({m.group(1): (line.strip(), True) for line in lines
                   if (m := STATED_CUDA_ITEM.search(line)) and _SMI_DRIVER_FIELD.search(line) and m.group(1) not in stated})
    if not found and len(stated) == 1:
        (version, (line, header)), = stated.items()
        return CudaToolkit(version=version, line=line, stated=True, header=header)
    version, line = only_one(found.items(), "no one CUDA toolkit release in the lines shown")
    build = m.group(1) if (m := _NVCC_BUILD.search(line)) else ""
    return CudaToolkit(version=version, line=line, build=build)


# --- sampling (audit --sample) ---------------------------------------------------------------


@dataclass(frozen=True)
class GpuSample:
    t: float
    sm_mhz: int | None
    mem_mhz: int | None
    power_w: float | None
    reasons: tuple[str, ...] | None
    pcie_gen: int | None
    pcie_width: int | None
    utilization: int | None
    temp_c: int | None


@dataclass(frozen=True)
class GpuSamples:
    seconds: int
    interval_s: float
    series: tuple[tuple[GpuSample, ...], ...] = sample_field(())  # one series per GPU index

    def reason_share(self, index: int, reason: str, busy_only: bool = True) -> tuple[int, int]:
        """(ticks with `reason` active, ticks counted) for one GPU, under load only by default."""
        ticks = [s for s in self.series[index] if s.reasons is not None
                 and (not busy_only or (s.utilization or 0) >= 20)]
        return sum(1 for s in ticks if reason in (s.reasons or ())), len(ticks)

    def busy_ticks(self, index: int) -> int:
        return sum(1 for s in self.series[index] if (s.utilization or 0) >= 20)


def samples_from_nvml(data: dict[str, Any]) -> GpuSamples:
    count = int(data.get("gpu_count", 0))
    series: list[list[GpuSample]] = [[] for _ in range(count)]
    for tick in data.get("ticks", []):
        for i, gpu in enumerate(tick.get("gpus", [])[:count]):
            mask = _num(gpu.get("reasons"))
            series[i].append(GpuSample(
                float(tick.get("t", 0.0)), _num(gpu.get("sm")), _num(gpu.get("mem")), _watts(gpu.get("power_mw")),
                reasons_from_mask(mask) if mask is not None else None, _num(gpu.get("gen")),
                _num(gpu.get("width")), _num(gpu.get("util")), _num(gpu.get("temp"))))
    return GpuSamples(int(data.get("seconds", 0)), float(data.get("interval_s", 1.0)),
                      tuple(tuple(s) for s in series))


def _sample_provider(seconds: int) -> Any:
    def gpu_samples(ctx: FactContext) -> GpuSamples:
        """GPU clocks, power, clock event reasons and PCIe link over the `--sample` window (NVML)."""
        try:
            return samples_from_nvml(ctx.host.nvml(f"samples/{seconds}"))
        except NvmlError as exc:
            raise FactUnavailable(f"NVML sampling failed: {exc.kind}", "sampling needs NVML (nvidia-ml-py)") from exc

    return gpu_samples


@provider("gpu_samples", GpuSamples, title="NVML samples (`audit --sample`)")
def gpu_samples(ctx: FactContext) -> GpuSamples:
    """GPU clocks, power, clock event reasons and PCIe link sampled over a window (`audit --sample`)."""
    raise FactUnavailable("not sampled (one instant only)", "run `stackaudit audit --sample 30` while the server "
                          "is under load")


def sampling_providers(seconds: float, base: dict[str, FactSpec] | None = None) -> dict[str, FactSpec]:
    """The fact table with `gpu_samples` sampling for `seconds` (AuditOptions.sample_s)."""
    from stackaudit.facts.registry import PROVIDERS

    table = dict(PROVIDERS if base is None else base)
    whole = max(1, round(seconds))
    alt = Provider("gpu_samples", _sample_provider(whole), GpuSamples, f"GPU samples over {whole} s (NVML)",
                   title="NVML samples")
    table["gpu_samples"] = FactSpec("gpu_samples", GpuSamples, first_of, (alt,))
    return table


# --- host power profile and memory (PWR-PLATFORM-PROFILE, MEM-PINNED-HOST) --------------------


@dataclass(frozen=True, kw_only=True)
class PowerCapSweep(Sourced):
    """The power caps a sweep script set on the GPUs one after another to measure each (club-3090's
    `power-cap-sweep.sh`: a `=== Cap: 330W (GPUs 0,1) @ ... ===` banner per step, then `[verify] limit set to:
    330.00W`, the limit it set and read back)."""

    caps_w: tuple[float, ...] = ()  # the steps shown, in order
    gpus: tuple[int, ...] = ()  # the GPUs the banners name
    set_w: tuple[float, ...] = ()  # the limits the script read back after setting them


_SWEEP_STEP = re.compile(r"^cap=(\d+(?:\.\d+)?) gpus=([\d,]+)(?: set=(\d+(?:\.\d+)?))?$", re.MULTILINE)


@parser(POWER_CAP_SWEEP, feeds="power_cap_sweep", kind=PowerCapSweep, rank=50)
def power_cap_sweep(text: str) -> PowerCapSweep:
    """The cap steps of a pasted power-cap sweep (importers/rig_report.py power_cap_sweep records them).

    Input (recorded from corpus 2842's sweep)::

        cap=330 gpus=0,1 set=330.00
    """
    steps = list(_SWEEP_STEP.finditer(text))
    if not steps:
        raise ParseError("no cap step")
    return PowerCapSweep(caps_w=tuple(float(m.group(1)) for m in steps),
                         gpus=tuple(sorted({int(g) for m in steps for g in m.group(2).split(",")})),
                         set_w=tuple(float(m.group(3)) for m in steps if m.group(3)))


@dataclass(frozen=True)
class PowerProfile:
    platform_profile: str | None = None  # /sys/firmware/acpi/platform_profile
    choices: tuple[str, ...] = ()
    tuned: str | None = None  # /etc/tuned/active_profile
    ppd: str | None = None  # `powerprofilesctl get`


@provider("power_profile", PowerProfile, title="/sys/firmware/acpi/platform_profile, tuned, `powerprofilesctl`")
def power_profile(ctx: FactContext) -> PowerProfile:
    """OS/firmware power profile: ACPI platform_profile, tuned, power-profiles-daemon."""
    host = ctx.host
    read = Reads(host)
    profile = (read("/sys/firmware/acpi/platform_profile") or "").strip()
    choices = tuple((read("/sys/firmware/acpi/platform_profile_choices") or "").split())
    tuned = (read("/etc/tuned/active_profile") or "").strip()
    ppd: str | None = None
    try:
        if host.which("powerprofilesctl"):
            result = host.run(list(POWERPROFILESCTL.argv))
            ppd = result.stdout.strip() or None if result.ok else None
            read.answered = True
    except NotCaptured:
        pass
    if not read.answered:
        raise NotCaptured("/sys/firmware/acpi/platform_profile")
    return PowerProfile(profile or None, choices, tuned or None, ppd)


@dataclass(frozen=True)
class HostMemory:
    total_kib: int | None
    available_kib: int | None = sample_field()
    mlocked_kib: int | None = sample_field()
    unevictable_kib: int | None = sample_field()


@parser(PROC_MEMINFO, feeds="meminfo", kind=HostMemory, rank=0)
def parse_meminfo(text: str) -> HostMemory:
    """Host memory (/proc/meminfo): total, available, mlocked.

    Input (the kernel's format)::

        MemTotal:       1056467228 kB
        MemAvailable:   1001822144 kB
        Mlocked:               0 kB
    """
    values = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+):\s+(\d+)\s*kB", text, re.MULTILINE)}
    if "MemTotal" not in values:
        raise ParseError("not /proc/meminfo")
    return HostMemory(values.get("MemTotal"), values.get("MemAvailable"), values.get("Mlocked"),
                      values.get("Unevictable"))



# The first driver branch of each CUDA 7 to 13 minor (the toolkit release notes' driver table, GA rows; the Windows
# branches of the same release are one to two above, so the branch major decides on both). Before CUDA 11 a branch
# names the release it shipped with: R418 to R435 run 10.1 (nvidia-smi 430.64 prints `CUDA Version: 10.1`), R387 and
# R390 run 9.1. The branches after R580, and R565, by the CUDA their nvidia-smi headers print in the corpus: 565.57.01
# to 566.24 `CUDA Version: 12.7`, 590.44.01 to 591.86 `13.1`, 595.71.05 to 596.36 `13.2`, 610.57.04's `CUDA UMD
# Version: 13.3` (corpus 1977).
BRANCH_CUDA = ((610, "13.3"), (595, "13.2"), (590, "13.1"), (580, "13.0"), (575, "12.9"), (570, "12.8"), (565, "12.7"),
               (560, "12.6"), (555, "12.5"), (550, "12.4"),
               (545, "12.3"), (535, "12.2"), (530, "12.1"), (525, "12.0"), (520, "11.8"), (515, "11.7"),
               (510, "11.6"), (495, "11.5"), (470, "11.4"), (465, "11.3"), (460, "11.2"), (455, "11.1"), (450, "11.0"),
               (440, "10.2"), (418, "10.1"), (410, "10.0"), (396, "9.2"), (387, "9.1"), (384, "9.0"), (367, "8.0"),
               (352, "7.5"), (346, "7.0"))


def cuda_of_branch(driver: tuple[int, ...]) -> str | None:
    """The highest CUDA a driver of this branch runs, where the source does not show it (a collect_env)."""
    return next((cuda for branch, cuda in BRANCH_CUDA if driver and driver[0] >= branch), None)
