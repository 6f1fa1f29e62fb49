"""PCIE-LINK-DOWNTRAIN from club-3090's PCIe capture under load (importers/rig_report.py pcie_capture_links): each
`GPUn gen=C/M width=C/M` line is the best link the GPU reached while sampled under load, read as the link of an
`nvidia-smi -q` GPU section (generation and width, current and max)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.importers.rig_report import pcie_capture_links

LINK = "PCIE-LINK-DOWNTRAIN"

# Real: the link lines of corpus 2900 (noonghunna/club-3090#873), two GPUs at x8 of x16.
CAPTURE = """\
  link (sampled under load, best observed):
    GPU0 gen=4/4 width=8/16  ⚠ WARN: never reached gen4 x16 under load — link is training below its own maximum (check slot/riser/BIOS bifurcation)
    GPU1 gen=4/4 width=8/16  ⚠ WARN: never reached gen4 x16 under load — link is training below its own maximum (check slot/riser/BIOS bifurcation)
    denominator: ~13389 MB/s practical for a negotiated gen4 x8 link
"""


def test_corpus_2900_x8_of_x16_under_load_is_an_issue() -> None:
    checks = capture_checks("2900", LINK, "IC-P2P-FUNCTIONAL", "IC-TOPO-READ", "PWR-CLOCK-EVENTS")
    assert checks[LINK].status == "issue" and "GPU 0" in checks[LINK].message and "GPU 1" in checks[LINK].message
    assert checks[LINK].confidence == "field-reports"  # no slot width shown: an x8/x8 board split would explain it
    # A link reading shows no peer test, no topology and no clock reasons.
    assert {checks[c].status for c in ("IC-P2P-FUNCTIONAL", "IC-TOPO-READ", "PWR-CLOCK-EVENTS")} == {"unknown"}


def test_full_links_are_not_an_issue(tmp_path: Path) -> None:
    # Modelled: the same capture where both GPUs reached their full link under load.
    full = CAPTURE.replace("width=8/16  ⚠ WARN: never reached gen4 x16 under load — link is training below its own "
                           "maximum (check slot/riser/BIOS bifurcation)", "width=16/16  OK")
    r = paste_checks(tmp_path, full, LINK)[LINK]
    assert r.status in ("ok", "not-an-issue") and r.coverage is not None and r.coverage.text().startswith("2 ")


def test_one_gpu_narrow_on_another_card(tmp_path: Path) -> None:
    # Modelled: four Gen5 GPUs, one at x4 of x16; the others full.
    text = "link (sampled under load, best observed):\n" + "".join(
        f"  GPU{i} gen=5/5 width={w}/16  note\n" for i, w in enumerate((16, 16, 4, 16)))
    r = paste_checks(tmp_path, text, LINK)[LINK]
    assert r.status == "issue" and "GPU 2" in r.message and "GPU 0" not in r.message


def test_cut_and_impossible_lines_are_not_read() -> None:
    # Modelled: a paste cut inside the last GPU's max width, a current above its max, a max that is no PCIe width.
    assert [f.end for f in pcie_capture_links(["  GPU0 gen=4/4 width=16/16 OK", "  GPU1 gen=4/4 width=1/1"])] == [1]
    assert list(pcie_capture_links(["  GPU0 gen=4/4 width=8/1 x"])) == []
    assert list(pcie_capture_links(["  GPU0 gen=5/4 width=8/16 x"])) == []
    assert list(pcie_capture_links(["  GPU0 gen=4/4 width=8/10 x"])) == []
    assert list(pcie_capture_links(["  GPU0 gen=4/4 width=8/16"])) == []  # the last line, maybe cut


def test_gpus_cut_above_are_counted(tmp_path: Path) -> None:
    # Modelled: GPU0's line cut above GPU1's: two GPUs, one link read.
    r = paste_checks(tmp_path, "    GPU1 gen=4/4 width=8/16  WARN\n", LINK)[LINK]
    assert r.status == "issue" and "GPU 1" in r.message
