"""Issue 28: a GPU row whose used memory no process could fit (0-2 MiB), with the display off, shows that no other
process is on that GPU even where the paste is cut before the Processes box.

The tables are real, verbatim from the public thread named beside each; the counter-examples say what they are.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"

# https://github.com/dstackai/dstack/issues/2860 (jvstme): a T4 on AWS, the paste cut after the GPU's rows.
DSTACK_2860 = """\
(workflow) root@ip-172-31-21-250:~# nvidia-smi
Mon Jun 30 03:31:41 2025\x20\x20\x20\x20\x20\x20\x20
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  Tesla T4                       On  |   00000000:00:1E.0 Off |                    0 |
| N/A   29C    P8             10W /   70W |       0MiB /  15360MiB |      0%      Default |
|                                         |                        |                  N/A |
"""
# https://github.com/huggingface/text-generation-inference/issues/1402 (GeorgiaM-honestly): an RTX 4090 in TGI's env.
TGI_1402 = """\
nvidia-smi:
Fri Jan  5 11:41:14 2024
   +-----------------------------------------------------------------------------+
   | NVIDIA-SMI 525.147.05   Driver Version: 525.147.05   CUDA Version: 12.1     |
   |-------------------------------+----------------------+----------------------+
   | GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
   | Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
   |                               |                      |               MIG M. |
   |===============================+======================+======================|
   |   0  NVIDIA GeForce ...  On   | 00000000:07:00.0 Off |                  Off |
   |  0%   26C    P8    11W / 450W |      1MiB / 24564MiB |      0%      Default |
"""


def _shared(path: Path) -> tuple[str, str, str]:
    r = run_checks(load_pasted([str(path)]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    return r.status, r.message, r.coverage.text() if r.coverage is not None else ""


@pytest.mark.parametrize("text", [DSTACK_2860, TGI_1402], ids=["dstack-2860", "tgi-1402"])
def test_an_idle_row_shows_no_other_process(tmp_path: Path, text: str) -> None:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    status, message, coverage = _shared(path)
    assert status == "ok", message
    assert "GPU 0" in message and coverage == "1 GPU shown"


def test_an_idle_row_in_the_corpus_and_one_in_use() -> None:
    # Corpus 245 (huggingface/text-generation-inference#574): GPU 0 at 0 MiB, GPU 1's memory row cut away.
    assert _shared(next(CAPTURES.glob("245-*.txt")))[:1] == ("ok",)
    # Corpus 246 (#1156): a vGPU holding 4433 MiB with its Processes box cut: whose memory it is is not shown.
    status, message, _ = _shared(next(CAPTURES.glob("246-*.txt")))
    assert status == "unknown", message


# Modelled on corpus 1320's rows (GeForce GTX 680, driver 325.15: `Disp.A` reads N/A, memory in `MB`); {used} varies.
OLD_GEFORCE = """\
| NVIDIA-SMI 5.325.15   Driver Version: 325.15         |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  GeForce GTX 680     Off  | 0000:03:00.0     N/A |                  N/A |
| 30%   29C  N/A     N/A /  N/A |   {used:>6}MB /  4095MB |     N/A      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_an_old_driver_row_with_disp_na_at_its_idle_reserve_shows_no_process(tmp_path: Path) -> None:
    # Corpus 1320: 9 MB on each GTX 680 (GPU 2's memory cell cut after its used memory), nothing running.
    status, message, coverage = _shared(next(CAPTURES.glob("1320-*.txt")))
    assert status == "ok" and "GPU 2 9 MiB used" in message and coverage == "3 GPUs shown", message
    # Modelled counter-example: 60 MB is a context's worth, and a row with the display unknown says nothing.
    path = tmp_path / "paste.txt"
    path.write_text(OLD_GEFORCE.format(used=9))
    assert _shared(path)[0] == "ok"
    path.write_text(OLD_GEFORCE.format(used=60))
    assert _shared(path)[0] == "unknown"
