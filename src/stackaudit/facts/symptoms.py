"""Log symptoms: lines that prove a check's failure on their own, whatever else the source shows.

A check waits for its precondition facts (is this a container? which GPU model?), but some log
lines are the failure itself: NCCL could not create its shared-memory segment, CUDA refused the
peer access a run asked for, the driver logged an NVLink Xid. Such a line concludes `issue` for the check it names, quoted, even when those
facts are missing; the facts only sharpen the message and the fix.
One place applies the table: the engine, after each check (engine/evaluate.proven_by_symptoms); a check
declares only what its facts add (checks/registry.Sharpen).

`SYMPTOMS` is the table: each row a pattern, the check it proves, the severity, the document
that says what the line means, and what it proves in words. A pattern names only a failure, never
a state that may be healthy (Ray's "/dev/shm has only N bytes available" is a size, judged by
CTR-SHM-SIZE from its value; NCCL's "Permission denied" on /dev/shm is not a size).

Sources, joined (`union`): the kernel log, a pasted engine / NCCL log, a pasted Ray log, a pasted `dcgmi diag` table, and lines of evidence
pasted on their own (prose quoting the error, `importers/evidence.py`). A symptom found proves
the failure; no symptom found proves nothing (a log excerpt may leave it out).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from stackaudit.facts._parse import LINE_LOOK_CHARS
from stackaudit.facts.docker import NGC_CHECK
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, parser, provider, union
from stackaudit.facts.sources import (
    DCGMI_DIAG,
    ENGINE_LOG,
    EVIDENCE_LINES,
    NCCL_TESTS,
    NVIDIA_DAEMON_LOG,
    P2P_BANDWIDTH_TEST,
    RAY_LOG,
)
from stackaudit.facts.system import PEER_MEMORY_REFUSED, KernelLog
from stackaudit.pci_address import BDF

NCCL_SHM_DOC = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#shared-memory"
XID_CATALOGUE = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"
PYTORCH_SHM = "https://github.com/pytorch/pytorch/blob/main/torch/utils/data/_utils/signal_handling.py"
# Ray's object store compares the memory asked of it with what /dev/shm has free (fstatvfs; less a tenth for
# fragmentation from Ray 1.x) and logs the request and the amount: fatal in the plasma store of old, a warning that
# shrinks the store to fit since (store_runner.cc). Ray's Python launcher refuses a store larger than /dev/shm in the
# first place ("The configured object store size (X GB) exceeds /dev/shm size (Y GB)", services.py; ray-project/ray#16308).
RAY_STORE_RUNNER = "https://github.com/ray-project/ray/blob/master/src/ray/object_manager/plasma/store_runner.cc"
CUDA_ERRORS = "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"
# MPS's guide: a client in a container reaches the daemon through its pipe directory and the host's IPC namespace.
MPS_GUIDE = "https://docs.nvidia.com/deploy/mps/index.html"
NCCL_P2P_TRANSPORT = "https://github.com/NVIDIA/nccl/blob/master/src/transport/p2p.cc"
# NCCL's P2P transport failing to open the peer's IPC handle (nccl-p2p-ipc-open): the whole warning with any error but
# 217's words, or the line cut inside it at its end (`transport/p2p.cc:238 NCCL WARN failed to ope`); or a CUDA call of
# that transport failing at its own source line (CUDACHECK's `transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid
# argument'`, corpus 2618), but for 217's words, a lack of memory and a call made in the wrong state (401, an NVLS or
# graph-capture misuse, test_log_symptoms), which are other checks' failures.
NCCL_P2P_IPC_OPEN = re.compile(r"\bWARN failed to open CUDA IPC handle\b(?!.{0,400}peer access is not supported)"
                               r"|transport/p2p\.c[cu]:\d+ (?:NCCL )?WARN failed to op(?:en?)?\s*$"
                               r"|transport/p2p\.c[cu]:\d+ (?:NCCL )?WARN Cuda failure (?:\d+ )?'"
                               r"(?!out of memory|peer access is not supported|the operation cannot be performed)")
# A CUDA P2P sample's abort on a peer mapping (p2p-test-map-failed): `Cuda failure p2pBandwidthLatencyTest.cu:189:
# 'mapping of buffer object failed'`, or checkCudaErrors' `simpleP2P.cu:NNN code=205(cudaErrorMapBufferObjectFailed)`.
P2P_TEST_MAP_FAILED = re.compile(r"\b\w{0,40}?[Pp]2[Pp]\w{0,40}\.cu:\d+\b[^\n]{0,200}?"
                                 r"(?:mapping of buffer object failed|cudaErrorMapBufferObjectFailed)")
# An NGC entrypoint's minor-version WARNING (`CUDA Minor Version Compatibility mode ENABLED.`, `... will be run in Minor
# Version Compatibility mode.`): the image runs without the forward-compatibility libraries (not its forward NOTE).
NGC_MINOR_FALLBACK = re.compile(r"\bMinor Version Compatibility mode ENABLED|" + NGC_CHECK["minor-built"][1].pattern)
# WSL limits pinned system memory; vLLM turns pinning off there.
# CUDA's start errors as the runtime words them: the driver older than the runtime (35), an image's libcuda against
# the host's driver (803), forward compatibility on a GPU without it (804), a fabric not set up (802), no device (100).
CUDA_START_ERRORS = (r"(?:CUDA driver version is insufficient|system has unsupported display driver|forward "
                     r"compatibility was attempted|system not yet initialized|no CUDA-capable device)")
# A pinned (page-locked) host allocation refused with one of them (pinned-alloc-cuda-unstarted).
PINNED_CUDA_UNSTARTED = re.compile(r"(?:pinned system memory|of pinned memory|pinned host memory)\b[^:]{0,80}: "
                                   + CUDA_START_ERRORS)
WSL_USER_GUIDE = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
WSL_DXGKRNL_SOURCE = "https://github.com/microsoft/WSL2-Linux-Kernel/blob/linux-msft-wsl-6.6.y/drivers/hv/dxgkrnl/ioctl.c"
WSL_PINNED_DOC = ("https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
                  "#known-limitations-for-linux-cuda-applications")
DCGM_DIAG_DOC = "https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html"
UCX_MEMLOCK_SRC = "https://github.com/openucx/ucx/blob/master/src/uct/ib/base/ib_md.c"
CTK_DOCKER = ("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"
              "#configuring-docker")
CTK_TROUBLESHOOTING = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/troubleshooting.html"
# CDI: a GPU named `nvidia.com/gpu=all` is resolved from a spec `nvidia-ctk cdi generate` writes (/etc/cdi, /var/run/cdi).
CTK_CDI = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html"
K8S_DEVICE_PLUGIN_PREREQUISITES = "https://github.com/NVIDIA/k8s-device-plugin#prerequisites"
# GPU feature discovery's MIG strategies: `single` labels `<model>-MIG-INVALID` with a count of 0 where it finds no MIG
# device, or MIG layouts that differ.
GFD_MIG_STRATEGY = "https://github.com/NVIDIA/k8s-device-plugin/blob/main/internal/lm/mig-strategy.go"
GPU_OPERATOR_MIG = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html"
# MIG mode alone runs no CUDA work: GPU instances and compute instances must be created first ("Enable MIG Mode").
MIG_GETTING_STARTED = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/getting-started-with-mig.html"
AMD_IOMMU_SOURCE = "https://github.com/torvalds/linux/blob/master/drivers/iommu/amd/iommu.c"
# ROCm's install FAQ, Issue #5 (application hangs on multi-GPU systems): RCCL's `Missing "iommu=pt"` warning, cured by
# `iommu=pt` on the kernel command line.
ROCM_MULTI_GPU_FAQ = ("https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/install-faq.html"
                      "#issue-5-application-hangs-on-multi-gpu-systems")
# The open kernel modules' README: which GPUs they drive (Turing and later; GeForce and workstation GPUs from R560 on,
# before it only with NVreg_OpenRmEnableUnsupportedGpus=1).
KERNEL_OPEN_README = "https://download.nvidia.com/XFree86/Linux-x86_64/560.35.03/README/kernel_open.html"
# nvidia-installer (kernel.c) after it built the module: the kernel would not load it.
NVIDIA_INSTALLER_SOURCE = "https://github.com/NVIDIA/nvidia-installer/blob/main/kernel.c"
# The GPU operator's driver container on a node whose running kernel's packages its repositories no longer hold.
GPU_OPERATOR_OLD_KERNELS = ("https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"
                            "install-gpu-operator-outdated-kernels.html")
# Where the open driver prints its GSP boot failures (RmInitAdapter in osinit.c, _kgspBootGspRm in kernel_gsp.c).
GSP_BOOT_SOURCE = "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/src/nvidia/arch/nvalloc/unix/src/osinit.c"
# The driver's status codes and their words (`NV_ERR_RESET_REQUIRED` "Reset required", `NV_ERR_GPU_IS_LOST`).
# The driver README's GSP chapter: GSP is on by default; NVreg_EnableGpuFirmware=0 turns it off on the proprietary
# module, where the GPU allows it (the open module and Blackwell need GSP). A GSP firmware failure's known workaround,
# with a driver update (pop-os/system76-driver#343 turned GSP off for a GSP crash after suspend).
GSP_README = "https://download.nvidia.com/XFree86/Linux-x86_64/560.35.03/README/gsp.html"
GSP_CHECK = "DRV-GSP-FIRMWARE"
# Where the driver prints its GSP RPC history (kgspLogRpcDebugInfo) and the timeout and health-check paths that call it.
GSP_RPC_SOURCE = "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c"
# PyTorch's check of each GPU's compute capability against the build's arch list (_check_capability).
TORCH_CAPABILITY_SOURCE = "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py"
# CUDA's error for a kernel launched on a GPU that the binary holds no code for (cudaErrorNoKernelImageForDevice,
# CUDA_ERROR_NO_BINARY_FOR_GPU): PyTorch prints it as `RuntimeError: CUDA error: no kernel image is available for
# execution on the device`, whichever library's kernel it was (torch, the engine's own ops, a kernel library).
NO_KERNEL_IMAGE = re.compile(r"no kernel image is available for execution on the device|CUDA_ERROR_NO_BINARY_FOR_GPU|"
                             r"cudaErrorNoKernelImageForDevice")
# DeepGEMM refuses a GPU whose architecture none of its kernels dispatch for (DG_HOST_UNREACHABLE in csrc/apis/*.hpp:
# SM90 and SM100 only): `RuntimeError: Assertion error (/deepgemm/csrc/apis/attention.hpp:219): Unsupported
# architecture`, with the source path the build had (sglang#26087, vllm#41027, sglang#25877). Its Python dispatch of
# 2025 (deep_gemm/dispatch.py, must_be_k_major) looks the GPU's arch-specific target up in a table of `90a` and `100a`
# only and fails with `KeyError: '120a'` on an RTX 5090 (sgl-project/sglang#7227, corpus 2444): a key that is an
# arch-specific target (90a, 100a, 120a, 100f) and nothing else says the same.
DEEPGEMM_ARCH_SOURCE = "https://github.com/deepseek-ai/DeepGEMM/blob/main/csrc/apis/attention.hpp"
KERNEL_ARCH_REFUSED = re.compile(r"Assertion error \([^)]*\.(?:hpp|cuh?):\d+\): Unsupported architecture|"
                                 r"\bKeyError: '(?:sm_?)?(?:90|10[0-3]|11[0-9]|12[0-9])[af]'\s*$")
# TurboMind (lmdeploy) picks its attention kernels by the GPU's architecture (sm70, sm75, sm80 and newer) and the model's
# head size, data type, KV type and query-group size (kernels/attention/decoding.cu dispatchDecoding; one generated
# file per combination, codegen/decoding_sm70_128_f16_f16.cu), and stops where the build holds none for this GPU:
# `[TM][FATAL] kernels/attention/decoding.cu(34): Check failed: kernel No decoding kernel found: decode_d256_f16_gs4`
# (lmdeploy#4408: Qwen3.5's head size 256 on V100, corpus 1019).
# A quantised format's kernel refused for the GPU's compute capability, each in its checker's own words:
# - Triton's FP8 e4m3 type (`fp8e4nv`) on a GPU below compute capability 8.9: `type fp8e4nv not supported in this
#   architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')`, raised from the engine's Triton FP8 kernels
#   (sgl-project/sglang#5871 on A10, corpus 2789; vllm-project/vllm#17581, #15336 on A800);
# - TensorRT's builder for an FP8 network on a GPU without FP8 tensor cores: `Error Code 9: Internal Error (Networks
#   with FP8 precision require hardware with FP8 support.)` (NVIDIA/TensorRT-LLM#1428 on A100, corpus 2791), `Networks
#   with FP8 Q/DQ layers require hardware with FP8 support` (NVIDIA/Model-Optimizer#70 on RTX A6000);
# - TensorRT-LLM's attention plugin asserting FP8 context FMHA before Hopper in its release: `Assertion failed: FP8
#   FMHA cannot be enabled on Pre-Hopper Arch.` (NVIDIA/TensorRT-LLM#1864 on L40, #1914 on L20, corpus 2792, whose
#   copy spells it `Fp8 FMHA ... pre-Hopper Arcdh`);
# - vLLM's check of a quantisation method's floor (`The quantization method awq is not supported for the current GPU.
#   Minimum capability: 75. Current capability: 70.`, vllm-project/vllm#1488, #4202, #14154 for bitsandbytes on a
#   GTX TITAN X), and its compressed-tensors scheme's (`('Quantization scheme is not supported for ', 'the current
#   GPU. Min capability: 80. ', 'Current capability: 75.')`, vllm-project/vllm#14040).
QUANT_ARCH_SOURCE = "https://github.com/NVIDIA/TensorRT-LLM/issues/1428"
QUANT_ARCH_REFUSED = re.compile(r"\btype fp8e4nv not supported in this architecture\b|"
                                r"\bNetworks with FP8 (?:precision|Q/DQ layers) require hardware with FP8 support\b|"
                                r"(?i:\bFP8 FMHA cannot be enabled on pre-Hopper\b)|"
                                r"\bThe quantization method \w+ is not supported for the current GPU\. Minimum "
                                r"capability: \d+\. Current capability: \d+|"
                                r"\bQuantization scheme is not supported for (?:', ')?the current GPU\. Min capability: "
                                r"\d+\.")
TURBOMIND_KERNELS_SOURCE = "https://github.com/InternLM/lmdeploy/blob/main/src/turbomind/kernels/attention/decoding.cu"
TURBOMIND_NO_KERNEL = re.compile(r"\bNo (?:decoding|attention) kernel found: \w+")
# TurboMind's own CUDA check reporting CUDA's no-kernel-image error (NO_KERNEL_IMAGE) under its log prefix: `[TM][ERROR]
# CUDA runtime error: no kernel image is available for execution on the device .../turbomind/kernels/
# sampling_topp_kernels.cu:1219` (lmdeploy#1781, corpus 2083), `[TM][FATAL][...][cast.cu:264] CUDA error: no kernel
# image is available ...` (lmdeploy#4962). The kernel is TurboMind's, built for the architectures of lmdeploy's wheel.
TURBOMIND_NO_KERNEL_IMAGE = re.compile(r"\[TM\]\[(?:ERROR|FATAL)\].{0,80}?(?:" + NO_KERNEL_IMAGE.pattern + ")")
# ggml's CUDA backend's stub for a kernel without code for the GPU's arch (NO_DEVICE_CODE, ggml-cuda/common.cuh), printed
# from the GPU by the kernel that then traps: `mmq.cuh:2422: ERROR: CUDA kernel mul_mat_q has no device code compatible
# with CUDA arch 700. ggml-cuda.cu was compiled for: __CUDA_ARCH_LIST__`.
GGML_NO_DEVICE_CODE_SOURCE = "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cuda/common.cuh"
GGML_NO_DEVICE_CODE = re.compile(r"ERROR: CUDA kernel (\w+) has no device code compatible with CUDA arch (\d+)")
# ggml-cuda/common.cuh, ggml_cuda_highest_compiled_arch: `ggml was not compiled with any CUDA arch <= 610`; the ggml
# of 2023 (ggml-cuda.cu's bad_arch): `ERROR: ggml-cuda was compiled without support for the current GPU architecture.`
GGML_NOT_COMPILED_FOR = re.compile(r"\bggml was not compiled with any CUDA arch <= \d+|"
                                   r"\bggml-cuda was compiled without support for the current GPU architecture")
# ggml's CUDA_CHECK failure block (ggml-cuda.cu's ggml_cuda_error and ggml_cuda_compute_forward).
GGML_CUDA_SOURCE = "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cuda/ggml-cuda.cu"
GGML_CUDA_FAILED = re.compile(r"\bggml_cuda_compute_forward: \w+ failed\b|"
                              r"\bcurrent device: \d+, in function ggml_(?:cuda|backend_cuda)_\w+ at ")
# CUDA's errors for a kernel image the device cannot load (cudaErrorInvalidKernelImage 200, CUDA_ERROR_INVALID_IMAGE;
# cudaErrorInvalidDeviceFunction 98), as CUDA's error strings and ggml's CUDA_CHECK write them.
KERNEL_IMAGE_REFUSED = re.compile(r"\bdevice kernel image is invalid\b|cudaErrorInvalidKernelImage|"
                                  r"CUDA_ERROR_INVALID_IMAGE\b|\bCUDA error: invalid device function\b|"
                                  r"cudaErrorInvalidDeviceFunction")
# ollama's device discovery leaves out a CUDA device whose compute capability is not among the archs its CUDA library
# was built for (package discover, parseLlamaServerDevices: `skipping CUDA device — compute capability not in compiled architectures`
# device=... cc=860 archs="[750 890 1000 1200]"). Where another of its CUDA libraries has the arch, it loads that one
# and offloads layers to the GPU (the line is then no failure).
OLLAMA_DISCOVERY_SOURCE = "https://github.com/ollama/ollama/tree/main/discover"
# ollama picks the LLM library its runner is built with from the GPUs its discovery found ("Ollama ... will pick the
# best one based on the capabilities of your system": `cpu`, `cpu_avx`, `cpu_avx2` where it found no GPU it can use).
OLLAMA_LLM_LIBRARIES = "https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md#llm-libraries"
# TensorRT-LLM's custom all-reduce opens peer access between the GPUs of the tensor-parallel group as it sets its
# workspace up, and stops where CUDA refuses it (0.8 to 0.11; AUTO with an NCCL fallback came later). The C++ runtime
# enables it in setPeerAccess (`TLLM_CUDA_CHECK(error)` after cudaDeviceEnablePeerAccess, hence `CUDA runtime error in
# error: peer access is not supported between these two devices`, NVIDIA/TensorRT-LLM#1625, corpus 1737) or maps the
# other ranks' buffers in IpcMemory::allocateIpcMemory (`CUDA runtime error in cudaIpcOpenMemHandle(...,
# cudaIpcMemLazyEnablePeerAccess): peer access is not supported ...`, NVIDIA/TensorRT-LLM#1498 under Triton's
# backend); the Python runtime's set_peer_access raises `RuntimeError: Can't enable access between nodes 0 and 1`
# where cudaDeviceCanAccessPeer answers 0 (NVIDIA/TensorRT-LLM#1374, #2066). Each runs only for a tensor-parallel
# group of several ranks with the custom all-reduce on, so the line is that all-reduce failing.
TRTLLM_IPC_SOURCE = "https://github.com/NVIDIA/TensorRT-LLM/blob/v0.9.0/cpp/tensorrt_llm/runtime/ipcUtils.cpp"
TRTLLM_IPC_PY_SOURCE = "https://github.com/NVIDIA/TensorRT-LLM/blob/v0.9.0/tensorrt_llm/_ipc_utils.py"
TRTLLM_PEER_REFUSED = re.compile(r"\[TensorRT-LLM\]\[ERROR\].*\bCUDA runtime error in (?:error|"
                                 r"cudaDeviceEnablePeerAccess|cudaIpcOpenMemHandle)\b.*"
                                 r"peer access is not supported between these two devices")
TRTLLM_PEER_PY_REFUSED = re.compile(r"\bCan't enable access between nodes \d+ and \d+")
# NCCL refuses two ranks of one communicator on one GPU (init.cc: `Duplicate GPU detected : rank 0 and rank 1 both on
# CUDA device e3000`, then `invalid usage`).
NCCL_INIT_SOURCE = "https://github.com/NVIDIA/nccl/blob/master/src/init.cc"
NCCL_DUPLICATE_GPU = re.compile(r"Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA device ([0-9a-fA-F]+)")
# NCCL's topology reader: getPciPath resolves a device's sysfs path, WARN "Could not find real path of" where it fails.
NCCL_XML_SOURCE = "https://github.com/NVIDIA/nccl/blob/master/src/graph/xml.cc"
NCCL_PCI_PATH_UNREAD = re.compile(r"NCCL WARN Could not find real path of /sys/class/pci_bus/")
# UCC's shared-memory team: the root creates a System V segment (shmget) and the other ranks attach it by its id
# (shmat); shmat answers EINVAL ("Invalid argument") for an id that does not exist in the caller's IPC namespace
# (shmat(2)), the case of ranks in containers with their own IPC namespaces on one host (openucx/ucc#1009).
UCC_TL_SHM_SOURCE = "https://github.com/openucx/ucc/blob/master/src/components/tl/shm/tl_shm_team.c"
SHMAT_MAN = "https://man7.org/linux/man-pages/man2/shmat.2.html"
# ggml_numa_init and ggml_is_numa (n_nodes > 1), where llama.cpp warns of automatic NUMA balancing.
GGML_NUMA_SOURCE = "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cpu/ggml-cpu.c"
NV_STATUS_CODES = "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/src/common/sdk/nvidia/inc/nvstatuscodes.h"
FM_GUIDE = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html"
# Fabric Manager's own words when it refuses its installation and exits at start, with or without a journal tag (the
# Talos extension prints them after the node's address): a configuration item it rejects (siderolabs/extensions#511,
# `fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid value`, DATABASE_PATH after an update), a
# topology file it cannot open (NVIDIA/nvrc#203, `failed to open fabric topology file`).
FM_FATAL = re.compile(r"\bfabric manager config file item: \S+ has an invalid value|"
                      r"\bfailed to open fabric topology file", re.IGNORECASE)
# NCCL's NVLS setup (nvlsAllocateMem), where CUDA refuses a broken NVSwitch multicast fabric (the NVLS row of SYMPTOMS).
NCCL_NVLS_SOURCE = "https://github.com/NVIDIA/nccl/blob/master/src/transport/nvls.cc"
NCCL_PATHS_SOURCE = "https://github.com/NVIDIA/nccl/blob/master/src/graph/paths.cc"
NCCL_NVLINK_P2P_DISABLED = re.compile(r"P2P is disabled between NVLINK connected GPUs \d+ and \d+")
NVLS_ILLEGAL_STATE = re.compile(r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory\b.*\bCUDA error 401\b|"
                                r"transport/nvls\.cc:\d+ NCCL WARN Cuda failure 401\b")
# NCCL's own cause of that refusal, the second line of its WARN (nvls.cc, from 2.27.3, on a failed multicast bind or
# map): `This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.` (the NVLS
# Fabric Manager row of SYMPTOMS; pytorch/pytorch#177472, corpus 2318).
NVLS_FABRIC_CAUSE = re.compile(r"\busually caused by a system or configuration error in the Fabric Manager or NVSwitches\b")
# A process row of top (PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND) of the NVIDIA runtime hook's
# `nvidia-container-cli ... configure` running (R) or blocked in the kernel (D) at 50 % of a CPU or more (the row of
# SYMPTOMS ctk-hook-stuck).
CTK_HOOK_STUCK = re.compile(r"^\s*\d+\s+\S+\s+(?:-?\d+|rt)\s+-?\d+\s+\S+\s+\S+\s+\S+\s+[RD]\s+"
                            r"(?:[5-9]\d|\d{3,})(?:[.,]\d+)?\s+\S+\s+\S+\s+\S*\bnvidia-container-cli\s.*\sconfigure\s")
# The container toolkit's hook refusing an image whose NVIDIA_REQUIRE_CUDA the host's driver does not meet
# (`requirement error: unsatisfied condition: cuda>=12.8`; 2017's libnvidia-container wrote `cuda >= 9.0`).
# NVIDIA_REQUIRE_CUDA ORs its space-separated alternatives: `cuda>=10.0 brand=tesla,driver>=384,driver<385` is the
# image's CUDA, or a Tesla on a listed driver branch (the data-centre forward-compatibility exception). The hook names
# the last condition it found false, so a refusal that names the exception's `brand = tesla` or a `driver` bound
# (NVIDIA/nvidia-docker#895, #921, #912; docker/for-linux#846 `driver >= 410`; lmb-freiburg/netdef-docker#6
# `driver < 385`) was reached only after the `cuda>=` alternative failed: the same refusal.
CTK_CUDA_REQUIREMENT = re.compile(r"\bunsatisfied condition: (?:cuda ?>= ?\d|brand ?= ?tesla\b|driver ?[<>]=? ?\d{3})")
# The same error in the user's words, reported as having happened (the row nvlink-uncorrectable-stated).
NVLINK_UNCORRECTABLE_STATED = re.compile(r"\b(?:[Ww]ith|by|hit|hits|got|saw|threw|throws|raised|reported|logged) "
                                         r"(?:an? (?:fatal )?)?[Uu]ncorrectable NVL(?:ink|INK) error\b(?! detected during)")
# nvidia-smi's line for a GPU it cannot open (facts/nvidia_smi.NO_HANDLE) with NVML's `Unknown Error` or `GPU is lost`,
# wherever the line stands (the row nvidia-smi-gpu-unopened-stated).
NVSMI_GPU_UNOPENED = re.compile(rf"Unable to (?:determine|detect) the device handle for (?i:gpu)\s*(?:\d{{1,3}}:\s+)?"
                                rf"{BDF}:\s*(?:Unknown Error|GPU is lost)\b")
# NVIDIA's memory-error guide (A100 and later: row remapping; earlier GPUs retire pages): correctable errors are
# corrected in place; an uncorrectable one is remapped or retired at the next reset.
MEM_ERRORS_DOC = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
# The user's words stating correctable ECC counts and no uncorrectable error and nothing pending, on one line (the row
# ecc-correctable-only-stated): a count of single-bit or correctable errors, `no double-bit` (or uncorrectable, DBE)
# and `no pending` page retirement or row remap.
ECC_CORRECTABLE_ONLY_STATED = re.compile(
    r"^(?=.*\b\d[\d,.]*\s*(?:[kKM]\s+)?(?:single[- ]bit|correctable|SBE)\b)"
    r"(?=.*\bno\s+(?:double[- ]bit|uncorrectable|DBE)\b)"
    r"(?=.*\bno\s+pending\s+(?:page\s+retirements?|row\s+remap\w*|remaps?|retirements?)\b)", re.IGNORECASE)
# The CUDA runtime's cudaErrorNvlinkUncorrectable (220), in cudaGetErrorString's words or by its enum's names.
CUDA_NVLINK_UNCORRECTABLE = re.compile(r"\buncorrectable NVLink error detected during the execution\b|"
                                       r"\bcudaErrorNvlinkUncorrectable\b|\bCUDA_ERROR_NVLINK_UNCORRECTABLE\b")
# The persistence daemon's documentation: it keeps the GPUs initialised while no client holds them.
PERSISTENCED_DOC = "https://docs.nvidia.com/deploy/driver-persistence/index.html"
# The NVLink Xids of the catalogue (74 NVLink error, 144-150 the NVLink5 / NVSwitch-fabric error families).
_NVLINK_XID = r"(?:74|14[4-9]|150)"
# An Xid's head, whatever the GPU's address looks like: `(PCI:0000:01:00)`, a MIG instance's
# `(PCI:0000:01:00 GPU-I:05)` (the driver's error-containment log), the old `(0000:03:00)`.
_XID_AT = r"NVRM: Xid \([^)]{1,48}\):\s*"
# The processes of a serving or training stack, as the kernel names them in an Xid line (`name=`, the task's
# command truncated to 15 characters): PyTorch's threads and the engines' own process titles name the stack.
# A game, a desktop program or an unnamed process (`name=<unknown>`) is not one of them.
STACK_PROCESSES = (r"pt_[a-z_]+\d*", r"VLLM::[^,\s]+", r"VllmWorker[^,\s]*", r"ray::[^,\s]+",
                   r"sglang::[^,\s]+", r"tritonserver", r"trtllm-[^,\s]+", r"llama-server", r"ollama[^,\s]*",
                   r"text-generation[^,\s]*", r"lmdeploy[^,\s]*")


def _app_xid(names: tuple[str, ...]) -> re.Pattern[str]:
    """Xid 13 (graphics engine exception), 31 (GPU memory page fault), 43 (GPU stopped processing) of a process
    named one of `names`: the catalogue's application faults, naming the process whose CUDA context the driver
    killed."""
    return re.compile(rf"{_XID_AT}(?:13|31|43),\s*pid=\d+,\s*name=(?:{'|'.join(names)})(?=,|\s|$)")


# An application Xid of the stack's own process proves no finding: alone it is the program's fault, as the blind
# readings of the class have it (corpus 695, 835, 490: not an issue; only 308 reads issue). DRV-XID reads it to send
# its advice to the engine first (checks/drv.py).
STACK_XID = _app_xid(STACK_PROCESSES)


# CUDA's two refusals of a program at its first call (the runtime's cudaGetErrorString texts, CUDA_ERRORS): no device
# at all (cudaErrorNoDevice, 100: no GPU handed to the process, the driver not loaded), and every device it may use busy
# or unavailable (cudaErrorDevicesUnavailable, 46: an exclusive or prohibited compute mode, MIG). Only the second is
# ever a compute mode's refusal. PyTorch says the first in its own words where CUDA counts no device
# (c10/cuda/CUDAFunctions.cpp: `RuntimeError: No CUDA GPUs are available`, corpus 2335).
CUDA_NO_DEVICE = re.compile(r"no CUDA-capable device is detected|cudaErrorNoDevice\b|CUDA_ERROR_NO_DEVICE\b|"
                            r"\bNo CUDA GPUs are available\b")
CUDA_DEVICES_BUSY = re.compile(r"all CUDA-capable devices are busy or unavailable|cudaErrorDevicesUnavailable")


@dataclass(frozen=True)
class Symptom:
    name: str
    pattern: re.Pattern[str]
    check: str  # the check ID the line proves an issue of ("": none, the row only rules checks out, `clears`)
    severity: Literal["high", "medium", "low"]
    source: str  # the document that says what the line means
    proves: str  # what the line proves, in words
    # A line of the same source that says the failure had another cause: the symptom then proves nothing.
    unless: re.Pattern[str] | None = None
    # The line says a GPU is faulted (degraded NVLink or memory): the finding ranks with lost GPUs.
    faults_gpu: bool = False
    # Checks the line rules out where their own facts leave them unknown: a CUDA call that failed so had reached
    # the GPU through the driver (the device nodes and libraries were there): not-an-issue, quoted.
    clears: tuple[str, ...] = ()
    # Why the line rules out the checks of `clears`, in words.
    cleared: str = ""
    # The setting under which alone the line rules out the checks of `clears` (IN_CONTAINER: a forward-compatibility
    # refusal, 804, is an image's compat library only where a container is shown; on a host whose setting the source
    # does not show, the check stays open, corpus 2463). The check's facts must show it (`Sharpen.shows`).
    clears_within: str = ""
    # The setting under which alone the line is this check's failure ("container": a CUDA or NVML call failing
    # with "unknown error" is a GPU the container was given and cannot open; on a bare host it is another fault,
    # a driver left broken after suspend, a GPU off the bus). The check's facts must show it (`Sharpen.shows`).
    within: str = ""
    # The line's own fix, in words, where the check's (its Sharpen's, its declared one) is not this line's: NCCL's
    # duplicate GPU is the ranks' GPU assignment, not a missing container toolkit. The line's `proves` says it too.
    own_fix: str = ""
    # What the own fix takes, in words, where "restart the engine" would say it wrong (a container that never started).
    own_takes: str = ""
    # The setting in which the line looks wrong and is not (the user says the IOMMU is off, and RCCL's `iommu=pt`
    # warning reads only the command line). Where the check's facts show it (`Sharpen.shows`), the line makes the
    # check not-an-issue, quoted with the Sharpen's text.
    looks_only: str = ""
    # Checks whose facts would name the line's cause, which the line alone does not: an unknown outcome of theirs
    # stays unknown and quotes the line (a CUDA `unknown error` mid-run is a GPU that stopped answering: an Xid, a
    # PCIe error, heat or power would say why, and the source may show none of them).
    suspects: tuple[str, ...] = ()
    # The check the line proves where the lines show it from ggml's CUDA backend (GGML_SYMPTOMS among the hits: its
    # CUDA_CHECK block, `ggml_cuda_compute_forward: SCALE failed`), in place of `check`: CUDA's `no kernel image` under
    # ggml is the engine's own kernels, not torch's.
    ggml_check: str = ""
    # Checks whose `ok` the line leaves unproven: the outcome turns unknown, quoting the line and `doubted` (CUDA
    # refusing an engine's kernels leaves open whether the driver runs the build it meets).
    doubts: tuple[str, ...] = ()
    doubted: str = ""
    doubt_hint: str = ""  # what to paste that would settle the doubted check
    # The outcomes of the doubted checks the line leaves unproven: `ok`, and for a verdict the facts infer without the
    # line's subject (a pre-Turing GPU's flavour, not applicable) that one too.
    doubted_statuses: tuple[str, ...] = ("ok",)
    # The line is the engine's refusal of the GPUs it runs on, which it does not name (a quantised format refused for
    # their architecture): the issue covers the GPUs the check's own facts judged, as `within` does.
    on_judged: bool = False


PEER_MEMORY_DOC = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-rdma.html"
# Why a CUDA call's own failure rules out CTR-GPU-ACCESS (`Symptom.cleared`).
# A `kubectl debug node/<node>` session: the commands after it run in a debug pod on the node (importers/evidence.py
# keeps the line, so that a symptom it vetoes sees it).
DEBUG_NODE_POD = re.compile(r"\bkubectl debug (?:-\S+ )*node/")
_CUDA_REACHED = "the CUDA call that failed so had reached the GPU through the driver"

# Why the NVIDIA hook's refusal of an image's CUDA requirement rules out CTR-GPU-ACCESS (`Symptom.cleared`; corpus 2367,
# both readers; 2246 and 2333, where the first reader reads the unstarted container as an issue and the second not).
_HOOK_REACHED = ("the NVIDIA runtime's prestart hook ran and read the host's driver to compare it with the image's "
                 "requirement, so the runtime is set up to hand the GPUs over; the one fix is the driver or the image")

# The kernel loader's refusal of the driver's own modules for their symbols (nvidia-ko-symbols; not nvidia_peermem's).
NVIDIA_KO_SYMBOLS = re.compile(r"\bnvidia(?:[_-](?:drm|modeset|uvm))?: (?:Unknown symbol \w{1,80} \(err -?\d{1,4}\)|"
                               r"disagrees about version of symbol \w{1,80})")
# Why the open module's refusal of a GPU rules out the other causes of its failed initialisation (`Symptom.cleared`):
# the driver refuses the GPU by its policy, and the RmInitAdapter failure that follows is that refusal (corpus 1907).
_OPEN_REFUSED = ("the open kernel module refused the GPU by its policy, so the failed initialisation that follows is "
                 "that refusal, not a GSP boot failure or a BAR without address space")

# A container that asks for GPUs (a pasted spec's request, the NVIDIA runtime's variables inside it).
IN_GPU_CONTAINER = "container"
# A container, asking for GPUs or not: the source shows the program ran in one (facts/container.py).
IN_CONTAINER = "in-container"
# No container shown: the program ran on the machine, or the source names no container it may have run in (no
# container fact that finds one, no container spec pasted).
NO_CONTAINER_SHOWN = "no-container-shown"
# The user's words say the IOMMU is off (facts/system.StatedIommu).
IOMMU_SAID_OFF = "iommu-said-off"
# The program runs under WSL 2 (facts/platform.Virtualization.wsl; checks/fw.py FW-VM).
IN_WSL = "wsl"
# Every GPU node shown offers all its GPUs and its pods request every one (facts/k8s_node.K8sNodes.taken).
K8S_GPUS_TAKEN = "k8s-gpus-taken"
# MIG mode is enabled on a GPU the source shows (checks/mem.py MEM-MIG).
MIG_ENABLED = "mig-enabled"
# A serving stack the source shows: an engine's process, log, command line or container, or a stack process's Xid.
IN_SERVING_STACK = "serving-stack"

# The errno at the end of NCCL's shared-memory failure (misc/shmutils.cc from 2.19: `..., error: No space left on device
# (28)`): ENOSPC is a full /dev/shm; ENOENT (the segment is missing) and EACCES (a permission) are not a size.
_SHM_MISSING = r"No such file or directory"
_SHM_NOT_SIZE = rf"(?:{_SHM_MISSING}|Permission denied)"

# ollama found the GPU and passed it over: too old for its CUDA runners (`CUDA GPU is too old. Compute Capability
# detected: 3.5`), or an AMD GPU it does not support. No failure to reach the GPU.
# ollama 0.1.2x passed every GPU over on a CPU without AVX (`CPU does not have AVX or AVX2, disabling GPU support.`,
# gpu/gpu.go).
_OLLAMA_GPU_UNSUPPORTED = re.compile(r"GPU is too old|[Uu]nsupported Radeon|amdgpu is not supported|"
                                     r"amdgpu too old|gpu not supported|disabling GPU support")
# ollama 0.1.18 to 0.1.28 (server/routes.go) after its probe found no GPU it can use: `routes.go:953: no GPU detected`
# in Go's log format (ollama/ollama#1979, corpus 1676's release), `msg="no GPU detected"` from 0.1.23.
_OLLAMA_NO_GPU_0_1 = r"(?:\broutes\.go:\d+: |msg=\"?)no GPU detected\b"


def _node_label(key: str, value: str) -> re.Pattern[str]:
    """A node label `nvidia.com/<key>` with a value matching `value`, as JSON (`"key": "value"`), YAML (`key: value`)
    or `key=value` print it."""
    return re.compile(rf"nvidia\.com/{key}[\"']?\s*[:=]\s*[\"']?{value}")


SYMPTOMS: tuple[Symptom, ...] = (
    # The errno decides (`_SHM_NOT_SIZE`): a creation failure without one (NCCL before 2.19) or with ENOSPC is a size.
    Symptom("nccl-shm-create", re.compile(rf"Error while creating shared memory segment \S*nccl(?!.*error: {_SHM_NOT_SIZE})"),
        "CTR-SHM-SIZE", "high", NCCL_SHM_DOC,
        "NCCL could not create its shared-memory segment in /dev/shm (too small or full)",
        # NVIDIA/nccl#328: `shm_open failed : Permission denied` on the line before: a permission, not a size.
        unless=re.compile(r"Permission denied")),
    # ENOENT: the segment another rank created is not in this rank's /dev/shm (NVIDIA/nccl#1589, an NCCL regression
    # fixed by going back to 2.21.5; NVIDIA/nccl#2190 with 252 GB free under --ipc=host; NVIDIA/nccl#2059, a cuMem
    # handle read as a path on memoryless NUMA nodes). It proves no check's failure; it rules out a size limit.
    Symptom("nccl-shm-missing", re.compile(rf"Error while (?:creating|attaching to) shared memory segment \S*nccl"
                                           rf".*error: {_SHM_MISSING}"),
        "", "medium", NCCL_SHM_DOC,
        "NCCL found the shared-memory segment it was to open missing (ENOENT)",
        clears=("CTR-SHM-SIZE",),
        cleared="a /dev/shm too small fails creating or extending a segment with ENOSPC (No space left on device), "
                "while this segment had been created and was gone or out of this rank's sight"),
    Symptom("nccl-shm-extend", re.compile(
        r"failed to extend /dev/shm/nccl-\S+ to \d+ bytes|posix_fallocate failed\s*:\s*No space left on device"),
        "CTR-SHM-SIZE", "high", NCCL_SHM_DOC,
        "NCCL could not grow its shared-memory segment: /dev/shm has no space left"),
    # Ray's object store asked for more than /dev/shm holds (corpus 1079: 10200547328 bytes against 9663676416).
    Symptom("ray-store-shm", re.compile(r"System memory request exceeds memory available in /dev/shm\b"
                                         r"|The configured object store size \([\d.]+ GB\) exceeds /dev/shm size\b"),
        "CTR-SHM-SIZE", "high", RAY_STORE_RUNNER,
        "Ray's object store asked for more memory than /dev/shm has free: /dev/shm is too small for the store "
        "(the raylet fails, or shrinks the store to fit)"),
    Symptom("torch-shm", re.compile(r"insufficient shared memory \(shm\)"),
        "CTR-SHM-SIZE", "high", PYTORCH_SHM,
        "a PyTorch worker died of a bus error that PyTorch attributes to too little shared memory"),
    # The peer-memory module refused at load: modprobe's own error, or the kernel loader's symbol lines for it (a module
    # built against another ib_core than the one loaded: MLNX_OFED's against the inbox one, or the reverse). No
    # peer-memory client is registered, so no RDMA NIC reaches GPU memory through it (corpus 2429: the GPU Operator's
    # nvidia-peermem-ctr; 2430: MLNX_OFED's nv_peer_mem on CentOS 7).
    Symptom("peer-memory-refused", PEER_MEMORY_REFUSED,
        "IC-NVIDIA-PEERMEM", "medium", PEER_MEMORY_DOC,
        "the kernel refused to load the GPUDirect RDMA peer-memory module (nvidia_peermem / nv_peer_mem): no "
        "peer-memory client is registered with ib_core, so the RDMA NICs cannot read or write GPU memory through it"),
    Symptom("p2p-unsupported", re.compile(r"peer access is not supported between these two devices"),
        "IC-P2P-FUNCTIONAL", "high", CUDA_ERRORS,
        "the run used GPU peer access that CUDA refused (cudaErrorPeerAccessUnsupported, error 217)",
        clears=("CTR-GPU-ACCESS",), cleared=_CUDA_REACHED),
    # A CUDA P2P sample (p2pBandwidthLatencyTest, simpleP2P) aborting on `mapping of buffer object failed`
    # (cudaErrorMapBufferObjectFailed, 205) at its own source line: peer access was granted and the peer mapping of
    # the P2P run could not be made, as with the P2P kernel-module forks on a BAR1 too small for the VRAM (corpus 2491,
    # tinygrad/open-gpu-kernel-modules#16 and #33). The sample's file name ties the error to a peer copy.
    Symptom("p2p-test-map-failed", P2P_TEST_MAP_FAILED,
        "IC-P2P-FUNCTIONAL", "high", CUDA_ERRORS,
        "a CUDA P2P test aborted with 'mapping of buffer object failed': peer access was enabled, but the peer "
        "mapping the copy needs could not be made (with the P2P kernel-module forks, a BAR1 smaller than the VRAM)",
        clears=("CTR-GPU-ACCESS",), cleared=_CUDA_REACHED),
    # NCCL's P2P transport could not map the peer rank's buffer after choosing P2P/IPC for the pair (transport/p2p.cc|cu
    # `WARN("failed to open CUDA IPC handle : %d %s")`, any CUDA error: 11 invalid argument, horovod/horovod#610 and
    # #785; 30 unknown error, horovod#148). The line cut right after `failed to op…` is the same warning (corpus 2173,
    # ray-project/ray#17909). Error 217 is p2p-unsupported's line.
    Symptom("nccl-p2p-ipc-open", NCCL_P2P_IPC_OPEN,
        "IC-P2P-FUNCTIONAL", "high", NCCL_P2P_TRANSPORT,
        "NCCL chose P2P for a pair of GPUs and then its P2P transport failed a CUDA call (opening the peer's CUDA IPC "
        "handle, mapping its memory): the peer path it chose does not work (peer access refused, or the ranks in "
        "separate containers or GPU views)",
        clears=("CTR-GPU-ACCESS",), cleared=_CUDA_REACHED),
    Symptom("trtllm-custom-ar-peer-refused", TRTLLM_PEER_REFUSED,
        "RT-TRTLLM-ALLREDUCE", "high", TRTLLM_IPC_SOURCE,
        "TensorRT-LLM's custom all-reduce asked CUDA for peer access between the GPUs of its tensor-parallel ranks "
        "and CUDA refused it (cudaErrorPeerAccessUnsupported, error 217): the engine must all-reduce through NCCL on "
        "these GPUs"),
    Symptom("trtllm-custom-ar-peer-refused-py", TRTLLM_PEER_PY_REFUSED,
        "RT-TRTLLM-ALLREDUCE", "high", TRTLLM_IPC_PY_SOURCE,
        "TensorRT-LLM's runtime found no peer access between the GPUs of its tensor-parallel ranks "
        "(cudaDeviceCanAccessPeer 0) as its custom all-reduce set up, and stopped: the engine must all-reduce "
        "through NCCL on these GPUs"),
    Symptom("nvlink-xid", re.compile(rf"NVRM: Xid \(PCI:[0-9a-fA-F:.]+\):\s*{_NVLINK_XID}\b"),
        "DRV-NVLINK-HEALTH", "high", XID_CATALOGUE, "the driver logged an NVLink error Xid", faults_gpu=True),
    Symptom("nvlink-xid-cause", re.compile(rf"caused by previous Xid {_NVLINK_XID}\b"),
        "DRV-NVLINK-HEALTH", "high", XID_CATALOGUE,
        "the driver stopped a channel because of an earlier NVLink error Xid"),
    # The CUDA runtime's cudaErrorNvlinkUncorrectable (220), as cudaGetErrorString words it and PyTorch prints it
    # (`RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution`, pytorch/pytorch#58155 on
    # four GPUs; TensorRT-LLM's executor on rank 6 of a B200 HGX, corpus 2271): the work a CUDA context ran met a link
    # error the hardware could not correct, and the context is lost with it.
    Symptom("cuda-nvlink-uncorrectable", CUDA_NVLINK_UNCORRECTABLE,
        "DRV-NVLINK-HEALTH", "high", CUDA_ERRORS,
        "CUDA stopped the program on an uncorrectable NVLink error (cudaErrorNvlinkUncorrectable, 220): an NVLink "
        "between the GPUs failed under the workload", faults_gpu=True),
    # The same failure in the user's words, reported as an event of the run: `the NVIDIA driver tore down the engine's
    # CUDA channels with an uncorrectable NVLink error` (NVIDIA/open-gpu-kernel-modules#1355, corpus 2642, eight B300
    # on an NVSwitch fabric). Only a verb or preposition that says the error happened (hit, got, with, by) is read: a
    # question or a conditional (`could it be an uncorrectable NVLink error`, `if there is ...`) is no report.
    Symptom("nvlink-uncorrectable-stated", NVLINK_UNCORRECTABLE_STATED,
        "DRV-NVLINK-HEALTH", "high", XID_CATALOGUE,
        "the user reports the run stopped on an uncorrectable NVLink error (their words, the driver's or CUDA's "
        "lines not shown): an NVLink between the GPUs failed under the workload", faults_gpu=True),
    # Xid 94: an uncorrectable ECC error the GPU contained (the process using the memory is stopped; a reset
    # remaps the row); 48 (double-bit ECC) and 95 (uncontained ECC) take the whole GPU down.
    Symptom("ecc-xid-contained", re.compile(rf"{_XID_AT}94\b"),
        "MEM-ROW-REMAP-ECC", "medium", XID_CATALOGUE,
        "the driver logged a contained uncorrectable ECC error (Xid 94): reset the GPU to remap the row"),
    Symptom("ecc-xid-uncontained", re.compile(rf"{_XID_AT}(?:48|95)\b"),
        "MEM-ROW-REMAP-ECC", "high", XID_CATALOGUE,
        "the driver logged an uncorrectable ECC error the GPU did not contain (Xid 48 or 95)", faults_gpu=True),
    # The user's words giving correctable (single-bit) ECC counts and saying there is no uncorrectable (double-bit) error
    # and nothing pending (corpus 2852: `236,795 single-bit ECC device-memory events (aggregate, persists across
    # reboots); GPU 0: 0. No double-bit events and no pending page retirement on either card.`): what the check's
    # counters would show, none of it its fault. A count of correctable errors alone, or a line that leaves out either
    # the uncorrectable count or the pending state, rules nothing out.
    Symptom("ecc-correctable-only-stated", ECC_CORRECTABLE_ONLY_STATED,
        "", "low", MEM_ERRORS_DOC,
        "the user's counts are of correctable (single-bit) ECC errors, with no uncorrectable error and nothing pending",
        clears=("MEM-ROW-REMAP-ECC",),
        cleared="correctable errors are corrected in place and normal over a GPU's life, and with no uncorrectable "
                "error and no pending page retirement or row remap there is nothing to reset or replace"),
    # cudaErrorDevicesUnavailable (46) on a GPU in MIG mode: CUDA runs only on the MIG instances handed to it, so a
    # program given the whole GPU finds it unavailable (NVIDIA/gpu-operator#129, its validator on an A100 with MIG on;
    # #132 cites it). Elsewhere the same error is an exclusive compute mode or a full GPU: only with MIG shown.
    Symptom("cuda-devices-unavailable-mig", CUDA_DEVICES_BUSY,
        "MEM-MIG", "high", CUDA_ERRORS,
        "CUDA found every device busy or unavailable (error 46) on a GPU in MIG mode: a program that is not handed a "
        "MIG instance cannot run there", within=MIG_ENABLED,
        # CUDA found the devices and refused them: they and the driver's libraries had reached the program (a
        # validator pod's `busy or unavailable` is not `no CUDA-capable device`, corpus 1145).
        clears=("CTR-GPU-ACCESS",), cleared=_CUDA_REACHED),
    # cudaErrorNoDevice (100) on a host whose GPU is in MIG mode: CUDA enumerates a MIG-enabled GPU only through its MIG
    # instances, and "without creating GPU instances (and corresponding compute instances), CUDA workloads cannot be
    # run on the GPU" (MIG_GETTING_STARTED), so a program handed no instance finds no device at all (ggml-org/llama.cpp
    # #3235, corpus 1232: an A100 with MIG on, no instance). Elsewhere the same words are a driver not loaded or a
    # container without its GPU (cuda-no-device-in-container): only with MIG shown.
    Symptom("cuda-no-device-mig", CUDA_NO_DEVICE,
        "MEM-MIG", "high", MIG_GETTING_STARTED,
        "CUDA found no device (cudaErrorNoDevice, 100) on a host whose GPU is in MIG mode: CUDA runs there only on "
        "MIG instances, so a program handed none (or a GPU with none created) sees no GPU at all",
        within=MIG_ENABLED),
    # The same cudaErrorNoDevice (100) anywhere: the process saw no GPU at all. An exclusive compute mode never gives
    # it: a GPU another context holds refuses the next one with cudaErrorDevicesUnavailable (46, "busy or
    # unavailable"), so where no line of the source says 46 the mode did not stop the program (corpus 1576: jsrun
    # ranks handed no GPU beside a V100 in Exclusive_Process). It proves no check's failure.
    Symptom("cuda-no-device-not-compute-mode", CUDA_NO_DEVICE,
        "", "high", CUDA_ERRORS,
        "CUDA found no device at all (cudaErrorNoDevice, 100): the process was handed no GPU (a batch system's "
        "resource set without GPUs, an empty CUDA_VISIBLE_DEVICES) or the driver is not loaded",
        unless=CUDA_DEVICES_BUSY, clears=("DRV-COMPUTE-MODE",),
        cleared="an exclusive compute mode refuses a second context with \"all CUDA-capable devices are busy or "
                "unavailable\" (46), never with error 100, and no line of the source says 46"),
    # cudaErrorSystemNotReady (802): CUDA will not start until the driver's daemons run; on NVSwitch systems that is
    # Fabric Manager (the CUDA programming guide; pytorch/pytorch#35710, wilicc/gpu-burn#92; the Fabric Manager guide).
    # ollama's GPU probe prints the bare number: `cuInit err: 802` and `cuda driver library init failure: 802`
    # (ollama/ollama#9031 on H200, #12173 on eight H100). An NGC container's start-up check prints the error string
    # capitalised in its banner: `[[ System not yet initialized (error 802) ]]` (NVIDIA/TensorRT-LLM#398, corpus 1304).
    # ollama's runtime-library probe prints its own numbers too (`cudaSetDevice err: 802`, `cudart init failure: 802`,
    # `unable to get device count: 802`, gpu_info_cudart.c), CUDA's deviceQuery sample `cudaGetDeviceCount returned
    # 802` over its `-> system not yet initialized` (NVIDIA/nvtrust#87), and NCCL, torch's old THC and other programs
    # `Cuda failure 802`, `cuda runtime error (802)`, `CUDA ERROR 802` (pytorch/pytorch#35710).
    Symptom("cuda-system-not-ready", re.compile(r"[Ss]ystem not yet initialized|cudaErrorSystemNotReady|"
                                                r"CUDA_ERROR_SYSTEM_NOT_READY|"
                                                r"\b(?:cuInit|cudaSetDevice|cuDeviceGetCount) err: 802\b|"
                                                r"(?:driver library|cudart) init failure: 802\b|"
                                                r"unable to get (?:cudart )?device count: 802\b|"
                                                r"\bcudaGetDeviceCount(?:\(\))? returned 802\b|"
                                                r"\b(?:CUDA|Cuda|cuda)(?: runtime)? (?:error|ERROR|failure) \(?802\b"),
        "DRV-FABRIC-MANAGER", "high", CUDA_ERRORS,
        "CUDA refused to start: the system is not ready (error 802), which on NVSwitch systems means Fabric Manager "
        "is not running or does not match the driver", clears=("CTR-GPU-ACCESS",), cleared=_CUDA_REACHED),
    # CUDA refused NCCL's NVLink SHARP multicast (NVLS) setup with CUDA_ERROR_ILLEGAL_STATE (401, "the operation cannot
    # be performed in the present state"): NCCL binds its buffers to the NVSwitch multicast object only where the
    # driver reports multicast support, and its source (transport/nvls.cc, nvlsAllocateMem, from 2.27.3) says the bind
    # is "where we normally see issues if the system NVLS/Multicast support is broken", its WARN "usually caused by a
    # system or configuration error in the Fabric Manager or NVSwitches". Seen on AWS H100 nodes fixed by a restart or
    # by enabling Fabric Manager (pytorch/pytorch#177472, pytorch/ci-infra#541, pytorch/ao#3841), on nodes whose local
    # NVLink "got into a bad state" (NVIDIA/DCGM#304, corpus 1224), and as NVSHMEM's 401 beside the driver's
    # NV_ERR_FABRIC_STATE_OUT_OF_SYNC (NVIDIA/nvshmem#40). Older NCCL prints `transport/nvls.cc:N NCCL WARN Cuda failure
    # 401 ...` for the same calls (NVIDIA/nccl#1788, eight H100 after a month of identical runs). The fabric, not
    # Fabric Manager alone, is shown broken; 'invalid argument' there is not read so (an NCCL 2.26.2 bug failed alike).
    # Where the source carries the WARN's second line, NCCL's own cause (NVLS_FABRIC_CAUSE), that line decides: the
    # row below proves Fabric Manager's fabric set-up, and the first line alone no longer proves the links (its
    # `unless`). The first line alone, cut from its cause (corpus 1224), stays the NVLink fabric's failure.
    Symptom("nvls-multicast-illegal-state", NVLS_ILLEGAL_STATE,
        "DRV-NVLINK-HEALTH", "high", NCCL_NVLS_SOURCE,
        "CUDA refused NCCL's NVLink SHARP (NVLS) multicast setup in the present state (CUDA error 401): the NVSwitch "
        "fabric's multicast does not work on this node, which NCCL traces to a system or configuration error in "
        "Fabric Manager or the NVSwitches (NCCL_NVLS_ENABLE=0 runs without NVLS meanwhile)",
        unless=NVLS_FABRIC_CAUSE),
    # NCCL's topology joins GPUs a and b over NVLink while NVML's P2P status for the pair is not OK: NCCL
    # (src/graph/paths.cc, ncclTopoComputePaths) WARNs "P2P is disabled between NVLINK connected GPUs %d and %d ...
    # probably due to a hardware issue" and stops its init (the PCIe case is an INFO line without NVLINK, read by
    # facts/peer_access.py and left to the path and the model). The pair's links are up and refuse P2P: the NVLink
    # path, and the topology NCCL reads from it, are broken for that pair (NVIDIA/nccl#2329, corpus 2638).
    Symptom("nccl-nvlink-p2p-disabled", NCCL_NVLINK_P2P_DISABLED,
        "DRV-NVLINK-HEALTH", "high", NCCL_PATHS_SOURCE,
        "NCCL found NVLink between two GPUs whose P2P NVML reports not OK and stopped (NCCL names a hardware "
        "issue): the pair's NVLink path does not carry P2P", faults_gpu=True),
    Symptom("nccl-nvlink-p2p-topology", NCCL_NVLINK_P2P_DISABLED,
        "IC-TOPO-READ", "high", NCCL_PATHS_SOURCE,
        "NCCL's topology puts two GPUs on NVLink while NVML reports their P2P status not OK: the path its "
        "topology reads does not carry P2P, and NCCL refuses the pair (NCCL_IGNORE_DISABLED_P2P=1 only hides it)"),
    # NCCL's WARN on a failed NVLS multicast bind or map, whole: its second line names a system or configuration error
    # in Fabric Manager or the NVSwitches as the cause (nvls.cc). NCCL prints it only after the driver reported
    # multicast support, which it does only on an NVSwitch fabric that Fabric Manager set up: the fabric's set-up is
    # not in a usable state (AWS H100 CI nodes fixed by a restart, pytorch/pytorch#177472, corpus 2318; a container
    # with no Fabric Manager reachable; a partition whose multicast team Fabric Manager could not set up). No link
    # state is shown, so NVLink health stays open.
    Symptom("nvls-fabric-manager", NVLS_FABRIC_CAUSE,
        "DRV-FABRIC-MANAGER", "high", NCCL_NVLS_SOURCE,
        "NCCL could not bind or map NVLink SHARP (NVLS) multicast memory and names a system or configuration error "
        "in Fabric Manager or the NVSwitches as the cause: the NVSwitch fabric Fabric Manager sets up is not in a "
        "usable state on this node (NCCL_NVLS_ENABLE=0 runs without NVLS meanwhile)"),
    # Fabric Manager refused its own installation and exits at start (FM_FATAL): an invalid
    # configuration item (siderolabs/extensions#511, repeated on every restart), a topology file it cannot open
    # (NVIDIA/nvrc#203). A host whose FM is installed and started is an NVSwitch host's build, as for a version mismatch.
    Symptom("fm-config-fatal", FM_FATAL, "DRV-FABRIC-MANAGER", "high", FM_GUIDE,
        "Fabric Manager refused its configuration (an invalid item, or a topology file it cannot open) and exits at "
        "start, so it configures no NVSwitch fabric (CUDA then fails with error 802 or NVLink peers are missing)"),
    # Docker's daemon answers a GPU request (`--gpus`, compose `capabilities: [gpu]`) it has no device driver for:
    # no NVIDIA runtime or hook is registered (`""`, or `"nvidia"` from compose's `driver: nvidia`).
    Symptom("docker-no-gpu-driver", re.compile(r'could not select device driver (?:"[^"]*" )?with capabilities ?: \[\[gpu\]\]'),
        "CTR-GPU-ACCESS", "high", CTK_DOCKER,
        "Docker has no device driver for the GPU request: the NVIDIA Container Toolkit is not installed or not "
        "configured for this Docker daemon, so the container gets no GPU"),
    Symptom("docker-no-nvidia-runtime", re.compile(r"unknown or invalid runtime name: nvidia|Unknown runtime specified nvidia"),
        "CTR-GPU-ACCESS", "high", CTK_DOCKER,
        "Docker knows no `nvidia` runtime: `nvidia-ctk runtime configure` was not run (or the daemon not restarted), "
        "so the container does not start"),
    # The toolkit's hook (`Auto-detected mode as 'legacy'` is its mode line, not a failure) could not load NVML.
    # The GPU Operator's toolkit image runs the CLI as `nvidia-container-cli.real` (NVIDIA/gpu-operator#1518).
    Symptom("ctk-init-error", re.compile(r"nvidia-container-cli(?:\.real)?: initialization error"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the NVIDIA container runtime hook could not initialise (it could not load the driver's NVML library or reach "
        "the driver), so the container gets no GPU"),
    # The hook reached NVML but NVML could not query the GPUs (NVIDIA/nvidia-docker#1348: "usually points to a driver
    # installation problem"; #1280 with the GPU's name reading ERR!): the container is not created. The hook's driver
    # service fails its detection step alike where it cannot query the driver: `detection error: driver error: failed
    # to process request` (NVIDIA/nvidia-docker#1114, #1149), `driver rpc error` (NVIDIA/nvidia-container-toolkit#236).
    # Its CUDA probe fails the same step: `detection error: cuda error: invalid device ordinal` on a MIG node
    # (NVIDIA/gpu-feature-discovery#11, corpus 1749). So does a driver file its list names and the host lacks:
    # `detection error: open failed: .../libnvidia-tls.so.470.86: no such file or directory` (a driver updated under
    # it, NVIDIA/nvidia-container-toolkit#266). Every `detection error` stops the container's start.
    Symptom("ctk-detection-error", re.compile(r"nvidia-container-cli(?:\.real)?: detection error: "),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the NVIDIA container runtime hook could not detect the host's driver and GPUs (its NVML, CUDA or driver "
        "service query failed, or a driver file it lists is missing: a broken, mismatched or half-updated driver on "
        "the host), so the container is not created with its GPUs"),
    # The hook reached the driver and failed setting the container up: `mount error` (it could not bind a driver file
    # or add the GPUs' device rules: cgroup v2's eBPF device filter the kernel refused, NVIDIA/nvidia-container-toolkit
    # #1482, corpus 1461; `file creation failed` on WSL, NVIDIA/nvidia-docker#1551), `container error` (`cgroup subsystem
    # devices not found` on cgroup v2 before toolkit 1.8), `ldcache error` (no ldconfig where its config points),
    # `device error` (a GPU asked for that the host lacks: `device error: 1: unknown device`). libnvidia-container
    # prints each as `nvidia-container-cli: <stage> error: ...` and runc stops the container's start. Its `requirement
    # error` (an image's `cuda>=` over an older driver) is DRV-CUDA-COMPAT's (ctk-cuda-requirement, below).
    Symptom("ctk-setup-error", re.compile(r"nvidia-container-cli(?:\.real)?: (?:mount|container|ldcache|device) error:"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the NVIDIA container runtime hook failed setting up the container's GPUs (mounting the driver's files or "
        "adding the GPUs' device rules), so the container does not start with them",
        # The hook ran, so Docker's runtime is configured: `nvidia-ctk runtime configure` is not the fix.
        own_fix="The runtime is set up (its hook ran): fix the step the error after `nvidia-container-cli:` names; "
        "`nvidia-container-cli -k -d /dev/tty info` on the host shows what the hook sees. A `failed to add device "
        "rules` under cgroup v2 is the kernel refusing the toolkit's eBPF device filter: update the NVIDIA Container "
        "Toolkit, or set `no-cgroups = true` in its config.toml and pass the /dev/nvidia* nodes with --device",
        own_takes="fix the hook's step, then recreate the container"),
    # The hook compared the image's NVIDIA_REQUIRE_CUDA (`cuda>=12.8`, with its brand and driver-branch exceptions)
    # with the CUDA the host's driver supports and refused the image: `nvidia-container-cli: requirement error:
    # unsatisfied condition: cuda>=11.0, please update your driver to a newer version, or use an earlier cuda
    # container` (NVIDIA/nvidia-docker#1442, whose maintainer answers that CUDA 11 needs a driver of 450 or newer;
    # #536 and #543 in the 2017 form `cuda >= 9.0`; NVIDIA/nvidia-container-toolkit#152; SyneRBI/PETRIC2#27). The
    # hook's own command line (`--require=cuda>=9.0`) is the request, not the refusal. The driver is older than the
    # image's CUDA: DRV-CUDA-COMPAT's. Not CTR-GPU-ACCESS's: the hook ran and read the driver, so the runtime is set up,
    # and the one fix is the driver or the image (as for the NGC image's own driver check, ngc-driver-too-old).
    Symptom("ctk-cuda-requirement", CTK_CUDA_REQUIREMENT,
        "DRV-CUDA-COMPAT", "high", CTK_TROUBLESHOOTING,
        "the NVIDIA container runtime hook refused the image: the CUDA release it requires (NVIDIA_REQUIRE_CUDA) is "
        "newer than the host's driver supports, so the container does not start",
        own_fix="Move the host's driver up to a branch that supports the image's CUDA, or run an image built for an "
        "older CUDA (NVIDIA_DISABLE_REQUIRES=true skips the check, and CUDA in the container may then fail)",
        own_takes="upgrade the driver (a reboot) or change the image, then recreate the container",
        clears=("CTR-GPU-ACCESS",), cleared=_HOOK_REACHED),
    # runc could not apply the container's device cgroup rules because the host mounts no `devices` cgroup hierarchy
    # (cgroup v1 without that controller, a partial mount): `applying cgroup configuration for process caused
    # "mountpoint for devices not found"` (NVIDIA/nvidia-docker#486 on an EC2 host, #1568; opencontainers/runc#1631:
    # only the memory controller mounted). No container starts with device rules, so none is given a GPU. Its cgroup v2
    # relative from the hook is `container error: cgroup subsystem devices not found` (ctk-setup-error).
    Symptom("runc-no-devices-cgroup", re.compile(r"\bmountpoint for devices not found"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the container runtime (runc) found no `devices` cgroup hierarchy mounted on the host, so it cannot give a "
        "container device rules and no container starts with its GPUs",
        own_fix="Mount the devices cgroup controller (cgroup v1: /sys/fs/cgroup/devices; or boot the host with a "
        "cgroup layout the runtime supports), restart Docker, then recreate the container",
        own_takes="mount the devices cgroup, restart the daemon, recreate the container"),
    # The runtime is registered but the hook it runs is missing: `exec: "nvidia-container-runtime-hook": executable
    # file not found in $PATH` (NVIDIA/nvidia-docker#958, #1337: the package that shipped the binary was replaced by
    # nvidia-container-toolkit), nvidia-container-runtime's own log `inject NVIDIA hook: stat
    # /usr/bin/nvidia-container-runtime-hook: no such file or directory` (#1017).
    Symptom("ctk-hook-missing", re.compile(r"nvidia-container-runtime-hook\W{0,3}: executable file not found|"
                                           r"inject NVIDIA hook: stat \S*nvidia-container-runtime-hook: no such file"),
        "CTR-GPU-ACCESS", "high", CTK_DOCKER,
        "the NVIDIA runtime's hook binary (nvidia-container-runtime-hook) is missing, so the container does not "
        "start with its GPUs (install the NVIDIA Container Toolkit, whose nvidia-container-toolkit provides the hook)"),
    # The hook in CSV mode (a Jetson's integrated GPU, whose driver files the toolkit lists in CSV files) refuses to be
    # run straight from Docker's `--gpus` request: `invoking the NVIDIA Container Runtime Hook directly (e.g. specifying
    # the docker --gpus flag) is not supported. Please use the NVIDIA Container Runtime instead.`
    # (triton-inference-server/server#5641, corpus 2338): the container does not start, its GPU request notwithstanding.
    Symptom("ctk-hook-direct-refused", re.compile(r"\binvoking the NVIDIA Container Runtime Hook directly\b.{0,80}?"
                                                  r"\bis not supported\b"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the NVIDIA hook refuses to run from Docker's --gpus request in its mode (CSV, a Jetson's integrated GPU): "
        "the container does not start, so it gets no GPU",
        own_fix="Start the container with the NVIDIA runtime instead of --gpus (`docker run --runtime nvidia ...`, "
        "or make nvidia Docker's default runtime in /etc/docker/daemon.json)",
        own_takes="recreate the container with --runtime nvidia"),
    # A GPU test container that cannot start nvidia-smi: `starting container process caused "exec: \"nvidia-smi\":
    # executable file not found in $PATH"` (runc's `unable to start container process: exec: "nvidia-smi"` since
    # Docker 20.10). The NVIDIA runtime mounts nvidia-smi with the driver's libraries; the image has none of its own,
    # so the runtime did not hand the driver over (nvidia-docker 1's volume missing: NVIDIA/nvidia-docker#865, #858,
    # #845 (corpus 1993); the toolkit's hook not run for `--gpus all`: #1668).
    Symptom("smi-not-mounted", re.compile(r"\bexec: \\?\"nvidia-smi\\?\": executable file not found in \$PATH"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the container could not start nvidia-smi: the NVIDIA runtime mounts it with the driver's libraries, so the "
        "driver was not handed to the container (no NVIDIA runtime hook ran for it, or nvidia-docker 1's driver "
        "volume was not mounted)"),
    # The hook's `nvidia-container-cli configure` (run once per container start, done in well under a second) caught
    # by top or ps running at most of a CPU (R or D, %CPU 50 and over): the hook is stuck in the driver (without
    # persistence mode each call re-initialises the GPUs, NVIDIA/nvidia-container-runtime#40, NVIDIA/k8s-device-plugin#77,
    # corpus 1393), so the container it configures does not start with its GPUs. Its columns: PID USER PR NI VIRT RES
    # SHR S %CPU %MEM TIME+ COMMAND (top), the process table's order.
    Symptom("ctk-hook-stuck", CTK_HOOK_STUCK,
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the NVIDIA container runtime hook (`nvidia-container-cli configure`, a call that ends in well under a second) "
        "is shown spinning on a CPU: it is stuck setting up a container's GPUs, so that container does not start "
        "with them (turn persistence mode on, `nvidia-smi -pm 1` or nvidia-persistenced, so the hook does not "
        "re-initialise the GPUs on each start; a hook stuck in the driver may need the node rebooted)"),
    # A container runtime asked for a CDI GPU device it cannot resolve, so the container is not started: Podman's
    # `Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all` (NixOS/nixpkgs#420638,
    # NVIDIA/nvidia-container-toolkit#146), Docker's and containerd's `failed to inject CDI devices: unresolvable CDI
    # devices nvidia.com/gpu=all` (NVIDIA/nvidia-container-toolkit#434, #1239 with `management.nvidia.com/gpu=GPU-…`):
    # no CDI spec names the device (none generated, or stale after a driver update). GitHub may link the name
    # (`[nvidia.com/gpu=all](http://…)`). Podman before 4.1 reads the name as a device path: `Error: stat
    # nvidia.com/gpu=0: no such file or directory` (containers/podman#20257).
    Symptom("cdi-gpu-unresolved", re.compile(r"unresolvable CDI devices? \[?[\w.-]*nvidia\.com/(?:gpu|mig)|"
                                             r"\bstat [\w.-]*nvidia\.com/gpu=\S+: no such file or directory"),
        "CTR-GPU-ACCESS", "high", CTK_CDI,
        "the container runtime could not resolve the CDI GPU device it was asked for (no CDI spec names it, or a "
        "Podman older than 4.1 that reads the name as a path), so the container does not start with the GPU"),
    # The CDI spec names a host device node that is not there (`failed to inject devices: failed to stat CDI host
    # device "/dev/dri/renderD129": no such file or directory`, NVIDIA/nvidia-container-toolkit#885, from `podman run`
    # and from `distrobox enter`): a spec generated before the device nodes were renumbered or removed.
    Symptom("cdi-host-device-missing", re.compile(r"failed to stat CDI host device \S+: no such file or directory"),
        "CTR-GPU-ACCESS", "high", CTK_CDI,
        "the CDI spec names a host device node that does not exist (a stale spec), so the container runtime injects "
        "none of its devices and the container does not start with the GPU: regenerate it with `nvidia-ctk cdi "
        "generate`"),
    # A container's NVML cannot open the GPUs it was given: systemd reloaded the device cgroup (`systemctl
    # daemon-reload`) without the NVIDIA devices (NVIDIA's notice, NVIDIA/nvidia-docker#1730). Programs built on go-nvml
    # print NVML_ERROR_UNKNOWN by its name (`Failed to initialize NVML: ERROR_UNKNOWN`, corpus 940). In a pod whose spec
    # requests GPUs the failure shown wins over the request (the engine keeps the worse verdict).
    # Not where the same source runs nvidia-smi from a `kubectl debug node/...` pod (after `chroot /host`): chroot does
    # not leave that pod's device cgroup, which holds no GPU, so its NVML failure says nothing of the workload's pods
    # (corpus 932).
    Symptom("nvml-unknown-error", re.compile(r"Failed to initialize NVML: (?:Unknown Error|ERROR_UNKNOWN)"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "NVML cannot open the GPU device nodes; inside a container that is the device cgroup losing the GPUs "
        "after a `systemctl daemon-reload` (recreate the container; NVIDIA/nvidia-docker#1730 gives the workarounds)",
        unless=DEBUG_NODE_POD),
    # NVML refused to open the GPU device nodes for the caller (NVML_ERROR_NO_PERMISSION, "Insufficient Permissions"):
    # nvidia-smi's `Failed to initialize NVML: Insufficient Permissions` in a rootless Podman container whose hook
    # mounts the driver's files but whose device nodes the user namespace cannot open (NVIDIA/nvidia-container-toolkit
    # #268, corpus 2508), nvidia-docker 1's `Error: nvml: Insufficient Permissions` from a device cgroup that denies
    # some GPUs (NVIDIA/nvidia-docker#393, corpus 2507). On a bare host the same words are a user the device files'
    # mode or group leaves out (NVreg_DeviceFileMode), no container's: only in a container the source shows.
    Symptom("nvml-no-permission", re.compile(r"(?:Failed to initialize NVML|\bnvml): Insufficient Permissions\b"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "NVML could not open the GPU device nodes in the container (Insufficient Permissions): the runtime handed "
        "the driver's library over but the container's user or device cgroup is not allowed the /dev/nvidia* nodes "
        "(a rootless runtime whose hook runs with cgroups, a device cgroup that denies GPUs)", within=IN_CONTAINER),
    # LXC's start failing in the container's mount hooks (lxc_setup: `Failed to run mount hooks`, after run_buffer's
    # `Script exited with status 1`): the hook LXD and Incus add for `nvidia.runtime` (lxc.hook.mount, LXC's
    # hooks/nvidia, which calls nvidia-container-cli to mount the driver's device nodes and libraries) failed, so the
    # container does not start (zabbly/incus#81, corpus 2501). The mount hook is the only one LXD and Incus write;
    # a failing pre-start hook (run_buffer alone) may be any of LXD's own, so it is not read here (corpus 2500).
    Symptom("lxc-mount-hook-failed", re.compile(r"\blxc_setup:\d{1,6} - Failed to run mount hooks\b"),
        "CTR-GPU-ACCESS", "high", "https://github.com/lxc/lxc/blob/main/hooks/nvidia",
        "LXC could not run the container's mount hook (the NVIDIA hook nvidia.runtime adds, which mounts the driver's "
        "device nodes and libraries into the container), so the container does not start and gets no GPU",
        own_fix="Run the hook's nvidia-container-cli on the host (`nvidia-container-cli -k -d /dev/tty info`) and mend "
        "what it reports (the NVIDIA Container Toolkit's libnvidia-container installed, a driver it can read), or "
        "unset nvidia.runtime and pass the GPU as a `gpu` device with the driver installed in the container",
        own_takes="mend the host's nvidia-container-cli, then start the container"),
    # A container's NVML cannot be loaded at all: the driver's libraries were not injected, because the node's
    # container runtime (containerd, CRI-O, Docker) does not run it with the NVIDIA runtime. The Kubernetes device
    # plugin prints it (`Failed to initialize NVML: could not load NVML library.`, older `Failed to start nvml with
    # error:`, newer `ERROR_LIBRARY_NOT_FOUND`), and then offers no nvidia.com/gpu to any pod (its prerequisites).
    # Device plugin 0.15 and later log it as a warning: `NVML not detected: could not load NVML library:
    # libnvidia-ml.so.1: cannot open shared object file` (NVIDIA/k8s-device-plugin#1371).
    # Device plugin 0.14's resource factory says it as `Detected non-NVML platform: could not load NVML library:
    # libnvidia-ml.so.1: ...` after `No valid resources detected` (NVIDIA/k8s-device-plugin#479, corpus 1196).
    # GKE's device plugin: `failed to initialize nvml: ...` (cmd/nvidia_gpu, fatal). dcgm-exporter (a DaemonSet pod, or
    # `docker run`) says it as `Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND` (4.x, NVIDIA/dcgm-exporter#612)
    # or, through DCGM's own error, `Error getting devices count: Cannot perform the requested operation because NVML
    # doesn't exist on this system` (NVIDIA/dcgm-exporter#416, #530; kubernetes-sigs/dra-driver-nvidia-gpu#166).
    Symptom("nvml-library-not-loaded", re.compile(r"(?:(?:initialize|start) NVML(?: with error)?|NVML not detected|"
                                                  r"Detected non-NVML platform|Cannot init NVML library; err):"
                                                  r"\s+(?:could not load NVML library|ERROR_LIBRARY_NOT_FOUND)|"
                                                  r"\bCannot perform the requested operation because NVML doesn't "
                                                  r"exist on this system",
                                                  re.IGNORECASE),
        "CTR-GPU-ACCESS", "high", K8S_DEVICE_PLUGIN_PREREQUISITES,
        "the container could not load NVML: the driver's libraries were not injected, so the node's container runtime "
        "does not run it with the NVIDIA runtime (make nvidia the default runtime of containerd / CRI-O / Docker, or "
        "give the pod the nvidia RuntimeClass)"),
    # The kubelet refuses a pod the NVIDIA device plugin could not hand GPUs to, and the pod ends in
    # UnexpectedAdmissionError (the kubelet's lifecycle/predicate.go, `Allocate failed due to ..., which is
    # unexpected`): the device manager's call to the plugin failed (`device plugin GetPreferredAllocation rpc failed
    # with err: ... error creating nvml.Device 0: nvml: Unknown Error`, corpus 1583, NVIDIA/k8s-device-plugin#1397,
    # #1223, #231, kubernetes/kubernetes#97131), or it found none of the plugin's devices free to give (`requested
    # number of devices unavailable for nvidia.com/gpu`, kubernetes/kubernetes#130145: allocations the kubelet still
    # counts). GPU-sharing schedulers' plugins refuse the same way where the scheduler's decision is missing or names no
    # device (`unable to find GPU device allocation by scheduler`, kuberay#1414 on Huawei CCE, corpus 1932; `failed to
    # find gpu id`, volcano-sh/devices#17; HAMi's `Update plugin resources failed due to ... missing annotation for gpu
    # allocation decision from scheduler`, Project-HAMi/HAMi#57). Only NVIDIA's: the line names NVML, an nvidia.com
    # resource or a GPU, and no amd.com one (AMD's plugin says `amd.com/gpu`, trueforge-org/truecharts#19201). The pod
    # gets no GPU; the error the line quotes says why.
    Symptom("k8s-gpu-admission-failed", re.compile(r"\b(?:Allocate|Update plugin resources) failed due to "
                                                   r"(?!.*\bamd\.com/)(?=.*(?:\bnvml\b|nvidia\.com/|\bgpu\b))",
                                                   re.IGNORECASE),
        "CTR-GPU-ACCESS", "high", K8S_DEVICE_PLUGIN_PREREQUISITES,
        "the kubelet refused the pod its GPUs (UnexpectedAdmissionError): its allocation through the NVIDIA device "
        "plugin failed, or found no device free to give, so no container of the pod gets a GPU; the error the line "
        "quotes says why (an NVML error there is the node's driver or a GPU that stopped answering the plugin)",
        own_fix="Mend what the line names (NVML failing in the device plugin: the node's driver or a lost GPU, "
                "`nvidia-smi -q` on the node; devices the kubelet still counts as taken: restart the kubelet), then "
                "recreate the refused pods",
        own_takes="mend the node (its driver, or restart the kubelet), then recreate the pods"),
    # The device plugin run as a host service (Bottlerocket's NVIDIA variants: nvidia-k8s-device-plugin.service) whose
    # journal, this boot's or every boot's, holds no line (`journalctl -b -u nvidia-k8s-device-plugin` answered
    # `-- No entries --`, recorded as one line by importers/shown_commands.py): the plugin never ran, so it registered
    # nothing with the kubelet and the node offers no nvidia.com/gpu, whatever the driver's modules show
    # (bottlerocket-os/bottlerocket#4087, corpus 1586).
    Symptom("device-plugin-unit-never-ran", re.compile(r"\bjournalctl\b.*(?:-u\s*|--unit[=\s]+)nvidia(?:-k8s)?-device-"
                                                       r"plugin(?:\.service)?(?:\s.*)?: -- No entries --"),
        "CTR-GPU-ACCESS", "high", K8S_DEVICE_PLUGIN_PREREQUISITES,
        "the device plugin's service wrote nothing to the journal: it never ran, so it offered the kubelet no GPU and "
        "the node exposes no nvidia.com/gpu to pods",
        own_fix="Start the device plugin's unit and read why it did not start (`systemctl status "
                "nvidia-k8s-device-plugin`, `journalctl -b -u kubelet`); the kubelet must be running for it",
        own_takes="start the device plugin's unit on the node"),
    # torch warns `Can't initialize NVML` (torch/cuda/__init__.py, where nvmlInit fails as it counts the GPUs) in a
    # container the source shows: the driver's NVML library did not reach the container, or cannot open its GPUs
    # there (no GPU request, no NVIDIA runtime, the `utility` capability left out). vLLM's platform probe then finds
    # no platform (`No platform detected, vLLM is running on UnspecifiedPlatform`) and the engine stops (corpus 1567,
    # xorbitsai/inference#3288). On a bare host the same warning is the host's driver, another fault (corpus 1024).
    # vLLM's own probe says the same (vllm/platforms/__init__.py): `CUDA platform is not available because: NVML Shared
    # Library Not Found` (no libnvidia-ml.so.1 in the container, corpus 2334), and its verdict `No platform detected,
    # vLLM is running on UnspecifiedPlatform` where it found no GPU at all (a CUDA build of vLLM in a pod, corpus 2340).
    # nvidia-smi's own `No devices found.` / `No devices were found` as the whole answer typed in a container (Pyxis'
    # `srun --container-image`, corpus 2331): NVML opened no GPU there. ollama's discovery finding no NVML library
    # (`Discovered GPU libraries: []`, before 0.1.30; corpus 2571, a pod) and the driver's CUDA library missing
    # where a program loads it (`libcuda.so.1: cannot open shared object file`, vLLM's `_C` in a KServe pod, corpus
    # 2573): the toolkit mounts both from the host's driver, so neither reached the container.
    Symptom("torch-nvml-in-container", re.compile(r"UserWarning: Can't initialize NVML|"
                                                  r"\bCUDA platform is not available because: NVML Shared Library Not "
                                                  r"Found\b|\bNo platform detected, vLLM is running on "
                                                  r"UnspecifiedPlatform\b|(?:^|[\s=])No devices (?:were )?found\.?\s*$|"
                                                  r"\bDiscovered GPU libraries: \[?\]|"
                                                  r"\blibcuda\.so\.1: cannot open shared object file\b"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "the program in the container cannot reach the GPU through NVML (torch cannot initialise NVML, vLLM finds "
        "no NVML library or no platform, ollama discovers no GPU library, libcuda.so.1 is missing, nvidia-smi finds "
        "no device): the driver's NVML library does not reach the "
        "container or cannot open its GPUs there (no GPU request, no NVIDIA runtime, or NVIDIA_DRIVER_CAPABILITIES "
        "without `utility`), so engines that probe the GPUs through NVML find none", within=IN_CONTAINER),
    # The device plugin's resource factory (0.15 and later, internal/rm/factory.go) with its default strategy `auto`
    # found neither NVML nor a Tegra platform in its container: `Incompatible strategy detected auto`, then `If this is
    # a GPU node, did you configure the NVIDIA Container Toolkit?`, and the plugin exits offering no nvidia.com/gpu
    # (NVIDIA/k8s-device-plugin#1220, corpus 621). On a GPU node the runtime did not inject the driver's libraries.
    Symptom("device-plugin-no-nvml", re.compile(r"\bIncompatible strategy detected auto\b"),
        "CTR-GPU-ACCESS", "high", K8S_DEVICE_PLUGIN_PREREQUISITES,
        "the device plugin's container found neither NVML nor a Tegra platform (strategy auto): the node's container "
        "runtime did not inject the driver's libraries into it, so the plugin exits and the node offers no "
        "nvidia.com/gpu (make nvidia the default runtime of containerd / CRI-O, or give the plugin the nvidia "
        "RuntimeClass; on a node without GPUs, keep the plugin off it with a nodeSelector)"),
    # NVML's user-space library is of another version than the loaded kernel module. In a container that is the image's
    # own driver libraries shadowing the ones the toolkit injects from the host (k4yt3x/video2x#1226: an image with
    # NVML 565.57 on a 535 host; the toolkit mounts the host's libraries, CTK_TROUBLESHOOTING); on a host it is a
    # driver updated without a reboot, another fault, so the line needs the container shown.
    Symptom("nvml-version-mismatch-in-container", re.compile(r"Failed to initialize NVML: Driver/library version "
                                                             r"mismatch"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "NVML in the container is of another version than the host's kernel module: the image carries its own "
        "driver libraries, which shadow the host's the toolkit injects, so no NVML or CUDA call works there (use an "
        "image without driver libraries)", within=IN_CONTAINER,
        own_fix="Use an image without driver libraries of its own: the toolkit injects the host's",
        own_takes="recreate the container from such an image"),
    # The Kubernetes scheduler found no node with a free nvidia.com/gpu for the pod (the FailedScheduling event of
    # `kubectl describe pod`, `0/1 nodes are available: 1 Insufficient nvidia.com/gpu.`): the pod stays Pending and its
    # containers get no GPU. The node offers none (no device plugin, or the plugin found no GPU), or every GPU it offers
    # is taken (NVIDIA/k8s-device-plugin#33, #119, #165, #430). Where every GPU node shown offers its GPUs and its
    # pods request them all (describe's Allocated resources), the refusal is the scheduler counting them taken
    # (NVIDIA/k8s-device-plugin#213, corpus 1945). The line counts per node: where it counts fewer nodes short of
    # nvidia.com/gpu than it weighed and other nodes short of another resource (`0/2 nodes are available: 1
    # Insufficient cpu, 1 Insufficient nvidia.com/gpu, 2 Insufficient memory`), the node short of GPUs may be one with
    # none and the GPU node the one short of CPU or memory (corpus 2582, both readers): no GPU shown refused, no hit.
    Symptom("k8s-insufficient-gpu", re.compile(r"^(?![^\n]*?\b0/(\d{1,6}) nodes are available: "
                                               r"(?=[^\n]{0,400}?\bInsufficient (?!nvidia\.com/gpu\b)\w)"
                                               r"(?![^\n]{0,400}?(?<!\d)\1 Insufficient nvidia\.com/gpu\b))"
                                               r"[^\n]*?\b[Ii]nsufficient nvidia\.com/gpu\b"),
        "CTR-GPU-ACCESS", "high", K8S_DEVICE_PLUGIN_PREREQUISITES,
        "the Kubernetes scheduler found no node with a free nvidia.com/gpu for the pod, so it stays Pending and its "
        "containers get no GPU (no node advertises one: the device plugin is missing or found no GPU; or all are taken)",
        looks_only=K8S_GPUS_TAKEN),
    # GPU feature discovery labels a node's GPUs; with the MIG strategy `single` it names the product `<model>-MIG-INVALID`
    # and counts 0 GPUs where MIG is on with no MIG device, or with mixed layouts (its mig-strategy tests;
    # NVIDIA/gpu-operator#479, #603). The label reads as `"key": "value"` (JSON), `key: value` (YAML) or `key=value`.
    Symptom("gfd-mig-invalid", _node_label(r"gpu\.product", r"[\w.-]+-MIG-INVALID\b"),
        "MEM-MIG", "high", GFD_MIG_STRATEGY,
        "GPU feature discovery labels the node's GPU product MIG-INVALID: MIG is on but no MIG device exists, or the MIG "
        "layouts differ, so the `single` strategy offers no GPU and no MIG slice to pods"),
    # The device plugin refuses to start where a GPU has MIG on and, under the `single` strategy, no MIG device (or
    # slices of different shapes): `at least one device with migEnabled=true was not configured correctly: ... device 0
    # has no MIG devices configured` (its mig-strategy.go; `No MIG devices associated with /dev/nvidia0` in 0.9, corpus
    # 1267), so the node offers pods no GPU. Its resource managers (0.14 and later, internal/rm) stop the same way where
    # they cannot walk the MIG devices of a GPU with MIG on: `failed to construct NVML resource managers: error building
    # device map: ... invalid MIG configuration: error visiting MIG device` (NVIDIA/k8s-device-plugin#397, corpus 1289).
    Symptom("device-plugin-mig-invalid", re.compile(r"(?i:at least one device with migEnabled=true was not "
                                                    r"configured correctly)|"
                                                    r"\bNVML resource managers: .*\binvalid MIG configuration\b"),
        "MEM-MIG", "high", GFD_MIG_STRATEGY,
        "the device plugin refuses a GPU whose MIG mode is on without a valid MIG layout (no MIG device, or slices of "
        "different shapes under the `single` strategy): it stops, and the node offers pods no GPU"),
    # The MIG manager sets `nvidia.com/mig.config.state` to `failed` where it could not apply the layout the node's
    # `nvidia.com/mig.config` label asks for (NVIDIA/mig-parted#189: the label tells success from failure).
    Symptom("mig-config-failed", _node_label(r"mig\.config\.state", r"failed\b"),
        "MEM-MIG", "high", GPU_OPERATOR_MIG,
        "the GPU Operator's MIG manager failed to apply the MIG layout the node's nvidia.com/mig.config label asks for"),
    # GPU feature discovery's GPU count for a node it runs on (a GPU node) is 0: the device plugin offers no nvidia.com/gpu
    # (a MIG-INVALID node; NVIDIA/gpu-operator#603). The label counts whole GPUs, and under the `mixed` MIG strategy it
    # still counts the physical GPUs (NVIDIA/k8s-device-plugin#738), so 0 is no healthy layout.
    Symptom("gfd-gpu-count-zero", _node_label(r"gpu\.count", r"0(?![\d.])"),
        "CTR-GPU-ACCESS", "high", GFD_MIG_STRATEGY,
        "GPU feature discovery counts 0 GPUs on this GPU node: the device plugin offers pods no nvidia.com/gpu"),
    # ollama's GPU probe found no GPU (0.1.x: `nvidia-smi command failed`, then `skipping accelerated runner because
    # num_gpu=0`; later `no compatible GPUs were discovered`, `no nvidia devices detected`), on a line `docker compose`
    # prefixes with the service's name (`ollama  | `): inside a container, whose GPUs the runtime did not give it
    # (ollama/ollama#1666 on Docker Desktop; #6840, #3024). On a bare host the same words are a missing driver.
    Symptom("ollama-no-gpu-in-container", re.compile(
        r"^\s*[\w.-]+\s+\|\s.*(?:gpu support may not be enabled.*nvidia-smi command failed|"
        r"no compatible GPUs were discovered|no nvidia devices detected|" + _OLLAMA_NO_GPU_0_1 + ")"),
        "CTR-GPU-ACCESS", "high", CTK_DOCKER,
        "ollama's GPU probe in its container found no GPU: the container runtime did not give it the host's GPUs "
        "(no GPU request, or no NVIDIA runtime), so it runs on the CPU", unless=_OLLAMA_GPU_UNSUPPORTED),
    # The same probe without a compose prefix (`docker logs ollama`) is the container's failure where the source shows the
    # container, asking for GPUs or not (a spec's request, or the user's words: `Ollama container logs`, ClaraVerse#49;
    # `I deployed ollama with docker`, ollama/ollama#6840): a container without a GPU request gets no GPU.
    Symptom("ollama-no-gpu", re.compile(r"gpu support may not be enabled.*nvidia-smi command failed|"
                                        r"no compatible GPUs were discovered|no nvidia devices detected|"
                                        + _OLLAMA_NO_GPU_0_1),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "ollama's GPU probe found no GPU in its container, so it runs on the CPU",
        unless=_OLLAMA_GPU_UNSUPPORTED, within=IN_CONTAINER),
    # ollama (0.1.x to 0.3.x) starting its model's runner from a CPU library (`msg="starting llama server"
    # cmd=".../runners/cpu_avx2/ollama_llama_server ...`, ollama/ollama#2809, corpus 1622; Windows'
    # `ollama_runners\\cpu_avx2\\ollama_llama_server.exe`): the model runs on the CPU, for no GPU its discovery
    # could use or for a choice (OLLAMA_LLM_LIBRARY=cpu, num_gpu 0) the line does not tell apart. A GPU request shown
    # for its container is then no proof the GPU reached it (`doubts`); the line alone proves no failure.
    # Releases before 0.1.29 said it in their own words: `llm.go:70: GPU not available, falling back to CPU` (0.1.20,
    # ollama/ollama#1941), `llama.go:390: skipping accelerated runner because num_gpu=0` (0.1.1x, #1317), and the
    # library they load (`dyn_ext_server.go:90: Loading Dynamic llm server: /tmp/ollama1/cpu_avx2/libext_server.so`).
    Symptom("ollama-cpu-runner", re.compile(r'msg="starting llama server" cmd="?\S*?runners[/\\]+cpu(?:_\w+)?[/\\]+'
                                            r"ollama_llama_server\b|\bGPU not available, falling back to CPU\b|"
                                            r"\bskipping accelerated runner because num_gpu=0\b|"
                                            r"Loading Dynamic llm server: \S*?[/\\]cpu(?:_\w+)?[/\\](?:lib)?ext_server\."),
        "", "medium", OLLAMA_LLM_LIBRARIES,
        "ollama started the model's runner from its CPU library: the model runs on the CPU, not the GPU",
        doubts=("CTR-GPU-ACCESS",),
        doubted="a runner built for the CPU is what ollama starts where its discovery found no GPU it can use (a "
                "container not given the GPU, a driver its CUDA library cannot load) or where it was told to "
                "(OLLAMA_LLM_LIBRARY=cpu, num_gpu 0): whether the GPU reached the container is what the line leaves "
                "open",
        doubt_hint="paste ollama's GPU discovery lines (its start-up log with OLLAMA_DEBUG=1) and `docker exec <name> "
                   "nvidia-smi`"),
    # Triton's CUDA memory manager sets a pool up on each GPU it supports (cudaGetDeviceCount, then the compute
    # capability floor `--min-supported-compute-capability`, core's cuda_memory_manager.cc) and says `CUDA memory
    # pool disabled` where it set up none: no GPU CUDA reached (server#2877, #6325: no driver in the container) or
    # none it supports (server#3358, corpus 1925: a Maxwell M60 under a CUDA 11 build, its models on `CPU device 0`),
    # or a pool size of 0 asked for. The line does not tell those apart, so a GPU request shown for its container
    # is no proof the GPU reached it (`doubts`); the line alone proves no failure.
    Symptom("triton-cuda-pool-disabled", re.compile(r"\bcuda_memory_manager\.cc:\d+\] CUDA memory pool disabled\b"),
        "", "medium", "https://github.com/triton-inference-server/core/blob/main/src/cuda_memory_manager.cc",
        "Triton set up no CUDA memory pool: it found no GPU it can use (or was given a pool size of 0)",
        doubts=("CTR-GPU-ACCESS",),
        doubted="Triton sets no pool up where CUDA reaches no GPU in its container and where the GPU it reaches is "
                "below its compute-capability floor: whether the GPU reached the container is what the line leaves "
                "open",
        doubt_hint="paste `docker exec <name> nvidia-smi` and Triton's start-up log with --log-verbose=1"),
    # A program's failure to initialise NVML with no cause after it (`Error: Failed to initialize NVML`, dcgm-exporter
    # 3.x's fatal start, NVIDIA/dcgm-exporter#234, corpus 2413; its own rows name the causes a cause names). NVML
    # fails so in a container the driver's library did not reach, and on a Jetson before Thor, whose integrated GPU
    # has no NVML on any path: a GPU request shown for its container is no proof the GPU reached it (`doubts`).
    Symptom("nvml-init-failed-unsaid", re.compile(r"(?:^|\bError:\s{1,4})Failed to initialize NVML\s{0,8}$"),
        "", "medium", "https://docs.nvidia.com/deploy/nvml-api/group__nvmlInitializationAndCleanup.html",
        "the program could not initialise NVML, for a cause its line does not give",
        doubts=("CTR-GPU-ACCESS",),
        doubted="NVML fails so where the driver's library did not reach a container and on a board whose GPU has no "
                "NVML (a Jetson's): whether the GPU reached the container is what the line leaves open",
        doubt_hint="paste `docker exec <name> nvidia-smi` (or a CUDA sample run in the container)"),
    # LocalAI's answer where a model's backend process died as it loaded the model: the gRPC call to it found the
    # connection closed (`could not load model: rpc error: code = Unavailable desc = error reading from server: EOF`,
    # mudler/LocalAI#10625, corpus 2421; #4199). The backend dies so in CUDA's start (a driver older than the image's
    # CUDA, no GPU handed in) and for a model or build it cannot load alike, before any CUDA work the line shows: a GPU
    # request shown for its container is no proof the GPU reached it (`doubts`).
    Symptom("localai-backend-died-on-load", re.compile(r"\bcould not load model: rpc error: code = Unavailable desc = "
                                                       r"error reading from server: EOF\b"),
        "", "medium", "https://localai.io/faq/",
        "LocalAI's backend process died as it loaded the model (its gRPC connection closed), before any CUDA work the "
        "paste shows",
        doubts=("CTR-GPU-ACCESS",),
        doubted="a backend dies so in CUDA's start (no GPU handed in, a driver older than the image's CUDA) and on a "
                "model it cannot load alike: whether the GPU reached the container is what the line leaves open",
        doubt_hint="paste the backend's own log (LocalAI started with --debug) and `docker exec <name> nvidia-smi`"),
    # CUDA finds no GPU at all (cudaErrorNoDevice, 100: "no CUDA-capable device is detected") in a container the
    # source shows: the runtime did not hand the container the GPU device nodes or the driver's libraries (the GPU
    # Operator's CUDA validator pod, NVIDIA/gpu-operator#1900, corpus 1172). On a bare host the same words are a
    # driver that is not loaded, another fault: only in a container.
    Symptom("cuda-no-device-in-container", CUDA_NO_DEVICE,
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "CUDA in the container found no GPU (cudaErrorNoDevice, 100): the container runtime did not hand it the GPU "
        "device nodes and the driver's libraries", within=IN_CONTAINER),
    # CUDA's client failing to reach an MPS daemon (cudaErrorMpsConnectionFailed, 805: "MPS client failed to connect to
    # the MPS control daemon or the MPS server") in a container given GPUs: CUDA there found the host's MPS set up for
    # the GPU but cannot talk to it, since MPS needs the container to share the daemon's pipe directory
    # (CUDA_MPS_PIPE_DIRECTORY, /tmp/nvidia-mps) and its IPC namespace (`--ipc=host`) (the MPS guide's "Containers";
    # corpus 2730: `--ipc=true`, no such mode, and no pipe mounted). On a bare host the same words are the daemon's or
    # its server's own failure, another fault: only in a container given GPUs.
    Symptom("mps-unreached-in-container", re.compile(r"MPS client failed to connect to the MPS control daemon|"
                                                     r"\bcudaErrorMpsConnectionFailed\b|"
                                                     r"\bCUDA_ERROR_MPS_CONNECTION_FAILED\b"),
        "CTR-GPU-ACCESS", "high", MPS_GUIDE,
        "CUDA in the container cannot connect to the host's MPS control daemon or server (cudaErrorMpsConnectionFailed, "
        "805): the container is given the GPU but not what an MPS client needs, the daemon's pipe directory mounted "
        "(CUDA_MPS_PIPE_DIRECTORY) and the host's IPC namespace (`--ipc=host`), so no CUDA call starts there",
        within=IN_GPU_CONTAINER,
        own_fix="Run the container with `--ipc=host` and the MPS pipe directory mounted "
                "(`-v /tmp/nvidia-mps:/tmp/nvidia-mps`), or stop MPS on the host where the GPU is not meant to be shared",
        own_takes="recreate the container with both"),
    # CUDA's first call failing with CUDA_ERROR_UNKNOWN (999; cudaErrorUnknown, 30 before CUDA 10) in a container
    # that was given GPUs (NVML's "Unknown Error" above is NVIDIA's documented container failure; CUDA's is common on
    # bare hosts too, after a suspend, so it needs the container shown): the driver's device nodes are there to the container's eye but CUDA cannot open them, a
    # missing or stale /dev/nvidia-uvm (the host's nvidia_uvm loaded after the container started) or the device
    # cgroup losing the GPUs (NVIDIA/nvidia-container-toolkit#1743, ollama/ollama#15400: regenerating the CDI spec
    # fixed it). llama.cpp / ollama `ggml_cuda_init`, PyTorch's `CUDA initialization: CUDA unknown error`, the
    # driver API's `cuInit(0) failed -> CUDA_ERROR_UNKNOWN`, old PyTorch's `cuda runtime error (30) : unknown error`,
    # the CUDA samples' deviceQuery `cudaGetDeviceCount returned 30` over `-> unknown error` (canonical/lxd#5618, an
    # LXD container without /dev/nvidia-uvm, corpus 2499; 999 from CUDA 10).
    Symptom("cuda-init-unknown-error", re.compile(
        r"failed to initialize CUDA: unknown error|CUDA initialization: CUDA unknown error|"
        r"\bcudaGetDeviceCount returned (?:30|999)\b|"
        r"cuInit\(0\) failed\W+CUDA_ERROR_UNKNOWN|failed call to cuInit: CUDA_ERROR_UNKNOWN|"
        r"cuda runtime error \(30\) : unknown error"),
        "CTR-GPU-ACCESS", "high", CTK_TROUBLESHOOTING,
        "CUDA could not initialise in a container that was given GPUs (unknown error, 999): its /dev/nvidia-uvm is "
        "missing or stale, or its device cgroup lost the GPUs, so the work runs on the CPU or not at all",
        within=IN_GPU_CONTAINER),
    # cudaErrorOperatingSystem (304, CUDA_ERROR_OPERATING_SYSTEM: "an OS call failed", CUDA_ERRORS): torch's
    # `Unexpected error from cudaGetDeviceCount() ... Error 304: OS call failed or operation not supported on this OS`
    # (kvcache-ai/ktransformers#522, corpus 984, retyped from a screenshot with `0S`), ggml's `CUDA error 304 at
    # .../ggml-cuda.cu:5065: OS call failed ...` (abetlen/llama-cpp-python#645: gone with `--security-opt
    # seccomp=unconfined`), onnxruntime's `CUDA failure 304: OS call failed ...` (microsoft/onnxruntime#20421). In a
    # container given GPUs it is the driver stack failing there: a seccomp profile refusing a call the driver makes,
    # libraries the runtime injected that do not match the host's driver, a Docker Desktop host without GPU support.
    Symptom("cuda-init-os-call", re.compile(r"\b(?:[Ee]rror|failure) 304\b.{0,200}?[O0]S call failed|"
                                            r"cudaErrorOperatingSystem|CUDA_ERROR_OPERATING_SYSTEM"),
        "CTR-GPU-ACCESS", "high", CUDA_ERRORS,
        "CUDA could not initialise in a container that was given GPUs: an OS call of the driver stack failed there "
        "(error 304), so the GPUs it asked for are not usable (a seccomp profile that refuses the driver's call, or "
        "driver libraries the container runtime injected that do not match the host's driver)",
        within=IN_GPU_CONTAINER),
    # The kernel names the faulting device by its driver: `nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT`.
    Symptom("iommu-fault-nvidia", re.compile(rf"\bnvidia {BDF}: AMD-Vi: Event logged \[IO_PAGE_FAULT"),
        "FW-IOMMU-MODE", "high", AMD_IOMMU_SOURCE,
        "the IOMMU translates an NVIDIA GPU's DMA and refused an address (an I/O page fault): the GPU's access was "
        "dropped"),
    # RCCL reads /proc/cmdline at start-up and warns where `iommu=pt` is not on it (rccl src/init.cc; not under Hyper-V).
    # A user's words that the IOMMU is off rule it out (checks/fw.py: the warning reads only the command line).
    Symptom("rccl-iommu-pt-missing", re.compile(r'Missing "iommu=pt" from kernel command line'),
        "FW-IOMMU-MODE", "medium", ROCM_MULTI_GPU_FAQ,
        "RCCL read the kernel command line and found no `iommu=pt`: with the IOMMU on, it translates the GPUs' DMA and "
        "their peer traffic, which ROCm documents as a cause of hangs on multi-GPU hosts", looks_only=IOMMU_SAID_OFF),
    # The driver could not boot the GPU's GSP firmware, so RmInitAdapter failed and the GPU is not usable
    # (NVIDIA/open-gpu-kernel-modules#1230, #1058, #789). WPR2 already up: the GPU needs a reset first. The open
    # modules of R515-R525 end a failed GSP boot (its Booter or FWSEC step) with "kgspInitRm_IMPL: cannot bootstrap"
    # (open-gpu-kernel-modules#673, corpus 1850). Hopper and later boot GSP through the FSP, and the driver gives up
    # when the FSP never releases GSP's target mask ("kgspBootstrapRiscvOSEarly_GH100: Timeout waiting for GSP target
    # mask release", kernel_gsp_gh100.c; NVIDIA/nvtrust#52, corpus 1885): the same failed boot.
    Symptom("gsp-boot-failed", re.compile(r"Cannot initialize GSP firmware RM|_kgspBootGspRm: unexpected WPR2 already up"
                                          r"|\bkgspInitRm_IMPL: cannot bootstrap"
                                          r"|\bkgspBootstrap\w*: Timeout waiting for GSP target mask release"),
        "DRV-GSP-FIRMWARE", "high", GSP_BOOT_SOURCE,
        "the driver could not boot the GPU's GSP firmware, so it did not initialise the GPU", faults_gpu=True),
    # The module finds no GSP firmware image of its own release: the image on disk is another release's (R595's
    # `_kgspFwContainerVerifyVersion: GSP firmware image version mismatch`, corpus 2465: a DKMS source of 595.58.03
    # beside 595.71.05 firmware) or none is under /lib/firmware/nvidia/<its version>/ (`RmFetchGspRmImages: No
    # firmware image found`, corpus 1505: a 570.144 module beside 570.153.02 firmware). The module and its firmware
    # ship as one release, so a half-applied update or a mismatched package leaves the GPU uninitialised.
    Symptom("gsp-firmware-not-module-release", re.compile(r"_kgspFwContainerVerifyVersion: GSP firmware image version "
                                                          r"mismatch|\bRmFetchGspRmImages: No firmware image found"),
        GSP_CHECK, "high", GSP_README,
        "the kernel module found no GSP firmware image of its own release (the firmware on disk is another driver "
        "version's, or missing), so it could not boot GSP and did not initialise the GPU", faults_gpu=True,
        own_fix="Install the kernel module and the GSP firmware of one driver release (the DKMS or kmod package and "
                "the firmware package at the same version, the module rebuilt from that release's source), then "
                "reboot; `modinfo nvidia | grep ^version` and /lib/firmware/nvidia/ show both",
        own_takes="reinstall the driver packages of one release and reboot"),
    # nvidia-installer built nvidia.ko and the kernel refused it (a host install, a GPU operator driver container):
    # its own text names the causes (kernel sources or gcc not the running kernel's, nouveau holding the GPU, a GPU
    # this release does not drive). A failed load of nvidia-drm or nvidia-uvm alone is another message.
    # GKE's driver installer on Container-Optimized OS (COS_INSTALLER_LINE) links nvidia.ko against the node's kernel
    # headers and loads it with insmod; its failure quotes the command and its exit status
    # (GoogleCloudPlatform/container-engine-accelerators#302, corpus 2395): the same refusal, its reason in the kernel log.
    Symptom("nvidia-ko-load-failed", re.compile(r"Unable to load the kernel module '?nvidia\.ko'?|"
                                                r"failed to run command `insmod [\w./-]{0,200}/nvidia\.ko`: exit status"),
        "KVER-NVIDIA-KERNEL-COMBOS", "high", NVIDIA_INSTALLER_SOURCE,
        "the driver installer built nvidia.ko but the running kernel would not load it: no working NVIDIA module "
        "for this kernel, so no GPU (the installer's log or the kernel log names the cause: kernel sources or gcc not "
        "the running kernel's, nouveau holding the GPU, or a GPU this release does not support)"),
    # modprobe's refusal of the nvidia module on disk for its format (ENOEXEC: `Exec format error`; `Invalid module
    # format`) or its symbols (`Unknown symbol in module`): the module was built for another kernel (a kernel updated
    # under a driver nobody rebuilt: no DKMS, or DKMS failed), so it cannot load into the running one
    # (DDMAL/Rodan#1170, corpus 2394). Its other refusals (`No such device`, `Required key not available`) are other
    # causes and not read here.
    Symptom("nvidia-ko-wrong-kernel", re.compile(r"\bcould not insert 'nvidia': (?:Exec format error|Invalid module "
                                                 r"format|Unknown symbol in module)"),
        "KVER-NVIDIA-KERNEL-COMBOS", "high", NVIDIA_INSTALLER_SOURCE,
        "modprobe cannot load the nvidia module on disk into the running kernel (its format or symbols are another "
        "kernel's): the module was not rebuilt for this kernel, so the GPU has no working driver and nvidia-smi "
        "reaches none (the kernel log names the version or symbol mismatch)"),
    # The kernel loader's refusal of one of the driver's own modules (nvidia, nvidia_modeset, nvidia_drm, nvidia_uvm) for
    # a symbol the running kernel does not export or exports at another version (`nvidia_drm: Unknown symbol
    # drm_client_setup (err -2)`, corpus 2467; `nvidia: disagrees about version of symbol sme_me_mask`, corpus 2468):
    # the modules were built against another kernel's headers or for a kernel API this one lacks, and do not load
    # as a set. nvidia_peermem's refusals (ib_core's symbols, PEER_MEMORY_REFUSED) are not this check's.
    Symptom("nvidia-ko-symbols", NVIDIA_KO_SYMBOLS,
        "KVER-NVIDIA-KERNEL-COMBOS", "high", NVIDIA_INSTALLER_SOURCE,
        "the running kernel refuses an NVIDIA module for a symbol it does not export or exports at another version: "
        "the modules were built for another kernel (or need a kernel API this one lacks), so they do not load as a "
        "set and the GPU has no working driver"),
    # nvidia-installer's own failure to build the module for the running kernel (its steps "Building kernel modules",
    # "Checking to see whether the nvidia kernel module was successfully built"; corpus 2473, a GCP V100 VM on 525.125
    # with --dkms): no module exists for this kernel, so none loads.
    Symptom("nvidia-ko-build-failed", re.compile(r"An error occurred while performing the step: \"(?:Building kernel "
                                                 r"modules|Checking to see whether the nvidia kernel module was "
                                                 r"successfully built)\""),
        "KVER-NVIDIA-KERNEL-COMBOS", "high", NVIDIA_INSTALLER_SOURCE,
        "the driver installer could not build the nvidia module for the running kernel (its headers, compiler or "
        "kernel API do not fit this driver release), so no module exists for this kernel and the GPU has no driver"),
    # GKE's driver installer (COS_INSTALLER_LINE), which must finish before GKE's device plugin offers the node's GPUs,
    # could not load its module or verify the installed driver (kubernetes#123491, corpus 2396): the node's GPUs are
    # not offered to any pod while it fails.
    Symptom("gke-installer-failed", re.compile(r"\b(?:failed to verify GPU driver installation: .{0,200}exit status|"
                                               r"Failed to load kernel module, err: failed to load GPU drivers)"),
        "CTR-GPU-ACCESS", "high", "https://github.com/GoogleCloudPlatform/container-engine-accelerators/issues/302",
        "GKE's driver installer could not load or verify the NVIDIA driver on the node: its device plugin waits for "
        "the installer, so while it fails no pod on the node is handed a GPU",
        own_fix="Make the installer finish: a driver version GKE supports for this node image and GPU "
                "(`gpu-driver-version`), or the node pool recreated; the installer's log and the node's `dmesg` say "
                "why the load or the check failed", own_takes="recreate the node pool or redeploy the installer"),
    # The GPU operator's driver container looks the running kernel up among its distribution's kernel-headers packages
    # (`_resolve_kernel_version` in NVIDIA/gpu-driver-container's nvidia-driver) and stops where none matches: a kernel
    # older than the repositories hold (CentOS 7.8 on 7.5's 3.10.0-862, corpus 1364; gpu-operator#155, #205) or a cloud
    # vendor's (GKE, Azure: gpu-operator#526). No driver gets built for this kernel. A package cache the pod could not
    # fetch (its DNS failing) ends in the same line: then the network, not the kernel, is the cause.
    Symptom("driver-ctr-kernel-unresolved", re.compile(r"\bCould not resolve Linux kernel version\b"),
        "KVER-NVIDIA-KERNEL-COMBOS", "high", GPU_OPERATOR_OLD_KERNELS,
        "the GPU operator's driver container found no kernel packages (kernel-headers) for the node's running kernel in "
        "its repositories (an outdated or a vendor's kernel), so it builds no NVIDIA module for this kernel and the node "
        "gets no GPU driver",
        unless=re.compile(r"Temporary failure resolving|Could not resolve host|Failed to fetch\b.*(?:resolv|connect)"),
        own_fix="Update the node to its distribution's current kernel, or give the driver container this kernel's "
                "packages (an archive repository through the operator's driver.repoConfig) or a precompiled driver",
        own_takes="update the node's kernel and reboot it, or redeploy the driver container"),
    # The same line is the driver container's last word before it exits (its script cleans up and exits 1, so the pod
    # restarts in a loop, as a listing's CrashLoopBackOff shows, facts/k8s_pods.failing_provider): the node's driver
    # is not loaded, whatever the cause, so no pod on it is given a GPU.
    Symptom("driver-ctr-exits-unresolved", re.compile(r"\bCould not resolve Linux kernel version\b"),
        "CTR-GPU-ACCESS", "high", GPU_OPERATOR_OLD_KERNELS,
        "the GPU operator's driver container stops before it installs the driver (it exits and restarts in a loop), "
        "so the node's NVIDIA driver is not loaded and no pod on it is given a GPU",
        own_fix="Make the driver container install the driver (its KVER-NVIDIA-KERNEL-COMBOS finding says how); "
                "the GPU pods then start", own_takes="redeploy the driver container"),
    # The open nvidia.ko refuses a GPU it does not drive: a GeForce / workstation GPU before R560 without
    # NVreg_OpenRmEnableUnsupportedGpus=1 (RmInitAdapter then fails), a GPU without a GSP it can use (before Turing,
    # or a newer GPU's GSP out of the driver's reach).
    Symptom("open-module-not-datacenter", re.compile(r"Open nvidia\.ko is only ready for use on Data Center GPUs"),
        "DRV-OPEN-MODULE", "high", KERNEL_OPEN_README,
        "the open kernel module refused the GPU: before R560 it drives only data-center GPUs unless "
        "NVreg_OpenRmEnableUnsupportedGpus=1 is set (or the proprietary module is installed)",
        clears=("DRV-GSP-FIRMWARE", "FW-ABOVE4G-MMIO"), cleared=_OPEN_REFUSED),
    Symptom("open-module-no-gsp", re.compile(r"installed in this system is not supported by open\b"),
        "DRV-OPEN-MODULE", "high", KERNEL_OPEN_README,
        "the open kernel module refused the GPU for want of a GSP it could use: a GPU older than Turing has none and "
        "only the proprietary module drives it; a newer one whose GSP the driver could not reach (a confidential-"
        "computing guest, corpus 624) fails the same way"),
    # The GPU's GSP stopped answering the driver: its heartbeat timed out (`_kgspIsHeartbeatTimedOut`, `GSP RM heartbeat
    # timed out`), or an RPC to it did (`_kgspLogRpcTimeout`'s "GSP Timeout" banner, the older `_kgspLogXid119` banner,
    # `rpcRecvPoll timedout`). These are the lines the driver prints with Xid 119 (GSP RPC timeout), the Xid line
    # itself often outside the excerpt (NVIDIA/open-gpu-kernel-modules#1230, #1125, #446; ublue-os/bazzite#4449).
    # The driver's GSP timeout decision tree (kernel_gsp.c) first probes the GPU's memory hardware: where it is stuck
    # (`Memory Subsystem Error detected`, the next row), the timeout is the GPU's hardware fault; else a heartbeat that
    # timed out is a "GSP heartbeat timeout", the GSP firmware's failure (corpus 1164: the GSP RM and LibOS heartbeats
    # under sustained load). So a GPU the same log shows failing (off the bus, lost, a memory-subsystem error, Xid 79)
    # times out for that reason, and the line proves no GSP failure (corpus 380), as for the GSP Xids below.
    Symptom("gsp-rpc-timeout", re.compile(r"_kgspIsHeartbeatTimedOut: Heartbeat timed out|GSP RM heartbeat timed out|"
                                          r"_kgspLogRpcTimeout: \*+ GSP Timeout|_kgspLogXid119: \*|"
                                          r"rpcRecvPoll timedout"),
        GSP_CHECK, "high", GSP_RPC_SOURCE,
        "the GPU's GSP firmware stopped answering the driver (a heartbeat or RPC timeout, the Xid 119 class): the GPU "
        "is lost until it is reset or the node rebooted", faults_gpu=True,
        unless=re.compile(rf"fallen off the bus|\[NV_ERR_GPU_IS_LOST\]|Memory Subsystem Error|{_XID_AT}79\b")),
    # Where the decision tree finds the GPU's memory hardware stuck (kgmmuCheckMemSubsysError probes it with TLB
    # invalidates and sysmembars), the timeout is Xid 175, "GSP timeout due to memory subsystem error": a GPU hardware
    # fault (corpus 380), DRV-XID's.
    Symptom("gsp-timeout-memsys-error", re.compile(r"Memory Subsystem Error detected"),
        "DRV-XID", "high", GSP_RPC_SOURCE,
        "the driver found the GPU's memory subsystem stuck when the GSP firmware timed out (the Xid 175 class): a GPU "
        "hardware fault, and the GPU is lost until it is reset or the node rebooted", faults_gpu=True),
    # Timeouts back to back: the driver gives up on the GSP firmware and marks the GPU for reset (`Back to back GSP
    # RPC timeout detected! GPU marked for reset`, kernel_gsp.c; NVIDIA/open-gpu-kernel-modules#446): the GSP
    # firmware's failure. These GSP rows are DRV-GSP-FIRMWARE's findings (one log line, one finding); DRV-XID still
    # judges their Xid lines by class and its own lines (a memory-subsystem error, a reset-required status) as GPU
    # faults.
    Symptom("gsp-marked-for-reset", re.compile(r"Back to back GSP RPC timeout detected"),
        GSP_CHECK, "high", XID_CATALOGUE,
        "the driver saw GSP RPC timeouts back to back and marked the GPU for reset: the GPU's GSP firmware no longer "
        "answers, and the GPU is lost until it is reset or the node rebooted", faults_gpu=True),
    # The GSP firmware crashed: the driver's health check prints its CrashCat report (`kgspHealthCheck_TU102:
    # *** GSP-CrashCat Report ***`) with Xid 120, "GSP error" in the catalogue (NVIDIA/open-gpu-kernel-modules#829).
    # The Xid 120 line itself is the next row's.
    Symptom("gsp-crash", re.compile(r"GSP-CrashCat Report"),
        GSP_CHECK, "high", XID_CATALOGUE,
        "the GPU's GSP firmware crashed (a GSP-CrashCat report, the Xid 120 class): the GPU is lost until it is reset "
        "or the node rebooted", faults_gpu=True),
    # The driver's GSP Xids: 119, an RPC to the GSP firmware timed out (`Timeout after 45s of waiting for RPC response
    # from GPU0 GSP!`, older `Timeout waiting for RPC from GSP!`), and 120, the GSP firmware's own error. The Xid line
    # is the GSP failure itself, not a sign that GSP runs (NVIDIA/open-gpu-kernel-modules#1111 and #446; corpus 121,
    # 233 and 804). A GPU the same log shows failing under its firmware (off the bus, lost, a memory-subsystem error:
    # corpus 380) times out for that reason: then the line proves no GSP failure. DRV-XID judges the Xid by its class
    # where it has no Xid of its own (one log line, one finding).
    Symptom("gsp-xid", re.compile(rf"{_XID_AT}(?:119|120)\b"),
        GSP_CHECK, "high", XID_CATALOGUE,
        "the driver logged a GSP Xid (119: an RPC to the GPU's GSP firmware timed out; 120: an error in the GSP "
        "firmware): the GSP firmware failed", faults_gpu=True,
        unless=re.compile(rf"fallen off the bus|\[NV_ERR_GPU_IS_LOST\]|Memory Subsystem Error|{_XID_AT}79\b")),
    # The driver dumps its GSP RPC history (`GPU3 RPC history (CPU -> GSP):`, `RPC event history (CPU <- GSP):`, the
    # `GSP RPC buffer contains function` line, and rows `-3  76  GSP_RM_CONTROL  4124 0x… 0x… 0x… 0x…  94us`) only
    # in kgspLogRpcDebugInfo (kernel_gsp.c), called on an RPC timeout (Xid 119) and on a failed GSP health check
    # (Xid 120): the dump is the GSP failure even where the excerpt holds neither its banner nor its Xid line
    # (NVIDIA/open-gpu-kernel-modules#942 and #446, #1230, #659). A slow RPC's warning is no dump: no match.
    Symptom("gsp-rpc-history-dump", re.compile(
        r"\bRPC (?:event )?history \(CPU (?:->|<-) GSP\)|\bGSP RPC buffer contains function\b|"
        r"NVRM:\s+-?\d+\s+\d+\s+[A-Z][A-Z0-9_]*\s+(?:\d+\s+)?0x[0-9a-f]{16}\s+0x[0-9a-f]{16}\s+0x[0-9a-f]{16}\b"),
        GSP_CHECK, "high", GSP_RPC_SOURCE,
        "the driver dumped the GPU's GSP RPC history, which it prints only when an RPC to the GSP firmware timed "
        "out (Xid 119) or the GSP failed its health check (Xid 120): the GPU is lost until it is reset or the node "
        "rebooted", faults_gpu=True),
    # A call the driver forwards to the GSP firmware returned NV_ERR_RESET_REQUIRED (0x62): `rpcRmApiAlloc_GSP:
    # GspRmAlloc failed: ... status=0x00000062` (scitix/sichek#51). Other statuses of these calls are the call's
    # own refusal (0x56 NV_ERR_NOT_SUPPORTED is common and harmless): no match.
    Symptom("gsp-rpc-reset-required", re.compile(r"rpcRmApi\w*_GSP: \w+ failed:.*\bstatus=0x0*62\b"),
        GSP_CHECK, "high", NV_STATUS_CODES,
        "a call to the GPU's GSP firmware failed with NV_ERR_RESET_REQUIRED (0x62): the GSP firmware is in a state only "
        "a GPU reset clears", faults_gpu=True),
    # A call inside the driver returned a status that says the GPU is gone or must be reset: the driver prints it
    # as `words [NAME] (0x…)` after a failed check (`nvCheckOkFailedNoLog: Check failed: Reset required
    # [NV_ERR_RESET_REQUIRED] (0x00000062) returned from …`, `GPU lost from the bus [NV_ERR_GPU_IS_LOST]`), often
    # with no Xid line in the excerpt (NVIDIA/open-gpu-kernel-modules#1045, #688; openwall/john#5835). The name in
    # an assertion's expression (`(status == NV_ERR_GPU_IN_FULLCHIP_RESET)`) is no returned status: no match.
    Symptom("gpu-reset-status", re.compile(r"\[NV_ERR_(?:RESET_REQUIRED|GPU_IS_LOST)\]"),
        "DRV-XID", "high", NV_STATUS_CODES,
        "the driver's own calls to the GPU fail with a status that says it must be reset (NV_ERR_RESET_REQUIRED) or "
        "is lost from the bus (NV_ERR_GPU_IS_LOST): the GPU does not work until it is reset or the node rebooted",
        faults_gpu=True),
    # The driver could not initialise a GPU (`NVRM: GPU 0000:04:01.0: RmInitAdapter failed! (0x11:0x45:2525)`), with
    # no line naming why: the class of "probe routine failed", a GPU the driver never brings up, so CUDA has no device
    # (NVIDIA/gpu-operator#649 on every GPU every 5 s, #1146 on one GPU of six; before R470 the line named no GPU,
    # Bumblebee-Project/Bumblebee#722). A line that names the cause makes it that cause's finding: the GSP
    # firmware's boot or its image of another release (DRV-GSP-FIRMWARE), the open module refusing the GPU
    # (DRV-OPEN-MODULE), a BAR without space (FW-ABOVE4G-MMIO). `osInitNvMapping: *** Cannot attach gpu` names no
    # cause: the driver cannot map a GPU it lost, which is this finding (corpus 146 and 657, both GPUs that fell
    # off the bus).
    Symptom("gpu-init-failed", re.compile(r"NVRM: (?:GPU [0-9a-fA-F:.]+: )?RmInitAdapter failed!"),
        "DRV-XID", "high", GSP_BOOT_SOURCE,
        "the driver failed to initialise the GPU (RmInitAdapter failed), so CUDA could not use it",
        unless=re.compile(r"Cannot initialize GSP firmware RM|_kgspBootGspRm|GFW_BOOT|Open nvidia\.ko is only ready|"
                          r"GSP firmware image version mismatch|RmFetchGspRmImages: No firmware image found|"
                          r"not supported by open\b|fallen off the bus|"
                          r"region assigned to your NVIDIA device is invalid|BAR\d* is 0M"),
        faults_gpu=True),
    # An application-class Xid (13/31/43) names the process it killed: where that is the serving or training
    # stack's own, the run died on the GPU (an illegal address or instruction), whatever the cause. The catalogue
    # sends it to the program first (its kernels, its version) and to the GPU only when faults repeat on it
    # (NVIDIA/NVSentinel#271 quotes its resolution); a game's or a desktop program's fault is no finding here.
    # vLLM's is_pin_memory_available() logs this on WSL and allocates its host buffers pageable (vllm-project/vllm#312;
    # from #41496 on the line adds "and pin_memory allocation failed").
    # A copy cut inside the last word (`... as WSL is dete`, corpus 2703) is the same line.
    Symptom("vllm-wsl-no-pin", re.compile(r"Using 'pin_memory=False' as WSL is d"),
        "MEM-PINNED-HOST", "medium", WSL_PINNED_DOC,
        "vLLM detected WSL and runs without pinned host memory: host-GPU copies are staged and synchronous"),
    # vLLM's CPU platform logs this from its is_pin_memory_available() (vllm/platforms/cpu.py): the engine runs on the
    # host's CPUs, where no copy between host and GPU waits on pinning (corpus 1521).
    Symptom("vllm-cpu-no-pin", re.compile(r"\bPin memory is not supported on CPU\b"),
        "", "low", "https://github.com/vllm-project/vllm/blob/main/vllm/platforms/cpu.py",
        "vLLM runs on its CPU platform, which pins no host memory",
        clears=("MEM-PINNED-HOST",),
        cleared="vLLM's CPU platform logs it: the engine runs on the host's CPUs, so no copy between host and GPU "
                "waits on pinned memory"),
    # A host allocation of pinned (page-locked) memory refused: ggml's CUDA backend (llama.cpp, ollama, LocalAI,
    # koboldcpp; ggml_cuda_host_malloc) prints `WARNING: failed to allocate 1024.00 MB of pinned memory: out of memory`
    # and falls back to pageable memory (ggml-org/llama.cpp#1233, ollama/ollama#1955 "causes inference to get slower",
    # mudler/LocalAI#1030, corpus 1334); TensorFlow's host allocator `could not allocate pinned host memory of size:
    # 34359738368` (talmolab/sleap#2001, minimaxir/gpt-2-simple#232 on WSL 2). The host's page-locked memory is
    # exhausted or capped (WSL, a VM, a memlock limit): transfers between host and GPU are staged and synchronous.
    # A refusal whose reason is CUDA's own start error is not this one (pinned-alloc-cuda-unstarted).
    Symptom("pinned-alloc-failed", re.compile(r"failed to allocate [\d.]+ [KMG]i?B of pinned memory\b(?!: "
                                              + CUDA_START_ERRORS + ")|"
                                              r"could not allocate pinned host memory of size:? \d+"),
        "MEM-PINNED-HOST", "medium", "https://github.com/ggml-org/llama.cpp/pull/1233",
        "the program could not allocate pinned (page-locked) host memory and falls back to pageable memory: copies "
        "between host and GPU are staged and synchronous, which slows every layer the GPU does not hold; free host "
        "memory or give the VM / WSL more, and raise the memlock limit, so that it can pin its buffers",
        own_fix="Free host memory (or give the VM / WSL more) and raise the memlock limit, so that the program can "
                "pin its buffers"),
    # A pinned allocation refused because CUDA itself could not start: Triton's pinned memory manager (`Unable to
    # allocate pinned system memory, pinned memory pool will not be available: CUDA driver version is insufficient for
    # CUDA runtime version`, corpus 1639), ggml's `failed to allocate 2560.00 MiB of pinned memory: system has
    # unsupported display driver / cuda driver combination` (ollama/ollama#5517). The error is CUDA's start (35, 803,
    # 804, 802, 100), which other symptoms name; the host's page-locked memory was never asked.
    Symptom("pinned-alloc-cuda-unstarted", PINNED_CUDA_UNSTARTED,
        "", "low", "https://github.com/triton-inference-server/core/blob/main/src/pinned_memory_manager.cc",
        "the program's pinned (page-locked) host allocation failed with CUDA's own start error",
        clears=("MEM-PINNED-HOST",),
        cleared="CUDA could not start, so the pinned allocation failed for the driver, not for lack of page-locked "
                "host memory"),
    # CUDA_ERROR_UNKNOWN (999) from a call in the middle of a run, after the context had worked: ggml's CUDA_CHECK block
    # (`CUDA error: unknown error` / `current device: 0, in function ggml_backend_cuda_get_tensor_async at ...`,
    # ollama/ollama#3097 after 10-15 minutes, corpus 1324; ggml-org/llama.cpp#25721 in ggml_cuda_compute_forward),
    # torch's `RuntimeError: CUDA error: unknown error` (deepspeedai/DeepSpeed#5482 after hours on A100s, with
    # nvidia-smi's `Unable to determine the device handle ... Unknown Error` after it). The driver lost the GPU or the
    # context: what it logged (an Xid 79 or 31, a PCIe error) or how the GPU ran (heat, power) says why, and the line
    # does not (torch/cutorch#197, the maintainer: "something weird at the driver level, or the GPU is bad. Is the GPU
    # overheating?"). It proves no check's failure; the checks that would name the cause quote it. CUDA's failure to
    # initialise with the same words is another fault (cuda-init-unknown-error).
    Symptom("cuda-unknown-error-mid-run", re.compile(r"\bCUDA error: unknown error\b"),
        "", "high", CUDA_ERRORS,
        "a CUDA call failed with `unknown error` (CUDA_ERROR_UNKNOWN, 999) in the middle of the run: the GPU stopped "
        "answering or the driver dropped the context",
        suspects=("DRV-XID", "FW-AER-ERRORS", "PWR-CLOCK-EVENTS")),
    # nvidia-smi's line for a GPU NVML cannot open with `Unknown Error` or `GPU is lost`, quoted in the user's words
    # (`it will cause an issue "Unable to determine the device handle for GPU0000:17:00.0: Unknown Error" when I use
    # nvidia-smi`, corpus 2857; the line on its own is nvidia-smi's output, importers/nvidia_smi.py): the driver lost
    # the GPU or it stopped answering. What it logged (an Xid 79, a PCIe error) says why, and the line does not.
    Symptom("nvidia-smi-gpu-unopened-stated", NVSMI_GPU_UNOPENED,
        "", "high", "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html",
        "nvidia-smi cannot open the GPU (NVML's `Unknown Error` or `GPU is lost`): the driver lost it or it stopped "
        "answering",
        suspects=("DRV-XID", "FW-AER-ERRORS")),
    # DCGM's diagnostic writes this Info row when a GPU runs without persistence mode (its Deployment tests).
    # UCX (under NCCL's and MPI's RDMA transports) names the memlock limit that stopped it registering memory
    # (src/uct/ib/base/ib_md.c): "... max locked memory limit (64 kbytes) is too low. Please set max locked memory
    # (ulimit -l) to 'unlimited'", and after a failed registration "(current: 8192 kbytes)".
    Symptom("ucx-memlock", re.compile(r"Please set max locked memory \(ulimit -l\) to 'unlimited'"),
        "CTR-MEMLOCK", "high", UCX_MEMLOCK_SRC,
        "UCX found the locked-memory limit too low to register memory for RDMA: raise memlock to unlimited"),
    # The kernel's line for a process killed by a segfault names its command cut to 15 characters
    # (`nvidia-persiste[827]: segfault at 44 ... in libnvidia-cfg.so.550.54.15`, NVIDIA/nvtrust#58), systemd-coredump
    # its `Process 827 (nvidia-persiste) of user 0 dumped core`: the persistence daemon died, so it holds no GPU.
    Symptom("persistenced-crashed", re.compile(r"\bnvidia-persiste(?:nced)?\[\d+\]: segfault at\b|"
                                               r"\(nvidia-persiste(?:nced)?\) of user \d+ (?:dumped core|terminated "
                                               r"abnormally)"),
        "DRV-PERSISTENCE", "low", PERSISTENCED_DOC,
        "nvidia-persistenced crashed (a segmentation fault), so no persistence daemon keeps the GPUs initialised"),
    Symptom("dcgm-persistence-off", re.compile(r"Persistence mode for GPU \d+ is disabled"),
        "DRV-PERSISTENCE", "low", DCGM_DIAG_DOC, "DCGM's diagnostic found a GPU with persistence mode disabled"),
    # torch/cuda/__init__.py's _check_capability warns where a GPU's compute capability is in none of the build's
    # arch families (`... with CUDA capability sm_120 is not compatible with the current PyTorch installation.`), then
    # CUDA kernels fail with "no kernel image is available" (pytorch/pytorch#150733, vllm-project/vllm#21633). The
    # sentence names the warning up to `the current PyTorch`, where a paste may cut it (corpus 2260: `... PyTorch ins`).
    Symptom("torch-arch-missing", re.compile(r"with CUDA capability sm_\d+ is not compatible with the current "
                                             r"PyTorch\b"),
        "RT-TORCH-ARCH", "high", TORCH_CAPABILITY_SOURCE,
        "PyTorch found a GPU whose compute capability its build has no kernels for"),
    # A kernel launch that the GPU has no code for (NO_KERNEL_IMAGE), alone in a paste or in an engine's log (vllm#18995
    # on an RTX 5090; dphnAI/sonar#49; Comfy-Org/ComfyUI#10326): the build was not compiled for this GPU.
    # Under ggml's CUDA backend (ollama 0.11 on a GTX 1080, ollama/ollama#12316: `ggml_cuda_compute_forward: SCALE
    # failed` over `CUDA error: no kernel image is available for execution on the device`; a Quadro P2000,
    # ollama/ollama#12341) the kernel is the engine's own: RT-KERNEL-ARCH's (`ggml_check`), no torch in the process.
    Symptom("cuda-no-kernel-image", NO_KERNEL_IMAGE,
        "RT-TORCH-ARCH", "high", CUDA_ERRORS,
        "CUDA found no kernel image for this GPU (cudaErrorNoKernelImageForDevice): the build that launched the "
        "kernel (torch, the engine's own ops or a kernel library) was not compiled for the GPU's compute capability",
        ggml_check="RT-KERNEL-ARCH"),
    # ggml's CUDA_CHECK block (ggml-cuda.cu, ggml_cuda_error): the operation whose kernel failed (`ggml_cuda_compute_forward:
    # SCALE failed`) and where (`current device: 0, in function ggml_cuda_compute_forward at .../ggml-cuda.cu:2568`),
    # around the CUDA error's own line (ollama/ollama#12316, #6997; canonical/inference-snaps#255, corpus 961). It proves
    # no check's failure; it shows the failing call was ggml's (GGML_SYMPTOMS), which the error line under it does not.
    Symptom("ggml-cuda-op-failed", GGML_CUDA_FAILED,
        "", "low", GGML_CUDA_SOURCE,
        "ggml's CUDA backend stopped on a failed CUDA call (its CUDA_CHECK block names the operation and the function)"),
    # A kernel library that refuses the GPU's architecture at the call (KERNEL_ARCH_REFUSED: DeepGEMM on SM120, on
    # A100; its dispatch table without the GPU's target, `KeyError: '120a'`): the engine path that calls it fails.
    Symptom("kernel-arch-refused", KERNEL_ARCH_REFUSED,
        "RT-KERNEL-ARCH", "high", DEEPGEMM_ARCH_SOURCE,
        "a kernel library (DeepGEMM) has no kernel for this GPU's architecture (it dispatches for SM90 and SM100 "
        "only), so the engine path that calls it fails"),
    # An engine's own words that it falls back from its fast path because a GPU it sees is of too old an architecture:
    # tabbyAPI (exllamav2 backend) checks every visible GPU for flash-attention 2 (Ampere, sm_80, or newer) and, where
    # one is older, warns `An unsupported GPU is found in this configuration. Switching to compatibility mode.` and
    # `This disables parallel batching and features that rely on it (ex. CFG).` (backends/exllamav2/model.py;
    # theroyallab/tabbyAPI#296, corpus 2495: a Tesla P40 beside an RTX 3090). The slow path holds for every GPU, the
    # new one too; hiding the old GPU from the engine (CUDA_VISIBLE_DEVICES) restores it.
    Symptom("engine-old-arch-fallback",
        re.compile(r"\bunsupported GPU is found in this configuration\. Switching to compatibility mode"),
        "RT-KERNEL-ARCH", "medium", "https://github.com/theroyallab/tabbyAPI/issues/296",
        "the engine found a GPU older than its fast kernels need (flash-attention 2: Ampere or newer) and switched "
        "every GPU to its compatibility mode, without parallel batching",
        own_fix="Hide the pre-Ampere GPU from the engine (CUDA_VISIBLE_DEVICES or tabbyAPI's gpu_split with "
                "CUDA_DEVICE_ORDER=PCI_BUS_ID), or serve from Ampere or newer GPUs only",
        own_takes="restart the engine"),
    # The same refusal in other engines' and kernel libraries' own words: the GPU's architecture is below the floor of
    # what the engine runs, so the path stops (or leaves the GPU out). torch inductor's Triton backend
    # (torch/_inductor/scheduler.py: `Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU
    # compiler ... Triton only supports devices of CUDA Capability >= 7.0`; sasha0552/pascal-pkgs-ci#5, corpus 2552).
    Symptom("triton-arch-too-old",
        re.compile(r"\bwhich is too old to be supported by the triton GPU compiler|\bTriton only supports devices of "
                   r"CUDA Capability >= \d"),
        "RT-KERNEL-ARCH", "high", "https://github.com/pytorch/pytorch/blob/main/torch/_inductor/scheduler.py",
        "the engine's compiled path (torch inductor over Triton) refused the GPU: Triton generates no code for a "
        "compute capability below 7.0, so the engine cannot run its compiled kernels there",
        own_fix="Run a build of the engine that keeps the GPU's architecture (a Pascal build with a patched Triton) or "
                "turn the compiled path off where the engine allows it; else serve from a GPU of compute capability "
                "7.0 or newer",
        own_takes="restart the engine"),
    # flash-attn 2's own check (`RuntimeError: FlashAttention only supports Ampere GPUs or newer.`), raised by every
    # engine that calls it on a pre-Ampere GPU: TGI 2.2.0 on a T4 (huggingface/text-generation-inference#2456, corpus
    # 2557), flashinfer's prefill on sm_75 (flashinfer-ai/flashinfer#421).
    Symptom("flash-attn-ampere-only", re.compile(r"\bFlashAttention only supports Ampere GPUs or newer"),
        "RT-KERNEL-ARCH", "high", "https://github.com/huggingface/text-generation-inference/issues/2456",
        "flash-attention 2 refused the GPU: it runs on Ampere (compute capability 8.0) or newer only, so the engine's "
        "attention path stops on this GPU",
        own_fix="Turn the engine's flash-attention path off for this GPU (TGI: USE_FLASH_ATTENTION=false; another "
                "engine: its attention backend for GPUs before Ampere) with a model the fallback path serves, or serve from Ampere "
                "or newer GPUs",
        own_takes="restart the engine"),
    # ollama before 0.1.2x's CUDA floor (gpu/gpu.go: `CUDA GPU is too old. Falling back to CPU mode. Compute Capability
    # detected: 5.2`; ollama/ollama#1992, corpus 2554 on a GTX 970): the GPU is left out, the model runs on the CPU.
    Symptom("ollama-cuda-too-old", re.compile(r"\bCUDA GPU is too old\. Falling back to CPU mode"),
        "RT-KERNEL-ARCH", "high", "https://github.com/ollama/ollama/issues/1992",
        "ollama left the GPU out: its CUDA build does not run this compute capability, so every layer runs on the CPU",
        own_fix="Run an ollama release (or a build with CMAKE_CUDA_ARCHITECTURES) that carries the GPU's compute "
                "capability, or serve from a newer GPU",
        own_takes="install that release, then restart the ollama service"),
    # vLLM's dtype check (`Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla
    # V100-PCIE-32GB GPU has compute capability 7.0.`, zai-org/GLM-4#510): no bf16 arithmetic below Ampere.
    Symptom("bf16-capability-refused",
        re.compile(r"\bBfloat16 is only supported on GPUs with compute capability of at least \d"),
        "RT-KERNEL-ARCH", "high", "https://github.com/zai-org/GLM-4/issues/510",
        "the engine refused bfloat16 on this GPU: below compute capability 8.0 the GPU has no bfloat16 arithmetic, "
        "so the model cannot run in that dtype there",
        own_fix="Start the engine with float16 (vLLM: --dtype half / dtype='float16')",
        own_takes="restart the engine"),
    # A quantised format's kernel refused for the GPU's compute capability, in the words of the program that checks it
    # (QUANT_ARCH_REFUSED): the checkpoint's format has no kernel this GPU runs in that release, so the model does
    # not load (or the engine does not build) on it.
    Symptom("quant-arch-refused", QUANT_ARCH_REFUSED,
        "RT-KERNEL-ARCH", "high", QUANT_ARCH_SOURCE,
        "the engine refused the checkpoint's quantised format on this GPU: the kernel that format needs (FP8 tensor "
        "cores from compute capability 8.9, TensorRT-LLM's FP8 context FMHA from Hopper in the release that says so, "
        "or the floor vLLM's quantisation method names) does not run on this architecture, so the model does not load "
        "or the engine does not build there",
        own_fix="Serve a checkpoint in a format this GPU's kernels run (FP16/BF16, or INT4 AWQ/GPTQ on compute "
                "capability 8.0 and newer), build without the flag the refusal names (TensorRT-LLM: "
                "--use_fp8_context_fmha), or run an engine release with a weight-only path for this architecture; "
                "else serve from a GPU of the capability the refusal needs",
        own_takes="restart the engine (rebuild a TensorRT-LLM engine)", on_judged=True),
    # xformers' cutlass kernels refusing a GPU below their floor (`RuntimeError: Your device is too old. We require
    # compute capability >= 50`, facebookresearch/xformers#685). Its dispatcher's per-operator list (`requires device with
    # capability > (8, 0) but your GPU has capability (7, 5) (too old)`) is left out: it names why one candidate was
    # passed over, and the dtype or a build without CUDA may be why none ran.
    Symptom("xformers-device-too-old", re.compile(r"\bYour device is too old\. We require compute capability >= ?\d"),
        "RT-KERNEL-ARCH", "high", "https://github.com/facebookresearch/xformers/issues/685",
        "xformers refused the GPU: its kernels need a higher compute capability than this GPU's",
        own_fix="Run without xformers' attention on this GPU (the engine's other attention path), or serve from a "
                "newer GPU",
        own_takes="restart the engine"),
    # The AMDGPU backend of LLVM refusing a kernel Triton compiled for the GPU (`error: triton_flash_attention.py:211:0:
    # stack frame size (164332) exceeds limit (131056) in function 'attn_fwd...'`, vllm-project/vllm#9319 on a gfx906
    # MI60, corpus 2693): the kernel needs more scratch per lane than the target allows, so the engine's default kernel
    # does not build for this GPU's architecture and the run stops at its first call.
    Symptom("kernel-stack-frame-exceeds-limit",
        re.compile(r"\berror: \S{1,200}:\d+:\d+: stack frame size \(\d+\) exceeds limit \(\d+\) in function\b"),
        "RT-KERNEL-ARCH", "high", "https://github.com/vllm-project/vllm/issues/9319",
        "a GPU kernel the engine compiled (Triton) does not build for this GPU: its stack frame exceeds the limit the "
        "GPU's target allows, so the engine's default kernel does not suit this architecture",
        own_fix="Select another attention backend or kernel for this GPU (vLLM on ROCm: VLLM_USE_TRITON_FLASH_ATTN=0), "
                "or run an engine release whose kernels support its architecture",
        own_takes="restart the engine"),
    # bitsandbytes' int8 matmul on a GPU without int8 tensor-core support (`ERROR: Your GPU does not support Int8
    # Matmul!`, then an assertion; bitsandbytes-foundation/bitsandbytes#118 on a Tesla P40, #97). Its warning
    # `Compute capability < 7.5 detected! Only slow 8-bit matmul` is left out: it reads the highest capability among
    # all GPUs and fired on an A6000 beside a GT 1030 (#448).
    Symptom("bnb-int8-unsupported", re.compile(r"\bYour GPU does not support Int8 Matmul"),
        "RT-KERNEL-ARCH", "high", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/118",
        "bitsandbytes' 8-bit matmul refused the GPU: its architecture has no int8 matmul support, so 8-bit loading "
        "fails there",
        own_fix="Load the model in 4-bit or in float16 on this GPU, or serve the 8-bit model from a GPU of compute "
                "capability 7.5 or newer",
        own_takes="restart the engine"),
    # ollama's ROCm discovery leaving out an AMD GPU whose gfx target its ROCm libraries carry no kernels for
    # (discover/amd_linux.go, amd_windows.go: `msg="amdgpu is not supported (supported types:[gfx1103])"
    # gpu_type=gfx1150`, likelovewant/ollama-for-amd#40; `msg="amdgpu too old gfx803"` before gfx9): the GPU is not
    # used and the model runs on the CPU. ollama's GPU guide names HSA_OVERRIDE_GFX_VERSION to run a supported target
    # of the same family. ollama 0.1.32 names the GPU and the library's targets in the message (`msg="amdgpu [0] gfx1103
    # is not supported by /tmp/ollama2145067703/rocm [gfx1030 gfx1100 ...]"`, corpus 2691).
    Symptom("ollama-amdgpu-unsupported", re.compile(r'\bmsg="amdgpu (?:\[\d+\] gfx\w+ )?(?:is not supported|too old)\b'),
        "RT-KERNEL-ARCH", "high", "https://github.com/ollama/ollama/blob/main/docs/gpu.md#overrides",
        "ollama's ROCm libraries carry no kernels for this AMD GPU's gfx target, so ollama leaves the GPU out and "
        "runs the model on the CPU",
        own_fix="Set HSA_OVERRIDE_GFX_VERSION to a supported target of the same family (10.3.0 for RDNA2, 11.0.0 "
                "for RDNA3) in ollama's service environment, or run an ollama release whose ROCm libraries carry the "
                "GPU's target",
        own_takes="restart the ollama service"),
    # The start-up check of NVIDIA's NGC images (Triton, PyTorch, TensorRT-LLM; its entrypoint's GPU check) refusing the
    # GPU's architecture: `ERROR: Detected Tesla V100S-PCIE-32GB GPU, which is not supported by this container`, then
    # `ERROR: No supported GPU(s) detected to run this container` (triton-inference-server/server#8279, corpus 1502: a
    # 25.04 image on Volta). The image's builds carry no code for the GPU: an older release that still supports it, or
    # a newer GPU, runs.
    Symptom("ngc-gpu-not-supported", re.compile(r"\bDetected .{1,80}? GPU, which is not supported by this container"),
        "RT-KERNEL-ARCH", "high", "https://github.com/triton-inference-server/server/issues/8279",
        "the NGC image's start-up check refused the GPU: this release's builds do not support its architecture, so "
        "the container's programs cannot run on it (run an earlier release of the image that supports the GPU)",
        own_fix="Run an earlier release of the image that still supports the GPU's architecture (the framework's "
                "support matrix lists them), or move to a supported GPU",
        own_takes="pull that release, then recreate the container"),
    # TurboMind's attention dispatch found no kernel for this GPU's architecture at the model's shape
    # (TURBOMIND_NO_KERNEL): the model cannot run on these GPUs with that backend, whatever the settings.
    Symptom("turbomind-no-kernel", TURBOMIND_NO_KERNEL,
        "RT-KERNEL-ARCH", "high", TURBOMIND_KERNELS_SOURCE,
        "TurboMind (lmdeploy) has no attention kernel for this GPU's architecture at the model's head size and data "
        "type (it picks its kernels by architecture: sm70, sm75, sm80 and newer), so the model cannot run on this GPU "
        "with that backend; lmdeploy's PyTorch backend, a release that adds the kernel or a newer GPU can",
        own_fix="Serve the model with lmdeploy's PyTorch backend (`--backend pytorch`), or a TurboMind release that has "
                "the kernel for this GPU's architecture"),
    # TurboMind's own kernel launched on a GPU its build carries no code for (TURBOMIND_NO_KERNEL_IMAGE): the engine's
    # kernels, not torch's, were not compiled for this GPU's architecture.
    Symptom("turbomind-no-kernel-image", TURBOMIND_NO_KERNEL_IMAGE,
        "RT-KERNEL-ARCH", "high", "https://github.com/InternLM/lmdeploy/issues/1781",
        "TurboMind (lmdeploy) launched one of its own kernels on a GPU its build carries no code for (CUDA's no kernel "
        "image): lmdeploy's TurboMind was not compiled for this GPU's architecture, so the engine fails at that kernel",
        own_fix="Serve the model with lmdeploy's PyTorch backend (`--backend pytorch`), or install an lmdeploy build "
                "whose TurboMind is compiled for this GPU's architecture"),
    # ggml's CUDA backend (llama.cpp, ollama, koboldcpp) compiles a stub for a kernel it has no code for on an arch
    # (NO_DEVICE_CODE in ggml-cuda/common.cuh, ggml-org/llama.cpp#5088): the stub prints `ERROR: CUDA kernel mul_mat_q
    # has no device code compatible with CUDA arch 700. ggml-cuda.cu was compiled for: ...` from the GPU and traps, which
    # CUDA reports as `unspecified launch failure` (ollama/ollama#5586 on a V100, corpus 1333; LostRuins/koboldcpp#1362
    # on Pascal and Maxwell). The build lacks the kernel for this GPU; the launch failure after it is the trap's.
    Symptom("ggml-no-device-code", GGML_NO_DEVICE_CODE,
        "RT-KERNEL-ARCH", "high", GGML_NO_DEVICE_CODE_SOURCE,
        "the engine's ggml CUDA build has no code of one of its kernels for this GPU's architecture: the kernel's stub "
        "traps, so the run fails (CUDA then reports an unspecified launch failure); run a build compiled for the "
        "GPU's compute capability",
        clears=("DRV-XID",),
        cleared="ggml's stub for a kernel the build lacks traps on purpose, which CUDA reports as an unspecified launch "
                "failure: the failure is the build's missing kernel, not a GPU fault"),
    # ggml's CUDA backend asked for the highest architecture its build carries at or below the GPU's and found none
    # (GGML_NOT_COMPILED_FOR: ggml_cuda_highest_compiled_arch aborts with `ggml was not compiled with any CUDA arch <=
    # 610`, the GPU's capability as ggml writes it; omacom/omarchy#2039, corpus 1574: a distribution's ollama package on
    # GTX 1080 Ti, cured by a build with CMAKE_CUDA_ARCHITECTURES=61; ggml-org/llama.cpp#15589 and #15593, a build for
    # arch 120 only, fixed in the engine by ggml-org/llama.cpp#15587), or, in the ggml of 2023 (koboldcpp 1.55,
    # LostRuins/koboldcpp#610; LocalAI's whisper.cpp, mudler/LocalAI#1513), printed its `ERROR: ggml-cuda was compiled
    # without support for the current GPU architecture.` and stopped. The engine's build, not the host.
    Symptom("ggml-not-compiled-for-arch", GGML_NOT_COMPILED_FOR,
        "RT-KERNEL-ARCH", "high", GGML_NO_DEVICE_CODE_SOURCE,
        "the engine's ggml CUDA build carries no code for this GPU's architecture (none at or below its compute "
        "capability), so its kernels cannot run there: run a build compiled for the GPU's compute capability "
        "(CMAKE_CUDA_ARCHITECTURES) or a release whose packages carry it",
        own_fix="Run a build of the engine compiled for the GPU's compute capability (llama.cpp/ollama: "
                "-DCMAKE_CUDA_ARCHITECTURES=<capability, e.g. 61>), or a release whose packages carry it",
        own_takes="install or build that release, then restart the engine"),
    # CUDA could not load the engine's kernel image on this GPU (KERNEL_IMAGE_REFUSED: cudaErrorInvalidKernelImage,
    # 200, `device kernel image is invalid`; cudaErrorInvalidDeviceFunction, 98, `invalid device function`), which
    # ggml prints as `CUDA error: device kernel image is invalid` under `ggml_cuda_compute_forward: SCALE failed`. The
    # build holds no cubin for the GPU's architecture and CUDA did not load what it holds instead, PTX the driver cannot
    # compile among them: "the code was not compiled for the device being used, or with a version of the CUDA toolkit
    # not compatible with the installed driver version" (ggml-org/llama.cpp#6433, a maintainer). Seen on ollama 0.30 on
    # V100 where 0.24 ran (ollama/ollama#16449, #16533, corpus 1572), a llama.cpp CUDA 12 build on a GTX 1080 Ti under
    # the 535 driver (canonical/inference-snaps#255, corpus 961), llama-cpp-python on ROCm (abetlen/llama-cpp-python
    # #1372). Either way the engine's kernels do not run on this GPU: its build, with the driver it meets; the driver's
    # own fit stays open (`doubts`).
    Symptom("cuda-kernel-image-refused", KERNEL_IMAGE_REFUSED,
        "RT-KERNEL-ARCH", "high", CUDA_ERRORS,
        "CUDA could not load the engine's kernels on this GPU (its kernel image is invalid for the device, or the "
        "device function is missing): the build carries no code this GPU runs, or only PTX of a newer toolkit than "
        "the driver can compile",
        own_fix="Run a build of the engine that carries code for the GPU's compute capability (an earlier release "
                "that ran on it, or one built with -DCMAKE_CUDA_ARCHITECTURES=<capability>), or move the driver up "
                "to the branch of the CUDA toolkit the build was made with",
        own_takes="install that build (or driver), then restart the engine",
        doubts=("DRV-CUDA-COMPAT",),
        doubted="CUDA refused the engine's kernels, which a driver older than the toolkit the build's PTX comes from "
                "does too: whether this driver runs the build's kernels is what the line leaves open",
        doubt_hint="paste `nvidia-smi` (the driver's version) and the CUDA toolkit the engine's build was made with"),
    # ollama's discovery skipped a CUDA device for its compute capability (OLLAMA_DISCOVERY_SOURCE; ollama/ollama#17841
    # on sm_86 with a CUDA 13 library built for [750 890 1000 1200]): the GPU is left out and the model runs on the
    # CPU, unless the same log shows layers offloaded to the GPU (another CUDA library of ollama's took it).
    Symptom("ollama-cc-not-compiled", re.compile(r"skipping CUDA device\W+compute capability not in compiled "
                                                 r"architectures"),
        "RT-KERNEL-ARCH", "high", OLLAMA_DISCOVERY_SOURCE,
        "ollama left the GPU out: its compute capability is not among the architectures its CUDA library was built "
        "for, so the model runs on the CPU",
        unless=re.compile(r"offloaded [1-9]\d*/\d+ layers to GPU")),
    # An engine's compiled extension (`vllm/_C.abi3.so`, `sgl_kernel/common_ops.abi3.so`) that links against C++
    # symbols of another torch than the one installed (c10::, at::, torch:: names: `_ZN3c10...`, `_ZN2at...`,
    # `_ZN5torch...`): it was built for another torch release (vllm-project/vllm#5501, #3528, #13608; corpus 1018).
    Symptom("torch-abi-mismatch", re.compile(r"\.so: undefined symbol:? _ZN(?:3c10|2at|5torch)\d"),
        "RT-VERSION-MATRIX", "high", "https://github.com/vllm-project/vllm/issues/5501",
        "an engine's compiled extension needs C++ symbols the installed torch does not have: it was built for "
        "another torch release; install the torch release the engine pins (or rebuild the extension against this "
        "one)", own_fix="Install the torch release the engine pins, or rebuild its extension against this one"),
    # A CUDA call refused because the driver is older than the CUDA runtime the program ships
    # (cudaErrorInsufficientDriver, 35): llama.cpp's `ggml_cuda_init: failed to initialize CUDA: CUDA driver version is
    # insufficient for CUDA runtime version`, PyTorch's and vLLM's RuntimeError with the same words.
    # PyTorch's own words for it (torch/cuda/__init__.py _check_driver: `The NVIDIA driver on your system is too old
    # (found version 12040)`, the driver's CUDA as 1000 * major + 10 * minor; corpus 85, 1014).
    # cudart returns the same error 35 where it finds no driver library (libcuda) at all: where the same source shows
    # NVIDIA's image banner finding no driver in its container (docker.NGC_CHECK's no-driver), the line says nothing of a driver's
    # version (corpus 1639; triton-inference-server/server#1203, #2674, whose images ran without a GPU request).
    Symptom("cuda-insufficient-driver", re.compile(r"CUDA driver version is insufficient for CUDA runtime version|"
                                                   r"cudaErrorInsufficientDriver|"
                                                   r"NVIDIA driver on your system is too old \(found version \d+\)"),
        "DRV-CUDA-COMPAT", "high", CUDA_ERRORS,
        "the CUDA runtime refused to start: the driver is older than the CUDA runtime the program ships "
        "(cudaErrorInsufficientDriver, 35)", unless=NGC_CHECK["no-driver"][1]),
    # PTX that the driver's JIT compiler cannot read: the program carries PTX of a newer toolkit than the driver
    # (cudaErrorUnsupportedPtxVersion, 222: "the provided PTX was compiled with an unsupported toolchain"), which
    # minor-version compatibility does not cover (https://docs.nvidia.com/deploy/cuda-compatibility/: "applications
    # that rely on PTX JIT compilation" need a driver of the toolkit's release; nvbandwidth#61, corpus 1039).
    Symptom("cuda-unsupported-ptx", re.compile(r"cudaErrorUnsupportedPtxVersion|CUDA_ERROR_UNSUPPORTED_PTX_VERSION|"
                                               r"the provided PTX was compiled with an unsupported toolchain"),
        "DRV-CUDA-COMPAT", "high", CUDA_ERRORS,
        "the driver could not JIT-compile the program's PTX: it was built by a newer CUDA toolkit than this driver "
        "supports, which minor-version compatibility does not cover (build with SASS for the GPU, or move the driver "
        "up to the toolkit's branch)"),
    # A program (an engine's compiled extension) that calls the green-context driver API (cuGreenCtxCreate,
    # cuGreenCtxDestroy, cuCtxFromGreenCtx, cuDevSmResourceSplitByCount, ...), new in CUDA 12.4's driver (R550), fails to
    # load on an older libcuda, which does not export the symbol: minor-version compatibility covers the runtime, not
    # driver APIs added after the driver (https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html;
    # sgl-project/sglang#8432, corpus 1084's title). A symbol every driver exports (`cuModuleGetFunction`, corpus
    # 1085) is a library not linked against libcuda, not an old driver: only the green-context names count.
    Symptom("cuda-driver-api-missing", re.compile(r"undefined symbol:? (?:cuGreenCtx\w*|cuCtxFromGreenCtx|"
                                                  r"cuDevSmResource\w*|cuDevResource\w*)\b"),
        "DRV-CUDA-COMPAT", "high", "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html",
        "a program calls CUDA's green-context driver API, new in CUDA 12.4's driver (R550), which this driver's "
        "libcuda does not export: minor-version compatibility does not cover driver APIs newer than the driver (move "
        "the driver up to R550 or newer, or install a build of the program that does not need them)"),
    # The driver's own library (libcuda, Windows' nvcuda.dll) lacks a driver API a program looks up in it: the
    # driver is older than the CUDA release that added the API. ollama's GPU discovery looks up cuCtxCreate_v3 (CUDA
    # 11.4's, R470) in every libcuda it finds and skips the ones without it (`symbol lookup for cuCtxCreate_v3
    # failed: /usr/lib64/libcuda.so.418.74: undefined symbol: cuCtxCreate_v3`; ollama/ollama#5493 on 418.74, corpus
    # 2002; #6626 on libcuda.so.460.106.00; #6604 on Windows' nvcuda.dll, whose maintainer answers "that driver was
    # too old"). The symbol must be missing from libcuda itself: a program's own library that lacks `cuInit` was not
    # linked against libcuda (xmrig/xmrig-cuda#108), and ollama's `symbol lookup` for cudart's (`cuda…`) or NVML's
    # names is another library's.
    Symptom("libcuda-driver-api-missing",
            re.compile(r"(?<!/stubs/)(?:libcuda\.so[\d.]*|nvcuda\.dll)\b:? undefined symbol:? cu(?!da)\w+|"
                       r"\bsymbol lookup for cu(?!da)\w+ failed"),
        "DRV-CUDA-COMPAT", "high", "https://github.com/ollama/ollama/issues/6604",
        "the driver's own library (libcuda) does not export a CUDA driver API the program looks up: the driver is "
        "older than the CUDA release that added it (ollama needs cuCtxCreate_v3, CUDA 11.4's, R470), so the program "
        "cannot use the GPU through it; move the driver up to a branch of the program's CUDA"),
    # A CUDA runtime call refused because the driver is older than the minor release that added it
    # (cudaErrorCallRequiresNewerDriver, 36: "API call is not supported in the installed CUDA driver"): minor-version
    # compatibility lets a newer runtime of the driver's major start, not call what the driver lacks
    # (https://docs.nvidia.com/deploy/cuda-compatibility/ "Limited feature set"). NCCL prints it in its WARN line
    # (`NCCL WARN Cuda failure 'API call is not supported in the installed CUDA driver'`, NVIDIA/nccl#955, corpus
    # 1361's title).
    Symptom("cuda-call-requires-newer-driver", re.compile(r"API call is not supported in the installed CUDA driver|"
                                                          r"cudaErrorCallRequiresNewerDriver"),
        "DRV-CUDA-COMPAT", "high", CUDA_ERRORS,
        "a CUDA call was refused because the driver is older than the CUDA release that added it "
        "(cudaErrorCallRequiresNewerDriver, 36): minor-version compatibility runs a newer runtime of the driver's "
        "major, not the APIs newer than the driver (move the driver up to the branch of the CUDA the program was "
        "built with)"),
    # The runtime needed a newer driver than the host's and tried the forward-compatibility libraries (cuda-compat),
    # which run only on data-center GPUs (cudaErrorCompatNotSupportedOnDevice, 804: "forward compatibility was
    # attempted on non supported HW"; https://docs.nvidia.com/deploy/cuda-compatibility/; vllm-project/vllm#4940).
    # The start-up check of NVIDIA's NGC images (TensorRT-LLM, Triton, PyTorch, NeMo) found the host driver older than
    # the one the image was built for and no forward-compatibility path: `... but version 510.85.02 was detected and
    # compatibility mode is UNAVAILABLE.`, often with `[[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]`
    # (NVIDIA/TensorRT-LLM#23, whose maintainer answers "upgrade the CUDA driver to >= 535.86"; NVIDIA/nvidia-docker#1479;
    # hiyouga/LlamaFactory#5962). The image's CUDA is the cuda_runtime fact's (facts/docker.NGC_CHECK's built-for).
    Symptom("ngc-driver-too-old", NGC_CHECK["unavailable"][1],
        "DRV-CUDA-COMPAT", "high", "https://github.com/NVIDIA/TensorRT-LLM/issues/23",
        "the NGC image's start-up check found the host driver older than the one the image was built for, and no "
        "forward-compatibility path: CUDA work in the container does not start until the host driver is upgraded "
        "(or an image built for the host's driver is run)",
        clears=("CTR-GPU-ACCESS",), cleared="the check runs inside the container and read the host driver's version "
        "there, so the driver is exposed to the container: what fails is its version, not its exposure"),
    # The same start-up check (nvidia_entrypoint.sh of NVIDIA's NGC and CUDA images: Triton, PyTorch, TensorFlow, the
    # CUDA base images' banner) found no NVIDIA driver at all inside the container: `WARNING: The NVIDIA Driver was not
    # detected.  GPU functionality will not be available.`, then `Use the NVIDIA Container Toolkit to start this
    # container with GPU support` (older releases: `Use 'nvidia-docker run' to start this container`). The image runs
    # only as a container, and the runtime handed it no driver: no NVIDIA runtime or toolkit, or no GPU request
    # (corpus 1639; triton-inference-server/server#1705, NVIDIA/nvidia-docker#1071,
    # prs-eth/PanopticSegForLargeScalePointCloud#20, whose answer is `--gpus all`). Triton's own metrics finding GPUs
    # through NVML in the same log (`found 1 GPUs supporting NVML metrics`) says the GPUs did reach it (WSL 2's
    # driver, which older images' check did not see): then the banner proves nothing. A paste that splits the two
    # into separate documents (the banner read as an evidence line) keeps the banner's issue.
    Symptom("ngc-driver-not-detected", NGC_CHECK["no-driver"][1],
        "CTR-GPU-ACCESS", "high", "https://github.com/NVIDIA/nvidia-docker/issues/1071",
        "the NVIDIA image's start-up check found no NVIDIA driver inside its container, so GPU functionality is not "
        "available there: the container runtime handed it neither the GPUs nor the driver's libraries (no NVIDIA "
        "runtime or Container Toolkit, or no GPU request such as `--gpus all`)",
        unless=re.compile(r"\bfound [1-9]\d* GPUs supporting NVML metrics|Collecting metrics for GPU \d+")),
    # An image's own entrypoint that looks for the NVIDIA driver's tools and finds the GPU but not them: LocalAI's
    # All-in-One images (`/aio/entrypoint.sh`: `NVIDIA GPU detected, but nvidia-smi is not installed. GPU acceleration
    # will not be available.`, then `Defaulting to CPU.`; mudler/LocalAI#2117, a k0s pod without
    # `runtimeClassName: nvidia`). The image ships no nvidia-smi: the NVIDIA runtime mounts it from the host with the
    # driver's libraries, so its absence there is the runtime's hook never run for the container. The same script's
    # Intel line (`Intel GPU detected, but Intel GPU drivers are not installed`, mudler/LocalAI#3184) is another
    # vendor's and not read.
    Symptom("image-driver-tools-missing", re.compile(r"\bNVIDIA GPU detected, but nvidia-smi is not installed\b"),
        "CTR-GPU-ACCESS", "high", "https://github.com/mudler/LocalAI/issues/2117",
        "the image's own start-up check sees an NVIDIA GPU but no nvidia-smi inside its container, and falls back to "
        "the CPU: the NVIDIA runtime, which mounts nvidia-smi and the driver's libraries into the container, did not "
        "run for it (no `runtimeClassName: nvidia` for the pod, or no `--gpus` / nvidia runtime for Docker)"),
    # The kubelet's event for the GPU Operator's driver pod whose startup probe (its startup-probe.sh runs nvidia-smi in
    # the driver container) gets nvidia-smi's own failure: `Startup probe failed: No devices were found`
    # (NVIDIA/gpu-operator#641, an OpenShift VM with a V100 on its bus; #649, `Warning Unhealthy 2m6s (x41235 over
    # 5d15h) kubelet Startup probe failed: No devices were found`). The driver never comes up ready, the kubelet restarts
    # its container, and the toolkit, device plugin and validator wait for it: no pod on the node is handed a GPU.
    Symptom("operator-driver-probe-failed", re.compile(r"\bStartup probe failed: (?:No devices were found|NVIDIA-SMI has "
                                                       r"failed because it couldn't communicate)"),
        "CTR-GPU-ACCESS", "high", "https://github.com/NVIDIA/gpu-operator/issues/649",
        "the GPU Operator's driver container fails its startup probe with nvidia-smi's own failure: the driver it runs "
        "reaches no GPU, so the container never turns ready and the kubelet restarts it, and the toolkit, device plugin "
        "and validator that wait for it hand no pod on the node a GPU; the driver pod's log and the node's kernel log "
        "say why (`kubectl logs <driver pod> -c nvidia-driver-ctr`, `dmesg | grep NVRM`)",
        doubts=("DRV-OPEN-MODULE",), doubted_statuses=("ok", "not-applicable"),
        doubted="a driver that reaches no GPU may be the open kernel module, which refuses GPUs older than Turing "
                "(corpus 1822), so which flavour it runs is what the line leaves open",
        doubt_hint="the driver container's log (`kubectl logs <driver pod> -c nvidia-driver-ctr`) or `dmesg | grep "
                   "NVRM`"),
    # An NGC entrypoint's minor-version WARNING quotes its own forward-compatibility probe in `[[...]]`
    # (`[[Forward compatibility was attempted on non supported HW (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    # cuInit()=804]]`; nvidia_entrypoint.sh prints `[[$_CUDA_COMPAT_STATUS]]`). The probe failed, so the entrypoint
    # leaves the compat libraries out and runs the image by minor-version compatibility: that 804 is no program's
    # failure (NGC_MINOR_FALLBACK vetoes it; triton-inference-server/server#5197, corpus 2086).
    Symptom("cuda-compat-unsupported-hw", re.compile(r"forward compatibility was attempted on non supported HW|"
                                                     r"cudaErrorCompatNotSupportedOnDevice|"
                                                     r"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
        "DRV-CUDA-COMPAT", "high", CUDA_ERRORS,
        "the CUDA runtime needs a newer driver than the host's and tried the forward-compatibility libraries, which "
        "run only on data-center GPUs (cudaErrorCompatNotSupportedOnDevice, 804): move the driver up to the runtime's "
        "branch, or run an image built for the host's CUDA",
        # The runtime read the GPU and refused it for compat: the device and the driver reached the program (the GPU
        # Operator's CUDA validator pod, corpus 1173). Only in a container the source shows: where it shows none,
        # whether the compat library is an image's is not shown, and the check stays open (corpus 2463, both readers).
        clears=("CTR-GPU-ACCESS",), cleared=_CUDA_REACHED, clears_within=IN_CONTAINER, unless=NGC_MINOR_FALLBACK),
    # The user-space CUDA driver library is of another version than the kernel module (cudaErrorSystemDriverMismatch,
    # 803: "system has unsupported display driver / cuda driver combination"). In a container given GPUs that is the
    # image's own libcuda (its forward-compatibility copy) found ahead of the host's the toolkit injects
    # (vllm-project/vllm#33447); on a host it is a driver updated without a reboot, another fault.
    Symptom("cuda-driver-mismatch-in-container", re.compile(r"system has unsupported display driver / cuda driver "
                                                            r"combination|cudaErrorSystemDriverMismatch|"
                                                            r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
        "CTR-GPU-ACCESS", "high", CUDA_ERRORS,
        "CUDA in the container loaded a user-space driver library of another version than the host's kernel module "
        "(cudaErrorSystemDriverMismatch, 803): the image's own libcuda shadows the one the toolkit injects, so no GPU "
        "is usable there (drop the image's compat libraries from the library path, or use an image built for the "
        "host's driver)", within=IN_CONTAINER,
        own_fix="Drop the image's compat libraries from the library path, or use an image built for the host's driver",
        own_takes="recreate the container"),
    # The same error where no container is shown (a venv on NixOS, corpus 2666; ollama on a rented host, 2718): the
    # libcuda the program loaded is not of the running kernel module's version, a driver upgraded without a reboot or a
    # second driver's user-space libraries on the library path (ollama/ollama#5573, the maintainer: the CUDA driver
    # library does not match the driver exactly). CUDA refuses to start on any GPU: the driver stack is the fault.
    # NGC's entrypoint probing its forward-compatibility libraries with 803 and falling back to minor-version
    # compatibility (NGC_MINOR_FALLBACK) is no program's failure (corpus 1502).
    Symptom("cuda-driver-mismatch", re.compile(r"system has unsupported display driver / cuda driver combination|"
                                               r"cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
        "DRV-CUDA-COMPAT", "high", CUDA_ERRORS,
        "CUDA refused to start: the user-space driver library (libcuda) the program loaded is of another version than "
        "the running kernel module (cudaErrorSystemDriverMismatch, 803), so no GPU is usable; reboot after a driver "
        "upgrade, or remove the other driver's libraries from the library path", within=NO_CONTAINER_SHOWN,
        unless=NGC_MINOR_FALLBACK,
        own_fix="Reboot after the driver upgrade (or reload the nvidia modules), or remove the other driver's "
                "libcuda from the library path, so that libcuda and the kernel module are of one version",
        own_takes="reboot the host"),
    # NCCL found two ranks of one communicator on the same GPU (NCCL_INIT_SOURCE): the ranks' processes were given
    # one GPU between them (the pod's or container's GPUs, or the launcher's per-rank device), so the
    # communicator is refused (triton-inference-server/tensorrtllm_backend, corpus 901).
    Symptom("nccl-duplicate-gpu", NCCL_DUPLICATE_GPU,
        "CTR-GPU-ACCESS", "high", NCCL_INIT_SOURCE,
        "NCCL found two ranks on one GPU: the ranks' processes were given fewer distinct GPUs than the world size "
        "(the pod's or container's GPU assignment, or each rank's CUDA_VISIBLE_DEVICES), so NCCL refuses to start: "
        "give each rank its own GPU",
        own_fix="Give each rank its own GPU (the pod's or container's GPUs, each rank's CUDA_VISIBLE_DEVICES)",
        own_takes="restart the job"),
    # The same line, for MEM-GPU-SHARED: each rank is a process of its own holding a context and memory on that GPU
    # (a GRPO trainer and the vLLM server it syncs weights with on a VM's one A100, corpus 2365).
    Symptom("nccl-duplicate-gpu-shared", NCCL_DUPLICATE_GPU,
        "MEM-GPU-SHARED", "high", NCCL_INIT_SOURCE,
        "NCCL found two ranks of one communicator on one GPU: each rank is a process of its own holding memory and "
        "time slices on that GPU, and NCCL will not put two ranks of one communicator on one GPU",
        own_fix="Give each rank its own GPU (the pod's or container's GPUs, each rank's CUDA_VISIBLE_DEVICES)",
        own_takes="restart the job"),
    # NCCL's topology detection (graph/xml.cc getPciPath) resolves each GPU's and NIC's PCI path as
    # `realpath(/sys/class/pci_bus/<domain:bus>/../../<busId>)` and returns ncclSystemError where sysfs has none
    # (NCCL_XML_SOURCE): init stops before any channel is built. A VM, WSL or container whose /sys does not show the
    # device, or a bus id NCCL misread (`fffffff:ffff`), leaves the host's topology unreadable to NCCL (NVIDIA/nccl#368,
    # corpus 1236; #573: "NCCL cannot find its PCI topology in /sys/class/.. That's a problem", the maintainer).
    Symptom("nccl-topology-path", NCCL_PCI_PATH_UNREAD,
        "IC-TOPO-READ", "high", NCCL_XML_SOURCE,
        "NCCL could not read the host's PCI topology: a device's path under /sys/class/pci_bus does not resolve, so "
        "its topology detection fails and the communicator's init returns a system error before any channel is "
        "built; make the device's sysfs path visible where NCCL runs (the VM's or container's /sys, the GPU's bus id "
        "as `nvidia-smi` shows it) or run an NCCL release that reads this platform",
        own_fix="Make each GPU's and NIC's /sys/class/pci_bus path visible where NCCL runs (the VM's or container's "
                "/sys), or run an NCCL release that reads this platform"),
    # UCC's shared-memory team could not attach the segment another rank created (UCC_TL_SHM_SOURCE): an id from
    # another IPC namespace (EINVAL, SHMAT_MAN). NCCL's own segments are POSIX files in /dev/shm (nccl-shm-missing).
    Symptom("ucc-shm-attach", re.compile(r"TL_SHM ERROR Child failed to attach to shmseg(?!.*Permission denied)"),
        "CTR-IPC-ISOLATION", "high", UCC_TL_SHM_SOURCE,
        "UCC's ranks on one host could not attach each other's System V shared-memory segment: they run in separate "
        "IPC namespaces (containers without a shared IPC namespace), where a segment's id does not exist"),
    # ggml's ggml_numa_init (llama.cpp, ik_llama.cpp, ollama's runner) reads /proc/sys/kernel/numa_balancing only where
    # the host has more than one NUMA node (ggml_is_numa) and prints this where the value is not 0.
    Symptom("ggml-numa-balancing", re.compile(r"/proc/sys/kernel/numa_balancing is enabled, this has been observed"),
        "KERN-NUMA-BALANCING", "low", GGML_NUMA_SOURCE,
        "llama.cpp found automatic NUMA balancing on, on a host of more than one NUMA node"),
    # WSL 2's GPU paravirtualisation driver in its Linux kernel (dxgkrnl, /dev/dxg) forwards each GPU allocation to the
    # Windows host's video-memory manager, and logs a call the host refused (`misc dxg: dxgk: dxgkio_make_resident:
    # Ioctl failed: -12`, `dxgvmb_send_create_allocation: send_create_allocation failed`; corpus 2714, CUDA's `device
    # not ready` beside them): the Windows driver, not CUDA, decides what memory the VM's program may have resident.
    # Only WSL 2's kernel has this driver. Its adapter queries failing at boot (`dxgkio_query_adapter_info: Ioctl
    # failed: -22`) are no allocation and show on healthy VMs too.
    Symptom("wsl-dxg-allocation", re.compile(r"\bdxgk(?:io_make_resident|io_create_allocation): Ioctl failed: -\d+|"
                                             r"\bdxgvmb_send_create_allocation: send_create_allocation failed\b"),
        "FW-VM", "high", WSL_DXGKRNL_SOURCE,
        "WSL 2's GPU paravirtualisation (dxgkrnl) could not make the program's GPU memory resident or create its "
        "allocation on the Windows host: under WSL 2 the Windows driver's video-memory manager decides residency, and "
        "it refused it, so CUDA calls fail (`device not ready`, out of memory) with GPU memory still free",
        own_fix="Leave the Windows host's GPU memory headroom (close other GPU programs, load fewer models at once), "
                "update the Windows NVIDIA driver and WSL (`wsl --update`), or run the workload on native Linux"),
    # NVML's NVML_ERROR_OPERATING_SYSTEM ("GPU access blocked by the operating system", nvmlErrorString) inside WSL 2's
    # VM: the Windows driver hands WSL no GPU through its paravirtual device, which it offers only to GPUs in the
    # display driver model (WDDM): a data-center card in TCC or MCDM mode, or a driver without WSL support (corpus
    # 2713, an L40S in `Data Center mode` on Windows Server 2025). On other hosts the words say other things (a
    # container's device cgroup), so the line proves this only under WSL 2.
    Symptom("wsl-gpu-blocked", re.compile(r"\bGPU access blocked by the operating system\b"),
        "FW-VM", "high", WSL_USER_GUIDE,
        "NVML inside WSL 2 answers that the operating system blocks GPU access: the Windows driver does not hand this "
        "VM the GPU (WSL 2 is given GPUs in the display driver model only, through /dev/dxg), so no CUDA work runs",
        within=IN_WSL,
        own_fix="On Windows put the GPU in the WDDM driver model (`nvidia-smi -g 0 -dm 0`, a reboot) or install a "
                "driver with WSL support, then `wsl --shutdown`; a data-center card in TCC or MCDM mode serves native "
                "Windows or Linux only"),
)

# The checks a symptom proves or clears: the engine collects `log_symptoms` where one of them runs.
PROVEN = (frozenset(s.check for s in SYMPTOMS if s.check) | frozenset(s.ggml_check for s in SYMPTOMS if s.ggml_check) | frozenset(c for s in SYMPTOMS for c in s.clears)
          | frozenset(c for s in SYMPTOMS for c in s.suspects) | frozenset(c for s in SYMPTOMS for c in s.doubts))


@dataclass(frozen=True)
class SymptomHit:
    symptom: Symptom
    line: str


# The most lines kept per symptom: enough to quote, bounded on a log of millions of lines.
MAX_HITS = 20


# The GPU a log line names, first match per line: the driver's PCI address (`NVRM: GPU 0000:13:00.0:`, an Xid's
# `PCI:0000:0b:00`), its index (`NVRM: GPU0`, `GPU 3`), its device node (`/dev/nvidia0`) or its UUID. A line that
# names one GPU in two ways (`Xid (PCI:0000:0b:00) ... from GPU3 GSP`, `/dev/nvidia0: GPU-fe14a161-...`) is about
# that one GPU.
_NAMED_GPU = re.compile(r"(?:PCI:|\bGPU )([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})|"
                        rf"\b({BDF})\b|/dev/nvidia(\d+)\b|\bGPU ?(\d+)\b|\b(GPU-[0-9a-fA-F]{{8}}-[0-9a-fA-F-]+)")
# A line about GPUs it does not name: a pair (CUDA's `peer access is not supported between these two devices`),
# else one GPU (PyTorch's `NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible`, ollama's
# `skipping CUDA device`, the driver's GSP heartbeat or RPC timeout: a GSP is one GPU's firmware). NCCL's P2P
# transport failing to open the peer's IPC handle (NCCL_P2P_IPC_OPEN) is about the pair it joins.
_GPU_PAIR = re.compile(r"between these two devices|" + NCCL_P2P_IPC_OPEN.pattern, re.I)
_ONE_GPU = re.compile(r"with CUDA capability sm_\d+|\bCUDA device\b|\bGSP\b")


def gpus_named(lines: Sequence[str]) -> tuple[str, ...]:
    """The GPUs log lines are about, in words (`0000:0b:00`, `GPU 0`, `GPU-fe14a161-...`): the one each line names,
    else `a GPU` (two for a pair) where a line is about GPUs it does not name; () where no line is about a GPU.
    Where one line names a GPU, the lines that name none are about it (the driver's follow-up lines)."""
    named: dict[str, None] = {}
    unnamed = 0
    for line in lines:
        m = _NAMED_GPU.search(line)
        if m:
            bdf, full, node, index, uuid = m.groups()
            address = bdf or (full[:-2] if full else "")  # the function left out, as an Xid writes it
            named[address.lower() if address else f"GPU {node or index}" if node or index else uuid] = None
        elif _GPU_PAIR.search(line):
            unnamed = max(unnamed, 2)
        elif _ONE_GPU.search(line):
            unnamed = max(unnamed, 1)
    if len(named) >= unnamed:
        return tuple(named)
    return tuple(named) + tuple(f"an unnamed GPU {i + 1}" for i in range(unnamed - len(named)))


# The symptoms that are one engine's own messages: a line of them shows that engine ran, whatever reader took it (ollama
# 0.1.x's `routes.go:915: warning: gpu support may not be enabled ... nvidia-smi command failed`, corpus 721, is in no
# log format the serving-log reader knows). The engine's name as facts/applicability names it; the engines shown
# (engine/evaluate.engines_shown) and facts/parallelism.parallelism_from_symptoms read it.
ENGINE_SYMPTOMS: dict[str, tuple[str, ...]] = {
    "ollama": ("ollama-no-gpu-in-container", "ollama-no-gpu", "ollama-cc-not-compiled"),
}

# The symptoms that are ggml's own messages (its CUDA backend's aborts): a line of them shows a program built on ggml
# at work (llama.cpp, ollama, KoboldCpp: which one the line does not say), as llama.cpp's `ggml_cuda_init` device
# list does (facts/engines_shown.GGML).
GGML_SYMPTOMS = ("ggml-no-device-code", "ggml-not-compiled-for-arch", "ggml-cuda-op-failed")


@dataclass(frozen=True)
class LogSymptoms(Sourced):
    hits: tuple[SymptomHit, ...] = ()

    def proving(self, check_id: str) -> tuple[SymptomHit, ...]:
        """The lines that prove an issue of `check_id`, in the order the sources show them (a line's `ggml_check`
        where the lines show ggml's CUDA backend at work)."""
        ggml = self.ggml_shown()
        return tuple(h for h in self.hits
                     if (h.symptom.ggml_check if ggml and h.symptom.ggml_check else h.symptom.check) == check_id)

    def suspecting(self, check_id: str) -> tuple[SymptomHit, ...]:
        """The lines whose cause `check_id`'s facts would name (`Symptom.suspects`)."""
        return tuple(h for h in self.hits if check_id in h.symptom.suspects)

    def doubting(self, check_id: str) -> tuple[SymptomHit, ...]:
        """The lines that leave an `ok` of `check_id` (or another of Symptom.doubted_statuses) unproven
        (`Symptom.doubts`)."""
        return tuple(h for h in self.hits if check_id in h.symptom.doubts)

    def clearing(self, check_id: str) -> tuple[SymptomHit, ...]:
        """The lines that rule out an issue of `check_id` (`Symptom.clears`)."""
        return tuple(h for h in self.hits if check_id in h.symptom.clears)

    def engines(self) -> tuple[str, ...]:
        """The engines whose own messages the lines are (ENGINE_SYMPTOMS), in the order the sources show them."""
        return tuple(dict.fromkeys(e for h in self.hits for e, names in ENGINE_SYMPTOMS.items()
                                   if h.symptom.name in names))

    def ggml_shown(self) -> bool:
        """Whether a line is one of ggml's own messages (GGML_SYMPTOMS)."""
        return any(h.symptom.name in GGML_SYMPTOMS for h in self.hits)

    @classmethod
    def union(cls, parts: Sequence[LogSymptoms]) -> LogSymptoms:
        """The sources' lines together. A symptom whose `unless` matches another source's symptom line is left out
        too: find_symptoms vetoes within one source, and a paste may split one log in two (the NGC banner read as an
        evidence line, CUDA's error 35 in the engine's log after it, corpus 1639)."""
        hits = tuple(dict.fromkeys(h for p in parts for h in p.hits))
        vetoed = {h.symptom.name for h in hits
                  if h.symptom.unless is not None and any(h.symptom.unless.search(o.line) for o in hits)}
        return cls(tuple(h for h in hits if h.symptom.name not in vetoed), complete=all(p.complete for p in parts))


fact("log_symptoms", LogSymptoms, union, hint="paste the failing log (the kernel log, the engine's log with "
     "NCCL_DEBUG=INFO)")

# A cheap test before the patterns: every symptom's line holds one of these (the evidence reader's needles too).
NEEDLES = ("could not insert 'n", "device handle", "single-bit", "single bit", "Single-bit", "Single bit", "correctable",
           "Correctable", "_peermem: ", "nv_peer_mem: ", "shared memory", "/dev/shm", "posix_fallocate", "Xid", "peer access", "enable access between", "Persistence mode for",
           "device driver", "runtime name: nvidia", "Failed to initialize NVML", "Failed to run mount hooks", "Insufficient Permissions", "CUDA: unknown error",
           "CUDA unknown error", "CUDA_ERROR_UNKNOWN", "error (30)", "DeviceCount returned",
           "NVML library", "ERROR_LIBRARY_NOT_FOUND", "CDI device", "CDI host device", "nvidia.com/gpu=", "nvml with error", "runtime specified nvidia", "nvidia-container-cli", "IO_PAGE_FAULT",
           "GSP", "kgsp", "GspRmImages", "rpcRecvPoll", "not yet initialized", "SystemNotReady", "SYSTEM_NOT_READY", ": 802", " 802", "(802",
           "Unable to load the kernel module", "/nvidia.ko`", "could not insert 'nvidia'", ": Unknown symbol ", ": disagrees about version of symbol ",
           "while performing the step", "GPU driver installation",
           "failed to load GPU drivers", "resolve Linux kernel version", "Open nvidia.ko", "not supported by open", "as WSL is d",
           "max locked memory", "[NV_ERR_", "RmInitAdapter", "numa_balancing is enabled",
           "is not compatible with the current PyTorch", "nsufficient nvidia.com/gpu", "MIG-INVALID",
           "mig.config.state", "gpu.count", "nvidia-smi command failed", "compatible GPUs", "nvidia devices detected",
           "fabric manager config", "fabric topology file", "nvidia-persiste", "no kernel image",
           "NO_BINARY_FOR_GPU", "NoKernelImageForDevice", "Unsupported architecture", "KeyError: '", "skipping CUDA device",
           "driver version is insufficient", "InsufficientDriver", "Duplicate GPU detected", "TL_SHM ERROR", "iommu=pt", "forward compatibility", "display driver", "CompatNotSupported", "COMPAT_NOT_SUPPORTED",
           "DriverMismatch", "DRIVER_MISMATCH", "amdgpu is not supported", "amdgpu too old", "is not supported by", "exceeds limit (", "Switching to compatibility mode",
           "S call failed", "OperatingSystem", "OPERATING_SYSTEM", "undefined symbol", "symbol lookup for cu", "driver on your system is too old",
           "UnsupportedPtx", "UNSUPPORTED_PTX", "unsupported toolchain", "installed CUDA driver", "CallRequiresNewerDriver", "busy or unavailable", "DevicesUnavailable",
           "CUDA-capable device is detected", "NoDevice", "NO_DEVICE", "non-NVML platform", "No CUDA GPUs are available",
           "NVML Shared Library Not Found", "No platform detected", "No devices found", "No devices were found",
           "Discovered GPU libraries", "libcuda.so.1: cannot open",
           "Memory Subsystem Error", "compatibility mode is UNAVAILABLE", "in the Fabric Manager or NVSwitches", "Driver was not detected", "nvidia-smi is not installed", "Startup probe failed", "Failed to bind NVLink SHARP", "NVLINK connected GPUs", "ncorrectable NVLink error", "ncorrectable NVLINK error",
           "Cuda failure 401", "migEnabled=true", "of pinned memory", "pinned host memory", "pinned system memory", "CUDA error: unknown error", "has no device code", "kernel found: ",
           "not compiled with any CUDA arch", "ggml_cuda_compute_forward", "in function ggml_", "compiled without support for the current GPU", "kernel image is invalid",
           "InvalidKernelImage", "INVALID_IMAGE", "invalid device function", "InvalidDeviceFunction", "invalid MIG configuration", "Could not find real path of", "dxgkio_make_resident", "dxgkio_create_allocation", "send_create_allocation failed", "GPU access blocked", "Incompatible strategy",
           "NVML doesn't exist", "Pin memory is not supported", "not supported by this container",
           "mountpoint for devices", "unsatisfied condition", "nvidia-container-runtime-hook", "Runtime Hook directly", "Allocate failed due to",
           "plugin resources failed due to",
           "t initialize NVML", "No entries --", "starting llama server", "no GPU detected", "falling back to CPU",
           "accelerated runner", "Dynamic llm server", "CUDA memory pool disabled", "executable file not found", "WARN failed to op", "WARN Cuda failure",
           "NVLink error detected", "mapping of buffer object", "MapBufferObjectFailed", "NvlinkUncorrectable", "NVLINK_UNCORRECTABLE", "reading from server: EOF",
           "triton GPU compiler", "Triton only supports devices", "only supports Ampere GPUs", "CUDA GPU is too old",
           "Bfloat16 is only supported", "Your device is too old", "does not support Int8 Matmul",
           "not supported in this architecture", "require hardware with FP8", "MHA cannot be enabled on",
           "not supported for the current GPU", "the current GPU. Min capability",
           "MPS client failed", "MpsConnectionFailed", "MPS_CONNECTION_FAILED")


# A terminal line wrapped inside a word and pasted with the wrap turned into a run of spaces: ollama's
# `error="cuda driver library init failur             e: 802"` (ollama/ollama#5567, corpus 1330). Only a run of six or
# more between two lower-case letters is read so: a table's columns start with a capital, a digit or a sign.
_WRAPPED_WORD = re.compile(r"(?<=[a-z]) {6,}(?=[a-z])")


def _looks(line: str) -> tuple[str, ...]:
    """The line as read (its first LINE_LOOK_CHARS), and the same with its words rejoined where a wrap split one."""
    look = line[:LINE_LOOK_CHARS]
    joined = _WRAPPED_WORD.sub("", look) if "      " in look else look
    return (look,) if joined == look else (look, joined)


def is_symptom(line: str) -> bool:
    """Whether a line, on its own, is a symptom of the table (its first LINE_LOOK_CHARS read, a wrapped word
    rejoined)."""
    return any(any(n in look for n in NEEDLES) and any(s.pattern.search(look) for s in SYMPTOMS)
               for look in _looks(line))


def matched_span(line: str, check_id: str) -> tuple[int, int] | None:
    """Where in `line` the first symptom of the table that proves `check_id` matched (the words a report keeps when
    it cuts the line, report/header.quote_cut); None where none does."""
    look = line[:LINE_LOOK_CHARS]
    for s in SYMPTOMS:
        if check_id in (s.check, s.ggml_check) and (m := s.pattern.search(look)) and m.end() > m.start():
            return m.span()
    return None


def find_symptoms(lines: Sequence[str]) -> tuple[SymptomHit, ...]:
    """The table's symptoms in `lines`, at most MAX_HITS lines per symptom; a symptom whose `unless` line
    is in `lines` too is left out (the source says the failure had another cause). A line's first
    LINE_LOOK_CHARS are read, a word that a terminal wrap split rejoined (_WRAPPED_WORD)."""
    hits: list[SymptomHit] = []
    per: dict[str, int] = {}
    for line in lines:
        looks = [look for look in _looks(line) if any(n in look for n in NEEDLES)]
        if not looks:
            continue
        for s in SYMPTOMS:
            if per.get(s.name, 0) < MAX_HITS and any(s.pattern.search(look) for look in looks):
                hits.append(SymptomHit(s, line.strip()))
                per[s.name] = per.get(s.name, 0) + 1
    vetoed = {s.name for s in SYMPTOMS if s.name in per and s.unless is not None
              and any(s.unless.search(line) for line in lines)}
    return tuple(h for h in hits if h.symptom.name not in vetoed)


def _from_text(text: str) -> LogSymptoms:
    return LogSymptoms(find_symptoms(text.splitlines()))


@parser(ENGINE_LOG, feeds="log_symptoms", kind=LogSymptoms, rank=20)
def symptoms_in_engine_log(text: str) -> LogSymptoms:
    """Symptom lines of a pasted engine / NCCL log.

    Input (tests/data/captures/193)::

        host:2143:2561 [1] NCCL INFO Ring 00 : 1[1b000] -> 2[3d000] via direct shared memory
        host:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device
        host:2143:2561 [1] NCCL INFO include/shm.h:41 -> 2
    """
    return _from_text(text)


@parser(P2P_BANDWIDTH_TEST, feeds="log_symptoms", kind=LogSymptoms, rank=28)
def symptoms_in_bandwidth_test(text: str) -> LogSymptoms:
    """Symptom lines of a pasted GPU bandwidth test (nvbandwidth's CUDA errors).

    Input (tests/data/captures/1039, https://github.com/NVIDIA/nvbandwidth/issues/61)::

        [cudaErrorUnsupportedPtxVersion] the provided PTX was compiled with an unsupported toolchain. in expression
    """
    return _from_text(text)


@parser(NCCL_TESTS, feeds="log_symptoms", kind=LogSymptoms, rank=29)
def symptoms_in_nccl_tests(text: str) -> LogSymptoms:
    """Symptom lines of pasted nccl-tests output: its own `Test CUDA failure` lines carry the CUDA error's words.

    Input (tests/data/captures/1370, https://github.com/NVIDIA/nccl-tests/issues/338)::

        # Using devices
        gpu: Test CUDA failure common.cu:1030 'system not yet initialized'
    """
    return _from_text(text)


@parser(EVIDENCE_LINES, feeds="log_symptoms", kind=LogSymptoms, rank=30)
def symptoms_in_evidence_lines(text: str) -> LogSymptoms:
    """Symptom lines pasted on their own (an error quoted in prose).

    Input (tests/data/captures/190)::

        Attaching to gpu-hot-1
        Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]]
    """
    return _from_text(text)


@parser(RAY_LOG, feeds="log_symptoms", kind=LogSymptoms, rank=22)
def symptoms_in_ray_log(text: str) -> LogSymptoms:
    """Symptom lines of a pasted Ray log.

    Input (tests/data/captures/1079)::

        [2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory request exceeds memory available in /dev/shm. The request is for 10200547328 bytes, and the amount available is 9663676416 bytes.
    """
    return _from_text(text)


@parser(DCGMI_DIAG, feeds="log_symptoms", kind=LogSymptoms, rank=25)
def symptoms_in_dcgmi_diag(text: str) -> LogSymptoms:
    """Symptom rows of a pasted `dcgmi diag` table (its Info and Warning rows).

    Input (tests/data/captures/149, its last rows)::

        | CUDA Main Library         | Pass                                           |
        | Permissions and OS Blocks | Pass                                           |
        | Persistence Mode          | Pass                                           |
        | Info                      | Persistence mode for GPU 0 is disabled. Enabl  |
    """
    return _from_text(text)


@parser(NVIDIA_DAEMON_LOG, feeds="log_symptoms", kind=LogSymptoms, rank=35)
def symptoms_in_daemon_log(text: str) -> LogSymptoms:
    """Symptom lines of the NVIDIA daemons' pasted journal and status lines (Fabric Manager's own fatal words).

    Input (tests/data/captures/706)::

        `<node ip>: fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid value`.
    """
    return _from_text(text)


@provider("log_symptoms", LogSymptoms, rank=10, title="the kernel log (`dmesg`)")
def symptoms_in_kernel_log(ctx: FactContext) -> LogSymptoms:
    """Symptom lines of the kernel log (and of lines read as one: UCC's `[1723337199.099229] [host:1382 :0]` prefix
    looks like dmesg's)."""
    log = ctx.fact("kernel_log", KernelLog)
    if not any(n in log.text for n in ("Xid", "IO_PAGE_FAULT", "GSP", "kgsp", "GspRmImages", "Open nvidia.ko",
                                       "not supported by open", "[NV_ERR_", "RmInitAdapter", "nvidia-persiste",
                                       "TL_SHM ERROR")) \
            and not NVIDIA_KO_SYMBOLS.search(log.text):
        raise FactUnavailable("no symptom line in the kernel log")
    return LogSymptoms(find_symptoms(log.lines))
