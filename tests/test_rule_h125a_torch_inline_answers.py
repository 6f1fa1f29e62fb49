"""A torch check that prints each expression beside its answer on one line (issue 28, h125a).

`torch.cuda.is_available() / True`, `torch.cuda.get_device_name(0) / NVIDIA GeForce RTX 2080 Ti` and `torch.__version__
/ 2.6.0a0+...` (corpus 2916, an Unraid container): torch initialised CUDA (facts/cuda_ran.TORCH_CUDA_ANSWERED) and named
its device (facts/gpus.TORCH_DEVICE_NAME beside TORCH_PRINTED_VERSION). Other separators (`:`, `=`, `->`) read the same;
`False`, a ROCm build or a question reads no CUDA at work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.cuda_ran import CudaRan
from stackaudit.facts.gpus import GpuInventory


def test_unraid_container_torch_check() -> None:
    # Corpus 2916 (hiyouga/LlamaFactory#7048): the four expressions and their answers, `/` between.
    r = capture_checks("2916", "CTR-GPU-ACCESS", "DRV-CUDA-COMPAT", "MEM-MIG", "PWR-CLOCK-EVENTS")
    assert r["CTR-GPU-ACCESS"].status == "ok" and "torch.cuda.is_available()" in r["CTR-GPU-ACCESS"].message
    assert r["DRV-CUDA-COMPAT"].status == "ok"
    assert r["MEM-MIG"].status == "not-applicable" and "RTX 2080 Ti" in r["MEM-MIG"].message
    assert r["PWR-CLOCK-EVENTS"].status == "unknown"


@pytest.mark.parametrize("sep", [": ", " = ", " -> ", " => ", " / ", "\u2192 "])
def test_modelled_other_separators(sep: str) -> None:
    # Modelled: the same check with another separator, an A10G named.
    text = (f"torch.__version__{sep}2.4.0+cu121\ntorch.cuda.is_available(){sep}True\n"
            f"torch.cuda.get_device_name(0){sep}NVIDIA A10G\n")
    ran = fact(pasted(text), "cuda_ran")
    assert isinstance(ran, CudaRan) and ran.torch_check is not None
    gpus = fact(pasted(text), "gpus")
    assert isinstance(gpus, GpuInventory) and gpus.models == {0: "NVIDIA A10G"}


@pytest.mark.parametrize("text", ["torch.__version__ / 2.4.0+cu121\ntorch.cuda.is_available() / False\n",
                                  "torch.__version__ / 2.4.0+rocm6.1\ntorch.cuda.is_available() / True\n",
                                  "why does torch.cuda.is_available() / True not hold?\n"])
def test_modelled_false_rocm_or_question_is_no_cuda(text: str) -> None:
    # Modelled: torch answering False, a ROCm build (HIP's answer), a question in the user's words.
    ran = fact(pasted(text), "cuda_ran")
    assert not (isinstance(ran, CudaRan) and ran.torch_check is not None)


def test_modelled_device_name_without_a_version_line_names_no_gpu(tmp_path: Path) -> None:
    # Modelled: a device name alone (no torch version printed beside it) is no torch check's printout.
    r = paste_checks(tmp_path, "torch.cuda.get_device_name(0) / NVIDIA A10G\n", "MEM-MIG")["MEM-MIG"]
    assert r.status != "not-applicable" or "A10G" not in r.message
