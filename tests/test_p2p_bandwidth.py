"""CUDA samples' p2pBandwidthLatencyTest: recognised, read per pair, judged by IC-P2P-FUNCTIONAL."""

from __future__ import annotations

from pathlib import Path

from corpus import corpus_path, fact
from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted

# NVIDIA/nccl#1264 (HGX H100 SXM, NVLink4): the retrieved copy starts at the connectivity matrix and cuts the
# P2P-enabled matrix after row 0's seventh cell. The matrices below are verbatim up to that cut; the title line and
# the `CAN Access Peer` lines of device 0 are modelled from the all-1 connectivity matrix; trailing spaces dropped.
H100_NVLINK = """[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
Device=0 CAN Access Peer Device=1
Device=0 CAN Access Peer Device=2
Device=0 CAN Access Peer Device=3
Device=0 CAN Access Peer Device=4
Device=0 CAN Access Peer Device=5
Device=0 CAN Access Peer Device=6
Device=0 CAN Access Peer Device=7
P2P Connectivity Matrix
     D\\D     0     1     2     3     4     5     6     7
     0\t     1     1     1     1     1     1     1     1
     1\t     1     1     1     1     1     1     1     1
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1      2      3      4      5      6      7
     0 2474.76  37.19  37.20  36.91  37.06  37.16  37.28  37.24
     1  36.36 2512.44  37.35  36.32  36.95  37.12  36.74  36.30
     2  36.34  36.27 2498.88  36.46  37.51  37.54  36.37  37.23
     3  36.74  37.12  37.23 2499.38  37.00  37.86  36.69  37.02
     4  36.87  37.10  37.36  37.14 2499.63  37.26  37.25  37.47
     5  37.45  37.52  37.02  37.56  37.07 2514.71  38.05  37.26
     6  36.79  36.40  37.49  37.41  37.31  37.10 2504.76  37.38
     7  37.02  37.38  37.24  37.09  37.92  37.46  37.38 2503.38
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\\D     0      1      2      3      4      5      6      7
     0 2494.76 371.02 376.65 376.60 376.82 375.59 375.94
"""

# Modelled on capture 361: two RTX A6000 whose driver refuses peer access; the P2P-enabled run falls back to copies.
CANNOT = """[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
Device: 1, NVIDIA RTX A6000, pciBusID: 21, pciDeviceID: 0, pciDomainID:0
Device=0 CANNOT Access Peer Device=1
Device=1 CANNOT Access Peer Device=0
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1
     0 673.20  13.15
     1  12.99 673.20
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\\D     0      1
     0 673.49   2.60
     1   2.12 672.33
"""


def _paste(tmp_path: Path, text: str) -> str:
    path = tmp_path / "p2p.txt"
    path.write_text(text)
    return str(path)


def test_capture_361_can_access_but_slower_than_host_copies_is_an_issue() -> None:
    host = load_pasted([str(corpus_path("361"))])
    bw = fact(host, "p2p_bandwidth")
    assert bw.devices == (0, 1, 2) and len(bw.can_access) == 6
    assert (0, 1, 2.6, 13.15) in bw.slow() and len(bw.slow()) == 6
    r = run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "issue"
    assert "slower than copies through host memory" in r.message and "2.60 GB/s" in r.message
    assert "13.15 GB/s" in r.message


def test_nvlink_h100_faster_with_p2p_is_ok_over_the_gpus_measured(tmp_path: Path) -> None:
    host = load_pasted([_paste(tmp_path, H100_NVLINK)])
    assert len(fact(host, "p2p_bandwidth").compared()) == 6
    r = run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "ok" and "371.02 GB/s" in r.message
    assert r.coverage is not None and r.coverage.count == 7


