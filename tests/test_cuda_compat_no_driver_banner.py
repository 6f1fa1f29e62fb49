"""DRV-CUDA-COMPAT where CUDA's error 35 follows NVIDIA's image banner finding no driver (facts/symptoms.py
`cuda-insufficient-driver`, its `unless`).

cudart answers `CUDA driver version is insufficient for CUDA runtime version` (cudaErrorInsufficientDriver, 35) also
where it loads no driver library at all. The NGC image's banner `The NVIDIA Driver was not detected` in the same paste
says that is the case: the line then says nothing of a driver's version, and the check stays unknown (the driver is
not shown). The banner is CTR-GPU-ACCESS's issue. Without the banner the line stays DRV-CUDA-COMPAT's issue.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import LogSymptoms, find_symptoms

COMPAT, ACCESS = "DRV-CUDA-COMPAT", "CTR-GPU-ACCESS"

# Real: https://github.com/triton-inference-server/server/issues/1203 (the issue body: TensorRT Inference Server 20.02
# started without a GPU on purpose), the banner and the first log lines as posted.
TRTIS_1203 = """\
===============================
== TensorRT Inference Server ==
===============================

NVIDIA Release 20.02 (build 10247880)

Copyright (c) 2018-2019, NVIDIA CORPORATION.  All rights reserved.

WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use 'nvidia-docker run' to start this container; see
   https://github.com/NVIDIA/nvidia-docker/wiki/nvidia-docker .

2020-03-19 13:20:56.980187: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library libcudart.so.10.2
I0319 13:20:57.082168 1 server.cc:112] Initializing TensorRT Inference Server
E0319 13:20:57.082452 1 pinned_memory_manager.cc:194] failed to allocate pinned system memory: CUDA driver version is insufficient for CUDA runtime version
"""

# Real: https://github.com/triton-inference-server/server/issues/2674 (Triton 21.02 run without `--gpus`; the banner
# from the user's comment, the pinned-memory line as the maintainer quotes it from the same log).
TRITON_2674 = """\
=============================
== Triton Inference Server ==
=============================

NVIDIA Release 21.02 (build 20174689)

WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use Docker with NVIDIA Container Toolkit to start this container; see
   https://github.com/NVIDIA/nvidia-docker.

I0327 01:23:02.966714 1 libtorch.cc:940] TRITONBACKEND_Initialize: pytorch
E0327 01:23:03.175862 1 pinned_memory_manager.cc:202] failed to allocate pinned system memory: CUDA driver version is insufficient for CUDA runtime version
"""

# Real: https://github.com/triton-inference-server/server/issues/2386 (Triton 20.09 on GKE's driver 418.67, whose CUDA
# is below the image's 11.0): no banner, Triton's NVML metrics found the T4, and the same error is an old driver.
TRITON_2386 = """\
"found 1 GPUs supporting NVML metrics
" GPU 0: Tesla T4"
"Initializing Triton Inference Server"
"failed to allocate pinned system memory: CUDA driver version is insufficient for CUDA runtime version"
"""


def test_error_35_after_the_no_driver_banner_is_unknown(tmp_path: Path) -> None:
    for text in (TRTIS_1203, TRITON_2674):
        results = paste_checks(tmp_path, text, COMPAT, ACCESS)
        assert results[COMPAT].status == "unknown", (text[:80], results[COMPAT].message)
        assert results[ACCESS].status == "issue", results[ACCESS].message


def test_the_seldon_thread() -> None:
    # Corpus 1639 (SeldonIO/seldon-core#4887): the banner is read as an evidence line and the error in the engine's
    # log, two sources of one paste; the banner still vetoes the error.
    results = capture_checks("1639", COMPAT, ACCESS)
    assert results[COMPAT].status == "unknown", results[COMPAT].message
    assert results[ACCESS].status == "issue", results[ACCESS].message


def test_error_35_without_the_banner_stays_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, TRITON_2386, COMPAT)[COMPAT]
    assert result.status == "issue", result.message
    assert "insufficient" in result.evidence[0]


def test_the_veto_spans_sources_only_through_symptom_lines() -> None:
    # Modelled: the banner in one source and the error in another; the union leaves the error out, keeps the banner.
    banner = LogSymptoms(find_symptoms(["WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be "
                                        "available."]))
    error = LogSymptoms(find_symptoms(["failed to allocate pinned system memory: CUDA driver version is insufficient "
                                       "for CUDA runtime version"]))
    # The line is also a pinned allocation that CUDA's start refused (pinned-alloc-cuda-unstarted, MEM-PINNED-HOST).
    assert sorted(h.symptom.name for h in error.hits) == ["cuda-insufficient-driver", "pinned-alloc-cuda-unstarted"]
    assert "cuda-insufficient-driver" not in [h.symptom.name for h in LogSymptoms.union([banner, error]).hits]
    assert "ngc-driver-not-detected" in [h.symptom.name for h in LogSymptoms.union([banner, error]).hits]
    assert "cuda-insufficient-driver" in [h.symptom.name for h in LogSymptoms.union([error]).hits]
