"""DRV-XID: an application Xid (13/31/43) on a GPU whose PCIe link failed in the same log is hardware
(facts/gpu_events.GpuEvents.app_faults_on_failed_links).

An uncorrectable AER error naming the GPU's device (any function), or the kernel's failed AER recovery, before or
beside the Xid says the fault came from the link, not the program: an issue. A corrected AER error, or an
uncorrectable one on another device, leaves the application Xid the program's.
Real pastes are corpus captures (their public threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpu_events import GpuEvents, parse_gpu_events
from stackaudit.facts.pcie_errors import parse_aer_lines


def test_an_mmu_fault_after_a_failed_aer_recovery_is_hardware() -> None:
    # Corpus 437 (NVIDIA/open-gpu-kernel-modules#1229): a Thunderbolt eGPU's CmpltTO and MalfTLP, AER cannot recover,
    # then Xid 31 from plasmashell.
    result = capture_checks("437", "DRV-XID")["DRV-XID"]
    assert result.status == "issue", result.message
    assert "PCIe link failed" in result.message and "0000:63:00.0" in result.subjects
    assert "Xid 31" in result.message and any("Xid (PCI:0000:63:00): 31" in e for e in result.evidence)
    # One log line, one finding: the AER lines are FW-AER-ERRORS's quote, not this one's.
    assert not any("AER" in e for e in result.evidence)


# Modelled on 437: the same Xid with only corrected errors on the GPU's link, and an uncorrectable error on another
# device (a NIC at 0000:41:00.0, the igb lines of a linux-pci thread).
XID31 = ("NVRM: Xid (PCI:0000:63:00): 31, pid=4242, name=python3, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS "
         "GPCCLIENT_T1_0 faulted @ 0x7f12_34560000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n")
CORRECTED = ("pcieport 0000:00:01.2: AER: Corrected error received: 0000:63:00.0\n"
             "nvidia 0000:63:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n")
OTHER_DEVICE = ("pcieport 0000:40:01.0: AER: Multiple Uncorrected (Non-Fatal) error received: 0000:41:00.0\n"
                "igb 0000:41:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer\n"
                "pci 0000:41:00.1: AER: can't recover (no error_detected callback)\n")


def test_corrected_or_elsewhere_leaves_the_program(tmp_path: Path) -> None:
    for text in (CORRECTED + XID31, OTHER_DEVICE + XID31):
        result = paste_checks(tmp_path, text, "DRV-XID")["DRV-XID"]
        assert result.status == "not-an-issue", result.message


def test_the_fact_matches_any_function_of_the_gpu() -> None:
    lines = (CORRECTED + XID31).splitlines()
    events = GpuEvents(parse_gpu_events(lines))
    assert events.app_faults_on_failed_links(parse_aer_lines(lines)) == {}
    audio = ["snd_hda_intel 0000:63:00.1: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer"]
    assert list(events.app_faults_on_failed_links(parse_aer_lines(audio))) == ["0000:63:00.0"]
