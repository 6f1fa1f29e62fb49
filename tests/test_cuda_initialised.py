"""What torch initialising CUDA proves where a report shows it ('Is CUDA available: True', check_env's 'CUDA available:
True'): the NVSwitch fabric up (DRV-FABRIC-MANAGER, drv.cuda_ran_on_nvswitch) and a driver that runs torch's CUDA
runtime where the report could not read the driver (DRV-CUDA-COMPAT, drv._cuda_ran)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, capture_checks, paste_checks

FM = "DRV-FABRIC-MANAGER"
COMPAT = "DRV-CUDA-COMPAT"


def _body(prefix: str) -> str:
    """A corpus file's capture, without its header (for a modelled variant of a real paste)."""
    text = next(CAPTURES_DIR.glob(prefix + "-*.txt")).read_text()
    return text.split("everything below this line is the capture, verbatim -----\n", 1)[1]


# --- DRV-FABRIC-MANAGER: CUDA initialised on an NVSwitch board --------------------------------------------------


@pytest.mark.parametrize("prefix", ["1025", "1031", "1033", "1047", "1049", "980"])
def test_cuda_initialised_on_eight_nvswitch_gpus_is_fabric_manager_ok(prefix: str) -> None:
    r = capture_checks(prefix, FM)[FM]
    assert r.status == "ok", r.message
    assert "error 802" in r.message and "Fabric Manager has set up the fabric" in r.message
    assert r.coverage is not None and r.coverage.count == 8 and r.coverage.total == 8  # `8 GPUs shown`


# Where the report ran does not change it (h55d): CUDA refuses an NVSwitch board's GPUs with 802 before Fabric Manager
# has set up the fabric in a container as on the host (corpus 976, 1003, 1004), so check_env in an SGLang container
# (1083), on one node of a multi-node job (1151), and collect_env or check_env on a host (1180, 1203) all show it up.
@pytest.mark.parametrize("prefix", ["1083", "1151", "1180", "1203"])
def test_cuda_initialised_in_a_container_or_on_one_node_of_a_job_is_ok_too(prefix: str) -> None:
    r = capture_checks(prefix, FM)[FM]
    assert r.status == "ok" and "error 802" in r.message, r.message


def test_four_blackwell_gpus_are_an_nvswitch_boards_too() -> None:
    # Corpus 955: four B200 visible; no B200 board joins its GPUs without NVSwitch.
    r = capture_checks("955", FM)[FM]
    assert r.status == "ok" and "Blackwell" in r.message and r.coverage is not None and r.coverage.count == 4


@pytest.mark.parametrize("prefix", [
    "863",  # four GB200: a compute tray, whose Fabric Manager runs on the switch trays
])
def test_cuda_initialised_on_a_board_that_may_lack_nvswitch_says_nothing(prefix: str) -> None:
    r = capture_checks(prefix, FM)[FM]
    assert r.status != "ok" and "error 802" not in r.message


@pytest.mark.parametrize("prefix", [
    "603",  # four A100-SXM4-40GB: a 4-GPU HGX A100 joins them by direct NVLinks, no NVSwitch
    "727",  # four H20: as many as a 4-GPU board holds
])
def test_cuda_initialised_on_four_sxm_gpus_is_ok_either_way(prefix: str) -> None:
    # A 4-GPU board needs no Fabric Manager; an NVSwitch board's fabric was up (blind 1063, 1082).
    r = capture_checks(prefix, FM)[FM]
    assert r.status == "ok" and "needs no Fabric Manager" in r.message


def test_cuda_not_initialised_or_under_wsl_says_nothing(tmp_path: Path) -> None:
    # Modelled on corpus 1025: the same report with CUDA unavailable, then under a WSL 2 kernel.
    text = _body("1025")
    assert paste_checks(tmp_path, text, FM)[FM].status == "ok"
    off = text.replace("Is CUDA available: True", "Is CUDA available: False")
    assert paste_checks(tmp_path, off, FM)[FM].status != "ok"
    wsl = text.replace("Linux-5.15.0-1037-nvidia-x86_64", "Linux-5.15.153.1-microsoft-standard-WSL2-x86_64")
    assert paste_checks(tmp_path, wsl, FM)[FM].status != "ok"


# Modelled: an SGLang check_env whose GPU lines are not in the paste, with the NVSwitch matrix of an 8-GPU HGX H100
# (NV18 to each of seven peers: 126 links, more than any GPU has) and one of a 4-GPU HGX H100 (NV6 to three: 18).
_CHECK_ENV = """\
Python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]
CUDA available: True
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 12.4, V12.4.131
CUDA Driver Version: 550.54.15
PyTorch: 2.5.1+cu124
sglang: 0.4.1
NVIDIA Topology:
{matrix}
ulimit soft: 1048576
"""


def _matrix(n: int, width: str) -> str:
    head = "\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\tCPU Affinity\tNUMA Affinity"
    rows = [f"GPU{i}\t" + "\t".join(" X " if i == j else width for j in range(n)) + "\t0-55\t0"
            for i in range(n)]
    return "\n".join([head, *rows])


def test_a_matrix_bonding_more_links_than_a_gpu_has_shows_the_switch(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, _CHECK_ENV.format(matrix=_matrix(8, "NV18")), FM)[FM]
    assert r.status == "ok" and "NVSwitches" in r.message
    direct = paste_checks(tmp_path, _CHECK_ENV.format(matrix=_matrix(4, "NV6")), FM)[FM]
    assert direct.status != "ok"


# --- DRV-CUDA-COMPAT: the driver the report could not read ran torch's CUDA ---------------------------------------


def test_cuda_initialised_where_the_report_could_not_read_the_driver_is_ok() -> None:
    # Corpus 1024: 'Nvidia driver version: Could not collect' (NVML failed), torch 2.4.0+cu121, CUDA available.
    r = capture_checks("1024", COMPAT)[COMPAT]
    assert r.status == "ok" and "CUDA 12.1" in r.message and "Could not collect" in r.message


def test_cuda_unavailable_stays_unknown_and_a_driver_line_cut_or_never_printed_reads_torch(tmp_path: Path) -> None:
    off = _body("1024").replace("Is CUDA available: True", "Is CUDA available: False")
    assert paste_checks(tmp_path, off, COMPAT)[COMPAT].status == "unknown"  # modelled on 1024
    # Corpus 222 is cut before its driver line; 980 is lmdeploy's check_env, which prints none. torch initialised CUDA
    # in both, which a driver too old for its runtime refuses (h79a, facts/cuda_ran.py).
    for prefix in ("222", "980"):
        r = capture_checks(prefix, COMPAT)[COMPAT]
        assert r.status == "ok" and "torch initialised CUDA" in r.message, prefix
