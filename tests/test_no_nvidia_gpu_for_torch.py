"""Hosts whose sources show only another vendor's GPU: LocalAI's AIO entrypoint naming an Intel GPU (it looks for an
NVIDIA one first: mudler/LocalAI aio/entrypoint.sh), and RT-TORCH-ARCH, which matches torch's CUDA kernels to the
NVIDIA GPUs, not applicable there (applicability.ENGINE_GPU_SUBJECTS), unless the GPU is AMD's (torch's ROCm builds).

Real pastes: corpus 1978 (mudler/LocalAI#3184, the AIO CPU image on an Intel GPU), 1079 (an Ascend NPU host), 1546
and 1548 (Apple M2 hosts on Metal); corpus 1255 and 1550 (ROCm torch builds on AMD GPUs) stay unknown.
Counter-examples are modelled where marked.
"""

from __future__ import annotations

import pytest

from corpus import capture_checks
from stackaudit.facts.gpus import other_gpu_line, parse_other_vendor_gpus


def test_localai_entrypoint_names_an_intel_gpu() -> None:
    line = "Intel GPU detected, but Intel GPU drivers are not installed. GPU acceleration will not be available."
    assert other_gpu_line(line).startswith("an Intel GPU (LocalAI's AIO entrypoint")


def test_localai_entrypoint_with_an_nvidia_gpu_shows_no_other_vendor_host() -> None:
    # Modelled: the entrypoint's NVIDIA check prints first where lspci shows one.
    text = "NVIDIA GPU detected\nIntel GPU detected\n"
    with pytest.raises(ValueError):
        parse_other_vendor_gpus(text)


def test_intel_only_host_has_no_cuda_or_torch_arch_to_judge() -> None:
    results = capture_checks("1978", "DRV-CUDA-COMPAT", "RT-TORCH-ARCH")
    assert results["DRV-CUDA-COMPAT"].status == "not-applicable"
    assert results["RT-TORCH-ARCH"].status == "not-applicable"
    assert "Intel GPU" in results["RT-TORCH-ARCH"].message


@pytest.mark.parametrize("prefix", ["1079", "1546", "1548"])
def test_other_vendor_hosts_have_no_torch_arch_to_judge(prefix: str) -> None:
    assert capture_checks(prefix, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "not-applicable"


@pytest.mark.parametrize("prefix", ["1255", "1550"])
def test_amd_hosts_keep_torch_arch_open(prefix: str) -> None:
    assert capture_checks(prefix, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "unknown"
