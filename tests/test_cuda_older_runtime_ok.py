"""Issue 28, the lead's decision on DRV-CUDA-COMPAT: a runtime older than the CUDA the driver supports is ok.

Blind readings split 11 ok to 8 not-an-issue, every one of them for the same reason (a newer driver runs an older
runtime), and no not-an-issue rests on a fact its paste shows that the ok ones lack. The message keeps the answer
to the question users ask: the nvidia-smi header's CUDA is the driver's highest, not torch's.

Real pastes from three threads (corpus 322, 352, 377) and ollama's discovery (244); the counter-example is modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.nvidia import cuda_of_branch


def _compat(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    return r.status, r.message


def test_check_env_cu126_on_driver_570_is_ok() -> None:
    status, message = _compat("322")  # sgl-project/sglang: driver 570.124.06 (CUDA 12.8), torch cu126
    assert status == "ok" and "12.6" in message and "12.8" in message
    assert "driver's highest, not torch's" in message


def test_collect_env_cu121_on_driver_535_is_ok() -> None:
    status, message = _compat("352")  # vLLM on an AWS A10G: driver 535.161.07 (CUDA 12.2), torch cu121
    assert status == "ok" and "535.161.07" in message and "12.1" in message


def test_collect_env_cu124_on_driver_570_is_ok() -> None:
    status, message = _compat("377")  # eight H100 on Rocky 8: driver 570.133.20 (CUDA 12.8), torch cu124
    assert status == "ok" and "570.133.20" in message and "12.4" in message


def test_ollama_older_runner_is_ok() -> None:
    status, message = _compat("244")  # ollama: driver=12.2, its only runner cuda_v11
    assert status == "ok" and "older" in message


def test_modelled_the_same_report_on_a_driver_below_the_floor_is_the_issue(tmp_path: Path) -> None:
    # Modelled: 352's report with an R470 driver: torch's CUDA 12.1 is then newer, below the 525.60.13 floor.
    old = body("352").replace("Nvidia driver version: 535.161.07", "Nvidia driver version: 470.199.02")
    assert old != body("352")
    r = paste_checks(tmp_path, old.replace("Is CUDA available: True", "Is CUDA available: False"),
                     "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "525.60.13" in r.message


def test_branches_before_cuda_11_name_their_own_cuda(tmp_path: Path) -> None:
    # The toolkit release notes' driver table: R384 is CUDA 9.0's, R418 to R435 run 10.1, R440 10.2.
    assert [cuda_of_branch((v,)) for v in (384, 390, 410, 430, 440, 450)] == ["9.0", "9.1", "10.0", "10.1", "10.2",
                                                                                "11.0"]
    assert cuda_of_branch((340,)) is None
    # Modelled on corpus 1266 (facebookresearch/Detectron#312): a DGX-1 on driver 384.111, without the nvvs memory
    # results (whose PASS lines show CUDA at work and settle the check: facts/cuda_ran.py).
    text = "".join(line for line in body("1266").splitlines(keepends=True) if "Memory" not in line)
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    # The user's `* CUDA version: 9.0` is judged against the branch's CUDA 9.0 (h62e: a stated CUDA at or below it).
    assert r.status == "ok" and "CUDA 9.0 that driver 384.111 supports" in r.message, r.message


def test_modelled_a_cuda_11_build_below_its_floor_names_the_floor_as_nvidia_writes_it(tmp_path: Path) -> None:
    # Modelled: 352's report with torch built for CUDA 11.8 on an R418 driver: below CUDA 11's floor, which NVIDIA
    # writes 450.80.02 (not 450.80.2).
    old = (body("352").replace("Nvidia driver version: 535.161.07", "Nvidia driver version: 418.67")
           .replace("2.1.2+cu121", "2.1.2+cu118").replace("CUDA used to build PyTorch: 12.1",
                                                          "CUDA used to build PyTorch: 11.8"))
    r = paste_checks(tmp_path, old.replace("Is CUDA available: True", "Is CUDA available: False"),
                     "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "450.80.02" in r.message and "450.80.2;" not in r.message
