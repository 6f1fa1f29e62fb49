"""A CUDA program ran on the GPUs: the source shows a program's CUDA context at work, with the line that shows it.

A CUDA runtime starts only on a driver that supports it: on one too old cuInit or the first runtime call fails
(cudaErrorInsufficientDriver, 35: "CUDA driver version is insufficient for CUDA runtime version"; torch's "The NVIDIA
driver on your system is too old"), a forward-compatibility package on a GPU that cannot use it fails with 804, an
image's libcuda that shadows the host's with 803. On an NVSwitch board CUDA refuses every GPU (802, "system not yet
initialized") until Fabric Manager has set up the fabric (facts/symptoms.py names each). So a program whose CUDA
context did work (memory allocated on a GPU, a copy between GPUs, a model's weights loaded) shows the runtime it
ships running on the installed driver, and the fabric up. `CudaRan` holds that evidence; `failed` holds a line of
the same source where CUDA refused to start, which wins.

What shows CUDA at work (each with the program whose runtime ran):
- torch's out-of-memory message, which its caching allocator writes after reading the GPU's memory through a live
  context: `GPU 0 has a total capacity of 94.97 GiB of which 164.81 MiB is free` (a quote cut after the total too),
  before torch 2.1 `CUDA out of memory. Tried to allocate 448.00 MiB (GPU 0; 23.65 GiB total capacity; ...` (TORCH_OOM);
- a kernel's own fault on the GPU (`CUDA error: an illegal memory access was encountered`, a device-side assert, an
  illegal instruction, a misaligned address: KERNEL_FAULT): the device reports it only for a kernel that ran there;
- TensorRT's report after it initialised CUDA (`[MemUsageChange] Init CUDA: CPU +13, GPU +0, now: CPU 126, GPU 262
  (MiB)`, TRT_INIT_CUDA) and vLLM's start-up check of the memory free on a device (`Free memory on device cuda:3
  (173.8/178.35 GiB) on startup is less than desired GPU memory utilization`, VLLM_FREE_ON_START): each read the GPU's
  memory through a context the driver accepted;
- TensorRT-LLM's executor ledger, which read the GPU's free memory after placing its components:
  `Free GPU memory before component creation attempt (GiB): 16.95` (TRTLLM_LEDGER);
- an nvbandwidth run whose test moved data (a matrix measured, a data check after a copy, a kernel launched): its
  devices' contexts were created (listing the devices alone is not: gpu_burn lists them, then fails with 802);
- a CUDA samples' p2pBandwidthLatencyTest run that answered peer access for its pairs (`Device=0 CAN Access Peer
  Device=1`, or CANNOT) or printed a bandwidth matrix: it reads each device's properties and asks the driver per pair
  through the runtime, which fails for every call with 802 on an NVSwitch board whose fabric is not set up (its device
  list alone is not counted: the answers or the figures must follow; corpus 1222);
- TensorRT-LLM's cluster info, logged at the start of trtllm-serve and trtllm-build: `[TRT-LLM] [I] SM count: 170`
  (TRTLLM_SM_COUNT). tensorrt_llm/auto_parallel/cluster_info.py infer_cluster_info first asks torch for the current
  device (torch's CUDA initialisation, which raises on a driver too old and on 802), then reads the SM count through
  cuda-python's `cudart.cudaGetDeviceProperties` without checking its error: a count above 0 is the runtime's answer
  from the GPU. Its `Compute capability` and `Total Memory` lines are NVML's, not CUDA's, and show nothing here;
- llama.cpp's CUDA backend allocating a buffer on a device or reading its free memory (ServingLog.ggml_cuda_line);
- llama.cpp's CUDA backend refused an allocation for memory on a device (`ggml_backend_cuda_buffer_type_alloc_buffer:
  allocating 7203.17 MiB on device 0: cudaMalloc failed: out of memory`, GGML_CUDA_OOM): the device's buffer type exists
  only once ggml_cuda_init counted the device through the runtime (on a driver too old for it, `failed to initialize
  CUDA: CUDA driver version is insufficient` and no CUDA device), and cudaMalloc answered with the GPU's memory
  (cudaErrorMemoryAllocation), not with error 35. Only `out of memory` counts; not where the lines show ggml's HIP
  build, which prints the same line (its devices are `ROCm0`: TORCH_ROCM; corpus 2373, Jan's Cortex engine, and 1059);
- the CUDA runtime answering an allocation with out of memory (cudaErrorMemoryAllocation) in an engine's words
  (TensorRT's `Error Code 1: Cuda Runtime (out of memory)`, TurboMind's `CUDA runtime error: out of memory`, ggml's
  pinned host buffer `failed to allocate 1024.00 MB of pinned memory: out of memory`, whose cudaMallocHost answers 35,
  100 or 803 where the runtime cannot start: CUDA_RUNTIME_OOM), vLLM's weight load measured on the GPU (`Loading model weights took 5.2032 GB`, V1's `Model
  loading took ... GiB`, VLLM_WEIGHTS_LOADED; not on its CPU or ROCm platforms), and an attention kernel's check of the
  GPU's architecture (flash-attn's `FlashAttention only supports Ampere GPUs or newer`, TGI's `GPU with CUDA capability
  7 5 is not supported`, ATTENTION_ARCH_CHECK): each is a call the runtime answered on a context the driver accepted,
  where a driver too old for it answers 35 first; as for GGML_CUDA_OOM, out of memory is CUDA working (corpus 2563,
  2565, 2568, 2557);
- vLLM's periodic metrics line generating tokens with its KV cache on the GPU (`Avg generation throughput: 72.8
  tokens/s, Running: 1 reqs, ... GPU KV cache usage: 37.1%`, vllm/v1/metrics/loggers.py; v0's metrics.py and
  llm_engine.py; vLLM 0.1's scheduler.py `Throughput: 181.6 tokens/s, Running: 1 reqs, ... GPU KV cache usage: 100.0%`,
  VLLM_V01_THROUGHPUT): the model ran forward passes on the GPU, torch's kernels among them (`Ran.decoded`:
  RT-TORCH-ARCH reads it). Not where the same log shows vLLM's CPU platform (`Automatically detected platform cpu.`,
  `Pin memory is not supported on CPU.`),
  whose cache the line also calls the GPU's. A rate of 0 shows nothing; a cache usage of 0.0% beside a rate above 0
  does (one short sequence in a pool sized to the GPU's memory rounds to 0.0%, and a window whose request finished
  has freed its blocks: corpus 1445);
- SGLang's decode line (`Decode batch. #running-req: 1010, #token: 55006, token usage: 0.93, gen throughput
  (token/s): 1397.13, #queue-req: 12279`, facts/serving_rate.SGLANG_DECODE) with a request running and a rate above
  0: its scheduler decoded a batch on the device (corpus 1454). Not where the source shows SGLang's CPU device
  (`--device cpu`, `device='cpu'`);
- llama.cpp's CUDA backend counting its devices (`ggml_cuda_init: found 3 CUDA devices:`, GGML_FOUND, one or more):
  ggml_cuda_init prints the count only after cudaGetDeviceCount succeeded, and on a driver too old for its runtime
  prints `failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version` instead; the count
  stands where a paste is cut before the device lines (corpus 1283, 1142);
- ollama's GPU discovery through the CUDA runtime it bundles (`Nvidia GPU detected via cudart`, OLLAMA_CUDART):
  gpu/gpu_info_cudart.c cudart_init calls cudaSetDevice(0) and fails with 'your nvidia driver is too old or missing'
  on cudaErrorInsufficientDriver, and gpu.go logs the line only when that init succeeded (ollama 0.1.x, corpus 1261);
- ollama's own decode (`ollama run --verbose`'s `eval rate:`) with every model `ollama ps` lists `100% GPU`, at a pace
  no CPU's memory feeds (rate times the model's size above CPU_DECODE_GBPS; `100% GPU` alone is the scheduler's
  placement, under which a runner whose CUDA failed decodes on the CPU: corpus 318, 1378);
- ollama's discovery listing a GPU under CUDA (`msg="inference compute" id=GPU-… library=cuda … name="NVIDIA H100 80GB
  HBM3" total="79.2 GiB" available="78.7 GiB"`, gpus.OLLAMA_GPU; `library=CUDA … description="…"` from 0.12): ollama
  0.1.3x to 0.11 lists a GPU only after its driver API probe (gpu_info_nvcuda.c: cuInit, a context on the device,
  cuMemGetInfo) or its bundled runtime's (gpu_info_cudart.c) read the GPU's free memory, and falls back to the CPU
  (`library=cpu`) where cuInit fails (802 on an NVSwitch board whose fabric is not set up, ollama/ollama#3940's
  `nvcuda init failure`); from 0.12 its runner lists the devices ggml_cuda_init counted through the runtime. One
  piece of evidence holds every GPU the lines name, by the order printed (corpus 1927);
- MLC LLM's device probe finding a CUDA device (`Found device: cuda:0`, MLC_CUDA_FOUND): it reads the device's
  `exist` attribute through its TVM build's CUDA runtime (cudaDeviceGetAttribute), which a driver too old for that
  runtime answers with error 35, and the probe then logs `Not found device: cuda:0` (corpus 1675);
- Triton's CUDA memory pool on a device (`cuda_memory_manager.cc:107] CUDA memory pool is created on device 0 with
  size 67108864`, TRITON_CUDA_POOL): CudaMemoryManager::Create logs it only after GetSupportedGPUs read the device
  count and each device's properties through the CUDA runtime (cudaGetDeviceCount, cudaGetDeviceProperties), which a
  driver too old for that runtime answers with error 35 (`Failed to initialize CUDA memory manager` instead;
  triton-inference-server/core src/cuda_memory_manager.cc; corpus 1769). Not where the same log shows the manager
  failing after it (`Failed to finalize CUDA memory manager: CNMEM_STATUS_CUDA_ERROR`: cnmemInit's allocation refused,
  as in a vGPU guest, corpus 1738, whose two readers say unknown);
- torch printing a tensor it holds on a CUDA device (`tensor([1., 2., 3.], device='cuda:0')`, TORCH_CUDA_TENSOR): the
  tensor's repr names the device its storage lives on, so torch's caching allocator allocated it there through its
  CUDA runtime (cudaMalloc, after the context started on the driver: a driver too old for the runtime fails
  `.cuda()` with 35 before any tensor is printed). Not where the lines show torch's ROCm build, whose devices HIP
  names `cuda:N` too (TORCH_ROCM), as for torch.cuda.is_available() below (corpus 2234: a Ray worker's tensor);
- Unsloth's start-up banner (`NVIDIA H20. Num GPUs = 8. Max memory: 95.005 GB. Platform: Linux.`, gpus.UNSLOTH_BANNER):
  torch's get_device_properties of CUDA device 0 and its device_count, which torch reads only once cudaGetDeviceCount
  succeeded (35 on a driver too old, 802 on an NVSwitch board whose fabric is not set up, fail it); the devices it
  counts are listed as device 0's model, the one name it prints (corpus 2358, 2364);
- DCGM's diagnostic (nvvs) memory test passing on a GPU (`Memory GPU0 ....... PASS`, NVVS_MEMORY_PASS): the test
  creates a CUDA context on the GPU and runs its kernels there (it reports `Unable to create CUDA context` otherwise,
  corpus 1266);
- ggml's stub for a kernel its build lacks for the GPU's arch (`ERROR: CUDA kernel mul_mat_q has no device code
  compatible with CUDA arch 700`, facts/symptoms.GGML_NO_DEVICE_CODE): the stub is device code that the runtime
  launched on the GPU and that printed the line from there before it trapped, so the context ran kernels;
- CUDA refusing a kernel launch for want of code for the GPU's architecture (`no kernel image is available for
  execution on the device`, cudaErrorNoKernelImageForDevice, 209; facts/symptoms.NO_KERNEL_IMAGE), in any program's
  lines (torch's, llama.cpp's, nccl-tests' `Test CUDA failure common.cu:253`): the runtime had created its context on
  the driver before the launch, and a driver too old for it fails the first call with 35 instead (corpus 2076). It
  counts beside a driver version the source shows (`proof(with_launch=True)`): the line names no program or host;
- CUDA stopping a program on an uncorrectable NVLink error (`CUDA error: uncorrectable NVLink error detected during the
  execution`, cudaErrorNvlinkUncorrectable 220; facts/symptoms.CUDA_NVLINK_UNCORRECTABLE): the error is of work the
  runtime ran across NVLink between GPUs, after its context had started on the driver (`Ran.peers`: more than one GPU;
  corpus 2271, TensorRT-LLM's executor on a B200 HGX);
- a collect_env or check_env whose torch initialised CUDA (`Is CUDA available: True`, `CUDA available: True`), where
  its torch is not shown built without CUDA or for ROCm (whose `Is CUDA available` is HIP's: cuda_build).
  torch.cuda.is_available() is torch's device count above 0, and c10/cuda/CUDAFunctions.cpp device_count_impl
  returns a count only where cudaGetDeviceCount succeeded: on cudaErrorInsufficientDriver (35) it warns that the
  NVIDIA driver is too old and counts 0 (CollectEnv.driver_too_old_cuda reads that warning).
  So is a Hugging Face environment report's torch of a CUDA wheel answering True (`accelerate env`'s `- PyTorch version
  (GPU?): 2.3.1+cu121 (True)`, transformers-cli env's `(accelerator?): 2.6.0+cu124 (CUDA)`: hf_torch_cuda; corpus 2266).
  So is TRL's report naming torch's devices (`- CUDA device(s): NVIDIA RTX A6000, ...`: torch.cuda.get_device_name for
  each device it counts; corpus 2627), and torch's capability warning naming a GPU by its CUDA index (`Found GPU0 NVIDIA
  GB10 which is of cuda capability 12.1.`, printed from its lazy init after cudaGetDeviceCount succeeded; corpus 2629,
  2514; the newer `with CUDA capability sm_120 is not compatible` sentence is not counted: 607 and 859 read unknown).
  That one is `torch_check`: a check reads it where the report's own lines do not settle the question. Where no
  driver line is shown (a report cut before it, lmdeploy's check_env, which prints none) it proves the runtime ran
  on the driver: both readers of the blind pastes say ok there (corpus 1652, 1770, 1774), and the older files whose
  one reader said unknown are gaps.

Sources, joined (`union`): pasted evidence lines and engine logs (the lines above), the nvbandwidth run, the engine
log's llama.cpp lines, the collect_env report, and the log symptoms of a refused start.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts._parse import LINE_LOOK_CHARS, ParseError
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.docker import (
    NGC_BANNER,
    NGC_BANNER_ENDED,
    NGC_CHECK,
    NGC_CHECK_LINE,
    NGC_RELEASE_CUDA,
    TGI_INFO_LINE,
    DockerContainers,
    image_cuda,
    tgi_image_cuda,
)
from stackaudit.facts.gpus import (
    COMFY_CUDA_DEVICE,
    GGML_FOUND,
    NVBANDWIDTH_TITLE,
    OLLAMA_GPU,
    P2P_TEST_TITLE,
    ROCM_BUILD_LINE,
    TORCH_PRINTED_SEP,
    UNSLOTH_BANNER,
    GpuInventory,
)
from stackaudit.facts.nvidia import NvidiaGpus, cuda_of_branch
from stackaudit.facts.ollama_cli import OllamaShown
from stackaudit.facts.peer_access import DQ_DEVICE, DQ_DRIVER_RUNTIME, NVBANDWIDTH, P2pBandwidth, answer_end
from stackaudit.facts.python_env import STATED_VERSION
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, parser, provider, union
from stackaudit.facts.serving_logs import ServingLog
from stackaudit.facts.serving_rate import (
    EXLLAMA_BENCHMARK,
    EXLLAMA_SOURCES,
    OLLAMA_VERBOSE,
    SGLANG_DECODE,
    VLLM_THROUGHPUT,
    MeasuredRate,
)
from stackaudit.facts.sources import (
    ENGINE_LOG,
    EVIDENCE_LINES,
    GGML_CUDA_DEVICES,
    NCCL_TESTS,
    P2P_BANDWIDTH_TEST,
)
from stackaudit.facts.symptoms import (
    CUDA_NVLINK_UNCORRECTABLE,
    GGML_NO_DEVICE_CODE,
    NO_KERNEL_IMAGE,
    SYMPTOMS,
    LogSymptoms,
)

# The refused start that Fabric Manager's fabric gates (802), as the symptom table reads it.
SYSTEM_NOT_READY = tuple(s for s in SYMPTOMS if s.name == "cuda-system-not-ready")
_NOT_READY_NEEDLES = ("initialized", "802", "NOT_READY", "NotReady")

# torch's CUDA out-of-memory message (c10/cuda/CUDACachingAllocator.cpp; `capacty` in releases before 1.13), and its
# form before 2.1 up to the GPU's total (`CUDA out of memory. Tried to allocate 448.00 MiB (GPU 0; 23.65 GiB total
# capacity;`, facts/gpus.TORCH_OOM_OLD): either read the GPU's memory through the process's live context.
# A quote cut after the total (`GPU 0 has a total capacity of 21.95 GiB`, the line's end: corpus 2756) is the same reading.
TORCH_OOM = re.compile(r"\bGPU (\d+) has a total capac(?:i)?ty of [\d.]+ [KMGT]iB(?: of which [\d.]+ [KMGT]?i?B is free|"
                       r"\.?\s*$)"
                       r"|\bCUDA out of memory\. Tried to allocate [\d.]+ (?:[KMG]iB|bytes|B) \(GPU (\d+); [\d.]+ "
                       r"(?:[KMGT]iB|bytes|B) total capacity;")
# llama.cpp's CUDA backend refused an allocation for the GPU's memory (ggml-cuda.cu,
# ggml_backend_cuda_buffer_type_alloc_buffer: `allocating %.2f MiB on device %d: cudaMalloc failed: %s`, the error as
# cudaGetErrorString writes cudaErrorMemoryAllocation): after a log's prefix (`... UTC 8354 ERROR `, `0.02.473.647 E `).
GGML_CUDA_OOM = re.compile(r"\bggml_backend_cuda_buffer_type_alloc_buffer: allocating [\d.]+ MiB on device (\d+): "
                           r"cudaMalloc failed: out of memory\b")
# The CUDA runtime's own out-of-memory error (cudaErrorMemoryAllocation, as cudaGetErrorString writes it) in the words
# of an engine that reports it: TensorRT's error recorder (`Error Code 1: Cuda Runtime (out of memory)`, corpus 2563),
# TurboMind's check_cuda_error (`[TM][ERROR] CUDA runtime error: out of memory /lmdeploy/...`, corpus 2565). The call
# that answered it ran on a context the driver accepted: a driver too old for the runtime answers 35 instead.
# CTranslate2's THROW_RUNTIME_ERROR of a CUDA call (src/cuda/utils.h CUDA_CHECK: `CUDA failed with error ` and
# cudaGetErrorString's words, faster-whisper's `RuntimeError: CUDA failed with error out of memory`, corpus 2671).
CUDA_RUNTIME_OOM = re.compile(r"\bCuda Runtime \(out of memory\)|\bCUDA runtime error: out of memory\b"
                              r"|\bCUDA failed with error out of memory\b"
                              # ggml's pinned host buffer (ggml_cuda_host_malloc's cudaMallocHost, corpus 1334, 2650):
                              # the runtime started on the driver to answer it (35, 100 or 803 where it could not).
                              r"|\bfailed to allocate [\d.]+ [KMG]i?B of pinned memory: out of memory\b")
# vLLM's weight load measured on the GPU (DeviceMemoryProfiler: torch.cuda's peak allocation): V0's model_runner.py
# `Loading model weights took 5.2032 GB`, V1's gpu_model_runner.py `Model loading took 14.99 GiB and 5.3 seconds`
# (`GiB memory and` in later releases). Above 0 the weights were allocated through torch's CUDA runtime (corpus 2568).
VLLM_WEIGHTS_LOADED = re.compile(r"\b(?:Loading model weights took|Model loading took) (\d+\.\d+) Gi?B\b")
# vLLM's platforms other than CUDA, whose weight line reads the same (`Automatically detected platform rocm.`).
VLLM_NOT_CUDA = re.compile(r"detected platform (?:cpu|rocm|xpu|tpu|neuron|hpu)\b")
# An attention kernel's check of the GPU's architecture, after reading its properties through torch's CUDA runtime:
# flash-attn's mha_fwd (csrc/flash_attn/flash_api.cpp: at::cuda::getCurrentDeviceProperties, then `FlashAttention only
# supports Ampere GPUs or newer.`, the symptom table's flash-attn-ampere-only), TGI's import check
# (torch.cuda.get_device_capability: `GPU with CUDA capability 7 5 is not supported for Flash Attention V2`). torch's
# lazy CUDA init, which a driver too old for its runtime fails with 35, comes first (corpus 2557).
ATTENTION_ARCH_CHECK = re.compile("|".join([*(s.pattern.pattern for s in SYMPTOMS if s.name == "flash-attn-ampere-only"),
                                            r"\bGPU with CUDA capability \d+ \d+ is not supported\b"]))
# vLLM's dtype check refusing bfloat16 names the GPU and the compute capability it read from the device
# (worker.py `_check_if_gpu_supports_dtype`: current_platform's device name and capability, through NVML or torch's
# CUDA): `Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Quadro RTX 6000 GPU has
# compute capability 7.5.` (corpus 2871).
VLLM_DTYPE_CHECK = re.compile(r"\bYour (.{1,60}?) GPU has compute capability (\d+\.\d+)")
# A kernel that faulted on the GPU, in cudaGetErrorString's words after `CUDA error: ` (torch's, NCCL's watchdog's,
# most programs') or the error's enum name: an illegal memory access (cudaErrorIllegalAddress, 700), a device-side
# assert (710), an illegal instruction (715), a misaligned address (716). The device reports each only for a kernel
# that ran on it and faulted there, so the runtime had created its context on the driver first (a driver too old for
# the runtime fails its first call with 35; corpus 2688, vLLM's NCCL watchdog on rank 2). Not CUDA's catch-all
# `unspecified launch failure` (719), which names no fault of the kernel's own (corpus 1327, a vGPU guest, read unknown).
# llama.cpp's CUDA backend of 2023 prints the error's code and place before the words (ggml-cuda.cu CUDA_CHECK: `CUDA
# error 700 at .../ggml-cuda.cu:8111: an illegal memory access was encountered`, in ollama's journal: corpus 2253).
KERNEL_FAULT = re.compile(r"\bCUDA error(?: 7\d\d at \S+:\d+)?: (?:an illegal memory access was encountered|"
                          r"device-side assert triggered|an illegal instruction was encountered|misaligned address)\b|"
                          r"\bcudaError(?:IllegalAddress|Assert|IllegalInstruction|MisalignedAddress)\b")
# TensorRT's memory report after it initialised CUDA (`[TRT] [I] [MemUsageChange] Init CUDA: CPU +13, GPU +0, now: CPU
# 126, GPU 262 (MiB)`, TensorRT's builder and runtime through TensorRT-LLM's build.py, corpus 2720): TensorRT creates its
# CUDA context, then reads the GPU memory in use through it (cudaMemGetInfo); where the runtime cannot start it logs
# `CUDA initialization failure with error: 35` instead.
TRT_INIT_CUDA = re.compile(r"\[MemUsageChange\] Init CUDA: CPU [+-]?\d+, GPU [+-]?\d+, now: CPU \d+, GPU (\d+) \(MiB\)")
# vLLM refusing to start for the memory free on a device (v1's worker/utils.py request_memory, `Free memory on device
# cuda:3 (173.8/178.35 GiB) on startup is less than desired GPU memory utilization`; before the device was named, `Free
# memory on device (...)`): the free and total memory torch.cuda.mem_get_info read through the worker's CUDA context
# (corpus 2754).
VLLM_FREE_ON_START = re.compile(r"\bFree memory on device (?:(cuda:\d+) )?\(([\d.]+)/([\d.]+) GiB\) on startup\b")
# TensorRT-LLM's executor ledger (tensorrt_llm/_torch/pyexecutor/py_executor_creator.py).
TRTLLM_LEDGER = re.compile(r"\bFree GPU memory before component creation attempt \(GiB\): [\d.]+")
# TensorRT-LLM's cluster info: the SM count CUDA's runtime read of the GPU (cluster_info.py infer_cluster_info); 0 where
# the call failed (its error is not checked).
TRTLLM_SM_COUNT = re.compile(r"\[TRT-LLM\]\s*\[I\]\s*SM count: ([1-9]\d*)\s*$")
# A refused start (facts/symptoms.py): the runtime above the driver (35), forward compatibility on a GPU without it
# (804), an image's libcuda against the host's driver (803), a fabric not set up (802).
REFUSED_START = ("cuda-insufficient-driver", "cuda-compat-unsupported-hw", "cuda-driver-mismatch-in-container",
                 "cuda-system-not-ready", "ngc-driver-too-old")
# vLLM's metrics line (facts/serving_rate.VLLM_THROUGHPUT) goes on to the KV cache on the GPU: `GPU KV cache usage: 37.1%`.
VLLM_KV_USAGE = re.compile(r"\bGPU KV cache usage:\s*([\d.]+)%")
# vLLM's CPU platform: its detection line (`Automatically detected platform cpu.`) and the warning its CpuPlatform
# prints for pinned memory (`Pin memory is not supported on CPU.`, vllm/platforms/cpu.py; corpus 1521).
VLLM_CPU_PLATFORM = re.compile(r"detected platform cpu|Pin memory is not supported on CPU")
# vLLM 0.1's scheduler line (vllm/core/scheduler.py, mid 2023), before the prompt and generation rates were split.
VLLM_V01_THROUGHPUT = re.compile(r"\bThroughput:\s*([\d.]+) tokens/s, Running:\s*(\d+) reqs?,.*?GPU KV cache usage:\s*"
                                 r"([\d.]+)%")
# SGLang's CPU device (server_args `device='cpu'`, the `--device cpu` flag): its decode line then shows no GPU at work.
SGLANG_CPU_DEVICE = re.compile(r"device=['\"]cpu['\"]|--device[= ]cpu\b")
# ollama's discovery after its bundled libcudart set device 0 (gpu/gpu.go, ollama 0.1.x; gpu_info_cudart.c cudart_init).
OLLAMA_CUDART = re.compile(r"\bNvidia GPU detected via cudart\b")
# ollama's discovery reading a GPU's free memory through the CUDA driver or runtime library it loaded
# (gpu_info_nvcuda.c's cuMemGetInfo, gpu_info_cudart.c's cudaMemGetInfo; logged with OLLAMA_DEBUG=1, 0.1.3x to 0.5):
# `[GPU-54007339-...] CUDA freeMem 80059 mb`, `[GPU-c2e245dd-...] CUDA freeMem 7185mb` (corpus 1927, ollama/ollama#11983),
# after journald's prefix too (ollama/ollama#3940).
# Its `CUDA totalMem 24563 mb` line comes from the same cuMemGetInfo (cudaMemGetInfo) answer, printed first (corpus 2690,
# a paste cut before the freeMem line).
OLLAMA_FREEMEM = re.compile(r"(?:^|\s)\[(?:GPU-[0-9a-fA-F-]+|\d+)\] CUDA (?:free|total)Mem \d+ ?mb\b")
# nvvs's (dcgmi diag's engine) per-GPU memory test result, as its plain-text output prints it.
NVVS_MEMORY_PASS = re.compile(r"^\s*Memory GPU(\d+) \.{3,} PASS\s*$")
# MLC LLM's device probe finding a CUDA device (mlc_llm/support/auto_device.py: `Found device: cuda:0`, logged as
# `INFO:mlc_chat.support.auto_device:Found device: cuda:0` or `INFO auto_device.py:79: Found device: cuda:0`); a paste's
# reader peels the logger's `INFO:name:` prefix, so the line alone, whole, counts too.
MLC_CUDA_FOUND = re.compile(r"(?:\bauto_device(?:\.py:\d+)?:\s*|^\s*)Found device: cuda:(\d+)\s*$")
# Triton's CUDA memory pool (triton-inference-server/core src/cuda_memory_manager.cc CudaMemoryManager::Create),
# logged after the runtime read the devices (GetSupportedGPUs); newer releases quote the message.
TRITON_CUDA_POOL = re.compile(r"\bcuda_memory_manager\.cc:\d+\]\s*\"?CUDA memory pool is created on device (\d+) with size "
                              r"([1-9]\d*)")
# Triton's memory manager failing (server.cc): `Failed to finalize CUDA memory manager` after the pool line, `Failed to
# initialize` where the devices could not be read.
TRITON_POOL_FAILED = re.compile(r"Failed to (?:initialize|finalize) CUDA memory manager")
# The entrypoint of NVIDIA's NGC images (nvidia_entrypoint.sh) finding the driver inside its container: a Jetson's
# `NVIDIA Tegra driver detected.` (triton-inference-server/server#6373, corpus 1828), or its version check reading the
# host driver's version (`... version 510.85.02 was detected and compatibility mode is UNAVAILABLE.`).
DRIVER_FOUND_INSIDE = re.compile(r"^\W*NVIDIA Tegra driver detected\.?\s*$|\b"
                                 + NGC_CHECK["unavailable"][1].pattern + r"\b")
# NCCL's line for a rank whose communicator finished its init (init.cc: `comm 0x.. rank 0 nranks 2 cudaDev 0 busId 1a000
# - Init COMPLETE` before 2.18, `ncclCommInitRank comm 0x.. rank 13 nranks 16 cudaDev 5 nvmlDev 5 busId b1000 commId
# 0x.. - Init COMPLETE` since): the init allocated the communicator's device memory on cudaDev through the CUDA runtime
# (ncclCudaCalloc), which a driver too old for that runtime refuses with error 35 and an NVSwitch board without its
# fabric with 802, so the rank never reaches the line.
NCCL_INIT_COMPLETE = re.compile(r"\brank (\d+) nranks (\d+) cudaDev (\d+)\b.*-\s*Init COMPLETE\b")
# A Python session asking torch whether CUDA is available (`>>> torch.cuda.is_available()`,
# `print(torch.cuda.is_available())`, `python -c "import torch; print(torch.cuda.is_available())"`), its answer printed
# on a later line on its own (peer_access.answer_end finds it): True is torch's device count above 0, which
# c10/cuda/CUDAFunctions.cpp device_count_impl returns only where cudaGetDeviceCount succeeded (on a driver too old it
# warns and counts 0).
TORCH_CUDA_QUERY = re.compile(r"\btorch\.cuda\.is_available\(\)")
# The same query printed with its answer on its own line (`torch.cuda.is_available() / True`, corpus 2916;
# `torch.cuda.is_available(): True`): the expression, a separator (gpus.TORCH_PRINTED_SEP), True.
TORCH_CUDA_ANSWERED = re.compile(r"^\W{0,3}(?:print\()?torch\.cuda\.is_available\(\)" + TORCH_PRINTED_SEP + r"True\s*$")
# torch's ROCm build, whose torch.cuda.is_available() is HIP's (`2.6.0+rocm6.2`, `torch.version.hip` printed), and
# ggml's HIP build, whose devices are `ROCm0` (its CUDA backend's lines otherwise read as CUDA's), and vLLM's ROCm
# attention backend or torch's hipBLASLt fallback (facts/gpus.ROCM_BUILD_LINE: vLLM's weight line on ROCm, corpus 2693).
TORCH_ROCM = re.compile(r"\+rocm\d|\btorch\.version\.hip\b|\bROCm(?:\b|\d)|" + ROCM_BUILD_LINE.pattern)
# torch's repr of a tensor on a CUDA device, as print() writes it: `tensor([1., 2., 3.], device='cuda:0')`, after a log's
# prefix (Ray's `(pid=28612) `), with the keywords torch adds after the device (`, dtype=torch.int32)`, `,
# grad_fn=<AddBackward0>)`, `, requires_grad=True)`). The repr opens the line's own words: code that builds a tensor on
# the device (`x = torch.tensor([1], device='cuda:0')`, `x = tensor(...)`) has a call or an assignment before it, and a
# repr holds no `=` before its device.
TORCH_CUDA_TENSOR = re.compile(r"^(?:\s*\((?:\w+ )?pid=\d+(?:, ip=[\d.]+)?\))?\s*tensor\([^=\n]{0,2000}?, device='cuda:(\d+)'"
                               r"(?:, \w+=[^,()=\n]{1,80})*\)\s*$")
NEEDLES = ("cudaMalloc failed: out of memory", "Max memory: ", "device='cuda:", "Init COMPLETE", "is_available()", "Tegra driver detected", "total capac", "CUDA memory pool is created", "Found device: cuda", "component creation attempt", "SM count: ", "GPU KV cache usage", "detected via cudart", "CUDA freeMem",
           "Memory GPU", "has no device code", "gen throughput", "no kernel image", "NO_BINARY_FOR_GPU",
           "NoKernelImage", "NVLink error detected", "NvlinkUncorrectable", "NVLINK_UNCORRECTABLE", "ut of memory)",
           "runtime error: out of memory", " took ", "GPUs or newer", "is not supported", "CUDA device(s)",
           "Device: cuda:", "failed with error out of memory", "CUDA totalMem", "CUDA error: ", "CUDA error 7", "cudaError",
           "Init CUDA:", "on startup", "GPU has compute capability", "of pinned memory: out of memory")


@dataclass(frozen=True)
class Ran:
    """One piece of evidence: the program whose CUDA ran, what it did in words, the line, the GPU models it
    listed (by CUDA index, where it lists them) and the CUDA indices it used."""
    program: str
    did: str
    line: str
    models: tuple[str, ...] = ()
    devices: tuple[int, ...] = ()
    decoded: bool = False  # an engine generated tokens on the GPU: its model's kernels ran there (torch's included)
    # A kernel launch CUDA refused for want of code (209): counted only beside a driver version shown (`with_launch`).
    launch: bool = False
    # The work crossed NVLink between GPUs (CUDA's NVLink error): the program ran on more than one GPU.
    peers: bool = False
    # nvidia-smi's reading of memory a program holds on the GPU (held_in_table): counted only where asked
    # (`with_held`): the program holding it is not named, so it speaks for the fabric, not for a runtime's version.
    held: bool = False
    # The program read the GPU's name and compute capability (vLLM's dtype check, through NVML or torch's CUDA):
    # counted only where asked (`with_read`): it shows the device reached the process, not a CUDA runtime at work.
    read: bool = False


@dataclass(frozen=True)
class CudaRan(Sourced):
    ran: tuple[Ran, ...] = ()
    torch_check: Ran | None = None  # a collect_env's torch initialising CUDA
    failed: str = ""  # a line where CUDA refused to start
    driver_inside: str = ""  # an NVIDIA image's entrypoint finding the driver inside its container (DRIVER_FOUND_INSIDE)
    # The refused starts (error 802) that CUDA at work after them in the same source shows behind (ran_after): the
    # fabric gated CUDA on these GPUs and is up now; none of them is `failed`.
    recovered: tuple[str, ...] = ()

    def proof(self, with_report: bool = False, with_launch: bool = False, with_held: bool = False,
              with_read: bool = False) -> Ran | None:
        """The first piece of evidence that CUDA ran, None where the source shows none or shows CUDA refusing to
        start; `with_report` lets a collect_env's torch initialising CUDA count, `with_launch` a kernel launch CUDA
        refused for want of code (Ran.launch), `with_held` memory nvidia-smi shows held on the GPUs (Ran.held),
        `with_read` a program's reading of the GPU's name and compute capability (Ran.read)."""
        if self.failed:
            return None
        found = next((r for r in self.ran if (with_launch or not r.launch) and (with_held or not r.held)
                      and (with_read or not r.read)), None)
        return found if found is not None else (self.torch_check if with_report else None)

    def decoded(self) -> Ran | None:
        """The first line where an engine generated tokens on the GPU (vLLM's metrics line), None where the source
        shows none or shows CUDA refusing to start: the model's forward passes ran there, torch's kernels with them."""
        if self.failed:
            return None
        return next((r for r in self.ran if r.decoded), None)

    @classmethod
    def union(cls, parts: Sequence[CudaRan]) -> CudaRan:
        recovered = tuple(dict.fromkeys(line for p in parts for line in p.recovered))
        return cls(tuple(dict.fromkeys(r for p in parts for r in p.ran)),
                   next((p.torch_check for p in parts if p.torch_check is not None), None),
                   next((p.failed for p in parts if p.failed and p.failed not in recovered), ""),
                   next((p.driver_inside for p in parts if p.driver_inside), ""), recovered,
                   complete=all(p.complete for p in parts))


fact("cuda_ran", CudaRan, union, hint="paste the engine's log from its start")


def ran_in_lines(lines: Sequence[str]) -> tuple[Ran, ...]:
    """The lines of a CUDA program's own that show its CUDA at work on a GPU (torch's out-of-memory message,
    TensorRT-LLM's executor ledger and cluster info's SM count, vLLM's metrics line, SGLang's decode line, ollama's
    cudart discovery and its reading of a GPU's free memory, Triton's CUDA memory pool, torch's tensor printed on a
    CUDA device where no line shows torch's ROCm build, nvvs's memory test passing)."""
    found: list[Ran] = []
    cpu_vllm = any(VLLM_CPU_PLATFORM.search(line) for line in lines)
    cpu_sglang = any(SGLANG_CPU_DEVICE.search(line) for line in lines)
    pool_failed = any(TRITON_POOL_FAILED.search(line) for line in lines)
    rocm = any(TORCH_ROCM.search(line) for line in lines)
    not_cuda_vllm = cpu_vllm or any(VLLM_NOT_CUDA.search(line) for line in lines)
    for line in lines:
        if not any(n in line for n in NEEDLES):
            continue
        if "GPU KV cache usage" in line:
            if not cpu_vllm and (ran := _vllm_generating(line)) is not None:
                found.append(ran)
            continue
        if "gen throughput" in line:
            if not cpu_sglang and (ran := _sglang_decoding(line)) is not None:
                found.append(ran)
            continue
        oom = TORCH_OOM.search(line)
        if oom:
            gpu = oom.group(1) or oom.group(2)
            found.append(Ran("torch", f"torch's CUDA allocator read GPU {gpu}'s memory (its out-of-memory message)",
                             oom.group(0), devices=(int(gpu),)))
        elif sm := TRTLLM_SM_COUNT.search(line):
            found.append(Ran("TensorRT-LLM", f"TensorRT-LLM's CUDA runtime read the GPU's {sm.group(1)} SMs (its "
                             "cluster info, after torch initialised CUDA)", line.strip()))
        elif (alloc := GGML_CUDA_OOM.search(line)) and not rocm:
            found.append(Ran("llama.cpp", f"llama.cpp's CUDA backend asked cudaMalloc for memory on device "
                             f"{alloc.group(1)}, which answered out of memory (the runtime ran on the driver)",
                             alloc.group(0), devices=(int(alloc.group(1)),)))
        elif (rt_oom := CUDA_RUNTIME_OOM.search(line)) and not rocm:
            found.append(Ran("the failing program", "the program's CUDA runtime answered an allocation with out of "
                             "memory (cudaErrorMemoryAllocation) on a context the driver had accepted", rt_oom.group(0)))
        elif (weights := VLLM_WEIGHTS_LOADED.search(line)) and float(weights.group(1)) > 0 and not rocm \
                and not not_cuda_vllm:
            found.append(Ran("vLLM", f"vLLM loaded {weights.group(1)} GB of weights onto the GPU through torch's CUDA "
                             "runtime (its memory profiler's reading)", weights.group(0)))
        elif dtype := VLLM_DTYPE_CHECK.search(line):
            found.append(Ran("vLLM", f"vLLM's dtype check read the {dtype.group(1)}'s compute capability "
                             f"({dtype.group(2)}) from the device", dtype.group(0), models=(dtype.group(1),), read=True))
        elif (arch := ATTENTION_ARCH_CHECK.search(line)) and not rocm:
            found.append(Ran("torch", "an attention kernel read the GPU's properties through torch's CUDA runtime and "
                             "refused its architecture", arch.group(0)))
        elif stub := GGML_NO_DEVICE_CODE.search(line):
            found.append(Ran("ggml", f"ggml's CUDA runtime launched kernels on the GPU (arch {stub.group(2)}), whose stub "
                             f"for {stub.group(1)} printed its missing-code error from the device", stub.group(0)))
        elif kernel := NO_KERNEL_IMAGE.search(line):
            found.append(Ran("the failing program", "the program's CUDA runtime launched a kernel on the GPU, which "
                             "CUDA refused for want of code for the GPU's architecture (error 209) after the runtime "
                             "had started on the driver", kernel.group(0), launch=True))
        elif (fault := KERNEL_FAULT.search(line)) and not rocm:
            found.append(Ran("the failing program", "the program's CUDA runtime ran a kernel on the GPU, which faulted "
                             f"({fault.group(0).rpartition(': ')[2]}) after the runtime had started on the "
                             "driver", fault.group(0)))
        elif trt := TRT_INIT_CUDA.search(line):
            found.append(Ran("TensorRT", f"TensorRT initialised CUDA and read {trt.group(1)} MiB of GPU memory in use "
                             "through its context (its MemUsageChange report)", trt.group(0)))
        elif (free := VLLM_FREE_ON_START.search(line)) and not rocm and not not_cuda_vllm:
            device = free.group(1) or "the device"
            found.append(Ran("vLLM", f"vLLM read {free.group(2)} of {free.group(3)} GiB free on {device} through "
                             "torch's CUDA runtime (its start-up memory check)", free.group(0),
                             devices=(int(device[5:]),) if free.group(1) else ()))
        elif nvlink := CUDA_NVLINK_UNCORRECTABLE.search(line):
            found.append(Ran("the failing program", "the program's CUDA runtime ran work across NVLink between GPUs, "
                             "which met an uncorrectable NVLink error (220) after the runtime had started on the driver",
                             nvlink.group(0), peers=True))
        elif TRTLLM_LEDGER.search(line):
            found.append(Ran("TensorRT-LLM", "TensorRT-LLM placed its model on the GPU and read the memory left "
                             "(its executor's ledger)", line.strip()))
        elif OLLAMA_CUDART.search(line):
            found.append(Ran("ollama", "ollama's GPU discovery set device 0 through the CUDA runtime it bundles "
                             "(cudart_init's cudaSetDevice)", line.strip()))
        elif OLLAMA_FREEMEM.search(line):
            found.append(Ran("ollama", "ollama's GPU discovery read the GPU's free memory through the CUDA library it "
                             "loaded (cuMemGetInfo)", line.strip()))
        elif mlc := MLC_CUDA_FOUND.search(line):
            found.append(Ran("MLC LLM", f"MLC LLM's device probe found cuda:{mlc.group(1)} through the CUDA runtime of "
                             "its TVM build (the device's `exist` attribute, read with cudaDeviceGetAttribute)",
                             line.strip(), devices=(int(mlc.group(1)),)))
        elif (pool := TRITON_CUDA_POOL.search(line)) and not pool_failed:
            found.append(Ran("Triton", f"Triton created its CUDA memory pool on device {pool.group(1)} after its CUDA "
                             "runtime read the devices (cudaGetDeviceCount, cudaGetDeviceProperties)", pool.group(0),
                             devices=(int(pool.group(1)),)))
        elif nccl := NCCL_INIT_COMPLETE.search(line):
            found.append(Ran("NCCL", f"NCCL rank {nccl.group(1)} of {nccl.group(2)} finished its communicator's init on "
                             f"cudaDev {nccl.group(3)}, whose device memory it allocated through the CUDA runtime",
                             line.strip(), devices=(int(nccl.group(3)),)))
        elif (tensor := TORCH_CUDA_TENSOR.match(line)) and not rocm:
            found.append(Ran("torch", f"torch printed a tensor it holds on cuda:{tensor.group(1)} (its caching allocator "
                             "allocated it there through torch's CUDA runtime)", line.strip(),
                             devices=(int(tensor.group(1)),)))
        elif (banner := UNSLOTH_BANNER.search(line)) and not rocm:
            count = int(banner["count"] or 1)
            found.append(Ran("torch", f"Unsloth's banner read CUDA device 0's properties through torch's CUDA runtime "
                             f"({banner['name'].strip()}, {banner['memory']} GB" + (f", {count} devices counted)"
                                                                                      if banner["count"] else ")"),
                             banner.group(0), models=(banner["name"].strip(),) * count, devices=(0,)))
        elif (comfy := COMFY_CUDA_DEVICE.match(line)) and not rocm:
            found.append(Ran("torch", f"ComfyUI's model management named cuda:{comfy.group(1)} ({comfy.group(2)}) "
                             "through torch's CUDA runtime after reading its memory (torch.cuda.mem_get_info)",
                             line.strip(), models=(comfy.group(2),), devices=(int(comfy.group(1)),)))
        elif mem := NVVS_MEMORY_PASS.match(line):
            found.append(Ran("nvvs", f"nvvs's memory test created a CUDA context on GPU {mem.group(1)} and passed",
                             line.strip(), devices=(int(mem.group(1)),)))
    if (listed := _ollama_listed(lines)) is not None:
        found.append(listed)
    return tuple(dict.fromkeys(found))


def _ollama_listed(lines: Sequence[str]) -> Ran | None:
    """ollama's discovery listing GPUs under CUDA (gpus.OLLAMA_GPU), one piece of evidence with every GPU its
    `inference compute` lines name (once per GPU id, in the order printed); None where the lines show none."""
    named: dict[str, str] = {}
    first = ""
    for line in lines:
        if "inference compute" in line and (m := OLLAMA_GPU.search(line)):
            named.setdefault(m.group(1), m.group(2))
            first = first or line.strip()
    if not named:
        return None
    return Ran("ollama", f"ollama's GPU discovery read the free memory of {len(named)} GPU(s) through CUDA (its "
               "`inference compute` lines, library=cuda)", first, tuple(named.values()))


def _vllm_generating(line: str) -> Ran | None:
    """vLLM's metrics line (VLLM_THROUGHPUT, else vLLM 0.1's VLLM_V01_THROUGHPUT) where the engine generated tokens
    with its KV cache on the GPU (a usage that rounds to 0.0% included), else None."""
    rate, kv = VLLM_THROUGHPUT.search(line), VLLM_KV_USAGE.search(line)
    tokens = rate.group(2) if rate is not None else None
    if rate is None and (old := VLLM_V01_THROUGHPUT.search(line)) is not None:
        tokens = old.group(1)
    if tokens is None or kv is None or float(tokens) <= 0:
        return None
    return Ran("vLLM", f"vLLM generated {tokens} tokens/s with {kv.group(1)}% of its GPU KV cache in use (its metrics "
               "line)", line.strip(), decoded=True)


def _sglang_decoding(line: str) -> Ran | None:
    """SGLang's decode line (SGLANG_DECODE) with a request running and a rate above 0, else None."""
    m = SGLANG_DECODE.search(line)
    if m is None or int(m.group(1)) <= 0 or float(m.group(2)) <= 0:
        return None
    return Ran("SGLang", f"SGLang decoded {m.group(1)} running request(s) at {m.group(2)} tokens/s (its decode batch "
               "line)", line.strip(), decoded=True)


