"""Issue 28, FW-VM from a hypervisor's, a cloud's or a managed Kubernetes service's name beside a guest's word in the
user's words (facts/platform.py PLATFORM_NAMES, read as rows of PLATFORM_WORDS): `VM in proxmox`, `in GKE cluster`,
`AWS Instance:`. A question, a plan, a wish, a comparison, a hypervisor's own host or a bare-metal type states nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.platform import (
    gpus_from_instance_type,
    platform_words,
    stated_instances,
    virtualization_from_user_words,
)

VM = "FW-VM"


@pytest.mark.parametrize(("line", "vm"), [
    # Real: mudler/LocalAI#6928 (corpus 1430), the issue form's environment answer.
    ("VM in proxmox with vgpu passed.", "kvm"),
    # Real: vllm-project/vllm#17676 (corpus 330).
    ("I'm facing this issue in GKE cluster with 1 GPU a100", "google"),
    # Real: NVIDIA/TensorRT-LLM#9680 (corpus 275), beside its instance type.
    ("AWS Instance: g6e.12xlarge (4xl40s)", "amazon"),
    # Modelled hardware lists of the class.
    ("- Platform: Proxmox VM (q35, OVMF), GPU passthrough", "kvm"),
    ("Machine: OVH VM with one Tesla V100S", "vm"),
    ("Running on an Azure GPU VM", "microsoft"),
    ("Ubuntu 22.04 guest on VMware ESXi 7 with a GRID vGPU", "vmware"),
    ("Our workers run on EKS nodes with 8 GPUs each", "amazon"),
    # Real: ollama/ollama#17069 (corpus 2248), the hypervisor's host and the guest its GPU is passed into (h101a).
    ("Also a Proxmox host with an RTX5090 passed into a Ubuntu 26.04 VM.", "kvm"),
    # Modelled on the same form.
    ("ESXi host with a Tesla T4 passed through to the Windows VM", "vmware"),
    ("Proxmox server, 3090 passthrough to my Debian VM", "kvm"),
])
def test_a_guest_of_a_named_platform_states_the_vm(line: str, vm: str) -> None:
    row = platform_words(line)
    assert row is not None and row.vm == vm, row


@pytest.mark.parametrize("line", [
    # Real: keylase/nvidia-patch#251, a question and a wish.
    "Does this patch work in proxmox KVM or ESXI?",
    "And I want to launch one VM with one GPU each.",
    # Real: btbtyler09/mi100-llm-testing#7, a plan.
    "When I move from a workstation to the server i'm planning I will probably be using proxmox",
    # Real: NVIDIA/nvidia-docker#485, a requirement of a planned system.
    "We need it to work within a Virtual Environment like ESXi.",
    # Modelled: the hypervisor's own host, a container on it, a comparison, a bare-metal type, a template's examples.
    "Proxmox host with 4 GPUs, the LLM runs in an LXC container",
    "It works in a Proxmox VM but not on the workstation",
    "an AWS EC2 c5.metal instance",
    "* K8s Flavor/Version(e.g. K8s, OCP, Rancher, GKE, EKS): kind (kube 1.27)",
    # Modelled (h101a): a GPU passed into a container, a GPU not passed, a guest with no hypervisor named.
    "Proxmox host with a 3090 passed into an LXC container",
    "Proxmox host, but the GPU is not passed into the VM",
    "I passed the GPU into a VM",
])
def test_mentions_of_a_platform_state_nothing(line: str) -> None:
    assert platform_words(line) is None


def test_the_words_make_the_vm_with_the_named_platform() -> None:
    found = virtualization_from_user_words("VM in proxmox with vgpu passed.\n")
    assert found.vm == "kvm" and "Proxmox VE guest" in found.source


def test_1430_a_proxmox_guest_with_its_vgpu_table_cut_stays_open() -> None:
    # Corpus 1430: the guest is the user's words, and the table is cut before its GPU rows: what the VM costs is open.
    result = capture_checks("1430", VM)[VM]
    assert result.status == "unknown" and "virtual machine (kvm)" in result.message, result.message


def test_a_gke_pod_of_one_gpu_loses_nothing() -> None:
    """Corpus 330's words and a modelled pod given one GPU: a VM whose workload uses one GPU is not an issue."""
    result = capture_checks("330", VM)[VM]
    assert result.status == "not-an-issue" and "virtual machine (google)" in result.message, result.message


def test_a_stated_guest_with_two_gpus_stays_open(tmp_path: Path) -> None:
    """Modelled: a Proxmox guest in a hardware list with two GPUs and nothing shown of their P2P."""
    text = "Hardware:\n- Proxmox VM, 2x RTX 3090 passed through\n- Ubuntu 22.04\n"
    result = paste_checks(tmp_path, text, VM)[VM]
    assert result.status == "unknown" and "virtual machine (kvm) with 2 GPUs" in result.message, result.message


