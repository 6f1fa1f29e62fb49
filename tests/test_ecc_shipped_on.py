"""Issue 28, name-implied facts: ECC off on a board whose product line ships with ECC enabled (gputable.FAMILIES,
`ecc_shipped_on`: data-center PCIe, NVL, SXM/OAM baseboard, rack) was turned off on the host: MEM-ECC-MODE says
not-an-issue, naming the models; on other cards (GeForce, workstation) off may be the default, and the same on every
GPU it is not an issue either (tests/test_rule_ecc_off_not_an_issue.py)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.gputable import FAMILIES
from test_cut_gpu_names import PHOENIX_17

_CHECK = "MEM-ECC-MODE"


def test_ollama_9362_p100_pcie_ecc_off_is_a_choice_named() -> None:
    # Real (corpus 319, ollama/ollama#9362): the cut name "Tesla P100-PCIE..." resolves to the 16 GB row.
    r = capture_checks("319", _CHECK)[_CHECK]
    assert r.status == "not-an-issue"
    assert "Tesla P100-PCIE-16GB" in r.message and "ship with ECC enabled" in r.message


def test_phoenix_miner_17_a100_sxm4_ecc_off_is_a_choice(tmp_path: Path) -> None:
    # Real (nanopool/phoenix-miner#17): an A100 SXM4 40GB whose ECC column reads Off.
    r = paste_checks(tmp_path, PHOENIX_17, _CHECK)[_CHECK]
    assert r.status == "not-an-issue" and "NVIDIA A100-SXM4-40GB" in r.message


def test_workstation_and_geforce_ecc_off_is_not_an_issue() -> None:
    # Real (corpus 04, an RTX PRO 6000 Blackwell Max-Q; corpus 92, two RTX 4090): their lines do not say ECC ships on,
    # so the message names no choice; off, the same on every GPU, is no fault (h84b, corpus 1871's two readers).
    for prefix in ("04", "92"):
        r = capture_checks(prefix, _CHECK)[_CHECK]
        assert r.status == "not-an-issue" and "Disabled" in r.message and "ship with" not in r.message, prefix


def test_mismatch_on_data_center_boards_is_still_an_issue(tmp_path: Path) -> None:
    # Modelled: PHOENIX_17's row twice, the second with ECC on (its column reads 0): the modes differ across GPUs.
    second = PHOENIX_17.replace("|   0  NVIDIA A100-SXM...", "|   1  NVIDIA A100-SXM...").replace(
        "00000000:01:00.0 Off |                  Off |", "00000000:02:00.0 Off |                    0 |")
    rows = second.split("|===", 1)[1].split("\n", 1)[1]
    r = paste_checks(tmp_path, PHOENIX_17 + rows, _CHECK)[_CHECK]
    assert r.status == "issue" and "differs" in r.message


def test_only_data_center_lines_ship_ecc_on() -> None:
    shipped = {name for name, family in FAMILIES.items() if family.ecc_shipped_on}
    assert shipped == {"datacenter-pcie", "nvl", "baseboard", "rack"}
