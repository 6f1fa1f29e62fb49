"""Peer access the driver refused: a program's record of CUDA answering "no" for a pair of GPUs.

`cudaDeviceCanAccessPeer` is the driver's per-pair answer (the same answer `nvidia-smi topo -p2p`
prints for every pair); programs write it in their logs in their own words. `REFUSALS` is the table:
each row a pattern, who writes it, and whether that program asked only for a pair its own topology
expected P2P on.

- NCCL (src/transport/p2p.cc, p2pCanConnect): INFO "Could not enable P2P between dev %d(=%lx) and dev
  %d(=%lx)" when `cudaDeviceCanAccessPeer` returns 0, asked only after its topology put the pair within
  its P2P level (ncclTopoCheckP2p): the PCI path allowed P2P and the driver said no.
- NCCL (src/graph/paths.cc, ncclTopoComputePaths): INFO "P2P is disabled between connected GPUs %d and %d" (WARN
  "... between NVLINK connected GPUs ..." on NVLink) when NVML's P2P status for a pair its topology connects below
  SYS (a switch, a host bridge, one CPU) is not OK. The indices are NCCL's GPU indices of one host.
- The CUDA samples: simpleP2P "> Peer access from A (GPU0) -> B (GPU1) : No",
  p2pBandwidthLatencyTest "Device=0 CANNOT Access Peer Device=1".
- TensorFlow (gpu_device.cc): "Peer access not supported between device ordinals 0 and 4", and its edge matrix
  (`Device interconnect StreamExecutor with strength 1 edge matrix:`, a row per GPU it was given, `Y` where
  CanEnablePeerAccessTo, the driver's cuDeviceCanAccessPeer, said yes; `N` on the diagonal always): an `N` between two
  GPUs of a whole matrix (tf_matrix_refusals).
- TensorRT-LLM: "Device 0 peer access Device 1 is not available.", and its IPC set-up's "cudaDeviceCanAccessPeer
  failed for device: 1 peerDevice: 0".
- A Python session: `cudart.cudaDeviceCanAccessPeer(0, 1)` or `torch.cuda.can_device_access_peer(0, 1)`
  answered `0` / `False` on a later output line.

Not a refusal (`ALREADY_ENABLED`, kept apart as `PeerRefusals.already_enabled`): CUDA's answer 704,
cudaErrorPeerAccessAlreadyEnabled (0x2c0; CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED in the driver API), to
`cudaDeviceEnablePeerAccess` for a pair whose peer access is on already, as a debugger prints each API error
(cuda-gdb: `Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)`, then `cudaGetLastError returned
(0x2c0)` as the program clears it; NVIDIA/nccl#258). NCCL enables peer access for every pair it connects and ignores
this answer (transport/p2p.cc): such a line shows peer access granted, not a failure.

The indices are CUDA device ordinals of the program (CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER renumber
them), not nvidia-smi's GPU indices. A refusal is the driver's report, not a failure of the run: whether
it is expected (GeForce policy, a host bridge or CPU between the GPUs, a VM) is the check's judgement.

Sources, joined (`union`): a pasted engine / NCCL log, a pasted `p2pBandwidthLatencyTest` output and lines of
evidence pasted on their own.

`P2pDataTests` are the verdicts of programs that move data between GPUs and check it (`DATA_TESTS`): the
CUDA samples' simpleP2P (its verification, or the samples' run summary), nccl-tests' own check of its results
("Out of bounds values : 0 OK"). A P2P channel line or a peer-access "Yes" is set-up, not one of these.

`P2pBandwidth` is the CUDA samples' `p2pBandwidthLatencyTest` run: the pairs that CAN access their peer and
the unidirectional bandwidth per pair with P2P enabled (writes) and disabled (copies through host memory).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from stackaudit.facts._parse import RANK_DEVICE, RANK_HOST, ParseError
from stackaudit.facts.pci import PCIE_GBS_PER_LANE
from stackaudit.facts.registry import Sourced, fact, parser, union
from stackaudit.facts.serving_logs import FULL_ROW, row_busbw, wrong_counts
from stackaudit.facts.sources import (
    ENGINE_LOG,
    EVIDENCE_LINES,
    NCCL_TESTS,
    P2P_BANDWIDTH_TEST,
    TF_DEVICES,
    USER_P2P_OFF_CURES,
)

NCCL = "NCCL"
CUDA = "CUDA"


@dataclass(frozen=True)
class Refusal:
    """One table row: `pattern` has groups `a` and `b`, the two device ordinals."""
    name: str
    pattern: re.Pattern[str]
    said_by: str  # NCCL: asked only where its topology expected P2P; CUDA: the driver's answer as such


REFUSALS: tuple[Refusal, ...] = (
    Refusal("nccl", re.compile(r"Could not enable P2P between dev (?P<a>\d+)\(=\w+\) and dev (?P<b>\d+)\(=\w+\)"), NCCL),
    Refusal("nccl-nvml", re.compile(r"P2P is disabled between (?:NVLINK )?connected GPUs (?P<a>\d+) and (?P<b>\d+)"), NCCL),
    Refusal("simple-p2p", re.compile(r"Peer access from .{1,80} \(GPU(?P<a>\d+)\) -> .{1,80} \(GPU(?P<b>\d+)\) : No\s*$"),
            CUDA),
    Refusal("p2p-bandwidth-test", re.compile(r"Device=(?P<a>\d+) CANNOT Access Peer Device=(?P<b>\d+)"), CUDA),
    Refusal("tensorflow", re.compile(r"Peer access not supported between device ordinals (?P<a>\d+) and (?P<b>\d+)"),
            CUDA),
    Refusal("tensorrt-llm", re.compile(r"Device (?P<a>\d+) peer access Device (?P<b>\d+) is not available"), CUDA),
    # TensorRT-LLM's IPC set-up for its custom all-reduce (cpp/tensorrt_llm/runtime/ipcUtils.cpp, canAccessPeer):
    # TLLM_LOG_INFO("cudaDeviceCanAccessPeer failed for device: %d peerDevice: %d") when the driver answers 0.
    Refusal("tensorrt-llm-ipc", re.compile(r"cudaDeviceCanAccessPeer failed for device: (?P<a>\d+) peerDevice: "
                                           r"(?P<b>\d+)"), CUDA),
)
# A Python session's query, answered on a later output line (`0`, `False`, or the tuple cuda-python returns).
# The paste reader peels the `>>> ` prompt off a session's lines; a line of code elsewhere (no answer after it) is no
# refusal. A session's line is short: a long line is a log's, not a query.
_QUERY = re.compile(r"(?:cudaDeviceCanAccessPeer|can_device_access_peer|canDeviceAccessPeer)\(\s*(?P<a>\d+)\s*,\s*"
                    r"(?P<b>\d+)\s*\)")
_QUERY_MAX = 160
_NO = re.compile(r"^\s*(?:0|False|\(<?cudaError_t\.cudaSuccess(?::\s*0>)?,\s*0\))\s*$")
_YES = re.compile(r"^\s*(?:1|True|\(<?cudaError_t\.cudaSuccess(?::\s*0>)?,\s*1\))\s*$")
# CUDA's answer 704 (0x2c0) to enabling peer access a second time: the access is on (see the module's docstring).
ALREADY_ENABLED = re.compile(r"\breturned \(0x2c0\)|cudaErrorPeerAccessAlreadyEnabled|CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED|"
                             r"peer access is already enabled", re.I)
NEEDLES = ("EnablePeerAccess", "(0x2c0)", "AlreadyEnabled", "ALREADY_ENABLED", "P2P between dev", "P2P is disabled between", "Peer access", "Access Peer", "peer access", "AccessPeer", "access_peer")


@dataclass(frozen=True)
class PeerRefusal:
    a: int
    b: int
    said_by: str
    line: str

    @property
    def pair(self) -> frozenset[int]:
        return frozenset((self.a, self.b))


@dataclass(frozen=True)
class PeerRefusals(Sourced):
    refusals: tuple[PeerRefusal, ...] = ()
    # Lines where CUDA answered that peer access was already enabled (ALREADY_ENABLED): granted, not refused.
    already_enabled: tuple[str, ...] = ()

    @property
    def pairs(self) -> tuple[frozenset[int], ...]:
        """The refused pairs, each once, in the order the sources show them."""
        return tuple(dict.fromkeys(r.pair for r in self.refusals))

    @property
    def said_by(self) -> frozenset[str]:
        return frozenset(r.said_by for r in self.refusals)

    @classmethod
    def union(cls, parts: Sequence[PeerRefusals]) -> PeerRefusals:
        return cls(tuple(dict.fromkeys(r for p in parts for r in p.refusals)),
                   tuple(dict.fromkeys(line for p in parts for line in p.already_enabled)),
                   complete=all(p.complete for p in parts))


fact("peer_refusals", PeerRefusals, union, hint="paste the engine's log with NCCL_DEBUG=INFO, or CUDA's simpleP2P")


def find_refusals(lines: Sequence[str]) -> tuple[PeerRefusal, ...]:
    """The refusals of the table in `lines`, each (pair, line) once; a Python session's query is paired with
    the first answer printed after it."""
    found: list[PeerRefusal] = []
    asked: tuple[int, int, str] | None = None
    for line in lines:
        if not any(n in line for n in NEEDLES):
            if asked is not None and _NO.match(line):
                found.append(PeerRefusal(asked[0], asked[1], CUDA, f"{asked[2]} -> {line.strip()}"))
                asked = None
            elif asked is not None and _YES.match(line):
                asked = None
            continue
        q = _QUERY.search(line) if len(line) <= _QUERY_MAX else None
        if q:
            asked = (int(q["a"]), int(q["b"]), line.strip())
            continue
        for row in REFUSALS:
            m = row.pattern.search(line)
            if m and m["a"] != m["b"]:
                found.append(PeerRefusal(int(m["a"]), int(m["b"]), row.said_by, line.strip()))
                break
    return tuple(dict.fromkeys(found))


def find_already_enabled(lines: Sequence[str]) -> tuple[str, ...]:
    """The lines of `lines` where CUDA answered that peer access was already enabled (ALREADY_ENABLED), each once."""
    return tuple(dict.fromkeys(line.strip() for line in lines
                               if any(n in line for n in NEEDLES) and ALREADY_ENABLED.search(line)))


def is_refusal_line(line: str) -> bool:
    """Whether a line on its own says the driver refused peer access, or asks it in a Python session, or that CUDA
    found peer access already enabled (ALREADY_ENABLED)."""
    return any(n in line for n in NEEDLES) and bool((len(line) <= _QUERY_MAX and _QUERY.search(line))
                                                    or any(r.pattern.search(line) for r in REFUSALS)
                                                    or ALREADY_ENABLED.search(line))


def answer_end(lines: Sequence[str], i: int, query: re.Pattern[str] = _QUERY) -> int:
    """Where a Python session's query at line `i` ends (a peer-access query, or another yes-or-no `query`): after the
    first answer printed within the next six lines (the session's own lines and other outputs between), else after
    the query line alone. An IDE's console (Spyder's, IPython's) sets the answer off by a blank line: where blank
    lines follow the query, the first line after them must be the answer (corpus 2397)."""
    if len(lines[i]) > _QUERY_MAX or not query.search(lines[i]):
        return i + 1
    last = min(len(lines), i + 7)
    j = i + 1
    while j < last and not lines[j].strip():
        j += 1
    if j > i + 1:
        return j + 1 if j < last and (_NO.match(lines[j]) or _YES.match(lines[j])) else i + 1
    for j in range(i + 1, last):
        if _NO.match(lines[j]) or _YES.match(lines[j]):
            return j + 1
        if not lines[j].strip():
            break
    return i + 1


@parser(ENGINE_LOG, feeds="peer_refusals", kind=PeerRefusals, rank=10)
def refusals_in_engine_log(text: str) -> PeerRefusals:
    """Peer-access refusals in a pasted engine / NCCL log.

    Input (tests/data/captures/283)::

        9ea320dd7260:17366:17726 [2] NCCL INFO Could not enable P2P between dev 2(=67000) and dev 3(=68000)
    """
    lines = text.splitlines()
    return PeerRefusals(find_refusals(lines), find_already_enabled(lines))


@parser(EVIDENCE_LINES, feeds="peer_refusals", kind=PeerRefusals, rank=20)
def refusals_in_evidence_lines(text: str) -> PeerRefusals:
    """Peer-access refusals in lines pasted on their own (a CUDA sample's answer, a Python session).

    Input (tests/data/captures/278)::

        >>> error, result = cudart.cudaDeviceCanAccessPeer(0, 1)
        >>> print(error)
        cudaError_t.cudaSuccess
        >>> print(result)
        0

    CUDA's answer that peer access is already on, as cuda-gdb prints it (tests/data/captures/1197)::

        > warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)
    """
    lines = text.splitlines()
    return PeerRefusals(find_refusals(lines), find_already_enabled(lines))


# TensorFlow's edge matrix (gpu_device.cc, BaseGPUDeviceFactory::CreateDevices): its heading, a line of the GPUs it was
# given (visible_gpu_order, CUDA ordinals), then a row per GPU in that order. mpirun's tag (`[1,0]<stderr>:`) keeps
# several processes' rows apart. A matrix wider than _TF_MAX_GPUS is no TensorFlow host's.
_TF_MATRIX = re.compile(r"\bgpu_device\.cc:\d+\] Device interconnect \w+ with strength \d+ edge matrix:\s*$")
_TF_COLUMNS = re.compile(r"\bgpu_device\.cc:\d+\]\s+(?P<ids>\d+(?: \d+)*)\s*$")
_TF_ROW = re.compile(r"\bgpu_device\.cc:\d+\] (?P<id>\d+):\s+(?P<cells>[YN](?: [YN])*)\s*$")
_TF_TAG = re.compile(r"^\s*\[\d+,\d+\]<std(?:err|out)>:")
_TF_MAX_GPUS = 64
# TensorFlow found GPUs but registered none (its CUDA libraries did not load): the run used no GPU.
_TF_NO_GPU = "Skipping registering GPU devices"


def tf_matrix_refusals(lines: Sequence[str]) -> tuple[PeerRefusal, ...]:
    """The pairs a whole TensorFlow edge matrix shows `N` for, in either direction, each once with the row that says
    it. A matrix cut before its last row, or with a row out of order or of the wrong width, proves nothing; so does one
    of a run that registered no GPU (_TF_NO_GPU)."""
    if any(_TF_NO_GPU in line for line in lines):
        return ()
    found: list[PeerRefusal] = []
    open_: dict[str, tuple[list[int] | None, list[tuple[str, str]]]] = {}
    for line in lines:
        tag = m.group(0) if (m := _TF_TAG.match(line)) else ""
        if _TF_MATRIX.search(line):
            open_[tag] = (None, [])
            continue
        if tag not in open_:
            continue
        ids, rows = open_[tag]
        if ids is None:
            cols = _TF_COLUMNS.search(line)
            if cols is None or len(cols["ids"].split()) > _TF_MAX_GPUS:
                del open_[tag]
            else:
                open_[tag] = ([int(x) for x in cols["ids"].split()], rows)
            continue
        row = _TF_ROW.search(line)
        if row is None or int(row["id"]) != ids[len(rows)] or len(row["cells"].split()) != len(ids):
            del open_[tag]
            continue
        rows.append((row["cells"].replace(" ", ""), line.strip()))
        if len(rows) < len(ids):
            continue
        del open_[tag]
        for i, j in itertools.combinations(range(len(ids)), 2):
            said = next((rows[a][1] for a, b in ((i, j), (j, i)) if rows[a][0][b] == "N"), "")
            if said:
                found.append(PeerRefusal(ids[i], ids[j], CUDA, said))
    return tuple(dict.fromkeys(found))


@parser(TF_DEVICES, feeds="peer_refusals", kind=PeerRefusals, rank=12)
def refusals_in_tensorflow_log(text: str) -> PeerRefusals:
    """Peer-access refusals in TensorFlow's GPU device log: an `N` between two GPUs of its edge matrix, and its
    "Peer access not supported between device ordinals" line.

    Input (https://github.com/tensorflow/tensorflow/issues/24677, four RTX 2080 Ti)::

        2019-01-03 07:07:31.374026: I tensorflow/core/common_runtime/gpu/gpu_device.cc:971] Device interconnect StreamExecutor with strength 1 edge matrix:
        2019-01-03 07:07:31.374063: I tensorflow/core/common_runtime/gpu/gpu_device.cc:977]      0 1 2 3
        2019-01-03 07:07:31.374070: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990] 0:   N N N N
    """
    lines = text.splitlines()
    return PeerRefusals(tuple(dict.fromkeys(tf_matrix_refusals(lines) + find_refusals(lines))))


# p2pBandwidthLatencyTest: its peer-access answer per pair, and the unidirectional bandwidth matrices.
_CAN = re.compile(r"^\s*Device=(?P<a>\d+) CAN Access Peer Device=(?P<b>\d+)")
_DEVICE = re.compile(r"^\s*Device: (?P<d>\d+), ")
_UNI = re.compile(r"^\s*Unidirectional P2P=(?P<mode>Enabled|Disabled) Bandwidth (?:\(P2P Writes\) )?Matrix")
# Its latency matrices (us): `P2P=Disabled Latency Matrix (us)`, `P2P=Enabled Latency (P2P Writes) Matrix (us)`,
# each a GPU block (`   GPU     0      1`, one row per GPU) and a CPU block (the host's time per copy), corpus 1322.
_LAT = re.compile(r"^\s*P2P=(?P<mode>Enabled|Disabled) Latency (?:\(P2P Writes\) )?Matrix")
_LAT_COLUMNS = re.compile(r"^\s*(?P<side>GPU|CPU)((?:\s+\d+)+)\s*$")
_MATRIX = re.compile(r"^\s*(?:Uni|Bi)directional P2P=|^\s*P2P=")
_COLUMNS = re.compile(r"^\s*D\\D((?:\s+\d+)+)\s*$")
_ROW = re.compile(r"^\s*(?P<d>\d+)(?P<v>(?:\s+\d+(?:\.\d+)?)+)\s*$")


# nvbandwidth (https://github.com/NVIDIA/nvbandwidth): its header (output.cpp addVersionInfo, addCudaAndDriverInfo), its
# device list (`Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)`), `Running <test>.` or `Waiving <test>.` per test
# (testcase.h: a peer test is waived where no GPU pair can access its peer, filterHasAccessiblePeerPairs), each
# matrix under its heading (`memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)`, one row `0` for the CPU in a
# host test), and a failure: the data check after each copy (kernels.cu memcmpKernel: ` Invalid value when checking
# the pattern at ...`, then memcpy.cpp's ASSERT on `h_errorFlag == 0`) or a CUDA call's error (error_handling.h:
# `[cudaErrorUnsupportedPtxVersion] ... in expression ...`).
NVBANDWIDTH = "nvbandwidth"
_NVB_VERSION = re.compile(r"^[\s>]*nvbandwidth Version:\s*v?(\d+(?:\.\d+)*)")
_NVB_CUDA = re.compile(r"^[\s>]*CUDA (Runtime|Driver) Version:\s*(\d{4,6})\s*$")
NVB_TEST = re.compile(r"^[\s>]*(?P<how>Running|Waiving) (?P<key>[a-z][a-z0-9_]*_(?:ce|sm)|device_local_copy)\.\s*$")
NVB_HEADING = re.compile(r"^[\s>]*(?:memcpy|memory latency)\b.*\(row\).*\(column\).*\((?:GB/s|ns)\)\s*$")
NVB_DEVICE = re.compile(r"^[\s>]*Device (?P<d>\d+): (?P<name>.+?)(?: \((?P<dom>[0-9a-fA-F]{4,8}):(?P<bus>[0-9a-fA-F]{2}):"
                        r"(?P<dev>[0-9a-fA-F]{2})\))?\s*$")
# The CUDA samples' deviceQuery: a device's name line (`Device 0: "NVIDIA GeForce GTX 1050 Ti"`), the driver's and
# the runtime's CUDA under it (cudaDriverGetVersion, cudaRuntimeGetVersion), its PCI location in decimal
# (`Device PCI Domain ID / Bus ID / location ID:   0 / 1 / 0`).
DQ_DEVICE = re.compile(r'^\s*Device (?P<d>\d+): "(?P<name>[^"\n]{1,100})"\s*$')
DQ_DRIVER_RUNTIME = re.compile(r"^\s*CUDA Driver Version / Runtime Version\s+(?P<driver>\d+\.\d+) / "
                               r"(?P<runtime>\d+\.\d+)\s*$")
DQ_PCI = re.compile(r"^\s*Device PCI Domain ID / Bus ID / location ID:\s+(?P<dom>\d+) / (?P<bus>\d+) / (?P<dev>\d+)\s*$")
_NVB_CELLS = re.compile(r"^[\s>]*(\d+)((?:\s+(?:\d+(?:\.\d+)?|N/A))+)\s*$")
_NVB_ONE_COLUMN = re.compile(r"^[\s>]*(\d+)\s*$")
NVB_FAILED = re.compile(r"Invalid value when checking the pattern|^\s*ASSERT in expression |Aborted \(core dumped\)|"
                        r"^\s*(?:Error: )?\[(?:cuda\w+|CUDA_ERROR_\w+)\] .* in expression |^\s*NVML_ERROR: \[")
# Azure's node health checks (https://github.com/Azure/azurehpc-health-checks, customTests/azure_gpu_bandwidth.nhc)
# run nvbandwidth's host_to_device_memcpy_ce, device_to_host_memcpy_ce and device_to_device_memcpy_read_ce and print a
# figure per GPU or pair: `check_gpu_bw: P2P test on GPU 1 to GPU 0 failed. Bandwidth 256.63 is less than 335` below
# its threshold, `dbg: P2P_GPU_0_1: 256.63 GB/s` for every figure. `GPU a to GPU b` is the matrix's column a, row b.
NHC_BW = re.compile(r"check_gpu_bw: (?P<test>P2P|H2D|D2H) test on GPU (?P<a>\d+)(?: to GPU (?P<b>\d+))? failed\. "
                    r"Bandwidth (?P<bw>\d+(?:\.\d+)?) is less than|\b(?P<dtest>P2P|H2D|D2H)_GPU_(?P<da>\d+)"
                    r"(?:_(?P<db>\d+))?: (?P<dbw>\d+(?:\.\d+)?) GB/s")
_NHC_TESTS = {"P2P": ("device_to_device_memcpy_read_ce", "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)"),
              "H2D": ("host_to_device_memcpy_ce", "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)"),
              "D2H": ("device_to_host_memcpy_ce", "memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)")}
_NVB_WAIVED = re.compile(r"^[\s>]*Waived:\s*$")
_NVB_PROCESS = re.compile(r"^[\s>]*Process \d+ \(", re.MULTILINE)
_NVB_SUM = re.compile(r"^[\s>]*SUM ([a-z][a-z0-9_]*) [\d.]+\s*$")
# nvbandwidth's local tests between GPUs (testcase.h: those filtered by filterHasAccessiblePeerPairs).
_NVB_PEER = ("device_to_device", "all_to_one", "one_to_all")


# PCIe Gen5 x16's line rate per direction (facts/pci.PCIE_GBS_PER_LANE): no peer copy over PCIe runs faster.
PCIE_GEN5_X16_GBS = PCIE_GBS_PER_LANE[5] * 16


@dataclass(frozen=True)
class BandwidthTest:
    """One nvbandwidth test: its key and how it ended (`measured`: its matrix printed; `waived`; `failed`: the data
    check or a CUDA call failed, `line` quoted; `started`: the source stops before its result), with the heading and
    `(row, column, value)` of each cell of its matrices."""
    key: str
    ended: str
    line: str = ""
    heading: str = ""
    cells: tuple[tuple[int, int, float], ...] = ()
    waived_peer: bool = False  # v0.5+'s `Waived: ` names no test: in a one-host build only peer tests are waived

    @property
    def peer(self) -> bool:
        """A test between GPUs of one host (not nvbandwidth's multinode tests); one the source does not name, by its
        matrix heading (`GPU(row) -> GPU(column)`)."""
        if self.waived_peer:
            return True
        if not self.key:
            return "GPU(row)" in self.heading and "GPU(column)" in self.heading
        return not self.key.startswith("multinode") and any(w in self.key for w in _NVB_PEER)

    @property
    def data_check(self) -> bool:
        """Whether it failed in its check of the copied data (the copy ran, and wrong values arrived)."""
        return self.ended == "failed" and ("checking the pattern" in self.line or "h_errorFlag" in self.line)


@dataclass(frozen=True)
class P2pBandwidth(Sourced):
    """One GPU bandwidth test run: CUDA samples' p2pBandwidthLatencyTest (`(a, b, GB/s)` for each ordered pair
    a != b, per matrix) or nvbandwidth (`tests`, with the CUDA versions its header prints).

    `answered`: the source shows the run's peer-access answers (`Device=0 CAN Access Peer Device=1`, or CANNOT).
    nvbandwidth from v0.5 prints the driver's CUDA under both `CUDA Runtime Version` and `CUDA Driver Version`
    (nvbandwidth.cpp passes the one variable, last set by cuDriverGetVersion, to addCudaAndDriverInfo); v0.4 and
    older print cudaRuntimeGetVersion's own (`runtime_shown`).
    """
    devices: tuple[int, ...] = ()
    can_access: tuple[tuple[int, int], ...] = ()
    enabled: tuple[tuple[int, int, float], ...] = ()
    disabled: tuple[tuple[int, int, float], ...] = ()
    answered: bool = True
    program: str = "p2pBandwidthLatencyTest"
    version: str = ""
    cuda_runtime: str = ""  # "12.4", from `CUDA Runtime Version: 12040`
    cuda_driver: str = ""
    tests: tuple[BandwidthTest, ...] = ()
    latency_enabled: tuple[tuple[int, int, float], ...] = ()  # (a, b, us): the GPU block of each latency matrix
    latency_disabled: tuple[tuple[int, int, float], ...] = ()

    @property
    def runtime_shown(self) -> bool:
        """Whether `cuda_runtime` is the runtime's own version (nvbandwidth before v0.5)."""
        v = tuple(int(x) for x in self.version.split(".")) if self.version else ()
        return bool(self.cuda_runtime) and bool(v) and v < (0, 5)

    def peer_pairs(self) -> tuple[tuple[str, tuple[tuple[int, int, float], ...]], ...]:
        """(test, cells) of each nvbandwidth peer test that measured every pair of the GPUs of its matrix (GB/s)."""
        out = []
        for t in self.tests:
            if t.ended != "measured" or not t.peer or "GB/s" not in t.heading or "CPU(" in t.heading:
                continue
            cells = tuple(c for c in t.cells if c[0] != c[1])
            gpus = {d for a, b, _ in cells for d in (a, b)}
            if len(gpus) >= 2 and all(v > 0 for _, _, v in cells) and \
                    {frozenset((a, b)) for a, b, _ in cells} >= {frozenset((a, b)) for a in gpus for b in gpus if a != b}:
                out.append((t.key, cells))
        return tuple(out)

    def host_figures(self) -> dict[int, tuple[float, str]]:
        """The highest host-to-device or device-to-host figure of each GPU over nvbandwidth's host tests:
        GPU -> (GB/s, test)."""
        best: dict[int, tuple[float, str]] = {}
        for t in self.tests:
            if t.ended == "measured" and "CPU(row)" in t.heading and "GPU(column)" in t.heading and "GB/s" in t.heading:
                for _, gpu, v in t.cells:
                    if v > best.get(gpu, (0.0, ""))[0]:
                        best[gpu] = (v, t.key)
        return best

    def copied(self) -> tuple[BandwidthTest, ...]:
        """The nvbandwidth tests whose copies ran on the GPUs: a matrix printed, or the data check failed after one."""
        return tuple(t for t in self.tests if t.ended == "measured" or t.data_check)

    def _both(self) -> tuple[tuple[int, int, float, float], ...]:
        off = {(a, b): v for a, b, v in self.disabled}
        return tuple((a, b, v, off[(a, b)]) for a, b, v in self.enabled if (a, b) in off)

    def compared(self) -> tuple[tuple[int, int, float, float], ...]:
        """`(a, b, enabled, disabled)` for each pair that CAN access its peer and has both figures."""
        return tuple(c for c in self._both() if (c[0], c[1]) in self.can_access)

    def measured(self) -> tuple[tuple[int, int, float, float], ...]:
        """The pairs a verdict of slow P2P reads: the compared ones; every pair with both figures where the paste
        leaves the answers out (a pair CUDA refused copies through host memory, as fast as without P2P, so a pair
        below half is P2P in use)."""
        return self.compared() if self.answered else self._both()

    def enabled_alone(self) -> tuple[tuple[int, int, float], ...]:
        """The P2P-enabled figures `(a, b, GB/s)` of a p2pBandwidthLatencyTest run shown without its P2P-disabled
        matrix, where they cover both directions of every pair of two or more GPUs (and, where the run's peer-access
        answers are shown, only pairs that CAN access their peer); () otherwise (corpus 1221)."""
        if self.program == NVBANDWIDTH or self.disabled or not self.enabled:
            return ()
        gpus = {d for a, b, _ in self.enabled for d in (a, b)}
        pairs = {(a, b) for a, b, _ in self.enabled}
        if len(gpus) < 2 or pairs != {(a, b) for a in gpus for b in gpus if a != b}:
            return ()
        if self.answered and not pairs <= set(self.can_access):
            return ()
        return self.enabled

    def latency_compared(self) -> tuple[tuple[int, int, float, float], ...]:
        """`(a, b, enabled us, disabled us)` of p2pBandwidthLatencyTest's GPU write latency with P2P on and off, where
        both matrices cover both directions of every pair of two or more GPUs (and, where the run's peer-access
        answers are shown, only pairs that CAN access their peer); () otherwise."""
        off = {(a, b): v for a, b, v in self.latency_disabled}
        both = tuple((a, b, v, off[(a, b)]) for a, b, v in self.latency_enabled if (a, b) in off)
        gpus = {d for a, b, _, _ in both for d in (a, b)}
        pairs = {(a, b) for a, b, _, _ in both}
        if len(gpus) < 2 or pairs != {(a, b) for a in gpus for b in gpus if a != b}:
            return ()
        if self.answered and not pairs <= set(self.can_access):
            return ()
        return both

    def no_switch_fabric(self) -> str:
        """Why a p2pBandwidthLatencyTest run shows no NVSwitch fabric between its GPUs, in words; "" where it does not.

        Its P2P-enabled matrix covers both directions of every pair of two or more GPUs, each at most PCIe Gen5 x16's
        line rate (PCIE_GEN5_X16_GBS): the run's CUDA context worked (a board's GPUs get none until Fabric Manager
        has set up their fabric: error 802), and peer copies on an NVSwitch fabric run over NVLink, at well over
        100 GB/s per direction from the first generation on (V100 DGX-2). A run cut before its figures says nothing."""
        if self.program == NVBANDWIDTH or not self.enabled:
            return ""
        gpus = {d for a, b, _ in self.enabled for d in (a, b)}
        pairs = {(a, b) for a, b, _ in self.enabled}
        if len(gpus) < 2 or pairs != {(a, b) for a in gpus for b in gpus if a != b}:
            return ""
        fastest = max(self.enabled, key=lambda c: c[2])
        if fastest[2] > PCIE_GEN5_X16_GBS:
            return ""
        return (f"{self.program} ran on {len(gpus)} GPUs and moved at most {fastest[2]:.2f} GB/s between any pair with "
                f"P2P enabled ({fastest[0]}->{fastest[1]}): PCIe rates, where an NVSwitch fabric's GPUs copy over "
                "NVLink, and a board whose fabric is down refuses CUDA (error 802)")

    def slow(self) -> tuple[tuple[int, int, float, float], ...]:
        """The measured pairs whose P2P-enabled bandwidth is below half their P2P-disabled bandwidth."""
        return tuple(c for c in self.measured() if c[2] < c[3] / 2)


