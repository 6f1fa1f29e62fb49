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


def _bench_spans(text: str) -> list[tuple[int, int]]:
    from stackaudit.importers.bench_output import bench_output
    return [(f.start, f.end) for f in bench_output(text.splitlines())]


def test_torch_all_reduce_bench_result_is_read() -> None:
    # Real (corpus 2885, skypilot-org/skypilot#3592): SkyPilot's rank prefix before each line of the 2024 form.
    prefix = "(head, rank=0, pid=22990) [sky-0000-user-0000-head-xxxxxxxx-compute:0]:"
    real = (f"{prefix}The average bandwidth of all_reduce with a 40.0GB payload (5 trials, 16 ranks):\n"
            f"{prefix} algbw: 11.396 GBps (91.2 Gbps)\n{prefix} busbw: 18.973 GBps (151.8 Gbps)\n")
    assert _bench_spans(real) == [(0, 3)]
    # Modelled: torchrun's rank tag and the Gbps-first units of an older release.
    older = ("[default0]:The average bandwidth of all_reduce with a 4.0GB payload (5 trials, 16 ranks):\n"
             "[default0]: algbw: 225.330 Gbps (28.166 GBps)\n[default0]: busbw: 422.493 Gbps (52.812 GBps)\n")
    assert _bench_spans(older) == [(0, 3)]
    # Modelled: the later form's payload table under its head and a blank line.
    table = ("The average bandwidth of all_reduce over 16 ranks (5 warmups / 20 trials, up to 10 queued calls per "
             "trial):\n\n| payload |    busbw   |    algbw   |\n| ------: | ---------: | ---------: |\n"
             "|   32KiB |   0.92GBps |   0.49GBps |\n\nEnvironment:\n")
    assert _bench_spans(table) == [(0, 5)]
    # Modelled: the head alone, cut before any bandwidth, is no result.
    assert _bench_spans("The average bandwidth of all_reduce with a 4.0GB payload (5 trials, 16 ranks):\n") == []


@pytest.mark.parametrize("check", ["IC-NCCL-ENV", "FW-VM", "DRV-FABRIC-MANAGER"])
def test_all_reduce_bench_paste_settles_nothing_it_does_not_show(check: str) -> None:
    # Real (corpus 2885): the bench's three lines show neither NCCL's settings, the guest's GPU paths nor the fabric.
    assert capture_result("2885", check).status == "unknown"
