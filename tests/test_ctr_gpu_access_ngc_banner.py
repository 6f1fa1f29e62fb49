"""CTR-GPU-ACCESS over the start-up banner of NVIDIA's NGC and CUDA images (facts/symptoms.py
`ngc-driver-not-detected`): the image's entrypoint found no NVIDIA driver inside its container and says GPU
functionality will not be available: the runtime handed the container no GPU and no driver library (no NVIDIA
runtime or toolkit, or no GPU request). An issue on its own, quoted, whatever else the paste leaves unknown; Triton's
own metrics finding GPUs through NVML in the same log (WSL 2's driver, which older images' check missed) vetoes it.
The same check reading the host driver's version (`... was detected and compatibility mode is UNAVAILABLE`) found the
driver exposed: tests/test_ngc_driver_check.py.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Real: https://github.com/triton-inference-server/server/issues/1705 (the issue body, Triton 20.03 on WSL 2 with
# `--gpus all`), the banner as posted, cut after its second line here.
TRITON_1705 = """\
=============================
== Triton Inference Server ==
=============================

NVIDIA Release 20.03 (build 11042949)

Copyright (c) 2018-2019, NVIDIA CORPORATION.  All rights reserved.

Various files include modifications (c) NVIDIA CORPORATION.  All rights reserved.
NVIDIA modifications are covered by the license terms that apply to the underlying
project or file.

WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use 'nvidia-docker run' to start this container; see
"""

# Real: https://github.com/NVIDIA/nvidia-docker/issues/1071 (the issue body, nvcr.io/nvidia/tensorflow:19.08-py3 run
# with plain `docker run`; the answer: add `--gpus all`), the banner as quoted there.
NVIDIA_DOCKER_1071 = """\
WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use 'nvidia-docker run' to start this container; see
   https://github.com/NVIDIA/nvidia-docker/wiki/nvidia-docker
"""

# Real: https://github.com/prs-eth/PanopticSegForLargeScalePointCloud/issues/20 (the issue body: an image built FROM a
# CUDA 11.1.1 base, `docker run <image_name>` without `--gpus`; the answer: run it with `--gpus all`).
PANOPTIC_20 = """\
$ docker run <image_name>

==========
== CUDA ==
==========

CUDA Version 11.1.1

Container image Copyright (c) 2016-2023, NVIDIA CORPORATION & AFFILIATES. All rights reserved.

This container image and its contents are governed by the NVIDIA Deep Learning Container License.
By pulling and using the container, you accept the terms and conditions of this license:
https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license

A copy of this license is made available in this container at /NGC-DL-CONTAINER-LICENSE for your convenience.

WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use the NVIDIA Container Toolkit to start this container with GPU support; see
   https://docs.nvidia.com/datacenter/cloud-native/ .
"""


def test_the_banner_finding_no_driver_is_the_issue(tmp_path: Path) -> None:
    for text in (TRITON_1705, NVIDIA_DOCKER_1071, PANOPTIC_20):
        result = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert result.status == "issue", (text[:60], result.message)
        assert "The NVIDIA Driver was not detected" in result.message


def test_the_triton_seldon_thread() -> None:
    # Real: https://github.com/SeldonIO/seldon-core/issues/4887, corpus 1639: Triton 23.02's banner, then CUDA's
    # 'driver version is insufficient' from its pinned memory pool.
    result = capture_checks("1639", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "issue", result.message
    assert "start-up check found no NVIDIA driver" in result.message


def test_the_banner_named_in_prose_only_proves_nothing() -> None:
    # Corpus 1263: the user's words and the title quote the banner; the paste is nvidia-smi -a run in the WSL distro.
    result = capture_checks("1263", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "unknown", result.message