fact("p2p_bandwidth", P2pBandwidth, hint="paste the whole output of CUDA samples' `p2pBandwidthLatencyTest`")


@parser(P2P_BANDWIDTH_TEST, feeds="p2p_bandwidth", kind=P2pBandwidth, rank=10)
def p2p_bandwidth_test(text: str) -> P2pBandwidth:
    """Peer access and unidirectional bandwidth per pair in a pasted p2pBandwidthLatencyTest output.

    Input (tests/data/captures/361)::

        Device=0 CAN Access Peer Device=1
        Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
           D\\D     0      1      2
             0 673.20  13.15  13.15
             1  12.99 673.20  22.20
        Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
           D\\D     0      1      2
             0 673.49   2.60   1.58
             1   2.12 672.33   1.70
    """
    if is_nvbandwidth(text):
        return parse_nvbandwidth(text)
    devices: list[int] = []
    can: list[tuple[int, int]] = []
    found: dict[str, list[tuple[int, int, float]]] = {"Enabled": [], "Disabled": []}
    latency: dict[str, list[tuple[int, int, float]]] = {"Enabled": [], "Disabled": []}
    mode: str | None = None
    lat_mode: str | None = None  # in a latency matrix's GPU block
    pending: str | None = None  # under a latency matrix's title, before its CPU block
    columns: list[int] = []
    for line in text.splitlines():
        if m := _LAT.match(line):
            mode, lat_mode, columns = None, None, []
            pending = m["mode"]
            continue
        if m := _LAT_COLUMNS.match(line):
            lat_mode = pending if m["side"] == "GPU" else None
            pending = pending if m["side"] == "GPU" else None  # the CPU block ends the matrix's GPU figures
            columns = [int(c) for c in m[2].split()]
            continue
        if lat_mode is not None and (m := _ROW.match(line)):
            for b, v in zip(columns, m["v"].split(), strict=False):
                if b != int(m["d"]):
                    latency[lat_mode].append((int(m["d"]), b, float(v)))
            continue
        if line.strip() and not _ROW.match(line):
            lat_mode = pending = None
        if m := _DEVICE.match(line):
            devices.append(int(m["d"]))
        elif m := _CAN.match(line):
            can.append((int(m["a"]), int(m["b"])))
        elif m := _UNI.match(line):
            mode, columns = m["mode"], []
        elif _MATRIX.match(line) or "Matrix" in line:
            mode, columns = None, []
        elif m := _COLUMNS.match(line):
            columns = [int(c) for c in m[1].split()]
        elif mode is not None and (m := _ROW.match(line)):
            for b, v in zip(columns, m["v"].split(), strict=False):
                if b != int(m["d"]):
                    found[mode].append((int(m["d"]), b, float(v)))
    return P2pBandwidth(tuple(dict.fromkeys(devices)), tuple(dict.fromkeys(can)), tuple(found["Enabled"]),
                        tuple(found["Disabled"]), answered=bool(can) or "Access Peer Device=" in text,
                        latency_enabled=tuple(latency["Enabled"]), latency_disabled=tuple(latency["Disabled"]))


