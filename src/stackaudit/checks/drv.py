"""DRV: NVIDIA driver, CUDA compatibility, persistence, compute mode, fabric manager, GSP, NVLink, Xids."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from stackaudit.checks.registry import (
    Fix,
    FixCost,
    Outcome,
    Severity,
    Sharpen,
    check,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    over_subjects,
    unknown,
)
from stackaudit.facts.applicability import NO_NVLINK_WHY, ggml_image_engine
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.cuda_ran import CudaRan, CudaRuntime, Ran
from stackaudit.facts.docker import (
    NGC_CHECK,
    DockerContainers,
    l4t_image_release,
    requirement_lets_through,
    requirement_refuses,
    runs_own_program,
)
from stackaudit.facts.engines_shown import EnginesShown
from stackaudit.facts.gpu_events import (
    APPLICATION,
    HW_CONTAINED,
    HW_DEGRADED,
    HW_LOST,
    NVLINK_XIDS,
    OTHER,
    PROBE_FAILED,
    GpuEvent,
    GpuEvents,
    module_at_work,
    xid_class,
)
from stackaudit.facts.gpus import (
    COLLECT_ENV_TITLE,
    DEVICE_QUERY_TITLE,
    GGML_TITLE,
    GGML_USING_TITLE,
    KERNEL_LOG_TITLE,
    NCCL_TESTS_TITLE,
    NVBANDWIDTH_TITLE,
    NVSMI_LIST_TITLE,
    OLLAMA_TITLE,
    P2P_TEST_TITLE,
    TOPOLOGY_TITLE,
    TORCH_WARNED_TITLE,
    GpuInventory,
    GpuRecord,
    L4tRelease,
    OllamaCuda,
)
from stackaudit.facts.gsp_log import GspLog
from stackaudit.facts.nvidia import (
    BRANCH_CUDA,
    FABRIC_HEALTH,
    TOOLKIT_BUILD_DRIVER,
    CudaToolkit,
    Daemon,
    GpuInfo,
    NvidiaDriver,
    NvidiaGpus,
    NvidiaServices,
    NvLink,
    cuda_of_branch,
    fabric_verdict,
    gpu_spec,
    open_module_only,
)
from stackaudit.facts.ollama_cli import OllamaShown
from stackaudit.facts.parallelism import Parallelism, ServingEngine
from stackaudit.facts.pci import NVIDIA_VENDOR, PciDevices
from stackaudit.facts.pcie_errors import PcieErrors
from stackaudit.facts.peer_access import NVBANDWIDTH, P2pBandwidth, P2pDataTests
from stackaudit.facts.platform import Virtualization, vgpu_host, wsl_driver, wsl_kernel
from stackaudit.facts.processes import ENGINE_NAMES
from stackaudit.facts.python_env import PythonEnv, release_cuda_major, release_newest_cuda_major
from stackaudit.facts.serving_logs import DIRECT_NVL_BOARDS, FULL_NVL_BW, LogDate, NcclTopoTree, ServingLog
from stackaudit.facts.shown_commands import EmptyGreps
from stackaudit.facts.symptoms import (
    CUDA_ERRORS,
    FM_GUIDE,
    IN_SERVING_STACK,
    NO_CONTAINER_SHOWN,
    STACK_XID,
    LogSymptoms,
)
from stackaudit.facts.system import BbSwitch, KernelLog, LoadedModules, module_loaded
from stackaudit.facts.topology import NvlinkStatus, TopoMatrix, gpu_index, nvlink_count
from stackaudit.fixes.model import (
    BDF_SUBJECT,
    advice,
    cmd,
    keep_cmd,
    keep_line,
    keep_text,
    sh,
    step,
)
from stackaudit.gputable import (
    FORWARD_COMPAT,
    PRE_TURING,
    GpuSpec,
    GpuTableError,
    UnknownGpuError,
    all_gpus,
    architecture_of,
    by_pci_device_id,
    candidates,
    capability_architecture,
    cut_prefix,
    family_of,
    lookup,
    nvlink_links_of,
    on_nvswitch,
    sold_bridged,
)
from stackaudit.pci_address import normalize_bdf
from stackaudit.versions import release

KERNEL_OPEN = "https://download.nvidia.com/XFree86/Linux-x86_64/560.35.03/README/kernel_open.html"
GSP_README = "https://download.nvidia.com/XFree86/Linux-x86_64/560.35.03/README/gsp.html"
XID_CATALOGUE = "https://docs.nvidia.com/deploy/xid-errors/"
MINOR_COMPAT = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"


# --- shared by the GPU checks (MEM, PWR import these) --------------------------------------------


def gpu_list(nvidia: NvidiaGpus | None) -> list[GpuInfo] | Outcome:
    """The GPUs to judge (per-GPU state from the nvidia fact), or the outcome when there are none.

    `nvidia.none_on_bus` is the nvidia fact's own answer when it found the PCI bus empty (it then
    asks neither NVML nor nvidia-smi); checks that only need to know whether the host has GPUs take
    the `gpus` inventory instead.
    """
    if nvidia is None:
        return unknown("no NVIDIA GPU information in this source",
                       hint="install nvidia-ml-py, or paste `nvidia-smi -q -x`")
    if nvidia.none_on_bus:
        return not_applicable("no NVIDIA GPU on the PCI bus")
    gpus = [g for g in nvidia.gpus if not g.error]
    if not gpus:
        lost = [g.label for g in nvidia.gpus if g.error]
        return unknown(f"no GPU could be read ({', '.join(lost)})" if lost else "the source lists no GPU",
                       hint="check the driver (`nvidia-smi`) and the kernel log for Xid 79")
    return gpus


def no_gpu_information() -> Outcome:
    """A check that reads the daemons without GPUs only where they are in the source: else it is judged as if
    the nvidia fact were required (the engine gives its reason)."""
    return unknown("no NVIDIA GPU information in this source", hint="install nvidia-ml-py, or paste `nvidia-smi -q -x`",
                   needs="nvidia")


def gpu_total(nvidia: NvidiaGpus) -> int | None:
    """How many GPUs the host has by the nvidia fact: its listing where it is whole, else `Attached GPUs`; None when
    neither says (a table cut part-way, a section without its header, a header line with no GPU row: a listing of
    none counts nothing). The engine may know better (`gpus`)."""
    if not nvidia.gpus and not nvidia.attached:
        return None
    if not nvidia.unshown:
        return len(nvidia.gpus)
    return max(nvidia.attached, len(nvidia.gpus)) if nvidia.attached else None


def over_gpus(nvidia: NvidiaGpus, judged: Sequence[GpuInfo], outcome: Outcome, ask: str = "nvidia-smi -q") -> Outcome:
    """The coverage rule (`over_subjects`) for a check over the nvidia fact's GPUs: `judged` are the GPUs whose value
    the check read; a GPU listed without it is blind. `ask` is the command that shows the value for every GPU."""
    shown = [g.subject for g in judged]
    blind = [g.subject for g in nvidia.gpus if not g.error and g.subject not in shown]
    total = gpu_total(nvidia)
    if total is None and nvidia.unshown and outcome.status != "issue":
        # Why the count is not known (a table cut inside a GPU's rows) is part of what the verdict covers.
        outcome = replace(outcome, message=f"{outcome.message} ({nvidia.unshown})")
    return over_subjects(outcome, shown, total, ask=ask, blind=blind)


def ok_over_gpus(nvidia: NvidiaGpus, judged: Sequence[GpuInfo], message: str, *, actual: Any = None,
                 ask: str = "nvidia-smi -q") -> Outcome:
    """`ok` over the GPUs judged, with their coverage (`K of N shown`; the rule in `over_subjects`)."""
    return over_gpus(nvidia, judged, ok(message, actual=actual, subjects=[g.subject for g in judged]), ask)


def is_blackwell(gpu: GpuInfo) -> bool:
    spec = gpu.spec
    return "blackwell" in (gpu.architecture or "").lower() or (spec is not None and spec.architecture == "Blackwell")


def gpu_indices(gpus: list[GpuInfo]) -> str:
    """`0,2,5`: the GPUs' indices, for a message."""
    return ",".join(str(g.index) for g in gpus)


def nvswitch_present(pci: PciDevices | None) -> bool | None:
    """NVSwitch bridges (NVIDIA, class 0x0680) on the PCI bus; None when the bus is not visible."""
    if pci is None:
        return None
    return any(d.vendor == NVIDIA_VENDOR and d.pci_class.startswith("0x0680") for d in pci.devices)


# Boards that join SXM modules by direct NVLinks, with no NVSwitch, hold at most four GPUs: the 4-GPU HGX A100, H100
# and H200 boards (https://www.nvidia.com/en-us/data-center/hgx/). Blackwell HGX boards (B200, B300) hold eight GPUs
# on NVLink switch chips, and no board joins them without one (the same page); a Grace rack's trays are `rack`.
_DIRECT_BOARD_MOST = 4
# The name NVIDIA's driver gives a GPU whose device id its own name table lacks (a board newer than the driver, or one
# sold under no public name; lmdeploy's check_env lists eight so in corpus 2924): no model, so neither its board nor
# whether that board has NVSwitches is shown.
UNNAMED_GPU = re.compile(r"^(?:NVIDIA\s+)?Graphics Device$", re.I)
_SWITCH_ONLY_ARCHITECTURES = ("Blackwell",)


def _one_row(name: str) -> GpuSpec | None:
    """The GPU table's row for a name that means one model only (`NVIDIA H100 80GB HBM3`, not `H100`); a name the
    table cut means the one row whose product name starts with what it shows (`NVIDIA H100 80GB...`: the H100 SXM's
    `NVIDIA H100 80GB HBM3`, as the PCIe card is `NVIDIA H100 PCIe`), and nothing where several rows' names do."""
    if cut_prefix(name) is not None:
        rows = candidates(name)
        return rows[0] if len(rows) == 1 else None
    try:
        match = lookup(name)
    except (UnknownGpuError, GpuTableError):
        return None
    return None if match.alternatives else match.spec


def nvswitch_board(models: Sequence[str], topo: TopoMatrix | None = None) -> str:
    """Why the GPUs CUDA listed (`models`, by CUDA index) or the topology matrix show an NVSwitch board, in words; ""
    where they do not.

    - every GPU listed is of one model whose table row is an NVSwitch (SXM) part, not a Grace rack's tray (whose
      Fabric Manager runs on the switch trays), and the list holds more GPUs than a board without NVSwitch holds
      (_DIRECT_BOARD_MOST), or the model is of an architecture no such board carries; or
    - the topology matrix's whole rows bond more NVLinks than any GPU has (TopoMatrix.nvlink_fabric: NV12 to each of
      seven A100s, NV18 to each of seven H100s), which only NVSwitches give, and no GPU listed is a rack's.
    A 4-GPU HGX A100/H100/H200 list, an ambiguous name (`NVIDIA H100`), a cut name several rows' product names start
    with and a vGPU profile say nothing.
    """
    specs = [_one_row(m) for m in dict.fromkeys(models)]
    rack = any(s is not None and s.family == "rack" for s in specs) or any(
        re.search(r"\bGB[23]00\b", m) for m in models)
    names = {s.name for s in specs if s is not None and s.nvlink_kind == "switch"}
    spec = next(s for s in specs if s is not None) if len(names) == 1 and None not in specs \
        and len({s.name for s in specs if s is not None}) == 1 else None
    if rack:
        return ""
    if spec is not None and len(models) > _DIRECT_BOARD_MOST:
        return (f"{len(models)} {models[0]} ({spec.name}, an NVSwitch baseboard's part; a board without NVSwitch "
                f"holds at most {_DIRECT_BOARD_MOST})")
    if spec is not None and spec.architecture in _SWITCH_ONLY_ARCHITECTURES:
        return f"{len(models)} {models[0]} ({spec.name}: every {spec.architecture} HGX board is an NVSwitch board)"
    if topo is not None and topo.nvlink_fabric():
        row = max(topo.whole_rows(), key=lambda g: sum(topo.nvlink_peers(g).values()))
        return (f"GPUs whose topology row {row} bonds {sum(topo.nvlink_peers(row).values())} NVLinks to its peers, "
                "more than any GPU has, so through NVSwitches")
    return ""


# The program whose CUDA ran (facts/cuda_ran.Ran.program) and the engines that run it, for a command's TP x PP.
_RUNS_ON = {"TensorRT-LLM": ("trtllm",), "torch": ("vllm", "sglang", "trtllm")}


def _run_models(proof: Ran, gpus: GpuInventory | None, parallelism: Parallelism | None) -> tuple[list[str], str]:
    """The GPUs a CUDA program ran on where its own lines do not list them, and how the source shows them: the one
    model the source names (`GPU: Nvidia H20 96GB`), as many as the TP x PP of the pasted engine command whose run
    the program's lines are (TensorRT-LLM's ledger under `trtllm-serve --tp_size 8`), else two at least where the
    work crossed NVLink between GPUs (Ran.peers: CUDA's NVLink error, corpus 2271); ([], "") where it does not."""
    engine = parallelism.from_log if parallelism is not None else None
    named = list(dict.fromkeys(g.model for g in (gpus.gpus if gpus is not None else ()) if g.model))
    if proof.peers and len(named) == 1 and (engine is None or engine.world_size < 2):
        return [named[0]] * 2, f"the {named[0]} the source names, two at least: the work crossed NVLink between GPUs"
    if engine is None or engine.world_size < 2 or len(named) != 1 or engine.engine not in _RUNS_ON.get(
            proof.program, ()):
        return [], ""
    return [named[0]] * engine.world_size, (f"the {named[0]} the source names, as many as the {engine.engine} "
                                            f"command's TP x PP of {engine.world_size}")


# The most bus bandwidth (GB/s) a collective reaches off an NVSwitch fabric: the per-direction NVLink of the widest
# bridge (H200 NVL's 4-way bridge, 900 GB/s both ways: gpus.toml), above any PCIe path (Gen5 x16: 63 GB/s) or NIC per GPU
# (800 Gb/s: 100 GB/s). An nccl-tests all-reduce's busbw is bounded by the per-direction link it crosses.
OFF_SWITCH_BUSBW_MOST = 450.0


def collective_on_fabric(data_tests: P2pDataTests | None, gpus: GpuInventory | None) -> str:
    """Why an nccl-tests run shows a live NVSwitch fabric, in words; "" where it does not: a run whose result rows
    were checked with 0 wrong elements at a bus bandwidth above OFF_SWITCH_BUSBW_MOST, which only NVLink through
    NVSwitches carries (on an HGX board, or a GB200/GB300 rack's NVLink switch trays across its compute trays), on
    NVIDIA GPUs (no other vendor's GPU shown: AMD's xGMI prints the same rows through rccl-tests). Such a fabric moves
    data only after its Fabric Manager (the node's, or the switch trays') has configured it (corpus 1407)."""
    if data_tests is None or (gpus is not None and gpus.others):
        return ""
    runs = [t for t in data_tests.tests if t.program == "nccl-tests" and t.passed and t.busbw > OFF_SWITCH_BUSBW_MOST]
    if not runs:
        return ""
    best = max(runs, key=lambda t: t.busbw)
    return (f"nccl-tests checked its results with 0 wrong elements at {best.busbw:.2f} GB/s bus bandwidth "
            f"(\"{best.line}\"), more than anything but NVLink through NVSwitches carries (a bridge's NVLink at most "
            f"{OFF_SWITCH_BUSBW_MOST:.0f} GB/s per direction, PCIe and the network far less): the NVSwitch fabric was "
            "up, which it is only once its Fabric Manager has configured it")


def cuda_ran_on_nvswitch(collect_env: CollectEnv | None, topo: TopoMatrix | None = None,
                         cuda_ran: CudaRan | None = None, gpus: GpuInventory | None = None,
                         parallelism: Parallelism | None = None) -> tuple[str, list[str]]:
    """Why a CUDA program that ran (facts/cuda_ran.py: an nvbandwidth test, p2pBandwidthLatencyTest's peer answers, a
    collect_env's torch initialising CUDA)
    shows the NVSwitch fabric that Fabric Manager had set up, in words, with the GPUs it shows; ("", []) where the
    source does not show it.

    On an NVSwitch board CUDA refuses every GPU with cudaErrorSystemNotReady (802, "system not yet initialized")
    until Fabric Manager has configured the fabric (FM_GUIDE; symptoms.CUDA_ERRORS): torch then warns "Error 802:
    system not yet initialized" and reports CUDA unavailable (https://github.com/dstackai/dstack/issues/2348, eight
    A100 or H100 on AWS and OCI with Fabric Manager stopped). So CUDA at work on GPUs of an NVSwitch board
    (nvswitch_board) proves the fabric up. On as many SXM GPUs as a board without NVSwitch holds (four A100, H100,
    H200 or H20), CUDA at work shows either that board, which needs no Fabric Manager, or an NVSwitch board whose
    fabric is up: ok either way, and so on two or more GPUs the driver names by no model (UNNAMED_GPU, `NVIDIA
    Graphics Device`); a name the paste cut inside its last line (`NVIDIA H...`) is the full name beside it
    that it begins (_full_names, corpus 1852). The evidence that names its GPUs is read first (ollama's `inference
    compute` lines before its free-memory line, corpus 1927). Not on one GPU: a one-GPU partition of an NVSwitch board (a VM's) runs with its
    NVLinks off, so CUDA starting there proves no fabric. A refused start in the same source wins (CudaRan.failed); not under WSL 2, whose
    GPU the Windows host drives.
    """
    if collect_env is not None and wsl_kernel(collect_env.kernel):
        return "", []
    proof = cuda_ran.proof(with_report=True, with_held=True) if cuda_ran is not None else None
    if proof is None:
        return "", []
    proof = next((r for r in cuda_ran.ran if r.models), proof) if cuda_ran is not None else proof
    models, run = (list(proof.models), "") if proof.models or topo is not None else _run_models(proof, gpus,
                                                                                               parallelism)
    if cuda_ran is not None and cuda_ran.recovered:
        on = f" on {', '.join(dict.fromkeys(models))}" if models else ""
        return (f"CUDA refused to start earlier with error 802 ('{cuda_ran.recovered[0]}'), which it gives only on an "
                f"NVSwitch system whose fabric Fabric Manager has not set up, and ran after it: {proof.did}{on} "
                f"('{proof.line}'): the fabric is up now"), [f"GPU {i}" for i in proof.devices]
    if not models and topo is None:
        return "", []
    board = nvswitch_board(models, topo)
    said = f"{proof.did} ('{proof.line}'" + (f"; its GPUs: {run})" if run else ")")
    shown = [f"GPU {i}" for i in proof.devices if not run] or [
        f"GPU {gpu_index(g)}" for g in (topo.gpus if topo is not None else ())]
    if board:
        return (f"{said} on {board}: CUDA refuses every GPU of an NVSwitch board (error 802, 'system not yet "
                "initialized') until Fabric Manager has set up the fabric"), shown
    if len(models) >= 2 and all(UNNAMED_GPU.match(m) for m in models):
        return (f"{said} on {len(models)} GPUs the driver names only '{models[0]}', no model: on an NVSwitch board "
                "CUDA refuses every GPU (error 802) until Fabric Manager has set up the fabric, and any other board "
                "needs no Fabric Manager"), shown
    specs = [_one_row(m) for m in dict.fromkeys(_full_names(models))]
    rows = {s.name: s for s in specs if s is not None}
    spec = next(iter(rows.values())) if len(rows) == 1 and None not in specs else None
    if (spec is not None and spec.nvlink_kind == "switch" and spec.family != "rack"
            and not re.search(r"\bGB[23]00\b", models[0]) and 2 <= len(models) <= _DIRECT_BOARD_MOST):
        return (f"{said} on {len(models)} {models[0]} ({spec.name}, an SXM part): either a board of at most "
                f"{_DIRECT_BOARD_MOST} joined by direct NVLinks, which needs no Fabric Manager, or an NVSwitch board, "
                "where CUDA refuses every GPU (error 802) until Fabric Manager has set up the fabric"), shown
    return "", []


def _full_names(models: list[str]) -> list[str]:
    """The models of one program's device list with each cut name (`NVIDIA H...`, a paste cut inside its last line,
    corpus 1852) read as the full name beside it that it begins; a cut name that begins none, or more than one, stays."""
    full = [m for m in models if cut_prefix(m) is None]
    read = []
    for m in models:
        prefix = cut_prefix(m)
        begun = {f for f in full if prefix is not None and f.lower().startswith(prefix.lower())}
        read.append(begun.pop() if len(begun) == 1 else m)
    return read


# --- DRV-CUDA-COMPAT ---------------------------------------------------------------------------

# Minimum Linux driver per CUDA major for minor-version compatibility (MINOR_COMPAT table).
_DRIVER_FLOOR = {11: (450, 80, 2), 12: (525, 60, 13), 13: (580, 0, 0)}


# The month each CUDA major's first release came out, from its first day (a run dated in that month counts the major
# as out): CUDA 11.0 in July 2020, 12.0 in December 2022, 13.0 in August 2025 (https://developer.nvidia.com/
# cuda-toolkit-archive). A run dated before a major's month could load no runtime of it.
_MAJOR_SINCE = {11: "2020-07-01", 12: "2022-12-01", 13: "2025-08-01"}


# The engines' keys in the words a message uses; "torch" is the PyTorch words' (facts/engine_command).
_ENGINE_WORDS = {**ENGINE_NAMES, "torch": "the PyTorch program"}


def newest_major_on(day: str) -> int | None:
    """The newest CUDA major released by `day` (YYYY-MM-DD, _MAJOR_SINCE); None for a day before the table's first."""
    return max((major for major, since in _MAJOR_SINCE.items() if since <= day), default=None)


def _dated_runtimes(day: str, line: str, driver_major: int, runs: str, program: str) -> str:
    """Why a driver of CUDA major `driver_major` runs whichever runtime `program` shipped, for a run its log dates
    `day`: no CUDA major newer than the newest released by that day existed, and the driver runs every runtime of its
    major and the older ones. "" where the day does not settle it. `runs` names the driver in words."""
    newest = newest_major_on(day)
    if newest is None or driver_major < newest:
        return ""
    after = min((m for m in _MAJOR_SINCE if m > newest), default=None)
    before = f", before CUDA {after}.0 came out ({_MAJOR_SINCE[after][:7]})" if after is not None else ""
    return (f"the paste dates the run {day} (\"{line}\"){before}: every CUDA runtime {program} could ship then was "
            f"{newest}.x or older, and {runs} runs them (an older major directly, a newer {newest}.x minor by "
            "minor-version compatibility)")


def runs_every_runtime(driver: tuple[int, ...]) -> bool:
    """Whether a driver runs every CUDA runtime of every major _DRIVER_FLOOR knows, whichever one a program ships.

    A driver runs the runtimes of older majors (a newer driver runs an older runtime, CUDA compatibility's
    backward compatibility), and those of its own major by minor-version compatibility (MINOR_COMPAT) from the
    major's floor. A driver at or above the floor of the newest major known thus runs them all."""
    return bool(driver) and driver >= _DRIVER_FLOOR[max(_DRIVER_FLOOR)]


def _forward_compat(driver: str, nvidia: NvidiaGpus | None, collect_env: CollectEnv | None,
                    torch_cuda: Sequence[str], toolkit: CudaToolkit | None = None,
                    gpus: GpuInventory | None = None) -> tuple[list[str], bool | None]:
    """What shows CUDA running above the driver branch's own version, and whether the GPUs allow it.

    The first item is the evidence: the nvidia-smi header's CUDA at or above the next branch's (nvidia-smi reports the
    libcuda it loaded, and the forward-compatibility package's is newer than the driver's), or a collect_env
    in which torch initialised CUDA ("Is CUDA available: True", check_env's "CUDA available: True": corpus 2810) for a
    CUDA above the branch's.
    The second is the GPUs' family verdict (gputable.Family.forward_compat): False where one of them cannot use
    the package, True where every one can, None where the names do not settle it.
    """
    dv = release(driver)
    branch = cuda_of_branch(dv)
    # The CUDA of the next branch the table knows: a header that reaches it is not this branch's own (a branch
    # above the table's last row may report any newer CUDA, so it shows nothing).
    later = [cuda for first, cuda in BRANCH_CUDA if dv and first > dv[0]]
    if branch is None:
        return [], None
    shown: list[str] = []
    # Where no table is shown, nvidia-smi's header the paste copies (a list's flattened header: CudaToolkit.header).
    header = nvidia.cuda_version if nvidia is not None else (
        toolkit.version if toolkit is not None and toolkit.header else None)
    if header and later and release(header, 2) >= release(later[-1], 2):
        shown.append(f"the nvidia-smi header reads CUDA {header} on driver {driver}, whose branch's own CUDA is "
                     f"{branch}: nvidia-smi reports the libcuda it loaded, the forward-compatibility package's")
    newer = [c for c in torch_cuda if release(c, 2) > release(branch, 2)]
    if collect_env is not None and collect_env.cuda_initialised and newer:
        said = "'Is CUDA available: True'" if collect_env.values.get("Is CUDA available") == "True" else \
            "check_env: 'CUDA available: True'"
        shown.append(f"torch initialised CUDA {newer[0]} on driver {driver} ({said}), which only the "
                     "forward-compatibility package allows")
    names = set(nvidia.names if nvidia is not None else ()) | set(collect_env.gpu_models if collect_env else ()) \
        | (set(gpus.models.values()) if nvidia is None and gpus is not None else set())
    verdicts = {f.forward_compat if f is not None else None for f in (family_of(n) for n in names)}
    allowed = False if False in verdicts else (True if verdicts == {True} else None)
    return shown, allowed