# torch naming a GPU by CUDA's index in its capability warning (`Found GPU0 NVIDIA GB10 which is of cuda capability
# 12.1.`, gpus.TORCH_WARNED's form with the index; torch/cuda/__init__.py _check_capability): torch's lazy init prints it
# after cudaGetDeviceCount succeeded and get_device_capability read the device (corpus 2629, 2514).
_TORCH_FOUND_GPU = re.compile(r"\bFound GPU\d+ [^\n]{1,80}? which is of cuda capability \d+\.\d+")
# TRL's environment report listing its CUDA devices by name (`- CUDA device(s): NVIDIA RTX A6000, NVIDIA RTX A6000`,
# `trl env`: torch.cuda.get_device_name for each device torch counts), an NVIDIA model named first (corpus 2627).
_TRL_CUDA_DEVICES = re.compile(r"^\s*-\s*CUDA device\(s\):\s*(?:NVIDIA|Tesla|Quadro|GeForce)\b")


def torch_answered(lines: Sequence[str]) -> Ran | None:
    """A Python session's torch answering True to torch.cuda.is_available() (TORCH_CUDA_QUERY), a Hugging Face
    environment report's torch of a CUDA wheel printing True (hf_torch_cuda), TRL's report naming torch's CUDA devices
    (_TRL_CUDA_DEVICES), or torch's capability warning naming a GPU by its CUDA index (_TORCH_FOUND_GPU); None where the
    lines show none, or show torch's ROCm build (TORCH_ROCM), whose answer is HIP's."""
    if any(TORCH_ROCM.search(line) for line in lines):
        return None
    if (hf := next((line.strip() for line in lines if hf_torch_cuda(line)), None)) is not None:
        return Ran("torch", "torch of a CUDA wheel initialised CUDA where the Hugging Face environment report ran "
                   "(torch.cuda.is_available() printed True)", hf)
    named = next((line.strip() for line in lines if trl_cuda_devices(line)), None)
    if named is not None:
        return Ran("torch", "torch initialised CUDA and named its devices where TRL's environment report ran", named)
    warned = next((line.strip() for line in lines if "which is of cuda capability" in line
                   and _TORCH_FOUND_GPU.search(line[:LINE_LOOK_CHARS])), None)
    if warned is not None:
        return Ran("torch", "torch initialised CUDA and read the GPU's capability before it warned", warned)
    inline = next((line.strip() for line in lines if "is_available()" in line and TORCH_CUDA_ANSWERED.match(line)), None)
    if inline is not None:
        return Ran("torch", "torch initialised CUDA in the user's Python (torch.cuda.is_available() printed True)",
                   inline)
    for i, line in enumerate(lines):
        if "is_available()" in line and (end := answer_end(lines, i, TORCH_CUDA_QUERY)) > i + 1 \
                and lines[end - 1].strip() == "True":
            return Ran("torch", "torch initialised CUDA in the user's Python (torch.cuda.is_available() printed True)",
                       f"{line.strip()} -> True")
    return None


