"""The user's words counting GPUs by a count, a data-centre model and that model's memory, with no `x` or `GPUs`
(facts/gpus._COUNT_MODEL_MEMORY): `- resources: 4 A10 (each with 24G)`. The memory must be the model's own, so a
count and a model alone stay unread.

Real words: corpus 1972 (vllm-project/vllm#8879, `4 A10 (each with 24G)`), vllm-project/vllm#16749 (its title's `4
A100 40G`), vllm-project/vllm#5793 (`I use 2 A10 24GB GPUs instead of 1 A100 or H100`). Real counter-example:
vllm-project/vllm#2119's results list (`2 H100 failed`, `2 A100 success`), which counts runs with no memory beside
the model.
"""

from __future__ import annotations

import pytest

from corpus import capture_checks
from stackaudit.facts.gpus import stated_gpus


@pytest.mark.parametrize(("line", "said"), [
    ("- resources: 4 A10 (each with 24G)", [(4, "A10")]),
    ("[Bug]: InternVL3-78B OOM on 4 A100 40G in 0.8.4", [(4, "A100 40GB")]),
    ("For A10 deployments, the only difference in the settings is that I use 2 A10 24GB GPUs instead of 1 A100 or H100",
     [(2, "A10")]),
])
def test_count_model_and_its_memory_state_the_gpus(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said


@pytest.mark.parametrize("line", [
    "2 H100 failed",  # real: vllm-project/vllm#2119
    "2 A100 success",  # real: vllm-project/vllm#2119
    "4 A10 48G",  # modelled: 48 GB is no A10's memory
    "vllm 0.8.3 H100 80GB",  # modelled: a version's last digit is no count
])
def test_count_and_model_without_its_memory_state_nothing(line: str) -> None:
    assert stated_gpus(line) == []


def test_four_a10_need_no_fabric_manager_and_have_no_mig() -> None:
    results = capture_checks("1972", "DRV-FABRIC-MANAGER", "MEM-MIG")
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"
    assert "A10" in results["DRV-FABRIC-MANAGER"].message
    assert results["MEM-MIG"].status == "not-applicable"


# A count with a Chinese measure word for cards (facts/gpus._COUNT_MEASURE). Real: corpus 2482 (kvcache-ai/
# ktransformers#634), 1674 (InternLM/lmdeploy#2127), 709 (`我的设备上有4块4090`).
@pytest.mark.parametrize(("line", "said"), [
    ("48物理核双通路CPU，1360GB双通路内存，1张A100-80GB", [(1, "A100 80GB")]),
    ("8卡2080ti", [(8, "RTX 2080 Ti")]),
    ("我的设备上有4块4090", [(4, "RTX 4090")]),
    ("4块4090显卡", [(4, "RTX 4090")]),  # modelled: the model ends where the Chinese text starts again
])
def test_a_chinese_measure_word_counts_the_cards(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said


@pytest.mark.parametrize("line", [
    "docker部署vllm引擎，4张80G",  # real: corpus 1022, a memory size and no model
    "使用4张gpu",  # real: corpus 1668, no model
    "见第1张图",  # modelled: `the first picture`, Chinese text after the measure word
    "v2卡A100",  # modelled: a version's digit glued to a Latin letter is no count
])
def test_a_measure_word_without_a_model_states_nothing(line: str) -> None:
    assert stated_gpus(line) == []


def test_fw_vm_2482_one_a100_counted_in_chinese() -> None:
    """Corpus 2482: a cloud guest (the cpuinfo `hypervisor` flag) whose user counts `1张A100-80GB`: one GPU."""
    result = capture_checks("2482", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "1 GPU shown" in result.message