@check(
    "DRV-CUDA-COMPAT",
    applies_to="nvidia-gpu",
    title="Driver too old for the CUDA runtime shipped with torch/vLLM/SGLang",
    severity="high",
    confidence="documented",
    fix=advice("Upgrade the host driver (stop every GPU process first; data-center: the recommended production "
                   "branch), or install a build of the engine (and its torch) for an older CUDA", cost="driver-reload",
                   keep=keep_text("on data-center GPUs, `cuda-compat-<major>-<minor>` in the container",
                                  label="forward compatibility")),
    references=(MINOR_COMPAT, "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html",
                "https://pytorch.org/blog/pytorch-2-7/"),
)
def cuda_compat(nvidia: NvidiaGpus | None = None, nvidia_driver: NvidiaDriver | None = None,
                python_env: PythonEnv | None = None, gpus: GpuInventory | None = None,
                collect_env: CollectEnv | None = None, ollama_cuda: OllamaCuda | None = None,
                serving_log: ServingLog | None = None, cuda_toolkit: CudaToolkit | None = None,
                docker_containers: DockerContainers | None = None,
                engines_shown: EnginesShown | None = None, ollama_shown: OllamaShown | None = None,
                p2p_bandwidth: P2pBandwidth | None = None, cuda_ran: CudaRan | None = None,
                cuda_runtime: CudaRuntime | None = None, log_date: LogDate | None = None,
                l4t_release: L4tRelease | None = None,
                container: ContainerInfo | None = None) -> Outcome:
    """Reads: the driver version (/proc/driver/nvidia/version, NVML, `nvidia-smi`, the kernel log's
    NVRM banner, a pasted collect_env, the user's sentence naming it: `Im on version 535.104.05`), the highest CUDA the
    driver supports, torch's CUDA
    (`torch/version.py` of the serving engine's Python, else a pasted collect_env, else a hardware list's
    `PyTorch: 2.8.0+cu128`, a Hugging Face environment report's `- PyTorch version (GPU?): 2.3.1+cu121 (True)`, or the
    engine image it names, `lmsysorg/sglang:v0.5.12-cu130`), and the GPU
    architecture; where no torch is shown, ollama's discovery lines (the driver's CUDA, `driver=12.2`, and
    the CUDA runner it chose or ships); where neither, NCCL's init lines (the CUDA it was built for,
    `NCCL version 2.21.5+cuda11.8`, beside the driver's, `cudaDriverVersion 12000`: an NCCL built for CUDA 11.3 or
    newer under a driver below 11.3 is an issue, minor-version compatibility or not, as NCCL loads the driver API
    through cudaGetDriverEntryPoint, a CUDA 11.3 call, and holds its floor there; an NCCL built for CUDA 11, which
    ships in torch's CUDA 11 wheels, beside a Blackwell GPU a program lists (torch's capability warning, nvidia-smi) is
    an issue: no CUDA 11 build has Blackwell code); where none of these, llama.cpp's
    own lines of a buffer it allocated on a CUDA device (`CUDA0 model buffer size = 511.43 MiB`), or of the memory it
    read of one (its `device_info:` list, `- CUDA0 : NAME (15838 MiB, 15000 MiB free)`, its memory breakdown at exit,
    `llama_memory_breakdown_print: |   - CUDA0 (RTX 3070 Laptop GPU) |  7819 = 13435 + ...`), or its
    `ggml_cuda_init` list of the devices it found with their compute capability: its CUDA runtime ran on the
    driver, ok over those devices. Where no torch is shown, NVIDIA's nvbandwidth: before v0.5 its header's `CUDA
    Runtime Version: 12010` against `CUDA Driver Version: 12000` (the rule for NCCL's pair); from v0.5 it prints the
    driver's CUDA on both lines (nvbandwidth.cpp hands addCudaAndDriverInfo the one variable cuDriverGetVersion set
    last, https://github.com/NVIDIA/nvbandwidth), so a test whose copies ran (a matrix, or a data check after a copy)
    is what shows its runtime running on the driver (ok).
    Where no torch is shown, an engine release whose builds ship more than one CUDA (a list's `vLLM 0.2.7`: CUDA 12.1
    on PyPI, 11.8 beside it) is ok on a driver at the floor of the newest one's major, whichever build is installed.
    A system toolkit before CUDA 11 is set against the driver NVIDIA lists for its release (nvcc's `V8.0.61`: 375.26).
    Where the runtime is not shown (with or without the driver), a CUDA program's own lines of its context at work
    (facts/cuda_ran.py: torch's out-of-memory message `GPU 0 has a total capacity of 94.97 GiB of which ...`, a quote
    cut after the total too, before torch 2.1 `CUDA out of memory. Tried to allocate 448.00 MiB (GPU 0; 23.65 GiB total
    capacity; ...`, a kernel's own fault on the GPU (`CUDA error: an illegal memory access was encountered`, a
    device-side assert; not the catch-all `unspecified launch failure`), TensorRT's `[MemUsageChange] Init CUDA: ...
    now: CPU 126, GPU 262 (MiB)`, vLLM's start-up check `Free memory on device cuda:3 (173.8/178.35 GiB) on startup is
    less than desired GPU memory utilization`, a tensor
    torch printed on a CUDA device (`tensor([1., 2., 3.], device='cuda:0')`, where no line shows its ROCm build),
    TensorRT-LLM's executor ledger and its cluster info's SM count (`[TRT-LLM] [I] SM count: 170`, read through
    CUDA's runtime), an nvbandwidth test, llama.cpp's count of the devices its runtime found (`ggml_cuda_init: found 3
    CUDA devices:`, where the paste is cut before the device lines), MLC LLM's device probe finding a CUDA device
    (`Found device: cuda:0`), ollama's discovery through its bundled runtime
    (`Nvidia GPU detected via cudart`), ollama's `--verbose` decode with every model `ollama ps` lists `100% GPU` at
    a pace no CPU's memory feeds (its rate times the model's size above 300 GB/s: `100% GPU` alone is a placement),
    vLLM's metrics line generating tokens (`Avg generation throughput: 45.5 tokens/s`, vLLM 0.1's `Throughput: 181.6
    tokens/s`, with its GPU KV cache, a usage that rounds to 0.0% included) and SGLang's decode batch line with a
    request running (`#running-req: 1010, ... gen throughput (token/s): 1397.13`),
    DCGM's nvvs memory test passing on a GPU (`Memory GPU0 ..... PASS`), Triton's CUDA memory pool created on a
    device (`CUDA memory pool is created on device 0 with size 67108864`), and a report's torch initialising CUDA
    (`Is CUDA available: True`, lmdeploy's `CUDA available: True`, a Hugging Face environment report's torch of a CUDA
    wheel answering `(True)`) beside its whole driver line or with none shown)
    are ok for the runtime that ran: one too new for the driver fails at its first call (error 35). A refused start
    in the same source (35, 802, 803, 804) wins.
    A CUDA error that the driver cannot JIT the program's PTX (`cudaErrorUnsupportedPtxVersion`) is an issue whatever
    else is shown (facts/symptoms.py): PTX of a newer toolkit needs that toolkit's driver branch.
    So is a CUDA call refused as newer than the driver (`API call is not supported in the installed CUDA driver`,
    cudaErrorCallRequiresNewerDriver, as NCCL's WARN line prints it), which minor-version compatibility does not cover.
    A log line `CUDA driver version is insufficient for CUDA runtime version` is an issue whatever else is shown
    (facts/symptoms.py), save beside NVIDIA's image banner `The NVIDIA Driver was not detected` in the same paste:
    cudart gives that error where it loads no driver library at all, so the line tells no driver's version (unknown).
    So it is where every container shown is a whole `docker run` or compose service with no GPU request and no runtime
    but runc (`docker run ... nvcr.io/nvidia/tritonserver:22.08-py3`, no --gpus) and no driver is shown (an NGC
    entrypoint's warning naming the driver it found counts as one): no driver library is mounted there.
    A program's `undefined symbol: cuGreenCtxDestroy` (the green-context driver API, new in CUDA 12.4's driver, R550)
    is an issue too: minor-version compatibility does not cover it.

    Bad value: a CUDA 12.x runtime with a driver below 525.60.13, CUDA 13.x below 580; a torch
    CUDA major newer than the driver's; Blackwell GPUs with a driver below R570 or torch built for
    CUDA below 12.8.

    Why: minor-version compatibility lets a CUDA 12.x program run on any >= 525 driver (PTX JIT of
    newer PTX fails); across majors only the forward-compatibility package works, and only on
    data-center GPUs. The engine fails at start with `CUDA driver version is insufficient`.

    Traps: the `CUDA Version` in the `nvidia-smi` header is the highest the driver supports, not the
    toolkit in use, so an older runtime under it is fine (ok, the message says why). A newer runtime of the same
    major above the driver floor runs by minor-version compatibility (not an issue); minor-version compatibility began
    with CUDA 11, so a torch built for a CUDA 10.x (or older) newer than the driver's is an issue (torch 1.3.1's CUDA
    10.1 on R410, CUDA 10.0: it needs 418.39, TOOLKIT_BUILD_DRIVER). A system `nvcc` is
    irrelevant unless something JIT-compiles. ollama picks its CUDA runner from the driver's CUDA
    (OLLAMA_RUNNER_BY_DRIVER), so its probe's driver CUDA of 12.1 or newer is ok without the runner named, and so is
    the driver's CUDA nvidia-smi reported beside ollama shown, the driver's version not (its header copied under a
    branch, `Driver Version: 552.xx` over `CUDA Version: 12.4`; a list's `CUDA 12.4 reported by nvidia-smi`).
    An ollama image of any tag under a driver for CUDA 12.1 or newer is ok for the same reason, and so is ollama
    shown otherwise (a `docker ps` row, its own journal or log lines, its own `ollama ps` table, the user's words, its
    client typed at a prompt: `$ ./ollama ps`).
    An ollama image tag of 0.9.3 or later (no CUDA v11 runner) under a driver for CUDA 12.0 or older is an issue:
    ollama serves from the CPU there; `ollama -v`'s release (`ollama version is 0.6.0`) counts as an image tag's.
    So does the release its server's log names as it starts (`Listening on 127.0.0.1:11434 (version 0.1.20)`).
    NVIDIA's CUDA image names its runtime in its tag (`nvidia/cuda:11.0.3-base-ubuntu20.04`, a CUDA sample's
    `cuda-sample:vectoradd-cuda10.2-ubi8`), and so do a container's CUDA_VERSION and NVIDIA_REQUIRE_CUDA and the
    images' start banner (`CUDA Version 12.8.1`), wherever the source shows them, an image named in prose too,
    and an engine image whose tag suffix names torch's CUDA (`lmsysorg/sglang:v0.4.8-cu126`, each of an upgrade's
    two), any other image whose tag holds torch's wheel label as a word of its own (`yanwk/comfyui-boot:cu124-cn`: 12.4),
    PyTorch's image whose tag names torch's CUDA (`pytorch/pytorch:2.0.0-cuda11.7-cudnn8-runtime`), and Text
    Generation Inference's image of a release, whose Dockerfile at that tag pins torch's CUDA
    (`ghcr.io/huggingface/text-generation-inference:2.0.4`: 12.1; facts/docker.TGI_CUDA), as its router's /info JSON
    names it too: its `"version"` with a `"docker_label"` that is not null (TGI's own image; corpus 1332)
    (facts/cuda_ran.CudaRuntime): at or below the driver's CUDA it is ok. Above it, the container toolkit's requirement check decides, and the message says why;
    where a CUDA program's run is shown beside it (facts/cuda_ran.py), the container started, and a runtime of the
    driver's major above the floor is not an issue (corpus 2742);
    where NVIDIA's image (or TGI's, built on one) lets the driver's branch through for every brand (CUDA 11.8's R470,
    facts/docker.REQUIRE_CUDA_EVERY_BRAND) and its runtime is of the driver's major above the floor, not an issue.
    A hardware list's bare `CUDA Version: 12.3` above the driver branch's CUDA is the CUDA in use (nvidia-smi
    shows the branch's own): of the same major above the floor, not an issue. At or below the driver's highest CUDA, a
    CUDA the user's list or a template's field states (`cuda: 12.3`, `Cuda:12.4`, a bare `CUDA 12.8`, the last item of
    a line of items: `nvidia 2080  drivier-version 430.64  cuda 10.0`, a form's line pairing libraries with their
    versions: `Versions of TensorRT, CUDA: (10.0.1, 12.4)`) is the CUDA the user runs: ok, as where no program shows a runtime; nvidia-smi's header copied one field a line (`CUDA Version:`
    under `Driver Version:`) is the driver's figure, not a runtime (unknown). So is its header flattened onto a list's
    line (`- Software: NVIDIA-SMI 535.129.03 Driver Version: 535.129.03 CUDA Version: 12.4`), which above the branch's
    own CUDA shows the forward-compatibility libcuda, as the table's header does. collect_env's `CUDA runtime version` is that system toolkit, not
    torch's runtime. A toolkit newer than the driver's CUDA under a torch runtime the driver covers is not an issue
    on collect_env's 'CUDA runtime version' line, and ok on check_env's NVCC line (which names it a compiler). NVIDIA's vGPU host driver on a hypervisor (`vGPU Driver Capability`,
    `Host VGPU`) prints `CUDA Version: Not Found`: CUDA runs in the guests (not an issue). A header reading
    `CUDA Version: ERR!` (nvidia-smi could not load libcuda to ask it; under WSL 2 the one in /usr/lib/wsl/lib) over
    a driver whose branch's CUDA is known, with no runtime shown, is no version gap (not an issue).
    A header reading `CUDA Version: N/A` with no runtime shown is nvidia-smi finding no libcuda at all (a driver installed
    without its compute libraries, or a vGPU host driver where CUDA should run, a Kubernetes node's validator, corpus
    1293): no CUDA program runs there (issue).
    An engine shown without its CUDA runtime (its command, a serving container's image or command, the user's words)
    is ok on a driver at or above the floor of the newest CUDA major (runs_every_runtime): that driver runs any
    runtime the engine may ship; so is the program of any container given GPUs (`docker run --gpus all
    linuxserver/ffmpeg`), whichever runtime it ships or none; not a bare shell's (`docker run --gpus all IMAGE bash`
    runs what the user types) nor diagnostics' (nvidia-smi), which show no CUDA program.
    An engine release whose CUDA major its release notes name (TensorRT-LLM 0.9 to 1.1: CUDA 12, from a list, `pip
    list` or the version line its import prints; facts/python_env.RELEASE_CUDA_MAJOR) is ok on a driver at or above
    that major's floor, whichever minor it loads, and an issue below it.
    Where the paste dates the run (a log's timestamps with a year, else nvidia-smi's date line) before a CUDA major
    came out (13.0: August 2025), no
    runtime of that major existed: a driver for the newest major released by then (NCCL's `cudaDriverVersion 12080`,
    or a driver at that major's floor under an engine shown) runs whichever runtime the program shipped (ok).
    Without an engine shown, there is no runtime to judge (unknown).
    On a Jetson the board's L4T release carries the GPU driver and its CUDA (facts/gpus.L4tRelease: jtop's `L4T:
    36.4.0`, /etc/nv_tegra_release): a container image built for an L4T release of the same major
    (jetson-containers' `dustynv/vllm:0.6.3-r36.4.0`, NVIDIA's `l4t-pytorch:r35.2.1-...`: facts/docker.l4t_image_release)
    is ok without a driver version shown.
    An NGC image's start banner (`NVIDIA Release 21.10 (build 28453983)`) shown to its end (a line of the command it
    starts after its own lines: facts/docker.ngc_banner_ended) with the server's own log is ok too: the
    image's entrypoint compares the driver with the image's CUDA before it starts the server, and prints an ERROR
    (`This container was built for NVIDIA Driver Release ...`), a forward-compatibility NOTE or a WARNING that no
    driver was detected where the driver falls short; none of those shown, the check passed.
    That entrypoint's minor-version WARNING (`Using driver version 495.29.05 which has support for CUDA 11.5.`, `was
    built with CUDA 11.6 and will be run in Minor Version Compatibility mode.`) names the driver and the image's
    CUDA: with no other driver shown (nvidia-smi's own header naming the same one is no other), one major with the
    driver at or above that major's floor is not an issue (corpus 1864, 1502).
    A report whose every torch is built without CUDA (`2.6.0+cpu`), whose `CUDA runtime version` finds none and whose
    package list, where printed, holds no CUDA runtime wheel shows a stack with no CUDA runtime: not applicable, where
    no engine other than vLLM or SGLang is shown (corpus 2183, _no_cuda_runtime).
    The system toolkit alone against the driver is judged over the GPUs a table lists, and needs no GPU row
    (`nvidia-smi | grep "Driver Version"`).
    CUDA's `system has unsupported display driver / cuda driver combination` (803) where no container is shown (a venv,
    a service, a shell that names none) is an issue whatever else is shown: the libcuda the program loaded is not of
    the running kernel module's version (facts/symptoms.py); inside a container it is CTR-GPU-ACCESS's (an image's
    libcuda ahead of the host's).
    """
    outcome = _cuda_compat_verdict(nvidia, nvidia_driver, python_env, gpus, collect_env, ollama_cuda, serving_log,
                                   cuda_toolkit, docker_containers, engines_shown, ollama_shown, p2p_bandwidth,
                                   cuda_ran, cuda_runtime, log_date, l4t_release)
    if (container is not None and container.in_container) or (docker_containers is not None
                                                               and bool(docker_containers.containers)):
        return outcome
    # No container shown: a line of a refused start that is the host's driver stack's (Symptom.within) proves it.
    return replace(outcome, sharpen=replace(outcome.sharpen or Sharpen(), shows=(NO_CONTAINER_SHOWN,)))


def _cuda_compat_verdict(nvidia: NvidiaGpus | None = None, nvidia_driver: NvidiaDriver | None = None,
                         python_env: PythonEnv | None = None, gpus: GpuInventory | None = None,
                         collect_env: CollectEnv | None = None, ollama_cuda: OllamaCuda | None = None,
                         serving_log: ServingLog | None = None, cuda_toolkit: CudaToolkit | None = None,
                         docker_containers: DockerContainers | None = None,
                         engines_shown: EnginesShown | None = None, ollama_shown: OllamaShown | None = None,
                         p2p_bandwidth: P2pBandwidth | None = None, cuda_ran: CudaRan | None = None,
                         cuda_runtime: CudaRuntime | None = None, log_date: LogDate | None = None,
                         l4t_release: L4tRelease | None = None) -> Outcome:
    """DRV-CUDA-COMPAT from the facts (cuda_compat without the setting its symptoms need)."""
    if gpus is not None and gpus.none_on_bus:
        return not_applicable("no NVIDIA GPU on the PCI bus")
    driver = nvidia_driver.version if nvidia_driver is not None else None
    if driver is None and "minor-driver" not in _ngc_found(cuda_runtime) and docker_containers is not None \
            and docker_containers.none_given_gpus:
        # cudart's error 35 in a container given no GPU is no driver found at all, not a driver too old; an NGC
        # entrypoint that names the driver it found (corpus 1864) shows one.
        return replace(unknown("every container shown is started with no GPU request (no --gpus, nvidia runtime or "
                               "/dev/nvidia*): CUDA's runtime there loads no driver library and reports 'CUDA driver "
                               "version is insufficient' for that, so no driver version is shown to compare",
                               hint="paste `nvidia-smi` from the host, and run the container with `--gpus all`"),
                       sharpen=Sharpen(stands=True))
    if driver is None and collect_env is not None and collect_env.driver_too_old_cuda:
        # torch itself compared them when collect_env initialised CUDA, and refused.
        cuda = collect_env.torch_cuda or "?"
        return issue(f"torch (built for CUDA {cuda}) reports the NVIDIA driver too old: it supports CUDA up to "
                     f"{collect_env.driver_too_old_cuda}", actual={"driver_cuda": collect_env.driver_too_old_cuda,
                                                                   "torch_cuda": cuda},
                     expected="driver at or above the floor of torch's CUDA major")
    has_torch = python_env is not None and any(env.torch_cuda for env in python_env.environments)
    if ollama_cuda is not None and not has_torch:
        # A verdict over the GPUs ollama's discovery lines show (the engine adds the host's count where known).
        return over_subjects(_ollama_runner(ollama_cuda, log_date), [f"GPU {i}" for i in range(len(ollama_cuda.gpus))],
                             ollama_cuda.device_count, ask="journalctl -u ollama")
    if driver is None and not has_torch and serving_log is not None and serving_log.nccl_cuda and serving_log.driver_cuda:
        return _nccl_runtime(serving_log, blackwell_listed(nvidia, gpus))
    if driver is None and not has_torch and serving_log is not None and serving_log.driver_cuda and log_date is not None \
            and (dated := _dated_runtimes(log_date.day, log_date.line, release(serving_log.driver_cuda)[0],
                                          f"a driver for CUDA {serving_log.driver_cuda}",
                                          _ENGINE_WORDS.get(serving_log.engine, "the program"))):
        # NCCL read the driver's CUDA (cudaDriverGetVersion) without naming its own build's: the run's date bounds it.
        said = f"NCCL read the driver's CUDA {serving_log.driver_cuda} (\"{serving_log.cuda_lines[0]}\")" \
            if serving_log.cuda_lines else f"the driver supports CUDA {serving_log.driver_cuda}"
        return ok(f"{said}; {dated}", actual={"driver_cuda": serving_log.driver_cuda, "dated": log_date.day},
                  evidence=[*serving_log.cuda_lines[:1], log_date.line])
    if driver is None and not has_torch and serving_log is not None and serving_log.ggml_cuda_devices:
        # llama.cpp's CUDA backend read or allocated memory on the device: its CUDA runtime runs on this driver.
        devices = serving_log.ggml_cuda_devices
        return over_subjects(ok(f"llama.cpp's CUDA backend read or allocated memory on {', '.join(devices)} "
                                f"(\"{serving_log.ggml_cuda_line}\"): the CUDA runtime it ships runs on this driver",
                                actual=list(devices), evidence=[serving_log.ggml_cuda_line]),
                             [f"GPU {d.removeprefix('CUDA')}" for d in devices], None)
    ggml = [g for g in (gpus.gpus if gpus is not None else ()) if GGML_TITLE in g.shown_by]
    if driver is None and not has_torch and ggml:
        # llama.cpp's CUDA backend read each device's properties through its runtime: the runtime runs on this driver.
        return over_subjects(ok(f"llama.cpp's CUDA backend found {len(ggml)} device(s) and read their "
                                f"properties ({GGML_TITLE}): the CUDA runtime it ships runs on this driver",
                                actual=[g.model for g in ggml]),
                             [f"GPU {g.index}" for g in ggml], None)
    ran = _cuda_ran(collect_env, python_env, cuda_ran) if driver is None else ""
    if ran:
        return ok(ran, actual={"driver": None, "cuda_initialised": True})
    # A report's torch initialising CUDA counts here too: with no driver line it is the one word on the driver.
    proof = cuda_ran.proof(with_report=True) if cuda_ran is not None else None
    if driver is None and proof is not None:
        # The program's own lines show its CUDA at work: the runtime it ships runs on the driver, whichever it is.
        return _program_ran(proof, "the driver")
    l4t_image = next(((c.image, r) for c in (docker_containers.containers if docker_containers else ())
                      if (r := l4t_image_release(c.image))), None)
    if driver is None and l4t_image is not None and l4t_release is not None \
            and l4t_image[1].split(".")[0] == l4t_release.release.split(".")[0]:
        # The board's L4T carries its driver and CUDA; an image built for the same L4T major was built on them.
        return ok(f"{l4t_image[0]} is built for L4T {l4t_image[1]}, and this Jetson runs L4T {l4t_release.release} "
                  f"(\"{l4t_release.line[:120]}\"): L4T ships the GPU driver with the board, and an image of the same "
                  "L4T major carries the CUDA that driver runs", actual={"image": l4t_image[0],
                                                                         "l4t": l4t_release.release})
    passed = _ngc_check_passed(cuda_runtime, serving_log) if driver is None else None
    if passed is not None:
        return passed
    minor = _ngc_minor_compat(cuda_runtime, driver)
    if minor is not None:
        return minor
    shown_ollama = ollama_release(docker_containers, ollama_shown) or (
        ("", "ollama (its release not read)") if engines_shown is not None and engines_shown.named == "ollama" else None)
    if driver is None and not has_torch and shown_ollama is not None and cuda_toolkit is not None \
            and cuda_toolkit.header and release(cuda_toolkit.version, 2) >= OLLAMA_RUNNER_BY_DRIVER:
        # The driver's CUDA as nvidia-smi reported it, its version not shown: ollama picks its runner from that CUDA.
        return _ollama_image(shown_ollama, "", cuda_toolkit.version)
    if driver is None:
        return unknown("the driver version is not in this source", hint="paste `nvidia-smi` or run on the host")
    dv = release(driver)
    problems: list[str] = []
    blackwell = [g for g in (nvidia.gpus if nvidia else ()) if is_blackwell(g)]
    if blackwell and dv < (570,):
        problems.append(f"Blackwell GPUs ({blackwell[0].name}) need driver R570 or newer; this is {driver}")
    torch: list[tuple[str, str]] = []
    if python_env is not None:
        torch = [(env.source, env.torch_cuda) for env in python_env.environments if env.torch_cuda]
    shown, allowed = _forward_compat(driver, nvidia, collect_env, [c for _, c in torch], cuda_toolkit, gpus)
    below: list[str] = []
    for source, cuda in torch:
        cv = release(cuda)
        floor = _DRIVER_FLOOR.get(cv[0]) if cv else None
        if floor and dv < floor:
            below.append(f"torch built for CUDA {cuda} ({source}) needs driver >= "
                         f"{_floor_text(floor)}; this is {driver}")
        if blackwell and cv and cv < BLACKWELL_CUDA:
            problems.append(f"torch built for CUDA {cuda} ({source}) has no Blackwell kernels (needs CUDA >= 12.8)")
    if below and shown and allowed is not False and not problems:
        return not_an_issue("; ".join(below) + " by minor-version compatibility, but " + "; ".join(shown)
                            + " (data-center GPUs only)", actual={"driver": driver, "torch_cuda": [c for _, c in torch]},
                            evidence=shown)
    problems = below + problems
    if problems:
        return issue("; ".join(problems), actual={"driver": driver, "torch_cuda": [c for _, c in torch]},
                     expected="driver at or above the floor of torch's CUDA major", evidence=problems)
    if not torch and shown:
        said = "; ".join(shown)
        if allowed:
            return not_an_issue(f"{said}, which these data-center GPUs support: a CUDA above the branch's runs",
                                actual={"driver": driver, "cuda": nvidia.cuda_version if nvidia else None},
                                evidence=shown)
        if allowed is False:
            return issue(f"{said}, which these GPUs do not support (forward compatibility is for data-center GPUs): "
                         "CUDA calls fail with error 804", actual={"driver": driver}, evidence=shown,
                         expected="a driver branch that supports the CUDA in use")
        return unknown(f"{said}; whether these GPUs support it (data-center GPUs and select RTX SKUs) is not in "
                       f"this source ({FORWARD_COMPAT})", actual={"driver": driver})
    stated_only = (cuda_toolkit is not None and cuda_toolkit.stated
                   and not release(cuda_toolkit.version, 2) > release(cuda_of_branch(dv) or "99", 2))
    if not torch and cuda_toolkit is not None and not problems and not stated_only:
        judged = _toolkit_only(driver, (nvidia.cuda_version if nvidia is not None else None) or cuda_of_branch(dv),
                               cuda_toolkit)
        # Over the GPUs a table lists; the one driver against the one toolkit needs none (a header line alone).
        listed = [g for g in nvidia.gpus if not g.error] if nvidia is not None else []
        return over_gpus(nvidia, listed, judged) if nvidia is not None and listed else judged
    host = vgpu_host(nvidia)
    if not torch and host:
        return not_an_issue(f"driver {driver} is NVIDIA's vGPU host (manager) driver ({host}): it runs no CUDA, so "
                            f"it reports none (`CUDA Version: {nvidia.cuda_version if nvidia else '?'}`); CUDA runs "
                            "in the guests, whose own vGPU guest driver sets the CUDA they support",
                            actual={"driver": driver, "cuda": nvidia.cuda_version if nvidia else None})
    release_shown = ollama_release(docker_containers, ollama_shown) if not torch else None
    driver_cuda = (nvidia.cuda_version if nvidia else None) or cuda_of_branch(dv)
    if release_shown is not None and (release_shown[0] or release(driver_cuda, 2) >= OLLAMA_RUNNER_BY_DRIVER):
        return _ollama_image(release_shown, driver, driver_cuda)
    images = sorted({(r.where, r.cuda) for r in (cuda_runtime.runtimes if cuda_runtime is not None else ())}) \
        if not torch else []
    if images and driver_cuda:
        # A header that names no CUDA (`CUDA Version: N/A`: no libcuda where nvidia-smi ran, as in a container the
        # toolkit gave no compute capability, corpus 2393) leaves the driver's branch to say which CUDA it supports.
        whole_driver = bool(re.match(r"\d+\.\d+", driver))
        return _image_runtime(images, driver, driver_cuda if release(driver_cuda, 2) else cuda_of_branch(dv) or driver_cuda,
                              cuda_ran.proof(with_report=whole_driver, with_launch=whole_driver)
                              if cuda_ran is not None else None)
    built = _release_runtimes(python_env) if not torch else []
    if built:
        return _release_runtime(built, driver, driver_cuda)
    builds = _release_builds(python_env) if not torch else []
    if builds and all(dv >= _DRIVER_FLOOR[major] for _, _, major in builds):
        # The release named publishes builds for more than one CUDA, the newest of a major this driver runs: whichever
        # build is installed runs (an older major directly, its own by minor-version compatibility).
        said = ", ".join(f"{name} {version}" for name, version, _ in builds)
        newest = max(major for _, _, major in builds)
        return ok(f"driver {driver} (CUDA up to {driver_cuda or '?'}) runs every CUDA runtime {said} ships: its builds "
                  f"are for CUDA {newest}.x or older, an older major run directly and a {newest}.x one by "
                  "minor-version compatibility",
                  actual={"driver": driver, "driver_cuda": driver_cuda,
                          "packages": {name: version for name, version, _ in builds}})
    # The engine shown (facts/engines_shown.py, the fact the engine-subject applicability reads too): its command,
    # else a serving container's, else its own log lines (ollama's journal lines, llama.cpp's), else ollama's discovery
    # or its own client's output (`ollama ps`, `ollama -v`), else the user's words or its client typed at a prompt.
    engine = engines_shown.named if engines_shown is not None else ""
    if not torch and engine == "ollama" and driver_cuda and release(driver_cuda, 2) >= OLLAMA_RUNNER_BY_DRIVER:
        # ollama shown without its release (a `docker ps` row, its own log line, the user's words): every release
        # picks its runner from the driver's CUDA, as for an image of any tag.
        return _ollama_image(("", "ollama (its release not read)"), driver, driver_cuda)
    if not engine:
        # A container given GPUs runs a CUDA program too (ffmpeg's `-init_hw_device cuda`, corpus 1209): whichever
        # runtime it ships, or none (the driver API alone), a driver that runs every runtime runs it.
        engine = next((f"program of GPU container {c.image or c.name}" for c in
                       (docker_containers.containers if docker_containers else ())
                       if c.gpu_requested and runs_own_program(c.argv)), "")
    if not torch and engine and runs_every_runtime(dv):
        if stated_only and cuda_toolkit is not None and not cuda_toolkit.header and driver_cuda \
                and release(cuda_toolkit.version, 2) <= release(driver_cuda, 2):
            # The user's list names the CUDA in use (`- **CUDA:** 12.8, driver 581.80`, corpus 950): it says more than
            # whichever release the engine ships.
            return _toolkit_only(driver, driver_cuda, cuda_toolkit)
        # An engine is shown, its CUDA runtime is not: whichever release it ships, this driver runs it.
        return ok(f"driver {driver} supports CUDA up to {driver_cuda or '?'}, the newest CUDA major: it runs any CUDA "
                  f"{max(_DRIVER_FLOOR) - 1}.x or older runtime, and a {max(_DRIVER_FLOOR)}.x one by minor-version "
                  f"compatibility, whichever the {engine} shown ships (its CUDA is not in this source)",
                  actual={"driver": driver})
    majors = [m for m, floor in _DRIVER_FLOOR.items() if dv >= floor]
    # Not ollama's: it picks its runner by the driver's CUDA, not by what the driver could run (OLLAMA_RUNNER_BY_DRIVER).
    if not torch and engine and engine != "ollama" and log_date is not None and majors and (dated := _dated_runtimes(
            log_date.day, log_date.line, max(majors), f"driver {driver} (CUDA up to {driver_cuda or '?'})",
            _ENGINE_WORDS.get(engine, engine))):
        # An engine is shown, its CUDA runtime is not, and its log dates the run: no newer major existed then.
        return ok(dated, actual={"driver": driver, "dated": log_date.day}, evidence=[log_date.line])
    run = p2p_bandwidth if p2p_bandwidth is not None and p2p_bandwidth.program == NVBANDWIDTH else None
    if not torch and run is not None and (tested := _bandwidth_test_runtime(run, driver)) is not None:
        return tested
    # A report's torch initialising CUDA counts beside its whole driver line, not one cut after the branch (`550.`,
    # corpus 293: the reviewers read that report as unknown; its branch still judges a torch CUDA shown, corpus 603).
    whole = bool(re.match(r"\d+\.\d+", driver))
    proof = cuda_ran.proof(with_report=whole, with_launch=whole) if cuda_ran is not None else None
    if not torch and proof is not None:
        return _program_ran(proof, f"driver {driver}")
    header_cuda = nvidia.cuda_version if nvidia is not None else None
    if not torch and header_cuda == "N/A":
        # `CUDA Version: N/A`: nvidia-smi found no CUDA driver library (libcuda) at all, as on a vGPU host (Virtual GPU
        # Manager) driver, which ships none and no nvidia-uvm, or a driver installed without its compute libraries
        # (NVIDIA/gpu-operator#1923, corpus 1293). `ERR!` below is a libcuda that failed to answer.
        return issue(f"driver {driver} offers no CUDA (its nvidia-smi header reads `CUDA Version: N/A`): no CUDA driver "
                     "library (libcuda) is installed beside it, so no CUDA program runs on this host, whatever runtime it "
                     "ships; a vGPU host (Virtual GPU Manager) driver offers no CUDA and no nvidia-uvm: run CUDA in a "
                     "guest with the vGPU guest driver, or install the driver's compute libraries (the plain data "
                     "center driver)", actual={"driver": driver, "cuda": header_cuda},
                     expected="a CUDA version in the nvidia-smi header")
    if not torch and header_cuda and not header_cuda[:1].isdigit() and (branch_cuda := cuda_of_branch(dv)):
        # `CUDA Version: ERR!`: nvidia-smi could not ask libcuda its version; the driver's branch still sets it.
        return not_an_issue(f"the nvidia-smi header reads `CUDA Version: {header_cuda}`, which looks like a driver "
                            f"too old or mismatched for CUDA, but driver {driver} is of a branch that supports CUDA up "
                            f"to {branch_cuda}: nvidia-smi failed to load the CUDA driver library (libcuda; under WSL 2 "
                            "the one in /usr/lib/wsl/lib) to ask it, which is no version gap",
                            actual={"driver": driver, "cuda": header_cuda})
    if not torch and stated_only and cuda_toolkit is not None and not cuda_toolkit.header and driver_cuda:
        # The user's list names the CUDA in use at or below the driver's highest: a newer driver runs it.
        return _toolkit_only(driver, driver_cuda, cuda_toolkit)
    if not torch and engine in ("", "vllm", "sglang") and (none := _no_cuda_runtime(python_env, collect_env)):
        return not_applicable(f"driver {driver}; {none}: no CUDA runtime to hold against the driver",
                              actual={"driver": driver, "torch_cuda": None})
    if not torch:
        return unknown(f"driver {driver} (supports CUDA up to "
                       f"{(nvidia.cuda_version if nvidia else None) or cuda_of_branch(dv) or '?'}); torch's "
                       "CUDA version is not in this source", hint="run on the host where the engine runs",
                       actual={"driver": driver})
    runtimes = sorted({c for _, c in torch})
    actual = {"driver": driver, "torch_cuda": [c for _, c in torch]}
    driver_cuda = (nvidia.cuda_version if nvidia is not None else None) or cuda_of_branch(dv)
    newer = [c for c in runtimes if driver_cuda and release(c, 2) > release(driver_cuda, 2)]
    before = [c for c in newer if release(c)[0] < min(_DRIVER_FLOOR)]
    if before and not shown:
        # Minor-version compatibility began with CUDA 11 (MINOR_COMPAT): before it a runtime newer than the driver's
        # CUDA does not start on it, whichever minor (corpus 2584: torch's CUDA 10.1 on R410, CUDA 10.0).
        need = max((_release_driver(c) for c in before), default=())
        wanted = f"driver {'.'.join(map(str, need))} or newer" if need else "a driver of its CUDA or newer"
        return issue(f"torch's CUDA {', '.join(before)} is newer than the CUDA {driver_cuda} that driver {driver} "
                     f"supports, and before CUDA 11 there is no minor-version compatibility: torch's runtime fails "
                     f"with `CUDA driver version is insufficient` (torch.cuda.is_available() False); it needs {wanted}",
                     actual=actual, expected=wanted)
    if newer:
        # Above the floor of its major (checked above): minor-version compatibility runs it.
        return not_an_issue(f"torch's CUDA {', '.join(newer)} is newer than the CUDA {driver_cuda} that driver "
                            f"{driver} supports: minor-version compatibility runs a CUDA "
                            f"{release(newer[0])[0]}.x runtime on this driver (only JIT of newer PTX fails)",
                            actual=actual)
    toolkit = _toolkit_above(driver, driver_cuda, collect_env)
    if toolkit and driver_cuda and collect_env is not None and not collect_env.runtime_line:
        # check_env names the toolkit as what it is (`NVCC: Cuda compilation tools`): no runtime line to mistake.
        return ok(f"driver {driver} supports torch's CUDA {', '.join(runtimes)}; the system nvcc "
                  f"{collect_env.cuda_runtime} above the driver's CUDA {driver_cuda} matters only to what it builds, "
                  "which minor-version compatibility runs", actual={**actual, "nvcc": collect_env.cuda_runtime})
    if toolkit and driver_cuda:
        # The system toolkit is not what torch loads: torch ships its own runtime, which the driver covers.
        return not_an_issue(f"{toolkit} is newer than the CUDA {driver_cuda} that driver {driver} supports, but "
                            f"torch loads its own CUDA {', '.join(runtimes)} runtime, which the driver covers "
                            "(the toolkit matters only to what nvcc builds, which minor-version compatibility runs)",
                            actual={**actual, "toolkit": collect_env.cuda_runtime if collect_env else None})
    older = [c for c in runtimes if driver_cuda and release(c, 2) < release(driver_cuda, 2)]
    if older:
        # The lead's decision (docs/corpus-first-run.md): ok, by 10 blind expectations to 8, none of the 8 resting on
        # a fact the paste shows. The myth ("nvidia-smi's CUDA must match torch's") is answered in the message.
        return ok(f"driver {driver} supports CUDA up to {driver_cuda}, newer than torch's CUDA {', '.join(older)}: a "
                  "newer driver runs an older runtime (the nvidia-smi header's CUDA is the driver's highest, not "
                  "torch's)", actual=actual)
    return ok(f"driver {driver} supports torch's CUDA {', '.join(runtimes)}", actual=actual)


