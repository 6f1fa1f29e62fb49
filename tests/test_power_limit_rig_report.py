"""PWR-GPU-POWER-LIMIT from club-3090's rig report (importers/rig_report.py): the GPU bullets carry the set limit
and the GPU's own default, read as the `nvidia-smi -q` they summarise. Pastes are the GPU hardware bullets of
each report, verbatim."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.errors import InputError
from test_corpus_statuses import _coverage

PWR = "PWR-GPU-POWER-LIMIT"

# https://github.com/noonghunna/club-3090/issues/445 (one water-cooled RTX 3090, capped at 330 W of 390 W).
CLUB_445 = """\
## GPU hardware

- **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 595.71.05 | VBIOS 94.02.42.00.A9 | persistence=Enabled
  - **Power:** limit=330.00 W (default=390.00 W, max=480.00 W) | current_draw=14.89 W ⚠ user-capped below default
  - **PCIe:** x16 lanes negotiated (GPU max x16, Gen up to 4) | bus 00000000:01:00.0
- **CUDA Runtime (per driver):** 13.2
"""

# https://github.com/noonghunna/club-3090/issues/688 (4x RTX 3090 at 250 W; the first two GPUs' bullets).
CLUB_688 = """\
- **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 595.71.05 | VBIOS 94.02.42.40.A2 | persistence=Enabled
  - **Power:** limit=250.00 W (default=370.00 W, max=390.00 W) | current_draw=30.84 W ⚠ user-capped below default
  - **PCIe:** x16 lanes negotiated (GPU max x16, Gen up to 3) | bus 00000000:01:00.0
- **GPU 1:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 595.71.05 | VBIOS 94.02.59.00.D6 | persistence=Enabled
  - **Power:** limit=250.00 W (default=350.00 W, max=350.00 W) | current_draw=24.67 W ⚠ user-capped below default
  - **PCIe:** x16 lanes negotiated (GPU max x16, Gen up to 3) | bus 00000000:41:00.0
"""

# https://github.com/noonghunna/club-3090/issues/353 (an EVGA RTX 3090 Ti at its own 450 W default).
CLUB_353 = """\
- **GPU 0:** NVIDIA GeForce RTX 3090 Ti | 24564 MiB | driver 580.159.03 | VBIOS 94.02.A0.00.5C | persistence=Disabled
  - **Power:** limit=450.00 W (default=450.00 W, max=480.00 W) | current_draw=27.94 W
  - **PCIe:** x4 lanes negotiated (GPU max x16, Gen up to 4) | bus 00000000:C5:00.0 ⚠ slot is narrower than GPU capability — affects load + all-reduce bandwidth
