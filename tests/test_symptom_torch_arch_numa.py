"""Two program warnings that prove a check on their own (facts/symptoms.py): PyTorch's warning that a GPU's compute
capability is not in its build (RT-TORCH-ARCH), and llama.cpp's warning that automatic NUMA balancing is on, which it
prints only on a host of several NUMA nodes (KERN-NUMA-BALANCING). The lines are verbatim from the threads named."""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts.symptoms import find_symptoms

# lmoe/wyoming-xtts#1 (a container's torch on an RTX 5060 Ti).
XTTS_1 = """/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:287: UserWarning:
NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
"""
# jackyjsy/CVPR21Chal-SLR#20 (an RTX A5000 under a build up to sm_75).
SLR_20 = """UserWarning:
NVIDIA RTX A5000 with CUDA capability sm_86 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_61 sm_70 sm_75 compute_37.
"""
# ikawrakow/ik_llama.cpp#419 (two Xeons, numa_balancing=1) and PR 337 (a `--numa distribute` run).
IK_419 = """ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected
WARNING: /proc/sys/kernel/numa_balancing is enabled, this has been observed to impair performance
"""
IK_337 = """main: seed  = 12345
WARNING: /proc/sys/kernel/numa_balancing is enabled, this has been observed to impair performance
"""


@pytest.mark.parametrize("text", [XTTS_1, SLR_20])
def test_torchs_capability_warning_proves_the_arch_missing(text: str) -> None:
    r = run_checks(pasted(text), ["RT-TORCH-ARCH"])["RT-TORCH-ARCH"]
    assert r.status == "issue" and "is not compatible with the current PyTorch installation" in r.message


def test_corpus_607_a_compose_log_of_the_warning_is_read_not_refused() -> None:
    """Real: vllm-project/vllm#21633 (corpus 607), the warning behind a compose prefix, refused before."""
    assert capture_checks("607", "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "issue"


def test_corpus_2260_the_warning_cut_after_the_current_pytorch_is_read() -> None:
    """Real: pytorch/pytorch#152077 (corpus 2260), the stored copy cut inside the warning's first sentence
    (`... is not compatible with the current PyTorch ins`): the sentence names the warning, and its GPU is read."""
    r = capture_checks("2260", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "issue" and "sm_120" in r.message, r.message
    gpus = fact(pasted(body("2260")), "gpus")
    assert [g.model for g in gpus.listed] == ["NVIDIA GeForce RTX 5090"]
    cut = XTTS_1.replace("PyTorch installation.", "PyTorch")
    assert [h.symptom.name for h in find_symptoms(cut.splitlines())] == ["torch-arch-missing"]


def test_modelled_another_package_not_compatible_with_pytorch_is_no_warning() -> None:
    """Modelled: a package's own incompatibility with torch names no GPU capability."""
    for line in ("torchvision 0.15.2 is not compatible with the current PyTorch installation.",
                 "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorchLightning"):
        assert not find_symptoms([line])


def test_the_supported_list_alone_proves_nothing() -> None:
    """Modelled: torch's list of capabilities without the warning line names no GPU that lacks kernels."""
    text = "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
    assert not find_symptoms(text.splitlines())


@pytest.mark.parametrize("text", [IK_419, IK_337])
def test_llama_cpps_numa_balancing_warning_proves_it_on(text: str) -> None:
    r = run_checks(pasted(text), ["KERN-NUMA-BALANCING"])["KERN-NUMA-BALANCING"]
    assert r.status == "issue" and "numa_balancing is enabled" in r.message


def test_corpus_572_the_warning_under_llama_cpps_server() -> None:
    """Real: ggml-org/llama.cpp#3230 (corpus 572, three P40s, `./server --numa`)."""
    assert capture_checks("572", "KERN-NUMA-BALANCING")["KERN-NUMA-BALANCING"].status == "issue"


def test_a_numa_balancing_value_of_zero_is_no_symptom() -> None:
    """Modelled: the sysctl printed as 0 is no warning line."""
    assert not find_symptoms(["kernel.numa_balancing = 0"])
