"""DRV-FABRIC-MANAGER from NCCL's NVLS set-up (ServingLog.nvls_up): NCCL sets up NVLS only where the CUDA driver
reports NVSwitch multicast on a live context, which an NVSwitch GPU gives only on a fabric Fabric Manager has
configured (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log

CHECK = "DRV-FABRIC-MANAGER"

# https://github.com/NVIDIA/nccl/issues/1453 (issue body): an H100 cluster's NCCL INFO log, mpirun's rank tag first.
NCCL_1453 = """\
[0] h100clust-worker-1:227602:227667 [0] NCCL INFO Setting affinity for GPU 0 to ffff,ffffffff,ffffffff
[0] h100clust-worker-1:227602:227667 [0] NCCL INFO NVLS multicast support is available on dev 0
[0] h100clust-worker-1:227602:227667 [0] NCCL INFO comm 0x5639e9f0e8c0 rank 0 nRanks 24 nNodes 3 localRanks 8 localRank 0 MNNVL 0
"""

# https://github.com/NVIDIA/nccl/issues/1538 (comment by nkflash): one worker pod's ranks.
NCCL_1538 = """\
job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0:5668:5722 [5] NCCL INFO NVLS multicast support is available on dev 5
job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0:5665:5733 [2] NCCL INFO NVLS multicast support is available on dev 2
"""

# https://github.com/NVIDIA/nccl/issues/892 (issue body): H800 in a container, NVLS asked for but not available.
NCCL_892 = """\
036260b61d3a:33347:33366 [6] NCCL INFO NCCL_ALGO set by environment to Tree,Ring,,CollnetDirect,CollnetChain,NVLS
036260b61d3a:33347:33366 [6] NCCL INFO threadThresholds 8/8/64 | 64/8/64 | 512 | 512
036260b61d3a:33347:33366 [6] NCCL INFO 16 coll channels, 0 nvls channels, 16 p2p channels, 16 p2p channels per peer
"""


def test_nvls_channels_in_a_trtllm_log_are_ok() -> None:
    """Real (TensorRT-LLM#953, capture 493): `24 coll channels, 16 nvls channels` on four H100."""
    r = capture_checks("493", CHECK)[CHECK]
    assert r.status == "ok" and any("16 nvls channels" in line for line in r.evidence)


def test_nvls_multicast_available_is_ok(tmp_path: Path) -> None:
    """Real (nccl#1453, mpirun rank tags): "NVLS multicast support is available on dev 0"."""
    assert parse_serving_log(NCCL_1453).nvls_up()
    assert paste_checks(tmp_path, NCCL_1453, CHECK)[CHECK].status == "ok"


def test_nvls_multicast_available_in_a_pod_is_ok(tmp_path: Path) -> None:
    """Real (nccl#1538): a Kubernetes worker's ranks."""
    assert paste_checks(tmp_path, NCCL_1538, CHECK)[CHECK].status == "ok"


def test_zero_nvls_channels_say_nothing(tmp_path: Path) -> None:
    """Real (nccl#892): `0 nvls channels` on H800: no multicast, which does not say why (driver, container)."""
    assert parse_serving_log(NCCL_892).nvls_up() == ()
    assert paste_checks(tmp_path, NCCL_892, CHECK)[CHECK].status == "unknown"


def test_nvls_forced_by_environment_says_nothing() -> None:
    """Modelled on nccl#1769's `NCCL_NVLS_ENABLE set by environment to 1.`: NCCL then skips the driver's answer."""
    log = parse_serving_log("gb200a-04:2101745:2101800 [3] NCCL INFO NCCL_NVLS_ENABLE set by environment to 1.\n"
                            + NCCL_1538)
    assert log.nvls_up() == ()


def test_an_nvls_bind_warning_says_nothing() -> None:
    """Modelled on nccl#2077's message: the multicast bind failed, which Fabric Manager trouble causes."""
    log = parse_serving_log(NCCL_1538 + "job-0:5668:5722 [5] transport/nvls.cc:150 NCCL WARN Failed to bind NVLink "
                            "SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'\n")
    assert log.nvls_up() == ()


# CUDA refusing NCCL's NVLS buffers ('invalid argument' in transport/nvls.cc, ServingLog.nvls_refused): NCCL's
# maintainers trace it to a Fabric Manager restart without a GPU reset, an issue; from NCCL 2.26 (its banner, or the WARN
# at nvls.cc:254, that series' cuMulticastBindMem line) it stays unknown: 2.26.2 failed alike on a R535 driver.
# Count (h63d) of corpus files with the WARN: 1359, 696, 705, 822 want issue; 378, 1360 (both nvls.cc:254) unknown.

# https://github.com/NVIDIA/nccl/issues/976 (issue body): NCCL 2.18.5 prints no error number.
NCCL_976 = """\
NCCL version 2.18.5+cuda12.2
transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'
NCCL INFO transport/nvls.cc:324 -> 1
NCCL INFO init.cc:1093 -> 1
"""

# https://github.com/NVIDIA/nccl/issues/1338 (issue body): eight H800 with Fabric Manager 550.54.15.
NCCL_1338 = """\
node2:242431:242479 [5] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'
node2:242431:242475 [1] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'
node2:242431:242475 [1] NCCL INFO transport/nvls.cc:330 -> 1
node2:242431:242475 [1] NCCL INFO init.cc:1277 -> 1
"""


@pytest.mark.parametrize("capture", ["696", "705", "822", "1359"])
def test_nvls_refusal_captures_are_the_fabric_manager_issue(capture: str) -> None:
    """Real: nccl#1488 (696), nccl#1562 (705), nccl#1338 (822), nccl#976 (1359): NCCL 2.18 to 2.23 at their bind line."""
    r = capture_checks(capture, CHECK)[CHECK]
    assert r.status == "issue", r.message
    assert "NVLS" in r.message and "Fabric Manager restart without a GPU reset" in r.message


@pytest.mark.parametrize("capture", ["378", "1360"])
def test_nvls_refusal_from_nccl_2_26_stays_unknown_naming_both_causes(capture: str) -> None:
    """Real: pytorch#150852 (378, NCCL 2.26.2 on R535) and nccl#1705 (1360): the WARN at nvls.cc:254, no banner."""
    r = capture_checks(capture, CHECK)[CHECK]
    assert r.status == "unknown"
    assert "Fabric Manager restart without a GPU reset" in r.message and "2.26 series" in r.message
    assert "NCCL_NVLS_ENABLE=0" in r.hint


def test_the_nccl_banner_outranks_the_line_number() -> None:
    """Modelled on nccl#1338's line: a 2.26 banner names the series whatever the line; another banner clears line 254."""
    warn = "node2:242431:242479 [5] transport/nvls.cc:{} NCCL WARN Cuda failure 1 'invalid argument'\n"
    assert parse_serving_log("NCCL version 2.26.2+cuda12.8\n" + warn.format(158)).nvls_refused_by_nccl_2_26()
    assert not parse_serving_log("NCCL version 2.23.4+cuda12.6\n" + warn.format(254)).nvls_refused_by_nccl_2_26()
    assert parse_serving_log(warn.format(254)).nvls_refused_by_nccl_2_26()
    assert not parse_serving_log(warn.format(244)).nvls_refused_by_nccl_2_26()


@pytest.mark.parametrize("text", [NCCL_976, NCCL_1338], ids=["nccl-976-no-number", "nccl-1338"])
def test_nvls_refusal_lines_are_read(tmp_path: Path, text: str) -> None:
    """Real (nccl#976, nccl#1338): both forms of the warning, with and without CUDA's error number."""
    refused = parse_serving_log(text).nvls_refused()
    assert refused and all("'invalid argument'" in line for line in refused)
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue" and refused[0] in r.message


def test_an_nvls_out_of_memory_is_no_refusal() -> None:
    """Modelled on nccl#2077's message: a bind failing for memory is no refusal of the multicast object."""
    log = parse_serving_log("job-0:5668:5722 [5] transport/nvls.cc:150 NCCL WARN Failed to bind NVLink SHARP (NVLS) "
                            "Multicast memory of size 2097152 : CUDA error 2 'out of memory'\n")
    assert log.nvls_refused() == ()


def test_an_invalid_argument_elsewhere_is_no_refusal() -> None:
    """Modelled: the same CUDA error in another NCCL file (a P2P transport) says nothing of NVLS."""
    log = parse_serving_log("node2:242431:242479 [5] transport/p2p.cc:275 NCCL WARN Cuda failure 1 'invalid argument'\n")
    assert log.nvls_refused() == ()


# NCCL's NVLS lines past its multicast probe (ServingLog.nvls_up, _NVLS_UP): a job over several nodes prints each NVLS
# head's ranks (graph/connect.cc connectNvls `NVLS Head %2d:`), which it finds only on a comm with nvlsSupport; a comm
# that set up its NVLS buffers prints `NVLS comm %p headRank %d nHeads %d` (transport/nvls.cc).
# Real: corpus 788 (modelscope/ms-swift#3934), two nodes of eight GPUs.
NVLS_HEADS_788 = """\
g183:161260:166021 [3] NCCL INFO comm 0x7f5d9a6263c0 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0
g183:161260:166021 [3] NCCL INFO NVLS Head  0:  0  8
g183:161260:166021 [3] NCCL INFO NVLS Head  1:  1  9
"""
# Real: corpus 971 (an NVLS comm line of four H800).
NVLS_COMM_971 = ("tj5-sc-ai-h800r-dev01:531:1762 [0] NCCL INFO NVLS comm 0x7f5d10e6e7d0 headRank 0 nHeads 4 buffSize "
                 "4194304 memSize 2097152 nvlsPerRankSize 201326592 nvlsTotalSize 805306368\n")


def test_nvls_heads_of_a_multi_node_job_are_ok(tmp_path: Path) -> None:
    assert parse_serving_log(NVLS_HEADS_788).nvls_up()
    assert paste_checks(tmp_path, NVLS_HEADS_788, CHECK)[CHECK].status == "ok"
    assert capture_checks("788", CHECK)[CHECK].status == "ok"


def test_an_nvls_comm_line_is_nvls_set_up() -> None:
    assert parse_serving_log(NVLS_COMM_971).nvls_up()


def test_nvls_head_lines_with_an_nvls_warning_say_nothing() -> None:
    # Modelled: the same heads where a rank then warns that the multicast bind failed.
    log = parse_serving_log(NVLS_HEADS_788 + "g183:161260:166021 [3] transport/nvls.cc:150 NCCL WARN Failed to bind "
                            "NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'\n")
    assert log.nvls_up() == ()