@pytest.mark.parametrize("text", [
    # Modelled counter-examples of an instance type the words do not state as this host: a question, a plan, a wish,
    # a condition.
    "Would a g5.12xlarge be enough for this model?",
    "I plan to move to a p4d.24xlarge next month",
    "We want to try it on a g6e.12xlarge",
    "If I use a g5.48xlarge instead, it should work",
])
def test_an_instance_type_asked_or_planned_names_no_machine(text: str) -> None:
    assert stated_instances(text) == []
    with pytest.raises(ParseError):
        virtualization_from_user_words(text + "\n")
    with pytest.raises(ParseError):
        gpus_from_instance_type(text + "\n")


def test_an_instance_type_stated_names_the_vm_and_its_gpus() -> None:
    # Real: NVIDIA/nccl#1298 (corpus 215).
    text = "These tests have been conducted on an AWS g5.48xlarge instance which has 8 x A10G GPUs\n"
    assert virtualization_from_user_words(text).vm == "amazon"
    assert gpus_from_instance_type(text).count == 8


def test_a_negation_of_something_else_keeps_the_instance() -> None:
    # Corpus 1580 (aws/aws-k8s-tester): the negation is of GPUDirect RDMA, not of the machine.
    line = ("mpi_test.go:137: GPU Direct RDMA is not utilized for inter-node communication in NCCL tests on instances "
            "that support GDRDMA: p5.48xlarge")
    assert [name for name, _ in stated_instances(line)] == ["p5.48xlarge"]


def test_2248_a_proxmox_guest_with_its_one_gpu_loses_nothing() -> None:
    """Corpus 2248 (h101a): `a Proxmox host with an RTX5090 passed into a Ubuntu 26.04 VM`, and the nvidia-smi its
    `docker run --gpus all` prints lists that one GPU: a guest of one passed-through GPU (both readers)."""
    result = capture_checks("2248", VM)[VM]
    assert result.status == "not-an-issue", result.message
    assert "virtual machine (kvm) with 1 GPU" in result.message, result.message


def test_a_proxmox_guest_stated_so_with_two_gpus_stays_open(tmp_path: Path) -> None:
    """Modelled counter-example on 2248's words: the same statement with two GPUs passed in, nothing of their P2P."""
    text = "Also a Proxmox host with 2x RTX 3090 passed into a Ubuntu 24.04 VM.\n"
    result = paste_checks(tmp_path, text, VM)[VM]
    assert result.status == "unknown" and "virtual machine (kvm)" in result.message, result.message


@pytest.mark.parametrize(("line", "vm"), [
    # Real: bottlerocket-os/bottlerocket-kernel-kit#456 (corpus 2280), the PR's testing notes.
    ("  - Built kit and `aws-k8s-1.32-nvidia` variant (kernel 6.1).", "amazon"),
    # Modelled on Bottlerocket's variant names (https://bottlerocket.dev/en/os/latest/#/concepts/variants/).
    ("Nodes run the aws-ecs-2-nvidia variant", "amazon"),
    ("We boot vmware-k8s-1.30 on our vSphere cluster", "vmware"),
    ("The rack runs metal-k8s-1.29", "none"),
])
def test_a_bottlerocket_variant_names_its_platform(line: str, vm: str) -> None:
    words = platform_words(line)
    assert words is not None and words.vm == vm and "Bottlerocket" in words.what, line


@pytest.mark.parametrize("line", [
    "Switched from aws-k8s-1.30 to metal-k8s-1.30 instead",  # a comparison: which one runs is not stated
    "aws-k8s-1.32-nvidia on a g4dn.metal",  # an EC2 bare-metal type
    "Installed the aws-k8s-cni plugin",  # no variant: a component's name
])
def test_other_words_of_a_variant_state_no_vm(line: str) -> None:
    words = platform_words(line)
    assert words is None or "Bottlerocket" not in words.what, line


def test_2280_an_ec2_variant_with_its_one_gpu_shown_loses_nothing() -> None:
    """Corpus 2280: Bottlerocket's aws-k8s variant (an EC2 instance) and nvidia-smi's table cut after GPU 0: one GPU
    shown, no pair whose P2P the VM could hide (both readers: not an issue, 1 GPU shown)."""
    r = capture_checks("2280", VM)[VM]
    assert r.status == "not-an-issue" and "amazon" in r.message, r.message
    assert r.coverage is not None and r.coverage.shown == ("GPU 0 (0000:33:00.0)",) and r.coverage.at_least