def is_nvbandwidth(text: str) -> bool:
    """Whether a recorded bandwidth test is nvbandwidth's (its header, a test's line or a matrix heading)."""
    return any(_NVB_VERSION.match(line) or NVB_TEST.match(line) or NVB_HEADING.match(line) or NHC_BW.search(line)
               for line in text.splitlines())


def _cuda(number: str) -> str:
    """`12040` (1000 * major + 10 * minor, as CUDA reports it) -> `12.4`."""
    return f"{int(number) // 1000}.{int(number) % 1000 // 10}"


def parse_nvbandwidth(text: str) -> P2pBandwidth:
    """An nvbandwidth run: its version, CUDA versions, devices and each test's end and matrices."""
    version = runtime = driver = ""
    devices: list[int] = []
    tests: list[BandwidthTest] = []
    test: BandwidthTest | None = None
    columns: list[int] = []
    heading = ""

    def close(ended: str = "", line: str = "") -> None:
        nonlocal test
        if test is not None:
            tests.append(replace(test, ended=ended or test.ended, line=line or test.line))
        test = None

    multinode = bool(_NVB_PROCESS.search(text))
    for line in text.splitlines():
        if m := _NVB_VERSION.match(line):
            version = m[1]
        elif m := _NVB_CUDA.match(line):
            if m[1] == "Runtime":
                runtime = _cuda(m[2])
            else:
                driver = _cuda(m[2])
        elif m := NVB_DEVICE.match(line):
            devices.append(int(m["d"]))
        elif m := NVB_TEST.match(line):
            close()
            test = BandwidthTest(m["key"], "waived" if m["how"] == "Waiving" else "started")
            if m["how"] == "Waiving":
                close()
        elif _NVB_WAIVED.match(line):
            # From v0.5 a waived test prints `Waived: ` without its name (nvbandwidth.cpp, output.cpp addTestcase). A
            # one-host build lists `Device N:` lines and holds no multinode test, so it waives only peer tests
            # (testcase.h); a multinode build lists `Process N (host): device N` lines.
            close()
            tests.append(BandwidthTest("", "waived", line.strip(), waived_peer=not multinode))
        elif NVB_HEADING.match(line):
            heading, columns = line.strip().lstrip("> "), []
            if test is None:  # a matrix pasted without its `Running` line: the test is not named
                test = BandwidthTest("", "started")
        elif test is not None and not test.key and (m := _NVB_SUM.match(line)):
            test = replace(test, key=m[1])  # `SUM device_to_device_memcpy_read_ce 715.53` names a test cut above
        elif test is not None and test.ended != "failed" and NVB_FAILED.search(line):
            test = replace(test, ended="failed", line=line.strip())
        elif test is not None and heading and not columns and (m := _NVB_ONE_COLUMN.match(line)):
            columns = [int(m[1])]  # one GPU's matrix: its column header is that GPU's index alone (corpus 1339)
        elif test is not None and heading and (m := _NVB_CELLS.match(line)):
            values = m[2].split()
            if not columns and "." not in m[2] and "N/A" not in m[2]:
                columns = [int(m[1]), *(int(v) for v in values)]
                continue
            cells = tuple((int(m[1]), b, float(v)) for b, v in zip(columns, values, strict=False) if v != "N/A")
            ended = test.ended if test.ended == "failed" else "measured"
            test = replace(test, ended=ended, heading=heading, cells=test.cells + cells)
    close()
    tests += _nhc_tests(text)
    return P2pBandwidth(tuple(dict.fromkeys(devices)), answered=False, program=NVBANDWIDTH, version=version,
                        cuda_runtime=runtime, cuda_driver=driver, tests=tuple(tests))


