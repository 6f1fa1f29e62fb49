"""An engine's own lines that say its kernels do not run on the GPU (facts/symptoms.py, checks/rt.py RT-KERNEL-ARCH).

ggml's `ggml was not compiled with any CUDA arch <= 610`, CUDA's `device kernel image is invalid` and `invalid device
function` under an engine, and CUDA's `no kernel image is available` under ggml's CUDA error block are the engine's
build, not torch's: RT-KERNEL-ARCH issue, quoted; where CUDA refused the kernel image the driver's fit stays open
(DRV-CUDA-COMPAT's ok turns unknown). vLLM's line that an AWQ MoE layer falls back from Marlin to the MoE WNA16 kernels
is a slow path on any GPU. ggml's `CUDA_USE_TENSOR_CORES: yes` on GPUs before Volta only looks wrong. KoboldCpp's
console before its `Amt:` field is read, its rate over the tokens generated.
Real pastes are corpus captures (their public threads in their headers) or verbatim lines with their thread beside
them; modelled text is marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.serving_rate import parse_script_rate
from stackaudit.facts.symptoms import find_symptoms

KERNEL, TORCH, COMPAT = "RT-KERNEL-ARCH", "RT-TORCH-ARCH", "DRV-CUDA-COMPAT"

# https://github.com/ggml-org/llama.cpp/issues/15589 (randaller): the abort's line in a llama.cpp build of Aug 2025.
LLAMACPP_15589 = "common.cuh:112: ggml was not compiled with any CUDA arch <= 750\n"
# https://github.com/LostRuins/koboldcpp/issues/610 (Spacellary), its title: the ggml of 2023's words.
KOBOLDCPP_610 = "ERROR: ggml-cuda was compiled without support for the current GPU architecture.\n"
# https://github.com/ollama/ollama/issues/6997 (nikita228gym): ollama's client quoting the runner's CUDA error.
OLLAMA_6997 = ('Error: llama runner process has terminated: CUDA error: device kernel image is invalid current device: 0, '
               'in function ggml_cuda_compute_forward at C:\\a\\ollama\\ollama/llm/llama.cpp/ggml/src/ggml-cuda.cu:2326\n')
# https://github.com/ggml-org/llama.cpp/issues/6433 (99kaits): ggml's CUDA error block with `invalid device function`.
LLAMACPP_6433 = """\
ggml_cuda_compute_forward: RMS_NORM failed
CUDA error: invalid device function
  current device: 0, in function ggml_cuda_compute_forward at C:/Users/gaming/src/llama.cpp/ggml-cuda.cu:2392
  err
"""
# https://github.com/ollama/ollama/issues/12316 (haimarstaib): ollama 0.11's server.log on a GTX 1080.
OLLAMA_12316 = """\
time=2025-09-17T11:28:38.832+02:00 level=INFO source=server.go:1289 msg="llama runner started in 43.46 seconds"
ggml_cuda_compute_forward: SCALE failed
CUDA error: no kernel image is available for execution on the device
  current device: 0, in function ggml_cuda_compute_forward at C:\\a\\ollama\\ollama\\ml\\backend\\ggml\\ggml\\src\\ggml-cuda\\ggml-cuda.cu:2568
  err
"""
# https://github.com/dphnAI/sonar/issues/49 (Pyroserenus): PyTorch's form of the same error, no ggml around it.
SONAR_49 = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
# Modelled: a ggml CUDA error block around an error that says nothing of the architecture.
MODELLED_GGML_OOM = """\
ggml_cuda_compute_forward: MUL_MAT failed
CUDA error: out of memory
  current device: 0, in function ggml_cuda_compute_forward at /src/ggml/src/ggml-cuda/ggml-cuda.cu:2568
