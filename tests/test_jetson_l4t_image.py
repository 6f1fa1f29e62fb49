"""Issue 28 (h83c): DRV-CUDA-COMPAT on a Jetson, whose L4T release carries the GPU driver: an image built for the same
L4T major runs there without a driver version shown.

The image tags are real (corpus 1773, jetson-containers' and NGC's L4T images); the counter-examples are modelled on
corpus 1773 and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.docker import l4t_image_release


@pytest.mark.parametrize(("image", "release"), [
    ("dustynv/vllm:0.6.3-r36.4.0", "36.4.0"),  # corpus 1773
    ("dustynv/ollama:r36.4.0", "36.4.0"),  # jetson-containers' ollama image
    ("nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3", "35.2.1"),  # NVIDIA's L4T PyTorch image on NGC
])
def test_an_image_for_an_l4t_release(image: str, release: str) -> None:
    assert l4t_image_release(image) == release


@pytest.mark.parametrize("image", ["nvcr.io/nvidia/tritonserver:23.08-py3", "vllm/vllm-openai:v0.6.3"])
def test_other_images_name_no_l4t_release(image: str) -> None:
    assert l4t_image_release(image) == ""


def test_corpus_1773_image_for_the_boards_l4t_is_ok() -> None:
    r = capture_checks("1773", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "L4T 36.4.0" in r.message, r.message


def test_an_image_for_another_l4t_major_stays_unknown(tmp_path: Path) -> None:
    """Modelled on corpus 1773 with an image built for L4T r35."""
    text = body("1773").replace("dustynv/vllm:0.6.3-r36.4.0", "dustynv/vllm:0.6.3-r35.4.1")
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown", r.message


# --- an NGC image's start banner with its server's log and no driver-check line ------------------------------------

# NVIDIA/DeepLearningExamples#280: a TensorRT Inference Server 19.06 banner whose entrypoint enabled compatibility mode.
_LEGACY_NOTE = """\
===============================
== TensorRT Inference Server ==
===============================

NVIDIA Release 19.06 (build 6791108)

Copyright (c) 2018-2019, NVIDIA CORPORATION.  All rights reserved.

NOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED.

I1105 21:15:59.692447 1 main.cc:325] Starting endpoints, 'inference:0' listening on
I1105 21:15:59.692825 1 grpc_server.cc:263] Starting a GRPCService at 0.0.0.0:8001
"""


def test_corpus_1777_ngc_banner_then_the_server_is_ok() -> None:
    r = capture_checks("1777", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "NVIDIA Release 21.10" in r.message, r.message


def test_a_banner_with_the_entrypoints_compatibility_note_is_not_this_ok(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, _LEGACY_NOTE, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert "start banner" not in r.message, r.message


@pytest.mark.parametrize("number", ["1638", "1684"])
def test_a_banner_with_the_entrypoints_error_stays_an_issue(number: str) -> None:
    # corpus 1638 and 1684: `ERROR: This container was built for NVIDIA Driver Release ...` under the banner
    assert capture_checks(number, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "issue"
