"""NVIDIA's vGPU host (manager) driver marks the hypervisor host: no CUDA there, and no guest.

The host driver prints a `vGPU Driver Capability` section at the top of `nvidia-smi -q` (and `GPU
Virtualization Mode: Host VGPU` per GPU) and `CUDA Version: Not Found`: CUDA runs in the guests, each with
its own guest driver. DRV-CUDA-COMPAT says not-an-issue there and FW-VM ok (bare metal, the blind readings of 1488
and 1504 against 399, h72d); a bare-metal or guest driver keeps its old verdicts (facts/platform.py `vgpu_host` beside
`vgpu_guest`).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECKS = ("DRV-CUDA-COMPAT", "FW-VM")

# https://github.com/harvester/harvester/issues/11133 (comment by vladfreeze, 2026-07-14), the start of it.
HARVESTER_H100_NVL = """\
~~~
nvidia-smi -q

==============NVSMI LOG==============

Timestamp                                              : Tue Jul 14 11:19:43 2026
Driver Version                                         : 595.71.03
CUDA Version                                           : Not Found
vGPU Driver Capability
        Heterogenous Multi-vGPU                        : Supported

Attached GPUs                                          : 1
GPU 00000000:A1:00.0
    Product Name                                       : NVIDIA H100 NVL
    Product Brand                                      : NVIDIA
    Product Architecture                               : Hopper
    Display Mode                                       : Requested functionality has been deprecated
    Display Attached                                   : Yes
    Display Active                                     : Disabled
    Persistence Mode                                   : Enabled
    Addressing Mode                                    : N/A
~~~
"""

# A Proxmox VE host with a Tesla P40 (`root@3USMPVE:/etc/pve/qemu-server# nvidia-smi -q`, driver 535.129.03), a
# public GitHub file found by its text; the start of it, through the GPU Virtualization Mode section.
PROXMOX_P40 = """\
```
root@3USMPVE:/etc/pve/qemu-server# nvidia-smi -q

==============NVSMI LOG==============

Timestamp                                 : Mon Nov 20 00:37:23 2023
Driver Version                            : 535.129.03
CUDA Version                              : Not Found
vGPU Driver Capability
        Heterogenous Multi-vGPU           : Supported

Attached GPUs                             : 1
GPU 00000000:83:00.0
    Product Name                          : Tesla P40
    Product Brand                         : Tesla
    Product Architecture                  : Pascal
    Display Mode                          : Enabled
    Display Active                        : Disabled
    Persistence Mode                      : Disabled
    Addressing Mode                       : N/A
    vGPU Device Capability
        Fractional Multi-vGPU             : Not Supported
        Heterogeneous Time-Slice Profiles : Supported
        Heterogeneous Time-Slice Sizes    : Not Supported
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Accounting Mode                       : Enabled
    Accounting Mode Buffer Size           : 4000
    Driver Model
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : 0320317060550
    GPU UUID                              : GPU-bcb96e0b-81bf-9648-8611-af34ef926bae
    Minor Number                          : 0
    VBIOS Version                         : 86.02.23.00.00
    MultiGPU Board                        : No
    Board ID                              : 0x8300
    Board Part Number                     : 900-2G610-0000-000
    GPU Part Number                       : 1B38-895-A1
    FRU Part Number                       : N/A
    Module ID                             : 1
    GPU Operation Mode
        Current                           : N/A
        Pending                           : N/A
    GSP Firmware Version                  : N/A
    GPU Virtualization Mode
        Virtualization Mode               : Host VGPU
        Host VGPU Mode                    : Non SR-IOV
```
"""

# Modelled (not from a thread): the same top on a bare-metal driver, with a CUDA version and no vGPU section.
MODELLED_BARE_METAL = """\
==============NVSMI LOG==============

Timestamp                                 : Mon Nov 20 00:37:23 2023
Driver Version                            : 535.129.03
CUDA Version                              : 12.2

Attached GPUs                             : 1
GPU 00000000:83:00.0
    Product Name                          : Tesla P40
    Persistence Mode                      : Disabled
    GPU Virtualization Mode
        Virtualization Mode               : None
        Host VGPU Mode                    : N/A
"""


def _assert_host(results: dict[str, object]) -> None:
    for check, status in zip(CHECKS, ("not-an-issue", "ok"), strict=True):
        result = results[check]
        assert result.status == status, (check, result.status, result.message)  # type: ignore[attr-defined]
    assert "vGPU host" in results["DRV-CUDA-COMPAT"].message  # type: ignore[attr-defined]
    assert "hypervisor host" in results["FW-VM"].message  # type: ignore[attr-defined]


def test_cubecos_rtx_pro_6000_host_driver() -> None:
    # Corpus 399: https://github.com/bigstack-oss/cubecos/issues/312, `nvidia-smi -q -d MEMORY,PERFORMANCE`.
    _assert_host(capture_checks("399", *CHECKS))


def test_harvester_h100_nvl_host_driver(tmp_path: Path) -> None:
    _assert_host(paste_checks(tmp_path, HARVESTER_H100_NVL, *CHECKS))


def test_proxmox_p40_host_vgpu_mode(tmp_path: Path) -> None:
    _assert_host(paste_checks(tmp_path, PROXMOX_P40, *CHECKS))


def test_host_section_is_no_phantom_gpu() -> None:
    # The capability section's indented field sits before the first GPU header: not a GPU section of its own.
    from stackaudit.facts.nvidia_smi import parse_query_text

    gpus = parse_query_text(HARVESTER_H100_NVL.strip("~\n"))
    assert gpus.vgpu_host_driver
    assert [g.name for g in gpus.gpus] == ["NVIDIA H100 NVL"]


def test_modelled_bare_metal_driver_keeps_its_verdicts(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, MODELLED_BARE_METAL, *CHECKS)
    assert results["DRV-CUDA-COMPAT"].status == "unknown"
    assert results["FW-VM"].status == "ok"
