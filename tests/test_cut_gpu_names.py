"""Issue 28, name-implied facts: a GPU name the `nvidia-smi` table cut ("NVIDIA A100 80G...") is resolved from the
GPU table (data/gpus.toml) by the row's memory size and power cap; an ambiguous one stays unresolved and says so."""

from __future__ import annotations

from typing import Any

from corpus import body
from stackaudit.engine.testing import run_checks
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.gputable import resolve_cut_name
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise

_OLD_HEAD = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
"""

# Real: https://github.com/allenai/PeerRead/issues/40 ("machine 47 has a bad GPU", issue body, 2023-03-30): the
# first two GPU rows of its `nvidia-smi` (A100 SXM4 80GB, 400 W).
PEERREAD_40 = _OLD_HEAD + """|   0  NVIDIA A100-SXM...  On   | 00000000:0E:00.0 Off |                    0 |
| N/A   28C    P0    61W / 400W |      0MiB / 81920MiB |      0%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-SXM...  On   | 00000000:13:00.0 Off |                    0 |
| N/A   28C    P0    62W / 400W |      0MiB / 81920MiB |      0%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
"""

# Real: https://github.com/nanopool/phoenix-miner/issues/17 ("Nvidia A100 160gb GPU Mining", issue body,
# 2021-12-18), driver 470.82.01: GPU 0's rows. A 40 GB A100 SXM4 capped at 275 W (its default is 400 W).
PHOENIX_17 = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A100-SXM...  On   | 00000000:01:00.0 Off |                  Off |
| N/A   69C    P0   279W / 275W |   5140MiB / 40536MiB |    100%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
"""

_NEW_HEAD = """+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
"""


def _pro_6000(cap_w: int) -> str:
    """Modelled on the driver-580 layout of public pastes: one RTX PRO 6000 row at `cap_w`, 97887 MiB."""
    return _NEW_HEAD + f"""|   0  NVIDIA RTX PRO 6000 Blac...    On  |   00000000:01:00.0 Off |                  Off |
| 30%   31C    P8             14W / {cap_w:>4}W |      20MiB /  97887MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""


def _check(text: str, check_id: str) -> Any:
    return run_checks(MemoryHost(recognise(text).record), [check_id])[check_id]


def test_dcgm_70_a100_80g_cut_name_is_the_pcie_card_and_the_cut_row_stays_unresolved() -> None:
    gpus = parse_table(body("128"))
    assert [g.name for g in gpus.gpus] == ["NVIDIA A100 80GB PCIe", "NVIDIA A100 80GB PCIe", "NVIDIA A100 80G..."]
    assert gpus.gpus[0].spec is not None and gpus.gpus[0].spec.name == "A100 PCIe 80GB"
    assert gpus.gpus[0].cut_name == "NVIDIA A100 80G..."
    assert "81920 MiB and a 300 W cap" in gpus.notes[0]
    # GPU 2's memory row is cut: its name alone fits one row, which is not enough.
    assert gpus.gpus[2].spec is None and "not resolved without its memory size" in gpus.notes[2]


def test_peerread_40_a100_sxm_cut_name_is_the_80gb_sxm4() -> None:
    gpus = parse_table(PEERREAD_40)
    assert {g.name for g in gpus.gpus} == {"NVIDIA A100-SXM4-80GB"}
    spec = gpus.gpus[1].spec
    assert spec is not None and spec.name == "A100 SXM4 80GB" and spec.nvlink_kind == "switch"


def test_phoenix_17_lowered_cap_narrows_nothing_and_the_row_default_shows_it() -> None:
    gpus = parse_table(PHOENIX_17)
    assert gpus.gpus[0].name == "NVIDIA A100-SXM4-40GB"
    assert "from 40536 MiB (gpus.toml)" in gpus.notes[0] and "W cap" not in gpus.notes[0]
    # Memory alone named the row, so its default (400 W) is evidence: 275 W is a lowered cap.
    r = _check(PHOENIX_17, "PWR-GPU-POWER-LIMIT")
    assert r.status == "issue" and "275 W" in r.message and "400 W" in r.message


def test_a_name_the_cap_resolved_takes_no_default_from_that_row() -> None:
    # Modelled: the Max-Q is named by its 300 W cap; a Workstation card set to 300 W would read the same, so the
    # row's 300 W default is no evidence and the check stays short of ok.
    assert _check(_pro_6000(300), "PWR-GPU-POWER-LIMIT").status == "unknown"


def test_gpu_operator_356_geforce_cut_to_the_brand_stays_unresolved() -> None:
    gpus = parse_table(body("101"))
    assert gpus.gpus[0].name == "NVIDIA GeForce ..." and gpus.gpus[0].spec is None
    assert "matches no row of the GPU table with 4096 MiB" in gpus.notes[0]
    assert "--query-gpu=name" in gpus.notes[0]


def test_rtx_pro_6000_at_600_w_is_ambiguous_and_at_300_w_is_the_max_q() -> None:
    wide = parse_table(_pro_6000(600))
    assert wide.gpus[0].name == "NVIDIA RTX PRO 6000 Blac..." and wide.gpus[0].spec is None
    assert "RTX PRO 6000 Blackwell Workstation or RTX PRO 6000 Blackwell Server" in wide.notes[0]
    assert "Max-Q" not in wide.notes[0]
    maxq = parse_table(_pro_6000(300))
    assert maxq.gpus[0].name == "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"


def test_only_a_cut_name_is_resolved_and_memory_must_fit() -> None:
    assert resolve_cut_name("NVIDIA H100 80GB HBM3", 81559, 700) is None
    # Modelled: a name whose prefix fits rows but whose memory fits none is not forced onto one.
    cut = resolve_cut_name("NVIDIA A100-SXM...", 16384, 400)
    assert cut is not None and cut.spec is None and cut.candidates == ()


def test_ollama_9362_p100_pcie_cut_name_is_the_16gb_card_at_its_default_cap() -> None:
    # Real (corpus 319, ollama/ollama#9362): "Tesla P100-PCIE..." with 16280 MiB and a 250 W cap.
    gpus = parse_table(body("319"))
    spec = gpus.gpus[0].spec
    assert spec is not None and spec.name == "Tesla P100 PCIe 16GB" and spec.power_w == 250
    r = _check(body("319"), "PWR-GPU-POWER-LIMIT")
    assert r.status == "ok" and "250 W" in r.message
    # Modelled: the 12 GB board's memory names the other row; a 200 W cap on it is a lowered limit.
    twelve = body("319").replace("2MiB / 16280MiB", "2MiB / 12198MiB").replace("27W / 250W", "27W / 200W")
    assert parse_table(twelve).gpus[0].name == "Tesla P100-PCIE-12GB"
    assert _check(twelve, "PWR-GPU-POWER-LIMIT").status == "issue"
