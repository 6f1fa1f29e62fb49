"""The CUDA samples' `p2pBandwidthLatencyTest` output pasted into a report.

    [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
    Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
    Device=0 CAN Access Peer Device=1
    Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)

The run from its title line on (devices, peer access, matrices, notes) is recorded verbatim as the
pasted document P2P_BANDWIDTH_TEST (facts/sources.py); facts/peer_access.py reads it.
A paste of its matrices alone (from `Unidirectional P2P=Disabled Bandwidth Matrix`, or its connectivity matrix) is
read from that heading on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import P2P_BANDWIDTH_TEST
from stackaudit.importers._scan import Candidates, Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer

_TITLE = re.compile(r"^\s*\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]|"
                    r"^\s*(?:(?:Uni|Bi)directional P2P=(?:Enabled|Disabled) Bandwidth|P2P Connectivity) Matrix")
_BODY = re.compile(r"^\s*(?:$|Device: \d+, |Device=\d+ CAN(?:NOT)? Access Peer Device=\d+|\*\*\*NOTE:|"
                   r"So you can see lesser|NOTE: The CUDA Samples|P2P Connectivity Matrix|"
                   r"(?:Uni|Bi)directional P2P=|P2P=(?:Enabled|Disabled) Latency|D\\D(?:\s+\d+)+\s*$|"
                   r"(?:CPU|GPU)(?:\s+\d+)+\s*$|(?:CPU\s+)?\d+(?:\s+[\d.]+)+\s*$)")


@importer("p2pBandwidthLatencyTest", "CUDA samples' `p2pBandwidthLatencyTest` output (peer access per pair and its "
          "bandwidth matrices)", needles=("Peer-to-Peer", "P2P=Enabled Bandwidth", "P2P=Disabled Bandwidth", "P2P Connectivity Matrix"),
          per_line=True)
def p2p_bandwidth(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _TITLE.match(lines[i]):
            continue
        end = run_end(lines, i + 1, _BODY.match)
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        yield Found("p2pBandwidthLatencyTest", i, end,
                    document_appended(P2P_BANDWIDTH_TEST.name, "\n".join(lines[i:end]) + "\n"))
        scan.skip(end)