def trl_cuda_devices(line: str) -> bool:
    """Whether a line is TRL's environment report naming torch's CUDA devices (_TRL_CUDA_DEVICES)."""
    return "CUDA device(s)" in line and _TRL_CUDA_DEVICES.match(line) is not None


def hf_torch_cuda(line: str) -> bool:
    """Whether a line is a Hugging Face environment report's torch line (python_env.STATED_VERSION, its HF_AVAILABLE
    answer) of a CUDA wheel (`+cu121`) whose torch.cuda.is_available() printed True (`accelerate env`, `diffusers-cli
    env`: `- PyTorch version (GPU?): 2.3.1+cu121 (True)`; `transformers-cli env`: `(accelerator?): 2.6.0+cu124 (CUDA)`).
    A CUDA wheel counts only CUDA's devices, through cudaGetDeviceCount on the NVIDIA driver; a ROCm wheel
    (`+rocm6.2`) answers for HIP, and a version without the label names no build."""
    m = STATED_VERSION.match(line) if "PyTorch version (" in line else None
    return m is not None and m.group("available") in ("True", "CUDA") and "+cu" in m.group("version")


def ran_after(lines: Sequence[str], failed: Sequence[str]) -> tuple[str, ...]:
    """The lines of `failed` (stripped) where a line of `lines` after the last of them shows CUDA at work
    (ran_in_lines); () where none does. A refused start followed by the program's CUDA at work is the user's past (a
    failure quoted from before the fix, then the working run: corpus 2443), not the host's state; a failure after the
    working run is the last word, and keeps every one. One pass over the lines, then one read of the lines after the
    last failure."""
    wanted = set(failed)
    last = max((i for i, line in enumerate(lines) if line.strip() in wanted), default=-1)
    return tuple(dict.fromkeys(failed)) if last >= 0 and ran_in_lines(lines[last + 1:]) else ()


