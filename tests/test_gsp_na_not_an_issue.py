"""DRV-GSP-FIRMWARE: 'GSP Firmware Version: N/A' before Blackwell with the proprietary module is not an issue.

`N/A` reads as missing firmware, and the driver's default since R555 is GSP on, so the paste shows something that
looks wrong; the proprietary module runs Turing to Hopper without GSP, with no evidence of a CUDA cost.
Before Turing the GPU has no GSP (not applicable); with the open module or on Blackwell, N/A is an issue.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "DRV-GSP-FIRMWARE"

# https://github.com/bottlerocket-os/bottlerocket/pull/3203 (comment by foersleo, 2023-06-29): a V100 on 535, the
# grep of `nvidia-smi -q` and the start of `nvidia-smi` in the pod (the retrieved copy is cut in the table's last
# border).
BOTTLEROCKET_3203 = """\
bash-5.1# /usr/libexec/nvidia/tesla/bin/nvidia-smi -q | grep "GSP Firmware Version"
    GSP Firmware Version                  : N/A
bash-5.1# uname -a
Linux ip-192-168-52-161.us-west-2.compute.internal 6.1.19 #1 SMP PREEMPT_DYNAMIC Thu Jun 29 14:34:38 UTC 2023 x86_64 GNU/Linux
Thu Jun 29 18:17:09 2023
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  Tesla V100-SXM2-16GB           Off | 00000000:00:1E.0 Off |                    0 |
| N/A   35C    P0              23W / 300W |      0MiB / 16384MiB |      0%      Default |
|                                         |                      |                  N/A |
"""


def test_turing_excerpt_in_the_corpus_is_not_an_issue() -> None:
    result = capture_checks("370", CHECK)[CHECK]  # triton-inference-server/server#4739, TU102
    assert result.status == "not-an-issue"
    assert "GSP Firmware Version: N/A" in result.message


def test_grid_vgpu_a100_in_the_corpus_is_not_an_issue() -> None:
    assert capture_checks("334", CHECK)[CHECK].status == "not-an-issue"  # NVIDIA/TensorRT-LLM#1861


def test_gsp_in_use_stays_the_other_key_negative() -> None:
    result = capture_checks("118", CHECK)[CHECK]  # A100 with GSP 535.104.05 in use
    assert result.status == "not-an-issue"
    assert "in use" in result.message


def test_volta_na_is_not_applicable(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, BOTTLEROCKET_3203, CHECK)[CHECK]
    assert result.status == "not-applicable"


def test_modelled_blackwell_na_is_an_issue(tmp_path: Path) -> None:
    # Modelled: a Blackwell GPU, which the driver runs only with GSP, reporting N/A.
    text = """\
==============NVSMI LOG==============

Driver Version                            : 570.124.06
CUDA Version                              : 12.8

Attached GPUs                             : 1
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce RTX 5090
    Product Architecture                  : Blackwell
    GSP Firmware Version                  : N/A
"""
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "issue"
