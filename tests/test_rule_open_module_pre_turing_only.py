"""DRV-OPEN-MODULE where no driver is shown and every GPU named is pre-Turing (corpus 1861, 1822).

The open kernel modules drive Turing and later only: a host whose GPUs (lspci's names) are all Pascal, Volta,
Maxwell or Kepler has one flavour, the proprietary one, so there is no flavour to judge: not applicable. A log symptom
of a driver that finds no GPU keeps it open (an open module installed for such a GPU fails that way).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

OPEN = "DRV-OPEN-MODULE"

# anomixer/proxmox-vgpu-installer#29: the host's lspci line of its Tesla P100.
P100_LSPCI = """\
```
$ lspci -nn | grep -Ei '(VGA compatible controller|3D controller).*NVIDIA Corporation'
01:00.0 3D controller [0302]: NVIDIA Corporation GP100GL [Tesla P100 PCIe 16GB] [10de:15f8] (rev a1)
```
"""

# noonghunna/club-3090#594: two RTX 3090 (Ampere) under the nvidia module, flavour not shown.
RTX3090_LSPCI = """\
# lspci -nnk | grep -A3 -i nvidia  (driver binding + device IDs)
05:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204] (rev a1)
\tSubsystem: Gigabyte Technology Co., Ltd GA102 [GeForce RTX 3090] [1458:4043]
\tKernel driver in use: nvidia
\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia
"""

# zzzhouuu/truenas-nvidia-drivers#20: a Tesla P4 (Pascal) under the open module, which refuses it.
P4_OPEN = """\
$ dmesg | grep NVRM
[   87.358035] NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:1bb3)
               NVRM: installed in this system is not supported by open
               NVRM: nvidia.ko because it does not include the required GPU
               NVRM: System Processor (GSP).

$ lspci -nnk | grep -iA3 '3D controller'
03:00.0 3D controller [0302]: NVIDIA Corporation GP104GL [Tesla P4] [10de:1bb3] (rev a1)
        Kernel driver in use: nvidia
"""


def test_capture_1861_p100_alone() -> None:
    """Real (capture 1861, NVIDIA/nvidia-docker#1671): `GP100GL [Tesla P100 PCIe 16GB]` in lspci."""
    r = capture_checks("1861", OPEN)[OPEN]
    assert r.status == "not-applicable" and "Pascal" in r.message


def test_real_p100_lspci(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, P100_LSPCI, OPEN)[OPEN]
    assert r.status == "not-applicable" and "no flavour to choose" in r.message


def test_capture_1822_driver_finding_no_gpu_stays_open() -> None:
    """Real (capture 1822): a V100 in lspci and the operator's `Startup probe failed: No devices were found`."""
    assert capture_checks("1822", OPEN)[OPEN].status == "unknown"


def test_real_ampere_stays_open(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, RTX3090_LSPCI, OPEN)[OPEN].status == "unknown"


def test_real_open_module_refusing_pascal_is_an_issue(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, P4_OPEN, OPEN)[OPEN].status == "issue"


def test_modelled_mixed_host_stays_open(tmp_path: Path) -> None:
    """Modelled: a P100 beside an A100 (Ampere runs under either flavour): the flavour is a question again."""
    text = "00:04.0 3D controller: NVIDIA Corporation GP100GL [Tesla P100 PCIe 16GB] (rev a1)\n" \
        "00:05.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 40GB] (rev a1)\n"
    assert paste_checks(tmp_path, text, OPEN)[OPEN].status == "unknown"
