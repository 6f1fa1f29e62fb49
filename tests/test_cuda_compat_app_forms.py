"""DRV-CUDA-COMPAT where the runtime an app uses is shown in its own forms (issue 28, task h120b).

A CUDA program's own line of its context at work shows the runtime it ships running on the driver (facts/cuda_ran.py):
a kernel's own fault on the GPU (`CUDA error: an illegal memory access was encountered`, 700: the device reports it only
for a kernel that ran there), TensorRT's `[MemUsageChange] Init CUDA` report, vLLM's start-up check of a device's free
memory, torch's out-of-memory message quoted up to the GPU's total. An image of Text Embeddings Inference names its
release, whose Dockerfile pins its CUDA (facts/docker.tgi_image_cuda). The system toolkit a package manager lists
installed (`nvidia-cuda-toolkit/noble,now 12.0.140~...`) is the toolkit nvcc would name (facts/nvidia.STATED_TOOLKIT).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.cuda_ran import ran_in_lines
from stackaudit.facts.docker import image_cuda
from stackaudit.facts.nvidia import toolkit_from_evidence_lines

COMPAT = "DRV-CUDA-COMPAT"


@pytest.mark.parametrize("prefix", ["2688", "2720", "2754", "2756", "2674", "2657"])
def test_the_corpus_pastes_are_ok(prefix: str) -> None:
    result = capture_checks(prefix, COMPAT)[COMPAT]
    assert result.status == "ok", result.message


@pytest.mark.parametrize("line", [
    # Real (corpus 2688): vLLM's NCCL watchdog on rank 2.
    "[rank2]:[E323 21:33:26.170490902 ProcessGroupNCCL.cpp:1896] [PG ID 2 PG GUID 3 Rank 2] Process group watchdog "
    "thread terminated with exception: CUDA error: an illegal memory access was encountered",
    # Modelled: torch's device-side assert, and the error's enum name as torch's hint prints it.
    "RuntimeError: CUDA error: device-side assert triggered",
    "Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
    # Real (corpus 2720): TensorRT's report through TensorRT-LLM's build.py.
    "[12/05/2023-01:34:40] [TRT] [I] [MemUsageChange] Init CUDA: CPU +13, GPU +0, now: CPU 126, GPU 262 (MiB)",
    # Real (corpus 2754), and modelled: the form before vLLM named the device.
    "ValueError: Free memory on device cuda:3 (173.8/178.35 GiB) on startup is less than",
    "ValueError: Free memory on device (21.3/23.65 GiB) on startup is less than desired GPU memory utilization (0.95, "
    "22.47 GiB).",
    # Real (corpus 2756): torch's message quoted up to the GPU's total, and modelled with its full stop.
    "GPU 0 has a total capacity of 21.95 GiB",
    "GPU 1 has a total capacity of 79.14 GiB.",
])
def test_a_program_at_work_shows_its_runtime_ran(line: str) -> None:
    assert ran_in_lines([line]), line


@pytest.mark.parametrize("line", [
    # CUDA's catch-all names no fault of a kernel's own (corpus 1327: a vGPU guest, read unknown).
    "Error: llama runner process has terminated: CUDA error: unspecified launch failure",
    # HIP's words for the same fault are no CUDA runtime's (modelled).
    "RuntimeError: HIP error: an illegal memory access was encountered",
    # A sentence about the GPU's capacity is no torch message (modelled); nor a total with more after it.
    "The GPU has a total capacity of 24 GiB",
    "GPU 0 has a total capacity of 21.95 GiB and I only use half",
    # TensorRT's other memory reports, and vLLM's check in words, show no CUDA context of their own (modelled).
    "[TRT] [I] [MemUsageChange] Init builder kernel library: CPU +1799, GPU +312, now: CPU 2061, GPU 574 (MiB)",
    "free memory on device on startup is less than I expected",
])
def test_other_lines_show_nothing(line: str) -> None:
    assert ran_in_lines([line]) == (), line


def test_a_rocm_paste_keeps_the_fault_hips(tmp_path: Path) -> None:
    # Modelled: torch's ROCm build names HIP's devices cuda:N and prints CUDA's words: the fault is no CUDA runtime's.
    assert ran_in_lines(["PyTorch version: 2.6.0+rocm6.2",
                         "RuntimeError: CUDA error: an illegal memory access was encountered"]) == ()


def test_a_kernel_fault_beside_a_driver_is_ok_with_its_driver(tmp_path: Path) -> None:
    # Modelled: the fault beside nvidia-smi's header line, another GPU and wording than 2688's.
    text = ("| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
            "torch.AcceleratorError: CUDA error: misaligned address\n")
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "535.104.05" in result.message and "misaligned address" in result.message


@pytest.mark.parametrize(("image", "cuda"), [
    ("ghcr.io/huggingface/text-embeddings-inference:86-1.5", "12.2"),
    ("ghcr.io/huggingface/text-embeddings-inference:1.5", "12.2"),
    ("ghcr.io/huggingface/text-embeddings-inference:turing-0.6", "12.0"),
    ("ghcr.io/huggingface/text-embeddings-inference:hopper-1.8.3-grpc", "12.2"),
    ("ghcr.io/huggingface/text-embeddings-inference:cuda-1.9", "12.9"),
    ("ghcr.io/huggingface/text-embeddings-inference:120-1.9.3", "12.9"),
    # The CPU build, and a release past the last known tag, name no CUDA.
    ("ghcr.io/huggingface/text-embeddings-inference:cpu-1.5", ""),
    ("ghcr.io/huggingface/text-embeddings-inference:89-2.0", ""),
    ("ghcr.io/huggingface/text-embeddings-inference:latest", ""),
])
def test_tei_images_name_their_cuda(image: str, cuda: str) -> None:
    assert image_cuda(image) == cuda


def test_a_tei_image_newer_than_the_driver_is_left_to_the_requirement(tmp_path: Path) -> None:
    # Modelled: TEI 1.9's CUDA 12.9 image on a driver of CUDA 12.2: the container toolkit's requirement decides.
    text = ("docker run --gpus all -p 8080:80 ghcr.io/huggingface/text-embeddings-inference:89-1.9 --model-id BAAI/bge\n"
            "| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |\n")
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status == "unknown", result.message
    assert "12.9" in result.message


@pytest.mark.parametrize(("line", "version"), [
    ("nvidia-cuda-toolkit/noble,now 12.0.140~12.0.1-4build4 amd64 [installed]", "12.0"),
    ("cuda-toolkit-12-4/unknown,now 12.4.1-1 amd64 [installed]", "12.4"),
    ("ii  nvidia-cuda-toolkit                12.0.140~12.0.1-4build4           amd64        NVIDIA CUDA development "
     "toolkit", "12.0"),
])
def test_the_toolkit_package_installed_names_the_toolkit(line: str, version: str) -> None:
    assert toolkit_from_evidence_lines(line + "\n").version == version


@pytest.mark.parametrize("line", [
    # Only available (no `[installed`), and a companion package of the toolkit's (modelled).
    "nvidia-cuda-toolkit/noble 12.0.140~12.0.1-4build4 amd64",
    "nvidia-cuda-toolkit-doc/noble,now 12.0.1-4build4 all [installed]",
])
def test_other_package_lines_name_no_toolkit(line: str) -> None:
    with pytest.raises(ParseError):
        toolkit_from_evidence_lines(line + "\n")


def test_the_toolkit_package_above_the_driver_runs_by_minor_version(tmp_path: Path) -> None:
    # Modelled: NVIDIA's toolkit 12.4 package on a driver for CUDA 12.2: minor-version compatibility runs what it builds.
    text = ("cuda-toolkit-12-4/unknown,now 12.4.1-1 amd64 [installed]\n"
            "| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |\n")
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status == "not-an-issue", result.message


def test_uv_installing_onnxruntime_gpu_is_ok() -> None:
    # Corpus 2673 (microsoft/onnxruntime#23833): ` + onnxruntime-gpu==1.20.1` under driver 535.183.01 (CUDA 12.2).
    result = capture_checks("2673", COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "onnxruntime-gpu 1.20.1" in result.message


@pytest.mark.parametrize(("listed", "driver", "status"), [
    # Modelled: another release of a CUDA 12 row on a driver above the CUDA 12 floor.
    (" + onnxruntime-gpu==1.22.0", "550.54.15", "ok"),
    # 1.16 ships CUDA 11.8 only: a driver of CUDA 11 runs it (modelled).
    (" + onnxruntime_gpu==1.16.3", "470.82.01", "ok"),
    # 1.19's CUDA 12 build needs 525.60.13; its CUDA 11.8 build would run: the driver's answer is not shown (modelled).
    (" + onnxruntime-gpu==1.19.2", "470.82.01", "unknown"),
    # A release past the rows, and a requirement that is not uv's record, say nothing of the runtime (modelled).
    (" + onnxruntime-gpu==1.23.0", "550.54.15", "unknown"),
    ("onnxruntime-gpu==1.20.1", "550.54.15", "unknown"),
])
def test_uv_records_of_onnxruntime_gpu(tmp_path: Path, listed: str, driver: str, status: str) -> None:
    text = f"Installed 10 packages in 34ms\n{listed}\n + numpy==2.2.3\nDriver Version: {driver}\n"
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status == status, result.message
