"""PWR-GPU-POWER-LIMIT where the GPU table has no default for the card: a laptop's part (its name, a mobile-only
Quadro name, or a name the nvidia-smi table cut whose memory only the Laptop GPU has) runs at its maker's budget, and
a GPU busy far below its cap is not held back by it; a card shown neither way stays unknown, and a known default is
judged as before.

Real tables are verbatim from the public thread named beside each (or the corpus file); the one modelled table says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.gpus import listed_model
from stackaudit.gputable import LAPTOP_PART, cut_laptop_gpu

CHECK = "PWR-GPU-POWER-LIMIT"

# https://github.com/ollama/ollama/issues/6933 (scotgopal): a laptop's RTX A3000, 90 W, NVML's own `Laptop GPU` name.
OLLAMA_6933 = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA RTX A3000 Laptop GPU    Off | 00000000:01:00.0 Off |                  N/A |
| N/A   47C    P8              14W /  90W |    489MiB /  6144MiB |      8%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""

# https://github.com/ollama/ollama/issues/1651 (rs38, "a 6 GB VRAM Nvidia Laptop"): the table cuts the GTX 1660's
# name, and 6 GB is also the desktop GTX 1660 Ti's and SUPER's: nothing in the table says laptop, so it stays unknown.
OLLAMA_1651 = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 546.65                 Driver Version: 546.65       CUDA Version: 12.3     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                     TCC/WDDM  | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce GTX 1660 ...  WDDM  | 00000000:02:00.0 Off |                  N/A |
|  0%   41C    P8               3W /  49W |   5030MiB /  6144MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""

# https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/790 (geerlingguy): a desktop RTX 3060, its name
# whole and 12 GB: the board power on NVIDIA's page, 170 W, is its default.
PI_PCIE_790 = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3060        Off |   00000001:01:00.0 Off |                  N/A |
|  0%   26C    P8              4W /  170W |       1MiB /  12288MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""

# https://github.com/zai-org/GLM-130B/issues/32 (Ant0082): V100s at 100 % drawing 66 W of 300 W, the table cut inside
# GPU 2's rows. The GPU table knows the default (300 W): the caps are judged against it, not by the draw.
GLM_130B_32 = """\
Fri Oct 21 11:05:15 2022
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla V100-SXM2...  On   | 00000000:00:08.0 Off |                    0 |
| N/A   38C    P0    53W / 300W |  20392MiB / 32510MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
|   1  Tesla V100-SXM2...  On   | 00000000:00:09.0 Off |                    0 |
| N/A   41C    P0    66W / 300W |  20392MiB / 32510MiB |    100%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def _limit(tmp_path: Path, text: str) -> tuple[str, str]:
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    return r.status, r.message