def _nhc_tests(text: str) -> list[BandwidthTest]:
    """The nvbandwidth figures Azure's health check prints (NHC_BW), one measured test per nvbandwidth test."""
    cells: dict[str, dict[tuple[int, int], float]] = {}
    for m in filter(None, map(NHC_BW.search, text.splitlines())):
        test, a, b, bw = (m["test"], m["a"], m["b"], m["bw"]) if m["test"] else (m["dtest"], m["da"], m["db"], m["dbw"])
        cells.setdefault(test, {})[(int(b), int(a)) if b is not None else (0, int(a))] = float(bw)
    return [BandwidthTest(_NHC_TESTS[t][0], "measured", heading=_NHC_TESTS[t][1],
                          cells=tuple((r, c, v) for (r, c), v in found.items())) for t, found in cells.items()]


@parser(P2P_BANDWIDTH_TEST, feeds="peer_refusals", kind=PeerRefusals, rank=15)
def refusals_in_p2p_bandwidth_test(text: str) -> PeerRefusals:
    """Peer-access refusals (`CANNOT Access Peer`) in a pasted p2pBandwidthLatencyTest output.

    Input (https://github.com/aikitoria/open-gpu-kernel-modules/pull/5, RTX 4090 and 5090 mixed)::

        Device=0 CAN Access Peer Device=1
        Device=0 CANNOT Access Peer Device=2

    nvbandwidth waives a peer test where no pair of its GPUs can access its peer (testcase.h
    filterHasAccessiblePeerPairs, cuDeviceCanAccessPeer for every pair): each pair of the devices it lists is refused.

    Input (tests/data/captures/1037, https://github.com/NVIDIA/nvbandwidth/issues/13)::

        Device 0: NVIDIA GeForce RTX 2080 Ti
        Device 1: NVIDIA GeForce RTX 2080 Ti

        Waiving device_to_device_memcpy_write_ce.
    """
    if is_nvbandwidth(text):
        run = parse_nvbandwidth(text)
        waived = next((t for t in run.tests if t.ended == "waived" and t.peer), None)
        if waived is None or len(run.devices) < 2:
            return PeerRefusals()
        line = waived.line or f"Waiving {waived.key}."
        return PeerRefusals(tuple(PeerRefusal(a, b, CUDA, line) for a in run.devices for b in run.devices if a < b))
    return PeerRefusals(find_refusals(text.splitlines()))


