"""CTR-K8S-GPU-TOPOLOGY: a pasted pod spec whose every container asks for one GPU has nothing to place.

The check judges whether the GPUs one container gets are P2P/NVLink-connected. A container's processes see only
the GPUs it asked for, so where each GPU-asking container of a pasted spec asks for exactly one, no container has
GPUs to place against each other: not applicable. Two or more in one container, or a count the spec does not
show, leave it open (the node's topology is not in a spec).
Real specs are corpus captures (their headers name the public threads); the counter-example is modelled.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks


@pytest.mark.parametrize("prefix", [
    "345",  # NVIDIA/k8s-device-plugin#71: two containers, one GPU each
    "273",  # NVIDIA/k8s-device-plugin#145: one container, one GPU
    "330",  # vllm-project/vllm#17676: a vLLM batch job asking one GPU
    "172",  # ray-project/ray#12881: a Ray worker asking one GPU
])
def test_one_gpu_per_container_is_not_applicable(prefix: str) -> None:
    result = capture_checks(prefix, "CTR-K8S-GPU-TOPOLOGY")["CTR-K8S-GPU-TOPOLOGY"]
    assert result.status == "not-applicable", result.message
    assert "one GPU per container" in result.message


def test_a_container_asking_two_gpus_stays_open(tmp_path: Path) -> None:
    # Modelled: 345's pod with its second container asking for two GPUs.
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu-pod\nspec:\n  containers:\n"
            "  - name: cuda-container\n    image: nvidia/cuda:9.0-devel\n    resources:\n      limits:\n"
            "        nvidia.com/gpu: 1\n"
            "  - name: digits-container\n    image: nvidia/digits:6.0\n    resources:\n      limits:\n"
            "        nvidia.com/gpu: 2\n")
    result = paste_checks(tmp_path, text, "CTR-K8S-GPU-TOPOLOGY")["CTR-K8S-GPU-TOPOLOGY"]
    assert result.status == "unknown"
    assert "digits-container: 2" in result.message
