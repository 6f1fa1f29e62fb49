"""NCCL 1's own tests name each rank's GPU (`#   Rank  0 uses device  1 [0x06] Tesla K80`), and one named card that is
never on an NVSwitch board rules Fabric Manager out for the host even where other GPUs are counted without their
model (facts/applicability.py: NVSwitch is host-wide).

Real pastes are corpus captures or verbatim excerpts (their source beside each); counter-examples are modelled where
marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted

# The README of a Windows port of NCCL 1.3.4 (a public GitHub repository): reduce_test on two RTX 5060 Ti.
NCCL134_README = """Using devices

Rank  0 uses device  0 [0x73] NVIDIA GeForce RTX 5060 Ti{sp}
Rank  1 uses device  1 [0xa6] NVIDIA GeForce RTX 5060 Ti{sp}

                                                        out-of-place                    in-place
      bytes             N    type      op  root    time  algbw  busbw      res     time  algbw  busbw      res
    67108864      67108864    char     sum    0   11.534   5.82   5.82    0e+00   11.570   5.80   5.80    0e+00
""".format(sp="  ")  # the README's lines end in two spaces

# Corpus 407 (NVIDIA/nccl#19): the whole `nvidia-smi topo --matrix` of six GPUs, then all_gather_test on 1, 3, 5.
_TOPO_407 = """[user@supermicro single]$ nvidia-smi topo --matrix
        GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 CPU Affinity
GPU0\t X \tPIX\tSOC\tSOC\tSOC\tSOC\t0-7,16-23
GPU1\tPIX\t X \tSOC\tSOC\tSOC\tSOC\t0-7,16-23
GPU2\tSOC\tSOC\t X \tPIX\tPHB\tPHB\t8-15,24-31
GPU3\tSOC\tSOC\tPIX\t X \tPHB\tPHB\t8-15,24-31
GPU4\tSOC\tSOC\tPHB\tPHB\t X \tPIX\t8-15,24-31
GPU5\tSOC\tSOC\tPHB\tPHB\tPIX\t X \t8-15,24-31
"""
_RANKS_407 = """[user@supermicro single]$ ./all_gather_test 10000000 3 1 3 5
# Using devices
#   Rank  0 uses device  1 [0x06] Tesla K80
#   Rank  1 uses device  3 [0x85] Tesla K80
#   Rank  2 uses device  5 [0x89] Tesla K80
"""


def test_corpus_407_k80s_named_by_nccl1_rule_out_fabric_manager() -> None:
    result = capture_checks("407", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert result.status == "not-applicable" and "Tesla K80" in result.message


def test_corpus_407_rank_lines_name_three_of_six_gpus() -> None:
    gpus = fact(pasted(_TOPO_407 + "\n" + _RANKS_407), "gpus")
    assert gpus.count == 6 and gpus.models == {1: "NVIDIA Tesla K80", 3: "NVIDIA Tesla K80", 5: "NVIDIA Tesla K80"}
    assert [g.bdf for g in gpus.gpus if g.model] == ["0000:06:00.0", "0000:85:00.0", "0000:89:00.0"]


def test_nccl134_readme_rank_lines_name_two_geforce_cards(tmp_path: Path) -> None:
    gpus = fact(pasted(NCCL134_README), "gpus")
    assert gpus.models == {0: "NVIDIA GeForce RTX 5060 Ti", 1: "NVIDIA GeForce RTX 5060 Ti"}
    result = paste_checks(tmp_path, NCCL134_README, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert result.status == "not-applicable"


def test_modelled_sxm_modules_named_beside_unnamed_gpus_stay_open(tmp_path: Path) -> None:
    # Modelled: corpus 407's run on H100 SXM modules instead (NVSwitch-class): the unnamed GPUs settle nothing.
    text = _TOPO_407 + "\n" + _RANKS_407.replace("Tesla K80", "NVIDIA H100 80GB HBM3")
    result = paste_checks(tmp_path, text, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert result.status == "unknown"


def test_modelled_nvlink_is_not_host_wide(tmp_path: Path) -> None:
    # Modelled: NVLink is each GPU's own, so three named K80s of six counted rule it out over those three only.
    result = paste_checks(tmp_path, _TOPO_407 + "\n" + _RANKS_407, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "not-applicable" and result.coverage is not None
    assert result.coverage.text() == "3 of 6 GPUs shown"
