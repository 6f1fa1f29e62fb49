"""A Windows host shown by its shell's prompt or by nvidia-smi's Driver-Model header (facts/platform.WINDOWS_LINES).

cmd's and PowerShell's prompts name a drive-letter folder, and nvidia-smi on Windows heads its first column with the
driver model where Linux and WSL 2 show `Persistence-M`. Either shows the host runs Windows even where the table is cut
before any GPU row (blind 1724), so DRV-PERSISTENCE, a Linux driver setting, does not apply.

The pastes are corpus files (verbatim, with their public threads in their headers); the counter-examples are modelled.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks
from stackaudit.facts.platform import windows_lines


@pytest.mark.parametrize(("prefix", "named"), [
    ("1724", "a Windows shell's prompt: `C:\\Users\\wardm> ollama ps`"),  # ollama/ollama (cmd)
    ("1382", "a Windows shell's prompt: `PS D:\\JORO\\Docs\\Sci\\A.I> nvidia-smi`"),  # PowerShell
    ("918", "a Windows shell's prompt: `PS C:\\Users\\eyob9> nvidia-smi`"),  # PowerShell
])
def test_a_windows_prompt_names_the_host(prefix: str, named: str) -> None:
    """Real (the corpus files' threads): the first Windows line each paste shows is its prompt."""
    assert windows_lines(body(prefix)).startswith(named)


def test_the_driver_model_header_names_a_windows_driver() -> None:
    """Real (corpus 304's header, its prompt left out): the header alone, with no GPU row, shows Windows."""
    header = next(line for line in body("304").splitlines() if "Driver-Model" in line or "TCC/WDDM" in line)
    assert windows_lines(header).startswith("nvidia-smi's Driver-Model column (a Windows driver)")


def test_a_table_cut_before_its_first_row_on_windows_1724() -> None:
    """Real (corpus 1724): nvidia-smi cut inside GPU 0's name, on a Windows host: persistence does not apply."""
    result = capture_checks("1724", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert result.status == "not-applicable"
    assert "a Windows host (a Windows shell's prompt" in result.message


@pytest.mark.parametrize("line", [
    "|   GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",  # Linux and WSL 2
    "user@host:/mnt/c/Users/me$ nvidia-smi",  # a WSL 2 shell on the Windows drive
    "see C:\\Users\\me\\notes.txt for the log; the path > 260 characters",  # prose: no prompt at the line's start
])
def test_linux_and_wsl_lines_name_no_windows_host(line: str) -> None:
    """Modelled: Linux's header, WSL 2's prompt and a path in prose are no Windows host."""
    assert windows_lines(line) == ""
