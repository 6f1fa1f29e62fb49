"""Windows shells' prompts before a command (importers/_scan.PROMPT): cmd.exe's `F:\\AI>` and PowerShell's
`PS C:\\...>`, after conda's `(base) ` too, are stripped, so the command after them is read."""

from __future__ import annotations

import pytest

from corpus import body
from stackaudit.importers._scan import strip_prompt


@pytest.mark.parametrize(("corpus", "starts"), [
    ("1597", "F:\\AI\\koboldcpp.exe -m"),  # cmd.exe, LostRuins/koboldcpp (blind ZC)
    ("1929", ".\\koboldcpp_CUDA_only.exe"),  # PowerShell, LostRuins/koboldcpp#170
    ("2014", "koboldcpp.exe --usecublas lowvram"),  # cmd.exe with a lower-case drive, LostRuins/koboldcpp#595
    ("2039", "ollama serve"),  # conda's environment before PowerShell's prompt, ollama/ollama#11849
])
def test_a_windows_prompt_is_stripped(corpus: str, starts: str) -> None:
    stripped = [strip_prompt(line) for line in body(corpus).splitlines()]
    assert any(s.startswith(starts) for s in stripped), stripped[:8]


@pytest.mark.parametrize(("line", "kept"), [
    ("echo a > b", "echo a > b"),  # modelled: a redirection is no prompt
    ("C:\\>", "C:\\>"),  # modelled: a prompt with no command after it stays as it is
])
def test_no_prompt_without_a_command_after_it(line: str, kept: str) -> None:
    assert strip_prompt(line) == kept
