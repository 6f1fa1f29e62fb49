"""GPUs named outside nvidia-smi where the tool did not read them (issue 28, h116d).

- facts/gpus.TORCH_DEVICE_NAME: TRL's environment report's `CUDA device(s):` line, every device torch counts.
- facts/gpus._OWNED_MODEL: `I'm running <model>` and a line starting `Graphics card <model>`; facts/gpus.owned_models:
  one host's several models joined after such a key (`a RTX 4080 (CUDA0) and RTX 3050-6GB (CUDA1)`).
- facts/gpus.table_column_model: a Markdown table of runs whose hardware column names one model in every row.
- facts/mig_setup.mig_devices_named: a device the `gpus` fact's sources name after a MIG slice is a MIG instance listed.
- facts/gpus.CHECK_ENV_TITLE: SGLang's and lmdeploy's check_env name torch's devices, a CUDA device list for MEM-MIG.
- gputable._ARCH_WORDS: a Jetson module's GPU by its name or CUDA's (`Orin`) has its compute capability.
MEM-MIG reads those models through the `gpus` fact: a model without MIG makes it not applicable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_result, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import (
    owned_model,
    owned_models,
    parse_torch_named_gpus,
    parse_user_gpus,
    table_column_model,
)
from stackaudit.gputable import architecture_of, capability_of


def test_trl_env_lists_every_cuda_device() -> None:
    # Real (corpus 2627, NVIDIA/TensorRT-LLM#5395): TRL's `trl env` report, four RTX A6000.
    text = ("- PyTorch version: 2.7.0\n"
            "- CUDA device(s): NVIDIA RTX A6000, NVIDIA RTX A6000, NVIDIA RTX A6000, NVIDIA RTX A6000\n")
    assert parse_torch_named_gpus(text).models == {i: "NVIDIA RTX A6000" for i in range(4)}
    result = capture_result("2627", "MEM-MIG")
    assert result.status == "not-applicable" and "RTX A6000" in result.message, result.message


def test_device_list_without_torch_is_not_read() -> None:
    # Modelled: the same key in another program's banner, no torch version beside it.
    with pytest.raises(ParseError):
        parse_torch_named_gpus("CUDA device(s): NVIDIA RTX A6000, NVIDIA RTX A6000\n")


@pytest.mark.parametrize("prefix", ["2643", "2650"])
def test_mig_not_applicable_on_the_owned_models(prefix: str) -> None:
    result = capture_result(prefix, "MEM-MIG")
    assert result.status == "not-applicable", result.message


def test_owned_models_of_one_host() -> None:
    # Real (corpus 2650, ollama/ollama#14365): two cards of one desktop, one GPU of each.
    line = ("I'm running a RTX 4080 (CUDA0) and RTX 3050-6GB (CUDA1) and Ollama seems very reluctant to offload "
            "anything to the 3050, especially with larger models.")
    assert owned_models(line) == ("RTX 4080", "RTX 3050")
    assert parse_user_gpus(line).models == {0: "RTX 4080", 1: "RTX 3050"}
    # Real (corpus 2643, sgl-project/sglang#2559): the key without its colon.
    assert owned_model("Graphics card 4090") == "RTX 4090"
    # Real (another thread: corpus 1720's board, ggml-org/llama.cpp#1885): a data-centre model's glued memory.
    assert owned_model("I am running A40-48G cards") == "A40"


@pytest.mark.parametrize("line", [
    # Modelled: the engine, not a GPU, after `I'm running`.
    "I'm running vllm 0.6.3 with the default settings",
    # Modelled: one model, then prose: no second model.
    "I'm running a RTX 4080 and it works fine",
])
def test_no_several_owned_models(line: str) -> None:
    assert owned_models(line) == ()


def test_graphics_card_without_model() -> None:
    # Modelled: the key followed by prose.
    assert owned_model("Graphics card drivers were updated yesterday") == ""


def test_table_of_runs_on_one_gpu() -> None:
    # Real (corpus 2651, vllm-project/vllm#25172): two runs on the T4.
    table = ["| version        | Hardware | Processing Time |", "|----------------|----------|-----------------|",
             "| v0.10.1.1 (v0) | T4       | 38s             |", "| v1             | T4       | 80s             |", ""]
    assert table_column_model(table, 0) == ("T4", 4)
    result = capture_result("2651", "MEM-MIG")
    assert result.status == "not-applicable" and "T4" in result.message, result.message


@pytest.mark.parametrize("table", [
    # Modelled: runs on two models may be two hosts.
    ["| run | GPU | tok/s |", "|---|---|---|", "| a | A100 | 900 |", "| b | T4 | 80 |"],
    # Modelled: the column holds indices, no model.
    ["| GPU | Memory |", "|---|---|", "| 0 | 80 GB |", "| 1 | 80 GB |"],
    # Modelled: a key/value table with no header rule.
    ["| GPU | 1 x NVIDIA H100 80GB HBM3 |", "| Driver | 580.82.07 |"],
])
def test_no_table_column_model(table: list[str]) -> None:
    assert table_column_model(table, 0) == ("", 0)


def test_cuda_named_mig_instance_is_listed() -> None:
    # Real (corpus 2620, ggml-org/llama.cpp#12729): one 7g.80gb instance of an A800, llama-server on it, no TP.
    result = capture_result("2620", "MEM-MIG")
    assert result.status == "not-an-issue" and "MIG 7g.80gb" in result.message, result.message
    # Real (another thread: corpus 1158): a whole A100 in the same list stays MIG off.
    assert capture_result("1158", "MEM-MIG").status == "ok"


def test_cuda_named_mig_instance_under_tp(tmp_path: Path) -> None:
    # Modelled: two MIG instances in llama.cpp's list, and vLLM run at TP 2 across them.
    text = ("ggml_cuda_init: found 2 CUDA devices:\n"
            "  Device 0: NVIDIA A100-SXM4-80GB MIG 3g.40gb, compute capability 8.0, VMM: yes\n"
            "  Device 1: NVIDIA A100-SXM4-80GB MIG 3g.40gb, compute capability 8.0, VMM: yes\n"
            "$ vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n")
    assert paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"].status == "issue"


def test_check_env_names_torch_devices() -> None:
    # Real (corpus 2628, sgl-project/sglang#7936): SGLang's check_env, eight H100 named by torch: MIG off.
    result = capture_result("2628", "MEM-MIG")
    assert result.status == "ok" and "check_env" in result.message, result.message
    # Real (another thread: corpus 2622, InternLM/lmdeploy#700): lmdeploy's check_env, sixteen A10 without MIG.
    assert capture_result("2622", "MEM-MIG").status == "not-applicable"


def test_collect_env_names_are_not_cuda_names(tmp_path: Path) -> None:
    # Modelled: vLLM's collect_env prints `nvidia-smi -L`, which names a MIG-enabled A100 by its product: not MIG off.
    text = ("Collecting environment information...\nPyTorch version: 2.4.0+cu121\nIs CUDA available: True\n"
            "CUDA runtime version: 12.1.105\nGPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\n"
            "Nvidia driver version: 550.54.15\n")
    assert paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"].status != "ok"


@pytest.mark.parametrize(("name", "capability", "architecture"), [
    ("Orin", "8.7", "Ampere"),  # Real (corpus 2652): llama.cpp's `using device CUDA0 (Orin)`.
    ("NVIDIA Jetson Orin Nano", "8.7", "Ampere"),  # Modelled: the Orin Nano is no Jetson Nano.
    ("NVIDIA Jetson Nano", "5.3", "Maxwell"),
    ("Jetson AGX Xavier", "7.2", "Volta"),
    ("NVIDIA Tegra X2", "6.2", "Pascal"),
])
def test_jetson_capabilities(name: str, capability: str, architecture: str) -> None:
    assert (capability_of(name), architecture_of(name)) == (capability, architecture)


def test_jetson_llama_server_kernels() -> None:
    # Real (corpus 2652, ggml-org/llama.cpp#12614): llama-server's whole command on an Orin.
    result = capture_result("2652", "RT-KERNEL-ARCH")
    assert result.status == "ok" and "8.7" in result.message, result.message
    # Modelled: a name with no module word implies nothing.
    assert capability_of("NVIDIA Jetson") == ""
