"""No NVLink before Pascal (gputable.PRE_NVLINK): a Kepler or Maxwell GPU the table has no row for, named by its
model words, has no NVLink in any form factor, so DRV-NVLINK-HEALTH is not applicable over it (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.gputable import nvlink_links_of

CHECK = "DRV-NVLINK-HEALTH"

# https://github.com/NVIDIA/nvidia-docker/issues/688 (issue body): `nvidia-smi -q` of a laptop's Quadro M1000M.
QUADRO_M1000M = """\
==============NVSMI LOG==============

Timestamp                           : Mon Apr  2 19:47:58 2018
Driver Version                      : 375.82

Attached GPUs                       : 1
GPU 0000:01:00.0
    Product Name                    : Quadro M1000M
    Product Brand                   : Quadro
    Display Mode                    : Enabled
    Display Active                  : Enabled
    Persistence Mode                : Disabled
    Accounting Mode                 : Disabled
"""


@pytest.mark.parametrize(("capture", "model"), [("147", "GTX 960M"), ("156", "Tesla K40c")])
def test_maxwell_and_kepler_gpus_have_no_nvlink(capture: str, model: str) -> None:
    """Real: netdata#4892 (147, a laptop's GeForce GTX 960M) and k8s-device-plugin#265 (156, a Tesla K40c)."""
    r = capture_checks(capture, CHECK)[CHECK]
    assert r.status == "not-applicable" and model in r.message


def test_a_maxwell_quadro_has_no_nvlink(tmp_path: Path) -> None:
    """Real (nvidia-docker#688): a Quadro M1000M the GPU table has no row for."""
    assert nvlink_links_of("Quadro M1000M") == 0
    assert paste_checks(tmp_path, QUADRO_M1000M, CHECK)[CHECK].status == "not-applicable"


@pytest.mark.parametrize("name", ["Quadro GP100", "NVIDIA TITAN Xp", "GM206"])
def test_pascal_and_chip_names_stay_open(name: str) -> None:
    """Modelled counter-examples: Pascal names the table lacks (the Quadro GP100 takes NVLink bridges) and a bare
    chip name are not read as having no NVLink."""
    assert nvlink_links_of(name) is None


def test_a_cuda_device_list_of_pre_pascal_gpus_decides_over_the_gpus_it_names() -> None:
    """Real: llama.cpp#18743 (962): `ggml_cuda_init` lists three Tesla K40c and a Quadro K620, a CUDA list that
    CUDA_VISIBLE_DEVICES may narrow. NVLink is each GPU's own: the GPUs it names have none whatever GPUs it leaves
    out, so the not-applicable covers them (facts/applicability.py: `over_shown`)."""
    r = capture_checks("962", CHECK)[CHECK]
    assert r.status == "not-applicable" and "Tesla K40c" in r.message and "Quadro K620" in r.message
    assert r.coverage is not None and "4" in r.coverage.text()
