"""Issue 28, name-implied facts: product families (gputable.FAMILIES), declared per row of data/gpus.toml and read
from the brand word of a name the table has no row for, for the P2P and NVLink expectations of the IC checks."""

from __future__ import annotations

import pytest

from corpus import body, fact, pasted
from stackaudit.gputable import FAMILIES, GpuTableError, all_gpus, family_of, parse_table, table_text
from test_cut_gpu_names import PEERREAD_40


def _family(name: str) -> str | None:
    found = family_of(name)
    return found.name if found is not None else None


def test_gpu_operator_356_cut_geforce_name_is_geforce_by_its_brand_word() -> None:
    # Capture 101: 'NVIDIA GeForce ...' matches no row, but the brand word says no PCIe P2P.
    models = fact(pasted(body("101")), "gpus").models
    found = family_of(models[0])
    assert found is not None and found.name == "geforce" and not found.p2p


def test_dcgm_70_resolved_rows_are_datacenter_pcie_and_the_cut_row_has_none() -> None:
    models = fact(pasted(body("128")), "gpus").models
    assert [_family(models[i]) for i in (0, 1, 2)] == ["datacenter-pcie", "datacenter-pcie", None]


def test_k8s_test_infra_371_gb200_and_peerread_40_sxm_are_nvlink_boards() -> None:
    # Capture 62's `nvidia-smi nvlink -s` names `GPU 0: NVIDIA GB200 (UUID: ...)`.
    name = next(line.split(": ", 1)[1].split(" (UUID")[0] for line in body("62").splitlines()
                if line.startswith("GPU 0: "))
    assert name == "NVIDIA GB200" and FAMILIES[_family(name) or ""].nvlink == "trays"
    # GB300 has no row: its name says the same.
    assert _family("NVIDIA GB300") == "rack"
    sxm = fact(pasted(PEERREAD_40), "gpus").models[0]
    assert _family(sxm) == "baseboard" and FAMILIES["baseboard"].nvlink == "all-pairs"


def test_every_row_has_a_declared_family_with_a_source() -> None:
    assert {g.family for g in all_gpus()} <= set(FAMILIES)
    assert all(f.source.startswith("https://") for f in FAMILIES.values())
    assert {g.name for g in all_gpus() if g.family == "geforce"} == {g.name for g in all_gpus() if not g.p2p}


def test_counter_examples_claim_no_family() -> None:
    # Modelled: a TITAN has no row and no declared brand word, and a cut bare model number names no line: neither
    # gets a family, so neither gets a P2P or NVLink expectation.
    assert _family("NVIDIA TITAN RTX") is None
    assert _family("NVIDIA A100 80G...") is None


def test_a_row_whose_p2p_contradicts_its_family_is_refused() -> None:
    text = table_text()
    start = text.index('name = "RTX 4090"')
    bad = text[:start] + text[start:].replace("p2p = false", "p2p = true", 1)
    with pytest.raises(GpuTableError, match="contradicts its family"):
        parse_table(bad)
