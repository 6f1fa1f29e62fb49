"""Rule: vLLM (and its forks) at TP 2 or more on GeForce cards not shown NVLink-connected: the stock driver gives
GeForce no PCIe P2P (gputable.FAMILIES), so vLLM's own P2P test leaves custom all-reduce off and NCCL carries the
all-reduce: IC-CUSTOM-ALLREDUCE not-an-issue (issue 28). A bare GeForce model number in the user's words (`2x 3060
12GB`) names the family.

Real pastes: 689 (dphnAI/sonar#1114: Aphrodite, a vLLM fork, at `-tp 2` on '2x 3060 12GB'); vllm-project/vllm#18814
(a comment's '2x5090' and its `vllm serve ... -tp 2` line); 296 (vllm-project/vllm#21491: the RTX 5090 only in the
thread's title, not in the paste: unknown). The NVLink-bridged pair and SGLang are modelled counter-examples.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import stated_gpus
from stackaudit.gputable import family_of

_CHECK = "IC-CUSTOM-ALLREDUCE"

# vllm-project/vllm#18814 (comment by RodriMora, 2025-05-30), two lines of it as written.
_TWO_5090 = """\
I'm having similar issues with 2x5090

`CUDA_VISIBLE_DEVICES=2,4 vllm serve mistralai/Mistral-Nemo-Instruct-2407 --max-model-len 16000 --host 0.0.0.0 --port 5000 -tp 2`
"""


def test_aphrodite_tp2_on_two_3060() -> None:
    result = capture_checks("689", _CHECK)[_CHECK]
    assert result.status == "not-an-issue" and "GeForce cards (3060)" in result.message


def test_vllm_tp2_on_two_5090(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, _TWO_5090, _CHECK)[_CHECK]
    assert result.status == "not-an-issue" and "RTX 5090" in result.message


def test_gpus_named_only_in_the_title_stay_unknown() -> None:
    assert capture_checks("296", _CHECK)[_CHECK].status == "unknown"


def test_modelled_sglang_on_geforce_stays_an_issue(tmp_path: Path) -> None:
    text = _TWO_5090.replace("vllm serve mistralai/Mistral-Nemo-Instruct-2407",
                             "python -m sglang.launch_server --model-path mistralai/Mistral-Nemo-Instruct-2407")
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status == "issue" and "--enable-p2p-check" in result.message


def test_modelled_nvlink_bridged_pair_is_not_the_rule(tmp_path: Path) -> None:
    matrix = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV4\t0-15\t0\nGPU1\tNV4\t X \t0-15\t0\n"
    text = matrix + "\nI run 2x 3090\n\n`vllm serve Qwen/Qwen2.5-7B-Instruct -tp 2`\n"
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status != "not-an-issue" and "GeForce" not in result.message


@pytest.mark.parametrize(("line", "said"), [
    ("Ran on 1x or 2x 3060 12GB, prompt was single one sentence coding instruction", [(2, "3060")]),  # 689
    ("2x RTX 3070 Ti", [(2, "RTX 3070 Ti")]),  # modelled
    ("Intel(R) Xeon(R) Gold 6338 X2", []),  # 736: a CPU's model number is no GeForce
    # modelled: a workstation board's number, read as the workstation family's bare number (no GeForce)
    ("4x RTX 4000 Ada", [(4, "RTX 4000")]),
])
def test_bare_geforce_numbers(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said


def test_family_of_bare_numbers() -> None:
    family = family_of("3060")
    assert family is not None and family.name == "geforce" and not family.p2p
    other = family_of("RTX 4000")
    assert other is None or other.name != "geforce"
