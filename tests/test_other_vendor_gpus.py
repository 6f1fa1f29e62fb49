"""Another vendor's GPUs at work in an engine's lines (facts/gpus.other_gpu_line, parse_other_vendor_gpus): ollama's
ROCm discovery, llama.cpp's HIP device list, ggml's Metal backend and a macOS launcher name GPUs that are not NVIDIA's,
so the NVIDIA checks do not apply (facts/applicability.shown_absent over GpuInventory.others), unless the same lines
show an NVIDIA GPU too. ggml's Metal buffer line past the working set is the engine's own memory (MEM-GPU-SHARED), and
its Metal backend drives one device (IC-TOPOLOGY-PLACEMENT). ollama's `amdgpu is not supported` line is an
RT-KERNEL-ARCH issue.

The fixtures below are verbatim lines of the public threads named beside them; the modelled ones say so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import (
    parse_ggml_cuda_gpus,
    parse_metal_working_set,
    parse_ollama_rocm_memory,
    parse_other_vendor_gpus,
)

NVIDIA_CHECKS = ("DRV-CUDA-COMPAT", "CTR-GPU-ACCESS")

# https://github.com/ollama/ollama/issues/3158 (two RX 7900 XTX under ollama's ROCm runner, llama.cpp's HIP build)
HIP_DEVICES_3158 = """\
ggml_init_cublas: GGML_CUDA_FORCE_MMQ:   no
ggml_init_cublas: CUDA_USE_TENSOR_CORES: yes
ggml_init_cublas: found 2 ROCm devices:
  Device 0: Radeon RX 7900 XTX, compute capability 11.0, VMM: no
  Device 1: Radeon RX 7900 XTX, compute capability 11.0, VMM: no
