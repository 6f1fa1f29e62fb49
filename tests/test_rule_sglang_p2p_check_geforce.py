"""Rule: SGLang with `--enable-p2p-check` on GeForce cards not shown NVLink-connected: its real P2P test finds no
peer access from the stock driver (gputable.FAMILIES), so custom all-reduce stays off and NCCL carries the all-reduce
by design: IC-CUSTOM-ALLREDUCE not-an-issue (issue 28). The cards and the switch may be named only in the user's
words (`After adding --enable-p2p-check, why is ... two 4090s slower`), the model after a count word
(the run's GPUs, not the host's count).

Real paste: 1352 (sgl-project/sglang#4723). The NVLink-bridged pair, the negated switch and the command without the
switch are modelled counter-examples.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import stated_engines_from_words, stated_switches
from stackaudit.facts.gpus import stated_gpus, worded_model

_CHECK = "IC-CUSTOM-ALLREDUCE"

# The user's words of corpus 1352 (sgl-project/sglang#4723), with a modelled SGLang command line after them.
_WORDS = "After adding --enable-p2p-check, why is the speed of running on two 4090s slower than on a single one\n"
_COMMAND = "`python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 2{}`\n"


def test_corpus_1352_two_4090s_with_p2p_check() -> None:
    result = capture_checks("1352", _CHECK)[_CHECK]
    assert result.status == "not-an-issue"
    assert "--enable-p2p-check" in result.message and "RTX 4090" in result.message


def test_modelled_command_with_the_switch(tmp_path: Path) -> None:
    text = "I run 2x 3090\n\n" + _COMMAND.format(" --enable-p2p-check")
    assert paste_checks(tmp_path, text, _CHECK)[_CHECK].status == "not-an-issue"


def test_modelled_command_without_the_switch_stays_an_issue(tmp_path: Path) -> None:
    text = "I run 2x 3090\n\n" + _COMMAND.format("")
    assert paste_checks(tmp_path, text, _CHECK)[_CHECK].status == "issue"


def test_modelled_nvlink_bridged_pair_is_not_the_rule(tmp_path: Path) -> None:
    matrix = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV4\t0-15\t0\nGPU1\tNV4\t X \t0-15\t0\n"
    text = matrix + "\nI run 2x 3090\n\n" + _COMMAND.format(" --enable-p2p-check")
    assert paste_checks(tmp_path, text, _CHECK)[_CHECK].status != "not-an-issue"


@pytest.mark.parametrize(("line", "model"), [
    (_WORDS.strip(), "RTX 4090"),  # 1352
    ("the two A100s are idle", "A100"),  # modelled
    ("network 4090s", ""),  # modelled: a count word must stand alone
    ("two GPUs", ""),  # modelled: no model number
])
def test_count_words_name_the_model_not_the_host_count(line: str, model: str) -> None:
    # `running on two 4090s` is the run's GPUs, not how many the host holds (1352's IC-TOPOLOGY-PLACEMENT: unknown).
    assert worded_model(line) == model and stated_gpus(line) == []


@pytest.mark.parametrize(("line", "said"), [
    (_WORDS.strip(), ("--enable-p2p-check",)),  # 1352
    ("it works without --enable-p2p-check", ()),  # modelled: negated
    ("I pass --enable-p2p-checks", ()),  # modelled: another word
])
def test_stated_switches(line: str, said: tuple[str, ...]) -> None:
    assert stated_switches(line) == said


def test_stated_engines_carry_the_switch() -> None:
    stated = stated_engines_from_words(_WORDS)
    assert stated.switches == ("--enable-p2p-check",) and stated.switch_line == _WORDS.strip()
