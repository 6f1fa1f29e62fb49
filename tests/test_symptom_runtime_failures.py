"""A runtime's own start-up lines prove what they say, and the worse line wins (issue 28, step 3).

- A CUDA runtime refused for an old driver (`CUDA driver version is insufficient for CUDA runtime version`) is a
  DRV-CUDA-COMPAT issue whatever else is shown (facts/symptoms.py `cuda-insufficient-driver`).
- ollama's `skipping CUDA device — compute capability not in compiled architectures` leaves the GPU out:
  RT-KERNEL-ARCH issue, unless the same log shows layers offloaded to the GPU (`ollama-cc-not-compiled`).
- NCCL's `Duplicate GPU detected : rank 0 and rank 1 both on CUDA device …`: the ranks were given one GPU between
  them, CTR-GPU-ACCESS issue (`nccl-duplicate-gpu`).
- UCC's `TL_SHM ERROR Child failed to attach to shmseg` between ranks on one host: separate IPC namespaces,
  CTR-IPC-ISOLATION issue (`ucc-shm-attach`).
- NVML's `Failed to initialize NVML: ERROR_UNKNOWN` (go-nvml's name of NVML's unknown error) in a pod that requests a
  GPU: CTR-GPU-ACCESS issue over the spec's request (`nvml-unknown-error`).

Real pastes are corpus captures (their public threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

COMPAT, KERNEL, ACCESS, IPC = "DRV-CUDA-COMPAT", "RT-KERNEL-ARCH", "CTR-GPU-ACCESS", "CTR-IPC-ISOLATION"

# Modelled: llama.cpp's own words where cudaGetDeviceCount fails (ggml-cuda.cu's `%s: failed to initialize CUDA: %s`
# with cudaGetErrorString of cudaErrorInsufficientDriver), then the CPU backend it falls back to.
MODELLED_GGML_OLD_DRIVER = """\
ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version
load_backend: loaded CUDA backend from /app/libggml-cuda.so
load_backend: loaded CPU backend from /app/libggml-cpu-haswell.so
"""
# Modelled: a device list as corpus 921's, and the failure above after it (a second start on a downgraded driver).
MODELLED_LIST_THEN_FAILURE = """\
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes
ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version
"""
# Modelled: ollama skips the device for its CUDA 13 library and its CUDA 12 library takes it (the fallback the
# 0.30.10 log of corpus 926 describes): layers go to the GPU, no failure.
MODELLED_OLLAMA_FALLBACK = """\
time=2025-10-01T10:00:00.000Z level=INFO source=runner.go:100 msg="skipping CUDA device — compute capability not in compiled architectures" device="NVIDIA RTX A6000" cc=860 archs="[750 890 1000 1200]"
time=2025-10-01T10:00:02.000Z level=INFO source=ggml.go:376 msg="offloaded 65/65 layers to GPU"
"""


def test_a_runtime_refused_for_the_driver_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, MODELLED_GGML_OLD_DRIVER, COMPAT)[COMPAT]
    assert result.status == "issue", result.message
    assert "insufficient" in result.evidence[0]


def test_the_failure_wins_over_a_device_list(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, MODELLED_LIST_THEN_FAILURE, COMPAT)[COMPAT]
    assert result.status == "issue", result.message


def test_ollama_skipping_a_gpu_for_its_arch_is_a_kernel_arch_issue() -> None:
    # Corpus 926 (ollama/ollama#17841): an RTX A6000 (cc 8.6) left out by a CUDA 13 library without sm_86.
    result = capture_checks("926", KERNEL)[KERNEL]
    assert result.status == "issue", result.message
    assert "compute capability not in compiled architectures" in result.evidence[0]


def test_ollama_skip_then_offload_is_no_failure() -> None:
    # The veto holds within one source (a log read whole); ollama's own log is not yet read as one (corpus 927, 928).
    assert [h.symptom.name for h in find_symptoms(MODELLED_OLLAMA_FALLBACK.splitlines()[:1])] == ["ollama-cc-not-compiled"]
    assert not [h for h in find_symptoms(MODELLED_OLLAMA_FALLBACK.splitlines()) if h.symptom.check == KERNEL]


def test_nccl_duplicate_gpu_is_a_gpu_assignment_issue() -> None:
    # Corpus 901 (a Triton TensorRT-LLM pod): two ranks of one communicator on CUDA device e3000.
    result = capture_checks("901", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "Duplicate GPU detected" in result.evidence[0]
    # The container toolkit's advice is not this failure's: the line's own words give the fix.
    assert "nvidia-ctk" not in result.message and "own GPU" in result.message
    # So does its fix: the container toolkit's steps are not this failure's.
    assert result.fix is not None and "own GPU" in result.fix.runtime and "nvidia-ctk" not in result.fix.runtime


def test_nccl_ranks_on_distinct_gpus_prove_nothing() -> None:
    # Modelled: NCCL's init lines of two ranks on two GPUs.
    lines = ["host:11:11 [0] NCCL INFO cudaDev 0 nvmlDev 0 busId 1b000 commId 0x1 - Init START",
             "host:12:12 [1] NCCL INFO cudaDev 1 nvmlDev 1 busId 3d000 commId 0x1 - Init START"]
    assert not find_symptoms(lines)


def test_ucc_shm_attach_failure_is_ipc_isolation() -> None:
    # Corpus 902: three container ranks of one server under mpirun; UCC's TL_SHM cannot attach the root's segment.
    result = capture_checks("902", IPC)[IPC]
    assert result.status == "issue", result.message
    assert "Child failed to attach to shmseg" in result.evidence[0]


def test_ucc_shm_attach_permission_is_not_a_namespace() -> None:
    # Modelled: the same line with EACCES, a permission on a segment this namespace holds.
    line = ("[1723337199.099229] [ai-worker03:1382 :0]     tl_shm_team.c:617  TL_SHM ERROR Child failed to attach "
            "to shmseg, errno: Permission denied")
    assert not find_symptoms([line])


def test_nvml_error_unknown_in_a_gpu_pod_wins_over_its_request() -> None:
    # Corpus 940: the pod requests nvidia.com/gpu: 1, and nvidia-smi in it prints `ERROR_UNKNOWN`.
    result = capture_checks("940", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "ERROR_UNKNOWN" in result.message


def test_nvml_other_errors_are_not_the_unknown_error() -> None:
    # Modelled: NVML's missing library is the `nvml-library-not-loaded` row, not this one.
    hits = find_symptoms(["Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND"])
    assert [h.symptom.name for h in hits] == ["nvml-library-not-loaded"]


# vllm-project/vllm#4940 (corpus 1088): torch's cudaGetDeviceCount error 804 in the vLLM image.
ERROR_804 = ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
             "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted "
             "on non supported HW\n")
# vllm-project/vllm#33447 (corpus 1087): error 803 from the v0.15.0 image's engine core.
ERROR_803 = ("(EngineCore_DP0 pid=406) ERROR 01-30 13:26:29 [core.py:946] RuntimeError: Unexpected error from "
             "cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have "
             "already set an error? Error 803: system has unsupported display driver / cuda driver combination\n")


def test_error_804_is_a_runtime_newer_than_the_driver(tmp_path: Path) -> None:
    for result in (capture_checks("1088", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"],
                   paste_checks(tmp_path, ERROR_804, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]):
        assert result.status == "issue", result.message
        assert "804" in result.message and "forward-compatibility" in result.message


def test_error_803_in_a_container_is_the_images_libcuda(tmp_path: Path) -> None:
    result = capture_checks("1087", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "issue", result.message
    assert "803" in result.message and "shadows" in result.message
    # Modelled counter-case: the same line on a host with no container shown is another fault (a driver updated
    # without a reboot): no container finding.
    assert {hit.symptom.within for hit in find_symptoms([ERROR_803])} == {"in-container", "no-container-shown"}
    bare = paste_checks(tmp_path, ERROR_803, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert bare.status != "issue", bare.message


def test_error_803_with_no_container_shown_is_the_driver_stack(tmp_path: Path) -> None:
    # InvokeAI from a venv on NixOS (2666), ollama's pinned buffers on a rented host dated before CUDA 13 (2718, whose
    # date alone said ok): the libcuda loaded is not the kernel module's version.
    for prefix in ("2666", "2718"):
        result = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
        assert result.status == "issue", (prefix, result.message)
        assert "803" in result.message and "kernel module" in result.message
    bare = paste_checks(tmp_path, ERROR_803, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert bare.status == "issue", bare.message
    # In a container it is the image's libcuda (CTR-GPU-ACCESS's), not the driver's: the real paste (1087) and the
    # modelled line beside the `docker run` that started it.
    assert capture_checks("1087", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status != "issue"
    run = "$ docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.15.0 --model Qwen/Qwen3-0.6B\n"
    boxed = paste_checks(tmp_path, run + ERROR_803, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert boxed.status != "issue", boxed.message
    # NGC's entrypoint probing its forward-compatibility libraries with 803 before minor-version compatibility (1502)
    # is no program's failure.
    ngc = capture_checks("1502", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert "kernel module" not in ngc.message, ngc.message


# Modelled counter-examples: the same engines' lines on a GPU they run (no refusal), and xformers' per-operator list
# and bitsandbytes' slow-matmul warning, which the table leaves out (facts/symptoms.py).
MODELLED_NO_REFUSAL = """\
INFO 12-26 16:20:28 selector.py:135] Using Flash Attention backend.
2024/01/14 19:50:06 gpu.go:94: Nvidia GPU detected
2024/01/14 19:50:06 gpu.go:119: CUDA Compute Capability detected: 8.6
    requires device with capability > (9, 0) but your GPU has capability (8, 9) (too old)
