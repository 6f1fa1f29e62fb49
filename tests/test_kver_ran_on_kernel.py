"""Issue 28 (h83c): KVER-NVIDIA-KERNEL-COMBOS where the kernel is shown and the driver is not, but a CUDA program ran
on the kernel; and `uname -r`'s release read on a line of its own (facts/system.BARE_KERNEL_RELEASE).

The releases and corpus 1852/1856 are real pastes; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.system import BARE_KERNEL_RELEASE, KERNEL_FLAVOURS, kernel_from_stated_line
from stackaudit.importers.evidence import is_evidence
from stackaudit.importers.registry import IMPORTERS


@pytest.mark.parametrize("line", [
    "6.18.15+deb13-amd64",  # corpus 1856 (ollama/ollama, Debian 13)
    "5.15.0-119-generic",  # corpus 1678 (Ubuntu)
    "5.19.0-1010-nvidia-lowlatency",  # corpus 1755 (Ubuntu's NVIDIA kernel)
    "4.18.0-372.9.1.el8.x86_64",  # modelled: RHEL's form
])
def test_a_kernel_release_on_a_line_of_its_own(line: str) -> None:
    m = BARE_KERNEL_RELEASE.match(line)
    assert m is not None and m.group(1) == line


@pytest.mark.parametrize("flavour", KERNEL_FLAVOURS)
def test_every_flavour_passes_the_evidence_readers_needles(flavour: str) -> None:
    """BARE_KERNEL_NEEDLES come from the same flavours as the release's pattern: no release it reads is skipped."""
    needles = IMPORTERS["evidence line"].needles
    for line in (f"5.15.0-91-{flavour}", f"4.18.0-372.9.1.el8.{flavour}"):  # modelled: each flavour, `-` and `.`
        assert BARE_KERNEL_RELEASE.match(line) is not None and is_evidence(line)
        assert any(n in line.lower() for n in needles), line


@pytest.mark.parametrize("line", ["0.20.3", "1.19.0", "12.4.131", "550.163.01", "2.7.0+cu128"])
def test_other_dotted_versions_are_no_kernel(line: str) -> None:
    assert BARE_KERNEL_RELEASE.match(line) is None


def test_corpus_1856_bare_release_and_driver_is_ok() -> None:
    r = capture_checks("1856", "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert r.status == "ok" and "6.18.15+deb13-amd64" in r.message, r.message


def test_corpus_1852_cuda_ran_on_the_kernel_is_ok() -> None:
    r = capture_checks("1852", "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert r.status == "ok" and "torch initialised CUDA" in r.message, r.message


def test_cuda_ran_beside_a_blackwell_gpu_stays_unknown(tmp_path: Path) -> None:
    """Modelled on corpus 1852 with B200s: driver 595 with HMM on can deadlock on Blackwell, and the driver is not
    shown."""
    text = body("1852").replace("NVIDIA H100 80GB HBM3", "NVIDIA B200").replace("NVIDIA H...", "NVIDIA B200")
    r = paste_checks(tmp_path, text, "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert r.status == "unknown" and "Blackwell" in r.message, r.message


def test_cuda_ran_on_linux_6_11_is_still_an_issue(tmp_path: Path) -> None:
    """Modelled on corpus 1852 on a 6.11 kernel: the pinning leak is the kernel's, whatever ran on it."""
    text = body("1852").replace("5.14.0-687.36.1.el9_8.x86_64", "6.11.0-9-generic")
    r = paste_checks(tmp_path, text, "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert r.status == "issue" and "6.11" in r.message, r.message


def test_two_different_releases_name_no_kernel() -> None:
    """kernel_from_stated_line reads the one release the lines state (facts/_parse.only_one); two name none."""
    assert kernel_from_stated_line("5.15.0-119-generic\nKernel: 5.15.0-119-generic\n").release == "5.15.0-119-generic"
    with pytest.raises(ParseError, match="no one `Kernel: "):
        kernel_from_stated_line("5.15.0-119-generic\n6.8.0-45-generic\n")  # modelled: two machines' releases


@pytest.mark.parametrize("prefix", [
    "2422",  # turbo-tan/llama.cpp-tq3#37: the user's hardware summary names one RTX 3090 Ti, driver 595.71.05, 6.17
    "1160",  # another thread: two GeForce RTX 3090 in nvidia-smi, driver 595.71.05, kernel 6.17
])
def test_driver_595_beside_gpus_shown_none_blackwell_is_ok(prefix: str) -> None:
    """Without the PCI bus, the GPUs another source names (the user's words, an nvidia-smi table) show which GPUs meet
    driver 595: none Blackwell rules its HMM deadlock (#1223) out."""
    r = capture_checks(prefix, "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert r.status == "ok" and "none Blackwell" in r.message, r.message


def test_driver_595_beside_a_blackwell_gpu_shown_stays_unknown(tmp_path: Path) -> None:
    """Real corpus 2325 (an RTX 5070 Ti, Blackwell, beside an RTX 3090) stays unknown; so does corpus 2422 modelled
    with the user naming an RTX 5090 instead."""
    assert capture_checks("2325", "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"].status == "unknown"
    text = body("2422").replace("NVIDIA RTX 3090 Ti (eVGA, GA102, 24 GB VRAM)", "NVIDIA RTX 5090 (GB202, 32 GB VRAM)")
    r = paste_checks(tmp_path, text, "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert r.status == "unknown" and "Blackwell" in r.message, r.message