# collect_env's `CUDA runtime version` where it found none (the system toolkit's nvcc, which it reads, is absent).
_NO_RUNTIME = ("Could not collect", "No CUDA", "N/A", "None")


def _release_driver(cuda: str) -> tuple[int, ...]:
    """The Linux driver a CUDA release before 11 needs (TOOLKIT_BUILD_DRIVER), by its full release or else the
    lowest of its minor's releases (`10.1` for torch's `+cu101`); () where the table has none."""
    if cuda in TOOLKIT_BUILD_DRIVER:
        return TOOLKIT_BUILD_DRIVER[cuda]
    prefix = ".".join(cuda.split(".")[:2]) + "."
    return min((d for b, d in TOOLKIT_BUILD_DRIVER.items() if b.startswith(prefix)), default=())


def _no_cuda_runtime(python_env: PythonEnv | None, collect_env: CollectEnv | None) -> str:
    """Why the stack shown carries no CUDA runtime, in words; "" where it may.

    Every torch shown is a build without CUDA (`2.6.0+cpu`, `CUDA used to build PyTorch: None`), the report finds no
    CUDA runtime (`CUDA runtime version: Could not collect`), and its package list, where printed, holds no CUDA
    runtime wheel (nvidia-cuda-runtime-cu12): a torch engine (vLLM, SGLang) then runs on no CUDA (corpus 2183)."""
    envs = [e for e in (python_env.environments if python_env is not None else ()) if e.version("torch")]
    if not envs or collect_env is None or collect_env.values.get("CUDA runtime version") not in _NO_RUNTIME:
        return ""
    if any(e.torch_cuda != "" and not (e.version("torch") or "").endswith("+cpu") for e in envs):
        return ""
    if any(re.match(r"nvidia-cuda-runtime", name) for name in collect_env.packages):
        return ""
    return (f"torch {envs[0].version('torch')} is built without CUDA and the report finds no CUDA runtime "
            f"(\"CUDA runtime version: {collect_env.values['CUDA runtime version']}\")")


def _program_ran(proof: Ran, driver: str) -> Outcome:
    """DRV-CUDA-COMPAT where a CUDA program's own lines show its CUDA at work (facts/cuda_ran.py): the runtime it
    ships runs on `driver` (the driver's version, or "the driver" where the source does not show it). A runtime
    above the driver fails at its first call (error 35, 'CUDA driver version is insufficient'), a forward
    compatibility package on a GPU without it with 804, an image's libcuda against the host's with 803."""
    return ok(f"{proof.did} (\"{proof.line}\"): the CUDA runtime {proof.program} ships runs on {driver} (one too "
              "new for the driver fails at its first call, error 35 'CUDA driver version is insufficient')",
              actual={"cuda_ran": proof.program}, evidence=[proof.line])


def _cuda_ran(collect_env: CollectEnv | None, python_env: PythonEnv | None, cuda_ran: CudaRan | None) -> str:
    """Why the driver, whose version the report could not read, runs torch's CUDA runtime, in words; "" where the
    source does not show it.

    The report ran its driver line and could not read the driver ('Nvidia driver version: Could not collect': its
    nvidia-smi failed), while torch built for a CUDA (`2.4.0+cu121`, 'CUDA used to build PyTorch: 12.1') initialised
    CUDA ('Is CUDA available: True'). The runtime creates its context only on a driver that supports it; else
    torch.cuda.is_available() is False, with its warning that the driver is too old (CollectEnv.driver_too_old_cuda).
    Under WSL 2 the same holds: the Windows driver ran it.
    A report cut before its driver line, or one that prints none (lmdeploy's check_env), is the cuda_ran fact's
    general case (_program_ran; both readers of corpus 1652, 1770, 1774 say ok).
    The report's torch initialising CUDA is the cuda_ran fact's (facts/cuda_ran.py): a refused start in the same
    source wins."""
    if collect_env is None or cuda_ran is None or cuda_ran.failed or cuda_ran.torch_check is None:
        return ""
    line = next((collect_env.values[k] for k in ("Nvidia driver version", "CUDA Driver Version")
                 if k in collect_env.values), None)
    cuda = collect_env.torch_cuda or next(
        (env.torch_cuda for env in (python_env.environments if python_env is not None else ()) if env.torch_cuda), "")
    if line != "Could not collect" or not cuda:
        return ""
    said = "'Is CUDA available: True'" if collect_env.values.get("Is CUDA available") == "True" else \
        "'CUDA available: True'"
    return (f"the report could not read the driver ('Nvidia driver version: Could not collect'), but torch built for "
            f"CUDA {cuda} initialised CUDA ({said}): the driver that ran it supports that runtime (a driver too old "
            "for it leaves CUDA unavailable)")


def _release_runtimes(python_env: PythonEnv | None) -> list[tuple[str, str, int]]:
    """(package, version, CUDA major) of each package whose release names its CUDA major (python_env.RELEASE_CUDA_MAJOR:
    TensorRT-LLM's)."""
    return [(name, version, major) for env in (python_env.environments if python_env is not None else ())
            for name, version in env.packages.items() if (major := release_cuda_major(name, version)) is not None]


def _release_builds(python_env: PythonEnv | None) -> list[tuple[str, str, int]]:
    """(package, version, newest CUDA major) of each package whose release publishes builds for more than one CUDA
    (python_env.RELEASE_NEWEST_CUDA_MAJOR: vLLM's wheels)."""
    return [(name, version, major) for env in (python_env.environments if python_env is not None else ())
            for name, version in env.packages.items()
            if (major := release_newest_cuda_major(name, version)) is not None]


def _release_runtime(built: Sequence[tuple[str, str, int]], driver: str, driver_cuda: str | None) -> Outcome:
    """DRV-CUDA-COMPAT from the CUDA major a package's release is built with (TensorRT-LLM 0.16: CUDA 12): a driver at
    or above the major's floor runs every runtime of it, an older one directly and a newer one by minor-version
    compatibility; below the floor it runs none."""
    said = ", ".join(f"{name} {version} (CUDA {major}.x)" for name, version, major in built)
    actual = {"driver": driver, "driver_cuda": driver_cuda, "packages": {name: version for name, version, _ in built}}
    below = [(name, major) for name, _, major in built if release(driver) < _DRIVER_FLOOR[major]]
    if below:
        floor = _floor_text(_DRIVER_FLOOR[below[0][1]])
        return issue(f"{said}: a CUDA {below[0][1]}.x runtime needs driver {floor} or newer; this is {driver}",
                     actual=actual, expected=f"driver >= {floor}")
    return ok(f"driver {driver} (CUDA up to {driver_cuda or '?'}) runs any CUDA {built[0][2]}.x runtime that "
              f"{said} loads: an older one directly, a newer one by minor-version compatibility", actual=actual)


def _toolkit_above(driver: str, driver_cuda: str | None, collect_env: CollectEnv | None) -> str:
    """The system CUDA toolkit a collect_env or check_env names ('CUDA runtime version', check_env's NVCC), where it
    is newer than the driver's CUDA but of a major the driver runs by minor-version compatibility; "" otherwise."""
    toolkit = collect_env.cuda_runtime if collect_env is not None else ""
    tv = release(toolkit, 2)
    floor = _DRIVER_FLOOR.get(tv[0]) if tv else None
    if not (driver_cuda and floor and tv > release(driver_cuda, 2) and release(driver) >= floor):
        return ""
    return f"the system CUDA toolkit {toolkit} (collect_env's 'CUDA runtime version', the nvcc under CUDA_HOME)"


def _toolkit_only(driver: str, driver_cuda: str | None, toolkit: CudaToolkit) -> Outcome:
    """DRV-CUDA-COMPAT where the only CUDA a paste shows is the system toolkit (nvcc's release, a hardware list's):
    what it builds runs on a driver of its CUDA or newer, and on an older one of its major by minor-version
    compatibility."""
    said = f"the only CUDA shown is the system toolkit {toolkit.version} ({toolkit.line!r})"
    actual = {"driver": driver, "driver_cuda": driver_cuda, "toolkit": toolkit.version}
    tv = release(toolkit.version, 2)
    floor = _DRIVER_FLOOR.get(tv[0]) if tv else None
    if toolkit.stated and driver_cuda and tv <= release(driver_cuda, 2):
        # The user's list (or a template's field) names the CUDA in use, at or below the driver's highest; nvidia-smi's
        # header copied one field a line (toolkit.header) never comes here: that figure is the driver's, not a runtime.
        return ok(f"the paste names CUDA {toolkit.version} ({toolkit.line!r}) as the CUDA in use, at or below the CUDA "
                  f"{driver_cuda} that driver {driver} supports: a driver runs a runtime of its CUDA or older (the nvidia-smi "
                  "header's CUDA is the driver's highest, not the runtime's)", actual=actual, evidence=[toolkit.line])
    if toolkit.stated:
        # A bare `CUDA Version:` above the driver branch's CUDA: the CUDA in use, or nvidia-smi's figure under the
        # forward-compatibility package. The same major above the floor runs either way.
        said = (f"the paste names CUDA {toolkit.version} ({toolkit.line!r}), above the CUDA {driver_cuda} of driver "
                f"{driver}'s branch")
        if floor and release(driver) >= floor and tv[:1] == release(driver_cuda or "0", 2)[:1]:
            return not_an_issue(f"{said}: minor-version compatibility runs a CUDA {tv[0]}.x runtime on this driver "
                                "(only JIT of newer PTX fails)", actual=actual, evidence=[toolkit.line])
        return unknown(f"{said}: whether it is the runtime in use (a CUDA {tv[0]}.x the driver does not run) or "
                       "nvidia-smi's figure under the forward-compatibility package is not in this source",
                       actual=actual, hint="paste `nvidia-smi` and the engine's start-up log")
    if not driver_cuda:
        return unknown(f"driver {driver}; {said}; which CUDA the driver supports is not in this source",
                       actual=actual)
    need = TOOLKIT_BUILD_DRIVER.get(toolkit.build)
    if need is not None and release(driver) < need:
        # Before CUDA 11 each toolkit release, an update included, names its own driver: no minor-version compatibility.
        wanted = ".".join(map(str, need))
        return issue(f"{said}: nvcc's release {toolkit.build} needs driver {wanted} or newer (NVIDIA's table of toolkit "
                     f"releases and their drivers; before CUDA 11 there is no minor-version compatibility), and this is "
                     f"{driver}: what it builds may fail with `CUDA driver version is insufficient`", actual=actual,
                     evidence=[toolkit.line], expected=f"driver >= {wanted}")
    if tv <= release(driver_cuda, 2):
        return ok(f"driver {driver} supports CUDA up to {driver_cuda}; {said}, which it runs", actual=actual,
                  evidence=[toolkit.line])
    if floor and release(driver) >= floor:
        return not_an_issue(f"{said}, newer than the CUDA {driver_cuda} driver {driver} supports: minor-version "
                            f"compatibility runs what it builds (only JIT of newer PTX fails)", actual=actual,
                            evidence=[toolkit.line])
    return issue(f"{said}, a CUDA {tv[0]}.x that driver {driver} (CUDA up to {driver_cuda}) does not run: what it "
                 "builds fails with `CUDA driver version is insufficient`", actual=actual, evidence=[toolkit.line],
                 expected=f"a driver for CUDA {tv[0]}.x or newer")


def _image_runtime(images: Sequence[tuple[str, str]], driver: str, driver_cuda: str, ran: Ran | None = None) -> Outcome:
    """DRV-CUDA-COMPAT from the CUDA runtime an image ships (facts/cuda_ran.CudaRuntime: its tag, its CUDA_VERSION,
    NVIDIA's start banner, an image named in prose) beside the driver's
    CUDA: a newer driver runs an older runtime. A newer image meets the image's NVIDIA_REQUIRE_CUDA check, which the
    container toolkit enforces at start unless a brand and driver-branch exception of the image matches. Where the
    source shows a CUDA program at work (`ran`, facts/cuda_ran.py: FasterTransformer's `CUDA runtime error: out of
    memory` in NGC's PyTorch 22.03 on R470, corpus 2742), the container did start: a newer runtime of the driver's major
    above its floor then runs by minor-version compatibility (not an issue)."""
    said = ", ".join(f"{image} (CUDA {cuda})" for image, cuda in images)
    actual = {"driver": driver, "driver_cuda": driver_cuda, "images": {image: cuda for image, cuda in images}}
    newer = [(image, cuda) for image, cuda in images if release(cuda, 2) > release(driver_cuda, 2)]
    dv = release(driver)
    if newer and dv and all(requirement_lets_through(image, cuda, dv[0]) and release(cuda)[0] == release(driver_cuda)[0]
                            and dv >= _DRIVER_FLOOR.get(release(cuda)[0], (999,)) for image, cuda in newer):
        # The image's own requirement names this branch for every brand, and its runtime is of the driver's major above
        # the major's floor: it starts, and minor-version compatibility runs it (corpus 247: TGI 1.0.2 on R470).
        image, cuda = newer[0]
        return not_an_issue(f"{image} ships CUDA {cuda}, above the CUDA {driver_cuda} of driver {driver}, but the "
                            f"image's own requirement (NVIDIA_REQUIRE_CUDA) lets the R{dv[0]} branch through on every "
                            f"GPU brand, and minor-version compatibility runs a CUDA {release(cuda)[0]}.x runtime on this "
                            "driver (only JIT of newer PTX fails)", actual=actual)
    if newer and dv and all(requirement_refuses(image, cuda, dv[0]) for image, cuda in newer):
        # No exception of the image's requirement names this branch for any brand: the toolkit refuses it on any GPU.
        image, cuda = newer[0]
        return issue(f"{image} ships CUDA {cuda}, above the CUDA {driver_cuda} of driver {driver}, and no brand and "
                     f"driver-branch exception of the image's requirement (NVIDIA_REQUIRE_CUDA) names the R{dv[0]} "
                     f"branch: the container toolkit refuses it at start ('unsatisfied condition: cuda>={cuda}') on "
                     "any GPU; a driver of that CUDA or newer runs it, or an image of CUDA "
                     f"{driver_cuda} or older", actual=actual, expected=f"a driver for CUDA {cuda} or newer")
    if newer and dv and ran is not None and all(release(cuda)[0] == release(driver_cuda)[0]
                                                and dv >= _DRIVER_FLOOR.get(release(cuda)[0], (999,)) for _, cuda in newer):
        image, cuda = newer[0]
        return not_an_issue(f"{image} ships CUDA {cuda}, above the CUDA {driver_cuda} of driver {driver}, but the "
                            f"container started and its CUDA ran: {ran.did} (\"{ran.line}\"); minor-version "
                            f"compatibility runs a CUDA {release(cuda)[0]}.x runtime on this driver (only JIT of newer "
                            "PTX fails)", actual=actual, evidence=[ran.line])
    if newer:
        return unknown(f"{newer[0][0]} ships CUDA {newer[0][1]}, above the CUDA {driver_cuda} of driver {driver}: the "
                       "container toolkit refuses it at start ('unsatisfied condition: cuda>=') unless one of the "
                       "image's brand and driver-branch exceptions matches this GPU, which the source does not show",
                       hint="paste the container's start (its `docker run` output)", actual=actual)
    return ok(f"driver {driver} supports CUDA up to {driver_cuda}, at or above the runtime of {said}: a newer driver "
              "runs an older runtime", actual=actual)


# The CUDA release from which NCCL's builds load the driver API through cudaGetDriverEntryPoint (new in CUDA 11.3), and
# NCCL's own floor for the driver (src/misc/cudawrap.cc: CUDA_DRIVER_MIN_VERSION 11030).
NCCL_DRIVER_API_CUDA = (11, 3)


# The first CUDA whose toolkit builds for Blackwell (sm_100, sm_120: CUDA 12.8's release notes): torch built with an
# older one carries no Blackwell kernels (its wheels' arch lists end at sm_90, with no PTX of it to JIT), so they do
# not run there.
BLACKWELL_CUDA = (12, 8)


def blackwell_listed(nvidia: NvidiaGpus | None, gpus: GpuInventory | None) -> list[str]:
    """The names of the Blackwell GPUs a program lists in the source (nvidia-smi's rows, torch's capability warning,
    any GPU inventory source but the user's words), once each."""
    names = [g.name or "" for g in (nvidia.gpus if nvidia is not None else ()) if is_blackwell(g)]
    names += [r.model for r in (gpus.listed if gpus is not None else ()) if architecture_of(r.model) == "Blackwell"]
    return list(dict.fromkeys(n for n in names if n))


def _nccl_runtime(log: ServingLog, blackwell: Sequence[str] = ()) -> Outcome:
    """DRV-CUDA-COMPAT from NCCL's init lines: the CUDA NCCL was built for against the driver's, which NCCL read
    from the driver (cudaDriverGetVersion); NCCL got that far, so the question left is the two versions.
    NCCL's build names the CUDA major of the program it ships in (torch's cu118 wheels bring NCCL's CUDA 11 build, its
    cu12x ones the CUDA 12 build, `+cuda12.2` whichever minor torch has): one of a major before Blackwell's first CUDA
    (12.8) beside a Blackwell GPU a program lists (`blackwell`) shows a program built for a CUDA that has no code for
    it, the check's torch below 12.8 on Blackwell (an issue). A CUDA 12 build says nothing of the program's minor."""
    said = (f"NCCL built for CUDA {log.nccl_cuda} under a driver that supports CUDA {log.driver_cuda} "
            f"(NCCL's cudaDriverVersion)")
    built, driver = release(log.nccl_cuda, 2), release(log.driver_cuda, 2)
    if blackwell and built[:1] < BLACKWELL_CUDA[:1]:
        need = ".".join(map(str, BLACKWELL_CUDA))
        return issue(f"{said}: the program ships a CUDA {built[0]}.x build (its NCCL's), and no CUDA {built[0]} "
                     f"toolkit builds for Blackwell GPUs ({blackwell[0]}), which need torch and NCCL built with CUDA "
                     f"{need} or newer",
                     actual={"driver_cuda": log.driver_cuda, "nccl_cuda": log.nccl_cuda, "blackwell": list(blackwell)},
                     expected=f"NCCL (and torch) built for CUDA {need} or newer", evidence=list(log.cuda_lines))
    if built[:1] == driver[:1] and built >= NCCL_DRIVER_API_CUDA > driver:
        # Minor-version compatibility starts the newer runtime; NCCL built for CUDA 11.3 or newer then loads the
        # driver API through cudaGetDriverEntryPoint, a CUDA 11.3 call, and holds its own floor there (src/misc/
        # cudawrap.cc CUDA_DRIVER_MIN_VERSION 11030): an older driver refuses it (cudaErrorCallRequiresNewerDriver,
        # 'API call is not supported in the installed CUDA driver'; NVIDIA/nccl#955, corpus 1361).
        floor = ".".join(map(str, NCCL_DRIVER_API_CUDA))
        return issue(f"{said}: NCCL built for CUDA {floor} or newer loads the driver API through "
                     f"cudaGetDriverEntryPoint (new in CUDA {floor}) and needs a driver for CUDA {floor} (its "
                     "CUDA_DRIVER_MIN_VERSION); minor-version compatibility starts the runtime, not calls newer than "
                     "the driver, which fail with 'API call is not supported in the installed CUDA driver'",
                     actual={"driver_cuda": log.driver_cuda, "nccl_cuda": log.nccl_cuda},
                     expected=f"a driver for CUDA {floor} or newer", evidence=list(log.cuda_lines))
    return _runtime_on_driver(said, log.nccl_cuda, log.driver_cuda, {"driver_cuda": log.driver_cuda,
                                                                    "nccl_cuda": log.nccl_cuda}, list(log.cuda_lines))


def _runtime_on_driver(said: str, runtime_cuda: str, driver_cuda: str, actual: dict[str, Any],
                       evidence: list[str]) -> Outcome:
    """A program's CUDA runtime against the CUDA its driver supports: a newer major needs a newer driver (issue); a
    newer minor of the driver's major runs by minor-version compatibility (not an issue); the same or older is ok."""
    runtime, driver = release(runtime_cuda, 2), release(driver_cuda, 2)
    if runtime[:1] > driver[:1]:
        return issue(f"{said}: a CUDA {runtime[0]}.x runtime needs a driver for CUDA {runtime[0]}", actual=actual,
                     expected=f"a driver for CUDA {runtime[0]}.x or newer", evidence=evidence)
    if runtime > driver:
        return not_an_issue(f"{said}: minor-version compatibility runs a newer CUDA {runtime[0]}.x runtime on this "
                            "driver (only JIT of newer PTX fails)", actual=actual, evidence=evidence)
    return ok(f"{said}: a driver runs a runtime of its CUDA or older", actual=actual, evidence=evidence)


def _bandwidth_test_runtime(run: P2pBandwidth, driver: str) -> Outcome | None:
    """DRV-CUDA-COMPAT from an nvbandwidth run: before v0.5 its header prints its own CUDA runtime beside the driver's
    (the two versions decide); from v0.5 both lines print the driver's (nvbandwidth.cpp), so only its copies that ran
    show its runtime running on this driver (ok). None where neither is shown."""
    driver_cuda = run.cuda_driver or cuda_of_branch(release(driver)) or ""
    if run.runtime_shown and driver_cuda:
        said = (f"nvbandwidth v{run.version} built with CUDA {run.cuda_runtime} under driver {driver} "
                f"(CUDA {driver_cuda})")
        return _runtime_on_driver(said, run.cuda_runtime, driver_cuda, {"driver": driver, "driver_cuda": driver_cuda,
                                                                        "runtime_cuda": run.cuda_runtime}, [])
    copied = run.copied()
    if not copied:
        return None
    return ok(f"nvbandwidth{f' v{run.version}' if run.version else ''} ran its copies ({copied[0].key or 'a test'}) "
              f"with its own CUDA runtime under driver {driver} (CUDA {driver_cuda or '?'}): the driver runs that runtime "
              "(its header's `CUDA Runtime Version` is the driver's from v0.5 on, so the copies are the proof)",
              actual={"driver": driver, "driver_cuda": driver_cuda, "tests": [t.key for t in copied][:4]})


# The lowest driver CUDA under which every ollama release picks a runner the driver runs. ollama's discover/gpu.go
# cudaVariant chooses the runner from the driver's CUDA that its probe read: v11 below a 12.1 driver in the releases
# that ship v11, v12 below a CUDA 13 driver, v13 from it (ollama PR 12300). A 12.0 or older driver under a release
# without v11 gets v12, which it may not run.
OLLAMA_RUNNER_BY_DRIVER = (12, 1)
# From 0.9.3 ollama ships no CUDA v11 runner (a maintainer in ollama#11220; PR 12000: "we support v12.1 or newer (531
# Feb 2023)"): under a driver for CUDA 12.0 or older it loads no CUDA runner and serves from the CPU (ollama#12770).
OLLAMA_WITHOUT_V11 = (0, 9, 3)
# The day ollama first dropped its CUDA v11 runner (ollama PR 10569, 2025-05-05; reverted in 10692, dropped again in
# 0.9.3): a run a pasted log dates before it ran a release that shipped v11.
OLLAMA_V11_DROPPED = "2025-05-05"
_RELEASE_TAG = re.compile(r":v?(\d+\.\d+\.\d+)\b[^/:]*$")  # an image's tag that names a release (`:0.9.3`)