def _from_text(text: str) -> CudaRan:
    lines = text.splitlines()
    found = ran_in_lines(lines)
    asked = torch_answered(lines)
    inside = next((line.strip() for line in lines if DRIVER_FOUND_INSIDE.search(line)), "")
    if not found and not inside and asked is None:
        raise FactUnavailable("no line of a CUDA program at work")
    refused = [line for line in lines if any(n in line for n in _NOT_READY_NEEDLES)
               and any(s.pattern.search(line[:LINE_LOOK_CHARS]) for s in SYSTEM_NOT_READY)] if found else []
    past = ran_after(lines, [line.strip() for line in refused]) if refused else ()
    return CudaRan(found, asked, driver_inside=inside, recovered=past)


@parser(EVIDENCE_LINES, feeds="cuda_ran", kind=CudaRan, rank=30)
def cuda_ran_in_evidence_lines(text: str) -> CudaRan:
    """A CUDA program's lines pasted on their own.

    Input (tests/data/captures/1045)::

        GPU 0 has a total capacity of 94.97 GiB of which 164.81 MiB is free.
    """
    return _from_text(text)


@parser(ENGINE_LOG, feeds="cuda_ran", kind=CudaRan, rank=20)
def cuda_ran_in_engine_log(text: str) -> CudaRan:
    """A CUDA program's lines in a pasted engine log.

    Input (modelled on tests/data/captures/1060)::

        Free GPU memory before component creation attempt (GiB): 16.95
    """
    return _from_text(text)


