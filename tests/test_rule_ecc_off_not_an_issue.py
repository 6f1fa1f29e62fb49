"""MEM-ECC-MODE: ECC off on every GPU, nothing pending shown, is not an issue (corpus 1871, 631).

ECC off is the value a reader flags first. On data-center boards that ship with it on, off was the host's choice; on
workstation boards off may be the factory default. Either way, with every GPU the same and no change pending shown,
it is not a fault.
"""

from __future__ import annotations

from corpus import capture_checks

ECC = "MEM-ECC-MODE"


def test_quadro_rtx_6000_off() -> None:
    """Real (capture 1871, NVIDIA/k8s-device-plugin#350): one Quadro RTX 6000, ECC Off in the table."""
    r = capture_checks("1871", ECC)[ECC]
    assert r.status == "not-an-issue" and "Quadro RTX 6000" in r.message and "not a fault" in r.message


def test_rtx_a6000_off() -> None:
    """Real (capture 631, NVIDIA/nccl-tests#320): three RTX A6000, ECC Off on the two the table shows whole."""
    assert capture_checks("631", ECC)[ECC].status == "not-an-issue"


def test_shipped_on_board_off_names_the_choice() -> None:
    """Real (capture 319): a Tesla P100 with ECC off, a board that ships with it on."""
    r = capture_checks("319", ECC)[ECC]
    assert r.status == "not-an-issue" and "ship with ECC enabled" in r.message


def test_enabled_stays_ok() -> None:
    """Modelled: the same one-GPU table with ECC on reads ok, nothing to flag."""
    from stackaudit.checks.mem import ecc_mode
    from stackaudit.facts.nvidia_smi import parse_table

    one = _T4_PAIR.split("|   1  ")[0]
    assert ecc_mode(parse_table(one)).status == "ok"


def test_mixed_modes_stay_an_issue() -> None:
    """Modelled: two GPUs, one with ECC on and one off, keep the mismatch finding."""
    from stackaudit.checks.mem import ecc_mode
    from stackaudit.facts.nvidia_smi import parse_table

    text = _T4_PAIR
    assert ecc_mode(parse_table(text)).status == "issue"


_T4_PAIR = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |
| N/A   34C    P8     9W /  70W |      2MiB / 15360MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
|   1  Tesla T4            Off  | 00000000:00:05.0 Off |                  Off |
| N/A   33C    P8     9W /  70W |      2MiB / 16384MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""
