"""NVIDIA's nvbandwidth output: read into the bandwidth-test document, judged by IC-P2P-FUNCTIONAL,
PCIE-LINK-DOWNTRAIN, DRV-CUDA-COMPAT and DRV-FABRIC-MANAGER."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, corpus_path, fact, paste_checks
from stackaudit.importers.pasted import load_pasted

# https://github.com/NVIDIA/nvbandwidth/issues/15 (issue body, 8x GeForce RTX 4090, nvbandwidth v0.2), verbatim from its
# start to the second test's SUM line (the `>> ./nvbandwidth` prompt line left out).
RTX4090_V02 = """nvbandwidth Version: v0.2
Built from Git version: 6cefdda

NOTE: This tool reports current measured bandwidth on your system.
Additional system-specific tuning may be required to achieve maximal peak bandwidth.

CUDA Runtime Version: 12030
CUDA Driver Version: 12030
Driver Version: 545.29.06

Device 0: NVIDIA GeForce RTX 4090
Device 1: NVIDIA GeForce RTX 4090
Device 2: NVIDIA GeForce RTX 4090
Device 3: NVIDIA GeForce RTX 4090
Device 4: NVIDIA GeForce RTX 4090
Device 5: NVIDIA GeForce RTX 4090
Device 6: NVIDIA GeForce RTX 4090
Device 7: NVIDIA GeForce RTX 4090

Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
          0         1         2         3         4         5         6         7
0     25.50     24.26     23.90     26.30     26.28     26.38     26.09     26.31

SUM host_to_device_memcpy_ce 205.04

Running device_to_host_memcpy_ce.
memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)
          0         1         2         3         4         5         6         7
0     26.77     26.47     26.25     26.63     27.10     27.11     27.11     26.83

SUM device_to_host_memcpy_ce 214.28
"""

# Modelled on capture 1039's header (v0.8): two H100 80GB HBM3 (PCIe Gen5 x16 parts) whose host copies reach only a
# Gen4 x16 link's figure: that may be a Gen4 slot, a narrowed link or a slow copy; the figure does not say which.
H100_GEN4_FIGURES = """nvbandwidth Version: v0.8
Built from Git version: v0.8

CUDA Runtime Version: 13000
CUDA Driver Version: 13000
Driver Version: 580.126.09

Device 0: NVIDIA H100 80GB HBM3 (00000000:1b:00)
Device 1: NVIDIA H100 80GB HBM3 (00000000:29:00)

Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
           0         1
 0     26.20     26.31

SUM host_to_device_memcpy_ce 52.51
"""

# Modelled: the version header and device list of a v0.8 run that stopped before any test.
HEADER_ONLY = """nvbandwidth Version: v0.8
Built from Git version: v0.8

CUDA Runtime Version: 13000
CUDA Driver Version: 13000
Driver Version: 580.95.05

Device 0: NVIDIA RTX A6000 (00000000:01:00)
Device 1: NVIDIA RTX A6000 (00000000:21:00)
"""

# Modelled: a pattern check failing in a host-to-device test, which moves no data between GPUs.
HOST_PATTERN = """nvbandwidth Version: v0.7
Built from Git version: v0.7

CUDA Runtime Version: 12040
CUDA Driver Version: 12040
Driver Version: 550.127.08

Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)
Device 1: NVIDIA A100-SXM4-80GB (00000000:35:00)

Running host_to_device_memcpy_ce.
 Invalid value when checking the pattern at 0x70a640000000
 Current offset : 11136
"""

# Modelled on capture 1036 with the matrix cut after its third row: pairs 3-4, 3-5 and 4-5 have no figure.
CUT_PEER = """nvbandwidth Version: v0.8
Built from Git version: v0.8

CUDA Runtime Version: 13000
CUDA Driver Version: 13000
Driver Version: 580.95.05

Running device_to_device_memcpy_read_ce.
memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)
           0         1         2         3         4         5
 0       N/A     26.34     26.35     21.95     22.64     21.80
 1     26.34       N/A     26.34     21.86     22.62     22.63
 2     26.34     26.35       N/A     22.36     21.87     22.17
"""

# Modelled on capture 1037 as v0.8 prints it: `Waived: ` without the test's name (output.cpp addTestcase).
WAIVED_V08 = """nvbandwidth Version: v0.8
Built from Git version: v0.8

CUDA Runtime Version: 13000
CUDA Driver Version: 13000
Driver Version: 580.95.05

Device 0: NVIDIA GeForce RTX 4090 (00000000:01:00)
Device 1: NVIDIA GeForce RTX 4090 (00000000:41:00)

