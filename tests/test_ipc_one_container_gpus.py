"""CTR-IPC-ISOLATION: one container, started as no rank of a group, that holds two or more GPUs keeps every rank
its engine starts inside it (one IPC namespace, one /dev/shm): ok, as for a shown TP > 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

CHECK = "CTR-IPC-ISOLATION"


@pytest.mark.parametrize(("prefix", "status", "words"), [
    # NVIDIA/TensorRT-LLM thread: `docker run --gpus=all` on a host whose system info lists two RTX 4090s.
    ("168", "ok", "demo-trtllm (2 GPUs)"),
    # A KServe HF server started with `--gpus=2`: two GPUs in one container, no rank flag.
    ("301", "ok", "(2 GPUs)"),
    # A shown TP 4 in one container keeps its own wording (the engine's TP x PP).
    ("127", "ok", "TP x PP = 4"),
    # A pod of two one-GPU containers: nothing to split.
    ("345", "not-applicable", "nothing split"),
    # An ollama compose service given one GPU: nothing to split.
    ("260", "not-applicable", ""),
])
def test_real_pastes(prefix: str, status: str, words: str) -> None:
    r = capture_checks(prefix, CHECK)[CHECK]
    assert r.status == status, r.message
    assert words in r.message


def test_all_gpus_of_a_host_not_shown_is_not_judged_ok() -> None:
    # xinference/inference#1622: `--gpus all` and the GPUs' number only in the author's prose.
    r = capture_checks("356", CHECK)[CHECK]
    assert r.status == "not-applicable"


def test_modelled_all_gpus_on_a_one_gpu_host(tmp_path: Path) -> None:
    # Modelled: `--gpus all` where the pasted nvidia-smi shows one GPU: no TP group, nothing to share.
    text = ("$ docker run -d --gpus all --shm-size 8g -p 8080:80 ghcr.io/huggingface/text-generation-inference:2.0.4"
            " --model-id mistralai/Mistral-7B-v0.1\n"
            "$ nvidia-smi -L\n"
            "GPU 0: NVIDIA RTX A6000 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n")
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "not-applicable", r.message


def test_modelled_two_gpu_ids(tmp_path: Path) -> None:
    # Modelled: `--gpus '"device=0,1"'` with no rank flag holds both GPUs of its engine.
    text = "$ docker run -d --gpus '\"device=0,1\"' --shm-size 16g -p 11434:11434 ollama/ollama\n"
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "ok", r.message
    assert "(2 GPUs)" in r.message


def test_keep_alive_container_holds_its_ranks() -> None:
    # triton-inference-server/tensorrtllm_backend#54: the working run is
    # `docker run -d ... --gpus '"device=6,7"' ... triton_trt_llm sleep 8640000`, entered to start Triton at
    # world_size 2: a container held open by `sleep` runs the engine the user starts in it.
    r = capture_checks("900", CHECK)[CHECK]
    assert r.status == "ok", r.message
    assert "(2 GPUs)" in r.message


def test_modelled_short_sleep_stays_a_diagnostic(tmp_path: Path) -> None:
    # Modelled: `sleep 30` before a check exits; it holds nothing open for an engine.
    text = "$ docker run --rm --gpus '\"device=0,1\"' ubuntu:22.04 sleep 30\n"
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "not-applicable", r.message


def test_modelled_tail_dev_null_keeps_alive(tmp_path: Path) -> None:
    # Modelled: `tail -f /dev/null` is the other common keep-alive command.
    text = "$ docker run -d --gpus '\"device=0,1\"' --shm-size 8g nvcr.io/nvidia/pytorch:24.01-py3 tail -f /dev/null\n"
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "ok", r.message
