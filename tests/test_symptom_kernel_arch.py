"""A kernel the GPU has no code for proves itself (facts/symptoms.py `cuda-no-kernel-image`, `kernel-arch-refused`).

CUDA's `no kernel image is available for execution on the device` says the build in use holds no kernel for this
GPU's compute capability: RT-TORCH-ARCH issue, quoted, wherever the line stands (alone, or in an engine's log).
DeepGEMM's `Assertion error (…/csrc/apis/<file>.hpp:N): Unsupported architecture` says a kernel library the engine
calls has no kernel for the GPU's architecture: RT-KERNEL-ARCH issue, quoted. The lines are an engine's start
failing, so the log reader takes them even with no engine line around them.
Real pastes are corpus captures (their public threads in their headers) or verbatim lines with their thread beside
them; counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms
from stackaudit.importers.pasted import load_pasted

TORCH, KERNEL = "RT-TORCH-ARCH", "RT-KERNEL-ARCH"

# https://github.com/dphnAI/sonar/issues/49 (Pyroserenus): PyTorch's error and its usual follow-up lines.
SONAR_49 = """\
RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""
# https://github.com/Comfy-Org/ComfyUI/issues/10326 (jedoK35094): the same error in a Windows console, fenced.
COMFYUI_10326 = """\
```powershell
RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.


Prompt executed in 7.13 seconds
```
"""
# Modelled: the follow-up lines without the error (any CUDA error prints them): no kernel is shown missing.
MODELLED_FOLLOW_UP_ONLY = "\n".join(SONAR_49.splitlines()[1:]) + "\n"

# https://github.com/vllm-project/vllm/issues/41027 (WangHHY19931001): DeepGEMM's refusal in a vLLM worker's log.
VLLM_41027 = ("(Worker_TP2 pid=100746) ERROR 04-27 23:40:50 [multiproc_executor.py:962] RuntimeError: Assertion error "
              "(/workspace/.deps/deepgemm-src/csrc/apis/hyperconnection.hpp:56): Unsupported architecture\n")
# https://github.com/sgl-project/sglang/issues/25877 (ninerui): the refusal through TVM's FFI, on SM 12.0.
SGLANG_25877 = ("Error: tvm.error.InternalError: Assertion error (/deepgemm/csrc/apis/hyperconnection.hpp:56): "
                "Unsupported architecture\n")
# https://github.com/ai-dynamo/aiconfigurator/pull/975 (jasonqinzhou): the path elided, and DeepGEMM's other
# assertion (a recipe it does not know), which says nothing of the architecture.
AICONFIGURATOR_975_ARCH = "RuntimeError: Assertion error (.../apis/gemm.hpp:376): Unsupported architecture\n"
AICONFIGURATOR_975_RECIPE = "RuntimeError: Assertion error (.../utils/layout.hpp:56): Unknown recipe\n"
# https://github.com/deepseek-ai/DeepGEMM/issues/172 (FlamingoPg): nvcc too old for the target, not a kernel missing.
DEEPGEMM_172 = "NVCC compilation failed: nvcc fatal   : Unsupported gpu architecture 'sm_100f'\n"


def test_no_kernel_image_alone_proves_torch_arch() -> None:
    # Corpus 798 (vllm-project/vllm#18995): the fenced error alone, then a docker run and an nvidia-smi header.
    results = capture_checks("798", TORCH, "CTR-GPU-ACCESS")
    result = results[TORCH]
    assert result.status == "issue" and result.severity == "high", result.message
    assert "no kernel image is available" in result.evidence[0]
    # CUDA reached the GPU: the container's GPU access is not what failed.
    assert results["CTR-GPU-ACCESS"].status == "ok"


@pytest.mark.parametrize("text", [SONAR_49, COMFYUI_10326], ids=["sonar-49", "comfyui-10326"])
def test_no_kernel_image_in_other_threads(tmp_path: Path, text: str) -> None:
    result = paste_checks(tmp_path, text, TORCH)[TORCH]
    assert result.status == "issue", result.message
    assert "no kernel image" in result.message
    # The error is read as a log's line, not refused as unknown text.
    path = tmp_path / "paste.txt"
    recognised = load_pasted([str(path)]).record.meta.get("recognised", [])
    assert any(line.startswith("server log") for line in recognised), recognised


# Modelled: a vLLM worker's log line prefix (VLLM_41027's) before a line, so that the paste is read as a log.
_VLLM_PREFIX = "(Worker_TP2 pid=100746) ERROR 04-27 23:40:50 [multiproc_executor.py:962] "


def test_the_follow_up_lines_alone_prove_nothing(tmp_path: Path) -> None:
    assert not find_symptoms(MODELLED_FOLLOW_UP_ONLY.splitlines())
    text = "".join(_VLLM_PREFIX + line + "\n" for line in MODELLED_FOLLOW_UP_ONLY.splitlines())
    assert paste_checks(tmp_path, text, TORCH)[TORCH].status != "issue"


@pytest.mark.parametrize(("text", "quoted"), [
    (VLLM_41027, "hyperconnection.hpp:56"),
    (SGLANG_25877, "tvm.error.InternalError"),
    (AICONFIGURATOR_975_ARCH, "gemm.hpp:376"),
], ids=["vllm-41027", "sglang-25877", "aiconfigurator-975"])
def test_deepgemm_refusing_the_architecture_proves_kernel_arch(tmp_path: Path, text: str, quoted: str) -> None:
    result = paste_checks(tmp_path, text, KERNEL)[KERNEL]
    assert result.status == "issue", result.message
    assert quoted in result.evidence[0] and "Unsupported architecture" in result.message