Waived:
"""

# Modelled: a v0.2 binary built with CUDA 13.0 on a driver for CUDA 12.4: a newer major needs a newer driver.
NEWER_MAJOR = """nvbandwidth Version: v0.2
Built from Git version: 6cefdda

CUDA Runtime Version: 13000
CUDA Driver Version: 12040
Driver Version: 550.127.08

Device 0: NVIDIA A100-SXM4-80GB
"""


def _paste(tmp_path: Path, text: str, *checks: str) -> dict:
    return paste_checks(tmp_path, text, *checks)


def test_1035_pattern_check_of_a_peer_read_is_an_issue_and_its_copies_show_the_runtime_ran() -> None:
    host = load_pasted([str(corpus_path("1035"))])
    gpus = fact(host, "gpus")
    assert len(gpus.gpus) == 8 and gpus.gpus[0].bdf == "0000:34:00.0" and gpus.gpus[0].model == "NVIDIA A100-SXM4-80GB"
    r = capture_checks("1035", "IC-P2P-FUNCTIONAL", "DRV-CUDA-COMPAT", "MEM-ECC-MODE")
    p2p = r["IC-P2P-FUNCTIONAL"]
    assert p2p.status == "issue" and "device_to_device_memcpy_read_ce" in p2p.message
    assert "Invalid value when checking the pattern at 0x70a640000000" in p2p.message
    assert r["DRV-CUDA-COMPAT"].status == "ok" and "v0.7" in r["DRV-CUDA-COMPAT"].message
    assert r["MEM-ECC-MODE"].status == "unknown"


def test_1036_peer_matrix_over_every_pair_is_ok_over_its_gpus() -> None:
    r = capture_checks("1036", "IC-P2P-FUNCTIONAL", "DRV-CUDA-COMPAT")
    p2p = r["IC-P2P-FUNCTIONAL"]
    assert p2p.status == "ok" and "21.80 to 26.35 GB/s" in p2p.message
    assert p2p.coverage is not None and p2p.coverage.count == 6
    assert r["DRV-CUDA-COMPAT"].status == "ok"


def test_1037_waived_peer_test_on_geforce_is_not_an_issue_and_a_newer_minor_runtime_runs() -> None:
    r = capture_checks("1037", "IC-P2P-FUNCTIONAL", "DRV-CUDA-COMPAT", "DRV-FABRIC-MANAGER")
    assert r["IC-P2P-FUNCTIONAL"].status == "not-an-issue"
    assert "Waiving device_to_device_memcpy_write_ce." in r["IC-P2P-FUNCTIONAL"].message
    compat = r["DRV-CUDA-COMPAT"]
    assert compat.status == "not-an-issue" and "CUDA 12.1" in compat.message and "minor-version" in compat.message
    assert r["DRV-FABRIC-MANAGER"].status == "not-applicable"


def test_1038_aborted_peer_read_is_an_issue_on_pcie_cards_without_fabric_manager() -> None:
    r = capture_checks("1038", "IC-P2P-FUNCTIONAL", "DRV-CUDA-COMPAT", "DRV-FABRIC-MANAGER")
    assert r["IC-P2P-FUNCTIONAL"].status == "issue" and "one_to_all_read_sm" in r["IC-P2P-FUNCTIONAL"].message
    assert r["DRV-CUDA-COMPAT"].status == "ok"
    assert r["DRV-FABRIC-MANAGER"].status == "not-applicable"


def test_1039_unsupported_ptx_is_a_cuda_compat_issue_and_no_peer_test_ran() -> None:
    r = capture_checks("1039", "IC-P2P-FUNCTIONAL", "DRV-CUDA-COMPAT")
    compat = r["DRV-CUDA-COMPAT"]
    assert compat.status == "issue" and "cudaErrorUnsupportedPtxVersion" in compat.message
    assert r["IC-P2P-FUNCTIONAL"].status == "unknown"


def test_1044_device_to_host_above_any_gen4_link_is_ok_over_eight_gpus() -> None:
    r = capture_checks("1044", "PCIE-LINK-DOWNTRAIN", "IC-P2P-FUNCTIONAL", "DRV-CUDA-COMPAT")
    link = r["PCIE-LINK-DOWNTRAIN"]
    assert link.status == "ok" and "52.77 GB/s" in link.message and "31.5 GB/s" in link.message
    assert link.coverage is not None and link.coverage.count == 8
    assert r["IC-P2P-FUNCTIONAL"].status == "unknown"
    # nvbandwidth's SM copies ran on all eight GPUs: its runtime runs on the driver (facts/cuda_ran.py; the corpus's
    # older 'unknown' is a gap entry for the lead).
    assert r["DRV-CUDA-COMPAT"].status == "ok" and "nvbandwidth ran" in r["DRV-CUDA-COMPAT"].message


def test_rtx4090_host_copies_above_a_gen3_or_x8_link_are_ok_for_a_gen4_card(tmp_path: Path) -> None:
    r = _paste(tmp_path, RTX4090_V02, "PCIE-LINK-DOWNTRAIN", "DRV-CUDA-COMPAT", "DRV-FABRIC-MANAGER")
    link = r["PCIE-LINK-DOWNTRAIN"]
    assert link.status == "ok" and "Gen4 x16" in link.message and "15.8 GB/s" in link.message
    assert link.coverage is not None and link.coverage.count == 8
    assert r["DRV-CUDA-COMPAT"].status == "ok"
    assert r["DRV-FABRIC-MANAGER"].status == "not-applicable"


def test_a_gen5_card_at_a_gen4_links_figure_proves_nothing(tmp_path: Path) -> None:
    r = _paste(tmp_path, H100_GEN4_FIGURES, "PCIE-LINK-DOWNTRAIN")
    assert r["PCIE-LINK-DOWNTRAIN"].status == "unknown"
    assert "26.31 GB/s" in r["PCIE-LINK-DOWNTRAIN"].message


def test_a_header_without_a_test_does_not_show_the_runtime(tmp_path: Path) -> None:
    r = _paste(tmp_path, HEADER_ONLY, "DRV-CUDA-COMPAT", "IC-P2P-FUNCTIONAL")
    assert r["DRV-CUDA-COMPAT"].status == "unknown"
    assert r["IC-P2P-FUNCTIONAL"].status == "unknown"


def test_a_host_copy_failing_its_check_is_no_peer_failure(tmp_path: Path) -> None:
    r = _paste(tmp_path, HOST_PATTERN, "IC-P2P-FUNCTIONAL")
    assert r["IC-P2P-FUNCTIONAL"].status == "unknown"


def test_a_cut_peer_matrix_is_not_every_pair(tmp_path: Path) -> None:
    r = _paste(tmp_path, CUT_PEER, "IC-P2P-FUNCTIONAL")
    assert r["IC-P2P-FUNCTIONAL"].status == "unknown"


def test_v08_waived_without_a_name_is_a_peer_refusal_in_a_one_host_build(tmp_path: Path) -> None:
    r = _paste(tmp_path, WAIVED_V08, "IC-P2P-FUNCTIONAL")
    assert r["IC-P2P-FUNCTIONAL"].status == "not-an-issue" and "Waived:" in r["IC-P2P-FUNCTIONAL"].message
    multinode = WAIVED_V08.replace("Device 0: NVIDIA GeForce RTX 4090 (00000000:01:00)",
                                   "Process 0 (node1): device 0: NVIDIA GeForce RTX 4090 (00000000:01:00)")
    r = _paste(tmp_path, multinode, "IC-P2P-FUNCTIONAL")
    assert r["IC-P2P-FUNCTIONAL"].status != "not-an-issue"


def test_a_runtime_of_a_newer_major_is_an_issue(tmp_path: Path) -> None:
    r = _paste(tmp_path, NEWER_MAJOR, "DRV-CUDA-COMPAT")
    assert r["DRV-CUDA-COMPAT"].status == "issue" and "CUDA 13.x" in r["DRV-CUDA-COMPAT"].message


# Modelled on capture 1042's lines: Azure's health check on eight GPUs, two pairs below its threshold; the other
# pairs' figures (its dbg lines) are not shown, so not every pair of GPUs 0-3 is measured.
NHC_TWO_PAIRS = """`ERROR:  nhc:  Health check failed:  check_gpu_bw: P2P test on GPU 1 to GPU 0 failed. Bandwidth 256.63 is less than 335. FaultCode: NHC2020`

`ERROR:  nhc:  Health check failed:  check_gpu_bw: P2P test on GPU 3 to GPU 2 failed. Bandwidth 250.10 is less than 335. FaultCode: NHC2020`
"""


def test_1042_azure_health_checks_p2p_figures_both_ways_are_ok_over_the_pair() -> None:
    host = load_pasted([str(corpus_path("1042"))])
    run = fact(host, "p2p_bandwidth")
    assert run.peer_pairs() and {(a, b) for a, b, _ in run.peer_pairs()[0][1]} == {(0, 1), (1, 0)}
    r = capture_checks("1042", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "ok" and "256.63 GB/s" in r.message
    assert r.coverage is not None and r.coverage.count == 2


def test_azure_health_check_figures_of_some_pairs_are_not_every_pair(tmp_path: Path) -> None:
    r = _paste(tmp_path, NHC_TWO_PAIRS, "IC-P2P-FUNCTIONAL")
    assert r["IC-P2P-FUNCTIONAL"].status == "unknown"
