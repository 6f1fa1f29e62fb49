"""PCIE-LINK-DOWNTRAIN on an `nvidia-smi -q` GPU section without its PCI address (facts/gpu_links.py
links_from_nvidia): an excerpt cut below its `GPU 00000000:..` header and Bus Id still shows the link.

Such a GPU is judged from the NVIDIA side alone, keyed by its index, over that one GPU: current = max generation and
width is ok, a lower generation at full width is idle power saving, a width below max is the fault. The slices below
are cut from real pastes (the public source beside each) the way corpus 596 was retrieved; variants are modelled
where marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from test_blind_verdicts import RTX_2080_TI, TITAN_X
from test_corpus_statuses import _coverage

CHECK = "PCIE-LINK-DOWNTRAIN"


def _below_bus_id(text: str) -> str:
    """The part of an `nvidia-smi -q` GPU section after its Bus Id line: no PCI address is left."""
    lines = text.splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if line.strip().startswith("Bus Id"))
    return "".join(lines[cut + 1:])


def _run(tmp_path: Path, text: str) -> Any:
    return paste_checks(tmp_path, text, CHECK)[CHECK]


def test_corpus_596_is_ok_over_the_one_gpu_shown() -> None:
    # Corpus 596 (NVIDIA/k8s-device-plugin#301): Gen4 of 4, x16 of 16x, the section cut above Sub System Id.
    result = capture_checks("596", CHECK)[CHECK]
    assert result.status == "ok", result.message
    assert "GPU 0 Gen4 x16" in result.message
    assert _coverage(result) == "1 GPU shown"


def test_sliced_real_sections_at_full_link_are_ok(tmp_path: Path) -> None:
    # https://github.com/maz906/caffe nvidia-bug-report.log (GTX TITAN X, Gen3 x16);
    # https://github.com/duaneya/tool_man nvidia-bug-report.log (RTX 2080 Ti, Gen3 x16 under load);
    # corpus 228 (https://github.com/eler/git_examples nvidia-bug-report.log, a GTX 1080 Ti, Gen3 x16).
    log_228 = next(CAPTURES_DIR.glob("228-*.txt")).read_text()
    for text in (TITAN_X, RTX_2080_TI, log_228):
        result = _run(tmp_path, _below_bus_id(text))
        assert result.status == "ok", result.message
        assert "Gen3 x16" in result.message
        assert _coverage(result) == "1 GPU shown"  # never the host's other GPUs, which the slice does not show


def test_a_lower_generation_at_idle_is_not_an_issue(tmp_path: Path) -> None:
    # Modelled on the TITAN X slice: Gen1 of 3 at full width, idle (P8): the link's power saving.
    text = _below_bus_id(TITAN_X).replace("Current             : 3", "Current             : 1", 1)
    text = text.replace("Performance State               : P0", "Performance State               : P8")
    result = _run(tmp_path, text)
    assert result.status == "not-an-issue", result.message


def test_a_narrow_width_is_the_fault(tmp_path: Path) -> None:
    # Modelled on the RTX 2080 Ti slice: x8 of 16x; width does not drop for power saving.
    text = _below_bus_id(RTX_2080_TI).replace("Current             : 16x", "Current             : 8x", 1)
    result = _run(tmp_path, text)
    assert result.status == "issue", result.message
    assert "GPU 0" in result.message


def test_an_addressed_gpu_is_not_counted_twice(tmp_path: Path) -> None:
    # Modelled: the whole TITAN X section (with its Bus Id) keeps its address as the key; no `GPU 0` beside it.
    result = _run(tmp_path, TITAN_X)
    assert result.status == "ok", result.message
    assert "0000:06:00.0" in result.message and "GPU 0 " not in result.message


def test_a_gpu_the_pci_side_lists_is_not_doubled_by_an_unaddressed_section(tmp_path: Path) -> None:
    # Modelled: a cut `nvidia-smi -q` section beside `lspci -vvv` of a GPU (test_pcie_lspci.OLD_FORMAT): the
    # address-less section could be that same GPU, so only the PCI side's GPU is judged.
    from test_pcie_lspci import OLD_FORMAT

    text = "$ nvidia-smi -q\n" + _below_bus_id(TITAN_X) + "\n$ sudo lspci -vvv\n" + OLD_FORMAT
    result = _run(tmp_path, text)
    assert "GPU 0" not in result.message, result.message
