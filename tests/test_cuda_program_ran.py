"""DRV-CUDA-COMPAT from a CUDA program that ran (drv.cuda_program_ran): a runtime newer than the driver fails at its
first call (cudaErrorInsufficientDriver, https://docs.nvidia.com/deploy/cuda-compatibility/), so a line that shows the
program placed memory on the GPU shows its runtime runs on the driver the source does not show (symptoms.CUDA_RAN)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

COMPAT = "DRV-CUDA-COMPAT"


def test_trtllm_memory_ledger_shows_its_runtime_ran() -> None:
    # Corpus 1060: TensorRT-LLM's executor failed to fit its components after it had placed the model on the GPU.
    r = capture_checks("1060", COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert "Model: 94.30 / 47.83" in r.message and "cudaErrorInsufficientDriver" in r.message
    assert "Model: 94.30 / 47.83" in r.evidence


# Real lines, verbatim, from public threads.
@pytest.mark.parametrize("line", [
    # https://github.com/vllm-project/vllm/issues/38820
    "(Worker_TP0 pid=34322) INFO 05-06 20:59:59 [gpu_model_runner.py:4879] Model loading took 12.66 GiB memory and "
    "31.657031 seconds",
    # https://github.com/vllm-project/vllm/pull/6234
    "(VllmWorkerProcess pid=6923) INFO 07-17 23:41:16 model_runner.py:559] Loading model weights took 6.1138 GB",
    "INFO 07-17 23:41:28 distributed_gpu_executor.py:56] # GPU blocks: 10039, # CPU blocks: 1310",
    # https://github.com/vllm-project/vllm/pull/11349
    "INFO 12-19 22:58:41 model_runner.py:1535] Graph capturing finished in 14 secs, took 0.21 GiB",
])
def test_vllm_memory_on_the_gpu_shows_its_runtime_ran(tmp_path: Path, line: str) -> None:
    r = paste_checks(tmp_path, line + "\n", COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert any(e in line for e in r.evidence), r.evidence  # the line, less any rank prefix


def test_cuda_out_of_memory_shows_the_runtime_started(tmp_path: Path) -> None:
    # Modelled on PyTorch's allocator message (torch/csrc/cuda/CUDACachingAllocator.cpp).
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
            "of 23.64 GiB of which 3.06 MiB is free.\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "ok"


def test_insufficient_driver_beside_the_memory_line_is_an_issue(tmp_path: Path) -> None:
    # Modelled: the runtime refused before the program allocated anything; the refusal decides.
    text = ("INFO 12-19 22:58:41 model_runner.py:1535] Graph capturing finished in 14 secs, took 0.21 GiB\n"
            "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "issue"


@pytest.mark.parametrize("text", [
    # Modelled: the TensorRT-LLM ledger's header and a line that is not a before/after pair.
    "Previously created components and free GPU memory before/after creation (GiB):\nModel: DeepSeek-V3\n",
    # Modelled: vLLM weighing a load it has not done; no memory placed.
    "INFO 07-17 23:41:30 model_runner.py:847] Capturing the model for CUDA graphs.\n",
    "# GPU blocks: 0, # CPU blocks: 1310\n",
])
def test_no_memory_placed_stays_unknown(tmp_path: Path, text: str) -> None:
    # Beside a vLLM line that is recognised and shows no memory placed.
    r = paste_checks(tmp_path, "INFO 07-17 23:41:16 model_runner.py:520] Starting to load model m...\n" + text,
                     COMPAT)[COMPAT]
    assert r.status != "ok", r.message


def test_driver_shown_without_its_consumer_is_ok_where_a_program_ran() -> None:
    # Corpus 1045: driver 580.159.03 shown, no torch CUDA; PyTorch ran out of memory after CUDA started.
    r = capture_checks("1045", COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert r.message.startswith("driver 580.159.03: ") and "CUDA out of memory" in r.message


def test_driver_shown_with_a_refusal_stays_an_issue(tmp_path: Path) -> None:
    # Modelled: a memory line of one program beside another's refusal on the same driver: the refusal decides.
    text = ("Driver Version: 470.82.01    CUDA Version: 11.4\n"
            "INFO 12-19 22:58:41 model_runner.py:1535] Graph capturing finished in 14 secs, took 0.21 GiB\n"
            "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "issue"