UserWarning: WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul is supported for your GPU!
"""


def test_an_engine_refusing_an_old_architecture_is_a_kernel_arch_issue() -> None:
    # Corpus 2552 (torch inductor's Triton on P100s), 2554 (ollama 0.1.20 on a GTX 970), 2557 (TGI's flash-attention
    # on a T4): each engine's own words that the GPU is below its floor.
    for prefix, words in (("2552", "too old to be supported by the triton GPU compiler"),
                          ("2554", "CUDA GPU is too old"),
                          ("2557", "FlashAttention only supports Ampere GPUs or newer")):
        result = capture_checks(prefix, KERNEL)[KERNEL]
        assert result.status == "issue", (prefix, result.message)
        assert words in result.evidence[0], prefix


def test_other_engines_words_for_the_refusal() -> None:
    # Modelled from the public threads each row cites: xformers#685, bitsandbytes#118, GLM-4#510.
    lines = ["RuntimeError: Your device is too old. We require compute capability >= 50",
             "ERROR: Your GPU does not support Int8 Matmul!",
             "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
             "V100-PCIE-32GB GPU has compute capability 7.0."]
    assert [h.symptom.name for h in find_symptoms(lines)] == [
        "xformers-device-too-old", "bnb-int8-unsupported", "bf16-capability-refused"]
    assert all(h.symptom.check == KERNEL for h in find_symptoms(lines))


def test_no_refusal_proves_no_kernel_arch_issue() -> None:
    assert not [h for h in find_symptoms(MODELLED_NO_REFUSAL.splitlines()) if h.symptom.check == KERNEL]


def test_amd_gpus_without_kernels_are_a_kernel_arch_issue() -> None:
    # Corpus 2691 (ollama 0.1.32's bundled ROCm without gfx1103) and 2693 (vLLM's Triton flash-attention kernel whose
    # stack frame exceeds gfx906's limit): the engine's own kernels do not build or run for the GPU's target.
    for prefix, words in (("2691", "gfx1103 is not supported by"), ("2693", "stack frame size (164332) exceeds limit")):
        result = capture_checks(prefix, KERNEL)[KERNEL]
        assert result.status == "issue", (prefix, result.message)
        assert words in result.evidence[0], prefix


def test_amd_kernel_refusals_in_other_words() -> None:
    # Modelled: ollama naming a second GPU of another target, and a Triton kernel of another name over the limit.
    lines = ['time=2024-05-02T12:17:03.657Z level=WARN source=amd_linux.go:116 msg="amdgpu [1] gfx1036 is not '
             'supported by /tmp/ollama1/rocm [gfx1030 gfx1100]"',
             "error: matmul_kernel.py:88:0: stack frame size (140000) exceeds limit (131056) in function 'matmul'"]
    assert [h.symptom.name for h in find_symptoms(lines)] == [
        "ollama-amdgpu-unsupported", "kernel-stack-frame-exceeds-limit"]


def test_a_supported_amd_gpu_and_a_warning_are_no_refusal() -> None:
    # Counter-examples (modelled): ollama taking the GPU, and LLVM's stack-size remark that is no error.
    lines = ['time=2024-05-02T12:17:03.657Z level=INFO source=amd_linux.go:116 msg="amdgpu [0] gfx1100 is supported"',
             "remark: kernel.py:10:0: stack frame size (4096) is within limit (131056)",
             "warning: stack frame size (140000) exceeds limit (131056) in function 'f'"]
    assert not [h for h in find_symptoms(lines) if h.symptom.check == KERNEL]