def test_deepgemm_on_sm120_in_the_corpus() -> None:
    # Corpus 810 (sgl-project/sglang#26087): every DSA backend fails at start on 8 RTX PRO 6000 (SM120).
    result = capture_checks("810", KERNEL)[KERNEL]
    assert result.status == "issue", result.message
    assert "attention.hpp:219" in result.evidence[0]


@pytest.mark.parametrize("text", [AICONFIGURATOR_975_RECIPE, DEEPGEMM_172], ids=["unknown-recipe", "nvcc-target"])
def test_other_deepgemm_failures_are_not_the_architecture(tmp_path: Path, text: str) -> None:
    assert not find_symptoms(text.splitlines())
    assert paste_checks(tmp_path, _VLLM_PREFIX + text, KERNEL)[KERNEL].status != "issue"


def test_turbomind_without_a_decoding_kernel_for_the_gpu_in_the_corpus() -> None:
    # Corpus 1019 (InternLM/lmdeploy#4408, "Qwen3.5 Turbomind missing V100 support"): TurboMind's fatal check on four
    # V100s, check_env beside it.
    result = capture_checks("1019", KERNEL)[KERNEL]
    assert result.status == "issue" and result.severity == "high", result.message
    assert "TurboMind" in result.message and "decode_d256_f16_gs4" in result.evidence[0]
    assert result.fix is not None and "--backend pytorch" in " ".join(s.does for s in result.fix.steps)


def test_turbomind_lines_that_name_no_missing_kernel_prove_nothing() -> None:
    # The fatal line as lmdeploy#4408 prints it, and modelled lines that name no kernel missing.
    line = "[TM][FATAL] kernels/attention/decoding.cu(34): Check failed: kernel No decoding kernel found: decode_d256_f16_gs4"
    assert [h.symptom.name for h in find_symptoms([line])] == ["turbomind-no-kernel"]
    for modelled in ("[TM][INFO] decoding kernel found for decode_d128_f16_gs8",
                     "[TM][FATAL] kernels/attention/decoding.cu(34): Check failed: kernel"):
        assert not [h for h in find_symptoms([modelled]) if h.symptom.check == KERNEL], modelled


def test_turbomind_own_kernel_without_an_image_for_the_gpu() -> None:
    # Real: TurboMind's CUDA check under its log prefix, from InternLM/lmdeploy#1781 (corpus 2083, pre-Ampere GPU) and
    # InternLM/lmdeploy#4962 (four A10s, `[TM][FATAL][...][cast.cu:264]`). The kernel is TurboMind's: RT-KERNEL-ARCH.
    for line in ("  what():  [TM][ERROR] CUDA runtime error: no kernel image is available for execution on the device "
                 "/opt/lmdeploy/src/turbomind/kernels/sampling_topp_kernels.cu:1219",
                 "[TM][FATAL][0914.14:00:37.807188][cast.cu:264] CUDA error: no kernel image is available for execution "
                 "on the device"):
        assert "turbomind-no-kernel-image" in {h.symptom.name for h in find_symptoms([line])}, line
    # Modelled counter-examples: torch's own no-kernel-image line and a TurboMind line of another CUDA error.
    for line in ("RuntimeError: CUDA error: no kernel image is available for execution on the device",
                 "[TM][ERROR] CUDA runtime error: out of memory /opt/lmdeploy/src/turbomind/utils/allocator.h:231"):
        assert "turbomind-no-kernel-image" not in {h.symptom.name for h in find_symptoms([line])}, line
    result = capture_checks("2083", KERNEL)[KERNEL]
    assert result.status == "issue" and "TurboMind" in result.message, result.message


def test_deepgemm_dispatch_without_the_gpus_target_in_the_corpus() -> None:
    # Corpus 2444 (sgl-project/sglang#7227): DeepGEMM's Python dispatch has no entry for an RTX 5090's '120a'.
    result = capture_checks("2444", KERNEL)[KERNEL]
    assert result.status == "issue", result.message
    assert "KeyError: '120a'" in result.evidence[0]


# Modelled: KeyErrors whose key is no arch-specific target (a config key, a bare capability number, a word that
# ends in `a`) say nothing of a kernel library's architecture table.
@pytest.mark.parametrize("line", ["KeyError: 'architectures'", "KeyError: '120'", "KeyError: 'llama'",
                                  "KeyError: '120a' not found in layer names"])
def test_other_key_errors_are_not_the_architecture(line: str) -> None:
    assert not [h for h in find_symptoms([line]) if h.symptom.check == KERNEL]


def test_the_key_error_pattern_is_bounded() -> None:
    import time

    from stackaudit.facts.symptoms import KERNEL_ARCH_REFUSED
    line = "KeyError: '" + "1" * 200_000
    start = time.perf_counter()
    KERNEL_ARCH_REFUSED.search(line)
    assert time.perf_counter() - start < 0.5


def test_an_engine_falling_back_for_an_old_gpu_proves_kernel_arch_2495(tmp_path: Path) -> None:
    """Corpus 2495 (theroyallab/tabbyAPI#296): tabbyAPI sees a Tesla P40 beside an RTX 3090 and switches every GPU
    to its compatibility mode: RT-KERNEL-ARCH issue, quoted. Modelled counter-examples: the follow-up lines alone,
    and an NGC image's driver-compatibility banner, prove nothing of the kind."""
    result = capture_checks("2495", KERNEL)[KERNEL]
    assert result.status == "issue" and "compatibility mode" in result.message
    assert any("Switching to compatibility mode" in e for e in result.evidence)
    quiet = ("2025-03-02 04:41:51.061 WARNING:  This disables parallel batching and features that rely on it (ex. CFG).\n"
             "CUDA Forward Compatibility mode ENABLED.\n")
    assert paste_checks(tmp_path, quiet, KERNEL)[KERNEL].status != "issue"