def test_a_mobile_only_quadro_name_is_a_laptop_budget() -> None:
    # Corpus 1382: `Quadro RTX 3000` at 65 W under WDDM, a name NVIDIA gave only its mobile part.
    r = capture_checks("1382", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "Quadro RTX 3000 capped at 65 W" in r.message
    assert LAPTOP_PART.search("Quadro RTX 3000 with Max-Q Design")
    assert not LAPTOP_PART.search("Quadro RTX 4000")  # its desktop card bears the same name


def test_a_cut_name_whose_memory_only_the_laptop_gpu_has() -> None:
    # Corpus 1168: `NVIDIA GeForce RTX 3060 ...` with 6144 MiB at 80 W: the desktop RTX 3060 has 12 or 8 GB.
    r = capture_checks("1168", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "RTX 3060 Laptop GPU by its 6144 MiB" in r.message
    assert cut_laptop_gpu("NVIDIA GeForce RTX 3060 ...", 6144) == "RTX 3060 Laptop GPU"
    assert cut_laptop_gpu("NVIDIA GeForce RTX 3060 ...", 12288) == ""  # a desktop card's size
    assert cut_laptop_gpu("NVIDIA GeForce RTX 3060", 6144) == ""  # not cut: NVML would have said Laptop GPU


def test_modelled_cut_name_with_desktop_memory_stays_unknown(tmp_path: Path) -> None:
    # Modelled: corpus 1168's table with 12288 MiB, the desktop card's size: nothing says laptop, no default read.
    text = body("1168").replace("816MiB /  6144MiB", "816MiB / 12288MiB")
    assert "12288MiB" in text
    status, message = _limit(tmp_path, text)
    assert status == "unknown", message


def test_a_laptop_gpu_named_so_is_its_makers_budget(tmp_path: Path) -> None:
    status, message = _limit(tmp_path, OLLAMA_6933)
    assert status == "not-an-issue", message
    assert "NVIDIA RTX A3000 Laptop GPU capped at 90 W" in message


def test_a_cut_gtx_name_with_a_desktop_size_stays_unknown(tmp_path: Path) -> None:
    status, message = _limit(tmp_path, OLLAMA_1651)
    assert status == "unknown", message


def test_a_desktop_card_at_its_board_power_is_ok(tmp_path: Path) -> None:
    status, message = _limit(tmp_path, PI_PCIE_790)
    assert status == "ok", message
    assert "GPU 0 170 W" in message


def test_a_busy_gpu_far_below_its_cap_is_not_held_by_it() -> None:
    # Corpus 1494: an RTX 4060 Ti (no default in the GPU table: 160 W with 8 GB, 165 W with 16 GB) at 98 % drawing 46 W
    # of its 160 W cap.
    r = capture_checks("1494", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "GPU 0 draws 46 W of a 160 W cap at 98 %" in r.message


def test_a_known_default_is_judged_by_the_cap_not_the_draw(tmp_path: Path) -> None:
    status, message = _limit(tmp_path, GLM_130B_32)
    assert status == "ok", message
    assert "power limit at the default" in message


# A laptop's only GPU whose cap no source shows (checks/pwr._laptop_budget): named outside nvidia-smi, by a list's or an
# issue form's `GPU:` line that keeps `Laptop` after the model number (facts/gpus.listed_model), or listed by an
# `nvidia-smi -q` cut before its power section.
def test_a_laptop_gpu_named_in_an_issue_form_is_its_makers_budget() -> None:
    # Corpus 2603 (NVIDIA/open-gpu-kernel-modules#392): `### Hardware: GPU`, then `NVIDIA GeForce RTX 3060 Laptop GPU`.
    r = capture_checks("2603", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "GeForce RTX 3060 Laptop GPU, a laptop's GPU" in r.message


def test_a_laptop_gpu_in_a_markdown_environment_table() -> None:
    # Corpus 2602 (ggml-org/llama.cpp#26025): `| **GPU** | NVIDIA GeForce RTX 4060 Laptop 8GB (driver 610.62) |`.
    r = capture_checks("2602", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "GeForce RTX 4060 Laptop GPU" in r.message


def test_a_laptop_gpu_in_an_environment_list_keeps_its_ti() -> None:
    # Corpus 2601 (NVIDIA/open-gpu-kernel-modules#1162): `- GPU: NVIDIA GeForce RTX 5070 Ti Laptop GPU`.
    r = capture_checks("2601", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "GeForce RTX 5070 Ti Laptop GPU" in r.message


def test_nvidia_smi_q_without_its_power_section_on_a_laptop_gpu() -> None:
    # Corpus 2605 (NVIDIA/open-gpu-kernel-modules#382): `nvidia-smi -q` cut at `Minor Number`, one Laptop GPU.
    r = capture_checks("2605", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "RTX 3050 Ti Laptop GPU" in r.message


@pytest.mark.parametrize(("line", "model"), [
    ("- GPU: NVIDIA GeForce RTX 5070 Ti Laptop GPU", "GeForce RTX 5070 Ti Laptop GPU"),
    ("| **GPU** | NVIDIA GeForce RTX 4060 Laptop 8GB (driver 610.62) |", "GeForce RTX 4060 Laptop GPU"),
    ("GPU: NVIDIA RTX A2000 Laptop GPU", "RTX A2000 Laptop GPU"),
])
def test_a_listed_laptop_gpu_keeps_its_laptop_name(line: str, model: str) -> None:
    assert listed_model(line) == model


@pytest.mark.parametrize("line", [
    # Modelled: desktop cards, and a laptop named beside a desktop card's model, keep the GPU table's name.
    "GPU: NVIDIA GeForce RTX 4090", "- GPU: NVIDIA GeForce RTX 3060", "GPU: RTX 4090 (my laptop has an RTX 3050)"])
def test_a_listed_desktop_card_is_no_laptop_gpu(line: str) -> None:
    assert listed_model(line) and "Laptop" not in listed_model(line)


def test_modelled_desktop_card_named_in_a_list_stays_unknown(tmp_path: Path) -> None:
    # Modelled: the same issue form naming a desktop RTX 3060: no cap shown, no laptop, so no budget to read.
    text = "### Hardware: GPU\n\nNVIDIA GeForce RTX 3060\n\n### Describe the bug\n\nnvidia-powerd fails.\n"
    status, message = _limit(tmp_path, text)
    assert status == "unknown", message


@pytest.mark.parametrize(("line", "model"), [
    # Modelled on issue forms' `GPU:` answers: the vendor's name takes none of the model's words, and a model of five
    # words is read whole (a 4060 is no 4060 Ti; the Max-Q edition's 300 W is not the Workstation edition's 600 W).
    ("GPU: NVIDIA GeForce RTX 4060 Ti 16GB", "GeForce RTX 4060 Ti"),
    ("GPU: NVIDIA GeForce GTX 1080 Ti (11GB)", "GTX 1080 Ti"),
    ("GPU: NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTX PRO 6000 Blackwell Max-Q"),
    ("GPU: NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX PRO 6000 Blackwell Workstation"),
    ("GPU: NVIDIA 4090", "RTX 4090"),  # before a bare number the vendor's name stays a word of the model
])
def test_a_listed_model_is_read_past_the_vendors_name(line: str, model: str) -> None:
    assert listed_model(line) == model