# --- Data tests: programs that move data between GPUs and check what arrived -----------------------------------


@dataclass(frozen=True)
class DataTestRow:
    """One table row: a line in which `program` states its own check of the data it moved."""
    program: str
    pattern: re.Pattern[str]
    passed: bool


DATA_TESTS: tuple[DataTestRow, ...] = (
    # cuda-samples' run summary (run_tests.py) and simpleP2P's own verification (Samples/0_Introduction/simpleP2P).
    DataTestRow("simpleP2P", re.compile(r"^\s*(?:simpleP2P|streamOrderedAllocationP2P)\s*:\s*Failed\b"), False),
    DataTestRow("simpleP2P", re.compile(r"^\s*Verification error @ element \d+"), False),
    # simpleP2P's last line where its check of the copied data found no error (`Test passed`, `Test failed!` else): read
    # as its verdict only after its verification step (SIMPLE_P2P_VERIFY) in the same text, as other samples print it too.
    DataTestRow("simpleP2P", re.compile(r"^\s*`?Test passed\s*$"), True),
    # nccl-tests (src/common.cu): the count of wrong values over the whole run, printed after the result table.
    DataTestRow("nccl-tests", re.compile(r"^\s*#?\s*Out of bounds values\s*:\s*0\s+OK\b"), True),
    DataTestRow("nccl-tests", re.compile(r"^\s*#?\s*Out of bounds values\s*:\s*[1-9]\d*\s+FAILED\b"), False),
)
DATA_TEST_NEEDLES = ("Failed", "Verification error", "Out of bounds values", "Test passed")
_TEST_RANK = re.compile(r"^\s*#?\s*Rank\s+(?P<rank>\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(?P<host>" + RANK_HOST
                        + r")\s+device\s+\d+")
