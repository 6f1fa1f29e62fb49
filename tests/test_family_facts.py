"""Issue 28 (gapfix): a fact implied by a GPU's product line (gputable.FAMILIES), where the source has no field for it.

An old driver's `nvidia-smi -q` has no MIG Mode field; a GeForce card has no MIG whatever the driver, so MEM-MIG is
not-applicable from the product name. Real pastes are corpus files (tests/data/captures); counter-examples are
modelled from them and said so.
"""

from __future__ import annotations

from corpus import body
from stackaudit.engine.testing import run_checks
from stackaudit.gputable import FAMILIES, family_of
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise


def _mig(text: str) -> tuple[str, str]:
    result = run_checks(MemoryHost(recognise(text).record), ["MEM-MIG"])["MEM-MIG"]
    return result.status, result.message


def test_only_geforce_declares_no_mig() -> None:
    # The other lines hold MIG parts (A100/H100 PCIe, RTX PRO 6000) and parts without it: their model decides.
    assert {name for name, f in FAMILIES.items() if f.mig is False} == {"geforce"}
    assert family_of("NVIDIA GeForce ...") is FAMILIES["geforce"]  # a name the table cut keeps its brand word


def test_a_geforce_without_a_mig_field_is_not_applicable() -> None:
    # Corpus 147 (netdata/netdata#4892: a GTX 960M, driver 410 `-a`) and 148 (1Panel-dev/1Panel#9504: a
    # GeForce 410M, driver 390 `-q -x`): neither prints a MIG Mode field.
    for prefix, name in (("147", "GeForce GTX 960M"), ("148", "GeForce 410M")):
        status, message = _mig(body(prefix))
        assert status == "not-applicable", (prefix, message)
        assert name in message and "no MIG" in message


def test_a_datacenter_card_without_a_mig_field_stays_unknown() -> None:
    # Modelled: corpus 147 with an A100 PCIe's name: MIG depends on the model and the field is missing.
    # Its driver made one that runs an A100 (R450 or later): a driver before MIG would decide not-applicable.
    text = body("147").replace("GeForce GTX 960M", "A100-PCIE-40GB").replace("410.72", "470.82.01")
    assert _mig(text)[0] == "unknown"
    # Modelled: a Tesla K40c is a Kepler part (its series names one architecture, gputable.architecture_of),
    # and MIG begins with Ampere: the name decides not-applicable.
    assert _mig(body("147").replace("GeForce GTX 960M", "Tesla K40c"))[0] == "not-applicable"
