"""RT-KERNEL-ARCH: a llama.cpp build with no GPU backend on a CUDA host (issue 28, h125a).

llama.cpp's feature line of its old form (`... | BLAS = 0 | ...`, before the per-backend form of late 2024; as
llama-cpp-python prints it, without the `system_info:` head) shows a build with no BLAS or GPU backend: every layer runs
on the CPU. Beside an NVIDIA GPU named, or a CUDA build the paste asks for (`LLAMA_CUBLAS=1`), that is an issue (corpus
2918). A `BLAS = 1` build, another program's list (whisper.cpp's has no AVX512_VBMI key and its own `CUDA =`), or no
CUDA host shown says nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import GGML_NO_GPU_BACKEND, ServingLog

_FEATURES = ("AVX = 1 | AVX2 = 1 | AVX512 = 0 | AVX512_VBMI = 0 | AVX512_VNNI = 0 | FMA = 1 | NEON = 0 | ARM_FMA = 0 | "
             "F16C = 1 | FP16_VA = 0 | WASM_SIMD = 0 | BLAS = {blas} | SSE3 = 1 | SSSE3 = 1 | VSX = 0 |")
_SMI_L = "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5c7f1b2e-2d4b-4c53-9a55-0c8d2f0f7d11)\n"


def test_llama_cpp_python_without_cublas_in_a_cuda_image() -> None:
    # Corpus 2918 (zylon-ai/private-gpt#1405): llama-cpp-python's bare feature line with `BLAS = 0`, then the
    # Dockerfile's fix that sets `LLAMA_CUBLAS=1`.
    log = fact(pasted(body("2918")), "serving_log")
    assert isinstance(log, ServingLog) and log.engine == "llamacpp" and "BLAS = 0" in log.ggml_no_gpu_backend
    r = capture_checks("2918", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status == "issue" and "LLAMA_CUBLAS=1" in r.message


@pytest.mark.parametrize("head", ["", "system_info: n_threads = 8 / 16 | ", "llama_cpp: "])
def test_modelled_no_backend_beside_a_named_gpu(tmp_path: Path, head: str) -> None:
    # Modelled: the line with llama.cpp's own head (or bare), beside `nvidia-smi -L` naming an RTX 3090.
    if head == "llama_cpp: ":
        assert not GGML_NO_GPU_BACKEND.search(head + _FEATURES.format(blas=0))
        return
    r = paste_checks(tmp_path, _SMI_L + head + _FEATURES.format(blas=0) + "\n", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status == "issue" and "RTX 3090" in r.message


def test_modelled_cuda_build_or_no_cuda_host_is_no_issue(tmp_path: Path) -> None:
    # Modelled: a cuBLAS build prints BLAS = 1; a BLAS = 0 build with nothing of CUDA in the paste is a CPU build of a
    # CPU host, as far as the paste shows.
    for text in (_SMI_L + "system_info: n_threads = 8 / 16 | " + _FEATURES.format(blas=1) + "\n",
                 "system_info: n_threads = 8 / 16 | " + _FEATURES.format(blas=0) + "\n"):
        r = paste_checks(tmp_path, text, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
        assert r.status != "issue", text


def test_modelled_other_programs_lists_are_not_read() -> None:
    # Modelled: whisper.cpp's list (no AVX512_VBMI key, its own CUDA key) and a list naming a GPU backend.
    whisper = ("system_info: n_threads = 4 / 8 | AVX = 1 | AVX2 = 1 | AVX512 = 0 | FMA = 1 | NEON = 0 | ARM_FMA = 0 "
               "| METAL = 0 | F16C = 1 | FP16_VA = 0 | WASM_SIMD = 0 | BLAS = 0 | SSE3 = 1 | SSSE3 = 1 | VSX = 0 | "
               "CUDA = 1 | COREML = 0 | OPENVINO = 0 |\n")
    log = fact(pasted(_SMI_L + whisper), "serving_log")
    assert not (isinstance(log, ServingLog) and log.ggml_no_gpu_backend)