def test_p2p_on_at_exactly_half_is_not_an_issue(tmp_path: Path) -> None:
    half = H100_NVLINK.replace("0 2474.76  37.19", "0 2474.76 742.04")
    r = run_checks(load_pasted([_paste(tmp_path, half)]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "ok"
    below = H100_NVLINK.replace("0 2474.76  37.19", "0 2474.76 742.05")
    r = run_checks(load_pasted([_paste(tmp_path, below)]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "issue" and "0->1" in r.message


def test_cannot_access_keeps_the_refusal_verdicts(tmp_path: Path) -> None:
    host = load_pasted([_paste(tmp_path, CANNOT)])
    assert fact(host, "p2p_bandwidth").slow() == ()
    assert fact(host, "peer_refusals").pairs == (frozenset((0, 1)),)
    r = run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "unknown" and "refuses peer access between CUDA device(s) 0-1" in r.message


def _matrices_only(text: str) -> str:
    """The paste from its first matrix heading on, as users paste it without the title and peer answers."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if "Matrix" in line)
    return "\n".join(lines[first:]) + "\n"


def test_matrices_pasted_alone_are_read_and_below_half_is_slow_p2p(tmp_path: Path) -> None:
    """Real: NVIDIA/nccl#814 (corpus 600, six RTX 4090s, the matrices alone, once refused) and capture 361
    (aikitoria/open-gpu-kernel-modules, three RTX A6000s) cut to its matrices: below half of host copies on every pair
    is P2P in use and slow (a refused pair copies through host memory at the same speed), an issue over the GPUs
    measured."""
    r = run_checks(load_pasted([str(corpus_path("600"))]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "issue" and "10.14 GB/s with P2P" in r.message
    assert r.coverage is not None and r.coverage.count == 6
    cut = _matrices_only(corpus_path("361").read_text().split("-----\n", 1)[1])
    host = load_pasted([_paste(tmp_path, cut)])
    assert not fact(host, "p2p_bandwidth").answered and len(fact(host, "p2p_bandwidth").slow()) == 6
    assert run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"].status == "issue"


def test_matrices_alone_never_prove_p2p_works(tmp_path: Path) -> None:
    """Real: NVIDIA/nccl#1264's H100 matrices without the peer answers: P2P faster than host copies is no ok, since the
    paste does not show that CUDA answered CAN for those pairs (modelled: the answers and title taken off)."""
    host = load_pasted([_paste(tmp_path, _matrices_only(H100_NVLINK))])
    assert fact(host, "p2p_bandwidth").compared() == () and fact(host, "p2p_bandwidth").slow() == ()
    assert run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"].status != "ok"


def test_capture_1221_p2p_writes_alone_at_pcie_line_rate_are_ok() -> None:
    """Real: ik_llama.cpp#1018 (corpus 1221, three GPUs on a P2P-patched driver): the P2P-enabled write matrix pasted
    on its own, under its `(P2P Writes)` heading, 25.8-26.3 GB/s between every pair: a working peer path, ok over the
    three GPUs of the matrix."""
    host = load_pasted([str(corpus_path("1221"))])
    bw = fact(host, "p2p_bandwidth")
    assert len(bw.enabled_alone()) == 6 and not bw.disabled
    r = run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "ok" and "25.83 GB/s or more" in r.message
    assert r.coverage is not None and r.coverage.count == 3


def test_p2p_writes_alone_below_line_rate_prove_nothing(tmp_path: Path) -> None:
    """Modelled on corpus 1221 with one pair at 2.60 GB/s (capture 361's redirected rate): no ok from the write
    matrix alone."""
    text = ("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1      2\n"
            "     0 835.56  25.92  25.85\n     1  26.28 902.14   2.60\n     2  25.83  25.87 901.10\n")
    host = load_pasted([_paste(tmp_path, text)])
    assert len(fact(host, "p2p_bandwidth").enabled_alone()) == 6
    assert run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"].status != "ok"


def test_capture_1217_refusals_only_across_architectures_are_not_an_issue(tmp_path: Path) -> None:
    """Real: corpus 1217 (RTX 4090, 5090, A6000 and 3090 on a P2P-patched driver): every CANNOT pair joins GPUs of two
    architectures, which CUDA never joins by peer access. Modelled: the same two RTX A6000 refusing each other (one
    architecture) keep the old verdict."""
    r = run_checks(load_pasted([str(corpus_path("1217"))]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "not-an-issue" and "Ada Lovelace, Ampere, Blackwell" in r.message
    same = run_checks(load_pasted([_paste(tmp_path, CANNOT)]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert "different architectures" not in same.message


def test_capture_1222_peer_answers_on_an_nvswitch_board_show_fabric_manager_up(tmp_path: Path) -> None:
    """Real: NVIDIA/nccl-tests#100 (corpus 1222, HGX A100 8-GPU): p2pBandwidthLatencyTest answered peer access on all
    eight A100-SXM, which CUDA refuses (802) on an NVSwitch board until Fabric Manager has set the fabric up. Modelled:
    its device list alone, without the answers, proves no run."""
    text = corpus_path("1222").read_text().split("-----\n", 1)[1]
    r = run_checks(load_pasted([str(corpus_path("1222"))]), ["DRV-FABRIC-MANAGER"])["DRV-FABRIC-MANAGER"]
    assert r.status == "ok" and "p2pBandwidthLatencyTest answered peer access" in r.message
    listed = "\n".join(line for line in text.splitlines() if "Access Peer" not in line) + "\n"
    host = load_pasted([_paste(tmp_path, listed)])
    assert run_checks(host, ["DRV-FABRIC-MANAGER"])["DRV-FABRIC-MANAGER"].status != "ok"


def test_geforce_granted_peer_access_is_no_stock_driver(tmp_path: Path) -> None:
    # Real: https://github.com/aikitoria/open-gpu-kernel-modules/issues/6 (corpus 1216): eight RTX 5090 under a
    # P2P-enabled build answer CAN for every pair, so "no PCIe P2P from the stock driver" is not theirs.
    from corpus import capture_checks, paste_checks

    assert capture_checks("1216", "IC-TOPO-READ")["IC-TOPO-READ"].status == "unknown"
    # Modelled: the same cards refused by the stock driver keep the family's key negative.
    refused = "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n" + "".join(
        f"Device: {i}, NVIDIA GeForce RTX 5090, pciBusID: {16 + i}, pciDeviceID: 0, pciDomainID:0\n" for i in range(2)) \
        + "Device=0 CANNOT Access Peer Device=1\nDevice=1 CANNOT Access Peer Device=0\n"
    assert paste_checks(tmp_path, refused, "IC-TOPO-READ")["IC-TOPO-READ"].status == "not-an-issue"


def test_capture_1322_numbered_latency_matrices_falling_with_p2p_are_ok(tmp_path: Path) -> None:
    """Real: NVIDIA/cuda-samples#230 (corpus 1322): the latency part alone, each line behind the user's line number;
    with P2P on the GPU write latency falls from 11-19 us to 1.8-2.3 us on every pair of four GPUs, so the writes go
    straight to the peer (host-memory copies would not get faster). The CPU blocks are not read as GPU figures."""
    host = load_pasted([str(corpus_path("1322"))])
    bw = fact(host, "p2p_bandwidth")
    assert (0, 1, 2.31, 14.95) in bw.latency_compared() and len(bw.latency_compared()) == 12
    assert (0, 1, 1.91) not in bw.latency_enabled  # row 0 of the P2P-enabled CPU block
    r = run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "ok" and "half or less" in r.message
    assert r.coverage is not None and r.coverage.count == 4
    # Modelled: one pair whose latency does not halve with P2P on (a pair copying through host memory): no ok.
    text = corpus_path("1322").read_text().split("-----\n", 1)[1]
    slow = text.replace(" 15      0   2.59   2.31", " 15      0   2.59  12.31")
    assert run_checks(load_pasted([_paste(tmp_path, slow)]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"].status != "ok"


def test_numbering_must_run_on_to_be_read(tmp_path: Path) -> None:
    """Modelled on corpus 1322: a numbered run is read only while its numbers go up one by one; its lines are recorded
    without the numbers (a row `  3      0   2.61 ...` is GPU 0's row, not GPU 3's)."""
    text = ("  1 P2P=Disabled Latency Matrix (us)\n  2    GPU     0      1\n  3      0   2.61  14.95\n"
            "  4      1  11.09   2.10\n  5 P2P=Enabled Latency (P2P Writes) Matrix (us)\n  6    GPU     0      1\n"
            "  7      0   2.59   2.31\n  9      1   2.26   2.10\n")
    bw = fact(load_pasted([_paste(tmp_path, text)]), "p2p_bandwidth")
    assert bw.latency_disabled == ((0, 1, 14.95), (1, 0, 11.09))
    assert bw.latency_enabled == ((0, 1, 2.31),) and bw.latency_compared() == ()


def test_capture_1321_peer_answers_without_matrices_are_unknown_over_its_gpus() -> None:
    """Real: ginkgo-project/ginkgo#164 (corpus 1321, four V100-SXM2): cut before its bandwidth matrices, the run shows
    no copy; the unknown is over the four GPUs its device lines list."""
    r = run_checks(load_pasted([str(corpus_path("1321"))]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "unknown" and r.coverage is not None and r.coverage.count == 4


def test_capture_2432_title_as_a_list_item_is_read(tmp_path: Path) -> None:
    """Real: openucx/ucx#10743 (corpus 2432, two A100-SXM4-40GB): the test's title is an item of the user's Markdown
    list (`    - [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]`); its device lines and peer answers are read, so CUDA
    ran on both GPUs: Fabric Manager's fabric is up or not needed, and CUDA lists whole GPUs, not MIG slices."""
    host = load_pasted([str(corpus_path("2432"))])
    assert fact(host, "p2p_bandwidth").devices == (0, 1) and len(fact(host, "p2p_bandwidth").can_access) == 2
    found = run_checks(host, ["DRV-FABRIC-MANAGER", "MEM-MIG"])
    assert found["DRV-FABRIC-MANAGER"].status == "ok" and found["MEM-MIG"].status == "ok"
    # Real, another thread: corpus 1321 (four V100-SXM2), its title on a line of its own, still read.
    assert fact(load_pasted([str(corpus_path("1321"))]), "p2p_bandwidth").devices == (0, 1, 2, 3)
    # Modelled: a list item that names the test in prose does not start its output.
    text = corpus_path("2432").read_text().split("-----\n", 1)[1]
    prose = text.replace("    - [P2P (Peer", "    - we ran [P2P (Peer")
    found = run_checks(load_pasted([_paste(tmp_path, prose)]), ["DRV-FABRIC-MANAGER", "MEM-MIG"])
    assert found["DRV-FABRIC-MANAGER"].status != "ok" and found["MEM-MIG"].status != "ok"
