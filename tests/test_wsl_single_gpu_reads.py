"""Blind batches YC and YD (issue 28): single-GPU and WSL 2 pastes.

- DRV-CUDA-COMPAT: PyTorch's official image names torch's CUDA in its tag (`pytorch/pytorch:2.0.0-cuda11.7-cudnn8-
  runtime`, facts/docker.image_cuda), as NVIDIA's CUDA images do: at or below the driver's CUDA it is ok (corpus 1287,
  microsoft/WSL#9962: the WSL maintainer's Quadro RTX 4000 on Windows driver 527.27, CUDA 12.0).
- PWR-APP-CLOCKS: `nvidia-smi -q` printing the application clocks and their defaults all N/A (a GeForce card) leaves
  no clock to set below its default: not applicable (corpus 1271, NVIDIA/nvidia-container-toolkit#261).

The pastes are real corpus files (tests/data/captures names each one's public thread in its header); modelled text is
marked so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.cuda_ran import runtime_in_line
from stackaudit.facts.docker import image_cuda

COMPAT, CLOCKS = "DRV-CUDA-COMPAT", "PWR-APP-CLOCKS"


def test_pytorch_image_tag_names_torch_cuda() -> None:
    assert image_cuda("pytorch/pytorch:2.0.0-cuda11.7-cudnn8-runtime") == "11.7"
    assert image_cuda("docker.io/pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel") == "12.4"
    # No CUDA in the tag, or another owner's image of the same name: none read.
    assert image_cuda("pytorch/pytorch:latest") == ""
    assert image_cuda("someone/pytorch:2.0.0-cuda11.7-cudnn8-runtime") == ""


def test_pytorch_image_named_in_prose() -> None:
    # Modelled: the image named in a sentence.
    r = runtime_in_line("I ran pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime with --gpus all")
    assert r is not None and r.cuda == "12.1" and r.where.startswith("pytorch/pytorch:")


def test_wsl_container_of_pytorch_image_is_ok_under_a_newer_driver() -> None:
    r = capture_checks("1287", COMPAT)[COMPAT]
    assert r.status == "ok" and "CUDA 11.7" in r.message and "527.27" in r.message


def test_pytorch_image_above_the_driver_is_not_ok(tmp_path: Path) -> None:
    # Modelled on corpus 1287: the same run with an image of CUDA 12.4 under the 527.27 driver (CUDA 12.0).
    text = (capture_text("1287").replace("2.0.0-cuda11.7-cudnn8", "2.4.0-cuda12.4-cudnn9"))
    r = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert r.status != "ok" and "CUDA 12.4" in r.message


def test_geforce_na_application_clocks_are_not_applicable() -> None:
    r = capture_checks("1271", CLOCKS)[CLOCKS]
    assert r.status == "not-applicable" and "N/A" in r.message


def test_application_clocks_shown_are_still_judged(tmp_path: Path) -> None:
    # Modelled on corpus 1271: the same section with application clocks set below their defaults.
    text = capture_text("1271")
    start = text.index("    Applications Clocks")
    end = text.index("    Max Clocks")
    clocks = ("    Applications Clocks\n        Graphics                          : 1200 MHz\n"
              "        Memory                            : 7001 MHz\n"
              "    Default Applications Clocks\n        Graphics                          : 1410 MHz\n"
              "        Memory                            : 7001 MHz\n")
    r = paste_checks(tmp_path, text[:start] + clocks + text[end:], CLOCKS)[CLOCKS]
    assert r.status == "issue"


def test_only_some_na_clock_fields_are_not_read_as_absent(tmp_path: Path) -> None:
    # Modelled: the defaults N/A but the current clocks shown: not a GPU without application clocks.
    text = capture_text("1271").replace(
        "    Applications Clocks\n        Graphics                          : N/A",
        "    Applications Clocks\n        Graphics                          : 1410 MHz", 1)
    r = paste_checks(tmp_path, text, CLOCKS)[CLOCKS]
    assert r.status != "not-applicable"


def capture_text(prefix: str) -> str:
    """The capture of the corpus file `prefix`, without its header."""
    from corpus import CAPTURES_DIR, END_OF_HEADER
    path = next(CAPTURES_DIR.glob(prefix + "-*.txt"))
    return path.read_text().split(END_OF_HEADER + "\n", 1)[1]
