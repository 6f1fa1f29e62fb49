"""Issue 28, a verdict where the text suffices: a /dev/shm size the user states for their own machine
(facts/shm.py SHM_WORDS, recorded by importers/prose_machine.py) is the last source of the `shm` fact, and
CTR-SHM-SIZE judges a size below 1 GiB an issue even where the paste does not say whether it ran in a container
(too small in a container and on a host alike)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.shm import shm_from_user_words, stated_shm

MiB = 1024 * 1024


@pytest.mark.parametrize(("line", "size"), [
    # NVIDIA/TensorRT-LLM#9680 (corpus 275): a key-value line of the issue's System Info
    ("CPU Shared Memory: 64MB (the default). GPT indicated that this could cause the hang behavior", 64 * MiB),
    # NVIDIA/nccl#1518: a 4-GPU torchrun job failing to create its NCCL segments
    ("My /dev/shm is 64MB and there's plenty of space (a seperate error is that jobs that fail don't clear up this "
     "space), but I just manually rm them.", 64 * MiB),
    # vllm-project/production-stack#276 (corpus 73, whose df shows the same 64M): the pod's size, after a TP 2 NCCL
    # segment error
    ("But when i check shm size in deployment pod with command, it showed that my shm size in container pod only "
     "has 64MB:", 64 * MiB),
])
def test_sizes_the_user_states(line: str, size: int) -> None:
    assert stated_shm(line) == size


@pytest.mark.parametrize("line", [
    # NVIDIA/nccl#342 and theroyallab/tabbyAPI#387: Docker's default stated as knowledge, not the machine's size
    "By default, the shm size is limited to 64MB under docker.",
    "The default is 64mb if my research is correct",
    # Modelled: a compose or Helm spec's key belongs to the container readers.
    "    shm_size: 16gb",
    'shmSize: "20Gi"',
])
def test_knowledge_and_spec_keys_state_no_size(line: str) -> None:
    assert stated_shm(line) is None


def test_two_sizes_state_none() -> None:
    """Modelled: the words give 64MB and then 16GB (before and after a fix), so neither is the machine's now."""
    with pytest.raises(ParseError, match="several"):
        shm_from_user_words("CPU Shared Memory: 64MB\nMy /dev/shm is 16GB now\n")


def test_stated_64mb_is_an_issue_without_container_facts() -> None:
    """Corpus 275: TP > 1 TensorRT-LLM on 4 L40S, the container's /dev/shm stated as 64MB; no df, no spec."""
    result = capture_checks("275", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert result.status == "issue"
    assert "64 MiB" in result.message and "CPU Shared Memory: 64MB" in " ".join(result.evidence)


@pytest.mark.parametrize("line", [
    "My /dev/shm is 64MB and there's plenty of space (a seperate error is that jobs that fail don't clear up this "
    "space), but I just manually rm them.",
    "But when i check shm size in deployment pod with command, it showed that my shm size in container pod only "
    "has 64MB:",
])
def test_stated_sizes_from_other_threads_are_issues(tmp_path: Path, line: str) -> None:
    """NVIDIA/nccl#1518 and vllm-project/production-stack#276, the user's line pasted on its own."""
    result = paste_checks(tmp_path, line + "\n", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert result.status == "issue"


def test_a_large_stated_size_is_no_issue(tmp_path: Path) -> None:
    """Modelled counter-example: a healthy 16GB /dev/shm stated in the words is not judged too small (and, with
    neither container nor use shown, not called ok either)."""
    result = paste_checks(tmp_path, "- CPU Shared Memory: 16GB\n- 4 x L40S GPUs\n", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert result.status == "unknown"