_PEER_YES = re.compile(r"Peer access from (?P<na>.{1,80}) \(GPU(?P<a>\d+)\) -> (?P<nb>.{1,80}) \(GPU(?P<b>\d+)\) : Yes\s*$")
# simpleP2P's own steps, each naming the CUDA devices it moved data on (Samples/0_Introduction/simpleP2P):
# `Enabling peer access between GPU0 and GPU1...`, `cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 25.34GB/s`,
# `Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...`. A run pasted without its peer-access
# answers still names its two GPUs there.
SIMPLE_P2P_STEP = re.compile(r"^\s*(?:Enabling peer access between GPU(?P<a>\d+) and GPU(?P<b>\d+)\.\.\.|"
                             r"cudaMemcpyPeer / cudaMemcpy between GPU(?P<c>\d+) and GPU(?P<d>\d+):|"
                             r"Run kernel on GPU(?P<e>\d+), taking source data from GPU(?P<f>\d+) and writing to GPU\d+|"
                             r"Copy data back to host from GPU\d+ and verify results\.\.\.)")
# simpleP2P's verification step: the data both kernels wrote across the pair, copied back to the host and compared.
SIMPLE_P2P_VERIFY = "and verify results..."
SIMPLE_P2P_NEEDLES = ("between GPU", "Run kernel on GPU", SIMPLE_P2P_VERIFY)
_P2P_OFF = re.compile(r"\bNCCL_P2P_DISABLE=(?:1|true|yes|on)\b|\bNCCL_P2P_LEVEL=(?:LOC|0)\b", re.IGNORECASE)


@dataclass(frozen=True)
class DataTest:
    """One verdict: the program, passed or not, its line, the CUDA devices simpleP2P answered 'Yes' for before it,
    and for nccl-tests the hosts and ranks of its run and whether its command turned NCCL's P2P off (then the run
    says nothing of P2P)."""
    program: str
    passed: bool
    line: str
    devices: tuple[int, ...] = ()
    hosts: tuple[str, ...] = ()
    ranks: int = 0
    p2p_off: bool = False
    # simpleP2P: (CUDA index, the name CUDA gave the device) for each device its answers name: GPUs CUDA ran on;
    # nccl-tests: (CUDA device, model) of each rank line of its run.
    models: tuple[tuple[int, str], ...] = ()
    # nccl-tests: the highest bus bandwidth (GB/s) of the run's result rows checked with 0 wrong elements, 0.0 where
    # none is shown; and whether the verdict is those rows' own `#wrong` counts, the run's summary line
    # (`# Out of bounds values`) not shown (a paste cut inside the table, corpus 762).
    busbw: float = 0.0
    rows_only: bool = False
    # nccl-tests: the rank numbers its rank lines name; a run whose list is cut to its last line (`Rank 71 ... device
    # 3`, corpus 1407) had as many ranks as the highest number and one more (run_ranks).
    numbers: tuple[int, ...] = ()

    @property
    def run_ranks(self) -> int:
        """How many ranks the run had at least: its rank lines, or the highest rank number they name and one more."""
        return max(self.ranks, max(self.numbers, default=-1) + 1)

    @property
    def between_local_gpus(self) -> bool:
        """Whether the data crossed between GPUs of one host (nccl-tests: two or more ranks, one host name)."""
        return self.program != "nccl-tests" or (self.ranks >= 2 and len(self.hosts) == 1)


@dataclass(frozen=True)
class P2pDataTests(Sourced):
    tests: tuple[DataTest, ...] = ()

    def bearing(self) -> tuple[DataTest, ...]:
        """The verdicts that speak of P2P: data crossed between GPUs of one host, with P2P not turned off."""
        return tuple(t for t in self.tests if t.between_local_gpus and not t.p2p_off)

    @classmethod
    def union(cls, parts: Sequence[P2pDataTests]) -> P2pDataTests:
        return cls(tuple(dict.fromkeys(t for p in parts for t in p.tests)), complete=all(p.complete for p in parts))


fact("p2p_data_tests", P2pDataTests, union, hint="paste the whole output of CUDA samples' simpleP2P or of nccl-tests")


def data_test(line: str) -> DataTestRow | None:
    """The table row whose pattern the line matches."""
    if not any(n in line for n in DATA_TEST_NEEDLES):
        return None
    return next((row for row in DATA_TESTS if row.pattern.search(line)), None)


# --- A torch copy straight from one GPU to another whose shown result is zeros ------------------------------------
# The user's own data test (pytorch/pytorch#157398, #132397, corpus 912, 1043, 1078): a tensor on one GPU moved to
# another (`.to('cuda:1')`, `.to(1)`, `.cuda(1)`, no `.cpu()` between) is a CUDA peer copy, which the driver carries
# over P2P where it grants peer access; its result shown as zeros (the program's printed tensor, or the user's comment
# of the result on the copy's line, on its print line or right above it) is data that did not arrive. A source made of
# zeros (`torch.zeros`, `np.zeros`, `empty`) proves nothing.
_TO_GPU = re.compile(r"""\.to\(\s*(?:device\s*=\s*)?(?:["']cuda:(?P<a>\d+)["']|(?P<b>\d+)|torch\.device\(\s*["']cuda:(?P<c>\d+)["']\s*\))\s*[,)]"""
                     r"""|\.cuda\(\s*(?:device\s*=\s*)?(?P<d>\d+)\s*\)|\bdevice\s*=\s*(?:["']cuda:(?P<e>\d+)["']|(?P<f>\d+))\b""")
