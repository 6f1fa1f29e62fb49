"""Issue 28 (DRV-CUDA-COMPAT, h124d): more shapes of a CUDA program at work, and of the driver, read.

- llama.cpp's memory breakdown at exit (`llama_memory_breakdown_print: |   - CUDA0 (RTX 3070 Laptop GPU) | ...`)
  names a CUDA device whose memory its backend read and allocated (facts/serving_logs.GGML_BREAKDOWN_DEVICE, corpus
  2824): ok with no driver shown. An RPC server's row names no CUDA device.
- SGLang's check_env answering `CUDA available: True` is torch initialising CUDA, as collect_env's `Is CUDA available:
  True`: above the driver branch's own major that is the forward-compatibility package at work (corpus 2810, A800s
  under R470): not an issue on data-center GPUs, an issue on a GeForce.
- The user's sentence naming the driver they run (`I have Nvidia drivers setup and working and Im on version
  535.104.05`, corpus 2815; `Using 550.90.07 on a Proxmox CT`, corpus 2822) states the driver (facts/nvidia.STATED_DRIVER);
  a version of another shape (ollama's `0.6.1`, a kernel's `6.8.0`) does not.
- llama.cpp's 2023 CUDA_CHECK line with the error's code and place (`CUDA error 700 at .../ggml-cuda.cu:8111: an
  illegal memory access was encountered`, corpus 2253) is a kernel's fault on the GPU: its runtime had started.
- An image whose CUDA is above the driver's, where the toolkit's brand exceptions would decide, with a CUDA program at
  work shown (corpus 2742: FasterTransformer's `CUDA runtime error: out of memory` in NGC's PyTorch 22.03 on R470):
  the container started, and a runtime of the driver's major above its floor runs by minor-version compatibility.

Excerpts without a URL are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.cuda_ran import KERNEL_FAULT
from stackaudit.facts.nvidia import STATED_DRIVER

CHECK = "DRV-CUDA-COMPAT"

# https://github.com/ggml-org/llama.cpp (corpus 2824's lines): the breakdown after a llama-cli run over RPC.
BREAKDOWN = """llama-cli -m model.gguf -ngl 99 --rpc rog:50052

