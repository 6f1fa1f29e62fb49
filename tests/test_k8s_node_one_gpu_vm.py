"""A Kubernetes node's description says two things of the machine under it:

- a volume limit only a cloud's VM reports (k8s_node.VM_VOLUME_LIMITS: `attachable-volumes-azure-disk`, the Azure
  Disk plugin's count of the VM size's data disks) names an Azure VM, which FW-VM reads;
- GPU resources that count one device in all, with no GFD labels, are one GPU (facts/k8s_node.gpus_from_node_labels),
  and such a node has no NVSwitch fabric (applicability.node_alone), unless a model named may sit on one.

Real pastes: corpus 1958 (NVIDIA/k8s-device-plugin#245, an Azure VMSS node with one nvidia.com/gpu), Azure/AKS#1722
(a Standard_D11_v2 node's `attachable-volumes-azure-disk:  8`), kubernetes-sigs/azuredisk-csi-driver#767 (a worker's
`attachable-volumes-azure-disk:  4`), corpus 1908 (NVIDIA/k8s-device-plugin#990, one nvidia.com/gpu under
time-slicing) and 1945 (NVIDIA/k8s-device-plugin#213). Counter-examples are modelled where marked.
"""

from __future__ import annotations

import pytest

from corpus import capture_checks
from stackaudit.facts.applicability import node_alone
from stackaudit.facts.gpus import GpuInventory, GpuRecord
from stackaudit.facts.k8s_node import GFD_TITLE, RESOURCE_TITLE, gpus_from_node_labels, node_vm

# Azure/AKS#1722, the issue body's describe excerpt (its `...` lines as written).
AKS_1722 = """Capacity:
  attachable-volumes-azure-disk:  8
  ...
Allocatable:
  attachable-volumes-azure-disk:  8
 ...
"""
# kubernetes-sigs/azuredisk-csi-driver#767, the issue body's describe excerpt.
CSI_767 = """Addresses:
  InternalIP:  10.0.64.6
  Hostname:    worker-2-dkkonvoy1azcsi2-c7c2
Capacity:
  attachable-volumes-azure-disk:  4
"""
# Modelled: an EKS node's EBS limit, which EC2's `.metal` instances report too.
EKS_MODELLED = """Capacity:
  attachable-volumes-aws-ebs:  25
  cpu:                         8
  nvidia.com/gpu:              1
"""


@pytest.mark.parametrize("text", [AKS_1722, CSI_767])
def test_azure_disk_limit_names_an_azure_vm(text: str) -> None:
    found = node_vm(text)
    assert found is not None and found[0] == "microsoft"
    assert "attachable-volumes-azure-disk" in found[1]


def test_ebs_limit_names_no_vm() -> None:
    assert node_vm(EKS_MODELLED) is None


def test_one_gpu_device_is_one_gpu_without_a_model() -> None:
    gpus = gpus_from_node_labels(EKS_MODELLED)
    assert gpus.count == 1 and gpus.models == {}


def test_one_gpu_node_has_no_nvswitch_unless_its_model_may_sit_on_one() -> None:
    unnamed = GpuInventory(gpus=(GpuRecord(0, "", "", None, (RESOURCE_TITLE,)),), counts=((RESOURCE_TITLE, 1),))
    assert "one GPU in all" in node_alone(unnamed)
    # Modelled: GFD labels one H100 SXM, a one-GPU VM of an NVSwitch board: left open.
    sxm = GpuInventory(gpus=(GpuRecord(0, "", "H100 SXM", None, (GFD_TITLE,)),), counts=((GFD_TITLE, 1),))
    assert node_alone(sxm) == ""
    # Modelled: a pod's count is its share of the host, not the node's.
    pod = GpuInventory(gpus=(GpuRecord(0, "", "", None, ("a pod",)),), counts=(("a pod", 1),))
    assert node_alone(pod) == ""


def test_one_gpu_azure_node() -> None:
    results = capture_checks("1958", "FW-VM", "DRV-FABRIC-MANAGER")
    assert results["FW-VM"].status == "not-an-issue"
    assert "microsoft" in results["FW-VM"].message
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"


@pytest.mark.parametrize("prefix", ["1908", "1945"])
def test_one_gpu_nodes_need_no_fabric_manager(prefix: str) -> None:
    assert capture_checks(prefix, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"].status == "not-applicable"
