"""Issue 28, FW-VM from what the capture implies (h72d): a guest whose driver refuses peer access between its GPUs is
the VM costing the workload its peer path (issue), a multi-GPU guest with no P2P reading stays open; the hypervisor
host that hands out vGPUs is bare metal (ok), its kernel log's vGPU scheduler line names it; a Linux report of a
driver number only Windows drivers carry is WSL 2's."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.fw import vm
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.peer_access import PeerRefusals, find_refusals
from stackaudit.facts.platform import (
    Virtualization,
    cloud_hostname,
    windows_only_driver,
    wsl_report_driver,
)
from stackaudit.facts.topology import parse_p2p_matrix

# Real: https://github.com/NVIDIA/nccl/issues/1214 ("Cannot use P2P in Azure GPU cluster"), the NCCL log of a
# four-GPU Azure VM: NCCL's topology puts the pair within its P2P level and the driver says no.
AZURE_NCCL = """\
e2bd2729de1e4961bccb1c0d6311f3a4000001:349:2588 [0] NCCL INFO comm 0x9ffe0160 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 100000 commId 0x1e29799c32293b9b - Init START
e2bd2729de1e4961bccb1c0d6311f3a4000001:349:2588 [0] NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
e2bd2729de1e4961bccb1c0d6311f3a4000001:349:2588 [0] NCCL INFO Could not enable P2P between dev 1(=200000) and dev 0(=100000)
"""
# Real: https://github.com/NVIDIA/TensorRT-LLM/issues/2225, TensorRT-LLM's IPC set-up on four GPUs of one node.
TRTLLM_IPC = """\
[TensorRT-LLM][INFO] TP group is intra-node for rank 0
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 896.10 MiB for execution context memory.
[TensorRT-LLM][INFO] cudaDeviceCanAccessPeer failed for device: 0 peerDevice: 1
[TensorRT-LLM][INFO] cudaDeviceCanAccessPeer failed for device: 3 peerDevice: 0
"""
# Real: corpus 1503 (https://github.com/NVIDIA-NeMo/RL/issues/1683), an EC2 g6.48xlarge's `nvidia-smi topo -p2p r`, its
# host name redacted by the user to ip-X-X-X-X; cut here to the prompt and four rows.
G6_P2P = """\
(base) [ec2-user@ip-X-X-X-X ~]$ nvidia-smi topo -p2p r
 \tGPU0\tGPU1\tGPU2\tGPU3\t
 GPU0\tX\tNS\tNS\tNS\t
 GPU1\tNS\tX\tNS\tNS\t
 GPU2\tNS\tNS\tX\tNS\t
 GPU3\tNS\tNS\tNS\tX\t
"""
# Real: https://github.com/akb486/vgpu (README, `dmesg` of a Proxmox vGPU host): the scheduler line NVIDIA's resource
# manager prints only under the vGPU hypervisor (open-gpu-kernel-modules, kernel_sched_mgr.c).
VGPU_HOST_DMESG = """\
[    4.378677] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.01  Wed Oct 11 10:20:43 UTC 2023
[    5.016865] NVRM: GPU at 0000:01:00.0 has software scheduler DISABLED with policy BEST_EFFORT.
[    5.670781] nvidia 0000:01:00.0: MDEV: Registered
"""


def test_trtllm_ipc_refusal_is_read() -> None:
    found = find_refusals(TRTLLM_IPC.splitlines())
    assert [(r.a, r.b, r.said_by) for r in found] == [(0, 1, "CUDA"), (3, 0, "CUDA")]


def test_a_vm_whose_driver_refuses_peer_access_is_an_issue() -> None:
    # The refusals of nccl#1214's Azure VM, judged with the VM the thread names (modelled: the paste's host name is an
    # Azure ML compute node's, which no source here reads as a VM).
    refusals = PeerRefusals(find_refusals(AZURE_NCCL.splitlines()))
    result = vm(Virtualization("microsoft", "modelled: an Azure VM"), peer_refusals=refusals)
    assert result.status == "issue", result.message
    assert "refuses peer access" in result.message and "devices 1 and 0" in result.message


def test_a_refusal_the_matrix_contradicts_stays_open() -> None:
    # Modelled: the matrix says OK for the pair a log refused: no refusal to judge, a VM with no other reading.
    matrix = parse_p2p_matrix(" \tGPU0\tGPU1\t\n GPU0\tX\tOK\t\n GPU1\tOK\tX\t\n", "r")
    refusals = PeerRefusals(find_refusals(AZURE_NCCL.splitlines()))
    result = vm(Virtualization("microsoft", "modelled: an Azure VM"), peer_refusals=refusals, gpu_p2p=matrix)
    assert result.status != "issue", result.message


def test_an_ec2_name_with_its_octets_hidden_still_names_ec2() -> None:
    row = cloud_hostname("ip-X-X-X-X")
    assert row is not None and row.vm == "amazon"
    assert cloud_hostname("ip-10-0-0-73") is not None
    assert cloud_hostname("ip-X-Y") is None


def test_the_g6_matrix_under_an_ec2_prompt_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, G6_P2P, "FW-VM")["FW-VM"]
    assert result.status == "issue", result.message
    assert "virtual machine (amazon)" in result.message and "NS for every pair of its 4 GPUs" in result.message


@pytest.mark.parametrize(("capture", "status"), [
    ("1503", "issue"),  # EC2 g6.48xlarge, topo -p2p r and w all NS
    ("1629", "issue"),  # WSL 2 in the user's words, TensorRT-LLM's cudaDeviceCanAccessPeer refusal
    ("1078", "issue"),  # EC2 g6, the torch copy that arrived as zeros (the data test comes first)
    ("1504", "ok"),  # the vGPU host's kernel log
    ("1488", "ok"),  # the vGPU host driver's `vGPU Driver Capability`
    ("1018", "not-an-issue"),  # check_env's CUDA Driver Version 577.00 under a GCC-built Python: WSL 2, one GPU
])
def test_corpus_readings(capture: str, status: str) -> None:
    result = capture_checks(capture, "FW-VM")["FW-VM"]
    assert result.status == status, result.message


def test_the_vgpu_host_scheduler_line_is_bare_metal(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VGPU_HOST_DMESG, "FW-VM")["FW-VM"]
    assert result.status == "ok", result.message
    assert "software scheduler DISABLED with policy BEST_EFFORT" in result.message


@pytest.mark.parametrize(("version", "windows"), [
    ("577.00", True), ("551.76", True), ("536.23", True), ("572.16", True),
    ("575.57.08", False), ("580.105.08", False), ("550.90.07", False), ("418.87", False), ("", False),
])
def test_windows_only_driver_numbers(version: str, windows: bool) -> None:
    assert windows_only_driver(version) is windows


def test_a_report_of_a_windows_driver_is_wsl_only_under_a_linux_python() -> None:
    linux = CollectEnv("sglang", "sglang", driver_version="577.00",
                       values={"Python": "3.10.12 (main, May 27 2025, 17:12:29) [GCC 11.4.0]"})
    assert "WSL 2 kernel" in wsl_report_driver(linux)
    # Modelled: Windows' own CPython (MSC), whose report sees the same driver without any VM.
    windows = CollectEnv("vllm", "new", driver_version="577.00",
                         values={"Python version": "3.11.9 (tags/v3.11.9:de54cf5, Apr  2 2024, 10:12:12) "
                                                   "[MSC v.1938 64 bit (AMD64)] (64-bit runtime)"})
    assert wsl_report_driver(windows) == ""
    assert wsl_report_driver(CollectEnv("sglang", "sglang", driver_version="575.57.08", values=linux.values)) == ""
