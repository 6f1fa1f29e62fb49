"""Peer access the driver refused: a program's record of CUDA answering "no" for a pair of GPUs.

`cudaDeviceCanAccessPeer` is the driver's per-pair answer (the same answer `nvidia-smi topo -p2p`
prints for every pair); programs write it in their logs in their own words. `REFUSALS` is the table:
each row a pattern, who writes it, and whether that program asked only for a pair its own topology
expected P2P on.

- NCCL (src/transport/p2p.cc, p2pCanConnect): INFO "Could not enable P2P between dev %d(=%lx) and dev
  %d(=%lx)" when `cudaDeviceCanAccessPeer` returns 0, asked only after its topology put the pair within
  its P2P level (ncclTopoCheckP2p): the PCI path allowed P2P and the driver said no.
- The CUDA samples: simpleP2P "> Peer access from A (GPU0) -> B (GPU1) : No",
  p2pBandwidthLatencyTest "Device=0 CANNOT Access Peer Device=1".
- TensorFlow (gpu_device.cc): "Peer access not supported between device ordinals 0 and 4".
- TensorRT-LLM: "Device 0 peer access Device 1 is not available."
- A Python session: `cudart.cudaDeviceCanAccessPeer(0, 1)` or `torch.cuda.can_device_access_peer(0, 1)`
  answered `0` / `False` on a later output line.

The indices are CUDA device ordinals of the program (CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER renumber
them), not nvidia-smi's GPU indices. A refusal is the driver's report, not a failure of the run: whether
it is expected (GeForce policy, a host bridge or CPU between the GPUs, a VM) is the check's judgement.

Sources, joined (`union`): a pasted engine / NCCL log, a pasted `p2pBandwidthLatencyTest` output and lines of
evidence pasted on their own.

`P2pBandwidth` is the CUDA samples' `p2pBandwidthLatencyTest` run: the pairs that CAN access their peer and
the unidirectional bandwidth per pair with P2P enabled (writes) and disabled (copies through host memory).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts.registry import Sourced, fact, parser, union
from stackaudit.facts.sources import ENGINE_LOG, EVIDENCE_LINES, P2P_BANDWIDTH_TEST

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
    Refusal("simple-p2p", re.compile(r"Peer access from .{1,80} \(GPU(?P<a>\d+)\) -> .{1,80} \(GPU(?P<b>\d+)\) : No\s*$"),
            CUDA),
    Refusal("p2p-bandwidth-test", re.compile(r"Device=(?P<a>\d+) CANNOT Access Peer Device=(?P<b>\d+)"), CUDA),
    Refusal("tensorflow", re.compile(r"Peer access not supported between device ordinals (?P<a>\d+) and (?P<b>\d+)"),
            CUDA),
    Refusal("tensorrt-llm", re.compile(r"Device (?P<a>\d+) peer access Device (?P<b>\d+) is not available"), CUDA),
)
# A Python session's query, answered on a later output line (`0`, `False`, or the tuple cuda-python returns).
# The paste reader peels the `>>> ` prompt off a session's lines; a line of code elsewhere (no answer after it) is no
# refusal. A session's line is short: a long line is a log's, not a query.
_QUERY = re.compile(r"(?:cudaDeviceCanAccessPeer|can_device_access_peer|canDeviceAccessPeer)\(\s*(?P<a>\d+)\s*,\s*"
                    r"(?P<b>\d+)\s*\)")
_QUERY_MAX = 160
_NO = re.compile(r"^\s*(?:0|False|\(<?cudaError_t\.cudaSuccess(?::\s*0>)?,\s*0\))\s*$")
_YES = re.compile(r"^\s*(?:1|True|\(<?cudaError_t\.cudaSuccess(?::\s*0>)?,\s*1\))\s*$")
NEEDLES = ("P2P between dev", "Peer access", "Access Peer", "peer access", "AccessPeer", "access_peer")


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

    @property
    def pairs(self) -> tuple[frozenset[int], ...]:
        """The refused pairs, each once, in the order the sources show them."""
        return tuple(dict.fromkeys(r.pair for r in self.refusals))

    @property
    def said_by(self) -> frozenset[str]:
        return frozenset(r.said_by for r in self.refusals)

    @classmethod
    def union(cls, parts: Sequence[PeerRefusals]) -> PeerRefusals:
        return cls(tuple(dict.fromkeys(r for p in parts for r in p.refusals)), complete=all(p.complete for p in parts))


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


def is_refusal_line(line: str) -> bool:
    """Whether a line on its own says the driver refused peer access, or asks it in a Python session."""
    return any(n in line for n in NEEDLES) and bool((len(line) <= _QUERY_MAX and _QUERY.search(line))
                                                    or any(r.pattern.search(line) for r in REFUSALS))


def answer_end(lines: Sequence[str], i: int) -> int:
    """Where a Python session's peer-access query at line `i` ends: after the first answer printed within the next
    six lines (the session's own lines and other outputs between), else after the query line alone."""
    if len(lines[i]) > _QUERY_MAX or not _QUERY.search(lines[i]):
        return i + 1
    for j in range(i + 1, min(len(lines), i + 7)):
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
    return PeerRefusals(find_refusals(text.splitlines()))


@parser(EVIDENCE_LINES, feeds="peer_refusals", kind=PeerRefusals, rank=20)
def refusals_in_evidence_lines(text: str) -> PeerRefusals:
    """Peer-access refusals in lines pasted on their own (a CUDA sample's answer, a Python session).

    Input (tests/data/captures/278)::

        >>> error, result = cudart.cudaDeviceCanAccessPeer(0, 1)
        >>> print(error)
        cudaError_t.cudaSuccess
        >>> print(result)
        0
    """
    return PeerRefusals(find_refusals(text.splitlines()))


# p2pBandwidthLatencyTest: its peer-access answer per pair, and the unidirectional bandwidth matrices.
_CAN = re.compile(r"^\s*Device=(?P<a>\d+) CAN Access Peer Device=(?P<b>\d+)")
_DEVICE = re.compile(r"^\s*Device: (?P<d>\d+), ")
_UNI = re.compile(r"^\s*Unidirectional P2P=(?P<mode>Enabled|Disabled) Bandwidth (?:\(P2P Writes\) )?Matrix")
_MATRIX = re.compile(r"^\s*(?:Uni|Bi)directional P2P=|^\s*P2P=")
_COLUMNS = re.compile(r"^\s*D\\D((?:\s+\d+)+)\s*$")
_ROW = re.compile(r"^\s*(?P<d>\d+)(?P<v>(?:\s+\d+(?:\.\d+)?)+)\s*$")


@dataclass(frozen=True)
class P2pBandwidth(Sourced):
    """One p2pBandwidthLatencyTest run: `(a, b, GB/s)` for each ordered pair a != b, per matrix."""
    devices: tuple[int, ...] = ()
    can_access: tuple[tuple[int, int], ...] = ()
    enabled: tuple[tuple[int, int, float], ...] = ()
    disabled: tuple[tuple[int, int, float], ...] = ()

    def compared(self) -> tuple[tuple[int, int, float, float], ...]:
        """`(a, b, enabled, disabled)` for each pair that CAN access its peer and has both figures."""
        off = {(a, b): v for a, b, v in self.disabled}
        return tuple((a, b, v, off[(a, b)]) for a, b, v in self.enabled
                     if (a, b) in off and (a, b) in self.can_access)

    def slow(self) -> tuple[tuple[int, int, float, float], ...]:
        """The compared pairs whose P2P-enabled bandwidth is below half their P2P-disabled bandwidth."""
        return tuple(c for c in self.compared() if c[2] < c[3] / 2)


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
    devices: list[int] = []
    can: list[tuple[int, int]] = []
    found: dict[str, list[tuple[int, int, float]]] = {"Enabled": [], "Disabled": []}
    mode: str | None = None
    columns: list[int] = []
    for line in text.splitlines():
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
                        tuple(found["Disabled"]))


@parser(P2P_BANDWIDTH_TEST, feeds="peer_refusals", kind=PeerRefusals, rank=15)
def refusals_in_p2p_bandwidth_test(text: str) -> PeerRefusals:
    """Peer-access refusals (`CANNOT Access Peer`) in a pasted p2pBandwidthLatencyTest output.

    Input (https://github.com/aikitoria/open-gpu-kernel-modules/pull/5, RTX 4090 and 5090 mixed)::

        Device=0 CAN Access Peer Device=1
        Device=0 CANNOT Access Peer Device=2
    """
    return PeerRefusals(find_refusals(text.splitlines()))
