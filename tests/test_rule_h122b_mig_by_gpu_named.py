"""MEM-MIG by the GPU a paste names where no nvidia-smi shows its MIG mode (issue 28, h122b).

The check reads the models of the `gpus` fact: a model without MIG makes it not applicable, and a model with MIG that a
CUDA device list names whole makes it ok. These are the forms of paste whose GPU the fact did not read:

- facts/gpus._COUNT_BRAND: a GKE accelerator name after a count word (`four \\`nvidia-tesla-t4\\``).
- facts/gpus._model_in: an RTX A-series card without its brand (`4 A5000 GPUS`), and a vGPU profile (`GRID T4-4Q`).
- facts/gpus._LIST_GPU_KEY: Chinese words glued before the `GPU:` key (`物理机GPU: NVIDIA T4`).
- facts/gpus._OWNED_MODEL: the user's machine said to be its GPU (`My machine is V100`).
- importers/collect_env: vLLM's collect_env whose `Python Environment` heading lost its indent; SGLang's check_env cut
  inside its capability line (`GPU 0,1,2,3,4,5,6,7 Compu`).
- facts/gpus.from_collect_env: mmengine's collect_env (lmdeploy's check_env) names torch's devices, CUDA's list.
- facts/serving_logs.GGML_BREAKDOWN_DEVICE: llama.cpp's memory breakdown names each CUDA device.
"""

from __future__ import annotations

import pytest

from corpus import capture_result
from stackaudit.facts._parse import ParseError
from stackaudit.facts.collect_env import cut_capability, parse_collect_env
from stackaudit.facts.gpus import gpus_from_ggml_using_device, parse_user_gpus, stated_gpus
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.importers.recognition import recognise


@pytest.mark.parametrize("prefix", ["2796", "2800", "2824", "2827", "2830", "2867", "2872"])
def test_mig_not_applicable_on_the_named_gpu(prefix: str) -> None:
    result = capture_result(prefix, "MEM-MIG")
    assert result.status == "not-applicable", result.message


@pytest.mark.parametrize("prefix", ["2802", "2853"])
def test_mig_off_where_torch_names_the_gpus_whole(prefix: str) -> None:
    result = capture_result(prefix, "MEM-MIG")
    assert result.status == "ok" and "torch.cuda.get_device_name" in result.message, result.message


def test_gke_accelerator_name_after_a_count_word() -> None:
    # Real (corpus 2796, huggingface/text-generation-inference#1168).
    assert stated_gpus("Hardware: GKE 95GB memory with four `nvidia-tesla-t4` (15G each)") == [(4, "T4")]
    # Modelled: another accelerator name, without backticks.
    assert stated_gpus("a node pool with two nvidia-l4 GPUs") == [(2, "L4")]
    # Modelled: nvidia-smi is no accelerator.
    assert stated_gpus("I attach two nvidia-smi outputs") == []


def test_rtx_a_series_without_its_brand() -> None:
    # Real (corpus 2827, ikawrakow/ik_llama.cpp): the noun in capitals.
    assert stated_gpus("across 3 hosts with each 4 A5000 GPUS with 24gb vram each") == [(4, "RTX A5000")]
    # Modelled: another card of the series, another wording.
    assert stated_gpus("2x A4000") == [(2, "RTX A4000")]
    # Modelled: a data-centre A-series model keeps its own name.
    assert stated_gpus("4 A100 GPUs") == [(4, "A100")]


def test_vgpu_profile_in_the_users_list() -> None:
    # Real (corpus 2830, gpustack/gpustack): the key glued to the profile.
    assert parse_user_gpus("- GPU:GRID T4-4Q").models == {0: "GRID T4-4Q"}
    # Modelled: a newer guest driver's name of a profile.
    assert parse_user_gpus("- GPU: NVIDIA A10-24Q").models == {0: "NVIDIA A10-24Q"}
    # Modelled: a board's own name is no profile.
    assert parse_user_gpus("- GPU: NVIDIA A100-PCIE-40GB").models != {0: "NVIDIA A100-PCIE-40GB"}
    # Real (corpus 2840): a model's size after the GPU is no profile's (`-32B`); modelled: the same in a list's line.
    assert set(parse_user_gpus("**H200 (8x H200 QwQ-32B elaich/simple-vllm-launcher):**").models.values()) == {"H200"}
    assert parse_user_gpus("- GPU: NVIDIA H200 QwQ-32B").models == {0: "H200"}


