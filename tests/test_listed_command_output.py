"""Issue 28 (kind gaps, corpus 2472): a Markdown list item that names a command and, after a colon, the one line it
printed (`- lspci | grep -i nvidia: 3D controller: NVIDIA Corporation TU116M ...`, `- nvidia-smi: VIDIA-SMI has
failed ...`) is read as the command over its output: lspci's display header without its address, under its command,
is a device; nvidia-smi's no-driver sentence, its first letter lost in the copy, is still nvidia-smi's.

The outputs are real, verbatim from the corpus pastes named (their public threads in their headers), except where a
test says it models one.
"""

from __future__ import annotations

from corpus import body, capture_report, fact, pasted, report_spans
from stackaudit.facts.lspci import UNADDRESSED_KEY
from stackaudit.facts.nvidia_smi import NO_DRIVER
from stackaudit.importers._paste import view


def test_the_listed_lspci_and_nvidia_smi_lines_of_2472_are_their_kinds() -> None:
    # linux-surface/linux-surface#573: the user's two list items, each a command and its output.
    spans = report_spans(capture_report("2472"))
    assert ("lspci", 3, 3) in spans and ("nvidia-smi", 4, 4) in spans, spans
    host = pasted(body("2472"))
    [gpu] = fact(host, "pcie").functions
    assert gpu.bdf == UNADDRESSED_KEY.format(n=1) and gpu.role == "gpu"
    assert "GeForce GTX 1660 Ti Mobile" in gpu.lspci.description
    nvidia = fact(host, "nvidia")
    assert "reached no NVIDIA driver" in nvidia.reason, nvidia.reason


def test_the_listed_nvidia_smi_header_of_1141_is_nvidia_smis() -> None:
    # Another thread (corpus 1141, a WSL hardware list): `-  nvidia-smi: NVIDIA-SMI 580.105.08  Driver Version: ...`.
    lines = view(body("1141")).lines
    at = lines.index("nvidia-smi")
    assert lines[at + 1].startswith("NVIDIA-SMI 580.105.08  Driver Version: 572.16")
    assert ("nvidia-smi", 4, 4) in report_spans(capture_report("1141"))


def test_a_shells_refusal_and_prose_stay_whole() -> None:
    # Modelled: the shell's words about the command, and list items that only mention it, are not its output.
    for line in ("- nvidia-smi: command not found", "- lspci: No such file or directory",
                 "- nvidia-smi shows: nothing", "- my lspci output: see below", "- GPU: NVIDIA GeForce GTX 1650"):
        assert view(line + "\n").lines[0] == line, line
    # Modelled: a display header with no lspci command above it and no detail lines below is prose, not a device.
    host = pasted("The laptop has this GPU:\n3D controller: NVIDIA Corporation TU116M [GeForce GTX 1660 Ti Mobile]\n")
    assert not hasattr(fact(host, "pcie"), "functions")


def test_only_nvidia_smis_sentence_loses_its_first_letter() -> None:
    assert NO_DRIVER.search("VIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
    assert not NO_DRIVER.search("IDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
