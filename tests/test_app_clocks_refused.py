"""nvidia-smi's refusal to set or reset application clocks (`Setting applications clocks is not supported for GPU …`,
importers/nvidia_smi.py app_clocks_refused): the GPU has none to set (a GeForce card), read as its `nvidia-smi -q`
section with the application clocks N/A, and named where a GPU listing of the paste gives the index (corpus 2604)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_report, capture_result, paste_checks
from stackaudit.importers.nvidia_smi import app_clocks_refused

APP = "PWR-APP-CLOCKS"

# Real: a mining rig's notes (public GitHub, `nvidia-smi -ac` on several GeForce cards, old four-digit domain).
MINER = """\
chris@cryptos:~$ nvidia-smi -ac 3505,1455
Setting applications clocks is not supported for GPU 0000:01:00.0.
Treating as warning and moving on.
Setting applications clocks is not supported for GPU 0000:02:00.0.
Treating as warning and moving on.
"""


def test_corpus_2604_is_read() -> None:
    assert "nvidia-smi app clocks refused (lines 7-7)" in capture_report("2604").source["recognised"]
    assert capture_result("2604", APP).status == "not-applicable"
    assert capture_result("2604", "MEM-MIG").status == "not-applicable"  # the listing names a GeForce RTX 3090
    assert capture_result("2604", "PWR-CLOCK-EVENTS").status == "unknown"


def test_each_refused_gpu_has_no_app_clocks(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MINER, APP)[APP]
    assert r.status == "not-applicable"
    assert len(list(app_clocks_refused(MINER.splitlines()))) == 2


def test_documentation_sentence_is_not_read() -> None:
    # Modelled on AWS's guide: the message quoted with an ellipsis in a sentence is no GPU's answer.
    text = ['Some versions of the NVIDIA driver display the error "Setting applications clocks is not supported for '
            'GPU...", which you can ignore.']
    assert list(app_clocks_refused(text)) == []
