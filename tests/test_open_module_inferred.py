"""Issue 28, DRV-OPEN-MODULE where no source shows the module's flavour: Blackwell and GH200 GPUs that the driver
ran say it is the open one.

The proprietary kernel module refuses to initialise Blackwell and Grace Hopper GPUs (only the open modules drive
them), so a Blackwell GPU that nvidia-smi lists without an error, or that simpleP2P's CUDA names, shows the open
module loaded (ok).

Real pastes from three threads (corpus 390 by simpleP2P, 318 and 302 by nvidia-smi); the counter-example is
modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks


def _open(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    return r.status, r.message


def test_simplep2p_names_two_blackwell_gpus_so_the_module_is_open() -> None:
    status, message = _open("390")  # NVIDIA/cuda-samples#390: two RTX PRO 6000 Blackwell, driver 580.95.05
    assert status == "ok" and "2 Blackwell" in message and "open kernel modules" in message


def test_nvidia_smi_lists_an_rtx_5090_so_the_module_is_open() -> None:
    status, message = _open("318")  # ollama/ollama#10984: one RTX 5090 in nvidia-smi, driver 570
    assert status == "ok" and "open module is loaded" in message


def test_nvidia_smi_lists_two_rtx_5090_so_the_module_is_open() -> None:
    status, message = _open("302")  # noonghunna/club-3090#1251: two RTX 5090
    assert status == "ok" and "2 Blackwell" in message


def test_modelled_an_rtx_4090_tells_nothing_of_the_flavour(tmp_path: Path) -> None:
    # Modelled: 390's simpleP2P answers for two RTX 4090 (Ada): either module drives them, the flavour stays unknown.
    text = body("390").replace("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "NVIDIA GeForce RTX 4090")
    assert text != body("390")
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "unknown" and "flavour is not known" in r.message
