"""FW-IOMMU-MODE from RCCL's start-up warning `Missing "iommu=pt" from kernel command line` (facts/symptoms.py
`rccl-iommu-pt-missing`), and the user's words that the IOMMU is off (facts/system.stated_iommu_off).

RCCL reads /proc/cmdline at start-up and warns where `iommu=pt` is not on it; ROCm's install FAQ (Issue #5) names
the line as a cause of hangs on multi-GPU hosts. The warning reads only the command line: where the user says the
IOMMU is off, it looks wrong and is not. Real lines are verbatim from the public thread beside each (or a corpus
capture); modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.system import stated_iommu_off

# ROCm/rccl#908: RCCL 2.18.3's three start-up warnings (the first, `amd_iommu=on`, is a no-op value it asked for).
RCCL_908 = """\
sharbox-ultra:204802:204802 [0] /home/elias/rccl/build/release/hipify/src/init.cc:125 NCCL WARN Missing "amd_iommu=on" from kernel command line which can lead to system instablity or hang!

sharbox-ultra:204802:204802 [0] /home/elias/rccl/build/release/hipify/src/init.cc:127 NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!

sharbox-ultra:204802:204802 [0] /home/elias/rccl/build/release/hipify/src/init.cc:132 NCCL WARN Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from environment which can lead to low RCCL performance, system instablity or hang!
"""


def _iommu(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "FW-IOMMU-MODE")["FW-IOMMU-MODE"]


def test_the_warning_proves_the_issue_on_its_own(tmp_path: Path) -> None:
    for result in (capture_checks("970", "FW-IOMMU-MODE")["FW-IOMMU-MODE"], _iommu(tmp_path, RCCL_908)):
        assert result.status == "issue", result.message
        assert any('Missing "iommu=pt"' in line for line in result.evidence)
        # The `amd_iommu=on` warning asks for a value that does nothing: never quoted as the proof.
        assert not any("amd_iommu=on" in line for line in result.evidence)
        assert "ROCm" in result.message


def test_the_user_saying_the_iommu_is_off_rules_the_warning_out(tmp_path: Path) -> None:
    # Corpus 974 (ROCm/vllm#390's commenter: `IOMMU is disabled`); the second is modelled: rccl#908's lines under a
    # sentence of the user's.
    for result in (capture_checks("974", "FW-IOMMU-MODE")["FW-IOMMU-MODE"],
                   _iommu(tmp_path, "I disabled the IOMMU in the BIOS, it still hangs.\n\n" + RCCL_908)):
        assert result.status == "not-an-issue", result.message
        assert "reads only the kernel command line" in result.message
        assert 'Missing "iommu=pt"' in result.message


def test_a_question_about_the_iommu_states_nothing(tmp_path: Path) -> None:
    # Modelled: the user asks; the warning stands.
    result = _iommu(tmp_path, "Should I disable the IOMMU in the BIOS? I get this:\n\n" + RCCL_908)
    assert result.status == "issue", result.message


@pytest.mark.parametrize(("line", "off"), [
    ("IOMMU is disabled, ReBAR is enabled, ROCm 6.4 with dual gfx1100 with EPYC Siena.", True),
    ("I disabled both ACS and IOMMU.", True),
    ("the fix that worked was VT-d off in the firmware", True),
    ("AMD-Vi turned off, same hang", True),
    ("IOMMU is not disabled on this host", False),
    ("do I need to disable the IOMMU?", False),
    ("GRUB_CMDLINE_LINUX_DEFAULT=\"iommu=pt\"", False),
    ("IOMMU is enabled", False),
])
def test_stated_iommu_off(line: str, off: bool) -> None:
    assert stated_iommu_off(line) is off
