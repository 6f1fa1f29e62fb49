"""Issue 28 (blind 2170): a llama.cpp log whose model-buffer block names one CUDA device beside the host's buffers
holds the model on one GPU, so IC-TOPOLOGY-PLACEMENT has no group of GPUs to place (not applicable).

facts/serving_logs.ggml_one_gpu_buffers reads the `load_tensors:` block (`llm_load_tensors:` before 2025). Real blocks
come from 2170 (lmstudio-ai/lmstudio-bug-tracker#1360, LM Studio's llama.cpp, 20 of 49 layers on CUDA0), 1593
(ollama/ollama#8995, two CUDA0 lines of one model), 883 (an ollama journal, 5 of 37 layers on CUDA0) and, against,
1843 (ggml-org llama-cli's row split over CUDA0-3). A block the paste cuts may leave devices out (modelled).
Where `ollama ps` is shown, ollama may hold other models in runners of their own (1165: bge-m3's load beside
deepseek-r1 over several GPUs), so the block does not speak for the workload.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks
from stackaudit.facts.serving_logs import ggml_one_gpu_buffers

# 2170, lines 17-20 (the [DEBUG] line after the block closes it).
LMSTUDIO_2170 = """load_tensors: offloaded 20/49 layers to GPU
load_tensors:   CPU_Mapped model buffer size =  4944.60 MiB
load_tensors:        CUDA0 model buffer size =  3621.44 MiB
2026-01-07 17:37:47 [DEBUG]
"""
# 1593 (ollama/ollama#8995), its journal prefix left out.
OLLAMA_8995 = """llm_load_tensors: offloaded 37/49 layers to GPU
llm_load_tensors:        CUDA0 model buffer size =  2845.92 MiB
llm_load_tensors:        CUDA0 model buffer size =  2920.17 MiB
llm_load_tensors:   CPU_Mapped model buffer size =  8566.04 MiB
llama_new_context_with_model: n_seq_max     = 1
"""
# 1843 (llama-cli's --split-mode row on four K80 GPUs), lines 42-47.
ROW_SPLIT_1843 = """load_tensors:  CUDA0_Split model buffer size =   248.62 MiB
load_tensors:  CUDA1_Split model buffer size =   241.50 MiB
load_tensors:  CUDA2_Split model buffer size =   229.50 MiB
load_tensors:  CUDA3_Split model buffer size =   536.67 MiB
load_tensors:        CUDA0 model buffer size =  7969.22 MiB
load_tensors:   CPU_Mapped model buffer size =   410.98 MiB
llama_context: constructing llama_context
"""


@pytest.mark.parametrize(("text", "device"), [(LMSTUDIO_2170, "CUDA0"), (OLLAMA_8995, "CUDA0"),
                                              (body("883"), "CUDA0"), (ROW_SPLIT_1843, None)])
def test_one_cuda_device_block(text: str, device: str | None) -> None:
    line = ggml_one_gpu_buffers(text.splitlines())
    assert (device in line) if device else line == ""


def test_modelled_block_cut_after_its_first_device_is_not_read() -> None:
    # Modelled: the paste ends on the CUDA0 line; a CUDA1 line may have followed.
    assert ggml_one_gpu_buffers(LMSTUDIO_2170.splitlines()[:3]) == ""


def test_corpus_2170_has_no_group_to_place() -> None:
    result = capture_checks("2170", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "not-applicable" and "CUDA0 model buffer" in result.message


def test_corpus_1165_with_ollama_ps_stays_unknown() -> None:
    assert capture_checks("1165", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status == "unknown"