"""


def test_both_gpus_capped_402() -> None:
    # club-3090#178: two RTX 3090 at 280 W of 350 W.
    r = capture_checks("402", PWR)[PWR]
    assert r.status == "issue" and "280 W" in r.message and "350 W" in r.message


def test_one_gpu_capped_against_its_own_default(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, CLUB_445, PWR)[PWR]
    assert r.status == "issue" and "390 W" in r.message  # the board's own default, not the table's 350 W


def test_caps_against_each_boards_default(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, CLUB_688, PWR)[PWR]
    assert r.status == "issue" and "370 W" in r.message and "350 W" in r.message


def test_at_the_default_is_ok(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, CLUB_353, PWR)[PWR]
    assert r.status == "ok" and "450 W" in r.message


def test_modelled_bullets_without_a_bus_are_read_by_index(tmp_path: Path) -> None:
    # Modelled on 445: the PCIe bullet (with the bus id) left out: the GPU is filed under its index, and the report
    # is an excerpt, so the coverage names no host count.
    text = "\n".join(line for line in CLUB_445.splitlines() if "**PCIe:**" not in line) + "\n"
    r = paste_checks(tmp_path, text, PWR)[PWR]
    assert r.status == "issue" and "390 W" in r.message
    assert _coverage(r) == "1 GPU shown"


def test_modelled_nothing_but_headings_is_not_read(tmp_path: Path) -> None:
    # Modelled: the report's headings without a GPU or CPU bullet are nothing this tool reads.
    with pytest.raises(InputError, match="nothing recognisable"):
        paste_checks(tmp_path, "## GPU hardware\n\n- **CUDA Runtime (per driver):** 13.2\n", PWR)


# PCIE-LINK-DOWNTRAIN from the same bullets: report.sh prints the negotiated width and the GPU's maximum, not the
# current generation, so the width is judged (checks/pcie.py link_downtrain).
LINK = "PCIE-LINK-DOWNTRAIN"


def test_full_width_on_both_gpus_402() -> None:
    r = capture_checks("402", LINK)[LINK]
    assert r.status == "ok" and "x16 of x16" in r.message


@pytest.mark.parametrize("text", [CLUB_445, CLUB_688])
def test_full_width_is_ok(tmp_path: Path, text: str) -> None:
    r = paste_checks(tmp_path, text, LINK)[LINK]
    assert r.status == "ok" and "generation is not in the source" in r.message


def test_x4_of_x16_is_narrow(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, CLUB_353, LINK)[LINK]
    assert r.status == "issue" and "x4 (capable x16" in r.message


def test_modelled_bullet_without_widths_says_nothing(tmp_path: Path) -> None:
    # Modelled on 445: the PCIe bullet keeps only the bus id: no link read.
    text = CLUB_445.replace("x16 lanes negotiated (GPU max x16, Gen up to 4) ", "")
    assert paste_checks(tmp_path, text, LINK)[LINK].status == "unknown"


def test_a_list_pasted_from_gpu_1_shows_gpu_0_unread() -> None:
    # Corpus 525 (noonghunna/club-3090): the stored copy starts inside GPU 0's bullets, at GPU 0's PCIe line, so GPU 1
    # (the GTX 1080) is the first GPU bullet: GPU 0 is shown by its number, not read, and GPU 1 keeps its index.
    from corpus import body, fact, pasted

    gpus = fact(pasted(body("525")), "nvidia").gpus
    assert [(g.index, g.name, g.persistence) for g in gpus] == [(0, "", None), (1, "NVIDIA GeForce GTX 1080", False)]
    r = capture_checks("525", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert r.status == "issue" and "GPU(s) 1;" in r.message and _coverage(r) == "1 of 2 GPUs shown"


def test_cap_against_a_default_cut_after_its_point_2498() -> None:
    # club-3090#347: the paste is cut inside GPU 1's power line (`limit=270.00 W (default=350.`); the default's whole
    # watts are shown, so the RTX 3090's 270 W cap is below it; the A5000 beside it sits at its 230 W default.
    r = capture_checks("2498", PWR)[PWR]
    assert r.status == "issue" and "270 W" in r.message and "350 W" in r.message


def test_modelled_default_cut_inside_its_digits_is_not_read(tmp_path: Path) -> None:
    # Modelled on 445: cut at `default=39` the default may be 390 W or more: no cap is read against it.
    line = next(li for li in CLUB_445.splitlines() if "**Power:**" in li)
    text = CLUB_445.replace(line, line[:line.index("default=") + len("default=39")])
    r = paste_checks(tmp_path, text, PWR)[PWR]
    assert r.status != "issue"
    cut = CLUB_445.replace(line, line[:line.index("default=") + len("default=390.")])
    assert paste_checks(tmp_path, cut, PWR)[PWR].status == "issue"


def test_modelled_cut_default_at_or_below_the_limit_is_no_cap(tmp_path: Path) -> None:
    # Modelled on 353: a 450 W limit against a default cut at `450.` is not below it.
    line = next(li for li in CLUB_353.splitlines() if "**Power:**" in li)
    text = CLUB_353.replace(line, line[:line.index("default=") + len("default=450.")])
    assert paste_checks(tmp_path, text, PWR)[PWR].status == "ok"


@pytest.mark.parametrize(("line", "model"), [
    ("CPU：64 cores", None),  # corpus 2910 (llama-gpt#75): a count of cores, no model
    ("CPU: 64 Cores / 128 threads", None),  # modelled
    ("CPU: 16 vCPUs", None),  # modelled
    ("CPU: AMD EPYC 7763 64-Core Processor", "AMD EPYC 7763 64-Core Processor"),  # modelled
    ("CPU：Intel Xeon Gold 6330", "Intel Xeon Gold 6330"),  # modelled, full-width colon
])
def test_a_stated_cpu_is_read_only_where_it_names_a_model(line: str, model: str | None) -> None:
    """A stated CPU line is lscpu's model name only where its value names a model; a count of cores is not one."""
    from stackaudit.facts._parse import stated_line
    from stackaudit.importers.rig_report import _ROW_CPU
    m = _ROW_CPU.match(stated_line(line))
    assert (m.group(1) if m else None) == model


def test_a_full_width_cpu_line_is_read_gated_as_ungated() -> None:
    """The needles gate a full-width `CPU：` line to the reader (modelled), as the reader without gates reads it."""
    from test_importer_needles import spans, ungated
    lines = ["My server", "CPU：Intel Xeon Gold 6330", "GPU：2x RTX 3090"]
    gated = spans(lines)
    with ungated():
        assert spans(lines) == gated
    assert any(kind == "rig report" for kind, *_ in gated[0])
