"""CTR-K8S-GPU-TOPOLOGY over a pasted Kubernetes node whose GPU resources count one device in all
(`nvidia.com/gpu: 1`, facts/k8s_node.K8sNode.most_gpus): no pod on it is handed two GPUs to place against each other,
so not applicable. A node that offers two or more stays open.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Real: https://github.com/NVIDIA/k8s-device-plugin/issues/995 (the issue body, invokerbyxv, 2024-10-16): a node's
# Capacity and Allocatable as `kubectl describe node` prints them.
PLUGIN_995 = """\
Capacity:
  cpu:                80
  ephemeral-storage:  459329648Ki
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             131618692Ki
  nvidia.com/gpu:     1
  pods:               110
Allocatable:
  cpu:                80
  ephemeral-storage:  423318202896
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             131516292Ki
  nvidia.com/gpu:     1
  pods:               110
"""

# Real: https://github.com/Deepomatic/shared-gpu-nvidia-k8s-device-plugin/issues/15 (the issue body, pushkalkatara,
# 2020-02-15): Allocatable alone.
DEEPOMATIC_15 = """\
Allocatable:
  cpu:                        8
  deepomatic.com/shared-gpu:  0
  ephemeral-storage:          137289078148
  hugepages-1Gi:              0
  hugepages-2Mi:              0
  memory:                     7912776Ki
  nvidia.com/gpu:             1
  pods:                       110
"""

# Modelled: the same node offering two GPUs: a pod may be handed both.
TWO_GPUS = PLUGIN_995.replace("nvidia.com/gpu:     1", "nvidia.com/gpu:     2")


def test_one_gpu_node_is_not_applicable(tmp_path: Path) -> None:
    for text in (PLUGIN_995, DEEPOMATIC_15):
        r = paste_checks(tmp_path, text, "CTR-K8S-GPU-TOPOLOGY")["CTR-K8S-GPU-TOPOLOGY"]
        assert r.status == "not-applicable", text
        assert "nvidia.com/gpu" in r.message and "one GPU device" in r.message


def test_two_gpu_node_stays_open(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, TWO_GPUS, "CTR-K8S-GPU-TOPOLOGY")["CTR-K8S-GPU-TOPOLOGY"]
    assert "one GPU device" not in r.message


def test_corpus_1908_time_slicing_node() -> None:
    # NVIDIA/k8s-device-plugin#990 (corpus 1908): one A100 whose node still counts nvidia.com/gpu: 1.
    r = capture_checks("1908", "CTR-K8S-GPU-TOPOLOGY")["CTR-K8S-GPU-TOPOLOGY"]
    assert r.status == "not-applicable"