def _ngc_check_passed(cuda_runtime: CudaRuntime | None, serving_log: ServingLog | None) -> Outcome | None:
    """DRV-CUDA-COMPAT ok where an NGC image's start banner is shown with its server's own log and no line of its
    entrypoint's driver check (CudaRuntime.ngc_checks: an ERROR, a compatibility NOTE, a no-driver WARNING); None
    otherwise."""
    runtimes = cuda_runtime.runtimes if cuda_runtime is not None else ()
    ended = cuda_runtime.ngc_ended if cuda_runtime is not None else ()
    banner = next((r for r in runtimes if r.where.startswith("NGC release") and r.line in ended), None)
    if banner is None or cuda_runtime is None or cuda_runtime.ngc_checks or serving_log is None \
            or not serving_log.engine:
        return None
    return ok(f"the NGC image's start banner (\"{banner.line[:80]}\", CUDA {banner.cuda}) is shown with the "
              f"{serving_log.engine} server's own log and no line of the entrypoint's driver check: it prints an ERROR, "
              "a forward-compatibility NOTE or a no-driver WARNING where the host driver cannot run the image's CUDA, "
              "so the driver runs it", actual={"image_cuda": banner.cuda, "driver": None},
              evidence=[banner.line])


def _floor_text(floor: tuple[int, ...]) -> str:
    """A driver floor as NVIDIA writes it: `450.80.02` for (450, 80, 2); `580` for (580, 0, 0), a branch's first."""
    if not any(floor[1:]):
        return str(floor[0])
    return ".".join([str(floor[0])] + [f"{n:02d}" for n in floor[1:]])


def _ngc_found(cuda_runtime: CudaRuntime | None) -> dict[str, re.Match[str]]:
    """The rows of docker.NGC_CHECK the NGC entrypoint's driver-check lines match (CudaRuntime.ngc_checks), by key."""
    checks = cuda_runtime.ngc_checks if cuda_runtime is not None else ()
    return {key: m for line in checks for key, (_, pattern) in NGC_CHECK.items() if (m := pattern.search(line))}


def _ngc_minor_compat(cuda_runtime: CudaRuntime | None, shown: str | None = None) -> Outcome | None:
    """DRV-CUDA-COMPAT from an NGC image's minor-version WARNING (docker.NGC_CHECK `minor-driver` and `minor-built`):
    the driver it found and the image's CUDA, of one major, with the driver at or above that major's floor
    (_DRIVER_FLOOR) and no other line of the check: not an issue. None otherwise, and where the driver shown
    (`shown`) is another than the one it found."""
    checks = cuda_runtime.ngc_checks if cuda_runtime is not None else ()
    found = _ngc_found(cuda_runtime)
    if set(found) - {"compat-enabled", "minor-driver", "minor-built"} or not {"minor-driver", "minor-built"} <= set(found):
        return None
    driver, driver_cuda = found["minor-driver"].group(1), found["minor-driver"].group(2, 3)
    if shown and shown != driver:
        return None
    built = found["minor-built"].group(1, 2)
    major = int(built[0])
    if int(driver_cuda[0]) != major or major not in _DRIVER_FLOOR or release(driver) < _DRIVER_FLOOR[major]:
        return None
    return not_an_issue(f"the NGC image's CUDA {'.'.join(built)} is newer than driver {driver}'s CUDA "
                        f"{'.'.join(driver_cuda)}, and its entrypoint runs it by minor-version compatibility: the same "
                        f"major {major}, the driver at or above that major's floor "
                        f"({_floor_text(_DRIVER_FLOOR[major])}); only PTX JIT of newer PTX is lost",
                        actual={"driver": driver, "driver_cuda": ".".join(driver_cuda), "image_cuda": ".".join(built)},
                        evidence=list(checks[:3]))


def ollama_release(containers: DockerContainers | None, client: OllamaShown | None = None) -> tuple[str, str] | None:
    """(release, image) of the one ollama release the pasted containers' image tags name (an ollama image by
    applicability.GGML_IMAGES), the release "" where the tag names none (`:latest`); else the release ollama's own
    client prints (`ollama version is 0.6.0`: facts/ollama_cli.py) or its server's log names, with its source for the
    image; None for no ollama image or several releases."""
    shown = {((m.group(1) if (m := _RELEASE_TAG.search(c.image.strip())) else ""), c.image)
             for c in (containers.containers if containers else ()) if ggml_image_engine(c.image) == "ollama"}
    if not shown and client is not None and client.release:
        return client.release, f"ollama {client.release} ({client.release_from})"
    return next(iter(shown)) if len({r for r, _ in shown}) == 1 else None


def _ollama_image(shown: tuple[str, str], driver: str, driver_cuda: str | None) -> Outcome:
    """DRV-CUDA-COMPAT from an ollama image beside the driver: under a driver for CUDA 12.1 or newer every release
    picks a runner the driver runs (OLLAMA_RUNNER_BY_DRIVER), whatever its tag; below it, from 0.9.3 its runners need
    CUDA 12.1. `driver` is "" where only the driver's CUDA is shown (nvidia-smi's figure, CudaToolkit.header)."""
    ollama, image = shown
    actual = {"driver": driver or None, "driver_cuda": driver_cuda, "ollama": ollama or None}
    if driver_cuda is not None and release(driver_cuda, 2) >= OLLAMA_RUNNER_BY_DRIVER:
        who = f"driver {driver}" if driver else "the driver (nvidia-smi's figure; its version not shown)"
        return ok(f"{who} supports CUDA {driver_cuda}: {image} picks the runner this driver runs (ollama "
                  "chooses its CUDA runner from the driver's CUDA: v12 below a CUDA 13 driver, v13 from it)",
                  actual=actual)
    if not ollama or release(ollama) < OLLAMA_WITHOUT_V11:
        return unknown(f"driver {driver} beside {image}: which CUDA runner that release loads is not in the source",
                       hint="paste ollama's start-up log (`inference compute` lines)", actual=actual)
    if driver_cuda is None:
        return unknown(f"{image} needs a driver for CUDA 12.1 or newer; the CUDA of driver {driver} is not in the "
                       "source", actual=actual)
    return issue(f"{image} ships CUDA v12/v13 runners only (no v11 from 0.9.3), which need a driver for CUDA 12.1 "
                 f"or newer; driver {driver} supports CUDA {driver_cuda}: ollama loads no CUDA runner and serves "
                 "from the CPU", actual=actual, expected="driver 531 or newer (CUDA 12.1)")


def _ollama_runner(o: OllamaCuda, log_date: LogDate | None = None) -> Outcome:
    """DRV-CUDA-COMPAT from ollama's own discovery: the CUDA the driver supports beside the CUDA runner ollama chose
    (`variant=v12`), else the one it ships (`Dynamic LLM libraries [cuda_v11 ...]`). ollama's discovery reached the
    GPUs through the driver, so the question left is the runner's CUDA major against the driver's. Where neither is
    shown, a driver for CUDA 11.x under a log dated before ollama first dropped v11 (OLLAMA_V11_DROPPED) runs the
    v11 runner that release shipped and picked."""
    runners = o.chosen or o.shipped
    driver_major = release(o.driver_cuda)[0]
    said = f"the driver supports CUDA {o.driver_cuda} (ollama's discovery: driver={o.driver_cuda})"
    names = ", ".join(f"cuda v{m}" for m in runners)
    actual = {"driver_cuda": o.driver_cuda, "runners": [f"cuda_v{m}" for m in runners]}
    if not runners and release(o.driver_cuda, 2) >= OLLAMA_RUNNER_BY_DRIVER:
        return ok(f"{said}: ollama picks its CUDA runner from the driver's CUDA (v12 below a CUDA 13 driver, v13 from "
                  "it; discover's cudaVariant), so the runner it loads is one this driver runs", actual=actual,
                  evidence=list(o.lines))
    if not runners and driver_major == 11 and log_date is not None and log_date.day < OLLAMA_V11_DROPPED:
        return ok(f"{said}; the log dates the run {log_date.day}, before {OLLAMA_V11_DROPPED}, when every ollama "
                  "release still shipped its CUDA v11 runner (built with CUDA 11.3), which it picks below a CUDA 12.1 "
                  "driver: the same CUDA major, which minor-version compatibility runs", actual=actual,
                  evidence=[*o.lines, log_date.line][:4])
    if not runners:
        return unknown(f"{said}; which CUDA runner ollama loads is not in the lines shown",
                       hint="paste ollama's start-up log from its `Dynamic LLM libraries` line", actual=actual)
    above = [m for m in runners if m > driver_major]
    if above and (o.chosen or len(above) == len(runners)):
        return issue(f"{said}, below ollama's {names} runner: a CUDA {above[0]}.x runtime needs a driver for CUDA "
                     f"{above[0]}", actual=actual, expected=f"a driver for CUDA {above[0]}.x or newer",
                     evidence=list(o.lines))
    usable = [m for m in runners if m <= driver_major]
    if driver_major in usable:
        return ok(f"{said} and ollama runs its cuda v{driver_major} runner: the same CUDA major, which minor-version "
                  "compatibility runs", actual=actual, evidence=list(o.lines))
    # The decided reading of an older runtime (as cuda_compat's): ok, a newer driver runs it.
    return ok(f"{said}, above ollama's {', '.join(f'cuda v{m}' for m in usable)} runner: a newer driver runs an older "
              "CUDA runtime", actual=actual, evidence=list(o.lines))


def _nvlink_from_matrix(topo: TopoMatrix, gpus: GpuInventory | None) -> Outcome:
    """A pasted `nvidia-smi topo -m` alone: a GPU with no NV# cell while its neighbours are NVLinked to
    each other has lost its links (an NVLink board does not mix NVLinked and unlinked GPUs)."""
    names = list(topo.gpus)
    peers = {g: [o for o in names if o != g and (topo.link(g, o) or "").startswith("NV")] for g in names}
    # No NVLink path is shown only where every cell of the GPU is: a cut matrix may hide its peer.
    cut = [g for g, linked in peers.items() if not linked and all(topo.link(g, o) for o in names if o != g)]
    models = gpus.models if gpus is not None else {}
    groups = topo.bridged_groups(list(models.values()))
    if groups:
        return _bridged_links(topo, groups, models)
    paired = topo.paired_build() if not any(gpu_spec(n) for n in models.values()) else None
    if paired:
        return _bridged_links(topo, paired, models)
    if cut:
        cells = {g: sorted({topo.link(g, o) or "?" for o in names if o != g}) for g in cut}
        return issue(f"{', '.join(cut)} {'shows' if len(cut) == 1 else 'show'} no NVLink path in `nvidia-smi topo -m` ("
                     + "; ".join(f"{g}: {'/'.join(c)}" for g, c in cells.items())
                     + f") while the other GPUs are NVLink-connected: {'its' if len(cut) == 1 else 'their'} links are down",
                     actual=cells, expected="NV# to the other GPUs", subjects=cut,
                     evidence=[topo.lines[g] for g in cut if g in topo.lines][:2])
    judged = _nvlinks_all_up(topo, gpus) or _direct_board(topo, gpus)
    if judged is not None:
        return judged
    return unknown("every GPU has an NVLink path in `nvidia-smi topo -m`; the per-link states and error "
                   "counters are not in this source", hint="paste `nvidia-smi nvlink -s` and `nvidia-smi nvlink -e`")


def _bridges_down(topo: TopoMatrix, gpus: GpuInventory | None) -> Outcome | None:
    """A whole `nvidia-smi topo -m` of cards the source names as a line sold NVLink-bridged (gputable.sold_bridged:
    H100 NVL, H200 NVL) with no NV# cell between any of them: the bridges' links are down (an issue over its rows).
    A cut matrix of such cards whose whole rows show no NV# is unknown over those rows. None where the matrix shows
    NVLink, no row is whole, or a GPU's model is not named."""
    models = gpus.models if gpus is not None else {}
    names = list(topo.gpus)
    named = [models.get(gpu_index(g), "") for g in names]
    rows = list(topo.whole_rows())
    if topo.has_nvlink or not rows or not all(named) or not sold_bridged(named):
        return None
    if len(rows) != len(names):
        # The whole rows shown reach every GPU over PCIe, but the GPUs not shown may be the pairs that are bridged
        # (corpus 892: bridges not fitted or links down, which a part of the board does not tell apart).
        return over_subjects(unknown(f"{', '.join(sorted(set(named)))} cards are sold joined by NVLink bridges, yet "
                                     f"the whole rows shown ({', '.join(rows)}) reach every other GPU over PCIe: "
                                     "either no bridge is fitted to them or its links are down, and the rows not "
                                     f"shown may hold the bridged pairs ({topo.cut_note()})",
                                     actual={"links": sorted({c for _, _, c in topo.gpu_pairs()})},
                                     hint="`nvidia-smi nvlink -s` (an inactive link is a bridge fitted and down)"),
                             rows, len(names), ask=_NVLINK_ASK)
    cells = sorted({c for _, _, c in topo.gpu_pairs()})
    judged = issue(f"{', '.join(sorted(set(named)))} cards are sold joined by NVLink bridges, but `nvidia-smi topo -m` "
                   f"shows no NVLink path between any of them ({'/'.join(cells)}): the bridges' links are down or no "
                   "bridge is fitted", actual={"links": cells}, expected="NV# between the bridged cards",
                   subjects=names, evidence=[topo.lines[g] for g in names if g in topo.lines][:2])
    return over_subjects(judged, rows, len(names), ask=_NVLINK_ASK)


def _pcie_build(topo: TopoMatrix, gpus: GpuInventory | None) -> Outcome | None:
    """A whole `nvidia-smi topo -m` of two or more GPUs with no NV# cell anywhere and no GPU model named: a PCIe
    build (not applicable; corpus 617, 1143). None where a row is cut or any model is named (a named model decides:
    _bridges_down for cards sold bridged, the model's link count otherwise)."""
    names = list(topo.gpus)
    if topo.has_nvlink or len(names) < 2 or len(topo.whole_rows()) != len(names) or topo.unshown_pairs() \
            or (gpus is not None and any(gpus.models.values())):
        return None
    cells = sorted({c for _, _, c in topo.gpu_pairs()})
    return not_applicable(f"no NV# cell anywhere in the whole `nvidia-smi topo -m` of {len(names)} GPUs "
                          f"({'/'.join(cells)} only): a PCIe build, with no NVLink between the GPUs",
                          actual={"links": cells})


def _bridged_links(topo: TopoMatrix, groups: tuple[tuple[str, ...], ...], models: dict[int, str]) -> Outcome:
    """Bridged cards (gputable.bridge_domain) whose NV# cells are a bridge build: the cards outside every group have
    no bridge (the build, not links down); the groups' NV# is every link where the model's count is known."""
    counts = sorted({nvlink_count(c) for _, _, c in topo.gpu_pairs() if c.startswith("NV")})
    bonded = counts[0]
    specs = [gpu_spec(n) for n in models.values()]
    links = {s.nvlink_links for s in specs if s is not None and s.has_nvlink}
    joined = [g for group in groups for g in group]
    alone = [g for g in topo.gpus if g not in joined and g in topo.rows]
    said = (f"NVLink only within bridged group(s) {'; '.join('-'.join(g) for g in groups)} "
            f"({', '.join(f'NV{n}' for n in counts)})"
            + (f"; {', '.join(alone)} without a bridge: the build, not links down" if alone else ""))
    if specs and all(s is not None for s in specs) and links == {bonded}:
        judged = not_an_issue(f"{said}; NV{bonded} is every link of the {next(iter(models.values()))}, all up "
                              "(error counters are not in this source)",
                              actual={"groups": [list(g) for g in groups], "links": f"NV{bonded}"})
        return over_subjects(judged, list(topo.whole_rows()), len(topo.gpus), ask="nvidia-smi topo -m")
    bridge_counts = {s.nvlink_links for s in all_gpus() if s.nvlink_kind == "bridge"}
    if not specs and len(groups) >= 2 and counts == [bonded] and bonded in bridge_counts:
        # No model named: independent bridges do not lose links alike, so one full bridge count on every pair
        # is the build (a short pair reads fewer links than the others, and the pairs' counts then differ).
        judged = ok(f"{said}: the same NV{bonded} on all {len(groups)} pairs, a bridged card's full count "
                    "(NVLink bridges fail pair by pair, not alike), no link down (error counters are not in this "
                    "source)", actual={"groups": [list(g) for g in groups], "links": f"NV{bonded}"},
                    evidence=[topo.lines[g[0]] for g in groups if g[0] in topo.lines][:2])
        return over_subjects(judged, list(topo.whole_rows()), len(topo.gpus), ask="nvidia-smi topo -m")
    return unknown(f"{said}; whether {'/'.join(f'NV{n}' for n in counts)} is every link of these cards is not in "
                   "this source",
                   hint="paste `nvidia-smi nvlink -s` (each link's state)", actual={"groups": [list(g) for g in groups]})


# The uniform NV# of an all-pairs mesh that, without the model named, only a board with every link up shows:
# count -> (the fewest GPUs in the matrix, why). A whole NVSwitch down lowers every GPU's count alike, so a count
# that is one board's full count and another's with a switch down stays unknown (NV8: H800/A800 SXM, or HGX A100
# with two of its six switches down). NVSwitch link layouts: the HGX A100, H100 and B200 platform guides.
_ALL_UP_MESH: dict[int, tuple[int, str]] = {
    12: (5, "12 links, the A100 SXM's on an NVSwitch board of more than four GPUs, a count no such board shows with "
            "a switch down (HGX A100: 2 links per switch, 10 with one down; HGX H100/H200: 5/4/4/5 links per switch, "
            "13 or 14; HGX B200: 9 per switch)"),
}


def _nvlinks_all_up(topo: TopoMatrix, gpus: GpuInventory | None) -> Outcome | None:
    """`ok` over the whole rows of a matrix whose every GPU pair shown reads NV<k>, k every link a GPU has.

    k is the GPU model's link count (data/gpus.toml) when the source names every GPU's model, else the most
    links any GPU has, or a count of _ALL_UP_MESH on two or more whole rows: a GPU with one link down shows
    NV<k-1> on its row, a switch down lowers every row alike. None when the cells do not settle it.
    """
    whole = topo.whole_rows()
    cells = {c for _, _, c in topo.gpu_pairs()}
    if not whole or len(cells) != 1 or (topo.unshown_pairs() and not topo.nvlink_fabric()):
        return None
    bonded = nvlink_count(next(iter(cells)))
    models = gpus.models if gpus is not None else {}
    specs = [gpu_spec(n) for n in models.values()]
    if models and len(models) >= len(topo.gpus) and all(s is not None and s.has_nvlink for s in specs):
        links = {s.nvlink_links for s in specs if s is not None}
        said = f"the {next(iter(models.values()))}'s {bonded} links"
    else:
        most = max((s.nvlink_links for s in all_gpus()), default=0)
        least, why = _ALL_UP_MESH.get(bonded, (0, ""))
        if bonded == most:
            links, said = {most}, f"{bonded} links, the most any GPU has"
        elif why and len(topo.gpus) >= least and len(whole) >= 2:
            links, said = {bonded}, why
        else:
            return None
    if links != {bonded}:
        return None
    missing = [g for g in topo.gpus if g not in whole]
    cut = f"; row{'s' if len(missing) > 1 else ''} {', '.join(missing)} not shown (cut)" if missing else ""
    judged = ok(f"every GPU pair shown reads NV{bonded} in `nvidia-smi topo -m`: {said}, all up{cut} (error counters "
                "are not in this source)", actual={"links": f"NV{bonded}", "rows": list(whole)},
                evidence=[topo.lines[g] for g in whole if g in topo.lines][:2])
    return over_subjects(judged, whole, len(topo.gpus) if cut else None, ask="nvidia-smi topo -m")


def _direct_board(topo: TopoMatrix, gpus: GpuInventory | None) -> Outcome | None:
    """`ok` over a whole `nvidia-smi topo -m` whose every GPU bonds its peers as one direct board of
    serving_logs.DIRECT_NVL_BOARDS, with all of that board's GPUs and symmetric cells: each row is every NVLink of its
    GPU (a link down leaves its pair, and its row's sum, below the board's), and a wiring of unequal counts with SYS
    between some GPUs is no NVSwitch board's. A model the source names must have that many links (data/gpus.toml).
    One count on every pair is also what GPUs of an NVSwitch board show in a container's view (four of a DGX-2's V100s
    read NV6, so do an HGX A100's with three of its six switches down), so it is left to _nvlinks_all_up. Corpus 2639
    and 335 (a DGX-1V's hybrid cube mesh). None where the matrix is cut or no board matches."""
    names = list(topo.gpus)
    if len(topo.whole_rows()) != len(names) or topo.unshown_pairs() \
            or any(topo.link(a, b) != topo.link(b, a) for a in names for b in names if a != b):
        return None
    rows = {tuple(sorted(n for o in names if o != g and (n := nvlink_count(topo.link(g, o) or "")))) for g in names}
    if len(rows) != 1:
        return None
    counts = rows.pop()
    board = DIRECT_NVL_BOARDS.get(counts)
    if board is None or board[1] != len(names) or len(set(counts)) == 1:
        return None
    specs = [gpu_spec(n) for n in (gpus.models if gpus is not None else {}).values()]
    if any(s is not None and s.nvlink_links != sum(counts) for s in specs):
        return None
    judged = ok(f"every GPU of the whole `nvidia-smi topo -m` bonds its peers {'+'.join(map(str, counts[::-1]))}: "
                f"{board[2]}, every link up (error counters are not in this source)",
                actual={"links": "+".join(map(str, counts[::-1])), "rows": names},
                evidence=[topo.lines[g] for g in names if g in topo.lines][:2])
    return over_subjects(judged, names, None, ask="nvidia-smi topo -m")


# --- DRV-OPEN-MODULE ---------------------------------------------------------------------------


