"""Another vendor's accelerators in the user's words (facts/gpus.stated_npus): Ascend NPUs named alone leave no NVIDIA
GPU, so the NVIDIA driver checks do not apply (facts/applicability.shown_absent over GpuInventory.others)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

COMPAT = "DRV-CUDA-COMPAT"


def test_ascend_npus_in_the_users_words_leave_no_nvidia_gpu_1079() -> None:
    """The user's words name Ascend NPUs only (corpus 1079): the NVIDIA driver checks do not apply."""
    assert capture_checks("1079", COMPAT)[COMPAT].status == "not-applicable"


def test_ascend_beside_an_nvidia_gpu_in_the_words_stays_open(tmp_path: Path) -> None:
    """Modelled: the user's words name NVIDIA GPUs too, so the NPUs are not the only accelerators."""
    text = ("We compare 8 x H100 GPUs against an Ascend 910B server.\n"
            "Apr 15 16:22:58 ml-2 systemd[1]: ollama.service: A process of this unit has been killed by the OOM "
            "killer.\n"
            "NCCL version 2.21.5+cuda12.4\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status != "not-applicable"
