"""Windows and WSL 2 GPUs as nvidia-smi shows them (h54b): a display GPU that WSL 2 reaches is shared with the
Windows desktop (MEM-GPU-SHARED issue), a Windows host's table beside the user's words that the GPU fails in WSL is
a VM the GPUs do not reach (FW-VM issue), `CUDA Version: ERR!` under a known driver branch is no version gap
(DRV-CUDA-COMPAT not an issue), and a Linux display on a GPU that holds only a display's share is a note."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.platform import platform_words

# Modelled on corpus 1177 (microsoft/WSL#9134): Windows' nvidia-smi with its TCC/WDDM column, one GeForce in WDDM
# driving the display, at idle.
WINDOWS_TABLE = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 517.48       Driver Version: 517.48       CUDA Version: 11.7     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ... WDDM  | 00000000:0A:00.0  On |                  N/A |
|  0%   31C    P8    16W / 250W |    576MiB / 11264MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


@pytest.mark.parametrize("number", ["1168", "1169", "1177"])
def test_wsl_display_gpu_is_shared_with_the_windows_desktop(number: str) -> None:
    """1168: WSL 2's own table (its header's library over the Windows driver); 1169 and 1177: the Windows host's
    table beside the user's words naming WSL. No serving work is shown on any of them."""
    result = capture_checks(number, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "issue", result.message
    assert "WSL 2" in result.message and "Windows desktop" in result.message
    assert result.severity == "low"


@pytest.mark.parametrize("number", ["661", "924"])
def test_native_windows_display_without_serving_work_stays_a_note(number: str) -> None:
    """661 (Tabby on a Quadro T2000 laptop) and 924 (LM Studio on a 4090): WDDM display GPUs, no WSL named."""
    assert capture_checks(number, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "not-an-issue"


def test_modelled_windows_table_alone_is_a_note(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, WINDOWS_TABLE, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue", result.message


def test_modelled_windows_table_beside_wsl_words_is_shared(tmp_path: Path) -> None:
    text = "I run vLLM in WSL2 on this machine.\n\n" + WINDOWS_TABLE
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED", "FW-VM")
    assert result["MEM-GPU-SHARED"].status == "issue", result["MEM-GPU-SHARED"].message
    # WSL named without a failure, every GPU in WDDM: nothing says the GPUs miss the VM.
    assert result["FW-VM"].status != "issue", result["FW-VM"].message


@pytest.mark.parametrize("number", ["1169", "1177"])
def test_gpu_failing_in_wsl_on_a_windows_host_is_fw_vm_issue(number: str) -> None:
    result = capture_checks(number, "FW-VM")["FW-VM"]
    assert result.status == "issue", result.message
    assert "WSL VM on this Windows host" in result.message and "do not reach" in result.message


def test_tcc_gpu_is_never_handed_to_wsl() -> None:
    """Corpus 1169: the Tesla P100 is in TCC mode."""
    result = capture_checks("1169", "FW-VM")["FW-VM"]
    assert "TCC mode" in result.message and "0000:04:00.0" in result.subjects


def test_modelled_windows_table_beside_wsl_failure(tmp_path: Path) -> None:
    text = "nvidia-smi does not work in WSL 2, but on Windows it does:\n\n" + WINDOWS_TABLE
    assert paste_checks(tmp_path, text, "FW-VM")["FW-VM"].status == "issue"


@pytest.mark.parametrize(("line", "fails"), [
    ("I however on the other hand, can never get nvidia-smi to work under WSL.", True),
    ("I get this error in WSL:", True),
    ("The container is running in WSL2.", False),
])
def test_wsl_in_the_users_words(line: str, fails: bool) -> None:
    words = platform_words(line)
    assert words is not None and words.wsl and words.fails is fails


def test_a_failure_outside_wsl_is_no_wsl_failure() -> None:
    """Corpus 376: the container fails, WSL itself works."""
    words = platform_words("Ollama cannot detect my NVIDIA GPU inside the container, but it works fine on WSL")
    assert words is None or not words.fails


def test_cuda_version_err_under_a_known_branch_is_no_version_gap() -> None:
    """Corpus 1168: `CUDA Version: ERR!` over driver 546.80 (R545, CUDA 12.3)."""
    result = capture_checks("1168", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "not-an-issue", result.message
    assert "ERR!" in result.message and "12.3" in result.message


def test_linux_display_holding_a_displays_share_on_a_serving_gpu_is_a_note() -> None:
    """Corpus 1159: TGI's container serves on an RTX 6000 Ada that drives a display and holds 70 MiB of 49140."""
    result = capture_checks("1159", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue", result.message
    assert "70 of 49140 MiB" in result.message


@pytest.mark.parametrize("number", ["470", "472"])
def test_linux_display_on_a_gpu_holding_a_model_stays_an_issue(number: str) -> None:
    assert capture_checks(number, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "issue"