@check(
    "DRV-OPEN-MODULE",
    applies_to="nvidia-gpu",
    title="Proprietary kernel module where the open flavour is required/recommended",
    severity="high",
    confidence="documented",
    fix=Fix.of(step("Install the open kernel-module flavour, rebuild the initramfs and reboot",
                       "apt install nvidia-open", "update-initramfs -u", cost="reboot", changes="the NVIDIA kernel module",
                       keep=keep_text("or `nvidia-driver-<branch>-open`, or the .run installer with "
                                      "--kernel-module-type=open"))),
    references=(KERNEL_OPEN, "https://developer.nvidia.com/blog/nvidia-transitions-fully-towards-open-source-gpu-kernel-modules/"),
)
def open_module(nvidia_driver: NvidiaDriver | None = None, nvidia: NvidiaGpus | None = None,
                gpus: GpuInventory | None = None, p2p_data_tests: P2pDataTests | None = None,
                collect_env: CollectEnv | None = None, gpu_events: GpuEvents | None = None,
                virtualization: Virtualization | None = None, cuda_ran: CudaRan | None = None,
                kernel_log: KernelLog | None = None) -> Outcome:
    """Reads: `/proc/driver/nvidia/version` ("Open Kernel Module" in the first line = open), else
    `modinfo -F license nvidia` ("Dual MIT/GPL" open, "NVIDIA" proprietary); each GPU's architecture.

    Bad value: the proprietary module with Blackwell GPUs (B200/B300, GB200, RTX PRO 6000 Blackwell,
    RTX 50) or Grace Hopper (GH200): they are only supported by the open modules.

    Why: NVIDIA driver README (560.35.03): "Blackwell and later are only supported by the open
    kernel modules"; HMM, DMABUF for CUDA allocations and GPUDirect Storage need them too. Open is
    the default flavour since R560.

    Traps: proprietary on Turing…Hopper is allowed (reported as ok with the observation);
    pre-Turing GPUs (Volta, Pascal) cannot use the open modules at all. A driver before R515 has
    only the proprietary module: loaded, with no GPU shown running under it, that is not an issue; with GPUs shown
    running under it, they are judged as on a later driver (Turing to Hopper ok, corpus 1673); not shown loaded (a
    driver container that is installing it), there is no flavour to judge. A driver before R515 whose GPUs shown are
    all pre-Turing (nvidia-smi's rows, `lspci`, the user's `GPU is GP104BM [GeForce GTX 1070 Mobile]`) is not
    applicable: neither the driver nor the GPUs have an open module (corpus 2051, 2052). A collect_env or check_env
    whose torch initialised CUDA, outside WSL 2, shows the GPUs it lists running under the loaded module. Where no source shows the flavour (nor the driver), a Blackwell or GH200
    GPU that nvidia-smi lists (its name cut too: gputable.agreed) or CUDA named (simpleP2P; a collect_env or check_env
    whose torch initialised CUDA), outside WSL 2, shows the open module loaded: the proprietary one refuses to initialise them
    (facts/nvidia.py open_module_only), and so does one a CUDA program's device list names (llama.cpp's
    `ggml_cuda_init`, `using device` or `device_info` lines, ollama's, the CUDA samples'). So does a kernel-log Xid that names a process or its channel on a GPU whose
    model the inventory names as such (`GPU: NVIDIA GeForce RTX 5080` in the user's list): the driver ran that
    process's work on it. So does an nccl-tests header's device line (`# Rank 0 ... device 0 [0x01] NVIDIA GH200
    480GB`, corpus 1409), which nccl-tests prints from cudaGetDeviceProperties. So does a GPU in `nvidia-smi -L`'s rows
    or `nvidia-smi topo -m`'s columns, whatever source names its model (corpus 1045): NVML enumerates only the GPUs the
    module initialised. A GPU and a driver named together in a list show no GPU the driver ran. Where the proprietary
    module is shown and no nvidia-smi table, the GPUs those lists show are the ones it drives (corpus 1231: `nvidia-smi
    -L`'s A30, ok). Where no source shows the flavour and every GPU that nvidia-smi lists or CUDA or NVML listed is
    Turing to Hopper, with no pre-Turing or Blackwell GPU named on the host, it is ok: both flavours drive those GPUs
    (corpus 1676; with no driver shown either, corpus 2443's ollama and 2457's cut collect_env), and so are those a collect_env or check_env lists where its torch initialised CUDA, outside WSL 2
    (corpus 2243: eight H100, `Is CUDA available: True`). A collect_env's GPUs whose torch did not initialise CUDA
    leave it unknown.
    With no driver shown, GPUs that a source names (`lspci`, the user's words) all pre-Turing leave no flavour to
    choose: not applicable (corpus 1861). With no flavour shown, GPUs a source names all Turing to Hopper, beside the
    kernel log's NVRM lines naming a GPU the module probed (`NVRM: GPU0 RmInitAdapter: ...`), are not an issue: a
    module is loaded, and either flavour drives them (corpus 2465: the user's GTX 1650); with no module shown at work
    it stays unknown. A log line of a driver that finds no GPU keeps it open: an open module
    installed for a pre-Turing GPU fails that way (corpus 1822).
    An NGC image's entrypoint that names the driver it found (`Using driver version 495.29.05 which has support for
    CUDA 11.5.`, `version 396.26 was detected and compatibility mode is UNAVAILABLE.`) shows that driver loaded: its
    check reads the loaded module (corpus 1864, 1684).
    So does a CUDA program's context at work in the source (facts/cuda_ran.py; a kernel launch CUDA refused for want
    of code counts: the runtime reached a GPU first) where every GPU any source names is Blackwell or Grace Hopper
    (corpus 2441: the user's `RTX Pro 6000` and vLLM's `no kernel image is available`).
    NCCL finding DMA-BUF available on a GPU (`NCCL INFO DMA-BUF is available on GPU device 0`, corpus 2453) shows the
    open module loaded: CUDA exports GPU memory as a DMA-BUF only under the open modules
    (facts/nvidia.NCCL_DMABUF_AVAILABLE).
    The user's words saying the driver they run is the open one (`Open driver doesn't report ...`, corpus 1678:
    facts/nvidia.used_open) name its flavour.
    With the open module, a pre-Turing GPU that any source names on the host (an issue form's `GPU 1: NVIDIA GeForce
    GTX 1070 Ti`, `lspci`) is an issue: one module drives every GPU of a host, and the open one leaves that GPU out.
    A pre-Turing GPU (Pascal, Maxwell, Kepler) that CUDA listed (llama.cpp's `ggml_cuda_init`, ollama, simpleP2P,
    PyTorch, nvidia-smi) shows the proprietary module loaded: the open one supports Turing and later only
    (https://github.com/NVIDIA/open-gpu-kernel-modules), and one module drives every GPU of the host.
    A kernel log where the driver release refuses a GPU at probe (`... (PCI ID: 10de:2330) installed in this system is
    not supported by the NVIDIA 550.90.07 driver release`) whose architecture runs under either flavour (Turing to
    Hopper, by its PCI device id) is not an issue for this check: the refusal names the release, not the flavour (the
    open module's own refusal says `not supported by open nvidia.ko`, a log symptom of this check). So is a kernel log
    where the release ignores a GPU as a legacy one (`NVRM: The NVIDIA Tesla K80 GPU installed in this system is` /
    `supported through the NVIDIA 470.xx Legacy drivers`, corpus 1584): its generation is left to a legacy branch,
    which has the proprietary module only, unless the open module is the one shown.
    The open module shown loaded beside a GPU that nvidia-smi cannot open (`Unable to determine the device handle for
    GPU 0000:D8:00.0: Not Found`) whose model no source names is unknown, not ok: the open module leaves unopened the
    GPUs it does not support (pre-Turing; GeForce and workstation cards in R515 to R525 without the opt-in), so the
    flavour may be the wrong one for that GPU (corpus 1823).
    Under WSL 2 (its kernel, its words, or nvidia-smi's Linux library over a Windows driver) with no module shown, it
    is not applicable: the Windows driver drives the GPU and no Linux NVIDIA kernel module is loaded; so on a Windows
    host itself (facts/platform.Virtualization.os). Open modules
    initialise
    GPUs more slowly: pair them with nvidia-persistenced (DRV-PERSISTENCE).
    """
    if gpus is not None and gpus.none_on_bus:
        return not_applicable("no NVIDIA GPU on the PCI bus")
    listed = [g for g in nvidia.gpus if not g.error] if nvidia is not None else []  # a GPU not opened: model unknown
    refused = _refused_by_release(gpu_events, nvidia_driver, listed) or _ignored_as_legacy(gpu_events, nvidia_driver)
    if refused is not None:
        return refused
    if nvidia_driver is None or nvidia_driver.flavour is None:
        wsl = _wsl_shown(nvidia, collect_env, virtualization)
        if wsl:
            return not_applicable(f"WSL 2 ({wsl}): the Windows driver drives the GPU through /dev/dxg, and no Linux "
                                  "NVIDIA kernel module is loaded whose flavour could be open or proprietary")
        if virtualization is not None and virtualization.windows:
            return not_applicable(f"a Windows host ({virtualization.source}): the Windows driver drives the GPU, and "
                                  "no Linux NVIDIA kernel module is loaded whose flavour could be open or proprietary")
        # WSL 2's table lists the Windows driver's GPUs: it has no Linux kernel module whose flavour they show.
        driven, how = _open_only_driven([] if wsl_driver(nvidia) else listed, p2p_data_tests, collect_env,
                                        gpu_events, gpus, cuda_ran)
        if driven:
            driver = (f"driver {nvidia_driver.version}" if nvidia_driver is not None and nvidia_driver.version
                      else "the NVIDIA driver")
            judged = ok(f"{len(driven)} Blackwell/Grace Hopper GPU(s) ran under {driver} "
                        f"({driven[0][1]}; {how}), which only the open kernel modules drive: the open module is "
                        "loaded", actual="open (inferred)", subjects=[g for g, _ in driven])
            return over_subjects(judged, [g for g, _ in driven], gpus.whole_count if gpus is not None else None)
    if nvidia_driver is None:
        return _pre_turing_ran(listed, gpus) or _pre_turing_only(gpus) or _either_flavour_ran(
            listed, gpus, collect_env) or _either_flavour_named(listed, gpus, kernel_log) or unknown(
            "the NVIDIA kernel module is not visible in this source (/proc/driver/nvidia/version)",
            hint="run on the host with the driver loaded, or `modinfo -F license nvidia`")
    flavour = nvidia_driver.flavour
    branch = release(nvidia_driver.version, 1)
    if branch and branch < (515,) and flavour != "open" and (
            none := _pre_turing_only(gpus, listed, nvidia_driver.version)) is not None:
        return none  # neither the driver nor the GPUs have an open flavour (corpus 2051, 2052)
    if flavour is None and branch and branch < (515,):
        # The open kernel modules start with R515: an older driver has only the proprietary one.
        if not nvidia_driver.loaded:
            return not_applicable(f"driver {nvidia_driver.version} (not shown loaded) predates the open kernel modules "
                                  "(R515): there is no flavour to choose")
        flavour = "proprietary"
    if flavour is None:
        return _pre_turing_ran(listed, gpus) or _either_flavour_ran(listed, gpus, collect_env) \
            or _either_flavour_named(listed, gpus, kernel_log) or unknown(
            "the kernel module's flavour is not known", hint="run `modinfo -F license nvidia` on the host")
    evidence = (nvidia_driver.flavour_evidence,) if nvidia_driver.flavour_evidence else ()
    if flavour == "open":
        old = [g for g in listed if g.implied_architecture in PRE_TURING]
        if old:
            return issue(f"the open module does not support {old[0].name} ({old[0].implied_architecture}): use the proprietary "
                         "flavour for pre-Turing GPUs", actual="open", expected="proprietary for pre-Turing",
                         subjects=[g.subject for g in old], severity="high", evidence=evidence)
        if named := _pre_turing_named(gpus):
            model, arch, label = named[0]
            return issue(f"the open module does not drive {model} ({arch}), which this host holds ({label}): one "
                         "module drives every GPU of the host, so a host with a pre-Turing GPU needs the proprietary "
                         "flavour", actual="open", expected="proprietary for pre-Turing",
                         subjects=[lbl for _, _, lbl in named], severity="high", evidence=evidence)
        if unopened := _unopened_unnamed(nvidia, gpus):
            return unknown(f"the open kernel module is loaded and nvidia-smi cannot open the GPU at {unopened[0].bdf} "
                           f"('{unopened[0].error}'), whose model no source names: the open module leaves unopened "
                           "the GPUs it does not support (before Turing, or a GeForce or workstation card in R515 to "
                           "R525 without NVreg_OpenRmEnableUnsupportedGpus=1), so whether it is the right flavour "
                           "for this GPU is not shown", hint="`lspci -nn | grep -i nvidia`, or the kernel log's NVRM "
                           "lines", actual="open")
        return _over_driven(ok("open kernel module" + (f" ({nvidia_driver.version})" if nvidia_driver.version else ""),
                               actual="open", evidence=evidence), nvidia, listed, gpus)
    blackwell = [g for g in listed if open_module_only(g.name or "", g.implied_architecture)]
    if blackwell:
        return issue(f"proprietary kernel module with {len(blackwell)} Blackwell/Grace Hopper GPU(s) "
                     f"({blackwell[0].name}): they are only supported by the open modules", actual="proprietary",
                     expected="open", subjects=[g.subject for g in blackwell], evidence=evidence)
    if branch and branch < (515,) and not any(g.implied_architecture or g.name for g in listed) \
            and not _driven_records(gpus, collect_env):
        # The open kernel modules start with R515: an older driver has no other flavour to switch to. GPUs a list NVML
        # or CUDA wrote show it driving them: judged below, as on a later driver (corpus 1673); a GPU listed with no
        # model (`nvidia-smi -q` cut after its address, corpus 877 cut) shows nothing to judge.
        return not_an_issue(f"proprietary kernel module {nvidia_driver.version}: the open modules start with R515, "
                            "so this driver has no open flavour (and GPUs older than Turing need the proprietary one)",
                            actual="proprietary", evidence=evidence)
    old_gpus = [g for g in listed if g.implied_architecture in PRE_TURING]
    if listed and len(old_gpus) == len(listed):
        return not_an_issue(f"proprietary kernel module with {', '.join(sorted({g.implied_architecture for g in old_gpus}))} GPUs, "
                            "which the open modules do not support: the proprietary flavour is the right one",
                            actual="proprietary", evidence=evidence)
    if not listed and (records := _driven_records(gpus, collect_env)):
        # No nvidia-smi table, but a list NVML or CUDA wrote names the GPUs this module drove (corpus 1231: `nvidia-smi
        # -L` in the driver container, `GPU 0: NVIDIA A30`, beside the syslog's `NVIDIA UNIX x86_64 Kernel Module`).
        return _proprietary_over(records, nvidia_driver, evidence, gpus)
    if not listed:
        return unknown("proprietary kernel module; which GPUs it drives is not in this source (Blackwell and "
                       "Grace Hopper need the open one)", hint="`nvidia-smi -L`, or `nvidia-smi -q | grep "
                       "'Product Architecture'`", actual="proprietary")
    return _over_driven(ok(f"proprietary kernel module with {', '.join(sorted({g.implied_architecture or g.name for g in listed}))}: "
                           f"allowed ({_OPEN_NOTE if branch and branch < (515,) else _OPEN_DEFAULT})", actual="proprietary",
                           evidence=evidence), nvidia, listed, gpus)


# What an ok of the proprietary module adds: on a driver before R515, that it has no open flavour.
_OPEN_DEFAULT = "open is the default since R560 and needed for HMM/DMABUF"
_OPEN_NOTE = "the open kernel modules start with R515, so this driver has no open flavour"


def _unopened_unnamed(nvidia: NvidiaGpus | None, gpus: GpuInventory | None) -> list[GpuInfo]:
    """The GPUs nvidia-smi lists as ones it cannot open (`Unable to determine the device handle for GPU
    0000:D8:00.0: Not Found`, GpuInfo.error) whose model no source names (the inventory's record at their address)."""
    unopened = [g for g in nvidia.gpus if g.error and g.bdf] if nvidia is not None else []
    return [g for g in unopened if not ((r := gpus.by_bdf(g.bdf)) is not None and r.model)] if gpus is not None \
        else unopened


def _proprietary_over(driven: list[GpuRecord], driver: NvidiaDriver, evidence: tuple[str, ...],
                      gpus: GpuInventory | None) -> Outcome:
    """DRV-OPEN-MODULE for the proprietary module over the GPUs a list NVML or CUDA wrote shows it driving
    (_driven_records): an issue where one is Blackwell or Grace Hopper (open only), not an issue where every one
    predates Turing (proprietary only), else ok (Turing to Hopper run under either flavour)."""
    subjects = [r.bdf or r.label for r in driven]
    whole = gpus.whole_count if gpus is not None else None
    named = {r.bdf or r.label: r.model for r in driven}
    shown = next(t for t in driven[0].shown_by if t in (*_DRIVEN_LISTS, COLLECT_ENV_TITLE))
    blackwell = [r for r in driven if open_module_only(r.model)]
    if blackwell:
        return issue(f"proprietary kernel module with {len(blackwell)} Blackwell/Grace Hopper GPU(s) "
                     f"({blackwell[0].model}, {shown}): they are only supported by the open modules",
                     actual="proprietary", expected="open", subjects=[r.bdf or r.label for r in blackwell],
                     evidence=evidence)
    archs = {r.bdf or r.label: architecture_of(r.model) for r in driven}
    if all(a in PRE_TURING for a in archs.values()):
        return over_subjects(not_an_issue(
            f"proprietary kernel module with {', '.join(sorted(set(archs.values())))} GPUs ({shown}), which the open "
            "modules do not support: the proprietary flavour is the right one", actual="proprietary",
            evidence=evidence), subjects, whole, ask="nvidia-smi -L")
    kinds = ", ".join(sorted({archs[s] or named[s] for s in subjects}))
    return over_subjects(ok(f"proprietary kernel module {driver.version or ''} driving {kinds} ({shown}): allowed "
                            f"({_OPEN_NOTE if (b := release(driver.version, 1)) and b < (515,) else _OPEN_DEFAULT})"
                            .replace("  ", " "),
                            actual="proprietary", evidence=evidence, subjects=subjects),
                         subjects, whole, ask="nvidia-smi -L")


def _refused_by_release(events: GpuEvents | None, driver: NvidiaDriver | None,
                        listed: list[GpuInfo]) -> Outcome | None:
    """DRV-OPEN-MODULE not an issue where the kernel log shows the driver release refusing a GPU at probe
    (GpuEvents.refused: `... is not supported by the NVIDIA 550.90.07 driver release`) whose architecture, by its PCI
    device id, runs under either flavour (Turing to Hopper): the refusal names the release, not the flavour (the open
    module's own refusal says `by open nvidia.ko`). None where there is no such refusal, or where a flavour shown is
    the wrong one for a GPU listed (the proprietary module with a Blackwell GPU, the open one with a pre-Turing GPU)."""
    flavour = driver.flavour if driver is not None else None
    if events is None or not events.refused or any(
            (flavour == "proprietary" and open_module_only(g.name or "", g.implied_architecture))
            or (flavour == "open" and g.implied_architecture in PRE_TURING) for g in listed):
        return None
    either = []
    for gpu in events.refused:
        spec = by_pci_device_id(gpu.device_id)
        name = spec.name if spec is not None else ""
        arch = architecture_of(name, int(gpu.device_id, 16)) if name else ""
        if arch and arch not in PRE_TURING and not open_module_only(name, arch):
            either.append((gpu, name, arch))
    if not either:
        return None
    gpu, name, arch = either[0]
    shown = f"; the {flavour} module is the one shown" if flavour else ""
    return not_an_issue(f"the NVIDIA {gpu.release} driver release refused {name} ({arch}, PCI ID 10de:{gpu.device_id}) "
                        f"at {gpu.bdf} ('{gpu.line}'): the refusal names the driver release, not the kernel module's "
                        f"flavour, and {arch} GPUs run under either flavour{shown}", actual=flavour,
                        subjects=[g.bdf for g, _, _ in either],
                        evidence=(driver.flavour_evidence,) if driver is not None and driver.flavour_evidence else ())


def _ignored_as_legacy(events: GpuEvents | None, driver: NvidiaDriver | None) -> Outcome | None:
    """DRV-OPEN-MODULE not an issue where the kernel log shows the driver release ignoring a GPU as a legacy one
    (GpuEvents.legacy: `The NVIDIA Tesla K80 GPU installed in this system is supported through the NVIDIA 470.xx Legacy
    drivers`): its generation is left to a legacy branch (R470 and older, before the open modules' R515), so the
    release refuses it whatever the module's flavour. None where there is no such notice, or where the open module is
    the one shown (it drives no pre-Turing GPU: that finding stands)."""
    flavour = driver.flavour if driver is not None else None
    if events is None or not events.legacy or flavour == "open":
        return None
    gpu = events.legacy[0]
    release = f"the NVIDIA {gpu.release} driver release" if gpu.release else "the loaded driver release"
    branch = f" (the NVIDIA {gpu.branch} legacy drivers support it)" if gpu.branch else ""
    return not_an_issue(f"{release} ignores the {gpu.model} as a legacy GPU ('{gpu.line}'){branch}: its generation is "
                        "left to a legacy branch, whose only kernel module is the proprietary one, so the refusal "
                        "names the driver release, not the kernel module's flavour", actual=flavour,
                        subjects=[g.model for g in events.legacy], evidence=(gpu.line,))


def _open_only_driven(listed: list[GpuInfo], tests: P2pDataTests | None, collect_env: CollectEnv | None,
                      events: GpuEvents | None = None, gpus: GpuInventory | None = None,
                      cuda_ran: CudaRan | None = None) -> tuple[list[tuple[str, str]], str]:
    """((subject, name) of the GPUs the driver ran that only the open kernel modules drive, how the source shows them
    run). The proprietary module refuses to initialise such a GPU (facts/nvidia.py open_module_only), so nvidia-smi
    lists none and CUDA enumerates none. The driver ran those that nvidia-smi lists without an error, those a
    collect_env or check_env names where its torch initialised CUDA (not under WSL 2, whose GPU is the Windows
    driver's), those simpleP2P's CUDA named, those a CUDA program's device list names (_DRIVEN_LISTS), and those a kernel-log Xid names a process or its channel on
    (GpuEvents.work_run) where the inventory names their model."""
    found = [(g.subject, g.name or "") for g in listed if open_module_only(g.name or "", g.implied_architecture)]
    if found:
        return found, "listed by nvidia-smi"
    if collect_env is not None and collect_env.cuda_initialised and not wsl_kernel(collect_env.kernel):
        found = [(f"GPU {i}", name) for i, name in enumerate(collect_env.gpu_models) if open_module_only(name)]
        if found:
            return found, "the report's torch initialised CUDA on it: 'CUDA available: True'"
    if tests is not None:
        named = dict(m for t in tests.tests for m in t.models)
        found = [(f"GPU {i}", name) for i, name in sorted(named.items()) if open_module_only(name)]
        if found:
            return found, "CUDA named it in simpleP2P"
    # A list a CUDA program wrote (_DRIVEN_LISTS: llama.cpp's, ollama's, the CUDA samples'): CUDA ran on each GPU of it.
    found = [(r.label, r.model) for r in (gpus.gpus if gpus is not None else ()) if r.model and open_module_only(r.model)
             and any(t in _DRIVEN_LISTS for t in r.shown_by)]
    if found and gpus is not None:
        shown = next(t for r in gpus.gpus if (r.label, r.model) == found[0] for t in r.shown_by if t in _DRIVEN_LISTS)
        return found, f"{'NVML' if shown in (NVSMI_LIST_TITLE, TOPOLOGY_TITLE) else 'CUDA'} listed it: {shown}"
    # A CUDA program's context at work on the host (facts/cuda_ran.py, a launch refused for want of code included:
    # the runtime reached a GPU first) where every GPU any source names is open-only: CUDA ran on one of them.
    hosted = [(r.label, r.model) for r in (gpus.gpus if gpus is not None else ())]
    ran = cuda_ran.proof(with_launch=True) if cuda_ran is not None else None
    if ran is not None and hosted and all(m and open_module_only(m) for _, m in hosted):
        return hosted, f"{ran.did}: '{ran.line[:110]}'"
    run = events.work_run() if events is not None and gpus is not None else {}
    xids = [(r, e) for bdf, e in sorted(run.items())
            if gpus is not None and (r := gpus.by_bdf(bdf)) is not None and r.model and open_module_only(r.model)]
    if not xids:
        return [], ""
    record, xid = xids[0]
    named_by = next((s for s in record.shown_by if s != KERNEL_LOG_TITLE), "a listing")
    quoted = xid.line[xid.line.find("NVRM"):].strip()[:110]
    return ([(r.label, r.model) for r, _ in xids],
            f"the kernel log's Xid {xid.code} names a process's work on it: '{quoted}'; its model from {named_by}")


# The GPU lists that CUDA or NVML wrote, so that each GPU on them ran under the loaded kernel module (facts/gpus.py).
# nccl-tests prints each rank's `# Rank 0 Group 0 Pid 180172 on gh1 device 0 [0x01] NVIDIA GH200 480GB` from
# cudaGetDeviceProperties (common.cu): under a module that refused the GPU that call fails and no such line is printed.
# `nvidia-smi -L` and `nvidia-smi topo -m` are NVML's own lists: NVML enumerates only the GPUs the module initialised
# (a Blackwell GPU under the proprietary module leaves nvidia-smi at `No devices were found`, corpus 1148), so a GPU in
# their rows or columns ran under it, whatever source names its model (corpus 1045: topo -m's four columns, the
# user's `4× NVIDIA RTX PRO 6000 Blackwell`).
_DRIVEN_LISTS = (GGML_TITLE, GGML_USING_TITLE, OLLAMA_TITLE, P2P_TEST_TITLE, NVBANDWIDTH_TITLE, TORCH_WARNED_TITLE,
                 DEVICE_QUERY_TITLE, NCCL_TESTS_TITLE, NVSMI_LIST_TITLE, TOPOLOGY_TITLE)


def _driven_records(gpus: GpuInventory | None, collect_env: CollectEnv | None = None) -> list[GpuRecord]:
    """The inventory's GPUs with a model that a list CUDA or NVML wrote (_DRIVEN_LISTS) shows: the loaded kernel module
    drove each of them. So did the GPUs a collect_env or check_env lists where its torch initialised CUDA, outside WSL 2
    (the rule _open_only_driven applies to Blackwell; corpus 1673)."""
    lists = _driven_lists(collect_env)
    return [r for r in (gpus.gpus if gpus is not None else ()) if r.model and any(t in lists for t in r.shown_by)]


def _driven_lists(collect_env: CollectEnv | None) -> tuple[str, ...]:
    """The GPU lists whose GPUs ran under the loaded kernel module: _DRIVEN_LISTS, and a collect_env's or check_env's
    (its `nvidia-smi -L` list) where its torch initialised CUDA, outside WSL 2."""
    ran = collect_env is not None and collect_env.cuda_initialised and not wsl_kernel(collect_env.kernel)
    return _DRIVEN_LISTS + ((COLLECT_ENV_TITLE,) if ran else ())


def _pre_turing_ran(listed: list[GpuInfo], gpus: GpuInventory | None) -> Outcome | None:
    """DRV-OPEN-MODULE ok where a pre-Turing GPU ran (_pre_turing_driven) and no source shows the flavour: the
    proprietary module is loaded; None where none ran."""
    old = _pre_turing_driven(listed, gpus)
    if not old:
        return None
    judged = ok(f"{len(old)} pre-Turing GPU(s) ran ({old[0][1]}, {old[0][2]}), which only the proprietary kernel "
                "module drives (the open one supports Turing and later): the proprietary module is loaded, the right "
                "flavour for them", actual="proprietary (inferred)", subjects=[g for g, _, _ in old])
    return over_subjects(judged, [g for g, _, _ in old], gpus.whole_count if gpus is not None else None)


def _either_flavour_ran(listed: list[GpuInfo], gpus: GpuInventory | None,
                        collect_env: CollectEnv | None = None) -> Outcome | None:
    """DRV-OPEN-MODULE ok where no source shows the flavour and every GPU that ran (nvidia-smi's rows, a list CUDA or
    NVML wrote, a collect_env's whose torch initialised CUDA: _driven_lists) is Turing to Hopper: both flavours drive
    those GPUs, and the check finds the proprietary one allowed and the open one right for them, so either answer is ok
    (corpus 1676: ollama's compute capability 7.5 under 545.29.06; 2243: a collect_env's eight H100 with `Is CUDA
    available: True`). None where no GPU ran, where one's architecture is not known, or where a source names a
    pre-Turing or Blackwell GPU on the host (one module drives every GPU, and those need one flavour). None where
    nvidia-smi shows a Windows driver model (corpus 2047's WDDM): no Linux kernel module ran those GPUs."""
    if any(g.driver_model for g in listed):
        return None  # a Windows driver model (WDDM, TCC): the Windows driver ran them, no Linux kernel module
    records = gpus.gpus if gpus is not None else ()
    ran = [(g.subject, g.name or "", g.implied_architecture or architecture_of(g.name or ""), "listed by nvidia-smi")
           for g in listed]
    if not ran:
        lists = _driven_lists(collect_env)
        ran = [(r.label, r.model, architecture_of(r.model) or capability_architecture(r.model), shown)
               for r in records if r.model and (shown := next((t for t in r.shown_by if t in lists), ""))]
    named = [(m, a) for _, m, a, _ in ran] + [(r.model, architecture_of(r.model) or capability_architecture(r.model))
                                              for r in records if r.model]
    if not ran or any(not a for _, _, a, _ in ran) or any(
            a in PRE_TURING or open_module_only(m, a) for m, a in named):
        return None
    archs = ", ".join(sorted({a for _, _, a, _ in ran}))
    judged = ok(f"{len(ran)} {archs} GPU(s) ran under the loaded module ({ran[0][1] or ran[0][0]}, {ran[0][3]}): both "
                "kernel-module flavours drive Turing to Hopper, so neither is required here (which one is loaded is "
                "not shown)", actual="either (not shown)", subjects=[g for g, _, _, _ in ran])
    return over_subjects(judged, [g for g, _, _, _ in ran], gpus.whole_count if gpus is not None else None)


def _either_flavour_named(listed: list[GpuInfo], gpus: GpuInventory | None,
                          kernel_log: KernelLog | None) -> Outcome | None:
    """DRV-OPEN-MODULE not an issue where no source shows the flavour, nvidia-smi lists no GPU, every GPU a source
    names (the user's words, `lspci`, a hardware list) is Turing to Hopper, and the kernel log's NVRM lines show the
    module at work on a GPU (facts/gpu_events.module_at_work): whichever flavour is loaded drives them (corpus 2465).
    None where a model is not named, one is pre-Turing or Blackwell, or no module is shown at work (corpus 2472: no
    module loaded, so no flavour to judge)."""
    models = [r.model for r in (gpus.gpus if gpus is not None else ())]
    archs = [architecture_of(m) if m else "" for m in models]
    if listed or not models or not all(a and a not in PRE_TURING and not open_module_only(m, a)
                                       for m, a in zip(models, archs, strict=True)):
        return None
    seen = module_at_work(kernel_log.lines) if kernel_log is not None else ""
    if not seen:
        return None
    names = ", ".join(sorted(set(models)))
    return not_an_issue(f"every GPU named is {', '.join(sorted(set(archs)))} ({names}), which both kernel-module "
                        f"flavours drive, and the module is at work ('{seen[:120]}'): the open-only requirement "
                        "(Blackwell, Grace Hopper) does not arise; which flavour is loaded is not shown",
                        actual="either (not shown)")


def _pre_turing_only(gpus: GpuInventory | None, listed: Sequence[GpuInfo] = (),
                     driver: str | None = None) -> Outcome | None:
    """DRV-OPEN-MODULE not applicable where every GPU a source names (`lspci`'s `GP100GL [Tesla P100 PCIe 16GB]`,
    corpus 1861; nvidia-smi's rows; the user's `GPU is GP104BM [GeForce GTX 1070 Mobile]`, corpus 2052) is
    pre-Turing: the open module drives none of them, so the proprietary one is the only flavour there is. The caller
    passes a driver version only where it predates the open modules (R515): then neither the driver nor the GPUs
    have an open flavour. None where no GPU is named, a GPU's model is not named, or one is Turing or later. A driver
    shown finding no GPU (`Startup probe failed: No devices were found`, corpus 1822) may be the open one: that
    symptom leaves this unproven (facts/symptoms.py `doubted_statuses`)."""
    models = [g.name or "" for g in listed] + [r.model for r in (gpus.gpus if gpus is not None else ())]
    archs = [architecture_of(m) if m else "" for m in models]
    if not models or not all(a in PRE_TURING for a in archs):
        return None
    names = ", ".join(sorted(set(models)))
    before = f"driver {driver} predates the open kernel modules (R515), and " if driver else ""
    return not_applicable(f"{before}every GPU shown is {', '.join(sorted(set(archs)))} ({names}), which only the "
                          "proprietary kernel module drives (the open one supports Turing and later): there is no "
                          "flavour to choose", actual={"architectures": sorted(set(archs))})


def _pre_turing_named(gpus: GpuInventory | None) -> list[tuple[str, str, str]]:
    """(model, architecture, label) of each pre-Turing GPU (PRE_TURING) that a source names on the host (`lspci`,
    the user's hardware list: `GPU 1: NVIDIA GeForce GTX 1070 Ti`, corpus 1678), whether or not a driver drove it."""
    records = gpus.gpus if gpus is not None else ()
    return [(r.model, arch, r.label) for r in records if r.model and (arch := architecture_of(r.model)) in PRE_TURING]


def _pre_turing_driven(listed: list[GpuInfo], gpus: GpuInventory | None) -> list[tuple[str, str, str]]:
    """(subject, model, the list that shows it) of each pre-Turing GPU that nvidia-smi lists or CUDA listed
    (_DRIVEN_LISTS): the kernel module drove it, which the open module cannot (PRE_TURING)."""
    found = [(g.subject, g.name or "", "listed by nvidia-smi") for g in listed if g.implied_architecture in PRE_TURING]
    records = gpus.gpus if gpus is not None and not found else ()
    return found or [(r.label, r.model, shown) for r in records if architecture_of(r.model) in PRE_TURING
                     and (shown := next((t for t in r.shown_by if t in _DRIVEN_LISTS), ""))]


def _wsl_shown(nvidia: NvidiaGpus | None, collect_env: CollectEnv | None, virtualization: Virtualization | None) -> str:
    """What shows WSL 2, in words; "" where nothing does."""
    if wsl_driver(nvidia):
        return wsl_driver(nvidia)
    if collect_env is not None and wsl_kernel(collect_env.kernel):
        return f"kernel {collect_env.kernel}"
    return virtualization.source if virtualization is not None and virtualization.wsl else ""


def _over_driven(judged: Outcome, nvidia: NvidiaGpus | None, listed: list[GpuInfo],
                 gpus: GpuInventory | None) -> Outcome:
    """The module's verdict over the GPUs it drives (the coverage rule): the nvidia fact's GPUs, else the GPUs the
    inventory shows (a kernel log's `NVRM: GPU at PCI:…` line); as it was where no source shows a GPU."""
    if nvidia is not None and listed:
        return over_gpus(nvidia, listed, judged, ask="nvidia-smi -L")
    if gpus is not None and gpus.gpus:
        return over_subjects(judged, [r.bdf or r.label for r in gpus.gpus], gpus.whole_count, ask="nvidia-smi -L")
    return judged


# --- DRV-PERSISTENCE ---------------------------------------------------------------------------

_DROPIN = ("mkdir -p /etc/systemd/system/nvidia-persistenced.service.d && printf '[Service]\\nExecStart=\\n"
           "ExecStart=/usr/bin/nvidia-persistenced --user nvidia-persistenced --persistence-mode --verbose\\n' "
           "> /etc/systemd/system/nvidia-persistenced.service.d/persistence.conf && systemctl daemon-reload && "
           "systemctl restart nvidia-persistenced")


