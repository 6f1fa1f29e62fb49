"""DRV-OPEN-MODULE where no driver is shown and every GPU named is pre-Turing (corpus 1861, 1822).

The open kernel modules drive Turing and later only: a host whose GPUs (lspci's names) are all Pascal, Volta,
Maxwell or Kepler has one flavour, the proprietary one, so there is no flavour to judge: not applicable. A log symptom
of a driver that finds no GPU keeps it open (an open module installed for such a GPU fails that way).
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks

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


# A driver before R515 on pre-Turing GPUs (corpus 2051, 2052): neither the driver nor the GPUs have an open module.

# rossumai/nvgpu#15: a TITAN Xp (Pascal) on 450.57, nvidia-smi's table.
TITAN_XP_450 = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 450.57       Driver Version: 450.57       CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  TITAN Xp            On   | 00000000:17:00.0 Off |                  N/A |
| 23%   39C    P8     9W / 250W |      7MiB / 12196MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""

# NVIDIA/nvidia-docker#1004: a GeForce GTX 1080 Ti on 384.130, nvidia-smi -q's head.
GTX1080TI_384_Q = """\
==============NVSMI LOG==============

Timestamp                           : Fri Jun 28 21:44:44 2019
Driver Version                      : 384.130

Attached GPUs                       : 1
GPU 00000000:06:00.0
    Product Name                    : GeForce GTX 1080 Ti
    Product Brand                   : GeForce
    Display Mode                    : Enabled
    Persistence Mode                : Disabled
"""

# openmm/openmm#2386: TITAN X (Pascal) GPUs in lspci, one listed by nvidia-smi on 418.39. lspci's bracketed
# `GP102 [TITAN X]` names the model by the GPU table's architecture (a TITAN X is Maxwell or Pascal: pre-Turing either way).
TITAN_X_418 = """\
02:00.0 VGA compatible controller: NVIDIA Corporation GP102 [TITAN X] (rev a1)
03:00.0 VGA compatible controller: NVIDIA Corporation GP102 [TITAN X] (rev a1)
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.39       Driver Version: 418.39       CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  TITAN X (Pascal)    On   | 00000000:02:00.0 Off |                  N/A |
| 23%   27C    P8     9W / 250W |      1MiB / 12196MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""

# NVIDIA/nvidia-docker#1146: a GeForce RTX 2080 Ti (Turing) on 430.26: it runs under either flavour, so the
# pre-R515 driver's one flavour is judged, not set aside.
RTX2080TI_430_Q = """\
==============NVSMI LOG==============

Timestamp                           : Fri Dec  6 09:35:04 2019
Driver Version                      : 430.26
CUDA Version                        : 10.2

Attached GPUs                       : 1
GPU 00000000:18:00.0
    Product Name                    : GeForce RTX 2080 Ti
    Product Brand                   : GeForce
    Display Mode                    : Disabled
    Persistence Mode                : Disabled
"""


def test_capture_2051_gtx_1080_ti_on_440() -> None:
    """Real (capture 2051, NVIDIA/nvidia-container-toolkit#300): nvidia-smi -q's GTX 1080 Ti on 440.59."""
    r = capture_checks("2051", OPEN)[OPEN]
    assert r.status == "not-applicable" and "predates the open kernel modules" in r.message


def test_capture_2052_gpu_named_in_words_on_510() -> None:
    """Real (capture 2052, NVIDIA/gpu-operator#327): `GPU is GP104BM [GeForce GTX 1070 Mobile]`, driver 510.47.03."""
    r = capture_checks("2052", OPEN, "MEM-MIG")
    assert r[OPEN].status == "not-applicable" and "Pascal" in r[OPEN].message
    assert r["MEM-MIG"].status == "not-applicable"


def test_real_pascal_on_pre_r515_drivers(tmp_path: Path) -> None:
    for text in (TITAN_XP_450, GTX1080TI_384_Q):
        r = paste_checks(tmp_path, text, OPEN)[OPEN]
        assert r.status == "not-applicable" and "no flavour to choose" in r.message, text


def test_real_titan_x_named_by_lspci_on_pre_r515_driver_has_no_flavour_to_judge(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, TITAN_X_418, OPEN)[OPEN].status == "not-applicable"


def test_real_turing_on_pre_r515_driver_stays_ok(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, RTX2080TI_430_Q, OPEN)[OPEN].status == "ok"


def test_modelled_pascal_beside_turing_on_pre_r515_driver_is_judged(tmp_path: Path) -> None:
    """Modelled: a GTX 1080 Ti beside an RTX 2080 Ti on 470: a Turing GPU is there, so the flavour is judged."""
    text = GTX1080TI_384_Q.replace("384.130", "470.82.01").replace("Attached GPUs                       : 1",
                                                                     "Attached GPUs                       : 2")
    text += RTX2080TI_430_Q.split("Attached GPUs                       : 1\n")[1].replace("18:00.0", "3B:00.0")
    assert paste_checks(tmp_path, text, OPEN)[OPEN].status not in ("not-applicable", "not-an-issue")


def test_modelled_gpu_is_in_words() -> None:
    """Modelled: `GPU is <model>` names the host's GPU; `the GPU is not detected` names none."""
    from stackaudit.facts.gpus import owned_model

    assert owned_model("My GPU is a GeForce GTX 1080 Ti") == "GTX 1080 Ti"
    assert owned_model("the GPU is not detected by the A100 driver") == ""


def test_capture_877_cut_before_its_gpus_model_names_no_flavour_to_judge(tmp_path: Path) -> None:
    # Corpus 877's `nvidia-smi -q` (driver 410.78) cut after its GPU's address: a GPU with no model is nothing to
    # judge as on a later driver; the pre-R515 driver has one flavour (not an `ok` naming an empty GPU list).
    cut = "\n".join(body("877").split("\n")[:8])
    r = paste_checks(tmp_path, cut, OPEN)[OPEN]
    assert r.status == "not-an-issue" and "410.78" in r.message and "with :" not in r.message
