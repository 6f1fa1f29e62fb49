"""A pasted `dkms status` line of the nvidia module (blind batch YH, corpus 1336).

The line shows the module built and installed for a kernel (facts/kernel_knobs.DKMS_INSTALLED): the paste is not
refused, the module's version is the installed one, and the kernel it names is not taken for the running one (after a
failed DKMS build the line lists only the old kernel). Lines are real where a public thread is named beside them, else modelled and marked so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.kernel_knobs import dkms_installed

COMBOS = "KVER-NVIDIA-KERNEL-COMBOS"

# NVIDIA/nvidia-container-toolkit#171 (corpus 1336), dkms 2's form in inline code.
DKMS2 = "`nvidia-current, 470.199.02, 5.10.0-26-amd64, x86_64: installed`"
# Modelled, and marked so: dkms 3 prints `<module>/<version>, <kernel>, <arch>: installed`.
DKMS3 = "nvidia/535.104.05, 6.2.0-32-generic, x86_64: installed"


def test_both_forms_read_version_and_kernel() -> None:
    assert dkms_installed(DKMS2) == ("470.199.02", "5.10.0-26-amd64")
    assert dkms_installed(DKMS3) == ("535.104.05", "6.2.0-32-generic")
    assert dkms_installed("nvidia/550.54.14: added") is None  # registered, not built
    assert dkms_installed("virtualbox, 6.1.38, 5.15.0-48-generic, x86_64: installed") is None


def test_corpus_1336_is_read_and_the_kernel_stays_unknown() -> None:
    result = capture_checks("1336", COMBOS)[COMBOS]
    assert result.status == "unknown"
    assert "kernel" in result.message


def test_the_installed_version_is_judged_once_the_kernel_is_shown(tmp_path: Path) -> None:
    # Modelled: the dkms line of corpus 1336 with `uname -r`'s release stated beside it.
    result = paste_checks(tmp_path, "Kernel: 5.10.0-26-amd64\n" + DKMS2 + "\n", COMBOS)[COMBOS]
    assert "470.199.02" in (result.message + str(result.actual))