@check(
    "DRV-PERSISTENCE",
    applies_to="persistence",
    title="Persistence mode off / nvidia-persistenced not running",
    severity="low",
    confidence="documented",
    fix=Fix.of(step("Start the persistence daemon (the legacy way: `nvidia-smi -pm 1`)",
                       "systemctl start nvidia-persistenced", changes="persistence mode of every GPU",
                       keep=keep_cmd(cmd("systemctl enable --now nvidia-persistenced"),
                                     text="with the unit running `nvidia-persistenced --persistence-mode`"))),
    references=("https://man.archlinux.org/man/nvidia-persistenced.1.en",
                "https://docs.nvidia.com/deploy/driver-persistence/persistence-mode-legacy.html"),
)
def persistence(nvidia: NvidiaGpus | None = None, nvidia_services: NvidiaServices | None = None,
                container: ContainerInfo | None = None, bbswitch: BbSwitch | None = None) -> Outcome:
    """Reads: each GPU's persistence mode (NVML / `nvidia-smi`), `systemctl is-active
    nvidia-persistenced`, the unit's effective ExecStart (`systemctl cat`), the daemon's process.

    Bad value: persistence `Disabled` on any GPU of a serving host.

    Why: without persistence the driver tears the GPU state down when the last client exits and
    re-initialises it (seconds per GPU, longer with GSP/open modules) at the next CUDA or NVML call;
    power limits and application clocks set with nvidia-smi are lost with it.

    Traps: this costs startup time only (engine restarts, health checks, `nvidia-smi` polling):
    steady-state tokens/s are unchanged while the engine holds the GPUs.
    A GPU that drives a display (`Disp.A On`, `Display Active: Enabled`, Xorg among its processes) stays initialised
    while the display's client holds it open: persistence off there is not an issue. Ubuntu's packaged unit
    runs `nvidia-persistenced --no-persistence-mode`: the service is `active` while persistence is
    Disabled, and `systemctl enable --now` changes nothing; the fix is a drop-in that resets
    ExecStart. Inside a container the value is the host's and is fixed there.
    A pasted journal that shows the daemon failed or stopped, with no GPU listing, is an issue too,
    and so is DCGM's diagnostic row "Persistence mode for GPU N is disabled" (facts/symptoms.py).
    systemd's answer that it has no nvidia-persistenced unit (`Unit nvidia-persistenced.service could not be found.`,
    facts/nvidia_daemons.NOT_FOUND) says the daemon is not installed. Persistence mode can be on without the daemon
    (the legacy `nvidia-smi -pm 1`). So without a GPU listing it is unknown; with one, the GPUs' persistence mode
    decides, and a Disabled GPU's issue names the missing daemon.
    A kernel log that shows the daemon crashed (`nvidia-persiste[827]: segfault at …`) is an issue too.
    On a Windows host persistence mode does not exist: the nvidia-smi table's Driver-Model column (WDDM, TCC, MCDM)
    says so here, and any other source that shows Windows (facts/platform.WINDOWS_LINES) through the engine's rule
    (facts/applicability.LINUX_ONLY): not applicable. So it is under WSL 2, whose Linux VM runs no NVIDIA kernel
    module and reaches the GPU through the Windows driver (facts/applicability.WSL_TOO), where no WSL nvidia-smi shows
    the Persistence-M column the check reads itself.
    A GPU that bbswitch lists (`cat /proc/acpi/bbswitch`: facts/system.BbSwitch) is an Optimus laptop's discrete GPU
    that Bumblebee powers down between uses. Its driver state goes with its power, and Bumblebee's unload of the
    nvidia module clears persistence mode (Bumblebee-Project/Bumblebee#207). Persistence off there is not an issue.
    A Jetson before Thor runs its integrated GPU on the nvgpu driver, which has no persistence mode (its nvidia-smi
    prints Persistence-M N/A): where every GPU shown is one (gputable.nvgpu_jetson) the check is not applicable.
    """
    return _persistence(nvidia, nvidia_services, container, bbswitch)


def _persistence(nvidia: NvidiaGpus | None, nvidia_services: NvidiaServices | None,
                 container: ContainerInfo | None, bbswitch: BbSwitch | None = None) -> Outcome:
    """DRV-PERSISTENCE from the GPUs' persistence mode and the daemon (the engine adds the log's symptoms)."""
    daemon = nvidia_services.persistenced if nvidia_services is not None else None
    if nvidia is None and daemon is not None and daemon.installed is False and not daemon.pids:
        return unknown(f"systemd has no nvidia-persistenced unit (\"{daemon.log[-1][:160] if daemon.log else ''}\"), "
                       "so the daemon is not installed on this host; persistence mode can be on without it (the legacy "
                       "`nvidia-smi -pm 1`), and the GPUs' persistence mode is not in this source",
                       actual={"nvidia-persistenced": daemon.state}, hint="paste `nvidia-smi -q` (its Persistence Mode)")
    if nvidia is None and daemon is not None and daemon.running is False and daemon.log:
        return issue(f"nvidia-persistenced is {daemon.active}: each new CUDA/NVML client re-initialises the GPUs "
                     "(seconds; steady-state tokens/s are unaffected); the GPUs' persistence mode is not in this "
                     "source", actual={"nvidia-persistenced": daemon.active}, expected="active",
                     evidence=list(daemon.log[-3:]))
    if nvidia is None:
        return no_gpu_information()
    gpus = gpu_list(nvidia)
    if isinstance(gpus, Outcome):
        return gpus
    windows = [g for g in gpus if g.driver_model is not None]
    if windows and len(windows) == len(gpus):
        return over_gpus(nvidia, windows, not_applicable(
            f"a Windows driver ({', '.join(sorted({g.driver_model or '' for g in windows}))}): persistence mode is a "
            "Linux setting"))
    off = [g for g in gpus if g.persistence is False]
    read = [g for g in gpus if g.persistence is not None]
    # A GPU that drives a display is held open by the display (its client keeps the device file open), so the
    # driver never tears its state down: persistence mode saves nothing there.
    held = [g for g in off if g.shows_display]
    if held and len(held) == len(off):
        return over_gpus(nvidia, read, not_an_issue(
            f"persistence mode Disabled on GPU(s) {gpu_indices(held)}, but each drives a display, whose client keeps "
            "the GPU initialised: no client pays the re-initialisation that persistence mode saves",
            actual={g.subject: "Disabled (display active)" for g in held}, expected="Enabled",
            subjects=[g.subject for g in held]))
    off = [g for g in off if not g.shows_display]
    switched_bdfs = {normalize_bdf(bdf): on for bdf, on in bbswitch.gpus} if bbswitch is not None else {}
    switched = [g for g in off if g.bdf and g.bdf in switched_bdfs]
    if switched and len(switched) == len(off):
        states = ", ".join(f"{g.bdf} {'ON' if switched_bdfs[g.bdf] else 'OFF'}" for g in switched)
        return over_gpus(nvidia, read, not_an_issue(
            f"persistence mode Disabled on GPU(s) {gpu_indices(switched)}, which bbswitch switches on and off "
            f"(/proc/acpi/bbswitch: {states}): "
            "Bumblebee powers the discrete GPU down between uses and its unload of the nvidia module clears "
            "persistence mode, which would only keep the GPU powered",
            actual={g.subject: "Disabled (bbswitch)" for g in switched}, expected="Enabled",
            subjects=[g.subject for g in switched]))
    no_pm_flag = daemon is not None and "--no-persistence-mode" in " ".join(
        [daemon.exec_start or "", *daemon.argv])
    where = " (set on the host; the container cannot change it)" if container is not None and container.in_container else ""
    if off:
        subjects = [g.subject for g in off]
        if no_pm_flag:
            fix = Fix.of(step("Override the unit's ExecStart with a systemd drop-in that keeps persistence mode on",
                               sh(_DROPIN), changes="/etc/systemd/system/nvidia-persistenced.service.d/persistence.conf",
                               keep=keep_text("the drop-in stays across reboots and package upgrades")),
                          note="the unit's ExecStart has --no-persistence-mode (Ubuntu's packaging)")
            msg = ("persistence mode Disabled on GPU(s) " + gpu_indices(off) + " although nvidia-persistenced is "
                   f"{daemon.active if daemon else '?'}: its unit runs it with --no-persistence-mode")
        else:
            state = (f"nvidia-persistenced is {daemon.state or ('running' if daemon.pids else 'not running')}"
                     if daemon is not None else "the daemon's state is not in the source")
            fix = Fix.of(step("Start the persistence daemon (or: `nvidia-smi -pm 1`)",
                               "systemctl start nvidia-persistenced", changes="persistence mode of every GPU",
                               keep=keep_cmd(cmd("systemctl enable --now nvidia-persistenced"))))
            msg = f"persistence mode Disabled on GPU(s) {gpu_indices(off)}; {state}"
        return over_gpus(nvidia, read, issue(
            msg + ". Startup only: each new CUDA/NVML client re-initialises the GPUs (seconds), "
            "steady-state tokens/s are unaffected" + where,
            actual={g.subject: "Disabled" for g in off}, expected="Enabled", subjects=subjects, fix=fix,
            evidence=[daemon.exec_start] if daemon is not None and daemon.exec_start else []))
    if not read:
        return unknown("persistence mode is not in this source", hint="paste `nvidia-smi -q` or run on the host")
    note = ""
    if no_pm_flag:
        note = ("; the nvidia-persistenced unit has --no-persistence-mode: persistence was set by hand "
                "(`nvidia-smi -pm 1`) and is lost at the next reboot")
    return ok_over_gpus(nvidia, read, f"persistence mode Enabled on {len(read)} GPU(s)" + note + where,
                        actual="Enabled")


# --- DRV-COMPUTE-MODE --------------------------------------------------------------------------

# nvmlComputeMode_t: `NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1: Support Removed`; Exclusive_Process, one context per GPU
# usable from many threads, replaced it in CUDA 4.0.
NVML_COMPUTE_MODES = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html"


def tp_sizes(parallelism: Parallelism | None) -> list[int]:
    """Tensor-parallel sizes of the running engine instances (1 where none is set)."""
    return [e.tp_or_default for e in parallelism.running] if parallelism is not None else []


@check(
    "DRV-COMPUTE-MODE",
    applies_to="nvidia-gpu",
    title="Compute mode not Default",
    severity="medium",
    confidence="field-reports",
    fix=Fix.of(step("Set compute mode Default on the GPU", "nvidia-smi -i <n> -c DEFAULT",
                       changes="the GPU's compute mode",
                       keep=keep_text("not kept across driver reloads: run it from a systemd oneshot after "
                                      "nvidia-persistenced, or remove what sets it (Slurm/cluster prolog)"))),
    references=("https://github.com/huggingface/pytorch-image-models/issues/1033", NVML_COMPUTE_MODES, CUDA_ERRORS),
)
def compute_mode(nvidia: NvidiaGpus, parallelism: Parallelism | None = None) -> Outcome:
    """Reads: each GPU's compute mode (NVML / `nvidia-smi -q` `Compute Mode`), the engine's TP size
    and the processes on each GPU.

    Bad value: `Prohibited` (no CUDA context at all); `Exclusive_Process` on GPUs used by
    vLLM/SGLang (one context per GPU; their P2P probe and helper processes need more).

    Why: exclusive mode makes a second context fail with "all CUDA-capable devices are busy or
    unavailable"; in vLLM the P2P probe failing silently disables custom all-reduce.

    Traps: some clusters set Exclusive_Process on purpose with one engine per GPU: with exactly one
    process per GPU and TP=1 this is reported as a low-severity warning, not an error.
    Exclusive_Process matters only to a workload on the GPUs: where the source shows neither an engine's parallelism
    nor the GPUs' processes (a paste cut before its process list), it is unknown, with the condition named.
    `Exclusive_Thread` (an old driver's `E. Thread`) is an issue whatever runs: its context serves one thread of one
    process, so a second job placed on the GPU and a program's second CUDA thread alike are refused ("all CUDA-capable
    devices are busy or unavailable"), and NVML has removed support for the mode (NVML_COMPUTE_MODES).
    Where the source's program failed with "no CUDA-capable device is detected" (cudaErrorNoDevice, 100) and nowhere
    with "busy or unavailable" (46), an exclusive mode left unknown is not an issue (facts/symptoms.py
    cuda-no-device-not-compute-mode): an exclusive GPU refuses a second context with error 46, and error 100 is a
    process handed no GPU at all (a batch system's resource set without GPUs, an empty CUDA_VISIBLE_DEVICES).
    """
    gpus = gpu_list(nvidia)
    if isinstance(gpus, Outcome):
        return gpus
    modes = {g.subject: g.compute_mode for g in gpus if g.compute_mode}
    if not modes:
        return unknown("compute mode is not in this source", hint="paste `nvidia-smi -q`")
    bad = [g for g in gpus if g.compute_mode and g.compute_mode != "Default"]
    if not bad:
        return ok_over_gpus(nvidia, [g for g in gpus if g.compute_mode], f"compute mode Default on {len(modes)} GPU(s)",
                            actual="Default")
    fix = Fix.of(step("Set compute mode Default on the GPUs",
                       *[f"nvidia-smi -i {g.index} -c DEFAULT" for g in bad], changes="the GPUs' compute mode",
                       revert=[f"nvidia-smi -i {g.index} -c {g.compute_mode.upper().replace(' ', '_')}" for g in bad
                               if g.compute_mode],
                       keep=keep_text("a systemd oneshot after nvidia-persistenced running the same commands")))
    prohibited = [g for g in bad if g.compute_mode == "Prohibited"]
    actual = {g.subject: g.compute_mode for g in bad}
    if prohibited:
        return issue(f"compute mode Prohibited on GPU(s) {gpu_indices(prohibited)}: no CUDA context can be created",
                     actual=actual, expected="Default", subjects=[g.subject for g in bad], severity="high", fix=fix)
    thread = [g for g in bad if g.compute_mode == "Exclusive_Thread"]
    if thread:
        return over_gpus(nvidia, [g for g in gpus if g.compute_mode], issue(
            f"compute mode Exclusive_Thread on GPU(s) {gpu_indices(thread)}: a context there serves one thread of one "
            "process, so a second job placed on the GPU, a helper process and a program's second CUDA thread are all "
            "refused (\"all CUDA-capable devices are busy or unavailable\"); NVML has removed support for the mode",
            actual=actual, expected="Default", subjects=[g.subject for g in bad], fix=fix))
    tps = tp_sizes(parallelism)
    if not (parallelism is not None and parallelism.engines) and all(g.processes is None for g in bad):
        # A conditional finding: it breaks only a workload that opens several contexts per GPU, and a paste that shows
        # neither an engine nor the GPUs' processes does not say one runs (a live host's empty process list does).
        return over_gpus(nvidia, [g for g in gpus if g.compute_mode], unknown(
                       f"compute mode {bad[0].compute_mode} on GPU(s) {gpu_indices(bad)} allows one CUDA context per "
                       "GPU, which breaks vLLM/SGLang (their P2P probe and helper processes open more), but no engine "
                       "or process using these GPUs is in this source", actual=actual, subjects=[g.subject for g in bad],
                       hint="paste the engine's command line and `nvidia-smi` with its processes"))
    one_each = all(g.processes is not None and len(g.processes) <= 1 for g in bad)
    if one_each and tps and max(tps) == 1:
        return issue(f"compute mode {bad[0].compute_mode} on GPU(s) {gpu_indices(bad)} with one engine per GPU and "
                     "TP=1: works, but any helper context (P2P probe, profiler) will fail", actual=actual,
                     expected="Default", subjects=[g.subject for g in bad], severity="low", fix=fix)
    return issue(f"compute mode {bad[0].compute_mode} on GPU(s) {gpu_indices(bad)}: vLLM/SGLang open several "
                 "contexts per GPU (P2P probe, helpers); extra ones fail and custom all-reduce is disabled",
                 actual=actual, expected="Default", subjects=[g.subject for g in bad], fix=fix)


# --- DRV-FABRIC-MANAGER ------------------------------------------------------------------------


@check(
    "DRV-FABRIC-MANAGER",
    applies_to="nvswitch",
    title="NVSwitch system without a running, version-matched Fabric Manager",
    severity="high",
    confidence="documented",
    fix=Fix.of(step("Restart Fabric Manager", "systemctl restart nvidia-fabricmanager",
                       keep=(keep_text("install nvidia-fabricmanager-<branch> (and libnvidia-nscq-<branch>) matching "
                                       "the driver exactly, pin it with the driver"),
                             keep_cmd(cmd("systemctl enable --now nvidia-fabricmanager")),
                             keep_line("ib_umad", "/etc/modules-load.d/ib_umad.conf", label="B200/B300 HGX",
                                       text="and `modprobe ib_umad` now")))),
    references=(FM_GUIDE, CUDA_ERRORS, "https://github.com/spectrocloud/CanvOS/pull/700"),
)
def fabric_manager(nvidia: NvidiaGpus | None = None, nvidia_services: NvidiaServices | None = None,
                   pci: PciDevices | None = None, modules: LoadedModules | None = None,
                   empty_greps: EmptyGreps | None = None, gpus: GpuInventory | None = None,
                   serving_log: ServingLog | None = None, collect_env: CollectEnv | None = None,
                   gpu_topology: TopoMatrix | None = None, cuda_ran: CudaRan | None = None,
                   parallelism: Parallelism | None = None, p2p_data_tests: P2pDataTests | None = None) -> Outcome:
    """Reads: NVSwitch devices on the PCI bus (NVIDIA, class 0x0680), each GPU's fabric state and
    status (NVML / `nvidia-smi -q` Fabric: Hopper and later), `systemctl is-active
    nvidia-fabricmanager`, the `nv-fabricmanager` process and `nv-fabricmanager --version`, the
    driver version, `ib_umad` in /proc/modules. Without NVML or nvidia-smi, GPU models that another source names
    and that are never on an NVSwitch make it not applicable (`applies_to`, facts/applicability.py); so does, where
    no GPU named may sit on an NVSwitch, a whole `nvidia-smi topo -m` without a switch fabric (PCIe paths only, NVLink
    only between disjoint pairs, or no pair above NV4) or a p2pBandwidthLatencyTest that ran at PCIe rates on every
    pair (applicability.no_switch_shown). So does a Kubernetes node whose own count is one GPU and names no model
    that may sit on an NVSwitch (applicability.node_alone).

    Bad value: FM inactive or failed; FM version different from the driver's; a GPU whose fabric
    state is not `Completed` or whose status is not `Success`; Blackwell HGX without `ib_umad`.
    The Fabric block's Health Summary is the fabric's links after registration: DRV-NVLINK-HEALTH reads it, and a
    Completed, Success GPU is ok here whatever it says.

    Why: FM configures the NVSwitch memory fabric; without it CUDA init fails with
    cudaErrorSystemNotReady (802) or GPUs lose NVLink P2P, and NCCL falls back to PCIe.

    Traps: PCIe cards and NVLink-bridge pairs need no FM (not applicable). On GB200/GB300 NVL72
    compute trays FM runs on the NVLink switch trays, not on the compute node: its absence there is
    not a finding. The binary is `nv-fabricmanager`; the service and package `nvidia-fabricmanager`.
    A status summary's table row of the unit and its systemd state (`| nvidia-fabricmanager.service | active
    (running) |`) is read as `systemctl status` is.
    systemd's answer that it has no such unit (`Unit nvidia-fabricmanager.service could not be found.`, `Failed to
    start nvidia-fabricmanager.service: Unit nvidia-fabricmanager.service not found.`: facts/nvidia_daemons.NOT_FOUND)
    says Fabric Manager is not installed. That is an issue where the GPUs shown sit on an NVSwitch board. Where no GPU
    is shown it is unknown. `systemctl is-active` prints `inactive` for a missing unit too, and is read only as that. Its journal says what no GPU listing shows: `NV_WARN_NOTHING_TO_DO` from the NVSwitch driver
    (no NVSwitch: not applicable) and a driver version mismatch (it exits at start).
    A CUDA program's "system not yet initialized" (error 802) is an issue too (facts/symptoms.py).
    So is Fabric Manager's own refusal of its configuration ("config file item: … has an invalid value", "failed
    to open fabric topology file"), with or without a journal tag.
    Where nothing else settles it, an NCCL warning that CUDA refused its NVLS buffers ('invalid argument' in
    transport/nvls.cc) is an issue: NCCL's maintainers trace it to a Fabric Manager restart without a GPU reset, which
    a GPU reset or a reboot clears. From an NCCL of the 2.26 series (its banner, or the WARN at nvls.cc:254,
    ServingLog.nvls_refused_by_nccl_2_26) it stays unknown, naming both causes: that series failed so on a R535 driver.
    A pasted NCCL log that set up NVLS (`16 nvls channels`, "NVLS multicast
    support is available", `NVLS comm ... headRank 0 nHeads 4`, a multi-node job's `NVLS Head  0:  0  8`) is ok: NCCL asks the CUDA driver for NVSwitch multicast on a live context, which an
    NVSwitch GPU gives only on a fabric that Fabric Manager has configured (ServingLog.nvls_up).
    Where nothing else settles it, a CUDA program that ran on an NVSwitch board's GPUs (facts/cuda_ran.py: an
    nvbandwidth test, a p2pBandwidthLatencyTest that answered peer access, a collect_env or check_env whose torch
    initialised CUDA) is ok (cuda_ran_on_nvswitch): CUDA
    refuses every GPU of such a board with error 802 until Fabric Manager has set up the fabric (FM_GUIDE,
    CUDA_ERRORS). On two to four SXM GPUs (a 4-GPU A100, H100 or H200 board has no NVSwitch) it is ok too: that
    board needs no Fabric Manager, an NVSwitch board's fabric was up (one GPU may be a partition with NVLink off). So is
    CUDA at work on two or more GPUs the driver names by no model (`NVIDIA Graphics Device`, corpus 2924): an NVSwitch
    board's would have been refused, any other board needs no Fabric Manager. A GB200/GB300 compute tray's Fabric Manager
    runs on the switch trays: not read so. Where the program's lines name no GPU (TensorRT-LLM's ledger), the one GPU
    model the source names, as many as the TP x PP of the engine command whose run it is, are its GPUs; where its line
    is CUDA's uncorrectable NVLink error (220), two of that model at least: the work crossed NVLink (corpus 2271).
    nvidia-smi showing a program's memory held on such GPUs (half a GPU's memory or more in use, or a process holding
    a model's worth: facts/cuda_ran.held_in_table) is CUDA at work too: memory is allocated only through a live
    context (corpus 2447). A refused start (802) that CUDA at work after it in the same source shows behind (a failure
    the user quotes from before the fix, then the working run: facts/cuda_ran.ran_after) is the past, no issue; the CUDA
    that ran after it is ok on any GPU count, since 802 comes only from an NVSwitch system's fabric (corpus 2443).
    Where nothing else settles it, an nccl-tests run checked with 0 wrong elements at a bus bandwidth above 450 GB/s
    (the per-direction NVLink of the widest bridge; PCIe and the network carry far less) ran over a live NVSwitch
    fabric, a board's or a GB200/GB300 rack's: ok (collective_on_fabric, corpus 1407).
    """
    judged = _fabric_manager(nvidia, nvidia_services, pci, modules, empty_greps, gpus)
    refused = serving_log.nvls_refused() if serving_log is not None and judged.status == "unknown" else ()
    if refused and serving_log is not None and not serving_log.nvls_refused_by_nccl_2_26():
        return issue(f"NCCL's NVLS (NVSwitch multicast) setup failed: \"{refused[0]}\": CUDA refused to bind the "
                     "multicast buffers on GPUs whose driver reports multicast support, which NCCL's maintainers trace "
                     "to an NVSwitch fabric left stale by a Fabric Manager restart without a GPU reset (NVIDIA/nccl#976, "
                     "#1338, #1488); this NCCL is not the 2.26 series that also failed so on a R535 driver",
                     actual={"nvls": "refused"}, evidence=list(refused),
                     fix=Fix.of(step("Reset the GPUs after Fabric Manager's restart (or reboot the node)",
                                     "nvidia-smi -r", keep=(keep_text("check `journalctl -u nvidia-fabricmanager` "
                                                                      "for a restart while GPU processes ran; "
                                                                      "NCCL_NVLS_ENABLE=0 runs without NVLS "
                                                                      "meanwhile"),))))
    if refused:
        return unknown(f"NCCL's NVLS (NVSwitch multicast) setup failed: \"{refused[0]}\": CUDA refused the multicast "
                       "buffers on GPUs whose driver reports multicast support, whose known cause is an NVSwitch fabric "
                       "left stale by a Fabric Manager restart without a GPU reset; but this NCCL is of the 2.26 series "
                       "(its banner, or the WARN at nvls.cc:254), whose fault on a R535 driver failed the same way, and "
                       "the source shows neither Fabric Manager nor the GPUs' fabric state", actual={"nvls": "refused"}, hint="check `journalctl -u nvidia-fabricmanager` for a restart "
                       "and `nvidia-smi -q` for each GPU's Fabric State; after a restart reset the GPUs or reboot; "
                       "NCCL_NVLS_ENABLE=0 runs without NVLS meanwhile")
    nvls = serving_log.nvls_up() if serving_log is not None and judged.status == "unknown" else ()
    if nvls and serving_log is not None:
        found = ok("NCCL set up NVLS (NVSwitch multicast) on the GPUs, which the CUDA driver offers only on an "
                   "NVSwitch fabric that Fabric Manager has configured", actual={"nvls": True}, evidence=list(nvls))
        shown = [f"GPU {b}" for b in serving_log.gpu_bus_ids]
        return over_subjects(found, shown, serving_log.comm_ranks or None, ask="nvidia-smi -q") if shown else found
    ran, listed = cuda_ran_on_nvswitch(collect_env, gpu_topology, cuda_ran, gpus, parallelism) \
        if judged.status == "unknown" else ("", [])
    if ran:
        found = ok(ran, actual={"cuda_ran": True}) if not listed else over_subjects(
            ok(ran, actual={"cuda_initialised": True}), listed, gpus.whole_count if gpus is not None else None,
            ask="nvidia-smi -q")
        # A refused start (802) that the run after it shows behind is the user's past: the run's verdict stands over
        # the symptom its line is (facts/cuda_ran.ran_after).
        return replace(found, sharpen=Sharpen(stands=True)) if cuda_ran is not None and cuda_ran.recovered else found
    fabric = collective_on_fabric(p2p_data_tests, gpus) if judged.status == "unknown" else ""
    if fabric:
        return ok(fabric, actual={"collective_over_nvswitch": True})
    return judged


def _fabric_manager(nvidia: NvidiaGpus | None, nvidia_services: NvidiaServices | None, pci: PciDevices | None,
                    modules: LoadedModules | None, empty_greps: EmptyGreps | None,
                    gpus: GpuInventory | None) -> Outcome:
    """DRV-FABRIC-MANAGER from the GPUs' fabric state, the daemon and the modules (the check adds the symptoms)."""
    fm = nvidia_services.fabricmanager if nvidia_services is not None else None
    if fm is not None and fm.nvswitch is False:
        return not_applicable("Fabric Manager's query of the NVSwitch driver answered NV_WARN_NOTHING_TO_DO: no "
                              "NVSwitch on this host, which needs no Fabric Manager", actual={"fm": fm.active})
    if nvidia is None and fm is not None and fm.log:  # what its pasted status / journal lines said
        return _fabric_manager_alone(fm)
    if nvidia is None:  # another source's models may still settle "no NVSwitch" (applies_to, the engine's rule)
        return no_gpu_information()
    shown = gpu_list(nvidia)
    if isinstance(shown, Outcome):
        return shown
    switches = nvswitch_present(pci)
    switch_gpus = [g for g in shown if g.spec is not None and g.spec.nvlink_kind == "switch"]
    fabric_read = [g for g in shown if g.fabric_state not in (None, "Not Supported")]
    # A name the table reads as no one row (a cut name several boards may be) says nothing of a switch.
    undecided = [g for g in shown if g.spec is None and on_nvswitch(g.name or g.cut_name) is None]
    if not switches and not fabric_read and switches is None and undecided and not switch_gpus:
        return unknown(f"whether these GPUs sit on an NVSwitch fabric is not in this source: "
                       f"{', '.join(nvidia.names_in_words)} names no one board", hint="nvidia-smi -q (Fabric)")
    if not switches and not fabric_read and not (switch_gpus and switches is None):
        kinds = ", ".join(nvidia.names_in_words) or "GPUs of unknown model"
        judged = not_applicable(f"no NVSwitch ({kinds}): PCIe or NVLink-bridge GPUs need no Fabric Manager")
        # A PCI bus without an NVSwitch decides it for the host; without the bus, the models of the GPUs shown do.
        return judged if switches is False else over_gpus(nvidia, shown, judged)
    rack = [g for g in shown if re.search(r"\bGB[23]00\b", g.name or "")]
    problems: list[str] = []
    subjects: list[str] = []
    verdicts = {g.subject: fabric_verdict(g) for g in fabric_read}
    not_done = [g for g in fabric_read if verdicts[g.subject][0] == "bad"]
    quoted: list[str] = []
    if not_done:
        # The worse Fabric field decides, quoted with the better one it overrides (`State : Completed`).
        said = dict.fromkeys(" although ".join(f"`{line}`" for line in verdicts[g.subject][1]) for g in not_done)
        problems.append("fabric not ready on GPU(s) " + gpu_indices(not_done) + ": " + "; ".join(said))
        subjects += [g.subject for g in not_done]
        quoted = [f"GPU {g.index}: {line}" for g in not_done for line in verdicts[g.subject][1]][:6]
    if fm is not None and fm.mismatch:
        problems.append(f"Fabric Manager stopped on a driver version mismatch ({fm.mismatch.strip()[-160:]})")
    elif fm is not None and fm.running is False and not rack and (fm.installed is not False or switches or fabric_read
                                                                   or nvswitch_board([g.name or "" for g in shown])):
        problems.append(f"nvidia-fabricmanager is {fm.state or 'not running'}")
    if fm is not None and fm.version and nvidia.driver_version and fm.version != nvidia.driver_version:
        problems.append(f"Fabric Manager {fm.version} does not match driver {nvidia.driver_version}")
    blackwell_hgx = [g for g in shown if is_blackwell(g) and g.spec is not None and g.spec.nvlink_kind == "switch"]
    if blackwell_hgx and not rack and module_loaded(modules, empty_greps, "ib_umad")[0] is False:
        problems.append("ib_umad is not loaded (the FM of NVL5+ Blackwell HGX needs it)")
    if problems:
        return issue("; ".join(problems) + ": NVLink/NVSwitch is not usable (CUDA may fail with error 802)",
                     actual={"fm": fm.state if fm else None, "fm_version": fm.version if fm else None,
                             "fabric": {g.subject: g.fabric_state for g in fabric_read}},
                     expected="FM active, same version as the driver, fabric Completed/Success",
                     subjects=subjects or [g.subject for g in shown], evidence=quoted + (problems[1:] if quoted else problems))
    if rack and (fm is None or fm.running is not True):
        return not_an_issue("GB200/GB300 compute tray: Fabric Manager runs on the NVLink switch trays, not here"
                            + (f"; fabric state {fabric_read[0].fabric_state}" if fabric_read else ""),
                            actual={"fm": fm.active if fm else None})
    if fm is not None and fm.installed is False and not rack:  # GPUs that a board without NVSwitch may hold
        return unknown(f"nvidia-fabricmanager is not installed (systemd has no unit for it) with {len(shown)} "
                       f"GPU(s) shown ({', '.join(nvidia.names_in_words)}): an NVSwitch board needs it, a board of at most "
                       f"{_DIRECT_BOARD_MOST} SXM GPUs joined by direct NVLinks does not, and which board this is is "
                       "not in this source", actual={"fm": fm.state}, hint="paste `lspci -d 10de:` or `nvidia-smi topo -m`")
    if fm is None or fm.running is None:
        if fabric_read:
            return ok(f"fabric registration Completed on {len(fabric_read)} GPU(s) (FM service state not visible)",
                      actual={g.subject: g.fabric_state for g in fabric_read})
        what = ("NVSwitch system" if switches else "NVSwitch-class GPUs (" + ", ".join(nvidia.names)
                + "; the PCI bus is not in the source, and 4-GPU boards have no NVSwitch)")
        return unknown(what + ", but neither the Fabric Manager service nor the GPUs' fabric state is "
                       "in this source", hint="run `systemctl status nvidia-fabricmanager` and `nvidia-smi -q` on "
                       "the host")
    return ok(f"nvidia-fabricmanager {fm.active or 'running'}" + (f", version {fm.version}" if fm.version else "")
              + (f"; fabric Completed on {len(fabric_read)} GPU(s)" if fabric_read else ""),
              actual={"fm": fm.active, "fm_version": fm.version})