"""

# https://github.com/ollama/ollama/issues/738 (an early ROCm build of ollama finding an AMD GPU)
OLLAMA_ROCM_738 = """\
time=2024-02-17T10:55:35.350+07:00 level=INFO source=gpu.go:265 msg="Searching for GPU management library libnvidia-ml.so"
time=2024-02-17T10:55:35.354+07:00 level=INFO source=gpu.go:311 msg="Discovered GPU libraries: []"
time=2024-02-17T10:55:35.354+07:00 level=INFO source=gpu.go:265 msg="Searching for GPU management library librocm_smi64.so"
time=2024-02-17T10:55:35.355+07:00 level=INFO source=gpu.go:311 msg="Discovered GPU libraries: [/opt/rocm/lib/librocm_smi64.so.1.0]"
time=2024-02-17T10:55:35.359+07:00 level=INFO source=gpu.go:109 msg="Radeon GPU detected"
time=2024-02-17T10:55:35.359+07:00 level=INFO source=cpu_common.go:11 msg="CPU has AVX2"
time=2024-02-17T10:55:35.360+07:00 level=INFO source=gpu.go:199 msg="ROCm integrated GPU detected - ROCR_VISIBLE_DEVICES=0"
"""

# https://github.com/ollama/ollama/issues/11557 (an RX 7700S laptop: ollama 0.9.6's amdgpu discovery, its iGPU skipped)
OLLAMA_AMDGPU_11557 = """\
июл 28 13:04:33 TUF ollama[134183]: time=2025-07-28T13:04:33.290+03:00 level=INFO source=gpu.go:217 msg="looking for compatible GPUs"
июл 28 13:04:33 TUF ollama[134183]: time=2025-07-28T13:04:33.313+03:00 level=INFO source=amd_linux.go:389 msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION=11.0.2
июл 28 13:04:33 TUF ollama[134183]: time=2025-07-28T13:04:33.314+03:00 level=INFO source=amd_linux.go:296 msg="unsupported Radeon iGPU detected skipping" id=1 total="512.0 MiB"
"""

# https://github.com/ggml-org/llama.cpp/issues/10003 (an Intel Mac's two AMD GPUs under ggml's Metal backend)
METAL_DEVICES_10003 = """\
ggml_metal_init: allocating
ggml_metal_init: found device: AMD Radeon VII
ggml_metal_init: found device: AMD Radeon Pro 570
ggml_metal_init: picking default device: AMD Radeon VII
ggml_metal_init: using embedded metal library
ggml_metal_init: GPU name:   AMD Radeon VII
ggml_metal_init: GPU family: MTLGPUFamilyCommon3 (3003)
ggml_metal_init: GPU family: MTLGPUFamilyMetal3  (5001)
ggml_metal_init: simdgroup reduction support   = true
ggml_metal_init: simdgroup matrix mul. support = false
ggml_metal_init: hasUnifiedMemory              = false
"""

# https://github.com/ggml-org/llama.cpp/issues/3213 (Falcon 180B on an M2 Ultra, a locale with decimal commas)
METAL_OVER_3213 = """\
ggml_metal_init: hasUnifiedMemory              = true
ggml_metal_init: recommendedMaxWorkingSetSize  = 73728,00 MB
ggml_metal_init: maxTransferRate               = built-in GPU
llama_new_context_with_model: compute buffer total size =  498,47 MB
llama_new_context_with_model: max tensor size =   978,30 MB
ggml_metal_add_buffer: allocated 'data            ' buffer, size = 55296,00 MB, offs =            0
ggml_metal_add_buffer: allocated 'data            ' buffer, size = 55296,00 MB, offs =  56956223488
ggml_metal_add_buffer: allocated 'data            ' buffer, size =  9431,59 MB, offs = 113912446976, (120024,09 / 73728,00), warning: current allocated size is greater than the recommended max working set size
ggml_metal_add_buffer: allocated 'eval            ' buffer, size =     1,48 MB, (120025,58 / 73728,00), warning: current allocated size is greater than the recommended max working set size
"""

# https://github.com/likelovewant/ollama-for-amd/issues/40 (ollama 0.5.4 on Windows: a gfx1150 iGPU its libraries lack)
OLLAMA_UNSUPPORTED_40 = """\
time=2025-01-23T16:46:46.551+01:00 level=INFO source=routes.go:1339 msg="Dynamic LLM libraries" runners="[rocm_avx cpu cpu_avx cpu_avx2]"
time=2025-01-23T16:42:09.019+01:00 level=WARN source=amd_windows.go:140 msg="amdgpu is not supported (supported types:[gfx1103])" gpu_type=gfx1150 gpu=0 library=C:\\llm\\windows-amd64\\lib\\ollama
time=2025-01-23T16:42:09.022+01:00 level=INFO source=gpu.go:392 msg="no compatible GPUs were discovered"
"""


def _statuses(results: dict[str, Any]) -> dict[str, str]:
    return {k: r.status for k, r in results.items()}


# --- the corpus ------------------------------------------------------------------------------------------------------


def test_ollama_old_rocm_discovery_1543() -> None:
    """Real (corpus 1543, ollama/ollama#2869): the ROCm probe's lines name two AMD GPUs; the integrated one is full
    but ollama keeps the discrete GPU only, which holds 16 MB."""
    results = capture_checks("1543", *NVIDIA_CHECKS, "MEM-GPU-SHARED")
    assert _statuses(results) == {"DRV-CUDA-COMPAT": "not-applicable", "CTR-GPU-ACCESS": "not-applicable",
                                  "MEM-GPU-SHARED": "not-an-issue"}
    assert "Navi 22" in results["DRV-CUDA-COMPAT"].message
    assert "ROCR_VISIBLE_DEVICES=0" in results["MEM-GPU-SHARED"].message


def test_ollama_filtered_rocm_device_1545() -> None:
    """Real (corpus 1545, ollama/ollama#13920): the bootstrap drops the ROCm device at 0000:03:00.0; its memory is not
    read, so MEM-GPU-SHARED stays open."""
    results = capture_checks("1545", *NVIDIA_CHECKS, "MEM-GPU-SHARED")
    assert _statuses(results) == {"DRV-CUDA-COMPAT": "not-applicable", "CTR-GPU-ACCESS": "not-applicable",
                                  "MEM-GPU-SHARED": "unknown"}
    assert "0000:03:00.0" in results["DRV-CUDA-COMPAT"].message


def test_ollama_metal_log_reads_1546() -> None:
    """Real (corpus 1546, ollama/ollama#434): three lines of ggml's Metal backend, once refused as nothing
    recognisable, now read: the engine's own buffers pass the working set, on one Metal device."""
    results = capture_checks("1546", *NVIDIA_CHECKS, "MEM-GPU-SHARED", "IC-TOPOLOGY-PLACEMENT")
    assert _statuses(results) == {"DRV-CUDA-COMPAT": "not-applicable", "CTR-GPU-ACCESS": "not-applicable",
                                  "MEM-GPU-SHARED": "not-an-issue", "IC-TOPOLOGY-PLACEMENT": "not-applicable"}
    assert "23984.9 MB" in results["MEM-GPU-SHARED"].message
    assert "one Metal device" in results["IC-TOPOLOGY-PLACEMENT"].message


def test_macos_launcher_1548() -> None:
    """Real (corpus 1548, oobabooga/textgen#3349): `bash start_macos.sh` starts the server on a Mac."""
    results = capture_checks("1548", *NVIDIA_CHECKS)
    assert _statuses(results) == dict.fromkeys(NVIDIA_CHECKS, "not-applicable")
    assert "start_macos.sh" in results["DRV-CUDA-COMPAT"].message


# --- public threads --------------------------------------------------------------------------------------------------


def test_hip_device_list_is_amd_not_nvidia(tmp_path: Path) -> None:
    """Real (ollama/ollama#3158): llama.cpp's HIP build prints `compute capability 11.0` for gfx1100; the list is of
    AMD GPUs, never counted as NVIDIA ones."""
    inventory = parse_ggml_cuda_gpus(HIP_DEVICES_3158)
    assert not inventory.gpus and not inventory.counts
    assert inventory.others == ("Radeon RX 7900 XTX (llama.cpp's HIP build)",)
    assert _statuses(paste_checks(tmp_path, HIP_DEVICES_3158, *NVIDIA_CHECKS)) == dict.fromkeys(NVIDIA_CHECKS,
                                                                                                 "not-applicable")


def test_hip_build_with_gfx_device_line() -> None:
    """Modelled on llama.cpp's HIP device line since 2024 (`Device 0: <name>, gfx1100 (0x1100), VMM: no, Wave Size:
    32`): AMD GPUs by the `found N ROCm devices` line."""
    text = ("ggml_cuda_init: found 1 ROCm devices:\n"
            "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n")
    assert parse_ggml_cuda_gpus(text).others == ("AMD Radeon RX 7900 XTX (llama.cpp's HIP build)",)


@pytest.mark.parametrize(("text", "named"), [
    (OLLAMA_ROCM_738, "Radeon GPU detected"),
    (OLLAMA_AMDGPU_11557, "unsupported Radeon iGPU detected"),
])
def test_ollama_rocm_discovery_lines(tmp_path: Path, text: str, named: str) -> None:
    """Real (ollama/ollama#738, #11557): ollama's ROCm discovery in its early and its later releases. #738 searched
    for libnvidia-ml.so and found none: a library name, not an NVIDIA GPU."""
    inventory = parse_other_vendor_gpus(text)
    assert any(named in o for o in inventory.others), inventory.others
    assert _statuses(paste_checks(tmp_path, text, *NVIDIA_CHECKS)) == dict.fromkeys(NVIDIA_CHECKS, "not-applicable")


def test_metal_devices_of_an_intel_mac(tmp_path: Path) -> None:
    """Real (ggml-org/llama.cpp#10003): Metal names both AMD GPUs of the Mac and picks the default one: not NVIDIA's,
    and the engine runs on one of them."""
    inventory = parse_other_vendor_gpus(METAL_DEVICES_10003)
    assert inventory.others == ("AMD Radeon VII (ggml's Metal backend)", "AMD Radeon Pro 570 (ggml's Metal backend)")
    assert inventory.one_device
    results = paste_checks(tmp_path, METAL_DEVICES_10003, *NVIDIA_CHECKS, "IC-TOPOLOGY-PLACEMENT")
    assert _statuses(results) == {**dict.fromkeys(NVIDIA_CHECKS, "not-applicable"),
                                  "IC-TOPOLOGY-PLACEMENT": "not-applicable"}


def test_metal_working_set_with_decimal_commas(tmp_path: Path) -> None:
    """Real (ggml-org/llama.cpp#3213): 120025.58 MB of the engine's own against 73728 MB: the shortage is its own."""
    metal = parse_metal_working_set(METAL_OVER_3213)
    assert (metal.own_mib, metal.limit_mib, metal.failed) == (120025.58, 73728.0, "")
    results = paste_checks(tmp_path, METAL_OVER_3213, "MEM-GPU-SHARED")
    assert results["MEM-GPU-SHARED"].status == "not-an-issue", results["MEM-GPU-SHARED"].message


def test_unsupported_gfx_target_is_a_kernel_arch_issue(tmp_path: Path) -> None:
    """Real (likelovewant/ollama-for-amd#40): ollama leaves out a gfx1150 GPU its ROCm libraries carry no kernels for."""
    results = paste_checks(tmp_path, OLLAMA_UNSUPPORTED_40, "RT-KERNEL-ARCH", *NVIDIA_CHECKS)
    assert _statuses(results) == {"RT-KERNEL-ARCH": "issue", **dict.fromkeys(NVIDIA_CHECKS, "not-applicable")}
    assert "gfx1150" in results["RT-KERNEL-ARCH"].message


# --- counter-examples ------------------------------------------------------------------------------------------------


def test_an_nvidia_gpu_beside_the_amd_one_keeps_the_checks_open(tmp_path: Path) -> None:
    """Modelled on ollama's own test log `frank` (server/routes_test: an AMD gfx1030 and an NVIDIA RTX 2080 Ti on one
    host): a mixed host is no other-vendor host."""
    text = ('time=2025-07-01T19:36:13.315Z level=INFO source=amd_linux.go:386 msg="amdgpu is supported" '
            'gpu=GPU-9abb57639fa80c50 gpu_type=gfx1030\n'
            'time=2025-07-01T19:36:13.315Z level=INFO source=types.go:130 msg="inference compute" '
            'id=GPU-d6de3398-9932-6902-11ec-fee8e424c8a2 library=cuda variant=v12 compute=7.5 driver=12.8 '
            'name="NVIDIA GeForce RTX 2080 Ti" total="10.6 GiB" available="10.4 GiB"\n')
    results = paste_checks(tmp_path, text, *NVIDIA_CHECKS)
    assert "not-applicable" not in _statuses(results).values(), results


def test_hip_buffers_and_hipmalloc_1569() -> None:
    """Real (corpus 1569, ollama/ollama#3765): the HIP build's buffers on ROCm0 and its hipMalloc call under a CUDA
    error name an AMD GPU; CUDA's words in ggml's own error do not make it NVIDIA's."""
    results = capture_checks("1569", *NVIDIA_CHECKS)
    assert _statuses(results) == dict.fromkeys(NVIDIA_CHECKS, "not-applicable")
    assert "ROCm0 KV buffer" in results["DRV-CUDA-COMPAT"].message


def test_a_cuda_buffer_line_stays_nvidia() -> None:
    """Modelled: the CUDA build's buffer line names CUDA0, an NVIDIA device, not ROCm0."""
    with pytest.raises(ParseError):
        parse_other_vendor_gpus("llama_kv_cache_init:      CUDA0 KV buffer size =   488.00 MiB\n")
    assert parse_other_vendor_gpus("load_tensors:        ROCm0 model buffer size =   311.97 MiB\n").others


def test_a_cuda_build_device_list_stays_nvidia() -> None:
    """Modelled: llama.cpp's CUDA build lists NVIDIA GPUs, counted as such."""
    inventory = parse_ggml_cuda_gpus("ggml_cuda_init: found 1 CUDA devices:\n"
                                     "  Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes\n")
    assert not inventory.others and inventory.models == {0: "NVIDIA GeForce RTX 3090 Ti"}


def test_rocm_memory_without_a_pick_keeps_every_gpu() -> None:
    """Modelled: without ollama's pick line no GPU is read as left out."""
    memory = parse_ollama_rocm_memory("[0] ROCm device name: Navi 21\n[0] ROCm totalMem 17163091968\n"
                                      "[0] ROCm usedMem 1048576000\n")
    assert [(g.gpu, g.left_out) for g in memory.gpus] == [("GPU 0 (Navi 21)", "")]


def test_torch_mps_device(tmp_path: Path) -> None:
    """Modelled on torch's repr of a tensor on Apple's MPS backend."""
    results = paste_checks(tmp_path, ">>> torch.ones(1, device='mps')\ntensor([1.], device='mps:0')\n", *NVIDIA_CHECKS)
    assert _statuses(results) == dict.fromkeys(NVIDIA_CHECKS, "not-applicable"), results


def test_macos_collect_env(tmp_path: Path) -> None:
    """Modelled on torch's collect_env on a Mac (`OS: macOS 14.5 (arm64)`, `Is CUDA available: False`)."""
    text = ("PyTorch version: 2.3.0\nIs debug build: False\nCUDA used to build PyTorch: None\n"
            "ROCM used to build PyTorch: N/A\n\nOS: macOS 14.5 (arm64)\nGCC version: Could not collect\n"
            "Python version: 3.11.9 (main, Apr  2 2024, 08:25:04) [Clang 15.0.0 (clang-1500.3.9.4)] (64-bit runtime)\n"
            "Is CUDA available: False\nCUDA runtime version: No CUDA\nGPU models and configuration: No CUDA\n")
    results = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")
    assert results["DRV-CUDA-COMPAT"].status == "not-applicable", results["DRV-CUDA-COMPAT"].message
    assert "macOS 14.5" in results["DRV-CUDA-COMPAT"].message


# --- Kubernetes' AMD GPU resource and DRA device class ----------------------------------------------------------------

def test_a_dra_claim_for_amd_gpus(tmp_path: Path) -> None:
    """Real: corpus 1878 (vllm-project/vllm#52656), a ResourceClaim for 8 devices of class gpu.amd.com."""
    results = capture_checks("1878", "DRV-FABRIC-MANAGER")
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable", results["DRV-FABRIC-MANAGER"].message
    assert "gpu.amd.com" in results["DRV-FABRIC-MANAGER"].message


# Modelled on vllm-project/vllm#11465's AMD deployment (its diff: `amd.com/gpu: "1"` in limits and requests).
AMD_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mistral-7b
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: mistral-7b
        image: rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4
        command: ["/bin/sh", "-c"]
        args: ["vllm serve mistralai/Mistral-7B-Instruct-v0.3 --trust-remote-code"]
        resources:
          limits:
            cpu: "10"
            memory: 20G
            amd.com/gpu: "1"
          requests:
            cpu: "6"
            memory: 6G
            amd.com/gpu: "1"
"""


def test_a_spec_asking_for_amd_gpus(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, AMD_DEPLOYMENT, "DRV-FABRIC-MANAGER", "DRV-CUDA-COMPAT")
    assert _statuses(results) == dict.fromkeys(results, "not-applicable"), results
    assert 'amd.com/gpu: "1"' in results["DRV-CUDA-COMPAT"].message


def test_a_node_counting_amd_gpus(tmp_path: Path) -> None:
    """Modelled on `kubectl describe node` of a node that AMD's device plugin serves."""
    text = ("Name:               mi300x-node-1\nRoles:              <none>\nCapacity:\n  amd.com/gpu:        8\n"
            "  cpu:                192\n  memory:             2113451236Ki\nAllocatable:\n  amd.com/gpu:        8\n"
            "  cpu:                192\n")
    result = paste_checks(tmp_path, text, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert result.status == "not-applicable", result.message


def test_a_spec_asking_for_both_vendors_stays_open(tmp_path: Path) -> None:
    """Modelled: a second container of the same spec asks for an NVIDIA GPU: not an AMD-only host."""
    text = AMD_DEPLOYMENT + "      - name: other\n        image: vllm/vllm-openai:v0.6.4\n        resources:\n" \
                            "          limits:\n            nvidia.com/gpu: 1\n"
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status != "not-applicable", result.message


# --- vLLM's and torch's ROCm builds (facts/gpus.ROCM_BUILD_LINE) ------------------------------------------------------


def test_vllm_rocm_backend_is_no_cuda_run_2693() -> None:
    """Real (corpus 2693, vllm-project/vllm#9319): vLLM's ROCm flash-attention backend and torch's hipBLASLt fallback
    show an AMD GPU, so vLLM's weight line is HIP's, not CUDA's: no NVIDIA check applies."""
    results = capture_checks("2693", "DRV-CUDA-COMPAT", "DRV-NVLINK-HEALTH")
    assert _statuses(results) == dict.fromkeys(("DRV-CUDA-COMPAT", "DRV-NVLINK-HEALTH"), "not-applicable")
    assert "ROCmFlashAttention" in results["DRV-CUDA-COMPAT"].message


@pytest.mark.parametrize("line", [
    "INFO 10-15 08:52:52 selector.py:120] Using ROCmFlashAttention backend.",
    "/x/linear.py:135: UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas "
    "backend to hipblas (Triggered internally at ../aten/src/ATen/Context.cpp:296.)",
])
def test_rocm_build_lines_name_amd_gpus(line: str) -> None:
    assert parse_other_vendor_gpus(line + "\n").others


def test_vllm_cuda_backend_with_weights_stays_nvidia(tmp_path: Path) -> None:
    """Counter-example (modelled): vLLM's CUDA flash-attention backend and its weight line are a CUDA run."""
    text = ("INFO 10-15 08:52:52 selector.py:120] Using Flash Attention backend.\n"
            "INFO 10-15 08:53:00 model_runner.py:1071] Loading model weights took 14.9595 GB\n")
    with pytest.raises(ParseError):
        parse_other_vendor_gpus(text)
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"
