"""Issue 28, applicability from what the paste shows: a check declares its subject (`check(..., applies_to=...)`), and
where its facts leave it unknown the engine makes it not-applicable when the source shows that subject absent
(facts/applicability.py): every GPU shown is another vendor's with no NVIDIA GPU or driver shown, or every NVIDIA GPU
counted is named by a model that lacks the feature (NVLink, NVSwitch, MIG). Never from what an excerpt leaves out."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.registry import CHECKS, load_all
from stackaudit.facts.applicability import CPU_SUBJECTS, ENGINE_SUBJECTS, SUBJECTS, shown_absent
from stackaudit.facts.gpus import GpuInventory, GpuRecord, amdgpu_devices
from stackaudit.gputable import has_mig, other_vendor

# Real: https://github.com/vllm-project/vllm/issues/14062 (issue body by edesalve, 2025-02-28), the head of
# `python collect_env.py` on an AMD MI300X (ROCm build of torch), verbatim.
ROCM_MI300X = """\
INFO 02-28 18:09:39 __init__.py:179] Automatically detected platform rocm.
WARNING 02-28 18:09:39 rocm.py:34] `fork` method is not supported by ROCm. VLLM_WORKER_MULTIPROC_METHOD is overridden to `spawn` instead.
Collecting environment information...
PyTorch version: 2.7.0a0+git3a58512
Is debug build: False
CUDA used to build PyTorch: N/A
ROCM used to build PyTorch: 6.3.42133-1b9c17779

