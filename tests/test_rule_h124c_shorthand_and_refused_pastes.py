"""Pastes an expert reads the host from that the tool refused, and GPUs named in the user's shorthand (issue 28, h124c).

- facts/gpus._ADA_SHORTHAND: an Ada workstation board as users shorten it (`10 x ADA 6000s`, `RTX 6000 Adas`,
  `A6000 Ada`, `Ada 6000`) is the RTX 6000 Ada, never Turing's Quadro RTX 6000 nor Ampere's RTX A6000.
"""

from __future__ import annotations

import pytest

from corpus import capture_result
from stackaudit.facts.gpus import stated_gpus
from stackaudit.gputable import architecture_of


def test_ada_shorthand_in_the_users_words() -> None:
    # Real (corpus 2906, turboderp-org/exllamav2#571).
    assert stated_gpus("TP with 10 x ADA 6000s w/ x16 Gen4 PCie each on a single NUMA node") == [(10, "RTX 6000 Ada")]
    # Modelled: the other shorthands users write for the same board.
    for line in ("10 x RTX 6000 Adas", "2x 6000 Ada", "4 x A6000 Ada", "8x Ada 6000", "2 x Ada A6000",
                 "two RTX 6000 Adas", "4 x 6000 Adas", "2x RTX 6000 Ada Generation"):
        said = stated_gpus(line)
        assert [n for n, _ in said] and all(m == "RTX 6000 Ada" for _, m in said), (line, said)
        assert architecture_of(said[0][1]) == "Ada Lovelace"


def test_the_older_boards_keep_their_names() -> None:
    # Modelled: Turing's Quadro RTX 6000 and Ampere's RTX A6000 have no `Ada` in their names.
    assert stated_gpus("2x Quadro RTX 6000") == [(2, "Quadro RTX 6000")]
    assert architecture_of("Quadro RTX 6000") == "Turing"
    assert stated_gpus("2x A6000") == [(2, "RTX A6000")]
    assert stated_gpus("8x A6000s") == [(8, "RTX A6000")]
    assert stated_gpus("2 RTX A6000 GPUs") == [(2, "RTX A6000")]
    # Modelled: an Ada word elsewhere on the line is no board's (`Ada` the language, a number that is no board's).
    assert stated_gpus("2x RTX 4090 running Ada code") == [(2, "RTX 4090")]


@pytest.mark.parametrize("check", ["PCIE-LINK-DOWNTRAIN", "IC-P2P-FUNCTIONAL", "IC-TOPO-READ"])
def test_ada_shorthand_paste_is_read(check: str) -> None:
    # Real (corpus 2906): the paste is no longer refused; nothing it shows settles these checks.
    result = capture_result("2906", check)
    assert result.status == "unknown", result.message
