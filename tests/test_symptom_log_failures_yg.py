"""Failures a log writes prove themselves, or name the checks that would say why (facts/symptoms.py).

- A refused pinned host allocation (ggml's `failed to allocate N MB of pinned memory`, TensorFlow's `could not
  allocate pinned host memory`) proves MEM-PINNED-HOST, quoted.
- ggml's stub for a kernel the build lacks (`ERROR: CUDA kernel mul_mat_q has no device code compatible with CUDA arch
  700`) proves RT-KERNEL-ARCH, rules DRV-XID out (the launch failure after it is the stub's trap) and shows kernels ran
  on the GPU, so the driver runs the runtime (DRV-CUDA-COMPAT ok).
- CUDA's `unknown error` in the middle of a run proves no check: DRV-XID, FW-AER-ERRORS and PWR-CLOCK-EVENTS stay
  unknown and quote it (`Symptom.suspects`).
- The user's words that the work runs on a MIG slice (`H100 40GB (using MIG)`) show MIG on and sliced by hand
  (facts/mig_setup.stated_mig): MEM-MIG not an issue where no engine runs TP > 1.
Real lines carry their thread beside them; counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.mig_setup import stated_mig
from stackaudit.facts.symptoms import find_symptoms

# https://github.com/ollama/ollama/issues/1955 (the title, jmorganca): ggml's warning, alone.
OLLAMA_1955 = "WARNING: failed to allocate 4096.02 MB of pinned memory: out of memory\n"
# https://github.com/talmolab/sleap/issues/2001 (ngreen123): TensorFlow's host allocator refused.
SLEAP_2001 = """\
2024-10-22 09:22:17.233584: W .\\tensorflow/core/common_runtime/device/device_host_allocator.h:46] could not allocate pinned host memory of size: 34359738368
2024-10-22 09:22:17.233972: E tensorflow/stream_executor/cuda/cuda_driver.cc:802] failed to alloc 34359738368 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory
"""
# Modelled: llama.cpp placing its KV cache in pinned host memory without trouble.
PINNED_FINE = "llama_kv_cache_init:  CUDA_Host KV buffer size =   512.00 MiB\n"

# https://github.com/LostRuins/koboldcpp/issues/1362 (dts24436): the stub's line on a Maxwell GPU.
KOBOLD_1362 = ("d:\\a\\koboldcpp\\koboldcpp\\ggml\\src\\ggml-cuda\\mmv.cu:57: ERROR: CUDA kernel mul_mat_vec has no "
               "device code compatible with CUDA arch 500. ggml-cuda.cu was compiled for: __CUDA_ARCH_LIST__\n")

# https://github.com/ggml-org/llama.cpp/issues/25721 (Mimocro): ggml's CUDA_CHECK block after a forward pass failed.
LLAMA_25721 = """\
3.14.071.004 E ggml_cuda_compute_forward: MUL_MAT_ID failed
3.14.071.012 E CUDA error: unknown error
3.14.071.013 E   current device: 0, in function ggml_cuda_compute_forward at D:\\a\\llama.cpp\\llama.cpp\\ggml\\src\\ggml-cuda\\ggml-cuda.cu:2267
"""
# https://github.com/deepspeedai/DeepSpeed/issues/5482 (liuhui0401): torch's words for it, after hours on A100s.
DEEPSPEED_5482 = "RuntimeError: CUDA error: unknown error\n"


def test_ggml_pinned_allocation_refused_in_the_corpus_is_an_issue() -> None:
    result = capture_checks("1334", "MEM-PINNED-HOST")["MEM-PINNED-HOST"]  # mudler/LocalAI#1030
    assert result.status == "issue"
    assert "failed to allocate 1024.00 MB of pinned memory" in result.message


@pytest.mark.parametrize("text", [OLLAMA_1955, SLEAP_2001], ids=["ollama-1955", "sleap-2001"])
def test_a_refused_pinned_allocation_alone_is_an_issue(tmp_path: Path, text: str) -> None:
    result = paste_checks(tmp_path, text, "MEM-PINNED-HOST")["MEM-PINNED-HOST"]
    assert result.status == "issue"
    assert "pinned" in result.evidence[0]


def test_pinned_memory_in_use_is_no_symptom() -> None:
    assert find_symptoms(PINNED_FINE.splitlines()) == ()


def test_ggml_stub_without_device_code_proves_the_kernel_arch_and_clears_xid() -> None:
    results = capture_checks("1333", "RT-KERNEL-ARCH", "DRV-XID", "DRV-CUDA-COMPAT")  # ollama/ollama#5586
    assert results["RT-KERNEL-ARCH"].status == "issue"
    assert "has no device code compatible with CUDA arch 700" in results["RT-KERNEL-ARCH"].message
    assert results["DRV-XID"].status == "not-an-issue"
    assert "traps" in results["DRV-XID"].message
    assert results["DRV-CUDA-COMPAT"].status == "ok"
    assert "mul_mat_q" in results["DRV-CUDA-COMPAT"].message


def test_the_stub_line_alone_proves_the_kernel_arch(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, KOBOLD_1362, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert result.status == "issue"
    assert "CUDA arch 500" in result.evidence[0]


def test_cuda_unknown_error_mid_run_leaves_the_checks_unknown_with_the_line() -> None:
    checks = ("DRV-XID", "FW-AER-ERRORS", "PWR-CLOCK-EVENTS", "DRV-CUDA-COMPAT")
    results = capture_checks("1324", *checks)  # ollama/ollama#3097: was refused before the line was read
    for check in checks:
        assert results[check].status == "unknown", check
    for check in checks[:3]:
        assert '"CUDA error: unknown error"' in results[check].message, check
    assert "CUDA error" not in results["DRV-CUDA-COMPAT"].message


@pytest.mark.parametrize("text", [LLAMA_25721, DEEPSPEED_5482], ids=["llama-25721", "deepspeed-5482"])
def test_cuda_unknown_error_alone_names_what_would_say_why(tmp_path: Path, text: str) -> None:
    results = paste_checks(tmp_path, text, "DRV-XID", "PWR-CLOCK-EVENTS")
    for result in results.values():
        assert result.status == "unknown"
        assert "CUDA error: unknown error" in result.message


def test_cuda_init_unknown_error_is_not_the_mid_run_line() -> None:
    # ggml's init failure (its own row, cuda-init-unknown-error) is another fault: a container's device access.
    names = {h.symptom.name for h in find_symptoms(["ggml_cuda_init: failed to initialize CUDA: unknown error"])}
    assert names == {"cuda-init-unknown-error"}


def test_the_users_mig_slice_makes_mig_not_an_issue() -> None:
    result = capture_checks("1323", "MEM-MIG")["MEM-MIG"]  # vllm-project/vllm#9824
    assert result.status == "not-an-issue"
    assert "H100 40GB (using MIG)" in result.message


@pytest.mark.parametrize("line", [
    "H100 40GB (using MIG)",  # vllm-project/vllm#9824
    "On using A100 - 80GB in MIG Mode",  # Stability-AI/sd3.5#18
    "- GPU: NVIDIA H100 NVL, MIG slice 3g.47gb (47 GB)",  # vllm-project/vllm#40920
])
def test_stated_mig_slices(line: str) -> None:
    assert stated_mig(line)


@pytest.mark.parametrize("line", [
    "8x H100, not using MIG",  # modelled
    "A100 80GB with MIG disabled",  # modelled
    "Does this work on MIG?",  # modelled: a question states nothing
    "we plan to migrate to vLLM",  # modelled
])
def test_words_that_state_no_mig_slice(line: str) -> None:
    assert not stated_mig(line)