OS: Ubuntu 22.04.5 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: 18.0.0git (https://github.com/RadeonOpenCompute/llvm-project roc-6.3.1 24491 1e0fda770a2079fbd71e4b70974d74f62fd3af10)
CMake version: version 3.31.4
Libc version: glibc-2.35

Python version: 3.12.8 (main, Dec  4 2024, 08:54:12) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.14.0-503.22.1.el9_5.x86_64-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: Could not collect
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: AMD Instinct MI300X (gfx942:sramecc+:xnack-)
Nvidia driver version: Could not collect
cuDNN version: Could not collect
HIP runtime version: 6.3.42133
MIOpen runtime version: 3.3.0
Is XNNPACK available: True
"""

# Real: https://github.com/vllm-project/vllm/issues/9319 (comment by Said-Akbar, 2024-10-15), the head of
# `python collect_env.py` on AMD MI60s (gfx906) with an NVIDIA driver installed beside them, verbatim.
ROCM_MI60_WITH_NVIDIA_DRIVER = """\
python collect_env.py
Collecting environment information...
PyTorch version: 2.6.0.dev20241011+rocm6.2
Is debug build: False
CUDA used to build PyTorch: N/A
ROCM used to build PyTorch: 6.2.41133-dd7f95766

OS: Ubuntu 22.04.5 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: Could not collect
CMake version: version 3.30.4
Libc version: glibc-2.35

Python version: 3.10.12 (main, Sep 11 2024, 15:47:36) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-6.8.0-45-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 11.5.119
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: AMD Radeon Graphics (gfx906:sramecc+:xnack-)
Nvidia driver version: 550.90.07
cuDNN version: Could not collect
HIP runtime version: 6.2.41133
MIOpen runtime version: 3.2.0
Is XNNPACK available: True
"""

# Real: https://github.com/kyuz0/amd-strix-halo-vllm-toolboxes/issues/73 (issue body by wszgrcy, 2026-07-02), the
# compose file of a vLLM service handed /dev/kfd and /dev/dri (gfx1151), verbatim but for one trailing space.
COMPOSE_KFD = """\
services:
  vllm:
    image: docker.io/kyuz0/vllm-therock-gfx1151:latest
    command:
      - vllm
      - serve
      - "Qwen/Qwen3.6-35B-A3B"
      - "--trust-remote-code"
      - "--tensor-parallel-size"
      - "1"
      - "--max-num-batched-tokens"
      - "8192"
      - "--gpu-memory-utilization"
      - "0.95"
      - "--max-model-len"
      - "auto"
      - "--enable-auto-tool-choice"
      - "--tool-call-parser"
      - "qwen3_xml"
      - "--reasoning-parser"
      - "qwen3"
      - "--mm-encoder-tp-mode"
      - "data"
      - "--speculative-config"
      - '{"method":"mtp","num_speculative_tokens":3,"moe_backend":"triton"}'
      - "--api-key"
      - "cyia"
    devices:
      - "/dev/kfd"
      - "/dev/dri"
    security_opt:
      - "seccomp=unconfined"
    group_add:
      - video
      - render
    ipc: "host"
    ports:
      - "9230:8000"
    volumes:
      - "../models:/root/.cache/huggingface"
    environment:
      VLLM_ROCM_USE_AITER: 1
"""

# Modelled: a collect_env GPU list naming an A10 and an A100 (a host of two models, one with MIG).
MIXED_A10_A100 = """\
Collecting environment information...
PyTorch version: 2.4.0+cu121
CUDA used to build PyTorch: 12.1
Is CUDA available: True
GPU models and configuration:
GPU 0: NVIDIA A10
GPU 1: NVIDIA A100-SXM4-80GB

Nvidia driver version: 550.54.15
"""


def test_every_subject_a_check_declares_is_in_the_table() -> None:
    declared = {spec.applies_to for spec in load_all().values() if spec.applies_to}
    assert declared <= set(SUBJECTS) | set(CPU_SUBJECTS) | set(ENGINE_SUBJECTS)
    assert CHECKS["KERN-AMD-PSTATE"].applies_to == "amd-cpu"
    assert CHECKS["RT-TORCH-ARCH"].applies_to == "torch-engine"
    assert CHECKS["DRV-XID"].applies_to == "nvidia-gpu"
    assert CHECKS["MEM-MIG"].applies_to == "mig"


# --- another vendor's GPUs, no NVIDIA GPU or driver shown -------------------------------------------------------

@pytest.mark.parametrize(("capture", "shown"), [
    # Real: https://github.com/ROCm/rccl/issues/1129, rccl-tests' header names two AMD Instinct MI100.
    ("82", "AMD Instinct MI100"),
    # Real: https://github.com/nlzy/vllm-gfx906/issues/47, an LXC config handing /dev/kfd and /dev/dri, no NVIDIA node.
    ("179", "/dev/kfd"),
])
def test_xid_is_not_applicable_where_every_gpu_shown_is_amd(capture: str, shown: str) -> None:
    result = capture_checks(capture, "DRV-XID")["DRV-XID"]
    assert result.status == "not-applicable"
    assert "another vendor's" in result.message and shown in result.message


@pytest.mark.parametrize("capture", ["970", "974"])
def test_rccl_log_shows_amd_gpus(capture: str) -> None:
    # Real: ROCm/rccl#1454 (970: `RCCL version 2.20.5+hip6.2`, `NCCL INFO ROCr version 1.1`) and ROCm/vllm#390
    # (974: `NCCL INFO RCCL version : 2.22.3-HEAD`): RCCL's log is NCCL's format on AMD GPUs.
    result = capture_checks(capture, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "not-applicable" and "RCCL" in result.message, result.message


def test_an_nccl_log_naming_nccl_only_stays_nvidia(tmp_path: Path) -> None:
    # Modelled: NCCL's own banner and INFO lines name no ROCm runtime.
    log = ("host:1:1 [0] NCCL INFO cudaDriverVersion 12080\nNCCL version 2.25.1+cuda12.8\n"
           "host:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n")
    result = paste_checks(tmp_path, log, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status != "not-applicable", result.message


def test_a_rocm_collect_env_makes_the_nvidia_checks_not_applicable(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, ROCM_MI300X, "DRV-XID", "DRV-CUDA-COMPAT", "MEM-MIG", "DRV-NVLINK-HEALTH")
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, "not-applicable")
    assert "AMD Instinct MI300X" in results["DRV-CUDA-COMPAT"].message
    assert "so no NVLink" in results["DRV-NVLINK-HEALTH"].message


def test_a_compose_service_handed_kfd_shows_an_amd_gpu(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, COMPOSE_KFD, "DRV-XID", "DRV-PERSISTENCE")
    assert {r.status for r in results.values()} == {"not-applicable"}
    assert "/dev/kfd handed to vllm" in results["DRV-XID"].message


def test_an_nvidia_driver_beside_amd_gpus_keeps_the_checks_open(tmp_path: Path) -> None:
    """Counter-example (real): the ROCm report states an NVIDIA driver, so the host may hold an NVIDIA GPU."""
    results = paste_checks(tmp_path, ROCM_MI60_WITH_NVIDIA_DRIVER, "DRV-XID", "DRV-CUDA-COMPAT", "MEM-MIG")
    assert {r.status for r in results.values()} == {"unknown"}


@pytest.mark.parametrize(("capture", "checks"), [
    # Real: ROCm/legacy-rocm-build#4021, an MI300X host's amdgpu lines (queue preemption fails, an ATHUB RAS error).
    ("1223", ("DRV-XID", "DRV-NVLINK-HEALTH", "DRV-FABRIC-MANAGER")),
    # Real: ROCm/ROCR-Runtime#180, a Ryzen 5700G APU's amdgpu lines (ring sdma0 timeout, MODE2 reset).
    ("1245", ("DRV-XID", "DRV-NVLINK-HEALTH")),
])
def test_a_kernel_log_of_amdgpu_lines_shows_amd_gpus(capture: str, checks: tuple[str, ...]) -> None:
    results = capture_checks(capture, *checks)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(checks, "not-applicable")
    assert all("the kernel log's amdgpu lines" in r.message for r in results.values())


# Modelled on corpus 1245's lines: amdgpu's dev_printk lines (with their BDF) and its DRM lines.
AMDGPU_LOG = """\
[  308.334535] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=1255, emitted seq=1257
[  308.335146] amdgpu 0000:30:00.0: amdgpu: GPU reset begin!
[  308.545396] amdgpu 0000:30:00.0: amdgpu: MODE2 reset
"""


def test_amdgpu_devices_names_the_gpus_amdgpu_drives() -> None:
    assert amdgpu_devices(AMDGPU_LOG.splitlines()) == ("an AMD GPU at 0000:30:00.0 (the kernel log's amdgpu lines)",)
    # A DRM line alone names the module, not the GPU's address.
    only_drm = amdgpu_devices(AMDGPU_LOG.splitlines()[:1])
    assert len(only_drm) == 1 and "ring sdma0 timeout" in only_drm[0]
    # ollama's probe of the module (corpus 1093, on an NVIDIA host) is no amdgpu line.
    assert amdgpu_devices(['level=DEBUG source=amd_linux.go:421 msg="amdgpu driver not detected /sys/module/amdgpu"']) == ()


def test_nvidia_lines_beside_amdgpu_keep_the_checks_open(tmp_path: Path) -> None:
    """Counter-example (modelled): a Ryzen APU's integrated GPU beside a GeForce card, both in the kernel log; the
    NVIDIA GPU's checks stay open though no Xid or driver version is shown."""
    log = AMDGPU_LOG + "[    5.120331] nvidia 0000:01:00.0: vgaarb: changed VGA decodes: olddecodes=io+mem\n"
    results = paste_checks(tmp_path, log, "DRV-XID", "DRV-NVLINK-HEALTH")
    assert "not-applicable" not in {r.status for r in results.values()}, results


def test_amd_names_are_never_counted_as_nvidia_gpus() -> None:
    assert other_vendor("AMD Instinct MI100") and other_vendor("AMD Radeon Graphics (gfx906:sramecc+:xnack-)")
    assert not other_vendor("NVIDIA A10") and not other_vendor("Tesla T4")


# --- every NVIDIA GPU counted is a model without the feature ----------------------------------------------------

@pytest.mark.parametrize(("capture", "model"), [
    # Real: https://github.com/vllm-project/vllm/pull/7943 (capture 294), collect_env listing four NVIDIA A10.
    ("294", "NVIDIA A10"),
    # Real: https://github.com/sgl-project/sglang/issues/2805 (capture 47), SGLang check_env of one NVIDIA A40.
    ("47", "NVIDIA A40"),
    # Real: https://github.com/NVIDIA/nccl/issues/1298 (capture 215), 8 x A10G in the user's words and a whole topo -m
    # of 8 GPUs. (Capture 277's nvidia-smi is cut after GPU 1: the GPUs it leaves out may have MIG, so the subject
    # stays open; MEM-MIG itself judges the GPUs shown, tests/test_judged_from_what_is_shown_r.py.)
    ("215", "A10G"),
])
def test_mig_is_not_applicable_on_models_without_it(capture: str, model: str) -> None:
    result = capture_checks(capture, "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-applicable"
    assert model in result.message


def test_a_model_with_mig_among_those_shown_keeps_it_open(tmp_path: Path) -> None:
    """Counter-example (modelled): one A100 beside an A10 leaves MIG open."""
    assert paste_checks(tmp_path, MIXED_A10_A100, "MEM-MIG")["MEM-MIG"].status == "unknown"


def test_a_gpu_without_its_model_leaves_the_subject_open() -> None:
    """Counter-example (modelled): a listing that counts two GPUs and names one judges nothing absent host-wide; MIG
    and NVLink, subjects judged over the GPUs shown (Subject.over_shown), judge the named one, their coverage naming
    the other (h68l: NVLink is each GPU's own, as MIG)."""
    named = GpuRecord(0, "", "NVIDIA A10", None, ("x",))
    blind = GpuRecord(None, "0000:41:00.0", "", None, ("y",))
    assert shown_absent("nvlink", GpuInventory(gpus=(named,), counts=(("x", 1),)), False)
    assert shown_absent("nvlink", GpuInventory(gpus=(named, blind), counts=(("x", 2),)), False)
    assert shown_absent("mig", GpuInventory(gpus=(named, blind), counts=(("x", 2),)), False)
    assert not shown_absent("nvidia-gpu", GpuInventory(others=("AMD Instinct MI100 (x)",)), True)


def test_the_table_says_which_models_have_mig() -> None:
    assert has_mig("NVIDIA A10") is False and has_mig("NVIDIA L40S") is False and has_mig("Tesla T4") is False
    assert has_mig("NVIDIA A100-SXM4-80GB") is True and has_mig("H100") is True
    assert has_mig("NVIDIA RTX A5000") is False  # no row: an Ampere name outside the guide's GA100 parts (MIG_PARTS)
    assert has_mig("NVIDIA A30") is None  # no row, and a MIG part of the guide


LINK = "PCIE-LINK-DOWNTRAIN"
# Real: kreier/llama.cpp-jetson's README (a Jetson Nano's llama-bench, build b5043), its device list verbatim.
TEGRA_X1 = ("m@n:~/./build/bin/llama-bench -m ../.cache/llama.cpp/TheBloke_TinyLlama-1.1B-Chat-v1.0.Q2_K.gguf "
            "--n-gpu-layers 99\nggml_cuda_init: found 1 CUDA devices:\n"
            "  Device 0: NVIDIA Tegra X1, compute capability 5.3, VMM: no\n")
# Real: a Jetson AGX Orin's `llama-server --version` in a public setup guide, verbatim.
ORIN = ("ggml_cuda_init: found 1 CUDA devices (Total VRAM: 62827 MiB):\n"
        "  Device 0: Orin, compute capability 8.7, VMM: yes, VRAM: 62827 MiB\nversion: 7770\n"
        "built with GNU 11.4.0 for Linux aarch64\n")


def test_a_jetson_gpu_has_no_pcie_link(tmp_path: Path) -> None:
    """Real: corpus 2158 (ggml-org/llama.cpp#4560, a TX2; both readers not-applicable), a Nano and an AGX Orin.
    Modelled counter-examples: a discrete card in the same list, and a HIP (AMD) list, stay open."""
    r = capture_checks("2158", LINK)[LINK]
    assert r.status == "not-applicable" and "Tegra X2" in r.message, r.message
    for text in (TEGRA_X1, ORIN):
        assert paste_checks(tmp_path, text, LINK)[LINK].status == "not-applicable", text
    discrete = TEGRA_X1.replace("NVIDIA Tegra X1, compute capability 5.3", "NVIDIA GeForce RTX 3060, compute capability 8.6")
    assert paste_checks(tmp_path, discrete, LINK)[LINK].status == "unknown"
    hip = ("ggml_cuda_init: found 1 ROCm devices:\n"
           "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n")
    assert paste_checks(tmp_path, hip, LINK)[LINK].status == "unknown"


# Real: ajeetraina/jetson-orin-nano-super-guide's README (a Jetson Orin Nano Super on JetPack 6.2), its `nvidia-smi`
# verbatim: the integrated GPU's row prints `N/A` for its persistence mode and its Bus-Id.
ORIN_NANO_SMI = """\
Tue Mar  4 09:42:45 2025
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 540.4.0                Driver Version: 540.4.0      CUDA Version: 12.6     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  Orin (nvgpu)                  N/A  | N/A              N/A |                  N/A |
| N/A   N/A  N/A               N/A /  N/A | Not Supported        |     N/A          N/A |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|  No running processes found                                                           |
+---------------------------------------------------------------------------------------+
"""
JETSON_CHECKS = ("MEM-MIG", "DRV-FABRIC-MANAGER", LINK)


def test_a_jetsons_nvidia_smi_row_shows_its_integrated_gpu(tmp_path: Path) -> None:
    """Jetson's nvidia-smi (JetPack 6) names its integrated GPU `Orin (nvgpu)` with persistence and Bus-Id `N/A`:
    the row is read (facts/nvidia_smi.NO_BUS_PERSISTENCE), and the name says no MIG, no NVSwitch and no PCIe link
    (gputable.jetson_gpu). Real: corpus 2224 (ollama/ollama#9503, both readers not-applicable on the three) and the
    README above."""
    for result in capture_checks("2224", *JETSON_CHECKS).values():
        assert result.status == "not-applicable" and "Orin (nvgpu)" in result.message, result.message
    for check, result in paste_checks(tmp_path, ORIN_NANO_SMI, *JETSON_CHECKS).items():
        assert result.status == "not-applicable" and "Orin (nvgpu)" in result.message, (check, result.message)


def test_an_na_cell_elsewhere_is_no_integrated_gpus_row(tmp_path: Path) -> None:
    """Modelled counter-examples: a process row whose memory reads `N/A` (a Windows desktop's C+G process) is no GPU
    row, and a discrete card's row with its Bus-Id is judged from its own name and cells, not as a Jetson's."""
    from stackaudit.facts.nvidia_smi import parse_table
    from stackaudit.importers.nvidia_smi import _ANY_GPU_ROW

    process = "|    0   N/A  N/A      1234    C+G   ...ram Files\\App\\app.exe      N/A      |"
    assert _ANY_GPU_ROW.match(process) is None
    assert _ANY_GPU_ROW.match(ORIN_NANO_SMI.splitlines()[8]) is not None
    rows = ORIN_NANO_SMI.replace("|  No running processes found" + " " * 59 + "|", process)
    assert [g.index for g in parse_table(rows).gpus] == [0]
    discrete = ORIN_NANO_SMI.replace("|   0  Orin (nvgpu)                  N/A  | N/A              N/A |",
                                     "|   0  NVIDIA GeForce RTX 3060       Off  | 00000000:01:00.0 Off |")
    results = paste_checks(tmp_path, discrete, *JETSON_CHECKS)
    assert results[LINK].status == "unknown", results[LINK].message
    assert all("Orin" not in r.message and "Jetson" not in r.message for r in results.values())


def test_a_gpu_count_in_the_users_words_counts_the_amd_gpus_shown_2696() -> None:
    """Real (corpus 2696, ROCm/ROCm-docker#116): `a 4x GPU System` above rocm-smi's four MI100 rows: the count is of
    the AMD GPUs shown, so no NVIDIA GPU and no CUDA driver to judge."""
    results = capture_checks("2696", "DRV-CUDA-COMPAT", "DRV-NVLINK-HEALTH")
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, "not-applicable")
    assert "AMD Instinct MI100" in results["DRV-CUDA-COMPAT"].message


def test_a_users_count_without_another_vendors_gpu_leaves_the_subject_open() -> None:
    """Counter-example (modelled): the user's count alone, or beside an NVIDIA GPU record, says nothing of a vendor."""
    counted = (("the user's own words", 4),)
    assert shown_absent("nvidia-gpu", GpuInventory(counts=counted), False) == ""
    assert shown_absent("nvidia-gpu", GpuInventory(counts=counted, others=("AMD Instinct MI100 (rocminfo)",)),
                        True) == ""
    assert shown_absent("nvidia-gpu", GpuInventory(counts=counted, others=("AMD Instinct MI100 (rocminfo)",)),
                        False).startswith("no NVIDIA GPU")
