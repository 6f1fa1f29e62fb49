"""FW-VM from the GPUs shown: a pasted lspci's GPU on bus 00 says VM; an excerpt's one GPU is not "the only GPU".

- The GPU functions of a pasted `lspci` are GPU-inventory records (BDF, NUMA node), so a GPU on bus 00 of its
  domain, where only a hypervisor's virtual root complex puts a PCIe card, says virtual machine.
- "No GPU pair to lose P2P between" needs the host's GPU count: a VM whose excerpt shows one GPU (a table cut inside
  its rows, one device's lspci) stays unknown and names the missing part; a whole listing of one GPU is not-an-issue.
- A table that ends at the border after GPU 0's rows, before its Processes box, is read as the VM's listing (the blind
  readers of 376, 648, 939, 1119, 1228 and 1229): not-an-issue, unless another source states more GPUs (904's Azure
  size) or an index it shows proves one it leaves out (GPU 1 alone proves two).
- An excerpt's `Minor Number: N` (/dev/nvidiaN, numbered from 0 as the GPUs probe) proves N+1 GPUs: no longer one.

The pastes are corpus files (their header names the public thread) and a snippet from the thread named beside it;
the counter-example marked modelled is written for the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks

# https://github.com/NVIDIA/deepops/issues/291 (yusuke0324): a bare-metal host's GPUs behind root ports (buses 17, 65).
DEEPOPS_291 = """\
$lspci -nnk -d 10de:1b06
17:00.0 VGA compatible controller [0300]: NVIDIA Corporation GP102 [GeForce GTX 1080 Ti] [10de:1b06] (rev a1)
\tSubsystem: Device [196e:1211]
\tKernel driver in use: nvidia
\tKernel modules: nvidiafb, nouveau, nvidia_410_drm, nvidia_410
65:00.0 VGA compatible controller [0300]: NVIDIA Corporation GP102 [GeForce GTX 1080 Ti] [10de:1b06] (rev a1)
\tSubsystem: Device [196e:1211]
\tKernel driver in use: nvidia
\tKernel modules: nvidiafb, nouveau, nvidia_410_drm, nvidia_410
"""
# Modelled (not from a thread): a VM's `nvidia-smi -q` excerpt, one GPU section without its header, minor number 3.
MODELLED_MINOR_3 = """\
    Product Name                          : Tesla T4
    Product Brand                         : NVIDIA
    Persistence Mode                      : Enabled
    Minor Number                          : 3
    VBIOS Version                         : 90.04.96.00.02
    GPU Virtualization Mode
        Virtualization Mode               : Pass-Through
        Host VGPU Mode                    : N/A
"""


@pytest.mark.parametrize("prefix", ["504", "255"], ids=["cloud-hypervisor-4353", "kata-vfio"])
def test_lspci_gpu_on_bus_00_is_a_vm(prefix: str) -> None:
    # 504: cloud-hypervisor/cloud-hypervisor#4353, `lspci -v` of the guest's one GPU (an excerpt: more may follow);
    # 255: a Kata VM whose nvidia-smi stops at the one GPU it cannot open (GPUs after it are not shown). The blind
    # readings judge a VM over the one GPU its sources show (h61f: 32 of 37), naming the cut.
    r = capture_checks(prefix, "FW-VM")["FW-VM"]
    assert r.status == "not-an-issue" and "virtual machine" in r.message and "1 GPU shown" in r.message, r.message


def test_a_table_cut_inside_a_gpus_rows_is_judged_over_the_gpu_shown() -> None:
    # Corpus 507: an EC2 T4, the table cut inside GPU 0's rows: judged over GPU 0, the cut named.
    r = capture_checks("507", "FW-VM")["FW-VM"]
    assert r.status == "not-an-issue" and "not in this source" in r.message, r.message


@pytest.mark.parametrize("prefix", ["376", "648", "939", "1228", "1229"])
def test_a_table_ending_after_gpu_0s_rows_is_the_vms_one_gpu(prefix: str) -> None:
    # The table ends at the border after GPU 0's rows, before its Processes box: WSL 2 (376), cloud VMs (648, 939,
    # 1228, 1229). No source shows another GPU, so the VM's one GPU has no peer to lose P2P to.
    r = capture_checks(prefix, "FW-VM")["FW-VM"]
    assert r.status == "not-an-issue" and "with 1 GPU" in r.message, (prefix, r.message)


def test_a_table_ending_after_a_gpus_rows_yields_to_a_source_that_states_more() -> None:
    # Corpus 904: the same shape, beside the user's "VM node:  Standard NC96ads A100 v4", a size of four A100s.
    r = capture_checks("904", "FW-VM")["FW-VM"]
    assert r.status == "unknown" and "4 GPUs" in r.message, r.message


def test_a_table_ending_after_gpu_1_alone_proves_two(tmp_path: Path) -> None:
    # Modelled from corpus 1229 (a GCP T4 VM): its one GPU renumbered 1, so the table shows GPU 1 and not GPU 0.
    text = body("1229").replace("|   0  Tesla T4", "|   1  Tesla T4")
    assert "|   1  Tesla T4" in text
    r = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert r.status == "unknown" and "not in this source" in r.message, r.message


def test_minor_number_proves_more_gpus_than_the_excerpt_shows(tmp_path: Path) -> None:
    # Corpus 118: one A100 section of `nvidia-smi -q` in a pass-through VM, Minor Number 5: six GPUs at least.
    assert capture_checks("118", "FW-VM")["FW-VM"].status == "unknown"
    r = paste_checks(tmp_path, MODELLED_MINOR_3, "FW-VM")["FW-VM"]
    assert r.status == "unknown" and "4 GPUs" in r.message, r.message


def test_lspci_gpus_behind_root_ports_say_no_vm(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, DEEPOPS_291, "FW-VM")["FW-VM"]
    assert r.status == "unknown", r.message
    assert "no source tells whether this is a virtual machine" in r.message
