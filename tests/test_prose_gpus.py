"""Issue 28, name-implied facts: a GPU count and model in the user's own words (importers/prose_gpus.py,
facts/gpus.py `stated_gpus`) names the model a topology matrix does not, as the GPU inventory's last source; the GPU
table then says what the model implies (DRV-NVLINK-HEALTH: no NVLink on an A10G or an RTX 4090)."""

from __future__ import annotations

import pytest

from corpus import body, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import USER_WORDS_TITLE, parse_user_gpus, stated_gpus
from stackaudit.gputable import nvlink_links_of
from test_topology_parsers import _pcie, make_topo


@pytest.mark.parametrize(("line", "said"), [
    # NVIDIA/nccl#1298 (corpus 215)
    ("These tests have been conducted on an AWS g5.48xlarge instance which has 8 x A10G GPUs", [(8, "A10G")]),
    # NVIDIA/go-gpuallocator#17 (corpus 243)
    ("Here is a 8 cards 4090 server `nvidia topo -m` result:", [(8, "RTX 4090")]),
    # huggingface/text-generation-inference (corpus 247, 248): an ambiguous name stays in the user's words
    ("8x A100 40GB GPUs.", [(8, "A100 40GB")]),
    ("### 8xA100 80GB Falcon 40B", [(8, "A100 80GB")]),
    # phivan3008/Realtime-meeting-translator-v8 (corpus 33): NVML's product name
    ("| GPU | 1 × NVIDIA H100 80GB HBM3 |", [(1, "H100 SXM")]),
    # Modelled counter-examples: hex numbers and error codes are no count; an unknown name is no model.
    ("<board_id>0x100</board_id>", []),
    ("NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:1941)", []),
    ("we run 2x Foo9000 accelerators", []),
])
def test_stated_gpus(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said


def test_words_naming_several_gpu_sets_state_none() -> None:
    with pytest.raises(ParseError, match="several GPU sets"):
        parse_user_gpus("it works on 2x RTX 3090 but fails on 4x A6000\n")
    inv = parse_user_gpus("8 x A10G GPUs\nagain: 8 x A10G\n")
    assert inv.count == 8 and inv.count_unshown and inv.gpus[0].shown_by == (USER_WORDS_TITLE,)


def test_the_words_name_the_model_of_a_matrix() -> None:
    inv = fact(pasted(body("215")), "gpus")
    assert inv.count == 8 and set(inv.models.values()) == {"A10G"}


def test_no_nvlink_by_model_needs_every_gpu_named_and_no_variant_with_nvlink() -> None:
    """Real: corpus 215 (A10G) and 243 (RTX 4090) are not applicable. Modelled: words naming 2 of a matrix's 4
    GPUs, or `H100` (SXM with NVLink, or PCIe), leave it unknown."""
    assert nvlink_links_of("A10G") == 0 and nvlink_links_of("H100") is None and nvlink_links_of("A100") == 12
    four = make_topo(_pcie(4, lambda i, j: "PHB"), ["0-31"] * 4, ["0"] * 4)
    for words in ("We have 2x RTX 4090 here\n", "We have 4x H100 here\n"):
        r = run_checks(pasted(words + "$ nvidia-smi topo -m\n" + four), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"]
        assert r.status == "unknown", words
    r = run_checks(pasted("We have 4x RTX 4090 here\n$ nvidia-smi topo -m\n" + four), ["DRV-NVLINK-HEALTH"])
    assert r["DRV-NVLINK-HEALTH"].status == "not-applicable" and "RTX 4090" in r["DRV-NVLINK-HEALTH"].message