Exiting...
llama_memory_breakdown_print: | memory breakdown [MiB]          | total    free     self   model   context   compute       unaccounted |
llama_memory_breakdown_print: |   - RPC0 (rog:50052)            |  8191 =  6243 + ( 8130 =   686 +    6656 +     788) + 17592186038233 |
llama_memory_breakdown_print: |   - CUDA0 (RTX 3070 Laptop GPU) |  7819 = 13435 + (11378 =  1318 +    9728 +     332) + 17592186027421 |
llama_memory_breakdown_print: |                                 |                    750 =   228 +       0 +     522
"""

# Corpus 2810's check_env, its lines that matter (sgl-project/sglang, an EAGLE3 issue).
CHECK_ENV_R470 = """Python: 3.10.13 (main, Sep 11 2023, 13:44:35) [GCC 11.2.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA A800-SXM4-80GB
GPU 0,1,2,3,4,5,6,7 Compute Capability: 8.0
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 12.4, V12.4.131
CUDA Driver Version: 470.161.03
PyTorch: 2.8.0+cu128
sglang: 0.5.3.post3
sgl_kernel: 0.3.15
"""


@pytest.mark.parametrize(("prefix", "status"), [
    ("2824", "ok"), ("2810", "not-an-issue"), ("2815", "ok"), ("2822", "ok"), ("2253", "ok"), ("2742", "not-an-issue"),
])
def test_corpus_files(prefix: str, status: str) -> None:
    assert capture_checks(prefix, CHECK)[CHECK].status == status


def test_memory_breakdown_row_of_a_cuda_device_is_cuda_at_work(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, BREAKDOWN, CHECK)[CHECK]
    assert result.status == "ok" and "CUDA0" in result.message


def test_memory_breakdown_of_another_gpu_and_an_rpc_server(tmp_path: Path) -> None:
    # Modelled: the same breakdown on another GPU, then with the CUDA row cut away (the RPC server's row alone).
    other = BREAKDOWN.replace("CUDA0 (RTX 3070 Laptop GPU)", "CUDA1 (H100 80GB HBM3)      ")
    assert paste_checks(tmp_path, other, CHECK)[CHECK].status == "ok"
    rpc_only = "\n".join(line for line in BREAKDOWN.splitlines() if "CUDA0" not in line) + "\n"
    assert paste_checks(tmp_path, rpc_only, CHECK)[CHECK].status != "ok"


def test_check_env_forward_compatibility_on_data_center_and_geforce(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, CHECK_ENV_R470, CHECK)[CHECK].status == "not-an-issue"
    # Modelled: the same report on GeForce cards, which cannot use the forward-compatibility package.
    geforce = CHECK_ENV_R470.replace("NVIDIA A800-SXM4-80GB", "NVIDIA GeForce RTX 3090").replace(
        "Capability: 8.0", "Capability: 8.6")
    assert paste_checks(tmp_path, geforce, CHECK)[CHECK].status == "issue"
    # Modelled: torch did not initialise CUDA there: no forward compatibility shown, the floor decides.
    failed = CHECK_ENV_R470.replace("CUDA available: True", "CUDA available: False")
    assert paste_checks(tmp_path, failed, CHECK)[CHECK].status == "issue"


@pytest.mark.parametrize(("line", "driver"), [
    ("Using 550.90.07 on a Proxmox CT, I get error code 999 when starting Ollama.", "550.90.07"),
    ("I have Nvidia drivers setup and working and Im on version 535.104.05", "535.104.05"),
    # Modelled: other wordings of the same sentences.
    ("I'm running 570.133.20 on the host and the container fails", "570.133.20"),
    ("The NVIDIA driver is installed and we are on version 580.95.05.", "580.95.05"),
    ("Using ollama 0.6.1 on a Proxmox CT", None),
    ("Using 6.8.0-101 kernel with drivers on version 6.8.0", None),
    ("Running 550.90 on the host", None),
])
def test_the_driver_in_the_users_sentence(line: str, driver: str | None) -> None:
    found = STATED_DRIVER.search(line)
    assert (found.group(1) if found else None) == driver


def test_the_sentence_with_an_image_banner_judges_the_image(tmp_path: Path) -> None:
    # Modelled on corpus 2815: the driver in the user's words, NVIDIA's CUDA image banner naming a newer runtime.
    text = ("I have Nvidia drivers setup and working and Im on version 525.147.05\n\n"
            "==========\n== CUDA ==\n==========\n\nCUDA Version 12.2.0\n\n"
            "Container image Copyright (c) 2016-2023, NVIDIA CORPORATION & AFFILIATES. All rights reserved.\n")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    # The driver is read: the container toolkit's requirement check then decides, with its brand exceptions unseen.
    assert "525.147.05" in result.message and "cuda>=" in result.message


@pytest.mark.parametrize(("line", "fault"), [
    ("Dec 20 17:03:11 host ollama[12288]: CUDA error 700 at /go/src/ggml-cuda.cu:8111: an illegal memory access was "
     "encountered", True),
    # Modelled: another fault and another place; the catch-all launch failure and an allocation error are no fault.
    ("CUDA error 710 at ggml-cuda.cu:7021: device-side assert triggered", True),
    ("CUDA error 719 at ggml-cuda.cu:7021: unspecified launch failure", False),
    ("CUDA error 2 at ggml-cuda.cu:6246: out of memory", False),
])
def test_ggml_cuda_check_line(line: str, fault: bool) -> None:
    assert bool(KERNEL_FAULT.search(line)) is fault


# https://github.com/NVIDIA/FasterTransformer (corpus 2742's lines that matter): NGC's PyTorch 22.03 (CUDA 11.6) on
# driver 470.57.02 (CUDA 11.4), the program's allocation answered out of memory.
IMAGE_ABOVE_DRIVER = """### GPU name

TITAN RTX

### CUDA Driver

470.57.02

1. docker run -ti --gpus all nvcr.io/nvidia/pytorch:22.03-py3 bash
Device NVIDIA TITAN RTX
  what():  [FT][ERROR] CUDA runtime error: out of memory /workspace/FasterTransformer/src/fastertransformer/utils/memory_utils.cu:32
"""


def test_an_image_above_the_driver_whose_program_ran(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, IMAGE_ABOVE_DRIVER, CHECK)[CHECK].status == "not-an-issue"
    # Modelled: the same paste cut before the program's error: the toolkit's exceptions decide, unseen.
    cut = IMAGE_ABOVE_DRIVER.split("  what():")[0]
    assert paste_checks(tmp_path, cut, CHECK)[CHECK].status == "unknown"
    # Modelled: an image of the next major (NGC's 23.01, CUDA 12.0) over R470: minor-version compatibility does not
    # cross majors, so the program's run does not make it not an issue.
    newer_major = IMAGE_ABOVE_DRIVER.replace("pytorch:22.03-py3", "pytorch:23.01-py3")
    assert paste_checks(tmp_path, newer_major, CHECK)[CHECK].status != "not-an-issue"