def test_chinese_words_before_the_gpu_key() -> None:
    # Real (corpus 2867, ollama/ollama): `物理机` (physical machine) glued to the key.
    assert parse_user_gpus("物理机GPU: NVIDIA T4").models == {0: "T4"}
    # Modelled: another qualifier, a full-width colon.
    assert parse_user_gpus("显卡GPU：Tesla V100").models == {0: "Tesla V100"}


def test_the_users_machine_said_to_be_its_gpu() -> None:
    # Real (corpus 2872).
    assert parse_user_gpus("My machine is V100").models == {0: "V100"}
    # Modelled: another noun and article.
    assert parse_user_gpus("our server is an L40S").models == {0: "L40S"}
    # Modelled: the machine said to run something else names no GPU.
    with pytest.raises(ParseError):
        parse_user_gpus("My machine is running Ubuntu 22.04")


def test_collect_env_section_heading_without_its_indent() -> None:
    # Real (corpus 2800): the newer collect_env pasted with its headings' indent lost; the GPU list follows.
    text = ("==============================\nPyTorch Info\n==============================\n"
            "PyTorch version : 2.7.0+cu126\nIs debug build : False\nCUDA used to build PyTorch : 12.6\n\n"
            "==============================\nPython Environment\n==============================\n"
            "Python version : 3.11.13 | packaged by conda-forge | (main, Jun 4 2025, 14:48:23) [GCC 13.3.0]\n\n"
            "==============================\nCUDA / GPU Info\n==============================\n"
            "Is CUDA available : True\nGPU models and configuration :\nGPU 0: NVIDIA GeForce RTX 4090\n"
            "GPU 1: NVIDIA GeForce RTX 4090\n")
    spans = [(kind, a, b) for kind, a, b in recognise(text).recognised if kind == "collect_env"]
    assert len(spans) == 1 and spans[0][2] == len(text.splitlines()), spans


def test_check_env_cut_inside_its_capability_line() -> None:
    # Real (corpus 2853, sgl-project/sglang): the report's first lines, the last cut.
    text = ("Python: 3.10.12 (main, Nov  6 2024, 20:22:13) [GCC 11.4.0]\nCUDA available: True\n"
            "GPU 0,1,2,3,4,5,6,7: NVIDIA A100-SXM4-80GB\nGPU 0,1,2,3,4,5,6,7 Compu\n")
    report = parse_collect_env(text)
    assert report.tool == "sglang" and report.gpu_models == ("NVIDIA A100-SXM4-80GB",) * 8
    # Modelled: the cut at another letter; a line that is no prefix of the key.
    assert cut_capability("GPU 0,1 Compute Capa") and not cut_capability("GPU 0,1 Compiled")
    assert not cut_capability("GPU 0 Co")


def test_llama_memory_breakdown_names_the_cuda_devices() -> None:
    # Real (corpus 2824, ggml-org/llama.cpp): an RPC server's row beside the local CUDA device.
    text = ("llama_memory_breakdown_print: |   - RPC0 (rog:50052)            |  8191 =  6243 + ( 8130 =   686 +    "
            "6656 +     788) + 17592186038233 |\n"
            "llama_memory_breakdown_print: |   - CUDA0 (RTX 3070 Laptop GPU) |  7819 = 13435 + (11378 =  1318 +    "
            "9728 +     332) + 17592186027421 |\n")
    assert all(is_log_line(line) for line in text.splitlines())
    assert gpus_from_ggml_using_device(text).models == {0: "RTX 3070 Laptop GPU"}
    # Modelled: two CUDA devices, a MIG instance's name kept whole for MEM-MIG to read.
    two = ("llama_memory_breakdown_print: |   - CUDA0 (H100 80GB HBM3)  | 81004 = 1000 + (70000 = 1 + 2 + 3) + 0 |\n"
           "llama_memory_breakdown_print: |   - CUDA1 (A100-SXM4-80GB MIG 1g.10gb) | 9728 = 100 + (9000 = 1 + 2 + 3) + 0 |\n")
    assert gpus_from_ggml_using_device(two).models == {0: "H100 80GB HBM3", 1: "A100-SXM4-80GB MIG 1g.10gb"}
