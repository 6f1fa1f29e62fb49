"""The CUDA samples' `p2pBandwidthLatencyTest` output pasted into a report.

    [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
    Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
    Device=0 CAN Access Peer Device=1
    Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)

The run from its title line on (devices, peer access, matrices, notes) is recorded verbatim as the
pasted document P2P_BANDWIDTH_TEST (facts/sources.py); facts/peer_access.py reads it.
A paste of its matrices alone (from `Unidirectional P2P=Disabled Bandwidth Matrix`, `Unidirectional P2P=Enabled
Bandwidth (P2P Writes) Matrix`, its latency matrices `P2P=Disabled Latency Matrix (us)` and `P2P=Enabled Latency
(P2P Writes) Matrix (us)`, or its connectivity matrix) is read from that heading on. A paste whose lines the user
numbered (`  1 P2P=Disabled Latency Matrix (us)`, `  2    GPU     0      1`, corpus 1322) is read while the numbers
run on one by one, and recorded without them.

NVIDIA's nvbandwidth output (https://github.com/NVIDIA/nvbandwidth, output.cpp) is recorded in the same document,
from its first line (`nvbandwidth Version: v0.8`, a `Running <test>.` or `Waiving <test>.` line, or a matrix heading)
through its header, device list, matrices and failure lines:

    nvbandwidth Version: v0.7
    CUDA Runtime Version: 12040
    Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)
    Running device_to_device_memcpy_read_ce.
    memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.peer_access import (
    DQ_DEVICE,
    DQ_DRIVER_RUNTIME,
    NHC_BW,
    NVB_DEVICE,
    NVB_FAILED,
    NVB_HEADING,
    NVB_TEST,
)
from stackaudit.facts.sources import P2P_BANDWIDTH_TEST
from stackaudit.importers._scan import Candidates, Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer

_TITLE = re.compile(r"^\s*(?:[-*+]\s+)?\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]|"
                    r"^\s*(?:(?:Uni|Bi)directional P2P=(?:Enabled|Disabled) Bandwidth(?: \(P2P (?:Writes|Reads)\))?|"
                    r"P2P Connectivity) Matrix|^\s*P2P=(?:Enabled|Disabled) Latency(?: \(P2P (?:Writes|Reads)\))? Matrix")
# A number the user put before each pasted line (an editor's gutter): the number, one space, the line.
_GUTTER = re.compile(r"^\s*(?P<n>\d+)(?: (?P<rest>.*))?$")
_BODY = re.compile(r"^\s*(?:$|Device: \d+, |Device=\d+ CAN(?:NOT)? Access Peer Device=\d+|\*\*\*NOTE:|"
                   r"So you can see lesser|NOTE: The CUDA Samples|P2P Connectivity Matrix|"
                   r"(?:Uni|Bi)directional P2P=|P2P=(?:Enabled|Disabled) Latency|D\\D(?:\s+\d+)+\s*$|"
                   r"(?:CPU|GPU)(?:\s+\d+)+\s*$|(?:CPU\s+)?\d+(?:\s+[\d.]+)+\s*$)")


@importer("p2pBandwidthLatencyTest", "CUDA samples' `p2pBandwidthLatencyTest` output (peer access per pair and its "
          "bandwidth matrices)", needles=("Peer-to-Peer", "P2P=Enabled Bandwidth", "P2P=Disabled Bandwidth", "P2P Connectivity Matrix",
                   "P2P=Disabled Latency", "P2P=Enabled Latency"),
          per_line=True)
def p2p_bandwidth(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _TITLE.match(lines[i]):
            if (g := _GUTTER.match(lines[i])) and _TITLE.match(g["rest"] or ""):
                end = _numbered_end(lines, i, int(g["n"]))
                body = [_text(line) for line in lines[i:end]]
                yield Found("p2pBandwidthLatencyTest", i, end,
                            document_appended(P2P_BANDWIDTH_TEST.name, "\n".join(body) + "\n"))
                scan.skip(end)
            continue
        end = run_end(lines, i + 1, _BODY.match)
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        yield Found("p2pBandwidthLatencyTest", i, end,
                    document_appended(P2P_BANDWIDTH_TEST.name, "\n".join(lines[i:end]) + "\n"))
        scan.skip(end)


def _text(line: str) -> str:
    """A numbered line's text, without its number."""
    g = _GUTTER.match(line)
    return (g["rest"] or "") if g else line


def _numbered_end(lines: list[str], i: int, first: int) -> int:
    """The end of a run of numbered lines from `i` (numbered `first`, `first + 1`, ...) whose text is the test's."""
    end = i + 1
    while end < len(lines) and (g := _GUTTER.match(lines[end])) and int(g["n"]) == first + end - i \
            and _BODY.match(g["rest"] or ""):
        end += 1
    while end > i + 1 and not _text(lines[end - 1]).strip():
        end -= 1
    return end