"""


def test_ggml_not_compiled_for_the_gpus_arch_proves_kernel_arch_in_the_corpus() -> None:
    # Corpus 1574 (omacom/omarchy#2039): the distribution's ollama on GTX 1080 Ti, its one line; refused before.
    results = capture_checks("1574", KERNEL, TORCH, COMPAT)
    result = results[KERNEL]
    assert result.status == "issue" and result.severity == "high", result.message
    assert "arch <= 610" in result.evidence[0]
    assert result.fix is not None and "CMAKE_CUDA_ARCHITECTURES" in " ".join(s.does for s in result.fix.steps)
    # ggml's own line shows a ggml program, not torch; it says nothing of the driver.
    assert results[TORCH].status == "not-applicable", results[TORCH].message
    assert results[COMPAT].status == "unknown", results[COMPAT].message


@pytest.mark.parametrize("text", [LLAMACPP_15589, KOBOLDCPP_610], ids=["llama.cpp-15589", "koboldcpp-610"])
def test_ggml_not_compiled_for_the_arch_in_other_threads(text: str) -> None:
    assert [h.symptom.name for h in find_symptoms(text.splitlines())] == ["ggml-not-compiled-for-arch"]


def test_a_refused_kernel_image_proves_kernel_arch_and_leaves_the_driver_open() -> None:
    # Corpus 1572 (ollama/ollama#16533): ollama 0.30.5 on a V100 under driver 535 (CUDA 12.2).
    results = capture_checks("1572", KERNEL, COMPAT, TORCH)
    assert results[KERNEL].status == "issue", results[KERNEL].message
    assert "device kernel image is invalid" in results[KERNEL].evidence[0]
    # The same error is also a build's PTX newer than the driver: the driver's fit is not proven ok.
    assert results[COMPAT].status == "unknown", results[COMPAT].message
    assert "device kernel image is invalid" in results[COMPAT].message
    assert results[TORCH].status == "not-applicable", results[TORCH].message


def test_the_refused_image_on_an_old_driver_is_not_ok_for_the_driver() -> None:
    # Corpus 961 (canonical/inference-snaps#255): a CUDA 12 llama.cpp on a GTX 1080 Ti, driver 535; the device list
    # alone would say the runtime runs on this driver.
    results = capture_checks("961", KERNEL, COMPAT)
    assert results[KERNEL].status == "issue", results[KERNEL].message
    assert results[COMPAT].status == "unknown", results[COMPAT].message


@pytest.mark.parametrize("text", [OLLAMA_6997, LLAMACPP_6433], ids=["ollama-6997", "llama.cpp-6433"])
def test_refused_kernel_images_in_other_threads(tmp_path: Path, text: str) -> None:
    assert "cuda-kernel-image-refused" in [h.symptom.name for h in find_symptoms(text.splitlines())]
    assert paste_checks(tmp_path, text, KERNEL)[KERNEL].status == "issue"


def test_no_kernel_image_under_ggml_is_the_engines_kernel_not_torchs(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, OLLAMA_12316, KERNEL, TORCH)
    assert results[KERNEL].status == "issue", results[KERNEL].message
    assert "no kernel image" in results[KERNEL].message
    assert results[TORCH].status == "not-applicable", results[TORCH].message


def test_no_kernel_image_without_ggml_stays_torchs(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, SONAR_49, KERNEL, TORCH)
    assert results[TORCH].status == "issue", results[TORCH].message
    assert results[KERNEL].status != "issue", results[KERNEL].message


def test_a_ggml_error_block_alone_proves_nothing_of_the_arch(tmp_path: Path) -> None:
    names = [h.symptom.name for h in find_symptoms(MODELLED_GGML_OOM.splitlines())]
    assert names and set(names) == {"ggml-cuda-op-failed"}
    assert paste_checks(tmp_path, MODELLED_GGML_OOM, KERNEL)[KERNEL].status != "issue"


def test_vllm_moe_wna16_fallback_is_a_slow_kernel_path_in_the_corpus() -> None:
    # Corpus 1563 (kyuz0/amd-strix-halo-vllm-toolboxes#72): AWQ MoE experts fall back from Marlin, 36 tok/s.
    result = capture_checks("1563", KERNEL)[KERNEL]
    assert result.status == "issue" and result.severity == "medium", result.message
    assert "Moe WNA16" in result.message and "12185" in result.message


def test_a_marlin_moe_layer_without_the_fallback_is_not_the_finding(tmp_path: Path) -> None:
    # Modelled: vLLM's AWQ Marlin line for a layer it supports names no fallback.
    text = ("WARNING 06-30 17:41:22 [awq_marlin.py:317] Layer 'language_model.model.layers.3.mlp.experts' uses "
            "AWQMoeMarlin.\n")
    assert paste_checks(tmp_path, text, KERNEL)[KERNEL].status != "issue"


def test_tensor_cores_flag_on_pascal_only_looks_wrong_in_the_corpus() -> None:
    # Corpus 1573 (ollama/ollama#1465): ggml_init_cublas's CUDA_USE_TENSOR_CORES: yes over four compute 6.1 GPUs.
    result = capture_checks("1573", KERNEL)[KERNEL]
    assert result.status == "not-an-issue", result.message
    assert "CUDA_USE_TENSOR_CORES: yes" in result.message and "7.0" in result.message


def test_tensor_cores_flag_on_volta_and_newer_is_not_judged(tmp_path: Path) -> None:
    # Modelled from the device-list header of corpus 1573, the GPUs a V100's.
    text = """\
ggml_init_cublas: GGML_CUDA_FORCE_MMQ:   no
ggml_init_cublas: CUDA_USE_TENSOR_CORES: yes
ggml_init_cublas: found 1 CUDA devices:
  Device 0: Tesla V100-PCIE-16GB, compute capability 7.0
"""
    assert paste_checks(tmp_path, text, KERNEL)[KERNEL].status != "not-an-issue"


def test_koboldcpp_console_rate_counts_the_tokens_generated() -> None:
    # Corpus 1564 (LostRuins/koboldcpp#852): 78 of 387 tokens generated in 59.05 s; its own 6.55 T/s divides by 387.
    results = capture_checks("1564", TORCH, "MEM-GPU-SHARED")
    assert results[TORCH].status == "not-applicable", results[TORCH].message
    text = next(Path(__file__).parent.joinpath("data", "captures").glob("1564-*.txt")).read_text()
    rate = parse_script_rate(text.split("-----\n", 1)[1])
    assert rate.tokens_per_s == pytest.approx(78 / 59.05, abs=0.01), rate
    assert "387" in rate.source


def test_koboldcpp_summary_with_its_amount_keeps_its_own_rate() -> None:
    # LostRuins/koboldcpp#1266: a release with `Amt:`, whose Generate rate is over the tokens generated.
    line = ("CtxLimit:16384/16384, Amt:100/100, Init:0.07s, Process:21.22s (1.3ms/T = 767.28T/s), Generate:23.24s "
            "(232.4ms/T = 4.30T/s), Total:44.46s (2.25T/s)\n")
    assert parse_script_rate("Generating (100 / 100 tokens)\n" + line).tokens_per_s == 4.30