@parser(NCCL_TESTS, feeds="cuda_ran", kind=CudaRan, rank=27)
def cuda_ran_in_nccl_tests(text: str) -> CudaRan:
    """An nccl-tests run's lines that show its CUDA at work (its communicators' `Init COMPLETE` under NCCL_DEBUG=INFO,
    a kernel launch refused for want of code for the GPU).

    Input (tests/data/captures/2076, NVIDIA/nccl-tests#79)::

        zlabs-trainer: Test CUDA failure common.cu:253 'no kernel image is available for execution on the device'
    """
    return _from_text(text)


@parser(P2P_BANDWIDTH_TEST, feeds="cuda_ran", kind=CudaRan, rank=26)
def cuda_ran_in_device_query(text: str) -> CudaRan:
    """The CUDA samples' deviceQuery reading a device's properties: it prints a `Device N: "<name>"` block, the
    driver's and the runtime's CUDA first, only after cudaGetDeviceCount succeeded (on a driver too old for its runtime
    it prints `cudaGetDeviceCount returned 35` and `Result = FAIL` instead), then cudaGetDeviceProperties answered
    from the GPU: its runtime ran on the driver. One piece of evidence with every device it lists.

    Input (tests/data/captures/2486, https://github.com/ollama/ollama/issues/2332)::

        Device 0: "NVIDIA GeForce GTX 1050 Ti"
          CUDA Driver Version / Runtime Version          12.2 / 12.1
    """
    lines = text.splitlines()
    devices: dict[int, str] = {}
    line = ""
    for i, row in enumerate(lines[:-1]):
        if (m := DQ_DEVICE.match(row)) and (v := DQ_DRIVER_RUNTIME.match(lines[i + 1])):
            devices.setdefault(int(m["d"]), m["name"].strip())
            line = line or lines[i + 1].strip()
            runtime = v["runtime"]
    if not devices:
        raise ParseError("no deviceQuery `Device N: \"<name>\"` line over its driver and runtime line")
    return CudaRan((Ran("deviceQuery", f"deviceQuery (CUDA runtime {runtime}) read the properties of "
                        f"{len(devices)} CUDA device(s) after cudaGetDeviceCount succeeded", line,
                        tuple(devices.values()), tuple(devices)),))


