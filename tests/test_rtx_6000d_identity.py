"""The RTX PRO 6000D (NVML: `NVIDIA RTX 6000D`), the RTX PRO 6000 Blackwell's variant for China, named by
gputable's model words (RTX_6000D): a Blackwell workstation card of compute capability 12.0, on no NVSwitch.

What that decides: DRV-OPEN-MODULE is ok where such a GPU is shown running (only the open module drives Blackwell),
and DRV-FABRIC-MANAGER is not applicable (a PCIe card needs no Fabric Manager).

Real pastes: corpus 1982 (aikitoria/open-gpu-kernel-modules#20, nvidia-smi of two RTX 6000D on driver 590.44.01) and
corpus 606 (sgl-project/sglang#12389, sglang's check_env of eight, compute capability 12.0). A GeForce card's China
variant keeps its brand word (pytorch/pytorch#150733: `NVIDIA GeForce RTX 5090 D`) and stays GeForce.
"""

from __future__ import annotations

import pytest

from corpus import capture_checks
from stackaudit.gputable import architecture_of, capability_of, family_of, on_nvswitch


@pytest.mark.parametrize("name", ["NVIDIA RTX 6000D", "RTX PRO 6000D", "NVIDIA RTX PRO 6000 D"])
def test_rtx_6000d_is_a_blackwell_workstation_card(name: str) -> None:
    family = family_of(name)
    assert family is not None and family.name == "workstation"
    assert architecture_of(name) == "Blackwell"
    assert capability_of(name) == "12.0"
    assert on_nvswitch(name) is False


def test_geforce_china_variant_keeps_its_family() -> None:
    # Real: pytorch/pytorch#150733's collect_env, `GPU 0: NVIDIA GeForce RTX 5090 D`.
    family = family_of("NVIDIA GeForce RTX 5090 D")
    assert family is not None and family.name == "geforce"
    # Modelled: a GeForce RTX 4090 D written without its brand word is no RTX 6000D.
    assert architecture_of("RTX 4090D") != "Blackwell"


def test_nvidia_smi_of_rtx_6000d_shows_the_open_module_and_no_nvswitch() -> None:
    results = capture_checks("1982", "DRV-OPEN-MODULE", "DRV-FABRIC-MANAGER")
    assert results["DRV-OPEN-MODULE"].status == "ok"
    assert "open kernel modules" in results["DRV-OPEN-MODULE"].message
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"


def test_check_env_of_rtx_6000d_needs_no_fabric_manager() -> None:
    results = capture_checks("606", "DRV-OPEN-MODULE", "DRV-FABRIC-MANAGER")
    assert results["DRV-OPEN-MODULE"].status == "ok"
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"