_TO_HOST = re.compile(r"""\.cpu\(\)|\.to\(\s*["']cpu["']\s*\)|\.numpy\(\)""")
_ZERO = r"0(?:\.0*)?"
_ZEROS = rf"(?:{_ZERO}|\[\s*{_ZERO}(?:\s*,\s*{_ZERO})*\s*\])"
# The user's comment of a result: `### 0`, `# [0, 0, 0]`, `# ... becomes [0, 0, 0] instead of [1, 2, 3]`.
_ZERO_COMMENT = re.compile(rf"^(?:{_ZEROS}\s*$|.*\bbecomes\s+{_ZEROS}(?!\S))")
# The program's printed tensor: `tensor([0., 0.], device='cuda:1')`, `tensor(0., device='cuda:1')`.
_ZERO_TENSOR = re.compile(rf"""^\s*tensor\(\s*{_ZEROS}\s*,\s*device=['"]cuda:(?P<dev>\d+)['"]""")
_ASSIGN = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*=(?!=)\s*(?P<rhs>.*)$")
_FIRST_NAME = re.compile(r"^\s*(?:print\()?\s*(?:torch\.\w+\()?\s*(?P<name>[A-Za-z_]\w*)")
_ZERO_SOURCE = re.compile(r"\b(?:zeros|zeros_like|empty|empty_like)\(")
PEER_COPY_NEEDLES = (".to(", ".cuda(")
PEER_COPY = "the user's torch copy straight from one GPU to another"
_COPY_LOOK = 30  # how far back a copy's source tensor is looked for (one snippet)


def _split_comment(line: str) -> tuple[str, str]:
    """A code line's code and its trailing comment (`#` after white space, or a whole comment line)."""
    line = line.removeprefix(">>> ").removeprefix("... ")
    if line.lstrip().startswith("#"):
        return "", line.lstrip().lstrip("#").strip()
    m = re.search(r"\s#+\s*(.*)$", line)
    return (line[:m.start()], m.group(1).strip()) if m else (line, "")


def _moves(code: str, start: int | None) -> tuple[int | None, tuple[int, int] | None]:
    """Where an expression leaves its tensor (a GPU index, None for the host or not known) and its first move straight
    from one GPU to another, starting from `start` (the device of the tensor it begins with)."""
    ops = sorted([(m.start(), int(next(g for g in m.groups() if g is not None))) for m in _TO_GPU.finditer(code)]
                 + [(m.start(), -1) for m in _TO_HOST.finditer(code)])
    at, peer = start, None
    for _, dev in ops:
        if dev >= 0 and at is not None and at >= 0 and at != dev and peer is None:
            peer = (at, dev)
        at = dev
    return (at if at is None or at >= 0 else None), peer


def peer_copy_zeros(lines: Sequence[str]) -> tuple[tuple[int, int, str, int], ...]:
    """Each torch copy straight between two GPUs in `lines` whose shown result is zeros: (source GPU, target GPU, the
    quoted copy and result, the index of the copy's line)."""
    devices: dict[str, int | None] = {}
    peers: dict[str, tuple[int, int, int, str]] = {}  # variable -> (from, to, line index, its copy line)
    zero_source = False
    found: list[tuple[int, int, str, int]] = []
    for i, raw in enumerate(lines):
        code, comment = _split_comment(raw)
        zero_source = zero_source or bool(_ZERO_SOURCE.search(code))
        m = _ASSIGN.match(code)
        rhs = m.group("rhs") if m else code
        first = _FIRST_NAME.match(rhs)
        at, peer = _moves(rhs, devices.get(first.group("name")) if first else None)
        copy: tuple[int, int, int, str] | None = (peer[0], peer[1], i, raw.strip()) if peer else None
        if copy is None and first and first.group("name") in peers and "print(" in code:
            copy = peers[first.group("name")]
        elif copy is None:
            used = [v for v in peers if re.search(rf"\b{v}\b", code)] if "print(" in code else []
            copy = peers[used[0]] if used else None
        if m:
            devices[m.group("name")] = at
            if peer and copy:
                peers[m.group("name")] = copy
        if copy is None or zero_source:
            continue
        a, b, at_line, said = copy
        result = ""
        above = _split_comment(lines[i - 1])[1] if i and not _split_comment(lines[i - 1])[0].strip() else ""
        if comment and _ZERO_COMMENT.match(comment):
            result = raw.strip()
        elif peer and above and _ZERO_COMMENT.match(above):
            result = lines[i - 1].strip()
        elif "print(" in code:
            out = next((t for t in lines[i + 1:i + 8] if _ZERO_TENSOR.match(t)), None)
            result = out.strip() if out is not None and int(_ZERO_TENSOR.match(out)["dev"]) == b else ""  # type: ignore[index]
        if result:
            quoted = said if result == said else f"{said} -> {result}"
            found.append((a, b, quoted, at_line))
    return tuple(dict.fromkeys(found))


def peer_copy_end(lines: Sequence[str], i: int) -> tuple[int, int] | None:
    """Where the snippet of a torch copy between GPUs at line `i` whose result is zeros starts and ends ([start, end):
    the lines that define its source, through its shown result); None where line `i` is no such copy."""
    if not any(n in lines[i] for n in PEER_COPY_NEEDLES):
        return None
    lo = max(0, i - _COPY_LOOK)
    window = lines[lo:min(len(lines), i + 8)]
    hits = [f for f in peer_copy_zeros(window) if f[3] + lo == i]
    if not hits:
        return None
    # The span ends after the last line the quote names (the printed result may follow the copy).
    last = max(lo + j for j, t in enumerate(window) if any(t.strip() and t.strip() in h[2] for h in hits))
    return lo, max(i + 1, last + 1)


def _data_tests(text: str) -> tuple[DataTest, ...]:
    """Each verdict of the table in `text`; an nccl-tests verdict carries the ranks, hosts and command of its run
    (the lines since the previous verdict), a simpleP2P verdict the devices its peer-access answers name."""
    found: list[DataTest] = []
    hosts: list[str] = []
    # simpleP2P's answers anywhere in the text: the samples' summary of a failed run is printed above its output.
    answers = [m for m in map(_PEER_YES.search, text.splitlines()) if m]
    steps = [m for m in map(SIMPLE_P2P_STEP.match, text.splitlines()) if m]
    devices = tuple(sorted({int(d) for m in answers for d in (m["a"], m["b"])}
                           | {int(d) for m in steps for d in m.groups() if d is not None}))
    models = tuple(sorted({(int(m[d]), m[n].lstrip("> ").strip()) for m in answers for d, n in (("a", "na"), ("b", "nb"))}))
    off = False
    ranks: list[tuple[int, str]] = []  # (CUDA device, model) of the run's rank lines
    numbers: list[int] = []  # the rank numbers of the run's rank lines
    rows: list[tuple[str, tuple[int, ...], float]] = []  # the run's whole result rows: line, #wrong counts, busbw

    def rows_verdict() -> DataTest | None:
        """A run cut inside its table: every row shown checked (a `#wrong` count, not N/A) with 0 wrong elements."""
        if not rows or not all(counts and not any(counts) for _, counts, _ in rows):
            return None
        top = max(rows, key=lambda r: r[2])
        return DataTest("nccl-tests", True, top[0], (), tuple(dict.fromkeys(hosts)), len(hosts), off,
                        tuple(dict.fromkeys(ranks)), top[2], rows_only=True, numbers=tuple(dict.fromkeys(numbers)))

    verified = False  # simpleP2P's verification step shown above (its `Test passed` is then its own)
    for line in text.splitlines():
        verified = verified or (SIMPLE_P2P_VERIFY in line and SIMPLE_P2P_STEP.match(line) is not None)
        if "nThread" in line and rows:  # the next run's header: the run above ended without its summary
            found.extend(t for t in (rows_verdict(),) if t is not None)
            hosts, off, ranks, rows, numbers = [], False, [], [], []
        if m := _TEST_RANK.match(line):
            hosts.append(m["host"])
            numbers.append(int(m["rank"]))
            if (d := RANK_DEVICE.match(line)) is not None:
                ranks.append((int(d["device"]), d["model"]))
        elif "_perf" in line and _P2P_OFF.search(line):
            off = True
        elif FULL_ROW.match(line):
            rows.append((line.strip(), wrong_counts(line), row_busbw(line)))
        row = data_test(line)
        if row is None or (row.program == "simpleP2P" and row.passed and not verified):
            continue
        checked = [bw for _, counts, bw in rows if counts and not any(counts)]
        found.append(DataTest(row.program, row.passed, line.strip(), (), tuple(dict.fromkeys(hosts)), len(hosts), off,
                              tuple(dict.fromkeys(ranks)), max(checked, default=0.0), numbers=tuple(dict.fromkeys(numbers)))
                     if row.program == "nccl-tests" else
                     DataTest(row.program, row.passed, line.strip(), devices, models=models))
        if row.program == "nccl-tests":
            hosts, off, ranks, rows, numbers = [], False, [], [], []
    found.extend(t for t in (rows_verdict(),) if t is not None)
    found.extend(DataTest(PEER_COPY, False, quoted, (a, b)) for a, b, quoted, _ in peer_copy_zeros(text.splitlines()))
    return tuple(dict.fromkeys(found))