@parser(GGML_CUDA_DEVICES, feeds="cuda_ran", kind=CudaRan, rank=25)
def cuda_ran_in_ggml_devices(text: str) -> CudaRan:
    """llama.cpp's CUDA backend counting one device or more (GGML_FOUND), whether or not its device lines follow.

    Input (tests/data/captures/1283, cut after the count)::

        > ggml_cuda_init: found 3 CUDA devices:
    """
    found = GGML_FOUND.search(text)
    if found is None or int(found.group(1)) == 0:
        raise FactUnavailable("no `ggml_cuda_init: found N CUDA devices` line with a device")
    return CudaRan((Ran("llama.cpp", f"llama.cpp's CUDA backend counted {found.group(1)} CUDA device(s) through its "
                        "runtime (ggml_cuda_init's cudaGetDeviceCount)", found.group(0)),))


def cuda_build(env: CollectEnv) -> bool:
    """Whether the report's torch may be a CUDA build: not one it shows built without CUDA (`CUDA used to build
    PyTorch: None`), nor a ROCm build, whose `Is CUDA available: True` is HIP's (`ROCM used to build PyTorch: 6.2`,
    `2.6.0+rocm6.2`), nor a CPU wheel (`+cpu`)."""
    built = env.values.get("CUDA used to build PyTorch", "")
    rocm = env.values.get("ROCM used to build PyTorch", "")
    version = env.values.get("PyTorch version", "") or env.values.get("PyTorch", "")
    return (built not in ("None", "N/A") and rocm in ("", "N/A", "None")
            and not re.search(r"\+(?:rocm|cpu)", version))


