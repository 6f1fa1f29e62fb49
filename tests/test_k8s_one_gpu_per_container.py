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


# --- a `kubectl describe pod` cut after its containers (K8S_DESCRIBED_CONTAINERS_MARK) -----------------------------

TOPOLOGY = "CTR-K8S-GPU-TOPOLOGY"
# Real: fr8r/fr8r-ansible#118 (issue body by Frugghi, 2016-09-08), `kubectl describe -f Resources/test_pod.yaml`
# verbatim, tabs kept: its containers end at `Conditions:`, and it stops at the old `QoS Tier:` line, before Events.
FR8R_DESCRIBE = (
    "Name:\t\tkubectl-web-test\nNamespace:\tstest1-default\nNode:\t\t192.168.10.3/192.168.10.3\n"
    "Start Time:\tWed, 07 Sep 2016 23:39:40 +0000\nLabels:\t\tapp=web-ms-demo\n\t\ttest_id=web-test\n"
    "Status:\t\tPending\nIP:\t\t\nControllers:\t<none>\nContainers:\n  kube-web-server:\n    Container ID:\t\n"
    "    Image:\t\tmrsabath/web-ms:v3\n    Image ID:\t\t\n    Port:\t\t80/TCP\n    Limits:\n      cpu:\t400m\n"
    "      memory:\t128Mi\n    Requests:\n      cpu:\t\t200m\n      memory:\t\t64Mi\n    State:\t\tWaiting\n"
    "      Reason:\t\tContainerCreating\n    Ready:\t\tFalse\n    Restart Count:\t0\n    Environment Variables:\n"
    "      TEST:\tweb-test\nConditions:\n  Type\t\tStatus\n  Initialized \tTrue \n  Ready \tFalse \n"
    "  PodScheduled \tTrue \nVolumes:\n  default-token-0t1lm:\n    Type:\tSecret (a volume populated by a Secret)\n"
    "    SecretName:\tdefault-token-0t1lm\nQoS Tier:\tBurstable\n")


def test_a_described_pod_cut_after_its_containers_asks_no_gpu_2189(tmp_path: Path) -> None:
    """kubectl prints each container's Limits and Requests in full: a description that reaches the section after its
    containers (Conditions, Volumes) shows them whole, so no nvidia.com/gpu among them is no GPU asked, whatever the
    paste cuts later. Real: corpus 2189 (ddps-lab/edge-management-module#3, cut inside its Volumes; both readers
    not-applicable) and fr8r/fr8r-ansible#118 (CPU and memory limits only)."""
    result = capture_checks("2189", TOPOLOGY)[TOPOLOGY]
    assert result.status == "not-applicable" and "test1" in result.message, result.message
    result = paste_checks(tmp_path, FR8R_DESCRIBE, TOPOLOGY)[TOPOLOGY]
    assert result.status == "not-applicable" and "kube-web-server" in result.message, result.message


def test_a_described_pod_cut_inside_its_containers_or_asking_gpus_stays_open(tmp_path: Path) -> None:
    """Modelled on fr8r's description: cut inside its container (before Conditions), a later field of the container
    could hold a GPU limit; with `nvidia.com/gpu: 2` among its limits it asks for GPUs the node's topology places.
    A `containers:` list pasted alone (corpus 1405, a vLLM pod on a T4 whose list shows no `resources:`) is a poster's
    trimmed keys: its GPU request may be left out."""
    cut = FR8R_DESCRIBE[:FR8R_DESCRIBE.index("    Requests:")]
    assert paste_checks(tmp_path, cut, TOPOLOGY)[TOPOLOGY].status == "unknown"
    gpus = FR8R_DESCRIBE.replace("      memory:\t128Mi\n", "      memory:\t128Mi\n      nvidia.com/gpu:\t2\n", 1)
    result = paste_checks(tmp_path, gpus, TOPOLOGY)[TOPOLOGY]
    assert result.status == "unknown" and "kube-web-server: 2" in result.message, result.message
    assert capture_checks("1405", TOPOLOGY)[TOPOLOGY].status == "unknown"


# The Deployment of corpus 2581 (triton-inference-server/server#4761), cut before its resources, read beside the user's
# words of one GPU to each replica, or without them: only the words close the count.
def _cut_deployment() -> str:
    from corpus import CAPTURES_DIR
    body = next(CAPTURES_DIR.glob("2581-*.txt")).read_text().split("-----\n", 1)[1].splitlines()
    return "```\n" + "\n".join(body[15:43]) + "\n"  # cut as the thread is, its fence left open


def test_stated_one_gpu_each() -> None:
    from stackaudit.facts.k8s_pods import stated_one_gpu_each
    assert stated_one_gpu_each("deploy NVIDIA triton service with 4 replicas in this server with 1 GPU each, 3 pods")
    assert stated_one_gpu_each("i have one pytorchjob with 4 pods, every pod has one gpu, there are in the same host")
    assert not stated_one_gpu_each("How do I give each pod one GPU?")
    assert not stated_one_gpu_each("4 replicas with 2 GPUs each")


def test_one_gpu_each_in_the_users_words_closes_a_cut_manifest(tmp_path: Path) -> None:
    check = "CTR-K8S-GPU-TOPOLOGY"
    said = "Deploying triton with 4 replicas in this server with 1 GPU each.\n\n"
    assert paste_checks(tmp_path, said + _cut_deployment(), check)[check].status == "not-applicable"
    assert paste_checks(tmp_path, _cut_deployment(), check)[check].status == "unknown"
    assert capture_checks("2581", check)[check].status == "not-applicable"
