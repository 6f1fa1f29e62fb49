"""A multi-process engine whose whole command runs one rank leaves a small /dev/shm not an issue (CTR-SHM-SIZE).

vLLM's TP, PP and DP default to 1: a command that sets none (its own image run with no arguments included) runs one
engine core on one GPU, with no NCCL ranks or tensor-parallel workers exchanging tensors through /dev/shm; Triton
serves every model instance from its one server process (facts/docker.py `DockerContainer.one_rank_engine`). Its
shown size (Docker's 64 MiB default) is then not an issue; a size the spec does not show stays unknown, and a size
flag, a config file, Ray, MPI or a shell line that may hold one, another source showing more ranks, SGLang or TGI keep
the issue. A one-process server (Ollama, llama.cpp) is not an issue whatever its size, a large one included.
Real pastes are the corpus files named; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks


@pytest.mark.parametrize(("prefix", "words"), [
    # vllm-project/vllm#33447: `docker run --rm --gpus all vllm/vllm-openai:v0.15.0`, the image's default model.
    ("1087", "its vLLM runs one rank"),
    # triton-inference-server/server#2674: `tritonserver --model-repository=/models`, no --gpus.
    ("713", "its Triton runs one rank"),
    # ollama with `--shm-size=100GB`: one process, so /dev/shm is not on its path whatever its size.
    ("828", "serves from one process"),
])
def test_one_rank_or_one_process_at_any_size_is_not_an_issue(prefix: str, words: str) -> None:
    res = capture_checks(prefix, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "not-an-issue", res.message
    assert words in res.message


def test_a_cut_spec_of_a_one_rank_engine_stays_unknown() -> None:
    # Corpus 1405 (a pod's containers list, its /dev/shm volume not shown either way): the size, not the work, is
    # what is missing.
    assert capture_checks("1405", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "unknown"


@pytest.mark.parametrize("tail", [
    "vllm/vllm-openai:latest --model m --tensor-parallel-size 2",
    "vllm/vllm-openai:latest --model m -tp=4",
    "vllm/vllm-openai:latest --model m --pipeline-parallel-size 2",
    "vllm/vllm-openai:latest --model m --data-parallel-size 2",
    "vllm/vllm-openai:latest --model m --config /cfg/serve.yaml",
    "vllm/vllm-openai:latest --model m --distributed-executor-backend ray",
    "--entrypoint sh vllm/vllm-openai:latest -c \"vllm serve m --tensor-parallel-size 2\"",
    "lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path m",
    "ghcr.io/huggingface/text-generation-inference:2.0 --model-id m",
    "my-vllm-build:latest",
    "nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3 tritonserver --model-repository=/models",
])
def test_more_ranks_possible_keep_the_issue(tmp_path: Path, tail: str) -> None:
    # Modelled: Docker's 64 MiB under a command that sets, or may set, more than one rank (or an image whose own
    # command is not shown, or an engine not read here).
    res = paste_checks(tmp_path, f"docker run --gpus all {tail}\n", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "issue", res.message


def test_a_log_of_more_ranks_keeps_the_issue(tmp_path: Path) -> None:
    # Modelled: the same one-rank command beside a vLLM engine-config line of TP 2 (another source shows more ranks).
    text = ("docker run --gpus all vllm/vllm-openai:latest --model m\n"
            "INFO 01-30 13:26:20 [llm_engine.py:161] Initializing an LLM engine (v0.6.3) with config: model='m', "
            "tensor_parallel_size=2, pipeline_parallel_size=1, enforce_eager=False\n")
    res = paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "issue", res.message


def test_explicit_tp_one_is_one_rank(tmp_path: Path) -> None:
    # Modelled: corpus 1087's run with TP 1 written out.
    text = "docker run --gpus all vllm/vllm-openai:latest --model m --tensor-parallel-size 1\n"
    res = paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "not-an-issue", res.message
