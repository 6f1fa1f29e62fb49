"""Issue 28, FW-VM from aws-ofi-nccl's platform line (facts/serving_logs.py OFI_PLATFORM, ServingLog.ofi_platform):
the plugin names the EC2 instance type it read from DMI's product name, and the topology file it hands NCCL for it.
An instance type of CLOUD_INSTANCES is an EC2 VM (facts/platform.py _ofi_instance); where the plugin hands NCCL its
own file for a type whose GPUs are SXM boards on NVLink (p4d, p4de), the VM costs them nothing (not an issue)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

VM = "FW-VM"

# Real: https://github.com/aws/aws-ofi-nccl/issues/65 (an early release: the family alone, `P4d`).
OFI_65 = ("ip-172-31-6-104:3911:3911 [1] NCCL INFO Bootstrap : Using [0]ens32:172.31.6.104<0>\n"
          "ip-172-31-6-104:3911:3911 [1] NCCL INFO NET/OFI Running on P4d platform, Setting NCCL_TOPO_FILE environment "
          "variable to /usr/local/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n"
          "ip-172-31-6-104:3910:3910 [0] NCCL INFO NET/OFI Running on P4d platform, Setting NCCL_TOPO_FILE environment "
          "variable to /usr/local/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n")
# Real: https://github.com/aws/aws-ofi-nccl/issues/715 (SageMaker's CloudWatch prefix, the type named whole).
OFI_715 = ("  | 2024-12-04T07:19:43.480Z | algo-1:18569:18641 [7] NCCL INFO NET/OFI Running on p4d.24xlarge platform, "
           "Setting NCCL_TOPO_FILE environment variable to /usr/local/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n"
           "  | 2024-12-04T07:19:43.480Z | algo-1:18569:18641 [7] NCCL INFO NET/OFI Internode latency set at 75.0 us\n"
           "  | 2024-12-04T07:19:43.480Z | algo-1:18564:18638 [2] NCCL INFO NET/OFI Selected Provider is efa "
           "(found 4 nics)\n")
# Real: https://github.com/aws/aws-ofi-nccl/issues/889.
OFI_889 = ("ip-10-36-22-140:81:2504 [0] NCCL INFO NET/OFI Running on p4d.24xlarge platform, Setting NCCL_TOPO_FILE "
           "environment variable to /opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n"
           "ip-10-36-22-140:81:2504 [0] NCCL INFO NET/OFI Internode latency set at 75.0 us\n"
           "ip-10-36-22-140:81:2504 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)\n")


@pytest.mark.parametrize("log", [OFI_65, OFI_715, OFI_889])
def test_the_plugins_platform_line_names_a_p4d_vm_whose_topology_nccl_is_given(tmp_path: Path, log: str) -> None:
    result = paste_checks(tmp_path, log, VM)[VM]
    assert result.status == "not-an-issue", result.message
    assert "virtual machine (amazon), an EC2 p4d.24xlarge" in result.message


def test_1696_sixteen_p4d_nodes_in_containers() -> None:
    # Corpus 1696: both readers read not-an-issue (EC2 guests whose NCCL plans over the plugin's topology file).
    result = capture_checks("1696", VM)[VM]
    assert result.status == "not-an-issue" and "p4d-24xl-topo.xml" in " ".join(result.evidence), result.message


def test_a_topology_file_the_job_set_itself_says_the_vm_and_no_more(tmp_path: Path) -> None:
    """Modelled on the plugin's other form: NCCL_TOPO_FILE already set (corpus 773's hand-made file for VMware VMs)."""
    log = ("node-1:81:2504 [0] NCCL INFO NET/OFI Running on p4d.24xlarge platform, NCCL_TOPO_FILE environment "
           "variable is already set to /mnt/nfs/vm_topo_mod.xml\n")
    result = paste_checks(tmp_path, log, VM)[VM]
    assert result.status == "unknown" and "virtual machine (amazon)" in result.message, result.message


def test_a_platform_without_nvlink_keeps_p2p_open(tmp_path: Path) -> None:
    """Modelled: the plugin's g5.48xlarge file places the A10Gs, which have no P2P between them (CLOUD_ONLY_GPUS)."""
    log = ("ip-10-0-0-5:81:2504 [0] NCCL INFO NET/OFI Running on g5.48xlarge platform, topology file "
           "/opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/g5.48xl-topo.xml\n")
    result = paste_checks(tmp_path, log, VM)[VM]
    assert result.status != "not-an-issue" and "virtual machine (amazon)" in result.message, result.message


@pytest.mark.parametrize("product", ["c5n.metal", "PowerEdge R750xa"])
def test_a_metal_type_or_a_server_board_is_no_vm(tmp_path: Path, product: str) -> None:
    """Modelled: the plugin prints whatever DMI's product name says; a `.metal` type or a server's model is no VM."""
    log = (f"node-1:81:2504 [0] NCCL INFO NET/OFI Running on {product} platform, NCCL_TOPO_FILE environment "
           "variable is already set to /etc/nccl/topo.xml\n")
    assert "virtual machine (" not in paste_checks(tmp_path, log, VM)[VM].message