@provider("cuda_ran", CudaRan, rank=10, title="a CUDA program's run (nvbandwidth, llama.cpp, collect_env)")
def cuda_ran_in_runs(ctx: FactContext) -> CudaRan:
    """What the parsed runs show: an nvbandwidth test that moved data, llama.cpp's CUDA buffers, a collect_env's
    torch initialising CUDA, and a refused start among the log symptoms (pasted runs)."""
    found: list[Ran] = []
    run = ctx.optional("p2p_bandwidth", P2pBandwidth)
    if run is not None and run.program == NVBANDWIDTH and run.tests:
        gpus = ctx.optional("gpus", GpuInventory)
        listed = tuple(g.model for g in (gpus.gpus if gpus is not None else ()) if NVBANDWIDTH_TITLE in g.shown_by)
        test = run.tests[0]
        on = f" on its {len(run.devices)} devices" if run.devices else ""
        found.append(Ran(NVBANDWIDTH, f"nvbandwidth ran {test.key}{on} (a copy needs a live CUDA context)",
                         f"Running {test.key}.", listed, run.devices))
    if run is not None and run.program != NVBANDWIDTH and run.devices and (run.answered or run.enabled or run.disabled):
        gpus = ctx.optional("gpus", GpuInventory)
        listed = tuple(g.model for g in (gpus.gpus if gpus is not None else ()) if P2P_TEST_TITLE in g.shown_by)
        what = "answered peer access between its devices" if run.answered else "measured copies between its devices"
        line = (f"Device={run.can_access[0][0]} CAN Access Peer Device={run.can_access[0][1]}" if run.can_access
                else f"Device: {run.devices[0]}, {listed[0] if listed else '…'}")
        found.append(Ran("p2pBandwidthLatencyTest", f"p2pBandwidthLatencyTest {what} on its {len(run.devices)} "
                         "devices (CUDA runtime calls on a live driver)", line, listed, run.devices))
    log = ctx.optional("serving_log", ServingLog)
    if log is not None and log.ggml_cuda_line:
        found.append(Ran("llama.cpp", f"llama.cpp's CUDA backend read or allocated memory on "
                         f"{', '.join(log.ggml_cuda_devices)}", log.ggml_cuda_line,
                         devices=tuple(int(d.removeprefix("CUDA")) for d in log.ggml_cuda_devices
                                       if d.removeprefix("CUDA").isdigit())))
    if (decoded := _ollama_decoded(ctx.optional("ollama_shown", OllamaShown),
                                   ctx.optional("serving_rate", MeasuredRate),
                                   ctx.optional("gpus", GpuInventory))) is not None:
        found.append(decoded)
    if (decoded := _exllamav2_decoded(ctx.optional("serving_rate", MeasuredRate),
                                      ctx.optional("gpus", GpuInventory))) is not None:
        found.append(decoded)
    if (held := held_in_table(ctx.optional("nvidia", NvidiaGpus))) is not None:
        found.append(held)
    env = ctx.optional("collect_env", CollectEnv)
    report = None
    if env is not None and env.cuda_initialised and cuda_build(env):
        said = ("Is CUDA available: True" if env.values.get("Is CUDA available") == "True"
                else "CUDA available: True")
        report = Ran("torch", "torch initialised CUDA where the report ran", said, tuple(env.gpu_models),
                     tuple(range(env.gpu_count)))
    symptoms = ctx.optional("log_symptoms", LogSymptoms)
    failed = next((h.line for h in (symptoms.hits if symptoms is not None else ())
                   if h.symptom.name in REFUSED_START), "")
    if env is not None and env.driver_too_old_cuda and not failed:
        failed = f"the NVIDIA driver is too old (found CUDA {env.driver_too_old_cuda})"
    if not found and report is None and not failed:
        raise FactUnavailable("no CUDA program's run in the source")
    return CudaRan(tuple(found), report, failed)


def held_in_table(nvidia: NvidiaGpus | None) -> Ran | None:
    """nvidia-smi's GPUs with a program's memory on them (GpuInfo.serving_work: half the GPU's memory or more in use,
    or a process holding a model's worth), one piece of evidence with every such GPU (Ran.held); None where it shows
    none. Memory is allocated on a GPU only through a live context, which CUDA refuses on every GPU of an NVSwitch
    board (802) until Fabric Manager has set up the fabric (corpus 2447: 166593MiB held on B200s). The program that
    holds it is not named: it shows no runtime's version against the driver, so only `proof(with_held=True)` counts it."""
    rows = [g for g in (nvidia.gpus if nvidia is not None else ()) if g.serving_work and g.name]
    if not rows:
        return None
    first = rows[0]
    line = (f"{first.memory_used_mib:g}MiB / {first.memory_total_mib:g}MiB"
            if first.memory_used_mib is not None and first.memory_total_mib is not None else first.name)
    return Ran("the program holding the memory", f"nvidia-smi shows a program's memory held on {len(rows)} GPU(s) "
               "(half or more of a GPU's memory in use, or a process holding a model's worth: allocated through a "
               "live CUDA context)", line, tuple(g.name for g in rows), tuple(g.index for g in rows), held=True)


# ollama's own decode (`ollama run --verbose`'s `eval rate:`, facts/serving_rate.py) beside `ollama ps` placing every
# model it lists wholly on the GPU (`100% GPU`). `100% GPU` alone is the scheduler's placement, not a measurement: a
# runner whose CUDA backend failed runs on the CPU under it (corpus 318, 1378). The decode's pace settles where it ran:
# each token reads the whole model, so the rate times the smallest model's size (SIZE, an upper bound on what a token
# reads) is the memory bandwidth the decode needed; above CPU_DECODE_GBPS no CPU's memory feeds it (dual-channel DDR5
# ~90 GB/s; a 12-channel server socket 460 GB/s at its peak, of which llama.cpp's CPU decode reaches about half), so
# the runner decoded on a GPU. `100% GPU` names no vendor (Metal on a Mac, ROCm on AMD print the same), so it is CUDA
# at work only where the source shows an NVIDIA GPU (corpus 1397 shows none: its A100s are in the thread's words).
CPU_DECODE_GBPS = 300.0


def _ollama_decoded(shown: OllamaShown | None, rate: MeasuredRate | None, gpus: GpuInventory | None) -> Ran | None:
    """ollama's decode on an NVIDIA GPU (CPU_DECODE_GBPS), None where the source does not show one."""
    if shown is None or rate is None or not rate.source.startswith(OLLAMA_VERBOSE) or not shown.models:
        return None
    if gpus is None or not (gpus.gpus or any(n for _, n in gpus.counts)):
        return None  # no NVIDIA GPU shown: the GPU that decoded may be Apple's or AMD's
    if len(shown.on_gpu) < len(shown.models):
        return None  # a model partly or wholly on the CPU: the decode may be that one's
    smallest = min(shown.models, key=lambda m: m.size_gb)
    needed = smallest.size_gb * rate.tokens_per_s
    if needed < CPU_DECODE_GBPS:
        return None
    return Ran("ollama", f"ollama decoded at {rate.tokens_per_s:g} tokens/s ({rate.source}) with {smallest.name} "
               f"({smallest.size_gb:g} GB) 100% on the GPU, about {needed:.0f} GB/s of weights read, more than a CPU's "
               f"memory feeds (`ollama ps`: {' '.join(smallest.line.split())})", rate.line)


# exllamav2's example summing up one response (`Response generated in 8.56 seconds, 1024 tokens, 119.64 tokens/second`,
# facts/serving_rate.SCRIPT_RATES), or exllama's benchmark's generation rate (`** Speed: 15.56 tokens/second`,
# serving_rate.EXLLAMA_BENCHMARK): neither has a CPU path, its kernels run on a GPU through CUDA or through ROCm's
# HIP (both build for ROCm), so the line shows a GPU decode whose vendor it does not name. It is CUDA at work only where
# the source shows an NVIDIA GPU and no other vendor's (as for ollama's decode above; corpus 1448 shows neither: its
# A100 is in the user's words).


