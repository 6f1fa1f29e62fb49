"""An issue form's GPU answer in `nvidia-smi -L`'s form without its UUID, read as `nvidia-smi -L`
(importers/nvidia_smi.form_list_answer), and Gentoo's package name in the open kernel modules' form's version answer
(facts/nvidia.STATED_DRIVER).

NVIDIA/open-gpu-kernel-modules' bug form asks `### Hardware: GPU` for `nvidia-smi -L`'s line of the GPU. Most users
paste it whole (`GPU 0: NVIDIA GeForce RTX 3060 Laptop GPU (UUID: GPU-...)`); some drop the UUID. The line without it
still names the GPU's index and model, so the GPU checks read it (MEM-MIG: a GeForce has no MIG). The same line
anywhere else is not read so: collect_env prints GPU lines without UUIDs, and prose may number GPUs the same way.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.importers.nvidia_smi import form_list_answer
from stackaudit.importers.recognition import recognise

OPEN, MIG = "DRV-OPEN-MODULE", "MEM-MIG"

# Real: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1048 (the form's answers, the UUID whole).
FORM_1048 = """\
### NVIDIA Open GPU Kernel Modules Version

580.126.18

### Kernel Release

Linux RZS-OLYSK 6.18.13-100.fc42.x86_64 #1 SMP PREEMPT_DYNAMIC Thu Feb 19 20:58:08 UTC 2026 x86_64 GNU/Linux

### Hardware: GPU

GPU 0: NVIDIA GeForce RTX 3060 Laptop GPU (UUID: GPU-0d85ac9d-a4c9-70b6-ad1e-c86ba7bda742)

### Describe the bug

After some amount of time, the dedicated GPU (RTX 3060 Laptop) on my laptop experiences an Xid 119.
"""

# Real: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1175 (the GPU answered in words, the chip in
# parentheses: no listing's line).
FORM_1175 = """\
### NVIDIA Open GPU Kernel Modules Version

595.71.05

### Hardware: GPU

Nvidia GeForce RTX 4050 Laptop GPU (AD107M)

### Describe the bug
"""


def _list_spans(text: str) -> list[tuple[str, int, int]]:
    return [s for s in recognise(text).recognised if s[0] == "nvidia-smi -L"]


def test_the_gentoo_form_reads_the_open_module_and_the_gpu() -> None:
    # Corpus 1970 (NVIDIA/open-gpu-kernel-modules#507): `nvidia-drivers-530.41.03` under the version heading, and
    # `GPU 0: NVIDIA GeForce RTX 3070 Ti` without its UUID under `### Hardware: GPU`.
    results = capture_checks("1970", OPEN, MIG)
    assert results[OPEN].status == "ok", results[OPEN].message
    assert "530.41.03" in results[OPEN].message
    assert results[MIG].status == "not-applicable", results[MIG].message


def test_the_answer_without_its_uuid_is_a_listing(tmp_path: Path) -> None:
    # Modelled on #1048: the same answer with its UUID dropped, as corpus 1970's user did.
    text = FORM_1048.replace(" (UUID: GPU-0d85ac9d-a4c9-70b6-ad1e-c86ba7bda742)", "")
    assert len(_list_spans(text)) == 1
    for form in (text, FORM_1048):
        results = paste_checks(tmp_path, form, OPEN, MIG)
        assert results[MIG].status == "not-applicable", results[MIG].message
        assert results[OPEN].status == "ok", results[OPEN].message


def test_the_same_line_elsewhere_and_a_worded_answer_are_not_listings() -> None:
    # Modelled: the line under another heading (the bug's description) is the user's words, not the form's answer.
    lines = ["### Describe the bug", "", "GPU 0: NVIDIA GeForce RTX 3070 Ti"]
    assert not form_list_answer(lines, 2)
    assert not _list_spans("\n".join(lines) + "\n")
    # Real (#1175): a model with its chip in parentheses is no `nvidia-smi -L` line.
    assert not _list_spans(FORM_1175)
