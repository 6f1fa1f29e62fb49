"""The CUDA samples' deviceQuery (importers/p2p_bandwidth.py `device_query`): its devices feed the GPU inventory as a
CUDA device list (facts/gpus.py DEVICE_QUERY_TITLE), its device blocks show its runtime at work on the driver
(facts/cuda_ran.py), its peer-access lines feed the peer refusals, and cudaGetDeviceCount's failure reaches the log
symptoms (facts/symptoms.py)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.cuda_ran import cuda_ran_in_device_query
from stackaudit.facts.gpus import DEVICE_QUERY_TITLE, parse_p2p_test_gpus
from stackaudit.facts.symptoms import _from_text
from stackaudit.importers import import_all, recognition

import_all()

COMPAT, MIG, P2P = "DRV-CUDA-COMPAT", "MEM-MIG", "IC-P2P-FUNCTIONAL"

# Real (torch/cutorch#273, three GTX TITAN X): deviceQuery's banner and first device, cut by us after its PCI line;
# the second device and the peer-access lines follow deviceQuery.cpp's format for the same run.
THREE_TITAN_X = """./deviceQuery Starting...

 CUDA Device Query (Runtime API) version (CUDART static linking)

Detected 3 CUDA Capable device(s)

Device 0: "GeForce GTX TITAN X"
  CUDA Driver Version / Runtime Version          7.5 / 7.0
  CUDA Capability Major/Minor version number:    5.2
  Total amount of global memory:                 12288 MBytes (12884705280 bytes)
  (24) Multiprocessors, (128) CUDA Cores/MP:     3072 CUDA Cores
  Maximum Texture Dimension Size (x,y,z)         1D=(65536), 2D=(65536, 65536), 3D=(4096, 4096, 4096)
  Device PCI Domain ID / Bus ID / location ID:   0 / 5 / 0
  Compute Mode:
     < Default (multiple host threads can use ::cudaSetDevice() with device simultaneously) >

Device 1: "GeForce GTX TITAN X"
  CUDA Driver Version / Runtime Version          7.5 / 7.0
  CUDA Capability Major/Minor version number:    5.2
  Device PCI Domain ID / Bus ID / location ID:   0 / 6 / 0
> Peer access from GeForce GTX TITAN X (GPU0) -> GeForce GTX TITAN X (GPU1) : Yes
> Peer access from GeForce GTX TITAN X (GPU1) -> GeForce GTX TITAN X (GPU0) : No

deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 7.5, CUDA Runtime Version = 7.0, NumDevs = 3
Result = PASS
"""

# cudaGetDeviceCount refused by a driver older than the runtime (deviceQuery.cpp's failure lines, error 35).
REFUSED = """./deviceQuery Starting...

 CUDA Device Query (Runtime API) version (CUDART static linking)

cudaGetDeviceCount returned 35
-> CUDA driver version is insufficient for CUDA runtime version
Result = FAIL
"""


def _kinds(text: str) -> list[tuple[str, int, int]]:
    found, _ = recognition._run_importers(text.splitlines())
    return sorted((f.kind, f.start, f.end) for f in found if f.kind == "deviceQuery")


def test_2486_device_query_shows_its_runtime_on_the_driver_and_a_geforce() -> None:
    r = capture_checks("2486", COMPAT, MIG)
    assert r[COMPAT].status == "ok", r[COMPAT].message
    assert "deviceQuery (CUDA runtime 12.1)" in r[COMPAT].message
    assert r[MIG].status == "not-applicable", r[MIG].message
    assert "GPUs: NVIDIA GeForce GTX 1050 Ti (" in r[MIG].message  # the name without deviceQuery's quotes


def test_a_multi_gpu_device_query_lists_its_devices_and_peer_access(tmp_path: Path) -> None:
    assert _kinds(THREE_TITAN_X) == [("deviceQuery", 0, len(THREE_TITAN_X.splitlines()))]
    inventory = parse_p2p_test_gpus(THREE_TITAN_X)
    assert [(g.index, g.bdf, g.model) for g in inventory.gpus] == [
        (0, "0000:05:00.0", "GeForce GTX TITAN X"), (1, "0000:06:00.0", "GeForce GTX TITAN X")]
    assert all(g.shown_by == (DEVICE_QUERY_TITLE,) for g in inventory.gpus)
    ran = cuda_ran_in_device_query(THREE_TITAN_X).ran[0]
    assert ran.devices == (0, 1) and ran.line == "CUDA Driver Version / Runtime Version          7.5 / 7.0"
    r = paste_checks(tmp_path, THREE_TITAN_X, COMPAT, MIG, P2P)
    assert r[COMPAT].status == "ok", r[COMPAT].message
    assert r[MIG].status == "not-applicable", r[MIG].message
    assert "(GPU1) -> GeForce GTX TITAN X (GPU0) : No" in r[P2P].message


def test_2499_cuda_error_30_reaches_the_log_symptoms() -> None:
    hits = _from_text("cudaGetDeviceCount returned 30\n-> unknown error\nResult = FAIL\n").hits
    assert [h.symptom.name for h in hits] == ["cuda-init-unknown-error"]
    assert not _from_text("cudaGetDeviceCount returned 3\n-> initialization error\n").hits


def test_a_device_query_refused_by_the_driver_is_not_ok(tmp_path: Path) -> None:
    assert _kinds(REFUSED) == [("deviceQuery", 0, 7)]
    assert paste_checks(tmp_path, REFUSED, COMPAT)[COMPAT].status == "issue"


def test_prose_naming_device_query_is_no_output(tmp_path: Path) -> None:
    prose = ('The deviceQuery sample works fine here.\nDevice 0: "my card" is the one I use.\n'
             "$ ./deviceQuery\n\nthen nothing.\n")
    assert _kinds(prose) == []
    assert paste_checks(tmp_path, prose + "CUDA 12.1\n", COMPAT)[COMPAT].status != "ok"
