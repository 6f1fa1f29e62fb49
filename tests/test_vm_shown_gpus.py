"""FW-VM over the GPUs shown: a pasted lspci's GPU on bus 00 says VM, and an excerpt's one GPU is judged as shown.

- The GPU functions of a pasted `lspci` are GPU-inventory records (BDF, NUMA node), so a GPU on bus 00 of its
  domain, where only a hypervisor's virtual root complex puts a PCIe card, says virtual machine.
- A VM whose excerpt shows one GPU is not-an-issue with the coverage `1 GPU shown` (checks/registry.over_subjects).
- An excerpt's `Minor Number: N` (/dev/nvidiaN, numbered from 0 as the GPUs probe) proves N+1 GPUs: no longer one.

The pastes are corpus files (their header names the public thread) and a snippet from the thread named beside it;
the counter-example marked modelled is written for the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

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


@pytest.mark.parametrize(("prefix", "bdf"), [
    ("504", "0000:00:03.0"),  # cloud-hypervisor/cloud-hypervisor#4353: `lspci -v` of the guest's GPU
    ("255", "0000:00:08.0"),  # a Kata VM's vfio GPU in `lspci`
], ids=["cloud-hypervisor-4353", "kata-vfio"])
def test_lspci_gpu_on_bus_00_is_a_vm_with_one_gpu_shown(prefix: str, bdf: str) -> None:
    r = capture_checks(prefix, "FW-VM")["FW-VM"]
    assert r.status == "not-an-issue", r.message
    assert r.coverage is not None and len(r.coverage.shown) == 1 and r.coverage.total is None


def test_cut_nvidia_smi_table_of_one_gpu_is_judged_as_shown() -> None:
    # Corpus 507 (an EC2 T4 at 00000000:00:1E.0, the table cut inside GPU 0's rows) and 376 (WSL2 in the user's words).
    for prefix in ("507", "376"):
        r = capture_checks(prefix, "FW-VM")["FW-VM"]
        assert r.status == "not-an-issue", r.message
        assert r.coverage is not None and len(r.coverage.shown) == 1 and r.coverage.total is None


def test_minor_number_proves_more_gpus_than_the_excerpt_shows(tmp_path: Path) -> None:
    # Corpus 118: one A100 section of `nvidia-smi -q` in a pass-through VM, Minor Number 5: six GPUs at least.
    assert capture_checks("118", "FW-VM")["FW-VM"].status == "unknown"
    r = paste_checks(tmp_path, MODELLED_MINOR_3, "FW-VM")["FW-VM"]
    assert r.status == "unknown" and "4 GPUs" in r.message, r.message


def test_lspci_gpus_behind_root_ports_say_no_vm(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, DEEPOPS_291, "FW-VM")["FW-VM"]
    assert r.status == "unknown", r.message
    assert "no source tells whether this is a virtual machine" in r.message