_NVB_TITLE = re.compile(r"^[\s>]*nvbandwidth Version:")
# Every other line nvbandwidth prints (output.cpp, error_handling.h), with a Markdown quote's `>` before it, and a
# `...` where the user cut the output.
_NVB_BODY = re.compile(r"^[\s>]*(?:$|Built from Git version:|MPI version:|NOTE:|Additional system-specific|"
                       r"Performance can vary|CUDA (?:Runtime|Driver) Version:|Driver Version:|Process \d+ \(|"
                       r"SUM \w+ [\d.]+\s*$|Waived:\s*$|Error: |Current offset|Warning:|\.\.\.\s*$|"
                       r"\d+(?:\s+(?:[\d.]+|N/A))*\s*$)")
# The host name v0.8 prints alone above the device list (output.cpp recordDevices).
_NVB_HOST = re.compile(r"^[A-Za-z0-9][\w.-]{0,62}$")


def _nvb_line(lines: list[str], j: int) -> bool:
    line = lines[j]
    return bool(_NVB_BODY.match(line) or NVB_TEST.match(line) or NVB_HEADING.match(line) or NVB_DEVICE.match(line)
                or NVB_FAILED.search(line) or _NVB_TITLE.match(line)
                or (_NVB_HOST.match(line.strip()) and j + 1 < len(lines) and NVB_DEVICE.match(lines[j + 1])))


@importer("nvbandwidth", "NVIDIA's nvbandwidth output (its CUDA and driver versions, devices, each test's bandwidth "
          "matrix, waived and failed tests), or the figures of it that Azure's health check prints",
          needles=("nvbandwidth Version", "(column)", "_to_", "_copy", "_latency", "check_gpu_bw", "_GPU_"),
          per_line=True)
def nvbandwidth(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if NHC_BW.search(lines[i]):
            yield Found("nvbandwidth", i, i + 1, document_appended(P2P_BANDWIDTH_TEST.name, lines[i] + "\n"))
            continue
        if not (_NVB_TITLE.match(lines[i]) or NVB_TEST.match(lines[i]) or NVB_HEADING.match(lines[i])):
            continue
        end = i + 1
        while end < len(lines) and _nvb_line(lines, end):
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        yield Found("nvbandwidth", i, end, document_appended(P2P_BANDWIDTH_TEST.name, "\n".join(lines[i:end]) + "\n"))
        scan.skip(end)


# The CUDA samples' deviceQuery (Samples/1_Utilities/deviceQuery/deviceQuery.cpp): its banner, the count it found,
# a `Device N: "<name>"` block of properties per device (the first `CUDA Driver Version / Runtime Version  12.2 /
# 12.1`), peer access per pair (`> Peer access from A (GPU0) -> B (GPU1) : Yes`), its summary and `Result = PASS`; or,
# where cudaGetDeviceCount failed, `cudaGetDeviceCount returned 30` over `-> unknown error` and `Result = FAIL`.
# A block starts at the banner, the count, the failure, the program typed at a prompt (`$ ./deviceQuery`), or a
# device's name line over its driver and runtime line (a paste the user cut with `...`, corpus 2486).
_DQ_START = re.compile(r"^\s*(?:\S*deviceQuery Starting\.\.\.|CUDA Device Query \(Runtime API\)|"
                       r"Detected \d+ CUDA Capable device|cudaGetDeviceCount returned \d+|"
                       r"(?:\S{0,80}[$#] )?\S{0,200}/deviceQuery\s*$)")
_DQ_BODY = re.compile(r"^\s*(?:$|\.\.\.\s*$|\S*deviceQuery(?: Starting\.\.\.|, CUDA Driver = )|CUDA Device Query \(|"
                      r"Detected \d+ CUDA Capable|There (?:are|is) no (?:available )?device|Device \d+: \"|"
                      r"cudaGetDeviceCount returned|-> [a-zA-Z]|Result = (?:PASS|FAIL)|>?\s*Peer access from |"
                      r"Compute Mode:|< .{0,200}>\s*$)|"
                      r"^ {2,}(?:\(\s*\d+\) Multiprocessors|[A-Z][\w /(),.-]{2,80}?(?::|\s{2}\S))")


@importer("deviceQuery", "CUDA samples' `deviceQuery` output (each CUDA device, the driver's and the runtime's CUDA, "
          "peer access per pair, or the failure of cudaGetDeviceCount)",
          needles=("deviceQuery", "Device Query", "Driver Version / Runtime", "cudaGetDeviceCount returned"))
def device_query(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        if not (_DQ_START.match(lines[i]) or (DQ_DEVICE.match(lines[i]) and i + 1 < len(lines)
                and DQ_DRIVER_RUNTIME.match(lines[i + 1]))):
            i += 1
            continue
        end = run_end(lines, i + 1, _DQ_BODY.match)
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        block = lines[i:end]
        if not any(DQ_DEVICE.match(line) or (_DQ_START.match(line) and "/deviceQuery" not in line) for line in block):
            i += 1  # the program typed at a prompt with no output of it below
            continue
        yield Found("deviceQuery", i, end, document_appended(P2P_BANDWIDTH_TEST.name, "\n".join(block) + "\n"))
        i = end
