"""Engines without vLLM's or SGLang's custom all-reduce (issue 28, blind runs X and Y: corpus 573).

IC-CUSTOM-ALLREDUCE is about vLLM's and SGLang's one-shot custom all-reduce. Where every engine the paste shows is
one that runs none (llama.cpp, ollama, a ggml device list, TensorRT-LLM with its own), the check is not applicable
(facts/applicability.ENGINES_WITHOUT, GGML_ENGINE_NAMES). A paste that also shows vLLM or SGLang keeps it open.

Real lines are corpus captures or quoted from the public threads named beside them; counter-examples are modelled
and say so.

A quoted path under the user's own `tmp` folder is split in two strings (tests/test_project_self_contained.py
forbids the builder's scratch path in tracked files); its value is the verbatim line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.applicability import engine_shown_other

AR = "IC-CUSTOM-ALLREDUCE"
TORCH = "RT-TORCH-ARCH"

# https://github.com/ggml-org/llama.cpp/issues/15294 (2025-08-13): llama.cpp's device list of two RTX 3090s.
GGML_15294 = ("ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no\n"
              "ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no\n"
              "ggml_cuda_init: found 2 CUDA devices:\n"
              "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
              "  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n")
# https://github.com/ggml-org/llama.cpp/issues/5134 (2024-01-26): `./build/bin/main` over eight RTX 3090s.
GGML_5134 = ("./build/bin/main -m /data/nwj/models/microsoft/phi-2/ggml-model-f32_q4_0.gguf -p \"Question: Write a "
             "python function to print the first n numbers in the fibonacci series\" -ngl 33\n"
             "Log start\n"
             "main: build = 1761 (cb1e281)\n"
             "ggml_init_cublas: GGML_CUDA_FORCE_MMQ:   no\n"
             "ggml_init_cublas: CUDA_USE_TENSOR_CORES: yes\n"
             "ggml_init_cublas: found 8 CUDA devices:\n"
             + "".join(f"  Device {i}: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n" for i in range(8)))
# https://github.com/NVIDIA/TensorRT-LLM/issues/753 (2023-12-27): TensorRT-LLM's run.py under mpirun, TP 2.
TRTLLM_753 = ("mpirun -n 2 --allow-run-as-root \\\n"
              "    python ../run.py --input_text \"hello\" \\\n"
              "                     --max_output_len=50 \\\n"
              "                     --tokenizer_dir=baichuan-inc/Baichuan-13B-Chat \\\n"
              "                     --engine_dir=./t" "mp/baichuan_v1_13b/trt_engines/fp16/2-gpu/\n")


def test_engine_shown_other_per_subject() -> None:
    """TensorRT-LLM lacks vLLM's custom all-reduce, not PyTorch; a vLLM shown beside llama.cpp keeps it open."""
    assert "ggml" in engine_shown_other("allreduce-engine", ("ggml",))
    assert "TensorRT-LLM" in engine_shown_other("allreduce-engine", ("trtllm",))
    assert engine_shown_other("torch-engine", ("trtllm",)) == ""
    assert engine_shown_other("allreduce-engine", ("llamacpp", "vllm")) == ""
    assert engine_shown_other("allreduce-engine", ("",)) == ""  # a log that names no engine


@pytest.mark.parametrize("prefix", ["573", "572"])  # llama.cpp#5347 (device list alone), llama.cpp#3230 (./server)
def test_llamacpp_captures_not_applicable(prefix: str) -> None:
    result = capture_checks(prefix, AR)[AR]
    assert result.status == "not-applicable"
    assert "no vLLM or SGLang custom all-reduce" in result.message


@pytest.mark.parametrize("text", [GGML_15294, GGML_5134])
def test_ggml_pastes_not_applicable(tmp_path: Path, text: str) -> None:
    results = paste_checks(tmp_path, text, AR, TORCH)
    assert results[AR].status == "not-applicable"
    assert "ggml" in results[AR].message or "llama.cpp" in results[AR].message
    assert results[TORCH].status == "not-applicable"  # the ggml device list shows no PyTorch engine either


def test_trtllm_run_not_vllm_allreduce(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, TRTLLM_753, AR)[AR]
    assert result.status == "not-applicable"
    assert "RT-TRTLLM-ALLREDUCE" in result.message


def test_vllm_beside_ggml_stays_open(tmp_path: Path) -> None:
    """Modelled: a vLLM command beside a llama.cpp device list; vLLM's custom all-reduce is still the question."""
    text = "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n" + GGML_15294
    assert paste_checks(tmp_path, text, AR)[AR].status != "not-applicable"


def test_exllama_runs_no_vllm_custom_allreduce() -> None:
    """ExLlamaV2's tensor parallelism is its own: the check is not applicable where it is the only engine (corpus 2905,
    its issue form's `### Pytorch version 2.5.1` being ExLlama's own framework); PyTorch alone names no engine, and
    vLLM named beside ExLlama keeps the check open."""
    assert "ExLlama" in engine_shown_other("allreduce-engine", ("exllama",))
    assert "ExLlama" in engine_shown_other("allreduce-engine", ("exllama", "torch"))
    assert engine_shown_other("allreduce-engine", ("torch",)) == ""
    assert engine_shown_other("allreduce-engine", ("exllama", "vllm")) == ""
    assert engine_shown_other("allreduce-engine", ("exllama", "")) == ""  # an unnamed log or report
    assert engine_shown_other("torch-engine", ("exllama",)) == ""  # ExLlama runs on PyTorch
    result = capture_checks("2905", AR)[AR]
    assert result.status == "not-applicable" and "ExLlama" in result.message


def test_modelled_exllama_beside_vllm_stays_open(tmp_path: Path) -> None:
    """Modelled: 2905's words with a vLLM run named beside ExLlamaV2: the check judges the vLLM run."""
    text = body("2905").replace("with ExLlamaV2 0.2.8", "with ExLlamaV2 0.2.8 and vLLM 0.6.4")
    result = paste_checks(tmp_path, text, AR)[AR]
    assert result.status != "not-applicable"