@parser(NCCL_TESTS, feeds="p2p_data_tests", kind=P2pDataTests, rank=10)
def data_tests_in_nccl_tests(text: str) -> P2pDataTests:
    """nccl-tests' check of its results, with the ranks and the command of its run.

    Input (tests/data/captures/383)::

        #   Rank  0 Pid   3795 on w-system device  0 [0x01] GeForce RTX 2080 Ti
        #   Rank  1 Pid   3795 on w-system device  1 [0x02] GeForce RTX 2080 Ti
        # Out of bounds values : 0 OK
    """
    return P2pDataTests(_data_tests(text))


@parser(P2P_BANDWIDTH_TEST, feeds="p2p_data_tests", kind=P2pDataTests, rank=15)
def data_tests_in_nvbandwidth(text: str) -> P2pDataTests:
    """nvbandwidth's peer tests that failed: its check of the data each copy moved (kernels.cu memcmpKernel), or the
    run aborted inside one. A measured peer matrix is read by IC-P2P-FUNCTIONAL from the `p2p_bandwidth` fact.

    Input (tests/data/captures/1035, https://github.com/NVIDIA/nvbandwidth/issues/34)::

        Running device_to_device_memcpy_read_ce.
         Invalid value when checking the pattern at 0x70a640000000
    """
    if not is_nvbandwidth(text):
        return P2pDataTests()
    run = parse_nvbandwidth(text)
    return P2pDataTests(tuple(DataTest(f"nvbandwidth's {t.key}", False, t.line) for t in run.tests
                              if t.peer and t.ended == "failed" and (t.data_check or "Aborted" in t.line)))


@parser(EVIDENCE_LINES, feeds="p2p_data_tests", kind=P2pDataTests, rank=20)
def data_tests_in_evidence_lines(text: str) -> P2pDataTests:
    """simpleP2P's verification errors and the CUDA samples' summary of a failed P2P sample, on their own.

    Input (tests/data/captures/390)::

          simpleP2P : Failed (code 1)
    """
    return P2pDataTests(_data_tests(text))


# --- The user's words that turning P2P off cures a failure ---------------------------------------------------------
# An A/B the user ran and reports in a sentence: the workload hangs or crashes with GPU peer-to-peer on and runs with it
# off (`Setting NCCL_P2P_DISABLE=1 did workaround but got really low speed.`, corpus 266, after `The rest will result
# in hanging.`; `It works with disabled P2P, but crashes when enabled.`, corpus 974). P2P turned off: NCCL's variable set
# to 1, or P2P disabled in words; not where the words deny or only weigh it (`without disabling P2P`, corpus 905;
# `No need for NCCL_P2P_DISABLE now`, corpus 420; `I was just thinking if disabling P2P ... would`, corpus 56). The cure:
# a remedy word (`workaround`, `fixes`, `solved`), or the run working in a sentence that also names the failure, so that
# `NCCL_P2P_DISABLE=1 ./build/all_reduce_perf seems to be working properly` after a reboot (corpus 351) is no A/B.
P2P_TURNED_OFF = re.compile(r"\bNCCL_P2P_DISABLE\s*=\s*[`'\"]?(?:1|true|yes|on)\b|\bdisabl(?:e|ed|es|ing)\s+(?:the\s+|GPU\s+)*P2P\b"
                            r"|\bP2P\s+(?:is\s+|was\s+)?(?:disabled|turned\s+off|off)\b", re.I)
_WEIGHED_BEFORE = re.compile(r"(?:\b(?:without|not|no\s+need\s+(?:for|to)|instead\s+of|rather\s+than|if|whether)|n't)"
                             r"\s+(?:\w+\s+){0,2}[`'\"]?$", re.I)
_REMEDY = re.compile(r"\bwork\s?-?arounds?\b|\bworked\s+around\b|\b(?:fix|solv|resolv|cur)(?:e[sd]?|es|ed|ing)?\b", re.I)
_WORKS = re.compile(r"\b(?:works?|worked|working|runs?|running|passe[sd])\b", re.I)
_FAILS = re.compile(r"\b(?:hang(?:s|ing)?|hung|stuck|crash(?:es|ed|ing)?|fail(?:s|ed|ing)?|freez(?:es|ing)|deadlock\w*|"
                    r"errors?|time[sd]?\s?out)\b", re.I)
_UNDONE = re.compile(r"(?:\b(?:not|never|no\s+longer)|n[`'’]t)\s+(?:\w+\s+)?$", re.I)


def says_p2p_off_cures(line: str) -> bool:
    """Whether a sentence of the user's reports that turning P2P off cures a failure (P2P_TURNED_OFF)."""
    if "?" in line:
        return False
    off = [m for m in P2P_TURNED_OFF.finditer(line) if not _WEIGHED_BEFORE.search(line[:m.start()])]
    if not off:
        return False
    remedy = [m for m in _REMEDY.finditer(line) if not _UNDONE.search(line[:m.start()])]
    works = [m for m in _WORKS.finditer(line) if not _UNDONE.search(line[:m.start()])]
    # The failure undone after P2P is turned off is the cure too: `when I disable P2P via export NCCL_P2P_DISABLE=1,
    # train doesn't hang any more` (NVIDIA/nccl#203, corpus 2316; typed with a backtick for the apostrophe).
    undone = [m for m in _FAILS.finditer(line, off[0].end()) if _UNDONE.search(line[:m.start()])]
    return bool(remedy) or (bool(works) and bool(_FAILS.search(line))) or bool(undone)


@dataclass(frozen=True)
class P2pOffCures(Sourced):
    """The user's sentence that the workload runs with GPU P2P off and fails with it on, verbatim."""
    line: str = ""


fact("p2p_off_cures", P2pOffCures, hint=USER_P2P_OFF_CURES.hint)


@parser(USER_P2P_OFF_CURES, feeds="p2p_off_cures", kind=P2pOffCures, rank=90)
def p2p_off_cures_in_words(text: str) -> P2pOffCures:
    """The first sentence recorded (importers/prose_ab_p2p.py).

    Input (tests/data/captures/974)::

        It works with disabled P2P, but crashes when enabled.
    """
    line = next((x.strip() for x in text.splitlines() if says_p2p_off_cures(x)), "")
    if not line:
        raise ParseError("no sentence that turning P2P off cures a failure")
    return P2pOffCures(line=line)
