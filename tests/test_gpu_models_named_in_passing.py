"""GPU models that a paste names in passing settle MIG and Fabric Manager (issue 28, h94b: corpus 2089, 2099).

An lspci row's bracketed name with no GPU-table row is kept as the model where its architecture is known
(facts/gpus._lspci_model). Lightning's Tensor Cores notice names the CUDA device rank zero runs on
(facts/gpus.LIGHTNING_DEVICE).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import parse_lightning_gpus

# Real rows: Antergos/nvidia-installer#15 (a GTX 980M), RunGp/Nvidiux#4 (a GTX 570, and an unnamed `Device` row).
LSPCI_980M = ("01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GM204M [GeForce GTX 980M] [10de:1617] "
              "(rev a1)\n")
LSPCI_570 = ("02:00.0 VGA compatible controller [0300]: NVIDIA Corporation GF110 [GeForce GTX 570] [10de:1081](rev a1) "
             "(prog-if 00 [VGA controller])\n")
LSPCI_UNNAMED = ("01:00.0 VGA compatible controller [0300]: NVIDIA Corporation Device [10de:13c2](rev a1) "
                 "(prog-if 00 [VGA controller])\n")


def test_lspci_names_without_a_table_row_are_kept_where_the_architecture_is_known() -> None:
    assert [g.model for g in fact(pasted(LSPCI_980M), "gpus").gpus] == ["GeForce GTX 980M"]
    # Real counter-example: Fermi (GF110) is an architecture the table does not know, so the name is not kept.
    assert [g.model for g in fact(pasted(LSPCI_570), "gpus").gpus] == [""]
    # Real counter-example: a row that names no model and whose device id no table row gives stays unnamed.
    assert [g.model for g in fact(pasted(LSPCI_UNNAMED), "gpus").gpus] == [""]
    # Modelled counter-example: a bracketed name whose architecture the table does not know is not a model.
    modelled = "03:00.0 3D controller [0302]: NVIDIA Corporation ZZ100 [Mystery Board] [10de:ffff] (rev a1)\n"
    assert [g.model for g in fact(pasted(modelled), "gpus").gpus] == [""]


def test_lspci_tesla_m40_settles_mig_and_fabric_manager() -> None:
    # cloud-hypervisor/cloud-hypervisor#2000: `GM200GL [Tesla M40]`, Maxwell, a PCIe card.
    results = capture_checks("2089", "MEM-MIG", "DRV-FABRIC-MANAGER")
    assert results["MEM-MIG"].status == "not-applicable"
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"


# Real notices: rhasspy/piper#660, vocalpy/vak#708, Stability-AI/stable-audio-tools#118.
PIPER = "You are using a CUDA device ('NVIDIA GeForce RTX 4060 Laptop GPU') that has Tensor Cores. \n"
VAK = ("> You are using a CUDA device ('NVIDIA GeForce RTX 4090') that has Tensor Cores. To properly utilize them, "
       "you should set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision.\n")
A100 = ("`You are using a CUDA device ('NVIDIA A100-SXM4-40GB') that has Tensor Cores. To properly utilize them, you "
        "should set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision.`\n")


def test_lightning_notice_names_its_device() -> None:
    assert parse_lightning_gpus(PIPER).models == {0: "NVIDIA GeForce RTX 4060 Laptop GPU"}
    assert parse_lightning_gpus(VAK).models == {0: "NVIDIA GeForce RTX 4090"}
    assert parse_lightning_gpus(A100).models == {0: "NVIDIA A100-SXM4-40GB"}
    # Modelled counter-example: a CUDA device named without the notice's words is not read.
    with pytest.raises(ParseError):
        parse_lightning_gpus("Using CUDA device ('NVIDIA L4')\n")


def test_lightning_notice_settles_mig_only_for_a_model_without_it(tmp_path: Path) -> None:
    # NVIDIA/nccl#1212 (corpus 2099): a Ray worker on an NVIDIA L4, which has no MIG.
    results = capture_checks("2099", "MEM-MIG", "DRV-FABRIC-MANAGER")
    assert results["MEM-MIG"].status == "not-applicable"
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"
    assert paste_checks(tmp_path, VAK, "MEM-MIG")["MEM-MIG"].status == "not-applicable"
    # An A100 has MIG: the notice does not settle its mode.
    assert paste_checks(tmp_path, A100, "MEM-MIG")["MEM-MIG"].status != "not-applicable"


# Unsloth's banner (unsloth/models/llama.py): torch's name and memory of CUDA device 0, and from 2025 its device count.
UNSLOTH_H20 = ("==((====))==  Unsloth 2025.6.9: Fast Qwen3 patching. Transformers: 4.51.3. vLLM: 0.9.1.\n"
               "   \\\\   /|    NVIDIA H20. Num GPUs = 8. Max memory: 95.005 GB. Platform: Linux.\n"
               "O^O/ \\_/ \\    Torch: 2.7.0+cu126. CUDA: 9.0. CUDA Toolkit: 12.6. Triton: 3.3.0\n")


def test_unsloth_banner_names_device_zero_and_counts_the_rest() -> None:
    from stackaudit.facts.gpus import UNSLOTH_BANNER, parse_unsloth_gpus

    # Corpus 2358 (unslothai/unsloth#1639): the 2025.2 banner, device 0 alone, a vGPU profile's name.
    old = capture_checks("2358", "RT-TORCH-ARCH", "MEM-MIG")
    assert old["RT-TORCH-ARCH"].status == "ok" and old["RT-TORCH-ARCH"].coverage.text() == "1 GPU shown"
    assert old["MEM-MIG"].status == "not-applicable"
    # Corpus 2364 (unslothai/unsloth#2962): eight H20 counted, device 0 named whole: MIG is off on device 0 only, and
    # CUDA started on an NVSwitch board's eight GPUs, which it refuses (802) until Fabric Manager has set it up.
    new = capture_checks("2364", "RT-TORCH-ARCH", "MEM-MIG", "DRV-FABRIC-MANAGER")
    assert new["RT-TORCH-ARCH"].status == "ok" and new["RT-TORCH-ARCH"].coverage.text() == "8 GPUs shown"
    assert new["MEM-MIG"].status == "ok" and new["MEM-MIG"].coverage.text() == "1 of 8 GPUs shown"
    assert new["DRV-FABRIC-MANAGER"].status == "ok" and "8 NVIDIA H20" in new["DRV-FABRIC-MANAGER"].message
    assert len(parse_unsloth_gpus(UNSLOTH_H20).gpus) == 8
    # Modelled counter-example: ROCm's torch names an AMD device in the same banner: no NVIDIA GPU is read.
    with pytest.raises(ParseError):
        parse_unsloth_gpus(UNSLOTH_H20.replace("NVIDIA H20", "AMD Instinct MI300X"))
    # Bounded on a long line.
    start = time.perf_counter()
    UNSLOTH_BANNER.search("NVIDIA x. Num GPUs = 8. " * 8000)
    assert time.perf_counter() - start < 0.5


def test_unsloth_banner_of_a_mig_slice_is_not_mig_off(tmp_path: Path) -> None:
    # Modelled: CUDA names a MIG instance after its slice; the banner then shows no whole GPU, and the slice's
    # one device proves no NVSwitch fabric.
    sliced = UNSLOTH_H20.replace("NVIDIA H20. Num GPUs = 8. Max memory: 95.005 GB",
                                 "NVIDIA A100-SXM4-80GB MIG 3g.40gb. Num GPUs = 1. Max memory: 39.5 GB")
    results = paste_checks(tmp_path, sliced, "MEM-MIG", "DRV-FABRIC-MANAGER")
    assert results["MEM-MIG"].status != "ok"
    assert results["DRV-FABRIC-MANAGER"].status != "ok"
