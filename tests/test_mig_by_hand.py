"""MEM-MIG: MIG is switched on by hand, so it is an issue only where an engine is shown that it hurts.

MIG mode needs root and a GPU reset, and each instance is created on its own (`nvidia-smi mig -cgi … -C`): MIG
enabled is a choice. It is an issue where the source shows an engine running tensor parallelism across the
slices (high), or an engine on MIG GPUs whose slices' set-up is not shown (medium), or MIG on with no instance
(no CUDA work can run). Instances listed, or no engine shown at all, leave it not an issue.
Real pastes are corpus captures (their headers name the public sources); counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

CAPTURES = Path(__file__).parent / "data" / "captures"


def _body(prefix: str) -> str:
    text = next(CAPTURES.glob(prefix + "-*.txt")).read_text()
    return text.split("# ----- end of header; everything below this line is the capture, verbatim -----\n", 1)[1]


@pytest.mark.parametrize(("prefix", "words"), [
    ("336", "switched on by hand"),  # NVIDIA/gpu-operator#1310: two H100s, MIG M. Enabled, instances cut off
    ("01", "instances were created"),  # telegraf's a100-sxm4 fixture: four MIG devices listed
    ("284", "migstrategy=single"),  # NVIDIA/k8s-device-plugin: the plugin's MIG strategy and a MIG devices table
])
def test_mig_set_up_with_no_engine_shown_is_not_an_issue(prefix: str, words: str) -> None:
    result = capture_checks(prefix, "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-an-issue", result.message
    assert words in result.message


def test_an_engine_running_tp_across_the_slices_is_an_issue(tmp_path: Path) -> None:
    # Modelled: 336's table with a vLLM command line running TP=2 beside it.
    text = "$ vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 2\n" + _body("336")
    result = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert result.status == "issue" and result.severity == "high" and "TP=2" in result.message


def test_an_engine_on_mig_gpus_whose_slices_are_not_shown_stays_a_warning(tmp_path: Path) -> None:
    # Modelled: 336's table with a single-GPU vLLM command: whether it wanted the whole GPU is open.
    text = "$ vllm serve Qwen/Qwen2.5-7B-Instruct\n" + _body("336")
    result = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert result.status == "issue" and result.severity == "medium" and "intended" in result.message
