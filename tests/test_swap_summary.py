"""The swap line of top's and free's summary, pasted on its own, read into the one swap fact (facts/kernel_knobs.py
swap_summary): KERN-SWAP not applicable where it shows no swap, never from a figure too coarse to tell none."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.kernel_knobs import swap_summary

SWAP = "KERN-SWAP"


@pytest.mark.parametrize(("line", "want"), [
    ("MiB Swap: 0.0 total, 0.0 free, 0.0 used. 1977538.+avail Mem ", (0, 0)),  # corpus 1214 (procps-ng top)
    ("KiB Swap:  8388604 total,        0 used,  8388604 free.  1234567 cached Mem", (8388604, 8388604)),  # modelled
    ("Swap:  2097144k total,     1024k used,  2096120k free,   123456k cached", (2097144, 2096120)),  # modelled
    ("MiB Swap:   8192.0 total,   4096.0 free,   4096.0 used.  12000.0 avail Mem", (8388608, 4194304)),  # modelled
    ("Swap:             0B          0B          0B", (0, 0)),  # corpus 33 (free -h)
    ("Swap:          8.0Gi       1.0Gi       7.0Gi", (8388608, 7340032)),  # modelled (free -h)
    ("Swap:           2.0G          0B        2.0G", (2097152, 2097152)),  # modelled (older free -h)
])
def test_summary_lines(line: str, want: tuple[int, int]) -> None:
    assert swap_summary(line) == want


@pytest.mark.parametrize("line", [
    "Swap:             0           0           0",  # corpus 366 (free -g): whole GiB, truncated
    "GiB Swap:      0.0 total,      0.0 free,      0.0 used.    120.5 avail Mem",  # modelled: under 52 MiB
    "Swap: 0.0 total",  # no free and used figures
    "I have no Swap: it is off",
])
def test_too_coarse_or_not_a_summary(line: str) -> None:
    assert swap_summary(line) is None


def test_top_without_swap_is_not_applicable() -> None:
    r = capture_checks("1214", SWAP)[SWAP]
    assert r.status == "not-applicable" and "no swap configured" in r.message


def test_free_with_swap_in_use_wants_the_serving_processes(tmp_path: Path) -> None:
    # Modelled on corpus 33's free -h: swap on and in use, no process shown, so which process is swapped is not known.
    text = ("               total        used        free      shared  buff/cache   available\n"
            "Mem:           1.5Ti       117Gi       194Gi       2.0Gi       1.2Ti       1.4Ti\n"
            "Swap:          8.0Gi       1.0Gi       7.0Gi\n")
    r = paste_checks(tmp_path, text, SWAP)[SWAP]
    assert r.status == "unknown" and "swap on: 8388608 KiB" in r.message