def _fabric_manager_alone(fm: Daemon) -> Outcome:
    """DRV-FABRIC-MANAGER from what Fabric Manager's service and journal say, with no GPU listing."""
    actual = {"fm": fm.state, "fm_version": fm.version}
    if fm.mismatch:
        return issue("Fabric Manager stopped on a driver version mismatch: NVLink/NVSwitch is not usable (CUDA may "
                     "fail with error 802)", actual=actual, expected="FM active, same version as the driver",
                     evidence=[fm.mismatch.strip()])
    if fm.running is True:
        # FM exits at start without NVSwitches or on a version mismatch: running says both are right.
        return ok(f"nvidia-fabricmanager {fm.active or 'running'} (it exits at start on a version mismatch or "
                  "without NVSwitches)", actual=actual)
    if fm.running is False and fm.nvswitch:
        return issue(f"nvidia-fabricmanager is {fm.state or 'not running'} on a host whose Fabric Manager had "
                     "NVSwitches to configure: NVLink/NVSwitch is not usable (CUDA may fail with error 802)",
                     actual=actual, expected="FM active", evidence=list(fm.log[-3:]))
    if fm.nvswitch:
        return unknown(f"this host has NVSwitches (\"{fm.log[-1]}\"), but whether nvidia-fabricmanager runs is not "
                       "in this source", actual=actual, hint="run `systemctl status nvidia-fabricmanager` and "
                       "`nvidia-smi -q` (its Fabric section) on the host")
    if fm.installed is False:
        return unknown(f"systemd has no nvidia-fabricmanager unit (\"{fm.log[-1][:160]}\"), so Fabric Manager is not "
                       "installed on this host: an NVSwitch board's GPUs need it (CUDA fails there with error 802), PCIe "
                       "and NVLink-bridge GPUs do not, and which GPUs this host has is not in this source",
                       actual=actual, hint="paste `nvidia-smi -q` (its Fabric section) or `lspci -d 10de:`")
    return unknown(f"nvidia-fabricmanager is {fm.active or 'in an unknown state'}, but whether this host has "
                   "NVSwitches is not in this source", actual=actual,
                   hint="paste `nvidia-smi -q` (its Fabric section) or `lspci -d 10de:`")


# --- DRV-GSP-FIRMWARE --------------------------------------------------------------------------

# What a GSP failure (boot, timeout, crash) asks for: the GPU's state first, then the known workarounds (the driver
# README's GSP chapter: NVreg_EnableGpuFirmware=0 on the proprietary module where the GPU allows it).
_GSP_BOOT_FIX = advice("Reset the GPU (`nvidia-smi -r`) or power-cycle the host, then reload the driver; if it recurs, "
                       "update the driver and the system BIOS; as a workaround the proprietary module can run without "
                       "GSP (`options nvidia NVreg_EnableGpuFirmware=0`) before Blackwell, while the open module and "
                       "Blackwell GPUs need GSP", cost="driver-reload")


@check(
    "DRV-GSP-FIRMWARE",
    applies_to="nvidia-gpu",
    title="GSP firmware state",
    severity="low",
    confidence="documented",
    fix=Fix.of(step("Remove NVreg_EnableGpuFirmware=0 from /etc/modprobe.d/*.conf, rebuild the initramfs, then "
                       "reload the driver (or reboot)", "update-initramfs -u", cost="driver-reload",
                       changes="the nvidia module's options")),
    references=(GSP_README, KERNEL_OPEN),
    sharpen=Sharpen("the GPU is not usable until it is reset and the driver initialises it again", _GSP_BOOT_FIX),
)
def gsp_firmware(nvidia: NvidiaGpus | None = None, nvidia_driver: NvidiaDriver | None = None,
                 gsp_log: GspLog | None = None, gpu_events: GpuEvents | None = None) -> Outcome:
    """Reads: each GPU's `GSP Firmware Version` (NVML nvmlDeviceGetGspFirmwareVersion /
    `nvidia-smi -q`; a version = in use, `N/A` = not), `EnableGpuFirmware` in
    /proc/driver/nvidia/params, the module flavour; the log symptoms of facts/symptoms.py: a GSP boot
    failure ("Cannot initialize GSP firmware RM" / "_kgspBootGspRm: unexpected WPR2 already up" / R515-R525's
    "kgspInitRm_IMPL: cannot bootstrap"), a GSP firmware image not of the module's release ("GSP firmware image
    version mismatch", "RmFetchGspRmImages: No firmware image found": its fix is the module and firmware of one
    release), a GSP
    timeout (an Xid 119 line, a heartbeat or RPC timeout, "Back to back GSP RPC timeout"), a GSP crash (an Xid 120 line, a
    "GSP-CrashCat Report"), a GSP call failing with NV_ERR_RESET_REQUIRED (status=0x00000062), the driver's
    GSP RPC history dump ("RPC history (CPU -> GSP)", its table rows), which it prints only on Xid 119 or 120.

    Bad value: GSP not in use on Blackwell or with the open modules; a GSP failure in the kernel log, which
    proves the issue on its own, quoted, with no GPU information.

    Why: "The GSP firmware is used by default on GPUs which support it. Offloading tasks ... can
    improve performance" (driver README, gsp.html); the open modules depend on GSP.

    Traps: old forum advice to disable GSP (slow `nvidia-smi`, desktop stutter on early 5xx
    proprietary drivers) does not apply to inference servers; there is no evidence that disabling
    it speeds CUDA work. `N/A` on a proprietary-module Turing-to-Hopper host looks like missing firmware and
    is not: not an issue.

    Where no GPU's version is in the source, kernel-log lines that name GSP RPCs (facts/gsp_log.py:
    `rpcRmApiFree_GSP`, `_kgspRpcRecvPoll`) show GSP in use on the GPUs they name. A line of them that is
    a GSP failure (the symptoms above, an Xid 119 among them) proves an issue here, the worse reading of
    the line, with the kinder one quoted beside it. The fix is a reset, a driver update, and
    NVreg_EnableGpuFirmware=0 on the proprietary module where the GPU allows it.
    An Xid 119 or 120, or a heartbeat or RPC timeout, on a GPU the same log shows failing under its firmware (Xid 79,
    lost from the bus, a memory-subsystem error: the driver's GSP timeout decision tree asks that first) proves no GSP
    failure: the GPU's loss is DRV-XID's finding. An RPC that
    `_issueRpcAndWait` could not send with status 0x0F (NV_ERR_GPU_IS_LOST) is such a consequence too: the
    firmware of a GPU gone from the bus cannot answer (not an issue here).
    Where no GPU's version is in the source, the open module's refusal of a GPU "because it does not include the
    required GPU System Processor (GSP)" (GpuEvents.refused_open) names the GPU by its PCI device id: a GPU before
    Turing has no GSP (not applicable; the refusal is DRV-OPEN-MODULE's finding), a Turing or later one has a GSP the
    driver could not reach (issue, corpus 624: an H100 in a confidential guest); an id the GPU table cannot place
    leaves it unknown.
    """
    refused = _gsp_refused_by_open(gpu_events) if nvidia is None or not nvidia.gpus else None
    return refused or _gsp_firmware(nvidia, nvidia_driver, gsp_log)


def _gsp_refused_by_open(events: GpuEvents | None) -> Outcome | None:
    """DRV-GSP-FIRMWARE from the GPUs the open nvidia.ko refused for want of a GSP, each placed by its PCI device id
    (gputable.by_pci_device_id, else architecture_of's device-id bound); None where there is none or one's
    architecture is unknown."""
    if events is None or not events.refused_open:
        return None
    placed = []
    for gpu in events.refused_open:
        spec = by_pci_device_id(gpu.device_id)
        name = (spec.nvidia_smi_names[0] if spec.nvidia_smi_names else spec.name) if spec is not None else ""
        arch = architecture_of(spec.name if spec is not None else "", int(gpu.device_id, 16))
        if not arch:
            return None
        placed.append((gpu, f"{name + ', ' if name else ''}{arch}, PCI ID 10de:{gpu.device_id}", arch))
    bdfs = [gpu.bdf for gpu, _, _ in placed]
    with_gsp = [(gpu, said, arch) for gpu, said, arch in placed if arch not in PRE_TURING]
    if with_gsp:
        gpu, said, arch = with_gsp[0]
        return over_subjects(issue(
            f"the open kernel module found no GSP on the GPU at {gpu.bdf} ({said}): a {arch} GPU has "
            "one, so the driver could not reach its GSP firmware and did not initialise the GPU (the open module "
            f"depends on GSP): '{gpu.line}'", actual="GSP not found", expected="a GSP firmware version",
            subjects=[g.bdf for g, _, _ in with_gsp], evidence=[gpu.line]), bdfs, ask="nvidia-smi -q")
    return over_subjects(not_applicable(
        "no GSP before Turing: " + "; ".join(f"the GPU at {gpu.bdf} ({said})" for gpu, said, _ in placed)
        + ", which the open kernel module refused for it (DRV-OPEN-MODULE's finding: only the proprietary module "
        "drives it)"), bdfs, ask="nvidia-smi -q")


def _gsp_firmware(nvidia: NvidiaGpus | None, nvidia_driver: NvidiaDriver | None, gsp_log: GspLog | None) -> Outcome:
    """DRV-GSP-FIRMWARE from the GPUs' GSP firmware versions and the GSP RPCs the kernel log names
    (the engine adds the log's symptoms)."""
    if gsp_log is not None and (nvidia is None or all(g.gsp_firmware is None for g in nvidia.gpus)):
        lost = gsp_log.lost
        judged = not_an_issue(
            "the kernel log names GSP RPCs, so the driver runs the GSP firmware"
            + (f" on {', '.join(gsp_log.gpus)}" if gsp_log.gpus else " (the line names no GPU; the setting is the "
               "driver's, one for all its GPUs)")
            + f": \"{gsp_log.first}\""
            + ((f"; \"{lost[0]}\"" if lost[0] != gsp_log.first else "; the RPCs")
               + " fail with NV_ERR_GPU_IS_LOST (0x0F): the GPU is gone from the bus, so its firmware cannot answer. "
               "That is a consequence of the GPU's loss (DRV-XID's finding), not a fault of the GSP firmware"
               if lost else ""),
            actual="in use (kernel log)", evidence=gsp_log.lines[:3])
        return over_subjects(judged, gsp_log.gpus, nvidia.attached if nvidia is not None else None,
                             ask="nvidia-smi -q") if gsp_log.gpus else judged
    if nvidia is None:
        return unknown("", needs="nvidia")
    gpus = gpu_list(nvidia)
    if isinstance(gpus, Outcome):
        return gpus
    turing_up = [g for g in gpus if g.implied_architecture not in PRE_TURING]
    if not turing_up:
        return over_gpus(nvidia, gpus, not_applicable("no GSP before Turing: " + ", ".join(
            f"{g.name or g.label} ({g.implied_architecture})" for g in gpus)))
    read = [g for g in turing_up if g.gsp_firmware is not None]
    if not read:
        return unknown("the GSP firmware version is not in this source", hint="paste `nvidia-smi -q`")
    off = [g for g in read if g.gsp_firmware == ""]
    flavour = nvidia_driver.flavour if nvidia_driver is not None else None
    param = nvidia_driver.enable_gpu_firmware if nvidia_driver is not None else None
    evidence = [f"/proc/driver/nvidia/params: EnableGpuFirmware: {param}"] if param is not None else []
    if not off:
        # GSP in use is what the check wants, and what old forum advice says to turn off: a key negative, as the
        # kernel log's GSP RPCs say above.
        return over_gpus(nvidia, read, not_an_issue(
            f"GSP firmware {read[0].gsp_firmware} in use on {len(read)} GPU(s): the driver's default where the GPU "
            "supports it; the old advice to disable it (NVreg_EnableGpuFirmware=0, for slow nvidia-smi or desktop "
            "stutter on early 5xx drivers) does not apply to inference servers",
            actual=read[0].gsp_firmware, subjects=[g.subject for g in read]))
    must = [g for g in off if is_blackwell(g)] or (off if flavour == "open" else [])
    if must:
        return issue(f"GSP firmware not in use on GPU(s) {gpu_indices(must)}"
                     + (" with the open kernel module (which depends on GSP)" if flavour == "open" else
                        " (Blackwell)") + (f"; EnableGpuFirmware={param}" if param == "0" else ""),
                     actual="N/A", expected="a GSP firmware version", subjects=[g.subject for g in must],
                     evidence=evidence)
    # `N/A` reads as missing firmware, and the driver's default since R555 is GSP on: it looks wrong and is not.
    return not_an_issue(f"GSP firmware not in use on GPU(s) {gpu_indices(off)} ('GSP Firmware Version: N/A') with "
                        "the proprietary module: allowed before Blackwell, and there is no evidence that running "
                        "without GSP changes CUDA throughput", actual="N/A", expected="a GSP firmware version or "
                        "N/A before Blackwell with the proprietary module", subjects=[g.subject for g in off])


# --- DRV-NVLINK-HEALTH -------------------------------------------------------------------------

# What an NVLink error asks for on an NVSwitch system before a GPU reset (Fabric Manager user guide).
_NVSWITCH_FIX = ("check Fabric Manager (`systemctl status nvidia-fabricmanager` and its journal) and each GPU's "
                 "Fabric State and NVLink state (`nvidia-smi -q`, `nvidia-smi nvlink -s`) before resetting the GPUs: "
                 "a GPU reset alone does not bring back a fabric that Fabric Manager has not configured again")



@check(
    "DRV-NVLINK-HEALTH",
    applies_to="nvlink",
    title="NVLink links down or erroring",
    severity="high",
    confidence="documented",
    fix=Fix.of(step("Check Fabric Manager (NVSwitch), then reload the driver / reset the GPUs with no GPU work",
                       cost="driver-reload"),
                  note="reseat the NVLink bridges; RMA when errors persist"),
    references=("https://github.com/NVIDIA/nccl/blob/master/src/graph/paths.cc", XID_CATALOGUE),
    sharpen=Sharpen("if the GPUs sit on NVSwitches (HGX/DGX): " + _NVSWITCH_FIX),
)
def nvlink_health(nvidia: NvidiaGpus | None = None, gpu_events: GpuEvents | None = None,
                  nvlink_status: NvlinkStatus | None = None, gpu_topology: TopoMatrix | None = None,
                  pci: PciDevices | None = None,
                  nvidia_services: NvidiaServices | None = None, gpus: GpuInventory | None = None,
                  serving_log: ServingLog | None = None) -> Outcome:
    """Reads: per GPU and link, NVML nvmlDeviceGetNvLinkState and the DL error counters (replay,
    recovery, CRC flit/data), or a pasted `nvidia-smi nvlink -s` where NVML is not in the source;
    the expected link count per model (data/gpus.toml); NVLink Xids (74, 144-150) in the kernel log,
    and the log symptoms of facts/symptoms.py (an NVLink Xid line, an Xid "caused by previous Xid
    145"); NVSwitches on the PCI bus, Fabric Manager's view and the GPUs' fabric state.

    Bad value: fewer active links than the model has (NV18 expected on H100 SXM, NV12 on A100 SXM),
    any inactive link next to active ones, non-zero recovery/CRC counters, Xid 74 or 144-150; a GPU whose
    `nvidia-smi -q` Fabric Health Summary is not `Healthy` (R550 and later: the fabric's links after registration,
    https://docs.nvidia.com/deploy/nvml-api/group__nvmlFabricDefs.html), with or without its model named.
    Links a pasted listing does not show (an elided `nvlink -s`) are unknown, never down.
    A pasted `nvidia-smi topo -m` alone is ok over its whole rows when every pair shown reads NV<k> and k is
    the model's link count (the model named in the source), the most links any GPU has, or NV12 over more than
    four GPUs (no NVSwitch board shows it with a switch down; NV8 does, so it stays unknown without the model).
    A whole matrix of two or more GPUs with no NV# cell and no model named is a PCIe build: not applicable.
    A whole matrix whose every GPU bonds its peers as one direct board's full wiring (serving_logs.DIRECT_NVL_BOARDS:
    a DGX-1V's 2+2+1+1 hybrid cube mesh, corpus 2639) is ok; one count on every pair (GPUs of an NVSwitch board
    show that too) or, with no model named, a wiring a bigger board's shows with links down stays unknown.
    With no model named, two or more disjoint NVLink pairs with PCIe between them are bridges: one bridged
    card's full count on every pair is ok (bridges fail pair by pair), differing counts are unknown.
    A GPU whose `nvlink -s` listing is cut is not shown; the whole GPUs decide.
    A symptom line proves the issue on its own, quoted, with no GPU information; on an NVSwitch
    system the message names Fabric Manager and the NVLink state, not only a GPU reset.

    Why: NVLink bandwidth scales with active links; NCCL refuses to run when NVML says P2P over an
    NVLink path is not OK ("P2P is disabled between NVLINK connected GPUs").

    Traps: PCIe cards have no NVLink, and no GPU before Pascal has it (a Kepler or Maxwell name, gputable.PRE_NVLINK):
    not applicable. With no NVLink, custom all-reduce runs at most at TP=2 and all-reduce is PCIe-latency bound (a
    key negative result, not a fix). Bridge
    cards without a bridge installed show every link inactive: that is the build, not a fault, beside bridged cards
    too (not an issue, quoted with the card's matrix row where one is pasted); a card the matrix shows
    NVLink-connected has its inactive links down (issue). NVML's "all links are inActive" in place of a GPU's link
    lines is every link inactive, not a cut listing. In a pasted
    matrix of named bridge cards (gputable.bridge_domain), NV# only within bridge-sized groups is the build
    too, and a GPU whose row is cut never shows "no NVLink path".
    Per-link speed at idle was not verified to be stable, so speed alone is never flagged.
    With no other NVLink source, NCCL's topology tree (`+ NVL[370.8] - NVS/0-0` under a GPU) is ok over the GPUs
    whose block it shows whole when each reaches the NVSwitch at NCCL's figure for every link of the most any GPU of
    its architecture has (serving_logs.FULL_NVL_BW: 18 x 20.6 on Hopper, 12 x 21.0 on Ampere under NCCL 2.7-2.8);
    NCCL counts only active links into it. A dump cut above its header, from its first CPU's root line, is read the
    same way (corpus 1394, an A100 NVSwitch node at NVL[252.0]).
    A tree whose GPUs NVLink joins directly (no NVSwitch) is ok over the GPUs it shows whole where each one's NVL
    figures to its peers, over one of NCCL's per-link figures, give the link counts of a direct board that wires every
    link of its GPU (serving_logs.DIRECT_NVL_BOARDS: a V100 SXM2's 2+2+1+1 in a DGX-1's hybrid cube mesh, corpus 2263;
    an A100's 4+4+4 on a four-GPU HGX board, corpus 2262), their sum the header's totalBw: a link down leaves its pair
    below the board's count. At 20.0 a link (NCCL 2.18-2.19), 4+4+4 is also a Hopper board with two of six links
    down on every pair shown, a loss no single link gives.
    """
    outcome = _nvlink_health(nvidia, gpu_events, nvlink_status, gpu_topology, gpus)
    if outcome.status == "unknown" and nvidia is None and nvlink_status is None and gpu_topology is None \
            and (from_tree := _nccl_tree_nvlinks(serving_log)) is not None:
        outcome = from_tree
    fm = nvidia_services.fabricmanager if nvidia_services is not None else None
    nvswitch = nvswitch_present(pci) or (fm is not None and fm.nvswitch) or any(
        g.fabric_state not in (None, "", "N/A", "Not Supported") for g in (nvidia.gpus if nvidia else ()))
    return replace(outcome, sharpen=Sharpen(_NVSWITCH_FIX)) if nvswitch else outcome


def _nvlink_health(nvidia: NvidiaGpus | None, gpu_events: GpuEvents | None, nvlink_status: NvlinkStatus | None,
                   gpu_topology: TopoMatrix | None, inventory: GpuInventory | None = None) -> Outcome:
    """DRV-NVLINK-HEALTH from the link states and NVLink Xids (the engine adds the log's symptoms)."""
    if nvidia is None and nvlink_status is None and gpu_topology is not None and gpu_topology.has_nvlink:
        return _nvlink_from_matrix(gpu_topology, inventory)
    if nvidia is None and nvlink_status is None and gpu_topology is not None and not gpu_topology.pcie_paths_only:
        unbridged = _bridges_down(gpu_topology, inventory) or _pcie_build(gpu_topology, inventory)
        if unbridged is not None:
            return unbridged
    if nvidia is None and nvlink_status is not None:
        # A pasted `nvidia-smi nvlink -s` alone: its GPUs, with their names and link states.
        gpus: list[GpuInfo] | Outcome = [
            GpuInfo(index=g.index, name=g.name, nvlinks=tuple(NvLink(link.link, link.active) for link in g.links))
            for g in nvlink_status.gpus]
    else:
        gpus = gpu_list(nvidia)
    if isinstance(gpus, Outcome):
        return gpus
    gpus = _with_pasted_links(gpus, nvlink_status)
    health = {g.subject: fabric_verdict(g, (FABRIC_HEALTH,)) for g in gpus}
    unhealthy = [g for g in gpus if health[g.subject][0] == "bad"]
    if unhealthy:
        # The fabric's own health summary of a registered GPU (FABRIC_HEALTH): its links, not Fabric Manager.
        said = [f"GPU {g.index}: {health[g.subject][1][0]}" for g in unhealthy]
        lines = dict.fromkeys(f"`{health[g.subject][1][0]}`" for g in unhealthy)
        return over_subjects(issue(f"the NVLink fabric reports GPU(s) {gpu_indices(unhealthy)} unhealthy: "
                                   + "; ".join(lines) + " (the Health block's summary of the GPU's fabric links "
                                   "after registration: degraded bandwidth, a route unhealthy or in recovery, an "
                                   "incorrect configuration)", actual={
                                       g.subject: g.fabric_health for g in unhealthy},
                                   expected="Fabric Health Summary : Healthy", subjects=[g.subject for g in unhealthy],
                                   evidence=said),
                             [g.subject for g in gpus if health[g.subject][0] != "unknown"],
                             gpu_total(nvidia) if nvidia is not None else None, ask="nvidia-smi -q")
    xid74 = [e for e in (gpu_events.xids if gpu_events else ()) if e.code in NVLINK_XIDS]
    capable = [g for g in gpus if (g.nvlinks and len(g.nvlinks) > 0) or (g.spec is not None and g.spec.has_nvlink)]
    if not capable:
        # A model the table lacks whose name says no NVLink (a Kepler or Maxwell GPU: gputable.nvlink_links_of) is read.
        blind = [g for g in gpus if g.nvlinks is None and g.spec is None and nvlink_links_of(g.name or "") != 0]
        if blind:
            return unknown("neither the NVLink state nor a known GPU model is in this source for GPU(s) "
                           + gpu_indices(blind), hint="paste `nvidia-smi -q` and `nvidia-smi nvlink -s`, or audit "
                           "the host (NVML)")
        judged = not_applicable("no NVLink on these GPUs (" + ", ".join(sorted({g.name for g in gpus if g.name}))
                                + ")" + NO_NVLINK_WHY)
        return over_subjects(judged, [g.subject for g in gpus], gpu_total(nvidia) if nvidia is not None else None,
                             ask=_NVLINK_ASK)
    unread = [g for g in capable if g.nvlinks is None]
    if len(unread) == len(capable) and not xid74:
        return unknown("NVLink link states are not in this source", hint="paste `nvidia-smi nvlink -s` and "
                       "`nvidia-smi nvlink -e`, or audit the host (NVML)")
    problems: list[str] = []
    subjects: list[str] = []
    actual: dict[str, object] = {}
    bridged_idle: list[GpuInfo] = []
    elided: list[str] = []
    cut: list[str] = []  # the GPUs whose listing is cut: not shown, as a cut matrix row
    every_link_inactive = {x.index: x.note for x in (nvlink_status.gpus if nvlink_status is not None else ())
                           if x.note and not x.links}
    for g in capable:
        if g.nvlinks is None:
            continue
        active = g.active_nvlinks or 0
        expected = g.spec.nvlink_links if g.spec is not None and g.spec.has_nvlink else len(g.nvlinks)
        actual[g.subject] = {"active": active, "links": len(g.nvlinks), "expected": expected}
        # A bridge card with every link inactive has no bridge fitted (the build), unless the matrix shows it
        # NVLink-connected: then its links are down.
        if active == 0 and g.spec is not None and g.spec.nvlink_kind == "bridge" and not (
                gpu_topology is not None and gpu_topology.nvlink_peers(f"GPU{g.index}")):
            bridged_idle.append(g)
            continue
        down_links = [link for link in g.nvlinks if not link.active]
        if active == 0 and g.index in every_link_inactive:
            # NVML's "all links are inActive" in place of the link lines: every link down, none elided.
            problems.append(f"{g.label}: 0 of {expected} NVLinks active (\"{every_link_inactive[g.index]}\")")
            subjects.append(g.subject)
            continue
        if active < expected and not down_links and len(g.nvlinks) < expected:
            # Links the source does not list (an elided paste) are not links down: never an issue from absence.
            elided.append(f"{g.label}: {active} link(s) shown, all active, of the {expected} the model has")
            cut.append(g.subject)
            continue
        if active < expected:
            down = [str(link.link) for link in down_links]
            problems.append(f"{g.label}: {active} of {expected} NVLinks active" + (f" (down: {','.join(down)})"
                                                                                     if down else ""))
            subjects.append(g.subject)
        errs = [link for link in g.nvlinks if (link.recovery or 0) + (link.crc_flit or 0) + (link.crc_data or 0)]
        if errs:
            problems.append(f"{g.label}: recovery/CRC errors on link(s) {','.join(str(x.link) for x in errs)}")
            subjects.append(g.subject)
    for e in xid74:
        problems.append(f"Xid {e.code} (NVLink error) ×{e.count} on {e.bdf}")
        subjects.append(e.bdf)
    # The coverage rule over the NVLink-capable GPUs: those whose links the source shows decide.
    shown = [g.subject for g in capable if g.nvlinks is not None and g.subject not in cut]
    total = gpu_total(nvidia) if nvidia is not None else None
    no_links = [g.subject for g in unread] + cut
    if problems:
        return over_subjects(issue("; ".join(problems), actual=actual,
                                   expected="every NVLink of the model active, no errors",
                                   subjects=sorted(set(subjects)), evidence=[e.line for e in xid74][:5]),
                             shown, total, ask=_NVLINK_ASK, blind=no_links)
    if elided and not shown:
        return unknown("; ".join(elided) + ": the rest of its links are not in this source", actual=actual,
                       hint="paste the whole `nvidia-smi nvlink -s`, or audit the host (NVML)")
    if bridged_idle and len(bridged_idle) == len([g for g in capable if g.nvlinks is not None]):
        judged = not_an_issue("bridge-capable cards with every NVLink inactive: no NVLink bridge is installed "
                              "(traffic goes over PCIe)", actual=actual)
    elif bridged_idle:
        # Bridged cards beside a card without a bridge: the links up are healthy, the idle card is the build.
        up = ", ".join(f"{k} {v['active']}/{v['expected']}" for k, v in actual.items()
                       if isinstance(v, dict) and k not in cut and k not in {g.subject for g in bridged_idle})
        rows = [gpu_topology.lines[f"GPU{g.index}"] for g in bridged_idle
                if gpu_topology is not None and f"GPU{g.index}" in gpu_topology.lines]
        judged = not_an_issue(
            f"NVLinks active with no recovery/CRC errors: {up}; GPU{'s' if len(bridged_idle) > 1 else ''} {gpu_indices(bridged_idle)} "
            f"{'has' if len(bridged_idle) == 1 else 'have'} every NVLink inactive"
            + (", and the matrix shows no NV# path from it to any GPU" if rows else "")
            + ": a bridge card with no bridge fitted, the build (its traffic goes over PCIe), not links down",
            actual=actual, evidence=rows + [f"GPU {x.index}: {x.note}" for x in (nvlink_status.gpus if nvlink_status else ())
                                            if x.note and x.index in {g.index for g in bridged_idle}])
    else:
        judged = ok("NVLinks active with no recovery/CRC errors: " + ", ".join(
            f"{k} {v['active']}/{v['expected']}" for k, v in actual.items() if isinstance(v, dict) and k not in cut)
            + "".join(f"; {e}: the rest of its links are not in this source" for e in elided), actual=actual)
        unwired = [f"{g.label} links {','.join(map(str, g.unwired_nvlinks))}" for g in capable if g.unwired_nvlinks]
        if unwired:
            judged = not_an_issue(f"{judged.message}; the inactive ones ({'; '.join(unwired)}) are links the chip "
                                  "lists beyond those the model wires: unconnected by design, not down", actual=actual)
    return over_subjects(judged, shown, total, ask=_NVLINK_ASK, blind=no_links)


