"""FW-VM from two names of a VM: WSL 2's nvidia-smi header (facts/platform.py `wsl_driver`) and Kaggle's notebooks
in the user's words (the Kaggle row of PLATFORM_WORDS).

NVML refuses a library of another version than the kernel driver, so `NVIDIA-SMI` and `Driver Version` are one
version on Linux and on Windows; under WSL 2 the Linux library reports the Windows driver (`NVIDIA-SMI 555.52.01`
over `Driver Version: 555.99`). Kaggle's notebooks run on Google Cloud VMs.

Real pastes: corpus 567 (ollama/ollama#7006: 555.52.01 over 555.99), 376 (its table alone: 565.51.01 over 565.90)
and 170 (`NVIDIA-SMI 590.57 Driver Version: 591.86` in a hardware list); the Kaggle lines of THUDM/LongWriter#38
("Hardware: 2x NVIDIA T4 GPUs (Kaggle environment)", "Platform: Kaggle Notebooks") and unslothai/unsloth#431 ("on
T4x2 GPU accelerator on Kaggle"; its "I used the kaggle guide book in the readme" names no machine).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, body, capture_checks, fact, paste_checks, pasted
from gap_pastes import H100_BUS, nvidia_smi_table
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.facts.platform import platform_words, wsl_driver

VM = "FW-VM"


def _capture_table(prefix: str) -> str:
    text = next(CAPTURES_DIR.glob(prefix + "-*.txt")).read_text()
    body = text.split("everything below this line is the capture, verbatim -----\n", 1)[1]
    return "\n".join(line for line in body.splitlines() if line.startswith(("|", "+")))


@pytest.mark.parametrize("prefix", ["567", "376"])
def test_a_linux_library_over_a_windows_driver_is_wsl(prefix: str) -> None:
    said = wsl_driver(parse_table(_capture_table(prefix)))
    assert "Windows driver" in said and "WSL 2" in said


def test_567_is_read_as_a_wsl_guest_with_its_one_gpu_of_a_cut_table() -> None:
    result = capture_checks("567", VM)[VM]
    # The table is cut inside GPU 0's rows: judged over the one GPU shown, the cut named.
    assert result.status == "not-an-issue" and "virtual machine (microsoft)" in result.message
    assert "1 GPU shown" in result.message, result.message


def test_376s_whole_table_alone_is_a_vm(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, _capture_table("376") + "\n", VM)[VM]
    assert "virtual machine (microsoft)" in result.message


def test_one_version_in_the_header_is_no_wsl(tmp_path: Path) -> None:
    # Modelled counter-example: a Linux host's table prints one version twice.
    table = nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559)
    assert wsl_driver(parse_table(table)) == ""
    assert "microsoft" not in paste_checks(tmp_path, table, VM)[VM].message


@pytest.mark.parametrize("line", ["Hardware: 2x NVIDIA T4 GPUs (Kaggle environment)", "Platform: Kaggle Notebooks",
                                  "executed it step by step on T4x2 GPU accelerator on Kaggle"])
def test_kaggle_named_as_the_machine(line: str) -> None:
    row = platform_words(line)
    assert row is not None and row.vm == "google"


@pytest.mark.parametrize("line", ["I used the kaggle guide book in the readme", "I downloaded it from a Kaggle dataset",
                                  "Unlike on Kaggle, here it fails", "does it run on Kaggle?"])
def test_kaggle_named_as_anything_else(line: str) -> None:
    # Modelled counter-examples beside unsloth#431's guide line: a dataset, a comparison, a question.
    assert platform_words(line) is None


def test_a_kaggle_machine_of_two_t4s_is_a_vm(tmp_path: Path) -> None:
    text = ("### System Info\n\nPython version: 3.10\nHardware: 2x NVIDIA T4 GPUs (Kaggle environment)\n"
            "Platform: Kaggle Notebooks\n")
    assert "virtual machine (google) with 2 GPUs" in paste_checks(tmp_path, text, VM)[VM].message


def test_the_header_line_copied_into_prose_shows_wsl_too() -> None:
    """Corpus 1141 (NVIDIA/TensorRT-LLM#9766): `- nvidia-smi: NVIDIA-SMI 580.105.08  Driver Version: 572.16` in the
    user's environment list, no table: the Linux library over the Windows driver is WSL 2's."""
    fact_ = fact(pasted(body("1141")), "virtualization")
    assert fact_.is_vm and fact_.wsl and "572.16" in fact_.source


def test_the_same_header_line_with_one_version_is_no_vm(tmp_path: Path) -> None:
    """Modelled: the same line from a Linux host, whose library and driver are one version."""
    text = body("1141").replace("580.105.08", "572.16")
    assert not getattr(fact(pasted(text), "virtualization"), "is_vm", False)
