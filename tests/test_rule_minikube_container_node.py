"""A minikube node run as a container with no GPU (blind batch YH, corpus 1345).

minikube's docker and podman drivers run the Kubernetes node as a container of the host's runtime; without `--gpus`
its pods cannot be handed a GPU, whatever the host's containerd or Docker is set to (facts/container.MINIKUBE_START,
checks/ctr.py CTR-GPU-ACCESS). The command lines are real, from the public thread named beside each; what is modelled
around them is said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container import minikube_node

ACCESS = "CTR-GPU-ACCESS"

# NVIDIA/k8s-device-plugin#478 (corpus 1345).
NO_GPUS_478 = "k8s : minikube start --kubernetes-version=v1.25.16 --force --driver=docker"
# kubernetes/minikube#19114: the node then offers no nvidia.com/gpu (Insufficient nvidia.com/gpu).
NO_GPUS_19114 = "minikube start --driver=docker --addons=ingress --addons=nvidia-gpu-device-plugin"
# kubernetes/minikube#20597: the node started with the GPUs.
WITH_GPUS_20597 = ("minikube start --memory=max --driver=docker --container-runtime=docker --gpus=all --force "
                   "--addons=nvidia-device-plugin")
# NVIDIA/k8s-device-plugin#57: the none driver runs the node on the host itself, no container.
NONE_DRIVER_57 = "sudo minikube start --vm-driver=none --feature-gates=Accelerators=true"


def test_a_container_driver_is_read_with_its_gpus_flag() -> None:
    assert minikube_node(NO_GPUS_478) == ("minikube start --kubernetes-version=v1.25.16 --force --driver=docker", False)
    assert minikube_node(NO_GPUS_19114) == (NO_GPUS_19114, False)
    assert minikube_node(WITH_GPUS_20597) == (WITH_GPUS_20597, True)
    assert minikube_node("`minikube start --vm-driver docker`") == ("minikube start --vm-driver docker", False)
    assert minikube_node(NONE_DRIVER_57) is None
    assert minikube_node("minikube start --disk-size 50g --memory 8192 --cpus 4") is None  # minikube#5005: no driver
    assert minikube_node("minikube version: v1.33.1") is None


def test_the_node_container_without_gpus_is_the_issue_of_corpus_1345() -> None:
    result = capture_checks("1345", ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "--driver=docker" in result.message and "--gpus" in result.message


def test_the_issue_holds_for_another_thread(tmp_path: Path) -> None:
    # The command of minikube#19114 above the scheduler's event it quotes.
    text = (NO_GPUS_19114 + "\n\n  Warning  FailedScheduling  45s   default-scheduler  0/1 nodes are available: "
            "1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for "
            "incoming pod.\n")
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "minikube start --driver=docker" in result.message


def test_a_node_started_with_gpus_is_no_such_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, WITH_GPUS_20597 + "\n", ACCESS)[ACCESS]
    assert result.status != "issue"


def test_the_plugin_reaching_nvml_in_the_node_overrides_the_command(tmp_path: Path) -> None:
    # Modelled: the command of #478 above a device plugin log that registered with the kubelet (lines of
    # NVIDIA/gpu-operator#139): the node got the GPUs some other way.
    text = (NO_GPUS_478 + "\n2021/01/28 11:24:35 Loading NVML\n"
            "2021/01/28 11:24:35 Registered device plugin for 'nvidia.com/gpu' with Kubelet\n")
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "ok"
