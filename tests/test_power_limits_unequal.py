"""Issue 28 (a value that looks wrong but is not says so): PWR-GPU-POWER-LIMIT on caps above the default.

A power cap slows only a GPU that reaches it, so a cap above the default loses nothing. GPUs of one host with
unequal caps, none below the default, are what a reader flags first: not-an-issue, both named. Every GPU above the
table's default is ok (a factory-overclocked board ships a higher default of its own); any GPU below it is the issue.

Real pastes are corpus captures (their thread in the header); the counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks


def _power(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    return r.status, r.message


def test_unequal_caps_none_below_the_default_are_a_key_negative() -> None:
    status, message = _power("302")  # noonghunna/club-3090#1251: RTX 5090 at 575 W and 600 W
    assert status == "not-an-issue"
    assert "GPU 0 575 W at the default" in message and "GPU 1 600 W" in message


def test_one_factory_overclocked_board_above_the_table_default_is_ok() -> None:
    status, message = _power("304")  # ollama/ollama#5821: one RTX 3090 capped at 390 W (reference 350 W)
    assert status == "ok" and "390 W" in message


def test_caps_below_the_default_stay_the_issue() -> None:
    assert _power("303")[0] == "issue"  # four RTX 3090 at 250 W


def test_modelled_one_raised_and_one_below_is_the_issue(tmp_path: Path) -> None:
    # Modelled: corpus 302's table with GPU 0's cap lowered to 450 W.
    text = body("302").replace("105W /  575W", "105W /  450W")
    r = paste_checks(tmp_path, text, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "issue" and "GPU 0 capped at 450 W" in r.message


def test_the_tesla_k80_row_gives_its_per_gpu_default() -> None:
    # Corpus 286 (ray-project/ray, a K80 host's table): 149 W is each GK210's default, half the 300 W board.
    r = capture_checks("286", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "ok" and "GPU 3 149 W" in r.message
    assert r.coverage is not None and r.coverage.text() == "4 GPUs shown"


def test_other_model_at_its_default_beside_a_raised_card_is_ok() -> None:
    # Real: corpus 321 (noonghunna/club-3090, its header): an RTX 5090 at 600 W (table 575 W) beside an RTX 3090 Ti at
    # its 450 W board power: each card at or above its own default, no one model at two caps.
    status, message = _power("321")
    assert status == "ok" and "GPU 1 450 W" in message and "GPU 0 600 W" in message