_NVLINK_ASK = "nvidia-smi nvlink -s"


def _nccl_tree_nvlinks(log: ServingLog | None) -> Outcome | None:
    """DRV-NVLINK-HEALTH from NCCL's topology tree (ServingLog.topo_tree): ok over the GPUs shown whole when each
    one's NVLink to the NVSwitch carries NCCL's full figure (FULL_NVL_BW); None where the tree does not settle it
    (a lower figure may be a model with fewer links, as the H800's 8)."""
    tree = log.topo_tree if log is not None else None
    if tree is None:
        return None
    if tree.whole and tree.gpus and not tree.nvlinks:
        # NCCL adds an NVL link under a GPU for its active NVLinks (graph/topo.cc): a whole tree with none joins
        # its GPUs by PCI and SYS only (corpus 1154).
        return not_applicable(f"NCCL's whole topology tree joins {', '.join(f'GPU/{g}' for g in tree.gpus)} by PCI "
                              "and SYS links only: no NVLink between them", actual=[*tree.lines[:2], tree.end_line])
    to_switch = {g: (bw, line) for g, peer, bw, line in tree.nvlinks if peer.startswith("NVS/") and g in tree.closed}
    if not to_switch and (board := tree.mesh_board()) is not None:
        return _nccl_tree_mesh(tree, *board)
    if not to_switch or any(bw not in FULL_NVL_BW for bw, _ in to_switch.values()):
        return None
    shown = [f"GPU/{g}" for g in to_switch]
    whats = sorted({FULL_NVL_BW[bw] for bw, _ in to_switch.values()})
    judged = ok(f"NCCL's topology tree shows {', '.join(shown)} reaching the NVSwitch at "
                f"NVL[{'/'.join(sorted({f'{bw:g}' for bw, _ in to_switch.values()}))}]: {'; '.join(whats)}, "
                "every link up (NCCL adds only active links)", actual={f"GPU/{g}": f"NVL {bw:g}" for g, (bw, _) in
                                                                         to_switch.items()},
                evidence=[line for _, line in to_switch.values()][:2])
    return over_subjects(judged, shown, None, ask=_NVLINK_ASK)


def _nccl_tree_mesh(tree: NcclTopoTree, what: str, figure: float, bonds: dict[str, tuple[float, ...]],
                    board: int) -> Outcome:
    """DRV-NVLINK-HEALTH ok over the GPUs NCCL's tree shows whole, each bonded to its peers as a direct NVLink board
    wires every link of its GPU (NcclTopoTree.mesh_board): NCCL counts only active links into a pair's figure. The
    GPUs are counted over the board's, or the GPUs the tree names where it names more."""
    shown = [f"GPU/{g}" for g in bonds]
    sums = sorted({f"{sum(b):g}" for b in bonds.values()})
    evidence = [line for g, _, _, line in tree.nvlinks if g in bonds]
    judged = ok(f"NCCL's topology tree shows {', '.join(shown)} bonded to {'its' if len(shown) == 1 else 'their'} "
                "peers at NVL "
                f"{' + '.join(f'{bw:g}' for bw in next(iter(bonds.values())))} = {'/'.join(sums)}"
                + (f" (the header's totalBw {tree.total_bw:g})" if tree.total_bw is not None else "")
                + f": at NCCL's {figure:g} a link, {what}, every link up (NCCL adds only active links)",
                actual={f"GPU/{g}": "+".join(f"{bw:g}" for bw in b) for g, b in bonds.items()},
                evidence=evidence[:4])
    return over_subjects(judged, shown, max(board, len(tree.named_gpus())), ask=_NVLINK_ASK)


def _with_pasted_links(gpus: list[GpuInfo], status: NvlinkStatus | None) -> list[GpuInfo]:
    """Fill link states the source's GPU listing lacks from `nvidia-smi nvlink -s` (same GPU index)."""
    if status is None:
        return gpus
    by_index = {g.index: g for g in status.gpus}
    out = []
    for gpu in gpus:
        pasted = by_index.get(gpu.index)
        if gpu.nvlinks is None and pasted is not None:
            gpu = replace(gpu, nvlinks=tuple(NvLink(link.link, link.active) for link in pasted.links))
        out.append(gpu)
    return out


# --- DRV-XID -----------------------------------------------------------------------------------

_XID_MEANING = {
    79: "GPU has fallen off the bus", 48: "double-bit ECC error", 94: "contained ECC error",
    62: "internal micro-controller halt",
    95: "uncontained ECC error", 63: "row remapping recorded (reset to activate)", 64: "row remapping failure",
    74: "NVLink error", 119: "GSP RPC timeout", 120: "GSP error",
    13: "graphics engine exception", 31: "GPU memory page fault", 43: "GPU stopped processing",
    154: "GPU recovery action changed",
    **{code: "NVLink error" for code in range(144, 151)},
}
# What each class costs when neither NVML nor Xid 154 names the recovery action (the catalogue's buckets):
# a lost GPU needs the node rebooted, a degraded or contained one a GPU reset (every process off it), an
# application fault a restart of the program.
_CLASS_COST: dict[str, FixCost] = {HW_LOST: "reboot", HW_DEGRADED: "driver-reload", HW_CONTAINED: "driver-reload",
                                   APPLICATION: "restart", OTHER: "driver-reload"}
_CLASS_SEVERITY: dict[str, Severity] = {HW_LOST: "high", HW_DEGRADED: "high", HW_CONTAINED: "medium",
                                        APPLICATION: "low", OTHER: "medium"}
_CLASS_ORDER = (HW_LOST, HW_DEGRADED, HW_CONTAINED, OTHER, APPLICATION)
# NVML's recovery actions (facts.nvidia.RECOVERY_ACTIONS) and Xid 154's wording of them, to a fix cost.
_ACTION_COST: dict[str, FixCost] = {"node reboot": "reboot", "system reboot": "reboot",
                                    "node reboot required": "reboot", "gpu reset": "driver-reload",
                                    "gpu reset required": "driver-reload", "drain and reset": "driver-reload",
                                    "drain p2p": "restart", "bus reset": "driver-reload"}
_COST_RANK: list[FixCost] = ["restart", "driver-reload", "reboot"]


# A fault of the stack's own process (facts/symptoms.STACK_XID): the engine restarts; the GPU is fine.
_APP_FAULT_FIX = Fix.of(step("Restart the serving engine (its process died on the GPU fault)", cost="restart"),
                        note="Report the Xid line to the engine's maintainers; run `dcgmi diag -r 3` on the GPU if "
                             "faults repeat on it under other programs")
_XID_SHARPEN = Sharpen("the program comes first: restart the engine and take the line to its maintainers (its kernels, "
                       "its version); suspect the GPU only if faults repeat on it under other programs "
                       "(`dcgmi diag -r 3` on that GPU)", _APP_FAULT_FIX)


# Xids beside a task hung in uninterruptible sleep (the kernel's `task … blocked for more than N seconds`, `state:D`):
# `nvidia-smi -r` (and `nvidia-smi -q`) would hang the same way, so the GPU is recovered by rebooting the node.
_HUNG_TASK_FIX = Fix.of(step("Drain the node, then reboot it: a task hung in uninterruptible sleep (state D) in the "
                             "same log means the driver does not answer, so `nvidia-smi -r` cannot run (it hangs too)",
                             "systemctl reboot", cost="reboot"),
                        note="RMA the GPU when hardware Xids (79, 48, 64, 95) repeat")


def _gpu_findings(events: list[GpuEvent]) -> tuple[str, str]:
    """(worst class, "Xid 79 x1 (GPU has fallen off the bus), ...") for one GPU's events."""
    counts: dict[tuple[str, int | None], int] = {}
    for e in events:
        counts[(e.kind, e.code)] = counts.get((e.kind, e.code), 0) + e.count
    parts = []
    for (kind, code), n in sorted(counts.items(), key=lambda kv: (_CLASS_ORDER.index(
            xid_class(kv[0][1]) if kv[0][0] == "xid" else HW_LOST), kv[0][1] or 0)):
        if kind == "xid":
            parts.append(f"Xid {code} ×{n} ({_XID_MEANING.get(code or 0, 'see the Xid catalogue')})")
        else:
            parts.append({"fallen-off-bus": f"fell off the bus ×{n} (no Xid number)", "probe-failed":
                          f"the driver's probe failed ×{n}", "lost": f"NVML reports it lost ×{n}",
                          "off-bus-read": "nvidia-smi cannot open it and lspci reads it as revision ff (all ones: the "
                                          "device no longer answers on the bus)"}.get(kind, kind))
    worst = min((e.hw_class for e in events if e.code != 154), key=_CLASS_ORDER.index, default=OTHER)
    return worst, ", ".join(parts)


def _xid_findings(by_gpu: dict[str, list[GpuEvent]], actions: dict[str, str]
                  ) -> tuple[list[tuple[str, str, str]], list[str], set[str]]:
    """Per GPU: the hardware findings (class, bdf, text), the application faults (information) and the GPUs
    whose only finding is the driver's recovery action."""
    hardware: list[tuple[str, str, str]] = []
    applications: list[str] = []
    for bdf, evs in sorted(by_gpu.items()):
        # Xid 154 is not a fault of its own: the action it announces is listed once, below.
        hw = [e for e in evs if e.hw_class != APPLICATION and e.code != 154]
        app = [e for e in evs if e.hw_class == APPLICATION]
        if hw:
            cls, text = _gpu_findings(hw)
            hardware.append((cls, bdf, f"GPU {bdf} {cls if cls != OTHER else 'Xid'} — {text}"))
        if app:
            applications.append(f"GPU {bdf}: {_gpu_findings(app)[1]}")
    shown_actions: set[str] = set()
    for bdf, action in sorted(actions.items()):
        if not any(h_bdf == bdf for _, h_bdf, _ in hardware):
            # The driver says the GPU needs recovering: it is faulted, whatever the log shows of why.
            xid154 = " (Xid 154)" if any(e.code == 154 for e in by_gpu.get(bdf, [])) else ""
            hardware.append((HW_DEGRADED, bdf, f"GPU {bdf} faulted{xid154} — the driver asks for {action}"))
            shown_actions.add(bdf)
    return hardware, applications, shown_actions


def _xid_cost(events: tuple[GpuEvent, ...], actions: dict[str, str]) -> FixCost:
    """The driver's own recovery action where the source has it, else the class's. A GSP timeout/error
    (119/120) wedges the GPU until a GPU reset; a GPU gone from the bus needs the node rebooted."""
    costs = [_ACTION_COST.get(a.lower(), "driver-reload") for a in actions.values()] or [
        "driver-reload" if e.code in (119, 120) else _CLASS_COST[e.hw_class]
        for e in events if e.hw_class != APPLICATION and e.code != 154] or ["driver-reload"]
    return max(costs, key=_COST_RANK.index)


@check(
    "DRV-XID",
    applies_to="nvidia-gpu",
    title="Xid errors in the kernel log",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Follow the GPU's recovery action (nvidia-smi -q: GPU Recovery Action): a GPU reset with no "
                       "process on it, a node reboot, or fix the application", "nvidia-smi -r -i <n>",
                       cost="driver-reload", changes="the GPU's state", per="<n>", per_match=BDF_SUBJECT),
                  note="RMA the GPU when hardware Xids (79, 48, 64, 95) repeat"),
    references=(XID_CATALOGUE, "https://raw.githubusercontent.com/stas00/ml-engineering/master/compute/accelerator/nvidia/debug.md"),
    sharpen=_XID_SHARPEN,
)
def xid(gpu_events: GpuEvents, nvidia: NvidiaGpus | None = None, pci: PciDevices | None = None,
        log_symptoms: LogSymptoms | None = None, serving_engine: ServingEngine | None = None,
        pcie_errors: PcieErrors | None = None) -> Outcome:
    """Reads: `NVRM: Xid (PCI:…): <code>, …` lines of the kernel log (`dmesg`), and NVML's
    recommended recovery action per GPU (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION) where available, and the
    kernel log's AER lines (facts/pcie_errors.py) for the GPUs with application Xids. Also the Xids the user reports:
    in a sentence that says they happened (`two GPU crashes with the exact same NVIDIA Xid 62 signature ... followed by
    Xid 154 (`GPU Reset Required`)`), counted (`6× Xid 79`), as the driver's record without its `NVRM:` tag, or listed
    under a sentence that reports them (facts/gpu_events.stated_xids); an Xid the user asks about, supposes, negates or
    cites from the catalogue is no event.

    Bad value: per GPU and by class (counted with the repeats the kernel's rate limit folded),
    hardware lost — 79 or "fallen off the bus" without a number, "probe routine failed", "RmInitAdapter
    failed!" with no line naming its cause (facts/symptoms.py), 119/120 (GSP), a GPU NVML reports lost, a GPU
    nvidia-smi cannot open whose PCI functions a pasted lspci reads as `(rev ff)` (all ones: off the bus); degraded — 48/95 (ECC), 64 (row-remap failure), 74 and 144-150
    (NVLink); contained — 63 (row remap recorded), 94 (contained ECC); a recovery action other
    than None (NVML, or Xid 154). Lost and degraded GPUs are P0 whatever the fix costs.

    Why: Xids are the driver's error events (NVIDIA Xid catalogue); hardware ones precede lost GPUs
    and degraded NVLink or memory.

    Traps: 13/31/43 are nearly always a crashing user program, not hardware: reported apart, as
    information (alone they are `not-an-issue`, the serving stack's own process's too: an engine's illegal
    address is the engine's bug). A hardware Xid another check quotes (Xid 94) on a GPU with no application
    fault keeps the host's Xids an issue, judged by class. The same GPU faulting under three or more different
    processes (pids) is an issue (low): the catalogue sends repeated MMU faults on one GPU to diagnostics.
    An application Xid on a GPU whose PCIe link shows an uncorrectable AER error or a failed AER recovery in
    the same log is an issue (medium): the fault came from the link, not the program. A GPU that fell off the bus (79) needs a node
    reboot, not a GPU reset. The driver's recovery action (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION,
    Xid 154) is preferred over the class's guess of reset-vs-reboot. A task hung in uninterruptible sleep in the same
    log (`task … blocked for more than N seconds`, `state:D`) means the driver no longer answers: `nvidia-smi -r`
    would hang too, so the fix is to drain and reboot the node.
    An RmInitAdapter failure whose cause the same log names (the GSP firmware's boot, the open module
    refusing the GPU, a BAR without space) is that cause's check's finding.
    A failed probe or RmInitAdapter of a GPU before Turing that the same log shows the open module refusing (it has
    no GSP) is not a lost GPU but the module flavour's finding: with no Xid left it is not an issue, since a GPU the
    driver refused runs no work to raise one. The open module refusing a GPU that has a GSP (an H100 in a
    confidential guest), or a release refusing a GPU of a generation it drives, keeps its failed probe a fault.
    "No Xid" is concluded only from a whole kernel log (from boot, no gap): a pasted excerpt or a
    ring buffer that wrapped cannot show that none happened.
    A grep of this boot's kernel log that matches Xid lines, shown with all it printed (`dmesg | grep NVRM`,
    the bug report's `journalctl -b -0` scan), is such a log for Xid lines alone.
    """
    outcome = _xid_verdict(gpu_events, nvidia, pci, log_symptoms, pcie_errors)
    # The coverage rule over the GPUs the Xid lines name: a verdict from their lines covers those GPUs.
    named = sorted({e.bdf for e in gpu_events.events if e.bdf})
    if named and outcome.status in ("issue", "not-an-issue") and outcome.coverage is None:
        outcome = over_subjects(outcome, named, nvidia.attached if nvidia is not None else None,
                                ask="sudo dmesg")
    # The stack's run is shown: an engine's process, log, command or container, or a stack process's own Xid line
    # (facts/symptoms.STACK_XID).
    stack = (serving_engine is not None and bool(serving_engine.engine or serving_engine.shown)) or any(
        STACK_XID.search(e.line) for e in gpu_events.events if e.line)
    shows = (IN_SERVING_STACK,) if stack else ()
    # The program-first advice is for the application Xids; a GPU-fault line (a memory-subsystem error under a GSP
    # timeout) keeps the check's fix.
    if any(h.symptom.faults_gpu for h in (log_symptoms.proving("DRV-XID") if log_symptoms else ())):
        return replace(outcome, sharpen=Sharpen(shows=shows))
    return replace(outcome, sharpen=replace(_XID_SHARPEN, shows=shows)) if stack else outcome


def _refused_failures(gpu_events: GpuEvents) -> tuple[tuple[GpuEvent, ...], str]:
    """The driver's failures to bring a GPU up (`probe routine failed`, `RmInitAdapter failed!`) whose cause the same
    log names: the open module refusing a GPU before Turing, which has no GSP (GpuEvents.refused_open, corpus 2547).
    The open module refusing a GPU that has a GSP is a fault (624), and so may be the release refusing a GPU of a
    generation it drives (930: one H100 of eight, its siblings driven): not read as causes. (the probe-failure events
    so explained, the refusal's words); ((), "") where the log shows no such failure."""
    causes: dict[str, str] = {}
    for g in gpu_events.refused_open:
        spec = by_pci_device_id(g.device_id)
        if architecture_of(spec.name if spec is not None else "", int(g.device_id, 16)) in PRE_TURING:
            causes.setdefault(g.bdf, g.line)
    if not causes:
        return (), ""
    probes = tuple(e for e in gpu_events.events if e.kind == PROBE_FAILED and (e.bdf in causes or not e.bdf))
    inits = [bdf for bdf in gpu_events.init_failed if bdf in causes]
    if not probes and not inits:
        return (), ""
    return probes, causes.get(inits[0] if inits else probes[0].bdf, next(iter(causes.values())))


def _xid_verdict(gpu_events: GpuEvents, nvidia: NvidiaGpus | None, pci: PciDevices | None,
                 log_symptoms: LogSymptoms | None, pcie_errors: PcieErrors | None = None) -> Outcome:
    """DRV-XID's verdict from the kernel log's Xid events and NVML's recovery actions (the check's docstring)."""
    # A line a symptom proves for another check (an NVLink Xid, a channel stopped because of one, an ECC Xid) is
    # that check's finding, quoted there: one log line is the evidence of one finding.
    lines = {e.line.strip() for e in gpu_events.events if e.line}
    hits = [h for h in (log_symptoms.hits if log_symptoms else ()) if h.symptom.check != "DRV-XID" and h.line in lines]
    owned = {h.line for h in hits}
    elsewhere = sorted({h.symptom.check for h in hits})
    events = tuple(e for e in gpu_events.events if not (e.line and e.line.strip() in owned))
    # The recovery action: NVML's (per GPU), else the latest Xid 154 of the kernel log.
    actions = {**gpu_events.recovery_actions(),
               **{(g.bdf or g.subject): g.recovery_action for g in (nvidia.gpus if nvidia else ())
                  if g.recovery_action not in (None, "None")}}
    left = [e for e in events if e.code != 154]
    # A hardware Xid another check quotes (Xid 94, MEM-ROW-REMAP-ECC's) on a GPU where no application Xid is left,
    # beside application ones on other GPUs: the host's Xids are not "application faults, not the hardware"
    # (corpus 143), so every Xid is judged by its class. On the faulting GPU itself the other check's line covers it.
    faulted = {e.bdf for e in left}
    hardware_elsewhere = any(e.hw_class != APPLICATION and e.bdf not in faulted for e in gpu_events.events
                             if e.line and e.line.strip() in owned and e.code != 154)
    borrowed = bool(elsewhere) and (not left or (hardware_elsewhere and all(e.hw_class == APPLICATION for e in left)))
    if borrowed:
        # Every fault Xid shown is also another check's finding: they are still Xids, judged here by their class
        # (beside the recovery action the driver asks for), while the line stays quoted there (one log line, one quote).
        events = gpu_events.events
    explained, refusal = _refused_failures(gpu_events)
    events = tuple(e for e in events if e not in explained)
    if not [e for e in events if e.code != 154] and not actions:
        if (nvidia is not None and nvidia.none_on_bus) or (pci is not None and not pci.nvidia_gpus):
            return not_applicable("no NVIDIA GPU on the PCI bus")
        if refusal:
            return not_an_issue(
                "the driver's failure to bring up the GPU (its probe or RmInitAdapter failing) follows its own refusal "
                f"of that GPU, which the log names ('{refusal[:200]}'): a GPU the loaded driver does not support, the "
                "driver's release or flavour's finding, not a GPU lost or faulted; no Xid is in the lines shown, and "
                "a GPU the driver refused runs no work to raise one", actual=0, evidence=[refusal])
        if not gpu_events.complete and gpu_events.no_xid_shown_by:
            # A grep of the whole ring buffer shown empty proves no Xid line, and nothing else.
            return ok(f"no Xid line in the kernel log: `{gpu_events.no_xid_shown_by[0]}` printed nothing",
                      actual=0, evidence=[f"{c} (no output)" for c in gpu_events.no_xid_shown_by[:2]])
        if not gpu_events.complete and gpu_events.no_xid_listed_by:
            # A grep of this boot's kernel log that matches Xid lines, shown with all it printed: none is an Xid.
            return ok(f"no Xid line in this boot's kernel log: `{gpu_events.no_xid_listed_by[0]}` is shown with "
                      "every line it printed, and none is an Xid", actual=0,
                      evidence=[f"{c} (no Xid among the lines it printed)" for c in gpu_events.no_xid_listed_by[:2]])
        if not gpu_events.complete:
            shown = f"the {gpu_events.lines_read} kernel-log lines shown" if gpu_events.lines_read else "this source"
            return unknown(f"no Xid in {shown}, but they are an excerpt: an Xid outside them would not show",
                           hint="paste the whole `sudo dmesg` (from boot), or audit the host as root")
        return ok("no Xid errors in the kernel log", actual=0)
    by_gpu: dict[str, list[GpuEvent]] = {}
    for e in events:
        by_gpu.setdefault(e.bdf or "a GPU", []).append(e)
    hardware, applications, shown_actions = _xid_findings(by_gpu, actions)
    # Summed per GPU and code, as the title counts them: a burst of one Xid is many lines, each its own event (1411).
    actual: dict[str, int] = {}
    for e in events:
        key = f"{e.bdf or '?'} xid {e.code}" if e.kind == "xid" else f"{e.bdf or '?'} {e.kind}"
        actual[key] = actual.get(key, 0) + e.count
    # The hardware lines first, so the quote is a line of what the title names (never an Xid 43 under an Xid 79).
    quoted = [e for e in events if e.line and e.line.strip() not in owned]
    # One quote a line: the user's sentence that names several Xids is each one's line.
    evidence = (list(dict.fromkeys(e.line for e in quoted if e.hw_class != APPLICATION))[-5:]
                + list(dict.fromkeys(e.line for e in quoted if e.hw_class == APPLICATION))[-2:])
    recurring = {b: p for b, p in gpu_events.recurring_app_faults().items() if b in by_gpu}
    linked = {b: a for b, a in gpu_events.app_faults_on_failed_links(pcie_errors.lines if pcie_errors else ()).items()
              if b in by_gpu}
    if not hardware and linked:
        # The GPU's PCIe link failed (uncorrectable, or AER could not recover it) in the same log: the fault is the
        # link's, not the program's.
        codes = sorted({e.code for b in linked for e in by_gpu[b] if e.code is not None})
        return issue(f"application Xid {'/'.join(map(str, codes))} on a GPU whose PCIe link failed in the same log "
                     "(uncorrectable AER errors or a failed AER recovery, quoted under FW-AER-ERRORS): GPU "
                     + ", ".join(sorted(linked)) + " — "
                     + "; ".join(applications) + ". A program does not make the link fail: the fault is the "
                     "hardware path (slot, riser, cable, enclosure, power)",
                     actual=actual, expected="no Xid on a GPU whose link failed", severity="medium",
                     subjects=sorted(linked), evidence=evidence)
    if not hardware and recurring:
        # The same GPU faults under several programs: the catalogue's "repeat MMU faults to same GPU".
        where = "; ".join(f"GPU {b}: {len(p)} processes (pid {', '.join(p[:4])})" for b, p in sorted(recurring.items()))
        recurring_codes = ", ".join(sorted({str(e.code) for e in events
                                            if e.hw_class == APPLICATION and e.bdf in recurring}))
        return issue(f"application Xids ({recurring_codes}) recur on the same GPU under different processes: " + where + " — "
                     + "; ".join(applications) + ". One faulting program stays on one process; faults that follow "
                     "the GPU across programs are what NVIDIA's Xid catalogue sends to the GPU's diagnostics "
                     "(`dcgmi diag -r 3` on that GPU) before the application", actual=actual,
                     expected="no Xid that recurs on one GPU across processes", severity="low",
                     subjects=sorted(recurring), evidence=evidence)
    if not hardware:
        # 13/31/43 alone: the program faulted, the GPU did not (reported apart, as information).
        return not_an_issue("application faults, not the hardware: " + "; ".join(applications)
                            + " (Xid 13/31/43 are nearly always the program: restart it; a GPU fault shows other "
                            "Xids)", actual=actual, subjects=sorted(by_gpu), evidence=evidence)
    worst = min((c for c, _, _ in hardware), key=_CLASS_ORDER.index)
    parts = [t for _, _, t in sorted(hardware, key=lambda h: _CLASS_ORDER.index(h[0]))]
    rest = {b: a for b, a in actions.items() if b not in shown_actions}
    if rest:
        parts.append("recovery action: " + ", ".join(f"{b} {a}" for b, a in sorted(rest.items())))
    if applications:
        parts.append("also application faults (information): " + "; ".join(applications))
    if borrowed:
        parts.append(f"the line is quoted under {', '.join(elsewhere)}")
    cost = _xid_cost(events, actions)
    if gpu_events.hung_tasks:
        # A task hung in uninterruptible sleep in the same log (corpus 1411): the driver does not answer it, so
        # `nvidia-smi` hangs in state D too and no GPU reset can run; only a reboot clears it.
        parts.append(f"the same log shows a task hung in uninterruptible sleep (state D): "
                     f"“{gpu_events.hung_tasks[0]}”")
        return issue("; ".join(parts), actual=actual, expected="no hardware Xid",
                     subjects=sorted({b for _, b, _ in hardware}), severity=_CLASS_SEVERITY[worst],
                     fix=_HUNG_TASK_FIX, evidence=[*evidence, gpu_events.hung_tasks[0]],
                     gpu_lost=worst in (HW_LOST, HW_DEGRADED))
    fix = None if cost == "driver-reload" else Fix.of(
        step("Restart the serving engine (the application faulted)" if cost == "restart" else
             "Reboot the node (a GPU that fell off the bus rarely comes back with a GPU reset)",
             *(() if cost == "restart" else ("systemctl reboot",)), cost=cost),
        note="RMA the GPU when hardware Xids (79, 48, 64, 95) repeat")
    return issue("; ".join(parts), actual=actual, expected="no hardware Xid",
                 subjects=sorted({b for _, b, _ in hardware}), severity=_CLASS_SEVERITY[worst], fix=fix,
                 evidence=evidence, gpu_lost=worst in (HW_LOST, HW_DEGRADED))


