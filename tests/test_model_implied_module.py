"""What the GPU models a paste names imply for DRV-FABRIC-MANAGER and DRV-OPEN-MODULE, and the lines that name them.

- A hardware list's count glued to its GPU key (`-GPU:RTX-4090*8`: facts/gpus.stated_gpus), PyTorch's capability warning
  (`NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible ...`: facts/gpus.parse_torch_warned_gpus) and
  llama.cpp's `ggml_cuda_init` list with its `(Total VRAM: N MiB)` name GPUs; a PCIe card among them rules out an
  NVSwitch fabric (facts/applicability.py), so Fabric Manager is not applicable.
- A pre-Turing GPU that CUDA or nvidia-smi listed ran under the proprietary module, the only one that drives it
  (https://github.com/NVIDIA/open-gpu-kernel-modules: Turing and later only): DRV-OPEN-MODULE ok where no source shows
  the flavour; a driver before R515 keeps its own not-an-issue.
- WSL 2 (its words, its kernel, nvidia-smi over a Windows driver) has no Linux NVIDIA module: not applicable.
- `driver 570.124.04, open.` names the open flavour (facts/nvidia.STATED_OPEN).

Real pastes are the corpus captures named; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import parse_ggml_cuda_gpus, parse_torch_warned_gpus, stated_gpus
from stackaudit.facts.nvidia import STATED_OPEN


def test_a_count_glued_to_the_gpu_key_states_the_gpus() -> None:
    # Corpus 975 (NVIDIA/TensorRT-LLM#2667).
    assert stated_gpus("-GPU:RTX-4090*8") == [(8, "RTX 4090")]
    # Modelled counter-example: a key with no model before the count states nothing.
    assert stated_gpus("-GPU:*8") == []


def test_rtx_4090_list_makes_fabric_manager_not_applicable() -> None:
    res = capture_checks("975", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert res.status == "not-applicable"
    assert "RTX 4090" in res.message


def test_torch_capability_warning_names_the_gpu() -> None:
    inv = parse_torch_warned_gpus("/x/torch/cuda/__init__.py:235: UserWarning: \nNVIDIA GeForce RTX 5090 with CUDA "
                                  "capability sm_120 is not compatible with the current PyTorch installation.\n")
    assert [g.model for g in inv.gpus] == ["NVIDIA GeForce RTX 5090"]
    assert inv.count_unshown  # one warning per distinct GPU: a lower bound
    # A Compose service's prefix before it (corpus 607, `vllm-1  | `) is no part of the name.
    served = parse_torch_warned_gpus("vllm-1  | NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not "
                                     "compatible with the current PyTorch installation.\n")
    assert [g.model for g in served.gpus] == ["NVIDIA GeForce RTX 5070 Ti"]
    # Older torch, with CUDA's index (modelled on its `Found GPU%d %s which is of cuda capability` warning).
    old = parse_torch_warned_gpus("Found GPU1 GeForce GT 710 which is of cuda capability 3.5.\n")
    assert [(g.index, g.model) for g in old.gpus] == [(1, "GeForce GT 710")]


def test_rtx_5090_warning_makes_fabric_manager_not_applicable_and_open_word_reads() -> None:
    # Corpus 985 (NVIDIA/TensorRT-LLM#3347): the torch warning names the card; `driver 570.124.04, open.` the flavour.
    res = capture_checks("985", "DRV-FABRIC-MANAGER", "DRV-OPEN-MODULE")
    assert res["DRV-FABRIC-MANAGER"].status == "not-applicable"
    assert res["DRV-OPEN-MODULE"].status == "ok"
    assert "open kernel module" in res["DRV-OPEN-MODULE"].message


def test_open_word_only_beside_the_version() -> None:
    assert STATED_OPEN.search("Running cuda-toolkit-12.8, driver 570.124.04, open.")
    # Modelled counter-examples: `open` as a verb or a program's word is no flavour.
    assert not STATED_OPEN.search("driver 570.124.04, opened a ticket")
    assert not STATED_OPEN.search("driver 570.124.04 openmpi 4.1")


def test_ggml_list_with_total_vram_is_read() -> None:
    # Corpus 961 (canonical/inference-snaps#255).
    inv = parse_ggml_cuda_gpus("ggml_cuda_init: found 1 CUDA devices (Total VRAM: 11172 MiB):\n"
                               "  Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes, VRAM: 11172 MiB\n")
    assert [g.model for g in inv.gpus] == ["NVIDIA GeForce GTX 1080 Ti"]


def test_pre_turing_gpu_cuda_listed_shows_the_proprietary_module() -> None:
    res = capture_checks("961", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert res.status == "ok"
    assert res.actual == "proprietary (inferred)"


def test_turing_gpu_cuda_listed_needs_neither_flavour(tmp_path: Path) -> None:
    # Modelled: a Turing card runs under either module, so neither is required (ok, which one is loaded not shown).
    text = ("ggml_cuda_init: found 1 CUDA devices:\n"
            "  Device 0: NVIDIA GeForce RTX 2080 Ti, compute capability 7.5, VMM: yes\n")
    assert paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"].status == "ok"


def test_an_old_driver_on_a_pascal_gpu_has_no_flavour_to_judge() -> None:
    # Corpus 501: driver 396 with a GTX 1080 listed: neither the driver nor the GPU has an open module (h92b's rule:
    # not applicable; its single reader's not-an-issue is a gap).
    assert capture_checks("501", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"].status == "not-applicable"


def test_wsl2_has_no_linux_module() -> None:
    # Corpus 986: `Docker Desktop 4.44.0 (WSL2)` with a Windows driver 580.97.
    res = capture_checks("986", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert res.status == "not-applicable"
    assert "WSL 2" in res.message


def test_a_line_comparing_with_wsl_is_no_wsl(tmp_path: Path) -> None:
    # Modelled counter-example: WSL 2 named beside a negation says nothing of this machine.
    text = "- Ubuntu 22.04 on bare metal, not WSL2\n- Driver Version: 570.124.04\n"
    res = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert res.status != "not-applicable"


def test_a_bold_driver_version_in_a_list_states_the_driver_and_its_flavour() -> None:
    # Corpus 1164 (NVIDIA/open-gpu-kernel-modules#1200): `- Driver: **595.71.05** (open kernel modules)`.
    res = capture_checks("1164", "DRV-OPEN-MODULE", "DRV-CUDA-COMPAT")
    assert res["DRV-OPEN-MODULE"].status == "ok" and "595.71.05" in res["DRV-OPEN-MODULE"].message
    assert "driver 595.71.05" in res["DRV-CUDA-COMPAT"].message


def test_bold_marks_around_one_word_only_are_dropped(tmp_path: Path) -> None:
    # Modelled counter-example: stars that open no bold span leave the line as it was.
    text = "***** Driver Version: 550.54.15 *****\n"
    res = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert "550.54.15" in res.message
