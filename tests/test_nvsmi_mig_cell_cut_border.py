"""A GPU's MIG M. cell read where the paste is cut after its word (facts/nvidia_smi.py parse_table, _ROW3).

The table's third row of a GPU block holds the MIG M. cell; a retrieved copy cut right after the cell's word loses
only the closing `|`, so the mode is shown. A cut inside the word shows no mode. Real pastes are corpus captures
(the source in each file's header); the cuts of 386, 203 and 15 are modelled where the real cut of 813 falls.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted


def _cut_after_first_mig_cell(prefix: str) -> str:
    """A corpus table cut where 813's is: after GPU 0's MIG M. word, before the cell's closing border."""
    lines = body(prefix).splitlines()
    row = next(i for i, line in enumerate(lines)
               if line.rstrip().endswith(("Enabled |", "Disabled |", "N/A |")) and line.lstrip("| ").startswith(
                   ("Enabled", "Disabled", "N/A")))
    return "\n".join([*lines[:row], lines[row].rstrip()[:-1].rstrip()]) + "\n"


def test_corpus_813_h100_nvl_cut_after_disabled_is_mig_off() -> None:
    # https://github.com/NVIDIA/gpu-admin-tools/issues/4: the retrieved copy ends at "Disabled".
    gpus = fact(pasted(body("813")), "nvidia").gpus
    assert [g.mig_current for g in gpus] == [False]
    assert capture_checks("813", "MEM-MIG")["MEM-MIG"].status == "ok"


@pytest.mark.parametrize(("prefix", "mig"), [
    ("386", True),   # dcgm-exporter#114: an A30 in MIG mode (Enabled)
    ("203", False),  # vllm#41519: two A800 PCIe (Disabled)
])
def test_real_tables_cut_after_the_mig_word(prefix: str, mig: bool) -> None:
    gpus = fact(pasted(_cut_after_first_mig_cell(prefix)), "nvidia").gpus
    assert gpus[0].mig_current is mig


def test_a_geforce_cut_after_na_has_no_mig() -> None:
    # club-3090#747: two RTX 3090, the MIG M. cell N/A (no MIG): unsupported, not a mode.
    gpu = fact(pasted(_cut_after_first_mig_cell("15")), "nvidia").gpus[0]
    assert gpu.mig_current is None and "mig" in gpu.unsupported


def test_a_cut_inside_the_word_shows_no_mode() -> None:
    # Modelled: 813's table cut three letters earlier ("Disab"): no mode is read.
    text = body("813").rstrip().removesuffix("led") + "\n"
    assert fact(pasted(text), "nvidia").gpus[0].mig_current is None
