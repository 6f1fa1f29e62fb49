"""A workload whose every engine command runs on one GPU, read once (facts/parallelism.one_gpu_commands) and judged by
the multi-GPU checks that share it: IC-P2P-FUNCTIONAL, and through one_gpu_engine IC-TOPOLOGY-PLACEMENT and
IC-NCCL-ENV (issue 28, h62b).

A llama.cpp server whose `--tensor-split` gives every share but one 0, or whose `--split-mode none` keeps the model
on one GPU, runs on one card whatever the host holds (corpus 1301: three RTX 4090, `--tensor-split 1.0,0.0,0.0`):
it has no group of GPUs to place and moves nothing between GPUs. Every corpus file whose commands all run on one GPU
and that expects IC-TOPOLOGY-PLACEMENT reads it not-applicable (809, 886, 962, 988, 993).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import parse_engine_commands
from stackaudit.facts.parallelism import one_gpu_commands, one_gpu_engine

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"

# Modelled on corpus 1301's command: three cards, every layer on the first.
SPLIT_ONE = """\
I have 3 RTX 4090 in this box and serve from the first one only.
./build/bin/llama-server --model /models/qwen2.5-7b-q4_k_m.gguf -np 15 --tensor-split 1.0,0.0,0.0 -ngl 99
"""
# Modelled: the same server told to keep to one GPU.
MODE_NONE = "./llama-server -m /models/m.gguf -ngl 99 --split-mode none\n"
# Modelled: a layer split over every GPU the server sees, which does place a group.
SPLIT_ALL = "./llama-server -m /models/m.gguf -ngl 99 --tensor-split 1,1,1\n"


def test_corpus_1301_split_on_one_card_places_no_group() -> None:
    got = capture_checks("1301", PLACEMENT, "IC-P2P-FUNCTIONAL")
    assert got[PLACEMENT].status == "not-applicable", got[PLACEMENT].message
    assert "--tensor-split 1.0,0.0,0.0" in got[PLACEMENT].message
    assert got["IC-P2P-FUNCTIONAL"].status == "not-applicable", got["IC-P2P-FUNCTIONAL"].message


def test_split_flags_read_as_one_gpu() -> None:
    for text in (SPLIT_ONE, MODE_NONE):
        commands = parse_engine_commands(text)
        assert one_gpu_commands(commands), text
        assert "runs on one GPU" in one_gpu_engine(None, None, commands), text
    assert not one_gpu_commands(parse_engine_commands(SPLIT_ALL))
    assert one_gpu_engine(None, None, parse_engine_commands(SPLIT_ALL)) == ""


def test_placement_of_one_gpu_split_is_not_applicable(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, MODE_NONE, PLACEMENT)[PLACEMENT].status == "not-applicable"
    split = paste_checks(tmp_path, SPLIT_ALL, PLACEMENT)[PLACEMENT]
    assert split.status != "not-applicable", split.message


def test_one_command_on_several_gpus_leaves_it_open(tmp_path: Path) -> None:
    """Every command shown must be on one GPU: one that splits over the host keeps the group to place."""
    both = MODE_NONE + SPLIT_ALL
    assert not one_gpu_commands(parse_engine_commands(both))
    assert paste_checks(tmp_path, both, PLACEMENT)[PLACEMENT].status != "not-applicable"