def _exllamav2_decoded(rate: MeasuredRate | None, gpus: GpuInventory | None) -> Ran | None:
    """exllamav2's (or exllama's) generation on an NVIDIA GPU, None where the source does not show one (or shows another vendor's)."""
    if rate is None or not rate.source.startswith(EXLLAMA_SOURCES) or gpus is None or gpus.others:
        return None
    if not (gpus.gpus or any(n for _, n in gpus.counts)):
        return None
    program = "exllama" if rate.source.startswith(EXLLAMA_BENCHMARK) else "exllamav2"
    return Ran(program, f"{program} generated at {rate.tokens_per_s:g} tokens/s ({rate.source}) where the source "
               "shows only NVIDIA GPUs: its CUDA kernels ran there (it has no CPU path)", rate.line)


# --- the CUDA runtime a container or image ships --------------------------------------------------------------------
# What names the CUDA runtime an image ships, where no torch names its own: the image's tag (NVIDIA's CUDA image
# `nvidia/cuda:12.8.0-devel-ubuntu22.04`, a CUDA sample's `cuda-sample:vectoradd-cuda10.2-ubi8`, an engine image's
# `-cu130` suffix: facts/docker.image_cuda), the variables NVIDIA's CUDA images set (`CUDA_VERSION=12.8.1`, and
# `NVIDIA_REQUIRE_CUDA=cuda>=12.8 brand=...`, the check the container toolkit runs at start against the driver), and
# the banner NVIDIA's images print at start (`== CUDA ==` then `CUDA Version 12.8.1`;
# https://gitlab.com/nvidia/container-images/cuda, entrypoint.d/10-banner.sh).
CUDA_BANNER = re.compile(r"^\s*CUDA Version (\d+\.\d+)(?:\.\d+)?\s*$")
_REQUIRE_CUDA = re.compile(r"^cuda>=(\d+\.\d+)\b")
# An image reference inside a line of prose or a list (`the nvidia-driver-validation pod (cuda-sample:vectoradd-
# cuda10.2-ubi8)`, corpus 1145): NVIDIA's own CUDA images (nvidia_image_cuda) and the engine images whose tag suffix
# names torch's CUDA (docker.engine_image_cuda: `upgrading from lmsysorg/sglang:v0.4.6.post5-cu124 to
# lmsysorg/sglang:v0.4.8-cu126`, corpus 1161), PyTorch's own (`pytorch/pytorch:2.0.0-cuda11.7-cudnn8-runtime`),
# whose tag names the runtime, and Text Generation Inference's and NGC's framework images, whose tag names a release
# (docker.tgi_image_cuda, docker.ngc_image_cuda: `nvcr.io/nvidia/tritonserver:25.04-py3` on a line of its own).
_IMAGE_WORD = re.compile(r"(?<![\w./:-])((?:[\w.-]+/)*(?:cuda|cuda-sample|sglang|vllm-openai|pytorch|tensorflow|"
                         r"tritonserver|tensorrt|mxnet|text-generation-inference|rapidsai/[\w-]+):[\w.-]+)")
RUNTIME_NEEDLES = ("CUDA Version ", "cuda:", "rapidsai/", "cuda-sample:", "sglang:", "vllm-openai:", "pytorch/pytorch:",
                   "nvcr.io/nvidia/", "NVIDIA Release ",
                   "built for NVIDIA Driver", "text-generation-inference:", '"docker_label"')


@dataclass(frozen=True)
class Runtime:
    """One CUDA runtime a source names: its CUDA (`12.8`), where it was read (the image whose tag names it, else in
    words), the line that shows it."""
    cuda: str
    where: str
    line: str = ""


@dataclass(frozen=True)
class CudaRuntime(Sourced):
    """The CUDA runtimes the images and containers of the source ship, each with where it was read, and the lines of
    an NGC image's entrypoint driver check the source shows (docker.NGC_CHECK_LINE)."""
    runtimes: tuple[Runtime, ...] = ()
    ngc_checks: tuple[str, ...] = ()
    # The NGC start banners (their release lines) shown to their end (docker.ngc_banner_line).
    ngc_ended: tuple[str, ...] = ()

    @classmethod
    def union(cls, parts: Sequence[CudaRuntime]) -> CudaRuntime:
        return cls(tuple(dict.fromkeys(r for p in parts for r in p.runtimes)),
                   tuple(dict.fromkeys(line for p in parts for line in p.ngc_checks)),
                   tuple(dict.fromkeys(line for p in parts for line in p.ngc_ended)),
                   complete=all(p.complete for p in parts))


fact("cuda_runtime", CudaRuntime, union, hint="paste the container's `docker inspect` or its start banner")


def runtime_in_line(line: str) -> Runtime | None:
    """The first CUDA runtime one line names (runtimes_in_line)."""
    return next(iter(runtimes_in_line(line)), None)


def runtimes_in_line(line: str) -> tuple[Runtime, ...]:
    """The CUDA runtimes one line names: NVIDIA's CUDA image banner, Text Generation Inference's /info naming its
    release and image (docker.tgi_info_line), an NGC container's banner naming its release (docker.NGC_BANNER), an NGC
    image's start-up check naming the driver it was built for, or each of NVIDIA's CUDA images, the engine images with
    a CUDA suffix and the release-tagged images (TGI's, NGC's) named in the line (an upgrade from one to another names
    both)."""
    banner = CUDA_BANNER.match(line)
    if banner:
        return (Runtime(banner.group(1), "the CUDA image's start banner", line.strip()),)
    info = TGI_INFO_LINE.match(line.strip())
    if info and (tgi := tgi_image_cuda(f"huggingface/text-generation-inference:{info.group(1)}")):
        return (Runtime(tgi, f"Text Generation Inference {info.group(1)}'s image (its /info: \"docker_label\": "
                        f"\"{info.group(2)}\")", line.strip()),)
    ngc = NGC_BANNER.match(line)
    if ngc and ngc.group(1) in NGC_RELEASE_CUDA:
        ngc_cuda, driver, _ = NGC_RELEASE_CUDA[ngc.group(1)]
        return (Runtime(ngc_cuda, f"NGC release {ngc.group(1)} (its start banner; its release notes: CUDA {ngc_cuda}, "
                        f"driver {driver} or later)", line.strip()),)
    built = NGC_CHECK["built-for"][1].search(line)
    if built and (cuda := cuda_of_branch((int(built.group(1)), int(built.group(2))))):
        return (Runtime(cuda, f"an NGC image built for driver {built.group(1)}.{built.group(2)} (its start-up "
                        "check)", line.strip()),)
    return tuple(Runtime(cuda, m.group(1), line.strip()) for m in _IMAGE_WORD.finditer(line)
                 if (cuda := image_cuda(m.group(1))))


@parser(EVIDENCE_LINES, feeds="cuda_runtime", kind=CudaRuntime, rank=30)
def cuda_runtime_in_evidence_lines(text: str) -> CudaRuntime:
    """The CUDA runtime a line names: NVIDIA's CUDA image banner, an image of NVIDIA's named in prose or a list.

    Input (tests/data/captures/1145)::

        It's just that the nvidia-driver-validation pod (cuda-sample:vectoradd-cuda10.2-ubi8) is CrashLooping
    """
    found = tuple(dict.fromkeys(r for line in text.splitlines() for r in runtimes_in_line(line)))
    lines = text.splitlines()
    checks = tuple(dict.fromkeys(line.strip() for line in lines if NGC_CHECK_LINE.search(line)))
    if not found and not checks:  # the lines of an NGC image's driver check alone are read too (corpus 1864)
        raise ParseError("no CUDA image, banner or NGC driver check in the lines shown")
    ended = tuple(dict.fromkeys(line[len(NGC_BANNER_ENDED):].strip() for line in lines
                                if line.startswith(NGC_BANNER_ENDED)))
    return CudaRuntime(found, checks, ended)


@provider("cuda_runtime", CudaRuntime, rank=10, title="the containers' images and CUDA variables")
def cuda_runtime_in_containers(ctx: FactContext) -> CudaRuntime:
    """The CUDA runtime each container's image tag names (docker.image_cuda), else its CUDA_VERSION or
    NVIDIA_REQUIRE_CUDA variable (NVIDIA's CUDA images set both)."""
    containers = ctx.fact("docker_containers", DockerContainers)
    found: list[Runtime] = []
    for c in containers.containers:
        env = dict(c.env)
        if cuda := image_cuda(c.image):
            found.append(Runtime(cuda, c.image))
        elif version := re.match(r"\d+\.\d+", env.get("CUDA_VERSION", "")):
            found.append(Runtime(version.group(0), f"{c.image or c.name} (CUDA_VERSION={env['CUDA_VERSION']})"))
        elif require := _REQUIRE_CUDA.match(env.get("NVIDIA_REQUIRE_CUDA", "")):
            found.append(Runtime(require.group(1), f"{c.image or c.name} (NVIDIA_REQUIRE_CUDA="
                                 f"{env['NVIDIA_REQUIRE_CUDA'].split()[0]})"))
    if not found:
        raise FactUnavailable("no container whose image names its CUDA runtime")
    return CudaRuntime(tuple(dict.fromkeys(found)))
